//! The format registry: every model format declared once, in [`FORMATS`]. A format's entry
//! says its name, every extension it is read from, what it can do ([`Abilities`]), how its
//! files are recognised by their first bytes, and its entry points: read, encode, write. Its
//! options are its field of [`LoadOptions`] (import) and of [`SaveOptions`] (export).
//!
//! Everything that lists formats takes the list from here: detection, `pmx-studio convert`,
//! the editor's File menu, its file dialogs, drag and drop and recent files; adding a format is
//! its folder, a [`FileFormat`] variant and one entry (and, in the editor, its dialog). The
//! registry does not know the editor: which dialog a format uses is the UI's own table.

use super::error::{FileError, LoadOptions, LoadReport, ReadError, SaveReport, WriteError};
use super::exports::{save_mqo, save_smf, save_vrm};
use super::files::{EmbeddedFile, atomic, write_atomic};
use super::{csv, json, mqo, pmd, pmx, smf, vrm};
use crate::i18n::Message;
use crate::model::Model;
use std::path::Path;

/// The formats a model can be read from or written to, in [`FORMATS`]' order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileFormat {
    Pmx,
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
    Json,
    /// PmxEditor's CSV text (`.csv`): a lossless document format like JSON, whose standard
    /// columns PmxEditor reads (see [`csv`]).
    Csv,
}

/// What a format can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abilities {
    /// Opened as the document: the model is the file's, and Save writes it back.
    pub open: bool,
    /// Save as writes the document in it.
    pub save: bool,
    /// Read as a conversion: the model it makes has no file of its own (File > Open imports
    /// it too), and File > Import may merge it into the open model.
    pub import: bool,
    /// Written as a copy with its own options (File > Export), the document left as it is.
    pub export: bool,
}

/// One format, declared once.
#[derive(Debug)]
pub struct FormatSpec {
    pub format: FileFormat,
    /// Lowercase, as `info --json` prints it (`"pmx"`).
    pub name: &'static str,
    /// What the user reads in a file dialog's filter.
    pub title: &'static str,
    /// Every extension read as this format, lowercase; the first is the one written.
    pub extensions: &'static [&'static str],
    /// Those of `extensions` that are read and never written (`.mqoz`).
    pub read_only_extensions: &'static [&'static str],
    pub abilities: Abilities,
    /// Writing it keeps every value of the model; otherwise its writer reports what the file
    /// could not hold.
    pub lossless: bool,
    /// A file of it that failed to read is offered again in recovery mode. MQO's errors name
    /// a line of text that no recovery reads past.
    pub offers_recovery: bool,
    /// Whether `bytes`, the start of the file at `path`, are this format by their content.
    /// [`FileFormat::detect`] asks the formats in [`FORMATS`]' order.
    pub looks_like: fn(path: &Path, bytes: &[u8]) -> bool,
    /// Reads a file's bytes; `path` is where they came from, for what lies beside it (an
    /// MQO's `.mqx`, a glTF's buffers) and what is named after it.
    pub read: fn(bytes: &[u8], path: Option<&Path>, options: &LoadOptions) -> ReadResult,
    /// The model as this format's bytes (for MQO the `.mqo` alone).
    pub encode: fn(model: &Model, options: &SaveOptions) -> EncodeResult,
    /// Writes the model's file (and any side file) at `path`, atomically, with the format's
    /// own report; `None`: the file is the encoded bytes.
    pub write: Option<fn(model: &Model, path: &Path, options: &SaveOptions) -> WriteResult>,
}

/// What a format's reader returns.
pub type ReadResult = Result<Loaded, ReadError>;
/// What a format's encoder returns.
pub type EncodeResult = Result<(Vec<u8>, SaveReport), WriteError>;
/// What a format's file writer returns.
pub type WriteResult = Result<WriteReport, FileError>;

/// A model read from disk, with what the reader noticed.
#[derive(Debug)]
pub struct Loaded {
    pub model: Model,
    pub report: LoadReport,
    pub format: FileFormat,
    /// Files the model names by a relative path whose bytes were inside the file read (a
    /// VRM's images): they belong beside the PMX it is saved as ([`super::write_embedded_files`]).
    pub embedded_files: Vec<EmbeddedFile>,
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

/// The MQO import options `options` ask for.
#[must_use]
pub fn mqo_import_options(options: &LoadOptions) -> mqo::MqoImportOptions {
    mqo::MqoImportOptions {
        limits: options.limits,
        ..options.mqo.unwrap_or_default()
    }
}

const DOCUMENT: Abilities = Abilities {
    open: true,
    save: true,
    import: false,
    export: false,
};

const CONVERSION: Abilities = Abilities {
    open: false,
    save: false,
    import: true,
    export: true,
};

/// Every format, in [`FileFormat`]'s order. The order is also the order in which content
/// decides ([`FileFormat::detect`]: a text glTF before this editor's JSON) and in which
/// formats are listed.
pub static FORMATS: [FormatSpec; 7] = [
    FormatSpec {
        format: FileFormat::Pmx,
        name: "pmx",
        title: "PMX",
        extensions: &["pmx"],
        read_only_extensions: &[],
        abilities: DOCUMENT,
        lossless: true,
        offers_recovery: true,
        // 2.x, and 1.0 (for the reader's own refusal).
        looks_like: |_, bytes| bytes.starts_with(pmx::MAGIC) || bytes.starts_with(b"Pmx "),
        read: |bytes, _, options| pmx::read(bytes, options).map(loaded(FileFormat::Pmx)),
        encode: |model, options| pmx::write(model, &options.pmx),
        write: Some(write_pmx),
    },
    FormatSpec {
        format: FileFormat::Pmd,
        name: "pmd",
        title: "PMD",
        extensions: &["pmd"],
        read_only_extensions: &[],
        abilities: DOCUMENT,
        lossless: false,
        offers_recovery: true,
        looks_like: |_, bytes| bytes.starts_with(pmd::MAGIC),
        read: |bytes, _, options| pmd::read(bytes, options).map(loaded(FileFormat::Pmd)),
        encode: |model, _| {
            pmd::write(model).map(|(bytes, report)| {
                let warnings = report.losses.iter().map(pmd::PmdLoss::to_message).collect();
                (bytes, SaveReport { warnings })
            })
        },
        write: Some(write_pmd),
    },
    FormatSpec {
        format: FileFormat::Mqo,
        name: "mqo",
        title: "Metasequoia",
        extensions: &["mqo", "mqoz"],
        read_only_extensions: &["mqoz"],
        abilities: CONVERSION,
        lossless: false,
        offers_recovery: false,
        looks_like: |_, bytes| bytes.starts_with(b"Metasequoia Document"),
        read: read_mqo,
        // The MQO alone: `write` also writes the `.mqx` side file.
        encode: |model, options| {
            mqo::write_mqo(model, &options.mqo)
                .map(|export| (export.mqo, export.report.to_save_report()))
        },
        write: Some(|model, path, options| {
            save_mqo(model, path, &options.mqo).map(|export| WriteReport::Mqo {
                mqx_file: export.mqx.map(|(name, _)| name),
                report: export.report,
            })
        }),
    },
    FormatSpec {
        format: FileFormat::Smf,
        name: "smf",
        title: "Selene SMF",
        extensions: &["smf"],
        read_only_extensions: &[],
        abilities: CONVERSION,
        lossless: false,
        offers_recovery: true,
        // The `SMF` header chunk must come first (the loader refuses anything else); its ID
        // is stored as the little-endian multi-character constant, `46 4D 53 00`.
        looks_like: |_, bytes| bytes.starts_with(&smf::id::SMF.to_bytes()),
        read: |bytes, _, options| smf::read_smf(bytes, options).map(loaded(FileFormat::Smf)),
        encode: |model, options| {
            smf::write_smf(model, &options.smf)
                .map(|export| (export.bytes, export.report.to_save_report()))
        },
        write: Some(|model, path, options| {
            save_smf(model, path, &options.smf).map(|export| WriteReport::Smf(export.report))
        }),
    },
    FormatSpec {
        format: FileFormat::Vrm,
        name: "vrm",
        title: "VRM / glTF",
        extensions: &["vrm", "glb", "gltf"],
        read_only_extensions: &[],
        abilities: CONVERSION,
        lossless: false,
        offers_recovery: true,
        // A text glTF is JSON too: it is told from this editor's JSON form by its name.
        looks_like: |path, bytes| {
            vrm::import::is_glb(bytes)
                || (starts_json(bytes) && FileFormat::from_extension(path) == Some(FileFormat::Vrm))
        },
        read: read_vrm,
        encode: |model, options| {
            vrm::write_vrm(model, &options.vrm)
                .map(|export| (export.vrm, export.report.to_save_report()))
        },
        write: Some(|model, path, options| {
            save_vrm(model, path, &options.vrm).map(WriteReport::Vrm)
        }),
    },
    FormatSpec {
        format: FileFormat::Json,
        name: "json",
        title: "JSON",
        extensions: &["json"],
        read_only_extensions: &[],
        abilities: DOCUMENT,
        lossless: true,
        offers_recovery: true,
        looks_like: |_, bytes| starts_json(bytes),
        read: |bytes, _, _| json::read(bytes).map(loaded(FileFormat::Json)),
        encode: |model, _| json::write(model).map(|bytes| (bytes, SaveReport::default())),
        write: None,
    },
    FormatSpec {
        format: FileFormat::Csv,
        name: "csv",
        title: "PmxEditor CSV",
        extensions: &["csv"],
        read_only_extensions: &[],
        // A document format that File > Export also writes as a copy.
        abilities: Abilities {
            export: true,
            ..DOCUMENT
        },
        lossless: true,
        offers_recovery: true,
        looks_like: |_, bytes| csv::looks_like_csv(bytes),
        read: |bytes, _, _| csv::read(bytes).map(loaded(FileFormat::Csv)),
        encode: |model, options| {
            csv::write_bytes(model, &options.csv).map(|bytes| (bytes, SaveReport::default()))
        },
        write: None,
    },
];

// Every format has its entry, at its own place: `FileFormat::spec` indexes by the variant.
const _: () = {
    let mut index = 0;
    while index < FORMATS.len() {
        assert!(FORMATS[index].format as usize == index);
        index += 1;
    }
};

impl FileFormat {
    /// This format's entry in the registry.
    #[must_use]
    pub fn spec(self) -> &'static FormatSpec {
        &FORMATS[self as usize]
    }

    /// The lowercase name used in `info --json` (`"pmx"`).
    #[must_use]
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The format a path's extension names, if any.
    #[must_use]
    pub fn from_extension(path: &Path) -> Option<Self> {
        FORMATS
            .iter()
            .find(|spec| spec.reads_extension(path))
            .map(|spec| spec.format)
    }

    /// The format of `bytes`, by their content first and the path's extension second.
    #[must_use]
    pub fn detect(path: &Path, bytes: &[u8]) -> Option<Self> {
        FORMATS
            .iter()
            .find(|spec| (spec.looks_like)(path, bytes))
            .map(|spec| spec.format)
            .or_else(|| Self::from_extension(path))
    }
}

impl FormatSpec {
    /// The extension a file of this format is written with (`mqo`).
    #[must_use]
    pub fn extension(&self) -> &'static str {
        self.extensions.first().copied().unwrap_or(self.name)
    }

    /// Whether `path`'s extension is one this format is read from (any case).
    #[must_use]
    pub fn reads_extension(&self, path: &Path) -> bool {
        self.extensions
            .iter()
            .any(|extension| has_extension(path, extension))
    }

    /// Whether `path`'s extension is one this format is written with: read, and not read
    /// only.
    #[must_use]
    pub fn writes_extension(&self, path: &Path) -> bool {
        self.reads_extension(path)
            && !self
                .read_only_extensions
                .iter()
                .any(|extension| has_extension(path, extension))
    }

    /// Whether the model read is a conversion (the file is not the document's own).
    #[must_use]
    pub fn converts(&self) -> bool {
        self.abilities.import
    }
}

/// Whether `path`'s extension is `extension`, in any case.
#[must_use]
pub fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension()
        .and_then(|found| found.to_str())
        .is_some_and(|found| found.eq_ignore_ascii_case(extension))
}

/// Every extension a model is read from, as error messages list them: `.pmx, .pmd, … or .csv`.
#[must_use]
pub fn expected_extensions() -> String {
    let all: Vec<String> = FORMATS
        .iter()
        .flat_map(|spec| spec.extensions)
        .map(|extension| format!(".{extension}"))
        .collect();
    match all.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Whether `bytes` are JSON text: an object first, after any white space.
fn starts_json(bytes: &[u8]) -> bool {
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// A reader's model and report as a [`Loaded`] of `format` (no embedded files).
fn loaded(format: FileFormat) -> impl Fn((Model, LoadReport)) -> Loaded {
    move |(model, report)| Loaded {
        model,
        report,
        format,
        embedded_files: Vec::new(),
    }
}

fn read_mqo(bytes: &[u8], path: Option<&Path>, options: &LoadOptions) -> ReadResult {
    let import_options = mqo_import_options(options);
    // From the path: the `.mqx` side file is looked up next to it.
    let imported = match path {
        Some(path) => mqo::load_mqo_path(path, &import_options)?,
        None => mqo::read_mqo(bytes, &import_options)?,
    };
    Ok(Loaded {
        model: imported.model,
        report: imported.report.to_load_report(),
        format: FileFormat::Mqo,
        embedded_files: Vec::new(),
    })
}

fn read_vrm(bytes: &[u8], path: Option<&Path>, options: &LoadOptions) -> ReadResult {
    // From the path: a `.gltf` keeps its buffers and images in files beside it.
    let imported = match path {
        Some(path) => vrm::import::read_vrm_file(bytes, path, options)?,
        None => vrm::read_vrm(bytes, options)?,
    };
    Ok(Loaded {
        model: imported.model,
        report: imported.report,
        format: FileFormat::Vrm,
        embedded_files: imported.textures,
    })
}

/// PMX straight into the temporary file: a big model is never a second time in memory.
fn write_pmx(model: &Model, path: &Path, options: &SaveOptions) -> WriteResult {
    atomic(
        path,
        |file| pmx::write_file(model, &options.pmx, file).map_err(FileError::write(path)),
        FileError::io(path),
    )
    .map(WriteReport::Saved)
}

/// A PMD file, and beside it the copies of the sphere maps it names under the extension MMD
/// reads their mode from ([`pmd::spheres`]), each written atomically after the file. A copy
/// that cannot be written is a warning: the file names an image that is not there.
fn write_pmd(model: &Model, path: &Path, _options: &SaveOptions) -> WriteResult {
    let dir = super::folder_of(path);
    let (spheres, copies) = pmd::spheres::plan_copies(model, dir);
    let (bytes, report) =
        pmd::write_with_spheres(model, &spheres).map_err(FileError::write(path))?;
    write_atomic(path, &bytes).map_err(FileError::io(path))?;
    let mut warnings: Vec<Message> = report.losses.iter().map(pmd::PmdLoss::to_message).collect();
    for copy in &copies {
        let target = dir.join(copy.written.replace('\\', "/"));
        let written = target
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| write_atomic(&target, &copy.bytes));
        if let Err(error) = written {
            warnings.push(
                Message::new("save.pmd_sphere_copy_failed")
                    .arg("written", copy.written.as_str())
                    .arg("original", copy.original.as_str())
                    .arg("error", error.to_string()),
            );
        }
    }
    Ok(WriteReport::Saved(SaveReport { warnings }))
}

impl FormatSpec {
    /// Writes `model` at `path` in this format, atomically: with the format's own writer, or
    /// its encoded bytes.
    pub fn write_file(&self, model: &Model, path: &Path, options: &SaveOptions) -> WriteResult {
        if let Some(write) = self.write {
            return write(model, path, options);
        }
        let (bytes, report) = (self.encode)(model, options).map_err(FileError::write(path))?;
        write_atomic(path, &bytes).map_err(FileError::io(path))?;
        Ok(WriteReport::Saved(report))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_is_registered_once_with_its_extensions() {
        for (index, spec) in FORMATS.iter().enumerate() {
            assert_eq!(spec.format as usize, index);
            assert_eq!(spec.format.spec().name, spec.name);
            assert!(
                spec.abilities.open || spec.abilities.import,
                "{} is read",
                spec.name
            );
            assert!(
                spec.abilities.save || spec.abilities.export,
                "{} is written",
                spec.name
            );
            for extension in spec.extensions {
                let path = Path::new("model").with_extension(extension.to_uppercase());
                assert_eq!(FileFormat::from_extension(&path), Some(spec.format));
            }
            assert!(
                spec.read_only_extensions
                    .iter()
                    .all(|extension| spec.extensions.contains(extension))
            );
            assert!(spec.writes_extension(&Path::new("m").with_extension(spec.extension())));
        }
        assert!(!FileFormat::Mqo.spec().writes_extension(Path::new("m.mqoz")));
    }

    #[test]
    fn the_extension_list_reads_as_before() {
        assert_eq!(
            expected_extensions(),
            ".pmx, .pmd, .mqo, .mqoz, .smf, .vrm, .glb, .gltf, .json or .csv"
        );
        // The error's text lists them as the registry does.
        let error = FileError::UnknownFormat {
            path: "model.txt".into(),
        };
        assert_eq!(
            error.to_string(),
            "model.txt: unknown file format (expected .pmx, .pmd, .mqo, .mqoz, .smf, .vrm, \
             .glb, .gltf, .json or .csv)"
        );
    }

    #[test]
    fn content_decides_before_the_name() {
        let cases: [(&str, &[u8], Option<FileFormat>); 9] = [
            ("model.bin", b"PMX \0\0", Some(FileFormat::Pmx)),
            ("model.bin", b"Pmd\0", Some(FileFormat::Pmd)),
            (
                "model.bin",
                b"Metasequoia Document\r\n",
                Some(FileFormat::Mqo),
            ),
            ("model.bin", b"glTF\x02\0\0\0", Some(FileFormat::Vrm)),
            ("model.bin", b" {\"a\":1}", Some(FileFormat::Json)),
            // A text glTF is JSON told by its name.
            ("avatar.gltf", b"{\"asset\":{}}", Some(FileFormat::Vrm)),
            ("model.bin", b";PmxHeader,x", Some(FileFormat::Csv)),
            ("a.pmd", b"", Some(FileFormat::Pmd)),
            ("model.bin", b"nothing", None),
        ];
        for (name, bytes, expected) in cases {
            assert_eq!(
                FileFormat::detect(Path::new(name), bytes),
                expected,
                "{name}"
            );
        }
    }
}
