//! How big a graph would be with every body inlined at each of its call
//! sites: what the passes that lay bodies out per call site (the memory
//! schedule, the cost walk) have to handle. Bodies are shared, so a small
//! model can describe an enormous expansion (each function calling the next
//! twice doubles it per level); [`check_expansion`] bounds it.

use super::Graph;
use rustc_hash::FxHashMap;
use std::fmt;
use std::sync::Arc;

/// The most nodes inlining every call site may add to a graph beyond the
/// nodes it stores (its own and each shared body's, once). Plain graphs and
/// bodies called once add nothing, so model size alone is never refused;
/// a library doubling per nesting level passes it at about 16 levels. The
/// per-call-site passes take a few KB per inlined node, so this keeps them
/// under about a gigabyte.
pub const MAX_EXPANDED_NODES: u64 = 1 << 18;

/// A graph's size stored and inlined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expansion {
    /// Nodes with every body inlined at each call site (saturating).
    pub expanded: u64,
    /// Nodes as stored: the graph's own and each distinct body's once.
    pub stored: u64,
}

impl Expansion {
    /// What inlining would add to the stored graph.
    pub fn added(&self) -> u64 {
        self.expanded.saturating_sub(self.stored)
    }
}

/// Every distinct body of `graph` (by address), callers before callees,
/// with its inlined node count.
struct Bodies<'g> {
    /// Distinct bodies, callers first (reverse post-order).
    order: Vec<&'g Graph>,
    expanded: FxHashMap<*const Graph, u64>,
}

impl<'g> Bodies<'g> {
    fn of(graph: &'g Graph) -> Self {
        let mut bodies = Bodies {
            order: Vec::new(),
            expanded: FxHashMap::default(),
        };
        bodies.visit(graph);
        bodies.order.reverse();
        bodies
    }

    /// Inlined size of `graph`, each shared body visited once. Recursion
    /// depth is the nesting depth, which conversion bounds.
    fn visit(&mut self, graph: &'g Graph) -> u64 {
        let key = graph as *const Graph;
        if let Some(&n) = self.expanded.get(&key) {
            return n;
        }
        let mut total = graph.len() as u64;
        for node in graph.nodes() {
            for body in &node.subgraphs {
                total = total.saturating_add(self.visit(&body.graph));
            }
        }
        self.expanded.insert(key, total);
        self.order.push(graph);
        total
    }

    /// How many call sites each body has once everything is inlined.
    fn call_sites(&self) -> FxHashMap<*const Graph, u64> {
        let mut sites: FxHashMap<*const Graph, u64> = FxHashMap::default();
        if let Some(top) = self.order.first() {
            sites.insert(*top as *const Graph, 1);
        }
        for graph in &self.order {
            let mine = sites.get(&(*graph as *const Graph)).copied().unwrap_or(0);
            for node in graph.nodes() {
                for body in &node.subgraphs {
                    let slot = sites.entry(Arc::as_ptr(&body.graph)).or_insert(0);
                    *slot = slot.saturating_add(mine);
                }
            }
        }
        sites
    }
}

/// `graph`'s size stored and with every body inlined, counted in time
/// proportional to the stored size.
pub fn expansion(graph: &Graph) -> Expansion {
    let bodies = Bodies::of(graph);
    let stored = bodies.order.iter().map(|g| g.len() as u64).sum();
    Expansion {
        expanded: bodies.expanded[&(graph as *const Graph)],
        stored,
    }
}

/// The node count of `graph` with every body inlined at each call site.
pub fn expanded_nodes(graph: &Graph) -> u64 {
    expansion(graph).expanded
}

/// A graph whose inlined size passes [`MAX_EXPANDED_NODES`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ExpansionError {
    pub size: Expansion,
    /// The body inlined at the most call sites (a library function's name)
    /// and how many.
    pub most_called: Option<(String, u64)>,
}

impl fmt::Display for ExpansionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some((name, sites)) = &self.most_called {
            write!(
                f,
                "function '{name}' is called at {sites} call sites once calls are inlined: "
            )?;
        }
        write!(
            f,
            "the graph would expand to {} nodes with every function call inlined, {} more than \
             the {} it stores; opgraph allows at most {MAX_EXPANDED_NODES} more (MAX_EXPANDED_NODES)",
            self.size.expanded,
            self.size.added(),
            self.size.stored
        )
    }
}

/// Refuses a graph whose inlining would add more than [`MAX_EXPANDED_NODES`]
/// nodes, naming the function inlined most often.
pub fn check_expansion(graph: &Graph) -> Result<Expansion, ExpansionError> {
    let bodies = Bodies::of(graph);
    let size = Expansion {
        expanded: bodies.expanded[&(graph as *const Graph)],
        stored: bodies.order.iter().map(|g| g.len() as u64).sum(),
    };
    if size.added() <= MAX_EXPANDED_NODES {
        return Ok(size);
    }
    let sites = bodies.call_sites();
    let most_called = bodies
        .order
        .iter()
        .skip(1)
        .map(|g| (g, sites.get(&(*g as *const Graph)).copied().unwrap_or(0)))
        .max_by_key(|&(_, n)| n)
        .map(|(g, n)| (g.name.clone(), n));
    Err(ExpansionError { size, most_called })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Node, Subgraph};

    /// `levels` bodies, each calling the next from two nodes; the last has
    /// one node.
    fn doubling(levels: usize) -> Graph {
        let mut inner = Graph::new(format!("f{levels}"));
        inner.add_node(Node::new("leaf", "Op", vec![], 1)).unwrap();
        let mut inner = Arc::new(inner);
        for level in (0..levels).rev() {
            let mut g = Graph::new(format!("f{level}"));
            for name in ["a", "b"] {
                let mut node = Node::new(name, "PartitionedCall", vec![], 1);
                node.subgraphs.push(Subgraph {
                    name: "f".into(),
                    graph: Arc::clone(&inner),
                });
                g.add_node(node).unwrap();
            }
            inner = Arc::new(g);
        }
        Arc::try_unwrap(inner).unwrap_or_else(|shared| (*shared).clone())
    }

    #[test]
    fn shared_bodies_are_counted_per_call_site_in_stored_time() {
        let g = doubling(3);
        // 2 + 2·2 + 4·2 + 8·1.
        assert_eq!(
            expansion(&g),
            Expansion {
                expanded: 2 + 4 + 8 + 8,
                stored: 2 + 2 + 2 + 1
            }
        );
        assert_eq!(g.total_nodes(), 22);
        // 2^100 call paths: counted at once, saturating.
        let deep = doubling(100);
        assert_eq!(expanded_nodes(&deep), u64::MAX);
        assert_eq!(expansion(&deep).stored, 201);
    }

    #[test]
    fn the_budget_names_the_most_inlined_function() {
        assert!(check_expansion(&doubling(10)).is_ok());
        let error = check_expansion(&doubling(40)).unwrap_err();
        assert_eq!(error.most_called, Some(("f40".into(), 1 << 40)));
        let message = error.to_string();
        assert!(message.starts_with("function 'f40' is called at 1099511627776 call sites"));
        assert!(message.contains(&format!("at most {MAX_EXPANDED_NODES} more")));
    }
}
