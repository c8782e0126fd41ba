//! Parser plugins: GE's `REGISTER_CUSTOM_OP(op_type).FrameworkType(..)
//! .OriginOpType(..).ParseParamsByOperatorFn(..).ImplyType(..)`, keyed by
//! framework and origin op type. A user plugin for an origin type replaces
//! the built-in one; two user plugins for one origin type need `override`.

use super::onnx::opset::split_origin;
use super::{FrameworkOp, OpDraft, PluginError};
use crate::graph::Graph;
use rustc_hash::FxHashMap;
use std::sync::{Arc, LazyLock, RwLock};

/// The framework a model (and a plugin) comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Framework {
    #[default]
    TensorFlow,
    Caffe,
    Onnx,
}

impl Framework {
    pub fn name(self) -> &'static str {
        match self {
            Framework::TensorFlow => "TensorFlow",
            Framework::Caffe => "Caffe",
            Framework::Onnx => "ONNX",
        }
    }
}

/// GE's `ImplyType`: how the IR op is implemented on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ImplyType {
    #[default]
    Builtin,
    Tvm,
    Custom,
    AiCpu,
}

/// `ParseParamsByOperatorFn`: fills the IR op from one framework op.
pub type ParseParamsFn =
    Arc<dyn Fn(&FrameworkOp, &mut OpDraft) -> Result<(), PluginError> + Send + Sync>;
/// `FusionParseParamsFn`: fills the IR op from the ops a scope pass fused.
pub type FusionParseParamsFn =
    Arc<dyn Fn(&[FrameworkOp], &mut OpDraft) -> Result<(), PluginError> + Send + Sync>;
/// `ParseOpToGraphFn`: expands the parsed IR op into a body graph; the node
/// becomes a PartitionedCall of it (Data `index` attr = original input).
pub type ParseOpToGraphFn = Arc<dyn Fn(&OpDraft) -> Result<Graph, PluginError> + Send + Sync>;

/// The weight blobs a custom Caffe layer has when no `.caffemodel` gives
/// them: one shape per blob, in blob order, from the layer's parameters
/// (-1 for a dim only the input tells, completed at inference by the IR
/// op's [`crate::op::OpSchema::weight_shapes`]). Built-in layers' blobs are
/// known to the Caffe frontend itself.
pub type BlobShapesFn =
    Arc<dyn Fn(&FrameworkOp) -> Result<Vec<Vec<i64>>, PluginError> + Send + Sync>;

/// Input edits applied before wiring, in registration order.
#[derive(Clone, Debug, PartialEq)]
pub enum InputEdit {
    /// `DelInputWithCond`: drop input `index` when bool attr `attr` == `value`.
    DelWithCond {
        index: u32,
        attr: String,
        value: bool,
    },
    /// `DelInputWithOriginalType`: drop input `index` when its producer's
    /// origin op type is `op_type`.
    DelWithOriginalType { index: u32, op_type: String },
    /// `InputReorderVector`: new input i is old input `order[i]`.
    Reorder(Vec<u32>),
}

/// One registered plugin.
#[derive(Clone)]
pub struct ParserPlugin {
    pub framework: Framework,
    /// IR op type the plugin produces.
    pub op_type: String,
    /// Framework op types it maps.
    pub origin_op_types: Vec<String>,
    pub imply_type: ImplyType,
    pub parse_params: Option<ParseParamsFn>,
    pub fusion_parse_params: Option<FusionParseParamsFn>,
    pub parse_op_to_graph: Option<ParseOpToGraphFn>,
    pub input_edits: Vec<InputEdit>,
    /// Caffe only: the blobs the layer has without a weights file.
    pub blob_shapes: Option<BlobShapesFn>,
    /// Registered from Rust by opgraph itself.
    pub builtin: bool,
}

impl std::fmt::Debug for ParserPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParserPlugin")
            .field("framework", &self.framework)
            .field("op_type", &self.op_type)
            .field("origin_op_types", &self.origin_op_types)
            .field("imply_type", &self.imply_type)
            .field("builtin", &self.builtin)
            .finish_non_exhaustive()
    }
}

impl ParserPlugin {
    /// A plugin mapping `origin_op_types` onto IR `op_type` with no functions yet.
    pub fn new(framework: Framework, op_type: &str, origin_op_types: &[&str]) -> ParserPlugin {
        ParserPlugin {
            framework,
            op_type: op_type.to_owned(),
            origin_op_types: origin_op_types.iter().map(|s| (*s).to_owned()).collect(),
            imply_type: ImplyType::Builtin,
            parse_params: None,
            fusion_parse_params: None,
            parse_op_to_graph: None,
            input_edits: Vec::new(),
            blob_shapes: None,
            builtin: false,
        }
    }

    /// One of opgraph's own plugins: maps `origin_op_types` of `framework`
    /// onto IR `op_type` with `parse`.
    pub fn builtin(
        framework: Framework,
        op_type: &str,
        origin_op_types: &[&str],
        parse: impl Fn(&FrameworkOp, &mut OpDraft) -> Result<(), PluginError> + Send + Sync + 'static,
    ) -> ParserPlugin {
        let mut plugin = ParserPlugin::new(framework, op_type, origin_op_types);
        plugin.parse_params = Some(Arc::new(parse));
        plugin.builtin = true;
        plugin
    }
}

/// What a framework's built-in plugins must be: built-in, of `framework`,
/// each onto a registered IR op, at most one per origin op type.
#[cfg(test)]
pub(crate) fn assert_builtin_plugins_are_consistent(
    plugins: &[ParserPlugin],
    framework: Framework,
) {
    let registry = crate::op::OpRegistry::with_builtins();
    let mut origins = rustc_hash::FxHashSet::default();
    for plugin in plugins {
        assert!(plugin.builtin, "{plugin:?}");
        assert_eq!(plugin.framework, framework, "{plugin:?}");
        assert!(
            registry.get(&plugin.op_type).is_some(),
            "{plugin:?} maps onto an unknown IR op"
        );
        for origin in &plugin.origin_op_types {
            assert!(
                origins.insert(origin.clone()),
                "two built-in plugins for {origin}"
            );
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot register the {framework} plugin for '{origin_op_type}': {reason}")]
pub struct PluginRegistrationError {
    pub framework: &'static str,
    pub origin_op_type: String,
    pub reason: String,
}

/// Plugins by framework, then origin op type (two levels, so a lookup by
/// `&str` needs no key of its own: it runs once per framework op).
#[derive(Clone, Debug, Default)]
pub struct PluginRegistry {
    plugins: FxHashMap<Framework, FxHashMap<String, Arc<ParserPlugin>>>,
    /// ONNX origin types `domain::version::op_type` by domain, then op
    /// type (two levels: looked up by `&str` without building a key): the
    /// registered versions, ascending, for opset resolution.
    onnx_versions: FxHashMap<String, FxHashMap<String, Vec<(i64, String)>>>,
}

impl PluginRegistry {
    pub fn new() -> PluginRegistry {
        PluginRegistry::default()
    }

    /// The registry holding every built-in plugin.
    pub fn with_builtins() -> PluginRegistry {
        let mut registry = PluginRegistry::new();
        let builtins = super::tensorflow::builtin_plugins()
            .into_iter()
            .chain(super::caffe::builtin_plugins())
            .chain(super::onnx::builtin_plugins());
        for plugin in builtins {
            registry
                .register(plugin, false)
                .expect("built-in plugins do not clash");
        }
        registry
    }

    /// Registers `plugin` for each of its origin types. A user plugin
    /// replaces a built-in one silently; replacing a user plugin needs
    /// `allow_override`.
    pub fn register(
        &mut self,
        plugin: ParserPlugin,
        allow_override: bool,
    ) -> Result<(), PluginRegistrationError> {
        let error = |origin: &str, reason: String| PluginRegistrationError {
            framework: plugin.framework.name(),
            origin_op_type: origin.to_owned(),
            reason,
        };
        if plugin.origin_op_types.is_empty() {
            return Err(error("", "it names no origin op type".into()));
        }
        let parsers = [
            plugin.parse_params.is_some(),
            plugin.fusion_parse_params.is_some(),
        ];
        if parsers.iter().all(|p| !p) && plugin.parse_op_to_graph.is_none() {
            return Err(error(
                &plugin.origin_op_types[0],
                "it has neither parse_params, fusion_parse_params nor parse_op_to_graph".into(),
            ));
        }
        for origin in &plugin.origin_op_types {
            // A node's origin type always has this form (besides the
            // decoder's own, Placeholder and Const, which built-ins hold),
            // so a plugin under any other name would never be called.
            if plugin.framework == Framework::Onnx
                && !plugin.builtin
                && crate::frontend::onnx::opset::split_origin(origin).is_none()
                && self.get(Framework::Onnx, origin).is_none()
            {
                let op_type = origin.rsplit("::").next().unwrap_or(origin);
                return Err(error(
                    origin,
                    format!(
                        "an ONNX origin op type is domain::opset::op_type, such as \
                         'ai.onnx::11::{op_type}' (served to models of that opset and later)"
                    ),
                ));
            }
            if let Some(existing) = self.get(plugin.framework, origin) {
                if !existing.builtin && !allow_override && !plugin.builtin {
                    return Err(error(
                        origin,
                        format!(
                            "a user plugin (to '{}') is already registered; pass override=True to replace it",
                            existing.op_type
                        ),
                    ));
                }
                if plugin.builtin && !existing.builtin {
                    // A built-in never displaces a user plugin.
                    continue;
                }
            }
        }
        let plugin = Arc::new(plugin);
        let by_origin = self.plugins.entry(plugin.framework).or_default();
        for origin in &plugin.origin_op_types {
            let keep_user = plugin.builtin && by_origin.get(origin).is_some_and(|p| !p.builtin);
            if !keep_user {
                by_origin.insert(origin.clone(), plugin.clone());
            }
            if plugin.framework == Framework::Onnx {
                if let Some((domain, version, op_type)) = split_origin(origin) {
                    let versions = self
                        .onnx_versions
                        .entry(domain.to_owned())
                        .or_default()
                        .entry(op_type.to_owned())
                        .or_default();
                    if let Err(at) = versions.binary_search_by_key(&version, |(v, _)| *v) {
                        versions.insert(at, (version, origin.clone()));
                    }
                }
            }
        }
        Ok(())
    }

    /// The plugin for `origin_op_type`. An ONNX origin type
    /// `domain::opset::op_type` without a plugin of its own resolves to the
    /// plugin of the highest registered version not above `opset`.
    pub fn get(&self, framework: Framework, origin_op_type: &str) -> Option<&Arc<ParserPlugin>> {
        let by_origin = self.plugins.get(&framework)?;
        if let Some(plugin) = by_origin.get(origin_op_type) {
            return Some(plugin);
        }
        if framework != Framework::Onnx {
            return None;
        }
        let (domain, opset, op_type) = split_origin(origin_op_type)?;
        let versions = self.onnx_versions.get(domain)?.get(op_type)?;
        let (_, origin) = versions.iter().rev().find(|(v, _)| *v <= opset)?;
        by_origin.get(origin)
    }

    /// Every registered (framework, origin op type), sorted.
    pub fn origin_op_types(&self, framework: Framework) -> Vec<&str> {
        let mut types: Vec<&str> = self
            .plugins
            .get(&framework)
            .into_iter()
            .flat_map(|by_origin| by_origin.keys().map(String::as_str))
            .collect();
        types.sort_unstable();
        types
    }
}

static GLOBAL: LazyLock<RwLock<Arc<PluginRegistry>>> =
    LazyLock::new(|| RwLock::new(Arc::new(PluginRegistry::with_builtins())));

/// A snapshot of the process-wide plugin registry.
pub fn global_plugins() -> Arc<PluginRegistry> {
    GLOBAL.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Registers into the process-wide plugin registry (copy on write).
pub fn register_plugin_global(
    plugin: ParserPlugin,
    allow_override: bool,
) -> Result<(), PluginRegistrationError> {
    let mut guard = GLOBAL.write().unwrap_or_else(|e| e.into_inner());
    Arc::make_mut(&mut guard).register(plugin, allow_override)
}
