//! What every modal dialog is: a value implementing [`Dialog`] that draws itself from a
//! [`DialogCx`] (the language, the document, the recent files) and answers with [`Command`]s
//! and an [`Outcome`]; it never calls the editor. The editor holds the open dialog as a
//! `Box<dyn Dialog>`, shows it, and runs its commands after the frame.
//!
//! Beside the trait, the rows the dialogs share: the path field with Browse…
//! ([`path_row`]), the import target ([`MergeChoice`]), the confirm and Cancel buttons
//! ([`buttons_row`]), an extension warning ([`extension_warning`]), a list of what a format
//! cannot hold ([`losses_ui`]) and a writer's refusal in words ([`refusal`]).

use crate::command::{BrowsePurpose, Command};
use crate::document::Document;
use crate::i18n::Language;
use pmx_core::formats::registry::has_extension;
use pmx_core::formats::{FileFormat, SaveOptions, WriteError};
use std::path::{Path, PathBuf};

/// A modal dialog: drawn once a frame while it is open.
pub trait Dialog: std::fmt::Debug {
    /// Draws the dialog; what it asks the editor to do goes to `cx` as commands.
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome;

    /// The answer of the native file dialog this dialog asked for with `purpose` (its
    /// Browse…): fills the path field and returns `true`; `false` when it asked for none.
    fn browsed(&mut self, purpose: BrowsePurpose, path: &Path) -> bool {
        let _ = (purpose, path);
        false
    }

    /// Whether this is the question about unsaved changes (the window's close button waits
    /// for its answer).
    fn asks_to_save(&self) -> bool {
        false
    }
}

/// What a dialog's frame decided.
#[derive(Debug)]
pub enum Outcome {
    Keep,
    Close,
    /// Another dialog takes its place (Save as → the question before writing over a source).
    Replace(Box<dyn Dialog>),
}

/// What a dialog reads while it draws, and where its commands go.
#[derive(Debug)]
pub struct DialogCx<'a> {
    pub lang: Language,
    pub document: Option<&'a Document>,
    /// Most recent first (File > Open lists them).
    pub recent_files: &'a [PathBuf],
    commands: &'a mut Vec<Command>,
}

impl<'a> DialogCx<'a> {
    #[must_use]
    pub fn new(
        lang: Language,
        document: Option<&'a Document>,
        recent_files: &'a [PathBuf],
        commands: &'a mut Vec<Command>,
    ) -> Self {
        Self {
            lang,
            document,
            recent_files,
            commands,
        }
    }

    /// Asks the editor for `command` (run after the frame).
    pub fn push(&mut self, command: Command) {
        self.commands.push(command);
    }
}

/// An export waiting for the yes to write over the document's source.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingExport {
    pub format: FileFormat,
    pub options: Box<SaveOptions>,
}

/// Problems listed at most (the count of the rest is shown).
pub const MAX_PROBLEMS_SHOWN: usize = 12;

/// How a dialog's path field looks and what its Browse… asks for.
#[derive(Debug, Clone, Copy)]
pub struct PathField {
    pub purpose: BrowsePurpose,
    /// The grey text of an empty field (`/path/to/model.mqo`).
    pub hint: Option<&'static str>,
    pub width: f32,
}

impl PathField {
    /// A field 440 points wide without a hint.
    #[must_use]
    pub fn new(purpose: BrowsePurpose) -> Self {
        Self {
            purpose,
            hint: None,
            width: 440.0,
        }
    }

    #[must_use]
    pub fn hint(self, hint: &'static str) -> Self {
        Self {
            hint: Some(hint),
            ..self
        }
    }

    #[must_use]
    pub fn width(self, width: f32) -> Self {
        Self { width, ..self }
    }
}

/// The path field with Browse… beside it: Browse asks the window for a native dialog (for a
/// file to write it starts at the typed path), whose answer comes back through
/// [`Dialog::browsed`]. Returns the field's response.
pub fn path_row(
    ui: &mut egui::Ui,
    cx: &mut DialogCx<'_>,
    path: &mut String,
    field: PathField,
) -> egui::Response {
    let lang = cx.lang;
    ui.horizontal(|ui| {
        let mut edit = egui::TextEdit::singleline(path).desired_width(field.width);
        if let Some(hint) = field.hint {
            edit = edit.hint_text(hint);
        }
        let response = ui.add(edit).accessible_name(lang.tr("dialog.path"));
        if ui.button(lang.tr("dialog.browse")).clicked() {
            let suggested = field.purpose.writes().then(|| PathBuf::from(&*path));
            cx.push(Command::Browse {
                purpose: field.purpose,
                suggested,
            });
        }
        response
    })
    .inner
}

/// Gives `field` the keyboard focus the first time a dialog is drawn (`requested` keeps that
/// it was), so a path can be typed or pasted at once; afterwards the user's focus stands.
pub fn focus_once(field: &egui::Response, requested: &mut bool) {
    if !*requested {
        field.request_focus();
        *requested = true;
    }
}

/// Fills `path` with the native dialog's answer when it is the one `field` asked for.
pub fn fill_path(
    path: &mut String,
    field: BrowsePurpose,
    purpose: BrowsePurpose,
    chosen: &Path,
) -> bool {
    if purpose != field {
        return false;
    }
    *path = chosen.display().to_string();
    true
}

/// `text` as a path when `accepts` takes it; otherwise `None`, and unless the field is empty,
/// `warning` says what is expected.
fn checked_path(
    ui: &mut egui::Ui,
    text: &str,
    accepts: impl Fn(&Path) -> bool,
    warning: impl FnOnce() -> String,
) -> Option<PathBuf> {
    let path = PathBuf::from(text.trim());
    if accepts(&path) {
        return Some(path);
    }
    if !text.trim().is_empty() {
        ui.colored_label(ui.visuals().warn_fg_color, warning());
    }
    None
}

/// An export's path: `text` when it ends in the extension `format` is written with (any
/// case), otherwise `None` and the warning that says so.
fn export_path_warning(
    ui: &mut egui::Ui,
    lang: Language,
    text: &str,
    format: FileFormat,
) -> Option<PathBuf> {
    let extension = format.spec().extension();
    checked_path(
        ui,
        text,
        |path| has_extension(path, extension),
        || lang.format("dialog.export_extension", &[("extension", &extension)]),
    )
}

/// An import's path: `text` when it ends in an extension `format` is read from, otherwise
/// `None` and `warning_key`'s words.
pub fn import_path_warning(
    ui: &mut egui::Ui,
    lang: Language,
    text: &str,
    format: FileFormat,
    warning_key: &'static str,
) -> Option<PathBuf> {
    checked_path(
        ui,
        text,
        |path| format.spec().reads_extension(path),
        || lang.tr(warning_key).to_owned(),
    )
}

/// A button of [`buttons_row`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Confirm,
    Cancel,
}

/// The dialog's last row: the confirming button (`key`: Export, Import, Save…), enabled or
/// not, and Cancel; what was clicked.
pub fn buttons_row(
    ui: &mut egui::Ui,
    lang: Language,
    key: &'static str,
    enabled: bool,
) -> Option<Choice> {
    ui.add_space(8.0);
    ui.horizontal(|ui| {
        if ui
            .add_enabled(enabled, egui::Button::new(lang.tr(key)))
            .clicked()
        {
            return Some(Choice::Confirm);
        }
        ui.button(lang.tr("dialog.cancel"))
            .clicked()
            .then_some(Choice::Cancel)
    })
    .inner
}

/// A grid of labelled option rows, as every dialog lays its options out.
pub fn options_grid<R>(
    ui: &mut egui::Ui,
    id: &'static str,
    add_rows: impl FnOnce(&mut egui::Ui) -> R,
) -> R {
    egui::Grid::new(id)
        .num_columns(2)
        .spacing([12.0, 6.0])
        .show(ui, add_rows)
        .inner
}

/// [`buttons_row`] as the dialog's outcome: the confirming button, enabled when there is a
/// `command` to send (built only when it is clicked), sends it and closes; Cancel closes.
pub fn confirm_row(
    ui: &mut egui::Ui,
    cx: &mut DialogCx<'_>,
    key: &'static str,
    command: Option<impl FnOnce() -> Command>,
) -> Outcome {
    match buttons_row(ui, cx.lang, key, command.is_some()) {
        Some(Choice::Confirm) => {
            if let Some(command) = command {
                cx.push(command());
            }
            Outcome::Close
        }
        Some(Choice::Cancel) => Outcome::Close,
        None => Outcome::Keep,
    }
}

/// An export dialog's last rows: the warning when the typed path does not end in the
/// format's extension, then Export and Cancel. Export is enabled when the path is right and
/// there are `options` (`None`: something in the dialog blocks the export); it sends `format`
/// written to the path with the options the closure gives.
pub fn export_row(
    ui: &mut egui::Ui,
    cx: &mut DialogCx<'_>,
    path: &str,
    format: FileFormat,
    options: Option<impl FnOnce() -> SaveOptions>,
) -> Outcome {
    let path = export_path_warning(ui, cx.lang, path, format);
    let export = path.zip(options).map(|(path, options)| {
        move || Command::Export {
            format,
            path,
            options: Box::new(options()),
        }
    });
    confirm_row(ui, cx, "dialog.export", export)
}

/// A labelled row of choices in an [`options_grid`]: one radio button per `(value, text)`.
pub fn radio_row<T: PartialEq + Copy>(
    ui: &mut egui::Ui,
    label: &str,
    value: &mut T,
    choices: &[(T, &str)],
) {
    ui.label(label);
    ui.horizontal(|ui| {
        for &(choice, text) in choices {
            ui.radio_value(value, choice, text);
        }
    });
    ui.end_row();
}

/// An import's target: a new model, or the open one (one undo step), and whether bones are
/// matched by name then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergeChoice {
    pub merge: bool,
    pub match_bones: bool,
}

impl Default for MergeChoice {
    fn default() -> Self {
        Self {
            merge: false,
            match_bones: true,
        }
    }
}

impl MergeChoice {
    /// The rows "Import as: a new model / added to the open model" and the bone matching, in
    /// an [`options_grid`]; merging is possible only with a model open.
    pub fn rows_ui(&mut self, ui: &mut egui::Ui, lang: Language, open: bool) {
        ui.label(lang.tr("dialog.mqo_import_into"));
        ui.horizontal(|ui| {
            ui.radio_value(&mut self.merge, false, lang.tr("dialog.mqo_new_model"));
            ui.add_enabled_ui(open, |ui| {
                ui.radio_value(&mut self.merge, true, lang.tr("dialog.mqo_merge"));
            });
        });
        ui.end_row();
        ui.label("");
        ui.add_enabled_ui(self.merge, |ui| {
            ui.checkbox(&mut self.match_bones, lang.tr("dialog.mqo_match_bones"));
        });
        ui.end_row();
        if !open {
            self.merge = false;
        }
    }

    /// The merge the import command carries (`None`: a new model).
    #[must_use]
    pub fn options(self) -> Option<pmx_core::edit::MergeOptions> {
        self.merge.then_some(pmx_core::edit::MergeOptions {
            match_bones_by_name: self.match_bones,
        })
    }
}

/// `folder` with a separator, as an import or open dialog's path field starts (the user types
/// the file name); empty without one.
#[must_use]
pub fn folder_text(folder: Option<&Path>) -> String {
    folder
        .map(|dir| format!("{}{}", dir.display(), std::path::MAIN_SEPARATOR))
        .unwrap_or_default()
}

/// An export dialog's list of what the format cannot hold: `heading` in the warning colour,
/// then the first `2 × MAX_PROBLEMS_SHOWN` losses in `lang`, scrolling (the MQO and SMF exports).
pub fn losses_ui<L>(
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

/// The words for a write the writer refused: the missing humanoid bones in the UI's language.
#[must_use]
pub fn refusal(error: &WriteError, lang: Language) -> String {
    match error {
        WriteError::MissingHumanoidBones { bones } => {
            lang.format("dialog.vrm_missing_bones", &[("bones", &bones.join(", "))])
        }
        other => other.to_string(),
    }
}
