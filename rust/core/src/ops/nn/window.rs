//! Sliding windows shared by convolution and pooling: activation layouts
//! from `data_format`, TensorFlow's padding modes and output-size formulas.

use crate::bail;
use crate::op::OpError;
use crate::types::{Format, UNKNOWN_DIM};

/// Where batch, channels and the spatial dims sit in an activation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Layout {
    pub format: Format,
    pub n: usize,
    pub c: usize,
    pub spatial: Vec<usize>,
}

/// The layout `data_format` names for a `rank`-D activation (4-D: NHWC /
/// NCHW, 5-D: NDHWC / NCDHW).
pub(super) fn layout(data_format: &str, rank: usize) -> Result<Layout, OpError> {
    let (format, c, spatial) = match (data_format, rank) {
        ("NHWC", 4) => (Format::Nhwc, 3, vec![1, 2]),
        ("NCHW", 4) => (Format::Nchw, 1, vec![2, 3]),
        ("NDHWC", 5) => (Format::Ndhwc, 4, vec![1, 2, 3]),
        ("NCDHW", 5) => (Format::Ncdhw, 1, vec![2, 3, 4]),
        (other, 4) => bail!("data_format is '{other}', expected NHWC or NCHW"),
        (other, _) => bail!("data_format is '{other}', expected NDHWC or NCDHW"),
    };
    Ok(Layout {
        format,
        n: 0,
        c,
        spatial,
    })
}

/// TensorFlow's `padding` attribute; GE's convolutions use an empty string
/// for "explicit `pads`".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Padding {
    Same,
    Valid,
    Explicit,
}

pub(super) fn padding(value: &str) -> Result<Padding, OpError> {
    Ok(match value {
        "SAME" => Padding::Same,
        "VALID" => Padding::Valid,
        "EXPLICIT" | "" => Padding::Explicit,
        other => bail!("padding is '{other}', expected SAME, VALID or EXPLICIT"),
    })
}

/// One spatial axis of a window.
#[derive(Clone, Copy, Debug)]
pub(super) struct Window {
    pub kernel: i64,
    pub stride: i64,
    pub dilation: i64,
    pub pad_before: i64,
    pub pad_after: i64,
}

impl Window {
    pub fn new(kernel: i64, stride: i64) -> Window {
        Window {
            kernel,
            stride,
            dilation: 1,
            pad_before: 0,
            pad_after: 0,
        }
    }
}

/// TensorFlow's output size along one axis, by its shape functions; -1
/// when the input or kernel size is unknown. SAME ignores the kernel
/// (`ceil(in / stride)`), VALID is `(in - effective) / stride + 1` and an
/// error when the window is larger than the input, EXPLICIT adds the pads
/// first.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "int64 values widened to i128 cannot overflow; divisors were checked >= 1 above"
)]
pub(super) fn output_dim(input: i64, w: &Window, padding: Padding) -> Result<i64, OpError> {
    if w.stride < 1 || w.dilation < 1 {
        bail!(
            "stride {} and dilation {} must be >= 1",
            w.stride,
            w.dilation
        );
    }
    if w.kernel != UNKNOWN_DIM && w.kernel < 1 {
        bail!("the window size {} must be >= 1", w.kernel);
    }
    if input == UNKNOWN_DIM || (w.kernel == UNKNOWN_DIM && padding != Padding::Same) {
        return Ok(UNKNOWN_DIM);
    }
    // i128: attribute values are arbitrary int64s and must not wrap.
    let (input, stride) = (input as i128, w.stride as i128);
    let effective = (w.dilation as i128) * (w.kernel as i128 - 1) + 1;
    let out = match padding {
        Padding::Same => (input + stride - 1) / stride,
        // TensorFlow's shape functions (GetWindowedOutputSizeFromDims)
        // subtract the window from the input first: a window larger than
        // the input is an error, not an output of size 0.
        Padding::Valid => {
            if input < effective {
                bail!("VALID padding needs the input size {input} >= the effective window size {effective}");
            }
            (input - effective) / stride + 1
        }
        Padding::Explicit => {
            if w.pad_before < 0 || w.pad_after < 0 {
                bail!("pads ({}, {}) must be >= 0", w.pad_before, w.pad_after);
            }
            let padded = input + w.pad_before as i128 + w.pad_after as i128;
            if padded < effective {
                bail!("the padded input size {padded} is smaller than the effective window size {effective}");
            }
            (padded - effective) / stride + 1
        }
    };
    to_i64(out)
}

pub(super) fn to_i64(v: i128) -> Result<i64, OpError> {
    i64::try_from(v).map_err(|_| OpError::new(format!("the output size {v} overflows int64")))
}

/// Checks a per-dim attribute (strides, ksize, dilations) in data_format
/// order: `len` values, all >= 1, and 1 at N and C.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "index arithmetic on ranks and positions already checked against the rank above"
)]
pub(super) fn check_per_dim(values: &[i64], layout: &Layout, name: &str) -> Result<(), OpError> {
    let rank = layout.spatial.len() + 2;
    if values.len() != rank {
        bail!("{name} has {} values, expected {rank}", values.len());
    }
    if values.iter().any(|&v| v < 1) {
        bail!("{name} {values:?} must all be >= 1");
    }
    if values[layout.n] != 1 || values[layout.c] != 1 {
        bail!(
            "{name} {values:?} must be 1 in the N and C positions of {}",
            layout.format
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensorflow_output_sizes() {
        let w = Window::new(3, 2);
        assert_eq!(output_dim(7, &w, Padding::Same).unwrap(), 4);
        assert_eq!(output_dim(7, &w, Padding::Valid).unwrap(), 3);
        assert_eq!(output_dim(3, &w, Padding::Valid).unwrap(), 1);
        // A window larger than the input: TensorFlow's shape function
        // refuses it, even where (2 - 3 + 2) / 2 = 0 windows would fit.
        assert!(output_dim(2, &w, Padding::Valid).is_err());
        assert!(output_dim(0, &w, Padding::Valid).is_err());
        let padded = Window {
            pad_before: 1,
            pad_after: 1,
            ..w
        };
        assert_eq!(output_dim(7, &padded, Padding::Explicit).unwrap(), 4);
        assert_eq!(output_dim(-1, &w, Padding::Same).unwrap(), -1);
        assert_eq!(
            output_dim(5, &Window::new(-1, 2), Padding::Same).unwrap(),
            3
        );
        assert!(output_dim(5, &Window::new(3, 0), Padding::Same).is_err());
        let huge = Window {
            pad_before: i64::MAX,
            pad_after: i64::MAX,
            ..Window::new(1, 1)
        };
        assert!(output_dim(i64::MAX, &huge, Padding::Explicit).is_err());
        assert!(layout("NCWH", 4).is_err());
        assert_eq!(layout("NCDHW", 5).unwrap().spatial, vec![2, 3, 4]);
    }
}
