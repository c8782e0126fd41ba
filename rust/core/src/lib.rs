//! opgraph-core: the graph IR, the OperatorFactory and the inference engine
//! of opgraph. Pure Rust; the Python bindings live in `opgraph-py`.
//!
//! ```
//! use opgraph_core::prelude::*;
//!
//! let registry = OpRegistry::with_builtins();
//! let mut g = Graph::new("demo");
//! let x = g.add_input_node("x", TensorDesc::new(DataType::Float, Shape::from_dims([2, 3]), Format::Nd)).unwrap();
//! let spec = OpSpec {
//!     op_type: "Add".into(),
//!     name: "twice".into(),
//!     inputs: vec![PortInput::Single(Some(x)), PortInput::Single(Some(x))],
//!     ..OpSpec::default()
//! };
//! let y = add_op(&mut g, &registry, spec).unwrap();
//! infer_graph(&mut g, &registry, InferOptions::default()).unwrap();
//! assert_eq!(g.node(y).outputs[0].shape().dims(), &[2, 3]);
//! ```

pub mod allocator;
pub mod budget;
pub mod builder;
pub mod device;
pub mod frontend;
pub mod graph;
pub mod infer;
pub mod internal;
pub mod message;
mod name_index;
pub mod op;
pub mod ops;
pub mod types;

#[cfg(test)]
mod test_graphs;

/// The names most users need.
pub mod prelude {
    pub use crate::builder::{add_op, BuildError, OpSpec, PortInput};
    pub use crate::graph::{Graph, GraphError, Node, NodeId, OutputRef, Subgraph};
    pub use crate::infer::{infer_graph, InferFailure, InferOptions, NodeError, OpContext, Stage};
    pub use crate::op::{
        FollowType, OpError, OpRegistry, OpSchema, ParamType, PortDef, RegistrationError,
        ValueDepend,
    };
    pub use crate::types::{
        AttrType, AttrValue, Attrs, DataType, Format, HostTensor, Shape, TensorDesc,
    };
}
