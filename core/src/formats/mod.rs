//! File formats. Every format has `read(bytes, &LoadOptions)` and `write(&Model, ...)`, and
//! its entry in [`registry::FORMATS`] (name, extensions, abilities, detection, entry points);
//! the functions here (load, save, write) dispatch through that entry.

mod bytes;
pub mod cp932;
pub mod csv;
pub mod error;
mod exports;
mod files;
pub mod json;
pub mod mqo;
pub mod pmd;
pub mod pmx;
pub mod registry;
pub mod relocate;
pub mod smf;
pub mod vmd;
pub mod vpd;
pub mod vrm;

pub use error::FileError;
pub use error::{
    LoadLimits, LoadNote, LoadOptions, LoadReport, Location, ReadError, SaveReport, WriteError,
};
pub use exports::{save_csv, save_mqo, save_smf, save_vrm};
pub use files::{EmbeddedFile, folder_of, write_atomic, write_embedded_files};
pub use registry::{FileFormat, FormatSpec, Loaded, SaveOptions, WriteReport, mqo_import_options};
pub use relocate::{
    RelocationReport, TextureRelocation, UnkeptReason, UnkeptTexture, relocate_textures,
    relocation_for,
};

use crate::model::Model;
use std::path::Path;

/// Reads `bytes` in `format`.
pub fn read_bytes(
    bytes: &[u8],
    format: FileFormat,
    options: &LoadOptions,
) -> Result<(Model, LoadReport), ReadError> {
    (format.spec().read)(bytes, None, options).map(|loaded| (loaded.model, loaded.report))
}

/// Reads `bytes`, the contents of the file at `path`, in the format they are
/// ([`FileFormat::detect`]); what a format keeps beside its file (an MQO's `.mqx`, a glTF's
/// buffers) is read from there.
pub fn read_file_bytes(
    path: &Path,
    bytes: &[u8],
    options: &LoadOptions,
) -> Result<Loaded, FileError> {
    let format = FileFormat::detect(path, bytes).ok_or_else(|| FileError::unknown_format(path))?;
    (format.spec().read)(bytes, Some(path), options).map_err(FileError::read(path))
}

/// A PMX file opened for reading straight from the disk ([`pmx::read_file`]) and its length,
/// when its first bytes are a PMX magic (2.x, or 1.0 for the reader's own refusal); `None`
/// for any other file.
pub fn open_pmx(path: &Path) -> std::io::Result<Option<(std::fs::File, usize)>> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut magic = [0u8; 4];
    match file.read_exact(&mut magic) {
        Err(error) if error.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        read => read?,
    }
    if &magic != pmx::MAGIC && &magic != b"Pmx " {
        return Ok(None);
    }
    let len = usize::try_from(file.metadata()?.len()).unwrap_or(usize::MAX);
    Ok(Some((file, len)))
}

/// A model file's facts without its bulk: for PMX the vertices, faces and morph offsets are
/// checked and counted but not kept ([`pmx::read_summary`]); other formats are read whole.
#[derive(Debug)]
pub struct Summary {
    /// The model; for PMX without vertices, faces, additional UVs and morph offsets.
    pub model: Model,
    pub report: LoadReport,
    pub format: FileFormat,
    pub vertices: usize,
    /// Triangles.
    pub faces: usize,
}

/// Reads what `pmx-studio info` prints: as [`load_path`], but a PMX file's bulk is only
/// counted (a 261 MB file is read in a few MB of memory).
pub fn summarize_path(path: &Path, options: &LoadOptions) -> Result<Summary, FileError> {
    if let Some((file, len)) = open_pmx(path).map_err(FileError::io(path))? {
        let summary = pmx::read_summary(pmx::SummarySource::File(&file, len), options)
            .map_err(FileError::read(path))?;
        return Ok(Summary {
            model: summary.model,
            report: summary.report,
            format: FileFormat::Pmx,
            vertices: summary.vertices,
            faces: summary.faces,
        });
    }
    let loaded = load_path(path, options)?;
    Ok(Summary {
        vertices: loaded.model.vertices.len(),
        faces: loaded.model.faces.len(),
        model: loaded.model,
        report: loaded.report,
        format: loaded.format,
    })
}

/// Opens a model file of any supported format. A PMX file is read from the disk through a
/// small window, never copied into memory whole.
pub fn load_path(path: &Path, options: &LoadOptions) -> Result<Loaded, FileError> {
    if let Some((file, len)) = open_pmx(path).map_err(FileError::io(path))? {
        let (model, report) =
            pmx::read_file(&file, len, options, &|_| {}, None).map_err(FileError::read(path))?;
        return Ok(Loaded {
            model,
            report,
            format: FileFormat::Pmx,
            embedded_files: Vec::new(),
        });
    }
    let bytes = std::fs::read(path).map_err(FileError::io(path))?;
    read_file_bytes(path, &bytes, options)
}

/// Writes `model` in `format` (for MQO the `.mqo` alone).
pub fn write_bytes(
    model: &Model,
    format: FileFormat,
    options: &SaveOptions,
) -> Result<(Vec<u8>, SaveReport), WriteError> {
    (format.spec().encode)(model, options)
}

/// Writes `model` to `path` in the format its extension names, atomically.
pub fn save_path(
    model: &Model,
    path: &Path,
    options: &SaveOptions,
) -> Result<SaveReport, FileError> {
    let format = FileFormat::from_extension(path).ok_or_else(|| FileError::unknown_format(path))?;
    write_path(model, path, format, options).map(|report| report.save_report())
}

/// Writes `model` to `path` as `format`, atomically (with any side file: an MQO's `.mqx`), and
/// returns the format's own report: a document's Save as, or a copy (File > Export, `convert`).
pub fn write_path(
    model: &Model,
    path: &Path,
    format: FileFormat,
    options: &SaveOptions,
) -> Result<WriteReport, FileError> {
    format.spec().write_file(model, path, options)
}

/// Whether `path` names a VRM file (`.vrm`, any case): an export format only, written by
/// [`save_vrm`], never read as a model.
#[must_use]
pub fn is_vrm_path(path: &Path) -> bool {
    registry::has_extension(path, FileFormat::Vrm.spec().extension())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_save_keeps_the_original() {
        let dir = tempfile::tempdir().unwrap_or_else(|_| std::process::abort());
        let path = dir.path().join("model.pmx");
        std::fs::write(&path, b"original").unwrap_or_default();
        // A model a 2.0 target refuses: the write fails before the file is touched.
        let mut model = Model::new_empty();
        model.soft_bodies.push(crate::model::SoftBody::default());
        let result = save_path(&model, &path, &SaveOptions::default());
        assert!(result.is_err());
        assert_eq!(std::fs::read(&path).unwrap_or_default(), b"original");
        let leftovers = std::fs::read_dir(dir.path())
            .map(|d| d.count())
            .unwrap_or(0);
        assert_eq!(leftovers, 1, "no temporary file is left behind");
    }

    #[test]
    fn smf_is_detected_by_its_header_chunk_and_saved_atomically() {
        let dir = tempfile::tempdir().unwrap_or_else(|_| std::process::abort());
        // A misleading extension: the header chunk decides.
        let path = dir.path().join("sample.smf");
        let model = crate::generate::sample_model();
        let export = save_smf(&model, &path, &smf::SmfExportOptions::default());
        assert!(export.is_ok(), "{export:?}");
        let bytes = std::fs::read(&path).unwrap_or_default();
        assert_eq!(
            FileFormat::detect(Path::new("model.bin"), &bytes),
            Some(FileFormat::Smf)
        );
        assert_eq!(FileFormat::from_extension(&path), Some(FileFormat::Smf));
        let loaded = load_path(&path, &LoadOptions::default());
        assert!(loaded.is_ok(), "{loaded:?}");
        if let Ok(loaded) = loaded {
            assert_eq!(loaded.format, FileFormat::Smf);
            assert_eq!(loaded.model.faces.len(), model.faces.len());
        }
        let leftovers = std::fs::read_dir(dir.path())
            .map(|d| d.count())
            .unwrap_or(0);
        assert_eq!(leftovers, 1, "no temporary file is left behind");
    }

    #[test]
    fn save_vrm_writes_the_glb_or_nothing() {
        let dir = tempfile::tempdir().unwrap_or_else(|_| std::process::abort());
        let path = dir.path().join("model.VRM");
        assert!(is_vrm_path(&path));
        assert!(!is_vrm_path(&dir.path().join("model.pmx")));
        let report = save_vrm(
            &crate::generate::sample_model(),
            &path,
            &vrm::VrmExportOptions::default(),
        );
        assert!(report.is_ok_and(|report| report.humanoid_bones > 0));
        assert!(
            std::fs::read(&path)
                .unwrap_or_default()
                .starts_with(b"glTF")
        );
        // No bones at all: refused before anything is written.
        let refused = dir.path().join("refused.vrm");
        let result = save_vrm(
            &Model::new_empty(),
            &refused,
            &vrm::VrmExportOptions::default(),
        );
        assert!(result.is_err());
        assert!(!refused.exists());
    }
}
