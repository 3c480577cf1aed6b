//! The undo history of a document: an `undo::Record` of edits, with labels, the saved point and
//! a step limit.

use super::{Edit, EditError, EditLabel, EditOp, SetField, Touched, ops_to_edit};
use crate::model::Model;

/// Identifies one gesture (a drag, a slider move): field edits of the same gesture merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GestureId(u64);

/// The edits applied to a model, for undo and redo.
#[derive(Debug)]
pub struct History {
    record: undo::Record<Edit>,
    next_gesture: u64,
}

impl Default for History {
    fn default() -> Self {
        Self::new()
    }
}

impl History {
    /// The default number of steps kept.
    pub const DEFAULT_LIMIT: usize = 1000;

    /// An empty history of the model as it was loaded (or created): not dirty.
    #[must_use]
    pub fn new() -> Self {
        Self::with_limit(Self::DEFAULT_LIMIT)
    }

    /// An empty history keeping at most `limit` steps (at least 1); the oldest steps are
    /// dropped beyond it.
    #[must_use]
    pub fn with_limit(limit: usize) -> Self {
        Self {
            record: undo::Record::builder().limit(limit.max(1)).build(),
            next_gesture: 0,
        }
    }

    /// Applies `edit` to `model` and records it (merging it into the previous step if both are
    /// field edits of the same gesture). Returns what changed.
    pub fn apply(&mut self, model: &mut Model, edit: Edit) -> Touched {
        self.record.edit(model, edit)
    }

    /// Builds `ops` into one step (see [`ops_to_edit`]) and applies it: how validators' repairs
    /// and plugins' changes are committed. On error nothing changes.
    pub fn apply_ops(&mut self, model: &mut Model, ops: &[EditOp]) -> Result<Touched, EditError> {
        let edit = ops_to_edit(model, ops)?;
        Ok(self.apply(model, edit))
    }

    /// Undoes the last step, if any.
    pub fn undo(&mut self, model: &mut Model) -> Option<Touched> {
        self.record.undo(model)
    }

    /// Redoes the last undone step, if any.
    pub fn redo(&mut self, model: &mut Model) -> Option<Touched> {
        self.record.redo(model)
    }

    /// Undoes every step.
    pub fn undo_all(&mut self, model: &mut Model) -> Touched {
        let mut touched = Touched::default();
        while let Some(step) = self.undo(model) {
            touched.extend(step);
        }
        touched
    }

    /// Redoes every undone step.
    pub fn redo_all(&mut self, model: &mut Model) -> Touched {
        let mut touched = Touched::default();
        while let Some(step) = self.redo(model) {
            touched.extend(step);
        }
        touched
    }

    #[must_use]
    pub fn can_undo(&self) -> bool {
        self.record.can_undo()
    }

    #[must_use]
    pub fn can_redo(&self) -> bool {
        self.record.can_redo()
    }

    /// The label of the step `undo` would undo ("Delete 3 bones").
    #[must_use]
    pub fn undo_label(&self) -> Option<&str> {
        let head = self.record.head();
        head.checked_sub(1)
            .and_then(|i| self.record.get_entry(i))
            .map(|entry| entry.as_ref().label())
    }

    /// The label of the step `redo` would redo.
    #[must_use]
    pub fn redo_label(&self) -> Option<&str> {
        self.record
            .get_entry(self.record.head())
            .map(|entry| entry.as_ref().label())
    }

    /// The label of the step `undo` would undo, as data (to render in the UI's language).
    #[must_use]
    pub fn undo_edit_label(&self) -> Option<&EditLabel> {
        let head = self.record.head();
        head.checked_sub(1)
            .and_then(|i| self.record.get_entry(i))
            .map(|entry| entry.as_ref().edit_label())
    }

    /// The label of the step `redo` would redo, as data.
    #[must_use]
    pub fn redo_edit_label(&self) -> Option<&EditLabel> {
        self.record
            .get_entry(self.record.head())
            .map(|entry| entry.as_ref().edit_label())
    }

    /// The id ([`Edit::id`]) of the step `undo` would undo: after an apply or a redo, the step
    /// just done.
    #[must_use]
    pub fn undo_id(&self) -> Option<u64> {
        let head = self.record.head();
        head.checked_sub(1)
            .and_then(|i| self.record.get_entry(i))
            .map(|entry| entry.as_ref().id())
    }

    /// The id of the step `redo` would redo.
    #[must_use]
    pub fn redo_id(&self) -> Option<u64> {
        self.record
            .get_entry(self.record.head())
            .map(|entry| entry.as_ref().id())
    }

    /// Every step, oldest first (the first `head()` are applied).
    pub fn edits(&self) -> impl Iterator<Item = &Edit> {
        self.record.entries().map(AsRef::as_ref)
    }

    /// Number of steps recorded (applied and undone).
    #[must_use]
    pub fn len(&self) -> usize {
        self.record.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.record.is_empty()
    }

    /// Number of applied steps.
    #[must_use]
    pub fn head(&self) -> usize {
        self.record.head()
    }

    #[must_use]
    pub fn limit(&self) -> usize {
        self.record.limit()
    }

    /// Marks the model as saved in its current state.
    pub fn mark_saved(&mut self) {
        self.record.set_saved();
    }

    /// Whether the model differs from what was last saved (or loaded), through undo and redo.
    #[must_use]
    pub fn is_dirty(&self) -> bool {
        !self.record.is_saved()
    }

    /// Forgets every step (after a reload, say). The current state counts as saved.
    pub fn clear(&mut self) {
        self.record.clear();
        self.record.set_saved();
    }

    /// A new gesture: pass it to [`Edit::in_gesture`] for each step of one drag.
    /// Applies `request` as the next frame of `gesture` when the last step is that gesture's
    /// edit of the same field of the same elements (and the model is not at its saved state,
    /// where steps never merge): the new values are written and taken into that step without
    /// reading the old ones again (a drag of 100,000 vertices reads them once, on its first
    /// frame). Otherwise the request is given back, to be built and applied as usual.
    pub fn continue_gesture(
        &mut self,
        model: &mut Model,
        gesture: GestureId,
        request: SetField,
    ) -> Result<Touched, SetField> {
        let continues = !self.record.is_saved()
            && self
                .record
                .head()
                .checked_sub(1)
                .and_then(|last| self.record.get_entry(last))
                .is_some_and(|entry| entry.as_ref().continues(gesture, &request));
        if !continues {
            return Err(request);
        }
        let edit = request.into_continuation()?.in_gesture(gesture);
        Ok(self.apply(model, edit))
    }

    pub fn new_gesture(&mut self) -> GestureId {
        self.next_gesture += 1;
        GestureId(self.next_gesture)
    }

    /// Memory held by the recorded steps.
    #[must_use]
    pub fn heap_size(&self) -> usize {
        self.record
            .entries()
            .map(|entry| std::mem::size_of_val(entry) + entry.as_ref().heap_size())
            .sum()
    }
}
