//! The structured parameters beside the flattened attributes, and the
//! fields flattening drops (reported once per layer type).

use super::*;
use crate::frontend::caffe::{net::convert_net, parse_net};
use crate::frontend::ParamValue;

const CONVS: &str = r#"
    input: "x"
    layer { name: "a" type: "Convolution" bottom: "x" top: "a"
            convolution_param { num_output: 8 kernel_size: 3
                                weight_filler { type: "msra" }
                                bias_filler { type: "constant" value: 0.5 } } }
    layer { name: "b" type: "Convolution" bottom: "a" top: "b"
            convolution_param { num_output: 8 kernel_size: 3
                                weight_filler { type: "msra" }
                                bias_filler { type: "constant" } } }
    "#;

#[test]
fn structured_params_keep_what_flattening_drops() {
    let graph = decode_text(CONVS).unwrap();
    let conv = op(&graph, "a");
    assert_eq!(attr(conv, "type"), &AttrValue::Str("msra".into()));
    let (name, param) = &conv.params[0];
    assert_eq!(name, "convolution_param");
    let bias = param.field("bias_filler").unwrap();
    assert_eq!(
        bias.field("type"),
        Some(&ParamValue::Str("constant".into()))
    );
    assert_eq!(bias.field("value"), Some(&ParamValue::Float(0.5)));
    // Repeated fields are there even when empty; enums carry both spellings.
    assert_eq!(param.field("pad"), Some(&ParamValue::List(vec![])));
    assert_eq!(
        param.field("engine"),
        Some(&ParamValue::Enum {
            name: "DEFAULT".into(),
            number: 0
        })
    );
    // A field without a declared default stays absent until set.
    assert_eq!(param.field("kernel_h"), None);
}

#[test]
fn dropped_set_fields_warn_once_per_layer_type() {
    let schema = CaffeSchema::builtin().unwrap();
    let net = parse_net(schema, CONVS).unwrap();
    let (_, warnings) = convert_net(&net, None, "net").unwrap_or_else(|_| panic!("decodes"));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let (kind, message) = &warnings[0];
    assert_eq!(kind, "Convolution");
    assert!(message.starts_with("Caffe layer type Convolution (first in layer 'a')"));
    assert!(message.contains(
        "'convolution_param.bias_filler.type' (kept 'convolution_param.weight_filler.type')"
    ));
    // A set field beats a filled-in default at its depth (bias_filler's
    // value over weight_filler's default 0), and a default lost is not
    // reported: the net did not give it.
    assert!(!message.contains("value"), "{message}");
    let graph = decode_text(CONVS).unwrap();
    assert_eq!(attr(op(&graph, "a"), "value"), &AttrValue::Float(0.5));
}

#[test]
fn layers_without_clashes_do_not_warn() {
    let schema = CaffeSchema::builtin().unwrap();
    let text = r#"
        input: "x"
        layer { name: "p" type: "Pooling" bottom: "x" top: "p"
                pooling_param { pool: AVE kernel_size: 2 } }
        "#;
    let net = parse_net(schema, text).unwrap();
    let (_, warnings) = convert_net(&net, None, "net").unwrap_or_else(|_| panic!("decodes"));
    assert!(warnings.is_empty(), "{warnings:?}");
}
