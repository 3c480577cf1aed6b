//! Checking again after edits, re-running only what they touched.
//!
//! [`Registry::check_keeping`] checks a model and keeps, besides the issues, each rule's own
//! (capped) issues and what the rules that scan every vertex or face found in each one.
//! [`Registry::recheck`] takes the [`Touched`] reports of the edits since (undo and redo
//! included) and re-runs only the rules that read what they changed ([`Rule::reads`]); a rule
//! that scans the mesh ([`Rule::check_memo`]) looks again only at the vertices and faces the
//! edits changed. The result is the one a full check gives, issue for issue: a re-run rule
//! emits from its per-element findings exactly as a full check does, the cap is applied per
//! rule as there, and the rules' issues are put together and ordered the same way.
//!
//! Anything the reports cannot say precisely falls back to more work, never to a stale
//! result: a structural change (elements inserted, removed, reordered) or a header change
//! re-scans the rules that read it completely; other options or another load report check
//! everything again.

use super::{CheckOptions, Context, Issue, Registry, cap};
use crate::edit::{EditTarget, Touched};
use crate::formats::LoadReport;
use crate::model::{ElementKind, Model};
use std::ops::Range;

/// The parts of a model a rule reads (or an edit changed): element values per edit target,
/// vertex values split by attribute, and element counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reads(u64);

const VALUE_BIT: u32 = 0;
const COUNT_BIT: u32 = 16;
const VERTEX_BIT: u32 = 32;

impl Reads {
    pub const NOTHING: Reads = Reads(0);
    /// Everything, the reader's report and the files next to the model included: a rule
    /// that reads this re-runs after any change.
    pub const EVERYTHING: Reads = Reads(u64::MAX);
    /// Vertex positions.
    pub const VERTEX_POSITIONS: Reads = Reads(1 << VERTEX_BIT);
    /// Vertex weights (deform type, bones, weights, SDEF parameters).
    pub const VERTEX_WEIGHTS: Reads = Reads(1 << (VERTEX_BIT + 1));
    /// Vertex UVs and additional UVs.
    pub const VERTEX_UVS: Reads = Reads(1 << (VERTEX_BIT + 2));
    /// Every other vertex value (normal, edge scale).
    pub const VERTEX_OTHER: Reads = Reads(1 << (VERTEX_BIT + 3));
    /// Every vertex value.
    pub const VERTEX_VALUES: Reads = Reads(0b1111 << VERTEX_BIT);
    /// The values of the vertices and faces (not their counts).
    pub const MESH_VALUES: Reads = Reads(Self::VERTEX_VALUES.0 | Self::values(EditTarget::Face).0);
    /// Everything but the values of the vertices and faces: what most rules read.
    pub const OUTSIDE_MESH: Reads = Self::EVERYTHING.without(Self::MESH_VALUES);

    /// The values of the elements of `target` (every vertex value for vertices).
    #[must_use]
    pub const fn values(target: EditTarget) -> Reads {
        match target {
            EditTarget::Vertex => Self::VERTEX_VALUES,
            other => Reads(1 << (VALUE_BIT + other as u32)),
        }
    }

    /// How many elements of `kind` there are.
    #[must_use]
    pub const fn count(kind: ElementKind) -> Reads {
        Reads(1 << (COUNT_BIT + kind as u32))
    }

    #[must_use]
    pub const fn with(self, other: Reads) -> Reads {
        Reads(self.0 | other.0)
    }

    #[must_use]
    pub const fn without(self, other: Reads) -> Reads {
        Reads(self.0 & !other.0)
    }

    #[must_use]
    pub const fn intersects(self, other: Reads) -> bool {
        self.0 & other.0 != 0
    }

    /// What one change (an edit's application, undo or redo) may have changed.
    #[must_use]
    pub fn changed_by(touched: &Touched) -> Reads {
        // A change that does not say what it touched (a repair) lists every kind.
        if ElementKind::ALL
            .iter()
            .all(|kind| touched.structure.contains(kind))
        {
            return Self::EVERYTHING;
        }
        let mut changed = Self::NOTHING;
        for range in &touched.values {
            changed = changed.with(match range.target {
                // The version (the default target), index sizes, additional UV count.
                EditTarget::Header => Self::EVERYTHING,
                EditTarget::Vertex if touched.vertex_positions_only => Self::VERTEX_POSITIONS,
                EditTarget::Vertex if touched.vertex_weights_only => Self::VERTEX_WEIGHTS,
                EditTarget::Vertex if touched.vertex_uvs_only => Self::VERTEX_UVS,
                target => Self::values(target),
            });
        }
        for &kind in &touched.structure {
            changed = changed
                .with(Self::values(EditTarget::from(kind)))
                .with(Self::count(kind));
        }
        changed
    }
}

/// The vertices and faces whose values changed, for rules that keep per-element findings.
#[derive(Debug, Clone, Default)]
pub struct Dirty {
    vertices: Vec<Range<usize>>,
    faces: Vec<Range<usize>>,
}

impl Dirty {
    /// What `changes` changed in the mesh; `None` when elements were inserted, removed or
    /// reordered or the header changed (indices and counts moved: everything is looked at).
    fn of<'a>(changes: impl IntoIterator<Item = &'a Touched>) -> Option<Dirty> {
        let mut dirty = Dirty::default();
        for touched in changes {
            let changed = Reads::changed_by(touched);
            if touched.structure_changed() || changed == Reads::EVERYTHING {
                return None;
            }
            // Exactly the vertices the edit changed where it listed them (a field edit, a
            // weight brush): its ranges may cover far more.
            let listed = if !touched.changed_vertices.is_empty() {
                Some(&touched.changed_vertices)
            } else if touched.vertex_weights_only && !touched.weighted_vertices.is_empty() {
                Some(&touched.weighted_vertices)
            } else {
                None
            };
            match listed {
                Some(list) => dirty
                    .vertices
                    .extend(list.iter().map(|&v| v as usize..v as usize + 1)),
                None => dirty.vertices.extend(touched.ranges(EditTarget::Vertex)),
            }
            dirty.faces.extend(touched.ranges(EditTarget::Face));
        }
        Some(dirty)
    }
}

/// What a rule found in each vertex and face, kept between checks: one byte of findings per
/// element (the rule says what its bits mean), and what the bytes depend on besides the
/// element itself (counts of other lists, which an edit can change without touching it).
#[derive(Debug, Clone, Default)]
pub struct RuleMemo {
    vertices: Classes,
    faces: Classes,
}

#[derive(Debug, Clone, Default)]
struct Classes {
    /// What the classes were computed against; `None`: nothing kept.
    key: Option<Vec<usize>>,
    classes: Vec<u8>,
}

impl Classes {
    fn update(
        &mut self,
        len: usize,
        key: &[usize],
        dirty: Option<&[Range<usize>]>,
        classify: impl Fn(usize) -> u8,
    ) -> &[u8] {
        let kept = self.key.as_deref() == Some(key) && self.classes.len() == len;
        match dirty {
            Some(ranges) if kept => {
                for range in ranges {
                    let end = range.end.min(len);
                    for i in range.start.min(end)..end {
                        if let Some(slot) = self.classes.get_mut(i) {
                            *slot = classify(i);
                        }
                    }
                }
            }
            _ => {
                self.classes = (0..len).map(classify).collect();
                self.key = Some(key.to_vec());
            }
        }
        &self.classes
    }
}

impl RuleMemo {
    /// The findings byte of each of `len` vertices: kept ones where nothing changed (and `key`
    /// is what it was), `classify` for the others (all of them when `dirty` is `None`).
    pub(crate) fn vertex_classes(
        &mut self,
        len: usize,
        key: &[usize],
        dirty: Option<&Dirty>,
        classify: impl Fn(usize) -> u8,
    ) -> &[u8] {
        self.vertices.update(
            len,
            key,
            dirty.map(|dirty| dirty.vertices.as_slice()),
            classify,
        )
    }

    /// The findings byte of each of `len` faces (see [`RuleMemo::vertex_classes`]).
    pub(crate) fn face_classes(
        &mut self,
        len: usize,
        key: &[usize],
        dirty: Option<&Dirty>,
        classify: impl Fn(usize) -> u8,
    ) -> &[u8] {
        self.faces.update(
            len,
            key,
            dirty.map(|dirty| dirty.faces.as_slice()),
            classify,
        )
    }
}

/// One rule's part of a kept check.
#[derive(Debug, Clone, Default)]
struct RuleRun {
    /// What the rule reported, capped as in a full check.
    issues: Vec<Issue>,
    memo: RuleMemo,
}

/// A check kept for checking again after edits ([`Registry::check_keeping`]).
#[derive(Debug, Clone)]
pub struct Checked {
    issues: Vec<Issue>,
    rules: Vec<RuleRun>,
    options: CheckOptions,
    report: Option<LoadReport>,
}

impl Checked {
    /// The issues, as [`Registry::check`] returns them.
    #[must_use]
    pub fn issues(&self) -> &[Issue] {
        &self.issues
    }

    #[must_use]
    pub fn into_issues(self) -> Vec<Issue> {
        self.issues
    }

    /// Whether this was checked with `options` and `report` (else a re-check is a full one).
    #[must_use]
    pub fn checked_with(&self, report: Option<&LoadReport>, options: &CheckOptions) -> bool {
        self.options == *options && self.report.as_ref() == report
    }
}

/// What a re-check did, for tests and timings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Recheck {
    /// Rules run again (the others' issues were kept).
    pub rules_run: usize,
    /// Whether everything was checked again (other options or load report).
    pub full: bool,
}

impl Registry {
    /// Checks like [`Registry::check`] and keeps what [`Registry::recheck`] needs.
    #[must_use]
    pub fn check_keeping(
        &self,
        model: &Model,
        report: Option<&LoadReport>,
        options: &CheckOptions,
    ) -> Checked {
        let mut checked = Checked {
            issues: Vec::new(),
            rules: Vec::new(),
            options: options.clone(),
            report: report.cloned(),
        };
        self.run(&mut checked, model, None, None);
        checked
    }

    /// Brings `checked` up to date with `model` after the edits whose reports are `changes`
    /// (every application, undo and redo since it was made, oldest first). Gives what a full
    /// check of `model` gives (see the module's documentation).
    pub fn recheck<'a>(
        &self,
        checked: &mut Checked,
        model: &Model,
        report: Option<&LoadReport>,
        options: &CheckOptions,
        changes: impl IntoIterator<Item = &'a Touched>,
    ) -> Recheck {
        if !checked.checked_with(report, options) || checked.rules.len() != self.rules.len() {
            *checked = self.check_keeping(model, report, options);
            return Recheck {
                rules_run: self.rules.len(),
                full: true,
            };
        }
        let changes: Vec<&Touched> = changes.into_iter().collect();
        let changed = changes.iter().fold(Reads::NOTHING, |all, touched| {
            all.with(Reads::changed_by(touched))
        });
        let dirty = Dirty::of(changes.iter().copied());
        let rules_run = self.run(checked, model, Some(changed), dirty.as_ref());
        Recheck {
            rules_run,
            full: false,
        }
    }

    /// Runs the rules that read something in `changed` (all of them when `None`) and puts
    /// the issues together; returns how many ran.
    fn run(
        &self,
        checked: &mut Checked,
        model: &Model,
        changed: Option<Reads>,
        dirty: Option<&Dirty>,
    ) -> usize {
        let options = checked.options.clone();
        let report = checked.report.take();
        let cx = Context::new(model, report.as_ref(), &options);
        checked
            .rules
            .resize_with(self.rules.len(), RuleRun::default);
        let mut rules_run = 0;
        for (rule, run) in self.rules.iter().zip(&mut checked.rules) {
            if changed.is_some_and(|changed| !rule.reads().intersects(changed)) {
                continue;
            }
            rules_run += 1;
            run.issues.clear();
            rule.check_memo(&cx, &mut run.memo, dirty, &mut run.issues);
            cap::cap_per_code(&mut run.issues, 0, options.max_issues_per_code);
        }
        checked.report = report;
        checked.issues = checked
            .rules
            .iter()
            .flat_map(|run| run.issues.iter().cloned())
            .collect();
        checked
            .issues
            .sort_by_key(|issue| std::cmp::Reverse(issue.severity));
        rules_run
    }
}

/// Checks `model` with every rule, keeping what [`recheck`] needs.
#[must_use]
pub fn check_keeping(
    model: &Model,
    report: Option<&LoadReport>,
    options: &CheckOptions,
) -> Checked {
    Registry::standard().check_keeping(model, report, options)
}

/// [`Registry::recheck`] with every rule.
pub fn recheck<'a>(
    checked: &mut Checked,
    model: &Model,
    report: Option<&LoadReport>,
    options: &CheckOptions,
    changes: impl IntoIterator<Item = &'a Touched>,
) -> Recheck {
    Registry::standard().recheck(checked, model, report, options, changes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{History, SetField, field};
    use crate::model::{BoneIdx, Vec3, Vertex, Weight};

    fn broken_model() -> Model {
        let mut model = crate::generate::sample_model();
        model.vertices[0].position.x = f32::NAN;
        model
    }

    #[test]
    fn what_an_edit_changed() {
        let model = broken_model();
        let mut history = History::new();
        let mut edited = model.clone();
        let moved = SetField::new(field::<Vertex>().position(), vec![1], Vec3::ZERO)
            .into_edit(&edited)
            .expect("a move");
        let touched = history.apply(&mut edited, moved);
        let changed = Reads::changed_by(&touched);
        assert_eq!(changed, Reads::VERTEX_POSITIONS);
        assert!(!Reads::OUTSIDE_MESH.intersects(changed));
        assert!(Reads::EVERYTHING.intersects(changed));
        let deleted = crate::edit::Edit::delete(&edited, ElementKind::Bone, &[1]).expect("delete");
        let touched = history.apply(&mut edited, deleted);
        let changed = Reads::changed_by(&touched);
        assert!(changed.intersects(Reads::count(ElementKind::Bone)));
        assert!(
            Dirty::of([&touched]).is_none(),
            "indices moved: look at everything"
        );
    }

    #[test]
    fn a_recheck_after_edits_equals_a_full_check_and_runs_fewer_rules() {
        let registry = Registry::standard();
        let options = CheckOptions::default();
        let mut model = broken_model();
        let mut kept = registry.check_keeping(&model, None, &options);
        assert_eq!(
            kept.issues(),
            registry.check(&model, None, &options).as_slice()
        );
        let mut history = History::new();
        let moved = SetField::each(
            field::<Vertex>().position(),
            vec![0, 2],
            vec![Vec3::ZERO, Vec3::new(f32::NAN, 0.0, 0.0)],
        )
        .into_edit(&model)
        .expect("a move");
        let first = history.apply(&mut model, moved);
        let bones = model.bones.len();
        let weight = SetField::new(
            field::<Vertex>().weight(),
            vec![1],
            Weight::Bdef1 {
                bone: Some(BoneIdx::new(bones + 2)),
            },
        )
        .into_edit(&model)
        .expect("a weight");
        let second = history.apply(&mut model, weight);
        let done = registry.recheck(&mut kept, &model, None, &options, [&first, &second]);
        assert!(!done.full);
        assert!(done.rules_run < registry.rules().count());
        let full = registry.check(&model, None, &options);
        assert_eq!(kept.issues(), full.as_slice());
        let codes: Vec<String> = full
            .iter()
            .filter(|issue| issue.is_error())
            .map(|issue| format!("{} {}", issue.code, issue.path))
            .collect();
        assert!(
            codes.contains(&"E-VALUE-NAN vertices[2].position".to_owned()),
            "{codes:?}"
        );
        assert!(
            !codes
                .iter()
                .any(|c| c.starts_with("E-VALUE-NAN vertices[0]")),
            "{codes:?}"
        );
        assert!(
            codes
                .iter()
                .any(|c| c.starts_with("E-REF-RANGE vertices[1]")),
            "{codes:?}"
        );

        // Undo both, then other options: a full check.
        let undone: Vec<Touched> = std::iter::from_fn(|| history.undo(&mut model)).collect();
        registry.recheck(&mut kept, &model, None, &options, &undone);
        assert_eq!(
            kept.issues(),
            registry.check(&model, None, &options).as_slice()
        );
        let capped = CheckOptions {
            max_issues_per_code: 1,
            ..CheckOptions::default()
        };
        let done = registry.recheck(&mut kept, &model, None, &capped, []);
        assert!(done.full);
        assert_eq!(
            kept.issues(),
            registry.check(&model, None, &capped).as_slice()
        );
    }
}
