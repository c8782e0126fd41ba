//! How big a graph would be with every body inlined at each of its call
//! sites: what passes that lay bodies out per call site (the memory
//! schedule, the cost walk) have to handle. Bodies are shared, so a small
//! model can describe an enormous expansion (each function calling the next
//! twice doubles it per level); this bounds it.

use super::Graph;
use rustc_hash::FxHashMap;

/// The most nodes a graph may have with every function call inlined at each
/// call site (its own nodes included). Four times the million-node graphs
/// opgraph is built for; a function library that doubles per nesting level
/// passes it at about 20 levels, where the per-call-site passes would need
/// gigabytes.
pub const MAX_EXPANDED_NODES: u64 = 1 << 22;

/// Counts nodes as if every body were inlined, visiting each shared body
/// once (memoised by identity), so counting costs the stored size, not the
/// expanded one. Saturates rather than overflows.
#[derive(Debug, Default)]
pub struct ExpansionCounter {
    counted: FxHashMap<*const Graph, u64>,
}

impl ExpansionCounter {
    pub fn new() -> Self {
        Self::default()
    }

    /// The node count of `graph` with every body inlined. The graphs counted
    /// must outlive the counter (bodies are recognised by address).
    pub fn count(&mut self, graph: &Graph) -> u64 {
        let key = graph as *const Graph;
        if let Some(&n) = self.counted.get(&key) {
            return n;
        }
        let mut total = graph.len() as u64;
        for node in graph.nodes() {
            for body in &node.subgraphs {
                total = total.saturating_add(self.count(&body.graph));
            }
        }
        self.counted.insert(key, total);
        total
    }
}

/// The node count of `graph` with every body inlined (see [`ExpansionCounter`]).
pub fn expanded_nodes(graph: &Graph) -> u64 {
    ExpansionCounter::new().count(graph)
}

/// Why a graph is refused: its inlined size is over [`MAX_EXPANDED_NODES`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "graph '{graph}' would have {nodes} nodes with every function call inlined \
     (bodies are shared, but this pass lays them out per call site); \
     opgraph allows at most {MAX_EXPANDED_NODES} (MAX_EXPANDED_NODES)"
)]
pub struct ExpansionError {
    pub graph: String,
    pub nodes: u64,
}

/// Refuses a graph whose inlined size is over [`MAX_EXPANDED_NODES`].
pub fn check_expansion(graph: &Graph) -> Result<(), ExpansionError> {
    let nodes = expanded_nodes(graph);
    if nodes > MAX_EXPANDED_NODES {
        Err(ExpansionError {
            graph: graph.name.clone(),
            nodes,
        })
    } else {
        Ok(())
    }
}
