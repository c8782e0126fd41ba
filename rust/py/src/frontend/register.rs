//! Registering parser plugins from Python (the typed
//! `opgraph.tensorflow.plugin` builds these arguments), listing them, and
//! GE's auto-mapping functions.

use super::callbacks::{
    blob_shapes_fn, fusion_parse_params_fn, parse_op_to_graph_fn, parse_params_fn,
};
use super::errors::{plugin_err, registration_err};
use super::framework_op::PyFrameworkOp;
use super::operator::PyOperator;
use crate::convert::type_name;
use opgraph_core::frontend::auto_mapping::{self as core_mapping, DynamicPort, PortKind};
use opgraph_core::frontend::plugin::{
    global_plugins, register_plugin_global, ImplyType, InputEdit,
};
use opgraph_core::frontend::{Framework, ParserPlugin};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

pub fn framework_from_name(name: &str) -> PyResult<Framework> {
    match name {
        "tensorflow" => Ok(Framework::TensorFlow),
        "caffe" => Ok(Framework::Caffe),
        "onnx" => Ok(Framework::Onnx),
        _ => Err(PyValueError::new_err(format!(
            "'{name}' is not a framework; expected 'tensorflow', 'caffe' or 'onnx'"
        ))),
    }
}

fn imply_type_from_name(name: &str) -> PyResult<ImplyType> {
    Ok(match name {
        "builtin" => ImplyType::Builtin,
        "tvm" => ImplyType::Tvm,
        "custom" => ImplyType::Custom,
        "ai_cpu" => ImplyType::AiCpu,
        _ => {
            return Err(PyValueError::new_err(format!(
                "'{name}' is not an imply type; expected 'builtin', 'tvm', 'custom' or 'ai_cpu'"
            )))
        }
    })
}

/// One input edit from `("del_with_cond", index, attr, value)`,
/// `("del_with_original_type", index, op_type)` or `("reorder", order)`.
fn input_edit(spec: &Bound<'_, PyAny>) -> PyResult<InputEdit> {
    let kind: String = spec.get_item(0)?.extract()?;
    let len = spec.len()?;
    let arity_error = || {
        PyTypeError::new_err(format!(
            "input edit '{kind}' got {} arguments",
            len.saturating_sub(1)
        ))
    };
    match (kind.as_str(), len) {
        ("del_with_cond", 4) => Ok(InputEdit::DelWithCond {
            index: spec.get_item(1)?.extract()?,
            attr: spec.get_item(2)?.extract()?,
            value: spec.get_item(3)?.extract()?,
        }),
        ("del_with_original_type", 3) => Ok(InputEdit::DelWithOriginalType {
            index: spec.get_item(1)?.extract()?,
            op_type: spec.get_item(2)?.extract()?,
        }),
        ("reorder", 2) => Ok(InputEdit::Reorder(spec.get_item(1)?.extract()?)),
        ("del_with_cond" | "del_with_original_type" | "reorder", _) => Err(arity_error()),
        _ => Err(PyValueError::new_err(format!(
            "'{kind}' is not an input edit; expected 'del_with_cond', 'del_with_original_type' or 'reorder'"
        ))),
    }
}

/// Registers a parser plugin into the process-wide registry. A plugin for
/// an origin type with a built-in plugin replaces it; replacing a user
/// plugin needs `allow_override`.
#[pyfunction]
#[pyo3(signature = (framework, op_type, origin_op_types, imply_type = "tvm", parse_params = None, fusion_parse_params = None, parse_op_to_graph = None, input_edits = Vec::new(), allow_override = false, blob_shapes = None))]
#[allow(clippy::too_many_arguments)]
pub fn register_parser_plugin(
    py: Python<'_>,
    framework: &str,
    op_type: String,
    origin_op_types: Vec<String>,
    imply_type: &str,
    parse_params: Option<Py<PyAny>>,
    fusion_parse_params: Option<Py<PyAny>>,
    parse_op_to_graph: Option<Py<PyAny>>,
    input_edits: Vec<Bound<'_, PyAny>>,
    allow_override: bool,
    blob_shapes: Option<Py<PyAny>>,
) -> PyResult<()> {
    let framework = framework_from_name(framework)?;
    if blob_shapes.is_some() && framework != Framework::Caffe {
        return Err(PyValueError::new_err(
            "blob_shapes declares a Caffe layer's weight blobs; other frameworks' weights are \
             graph inputs or initializers",
        ));
    }
    for func in [
        &parse_params,
        &fusion_parse_params,
        &parse_op_to_graph,
        &blob_shapes,
    ]
    .into_iter()
    .flatten()
    {
        if !func.bind(py).is_callable() {
            return Err(PyTypeError::new_err(format!(
                "a plugin function must be callable, got {}",
                type_name(func.bind(py))
            )));
        }
    }
    let plugin = ParserPlugin {
        framework,
        op_type,
        origin_op_types,
        imply_type: imply_type_from_name(imply_type)?,
        parse_params: parse_params.map(parse_params_fn),
        fusion_parse_params: fusion_parse_params.map(fusion_parse_params_fn),
        parse_op_to_graph: parse_op_to_graph.map(parse_op_to_graph_fn),
        input_edits: input_edits
            .iter()
            .map(input_edit)
            .collect::<PyResult<_>>()?,
        blob_shapes: blob_shapes.map(blob_shapes_fn),
        builtin: false,
    };
    register_plugin_global(plugin, allow_override).map_err(|e| registration_err(py, &e))
}

/// `(origin op type, IR op type, built-in)` of every plugin of `framework`, sorted.
#[pyfunction]
pub fn parser_plugins(framework: &str) -> PyResult<Vec<(String, String, bool)>> {
    let framework = framework_from_name(framework)?;
    let registry = global_plugins();
    Ok(registry
        .origin_op_types(framework)
        .into_iter()
        .filter_map(|origin| {
            let plugin = registry.get(framework, origin)?;
            Some((origin.to_owned(), plugin.op_type.clone(), plugin.builtin))
        })
        .collect())
}

/// GE's `AutoMappingByOpFn`: copies every attribute of `src` to `dst`
/// except framework bookkeeping (a Caffe layer's `bottom`, `top` and enum
/// `<field>_name` companions) and takes the tensor formats from
/// `data_format`.
#[pyfunction]
pub fn auto_mapping(
    py: Python<'_>,
    src: PyRef<'_, PyFrameworkOp>,
    mut dst: PyRefMut<'_, PyOperator>,
) -> PyResult<()> {
    let draft = dst.draft_mut(py)?;
    core_mapping::auto_mapping(&src.op, draft).map_err(|e| plugin_err(py, e))
}

/// GE's `AutoMappingByOpFnDynamic`: :func:`auto_mapping`, then sizes each
/// `(kind, port, count_attr)` dynamic port from an int or type-list attribute.
#[pyfunction]
pub fn auto_mapping_dynamic(
    py: Python<'_>,
    src: PyRef<'_, PyFrameworkOp>,
    mut dst: PyRefMut<'_, PyOperator>,
    ports: Vec<(String, String, String)>,
) -> PyResult<()> {
    let ports = ports
        .into_iter()
        .map(|(kind, port, count_attr)| {
            let kind = match kind.as_str() {
                "input" => PortKind::Input,
                "output" => PortKind::Output,
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "'{kind}' is not a port kind; expected 'input' or 'output'"
                    )))
                }
            };
            Ok(DynamicPort {
                kind,
                port,
                count_attr,
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let draft = dst.draft_mut(py)?;
    core_mapping::auto_mapping_dynamic(&src.op, draft, &ports).map_err(|e| plugin_err(py, e))
}
