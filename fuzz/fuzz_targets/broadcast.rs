//! `broadcast_shapes` against the independent reference on arbitrary dims,
//! including ones outside GE's conventions (it must not panic on those).

#![no_main]

use libfuzzer_sys::fuzz_target;
use opgraph_core::ops::broadcast_shapes;
use opgraph_core::prelude::Shape;
use opgraph_fuzz::{plan::AnyInt, reference::broadcast};

fuzz_target!(|dims: (Vec<AnyInt>, Vec<AnyInt>)| {
    let a: Vec<i64> = dims.0.iter().take(8).map(|d| d.0).collect();
    let b: Vec<i64> = dims.1.iter().take(8).map(|d| d.0).collect();
    let got = broadcast_shapes(&Shape::from_dims(&a), &Shape::from_dims(&b));
    // The reference only speaks for shapes that follow GE's conventions.
    if Shape::new(&a).is_ok() && Shape::new(&b).is_ok() {
        let got = got.ok().map(|s| s.dims().to_vec());
        assert_eq!(got, broadcast(&a, &b), "broadcast of {a:?} and {b:?}");
    }
});
