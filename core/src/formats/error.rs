//! Errors and reports shared by the format readers and writers.

use crate::i18n::{Language, Message};
use std::fmt;
use std::path::PathBuf;

/// Where in a file something was found: section, element, sub-element, field and byte offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The section (`header`, `vertices`, `bones`, ...).
    pub section: &'static str,
    /// The element index inside the section.
    pub element: Option<usize>,
    /// A list inside the element and the index in it (`ik.links`, 3).
    pub sub: Option<(&'static str, usize)>,
    /// The field being read (`weight.bones[1]`, `name_ja`, `count`).
    pub field: &'static str,
    /// Byte offset from the start of the file.
    pub offset: usize,
}

impl Location {
    /// The section of a place in a text format, whose `element` is the 1-based line.
    pub const TEXT_LINE: &'static str = "line";

    /// A line of a text file (MQO), or the whole file for `None`.
    #[must_use]
    pub fn text_line(line: Option<usize>) -> Self {
        Self {
            section: Self::TEXT_LINE,
            element: line,
            sub: None,
            field: "",
            offset: 0,
        }
    }

    /// Whether this is a line of a text file rather than a byte of a binary one.
    #[must_use]
    pub fn is_text_line(&self) -> bool {
        self.section == Self::TEXT_LINE
    }

    /// The element path, e.g. `bones[12].ik.links[3].bone`.
    #[must_use]
    pub fn path(&self) -> String {
        let mut path = self.section.to_owned();
        if let Some(element) = self.element {
            path.push_str(&format!("[{element}]"));
        }
        if let Some((list, index)) = self.sub {
            path.push_str(&format!(".{list}[{index}]"));
        }
        if !self.field.is_empty() {
            path.push('.');
            path.push_str(self.field);
        }
        path
    }
}

impl Location {
    /// Where this is, as a message ("bones[12].name at byte 40 (0x28)" / "bones[12].name（40
    /// バイト目、0x28）"; "line 5" / "5行目").
    #[must_use]
    pub fn to_message(&self) -> Message {
        if self.is_text_line() {
            return match self.element {
                Some(line) => Message::new("load.at_line").arg("line", line),
                None => Message::new("load.at_whole_file"),
            };
        }
        Message::new("load.at_byte")
            .arg("path", self.path())
            .arg("offset", self.offset)
            .arg("hex", format!("{:x}", self.offset))
    }

    /// Where this is, in `lang`.
    #[must_use]
    pub fn render(&self, lang: Language) -> String {
        self.to_message().render(lang)
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_text_line() {
            return match self.element {
                Some(line) => write!(f, "line {line}"),
                None => write!(f, "the file"),
            };
        }
        write!(
            f,
            "{} at byte {} (0x{:x})",
            self.path(),
            self.offset,
            self.offset
        )
    }
}

/// Why a file could not be read. Malformed, unsupported and limit-exceeded are kept apart.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The bytes do not follow the format (truncation, impossible counts, bad structure bytes).
    #[error("malformed file: {location}: {message}")]
    Malformed {
        location: Location,
        message: Message,
    },
    /// A valid file of a version or variant this editor does not read.
    #[error("unsupported file: {location}: {message}")]
    Unsupported {
        location: Location,
        message: Message,
    },
    /// The file asks for more than `LoadLimits` allows.
    #[error("limit exceeded: {location}: {message}")]
    LimitExceeded {
        location: Location,
        message: Message,
    },
    /// The file could not be read from the disk at this place (its bytes were not the
    /// problem).
    #[error("cannot read the file: {location}: {message}")]
    Io {
        location: Location,
        message: Message,
    },
    /// Text formats (JSON) that failed to parse.
    #[error("{format} parse error at line {line}, column {column}: {message}")]
    Parse {
        format: &'static str,
        line: usize,
        column: usize,
        /// The parser's own words (serde_json's), as it gives them.
        message: String,
    },
}

impl ReadError {
    /// The location in the file, when the format has byte offsets.
    #[must_use]
    pub fn location(&self) -> Option<&Location> {
        match self {
            ReadError::Malformed { location, .. }
            | ReadError::Unsupported { location, .. }
            | ReadError::LimitExceeded { location, .. }
            | ReadError::Io { location, .. } => Some(location),
            ReadError::Parse { .. } => None,
        }
    }

    /// The message without its location.
    #[must_use]
    pub fn message(&self) -> Message {
        match self {
            ReadError::Malformed { message, .. }
            | ReadError::Unsupported { message, .. }
            | ReadError::LimitExceeded { message, .. }
            | ReadError::Io { message, .. } => message.clone(),
            ReadError::Parse { message, .. } => Message::untranslated(message.clone()),
        }
    }

    /// The whole error as a message (what the English `Display` says, in either language).
    #[must_use]
    pub fn to_message(&self) -> Message {
        let (key, location, message) = match self {
            ReadError::Malformed { location, message } => {
                ("load.error.malformed", location, message)
            }
            ReadError::Unsupported { location, message } => {
                ("load.error.unsupported", location, message)
            }
            ReadError::LimitExceeded { location, message } => {
                ("load.error.limit", location, message)
            }
            ReadError::Io { location, message } => ("load.error.io", location, message),
            ReadError::Parse {
                format,
                line,
                column,
                message,
            } => {
                return Message::new("load.error.parse")
                    .arg("format", *format)
                    .arg("line", *line)
                    .arg("column", *column)
                    .arg("message", message.as_str());
            }
        };
        Message::new(key)
            .arg("location", location.to_message())
            .arg("message", message.clone())
    }

    /// The whole error in `lang`.
    #[must_use]
    pub fn render(&self, lang: Language) -> String {
        self.to_message().render(lang)
    }

    /// Every message key the error needs (for the tests that keep both files complete).
    #[must_use]
    pub fn keys(&self) -> Vec<&'static str> {
        self.to_message().keys()
    }
}

/// Limits a reader enforces before allocating.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadLimits {
    /// Most elements in one section or list.
    pub max_elements: usize,
    /// Longest text field, bytes.
    pub max_text_bytes: usize,
}

impl Default for LoadLimits {
    fn default() -> Self {
        Self {
            max_elements: i32::MAX as usize,
            max_text_bytes: 64 * 1024 * 1024,
        }
    }
}

/// How to read a file.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct LoadOptions {
    /// Read as much of a broken file as possible: keep every complete element before the
    /// first error and report what was lost, instead of failing.
    pub recover: bool,
    pub limits: LoadLimits,
    /// How to import `.mqo` (scale, hidden objects, vertex colours); `None` for the defaults.
    /// Its limits are replaced by `limits`.
    pub mqo: Option<crate::formats::mqo::MqoImportOptions>,
    /// How to import `.vrm` / `.glb` / `.gltf` (A-pose, physics); `None` for the defaults.
    pub vrm: Option<crate::formats::vrm::VrmImportOptions>,
}

/// Something a reader noticed but read past.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadNote {
    pub location: Location,
    pub message: Message,
    /// Whether data was lost (recovery mode), as opposed to normalised or merely noted.
    pub lost: bool,
}

impl LoadNote {
    /// A note at `location`.
    #[must_use]
    pub fn new(location: Location, message: impl Into<Message>, lost: bool) -> Self {
        Self {
            location,
            message: message.into(),
            lost,
        }
    }

    /// The note with where it is, as a message.
    #[must_use]
    pub fn to_message(&self) -> Message {
        Message::new("load.note")
            .arg("location", self.location.to_message())
            .arg("message", self.message.clone())
    }

    /// The note in `lang`, with where it is.
    #[must_use]
    pub fn render(&self, lang: Language) -> String {
        self.to_message().render(lang)
    }
}

impl fmt::Display for LoadNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// What a reader reports besides the model.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LoadReport {
    /// The error that ended a recovery read early, if any.
    pub recovered_from: Option<ReadError>,
    pub notes: Vec<LoadNote>,
    /// The file's size in bytes.
    pub file_size: usize,
    /// The raw face index count as the file declares it (PMX counts indices, not triangles).
    pub face_index_count: Option<usize>,
}

impl LoadReport {
    /// Whether anything was lost while reading.
    #[must_use]
    pub fn lost_data(&self) -> bool {
        self.recovered_from.is_some() || self.notes.iter().any(|note| note.lost)
    }
}

/// Why a model could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// A PMX 2.0 target for a model that uses PMX 2.1 features.
    #[error("the model uses PMX 2.1 features but the target version is 2.0 ({} found): {}", .violations.len(), summarize(.violations))]
    VersionViolations { violations: Vec<String> },
    /// A value that cannot be stored with the chosen settings.
    #[error("{path}: {message}")]
    Unrepresentable { path: String, message: Message },
    #[error("cannot serialize: {0}")]
    Serialize(String),
    /// The file being written could not take the bytes (disk full, ...).
    #[error("cannot write the file: {0}")]
    Io(String),
    /// A VRM export of a model without bones VRM requires (each named as VRM and MMD name it).
    #[error("the model has no bone for these required VRM humanoid bones: {}", .bones.join(", "))]
    MissingHumanoidBones { bones: Vec<String> },
}

fn summarize(items: &[String]) -> String {
    const SHOWN: usize = 20;
    let mut text = items
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if items.len() > SHOWN {
        text.push_str(&format!("; and {} more", items.len() - SHOWN));
    }
    text
}

/// What a writer reports besides the bytes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SaveReport {
    /// Everything the target could not hold exactly, element by element.
    pub warnings: Vec<Message>,
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
    /// The extensions listed are the format registry's (`registry::expected_extensions`,
    /// whose test holds this text to them).
    #[error(
        "{path}: unknown file format (expected .pmx, .pmd, .mqo, .mqoz, .smf, .vrm, .glb, .gltf, .json or .csv)"
    )]
    UnknownFormat { path: PathBuf },
}

impl WriteError {
    /// The error as a message.
    #[must_use]
    pub fn to_message(&self) -> Message {
        match self {
            WriteError::VersionViolations { violations } => Message::new("save.error.version")
                .arg("count", violations.len())
                .arg("list", summarize(violations)),
            WriteError::Unrepresentable { path, message } => Message::new("save.error.at")
                .arg("path", path.as_str())
                .arg("message", message.clone()),
            WriteError::Serialize(text) => {
                Message::new("save.error.serialize").arg("message", text.as_str())
            }
            WriteError::Io(text) => Message::new("save.error.io").arg("message", text.as_str()),
            WriteError::MissingHumanoidBones { bones } => {
                Message::new("save.error.missing_humanoid").arg("bones", bones.join(", "))
            }
        }
    }

    /// The error in `lang`.
    #[must_use]
    pub fn render(&self, lang: Language) -> String {
        self.to_message().render(lang)
    }
}

impl FileError {
    /// The error as a message, starting with the file's path.
    #[must_use]
    pub fn to_message(&self) -> Message {
        let (path, error) = match self {
            FileError::Io { path, source } => (path, io_error_message(source)),
            FileError::Read { path, source } => (path, source.to_message()),
            FileError::Write { path, source } => (path, source.to_message()),
            FileError::UnknownFormat { path } => (path, Message::new("load.error.unknown_format")),
        };
        Message::new("file.error")
            .arg("path", path.display().to_string())
            .arg("error", error)
    }

    /// The error in `lang`, starting with the file's path.
    #[must_use]
    pub fn render(&self, lang: Language) -> String {
        self.to_message().render(lang)
    }

    /// A failed read or write of the file at `path` (for `map_err`).
    pub fn io(path: &std::path::Path) -> impl Fn(std::io::Error) -> Self + '_ {
        move |source| FileError::Io {
            path: path.to_owned(),
            source,
        }
    }

    /// The reader's error about the file at `path` (for `map_err`).
    pub fn read(path: &std::path::Path) -> impl Fn(ReadError) -> Self + '_ {
        move |source| FileError::Read {
            path: path.to_owned(),
            source: Box::new(source),
        }
    }

    /// The writer's refusal to write the file at `path` (for `map_err`).
    pub fn write(path: &std::path::Path) -> impl Fn(WriteError) -> Self + '_ {
        move |source| FileError::Write {
            path: path.to_owned(),
            source: Box::new(source),
        }
    }

    /// No format reads the file at `path`.
    #[must_use]
    pub fn unknown_format(path: &std::path::Path) -> Self {
        FileError::UnknownFormat {
            path: path.to_owned(),
        }
    }
}

/// An operating system error as a message: the common kinds have words in both languages, the
/// rest show the system's own text.
#[must_use]
pub fn io_error_message(error: &std::io::Error) -> Message {
    let key = match error.kind() {
        std::io::ErrorKind::NotFound => "io.not_found",
        std::io::ErrorKind::PermissionDenied => "io.permission_denied",
        std::io::ErrorKind::AlreadyExists => "io.already_exists",
        std::io::ErrorKind::StorageFull => "io.storage_full",
        std::io::ErrorKind::IsADirectory => "io.is_a_directory",
        _ => return Message::untranslated(error.to_string()),
    };
    Message::new(key)
}
