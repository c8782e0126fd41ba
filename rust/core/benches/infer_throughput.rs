//! Benchmark (a): inference throughput of the Rust engine on a synthetic
//! 1,000,000-node graph of built-in ops (Conv2D, Add, Identity, Reshape in
//! a repeating residual pattern). Target: >= 5 M nodes/s.
//!
//! cargo bench -p opgraph-core --bench infer_throughput

use opgraph_core::prelude::*;
use std::time::Instant;

const NODES: usize = 1_000_000;
const TARGET_NODES_PER_SEC: f64 = 5.0e6;

fn build(nodes: usize, registry: &OpRegistry) -> Graph {
    let mut g = Graph::new("synthetic");
    let dims = [1, 16, 32, 32];
    let f32_desc = |d: &[i64]| TensorDesc::new(DataType::Float, Shape::from_dims(d), Format::Nchw);
    let mut prev = g.add_input_node("x", f32_desc(&dims)).unwrap();
    let w = g.add_input_node("w", f32_desc(&[16, 16, 3, 3])).unwrap();
    let shape = HostTensor::from_ints(DataType::Int64, Shape::from_dims([4]), &dims).unwrap();
    let shape = g.add_const_node("shape", shape).unwrap();
    let conv_attrs: Attrs = [
        ("strides", AttrValue::ListInt(vec![1, 1, 1, 1])),
        ("pads", AttrValue::ListInt(vec![1, 1, 1, 1])),
        ("data_format", AttrValue::Str("NCHW".into())),
    ]
    .into_iter()
    .collect();
    let add = |g: &mut Graph, op_type: &str, inputs: Vec<OutputRef>, attrs: &Attrs| {
        let name = format!("n{}", g.len());
        let spec = OpSpec {
            op_type: op_type.into(),
            name,
            inputs: inputs
                .into_iter()
                .map(|e| PortInput::Single(Some(e)))
                .collect(),
            attrs: attrs.clone(),
            ..OpSpec::default()
        };
        OutputRef::new(add_op(g, registry, spec).unwrap(), 0)
    };
    let none = Attrs::new();
    while g.len() < nodes {
        let conv = add(&mut g, "Conv2D", vec![prev, w], &conv_attrs);
        let sum = add(&mut g, "Add", vec![conv, prev], &none);
        let id = add(&mut g, "Identity", vec![sum], &none);
        prev = add(&mut g, "Reshape", vec![id, shape], &none);
    }
    g
}

fn main() {
    let registry = OpRegistry::with_builtins();
    let t = Instant::now();
    let mut graph = build(NODES, &registry);
    println!(
        "built {} nodes in {:.2} s",
        graph.len(),
        t.elapsed().as_secs_f64()
    );

    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t = Instant::now();
        infer_graph(&mut graph, &registry, InferOptions::default())
            .expect("synthetic graph infers");
        best = best.min(t.elapsed().as_secs_f64());
    }
    let rate = graph.len() as f64 / best;
    println!(
        "infer: {} nodes in {:.3} s (best of 3) = {:.2} M nodes/s; target {:.1} M nodes/s; ratio to target {:.2}x",
        graph.len(),
        best,
        rate / 1e6,
        TARGET_NODES_PER_SEC / 1e6,
        rate / TARGET_NODES_PER_SEC
    );
}
