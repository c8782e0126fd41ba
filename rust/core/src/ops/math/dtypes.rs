//! The dtype lists of TensorFlow's math op definitions (`math_ops.cc`,
//! `nn_ops.cc`), by the type constraint names TF uses.

use crate::types::DataType;
use crate::types::DataType::*;

/// Floating point: `{bfloat16, half, float, double}`.
pub(super) const FLOATS: &[DataType] = &[Float16, Bf16, Float, Double];

/// Floating point and complex (Sigmoid, Tanh, Exp, Log, Sqrt, ...).
pub(super) const FLOATS_COMPLEX: &[DataType] =
    &[Float16, Bf16, Float, Double, Complex64, Complex128];

/// TensorFlow's `UNARY()` list (Reciprocal, Inv): floats, signed integers
/// and complex.
pub(super) const FLOATS_INTS_COMPLEX: &[DataType] = &[
    Bf16, Float16, Float, Double, Int8, Int16, Int32, Int64, Complex64, Complex128,
];

/// `realnumbertypes`: every real integer and float type.
pub(super) const REAL: &[DataType] = &[
    Float, Double, Int32, Uint8, Int16, Int8, Int64, Bf16, Uint16, Float16, Uint32, Uint64,
];

/// `numbertypes`: the real types and the complex ones.
pub(super) const NUMBER: &[DataType] = &[
    Float, Double, Int32, Uint8, Int16, Int8, Int64, Bf16, Uint16, Float16, Uint32, Uint64,
    Complex64, Complex128,
];

/// Signed numbers (Neg, Sign): no unsigned integers.
pub(super) const SIGNED_NUMBER: &[DataType] = &[
    Bf16, Float16, Float, Double, Int8, Int16, Int32, Int64, Complex64, Complex128,
];

/// Signed reals (Abs, Round).
pub(super) const SIGNED_REAL: &[DataType] =
    &[Bf16, Float16, Float, Double, Int8, Int16, Int32, Int64];

/// Add (GE's list, TF's minus strings).
pub(super) const ADD: &[DataType] = &[
    Float, Float16, Bf16, Double, Int8, Uint8, Int16, Int32, Int64, Complex64, Complex128,
];

/// FloorMod: real numbers without complex.
pub(super) const FLOOR_MOD: &[DataType] = REAL;

/// Pow.
pub(super) const POW: &[DataType] = &[
    Bf16, Float, Float16, Double, Int8, Int16, Int32, Int64, Complex64, Complex128,
];

/// SquaredDifference.
pub(super) const SQUARED_DIFFERENCE: &[DataType] = &[
    Bf16, Float16, Float, Double, Int32, Int64, Complex64, Complex128,
];

/// Equal / NotEqual accept any type; these are the ones that have values.
pub(super) const EQUALITY: &[DataType] = &[
    Float, Double, Int32, Uint8, Int16, Int8, Int64, Bf16, Uint16, Float16, Uint32, Uint64,
    Complex64, Complex128, Bool, String, Qint8, Quint8, Qint32,
];

/// Relu: real numbers and qint8.
pub(super) const RELU: &[DataType] = &[
    Float, Double, Int32, Uint8, Int16, Int8, Int64, Bf16, Uint16, Float16, Uint32, Uint64, Qint8,
];

/// Square: floats, complex and every integer.
pub(super) const SQUARE: &[DataType] = &[
    Bf16, Float16, Float, Double, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64,
    Complex64, Complex128,
];

/// Integer index types (axes, k, dimension).
pub(super) const INDEX: &[DataType] = &[Int32, Int64];

/// TensorFlow's bitwise ops (BitwiseAnd, LeftShift, Invert, ...): the integers.
pub(super) const INTEGER: &[DataType] = &[Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64];

/// Booleans only.
pub(super) const BOOL: &[DataType] = &[Bool];
