//! What the MQO importer refuses ([`MqoError`]) and what it read past or changed
//! ([`MqoReport`]), each in English and Japanese.

use crate::formats::{LoadNote, LoadReport, Location, ReadError};
use crate::i18n::{Language, Message};
use std::fmt;
use std::path::PathBuf;

/// Why an MQO file (or its `.mqoz` archive, or its `.mqx` side file) could not be imported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MqoError {
    /// The text does not follow the format.
    #[error("MQO line {line}, column {column} ({section}): {message}")]
    Syntax {
        line: usize,
        column: usize,
        /// Where the parser was: `header`, `Material`, `Object "body" / face`, ...
        section: String,
        message: Message,
    },
    /// A valid file of a kind this importer does not read (`Format Compress`, version 2.x).
    #[error("MQO line {line}: {message}")]
    Unsupported { line: usize, message: Message },
    /// The file was saved by an unregistered Metasequoia 1.0 (a `TrialNoise` chunk).
    #[error(
        "MQO line {line}: TrialNoise chunk: the file was saved by an unregistered Metasequoia 1.0 \
         and its data is scrambled; reading stops here, as the MQO specification requires \
         (continuing would give only broken data)"
    )]
    TrialNoise { line: usize },
    /// The file asks for more than the limits allow (counts, generated geometry).
    #[error("MQO line {line}: limit exceeded: {message}")]
    LimitExceeded { line: usize, message: Message },
    /// The `.mqx` side file is not well-formed XML or holds impossible values.
    #[error("MQX {file} line {line}, column {column}: {message}")]
    Mqx {
        file: String,
        line: usize,
        column: usize,
        message: Message,
    },
    /// The `.mqoz` archive cannot be read or holds no `.mqo`.
    #[error("MQOZ archive: {message}")]
    Archive { message: Message },
    /// The options cannot be used (a scale of zero).
    #[error("MQO import options: {message}")]
    Options { message: Message },
    /// The file cannot be read (`message`: the system's reason).
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: Message },
}

impl MqoError {
    /// The error as a message of `resources/i18n` (keys `load.mqo.error.*`, the detail inside
    /// it `load.mqo.*`).
    #[must_use]
    pub fn message(&self) -> Message {
        match self {
            MqoError::Syntax {
                line,
                column,
                section,
                message,
            } => Message::new("load.mqo.error.syntax")
                .arg("line", *line)
                .arg("column", *column)
                .arg("section", section)
                .arg("message", message.clone()),
            MqoError::Unsupported { line, message } => Message::new("load.mqo.error.unsupported")
                .arg("line", *line)
                .arg("message", message.clone()),
            MqoError::TrialNoise { line } => {
                Message::new("load.mqo.error.trial_noise").arg("line", *line)
            }
            MqoError::LimitExceeded { line, message } => Message::new("load.mqo.error.limit")
                .arg("line", *line)
                .arg("message", message.clone()),
            MqoError::Mqx {
                file,
                line,
                column,
                message,
            } => Message::new("load.mqo.error.mqx")
                .arg("file", file)
                .arg("line", *line)
                .arg("column", *column)
                .arg("message", message.clone()),
            MqoError::Archive { message } => {
                Message::new("load.mqo.error.archive").arg("message", message.clone())
            }
            MqoError::Options { message } => {
                Message::new("load.mqo.error.options").arg("message", message.clone())
            }
            MqoError::Io { path, message } => Message::new("file.error")
                .arg("path", path.display().to_string())
                .arg("error", message.clone()),
        }
    }

    /// The message in Japanese.
    #[must_use]
    pub fn message_ja(&self) -> String {
        self.message().render(Language::Japanese)
    }

    /// The 1-based MQO line the error is on, when there is one.
    #[must_use]
    pub fn line(&self) -> Option<usize> {
        match self {
            MqoError::Syntax { line, .. }
            | MqoError::Unsupported { line, .. }
            | MqoError::TrialNoise { line }
            | MqoError::LimitExceeded { line, .. } => Some(*line),
            MqoError::Mqx { .. }
            | MqoError::Archive { .. }
            | MqoError::Options { .. }
            | MqoError::Io { .. } => None,
        }
    }
}

impl From<MqoError> for ReadError {
    /// The error as the other readers report theirs (the app's load error dialog).
    fn from(error: MqoError) -> Self {
        let location = |line: usize| Location::text_line((line > 0).then_some(line));
        match error {
            MqoError::Syntax {
                line,
                column,
                ref section,
                ref message,
            } => ReadError::Parse {
                format: "MQO",
                line,
                column,
                message: Message::new("load.mqo.error.parse_detail")
                    .arg("section", section)
                    .arg("message", message.clone()),
            },
            MqoError::Unsupported { line, .. } | MqoError::TrialNoise { line } => {
                ReadError::Unsupported {
                    location: location(line),
                    message: error.message(),
                }
            }
            MqoError::LimitExceeded { line, .. } => ReadError::LimitExceeded {
                location: location(line),
                message: error.message(),
            },
            MqoError::Mqx {
                line,
                column,
                ref file,
                ref message,
            } => ReadError::Parse {
                format: "MQX",
                line,
                column,
                message: Message::new("load.mqo.error.parse_detail")
                    .arg("section", file)
                    .arg("message", message.clone()),
            },
            MqoError::Archive { .. } | MqoError::Options { .. } | MqoError::Io { .. } => {
                ReadError::Malformed {
                    location: location(0),
                    message: error.message(),
                }
            }
        }
    }
}

/// Why the bones and morphs of an `IncludeXml` side file were not imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MqxUnavailable {
    /// Only the MQO's bytes were given (`read_mqo`), so files next to it cannot be read.
    BytesOnly,
    /// No such file next to the MQO (or in its `.mqoz`).
    NotFound,
    /// The file exists but could not be read (the reason).
    Unreadable(Message),
}

/// Something the importer read past, changed or could not carry over.
#[derive(Debug, Clone, PartialEq)]
pub enum MqoNote {
    /// A chunk the importer does not use (Scene, BackImage, Blob, Thumbnail, MaterialEx2, ...).
    SkippedChunk {
        name: String,
        /// The object it is in, for a chunk inside an object.
        object: Option<String>,
        line: usize,
    },
    /// A statement or attribute the importer does not know (`where_` says in what:
    /// `load.mqo.where.*`).
    UnknownAttribute {
        name: String,
        where_: Message,
        line: usize,
    },
    /// A `CodePage` the importer does not know; names were read as cp932.
    UnknownCodePage { value: String, line: usize },
    /// `Ver 1.x` newer than 1.1: read with the 1.1 rules.
    NewerMinorVersion { version: String },
    /// A hidden object (`visible 0`), imported or left out.
    HiddenObject { name: String, imported: bool },
    /// Faces with two corners (lines) that PMX cannot draw.
    SkippedLines { object: String, count: usize },
    /// Faces whose corners collapse to fewer than three distinct vertices.
    DegenerateFaces { object: String, count: usize },
    /// A subdivision surface, imported as its control mesh.
    Patch {
        object: String,
        patch: u32,
        segment: u32,
    },
    /// The object's mirror was applied (`welded`: vertices joined on the mirror planes).
    MirrorApplied {
        object: String,
        axes: u8,
        connected: bool,
        welded: usize,
    },
    /// The object's lathe was applied.
    LatheApplied {
        object: String,
        axis: u32,
        segments: u32,
        lathe: u32,
    },
    /// An `IncludeXml` file that was not read: no bones or morphs came from it.
    MqxMissing {
        file: String,
        reason: MqxUnavailable,
    },
    /// The model has no bone data: one root bone holds every vertex.
    RootBoneAdded { name: String, vertices: usize },
    /// Vertex weights that name an object or vertex that does not exist.
    DanglingWeights { bone: String, count: usize },
    /// Bones whose `parent` names no bone (made root bones) or that would close a cycle.
    BadBoneParent { bone: String, parent: u32 },
    /// Bones with the same `id`: the later ones were dropped.
    DuplicateBoneId { bone: String, id: u32 },
    /// Vertices with more than four bones: the four largest weights were kept and renormalised.
    WeightsTruncated { vertices: usize },
    /// MQX IK chains, which PMX expresses with separate IK bones, were not converted.
    IkNotConverted { bones: usize },
    /// The old Metasequoia 3 `BoneSet` (not `BoneSet2`) was not read.
    OldBoneSet,
    /// MQX plugin data the importer does not read.
    SkippedPlugin { name: String },
    /// Mirrored copies of a weighted or morphed object take the original's weights.
    MirrorKeepsWeights { object: String },
    /// A morph target object that is missing or has another vertex count than its base.
    MorphTargetMismatch { base: String, target: String },
    /// A face material index that names no material: the default material was used.
    MissingMaterial { object: String, count: usize },
    /// Material maps PMX cannot hold (`aplane`, `bump`) or a projection other than UV.
    MaterialMapDropped {
        material: String,
        kind: &'static str,
        value: String,
    },
    /// MQO materials no imported face uses; they were not made into PMX materials.
    UnusedMaterials { count: usize },
    /// Faces without a material got the added default material.
    DefaultMaterial { faces: usize },
    /// Vertex colours were kept as PMX 2.1 vertex colours (additional UV 1).
    VertexColorsKept { materials: usize },
    /// The file has vertex colours, but the target is PMX 2.0, which has none.
    VertexColorsDropped,
    /// A face with more corners than the ear clipper takes was fan-triangulated.
    HugeFace { object: String, corners: usize },
}

impl MqoNote {
    /// The note as a message of `resources/i18n` (keys `load.mqo.*`).
    #[must_use]
    pub fn message(&self) -> Message {
        match self {
            MqoNote::SkippedChunk { name, object, line } => match object {
                None => Message::new("load.mqo.skipped_chunk"),
                Some(object) => Message::new("load.mqo.skipped_object_chunk").arg("object", object),
            }
            .arg("name", name)
            .arg("line", *line),
            MqoNote::UnknownAttribute { name, where_, line } => {
                Message::new("load.mqo.unknown_attribute")
                    .arg("where", where_.clone())
                    .arg("name", name)
                    .arg("line", *line)
            }
            MqoNote::UnknownCodePage { value, line } => Message::new("load.mqo.unknown_code_page")
                .arg("value", value)
                .arg("line", *line),
            MqoNote::NewerMinorVersion { version } => {
                Message::new("load.mqo.newer_minor_version").arg("version", version)
            }
            MqoNote::HiddenObject { name, imported } => Message::new(if *imported {
                "load.mqo.hidden_object_imported"
            } else {
                "load.mqo.hidden_object_left_out"
            })
            .arg("name", name),
            MqoNote::SkippedLines { object, count } => Message::new("load.mqo.skipped_lines")
                .arg("object", object)
                .arg("count", *count),
            MqoNote::DegenerateFaces { object, count } => Message::new("load.mqo.degenerate_faces")
                .arg("object", object)
                .arg("count", *count),
            MqoNote::Patch {
                object,
                patch,
                segment,
            } => Message::new("load.mqo.patch")
                .arg("object", object)
                .arg("patch", patch_name(*patch))
                .arg("segment", *segment),
            MqoNote::MirrorApplied {
                object,
                axes,
                connected,
                welded,
            } => {
                let message = if *connected {
                    Message::new("load.mqo.mirror_connected").arg("welded", *welded)
                } else {
                    Message::new("load.mqo.mirror_separate")
                };
                message.arg("object", object).arg("axes", axes_name(*axes))
            }
            MqoNote::LatheApplied {
                object,
                axis,
                segments,
                lathe,
            } => {
                let message = if *lathe == 3 {
                    Message::new("load.mqo.lathe")
                } else {
                    Message::new("load.mqo.lathe_other_type").arg("lathe", *lathe)
                };
                message
                    .arg("object", object)
                    .arg("axis", axis_name(*axis))
                    .arg("segments", *segments)
            }
            MqoNote::MqxMissing { file, reason } => match reason {
                MqxUnavailable::BytesOnly => Message::new("load.mqo.mqx_bytes_only"),
                MqxUnavailable::NotFound => Message::new("load.mqo.mqx_not_found"),
                MqxUnavailable::Unreadable(error) => {
                    Message::new("load.mqo.mqx_unreadable").arg("error", error.clone())
                }
            }
            .arg("file", file),
            MqoNote::RootBoneAdded { name, vertices } => Message::new("load.mqo.root_bone_added")
                .arg("name", name)
                .arg("vertices", *vertices),
            MqoNote::DanglingWeights { bone, count } => Message::new("load.mqo.dangling_weights")
                .arg("bone", bone)
                .arg("count", *count),
            MqoNote::BadBoneParent { bone, parent } => Message::new("load.mqo.bad_bone_parent")
                .arg("bone", bone)
                .arg("parent", *parent),
            MqoNote::DuplicateBoneId { bone, id } => Message::new("load.mqo.duplicate_bone_id")
                .arg("bone", bone)
                .arg("id", *id),
            MqoNote::WeightsTruncated { vertices } => {
                Message::new("load.mqo.weights_truncated").arg("vertices", *vertices)
            }
            MqoNote::IkNotConverted { bones } => {
                Message::new("load.mqo.ik_not_converted").arg("bones", *bones)
            }
            MqoNote::OldBoneSet => Message::new("load.mqo.old_bone_set"),
            MqoNote::SkippedPlugin { name } => {
                Message::new("load.mqo.skipped_plugin").arg("name", name)
            }
            MqoNote::MirrorKeepsWeights { object } => {
                Message::new("load.mqo.mirror_keeps_weights").arg("object", object)
            }
            MqoNote::MorphTargetMismatch { base, target } => {
                Message::new("load.mqo.morph_target_mismatch")
                    .arg("base", base)
                    .arg("target", target)
            }
            MqoNote::MissingMaterial { object, count } => Message::new("load.mqo.missing_material")
                .arg("object", object)
                .arg("count", *count),
            MqoNote::MaterialMapDropped {
                material,
                kind,
                value,
            } => Message::new("load.mqo.material_map_dropped")
                .arg("material", material)
                .arg("kind", *kind)
                .arg("value", value),
            MqoNote::UnusedMaterials { count } => {
                Message::new("load.mqo.unused_materials").arg("count", *count)
            }
            MqoNote::DefaultMaterial { faces } => {
                Message::new("load.mqo.default_material").arg("faces", *faces)
            }
            MqoNote::VertexColorsKept { materials } => {
                Message::new("load.mqo.vertex_colors_kept").arg("materials", *materials)
            }
            MqoNote::VertexColorsDropped => Message::new("load.mqo.vertex_colors_dropped"),
            MqoNote::HugeFace { object, corners } => Message::new("load.mqo.huge_face")
                .arg("object", object)
                .arg("corners", *corners),
        }
    }

    /// The note in English.
    #[must_use]
    pub fn message_en(&self) -> String {
        self.message().render(Language::English)
    }

    /// The note in Japanese.
    #[must_use]
    pub fn message_ja(&self) -> String {
        self.message().render(Language::Japanese)
    }

    /// The 1-based MQO line the note is about, when it has one.
    #[must_use]
    pub fn line(&self) -> Option<usize> {
        match self {
            MqoNote::SkippedChunk { line, .. }
            | MqoNote::UnknownAttribute { line, .. }
            | MqoNote::UnknownCodePage { line, .. } => Some(*line),
            _ => None,
        }
    }
}

impl fmt::Display for MqoNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message_en())
    }
}

fn axis_name(axis: u32) -> &'static str {
    match axis {
        0 => "X",
        1 => "Y",
        _ => "Z",
    }
}

fn axes_name(axes: u8) -> String {
    let names: Vec<&str> = [(1, "X"), (2, "Y"), (4, "Z")]
        .into_iter()
        .filter(|(bit, _)| axes & bit != 0)
        .map(|(_, name)| name)
        .collect();
    names.join("+")
}

/// The kind of subdivision surface, a word of the resources.
fn patch_name(patch: u32) -> Message {
    match patch {
        1 => Message::new("load.mqo.patch_spline1"),
        2 => Message::new("load.mqo.patch_spline2"),
        3 => Message::new("load.mqo.patch_catmull_clark"),
        4 => Message::new("load.mqo.patch_opensubdiv"),
        other => Message::new("load.mqo.patch_other").arg("patch", other),
    }
}

/// What an MQO import reports besides the model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MqoReport {
    /// The MQO's size in bytes.
    pub file_size: usize,
    pub notes: Vec<MqoNote>,
}

impl MqoReport {
    /// The chunks that were skipped, by name.
    pub fn skipped_chunks(&self) -> impl Iterator<Item = &str> {
        self.notes.iter().filter_map(|note| match note {
            MqoNote::SkippedChunk { name, .. } => Some(name.as_str()),
            _ => None,
        })
    }

    /// The hidden objects, by name.
    pub fn hidden_objects(&self) -> impl Iterator<Item = &str> {
        self.notes.iter().filter_map(|note| match note {
            MqoNote::HiddenObject { name, .. } => Some(name.as_str()),
            _ => None,
        })
    }

    /// Two-corner faces (lines) skipped, over all objects.
    #[must_use]
    pub fn skipped_lines(&self) -> usize {
        self.notes
            .iter()
            .map(|note| match note {
                MqoNote::SkippedLines { count, .. } => *count,
                _ => 0,
            })
            .sum()
    }

    /// Whether an `IncludeXml` file could not be read.
    #[must_use]
    pub fn mqx_missing(&self) -> bool {
        self.notes
            .iter()
            .any(|note| matches!(note, MqoNote::MqxMissing { .. }))
    }

    /// The report as the other readers give theirs (the app's load report): one note per
    /// item, in English, none of them marking lost data (the model is complete and valid; the
    /// notes say what MQO content PMX has no place for).
    #[must_use]
    pub fn to_load_report(&self) -> LoadReport {
        LoadReport {
            recovered_from: None,
            notes: self
                .notes
                .iter()
                .map(|note| LoadNote {
                    location: Location::text_line(note.line()),
                    message: note.message(),
                    lost: false,
                })
                .collect(),
            file_size: self.file_size,
            face_index_count: None,
        }
    }
}
