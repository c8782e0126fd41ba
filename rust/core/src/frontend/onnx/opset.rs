//! Operator set versions and origin op types. GE names an ONNX plugin's
//! origin type `domain::version::op_type` (`ai.onnx::11::Resize`); a node of
//! type T in domain D is `D::<the model's opset for D>::T`, and the plugin
//! that serves it is the one registered for D and T with the highest
//! version not above that opset (a `::11::` plugin serves opsets 11, 12 …
//! until a `::13::` plugin exists). The empty domain is `ai.onnx`.

use super::pb;
use crate::frontend::FrontendError;
use rustc_hash::FxHashMap;

/// The default operator domain's name.
pub const DEFAULT_DOMAIN: &str = "ai.onnx";

/// The opset version a model imports for each domain.
pub type Opsets = FxHashMap<String, i64>;

/// The domain name ONNX means by `domain` ("" and "ai.onnx" are one).
pub fn canonical_domain(domain: &str) -> &str {
    if domain.is_empty() {
        DEFAULT_DOMAIN
    } else {
        domain
    }
}

/// The model's `opset_import` as a map; a domain imported twice with
/// different versions, or a negative version, is an error.
pub(super) fn opsets(imports: &[pb::OperatorSetIdProto]) -> Result<Opsets, FrontendError> {
    let mut opsets = Opsets::default();
    for import in imports {
        let domain = canonical_domain(&import.domain);
        if import.version < 1 {
            return Err(FrontendError::Decode(format!(
                "the model imports domain '{domain}' at version {}; versions start at 1",
                import.version
            )));
        }
        if let Some(old) = opsets.insert(domain.to_owned(), import.version) {
            if old != import.version {
                return Err(FrontendError::Decode(format!(
                    "the model imports domain '{domain}' twice, at versions {old} and {}",
                    import.version
                )));
            }
        }
    }
    Ok(opsets)
}

/// `domain::version::op_type` for a node, or why the model cannot say.
pub(super) fn origin_op_type(
    opsets: &Opsets,
    domain: &str,
    op_type: &str,
) -> Result<String, String> {
    if op_type.is_empty() {
        return Err("has no op_type".into());
    }
    let domain = canonical_domain(domain);
    let Some(version) = opsets.get(domain) else {
        return Err(format!(
            "is in domain '{domain}', which the model does not import (opset_import)"
        ));
    };
    // Pushed piece by piece: `format!` costs about as much again as the
    // rest of resolving a node's type, once per distinct type and load.
    let version = version.to_string();
    let mut origin = String::with_capacity(domain.len() + version.len() + op_type.len() + 4);
    for part in [domain, "::", &version, "::", op_type] {
        origin.push_str(part);
    }
    Ok(origin)
}

/// An origin type split into (domain, version, op type), when it has that form.
pub fn split_origin(origin: &str) -> Option<(&str, i64, &str)> {
    let (domain, rest) = split_at_separator(origin)?;
    let (version, op_type) = split_at_separator(rest)?;
    let version = version.parse().ok().filter(|&v: &i64| v >= 1)?;
    if domain.is_empty() || op_type.is_empty() || split_at_separator(op_type).is_some() {
        return None;
    }
    Some((domain, version, op_type))
}

/// `text` split around its first `::`, as `split_once("::")`; a byte scan,
/// since a `&str` pattern sets up a substring searcher that costs more than
/// scanning a short origin type.
fn split_at_separator(text: &str) -> Option<(&str, &str)> {
    let at = text.as_bytes().windows(2).position(|pair| pair == b"::")?;
    Some((text.get(..at)?, text.get(at + 2..)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_types_follow_ge_naming() {
        let opsets: Opsets = [("ai.onnx".to_owned(), 13), ("custom".to_owned(), 2)]
            .into_iter()
            .collect();
        assert_eq!(
            origin_op_type(&opsets, "", "Relu").unwrap(),
            "ai.onnx::13::Relu"
        );
        assert_eq!(
            origin_op_type(&opsets, "custom", "Op").unwrap(),
            "custom::2::Op"
        );
        assert!(origin_op_type(&opsets, "com.microsoft", "Attention")
            .unwrap_err()
            .contains("does not import"));
        assert_eq!(
            split_origin("ai.onnx::11::Resize"),
            Some(("ai.onnx", 11, "Resize"))
        );
        assert_eq!(split_origin("Resize"), None);
        assert_eq!(split_origin("ai.onnx::x::Resize"), None);
        assert_eq!(split_origin("ai.onnx::0::Resize"), None);
        assert_eq!(split_origin("a:b::2::Op"), Some(("a:b", 2, "Op")));
        assert_eq!(split_origin("a::2::Op::"), None);
        assert_eq!(split_origin("a:::2::Op"), None);
        assert_eq!(split_origin("::2::Op"), None);
    }
}
