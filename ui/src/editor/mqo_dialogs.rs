//! File > Import MQO and File > Export MQO: Metasequoia files with their options (scale,
//! hidden objects, vertex colours; object grouping, the `.mqx` contents), and for the export
//! what MQO cannot hold, listed before anything is written.

use super::dialogs::{Dialog, Outcome, PendingExport, losses_ui};
use super::{EditorState, PlatformRequest};
use crate::command::Command;
use crate::document::Document;
use crate::i18n::Language;
use pmx_core::formats::mqo::{
    DEFAULT_MQO_UNITS_PER_PMX_UNIT, MqoExportOptions, MqoExportReport, MqoImportOptions,
    MqoObjectGrouping, mqo_export_report,
};
use pmx_core::formats::{self, LoadOptions};
use pmx_core::model::PmxVersion;
use std::path::{Path, PathBuf};

/// File > Import MQO.
#[derive(Debug)]
pub(super) struct ImportMqoDialog {
    pub path: String,
    scale: f32,
    skip_hidden: bool,
    /// Keep vertex colours (the model becomes PMX 2.1).
    vertex_colors: bool,
    /// Merge into the open model instead of opening a new one.
    merge: bool,
    /// When merging: bones named like one of the open model's are that bone.
    match_bones: bool,
}

/// File > Export MQO.
#[derive(Debug)]
pub(super) struct ExportMqoDialog {
    pub path: String,
    options: MqoExportOptions,
    /// What the export would report, for (document revision, options).
    preview: Option<((u64, MqoExportOptions), Result<MqoExportReport, String>)>,
}

impl Dialog {
    pub(super) fn import_mqo(document: Option<&Document>) -> Self {
        let folder = document
            .and_then(Document::folder)
            .map(|dir| format!("{}{}", dir.display(), std::path::MAIN_SEPARATOR))
            .unwrap_or_default();
        Dialog::ImportMqo(ImportMqoDialog {
            path: folder,
            scale: DEFAULT_MQO_UNITS_PER_PMX_UNIT,
            skip_hidden: false,
            vertex_colors: false,
            merge: false,
            match_bones: true,
        })
    }

    pub(super) fn export_mqo(document: &Document) -> Self {
        let path = document.export_path("mqo");
        Dialog::ExportMqo(ExportMqoDialog {
            path: path.display().to_string(),
            options: MqoExportOptions::default(),
            preview: None,
        })
    }
}

/// The scale field: MQO units per PMX unit, with the documented default beside it.
fn scale_ui(ui: &mut egui::Ui, lang: Language, scale: &mut f32) {
    ui.label(lang.tr("dialog.mqo_scale"));
    ui.horizontal(|ui| {
        ui.add(
            egui::DragValue::new(scale)
                .range(0.001..=100_000.0)
                .speed(0.1)
                .max_decimals(4),
        )
        .accessible_name(lang.tr("dialog.mqo_scale"));
        if ui
            .small_button(lang.tr("dialog.mqo_scale_default"))
            .clicked()
        {
            *scale = DEFAULT_MQO_UNITS_PER_PMX_UNIT;
        }
    })
    .response
    .on_hover_text(lang.tr("dialog.mqo_scale_hint"));
    ui.end_row();
}

fn is_mqo_path(path: &Path, readable: bool) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        e.eq_ignore_ascii_case("mqo") || (readable && e.eq_ignore_ascii_case("mqoz"))
    })
}

impl EditorState {
    pub(super) fn import_mqo_ui(
        &mut self,
        ui: &mut egui::Ui,
        mut import: ImportMqoDialog,
    ) -> Outcome {
        let lang = self.lang();
        ui.heading(lang.tr("dialog.import_mqo_title"));
        ui.horizontal(|ui| {
            ui.add(
                egui::TextEdit::singleline(&mut import.path)
                    .hint_text("/path/to/model.mqo")
                    .desired_width(440.0),
            )
            .accessible_name(lang.tr("dialog.path"));
            if ui.button(lang.tr("dialog.browse")).clicked() {
                self.platform.push(PlatformRequest::BrowseImportMqo);
            }
        });
        let open = self.document.is_some();
        egui::Grid::new("import_mqo_options")
            .num_columns(2)
            .spacing([12.0, 6.0])
            .show(ui, |ui| {
                scale_ui(ui, lang, &mut import.scale);
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
                ui.label("");
                ui.checkbox(&mut import.skip_hidden, lang.tr("dialog.mqo_skip_hidden"));
                ui.end_row();
                ui.label("");
                ui.checkbox(
                    &mut import.vertex_colors,
                    lang.tr("dialog.mqo_vertex_colors"),
                );
                ui.end_row();
            });
        if !open {
            import.merge = false;
        }
        let path = PathBuf::from(import.path.trim());
        let valid = is_mqo_path(&path, true);
        if !valid && !import.path.trim().is_empty() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                lang.tr("dialog.mqo_import_extension"),
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
                    mqo: Some(MqoImportOptions {
                        units_per_pmx_unit: import.scale,
                        skip_hidden_objects: import.skip_hidden,
                        version: if import.vertex_colors {
                            PmxVersion::V2_1
                        } else {
                            PmxVersion::V2_0
                        },
                        ..MqoImportOptions::default()
                    }),
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
        outcome.unwrap_or(Outcome::Keep(Dialog::ImportMqo(import)))
    }

    pub(super) fn export_mqo_ui(
        &mut self,
        ui: &mut egui::Ui,
        mut export: ExportMqoDialog,
    ) -> Outcome {
        let lang = self.lang();
        let Some(document) = &self.document else {
            return Outcome::Close;
        };
        ui.heading(lang.tr("dialog.export_mqo_title"));
        ui.horizontal(|ui| {
            ui.add(egui::TextEdit::singleline(&mut export.path).desired_width(440.0))
                .accessible_name(lang.tr("dialog.path"));
            if ui.button(lang.tr("dialog.browse")).clicked() {
                self.platform.push(PlatformRequest::BrowseExportMqo {
                    suggested: Some(PathBuf::from(&export.path)),
                });
            }
        });
        let options = &mut export.options;
        egui::Grid::new("export_mqo_options")
            .num_columns(2)
            .spacing([12.0, 6.0])
            .show(ui, |ui| {
                scale_ui(ui, lang, &mut options.units_per_pmx_unit);
                ui.label(lang.tr("dialog.mqo_objects"));
                ui.horizontal(|ui| {
                    ui.radio_value(
                        &mut options.grouping,
                        MqoObjectGrouping::PerMaterial,
                        lang.tr("dialog.mqo_per_material"),
                    );
                    ui.radio_value(
                        &mut options.grouping,
                        MqoObjectGrouping::PerBone,
                        lang.tr("dialog.mqo_per_bone"),
                    );
                });
                ui.end_row();
                ui.label(lang.tr("dialog.mqo_mqx"));
                ui.vertical(|ui| {
                    ui.checkbox(&mut options.bones, lang.tr("dialog.mqo_bones"));
                    ui.checkbox(&mut options.morphs, lang.tr("dialog.mqo_morphs"));
                });
                ui.end_row();
            });
        let path = PathBuf::from(export.path.trim());
        let located = MqoExportOptions {
            model_dir: document.folder().map(Path::to_owned),
            ..MqoExportOptions::for_path(&path, None)
        };
        export.options.file_name = located.file_name;
        export.options.mqo_dir = located.mqo_dir;
        export.options.model_dir = located.model_dir;
        // What MQO cannot hold, worked out again only when the model or the options change.
        let key = (document.revision(), export.options.clone());
        if export.preview.as_ref().is_none_or(|(k, _)| *k != key) {
            let report =
                mqo_export_report(&document.model, &export.options).map_err(|e| e.to_string());
            export.preview = Some((key, report));
        }
        let mut blocked = false;
        if let Some((_, report)) = &export.preview {
            match report {
                Ok(report) => {
                    ui.add_space(6.0);
                    ui.label(lang.format(
                        "dialog.mqo_summary",
                        &[
                            ("objects", &report.objects),
                            ("vertices", &report.vertices),
                            ("faces", &report.faces),
                            ("targets", &report.morph_targets),
                        ],
                    ));
                    losses_ui(
                        ui,
                        lang.format("dialog.mqo_losses", &[("count", &report.losses.len())]),
                        "mqo_losses",
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
        let valid = is_mqo_path(&path, false);
        if !valid && !export.path.trim().is_empty() {
            ui.colored_label(ui.visuals().warn_fg_color, lang.tr("dialog.mqo_extension"));
        }
        ui.add_space(8.0);
        let mut outcome = None;
        ui.horizontal(|ui| {
            if ui
                .add_enabled(
                    valid && !blocked,
                    egui::Button::new(lang.tr("dialog.export")),
                )
                .clicked()
            {
                outcome = Some(Outcome::Close);
                self.export_mqo_to(&path, &export.options, false);
            }
            if ui.button(lang.tr("dialog.cancel")).clicked() {
                outcome = Some(Outcome::Close);
            }
        });
        outcome.unwrap_or(Outcome::Keep(Dialog::ExportMqo(export)))
    }

    /// Writes the MQO (and its `.mqx`) and says so in the status bar; the document keeps its
    /// own file.
    pub(super) fn export_mqo_to(
        &mut self,
        path: &Path,
        options: &MqoExportOptions,
        overwrite_confirmed: bool,
    ) {
        if self.asks_before_export(path, overwrite_confirmed, || {
            PendingExport::Mqo(options.clone())
        }) {
            return;
        }
        let Some(document) = &self.document else {
            return;
        };
        let started = std::time::Instant::now();
        let result = formats::save_mqo(&document.model, path, options)
            .map(|export| export.report.losses.len())
            .map_err(|error| error.to_string());
        self.export_finished(path, started, result, "status.mqo_lost");
    }
}
