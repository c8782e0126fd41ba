//! SpaceToBatchND / BatchToSpaceND, MatrixBandPart, Where and Unique on
//! small graphs: shapes worked out by hand from TensorFlow's rules, unknown
//! dims and ranks, ranges, and the invalid inputs each rejects.

use crate::prelude::*;
use crate::test_graphs::{infer_all, input, int_const, op, ranged_input};
use thin_vec::thin_vec;

const F32: DataType = DataType::Float;
const I32: DataType = DataType::Int32;

/// `op_type(x, block_shape, amounts)`: output 0's descriptor, or the error.
fn block_move(
    op_type: &str,
    x: &[i64],
    block: Option<&[i64]>,
    amounts: Option<&[i64]>,
) -> Result<TensorDesc, String> {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", F32, x, Format::Nd);
    let block = match block {
        Some(b) => int_const(&mut g, "block", I32, &[b.len() as i64], b),
        None => input(&mut g, "block", I32, &[2], Format::Nd),
    };
    let amounts = match amounts {
        Some(a) => int_const(&mut g, "amounts", I32, &[a.len() as i64 / 2, 2], a),
        None => input(&mut g, "amounts", I32, &[2, 2], Format::Nd),
    };
    let y = op(
        &mut g,
        &r,
        op_type,
        "node",
        &[x, block, amounts],
        Attrs::new(),
    );
    infer_all(&mut g, &r)?;
    Ok(g.tensor(y).clone())
}

fn dims(result: Result<TensorDesc, String>) -> Vec<i64> {
    result.unwrap().shape().dims().to_vec()
}

fn error(result: Result<TensorDesc, String>) -> String {
    result.unwrap_err()
}

#[test]
fn space_to_batch_pads_then_moves_blocks_into_the_batch() {
    let s2b =
        |x: &[i64], b: Option<&[i64]>, p: Option<&[i64]>| block_move("SpaceToBatchND", x, b, p);
    // (5 + 1) / 2 = 3, 6 / 3 = 2, batch 2 * 6.
    assert_eq!(
        dims(s2b(&[2, 5, 6, 3], Some(&[2, 3]), Some(&[1, 0, 0, 0]))),
        [12, 3, 2, 3]
    );
    assert_eq!(
        dims(s2b(&[-1, 5, -1, 3], Some(&[2, 3]), Some(&[1, 0, 0, 0]))),
        [-1, 3, -1, 3]
    );
    // A known block shape fixes the batch even without the paddings.
    assert_eq!(
        dims(s2b(&[2, 5, 6, 3], Some(&[2, 3]), None)),
        [12, -1, -1, 3]
    );
    assert_eq!(
        dims(s2b(&[2, 5, 6, 3], None, Some(&[1, 0, 0, 0]))),
        [-1, -1, -1, 3]
    );
    assert_eq!(dims(s2b(&[-2], Some(&[2, 3]), None)), [-2]);
    assert!(
        error(s2b(&[2, 5, 6, 3], Some(&[2, 3]), Some(&[0, 0, 0, 0])))
            .contains("not divisible by the block size 2")
    );
    assert!(error(s2b(&[2, 4, 6, 3], Some(&[2, 0]), None)).contains("must be all >= 1"));
    assert!(
        error(s2b(&[2, 4, 6, 3], Some(&[2, 3]), Some(&[0, -1, 0, 0])))
            .contains("paddings[0] = [0, -1] must be >= 0")
    );
    assert!(error(s2b(&[2, 4], Some(&[2, 3]), None)).contains("rank >= 3"));
    assert!(error(s2b(&[2, 4, 6, 3], Some(&[2]), Some(&[0, 0, 0, 0])))
        .contains("paddings must have shape [1, 2]"));
}

#[test]
fn batch_to_space_moves_blocks_out_then_crops() {
    let b2s =
        |x: &[i64], b: Option<&[i64]>, c: Option<&[i64]>| block_move("BatchToSpaceND", x, b, c);
    // batch 12 / 6; 3 * 2 - 1 = 5; 2 * 3 - 2 = 4.
    assert_eq!(
        dims(b2s(&[12, 3, 2, 3], Some(&[2, 3]), Some(&[1, 0, 0, 2]))),
        [2, 5, 4, 3]
    );
    assert_eq!(
        dims(b2s(&[-1, 3, 2, 3], Some(&[2, 3]), None)),
        [-1, -1, -1, 3]
    );
    assert!(error(b2s(&[10, 3, 2, 3], Some(&[2, 3]), None)).contains("batch 10 is not divisible"));
    assert!(
        error(b2s(&[12, 1, 2, 3], Some(&[2, 3]), Some(&[2, 1, 0, 0]))).contains("negative size")
    );
    assert!(error(b2s(&[12, 1, 2, 3], Some(&[2, 3]), Some(&[0, 0])))
        .contains("crops must have shape [2, 2]"));
}

#[test]
fn block_moves_carry_ranges() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = ranged_input(
        &mut g,
        "x",
        F32,
        &[-1, -1, 4, 3],
        &[(1, 4), (3, 9), (4, 4), (3, 3)],
    );
    let block = int_const(&mut g, "block", I32, &[2], &[2, 2]);
    let pads = int_const(&mut g, "pads", I32, &[2, 2], &[1, 0, 0, 0]);
    let y = op(
        &mut g,
        &r,
        "SpaceToBatchND",
        "s2b",
        &[x, block, pads],
        Attrs::new(),
    );
    let z = op(
        &mut g,
        &r,
        "BatchToSpaceND",
        "b2s",
        &[y, block, pads],
        Attrs::new(),
    );
    infer_all(&mut g, &r).unwrap();
    assert_eq!(g.tensor(y).shape().dims(), &[-1, -1, 2, 3]);
    // batch 4 * [1, 4]; (d + 1) / 2 for the d in [3, 9] that divide: [2, 5].
    assert_eq!(
        g.tensor(y).shape_range,
        Some(thin_vec![(4, 16), (2, 5), (2, 2), (3, 3)])
    );
    // And back: [1, 4] batches, 2 * [2, 5] - 1.
    assert_eq!(
        g.tensor(z).shape_range,
        Some(thin_vec![(1, 4), (3, 9), (4, 4), (3, 3)])
    );
}

#[test]
fn band_part_keeps_the_shape_and_checks_the_bounds() {
    let band = |x: &[i64], lower: i64, upper: i64| {
        let r = OpRegistry::with_builtins();
        let mut g = Graph::new("g");
        let x = input(&mut g, "x", F32, x, Format::Nd);
        let lower = int_const(&mut g, "lower", DataType::Int64, &[], &[lower]);
        let upper = int_const(&mut g, "upper", DataType::Int64, &[], &[upper]);
        let y = op(
            &mut g,
            &r,
            "MatrixBandPart",
            "band",
            &[x, lower, upper],
            Attrs::new(),
        );
        infer_all(&mut g, &r).map(|()| g.tensor(y).clone())
    };
    assert_eq!(dims(band(&[2, 3, 4], 1, -1)), [2, 3, 4]);
    assert_eq!(dims(band(&[-1, -1], 7, 9)), [-1, -1]);
    assert_eq!(dims(band(&[-2], 7, 9)), [-2]);
    assert!(error(band(&[4], 0, 0)).contains("rank >= 2"));
    assert!(error(band(&[3, 4], 4, 0)).contains("num_lower is 4, more than the 3 rows"));
    assert!(error(band(&[3, 4], 0, 5)).contains("num_upper is 5, more than the 4 columns"));
}

/// Where's output and its range for an input of `dims` (with `range`).
fn where_of(dims: &[i64], range: Option<&[(i64, i64)]>) -> TensorDesc {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = match range {
        Some(range) => ranged_input(&mut g, "x", DataType::Bool, dims, range),
        None => input(&mut g, "x", DataType::Bool, dims, Format::Nd),
    };
    let y = op(&mut g, &r, "Where", "where", &[x], Attrs::new());
    infer_all(&mut g, &r).unwrap();
    g.tensor(y).clone()
}

#[test]
fn where_has_one_row_per_true_element_at_most_all_of_them() {
    let w = where_of(&[2, 3], None);
    assert_eq!((w.dtype, w.shape().dims()), (DataType::Int64, &[-1, 2][..]));
    assert_eq!(w.shape_range, Some(thin_vec![(0, 6), (2, 2)]));
    let w = where_of(&[2, -1, 3], Some(&[(2, 2), (1, 5), (3, 3)]));
    assert_eq!(w.shape().dims(), &[-1, 3]);
    assert_eq!(w.shape_range, Some(thin_vec![(0, 30), (3, 3)]));
    // A scalar has one element and no coordinates.
    assert_eq!(
        where_of(&[], None).shape_range,
        Some(thin_vec![(0, 1), (0, 0)])
    );
    // Unbounded or unknown rank: no range to give.
    assert_eq!(where_of(&[2, -1], None).shape_range, None);
    let unknown = where_of(&[-2], None);
    assert_eq!(unknown.shape().dims(), &[-1, -1]);
    assert_eq!(unknown.shape_range, None);
}

/// Unique / UniqueWithCounts outputs for `x` (with `range`) and `out_idx`.
fn unique(
    op_type: &str,
    x: &[i64],
    range: Option<(i64, i64)>,
    out_idx: DataType,
) -> Result<Vec<TensorDesc>, String> {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = match range {
        Some(range) => ranged_input(&mut g, "x", I32, x, &[range]),
        None => input(&mut g, "x", I32, x, Format::Nd),
    };
    let attrs: Attrs = [("out_idx", AttrValue::DataType(out_idx))]
        .into_iter()
        .collect();
    let y = op(&mut g, &r, op_type, "unique", &[x], attrs);
    infer_all(&mut g, &r)?;
    Ok(g.node(y.node).outputs.to_vec())
}

#[test]
fn unique_values_are_counted_at_run_time() {
    let out = unique("Unique", &[7], None, I32).unwrap();
    assert_eq!((out[0].dtype, out[0].shape().dims()), (I32, &[-1][..]));
    // Seven elements hold between one and seven distinct values.
    assert_eq!(out[0].shape_range, Some(thin_vec![(1, 7)]));
    assert_eq!((out[1].dtype, out[1].shape().dims()), (I32, &[7][..]));
    assert_eq!(
        unique("Unique", &[0], None, I32).unwrap()[0].shape_range,
        Some(thin_vec![(0, 0)])
    );
    let out = unique("UniqueWithCounts", &[-1], Some((0, 9)), DataType::Int64).unwrap();
    assert_eq!(out.len(), 3);
    assert_eq!(out[0].shape_range, Some(thin_vec![(0, 9)]));
    assert_eq!(out[1].shape_range, Some(thin_vec![(0, 9)]));
    assert_eq!(
        (out[2].dtype, out[2].shape().dims()),
        (DataType::Int64, &[-1][..])
    );
    assert_eq!(out[2].shape_range, Some(thin_vec![(0, 9)]));
    assert_eq!(
        unique("Unique", &[-1], None, I32).unwrap()[0].shape_range,
        None
    );
    assert!(unique("Unique", &[2, 3], None, I32)
        .unwrap_err()
        .contains("x must be a vector"));
    assert!(unique("Unique", &[3], None, DataType::Float)
        .unwrap_err()
        .contains("out_idx must be INT32 or INT64"));
}

/// `op_type(x)` with `block_size`: output 0's descriptor, or the error.
fn depth_move(op_type: &str, x: &[i64], block: i64) -> Result<TensorDesc, String> {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", F32, x, Format::Nd);
    let mut attrs = Attrs::new();
    attrs.set("block_size", AttrValue::Int(block));
    let y = op(&mut g, &r, op_type, "node", &[x], attrs);
    infer_all(&mut g, &r)?;
    Ok(g.tensor(y).clone())
}

#[test]
fn depth_moves_reject_blocks_whose_square_overflows() {
    // block * block wrapped: 2**32 squared is 0 (a division by zero), and
    // (2**61 + 4) squared is 16, which divides a depth of 16.
    for block in [1i64 << 32, (1 << 61) + 4, i64::MAX] {
        let e = error(depth_move("DepthToSpace", &[1, 4, 4, 16], block));
        assert!(e.contains("block_size * block_size"), "{e}");
        assert!(!e.contains("internal error"), "{e}");
        let e = error(depth_move("SpaceToDepth", &[1, block, block, 1], block));
        assert!(e.contains("block_size * block_size"), "{e}");
    }
    // A large block whose square fits still works (TF's shapes).
    let b = 1i64 << 31;
    assert_eq!(
        dims(depth_move("DepthToSpace", &[1, 1, 1, 1 << 62], b)),
        [1, b, b, 1]
    );
    assert_eq!(
        dims(depth_move("SpaceToDepth", &[1, b, b, 1], b)),
        [1, 1, 1, 1 << 62]
    );
}
