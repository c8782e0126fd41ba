//! Whole-graph cases: fusion, L2 residency, loops, the critical path.

use super::tests::{desc, estimate, input, op, round_spec};
use super::*;
use crate::graph::{Graph, OutputRef, Subgraph};
use crate::types::{AttrValue, DataType, Format};

fn big() -> crate::types::TensorDesc {
    desc(DataType::Float16, &[1024, 1024], Format::Nd)
}

#[test]
fn two_branches_run_in_parallel_on_the_critical_path() {
    // x -> a -> c ; x -> b1 -> b2 -> c: the b branch is longer.
    let mut g = Graph::new("branches");
    let x = input(&mut g, "x", big());
    let a = op(&mut g, "Relu", "a", &[x], big(), &[]);
    let b1 = op(&mut g, "Relu", "b1", &[x], big(), &[]);
    let b2 = op(&mut g, "Relu", "b2", &[b1], big(), &[]);
    let c = op(&mut g, "Add", "c", &[a, b2], big(), &[]);
    g.set_outputs(vec![c]).unwrap();
    let opts = CostOptions {
        fuse: false,
        l2_residency: false,
        ..CostOptions::default()
    };
    let r = estimate(&g, &opts);
    let t = |n: &str| r.nodes.iter().find(|row| row.name == n).unwrap().time_us;
    // Each Relu moves 2 MiB in and out: 41.94 us + 1 us launch; the Add 3 x 2 MiB.
    let relu = 2.0 * 2.0 * 1048576.0 / 100e3 + 1.0;
    assert!((t("a") - relu).abs() < 1e-9);
    assert!((r.total_us - (3.0 * relu + t("c"))).abs() < 1e-6);
    assert!((r.critical_path_us - (2.0 * relu + t("c"))).abs() < 1e-6);
    assert_eq!(r.critical_path, ["b1", "b2", "c"]);
    assert_eq!(r.task_count, 4);
}

#[test]
fn elementwise_ops_fuse_into_the_convolution_that_feeds_them() {
    let mut g = Graph::new("fused");
    let x = input(
        &mut g,
        "x",
        desc(DataType::Float16, &[1, 16, 32, 32], Format::Nchw),
    );
    let w = input(
        &mut g,
        "w",
        desc(DataType::Float16, &[16, 16, 3, 3], Format::Nchw),
    );
    let bias = g
        .add_const_node(
            "bias",
            crate::types::HostTensor::from_ints(
                DataType::Int32,
                crate::types::Shape::from_dims([16]),
                &[0; 16],
            )
            .unwrap(),
        )
        .unwrap();
    let out = || desc(DataType::Float16, &[1, 16, 32, 32], Format::Nchw);
    let nchw = [("data_format", AttrValue::Str("NCHW".into()))];
    let conv = op(&mut g, "Conv2D", "conv", &[x, w], out(), &nchw);
    let biased = op(&mut g, "BiasAdd", "bias_add", &[conv, bias], out(), &nchw);
    let y = op(&mut g, "Relu", "relu", &[biased], out(), &[]);
    g.set_outputs(vec![y]).unwrap();
    let in_memory = CostOptions {
        l2_residency: false,
        ..CostOptions::default()
    };
    let fused = estimate(&g, &in_memory);
    let apart = estimate(
        &g,
        &CostOptions {
            fuse: false,
            ..in_memory.clone()
        },
    );
    for name in ["bias_add", "relu"] {
        let row = fused.nodes.iter().find(|n| n.name == name).unwrap();
        assert_eq!(
            (row.bound, row.fused_into.as_deref()),
            (Bound::Fused, Some("conv"))
        );
    }
    assert_eq!((fused.task_count, apart.task_count), (1, 3));
    // The intermediates (2 x 32 KiB, each written once and read once) never reach memory.
    let saved = apart.nodes.iter().map(|n| n.bytes).sum::<f64>()
        - fused.nodes.iter().map(|n| n.bytes).sum::<f64>();
    assert_eq!(saved, 4.0 * 32768.0);
    assert!(fused.total_us < apart.total_us);
}

#[test]
fn swish_after_a_convolution_is_one_kernel_and_a_reader_outside_keeps_the_tensor() {
    // conv -> sigmoid, mul(conv, sigmoid): every reader of conv and of the
    // sigmoid joins the kernel, so neither tensor reaches memory. With a
    // second reader of conv that cannot join (a reduction), conv's output
    // goes to memory and the sigmoid and Mul form a kernel of their own.
    let build = |outside: bool| {
        let mut g = Graph::new("swish");
        let x = input(
            &mut g,
            "x",
            desc(DataType::Float16, &[1, 16, 32, 32], Format::Nchw),
        );
        let w = input(
            &mut g,
            "w",
            desc(DataType::Float16, &[16, 16, 3, 3], Format::Nchw),
        );
        let out = || desc(DataType::Float16, &[1, 16, 32, 32], Format::Nchw);
        let nchw = [("data_format", AttrValue::Str("NCHW".into()))];
        let conv = op(&mut g, "Conv2D", "conv", &[x, w], out(), &nchw);
        let sig = op(&mut g, "Sigmoid", "sig", &[conv], out(), &[]);
        let y = op(&mut g, "Mul", "mul", &[conv, sig], out(), &[]);
        let mut outputs = vec![y];
        if outside {
            // A reduction does not fuse: it is a kernel of its own.
            let axes = crate::types::HostTensor::from_ints(
                DataType::Int64,
                crate::types::Shape::from_dims([1]),
                &[1],
            )
            .unwrap();
            let axes = g.add_const_node("axes", axes).unwrap();
            let small = desc(DataType::Float16, &[1, 1, 32, 32], Format::Nchw);
            outputs.push(op(&mut g, "ReduceSum", "sum", &[conv, axes], small, &[]));
        }
        g.set_outputs(outputs).unwrap();
        g
    };
    let opts = CostOptions {
        l2_residency: false,
        ..CostOptions::default()
    };
    let alone = estimate(&build(false), &opts);
    let row = |r: &CostReport, n: &str| r.nodes.iter().find(|row| row.name == n).unwrap().clone();
    for name in ["sig", "mul"] {
        assert_eq!(
            row(&alone, name).fused_into.as_deref(),
            Some("conv"),
            "{name}"
        );
    }
    assert_eq!(alone.task_count, 1);
    // conv reads x (32 KiB) and w, writes only y (32 KiB).
    let tensor = 16.0 * 32.0 * 32.0 * 2.0;
    let weights = row(&alone, "conv").bytes - 2.0 * tensor;
    assert!(weights > 0.0 && weights < tensor, "{weights}");
    let shared = estimate(&build(true), &opts);
    // conv has a reader that cannot join (the reduction): the sigmoid starts
    // a kernel of its own and the Mul joins that one.
    assert_eq!(row(&shared, "sig").fused_into, None);
    assert_eq!(row(&shared, "mul").fused_into.as_deref(), Some("sig"));
    assert_eq!(shared.task_count, 3);
}

#[test]
fn elementwise_ops_fuse_through_a_reshape_of_the_matmul_feeding_them() {
    // GPT-2's MLP: MatMul [512, 3072] -> Reshape [1, 512, 3072] -> tanh GELU.
    // GE removes the Reshape before UB fusion, so the GELU's ops join the
    // MatMul's kernel and neither the product nor the partial results reach
    // memory.
    let mut g = Graph::new("gelu");
    let x = input(
        &mut g,
        "x",
        desc(DataType::Float16, &[512, 768], Format::Nd),
    );
    let w = input(
        &mut g,
        "w",
        desc(DataType::Float16, &[768, 3072], Format::Nd),
    );
    let flat = || desc(DataType::Float16, &[512, 3072], Format::Nd);
    let out = || desc(DataType::Float16, &[1, 512, 3072], Format::Nd);
    let mm = op(&mut g, "MatMulV2", "mm", &[x, w], flat(), &[]);
    let shape = g
        .add_const_node(
            "shape",
            crate::types::HostTensor::from_ints(
                DataType::Int64,
                crate::types::Shape::from_dims([3]),
                &[1, 512, 3072],
            )
            .unwrap(),
        )
        .unwrap();
    let r = op(&mut g, "Reshape", "reshape", &[mm, shape], out(), &[]);
    let half = op(&mut g, "Mul", "half", &[r, r], out(), &[]);
    let t = op(&mut g, "Tanh", "tanh", &[r], out(), &[]);
    let y = op(&mut g, "Mul", "gelu", &[half, t], out(), &[]);
    g.set_outputs(vec![y]).unwrap();
    let opts = CostOptions {
        l2_residency: false,
        ..CostOptions::default()
    };
    let r = estimate(&g, &opts);
    for name in ["half", "tanh", "gelu"] {
        let row = r.nodes.iter().find(|n| n.name == name).unwrap();
        assert_eq!(row.fused_into.as_deref(), Some("mm"), "{name}");
    }
    assert_eq!(r.task_count, 1);
    // The kernel reads x and w and writes only the GELU's result.
    let mm_row = r.nodes.iter().find(|n| n.name == "mm").unwrap();
    assert_eq!(
        mm_row.bytes,
        2.0 * (512.0 * 768.0 + 768.0 * 3072.0 + 512.0 * 3072.0)
    );
}

#[test]
fn an_op_reading_what_depends_on_a_kernel_does_not_join_it() {
    // conv -> s = sigmoid -> t = exp(s) -> p = reduce_sum(t); e = s + p.
    // s and t join the convolution's kernel; e reads s (in the kernel) and
    // p, which needs the kernel's t: e joining would make a cycle.
    let mut g = Graph::new("cycle");
    let x = input(
        &mut g,
        "x",
        desc(DataType::Float16, &[1, 16, 32, 32], Format::Nchw),
    );
    let w = input(
        &mut g,
        "w",
        desc(DataType::Float16, &[16, 16, 3, 3], Format::Nchw),
    );
    let out = || desc(DataType::Float16, &[1, 16, 32, 32], Format::Nchw);
    let nchw = [("data_format", AttrValue::Str("NCHW".into()))];
    let conv = op(&mut g, "Conv2D", "conv", &[x, w], out(), &nchw);
    let s = op(&mut g, "Sigmoid", "s", &[conv], out(), &[]);
    let t = op(&mut g, "Exp", "t", &[s], out(), &[]);
    let axes = crate::types::HostTensor::from_ints(
        DataType::Int64,
        crate::types::Shape::from_dims([1]),
        &[1],
    )
    .unwrap();
    let axes = g.add_const_node("axes", axes).unwrap();
    let small = desc(DataType::Float16, &[1, 1, 32, 32], Format::Nchw);
    let p = op(&mut g, "ReduceSum", "p", &[t, axes], small, &[]);
    let e = op(&mut g, "Add", "e", &[s, p], out(), &[]);
    g.set_outputs(vec![e]).unwrap();
    let r = estimate(&g, &CostOptions::default());
    let row = |n: &str| r.nodes.iter().find(|row| row.name == n).unwrap().clone();
    assert_eq!(row("s").fused_into.as_deref(), Some("conv"));
    assert_eq!(row("t").fused_into.as_deref(), Some("conv"));
    assert_ne!(row("e").fused_into.as_deref(), Some("conv"));
}

#[test]
fn activations_between_kernels_stay_in_l2_when_they_fit() {
    let mut g = Graph::new("chain");
    let x = input(&mut g, "x", big());
    let a = op(&mut g, "Sqrt", "a", &[x], big(), &[]);
    let b = op(&mut g, "Exp", "b", &[a], big(), &[]);
    g.set_outputs(vec![b]).unwrap();
    let opts = CostOptions {
        fuse: false,
        ..CostOptions::default()
    };
    let r = estimate(&g, &opts);
    let row = |n: &str| r.nodes.iter().find(|row| row.name == n).unwrap().clone();
    // a's 2 MiB output is written to and read from L2 (8 MiB), not memory.
    assert_eq!((row("a").bytes, row("a").l2_bytes), (2097152.0, 2097152.0));
    assert_eq!((row("b").bytes, row("b").l2_bytes), (2097152.0, 2097152.0));
    let mut small = round_spec();
    small.l2_bytes = 1 << 20;
    let spilled = estimate_cost(&g, &small, &opts).unwrap();
    assert_eq!(spilled.nodes.iter().map(|n| n.l2_bytes).sum::<f64>(), 0.0);
}

fn loop_graph() -> Graph {
    let mut body = Graph::new("body");
    let x = input(&mut body, "x", big());
    let y = op(&mut body, "Relu", "relu", &[x], big(), &[]);
    body.set_outputs(vec![y]).unwrap();
    let mut g = Graph::new("top");
    let x = input(&mut g, "x", big());
    let mut node = crate::graph::Node::new("loop", "While", vec![Some(x)], 1);
    node.outputs[0] = big();
    node.subgraphs.push(Subgraph {
        name: "body".into(),
        graph: body.into(),
    });
    let l = g.add_node(node).unwrap();
    g.set_outputs(vec![crate::graph::OutputRef::new(l, 0)])
        .unwrap();
    g
}

#[test]
fn loop_bodies_count_trip_count_times_or_once_flagged() {
    let g = loop_graph();
    let once = estimate(&g, &CostOptions::default());
    assert!(
        once.flags
            .iter()
            .any(|f| f.contains("loop trip count unknown")),
        "{:?}",
        once.flags
    );
    let body = once
        .nodes
        .iter()
        .find(|n| n.name == "loop/body/relu")
        .unwrap();
    assert_eq!(body.count, 1.0);
    let ten = estimate(
        &g,
        &CostOptions {
            loop_trip_count: Some(10),
            ..CostOptions::default()
        },
    );
    assert!(ten.flags.is_empty());
    assert!((ten.total_us - 10.0 * once.total_us).abs() < 1e-6);
    assert_eq!(ten.task_count, 10);
    // The caller's time on the critical path is its bodies'.
    assert!((ten.critical_path_us - ten.total_us).abs() < 1e-6);
    assert_eq!(ten.critical_path, ["loop"]);
}

#[test]
fn reports_round_trip_through_json_and_sort_by_time() {
    let g = loop_graph();
    let r = estimate(&g, &CostOptions::default());
    assert_eq!(CostReport::from_json(&r.to_json()).unwrap(), r);
    let rows = r.breakdown();
    assert!(rows.windows(2).all(|w| w[0].time_us >= w[1].time_us));
    assert_eq!(r.time_by_op_type()[0].0, "Relu");
}

#[test]
fn columns_hold_every_row_with_repeated_strings_interned() {
    let mut g = loop_graph();
    let x = input(&mut g, "x2", big());
    let a = op(&mut g, "Sqrt", "a", &[x], big(), &[]);
    let b = op(&mut g, "Exp", "b", &[a], big(), &[]);
    let c = op(&mut g, "Exp", "c", &[b], big(), &[]);
    let mut outputs = g.outputs().to_vec();
    outputs.push(c);
    g.set_outputs(outputs).unwrap();
    let r = estimate(&g, &CostOptions::default());
    let columns = CostColumns::from_rows(r.nodes.clone());
    assert_eq!(columns.len(), r.nodes.len());
    for (i, row) in r.nodes.iter().enumerate() {
        assert_eq!(&columns.row(i), row);
    }
    // Two Exp rows share one table entry, as b and c fused into a do; the
    // caller has a note.
    assert_eq!(columns.op_types, ["Data", "While", "Relu", "Sqrt", "Exp"]);
    let b_row = columns.names.iter().position(|n| n == "b").unwrap();
    assert_eq!(columns.fused_into, ["a"]);
    assert_eq!(columns.fused_into_codes[b_row], 0);
    assert_eq!(columns.fused_into_codes[b_row + 1], 0);
    assert_eq!(columns.notes.len(), 1);
    assert_eq!(
        columns.bound_codes[b_row],
        Bound::ALL.iter().position(|&x| x == Bound::Fused).unwrap() as u8
    );
    assert!(CostColumns::from_rows(Vec::new()).is_empty());
}

/// `TransData -> head -> tail -> TransData -> Relu` on `dims_in`, the pair
/// reshaping to `dims_mid` and `dims_out`.
fn heads_graph(
    head: &str,
    tail: &str,
    dims_in: &[i64],
    dims_mid: &[i64],
    dims_out: &[i64],
) -> Graph {
    let d = |dims: &[i64]| desc(DataType::Float16, dims, Format::Nd);
    let mut g = Graph::new("heads");
    let x = input(&mut g, "x", d(dims_in));
    let to_nd = op(&mut g, "TransData", "to_nd", &[x], d(dims_in), &[]);
    let a = op(&mut g, head, "head", &[to_nd], d(dims_mid), &[]);
    let b = op(&mut g, tail, "tail", &[a], d(dims_out), &[]);
    let to_nz = op(&mut g, "TransData", "to_nz", &[b], d(dims_out), &[]);
    let y = op(&mut g, "Relu", "relu", &[to_nz], d(dims_out), &[]);
    g.set_outputs(vec![y]).unwrap();
    g
}

/// The report of [`heads_graph`].
fn conversions_around(
    head: &str,
    tail: &str,
    dims_in: &[i64],
    dims_mid: &[i64],
    dims_out: &[i64],
) -> CostReport {
    let g = heads_graph(head, tail, dims_in, dims_mid, dims_out);
    estimate(&g, &CostOptions::default())
}

fn runs(report: &CostReport, name: &str) -> bool {
    let row = report.nodes.iter().find(|n| n.name == name).unwrap();
    row.time_us > 0.0
}

#[test]
fn conversions_around_a_head_split_in_whole_nz_blocks_are_not_run() {
    // BERT's Q: [1, 512, 768] -> [1, 512, 12, 64] -> [1, 12, 512, 64]. ATC
    // fuses the pair into ConfusionTransposeD, which reads and writes NZ.
    let split = [1, 512, 12, 64];
    let r = conversions_around(
        "Reshape",
        "Transpose",
        &[1, 512, 768],
        &split,
        &[1, 12, 512, 64],
    );
    assert!(!runs(&r, "to_nd") && !runs(&r, "to_nz"));
    assert!(runs(&r, "tail"), "the transpose still moves the data");
    let row = r.nodes.iter().find(|n| n.name == "to_nd").unwrap();
    assert!(row
        .note
        .as_deref()
        .unwrap_or("")
        .contains("ConfusionTransposeD"));
    assert_eq!(r.task_count, 2);
    // The merge back: [1, 12, 512, 64] -> [1, 512, 12, 64] -> [1, 512, 768].
    let r = conversions_around(
        "Transpose",
        "Reshape",
        &[1, 12, 512, 64],
        &split,
        &[1, 512, 768],
    );
    assert!(!runs(&r, "to_nd") && !runs(&r, "to_nz"));
}

#[test]
fn conversions_stay_when_a_side_is_not_in_whole_nz_blocks() {
    // 500 rows are not whole 16-row blocks: the passes leave the pair alone.
    let r = conversions_around(
        "Reshape",
        "Transpose",
        &[1, 500, 768],
        &[1, 500, 12, 64],
        &[1, 12, 500, 64],
    );
    assert!(runs(&r, "to_nd") && runs(&r, "to_nz"));
    // A merge whose transpose input ends in 60 columns.
    let r = conversions_around(
        "Transpose",
        "Reshape",
        &[1, 12, 512, 60],
        &[1, 512, 12, 60],
        &[1, 512, 720],
    );
    assert!(runs(&r, "to_nd") && runs(&r, "to_nz"));
    // A Reshape feeding something other than a Transpose is no ConfusionTranspose.
    let r = conversions_around(
        "Reshape",
        "Relu",
        &[1, 512, 768],
        &[1, 512, 12, 64],
        &[1, 512, 12, 64],
    );
    assert!(runs(&r, "to_nd") && runs(&r, "to_nz"));
}

#[test]
fn a_conversion_that_is_a_graph_output_still_runs() {
    let mut g = heads_graph(
        "Reshape",
        "Transpose",
        &[1, 512, 768],
        &[1, 512, 12, 64],
        &[1, 12, 512, 64],
    );
    let out = |g: &Graph, name: &str| OutputRef::new(g.find(name).unwrap(), 0);
    let outputs = vec![out(&g, "relu"), out(&g, "to_nz")];
    g.set_outputs(outputs).unwrap();
    let r = estimate(&g, &CostOptions::default());
    assert!(!runs(&r, "to_nd"));
    assert!(runs(&r, "to_nz"), "the caller reads it in its own format");
}

/// `loop_graph` with an If beside the loop whose costlier branch (else: a
/// Sqrt and two Exps the Sqrt's kernel fuses) is walked apart and merged.
fn loop_and_branch_graph() -> Graph {
    let mut g = loop_graph();
    let branch = |name: &str, ops: &[&str]| {
        let mut body = Graph::new(name);
        let mut y = input(&mut body, "x", big());
        for (i, op_type) in ops.iter().enumerate() {
            y = op(&mut body, op_type, &format!("{name}{i}"), &[y], big(), &[]);
        }
        body.set_outputs(vec![y]).unwrap();
        Subgraph {
            name: name.into(),
            graph: body.into(),
        }
    };
    let x = input(&mut g, "x2", big());
    let mut node = crate::graph::Node::new("if", "If", vec![Some(x)], 1);
    node.outputs[0] = big();
    node.subgraphs.push(branch("then", &["Relu"]));
    node.subgraphs.push(branch("else", &["Sqrt", "Exp", "Exp"]));
    let id = g.add_node(node).unwrap();
    let mut outputs = g.outputs().to_vec();
    outputs.push(OutputRef::new(id, 0));
    g.set_outputs(outputs).unwrap();
    g
}

#[test]
fn a_walk_into_columns_gives_the_columns_of_the_records() {
    let g = loop_and_branch_graph();
    let spec = round_spec();
    let opts = CostOptions::default();
    let records = estimate_cost(&g, &spec, &opts).unwrap();
    assert!(records.nodes.iter().any(|r| r.name == "if/else/else2"));
    assert!(records.nodes.iter().any(|r| r.fused_into.is_some()));
    let columns = estimate_cost_into::<ColumnRows>(&g, &spec, &opts).unwrap();
    assert_eq!(columns.total_us, records.total_us);
    assert_eq!(columns.critical_path, records.critical_path);
    assert_eq!(columns.flags, records.flags);
    let columns = columns.nodes.finish();
    assert_eq!(columns, CostColumns::from_rows(records.nodes.clone()));
    for (i, row) in records.nodes.iter().enumerate() {
        assert_eq!(&columns.row(i), row);
    }
}

#[test]
fn op_types_without_a_cost_rule_are_flagged_once_each_with_their_count() {
    let mut g = Graph::new("uncosted");
    let mut x = input(&mut g, "x", big());
    for i in 0..5 {
        x = op(&mut g, "MysteryOp", &format!("m{i}"), &[x], big(), &[]);
        x = op(&mut g, "Relu", &format!("r{i}"), &[x], big(), &[]);
    }
    let y = op(&mut g, "OtherMystery", "o", &[x], big(), &[]);
    g.set_outputs(vec![y]).unwrap();
    let r = estimate(&g, &CostOptions::default());
    assert_eq!(
        r.flags,
        [
            "no cost rule for op type MysteryOp (5 nodes: m0, m1, m2 … 2 more): each counted as one vector pass",
            "no cost rule for op type OtherMystery (1 node: o): each counted as one vector pass",
        ]
    );
    let noted = r
        .nodes
        .iter()
        .filter(|row| row.note.as_deref() == Some("no cost rule: one vector pass"));
    assert_eq!(noted.count(), 6);
}
