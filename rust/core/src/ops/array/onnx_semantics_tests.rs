//! The array ops' ONNX variants that ONNX's operator suite
//! (`tests/onnx/test_onnx_node_suite.py`) found missing: GatherV2's
//! negative indices, OnnxSplit's uneven parts and OnnxRange's empty ranges
//! and one-element bounds, each beside the TensorFlow form it departs from.

use crate::prelude::*;
use crate::test_graphs::OpCase;

const I64: DataType = DataType::Int64;

/// GatherV2 of `[10, 20, 30]` at `indices`, its negative indices allowed
/// or not: the folded value, or the error.
fn gather(indices: &[i64], negative: bool) -> Result<Vec<i64>, String> {
    let mut c = OpCase::new();
    let params = c.ints(&[10, 20, 30], true);
    let indices = c.ints(indices, true);
    let axis = c.ints(&[0], false);
    let y = c.op(
        "GatherV2",
        &[params, indices, axis],
        &[("negative_index_support", AttrValue::Bool(negative))],
    );
    c.infer()?;
    Ok(c.desc(y)
        .value
        .as_ref()
        .and_then(|v| v.to_ints())
        .expect("folded"))
}

#[test]
fn gather_takes_negative_indices_only_when_told() {
    assert_eq!(gather(&[-1, 0, -3], true).unwrap(), [30, 10, 10]);
    assert!(gather(&[-1], false)
        .unwrap_err()
        .contains("index -1 is out of range"));
    // Below -dim is out of range either way.
    assert!(gather(&[-4], true)
        .unwrap_err()
        .contains("out of range [-3, 3)"));
    assert!(gather(&[3], true).unwrap_err().contains("out of range"));
}

/// The part sizes of an `op_type` split (OnnxSplit, SplitD) of the second
/// axis of `[2, dim]` into `parts`.
fn split(op_type: &str, dim: i64, parts: u32) -> Result<Vec<Vec<i64>>, String> {
    let mut c = OpCase::new();
    let x = c.input(DataType::Float, &[2, dim]);
    let spec = OpSpec {
        op_type: op_type.into(),
        name: "split".into(),
        inputs: vec![PortInput::Single(Some(x))],
        attrs: [
            ("split_dim", AttrValue::Int(1)),
            ("num_split", AttrValue::Int(i64::from(parts))),
        ]
        .into_iter()
        .collect(),
        dynamic_outputs: vec![("y".into(), parts)],
        ..OpSpec::default()
    };
    let id = add_op(&mut c.g, &c.r, spec).map_err(|e| e.to_string())?;
    c.infer()?;
    Ok(c.g
        .node(id)
        .outputs
        .iter()
        .map(|d| d.shape().dims().to_vec())
        .collect())
}

#[test]
fn onnx_split_gives_ceil_sized_parts_and_the_rest_last() {
    let widths = |dim, parts| -> Vec<i64> {
        split("OnnxSplit", dim, parts)
            .unwrap()
            .iter()
            .map(|d| d[1])
            .collect()
    };
    assert_eq!(widths(8, 4), [2, 2, 2, 2]);
    assert_eq!(widths(7, 4), [2, 2, 2, 1]);
    assert_eq!(widths(8, 3), [3, 3, 2]);
    assert_eq!(widths(4, 5), [1, 1, 1, 1, 0]);
    assert_eq!(widths(-1, 2), [-1, -1]);
    // ceil(5 / 4) = 2 leaves -1 for the last part: no such split.
    assert!(split("OnnxSplit", 5, 4)
        .unwrap_err()
        .contains("too few for 4 parts of 2"));
    // GE's SplitD still wants equal parts.
    assert!(split("SplitD", 7, 2)
        .unwrap_err()
        .contains("cannot share equally"));
}

/// `op_type(start, limit, delta)` of INT64 constants shaped `bound_dims`:
/// the output's dims and folded value, or the error.
fn range(
    op_type: &str,
    bounds: [i64; 3],
    bound_dims: &[i64],
) -> Result<(Vec<i64>, Vec<i64>), String> {
    let mut c = OpCase::new();
    let [start, limit, delta] = [
        ("start", bounds[0]),
        ("limit", bounds[1]),
        ("delta", bounds[2]),
    ]
    .map(|(name, b)| {
        let t = HostTensor::from_ints(I64, Shape::from_dims(bound_dims), &[b]).unwrap();
        c.g.add_const_node(name, t).unwrap()
    });
    let y = c.op(op_type, &[start, limit, delta], &[]);
    c.infer()?;
    let value = c
        .desc(y)
        .value
        .as_ref()
        .and_then(|v| v.to_ints())
        .unwrap_or_default();
    Ok((c.dims(y), value))
}

#[test]
fn onnx_range_is_empty_where_tensorflows_is_an_error() {
    assert_eq!(
        range("OnnxRange", [5, 2, 1], &[]).unwrap(),
        (vec![0], vec![])
    );
    assert!(range("Range", [5, 2, 1], &[])
        .unwrap_err()
        .contains("start <= limit"));
    assert_eq!(
        range("OnnxRange", [10, 4, -3], &[]).unwrap(),
        (vec![2], vec![10, 7])
    );
    // One-element vectors are bounds too (ONNX's own function bodies pass them).
    assert_eq!(
        range("OnnxRange", [0, 3, 1], &[1]).unwrap(),
        (vec![3], vec![0, 1, 2])
    );
    assert!(range("Range", [0, 3, 1], &[1])
        .unwrap_err()
        .contains("must be a scalar"));
    assert!(range("OnnxRange", [0, 3, 0], &[])
        .unwrap_err()
        .contains("non-zero delta"));
}
