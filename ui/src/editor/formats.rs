//! The editor's side of the format registry (`pmx_core::formats::registry`): for each format
//! the File menu offers, its menu items and the dialog each opens. What a format can do, its
//! extensions and its file-dialog filters come from the core's registry.

use super::csv_dialog::ExportCsvDialog;
use super::dialog::Dialog;
use super::dialogs::SaveAsDialog;
use super::mqo_dialogs::{ExportMqoDialog, ImportMqoDialog};
use super::smf_dialogs::ExportSmfDialog;
use super::vrm_dialogs::ExportVrmDialog;
use super::vrm_import_dialog::ImportVrmDialog;
use crate::document::Document;
use pmx_core::formats::FileFormat;

/// Where a format's items stand in the File menu (each group between separators).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MenuGroup {
    /// Beside Save and Save as (Export PMD is Save as for a `.pmd`).
    Save,
    /// The conversions: imports, then exports.
    Convert,
    /// PmxEditor's text form.
    Text,
}

/// Makes a format's import dialog (for the open document, if any).
pub(super) type ImportDialog = fn(Option<&Document>) -> Box<dyn Dialog>;

/// Makes a format's export dialog for the open document.
pub(super) type ExportDialog = fn(&Document) -> Box<dyn Dialog>;

/// File > Import of a format.
#[derive(Debug)]
pub(super) struct ImportItem {
    /// The menu label's key.
    pub label: &'static str,
    /// The dialog; `None`: the native open dialog, and the file chosen is opened (a format
    /// that is a document, imported as it is opened).
    pub dialog: Option<ImportDialog>,
}

/// File > Export of a format.
#[derive(Debug)]
pub(super) struct ExportItem {
    /// The menu label's key.
    pub label: &'static str,
    pub dialog: ExportDialog,
}

/// How the editor offers one format.
#[derive(Debug)]
pub(super) struct FormatUi {
    pub format: FileFormat,
    pub menu: MenuGroup,
    pub import: Option<ImportItem>,
    pub export: Option<ExportItem>,
}

/// The formats of the File menu, in the registry's order (PMX and JSON are opened and saved
/// as documents: File > Open and Save as).
pub(super) const FORMAT_UI: &[FormatUi] = &[
    FormatUi {
        format: FileFormat::Pmd,
        menu: MenuGroup::Save,
        import: None,
        export: Some(ExportItem {
            label: "menu.export_pmd",
            dialog: |document| Box::new(SaveAsDialog::export_pmd(document)),
        }),
    },
    FormatUi {
        format: FileFormat::Mqo,
        menu: MenuGroup::Convert,
        import: Some(ImportItem {
            label: "menu.import_mqo",
            dialog: Some(|document| Box::new(ImportMqoDialog::new(document))),
        }),
        export: Some(ExportItem {
            label: "menu.export_mqo",
            dialog: |document| Box::new(ExportMqoDialog::new(document)),
        }),
    },
    FormatUi {
        format: FileFormat::Smf,
        menu: MenuGroup::Convert,
        import: None,
        export: Some(ExportItem {
            label: "menu.export_smf",
            dialog: |document| Box::new(ExportSmfDialog::new(document)),
        }),
    },
    FormatUi {
        format: FileFormat::Vrm,
        menu: MenuGroup::Convert,
        import: Some(ImportItem {
            label: "menu.import_vrm",
            dialog: Some(|document| Box::new(ImportVrmDialog::new(document))),
        }),
        export: Some(ExportItem {
            label: "menu.export_vrm",
            dialog: |document| Box::new(ExportVrmDialog::new(document)),
        }),
    },
    FormatUi {
        format: FileFormat::Csv,
        menu: MenuGroup::Text,
        import: Some(ImportItem {
            label: "menu.import_csv",
            dialog: None,
        }),
        export: Some(ExportItem {
            label: "menu.export_csv",
            dialog: |document| Box::new(ExportCsvDialog::new(document)),
        }),
    },
];

/// How the editor offers `format` (`None`: only File > Open and Save as).
pub(super) fn format_ui(format: FileFormat) -> Option<&'static FormatUi> {
    FORMAT_UI.iter().find(|entry| entry.format == format)
}

/// Whether File > Import `format` is the native open dialog, the file then opened (no
/// dialog of its own).
pub(super) fn opens_as_import(format: FileFormat) -> bool {
    format_ui(format)
        .and_then(|entry| entry.import.as_ref())
        .is_some_and(|import| import.dialog.is_none())
}

/// Whether a document saved to `path` is an export: a file of a format File > Export writes
/// (Export PMD is Save as for a `.pmd`). Such files go to the recent exports, never to the
/// recent files.
pub(super) fn written_as_export(path: &std::path::Path) -> bool {
    FileFormat::from_extension(path)
        .and_then(format_ui)
        .is_some_and(|entry| entry.export.is_some())
}

/// The File > Export item that writes `path` again (by its extension; `None`: no format's).
pub(super) fn export_of(path: &std::path::Path) -> Option<&'static FormatUi> {
    FileFormat::from_extension(path)
        .and_then(format_ui)
        .filter(|entry| entry.export.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmx_core::formats::registry::FORMATS;

    #[test]
    fn every_export_has_its_menu_item_and_dialog() {
        for spec in &FORMATS {
            if spec.abilities.export {
                assert!(
                    format_ui(spec.format).is_some_and(|entry| entry.export.is_some()),
                    "{} is exported but has no File > Export item",
                    spec.name
                );
            }
        }
        // In the registry's order, each format once.
        let order: Vec<usize> = FORMAT_UI
            .iter()
            .map(|entry| entry.format as usize)
            .collect();
        assert!(order.windows(2).all(|pair| pair[0] < pair[1]), "{order:?}");
    }
}
