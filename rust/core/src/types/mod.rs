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
pub use desc::{ListInfo, TensorDesc};
pub use dtype::DataType;
pub use format::Format;
pub(crate) use name::same_name;
pub use shape::{Dims, Shape, ShapeError, MAX_RANK, UNKNOWN_DIM, UNKNOWN_RANK};
pub use tensor::{HostTensor, HostTensorError};
