//! The OperatorFactory: op prototypes and their verify / infer functions,
//! registered by op type.

mod registry;
mod schema;
mod spelling;

pub use spelling::closest as closest_name;

pub use registry::{global_registry, register_global, OpRegistry, RegistrationError};
pub use schema::{
    AttrDef, Follow, FollowType, OpOrigin, OpSchema, ParamType, PortDef, ValueDepend,
    WeightShapesFn,
};

use crate::infer::OpContext;
use std::sync::Arc;

/// A verify, infer-dtype or infer-shape function.
pub type OpFn = Arc<dyn Fn(&mut OpContext<'_>) -> Result<(), OpError> + Send + Sync>;

/// Wraps a plain function as an [`OpFn`].
pub fn op_fn(f: fn(&mut OpContext<'_>) -> Result<(), OpError>) -> OpFn {
    Arc::new(f)
}

/// An op function that passes `arg` on, so one rule can serve several op
/// types (2-D and 3-D pooling, MatMul variants, TensorFlow's and ONNX's
/// Range …).
pub fn with_arg<T: Copy + Send + Sync + 'static>(
    f: fn(&mut OpContext<'_>, T) -> Result<(), OpError>,
    arg: T,
) -> OpFn {
    Arc::new(move |ctx: &mut OpContext<'_>| f(ctx, arg))
}

/// Why an op function rejected a node. `source` carries a foreign error
/// (e.g. a Python exception) through the engine untouched.
#[derive(Debug)]
pub struct OpError {
    pub message: String,
    pub source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl OpError {
    pub fn new(message: impl Into<String>) -> OpError {
        OpError {
            message: message.into(),
            source: None,
        }
    }

    pub fn with_source(
        message: impl Into<String>,
        source: Box<dyn std::error::Error + Send + Sync>,
    ) -> OpError {
        OpError {
            message: message.into(),
            source: Some(source),
        }
    }
}

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// `Err(OpError)` from a format string: `bail!("axis {axis} is out of range")`.
#[macro_export]
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err($crate::op::OpError::new(format!($($arg)*)))
    };
}
