//! The built-in ONNX parser plugins: the standard operator set (domain
//! `ai.onnx`), opsets 7 to 23, mapped onto the op library by op family.
//! Each plugin is registered at the opset where the op's form last changed
//! (`ai.onnx::13::Squeeze` serves 13 and later, `ai.onnx::1::Squeeze` the
//! earlier ones); attributes that later opsets made inputs become constant
//! inputs ([`OpDraft::insert_const_input`]), so one IR op serves both forms.

mod elementwise;
mod generators;
mod nn;
mod quantized;
mod reduce;
mod scan;
mod sequence;
mod shape;
mod structure;
#[cfg(test)]
mod tests;

use super::opset::DEFAULT_DOMAIN;
use crate::frontend::{Framework, FrameworkOp, OpDraft, ParserPlugin, PluginError};
use crate::types::{AttrValue, DataType, HostTensor, Shape};

/// Every built-in ONNX plugin.
pub(super) fn plugins() -> Vec<ParserPlugin> {
    let mut all = structure::plugins();
    all.extend(elementwise::plugins());
    all.extend(nn::plugins());
    all.extend(shape::plugins());
    all.extend(reduce::plugins());
    all.extend(quantized::plugins());
    all.extend(generators::plugins());
    all.extend(sequence::plugins());
    all.extend(scan::plugins());
    all
}

/// `ai.onnx::<since>::<op_type>`.
fn origin(op_type: &str, since: i64) -> String {
    format!("{DEFAULT_DOMAIN}::{since}::{op_type}")
}

/// A built-in plugin for `op_type` of the default domain from opset
/// `since`, onto IR `ir_op` with `parse`.
fn plugin(
    ir_op: &str,
    op_type: &str,
    since: i64,
    parse: impl Fn(&FrameworkOp, &mut OpDraft) -> Result<(), PluginError> + Send + Sync + 'static,
) -> ParserPlugin {
    let origin = origin(op_type, since);
    ParserPlugin::builtin(Framework::Onnx, ir_op, &[origin.as_str()], parse)
}

/// A plugin that only renames: the IR op takes no attributes from the node.
fn renamed(ir_op: &str, op_type: &str) -> ParserPlugin {
    plugin(ir_op, op_type, 1, |_, _| Ok(()))
}

/// Typed access to a node's ONNX attributes; errors name the node and the
/// attribute and say what was expected.
struct Node<'a> {
    op: &'a FrameworkOp,
}

impl<'a> Node<'a> {
    fn of(op: &'a FrameworkOp) -> Node<'a> {
        Node { op }
    }

    fn error(&self, why: impl std::fmt::Display) -> PluginError {
        PluginError::new(format!("node '{}': {why}", self.op.name))
    }

    fn wrong(&self, name: &str, expected: &str, got: &AttrValue) -> PluginError {
        self.error(format_args!(
            "attribute '{name}' must be {expected}, got {}",
            got.attr_type()
        ))
    }

    fn has(&self, name: &str) -> bool {
        self.op.attrs.get(name).is_some()
    }

    fn int(&self, name: &str) -> Result<Option<i64>, PluginError> {
        match self.op.attrs.get(name) {
            None => Ok(None),
            Some(AttrValue::Int(v)) => Ok(Some(*v)),
            Some(other) => Err(self.wrong(name, "an int", other)),
        }
    }

    fn int_or(&self, name: &str, default: i64) -> Result<i64, PluginError> {
        Ok(self.int(name)?.unwrap_or(default))
    }

    fn float_or(&self, name: &str, default: f64) -> Result<f64, PluginError> {
        match self.op.attrs.get(name) {
            None => Ok(default),
            Some(AttrValue::Float(v)) => Ok(*v),
            Some(AttrValue::Int(v)) => Ok(*v as f64),
            Some(other) => Err(self.wrong(name, "a float", other)),
        }
    }

    fn ints(&self, name: &str) -> Result<Option<Vec<i64>>, PluginError> {
        match self.op.attrs.get(name) {
            None => Ok(None),
            Some(AttrValue::ListInt(v)) => Ok(Some(v.clone())),
            Some(other) => Err(self.wrong(name, "a list of ints", other)),
        }
    }

    fn floats(&self, name: &str) -> Result<Option<Vec<f64>>, PluginError> {
        match self.op.attrs.get(name) {
            None => Ok(None),
            Some(AttrValue::ListFloat(v)) => Ok(Some(v.clone())),
            Some(AttrValue::ListInt(v)) => Ok(Some(v.iter().map(|&i| i as f64).collect())),
            Some(other) => Err(self.wrong(name, "a list of floats", other)),
        }
    }

    fn string_or(&self, name: &str, default: &str) -> Result<String, PluginError> {
        match self.op.attrs.get(name) {
            None => Ok(default.to_owned()),
            Some(AttrValue::Str(v)) => Ok(v.clone()),
            Some(other) => Err(self.wrong(name, "a string", other)),
        }
    }

    /// `to`-style attributes: an ONNX element type number.
    fn dtype(&self, name: &str) -> Result<Option<DataType>, PluginError> {
        let Some(value) = self.int(name)? else {
            return Ok(None);
        };
        let value32 = i32::try_from(value).unwrap_or(i32::MAX);
        super::dtype::ge_dtype(value32).map(Some).ok_or_else(|| {
            self.error(format_args!(
                "attribute '{name}' is element type {}, which opgraph does not support",
                super::dtype::onnx_dtype_name(value32)
            ))
        })
    }

    /// The number of data inputs the node has (absent ones in between
    /// count; outer values its subgraphs read do not).
    fn input_count(&self) -> usize {
        let captured = match self.op.attrs.get(super::CAPTURE_COUNT_ATTR) {
            Some(AttrValue::Int(n)) => usize::try_from(*n).unwrap_or(0),
            _ => 0,
        };
        self.op.inputs.len().saturating_sub(captured)
    }

    /// Whether input `i` is given (not absent, not past the end).
    fn has_input(&self, i: usize) -> bool {
        i < self.input_count() && !self.op.inputs[i].is_absent()
    }

    /// The node's ONNX output count.
    fn output_count(&self) -> usize {
        match self.op.attrs.get(super::OUTPUT_COUNT_ATTR) {
            Some(AttrValue::Int(n)) => usize::try_from(*n).unwrap_or(1),
            _ => 1,
        }
    }

    /// Copies attribute `from` (if set) onto the draft as `to`.
    fn copy(&self, dst: &mut OpDraft, from: &str, to: &str) {
        if let Some(value) = self.op.attrs.get(from) {
            dst.set_attr(to, value.clone());
        }
    }
}

/// A 1-D INT64 constant.
fn int64_vector(values: &[i64]) -> HostTensor {
    let shape = Shape::from_dims([values.len() as i64]);
    HostTensor::from_ints(DataType::Int64, shape, values).expect("INT64 holds any i64")
}

/// A scalar INT64 constant.
fn int64_scalar(value: i64) -> HostTensor {
    HostTensor::from_ints(DataType::Int64, Shape::scalar(), &[value]).expect("INT64 holds any i64")
}

/// A scalar or 1-D FLOAT constant.
fn float_tensor(values: &[f32], shape: Shape) -> HostTensor {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    HostTensor::new(DataType::Float, shape, bytes.into()).expect("one f32 per element")
}
