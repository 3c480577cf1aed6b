//! Settings that persist between runs (the app stores them with eframe's persistence; the
//! window size is eframe's own).

use crate::editor::workspace::Pane;
use crate::i18n::{Language, NameLanguage};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Recent files kept, at most.
pub const MAX_RECENT_FILES: usize = 10;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub language: Language,
    pub names: NameLanguage,
    /// Most recent first.
    pub recent_files: Vec<PathBuf>,
    /// The tab layout; `None` (or an outdated one) gives the default.
    pub layout: Option<egui_tiles::Tree<Pane>>,
    /// The [`crate::editor::workspace::LAYOUT_VERSION`] `layout` was saved with (0: before versions).
    pub layout_version: u32,
    /// The folder of the user's Rhai scripts (ツール > スクリプト); `None`: the default one
    /// ([`pmx_plugins::default_scripts_folder`]).
    pub scripts_folder: Option<PathBuf>,
}

impl Settings {
    /// Puts `path` first in the recent files.
    pub fn add_recent(&mut self, path: &Path) {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
        self.recent_files.retain(|p| *p != path);
        self.recent_files.insert(0, path);
        self.recent_files.truncate(MAX_RECENT_FILES);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_files_are_unique_most_recent_first_and_capped() {
        let mut settings = Settings::default();
        for i in 0..12 {
            settings.add_recent(Path::new(&format!("/nonexistent/{i}.pmx")));
        }
        settings.add_recent(Path::new("/nonexistent/5.pmx"));
        assert_eq!(settings.recent_files.len(), MAX_RECENT_FILES);
        assert_eq!(
            settings.recent_files[0],
            PathBuf::from("/nonexistent/5.pmx")
        );
        assert_eq!(
            settings
                .recent_files
                .iter()
                .filter(|p| p.ends_with("5.pmx"))
                .count(),
            1
        );
    }

    #[test]
    fn settings_round_trip_through_json() {
        let mut settings = Settings {
            language: Language::English,
            names: NameLanguage::English,
            ..Settings::default()
        };
        settings.layout = Some(crate::editor::workspace::default_tree());
        let json = serde_json::to_string(&settings).expect("serializes");
        let back: Settings = serde_json::from_str(&json).expect("parses");
        assert_eq!(back.language, Language::English);
        assert!(
            back.layout
                .as_ref()
                .is_some_and(crate::editor::workspace::is_complete)
        );
    }
}
