//! File > Export VRM: the VRM 1.0 meta (who may use the avatar and how), the humanoid mapping
//! as a table the user can correct, spring bones from the physics, and what the VRM cannot
//! hold, checked by the real writer before anything is written. Nothing here changes the
//! document: an export is a copy, with no undo step and no unsaved change.

use super::dialog::{
    Dialog, DialogCx, Outcome, PathField, export_row, fill_path, path_row, refusal,
};
use crate::command::BrowsePurpose;
use crate::document::{Document, file_name};
use crate::i18n::Language;
use egui_extras::{Column, TableBuilder};
use pmx_core::formats::vrm::{
    AvatarPermission, CommercialUsage, HumanBone, HumanoidMap, HumanoidOverrides, Modification,
    VrmExportOptions, VrmExportReport, VrmMeta, map_bones_with, parse_meta_json, write_vrm,
};
use pmx_core::formats::{self, FileFormat, SaveOptions, WriteError};
use pmx_core::model::Model;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// What the report depends on: the model's revision, the mapping changes, spring bones (the
/// meta changes nothing the report counts).
type CheckKey = (u64, HumanoidOverrides, bool);

/// The report's height, whatever it says: the modal is centred on last frame's size, so a
/// report that grew or shrank when a check finished would move the table under the pointer.
const REPORT_HEIGHT: f32 = 220.0;

/// A `write_vrm` run off the UI thread (textures are encoded and the T-pose baked: seconds on
/// a big model).
#[derive(Debug)]
struct CheckJob {
    key: CheckKey,
    result: Arc<Mutex<Option<Result<VrmExportReport, WriteError>>>>,
    thread: JoinHandle<()>,
}

const FORMAT: FileFormat = FileFormat::Vrm;

/// File > Export VRM.
#[derive(Debug)]
pub(super) struct ExportVrmDialog {
    path: String,
    meta: MetaForm,
    overrides: HumanoidOverrides,
    spring_bones: bool,
    /// The model's non-IK bones for the mapping's combo boxes, for a document revision.
    bone_choices: Option<(u64, Vec<(usize, String)>)>,
    /// The mapping the writer will use, for (revision, overrides).
    mapping: Option<((u64, HumanoidOverrides), HumanoidMap)>,
    /// The last finished check, and the one running.
    checked: Option<(CheckKey, Result<VrmExportReport, WriteError>)>,
    job: Option<CheckJob>,
    /// The META.json path of Load/Save, and what the last of them said (`true`: an error).
    meta_path: String,
    meta_message: Option<(bool, String)>,
}

/// The meta as the form edits it: free text where `VrmMeta` has lists and options.
#[derive(Debug, Clone, PartialEq, Default)]
struct MetaForm {
    name: String,
    version: String,
    /// Separated by commas or lines.
    authors: String,
    copyright: String,
    contact: String,
    /// One per line.
    references: String,
    third_party_licenses: String,
    other_license_url: String,
    /// The permissions (the text fields of this are ignored: the strings above hold them).
    choices: VrmMeta,
}

fn optional(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

fn list(text: &str, separators: &[char]) -> Vec<String> {
    text.split(separators)
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect()
}

impl MetaForm {
    fn from_meta(meta: &VrmMeta) -> Self {
        Self {
            name: meta.name.clone().unwrap_or_default(),
            version: meta.version.clone().unwrap_or_default(),
            authors: meta.authors.join(", "),
            copyright: meta.copyright_information.clone().unwrap_or_default(),
            contact: meta.contact_information.clone().unwrap_or_default(),
            references: meta.references.join("\n"),
            third_party_licenses: meta.third_party_licenses.clone().unwrap_or_default(),
            other_license_url: meta.other_license_url.clone().unwrap_or_default(),
            choices: meta.clone(),
        }
    }

    fn meta(&self) -> VrmMeta {
        VrmMeta {
            name: optional(&self.name),
            version: optional(&self.version),
            authors: list(&self.authors, &[',', '\n', '、']),
            copyright_information: optional(&self.copyright),
            contact_information: optional(&self.contact),
            references: list(&self.references, &['\n']),
            third_party_licenses: optional(&self.third_party_licenses),
            other_license_url: optional(&self.other_license_url),
            ..self.choices.clone()
        }
    }
}

impl ExportVrmDialog {
    pub(super) fn new(document: &Document) -> Self {
        let path = document.export_path(FORMAT.spec().extension());
        let info = &document.model.info;
        let name = [info.name_ja.as_str(), info.name_en.as_str()]
            .into_iter()
            .map(|name| name.trim().to_owned())
            .find(|name| !name.is_empty());
        let meta_path = path.with_file_name("META.json");
        Self {
            path: path.display().to_string(),
            meta: MetaForm::from_meta(&VrmMeta {
                name,
                ..VrmMeta::default()
            }),
            overrides: HumanoidOverrides::new(),
            spring_bones: true,
            bone_choices: None,
            mapping: None,
            checked: None,
            job: None,
            meta_path: meta_path.display().to_string(),
            meta_message: None,
        }
    }
}

/// "left upper arm" for `leftUpperArm`.
fn words(camel: &str) -> String {
    let mut out = String::new();
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push(' ');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The humanoid bone in the UI's language: what it is, with MMD's usual name.
fn describe(bone: HumanBone, lang: Language) -> String {
    match (bone, lang) {
        (HumanBone::Hips, Language::Japanese) => "骨盤 (下半身の位置)".into(),
        (HumanBone::Hips, Language::English) => "pelvis (at 下半身)".into(),
        (_, Language::Japanese) => bone.mmd_name(),
        (_, Language::English) => format!("{} ({})", words(bone.vrm_name()), bone.mmd_name()),
    }
}

fn is_required(bone: HumanBone) -> bool {
    pmx_core::formats::vrm::humanoid::REQUIRED.contains(&bone)
}

fn permission_label(permission: AvatarPermission) -> &'static str {
    match permission {
        AvatarPermission::OnlyAuthor => "dialog.vrm_avatar_only_author",
        AvatarPermission::OnlySeparatelyLicensedPerson => "dialog.vrm_avatar_licensed",
        AvatarPermission::Everyone => "dialog.vrm_avatar_everyone",
    }
}

fn commercial_label(usage: CommercialUsage) -> &'static str {
    match usage {
        CommercialUsage::PersonalNonProfit => "dialog.vrm_commercial_personal_non_profit",
        CommercialUsage::PersonalProfit => "dialog.vrm_commercial_personal_profit",
        CommercialUsage::Corporation => "dialog.vrm_commercial_corporation",
    }
}

fn modification_label(modification: Modification) -> &'static str {
    match modification {
        Modification::Prohibited => "dialog.vrm_modification_prohibited",
        Modification::AllowModification => "dialog.vrm_modification_allowed",
        Modification::AllowModificationRedistribution => "dialog.vrm_modification_redistribution",
    }
}

/// A combo box over `choices`, each shown by its label key and named by `name_key`.
fn choice_ui<T: Copy + PartialEq>(
    ui: &mut egui::Ui,
    lang: Language,
    name_key: &'static str,
    value: &mut T,
    choices: &[T],
    label: fn(T) -> &'static str,
) {
    ui.label(lang.tr(name_key));
    egui::ComboBox::from_id_salt(name_key)
        .selected_text(lang.tr(label(*value)))
        .width(220.0)
        .show_ui(ui, |ui| {
            for &choice in choices {
                ui.selectable_value(value, choice, lang.tr(label(choice)));
            }
        })
        .response
        .accessible_name(lang.tr(name_key));
    ui.end_row();
}

fn text_row(ui: &mut egui::Ui, lang: Language, key: &'static str, text: &mut String, lines: usize) {
    ui.label(lang.tr(key));
    let edit = if lines > 1 {
        egui::TextEdit::multiline(text).desired_rows(lines)
    } else {
        egui::TextEdit::singleline(text)
    };
    ui.add(edit.desired_width(240.0))
        .accessible_name(lang.tr(key));
    ui.end_row();
}

fn meta_form_ui(ui: &mut egui::Ui, lang: Language, form: &mut MetaForm) {
    egui::Grid::new("vrm_meta")
        .num_columns(2)
        .spacing([10.0, 4.0])
        .show(ui, |ui| {
            text_row(ui, lang, "dialog.vrm_name", &mut form.name, 1);
            text_row(ui, lang, "dialog.vrm_version", &mut form.version, 1);
            text_row(ui, lang, "dialog.vrm_authors", &mut form.authors, 2);
            text_row(ui, lang, "dialog.vrm_copyright", &mut form.copyright, 1);
            text_row(ui, lang, "dialog.vrm_contact", &mut form.contact, 1);
            text_row(ui, lang, "dialog.vrm_references", &mut form.references, 2);
            text_row(
                ui,
                lang,
                "dialog.vrm_third_party",
                &mut form.third_party_licenses,
                1,
            );
            let choices = &mut form.choices;
            choice_ui(
                ui,
                lang,
                "dialog.vrm_avatar_permission",
                &mut choices.avatar_permission,
                &[
                    AvatarPermission::OnlyAuthor,
                    AvatarPermission::OnlySeparatelyLicensedPerson,
                    AvatarPermission::Everyone,
                ],
                permission_label,
            );
            ui.label(lang.tr("dialog.vrm_allow"));
            ui.vertical(|ui| {
                ui.checkbox(
                    &mut choices.allow_excessively_violent_usage,
                    lang.tr("dialog.vrm_allow_violent"),
                );
                ui.checkbox(
                    &mut choices.allow_excessively_sexual_usage,
                    lang.tr("dialog.vrm_allow_sexual"),
                );
                ui.checkbox(
                    &mut choices.allow_political_or_religious_usage,
                    lang.tr("dialog.vrm_allow_political"),
                );
                ui.checkbox(
                    &mut choices.allow_antisocial_or_hate_usage,
                    lang.tr("dialog.vrm_allow_antisocial"),
                );
                ui.checkbox(
                    &mut choices.allow_redistribution,
                    lang.tr("dialog.vrm_allow_redistribution"),
                );
            });
            ui.end_row();
            choice_ui(
                ui,
                lang,
                "dialog.vrm_commercial",
                &mut choices.commercial_usage,
                &[
                    CommercialUsage::PersonalNonProfit,
                    CommercialUsage::PersonalProfit,
                    CommercialUsage::Corporation,
                ],
                commercial_label,
            );
            ui.label(lang.tr("dialog.vrm_credit"));
            ui.horizontal(|ui| {
                ui.radio_value(
                    &mut choices.credit_unnecessary,
                    false,
                    lang.tr("dialog.vrm_credit_required"),
                );
                ui.radio_value(
                    &mut choices.credit_unnecessary,
                    true,
                    lang.tr("dialog.vrm_credit_unnecessary"),
                );
            });
            ui.end_row();
            choice_ui(
                ui,
                lang,
                "dialog.vrm_modification",
                &mut choices.modification,
                &[
                    Modification::Prohibited,
                    Modification::AllowModification,
                    Modification::AllowModificationRedistribution,
                ],
                modification_label,
            );
            text_row(
                ui,
                lang,
                "dialog.vrm_other_license",
                &mut form.other_license_url,
                1,
            );
        });
}

/// The mapping table: one row per humanoid bone, the model bone chosen in a combo box;
/// required bones without one in the error colour.
fn mapping_ui(
    ui: &mut egui::Ui,
    lang: Language,
    bones: &[(usize, String)],
    map: &HumanoidMap,
    overrides: &mut HumanoidOverrides,
) {
    let none = lang.tr("dialog.vrm_no_bone");
    let error = ui.visuals().error_fg_color;
    let name_of = |index: usize| {
        bones
            .iter()
            .find(|(i, _)| *i == index)
            .map_or_else(|| index.to_string(), |(_, name)| name.clone())
    };
    TableBuilder::new(ui)
        .id_salt("vrm_humanoid")
        .striped(true)
        .resizable(false)
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .column(Column::exact(150.0))
        .column(Column::exact(170.0))
        .column(Column::exact(190.0))
        .max_scroll_height(230.0)
        .header(20.0, |mut header| {
            for key in [
                "dialog.vrm_column_vrm",
                "dialog.vrm_column_description",
                "dialog.vrm_column_bone",
            ] {
                header.col(|ui| {
                    ui.strong(lang.tr(key));
                });
            }
        })
        .body(|body| {
            body.rows(24.0, HumanBone::ALL.len(), |mut row| {
                let bone = HumanBone::ALL[row.index()];
                let chosen = map.get(bone);
                let missing = is_required(bone) && chosen.is_none() && bone != HumanBone::Hips;
                row.col(|ui| {
                    let mut name = egui::RichText::new(bone.vrm_name());
                    if is_required(bone) {
                        name = name.strong();
                    }
                    if missing {
                        name = name.color(error);
                    }
                    ui.label(name);
                });
                row.col(|ui| {
                    ui.label(describe(bone, lang));
                });
                row.col(|ui| {
                    if bone == HumanBone::Hips {
                        // The writer places hips itself (a node at the pelvis).
                        ui.label(lang.tr("dialog.vrm_hips_automatic"));
                        return;
                    }
                    let selected = chosen.map_or_else(|| none.to_owned(), name_of);
                    let mut text = egui::RichText::new(selected);
                    if missing {
                        text = text.color(error);
                    }
                    let mut choice = chosen;
                    egui::ComboBox::from_id_salt(("vrm_bone", bone.vrm_name()))
                        .selected_text(text)
                        .width(180.0)
                        .height(320.0)
                        .show_ui(ui, |ui| {
                            ui.selectable_value(&mut choice, None, none);
                            for (index, name) in bones {
                                ui.selectable_value(&mut choice, Some(*index), name.as_str());
                            }
                        })
                        .response
                        .accessible_name(bone.vrm_name());
                    if choice != chosen {
                        overrides.insert(bone, choice);
                    }
                });
            });
        });
}

impl Dialog for ExportVrmDialog {
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut DialogCx<'_>) -> Outcome {
        let lang = cx.lang;
        let Some(document) = cx.document else {
            return Outcome::Close;
        };
        let export = self;
        ui.set_max_width(1000.0);
        ui.heading(lang.tr("dialog.export_vrm_title"));
        path_row(
            ui,
            cx,
            &mut export.path,
            PathField::new(BrowsePurpose::Export(FORMAT)).width(560.0),
        );
        let model = &document.model;
        let revision = document.revision();
        if export
            .bone_choices
            .as_ref()
            .is_none_or(|(r, _)| *r != revision)
        {
            let choices = model
                .bones
                .iter()
                .enumerate()
                .filter(|(_, bone)| !bone.is_ik())
                .map(|(index, bone)| (index, format!("{index}: {}", bone.name_ja.as_str())))
                .collect();
            export.bone_choices = Some((revision, choices));
        }
        let mapping_key = (revision, export.overrides.clone());
        if export
            .mapping
            .as_ref()
            .is_none_or(|(k, _)| *k != mapping_key)
        {
            let map = map_bones_with(model, &export.overrides);
            export.mapping = Some((mapping_key, map));
        }
        let missing = export
            .mapping
            .as_ref()
            .map(|(_, map)| map.missing_required())
            .unwrap_or_default();

        finish_check(export);
        // The key the report on screen is for (the layout below may change it).
        let shown_key: CheckKey = (revision, export.overrides.clone(), export.spring_bones);
        let running = export.job.is_some();
        let mut check_now = false;
        ui.add_space(4.0);
        ui.horizontal_top(|ui| {
            ui.vertical(|ui| {
                ui.set_width(380.0);
                ui.strong(lang.tr("dialog.vrm_meta"));
                meta_form_ui(ui, lang, &mut export.meta);
                ui.horizontal(|ui| {
                    ui.add(egui::TextEdit::singleline(&mut export.meta_path).desired_width(200.0))
                        .accessible_name(lang.tr("dialog.vrm_meta_file"));
                    if ui.button(lang.tr("dialog.vrm_meta_load")).clicked() {
                        export.meta_message = Some(load_meta(&export.meta_path, &mut export.meta));
                    }
                    if ui.button(lang.tr("dialog.vrm_meta_save")).clicked() {
                        export.meta_message =
                            Some(save_meta(&export.meta_path, &export.meta, lang));
                    }
                });
                if let Some((failed, message)) = &export.meta_message {
                    let color = if *failed {
                        ui.visuals().error_fg_color
                    } else {
                        ui.visuals().text_color()
                    };
                    ui.colored_label(color, message);
                }
            });
            // Space, not a vertical separator: a separator takes the height the modal had
            // last frame, and the modal then grows every frame.
            ui.add_space(16.0);
            ui.vertical(|ui| {
                ui.strong(lang.tr("dialog.vrm_humanoid"));
                if let (Some((_, bones)), Some((_, map))) = (&export.bone_choices, &export.mapping)
                {
                    // A fixed height: inside a horizontal layout the table would otherwise
                    // get the row's height and show no rows.
                    ui.allocate_ui(egui::vec2(530.0, 250.0), |ui| {
                        mapping_ui(ui, lang, bones, map, &mut export.overrides);
                    });
                }
                ui.horizontal(|ui| {
                    if ui
                        .add_enabled(
                            !export.overrides.is_empty(),
                            egui::Button::new(lang.tr("dialog.vrm_mapping_reset")),
                        )
                        .clicked()
                    {
                        export.overrides.clear();
                    }
                });
                if !missing.is_empty() {
                    let names: Vec<String> = missing
                        .iter()
                        .map(|bone| format!("{} ({})", bone.vrm_name(), bone.mmd_name()))
                        .collect();
                    ui.colored_label(
                        ui.visuals().error_fg_color,
                        lang.format("dialog.vrm_missing_bones", &[("bones", &names.join(", "))]),
                    );
                }
                ui.add_space(4.0);
                ui.checkbox(&mut export.spring_bones, lang.tr("dialog.vrm_spring_bones"))
                    .on_hover_text(lang.tr("dialog.vrm_spring_bones_hint"));
                ui.separator();
                let checking = running
                    || export
                        .checked
                        .as_ref()
                        .is_none_or(|(checked_key, _)| *checked_key != shown_key);
                ui.horizontal(|ui| {
                    ui.strong(lang.tr("dialog.vrm_report"));
                    if ui
                        .add_enabled(!running, egui::Button::new(lang.tr("dialog.vrm_check")))
                        .clicked()
                    {
                        check_now = true;
                    }
                    // On the heading's line, so the report below keeps its height.
                    if checking {
                        ui.spinner();
                        ui.label(lang.tr("dialog.vrm_checking"));
                    }
                });
                ui.vertical(|ui| {
                    ui.set_min_height(REPORT_HEIGHT);
                    if let Some((_, result)) = &export.checked {
                        report_ui(ui, lang, result);
                    }
                });
            });
        });

        let key: CheckKey = (revision, export.overrides.clone(), export.spring_bones);
        let options = VrmExportOptions {
            meta: export.meta.meta(),
            model_dir: document.folder().map(Path::to_owned),
            humanoid_overrides: export.overrides.clone(),
            spring_bones: export.spring_bones,
            ..VrmExportOptions::default()
        };
        let stale = export.checked.as_ref().is_none_or(|(k, _)| *k != key);
        if export.job.is_none() && (check_now || stale) {
            // Checked automatically when the dialog opens and whenever the mapping or the
            // spring switch changes; one run at a time, the newest settings next.
            export.job = Some(start_check(ui.ctx(), model, key.clone(), options.clone()));
            ui.ctx().request_repaint();
        }

        let options = move || SaveOptions {
            vrm: options,
            ..SaveOptions::default()
        };
        export_row(
            ui,
            cx,
            &export.path,
            FORMAT,
            missing.is_empty().then_some(options),
        )
    }

    fn browsed(&mut self, purpose: BrowsePurpose, path: &Path) -> bool {
        fill_path(&mut self.path, BrowsePurpose::Export(FORMAT), purpose, path)
    }
}

/// Runs `write_vrm` on a copy of the model on its own thread.
fn start_check(
    ctx: &egui::Context,
    model: &Model,
    key: CheckKey,
    options: VrmExportOptions,
) -> CheckJob {
    let result = Arc::new(Mutex::new(None));
    let slot = Arc::clone(&result);
    let model = model.clone();
    let ctx = ctx.clone();
    let thread = std::thread::spawn(move || {
        let report = write_vrm(&model, &options).map(|export| export.report);
        if let Ok(mut slot) = slot.lock() {
            *slot = Some(report);
        }
        ctx.request_repaint();
    });
    CheckJob {
        key,
        result,
        thread,
    }
}

/// Takes the running check's result once its thread is done.
fn finish_check(export: &mut ExportVrmDialog) {
    let Some(job) = &export.job else {
        return;
    };
    if !job.thread.is_finished() {
        return;
    }
    let result = job.result.lock().ok().and_then(|mut slot| slot.take());
    let Some(job) = export.job.take() else {
        return;
    };
    let result = result.unwrap_or_else(|| {
        // The writer panicked: say so rather than wait for ever.
        Err(WriteError::Serialize(
            "the check stopped unexpectedly".into(),
        ))
    });
    export.checked = Some((job.key, result));
}

/// The last check's counts and losses (or the refusal in words), in `REPORT_HEIGHT`.
fn report_ui(ui: &mut egui::Ui, lang: Language, result: &Result<VrmExportReport, WriteError>) {
    match result {
        Ok(report) => {
            ui.label(lang.format(
                "dialog.vrm_summary",
                &[
                    ("humanoid", &report.humanoid_bones),
                    ("joints", &report.joints),
                    ("meshes", &report.meshes),
                    ("primitives", &report.primitives),
                    ("targets", &report.morph_targets),
                    ("presets", &report.preset_expressions),
                    ("custom", &report.custom_expressions),
                    ("materials", &report.materials),
                    ("images", &report.images),
                ],
            ));
            let springs = &report.springs;
            ui.label(lang.format(
                "dialog.vrm_springs",
                &[
                    ("springs", &springs.springs),
                    ("spring_joints", &springs.joints),
                    ("colliders", &springs.colliders),
                    ("groups", &springs.collider_groups),
                    ("cone", &springs.cone_limits),
                    ("hinge", &springs.hinge_limits),
                    ("spherical", &springs.spherical_limits),
                    ("constraints", &report.node_constraints),
                ],
            ));
            if report.losses.is_empty() {
                return;
            }
            ui.colored_label(
                ui.visuals().warn_fg_color,
                lang.format("dialog.vrm_losses", &[("count", &report.losses.len())]),
            );
            // The list takes what the lines above leave.
            let rest =
                (REPORT_HEIGHT - ui.min_rect().height() - ui.spacing().item_spacing.y).max(60.0);
            ui.allocate_ui(egui::vec2(530.0, rest), |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("vrm_losses")
                    .max_height(rest)
                    .auto_shrink([false, true])
                    .show(ui, |ui| {
                        for loss in &report.losses {
                            ui.label(match lang {
                                Language::Japanese => loss.message_ja(),
                                Language::English => loss.message_en(),
                            });
                        }
                    });
            });
        }
        Err(error) => {
            ui.colored_label(ui.visuals().error_fg_color, refusal(error, lang));
        }
    }
}

/// Load: the form from a META.json; the message says what happened.
fn load_meta(path: &str, form: &mut MetaForm) -> (bool, String) {
    let path = Path::new(path.trim());
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) => return (true, format!("{}: {error}", path.display())),
    };
    match parse_meta_json(&text) {
        Ok(parsed) => {
            *form = MetaForm::from_meta(&parsed.meta);
            let mut message = file_name(path);
            for warning in parsed.warnings {
                message.push_str("; ");
                message.push_str(&warning);
            }
            (false, message)
        }
        Err(error) => (true, format!("{}: {error}", path.display())),
    }
}

/// Save: the form as a META.json.
fn save_meta(path: &str, form: &MetaForm, lang: Language) -> (bool, String) {
    let path = Path::new(path.trim());
    match formats::write_atomic(path, form.meta().to_json_string().as_bytes()) {
        Ok(()) => (
            false,
            lang.format("dialog.vrm_meta_saved", &[("name", &file_name(path))]),
        ),
        Err(error) => (true, format!("{}: {error}", path.display())),
    }
}
