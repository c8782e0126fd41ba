//! The IR operator a parser plugin fills in (GE's "dst" `ge::Operator`).

use crate::types::{AttrValue, Attrs, Format, HostTensor};

/// An IR operator under construction: type, attributes, dynamic port sizes
/// and tensor formats. The converter wires its inputs from the framework
/// op's inputs (after the plugin's input edits) and adds it to the graph.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpDraft {
    pub name: String,
    /// IR op type (a registered OperatorFactory type).
    pub op_type: String,
    pub attrs: Attrs,
    /// Instance counts of DYNAMIC inputs by IR port name (default 1).
    pub dynamic_inputs: Vec<(String, u32)>,
    /// Instance counts of DYNAMIC outputs by IR port name (default 1).
    pub dynamic_outputs: Vec<(String, u32)>,
    /// Format (origin and current) of every input and output tensor not
    /// named in `input_formats` / `output_formats` (from `data_format`).
    pub format: Option<Format>,
    /// Formats (origin and current) of input tensors by flat input index.
    pub input_formats: Vec<(u32, Format)>,
    /// Formats (origin and current) of output tensors by flat output index.
    pub output_formats: Vec<(u32, Format)>,
    /// Constants the converter adds as inputs, by flat input position
    /// (GE's ONNX plugins turn attributes that later opsets made inputs
    /// into such constants): applied in order, each position counting the
    /// inputs after the earlier ones. A constant fills an absent input at
    /// its position, else is inserted there. Each becomes a Const node
    /// named `<node>/<label>`, or `<node>/<label>_<k>` (k = 2, 3 ...) when
    /// the graph or a framework op already has that name.
    pub const_inputs: Vec<ConstInput>,
}

/// One constant input a plugin asks for (see [`OpDraft::const_inputs`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ConstInput {
    pub position: u32,
    /// Names the Const node, after the op's name.
    pub label: String,
    pub value: HostTensor,
}

impl OpDraft {
    pub fn new(name: impl Into<String>, op_type: impl Into<String>) -> OpDraft {
        OpDraft {
            name: name.into(),
            op_type: op_type.into(),
            ..OpDraft::default()
        }
    }

    pub fn set_attr(&mut self, name: impl Into<crate::types::AttrKey>, value: AttrValue) {
        self.attrs.set(name, value);
    }

    /// Sizes DYNAMIC input port `port` (replacing an earlier size).
    pub fn set_dynamic_input(&mut self, port: &str, count: u32) {
        set_count(&mut self.dynamic_inputs, port, count);
    }

    /// Sizes DYNAMIC output port `port` (replacing an earlier size).
    pub fn set_dynamic_output(&mut self, port: &str, count: u32) {
        set_count(&mut self.dynamic_outputs, port, count);
    }

    /// The format input `index` ends up with, if any was set.
    pub fn input_format(&self, index: u32) -> Option<Format> {
        lookup(&self.input_formats, index).or(self.format)
    }

    /// The format output `index` ends up with, if any was set.
    pub fn output_format(&self, index: u32) -> Option<Format> {
        lookup(&self.output_formats, index).or(self.format)
    }

    pub fn set_input_format(&mut self, index: u32, format: Format) {
        set_format(&mut self.input_formats, index, format);
    }

    pub fn set_output_format(&mut self, index: u32, format: Format) {
        set_format(&mut self.output_formats, index, format);
    }

    /// Inserts `value` as input `position` (see [`OpDraft::const_inputs`]).
    pub fn insert_const_input(&mut self, position: u32, label: &str, value: HostTensor) {
        self.const_inputs.push(ConstInput {
            position,
            label: label.to_owned(),
            value,
        });
    }
}

fn set_count(counts: &mut Vec<(String, u32)>, port: &str, count: u32) {
    match counts.iter_mut().find(|(p, _)| p == port) {
        Some(entry) => entry.1 = count,
        None => counts.push((port.to_owned(), count)),
    }
}

fn set_format(formats: &mut Vec<(u32, Format)>, index: u32, format: Format) {
    match formats.iter_mut().find(|(i, _)| *i == index) {
        Some(entry) => entry.1 = format,
        None => formats.push((index, format)),
    }
}

fn lookup(formats: &[(u32, Format)], index: u32) -> Option<Format> {
    formats.iter().find(|(i, _)| *i == index).map(|(_, f)| *f)
}
