//! Users' `custom.proto` files merged into `caffe.proto` with GE's rules,
//! on parsed (not yet type-resolved) file descriptors.
//!
//! A custom proto is a standalone proto2 file in the style GE expects:
//!
//! ```proto
//! syntax = "proto2";
//! package caffe;                      // any package, or none
//! message LayerParameter {
//!   optional MyLayerParameter my_layer_param = 1000;
//! }
//! message MyLayerParameter {
//!   optional FillerParameter filler = 1;   // caffe.proto's types are visible
//!   repeated BlobShape shapes = 2;
//! }
//! ```
//!
//! The rules (GE's, from its ProtoFileParser, which merges the text):
//! - The fields of the custom `LayerParameter` are added to Caffe's. A custom
//!   field wins over a built-in field with the same name: the built-in field
//!   is removed. (GE drops a custom field identical to the built-in one;
//!   replacing it by its twin is the same.) A custom field that takes the
//!   *number* of a built-in field with another name is an error here (GE
//!   only logs the conflict): it would silently remove a field such as
//!   `name = 1`, and the net would later fail far from the cause.
//! - Every other custom top-level message or enum replaces the built-in one
//!   of the same name, or is added. A custom `NetParameter` is ignored, as
//!   in GE (the net's structure is Caffe's).
//! - Several custom protos merge in order, each into the result of the
//!   previous ones.
//!
//! What a custom proto may contain, beyond GE's rules (GE merges text and
//! would accept some of these silently, wrongly):
//! - Its declarations join package `caffe` whatever its `package` line says
//!   (GE ignores the line too); references qualified with its own package
//!   are read as `caffe.` references.
//! - It may refer to every type of `caffe.proto` without importing it; the
//!   only import allowed is `caffe.proto` itself (any directory), which is
//!   redundant.
//! - It must be proto2 (GE's caffe.proto is); no `extend`, no services, no
//!   oneofs in `LayerParameter`.
//! - It declares each top-level message and enum once, and each field of
//!   its `LayerParameter` once by name and once by number (protox parses a
//!   file without checking that; the merge would keep only one silently).

use super::schema::{CAFFE_PACKAGE, CAFFE_PROTO_NAME};
use crate::frontend::text_format::line_column;
use crate::frontend::FrontendError;
use prost_types::{DescriptorProto, FieldDescriptorProto, FileDescriptorProto};
use std::collections::HashSet;

const LAYER_PARAMETER: &str = "LayerParameter";
const NET_PARAMETER: &str = "NetParameter";

// FileDescriptorProto / DescriptorProto field numbers, for source locations.
const FILE_MESSAGE_TYPE: i32 = 4;
const FILE_ENUM_TYPE: i32 = 5;
const MESSAGE_FIELD: i32 = 2;
const FIELD_NAME: i32 = 1;
const FIELD_NUMBER: i32 = 3;
const MESSAGE_NESTED_TYPE: i32 = 3;
const FIELD_TYPE_NAME: i32 = 6;

/// One parsed custom proto and its source (for error positions).
pub(super) struct CustomProto {
    name: String,
    source: String,
    file: FileDescriptorProto,
}

impl CustomProto {
    /// Parses `source` (named `name` in errors) and checks what it declares.
    pub fn parse(name: &str, source: &str) -> Result<CustomProto, FrontendError> {
        let file = protox::file::File::from_source(name, source)
            .map_err(|e| located_error(name, source, &e))?
            .file_descriptor_proto()
            .clone();
        let custom = CustomProto {
            name: name.to_owned(),
            source: source.to_owned(),
            file,
        };
        custom.check_shape()?;
        Ok(custom)
    }

    fn error(&self, why: impl std::fmt::Display) -> FrontendError {
        FrontendError::Decode(format!("custom proto '{}': {why}", self.name))
    }

    fn check_shape(&self) -> Result<(), FrontendError> {
        let file = &self.file;
        if file.syntax() == "proto3" || file.syntax() == "editions" {
            return Err(self.error(format!(
                "is {}; custom protos merge into Caffe's proto2 schema and must be proto2",
                file.syntax()
            )));
        }
        if let Some(import) = file
            .dependency
            .iter()
            .find(|d| d.rsplit('/').next() != Some(CAFFE_PROTO_NAME))
        {
            return Err(self.error(format!(
                "imports '{import}'; a custom proto may import only caffe.proto \
                 (whose types it sees without importing)"
            )));
        }
        if !file.extension.is_empty() || !file.service.is_empty() {
            return Err(
                self.error("declares extensions or services; only messages and enums merge")
            );
        }
        if let Some(layer) = file
            .message_type
            .iter()
            .find(|m| m.name() == LAYER_PARAMETER)
        {
            if layer.field.iter().any(|f| f.oneof_index.is_some()) {
                return Err(self.error("puts LayerParameter fields in a oneof, which cannot merge"));
            }
        }
        self.check_unique_declarations()
    }

    /// Each top-level message and enum once; each `LayerParameter` field
    /// once by name and by number. The error points at the second one.
    fn check_unique_declarations(&self) -> Result<(), FrontendError> {
        let file = &self.file;
        let messages = file.message_type.iter().map(|m| m.name());
        let enums = file.enum_type.iter().map(|e| e.name());
        for (kind, section, names) in [
            ("message", FILE_MESSAGE_TYPE, messages.collect::<Vec<_>>()),
            ("enum", FILE_ENUM_TYPE, enums.collect()),
        ] {
            if let Some((i, name)) = first_repeat(&names) {
                let at = self.location(&[section, i as i32], FIELD_NAME);
                return Err(FrontendError::Decode(format!(
                    "{at}: {kind} '{name}' is defined twice; a custom proto may define it once"
                )));
            }
        }
        for (m, message) in file.message_type.iter().enumerate() {
            if message.name() != LAYER_PARAMETER {
                continue;
            }
            let names: Vec<&str> = message.field.iter().map(|f| f.name()).collect();
            let numbers: Vec<i32> = message.field.iter().map(|f| f.number()).collect();
            let repeat = first_repeat(&names)
                .map(|(j, name)| (j, FIELD_NAME, format!("name '{name}'")))
                .or_else(|| {
                    first_repeat(&numbers).map(|(j, n)| (j, FIELD_NUMBER, format!("number {n}")))
                });
            if let Some((j, detail, what)) = repeat {
                let at = self.location(
                    &[FILE_MESSAGE_TYPE, m as i32, MESSAGE_FIELD, j as i32],
                    detail,
                );
                return Err(FrontendError::Decode(format!(
                    "{at}: LayerParameter has two fields with {what}; each field needs its own"
                )));
            }
        }
        Ok(())
    }

    /// The file with references qualified by its own package read as `caffe.`.
    fn in_caffe_package(&self) -> FileDescriptorProto {
        let mut file = self.file.clone();
        let package = file.package().to_owned();
        if !package.is_empty() && package != CAFFE_PACKAGE {
            let from = format!(".{package}.");
            let to = format!(".{CAFFE_PACKAGE}.");
            for message in &mut file.message_type {
                for_each_field(message, &mut |field| {
                    if let Some(rest) = field.type_name().strip_prefix(from.as_str()) {
                        field.type_name = Some(format!("{to}{rest}"));
                    }
                });
            }
        }
        file.package = Some(CAFFE_PACKAGE.to_owned());
        file
    }
}

/// Merges `custom` into the unresolved `caffe.proto` descriptor `merged`.
pub(super) fn merge_custom_proto(
    merged: &mut FileDescriptorProto,
    custom: &CustomProto,
) -> Result<(), FrontendError> {
    let file = custom.in_caffe_package();
    for (index, message) in file.message_type.iter().enumerate() {
        match message.name() {
            NET_PARAMETER => {}
            LAYER_PARAMETER => {
                let layer = merged
                    .message_type
                    .iter_mut()
                    .find(|m| m.name() == LAYER_PARAMETER)
                    .ok_or_else(|| {
                        custom.error("caffe.proto has no LayerParameter to merge into")
                    })?;
                merge_layer(layer, message, index, custom)?;
            }
            _ => replace_or_add(&mut merged.message_type, message.clone(), |m| m.name()),
        }
    }
    for item in &file.enum_type {
        replace_or_add(&mut merged.enum_type, item.clone(), |e| e.name());
    }
    check_types_resolve(merged, custom, &file)
}

/// Custom fields win over built-in fields with the same name; taking the
/// number of a built-in field with another name is an error naming both.
/// `index` is the custom LayerParameter's place in its file (for positions).
fn merge_layer(
    layer: &mut DescriptorProto,
    custom: &DescriptorProto,
    index: usize,
    proto: &CustomProto,
) -> Result<(), FrontendError> {
    for (j, field) in custom.field.iter().enumerate() {
        if let Some(stock) = layer
            .field
            .iter()
            .find(|f| f.number == field.number && f.name != field.name)
        {
            let path = [FILE_MESSAGE_TYPE, index as i32, MESSAGE_FIELD, j as i32];
            return Err(FrontendError::Decode(format!(
                "{}: LayerParameter field '{}' = {} takes the number of LayerParameter's existing field '{}' \
                 and would replace it; give '{}' a number LayerParameter does not use",
                proto.location(&path, FIELD_NUMBER),
                field.name(),
                field.number(),
                stock.name(),
                field.name()
            )));
        }
        layer.field.retain(|f| f.name != field.name);
        layer.field.push(field.clone());
    }
    for nested in &custom.nested_type {
        replace_or_add(&mut layer.nested_type, nested.clone(), |m| m.name());
    }
    for item in &custom.enum_type {
        replace_or_add(&mut layer.enum_type, item.clone(), |e| e.name());
    }
    Ok(())
}

/// The index and value of the first item equal to an earlier one.
fn first_repeat<T: PartialEq + Copy>(items: &[T]) -> Option<(usize, T)> {
    items
        .iter()
        .enumerate()
        .find(|(i, item)| items[..*i].contains(item))
        .map(|(i, &item)| (i, item))
}

fn replace_or_add<T>(items: &mut Vec<T>, item: T, name: impl Fn(&T) -> &str) {
    match items.iter().position(|i| name(i) == name(&item)) {
        Some(at) => items[at] = item,
        None => items.push(item),
    }
}

fn for_each_field(message: &mut DescriptorProto, f: &mut impl FnMut(&mut FieldDescriptorProto)) {
    message.field.iter_mut().for_each(&mut *f);
    for nested in &mut message.nested_type {
        for_each_field(nested, f);
    }
}

/// Every message or enum type a field of the custom proto names must exist
/// once merged; the error points at the field in the custom source (protox
/// would report the merged file, which has no source).
fn check_types_resolve(
    merged: &FileDescriptorProto,
    custom: &CustomProto,
    file: &FileDescriptorProto,
) -> Result<(), FrontendError> {
    let mut types = HashSet::new();
    for message in &merged.message_type {
        collect_type_names(message, CAFFE_PACKAGE, &mut types);
    }
    for item in &merged.enum_type {
        types.insert(format!("{CAFFE_PACKAGE}.{}", item.name()));
    }
    for (i, message) in file.message_type.iter().enumerate() {
        if message.name() == NET_PARAMETER {
            continue;
        }
        let path = vec![FILE_MESSAGE_TYPE, i as i32];
        check_message(message, CAFFE_PACKAGE, &path, &types, custom)?;
    }
    Ok(())
}

fn collect_type_names(message: &DescriptorProto, scope: &str, out: &mut HashSet<String>) {
    let name = format!("{scope}.{}", message.name());
    for nested in &message.nested_type {
        collect_type_names(nested, &name, out);
    }
    for item in &message.enum_type {
        out.insert(format!("{name}.{}", item.name()));
    }
    out.insert(name);
}

fn check_message(
    message: &DescriptorProto,
    scope: &str,
    path: &[i32],
    types: &HashSet<String>,
    custom: &CustomProto,
) -> Result<(), FrontendError> {
    let scope = format!("{scope}.{}", message.name());
    for (j, field) in message.field.iter().enumerate() {
        let type_name = field.type_name();
        if type_name.is_empty() || resolves(type_name, &scope, types) {
            continue;
        }
        let mut at = path.to_vec();
        at.extend([MESSAGE_FIELD, j as i32]);
        let location = custom.location(&at, FIELD_TYPE_NAME);
        return Err(FrontendError::Decode(format!(
            "{location}: field '{}' of message '{}' has type '{type_name}', which neither the \
             custom proto nor caffe.proto defines",
            field.name(),
            message.name()
        )));
    }
    for (k, nested) in message.nested_type.iter().enumerate() {
        let mut at = path.to_vec();
        at.extend([MESSAGE_NESTED_TYPE, k as i32]);
        check_message(nested, &scope, &at, types, custom)?;
    }
    Ok(())
}

/// Whether `name`, used inside `scope`, names one of `types`. Looser than
/// protobuf's rule (any enclosing scope may supply it), so it never rejects
/// what protox accepts; protox still checks the merged file.
fn resolves(name: &str, scope: &str, types: &HashSet<String>) -> bool {
    if let Some(full) = name.strip_prefix('.') {
        return types.contains(full);
    }
    let mut scope = scope;
    loop {
        if types.contains(&format!("{scope}.{name}")) {
            return true;
        }
        match scope.rfind('.') {
            Some(dot) => scope = &scope[..dot],
            None => return types.contains(name),
        }
    }
}

impl CustomProto {
    /// `name:line:column` of the element at `path` (its `detail` part when
    /// recorded), or just the file name.
    fn location(&self, path: &[i32], detail: i32) -> String {
        let locations = self
            .file
            .source_code_info
            .as_ref()
            .map(|info| info.location.as_slice())
            .unwrap_or_default();
        let mut detailed = path.to_vec();
        detailed.push(detail);
        let span = locations
            .iter()
            .find(|l| l.path == detailed)
            .or_else(|| locations.iter().find(|l| l.path == path))
            .map(|l| l.span.as_slice());
        match span {
            Some([line, column, ..]) => format!(
                "{}:{}:{}",
                self.name,
                line.saturating_add(1),
                self.column(*line, *column)
            ),
            _ => self.name.clone(),
        }
    }

    /// The 1-based character column of a 0-based (line, column) span start.
    fn column(&self, line: i32, column: i32) -> usize {
        let text = self.source.lines().nth(line.max(0) as usize).unwrap_or("");
        let column = column.max(0) as usize;
        // protox counts columns in bytes; errors count characters.
        text.get(..column.min(text.len()))
            .map_or(column, |before| before.chars().count())
            + 1
    }
}

/// A protox error (syntax or structure) as `name:line:column: message`.
fn located_error(name: &str, source: &str, error: &protox::Error) -> FrontendError {
    use miette::Diagnostic;
    let offset = error
        .labels()
        .and_then(|mut labels| labels.next())
        .map(|label| label.offset());
    FrontendError::Decode(match offset {
        Some(offset) => {
            let (line, column) = line_column(source, offset);
            format!("{name}:{line}:{column}: {error}")
        }
        None => format!("custom proto '{name}': {error}"),
    })
}
