//! The precision policy (`allow_fp32_to_fp16`) and its default.

use super::graphs::*;
use crate::device::formats::transdata::TRANS_DATA;
use crate::prelude::*;
use crate::test_graphs::bool_const;

/// x → Conv2D(w) → Relu → output, all fp32.
fn conv_relu() -> (Graph, OpRegistry) {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("fp32");
    let x = input(&mut g, "x", DataType::Float, &[1, 3, 8, 8], Format::Nchw);
    let w = weight(&mut g, "w", &[16, 3, 3, 3], Format::Nchw);
    let c = conv(&mut g, &r, "conv", x, w, 1);
    let relu = op(&mut g, &r, "Relu", "relu", &[c], Attrs::new());
    g.set_outputs(vec![relu]).unwrap();
    (g, r)
}

#[test]
fn by_default_every_dtype_stays() {
    let (mut g, r) = conv_relu();
    let report = prepared(&mut g, &r, false);
    assert_eq!((report.casts_inserted, report.weights_cast_to_fp16), (0, 0));
    assert_eq!(count_op(&g, "Cast"), 0);
    for name in ["w", "conv", "relu"] {
        assert_eq!(desc(&g, name).dtype, DataType::Float, "{name}");
    }
}

#[test]
fn cube_ops_compute_in_fp16_when_allowed() {
    let (mut g, r) = conv_relu();
    let report = prepared(&mut g, &r, true);
    // x is cast to fp16 for the conv; the conv's fp16 result back to fp32 for Relu.
    assert_eq!(report.casts_inserted, 2);
    assert_eq!(count_op(&g, "Cast"), 2);
    assert_eq!(report.weights_cast_to_fp16, 1);
    let w = desc(&g, "w");
    assert_eq!(w.dtype, DataType::Float16);
    assert_eq!(w.value.as_ref().unwrap().dtype(), DataType::Float16);
    assert_eq!(w.value.as_ref().unwrap().bytes().len(), 16 * 3 * 3 * 3 * 2);
    assert_eq!(desc(&g, "conv").dtype, DataType::Float16);
    // The input side: x → Cast(fp16) → TransData(5HD) → conv.
    let into_conv = producer(&g, "conv", 0);
    assert_eq!(into_conv.op_type, TRANS_DATA);
    assert_eq!(into_conv.outputs[0].dtype, DataType::Float16);
    let cast_in = g.node(into_conv.inputs[0].unwrap().node);
    assert_eq!(
        (cast_in.op_type.as_str(), cast_in.outputs[0].dtype),
        ("Cast", DataType::Float16)
    );
    // The output side: conv → Cast(fp32) → Relu, the Cast following 5HD.
    let into_relu = producer(&g, "relu", 0);
    assert_eq!(
        (into_relu.op_type.as_str(), into_relu.outputs[0].dtype),
        ("Cast", DataType::Float)
    );
    assert_eq!(into_relu.outputs[0].storage_format, Format::Nc1hwc0);
    assert_eq!(desc(&g, "relu").dtype, DataType::Float);
    // The prepared graph is still an inferable graph with the same dtypes.
    infer_graph(&mut g, &r, InferOptions::default()).unwrap();
    assert_eq!(desc(&g, "conv").dtype, DataType::Float16);
    assert_eq!(desc(&g, "relu").dtype, DataType::Float);
}

#[test]
fn a_weight_read_in_fp32_elsewhere_gets_a_cast() {
    let (mut g, r) = conv_relu();
    let w = OutputRef::new(g.find("w").unwrap(), 0);
    let sq = op(&mut g, &r, "Square", "square", &[w], Attrs::new());
    let mut outputs = g.outputs().to_vec();
    outputs.push(sq);
    g.set_outputs(outputs).unwrap();
    let report = prepared(&mut g, &r, true);
    assert_eq!(report.weights_cast_to_fp16, 0);
    assert_eq!(desc(&g, "w").dtype, DataType::Float);
    assert_eq!(desc(&g, "square").dtype, DataType::Float);
    // x, w (both into the conv) and the conv's result: three Casts.
    assert_eq!(report.casts_inserted, 3);
}

/// `conv_relu` with the weight read through a Switch on the constant true
/// (a frozen TensorFlow 1 `cond` capturing it): GE reduces the Switch to an
/// edge (SwitchDeadBranchElimination), so the weight is the conv's own.
#[test]
fn a_weight_through_a_switch_reduced_to_an_edge_is_stored_in_fp16() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("fp32");
    let x = input(&mut g, "x", DataType::Float, &[1, 3, 8, 8], Format::Nchw);
    let w = weight(&mut g, "w", &[16, 3, 3, 3], Format::Nchw);
    let p = bool_const(&mut g, "p", true);
    let switch = op(&mut g, &r, "Switch", "switch", &[w, p], Attrs::new());
    let taken = OutputRef::new(switch.node, 1);
    let c = conv(&mut g, &r, "conv", x, taken, 1);
    let relu = op(&mut g, &r, "Relu", "relu", &[c], Attrs::new());
    // The branch not taken: a conv of x through the Switch's dead output,
    // which never runs and so computes in nothing.
    let x_switch = op(&mut g, &r, "Switch", "x_switch", &[x, p], Attrs::new());
    let w2 = weight(&mut g, "w2", &[16, 3, 3, 3], Format::Nchw);
    let dead = conv(&mut g, &r, "dead", x_switch, w2, 1);
    op(&mut g, &r, "Relu", "dead_relu", &[dead], Attrs::new());
    g.set_outputs(vec![relu]).unwrap();
    let report = prepared(&mut g, &r, true);
    // As `cube_ops_compute_in_fp16_when_allowed`: x into the conv and its
    // result back to fp32; the weight is stored in fp16, not cast. The dead
    // conv gets no Casts, and its weight stays as it is.
    assert_eq!((report.casts_inserted, report.weights_cast_to_fp16), (2, 1));
    assert_eq!(desc(&g, "w").dtype, DataType::Float16);
    assert_eq!(desc(&g, "w2").dtype, DataType::Float);
    assert_eq!(producer(&g, "dead", 0).name, "x_switch");
    assert_eq!(producer(&g, "conv", 1).name, "switch");
    assert_eq!(producer(&g, "switch", 0).name, "w");
}

#[test]
fn an_fp16_result_crosses_a_switch_reduced_to_an_edge_uncast() {
    // conv → Switch(true) → conv: the Switch is an edge, so the first
    // conv's fp16 result is the second's input, as with no Switch.
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("fp32");
    let x = input(&mut g, "x", DataType::Float, &[1, 16, 8, 8], Format::Nchw);
    let w1 = weight(&mut g, "w1", &[16, 16, 3, 3], Format::Nchw);
    let first = conv(&mut g, &r, "first", x, w1, 1);
    let p = bool_const(&mut g, "p", true);
    let switch = op(&mut g, &r, "Switch", "switch", &[first, p], Attrs::new());
    let w2 = weight(&mut g, "w2", &[16, 16, 3, 3], Format::Nchw);
    let second = conv(&mut g, &r, "second", OutputRef::new(switch.node, 1), w2, 1);
    g.set_outputs(vec![second]).unwrap();
    let report = prepared(&mut g, &r, true);
    // x into the first conv, the second's result back to fp32.
    assert_eq!((report.casts_inserted, report.weights_cast_to_fp16), (2, 2));
    assert_eq!(producer(&g, "switch", 0).name, "first");
    assert_eq!(producer(&g, "second", 0).name, "switch");
}

#[test]
fn a_weight_both_arms_capture_is_stored_in_fp16_once() {
    // TensorFlow 1's cond gives each arm its own Switch of a captured
    // weight: the taken arm's conv reads output 1 of one, the other arm
    // (dead) output 0 of the other, whose live output nothing reads.
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("fp32");
    let x = input(&mut g, "x", DataType::Float, &[1, 3, 8, 8], Format::Nchw);
    let w = weight(&mut g, "w", &[16, 3, 3, 3], Format::Nchw);
    let p = bool_const(&mut g, "p", true);
    let taken = op(&mut g, &r, "Switch", "taken", &[w, p], Attrs::new());
    let other = op(&mut g, &r, "Switch", "other", &[w, p], Attrs::new());
    let c = conv(&mut g, &r, "conv", x, OutputRef::new(taken.node, 1), 1);
    let dead = conv(&mut g, &r, "dead", x, other, 1);
    op(&mut g, &r, "Relu", "dead_relu", &[dead], Attrs::new());
    g.set_outputs(vec![c]).unwrap();
    // Without the policy too, the storage must be valid (`prepared` checks
    // it): the unread Switch's output is stored as the weight it passes on.
    let mut plain = g.clone();
    prepared(&mut plain, &r, false);
    let w_storage = desc(&plain, "w").storage_format;
    assert_eq!(w_storage, Format::FractalZ);
    let other_out = plain.tensor(OutputRef::new(other.node, 1));
    assert_eq!(other_out.storage_format, w_storage);
    let report = prepared(&mut g, &r, true);
    // As with no Switch: x into the conv, its result back to fp32, the
    // weight stored in fp16 and not cast.
    assert_eq!((report.casts_inserted, report.weights_cast_to_fp16), (2, 1));
    assert_eq!(desc(&g, "w").dtype, DataType::Float16);
    assert_eq!(producer(&g, "taken", 0).name, "w");
    let other_out = g.tensor(OutputRef::new(other.node, 1));
    assert_eq!(
        (other_out.dtype, other_out.storage_format),
        (DataType::Float16, Format::FractalZ)
    );
}

#[test]
fn readers_of_a_tensor_share_one_cast_through_a_switch() {
    // conv's fp16 result is read by Relu directly and by Abs through a
    // Switch reduced to an edge: one Cast back to fp32 serves both.
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("fp32");
    let x = input(&mut g, "x", DataType::Float, &[1, 3, 8, 8], Format::Nchw);
    let w = weight(&mut g, "w", &[16, 3, 3, 3], Format::Nchw);
    let c = conv(&mut g, &r, "conv", x, w, 1);
    let p = bool_const(&mut g, "p", false);
    let switch = op(&mut g, &r, "Switch", "switch", &[c, p], Attrs::new());
    let relu = op(&mut g, &r, "Relu", "relu", &[c], Attrs::new());
    let abs = op(&mut g, &r, "Abs", "abs", &[switch], Attrs::new());
    g.set_outputs(vec![relu, abs]).unwrap();
    let report = prepared(&mut g, &r, true);
    assert_eq!(
        report.casts_inserted, 2,
        "x in, and one Cast of the conv's result"
    );
    let cast = producer(&g, "relu", 0);
    assert_eq!(cast.op_type, "Cast");
    assert_eq!(producer(&g, "abs", 0).name, cast.name);
}
