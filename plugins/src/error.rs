//! Why a plugin did not run, or its edits could not be built: one error type for the host,
//! the built-ins, the options, the selection and scripts (kept apart from the plugin API so
//! that the options and the selection, which the API is made of, can name it).

use crate::nouns::kind_name_ja;
use pmx_core::edit::EditError;
use pmx_core::i18n::Language;

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

    /// The message in `lang` (refusals have their own Japanese; the rest are technical).
    #[must_use]
    pub fn message(&self, lang: Language) -> String {
        match (self, lang) {
            (PluginError::Refused { ja, .. }, Language::Japanese) => ja.clone(),
            (PluginError::NothingSelected { kind }, Language::Japanese) => {
                format!("先に{}を選択してください", kind_name_ja(kind))
            }
            (PluginError::NoChange, Language::Japanese) => "変更はありません".to_owned(),
            _ => self.to_string(),
        }
    }
}
