//! The 検証 (validation) pane: the issues `pmx_core::validate` finds in the open model,
//! refreshed after each edit; a click selects the element in its tab; Fix applies one issue's
//! repair, Fix all repairs everything, each as one undo step.
//!
//! After edits the check is brought up to date from what they touched (the document's change
//! log: `pmx_core::validate::recheck`), which gives what a full check gives and stays within
//! the automatic budget on a 1,000,000-vertex model; a full check runs when the log no longer
//! reaches back to the last check, or the target, document or load report changed.

use crate::command::{Command, EditCommand, EditRequest};
use crate::document::Document;
use crate::i18n::Language;
use egui_extras::{Column, TableBuilder};
use pmx_core::model::{ElementKind, PmxVersion};
use pmx_core::path::ModelPath;
use pmx_core::texture::TextureProblem;
use pmx_core::validate::{
    Checked, Issue, Recheck, Severity, Summary, Target, check_keeping, recheck,
};
use std::time::{Duration, Instant};

/// A check (or re-check after edits) slower than this turns automatic refreshing off (a button
/// refreshes instead), so editing a huge model never waits for the validator after every
/// change.
const AUTO_REFRESH_BUDGET: Duration = Duration::from_millis(150);

/// The validation pane's state: the issues of the last check and what they were checked for.
#[derive(Debug)]
pub struct ValidationState {
    /// The file the model is checked for; `None`: PMX in the model's own version.
    pub target: Option<Target>,
    pub issues: Vec<Issue>,
    /// Show errors, warnings, info.
    pub show: [bool; 3],
    pub auto_refresh: bool,
    /// (document id, revision, target) the issues belong to.
    checked: Option<(u64, u64, Option<Target>)>,
    pub last_duration: Duration,
    /// What the validator found (`issues` is this plus `decode_issues`).
    checked_issues: Vec<Issue>,
    /// The last check, kept for re-checking only what edits touch since.
    kept: Option<Checked>,
    /// What the last refresh did: `None` for a full check.
    last_recheck: Option<Recheck>,
    /// Textures the 3D view could not decode although their header looked right (the
    /// validator reads headers only): warnings too, so a placeholder never goes unexplained.
    decode_issues: Vec<Issue>,
    /// The view's problems `decode_issues` were made from.
    decode_problems: Vec<TextureProblem>,
}

impl Default for ValidationState {
    fn default() -> Self {
        Self {
            target: None,
            issues: Vec::new(),
            show: [true, true, true],
            auto_refresh: true,
            checked: None,
            last_duration: Duration::ZERO,
            checked_issues: Vec::new(),
            kept: None,
            last_recheck: None,
            decode_issues: Vec::new(),
            decode_problems: Vec::new(),
        }
    }
}

impl ValidationState {
    /// Checks the model again when it (or the target) changed since the last check.
    pub fn refresh(&mut self, document: &Document, document_id: u64, force: bool) {
        let key = (document_id, document.revision(), self.target);
        if self.checked == Some(key) || !(force || self.auto_refresh || self.checked.is_none()) {
            return;
        }
        let started = Instant::now();
        let options = document.check_options(self.target);
        let report = document.load_report.as_ref();
        // The edits since the last check of this document for this target, if the log still
        // has them all.
        let changes = match self.checked {
            Some((id, revision, target)) if id == document_id && target == self.target => {
                document.changes_since(revision)
            }
            _ => None,
        };
        self.last_recheck = match (self.kept.as_mut(), changes) {
            (Some(kept), Some(changes)) => {
                Some(recheck(kept, &document.model, report, &options, changes))
            }
            _ => {
                self.kept = Some(check_keeping(&document.model, report, &options));
                None
            }
        };
        self.checked_issues = self
            .kept
            .as_ref()
            .map(|kept| kept.issues().to_vec())
            .unwrap_or_default();
        self.last_duration = started.elapsed();
        self.compose();
        self.checked = Some(key);
        if self.last_duration > AUTO_REFRESH_BUDGET {
            self.auto_refresh = false;
        }
    }

    /// Takes the check the loading thread made of a newly opened model (for the model's own
    /// version, the default target), instead of checking it again on the UI thread.
    pub fn adopt(
        &mut self,
        check: crate::document::FirstCheck,
        document: &Document,
        document_id: u64,
    ) {
        if self.target.is_some() {
            return;
        }
        self.checked_issues = check.checked.issues().to_vec();
        self.kept = Some(check.checked);
        self.last_duration = check.duration;
        self.compose();
        self.checked = Some((document_id, document.revision(), None));
        // The budget is for the checks after edits, which re-check only what they touched:
        // a model that took long to check in full stays checked automatically.
    }

    /// Whether the issues are those of the model as it is now.
    #[must_use]
    pub fn is_current(&self, document: &Document, document_id: u64) -> bool {
        self.checked == Some((document_id, document.revision(), self.target))
    }

    /// Adds a warning for each texture the 3D view could not read or decode that the validator
    /// did not report (its checks read headers only); `problems` is the view's list.
    pub fn merge_view_problems(&mut self, document: &Document, problems: &[TextureProblem]) {
        if problems == self.decode_problems.as_slice() {
            return;
        }
        self.decode_problems = problems.to_vec();
        self.decode_issues.clear();
        for problem in problems {
            let message = match problem {
                TextureProblem::NotFound { .. } => continue,
                TextureProblem::Unreadable { message, .. }
                | TextureProblem::Undecodable { message, .. } => message,
            };
            let name = problem.name();
            for (index, texture) in document.model.textures.iter().enumerate() {
                if texture.as_str().trim() != name.trim() {
                    continue;
                }
                let path = ModelPath::element(ElementKind::Texture, index);
                self.decode_issues.push(Issue::new(
                    Severity::Warning,
                    "W-TEXTURE-UNREADABLE",
                    path,
                    format!(
                        "texture file \"{name}\" cannot be decoded ({message}); the 3D view shows a placeholder"
                    ),
                    format!(
                        "テクスチャファイル「{name}」をデコードできません（{message}）。3D表示では代わりの模様を表示しています"
                    ),
                ));
            }
        }
        self.compose();
    }

    /// `issues`: the validator's, and the view's decoding failures it did not report.
    fn compose(&mut self) {
        let reported = |issue: &Issue| {
            self.checked_issues
                .iter()
                .any(|i| i.path == issue.path && i.code.starts_with("W-TEXTURE"))
        };
        let extra: Vec<Issue> = self
            .decode_issues
            .iter()
            .filter(|issue| !reported(issue))
            .cloned()
            .collect();
        self.issues = self.checked_issues.clone();
        self.issues.extend(extra);
        // Errors, then warnings, then info, as the validator orders them.
        self.issues
            .sort_by_key(|issue| std::cmp::Reverse(issue.severity));
    }

    /// Forgets the last check (another document was opened).
    pub fn reset(&mut self) {
        self.issues.clear();
        self.checked_issues.clear();
        self.kept = None;
        self.last_recheck = None;
        self.decode_issues.clear();
        self.decode_problems.clear();
        self.checked = None;
        self.auto_refresh = true;
    }
}

fn severity_key(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "validation.error",
        Severity::Warning => "validation.warning",
        Severity::Info => "validation.info",
    }
}

fn severity_slot(severity: Severity) -> usize {
    match severity {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Info => 2,
    }
}

fn target_key(target: Option<Target>) -> &'static str {
    match target {
        None => "validation.target_model",
        Some(Target::Pmx(PmxVersion::V2_0)) => "validation.target_pmx20",
        Some(Target::Pmx(PmxVersion::V2_1)) => "validation.target_pmx21",
        Some(Target::Pmd) => "validation.target_pmd",
    }
}

/// The pane.
pub fn validation_pane_ui(
    ui: &mut egui::Ui,
    state: &mut ValidationState,
    cx: &mut crate::widgets::PaneCx<'_>,
    texture_problems: &[TextureProblem],
) {
    let (lang, document_id) = (cx.lang, cx.document_id);
    let document: &Document = cx.document;
    let commands = &mut *cx.commands;
    let mut force = false;
    ui.horizontal_wrapped(|ui| {
        ui.label(lang.tr("validation.target"));
        let combo = egui::ComboBox::from_id_salt("validation_target")
            .selected_text(lang.tr(target_key(state.target)))
            .show_ui(ui, |ui| {
                for target in [
                    None,
                    Some(Target::Pmx(PmxVersion::V2_0)),
                    Some(Target::Pmx(PmxVersion::V2_1)),
                    Some(Target::Pmd),
                ] {
                    ui.selectable_value(&mut state.target, target, lang.tr(target_key(target)));
                }
            });
        let _ = combo.response.accessible_name(lang.tr("validation.target"));
        ui.checkbox(&mut state.auto_refresh, lang.tr("validation.auto_refresh"));
        if ui.button(lang.tr("validation.refresh")).clicked() {
            force = true;
        }
        // While a button is held (a drag of a value or of the gizmo sends an edit every
        // frame), the automatic check waits for the release: the model is checked once, after
        // the drag.
        let dragging = ui.input(|i| i.pointer.any_down());
        if force || !dragging {
            state.refresh(document, document_id, force);
        }
        state.merge_view_problems(document, texture_problems);
        // The counts on the same row where it has room: the bottom row of the window keeps
        // its height for the issues (five at 1280 × 800).
        ui.separator();
        let summary = Summary::of(&state.issues);
        let counts = [summary.errors, summary.warnings, summary.infos];
        for (slot, severity) in [Severity::Error, Severity::Warning, Severity::Info]
            .into_iter()
            .enumerate()
        {
            let text = lang.format(severity_key(severity), &[("count", &counts[slot])]);
            ui.toggle_value(&mut state.show[slot], text);
        }
        ui.separator();
        let fix_all =
            egui::Button::new(lang.format("validation.fix_all", &[("count", &summary.fixable)]));
        if ui.add_enabled(summary.fixable > 0, fix_all).clicked() {
            commands.push(Command::RepairAll {
                target: state.target,
            });
        }
        if !state.is_current(document, document_id) {
            ui.colored_label(ui.visuals().warn_fg_color, lang.tr("validation.outdated"));
        } else {
            ui.weak(lang.format(
                "validation.checked_in",
                &[(
                    "ms",
                    &format!("{:.0}", state.last_duration.as_secs_f64() * 1000.0),
                )],
            ));
        }
    });
    ui.separator();
    let shown: Vec<usize> = state
        .issues
        .iter()
        .enumerate()
        .filter(|(_, issue)| state.show[severity_slot(issue.severity)])
        .map(|(i, _)| i)
        .collect();
    if shown.is_empty() {
        ui.label(lang.tr("validation.no_issues"));
        return;
    }
    let row_height = ui.spacing().interact_size.y + 4.0;
    TableBuilder::new(ui)
        .id_salt("validation_issues")
        .striped(true)
        .resizable(true)
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .column(Column::initial(70.0).at_least(50.0))
        .column(Column::initial(130.0).at_least(60.0).clip(true))
        .column(Column::initial(220.0).at_least(80.0).clip(true))
        .column(Column::initial(110.0).at_least(60.0))
        .column(Column::remainder().at_least(200.0).clip(true))
        .header(row_height, |mut header| {
            for key in [
                "validation.severity",
                "validation.code",
                "validation.path",
                "validation.fix",
                "validation.message",
            ] {
                header.col(|ui| {
                    ui.strong(lang.tr(key));
                });
            }
        })
        .body(|body| {
            body.rows(row_height, shown.len(), |mut row| {
                let Some(issue) = shown.get(row.index()).and_then(|&i| state.issues.get(i)) else {
                    return;
                };
                row.col(|ui| {
                    let color = match issue.severity {
                        Severity::Error => ui.visuals().error_fg_color,
                        Severity::Warning => ui.visuals().warn_fg_color,
                        Severity::Info => ui.visuals().weak_text_color(),
                    };
                    ui.colored_label(
                        color,
                        lang.tr(match issue.severity {
                            Severity::Error => "validation.severity_error",
                            Severity::Warning => "validation.severity_warning",
                            Severity::Info => "validation.severity_info",
                        }),
                    );
                });
                row.col(|ui| {
                    ui.monospace(issue.code);
                });
                // The issue carries its parsed path: the element it is in is selected.
                row.col(|ui| match issue.path.element_of() {
                    Some((kind, index)) if index < document.model.count(kind) => {
                        if ui
                            .link(issue.path.to_string())
                            .on_hover_text(lang.tr("validation.select_hint"))
                            .clicked()
                        {
                            commands.push(Command::Reveal { kind, index });
                        }
                    }
                    _ => {
                        ui.monospace(issue.path.to_string());
                    }
                });
                row.col(|ui| {
                    if let Some(fix) = &issue.fix {
                        let label = match lang {
                            Language::Japanese => &fix.label_ja,
                            Language::English => &fix.label_en,
                        };
                        if ui
                            .button(lang.tr("validation.fix_one"))
                            .on_hover_text(label.as_str())
                            .accessible_name(format!(
                                "{} {}",
                                lang.tr("validation.fix_one"),
                                issue.path
                            ))
                            .clicked()
                        {
                            commands.push(Command::Edit(EditCommand {
                                request: EditRequest::Fix(fix.clone()),
                                gesture: None,
                                select_created: false,
                            }));
                        }
                    }
                });
                row.col(|ui| {
                    let message = match lang {
                        Language::Japanese => &issue.message_ja,
                        Language::English => &issue.message_en,
                    };
                    // The column clips, so egui_extras truncates the label, and a truncated
                    // label already shows its whole text on hover: another `on_hover_text`
                    // stacked a second, identical tooltip.
                    ui.label(message.as_str());
                });
            });
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refresh_after_edits_rechecks_what_they_touched_and_stays_automatic() {
        use pmx_core::edit::{SetField, field};
        use pmx_core::model::{BoneIdx, Vec3, Vertex, Weight};
        let mut model = pmx_core::generate::feature_model(
            PmxVersion::V2_1,
            pmx_core::model::TextEncoding::Utf16,
            80,
            12,
        );
        model.vertices[2].position.y = f32::NAN;
        let mut document = Document::from_model(model, None, None);
        let mut state = ValidationState::default();
        // As after loading a big model: the loading thread's check took longer than the budget.
        let options = document.check_options(None);
        state.adopt(
            crate::document::FirstCheck {
                checked: check_keeping(&document.model, None, &options),
                duration: AUTO_REFRESH_BUDGET * 3,
                unpacked: None,
            },
            &document,
            1,
        );
        assert!(state.auto_refresh, "the budget is for the re-checks");
        let nan = |state: &ValidationState| {
            state
                .issues
                .iter()
                .filter(|issue| issue.code == "E-VALUE-NAN")
                .map(|issue| issue.path.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(nan(&state), vec!["vertices[2].position".to_owned()]);

        // A move that repairs vertex 2 and breaks vertex 5, then a weight on a missing bone.
        let moved = SetField::each(
            field::<Vertex>().position(),
            vec![2, 5],
            vec![Vec3::new(0.0, 1.0, 0.0), Vec3::new(f32::INFINITY, 0.0, 0.0)],
        )
        .into_edit(&document.model)
        .expect("a move");
        document.apply(moved);
        let bones = document.model.bones.len();
        let weight = SetField::new(
            field::<Vertex>().weight(),
            vec![7],
            Weight::Bdef1 {
                bone: Some(BoneIdx::new(bones + 1)),
            },
        )
        .into_edit(&document.model)
        .expect("a weight");
        document.apply(weight);
        state.refresh(&document, 1, false);
        let rechecked = state.last_recheck.expect("re-checked, not checked in full");
        assert!(!rechecked.full);
        assert!(rechecked.rules_run < pmx_core::validate::Registry::standard().rules().count());
        let full = pmx_core::validate::check(&document.model, None, &options);
        assert_eq!(state.issues, full);
        assert_eq!(nan(&state), vec!["vertices[5].position".to_owned()]);
        assert!(state.issues.iter().any(|issue| issue.code == "E-REF-RANGE"
            && issue.path.to_string().starts_with("vertices[7]")));
        assert!(state.auto_refresh);
        assert!(state.is_current(&document, 1));

        // Undo both: the re-check follows back to the first issues.
        document.undo();
        document.undo();
        state.refresh(&document, 1, false);
        assert!(state.last_recheck.is_some());
        assert_eq!(
            state.issues,
            pmx_core::validate::check(&document.model, None, &options)
        );
        assert_eq!(nan(&state), vec!["vertices[2].position".to_owned()]);

        // Another target: a full check.
        state.target = Some(Target::Pmd);
        state.refresh(&document, 1, false);
        assert!(state.last_recheck.is_none());
    }

    #[test]
    fn textures_the_view_cannot_decode_are_warnings_once() {
        let dir = tempfile::tempdir().expect("dir");
        // A PNG signature with nothing after it: the header check reports it; a BMP whose
        // header is fine but whose pixels are cut passes the header check.
        std::fs::write(dir.path().join("cut.png"), b"\x89PNG\r\n\x1a\n").expect("write");
        let mut bmp = Vec::new();
        image::RgbImage::from_pixel(64, 64, image::Rgb([1, 2, 3]))
            .write_to(&mut std::io::Cursor::new(&mut bmp), image::ImageFormat::Bmp)
            .expect("bmp");
        bmp.truncate(200);
        std::fs::write(dir.path().join("short.bmp"), &bmp).expect("write");
        let mut model = pmx_core::generate::sample_model();
        model.textures = vec!["cut.png".into(), "short.bmp".into(), "fine_name.png".into()];
        let path = dir.path().join("model.pmx");
        let document = Document::from_model(model, Some(path), None);
        let mut state = ValidationState::default();
        state.refresh(&document, 1, true);
        let texture_codes = |state: &ValidationState| -> Vec<(String, &'static str)> {
            let mut codes: Vec<(String, &'static str)> = state
                .issues
                .iter()
                .filter(|i| i.code.contains("TEXTURE"))
                .map(|i| (i.path.to_string(), i.code))
                .collect();
            codes.sort();
            codes
        };
        assert_eq!(
            texture_codes(&state),
            vec![
                ("textures[0]".to_owned(), "W-TEXTURE-UNREADABLE"),
                ("textures[2]".to_owned(), "W-TEXTURE-MISSING"),
            ]
        );
        // What the view found decoding them: the cut BMP is new, the other two are known.
        let problems: Vec<TextureProblem> = ["cut.png", "short.bmp"]
            .into_iter()
            .map(|name| TextureProblem::Undecodable {
                name: name.to_owned(),
                message: "cut short".to_owned(),
            })
            .chain([TextureProblem::NotFound {
                name: "fine_name.png".to_owned(),
            }])
            .collect();
        state.merge_view_problems(&document, &problems);
        assert_eq!(
            texture_codes(&state),
            vec![
                ("textures[0]".to_owned(), "W-TEXTURE-UNREADABLE"),
                ("textures[1]".to_owned(), "W-TEXTURE-UNREADABLE"),
                ("textures[2]".to_owned(), "W-TEXTURE-MISSING"),
            ]
        );
        // Warnings stay before info.
        let severities: Vec<Severity> = state.issues.iter().map(|i| i.severity).collect();
        assert!(severities.windows(2).all(|w| w[0] >= w[1]));
        state.merge_view_problems(&document, &[]);
        assert_eq!(texture_codes(&state).len(), 2);
    }
}
