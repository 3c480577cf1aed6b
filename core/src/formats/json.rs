//! The lossless JSON form of a model (`.json`): PMX → JSON → PMX gives the same bytes.

use crate::formats::error::{LoadReport, ReadError, WriteError};
use crate::model::Model;

/// Serializes `model` as pretty-printed JSON.
pub fn write(model: &Model) -> Result<Vec<u8>, WriteError> {
    let mut bytes =
        serde_json::to_vec_pretty(model).map_err(|e| WriteError::Serialize(e.to_string()))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Reads a model from JSON.
pub fn read(bytes: &[u8]) -> Result<(Model, LoadReport), ReadError> {
    let model: Model = serde_json::from_slice(bytes).map_err(|e| ReadError::Parse {
        format: "JSON",
        line: e.line(),
        column: e.column(),
        message: crate::i18n::Message::new("load.json.syntax").arg("message", e.to_string()),
    })?;
    Ok((
        model,
        LoadReport {
            file_size: bytes.len(),
            ..LoadReport::default()
        },
    ))
}
