//! The ONNX ModelProto decoder on arbitrary bytes. Besides not panicking:
//! errors say something, and an input that decodes gives the same graph
//! after prost re-encodes its message (raw data borrowed from the input
//! and repeated fields decode the same from either form; a scalar -0.0
//! comes back as 0.0, see `sign_blind_text`). External data
//! is refused: there is no model directory.

#![no_main]

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use opgraph_core::frontend::onnx::{decode_model, pb};
use opgraph_core::frontend::FrontendError;
use opgraph_fuzz::reencode::sign_blind_text;
use prost::Message;

fuzz_target!(|data: &[u8]| {
    let decoded = decode_model(Bytes::copy_from_slice(data), None, "fuzz");
    if let Err(error) = &decoded {
        assert!(
            matches!(error, FrontendError::Decode(m) | FrontendError::Graph(m) if !m.is_empty()),
            "not a decode error with a message: {error:?}"
        );
    }
    if let Ok(model) = &decoded {
        let message = pb::ModelProto::decode(data).expect("decode_model accepted it");
        let again = decode_model(Bytes::from(message.encode_to_vec()), None, "fuzz")
            .expect("the re-encoded message decodes");
        assert_eq!(
            sign_blind_text(&model.graph),
            sign_blind_text(&again.graph),
            "re-encoding changed the graph"
        );
    }
});
