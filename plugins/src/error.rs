//! Why a plugin did not run, or its edits could not be built: one error type for the host,
//! the built-ins, the options, the selection and scripts (kept apart from the plugin API so
//! that the options and the selection, which the API is made of, can name it).

use crate::nouns::kind_name_ja;
use pmx_core::edit::EditError;
use pmx_core::i18n::{Language, Message};

/// Why a plugin did not run, or its edits could not be built.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    #[error("no plugin or script named \"{0}\"")]
    UnknownPlugin(String),
    #[error("select at least one {kind} first")]
    NothingSelected { kind: &'static str },
    #[error("option \"{key}\": {message}")]
    BadOption { key: String, message: String },
    /// The plugin refuses the model as it is (the message says why, in both languages).
    #[error("{en}")]
    Refused { en: String, ja: String },
    #[error("step {step} ({what}): {source}")]
    Step {
        step: usize,
        what: String,
        #[source]
        source: Box<EditError>,
    },
    /// A user script failed: where and why.
    #[error("{file}:{line}:{column}: {message}")]
    Script {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("the plugin made no change")]
    NoChange,
}

impl PluginError {
    /// A refusal in both languages.
    #[must_use]
    pub fn refused(en: impl Into<String>, ja: impl Into<String>) -> Self {
        PluginError::Refused {
            en: en.into(),
            ja: ja.into(),
        }
    }

    /// The error as a message key with typed arguments (an edit step's error nested; a
    /// refusal in its own two languages; a script's frame keyed, the script engine's own
    /// words as they are).
    #[must_use]
    pub fn to_message(&self) -> Message {
        match self {
            PluginError::UnknownPlugin(name) => {
                Message::new("plugin.error.unknown_plugin").arg("name", name.as_str())
            }
            PluginError::NothingSelected { kind } => Message::new("plugin.error.nothing_selected")
                .arg("kind", Message::both(*kind, kind_name_ja(kind))),
            PluginError::BadOption { key, message } => Message::new("plugin.error.bad_option")
                .arg("key", key.as_str())
                .arg("message", message.as_str()),
            PluginError::Refused { en, ja } => Message::both(en, ja),
            PluginError::Step { step, what, source } => Message::new("plugin.error.step")
                .arg("step", *step)
                .arg("what", what.as_str())
                .arg("source", source.to_message()),
            PluginError::Script {
                file,
                line,
                column,
                message,
            } => Message::new("plugin.error.script")
                .arg("file", file.as_str())
                .arg("line", *line)
                .arg("column", *column)
                .arg("message", message.as_str()),
            PluginError::NoChange => Message::new("plugin.error.no_change"),
        }
    }

    /// The message in `lang`.
    #[must_use]
    pub fn message(&self, lang: Language) -> String {
        self.to_message().render(lang)
    }
}
