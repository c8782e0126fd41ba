//! Topological order (Kahn's algorithm, stable by node id) and cycle reporting.

use super::{Graph, NodeId};

/// The graph has a cycle; `nodes` are the names on one cycle, in edge order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the graph has a cycle through {}", .nodes.join(" -> "))]
pub struct CycleError {
    pub nodes: Vec<String>,
}

/// Every node id in an order where producers (data and control) come before
/// consumers; ties keep insertion order so results are deterministic.
///
/// Kahn's algorithm with a FIFO queue: sources in id order first, then each
/// node as soon as its last producer has been taken, consumers of one
/// producer in id order. The engine runs this once per (sub)graph on every
/// inference, so it walks the nodes only once (their input lists live in
/// separate allocations) and keeps every other pass on flat arrays.
pub fn topological_order(graph: &Graph) -> Result<Vec<NodeId>, CycleError> {
    let nodes = graph.nodes();
    let n = nodes.len();
    // One walk over the nodes: every node's producers, flattened in node
    // order, and how many edges leave each producer.
    let mut pending = vec![0u32; n];
    let mut out_degree = vec![0usize; n];
    let mut edges: Vec<NodeId> = Vec::with_capacity(n * 2);
    for (i, node) in nodes.iter().enumerate() {
        for producer in producers(node) {
            out_degree[producer.index()] += 1;
            edges.push(producer);
            pending[i] += 1;
        }
    }
    let (offsets, consumers) = consumer_lists(&pending, out_degree, &edges);

    // `order` doubles as the FIFO queue: everything before `head` is done,
    // everything after it is ready and waiting.
    let mut order: Vec<NodeId> = Vec::with_capacity(n);
    order.extend((0..n as u32).map(NodeId).filter(|id| pending[id.index()] == 0));
    let mut head = 0;
    while let Some(&id) = order.get(head) {
        head += 1;
        for &c in &consumers[offsets[id.index()]..offsets[id.index() + 1]] {
            pending[c.index()] -= 1;
            if pending[c.index()] == 0 {
                order.push(c);
            }
        }
    }
    if order.len() == n {
        Ok(order)
    } else {
        Err(CycleError {
            nodes: find_cycle(graph, &pending),
        })
    }
}

/// Consumers of each producer in CSR form (`consumers[offsets[p]..offsets[p + 1]]`),
/// ascending by consumer id, one entry per edge. `edges` holds the producers
/// of node 0, then of node 1, …; `in_degree[i]` says how many belong to node i.
fn consumer_lists(in_degree: &[u32], out_degree: Vec<usize>, edges: &[NodeId]) -> (Vec<usize>, Vec<NodeId>) {
    // Where each producer's list ends (inclusive prefix sums).
    let mut offsets = out_degree;
    let mut end = 0;
    for slot in offsets.iter_mut() {
        end += *slot;
        *slot = end;
    }
    // Filled from the back, walking consumers in descending id order: each
    // list comes out ascending and each end offset moves to its start.
    let mut consumers = vec![NodeId(0); edges.len()];
    let mut at = edges.len();
    for (consumer, &count) in in_degree.iter().enumerate().rev() {
        let start = at - count as usize;
        for producer in edges[start..at].iter().rev() {
            let slot = &mut offsets[producer.index()];
            *slot -= 1;
            consumers[*slot] = NodeId(consumer as u32);
        }
        at = start;
    }
    offsets.push(edges.len());
    (offsets, consumers)
}

fn producers(node: &super::Node) -> impl Iterator<Item = NodeId> + '_ {
    node.inputs
        .iter()
        .flatten()
        .map(|e| e.node)
        .chain(node.control_inputs.iter().copied())
}

/// Walks backwards from a node Kahn could not order: each such node has a
/// producer that also could not be ordered, so the walk must revisit a node,
/// and the revisited stretch is a cycle.
fn find_cycle(graph: &Graph, pending: &[u32]) -> Vec<String> {
    let stuck = |id: NodeId| pending[id.index()] > 0;
    let Some(start) = graph.node_ids().find(|&id| stuck(id)) else {
        return Vec::new();
    };
    let mut seen_at = vec![usize::MAX; pending.len()];
    let mut path = Vec::new();
    let mut at = start;
    while seen_at[at.index()] == usize::MAX {
        seen_at[at.index()] = path.len();
        path.push(at);
        at = producers(graph.node(at))
            .find(|&p| stuck(p))
            .expect("a stuck node always has a stuck producer");
    }
    // path[seen_at[at]..] walks consumer -> producer; report producer ->
    // consumer, starting from the earliest-added node so the text is stable.
    let mut ids: Vec<NodeId> = path[seen_at[at.index()]..].iter().rev().copied().collect();
    let first = (0..ids.len()).min_by_key(|&i| ids[i]).unwrap_or(0);
    ids.rotate_left(first);
    ids.push(ids[0]);
    ids.iter().map(|&id| graph.node(id).name.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Node, OutputRef};

    #[test]
    fn orders_producers_first_and_reports_cycles() {
        let mut g = Graph::new("g");
        let a = g.add_node(Node::new("a", "Op", vec![], 1)).unwrap();
        let b = g
            .add_node(Node::new("b", "Op", vec![Some(OutputRef::new(a, 0)), None], 1))
            .unwrap();
        let c = g
            .add_node(Node::new("c", "Op", vec![Some(OutputRef::new(b, 0))], 1))
            .unwrap();
        assert_eq!(topological_order(&g).unwrap(), vec![a, b, c]);

        g.set_input(b, 1, Some(OutputRef::new(c, 0))).unwrap();
        let err = topological_order(&g).unwrap_err();
        assert_eq!(err.nodes, ["b", "c", "b"]);
    }

    #[test]
    fn control_edges_order_too() {
        let mut g = Graph::new("g");
        let a = g.add_node(Node::new("a", "Op", vec![], 1)).unwrap();
        let mut b = Node::new("b", "Op", vec![], 1);
        b.control_inputs.push(a);
        let b = g.add_node(b).unwrap();
        g.node_mut(a).control_inputs.push(b);
        assert_eq!(topological_order(&g).unwrap_err().nodes.len(), 3);
    }
}
