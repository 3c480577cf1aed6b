//! The whole editor as testable UI state: the document, the tab layout, table states, dialogs
//! and the command queue. The app wraps it in an eframe window (native file dialogs, window
//! title, closing); tests drive it with egui_kittest, without eframe.

mod csv_dialog;
mod dialog;
mod dialog_host;
mod dialogs;
pub mod fonts;
mod formats;
mod menu;
mod mqo_dialogs;
mod plugin_dialog;
mod select_menu;
pub mod settings;
mod smf_dialogs;
mod tiles;
mod uv_layout_dialog;
mod vrm_dialogs;
mod vrm_import_dialog;
pub mod workspace;

use crate::command::{Command, Commands, EditCommand, EditRequest};
use crate::document::{Document, LoadJob, file_name};
use crate::editor::settings::Settings;
use crate::i18n::Language;
use crate::panes::validation::ValidationState;
use crate::widgets::table::{TableState, select_all};
use dialog::Dialog;
use pmx_core::edit::{
    Edit, EditLabel, EditOp, GestureId, LabelArg, PaintIndex, SetField, ops_to_edit_in,
};
use pmx_core::model::ElementKind;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use workspace::Pane;

pub use crate::command::{BrowsePurpose, FileFilter, PendingAction};

/// What the app has to do for the editor (things that need the platform).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlatformRequest {
    /// Show a native file dialog for `purpose` (its filters: [`BrowsePurpose::filters`]),
    /// starting at `suggested`; answer with [`EditorState::browse_finished`].
    Browse {
        purpose: BrowsePurpose,
        suggested: Option<PathBuf>,
    },
    /// Close the window: the user confirmed quitting.
    Quit,
}

/// How a status message looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageLevel {
    Info,
    Warning,
    Error,
}

/// The last message, shown in the status bar: its parts as data, rendered in the UI's
/// language when drawn (a language switch re-renders it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusMessage {
    pub level: MessageLevel,
    pub parts: Vec<EditLabel>,
}

impl StatusMessage {
    /// The message in `lang`.
    #[must_use]
    pub fn text(&self, lang: Language) -> String {
        self.parts.iter().map(|part| part.render(lang)).collect()
    }
}

/// The editor.
pub struct EditorState {
    pub document: Option<Document>,
    pub loading: Option<LoadJob>,
    pub settings: Settings,
    pub tree: egui_tiles::Tree<Pane>,
    pub tables: HashMap<ElementKind, TableState>,
    pub message: Option<StatusMessage>,
    pub validation: ValidationState,
    /// The pose pane's pose (never part of the document until applied).
    pub pose: crate::panes::pose::PoseState,
    /// What the 3D view was last sent of the pose.
    pose_feed: crate::panes::pose_feed::PoseFeed,
    /// While morph edit mode is on: the pose it replaced and the morph it shows.
    morph_edit_pose: Option<MorphEditPose>,
    /// The 3D view (camera, layers, the GPU copy of the model).
    pub view: crate::panes::view::ViewState,
    /// The UV pane's camera, channel, morph and tools.
    pub uv: crate::panes::uv::UvState,
    /// The bone tree, morph offsets and display frame tree (beside their tables).
    pub editors: crate::panes::EditorsState,
    commands: Commands,
    /// The modal dialog showing, if any.
    dialog: Option<Box<dyn Dialog>>,
    platform: Vec<PlatformRequest>,
    active_gesture: Option<(egui::Id, GestureId)>,
    /// The weight brush's lookups for the open model ([`PaintIndex`]), with the document and
    /// revision they were last checked at: kept across weight edits, built again after any
    /// other change to vertices or faces.
    paint_index: Option<(u64, u64, Arc<PaintIndex>)>,
    /// The table the user worked in last (Ctrl+A and Delete act on it).
    focus_kind: Option<ElementKind>,
    /// The text field that has the keyboard focus, and whether the user changed its text since
    /// it got the focus (only then do Ctrl+Z / Ctrl+Y act on the text instead of the document).
    text_focus: Option<(egui::Id, bool)>,
    /// The kind whose selection changed last (the status bar counts it), and the selections as
    /// of the end of the last frame (document id, signature per kind).
    selection_kind: Option<ElementKind>,
    selection_seen: (u64, Vec<(usize, Option<usize>, u64)>),
    quit_confirmed: bool,
    wake: Arc<dyn Fn() + Send + Sync>,
    document_id: u64,
    /// The tools of the ツール menu: built-ins, then the user's scripts.
    pub plugins: pmx_plugins::Registry,
    /// The scripts of the scripts folder that did not load, with why.
    pub script_errors: Vec<(PathBuf, pmx_core::i18n::Message)>,
}

impl std::fmt::Debug for EditorState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditorState")
            .field("document", &self.document.as_ref().map(|d| &d.path))
            .field("loading", &self.loading.as_ref().map(|l| &l.path))
            .field("dialog", &self.dialog)
            .finish_non_exhaustive()
    }
}

impl Default for EditorState {
    fn default() -> Self {
        Self::new(Settings::default())
    }
}

impl EditorState {
    /// An editor with no document, with `settings` restored from the last run.
    #[must_use]
    pub fn new(mut settings: Settings) -> Self {
        let tree = match settings.layout.take() {
            Some(tree)
                if settings.layout_version == workspace::LAYOUT_VERSION
                    && workspace::is_complete(&tree) =>
            {
                tree
            }
            _ => workspace::default_tree(),
        };
        let tables = ElementKind::ALL
            .into_iter()
            .map(|kind| (kind, TableState::default()))
            .collect();
        let scripts_folder = settings
            .scripts_folder
            .clone()
            .or_else(pmx_plugins::default_scripts_folder);
        let (plugins, script_errors) =
            pmx_plugins::Registry::with_scripts(scripts_folder.as_deref());
        Self {
            document: None,
            loading: None,
            settings,
            tree,
            tables,
            message: None,
            validation: ValidationState::default(),
            pose: crate::panes::pose::PoseState::default(),
            pose_feed: crate::panes::pose_feed::PoseFeed::default(),
            morph_edit_pose: None,
            view: crate::panes::view::ViewState::default(),
            uv: crate::panes::uv::UvState::default(),
            editors: crate::panes::EditorsState::default(),
            commands: Commands::default(),
            dialog: None,
            platform: Vec::new(),
            active_gesture: None,
            paint_index: None,
            focus_kind: None,
            text_focus: None,
            selection_kind: None,
            selection_seen: (0, Vec::new()),
            quit_confirmed: false,
            wake: Arc::new(|| {}),
            document_id: 0,
            plugins,
            script_errors,
        }
    }

    /// The settings to persist (with the current layout).
    #[must_use]
    pub fn settings_to_save(&self) -> Settings {
        let mut settings = self.settings.clone();
        settings.layout = Some(self.tree.clone());
        settings.layout_version = workspace::LAYOUT_VERSION;
        settings
    }

    #[must_use]
    pub fn lang(&self) -> Language {
        self.settings.language
    }

    /// Makes loading threads repaint the window when they progress.
    pub fn set_repaint(&mut self, ctx: &egui::Context) {
        let ctx = ctx.clone();
        self.wake = Arc::new(move || ctx.request_repaint());
    }

    /// Opens a model that is already in memory (tests, generated models).
    pub fn open_document(&mut self, document: Document) {
        self.document = Some(document);
        self.document_id += 1;
        for state in self.tables.values_mut() {
            *state = TableState::default();
        }
        self.validation.reset();
        self.editors = crate::panes::EditorsState::default();
        self.active_gesture = None;
    }

    /// An id that changes with every opened document (table caches key on it).
    #[must_use]
    pub fn document_id(&self) -> u64 {
        self.document_id
    }

    /// Queues a command (as a menu item or a panel would).
    pub fn push(&mut self, command: Command) {
        self.commands.push(command);
    }

    /// Requests for the platform since the last call.
    pub fn take_platform_requests(&mut self) -> Vec<PlatformRequest> {
        std::mem::take(&mut self.platform)
    }

    /// Whether the user confirmed quitting (the app may close the window).
    #[must_use]
    pub fn quit_confirmed(&self) -> bool {
        self.quit_confirmed
    }

    /// The window title: file name, `*` when there are unsaved changes.
    #[must_use]
    pub fn title(&self) -> String {
        match &self.document {
            Some(document) => {
                let name = document
                    .file_name()
                    .unwrap_or_else(|| self.lang().tr("title.untitled").to_owned());
                let dirty = if document.is_dirty() { "*" } else { "" };
                format!("{name}{dirty} - PMX Studio")
            }
            None => "PMX Studio".to_owned(),
        }
    }

    /// Whether the unsaved-changes question is showing.
    #[must_use]
    pub fn is_asking_to_save(&self) -> bool {
        self.dialog
            .as_ref()
            .is_some_and(|dialog| dialog.asks_to_save())
    }

    /// Shows the tab `--tab` names; tabs of later issues and unknown names are errors.
    pub fn show_tab(&mut self, name: &str) -> Result<(), String> {
        match Pane::from_name(name) {
            Some(pane) => {
                workspace::show_pane(&mut self.tree, pane);
                if let Some(kind) = pane.kind() {
                    self.focus_kind = Some(kind);
                }
                Ok(())
            }
            None => {
                let known: Vec<&str> = Pane::ALL.iter().map(|p| p.name()).collect();
                Err(format!("no tab named `{name}`; tabs: {}", known.join(", ")))
            }
        }
    }

    /// Selects the first element of `kind` (for screenshots, so the property panel shows).
    pub fn select_first(&mut self, kind: ElementKind) {
        if let Some(document) = &mut self.document
            && document.model.count(kind) > 0
        {
            document.selection.get_mut(kind).select_only(0);
        }
    }

    /// Starts loading `path` in the background (the document stays until it is replaced).
    fn start_loading(&mut self, path: PathBuf, recover: bool) {
        if let Some(job) = self.loading.take() {
            job.cancel();
        }
        self.loading = Some(LoadJob::start(path, recover, Arc::clone(&self.wake)));
    }

    /// Cancels the load under way.
    pub fn cancel_loading(&mut self) {
        if let Some(job) = self.loading.take() {
            job.cancel();
            self.set_message(MessageLevel::Info, EditLabel::new("status.load_cancelled"));
        }
    }

    fn poll_loading(&mut self) {
        let Some(job) = &mut self.loading else {
            return;
        };
        let Some(result) = job.poll() else {
            return;
        };
        let path = job.path.clone();
        let elapsed = job.started.elapsed();
        let mut first_check = job.take_first_check();
        // The embedded images the loader unpacked go with the document.
        let unpacked = first_check.as_mut().and_then(|check| check.unpacked.take());
        let merge = job.merge;
        let recovery = job.recover;
        self.loading = None;
        match result {
            Ok(loaded) if merge.is_some() => {
                self.merge_loaded(&path, &loaded, merge.unwrap_or_default(), unpacked);
            }
            Ok(loaded) => {
                let notes = loaded.report.notes.len();
                let recovered = loaded.report.recovered_from.is_some();
                // A conversion's report (what the VRM or MQO became) is shown, not only counted.
                let converted = loaded.format.spec().converts();
                self.settings.add_recent(&path);
                self.open_document(Document::from_loaded_in(
                    path.clone(),
                    loaded,
                    unpacked,
                    recovery,
                ));
                if let (Some(check), Some(document)) = (first_check, &self.document) {
                    self.validation.adopt(check, document, self.document_id);
                }
                let mut text = vec![
                    EditLabel::new("status.opened")
                        .arg("name", LabelArg::Text(file_name(&path)))
                        .arg(
                            "seconds",
                            LabelArg::Text(format!("{:.2}", elapsed.as_secs_f64())),
                        ),
                ];
                if notes > 0 {
                    text.push(
                        EditLabel::new("status.notes").arg("count", LabelArg::Count(notes, "note")),
                    );
                }
                let level = if recovered {
                    MessageLevel::Warning
                } else {
                    MessageLevel::Info
                };
                if recovered || (converted && notes > 0) {
                    workspace::show_pane(&mut self.tree, Pane::Info);
                }
                self.set_message_parts(level, text);
            }
            Err(failure) if failure.message.key() == Some("load.cancelled") => {}
            Err(failure) => {
                self.set_message(MessageLevel::Error, failure.message.clone());
                self.dialog = Some(Box::new(dialogs::LoadErrorDialog(failure)));
            }
        }
    }

    /// File > Import into the open model: `loaded` is merged as one undo step.
    fn merge_loaded(
        &mut self,
        path: &std::path::Path,
        loaded: &pmx_core::formats::Loaded,
        options: pmx_core::edit::MergeOptions,
        unpacked: Option<crate::document::UnpackedFiles>,
    ) {
        let Some(document) = &mut self.document else {
            return;
        };
        let merged = Edit::merge_model(&mut document.model, &loaded.model, options);
        match merged {
            Ok(edit) => {
                document.apply(edit);
                // A model with a file finds its textures beside it: the merged model's images
                // go there now (a different file already there is kept and the user told).
                // Without a file, they wait in the scratch folder until the model is saved.
                if let Some(file) = &document.path
                    && !loaded.embedded_files.is_empty()
                {
                    let folder = pmx_core::formats::folder_of(file).to_owned();
                    let merged = EditLabel::new("status.merged")
                        .arg("name", LabelArg::Text(file_name(path)))
                        .arg("count", LabelArg::Number(loaded.model.faces.len()));
                    match pmx_core::formats::write_embedded_files(
                        &loaded.embedded_files,
                        &folder,
                        false,
                    ) {
                        Ok(written) => self.set_message_parts(
                            MessageLevel::Info,
                            vec![
                                merged,
                                EditLabel::new("status.merged_images")
                                    .arg("count", LabelArg::Number(written.len()))
                                    .arg("folder", LabelArg::Text(folder.display().to_string())),
                            ],
                        ),
                        Err(error) => self.set_message_parts(
                            MessageLevel::Error,
                            vec![merged, EditLabel::from(error.to_string())],
                        ),
                    }
                    return;
                }
                match (&mut document.unpacked, unpacked) {
                    (Some(held), Some(_)) => {
                        if let Err(error) = held.add(&loaded.embedded_files) {
                            self.set_message(MessageLevel::Error, error.to_string());
                            return;
                        }
                    }
                    (held @ None, unpacked) => *held = unpacked,
                    (Some(_), None) => {}
                }
                self.set_message(
                    MessageLevel::Info,
                    EditLabel::new("status.merged")
                        .arg("name", LabelArg::Text(file_name(path)))
                        .arg("count", LabelArg::Number(loaded.model.faces.len())),
                );
            }
            Err(error) => self.set_message(MessageLevel::Error, error.to_message()),
        }
    }

    /// Shows `message` in the status bar (a text such as an error reads the same in either
    /// language; keyed messages follow the language).
    pub fn set_message(&mut self, level: MessageLevel, message: impl Into<EditLabel>) {
        self.set_message_parts(level, vec![message.into()]);
    }

    fn set_message_parts(&mut self, level: MessageLevel, parts: Vec<EditLabel>) {
        self.message = Some(StatusMessage { level, parts });
    }

    /// Runs `action` now, or asks first when it would lose unsaved changes.
    fn guard(&mut self, action: PendingAction) {
        if self.document.as_ref().is_some_and(Document::is_dirty) {
            self.dialog = Some(Box::new(dialogs::UnsavedDialog { action }));
        } else {
            self.perform(action);
        }
    }

    fn perform(&mut self, action: PendingAction) {
        match action {
            PendingAction::New => {
                self.open_document(Document::new_empty());
                workspace::show_pane(&mut self.tree, Pane::Info);
            }
            PendingAction::Open { path, recover } => self.start_loading(path, recover),
            PendingAction::Import { path, options } => {
                if let Some(job) = self.loading.take() {
                    job.cancel();
                }
                self.loading = Some(LoadJob::start_with(
                    path,
                    options,
                    None,
                    Arc::clone(&self.wake),
                ));
            }
            PendingAction::Close => {
                self.document = None;
            }
            PendingAction::Quit => {
                self.quit_confirmed = true;
                self.platform.push(PlatformRequest::Quit);
            }
        }
    }

    /// The user asked to close the window (the app calls this on the window's close button).
    pub fn request_quit(&mut self) {
        if !self.quit_confirmed {
            self.guard(PendingAction::Quit);
        }
    }

    /// The answer of a native file dialog (`None`: cancelled, or no dialog available): it
    /// fills the path field of the dialog that asked; a file picked to read with no such field
    /// (File > Open's, File > Import CSV's) is opened.
    pub fn browse_finished(&mut self, purpose: BrowsePurpose, path: Option<PathBuf>) {
        let Some(path) = path else {
            self.set_message(
                MessageLevel::Info,
                EditLabel::new("status.native_dialog_none"),
            );
            return;
        };
        if self
            .dialog
            .as_mut()
            .is_some_and(|dialog| dialog.browsed(purpose, &path))
        {
            return;
        }
        match purpose {
            BrowsePurpose::Open => {
                self.dialog = None;
                self.commands.push(Command::Open(path));
            }
            // A format imported as it is opened (CSV) has no dialog to fill.
            BrowsePurpose::Import(format) if formats::opens_as_import(format) => {
                self.guard(PendingAction::Open {
                    path,
                    recover: false,
                });
            }
            // A motion no dialog asked for, or a pose pane file: the pose pane loads it.
            BrowsePurpose::Motion | BrowsePurpose::Pose => self.open_pose_file(&path),
            BrowsePurpose::Import(_)
            | BrowsePurpose::Save
            | BrowsePurpose::Export(_)
            | BrowsePurpose::UvLayout => {}
        }
    }

    /// Saves to the document's file, or asks where (Save as) when it has none or must not be
    /// written over: a file read only in part (recovery mode), one the model was converted
    /// from, or a PMD file (as PmxEditor does, a PMD model is saved as PMX; Save as may still
    /// write PMD, listing what it loses). Returns whether it saved.
    fn save(&mut self) -> bool {
        let Some(document) = &mut self.document else {
            return false;
        };
        let Some(path) = document.save_in_place_path().map(std::path::Path::to_owned) else {
            self.dialog = Some(Box::new(dialogs::SaveAsDialog::new(document, None)));
            return false;
        };
        // JSON keeps everything; a PMX file is written with the settings it was read with.
        let settings = document.save_settings;
        self.save_to(path, settings)
    }

    fn save_to(&mut self, path: PathBuf, settings: crate::document::SaveSettings) -> bool {
        let Some(document) = &mut self.document else {
            return false;
        };
        let started = std::time::Instant::now();
        match document.save_to(&path, settings) {
            Ok(warnings) => {
                // Export PMD writes through Save as: a file File > Export offers is listed
                // with the exports, never in the recent files.
                if formats::written_as_export(&path) {
                    self.settings.add_recent_export(&path);
                } else {
                    self.settings.add_recent(&path);
                }
                let seconds = format!("{:.2}", started.elapsed().as_secs_f64());
                let mut text = vec![
                    EditLabel::new("status.saved")
                        .arg("name", LabelArg::Text(file_name(&path)))
                        .arg("seconds", LabelArg::Text(seconds)),
                ];
                // A PMD file: the same count of losses the export dialog showed (the
                // validator's list), not the writer's longer per-vertex list.
                let pmd = document.format == pmx_core::formats::FileFormat::Pmd;
                let lost = if pmd {
                    dialogs::pmd_losses(&document.model).len()
                } else {
                    0
                };
                let mut level = MessageLevel::Info;
                if pmd && lost > 0 {
                    text.push(
                        EditLabel::new("status.pmd_lost").arg("count", LabelArg::Number(lost)),
                    );
                    level = MessageLevel::Warning;
                }
                // Every warning for other formats; for a PMD the ones beside its losses (the
                // writer's are untranslated texts, these keyed): where its textures went, what
                // could not be kept, a sphere map copy not written.
                let lang = self.settings.language;
                let rendered: Vec<String> = warnings
                    .iter()
                    .filter(|warning| !pmd || warning.key().is_some())
                    .map(|warning| warning.render(lang))
                    .collect();
                if !rendered.is_empty() {
                    text.push(
                        EditLabel::new("status.save_warnings")
                            .arg("count", LabelArg::Number(rendered.len())),
                    );
                    text.push(EditLabel::text(rendered.join("; ")));
                    level = MessageLevel::Warning;
                }
                self.set_message_parts(level, text);
                true
            }
            Err(message) => {
                self.set_message(MessageLevel::Error, message.clone());
                self.dialog = Some(Box::new(dialogs::ErrorDialog {
                    title: "dialog.save_failed",
                    message: message.render(self.lang()),
                }));
                false
            }
        }
    }

    /// Runs the queued commands (after the frame that queued them).
    pub fn run_commands(&mut self) {
        for command in self.commands.take() {
            self.run(command);
        }
    }

    fn run(&mut self, command: Command) {
        match command {
            Command::Edit(edit) => self.run_edit(edit),
            Command::Undo => self.step_history(true),
            Command::Visibility(action) => {
                if let Some(document) = &mut self.document {
                    let (visibility, model) = (&mut document.visibility, &document.model);
                    if visibility.apply(action, model, &document.selection) {
                        visibility.deselect_hidden(model, &mut document.selection);
                    }
                }
            }
            Command::Redo => self.step_history(false),
            Command::JumpToHistory(head) => {
                if let Some(document) = &mut self.document {
                    document.jump_to(head);
                }
            }
            Command::New => self.guard(PendingAction::New),
            Command::ShowOpenDialog => {
                self.dialog = Some(Box::new(dialogs::OpenDialog::new(self.document.as_ref())));
            }
            Command::Open(path) => self.guard(PendingAction::Open {
                path,
                recover: false,
            }),
            Command::OpenRecovered(path) => self.guard(PendingAction::Open {
                path,
                recover: true,
            }),
            Command::Perform(action) => self.perform(action),
            Command::Save => {
                self.save();
            }
            Command::SaveThen(action) => self.save_then(action),
            Command::SaveTo {
                path,
                settings,
                then,
            } => {
                if self.save_to(path, settings)
                    && let Some(action) = then
                {
                    self.perform(action);
                }
            }
            Command::ShowSaveAsDialog => {
                if let Some(document) = &self.document {
                    self.dialog = Some(Box::new(dialogs::SaveAsDialog::new(document, None)));
                }
            }
            Command::ShowImportDialog(format) => self.show_import_dialog(format),
            Command::ShowExportDialog(format) => {
                if let (Some(document), Some(export)) = (
                    &self.document,
                    formats::format_ui(format).and_then(|entry| entry.export.as_ref()),
                ) {
                    self.dialog = Some((export.dialog)(document));
                }
            }
            Command::Export {
                format,
                path,
                options,
            } => self.export_to(format, &path, options, false),
            Command::ShowUvLayoutDialog => {
                if let Some(document) = &self.document {
                    let materials = document.selection.get(ElementKind::Material).targets();
                    self.dialog = Some(Box::new(uv_layout_dialog::UvLayoutDialog::new(
                        document,
                        materials,
                        self.uv.channel,
                    )));
                }
            }
            Command::ExportUvLayout { path, options } => self.export_uv_layout(&path, &options),
            Command::ExportOverSource {
                format,
                path,
                options,
            } => self.export_to(format, &path, options, true),
            Command::Browse { purpose, suggested } => {
                self.platform
                    .push(PlatformRequest::Browse { purpose, suggested });
            }
            Command::Import {
                path,
                options,
                merge,
            } => {
                if let Some(merge) = merge
                    && self.document.is_some()
                {
                    // Into the open model: nothing is replaced, no question to ask.
                    if let Some(job) = self.loading.take() {
                        job.cancel();
                    }
                    self.loading = Some(LoadJob::start_with(
                        path,
                        options,
                        Some(merge),
                        Arc::clone(&self.wake),
                    ));
                } else {
                    self.guard(PendingAction::Import { path, options });
                }
            }
            Command::Close => self.guard(PendingAction::Close),
            Command::Quit => self.request_quit(),
            Command::RepairAll { target } => {
                let Some(document) = &mut self.document else {
                    return;
                };
                let report = document.repair(target);
                let text = EditLabel::new("status.repaired")
                    .arg("applied", LabelArg::Number(report.applied.len()))
                    .arg("failed", LabelArg::Number(report.failed.len()))
                    .arg("remaining", LabelArg::Number(report.remaining.len()));
                let level = if report.failed.is_empty() {
                    MessageLevel::Info
                } else {
                    MessageLevel::Warning
                };
                self.set_message(level, text);
            }
            Command::Select { kind, indices } => self.select_and_show(kind, &indices),
            Command::SelectOp(op) => self.run_select_op(op),
            Command::ShowPlugin(id) => {
                if let Some(plugin) = self.plugins.find(&id) {
                    let dialog =
                        plugin_dialog::PluginDialog::new(plugin).with_pose(&self.pose.pose);
                    self.dialog = Some(Box::new(dialog));
                }
            }
            Command::ApplyPluginEdit { revision, edit } => {
                if let Some(edit) = edit.take() {
                    self.apply_plugin_edit(revision, edit);
                }
            }
            Command::ReloadPlugins => self.reload_plugins(),
            Command::ShowScriptsFolderDialog => {
                self.dialog = Some(Box::new(plugin_dialog::ScriptsFolderDialog::new(
                    self.settings.scripts_folder.as_deref(),
                )));
            }
            Command::SetScriptsFolder(folder) => {
                self.settings.scripts_folder = folder;
                self.reload_plugins();
            }
            Command::Reveal { kind, index } => {
                if let Some(document) = &mut self.document
                    && index < document.model.count(kind)
                {
                    document.selection.get_mut(kind).select_only(index);
                    match Pane::of_kind(kind) {
                        Some(pane) => {
                            workspace::show_pane(&mut self.tree, pane);
                            if let Some(table) = self.tables.get_mut(&kind) {
                                table.scroll_to_index(index);
                            }
                            self.focus_kind = Some(kind);
                        }
                        None => {
                            // A kind without a tab (none since the structure editors came):
                            // the element is selected for it already.
                            let text = EditLabel::new("status.no_tab_yet")
                                .arg("kind", LabelArg::Key(menu::kind_key(kind)))
                                .arg("index", LabelArg::Index(index));
                            self.set_message(MessageLevel::Info, text);
                        }
                    }
                }
            }
        }
    }

    /// Selects `indices` of `kind` (those in range) and shows its tab at the first of them.
    fn select_and_show(&mut self, kind: ElementKind, indices: &[usize]) {
        let Some(document) = &mut self.document else {
            return;
        };
        let len = document.model.count(kind);
        let selection = document.selection.get_mut(kind);
        selection.clear();
        for &i in indices.iter().filter(|&&i| i < len) {
            selection.indices.insert(i);
        }
        selection.current = selection.indices.first();
        let first = selection.current;
        if let Some(pane) = Pane::of_kind(kind) {
            workspace::show_pane(&mut self.tree, pane);
            self.focus_kind = Some(kind);
            if let (Some(first), Some(table)) = (first, self.tables.get_mut(&kind)) {
                table.scroll_to_index(first);
            }
        }
        let count = indices.iter().filter(|&&i| i < len).count();
        let text = EditLabel::new("status.selected")
            .arg("count", LabelArg::Number(count))
            .arg("kind", LabelArg::Key(menu::kind_key(kind)));
        self.set_message(MessageLevel::Info, text);
    }

    fn step_history(&mut self, undo: bool) {
        let Some(document) = &mut self.document else {
            return;
        };
        let label = if undo {
            document.history.undo_edit_label()
        } else {
            document.history.redo_edit_label()
        }
        .cloned();
        let done = if undo {
            document.undo()
        } else {
            document.redo()
        };
        if let (Some(_), Some(label)) = (done, label) {
            let key = if undo {
                "status.undone"
            } else {
                "status.redone"
            };
            let text = EditLabel::new(key).arg("label", LabelArg::Label(Box::new(label)));
            self.set_message(MessageLevel::Info, text);
        }
        self.active_gesture = None;
    }

    /// The weight brush's lookups for the open document, kept while the changes since they
    /// were built are weight edits or touch neither vertices nor faces.
    fn paint_index(&mut self) -> Option<Arc<PaintIndex>> {
        let document = self.document.as_ref()?;
        let revision = document.revision();
        let kept = self
            .paint_index
            .take()
            .filter(|(id, at, _)| *id == self.document_id && document.mesh_unchanged_since(*at));
        let index = kept.map_or_else(
            || Arc::new(PaintIndex::lazy(&document.model)),
            |(_, _, index)| index,
        );
        self.paint_index = Some((self.document_id, revision, Arc::clone(&index)));
        Some(index)
    }

    fn run_edit(&mut self, command: EditCommand) {
        let select_created = command.select_created;
        let paint_index = match command.request {
            EditRequest::PaintWeights(_) => self.paint_index(),
            _ => None,
        };
        let Some(document) = &mut self.document else {
            return;
        };
        let gesture = match command.gesture {
            Some(widget) => match self.active_gesture {
                Some((id, gesture)) if id == widget => Some(gesture),
                _ => {
                    let gesture = document.history.new_gesture();
                    self.active_gesture = Some((widget, gesture));
                    Some(gesture)
                }
            },
            None => {
                self.active_gesture = None;
                None
            }
        };
        let base_dir = document.folder().map(ToOwned::to_owned);
        let built = match command.request {
            // A drag's later frames go straight into its step (the old values were read on
            // its first frame).
            EditRequest::Set(request) => match gesture {
                Some(gesture) => match document.continue_gesture(gesture, request) {
                    Ok(_) => return,
                    Err(request) => request.into_edit(&document.model),
                },
                None => request.into_edit(&document.model),
            },
            EditRequest::SetNamed { set, label } => match gesture {
                Some(gesture) => match document.continue_gesture(gesture, set) {
                    Ok(_) => return,
                    Err(set) => set.into_edit(&document.model),
                },
                None => set.into_edit(&document.model),
            }
            .map(|edit| edit.with_label(label)),
            EditRequest::NewMorph(morph) => new_morph_edit(&mut document.model, morph),
            EditRequest::Sets { sets, label } => {
                SetField::batch_into_edit(sets, &mut document.model, label)
            }
            EditRequest::Ops { ops, label } => {
                ops_to_edit_in(&mut document.model, &ops, None, base_dir.as_deref()).map(|edit| {
                    match label {
                        Some(label) => edit.with_label(label),
                        None => edit,
                    }
                })
            }
            EditRequest::PaintWeights(paint) => {
                let index =
                    paint_index.unwrap_or_else(|| Arc::new(PaintIndex::lazy(&document.model)));
                match Edit::paint_weights_with(&document.model, &paint, &index) {
                    // Nothing to change under the brush (weights already at their limit).
                    Err(pmx_core::edit::EditError::NoChange) => return,
                    built => built,
                }
            }
            EditRequest::Fix(fix) => fix.to_edit(&mut document.model),
            EditRequest::Insert { at, elements } => Edit::insert(&document.model, at, elements),
            EditRequest::Transform { target, groups } => {
                Edit::transform(&mut document.model, target, &groups)
            }
            EditRequest::TransformUv {
                channel,
                groups,
                morph,
            } => match match morph {
                Some((morph, value)) => {
                    Edit::transform_uv_morph(&document.model, channel, morph, value, &groups)
                }
                None => Edit::transform_uv(&document.model, channel, &groups),
            } {
                // A drag frame or a click that moves nothing (a scale about the line the
                // corners lie on) adds no step and says nothing.
                Err(pmx_core::edit::EditError::NoChange) => return,
                built => built,
            },
            EditRequest::AddUvChannels(count) => Edit::add_uv_channels(&document.model, count),
            EditRequest::PoseAsRest(pose) => Edit::pose_as_rest(&document.model, &pose),
            EditRequest::PoseAsBoneMorph { pose, name } => {
                let morph = pmx_core::pose::pose_as_bone_morph(&pose, &name, "");
                Edit::insert(
                    &document.model,
                    document.model.morphs.len(),
                    pmx_core::edit::Elements::Morphs(vec![morph]),
                )
                .map(|edit| {
                    edit.with_label(
                        EditLabel::new("edit.pose_as_bone_morph").arg("name", LabelArg::Text(name)),
                    )
                })
            }
        };
        match built {
            Ok(mut edit) => {
                if let Some(gesture) = gesture {
                    edit = edit.in_gesture(gesture);
                }
                // The document moves the selections with the edit's own report of where
                // elements went (and selects what it created when the command asks).
                document.apply_selecting(edit, select_created);
                // The step as it stands: a gesture's frame merged into it names the whole
                // stroke or drag ("ウェイト描画 左腕 (頂点207個)"), not the last frame.
                if let Some(label) = document.history.undo_edit_label().cloned() {
                    self.set_message(MessageLevel::Info, label);
                }
            }
            Err(error) => {
                self.set_message(MessageLevel::Error, error.to_message());
            }
        }
    }

    /// The scripts folder in use: the settings' own, or the default.
    #[must_use]
    pub fn scripts_folder(&self) -> Option<PathBuf> {
        self.settings
            .scripts_folder
            .clone()
            .or_else(pmx_plugins::default_scripts_folder)
    }

    /// Loads the built-in tools and the scripts folder's scripts again (a script edited or
    /// added is there at once); says in the status bar how many scripts there are and which
    /// did not load.
    pub fn reload_plugins(&mut self) {
        let folder = self.scripts_folder();
        let (registry, failed) = pmx_plugins::Registry::with_scripts(folder.as_deref());
        let scripts = registry
            .iter()
            .filter(|plugin| plugin.info().group == pmx_plugins::PluginGroup::Scripts)
            .count();
        self.plugins = registry;
        let mut parts =
            vec![EditLabel::new("status.scripts_loaded").arg("count", LabelArg::Number(scripts))];
        let level = if failed.is_empty() {
            MessageLevel::Info
        } else {
            // Each script's error in the UI's language, after the count.
            for (n, (_, error)) in failed.iter().enumerate() {
                parts.push(EditLabel::text(if n == 0 { " " } else { "; " }));
                parts.push(EditLabel::from(error.clone()));
            }
            MessageLevel::Warning
        };
        self.script_errors = failed;
        self.set_message_parts(level, parts);
    }

    /// Commits the edit a tool built on document revision `revision`, as one undo step named
    /// after the tool, if the document is still as it was built on.
    fn apply_plugin_edit(&mut self, revision: u64, edit: Edit) {
        let Some(document) = &mut self.document else {
            return;
        };
        if document.revision() != revision {
            self.set_message(
                MessageLevel::Error,
                EditLabel::new("status.plugin_outdated"),
            );
            return;
        }
        let label = edit.edit_label().clone();
        document.apply(edit);
        self.set_message(MessageLevel::Info, label);
    }

    /// Selects all rows of the focused table.
    fn select_all_in_focus(&mut self) {
        let (Some(kind), Some(document)) = (self.focus_kind, &mut self.document) else {
            return;
        };
        if let Some(state) = self.tables.get(&kind) {
            select_all(state, document.selection.get_mut(kind));
        }
    }

    /// Whether Delete and 編集 > 削除 act on the 3D view's selection: the view was the pane last
    /// pressed, or the pointer is over it.
    fn view_in_focus(&self) -> bool {
        self.view.has_focus || self.view.pointer_over
    }

    fn delete_in_focus(&mut self) {
        if self.view_in_focus() {
            if let Some(document) = &self.document
                && let Some(command) =
                    crate::panes::view::context_menu::delete_command(document, self.view.pick_mode)
            {
                self.commands.push(command);
            }
            return;
        }
        let (Some(kind), Some(document)) = (self.focus_kind, &self.document) else {
            return;
        };
        // The special display frames (Root, 表情) are never deleted: the key skips them.
        let indices = crate::widgets::table::deletable_targets(
            &document.model,
            kind,
            &document.selection.get(kind).targets(),
        );
        if !indices.is_empty() {
            self.commands.push(Command::ops(vec![EditOp::Delete {
                kind,
                indices,
                remove_unused_vertices: false,
            }]));
        }
    }

    fn duplicate_in_focus(&mut self) {
        let (Some(kind), Some(document)) = (self.focus_kind, &self.document) else {
            return;
        };
        let indices = document.selection.get(kind).targets();
        if !indices.is_empty() {
            self.commands
                .push(Command::ops(vec![EditOp::Duplicate { kind, indices }]).selecting_created());
        }
    }

    /// Whether the user is editing text: a text field (or a number field in its text mode) has
    /// the keyboard focus and the user changed its text since it got the focus. A field that was
    /// only clicked into (a click on a number cell of a table row does that) is not being
    /// edited: undo and redo act on the document then, and the field is left unchanged.
    fn editing_text(&mut self, ctx: &egui::Context) -> bool {
        let focused = ctx
            .memory(egui::Memory::focused)
            .filter(|_| ctx.text_edit_focused());
        let Some(id) = focused else {
            self.text_focus = None;
            return false;
        };
        let mut edited = match self.text_focus {
            Some((was, edited)) if was == id => edited,
            _ => false,
        };
        edited |= ctx.input(|i| {
            i.events.iter().any(|event| {
                matches!(
                    event,
                    egui::Event::Text(_)
                        | egui::Event::Paste(_)
                        | egui::Event::Cut
                        | egui::Event::Ime(egui::ImeEvent::Commit(_))
                        | egui::Event::Key {
                            key: egui::Key::Backspace | egui::Key::Delete | egui::Key::Enter,
                            pressed: true,
                            ..
                        }
                )
            })
        });
        self.text_focus = Some((id, edited));
        edited
    }

    /// Keyboard shortcuts. Undo and redo act on the document once per press whatever has the
    /// focus, except while the user is editing text ([`Self::editing_text`]); select all,
    /// duplicate and delete leave any focused text field alone (it has its own).
    fn shortcuts(&mut self, ctx: &egui::Context) {
        use egui::{Key, KeyboardShortcut, Modifiers};
        let text_focused = ctx.text_edit_focused();
        let editing_text = self.editing_text(ctx);
        let shortcut = |modifiers: Modifiers, key: Key| {
            ctx.input_mut(|i| i.consume_shortcut(&KeyboardShortcut::new(modifiers, key)))
        };
        // Every press counts: a slow frame may hold several (consume_shortcut would see one).
        let presses = |modifiers: Modifiers, key: Key| {
            ctx.input_mut(|i| i.count_and_consume_key(modifiers, key))
        };
        let ctrl = Modifiers::COMMAND;
        let ctrl_shift = Modifiers::COMMAND | Modifiers::SHIFT;
        // Shift variants first: consume_shortcut matches Ctrl+Z when Ctrl+Shift+Z is pressed.
        if shortcut(ctrl_shift, Key::S) {
            self.commands.push(Command::ShowSaveAsDialog);
        }
        if shortcut(ctrl, Key::S) {
            self.commands.push(Command::Save);
        }
        if shortcut(ctrl, Key::O) {
            self.commands.push(Command::ShowOpenDialog);
        }
        if shortcut(ctrl, Key::N) {
            self.commands.push(Command::New);
        }
        if shortcut(ctrl, Key::W) {
            self.commands.push(Command::Close);
        }
        if shortcut(ctrl, Key::Q) {
            self.commands.push(Command::Quit);
        }
        if self.dialog.is_some() {
            return;
        }
        if !editing_text {
            let redo = presses(ctrl_shift, Key::Z) + presses(ctrl, Key::Y);
            let undo = presses(ctrl, Key::Z);
            for _ in 0..redo {
                self.commands.push(Command::Redo);
            }
            for _ in 0..undo {
                self.commands.push(Command::Undo);
            }
            if undo + redo > 0
                && text_focused
                && let Some(id) = ctx.memory(egui::Memory::focused)
            {
                // A field only clicked into stops editing, unchanged (it shows the value the
                // undo leaves).
                ctx.memory_mut(|m| m.surrender_focus(id));
                self.text_focus = None;
            }
        }
        if text_focused {
            return;
        }
        // The selection tools' keys act on the view's selection while the view has the focus
        // (Ctrl+A selects every row of the table in focus otherwise). Shift variants first.
        if self.view_in_focus() && self.document.is_some() {
            for line in crate::select_ops::SELECT_SHORTCUTS {
                let modifiers = if line.shift { ctrl_shift } else { ctrl };
                if line.keys.iter().any(|&key| shortcut(modifiers, key)) {
                    self.commands.push(Command::SelectOp(line.op));
                }
            }
        } else if shortcut(ctrl, Key::A) {
            self.select_all_in_focus();
        }
        if shortcut(ctrl, Key::D) {
            self.duplicate_in_focus();
        }
        if shortcut(Modifiers::NONE, Key::Delete) {
            self.delete_in_focus();
        }
    }

    fn dropped_files(&mut self, ctx: &egui::Context) {
        let dropped = ctx.input(|i| i.raw.dropped_files.clone());
        if let Some(path) = dropped
            .into_iter()
            .find_map(|f| (!f.path().as_os_str().is_empty()).then(|| f.path().to_owned()))
        {
            self.commands.push(Command::Open(path));
        }
    }

    /// The whole editor: menu bar, tabs, status bar, dialogs. Runs the frame's commands at the
    /// end.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.poll_loading();
        self.dropped_files(&ctx);
        self.shortcuts(&ctx);
        // A drag ends when the pointer is released: the next drag is a new undo step.
        if !ctx.input(|i| i.pointer.any_down()) {
            self.active_gesture = None;
        }
        egui::Panel::top("menu_bar").show(ui, |ui| self.menu_bar_ui(ui));
        egui::Panel::bottom("status_bar").show(ui, |ui| self.status_bar_ui(ui));
        egui::CentralPanel::default().show(ui, |ui| self.workspace_ui(ui));
        self.dialogs_ui(&ctx);
        self.drop_hint_ui(&ctx);
        let had_commands = !self.commands.is_empty();
        self.run_commands();
        let selection_changed = self.note_selection_change();
        if had_commands || selection_changed {
            // The panels were drawn before the commands ran (and the status bar before the
            // panels changed the selection): draw again at once, so what the screen shows is
            // never one step behind the document.
            ctx.request_repaint();
        }
        if self.loading.is_some() {
            // Keep the progress bar moving even between the worker's wake-ups.
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
    }

    /// The kind whose selection changed last (the status bar counts its selected elements).
    #[must_use]
    pub fn status_selection_kind(&self) -> Option<ElementKind> {
        self.selection_kind.or(self.focus_kind)
    }

    /// Notices selection changes made anywhere during the frame (tables, trees, the 3D view,
    /// commands); returns whether there was one.
    fn note_selection_change(&mut self) -> bool {
        let Some(document) = &self.document else {
            self.selection_seen = (self.document_id, Vec::new());
            return false;
        };
        let now = document.selection.signatures();
        let (seen_document, seen) = &self.selection_seen;
        if *seen_document != self.document_id || seen.len() != now.len() {
            self.selection_seen = (self.document_id, now);
            self.selection_kind = None;
            return true;
        }
        let changed: Vec<ElementKind> = ElementKind::ALL
            .into_iter()
            .zip(seen.iter().zip(&now))
            .filter(|(_, (a, b))| a != b)
            .map(|(kind, _)| kind)
            .collect();
        self.selection_seen.1 = now;
        if changed.is_empty() {
            return false;
        }
        // A click may select in two lists (a frame item selects its frame and its bone): the
        // table the user works in wins.
        self.selection_kind = match self.focus_kind {
            Some(kind) if changed.contains(&kind) => Some(kind),
            _ => changed.first().copied(),
        };
        true
    }

    fn drop_hint_ui(&self, ctx: &egui::Context) {
        if ctx.input(|i| i.raw.hovered_files.is_empty()) {
            return;
        }
        let rect = ctx.content_rect();
        let painter = ctx.layer_painter(egui::LayerId::new(
            egui::Order::Foreground,
            egui::Id::unique("drop_hint"),
        ));
        painter.rect_filled(rect, 0.0, egui::Color32::from_black_alpha(160));
        painter.text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            self.lang().tr("status.drop_to_open"),
            egui::FontId::proportional(24.0),
            egui::Color32::WHITE,
        );
    }
}

/// What morph edit mode keeps of the pose while it is on.
#[derive(Debug)]
struct MorphEditPose {
    /// The pose before the mode was switched on, given back when it is switched off.
    replaced: pmx_core::pose::Pose,
    /// The morph the mode last showed (set back to 0 when another is chosen).
    shown: Option<usize>,
}

/// Inserts `morph` at the end of the morphs and lists it at the end of the 表情 display frame
/// (the special frame at index 1, when the model has it), as one step.
fn new_morph_edit(
    model: &mut pmx_core::Model,
    morph: pmx_core::model::Morph,
) -> Result<Edit, pmx_core::edit::EditError> {
    use pmx_core::model::{DisplayFrame, DisplayItem, MorphIdx};
    let at = model.morphs.len();
    let label = EditLabel::new("edit.new_morph")
        .arg("name", LabelArg::Text(morph.name_ja.as_str().into_owned()));
    let mut sequence = pmx_core::edit::Sequence::new(model);
    let insert = Edit::insert(
        sequence.model(),
        at,
        pmx_core::edit::Elements::Morphs(vec![morph]),
    )?;
    sequence.push(insert);
    let expressions = sequence
        .model()
        .display_frames
        .get(1)
        .filter(|frame| frame.special && frame.name_ja.as_str() == "表情")
        .map(|frame| frame.items.clone());
    if let Some(mut items) = expressions {
        items.push(DisplayItem::Morph(Some(MorphIdx::new(at))));
        let set = SetField::new(
            pmx_core::edit::field::<DisplayFrame>().items(),
            vec![1],
            items,
        )
        .into_edit(sequence.model())?;
        sequence.push(set);
    }
    Ok(sequence.finish(label))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tab_name_opens_and_an_unknown_one_lists_them() {
        let mut editor = EditorState::default();
        for name in [
            "info",
            "vertices",
            "faces",
            "textures",
            "materials",
            "bones",
            "morphs",
            "display_frames",
            "rigid_bodies",
            "joints",
            "soft_bodies",
            "view",
            "pose",
            "history",
            "validation",
        ] {
            assert!(editor.show_tab(name).is_ok(), "{name}");
        }
        let error = editor.show_tab("nonsense").expect_err("no such tab");
        assert!(
            error.contains("soft_bodies") && error.contains("view"),
            "{error}"
        );
    }
}
