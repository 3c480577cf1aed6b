//! Typed field edits: what the editor's panels, its gizmo and its pose pane send.
//!
//! A [`Field<E, T>`] is a handle on a field of type `T` inside an element of type `E`, built
//! from the same description as `Reflect` (the struct listings in `reflect.rs`): the handle
//! `field::<Bone>().ik().links().at(1).limits().some().lower()` has type
//! `Field<Bone, Vec3>`, so renaming a model field or changing its type breaks the build where
//! a panel uses it, and a value of the wrong type cannot be sent. The handle's path is the one
//! path grammar (`ik.links[1].limits.lower`, [`crate::path`]).
//!
//! A [`SetField`] is a request to set that field of some elements: to one value, or each to
//! its own (a gizmo drag sends its vertices' new positions as a `Vec<Vec3>`, no JSON). It
//! becomes an undoable [`Edit`] on the model it is applied to, with the values moved, not
//! copied.

use super::field::field_edit;
pub use super::handle::Field;
use super::reflect::{FieldType, FieldValues};
use super::reflect::{NewValues, TypedValues};
use super::{Edit, EditError, EditLabel, EditTarget, Sequence};
use crate::model::*;
use crate::path::FieldPath;
use std::any::Any;
use std::fmt;

/// An element type fields start from, and the list (or single part) of the model it is in.
pub trait Element: FieldType {
    const TARGET: EditTarget;
}

macro_rules! element {
    ($($ty:ty => $target:ident),* $(,)?) => {$(
        impl Element for $ty {
            const TARGET: EditTarget = EditTarget::$target;
        }
    )*};
}

element!(
    Header => Header,
    ModelInfo => Info,
    Vertex => Vertex,
    Face => Face,
    Text => Texture,
    Material => Material,
    Bone => Bone,
    Morph => Morph,
    DisplayFrame => DisplayFrame,
    RigidBody => RigidBody,
    Joint => Joint,
    SoftBody => SoftBody,
);

impl<E: Element, T: FieldType> Field<E, T> {
    /// The field's value in element `index` of `model` (`None`: no such element, or the path
    /// goes through an empty option or a list too short).
    #[must_use]
    pub fn get<'a>(&self, model: &'a Model, index: usize) -> Option<&'a T> {
        super::reflect::resolve(model, E::TARGET, index, &self.path)?
            .as_any()
            .downcast_ref::<T>()
    }
}

impl<E, T> Field<E, Vec<T>> {
    /// The list entry at `index`.
    #[must_use]
    pub fn at(self, index: usize) -> Field<E, T> {
        self.nth(index)
    }
}

impl<E, T, const N: usize> Field<E, [T; N]> {
    /// The array entry at `index`.
    #[must_use]
    pub fn at(self, index: usize) -> Field<E, T> {
        self.nth(index)
    }
}

impl<E, T> Field<E, Option<T>> {
    /// The value inside, to reach its fields (`limits().some().lower()`; the path is the
    /// same). An edit through it needs the option to be set; the option itself is set through
    /// its own handle (`limits()`, with `Some(..)` or `None`).
    #[must_use]
    pub fn some(self) -> Field<E, T> {
        self.retyped()
    }
}

/// The model's float vectors, component by component.
pub trait Vector: FieldType + Copy {
    /// Component names in order (`x`, `y`, `z`, `w`).
    const COMPONENTS: &'static [&'static str];
    fn component(&self, index: usize) -> Option<f32>;
    /// A copy with component `index` set to `value` (other indices: unchanged).
    #[must_use]
    fn with_component(self, index: usize, value: f32) -> Self;
}

macro_rules! vector {
    ($ty:ident, $($field:ident),+) => {
        impl Vector for $ty {
            const COMPONENTS: &'static [&'static str] = &[$(stringify!($field)),+];
            fn component(&self, index: usize) -> Option<f32> {
                [$(self.$field),+].get(index).copied()
            }
            fn with_component(mut self, index: usize, value: f32) -> Self {
                let mut slots = [$(&mut self.$field),+];
                if let Some(slot) = slots.get_mut(index) {
                    **slot = value;
                }
                self
            }
        }
    };
}

vector!(Vec2, x, y);
vector!(Vec3, x, y, z);
vector!(Vec4, x, y, z, w);

impl<E, V: Vector> Field<E, V> {
    /// Component `index` (`position.y` for 1), if the vector has it.
    #[must_use]
    pub fn component(self, index: usize) -> Option<Field<E, f32>> {
        V::COMPONENTS.get(index).map(|name| self.step(name))
    }
}

/// Offsets by position, in the morph's kind (an edit checks the kind: a handle of another
/// kind's offset is a type mismatch, not a silent write).
impl<E> Field<E, MorphOffsets> {
    #[must_use]
    pub fn vertex(self, index: usize) -> Field<E, VertexMorphOffset> {
        self.nth(index)
    }
    /// UV and additional UV offsets.
    #[must_use]
    pub fn uv(self, index: usize) -> Field<E, UvMorphOffset> {
        self.nth(index)
    }
    #[must_use]
    pub fn bone(self, index: usize) -> Field<E, BoneMorphOffset> {
        self.nth(index)
    }
    #[must_use]
    pub fn material(self, index: usize) -> Field<E, MaterialMorphOffset> {
        self.nth(index)
    }
    /// Group and flip offsets.
    #[must_use]
    pub fn group(self, index: usize) -> Field<E, GroupMorphOffset> {
        self.nth(index)
    }
    #[must_use]
    pub fn impulse(self, index: usize) -> Field<E, ImpulseMorphOffset> {
        self.nth(index)
    }
}

impl<E> Field<E, Vertex> {
    /// Additional UV channel `channel` of the vertex (`additional_uvs[channel]`: the model
    /// keeps them beside the vertices).
    #[must_use]
    pub fn additional_uv(self, channel: usize) -> Field<E, Vec4> {
        self.step::<Vec<Vec4>>("additional_uvs").nth(channel)
    }
}

/// A weight's fields, by its kind: a handle of a field the vertex's weight kind lacks does not
/// resolve, and its edit fails (nothing is written).
impl<E> Field<E, Weight> {
    /// BDEF1's bone.
    #[must_use]
    pub fn bone(self) -> Field<E, Option<BoneIdx>> {
        self.step("bone")
    }
    /// Bone `slot` of BDEF2/SDEF (0, 1) or BDEF4/QDEF (0 to 3).
    #[must_use]
    pub fn bones(self, slot: usize) -> Field<E, Option<BoneIdx>> {
        self.step::<Vec<Option<BoneIdx>>>("bones").nth(slot)
    }
    /// BDEF2/SDEF's weight of bone 0.
    #[must_use]
    pub fn weight(self) -> Field<E, f32> {
        self.step("weight")
    }
    /// BDEF4/QDEF's weight of bone `slot`.
    #[must_use]
    pub fn weights(self, slot: usize) -> Field<E, f32> {
        self.step::<Vec<f32>>("weights").nth(slot)
    }
    /// SDEF's C.
    #[must_use]
    pub fn c(self) -> Field<E, Vec3> {
        self.step("c")
    }
    #[must_use]
    pub fn r0(self) -> Field<E, Vec3> {
        self.step("r0")
    }
    #[must_use]
    pub fn r1(self) -> Field<E, Vec3> {
        self.step("r1")
    }
}

/// The root handle of an element type: `field::<Bone>().position()`.
#[must_use]
pub fn field<E>() -> Field<E, E> {
    Field::root()
}

/// New values of a typed request, type-erased so requests of any field type share one type.
trait AnyNewValues: fmt::Debug + Send + Sync {
    fn clone_box(&self) -> Box<dyn AnyNewValues>;
    fn same_as(&self, other: &dyn AnyNewValues) -> bool;
    fn as_any(&self) -> &dyn Any;
    fn count(&self) -> Option<usize>;
    /// Whether `values` (a recorded field edit's) have these values' type.
    fn same_type_as(&self, values: &dyn FieldValues) -> bool;
    fn into_continuation(
        self: Box<Self>,
        target: EditTarget,
        path: FieldPath,
        indices: &[usize],
    ) -> Edit;
    fn into_edit(
        self: Box<Self>,
        model: &Model,
        target: EditTarget,
        path: FieldPath,
        indices: Vec<usize>,
    ) -> Result<Edit, EditError>;
    fn into_any(self: Box<Self>) -> Box<dyn Any>;
    /// Appends `other`'s values (of the same type) for `other_count` more elements after
    /// `own_count` of these; gives `other` back when its type differs.
    fn absorb(
        &mut self,
        own_count: usize,
        other: Box<dyn AnyNewValues>,
        other_count: usize,
    ) -> Result<(), Box<dyn AnyNewValues>>;
}

impl<T: FieldType> AnyNewValues for NewValues<T> {
    fn clone_box(&self) -> Box<dyn AnyNewValues> {
        Box::new(self.clone())
    }

    fn same_as(&self, other: &dyn AnyNewValues) -> bool {
        other.as_any().downcast_ref::<Self>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn count(&self) -> Option<usize> {
        match self {
            NewValues::Same(_) => None,
            NewValues::Each(values) => Some(values.len()),
        }
    }

    fn same_type_as(&self, values: &dyn FieldValues) -> bool {
        values.as_any().is::<TypedValues<T>>()
    }

    fn into_continuation(
        self: Box<Self>,
        target: EditTarget,
        path: FieldPath,
        indices: &[usize],
    ) -> Edit {
        let first = indices.first().copied().unwrap_or(0);
        let values = TypedValues::new_only(indices, *self);
        field_edit(target, path, Box::new(values), first)
    }

    fn into_edit(
        self: Box<Self>,
        model: &Model,
        target: EditTarget,
        path: FieldPath,
        indices: Vec<usize>,
    ) -> Result<Edit, EditError> {
        let indices = super::field::owned_element_indices(model, target, indices)?;
        let first = indices.first().copied().unwrap_or(0);
        let values = TypedValues::capture(model, target, &path, &indices, *self)?;
        Ok(field_edit(target, path, Box::new(values), first))
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }

    fn absorb(
        &mut self,
        own_count: usize,
        other: Box<dyn AnyNewValues>,
        other_count: usize,
    ) -> Result<(), Box<dyn AnyNewValues>> {
        if !other.as_any().is::<Self>() {
            return Err(other);
        }
        let Ok(other) = other.into_any().downcast::<Self>() else {
            // Checked just above; nothing is lost either way.
            return Ok(());
        };
        match (&mut *self, *other) {
            (NewValues::Same(mine), NewValues::Same(theirs)) if *mine == theirs => {}
            (NewValues::Each(mine), NewValues::Same(theirs)) => {
                mine.extend(std::iter::repeat_n(theirs, other_count));
            }
            (NewValues::Each(mine), NewValues::Each(theirs)) => mine.extend(theirs),
            (NewValues::Same(mine), theirs) => {
                let mut all = vec![mine.clone(); own_count];
                match theirs {
                    NewValues::Same(value) => all.extend(std::iter::repeat_n(value, other_count)),
                    NewValues::Each(values) => all.extend(values),
                }
                *self = NewValues::Each(all);
            }
        }
        Ok(())
    }
}

/// A request to set one typed field of some elements (one value for all, or one each).
pub struct SetField {
    target: EditTarget,
    path: FieldPath,
    indices: Vec<usize>,
    values: Box<dyn AnyNewValues>,
}

impl SetField {
    /// Sets `field` of the elements at `indices` (ignored for header and info) to `value`.
    #[must_use]
    pub fn new<E: Element, T: FieldType>(
        field: Field<E, T>,
        indices: Vec<usize>,
        value: T,
    ) -> Self {
        Self {
            target: E::TARGET,
            path: field.path,
            indices,
            values: Box::new(NewValues::Same(value)),
        }
    }

    /// Sets `field` of each element at `indices` to its own entry of `values`.
    #[must_use]
    pub fn each<E: Element, T: FieldType>(
        field: Field<E, T>,
        indices: Vec<usize>,
        values: Vec<T>,
    ) -> Self {
        Self {
            target: E::TARGET,
            path: field.path,
            indices,
            values: Box::new(NewValues::Each(values)),
        }
    }

    #[must_use]
    pub fn target(&self) -> EditTarget {
        self.target
    }

    #[must_use]
    pub fn path(&self) -> &FieldPath {
        &self.path
    }

    #[must_use]
    pub fn indices(&self) -> &[usize] {
        &self.indices
    }

    /// Whether `values` (a recorded field edit's) have this request's value type: then the
    /// step can take this request's values.
    pub(crate) fn same_type_as(&self, values: &dyn FieldValues) -> bool {
        self.values.same_type_as(values)
    }

    /// An edit with the new values only, for [`History::continue_gesture`](super::History::continue_gesture):
    /// it exists only to merge into the gesture's step, which keeps the old values and was
    /// built, with the same field, type and elements, on the model as it still is.
    pub(crate) fn into_continuation(self) -> Result<Edit, SetField> {
        if self
            .values
            .count()
            .is_some_and(|count| count != self.indices.len())
        {
            return Err(self);
        }
        Ok(self
            .values
            .into_continuation(self.target, self.path, &self.indices))
    }

    /// The undoable edit on `model` (checked there: indices, the path, the field's type).
    pub fn into_edit(self, model: &Model) -> Result<Edit, EditError> {
        if let Some(count) = self.values.count()
            && count != self.indices.len()
        {
            return Err(EditError::ValueCount {
                values: count,
                indices: self.indices.len(),
            });
        }
        self.values
            .into_edit(model, self.target, self.path, self.indices)
    }
}

impl SetField {
    /// Adds `other`'s elements and values to this request when it sets the same field of the
    /// same kind with values of the same type (a fix of many findings becomes one set); gives
    /// `other` back otherwise. The caller keeps the indices distinct.
    pub fn absorb(&mut self, other: SetField) -> Result<(), SetField> {
        if self.target != other.target || self.path != other.path {
            return Err(other);
        }
        let own_count = self.indices.len();
        let other_count = other.indices.len();
        let SetField {
            target,
            path,
            indices,
            values,
        } = other;
        match self.values.absorb(own_count, values, other_count) {
            Ok(()) => {
                self.indices.extend(indices);
                Ok(())
            }
            Err(values) => Err(SetField {
                target,
                path,
                indices,
                values,
            }),
        }
    }

    /// Several sets as one undo step named `label` (a single set keeps its own label), each
    /// built on the model as the previous ones leave it. `model` is unchanged afterwards.
    pub fn batch_into_edit(
        sets: Vec<SetField>,
        model: &mut Model,
        label: EditLabel,
    ) -> Result<Edit, EditError> {
        let mut sequence = Sequence::new(model);
        for set in sets {
            let edit = set.into_edit(sequence.model())?;
            sequence.push(edit);
        }
        Ok(sequence.finish_flat(label))
    }
}

impl Clone for SetField {
    fn clone(&self) -> Self {
        Self {
            target: self.target,
            path: self.path.clone(),
            indices: self.indices.clone(),
            values: self.values.clone_box(),
        }
    }
}

impl PartialEq for SetField {
    fn eq(&self, other: &Self) -> bool {
        self.target == other.target
            && self.path == other.path
            && self.indices == other.indices
            && self.values.same_as(other.values.as_ref())
    }
}

impl fmt::Debug for SetField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SetField")
            .field("target", &self.target)
            .field("path", &self.path.to_string())
            .field("indices", &self.indices.len())
            .finish_non_exhaustive()
    }
}

impl Edit {
    /// Sets a typed field of the elements at `indices` to `value`.
    pub fn set_field<E: Element, T: FieldType>(
        model: &Model,
        indices: &[usize],
        field: Field<E, T>,
        value: T,
    ) -> Result<Edit, EditError> {
        SetField::new(field, indices.to_vec(), value).into_edit(model)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::edit::History;
    use crate::generate::feature_model;

    #[test]
    fn handles_name_paths_in_the_grammar() {
        let lower = field::<Bone>().ik().links().at(1).limits().some().lower();
        assert_eq!(lower.field_path().to_string(), "ik.links[1].limits.lower");
        assert_eq!(
            field::<Vertex>().position().y().field_path().to_string(),
            "position.y"
        );
        assert_eq!(
            field::<Morph>()
                .offsets()
                .vertex(3)
                .offset()
                .field_path()
                .to_string(),
            "offsets[3].offset"
        );
        assert_eq!(field::<Face>().at(2).field_path().to_string(), "[2]");
    }

    #[test]
    fn typed_sets_are_undoable_and_checked() {
        let original = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 20, 4);
        let mut model = original.clone();
        let positions = vec![Vec3::new(1.0, 2.0, 3.0), Vec3::new(4.0, 5.0, 6.0)];
        let request = SetField::each(field::<Vertex>().position(), vec![0, 2], positions);
        assert_eq!(request.clone(), request);
        let edit = request.into_edit(&model).unwrap();
        let mut history = History::new();
        history.apply(&mut model, edit);
        assert_eq!(model.vertices[0].position, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(model.vertices[2].position, Vec3::new(4.0, 5.0, 6.0));
        assert_eq!(field::<Vertex>().position().x().get(&model, 2), Some(&4.0));
        history.undo(&mut model);
        assert_eq!(model, original);

        // Checked on the model: an element out of range, values that do not match.
        assert!(matches!(
            Edit::set_field(&model, &[9999], field::<Bone>().layer(), 2),
            Err(EditError::IndexOutOfRange { .. })
        ));
        assert!(matches!(
            SetField::each(field::<Bone>().layer(), vec![0, 1], vec![1]).into_edit(&model),
            Err(EditError::ValueCount { .. })
        ));
        // A bone without IK has no link 0: the path does not resolve.
        let no_ik = model
            .bones
            .iter()
            .position(|b| b.ik.links.is_empty())
            .unwrap();
        assert!(
            Edit::set_field(
                &model,
                &[no_ik],
                field::<Bone>().ik().links().at(0).bone(),
                None
            )
            .is_err()
        );
    }

    #[test]
    fn a_gesture_continues_without_reading_old_values_and_undoes_to_its_start() {
        let original = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 20, 4);
        let mut model = original.clone();
        let mut history = History::new();
        let gesture = history.new_gesture();
        let indices = vec![0, 1, 2];
        let frame = |dx: f32| {
            SetField::each(
                field::<Vertex>().position(),
                indices.clone(),
                indices
                    .iter()
                    .map(|&i| {
                        let p = original.vertices[i].position;
                        Vec3::new(p.x + dx, p.y, p.z)
                    })
                    .collect(),
            )
        };
        // The model is at its saved state: the first frame is not a continuation.
        let first = history
            .continue_gesture(&mut model, gesture, frame(1.0))
            .expect_err("nothing to continue");
        let edit = first.into_edit(&model).unwrap().in_gesture(gesture);
        history.apply(&mut model, edit);
        for dx in [2.0, 3.0, 4.0] {
            history
                .continue_gesture(&mut model, gesture, frame(dx))
                .expect("continues the drag");
        }
        assert_eq!(history.len(), 1, "one step for the whole drag");
        assert_eq!(
            model.vertices[1].position.x,
            original.vertices[1].position.x + 4.0
        );
        // Another gesture, or other elements, do not continue it.
        let other = history.new_gesture();
        assert!(
            history
                .continue_gesture(&mut model, other, frame(5.0))
                .is_err()
        );
        let fewer = SetField::new(field::<Vertex>().position(), vec![0], Vec3::ZERO);
        assert!(
            history
                .continue_gesture(&mut model, gesture, fewer)
                .is_err()
        );
        history.undo(&mut model);
        assert_eq!(
            model, original,
            "undo gives back what was there before the drag"
        );
        history.redo(&mut model);
        assert_eq!(
            model.vertices[2].position.x,
            original.vertices[2].position.x + 4.0
        );
    }

    #[test]
    fn absorb_merges_sets_of_one_field_and_type_only() {
        let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 20, 4);
        let x = field::<Vertex>().position().x();
        let mut set = SetField::new(x.clone(), vec![0], 1.0);
        // The same value stays one value; another value turns it into one value each.
        set.absorb(SetField::new(x.clone(), vec![1], 1.0)).unwrap();
        set.absorb(SetField::new(x.clone(), vec![2], 5.0)).unwrap();
        assert_eq!(set.indices(), &[0, 1, 2]);
        // Another field, or another element kind, is given back.
        let other = SetField::new(field::<Vertex>().position().y(), vec![3], 0.0);
        assert_eq!(set.absorb(other.clone()), Err(other));
        let bone = SetField::new(field::<Bone>().position().x(), vec![3], 0.0);
        assert_eq!(set.absorb(bone.clone()), Err(bone));
        let mut history = History::new();
        let edit = set.into_edit(&model).unwrap();
        history.apply(&mut model, edit);
        let xs: Vec<f32> = model.vertices[..3].iter().map(|v| v.position.x).collect();
        assert_eq!(xs, [1.0, 1.0, 5.0]);
    }
}
