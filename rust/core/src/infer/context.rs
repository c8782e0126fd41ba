//! `OpContext`: what a verify / infer function sees of one node, with GE's
//! index rules (inputs by instance, optional inputs by prototype index,
//! dynamic inputs by (prototype index, relative index), attributes by
//! prototype order or name).

use crate::graph::{Graph, Node};
use crate::op::{OpError, OpSchema, ValueDepend};
use crate::types::{AttrValue, DataType, Format, HostTensor, Shape, TensorDesc};
use smallvec::SmallVec;

pub struct OpContext<'a> {
    node: &'a Node,
    schema: &'a OpSchema,
    /// Input instances in order; `None` for an absent optional input.
    inputs: &'a [Option<&'a TensorDesc>],
    /// First instance of each prototype input, plus a final end marker.
    input_starts: SmallVec<[usize; 6]>,
    outputs: &'a mut [TensorDesc],
    /// Per output, which aspects a function set (`SET_*` bits).
    pub(crate) set_by_fn: SmallVec<[u8; 4]>,
}

pub(crate) const SET_DTYPE: u8 = 1;
pub(crate) const SET_SHAPE: u8 = 2;
pub(crate) const SET_FORMAT: u8 = 4;

/// Instance start offsets from per-port counts (empty counts: one each).
pub(crate) fn port_starts(counts: &[u32], ports: usize, instances: usize) -> SmallVec<[usize; 6]> {
    let mut starts = SmallVec::with_capacity(ports + 1);
    if counts.is_empty() {
        starts.extend(0..=ports.min(instances));
        starts.resize(ports + 1, instances);
    } else {
        let mut at = 0;
        for &c in counts {
            starts.push(at);
            at += c as usize;
        }
        starts.push(at);
    }
    starts
}

impl<'a> OpContext<'a> {
    pub fn new(
        node: &'a Node,
        schema: &'a OpSchema,
        inputs: &'a [Option<&'a TensorDesc>],
        outputs: &'a mut [TensorDesc],
    ) -> OpContext<'a> {
        let input_starts = port_starts(&node.input_counts, schema.inputs.len(), inputs.len());
        let set_by_fn = SmallVec::from_elem(0, outputs.len());
        OpContext {
            node,
            schema,
            inputs,
            input_starts,
            outputs,
            set_by_fn,
        }
    }

    pub fn node_name(&self) -> &str {
        &self.node.name
    }

    pub fn op_type(&self) -> &str {
        &self.node.op_type
    }

    pub fn schema(&self) -> &OpSchema {
        self.schema
    }

    // ---- inputs -------------------------------------------------------

    /// Number of input instances (absent optional inputs included).
    pub fn input_count(&self) -> usize {
        self.inputs.len()
    }

    /// Input instance `i`, or `None` when absent or out of range.
    pub fn input_desc(&self, i: usize) -> Option<&'a TensorDesc> {
        self.inputs.get(i).copied().flatten()
    }

    /// Input instance `i`, or an error naming it when absent.
    pub fn input(&self, i: usize) -> Result<&'a TensorDesc, OpError> {
        self.input_desc(i).ok_or_else(|| {
            OpError::new(format!(
                "input {i} is {} (the node has {} input instances)",
                if i < self.inputs.len() { "absent" } else { "out of range" },
                self.inputs.len()
            ))
        })
    }

    pub fn input_shape(&self, i: usize) -> Result<&'a Shape, OpError> {
        Ok(self.input(i)?.shape())
    }

    pub fn input_dtype(&self, i: usize) -> Result<DataType, OpError> {
        Ok(self.input(i)?.dtype)
    }

    /// Instance range of prototype input `ir_index`.
    fn port_range(&self, ir_index: usize) -> Result<std::ops::Range<usize>, OpError> {
        if ir_index + 1 >= self.input_starts.len() {
            crate::bail!(
                "{} has {} prototype inputs; index {ir_index} is out of range",
                self.schema.op_type,
                self.schema.inputs.len()
            );
        }
        Ok(self.input_starts[ir_index]..self.input_starts[ir_index + 1])
    }

    /// Prototype input `ir_index` when present (GE's `GetOptionalInputDesc`).
    pub fn optional_input_desc(&self, ir_index: usize) -> Result<Option<&'a TensorDesc>, OpError> {
        let range = self.port_range(ir_index)?;
        Ok(range.clone().next().and_then(|i| self.input_desc(i)))
    }

    /// Instances of dynamic prototype input `ir_index`.
    pub fn dynamic_input_count(&self, ir_index: usize) -> Result<usize, OpError> {
        Ok(self.port_range(ir_index)?.len())
    }

    /// Instance `relative` of dynamic prototype input `ir_index`.
    pub fn dynamic_input_desc(&self, ir_index: usize, relative: usize) -> Result<&'a TensorDesc, OpError> {
        let range = self.port_range(ir_index)?;
        if relative >= range.len() {
            crate::bail!(
                "dynamic input '{}' has {} instances; index {relative} is out of range",
                self.schema.inputs[ir_index].name,
                range.len()
            );
        }
        self.input(range.start + relative)
    }

    /// The prototype input an instance belongs to.
    pub fn prototype_input_of(&self, instance: usize) -> Option<usize> {
        self.input_starts.windows(2).position(|w| (w[0]..w[1]).contains(&instance))
    }

    /// Host value of input instance `i`: only for inputs the prototype marks
    /// value-depend, and only when the producer's value is known.
    pub fn input_value(&self, i: usize) -> Option<&'a HostTensor> {
        let port = self.prototype_input_of(i)?;
        self.schema.inputs[port].value_depend?;
        self.input_desc(i)?.value.as_ref()
    }

    /// The value-depend kind of input instance `i`, if any.
    pub fn value_depend(&self, i: usize) -> Option<ValueDepend> {
        self.schema.inputs[self.prototype_input_of(i)?].value_depend
    }

    // ---- attributes ---------------------------------------------------

    /// Attribute `name`: the node's value, else the prototype default.
    pub fn attr(&self, name: &str) -> Option<&'a AttrValue> {
        let node: &'a Node = self.node;
        let schema: &'a OpSchema = self.schema;
        node.attrs
            .get(name)
            .or_else(|| schema.attr_def(name)?.default.as_ref())
    }

    /// Attribute by prototype order.
    pub fn attr_at(&self, index: usize) -> Option<(&'a str, &'a AttrValue)> {
        let schema: &'a OpSchema = self.schema;
        let def = schema.attrs.get(index)?;
        Some((def.name.as_str(), self.attr(&def.name)?))
    }

    fn typed<T>(&self, name: &str, want: &str, pick: impl FnOnce(&'a AttrValue) -> Option<T>) -> Result<T, OpError> {
        let value = self
            .attr(name)
            .ok_or_else(|| OpError::new(format!("attribute '{name}' is missing")))?;
        pick(value).ok_or_else(|| {
            OpError::new(format!(
                "attribute '{name}' is a {}, expected {want}",
                value.attr_type()
            ))
        })
    }

    pub fn attr_int(&self, name: &str) -> Result<i64, OpError> {
        self.typed(name, "int", |v| match v {
            AttrValue::Int(i) => Some(*i),
            _ => None,
        })
    }

    pub fn attr_float(&self, name: &str) -> Result<f64, OpError> {
        self.typed(name, "float", |v| match v {
            AttrValue::Float(f) => Some(*f),
            AttrValue::Int(i) => Some(*i as f64),
            _ => None,
        })
    }

    pub fn attr_bool(&self, name: &str) -> Result<bool, OpError> {
        self.typed(name, "bool", |v| match v {
            AttrValue::Bool(b) => Some(*b),
            _ => None,
        })
    }

    pub fn attr_str(&self, name: &str) -> Result<&'a str, OpError> {
        self.typed(name, "str", |v| match v {
            AttrValue::Str(s) => Some(s.as_str()),
            _ => None,
        })
    }

    pub fn attr_dtype(&self, name: &str) -> Result<DataType, OpError> {
        self.typed(name, "DataType", |v| match v {
            AttrValue::DataType(d) => Some(*d),
            _ => None,
        })
    }

    pub fn attr_ints(&self, name: &str) -> Result<&'a [i64], OpError> {
        self.typed(name, "list[int]", |v| match v {
            AttrValue::ListInt(l) => Some(l.as_slice()),
            _ => None,
        })
    }

    // ---- outputs ------------------------------------------------------

    pub fn output_count(&self) -> usize {
        self.outputs.len()
    }

    fn output_mut(&mut self, i: usize, aspect: u8) -> Result<&mut TensorDesc, OpError> {
        let count = self.outputs.len();
        let desc = self
            .outputs
            .get_mut(i)
            .ok_or_else(|| OpError::new(format!("output {i} is out of range (the node has {count} outputs)")))?;
        self.set_by_fn[i] |= aspect;
        Ok(desc)
    }

    /// The output as inferred so far.
    pub fn output_desc(&self, i: usize) -> Option<&TensorDesc> {
        self.outputs.get(i)
    }

    pub fn set_output_shape(&mut self, i: usize, shape: Shape) -> Result<(), OpError> {
        self.output_mut(i, SET_SHAPE)?.set_shape(shape);
        Ok(())
    }

    pub fn set_output_dtype(&mut self, i: usize, dtype: DataType) -> Result<(), OpError> {
        self.output_mut(i, SET_DTYPE)?.dtype = dtype;
        Ok(())
    }

    pub fn set_output_format(&mut self, i: usize, format: Format) -> Result<(), OpError> {
        self.output_mut(i, SET_FORMAT)?.set_format(format);
        Ok(())
    }

    pub fn set_output_shape_range(&mut self, i: usize, range: Vec<(i64, i64)>) -> Result<(), OpError> {
        self.output_mut(i, 0)?.shape_range = Some(range);
        Ok(())
    }

    /// Attaches a host value (folded constant) to an output.
    pub fn set_output_value(&mut self, i: usize, value: HostTensor) -> Result<(), OpError> {
        self.output_mut(i, 0)?.value = Some(value);
        Ok(())
    }

    // ---- subgraphs ----------------------------------------------------

    /// A body of this node (already inferred when the node's own functions run).
    pub fn subgraph(&self, name: &str) -> Option<&'a Graph> {
        let node: &'a Node = self.node;
        node.subgraph(name)
    }

    pub fn subgraph_names(&self) -> impl Iterator<Item = &'a str> {
        let node: &'a Node = self.node;
        node.subgraphs.iter().map(|s| s.name.as_str())
    }
}


impl<'a> OpContext<'a> {
    /// Instances per prototype output. Borrowed from the node, not from the
    /// context, so callers can keep iterating while they set outputs.
    pub(crate) fn node_output_counts(&self) -> &'a [u32] {
        let node: &'a Node = self.node;
        &node.output_counts
    }

    /// The first instance of prototype input `port`, when it has one and it
    /// is present (what a `Follow` rule reads).
    pub(crate) fn first_instance_of(&self, port: usize) -> Option<&'a TensorDesc> {
        // Instance `start` belongs to `port` exactly when the port's
        // instance range is non-empty (the starts never decrease).
        let (&start, &end) = (self.input_starts.get(port)?, self.input_starts.get(port + 1)?);
        if start < end {
            self.input_desc(start)
        } else {
            None
        }
    }
}
