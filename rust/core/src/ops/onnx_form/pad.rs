//! PadV3 (GE's name), ONNX Pad from opset 11 (pads as an input; opset 2's
//! attribute becomes a constant input in the plugin) through opset 18's
//! `axes`. Unlike TensorFlow's Pad / PadV2 / MirrorPad (an `[rank, 2]`
//! paddings matrix), `paddings` is ONNX's flat layout
//! `[b_0 .. b_{n-1}, e_0 .. e_{n-1}]`, over every dim or over the dims
//! `axes` names (`n = len(axes)`); negative pads crop. The mode is an
//! attribute: "constant" (with the optional `constant_values` scalar),
//! "reflect", "edge" or "wrap".

use super::{distinct_axes, ints, Ints, INDEX};
use crate::bail;
use crate::infer::OpContext;
use crate::op::{op_fn, FollowType, OpError, OpSchema, ParamType, PortDef, ValueDepend};
use crate::ops::array::range_rules;
use crate::ops::ranges;
use crate::types::{AttrType, AttrValue, Shape, UNKNOWN_DIM};

pub(super) fn schemas() -> Vec<OpSchema> {
    let index = |name: &str, param| {
        PortDef::new(name, param)
            .dtype_list(INDEX)
            .value_depend(ValueDepend::Required)
    };
    let pad = OpSchema::new("PadV3")
        .input(PortDef::new("x", ParamType::Required))
        .input(index("paddings", ParamType::Required))
        .input(PortDef::new("constant_values", ParamType::Optional))
        .input(index("axes", ParamType::Optional))
        .output(PortDef::new("y", ParamType::Required).follow("x", FollowType::Dtype))
        .attr(
            "mode",
            AttrType::Str,
            Some(AttrValue::Str("constant".to_owned())),
        )
        .verify(op_fn(verify))
        .infer_shape(op_fn(infer));
    vec![pad]
}

const MODES: [&str; 4] = ["constant", "reflect", "edge", "wrap"];

fn verify(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let mode = ctx.attr_str("mode")?;
    if !MODES.contains(&mode) {
        bail!("attribute 'mode' is {mode:?}; expected one of {MODES:?}");
    }
    if let Some(value) = ctx.optional_input_desc(2)? {
        let x = ctx.input_dtype(0)?;
        if value.dtype != x {
            bail!(
                "input 'constant_values' is {} but x is {x}; they must match",
                value.dtype
            );
        }
        if value
            .shape()
            .num_elements()
            .ok()
            .flatten()
            .is_some_and(|n| n > 1)
        {
            bail!(
                "input 'constant_values' must be one value, got shape {}",
                value.shape()
            );
        }
    }
    Ok(())
}

/// `d + begin + end` per padded dim (unknown stays unknown); a negative
/// result is an error.
fn padded_dims(dims: &[i64], pads: &[i64], axes: Option<&[i64]>) -> Result<Vec<i64>, OpError> {
    let rank = dims.len();
    let axes = match axes {
        Some(a) => distinct_axes(a, rank, "axis")?,
        None => (0..rank).collect(),
    };
    let n = axes.len();
    if Some(pads.len()) != n.checked_mul(2) {
        bail!(
            "paddings has {} entries; {} dims are padded, so it needs {}",
            pads.len(),
            n,
            n.saturating_mul(2)
        );
    }
    let (begins, ends) = pads.split_at(n);
    let mut out = dims.to_vec();
    for ((&a, &b), &e) in axes.iter().zip(begins).zip(ends) {
        if out[a] == UNKNOWN_DIM {
            continue;
        }
        let d = i128::from(out[a])
            .saturating_add(i128::from(b))
            .saturating_add(i128::from(e));
        if d < 0 {
            bail!(
                "dim {a} of size {} padded by {b} and {e} would be {d}; it must be >= 0",
                out[a]
            );
        }
        out[a] = match i64::try_from(d) {
            Ok(d) if d != i64::MAX => d,
            _ => bail!(
                "dim {a} of size {} padded by {b} and {e} overflows int64",
                out[a]
            ),
        };
    }
    Ok(out)
}

fn infer(ctx: &mut OpContext<'_>) -> Result<(), OpError> {
    let pads = ints(ctx, 1, "paddings")?;
    let axes = ints(ctx, 3, "axes")?;
    let input = ctx.input_shape(0)?;
    let Some(rank) = input.rank() else {
        return ctx.set_output_shape(0, Shape::unknown_rank());
    };
    let dims = input.dims();
    // Which dims may change: those named by the axes (all without them),
    // and of those only the ones with a non-zero pad when the pads are known.
    let named = match &axes {
        Ints::Known(a) => {
            let mut named = vec![false; rank];
            for i in distinct_axes(a, rank, "axis")? {
                named[i] = true;
            }
            named
        }
        _ => vec![true; rank],
    };
    let (out, padded) = match (&pads, &axes) {
        (Ints::Known(p), Ints::Absent | Ints::Known(_)) => {
            let a = match &axes {
                Ints::Known(a) => Some(a.as_slice()),
                _ => None,
            };
            let out = padded_dims(dims, p, a)?;
            let (b, e) = p.split_at(p.len() / 2);
            let listed: Vec<usize> = match a {
                Some(a) => distinct_axes(a, rank, "axis")?,
                None => (0..rank).collect(),
            };
            let mut padded = vec![false; rank];
            for ((&i, &b), &e) in listed.iter().zip(b).zip(e) {
                padded[i] = (b, e) != (0, 0);
            }
            (out, padded)
        }
        _ => {
            let out = dims
                .iter()
                .zip(&named)
                .map(|(&d, &n)| if n { UNKNOWN_DIM } else { d })
                .collect();
            (out, named)
        }
    };
    ctx.set_output_shape(0, Shape::from_dims(out))?;
    // An unknown dim that is not padded keeps its range.
    range_rules::propagate(ctx, 0, |ctx| {
        let r = ranges::of_input(ctx, 0)?;
        Some(
            r.into_iter()
                .zip(padded)
                .map(|(r, p)| if p { ranges::ANY } else { r })
                .collect(),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn onnx_layout_negative_pads_and_axes() {
        assert_eq!(padded_dims(&[2, 3], &[1, 0, 2, 1], None).unwrap(), [5, 4]);
        assert_eq!(padded_dims(&[4, 3], &[-1, 0, -2, 0], None).unwrap(), [1, 3]);
        assert_eq!(padded_dims(&[2, 3], &[1, 1], Some(&[-1])).unwrap(), [2, 5]);
        assert_eq!(padded_dims(&[-1, 3], &[1, 1, 1, 1], None).unwrap(), [-1, 5]);
        assert!(padded_dims(&[2, 3], &[-3, 0, 0, 0], None).is_err());
        assert!(padded_dims(&[2, 3], &[1, 1], None).is_err());
        assert!(padded_dims(&[2, 3], &[1, 1, 1, 1], Some(&[0, 0])).is_err());
        assert!(padded_dims(&[2], &[i64::MAX, 1], None).is_err());
    }
}
