//! Field edits: one field of one or many elements, with old and new values in the field's type.

use super::reflect::{FieldType, HeapSize, Reflect};
use super::{Edit, EditError, EditLabel, EditTarget, LabelArg, Touched};
use crate::model::Model;
use serde_json::Value;
use std::any::Any;
use std::fmt;

/// A dotted path into an element's JSON form: `position`, `ik.links.0.bone`, `weight.bones.1`,
/// `offsets.3.offset.x`. The empty path is the whole element. For vertices,
/// `additional_uvs.N` reaches additional UV channel `N` of the vertex.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FieldPath {
    text: String,
    segments: Vec<String>,
}

impl FieldPath {
    #[must_use]
    pub fn parse(text: &str) -> Self {
        let text = text.trim();
        let segments = if text.is_empty() {
            Vec::new()
        } else {
            text.split('.').map(str::to_owned).collect()
        };
        Self {
            text: text.to_owned(),
            segments,
        }
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    #[must_use]
    pub fn is_whole(&self) -> bool {
        self.segments.is_empty()
    }

    fn heap_size(&self) -> usize {
        self.text.capacity()
            + self.segments.capacity() * std::mem::size_of::<String>()
            + self.segments.iter().map(String::capacity).sum::<usize>()
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// The node an element path starts from, and how many path segments that used.
fn root<'a>(
    model: &'a Model,
    target: EditTarget,
    index: usize,
    segments: &[String],
) -> Option<(&'a dyn Reflect, usize)> {
    let first = segments.first().map(String::as_str);
    Some(match target {
        EditTarget::Header => (&model.header, 0),
        EditTarget::Info => (&model.info, 0),
        EditTarget::Vertex if first == Some("additional_uvs") => {
            let channel: usize = segments.get(1)?.parse().ok()?;
            (model.additional_uvs.get(channel)?.get(index)?, 2)
        }
        EditTarget::Vertex => (model.vertices.get(index)?, 0),
        EditTarget::Face => (model.faces.get(index)?, 0),
        EditTarget::Texture => (
            model.textures.get(index)?,
            usize::from(first == Some("path")),
        ),
        EditTarget::Material => (model.materials.get(index)?, 0),
        EditTarget::Bone => (model.bones.get(index)?, 0),
        EditTarget::Morph => (model.morphs.get(index)?, 0),
        EditTarget::DisplayFrame => (model.display_frames.get(index)?, 0),
        EditTarget::RigidBody => (model.rigid_bodies.get(index)?, 0),
        EditTarget::Joint => (model.joints.get(index)?, 0),
        EditTarget::SoftBody => (model.soft_bodies.get(index)?, 0),
    })
}

fn root_mut<'a>(
    model: &'a mut Model,
    target: EditTarget,
    index: usize,
    segments: &[String],
) -> Option<(&'a mut dyn Reflect, usize)> {
    let first = segments.first().map(String::as_str);
    Some(match target {
        EditTarget::Header => (&mut model.header, 0),
        EditTarget::Info => (&mut model.info, 0),
        EditTarget::Vertex if first == Some("additional_uvs") => {
            let channel: usize = segments.get(1)?.parse().ok()?;
            (model.additional_uvs.get_mut(channel)?.get_mut(index)?, 2)
        }
        EditTarget::Vertex => (model.vertices.get_mut(index)?, 0),
        EditTarget::Face => (model.faces.get_mut(index)?, 0),
        EditTarget::Texture => (
            model.textures.get_mut(index)?,
            usize::from(first == Some("path")),
        ),
        EditTarget::Material => (model.materials.get_mut(index)?, 0),
        EditTarget::Bone => (model.bones.get_mut(index)?, 0),
        EditTarget::Morph => (model.morphs.get_mut(index)?, 0),
        EditTarget::DisplayFrame => (model.display_frames.get_mut(index)?, 0),
        EditTarget::RigidBody => (model.rigid_bodies.get_mut(index)?, 0),
        EditTarget::Joint => (model.joints.get_mut(index)?, 0),
        EditTarget::SoftBody => (model.soft_bodies.get_mut(index)?, 0),
    })
}

pub(crate) fn resolve<'a>(
    model: &'a Model,
    target: EditTarget,
    index: usize,
    path: &FieldPath,
) -> Option<&'a dyn Reflect> {
    let (mut node, used) = root(model, target, index, &path.segments)?;
    for segment in path.segments.get(used..)? {
        node = node.child(segment)?;
    }
    Some(node)
}

fn resolve_mut<'a>(
    model: &'a mut Model,
    target: EditTarget,
    index: usize,
    path: &FieldPath,
) -> Option<&'a mut dyn Reflect> {
    let (mut node, used) = root_mut(model, target, index, &path.segments)?;
    for segment in path.segments.get(used..)? {
        node = node.child_mut(segment)?;
    }
    Some(node)
}

/// The value of one field in its JSON form (`field` as in a set edit).
pub fn get_field(
    model: &Model,
    target: EditTarget,
    index: usize,
    field: &str,
) -> Result<Value, EditError> {
    let path = FieldPath::parse(field);
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

fn check_index(model: &Model, target: EditTarget, index: usize) -> Result<(), EditError> {
    let len = target.count(model);
    if index >= len {
        return Err(EditError::IndexOutOfRange {
            kind: target.name(),
            index,
            len,
        });
    }
    Ok(())
}

/// What a field edit is asked to do: built into typed values by the field's own type.
#[derive(Debug)]
pub struct SetRequest<'a> {
    pub(crate) model: &'a Model,
    pub(crate) target: EditTarget,
    pub(crate) path: &'a FieldPath,
    pub(crate) indices: &'a [usize],
    pub(crate) values: &'a [Value],
}

/// The new values of a field edit: one for all elements, or one each.
#[derive(Debug, Clone, PartialEq)]
enum NewValues<T> {
    Same(T),
    Each(Vec<T>),
}

/// Old and new values of one field over a list of elements.
#[derive(Debug)]
pub(crate) struct TypedValues<T> {
    indices: Vec<u32>,
    old: Vec<T>,
    new: NewValues<T>,
}

/// Type-erased [`TypedValues`].
pub trait FieldValues: fmt::Debug + Send + Sync {
    /// Writes the new (`true`) or the old values into the model.
    fn write(&self, model: &mut Model, target: EditTarget, path: &FieldPath, new: bool);
    fn indices(&self) -> &[u32];
    fn heap_size(&self) -> usize;
    fn as_any(&self) -> &dyn Any;
    /// Takes `other`'s new values, if it sets the same elements in the same type (a later step of
    /// the same gesture).
    fn take_new_from(&mut self, other: &dyn FieldValues) -> bool;
}

impl<T: FieldType> TypedValues<T> {
    fn capture(
        model: &Model,
        target: EditTarget,
        path: &FieldPath,
        indices: &[usize],
        new: NewValues<T>,
    ) -> Result<Self, EditError> {
        let mut old = Vec::with_capacity(indices.len());
        let mut stored_indices = Vec::with_capacity(indices.len());
        for &index in indices {
            check_index(model, target, index)?;
            let node =
                resolve(model, target, index, path).ok_or_else(|| EditError::NoSuchField {
                    target,
                    index,
                    field: path.to_string(),
                })?;
            let value =
                node.as_any()
                    .downcast_ref::<T>()
                    .ok_or_else(|| EditError::FieldTypeMismatch {
                        target,
                        index,
                        field: path.to_string(),
                    })?;
            old.push(value.clone());
            stored_indices.push(
                u32::try_from(index).map_err(|_| EditError::IndexOutOfRange {
                    kind: target.name(),
                    index,
                    len: target.count(model),
                })?,
            );
        }
        Ok(Self {
            indices: stored_indices,
            old,
            new,
        })
    }
}

impl<T: FieldType> FieldValues for TypedValues<T> {
    fn write(&self, model: &mut Model, target: EditTarget, path: &FieldPath, new: bool) {
        let mut put = |index: u32, value: &T| {
            if let Some(node) = resolve_mut(model, target, index as usize, path)
                && let Some(slot) = node.as_any_mut().downcast_mut::<T>()
            {
                slot.clone_from(value);
            }
        };
        match (&self.new, new) {
            (NewValues::Same(value), true) => {
                for &index in &self.indices {
                    put(index, value);
                }
            }
            (NewValues::Each(values), true) => {
                for (&index, value) in self.indices.iter().zip(values) {
                    put(index, value);
                }
            }
            (_, false) => {
                for (&index, value) in self.indices.iter().zip(&self.old) {
                    put(index, value);
                }
            }
        }
    }

    fn indices(&self) -> &[u32] {
        &self.indices
    }

    fn heap_size(&self) -> usize {
        let new = match &self.new {
            NewValues::Same(value) => value.heap_size(),
            NewValues::Each(values) => values.heap_size(),
        };
        self.indices.capacity() * 4 + self.old.heap_size() + new
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn take_new_from(&mut self, other: &dyn FieldValues) -> bool {
        match other.as_any().downcast_ref::<TypedValues<T>>() {
            Some(other) if other.indices == self.indices => {
                self.new = other.new.clone();
                true
            }
            _ => false,
        }
    }
}

pub(crate) fn build_values<T: FieldType>(
    request: &SetRequest<'_>,
) -> Result<Box<dyn FieldValues>, EditError> {
    let parse = |value: &Value| {
        T::from_json(value).map_err(|message| EditError::InvalidValue {
            target: request.target,
            field: request.path.to_string(),
            message,
        })
    };
    let new = match request.values {
        [one] => NewValues::Same(parse(one)?),
        many if many.len() == request.indices.len() => {
            NewValues::Each(many.iter().map(parse).collect::<Result<_, _>>()?)
        }
        many => {
            return Err(EditError::ValueCount {
                values: many.len(),
                indices: request.indices.len(),
            });
        }
    };
    let values = TypedValues::<T>::capture(
        request.model,
        request.target,
        request.path,
        request.indices,
        new,
    )?;
    Ok(Box::new(values))
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
        touched
    }

    pub fn heap_size(&self) -> usize {
        self.path.heap_size() + self.values.heap_size()
    }

    /// Takes over `other`'s new values if it edits the same field of the same elements.
    pub fn merge(&mut self, other: &FieldChange) -> bool {
        self.target == other.target
            && self.path == other.path
            && self.values.take_new_from(other.values.as_ref())
    }
}

fn element_indices(
    model: &Model,
    target: EditTarget,
    indices: &[usize],
) -> Result<Vec<usize>, EditError> {
    if target.is_single() {
        return Ok(vec![0]);
    }
    if indices.is_empty() {
        return Err(EditError::NothingSelected {
            kind: target.name(),
        });
    }
    for &index in indices {
        check_index(model, target, index)?;
    }
    Ok(indices.to_vec())
}

fn set_label(target: EditTarget, path: &FieldPath, count: usize, first: usize) -> EditLabel {
    let field = || LabelArg::Field(path.to_string());
    if target.is_single() {
        let label = if path.is_whole() {
            EditLabel::new("edit.set_whole")
        } else {
            EditLabel::new("edit.set_single_field").arg("field", field())
        };
        return label.arg("target", LabelArg::Noun(target.name()));
    }
    // Renaming reads as PmxEditor's 名前の変更, not as setting `name_ja`.
    let rename = path.to_string() == "name_ja";
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

fn field_edit(
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
        let path = FieldPath::parse(field);
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
        let path = FieldPath::parse(field);
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
        let path = FieldPath::parse(field);
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
