//! Shape-range rules of the math ops (on top of [`crate::ops::ranges`] and
//! the array ops' [`propagate`]).

use crate::ops::common::normalize_axis;
use crate::ops::ranges::{self, Range};

pub(super) use crate::ops::array::range_rules::{intersect_all, propagate, up_to};

/// A reduction over `axes` (None: unknown which): reduced axes become 1
/// with `keep_dims` and go without; unknown axes with `keep_dims` leave
/// each dim either itself or 1.
pub(super) fn reduce(input: Vec<Range>, axes: Option<&[i64]>, keep: bool) -> Option<Vec<Range>> {
    let rank = input.len();
    let Some(axes) = axes else {
        return keep.then(|| input.into_iter().map(|r| ranges::hull(r, (1, 1))).collect());
    };
    let mut reduced = vec![false; rank];
    for &a in axes {
        reduced[normalize_axis(a, rank).ok()?] = true;
    }
    let kept = input.into_iter().zip(reduced);
    Some(
        kept.filter_map(|(r, gone)| match (gone, keep) {
            (false, _) => Some(r),
            (true, true) => Some((1, 1)),
            (true, false) => None,
        })
        .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions() {
        let x = vec![(1, 8), (2, 2), (0, -1)];
        assert_eq!(
            reduce(x.clone(), Some(&[0]), false),
            Some(vec![(2, 2), (0, -1)])
        );
        assert_eq!(
            reduce(x.clone(), Some(&[-1, 0]), true),
            Some(vec![(1, 1), (2, 2), (1, 1)])
        );
        assert_eq!(reduce(x.clone(), Some(&[]), false), Some(x.clone()));
        assert_eq!(reduce(x.clone(), None, false), None);
        assert_eq!(
            reduce(vec![(3, 8), (0, 4)], None, true),
            Some(vec![(1, 8), (0, 4)])
        );
        assert_eq!(reduce(x, Some(&[3]), false), None);
    }
}
