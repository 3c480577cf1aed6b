//! Importing Metasequoia files as PMX models: `.mqo`, `.mqoz` (a zip holding the `.mqo` and
//! maybe its `.mqx`), and the `.mqx` bone/morph side file an `IncludeXml` line names.
//!
//! [`load_mqo_path`] reads the side file next to the `.mqo`; [`read_mqo`] has only the bytes
//! and reports the side file as unavailable; [`read_mqo_with_mqx`] takes both. Every importer
//! returns an [`MqoImport`]: the model (valid for the validator) and an [`MqoReport`] of what
//! was read past or changed, in English and Japanese. The conversion itself (axes, scale,
//! triangulation, normals, mirrors, lathes, bones, morphs) is in `to_model.rs`.

use super::document::MqoDocument;
use super::mqx::{MqxDocument, parse_mqx};
use super::parse::parse_document;
use super::report::{MqoError, MqoNote, MqoReport, MqxUnavailable};
/// The options live with the conversion that reads them; this is their public path too.
pub use super::to_model::MqoImportOptions;
use super::to_model::to_model;
use crate::formats::error::io_error_message;
use crate::i18n::Message;
use crate::model::Model;
use std::io::Read as _;
use std::path::Path;

/// Largest file taken out of a `.mqoz` archive (a zip bomb stops here).
pub const MAX_ARCHIVE_ENTRY_BYTES: u64 = 1 << 30;

/// An imported model with what the importer noticed.
#[derive(Debug, Clone, PartialEq)]
pub struct MqoImport {
    pub model: Model,
    pub report: MqoReport,
}

/// Whether `bytes` are a zip archive (a `.mqoz`).
#[must_use]
pub fn is_archive(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04")
}

/// Parses an `.mqo` (or `.mqoz`) into its document without converting it.
pub fn parse_mqo(
    bytes: &[u8],
    options: &MqoImportOptions,
) -> Result<(MqoDocument, MqoReport), MqoError> {
    let archive;
    let mqo = if is_archive(bytes) {
        archive = Archive::read(bytes)?;
        archive.mqo.as_slice()
    } else {
        bytes
    };
    let mut report = MqoReport {
        file_size: bytes.len(),
        notes: Vec::new(),
    };
    let document = parse_document(mqo, &options.limits, &mut report.notes)?;
    Ok((document, report))
}

/// Imports an `.mqo` or `.mqoz` from its bytes. An `IncludeXml` file is read from the archive
/// when it holds it; otherwise it is reported as unavailable (only a path can find it).
pub fn read_mqo(bytes: &[u8], options: &MqoImportOptions) -> Result<MqoImport, MqoError> {
    if is_archive(bytes) {
        let archive = Archive::read(bytes)?;
        return import(&archive.mqo, bytes.len(), options, None, |name| {
            archive
                .find(name)
                .map_or(Err(MqxUnavailable::BytesOnly), |data| Ok(data.to_vec()))
        });
    }
    import(bytes, bytes.len(), options, None, |_| {
        Err(MqxUnavailable::BytesOnly)
    })
}

/// Imports an `.mqo` with the bytes of its `.mqx` side file (used for every `IncludeXml`).
pub fn read_mqo_with_mqx(
    bytes: &[u8],
    mqx: &[u8],
    options: &MqoImportOptions,
) -> Result<MqoImport, MqoError> {
    import(bytes, bytes.len(), options, Some(mqx), |_| {
        Err(MqxUnavailable::BytesOnly)
    })
}

/// Opens an `.mqo` or `.mqoz` file and the `.mqx` its `IncludeXml` names (looked up in the
/// archive first, then next to the file). The model is named after the file.
pub fn load_mqo_path(path: &Path, options: &MqoImportOptions) -> Result<MqoImport, MqoError> {
    let bytes = std::fs::read(path).map_err(|error| MqoError::Io {
        path: path.to_owned(),
        message: io_error_message(&error),
    })?;
    let directory = path.parent().unwrap_or(Path::new("."));
    let beside = |name: &str| read_beside(directory, name);
    let mut result = if is_archive(&bytes) {
        let archive = Archive::read(&bytes)?;
        import(
            &archive.mqo,
            bytes.len(),
            options,
            None,
            |name| match archive.find(name) {
                Some(data) => Ok(data.to_vec()),
                None => beside(name),
            },
        )?
    } else {
        import(&bytes, bytes.len(), options, None, beside)?
    };
    if let Some(stem) = path.file_stem() {
        let name = stem.to_string_lossy().into_owned();
        result.model.info.name_ja = name.as_str().into();
        result.model.info.name_en = name.as_str().into();
    }
    Ok(result)
}

/// The side file `name` next to the MQO: as written (Windows separators allowed), else by its
/// file name alone, else by its file name in any letter case (Windows is case-insensitive).
fn read_beside(directory: &Path, name: &str) -> Result<Vec<u8>, MqxUnavailable> {
    let relative = name.replace('\\', "/");
    let file_name = relative.rsplit('/').next().unwrap_or(&relative).to_owned();
    let mut candidates = vec![directory.join(&relative), directory.join(&file_name)];
    if let Ok(entries) = std::fs::read_dir(directory) {
        candidates.extend(
            entries
                .filter_map(Result::ok)
                .filter(|entry| {
                    entry
                        .file_name()
                        .to_string_lossy()
                        .eq_ignore_ascii_case(&file_name)
                })
                .map(|entry| entry.path()),
        );
    }
    for candidate in candidates {
        match std::fs::read(&candidate) {
            Ok(bytes) => return Ok(bytes),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(MqxUnavailable::Unreadable(io_error_message(&error))),
        }
    }
    Err(MqxUnavailable::NotFound)
}

/// Parses, reads the side files, converts.
fn import(
    mqo: &[u8],
    file_size: usize,
    options: &MqoImportOptions,
    given_mqx: Option<&[u8]>,
    mut side_file: impl FnMut(&str) -> Result<Vec<u8>, MqxUnavailable>,
) -> Result<MqoImport, MqoError> {
    let mut report = MqoReport {
        file_size,
        notes: Vec::new(),
    };
    let document = parse_document(mqo, &options.limits, &mut report.notes)?;
    let mut mqx: Option<MqxDocument> = None;
    let mut merge = |name: &str, bytes: &[u8], notes: &mut Vec<MqoNote>| {
        match parse_mqx(bytes, name, notes) {
            Ok(parsed) => {
                let target = mqx.get_or_insert_with(MqxDocument::default);
                target.bones.extend(parsed.bones);
                target.bone_objects.extend(parsed.bone_objects);
                target.morphs.extend(parsed.morphs);
            }
            // A broken side file costs the bones and morphs, not the mesh.
            Err(error) => notes.push(MqoNote::MqxMissing {
                file: name.to_owned(),
                reason: MqxUnavailable::Unreadable(error.message()),
            }),
        }
    };
    match given_mqx {
        Some(bytes) => {
            let name = document
                .include_xml
                .first()
                .cloned()
                .unwrap_or_else(|| "MQX".to_owned());
            merge(&name, bytes, &mut report.notes);
        }
        None => {
            for name in &document.include_xml {
                match side_file(name) {
                    Ok(bytes) => merge(name, &bytes, &mut report.notes),
                    Err(reason) => report.notes.push(MqoNote::MqxMissing {
                        file: name.clone(),
                        reason,
                    }),
                }
            }
        }
    }
    let model = to_model(
        &document,
        mqx.as_ref(),
        options,
        file_size,
        &mut report.notes,
    )?;
    Ok(MqoImport { model, report })
}

/// An error reading the archive: the system's reason, or the damage the zip crate found
/// (a wrong checksum, a broken deflate stream) in its own words.
fn archive_io_message(error: &std::io::Error) -> Message {
    let message = io_error_message(error);
    if message.is_translated() {
        message
    } else {
        Message::new("load.mqo.archive_invalid").arg("detail", error.to_string())
    }
}

/// The files of a `.mqoz` the import needs: the first `.mqo` and every other file by name.
struct Archive {
    mqo: Vec<u8>,
    others: Vec<(String, Vec<u8>)>,
}

impl Archive {
    fn read(bytes: &[u8]) -> Result<Self, MqoError> {
        let archive_error = |error: zip::result::ZipError| MqoError::Archive {
            message: match error {
                zip::result::ZipError::Io(error) => archive_io_message(&error),
                // The zip crate's own words.
                other => Message::new("load.mqo.archive_invalid").arg("detail", other.to_string()),
            },
        };
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(archive_error)?;
        let mut mqo = None;
        let mut others = Vec::new();
        for index in 0..zip.len() {
            let mut entry = zip.by_index(index).map_err(archive_error)?;
            if entry.is_dir() {
                continue;
            }
            let name = entry.name().map_err(archive_error)?.into_owned();
            let lower = name.to_ascii_lowercase();
            let wanted_mqo = mqo.is_none() && lower.ends_with(".mqo");
            if !wanted_mqo && !lower.ends_with(".mqx") {
                continue;
            }
            let mut data = Vec::new();
            (&mut entry)
                .take(MAX_ARCHIVE_ENTRY_BYTES + 1)
                .read_to_end(&mut data)
                .map_err(|error| MqoError::Archive {
                    message: Message::new("file.error")
                        .arg("path", &name)
                        .arg("error", archive_io_message(&error)),
                })?;
            if data.len() as u64 > MAX_ARCHIVE_ENTRY_BYTES {
                return Err(MqoError::Archive {
                    message: Message::new("load.mqo.archive_entry_too_large")
                        .arg("name", name)
                        .arg("limit", MAX_ARCHIVE_ENTRY_BYTES),
                });
            }
            if wanted_mqo {
                mqo = Some(data);
            } else {
                others.push((name, data));
            }
        }
        let mqo = mqo.ok_or_else(|| MqoError::Archive {
            message: Message::new("load.mqo.archive_without_mqo"),
        })?;
        Ok(Self { mqo, others })
    }

    /// A file of the archive by name (its last path component, any letter case).
    fn find(&self, name: &str) -> Option<&[u8]> {
        let wanted = name.replace('\\', "/");
        let wanted = wanted.rsplit('/').next().unwrap_or(&wanted);
        self.others
            .iter()
            .find(|(entry, _)| {
                entry
                    .rsplit('/')
                    .next()
                    .is_some_and(|base| base.eq_ignore_ascii_case(wanted))
            })
            .map(|(_, data)| data.as_slice())
    }
}
