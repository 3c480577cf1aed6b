//! The edits and notes a run queues, and what bounds them: a script never changes the model
//! while it runs; what it asks for is checked where it asks (so an error names that line) and
//! kept here, in order, until the run ends and the host builds it into one undo step.

use super::ScriptLimits;
use super::lent::{MODEL, ScriptResult, fail, noun, plural, thousands, to_int};
use super::values::{dynamic_to_json, index_of};
use crate::api::Note;
use pmx_core::Model;
use pmx_core::edit::{EditOp, EditTarget, FieldPath};
use pmx_core::model::ElementKind;
use rhai::{Array, Dynamic, INT, NativeCallContext};
use serde_json::Value;
use std::sync::atomic::Ordering;
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

/// Notes longer than this are cut (a script printing in a loop stays readable).
const MAX_NOTE_CHARS: usize = 2_000;

/// An edit the script queued, with where in the script it was queued.
#[derive(Debug)]
pub(crate) struct QueuedEdit {
    pub op: EditOp,
    pub line: usize,
    pub column: usize,
    /// One line for the preview: "set name_en of 2 bones".
    pub summary: String,
    pub origin: Origin,
}

/// How many of the last queued edits an assignment looks through for the edit it joins.
const JOIN_LOOKBACK: usize = 8;

/// The queued edit an assignment of `field` of element `index` of `target` joins: an
/// assignment edit of the same field, among the last ones queued, whose elements all come
/// before `index`, with nothing between them that the order matters to (an edit of another
/// kind, or of a field inside this one or around it).
fn joinable(edits: &[QueuedEdit], target: EditTarget, index: usize, field: &str) -> Option<usize> {
    for (position, edit) in edits.iter().enumerate().rev().take(JOIN_LOOKBACK) {
        let EditOp::Set {
            kind,
            indices,
            field: queued,
            values: Some(_),
            ..
        } = &edit.op
        else {
            return None;
        };
        if edit.origin != Origin::Assignment {
            return None;
        }
        if *kind != target {
            continue;
        }
        if queued == field {
            return (target.element_kind().is_some()
                && indices.last().is_some_and(|&last| last < index))
            .then_some(position);
        }
        if overlaps(queued, field) {
            return None;
        }
    }
    None
}

/// Whether one field path is inside the other (or they are the same).
fn overlaps(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    long.starts_with(short)
        && (short.is_empty()
            || long.len() == short.len()
            || matches!(long.as_bytes().get(short.len()), Some(b'.' | b'[')))
}

/// What queued an edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A call that queues one whole edit (`set`, `insert`, ...).
    Call,
    /// A [`Setter`], filled after it was queued (dropped when it stays empty).
    Setter,
    /// Assignments to one field of successive elements (`bone.name = ...` in a loop), which
    /// become one set edit as a setter's values do.
    Assignment,
}

impl Origin {
    /// Whether the edit took values after it was queued (its summary counts them at the end).
    pub(crate) fn grows(self) -> bool {
        self != Origin::Call
    }
}

#[derive(Debug, Default)]
pub(crate) struct Queue {
    pub edits: Vec<QueuedEdit>,
    pub notes: Vec<Note>,
    pub bytes: usize,
    /// How many elements of each kind there will be after the queued edits (for the index an
    /// insert returns).
    pub counts: [usize; 10],
}

/// What one run collects, and what stops it.
#[derive(Debug)]
pub(crate) struct RunState {
    pub limits: ScriptLimits,
    deadline: Instant,
    queue: Mutex<Queue>,
}

pub(crate) fn slot(kind: ElementKind) -> usize {
    ElementKind::ALL
        .iter()
        .position(|other| *other == kind)
        .unwrap_or(0)
}

impl RunState {
    pub(crate) fn new(limits: &ScriptLimits, model: &Model) -> Self {
        let mut counts = [0; 10];
        for kind in ElementKind::ALL {
            counts[slot(kind)] = model.count(kind);
        }
        Self {
            limits: limits.clone(),
            deadline: Instant::now() + limits.time,
            queue: Mutex::new(Queue {
                counts,
                ..Queue::default()
            }),
        }
    }

    pub(crate) fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Why the script must stop now, if it must.
    pub(crate) fn stop_reason(&self) -> Option<String> {
        if self
            .limits
            .cancel
            .as_ref()
            .is_some_and(|cancel| cancel.load(Ordering::Relaxed))
        {
            return Some("stopped by the user".to_owned());
        }
        (Instant::now() >= self.deadline).then(|| {
            format!(
                "stopped: the script ran longer than {} s",
                seconds(self.limits.time.as_secs_f64())
            )
        })
    }

    pub(crate) fn note(&self, en: &str, ja: &str) -> ScriptResult<()> {
        let mut queue = self.queue();
        if queue.notes.len() >= self.limits.max_notes {
            return Err(fail(format!(
                "too many notes: a script may write at most {}",
                self.limits.max_notes
            )));
        }
        let cut = |text: &str| -> String {
            if text.chars().count() > MAX_NOTE_CHARS {
                let mut short: String = text.chars().take(MAX_NOTE_CHARS).collect();
                short.push('…');
                short
            } else {
                text.to_owned()
            }
        };
        queue.notes.push(Note::new(cut(en), cut(ja)));
        Ok(())
    }

    /// Queues `op`, counting it against the limits; `bytes` is the size of its values.
    pub(crate) fn push(
        &self,
        context: &NativeCallContext<'_>,
        op: EditOp,
        bytes: usize,
        summary: String,
    ) -> ScriptResult<()> {
        let mut queue = self.queue();
        if queue.edits.len() >= self.limits.max_edits {
            return Err(fail(format!(
                "too many edits: a script may queue at most {} (set_each sets many elements in \
                 one edit)",
                thousands(self.limits.max_edits)
            )));
        }
        self.check_bytes(&queue, bytes)?;
        queue.bytes += bytes;
        let position = context.call_position();
        queue.edits.push(QueuedEdit {
            op,
            line: position.line().unwrap_or(0),
            column: position.position().unwrap_or(0),
            summary,
            origin: Origin::Call,
        });
        Ok(())
    }

    /// Refuses `bytes` more when the queue would hold more than its limit.
    fn check_bytes(&self, queue: &Queue, bytes: usize) -> ScriptResult<()> {
        if queue.bytes.saturating_add(bytes) > self.limits.max_queued_bytes {
            return Err(fail(format!(
                "too much data: the queued edits would hold more than {} MB",
                self.limits.max_queued_bytes >> 20
            )));
        }
        Ok(())
    }

    /// Queues `path` of element `index` of `target` = `value`, assigned by the script
    /// (`bone.name = "頭"`): checked as `set` is, where it is assigned. Assignments to the same
    /// field of elements in increasing order (a loop) join the one set edit the first one
    /// queued ([`joinable`]), so a loop over a million vertices is one edit per field it
    /// assigns, not a million.
    pub(crate) fn push_assignment(
        &self,
        context: &NativeCallContext<'_>,
        target: EditTarget,
        index: usize,
        path: &FieldPath,
        value: Value,
        bytes: usize,
    ) -> ScriptResult<()> {
        let field = path.to_string();
        check_set(target, &[index], &field, &value).map_err(fail)?;
        {
            let mut guard = self.queue();
            self.check_bytes(&guard, bytes)?;
            let queue = &mut *guard;
            if let Some(edit) = joinable(&queue.edits, target, index, &field)
                && let Some(EditOp::Set {
                    indices,
                    values: Some(values),
                    ..
                }) = queue.edits.get_mut(edit).map(|edit| &mut edit.op)
            {
                indices.push(index);
                values.push(value);
                queue.bytes += bytes;
                return Ok(());
            }
        }
        let (indices, summary) = match target.element_kind() {
            Some(kind) => (vec![index], format!("set {field} of 1 {}", kind.name())),
            None => (Vec::new(), format!("set {} {field}", target.name())),
        };
        self.push(
            context,
            EditOp::Set {
                kind: target,
                indices,
                field,
                value: None,
                values: Some(vec![value]),
            },
            bytes,
            summary,
        )?;
        if let Some(edit) = self.queue().edits.last_mut() {
            edit.origin = Origin::Assignment;
        }
        Ok(())
    }

    /// Adds `index` = `value` to the setter's edit.
    pub(crate) fn setter_add(
        &self,
        setter: &Setter,
        index: INT,
        value: &Dynamic,
    ) -> ScriptResult<()> {
        let index = index_of(index).map_err(fail)?;
        let mut bytes = std::mem::size_of::<usize>();
        let value = dynamic_to_json(value, &mut bytes).map_err(fail)?;
        let mut queue = self.queue();
        let count = queue.counts[slot(setter.kind)];
        if index >= count {
            return Err(fail(format!(
                "{} {index} does not exist (the model has {count} {})",
                setter.kind.name(),
                plural(setter.kind)
            )));
        }
        let first = match queue.edits.get(setter.slot).map(|edit| &edit.op) {
            Some(EditOp::Set { indices, .. }) => indices.is_empty(),
            _ => return Err(fail("this setter belongs to another run")),
        };
        if first {
            // The first value shows whether the field exists and takes such a value.
            drop(queue);
            check_set(setter.kind.into(), &[index], &setter.field, &value).map_err(fail)?;
            queue = self.queue();
        }
        self.check_bytes(&queue, bytes)?;
        queue.bytes += bytes;
        if let Some(EditOp::Set {
            indices,
            values: Some(values),
            ..
        }) = queue.edits.get_mut(setter.slot).map(|edit| &mut edit.op)
        {
            indices.push(index);
            values.push(value);
        }
        Ok(())
    }

    pub(crate) fn count(&self, kind: ElementKind) -> usize {
        self.queue().counts[slot(kind)]
    }

    /// Checks `indices` against the count of `kind` after the queued edits.
    pub(crate) fn check_indices(&self, kind: ElementKind, indices: &[usize]) -> Result<(), String> {
        let count = self.count(kind);
        match indices.iter().find(|&&index| index >= count) {
            Some(index) => Err(format!(
                "{} {index} does not exist (the model has {count} {})",
                kind.name(),
                plural(kind)
            )),
            None => Ok(()),
        }
    }
}

pub(crate) fn seconds(value: f64) -> String {
    let text = format!("{value:.1}");
    text.strip_suffix(".0").map_or(text.clone(), str::to_owned)
}

/// over (so `insert("bone", #{ name_ja: "新", position: [0, 1, 0] })` is a whole bone).
fn default_element(kind: ElementKind) -> Option<Value> {
    use pmx_core::model::*;
    let value = match kind {
        ElementKind::Vertex => serde_json::to_value(Vertex::default()),
        ElementKind::Material => serde_json::to_value(Material::default()),
        ElementKind::Bone => serde_json::to_value(Bone::default()),
        ElementKind::Morph => serde_json::to_value(Morph {
            name_ja: Text::default(),
            name_en: Text::default(),
            panel: MorphPanel::default(),
            offsets: MorphOffsets::empty(MorphKind::Vertex),
        }),
        ElementKind::DisplayFrame => serde_json::to_value(DisplayFrame::default()),
        ElementKind::RigidBody => serde_json::to_value(RigidBody::default()),
        ElementKind::Joint => serde_json::to_value(Joint::default()),
        ElementKind::SoftBody => serde_json::to_value(SoftBody::default()),
        ElementKind::Face | ElementKind::Texture => return None,
    };
    value.ok()
}

/// `element` (a map, or for faces `[a, b, c]` and textures a path) as an item to insert.
pub(crate) fn insert_item(kind: ElementKind, element: &Dynamic) -> Result<(Value, usize), String> {
    let mut bytes = 0;
    let given = dynamic_to_json(element, &mut bytes)?;
    let item = match (default_element(kind), given) {
        (Some(Value::Object(mut defaults)), Value::Object(fields)) => {
            // A morph of another kind starts from that kind's empty offsets.
            if fields.contains_key("kind") && !fields.contains_key("offsets") {
                defaults.insert("offsets".to_owned(), Value::Array(Vec::new()));
            }
            defaults.extend(fields);
            Value::Object(defaults)
        }
        (Some(_), other) => {
            return Err(format!(
                "a new {} is a map of its fields (#{{ name_ja: ... }}), not {}",
                kind.name(),
                json_kind(&other)
            ));
        }
        (None, other) => other,
    };
    check_item(kind, &item)?;
    Ok((item, bytes))
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "()",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "a map",
    }
}

/// Reads `item` as an element of `kind`, so a wrong field fails where the script inserts it.
pub(crate) fn check_item(kind: ElementKind, item: &Value) -> Result<(), String> {
    use pmx_core::model::*;
    fn parse<T: serde::de::DeserializeOwned>(item: &Value) -> Result<(), String> {
        serde_json::from_value::<T>(item.clone())
            .map(|_| ())
            .map_err(|error| error.to_string())
    }
    match kind {
        ElementKind::Vertex => parse::<Vertex>(item),
        ElementKind::Face => parse::<Face>(item),
        ElementKind::Texture => parse::<Text>(item),
        ElementKind::Material => parse::<Material>(item),
        ElementKind::Bone => parse::<Bone>(item),
        ElementKind::Morph => parse::<Morph>(item),
        ElementKind::DisplayFrame => parse::<DisplayFrame>(item),
        ElementKind::RigidBody => parse::<RigidBody>(item),
        ElementKind::Joint => parse::<Joint>(item),
        ElementKind::SoftBody => parse::<SoftBody>(item),
    }
    .map_err(|message| format!("not a {}: {message}", kind.name()))
}

/// `setter(kind, field)`: collects one value per element on the host's side and becomes one
/// set edit. Rhai measures an array every time a function is called on it (`push`, `len`),
/// which makes building a large array quadratic; a setter's values are outside Rhai (counted
/// against the run's queued-data limit instead), so `s.set(i, value)` costs the same for the
/// millionth vertex as for the first.

#[derive(Debug, Clone)]
pub(crate) struct Setter {
    pub slot: usize,
    pub kind: ElementKind,
    pub field: String,
}

pub(crate) enum SetValues<'a> {
    Same(&'a Dynamic),
    Each(&'a Array),
}

pub(crate) fn queue_set(
    run: &RunState,
    context: &NativeCallContext<'_>,
    target: EditTarget,
    indices: Vec<usize>,
    field: &str,
    values: SetValues<'_>,
) -> ScriptResult<()> {
    let path =
        FieldPath::parse(field).map_err(|error| fail(format!("field \"{field}\": {error}")))?;
    if target.element_kind().is_some() && indices.is_empty() {
        // An empty selection sets nothing: not an error in a script that loops over it.
        return Ok(());
    }
    let mut bytes = indices.len() * std::mem::size_of::<usize>();
    let (value, each, first_value) = match values {
        SetValues::Same(value) => {
            let value = dynamic_to_json(value, &mut bytes).map_err(fail)?;
            (Some(value.clone()), None, value)
        }
        SetValues::Each(values) => {
            let values = values
                .iter()
                .map(|value| dynamic_to_json(value, &mut bytes))
                .collect::<Result<Vec<_>, _>>()
                .map_err(fail)?;
            let first = values.first().cloned().unwrap_or(Value::Null);
            (None, Some(values), first)
        }
    };
    check_set(target, &indices, field, &first_value).map_err(fail)?;
    let count = indices.len().max(1);
    let summary = match target.element_kind() {
        Some(kind) => format!("set {path} of {} {}", thousands(count), noun(kind, count)),
        None => format!("set {} {path}", target.name()),
    };
    run.push(
        context,
        EditOp::Set {
            kind: target,
            indices,
            field: path.to_string(),
            value,
            values: each,
        },
        bytes,
        summary,
    )
}

/// Builds the set on one element of the model as it is, so a field that does not exist or a
/// value of the wrong type fails where the script sets it (the edit itself is built later, on
/// the model as the earlier edits leave it).
pub(crate) fn check_set(
    target: EditTarget,
    indices: &[usize],
    field: &str,
    value: &Value,
) -> Result<(), String> {
    if !MODEL.is_set() {
        return Ok(());
    }
    MODEL.with(|model| {
        let count = target.count(model);
        if count == 0 {
            return Ok(());
        }
        let probe = indices
            .first()
            .copied()
            .filter(|&index| index < count)
            .unwrap_or(0);
        pmx_core::edit::Edit::set_json(model, target, &[probe], field, std::slice::from_ref(value))
            .map(|_| ())
            .map_err(|error| error.to_string())
    })
}

pub(crate) fn queue_insert(
    run: &RunState,
    context: &NativeCallContext<'_>,
    kind: ElementKind,
    at: Option<usize>,
    element: &Dynamic,
) -> ScriptResult<INT> {
    let count = run.count(kind);
    if let Some(at) = at
        && at > count
    {
        return Err(fail(format!(
            "insert_at {at}: the model has {count} {} (0..={count})",
            plural(kind)
        )));
    }
    let (item, bytes) = insert_item(kind, element).map_err(fail)?;
    let index = at.unwrap_or(count);
    let summary = format!("insert a {} at {index}", kind.name());
    run.push(
        context,
        EditOp::Insert {
            kind,
            at,
            items: vec![item],
            material: None,
            faces: None,
        },
        bytes,
        summary,
    )?;
    run.queue().counts[slot(kind)] += 1;
    Ok(to_int(index))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_overlap_when_one_is_inside_the_other() {
        assert!(overlaps("position", "position.y"));
        assert!(overlaps("position.y", "position"));
        assert!(overlaps("ik.links[0].bone", "ik.links"));
        assert!(overlaps("", "uv.x"));
        assert!(overlaps("uv", "uv"));
        assert!(!overlaps("position", "position2"));
        assert!(!overlaps("uv.x", "uv.y"));
    }
}
