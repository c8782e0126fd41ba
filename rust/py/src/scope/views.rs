//! Read-only views of a pass's scope graph (GE's `ScopeGraph`, `ScopeTree`,
//! `Scope` and the framework ops in them). They share the graph with the
//! running pass, so keeping one after the pass returns is safe: it keeps
//! showing the graph the pass saw.

use crate::convert::attrs_to_py;
use opgraph_core::frontend::scope::{ScopeGraph, ScopeId};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The graph a scope fusion pass looks at (GE's `ScopeGraph`).
#[pyclass(module = "opgraph._core", name = "ScopeGraph", frozen)]
pub struct PyScopeGraph {
    pub graph: Arc<ScopeGraph>,
}

/// The scopes of a graph (GE's `ScopeTree`).
#[pyclass(module = "opgraph._core", name = "ScopeTree", frozen)]
pub struct PyScopeTree {
    graph: Arc<ScopeGraph>,
}

/// One scope: a `/`-separated name prefix (GE's `Scope`).
#[pyclass(module = "opgraph._core", name = "Scope", frozen)]
pub struct PyScope {
    pub graph: Arc<ScopeGraph>,
    pub id: ScopeId,
}

/// One framework op of the graph, as TensorFlow decoded it.
#[pyclass(module = "opgraph._core", name = "ScopeNode", frozen)]
pub struct PyScopeNode {
    graph: Arc<ScopeGraph>,
    index: usize,
}

pub fn scope(graph: &Arc<ScopeGraph>, id: ScopeId) -> PyScope {
    PyScope {
        graph: graph.clone(),
        id,
    }
}

fn node(graph: &Arc<ScopeGraph>, index: usize) -> PyScopeNode {
    PyScopeNode {
        graph: graph.clone(),
        index,
    }
}

/// `{name: ScopeNode}` in graph order.
fn nodes_map<'py>(
    py: Python<'py>,
    graph: &Arc<ScopeGraph>,
    indices: impl IntoIterator<Item = usize>,
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for i in indices {
        if let Some(op) = graph.op(i) {
            dict.set_item(&op.name, node(graph, i))?;
        }
    }
    Ok(dict)
}

#[pymethods]
impl PyScopeGraph {
    /// The scope tree built from the op names.
    #[getter]
    fn scope_tree(&self) -> PyScopeTree {
        PyScopeTree {
            graph: self.graph.clone(),
        }
    }

    /// Every op by name, in graph order (GE's `GetNodesMap`).
    fn nodes_map<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        nodes_map(py, &self.graph, 0..self.graph.ops().len())
    }

    /// The op named `name`, or None.
    fn node(&self, name: &str) -> Option<PyScopeNode> {
        self.graph.index_of(name).map(|i| node(&self.graph, i))
    }

    fn __repr__(&self) -> String {
        format!(
            "<ScopeGraph: {} ops, {} scopes>",
            self.graph.ops().len(),
            self.graph.tree().len()
        )
    }
}

#[pymethods]
impl PyScopeTree {
    /// The root scope (named `root`).
    #[getter]
    fn root(&self) -> PyScope {
        scope(&self.graph, ScopeId::ROOT)
    }

    /// Every scope, root first, then in graph order (GE's `GetAllScopes`).
    fn all_scopes(&self) -> Vec<PyScope> {
        self.graph
            .tree()
            .all_scopes()
            .map(|s| scope(&self.graph, s))
            .collect()
    }
}

#[pymethods]
impl PyScope {
    /// Full name with a trailing `/` (`model/LayerNorm/`), or `root`.
    #[getter]
    fn name(&self) -> String {
        self.graph.tree().name(self.id).to_owned()
    }

    /// The sub-type a pattern gave this scope ("" when none).
    #[getter]
    fn sub_type(&self) -> String {
        self.graph.tree().sub_type(self.id).to_owned()
    }

    /// The last name component without a `_N` index (GE's `LastName`).
    #[getter]
    fn last_name(&self) -> String {
        self.graph.tree().last_name(self.id).to_owned()
    }

    /// The enclosing scope; None for the root (GE's `GetFatherScope`).
    #[getter]
    fn father_scope(&self) -> Option<PyScope> {
        self.graph
            .tree()
            .father(self.id)
            .map(|f| scope(&self.graph, f))
    }

    /// The direct sub-scopes, in graph order.
    fn sub_scopes(&self) -> Vec<PyScope> {
        self.graph
            .tree()
            .children(self.id)
            .iter()
            .map(|&s| scope(&self.graph, s))
            .collect()
    }

    /// Every descendant scope (GE's `GetAllSubScopes`).
    fn all_sub_scopes(&self) -> Vec<PyScope> {
        self.graph
            .tree()
            .all_sub_scopes(self.id)
            .into_iter()
            .map(|s| scope(&self.graph, s))
            .collect()
    }

    /// A sub-scope by full name (`a/b/`) or relative path (`b`, `b/c`).
    fn get_sub_scope(&self, name: &str) -> Option<PyScope> {
        self.graph
            .tree()
            .sub_scope(self.id, name)
            .map(|s| scope(&self.graph, s))
    }

    /// The ops of this scope and of every sub-scope, by name in graph
    /// order (GE's `AllNodesMap`).
    fn all_nodes_map<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        nodes_map(py, &self.graph, self.graph.tree().all_nodes(self.id))
    }

    /// The ops of `op_type` in this scope and its sub-scopes.
    fn nodes_by_type(&self, op_type: &str) -> Vec<PyScopeNode> {
        self.graph
            .nodes_by_type(self.id, op_type)
            .into_iter()
            .map(|i| node(&self.graph, i))
            .collect()
    }

    /// How many ops of `op_type` the scope holds, -1 for none (GE's count).
    fn op_type_count(&self, op_type: &str) -> i32 {
        self.graph.tree().op_type_num(self.id, op_type)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyScope>()
            .is_ok_and(|o| Arc::ptr_eq(&o.get().graph, &self.graph) && o.get().id == self.id)
    }

    fn __hash__(&self) -> u64 {
        let mut hasher = DefaultHasher::new();
        (Arc::as_ptr(&self.graph) as usize).hash(&mut hasher);
        self.id.hash(&mut hasher);
        hasher.finish()
    }

    fn __repr__(&self) -> String {
        let tree = self.graph.tree();
        match tree.sub_type(self.id) {
            "" => format!("<Scope {}>", tree.name(self.id)),
            sub => format!("<Scope {} ({sub})>", tree.name(self.id)),
        }
    }
}

#[pymethods]
impl PyScopeNode {
    /// The op's full name.
    #[getter]
    fn name(&self) -> String {
        self.op().name.clone()
    }

    /// The framework op type (`Mul`, `Conv2D` …).
    #[getter]
    fn op_type(&self) -> String {
        self.op().op_type.to_string()
    }

    /// Data inputs as `(producer, output index)`.
    #[getter]
    fn inputs(&self) -> Vec<(String, u32)> {
        self.op()
            .inputs
            .iter()
            .map(|i| (i.node.clone(), i.index))
            .collect()
    }

    /// Names of the ops this one has control edges from.
    #[getter]
    fn control_inputs(&self) -> Vec<String> {
        self.op().control_inputs.to_vec()
    }

    /// Who reads this op: `(output index, consumer, input index)`, input
    /// index -1 for a control edge.
    #[getter]
    fn consumers(&self) -> Vec<(u32, String, i64)> {
        self.graph
            .consumers(self.index)
            .iter()
            .filter_map(|c| {
                let reader = self.graph.op(c.op)?;
                let input = c.input.map_or(-1, i64::from);
                Some((c.output, reader.name.clone(), input))
            })
            .collect()
    }

    /// Attributes, converted to IR values as plugins see them.
    #[getter]
    fn attrs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        attrs_to_py(py, &self.op().attrs)
    }

    fn __repr__(&self) -> String {
        format!("<ScopeNode {} ({})>", self.op().name, self.op().op_type)
    }
}

impl PyScopeNode {
    fn op(&self) -> &opgraph_core::frontend::FrameworkOp {
        // Views are made only for indices of this graph.
        &self.graph.ops()[self.index]
    }
}
