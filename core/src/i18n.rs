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

    /// The language's code as `--lang` takes it (`ja`, `en`).
    #[must_use]
    pub fn code(self) -> &'static str {
        match self {
            Language::Japanese => "ja",
            Language::English => "en",
        }
    }

    /// The language of a code (`ja`, `en`, `ja_JP.UTF-8`, `English`), if it names one.
    #[must_use]
    pub fn from_code(code: &str) -> Option<Self> {
        let code = code.trim().to_ascii_lowercase();
        if code.starts_with("ja") || code == "日本語" {
            Some(Language::Japanese)
        } else if code.starts_with("en") || code == "c" || code == "posix" {
            Some(Language::English)
        } else {
            None
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

/// A message for people (a reader's note, an error, a writer's warning): a key of
/// `resources/i18n/*.json` with typed arguments, rendered in the reader's language when it is
/// shown. Nothing stores a rendered message, so one report reads in Japanese in the editor and
/// in English on a command line set to English.
///
/// Text that has no key yet ([`Message::untranslated`], and every `String` turned into a
/// message) renders the same in both languages; [`Message::is_translated`] finds it, so the
/// tests can hold every reader's notes to keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message(MessageBody);

#[derive(Debug, Clone, PartialEq, Eq)]
enum MessageBody {
    Key {
        key: &'static str,
        args: Vec<(&'static str, MessageArg)>,
    },
    Untranslated(String),
}

/// An argument of a [`Message`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageArg {
    /// Shown as it is in every language: names from the file, paths, numbers already
    /// formatted, identifiers of the format (`bufferViews[3]`, `BDEF2`).
    Text(String),
    /// A count or index.
    Number(usize),
    /// A string of the resources (a word that differs per language).
    Key(&'static str),
    /// Another message, rendered in the same language.
    Message(Box<Message>),
}

impl Message {
    /// The message `key`, its arguments added with [`Message::arg`].
    #[must_use]
    pub fn new(key: &'static str) -> Self {
        Self(MessageBody::Key {
            key,
            args: Vec::new(),
        })
    }

    /// Text with no key: the same in every language. For text that is not the editor's own
    /// words (a peer library's error); the editor's own words get a key.
    #[must_use]
    pub fn untranslated(text: impl Into<String>) -> Self {
        Self(MessageBody::Untranslated(text.into()))
    }

    /// Adds the argument that fills `{name}`.
    #[must_use]
    pub fn arg(mut self, name: &'static str, value: impl Into<MessageArg>) -> Self {
        if let MessageBody::Key { args, .. } = &mut self.0 {
            args.push((name, value.into()));
        }
        self
    }

    /// Adds `{name}` as a word of the resources (`Message::new(..).word("kind", "noun.bone")`).
    #[must_use]
    pub fn word(self, name: &'static str, key: &'static str) -> Self {
        self.arg(name, MessageArg::Key(key))
    }

    /// The message key (`None` for untranslated text).
    #[must_use]
    pub fn key(&self) -> Option<&'static str> {
        match &self.0 {
            MessageBody::Key { key, .. } => Some(key),
            MessageBody::Untranslated(_) => None,
        }
    }

    /// Whether the message and every message inside it have keys.
    #[must_use]
    pub fn is_translated(&self) -> bool {
        match &self.0 {
            MessageBody::Key { args, .. } => args.iter().all(|(_, arg)| match arg {
                MessageArg::Message(inner) => inner.is_translated(),
                _ => true,
            }),
            MessageBody::Untranslated(_) => false,
        }
    }

    /// Every resource key the message needs, nested ones included (for the tests that keep
    /// both files complete).
    #[must_use]
    pub fn keys(&self) -> Vec<&'static str> {
        let mut keys = Vec::new();
        if let MessageBody::Key { key, args } = &self.0 {
            keys.push(*key);
            for (_, arg) in args {
                match arg {
                    MessageArg::Key(key) => keys.push(key),
                    MessageArg::Message(inner) => keys.extend(inner.keys()),
                    MessageArg::Text(_) | MessageArg::Number(_) => {}
                }
            }
        }
        keys
    }

    /// The message in `lang`.
    #[must_use]
    pub fn render(&self, lang: Language) -> String {
        match &self.0 {
            MessageBody::Key { key, args } => {
                let rendered: Vec<(&str, String)> = args
                    .iter()
                    .map(|(name, arg)| (*name, arg.render(lang)))
                    .collect();
                let display: Vec<(&str, &dyn std::fmt::Display)> = rendered
                    .iter()
                    .map(|(name, value)| (*name, value as &dyn std::fmt::Display))
                    .collect();
                lang.format(key, &display)
            }
            MessageBody::Untranslated(text) => text.clone(),
        }
    }

    /// Whether the English text contains `needle` (for tests and for callers that look for a
    /// word, as they did when messages were English strings).
    #[must_use]
    pub fn contains(&self, needle: &str) -> bool {
        self.render(Language::English).contains(needle)
    }

    /// Whether the English text starts with `prefix`.
    #[must_use]
    pub fn starts_with(&self, prefix: &str) -> bool {
        self.render(Language::English).starts_with(prefix)
    }
}

impl MessageArg {
    fn render(&self, lang: Language) -> String {
        match self {
            MessageArg::Text(text) => text.clone(),
            MessageArg::Number(n) => n.to_string(),
            MessageArg::Key(key) => lang.tr(key).to_owned(),
            MessageArg::Message(message) => message.render(lang),
        }
    }
}

impl std::fmt::Display for Message {
    /// In English, as logs and `{}` in errors print it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render(Language::English))
    }
}

impl From<String> for Message {
    fn from(text: String) -> Self {
        Message::untranslated(text)
    }
}

impl From<&str> for Message {
    fn from(text: &str) -> Self {
        Message::untranslated(text)
    }
}

impl From<String> for MessageArg {
    fn from(text: String) -> Self {
        MessageArg::Text(text)
    }
}

impl From<&str> for MessageArg {
    fn from(text: &str) -> Self {
        MessageArg::Text(text.to_owned())
    }
}

impl From<&String> for MessageArg {
    fn from(text: &String) -> Self {
        MessageArg::Text(text.clone())
    }
}

impl From<usize> for MessageArg {
    fn from(n: usize) -> Self {
        MessageArg::Number(n)
    }
}

impl From<Message> for MessageArg {
    fn from(message: Message) -> Self {
        MessageArg::Message(Box::new(message))
    }
}

/// Numbers of other widths, and floats, as they print.
macro_rules! message_arg_as_text {
    ($($ty:ty),*) => {$(
        impl From<$ty> for MessageArg {
            fn from(value: $ty) -> Self {
                MessageArg::Text(value.to_string())
            }
        }
    )*};
}
message_arg_as_text!(u8, u16, u32, u64, i8, i16, i32, i64, isize, f32, f64, char);

/// The language the environment asks for (`LC_ALL`, `LC_MESSAGES`, `LANG`, as POSIX orders
/// them): Japanese for a `ja` locale, English otherwise (the command line's default).
#[must_use]
pub fn language_from_environment() -> Language {
    let locale = ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.is_empty())
        .unwrap_or_default();
    match Language::from_code(&locale) {
        Some(Language::Japanese) => Language::Japanese,
        _ => Language::English,
    }
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

    #[test]
    fn messages_render_per_language_and_untranslated_text_is_found() {
        let location = Message::new("load.at_byte")
            .arg("path", "vertices[3].weight.bones[1]")
            .arg("offset", 40_usize)
            .arg("hex", "28");
        assert_eq!(
            location.render(Language::English),
            "vertices[3].weight.bones[1] at byte 40 (0x28)"
        );
        assert_eq!(
            location.render(Language::Japanese),
            "vertices[3].weight.bones[1]（40バイト目、0x28）"
        );
        assert!(location.is_translated());
        assert_eq!(location.keys(), ["load.at_byte"]);
        let nested = Message::new("load.note")
            .arg("location", location.clone())
            .arg("message", Message::untranslated("something"));
        assert!(!nested.is_translated());
        assert_eq!(nested.keys(), ["load.note", "load.at_byte"]);
        assert_eq!(
            nested.to_string(),
            "vertices[3].weight.bones[1] at byte 40 (0x28): something"
        );
        assert!(Message::from("plain text").contains("plain"));
    }

    #[test]
    fn language_codes() {
        assert_eq!(Language::from_code("ja_JP.UTF-8"), Some(Language::Japanese));
        assert_eq!(Language::from_code("en"), Some(Language::English));
        assert_eq!(Language::from_code("C"), Some(Language::English));
        assert_eq!(Language::from_code("fr"), None);
        for lang in Language::ALL {
            assert_eq!(Language::from_code(lang.code()), Some(lang));
        }
    }
}
