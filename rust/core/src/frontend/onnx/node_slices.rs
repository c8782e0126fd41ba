//! NodeProto on the wire, decoded without copying: the strings (value
//! names, node name, op type, domain) are slices of the model file, not a
//! `String` each. The main graph's nodes are read this way
//! (`GraphProtoWithSliceNodes`, whose `node` field has this type); the
//! attributes are ordinary generated messages.
//!
//! Written here rather than generated from a `.proto` so that an occurrence
//! of a singular string field that a later one replaces is checked as UTF-8
//! before it goes, as NodeProto's generated decoder checks every
//! occurrence (see [`crate::frontend::wire_strings`]). The fields kept,
//! and every element of `input` and `output`, are checked once by
//! [`NodeTexts::push_slices`]. So exactly the bytes NodeProto accepts are
//! accepted. The wire handling is prost's own (`prost::encoding`); being a
//! field of a generated message, a node is decoded at the same recursion
//! depth as a NodeProto, so the recursion limit falls where it would.

use super::pb;
use crate::frontend::wire_strings::merge_string;
use bytes::{Buf, BufMut, Bytes};
use prost::encoding::{bytes as wire_bytes, message, skip_field, DecodeContext, WireType};
use prost::{DecodeError, Message};

/// NodeProto's fields (field numbers as in `onnx.proto`), strings borrowed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeProtoSlices {
    pub input: Vec<Bytes>,
    pub output: Vec<Bytes>,
    pub name: Bytes,
    pub op_type: Bytes,
    pub attribute: Vec<pb::AttributeProto>,
    pub domain: Bytes,
    pub overload: Bytes,
}

impl Message for NodeProtoSlices {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        wire_bytes::encode_repeated(1, &self.input, buf);
        wire_bytes::encode_repeated(2, &self.output, buf);
        for (tag, value) in [(3, &self.name), (4, &self.op_type)] {
            if !value.is_empty() {
                wire_bytes::encode(tag, value, buf);
            }
        }
        message::encode_repeated(5, &self.attribute, buf);
        for (tag, value) in [(7, &self.domain), (8, &self.overload)] {
            if !value.is_empty() {
                wire_bytes::encode(tag, value, buf);
            }
        }
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: WireType,
        buf: &mut impl Buf,
        ctx: DecodeContext,
    ) -> Result<(), DecodeError> {
        match tag {
            1 => wire_bytes::merge_repeated(wire_type, &mut self.input, buf, ctx),
            2 => wire_bytes::merge_repeated(wire_type, &mut self.output, buf, ctx),
            3 => merge_string(wire_type, &mut self.name, buf, ctx),
            4 => merge_string(wire_type, &mut self.op_type, buf, ctx),
            5 => message::merge_repeated(wire_type, &mut self.attribute, buf, ctx),
            7 => merge_string(wire_type, &mut self.domain, buf, ctx),
            8 => merge_string(wire_type, &mut self.overload, buf, ctx),
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        let strings = [
            (3, &self.name),
            (4, &self.op_type),
            (7, &self.domain),
            (8, &self.overload),
        ]
        .into_iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(tag, v)| wire_bytes::encoded_len(tag, v))
        .sum::<usize>();
        strings
            + wire_bytes::encoded_len_repeated(1, &self.input)
            + wire_bytes::encoded_len_repeated(2, &self.output)
            + message::encoded_len_repeated(5, &self.attribute)
    }

    fn clear(&mut self) {
        *self = NodeProtoSlices::default();
    }
}

/// A graph's nodes as decoded: the main graph's borrowed from the file,
/// a subgraph's (an attribute's GraphProto) as generated messages.
#[derive(Clone, Copy)]
pub(super) enum GraphNodes<'g> {
    Slices(&'g [NodeProtoSlices]),
    Protos(&'g [pb::NodeProto]),
}

impl GraphNodes<'_> {
    pub fn len(&self) -> usize {
        match self {
            GraphNodes::Slices(nodes) => nodes.len(),
            GraphNodes::Protos(nodes) => nodes.len(),
        }
    }
}

/// A node's fields as text, borrowed from whichever message decoded it (a
/// [`NodeProtoSlices`] of the main graph, or a generated NodeProto of a
/// subgraph or a function body) and from the [`NodeTexts`] holding its
/// value names.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct NodeView<'a> {
    pub name: &'a str,
    pub op_type: &'a str,
    pub domain: &'a str,
    pub input: &'a [&'a str],
    pub output: &'a [&'a str],
    pub attribute: &'a [pb::AttributeProto],
}

/// The text of a list of nodes, each string checked once: every node's
/// value names in one list, so that a view's `input` and `output` are
/// slices of it rather than two lists per node.
#[derive(Default)]
pub(super) struct NodeTexts<'a> {
    values: Vec<&'a str>,
    nodes: Vec<NodeStrings<'a>>,
}

/// One node of [`NodeTexts`]: its value names are the next `inputs`, then
/// `outputs`, of the list.
struct NodeStrings<'a> {
    name: &'a str,
    op_type: &'a str,
    domain: &'a str,
    inputs: usize,
    outputs: usize,
    attribute: &'a [pb::AttributeProto],
}

impl<'a> NodeTexts<'a> {
    pub fn with_capacity(nodes: usize) -> NodeTexts<'a> {
        NodeTexts {
            // About two inputs and an output a node.
            values: Vec::with_capacity(nodes * 3),
            nodes: Vec::with_capacity(nodes),
        }
    }

    pub fn push_proto(&mut self, node: &'a pb::NodeProto) {
        self.values
            .extend(node.input.iter().chain(&node.output).map(String::as_str));
        self.nodes.push(NodeStrings {
            name: &node.name,
            op_type: &node.op_type,
            domain: &node.domain,
            inputs: node.input.len(),
            outputs: node.output.len(),
            attribute: &node.attribute,
        });
    }

    /// Checks the strings as NodeProto's decoder would (UTF-8); the error
    /// names the field.
    pub fn push_slices(&mut self, node: &'a NodeProtoSlices) -> Result<(), String> {
        for input in &node.input {
            self.values.push(utf8("input", input)?);
        }
        for output in &node.output {
            self.values.push(utf8("output", output)?);
        }
        // Read only to find a function (by the inliner, from the bytes).
        utf8("overload", &node.overload)?;
        self.nodes.push(NodeStrings {
            name: utf8("name", &node.name)?,
            op_type: utf8("op_type", &node.op_type)?,
            domain: utf8("domain", &node.domain)?,
            inputs: node.input.len(),
            outputs: node.output.len(),
            attribute: &node.attribute,
        });
        Ok(())
    }

    /// Every node pushed, in order.
    pub fn views(&self) -> Vec<NodeView<'_>> {
        let mut at = 0;
        let mut next = |n: usize| {
            let list = self.values.get(at..at + n).unwrap_or_default();
            at += n;
            list
        };
        self.nodes
            .iter()
            .map(|node| NodeView {
                name: node.name,
                op_type: node.op_type,
                domain: node.domain,
                input: next(node.inputs),
                output: next(node.outputs),
                attribute: node.attribute,
            })
            .collect()
    }
}

fn utf8<'a>(field: &str, bytes: &'a [u8]) -> Result<&'a str, String> {
    std::str::from_utf8(bytes).map_err(|_| format!("its {field} is not UTF-8"))
}

#[cfg(test)]
mod tests {
    //! The borrowed decode against the generated one, on the same bytes.

    use super::*;
    use crate::frontend::onnx::decode_model;
    use crate::frontend::FrontendError;
    use prost::encoding::{encode_key, encode_varint};

    /// A length-delimited field whose content is `value`, UTF-8 or not.
    fn field(buf: &mut Vec<u8>, tag: u32, value: &[u8]) {
        encode_key(tag, WireType::LengthDelimited, buf);
        encode_varint(value.len() as u64, buf);
        buf.extend_from_slice(value);
    }

    fn encoded(fields: &[(u32, &[u8])]) -> Vec<u8> {
        let mut buf = Vec::new();
        for (tag, value) in fields {
            field(&mut buf, *tag, value);
        }
        buf
    }

    /// What the borrowed decode makes of `bytes` as a NodeProto (the
    /// decode and its view's UTF-8 check), or None where it rejects them.
    fn borrowed(bytes: &[u8]) -> Option<pb::NodeProto> {
        let slices = NodeProtoSlices::decode(Bytes::copy_from_slice(bytes)).ok()?;
        let mut texts = NodeTexts::default();
        texts.push_slices(&slices).ok()?;
        let view = texts.views().pop()?;
        Some(pb::NodeProto {
            input: view.input.iter().map(|s| (*s).to_owned()).collect(),
            output: view.output.iter().map(|s| (*s).to_owned()).collect(),
            name: view.name.to_owned(),
            op_type: view.op_type.to_owned(),
            attribute: view.attribute.to_vec(),
            domain: view.domain.to_owned(),
            overload: String::from_utf8(slices.overload.to_vec()).ok()?,
        })
    }

    /// Both decoders accept `bytes` or both reject them; accepted, they
    /// agree on every field. Returns whether they were accepted.
    fn agree(bytes: &[u8]) -> bool {
        let generated = pb::NodeProto::decode(bytes).ok();
        assert_eq!(generated, borrowed(bytes), "on {bytes:?}");
        generated.is_some()
    }

    const NOT_UTF8: &[u8] = b"a\xffb";

    #[test]
    fn a_string_field_that_is_not_utf8_is_rejected_as_nodeproto_rejects_it() {
        for tag in [1, 2, 3, 4, 7, 8] {
            assert!(!agree(&encoded(&[(tag, NOT_UTF8)])), "field {tag}");
            // One bad element of a repeated field, or a bad occurrence of a
            // singular one that a later good one replaces, is enough.
            assert!(
                !agree(&encoded(&[(tag, NOT_UTF8), (tag, b"ok")])),
                "field {tag}"
            );
            assert!(
                !agree(&encoded(&[(tag, b"ok"), (tag, NOT_UTF8)])),
                "field {tag}"
            );
        }
        // Not a NodeProto field: skipped unread by both.
        assert!(agree(&encoded(&[(6, NOT_UTF8), (3, b"n")])));
    }

    #[test]
    fn repeated_fields_accumulate_and_singular_fields_keep_the_last() {
        let bytes = encoded(&[
            (3, b"first"),
            (1, b"x"),
            (2, b"y"),
            (1, b""),
            (3, b"second"),
            (1, b"z"),
            (4, b"Add"),
            (7, b"com.example"),
            (7, b""),
            (8, b"v2"),
        ]);
        assert!(agree(&bytes));
        let node = borrowed(&bytes).unwrap_or_default();
        assert_eq!(node.input, ["x", "", "z"]);
        assert_eq!(node.name, "second");
        assert_eq!(node.domain, "");
    }

    #[test]
    fn slices_reencode_to_the_same_node() {
        let node = pb::NodeProto {
            input: vec!["a".into(), String::new(), "b".into()],
            output: vec!["c".into()],
            name: "n".into(),
            op_type: "Gemm".into(),
            attribute: vec![pb::AttributeProto {
                name: "alpha".into(),
                r#type: 1,
                f: 0.5,
                ..Default::default()
            }],
            domain: "ai.onnx".into(),
            overload: "o".into(),
        };
        let slices = NodeProtoSlices::decode(node.encode_to_vec().as_slice()).unwrap_or_default();
        assert_eq!(slices.encoded_len(), node.encoded_len());
        assert_eq!(
            pb::NodeProto::decode(slices.encode_to_vec().as_slice()).ok(),
            Some(node)
        );
    }

    /// A model of one Relu node (`node`'s fields appended to it, so they
    /// merge into it), as ModelProto bytes.
    fn model_with_node(extra: &[(u32, &[u8])]) -> Vec<u8> {
        let mut node = pb::NodeProto {
            input: vec!["x".into()],
            output: vec!["y".into()],
            op_type: "Relu".into(),
            name: "relu".into(),
            ..Default::default()
        }
        .encode_to_vec();
        node.extend(encoded(extra));
        let info = |name: &str| pb::ValueInfoProto {
            name: name.into(),
            r#type: Some(pb::TypeProto {
                value: Some(pb::type_proto::Value::TensorType(pb::type_proto::Tensor {
                    elem_type: 1,
                    shape: None,
                })),
                denotation: String::new(),
            }),
        };
        let graph = pb::GraphProto {
            input: vec![info("x")],
            output: vec![info("y")],
            ..Default::default()
        };
        let mut graph = graph.encode_to_vec();
        field(&mut graph, 1, &node);
        super::super::tests::model_around_graph(&graph)
    }

    #[test]
    fn a_model_node_that_is_not_utf8_is_a_decode_error_naming_the_node() {
        let good = model_with_node(&[]);
        assert!(pb::ModelProto::decode(good.as_slice()).is_ok());
        assert!(decode_model(Bytes::from(good), None, "m").is_ok());
        for (tag, field) in [(1, "input"), (2, "output"), (4, "op_type"), (7, "domain")] {
            let bad = model_with_node(&[(tag, NOT_UTF8)]);
            assert!(pb::ModelProto::decode(bad.as_slice()).is_err());
            let err = decode_model(Bytes::from(bad), None, "m").map(|_| ());
            let Err(FrontendError::Decode(why)) = err else {
                panic!("accepted a node whose {field} is not UTF-8: {err:?}");
            };
            assert!(
                why.contains("node 0 ('relu') of the graph")
                    && why.contains(&format!("its {field} is not UTF-8")),
                "{why}"
            );
        }
        // A replaced name is checked as it goes (by the message decode).
        let bad = model_with_node(&[(3, NOT_UTF8), (3, b"renamed")]);
        assert!(pb::ModelProto::decode(bad.as_slice()).is_err());
        let err = decode_model(Bytes::from(bad), None, "m").map(|_| ());
        assert!(
            matches!(&err, Err(FrontendError::Decode(why)) if why.contains("not an ONNX model")),
            "{err:?}"
        );
    }

    #[test]
    fn the_recursion_limit_falls_where_the_generated_decoder_puts_it() {
        // Nested If bodies around the depth where prost's recursion limit
        // cuts in: a main-graph node decodes at NodeProto's depth, so both
        // messages accept the same depths.
        let leaf = pb::GraphProto {
            node: vec![pb::NodeProto {
                op_type: "Relu".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let mut body = leaf;
        let mut verdicts = Vec::new();
        for _ in 0..40 {
            let if_node = pb::NodeProto {
                op_type: "If".into(),
                attribute: vec![pb::AttributeProto {
                    name: "then_branch".into(),
                    r#type: 5,
                    g: Some(body),
                    ..Default::default()
                }],
                ..Default::default()
            };
            body = pb::GraphProto {
                node: vec![if_node],
                ..Default::default()
            };
            let model = pb::ModelProto {
                graph: Some(body.clone()),
                ..Default::default()
            }
            .encode_to_vec();
            let generated = pb::ModelProto::decode(model.as_slice()).is_ok();
            let ours = pb::ModelProtoWithSliceNodes::decode(model.as_slice()).is_ok();
            assert_eq!(generated, ours, "at {} levels", verdicts.len() + 1);
            verdicts.push(generated);
        }
        // The limit was crossed within the range tried.
        assert!(verdicts.first() == Some(&true) && verdicts.last() == Some(&false));
    }
}
