//! Storage shapes from origin shapes, with GE's formulas (metadef's
//! `transformer::TransferShapeUtils`):
//!
//! - NC1HWC0 = `[N, ceil(C / C0), H, W, C0]`, reading N, C, H, W through the
//!   origin layout (NCHW, NHWC, HWCN, CHWN; a 4-D ND tensor reads as NCHW);
//! - FRACTAL_Z of a 4-D filter = `[g·C1·H·W, ceil(N / 16), 16, C0]`, where a
//!   group convolution first packs `e` groups into one fractal
//!   (`GetFractalZShape`: `e = min(lcm(C0 / gcd(C, C0), 16 / gcd(N/g, 16)), g)`,
//!   `C ← C·e`, `N ← N/g·e`, `g ← ceil(g / e)`, `C1 = ceil(C / C0)`);
//! - FRACTAL_Z of a 2-D matrix `K × N` = `[ceil(K / C0), ceil(N / 16), 16, C0]`;
//! - FRACTAL_NZ = `[..., ceil(n / C0), ceil(m / 16), 16, C0]` for the last two
//!   dims `(m, n)`; a vector `[n]` gives `[1, ceil(n / 16), 16, C0]`.
//!
//! Unknown dims stay `-1` (GE's `DivisionCeiling` passes non-positive
//! dividends through), and a FRACTAL_Z whose C, H or W is unknown has an
//! unknown first dim. Products are checked: an overflow is an error.

use crate::types::{Dims, Format, UNKNOWN_DIM};

/// The fractal height (GE's `NI` / `SHAPE_NUMBER_16`): the `16` of every
/// fractal formula, and the cube's M0 and N0.
pub const FRACTAL_16: i64 = 16;

/// Why a storage shape cannot be computed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FormulaError {
    #[error("{format} needs a rank-{expected} origin shape, got rank {rank}")]
    Rank {
        format: Format,
        rank: usize,
        expected: &'static str,
    },
    #[error("{0} is not a 4-D layout (expected NCHW, NHWC, HWCN, CHWN or ND)")]
    Layout(Format),
    #[error("the {0} storage shape overflows int64")]
    Overflow(Format),
    #[error("opgraph computes NC1HWC0, FRACTAL_Z and FRACTAL_NZ storage shapes, not {0}")]
    Unsupported(Format),
    #[error("groups is {0}, expected >= 1")]
    Groups(i64),
    #[error("a {0} storage shape needs the tensor's dtype (its block size C0 follows it), got UNDEFINED")]
    NoDtype(Format),
    #[error("groups is {groups}, which does not divide the filter's {n} output channels")]
    GroupsDivide { groups: i64, n: i64 },
}

/// GE's `DivisionCeiling`: `ceil(d / by)` for a positive `d`; `0` and
/// unknown (`-1`) dims pass through.
pub fn div_ceil(d: i64, by: i64) -> i64 {
    if d <= 0 || by <= 0 {
        d
    } else {
        d / by + i64::from(d % by != 0)
    }
}

/// N, C, H, W of a 4-D tensor, read through its layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Axes {
    pub n: i64,
    pub c: i64,
    pub h: i64,
    pub w: i64,
}

impl Axes {
    /// The axes of `dims` in `layout` (GE's `kFormatIndexMap`).
    pub fn read(dims: &[i64], layout: Format) -> Result<Axes, FormulaError> {
        let [n, c, h, w] = match layout {
            Format::Nchw | Format::Nd => [0, 1, 2, 3],
            Format::Nhwc => [0, 3, 1, 2],
            Format::Hwcn => [3, 2, 0, 1],
            Format::Chwn => [3, 0, 1, 2],
            other => return Err(FormulaError::Layout(other)),
        };
        if dims.len() != 4 {
            return Err(FormulaError::Rank {
                format: layout,
                rank: dims.len(),
                expected: "4",
            });
        }
        Ok(Axes {
            n: dims[n],
            c: dims[c],
            h: dims[h],
            w: dims[w],
        })
    }

    /// A TensorFlow depthwise filter `[H, W, C, M]` (HWCN positions, N the
    /// channel multiplier) as the group convolution it is: `C` groups of one
    /// input channel, `C·M` output channels. Returns the axes and the groups.
    pub fn depthwise(dims: &[i64]) -> Result<(Axes, i64), FormulaError> {
        let hwcn = Axes::read(dims, Format::Hwcn)?;
        let n = if hwcn.c < 0 || hwcn.n < 0 {
            UNKNOWN_DIM
        } else {
            hwcn.c
                .checked_mul(hwcn.n)
                .ok_or(FormulaError::Overflow(Format::FractalZ))?
        };
        let axes = Axes { n, c: 1, ..hwcn };
        Ok((axes, hwcn.c.max(1)))
    }
}

/// NC1HWC0 = `[N, ceil(C / C0), H, W, C0]`.
pub fn nc1hwc0(axes: Axes, c0: i64) -> [i64; 5] {
    [axes.n, div_ceil(axes.c, c0), axes.h, axes.w, c0]
}

/// FRACTAL_Z of a 4-D filter with `groups` (1 for an ordinary convolution;
/// C is the per-group input channel count, as in the filter's own shape).
pub fn fractal_z(axes: Axes, groups: i64, c0: i64) -> Result<[i64; 4], FormulaError> {
    if groups < 1 {
        return Err(FormulaError::Groups(groups));
    }
    let overflow = || FormulaError::Overflow(Format::FractalZ);
    let Axes {
        mut n, mut c, h, w, ..
    } = axes;
    if c < 0 || h < 0 || w < 0 {
        return Ok([UNKNOWN_DIM, div_ceil(n, FRACTAL_16), FRACTAL_16, c0]);
    }
    if groups > 1 && n >= groups && n % groups != 0 {
        return Err(FormulaError::GroupsDivide { groups, n });
    }
    let mut g = 1;
    // GE packs groups only when N is known and covers them (`N >= groups`).
    if groups > 1 && n >= groups {
        n /= groups;
        let e = enlarge(c, n, c0, groups);
        g = div_ceil(groups, e);
        c = c.checked_mul(e).ok_or_else(overflow)?;
        n = n.checked_mul(e).ok_or_else(overflow)?;
    }
    let first = [div_ceil(c, c0), h, w]
        .into_iter()
        .try_fold(g, |acc, d| acc.checked_mul(d))
        .ok_or_else(overflow)?;
    Ok([first, div_ceil(n, FRACTAL_16), FRACTAL_16, c0])
}

/// How many groups share one fractal (GE's `GetAsisEnlargeValue`): the
/// fewest groups whose channels fill whole C0 and 16 blocks, at most all.
fn enlarge(cin: i64, cout: i64, c0: i64, groups: i64) -> i64 {
    if cin == 0 || cout == 0 {
        return 0;
    }
    lcm(c0 / gcd(cin, c0), FRACTAL_16 / gcd(cout, FRACTAL_16)).min(groups)
}

fn gcd(mut a: i64, mut b: i64) -> i64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

fn lcm(a: i64, b: i64) -> i64 {
    a / gcd(a, b) * b
}

/// FRACTAL_Z of a `K × N` matrix (a fully-connected weight):
/// `[ceil(K / C0), ceil(N / 16), 16, C0]`.
pub fn fractal_z_2d(k: i64, n: i64, c0: i64) -> [i64; 4] {
    [div_ceil(k, c0), div_ceil(n, FRACTAL_16), FRACTAL_16, c0]
}

/// FRACTAL_NZ: the last two dims `(m, n)` become
/// `[ceil(n / C0), ceil(m / 16), 16, C0]`; leading (batch) dims stay.
pub fn fractal_nz(dims: &[i64], c0: i64) -> Result<Dims, FormulaError> {
    let mut out = Dims::new();
    match dims {
        [] => {
            return Err(FormulaError::Rank {
                format: Format::FractalNz,
                rank: 0,
                expected: ">= 1",
            })
        }
        [n] => out.extend([1, div_ceil(*n, FRACTAL_16)]),
        [batch @ .., m, n] => {
            out.extend_from_slice(batch);
            out.extend([div_ceil(*n, c0), div_ceil(*m, FRACTAL_16)]);
        }
    }
    out.extend([FRACTAL_16, c0]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nchw(dims: [i64; 4]) -> Axes {
        Axes::read(&dims, Format::Nchw).unwrap()
    }

    #[test]
    fn nc1hwc0_by_hand() {
        // fp16 image: C = 3 fits one C0 block.
        assert_eq!(nc1hwc0(nchw([1, 3, 224, 224]), 16), [1, 1, 224, 224, 16]);
        // One channel over a block boundary takes a second block.
        assert_eq!(nc1hwc0(nchw([2, 17, 5, 5]), 16), [2, 2, 5, 5, 16]);
        assert_eq!(nc1hwc0(nchw([2, 32, 5, 5]), 16), [2, 2, 5, 5, 16]);
        // int8: C0 = 32.
        assert_eq!(nc1hwc0(nchw([1, 33, 7, 7]), 32), [1, 2, 7, 7, 32]);
        // NHWC reads C from the last dim; an unknown batch stays unknown.
        let nhwc = Axes::read(&[-1, 112, 112, 64], Format::Nhwc).unwrap();
        assert_eq!(nc1hwc0(nhwc, 16), [-1, 4, 112, 112, 16]);
        // Unknown C gives an unknown C1.
        assert_eq!(nc1hwc0(nchw([1, -1, 8, 8]), 16), [1, -1, 8, 8, 16]);
    }

    #[test]
    fn layouts_read_the_right_axes() {
        let dims = [2, 3, 5, 7];
        let read = |f| Axes::read(&dims, f).unwrap();
        assert_eq!(
            read(Format::Nchw),
            Axes {
                n: 2,
                c: 3,
                h: 5,
                w: 7
            }
        );
        assert_eq!(
            read(Format::Nd),
            read(Format::Nchw),
            "GE reads 4-D ND as NCHW"
        );
        assert_eq!(
            read(Format::Nhwc),
            Axes {
                n: 2,
                c: 7,
                h: 3,
                w: 5
            }
        );
        assert_eq!(
            read(Format::Hwcn),
            Axes {
                n: 7,
                c: 5,
                h: 2,
                w: 3
            }
        );
        assert_eq!(
            read(Format::Chwn),
            Axes {
                n: 7,
                c: 2,
                h: 3,
                w: 5
            }
        );
        assert!(matches!(
            Axes::read(&dims, Format::Nc1hwc0),
            Err(FormulaError::Layout(Format::Nc1hwc0))
        ));
        assert!(matches!(
            Axes::read(&[1, 2, 3], Format::Nchw),
            Err(FormulaError::Rank { rank: 3, .. })
        ));
    }

    #[test]
    fn fractal_z_of_a_resnet_stem_filter() {
        // [64, 3, 7, 7] NCHW fp16: C1 = 1, 1·7·7 = 49 rows, 64 / 16 = 4.
        assert_eq!(
            fractal_z(nchw([64, 3, 7, 7]), 1, 16).unwrap(),
            [49, 4, 16, 16]
        );
        // The same filter as TensorFlow's HWCN [7, 7, 3, 64].
        let hwcn = Axes::read(&[7, 7, 3, 64], Format::Hwcn).unwrap();
        assert_eq!(fractal_z(hwcn, 1, 16).unwrap(), [49, 4, 16, 16]);
        // C = 256 → C1 = 16; N = 100 → 7 blocks of 16.
        assert_eq!(
            fractal_z(nchw([100, 256, 3, 3]), 1, 16).unwrap(),
            [144, 7, 16, 16]
        );
        // int8: C0 = 32, C1 = ceil(64 / 32) = 2.
        assert_eq!(
            fractal_z(nchw([16, 64, 1, 1]), 1, 32).unwrap(),
            [2, 1, 16, 32]
        );
    }

    #[test]
    fn fractal_z_packs_groups() {
        // Depthwise 32 channels ([32, 1, 3, 3], groups 32), fp16:
        // e = min(lcm(16 / gcd(1, 16), 16 / gcd(1, 16)), 32) = 16,
        // g = ceil(32 / 16) = 2, C = 16 → C1 = 1, N = 16 → 1 block.
        assert_eq!(
            fractal_z(nchw([32, 1, 3, 3]), 32, 16).unwrap(),
            [18, 1, 16, 16]
        );
        // Two groups of [64 → 64]: e = min(lcm(16 / 16, 16 / 16), 2) = 1,
        // so g = 2 groups of C1 = 4, N = 64 → 4 blocks.
        assert_eq!(
            fractal_z(nchw([128, 64, 3, 3]), 2, 16).unwrap(),
            [72, 4, 16, 16]
        );
        // Four groups of [8 → 4]: e = min(lcm(16 / 8, 16 / 4), 4) = 4,
        // g = 1, C = 32 → C1 = 2, N = 16 → 1 block.
        assert_eq!(
            fractal_z(nchw([16, 8, 1, 1]), 4, 16).unwrap(),
            [2, 1, 16, 16]
        );
        // Fewer output channels than groups: GE leaves the groups alone.
        assert_eq!(
            fractal_z(nchw([2, 3, 1, 1]), 4, 16).unwrap(),
            [1, 1, 16, 16]
        );
        assert!(matches!(
            fractal_z(nchw([2, 3, 1, 1]), 0, 16),
            Err(FormulaError::Groups(0))
        ));
    }

    #[test]
    fn depthwise_filters_are_group_convolutions() {
        // TF [3, 3, 32, 1]: 32 groups of one channel → as the Caffe [32, 1, 3, 3].
        let (axes, groups) = Axes::depthwise(&[3, 3, 32, 1]).unwrap();
        assert_eq!(
            (axes, groups),
            (
                Axes {
                    n: 32,
                    c: 1,
                    h: 3,
                    w: 3
                },
                32
            )
        );
        assert_eq!(fractal_z(axes, groups, 16).unwrap(), [18, 1, 16, 16]);
        // Multiplier 2: e = min(lcm(16, 8), 32) = 16, N = 2 · 16 = 32 → 2 blocks.
        let (axes, groups) = Axes::depthwise(&[3, 3, 32, 2]).unwrap();
        assert_eq!(fractal_z(axes, groups, 16).unwrap(), [18, 2, 16, 16]);
    }

    #[test]
    fn fractal_z_keeps_unknown_dims_unknown() {
        // Caffe weights without a caffemodel: C unknown → first dim unknown.
        assert_eq!(
            fractal_z(nchw([64, -1, 7, 7]), 1, 16).unwrap(),
            [-1, 4, 16, 16]
        );
        assert_eq!(
            fractal_z(nchw([-1, 3, 7, 7]), 1, 16).unwrap(),
            [49, -1, 16, 16]
        );
        assert_eq!(
            fractal_z(nchw([-1, 3, 7, 7]), 4, 16).unwrap(),
            [49, -1, 16, 16]
        );
    }

    #[test]
    fn fractal_z_checks_overflow() {
        let huge = nchw([16, i64::MAX / 2, i64::MAX / 2, 3]);
        assert_eq!(
            fractal_z(huge, 1, 16),
            Err(FormulaError::Overflow(Format::FractalZ))
        );
    }

    #[test]
    fn fractal_z_of_a_matrix() {
        // A 1024 → 1000 fully-connected weight: 64 K blocks, 63 N blocks.
        assert_eq!(fractal_z_2d(1024, 1000, 16), [64, 63, 16, 16]);
        assert_eq!(fractal_z_2d(100, 10, 32), [4, 1, 16, 32]);
        assert_eq!(fractal_z_2d(-1, 10, 16), [-1, 1, 16, 16]);
    }

    #[test]
    fn fractal_nz_by_hand() {
        // [..., m = 100, n = 70]: ceil(70 / 16) = 5, ceil(100 / 16) = 7.
        assert_eq!(
            fractal_nz(&[8, 100, 70], 16).unwrap().as_slice(),
            &[8, 5, 7, 16, 16]
        );
        assert_eq!(
            fractal_nz(&[100, 70], 16).unwrap().as_slice(),
            &[5, 7, 16, 16]
        );
        // int8: n blocks of 32.
        assert_eq!(
            fractal_nz(&[100, 70], 32).unwrap().as_slice(),
            &[3, 7, 16, 32]
        );
        // A vector [n] is one row of m = n (GE's GetFractalNzShape).
        assert_eq!(fractal_nz(&[70], 16).unwrap().as_slice(), &[1, 5, 16, 16]);
        // Unknown m stays unknown.
        assert_eq!(
            fractal_nz(&[-1, 70], 16).unwrap().as_slice(),
            &[5, -1, 16, 16]
        );
        assert!(fractal_nz(&[], 16).is_err());
    }

    #[test]
    fn div_ceil_is_ge_division_ceiling() {
        assert_eq!(div_ceil(17, 16), 2);
        assert_eq!(div_ceil(16, 16), 1);
        assert_eq!(div_ceil(0, 16), 0);
        assert_eq!(div_ceil(-1, 16), -1);
        assert_eq!(div_ceil(i64::MAX, 16), i64::MAX / 16 + 1);
    }
}
