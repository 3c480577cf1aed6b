//! File > Import VRM: a `.vrm`, `.glb` or `.gltf` avatar as an MMD model, with the choices a
//! converter asks for (A-pose, physics) and whether it becomes a new model or is added to the
//! open one as one undo step. What the import noticed is shown by the load report.

use super::dialog::{
    Dialog, DialogCx, MergeChoice, Outcome, PathField, confirm_row, fill_path, focus_once,
    folder_text, import_path_warning, options_grid, path_row,
};
use crate::command::{BrowsePurpose, Command};
use crate::document::Document;
use pmx_core::formats::vrm::VrmImportOptions;
use pmx_core::formats::{FileFormat, LoadOptions};
use std::path::Path;

const FORMAT: FileFormat = FileFormat::Vrm;

/// File > Import VRM.
#[derive(Debug)]
pub(super) struct ImportVrmDialog {
    path: String,
    options: VrmImportOptions,
    /// A new model, or merged into the open one.
    target: MergeChoice,
    /// The path field was given the focus when the dialog opened.
    focus_requested: bool,
}

impl ImportVrmDialog {
    /// Starts in the folder of the document's file, or of the file it was imported from.
    pub(super) fn new(document: Option<&Document>) -> Self {
        Self {
            path: folder_text(
                document
                    .and_then(Document::source_file)
                    .and_then(Path::parent),
            ),
            options: VrmImportOptions::default(),
            target: MergeChoice::default(),
            focus_requested: false,
        }
    }
}

impl Dialog for ImportVrmDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        ui.heading(lang.tr("dialog.import_vrm_title"));
        let field = path_row(
            ui,
            cx,
            &mut self.path,
            PathField::new(BrowsePurpose::Import(FORMAT)).hint("/path/to/avatar.vrm"),
        );
        focus_once(&field, &mut self.focus_requested);
        let open = cx.document.is_some();
        let options = &mut self.options;
        options_grid(ui, "import_vrm_options", |ui| {
            ui.label(lang.tr("dialog.vrm_import_pose"));
            ui.horizontal(|ui| {
                ui.checkbox(&mut options.a_pose, lang.tr("dialog.vrm_import_a_pose"))
                    .on_hover_text(lang.tr("dialog.vrm_import_a_pose_hint"));
                ui.add_enabled(
                    options.a_pose,
                    egui::DragValue::new(&mut options.arm_angle_degrees)
                        .range(0.0..=60.0)
                        .speed(0.5)
                        .suffix("°"),
                )
                .accessible_name(lang.tr("dialog.vrm_import_arm_angle"));
            });
            ui.end_row();
            ui.label(lang.tr("dialog.vrm_import_physics_label"));
            ui.checkbox(&mut options.physics, lang.tr("dialog.vrm_import_physics"));
            ui.end_row();
            self.target.rows_ui(ui, lang, open);
        });
        let path = import_path_warning(ui, lang, &self.path, FORMAT, "dialog.vrm_import_extension");
        let options = LoadOptions {
            vrm: Some(self.options),
            ..LoadOptions::default()
        };
        let merge = self.target.options();
        confirm_row(
            ui,
            cx,
            "dialog.import",
            path.map(|path| {
                move || Command::Import {
                    path,
                    options,
                    merge,
                }
            }),
        )
    }

    fn browsed(&mut self, purpose: BrowsePurpose, path: &Path) -> bool {
        fill_path(&mut self.path, BrowsePurpose::Import(FORMAT), purpose, path)
    }
}
