//! What the fuzzer's bytes decode into: a small program that builds a graph
//! of built-in ops. The types are chosen so that most inputs build a graph
//! that gets deep into the engine (rank-4 shapes for Conv2D, shape constants
//! for Reshape), while still reaching the corners: unknown dims and ranks,
//! zero-size dims, dims near `i64::MAX`, bad attributes, cycles.

use arbitrary::{Arbitrary, Result, Unstructured};
use opgraph_core::prelude::{DataType, Format};

// Size limits: one input stays fast, and a crashing graph stays small
// enough to read. Longer lists in an input are cut, not rejected.
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

/// A root graph step: an op, or a call whose body may call once more.
pub type Step = StepOf<InnerStep>;
/// A body step: an op, or a call whose body holds only ops. The types
/// bound the nesting (root → body → body) without any runtime counter.
pub type InnerStep = StepOf<OpStep>;

/// An op, or a call whose body is made of `S` steps.
#[derive(Debug)]
pub enum StepOf<S> {
    Op(OpStep),
    Call(CallSpec<S>),
}

impl<'a, S: Arbitrary<'a>> Arbitrary<'a> for StepOf<S> {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        // A call brings a whole body; one step in eight is plenty.
        Ok(if u.ratio(1u8, 8u8)? {
            StepOf::Call(CallSpec::arbitrary(u)?)
        } else {
            StepOf::Op(OpStep::arbitrary(u)?)
        })
    }
}

/// One built-in op, fed by operands that may be created on the spot.
#[derive(Arbitrary, Debug)]
pub enum OpStep {
    Add(Operand, Operand),
    Identity(Operand),
    Reshape {
        x: Operand,
        shape: TargetOperand,
        axis: IntAttr,
        num_axes: IntAttr,
    },
    Conv2D {
        x: ConvInput,
        filter: FilterSpec,
        bias: BiasSpec,
        attrs: ConvAttrs,
    },
}

/// Conv2D activations: half of them a fresh rank-4 input in a dtype Conv2D
/// takes, since arbitrary operands are rarely either.
#[derive(Arbitrary, Debug)]
pub enum ConvInput {
    Fresh {
        dtype: ConvDtype,
        dims: [Dim; 4],
        format: LayoutFormat,
    },
    Any(Operand),
}

/// The activation dtypes of Conv2D's prototype, FLOAT first among equals.
#[derive(Debug, Clone, Copy)]
pub struct ConvDtype(pub DataType);

impl<'a> Arbitrary<'a> for ConvDtype {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        use DataType::*;
        Ok(ConvDtype(
            *u.choose(&[Float, Float, Float, Float16, Int8, Bf16])?,
        ))
    }
}

/// A Conv2D filter. Random filters almost never agree with the input's
/// channels and dtype, so half of them are made to agree.
#[derive(Arbitrary, Debug)]
pub enum FilterSpec {
    /// A new Data filter with the input's dtype and `Cin = C / groups`
    /// (when the builder can see them), laid out in `format`.
    Matching {
        cout: Dim,
        kh: Dim,
        kw: Dim,
        format: FilterFormat,
    },
    Any(Operand),
}

#[derive(Arbitrary, Debug)]
pub enum BiasSpec {
    Absent,
    /// A new Data bias of shape `[Cout]` in the dtype Conv2D pairs with x's.
    Matching,
    Any(Operand),
}

/// Where an op input comes from.
#[derive(Debug)]
pub enum Operand {
    /// An output already in the graph (index taken modulo their count).
    Existing(u8),
    /// A new graph input (Data node).
    Data(TensorSpec),
    /// A new Const node holding an integer vector (a Reshape target).
    Const(ConstSpec),
}

impl Operand {
    /// An operand drawn with the given odds (out of 8) for Existing and
    /// Data; Const takes the rest.
    fn weighted(u: &mut Unstructured<'_>, existing: u8, data: u8) -> Result<Self> {
        let roll = u.int_in_range(0u8..=7)?;
        Ok(if roll < existing {
            Operand::Existing(u8::arbitrary(u)?)
        } else if roll < existing + data {
            Operand::Data(TensorSpec::arbitrary(u)?)
        } else {
            Operand::Const(ConstSpec::arbitrary(u)?)
        })
    }
}

impl<'a> Arbitrary<'a> for Operand {
    /// Consts are integer vectors, only meaningful as Reshape targets.
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Operand::weighted(u, 4, 3)
    }
}

/// A Reshape `shape` operand: mostly a Const, so the target is known.
#[derive(Debug)]
pub struct TargetOperand(pub Operand);

impl<'a> Arbitrary<'a> for TargetOperand {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(TargetOperand(Operand::weighted(u, 2, 1)?))
    }
}

#[derive(Arbitrary, Debug)]
pub struct TensorSpec {
    pub dtype: Dtype,
    pub format: LayoutFormat,
    pub shape: ShapeSpec,
}

/// A Data node's shape; always valid under GE's conventions (inputs are
/// trusted; what the ops produce from them is what gets checked).
#[derive(Debug)]
pub enum ShapeSpec {
    UnknownRank,
    Scalar,
    /// Rank 4 gets its own variant so Conv2D sees well-formed inputs often.
    Rank4([Dim; 4]),
    Dims(Vec<Dim>),
}

impl<'a> Arbitrary<'a> for ShapeSpec {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(match u.int_in_range(0u8..=8)? {
            0 => ShapeSpec::UnknownRank,
            1 => ShapeSpec::Scalar,
            2..=5 => ShapeSpec::Rank4(Arbitrary::arbitrary(u)?),
            _ => ShapeSpec::Dims(Arbitrary::arbitrary(u)?),
        })
    }
}

/// An integer Const. `matrix` makes it `[1, n]` instead of `[n]` (Reshape
/// wants a vector); `dtype` is INT64, INT32 or a non-integer type.
#[derive(Arbitrary, Debug)]
pub struct ConstSpec {
    pub dtype: ConstDtype,
    pub values: Vec<AnyInt>,
    pub matrix: Rare<()>,
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
    pub data_format: DataFormatAttr,
    pub padding: PaddingAttr,
}

/// A list-of-int attribute, biased towards values Conv2D accepts.
#[derive(Debug)]
pub enum IntListAttr {
    Absent,
    /// `a, b` in the H and W positions of the node's `data_format`, 1 in
    /// N and C: `[1, 1, a, b]` for NCHW, `[1, a, b, 1]` for NHWC.
    Spatial(Small, Small),
    /// `a, b` in the H and W positions of the *other* layout.
    OtherLayout(Small, Small),
    Any(Vec<AnyInt>),
    /// A value of the wrong attribute type (a string).
    WrongType,
}

impl<'a> Arbitrary<'a> for IntListAttr {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        // Conv2D checks six attributes: each must be valid most of the time
        // for a node to get through them all.
        Ok(match u.int_in_range(0u8..=31)? {
            0 => IntListAttr::Absent,
            1..=25 => IntListAttr::Spatial(Small::arbitrary(u)?, Small::arbitrary(u)?),
            26 | 27 => IntListAttr::OtherLayout(Small::arbitrary(u)?, Small::arbitrary(u)?),
            28..=30 => IntListAttr::Any(Arbitrary::arbitrary(u)?),
            _ => IntListAttr::WrongType,
        })
    }
}

/// An int attribute: mostly left to its default, sometimes set (to
/// anything), rarely of the wrong type.
#[derive(Debug)]
pub enum IntAttr {
    Absent,
    Value(AnyInt),
    WrongType,
}

impl<'a> Arbitrary<'a> for IntAttr {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(match u.int_in_range(0u8..=31)? {
            0..=19 => IntAttr::Absent,
            20..=30 => IntAttr::Value(AnyInt::arbitrary(u)?),
            _ => IntAttr::WrongType,
        })
    }
}

/// A string attribute.
#[derive(Debug)]
pub enum StrAttr {
    Absent,
    Text(&'static str),
    Junk(String),
    /// A value of the wrong attribute type (an int).
    WrongType,
}

impl StrAttr {
    /// Mostly absent or one of the `good` spellings; sometimes a near miss,
    /// junk, or the wrong type.
    fn weighted(
        u: &mut Unstructured<'_>,
        good: &[&'static str],
        near_misses: &[&'static str],
    ) -> Result<Self> {
        Ok(match u.int_in_range(0u8..=31)? {
            0..=7 => StrAttr::Absent,
            8..=27 => StrAttr::Text(u.choose(good)?),
            28 | 29 => StrAttr::Text(u.choose(near_misses)?),
            30 => StrAttr::Junk(String::arbitrary(u)?),
            _ => StrAttr::WrongType,
        })
    }

    pub fn is(&self, text: &str) -> bool {
        matches!(self, StrAttr::Text(t) if *t == text)
    }
}

/// Conv2D's `data_format` (default NHWC).
#[derive(Debug)]
pub struct DataFormatAttr(pub StrAttr);

impl<'a> Arbitrary<'a> for DataFormatAttr {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let attr = StrAttr::weighted(u, &["NCHW", "NHWC"], &["NCDHW", "nchw", "HWCN", ""])?;
        Ok(DataFormatAttr(attr))
    }
}

/// Conv2D's `padding` (default "": use `pads`).
#[derive(Debug)]
pub struct PaddingAttr(pub StrAttr);

impl<'a> Arbitrary<'a> for PaddingAttr {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let attr = StrAttr::weighted(
            u,
            &["SAME", "VALID", "EXPLICIT", ""],
            &["same", "CALCULATED"],
        )?;
        Ok(PaddingAttr(attr))
    }
}

/// A PartitionedCall whose body `f` is a small graph of its own, made of
/// `S` steps.
#[derive(Arbitrary, Debug)]
pub struct CallSpec<S> {
    pub args: Vec<Operand>,
    pub body: BodySpec<S>,
    /// The call's output count when it should disagree with the body's.
    pub output_count_override: Rare<u8>,
    /// Name the body something other than `f` (the engine must say so).
    pub misnamed_body: Rare<()>,
}

/// A body has one parameter (a Data node with `index` i) per call
/// argument; its other Data nodes are free inputs with their own
/// descriptors.
#[derive(Arbitrary, Debug)]
pub struct BodySpec<S> {
    /// A parameter beyond the arguments, with an index of its own (which
    /// may be out of range, negative, or a duplicate).
    pub extra_param: Rare<(TensorSpec, i8)>,
    pub steps: Vec<S>,
    /// Body outputs, as indices into the outputs the body built.
    pub outputs: Vec<u8>,
    pub rewires: Vec<Rewire>,
}

/// An edge edit after building (node and output indices are taken modulo
/// their counts).
#[derive(Arbitrary, Debug)]
pub enum Rewire {
    /// Points input `input` of `node` at output `source`, or makes it absent.
    Input {
        node: u8,
        input: u8,
        source: Option<u8>,
    },
    /// Adds a control edge `from` → `node` (ordering only; it can close a
    /// cycle, and a failed `from` makes the engine skip `node`).
    Control { node: u8, from: u8 },
}

/// `Some` one time in eight: for the inputs that break a graph on purpose
/// and would otherwise hide everything behind them.
#[derive(Debug)]
pub struct Rare<T>(pub Option<T>);

impl<'a, T: Arbitrary<'a>> Arbitrary<'a> for Rare<T> {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(Rare(if u.ratio(1u8, 8u8)? {
            Some(T::arbitrary(u)?)
        } else {
            None
        }))
    }
}

impl<T> Rare<T> {
    pub fn is_set(&self) -> bool {
        self.0.is_some()
    }
}

/// A stride, dilation or pad: mostly 1..=3, sometimes 0 (invalid as a
/// stride or dilation, fine as a pad).
#[derive(Debug, Clone, Copy)]
pub struct Small(pub i64);

impl<'a> Arbitrary<'a> for Small {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Ok(Small(match u.int_in_range(0u8..=15)? {
            0 => 0,
            k => i64::from(k % 3 + 1),
        }))
    }
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
/// (BOOL for Add, UNDEFINED for a graph input). FLOAT dominates so that
/// two inputs often agree (Add and Conv2D need matching dtypes).
#[derive(Debug, Clone, Copy)]
pub struct Dtype(pub DataType);

impl<'a> Arbitrary<'a> for Dtype {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        use DataType::*;
        const OTHERS: &[DataType] = &[Float16, Bf16, Int8, Int32, Int64, Double, Bool, Undefined];
        Ok(Dtype(if u.ratio(1u8, 2u8)? {
            Float
        } else {
            *u.choose(OTHERS)?
        }))
    }
}

/// Filter formats: the three Conv2D reads, ND, and rarely one it rejects.
#[derive(Debug, Clone, Copy)]
pub struct FilterFormat(pub Format);

impl<'a> Arbitrary<'a> for FilterFormat {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        use Format::*;
        const FORMATS: &[Format] = &[Nd, Nd, Nchw, Nchw, Nhwc, Nhwc, Hwcn, Hwcn, FractalZ];
        Ok(FilterFormat(*u.choose(FORMATS)?))
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
