//! Names the passes build for every node or tensor of a graph (report rows,
//! planned tensors). Built by appending rather than with `format!`, whose
//! machinery cost a fifth of `estimate_cost` on a million-node chain.

/// `prefix` then `name` (a body's nodes are named `caller/body/node`).
pub fn prefixed(prefix: &str, name: &str) -> String {
    let mut joined = String::with_capacity(prefix.len() + name.len());
    joined.push_str(prefix);
    joined.push_str(name);
    joined
}

/// `{prefix}{node}:{output}`: output `output` of `node`.
pub fn tensor_name(prefix: &str, node: &str, output: usize) -> String {
    let mut digits = itoa::Buffer::new();
    let output = digits.format(output);
    let mut name = String::with_capacity(prefix.len() + node.len() + 1 + output.len());
    name.push_str(prefix);
    name.push_str(node);
    name.push(':');
    name.push_str(output);
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_their_format() {
        assert_eq!(prefixed("", "conv"), "conv");
        assert_eq!(
            prefixed("loop/body/", "conv"),
            format!("loop/body/{}", "conv")
        );
        for output in [0, 7, 10, 65_535] {
            assert_eq!(
                tensor_name("f/g/", "split", output),
                format!("f/g/split:{output}")
            );
        }
        assert_eq!(tensor_name("", "x", 0), "x:0");
    }
}
