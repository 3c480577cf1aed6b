//! UI strings in Japanese and English, from `resources/i18n/{ja,en}.json` (read by
//! [`pmx_core::i18n`], whose [`Language`] this re-exports).
//!
//! Keys are flat (`"menu.file"`); a string may hold `{name}` placeholders that
//! [`Language::format`] fills. A key missing from a file shows as the key itself, so a gap is
//! visible instead of silent; `tests::both_files_have_the_same_keys` and
//! `tests::every_key_used_in_the_sources_exists` keep the files complete.

use serde::{Deserialize, Serialize};

/// The language of the UI: `pmx_core`'s, which reads the same two files, so edit labels built
/// in the core and the editor's own strings come from one place.
pub use pmx_core::i18n::Language;

/// Which of an element's two names (name_ja / name_en) lists and pickers show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum NameLanguage {
    #[default]
    Japanese,
    English,
}

impl NameLanguage {
    /// The name to show: the chosen one, or the other when the chosen one is empty.
    #[must_use]
    pub fn pick<'a>(self, ja: &'a str, en: &'a str) -> &'a str {
        let (first, second) = match self {
            NameLanguage::Japanese => (ja, en),
            NameLanguage::English => (en, ja),
        };
        if first.is_empty() { second } else { first }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmx_core::i18n::{EN_JSON, JA_JSON};
    use std::collections::{BTreeSet, HashMap};

    fn keys(json: &str) -> BTreeSet<String> {
        let map: HashMap<String, String> = serde_json::from_str(json).expect("valid JSON");
        map.into_keys().collect()
    }

    #[test]
    fn both_files_have_the_same_keys() {
        let ja = keys(JA_JSON);
        let en = keys(EN_JSON);
        let only_ja: Vec<_> = ja.difference(&en).collect();
        let only_en: Vec<_> = en.difference(&ja).collect();
        assert!(only_ja.is_empty(), "only in ja.json: {only_ja:?}");
        assert!(only_en.is_empty(), "only in en.json: {only_en:?}");
    }

    /// Every `tr("…")`/`format("…"` key in the ui, app and core sources, and every edit label
    /// key (`EditLabel::new("…")`, `LabelArg::Key("…")`), is in the files.
    #[test]
    fn every_key_used_in_the_sources_exists() {
        let ja = keys(JA_JSON);
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut missing = Vec::new();
        let mut files = Vec::new();
        for dir in ["ui/src", "app/src", "core/src"] {
            collect_rs(&root.join(dir), &mut files);
        }
        assert!(
            files.len() > 5,
            "sources not found under {}",
            root.display()
        );
        for file in files {
            let text = std::fs::read_to_string(&file).expect("readable source");
            for marker in [
                "tr(\"",
                "format(\"",
                "t!(\"",
                "EditLabel::new(\"",
                "LabelArg::Key(\"",
                "StatusText::key(\"",
            ] {
                for (at, _) in text.match_indices(marker) {
                    let rest = &text[at + marker.len()..];
                    let Some(end) = rest.find('"') else { continue };
                    let key = &rest[..end];
                    let looks_like_key = key.contains('.')
                        && key.chars().all(|c| {
                            c.is_ascii_lowercase() || c == '.' || c == '_' || c.is_ascii_digit()
                        });
                    if looks_like_key && !ja.contains(key) {
                        missing.push(format!("{}: {key}", file.display()));
                    }
                }
            }
        }
        assert!(
            missing.is_empty(),
            "keys missing from the i18n files: {missing:#?}"
        );
    }

    fn collect_rs(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                collect_rs(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn placeholders_are_filled() {
        let text =
            Language::English.format("status.selected", &[("count", &3), ("kind", &"vertices")]);
        assert_eq!(text, "3 vertices selected");
    }

    #[test]
    fn names_fall_back_to_the_other_language() {
        assert_eq!(NameLanguage::English.pick("センター", ""), "センター");
        assert_eq!(NameLanguage::English.pick("センター", "center"), "center");
        assert_eq!(
            NameLanguage::Japanese.pick("センター", "center"),
            "センター"
        );
    }
}
