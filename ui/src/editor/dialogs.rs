//! The editor's own dialogs: unsaved changes, open (built-in path field beside the native
//! dialog), save as (version, encoding, index sizes, and what the chosen target cannot hold),
//! export PMD (Save as with its own title, no PMX choices, what PMD loses), the question before
//! writing over the model's source, load errors with recovery, errors, about, keyboard
//! shortcuts.

use super::dialog::{
    Choice, Dialog, DialogCx, MAX_PROBLEMS_SHOWN, Outcome, PathField, PendingExport, buttons_row,
    fill_path, folder_text, options_grid, path_row, radio_row,
};
use crate::command::{BrowsePurpose, Command, PendingAction};
use crate::document::{Document, LoadFailure, SaveSettings, SourceLoss, file_name};
use crate::i18n::Language;
use pmx_core::formats::FileFormat;
use pmx_core::formats::pmx::{IndexSizeMode, pmx21_features};
use pmx_core::model::{PmxVersion, TextEncoding};
use pmx_core::validate::{CheckOptions, Issue, Target, check};
use std::path::{Path, PathBuf};

/// The question before an action that would drop unsaved changes.
#[derive(Debug)]
pub(super) struct UnsavedDialog {
    pub action: PendingAction,
}

impl Dialog for UnsavedDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        let name = cx
            .document
            .and_then(Document::file_name)
            .unwrap_or_else(|| lang.tr("title.untitled").to_owned());
        ui.heading(lang.tr("dialog.unsaved_title"));
        ui.label(lang.format("dialog.unsaved_text", &[("name", &name)]));
        ui.add_space(8.0);
        let mut outcome = Outcome::Keep;
        ui.horizontal(|ui| {
            if ui.button(lang.tr("dialog.save")).clicked() {
                cx.push(Command::SaveThen(self.action.clone()));
                outcome = Outcome::Close;
            }
            if ui.button(lang.tr("dialog.dont_save")).clicked() {
                cx.push(Command::Perform(self.action.clone()));
                outcome = Outcome::Close;
            }
            if ui.button(lang.tr("dialog.cancel")).clicked() {
                outcome = Outcome::Close;
            }
        });
        outcome
    }

    fn asks_to_save(&self) -> bool {
        true
    }
}

/// File > Open: a path field (with the native dialog beside it) and the recent files.
#[derive(Debug)]
pub(super) struct OpenDialog {
    path: String,
    focus_requested: bool,
}

impl OpenDialog {
    /// Starts in the folder of the document's file.
    pub(super) fn new(document: Option<&Document>) -> Self {
        Self {
            path: folder_text(
                document
                    .and_then(|d| d.path.as_deref())
                    .and_then(Path::parent),
            ),
            focus_requested: false,
        }
    }
}

impl Dialog for OpenDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        ui.heading(lang.tr("dialog.open_title"));
        ui.label(lang.tr("dialog.open_hint"));
        let mut chosen: Option<PathBuf> = None;
        let field = path_row(
            ui,
            cx,
            &mut self.path,
            PathField::new(BrowsePurpose::Open).hint("/path/to/model.pmx"),
        );
        if !self.focus_requested {
            field.request_focus();
            self.focus_requested = true;
        }
        let typed = self.path.trim();
        if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) && !typed.is_empty()
        {
            chosen = Some(PathBuf::from(typed));
        }
        if !cx.recent_files.is_empty() {
            ui.add_space(6.0);
            ui.label(lang.tr("menu.recent"));
            for path in cx.recent_files {
                if ui
                    .button(file_name(path))
                    .on_hover_text(path.display().to_string())
                    .clicked()
                {
                    chosen = Some(path.clone());
                }
            }
        }
        match buttons_row(ui, lang, "dialog.open", !typed.is_empty()) {
            Some(Choice::Confirm) => chosen = Some(PathBuf::from(typed)),
            Some(Choice::Cancel) => return Outcome::Close,
            None => {}
        }
        match chosen {
            Some(path) => {
                cx.push(Command::Open(path));
                Outcome::Close
            }
            None => Outcome::Keep,
        }
    }
}

/// Save as, and File > Export PMD (Save as for a `.pmd`).
#[derive(Debug)]
pub(super) struct SaveAsDialog {
    path: String,
    /// File > Export PMD: a PMD file, with none of the PMX choices.
    export_pmd: bool,
    settings: SaveSettings,
    /// What to do once saved (when Save as came from the unsaved-changes question).
    then: Option<PendingAction>,
    /// The validator's errors for the target, for (document revision, version).
    problems: Option<TargetProblems>,
}

impl SaveAsDialog {
    pub(super) fn new(document: &Document, then: Option<PendingAction>) -> Self {
        // A recovered or converted model is offered as a new PMX beside the file it came from.
        let path = document.save_as_suggestion();
        Self {
            path: path.display().to_string(),
            export_pmd: false,
            settings: document.save_settings,
            then,
            problems: None,
        }
    }

    /// File > Export PMD: a `.pmd` path, and the list of what PMD loses.
    pub(super) fn export_pmd(document: &Document) -> Self {
        let mut dialog = Self::new(document, None);
        let mut path = PathBuf::from(&dialog.path);
        path.set_extension(FileFormat::Pmd.spec().extension());
        dialog.path = path.display().to_string();
        dialog.export_pmd = true;
        dialog
    }

    /// The same choices again, for the question's Back.
    fn again(&mut self) -> Self {
        Self {
            path: self.path.clone(),
            export_pmd: self.export_pmd,
            settings: self.settings,
            then: self.then.take(),
            problems: None,
        }
    }

    /// The validator's problems for `target`, worked out again only when the model or the
    /// target changes.
    fn problems_for(&mut self, document: &Document, target: Target) -> &TargetProblems {
        let key = (document.revision(), target);
        let current = self.problems.take().filter(|p| p.key == key);
        self.problems
            .insert(current.unwrap_or_else(|| TargetProblems::of(document, key)))
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

impl TargetProblems {
    fn of(document: &Document, key: (u64, Target)) -> Self {
        let target = key.1;
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
        Self {
            key,
            errors,
            losses,
            blocking,
        }
    }
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
    options_grid(ui, "save_as_options", |ui| {
        radio_row(
            ui,
            lang.tr("info.version"),
            &mut settings.version,
            &[(PmxVersion::V2_0, "PMX 2.0"), (PmxVersion::V2_1, "PMX 2.1")],
        );
        radio_row(
            ui,
            lang.tr("info.encoding"),
            &mut settings.encoding,
            &[
                (TextEncoding::Utf16, "UTF-16LE"),
                (TextEncoding::Utf8, "UTF-8"),
            ],
        );
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

/// Why Save asked: the file the model came from stays as it is.
fn source_note_ui(ui: &mut egui::Ui, lang: Language, document: &Document) {
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
}

impl Dialog for SaveAsDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        let Some(document) = cx.document else {
            return Outcome::Close;
        };
        ui.heading(lang.tr(if self.export_pmd {
            "dialog.export_pmd_title"
        } else {
            "dialog.save_as_title"
        }));
        source_note_ui(ui, lang, document);
        path_row(ui, cx, &mut self.path, PathField::new(BrowsePurpose::Save));
        let path = PathBuf::from(self.path.trim());
        let format = FileFormat::from_extension(&path);
        if self.export_pmd {
            // PMD has no version, encoding or index-size choice: say so instead of offering them.
            ui.weak(lang.tr("dialog.pmd_note"));
        } else {
            save_options_ui(ui, lang, &mut self.settings, document);
        }
        if format == Some(FileFormat::Json) {
            ui.weak(lang.tr("dialog.json_note"));
        }
        // The validator's errors for the chosen target come first; the PMX 2.1 features a 2.0
        // file cannot hold block saving (the writer refuses them).
        let target = if format == Some(FileFormat::Pmd) {
            Target::Pmd
        } else {
            Target::Pmx(self.settings.version)
        };
        let problems = self.problems_for(document, target);
        let blocking = problems.blocking > 0 && format != Some(FileFormat::Json);
        if !problems.errors.is_empty() {
            ui.add_space(6.0);
            ui.colored_label(
                ui.visuals().error_fg_color,
                lang.format("dialog.target_errors", &[("count", &problems.errors.len())]),
            );
            issue_list_ui(ui, lang, "target_errors", &problems.errors);
        }
        if !problems.losses.is_empty() {
            ui.add_space(6.0);
            ui.colored_label(
                ui.visuals().warn_fg_color,
                lang.format("dialog.pmd_losses", &[("count", &problems.losses.len())]),
            );
            issue_list_ui(ui, lang, "pmd_losses", &problems.losses);
        }
        if blocking {
            ui.colored_label(
                ui.visuals().error_fg_color,
                lang.format("dialog.version_problems", &[("count", &problems.blocking)]),
            );
        }
        // Export PMD writes PMD only (Save as is there for the other formats). A format that
        // is only converted (MQO, SMF, VRM) is exported (File > Export), never the document's
        // own file.
        let wrong_extension = if self.export_pmd {
            format != Some(FileFormat::Pmd)
        } else {
            format.is_none_or(|format| !format.spec().abilities.save)
        };
        if wrong_extension && !self.path.trim().is_empty() {
            let text = match format {
                _ if self.export_pmd => lang.tr("dialog.pmd_extension").to_owned(),
                Some(format) => lang.format(
                    "dialog.use_export",
                    &[("format", &format.name().to_ascii_uppercase())],
                ),
                None => lang.tr("dialog.unknown_extension").to_owned(),
            };
            ui.colored_label(ui.visuals().warn_fg_color, text);
        }
        let confirm = if self.export_pmd {
            "dialog.export"
        } else {
            "dialog.save"
        };
        match buttons_row(ui, lang, confirm, !wrong_extension && !blocking) {
            Some(Choice::Confirm) => match document.overwrite_loss(&path) {
                // The file the model was read from in part, or converted from: never written
                // over without the user's explicit yes.
                Some(loss) => Outcome::Replace(Box::new(ConfirmOverwrite {
                    path,
                    loss: loss.clone(),
                    after: AfterYes::Save(self.again()),
                })),
                None => {
                    cx.push(Command::SaveTo {
                        path,
                        settings: self.settings,
                        then: self.then.take(),
                    });
                    Outcome::Close
                }
            },
            Some(Choice::Cancel) => Outcome::Close,
            None => Outcome::Keep,
        }
    }

    fn browsed(&mut self, purpose: BrowsePurpose, path: &Path) -> bool {
        fill_path(&mut self.path, BrowsePurpose::Save, purpose, path)
    }
}

/// The question before Save as or an export writes over the document's damaged or foreign
/// source: what would be lost, then Overwrite, Back (to Save as) or Cancel.
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

impl ConfirmOverwrite {
    /// Before an export to `path`, which would lose `loss`.
    pub(super) fn export(path: PathBuf, loss: SourceLoss, export: PendingExport) -> Self {
        Self {
            path,
            loss,
            after: AfterYes::Export(export),
        }
    }
}

impl Dialog for ConfirmOverwrite {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        let name = file_name(&self.path);
        ui.heading(lang.tr("dialog.overwrite_source_title"));
        let text = match &self.loss {
            SourceLoss::Recovered { problems, first } => lang.format(
                "dialog.overwrite_recovered",
                &[("name", &name), ("count", problems), ("first", first)],
            ),
            SourceLoss::Foreign(format) => {
                let target = FileFormat::from_extension(&self.path).unwrap_or(FileFormat::Pmx);
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
        let mut outcome = Outcome::Keep;
        ui.horizontal(|ui| {
            let overwrite = egui::Button::new(
                egui::RichText::new(lang.format("dialog.overwrite_source", &[("name", &name)]))
                    .color(ui.visuals().error_fg_color),
            );
            if ui.add(overwrite).clicked() {
                let path = self.path.clone();
                cx.push(match &mut self.after {
                    AfterYes::Save(save) => Command::SaveTo {
                        path,
                        settings: save.settings,
                        then: save.then.take(),
                    },
                    AfterYes::Export(export) => Command::ExportOverSource {
                        format: export.format,
                        path,
                        options: export.options.clone(),
                    },
                });
                // A failure opens the error dialog.
                outcome = Outcome::Close;
            }
            if let AfterYes::Save(save) = &mut self.after
                && ui.button(lang.tr("dialog.choose_other_name")).clicked()
            {
                outcome = Outcome::Replace(Box::new(save.again()));
            }
            if ui.button(lang.tr("dialog.cancel")).clicked() {
                outcome = Outcome::Close;
            }
        });
        outcome
    }
}

/// A file that did not open: the reader's message, and recovery mode when it may help.
#[derive(Debug)]
pub(super) struct LoadErrorDialog(pub LoadFailure);

impl Dialog for LoadErrorDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        let failure = &self.0;
        ui.heading(lang.format("dialog.cannot_open", &[("name", &file_name(&failure.path))]));
        ui.add(egui::Label::new(
            egui::RichText::new(failure.message.render(lang))
                .monospace()
                .color(ui.visuals().error_fg_color),
        ));
        if failure.recoverable {
            ui.add_space(4.0);
            ui.label(lang.tr("dialog.recover_hint"));
        }
        ui.add_space(8.0);
        let mut outcome = Outcome::Keep;
        ui.horizontal(|ui| {
            if failure.recoverable && ui.button(lang.tr("dialog.open_recovered")).clicked() {
                cx.push(Command::OpenRecovered(failure.path.clone()));
                outcome = Outcome::Close;
            }
            if ui.button(lang.tr("dialog.close")).clicked() {
                outcome = Outcome::Close;
            }
        });
        outcome
    }
}

/// A failure the user must see (a save or export that did not write), titled by `title`.
#[derive(Debug)]
pub(super) struct ErrorDialog {
    pub title: &'static str,
    pub message: String,
}

impl Dialog for ErrorDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        ui.heading(cx.lang.tr(self.title));
        ui.colored_label(ui.visuals().error_fg_color, &self.message);
        close_button_ui(ui, cx.lang)
    }
}

/// Help > About.
#[derive(Debug)]
pub(super) struct AboutDialog;

impl Dialog for AboutDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        ui.heading(format!("PMX Studio {}", env!("CARGO_PKG_VERSION")));
        ui.label(lang.tr("dialog.about_text"));
        ui.label(lang.tr("dialog.about_font"));
        close_button_ui(ui, lang)
    }
}

/// Help > Keyboard shortcuts.
#[derive(Debug)]
pub(super) struct ShortcutsDialog;

impl Dialog for ShortcutsDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
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
        // The selection tools' keys (編集 > 選択), from the table the editor binds.
        ui.add_space(6.0);
        ui.strong(lang.tr("dialog.shortcut_select_keys"));
        egui::Grid::new("select_shortcuts")
            .num_columns(2)
            .striped(true)
            .show(ui, |ui| {
                for line in crate::select_ops::SELECT_SHORTCUTS {
                    ui.monospace(line.shown);
                    ui.label(lang.tr(line.op.label_key()));
                    ui.end_row();
                }
            });
        // The 3D view's keys, from the table the view acts on.
        ui.add_space(6.0);
        ui.strong(lang.tr("dialog.shortcut_view_keys"));
        egui::Grid::new("view_shortcuts")
            .num_columns(2)
            .striped(true)
            .show(ui, |ui| {
                for line in crate::panes::view::keys::VIEW_KEYS {
                    ui.monospace(line.shown);
                    ui.label(lang.tr(line.action.key()));
                    ui.end_row();
                }
                for (keys, action) in [
                    ("Delete", "dialog.shortcut_view_delete"),
                    (
                        lang.tr("dialog.shortcut_right_click"),
                        "dialog.shortcut_view_menu",
                    ),
                    (lang.tr("dialog.shortcut_double_click"), "view.camera_reset"),
                ] {
                    ui.monospace(keys);
                    ui.label(lang.tr(action));
                    ui.end_row();
                }
            });
        close_button_ui(ui, lang)
    }
}

/// The Close button of a dialog that only informs.
fn close_button_ui(ui: &mut egui::Ui, lang: Language) -> Outcome {
    if ui.button(lang.tr("dialog.close")).clicked() {
        Outcome::Close
    } else {
        Outcome::Keep
    }
}
