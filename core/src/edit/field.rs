//! Field edits: one field of one or many elements, with old and new values in the field's type.

use super::reflect::{FieldType, HeapSize, Reflect};
use super::{Edit, EditError, EditLabel, EditTarget, LabelArg, Touched};
use crate::model::{ElementKind, Model};
use crate::path::{ModelPath, PathHead, PathSyntaxError, Segment, parse_segments, write_segments};
use serde_json::Value;
use std::any::Any;
use std::borrow::Cow;
use std::fmt;

/// A path inside an element, in the grammar of [`crate::path`]: `position`, `ik.links[0].bone`,
/// `weight.bones[1]`, `offsets[3].offset.x`. The empty path is the whole element. For vertices,
/// `additional_uvs[N]` reaches additional UV channel `N` of the vertex.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct FieldPath {
    segments: Vec<Segment>,
}

impl FieldPath {
    /// Parses a field path (the older dotted positions, `links.0`, are read too).
    pub fn parse(text: &str) -> Result<Self, PathSyntaxError> {
        parse_segments(text.trim(), true).map(Self::from_segments)
    }

    #[must_use]
    pub fn from_segments(segments: Vec<Segment>) -> Self {
        Self { segments }
    }

    /// The whole element.
    #[must_use]
    pub fn whole() -> Self {
        Self::default()
    }

    #[must_use]
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    #[must_use]
    pub fn is_whole(&self) -> bool {
        self.segments.is_empty()
    }

    /// This path with a field step added.
    #[must_use]
    pub fn field(mut self, name: &'static str) -> Self {
        self.segments.push(Segment::Field(Cow::Borrowed(name)));
        self
    }

    /// This path with a list step added.
    #[must_use]
    pub fn index(mut self, index: usize) -> Self {
        self.segments.push(Segment::Index(index));
        self
    }

    fn heap_size(&self) -> usize {
        self.segments.capacity() * std::mem::size_of::<Segment>()
            + self.segments.iter().map(Segment::heap_size).sum::<usize>()
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_segments(f, &self.segments, true)
    }
}

fn parse_field(target: EditTarget, field: &str) -> Result<FieldPath, EditError> {
    FieldPath::parse(field).map_err(|error| EditError::BadPath {
        target,
        message: error.to_string(),
    })
}

/// The node an element path starts from, and how many path segments that used.
fn root<'a>(
    model: &'a Model,
    target: EditTarget,
    index: usize,
    segments: &[Segment],
) -> Option<(&'a dyn Reflect, usize)> {
    let first = segments.first().and_then(Segment::name);
    Some(match target {
        EditTarget::Header => (&model.header, 0),
        EditTarget::Info => (&model.info, 0),
        EditTarget::Vertex if first == Some("additional_uvs") => {
            let channel = segments.get(1)?.index()?;
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
    segments: &[Segment],
) -> Option<(&'a mut dyn Reflect, usize)> {
    let first = segments.first().and_then(Segment::name);
    Some(match target {
        EditTarget::Header => (&mut model.header, 0),
        EditTarget::Info => (&mut model.info, 0),
        EditTarget::Vertex if first == Some("additional_uvs") => {
            let channel = segments.get(1)?.index()?;
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
pub(crate) enum NewValues<T> {
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
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// Takes `other`'s new values, if it sets the same elements in the same type (a later step of
    /// the same gesture). They are moved, not copied: `other` is left with these values' old
    /// new ones.
    fn take_new_from(&mut self, other: &mut dyn FieldValues) -> bool;
}

impl<T: FieldType> TypedValues<T> {
    /// New values without the old ones: only for an edit that merges into the step of its
    /// gesture, which has them ([`crate::edit::History::continue_gesture`]).
    pub(crate) fn new_only(indices: &[usize], new: NewValues<T>) -> Self {
        Self {
            indices: indices
                .iter()
                .map(|&i| u32::try_from(i).unwrap_or(u32::MAX))
                .collect(),
            old: Vec::new(),
            new,
        }
    }

    pub(crate) fn capture(
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

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn take_new_from(&mut self, other: &mut dyn FieldValues) -> bool {
        match other.as_any_mut().downcast_mut::<TypedValues<T>>() {
            Some(other) if other.indices == self.indices => {
                std::mem::swap(&mut self.new, &mut other.new);
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
        touched.vertex_positions_only = self.target == EditTarget::Vertex
            && self.path.segments().first().and_then(Segment::name) == Some("position");
        touched
    }

    pub fn heap_size(&self) -> usize {
        self.path.heap_size() + self.values.heap_size()
    }

    /// Takes over `other`'s new values if it edits the same field of the same elements.
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
