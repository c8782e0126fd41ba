//! fp32 → fp16 for weights the precision policy stores in fp16 (what GE's
//! constant folding of the inserted Cast produces): IEEE binary16, rounded
//! to nearest, ties to even.

use crate::types::{DataType, HostTensor};
use bytes::Bytes;

/// The binary16 bits nearest to `x` (ties to even; overflow → ±inf; NaN stays NaN).
pub fn f32_to_f16_bits(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let mant = bits & 0x007f_ffff;
    if exp == 0xff {
        let nan = if mant != 0 {
            0x0200 | (mant >> 13) as u16
        } else {
            0
        };
        return sign | 0x7c00 | nan;
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        // Subnormal (or zero): 2^-24 units, from the 24-bit significand.
        if e < -10 {
            return sign;
        }
        let m = mant | 0x0080_0000;
        let shift = (14 - e) as u32;
        let rounded = (m + (1 << (shift - 1)) - 1 + ((m >> shift) & 1)) >> shift;
        return sign | rounded as u16;
    }
    let top = ((e as u32) << 10) | (mant >> 13);
    let rest = mant & 0x1fff;
    // A carry out of the mantissa correctly bumps the exponent (to inf at the top).
    let round_up = rest > 0x1000 || (rest == 0x1000 && top & 1 == 1);
    sign | (top + u32::from(round_up)) as u16
}

/// `value` (FLOAT) as a FLOAT16 tensor of the same shape; `None` for other dtypes.
pub fn to_fp16(value: &HostTensor) -> Option<HostTensor> {
    if value.dtype() != DataType::Float {
        return None;
    }
    if let Some(element) = value.splat_element() {
        // A splat stays one element (see HostTensor::splat).
        let bits = f32_to_f16_bits(f32::from_le_bytes(element.as_ref().try_into().ok()?));
        let element = Bytes::copy_from_slice(&bits.to_le_bytes());
        return HostTensor::splat(DataType::Float16, value.shape().clone(), element).ok();
    }
    let out: Vec<u8> = value
        .bytes()
        .chunks_exact(4)
        .flat_map(|c| f32_to_f16_bits(f32::from_le_bytes([c[0], c[1], c[2], c[3]])).to_le_bytes())
        .collect();
    HostTensor::new(DataType::Float16, value.shape().clone(), Bytes::from(out)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Shape;

    #[test]
    fn known_values() {
        assert_eq!(f32_to_f16_bits(1.0), 0x3c00);
        assert_eq!(f32_to_f16_bits(-2.0), 0xc000);
        assert_eq!(f32_to_f16_bits(0.0), 0x0000);
        assert_eq!(f32_to_f16_bits(-0.0), 0x8000);
        assert_eq!(f32_to_f16_bits(0.1), 0x2e66);
        assert_eq!(f32_to_f16_bits(65504.0), 0x7bff, "largest finite");
        assert_eq!(f32_to_f16_bits(65519.0), 0x7bff, "below the halfway point");
        assert_eq!(
            f32_to_f16_bits(65520.0),
            0x7c00,
            "the tie rounds to even: inf"
        );
        assert_eq!(f32_to_f16_bits(f32::INFINITY), 0x7c00);
        assert_eq!(f32_to_f16_bits(f32::NEG_INFINITY), 0xfc00);
        assert_eq!(f32_to_f16_bits(f32::NAN) & 0x7e00, 0x7e00);
    }

    #[test]
    fn ties_go_to_even() {
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: down to the even 1.
        assert_eq!(f32_to_f16_bits(1.0 + 2f32.powi(-11)), 0x3c00);
        // 1 + 3·2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9: up.
        assert_eq!(f32_to_f16_bits(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
    }

    #[test]
    fn subnormals() {
        assert_eq!(
            f32_to_f16_bits(2f32.powi(-24)),
            0x0001,
            "smallest subnormal"
        );
        assert_eq!(f32_to_f16_bits(2f32.powi(-25)), 0x0000, "tie to even zero");
        assert_eq!(f32_to_f16_bits(1.5 * 2f32.powi(-25)), 0x0001);
        assert_eq!(f32_to_f16_bits(2f32.powi(-14)), 0x0400, "smallest normal");
        assert_eq!(f32_to_f16_bits(2f32.powi(-15)), 0x0200);
        assert_eq!(f32_to_f16_bits(1e-8), 0x0000);
    }

    #[test]
    fn tensors_convert_element_by_element() {
        let data: Vec<u8> = [1.0f32, -2.0, 0.5]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let t = HostTensor::new(DataType::Float, Shape::from_dims([3]), Bytes::from(data)).unwrap();
        let h = to_fp16(&t).unwrap();
        assert_eq!(h.dtype(), DataType::Float16);
        assert_eq!(h.bytes().as_ref(), &[0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38]);
        assert!(to_fp16(&h).is_none());
    }
}
