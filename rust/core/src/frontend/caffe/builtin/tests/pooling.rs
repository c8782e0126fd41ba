//! Pooling: methods, global pooling, Caffe's rounding up, the clip of a
//! last window that would start in the padding, FLOOR rounding, spellings.

use super::{attr, boolean, int, ints, op_type, text, Net};
use crate::types::AttrValue;

/// `data` of `dims` through one Pooling layer with `params`.
fn pool(dims: &[i64], params: Vec<(&str, AttrValue)>) -> Net {
    let mut net = Net::with_input("data", dims);
    net.simple("pool", "Pooling", "data", params);
    net
}

fn kernel_stride(k: i64, s: i64) -> Vec<(&'static str, AttrValue)> {
    vec![("kernel_size", int(k)), ("stride", int(s))]
}

#[test]
fn methods_map_onto_modes_by_number_or_name() {
    for (pool_method, mode) in [
        (int(0), 0),
        (int(1), 1),
        (text("MAX"), 0),
        (text("AVE"), 1),
        (text("STOCHASTIC"), 2),
    ] {
        let mut params = kernel_stride(3, 2);
        params.push(("pool", pool_method));
        let g = pool(&[1, 8, 9, 9], params).infer().unwrap();
        assert_eq!(op_type(&g, "pool"), "Pooling");
        assert_eq!(attr(&g, "pool", "mode"), int(mode));
        assert_eq!(super::shape(&g, "pool", 0), [1, 8, 4, 4]);
    }
    let mut params = kernel_stride(3, 2);
    params.push(("pool", text("MIN")));
    let error = pool(&[1, 8, 9, 9], params).error();
    assert!(
        error.contains(
            "attribute 'pool' of layer 'pool' must be one of MAX (0), AVE (1), STOCHASTIC (2)"
        ),
        "{error}"
    );
}

#[test]
fn caffe_rounds_the_output_size_up() {
    // GoogLeNet pool1/3x3_s2: ceil((112 - 3) / 2) + 1 = 56 (floor would give 55).
    assert_eq!(
        pool(&[10, 64, 112, 112], kernel_stride(3, 2)).shape("pool"),
        [10, 64, 56, 56]
    );
    // AlexNet pool1 divides exactly: (55 - 3) / 2 + 1 = 27.
    assert_eq!(
        pool(&[10, 96, 55, 55], kernel_stride(3, 2)).shape("pool"),
        [10, 96, 27, 27]
    );
    // round_mode FLOOR (by number or name): floor((8 - 3) / 2) + 1 = 3, not 4.
    for floor in [int(1), text("FLOOR")] {
        let mut params = kernel_stride(3, 2);
        params.push(("round_mode", floor));
        assert_eq!(pool(&[1, 1, 8, 8], params).shape("pool"), [1, 1, 3, 3]);
    }
    assert_eq!(
        pool(&[1, 1, 8, 8], kernel_stride(3, 2)).shape("pool"),
        [1, 1, 4, 4]
    );
}

#[test]
fn a_last_window_starting_in_the_padding_is_clipped() {
    // in 5, k 2, s 2, pad 1: ceil((5 + 2 - 2) / 2) + 1 = 4, but window 4
    // would start at 3 * 2 = 6 >= 5 + 1, so Caffe keeps 3.
    let mut params = kernel_stride(2, 2);
    params.push(("pad", int(1)));
    assert_eq!(pool(&[1, 1, 5, 5], params).shape("pool"), [1, 1, 3, 3]);
    // 3x3 s1 p1 keeps the size (no clip needed).
    let mut params = kernel_stride(3, 1);
    params.push(("pad", int(1)));
    assert_eq!(pool(&[1, 2, 28, 28], params).shape("pool"), [1, 2, 28, 28]);
}

#[test]
fn padding_one_dim_clips_the_other_too() {
    // H: in 5, k 1, s 3, no pad: ceil(4 / 3) + 1 = 3, and the last window
    // starts at 6 >= 5. Caffe clips it only when the layer has padding,
    // which pad_w = 1 gives it: H becomes 2. W: (8 + 2 - 3) + 1 = 8.
    let mut params = vec![
        ("kernel_h", int(1)),
        ("kernel_w", int(3)),
        ("stride_h", int(3)),
        ("stride_w", int(1)),
        ("pad_h", int(0)),
        ("pad_w", int(1)),
    ];
    let g = pool(&[1, 1, 5, 8], params.clone()).infer().unwrap();
    assert_eq!(super::shape(&g, "pool", 0), [1, 1, 2, 8]);
    assert_eq!(attr(&g, "pool", "pad"), ints(&[0, 0, 1, 1]));
    assert_eq!(attr(&g, "pool", "window"), ints(&[1, 3]));
    assert_eq!(attr(&g, "pool", "stride"), ints(&[3, 1]));
    // Without any padding the empty last window stays: H 3, W 6.
    params[4] = ("pad_h", int(0));
    params[5] = ("pad_w", int(0));
    params[1] = ("kernel_w", int(3));
    let unpadded = pool(&[1, 1, 5, 8], params);
    assert_eq!(unpadded.shape("pool"), [1, 1, 3, 6]);
}

#[test]
fn global_pooling_needs_no_kernel() {
    let params = vec![("pool", text("AVE")), ("global_pooling", boolean(true))];
    let g = pool(&[1, 1024, 7, 7], params).infer().unwrap();
    assert_eq!(super::shape(&g, "pool", 0), [1, 1024, 1, 1]);
    assert_eq!(attr(&g, "pool", "global_pooling"), boolean(true));
    // Without global_pooling the kernel is required.
    let error = pool(&[1, 4, 7, 7], vec![("stride", int(2))]).error();
    assert!(error.contains("needs a kernel size >= 1"), "{error}");
}

#[test]
fn global_pooling_with_a_kernel_size_is_an_error() {
    for kernel in [
        vec![("kernel_size", int(3))],
        vec![("kernel_h", int(3)), ("kernel_w", int(3))],
    ] {
        let mut params = vec![("global_pooling", boolean(true))];
        params.extend(kernel);
        let error = pool(&[1, 8, 7, 7], params).error();
        assert!(
            error.contains("sets both global_pooling: true and 'kernel_"),
            "{error}"
        );
        assert!(error.contains("'pool'"), "{error}");
    }
}

#[test]
fn global_pooling_with_a_pad_or_stride_is_an_error() {
    for extra in [("pad", int(1)), ("stride", int(2))] {
        let params = vec![("global_pooling", boolean(true)), extra];
        let error = pool(&[1, 8, 7, 7], params).error();
        assert!(
            error.contains("Caffe allows only pad 0 and stride 1"),
            "{error}"
        );
    }
}
