//! Comparing a decode of the fuzz input with a decode of prost's
//! re-encoding of it.

use std::fmt::Debug;

/// `value`'s `Debug` text with every negative zero written as a positive
/// one. Proto3 scalars have no presence: prost skips a field equal to its
/// default when encoding, and `-0.0 == 0.0`, so an ONNX attribute
/// `f: -0.0` comes back as `0.0` after a re-encode. Compared as text
/// because a NaN attribute is unequal to itself.
pub fn sign_blind_text<T: Debug>(value: &T) -> String {
    let text = format!("{value:?}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("-0.0") {
        let after = &rest[at + 4..];
        // "-0.05" is a different number; "-0.0" ends where no digit follows.
        let whole_zero = !after.starts_with(|c: char| c.is_ascii_digit());
        // "x-0.0" would be part of a name, not a number.
        let starts_number = !rest[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        out.push_str(&rest[..at]);
        out.push_str(if whole_zero && starts_number {
            "0.0"
        } else {
            "-0.0"
        });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::sign_blind_text;

    #[test]
    fn negative_zero_reads_as_zero() {
        assert_eq!(sign_blind_text(&-0.0f32), sign_blind_text(&0.0f32));
        assert_eq!(
            sign_blind_text(&vec![-0.0f64, 1.5]),
            sign_blind_text(&vec![0.0f64, 1.5])
        );
    }

    #[test]
    fn other_numbers_and_names_keep_their_sign() {
        assert_ne!(sign_blind_text(&-0.05f32), sign_blind_text(&0.05f32));
        assert_ne!(sign_blind_text(&-1.0f32), sign_blind_text(&1.0f32));
        assert_ne!(sign_blind_text(&"a-0.0"), sign_blind_text(&"a0.0"));
        assert_ne!(
            sign_blind_text(&f32::NEG_INFINITY),
            sign_blind_text(&f32::INFINITY)
        );
    }
}
