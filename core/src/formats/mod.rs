//! File formats. Every format has `read(bytes, &LoadOptions)` and `write(&Model, ...)`.

mod bytes;
pub mod cp932;
pub mod csv;
pub mod error;
pub mod json;
pub mod mqo;
pub mod pmd;
pub mod pmx;
pub mod smf;
pub mod vmd;
pub mod vpd;
pub mod vrm;

pub use error::{
    LoadLimits, LoadNote, LoadOptions, LoadReport, Location, ReadError, SaveReport, WriteError,
};

use crate::model::Model;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The formats a model can be read from or written to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileFormat {
    Pmx,
    Json,
    Pmd,
    /// Metasequoia `.mqo` (and the zipped `.mqoz`): imported and exported, not a document
    /// format (the model is converted; see [`mqo`]).
    Mqo,
    /// Selene SMF `.smf`: exported and imported, not a document format (a conversion: see
    /// [`smf`]).
    Smf,
    /// VRM 1.0 / 0.x and glTF binary (`.vrm`, `.glb`): imported, not a document format (the
    /// avatar is converted to an MMD model; see [`vrm::import`]). Writing it is the VRM export.
    Vrm,
    /// PmxEditor's CSV text (`.csv`): a lossless document format like JSON, whose standard
    /// columns PmxEditor reads (see [`csv`]).
    Csv,
}

impl FileFormat {
    /// The lowercase name used in `info --json` (`"pmx"`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            FileFormat::Pmx => "pmx",
            FileFormat::Json => "json",
            FileFormat::Pmd => "pmd",
            FileFormat::Mqo => "mqo",
            FileFormat::Smf => "smf",
            FileFormat::Vrm => "vrm",
            FileFormat::Csv => "csv",
        }
    }

    /// The format a path's extension names, if any.
    #[must_use]
    pub fn from_extension(path: &Path) -> Option<Self> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "pmx" => Some(FileFormat::Pmx),
            "json" => Some(FileFormat::Json),
            "pmd" => Some(FileFormat::Pmd),
            "mqo" | "mqoz" => Some(FileFormat::Mqo),
            "smf" => Some(FileFormat::Smf),
            "vrm" | "glb" | "gltf" => Some(FileFormat::Vrm),
            "csv" => Some(FileFormat::Csv),
            _ => None,
        }
    }

    /// The format of `bytes`, by their content first and the path's extension second.
    #[must_use]
    pub fn detect(path: &Path, bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(pmx::MAGIC) || bytes.starts_with(b"Pmx ") {
            return Some(FileFormat::Pmx);
        }
        if bytes.starts_with(pmd::MAGIC) {
            return Some(FileFormat::Pmd);
        }
        if vrm::import::is_glb(bytes) {
            return Some(FileFormat::Vrm);
        }
        if bytes.starts_with(b"Metasequoia Document") {
            return Some(FileFormat::Mqo);
        }
        // The `SMF` header chunk must come first (the loader refuses anything else); its ID is
        // stored as the little-endian multi-character constant, `46 4D 53 00`.
        if bytes.starts_with(&smf::id::SMF.to_bytes()) {
            return Some(FileFormat::Smf);
        }
        if csv::looks_like_csv(bytes) {
            return Some(FileFormat::Csv);
        }
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        if first == Some(&b'{') {
            // Both are JSON: a text glTF is told from this editor's JSON form by its name.
            if Self::from_extension(path) == Some(FileFormat::Vrm) {
                return Some(FileFormat::Vrm);
            }
            return Some(FileFormat::Json);
        }
        Self::from_extension(path)
    }
}

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
        "{path}: unknown file format (expected .pmx, .pmd, .mqo, .mqoz, .smf, .vrm, .glb, .gltf, .json or .csv)"
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
    match format {
        FileFormat::Pmx => pmx::read(bytes, options),
        FileFormat::Json => json::read(bytes),
        FileFormat::Csv => csv::read(bytes),
        FileFormat::Pmd => pmd::read(bytes, options),
        FileFormat::Mqo => {
            let imported = mqo::read_mqo(bytes, &mqo_import_options(options))?;
            Ok((imported.model, imported.report.to_load_report()))
        }
        FileFormat::Smf => smf::read_smf(bytes, options),
        FileFormat::Vrm => {
            let imported = vrm::read_vrm(bytes, options)?;
            Ok((imported.model, imported.report))
        }
    }
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
    let format = FileFormat::detect(path, &bytes).ok_or_else(|| FileError::UnknownFormat {
        path: path.to_owned(),
    })?;
    if format == FileFormat::Vrm {
        // From the path: a `.gltf` keeps its buffers and images in files beside it.
        let imported = vrm::load_vrm_path(path, options)?;
        return Ok(Loaded {
            model: imported.model,
            report: imported.report,
            format,
            embedded_files: imported.textures,
        });
    }
    if format == FileFormat::Mqo {
        // From the path: the `.mqx` side file is looked up next to it.
        let imported = mqo::load_mqo_path(path, &mqo_import_options(options)).map_err(|error| {
            FileError::Read {
                path: path.to_owned(),
                source: Box::new(error.into()),
            }
        })?;
        return Ok(Loaded {
            model: imported.model,
            report: imported.report.to_load_report(),
            format,
            embedded_files: Vec::new(),
        });
    }
    let (model, report) =
        read_bytes(&bytes, format, options).map_err(|source| FileError::Read {
            path: path.to_owned(),
            source: Box::new(source),
        })?;
    Ok(Loaded {
        model,
        report,
        format,
        embedded_files: Vec::new(),
    })
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
}

/// Writes `model` in `format`.
pub fn write_bytes(
    model: &Model,
    format: FileFormat,
    options: &SaveOptions,
) -> Result<(Vec<u8>, SaveReport), WriteError> {
    match format {
        FileFormat::Pmx => pmx::write(model, &options.pmx),
        FileFormat::Json => json::write(model).map(|bytes| (bytes, SaveReport::default())),
        FileFormat::Csv => {
            csv::write_bytes(model, &options.csv).map(|bytes| (bytes, SaveReport::default()))
        }
        FileFormat::Pmd => pmd::write(model).map(|(bytes, report)| {
            let warnings = report.losses.iter().map(ToString::to_string).collect();
            (bytes, SaveReport { warnings })
        }),
        // The MQO alone: [`save_path`] also writes the `.mqx` side file.
        FileFormat::Mqo => mqo::write_mqo(model, &options.mqo)
            .map(|export| (export.mqo, export.report.to_save_report())),
        FileFormat::Smf => smf::write_smf(model, &options.smf)
            .map(|export| (export.bytes, export.report.to_save_report())),
        // The VRM export with its defaults (the T-pose, spring bones; no texture folder).
        FileFormat::Vrm => vrm::write_vrm(model, &vrm::VrmExportOptions::default()).map(|export| {
            let warnings = export
                .report
                .losses
                .iter()
                .map(|loss| loss.message_en())
                .collect();
            (export.vrm, SaveReport { warnings })
        }),
    }
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
    if format == FileFormat::Mqo {
        return save_mqo(model, path, &options.mqo).map(|export| export.report.to_save_report());
    }
    if format == FileFormat::Smf {
        return save_smf(model, path, &options.smf).map(|export| export.report.to_save_report());
    }
    let write_error = |source| FileError::Write {
        path: path.to_owned(),
        source: Box::new(source),
    };
    let io_error = |source| FileError::Io {
        path: path.to_owned(),
        source,
    };
    if format == FileFormat::Pmx {
        // Straight into the temporary file: a big model is never a second time in memory.
        return atomic(
            path,
            |file| pmx::write_file(model, &options.pmx, file).map_err(write_error),
            io_error,
        );
    }
    let (bytes, report) = write_bytes(model, format, options).map_err(write_error)?;
    write_atomic(path, &bytes).map_err(io_error)?;
    Ok(report)
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
    path.extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| extension.eq_ignore_ascii_case("vrm"))
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
