//! Initializers stored beside the model (`data_location = EXTERNAL`): each
//! names a file relative to the model's directory and a byte range in it.
//! Files are memory-mapped once and the tensors borrow slices of them, so a
//! model with gigabytes of weights costs no copy and no heap.
//!
//! Paths are untrusted: like onnx's checker, an absolute location, one that
//! climbs out of the model's directory (`..`) or that resolves (through a
//! symbolic link) outside it is refused.

use super::pb;
use crate::frontend::mapped::map_file;
use bytes::Bytes;
use rustc_hash::FxHashMap;
use std::path::{Component, Path, PathBuf};

/// Where an external tensor's bytes are: the parsed `external_data` entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ExternalRange {
    pub location: String,
    pub offset: u64,
    /// `None`: to the end of the file.
    pub length: Option<u64>,
}

impl ExternalRange {
    /// The entries of `tensor.external_data`; the error says what is wrong.
    pub fn of(tensor: &pb::TensorProto) -> Result<ExternalRange, String> {
        let mut location = None;
        let mut offset = 0;
        let mut length = None;
        for entry in &tensor.external_data {
            let number = || {
                entry.value.trim().parse::<u64>().map_err(|_| {
                    format!(
                        "has external_data '{}' = '{}'; expected a non-negative integer",
                        entry.key, entry.value
                    )
                })
            };
            match entry.key.as_str() {
                "location" => location = Some(entry.value.clone()),
                "offset" => offset = number()?,
                "length" => length = Some(number()?),
                // "checksum" and keys of later versions do not locate bytes.
                _ => {}
            }
        }
        let location = location
            .filter(|l| !l.is_empty())
            .ok_or("is stored externally but its external_data has no 'location'")?;
        Ok(ExternalRange {
            location,
            offset,
            length,
        })
    }
}

/// The external files of one model, mapped on first use.
#[derive(Debug)]
pub(super) struct ExternalFiles {
    /// The model's directory; `None` for a model decoded from memory.
    base: Option<PathBuf>,
    mapped: FxHashMap<String, Bytes>,
}

impl ExternalFiles {
    pub fn new(base: Option<PathBuf>) -> ExternalFiles {
        ExternalFiles {
            base,
            mapped: FxHashMap::default(),
        }
    }

    /// The bytes `range` names; the error says what is wrong, for the
    /// caller to prefix with the initializer.
    pub fn read(&mut self, range: &ExternalRange) -> Result<Bytes, String> {
        let file = match self.mapped.get(&range.location) {
            Some(file) => file.clone(),
            None => {
                let path = self.resolve(&range.location)?;
                let file = map_file(&path, "external tensor data").map_err(|e| e.to_string())?;
                self.mapped.insert(range.location.clone(), file.clone());
                file
            }
        };
        let size = file.len() as u64;
        let end = match range.length {
            Some(length) => range.offset.checked_add(length),
            None => Some(size),
        };
        match end {
            Some(end) if range.offset <= end && end <= size => {
                // Both fit in usize: they are at most the mapped length.
                Ok(file.slice(range.offset as usize..end as usize))
            }
            _ => Err(format!(
                "reads bytes {}..{} of '{}', which has {size} bytes",
                range.offset,
                end.map_or_else(|| "overflow".to_owned(), |e| e.to_string()),
                range.location
            )),
        }
    }

    /// `location` inside the model's directory, or why it is refused.
    fn resolve(&self, location: &str) -> Result<PathBuf, String> {
        let Some(base) = &self.base else {
            return Err(format!(
                "is stored in external file '{location}', but the model was not read from a \
                 file, so there is no directory to find it in"
            ));
        };
        let relative = Path::new(location);
        let climbs = relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
        if climbs {
            return Err(format!(
                "is stored in external file '{location}', which is not a relative path inside \
                 the model's directory (absolute paths and '..' are refused, as onnx's checker does)"
            ));
        }
        let path = base.join(relative);
        let real = path.canonicalize().map_err(|e| {
            format!(
                "is stored in external file '{}', which cannot be opened: {e}",
                path.display()
            )
        })?;
        let real_base = base.canonicalize().map_err(|e| e.to_string())?;
        if !real.starts_with(&real_base) {
            return Err(format!(
                "is stored in external file '{location}', which resolves to '{}', outside the \
                 model's directory",
                real.display()
            ));
        }
        Ok(real)
    }
}
