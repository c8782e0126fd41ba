//! Value types of the IR: data types, formats, shapes, host tensors,
//! tensor descriptors and attribute values.

mod attr;
mod desc;
mod dtype;
mod format;
mod name;
mod shape;
mod tensor;

pub use attr::{AttrKey, AttrType, AttrValue, Attrs, NamedAttrs};

/// An op type's name (`Conv2D`, `FusedBatchNormV3`): up to 24 bytes are
/// held inline, so a million nodes' types make no heap allocations.
pub type OpTypeName = compact_str::CompactString;
pub use desc::{range_problem, ListInfo, RangeProblem, TensorDesc};
pub use dtype::DataType;
pub use format::Format;
pub(crate) use name::same_name;
pub use shape::{Dims, Shape, ShapeError, MAX_RANK, UNKNOWN_DIM, UNKNOWN_RANK};
pub use tensor::{HostTensor, HostTensorError};
