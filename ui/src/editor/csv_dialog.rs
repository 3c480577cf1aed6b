//! File > Export CSV (PmxEditor's CSV: every element kind, its `;Pmx...` header lines and
//! column order) and File > Import CSV. The export writes a copy and leaves the document as it
//! is; the import opens the CSV as a model, as File > Open does.

use super::dialogs::{Dialog, Outcome, PendingExport};
use super::{EditorState, PlatformRequest};
use crate::document::Document;
use pmx_core::formats::csv::{CsvEncoding, CsvSaveOptions};
use pmx_core::formats::{self, FileFormat};
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub(super) struct ExportCsvDialog {
    pub path: String,
    encoding: CsvEncoding,
}

impl ExportCsvDialog {
    /// The model's path with `.csv`, or `untitled.csv` in the working folder.
    pub(super) fn new(document: &Document) -> Self {
        let path = document.export_path("csv");
        Self {
            path: path.display().to_string(),
            encoding: CsvEncoding::default(),
        }
    }
}

impl EditorState {
    pub(super) fn export_csv_ui(
        &mut self,
        ui: &mut egui::Ui,
        mut export: ExportCsvDialog,
    ) -> Outcome {
        let lang = self.lang();
        if self.document.is_none() {
            return Outcome::Close;
        }
        ui.heading(lang.tr("dialog.export_csv_title"));
        ui.label(lang.tr("dialog.export_csv_hint"));
        ui.horizontal(|ui| {
            ui.add(egui::TextEdit::singleline(&mut export.path).desired_width(440.0))
                .accessible_name(lang.tr("dialog.path"));
            if ui.button(lang.tr("dialog.browse")).clicked() {
                self.platform.push(PlatformRequest::BrowseExportCsv {
                    suggested: Some(PathBuf::from(&export.path)),
                });
            }
        });
        ui.horizontal(|ui| {
            ui.label(lang.tr("info.encoding"));
            ui.radio_value(
                &mut export.encoding,
                CsvEncoding::Utf8Bom,
                lang.tr("dialog.csv_utf8"),
            );
            ui.radio_value(
                &mut export.encoding,
                CsvEncoding::ShiftJis,
                lang.tr("dialog.csv_sjis"),
            );
        });
        let path = PathBuf::from(export.path.trim());
        let valid = FileFormat::from_extension(&path) == Some(FileFormat::Csv);
        if !valid && !export.path.trim().is_empty() {
            ui.colored_label(ui.visuals().warn_fg_color, lang.tr("dialog.csv_extension"));
        }
        ui.add_space(8.0);
        let mut outcome = None;
        ui.horizontal(|ui| {
            if ui
                .add_enabled(valid, egui::Button::new(lang.tr("dialog.export")))
                .clicked()
            {
                self.export_csv_to(&path, export.encoding, false);
                outcome = Some(Outcome::Close);
            }
            if ui.button(lang.tr("dialog.cancel")).clicked() {
                outcome = Some(Outcome::Close);
            }
        });
        outcome.unwrap_or(Outcome::Keep(Dialog::ExportCsv(export)))
    }

    /// Writes the open model as CSV at `path` (temporary file, then renamed); the document
    /// keeps its own file and stays as it was.
    pub(super) fn export_csv_to(
        &mut self,
        path: &Path,
        encoding: CsvEncoding,
        overwrite_confirmed: bool,
    ) {
        if self.asks_before_export(path, overwrite_confirmed, || PendingExport::Csv(encoding)) {
            return;
        }
        let Some(document) = &self.document else {
            return;
        };
        let started = std::time::Instant::now();
        let result = formats::save_csv(&document.model, path, &CsvSaveOptions { encoding })
            .map(|()| 0)
            .map_err(|error| error.to_string());
        self.export_finished(path, started, result, "status.save_warnings");
    }
}
