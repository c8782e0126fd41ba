//! Plan attributes as `AttrValue`s. Values of the wrong attribute type are
//! set as given: `add_op` keeps what it cannot coerce, and the engine's
//! prototype check must report it.

use crate::plan::{ConvAttrs, IntAttr, IntListAttr, StrAttr, MAX_RANK};
use opgraph_core::prelude::{AttrValue, Attrs};

/// Conv2D attributes; `nchw` says where the spatial list values go.
pub fn conv_attrs(spec: &ConvAttrs, nchw: bool) -> Attrs {
    let mut attrs = Attrs::new();
    set_int_list(&mut attrs, "strides", &spec.strides, nchw);
    set_int_list(&mut attrs, "pads", &spec.pads, nchw);
    set_int_list(&mut attrs, "dilations", &spec.dilations, nchw);
    set_int(&mut attrs, "groups", &spec.groups);
    set_str(&mut attrs, "data_format", &spec.data_format.0);
    set_str(&mut attrs, "padding", &spec.padding.0);
    attrs
}

pub fn set_int(attrs: &mut Attrs, name: &str, spec: &IntAttr) {
    let value = match spec {
        IntAttr::Absent => return,
        IntAttr::Value(v) => AttrValue::Int(v.0),
        IntAttr::WrongType => AttrValue::Str("1".into()),
    };
    attrs.set(name, value);
}

fn set_int_list(attrs: &mut Attrs, name: &str, spec: &IntListAttr, nchw: bool) {
    let spatial = |nchw: bool, h: i64, w: i64| {
        AttrValue::ListInt(if nchw {
            vec![1, 1, h, w]
        } else {
            vec![1, h, w, 1]
        })
    };
    let value = match spec {
        IntListAttr::Absent => return,
        IntListAttr::Spatial(h, w) => spatial(nchw, h.0, w.0),
        IntListAttr::OtherLayout(h, w) => spatial(!nchw, h.0, w.0),
        IntListAttr::Any(v) => AttrValue::ListInt(v.iter().take(MAX_RANK).map(|v| v.0).collect()),
        IntListAttr::WrongType => AttrValue::Str("1,1,1,1".into()),
    };
    attrs.set(name, value);
}

fn set_str(attrs: &mut Attrs, name: &str, spec: &StrAttr) {
    let value = match spec {
        StrAttr::Absent => return,
        StrAttr::Text(t) => AttrValue::Str((*t).into()),
        StrAttr::Junk(s) => AttrValue::Str(s.chars().take(16).collect()),
        StrAttr::WrongType => AttrValue::Int(1),
    };
    attrs.set(name, value);
}
