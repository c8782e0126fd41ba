//! `OpContext`: what a verify / infer function sees of one node, with GE's
//! index rules (inputs by instance, optional inputs by prototype index,
//! dynamic inputs by (prototype index, relative index), attributes by
//! prototype order or name).

use super::InferOptions;
use crate::graph::{Graph, Node};
use crate::op::{OpError, OpRegistry, OpSchema, ValueDepend};
use crate::types::{
    AttrValue, DataType, Format, HostTensor, ListInfo, Shape, TensorDesc, UNKNOWN_DIM,
};
use smallvec::SmallVec;
use std::ops::Range;
use thin_vec::ThinVec;

pub struct OpContext<'a> {
    node: &'a Node,
    schema: &'a OpSchema,
    /// Input instances in order; `None` for an absent optional input.
    inputs: &'a [Option<&'a TensorDesc>],
    outputs: &'a mut [TensorDesc],
    /// Per output, which aspects a function set (`SET_*` bits).
    pub(crate) set_by_fn: SmallVec<[u8; 4]>,
    /// The running engine's registry and options (absent for contexts
    /// built outside an engine run).
    engine: Option<(&'a OpRegistry, InferOptions)>,
}

pub(crate) const SET_DTYPE: u8 = 1;
pub(crate) const SET_SHAPE: u8 = 2;
pub(crate) const SET_FORMAT: u8 = 4;

/// `n` copies of `value`. For the small sizes nodes have, this writes one
/// constant array instead of calling `memset` (what `SmallVec::from_elem`
/// compiles to), which showed up at a few percent of inference time.
pub(crate) fn filled<T: Copy, const N: usize>(value: T, n: usize) -> SmallVec<[T; N]> {
    if n <= N {
        SmallVec::from_buf_and_len([value; N], n)
    } else {
        SmallVec::from_elem(value, n)
    }
}

impl<'a> OpContext<'a> {
    pub fn new(
        node: &'a Node,
        schema: &'a OpSchema,
        inputs: &'a [Option<&'a TensorDesc>],
        outputs: &'a mut [TensorDesc],
    ) -> OpContext<'a> {
        let set_by_fn = filled(0, outputs.len());
        OpContext {
            node,
            schema,
            inputs,
            outputs,
            set_by_fn,
            engine: None,
        }
    }

    pub(crate) fn attach_engine(&mut self, registry: &'a OpRegistry, options: InferOptions) {
        self.engine = Some((registry, options));
    }

    /// The registry of the running inference (for ops that re-infer a body,
    /// such as While's fixpoint); `None` outside an engine run.
    pub fn registry(&self) -> Option<&'a OpRegistry> {
        self.engine.map(|(r, _)| r)
    }

    /// Infers a copy of body `name` with `inputs` bound to its indexed Data
    /// nodes and returns its output descriptors: how loop ops (While) reach
    /// GE's fixpoint. The node's own body is left as the engine inferred it.
    /// The body is inferred as code that may not run (a loop may run no
    /// iteration): a value it cannot fold stays unknown.
    pub fn infer_body(
        &self,
        name: &str,
        inputs: &[Option<TensorDesc>],
    ) -> Result<Vec<TensorDesc>, OpError> {
        let Some((registry, options)) = self.engine else {
            crate::bail!("body '{name}' can only be re-inferred during an inference run");
        };
        let Some(body) = self.subgraph(name) else {
            crate::bail!("it has no body named '{name}'");
        };
        let mut body = body.clone();
        super::engine::bind_body_inputs(&mut body, inputs).map_err(OpError::new)?;
        let options = InferOptions {
            collect_errors: false,
            ..options
        };
        // Only loop ops re-infer a body, and a loop may run no iteration.
        if let Err(failures) = super::engine::infer_conditional(&mut body, registry, options) {
            let first = failures
                .first()
                .map(ToString::to_string)
                .unwrap_or_default();
            crate::bail!("body '{name}' fails for the widened loop variables: {first}");
        }
        Ok(body
            .outputs()
            .iter()
            .map(|&e| body.tensor(e).clone())
            .collect())
    }

    /// The options of the running inference (defaults outside an engine run).
    pub fn infer_options(&self) -> InferOptions {
        self.engine.map(|(_, o)| o).unwrap_or_default()
    }

    pub fn node_name(&self) -> &str {
        &self.node.name
    }

    pub fn op_type(&self) -> &str {
        &self.node.op_type
    }

    /// The attributes set on the node (without the prototype's defaults).
    pub fn node_attrs(&self) -> &'a crate::types::Attrs {
        let node: &'a Node = self.node;
        &node.attrs
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
                if i < self.inputs.len() {
                    "absent"
                } else {
                    "out of range"
                },
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

    /// Instance range of prototype input `port`: the node's per-port counts
    /// laid end to end, or one instance per port when the node has none.
    /// `None` past the last port. Worked out on demand rather than up front,
    /// since most infer functions never ask.
    fn instance_range(&self, port: usize) -> Option<Range<usize>> {
        let counts = &self.node.input_counts;
        if counts.is_empty() {
            let instances = self.inputs.len();
            return (port < self.schema.inputs.len())
                .then(|| port.min(instances)..(port + 1).min(instances));
        }
        let count = *counts.get(port)? as usize;
        let start: usize = counts[..port].iter().map(|&c| c as usize).sum();
        Some(start..start + count)
    }

    /// Instance range of prototype input `ir_index`.
    fn port_range(&self, ir_index: usize) -> Result<Range<usize>, OpError> {
        self.instance_range(ir_index).ok_or_else(|| {
            OpError::new(format!(
                "{} has {} prototype inputs; index {ir_index} is out of range",
                self.schema.op_type,
                self.schema.inputs.len()
            ))
        })
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
    pub fn dynamic_input_desc(
        &self,
        ir_index: usize,
        relative: usize,
    ) -> Result<&'a TensorDesc, OpError> {
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
        let counts = &self.node.input_counts;
        if counts.is_empty() {
            // One instance per port (while both last).
            let ports = self.schema.inputs.len();
            return (instance < ports.min(self.inputs.len())).then_some(instance);
        }
        let mut end = 0;
        counts.iter().position(|&count| {
            let start = end;
            end += count as usize;
            (start..end).contains(&instance)
        })
    }

    /// Host value of input instance `i`: only for inputs the prototype marks
    /// value-depend, and only when the producer's value is known.
    pub fn input_value(&self, i: usize) -> Option<&'a HostTensor> {
        let port = self.prototype_input_of(i)?;
        self.schema.inputs[port].value_depend?;
        self.input_desc(i)?.value.as_ref()
    }

    /// Host value of input instance `i` whatever the prototype says: for
    /// fold functions, which evaluate ops on known values, and for inputs
    /// of a dynamic port only some of whose instances decide the output
    /// (Loop's trip count and initial condition).
    pub fn input_host_value(&self, i: usize) -> Option<&'a HostTensor> {
        self.input_desc(i)?.value.as_ref()
    }

    /// Input instance `i` read as a shape vector: its value when fully
    /// known (and a valid shape), else what folding knows element by
    /// element (`-1` unknown), else `None`.
    pub fn input_shape_value(&self, i: usize) -> Option<Shape> {
        let desc = self.input_desc(i)?;
        match &desc.value {
            Some(value) if value.shape().rank() == Some(1) => Shape::new(value.to_ints()?).ok(),
            Some(_) => None,
            None => desc.shape_value.as_deref().cloned(),
        }
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

    /// Attribute `name` as the node has it, `None` when it has none (the
    /// prototype default is not consulted): for rules that read an absent
    /// attribute differently from one set to its default value.
    pub fn node_attr(&self, name: &str) -> Option<&'a AttrValue> {
        let node: &'a Node = self.node;
        node.attrs.get(name)
    }

    /// Attribute by prototype order.
    pub fn attr_at(&self, index: usize) -> Option<(&'a str, &'a AttrValue)> {
        let schema: &'a OpSchema = self.schema;
        let def = schema.attrs.get(index)?;
        Some((def.name.as_str(), self.attr(&def.name)?))
    }

    fn typed<T>(
        &self,
        name: &str,
        want: &str,
        pick: impl FnOnce(&'a AttrValue) -> Option<T>,
    ) -> Result<T, OpError> {
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
        let desc = self.outputs.get_mut(i).ok_or_else(|| {
            OpError::new(format!(
                "output {i} is out of range (the node has {count} outputs)"
            ))
        })?;
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

    pub fn set_output_shape_range(
        &mut self,
        i: usize,
        range: impl Into<ThinVec<(i64, i64)>>,
    ) -> Result<(), OpError> {
        self.output_mut(i, 0)?.shape_range = Some(range.into());
        Ok(())
    }

    /// Records what is known of an output shape vector, element by element.
    /// A negative entry cannot be a dim (folded arithmetic can produce one),
    /// so it is recorded as unknown; the result always keeps GE's conventions.
    /// An unknown rank is kept: a TensorArray handle's element shape (its
    /// TensorFlow handle data) can be one.
    pub fn set_output_shape_value(&mut self, i: usize, shape: Shape) -> Result<(), OpError> {
        if shape.is_unknown_rank() {
            self.output_mut(i, 0)?.shape_value = Some(Box::new(shape));
            return Ok(());
        }
        let dims: Vec<i64> = shape
            .dims()
            .iter()
            .map(|&d| if d < 0 { UNKNOWN_DIM } else { d })
            .collect();
        self.output_mut(i, 0)?.shape_value = Some(Box::new(Shape::from_dims(dims)));
        Ok(())
    }

    /// Records per-element bounds of an output integer vector whose value
    /// is not fully known (see `TensorDesc::value_range`).
    pub fn set_output_value_range(
        &mut self,
        i: usize,
        ranges: Vec<(i64, i64)>,
    ) -> Result<(), OpError> {
        self.output_mut(i, 0)?.value_range = Some(ranges.into());
        Ok(())
    }

    /// Marks an output as a list handle holding `list` (element dtype, count).
    pub fn set_output_list(&mut self, i: usize, list: ListInfo) -> Result<(), OpError> {
        self.output_mut(i, 0)?.list = Some(list);
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
        self.instance_range(port)?
            .next()
            .and_then(|i| self.input_desc(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::op::{ParamType, PortDef};
    use crate::types::AttrType;

    /// The instance layout `OpContext` used to precompute: the first instance
    /// of each prototype input plus an end marker.
    fn reference_starts(counts: &[u32], ports: usize, instances: usize) -> Vec<usize> {
        let mut starts = Vec::new();
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

    #[test]
    fn instance_layout_matches_the_precomputed_starts() {
        let schema = OpSchema::new("T")
            .input(PortDef::new("a", ParamType::Required))
            .input(PortDef::new("b", ParamType::Dynamic))
            .input(PortDef::new("c", ParamType::Optional))
            .output(PortDef::new("y", ParamType::Required));
        let descs: Vec<TensorDesc> = (0..6)
            .map(|i| TensorDesc::new(DataType::Float, Shape::from_dims([i]), Format::Nd))
            .collect();
        // Consistent, empty, zero-instance and inconsistent counts alike.
        let layouts: [&[u32]; 8] = [
            &[],
            &[1, 0, 1],
            &[1, 3, 0],
            &[1, 2, 1],
            &[2],
            &[1, 1],
            &[0, 0, 0, 0],
            &[1, 4, 1],
        ];
        for counts in layouts {
            for instances in 0..=5 {
                // Instance 2 is an absent optional input wherever it exists.
                let inputs: Vec<Option<&TensorDesc>> = (0..instances)
                    .map(|i| (i != 2).then(|| &descs[i]))
                    .collect();
                let mut node = Node::new("n", "T", vec![None; instances], 1);
                node.input_counts = counts.iter().copied().collect();
                let mut outputs = vec![TensorDesc::default()];
                let ctx = OpContext::new(&node, &schema, &inputs, &mut outputs);

                let starts = reference_starts(counts, schema.inputs.len(), instances);
                let port_of = |i: usize| starts.windows(2).position(|w| (w[0]..w[1]).contains(&i));
                let case = format!("counts {counts:?}, {instances} instances");
                for instance in 0..instances + 2 {
                    assert_eq!(
                        ctx.prototype_input_of(instance),
                        port_of(instance),
                        "{case}, instance {instance}"
                    );
                }
                for port in 0..5 {
                    let range = (port + 1 < starts.len()).then(|| starts[port]..starts[port + 1]);
                    let first = |r: &Range<usize>| {
                        r.clone()
                            .next()
                            .and_then(|i| inputs.get(i).copied().flatten())
                    };
                    assert_eq!(
                        ctx.optional_input_desc(port).ok(),
                        range.as_ref().map(first),
                        "{case}, port {port}"
                    );
                    assert_eq!(
                        ctx.dynamic_input_count(port).ok(),
                        range.as_ref().map(|r| r.len()),
                        "{case}, port {port}"
                    );
                    let follow = (0..instances)
                        .find(|&i| port_of(i) == Some(port))
                        .and_then(|i| ctx.input_desc(i));
                    assert_eq!(ctx.first_instance_of(port), follow, "{case}, port {port}");
                }
            }
        }
    }

    #[test]
    fn attributes_come_from_the_node_then_the_prototype_default() {
        let schema = OpSchema::new("T")
            .output(PortDef::new("y", ParamType::Required))
            .attr("k", AttrType::Int, Some(AttrValue::Int(1)))
            .attr("s", AttrType::Str, None);
        let mut node = Node::new("n", "T", vec![], 1);
        node.attrs.set("extra", AttrValue::Bool(true));
        node.attrs.set("s", AttrValue::Str("x".into()));
        let mut outputs = vec![TensorDesc::default()];
        {
            let ctx = OpContext::new(&node, &schema, &[], &mut outputs);
            assert_eq!(ctx.attr("k"), Some(&AttrValue::Int(1)));
            assert_eq!(ctx.attr("s"), Some(&AttrValue::Str("x".into())));
            assert_eq!(ctx.attr("extra"), Some(&AttrValue::Bool(true)));
            assert_eq!(ctx.attr("missing"), None);
            assert_eq!(ctx.attr_at(1), Some(("s", &AttrValue::Str("x".into()))));
            assert_eq!(ctx.attr_at(2), None);
        }
        node.attrs.set("k", AttrValue::Int(5));
        let ctx = OpContext::new(&node, &schema, &[], &mut outputs);
        assert_eq!(ctx.attr_int("k").unwrap(), 5);
        assert_eq!(ctx.attr_at(0), Some(("k", &AttrValue::Int(5))));
    }
}
