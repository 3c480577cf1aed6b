//! ツール > a plugin: its description, an options form generated from its option
//! descriptions, what it will work on, a preview of its edits, and Apply, which commits them
//! as one undo step named after the plugin. The run happens on its own thread (on a copy of
//! the model) so a long script can be stopped; nothing reaches the document before Apply.

use super::dialog::{Choice, Dialog, DialogCx, Outcome, buttons_row};
use crate::command::{BuiltEdit, Command};
use crate::document::Document;
use crate::i18n::Language;
use pmx_core::model::ElementKind;
use pmx_core::pose::Pose;
use pmx_plugins::{
    Needs, OptionKind, OptionSpec, OptionValue, Options, Plugin, PluginError, PluginInfo,
    PluginRun, PluginSelection, run_plugin_posed,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

type RunResult = Result<PluginRun, PluginError>;

/// The preview's height, whatever it holds.
const PREVIEW_HEIGHT: f32 = 160.0;

/// The dialog's height without its options form: heading, description, preview, buttons and
/// the modal's margins (a long description wraps into a few more lines).
const OUTSIDE_THE_FORM: f32 = 470.0;

/// The options form's height at least, on however short a window.
const MIN_FORM_HEIGHT: f32 = 120.0;

/// A run on its own thread.
struct PluginJob {
    cancel: Arc<AtomicBool>,
    result: Arc<Mutex<Option<RunResult>>>,
    thread: JoinHandle<()>,
    /// The options and document revision it runs with.
    options: Options,
    revision: u64,
    started: Instant,
    /// Commit as soon as it finishes (Apply pressed without a current preview).
    apply: bool,
}

impl Drop for PluginJob {
    /// A run nobody waits for any more (the dialog closed by Escape or a click beside it)
    /// stops: a script at its next check, a built-in after its pass.
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// The last finished run and what it ran with.
struct Finished {
    options: Options,
    revision: u64,
    result: RunResult,
}

pub(super) struct PluginDialog {
    plugin: Arc<dyn Plugin>,
    info: PluginInfo,
    options: Options,
    job: Option<PluginJob>,
    finished: Option<Finished>,
    /// The pose pane's pose when the dialog was opened: the morph tools read it ("from the
    /// pose", the preview values of a group morph).
    pose: Option<Pose>,
}

impl std::fmt::Debug for PluginDialog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginDialog")
            .field("plugin", &self.info.id)
            .field("running", &self.job.is_some())
            .finish_non_exhaustive()
    }
}

impl PluginDialog {
    pub(super) fn new(plugin: Arc<dyn Plugin>) -> Self {
        let info = plugin.info();
        let options = Options::defaults(&info.options);
        Self {
            plugin,
            info,
            options,
            job: None,
            finished: None,
            pose: None,
        }
    }

    /// The dialog with the pose the editor shows, for the tools that read it.
    pub(super) fn with_pose(mut self, pose: &Pose) -> Self {
        self.pose = Some(pose.clone());
        self
    }
}

/// `pose` when its lists line up with `model`'s bones and morphs (a pose made before a
/// structural edit does not, and is not given to a tool).
fn fitting_pose(pose: Option<&Pose>, model: &pmx_core::Model) -> Option<Pose> {
    pose.filter(|pose| {
        pose.bones.len() == model.bones.len() && pose.morphs.len() == model.morphs.len()
    })
    .cloned()
}

/// The editor's selection as the plugin sees it.
pub(super) fn plugin_selection(document: &Document) -> PluginSelection {
    let mut selection = PluginSelection::new();
    for kind in ElementKind::ALL {
        let indices = document.selection.get(kind).targets();
        if !indices.is_empty() {
            selection.set(kind, indices);
        }
    }
    selection
}

/// What the plugin will work on, in words ("3 bones selected", "all 408 vertices").
fn scope_text(lang: Language, needs: Needs, document: &Document) -> String {
    let selected_count = |kind: ElementKind| document.selection.get(kind).target_count();
    let count_words = |count: usize, kind: ElementKind| {
        let (en, ja) = pmx_plugins::counted(count, kind.name());
        match lang {
            Language::Japanese => ja,
            Language::English => en,
        }
    };
    match needs {
        Needs::Nothing => lang.tr("dialog.plugin_whole_model").to_owned(),
        Needs::Selected(kind) => lang.format(
            "dialog.plugin_selected",
            &[("what", &count_words(selected_count(kind), kind))],
        ),
        Needs::SelectedOrAll(kind) => {
            let selected = selected_count(kind);
            if selected == 0 {
                lang.format(
                    "dialog.plugin_all",
                    &[("what", &count_words(document.model.count(kind), kind))],
                )
            } else {
                lang.format(
                    "dialog.plugin_selected",
                    &[("what", &count_words(selected, kind))],
                )
            }
        }
    }
}

/// One option's row in the form; true when the value changed.
fn option_ui(ui: &mut egui::Ui, lang: Language, spec: &OptionSpec, options: &mut Options) -> bool {
    let label = spec.label(lang).to_owned();
    ui.label(&label);
    let current = options
        .get(spec.key)
        .cloned()
        .unwrap_or(spec.default.clone());
    let mut changed = None;
    match (&spec.kind, current) {
        (OptionKind::Bool, OptionValue::Bool(mut value)) => {
            if ui
                .checkbox(&mut value, "")
                .accessible_name(&label)
                .changed()
            {
                changed = Some(OptionValue::Bool(value));
            }
        }
        (OptionKind::Number { min, max, unit }, OptionValue::Number(mut value)) => {
            let speed = ((max - min) / 500.0).clamp(0.0001, 1.0);
            let response = ui
                .add(
                    egui::DragValue::new(&mut value)
                        .range(*min..=*max)
                        .speed(speed)
                        .max_decimals(6)
                        .suffix(*unit),
                )
                .accessible_name(&label);
            if response.changed() {
                changed = Some(OptionValue::Number(value));
            }
        }
        (OptionKind::Integer { min, max }, OptionValue::Integer(mut value)) => {
            let response = ui
                .add(egui::DragValue::new(&mut value).range(*min..=*max))
                .accessible_name(&label);
            if response.changed() {
                changed = Some(OptionValue::Integer(value));
            }
        }
        (OptionKind::Choice(choices), OptionValue::Choice(value)) => {
            let name_of = |id: &str| {
                choices.iter().find(|(choice, _, _)| *choice == id).map_or(
                    id.to_owned(),
                    |(_, ja, en)| match lang {
                        Language::Japanese => (*ja).to_owned(),
                        Language::English => (*en).to_owned(),
                    },
                )
            };
            let mut chosen = value.clone();
            egui::ComboBox::from_id_salt(("plugin_option", spec.key))
                .selected_text(name_of(&value))
                .show_ui(ui, |ui| {
                    for (id, _, _) in choices {
                        ui.selectable_value(&mut chosen, (*id).to_owned(), name_of(id));
                    }
                })
                .response
                .accessible_name(&label);
            if chosen != value {
                changed = Some(OptionValue::Choice(chosen));
            }
        }
        (OptionKind::Text, OptionValue::Text(mut value)) => {
            if ui
                .add(egui::TextEdit::singleline(&mut value).desired_width(260.0))
                .accessible_name(&label)
                .changed()
            {
                changed = Some(OptionValue::Text(value));
            }
        }
        // A value of another kind than its description (cannot come from the form): shown,
        // not editable.
        (_, other) => {
            ui.label(format!("{other:?}"));
        }
    }
    ui.end_row();
    match changed {
        Some(value) => {
            options.set(spec.key, value);
            true
        }
        None => false,
    }
}

fn start_job(
    plugin: &Arc<dyn Plugin>,
    document: &Document,
    options: &Options,
    pose: Option<&Pose>,
    ctx: &egui::Context,
    apply: bool,
) -> PluginJob {
    let cancel = Arc::new(AtomicBool::new(false));
    let result = Arc::new(Mutex::new(None));
    let slot = Arc::clone(&result);
    // A script stops at the flag; a built-in finishes its pass and its result is dropped.
    let plugin = plugin
        .stoppable(Arc::clone(&cancel))
        .unwrap_or_else(|| Arc::clone(plugin));
    // The run builds its edit by applying and undoing steps, so it needs a model of its own
    // while the editor goes on drawing the document.
    let mut model = document.model.clone();
    let selection = plugin_selection(document);
    let run_options = options.clone();
    let pose = fitting_pose(pose, &model);
    let flag = Arc::clone(&cancel);
    let ctx = ctx.clone();
    let thread = std::thread::spawn(move || {
        let outcome = if flag.load(Ordering::Relaxed) {
            Err(PluginError::refused("stopped", "中止しました"))
        } else {
            run_plugin_posed(
                plugin.as_ref(),
                &mut model,
                &selection,
                &run_options,
                pose.as_ref(),
            )
        };
        if let Ok(mut slot) = slot.lock() {
            *slot = Some(outcome);
        }
        ctx.request_repaint();
    });
    PluginJob {
        cancel,
        result,
        thread,
        options: options.clone(),
        revision: document.revision(),
        started: Instant::now(),
        apply,
    }
}

impl Dialog for PluginDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        let Some(document) = cx.document else {
            return Outcome::Close;
        };
        let dialog = self;
        let revision = document.revision();
        // A finished run: keep it, or commit it when Apply asked for it.
        if let Some(job) = &dialog.job
            && job.thread.is_finished()
            && let Some(job) = dialog.job.take()
        {
            let result = job
                .result
                .lock()
                .ok()
                .and_then(|mut slot| slot.take())
                .unwrap_or_else(|| {
                    Err(PluginError::refused(
                        "the tool stopped unexpectedly",
                        "ツールが異常終了しました",
                    ))
                });
            if job.apply && job.revision == revision {
                match result {
                    Ok(run) => {
                        cx.push(Command::ApplyPluginEdit {
                            revision,
                            edit: BuiltEdit::new(run.edit),
                        });
                        return Outcome::Close;
                    }
                    Err(error) => {
                        dialog.finished = Some(Finished {
                            options: job.options.clone(),
                            revision: job.revision,
                            result: Err(error),
                        });
                    }
                }
            } else {
                dialog.finished = Some(Finished {
                    options: job.options.clone(),
                    revision: job.revision,
                    result,
                });
            }
        }
        let running = dialog.job.is_some();

        ui.set_max_width(640.0);
        ui.heading(dialog.info.name(lang));
        ui.label(dialog.info.description(lang));
        ui.weak(format!(
            "{} {} · {} · {}",
            dialog.info.id,
            dialog.info.version,
            dialog.info.group.name(lang),
            scope_text(lang, dialog.info.needs, document)
        ));
        // Counted, not listed: a million selected vertices are listed once, when a run starts.
        let needs_met = match dialog.info.needs {
            Needs::Selected(kind) if document.selection.get(kind).target_count() == 0 => {
                Err(PluginError::NothingSelected { kind: kind.name() })
            }
            _ => Ok(()),
        };
        if let Err(error) = &needs_met {
            ui.colored_label(ui.visuals().error_fg_color, error.message(lang));
        }
        if !dialog.info.options.is_empty() {
            ui.add_space(6.0);
            ui.strong(lang.tr("dialog.plugin_options"));
            let specs = dialog.info.options.clone();
            // The form scrolls when the window is too short for every option (a tool with
            // twenty options at 1280 × 800), so the buttons stay on screen.
            let room = ui.ctx().content_rect().height() - OUTSIDE_THE_FORM;
            ui.add_enabled_ui(!running, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("plugin_options_scroll")
                    .max_height(room.max(MIN_FORM_HEIGHT))
                    .show(ui, |ui| {
                        egui::Grid::new("plugin_options")
                            .num_columns(2)
                            .spacing([12.0, 6.0])
                            .show(ui, |ui| {
                                for spec in &specs {
                                    option_ui(ui, lang, spec, &mut dialog.options);
                                }
                            });
                    });
            });
        }

        // The preview: the last run's notes and steps, when it ran with these options on this
        // model; otherwise what it said before, marked as out of date.
        ui.add_space(6.0);
        ui.separator();
        let current = dialog
            .finished
            .as_ref()
            .is_some_and(|f| f.options == dialog.options && f.revision == revision);
        ui.horizontal(|ui| {
            ui.strong(lang.tr("dialog.plugin_preview"));
            if running {
                ui.spinner();
                let seconds = dialog
                    .job
                    .as_ref()
                    .map_or(0.0, |job| job.started.elapsed().as_secs_f32());
                ui.label(lang.format(
                    "dialog.plugin_running",
                    &[("seconds", &format!("{seconds:.1}"))],
                ));
                ui.ctx()
                    .request_repaint_after(std::time::Duration::from_millis(100));
            } else if dialog.finished.is_some() && !current {
                ui.weak(lang.tr("dialog.plugin_preview_stale"));
            }
        });
        // A fixed height: the modal is centred on last frame's size, so a preview that grew
        // when the run finished would move the buttons under the pointer.
        egui::ScrollArea::vertical()
            .id_salt("plugin_preview")
            .min_scrolled_height(PREVIEW_HEIGHT)
            .max_height(PREVIEW_HEIGHT)
            .auto_shrink([false, false])
            .show(ui, |ui| match &dialog.finished {
                None => {
                    ui.weak(lang.tr("dialog.plugin_no_preview"));
                }
                Some(Finished {
                    result: Ok(run), ..
                }) => {
                    for line in run.preview(lang) {
                        ui.label(line);
                    }
                }
                Some(Finished {
                    result: Err(error), ..
                }) => {
                    ui.colored_label(ui.visuals().error_fg_color, error.message(lang));
                }
            });

        ui.add_space(8.0);
        let mut outcome = Outcome::Keep;
        let ctx = ui.ctx().clone();
        ui.horizontal(|ui| {
            let can_run = needs_met.is_ok() && !running;
            if ui
                .add_enabled(
                    can_run,
                    egui::Button::new(lang.tr("dialog.plugin_preview_button")),
                )
                .clicked()
            {
                dialog.job = Some(start_job(
                    &dialog.plugin,
                    document,
                    &dialog.options,
                    dialog.pose.as_ref(),
                    &ctx,
                    false,
                ));
            }
            if ui
                .add_enabled(can_run, egui::Button::new(lang.tr("dialog.plugin_apply")))
                .clicked()
            {
                let previewed = dialog.finished.take_if(|f| {
                    f.options == dialog.options && f.revision == revision && f.result.is_ok()
                });
                match previewed {
                    Some(Finished {
                        result: Ok(run), ..
                    }) => {
                        cx.push(Command::ApplyPluginEdit {
                            revision,
                            edit: BuiltEdit::new(run.edit),
                        });
                        outcome = Outcome::Close;
                    }
                    _ => {
                        dialog.job = Some(start_job(
                            &dialog.plugin,
                            document,
                            &dialog.options,
                            dialog.pose.as_ref(),
                            &ctx,
                            true,
                        ));
                    }
                }
            }
            // Stop leaves the thread to end on its own (a script sees the cancel flag, a
            // built-in finishes its pass) and drops what it returns.
            if running && ui.button(lang.tr("dialog.plugin_stop")).clicked() {
                if let Some(job) = dialog.job.take() {
                    job.cancel.store(true, Ordering::Relaxed);
                }
                dialog.finished = Some(Finished {
                    options: dialog.options.clone(),
                    revision,
                    result: Err(PluginError::refused("Stopped.", "中止しました。")),
                });
            }
            if ui.button(lang.tr("dialog.cancel")).clicked() {
                if let Some(job) = dialog.job.take() {
                    job.cancel.store(true, Ordering::Relaxed);
                }
                outcome = Outcome::Close;
            }
        });
        outcome
    }
}

/// ツール > スクリプト > the scripts folder: a path (empty: the default folder), then the
/// scripts are loaded from it.
#[derive(Debug)]
pub(super) struct ScriptsFolderDialog {
    path: String,
}

impl ScriptsFolderDialog {
    /// Starts with the folder the settings name (empty: the default one).
    pub(super) fn new(folder: Option<&std::path::Path>) -> Self {
        Self {
            path: folder.map_or_else(String::new, |folder| folder.display().to_string()),
        }
    }
}

impl Dialog for ScriptsFolderDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        ui.heading(lang.tr("dialog.scripts_folder_title"));
        ui.label(lang.tr("dialog.scripts_folder_hint"));
        let default = pmx_plugins::default_scripts_folder()
            .map_or_else(String::new, |folder| folder.display().to_string());
        ui.add(
            egui::TextEdit::singleline(&mut self.path)
                .hint_text(default)
                .desired_width(480.0),
        )
        .accessible_name(lang.tr("dialog.path"));
        let typed = self.path.trim();
        let chosen = std::path::PathBuf::from(typed);
        if !typed.is_empty() && !chosen.is_dir() {
            ui.colored_label(
                ui.visuals().warn_fg_color,
                lang.tr("dialog.scripts_folder_missing"),
            );
        }
        match buttons_row(ui, lang, "dialog.scripts_folder_use", true) {
            Some(Choice::Confirm) => {
                cx.push(Command::SetScriptsFolder(
                    (!typed.is_empty()).then_some(chosen),
                ));
                Outcome::Close
            }
            Some(Choice::Cancel) => Outcome::Close,
            None => Outcome::Keep,
        }
    }
}
