//! File > Export UV layout…: the UV wireframe of the chosen materials as a square PNG, on
//! transparency or over the texture, for painting textures in an image editor. The same
//! drawing as `pmx-studio uv-layout` ([`pmx_core::uv::uv_layout_png`]).

use super::dialog::{
    Choice, Dialog, DialogCx, Outcome, PathField, buttons_row, fill_path, options_grid, path_row,
};
use crate::command::{BrowsePurpose, Command};
use crate::document::Document;
use pmx_core::uv::UvLayoutOptions;
use std::path::{Path, PathBuf};

/// Which materials the layout draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    Selected,
    All,
}

#[derive(Debug)]
pub(super) struct UvLayoutDialog {
    path: String,
    which: Which,
    /// The materials selected when the dialog opened.
    selected: Vec<usize>,
    channel: u8,
    size: u32,
    line_width: f32,
    texture: bool,
}

impl UvLayoutDialog {
    /// The model's path with `_uv.png`; the selected materials (all when none is), on `channel`.
    pub(super) fn new(document: &Document, selected: Vec<usize>, channel: u8) -> Self {
        let base = document.export_path("png");
        let stem = base.file_stem().map_or_else(
            || "untitled".to_owned(),
            |s| s.to_string_lossy().into_owned(),
        );
        let path = base.with_file_name(format!("{stem}_uv.png"));
        let defaults = UvLayoutOptions::default();
        Self {
            path: path.display().to_string(),
            which: if selected.is_empty() {
                Which::All
            } else {
                Which::Selected
            },
            selected,
            channel,
            size: defaults.size,
            line_width: defaults.line_width,
            texture: false,
        }
    }

    fn options(&self) -> UvLayoutOptions {
        UvLayoutOptions {
            materials: match self.which {
                Which::Selected => self.selected.clone(),
                Which::All => Vec::new(),
            },
            channel: self.channel,
            size: self.size,
            line_width: self.line_width,
            texture: self.texture,
            ..UvLayoutOptions::default()
        }
    }
}

impl Dialog for UvLayoutDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        let Some(document) = cx.document else {
            return Outcome::Close;
        };
        let channels = document.model.additional_uvs.len() as u8;
        ui.heading(lang.tr("dialog.uv_layout_title"));
        ui.label(lang.tr("dialog.uv_layout_hint"));
        path_row(
            ui,
            cx,
            &mut self.path,
            PathField::new(BrowsePurpose::UvLayout),
        );
        options_grid(ui, "uv_layout_options", |ui| {
            ui.label(lang.tr("tab.materials"));
            ui.horizontal(|ui| {
                ui.add_enabled_ui(!self.selected.is_empty(), |ui| {
                    ui.radio_value(
                        &mut self.which,
                        Which::Selected,
                        lang.format(
                            "dialog.uv_layout_selected",
                            &[("count", &self.selected.len())],
                        ),
                    );
                });
                ui.radio_value(&mut self.which, Which::All, lang.tr("uv.all_materials"));
            });
            ui.end_row();
            if channels > 0 {
                ui.label(lang.tr("dialog.uv_layout_channel"));
                ui.horizontal(|ui| {
                    for c in 0..=channels {
                        let name = if c == 0 {
                            lang.tr("uv.channel_base").to_owned()
                        } else {
                            lang.format("uv.channel_additional", &[("n", &c)])
                        };
                        ui.radio_value(&mut self.channel, c, name);
                    }
                });
                ui.end_row();
            }
            ui.label(lang.tr("dialog.uv_layout_size"));
            ui.add(
                egui::DragValue::new(&mut self.size)
                    .range(16..=16384)
                    .suffix(" px"),
            )
            .accessible_name(lang.tr("dialog.uv_layout_size"));
            ui.end_row();
            ui.label(lang.tr("dialog.uv_layout_line_width"));
            ui.add(
                egui::DragValue::new(&mut self.line_width)
                    .range(0.25..=32.0)
                    .speed(0.05)
                    .suffix(" px"),
            )
            .accessible_name(lang.tr("dialog.uv_layout_line_width"));
            ui.end_row();
            ui.label("");
            ui.checkbox(&mut self.texture, lang.tr("dialog.uv_layout_texture"));
            ui.end_row();
        });
        let ready = !self.path.trim().is_empty();
        match buttons_row(ui, lang, "dialog.export", ready) {
            Some(Choice::Confirm) => {
                cx.push(Command::ExportUvLayout {
                    path: PathBuf::from(self.path.trim()),
                    options: self.options(),
                });
                Outcome::Close
            }
            Some(Choice::Cancel) => Outcome::Close,
            None => Outcome::Keep,
        }
    }

    fn browsed(&mut self, purpose: BrowsePurpose, path: &Path) -> bool {
        fill_path(&mut self.path, BrowsePurpose::UvLayout, purpose, path)
    }
}
