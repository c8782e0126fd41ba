//! `.caffemodel` files: a binary NetParameter whose layers carry their
//! weight blobs, matched to the net's layers by name.
//!
//! The file is decoded against a *weights view* of `caffe.proto`: the same
//! messages and field numbers, reduced to what weights need (layer names
//! and blobs, for current, V1 and V0 layers), with BlobProto's float and
//! double arrays declared `bytes`. Caffe writes those arrays packed — one
//! length-delimited record, the wire type of `bytes` — so each decodes to a
//! `Bytes` slice of the memory-mapped file: no copy, no per-value parse.
//! Everything else in the file (layer parameters, other fields a custom
//! proto may have added) is skipped as unknown, so weights load whatever
//! the net's schema. A file with unpacked floats (wire type 5, written by
//! old protobuf versions) does not fit the bytes view; it is decoded again
//! against the view with the float arrays as declared, and copied.

use super::blob::RawBlob;
use super::message::{self, string};
use super::schema::{CaffeSchema, CAFFE_PROTO_NAME};
use crate::frontend::FrontendError;
use crate::types::HostTensor;
use bytes::Bytes;
use prost_reflect::{DescriptorPool, DynamicMessage, MessageDescriptor};
use prost_types::field_descriptor_proto::Type;
use prost_types::{FileDescriptorProto, FileDescriptorSet};
use std::collections::HashMap;
use std::sync::LazyLock;

/// The weights of a model, by layer name, checked when a layer uses them.
#[derive(Clone, Debug, Default)]
pub struct CaffeWeights {
    layers: HashMap<String, Vec<RawBlob>>,
    /// Layer names in file order.
    order: Vec<String>,
}

impl CaffeWeights {
    /// Whether the file has blobs for layer `name`.
    pub fn has(&self, name: &str) -> bool {
        self.layers.contains_key(name)
    }

    /// Names of the layers that have blobs, in file order.
    pub fn layer_names(&self) -> impl Iterator<Item = &str> {
        self.order.iter().map(String::as_str)
    }

    /// The blobs of layer `name` as FLOAT tensors (`None` when the file has
    /// no blobs for it). `ranks` gives the rank each blob is expected to
    /// have, if known, to read legacy 4-D blob shapes.
    pub fn tensors(
        &self,
        name: &str,
        ranks: &[Option<usize>],
    ) -> Option<Result<Vec<HostTensor>, String>> {
        let blobs = self.layers.get(name)?;
        Some(
            blobs
                .iter()
                .enumerate()
                .map(|(i, blob)| {
                    blob.tensor(ranks.get(i).copied().flatten())
                        .map_err(|why| format!("weight blob {i} of layer '{name}' {why}"))
                })
                .collect(),
        )
    }
}

/// Decodes a `.caffemodel` (binary NetParameter). Blob values borrow `data`.
pub fn decode_weights(data: Bytes) -> Result<CaffeWeights, FrontendError> {
    let net = match DynamicMessage::decode(view(&BYTES_VIEW)?, data.clone()) {
        Ok(net) => net,
        Err(_) => match DynamicMessage::decode(view(&FLOAT_VIEW)?, data.clone()) {
            Ok(net) => net,
            Err(e) => {
                return Err(FrontendError::Decode(match locate_damage(data) {
                    Some(place) => place,
                    None => {
                        format!("the data is not a binary Caffe NetParameter (.caffemodel): {e}")
                    }
                }))
            }
        },
    };
    let mut weights = CaffeWeights::default();
    let current = message::messages(&net, "layer").map(|l| (l, "blobs"));
    let legacy = message::messages(&net, "layers").map(|l| match message::message(l, "layer") {
        Some(v0) => (v0, "blobs"),
        None => (l, "blobs"),
    });
    for (layer, blobs_field) in current.chain(legacy) {
        let name = string(layer, "name").unwrap_or_default();
        let blobs: Result<Vec<RawBlob>, String> = message::messages(layer, blobs_field)
            .map(RawBlob::read)
            .collect();
        let blobs = blobs.map_err(|why| {
            FrontendError::Decode(format!("a weight blob of layer '{name}' {why}"))
        })?;
        if blobs.is_empty() {
            continue;
        }
        // A later layer of the same name wins, as Caffe copies them in turn.
        if weights.layers.insert(name.clone(), blobs).is_none() {
            weights.order.push(name);
        }
    }
    Ok(weights)
}

/// Where a `.caffemodel` that does not decode is damaged, when the damage
/// lies inside one blob (an overlong packed array, a cut record): decoded
/// again level by level, layers and blobs kept as bytes, to name the layer
/// and the blob. `None` when the net-level records are damaged themselves.
fn locate_damage(data: Bytes) -> Option<String> {
    let skeleton = SKELETON_VIEW.as_ref().ok()?;
    let net = DynamicMessage::decode(skeleton.clone(), data).ok()?;
    let pool = skeleton.parent_pool();
    let blob_views: Vec<MessageDescriptor> = [&BYTES_VIEW, &FLOAT_VIEW]
        .iter()
        .filter_map(|v| {
            v.as_ref()
                .ok()?
                .parent_pool()
                .get_message_by_name("caffe.BlobProto")
        })
        .collect();
    for (field, layer_type) in [
        ("layer", "caffe.LayerParameter"),
        ("layers", "caffe.V1LayerParameter"),
    ] {
        let layer_view = pool.get_message_by_name(layer_type)?;
        for (k, record) in message::list(&net, field).iter().enumerate() {
            let bytes = record.as_bytes()?;
            let layer = match DynamicMessage::decode(layer_view.clone(), bytes.clone()) {
                Ok(layer) => layer,
                Err(e) => {
                    return Some(format!(
                        "the record of layer {k} ('{field}' {k}) is malformed: {e}"
                    ))
                }
            };
            let name = string(&layer, "name").unwrap_or_default();
            for (i, blob) in message::list(&layer, "blobs").iter().enumerate() {
                let blob = blob.as_bytes()?;
                let errors: Vec<_> = blob_views
                    .iter()
                    .map(|view| DynamicMessage::decode(view.clone(), blob.clone()).err())
                    .collect();
                if let Some(Some(e)) = errors
                    .iter()
                    .all(Option::is_some)
                    .then(|| errors.first())
                    .flatten()
                {
                    return Some(format!(
                        "weight blob {i} of layer '{name}' is malformed ({} bytes): {e}; \
                         its packed data is cut short or a length in it is wrong",
                        blob.len()
                    ));
                }
            }
        }
    }
    None
}

type View = LazyLock<Result<MessageDescriptor, String>>;

/// Packed float arrays as `bytes` (zero-copy).
static BYTES_VIEW: View = LazyLock::new(|| weights_view(true));
/// Float arrays as declared (unpacked files).
static FLOAT_VIEW: View = LazyLock::new(|| weights_view(false));
/// Layers and blobs as `bytes`, to find which one is damaged.
static SKELETON_VIEW: View = LazyLock::new(skeleton_view);

fn view(view: &'static View) -> Result<MessageDescriptor, FrontendError> {
    view.as_ref().cloned().map_err(|e| {
        FrontendError::Decode(format!("opgraph's Caffe weights schema is unusable ({e})"))
    })
}

/// The fields weights need, by message.
const KEPT: &[(&str, &[&str])] = &[
    ("NetParameter", &["layer", "layers"]),
    ("LayerParameter", &["name", "blobs"]),
    ("V1LayerParameter", &["name", "blobs", "layer"]),
    ("V0LayerParameter", &["name", "blobs"]),
    ("BlobShape", &["dim"]),
    (
        "BlobProto",
        &[
            "shape",
            "data",
            "diff",
            "double_data",
            "double_diff",
            "num",
            "channels",
            "height",
            "width",
        ],
    ),
];

/// BlobProto's arrays of numbers.
const ARRAYS: &[&str] = &["data", "diff", "double_data", "double_diff"];

/// The weights view with every message-typed field of the net and its
/// layers (`layer`, `layers`, `blobs`) declared `bytes`.
pub(super) fn skeleton_view() -> Result<MessageDescriptor, String> {
    let mut view = weights_file(true)?;
    for message in &mut view.message_type {
        if message.name() == "BlobProto" || message.name() == "BlobShape" {
            continue;
        }
        for field in &mut message.field {
            if field.r#type() == Type::Message {
                field.set_type(Type::Bytes);
                field.type_name = None;
            }
        }
    }
    net_descriptor(view)
}

/// The built-in schema reduced to [`KEPT`], arrays as bytes if `as_bytes`.
fn weights_view(as_bytes: bool) -> Result<MessageDescriptor, String> {
    net_descriptor(weights_file(as_bytes)?)
}

fn net_descriptor(view: FileDescriptorProto) -> Result<MessageDescriptor, String> {
    let pool = DescriptorPool::from_file_descriptor_set(FileDescriptorSet { file: vec![view] })
        .map_err(|e| e.to_string())?;
    pool.get_message_by_name("caffe.NetParameter")
        .ok_or_else(|| "the weights view has no NetParameter".to_owned())
}

fn weights_file(as_bytes: bool) -> Result<FileDescriptorProto, String> {
    let schema = CaffeSchema::builtin().map_err(|e| e.to_string())?;
    let file = schema
        .pool()
        .get_file_by_name(CAFFE_PROTO_NAME)
        .ok_or("the schema has no caffe.proto")?;
    let mut view = FileDescriptorProto {
        enum_type: Vec::new(),
        source_code_info: None,
        ..file.file_descriptor_proto().clone()
    };
    view.message_type
        .retain(|m| KEPT.iter().any(|(name, _)| *name == m.name()));
    for message in &mut view.message_type {
        let fields = KEPT
            .iter()
            .find(|(name, _)| *name == message.name())
            .map_or(&[][..], |(_, fields)| fields);
        message.field.retain(|f| fields.contains(&f.name()));
        if as_bytes && message.name() == "BlobProto" {
            for field in &mut message.field {
                if ARRAYS.contains(&field.name()) {
                    field.set_type(Type::Bytes);
                    field.options = None;
                }
            }
        }
    }
    Ok(view)
}
