//! Python callables as core parser-plugin functions. Each call attaches to
//! the interpreter (loading runs with the GIL released), hands the plugin
//! copies of the framework ops and an `Operator` owning the draft, moves the
//! draft back when the call returns, and carries an exception back as the
//! `PluginError`'s source so the converter's error can chain from it.

use super::framework_op::PyFrameworkOp;
use super::operator::PyOperator;
use crate::errors::{callable_name, raised_message};
use crate::graph::PyGraph;
use opgraph_core::frontend::plugin::{
    BlobShapesFn, FusionParseParamsFn, ParseOpToGraphFn, ParseParamsFn,
};
use opgraph_core::frontend::{FrameworkOp, OpDraft, PluginError};
use opgraph_core::graph::Graph;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::sync::Arc;

pub fn parse_params_fn(func: Py<PyAny>) -> ParseParamsFn {
    Arc::new(move |src: &FrameworkOp, dst: &mut OpDraft| {
        Python::attach(|py| {
            let func = func.bind(py);
            let src =
                Bound::new(py, PyFrameworkOp { op: src.clone() }).map_err(|e| failure(func, e))?;
            fill(func, dst, |operator| func.call1((src, operator)))
        })
    })
}

pub fn fusion_parse_params_fn(func: Py<PyAny>) -> FusionParseParamsFn {
    Arc::new(move |fused: &[FrameworkOp], dst: &mut OpDraft| {
        Python::attach(|py| {
            let func = func.bind(py);
            let ops = fused
                .iter()
                .map(|op| Bound::new(py, PyFrameworkOp { op: op.clone() }))
                .collect::<PyResult<Vec<_>>>()
                .and_then(|ops| PyList::new(py, ops))
                .map_err(|e| failure(func, e))?;
            fill(func, dst, |operator| func.call1((ops, operator)))
        })
    })
}

/// A Python `blob_shapes(src) -> list of shapes` as a Caffe plugin's
/// [`BlobShapesFn`].
pub fn blob_shapes_fn(func: Py<PyAny>) -> BlobShapesFn {
    Arc::new(move |src: &FrameworkOp| {
        Python::attach(|py| {
            let func = func.bind(py);
            let src =
                Bound::new(py, PyFrameworkOp { op: src.clone() }).map_err(|e| failure(func, e))?;
            let returned = func.call1((src,)).map_err(|e| failure(func, e))?;
            returned.extract::<Vec<Vec<i64>>>().map_err(|_| {
                PluginError::new(format!(
                    "{} returned {}; a blob_shapes function returns a list of blob shapes \
                     (lists of ints, -1 for a dim only the input tells)",
                    callable_name(func),
                    crate::convert::type_name(&returned)
                ))
            })
        })
    })
}

pub fn parse_op_to_graph_fn(func: Py<PyAny>) -> ParseOpToGraphFn {
    Arc::new(move |op: &OpDraft| Python::attach(|py| body_graph(func.bind(py), op)))
}

/// Runs `call` with an Operator owning `dst`'s draft, then moves the draft
/// back (also when the call failed: the converter reports the failure).
fn fill<'py>(
    func: &Bound<'py, PyAny>,
    dst: &mut OpDraft,
    call: impl FnOnce(&Bound<'py, PyOperator>) -> PyResult<Bound<'py, PyAny>>,
) -> Result<(), PluginError> {
    let operator = Bound::new(func.py(), PyOperator::writable(std::mem::take(dst)))
        .map_err(|e| failure(func, e))?;
    let result = call(&operator);
    let draft = operator
        .try_borrow_mut()
        .ok()
        .and_then(|mut o| o.take())
        .ok_or_else(|| {
            PluginError::new(format!("{} kept its Operator in use", callable_name(func)))
        })?;
    *dst = draft;
    let returned = result.map_err(|e| failure(func, e))?;
    if !returned.is_none() {
        return Err(PluginError::new(format!(
            "{} returned {}; a parse function fills its Operator and returns None",
            callable_name(func),
            crate::convert::type_name(&returned)
        )));
    }
    Ok(())
}

/// Calls a parse_op_to_graph function on a read-only copy of the parsed op;
/// the body is a copy of the Graph it returns (it may return one Graph for
/// several nodes).
fn body_graph(func: &Bound<'_, PyAny>, op: &OpDraft) -> Result<Graph, PluginError> {
    let py = func.py();
    let operator =
        Bound::new(py, PyOperator::read_only(op.clone())).map_err(|e| failure(func, e))?;
    let result = func.call1((&operator,));
    if let Ok(mut o) = operator.try_borrow_mut() {
        o.take();
    }
    let returned = result.map_err(|e| failure(func, e))?;
    let graph = returned.cast::<PyGraph>().map_err(|_| {
        PluginError::new(format!(
            "{} returned {}; parse_op_to_graph must return an opgraph.Graph",
            callable_name(func),
            crate::convert::type_name(&returned)
        ))
    })?;
    let body = graph.borrow().graph.clone();
    Ok(body)
}

fn failure(func: &Bound<'_, PyAny>, e: PyErr) -> PluginError {
    PluginError::with_source(raised_message(func, &e), Box::new(e))
}
