//! `--copy-textures` and the texture paths of a model written into another folder: every
//! subcommand that writes a model (`convert`, `edit`, `repair`, `pose`, `run`, `script`) makes
//! them follow the file through `pmx_core::formats::relocate`, and says what it could not keep.

use pmx_core::formats::{self, TextureRelocation, relocate_textures};
use pmx_core::i18n::Message;
use pmx_core::model::Model;
use std::path::Path;

/// The flag every subcommand with an output file takes.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct TextureArgs {
    /// When the output is in another folder than the input: copy the textures beside it
    /// (keeping their relative layout) instead of rewriting their paths to reach the originals.
    #[arg(long)]
    pub copy_textures: bool,
}

impl TextureArgs {
    /// Makes `model`'s texture paths (relative to `input`'s folder) reach the images from
    /// `output`'s folder, printing on stderr what was rewritten or copied and every path that
    /// could not be kept. `unpacked`: paths of images the caller writes beside the output
    /// itself (a VRM's). Nothing changes when both files are in one folder.
    pub fn follow(&self, model: &mut Model, input: &Path, output: &Path, unpacked: &[&str]) {
        let mode = if self.copy_textures {
            TextureRelocation::Copy
        } else {
            TextureRelocation::Rewrite
        };
        let to_dir = formats::folder_of(output);
        let report = relocate_textures(model, formats::folder_of(input), to_dir, mode, unpacked);
        let folder = to_dir.display().to_string();
        if !report.copied.is_empty() {
            let copied = Message::new("save.textures.copied")
                .arg("count", report.copied.len())
                .arg("folder", folder.as_str());
            eprintln!("{}", super::say(&copied));
        } else if !report.rewritten.is_empty() {
            let rewritten = Message::new("save.textures.rewritten")
                .arg("count", report.rewritten.len())
                .arg("folder", folder.as_str());
            eprintln!("{}", super::say(&rewritten));
        }
        for unkept in &report.unkept {
            eprintln!("warning: {}", super::say(&unkept.message()));
        }
    }
}
