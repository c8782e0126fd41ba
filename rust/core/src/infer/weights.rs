//! Weights loaded without values: a Caffe deploy prototxt read without its
//! .caffemodel gives each convolution, inner product, batch norm … weight
//! blobs whose input-side dims are unknown (`[num_output, ?, k, k]`), since
//! only the input tells them. Before inferring a node whose op declares
//! [`OpSchema::weight_shapes`], the engine asks it for the shapes its weight
//! inputs need (from its attributes and its already-inferred data inputs)
//! and gives them to those weights, so memory planning and costing work on
//! a bare network definition, as Caffe itself sizes blobs in `LayerSetUp`.

use crate::graph::{Graph, NodeId, OutputRef};
use crate::infer::OpContext;
use crate::internal::catch_internal;
use crate::op::{OpError, OpSchema, WeightShapesFn};
use crate::ops::nn::dims::merge_shapes;
use crate::types::TensorDesc;
use smallvec::SmallVec;

/// A weight to complete: a Const without a value whose shape is not static.
fn is_placeholder(graph: &Graph, edge: OutputRef) -> bool {
    let desc = graph.tensor(edge);
    graph.node(edge.node).op_type == "Const" && desc.value.is_none() && !desc.shape().is_static()
}

/// Gives node `id`'s placeholder weights the shapes `shapes_of` says it
/// needs; dims the weight already knows must agree.
pub(super) fn complete_weights(
    graph: &mut Graph,
    id: NodeId,
    schema: &OpSchema,
    shapes_of: &WeightShapesFn,
) -> Result<(), OpError> {
    let node = graph.node(id);
    if !node
        .inputs
        .iter()
        .flatten()
        .any(|&e| is_placeholder(graph, e))
    {
        return Ok(());
    }
    let wanted = {
        let inputs: SmallVec<[Option<&TensorDesc>; 6]> = node
            .inputs
            .iter()
            .map(|e| e.map(|e| graph.tensor(e)))
            .collect();
        let mut no_outputs: [TensorDesc; 0] = [];
        let mut ctx = OpContext::new(node, schema, &inputs, &mut no_outputs);
        catch_internal(|| shapes_of(&mut ctx))
            .unwrap_or_else(|bug| Err(OpError::new(bug.to_string())))?
    };
    for (i, shape) in wanted {
        let node = graph.node(id);
        let Some(&slot) = node.inputs.get(i) else {
            return Err(OpError::new(format!(
                "weight_shapes names input {i}, but the node has {} inputs",
                node.inputs.len()
            )));
        };
        // An absent optional weight, or an input that is a weight in other
        // models and data here (Caffe Scale's factor as a second bottom).
        let Some(edge) = slot else {
            continue;
        };
        if !is_placeholder(graph, edge) {
            continue;
        }
        let merged = merge_shapes(
            graph.tensor(edge).shape(),
            &shape,
            &format!(
                "weight '{}' does not have the shape the layer needs",
                graph.node(edge.node).name
            ),
        )?;
        graph.node_mut(edge.node).outputs[edge.index as usize].set_shape(merged);
    }
    Ok(())
}
