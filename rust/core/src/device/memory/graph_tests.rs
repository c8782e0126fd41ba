//! `plan_memory` on small graphs whose schedules are computed by hand.

use super::{plan_memory, MemoryError, MemoryPlan, PlanOptions, Region, ScheduleKind};
use crate::prelude::*;
use crate::test_graphs::{bool_const, infer_all, input, int_const, op, ranged_input};

const SLOT: u64 = 512;

fn plan(g: &Graph, r: &OpRegistry) -> MemoryPlan {
    let plan = plan_memory(g, r, &PlanOptions::default()).unwrap();
    assert_eq!(plan.problems(), Vec::<String>::new());
    plan
}

fn tensor<'p>(plan: &'p MemoryPlan, name: &str) -> &'p super::PlannedTensor {
    plan.tensors.iter().find(|t| t.name == name).unwrap()
}

fn span(plan: &MemoryPlan, name: &str) -> (u32, u32) {
    let t = tensor(plan, name);
    (t.first_step, t.last_step)
}

/// x (fp16 [1, 3, 224, 224]) -> r1 = Relu -> r2 = Mul(r1, w) -> r3 = Relu, the output.
#[test]
fn a_chain_with_weights_and_io_regions() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("chain");
    let x = input(
        &mut g,
        "x",
        DataType::Float16,
        &[1, 3, 224, 224],
        Format::Nchw,
    );
    let w = g
        .add_const_node(
            "w",
            HostTensor::new(
                DataType::Float16,
                Shape::from_dims([1, 3, 1, 1]),
                bytes::Bytes::from(vec![0u8; 6]),
            )
            .unwrap(),
        )
        .unwrap();
    let r1 = op(&mut g, &r, "Relu", "r1", &[x], Attrs::new());
    let r2 = op(&mut g, &r, "Mul", "r2", &[r1, w], Attrs::new());
    let r3 = op(&mut g, &r, "Relu", "r3", &[r2], Attrs::new());
    g.set_outputs(vec![r3]).unwrap();
    infer_all(&mut g, &r).unwrap();
    let plan = plan(&g, &r);
    // 150528 fp16 elements = 301056 bytes -> GE size 301088 -> 301568 at
    // 512-byte alignment.
    let image = 301_088;
    let slot = 301_568;
    assert_eq!(plan.steps, 5);
    assert_eq!(tensor(&plan, "r1:0").size, Some(image));
    assert_eq!(tensor(&plan, "w:0").size, Some(64)); // 6 bytes -> 32 + 32
    assert_eq!(span(&plan, "r1:0"), (2, 3));
    assert_eq!(span(&plan, "r2:0"), (3, 4));
    assert_eq!(span(&plan, "r3:0"), (4, 4), "outputs live to the last step");
    assert_eq!(tensor(&plan, "x:0").region, Region::Input);
    assert_eq!(tensor(&plan, "w:0").region, Region::Weight);
    assert_eq!(tensor(&plan, "r3:0").region, Region::Output);
    assert_eq!(
        (
            plan.input_bytes,
            plan.output_bytes,
            plan.io_bytes(),
            plan.weights_bytes
        ),
        (slot, slot, 2 * slot, SLOT)
    );
    // r1 and r2 meet at step 3: two slots, which is also the bound.
    assert_eq!(
        (plan.arena_bytes(), plan.lower_bound_bytes()),
        (2 * slot, 2 * slot)
    );
    let offsets = [tensor(&plan, "r1:0").offset, tensor(&plan, "r2:0").offset];
    assert!(offsets == [Some(0), Some(slot)] || offsets == [Some(slot), Some(0)]);
}

/// a = Relu(x); v = Reshape(a) shares a's memory, so a's buffer lives until
/// v's last reader (b); c is placed over a only after that.
#[test]
fn views_share_their_input_and_extend_its_life() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("views");
    let x = input(&mut g, "x", DataType::Float, &[2, 8], Format::Nd);
    let a = op(&mut g, &r, "Relu", "a", &[x], Attrs::new());
    let s = int_const(&mut g, "s", DataType::Int64, &[1], &[16]);
    let v = op(&mut g, &r, "Reshape", "v", &[a, s], Attrs::new());
    let b = op(&mut g, &r, "Relu", "b", &[v], Attrs::new());
    let c = op(&mut g, &r, "Relu", "c", &[b], Attrs::new());
    let d = op(&mut g, &r, "Relu", "d", &[c], Attrs::new());
    g.set_outputs(vec![d]).unwrap();
    infer_all(&mut g, &r).unwrap();
    let plan = plan(&g, &r);
    // Steps (sources first): x 0, s 1, a 2, v 3, b 4, c 5, d 6.
    assert_eq!(
        span(&plan, "a:0"),
        (2, 4),
        "the buffer lives until b reads the view"
    );
    let view = tensor(&plan, "v:0");
    let owner = plan.tensors.iter().position(|t| t.name == "a:0").unwrap() as u32;
    assert_eq!(view.view_of, Some(owner));
    assert_eq!((view.first_step, view.last_step), (3, 4));
    assert_eq!(view.offset, tensor(&plan, "a:0").offset);
    // Activation buffers: a [2, 4], b [4, 5], c [5, 6]; 16 floats = 64
    // bytes -> 96 -> one slot each. Two meet at a time.
    assert_eq!(plan.arena.offsets.len(), 3);
    assert_eq!(
        (plan.arena_bytes(), plan.lower_bound_bytes()),
        (2 * SLOT, 2 * SLOT)
    );
    assert_eq!(tensor(&plan, "c:0").offset, tensor(&plan, "a:0").offset);
}

/// A user op marked in-place shares its input's memory like a built-in view.
#[test]
fn in_place_ops_marked_in_their_prototype_are_views() {
    let mut r = OpRegistry::with_builtins();
    let schema = OpSchema::new("AddInPlace")
        .input(PortDef::new("x", ParamType::Required))
        .input(PortDef::new("y", ParamType::Required))
        .output(
            PortDef::new("z", ParamType::Required)
                .follow("x", FollowType::All)
                .reuses_input("x"),
        );
    r.register(schema, false).unwrap();
    let mut g = Graph::new("inplace");
    let x = input(&mut g, "x", DataType::Float, &[4], Format::Nd);
    let a = op(&mut g, &r, "Relu", "a", &[x], Attrs::new());
    let z = op(&mut g, &r, "AddInPlace", "z", &[a, x], Attrs::new());
    let out = op(&mut g, &r, "Relu", "out", &[z], Attrs::new());
    g.set_outputs(vec![out]).unwrap();
    infer_all(&mut g, &r).unwrap();
    let plan = plan(&g, &r);
    assert!(tensor(&plan, "z:0").view_of.is_some());
    assert_eq!(span(&plan, "a:0"), (1, 3));
    assert_eq!(plan.arena.offsets.len(), 1);
}

/// A While: the loop variable's buffer (outside) and the body's result are
/// alive over the whole loop; a body temporary keeps its own steps.
#[test]
fn loop_carried_buffers_live_over_the_whole_loop() {
    let r = OpRegistry::with_builtins();
    let mut cond = Graph::new("cond");
    let yes = HostTensor::new(
        DataType::Bool,
        Shape::scalar(),
        bytes::Bytes::from(vec![1u8]),
    )
    .unwrap();
    let c = cond.add_const_node("c", yes).unwrap();
    cond.set_outputs(vec![c]).unwrap();
    let mut body = Graph::new("body");
    let mut arg = crate::graph::Node::new("d", "Data", Vec::new(), 1);
    arg.attrs.set("index", AttrValue::Int(0));
    let d = OutputRef::new(body.add_node(arg).unwrap(), 0);
    let e = op(&mut body, &r, "Relu", "e", &[d], Attrs::new());
    let f = op(&mut body, &r, "Relu", "f", &[e], Attrs::new());
    body.set_outputs(vec![f]).unwrap();

    let mut g = Graph::new("loop");
    let x = input(&mut g, "x", DataType::Float, &[64], Format::Nd);
    let a = op(&mut g, &r, "Relu", "a", &[x], Attrs::new());
    let spec = OpSpec {
        op_type: "While".into(),
        name: "w".into(),
        inputs: vec![PortInput::Many(vec![a])],
        subgraphs: vec![
            Subgraph {
                name: "cond".into(),
                graph: cond.into(),
            },
            Subgraph {
                name: "body".into(),
                graph: body.into(),
            },
        ],
        ..OpSpec::default()
    };
    let w = OutputRef::new(add_op(&mut g, &r, spec).unwrap(), 0);
    let y = op(&mut g, &r, "Relu", "y", &[w], Attrs::new());
    g.set_outputs(vec![y]).unwrap();
    infer_all(&mut g, &r).unwrap();
    let plan = plan(&g, &r);
    // Steps: x 0, a 1, cond/c 2, body/d 3, body/e 4, body/f 5, w 6, y 7.
    assert_eq!(plan.steps, 8);
    assert_eq!(span(&plan, "a:0"), (1, 6), "read by the While at its step");
    assert!(
        tensor(&plan, "w/body/d:0").view_of.is_some(),
        "the argument is the caller's input"
    );
    assert_eq!(
        span(&plan, "w/body/e:0"),
        (4, 5),
        "a temporary of one iteration"
    );
    assert_eq!(
        span(&plan, "w/body/f:0"),
        (2, 6),
        "the result is carried to the next iteration"
    );
    assert_eq!(span(&plan, "w:0"), (6, 7));
    assert_eq!(tensor(&plan, "w/cond/c:0").region, Region::Weight);
    // 64 floats -> 288 bytes -> one slot. At steps 4 to 6 three buffers
    // (a, e or w, f) are alive.
    assert_eq!(
        (plan.arena_bytes(), plan.lower_bound_bytes()),
        (3 * SLOT, 3 * SLOT)
    );
}

/// If: the branches run at the If, one after the other, so they never meet
/// and share memory; their results live until the If's step.
/// `if(p, then: Neg(Neg(x)), else: Neg(x))` on 256 floats; `p` fed, or a
/// constant when `condition` holds one; `x` a graph input, or computed
/// (`Relu` of one) when `computed`.
fn if_graph(r: &OpRegistry, condition: Option<bool>, computed: bool) -> Graph {
    let branch = |name: &str, ops: usize| {
        let mut b = Graph::new(name);
        let mut arg = crate::graph::Node::new("arg", "Data", Vec::new(), 1);
        arg.attrs.set("index", AttrValue::Int(1));
        let mut at = OutputRef::new(b.add_node(arg).unwrap(), 0);
        for i in 0..ops {
            at = op(&mut b, r, "Neg", &format!("n{i}"), &[at], Attrs::new());
        }
        b.set_outputs(vec![at]).unwrap();
        Subgraph {
            name: name.into(),
            graph: b.into(),
        }
    };
    let mut g = Graph::new("if");
    let p = match condition {
        Some(value) => bool_const(&mut g, "p", value),
        None => input(&mut g, "p", DataType::Bool, &[], Format::Nd),
    };
    let mut x = input(&mut g, "x", DataType::Float, &[256], Format::Nd);
    if computed {
        x = op(&mut g, r, "Relu", "relu", &[x], Attrs::new());
    }
    let spec = OpSpec {
        op_type: "If".into(),
        name: "if".into(),
        inputs: vec![PortInput::Single(Some(p)), PortInput::Many(vec![x])],
        subgraphs: vec![branch("then_branch", 2), branch("else_branch", 1)],
        ..OpSpec::default()
    };
    let out = OutputRef::new(add_op(&mut g, r, spec).unwrap(), 0);
    g.set_outputs(vec![out]).unwrap();
    infer_all(&mut g, r).unwrap();
    g
}

#[test]
fn branches_share_memory() {
    let r = OpRegistry::with_builtins();
    let g = if_graph(&r, None, false);
    let plan = plan(&g, &r);
    // Steps: p 0, x 1, then/arg 2, then/n0 3, then/n1 4, else/arg 5,
    // else/n0 6, if 7.
    assert_eq!(span(&plan, "if/then_branch/n0:0"), (3, 4));
    assert_eq!(span(&plan, "if/then_branch/n1:0"), (4, 7));
    assert_eq!(span(&plan, "if/else_branch/n0:0"), (6, 7));
    // 256 floats = 1024 bytes -> 1056 -> 1536 at 512-byte alignment; then's
    // n0 shares memory with else's n0.
    let slot = 1536;
    assert_eq!(
        (plan.arena_bytes(), plan.lower_bound_bytes()),
        (2 * slot, 2 * slot)
    );
    assert_eq!(
        tensor(&plan, "if/then_branch/n0:0").offset,
        tensor(&plan, "if/else_branch/n0:0").offset
    );
    assert_eq!(tensor(&plan, "if:0").region, Region::Output);
}

#[test]
fn unknown_sizes_are_errors_bounded_or_dynamic() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("dyn");
    let x = input(&mut g, "x", DataType::Float, &[-1, 8], Format::Nd);
    let a = op(&mut g, &r, "Relu", "a", &[x], Attrs::new());
    g.set_outputs(vec![a]).unwrap();
    infer_all(&mut g, &r).unwrap();
    let err = plan_memory(&g, &r, &PlanOptions::default()).unwrap_err();
    assert!(matches!(&err, MemoryError::UnknownSize { tensor, .. } if tensor == "x:0"));
    assert!(err.to_string().contains("input_shapes"), "{err}");
    let dynamic = PlanOptions {
        allow_dynamic: true,
        ..PlanOptions::default()
    };
    let left_out = plan_memory(&g, &r, &dynamic).unwrap();
    assert!(left_out
        .tensors
        .iter()
        .all(|t| t.region == Region::Dynamic && t.offset.is_none()));
    assert_eq!((left_out.arena_bytes(), left_out.io_bytes()), (0, 0));

    // With a shape range, the upper bound sizes it: 4 * 8 floats = 128
    // bytes -> 160.
    let mut g = Graph::new("ranged");
    let x = ranged_input(&mut g, "x", DataType::Float, &[-1, 8], &[(1, 4), (8, 8)]);
    let a = op(&mut g, &r, "Relu", "a", &[x], Attrs::new());
    g.set_outputs(vec![a]).unwrap();
    infer_all(&mut g, &r).unwrap();
    let bounded = plan(&g, &r);
    assert_eq!(tensor(&bounded, "a:0").size, Some(160));
    assert_eq!(tensor(&bounded, "x:0").size, Some(160));
}

#[test]
fn graphs_must_be_inferred() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("raw");
    let x = input(&mut g, "x", DataType::Float, &[4], Format::Nd);
    op(&mut g, &r, "Relu", "a", &[x], Attrs::new());
    let err = plan_memory(&g, &r, &PlanOptions::default()).unwrap_err();
    assert_eq!(
        err,
        MemoryError::NotInferred {
            tensor: "a:0".into()
        }
    );
    assert!(err.to_string().contains("opgraph.infer"));
}

#[test]
fn a_fixed_strategy_is_used_and_reported_alone() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("chain");
    let mut at = input(&mut g, "x", DataType::Float, &[100], Format::Nd);
    for i in 0..6 {
        at = op(&mut g, &r, "Relu", &format!("r{i}"), &[at], Attrs::new());
    }
    g.set_outputs(vec![at]).unwrap();
    infer_all(&mut g, &r).unwrap();
    let mut options = PlanOptions::default();
    options.arena.strategy = Some(super::Strategy::Naive);
    let naive = plan_memory(&g, &r, &options).unwrap();
    assert_eq!(naive.arena.strategies.len(), 1);
    assert_eq!(naive.arena.chosen, super::Strategy::Naive);
    assert_eq!(naive.arena_bytes(), 5 * SLOT);
    assert_eq!(naive.lower_bound_bytes(), 2 * SLOT);
    assert!(naive.problems().is_empty());
}

/// A weight without values (a Caffe net without its .caffemodel) has
/// unknown dims: an error naming it, or left out with `allow_dynamic`.
#[test]
fn weights_of_unknown_size() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("weightless");
    let x = input(&mut g, "x", DataType::Float, &[2, 3], Format::Nd);
    let mut w = crate::graph::Node::new("w", "Const", Vec::new(), 1);
    w.outputs[0] = TensorDesc::new(DataType::Float, Shape::from_dims([-1, 3]), Format::Nd);
    let w = OutputRef::new(g.add_node(w).unwrap(), 0);
    let y = op(&mut g, &r, "Add", "y", &[x, w], Attrs::new());
    g.set_outputs(vec![y]).unwrap();
    infer_all(&mut g, &r).unwrap();
    let err = plan_memory(&g, &r, &PlanOptions::default()).unwrap_err();
    assert!(matches!(&err, MemoryError::UnknownWeightSize { tensor, .. } if tensor == "w:0"));
    assert!(err.to_string().contains(".caffemodel"), "{err}");
    let options = PlanOptions {
        allow_dynamic: true,
        ..PlanOptions::default()
    };
    let plan = plan_memory(&g, &r, &options).unwrap();
    assert_eq!(tensor(&plan, "w:0").region, Region::Dynamic);
    assert_eq!(plan.weights_bytes, 0);
}

/// x -> a = Relu(x), b = Sigmoid(x) ([64, 64] f32, one 16 KiB slot
/// each), a2 = ReduceSum(a), b2 = ReduceSum(b) ([64, 1]: 512 bytes),
/// y = Add(a2, b2). Built in that order, Kahn's order runs a and b before
/// either is reduced, so both large tensors are live together; finishing
/// one branch first keeps one large tensor and the small results.
#[test]
fn auto_schedule_finishes_a_branch_before_starting_the_next() {
    let r = OpRegistry::with_builtins();
    let (mut g, y) = two_branches(&r);
    g.set_outputs(vec![y]).unwrap();
    infer_all(&mut g, &r).unwrap();
    let only = |kind| {
        let options = PlanOptions {
            schedule: Some(kind),
            ..PlanOptions::default()
        };
        plan_memory(&g, &r, &options).unwrap()
    };
    // [64, 64] f32: 16384 bytes -> GE size 16416 -> 16896 at 512-byte
    // alignment; [64, 1]: 256 -> 288 -> 512.
    let (large, small) = (16_896, 512);
    let topological = only(ScheduleKind::Topological);
    // At a2's step: a (read now), b and a2.
    assert_eq!(topological.lower_bound_bytes(), 2 * large + small);
    for kind in [ScheduleKind::DepthFirst, ScheduleKind::FreesMost] {
        let plan = only(kind);
        assert_eq!(plan.problems(), Vec::<String>::new());
        // a, a2 (a freed), then b with a2, then b2: one large at a time.
        assert_eq!(plan.lower_bound_bytes(), large + 2 * small, "{kind:?}");
    }
    let auto = plan(&g, &r);
    assert_ne!(auto.schedule, ScheduleKind::Topological);
    assert_eq!(auto.lower_bound_bytes(), large + 2 * small);
    // Refining finds no lower peak (no order has one): it is not listed.
    assert_eq!(auto.schedule_peaks.len(), 3);
    assert!(auto
        .schedule_peaks
        .contains(&(ScheduleKind::Topological, 2 * large + small)));
    // No order avoids a large tensor and its reduction together (a with
    // a2, b with b2); nothing forces a2 and b2 to meet a large tensor, so
    // the bound stays below what the best order reaches.
    assert_eq!(auto.any_order_bound_bytes, Some(large + small));
}

/// x ([64, 64] f32, an input) -> a = Relu -> a2 = ReduceSum (keep dims);
/// x -> b = Sigmoid -> b2 = ReduceSum; y = Add(a2, b2), returned.
/// Kahn's order runs a and b before either reduction; the other orders
/// finish one branch first.
fn two_branches(r: &OpRegistry) -> (Graph, OutputRef) {
    let mut g = Graph::new("branches");
    let x = input(&mut g, "x", DataType::Float, &[64, 64], Format::Nd);
    let axes = int_const(&mut g, "axes", DataType::Int32, &[1], &[1]);
    let a = op(&mut g, r, "Relu", "a", &[x], Attrs::new());
    let b = op(&mut g, r, "Sigmoid", "b", &[x], Attrs::new());
    let keep: Attrs = [("keep_dims", AttrValue::Bool(true))].into_iter().collect();
    let a2 = op(&mut g, r, "ReduceSum", "a2", &[a, axes], keep.clone());
    let b2 = op(&mut g, r, "ReduceSum", "b2", &[b, axes], keep);
    let y = op(&mut g, r, "Add", "y", &[a2, b2], Attrs::new());
    (g, y)
}

/// How the v1 loop of `two_branches_and_a_loop` runs.
#[derive(Clone, Copy, PartialEq)]
enum LoopRun {
    /// Behind a Switch on a constant false predicate: dead code.
    Dead,
    /// Entered, but its condition is a constant false: it never repeats
    /// (its body and back edge are dead).
    Once,
    /// Its condition is fed: it may iterate.
    Iterates,
}

/// `two_branches` with a TensorFlow v1 loop on `x`: Enter -> Merge ->
/// Switch on `LoopCond` -> Neg -> NextIteration back into the Merge, Exit
/// out. A dead loop sits on the dead side of a Switch on a constant false
/// predicate, whose other side (`x` again) a Merge joins with the Exit.
fn two_branches_and_a_loop(r: &OpRegistry, run: LoopRun) -> Graph {
    let (mut g, y) = two_branches(r);
    let x = OutputRef::new(g.find("x").unwrap(), 0);
    let (into_loop, guard) = if run == LoopRun::Dead {
        let p = bool_const(&mut g, "p", false);
        let guard = op(&mut g, r, "Switch", "guard", &[x, p], Attrs::new());
        // Output 1 (true) is dead; output 0 (false) carries x on.
        (OutputRef::new(guard.node, 1), Some(guard))
    } else {
        (x, None)
    };
    let frame: Attrs = [("frame_name", AttrValue::Str("loop".into()))]
        .into_iter()
        .collect();
    let enter = op(&mut g, r, "Enter", "enter", &[into_loop], frame);
    let merge_spec = |name: &str, inputs: Vec<OutputRef>| OpSpec {
        op_type: "Merge".into(),
        name: name.into(),
        inputs: vec![PortInput::Many(inputs)],
        ..OpSpec::default()
    };
    let merge = add_op(&mut g, r, merge_spec("merge", vec![enter, enter])).unwrap();
    let merged = OutputRef::new(merge, 0);
    let go = match run {
        LoopRun::Once => bool_const(&mut g, "go", false),
        _ => input(&mut g, "go", DataType::Bool, &[], Format::Nd),
    };
    let cond = op(&mut g, r, "LoopCond", "cond", &[go], Attrs::new());
    let switch = op(&mut g, r, "Switch", "switch", &[merged, cond], Attrs::new());
    let body = op(
        &mut g,
        r,
        "Neg",
        "body",
        &[OutputRef::new(switch.node, 1)],
        Attrs::new(),
    );
    let next = op(&mut g, r, "NextIteration", "next", &[body], Attrs::new());
    g.node_mut(merge).inputs[1] = Some(next);
    let exit = op(&mut g, r, "Exit", "exit", &[switch], Attrs::new());
    let outputs = match guard {
        Some(guard) => {
            let joined = merge_spec("joined", vec![exit, guard]);
            vec![y, OutputRef::new(add_op(&mut g, r, joined).unwrap(), 0)]
        }
        None => vec![y, exit],
    };
    g.set_outputs(outputs).unwrap();
    infer_all(&mut g, r).unwrap();
    g
}

/// Only a loop that may iterate (a live NextIteration feeding a live
/// Merge) keeps Kahn's order, in which its frame is planned: a loop GE
/// deletes as dead code, or one that never repeats, leaves the planner
/// free to finish a branch first. Naming another order for a graph that
/// must keep Kahn's is an error.
#[test]
fn only_a_v1_loop_that_may_iterate_keeps_the_topological_order() {
    let r = OpRegistry::with_builtins();
    let (large, small) = (16_896, 512);
    let dead = two_branches_and_a_loop(&r, LoopRun::Dead);
    let auto = plan(&dead, &r);
    assert_ne!(auto.schedule, ScheduleKind::Topological);
    assert_eq!(auto.lower_bound_bytes(), large + 2 * small);
    for name in [
        "enter:0", "merge:0", "switch:1", "body:0", "next:0", "exit:0",
    ] {
        assert_eq!(tensor(&auto, name).region, Region::Dead, "{name}");
    }

    let once = two_branches_and_a_loop(&r, LoopRun::Once);
    let auto = plan(&once, &r);
    assert_ne!(auto.schedule, ScheduleKind::Topological);
    assert_eq!(tensor(&auto, "next:0").region, Region::Dead);
    assert_ne!(tensor(&auto, "merge:0").region, Region::Dead);

    let live = two_branches_and_a_loop(&r, LoopRun::Iterates);
    let auto = plan(&live, &r);
    assert_eq!(auto.schedule, ScheduleKind::Topological);
    assert_eq!(auto.schedule_peaks.len(), 1);
    let options = PlanOptions {
        schedule: Some(ScheduleKind::DepthFirst),
        ..PlanOptions::default()
    };
    let error = plan_memory(&live, &r, &options).unwrap_err().to_string();
    assert!(error.contains("TensorFlow v1 loop"), "{error}");
}

/// x -> s = Relu(x) -> b1 = Relu(s) -> b2 = Relu(b1) -> y = Add(s, b2)
/// ([64, 64] f32, one 16 KiB slot each): every order keeps the skip
/// tensor `s` alive across the branch, so at b2's step s, b1 and b2 are
/// live in any order, which is the peak every order reaches.
#[test]
fn a_skip_connection_is_alive_across_its_branch_in_any_order() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("residual");
    let x = input(&mut g, "x", DataType::Float, &[64, 64], Format::Nd);
    let s = op(&mut g, &r, "Relu", "s", &[x], Attrs::new());
    let b1 = op(&mut g, &r, "Relu", "b1", &[s], Attrs::new());
    let b2 = op(&mut g, &r, "Relu", "b2", &[b1], Attrs::new());
    let y = op(&mut g, &r, "Add", "y", &[s, b2], Attrs::new());
    g.set_outputs(vec![y]).unwrap();
    infer_all(&mut g, &r).unwrap();
    let plan = plan(&g, &r);
    let large = 16_896;
    assert_eq!(plan.lower_bound_bytes(), 3 * large);
    assert_eq!(plan.any_order_bound_bytes, Some(3 * large));
}

/// x -> n0 = Relu(x); n1 = Relu(n0); n2 = Add(n0, x) (read by nothing);
/// n3 = Relu(n1) (read by nothing); n4 = Relu(n0), the output. Each
/// [1, 64] f32 activation takes one 512-byte slot. Kahn's order (n0, n1,
/// n2, n4, n3), the depth-first and the frees-most orders all have n0, n1
/// and n2 alive together (3 slots). Running the dead-end n2 and the
/// output n4 before n1 frees n0 first: n0 n2 | n0 | n0 n1 | n1 n3, two
/// slots, which the any-order bound shows is optimal. Only refining finds it.
#[test]
fn refining_moves_single_nodes_to_a_lower_peak() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("refine");
    let x = input(&mut g, "x", DataType::Float, &[1, 64], Format::Nd);
    let n0 = op(&mut g, &r, "Relu", "n0", &[x], Attrs::new());
    let n1 = op(&mut g, &r, "Relu", "n1", &[n0], Attrs::new());
    op(&mut g, &r, "Add", "n2", &[n0, x], Attrs::new());
    op(&mut g, &r, "Relu", "n3", &[n1], Attrs::new());
    let n4 = op(&mut g, &r, "Relu", "n4", &[n0], Attrs::new());
    g.set_outputs(vec![n4]).unwrap();
    infer_all(&mut g, &r).unwrap();
    let auto = plan(&g, &r);
    for kind in ScheduleKind::BUILT {
        assert!(auto.schedule_peaks.contains(&(kind, 3 * SLOT)), "{kind:?}");
    }
    assert_eq!(auto.schedule, ScheduleKind::Refined);
    assert_eq!(auto.lower_bound_bytes(), 2 * SLOT);
    assert_eq!(auto.any_order_bound_bytes, Some(2 * SLOT));
    assert!(auto
        .schedule_peaks
        .contains(&(ScheduleKind::Refined, 2 * SLOT)));
    // Named, it plans the same order.
    let options = PlanOptions {
        schedule: Some(ScheduleKind::Refined),
        ..PlanOptions::default()
    };
    let named = plan_memory(&g, &r, &options).unwrap();
    assert_eq!(named.schedule, ScheduleKind::Refined);
    assert_eq!(named.lower_bound_bytes(), 2 * SLOT);
    assert_eq!(named.problems(), Vec::<String>::new());
}

/// w (fp32) -> Cast to fp16 (folded at build time) -> Mul(x, cast), and
/// `kept` (fp32) read by a folded Cast and by a run-time Mul.
#[test]
fn a_weight_only_constant_folding_reads_takes_no_memory() {
    let r = OpRegistry::with_builtins();
    let mut g = Graph::new("folded");
    let x = input(&mut g, "x", DataType::Float16, &[1, 1024], Format::Nd);
    let y = input(&mut g, "y", DataType::Float, &[1, 1024], Format::Nd);
    let weight = |g: &mut Graph, name: &str| {
        g.add_const_node(
            name,
            HostTensor::new(
                DataType::Float,
                Shape::from_dims([1, 1024]),
                bytes::Bytes::from(vec![0u8; 4096]),
            )
            .unwrap(),
        )
        .unwrap()
    };
    let to_f16 = || {
        let mut a = Attrs::new();
        a.set("DstT", AttrValue::DataType(DataType::Float16));
        a
    };
    let w = weight(&mut g, "w");
    let cast = op(&mut g, &r, "Cast", "cast", &[w], to_f16());
    let a = op(&mut g, &r, "Mul", "a", &[x, cast], Attrs::new());
    let kept = weight(&mut g, "kept");
    let kept_cast = op(&mut g, &r, "Cast", "kept_cast", &[kept], to_f16());
    let b = op(&mut g, &r, "Mul", "b", &[a, kept_cast], Attrs::new());
    let c = op(&mut g, &r, "Mul", "c", &[y, kept], Attrs::new());
    g.set_outputs(vec![b, c]).unwrap();
    infer_all(&mut g, &r).unwrap();
    let plan = plan(&g, &r);
    assert_eq!(tensor(&plan, "w:0").region, Region::Folded);
    assert_eq!(tensor(&plan, "w:0").offset, None);
    assert_eq!(tensor(&plan, "cast:0").region, Region::Weight);
    assert_eq!(tensor(&plan, "kept:0").region, Region::Weight);
    assert_eq!(tensor(&plan, "kept_cast:0").region, Region::Weight);
    // Two fp16 casts (2048 + 32 bytes each, 2560 aligned) and the fp32
    // weight a run-time Mul reads (4096 + 32, 4608 aligned).
    assert_eq!(plan.weights_bytes, 2 * 2560 + 4608);
}

/// `x = Relu(x0)` (256 floats) through a Switch on the constant false:
/// the live side runs `a`, `b`, `c` (Exp); on the dead side `pivot`
/// (Identity of the true output) and `d = Neg(x)`, which reads `x`
/// directly and is dead through its control edge from `pivot` (as
/// TensorFlow's cond makes a branch's constants wait on its pivot), made
/// to wait on `c` too so that it is the last reader of `x`; a Merge joins
/// `c` and `d`.
fn switch_with_a_late_dead_read(r: &OpRegistry) -> Graph {
    let mut g = Graph::new("dead");
    let x0 = input(&mut g, "x0", DataType::Float, &[256], Format::Nd);
    let x = op(&mut g, r, "Relu", "x", &[x0], Attrs::new());
    let p = bool_const(&mut g, "p", false);
    let switch = op(&mut g, r, "Switch", "switch", &[x, p], Attrs::new());
    let a = op(&mut g, r, "Exp", "a", &[switch], Attrs::new());
    let b = op(&mut g, r, "Exp", "b", &[a], Attrs::new());
    let c = op(&mut g, r, "Exp", "c", &[b], Attrs::new());
    let taken = OutputRef::new(switch.node, 1);
    let pivot = op(&mut g, r, "Identity", "pivot", &[taken], Attrs::new());
    let d = op(&mut g, r, "Neg", "d", &[x], Attrs::new());
    g.node_mut(d.node)
        .control_inputs
        .extend([pivot.node, c.node]);
    let spec = OpSpec {
        op_type: "Merge".into(),
        name: "merge".into(),
        inputs: vec![PortInput::Many(vec![c, d])],
        ..OpSpec::default()
    };
    let merge = OutputRef::new(add_op(&mut g, r, spec).unwrap(), 0);
    g.set_outputs(vec![merge]).unwrap();
    infer_all(&mut g, r).unwrap();
    g
}

#[test]
fn dead_code_takes_no_memory_and_keeps_nothing_alive() {
    let r = OpRegistry::with_builtins();
    let g = switch_with_a_late_dead_read(&r);
    let plan = plan(&g, &r);
    assert_eq!(tensor(&plan, "d:0").region, Region::Dead);
    assert_eq!(tensor(&plan, "d:0").offset, None);
    assert_eq!(tensor(&plan, "switch:1").region, Region::Dead);
    assert_eq!(tensor(&plan, "pivot:0").region, Region::Dead);
    // The Merge with one live input is an edge (GE's MergePass): the
    // graph output is `c` itself.
    assert_eq!(tensor(&plan, "c:0").region, Region::Output);
    let owner = tensor(&plan, "merge:0")
        .view_of
        .map(|t| &plan.tensors[t as usize].name);
    assert_eq!(owner.map(String::as_str), Some("c:0"));
    // x (and the live Switch output, its view) is last read by `a`, not
    // by the dead `d`, which runs after `c`.
    let (a, d) = (span(&plan, "a:0").0, span(&plan, "d:0").0);
    assert!(d > span(&plan, "c:0").0 && span(&plan, "c:0").0 > a);
    assert_eq!(span(&plan, "x:0").1, a);
    // Two 1,536-byte slots: a and b are alive together.
    assert_eq!(plan.arena_bytes(), 2 * 1536);
}

#[test]
fn an_if_on_a_known_condition_plans_the_branch_it_takes() {
    // GE's CondRemovePass replaces the If by its else branch: the branch's
    // Neg is the graph output itself (the If's output a view of it), and
    // the then branch's two take nothing.
    let r = OpRegistry::with_builtins();
    let g = if_graph(&r, Some(false), false);
    let taken = plan(&g, &r);
    for name in ["if/then_branch/n0:0", "if/then_branch/n1:0"] {
        assert_eq!(tensor(&taken, name).region, Region::Dead, "{name}");
    }
    assert_eq!(tensor(&taken, "if/else_branch/n0:0").region, Region::Output);
    assert_eq!(taken.arena_bytes(), 0);
    // The then branch: n0 feeds n1, the output.
    let g = if_graph(&r, Some(true), false);
    let then = plan(&g, &r);
    assert_eq!(tensor(&then, "if/else_branch/n0:0").region, Region::Dead);
    assert_eq!(tensor(&then, "if/then_branch/n1:0").region, Region::Output);
    let owner = tensor(&then, "if:0")
        .view_of
        .map(|t| then.tensors[t as usize].name.as_str());
    assert_eq!(owner, Some("if/then_branch/n1:0"));
    assert_eq!(then.arena_bytes(), 1536);
    // A computed input is read by the branch alone: it dies at the Neg
    // that reads it, not at the If's own step after the branch.
    let g = if_graph(&r, Some(true), true);
    let then = plan(&g, &r);
    let read = span(&then, "if/then_branch/n0:0").0;
    assert!(read < span(&then, "if:0").0);
    assert_eq!(span(&then, "relu:0").1, read);
}
