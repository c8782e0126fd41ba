//! Tensor sizes by GE's rule, and the alignment arithmetic of the planner.
//!
//! GE sizes a tensor as the bytes of its storage shape and dtype, rounded up
//! to 32 and plus 32 more: `((bytes + 2 * 32 - 1) / 32) * 32` in metadef's
//! `TensorUtils::GetTensorMemorySizeInBytes` (graph/utils/tensor_utils.cc,
//! `kDataMemAlignSize = 32`). The memory assigner then places blocks at
//! offsets aligned to `MEM_ALIGN_SIZE = 512` (ge/graph/build/memory/
//! mem_assigner.h), which is the planner's default alignment.

use super::MemoryError;
use crate::device::formats::storage_shape;
use crate::device::soc::Soc;
use crate::types::{Shape, TensorDesc, UNKNOWN_DIM};

/// GE's `kDataMemAlignSize`: tensor sizes are padded to a multiple of it,
/// plus one more unit.
pub const DATA_ALIGN: u64 = 32;
/// GE's `MEM_ALIGN_SIZE`: the alignment of every offset in a memory plan.
pub const OFFSET_ALIGN: u64 = 512;
/// The largest alignment a plan may be asked for (1 GiB): device memory is
/// aligned to small powers of two; a larger one only multiplies every size.
pub const MAX_ALIGNMENT: u64 = 1 << 30;

/// `value` rounded up to a multiple of `alignment` (which must be >= 1), or
/// `None` on overflow.
pub fn align_up(value: u64, alignment: u64) -> Option<u64> {
    let rem = value % alignment;
    if rem == 0 {
        Some(value)
    } else {
        value.checked_add(alignment - rem)
    }
}

/// GE's padding of raw tensor bytes: up to a multiple of 32, plus 32.
pub fn ge_padded_size(raw_bytes: u64) -> Option<u64> {
    Some(raw_bytes.checked_add(2 * DATA_ALIGN - 1)? / DATA_ALIGN * DATA_ALIGN)
}

/// The storage dims to size the tensor with: the storage shape itself, or,
/// when `use_ranges` is set and the storage view still mirrors the origin
/// view, each unknown dim replaced by its shape range's upper bound. `None`
/// when some dim (or the rank) stays unknown.
fn sizing_dims(desc: &TensorDesc, use_ranges: bool) -> Option<Vec<i64>> {
    let shape = &desc.storage_shape;
    if shape.is_unknown_rank() {
        return None;
    }
    if shape.is_static() {
        return Some(shape.dims().to_vec());
    }
    if !use_ranges {
        return None;
    }
    largest_shapes(desc).map(|(_, stored)| stored.dims().to_vec())
}

/// The largest origin and storage shapes of `desc`: each unknown origin
/// dim at its shape range's upper bound, stored as the format pass stores
/// this tensor. `None` when some dim has no upper bound (or the rank is
/// unknown), and when the bounds are past any byte count: an NMS exported
/// with torchvision's `max_output_boxes_per_class = 2^63 - 1` over a free
/// box count is bounded by that. No device holds it, so memory sizes it at
/// run time and the cost model treats it as unbounded, rather than the
/// whole plan failing.
pub(crate) fn largest_shapes(desc: &TensorDesc) -> Option<(Shape, Shape)> {
    let (origin, stored) = largest_shapes_unchecked(desc)?;
    padded_bytes(desc, origin.dims())?;
    padded_bytes(desc, stored.dims())?;
    Some((origin, stored))
}

fn largest_shapes_unchecked(desc: &TensorDesc) -> Option<(Shape, Shape)> {
    // A range describes origin dims: its upper bounds give the largest
    // origin shape, stored as the format pass stores this tensor.
    let origin = &desc.origin_shape;
    let range = desc
        .shape_range
        .as_ref()
        .filter(|r| Some(r.len()) == origin.rank())?;
    let largest: Option<Vec<i64>> = origin
        .dims()
        .iter()
        .zip(range)
        .map(|(&d, &(_, max))| match d {
            UNKNOWN_DIM if max >= 0 => Some(max),
            UNKNOWN_DIM => None,
            d => Some(d),
        })
        .collect();
    let largest = Shape::from_dims(largest?);
    if desc.storage_shape == desc.origin_shape {
        return Some((largest.clone(), largest));
    }
    // Every SoC family stores a dtype with the same C0, so any target does.
    let soc = Soc::from_name("Ascend910B").ok()?;
    let stored = storage_shape(
        &largest,
        desc.origin_format,
        desc.storage_format,
        desc.dtype,
        1,
        &soc,
    )
    .ok()?;
    (stored.rank() == desc.storage_shape.rank()).then_some((largest, stored))
}

/// The bytes a tensor occupies by GE's rule, or `Ok(None)` when its storage
/// shape has unknown dims without an upper bound (a dynamic tensor, see
/// [`largest_shapes`]). A static shape that overflows is an error.
pub fn tensor_size(
    name: &str,
    desc: &TensorDesc,
    use_ranges: bool,
) -> Result<Option<u64>, MemoryError> {
    tensor_size_named(|| name.to_owned(), desc, use_ranges)
}

/// [`tensor_size`] with the tensor's name built only for an error.
pub(crate) fn tensor_size_named(
    name: impl Fn() -> String,
    desc: &TensorDesc,
    use_ranges: bool,
) -> Result<Option<u64>, MemoryError> {
    if desc.dtype.bits().is_none() {
        return Err(MemoryError::NotInferred { tensor: name() });
    }
    let Some(dims) = sizing_dims(desc, use_ranges) else {
        return Ok(None);
    };
    match padded_bytes(desc, &dims) {
        Some(bytes) => Ok(Some(bytes)),
        None => Err(MemoryError::SizeOverflow {
            tensor: name(),
            detail: format!("{} {}", desc.dtype.name(), Shape::from_dims(&dims)),
        }),
    }
}

/// GE's size of `desc`'s dtype over `dims`; `None` on overflow.
fn padded_bytes(desc: &TensorDesc, dims: &[i64]) -> Option<u64> {
    let count = dims.iter().try_fold(1i64, |acc, &d| acc.checked_mul(d))?;
    let raw = u64::try_from(desc.dtype.bytes_for(count)?).ok()?;
    ge_padded_size(raw)
}

/// Like [`tensor_size`], but a dynamic tensor is an error naming it.
pub fn static_tensor_size(
    name: &str,
    desc: &TensorDesc,
    use_ranges: bool,
) -> Result<u64, MemoryError> {
    tensor_size(name, desc, use_ranges)?
        .ok_or_else(|| MemoryError::unknown_size(name.to_owned(), desc, use_ranges))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{DataType, Format};
    use thin_vec::thin_vec;

    fn desc(dtype: DataType, dims: &[i64]) -> TensorDesc {
        TensorDesc::new(dtype, Shape::from_dims(dims), Format::Nchw)
    }

    #[test]
    fn ge_rule_rounds_up_to_32_and_adds_32() {
        // fp16 [1, 3, 224, 224]: 150528 elements * 2 bytes = 301056 bytes,
        // already a multiple of 32, so GE's size is 301056 + 32.
        let image = desc(DataType::Float16, &[1, 3, 224, 224]);
        assert_eq!(tensor_size("x", &image, true), Ok(Some(301_088)));
        // fp32 [3]: 12 bytes -> 32 -> 64.
        assert_eq!(
            tensor_size("x", &desc(DataType::Float, &[3]), true),
            Ok(Some(64))
        );
        // A scalar int64 (8 bytes) and an empty tensor (0 bytes) both take 32 + 32 / 0 + 32.
        assert_eq!(
            tensor_size("x", &desc(DataType::Int64, &[]), true),
            Ok(Some(64))
        );
        assert_eq!(
            tensor_size("x", &desc(DataType::Float, &[0, 4]), true),
            Ok(Some(32))
        );
        // 32 bytes exactly: 32 + 32.
        assert_eq!(
            tensor_size("x", &desc(DataType::Int8, &[32]), true),
            Ok(Some(64))
        );
        // 33 bytes: 64 + 32.
        assert_eq!(
            tensor_size("x", &desc(DataType::Int8, &[33]), true),
            Ok(Some(96))
        );
    }

    #[test]
    fn sub_byte_types_are_packed() {
        // 65 int4 elements = 260 bits = 33 bytes (rounded up) -> 64 + 32.
        assert_eq!(
            tensor_size("x", &desc(DataType::Int4, &[65]), true),
            Ok(Some(96))
        );
        // 256 uint1 elements = 32 bytes -> 32 + 32.
        assert_eq!(
            tensor_size("x", &desc(DataType::Uint1, &[256]), true),
            Ok(Some(64))
        );
    }

    #[test]
    fn the_storage_shape_is_what_is_sized() {
        // NC1HWC0 storage of an fp16 [1, 3, 4, 4] tensor: C padded to 16.
        let mut d = desc(DataType::Float16, &[1, 3, 4, 4]);
        d.storage_format = Format::Nc1hwc0;
        d.storage_shape = Shape::from_dims([1, 1, 4, 4, 16]);
        // 256 elements * 2 = 512 bytes -> 512 + 32.
        assert_eq!(tensor_size("x", &d, true), Ok(Some(544)));
    }

    #[test]
    fn unknown_dims_use_the_range_upper_bound_or_are_dynamic() {
        let mut d = desc(DataType::Float, &[-1, 8]);
        assert_eq!(tensor_size("x", &d, true), Ok(None));
        let err = static_tensor_size("conv:0", &d, true).unwrap_err();
        assert!(err.to_string().contains("'conv:0'"), "{err}");
        assert!(err.to_string().contains("[?, 8]"), "{err}");
        d.shape_range = Some(thin_vec![(1, 16), (8, 8)]);
        // 16 * 8 * 4 = 512 bytes -> 544.
        assert_eq!(tensor_size("x", &d, true), Ok(Some(544)));
        assert_eq!(tensor_size("x", &d, false), Ok(None));
        d.shape_range = Some(thin_vec![(1, -1), (8, 8)]);
        assert_eq!(tensor_size("x", &d, true), Ok(None), "unbounded range");
        // Bounded, but past any byte count: sized at run time, not an error.
        d.shape_range = Some(thin_vec![(1, i64::MAX), (8, 8)]);
        assert_eq!(tensor_size("x", &d, true), Ok(None), "overflowing range");
        assert_eq!(largest_shapes(&d), None, "the cost model's bounds too");
        let unknown_rank = desc(DataType::Float, &[-2]);
        assert_eq!(tensor_size("x", &unknown_rank, true), Ok(None));
    }

    #[test]
    fn bad_descriptors_are_errors() {
        let undefined = TensorDesc::default();
        assert!(matches!(
            tensor_size("n:0", &undefined, true),
            Err(MemoryError::NotInferred { tensor }) if tensor == "n:0"
        ));
        let huge = desc(DataType::Double, &[i64::MAX / 4, 2]);
        assert!(matches!(
            tensor_size("big:1", &huge, true),
            Err(MemoryError::SizeOverflow { tensor, .. }) if tensor == "big:1"
        ));
    }

    #[test]
    fn alignment_is_checked() {
        assert_eq!(align_up(301_088, OFFSET_ALIGN), Some(301_568));
        assert_eq!(align_up(1024, OFFSET_ALIGN), Some(1024));
        assert_eq!(align_up(0, OFFSET_ALIGN), Some(0));
        assert_eq!(align_up(u64::MAX, OFFSET_ALIGN), None);
        assert_eq!(ge_padded_size(u64::MAX - 10), None);
    }

    #[test]
    fn a_device_format_tensor_is_sized_at_its_ranges_upper_bounds() {
        // [1, 20, ?, ?] fp16 NCHW in NC1HWC0, H and W up to 30: stored as
        // [1, 2, 30, 30, 16] at the largest.
        let mut d = TensorDesc::new(
            DataType::Float16,
            Shape::from_dims([1, 20, UNKNOWN_DIM, UNKNOWN_DIM]),
            Format::Nchw,
        );
        d.storage_format = Format::Nc1hwc0;
        d.storage_shape = Shape::from_dims([1, 2, UNKNOWN_DIM, UNKNOWN_DIM, 16]);
        assert_eq!(tensor_size("t", &d, true).unwrap(), None);
        d.shape_range = Some(thin_vec![(1, 1), (20, 20), (8, 30), (8, 30)]);
        let raw = 2 * 30 * 30 * 16 * 2;
        assert_eq!(tensor_size("t", &d, true).unwrap(), ge_padded_size(raw));
        assert_eq!(tensor_size("t", &d, false).unwrap(), None);
    }
}
