//! Settings that persist between runs (the app stores them with eframe's persistence; the
//! window size is eframe's own).

use crate::editor::workspace::Pane;
use crate::i18n::{Language, NameLanguage};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Recent files kept, at most.
pub const MAX_RECENT_FILES: usize = 10;

/// Recent motions and poses (the pose pane's VMD and VPD files) kept, at most.
pub const MAX_RECENT_MOTIONS: usize = 8;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub language: Language,
    pub names: NameLanguage,
    /// Documents opened or saved (never an export), most recent first.
    pub recent_files: Vec<PathBuf>,
    /// Files written by File > Export (PMD, MQO, VRM, SMF, CSV, the UV layout), most recent
    /// first: File > Export > recent exports.
    pub recent_exports: Vec<PathBuf>,
    /// VMD motions and VPD poses the pose pane loaded, most recent first.
    pub recent_motions: Vec<PathBuf>,
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
        put_first(&mut self.recent_files, path, MAX_RECENT_FILES);
    }

    /// Puts `path` first in the recent exports.
    pub fn add_recent_export(&mut self, path: &Path) {
        put_first(&mut self.recent_exports, path, MAX_RECENT_FILES);
    }

    /// Puts `path` first in the pose pane's recent motions and poses.
    pub fn add_recent_motion(&mut self, path: &Path) {
        put_first(&mut self.recent_motions, path, MAX_RECENT_MOTIONS);
    }
}

/// Puts `path` (made absolute when it exists, so that two spellings of one file are one entry)
/// first in `list`, once, keeping at most `max`.
fn put_first(list: &mut Vec<PathBuf>, path: &Path, max: usize) {
    let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    list.retain(|p| *p != path);
    list.insert(0, path);
    list.truncate(max);
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
    fn recent_motions_and_exports_are_their_own_lists() {
        let mut settings = Settings::default();
        for i in 0..10 {
            settings.add_recent_motion(Path::new(&format!("/nonexistent/{i}.vmd")));
        }
        settings.add_recent_export(Path::new("/nonexistent/out.pmd"));
        assert_eq!(settings.recent_motions.len(), MAX_RECENT_MOTIONS);
        assert_eq!(
            settings.recent_motions[0],
            PathBuf::from("/nonexistent/9.vmd")
        );
        assert_eq!(
            settings.recent_exports,
            vec![PathBuf::from("/nonexistent/out.pmd")]
        );
        assert!(settings.recent_files.is_empty());
    }

    #[test]
    fn settings_round_trip_through_json() {
        let mut settings = Settings {
            language: Language::English,
            names: NameLanguage::English,
            ..Settings::default()
        };
        settings.layout = Some(crate::editor::workspace::default_tree());
        settings.add_recent_motion(Path::new("/nonexistent/dance.vmd"));
        let json = serde_json::to_string(&settings).expect("serializes");
        let back: Settings = serde_json::from_str(&json).expect("parses");
        assert_eq!(back.language, Language::English);
        assert_eq!(back.recent_motions, settings.recent_motions);
        assert!(
            back.layout
                .as_ref()
                .is_some_and(crate::editor::workspace::is_complete)
        );
    }
}
