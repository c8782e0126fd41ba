//! Registering op types from Python: prototypes from plain data, Python
//! functions as core callbacks, and prototypes read back for inspection.

use crate::context::{borrowed_context, expire, ContextKind};
use crate::convert::type_name;
use crate::convert::{
    attr_from_py, attr_to_py, attr_type_from_name, dtype_from_py, dtype_to_py, format_from_py,
    format_to_py,
};
use crate::errors::{callable_name, raised_message, registration_err};
use opgraph_core::infer::{Abort, OpContext};
use opgraph_core::op::{
    global_registry, register_global, FollowType, OpError, OpFn, OpOrigin, OpSchema, ParamType,
    PortDef, ValueDepend, WeightShapesFn,
};
use opgraph_core::types::{RangeProblem, Shape};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyMapping};
use std::sync::Arc;

/// A Python callable as a core op function. The context handed to it is
/// expired when it returns; an exception becomes the error's source.
fn py_op_fn(func: Py<PyAny>, kind: ContextKind) -> OpFn {
    Arc::new(move |ctx: &mut OpContext<'_>| Python::attach(|py| call(py, &func, kind, ctx)))
}

/// Calls `func` with a `kind` context borrowing `ctx`, expired when the
/// call returns; an exception becomes the error's source.
fn call_with_context<'py>(
    py: Python<'py>,
    func: &Py<PyAny>,
    kind: ContextKind,
    ctx: &mut OpContext<'_>,
) -> Result<Bound<'py, PyAny>, OpError> {
    let ptr = (ctx as *mut OpContext<'_>).cast::<OpContext<'static>>();
    // SAFETY: `ctx` outlives this call and is used only through the context
    // object until `expire` below, which runs before `ctx` is touched again.
    let obj = unsafe { borrowed_context(py, kind, ptr) }.map_err(|e| failure(py, func, e))?;
    let result = func.bind(py).call1((&obj,));
    expire(&obj);
    result.map_err(|e| failure(py, func, e))
}

fn call(
    py: Python<'_>,
    func: &Py<PyAny>,
    kind: ContextKind,
    ctx: &mut OpContext<'_>,
) -> Result<(), OpError> {
    let returned = call_with_context(py, func, kind, ctx)?;
    let got = || {
        let repr = returned.repr().map(|r| r.to_string()).unwrap_or_default();
        format!(
            "{} returned {} {repr}",
            describe(py, func),
            type_name(&returned)
        )
    };
    match kind {
        ContextKind::Verify => match verdict(&returned) {
            Some(true) => Ok(()),
            Some(false) => Err(OpError::new(format!(
                "{} returned False",
                describe(py, func)
            ))),
            None => Err(mistake(format!(
                "{}; a verify function returns True or None to accept the node, False (or \
                 raises) to reject it",
                got()
            ))),
        },
        _ if !returned.is_none() => Err(mistake(format!(
            "{}; an {} function sets its outputs through the context (ctx.set_output_{}) and \
             returns None",
            got(),
            if kind == ContextKind::InferShape {
                "infer_shape"
            } else {
                "infer_dtype"
            },
            if kind == ContextKind::InferShape {
                "shape"
            } else {
                "dtype"
            },
        ))),
        ContextKind::InferShape => output_ranges_fit(py, func, ctx),
        ContextKind::InferDtype => Ok(()),
    }
}

/// A user function's mistake (what it returned or set), with a Python
/// TypeError of the same words as its cause: the function is at fault, not
/// the node's inputs, so an infer_shape one is an InferShapeError rather than
/// an InvalidShapeError.
fn mistake(message: String) -> OpError {
    let cause = PyTypeError::new_err(message.clone());
    OpError::with_source(message, Box::new(cause))
}

/// A verify function's verdict: None and True accept, False rejects
/// (numpy's bool too); anything else is no verdict.
fn verdict(returned: &Bound<'_, PyAny>) -> Option<bool> {
    if returned.is_none() {
        return Some(true);
    }
    let ty = returned.get_type();
    let numpy_bool = ty.module().is_ok_and(|m| m == "numpy")
        && ty.name().is_ok_and(|n| n == "bool" || n == "bool_");
    if returned.is_instance_of::<PyBool>() || numpy_bool {
        return returned.is_truthy().ok();
    }
    None
}

/// Every shape range an infer_shape function set fits its output's shape.
fn output_ranges_fit(py: Python<'_>, func: &Py<PyAny>, ctx: &OpContext<'_>) -> Result<(), OpError> {
    for i in 0..ctx.output_count() {
        let Some(desc) = ctx.output_desc(i) else {
            continue;
        };
        let Some(problem) = desc.shape_range_problem() else {
            continue;
        };
        let ranges = desc.shape_range.as_deref().unwrap_or_default();
        let why = match problem {
            RangeProblem::Count { ranges: n, .. } => {
                format!("it needs one (min, max) per dim, got {n}")
            }
            RangeProblem::Dim {
                dim,
                range: (lo, hi),
                size,
            } => format!(
                "dim {dim}'s range ({lo}, {hi}) is not a range of sizes (0 <= min <= max, max -1 \
                 for unbounded) holding the dim ({size})"
            ),
        };
        return Err(mistake(format!(
            "{} gave output {i} the shape range {ranges:?}, which does not fit its shape {}: {why}",
            describe(py, func),
            desc.shape()
        )));
    }
    Ok(())
}

/// A Python callable as an op's `weight_shapes`: it reads a VerifyContext
/// (the node's attributes and inferred inputs) and returns a mapping from
/// input index to the shape that weight input needs (-1: still unknown).
fn py_weight_shapes_fn(func: Py<PyAny>) -> WeightShapesFn {
    Arc::new(move |ctx: &mut OpContext<'_>| {
        Python::attach(|py| {
            let returned = call_with_context(py, &func, ContextKind::Verify, ctx)?;
            weight_shapes_from_py(&returned).map_err(|why| {
                OpError::new(format!(
                    "{} returned {}: {why}; a weight_shapes function returns a dict from input \
                     index to shape (a sequence of ints, each a size or -1)",
                    describe(py, &func),
                    returned.repr().map(|r| r.to_string()).unwrap_or_default()
                ))
            })
        })
    })
}

fn weight_shapes_from_py(value: &Bound<'_, PyAny>) -> Result<Vec<(usize, Shape)>, String> {
    let mapping = value
        .cast::<PyMapping>()
        .map_err(|_| format!("a {}, not a dict", type_name(value)))?;
    let items = mapping.items().map_err(|e| e.to_string())?;
    let mut shapes = Vec::new();
    for item in items.iter() {
        let (key, dims) = item
            .extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>()
            .map_err(|e| e.to_string())?;
        let index: usize = key
            .extract()
            .map_err(|_| format!("key {key} is not an input index (an int >= 0)"))?;
        let dims: Vec<i64> = dims
            .extract()
            .map_err(|_| format!("input {index}'s shape {dims} is not a sequence of ints"))?;
        if let Some(d) = dims.iter().find(|&&d| d < -1) {
            return Err(format!("input {index}'s shape {dims:?} has dim {d}"));
        }
        shapes.push((index, Shape::from_dims(&dims)));
    }
    Ok(shapes)
}

fn describe(py: Python<'_>, func: &Py<PyAny>) -> String {
    callable_name(func.bind(py))
}

/// The error of a function that raised `e`; a KeyboardInterrupt or
/// SystemExit (no Exception) stops the whole inference.
fn failure(py: Python<'_>, func: &Py<PyAny>, e: PyErr) -> OpError {
    let message = raised_message(func.bind(py), &e);
    if e.is_instance_of::<pyo3::exceptions::PyException>(py) {
        OpError::with_source(message, Box::new(e))
    } else {
        OpError::with_source(message, Box::new(Abort(Box::new(e))))
    }
}

fn param_type(value: u8) -> PyResult<ParamType> {
    Ok(match value {
        0 => ParamType::Required,
        1 => ParamType::Optional,
        2 => ParamType::Dynamic,
        _ => return Err(PyValueError::new_err(format!("{value} is not a ParamType"))),
    })
}

fn follow_type(value: u8) -> PyResult<FollowType> {
    Ok(match value {
        0 => FollowType::All,
        1 => FollowType::Dtype,
        2 => FollowType::Format,
        3 => FollowType::Shape,
        _ => {
            return Err(PyValueError::new_err(format!(
                "{value} is not a FollowType"
            )))
        }
    })
}

fn value_depend(value: u8) -> PyResult<ValueDepend> {
    Ok(match value {
        0 => ValueDepend::Required,
        1 => ValueDepend::Optional,
        _ => {
            return Err(PyValueError::new_err(format!(
                "{value} is not a ValueDepend"
            )))
        }
    })
}

/// One port from `(name, param_type, dtypes, dtype_list, formats,
/// value_depend, follow, reuses_input)`.
type PortSpec<'py> = (
    String,
    u8,
    Vec<Bound<'py, PyAny>>,
    bool,
    Vec<Bound<'py, PyAny>>,
    Option<u8>,
    Option<(String, u8)>,
    Option<String>,
);

fn port_from_spec(spec: PortSpec<'_>) -> PyResult<PortDef> {
    let (name, param, dtypes, dtype_list, formats, depend, follow, reuses) = spec;
    let mut port = PortDef::new(name, param_type(param)?);
    port.dtypes = dtypes.iter().map(dtype_from_py).collect::<PyResult<_>>()?;
    port.dtype_list = dtype_list;
    port.formats = formats
        .iter()
        .map(format_from_py)
        .collect::<PyResult<_>>()?;
    port.value_depend = depend.map(value_depend).transpose()?;
    if let Some((target, kind)) = follow {
        port = port.follow(target, follow_type(kind)?);
    }
    port.reuses_input = reuses;
    Ok(port)
}

/// Registers an op type described by plain data (the typed `opgraph.OpDef`
/// builds these arguments). `attrs` holds `(name, type_name, default)`
/// where a missing default is passed as `has_default=False`.
#[pyfunction]
#[pyo3(signature = (op_type, inputs, outputs, attrs, verify = None, infer_dtype = None, infer_shape = None, allow_override = false, extra_attrs = false, weight_shapes = None))]
#[allow(clippy::too_many_arguments)]
pub fn register_op(
    py: Python<'_>,
    op_type: String,
    inputs: Vec<PortSpec<'_>>,
    outputs: Vec<PortSpec<'_>>,
    attrs: Vec<(String, String, bool, Bound<'_, PyAny>)>,
    verify: Option<Py<PyAny>>,
    infer_dtype: Option<Py<PyAny>>,
    infer_shape: Option<Py<PyAny>>,
    allow_override: bool,
    extra_attrs: bool,
    weight_shapes: Option<Py<PyAny>>,
) -> PyResult<()> {
    let mut schema = OpSchema::new(op_type);
    schema.origin = OpOrigin::User;
    schema.extra_attrs = extra_attrs;
    for port in inputs {
        schema = schema.input(port_from_spec(port)?);
    }
    for port in outputs {
        schema = schema.output(port_from_spec(port)?);
    }
    for (name, ty, has_default, default) in attrs {
        let default = if has_default {
            let value = attr_from_py(&default).map_err(|e| {
                let op_type = &schema.op_type;
                PyTypeError::new_err(format!(
                    "op '{op_type}' attribute '{name}': the default {}: {}",
                    default.repr().map(|r| r.to_string()).unwrap_or_default(),
                    e.value(py)
                ))
            })?;
            Some(value)
        } else {
            None
        };
        schema = schema.attr(&name, attr_type_from_name(&ty)?, default);
    }
    schema.verify = verify.map(|f| py_op_fn(f, ContextKind::Verify));
    schema.infer_dtype = infer_dtype.map(|f| py_op_fn(f, ContextKind::InferDtype));
    schema.infer_shape = infer_shape.map(|f| py_op_fn(f, ContextKind::InferShape));
    schema.weight_shapes = weight_shapes.map(py_weight_shapes_fn);
    register_global(schema, allow_override).map_err(|e| registration_err(py, &e))
}

/// Registered op types, sorted.
#[pyfunction]
pub fn registered_op_types() -> Vec<String> {
    global_registry()
        .op_types()
        .into_iter()
        .map(String::from)
        .collect()
}

/// The prototype of `op_type` as plain data, or None when not registered.
#[pyfunction]
pub fn op_schema<'py>(py: Python<'py>, op_type: &str) -> PyResult<Option<Bound<'py, PyDict>>> {
    let registry = global_registry();
    let Some(schema) = registry.get(op_type) else {
        return Ok(None);
    };
    let out = PyDict::new(py);
    out.set_item("op_type", &schema.op_type)?;
    out.set_item("inputs", ports_to_py(py, &schema.inputs)?)?;
    out.set_item("outputs", ports_to_py(py, &schema.outputs)?)?;
    let attrs = PyList::empty(py);
    for def in &schema.attrs {
        let attr = PyDict::new(py);
        attr.set_item("name", &def.name)?;
        attr.set_item("type", def.ty.name())?;
        if let Some(default) = &def.default {
            attr.set_item("default", attr_to_py(py, default)?)?;
        }
        attrs.append(attr)?;
    }
    out.set_item("attrs", attrs)?;
    out.set_item("has_verify", schema.verify.is_some())?;
    out.set_item("has_infer_dtype", schema.infer_dtype.is_some())?;
    out.set_item("has_infer_shape", schema.infer_shape.is_some())?;
    out.set_item("builtin", schema.origin == OpOrigin::Builtin)?;
    out.set_item("extra_attrs", schema.extra_attrs)?;
    out.set_item("optional_attrs", schema.optional_attrs.clone())?;
    Ok(Some(out))
}

fn ports_to_py<'py>(py: Python<'py>, ports: &[PortDef]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for port in ports {
        let d = PyDict::new(py);
        d.set_item("name", &port.name)?;
        d.set_item("param_type", port.param_type as u8)?;
        let dtypes = port
            .dtypes
            .iter()
            .map(|&t| dtype_to_py(py, t))
            .collect::<PyResult<Vec<_>>>()?;
        d.set_item("dtypes", dtypes)?;
        d.set_item("dtype_list", port.dtype_list)?;
        let formats = port
            .formats
            .iter()
            .map(|&f| format_to_py(py, f))
            .collect::<PyResult<Vec<_>>>()?;
        d.set_item("formats", formats)?;
        d.set_item("value_depend", port.value_depend.map(|v| v as u8))?;
        d.set_item(
            "follow",
            port.follow.as_ref().map(|f| (f.port.clone(), f.kind as u8)),
        )?;
        d.set_item("reuses_input", port.reuses_input.as_deref())?;
        list.append(d)?;
    }
    Ok(list)
}

/// TEST ONLY (used by tests/test_internal_errors.py; not part of the API):
/// registers op type `op_type` (one input, one output) whose shape function
/// panics, so the tests can drive a real engine panic through the same
/// path a bug in a built-in op would take and check it comes out as an
/// InternalError that poisons the graph.
#[pyfunction]
pub fn _register_panicking_op(op_type: &str) -> PyResult<()> {
    let schema = OpSchema::new(op_type)
        .input(PortDef::new("x", ParamType::Required))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .infer_shape(Arc::new(|_: &mut OpContext<'_>| {
            panic!("deliberate test panic in a shape function")
        }));
    register_global(schema, true).map_err(|e| Python::attach(|py| registration_err(py, &e)))
}
