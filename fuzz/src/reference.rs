//! Independent reference versions of the shape rules the oracle checks.
//! They are written from the rules as documented (numpy broadcasting,
//! TensorFlow's Conv2D output size), not copied from the core, so that a
//! shared mistake is unlikely. Dims follow GE: `-1` unknown, `[-2]` unknown
//! rank.

use opgraph_core::prelude::Format;

/// numpy broadcasting of two shapes, or `None` when they cannot broadcast.
///
/// Unknowns follow `opgraph_core::ops::broadcast_shapes`' documented rule:
/// an unknown rank makes the result an unknown rank; an unknown dim against
/// a known `d` that is not 1 must be 1 or `d` at run time, so the result is
/// `d`; an unknown dim against 1 (or another unknown) stays unknown.
pub fn broadcast(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    if a == [-2] || b == [-2] {
        return Some(vec![-2]);
    }
    let rank = a.len().max(b.len());
    // Walk from the trailing dim; a missing leading dim behaves as 1.
    let from_right = |s: &[i64], k: usize| s.len().checked_sub(k + 1).map_or(1, |i| s[i]);
    let mut reversed = Vec::with_capacity(rank);
    for k in 0..rank {
        reversed.push(broadcast_dim(from_right(a, k), from_right(b, k))?);
    }
    reversed.reverse();
    Some(reversed)
}

fn broadcast_dim(x: i64, y: i64) -> Option<i64> {
    match (x, y) {
        // 1 stretches to whatever the other side is, known or not.
        (1, d) | (d, 1) => Some(d),
        (-1, d) | (d, -1) => Some(d),
        _ if x == y => Some(x),
        _ => None,
    }
}

/// Where a Conv2D filter keeps output channels, input channels (per
/// group), kernel height and kernel width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilterAxes {
    pub cout: usize,
    pub cin: usize,
    pub h: usize,
    pub w: usize,
}

/// The filter layout Conv2D reads: the filter's own format when it names
/// one (OIHW for NCHW, OHWI for NHWC, HWIO for HWCN); an ND filter is OIHW
/// beside NCHW activations and TensorFlow's HWIO otherwise. `None` for
/// formats Conv2D must reject.
pub fn filter_axes(format: Format, nchw_data: bool) -> Option<FilterAxes> {
    const OIHW: FilterAxes = FilterAxes {
        cout: 0,
        cin: 1,
        h: 2,
        w: 3,
    };
    const OHWI: FilterAxes = FilterAxes {
        cout: 0,
        h: 1,
        w: 2,
        cin: 3,
    };
    const HWIO: FilterAxes = FilterAxes {
        h: 0,
        w: 1,
        cin: 2,
        cout: 3,
    };
    match format {
        Format::Nchw => Some(OIHW),
        Format::Nhwc => Some(OHWI),
        Format::Hwcn => Some(HWIO),
        Format::Nd => Some(if nchw_data { OIHW } else { HWIO }),
        _ => None,
    }
}

/// How Conv2D pads the spatial dims.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Padding {
    /// TensorFlow SAME: output = ceil(input / stride).
    Same,
    /// TensorFlow VALID: no padding, the window must fit.
    Valid,
    /// The `pads` attribute (`padding` empty or EXPLICIT).
    Explicit { before: i64, after: i64 },
}

/// One spatial output dim of a convolution, `Some(-1)` when the input or
/// the kernel size is unknown, `None` when the node must be rejected
/// (window larger than the padded input, result beyond i64).
pub fn conv_output_dim(
    input: i64,
    kernel: i64,
    stride: i64,
    dilation: i64,
    padding: Padding,
) -> Option<i64> {
    if input == -1 || kernel == -1 {
        return Some(-1);
    }
    // Wide arithmetic: every operand is an arbitrary i64.
    let (input, kernel, stride, dilation) = (
        input as i128,
        kernel as i128,
        stride as i128,
        dilation as i128,
    );
    let window = dilation * (kernel - 1) + 1;
    let out = match padding {
        Padding::Same => ceil_div(input, stride),
        Padding::Valid => positions(input, window, stride)?,
        Padding::Explicit { before, after } => {
            positions(input + before as i128 + after as i128, window, stride)?
        }
    };
    i64::try_from(out).ok()
}

/// How many window positions (every `stride`-th) fit in `size`.
fn positions(size: i128, window: i128, stride: i128) -> Option<i128> {
    (size >= window).then(|| ceil_div(size - window + 1, stride))
}

fn ceil_div(n: i128, d: i128) -> i128 {
    (n + d - 1) / d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_follows_numpy_and_ge_unknowns() {
        assert_eq!(broadcast(&[2, 1, 3], &[4, 1]), Some(vec![2, 4, 3]));
        assert_eq!(broadcast(&[], &[5]), Some(vec![5]));
        assert_eq!(broadcast(&[-1, 3], &[2, 1]), Some(vec![2, 3]));
        assert_eq!(broadcast(&[-1], &[1]), Some(vec![-1]));
        assert_eq!(broadcast(&[-1], &[-1]), Some(vec![-1]));
        assert_eq!(broadcast(&[-1], &[0]), Some(vec![0]));
        assert_eq!(broadcast(&[0], &[1]), Some(vec![0]));
        assert_eq!(broadcast(&[2], &[3]), None);
        assert_eq!(broadcast(&[0], &[3]), None);
        assert_eq!(broadcast(&[-2], &[3]), Some(vec![-2]));
    }

    #[test]
    fn conv_output_dims() {
        let explicit = |before, after| Padding::Explicit { before, after };
        assert_eq!(conv_output_dim(224, 7, 2, 1, explicit(3, 3)), Some(112));
        assert_eq!(conv_output_dim(224, 3, 2, 2, Padding::Same), Some(112));
        assert_eq!(conv_output_dim(5, 3, 1, 1, Padding::Valid), Some(3));
        assert_eq!(conv_output_dim(2, 3, 1, 1, Padding::Valid), None);
        assert_eq!(conv_output_dim(-1, 3, 1, 1, Padding::Valid), Some(-1));
        assert_eq!(conv_output_dim(i64::MAX, 1, 1, 1, explicit(1, 0)), None);
    }
}
