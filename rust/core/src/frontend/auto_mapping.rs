//! GE's `AutoMappingByOpFn` and `AutoMappingByOpFnDynamic`: the default way a
//! plugin fills its IR op from the framework op.

use super::{FrameworkOp, OpDraft, PluginError};
use crate::types::{AttrValue, Format};

/// Which side of the op a dynamic port is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortKind {
    Input,
    Output,
}

/// One dynamic port sized from an attribute: `(kind, IR port name, attr)`.
/// The attribute is an int (`N`) or a dtype list (`T`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DynamicPort {
    pub kind: PortKind,
    pub port: String,
    pub count_attr: String,
}

/// Copies every attribute (already converted with the TF→IR type mapping
/// when decoded) except the framework's bookkeeping, and takes the tensor
/// formats from `data_format`.
pub fn auto_mapping(src: &FrameworkOp, dst: &mut OpDraft) -> Result<(), PluginError> {
    // Into an empty draft (the usual case) every key is new: `src`'s keys
    // are unique, so no search for an earlier value is needed.
    let fresh = dst.attrs.is_empty();
    dst.attrs.reserve(src.attrs.len());
    for (name, value) in src.attrs.iter() {
        if is_bookkeeping(src, name, value) {
            continue;
        }
        if fresh {
            dst.attrs.push_new(name, value.clone());
        } else {
            dst.attrs.set(name, value.clone());
        }
    }
    if let Some(value) = src.attrs.get("data_format") {
        let AttrValue::Str(name) = value else {
            return Err(PluginError::new(format!(
                "attribute 'data_format' of '{}' must be a string, got {}",
                src.name,
                value.attr_type()
            )));
        };
        let format = data_format(name).ok_or_else(|| {
            PluginError::new(format!(
                "attribute 'data_format' of '{}' is '{name}'; expected NHWC, NCHW, NDHWC, NCDHW or ND",
                src.name
            ))
        })?;
        dst.format = Some(format);
    }
    Ok(())
}

/// Attributes that describe the framework node rather than the operation,
/// which no IR op declares: a Caffe layer's `bottom` and `top` blob names,
/// and the `<field>_name` companion naming an enum field's value (the
/// number is copied under `<field>`).
fn is_bookkeeping(src: &FrameworkOp, name: &str, value: &AttrValue) -> bool {
    let names = matches!(value, AttrValue::ListStr(_) | AttrValue::Str(_));
    if !names {
        return false;
    }
    if name == "bottom" || name == "top" {
        return matches!(value, AttrValue::ListStr(_));
    }
    name.strip_suffix(crate::frontend::caffe::ENUM_NAME_SUFFIX)
        .and_then(|field| src.attrs.get(field))
        .is_some_and(|number| matches!(number, AttrValue::Int(_) | AttrValue::ListInt(_)))
}

/// [`auto_mapping`], then sizes each dynamic port from its count attribute.
pub fn auto_mapping_dynamic(
    src: &FrameworkOp,
    dst: &mut OpDraft,
    ports: &[DynamicPort],
) -> Result<(), PluginError> {
    auto_mapping(src, dst)?;
    for port in ports {
        let count = match src.attrs.get(&port.count_attr) {
            Some(AttrValue::Int(n)) => u32::try_from(*n).ok(),
            Some(AttrValue::ListDataType(types)) => u32::try_from(types.len()).ok(),
            // An empty type list (an If with no inputs: `Tin: list {}`)
            // decodes as an empty int list: it carries no element type.
            Some(AttrValue::ListInt(empty)) if empty.is_empty() => Some(0),
            _ => None,
        }
        .ok_or_else(|| {
            PluginError::new(format!(
                "'{}' needs attribute '{}' (a non-negative int or a type list) to size dynamic {} '{}'",
                src.name,
                port.count_attr,
                match port.kind {
                    PortKind::Input => "input",
                    PortKind::Output => "output",
                },
                port.port
            ))
        })?;
        match port.kind {
            PortKind::Input => dst.set_dynamic_input(&port.port, count),
            PortKind::Output => dst.set_dynamic_output(&port.port, count),
        }
    }
    Ok(())
}

/// The IR format a TensorFlow `data_format` names.
pub fn data_format(name: &str) -> Option<Format> {
    match name {
        "NHWC" | "NWC" => Some(Format::Nhwc),
        "NCHW" | "NCW" => Some(Format::Nchw),
        "NDHWC" => Some(Format::Ndhwc),
        "NCDHW" => Format::from_name("NCDHW"),
        "ND" => Some(Format::Nd),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{AttrValue, DataType};

    fn op(attrs: &[(&str, AttrValue)]) -> FrameworkOp {
        let mut op = FrameworkOp {
            name: "n".into(),
            op_type: "T".into(),
            ..FrameworkOp::default()
        };
        for (k, v) in attrs {
            op.attrs.set(*k, v.clone());
        }
        op
    }

    #[test]
    fn leaves_caffe_bookkeeping_behind() {
        let src = op(&[
            ("bottom", AttrValue::ListStr(vec!["x".into()])),
            ("top", AttrValue::ListStr(vec!["y".into()])),
            ("pool", AttrValue::Int(1)),
            ("pool_name", AttrValue::Str("AVE".into())),
            ("shared_name", AttrValue::Str("s".into())),
        ]);
        let mut dst = OpDraft::new("n", "Pooling");
        auto_mapping(&src, &mut dst).unwrap();
        let copied: Vec<&str> = dst.attrs.iter().map(|(n, _)| n).collect();
        // `shared_name` has no `shared` field beside it: a real attribute.
        assert_eq!(copied, ["pool", "shared_name"]);
    }

    #[test]
    fn copies_attrs_and_sets_format() {
        let src = op(&[
            ("data_format", AttrValue::Str("NCHW".into())),
            ("strides", AttrValue::ListInt(vec![1, 1, 2, 2])),
        ]);
        let mut dst = OpDraft::new("n", "Conv2D");
        auto_mapping(&src, &mut dst).unwrap();
        assert_eq!(dst.attrs.get("strides"), src.attrs.get("strides"));
        assert_eq!(dst.input_format(3), Some(Format::Nchw));
        dst.set_input_format(1, Format::Hwcn);
        assert_eq!(dst.input_format(1), Some(Format::Hwcn));
        assert_eq!(dst.output_format(0), Some(Format::Nchw));
        let bad = op(&[("data_format", AttrValue::Str("XYZ".into()))]);
        assert!(auto_mapping(&bad, &mut dst)
            .unwrap_err()
            .message
            .contains("XYZ"));
    }

    #[test]
    fn sizes_dynamic_ports() {
        let src = op(&[
            ("N", AttrValue::Int(3)),
            ("T", AttrValue::ListDataType(vec![DataType::Float; 2])),
        ]);
        let mut dst = OpDraft::new("n", "X");
        let ports = [
            DynamicPort {
                kind: PortKind::Input,
                port: "x".into(),
                count_attr: "N".into(),
            },
            DynamicPort {
                kind: PortKind::Output,
                port: "y".into(),
                count_attr: "T".into(),
            },
        ];
        auto_mapping_dynamic(&src, &mut dst, &ports).unwrap();
        assert_eq!(dst.dynamic_inputs, vec![("x".to_string(), 3)]);
        assert_eq!(dst.dynamic_outputs, vec![("y".to_string(), 2)]);
        let missing = [DynamicPort {
            kind: PortKind::Input,
            port: "x".into(),
            count_attr: "M".into(),
        }];
        assert!(auto_mapping_dynamic(&src, &mut dst, &missing).is_err());
    }
}
