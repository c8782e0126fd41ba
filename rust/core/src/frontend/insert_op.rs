//! ATC's `--insert_op_conf` file (the AIPP image pre-processing stages):
//! protobuf text format of opgraph's `proto/atc/insert_op.proto`, compiled
//! at run time with protox and parsed with prost-reflect. The result is
//! handed on as JSON (proto field names, fields left at their default
//! omitted); what the stage does to the model's input is decided by the
//! caller (Python's `opgraph.aipp`).

use super::text_format::parse_text;
use prost_reflect::{DescriptorPool, SerializeOptions};
use protox::file::File;
use std::sync::LazyLock;

/// opgraph's schema of the file, as written in `rust/core/proto/atc`.
pub const INSERT_OP_PROTO: &str = include_str!("../../proto/atc/insert_op.proto");
const INSERT_OP_PROTO_NAME: &str = "insert_op.proto";
const CONFIG_MESSAGE: &str = "opgraph.atc.InsertOpConfig";

static POOL: LazyLock<Result<DescriptorPool, String>> = LazyLock::new(|| {
    let file =
        File::from_source(INSERT_OP_PROTO_NAME, INSERT_OP_PROTO).map_err(|e| e.to_string())?;
    let mut compiler = protox::Compiler::with_file_resolver(OneFile(file));
    compiler.include_imports(true);
    compiler
        .open_file(INSERT_OP_PROTO_NAME)
        .map_err(|e| e.to_string())?;
    Ok(compiler.descriptor_pool())
});

/// A resolver that knows one file, `insert_op.proto`.
struct OneFile(File);

impl protox::file::FileResolver for OneFile {
    fn open_file(&self, name: &str) -> Result<File, protox::Error> {
        if name == INSERT_OP_PROTO_NAME {
            Ok(self.0.clone())
        } else {
            Err(protox::Error::file_not_found(name))
        }
    }
}

/// `text` (an insert-op config) as JSON, or why it is not one: the line and
/// column the text-format parser stopped at and what it expected.
pub fn insert_op_config_json(text: &str) -> Result<String, String> {
    let pool = POOL
        .as_ref()
        .map_err(|e| format!("opgraph's embedded insert_op.proto is unusable ({e})"))?;
    let descriptor = pool
        .get_message_by_name(CONFIG_MESSAGE)
        .ok_or_else(|| format!("opgraph's insert_op.proto has no {CONFIG_MESSAGE}"))?;
    let message = parse_text(descriptor, text)?;
    let options = SerializeOptions::new()
        .use_proto_field_name(true)
        .stringify_64_bit_integers(false);
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::new(&mut out);
    message
        .serialize_with_options(&mut serializer, &options)
        .map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_static_aipp_config_reads_as_json() {
        let json = insert_op_config_json(
            "aipp_op {\n aipp_mode: static\n input_format: YUV420SP_U8\n src_image_size_w: 224\n \
             src_image_size_h: 224\n crop: true\n var_reci_chn_0: 0.5\n}\n",
        )
        .unwrap();
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        let stage = &value["aipp_op"][0];
        assert_eq!(stage["aipp_mode"], "static");
        assert_eq!(stage["input_format"], "YUV420SP_U8");
        assert_eq!(stage["src_image_size_w"], 224);
        assert_eq!(stage["crop"], true);
        assert_eq!(stage["var_reci_chn_0"][0], 0.5);
    }

    #[test]
    fn an_unknown_field_names_its_line() {
        let error =
            insert_op_config_json("aipp_op {\n  aipp_mode: static\n  src_w: 3\n}\n").unwrap_err();
        assert!(error.contains("line 3"), "{error}");
        assert!(error.contains("src_w"), "{error}");
    }
}
