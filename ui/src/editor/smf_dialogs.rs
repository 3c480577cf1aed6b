//! File > Export SMF: the Selene engine's chunk format, with its options (a VMD motion baked
//! into an animation set, the materials written as collision data, the alpha test), and the
//! counts and everything SMF cannot hold listed before anything is written. The document is
//! not changed: SMF is an export, like MQO.

use super::dialog::{
    Dialog, DialogCx, Outcome, PathField, export_row, fill_path, losses_ui, options_grid, path_row,
};
use crate::command::{BrowsePurpose, Command};
use crate::document::Document;
use crate::i18n::Language;
use pmx_core::formats::smf::{
    AlphaTestMaterials, MAX_BONE_COUNT, SmfAnimation, SmfExportOptions, SmfExportReport, write_smf,
};
use pmx_core::formats::{FileFormat, LoadOptions, SaveOptions, vmd};
use std::path::{Path, PathBuf};

const FORMAT: FileFormat = FileFormat::Smf;

/// What the preview was computed for: the document revision and every option (the motion by
/// its path: comparing whole motions every frame would cost more than the key saves).
type PreviewKey = (u64, Vec<usize>, AlphaTestMaterials, u32, Option<PathBuf>);

/// File > Export SMF.
#[derive(Debug)]
pub(super) struct ExportSmfDialog {
    path: String,
    /// The VMD to bake, as typed or picked (empty: no animation).
    motion_path: String,
    /// The motion read from `motion_path`, or why it could not be read.
    motion: Option<(PathBuf, Result<SmfAnimation, String>)>,
    collision: Vec<bool>,
    alpha_test: AlphaTestMaterials,
    alpha_boundary: u32,
    preview: Option<(PreviewKey, Result<SmfExportReport, String>)>,
}

impl ExportSmfDialog {
    pub(super) fn new(document: &Document) -> Self {
        let path = document.export_path(FORMAT.spec().extension());
        let defaults = SmfExportOptions::default();
        Self {
            path: path.display().to_string(),
            motion_path: String::new(),
            motion: None,
            collision: vec![false; document.model.materials.len()],
            alpha_test: defaults.alpha_test,
            alpha_boundary: defaults.alpha_boundary,
            preview: None,
        }
    }
}

/// Reads the VMD at `path` as an animation set named after the file.
fn read_motion(path: &Path) -> Result<SmfAnimation, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let motion = vmd::read(&bytes, &LoadOptions::default())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let name = path
        .file_stem()
        .map_or_else(|| "motion".to_owned(), |s| s.to_string_lossy().into_owned());
    Ok(SmfAnimation { name, motion })
}

impl ExportSmfDialog {
    /// The export options as the dialog stands (`None` while the chosen motion is unreadable).
    fn options(&self) -> Option<SmfExportOptions> {
        let animation = match &self.motion {
            Some((_, Ok(animation))) => Some(animation.clone()),
            Some((_, Err(_))) => return None,
            None => None,
        };
        Some(SmfExportOptions {
            collision_materials: self.collision_materials(),
            alpha_test: self.alpha_test.clone(),
            alpha_boundary: self.alpha_boundary,
            animation,
        })
    }

    fn collision_materials(&self) -> Vec<usize> {
        self.collision
            .iter()
            .enumerate()
            .filter_map(|(index, &on)| on.then_some(index))
            .collect()
    }
}

impl Dialog for ExportSmfDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        let Some(document) = cx.document else {
            return Outcome::Close;
        };
        let export = self;
        ui.heading(lang.tr("dialog.export_smf_title"));
        path_row(
            ui,
            cx,
            &mut export.path,
            PathField::new(BrowsePurpose::Export(FORMAT)),
        );
        // The material list follows the model (an edit behind the dialog is not possible, but
        // a reload is cheap to survive).
        export
            .collision
            .resize(document.model.materials.len(), false);
        options_grid(ui, "export_smf_options", |ui| {
            ui.label(lang.tr("dialog.smf_motion"));
            ui.horizontal(|ui| {
                ui.add(
                    egui::TextEdit::singleline(&mut export.motion_path)
                        .hint_text(lang.tr("dialog.smf_no_motion"))
                        .desired_width(300.0),
                )
                .accessible_name(lang.tr("dialog.smf_motion"));
                if ui.button(lang.tr("dialog.smf_browse_motion")).clicked() {
                    cx.push(Command::Browse {
                        purpose: BrowsePurpose::Motion,
                        suggested: None,
                    });
                }
                if !export.motion_path.is_empty()
                    && ui
                        .small_button(lang.tr("dialog.smf_clear_motion"))
                        .clicked()
                {
                    export.motion_path.clear();
                }
            });
            ui.end_row();
            ui.label(lang.tr("dialog.smf_collision"));
            ui.vertical(|ui| {
                ui.weak(lang.tr("dialog.smf_collision_hint"));
                egui::ScrollArea::vertical()
                    .id_salt("smf_collision")
                    .max_height(140.0)
                    .show(ui, |ui| {
                        for (index, (material, on)) in document
                            .model
                            .materials
                            .iter()
                            .zip(export.collision.iter_mut())
                            .enumerate()
                        {
                            // Japanese names: SMF keeps those (in cp932), and stage
                            // materials are named in Japanese by their authors.
                            ui.checkbox(on, format!("{index}: {}", material.name_ja.as_str()));
                        }
                    });
            });
            ui.end_row();
            ui.label(lang.tr("dialog.smf_alpha_test"));
            ui.horizontal(|ui| {
                let automatic = matches!(export.alpha_test, AlphaTestMaterials::Automatic);
                if ui
                    .radio(automatic, lang.tr("dialog.smf_alpha_auto"))
                    .clicked()
                {
                    export.alpha_test = AlphaTestMaterials::Automatic;
                }
                if ui
                    .radio(!automatic, lang.tr("dialog.smf_alpha_none"))
                    .clicked()
                {
                    export.alpha_test = AlphaTestMaterials::None;
                }
                ui.label(lang.tr("dialog.smf_alpha_boundary"));
                ui.add_enabled(
                    automatic,
                    egui::DragValue::new(&mut export.alpha_boundary).range(0..=255),
                )
                .accessible_name(lang.tr("dialog.smf_alpha_boundary"));
            });
            ui.end_row();
        });
        // The motion is read again only when its path changes.
        let motion_path = export.motion_path.trim();
        if motion_path.is_empty() {
            export.motion = None;
        } else if export
            .motion
            .as_ref()
            .is_none_or(|(path, _)| path.as_os_str() != motion_path)
        {
            let path = PathBuf::from(motion_path);
            export.motion = Some((path.clone(), read_motion(&path)));
        }
        let mut blocked = false;
        if let Some((_, Err(message))) = &export.motion {
            blocked = true;
            ui.colored_label(ui.visuals().error_fg_color, message);
        }
        let options = export.options();
        // What SMF cannot hold, worked out again only when the model or the options change:
        // the report comes from the writer itself, so the list is exactly what Export does.
        if let Some(options) = &options {
            let key: PreviewKey = (
                document.revision(),
                options.collision_materials.clone(),
                options.alpha_test.clone(),
                options.alpha_boundary,
                export.motion.as_ref().map(|(path, _)| path.clone()),
            );
            if export.preview.as_ref().is_none_or(|(k, _)| *k != key) {
                let report = write_smf(&document.model, options)
                    .map(|export| export.report)
                    .map_err(|e| e.to_string());
                export.preview = Some((key, report));
            }
        }
        if let (Some(_), Some((_, report))) = (&options, &export.preview) {
            match report {
                Ok(report) => {
                    ui.add_space(6.0);
                    ui.label(lang.format(
                        "dialog.smf_summary",
                        &[
                            ("frames", &report.frames),
                            ("meshes", &report.meshes),
                            ("palette", &report.largest_palette),
                            ("max", &MAX_BONE_COUNT),
                            ("vertices", &report.vertices),
                            ("faces", &report.faces),
                        ],
                    ));
                    if export.motion.is_some() {
                        ui.weak(lang.tr("dialog.smf_time_unit"));
                    }
                    losses_ui(
                        ui,
                        lang.format("dialog.smf_losses", &[("count", &report.losses.len())]),
                        "smf_losses",
                        &report.losses,
                        |loss| match lang {
                            Language::Japanese => loss.message_ja(),
                            Language::English => loss.message_en(),
                        },
                    );
                }
                Err(message) => {
                    blocked = true;
                    ui.colored_label(ui.visuals().error_fg_color, message);
                }
            }
        }
        let options = options.filter(|_| !blocked).map(|smf| {
            move || SaveOptions {
                smf,
                ..SaveOptions::default()
            }
        });
        export_row(ui, cx, &export.path, FORMAT, options)
    }

    fn browsed(&mut self, purpose: BrowsePurpose, path: &Path) -> bool {
        fill_path(&mut self.path, BrowsePurpose::Export(FORMAT), purpose, path)
            || fill_path(&mut self.motion_path, BrowsePurpose::Motion, purpose, path)
    }
}
