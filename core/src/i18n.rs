//! The user-visible strings in Japanese and English, from `resources/i18n/{ja,en}.json`.
//!
//! Both the editor (`pmx_ui::i18n` re-exports [`Language`]) and the core's own texts meant for
//! people (edit labels, [`crate::edit::EditLabel`]) read these two files, so there is one source
//! of strings. The core depends on no GUI crate: the files are plain JSON, built in with
//! `include_str!`.
//!
//! Keys are flat (`"menu.file"`); a string may hold `{name}` placeholders that
//! [`Language::format`] fills. A key missing from a file shows as the key itself, so a gap is
//! visible instead of silent; the tests keep both files complete.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::OnceLock;

/// `resources/i18n/ja.json`, as built in.
pub const JA_JSON: &str = include_str!("../../resources/i18n/ja.json");
/// `resources/i18n/en.json`, as built in.
pub const EN_JSON: &str = include_str!("../../resources/i18n/en.json");

/// The language of what the user reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Language {
    /// 日本語 (the default: the people who make MMD models mostly read Japanese).
    #[default]
    Japanese,
    English,
}

impl Language {
    pub const ALL: [Language; 2] = [Language::Japanese, Language::English];

    /// The language's own name, for the menu that switches it.
    #[must_use]
    pub fn native_name(self) -> &'static str {
        match self {
            Language::Japanese => "日本語",
            Language::English => "English",
        }
    }

    /// The string for `key`, or the key itself when it has none.
    #[must_use]
    pub fn tr(self, key: &'static str) -> &'static str {
        self.get(key).unwrap_or(key)
    }

    /// The string for `key`, if the file has it (for keys built at run time).
    #[must_use]
    pub fn get(self, key: &str) -> Option<&'static str> {
        strings(self).get(key).map(String::as_str)
    }

    /// The string for `key` with each `{name}` replaced by its value.
    #[must_use]
    pub fn format(self, key: &'static str, args: &[(&str, &dyn std::fmt::Display)]) -> String {
        fill(self.tr(key), args)
    }
}

/// `template` with each `{name}` replaced by its value.
pub(crate) fn fill(template: &str, args: &[(&str, &dyn std::fmt::Display)]) -> String {
    let mut text = template.to_owned();
    for (name, value) in args {
        let placeholder = format!("{{{name}}}");
        if text.contains(&placeholder) {
            text = text.replace(&placeholder, &value.to_string());
        }
    }
    text
}

fn strings(language: Language) -> &'static HashMap<String, String> {
    static JA: OnceLock<HashMap<String, String>> = OnceLock::new();
    static EN: OnceLock<HashMap<String, String>> = OnceLock::new();
    let (cell, json) = match language {
        Language::Japanese => (&JA, JA_JSON),
        Language::English => (&EN, EN_JSON),
    };
    // The files are part of the build and checked by the tests; a broken file shows keys.
    cell.get_or_init(|| serde_json::from_str(json).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_files_parse_and_fill_placeholders() {
        assert!(serde_json::from_str::<HashMap<String, String>>(JA_JSON).is_ok());
        assert!(serde_json::from_str::<HashMap<String, String>>(EN_JSON).is_ok());
        assert_eq!(
            Language::English.format("status.selected", &[("count", &3), ("kind", &"bones")]),
            "3 bones selected"
        );
        assert_eq!(Language::Japanese.tr("no.such-key"), "no.such-key");
        assert_eq!(Language::English.get("no.such-key"), None);
    }
}
