//! The framework-level graph: what a decoder produces and what scope fusion
//! and parser plugins consume. One `FrameworkOp` is GE's "src" operator: the
//! framework node with its attributes already converted to IR attribute
//! values (TensorFlow `s`→Str, `i`→Int, `type`→DataType, `shape`→ListInt,
//! `tensor`→Tensor, `func`→NamedAttrs, lists likewise).

use super::Framework;
use crate::types::{Attrs, OpTypeName};
use rustc_hash::FxHashMap;
use thin_vec::ThinVec;

/// The name of the [`NamedAttrs`](crate::types::NamedAttrs) standing for a
/// tensor without host bytes (a `Const` op's `value`): attrs `dtype`
/// (DataType) and `shape` (ListInt, -1 for unknown dims, `[-2]` for unknown
/// rank). Decoders use it for tensors the IR cannot hold (TensorFlow
/// strings) and for weights not given (Caffe nets without a `.caffemodel`).
pub const OPAQUE_TENSOR: &str = "opaque_tensor";

/// Which output of which framework node feeds an input.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FrameworkInput {
    /// Producer node name (or a function argument's name inside a body);
    /// empty for an absent optional input ([`FrameworkInput::absent`]).
    pub node: String,
    /// FunctionDef bodies name outputs by output argument (`node:arg:i`);
    /// `None` means `index` is already a flat output index (`node:i`).
    /// Boxed (two words, not three): only body inputs set it.
    pub output_arg: Option<Box<str>>,
    /// Flat output index, or the index within `output_arg`.
    pub index: u32,
}

impl FrameworkInput {
    /// Flat output `index` of `node`.
    pub fn new(node: impl Into<String>, index: u32) -> FrameworkInput {
        FrameworkInput {
            node: node.into(),
            output_arg: None,
            index,
        }
    }

    /// An omitted optional input (ONNX's empty value name): the IR input
    /// stays unconnected.
    pub fn absent() -> FrameworkInput {
        FrameworkInput::new("", 0)
    }

    pub fn is_absent(&self) -> bool {
        self.node.is_empty()
    }
}

/// One framework node (GE's src operator).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameworkOp {
    pub name: String,
    /// The framework's op type (the "origin op type"), e.g. `TopKV2`.
    pub op_type: OpTypeName,
    /// Data inputs in order.
    pub inputs: Vec<FrameworkInput>,
    /// Ordering-only inputs (TensorFlow `^name`), by producer name. This,
    /// `fused_ops` and `params` are thin vectors (one word): most ops have
    /// none of them.
    pub control_inputs: ThinVec<String>,
    pub attrs: Attrs,
    /// Ops a scope-fusion pass folded into this one, in graph order (GE's
    /// `FusionParseParamsFn` receives them); empty for ordinary ops.
    pub fused_ops: ThinVec<FrameworkOp>,
    /// Parameter messages kept with their structure, by field name (a
    /// Caffe layer's `convolution_param` …), beside the flattened `attrs`;
    /// empty for frameworks whose attributes are already structured.
    pub params: ThinVec<(String, ParamValue)>,
}

/// A protobuf field value with its structure: what [`FrameworkOp::params`]
/// holds.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    Int(i64),
    /// A uint64 above `i64::MAX` (smaller ones are `Int`).
    UInt(u64),
    Float(f64),
    Bool(bool),
    Str(String),
    Bytes(Vec<u8>),
    /// An enum value: its name (its number when the enum does not name it)
    /// and its number.
    Enum {
        name: String,
        number: i32,
    },
    /// A repeated field, empty when nothing is set.
    List(Vec<ParamValue>),
    /// A message: its fields by name, in field-number order.
    Message(Vec<(String, ParamValue)>),
}

impl ParamValue {
    /// Field `name` of a message value.
    pub fn field(&self, name: &str) -> Option<&ParamValue> {
        match self {
            ParamValue::Message(fields) => fields.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// A function body (TensorFlow FunctionDef) used by If/While/calls.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameworkFunction {
    pub name: String,
    /// Argument names in signature order; inside the body each is bound to a
    /// synthetic `_Arg` op of that name with attrs `index` and `T`.
    pub inputs: Vec<String>,
    /// Returned tensors in signature order.
    pub outputs: Vec<FrameworkInput>,
    /// Body ops, including the synthetic `_Arg` ops first.
    pub ops: Vec<FrameworkOp>,
    /// FunctionDef attrs (e.g. `_input_shapes`), converted like op attrs.
    pub attrs: Attrs,
}

/// A decoded model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameworkGraph {
    pub name: String,
    /// Which framework's plugins map its ops.
    pub framework: Framework,
    pub ops: Vec<FrameworkOp>,
    pub functions: Vec<FrameworkFunction>,
}

impl FrameworkGraph {
    /// Library function `name` (the first of that name). A linear scan: a
    /// pass that looks functions up repeatedly builds a [`FunctionIndex`].
    pub fn function(&self, name: &str) -> Option<&FrameworkFunction> {
        self.functions.iter().find(|f| f.name == name)
    }

    /// The library indexed by function name, built once per pass.
    pub fn function_index(&self) -> FunctionIndex<'_> {
        let mut by_name = FxHashMap::default();
        by_name.reserve(self.functions.len());
        for f in &self.functions {
            // The first of a name wins, as in `function`.
            by_name.entry(f.name.as_str()).or_insert(f);
        }
        FunctionIndex { by_name }
    }
}

/// Library functions by name: constant-time lookups for passes that follow
/// calls (a library can hold a hundred thousand functions).
#[derive(Clone, Debug, Default)]
pub struct FunctionIndex<'f> {
    by_name: FxHashMap<&'f str, &'f FrameworkFunction>,
}

impl<'f> FunctionIndex<'f> {
    pub fn get(&self, name: &str) -> Option<&'f FrameworkFunction> {
        self.by_name.get(name).copied()
    }

    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }
}
