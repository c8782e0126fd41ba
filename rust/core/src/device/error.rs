//! What the device passes report for input they cannot prepare.

use crate::graph::{CycleError, GraphError};

/// A graph (or an option) a device pass cannot work with. Node names
/// inside a body are `caller/body/name`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    #[error("unknown soc '{given}'; known socs: {}", .known.join(", "))]
    UnknownSoc {
        given: String,
        known: Vec<&'static str>,
    },
    #[error("node '{node}' output {output} has no dtype: run inference (opgraph.infer) before preparing the graph")]
    NotInferred { node: String, output: usize },
    #[error("node '{node}' output {output} is already stored as {format}: prepare a freshly inferred graph, not a prepared one")]
    AlreadyPrepared {
        node: String,
        output: usize,
        format: String,
    },
    /// A node whose storage cannot be computed (e.g. a storage shape that
    /// overflows int64).
    #[error("node '{node}': {message}")]
    Node { node: String, message: String },
    #[error(transparent)]
    Cycle(#[from] CycleError),
    #[error("the graph is inconsistent: {0}")]
    Graph(#[from] GraphError),
}

impl DeviceError {
    /// True for the errors `prepare` gives before it changes anything (an
    /// unknown soc, a graph not inferred or already prepared); after any
    /// other, the graph may be partly prepared.
    pub fn left_graph_unchanged(&self) -> bool {
        matches!(
            self,
            DeviceError::UnknownSoc { .. }
                | DeviceError::NotInferred { .. }
                | DeviceError::AlreadyPrepared { .. }
        )
    }

    /// The same error for a node inside body `body` of node `caller`.
    pub(crate) fn in_body(self, caller: &str, body: &str) -> DeviceError {
        let qualify = |node: String| format!("{caller}/{body}/{node}");
        match self {
            DeviceError::NotInferred { node, output } => DeviceError::NotInferred {
                node: qualify(node),
                output,
            },
            DeviceError::AlreadyPrepared {
                node,
                output,
                format,
            } => DeviceError::AlreadyPrepared {
                node: qualify(node),
                output,
                format,
            },
            DeviceError::Node { node, message } => DeviceError::Node {
                node: qualify(node),
                message,
            },
            other => other,
        }
    }
}
