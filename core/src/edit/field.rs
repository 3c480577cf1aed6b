//! Field edits: one field of one or many elements, with old and new values in the field's type.

use super::reflect::{
    FieldType, FieldValues, NewValues, Reflect, SetRequest, TypedValues, check_index, resolve, root,
};
use super::{Edit, EditError, EditLabel, EditTarget, LabelArg, Touched};
use crate::model::{ElementKind, Model};
use crate::path::{FieldPath, ModelPath, PathHead, Segment, write_segments};
use serde_json::Value;
use std::fmt;

fn parse_field(target: EditTarget, field: &str) -> Result<FieldPath, EditError> {
    FieldPath::parse(field).map_err(|error| EditError::BadPath {
        target,
        message: error.to_string(),
    })
}
/// Why a [`ModelPath`] does not name a place in a model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{path}` is not in the model: {reason}")]
pub struct Unresolved {
    pub path: String,
    pub reason: String,
}

/// The whole element list a path's head names.
fn list_node(model: &Model, kind: ElementKind) -> &dyn Reflect {
    match kind {
        ElementKind::Vertex => &model.vertices,
        ElementKind::Face => &model.faces,
        ElementKind::Texture => &model.textures,
        ElementKind::Material => &model.materials,
        ElementKind::Bone => &model.bones,
        ElementKind::Morph => &model.morphs,
        ElementKind::DisplayFrame => &model.display_frames,
        ElementKind::RigidBody => &model.rigid_bodies,
        ElementKind::Joint => &model.joints,
        ElementKind::SoftBody => &model.soft_bodies,
    }
}

/// The node of `model` a path names: a list, an element or a field.
pub fn resolve_path<'a>(model: &'a Model, path: &ModelPath) -> Result<&'a dyn Reflect, Unresolved> {
    let segments = path.segments();
    let unresolved = |done: usize, reason: String| Unresolved {
        path: path.to_string(),
        reason: format!("`{}` {reason}", prefix_text(segments, done)),
    };
    let (mut node, mut done): (&dyn Reflect, usize) = match path.head() {
        PathHead::Header => (&model.header, 1),
        PathHead::Info => (&model.info, 1),
        PathHead::List(kind) => match segments.get(1) {
            None => (list_node(model, kind), 1),
            Some(Segment::Index(index)) => {
                let len = model.count(kind);
                if *index >= len {
                    return Err(unresolved(1, format!("has {len} elements, no [{index}]")));
                }
                let field = &segments[2..];
                let (element, used) = root(model, EditTarget::from(kind), *index, field)
                    .ok_or_else(|| unresolved(2, "has no such additional UV channel".to_owned()))?;
                (element, 2 + used)
            }
            Some(Segment::Field(name)) => {
                return Err(unresolved(
                    1,
                    format!("is a list: expected a position, not `{name}`"),
                ));
            }
        },
    };
    while let Some(segment) = segments.get(done) {
        node = match node.child(segment) {
            Some(child) => child,
            None => {
                let reason = match (segment, node.list_len()) {
                    (Segment::Index(index), Some(len)) => {
                        format!("has {len} elements, no [{index}]")
                    }
                    (Segment::Index(index), None) => format!("is not a list (no [{index}])"),
                    (Segment::Field(name), _) => {
                        format!("has no `{name}` (no such field, or it is empty)")
                    }
                };
                return Err(unresolved(done, reason));
            }
        };
        done += 1;
    }
    Ok(node)
}

fn prefix_text(segments: &[Segment], count: usize) -> String {
    struct Prefix<'a>(&'a [Segment]);
    impl fmt::Display for Prefix<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write_segments(f, self.0, true)
        }
    }
    Prefix(&segments[..count.min(segments.len())]).to_string()
}

/// The value a path names, in the model's JSON form (as `pmx-studio get` prints it).
pub fn get_path(model: &Model, path: &ModelPath) -> Result<Value, Unresolved> {
    resolve_path(model, path).map(Reflect::to_json)
}

/// The value of one field in its JSON form (`field` as in a set edit).
pub fn get_field(
    model: &Model,
    target: EditTarget,
    index: usize,
    field: &str,
) -> Result<Value, EditError> {
    let path = parse_field(target, field)?;
    let index = if target.is_single() { 0 } else { index };
    check_index(model, target, index)?;
    resolve(model, target, index, &path)
        .map(Reflect::to_json)
        .ok_or_else(|| EditError::NoSuchField {
            target,
            index,
            field: path.to_string(),
        })
}

/// A field edit as the history stores it.
#[derive(Debug)]
pub(crate) struct FieldChange {
    pub target: EditTarget,
    pub path: FieldPath,
    pub values: Box<dyn FieldValues>,
}

impl FieldChange {
    pub fn write(&self, model: &mut Model, new: bool) -> Touched {
        self.values.write(model, self.target, &self.path, new);
        let mut touched = Touched::default();
        touched.add_indices(self.target, self.values.indices());
        let first = self.path.segments().first().and_then(Segment::name);
        touched.vertex_positions_only =
            self.target == EditTarget::Vertex && first == Some("position");
        touched.vertex_uvs_only =
            self.target == EditTarget::Vertex && matches!(first, Some("uv" | "additional_uvs"));
        touched
    }

    pub fn heap_size(&self) -> usize {
        self.path.heap_size() + self.values.heap_size()
    }

    /// Takes over `other`'s new values if it edits the same field of the same elements.
    /// Whether [`FieldChange::merge`] would take `other`'s values (nothing is changed).
    pub fn continues_with(&self, other: &FieldChange) -> bool {
        self.target == other.target
            && self.path == other.path
            && self.values.same_elements_as(other.values.as_ref())
    }

    pub fn merge(&mut self, other: &mut FieldChange) -> bool {
        self.target == other.target
            && self.path == other.path
            && self.values.take_new_from(other.values.as_mut())
    }
}

/// [`element_indices`] of indices the caller gives away (no copy of a large selection).
pub(crate) fn owned_element_indices(
    model: &Model,
    target: EditTarget,
    indices: Vec<usize>,
) -> Result<Vec<usize>, EditError> {
    if target.is_single() {
        return Ok(vec![0]);
    }
    if indices.is_empty() {
        return Err(EditError::NothingSelected {
            kind: target.name(),
        });
    }
    let len = target.count(model);
    if let Some(&index) = indices.iter().find(|&&index| index >= len) {
        return Err(EditError::IndexOutOfRange {
            kind: target.name(),
            index,
            len,
        });
    }
    Ok(indices)
}

pub(crate) fn element_indices(
    model: &Model,
    target: EditTarget,
    indices: &[usize],
) -> Result<Vec<usize>, EditError> {
    owned_element_indices(model, target, indices.to_vec())
}

fn set_label(target: EditTarget, path: &FieldPath, count: usize, first: usize) -> EditLabel {
    let field = || LabelArg::Field(path.clone());
    if target.is_single() {
        let label = if path.is_whole() {
            EditLabel::new("edit.set_whole")
        } else {
            EditLabel::new("edit.set_single_field").arg("field", field())
        };
        return label.arg("target", LabelArg::Noun(target.name()));
    }
    // Renaming reads as PmxEditor's 名前の変更, not as setting `name_ja`.
    let rename = *path == FieldPath::whole().field("name_ja");
    let label = match (path.is_whole(), rename, count == 1) {
        (_, true, true) => EditLabel::new("edit.rename_one").element(target, first),
        (_, true, false) => EditLabel::new("edit.rename_many").count(count, target),
        (true, false, true) => EditLabel::new("edit.set_element").element(target, first),
        (true, false, false) => EditLabel::new("edit.set_elements").count(count, target),
        (false, false, true) => EditLabel::new("edit.set_field_one").element(target, first),
        (false, false, false) => EditLabel::new("edit.set_field_many").count(count, target),
    };
    if path.is_whole() || rename {
        label
    } else {
        label.arg("field", field())
    }
}

pub(crate) fn field_edit(
    target: EditTarget,
    path: FieldPath,
    values: Box<dyn FieldValues>,
    first: usize,
) -> Edit {
    let label = set_label(target, &path, values.indices().len(), first);
    Edit::new(
        label,
        super::Change::Field(FieldChange {
            target,
            path,
            values,
        }),
    )
}

impl Edit {
    /// Sets `field` (a dotted path, see [`FieldPath`]) of the elements at `indices` to `values`
    /// in their JSON form: one value for all, or one per index. `indices` is ignored for
    /// `header` and `info`.
    pub fn set_json(
        model: &Model,
        target: EditTarget,
        indices: &[usize],
        field: &str,
        values: &[Value],
    ) -> Result<Edit, EditError> {
        let path = parse_field(target, field)?;
        let indices = element_indices(model, target, indices)?;
        let first = indices.first().copied().unwrap_or(0);
        let node = resolve(model, target, first, &path).ok_or_else(|| EditError::NoSuchField {
            target,
            index: first,
            field: path.to_string(),
        })?;
        let values = node.build_set(&SetRequest {
            model,
            target,
            path: &path,
            indices: &indices,
            values,
        })?;
        Ok(field_edit(target, path, values, first))
    }

    /// Sets `field` of the elements at `indices` to `value` (typed: `T` must be the field's type).
    pub fn set<T: FieldType>(
        model: &Model,
        target: EditTarget,
        indices: &[usize],
        field: &str,
        value: T,
    ) -> Result<Edit, EditError> {
        let path = parse_field(target, field)?;
        let indices = element_indices(model, target, indices)?;
        let first = indices.first().copied().unwrap_or(0);
        let values = TypedValues::capture(model, target, &path, &indices, NewValues::Same(value))?;
        Ok(field_edit(target, path, Box::new(values), first))
    }

    /// Sets `field` of each element at `indices` to its own value (typed).
    pub fn set_each<T: FieldType>(
        model: &Model,
        target: EditTarget,
        indices: &[usize],
        field: &str,
        values: Vec<T>,
    ) -> Result<Edit, EditError> {
        let path = parse_field(target, field)?;
        let indices = element_indices(model, target, indices)?;
        if values.len() != indices.len() {
            return Err(EditError::ValueCount {
                values: values.len(),
                indices: indices.len(),
            });
        }
        let first = indices.first().copied().unwrap_or(0);
        let values = TypedValues::capture(model, target, &path, &indices, NewValues::Each(values))?;
        Ok(field_edit(target, path, Box::new(values), first))
    }
}
