//! The dtypes TensorFlow's op registry allows on each argument of the ops
//! the built-in TensorFlow plugins map ([`table`], generated from
//! TensorFlow's OpDefs by `tests/tensorflow/generators/make_op_dtypes.py`),
//! so prototypes take their dtype lists from TensorFlow instead of lists
//! typed by hand.

// Generated: formatted by its generator, not by rustfmt.
#[rustfmt::skip]
mod table;

use crate::frontend::tensorflow::ge_dtype;
use crate::types::DataType;

/// The dtypes of one argument, as TensorFlow DataType numbers.
#[derive(Clone, Copy, Debug)]
pub enum Types {
    /// The type attr lists no `allowed_values`: every dtype.
    Any,
    Of(&'static [i32]),
}

/// One input or output argument of an OpDef.
#[derive(Clone, Copy, Debug)]
pub struct Arg {
    pub name: &'static str,
    pub types: Types,
}

/// One op type's arguments.
#[derive(Clone, Copy, Debug)]
pub struct OpDtypes {
    pub op: &'static str,
    pub inputs: &'static [Arg],
    pub outputs: &'static [Arg],
}

/// Every op type in the table, sorted by name.
pub fn all() -> &'static [OpDtypes] {
    table::TABLE
}

/// The mapped op types TensorFlow does not register.
pub fn not_in_tensorflow() -> &'static [&'static str] {
    table::NOT_IN_TENSORFLOW
}

/// TensorFlow's arguments of `op`, if it is in the table.
pub fn of(op: &str) -> Option<&'static OpDtypes> {
    let at = table::TABLE.binary_search_by(|o| o.op.cmp(op)).ok()?;
    table::TABLE.get(at)
}

impl Types {
    /// The opgraph dtypes these are, in TensorFlow's order; TensorFlow types
    /// opgraph has no equivalent for are left out.
    pub fn to_dtypes(self) -> Vec<DataType> {
        match self {
            Types::Any => (0..=MAX_TF_DTYPE).filter_map(ge_dtype).collect(),
            Types::Of(types) => types.iter().copied().filter_map(ge_dtype).collect(),
        }
    }
}

/// The largest TensorFlow DataType number (DT_FLOAT4_E2M1FN in 2.21).
const MAX_TF_DTYPE: i32 = 33;
