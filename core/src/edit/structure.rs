//! Structural edits: insert, duplicate, delete, move and sort elements of any kind, with every
//! reference of the model renumbered through the reference walk of `model::refs`.
//!
//! A renumbering walk counts the references of its kind in walk order. References it cannot map
//! (their element was deleted) are cleared and recorded by that count with their raw value; the
//! opposite walk, which runs on a model of the same shape, restores them from the record. So
//! undo is exact without storing more than the removed elements, the cleared references and the
//! positions.

use super::delete::{Dependents, plan};
use super::elements::{Elements, Removal, face_counts_of, material_face_ranges};
use super::reflect::HeapSize;
use super::reindex::{Reindex, Run};
use super::{Change, Edit, EditError, EditLabel, EditReport, EditTarget, LabelArg, Touched};
use crate::model::refs::{IndexRemap, LostRef, RefKind, remap_refs};
use crate::model::*;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Range;
use std::sync::Arc;

/// Walks the references of `kind` with `remap`, restoring `restore`; returns what it could not
/// map, and notes the elements whose references changed.
fn renumber(
    model: &mut Model,
    kind: RefKind,
    remap: &IndexRemap,
    restore: &[LostRef],
    touched: &mut Touched,
) -> Vec<LostRef> {
    let outcome = remap_refs(model, kind, remap, restore, 0);
    for (owner, range) in outcome.changed {
        touched.add_range(owner.into(), range);
    }
    outcome.lost
}

/// A deletion of elements of one kind.
#[derive(Debug)]
pub(crate) struct RemoveChange {
    kind: ElementKind,
    positions: Arc<[u32]>,
    removed: Elements,
    dependents: Dependents,
    lost_forward: Vec<LostRef>,
    lost_backward: Vec<LostRef>,
}

impl RemoveChange {
    pub fn apply(&mut self, model: &mut Model) -> Touched {
        let mut touched = Touched::default();
        self.dependents.take(model, &mut touched);
        if let Some(ref_kind) = RefKind::of_element(self.kind) {
            let remap = IndexRemap::removing_positions(model.count(self.kind), &self.positions);
            self.lost_forward =
                renumber(model, ref_kind, &remap, &self.lost_backward, &mut touched);
        }
        self.removed = Elements::take(model, self.kind, &self.positions);
        touched.add_remap(self.kind, Reindex::Remove(Arc::clone(&self.positions)));
        touched
    }

    pub fn revert(&mut self, model: &mut Model) -> Touched {
        let mut touched = Touched::default();
        std::mem::take(&mut self.removed).put(model, &self.positions);
        if let Some(ref_kind) = RefKind::of_element(self.kind) {
            let remap =
                IndexRemap::removing_positions(model.count(self.kind), &self.positions).inverse();
            self.lost_backward =
                renumber(model, ref_kind, &remap, &self.lost_forward, &mut touched);
        }
        self.dependents.restore(model, &mut touched);
        touched.add_remap(self.kind, Reindex::Insert(Arc::clone(&self.positions)));
        touched
    }

    pub fn heap_size(&self) -> usize {
        self.positions.len() * 4
            + self.removed.heap_size()
            + self.dependents.heap_size()
            + (self.lost_forward.capacity() + self.lost_backward.capacity())
                * std::mem::size_of::<LostRef>()
    }
}

/// An insertion of elements of one kind (at final positions).
#[derive(Debug)]
pub(crate) struct InsertChange {
    kind: ElementKind,
    positions: Arc<[u32]>,
    /// The elements while they are not in the model.
    items: Elements,
    /// Faces of inserted materials, at their final positions.
    faces: Removal<Face>,
    /// (material, face index count) added to materials that draw inserted faces.
    face_counts: Vec<(u32, u32)>,
    lost_forward: Vec<LostRef>,
    lost_backward: Vec<LostRef>,
}

impl InsertChange {
    pub fn apply(&mut self, model: &mut Model) -> Touched {
        let mut touched = Touched::default();
        if let Some(ref_kind) = RefKind::of_element(self.kind) {
            let remap = IndexRemap::inserting_positions(model.count(self.kind), &self.positions);
            self.lost_forward =
                renumber(model, ref_kind, &remap, &self.lost_backward, &mut touched);
        }
        std::mem::take(&mut self.items).put(model, &self.positions);
        if !self.faces.positions.is_empty() {
            self.faces.restore(&mut model.faces);
            let positions = Arc::clone(&self.faces.positions);
            touched.add_remap(ElementKind::Face, Reindex::Insert(positions));
        }
        for &(material, count) in &self.face_counts {
            if let Some(material) = model.materials.get_mut(material as usize) {
                material.face_index_count = material.face_index_count.saturating_add(count);
            }
        }
        touched.add_remap(self.kind, Reindex::Insert(Arc::clone(&self.positions)));
        self.note(&mut touched);
        touched
    }

    pub fn revert(&mut self, model: &mut Model) -> Touched {
        let mut touched = Touched::default();
        for &(material, count) in &self.face_counts {
            if let Some(material) = model.materials.get_mut(material as usize) {
                material.face_index_count = material.face_index_count.saturating_sub(count);
            }
        }
        if !self.faces.positions.is_empty() {
            self.faces.take(&mut model.faces);
            let positions = Arc::clone(&self.faces.positions);
            touched.add_remap(ElementKind::Face, Reindex::Remove(positions));
        }
        self.items = Elements::take(model, self.kind, &self.positions);
        if let Some(ref_kind) = RefKind::of_element(self.kind) {
            let remap =
                IndexRemap::inserting_positions(model.count(self.kind), &self.positions).inverse();
            self.lost_backward =
                renumber(model, ref_kind, &remap, &self.lost_forward, &mut touched);
        }
        touched.add_remap(self.kind, Reindex::Remove(Arc::clone(&self.positions)));
        self.note(&mut touched);
        touched
    }

    fn note(&self, touched: &mut Touched) {
        let materials: Vec<u32> = self.face_counts.iter().map(|&(m, _)| m).collect();
        touched.add_indices(EditTarget::Material, &materials);
    }

    pub fn heap_size(&self) -> usize {
        self.positions.len() * 4
            + self.items.heap_size()
            + self.faces.heap_size()
            + self.face_counts.capacity() * 8
            + (self.lost_forward.capacity() + self.lost_backward.capacity())
                * std::mem::size_of::<LostRef>()
    }
}

/// How a reorder computes its order (stored compactly: a move of a few of a million vertices
/// keeps the few indices, not a million-entry order).
#[derive(Debug, Clone, PartialEq, Eq)]
enum ReorderSpec {
    /// `order[new] = old`.
    Order(Vec<u32>),
    /// The elements at `indices` (ascending) move, in their order, so that the first is at `to`.
    MoveTo { indices: Vec<u32>, to: u32 },
    /// The elements at `indices` (ascending) move `by` places up (negative) or down, one place
    /// at a time, stopping at the ends and keeping their order.
    Step { indices: Vec<u32>, by: i64 },
}

impl ReorderSpec {
    fn order(&self, len: usize) -> Vec<u32> {
        match self {
            ReorderSpec::Order(order) => order.clone(),
            ReorderSpec::MoveTo { indices, to } => {
                let mut moved = vec![false; len];
                for &i in indices {
                    if let Some(slot) = moved.get_mut(i as usize) {
                        *slot = true;
                    }
                }
                let rest: Vec<u32> = (0..len as u32).filter(|&i| !moved[i as usize]).collect();
                let to = (*to as usize).min(rest.len());
                let mut order = Vec::with_capacity(len);
                order.extend_from_slice(&rest[..to]);
                order.extend(indices.iter().copied().filter(|&i| (i as usize) < len));
                order.extend_from_slice(&rest[to..]);
                order
            }
            ReorderSpec::Step { indices, by } => {
                let mut order: Vec<u32> = (0..len as u32).collect();
                let mut selected = vec![false; len];
                for &i in indices {
                    if let Some(slot) = selected.get_mut(i as usize) {
                        *slot = true;
                    }
                }
                let steps = by.unsigned_abs().min(len as u64);
                for _ in 0..steps {
                    if *by < 0 {
                        for p in 1..len {
                            if selected[order[p] as usize] && !selected[order[p - 1] as usize] {
                                order.swap(p, p - 1);
                            }
                        }
                    } else {
                        for p in (0..len.saturating_sub(1)).rev() {
                            if selected[order[p] as usize] && !selected[order[p + 1] as usize] {
                                order.swap(p, p + 1);
                            }
                        }
                    }
                }
                order
            }
        }
    }

    fn heap_size(&self) -> usize {
        match self {
            ReorderSpec::Order(v)
            | ReorderSpec::MoveTo { indices: v, .. }
            | ReorderSpec::Step { indices: v, .. } => v.capacity() * 4,
        }
    }
}

fn invert_order(order: &[u32]) -> Vec<u32> {
    let mut inverse = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        if let Some(slot) = inverse.get_mut(old as usize) {
            *slot = new as u32;
        }
    }
    inverse
}

/// A reordering of one kind's list (moving faces with their materials).
#[derive(Debug)]
pub(crate) struct ReorderChange {
    kind: ElementKind,
    spec: ReorderSpec,
}

impl ReorderChange {
    pub fn apply(&self, model: &mut Model, forward: bool) -> Touched {
        let mut touched = Touched::default();
        let order = self.spec.order(model.count(self.kind));
        let order = if forward { order } else { invert_order(&order) };
        let Some(remap) = IndexRemap::from_order_positions(&order) else {
            return touched;
        };
        if let Some(ref_kind) = RefKind::of_element(self.kind) {
            // A permutation maps every index: nothing is lost.
            renumber(model, ref_kind, &remap, &[], &mut touched);
        }
        if self.kind == ElementKind::Material {
            let faces = face_runs(&material_face_ranges(model), &order, model.faces.len());
            touched.add_remap(ElementKind::Face, faces);
        }
        Elements::permute_model(model, self.kind, &order);
        touched.add_remap(self.kind, Reindex::from_order(&order));
        touched
    }

    pub fn heap_size(&self) -> usize {
        self.spec.heap_size()
    }
}

/// Where the faces go when the materials are reordered by `order` (`order[new] = old`): each
/// material's block of faces follows it; faces past every material stay at the end (as
/// `Elements::permute_model` moves them).
fn face_runs(ranges: &[Range<usize>], order: &[u32], faces: usize) -> Reindex {
    let mut runs = Vec::with_capacity(order.len() + 1);
    let mut next = 0usize;
    for &old in order {
        if let Some(range) = ranges.get(old as usize) {
            runs.push(Run {
                old: range.start as u32,
                new: next as u32,
                len: range.len() as u32,
            });
            next += range.len();
        }
    }
    let covered = ranges.last().map_or(0, |r| r.end);
    runs.push(Run {
        old: covered as u32,
        new: next as u32,
        len: faces.saturating_sub(covered) as u32,
    });
    Reindex::from_runs(runs)
}

pub(crate) fn add_uv_channels(model: &mut Model, count: usize) -> Touched {
    for _ in 0..count {
        model
            .additional_uvs
            .push(vec![Vec4::ZERO; model.vertices.len()]);
    }
    let mut touched = Touched::default();
    touched.add_range(EditTarget::Header, 0..1);
    touched.add_range(EditTarget::Vertex, 0..model.vertices.len());
    touched
}

pub(crate) fn remove_uv_channels(model: &mut Model, count: usize) -> Touched {
    let keep = model.additional_uvs.len().saturating_sub(count);
    model.additional_uvs.truncate(keep);
    let mut touched = Touched::default();
    touched.add_range(EditTarget::Header, 0..1);
    touched.add_range(EditTarget::Vertex, 0..model.vertices.len());
    touched
}

/// Sorted, unique, in-range, non-empty positions.
fn positions_of(
    model: &Model,
    kind: ElementKind,
    indices: &[usize],
) -> Result<Vec<u32>, EditError> {
    if indices.is_empty() {
        return Err(EditError::NothingSelected { kind: kind.name() });
    }
    let len = model.count(kind);
    let mut positions = Vec::with_capacity(indices.len());
    for &index in indices {
        if index >= len {
            return Err(EditError::IndexOutOfRange {
                kind: kind.name(),
                index,
                len,
            });
        }
        positions.push(index as u32);
    }
    positions.sort_unstable();
    positions.dedup();
    Ok(positions)
}

fn check_capacity(model: &Model, kind: ElementKind, added: usize) -> Result<(), EditError> {
    // Indices are stored as u32 and written as i32.
    let max = i32::MAX as usize;
    if model.count(kind).saturating_add(added) > max {
        return Err(EditError::TooMany {
            kind: kind.list_name(),
            max,
        });
    }
    Ok(())
}

/// Sort orders for [`Edit::sort`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SortKey {
    /// By Japanese name (texture: path); stable.
    Name,
    /// Bones: parents (and append parents) before children, lower deform layers first.
    Hierarchy,
    /// Morphs: by panel (system, eyebrow, eye, mouth, other); stable.
    Panel,
    /// Materials: opaque before translucent (diffuse alpha < 1); stable.
    Transparency,
}

impl SortKey {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            SortKey::Name => "name",
            SortKey::Hierarchy => "hierarchy",
            SortKey::Panel => "panel",
            SortKey::Transparency => "transparency",
        }
    }

    /// The key of its name in `resources/i18n` (for labels).
    #[must_use]
    pub fn label_key(self) -> &'static str {
        match self {
            SortKey::Name => "edit.sort_by_name",
            SortKey::Hierarchy => "edit.sort_by_hierarchy",
            SortKey::Panel => "edit.sort_by_panel",
            SortKey::Transparency => "edit.sort_by_transparency",
        }
    }
}

fn stable_order_by<T, K: Ord>(list: &[T], key: impl Fn(&T) -> K) -> Vec<u32> {
    let mut order: Vec<u32> = (0..list.len() as u32).collect();
    order.sort_by_key(|&i| key(&list[i as usize]));
    order
}

/// Parents and append parents first, then by (layer, index) among the bones that are ready.
/// Bones in a parent cycle (broken files) follow in index order.
fn bone_hierarchy_order(bones: &[Bone]) -> Vec<u32> {
    let len = bones.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); len];
    let mut waiting = vec![0usize; len];
    for (i, bone) in bones.iter().enumerate() {
        let append = bone.has_append().then_some(bone.append_parent).flatten();
        let mut dependencies = [bone.parent, append]
            .into_iter()
            .flatten()
            .map(BoneIdx::get)
            .filter(|&d| d < len && d != i)
            .collect::<Vec<_>>();
        dependencies.dedup();
        for d in dependencies {
            children[d].push(i);
            waiting[i] += 1;
        }
    }
    let mut ready: BinaryHeap<Reverse<(i32, usize)>> = bones
        .iter()
        .enumerate()
        .filter(|(i, _)| waiting[*i] == 0)
        .map(|(i, b)| Reverse((b.layer, i)))
        .collect();
    let mut placed = vec![false; len];
    let mut order = Vec::with_capacity(len);
    while let Some(Reverse((_, i))) = ready.pop() {
        placed[i] = true;
        order.push(i as u32);
        for &child in &children[i] {
            waiting[child] -= 1;
            if waiting[child] == 0 {
                ready.push(Reverse((bones[child].layer, child)));
            }
        }
    }
    order.extend((0..len).filter(|&i| !placed[i]).map(|i| i as u32));
    order
}

fn panel_rank(panel: MorphPanel) -> u16 {
    match panel {
        MorphPanel::Unknown(raw) => 5 + u16::from(raw),
        known => u16::from(known.to_raw()),
    }
}

fn sort_order(model: &Model, kind: ElementKind, key: SortKey) -> Result<Vec<u32>, EditError> {
    let name = |text: &Text| text.as_str().into_owned();
    Ok(match (kind, key) {
        (ElementKind::Bone, SortKey::Hierarchy) => bone_hierarchy_order(&model.bones),
        (ElementKind::Morph, SortKey::Panel) => {
            stable_order_by(&model.morphs, |m| panel_rank(m.panel))
        }
        (ElementKind::Material, SortKey::Transparency) => {
            stable_order_by(&model.materials, |m| m.diffuse.w < 1.0)
        }
        (ElementKind::Texture, SortKey::Name) => stable_order_by(&model.textures, name),
        (ElementKind::Material, SortKey::Name) => {
            stable_order_by(&model.materials, |m| name(&m.name_ja))
        }
        (ElementKind::Bone, SortKey::Name) => stable_order_by(&model.bones, |b| name(&b.name_ja)),
        (ElementKind::Morph, SortKey::Name) => stable_order_by(&model.morphs, |m| name(&m.name_ja)),
        (ElementKind::DisplayFrame, SortKey::Name) => {
            // The special frames stay first, as PMX editors expect them there.
            stable_order_by(&model.display_frames, |f| (!f.special, name(&f.name_ja)))
        }
        (ElementKind::RigidBody, SortKey::Name) => {
            stable_order_by(&model.rigid_bodies, |b| name(&b.name_ja))
        }
        (ElementKind::Joint, SortKey::Name) => stable_order_by(&model.joints, |j| name(&j.name_ja)),
        (ElementKind::SoftBody, SortKey::Name) => {
            stable_order_by(&model.soft_bodies, |s| name(&s.name_ja))
        }
        _ => {
            return Err(EditError::SortKey {
                kind: kind.list_name(),
                key: key.name(),
            });
        }
    })
}

/// The first material whose face range holds or ends at face position `at`.
fn material_at_face_position(model: &Model, at: usize) -> Option<usize> {
    material_face_ranges(model)
        .iter()
        .position(|range| range.start <= at && at <= range.end)
}

/// Where the faces of materials inserted at `at` begin: after the faces of the materials before.
fn face_start_for_material(model: &Model, at: usize) -> usize {
    let ranges = model.material_face_ranges();
    match ranges.get(at) {
        Some(range) => range.start,
        None => ranges.last().map_or(0, |range| range.end),
    }
}

impl Edit {
    /// Deletes the elements of `kind` at `indices`, with everything that depends on them, so
    /// that the model stays valid (see `edit/delete.rs`): list entries naming a deleted element
    /// leave their list (faces, morph offsets, display frame items, IK links, soft body anchors
    /// and pins; joints go with their rigid bodies); a deleted bone's children, vertex weights
    /// and bone-following rigid bodies move to its nearest surviving ancestor, and tails,
    /// appends and IK that name it are switched off; deleting faces lowers their materials'
    /// face counts. The few references that may be none (textures, a soft body's material) are
    /// cleared. The report says all of it; every other reference is renumbered.
    pub fn delete(model: &Model, kind: ElementKind, indices: &[usize]) -> Result<Edit, EditError> {
        let positions = positions_of(model, kind, indices)?;
        if kind == ElementKind::DisplayFrame
            && let Some(&special) = positions.iter().find(|&&p| {
                model
                    .display_frames
                    .get(p as usize)
                    .is_some_and(|f| f.special)
            })
        {
            return Err(EditError::SpecialFrame {
                index: special as usize,
            });
        }
        let mut report = EditReport::default();
        let dependents = plan(model, kind, &positions, &mut report);
        let label = EditLabel::new("edit.delete").count(positions.len(), kind);
        Ok(Edit::new(
            label,
            Change::Remove(Box::new(RemoveChange {
                kind,
                positions: positions.into(),
                removed: Elements::None,
                dependents,
                lost_forward: Vec::new(),
                lost_backward: Vec::new(),
            })),
        )
        .with_report(report))
    }

    /// Inserts `elements` so that the first is at index `at` (`at` ≤ the current count). Their
    /// references are taken as indices of the model after the insertion. Faces join the
    /// material whose face range holds or ends at `at`. Materials must come with their faces:
    /// use [`Edit::insert_materials`] (here their face counts must be 0).
    pub fn insert(model: &Model, at: usize, elements: Elements) -> Result<Edit, EditError> {
        let Some(kind) = elements.kind() else {
            return Err(EditError::NothingSelected { kind: "element" });
        };
        if kind == ElementKind::Material {
            let Elements::Materials(materials) = elements else {
                return Err(EditError::NothingSelected { kind: "material" });
            };
            if let Some(item) = materials.iter().position(|m| m.face_index_count != 0) {
                return Err(EditError::InvalidItem {
                    kind: "material",
                    item,
                    message: "a material inserted without faces must have face_index_count 0"
                        .into(),
                });
            }
            let faces = vec![Vec::new(); materials.len()];
            return Edit::insert_materials(model, at, materials, faces);
        }
        let face_counts = if kind == ElementKind::Face {
            material_at_face_position(model, at)
                .map(|m| vec![(m as u32, 3 * elements.len() as u32)])
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        insert_change(
            model,
            kind,
            at,
            elements,
            Removal::at(Vec::new()),
            face_counts,
            "edit.insert",
        )
    }

    /// Appends `faces` to the face range of `material`.
    pub fn insert_faces(
        model: &Model,
        material: usize,
        faces: Vec<Face>,
    ) -> Result<Edit, EditError> {
        let ranges = material_face_ranges(model);
        let range = ranges.get(material).ok_or(EditError::IndexOutOfRange {
            kind: "material",
            index: material,
            len: ranges.len(),
        })?;
        let count = 3 * faces.len() as u32;
        insert_change(
            model,
            ElementKind::Face,
            range.end,
            Elements::Faces(faces),
            Removal::at(Vec::new()),
            vec![(material as u32, count)],
            "edit.insert",
        )
    }

    /// Inserts materials at `at`, each with its faces (`faces[k]` for `materials[k]`; their
    /// face counts are set from them). The faces go between the face ranges of the materials
    /// around `at`.
    pub fn insert_materials(
        model: &Model,
        at: usize,
        mut materials: Vec<Material>,
        faces: Vec<Vec<Face>>,
    ) -> Result<Edit, EditError> {
        if faces.len() != materials.len() {
            return Err(EditError::ValueCount {
                values: faces.len(),
                indices: materials.len(),
            });
        }
        let start = face_start_for_material(model, at.min(model.materials.len()));
        let mut all_faces = Vec::new();
        for (material, faces) in materials.iter_mut().zip(faces) {
            material.face_index_count =
                u32::try_from(faces.len() * 3).map_err(|_| EditError::TooMany {
                    kind: "faces",
                    max: u32::MAX as usize / 3,
                })?;
            all_faces.extend(faces);
        }
        check_capacity(model, ElementKind::Face, all_faces.len())?;
        let positions = (start as u32..(start + all_faces.len()) as u32).collect();
        let faces = Removal {
            positions,
            items: all_faces,
        };
        insert_change(
            model,
            ElementKind::Material,
            at,
            Elements::Materials(materials),
            faces,
            Vec::new(),
            "edit.insert",
        )
    }

    /// Duplicates the elements at `indices`. Copies of vertices go to the end of the vertex
    /// list; every other copy goes right after its original (faces in the same material;
    /// materials with copies of their faces right after the original's). Copies keep their
    /// references (a copied bone has the original's parent); display frame copies are not special.
    pub fn duplicate(
        model: &Model,
        kind: ElementKind,
        indices: &[usize],
    ) -> Result<Edit, EditError> {
        let positions = positions_of(model, kind, indices)?;
        let originals: Vec<usize> = positions.iter().map(|&p| p as usize).collect();
        let mut copies = Elements::clone_from_model(model, kind, &originals);
        check_capacity(model, kind, positions.len())?;
        let after_originals: Vec<u32> = positions
            .iter()
            .enumerate()
            .map(|(j, &p)| p + j as u32 + 1)
            .collect();
        let final_positions = if kind == ElementKind::Vertex {
            let len = model.vertices.len() as u32;
            (len..len + positions.len() as u32).collect()
        } else {
            after_originals
        };
        let mut faces = Removal::at(Vec::new());
        let mut face_counts = Vec::new();
        match &mut copies {
            Elements::Bones(bones) => {
                let remap = IndexRemap::inserting_positions(model.bones.len(), &final_positions);
                let mut holder = Model {
                    bones: std::mem::take(bones),
                    ..Model::default()
                };
                remap.apply(&mut holder, RefKind::Bone);
                *bones = holder.bones;
            }
            Elements::Morphs(morphs) => {
                let remap = IndexRemap::inserting_positions(model.morphs.len(), &final_positions);
                let mut holder = Model {
                    morphs: std::mem::take(morphs),
                    ..Model::default()
                };
                remap.apply(&mut holder, RefKind::Morph);
                *morphs = holder.morphs;
            }
            Elements::DisplayFrames(frames) => {
                for frame in frames {
                    frame.special = false;
                }
            }
            Elements::Faces(_) => face_counts = face_counts_of(model, &positions),
            Elements::Materials(materials) => {
                let ranges = material_face_ranges(model);
                let mut copied_faces = Vec::new();
                let mut face_positions = Vec::new();
                let mut shift = 0u32;
                for (material, &original) in materials.iter_mut().zip(&positions) {
                    let range = ranges.get(original as usize).cloned().unwrap_or(0..0);
                    let block = model.faces.get(range.clone()).unwrap_or(&[]);
                    let start = range.end as u32 + shift;
                    face_positions.extend(start..start + block.len() as u32);
                    copied_faces.extend_from_slice(block);
                    shift += block.len() as u32;
                    material.face_index_count = 3 * block.len() as u32;
                }
                check_capacity(model, ElementKind::Face, copied_faces.len())?;
                faces = Removal {
                    positions: face_positions.into(),
                    items: copied_faces,
                };
            }
            _ => {}
        }
        let count = positions.len();
        let edit = insert_change_at(model, kind, final_positions, copies, faces, face_counts)?;
        Ok(edit.with_label(EditLabel::new("edit.duplicate").count(count, kind)))
    }

    /// Moves the elements at `indices` (keeping their order) so that the first ends up at `to`
    /// (an index of the list after the move).
    pub fn move_to(
        model: &Model,
        kind: ElementKind,
        indices: &[usize],
        to: usize,
    ) -> Result<Edit, EditError> {
        let positions = positions_of(model, kind, indices)?;
        let last_start = model.count(kind) - positions.len();
        if to > last_start {
            return Err(EditError::IndexOutOfRange {
                kind: kind.name(),
                index: to,
                len: last_start + 1,
            });
        }
        let count = positions.len();
        Ok(reorder(
            kind,
            ReorderSpec::MoveTo {
                indices: positions,
                to: to as u32,
            },
            EditLabel::new("edit.move").count(count, kind),
        ))
    }

    /// Moves the elements at `indices` `by` places (negative: up), one place at a time; a block
    /// stops at either end of the list.
    pub fn move_by(
        model: &Model,
        kind: ElementKind,
        indices: &[usize],
        by: i64,
    ) -> Result<Edit, EditError> {
        let positions = positions_of(model, kind, indices)?;
        let count = positions.len();
        let key = if by < 0 {
            "edit.move_up"
        } else {
            "edit.move_down"
        };
        Ok(reorder(
            kind,
            ReorderSpec::Step {
                indices: positions,
                by,
            },
            EditLabel::new(key).count(count, kind),
        ))
    }

    /// Sorts the list of `kind` (see [`SortKey`] for what each kind can be sorted by).
    pub fn sort(model: &Model, kind: ElementKind, key: SortKey) -> Result<Edit, EditError> {
        let order = sort_order(model, kind, key)?;
        Ok(reorder(
            kind,
            ReorderSpec::Order(order),
            EditLabel::new("edit.sort")
                .arg("list", LabelArg::Plural(EditTarget::from(kind).name()))
                .arg("key", LabelArg::Key(key.label_key())),
        ))
    }

    /// Appends `count` additional UV channels (zero for every vertex).
    pub fn add_uv_channels(model: &Model, count: usize) -> Result<Edit, EditError> {
        if model.additional_uvs.len() + count > 4 {
            return Err(EditError::TooMany {
                kind: "additional UV channels",
                max: 4,
            });
        }
        Ok(Edit::new(
            EditLabel::new("edit.add").arg("count", LabelArg::Count(count, "uv_channel")),
            Change::AddUvChannels(count),
        ))
    }
}

fn reorder(kind: ElementKind, spec: ReorderSpec, label: EditLabel) -> Edit {
    Edit::new(label, Change::Reorder(ReorderChange { kind, spec }))
}

fn insert_change(
    model: &Model,
    kind: ElementKind,
    at: usize,
    elements: Elements,
    faces: Removal<Face>,
    face_counts: Vec<(u32, u32)>,
    verb: &'static str,
) -> Result<Edit, EditError> {
    let len = model.count(kind);
    if at > len {
        return Err(EditError::IndexOutOfRange {
            kind: kind.name(),
            index: at,
            len: len + 1,
        });
    }
    let count = elements.len();
    if count == 0 {
        return Err(EditError::NothingSelected { kind: kind.name() });
    }
    check_capacity(model, kind, count)?;
    let positions = (at as u32..(at + count) as u32).collect();
    let edit = insert_change_at(model, kind, positions, elements, faces, face_counts)?;
    Ok(edit.with_label(EditLabel::new(verb).count(count, kind)))
}

fn insert_change_at(
    model: &Model,
    kind: ElementKind,
    positions: Vec<u32>,
    items: Elements,
    faces: Removal<Face>,
    face_counts: Vec<(u32, u32)>,
) -> Result<Edit, EditError> {
    if let Elements::Vertices {
        vertices,
        additional_uvs,
    } = &items
    {
        if additional_uvs.len() > model.additional_uvs.len() {
            return Err(EditError::InvalidItem {
                kind: "vertex",
                item: 0,
                message: format!(
                    "{} additional UV channels given, the model has {}",
                    additional_uvs.len(),
                    model.additional_uvs.len()
                ),
            });
        }
        if let Some(channel) = additional_uvs
            .iter()
            .position(|c| c.len() != vertices.len())
        {
            return Err(EditError::InvalidItem {
                kind: "vertex",
                item: 0,
                message: format!(
                    "additional UV channel {channel} does not have one value per vertex"
                ),
            });
        }
    }
    Ok(Edit::new(
        EditLabel::text(String::new()),
        Change::Insert(Box::new(InsertChange {
            kind,
            positions: positions.into(),
            items,
            faces,
            face_counts,
            lost_forward: Vec::new(),
            lost_backward: Vec::new(),
        })),
    ))
}
