//! File > Import MQO and File > Export MQO: Metasequoia files with their options (scale,
//! hidden objects, vertex colours; object grouping, the `.mqx` contents), and for the export
//! what MQO cannot hold, listed before anything is written.

use super::dialog::{
    Dialog, DialogCx, MergeChoice, Outcome, PathField, confirm_row, export_row, fill_path,
    focus_once, folder_text, import_path_warning, losses_ui, options_grid, path_row, radio_row,
};
use crate::command::{BrowsePurpose, Command};
use crate::document::Document;
use crate::i18n::Language;
use pmx_core::formats::mqo::{
    DEFAULT_MQO_UNITS_PER_PMX_UNIT, MqoExportOptions, MqoExportReport, MqoImportOptions,
    MqoObjectGrouping, mqo_export_report,
};
use pmx_core::formats::{FileFormat, LoadOptions, SaveOptions};
use pmx_core::model::PmxVersion;
use std::path::Path;

const FORMAT: FileFormat = FileFormat::Mqo;

/// File > Import MQO.
#[derive(Debug)]
pub(super) struct ImportMqoDialog {
    path: String,
    scale: f32,
    skip_hidden: bool,
    /// Keep vertex colours (the model becomes PMX 2.1).
    vertex_colors: bool,
    /// A new model, or merged into the open one.
    target: MergeChoice,
    /// The path field was given the focus when the dialog opened.
    focus_requested: bool,
}

impl ImportMqoDialog {
    pub(super) fn new(document: Option<&Document>) -> Self {
        Self {
            path: folder_text(document.and_then(Document::folder)),
            scale: DEFAULT_MQO_UNITS_PER_PMX_UNIT,
            skip_hidden: false,
            vertex_colors: false,
            target: MergeChoice::default(),
            focus_requested: false,
        }
    }

    fn load_options(&self) -> LoadOptions {
        LoadOptions {
            mqo: Some(MqoImportOptions {
                units_per_pmx_unit: self.scale,
                skip_hidden_objects: self.skip_hidden,
                version: if self.vertex_colors {
                    PmxVersion::V2_1
                } else {
                    PmxVersion::V2_0
                },
                ..MqoImportOptions::default()
            }),
            ..LoadOptions::default()
        }
    }
}

/// File > Export MQO.
#[derive(Debug)]
pub(super) struct ExportMqoDialog {
    path: String,
    options: MqoExportOptions,
    /// What the export would report, for (document revision, options).
    preview: Option<((u64, MqoExportOptions), Result<MqoExportReport, String>)>,
}

impl ExportMqoDialog {
    pub(super) fn new(document: &Document) -> Self {
        let path = document.export_path(FORMAT.spec().extension());
        Self {
            path: path.display().to_string(),
            options: MqoExportOptions::default(),
            preview: None,
        }
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

impl Dialog for ImportMqoDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        ui.heading(lang.tr("dialog.import_mqo_title"));
        let field = path_row(
            ui,
            cx,
            &mut self.path,
            PathField::new(BrowsePurpose::Import(FORMAT)).hint("/path/to/model.mqo"),
        );
        focus_once(&field, &mut self.focus_requested);
        let open = cx.document.is_some();
        options_grid(ui, "import_mqo_options", |ui| {
            scale_ui(ui, lang, &mut self.scale);
            self.target.rows_ui(ui, lang, open);
            ui.label("");
            ui.checkbox(&mut self.skip_hidden, lang.tr("dialog.mqo_skip_hidden"));
            ui.end_row();
            ui.label("");
            ui.checkbox(&mut self.vertex_colors, lang.tr("dialog.mqo_vertex_colors"));
            ui.end_row();
        });
        let path = import_path_warning(ui, lang, &self.path, FORMAT, "dialog.mqo_import_extension");
        let (options, merge) = (self.load_options(), self.target.options());
        let import = path.map(|path| {
            move || Command::Import {
                path,
                options,
                merge,
            }
        });
        confirm_row(ui, cx, "dialog.import", import)
    }

    fn browsed(&mut self, purpose: BrowsePurpose, path: &Path) -> bool {
        fill_path(&mut self.path, BrowsePurpose::Import(FORMAT), purpose, path)
    }
}

impl Dialog for ExportMqoDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        let Some(document) = cx.document else {
            return Outcome::Close;
        };
        ui.heading(lang.tr("dialog.export_mqo_title"));
        path_row(
            ui,
            cx,
            &mut self.path,
            PathField::new(BrowsePurpose::Export(FORMAT)),
        );
        let options = &mut self.options;
        options_grid(ui, "export_mqo_options", |ui| {
            scale_ui(ui, lang, &mut options.units_per_pmx_unit);
            radio_row(
                ui,
                lang.tr("dialog.mqo_objects"),
                &mut options.grouping,
                &[
                    (
                        MqoObjectGrouping::PerMaterial,
                        lang.tr("dialog.mqo_per_material"),
                    ),
                    (MqoObjectGrouping::PerBone, lang.tr("dialog.mqo_per_bone")),
                ],
            );
            ui.label(lang.tr("dialog.mqo_mqx"));
            ui.vertical(|ui| {
                ui.checkbox(&mut options.bones, lang.tr("dialog.mqo_bones"));
                ui.checkbox(&mut options.morphs, lang.tr("dialog.mqo_morphs"));
            });
            ui.end_row();
        });
        let located = MqoExportOptions {
            model_dir: document.folder().map(Path::to_owned),
            ..MqoExportOptions::for_path(Path::new(self.path.trim()), None)
        };
        self.options.file_name = located.file_name;
        self.options.mqo_dir = located.mqo_dir;
        self.options.model_dir = located.model_dir;
        // What MQO cannot hold, worked out again only when the model or the options change.
        let key = (document.revision(), self.options.clone());
        if self.preview.as_ref().is_none_or(|(k, _)| *k != key) {
            let report =
                mqo_export_report(&document.model, &self.options).map_err(|e| e.to_string());
            self.preview = Some((key, report));
        }
        let mut blocked = false;
        if let Some((_, report)) = &self.preview {
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
        let mqo = &self.options;
        let options = move || SaveOptions {
            mqo: mqo.clone(),
            ..SaveOptions::default()
        };
        export_row(ui, cx, &self.path, FORMAT, (!blocked).then_some(options))
    }

    fn browsed(&mut self, purpose: BrowsePurpose, path: &Path) -> bool {
        fill_path(&mut self.path, BrowsePurpose::Export(FORMAT), purpose, path)
    }
}
