//! Model files as `Bytes` over a read-only memory map, so decoded weights
//! can borrow the file instead of copying it.

use super::FrontendError;
use bytes::Bytes;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Files up to this size are read into memory: copying them costs less
/// than setting up and tearing down a mapping (and faulting its pages in).
const READ_WHOLE_BYTES: u64 = 64 * 1024;

/// The whole file at `path`; `what` names the expected content in the
/// error for an empty file or a directory (e.g. "a TensorFlow GraphDef").
pub fn map_file(path: &Path, what: &str) -> Result<Bytes, FrontendError> {
    let fail =
        |why: String| FrontendError::Decode(format!("cannot read '{}': {why}", path.display()));
    let file = File::open(path).map_err(|e| fail(e.to_string()))?;
    let metadata = file.metadata().map_err(|e| fail(e.to_string()))?;
    if metadata.is_dir() {
        return Err(fail(format!("it is a directory; expected {what}")));
    }
    if metadata.len() == 0 {
        return Err(fail(format!("the file is empty; expected {what}")));
    }
    if metadata.len() <= READ_WHOLE_BYTES {
        let mut data = Vec::with_capacity(metadata.len() as usize);
        (&file)
            .read_to_end(&mut data)
            .map_err(|e| fail(e.to_string()))?;
        return Ok(Bytes::from(data));
    }
    // SAFETY: the map is read-only and lives as long as any `Bytes` slice of
    // it. Another process truncating or rewriting the file while it is
    // mapped is undefined behaviour (as for every memory-mapped loader);
    // model files are not written while being loaded.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| fail(e.to_string()))?;
    Ok(Bytes::from_owner(map))
}
