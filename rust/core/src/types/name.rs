//! Equality of the short names the engine compares on every node (op types,
//! attribute names).

/// `a == b`, inlined for names of up to 16 bytes: two overlapping word
/// loads per side instead of a call into libc's `memcmp`, which is what `==`
/// on strings becomes and which inference otherwise makes several times per
/// node. Longer names use `==`.
pub(crate) fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        0 => true,
        // Bytes 0, n/2 and n-1 cover every byte of a name this short.
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => word::<4>(a, 0) == word::<4>(b, 0) && word::<4>(a, n - 4) == word::<4>(b, n - 4),
        8..=16 => word::<8>(a, 0) == word::<8>(b, 0) && word::<8>(a, n - 8) == word::<8>(b, n - 8),
        _ => a == b,
    }
}

/// The `N` bytes at `at` (a fixed-size load).
fn word<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    bytes[at..at + N]
        .try_into()
        .expect("the caller checked the length")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_string_equality() {
        let names = [
            "",
            "a",
            "b",
            "ab",
            "ba",
            "abc",
            "abd",
            "xbc",
            "axc",
            "pads",
            "padx",
            "strides",
            "stridez",
            "xtrides",
            "padding",
            "data_format",
            "data_formax",
            "xata_format",
            "dilations",
            "0123456789abcdef",
            "0123456789abcdeX",
            "X123456789abcdef",
            "0123456789abcdefg",
            "0123456789abcdefh",
        ];
        for a in names {
            for b in names {
                assert_eq!(same_name(a, b), a == b, "{a:?} vs {b:?}");
            }
        }
        // Every single-byte difference at every position and length.
        for len in 1..=20 {
            let base: String = (0..len).map(|i| char::from(b'a' + i as u8)).collect();
            for pos in 0..len {
                let mut other = base.clone().into_bytes();
                other[pos] = b'Z';
                let other = String::from_utf8(other).unwrap();
                assert!(!same_name(&base, &other), "{base:?} vs {other:?}");
                assert!(same_name(&base, &base.clone()));
            }
        }
    }
}
