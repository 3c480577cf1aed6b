//! `--copy-textures` and the texture paths of a model written into another folder: every
//! subcommand that writes a model (`convert`, `edit`, `repair`, `pose`, `run`, `script`) makes
//! them follow the file through `pmx_core::formats::relocate`, and says what it could not keep.

use anyhow::{Context, Result};
use pmx_core::formats::{
    self, EmbeddedFile, FileFormat, TextureRelocation, relocate_textures, relocation_for,
};
use pmx_core::i18n::Message;
use pmx_core::model::Model;
use std::path::Path;

// The flag every subcommand with an output file takes. Not a doc comment: clap would make it
// the `--help` text of every subcommand that flattens this (their arguments are built late,
// `defer` in `cli.rs`, after the subcommand's own text is set).
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct TextureArgs {
    /// When the output is in another folder than the input: copy the textures beside it
    /// (keeping their relative layout) instead of rewriting their paths to reach the originals.
    #[arg(long)]
    pub copy_textures: bool,
}

impl TextureArgs {
    /// Writes the images `input` embeds (a VRM's) beside `output`, where the model's texture
    /// paths name them, then makes the other paths follow the file as [`Self::follow`] does. A
    /// file already there with other contents is kept (nothing is lost) and the run fails. A
    /// VRM output embeds the images itself, so nothing is unpacked for it.
    pub fn carry(
        &self,
        model: &mut Model,
        embedded: &[EmbeddedFile],
        input: &Path,
        output: &Path,
    ) -> Result<()> {
        if embedded.is_empty() || FileFormat::from_extension(output) == Some(FileFormat::Vrm) {
            self.follow(model, input, output, &[]);
            return Ok(());
        }
        let dir = formats::folder_of(output);
        let written = formats::write_embedded_files(embedded, dir, false)
            .with_context(|| format!("writing the model's images under {}", dir.display()))?;
        if !written.is_empty() {
            let unpacked = Message::new("save.textures.unpacked")
                .arg("count", written.len())
                .arg("folder", dir.display().to_string());
            errln!("{}", super::say(&unpacked));
        }
        let unpacked: Vec<&str> = embedded.iter().map(|f| f.path.as_str()).collect();
        self.follow(model, input, output, &unpacked);
        Ok(())
    }

    /// Makes `model`'s texture paths (relative to `input`'s folder) reach the images from
    /// `output`'s folder (copies instead of rewritten paths for a PMD whose texture fields
    /// those would not fit: `relocation_for`), printing on stderr what was rewritten or copied
    /// and every path that could not be kept. `unpacked`: paths of images the caller writes
    /// beside the output itself (a VRM's). Nothing changes when both files are in one folder.
    pub fn follow(&self, model: &mut Model, input: &Path, output: &Path, unpacked: &[&str]) {
        let asked = if self.copy_textures {
            TextureRelocation::Copy
        } else {
            TextureRelocation::Rewrite
        };
        let (from_dir, to_dir) = (formats::folder_of(input), formats::folder_of(output));
        let folder = to_dir.display().to_string();
        // A PMD's 20-byte texture fields may not hold the rewritten paths: copies keep them.
        let mode = relocation_for(model, from_dir, output, asked, unpacked);
        if mode != asked {
            let why = Message::new("save.textures.copied_for_pmd").arg("folder", folder.as_str());
            errln!("{}", super::say(&why));
        }
        let report = relocate_textures(model, from_dir, to_dir, mode, unpacked);
        if !report.copied.is_empty() {
            let copied = Message::new("save.textures.copied")
                .arg("count", report.copied.len())
                .arg("folder", folder.as_str());
            errln!("{}", super::say(&copied));
        } else if !report.rewritten.is_empty() {
            let rewritten = Message::new("save.textures.rewritten")
                .arg("count", report.rewritten.len())
                .arg("folder", folder.as_str());
            errln!("{}", super::say(&rewritten));
        }
        for unkept in &report.unkept {
            errln!("warning: {}", super::say(&unkept.message()));
        }
    }
}
