//! NodeDef input strings: `node`, `node:port` and `^node` in a graph; inside
//! a FunctionDef body also `node:output_arg:index` and a bare argument name
//! (which names the argument's `_Arg` op, output 0).

use crate::frontend::FrameworkInput;

/// One parsed input string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeInput {
    Data(FrameworkInput),
    /// `^node`: ordering only.
    Control(String),
}

/// Parses `text`; in a function body (`in_function`) the three-part
/// `node:output_arg:index` form is allowed too. The error says what was
/// expected instead.
pub fn parse_input(text: &str, in_function: bool) -> Result<NodeInput, String> {
    let expected = || {
        let forms = if in_function {
            "'node:output_arg:index', 'argument', 'node:port' or '^node'"
        } else {
            "'node', 'node:port' or '^node'"
        };
        format!("has input '{text}', but an input must be {forms}")
    };
    if let Some(node) = text.strip_prefix('^') {
        if node.is_empty() || node.as_bytes().contains(&b':') {
            return Err(expected());
        }
        return Ok(NodeInput::Control(node.to_owned()));
    }
    // Most inputs name a node's first output: one memchr settles them.
    if !text.is_empty() && !text.as_bytes().contains(&b':') {
        return Ok(NodeInput::Data(FrameworkInput::new(text, 0)));
    }
    let mut parts = text.split(':');
    let parts = [parts.next(), parts.next(), parts.next(), parts.next()];
    if parts.iter().flatten().any(|p| p.is_empty()) {
        return Err(expected());
    }
    let input = match parts {
        [Some(node), None, ..] => FrameworkInput::new(node, 0),
        [Some(node), Some(port), None, _] => {
            FrameworkInput::new(node, parse_index(port).ok_or_else(expected)?)
        }
        [Some(node), Some(arg), Some(index), None] if in_function => FrameworkInput {
            node: node.to_owned(),
            output_arg: Some(arg.into()),
            index: parse_index(index).ok_or_else(expected)?,
        },
        _ => return Err(expected()),
    };
    Ok(NodeInput::Data(input))
}

/// Decimal digits only (`u32::from_str` would also take a leading `+`).
fn parse_index(text: &str) -> Option<u32> {
    if text.bytes().all(|b| b.is_ascii_digit()) {
        text.parse().ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(node: &str, arg: Option<&str>, index: u32) -> NodeInput {
        NodeInput::Data(FrameworkInput {
            node: node.into(),
            output_arg: arg.map(Into::into),
            index,
        })
    }

    #[test]
    fn graph_forms() {
        assert_eq!(parse_input("conv/w", false), Ok(data("conv/w", None, 0)));
        assert_eq!(parse_input("split:2", false), Ok(data("split", None, 2)));
        assert_eq!(
            parse_input("^init", false),
            Ok(NodeInput::Control("init".into()))
        );
    }

    #[test]
    fn function_body_forms() {
        assert_eq!(
            parse_input("cond/add:z:0", true),
            Ok(data("cond/add", Some("z"), 0))
        );
        assert_eq!(parse_input("x_arg", true), Ok(data("x_arg", None, 0)));
        assert_eq!(
            parse_input("split:output:3", true),
            Ok(data("split", Some("output"), 3))
        );
    }

    #[test]
    fn malformed_inputs_say_what_was_expected() {
        for bad in [
            "",
            "a:x",
            "a:",
            ":1",
            "a:+1",
            "a:-1",
            "^",
            "^a:0",
            "a:b:1",
            "a:1:2:3",
            "a::1",
            "a:99999999999",
        ] {
            let err = parse_input(bad, false).expect_err(bad);
            assert!(err.contains("'node', 'node:port' or '^node'"), "{err}");
        }
        for bad in ["a:out:x", "a:out:", "a:b:c:1", "^a:out:0"] {
            let err = parse_input(bad, true).expect_err(bad);
            assert!(err.contains("'node:output_arg:index'"), "{err}");
        }
    }
}
