//! Turning a [`Plan`] into a `Graph` through the public builder API, the
//! way a frontend or a Python user would. Every edit here is valid by
//! construction (unique names, edges to existing outputs, required inputs
//! given), so an `add_op` / `set_input` error is a bug worth crashing on;
//! everything the *engine* should reject (bad dtypes, shapes, attributes,
//! cycles) is left in on purpose.

use crate::attrs::{conv_attrs, set_int};
use crate::plan::{
    BiasSpec, BodySpec, CallSpec, ConstDtype, ConstSpec, ConvAttrs, ConvInput, FilterSpec, IntAttr,
    OpStep, Operand, Plan, Rewire, ShapeSpec, StepOf, TensorSpec, MAX_BODY_OUTPUTS, MAX_BODY_STEPS,
    MAX_CALL_ARGS, MAX_RANK, MAX_REWIRES, MAX_STEPS,
};
use crate::reference::filter_axes;
use opgraph_core::prelude::*;
use opgraph_core::types::NamedAttrs;

/// Builds the root graph a plan describes.
pub fn build_plan(registry: &OpRegistry, plan: &Plan) -> Graph {
    let mut b = GraphBuilder::new(registry, "root", false);
    for step in plan.steps.iter().take(MAX_STEPS) {
        step.build(&mut b);
    }
    for rewire in plan.rewires.iter().take(MAX_REWIRES) {
        b.rewire(rewire);
    }
    b.graph
}

/// Builds a PartitionedCall body: one parameter per call argument (and
/// maybe a stray one), a few ops, outputs, and possibly a cycle of its own.
fn build_body<S: BuildStep>(registry: &OpRegistry, spec: &BodySpec<S>, arg_count: usize) -> Graph {
    let mut b = GraphBuilder::new(registry, "f", true);
    for i in 0..arg_count {
        // The caller's input replaces this descriptor when bound.
        let unbound = TensorDesc::new(DataType::Undefined, Shape::unknown_rank(), Format::Nd);
        b.param(&format!("arg{i}"), unbound, i as i64);
    }
    if let Some((spec, index)) = &spec.extra_param.0 {
        let desc = desc_of(spec);
        b.param("stray_arg", desc, i64::from(*index));
    }
    for step in spec.steps.iter().take(MAX_BODY_STEPS) {
        step.build(&mut b);
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

/// A step that adds nodes to a graph under construction.
trait BuildStep {
    fn build(&self, b: &mut GraphBuilder<'_>);
}

impl BuildStep for OpStep {
    fn build(&self, b: &mut GraphBuilder<'_>) {
        b.op(self);
    }
}

impl<S: BuildStep> BuildStep for StepOf<S> {
    fn build(&self, b: &mut GraphBuilder<'_>) {
        match self {
            StepOf::Op(op) => b.op(op),
            StepOf::Call(call) => b.call(call),
        }
    }
}

struct GraphBuilder<'r> {
    registry: &'r OpRegistry,
    /// In a body, Data nodes with an `index` are parameters: they take the
    /// caller's input descriptors at inference, unknown while building.
    is_body: bool,
    graph: Graph,
    /// Every output built so far, in creation order: what `Existing` and
    /// rewires pick from.
    outputs: Vec<OutputRef>,
}

impl<'r> GraphBuilder<'r> {
    fn new(registry: &'r OpRegistry, name: &str, is_body: bool) -> Self {
        GraphBuilder {
            registry,
            is_body,
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

    /// A new Data node. In a body it is a free input (no `index`), so it
    /// keeps `spec` rather than taking a caller input.
    fn data(&mut self, spec: &TensorSpec) -> OutputRef {
        self.data_desc(desc_of(spec))
    }

    fn data_desc(&mut self, desc: TensorDesc) -> OutputRef {
        let out = self
            .graph
            .add_input_node(&self.fresh_name("data"), desc)
            .expect("fresh names never clash");
        if self.is_body {
            self.graph.node_mut(out.node).attrs.remove("index");
        }
        self.outputs.push(out);
        out
    }

    /// A body parameter: a Data node taking caller input `index`.
    fn param(&mut self, name: &str, desc: TensorDesc, index: i64) {
        let out = self
            .graph
            .add_input_node(name, desc)
            .expect("parameter names (arg*) never clash with fresh names");
        self.graph
            .node_mut(out.node)
            .attrs
            .set("index", AttrValue::Int(index));
        self.outputs.push(out);
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
                self.simple_op("Reshape", &[x, &shape.0], attrs)
            }
            OpStep::Conv2D {
                x,
                filter,
                bias,
                attrs,
            } => self.conv2d(x, filter, bias, attrs),
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

    fn conv2d(&mut self, x: &ConvInput, filter: &FilterSpec, bias: &BiasSpec, attrs: &ConvAttrs) {
        let x = match x {
            ConvInput::Fresh {
                dtype,
                dims,
                format,
            } => {
                let shape = Shape::from_dims(dims.map(|d| d.0));
                self.data_desc(TensorDesc::new(dtype.0, shape, format.0))
            }
            ConvInput::Any(operand) => match self.operand(operand) {
                Some(x) => x,
                None => return,
            },
        };
        let x_desc = self.known_desc(x);
        let nchw = attrs.data_format.0.is("NCHW");
        let channels_at = if nchw { 1 } else { 3 };
        let x_channels = x_desc
            .as_ref()
            .and_then(|d| d.shape().dims().get(channels_at).copied());
        let dtype = x_desc.as_ref().map_or(DataType::Float, |d| d.dtype);
        let groups = match attrs.groups {
            IntAttr::Value(g) if g.0 >= 1 => g.0,
            _ => 1,
        };
        let (filter, cout) = match filter {
            FilterSpec::Matching {
                cout,
                kh,
                kw,
                format,
            } => {
                // Cin per group: C / groups when that divides, else a
                // mismatch on purpose (the check must catch it).
                let cin = match x_channels {
                    Some(c) if c >= 0 && c % groups == 0 => c / groups,
                    Some(c) => c,
                    None => -1,
                };
                let shape = filter_shape(format.0, nchw, cout.0, cin, kh.0, kw.0);
                let desc = TensorDesc::new(dtype, shape, format.0);
                (self.data_desc(desc), cout.0)
            }
            FilterSpec::Any(operand) => match self.operand(operand) {
                Some(f) => (f, -1),
                None => return,
            },
        };
        let bias = match bias {
            BiasSpec::Absent => None,
            BiasSpec::Matching => {
                let desc = TensorDesc::new(bias_dtype(dtype), Shape::from_dims([cout]), Format::Nd);
                Some(self.data_desc(desc))
            }
            BiasSpec::Any(operand) => self.operand(operand),
        };
        self.add(OpSpec {
            op_type: "Conv2D".into(),
            name: self.fresh_name("Conv2D"),
            inputs: vec![
                PortInput::Single(Some(x)),
                PortInput::Single(Some(filter)),
                PortInput::Single(bias),
            ],
            attrs: conv_attrs(attrs, nchw),
            ..OpSpec::default()
        });
    }

    /// The descriptor of `edge` when it is known before inference: a
    /// source node's, unless it is a body parameter (bound later).
    fn known_desc(&self, edge: OutputRef) -> Option<TensorDesc> {
        let node = self.graph.node(edge.node);
        let source = matches!(node.op_type.as_str(), "Data" | "Const");
        (source && !self.is_parameter(node)).then(|| self.graph.tensor(edge).clone())
    }

    /// A body's Data node with an `index` takes the caller's descriptor at
    /// inference, so what it holds now says nothing.
    fn is_parameter(&self, node: &Node) -> bool {
        self.is_body && node.op_type == "Data" && node.attrs.get("index").is_some()
    }

    fn call<S: BuildStep>(&mut self, spec: &CallSpec<S>) {
        let args: Vec<OutputRef> = spec
            .args
            .iter()
            .take(MAX_CALL_ARGS)
            .filter_map(|a| self.operand(a))
            .collect();
        let body = build_body(self.registry, &spec.body, args.len());
        let output_count = match spec.output_count_override.0 {
            Some(n) => u32::from(n % 4),
            None => body.outputs().len() as u32,
        };
        let body_name = if spec.misnamed_body.is_set() {
            "g"
        } else {
            "f"
        };
        let f = NamedAttrs {
            name: body_name.into(),
            attrs: Attrs::new(),
        };
        self.add(OpSpec {
            op_type: "PartitionedCall".into(),
            name: self.fresh_name("call"),
            inputs: vec![PortInput::Many(args)],
            attrs: [("f", AttrValue::NamedAttrs(Box::new(f)))]
                .into_iter()
                .collect(),
            dynamic_outputs: vec![("output".into(), output_count)],
            subgraphs: vec![Subgraph {
                name: body_name.into(),
                graph: body.into(),
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

    /// Edits one edge; this is how cycles, absent required inputs and
    /// control dependencies get into the graph.
    fn rewire(&mut self, rewire: &Rewire) {
        if self.graph.is_empty() {
            return;
        }
        let node_at = |i: u8| NodeId(u32::from(i) % self.graph.len() as u32);
        match *rewire {
            Rewire::Input {
                node,
                input,
                source,
            } => self.rewire_input(node_at(node), input, source),
            Rewire::Control { node, from } => {
                let from = node_at(from);
                self.graph.node_mut(node_at(node)).control_inputs.push(from);
            }
        }
    }

    fn rewire_input(&mut self, node: NodeId, input: u8, source: Option<u8>) {
        let input_count = self.graph.node(node).inputs.len();
        if input_count == 0 {
            return;
        }
        let source = match source {
            Some(i) => match self.pick(i) {
                Some(edge) => Some(edge),
                None => return,
            },
            None => None,
        };
        let input = usize::from(input) % input_count;
        self.graph
            .set_input(node, input, source)
            .expect("rewires only use existing nodes, inputs and outputs");
    }
}

fn desc_of(spec: &TensorSpec) -> TensorDesc {
    TensorDesc::new(spec.dtype.0, shape_of(&spec.shape), spec.format.0)
}

/// A filter shape with the given sizes, laid out as Conv2D reads `format`
/// (an unsupported format gets OIHW order; Conv2D must reject it anyway).
fn filter_shape(format: Format, nchw_data: bool, cout: i64, cin: i64, kh: i64, kw: i64) -> Shape {
    let axes =
        filter_axes(format, nchw_data).unwrap_or_else(|| filter_axes(Format::Nchw, true).unwrap());
    let mut dims = [0; 4];
    dims[axes.cout] = cout;
    dims[axes.cin] = cin;
    dims[axes.h] = kh;
    dims[axes.w] = kw;
    Shape::from_dims(dims)
}

/// The bias dtype Conv2D's prototype pairs with activations of `x`
/// (its dtype combinations: INT8 accumulates into INT32, BF16 into FLOAT).
fn bias_dtype(x: DataType) -> DataType {
    match x {
        DataType::Int8 => DataType::Int32,
        DataType::Bf16 => DataType::Float,
        other => other,
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
    let shape = if spec.matrix.is_set() {
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
