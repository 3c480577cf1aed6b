//! File formats. Every format has `read(bytes, &LoadOptions)` and `write(&Model, ...)`, and
//! its entry in [`registry::FORMATS`] (name, extensions, abilities, detection, entry points);
//! the functions here (load, save, write) dispatch through that entry.

pub mod cp932;
pub mod csv;
pub mod error;
pub mod json;
pub mod mqo;
pub mod pmd;
pub mod pmx;
pub mod registry;
pub mod smf;
pub mod vmd;
pub mod vpd;
pub mod vrm;

pub use error::{
    LoadLimits, LoadNote, LoadOptions, LoadReport, Location, ReadError, SaveReport, WriteError,
};
pub use registry::{FileFormat, FormatSpec};

use crate::model::Model;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Why a file could not be opened or saved.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Read {
        path: PathBuf,
        source: Box<ReadError>,
    },
    #[error("{path}: {source}")]
    Write {
        path: PathBuf,
        source: Box<WriteError>,
    },
    #[error(
        "{path}: unknown file format (expected {expected})",
        expected = registry::expected_extensions()
    )]
    UnknownFormat { path: PathBuf },
}

/// A model read from disk, with what the reader noticed.
#[derive(Debug)]
pub struct Loaded {
    pub model: Model,
    pub report: LoadReport,
    pub format: FileFormat,
    /// Files the model names by a relative path whose bytes were inside the file read (a
    /// VRM's images): they belong beside the PMX it is saved as ([`write_embedded_files`]).
    pub embedded_files: Vec<EmbeddedFile>,
}

/// A file carried inside another (an image in a VRM), with the path a model names it by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedFile {
    /// Relative to the model's folder, with `/` separators (`tex/face.png`).
    pub path: String,
    pub bytes: Vec<u8>,
}

/// Writes `files` under `dir` at their relative paths, atomically each. An existing file with
/// other bytes is replaced only when `replace` is set (otherwise it is kept, and its path is
/// in the error). Returns the paths written (files already there with the same bytes are
/// skipped).
pub fn write_embedded_files(
    files: &[EmbeddedFile],
    dir: &Path,
    replace: bool,
) -> std::io::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for file in files {
        let relative = Path::new(&file.path);
        if relative.is_absolute()
            || relative
                .components()
                .any(|c| !matches!(c, std::path::Component::Normal(_)))
        {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{}: not a plain relative path", file.path),
            ));
        }
        let path = dir.join(relative);
        match std::fs::read(&path) {
            Ok(existing) if existing == file.bytes => continue,
            Ok(_) if !replace => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    format!(
                        "{} exists with other contents; not replaced",
                        path.display()
                    ),
                ));
            }
            _ => {}
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        write_atomic(&path, &file.bytes)?;
        written.push(path);
    }
    Ok(written)
}

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
    let format = FileFormat::detect(path, bytes).ok_or_else(|| FileError::UnknownFormat {
        path: path.to_owned(),
    })?;
    (format.spec().read)(bytes, Some(path), options).map_err(|source| FileError::Read {
        path: path.to_owned(),
        source: Box::new(source),
    })
}

/// The MQO import options `options` ask for.
#[must_use]
pub fn mqo_import_options(options: &LoadOptions) -> mqo::MqoImportOptions {
    mqo::MqoImportOptions {
        limits: options.limits,
        ..options.mqo.unwrap_or_default()
    }
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
    let io_error = |source| FileError::Io {
        path: path.to_owned(),
        source,
    };
    if let Some((file, len)) = open_pmx(path).map_err(io_error)? {
        let summary =
            pmx::read_summary(pmx::SummarySource::File(&file, len), options).map_err(|source| {
                FileError::Read {
                    path: path.to_owned(),
                    source: Box::new(source),
                }
            })?;
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
    if let Some((file, len)) = open_pmx(path).map_err(|source| FileError::Io {
        path: path.to_owned(),
        source,
    })? {
        let (model, report) =
            pmx::read_file(&file, len, options, &|_| {}, None).map_err(|source| {
                FileError::Read {
                    path: path.to_owned(),
                    source: Box::new(source),
                }
            })?;
        return Ok(Loaded {
            model,
            report,
            format: FileFormat::Pmx,
            embedded_files: Vec::new(),
        });
    }
    let bytes = std::fs::read(path).map_err(|source| FileError::Io {
        path: path.to_owned(),
        source,
    })?;
    read_file_bytes(path, &bytes, options)
}

/// Settings for writing a model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SaveOptions {
    pub pmx: pmx::PmxSaveOptions,
    /// For `.mqo`: scale, grouping, `.mqx` contents. [`save_path`] sets the file names and
    /// folders from the path.
    pub mqo: mqo::MqoExportOptions,
    /// For `.smf`: collision materials, alpha test, a motion to bake.
    pub smf: smf::SmfExportOptions,
    /// For `.csv`: the text encoding.
    pub csv: csv::CsvSaveOptions,
    /// For `.vrm`: the meta, the humanoid mapping, spring bones, the texture folder.
    pub vrm: vrm::VrmExportOptions,
}

/// What writing a model's file reported, with each format's own counts.
#[derive(Debug, Clone, PartialEq)]
pub enum WriteReport {
    /// PMX, PMD, JSON and CSV: the writer's warnings (for PMD, what the file cannot hold).
    Saved(SaveReport),
    Mqo {
        report: mqo::MqoExportReport,
        /// The `.mqx` side file written beside the MQO, if any.
        mqx_file: Option<String>,
    },
    Smf(smf::SmfExportReport),
    Vrm(vrm::VrmExportReport),
}

impl WriteReport {
    /// The writer's warnings in English: what the file could not hold, or holds differently.
    #[must_use]
    pub fn save_report(&self) -> SaveReport {
        match self {
            WriteReport::Saved(report) => report.clone(),
            WriteReport::Mqo { report, .. } => report.to_save_report(),
            WriteReport::Smf(report) => report.to_save_report(),
            WriteReport::Vrm(report) => report.to_save_report(),
        }
    }
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
    let format = FileFormat::from_extension(path).ok_or_else(|| FileError::UnknownFormat {
        path: path.to_owned(),
    })?;
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
    let export = mqo::write_mqo(model, &options).map_err(|source| FileError::Write {
        path: path.to_owned(),
        source: Box::new(source),
    })?;
    if let Some((name, bytes)) = &export.mqx {
        let mqx_path = path.with_file_name(name);
        write_atomic(&mqx_path, bytes).map_err(|source| FileError::Io {
            path: mqx_path.clone(),
            source,
        })?;
    }
    write_atomic(path, &export.mqo).map_err(|source| FileError::Io {
        path: path.to_owned(),
        source,
    })?;
    Ok(export)
}

/// Exports `model` to the SMF at `path`, atomically. Returns the export with its report (the
/// bytes written, the counts and what SMF could not hold).
pub fn save_smf(
    model: &Model,
    path: &Path,
    options: &smf::SmfExportOptions,
) -> Result<smf::SmfExport, FileError> {
    let export = smf::write_smf(model, options).map_err(|source| FileError::Write {
        path: path.to_owned(),
        source: Box::new(source),
    })?;
    write_atomic(path, &export.bytes).map_err(|source| FileError::Io {
        path: path.to_owned(),
        source,
    })?;
    Ok(export)
}

/// Exports `model` as PmxEditor CSV at `path`, atomically (File > Export CSV; the document
/// keeps its own file and format).
pub fn save_csv(
    model: &Model,
    path: &Path,
    options: &csv::CsvSaveOptions,
) -> Result<(), FileError> {
    let bytes = csv::write_bytes(model, options).map_err(|source| FileError::Write {
        path: path.to_owned(),
        source: Box::new(source),
    })?;
    write_atomic(path, &bytes).map_err(|source| FileError::Io {
        path: path.to_owned(),
        source,
    })
}

/// Whether `path` names a VRM file (`.vrm`, any case): an export format only, written by
/// [`save_vrm`], never read as a model.
#[must_use]
pub fn is_vrm_path(path: &Path) -> bool {
    registry::has_extension(path, FileFormat::Vrm.spec().extension())
}

/// Exports `model` as a VRM 1.0 file at `path`, atomically (nothing is written when the export
/// fails, e.g. on missing humanoid bones). Returns what was written and lost.
pub fn save_vrm(
    model: &Model,
    path: &Path,
    options: &vrm::VrmExportOptions,
) -> Result<vrm::VrmExportReport, FileError> {
    let export = vrm::write_vrm(model, options).map_err(|source| FileError::Write {
        path: path.to_owned(),
        source: Box::new(source),
    })?;
    write_atomic(path, &export.vrm).map_err(|source| FileError::Io {
        path: path.to_owned(),
        source,
    })?;
    Ok(export.report)
}

/// The folder the file at `path` is in: `model.pmx` has the parent "", which is the working
/// folder `.` (as is a path without a parent).
#[must_use]
pub fn folder_of(path: &Path) -> &Path {
    path.parent()
        .filter(|dir| !dir.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Writes `bytes` to a temporary file beside `path`, flushes it to disk and renames it over
/// `path`: a failed save never truncates or damages the file that was there.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    atomic(path, |file| file.write_all(bytes), |error| error)
}

/// Runs `write` on `file` while a second thread asks the system, every 20 ms, to
/// put what is written so far on the disk: the final sync before the rename then waits only for
/// the last part, not for a whole big file (a save that takes less than that never syncs twice).
fn write_syncing<T, E>(
    file: &mut std::fs::File,
    write: impl FnOnce(&mut std::fs::File) -> Result<T, E>,
) -> Result<T, E> {
    let Ok(syncing) = file.try_clone() else {
        return write(file);
    };
    let (done, finished) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                finished.recv_timeout(std::time::Duration::from_millis(20))
            {
                // Only a head start: the final sync_all reports any error.
                let _ = syncing.sync_data();
            }
        });
        let written = write(file);
        drop(done);
        written
    })
}

/// [`write_atomic`] with the bytes written by `write` into the temporary file (which it may
/// fail, with an error of its own; `io_error` turns the file's errors into that type).
fn atomic<T, E>(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> Result<T, E>,
    io_error: impl Fn(std::io::Error) -> E,
) -> Result<T, E> {
    let dir = folder_of(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".into());
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&temp).map_err(&io_error)?;
        let written = write_syncing(&mut file, write)?;
        file.sync_all().map_err(&io_error)?;
        drop(file);
        std::fs::rename(&temp, path).map_err(&io_error)?;
        Ok(written)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
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
