//! File > Export CSV (PmxEditor's CSV: every element kind, its `;Pmx...` header lines and
//! column order). The export writes a copy and leaves the document as it is; File > Import CSV
//! has no dialog of its own (the native open dialog, then the CSV opens as File > Open does).

use super::dialog::{Dialog, DialogCx, Outcome, PathField, export_row, fill_path, path_row};
use crate::command::BrowsePurpose;
use crate::document::Document;
use pmx_core::formats::csv::{CsvEncoding, CsvSaveOptions};
use pmx_core::formats::{FileFormat, SaveOptions};
use std::path::Path;

const FORMAT: FileFormat = FileFormat::Csv;

#[derive(Debug)]
pub(super) struct ExportCsvDialog {
    path: String,
    encoding: CsvEncoding,
}

impl ExportCsvDialog {
    /// The model's path with `.csv`, or `untitled.csv` in the working folder.
    pub(super) fn new(document: &Document) -> Self {
        let path = document.export_path(FORMAT.spec().extension());
        Self {
            path: path.display().to_string(),
            encoding: CsvEncoding::default(),
        }
    }
}

impl Dialog for ExportCsvDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        if cx.document.is_none() {
            return Outcome::Close;
        }
        ui.heading(lang.tr("dialog.export_csv_title"));
        ui.label(lang.tr("dialog.export_csv_hint"));
        path_row(
            ui,
            cx,
            &mut self.path,
            PathField::new(BrowsePurpose::Export(FORMAT)),
        );
        ui.horizontal(|ui| {
            ui.label(lang.tr("info.encoding"));
            ui.radio_value(
                &mut self.encoding,
                CsvEncoding::Utf8Bom,
                lang.tr("dialog.csv_utf8"),
            );
            ui.radio_value(
                &mut self.encoding,
                CsvEncoding::ShiftJis,
                lang.tr("dialog.csv_sjis"),
            );
        });
        let csv = CsvSaveOptions {
            encoding: self.encoding,
        };
        let options = move || SaveOptions {
            csv,
            ..SaveOptions::default()
        };
        export_row(ui, cx, &self.path, FORMAT, Some(options))
    }

    fn browsed(&mut self, purpose: BrowsePurpose, path: &Path) -> bool {
        fill_path(&mut self.path, BrowsePurpose::Export(FORMAT), purpose, path)
    }
}
