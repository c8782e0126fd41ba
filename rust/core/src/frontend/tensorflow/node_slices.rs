//! NodeDef on the wire, decoded without copying: the strings borrow the
//! encoded graph, and the attr map is its wire form, a list of entries
//! (last one wins for a repeated key, as for a map).
//!
//! Written here rather than generated from a `.proto` so that an occurrence
//! of a string field that a later one replaces is checked as UTF-8 before it
//! goes, as NodeDef's generated decoder checks every occurrence: a `bytes`
//! field would keep only the last one (see [`crate::frontend::wire_strings`]).
//! The values kept (and every `input`) are checked once, by the decoder's
//! `NodeView`. So exactly the bytes NodeDef accepts are accepted, each
//! checked once. The wire handling is prost's own (`prost::encoding`).

use super::pb::{node_def, AttrValue, FullTypeDef};
use crate::frontend::wire_strings::merge_string;
use bytes::{Buf, BufMut, Bytes};
use prost::encoding::{bytes as wire_bytes, message, skip_field, DecodeContext, WireType};
use prost::{DecodeError, Message};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeDefSlices {
    pub name: Bytes,
    pub op: Bytes,
    pub input: Vec<Bytes>,
    pub device: Bytes,
    pub attr: Vec<AttrEntry>,
    pub experimental_debug_info: Option<node_def::ExperimentalDebugInfo>,
    pub experimental_type: Option<FullTypeDef>,
}

/// One entry of NodeDef's attr map as encoded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AttrEntry {
    pub key: Bytes,
    pub value: Option<AttrValue>,
}

fn merge_optional<M: Message + Default>(
    wire_type: WireType,
    slot: &mut Option<M>,
    buf: &mut impl Buf,
    ctx: DecodeContext,
) -> Result<(), DecodeError> {
    message::merge(wire_type, slot.get_or_insert_with(M::default), buf, ctx)
}

impl Message for NodeDefSlices {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        for (tag, value) in [(1, &self.name), (2, &self.op)] {
            if !value.is_empty() {
                wire_bytes::encode(tag, value, buf);
            }
        }
        wire_bytes::encode_repeated(3, &self.input, buf);
        if !self.device.is_empty() {
            wire_bytes::encode(4, &self.device, buf);
        }
        message::encode_repeated(5, &self.attr, buf);
        if let Some(info) = &self.experimental_debug_info {
            message::encode(6, info, buf);
        }
        if let Some(full_type) = &self.experimental_type {
            message::encode(7, full_type, buf);
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
            1 => merge_string(wire_type, &mut self.name, buf, ctx),
            2 => merge_string(wire_type, &mut self.op, buf, ctx),
            3 => wire_bytes::merge_repeated(wire_type, &mut self.input, buf, ctx),
            4 => merge_string(wire_type, &mut self.device, buf, ctx),
            5 => message::merge_repeated(wire_type, &mut self.attr, buf, ctx),
            6 => merge_optional(wire_type, &mut self.experimental_debug_info, buf, ctx),
            7 => merge_optional(wire_type, &mut self.experimental_type, buf, ctx),
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        let strings = [(1, &self.name), (2, &self.op), (4, &self.device)]
            .into_iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(tag, v)| wire_bytes::encoded_len(tag, v))
            .sum::<usize>();
        strings
            + wire_bytes::encoded_len_repeated(3, &self.input)
            + message::encoded_len_repeated(5, &self.attr)
            + self
                .experimental_debug_info
                .as_ref()
                .map_or(0, |m| message::encoded_len(6, m))
            + self
                .experimental_type
                .as_ref()
                .map_or(0, |m| message::encoded_len(7, m))
    }

    /// Keeps the lists' room, for a decoder reusing one message per node.
    fn clear(&mut self) {
        self.name.clear();
        self.op.clear();
        self.input.clear();
        self.device.clear();
        self.attr.clear();
        self.experimental_debug_info = None;
        self.experimental_type = None;
    }
}

impl Message for AttrEntry {
    fn encode_raw(&self, buf: &mut impl BufMut) {
        if !self.key.is_empty() {
            wire_bytes::encode(1, &self.key, buf);
        }
        if let Some(value) = &self.value {
            message::encode(2, value, buf);
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
            1 => merge_string(wire_type, &mut self.key, buf, ctx),
            2 => merge_optional(wire_type, &mut self.value, buf, ctx),
            _ => skip_field(wire_type, tag, buf, ctx),
        }
    }

    fn encoded_len(&self) -> usize {
        let key = if self.key.is_empty() {
            0
        } else {
            wire_bytes::encoded_len(1, &self.key)
        };
        key + self
            .value
            .as_ref()
            .map_or(0, |v| message::encoded_len(2, v))
    }

    fn clear(&mut self) {
        *self = AttrEntry::default();
    }
}
