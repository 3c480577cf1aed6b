//! Repair: apply every automatic fix, round after round, as one undoable step.
//!
//! Fixes are computed on the model as it is; a fix that inserts, removes or moves elements
//! changes the indices the other fixes name. So each round applies every fix that only sets
//! fields (indices stay), then one structural change (all deletions of one kind merged into
//! one, or one other structural fix), and checks again. Rounds stop when no fix is left, or
//! nothing could be applied, or after `max_rounds`.

use super::{CheckOptions, Fix, FixStep, Issue, Registry, Severity};
use crate::edit::{Edit, History};
use crate::formats::LoadReport;
use crate::model::{ElementKind, Model};
use crate::path::ModelPath;
use std::collections::HashMap;

/// How to repair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepairOptions {
    pub check: CheckOptions,
    /// Most check-and-fix rounds (each structural change needs one).
    pub max_rounds: usize,
}

impl Default for RepairOptions {
    fn default() -> Self {
        Self {
            check: CheckOptions::default(),
            max_rounds: 24,
        }
    }
}

/// A fix that was applied (or could not be).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedFix {
    /// The code and path of the issue the fix came from (the first, when several issues
    /// share one fix).
    pub code: &'static str,
    pub path: ModelPath,
    pub severity: Severity,
    pub label_en: String,
    pub label_ja: String,
    /// Why it could not be applied; `None` when it was.
    pub error: Option<String>,
}

/// What [`repair`] did.
#[derive(Debug, Clone, Default)]
pub struct RepairReport {
    /// Fixes in the order they were applied, then those that failed.
    pub applied: Vec<AppliedFix>,
    pub failed: Vec<AppliedFix>,
    /// Fixes not applied because they would delete what a recovery read from a damaged file
    /// (unused vertices whose faces were lost, say): recovered content stays. Their `error`
    /// says why.
    pub held: Vec<AppliedFix>,
    pub rounds: usize,
    /// Issues of the repaired model (as it will be saved: issues about the damaged file
    /// itself go away with saving).
    pub remaining: Vec<Issue>,
    /// The label of the undo step, if anything changed.
    pub undo_label: Option<String>,
}

impl RepairReport {
    #[must_use]
    pub fn changed(&self) -> bool {
        !self.applied.is_empty()
    }
}

/// Applies every automatic fix to `model` and records the whole repair as one step of
/// `history` (one undo reverts it). `report` is the reader's report for a model as read.
pub fn repair(
    model: &mut Model,
    report: Option<&LoadReport>,
    history: &mut History,
    options: &RepairOptions,
) -> RepairReport {
    let registry = Registry::standard();
    let mut result = RepairReport::default();
    let mut edits: Vec<Edit> = Vec::new();
    let mut failed = FixSet::default();
    // A model read from a damaged file (the reader lost part of it) keeps every element the
    // recovery read: the fix of an issue the damage caused is never to delete what survived it.
    let keep_recovered = report.is_some_and(LoadReport::lost_data);
    let mut held = FixSet::default();
    for round in 0..options.max_rounds {
        let issues = registry.check(model, report, &options.check);
        let mut seen = FixSet::default();
        let mut candidates: Vec<(&Issue, Fix)> = Vec::new();
        for issue in &issues {
            let Some(fix) = &issue.fix else {
                continue;
            };
            if failed.contains(fix) || held.contains(fix) || !seen.insert(fix) {
                continue;
            }
            if keep_recovered && deletes_recovered_content(model, fix) {
                held.insert(fix);
                result.held.push(AppliedFix {
                    code: issue.code,
                    path: issue.path.clone(),
                    severity: issue.severity,
                    label_en: fix.label_en.clone(),
                    label_ja: fix.label_ja.clone(),
                    error: Some(
                        "not applied: the model was recovered from a damaged file, and its recovered elements are kept"
                            .to_owned(),
                    ),
                });
                continue;
            }
            candidates.push((issue, fix.clone()));
        }
        if candidates.is_empty() {
            break;
        }
        result.rounds = round + 1;
        let (sets, structural): (Vec<_>, Vec<_>) = candidates
            .into_iter()
            .partition(|(_, fix)| fix.only_sets_fields());
        let mut chosen = sets;
        if let Some(merged) = structural_step(structural) {
            chosen.push(merged);
        }
        let mut progress = false;
        for (issue, fix) in chosen {
            let record = |error: Option<String>| AppliedFix {
                code: issue.code,
                path: issue.path.clone(),
                severity: issue.severity,
                label_en: fix.label_en.clone(),
                label_ja: fix.label_ja.clone(),
                error,
            };
            match fix.to_edit(model) {
                Ok(mut edit) => {
                    edit.apply(model);
                    edits.push(edit);
                    result.applied.push(record(None));
                    progress = true;
                }
                Err(error) => {
                    // Not offered again: the next round may still make progress without it.
                    failed.insert(&fix);
                    result.failed.push(record(Some(error.to_string())));
                    progress = true;
                }
            }
        }
        if !progress {
            break;
        }
    }
    if !edits.is_empty() {
        // The edits were applied as they were built (each on the model the previous left);
        // the history applies them again as one step.
        for edit in edits.iter_mut().rev() {
            edit.revert(model);
        }
        let label = crate::edit::EditLabel::new("edit.repair").arg(
            "count",
            crate::edit::LabelArg::Count(result.applied.len(), "fix"),
        );
        result.undo_label = Some(label.to_string());
        history.apply(model, Edit::batch(label, edits));
    }
    result.remaining = registry.check(model, None, &options.check);
    result
}

/// Whether `fix` deletes an element a recovery read: any deletion but that of faces whose
/// corners point past the vertex list (those name vertices the damage lost, and cannot be
/// drawn or written as they are).
fn deletes_recovered_content(model: &Model, fix: &Fix) -> bool {
    fix.steps.iter().any(|step| match step {
        FixStep::Delete {
            kind: ElementKind::Face,
            indices,
        } => indices.iter().any(|&face| {
            model.faces.get(face).is_some_and(|corners| {
                corners
                    .iter()
                    .all(|vertex| vertex.get() < model.vertices.len())
            })
        }),
        FixStep::Delete { .. } => true,
        _ => false,
    })
}

/// Fixes already taken (several issues often share one fix), found by label first.
#[derive(Default)]
struct FixSet {
    by_label: HashMap<String, Vec<Fix>>,
}

impl FixSet {
    fn contains(&self, fix: &Fix) -> bool {
        self.by_label
            .get(&fix.label_en)
            .is_some_and(|fixes| fixes.contains(fix))
    }

    /// Whether `fix` was new.
    fn insert(&mut self, fix: &Fix) -> bool {
        let fixes = self.by_label.entry(fix.label_en.clone()).or_default();
        if fixes.contains(fix) {
            return false;
        }
        fixes.push(fix.clone());
        true
    }
}

/// The structural change of a round: every fix that only deletes elements of the first such
/// fix's kind, merged into one deletion; or else the first structural fix alone.
fn structural_step(structural: Vec<(&Issue, Fix)>) -> Option<(&Issue, Fix)> {
    let deleted_kind = |fix: &Fix| -> Option<ElementKind> {
        let mut kind = None;
        for step in &fix.steps {
            match step {
                FixStep::Delete { kind: k, .. } if kind.is_none_or(|kind| kind == *k) => {
                    kind = Some(*k);
                }
                _ => return None,
            }
        }
        kind
    };
    let mut iter = structural.into_iter();
    let (first_issue, first_fix) = iter.next()?;
    let Some(kind) = deleted_kind(&first_fix) else {
        return Some((first_issue, first_fix));
    };
    let mut indices: Vec<usize> = Vec::new();
    let mut labels = vec![first_fix.label_en.clone()];
    let mut labels_ja = vec![first_fix.label_ja.clone()];
    let mut collect = |fix: &Fix| {
        for step in &fix.steps {
            if let FixStep::Delete { indices: i, .. } = step {
                indices.extend_from_slice(i);
            }
        }
    };
    collect(&first_fix);
    let mut merged = 1;
    for (_, fix) in iter {
        if deleted_kind(&fix) == Some(kind) {
            collect(&fix);
            merged += 1;
            if labels.len() < 3 && !labels.contains(&fix.label_en) {
                labels.push(fix.label_en.clone());
                labels_ja.push(fix.label_ja.clone());
            }
        }
    }
    indices.sort_unstable();
    indices.dedup();
    let count = indices.len();
    let fix = if merged == 1 {
        first_fix
    } else {
        Fix::new(
            format!(
                "Delete {count} {}: {}",
                kind.list_name().replace('_', " "),
                labels.join("; ")
            ),
            format!(
                "{count}個の{}を削除する: {}",
                super::util::kind_ja(kind),
                labels_ja.join("、")
            ),
            vec![super::util::delete_op(kind, indices)],
        )
    };
    Some((first_issue, fix))
}
