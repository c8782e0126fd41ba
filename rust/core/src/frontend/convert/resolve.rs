//! Plugin lookup memoised per conversion: a model has thousands of ops but
//! a few dozen op types, and an ONNX origin type resolves through its
//! opset (`ai.onnx::17::Relu` → the plugin registered for `::14::`), which
//! costs string parsing and several hash lookups. Each distinct origin type
//! is resolved once; support checking and conversion share the answers.
//! The answers borrow the registry, which outlives the conversion: no
//! reference count is touched per op.

use crate::frontend::{Framework, ParserPlugin, PluginRegistry};
use rustc_hash::FxHashMap;
use std::cell::RefCell;

pub(super) struct PluginResolver<'f> {
    registry: &'f PluginRegistry,
    framework: Framework,
    resolved: RefCell<FxHashMap<&'f str, Option<&'f ParserPlugin>>>,
}

impl<'f> PluginResolver<'f> {
    pub fn new(registry: &'f PluginRegistry, framework: Framework) -> PluginResolver<'f> {
        PluginResolver {
            registry,
            framework,
            resolved: RefCell::default(),
        }
    }

    /// The plugin serving `origin_op_type`, as [`PluginRegistry::get`].
    pub fn get(&self, origin_op_type: &'f str) -> Option<&'f ParserPlugin> {
        if let Some(&found) = self.resolved.borrow().get(origin_op_type) {
            return found;
        }
        let found = self
            .registry
            .get(self.framework, origin_op_type)
            .map(|plugin| &**plugin);
        self.resolved.borrow_mut().insert(origin_op_type, found);
        found
    }
}
