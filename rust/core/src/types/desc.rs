//! Tensor descriptors: what inference knows about one tensor.

use super::{DataType, Format, HostTensor, Shape};
use thin_vec::ThinVec;

/// GE's `GeTensorDesc`: the origin view (what inference works on) and the
/// storage view (what the device holds, set by the format pass).
#[derive(Clone, Debug, PartialEq)]
pub struct TensorDesc {
    pub dtype: DataType,
    pub origin_format: Format,
    pub origin_shape: Shape,
    pub storage_format: Format,
    pub storage_shape: Shape,
    /// Inclusive `(min, max)` per dim for dynamic shapes; `max == -1` is
    /// unbounded. A thin vector (one word): static tensors have none.
    pub shape_range: Option<ThinVec<(i64, i64)>>,
    /// Host value for constants and folded shape tensors.
    pub value: Option<HostTensor>,
    /// For a 1-D integer tensor that holds a shape, what is known of it
    /// element by element (`-1` unknown) when the whole `value` is not:
    /// `Shape(x)` of an `x: [?, 224, 224, 3]` folds to `[-1, 224, 224, 3]`.
    pub shape_value: Option<Box<Shape>>,
    /// For a scalar or 1-D integer tensor whose value is not fully known:
    /// inclusive `(min, max)` per element (`max == -1` unbounded), GE's
    /// value range. `Shape(x)` of an `x: [?, 4]` with its first dim in
    /// `0..=450` records `[(0, 450), (4, 4)]`, so a Fill or Expand to that
    /// shape is bounded. A cast of such sizes to float keeps their bounds
    /// (the float values are whole numbers): an `arange` over a size.
    pub value_range: Option<ThinVec<(i64, i64)>>,
    /// For a list handle (a TensorFlow TensorList, an ONNX sequence): what
    /// the list holds and, when known, how many elements. The element
    /// shape travels in `shape_value`.
    pub list: Option<ListInfo>,
}

/// What a list handle's descriptor knows about the list beyond its element
/// shape: the element dtype and, when known, the element count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListInfo {
    pub element_dtype: DataType,
    pub length: Option<i64>,
}

impl Default for TensorDesc {
    /// Not yet inferred: undefined dtype, unknown rank.
    fn default() -> Self {
        TensorDesc::new(DataType::Undefined, Shape::unknown_rank(), Format::Nd)
    }
}

/// Why a shape range does not fit a shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeProblem {
    /// Not one range per dim (or the shape's rank is unknown).
    Count { rank: Option<usize>, ranges: usize },
    /// Range `dim` is not `(min, max)` with `0 <= min <= max` (`max == -1`:
    /// unbounded), or does not hold that dim's known size.
    Dim {
        dim: usize,
        range: (i64, i64),
        size: i64,
    },
}

/// What is wrong with `ranges` (inclusive `(min, max)` per dim) for
/// `shape`: one range per dim, each a range of sizes holding the dim when
/// it is known.
pub fn range_problem(shape: &Shape, ranges: &[(i64, i64)]) -> Option<RangeProblem> {
    if shape.rank() != Some(ranges.len()) {
        return Some(RangeProblem::Count {
            rank: shape.rank(),
            ranges: ranges.len(),
        });
    }
    ranges
        .iter()
        .zip(shape.dims())
        .enumerate()
        .find_map(|(dim, (&(lo, hi), &size))| {
            let holds = size < 0 || (lo <= size && (hi == -1 || size <= hi));
            (lo < 0 || (hi != -1 && hi < lo) || !holds).then_some(RangeProblem::Dim {
                dim,
                range: (lo, hi),
                size,
            })
        })
}

impl TensorDesc {
    /// A descriptor whose storage view equals its origin view.
    pub fn new(dtype: DataType, shape: Shape, format: Format) -> TensorDesc {
        TensorDesc {
            dtype,
            origin_format: format,
            storage_format: format,
            storage_shape: shape.clone(),
            origin_shape: shape,
            shape_range: None,
            value: None,
            shape_value: None,
            value_range: None,
            list: None,
        }
    }

    /// The descriptor of a constant holding `value`.
    pub fn constant(value: HostTensor, format: Format) -> TensorDesc {
        let mut desc = TensorDesc::new(value.dtype(), value.shape().clone(), format);
        desc.value = Some(value);
        desc
    }

    /// Back to the not-yet-inferred state of [`TensorDesc::default`], in
    /// place: the engine does this to every output of every node, and
    /// building a whole default descriptor to move over the old one costs
    /// a call and a 200-byte copy each time.
    pub(crate) fn reset(&mut self) {
        self.dtype = DataType::Undefined;
        self.origin_format = Format::Nd;
        self.storage_format = Format::Nd;
        self.origin_shape = Shape::unknown_rank();
        self.storage_shape = Shape::unknown_rank();
        self.shape_range = None;
        self.value = None;
        self.shape_value = None;
        self.value_range = None;
        self.list = None;
    }

    /// What is wrong with `shape_range` for this shape, if anything (see
    /// [`range_problem`]).
    pub fn shape_range_problem(&self) -> Option<RangeProblem> {
        range_problem(self.shape(), self.shape_range.as_deref()?)
    }

    /// The shape inference works on.
    pub fn shape(&self) -> &Shape {
        &self.origin_shape
    }

    /// Sets the origin shape and mirrors it into the storage shape; the
    /// format pass recomputes storage later.
    pub fn set_shape(&mut self, shape: Shape) {
        self.storage_shape = shape.clone();
        self.origin_shape = shape;
    }

    pub fn set_format(&mut self, format: Format) {
        self.origin_format = format;
        self.storage_format = format;
    }

    /// `float32[1, 3, ?, ?]`-style summary used in error messages.
    pub fn summary(&self) -> String {
        format!(
            "{}{}",
            self.dtype.name().to_ascii_lowercase(),
            self.origin_shape
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use thin_vec::thin_vec;

    #[test]
    fn reset_is_default() {
        let value = HostTensor::from_ints(DataType::Int32, Shape::from_dims([2]), &[1, 2]).unwrap();
        let mut desc = TensorDesc::constant(value, Format::Nchw);
        desc.shape_range = Some(thin_vec![(2, 2)]);
        desc.value_range = Some(thin_vec![(0, 9), (1, 1)]);
        // Every field a fold or an infer function may set (the engine's
        // re-run without folding starts from `default()` instead).
        desc.shape_value = Some(Box::new(Shape::from_dims([1, 2])));
        desc.list = Some(ListInfo {
            element_dtype: DataType::Float,
            length: Some(3),
        });
        desc.storage_format = Format::Nc1hwc0;
        desc.reset();
        assert_eq!(desc, TensorDesc::default());
    }
}
