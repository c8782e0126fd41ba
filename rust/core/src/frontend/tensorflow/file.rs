//! Model files: memory-mapped, binary or text chosen by extension with a
//! content sniff as fallback.

use super::decode::convert_graph;
use super::parse::{check_text_fits, parse_binary, parse_text, ParsedGraph};
use crate::frontend::mapped::map_file;
use crate::frontend::{FrameworkGraph, FrontendError};
use bytes::Bytes;
use std::path::Path;

/// Extensions of text GraphDefs; anything else is tried as binary first.
const TEXT_EXTENSIONS: &[&str] = &["pbtxt", "txt", "prototxt"];
/// How much of a file the text sniff looks at.
const SNIFF_BYTES: usize = 4096;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Binary,
    Text,
}

/// Decodes a frozen GraphDef file: binary `.pb` (memory-mapped; weights
/// borrow the mapping) or text `.pbtxt`. The graph is named after the file
/// stem.
pub fn decode_file(path: &Path) -> Result<FrameworkGraph, FrontendError> {
    let data = map_file(path, "a TensorFlow GraphDef")?;
    let by_extension = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| TEXT_EXTENSIONS.iter().any(|t| e.eq_ignore_ascii_case(t)));
    let first = if by_extension || looks_like_text(&data) {
        Encoding::Text
    } else {
        Encoding::Binary
    };
    if first == Encoding::Text {
        check_text_fits(data.len()).map_err(|e| prefix(path, e))?;
    }
    let graph = match parse(&data, first) {
        Ok(graph) => graph,
        Err(why) => {
            let other = match first {
                Encoding::Text => Encoding::Binary,
                Encoding::Binary => Encoding::Text,
            };
            let plausible = other == Encoding::Binary || looks_like_text(&data);
            match plausible.then(|| parse(&data, other)) {
                Some(Ok(graph)) => graph,
                _ => {
                    return Err(FrontendError::Decode(format!(
                        "'{}' is not a TensorFlow GraphDef, binary or text (read as {}: {why})",
                        path.display(),
                        if first == Encoding::Text {
                            "text"
                        } else {
                            "binary"
                        }
                    )))
                }
            }
        }
    };
    if graph.node_count() == 0 && !graph.has_functions() {
        return Err(FrontendError::Decode(format!(
            "'{}' decodes to a GraphDef without nodes; expected a frozen TensorFlow graph \
             (binary .pb or text .pbtxt)",
            path.display()
        )));
    }
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy())
        .unwrap_or_default();
    convert_graph(graph, &stem).map_err(|e| prefix(path, e))
}

fn parse(data: &Bytes, encoding: Encoding) -> Result<ParsedGraph, String> {
    match encoding {
        Encoding::Binary => parse_binary(data.clone()),
        Encoding::Text => match std::str::from_utf8(data) {
            Ok(text) => parse_text(text),
            Err(e) => Err(format!("byte {} is not UTF-8", e.valid_up_to())),
        },
    }
}

/// Names the file in a decode error about its content.
fn prefix(path: &Path, error: FrontendError) -> FrontendError {
    match error {
        FrontendError::Decode(why) => FrontendError::Decode(format!("'{}': {why}", path.display())),
        other => other,
    }
}

/// Text GraphDefs are UTF-8 and open with a field name (after blanks and
/// `#` comments); binary ones open with a field tag byte and soon hold
/// bytes that are not UTF-8.
fn looks_like_text(data: &[u8]) -> bool {
    let head = &data[..data.len().min(SNIFF_BYTES)];
    let head = match std::str::from_utf8(head) {
        Ok(text) => text,
        // Cut inside a character at the sniff boundary: still text.
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return false,
    };
    head.lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with('#'))
        .and_then(|line| line.chars().next())
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '[')
}
