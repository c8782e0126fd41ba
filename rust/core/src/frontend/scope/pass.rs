//! Scope fusion passes (GE's `ScopeBasePass`) and their process-wide
//! registry (GE's `REGISTER_SCOPE_FUSION_PASS(name, cls, is_general)`).
//!
//! A pass is created afresh for every graph (GE registers a create
//! function), so it may keep state between its three calls. Passes run in
//! registration order; general ones always, the others when enabled by
//! name. A user pass registered under a built-in pass's name takes its
//! place in the order; a second user pass under one name needs `override`
//! (GE keeps the first silently).

use super::graph::ScopeGraph;
use super::pattern::ScopeFusionPatterns;
use super::report::{PassSelection, PassStatus};
use super::result::{FusionScopesResult, ScopesResult};
use super::tree::ScopeId;
use crate::frontend::PluginError;
use std::sync::{Arc, LazyLock, RwLock};

/// One scope fusion pass, as GE's `ScopeBasePass` subclasses implement it.
pub trait ScopeFusionPass: Send {
    /// GE's `DefinePatterns`: pattern groups, each a list of batches.
    fn define_patterns(&mut self) -> Result<Vec<ScopeFusionPatterns>, PluginError>;

    /// GE's `LastMatchScopesAndOPs`: picks the final choices from the
    /// matched graph (scopes carry the sub-types matching gave them).
    /// `Ok(false)` is GE's non-SUCCESS status: the pass is skipped.
    fn last_match_scopes_and_ops(
        &mut self,
        graph: &Arc<ScopeGraph>,
        results: &mut Vec<ScopesResult>,
    ) -> Result<bool, PluginError>;

    /// GE's `GenerateFusionResult`: describes the fused op for the scopes of
    /// one choice (its ops are in `result.nodes`).
    fn generate_fusion_result(
        &mut self,
        graph: &Arc<ScopeGraph>,
        scopes: &[ScopeId],
        result: &mut FusionScopesResult,
    ) -> Result<(), PluginError>;
}

/// Creates a pass for one graph.
pub type ScopePassFactory =
    Arc<dyn Fn() -> Result<Box<dyn ScopeFusionPass>, PluginError> + Send + Sync>;

/// One registered pass.
#[derive(Clone)]
pub struct RegisteredScopePass {
    pub name: String,
    /// Runs without being enabled by name.
    pub general: bool,
    /// Registered from Rust by opgraph itself.
    pub builtin: bool,
    pub factory: ScopePassFactory,
}

impl std::fmt::Debug for RegisteredScopePass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredScopePass")
            .field("name", &self.name)
            .field("general", &self.general)
            .field("builtin", &self.builtin)
            .finish_non_exhaustive()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot register scope fusion pass '{name}': {reason}")]
pub struct ScopePassRegistrationError {
    pub name: String,
    pub reason: String,
}

/// Passes in registration order.
#[derive(Clone, Debug, Default)]
pub struct ScopePassRegistry {
    passes: Vec<RegisteredScopePass>,
}

impl ScopePassRegistry {
    pub fn new() -> ScopePassRegistry {
        ScopePassRegistry::default()
    }

    /// The registry of opgraph's built-in passes.
    pub fn with_builtins() -> ScopePassRegistry {
        let mut registry = ScopePassRegistry::new();
        for pass in super::builtin_passes() {
            registry.passes.push(pass);
        }
        registry
    }

    /// Adds `pass` at the end, or in the place of the pass of the same name
    /// when that one is built-in (or `allow_override` is set).
    pub fn register(
        &mut self,
        pass: RegisteredScopePass,
        allow_override: bool,
    ) -> Result<(), ScopePassRegistrationError> {
        if pass.name.is_empty() {
            return Err(ScopePassRegistrationError {
                name: pass.name,
                reason: "a pass needs a non-empty name".into(),
            });
        }
        match self.passes.iter_mut().find(|p| p.name == pass.name) {
            Some(existing) if existing.builtin || allow_override => *existing = pass,
            Some(_) => {
                return Err(ScopePassRegistrationError {
                    name: pass.name,
                    reason: "a user pass of that name is already registered; pass \
                             override=True to replace it"
                        .into(),
                })
            }
            None => self.passes.push(pass),
        }
        Ok(())
    }

    pub fn passes(&self) -> &[RegisteredScopePass] {
        &self.passes
    }

    pub fn get(&self, name: &str) -> Option<&RegisteredScopePass> {
        self.passes.iter().find(|p| p.name == name)
    }

    /// Every pass with whether `selection` runs it: general ones unless
    /// disabled, others when enabled (and not disabled). Naming an unknown
    /// pass, or one pass in both lists, is an error `(pass, message)`.
    pub fn statuses(
        &self,
        selection: &PassSelection,
    ) -> Result<Vec<(&RegisteredScopePass, PassStatus)>, (String, String)> {
        for name in selection.enabled.iter().chain(&selection.disabled) {
            if self.get(name).is_none() {
                let known: Vec<&str> = self.passes.iter().map(|p| p.name.as_str()).collect();
                return Err((
                    name.clone(),
                    format!(
                        "no scope fusion pass named '{name}' is registered (registered: {})",
                        known.join(", ")
                    ),
                ));
            }
        }
        if let Some(both) = selection
            .enabled
            .iter()
            .find(|name| selection.disabled.contains(name))
        {
            return Err((
                both.clone(),
                format!("scope fusion pass '{both}' is both enabled and disabled; name it once"),
            ));
        }
        Ok(self
            .passes
            .iter()
            .map(|p| {
                let status = if selection.disabled.contains(&p.name) {
                    PassStatus::Disabled
                } else if p.general || selection.enabled.contains(&p.name) {
                    PassStatus::Ran
                } else {
                    PassStatus::NotEnabled
                };
                (p, status)
            })
            .collect())
    }
}

static GLOBAL: LazyLock<RwLock<Arc<ScopePassRegistry>>> =
    LazyLock::new(|| RwLock::new(Arc::new(ScopePassRegistry::with_builtins())));

/// A snapshot of the process-wide pass registry.
pub fn global_scope_passes() -> Arc<ScopePassRegistry> {
    GLOBAL.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Registers a pass process-wide (copy on write): GE's
/// `REGISTER_SCOPE_FUSION_PASS(name, cls, general)`.
pub fn register_scope_pass(
    name: &str,
    factory: ScopePassFactory,
    general: bool,
    allow_override: bool,
) -> Result<(), ScopePassRegistrationError> {
    let pass = RegisteredScopePass {
        name: name.to_owned(),
        general,
        builtin: false,
        factory,
    };
    let mut guard = GLOBAL.write().unwrap_or_else(|e| e.into_inner());
    Arc::make_mut(&mut guard).register(pass, allow_override)
}
