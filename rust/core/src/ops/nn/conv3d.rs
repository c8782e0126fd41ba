//! Conv3D: NDHWC / NCDHW activations; the filter layout comes from its
//! origin format (NCDHW, NDHWC, or DHWCN — TensorFlow's `[kd, kh, kw, in,
//! out]`, also assumed for ND filters of NDHWC activations). Padding is
//! TensorFlow's SAME / VALID or GE's explicit `pads` (six values: front,
//! back, top, bottom, left, right).

use super::dims::with_rank;
use super::window::{check_per_dim, layout, output_dim, padding, Layout, Window};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, OpError, OpSchema, ParamType, PortDef};
use crate::types::{AttrType, AttrValue, DataType, Format, Shape};

const TYPES: &[DataType] = &[
    DataType::Float16,
    DataType::Float,
    DataType::Double,
    DataType::Bf16,
];

pub(super) fn schemas() -> Vec<OpSchema> {
    let conv3d = OpSchema::new("Conv3D")
        .input(PortDef::new("x", ParamType::Required).dtypes(TYPES))
        .input(PortDef::new("filter", ParamType::Required).dtypes(TYPES))
        .input(PortDef::new("bias", ParamType::Optional).dtypes(TYPES))
        .output(PortDef::new("y", ParamType::Required).dtypes(TYPES))
        .attr("strides", AttrType::ListInt, None)
        .attr(
            "pads",
            AttrType::ListInt,
            Some(AttrValue::ListInt(vec![0; 6])),
        )
        .attr(
            "dilations",
            AttrType::ListInt,
            Some(AttrValue::ListInt(vec![1; 5])),
        )
        .attr("groups", AttrType::Int, Some(AttrValue::Int(1)))
        .attr(
            "data_format",
            AttrType::Str,
            Some(AttrValue::Str("NDHWC".into())),
        )
        .attr(
            "padding",
            AttrType::Str,
            Some(AttrValue::Str(String::new())),
        )
        .verify(op_fn(verify_conv3d))
        .infer_shape(op_fn(infer_conv3d));
    vec![conv3d]
}

/// Positions of (out channels, in channels, kd, kh, kw) in the filter.
fn filter_layout(filter: Format, data: Format) -> Result<Layout, OpError> {
    let (n, c, spatial) = match (filter, data) {
        (Format::Ncdhw, _) | (Format::Nd, Format::Ncdhw) => (0, 1, vec![2, 3, 4]),
        (Format::Ndhwc, _) => (0, 4, vec![1, 2, 3]),
        (Format::Dhwcn, _) | (Format::Nd, _) => (4, 3, vec![0, 1, 2]),
        (other, _) => bail!("filter format {other} is not supported; use NCDHW, NDHWC or DHWCN"),
    };
    Ok(Layout {
        format: filter,
        n,
        c,
        spatial,
    })
}

fn verify_conv3d(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let l = layout(ctx.attr_str("data_format")?, 5)?;
    check_per_dim(ctx.attr_ints("strides")?, &l, "strides")?;
    check_per_dim(ctx.attr_ints("dilations")?, &l, "dilations")?;
    let pads = ctx.attr_ints("pads")?;
    if pads.len() != 6 || pads.iter().any(|&p| p < 0) {
        bail!("pads {pads:?} must be six values >= 0");
    }
    padding(ctx.attr_str("padding")?)?;
    if ctx.attr_int("groups")? < 1 {
        bail!("groups must be >= 1");
    }
    Ok(())
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
fn infer_conv3d(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let l = layout(ctx.attr_str("data_format")?, 5)?;
    let x = with_rank(ctx.input_shape(0)?, 5, "x")?;
    let filter_desc = ctx.input(1)?;
    let f_layout = filter_layout(filter_desc.origin_format, l.format)?;
    let filter = with_rank(filter_desc.shape(), 5, "filter")?;
    super::dims::nonempty_filter(&filter, "the filter")?;
    let groups = ctx.attr_int("groups")?;
    let (cin, cout) = (x[l.c], filter[f_layout.n]);
    let cin_per_group = filter[f_layout.c];
    if cin >= 0 && cin_per_group >= 0 && cin_per_group.checked_mul(groups) != Some(cin) {
        bail!("x has {cin} channels but the filter expects {cin_per_group} per group x {groups} groups");
    }
    if cout >= 0 && cout.checked_rem(groups) != Some(0) {
        bail!("the filter's {cout} output channels do not divide into {groups} groups");
    }
    if let Some(bias) = ctx.optional_input_desc(2)? {
        super::dims::check_vector(bias.shape(), cout, "bias")?;
    }
    let (strides, dilations, pads) = (
        ctx.attr_ints("strides")?,
        ctx.attr_ints("dilations")?,
        ctx.attr_ints("pads")?,
    );
    let pad_mode = padding(ctx.attr_str("padding")?)?;
    let mut out = x.clone();
    out[l.c] = cout;
    let mut windows = Vec::with_capacity(3);
    for (i, (&axis, &k_axis)) in l.spatial.iter().zip(&f_layout.spatial).enumerate() {
        let w = Window {
            kernel: filter[k_axis],
            stride: strides[axis],
            dilation: dilations[axis],
            pad_before: pads[2 * i],
            pad_after: pads[2 * i + 1],
        };
        out[axis] = output_dim(x[axis], &w, pad_mode)?;
        windows.push((axis, w));
    }
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    let cout_range = super::range_rules::input_dim(ctx, 1, f_layout.n);
    super::range_rules::tf_windows(ctx, 5, Some((l.c, cout_range)), &windows, pad_mode)?;
    ctx.set_output_format(0, l.format)
}
