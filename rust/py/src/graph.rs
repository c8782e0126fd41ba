//! `Graph` with its builder API, tensor handles, and read-only snapshots of
//! nodes (tensor descriptors are in `tensor_desc`, the checks behind the
//! input-setting methods in `graph_inputs`).

use crate::budget::{bytes_per_node, ensure_room};
use crate::convert::{
    attr_from_py, attrs_from_py, attrs_to_py, format_from_py, tensor_from_py, type_name,
};
use crate::errors::{
    build_err, device_error, exception, graph_err, graph_error, guard_panics, internal_error,
    new_error,
};
use crate::graph_inputs::{self, find_node};
use crate::tensor_desc::PyTensorDesc;
use opgraph_core::builder::{add_op, OpSpec, PortInput};
use opgraph_core::graph::{Graph, Node, NodeId, OutputRef, Subgraph};
use opgraph_core::op::{global_registry, OpRegistry};
use opgraph_core::types::TensorDesc;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyMapping};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

static NEXT_GRAPH_ID: AtomicU64 = AtomicU64::new(1);

/// A computation graph; `add_*` methods build it, `opgraph.infer` infers it.
///
/// ``Graph(name="graph")`` is empty. Nodes are addressed by name and tensors
/// by :class:`TensorRef` handles, which ``add_input``, ``add_const`` and
/// ``add_node`` return:
///
/// >>> import opgraph
/// >>> from opgraph import DataType, Graph
/// >>> g = Graph("net")
/// >>> x = g.add_input("x", DataType.FLOAT, [2, 3])
/// >>> y = g.add_node("Relu", "relu", [x])
/// >>> opgraph.infer(g)
/// []
/// >>> g.desc(y)
/// TensorDesc(float[2, 3], ND)
#[pyclass(module = "opgraph._core", name = "Graph")]
pub struct PyGraph {
    pub graph: Graph,
    /// Identifies this graph so handles from another graph are rejected.
    id: u64,
    /// Set when a pass may have left this graph half updated (an internal
    /// error, or `prepare` failing midway): every later use raises.
    poisoned: OnceLock<Unusable>,
}

/// Why a graph may not be used again.
struct Unusable {
    /// An internal error (raised again as InternalError), or a DeviceError
    /// from `prepare` after it had stored some tensors.
    internal: bool,
    /// The first error's message.
    error: String,
}

/// A handle to one output of one node of a particular graph.
#[pyclass(module = "opgraph._core", name = "TensorRef", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct TensorRef {
    graph_id: u64,
    node: NodeId,
    index: u32,
    node_name: String,
}

/// A read-only snapshot of a node, taken when it was requested.
#[pyclass(module = "opgraph._core", name = "Node", frozen)]
pub struct PyNode {
    node: Node,
    /// Producer name and output index per input instance.
    sources: Vec<Option<(String, u32)>>,
    input_descs: Vec<Option<TensorDesc>>,
    control_names: Vec<String>,
}

impl PyGraph {
    pub fn from_graph(graph: Graph) -> PyGraph {
        PyGraph {
            graph,
            id: NEXT_GRAPH_ID.fetch_add(1, Ordering::Relaxed),
            poisoned: OnceLock::new(),
        }
    }

    /// Marks the graph unusable after an internal error (`error`'s message
    /// is repeated by every later use).
    pub fn poison(&self, py: Python<'_>, error: &PyErr) {
        let _ = self.poisoned.set(Unusable {
            internal: true,
            error: error.value(py).to_string(),
        });
    }

    /// Marks the graph unusable after `prepare` failed midway with `error`.
    pub fn poison_partly_prepared(&self, error: String) {
        let _ = self.poisoned.set(Unusable {
            internal: false,
            error,
        });
    }

    /// `guarded` (the result of a panic guard over a pass on this graph)
    /// as it is, the graph poisoned when it is an internal error.
    pub fn poison_on_panic<T>(&self, py: Python<'_>, guarded: PyResult<T>) -> PyResult<T> {
        guarded.inspect_err(|internal| self.poison(py, internal))
    }

    /// Ok unless an internal error made the graph unusable.
    pub fn usable(&self, py: Python<'_>) -> PyResult<()> {
        match self.poisoned.get() {
            None => Ok(()),
            Some(Unusable {
                internal: true,
                error,
            }) => Err(new_error(
                internal_error(py)?,
                format!(
                    "graph '{}' is unusable: an earlier call hit an internal error and may have \
                     left it half updated; rebuild or reload it (the error was: {error})",
                    self.graph.name
                ),
                None,
            )),
            Some(Unusable {
                internal: false,
                error,
            }) => Err(new_error(
                device_error(py)?,
                format!(
                    "graph '{}' is unusable: prepare stopped partway and may have left it \
                     partly prepared; rebuild or reload it (the error was: {error})",
                    self.graph.name
                ),
                None,
            )),
        }
    }

    fn handle(&self, edge: OutputRef) -> TensorRef {
        TensorRef {
            graph_id: self.id,
            node: edge.node,
            index: edge.index,
            node_name: self.graph.node(edge.node).name.clone(),
        }
    }

    /// The edge a handle names, checked against this graph.
    fn edge(&self, py: Python<'_>, handle: &TensorRef) -> PyResult<OutputRef> {
        if handle.graph_id != self.id {
            let msg = format!(
                "tensor {}:{} belongs to another graph",
                handle.node_name, handle.index
            );
            return Err(new_error(graph_error(py)?, msg, None));
        }
        let outputs = self.graph.node(handle.node).outputs.len();
        if handle.index as usize >= outputs {
            let msg = format!(
                "node '{}' has {outputs} outputs; output {} does not exist",
                handle.node_name, handle.index
            );
            return Err(new_error(graph_error(py)?, msg, None));
        }
        Ok(OutputRef::new(handle.node, handle.index))
    }

    fn port_input(&self, obj: &Bound<'_, PyAny>) -> PyResult<PortInput> {
        let py = obj.py();
        if obj.is_none() {
            return Ok(PortInput::Single(None));
        }
        if let Ok(handle) = obj.cast::<TensorRef>() {
            return Ok(PortInput::Single(Some(self.edge(py, handle.get())?)));
        }
        let items = obj.try_iter().map_err(|_| {
            PyTypeError::new_err(format!(
                "an input is a TensorRef, None, or a list of TensorRefs, got {}",
                type_name(obj)
            ))
        })?;
        let mut edges = Vec::new();
        for item in items {
            let item = item?;
            let handle = item.cast::<TensorRef>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "a dynamic input lists TensorRefs, got {}",
                    type_name(&item)
                ))
            })?;
            edges.push(self.edge(py, handle.get())?);
        }
        Ok(PortInput::Many(edges))
    }

    /// Inputs given per prototype port: a sequence in port order, or a
    /// mapping from port name.
    fn port_inputs(&self, op_type: &str, inputs: &Bound<'_, PyAny>) -> PyResult<Vec<PortInput>> {
        let py = inputs.py();
        if let Ok(mapping) = inputs.cast::<PyMapping>() {
            let registry = global_registry();
            let Some(schema) = registry.get(op_type) else {
                return Ok(Vec::new()); // add_op reports the unknown op type
            };
            let mut ports = vec![PortInput::Single(None); schema.inputs.len()];
            for item in mapping.items()?.iter() {
                let (name, value): (String, Bound<'_, PyAny>) = item.extract()?;
                let Some(at) = schema.input_index(&name) else {
                    let msg = format!("{op_type} has no input named '{name}'");
                    return Err(new_error(graph_error(py)?, msg, None));
                };
                ports[at] = self.port_input(&value)?;
            }
            return Ok(ports);
        }
        inputs
            .try_iter()?
            .map(|item| self.port_input(&item?))
            .collect()
    }
}

#[pymethods]
impl PyGraph {
    #[new]
    #[pyo3(signature = (name = "graph"))]
    fn new(name: &str) -> PyGraph {
        PyGraph::from_graph(Graph::new(name))
    }

    /// The graph's name.
    #[getter]
    fn name(&self) -> &str {
        &self.graph.name
    }

    /// Adds a graph input (a Data node) and returns its tensor.
    /// `shape_range`: inclusive `(min, max)` per dim (`max == -1`: unbounded).
    #[pyo3(signature = (name, dtype, shape, format = None, *, shape_range = None))]
    fn add_input(
        &mut self,
        py: Python<'_>,
        name: &str,
        dtype: &Bound<'_, PyAny>,
        shape: &Bound<'_, PyAny>,
        format: Option<&Bound<'_, PyAny>>,
        shape_range: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<TensorRef> {
        self.usable(py)?;
        let desc = graph_inputs::new_input(py, name, dtype, shape, format, shape_range)?;
        let edge = self
            .graph
            .add_input_node(name, desc)
            .map_err(|e| graph_err(py, &e))?;
        Ok(self.handle(edge))
    }

    /// Sets the shape range of graph input `name` (a Data or Placeholder
    /// node): inclusive `(min, max)` per dim, `max == -1` unbounded; a known
    /// dim must lie in its range. Infer the graph again for its tensors to
    /// take it (as ATC's `--input_shape="x:1,3,128~2048,128~2048"`).
    fn set_input_shape_range(
        &mut self,
        py: Python<'_>,
        name: &str,
        shape_range: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.usable(py)?;
        graph_inputs::set_shape_range(py, &mut self.graph, name, shape_range)
    }

    /// Sets the shape of graph input `name` (a Data or Placeholder node),
    /// keeping its rank and dtype: one profile of ATC's
    /// `--dynamic_batch_size`/`--dynamic_dims`. Each dim is a size or -1,
    /// and lies in the input's shape range when it has one. Infer the graph
    /// again for its tensors to take it.
    fn set_input_shape(
        &mut self,
        py: Python<'_>,
        name: &str,
        shape: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.usable(py)?;
        graph_inputs::set_shape(py, &mut self.graph, name, shape)
    }

    /// Replaces what graph input `name` (a Data or Placeholder node)
    /// delivers: its dtype, shape and format (`None`: kept), its shape range
    /// dropped; what ATC's AIPP does to the input it feeds (a uint8 image).
    /// Infer the graph again for its readers to see it.
    #[pyo3(signature = (name, dtype, shape, format = None))]
    fn set_input_desc(
        &mut self,
        py: Python<'_>,
        name: &str,
        dtype: &Bound<'_, PyAny>,
        shape: &Bound<'_, PyAny>,
        format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        self.usable(py)?;
        graph_inputs::set_desc(py, &mut self.graph, name, dtype, shape, format)
    }

    /// Adds a Const node holding a copy of `value` (a numpy array).
    #[pyo3(signature = (name, value, format = None))]
    fn add_const(
        &mut self,
        py: Python<'_>,
        name: &str,
        value: &Bound<'_, PyAny>,
        format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<TensorRef> {
        self.usable(py)?;
        let tensor = tensor_from_py(value)?;
        let edge = self
            .graph
            .add_const_node(name, tensor)
            .map_err(|e| graph_err(py, &e))?;
        if let Some(format) = format {
            let format = format_from_py(format)?;
            self.graph.node_mut(edge.node).outputs[0].set_format(format);
        }
        Ok(self.handle(edge))
    }

    /// Adds a node of a registered op type; returns its first output.
    #[pyo3(signature = (op_type, name, inputs = None, attrs = None, *, dynamic_outputs = None, subgraphs = None, control_inputs = None))]
    #[allow(clippy::too_many_arguments)]
    fn add_node(
        &mut self,
        py: Python<'_>,
        op_type: &str,
        name: &str,
        inputs: Option<&Bound<'_, PyAny>>,
        attrs: Option<&Bound<'_, PyDict>>,
        dynamic_outputs: Option<Vec<(String, u32)>>,
        subgraphs: Option<&Bound<'_, PyDict>>,
        control_inputs: Option<Vec<PyRef<'_, TensorRef>>>,
    ) -> PyResult<TensorRef> {
        self.usable(py)?;
        let inputs = match inputs {
            Some(inputs) => self.port_inputs(op_type, inputs)?,
            None => Vec::new(),
        };
        let mut bodies = Vec::new();
        for (body_name, body) in subgraphs
            .map(|d| d.iter().collect::<Vec<_>>())
            .unwrap_or_default()
        {
            let body = body.cast::<PyGraph>()?.borrow();
            body.usable(py)?;
            // Bodies nested in `body` stay shared with it (copy on write).
            bodies.push(Subgraph::new(
                body_name.extract::<String>()?,
                body.graph.clone(),
            ));
        }
        let control = control_inputs
            .unwrap_or_default()
            .iter()
            .map(|h| Ok(self.edge(py, h)?.node))
            .collect::<PyResult<Vec<_>>>()?;
        let spec = OpSpec {
            op_type: op_type.into(),
            name: name.into(),
            inputs,
            attrs: attrs.map(attrs_from_py).transpose()?.unwrap_or_default(),
            dynamic_outputs: dynamic_outputs.unwrap_or_default(),
            subgraphs: bodies,
            control_inputs: control,
        };
        let registry = global_registry();
        for (attr, _) in spec.attrs.iter() {
            declared_attr(py, &registry, op_type, name, attr)?;
        }
        let added = guard_panics(py, "the graph builder", || {
            add_op(&mut self.graph, &registry, spec)
        });
        let id = self
            .poison_on_panic(py, added)?
            .map_err(|e| build_err(py, &e))?;
        Ok(self.handle(OutputRef::new(id, 0)))
    }

    /// Sets one attribute of an existing node; as in `add_node`, a name its
    /// op's prototype does not declare is an error.
    fn set_attr(
        &mut self,
        py: Python<'_>,
        node: &str,
        name: &str,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.usable(py)?;
        let id = self.find(py, node)?;
        let op_type = &self.graph.node(id).op_type;
        declared_attr(py, &global_registry(), op_type, node, name)?;
        let value = attr_from_py(value)?;
        self.graph.node_mut(id).attrs.set(name, value);
        Ok(())
    }

    /// The graph's outputs, in order.
    fn set_outputs(&mut self, py: Python<'_>, outputs: Vec<PyRef<'_, TensorRef>>) -> PyResult<()> {
        self.usable(py)?;
        let edges = outputs
            .iter()
            .map(|h| self.edge(py, h))
            .collect::<PyResult<Vec<_>>>()?;
        self.graph.set_outputs(edges).map_err(|e| graph_err(py, &e))
    }

    /// Rewires input instance `index` of `node` (None makes it absent).
    fn set_input(
        &mut self,
        py: Python<'_>,
        node: &str,
        index: usize,
        tensor: Option<PyRef<'_, TensorRef>>,
    ) -> PyResult<()> {
        self.usable(py)?;
        let id = self.find(py, node)?;
        let edge = tensor.map(|h| self.edge(py, &h)).transpose()?;
        self.graph
            .set_input(id, index, edge)
            .map_err(|e| graph_err(py, &e))
    }

    /// A snapshot of node `name`.
    fn node(&self, py: Python<'_>, name: &str) -> PyResult<PyNode> {
        self.usable(py)?;
        Ok(self.snapshot(self.find(py, name)?))
    }

    /// Snapshots of every node, in insertion order.
    fn nodes(&self, py: Python<'_>) -> PyResult<Vec<PyNode>> {
        self.usable(py)?;
        let n = self.graph.len();
        ensure_room(py, "Graph.nodes()", n, bytes_per_node::NODE_SNAPSHOTS)?;
        Ok(self.graph.node_ids().map(|id| self.snapshot(id)).collect())
    }

    /// The handle of output `index` of node `name`.
    #[pyo3(signature = (name, index = 0))]
    fn tensor(&self, py: Python<'_>, name: &str, index: u32) -> PyResult<TensorRef> {
        self.usable(py)?;
        let id = match (self.graph.find(name), name.rsplit_once(':')) {
            (Some(id), _) => id,
            // A TensorFlow-style tensor name (`relu:0`) for a node's output.
            (None, Some((node, output)))
                if output.parse::<u32>().is_ok() && self.graph.find(node).is_some() =>
            {
                return Err(new_error(
                    graph_error(py)?,
                    format!(
                        "there is no node named '{name}'; a tensor is named by its node and \
                         output index: graph.tensor('{node}', {output})"
                    ),
                    None,
                ))
            }
            (None, _) => self.find(py, name)?,
        };
        let handle = self.handle(OutputRef::new(id, index));
        self.edge(py, &handle)?;
        Ok(handle)
    }

    /// The descriptor of the tensor a handle names.
    fn desc(&self, py: Python<'_>, tensor: PyRef<'_, TensorRef>) -> PyResult<PyTensorDesc> {
        self.usable(py)?;
        let edge = self.edge(py, &tensor)?;
        Ok(PyTensorDesc {
            desc: self.graph.tensor(edge).clone(),
        })
    }

    /// A copy of body `body` of node `node`.
    fn subgraph(&self, py: Python<'_>, node: &str, body: &str) -> PyResult<PyGraph> {
        self.usable(py)?;
        let id = self.find(py, node)?;
        match self.graph.node(id).subgraph(body) {
            Some(graph) => Ok(PyGraph::from_graph(graph.clone())),
            None => Err(new_error(
                graph_error(py)?,
                format!("node '{node}' has no body named '{body}'"),
                None,
            )),
        }
    }

    /// The graph's inputs (its Data nodes' outputs), in order.
    #[getter]
    fn inputs(&self, py: Python<'_>) -> PyResult<Vec<TensorRef>> {
        self.usable(py)?;
        Ok(self
            .graph
            .inputs()
            .iter()
            .map(|&id| self.handle(OutputRef::new(id, 0)))
            .collect())
    }

    /// The graph's outputs, as set by :meth:`set_outputs`.
    #[getter]
    fn outputs(&self, py: Python<'_>) -> PyResult<Vec<TensorRef>> {
        self.usable(py)?;
        Ok(self
            .graph
            .outputs()
            .iter()
            .map(|&e| self.handle(e))
            .collect())
    }

    /// An independent copy of the graph (later edits to either do not affect the other).
    fn copy(&self, py: Python<'_>) -> PyResult<PyGraph> {
        self.usable(py)?;
        Ok(PyGraph::from_graph(self.graph.clone()))
    }

    fn __len__(&self) -> usize {
        self.graph.len()
    }

    fn __contains__(&self, name: &str) -> bool {
        self.graph.find(name).is_some()
    }

    fn __repr__(&self) -> String {
        let unusable = match self.poisoned.get() {
            Some(Unusable { internal: true, .. }) => ", unusable after an internal error",
            Some(Unusable {
                internal: false, ..
            }) => ", unusable: may be partly prepared",
            None => "",
        };
        format!(
            "Graph({:?}, {} nodes{unusable})",
            self.graph.name,
            self.graph.len()
        )
    }
}

impl PyGraph {
    fn find(&self, py: Python<'_>, name: &str) -> PyResult<NodeId> {
        find_node(py, &self.graph, name)
    }

    fn snapshot(&self, id: NodeId) -> PyNode {
        let node = self.graph.node(id).clone();
        let sources = node
            .inputs
            .iter()
            .map(|e| e.map(|e| (self.graph.node(e.node).name.clone(), e.index)))
            .collect();
        let input_descs = node
            .inputs
            .iter()
            .map(|e| e.map(|e| self.graph.tensor(e).clone()))
            .collect();
        let control_names = node
            .control_inputs
            .iter()
            .map(|&c| self.graph.node(c).name.clone())
            .collect();
        PyNode {
            node,
            sources,
            input_descs,
            control_names,
        }
    }
}

#[pymethods]
impl TensorRef {
    /// Name of the producing node.
    #[getter]
    fn node(&self) -> &str {
        &self.node_name
    }

    /// The producing node's output index.
    #[getter]
    fn index(&self) -> u32 {
        self.index
    }

    /// The handle of another output of the same node.
    fn output(&self, index: u32) -> TensorRef {
        TensorRef {
            index,
            ..self.clone()
        }
    }

    fn __repr__(&self) -> String {
        format!("TensorRef({:?}, {})", self.node_name, self.index)
    }
}

#[pymethods]
impl PyNode {
    /// The node's name.
    #[getter]
    fn name(&self) -> &str {
        &self.node.name
    }

    /// The node's op type.
    #[getter]
    fn op_type(&self) -> &str {
        &self.node.op_type
    }

    /// The attributes set on the node (prototype defaults not filled in).
    #[getter]
    fn attrs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        attrs_to_py(py, &self.node.attrs)
    }

    /// Descriptors of the input instances (None for absent optional inputs).
    #[getter]
    fn inputs(&self) -> Vec<Option<PyTensorDesc>> {
        self.input_descs
            .iter()
            .map(|d| d.clone().map(|desc| PyTensorDesc { desc }))
            .collect()
    }

    /// (producer node name, output index) per input instance.
    #[getter]
    fn input_sources(&self) -> Vec<Option<(String, u32)>> {
        self.sources.clone()
    }

    /// Descriptors of the output instances.
    #[getter]
    fn outputs(&self) -> Vec<PyTensorDesc> {
        self.node
            .outputs
            .iter()
            .map(|d| PyTensorDesc { desc: d.clone() })
            .collect()
    }

    /// Names of the nodes this one runs after without reading their data.
    #[getter]
    fn control_inputs(&self) -> Vec<String> {
        self.control_names.clone()
    }

    /// Names of the node's bodies (``then_branch``, ``body`` …); see :meth:`Graph.subgraph`.
    #[getter]
    fn subgraph_names(&self) -> Vec<String> {
        self.node.subgraphs.iter().map(|s| s.name.clone()).collect()
    }

    fn __repr__(&self) -> String {
        let outs: Vec<String> = self.node.outputs.iter().map(|d| d.summary()).collect();
        format!(
            "Node({:?}, {}, outputs=[{}])",
            self.node.name,
            self.node.op_type,
            outs.join(", ")
        )
    }
}

/// An error when `op_type`'s prototype does not declare attribute `attr`
/// (set on node `node`); unregistered op types are the engine's to report.
fn declared_attr(
    py: Python<'_>,
    registry: &OpRegistry,
    op_type: &str,
    node: &str,
    attr: &str,
) -> PyResult<()> {
    match registry.get(op_type).and_then(|s| s.undeclared_attr(attr)) {
        Some(why) => Err(exception(graph_error(py), format!("node '{node}': {why}"))),
        None => Ok(()),
    }
}
