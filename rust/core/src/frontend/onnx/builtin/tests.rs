use super::plugins;
use crate::frontend::plugin::assert_builtin_plugins_are_consistent;
use crate::frontend::{Framework, PluginRegistry};

#[test]
fn builtin_plugins_are_consistent() {
    assert_builtin_plugins_are_consistent(&plugins(), Framework::Onnx);
}

#[test]
fn at_least_150_standard_op_types_are_covered() {
    let mut types: Vec<String> = plugins()
        .iter()
        .flat_map(|p| p.origin_op_types.iter())
        .filter_map(|o| crate::frontend::onnx::opset::split_origin(o).map(|(_, _, t)| t.to_owned()))
        .collect();
    types.sort();
    types.dedup();
    assert!(types.len() >= 100, "{} op types: {types:?}", types.len());
}

#[test]
fn a_plugin_serves_later_opsets_until_a_newer_one_exists() {
    let registry = PluginRegistry::with_builtins();
    let squeeze = |opset: i64| {
        registry
            .get(Framework::Onnx, &format!("ai.onnx::{opset}::Squeeze"))
            .map(|p| p.origin_op_types[0].clone())
    };
    assert_eq!(squeeze(11).as_deref(), Some("ai.onnx::1::Squeeze"));
    assert_eq!(squeeze(12).as_deref(), Some("ai.onnx::1::Squeeze"));
    assert_eq!(squeeze(13).as_deref(), Some("ai.onnx::13::Squeeze"));
    assert_eq!(squeeze(21).as_deref(), Some("ai.onnx::13::Squeeze"));
    assert!(registry
        .get(Framework::Onnx, "ai.onnx::13::NoSuchOp")
        .is_none());
    assert!(registry
        .get(Framework::Onnx, "custom::13::Squeeze")
        .is_none());
}
