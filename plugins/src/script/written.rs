//! What a version-2 script has assigned so far, so that its reads see its own writes
//! (`v.position.y += 0.5; v.position.y` reads the new value), as PmxEditor's C# scripts see
//! theirs. The model itself stays as it was lent: the edits are only queued.
//!
//! Only field assignments through element values (`bone.flags.visible = false`) are kept
//! here; `set`, `insert`, `delete` and the other calls of version 1 are not (reads never see
//! them). A run writes a handful of fields, so the fields are a short list looked through,
//! and the values a map by (field, element): a read of a field nobody wrote costs one look
//! at that list.

use pmx_core::edit::{EditTarget, FieldPath};
use pmx_core::path::Segment;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;

scoped_tls::scoped_thread_local!(pub(crate) static WRITTEN: RefCell<Written>);

/// Roughly what one kept value costs besides its JSON heap: its key, its order, the map's
/// own overhead.
pub(crate) const ENTRY_BYTES: usize = 64;

/// The values a run assigned, by element and field.
#[derive(Debug, Default)]
pub(crate) struct Written {
    /// Each field written, with its target, in the order first written.
    fields: Vec<(EditTarget, FieldPath)>,
    /// The last value assigned to (field number, element index), with its place in the run's
    /// order of writes.
    values: HashMap<(usize, usize), (u64, Value)>,
    writes: u64,
}

/// A written value that holds the place read: the value written to the place itself or to a
/// field that contains it, and the steps from there down to the place.
#[derive(Debug)]
pub(crate) struct Covering<'a> {
    pub order: u64,
    pub value: &'a Value,
    pub below: &'a [Segment],
}

impl Written {
    /// Keeps `value` as what `path` of element `index` of `target` now holds.
    pub(crate) fn record(
        &mut self,
        target: EditTarget,
        index: usize,
        path: &FieldPath,
        value: Value,
    ) {
        let field = match self
            .fields
            .iter()
            .position(|(written, at)| *written == target && at == path)
        {
            Some(field) => field,
            None => {
                self.fields.push((target, path.clone()));
                self.fields.len() - 1
            }
        };
        self.writes += 1;
        self.values.insert((field, index), (self.writes, value));
    }

    /// Whether anything of `target` was written (a read of a kind nobody wrote asks no more).
    pub(crate) fn touches(&self, target: EditTarget) -> bool {
        self.fields.iter().any(|(written, _)| *written == target)
    }

    /// The last write to `path` of element `index`, or to a field containing it.
    pub(crate) fn covering<'a>(
        &'a self,
        target: EditTarget,
        index: usize,
        path: &'a FieldPath,
    ) -> Option<Covering<'a>> {
        self.fields
            .iter()
            .enumerate()
            .filter(|(_, (written, at))| {
                *written == target && path.segments().starts_with(at.segments())
            })
            .filter_map(|(field, (_, at))| {
                let (order, value) = self.values.get(&(field, index))?;
                Some(Covering {
                    order: *order,
                    value,
                    below: &path.segments()[at.segments().len()..],
                })
            })
            .max_by_key(|covering| covering.order)
    }

    /// The writes to fields inside `path` of element `index` made after write number `after`,
    /// in the order they were made: the steps below `path` and the value.
    pub(crate) fn inside<'a>(
        &'a self,
        target: EditTarget,
        index: usize,
        path: &FieldPath,
        after: u64,
    ) -> Vec<(&'a [Segment], &'a Value)> {
        let mut found: Vec<(u64, &[Segment], &Value)> = self
            .fields
            .iter()
            .enumerate()
            .filter(|(_, (written, at))| {
                *written == target
                    && at.segments().len() > path.segments().len()
                    && at.segments().starts_with(path.segments())
            })
            .filter_map(|(field, (_, at))| {
                let (order, value) = self.values.get(&(field, index))?;
                (*order > after).then(|| (*order, &at.segments()[path.segments().len()..], value))
            })
            .collect();
        found.sort_by_key(|(order, _, _)| *order);
        found
            .into_iter()
            .map(|(_, below, value)| (below, value))
            .collect()
    }
}

/// The position a path step names in a value's JSON form: a field of an object, an item of
/// a list, or a vector's component (`x`, `y`, `z`, `w`: vectors are `[x, y, z]` in JSON).
fn json_position(value: &Value, segment: &Segment) -> Option<JsonStep> {
    match (value, segment) {
        (Value::Object(_), Segment::Field(name)) => Some(JsonStep::Key(name.to_string())),
        (Value::Array(_), Segment::Index(index)) => Some(JsonStep::Item(*index)),
        (Value::Array(_), Segment::Field(name)) => ["x", "y", "z", "w"]
            .iter()
            .position(|component| *component == name.as_ref())
            .map(JsonStep::Item),
        _ => None,
    }
}

enum JsonStep {
    Key(String),
    Item(usize),
}

/// The part of `value` that `steps` lead to.
pub(crate) fn json_at<'a>(value: &'a Value, steps: &[Segment]) -> Option<&'a Value> {
    steps.iter().try_fold(value, |value, segment| {
        match json_position(value, segment)? {
            JsonStep::Key(key) => value.get(key),
            JsonStep::Item(item) => value.get(item),
        }
    })
}

/// Puts `new` where `steps` lead in `value` (nothing when they lead nowhere: the value's
/// shape was replaced by a later write).
pub(crate) fn set_json_at(value: &mut Value, steps: &[Segment], new: Value) {
    let Some((last, above)) = steps.split_last() else {
        *value = new;
        return;
    };
    let mut place = value;
    for segment in above {
        let next = match json_position(place, segment) {
            Some(JsonStep::Key(key)) => place.get_mut(key),
            Some(JsonStep::Item(item)) => place.get_mut(item),
            None => None,
        };
        match next {
            Some(next) => place = next,
            None => return,
        }
    }
    let slot = match json_position(place, last) {
        Some(JsonStep::Key(key)) => place.get_mut(key),
        Some(JsonStep::Item(item)) => place.get_mut(item),
        None => None,
    };
    if let Some(slot) = slot {
        *slot = new;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn the_last_write_covering_a_place_wins() {
        let mut written = Written::default();
        let position = FieldPath::parse("position").unwrap();
        let y = FieldPath::parse("position.y").unwrap();
        assert!(!written.touches(EditTarget::Vertex));
        written.record(EditTarget::Vertex, 3, &y, json!(2.0));
        assert!(written.touches(EditTarget::Vertex));
        assert!(!written.touches(EditTarget::Bone));
        let covering = written.covering(EditTarget::Vertex, 3, &y).unwrap();
        assert_eq!(covering.value, &json!(2.0));
        assert!(written.covering(EditTarget::Vertex, 4, &y).is_none());
        assert!(written.covering(EditTarget::Vertex, 3, &position).is_none());
        assert_eq!(written.inside(EditTarget::Vertex, 3, &position, 0).len(), 1);

        written.record(EditTarget::Vertex, 3, &position, json!([1.0, 5.0, 3.0]));
        let covering = written.covering(EditTarget::Vertex, 3, &y).unwrap();
        assert_eq!(json_at(covering.value, covering.below), Some(&json!(5.0)));
        // The earlier write to y is under the later whole position.
        let whole = written.covering(EditTarget::Vertex, 3, &position).unwrap();
        assert!(
            written
                .inside(EditTarget::Vertex, 3, &position, whole.order)
                .is_empty()
        );
    }

    #[test]
    fn json_steps_name_fields_items_and_components() {
        let mut value = json!({"position": [1.0, 2.0, 3.0], "links": [{"bone": 4}]});
        let path = FieldPath::parse("links[0].bone").unwrap();
        assert_eq!(json_at(&value, path.segments()), Some(&json!(4)));
        let y = FieldPath::parse("position.y").unwrap();
        set_json_at(&mut value, y.segments(), json!(9.0));
        assert_eq!(value["position"], json!([1.0, 9.0, 3.0]));
        set_json_at(
            &mut value,
            FieldPath::parse("nothing.x").unwrap().segments(),
            json!(1),
        );
        assert!(value.get("nothing").is_none());
    }
}
