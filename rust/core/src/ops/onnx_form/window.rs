//! ONNX's sliding-window arithmetic (pooling and ConvTranspose): `auto_pad`,
//! per-spatial-dim attribute lists and the output-size formulas of the
//! ONNX operator spec. Arithmetic runs in i128 so int64 attributes never wrap.

use crate::bail;
use crate::infer::OpContext;
use crate::op::OpError;
use crate::types::{AttrValue, UNKNOWN_DIM};

/// ONNX's `auto_pad` attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum AutoPad {
    NotSet,
    SameUpper,
    SameLower,
    Valid,
}

impl AutoPad {
    pub fn parse(value: &str) -> Result<AutoPad, OpError> {
        Ok(match value {
            "NOTSET" | "" => AutoPad::NotSet,
            "SAME_UPPER" => AutoPad::SameUpper,
            "SAME_LOWER" => AutoPad::SameLower,
            "VALID" => AutoPad::Valid,
            other => {
                bail!("auto_pad is '{other}', expected NOTSET, SAME_UPPER, SAME_LOWER or VALID")
            }
        })
    }
}

/// A per-spatial-dim list attribute (`strides`, `dilations`, `pads` …):
/// `default` repeated `len` times when absent or empty, else exactly `len`
/// values, each checked by `at_least`.
pub(super) fn per_axis(
    ctx: &OpContext<'_>,
    name: &str,
    len: usize,
    default: i64,
    at_least: i64,
) -> Result<Vec<i64>, OpError> {
    let values = match ctx.attr(name) {
        None => Vec::new(),
        Some(AttrValue::ListInt(v)) => v.clone(),
        Some(other) => bail!(
            "attribute '{name}' is a {}, expected list[int]",
            other.attr_type()
        ),
    };
    if values.is_empty() {
        return Ok(vec![default; len]);
    }
    if values.len() != len {
        bail!("{name} has {} values, expected {len}", values.len());
    }
    if let Some(v) = values.iter().find(|&&v| v < at_least) {
        bail!("{name} {values:?} has {v}; every value must be >= {at_least}");
    }
    Ok(values)
}

/// One spatial axis of an ONNX window.
#[derive(Clone, Copy, Debug)]
pub(super) struct Axis {
    pub kernel: i64,
    pub stride: i64,
    pub dilation: i64,
    pub pad_begin: i64,
    pub pad_end: i64,
}

impl Axis {
    /// `dilation * (kernel - 1) + 1`.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "int64 values widened to i128 cannot overflow"
    )]
    fn effective(&self) -> i128 {
        i128::from(self.dilation) * (i128::from(self.kernel) - 1) + 1
    }
}

pub(super) fn to_i64(v: i128) -> Result<i64, OpError> {
    i64::try_from(v).map_err(|_| OpError::new(format!("the output size {v} overflows int64")))
}

/// How a window op rounds its count of window positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Rounding {
    /// Conv: the floor; every window must fit in the padded input
    /// (onnxruntime refuses a Conv whose kernel does not).
    Fit,
    /// Pooling: `span / stride` truncated toward zero, as onnxruntime and
    /// onnx's shape inference compute it: a window larger than the padded
    /// input by less than a stride still gives one (partial) window.
    Truncate,
    /// Pooling with `ceil_mode`: the ceiling, a last window that starts at
    /// or past `in + pad_begin` dropped (as onnxruntime and PyTorch do).
    Ceil,
}

impl Rounding {
    /// A pooling op's rounding for its `ceil_mode`.
    pub fn pooling(ceil_mode: bool) -> Rounding {
        if ceil_mode {
            Rounding::Ceil
        } else {
            Rounding::Truncate
        }
    }
}

/// An ONNX window op's output size along one axis: SAME_* is
/// `ceil(in / stride)`; explicit pads (none for VALID) give
/// `round((in + pads - effective) / stride) + 1` by `rounding` (VALID takes
/// `ceil_mode` too, as onnx's shape inference and onnxruntime do, though the
/// spec's formula for it has only the floor). No output at all is an
/// error. Unknown input, unknown output.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "int64 values widened to i128 cannot overflow; the stride was checked >= 1"
)]
pub(super) fn pool_output(
    input: i64,
    axis: &Axis,
    auto_pad: AutoPad,
    rounding: Rounding,
) -> Result<i64, OpError> {
    if input == UNKNOWN_DIM {
        return Ok(UNKNOWN_DIM);
    }
    let (size, stride) = (i128::from(input), i128::from(axis.stride.max(1)));
    let effective = axis.effective();
    let (begin, end) = match auto_pad {
        AutoPad::SameUpper | AutoPad::SameLower => return to_i64((size + stride - 1) / stride),
        AutoPad::Valid => (0, 0),
        AutoPad::NotSet => (i128::from(axis.pad_begin), i128::from(axis.pad_end)),
    };
    let padded = size + begin + end;
    // Negative for a window larger than the padded input.
    let span = padded - effective;
    let out = match rounding {
        Rounding::Fit if span < 0 => 0,
        // i128 division truncates toward zero, as C++'s does: a negative
        // span short of a stride still counts one window when pooling.
        Rounding::Fit | Rounding::Truncate => span / stride + 1,
        Rounding::Ceil => {
            let out = (span + stride - 1).div_euclid(stride) + 1;
            if out > 0 && (out - 1) * stride >= size + begin {
                out - 1
            } else {
                out
            }
        }
    };
    if out < 1 {
        match auto_pad {
            AutoPad::Valid => bail!(
                "VALID padding needs the input size {size} >= the effective window size {effective}"
            ),
            _ => bail!(
                "the padded input size {padded} is smaller than the effective window size {effective}"
            ),
        }
    }
    to_i64(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(kernel: i64, stride: i64, pads: (i64, i64)) -> Axis {
        Axis {
            kernel,
            stride,
            dilation: 1,
            pad_begin: pads.0,
            pad_end: pads.1,
        }
    }

    #[test]
    fn pooling_sizes() {
        // floor((5 + 0 - 2) / 2) + 1 = 2; ceil gives 3 (window at 4 starts inside).
        assert_eq!(
            pool_output(5, &axis(2, 2, (0, 0)), AutoPad::NotSet, Rounding::Fit).unwrap(),
            2
        );
        assert_eq!(
            pool_output(5, &axis(2, 2, (0, 0)), AutoPad::NotSet, Rounding::Ceil).unwrap(),
            3
        );
        // in 4, pads (1, 1), k 2, s 2: ceil((6 - 2) / 2) + 1 = 3; last window
        // starts at 4 >= 4 + 1? no, kept.
        assert_eq!(
            pool_output(4, &axis(2, 2, (1, 1)), AutoPad::NotSet, Rounding::Ceil).unwrap(),
            3
        );
        // in 2, pads (0, 2), k 1, s 3: ceil(3 / 3) + 1 = 2, the last window
        // starts at 3 >= 2: dropped.
        assert_eq!(
            pool_output(2, &axis(1, 3, (0, 2)), AutoPad::NotSet, Rounding::Ceil).unwrap(),
            1
        );
        assert_eq!(
            pool_output(7, &axis(3, 2, (0, 0)), AutoPad::SameLower, Rounding::Fit).unwrap(),
            4
        );
        assert_eq!(
            pool_output(7, &axis(3, 2, (0, 0)), AutoPad::Valid, Rounding::Fit).unwrap(),
            3
        );
        // VALID with ceil_mode, as onnx's shape inference and onnxruntime
        // give: in 4, k 3, s 3: ceil(1 / 3) + 1 = 2 (floor: 1); in 5, k 1,
        // s 3: ceil(4 / 3) + 1 = 3, but the last window starts at 6 >= 5
        // (onnxruntime drops it; onnx's shape inference does not).
        assert_eq!(
            pool_output(4, &axis(3, 3, (0, 0)), AutoPad::Valid, Rounding::Ceil).unwrap(),
            2
        );
        assert_eq!(
            pool_output(4, &axis(3, 3, (0, 0)), AutoPad::Valid, Rounding::Fit).unwrap(),
            1
        );
        assert_eq!(
            pool_output(5, &axis(1, 3, (0, 0)), AutoPad::Valid, Rounding::Ceil).unwrap(),
            2
        );
        assert!(pool_output(2, &axis(3, 1, (0, 0)), AutoPad::Valid, Rounding::Fit).is_err());
        // A window larger than its input: with ceil_mode one output while it
        // starts inside (in 2, k 3, s 3: ceil(-1 / 3) + 1 = 1), none when
        // even the ceiling is 0 (in 2, k 5, s 3: ceil(-3 / 3) + 1 = 0).
        assert_eq!(
            pool_output(2, &axis(3, 3, (0, 0)), AutoPad::Valid, Rounding::Ceil).unwrap(),
            1
        );
        assert_eq!(
            pool_output(1, &axis(3, 2, (0, 1)), AutoPad::NotSet, Rounding::Ceil).unwrap(),
            1
        );
        assert!(pool_output(2, &axis(5, 3, (0, 0)), AutoPad::NotSet, Rounding::Ceil).is_err());
        // Pooling without ceil_mode truncates as onnxruntime does: in 1, k 2,
        // s 2: -1 / 2 + 1 = 1 (one partial window); a Conv needs the fit.
        assert_eq!(
            pool_output(1, &axis(2, 2, (0, 0)), AutoPad::NotSet, Rounding::Truncate).unwrap(),
            1
        );
        assert!(pool_output(1, &axis(2, 2, (0, 0)), AutoPad::NotSet, Rounding::Fit).is_err());
        assert!(pool_output(1, &axis(3, 2, (0, 0)), AutoPad::NotSet, Rounding::Truncate).is_err());
        assert!(pool_output(2, &axis(4, 1, (1, 0)), AutoPad::NotSet, Rounding::Fit).is_err());
        assert_eq!(
            pool_output(-1, &axis(3, 1, (0, 0)), AutoPad::NotSet, Rounding::Fit).unwrap(),
            -1
        );
        let huge = Axis {
            kernel: i64::MAX,
            stride: 1,
            dilation: i64::MAX,
            pad_begin: i64::MAX,
            pad_end: i64::MAX,
        };
        assert!(pool_output(i64::MAX, &huge, AutoPad::NotSet, Rounding::Fit).is_err());
    }
}
