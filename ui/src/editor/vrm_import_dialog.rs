//! File > Import VRM: a `.vrm`, `.glb` or `.gltf` avatar as an MMD model, with the choices a
//! converter asks for (A-pose, physics) and whether it becomes a new model or is added to the
//! open one as one undo step. What the import noticed is shown by the load report.

use super::dialogs::{Dialog, Outcome};
use super::{EditorState, PlatformRequest};
use crate::command::Command;
use crate::document::Document;
use pmx_core::formats::LoadOptions;
use pmx_core::formats::vrm::VrmImportOptions;
use std::path::{Path, PathBuf};

/// File > Import VRM.
#[derive(Debug)]
pub(super) struct ImportVrmDialog {
    pub path: String,
    options: VrmImportOptions,
    /// Merge into the open model instead of opening a new one.
    merge: bool,
    /// When merging: bones named like one of the open model's are that bone.
    match_bones: bool,
}

impl Dialog {
    pub(super) fn import_vrm(document: Option<&Document>) -> Self {
        let folder = document
            .and_then(|document| {
                document
                    .path
                    .as_deref()
                    .or(document.imported_from.as_deref())
            })
            .and_then(Path::parent)
            .map(|dir| format!("{}{}", dir.display(), std::path::MAIN_SEPARATOR))
            .unwrap_or_default();
        Dialog::ImportVrm(ImportVrmDialog {
            path: folder,
            options: VrmImportOptions::default(),
            merge: false,
            match_bones: true,
        })
    }
}

/// Whether `path` names a file the VRM import reads.
pub(super) fn is_vrm_import_path(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["vrm", "glb", "gltf"]
            .iter()
            .any(|x| e.eq_ignore_ascii_case(x))
    })
}

impl EditorState {
    pub(super) fn import_vrm_ui(
        &mut self,
        ui: &mut egui::Ui,
        mut import: ImportVrmDialog,
    ) -> Outcome {
        let lang = self.lang();
        ui.heading(lang.tr("dialog.import_vrm_title"));
        ui.horizontal(|ui| {
            ui.add(
                egui::TextEdit::singleline(&mut import.path)
                    .hint_text("/path/to/avatar.vrm")
                    .desired_width(440.0),
            )
            .accessible_name(lang.tr("dialog.path"));
            if ui.button(lang.tr("dialog.browse")).clicked() {
                self.platform.push(PlatformRequest::BrowseImportVrm);
            }
        });
        let open = self.document.is_some();
        egui::Grid::new("import_vrm_options")
            .num_columns(2)
            .spacing([12.0, 6.0])
            .show(ui, |ui| {
                ui.label(lang.tr("dialog.vrm_import_pose"));
                ui.horizontal(|ui| {
                    ui.checkbox(
                        &mut import.options.a_pose,
                        lang.tr("dialog.vrm_import_a_pose"),
                    )
                    .on_hover_text(lang.tr("dialog.vrm_import_a_pose_hint"));
                    ui.add_enabled(
                        import.options.a_pose,
                        egui::DragValue::new(&mut import.options.arm_angle_degrees)
                            .range(0.0..=60.0)
                            .speed(0.5)
                            .suffix("°"),
                    )
                    .accessible_name(lang.tr("dialog.vrm_import_arm_angle"));
                });
                ui.end_row();
                ui.label(lang.tr("dialog.vrm_import_physics_label"));
                ui.checkbox(
                    &mut import.options.physics,
                    lang.tr("dialog.vrm_import_physics"),
                );
                ui.end_row();
                ui.label(lang.tr("dialog.mqo_import_into"));
                ui.horizontal(|ui| {
                    ui.radio_value(&mut import.merge, false, lang.tr("dialog.mqo_new_model"));
                    ui.add_enabled_ui(open, |ui| {
                        ui.radio_value(&mut import.merge, true, lang.tr("dialog.mqo_merge"));
                    });
                });
                ui.end_row();
                ui.label("");
                ui.add_enabled_ui(import.merge, |ui| {
                    ui.checkbox(&mut import.match_bones, lang.tr("dialog.mqo_match_bones"));
                });
                ui.end_row();
            });
        if !open {
            import.merge = false;
        }
        let path = PathBuf::from(import.path.trim());
        let valid = is_vrm_import_path(&path);
        if !valid && !import.path.trim().is_empty() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                lang.tr("dialog.vrm_import_extension"),
            );
        }
        ui.add_space(8.0);
        let mut outcome = None;
        ui.horizontal(|ui| {
            if ui
                .add_enabled(valid, egui::Button::new(lang.tr("dialog.import")))
                .clicked()
            {
                let options = LoadOptions {
                    vrm: Some(import.options),
                    ..LoadOptions::default()
                };
                self.commands.push(Command::Import {
                    path: path.clone(),
                    options,
                    merge: import.merge.then_some(pmx_core::edit::MergeOptions {
                        match_bones_by_name: import.match_bones,
                    }),
                });
                outcome = Some(Outcome::Close);
            }
            if ui.button(lang.tr("dialog.cancel")).clicked() {
                outcome = Some(Outcome::Close);
            }
        });
        outcome.unwrap_or(Outcome::Keep(Dialog::ImportVrm(import)))
    }
}
