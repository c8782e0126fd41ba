//! TensorFlow v1 loop frames (Enter / Merge / Switch / NextIteration /
//! Exit / LoopCond): the NextIteration → Merge back edge is patched in
//! after the frame is built, and inference settles the loop.

use super::*;

/// `tf.compat.v1.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1,
/// concat([x, x], 0)), [0, x])` as TensorFlow 1 writes it, nodes reversed.
pub(super) fn doubling_loop() -> FrameworkGraph {
    let enter = |name: &str, input: &str, ty: &(&'static str, AttrValue)| {
        op(
            name,
            "Enter",
            &[input],
            &[
                ty.clone(),
                ("frame_name", AttrValue::Str("while/while_context".into())),
                ("is_constant", AttrValue::Bool(false)),
                ("parallel_iterations", AttrValue::Int(10)),
            ],
        )
    };
    let n2 = ("N", AttrValue::Int(2));
    let in_frame = "^while/Identity";
    let mut ops = vec![
        placeholder("x", DataType::Float, &[2, 4]),
        ints("i0", &[], &[0]),
        enter("while/Enter", "i0", &i32()),
        enter("while/Enter_1", "x", &f32()),
        op(
            "while/Merge",
            "Merge",
            &["while/Enter", "while/NextIteration"],
            &[i32(), n2.clone()],
        ),
        op(
            "while/Merge_1",
            "Merge",
            &["while/Enter_1", "while/NextIteration_1"],
            &[f32(), n2.clone()],
        ),
        op("while/Less/y", "Const", &["^while/Merge"], &[]),
        op(
            "while/Less",
            "Less",
            &["while/Merge", "while/Less/y"],
            &[i32()],
        ),
        op("while/LoopCond", "LoopCond", &["while/Less"], &[]),
        op(
            "while/Switch",
            "Switch",
            &["while/Merge", "while/LoopCond"],
            &[i32()],
        ),
        op(
            "while/Switch_1",
            "Switch",
            &["while/Merge_1", "while/LoopCond"],
            &[f32()],
        ),
        op("while/Identity", "Identity", &["while/Switch:1"], &[i32()]),
        op(
            "while/Identity_1",
            "Identity",
            &["while/Switch_1:1"],
            &[f32()],
        ),
        op("while/add/y", "Const", &[in_frame], &[]),
        op(
            "while/add",
            "AddV2",
            &["while/Identity", "while/add/y"],
            &[i32()],
        ),
        op("while/axis", "Const", &[in_frame], &[]),
        op(
            "while/concat",
            "ConcatV2",
            &["while/Identity_1", "while/Identity_1", "while/axis"],
            &[f32(), n2],
        ),
        op(
            "while/NextIteration",
            "NextIteration",
            &["while/add"],
            &[i32()],
        ),
        op(
            "while/NextIteration_1",
            "NextIteration",
            &["while/concat"],
            &[f32()],
        ),
        op("while/Exit", "Exit", &["while/Switch"], &[i32()]),
        op("while/Exit_1", "Exit", &["while/Switch_1"], &[f32()]),
        op("y", "Identity", &["while/Exit_1"], &[f32()]),
    ];
    // Consts in the frame: scalars 3, 1 and axis 0.
    for (name, value) in [("while/Less/y", 3), ("while/add/y", 1), ("while/axis", 0)] {
        let c = ints(name, &[], &[value]);
        let slot = ops.iter_mut().find(|o| o.name == name).unwrap();
        slot.op_type = c.op_type;
        slot.attrs = c.attrs;
    }
    ops.reverse();
    graph(ops)
}

#[test]
fn a_v1_loop_converts_with_its_back_edges_and_infers() {
    let framework = doubling_loop();
    let g = convert_and_infer(&framework, &ConvertOptions::default());
    let merge = g.node(g.find("while/Merge_1").unwrap());
    assert_eq!(
        merge.inputs,
        [
            Some(OutputRef::new(g.find("while/Enter_1").unwrap(), 0)),
            Some(OutputRef::new(g.find("while/NextIteration_1").unwrap(), 0)),
        ]
    );
    assert_eq!(shape(&g, "while/Exit", 0), Vec::<i64>::new());
    // x doubles along axis 0 each iteration, so the frame settles at [-1, 4].
    assert_eq!(shape(&g, "while/Exit_1", 0), [-1, 4]);
    assert_eq!(shape(&g, "y", 0), [-1, 4]);
    // Sinks: y, and the counter's Exit nobody reads.
    let outputs: Vec<&str> = g
        .outputs()
        .iter()
        .map(|o| g.node(o.node).name.as_str())
        .collect();
    assert_eq!(outputs, ["y", "while/Exit"]);
}

#[test]
fn pruning_keeps_the_whole_frame_an_exit_needs() {
    let options = ConvertOptions {
        outputs: vec!["while/Exit_1".into()],
        ..ConvertOptions::default()
    };
    let g = convert_and_infer(&doubling_loop(), &options);
    // Everything but `y` and the counter's Exit: the counter still drives LoopCond.
    assert_eq!(g.len(), doubling_loop().ops.len() - 2);
    assert!(g.find("while/NextIteration").is_some());
    assert_eq!(shape(&g, "while/Exit_1", 0), [-1, 4]);
}

#[test]
fn a_cycle_that_is_not_a_loop_frame_is_an_error() {
    let mut framework = doubling_loop();
    // The Merge now consumes a plain Identity of the body: a real cycle.
    for o in &mut framework.ops {
        if o.name == "while/Merge_1" {
            o.inputs[1] = FrameworkInput::new("while/Identity_1", 0);
        }
    }
    let message = error(&framework, &ConvertOptions::default());
    assert!(
        message.starts_with(
            "the graph has a cycle through while/Identity_1 -> while/Merge_1 -> while/Switch_1 -> while/Identity_1"
        ),
        "{message}"
    );
}
