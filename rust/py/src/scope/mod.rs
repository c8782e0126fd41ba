//! Scope fusion from Python: views of the scope graph, patterns, results,
//! Python pass classes as core passes, and their registration.

mod pass;
mod patterns;
mod results;
mod views;

use crate::convert::{attrs_from_py, attrs_to_py};
use crate::errors::{exception, guard_panics_detached, registration_error};
use crate::frontend::errors::frontend_err;
use crate::frontend::framework_op::{input_name, parse_input};
use opgraph_core::frontend::scope::{
    global_scope_passes, register_scope_pass, run_scope_passes, FusionRecord, ScopeFusionPass,
    ScopePassFactory, FUSION_DISABLE_INDEX, INPUT_FROM_FUSION_SCOPE, OUTPUT_TO_FUSION_SCOPE,
    SCOPE_INVALID_TYPE, SCOPE_TO_MULTI_NODES,
};
use opgraph_core::frontend::{FrameworkGraph, FrameworkOp};
use pass::{failure, PyScopePass};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<views::PyScopeGraph>()?;
    m.add_class::<views::PyScopeTree>()?;
    m.add_class::<views::PyScope>()?;
    m.add_class::<views::PyScopeNode>()?;
    m.add_class::<patterns::PyNodeOpTypeFeature>()?;
    m.add_class::<patterns::PyNodeAttrFeature>()?;
    m.add_class::<patterns::PyScopeFeature>()?;
    m.add_class::<patterns::PyScopePattern>()?;
    m.add_class::<results::PyScopesResult>()?;
    m.add_class::<results::PyFusionScopesResult>()?;
    m.add_class::<results::PyInnerNodeInfo>()?;
    m.add_function(wrap_pyfunction!(register_scope_fusion_pass, m)?)?;
    m.add_function(wrap_pyfunction!(registered_scope_fusion_passes, m)?)?;
    m.add_function(wrap_pyfunction!(_run_scope_passes, m)?)?;
    m.add("FUSION_DISABLE_INDEX", FUSION_DISABLE_INDEX)?;
    m.add("SCOPE_TO_MULTI_NODES", SCOPE_TO_MULTI_NODES)?;
    m.add("SCOPE_INVALID_TYPE", SCOPE_INVALID_TYPE)?;
    m.add("INPUT_FROM_FUSION_SCOPE", INPUT_FROM_FUSION_SCOPE)?;
    m.add("OUTPUT_TO_FUSION_SCOPE", OUTPUT_TO_FUSION_SCOPE)?;
    Ok(())
}

/// Registers a Python pass: `factory()` makes one instance per graph.
#[pyfunction]
#[pyo3(signature = (name, factory, general = false, allow_override = false))]
fn register_scope_fusion_pass(
    py: Python<'_>,
    name: String,
    factory: Py<PyAny>,
    general: bool,
    allow_override: bool,
) -> PyResult<()> {
    if !factory.bind(py).is_callable() {
        return Err(pyo3::exceptions::PyTypeError::new_err(
            "a scope fusion pass is registered with a callable making pass instances (its class)",
        ));
    }
    let pass_name = name.clone();
    let make: ScopePassFactory = Arc::new(move || {
        Python::attach(|py| {
            let instance = factory
                .bind(py)
                .call0()
                .map_err(|e| failure(py, &pass_name, "__init__", e))?;
            Ok(Box::new(PyScopePass {
                name: pass_name.clone(),
                instance: instance.unbind(),
            }) as Box<dyn ScopeFusionPass>)
        })
    });
    register_scope_pass(&name, make, general, allow_override)
        .map_err(|e| exception(registration_error(py), e.to_string()))
}

/// `(name, general, builtin)` of every registered pass, in run order.
#[pyfunction]
fn registered_scope_fusion_passes() -> Vec<(String, bool, bool)> {
    global_scope_passes()
        .passes()
        .iter()
        .map(|p| (p.name.clone(), p.general, p.builtin))
        .collect()
}

/// An op as `(name, type, inputs, attrs)`, inputs in TensorFlow's syntax.
type OpTuple<'py> = (String, String, Vec<String>, Bound<'py, PyDict>);
/// An op after fusion, with the names of the ops fused into it.
type FusedOpTuple<'py> = (String, String, Vec<String>, Bound<'py, PyDict>, Vec<String>);
/// `(pass, name, type, replaced, description, inner_nodes)`.
type RecordTuple = (String, String, String, Vec<String>, String, Vec<String>);

fn op_from_tuple(op: &OpTuple<'_>) -> PyResult<FrameworkOp> {
    let (name, op_type, inputs, attrs) = op;
    let mut framework = FrameworkOp {
        name: name.clone(),
        op_type: op_type.as_str().into(),
        attrs: attrs_from_py(attrs)?,
        ..FrameworkOp::default()
    };
    for input in inputs {
        match input.strip_prefix('^') {
            Some(control) => framework.control_inputs.push(control.to_owned()),
            None => framework.inputs.push(parse_input(input)?),
        }
    }
    Ok(framework)
}

fn op_to_tuple<'py>(py: Python<'py>, op: &FrameworkOp) -> PyResult<FusedOpTuple<'py>> {
    let mut inputs: Vec<String> = op.inputs.iter().map(input_name).collect();
    inputs.extend(op.control_inputs.iter().map(|c| format!("^{c}")));
    let fused = op.fused_ops.iter().map(|f| f.name.clone()).collect();
    Ok((
        op.name.clone(),
        op.op_type.to_string(),
        inputs,
        attrs_to_py(py, &op.attrs)?,
        fused,
    ))
}

fn record_to_tuple(r: FusionRecord) -> RecordTuple {
    (
        r.pass,
        r.name,
        r.op_type,
        r.replaced,
        r.description,
        r.inner_nodes,
    )
}

/// Runs the registered scope passes over framework ops given as plain data
/// (for tests of Python passes without a model file).
#[pyfunction]
#[pyo3(signature = (ops, enable_scope_passes = Vec::new()))]
fn _run_scope_passes<'py>(
    py: Python<'py>,
    ops: Vec<OpTuple<'py>>,
    enable_scope_passes: Vec<String>,
) -> PyResult<(Vec<FusedOpTuple<'py>>, Vec<RecordTuple>)> {
    let mut graph = FrameworkGraph {
        name: "graph".into(),
        ops: ops.iter().map(op_from_tuple).collect::<PyResult<_>>()?,
        functions: Vec::new(),
        ..FrameworkGraph::default()
    };
    let outcome = guard_panics_detached(py, "the scope-fusion passes", || {
        run_scope_passes(&mut graph, &enable_scope_passes)
    })?;
    let records = outcome.map_err(|e| frontend_err(py, e))?;
    let ops = graph
        .ops
        .iter()
        .map(|op| op_to_tuple(py, op))
        .collect::<PyResult<_>>()?;
    Ok((ops, records.into_iter().map(record_to_tuple).collect()))
}
