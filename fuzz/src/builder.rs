//! Turning a [`Plan`] into a `Graph` through the public builder API, the
//! way a frontend or a Python user would. Every edit here is valid by
//! construction (unique names, edges to existing outputs, required inputs
//! given), so an `add_op` / `set_input` error is a bug worth crashing on;
//! everything the *engine* should reject (bad dtypes, shapes, attributes,
//! cycles) is left in on purpose.

use crate::plan::{
    BodySpec, CallSpec, ConstDtype, ConstSpec, ConvAttrs, IntAttr, IntListAttr, OpStep, Operand,
    Plan, Rewire, ShapeSpec, Step, StrAttr, TensorSpec, MAX_BODY_OUTPUTS, MAX_BODY_STEPS,
    MAX_CALL_ARGS, MAX_RANK, MAX_REWIRES, MAX_STEPS,
};
use opgraph_core::prelude::*;
use opgraph_core::types::NamedAttrs;

/// Builds the root graph a plan describes.
pub fn build_plan(registry: &OpRegistry, plan: &Plan) -> Graph {
    let mut b = GraphBuilder::new(registry, "root");
    for step in plan.steps.iter().take(MAX_STEPS) {
        match step {
            Step::Op(op) => b.op(op),
            Step::Call(call) => b.call(call),
        }
    }
    for rewire in plan.rewires.iter().take(MAX_REWIRES) {
        b.rewire(rewire);
    }
    b.graph
}

/// Builds a PartitionedCall body: parameters (indexed Data nodes), a few
/// ops, outputs, and possibly a cycle of its own.
fn build_body(registry: &OpRegistry, spec: &BodySpec) -> Graph {
    let mut b = GraphBuilder::new(registry, "f");
    for param in spec.params.iter().take(MAX_CALL_ARGS + 1) {
        let out = b.data(&param.spec);
        if let Some(index) = param.index {
            let attr = AttrValue::Int(i64::from(index));
            b.graph.node_mut(out.node).attrs.set("index", attr);
        }
    }
    for step in spec.steps.iter().take(MAX_BODY_STEPS) {
        b.op(step);
    }
    let outputs: Vec<OutputRef> = spec
        .outputs
        .iter()
        .take(MAX_BODY_OUTPUTS)
        .filter_map(|&i| b.pick(i))
        .collect();
    b.graph
        .set_outputs(outputs)
        .expect("body outputs are picked from existing outputs");
    for rewire in spec.rewires.iter().take(MAX_REWIRES) {
        b.rewire(rewire);
    }
    b.graph
}

struct GraphBuilder<'r> {
    registry: &'r OpRegistry,
    graph: Graph,
    /// Every output built so far, in creation order: what `Existing` and
    /// rewires pick from.
    outputs: Vec<OutputRef>,
}

impl<'r> GraphBuilder<'r> {
    fn new(registry: &'r OpRegistry, name: &str) -> Self {
        GraphBuilder {
            registry,
            graph: Graph::new(name),
            outputs: Vec::new(),
        }
    }

    /// A name no node of this graph has yet (node count is a unique suffix).
    fn fresh_name(&self, kind: &str) -> String {
        format!("{kind}{}", self.graph.len())
    }

    fn pick(&self, index: u8) -> Option<OutputRef> {
        match self.outputs.len() {
            0 => None,
            n => Some(self.outputs[usize::from(index) % n]),
        }
    }

    /// The output an operand names, creating its node when it is new;
    /// `None` when it picks from an empty graph.
    fn operand(&mut self, operand: &Operand) -> Option<OutputRef> {
        match operand {
            Operand::Existing(i) => self.pick(*i),
            Operand::Data(spec) => Some(self.data(spec)),
            Operand::Const(spec) => Some(self.constant(spec)),
        }
    }

    fn data(&mut self, spec: &TensorSpec) -> OutputRef {
        let desc = TensorDesc::new(spec.dtype.0, shape_of(&spec.shape), spec.format.0);
        let out = self
            .graph
            .add_input_node(&self.fresh_name("data"), desc)
            .expect("fresh names never clash");
        self.outputs.push(out);
        out
    }

    fn constant(&mut self, spec: &ConstSpec) -> OutputRef {
        let out = self
            .graph
            .add_const_node(&self.fresh_name("const"), const_value(spec))
            .expect("fresh names never clash");
        self.outputs.push(out);
        out
    }

    fn op(&mut self, step: &OpStep) {
        match step {
            OpStep::Add(a, b) => self.simple_op("Add", &[a, b], Attrs::new()),
            OpStep::Identity(x) => self.simple_op("Identity", &[x], Attrs::new()),
            OpStep::Reshape {
                x,
                shape,
                axis,
                num_axes,
            } => {
                let mut attrs = Attrs::new();
                set_int(&mut attrs, "axis", axis);
                set_int(&mut attrs, "num_axes", num_axes);
                self.simple_op("Reshape", &[x, shape], attrs)
            }
            OpStep::Conv2D {
                x,
                filter,
                bias,
                attrs,
            } => self.conv2d(x, filter, bias.as_ref(), attrs),
        }
    }

    /// An op whose inputs are all REQUIRED, one operand each.
    fn simple_op(&mut self, op_type: &str, operands: &[&Operand], attrs: Attrs) {
        let mut inputs = Vec::with_capacity(operands.len());
        for operand in operands {
            let Some(edge) = self.operand(operand) else {
                return; // nothing to feed it yet
            };
            inputs.push(PortInput::Single(Some(edge)));
        }
        self.add(OpSpec {
            op_type: op_type.into(),
            name: self.fresh_name(op_type),
            inputs,
            attrs,
            ..OpSpec::default()
        });
    }

    fn conv2d(&mut self, x: &Operand, filter: &Operand, bias: Option<&Operand>, attrs: &ConvAttrs) {
        let (Some(x), Some(filter)) = (self.operand(x), self.operand(filter)) else {
            return;
        };
        let bias = bias.and_then(|b| self.operand(b));
        self.add(OpSpec {
            op_type: "Conv2D".into(),
            name: self.fresh_name("Conv2D"),
            inputs: vec![
                PortInput::Single(Some(x)),
                PortInput::Single(Some(filter)),
                PortInput::Single(bias),
            ],
            attrs: conv_attrs(attrs),
            ..OpSpec::default()
        });
    }

    fn call(&mut self, spec: &CallSpec) {
        let args: Vec<OutputRef> = spec
            .args
            .iter()
            .take(MAX_CALL_ARGS)
            .filter_map(|a| self.operand(a))
            .collect();
        let body = build_body(self.registry, &spec.body);
        let output_count = match spec.output_count_override {
            Some(n) => u32::from(n % 4),
            None => body.outputs().len() as u32,
        };
        let body_name = if spec.misnamed_body { "g" } else { "f" };
        let f = NamedAttrs {
            name: body_name.into(),
            attrs: Attrs::new(),
        };
        self.add(OpSpec {
            op_type: "PartitionedCall".into(),
            name: self.fresh_name("call"),
            inputs: vec![PortInput::Many(args)],
            attrs: [("f", AttrValue::NamedAttrs(f))].into_iter().collect(),
            dynamic_outputs: vec![("output".into(), output_count)],
            subgraphs: vec![Subgraph {
                name: body_name.into(),
                graph: body,
            }],
            ..OpSpec::default()
        });
    }

    fn add(&mut self, spec: OpSpec) {
        let id = add_op(&mut self.graph, self.registry, spec)
            .expect("the fuzz builder only adds well-formed nodes");
        let count = self.graph.node(id).outputs.len() as u32;
        self.outputs
            .extend((0..count).map(|i| OutputRef::new(id, i)));
    }

    /// Re-points one input edge; this is how cycles (and absent required
    /// inputs) get into the graph.
    fn rewire(&mut self, rewire: &Rewire) {
        if self.graph.is_empty() {
            return;
        }
        let node = NodeId(u32::from(rewire.node) % self.graph.len() as u32);
        let input_count = self.graph.node(node).inputs.len();
        if input_count == 0 {
            return;
        }
        let source = match rewire.source {
            Some(i) => match self.pick(i) {
                Some(edge) => Some(edge),
                None => return,
            },
            None => None,
        };
        let input = usize::from(rewire.input) % input_count;
        self.graph
            .set_input(node, input, source)
            .expect("rewires only use existing nodes, inputs and outputs");
    }
}

fn shape_of(spec: &ShapeSpec) -> Shape {
    match spec {
        ShapeSpec::UnknownRank => Shape::unknown_rank(),
        ShapeSpec::Scalar => Shape::scalar(),
        ShapeSpec::Rank4(dims) => Shape::from_dims(dims.map(|d| d.0)),
        ShapeSpec::Dims(dims) => {
            let dims: Vec<i64> = dims.iter().take(MAX_RANK).map(|d| d.0).collect();
            Shape::from_dims(dims)
        }
    }
}

fn const_value(spec: &ConstSpec) -> HostTensor {
    // Two extra values so Reshape also sees targets longer than any rank.
    let mut values: Vec<i64> = spec.values.iter().take(MAX_RANK + 2).map(|v| v.0).collect();
    let len = values.len() as i64;
    let shape = if spec.matrix {
        Shape::from_dims([1, len])
    } else {
        Shape::from_dims([len])
    };
    match spec.dtype {
        ConstDtype::Int64 => HostTensor::from_ints(DataType::Int64, shape, &values),
        ConstDtype::Int32 => {
            // from_ints refuses values that do not fit, so clamp them.
            values
                .iter_mut()
                .for_each(|v| *v = (*v).clamp(i32::MIN.into(), i32::MAX.into()));
            HostTensor::from_ints(DataType::Int32, shape, &values)
        }
        ConstDtype::Float => {
            HostTensor::new(DataType::Float, shape, vec![0u8; values.len() * 4].into()).ok()
        }
    }
    .expect("const values match their dtype and shape")
}

fn conv_attrs(spec: &ConvAttrs) -> Attrs {
    let mut attrs = Attrs::new();
    set_int_list(&mut attrs, "strides", &spec.strides);
    set_int_list(&mut attrs, "pads", &spec.pads);
    set_int_list(&mut attrs, "dilations", &spec.dilations);
    set_int(&mut attrs, "groups", &spec.groups);
    set_str(&mut attrs, "data_format", &spec.data_format);
    set_str(&mut attrs, "padding", &spec.padding);
    attrs
}

fn set_int(attrs: &mut Attrs, name: &str, spec: &IntAttr) {
    let value = match spec {
        IntAttr::Absent => return,
        IntAttr::Value(v) => AttrValue::Int(v.0),
        IntAttr::WrongType => AttrValue::Str("1".into()),
    };
    attrs.set(name, value);
}

fn set_int_list(attrs: &mut Attrs, name: &str, spec: &IntListAttr) {
    let value = match spec {
        IntListAttr::Absent => return,
        IntListAttr::Nchw(h, w) => AttrValue::ListInt(vec![1, 1, (*h).into(), (*w).into()]),
        IntListAttr::Nhwc(h, w) => AttrValue::ListInt(vec![1, (*h).into(), (*w).into(), 1]),
        IntListAttr::Any(v) => AttrValue::ListInt(v.iter().take(MAX_RANK).map(|v| v.0).collect()),
        IntListAttr::WrongType => AttrValue::Str("1,1,1,1".into()),
    };
    attrs.set(name, value);
}

fn set_str(attrs: &mut Attrs, name: &str, spec: &StrAttr) {
    let value = match spec {
        StrAttr::Absent => return,
        StrAttr::Known(k) => AttrValue::Str(k.text().into()),
        StrAttr::Junk(s) => AttrValue::Str(s.chars().take(16).collect()),
        StrAttr::WrongType => AttrValue::Int(1),
    };
    attrs.set(name, value);
}
