//! NetParameter → FrameworkGraph, per the contract in [`super`]: inputs as
//! Placeholders, kept layers as ops wired through versioned blobs, weight
//! blobs as Const inputs.

use super::attrs::layer_attrs;
use super::blob::RawBlob;
use super::layer::{layers, Layer};
use super::message::{self, strings};
use super::params::layer_params;
use super::rules::NetState;
use super::weightless::weight_shapes;
use super::weights::CaffeWeights;
use crate::frontend::{Framework, FrameworkGraph, FrameworkInput, FrameworkOp, OPAQUE_TENSOR};
use crate::types::{AttrValue, Attrs, DataType, HostTensor, NamedAttrs};
use prost_reflect::DynamicMessage;
use std::collections::{HashMap, HashSet};

/// The op type of a net input.
pub const PLACEHOLDER: &str = "Placeholder";
/// The op type of a weight blob.
pub const CONST: &str = "Const";
/// Caffe's legacy `input_dim` gives four dims per input.
const DIMS_PER_INPUT: usize = 4;

/// Why a net does not become a framework graph: a fault of the net
/// definition or of the weights file, so that the error names that file.
#[derive(Debug)]
pub(super) enum NetError {
    Net(String),
    Weights(String),
}

impl From<String> for NetError {
    fn from(why: String) -> NetError {
        NetError::Net(why)
    }
}

/// The framework graph of `net`, weights (if any) matched by layer name,
/// and warnings as `(layer type, message)`: set fields that flattening
/// drops, once per layer type.
pub(super) fn convert_net(
    net: &DynamicMessage,
    weights: Option<&CaffeWeights>,
    fallback_name: &str,
) -> Result<(FrameworkGraph, Vec<(String, String)>), NetError> {
    let state = NetState::of(net);
    let mut graph = Builder::default();
    for (blob, shape) in net_inputs(net)? {
        graph.placeholder(&blob, shape)?;
    }
    // The net's layers that have weights, and how many the file covers.
    let mut weighted: Vec<String> = Vec::new();
    let mut covered = 0usize;
    for layer in layers(net)? {
        let keep = state
            .keeps(layer.message)
            .map_err(|why| format!("layer '{}' {why}", layer.name))?;
        if !keep {
            continue;
        }
        if layer.kind == "Input" {
            graph.input_layer(&layer)?;
        } else {
            if !weight_shapes(&layer).is_empty() {
                covered += usize::from(weights.is_some_and(|w| w.has(&layer.name)));
                weighted.push(layer.name.clone());
            }
            graph.layer(&layer, weights)?;
        }
    }
    // Caffe copies trained layers by name and leaves the others as they
    // are; a file naming none of the weighted layers is not this net's
    // weights (or not a .caffemodel: other protobuf files decode as an
    // empty net).
    if weights.is_some() && covered == 0 && !weighted.is_empty() {
        let listed = crate::message::capped_list(&weighted, ", ");
        return Err(NetError::Weights(format!(
            "the weights file has blobs for none of the net's {} weighted layers ({listed}); \
             expected the .caffemodel trained for this net",
            weighted.len()
        )));
    }
    if graph.ops.is_empty() {
        return Err(NetError::Net(
            "the net has no inputs and no layers (in phase TEST)".into(),
        ));
    }
    let name = message::string(net, "name").filter(|n| !n.is_empty());
    let warnings = graph.shadow_warnings();
    let graph = FrameworkGraph {
        name: name.unwrap_or_else(|| fallback_name.to_owned()),
        framework: Framework::Caffe,
        ops: graph.ops,
        functions: Vec::new(),
    };
    Ok((graph, warnings))
}

/// A net input: its blob name and shape, if declared.
type NetInput = (String, Option<Vec<i64>>);

/// `input` blobs with their shapes from `input_shape` or `input_dim`.
fn net_inputs(net: &DynamicMessage) -> Result<Vec<NetInput>, String> {
    let names = strings(net, "input");
    let shapes: Vec<Vec<i64>> = message::messages(net, "input_shape")
        .map(|s| message::ints(s, "dim"))
        .collect();
    let dims = message::ints(net, "input_dim");
    if !shapes.is_empty() && !dims.is_empty() {
        return Err("the net gives both input_shape and input_dim; Caffe takes one".into());
    }
    if !shapes.is_empty() && shapes.len() != names.len() {
        return Err(format!(
            "the net has {} but {} input_shape entries; Caffe needs one per input",
            inputs(names.len()),
            shapes.len()
        ));
    }
    if !dims.is_empty() && dims.len() != DIMS_PER_INPUT * names.len() {
        return Err(format!(
            "the net has {} but {} input_dim values; Caffe needs {DIMS_PER_INPUT} per input",
            inputs(names.len()),
            dims.len()
        ));
    }
    Ok(names
        .into_iter()
        .enumerate()
        .map(|(i, name)| {
            let shape = if !shapes.is_empty() {
                Some(shapes[i].clone())
            } else if !dims.is_empty() {
                Some(dims[i * DIMS_PER_INPUT..(i + 1) * DIMS_PER_INPUT].to_vec())
            } else {
                None
            };
            (name, shape)
        })
        .collect())
}

/// "1 input", "2 inputs".
fn inputs(n: usize) -> String {
    format!("{n} input{}", if n == 1 { "" } else { "s" })
}

/// The graph under construction and the op that last wrote each blob.
#[derive(Default)]
struct Builder {
    ops: Vec<FrameworkOp>,
    names: HashSet<String>,
    blobs: HashMap<String, FrameworkInput>,
    /// Per layer type, the first layer whose flattening dropped set fields,
    /// with `(kept, dropped)` field paths.
    shadowed: Vec<Shadowed>,
}

/// A layer type, its first layer whose flattening dropped set fields, and
/// the `(kept, dropped)` field paths.
type Shadowed = (String, String, Vec<(String, String)>);

impl Builder {
    /// One warning per layer type whose flattened attributes lost a field
    /// the net sets, naming the field kept and the one dropped.
    fn shadow_warnings(&self) -> Vec<(String, String)> {
        self.shadowed
            .iter()
            .map(|(kind, layer, pairs)| {
                let pairs: Vec<String> = pairs
                    .iter()
                    .map(|(kept, dropped)| format!("'{dropped}' (kept '{kept}')"))
                    .collect();
                let message = format!(
                    "Caffe layer type {kind} (first in layer '{layer}'): the flattened \
                     attributes keep one field per name and drop {}; read dropped fields with \
                     FrameworkOp.param_path",
                    pairs.join(", ")
                );
                (kind.clone(), message)
            })
            .collect()
    }

    fn add(&mut self, op: FrameworkOp) -> Result<(), String> {
        if !self.names.insert(op.name.clone()) {
            return Err(format!(
                "two ops would be named '{}' (layer names, input blob names and \
                 '<layer>/blobs/<i>' weights must be unique)",
                op.name
            ));
        }
        self.ops.push(op);
        Ok(())
    }

    /// A net input (or an Input layer's top), named after its blob.
    fn placeholder(&mut self, blob: &str, shape: Option<Vec<i64>>) -> Result<(), String> {
        if self.blobs.contains_key(blob) {
            return Err(format!("blob '{blob}' is a net input produced twice"));
        }
        let mut attrs = Attrs::new();
        attrs.set("dtype", AttrValue::DataType(DataType::Float));
        if let Some(shape) = shape {
            attrs.set("shape", AttrValue::ListInt(shape));
        }
        self.add(FrameworkOp {
            name: blob.to_owned(),
            op_type: PLACEHOLDER.into(),
            attrs,
            ..FrameworkOp::default()
        })?;
        self.blobs
            .insert(blob.to_owned(), FrameworkInput::new(blob, 0));
        Ok(())
    }

    /// An Input layer: one placeholder per top, shaped by `input_param`
    /// (one shape per top, or one for all).
    fn input_layer(&mut self, layer: &Layer<'_>) -> Result<(), String> {
        let shapes: Vec<Vec<i64>> = message::message(layer.message, "input_param")
            .map(|p| {
                message::messages(p, "shape")
                    .map(|s| message::ints(s, "dim"))
                    .collect()
            })
            .unwrap_or_default();
        let tops = &layer.tops;
        if shapes.len() > 1 && shapes.len() != tops.len() {
            return Err(format!(
                "Input layer '{}' has {} tops but {} shapes; Caffe needs one shape per top or one \
                 for all",
                layer.name,
                tops.len(),
                shapes.len()
            ));
        }
        for (i, top) in tops.iter().enumerate() {
            let shape = shapes.get(i).or(shapes.first()).cloned();
            self.placeholder(top, shape)?;
        }
        Ok(())
    }

    /// A layer: its bottoms as they are now, its weight blobs, its tops.
    fn layer(&mut self, layer: &Layer<'_>, weights: Option<&CaffeWeights>) -> Result<(), NetError> {
        let mut inputs = Vec::with_capacity(layer.bottoms.len() + 2);
        for (i, bottom) in layer.bottoms.iter().enumerate() {
            let source = self.blobs.get(bottom).ok_or_else(|| {
                format!(
                    "layer '{}' reads blob '{bottom}' (bottom {i}), which no earlier input or \
                     layer produces",
                    layer.name
                )
            })?;
            inputs.push(source.clone());
        }
        let flat =
            layer_attrs(layer.message).map_err(|why| format!("layer '{}': {why}", layer.name))?;
        if !flat.shadowed.is_empty() && !self.shadowed.iter().any(|(k, _, _)| *k == layer.kind) {
            self.shadowed
                .push((layer.kind.clone(), layer.name.clone(), flat.shadowed));
        }
        let attrs = flat.attrs;
        for (i, value) in blob_values(layer, weights)?.into_iter().enumerate() {
            let blob = blob_op(&layer.name, i, value);
            inputs.push(FrameworkInput::new(blob.name.clone(), 0));
            self.add(blob)?;
        }
        self.add(FrameworkOp {
            name: layer.name.clone(),
            op_type: layer.kind.as_str().into(),
            inputs,
            attrs,
            params: layer_params(layer.message).into(),
            ..FrameworkOp::default()
        })?;
        for (i, top) in layer.tops.iter().enumerate() {
            let in_place = layer.bottoms.get(i) == Some(top);
            if !in_place && self.blobs.contains_key(top) {
                return Err(NetError::Net(format!(
                    "layer '{}' writes blob '{top}' (top {i}), which already exists; Caffe \
                     rewrites a blob only in place (top i = bottom i)",
                    layer.name
                )));
            }
            let index = u32::try_from(i).map_err(|_| "too many tops".to_owned())?;
            self.blobs
                .insert(top.clone(), FrameworkInput::new(&layer.name, index));
        }
        Ok(())
    }
}

/// The `value` of each weight blob: from the weights file, else from the
/// net itself (`blobs` in the prototxt), else opaque with the shapes the
/// layer type has. A bad blob is the fault of the file it comes from.
fn blob_values(
    layer: &Layer<'_>,
    weights: Option<&CaffeWeights>,
) -> Result<Vec<AttrValue>, NetError> {
    let shapes = weight_shapes(layer);
    let ranks: Vec<Option<usize>> = shapes
        .iter()
        .map(|s| (s.first() != Some(&-2)).then_some(s.len()))
        .collect();
    let tensors = |tensors: Vec<HostTensor>| tensors.into_iter().map(AttrValue::Tensor).collect();
    if let Some(given) = weights.and_then(|w| w.tensors(&layer.name, &ranks)) {
        let given = given.map_err(NetError::Weights)?;
        check_given(layer, &shapes, &given).map_err(NetError::Weights)?;
        return Ok(tensors(given));
    }
    let inline: Vec<&DynamicMessage> = message::messages(layer.message, "blobs").collect();
    if !inline.is_empty() {
        let read: Result<Vec<HostTensor>, String> = inline
            .into_iter()
            .enumerate()
            .map(|(i, blob)| {
                RawBlob::read(blob)
                    .and_then(|b| b.tensor(ranks.get(i).copied().flatten()))
                    .map_err(|why| format!("blob {i} of layer '{}' {why}", layer.name))
            })
            .collect();
        return Ok(tensors(read?));
    }
    Ok(shapes.into_iter().map(opaque_float).collect())
}

/// Each of the file's blobs for `layer` must agree with every dim the
/// layer's parameters give it (`expected`: -1 a dim only the input tells,
/// `[-2]` an unknown rank), as Caffe checks when it copies them. How many
/// blobs there are is the file's to say, as in GE's parser.
fn check_given(
    layer: &Layer<'_>,
    expected: &[Vec<i64>],
    given: &[HostTensor],
) -> Result<(), String> {
    // A layer type without built-in blobs (a custom layer) checks nothing:
    // its plugin takes what the file gives.
    for (i, (want, tensor)) in expected.iter().zip(given).enumerate() {
        let have = tensor.shape().dims();
        let agrees = want.first() == Some(&-2)
            || (want.len() == have.len()
                && want.iter().zip(have).all(|(&w, &h)| w == -1 || w == h));
        if !agrees {
            let shown: Vec<String> = want
                .iter()
                .map(|&d| if d < 0 { "?".to_owned() } else { d.to_string() })
                .collect();
            return Err(format!(
                "blob {i} of layer '{}' ({}) has the shape {} in the file, but the layer's \
                 parameters give [{}]",
                layer.name,
                layer.kind,
                tensor.shape(),
                shown.join(", ")
            ));
        }
    }
    Ok(())
}

/// Blob `index` of layer `layer`: a float Const named `<layer>/blobs/<index>`.
pub(super) fn blob_op(layer: &str, index: usize, value: AttrValue) -> FrameworkOp {
    let mut attrs = Attrs::new();
    attrs.set("dtype", AttrValue::DataType(DataType::Float));
    attrs.set("value", value);
    FrameworkOp {
        name: format!("{layer}/blobs/{index}"),
        op_type: CONST.into(),
        attrs,
        ..FrameworkOp::default()
    }
}

pub(super) fn opaque_float(shape: Vec<i64>) -> AttrValue {
    let mut attrs = Attrs::new();
    attrs.set("dtype", AttrValue::DataType(DataType::Float));
    attrs.set("shape", AttrValue::ListInt(shape));
    AttrValue::NamedAttrs(Box::new(NamedAttrs {
        name: OPAQUE_TENSOR.to_owned(),
        attrs,
    }))
}
