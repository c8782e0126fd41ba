//! Inference failures: which node, which stage, what was violated.

use crate::graph::CycleError;
use crate::message::{capped_list, capped_text};
use std::fmt;

/// The step of the per-node pipeline that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The op type is not registered.
    UnknownOp,
    /// Arity, dtype combination, formats or required attributes.
    Prototype,
    Verify,
    InferDtype,
    InferShape,
    /// A body of the node failed (the body's own failure is reported too).
    Subgraph,
    /// opgraph itself failed on the node (a caught panic, see
    /// [`crate::internal`]): a bug to report, not a fault of the model.
    Internal,
}

impl Stage {
    fn verb(self) -> &'static str {
        match self {
            Stage::UnknownOp => "has an unregistered op type",
            Stage::Prototype => "does not match its prototype",
            Stage::Verify => "failed verification",
            Stage::InferDtype => "failed dtype inference",
            Stage::InferShape => "failed shape inference",
            Stage::Subgraph => "has a body that failed inference",
            Stage::Internal => "failed",
        }
    }
}

/// The source of an op function's error that stops the whole inference at
/// once, whatever `collect_errors` says: a caller's interrupt (Ctrl-C in a
/// Python function) is not one node's failure among others.
#[derive(Debug)]
pub struct Abort(pub Box<dyn std::error::Error + Send + Sync>);

impl fmt::Display for Abort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "inference stopped: {}", self.0)
    }
}

impl std::error::Error for Abort {}

impl NodeError {
    /// Whether this failure stops inference (its source is an [`Abort`]).
    pub fn aborts(&self) -> bool {
        self.source.as_deref().is_some_and(|s| s.is::<Abort>())
    }
}

/// One node that failed, with enough context to fix it.
#[derive(Debug)]
pub struct NodeError {
    pub node: String,
    pub op_type: String,
    pub stage: Stage,
    pub message: String,
    /// `x=float32[1, 3, 224, 224]` per input instance.
    pub inputs: Vec<String>,
    /// Names of the enclosing caller nodes and bodies, outermost first
    /// (e.g. `["loop", "body"]`); empty in the root graph.
    pub path: Vec<String>,
    pub source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl NodeError {
    /// The node name qualified by its subgraph path (`loop/body/add`).
    pub fn qualified_node(&self) -> String {
        let mut parts = self.path.clone();
        parts.push(self.node.clone());
        parts.join("/")
    }
}

impl fmt::Display for NodeError {
    /// One sentence, capped ([`crate::message`]) however many inputs the
    /// node has or however long its message is.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = format!(
            "node '{}' ({}) {}: {}",
            self.qualified_node(),
            self.op_type,
            self.stage.verb(),
            self.message
        );
        if !self.inputs.is_empty() {
            text.push_str(" [inputs: ");
            text.push_str(&capped_list(&self.inputs, ", "));
            text.push(']');
        }
        f.write_str(&capped_text(text))
    }
}

impl std::error::Error for NodeError {}

#[derive(Debug)]
pub enum InferFailure {
    Node(NodeError),
    /// A cycle in the root graph (empty path) or in a body.
    Cycle {
        path: Vec<String>,
        error: CycleError,
    },
}

impl fmt::Display for InferFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InferFailure::Node(e) => e.fmt(f),
            InferFailure::Cycle { path, error } if path.is_empty() => error.fmt(f),
            InferFailure::Cycle { path, error } => write!(f, "in body {}: {error}", path.join("/")),
        }
    }
}

impl std::error::Error for InferFailure {}
