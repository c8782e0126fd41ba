//! Split (equal parts) and SplitV (given sizes, one may be -1) along an
//! axis given as a value-depend input, and GE's SplitD / SplitVD, which take
//! the axis (and sizes) as attributes (how Caffe's Slice layer maps); the
//! parts are dynamic outputs. OnnxSplit is ONNX's Split by `num_outputs`
//! (opset 18): parts of `ceil(dim / n)`, the last one smaller when the axis
//! does not divide evenly.

use super::host::{slice_axis, Elems};
use super::{int_scalar, int_value, range_rules, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, with_arg, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::common::{exact_div_dim, normalize_axis};
use crate::ops::ranges;
use crate::types::{AttrType, Dims, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let axis = || {
        PortDef::new("split_dim", ParamType::Required)
            .dtype_list(INDEX)
            .value_depend(ValueDepend::Required)
    };
    let split = OpSchema::new("Split")
        .input(axis())
        .input(PortDef::new("x", ParamType::Required))
        .output(PortDef::new("y", ParamType::Dynamic))
        .attr("num_split", AttrType::Int, None)
        .infer_dtype(op_fn(|ctx| outputs_take_dtype_of(ctx, 1)))
        .infer_shape(op_fn(|ctx| infer_split(ctx, Kind::Equal)))
        .fold(op_fn(|ctx| fold_split(ctx, Kind::Equal)));
    let split_v = OpSchema::new("SplitV")
        .input(PortDef::new("x", ParamType::Required))
        .input(
            PortDef::new("size_splits", ParamType::Required)
                .dtype_list(INDEX)
                .value_depend(ValueDepend::Required),
        )
        .input(axis())
        .output(PortDef::new("y", ParamType::Dynamic))
        .attr("num_split", AttrType::Int, None)
        .infer_dtype(op_fn(|ctx| outputs_take_dtype_of(ctx, 0)))
        .infer_shape(op_fn(|ctx| infer_split(ctx, Kind::Sizes)))
        .fold(op_fn(|ctx| fold_split(ctx, Kind::Sizes)));
    // GE's attribute forms: `split_dim` (and `size_splits`) are attributes;
    // OnnxSplit's too.
    let attribute_form = |op_type: &str, kind: Kind| {
        OpSchema::new(op_type)
            .input(PortDef::new("x", ParamType::Required))
            .output(PortDef::new("y", ParamType::Dynamic))
            .attr("split_dim", AttrType::Int, None)
            .attr("num_split", AttrType::Int, None)
            .infer_dtype(op_fn(|ctx| outputs_take_dtype_of(ctx, 0)))
            .infer_shape(with_arg(infer_split, kind))
            .fold(with_arg(fold_split, kind))
    };
    let split_d = attribute_form("SplitD", Kind::EqualD);
    let split_vd =
        attribute_form("SplitVD", Kind::SizesD).attr("size_splits", AttrType::ListInt, None);
    let onnx_split = attribute_form("OnnxSplit", Kind::Chunks);
    vec![split, split_v, split_d, split_vd, onnx_split]
}

fn outputs_take_dtype_of(ctx: &mut OpContext<'_>, i: usize) -> Result<(), OpError> {
    let dtype = ctx.input_dtype(i)?;
    (0..ctx.output_count()).try_for_each(|o| ctx.set_output_dtype(o, dtype))
}

/// Which split: equal parts or given sizes, with the axis (and sizes) from
/// value-depend inputs (Split, SplitV) or attributes (SplitD, SplitVD).
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Equal,
    Sizes,
    EqualD,
    SizesD,
    /// `ceil(dim / n)` each, the last part what remains (OnnxSplit).
    Chunks,
}

impl Kind {
    /// The input holding `x`.
    fn x(self) -> usize {
        usize::from(self == Kind::Equal)
    }

    fn equal(self) -> bool {
        matches!(self, Kind::Equal | Kind::EqualD)
    }

    /// The split axis, when known.
    fn split_dim(self, ctx: &OpContext<'_>) -> Result<Option<i64>, OpError> {
        match self {
            Kind::Equal => int_scalar(ctx, 0, "split_dim"),
            Kind::Sizes => int_scalar(ctx, 2, "split_dim"),
            Kind::EqualD | Kind::SizesD | Kind::Chunks => ctx.attr_int("split_dim").map(Some),
        }
    }

    /// The part sizes as given (`-1` for the rest), when known.
    fn given_sizes(self, ctx: &OpContext<'_>) -> Result<Option<Vec<i64>>, OpError> {
        match self {
            Kind::Sizes => Ok(int_value(ctx, 1)),
            Kind::SizesD => Ok(Some(ctx.attr_ints("size_splits")?.to_vec())),
            Kind::Equal | Kind::EqualD | Kind::Chunks => Ok(None),
        }
    }
}

/// What the split is: the input, the axis (when known) and the part sizes
/// along it (`-1` where unknown).
struct Plan<'a> {
    input: &'a Shape,
    axis: Option<usize>,
    sizes: Vec<i64>,
}

fn plan<'a>(ctx: &OpContext<'a>, kind: Kind) -> Result<Plan<'a>, OpError> {
    let num = ctx.attr_int("num_split")?;
    if num < 1 {
        bail!("attribute num_split is {num}; it must be >= 1");
    }
    if num != ctx.output_count() as i64 {
        bail!(
            "attribute num_split is {num} but the node has {} outputs",
            ctx.output_count()
        );
    }
    let input = ctx.input_shape(kind.x())?;
    let axis = match (kind.split_dim(ctx)?, input.rank()) {
        (Some(a), Some(rank)) => Some(normalize_axis(a, rank)?),
        _ => None,
    };
    let dim = axis.map_or(UNKNOWN_DIM, |a| input.dims()[a]);
    let n = num as usize;
    let sizes = if kind.equal() {
        let part = exact_div_dim(dim, num).ok_or_else(|| {
            OpError::new(format!(
                "the split axis has {dim} entries, which {num} parts cannot share equally"
            ))
        })?;
        vec![part; n]
    } else if kind == Kind::Chunks {
        chunk_sizes(dim, num)?
    } else {
        split_sizes(kind.given_sizes(ctx)?, n, dim)?
    };
    Ok(Plan { input, axis, sizes })
}

/// OnnxSplit's parts of an axis of `dim` entries: `ceil(dim / num)` each,
/// the last one what remains (unknown while the axis is).
#[allow(
    clippy::arithmetic_side_effects,
    reason = "in i128, where a product of two i64 and a difference of such cannot overflow; \
              num >= 1 is checked by the caller"
)]
fn chunk_sizes(dim: i64, num: i64) -> Result<Vec<i64>, OpError> {
    let n = num as usize;
    if dim == UNKNOWN_DIM {
        return Ok(vec![UNKNOWN_DIM; n]);
    }
    let (wide_dim, wide_num) = (i128::from(dim), i128::from(num));
    let chunk = (wide_dim + wide_num - 1) / wide_num;
    let last = wide_dim - chunk * (wide_num - 1);
    // chunk <= dim and 0 <= last <= dim: both fit i64 below.
    let chunk = chunk as i64;
    if last < 0 {
        bail!(
            "the split axis has {dim} entries, too few for {num} parts of {chunk} \
             (ONNX gives each part ceil({dim} / {num}) and the last the rest)"
        );
    }
    let mut sizes = vec![chunk; n];
    sizes[n - 1] = last as i64;
    Ok(sizes)
}

/// SplitV's sizes: one may be -1 (the rest of the axis); known sizes must
/// add up to the axis.
fn split_sizes(given: Option<Vec<i64>>, n: usize, dim: i64) -> Result<Vec<i64>, OpError> {
    let Some(mut sizes) = given else {
        return Ok(vec![UNKNOWN_DIM; n]);
    };
    if sizes.len() != n {
        bail!(
            "size_splits has {} entries but num_split is {n}",
            sizes.len()
        );
    }
    if let Some(bad) = sizes.iter().find(|&&s| s < -1) {
        bail!("size_splits holds {bad}; sizes must be >= 0, or -1 for the rest");
    }
    let unknown: Vec<usize> = (0..n).filter(|&i| sizes[i] == -1).collect();
    if unknown.len() > 1 {
        bail!("size_splits {sizes:?} has more than one -1");
    }
    let known: i128 = sizes
        .iter()
        .filter(|&&s| s >= 0)
        .map(|&s| i128::from(s))
        .sum();
    if dim == UNKNOWN_DIM {
        return Ok(sizes);
    }
    match unknown.first() {
        Some(&u) if known <= i128::from(dim) => sizes[u] = dim.saturating_sub(known as i64),
        None if known == i128::from(dim) => {}
        _ => bail!("size_splits {sizes:?} do not add up to the split axis of {dim} entries"),
    }
    Ok(sizes)
}

fn infer_split(ctx: &mut OpContext<'_>, kind: Kind) -> Result<(), OpError> {
    let plan = plan(ctx, kind)?;
    let part = part_range(ctx, kind, plan.sizes.len() as i64);
    for (o, &size) in plan.sizes.iter().enumerate() {
        let out = match (plan.axis, plan.input.rank()) {
            (Some(a), _) => {
                let mut dims = Dims::from_slice(plan.input.dims());
                dims[a] = size;
                Shape::from_dims(dims)
            }
            (None, Some(rank)) => Shape::unknown_dims(rank),
            (None, None) => Shape::unknown_rank(),
        };
        ctx.set_output_shape(o, out)?;
        range_rules::propagate(ctx, o, |ctx| {
            let (a, x) = (plan.axis?, kind.x());
            let mut r = ranges::of_input(ctx, x)?;
            r[a] = part(r[a])?;
            Some(r)
        })?;
    }
    Ok(())
}

/// The range of an unknown part of a split axis in `r`: an equal share,
/// the rest after the known sizes, or at most the axis.
fn part_range(
    ctx: &OpContext<'_>,
    kind: Kind,
    num: i64,
) -> impl Fn(ranges::Range) -> Option<ranges::Range> {
    let known = kind.given_sizes(ctx).ok().flatten().map(|s| {
        s.iter()
            .filter(|&&v| v >= 0)
            .fold(0i64, |t, &v| t.saturating_add(v))
    });
    let equal = kind.equal();
    move |r| match known {
        _ if equal => ranges::div_exact(r, num),
        Some(k) => Some(range_rules::sub(r, k)),
        None => Some(range_rules::up_to(r)),
    }
}

fn fold_split(ctx: &mut OpContext<'_>, kind: Kind) -> Result<(), OpError> {
    let plan = plan(ctx, kind)?;
    let Some(axis) = plan.axis else {
        return Ok(());
    };
    let sizes = plan.sizes;
    let Some(input) = Elems::input(ctx, kind.x()) else {
        return Ok(());
    };
    let mut start = 0usize;
    for (o, &size) in sizes.iter().enumerate() {
        let size = size.max(0) as usize;
        slice_axis(&input, axis, start, size).write(ctx, o)?;
        start = start.saturating_add(size);
    }
    Ok(())
}
