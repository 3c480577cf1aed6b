//! The edits one group of semi-standard bones makes, built one after the other on the model as
//! the previous ones leave it (bone indices shift with every insertion, so bones are looked up
//! by name each time), with the lookups the groups share: bones by name, weights, rigid
//! bodies, display frame items.

use glam::Vec3;
use pmx_core::Model;
use pmx_core::edit::{
    Edit, EditError, EditLabel, Elements, Field, FieldType, Sequence, SetField, field,
};
use pmx_core::model::{
    Bone, BoneIdx, DisplayFrame, DisplayItem, RigidBody, Vertex, Weight, facts::ROOT_FRAME,
};

/// Share of a vertex's weight a bone must hold for the vertex to count as that bone's alone
/// (the semi-standard bone plugin's threshold).
pub(super) const DEDICATED: f32 = 0.97;

/// The bone named `name` (Japanese), first of that name.
pub(super) fn bone_named(model: &Model, name: &str) -> Option<usize> {
    model
        .bones
        .iter()
        .position(|bone| bone.name_ja.as_str() == name)
}

/// A bone's position as a glam vector.
pub(super) fn position(model: &Model, bone: usize) -> Vec3 {
    model
        .bones
        .get(bone)
        .map_or(Vec3::ZERO, |bone| Vec3::from(bone.position))
}

/// The share of `vertex`'s weight on `bone` (0 when the weights sum to nothing).
pub(super) fn share(weight: &Weight, bone: usize) -> f32 {
    let (mut on_bone, mut total) = (0.0f32, 0.0f32);
    for (slot, amount) in weight.bone_weights() {
        if slot.map(BoneIdx::get) == Some(bone) {
            on_bone += amount;
        }
        total += amount;
    }
    if total > 0.0 { on_bone / total } else { 0.0 }
}

/// Whether any slot of `weight` names `bone`.
pub(super) fn contains(weight: &Weight, bone: usize) -> bool {
    weight
        .bones()
        .iter()
        .any(|slot| slot.map(BoneIdx::get) == Some(bone))
}

/// `weight` with every slot naming `from` naming `to` instead (`None` when none did).
pub(super) fn replaced(weight: &Weight, from: usize, to: usize) -> Option<Weight> {
    if !contains(weight, from) {
        return None;
    }
    let mut new = weight.clone();
    for slot in new.bones_mut() {
        if slot.map(BoneIdx::get) == Some(from) {
            *slot = Some(BoneIdx::new(to));
        }
    }
    Some(new)
}

/// BDEF2 with `weight` on `first` and the rest on `second`.
pub(super) fn bdef2(first: usize, second: usize, weight: f32) -> Weight {
    Weight::Bdef2 {
        bones: [Some(BoneIdx::new(first)), Some(BoneIdx::new(second))],
        weight,
    }
}

/// A new bone with the plugin's defaults: no flags but the given ones, no tail, no append.
pub(super) fn new_bone(
    name_ja: &str,
    name_en: &str,
    position: Vec3,
    parent: Option<usize>,
) -> Bone {
    Bone {
        name_ja: name_ja.into(),
        name_en: name_en.into(),
        position: position.into(),
        parent: parent.map(BoneIdx::new),
        flags: pmx_core::model::BoneFlags::empty(),
        ..Bone::default()
    }
}

/// The edits of one group, applied as they are built (see [`Sequence`]).
pub(super) struct Work<'m> {
    sequence: Sequence<'m>,
}

impl<'m> Work<'m> {
    pub(super) fn new(model: &'m mut Model) -> Self {
        Self {
            sequence: Sequence::new(model),
        }
    }

    pub(super) fn model(&self) -> &Model {
        self.sequence.model()
    }

    /// The edits as one step named `what`; the model is as it was before.
    pub(super) fn finish(self, what: &str) -> Edit {
        self.sequence.finish(EditLabel::text(what))
    }

    pub(super) fn bone(&self, name: &str) -> Option<usize> {
        bone_named(self.model(), name)
    }

    pub(super) fn position(&self, bone: usize) -> Vec3 {
        position(self.model(), bone)
    }

    fn push(&mut self, edit: Edit) {
        self.sequence.push(edit);
    }

    /// Inserts `bone` at `at` and returns its index. Its references are indices of the model
    /// as it is now (the ones at or after `at` are shifted here).
    pub(super) fn insert_bone(&mut self, at: usize, mut bone: Bone) -> Result<usize, EditError> {
        let at = at.min(self.model().bones.len());
        let shift = |index: Option<BoneIdx>| {
            index.map(|i| {
                if i.get() >= at {
                    BoneIdx::new(i.get() + 1)
                } else {
                    i
                }
            })
        };
        bone.parent = shift(bone.parent);
        bone.tail_bone = shift(bone.tail_bone);
        bone.append_parent = shift(bone.append_parent);
        let edit = Edit::insert(self.model(), at, Elements::Bones(vec![bone]))?;
        self.push(edit);
        Ok(at)
    }

    /// Sets `field` of `bone` to `value`.
    pub(super) fn set<T: FieldType>(
        &mut self,
        handle: Field<Bone, T>,
        bone: usize,
        value: T,
    ) -> Result<(), EditError> {
        let edit = SetField::new(handle, vec![bone], value).into_edit(self.model())?;
        self.push(edit);
        Ok(())
    }

    /// Makes `parent` the parent of `bones` (nothing when the list is empty).
    pub(super) fn set_parents(
        &mut self,
        bones: Vec<usize>,
        parent: usize,
    ) -> Result<(), EditError> {
        if bones.is_empty() {
            return Ok(());
        }
        let edit = SetField::new(field::<Bone>().parent(), bones, Some(BoneIdx::new(parent)))
            .into_edit(self.model())?;
        self.push(edit);
        Ok(())
    }

    /// The bones whose parent is `parent`.
    pub(super) fn children(&self, parent: usize) -> Vec<usize> {
        self.model()
            .bones
            .iter()
            .enumerate()
            .filter(|(_, bone)| bone.parent.map(BoneIdx::get) == Some(parent))
            .map(|(index, _)| index)
            .collect()
    }

    /// New weights for some vertices, in one set.
    pub(super) fn set_weights(&mut self, changes: Vec<(usize, Weight)>) -> Result<(), EditError> {
        if changes.is_empty() {
            return Ok(());
        }
        let (indices, weights): (Vec<usize>, Vec<Weight>) = changes.into_iter().unzip();
        let edit =
            SetField::each(field::<Vertex>().weight(), indices, weights).into_edit(self.model())?;
        self.push(edit);
        Ok(())
    }

    /// Rigid bodies on `from` follow `to` instead.
    pub(super) fn move_bodies(&mut self, from: usize, to: usize) -> Result<(), EditError> {
        let bodies: Vec<usize> = self
            .model()
            .rigid_bodies
            .iter()
            .enumerate()
            .filter(|(_, body)| body.bone.map(BoneIdx::get) == Some(from))
            .map(|(index, _)| index)
            .collect();
        if bodies.is_empty() {
            return Ok(());
        }
        let edit = SetField::new(field::<RigidBody>().bone(), bodies, Some(BoneIdx::new(to)))
            .into_edit(self.model())?;
        self.push(edit);
        Ok(())
    }

    /// The special Root frame.
    pub(super) fn root_frame(&self) -> Option<usize> {
        self.model().intended_special_frame(ROOT_FRAME)
    }

    /// Where `bone` is listed outside the Root frame: (frame, position in it).
    pub(super) fn listed_at(&self, bone: usize) -> Option<(usize, usize)> {
        let root = self.root_frame();
        self.model()
            .display_frames
            .iter()
            .enumerate()
            .filter(|(index, _)| Some(*index) != root)
            .find_map(|(index, frame)| {
                frame
                    .items
                    .iter()
                    .position(|item| *item == DisplayItem::Bone(Some(BoneIdx::new(bone))))
                    .map(|at| (index, at))
            })
    }

    /// Replaces the items of `frame`.
    pub(super) fn set_items(
        &mut self,
        frame: usize,
        items: Vec<DisplayItem>,
    ) -> Result<(), EditError> {
        let edit = SetField::new(field::<DisplayFrame>().items(), vec![frame], items)
            .into_edit(self.model())?;
        self.push(edit);
        Ok(())
    }

    /// Lists `bone` in `frame` at position `at` (clamped to the end).
    pub(super) fn insert_item(
        &mut self,
        frame: usize,
        at: usize,
        bone: usize,
    ) -> Result<(), EditError> {
        let Some(current) = self.model().display_frames.get(frame) else {
            return Ok(());
        };
        let mut items = current.items.clone();
        items.insert(
            at.min(items.len()),
            DisplayItem::Bone(Some(BoneIdx::new(bone))),
        );
        self.set_items(frame, items)
    }

    /// Lists `bone` next to `beside` (after it when `after`), in the frame `beside` is listed in
    /// outside Root. Returns whether `beside` was listed.
    pub(super) fn list_beside(
        &mut self,
        bone: usize,
        beside: usize,
        after: bool,
    ) -> Result<bool, EditError> {
        match self.listed_at(beside) {
            Some((frame, at)) => {
                self.insert_item(frame, at + usize::from(after), bone)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The display frame named センター, made after Root and 表情 when the model has none.
    pub(super) fn center_frame(&mut self) -> Result<usize, EditError> {
        if let Some(frame) = self
            .model()
            .display_frames
            .iter()
            .position(|frame| !frame.special && frame.name_ja.as_str() == "センター")
        {
            return Ok(frame);
        }
        let at = self.model().display_frames.len().min(2);
        let frame = DisplayFrame {
            name_ja: "センター".into(),
            name_en: "center".into(),
            special: false,
            items: Vec::new(),
        };
        let edit = Edit::insert(self.model(), at, Elements::DisplayFrames(vec![frame]))?;
        self.push(edit);
        Ok(at)
    }
}
