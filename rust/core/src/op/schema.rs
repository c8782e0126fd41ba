//! Operator prototypes: GE's `OpDef` / `REG_OP` description of an op type.

use super::{OpError, OpFn};
use crate::types::{same_name, AttrType, AttrValue, DataType, Format};

/// How many instances a prototype port takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamType {
    Required,
    Optional,
    Dynamic,
}

/// What a `Follow` rule copies from the port it follows (GE's `FollowType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FollowType {
    All,
    Dtype,
    Format,
    Shape,
}

impl FollowType {
    pub fn covers(self, aspect: FollowType) -> bool {
        self == FollowType::All || self == aspect
    }
}

/// Whether an input's host value is needed for inference (GE's `ValueDepend`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueDepend {
    Required,
    Optional,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Follow {
    /// Name of an input or output of the same op.
    pub port: String,
    pub kind: FollowType,
}

/// One input or output of a prototype.
#[derive(Clone, Debug, PartialEq)]
pub struct PortDef {
    pub name: String,
    pub param_type: ParamType,
    /// Allowed dtypes. Unless `dtype_list` is set, these are GE OpDef's
    /// parallel lists: entry `k` of every port together is combination `k`.
    /// Empty means any dtype.
    pub dtypes: Vec<DataType>,
    /// GE's `DataTypeList`: `dtypes` is an independent set for this port.
    pub dtype_list: bool,
    /// Allowed origin formats; empty means any.
    pub formats: Vec<Format>,
    pub value_depend: Option<ValueDepend>,
    pub follow: Option<Follow>,
    /// For an output: the input whose memory it shares (a view such as
    /// Reshape, or an in-place / ref op). A DYNAMIC output pairs with a
    /// DYNAMIC input instance by instance. The memory planner gives the
    /// output no buffer of its own and keeps the input's alive longer.
    pub reuses_input: Option<String>,
}

impl PortDef {
    pub fn new(name: impl Into<String>, param_type: ParamType) -> PortDef {
        PortDef {
            name: name.into(),
            param_type,
            dtypes: Vec::new(),
            dtype_list: false,
            formats: Vec::new(),
            value_depend: None,
            follow: None,
            reuses_input: None,
        }
    }

    /// Parallel dtype list (one entry per combination).
    pub fn dtypes(mut self, dtypes: &[DataType]) -> PortDef {
        self.dtypes = dtypes.to_vec();
        self.dtype_list = false;
        self
    }

    /// Independent dtype set (GE's `DataTypeList`).
    pub fn dtype_list(mut self, dtypes: &[DataType]) -> PortDef {
        self.dtypes = dtypes.to_vec();
        self.dtype_list = true;
        self
    }

    pub fn value_depend(mut self, kind: ValueDepend) -> PortDef {
        self.value_depend = Some(kind);
        self
    }

    pub fn follow(mut self, port: impl Into<String>, kind: FollowType) -> PortDef {
        self.follow = Some(Follow {
            port: port.into(),
            kind,
        });
        self
    }

    /// Marks this output as sharing the memory of input `input` (a view or
    /// an in-place op).
    pub fn reuses_input(mut self, input: impl Into<String>) -> PortDef {
        self.reuses_input = Some(input.into());
        self
    }

    /// True when this port takes part in the parallel dtype combinations.
    pub(crate) fn in_combinations(&self) -> bool {
        !self.dtype_list && !self.dtypes.is_empty()
    }
}

/// One attribute of a prototype; no default means required.
#[derive(Clone, Debug, PartialEq)]
pub struct AttrDef {
    pub name: String,
    pub ty: AttrType,
    pub default: Option<AttrValue>,
}

/// Who registered an op type; user callbacks may need the Python runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpOrigin {
    Builtin,
    User,
}

/// Where an output's dtype, shape or format comes from when no function sets it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FollowSources {
    pub dtype: Option<usize>,
    pub shape: Option<usize>,
    pub format: Option<usize>,
}

/// A full op registration: prototype plus functions.
#[derive(Clone)]
pub struct OpSchema {
    pub op_type: String,
    pub inputs: Vec<PortDef>,
    pub outputs: Vec<PortDef>,
    pub attrs: Vec<AttrDef>,
    pub verify: Option<OpFn>,
    pub infer_dtype: Option<OpFn>,
    pub infer_shape: Option<OpFn>,
    /// Host evaluation for value folding: runs after shape inference when
    /// every output holds at most the engine's fold limit of elements, and
    /// sets output values (or partial shape values) from input values.
    pub fold: Option<OpFn>,
    pub origin: OpOrigin,
    /// Source ops (Data, Const) keep the output descriptors they were built
    /// with instead of having them reset before inference.
    pub source: bool,
    /// What the node's bodies see of its inputs, when that is not the
    /// inputs themselves (Loop's body gets an iteration number where the
    /// node has its trip count; Scan's sees one slice of each scanned
    /// input). It gets the node's attributes.
    pub body_inputs: Option<BodyInputsFn>,
    /// The shapes its weight inputs must have, from its attributes and its
    /// other inputs: `(input index, shape)` pairs. The engine gives them to
    /// weights loaded without values whose dims are unknown (a Caffe
    /// deploy prototxt without its .caffemodel), before inferring the node.
    pub weight_shapes: Option<WeightShapesFn>,
    /// Whether nodes may carry attributes the prototype does not declare.
    /// Off by default, so a misspelt attribute (`scael`) is an error
    /// instead of a value the op never reads; ops that take free-form
    /// attributes (framework passthrough, GE's `_`-prefixed private ones)
    /// opt in.
    pub extra_attrs: bool,
    /// Attributes read only when a node carries them, with no default
    /// (another framework's spelling of a declared one: TensorFlow's `DstT`
    /// beside GE's `dst_type`, its `N` that counts a dynamic input). Known
    /// names, so setting one is no typo.
    pub optional_attrs: Vec<String>,
    /// Per output: the input index each aspect follows, resolved transitively
    /// at registration.
    pub(crate) follow_sources: Vec<FollowSources>,
}

/// See [`OpSchema::body_inputs`]: the node's attributes and the caller's
/// input descriptors, to adapt in place.
pub type BodyInputsFn = fn(&crate::types::Attrs, &mut [Option<crate::types::TensorDesc>]);

/// See [`OpSchema::weight_shapes`]. Dims it cannot tell stay -1.
pub type WeightShapesFn = std::sync::Arc<
    dyn Fn(&mut crate::infer::OpContext<'_>) -> Result<WeightShapes, OpError> + Send + Sync,
>;
/// `(input index, shape)` per weight input.
pub type WeightShapes = Vec<(usize, crate::types::Shape)>;

impl OpSchema {
    pub fn new(op_type: impl Into<String>) -> OpSchema {
        OpSchema {
            op_type: op_type.into(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            attrs: Vec::new(),
            verify: None,
            infer_dtype: None,
            infer_shape: None,
            fold: None,
            origin: OpOrigin::Builtin,
            source: false,
            body_inputs: None,
            weight_shapes: None,
            extra_attrs: false,
            optional_attrs: Vec::new(),
            follow_sources: Vec::new(),
        }
    }

    /// Sets [`OpSchema::extra_attrs`]: nodes may carry undeclared attributes.
    pub fn allow_extra_attrs(mut self) -> OpSchema {
        self.extra_attrs = true;
        self
    }

    /// Adds to [`OpSchema::optional_attrs`].
    pub fn optional_attr(mut self, name: &str) -> OpSchema {
        self.optional_attrs.push(name.to_owned());
        self
    }

    /// Why attribute `name` cannot be set on a node of this op, or None:
    /// the prototype neither declares it nor opts into extra attributes,
    /// and it is not private (GE's `_`-prefixed attributes, such as the
    /// converter's `_input_formats`, annotate a node rather than configure
    /// its operation). The reason lists the declared names and suggests the
    /// closest one.
    pub fn undeclared_attr(&self, name: &str) -> Option<String> {
        if name.starts_with('_') {
            return None;
        }
        let mut declared: Vec<&str> = self.attrs.iter().map(|a| a.name.as_str()).collect();
        declared.extend(self.optional_attrs.iter().map(String::as_str));
        if self.extra_attrs || declared.contains(&name) {
            return None;
        }
        let listed = if declared.is_empty() {
            "it declares no attributes".to_owned()
        } else {
            format!("it declares {}", declared.join(", "))
        };
        let hint = super::spelling::closest(name, &declared)
            .map(|near| format!("; did you mean '{near}'?"))
            .unwrap_or_default();
        Some(format!(
            "{} does not declare attribute '{name}' ({listed}){hint}",
            self.op_type
        ))
    }

    /// Sets [`OpSchema::body_inputs`].
    pub fn body_inputs(mut self, f: BodyInputsFn) -> OpSchema {
        self.body_inputs = Some(f);
        self
    }

    /// Sets [`OpSchema::weight_shapes`] to a plain function.
    pub fn weight_shapes(
        self,
        f: fn(&crate::infer::OpContext<'_>) -> Result<WeightShapes, OpError>,
    ) -> OpSchema {
        self.weight_shapes_fn(std::sync::Arc::new(move |ctx| f(ctx)))
    }

    /// Sets [`OpSchema::weight_shapes`] (a closure: an op registered from
    /// Python declares its weights' shapes with a Python function).
    pub fn weight_shapes_fn(mut self, f: WeightShapesFn) -> OpSchema {
        self.weight_shapes = Some(f);
        self
    }

    pub fn input(mut self, port: PortDef) -> OpSchema {
        self.inputs.push(port);
        self
    }

    pub fn output(mut self, port: PortDef) -> OpSchema {
        self.outputs.push(port);
        self
    }

    pub fn attr(mut self, name: &str, ty: AttrType, default: Option<AttrValue>) -> OpSchema {
        self.attrs.push(AttrDef {
            name: name.to_owned(),
            ty,
            default,
        });
        self
    }

    pub fn verify(mut self, f: OpFn) -> OpSchema {
        self.verify = Some(f);
        self
    }

    pub fn infer_dtype(mut self, f: OpFn) -> OpSchema {
        self.infer_dtype = Some(f);
        self
    }

    pub fn infer_shape(mut self, f: OpFn) -> OpSchema {
        self.infer_shape = Some(f);
        self
    }

    pub fn fold(mut self, f: OpFn) -> OpSchema {
        self.fold = Some(f);
        self
    }

    pub fn input_index(&self, name: &str) -> Option<usize> {
        self.inputs.iter().position(|p| same_name(&p.name, name))
    }

    pub fn output_index(&self, name: &str) -> Option<usize> {
        self.outputs.iter().position(|p| same_name(&p.name, name))
    }

    pub fn attr_def(&self, name: &str) -> Option<&AttrDef> {
        self.attrs.iter().find(|a| same_name(&a.name, name))
    }

    /// Number of parallel dtype combinations (0 when no port uses them).
    pub fn combination_count(&self) -> usize {
        self.inputs
            .iter()
            .chain(&self.outputs)
            .find(|p| p.in_combinations())
            .map_or(0, |p| p.dtypes.len())
    }
}

impl std::fmt::Debug for OpSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpSchema")
            .field("op_type", &self.op_type)
            .field("inputs", &self.inputs)
            .field("outputs", &self.outputs)
            .field("attrs", &self.attrs)
            .field("verify", &self.verify.is_some())
            .field("infer_dtype", &self.infer_dtype.is_some())
            .field("infer_shape", &self.infer_shape.is_some())
            .finish()
    }
}
