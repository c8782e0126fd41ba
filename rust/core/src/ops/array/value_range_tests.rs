//! Value ranges (GE's per-element bounds of a shape vector whose value is
//! not known): recorded by Shape, carried by Gather and Cast, dropped by a
//! cast that could change a value, and read by Fill as its output's range.

use crate::prelude::*;
use crate::test_graphs::OpCase;

const I64: DataType = DataType::Int64;

fn dtype(t: DataType) -> AttrValue {
    AttrValue::Int(t.ge_value())
}

#[test]
fn shape_records_its_inputs_ranges_and_fill_reads_them() {
    let mut c = OpCase::new();
    let x = c.ranged_input(DataType::Float, &[-1, 4], &[(0, 450), (4, 4)]);
    let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
    let value = c.ints(&[0], false);
    let filled = c.op("Fill", &[shape, value], &[]);
    c.infer().unwrap();
    assert_eq!(
        c.desc(shape).value_range.as_deref(),
        Some(&[(0, 450), (4, 4)][..])
    );
    assert_eq!(c.dims(filled), [-1, 4]);
    assert_eq!(c.range(filled), Some(vec![(0, 450), (4, 4)]));
}

#[test]
fn casts_keep_bounds_only_where_every_value_survives() {
    let big = 3_000_000_000;
    for (to, bound, kept) in [
        (DataType::Int32, 450, true),
        (DataType::Int64, big, true),
        (DataType::Int32, big, false),
        // Unbounded above: a value could wrap past INT32.
        (DataType::Int32, -1, false),
        (DataType::Int64, -1, true),
        (DataType::Float, 450, false),
    ] {
        let mut c = OpCase::new();
        let x = c.ranged_input(DataType::Float, &[-1, 4], &[(1, bound), (4, 4)]);
        let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
        let cast = c.op("Cast", &[shape], &[("dst_type", dtype(to))]);
        c.infer().unwrap();
        let want = kept.then(|| vec![(1, bound), (4, 4)]);
        let got = c.desc(cast).value_range.as_ref().map(|r| r.to_vec());
        assert_eq!(got, want, "Cast to {to} with bound {bound}");
    }
}

#[test]
fn a_known_value_needs_no_bounds() {
    let mut c = OpCase::new();
    let x = c.input(DataType::Float, &[3, 4]);
    let shape = c.op("Shape", &[x], &[("out_type", AttrValue::DataType(I64))]);
    c.infer().unwrap();
    assert!(c.desc(shape).value.is_some());
    assert_eq!(c.desc(shape).value_range, None);
}
