//! Bounded error messages. A hostile model can make a message list a
//! million dims, nodes or values; every message that lists such things goes
//! through [`capped_list`] (first and last few, then `… N more`), and a
//! whole message through [`capped_text`], so an error stays readable and
//! small whatever the input.

use std::fmt::{self, Display, Write};

/// Items listed in full; a longer list shows the first [`LISTED_HEAD`] and
/// the last [`LISTED_TAIL`] items around `… N more`.
pub const MAX_LISTED_ITEMS: usize = 16;
/// Items shown before the elision of a capped list.
pub const LISTED_HEAD: usize = 10;
/// Items shown after the elision of a capped list.
pub const LISTED_TAIL: usize = 3;
/// Bytes of one error message; longer text keeps its start and end around
/// `… N more bytes …` (long names make even a capped list long).
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// `items` joined by `sep`, capped at [`MAX_LISTED_ITEMS`] items.
pub fn capped_list<T: Display>(items: &[T], sep: &str) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_capped_list(&mut out, items, sep);
    out
}

/// [`capped_list`] into a formatter (for `Display` impls).
pub fn write_capped_list<T: Display, W: Write>(out: &mut W, items: &[T], sep: &str) -> fmt::Result {
    write_capped_with(out, items, sep, |out, item| write!(out, "{item}"))
}

/// [`write_capped_list`] with each item written by `show`.
pub fn write_capped_with<T, W: Write>(
    out: &mut W,
    items: &[T],
    sep: &str,
    show: impl Fn(&mut W, &T) -> fmt::Result,
) -> fmt::Result {
    let elided = items.len() > MAX_LISTED_ITEMS;
    let head = if elided { LISTED_HEAD } else { items.len() };
    for (i, item) in items[..head].iter().enumerate() {
        if i > 0 {
            out.write_str(sep)?;
        }
        show(out, item)?;
    }
    if elided {
        let tail = items.len() - LISTED_TAIL;
        write!(out, "{sep}… {} more", tail - head)?;
        for item in &items[tail..] {
            out.write_str(sep)?;
            show(out, item)?;
        }
    }
    Ok(())
}

/// `text` cut to about [`MAX_MESSAGE_BYTES`] (at char boundaries), keeping
/// its start and its end.
pub fn capped_text(text: String) -> String {
    if text.len() <= MAX_MESSAGE_BYTES {
        return text;
    }
    let keep = MAX_MESSAGE_BYTES / 2;
    let head_end = floor_char_boundary(&text, keep);
    let tail_start = ceil_char_boundary(&text, text.len() - keep / 2);
    format!(
        "{} … {} more bytes … {}",
        &text[..head_end],
        tail_start - head_end,
        &text[tail_start..]
    )
}

fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lists_are_listed_in_full() {
        assert_eq!(capped_list(&[1, 2, 3], ", "), "1, 2, 3");
        let exact: Vec<usize> = (0..MAX_LISTED_ITEMS).collect();
        assert!(!capped_list(&exact, ", ").contains("more"));
    }

    #[test]
    fn long_lists_keep_head_and_tail() {
        let items: Vec<usize> = (0..1_000_000).collect();
        let text = capped_list(&items, ", ");
        assert!(text.starts_with("0, 1, 2, "), "{text}");
        assert!(
            text.ends_with(&format!(
                "… {} more, 999997, 999998, 999999",
                1_000_000 - LISTED_HEAD - LISTED_TAIL
            )),
            "{text}"
        );
        assert!(text.len() < 200, "{}", text.len());
    }

    #[test]
    fn long_text_is_cut_at_char_boundaries() {
        let text = "é".repeat(100_000);
        let capped = capped_text(text.clone());
        assert!(capped.len() <= MAX_MESSAGE_BYTES + 64, "{}", capped.len());
        assert!(capped.starts_with("éé") && capped.ends_with("éé"));
        assert!(capped.contains("more bytes"));
        assert_eq!(capped_text("short".into()), "short");
    }
}
