//! The contexts Python verify / infer functions receive. A context wraps the
//! engine's `OpContext` for the duration of one call (after which it is
//! expired), or owns a one-node graph when built with `standalone(...)` so
//! authors can unit-test their functions.

use crate::convert::{
    attr_to_py, dtype_from_py, dtype_to_py, format_from_py, format_to_py, shape_from_py,
    shape_to_py, tensor_to_py,
};
use crate::errors::context_err;
use crate::tensor_desc::PyTensorDesc;
use opgraph_core::builder::{add_op, OpSpec, PortInput};
use opgraph_core::graph::{Graph, NodeId, OutputRef};
use opgraph_core::infer::OpContext;
use opgraph_core::op::{global_registry, OpError, OpSchema};
use opgraph_core::types::{AttrValue, Shape, TensorDesc};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyTuple};
use smallvec::SmallVec;
use std::cell::RefCell;
use std::sync::Arc;

/// Which of the three context classes a function receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContextKind {
    Verify,
    InferDtype,
    InferShape,
}

/// A node in a private graph, for contexts built outside an engine run.
pub struct Standalone {
    graph: Graph,
    node: NodeId,
    schema: Arc<OpSchema>,
}

enum Access {
    /// The engine's context, valid only while the Python function runs.
    Borrowed(*mut OpContext<'static>),
    Owned(Box<Standalone>),
    Expired,
}

/// Base class of the three contexts: node identity, inputs, attributes.
#[pyclass(module = "opgraph._core", name = "OpContext", subclass, unsendable)]
pub struct PyOpContext {
    access: RefCell<Access>,
}

/// What a verify function receives: the node's inputs and attributes
/// (everything :class:`OpContext` reads). The function returns ``False`` or
/// raises to reject the node.
///
/// Build one with :meth:`standalone` to unit-test a verify function.
#[pyclass(module = "opgraph._core", name = "VerifyContext", extends = PyOpContext, unsendable)]
pub struct PyVerifyContext;

/// What an infer-dtype function receives: :class:`OpContext`'s reads plus
/// :meth:`set_output_dtype`. Build one with :meth:`standalone` to unit-test
/// an infer-dtype function.
#[pyclass(module = "opgraph._core", name = "InferDataTypeContext", extends = PyOpContext, unsendable)]
pub struct PyInferDataTypeContext;

/// What an infer-shape function receives: :class:`OpContext`'s reads plus
/// setters for each output's shape, shape range and format.
///
/// Build one with :meth:`standalone` to unit-test an infer-shape function; a
/// DYNAMIC input is given as a list of descriptors, and its instances are
/// numbered after the inputs before it:
///
/// >>> from opgraph import DataType, InferShapeContext, TensorDesc
/// >>> ctx = InferShapeContext.standalone(
/// ...     "ConcatD",
/// ...     [[TensorDesc(DataType.FLOAT, [2, 3]), TensorDesc(DataType.FLOAT, [4, 3])]],
/// ...     {"concat_dim": 0},
/// ... )
/// >>> ctx.dynamic_input_count(0), ctx.dynamic_input_shape(0, 1), ctx.input_shape(1)
/// (2, (4, 3), (4, 3))
/// >>> ctx.set_output_shape(0, [6, 3])
/// >>> ctx.output_desc(0).shape
/// (6, 3)
#[pyclass(module = "opgraph._core", name = "InferShapeContext", extends = PyOpContext, unsendable)]
pub struct PyInferShapeContext;

/// A context of `kind` over the engine's `ctx`.
///
/// # Safety
/// `ctx` must stay valid and otherwise unused until [`expire`] is called on
/// the returned object; the engine guarantees this by calling the Python
/// function synchronously and expiring the context right after it returns.
pub unsafe fn borrowed_context<'py>(
    py: Python<'py>,
    kind: ContextKind,
    ctx: *mut OpContext<'static>,
) -> PyResult<Bound<'py, PyOpContext>> {
    make(py, kind, Access::Borrowed(ctx))
}

fn make<'py>(
    py: Python<'py>,
    kind: ContextKind,
    access: Access,
) -> PyResult<Bound<'py, PyOpContext>> {
    let base = PyClassInitializer::from(PyOpContext {
        access: RefCell::new(access),
    });
    let obj = match kind {
        ContextKind::Verify => Bound::new(py, base.add_subclass(PyVerifyContext))?.into_any(),
        ContextKind::InferDtype => {
            Bound::new(py, base.add_subclass(PyInferDataTypeContext))?.into_any()
        }
        ContextKind::InferShape => {
            Bound::new(py, base.add_subclass(PyInferShapeContext))?.into_any()
        }
    };
    Ok(obj.cast_into::<PyOpContext>()?)
}

/// Ends a borrowed context's validity (its engine call has returned).
pub fn expire(obj: &Bound<'_, PyOpContext>) {
    let base = obj.borrow();
    let mut access = base.access.borrow_mut();
    if matches!(*access, Access::Borrowed(_)) {
        *access = Access::Expired;
    }
}

fn op_err(py: Python<'_>, e: OpError) -> PyErr {
    context_err(py, e.message)
}

impl PyOpContext {
    /// Runs `f` on the live context. Values returned by `f` cannot borrow
    /// from the context (the closure is generic over its lifetime).
    fn with<R>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut OpContext<'_>) -> Result<R, OpError>,
    ) -> PyResult<R> {
        let mut access = self
            .access
            .try_borrow_mut()
            .map_err(|_| context_err(py, "the context is already in use"))?;
        match &mut *access {
            // SAFETY: see `borrowed_context`; the pointer is live until `expire`.
            Access::Borrowed(ptr) => f(unsafe { &mut **ptr }).map_err(|e| op_err(py, e)),
            Access::Owned(standalone) => standalone.with(f).map_err(|e| op_err(py, e)),
            Access::Expired => Err(context_err(
                py,
                "this context is no longer valid: contexts can only be used during the function call that received them",
            )),
        }
    }
}

impl Standalone {
    fn with<R>(
        &mut self,
        f: impl FnOnce(&mut OpContext<'_>) -> Result<R, OpError>,
    ) -> Result<R, OpError> {
        let mut outputs = std::mem::take(&mut self.graph.node_mut(self.node).outputs);
        let result = {
            let node = self.graph.node(self.node);
            let inputs: SmallVec<[Option<&TensorDesc>; 6]> = node
                .inputs
                .iter()
                .map(|e| e.map(|e| self.graph.tensor(e)))
                .collect();
            let mut ctx = OpContext::new(node, &self.schema, &inputs, &mut outputs);
            f(&mut ctx)
        };
        self.graph.node_mut(self.node).outputs = outputs;
        result
    }
}

fn desc_obj(py: Python<'_>, desc: Option<TensorDesc>) -> PyResult<Option<Py<PyTensorDesc>>> {
    desc.map(|desc| Py::new(py, PyTensorDesc { desc }))
        .transpose()
}

#[pymethods]
impl PyOpContext {
    /// The name of the node being checked or inferred.
    #[getter]
    fn node_name(&self, py: Python<'_>) -> PyResult<String> {
        self.with(py, |c| Ok(c.node_name().to_owned()))
    }

    /// The node's op type.
    #[getter]
    fn op_type(&self, py: Python<'_>) -> PyResult<String> {
        self.with(py, |c| Ok(c.op_type().to_owned()))
    }

    /// Number of input instances (absent optional inputs included).
    fn input_count(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |c| Ok(c.input_count()))
    }

    /// Descriptor of input instance `i`, or None when it is absent.
    fn input_desc(&self, py: Python<'_>, i: usize) -> PyResult<Option<Py<PyTensorDesc>>> {
        let desc = self.with(py, |c| Ok(c.input_desc(i).cloned()))?;
        desc_obj(py, desc)
    }

    /// Origin shape of input instance ``i`` (``-1``: unknown dim, ``(-2,)``:
    /// unknown rank). Raises :class:`~opgraph.ContextError` when ``i`` is out of
    /// range or the input is absent.
    fn input_shape<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyTuple>> {
        let shape = self.with(py, |c| Ok(c.input_shape(i)?.clone()))?;
        shape_to_py(py, &shape)
    }

    /// Dtype of input instance ``i``; :class:`~opgraph.ContextError` as :meth:`input_shape`.
    fn input_dtype<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        let dtype = self.with(py, |c| c.input_dtype(i))?;
        dtype_to_py(py, dtype)
    }

    /// Origin format of input instance ``i``; :class:`~opgraph.ContextError` as :meth:`input_shape`.
    fn input_format<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        let format = self.with(py, |c| Ok(c.input(i)?.origin_format))?;
        format_to_py(py, format)
    }

    /// Shape of optional prototype input `ir_index`, or None when absent.
    fn optional_input_shape<'py>(
        &self,
        py: Python<'py>,
        ir_index: usize,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let shape = self.with(py, |c| {
            Ok(c.optional_input_desc(ir_index)?.map(|d| d.shape().clone()))
        })?;
        shape.map(|s| shape_to_py(py, &s)).transpose()
    }

    /// Descriptor of OPTIONAL prototype input ``ir_index``, or None when absent.
    fn optional_input_desc(
        &self,
        py: Python<'_>,
        ir_index: usize,
    ) -> PyResult<Option<Py<PyTensorDesc>>> {
        let desc = self.with(py, |c| Ok(c.optional_input_desc(ir_index)?.cloned()))?;
        desc_obj(py, desc)
    }

    /// How many instances DYNAMIC prototype input ``ir_index`` has on this node.
    fn dynamic_input_count(&self, py: Python<'_>, ir_index: usize) -> PyResult<usize> {
        self.with(py, |c| c.dynamic_input_count(ir_index))
    }

    /// Shape of instance ``relative_index`` of DYNAMIC prototype input
    /// ``ir_index``. Raises :class:`~opgraph.ContextError` when either index is
    /// out of range.
    fn dynamic_input_shape<'py>(
        &self,
        py: Python<'py>,
        ir_index: usize,
        relative_index: usize,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let shape = self.with(py, |c| {
            Ok(c.dynamic_input_desc(ir_index, relative_index)?
                .shape()
                .clone())
        })?;
        shape_to_py(py, &shape)
    }

    /// Dtype of instance ``relative_index`` of DYNAMIC prototype input ``ir_index``.
    fn dynamic_input_dtype<'py>(
        &self,
        py: Python<'py>,
        ir_index: usize,
        relative_index: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        let dtype = self.with(py, |c| {
            Ok(c.dynamic_input_desc(ir_index, relative_index)?.dtype)
        })?;
        dtype_to_py(py, dtype)
    }

    /// Descriptor of instance ``relative_index`` of DYNAMIC prototype input ``ir_index``.
    fn dynamic_input_desc(
        &self,
        py: Python<'_>,
        ir_index: usize,
        relative_index: usize,
    ) -> PyResult<Py<PyTensorDesc>> {
        let desc = self.with(py, |c| {
            Ok(c.dynamic_input_desc(ir_index, relative_index)?.clone())
        })?;
        Py::new(py, PyTensorDesc { desc })
    }

    /// Host value of input instance `i` as a numpy array: only for inputs
    /// the prototype marks value-depend, and only when the value is known.
    fn input_tensor<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Option<Bound<'py, PyAny>>> {
        let value = self.with(py, |c| Ok(c.input_value(i).cloned()))?;
        value.map(|v| tensor_to_py(py, &v)).transpose()
    }

    /// Input instance `i` read as a shape vector: its value when known, else
    /// what value folding knows element by element (-1 unknown), else None.
    fn input_shape_value<'py>(
        &self,
        py: Python<'py>,
        i: usize,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let shape = self.with(py, |c| Ok(c.input_shape_value(i)))?;
        shape.map(|s| shape_to_py(py, &s)).transpose()
    }

    /// Attribute by name, or by position in the prototype's attribute list;
    /// the prototype default when the node does not set it.
    fn attr<'py>(&self, py: Python<'py>, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let value = if key.is_instance_of::<PyInt>() {
            let index: usize = key.extract()?;
            self.with(py, |c| {
                c.attr_at(index).map(|(_, v)| v.clone()).ok_or_else(|| {
                    OpError::new(format!("the prototype has no attribute at index {index}"))
                })
            })?
        } else {
            let name: String = key.extract()?;
            self.with(py, |c| {
                c.attr(&name).cloned().ok_or_else(|| {
                    OpError::new(format!("attribute '{name}' is not set and has no default"))
                })
            })?
        };
        attr_to_py(py, &value)
    }

    /// Whether attribute ``name`` has a value (set on the node, or a prototype default).
    fn has_attr(&self, py: Python<'_>, name: &str) -> PyResult<bool> {
        self.with(py, |c| Ok(c.attr(name).is_some()))
    }

    /// Attribute ``name`` as an int. Raises :class:`~opgraph.ContextError` when
    /// it is missing or not an int. The other ``attr_*`` readers work alike.
    fn attr_int(&self, py: Python<'_>, name: &str) -> PyResult<i64> {
        self.with(py, |c| c.attr_int(name))
    }

    /// Attribute ``name`` as a float (errors as :meth:`attr_int`).
    fn attr_float(&self, py: Python<'_>, name: &str) -> PyResult<f64> {
        self.with(py, |c| c.attr_float(name))
    }

    /// Attribute ``name`` as a bool (errors as :meth:`attr_int`).
    fn attr_bool(&self, py: Python<'_>, name: &str) -> PyResult<bool> {
        self.with(py, |c| c.attr_bool(name))
    }

    /// Attribute ``name`` as a str (errors as :meth:`attr_int`).
    fn attr_str(&self, py: Python<'_>, name: &str) -> PyResult<String> {
        self.with(py, |c| Ok(c.attr_str(name)?.to_owned()))
    }

    /// Attribute ``name`` as a :class:`~opgraph.DataType` (errors as :meth:`attr_int`).
    fn attr_dtype<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let dtype = self.with(py, |c| c.attr_dtype(name))?;
        dtype_to_py(py, dtype)
    }

    /// Attribute ``name`` as a list of ints (errors as :meth:`attr_int`).
    fn attr_list_int(&self, py: Python<'_>, name: &str) -> PyResult<Vec<i64>> {
        self.with(py, |c| Ok(c.attr_ints(name)?.to_vec()))
    }

    /// Attribute ``name`` as a list of floats (errors as :meth:`attr_int`).
    fn attr_list_float(&self, py: Python<'_>, name: &str) -> PyResult<Vec<f64>> {
        self.with(py, |c| match c.attr(name) {
            Some(AttrValue::ListFloat(v)) => Ok(v.clone()),
            Some(AttrValue::ListInt(v)) => Ok(v.iter().map(|&i| i as f64).collect()),
            Some(other) => Err(OpError::new(format!(
                "attribute '{name}' is a {}, expected list[float]",
                other.attr_type()
            ))),
            None => Err(OpError::new(format!("attribute '{name}' is missing"))),
        })
    }

    /// Attribute ``name`` as a list of strs (errors as :meth:`attr_int`).
    fn attr_list_str(&self, py: Python<'_>, name: &str) -> PyResult<Vec<String>> {
        self.with(py, |c| match c.attr(name) {
            Some(AttrValue::ListStr(v)) => Ok(v.clone()),
            Some(other) => Err(OpError::new(format!(
                "attribute '{name}' is a {}, expected list[str]",
                other.attr_type()
            ))),
            None => Err(OpError::new(format!("attribute '{name}' is missing"))),
        })
    }

    /// Number of output instances (DYNAMIC outputs counted per instance).
    fn output_count(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |c| Ok(c.output_count()))
    }

    /// The output as set so far in this call.
    fn output_desc(&self, py: Python<'_>, i: usize) -> PyResult<Py<PyTensorDesc>> {
        let desc = self.with(py, |c| {
            c.output_desc(i)
                .cloned()
                .ok_or_else(|| OpError::new(format!("output {i} is out of range")))
        })?;
        Py::new(py, PyTensorDesc { desc })
    }
}

#[pymethods]
impl PyInferShapeContext {
    /// Sets the shape of output instance `i` (a sequence of ints; -1 unknown
    /// dim, (-2,) unknown rank).
    fn set_output_shape(slf: PyRef<'_, Self>, i: usize, shape: &Bound<'_, PyAny>) -> PyResult<()> {
        let shape: Shape = shape_from_py(shape)?;
        slf.as_super()
            .with(slf.py(), |c| c.set_output_shape(i, shape))
    }

    /// Sets inclusive (min, max) ranges per dim; max -1 is unbounded.
    fn set_output_shape_range(
        slf: PyRef<'_, Self>,
        i: usize,
        ranges: Vec<(i64, i64)>,
    ) -> PyResult<()> {
        slf.as_super()
            .with(slf.py(), |c| c.set_output_shape_range(i, ranges))
    }

    /// Sets the origin format of output instance ``i`` (a :class:`~opgraph.Format` or its name).
    fn set_output_format(
        slf: PyRef<'_, Self>,
        i: usize,
        format: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let format = format_from_py(format)?;
        slf.as_super()
            .with(slf.py(), |c| c.set_output_format(i, format))
    }

    /// A context over a one-node graph of ``op_type`` (a registered type), to
    /// unit-test an infer-shape function. ``inputs`` gives one entry per prototype
    /// input: a :class:`TensorDesc`, None for an absent OPTIONAL input, or a list
    /// of descriptors for a DYNAMIC input. ``attrs`` are the node's attributes.
    /// Raises :class:`~opgraph.UnknownOpTypeError` for an unregistered type and
    /// :class:`~opgraph.GraphError` when the inputs do not fit the prototype.
    #[staticmethod]
    #[pyo3(signature = (op_type, inputs, attrs = None, *, name = "node"))]
    fn standalone<'py>(
        py: Python<'py>,
        op_type: &str,
        inputs: &Bound<'py, PyAny>,
        attrs: Option<&Bound<'py, PyDict>>,
        name: &str,
    ) -> PyResult<Bound<'py, PyOpContext>> {
        standalone(py, ContextKind::InferShape, op_type, inputs, attrs, name)
    }
}

#[pymethods]
impl PyInferDataTypeContext {
    /// Sets the dtype of output instance ``i``.
    fn set_output_dtype(slf: PyRef<'_, Self>, i: usize, dtype: &Bound<'_, PyAny>) -> PyResult<()> {
        let dtype = dtype_from_py(dtype)?;
        slf.as_super()
            .with(slf.py(), |c| c.set_output_dtype(i, dtype))
    }

    /// A context over a one-node graph of ``op_type``, to unit-test an
    /// infer-dtype function; arguments as :meth:`InferShapeContext.standalone`.
    #[staticmethod]
    #[pyo3(signature = (op_type, inputs, attrs = None, *, name = "node"))]
    fn standalone<'py>(
        py: Python<'py>,
        op_type: &str,
        inputs: &Bound<'py, PyAny>,
        attrs: Option<&Bound<'py, PyDict>>,
        name: &str,
    ) -> PyResult<Bound<'py, PyOpContext>> {
        standalone(py, ContextKind::InferDtype, op_type, inputs, attrs, name)
    }
}

#[pymethods]
impl PyVerifyContext {
    /// A context over a one-node graph of ``op_type``, to unit-test a verify
    /// function; arguments as :meth:`InferShapeContext.standalone`.
    #[staticmethod]
    #[pyo3(signature = (op_type, inputs, attrs = None, *, name = "node"))]
    fn standalone<'py>(
        py: Python<'py>,
        op_type: &str,
        inputs: &Bound<'py, PyAny>,
        attrs: Option<&Bound<'py, PyDict>>,
        name: &str,
    ) -> PyResult<Bound<'py, PyOpContext>> {
        standalone(py, ContextKind::Verify, op_type, inputs, attrs, name)
    }
}

/// A context over a one-node graph whose inputs are `inputs` (per prototype
/// input: a TensorDesc, None for an absent optional input, or a list for a
/// dynamic input).
fn standalone<'py>(
    py: Python<'py>,
    kind: ContextKind,
    op_type: &str,
    inputs: &Bound<'py, PyAny>,
    attrs: Option<&Bound<'py, PyDict>>,
    name: &str,
) -> PyResult<Bound<'py, PyOpContext>> {
    let registry = global_registry();
    let schema = registry.get(op_type).cloned().ok_or_else(|| {
        crate::errors::build_err(
            py,
            &opgraph_core::builder::BuildError::UnknownOp {
                node: name.into(),
                op_type: op_type.into(),
            },
        )
    })?;
    let mut graph = Graph::new("standalone");
    let mut ports = Vec::new();
    let feed = |graph: &mut Graph, obj: &Bound<'py, PyAny>| -> PyResult<OutputRef> {
        let desc = obj.cast::<PyTensorDesc>()?.get().desc.clone();
        let input_name = format!("input{}", graph.len());
        graph
            .add_input_node(&input_name, desc)
            .map_err(|e| crate::errors::graph_err(py, &e))
    };
    for item in inputs.try_iter()? {
        let item = item?;
        ports.push(if item.is_none() {
            PortInput::Single(None)
        } else if item.cast::<PyTensorDesc>().is_ok() {
            PortInput::Single(Some(feed(&mut graph, &item)?))
        } else {
            let many = item
                .try_iter()?
                .map(|i| feed(&mut graph, &i?))
                .collect::<PyResult<Vec<_>>>()?;
            PortInput::Many(many)
        });
    }
    let spec = OpSpec {
        op_type: op_type.into(),
        name: name.into(),
        inputs: ports,
        attrs: attrs
            .map(crate::convert::attrs_from_py)
            .transpose()?
            .unwrap_or_default(),
        ..OpSpec::default()
    };
    let node = add_op(&mut graph, &registry, spec).map_err(|e| crate::errors::build_err(py, &e))?;
    make(
        py,
        kind,
        Access::Owned(Box::new(Standalone {
            graph,
            node,
            schema,
        })),
    )
}
