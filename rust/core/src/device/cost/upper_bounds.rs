//! Costing a graph whose run-time sizes are bounded: every unknown dim at
//! its shape range's upper bound (a worst case), stored as the format pass
//! stores it. Detection models at a fixed image size have such sizes after
//! NonZero, TopK and NonMaxSuppression; their latency is then an estimate
//! for the most boxes the ranges allow.

use crate::device::memory::largest_shapes;
use crate::graph::Graph;
use std::sync::Arc;

/// A copy of `graph` (bodies included) with every descriptor that has an
/// unknown dim and an upper bound for each set to its largest shapes, and
/// how many descriptors that changed. Descriptors with an unbounded dim
/// stay as they are (the cost walk then names one).
pub(super) fn at_upper_bounds(graph: &Graph) -> (Graph, usize) {
    let mut bounded = graph.clone();
    let count = bound_in_place(&mut bounded);
    (bounded, count)
}

fn bound_in_place(graph: &mut Graph) -> usize {
    let mut count = 0;
    let ids: Vec<_> = graph.node_ids().collect();
    for id in ids {
        let node = graph.node_mut(id);
        for desc in node.outputs.iter_mut().filter(|d| !d.shape().is_static()) {
            if let Some((origin, storage)) = largest_shapes(desc) {
                desc.origin_shape = origin;
                desc.storage_shape = storage;
                desc.shape_range = None;
                count += 1;
            }
        }
        for body in node.subgraphs.iter_mut() {
            count += bound_in_place(Arc::make_mut(&mut body.graph));
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use crate::device::cost::{estimate_cost, CostOptions};
    use crate::device::spec::DeviceSpec;
    use crate::infer::{infer_graph, InferOptions};
    use crate::op::OpRegistry;
    use crate::test_graphs::{input, op, ranged_input};
    use crate::types::{Attrs, DataType, Format};

    /// `x -> Relu -> Exp`, x of `dims` (with `range` when given), inferred.
    fn chain(dims: &[i64], range: Option<&[(i64, i64)]>) -> crate::graph::Graph {
        let r = OpRegistry::with_builtins();
        let mut g = crate::graph::Graph::new("g");
        let x = match range {
            Some(range) => ranged_input(&mut g, "x", DataType::Float, dims, range),
            None => input(&mut g, "x", DataType::Float, dims, Format::Nd),
        };
        let y = op(&mut g, &r, "Relu", "relu", &[x], Attrs::new());
        op(&mut g, &r, "Exp", "exp", &[y], Attrs::new());
        infer_graph(&mut g, &r, InferOptions::default()).unwrap();
        g
    }

    #[test]
    fn a_bounded_graph_costs_what_its_largest_static_twin_costs() {
        let spec = DeviceSpec::preset("Ascend310").unwrap();
        let bounded = chain(&[-1, 64], Some(&[(1, 4096), (64, 64)]));
        let options = CostOptions::default();
        assert!(estimate_cost(&bounded, &spec, &options).is_err());
        let worst = CostOptions {
            at_upper_bounds: true,
            ..CostOptions::default()
        };
        let report = estimate_cost(&bounded, &spec, &worst).unwrap();
        let twin = estimate_cost(&chain(&[4096, 64], None), &spec, &options).unwrap();
        assert_eq!(report.total_us, twin.total_us);
        assert!(report.flags[0].starts_with("3 tensors of run-time size"));
        // A static graph is costed as it is, with no flag.
        let again = estimate_cost(&chain(&[4096, 64], None), &spec, &worst).unwrap();
        assert_eq!(again.total_us, twin.total_us);
        assert_eq!(again.flags, twin.flags);
    }

    #[test]
    fn an_unbounded_dim_is_still_an_error() {
        let spec = DeviceSpec::preset("Ascend310").unwrap();
        let unbounded = chain(&[-1, 64], Some(&[(1, -1), (64, 64)]));
        let worst = CostOptions {
            at_upper_bounds: true,
            ..CostOptions::default()
        };
        let err = estimate_cost(&unbounded, &spec, &worst).unwrap_err();
        assert!(err.to_string().contains("unknown size"), "{err}");
    }
}
