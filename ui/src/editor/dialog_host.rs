//! The editor's side of its dialogs: it shows the open one (a [`Dialog`] value), and runs what
//! dialogs and the File menu ask for that writes or opens files: Save then an action, the
//! import and export dialogs of a format, an export (asking before writing over the model's
//! source) and its report in the status bar.

use super::dialog::{Dialog, DialogCx, Outcome, PendingExport, refusal};
use super::dialogs::{AboutDialog, ConfirmOverwrite, ErrorDialog, SaveAsDialog, ShortcutsDialog};
use super::{EditorState, MessageLevel, PendingAction, PlatformRequest, formats};
use crate::command::BrowsePurpose;
use crate::document::file_name;
use pmx_core::edit::{EditLabel, LabelArg};
use pmx_core::formats::{self as core_formats, FileError, FileFormat, SaveOptions};
use std::path::Path;

impl EditorState {
    /// Shows the open dialog as a modal window, and queues the commands it answers with.
    pub(super) fn dialogs_ui(&mut self, ctx: &egui::Context) {
        let Some(mut dialog) = self.dialog.take() else {
            return;
        };
        let modal = egui::Modal::new(egui::Id::unique("editor_dialog"));
        let mut commands = Vec::new();
        let mut outcome = Outcome::Close;
        let response = modal.show(ctx, |ui| {
            ui.set_max_width(620.0);
            let mut cx = DialogCx::new(
                self.lang(),
                self.document.as_ref(),
                &self.settings.recent_files,
                &mut commands,
            );
            outcome = dialog.ui(ui, &mut cx);
        });
        for command in commands {
            self.commands.push(command);
        }
        // Escape or a click beside the dialog cancels it, as Cancel does.
        if response.should_close() {
            outcome = Outcome::Close;
        }
        match outcome {
            Outcome::Keep => self.dialog = Some(dialog),
            Outcome::Replace(next) => self.dialog = Some(next),
            Outcome::Close => {}
        }
    }

    /// Shows `dialog` (in place of any other).
    pub(super) fn show_dialog(&mut self, dialog: impl Dialog + 'static) {
        self.dialog = Some(Box::new(dialog));
    }

    /// Shows the about dialog.
    pub(super) fn show_about(&mut self) {
        self.show_dialog(AboutDialog);
    }

    pub(super) fn show_shortcuts(&mut self) {
        self.show_dialog(ShortcutsDialog);
    }

    /// The unsaved-changes question's Save: saves in place and does `action`, or shows Save as,
    /// which does it once saved.
    pub(super) fn save_then(&mut self, action: PendingAction) {
        let Some(document) = &self.document else {
            return;
        };
        if document.save_in_place_path().is_some() {
            if self.save() {
                self.perform(action);
            }
        } else {
            let dialog = SaveAsDialog::new(document, Some(action));
            self.show_dialog(dialog);
        }
    }

    /// File > Import `format`: its dialog, or the native open dialog for a format imported as
    /// it is opened.
    pub(super) fn show_import_dialog(&mut self, format: FileFormat) {
        let Some(import) = formats::format_ui(format).and_then(|entry| entry.import.as_ref())
        else {
            return;
        };
        match import.dialog {
            Some(dialog) => self.dialog = Some(dialog(self.document.as_ref())),
            None => self.platform.push(PlatformRequest::Browse {
                purpose: BrowsePurpose::Import(format),
                suggested: None,
            }),
        }
    }

    /// Writes the open model to `path` as `format` and says so in the status bar; the document
    /// keeps its own file and stays as it was (no undo step, no unsaved change). Over the file
    /// the model was read from in part or converted from, it asks first unless
    /// `overwrite_confirmed`.
    pub(super) fn export_to(
        &mut self,
        format: FileFormat,
        path: &Path,
        options: Box<SaveOptions>,
        overwrite_confirmed: bool,
    ) {
        let Some(document) = &self.document else {
            return;
        };
        if !overwrite_confirmed && let Some(loss) = document.overwrite_loss(path).cloned() {
            self.show_dialog(ConfirmOverwrite::export(
                path.to_owned(),
                loss,
                PendingExport { format, options },
            ));
            return;
        }
        let started = std::time::Instant::now();
        let lang = self.lang();
        let result = core_formats::write_path(&document.model, path, format, &options)
            .map(|report| report.save_report().warnings.len())
            .map_err(|error| match &error {
                FileError::Write { path, source } => {
                    format!("{}: {}", path.display(), refusal(source, lang))
                }
                other => other.render(lang),
            });
        self.export_finished(format.name(), path, started, result);
    }

    /// File > Export UV layout…: the PNG of the open model's UV wireframe written to `path`
    /// (through a temporary file), reported as an export is.
    pub(super) fn export_uv_layout(
        &mut self,
        path: &Path,
        options: &pmx_core::uv::UvLayoutOptions,
    ) {
        let Some(document) = &self.document else {
            return;
        };
        let started = std::time::Instant::now();
        let result = pmx_core::uv::uv_layout_png(&document.model, document.folder(), options)
            .map_err(|error| error.to_string())
            .and_then(|png| {
                core_formats::write_atomic(path, &png)
                    .map_err(|error| format!("{}: {error}", path.display()))
            })
            .map(|()| 0);
        self.export_finished("png", path, started, result);
    }

    /// Ends an export: the status bar says what was written, in how long, and how many things
    /// the format could not hold; a failure is said in the status bar and in an error dialog.
    /// The document is not touched either way.
    fn export_finished(
        &mut self,
        format: &str,
        path: &Path,
        started: std::time::Instant,
        result: Result<usize, String>,
    ) {
        match result {
            Ok(lost) => {
                self.settings.add_recent_export(path);
                let seconds = format!("{:.2}", started.elapsed().as_secs_f64());
                let mut text = vec![
                    EditLabel::new("status.exported")
                        .arg("name", LabelArg::Text(file_name(path)))
                        .arg("seconds", LabelArg::Text(seconds)),
                ];
                if lost > 0 {
                    text.push(
                        EditLabel::new("status.export_lost")
                            .arg("format", LabelArg::Text(format.to_ascii_uppercase()))
                            .arg("count", LabelArg::Number(lost)),
                    );
                }
                let level = if lost > 0 {
                    MessageLevel::Warning
                } else {
                    MessageLevel::Info
                };
                self.set_message_parts(level, text);
            }
            Err(message) => {
                self.set_message(MessageLevel::Error, message.as_str());
                self.show_dialog(ErrorDialog {
                    title: "dialog.export_failed",
                    message,
                });
            }
        }
    }
}
