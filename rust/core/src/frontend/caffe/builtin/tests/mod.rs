//! The built-in Caffe plugins on framework graphs built by hand the way the
//! decoder builds them (the contract in `caffe/mod.rs`): net inputs as
//! Placeholders, one op per layer named after it with the layer's
//! parameters as attributes (plus its `top` names), bottoms then weight
//! blobs as inputs, in-place layers as new versions of their blob. Each
//! network is converted with the built-in plugins and inferred; the shapes
//! are worked out by hand from Caffe's layer rules.

mod conv;
mod layers;
mod pooling;
mod shape_ops;

use super::plugins;
use crate::frontend::convert::{convert, ConvertOptions};
use crate::frontend::plugin::assert_builtin_plugins_are_consistent;
use crate::frontend::{
    Framework, FrameworkGraph, FrameworkInput, FrameworkOp, PluginRegistry, OPAQUE_TENSOR,
};
use crate::graph::{Graph, OutputRef};
use crate::infer::{infer_graph, InferOptions};
use crate::op::OpRegistry;
use crate::types::{AttrValue, Attrs, DataType, NamedAttrs};
use rustc_hash::FxHashMap;

/// A Caffe net as the decoder hands it to the plugins.
pub(super) struct Net {
    ops: Vec<FrameworkOp>,
    /// Blob name → the op (and output) holding its current version.
    blobs: FxHashMap<String, FrameworkInput>,
}

impl Net {
    /// A net with one FLOAT input blob `name` of shape `dims`.
    pub fn with_input(name: &str, dims: &[i64]) -> Net {
        let mut net = Net {
            ops: Vec::new(),
            blobs: FxHashMap::default(),
        };
        net.input(name, dims);
        net
    }

    pub fn input(&mut self, name: &str, dims: &[i64]) -> &mut Net {
        let attrs: Attrs = [
            ("dtype", AttrValue::DataType(DataType::Float)),
            ("shape", AttrValue::ListInt(dims.to_vec())),
        ]
        .into_iter()
        .collect();
        self.push(name, "Placeholder", Vec::new(), attrs);
        self.blobs.insert(name.into(), FrameworkInput::new(name, 0));
        self
    }

    /// Layer `name` of `op_type` reading `bottoms`, writing `tops`, with
    /// weight blobs of the given shapes (opaque, as without a weights file)
    /// and its parameters `params`.
    pub fn layer(
        &mut self,
        name: &str,
        op_type: &str,
        bottoms: &[&str],
        tops: &[&str],
        blobs: &[&[i64]],
        params: Vec<(&str, AttrValue)>,
    ) -> &mut Net {
        let mut inputs: Vec<FrameworkInput> = bottoms
            .iter()
            .map(|b| {
                self.blobs
                    .get(*b)
                    .unwrap_or_else(|| panic!("no blob '{b}' before layer '{name}'"))
                    .clone()
            })
            .collect();
        for (i, dims) in blobs.iter().enumerate() {
            let blob = format!("{name}/blobs/{i}");
            let value = opaque(dims);
            self.push(
                &blob,
                "Const",
                Vec::new(),
                [("value", value)].into_iter().collect(),
            );
            inputs.push(FrameworkInput::new(blob, 0));
        }
        let mut attrs: Attrs = params.into_iter().collect();
        let names = |v: &[&str]| AttrValue::ListStr(v.iter().map(|s| (*s).to_owned()).collect());
        attrs.set("bottom", names(bottoms));
        attrs.set("top", names(tops));
        self.push(name, op_type, inputs, attrs);
        for (i, top) in tops.iter().enumerate() {
            self.blobs
                .insert((*top).into(), FrameworkInput::new(name, i as u32));
        }
        self
    }

    /// A layer with one bottom and one top named after the layer, no blobs.
    pub fn simple(
        &mut self,
        name: &str,
        op_type: &str,
        bottom: &str,
        params: Vec<(&str, AttrValue)>,
    ) -> &mut Net {
        self.layer(name, op_type, &[bottom], &[name], &[], params)
    }

    fn push(&mut self, name: &str, op_type: &str, inputs: Vec<FrameworkInput>, attrs: Attrs) {
        self.ops.push(FrameworkOp {
            name: name.into(),
            op_type: op_type.into(),
            inputs,
            attrs,
            ..FrameworkOp::default()
        });
    }

    pub fn graph(&self) -> FrameworkGraph {
        FrameworkGraph {
            name: "net".into(),
            framework: Framework::Caffe,
            ops: self.ops.clone(),
            functions: Vec::new(),
        }
    }

    /// Converted with the built-in plugins and inferred, or the first error.
    pub fn infer(&self) -> Result<Graph, String> {
        let ops = OpRegistry::with_builtins();
        let plugins = PluginRegistry::with_builtins();
        let mut g = convert(&self.graph(), &plugins, &ops, &ConvertOptions::default())
            .map_err(|e| e.to_string())?;
        let options = InferOptions {
            collect_errors: true,
            ..InferOptions::default()
        };
        infer_graph(&mut g, &ops, options).map_err(|failures| {
            let text: Vec<String> = failures.iter().map(ToString::to_string).collect();
            text.join("\n")
        })?;
        Ok(g)
    }

    /// Shape of output 0 of each named layer after inference.
    pub fn shapes(&self, layers: &[&str]) -> Vec<Vec<i64>> {
        let g = self.infer().unwrap_or_else(|e| panic!("{e}"));
        layers.iter().map(|l| shape(&g, l, 0)).collect()
    }

    /// Shape of output 0 of layer `layer`.
    pub fn shape(&self, layer: &str) -> Vec<i64> {
        self.shapes(&[layer]).remove(0)
    }

    /// The error converting or inferring the net gives.
    pub fn error(&self) -> String {
        match self.infer() {
            Ok(_) => panic!("the net should fail"),
            Err(e) => e,
        }
    }
}

/// A weight blob without its bytes (dims -1 where the decoder cannot know them).
fn opaque(dims: &[i64]) -> AttrValue {
    let attrs: Attrs = [
        ("dtype", AttrValue::DataType(DataType::Float)),
        ("shape", AttrValue::ListInt(dims.to_vec())),
    ]
    .into_iter()
    .collect();
    AttrValue::NamedAttrs(Box::new(NamedAttrs {
        name: OPAQUE_TENSOR.into(),
        attrs,
    }))
}

pub(super) fn shape(g: &Graph, node: &str, index: u32) -> Vec<i64> {
    let id = g.find(node).unwrap_or_else(|| panic!("no node '{node}'"));
    g.tensor(OutputRef::new(id, index)).shape().dims().to_vec()
}

/// The IR op type of node `node`.
pub(super) fn op_type(g: &Graph, node: &str) -> String {
    g.node(g.find(node).unwrap()).op_type.to_string()
}

/// Attribute `name` of node `node`.
pub(super) fn attr(g: &Graph, node: &str, name: &str) -> AttrValue {
    let n = g.node(g.find(node).unwrap());
    n.attrs
        .get(name)
        .unwrap_or_else(|| panic!("node '{node}' has no attribute '{name}'"))
        .clone()
}

/// A layer's parameters (or an IR op's expected attributes) by name.
pub(super) type Params = Vec<(&'static str, AttrValue)>;

pub(super) fn int(v: i64) -> AttrValue {
    AttrValue::Int(v)
}

pub(super) fn ints(v: &[i64]) -> AttrValue {
    AttrValue::ListInt(v.to_vec())
}

pub(super) fn float(v: f64) -> AttrValue {
    AttrValue::Float(v)
}

pub(super) fn boolean(v: bool) -> AttrValue {
    AttrValue::Bool(v)
}

pub(super) fn text(v: &str) -> AttrValue {
    AttrValue::Str(v.into())
}

#[test]
fn every_plugin_maps_onto_a_registered_ir_op_once() {
    assert_builtin_plugins_are_consistent(&plugins(), Framework::Caffe);
}

#[test]
fn the_layers_of_the_issue_have_plugins() {
    let registry = PluginRegistry::with_builtins();
    let needed = [
        "Placeholder",
        "Const",
        "Input",
        "Convolution",
        "Deconvolution",
        "Pooling",
        "InnerProduct",
        "ReLU",
        "PReLU",
        "Sigmoid",
        "TanH",
        "ELU",
        "AbsVal",
        "Power",
        "Exp",
        "Log",
        "BNLL",
        "BatchNorm",
        "Scale",
        "Bias",
        "Eltwise",
        "Concat",
        "Slice",
        "Split",
        "Softmax",
        "LRN",
        "Dropout",
        "Flatten",
        "Reshape",
        "Crop",
        "ArgMax",
        "Threshold",
        "Tile",
        "Reduction",
        "MVN",
    ];
    let missing: Vec<&str> = needed
        .into_iter()
        .filter(|t| registry.get(Framework::Caffe, t).is_none())
        .collect();
    assert!(missing.is_empty(), "no Caffe plugin for {missing:?}");
    // The TensorFlow plugins of the same names do not serve Caffe nets.
    assert_eq!(
        registry
            .get(Framework::Caffe, "Relu")
            .map(|p| p.op_type.clone()),
        None
    );
}

#[test]
fn unsupported_layer_types_are_listed_together_with_counts() {
    let mut net = Net::with_input("data", &[1, 3, 8, 8]);
    net.simple("a1", "FancyActivation", "data", vec![])
        .simple("relu", "ReLU", "a1", vec![])
        .simple("a2", "FancyActivation", "relu", vec![])
        .simple("norm", "WeirdNorm", "a2", vec![]);
    let error = net.error();
    assert!(
        error.contains("no parser plugin for 2 op types")
            && error.contains("FancyActivation (2 nodes, e.g. 'a1')")
            && error.contains("WeirdNorm (1 node, e.g. 'norm')"),
        "{error}"
    );
}

#[test]
fn a_plugin_error_names_the_layer_and_its_type() {
    let mut net = Net::with_input("data", &[1, 3, 8, 8]);
    net.simple("pick", "ArgMax", "data", vec![("top_k", text("three"))]);
    let error = net.error();
    assert!(
        error.contains("plugin for 'ArgMax' failed on node 'pick'")
            && error.contains(
                "attribute 'top_k' of layer 'pick' must be an int, got the string 'three'"
            ),
        "{error}"
    );
}
