//! Edits: every change to a model, as a command that can be undone and redone exactly.
//!
//! An [`Edit`] is built by a fallible constructor that checks it against the model and captures
//! what it needs ([`Edit::set_json`], [`Edit::delete`], [`Edit::insert`], [`Edit::merge_model`],
//! [`ops_to_edit`], ...); applying, undoing and redoing it cannot fail. Edits store deltas, never
//! model snapshots: a field edit keeps the old and new values of the field, a deletion keeps the
//! removed elements and the references it cleared. They implement [`undo::Edit`] and live in a
//! [`History`]. Every application reports what it [`Touched`], so views refresh only that.

mod delete;
mod elements;
mod error_message;
mod face_ops;
mod field;
mod handle;
mod history;
mod label;
mod merge;
mod morph_tools;
mod ops;
mod reflect;
mod reindex;
mod structure;
mod transform;
mod typed;
mod uv_transform;
mod weights;

pub use crate::model::EditTarget;
pub use crate::path::FieldPath;
pub use elements::Elements;
pub use face_ops::{reversed as reversed_face, swapped_diagonal};
pub use field::{Unresolved, get_field, get_path, resolve_path};
pub use history::{GestureId, History};
pub use label::{
    EditLabel, LabelArg, REPORT_NOUNS, bone_count, field_words, report_count, report_noun,
    switched_off_setting,
};
pub use merge::MergeOptions;
pub use morph_tools::{
    DEFAULT_THRESHOLD, GroupMember, GroupMorph, InlineBonePose, MirrorMode, MirrorMorph,
    MirrorPlan, MirrorSide, MirrorTarget, MorphFromModel, MorphFromPose, MorphRef, NewMorph,
    PanelChoice, SplitMorph, apply_inline_pose, left_share, plan_mirror, plan_split,
};
pub use ops::{
    EDIT_SCRIPT_VERSION, EditOp, EditScript, ScriptError, TransformTarget, TransformValue,
    ops_to_edit, ops_to_edit_in,
};
pub use reflect::{FieldType, HeapSize, Reflect, non_finite_places, replace_non_finite};
pub use reindex::{Reindex, Run};
pub use structure::SortKey;
pub use transform::{
    MIN_MORPH_VALUE, Transform, TransformGroup, TransformKind, centre as transform_centre,
    drawn_centre, morph_transform_set, position as transform_position, with_vertex_offsets,
};
pub use typed::{Element, Field, SetField, Vector, field};
pub use uv_transform::{
    UvChannel, UvChannelError, UvTransform, UvTransformGroup, drawn_uv_centre, uv_centre,
};
pub use weights::{BoneRef, PaintIndex, PaintMode, PaintWeights};

use crate::formats::error::FileError;
use crate::i18n::Language;
use crate::model::refs::RemapError;
use crate::model::{ElementKind, Model};
use field::FieldChange;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::sync::OnceLock;
use structure::{InsertChange, RemoveChange, ReorderChange};

/// Why an edit could not be built. The model is unchanged when a constructor returns an error.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("{kind} index {index} is out of range (the model has {len})")]
    IndexOutOfRange {
        kind: &'static str,
        index: usize,
        len: usize,
    },
    #[error("no {kind} given")]
    NothingSelected { kind: &'static str },
    #[error("{target}: {message}")]
    BadPath { target: EditTarget, message: String },
    #[error("{target} {index} has no field `{field}`")]
    NoSuchField {
        target: EditTarget,
        index: usize,
        field: String,
    },
    #[error("`{field}` of {target} {index} has another type than in the first element")]
    FieldTypeMismatch {
        target: EditTarget,
        index: usize,
        field: String,
    },
    #[error("invalid value for `{field}` of {target}: {message}")]
    InvalidValue {
        target: EditTarget,
        field: String,
        message: String,
    },
    #[error("{values} values given for {indices} elements (give one, or one per element)")]
    ValueCount { values: usize, indices: usize },
    #[error("invalid {kind} item {item}: {message}")]
    InvalidItem {
        kind: &'static str,
        item: usize,
        message: String,
    },
    #[error("`{op}` is not available for {target}")]
    Unsupported {
        op: &'static str,
        target: EditTarget,
    },
    #[error("the special display frame {index} (Root/表情) cannot be deleted")]
    SpecialFrame { index: usize },
    #[error("{kind} cannot be sorted by {key}")]
    SortKey {
        kind: &'static str,
        key: &'static str,
    },
    #[error("the model would exceed {max} {kind}")]
    TooMany { kind: &'static str, max: usize },
    #[error("{0}")]
    Remap(#[from] RemapError),
    #[error("{0}")]
    File(Box<FileError>),
    #[error("{0}")]
    Pose(#[from] crate::pose::PoseError),
    #[error(
        "faces {first} and {second} {reason}: swapping a diagonal needs two triangles of one material that share an edge"
    )]
    FacePair {
        first: usize,
        second: usize,
        reason: &'static str,
    },
    #[error("no {kind} named \"{name}\"")]
    NoSuchName { kind: &'static str, name: String },
    #[error(
        "{path}: that model has {other} vertices and this one {this}: a morph from another \
         model needs the same vertices"
    )]
    VertexCountMismatch {
        path: std::path::PathBuf,
        this: usize,
        other: usize,
    },
    #[error("{tool} works on {supported} morphs; \"{morph}\" is a {kind} morph")]
    MorphKindUnsupported {
        tool: &'static str,
        morph: String,
        kind: &'static str,
        supported: &'static str,
    },
    #[error("no pose to make a morph of: give a VPD, or pose the model first")]
    NoPose,
    #[error("no vertex moves by more than {threshold}: the morph would have no offsets")]
    NoOffsets { threshold: f32 },
    /// The edit would change nothing (a weight brush over weights already at their limit):
    /// there is no step to add, and nothing went wrong.
    #[error("nothing to change")]
    NoChange,
    #[error("step {step} ({op}): {source}")]
    Step {
        step: usize,
        op: &'static str,
        source: Box<EditError>,
    },
}

impl From<FileError> for EditError {
    fn from(error: FileError) -> Self {
        EditError::File(Box::new(error))
    }
}

/// An index range of elements whose values an edit changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TouchedRange {
    pub target: EditTarget,
    pub start: usize,
    pub end: usize,
}

/// What an application (or undo, or redo) of an edit changed, for views and the 3D preview to
/// refresh only that, and where elements went, for selections to follow them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Touched {
    /// Elements whose values changed, as index ranges of the model after the change (sorted and
    /// coalesced; at most [`Touched::MAX_RANGES`] per target, beyond that one covering range).
    pub values: Vec<TouchedRange>,
    /// Kinds whose element lists changed shape (elements inserted, removed or reordered): their
    /// indices before and after differ, so views of them refresh completely.
    pub structure: Vec<ElementKind>,
    /// For each kind in `structure`, where its elements went (old index → new index or removed)
    /// and which elements are new: the renumbering of this application, or of this undo (the
    /// inverse), or redo. One entry per kind, in `ElementKind` order.
    #[serde(skip)]
    pub remaps: Vec<(ElementKind, Reindex)>,
    /// The vertex values that changed are their positions only (a move or a gizmo drag): the
    /// 3D view updates positions and leaves the other attributes. `false` says nothing.
    #[serde(skip)]
    pub vertex_positions_only: bool,
    /// The vertex values that changed are their weights only (a weight brush's step): the 3D
    /// view's mesh at rest is unchanged, a posed mesh re-skins these vertices, the weight
    /// colours update. `false` says nothing.
    #[serde(skip)]
    pub vertex_weights_only: bool,
    /// With `vertex_weights_only`: exactly the vertices whose weights changed, sorted (the
    /// ranges in `values` cover them but may cover more).
    #[serde(skip)]
    pub weighted_vertices: Vec<u32>,
    /// The vertex values that changed are their UVs or additional UVs only (the UV pane's
    /// edits): faces, positions and the UV wireframe's seams are unchanged. `false` says
    /// nothing.
    #[serde(skip)]
    pub vertex_uvs_only: bool,
    /// Exactly the vertices whose values changed, sorted, where the edit named them (a field
    /// edit of vertices, a weight brush) and there are at most [`Touched::MAX_EXACT`]: the
    /// ranges in `values` cover them but may cover far more (more than
    /// [`Touched::MAX_RANGES`] runs collapse into one). Empty: the ranges are what is known.
    #[serde(skip)]
    pub changed_vertices: Vec<u32>,
}

impl Touched {
    pub const MAX_RANGES: usize = 64;
    /// The most vertices [`Touched::changed_vertices`] lists (past that the ranges stand):
    /// 64 KB a change, so the document's log of the last 256 changes (a drag adds one a
    /// frame) holds at most 16 MB of lists.
    pub const MAX_EXACT: usize = 1 << 14;

    #[must_use]
    pub fn structure_changed(&self) -> bool {
        !self.structure.is_empty()
    }

    /// Whether anything of `target` changed (values or structure).
    #[must_use]
    pub fn touches(&self, target: EditTarget) -> bool {
        self.values.iter().any(|r| r.target == target)
            || target
                .element_kind()
                .is_some_and(|kind| self.structure.contains(&kind))
    }

    /// The vertices whose values changed, as sorted index ranges: from the exact list where
    /// there is one ([`Touched::changed_vertices`]; runs less than `join_gap` apart joined, so
    /// that a spread selection gives a few ranges, not a range per vertex nor one covering
    /// the model), else the ranges.
    #[must_use]
    pub fn vertex_runs(&self, join_gap: usize) -> Vec<Range<usize>> {
        if self.changed_vertices.is_empty() {
            return self.ranges(EditTarget::Vertex).collect();
        }
        let mut runs: Vec<Range<usize>> = Vec::new();
        for &vertex in &self.changed_vertices {
            let vertex = vertex as usize;
            match runs.last_mut() {
                Some(run) if vertex <= run.end.saturating_add(join_gap) => {
                    run.end = run.end.max(vertex + 1);
                }
                _ => runs.push(vertex..vertex + 1),
            }
        }
        runs
    }

    /// Whether values of `target` changed (structure aside).
    fn touches_values(&self, target: EditTarget) -> bool {
        self.values.iter().any(|r| r.target == target)
    }

    /// Whether [`Touched::changed_vertices`] holds every vertex whose values changed (or no
    /// vertex value changed at all).
    fn vertex_list_exact(&self) -> bool {
        !self.changed_vertices.is_empty() || !self.touches_values(EditTarget::Vertex)
    }

    /// Where the elements of `kind` went (`None`: their indices did not change).
    #[must_use]
    pub fn remap(&self, kind: ElementKind) -> Option<&Reindex> {
        self.remaps.iter().find(|(k, _)| *k == kind).map(|(_, r)| r)
    }

    /// The elements of `kind` the change created (inserted, duplicated, merged, or brought back
    /// by an undo), as index ranges of the model after it.
    #[must_use]
    pub fn created(&self, kind: ElementKind) -> Vec<Range<usize>> {
        self.remap(kind).map(Reindex::created).unwrap_or_default()
    }

    /// The changed index ranges of `target`.
    pub fn ranges(&self, target: EditTarget) -> impl Iterator<Item = Range<usize>> + '_ {
        self.values
            .iter()
            .filter(move |r| r.target == target)
            .map(|r| r.start..r.end)
    }

    pub(crate) fn add_range(&mut self, target: EditTarget, range: Range<usize>) {
        if range.start < range.end {
            if target == EditTarget::Vertex {
                // A range is not a list of vertices: from now on the ranges say it.
                self.changed_vertices.clear();
            }
            self.values.push(TouchedRange {
                target,
                start: range.start,
                end: range.end,
            });
            self.normalize();
        }
    }

    pub(crate) fn add_indices(&mut self, target: EditTarget, indices: &[u32]) {
        let mut sorted: Vec<u32> = indices.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        if target == EditTarget::Vertex && !sorted.is_empty() {
            // The list stays exact only if every vertex changed so far is in it.
            let count = self.changed_vertices.len() + sorted.len();
            if self.vertex_list_exact() && count <= Self::MAX_EXACT {
                self.changed_vertices.extend_from_slice(&sorted);
                self.changed_vertices.sort_unstable();
                self.changed_vertices.dedup();
            } else {
                self.changed_vertices.clear();
            }
        }
        let mut runs = sorted.into_iter().peekable();
        while let Some(start) = runs.next() {
            let mut end = start as usize + 1;
            while runs.peek().is_some_and(|&next| next as usize <= end) {
                end = end.max(runs.next().map_or(end, |n| n as usize + 1));
            }
            self.values.push(TouchedRange {
                target,
                start: start as usize,
                end,
            });
        }
        self.normalize();
    }

    pub(crate) fn add_structure(&mut self, kind: ElementKind) {
        if !self.structure.contains(&kind) {
            self.structure.push(kind);
            self.structure.sort();
        }
    }

    /// Notes that the elements of `kind` were renumbered by `reindex` (after any renumbering
    /// already noted for it).
    pub(crate) fn add_remap(&mut self, kind: ElementKind, reindex: Reindex) {
        self.add_structure(kind);
        match self.remaps.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, earlier)) => {
                let first = std::mem::replace(earlier, Reindex::Chain(Vec::new().into()));
                *earlier = first.then(reindex);
            }
            None => {
                self.remaps.push((kind, reindex));
                self.remaps.sort_by_key(|(k, _)| *k);
            }
        }
    }

    /// Adds what a later change touched: `other` happened after `self` (a batch's next step,
    /// the next of several undos), so renumberings compose in that order.
    pub fn extend(&mut self, other: Touched) {
        let positions_only =
            |t: &Touched| t.vertex_positions_only || !t.touches(EditTarget::Vertex);
        let both_positions_only = positions_only(self) && positions_only(&other);
        let any_vertices = self.touches(EditTarget::Vertex) || other.touches(EditTarget::Vertex);
        self.vertex_positions_only = both_positions_only && any_vertices;
        let weights_only = |t: &Touched| t.vertex_weights_only || !t.touches(EditTarget::Vertex);
        let both_weights_only = weights_only(self) && weights_only(&other);
        self.vertex_weights_only = both_weights_only && any_vertices;
        let uvs_only = |t: &Touched| t.vertex_uvs_only || !t.touches(EditTarget::Vertex);
        self.vertex_uvs_only = uvs_only(self) && uvs_only(&other) && any_vertices;
        // The vertex lists add up where each side's is exact (or it changed no vertex values).
        // (Renumbered vertices make an earlier list's indices stale.)
        let exact =
            |t: &Touched| t.vertex_list_exact() && !t.structure.contains(&ElementKind::Vertex);
        if exact(self)
            && exact(&other)
            && self.changed_vertices.len() + other.changed_vertices.len() <= Self::MAX_EXACT
        {
            let mut union = std::mem::take(&mut self.changed_vertices);
            union.extend(&other.changed_vertices);
            union.sort_unstable();
            union.dedup();
            self.changed_vertices = union;
        } else {
            self.changed_vertices.clear();
        }
        if self.vertex_weights_only {
            let mut union = std::mem::take(&mut self.weighted_vertices);
            union.extend(other.weighted_vertices);
            union.sort_unstable();
            union.dedup();
            self.weighted_vertices = union;
        } else {
            self.weighted_vertices.clear();
        }
        self.values.extend(other.values);
        for kind in other.structure {
            self.add_structure(kind);
        }
        for (kind, reindex) in other.remaps {
            self.add_remap(kind, reindex);
        }
        self.normalize();
    }

    fn normalize(&mut self) {
        self.values.sort_by_key(|r| (r.target, r.start, r.end));
        let mut merged: Vec<TouchedRange> = Vec::with_capacity(self.values.len());
        for range in self.values.drain(..) {
            match merged.last_mut() {
                Some(last) if last.target == range.target && range.start <= last.end => {
                    last.end = last.end.max(range.end);
                }
                _ => merged.push(range),
            }
        }
        // Too many ranges of one target: one covering range is cheaper to refresh than a list.
        let mut capped: Vec<TouchedRange> = Vec::with_capacity(merged.len());
        let mut group_start = 0;
        while group_start < merged.len() {
            let target = merged[group_start].target;
            let group_end = merged[group_start..]
                .iter()
                .position(|r| r.target != target)
                .map_or(merged.len(), |p| group_start + p);
            let group = &merged[group_start..group_end];
            if group.len() > Self::MAX_RANGES {
                capped.push(TouchedRange {
                    target,
                    start: group.first().map_or(0, |r| r.start),
                    end: group.last().map_or(0, |r| r.end),
                });
            } else {
                capped.extend_from_slice(group);
            }
            group_start = group_end;
        }
        self.values = capped;
    }
}

/// What an edit did besides its main change: references it cleared, elements removed along with
/// the deleted ones, notes. Stated so that nothing is lost silently; undo restores all of it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EditReport {
    /// References set to `None` because the element they pointed at was deleted, by field
    /// ("vertex weights": 120).
    pub cleared: BTreeMap<String, usize>,
    /// Where cleared references were (the first few of each field), with the index they held.
    pub cleared_examples: Vec<String>,
    /// Elements removed along with the deleted ones ("faces": 12, "morph offsets": 3).
    pub removed_with: BTreeMap<String, usize>,
    /// References moved to another element instead of being cleared: a deleted bone's child
    /// bones, vertex weights and bone-following rigid bodies go to its nearest surviving
    /// ancestor. One entry per kind of reference and bone they went to.
    pub moved: Vec<MovedRefs>,
    /// Settings switched off because the bone they named was deleted, by setting, counting
    /// bones: "IK" (the IK target was deleted), "append" (the append parent), "tail bone" (the
    /// tail bone; the tail is now an offset to where it was).
    pub switched_off: BTreeMap<String, usize>,
    /// What the edit could not do as asked, or did besides (in the user's language when shown).
    pub notes: Vec<crate::i18n::Message>,
}

/// References of one kind that an edit moved to a bone (see [`EditReport::moved`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MovedRefs {
    /// What moved: "child bones", "vertex weights" or "rigid bodies".
    pub what: String,
    /// The bone they moved to, as an index of the model after the edit.
    pub to: usize,
    /// Its Japanese name, for messages.
    pub to_name: String,
    pub count: usize,
}

impl EditReport {
    /// Cleared references listed with their place, at most.
    pub const MAX_EXAMPLES: usize = 20;

    #[must_use]
    pub fn cleared_total(&self) -> usize {
        self.cleared.values().sum()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.cleared.is_empty()
            && self.removed_with.is_empty()
            && self.moved.is_empty()
            && self.switched_off.is_empty()
            && self.notes.is_empty()
    }

    fn extend(&mut self, other: &EditReport) {
        for (field, count) in &other.cleared {
            *self.cleared.entry(field.clone()).or_default() += count;
        }
        for example in &other.cleared_examples {
            if self.cleared_examples.len() < Self::MAX_EXAMPLES {
                self.cleared_examples.push(example.clone());
            }
        }
        for (what, count) in &other.removed_with {
            *self.removed_with.entry(what.clone()).or_default() += count;
        }
        for moved in &other.moved {
            match self
                .moved
                .iter_mut()
                .find(|m| m.what == moved.what && m.to == moved.to && m.to_name == moved.to_name)
            {
                Some(same) => same.count += moved.count,
                None => self.moved.push(moved.clone()),
            }
        }
        for (what, count) in &other.switched_off {
            *self.switched_off.entry(what.clone()).or_default() += count;
        }
        self.notes.extend(other.notes.iter().cloned());
    }

    fn heap_size(&self) -> usize {
        // BTreeMap nodes are not exposed; count the entries' text and a node share each.
        let entry = std::mem::size_of::<(String, usize)>() * 2;
        self.cleared
            .keys()
            .chain(self.removed_with.keys())
            .chain(self.switched_off.keys())
            .map(|k| k.capacity() + entry)
            .sum::<usize>()
            + self
                .moved
                .iter()
                .map(|m| {
                    std::mem::size_of::<MovedRefs>() + m.what.capacity() + m.to_name.capacity()
                })
                .sum::<usize>()
            + self
                .cleared_examples
                .iter()
                .map(|s| s.capacity() + std::mem::size_of::<String>())
                .sum::<usize>()
            + self
                .notes
                .iter()
                .map(|note| note.heap_size() + std::mem::size_of::<crate::i18n::Message>())
                .sum::<usize>()
    }
}

/// `1234567` as `1,234,567`.
#[must_use]
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The change an edit makes.
#[derive(Debug)]
pub(crate) enum Change {
    Field(FieldChange),
    Remove(Box<RemoveChange>),
    Insert(Box<InsertChange>),
    Reorder(ReorderChange),
    /// Additional UV channels appended (zero for every vertex).
    AddUvChannels(usize),
    /// "Apply pose as rest": the posed values, swapped with the model's on apply and on undo.
    Rest(Box<crate::pose::PoseAsRest>),
    /// Vertex weights of a brush step or stroke (old and new of the changed vertices only).
    Weights(weights::WeightsChange),
    Batch(Vec<Edit>),
}

/// One undoable step.
#[derive(Debug)]
pub struct Edit {
    /// Unique in the process: what lets the editor keep its own notes about a step of the
    /// history (the selection an undo gives back) without a copy of the step.
    id: u64,
    label: EditLabel,
    /// The label in English, rendered when [`Edit::label`] is first asked (the command line).
    english: OnceLock<String>,
    gesture: Option<GestureId>,
    report: EditReport,
    change: Change,
}

fn next_edit_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Edit {
    /// The step's identity, unique in the process (kept through label changes and through
    /// merging later frames of a gesture into it).
    #[must_use]
    pub fn id(&self) -> u64 {
        self.id
    }

    pub(crate) fn new(label: EditLabel, change: Change) -> Self {
        Self {
            id: next_edit_id(),
            label,
            english: OnceLock::new(),
            gesture: None,
            report: EditReport::default(),
            change,
        }
    }

    pub(crate) fn with_report(mut self, report: EditReport) -> Self {
        let label = self.label.clone().with_summary_of(&report);
        self = self.with_label(label);
        self.report = report;
        self
    }

    /// Several edits as one step. The edits must have been built one after the other, each on
    /// the model as the previous ones leave it ([`ops_to_edit`] does that).
    #[must_use]
    pub fn batch(label: impl Into<EditLabel>, edits: Vec<Edit>) -> Edit {
        let mut report = EditReport::default();
        for edit in &edits {
            report.extend(&edit.report);
        }
        Edit {
            id: next_edit_id(),
            label: label.into(),
            english: OnceLock::new(),
            gesture: None,
            report,
            change: Change::Batch(edits),
        }
    }

    /// The label in English ("Delete 3 bones"), as the command line prints it.
    #[must_use]
    pub fn label(&self) -> &str {
        self.english
            .get_or_init(|| self.label.render(Language::English))
    }

    /// The label in `lang`, for the history, the Edit menu and the status bar.
    #[must_use]
    pub fn label_in(&self, lang: Language) -> String {
        self.label.render(lang)
    }

    /// The label as data (rendered when shown, so a language switch re-renders it).
    #[must_use]
    pub fn edit_label(&self) -> &EditLabel {
        &self.label
    }

    #[must_use]
    pub fn with_label(mut self, label: impl Into<EditLabel>) -> Self {
        self.label = label.into();
        self.english = OnceLock::new();
        self
    }

    /// What the edit cleared or removed besides its main change.
    #[must_use]
    pub fn report(&self) -> &EditReport {
        &self.report
    }

    /// Marks the edit as a step of `gesture` (a drag, a slider): consecutive field edits of
    /// the same field, elements and gesture merge into one undo step.
    #[must_use]
    pub fn in_gesture(mut self, gesture: GestureId) -> Self {
        self.gesture = Some(gesture);
        self
    }

    /// Whether `request` sets the same field of the same elements as this field edit of
    /// `gesture` (so that it merges into it).
    pub(crate) fn continues(&self, gesture: GestureId, request: &SetField) -> bool {
        self.gesture == Some(gesture)
            && matches!(&self.change, Change::Field(change) if change.target == request.target()
                && change.path == *request.path()
                && request.same_type_as(change.values.as_ref())
                && change.values.indices().len() == request.indices().len()
                && change
                    .values
                    .indices()
                    .iter()
                    .zip(request.indices())
                    .all(|(&a, &b)| a as usize == b))
    }

    /// Whether the edit inserts, removes or reorders elements.
    #[must_use]
    pub fn is_structural(&self) -> bool {
        match &self.change {
            Change::Field(_) | Change::Rest(_) | Change::Weights(_) => false,
            Change::Batch(edits) => edits.iter().any(Edit::is_structural),
            Change::Remove(_)
            | Change::Insert(_)
            | Change::Reorder(_)
            | Change::AddUvChannels(_) => true,
        }
    }

    /// Heap memory the edit holds (old and new values, removed elements, cleared references),
    /// not counting `size_of::<Edit>()` itself.
    #[must_use]
    pub fn heap_size(&self) -> usize {
        self.label.heap_size()
            + self.english.get().map_or(0, String::capacity)
            + self.report.heap_size()
            + match &self.change {
                Change::Field(change) => change.heap_size(),
                Change::Remove(change) => std::mem::size_of::<RemoveChange>() + change.heap_size(),
                Change::Insert(change) => std::mem::size_of::<InsertChange>() + change.heap_size(),
                Change::Reorder(change) => change.heap_size(),
                Change::AddUvChannels(_) => 0,
                Change::Rest(rest) => rest.heap_size(),
                Change::Weights(change) => change.heap_size(),
                Change::Batch(edits) => edits
                    .iter()
                    .map(|e| std::mem::size_of::<Edit>() + e.heap_size())
                    .sum(),
            }
    }

    /// Applies (or reapplies) the edit.
    pub fn apply(&mut self, model: &mut Model) -> Touched {
        match &mut self.change {
            Change::Field(change) => change.write(model, true),
            Change::Remove(change) => change.apply(model),
            Change::Insert(change) => change.apply(model),
            Change::Reorder(change) => change.apply(model, true),
            Change::AddUvChannels(count) => structure::add_uv_channels(model, *count),
            Change::Rest(rest) => swap_rest(rest, model),
            Change::Weights(change) => change.write(model, true),
            Change::Batch(edits) => {
                let mut touched = Touched::default();
                for edit in edits.iter_mut() {
                    touched.extend(edit.apply(model));
                }
                touched
            }
        }
    }

    /// Undoes the edit (which must be the last one applied to `model`).
    pub fn revert(&mut self, model: &mut Model) -> Touched {
        match &mut self.change {
            Change::Field(change) => change.write(model, false),
            Change::Remove(change) => change.revert(model),
            Change::Insert(change) => change.revert(model),
            Change::Reorder(change) => change.apply(model, false),
            Change::AddUvChannels(count) => structure::remove_uv_channels(model, *count),
            Change::Rest(rest) => swap_rest(rest, model),
            Change::Weights(change) => change.write(model, false),
            Change::Batch(edits) => {
                let mut touched = Touched::default();
                for edit in edits.iter_mut().rev() {
                    touched.extend(edit.revert(model));
                }
                touched
            }
        }
    }
}

impl Edit {
    /// "Apply pose as rest" (PmxEditor's 現在のポーズを初期姿勢に): the model takes `pose`,
    /// with its morphs, as its new rest shape: vertices skinned, bones, rigid bodies and joints
    /// moved, vertex morphs turned with their vertices. One step; undo restores every value.
    /// The report's notes say what the model cannot hold (see [`crate::pose::pose_as_rest`]).
    pub fn pose_as_rest(model: &Model, pose: &crate::pose::Pose) -> Result<Edit, EditError> {
        let rest = crate::pose::pose_as_rest(model, pose)?;
        let report = EditReport {
            notes: rest.notes.clone(),
            ..EditReport::default()
        };
        let mut edit = Edit::new(
            EditLabel::new("edit.pose_as_rest"),
            Change::Rest(Box::new(rest)),
        );
        edit.report = report;
        Ok(edit)
    }
}

/// Swaps the posed values in and reports every element kind they cover.
fn swap_rest(rest: &mut crate::pose::PoseAsRest, model: &mut Model) -> Touched {
    rest.swap_with(model);
    let mut touched = Touched::default();
    touched.add_range(EditTarget::Vertex, 0..rest.positions.len());
    touched.add_range(EditTarget::Bone, 0..rest.bones.len());
    touched.add_range(EditTarget::Material, 0..rest.materials.len());
    for (morph, _) in &rest.vertex_morphs {
        touched.add_range(EditTarget::Morph, morph.get()..morph.get() + 1);
    }
    touched.add_range(EditTarget::RigidBody, 0..rest.rigid_bodies.len());
    touched.add_range(EditTarget::Joint, 0..rest.joints.len());
    touched
}

impl fmt::Display for Edit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

impl undo::Edit for Edit {
    type Target = Model;
    type Output = Touched;

    fn edit(&mut self, model: &mut Model) -> Touched {
        self.apply(model)
    }

    fn undo(&mut self, model: &mut Model) -> Touched {
        self.revert(model)
    }

    fn merge(&mut self, mut other: Self) -> undo::Merged<Self> {
        if self.gesture.is_none() || self.gesture != other.gesture {
            return undo::Merged::No(other);
        }
        match (&mut self.change, &mut other.change) {
            (Change::Field(mine), Change::Field(theirs)) if mine.continues_with(theirs) => {
                mine.merge(theirs);
                undo::Merged::Yes
            }
            // A gesture's frames that each set several fields (a rotation of vertices: their
            // positions, normals and morph offsets): merged when every field edit of the later
            // frame continues the same one of the earlier, checked before anything is taken.
            (Change::Batch(mine), Change::Batch(theirs))
                if mine.len() == theirs.len()
                    && mine.iter().zip(theirs.iter()).all(|(a, b)| {
                        matches!((&a.change, &b.change),
                            (Change::Field(a), Change::Field(b)) if a.continues_with(b))
                    }) =>
            {
                for (a, b) in mine.iter_mut().zip(theirs.iter_mut()) {
                    if let (Change::Field(a), Change::Field(b)) = (&mut a.change, &mut b.change) {
                        a.merge(b);
                    }
                }
                undo::Merged::Yes
            }
            // A weight brush's steps of one stroke: one step over the union of their
            // vertices, labelled with the union's count.
            (Change::Weights(mine), Change::Weights(theirs)) => {
                mine.merge(std::mem::take(theirs));
                self.label = mine.label();
                self.english = OnceLock::new();
                undo::Merged::Yes
            }
            _ => undo::Merged::No(other),
        }
    }
}

/// Builds edits that depend on each other: each is built on the model as the previous ones
/// leave it, so they are applied as they are built, and undone again when the sequence finishes
/// (or is dropped after an error): the model is unchanged afterwards.
#[derive(Debug)]
pub struct Sequence<'m> {
    model: &'m mut Model,
    edits: Vec<Edit>,
}

impl<'m> Sequence<'m> {
    #[must_use]
    pub fn new(model: &'m mut Model) -> Self {
        Self {
            model,
            edits: Vec::new(),
        }
    }

    pub fn model(&self) -> &Model {
        self.model
    }

    pub fn model_mut(&mut self) -> &mut Model {
        self.model
    }

    pub fn push(&mut self, mut edit: Edit) {
        edit.apply(self.model);
        self.edits.push(edit);
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.edits.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    fn rewind(&mut self) {
        for edit in self.edits.iter_mut().rev() {
            edit.revert(self.model);
        }
    }

    /// The edits as one step named `label`.
    #[must_use]
    pub fn finish(mut self, label: impl Into<EditLabel>) -> Edit {
        self.rewind();
        Edit::batch(label, std::mem::take(&mut self.edits))
    }

    /// The edits as one step: the only edit itself, or a batch named `label`.
    #[must_use]
    pub fn finish_flat(mut self, label: impl Into<EditLabel>) -> Edit {
        self.rewind();
        let mut edits = std::mem::take(&mut self.edits);
        match (edits.pop(), edits.is_empty()) {
            (Some(only), true) => only,
            (Some(last), false) => {
                edits.push(last);
                Edit::batch(label, edits)
            }
            (None, _) => Edit::batch(label, edits),
        }
    }
}

impl Drop for Sequence<'_> {
    fn drop(&mut self) {
        self.rewind();
    }
}

#[cfg(test)]
mod remap_tests;
#[cfg(test)]
mod tests;
