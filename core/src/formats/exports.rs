//! The file writers of the formats whose export is more than their bytes: MQO (with its
//! `.mqx`), SMF, VRM (their own reports) and CSV (File > Export CSV). Each writes atomically
//! and returns what the writer reported.

use super::error::FileError;
use super::files::write_atomic;
use super::{csv, mqo, smf, vrm};
use crate::model::Model;
use std::path::Path;

/// Exports `model` to the MQO at `path` and its `.mqx` beside it (when bones or morphs are
/// written), each atomically; `options`' file name and MQO folder are taken from `path`, the
/// model folder (for texture paths) is kept.
pub fn save_mqo(
    model: &Model,
    path: &Path,
    options: &mqo::MqoExportOptions,
) -> Result<mqo::MqoExport, FileError> {
    let located = mqo::MqoExportOptions::for_path(path, options.model_dir.as_deref());
    let options = mqo::MqoExportOptions {
        file_name: located.file_name,
        mqo_dir: located.mqo_dir,
        ..options.clone()
    };
    let export = mqo::write_mqo(model, &options).map_err(FileError::write(path))?;
    if let Some((name, bytes)) = &export.mqx {
        let mqx_path = path.with_file_name(name);
        write_atomic(&mqx_path, bytes).map_err(FileError::io(&mqx_path))?;
    }
    write_atomic(path, &export.mqo).map_err(FileError::io(path))?;
    Ok(export)
}

/// Exports `model` to the SMF at `path`, atomically. Returns the export with its report (the
/// bytes written, the counts and what SMF could not hold).
pub fn save_smf(
    model: &Model,
    path: &Path,
    options: &smf::SmfExportOptions,
) -> Result<smf::SmfExport, FileError> {
    let export = smf::write_smf(model, options).map_err(FileError::write(path))?;
    write_atomic(path, &export.bytes).map_err(FileError::io(path))?;
    Ok(export)
}

/// Exports `model` as PmxEditor CSV at `path`, atomically (File > Export CSV; the document
/// keeps its own file and format).
pub fn save_csv(
    model: &Model,
    path: &Path,
    options: &csv::CsvSaveOptions,
) -> Result<(), FileError> {
    let bytes = csv::write_bytes(model, options).map_err(FileError::write(path))?;
    write_atomic(path, &bytes).map_err(FileError::io(path))
}

/// Exports `model` as a VRM 1.0 file at `path`, atomically (nothing is written when the export
/// fails, e.g. on missing humanoid bones). Returns what was written and lost.
pub fn save_vrm(
    model: &Model,
    path: &Path,
    options: &vrm::VrmExportOptions,
) -> Result<vrm::VrmExportReport, FileError> {
    let export = vrm::write_vrm(model, options).map_err(FileError::write(path))?;
    write_atomic(path, &export.vrm).map_err(FileError::io(path))?;
    Ok(export.report)
}
