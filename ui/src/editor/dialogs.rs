//! Modal dialogs: unsaved changes, open (built-in path field beside the native dialog), save
//! as (version, encoding, index sizes, and what the chosen target cannot hold), export PMD
//! (its own title, no PMX choices, what PMD loses), load errors with recovery, about, keyboard
//! shortcuts.

use super::{EditorState, MessageLevel, PendingAction, PlatformRequest};
use crate::command::Command;
use crate::document::{Document, LoadFailure, SaveSettings, SourceLoss, file_name};
use crate::i18n::Language;
use pmx_core::edit::{EditLabel, LabelArg};
use pmx_core::formats::FileFormat;
use pmx_core::formats::pmx::{IndexSizeMode, pmx21_features};
use pmx_core::model::{PmxVersion, TextEncoding};
use pmx_core::validate::{CheckOptions, Issue, Target, check};
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub(super) enum Dialog {
    Unsaved {
        action: PendingAction,
    },
    Open(OpenDialog),
    SaveAs(SaveAsDialog),
    /// Save as named the file the model was read from only in part, or converted from.
    ConfirmOverwrite(Box<ConfirmOverwrite>),
    LoadError(LoadFailure),
    ImportMqo(super::mqo_dialogs::ImportMqoDialog),
    ImportVrm(super::vrm_import_dialog::ImportVrmDialog),
    ExportMqo(super::mqo_dialogs::ExportMqoDialog),
    ExportSmf(super::smf_dialogs::ExportSmfDialog),
    ExportVrm(Box<super::vrm_dialogs::ExportVrmDialog>),
    Error {
        title: &'static str,
        message: String,
    },
    Plugin(Box<super::plugin_dialog::PluginDialog>),
    ExportCsv(super::csv_dialog::ExportCsvDialog),
    ScriptsFolder(String),
    About,
    Shortcuts,
}

#[derive(Debug)]
pub(super) struct OpenDialog {
    path: String,
    focus_requested: bool,
}

#[derive(Debug)]
pub(super) struct SaveAsDialog {
    pub path: String,
    /// File > Export PMD: a PMD file, with none of the PMX choices.
    export_pmd: bool,
    settings: SaveSettings,
    /// What to do once saved (when Save as came from the unsaved-changes question).
    then: Option<PendingAction>,
    /// The validator's errors for the target, for (document revision, version).
    problems: Option<TargetProblems>,
}

/// The question before Save as or an export writes over the document's damaged or foreign
/// source.
#[derive(Debug)]
pub(super) struct ConfirmOverwrite {
    path: PathBuf,
    loss: SourceLoss,
    after: AfterYes,
}

/// What the question goes on to do after the yes.
#[derive(Debug)]
enum AfterYes {
    /// Save as (Back returns to it; its path and settings are used).
    Save(SaveAsDialog),
    /// An export to the same path with these settings.
    Export(PendingExport),
}

/// An export waiting for the yes to write over the document's source.
#[derive(Debug)]
pub(super) enum PendingExport {
    Mqo(pmx_core::formats::mqo::MqoExportOptions),
    Smf(pmx_core::formats::smf::SmfExportOptions),
    Vrm(Box<pmx_core::formats::vrm::VrmExportOptions>),
    Csv(pmx_core::formats::csv::CsvEncoding),
}

#[derive(Debug)]
struct TargetProblems {
    key: (u64, Target),
    errors: Vec<Issue>,
    /// For a PMD target: everything the PMD file cannot hold (the validator's `W-PMD-*` warnings),
    /// the same list `check --target pmd` prints, shown before saving.
    losses: Vec<Issue>,
    /// PMX 2.1 features a PMX 2.0 file cannot hold (the writer refuses them).
    blocking: usize,
}

/// Problems listed at most (the count of the rest is shown).
pub(super) const MAX_PROBLEMS_SHOWN: usize = 12;

/// An export dialog's list of what the format cannot hold: `heading` in the warning colour,
/// then the first `2 × MAX_PROBLEMS_SHOWN` losses in `lang`, scrolling (the MQO and SMF exports).
pub(super) fn losses_ui<L>(
    ui: &mut egui::Ui,
    heading: String,
    salt: &str,
    losses: &[L],
    message: impl Fn(&L) -> String,
) {
    if losses.is_empty() {
        return;
    }
    ui.colored_label(ui.visuals().warn_fg_color, heading);
    egui::ScrollArea::vertical()
        .id_salt(salt)
        .max_height(200.0)
        .show(ui, |ui| {
            for loss in losses.iter().take(MAX_PROBLEMS_SHOWN * 2) {
                ui.label(message(loss));
            }
        });
}

impl Dialog {
    pub(super) fn open(document: Option<&Document>) -> Self {
        let folder = document
            .and_then(|d| d.path.as_deref())
            .and_then(Path::parent)
            .map(|dir| format!("{}{}", dir.display(), std::path::MAIN_SEPARATOR))
            .unwrap_or_default();
        Dialog::Open(OpenDialog {
            path: folder,
            focus_requested: false,
        })
    }

    pub(super) fn save_as(document: &Document, then: Option<PendingAction>) -> Self {
        // A recovered or converted model is offered as a new PMX beside the file it came from.
        let path = document.save_as_suggestion();
        Dialog::SaveAs(SaveAsDialog {
            path: path.display().to_string(),
            export_pmd: false,
            settings: document.save_settings,
            then,
            problems: None,
        })
    }

    /// File > Export PMD: a `.pmd` path, and the list of what PMD loses.
    pub(super) fn export_pmd(document: &Document) -> Self {
        let mut dialog = Self::save_as(document, None);
        if let Dialog::SaveAs(save) = &mut dialog {
            let mut path = PathBuf::from(&save.path);
            path.set_extension("pmd");
            save.path = path.display().to_string();
            save.export_pmd = true;
        }
        dialog
    }
}

/// Everything of `model` a PMD file cannot hold: the validator's `W-PMD-*` warnings for the
/// PMD target, the list `check --target pmd` prints. The export dialog and the status bar after
/// saving a PMD file both count this list, so they always agree.
pub(super) fn pmd_losses(model: &pmx_core::Model) -> Vec<Issue> {
    let options = CheckOptions {
        target: Some(Target::Pmd),
        ..CheckOptions::default()
    };
    check(model, None, &options)
        .into_iter()
        .filter(|issue| !issue.is_error() && issue.code.starts_with("W-PMD"))
        .collect()
}

/// A scrolling list of issues, path then message, with the count of those not shown.
fn issue_list_ui(ui: &mut egui::Ui, lang: Language, id: &str, issues: &[Issue]) {
    egui::ScrollArea::vertical()
        .id_salt(id)
        .max_height(180.0)
        .show(ui, |ui| {
            for issue in issues.iter().take(MAX_PROBLEMS_SHOWN) {
                let message = match lang {
                    Language::Japanese => &issue.message_ja,
                    Language::English => &issue.message_en,
                };
                ui.label(egui::RichText::new(format!("{}  {message}", issue.path)).monospace());
            }
            if issues.len() > MAX_PROBLEMS_SHOWN {
                ui.label(lang.format(
                    "dialog.and_more",
                    &[("count", &(issues.len() - MAX_PROBLEMS_SHOWN))],
                ));
            }
        });
}

/// The PMX choices of Save as: version, encoding, index sizes.
fn save_options_ui(
    ui: &mut egui::Ui,
    lang: Language,
    settings: &mut SaveSettings,
    document: &Document,
) {
    egui::Grid::new("save_as_options")
        .num_columns(2)
        .spacing([12.0, 6.0])
        .show(ui, |ui| {
            ui.label(lang.tr("info.version"));
            ui.horizontal(|ui| {
                ui.radio_value(&mut settings.version, PmxVersion::V2_0, "PMX 2.0");
                ui.radio_value(&mut settings.version, PmxVersion::V2_1, "PMX 2.1");
            });
            ui.end_row();
            ui.label(lang.tr("info.encoding"));
            ui.horizontal(|ui| {
                ui.radio_value(&mut settings.encoding, TextEncoding::Utf16, "UTF-16LE");
                ui.radio_value(&mut settings.encoding, TextEncoding::Utf8, "UTF-8");
            });
            ui.end_row();
            ui.label(lang.tr("info.index_sizes"));
            ui.horizontal(|ui| {
                ui.radio_value(
                    &mut settings.index_sizes,
                    IndexSizeMode::Minimal,
                    lang.tr("dialog.index_minimal"),
                );
                ui.add_enabled_ui(document.model.header.index_sizes.is_some(), |ui| {
                    ui.radio_value(
                        &mut settings.index_sizes,
                        IndexSizeMode::Keep,
                        lang.tr("dialog.index_keep"),
                    );
                });
            });
            ui.end_row();
        });
}

/// What a dialog's frame decided.
pub(super) enum Outcome {
    Keep(Dialog),
    Close,
}

impl EditorState {
    pub(super) fn dialogs_ui(&mut self, ctx: &egui::Context) {
        let Some(dialog) = self.dialog.take() else {
            return;
        };
        let modal = egui::Modal::new(egui::Id::unique("editor_dialog"));
        let mut outcome = Outcome::Close;
        let response = modal.show(ctx, |ui| {
            ui.set_max_width(620.0);
            outcome = match dialog {
                Dialog::Unsaved { action } => self.unsaved_ui(ui, action),
                Dialog::Open(open) => self.open_ui(ui, open),
                Dialog::SaveAs(save) => self.save_as_ui(ui, save),
                Dialog::ConfirmOverwrite(confirm) => self.confirm_overwrite_ui(ui, *confirm),
                Dialog::LoadError(failure) => self.load_error_ui(ui, failure),
                Dialog::ImportMqo(import) => self.import_mqo_ui(ui, import),
                Dialog::ImportVrm(import) => self.import_vrm_ui(ui, import),
                Dialog::ExportMqo(export) => self.export_mqo_ui(ui, export),
                Dialog::ExportSmf(export) => self.export_smf_ui(ui, export),
                Dialog::ExportVrm(export) => self.export_vrm_ui(ui, export),
                Dialog::Error { title, message } => self.error_ui(ui, title, message),
                Dialog::Plugin(plugin) => self.plugin_ui(ui, plugin),
                Dialog::ExportCsv(export) => self.export_csv_ui(ui, export),
                Dialog::ScriptsFolder(path) => self.scripts_folder_ui(ui, path),
                Dialog::About => self.about_ui(ui),
                Dialog::Shortcuts => self.shortcuts_ui(ui),
            };
        });
        // Escape or a click beside the dialog cancels it, as Cancel does.
        if response.should_close() {
            outcome = Outcome::Close;
        }
        if let Outcome::Keep(dialog) = outcome
            && self.dialog.is_none()
        {
            self.dialog = Some(dialog);
        }
    }

    fn unsaved_ui(&mut self, ui: &mut egui::Ui, action: PendingAction) -> Outcome {
        let lang = self.lang();
        let name = self
            .document
            .as_ref()
            .and_then(Document::file_name)
            .unwrap_or_else(|| lang.tr("title.untitled").to_owned());
        ui.heading(lang.tr("dialog.unsaved_title"));
        ui.label(lang.format("dialog.unsaved_text", &[("name", &name)]));
        ui.add_space(8.0);
        let mut outcome = None;
        ui.horizontal(|ui| {
            if ui.button(lang.tr("dialog.save")).clicked() {
                let in_place = self
                    .document
                    .as_ref()
                    .is_some_and(|d| d.save_in_place_path().is_some());
                if in_place {
                    if self.save() {
                        self.perform(action.clone());
                    }
                    outcome = Some(Outcome::Close);
                } else if let Some(document) = &self.document {
                    outcome = Some(Outcome::Keep(Dialog::save_as(
                        document,
                        Some(action.clone()),
                    )));
                }
            }
            if ui.button(lang.tr("dialog.dont_save")).clicked() {
                self.perform(action.clone());
                outcome = Some(Outcome::Close);
            }
            if ui.button(lang.tr("dialog.cancel")).clicked() {
                outcome = Some(Outcome::Close);
            }
        });
        outcome.unwrap_or(Outcome::Keep(Dialog::Unsaved { action }))
    }

    fn open_ui(&mut self, ui: &mut egui::Ui, mut open: OpenDialog) -> Outcome {
        let lang = self.lang();
        ui.heading(lang.tr("dialog.open_title"));
        ui.label(lang.tr("dialog.open_hint"));
        let mut chosen: Option<PathBuf> = None;
        ui.horizontal(|ui| {
            let field = ui
                .add(
                    egui::TextEdit::singleline(&mut open.path)
                        .hint_text("/path/to/model.pmx")
                        .desired_width(440.0),
                )
                .accessible_name(lang.tr("dialog.path"));
            if !open.focus_requested {
                field.request_focus();
                open.focus_requested = true;
            }
            if field.lost_focus()
                && ui.input(|i| i.key_pressed(egui::Key::Enter))
                && !open.path.trim().is_empty()
            {
                chosen = Some(PathBuf::from(open.path.trim()));
            }
            if ui.button(lang.tr("dialog.browse")).clicked() {
                self.platform.push(PlatformRequest::BrowseOpen);
            }
        });
        if !self.settings.recent_files.is_empty() {
            ui.add_space(6.0);
            ui.label(lang.tr("menu.recent"));
            for path in &self.settings.recent_files {
                if ui
                    .button(file_name(path))
                    .on_hover_text(path.display().to_string())
                    .clicked()
                {
                    chosen = Some(path.clone());
                }
            }
        }
        ui.add_space(8.0);
        let mut cancelled = false;
        ui.horizontal(|ui| {
            let can_open = !open.path.trim().is_empty();
            if ui
                .add_enabled(can_open, egui::Button::new(lang.tr("dialog.open")))
                .clicked()
            {
                chosen = Some(PathBuf::from(open.path.trim()));
            }
            if ui.button(lang.tr("dialog.cancel")).clicked() {
                cancelled = true;
            }
        });
        if let Some(path) = chosen {
            self.commands.push(Command::Open(path));
            return Outcome::Close;
        }
        if cancelled {
            Outcome::Close
        } else {
            Outcome::Keep(Dialog::Open(open))
        }
    }

    fn save_as_ui(&mut self, ui: &mut egui::Ui, mut save: SaveAsDialog) -> Outcome {
        let lang = self.lang();
        let Some(document) = &self.document else {
            return Outcome::Close;
        };
        ui.heading(lang.tr(if save.export_pmd {
            "dialog.export_pmd_title"
        } else {
            "dialog.save_as_title"
        }));
        // Why Save asked: the file the model came from stays as it is.
        let source_name = document.source_file().map(file_name).unwrap_or_default();
        match &document.source_loss {
            Some(SourceLoss::Recovered { .. }) => {
                ui.colored_label(
                    ui.visuals().warn_fg_color,
                    lang.format("dialog.save_recovered_note", &[("name", &source_name)]),
                );
            }
            Some(SourceLoss::Foreign(format)) => {
                ui.label(lang.format(
                    "dialog.save_converted_note",
                    &[
                        ("name", &source_name),
                        ("format", &format.name().to_ascii_uppercase()),
                    ],
                ));
            }
            None => {}
        }
        ui.horizontal(|ui| {
            ui.add(egui::TextEdit::singleline(&mut save.path).desired_width(440.0))
                .accessible_name(lang.tr("dialog.path"));
            if ui.button(lang.tr("dialog.browse")).clicked() {
                self.platform.push(PlatformRequest::BrowseSave {
                    suggested: Some(PathBuf::from(&save.path)),
                });
            }
        });
        let path = PathBuf::from(save.path.trim());
        let format = FileFormat::from_extension(&path);
        if save.export_pmd {
            // PMD has no version, encoding or index-size choice: say so instead of offering them.
            ui.weak(lang.tr("dialog.pmd_note"));
        } else {
            save_options_ui(ui, lang, &mut save.settings, document);
        }
        if format == Some(FileFormat::Json) {
            ui.weak(lang.tr("dialog.json_note"));
        }
        // The validator's errors for the chosen target come first; the PMX 2.1 features a 2.0
        // file cannot hold block saving (the writer refuses them).
        let target = if format == Some(FileFormat::Pmd) {
            Target::Pmd
        } else {
            Target::Pmx(save.settings.version)
        };
        let key = (document.revision(), target);
        if save.problems.as_ref().is_none_or(|p| p.key != key) {
            let blocking = match target {
                Target::Pmx(PmxVersion::V2_0) => pmx21_features(&document.model).len(),
                _ => 0,
            };
            let options = CheckOptions {
                target: Some(target),
                ..CheckOptions::default()
            };
            let (errors, losses) = check(&document.model, None, &options)
                .into_iter()
                .filter(|issue| issue.is_error() || issue.code.starts_with("W-PMD"))
                .partition(Issue::is_error);
            save.problems = Some(TargetProblems {
                key,
                errors,
                losses,
                blocking,
            });
        }
        let (errors, losses, blocking_count) =
            save.problems.as_ref().map_or((&[][..], &[][..], 0), |p| {
                (p.errors.as_slice(), p.losses.as_slice(), p.blocking)
            });
        let blocking = blocking_count > 0 && format != Some(FileFormat::Json);
        if !errors.is_empty() {
            ui.add_space(6.0);
            ui.colored_label(
                ui.visuals().error_fg_color,
                lang.format("dialog.target_errors", &[("count", &errors.len())]),
            );
            issue_list_ui(ui, lang, "target_errors", errors);
        }
        if !losses.is_empty() {
            ui.add_space(6.0);
            ui.colored_label(
                ui.visuals().warn_fg_color,
                lang.format("dialog.pmd_losses", &[("count", &losses.len())]),
            );
            issue_list_ui(ui, lang, "pmd_losses", losses);
        }
        if blocking {
            ui.colored_label(
                ui.visuals().error_fg_color,
                lang.format("dialog.version_problems", &[("count", &blocking_count)]),
            );
        }
        // Export PMD writes PMD only (Save as is there for the other formats).
        // MQO, SMF and VRM are exports (File > Export), never the document's own file.
        let wrong_extension = if save.export_pmd {
            format != Some(FileFormat::Pmd)
        } else {
            matches!(
                format,
                None | Some(FileFormat::Mqo | FileFormat::Smf | FileFormat::Vrm)
            )
        };
        if wrong_extension && !save.path.trim().is_empty() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                lang.tr(if save.export_pmd {
                    "dialog.pmd_extension"
                } else if format == Some(FileFormat::Mqo) {
                    "dialog.mqo_use_export"
                } else if format == Some(FileFormat::Smf) {
                    "dialog.smf_use_export"
                } else if format == Some(FileFormat::Vrm) {
                    "dialog.vrm_use_export"
                } else {
                    "dialog.unknown_extension"
                }),
            );
        }
        ui.add_space(8.0);
        let mut outcome = None;
        ui.horizontal(|ui| {
            let can_save = !wrong_extension && !blocking;
            let button = lang.tr(if save.export_pmd {
                "dialog.export"
            } else {
                "dialog.save"
            });
            if ui
                .add_enabled(can_save, egui::Button::new(button))
                .clicked()
            {
                let overwrite = self
                    .document
                    .as_ref()
                    .and_then(|d| d.overwrite_loss(&path))
                    .cloned();
                if let Some(loss) = overwrite {
                    // The file the model was read from in part, or converted from: never
                    // written over without the user's explicit yes.
                    outcome = Some(Outcome::Keep(Dialog::ConfirmOverwrite(Box::new(
                        ConfirmOverwrite {
                            path: path.clone(),
                            loss,
                            after: AfterYes::Save(SaveAsDialog {
                                path: save.path.clone(),
                                export_pmd: save.export_pmd,
                                settings: save.settings,
                                then: save.then.take(),
                                problems: None,
                            }),
                        },
                    ))));
                } else if self.save_to(path.clone(), save.settings) {
                    if let Some(action) = save.then.take() {
                        self.perform(action);
                    }
                    outcome = Some(Outcome::Close);
                } else {
                    // save_to opened the error dialog.
                    outcome = Some(Outcome::Close);
                }
            }
            if ui.button(lang.tr("dialog.cancel")).clicked() {
                outcome = Some(Outcome::Close);
            }
        });
        outcome.unwrap_or(Outcome::Keep(Dialog::SaveAs(save)))
    }

    /// Save as named the file the model was read from only in part, or converted from: what
    /// would be lost, then Overwrite, Back (to Save as) or Cancel.
    fn confirm_overwrite_ui(
        &mut self,
        ui: &mut egui::Ui,
        mut confirm: ConfirmOverwrite,
    ) -> Outcome {
        let lang = self.lang();
        let name = file_name(&confirm.path);
        ui.heading(lang.tr("dialog.overwrite_source_title"));
        let text = match &confirm.loss {
            SourceLoss::Recovered { problems, first } => lang.format(
                "dialog.overwrite_recovered",
                &[("name", &name), ("count", problems), ("first", first)],
            ),
            SourceLoss::Foreign(format) => {
                let target = FileFormat::from_extension(&confirm.path).unwrap_or(FileFormat::Pmx);
                lang.format(
                    "dialog.overwrite_converted",
                    &[
                        ("name", &name),
                        ("format", &format.name().to_ascii_uppercase()),
                        ("target", &target.name().to_ascii_uppercase()),
                    ],
                )
            }
        };
        ui.colored_label(ui.visuals().warn_fg_color, text);
        ui.add_space(8.0);
        let mut outcome = None;
        ui.horizontal(|ui| {
            let overwrite = egui::Button::new(
                egui::RichText::new(lang.format("dialog.overwrite_source", &[("name", &name)]))
                    .color(ui.visuals().error_fg_color),
            );
            if ui.add(overwrite).clicked() {
                match &mut confirm.after {
                    AfterYes::Save(save) => {
                        if self.save_to(confirm.path.clone(), save.settings)
                            && let Some(action) = save.then.take()
                        {
                            self.perform(action);
                        }
                    }
                    AfterYes::Export(export) => self.export_confirmed(&confirm.path, export),
                }
                // A failure opened the error dialog.
                outcome = Some(Outcome::Close);
            }
            if let AfterYes::Save(save) = &mut confirm.after
                && ui.button(lang.tr("dialog.choose_other_name")).clicked()
            {
                outcome = Some(Outcome::Keep(Dialog::SaveAs(SaveAsDialog {
                    path: save.path.clone(),
                    export_pmd: save.export_pmd,
                    settings: save.settings,
                    then: save.then.take(),
                    problems: None,
                })));
            }
            if ui.button(lang.tr("dialog.cancel")).clicked() {
                outcome = Some(Outcome::Close);
            }
        });
        outcome.unwrap_or(Outcome::Keep(Dialog::ConfirmOverwrite(Box::new(confirm))))
    }

    /// Whether an export to `path` must wait: `path` is the file the model was read from only
    /// in part, or converted from, and the user has not said yes to writing over it
    /// (`overwrite_confirmed`). Then the question is shown, and `export` runs after the yes.
    pub(super) fn asks_before_export(
        &mut self,
        path: &Path,
        overwrite_confirmed: bool,
        export: impl FnOnce() -> PendingExport,
    ) -> bool {
        if overwrite_confirmed {
            return false;
        }
        let Some(loss) = self
            .document
            .as_ref()
            .and_then(|document| document.overwrite_loss(path))
            .cloned()
        else {
            return false;
        };
        self.dialog = Some(Dialog::ConfirmOverwrite(Box::new(ConfirmOverwrite {
            path: path.to_owned(),
            loss,
            after: AfterYes::Export(export()),
        })));
        true
    }

    fn export_confirmed(&mut self, path: &Path, export: &PendingExport) {
        match export {
            PendingExport::Mqo(options) => self.export_mqo_to(path, options, true),
            PendingExport::Smf(options) => self.export_smf_to(path, options, true),
            PendingExport::Vrm(options) => self.export_vrm_to(path, options, true),
            PendingExport::Csv(encoding) => self.export_csv_to(path, *encoding, true),
        }
    }

    fn load_error_ui(&mut self, ui: &mut egui::Ui, failure: LoadFailure) -> Outcome {
        let lang = self.lang();
        ui.heading(lang.format("dialog.cannot_open", &[("name", &file_name(&failure.path))]));
        ui.add(egui::Label::new(
            egui::RichText::new(&failure.message)
                .monospace()
                .color(ui.visuals().error_fg_color),
        ));
        if failure.recoverable {
            ui.add_space(4.0);
            ui.label(lang.tr("dialog.recover_hint"));
        }
        ui.add_space(8.0);
        let mut outcome = None;
        ui.horizontal(|ui| {
            if failure.recoverable && ui.button(lang.tr("dialog.open_recovered")).clicked() {
                self.guard(PendingAction::Open {
                    path: failure.path.clone(),
                    recover: true,
                });
                outcome = Some(Outcome::Close);
            }
            if ui.button(lang.tr("dialog.close")).clicked() {
                outcome = Some(Outcome::Close);
            }
        });
        outcome.unwrap_or(Outcome::Keep(Dialog::LoadError(failure)))
    }

    fn error_ui(&mut self, ui: &mut egui::Ui, title: &'static str, message: String) -> Outcome {
        let lang = self.lang();
        ui.heading(lang.tr(title));
        ui.colored_label(ui.visuals().error_fg_color, &message);
        if ui.button(lang.tr("dialog.close")).clicked() {
            return Outcome::Close;
        }
        Outcome::Keep(Dialog::Error { title, message })
    }

    fn about_ui(&mut self, ui: &mut egui::Ui) -> Outcome {
        let lang = self.lang();
        ui.heading(format!("PMX Studio {}", env!("CARGO_PKG_VERSION")));
        ui.label(lang.tr("dialog.about_text"));
        ui.label(lang.tr("dialog.about_font"));
        if ui.button(lang.tr("dialog.close")).clicked() {
            return Outcome::Close;
        }
        Outcome::Keep(Dialog::About)
    }

    fn shortcuts_ui(&mut self, ui: &mut egui::Ui) -> Outcome {
        let lang = self.lang();
        ui.heading(lang.tr("menu.shortcuts"));
        let rows: [(&str, &'static str); 12] = [
            ("Ctrl+N", "menu.new"),
            ("Ctrl+O", "menu.open"),
            ("Ctrl+S", "menu.save"),
            ("Ctrl+Shift+S", "menu.save_as"),
            ("Ctrl+W", "menu.close"),
            ("Ctrl+Q", "menu.quit"),
            ("Ctrl+Z", "menu.undo"),
            ("Ctrl+Y, Ctrl+Shift+Z", "menu.redo"),
            ("Ctrl+A", "menu.select_all"),
            ("Ctrl+D", "menu.duplicate"),
            ("Delete", "menu.delete"),
            ("Shift / Ctrl + click", "dialog.shortcut_multi_select"),
        ];
        egui::Grid::new("shortcuts")
            .num_columns(2)
            .striped(true)
            .show(ui, |ui| {
                for (keys, action) in rows {
                    ui.monospace(keys);
                    ui.label(lang.tr(action).trim_end_matches('…'));
                    ui.end_row();
                }
            });
        if ui.button(lang.tr("dialog.close")).clicked() {
            return Outcome::Close;
        }
        Outcome::Keep(Dialog::Shortcuts)
    }

    /// Shows the about dialog.
    pub(super) fn show_about(&mut self) {
        self.dialog = Some(Dialog::About);
    }

    pub(super) fn show_shortcuts(&mut self) {
        self.dialog = Some(Dialog::Shortcuts);
    }
}

impl EditorState {
    /// Ends an export (MQO, SMF, VRM): the status bar says what was written, in how long, and
    /// how many things the format could not hold (`lost_key` words that count); a failure is
    /// said in the status bar and in an error dialog. The document is not touched either way.
    pub(super) fn export_finished(
        &mut self,
        path: &Path,
        started: std::time::Instant,
        result: Result<usize, String>,
        lost_key: &'static str,
    ) {
        match result {
            Ok(lost) => {
                let seconds = format!("{:.2}", started.elapsed().as_secs_f64());
                let mut text = vec![
                    EditLabel::new("status.exported")
                        .arg("name", LabelArg::Text(file_name(path)))
                        .arg("seconds", LabelArg::Text(seconds)),
                ];
                if lost > 0 {
                    text.push(EditLabel::new(lost_key).arg("count", LabelArg::Number(lost)));
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
                self.dialog = Some(Dialog::Error {
                    title: "dialog.export_failed",
                    message,
                });
            }
        }
    }
}
