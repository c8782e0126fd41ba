//! Engine tests of integer folding: shape arithmetic feeding Reshape.

use crate::prelude::*;
use crate::test_graphs::{self, int_const as ints};

fn input(g: &mut Graph, name: &str, dtype: DataType, dims: &[i64]) -> OutputRef {
    test_graphs::input(g, name, dtype, dims, Format::Nd)
}

fn op(g: &mut Graph, r: &OpRegistry, op_type: &str, name: &str, inputs: &[OutputRef]) -> OutputRef {
    test_graphs::op(g, r, op_type, name, inputs, Attrs::new())
}

fn registry_with_shape_of() -> OpRegistry {
    let mut r = OpRegistry::with_builtins();
    test_graphs::register_shape_of(&mut r);
    r
}

#[test]
fn folded_ints_broadcast_and_feed_reshape() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", DataType::Float, &[2, 3, 4]);
    let a = ints(&mut g, "a", DataType::Int32, &[2], &[3, 4]);
    let two = ints(&mut g, "two", DataType::Int32, &[], &[2]);
    let d = ints(&mut g, "d", DataType::Int32, &[2], &[1, -2]);
    let prod = op(&mut g, &r, "Mul", "prod", &[a, two]);
    let quot = op(&mut g, &r, "FloorDiv", "quot", &[prod, d]);
    let neg = op(&mut g, &r, "Neg", "neg", &[quot]);
    let target = op(&mut g, &r, "Maximum", "target", &[quot, neg]);
    let y = op(&mut g, &r, "Reshape", "y", &[x, target]);
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    // [3, 4] * 2 = [6, 8]; [6, 8] // [1, -2] = [6, -4]; max(v, -v) = [6, 4].
    let folded = g.tensor(quot).value.as_ref().unwrap().to_ints().unwrap();
    assert_eq!(folded, [6, -4]);
    assert_eq!(g.tensor(quot).dtype, DataType::Int32);
    // Neg folds too (whole values), so Reshape gets its target.
    let target = g.tensor(target).value.as_ref().unwrap().to_ints().unwrap();
    assert_eq!(target, [6, 4]);
    assert_eq!(g.tensor(y).shape().dims(), &[6, 4]);
}

#[test]
fn partial_shape_vectors_keep_known_entries() {
    let r = registry_with_shape_of();
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", DataType::Float, &[-1, 7]);
    let shape = op(&mut g, &r, "TestShapeOf", "shape", &[x]);
    let two = ints(&mut g, "two", DataType::Int64, &[], &[2]);
    let doubled = op(&mut g, &r, "Mul", "doubled", &[shape, two]);
    let zero = ints(&mut g, "zero", DataType::Int64, &[2], &[0, 1]);
    let masked = op(&mut g, &r, "Mul", "masked", &[shape, zero]);
    let y = op(&mut g, &r, "Reshape", "y", &[x, doubled]);
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    let partial = g.tensor(doubled).shape_value.as_ref().unwrap();
    assert_eq!(partial.dims(), &[-1, 14]);
    assert!(g.tensor(doubled).value.is_none());
    // An unknown entry times 0 is 0, so the whole vector is known.
    let known = g.tensor(masked).value.as_ref().unwrap().to_ints().unwrap();
    assert_eq!(known, [0, 7]);
    assert_eq!(g.tensor(y).shape().dims(), &[-1, 14]);
}

#[test]
fn division_by_zero_is_an_error_and_int32_overflow_stays_unfolded() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let a = ints(&mut g, "a", DataType::Int32, &[2], &[i32::MAX as i64, 1]);
    let b = ints(&mut g, "b", DataType::Int32, &[], &[1]);
    let sum = op(&mut g, &r, "Add", "sum", &[a, b]);
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    assert!(g.tensor(sum).value.is_none());

    let zero = ints(&mut g, "zero", DataType::Int32, &[], &[0]);
    op(&mut g, &r, "FloorDiv", "div", &[a, zero]);
    let errors = infer_graph(&mut g, &r, InferOptions::default()).unwrap_err();
    let message = errors
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(message.contains("division by zero"), "{message}");
}

#[test]
fn floats_and_unknown_values_do_not_fold() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let i = input(&mut g, "i", DataType::Int32, &[2]);
    let c = ints(&mut g, "c", DataType::Int32, &[2], &[1, 2]);
    let sum = op(&mut g, &r, "Add", "sum", &[i, c]);
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    assert!(g.tensor(sum).value.is_none());
    assert!(g.tensor(sum).shape_value.is_none());
}

#[test]
fn integer_products_and_sums_fold_as_tensordot_needs_them() {
    // tf.tensordot(x, w, 1) on x [1, 8, 32]: x is reshaped to
    // [prod(shape(x)[[0, 1]]), prod(shape(x)[[2]])] = [8, 32].
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let x = input(&mut g, "x", DataType::Float, &[1, 8, 32]);
    let shape = op(&mut g, &r, "Shape", "shape", &[x]);
    let free = ints(&mut g, "free", DataType::Int32, &[2], &[0, 1]);
    let axes = ints(&mut g, "axes", DataType::Int32, &[1], &[2]);
    let axis = ints(&mut g, "axis", DataType::Int32, &[], &[0]);
    let first = ints(&mut g, "first", DataType::Int32, &[1], &[0]);
    let gathered = op(&mut g, &r, "GatherV2", "gathered", &[shape, free, axis]);
    let rows = op(&mut g, &r, "Prod", "rows", &[gathered, first]);
    let kept = op(&mut g, &r, "GatherV2", "kept", &[shape, axes, axis]);
    let cols = op(&mut g, &r, "Prod", "cols", &[kept, first]);
    let total = op(&mut g, &r, "Sum", "total", &[shape, first]);
    let spec = OpSpec {
        op_type: "Pack".into(),
        name: "target".into(),
        inputs: vec![PortInput::Many(vec![rows, cols])],
        ..OpSpec::default()
    };
    let target = OutputRef::new(add_op(&mut g, &r, spec).unwrap(), 0);
    let y = op(&mut g, &r, "Reshape", "y", &[x, target]);
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    assert_eq!(g.tensor(y).shape().dims(), &[8, 32]);
    let folded = |t: OutputRef| g.tensor(t).value.as_ref().and_then(|v| v.to_ints());
    assert_eq!(folded(rows), Some(vec![8]));
    assert_eq!(folded(total), Some(vec![41]));
    assert_eq!(g.tensor(total).dtype, DataType::Int32);
}

#[test]
fn integer_reductions_that_overflow_or_are_not_known_stay_unfolded() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("g");
    let big = ints(&mut g, "big", DataType::Int32, &[2], &[65536, 65536]);
    let all = ints(&mut g, "all", DataType::Int32, &[1], &[0]);
    let overflow = op(&mut g, &r, "Prod", "overflow", &[big, all]);
    let unknown = input(&mut g, "unknown", DataType::Int32, &[3]);
    let sum = op(&mut g, &r, "Sum", "sum", &[unknown, all]);
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    // 65536 * 65536 does not fit INT32 (TensorFlow would wrap to 0).
    assert!(g.tensor(overflow).value.is_none());
    assert!(g.tensor(sum).value.is_none());
}
