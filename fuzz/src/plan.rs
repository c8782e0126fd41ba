//! What the fuzzer's bytes decode into: a small program that builds a graph
//! of built-in ops. The types are chosen so that most inputs build a graph
//! that gets deep into the engine (rank-4 shapes for Conv2D, shape constants
//! for Reshape), while still reaching the corners: unknown dims and ranks,
//! zero-size dims, dims near `i64::MAX`, bad attributes, cycles.

use arbitrary::{Arbitrary, Result, Unstructured};
use opgraph_core::prelude::{DataType, Format};

/// Most steps a plan (or a body) is allowed to run, so one input stays fast.
pub const MAX_STEPS: usize = 24;
pub const MAX_BODY_STEPS: usize = 6;
pub const MAX_REWIRES: usize = 3;
pub const MAX_RANK: usize = 6;
pub const MAX_CALL_ARGS: usize = 4;
pub const MAX_BODY_OUTPUTS: usize = 3;

/// The whole fuzz input: a root graph, some rewiring, an engine option.
#[derive(Arbitrary, Debug)]
pub struct Plan {
    pub collect_errors: bool,
    pub steps: Vec<Step>,
    /// Applied after every step has run, so they can point edges at later
    /// nodes and close cycles.
    pub rewires: Vec<Rewire>,
}

#[derive(Arbitrary, Debug)]
pub enum Step {
    Op(OpStep),
    Call(CallSpec),
}

/// One built-in op, fed by operands that may be created on the spot.
#[derive(Arbitrary, Debug)]
pub enum OpStep {
    Add(Operand, Operand),
    Identity(Operand),
    Reshape {
        x: Operand,
        shape: Operand,
        axis: IntAttr,
        num_axes: IntAttr,
    },
    Conv2D {
        x: Operand,
        filter: Operand,
        bias: Option<Operand>,
        attrs: ConvAttrs,
    },
}

/// Where an op input comes from.
#[derive(Arbitrary, Debug)]
pub enum Operand {
    /// An output already in the graph (index taken modulo their count).
    Existing(u8),
    /// A new graph input (Data node).
    Data(TensorSpec),
    /// A new Const node holding an integer vector (a Reshape target).
    Const(ConstSpec),
}

#[derive(Arbitrary, Debug)]
pub struct TensorSpec {
    pub dtype: Dtype,
    pub format: LayoutFormat,
    pub shape: ShapeSpec,
}

/// A Data node's shape; always valid under GE's conventions (inputs are
/// trusted; what the ops produce from them is what gets checked).
#[derive(Arbitrary, Debug)]
pub enum ShapeSpec {
    UnknownRank,
    Scalar,
    /// Rank 4 gets its own variant so Conv2D sees well-formed inputs often.
    Rank4([Dim; 4]),
    Dims(Vec<Dim>),
}

/// An integer Const. `matrix` makes it `[1, n]` instead of `[n]` (Reshape
/// wants a vector); `dtype` is INT64, INT32 or a non-integer type.
#[derive(Arbitrary, Debug)]
pub struct ConstSpec {
    pub dtype: ConstDtype,
    pub values: Vec<AnyInt>,
    pub matrix: bool,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum ConstDtype {
    Int64,
    Int32,
    /// Not an index type: Reshape must reject it.
    Float,
}

#[derive(Arbitrary, Debug)]
pub struct ConvAttrs {
    pub strides: IntListAttr,
    pub pads: IntListAttr,
    pub dilations: IntListAttr,
    pub groups: IntAttr,
    pub data_format: StrAttr,
    pub padding: StrAttr,
}

/// A list-of-int attribute, biased towards values Conv2D accepts.
#[derive(Arbitrary, Debug)]
pub enum IntListAttr {
    Absent,
    /// `[1, 1, a, b]`: spatial values in NCHW positions.
    Nchw(u8, u8),
    /// `[1, a, b, 1]`: spatial values in NHWC positions.
    Nhwc(u8, u8),
    Any(Vec<AnyInt>),
    /// A value of the wrong attribute type (a string).
    WrongType,
}

#[derive(Arbitrary, Debug)]
pub enum IntAttr {
    Absent,
    Value(AnyInt),
    WrongType,
}

/// A string attribute: one of a few meaningful spellings, or junk.
#[derive(Arbitrary, Debug)]
pub enum StrAttr {
    Absent,
    Known(KnownStr),
    Junk(String),
    /// A value of the wrong attribute type (an int).
    WrongType,
}

/// Spellings Conv2D knows (`data_format`, `padding`) and near misses.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum KnownStr {
    Nchw,
    Nhwc,
    Ncdhw,
    Same,
    Valid,
    Explicit,
    Empty,
    LowerSame,
}

impl KnownStr {
    pub fn text(self) -> &'static str {
        match self {
            KnownStr::Nchw => "NCHW",
            KnownStr::Nhwc => "NHWC",
            KnownStr::Ncdhw => "NCDHW",
            KnownStr::Same => "SAME",
            KnownStr::Valid => "VALID",
            KnownStr::Explicit => "EXPLICIT",
            KnownStr::Empty => "",
            KnownStr::LowerSame => "same",
        }
    }
}

/// A PartitionedCall whose body `f` is a small graph of its own.
#[derive(Arbitrary, Debug)]
pub struct CallSpec {
    pub args: Vec<Operand>,
    pub body: BodySpec,
    /// The call's output count when it should disagree with the body's.
    pub output_count_override: Option<u8>,
    /// Name the body something other than `f` (the engine must say so).
    pub misnamed_body: bool,
}

#[derive(Arbitrary, Debug)]
pub struct BodySpec {
    /// The body's Data nodes; each takes a caller input by its `index`.
    pub params: Vec<BodyParam>,
    pub steps: Vec<OpStep>,
    /// Body outputs, as indices into the outputs the body built.
    pub outputs: Vec<u8>,
    pub rewires: Vec<Rewire>,
}

#[derive(Arbitrary, Debug)]
pub struct BodyParam {
    /// The descriptor the parameter keeps when the caller does not bind it.
    pub spec: TensorSpec,
    /// Overrides the sequential caller-input index (may be out of range).
    pub index: Option<i8>,
}

/// Points input `input` of node `node` at output `source` (or absent).
#[derive(Arbitrary, Debug)]
pub struct Rewire {
    pub node: u8,
    pub input: u8,
    pub source: Option<u8>,
}

/// One dim of a Data shape: small sizes mostly, and the edge cases.
#[derive(Debug, Clone, Copy)]
pub struct Dim(pub i64);

/// Near and at the edges of i64: element counts overflow, products wrap.
const HUGE: &[i64] = &[
    i64::MAX,
    i64::MAX - 1,
    1 << 62,
    1 << 40,
    1 << 32,
    i32::MAX as i64,
    3_037_000_499, // floor(sqrt(i64::MAX)): its square just fits
    3_037_000_500, // and this one's does not
];

impl<'a> Arbitrary<'a> for Dim {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(Dim(match u.int_in_range(0u8..=11)? {
            0..=5 => u.int_in_range(1..=8)?,
            6 => 0,
            7 | 8 => -1,
            9 => u.int_in_range(9..=4096)?,
            _ => *u.choose(HUGE)?,
        }))
    }
}

/// An arbitrary int for attributes and shape vectors: small (including
/// the negative markers -1 and -2) most of the time, extremes sometimes.
#[derive(Debug, Clone, Copy)]
pub struct AnyInt(pub i64);

impl<'a> Arbitrary<'a> for AnyInt {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(AnyInt(match u.int_in_range(0u8..=9)? {
            0..=5 => u.int_in_range(-3..=8)?,
            6 => *u.choose(HUGE)?,
            7 => -*u.choose(HUGE)?,
            8 => i64::MIN,
            _ => i64::arbitrary(u)?,
        }))
    }
}

/// Input dtypes: ones the built-in ops accept, and some they must reject
/// (BOOL for Add, UNDEFINED for a graph input).
#[derive(Debug, Clone, Copy)]
pub struct Dtype(pub DataType);

impl<'a> Arbitrary<'a> for Dtype {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        use DataType::*;
        const DTYPES: &[DataType] = &[
            Float, Float, Float16, Bf16, Int8, Int32, Int64, Double, Bool, Undefined,
        ];
        Ok(Dtype(*u.choose(DTYPES)?))
    }
}

/// Input formats: the layouts Conv2D understands, ND, and unsupported ones.
#[derive(Debug, Clone, Copy)]
pub struct LayoutFormat(pub Format);

impl<'a> Arbitrary<'a> for LayoutFormat {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        use Format::*;
        const FORMATS: &[Format] = &[Nd, Nd, Nchw, Nhwc, Hwcn, FractalZ, Nc1hwc0];
        Ok(LayoutFormat(*u.choose(FORMATS)?))
    }
}
