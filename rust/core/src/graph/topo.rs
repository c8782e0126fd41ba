//! Topological order (Kahn's algorithm, stable by node id) and cycle reporting.

use super::{Graph, Node, NodeId};
use std::collections::VecDeque;

/// The graph has a cycle; `nodes` are the names on one cycle, in edge order.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the graph has a cycle through {}", crate::message::capped_list(.nodes, " -> "))]
pub struct CycleError {
    pub nodes: Vec<String>,
}

/// Every node id in an order where producers (data and control) come before
/// consumers; ties keep insertion order so results are deterministic.
/// TensorFlow v1 loop back edges (see [`is_loop_back_edge`]) do not order
/// anything, as GE breaks them; every other cycle is an error.
pub fn topological_order(graph: &Graph) -> Result<Vec<NodeId>, CycleError> {
    let nodes = graph.nodes();
    let n = nodes.len();
    // The engine runs this on every inference; most graphs are built front
    // to back, and for them one read-only pass settles the order.
    if ids_are_kahn_order(nodes) {
        return Ok((0..n as u32).map(NodeId).collect());
    }
    let mut pending = vec![0u32; n];
    // Consumers of each node in CSR form: offsets[p]..offsets[p + 1].
    let mut offsets = vec![0usize; n + 1];
    for node in nodes {
        for producer in producers(nodes, node) {
            offsets[producer.index() + 1] += 1;
        }
    }
    for i in 0..n {
        offsets[i + 1] += offsets[i];
    }
    let mut fill = offsets.clone();
    let mut consumers = vec![NodeId(0); offsets[n]];
    for (i, node) in nodes.iter().enumerate() {
        for producer in producers(nodes, node) {
            consumers[fill[producer.index()]] = NodeId(i as u32);
            fill[producer.index()] += 1;
            pending[i] += 1;
        }
    }

    let mut ready: VecDeque<NodeId> = (0..n as u32)
        .map(NodeId)
        .filter(|id| pending[id.index()] == 0)
        .collect();
    let mut order = Vec::with_capacity(n);
    while let Some(id) = ready.pop_front() {
        order.push(id);
        for &c in &consumers[offsets[id.index()]..offsets[id.index() + 1]] {
            pending[c.index()] -= 1;
            if pending[c.index()] == 0 {
                ready.push_back(c);
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

/// True when Kahn's order (as `topological_order` runs it) is simply the id
/// order, as it is for graphs built front to back: every node's latest
/// producer (highest id, data or control) is an earlier node, and latest
/// producers never decrease from one node to the next (sources first).
///
/// Why that suffices: the queue starts with the sources (a prefix of the
/// ids), and a node is queued while its latest producer is processed,
/// after the nodes queued by earlier producers and after lower ids queued by
/// the same producer. If the ids are the processing order so far, the queue
/// is therefore sorted by (latest producer, id), which these two conditions
/// make the id order again. One read-only pass instead of building consumer
/// lists; when it fails (at the first node breaking the conditions), that
/// pass is the only extra cost.
fn ids_are_kahn_order(nodes: &[Node]) -> bool {
    // `None` (a source) sorts before every `Some`.
    let mut previous: Option<u32> = None;
    for (i, node) in nodes.iter().enumerate() {
        let latest = producers(nodes, node).map(|p| p.0).max();
        if latest < previous || latest >= Some(i as u32) {
            return false;
        }
        previous = latest;
    }
    true
}

/// The producers a node waits for: data and control inputs, less loop back
/// edges.
fn producers<'a>(nodes: &'a [Node], node: &'a Node) -> impl Iterator<Item = NodeId> + 'a {
    // Only a Merge can have a back edge; other nodes skip the producer lookup.
    let may_loop = is_merge(node);
    node.inputs
        .iter()
        .flatten()
        .map(|e| e.node)
        .filter(move |p| !(may_loop && is_loop_back_edge(node, &nodes[p.index()])))
        .chain(node.control_inputs.iter().copied())
}

/// A TF v1 Merge (the only op a loop back edge can feed).
pub fn is_merge(node: &Node) -> bool {
    matches!(node.op_type.as_str(), "Merge" | "RefMerge")
}

/// True for the edge of a TensorFlow v1 loop that closes it: a
/// NextIteration feeding a Merge. GE orders a loop frame without it and
/// infers the frame again until the Merge outputs settle.
pub fn is_loop_back_edge(consumer: &Node, producer: &Node) -> bool {
    is_merge(consumer)
        && matches!(
            producer.op_type.as_str(),
            "NextIteration" | "RefNextIteration"
        )
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
        at = producers(graph.nodes(), graph.node(at))
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
    use crate::graph::OutputRef;

    #[test]
    fn orders_producers_first_and_reports_cycles() {
        let mut g = Graph::new("g");
        let a = g.add_node(Node::new("a", "Op", vec![], 1)).unwrap();
        let b = g
            .add_node(Node::new(
                "b",
                "Op",
                vec![Some(OutputRef::new(a, 0)), None],
                1,
            ))
            .unwrap();
        let c = g
            .add_node(Node::new("c", "Op", vec![Some(OutputRef::new(b, 0))], 1))
            .unwrap();
        assert_eq!(topological_order(&g).unwrap(), vec![a, b, c]);

        g.set_input(b, 1, Some(OutputRef::new(c, 0))).unwrap();
        let err = topological_order(&g).unwrap_err();
        assert_eq!(err.nodes, ["b", "c", "b"]);
    }

    /// Kahn's algorithm spelled out plainly, without the id-order shortcut;
    /// its order is the contract.
    fn reference_order(graph: &Graph) -> Result<Vec<NodeId>, CycleError> {
        let nodes = graph.nodes();
        let n = nodes.len();
        let mut pending = vec![0u32; n];
        let mut consumers: Vec<Vec<NodeId>> = vec![Vec::new(); n];
        for (i, node) in nodes.iter().enumerate() {
            for producer in producers(nodes, node) {
                consumers[producer.index()].push(NodeId(i as u32));
                pending[i] += 1;
            }
        }
        let mut ready: VecDeque<NodeId> = (0..n as u32)
            .map(NodeId)
            .filter(|id| pending[id.index()] == 0)
            .collect();
        let mut order = Vec::new();
        while let Some(id) = ready.pop_front() {
            order.push(id);
            for &c in &consumers[id.index()] {
                pending[c.index()] -= 1;
                if pending[c.index()] == 0 {
                    ready.push_back(c);
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

    /// A small deterministic generator (no `rand` dependency).
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % n.max(1)
        }
    }

    /// Graphs built front to back (mostly the fast path), with late sources,
    /// absent inputs, repeated producers, control edges and, for some, rewired
    /// inputs that point forward or close cycles.
    fn random_graph(rng: &mut Lcg, n: usize, rewire: usize) -> Graph {
        let mut g = Graph::new("g");
        for i in 0..n {
            let recent = |rng: &mut Lcg| NodeId((i - 1 - rng.below(i.min(3))) as u32);
            let mut inputs = Vec::new();
            if i > 0 && rng.below(8) != 0 {
                for _ in 0..rng.below(3) + 1 {
                    let producer = if rng.below(4) == 0 {
                        NodeId(rng.below(i) as u32)
                    } else {
                        recent(rng)
                    };
                    inputs.push(if rng.below(10) == 0 {
                        None
                    } else {
                        Some(OutputRef::new(producer, 0))
                    });
                }
            }
            let mut node = Node::new(format!("n{i}"), "Op", inputs, 1);
            if i > 0 && rng.below(6) == 0 {
                node.control_inputs.push(NodeId(rng.below(i) as u32));
            }
            g.add_node(node).unwrap();
        }
        for _ in 0..rewire {
            let node = NodeId(rng.below(n) as u32);
            if !g.node(node).inputs.is_empty() {
                let input = rng.below(g.node(node).inputs.len());
                let producer = OutputRef::new(NodeId(rng.below(n) as u32), 0);
                g.set_input(node, input, Some(producer)).unwrap();
            }
        }
        g
    }

    #[test]
    fn matches_plain_kahn_on_random_graphs() {
        let mut rng = Lcg(7);
        let (mut fast, mut cycles) = (0, 0);
        for round in 0..3000 {
            let n = 1 + rng.below(40);
            let g = random_graph(&mut rng, n, round % 4);
            fast += usize::from(ids_are_kahn_order(g.nodes()));
            let expected = reference_order(&g);
            cycles += usize::from(expected.is_err());
            assert_eq!(topological_order(&g), expected, "round {round}: {g:?}");
        }
        // Both paths (and cycle reports) were exercised.
        assert!(
            fast > 100 && fast < 2900,
            "{fast} of 3000 took the id-order path"
        );
        assert!(cycles > 100, "only {cycles} cycles");
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
