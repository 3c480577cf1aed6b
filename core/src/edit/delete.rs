//! What a deletion does besides removing its elements, planned before it runs so that the model
//! it leaves is one the validator finds no new error in (PmxEditor's behaviour where it has one):
//!
//! - list entries that name a deleted element leave their list: faces of deleted vertices or
//!   materials, morph offsets of every kind, display frame items, IK links, soft body anchors and
//!   pins; joints of a deleted rigid body are deleted with it;
//! - a deleted bone hands its role to its nearest surviving ancestor: its children are
//!   re-parented there, the vertex weights move there (merged with a weight the vertex already
//!   gives that bone, the weight type simplified where that changes nothing), and rigid bodies
//!   that follow it follow the ancestor;
//! - settings that name a deleted bone are switched off: a tail bone becomes a tail offset to
//!   where the bone was, an append stops, an IK bone whose target is gone stops being IK;
//! - what is left (texture references, a soft body's material) is cleared to none, which the
//!   format allows there.
//!
//! Undo stays exact and cheap: list entries are [`Removal`]s (positions and the taken items),
//! rewritten fields are swapped with the model's (the edit holds the other value), and the
//! renumbering walk that runs afterwards clears nothing a surviving element holds.

use super::elements::{Removal, face_counts_of, put_positions, take_positions};
use super::reflect::HeapSize;
use super::reindex::Reindex;
use super::{EditReport, EditTarget, MovedRefs, Touched};
use crate::model::refs::{RefKind, RefSite, for_each_ref_into};
use crate::model::*;
use std::collections::BTreeMap;

/// Morph offsets (of any kind) taken from one morph's list.
#[derive(Debug)]
struct OffsetRemoval {
    morph: u32,
    positions: Vec<u32>,
    /// The taken offsets while they are out of the model (of the morph's kind).
    items: Option<MorphOffsets>,
}

fn take_offsets(offsets: &mut MorphOffsets, positions: &[u32]) -> MorphOffsets {
    macro_rules! take {
        ($($kind:ident),*) => {
            match offsets {
                $(MorphOffsets::$kind(list) => MorphOffsets::$kind(take_positions(list, positions)),)*
            }
        };
    }
    take!(
        Group,
        Vertex,
        Bone,
        Uv,
        AdditionalUv1,
        AdditionalUv2,
        AdditionalUv3,
        AdditionalUv4,
        Material,
        Flip,
        Impulse
    )
}

fn put_offsets(offsets: &mut MorphOffsets, positions: &[u32], items: MorphOffsets) {
    macro_rules! put {
        ($($kind:ident),*) => {
            match (offsets, items) {
                $((MorphOffsets::$kind(list), MorphOffsets::$kind(items)) => {
                    put_positions(list, positions, items);
                })*
                // The morph's kind is what it was when the offsets were taken: undo is exact.
                _ => {}
            }
        };
    }
    put!(
        Group,
        Vertex,
        Bone,
        Uv,
        AdditionalUv1,
        AdditionalUv2,
        AdditionalUv3,
        AdditionalUv4,
        Material,
        Flip,
        Impulse
    );
}

/// The fields of a surviving bone a bone deletion may rewrite (swapped with the bone's).
#[derive(Debug, Clone, Copy, PartialEq)]
struct BoneLinks {
    parent: Option<BoneIdx>,
    flags: BoneFlags,
    tail_offset: Vec3,
    tail_bone: Option<BoneIdx>,
    append_parent: Option<BoneIdx>,
    ik_target: Option<BoneIdx>,
}

impl BoneLinks {
    fn of(bone: &Bone) -> Self {
        Self {
            parent: bone.parent,
            flags: bone.flags,
            tail_offset: bone.tail_offset,
            tail_bone: bone.tail_bone,
            append_parent: bone.append_parent,
            ik_target: bone.ik.target,
        }
    }

    fn swap(&mut self, bone: &mut Bone) {
        std::mem::swap(&mut self.parent, &mut bone.parent);
        std::mem::swap(&mut self.flags, &mut bone.flags);
        std::mem::swap(&mut self.tail_offset, &mut bone.tail_offset);
        std::mem::swap(&mut self.tail_bone, &mut bone.tail_bone);
        std::mem::swap(&mut self.append_parent, &mut bone.append_parent);
        std::mem::swap(&mut self.ik_target, &mut bone.ik.target);
    }
}

/// What goes away with deleted elements, and what is rewritten because of them. Applied before
/// the renumbering walk (positions are those of the model before the deletion) and restored
/// after its opposite walk.
#[derive(Debug, Default)]
pub(crate) struct Dependents {
    faces: Removal<Face>,
    /// (material, face index count) taken from materials whose faces were removed.
    face_counts: Vec<(u32, u32)>,
    offsets: Vec<OffsetRemoval>,
    items: Vec<(u32, Removal<DisplayItem>)>,
    ik_links: Vec<(u32, Removal<IkLink>)>,
    anchors: Vec<(u32, Removal<SoftBodyAnchor>)>,
    pins: Vec<(u32, Removal<VertexIdx>)>,
    joints: Removal<Joint>,
    /// Values swapped with the model's on apply and swapped back on undo: the edit holds the
    /// new value while it is not applied and the old one while it is.
    weights: Vec<(u32, Weight)>,
    bones: Vec<(u32, BoneLinks)>,
    rigid_bodies: Vec<(u32, Option<BoneIdx>)>,
}

impl Dependents {
    pub(crate) fn take(&mut self, model: &mut Model, touched: &mut Touched) {
        self.swap(model);
        if !self.faces.positions.is_empty() {
            self.faces.take(&mut model.faces);
            let positions = std::sync::Arc::clone(&self.faces.positions);
            touched.add_remap(ElementKind::Face, Reindex::Remove(positions));
        }
        for &(material, count) in &self.face_counts {
            if let Some(material) = model.materials.get_mut(material as usize) {
                material.face_index_count = material.face_index_count.saturating_sub(count);
            }
        }
        for removal in &mut self.offsets {
            if let Some(morph) = model.morphs.get_mut(removal.morph as usize) {
                removal.items = Some(take_offsets(&mut morph.offsets, &removal.positions));
            }
        }
        for (frame, removal) in &mut self.items {
            if let Some(frame) = model.display_frames.get_mut(*frame as usize) {
                removal.take(&mut frame.items);
            }
        }
        for (bone, removal) in &mut self.ik_links {
            if let Some(bone) = model.bones.get_mut(*bone as usize) {
                removal.take(&mut bone.ik.links);
            }
        }
        for (soft_body, removal) in &mut self.anchors {
            if let Some(soft_body) = model.soft_bodies.get_mut(*soft_body as usize) {
                removal.take(&mut soft_body.anchors);
            }
        }
        for (soft_body, removal) in &mut self.pins {
            if let Some(soft_body) = model.soft_bodies.get_mut(*soft_body as usize) {
                removal.take(&mut soft_body.pinned_vertices);
            }
        }
        if !self.joints.positions.is_empty() {
            self.joints.take(&mut model.joints);
            let positions = std::sync::Arc::clone(&self.joints.positions);
            touched.add_remap(ElementKind::Joint, Reindex::Remove(positions));
        }
        self.note(touched);
    }

    pub(crate) fn restore(&mut self, model: &mut Model, touched: &mut Touched) {
        if !self.joints.positions.is_empty() {
            self.joints.restore(&mut model.joints);
            let positions = std::sync::Arc::clone(&self.joints.positions);
            touched.add_remap(ElementKind::Joint, Reindex::Insert(positions));
        }
        for (soft_body, removal) in self.pins.iter_mut().rev() {
            if let Some(soft_body) = model.soft_bodies.get_mut(*soft_body as usize) {
                removal.restore(&mut soft_body.pinned_vertices);
            }
        }
        for (soft_body, removal) in self.anchors.iter_mut().rev() {
            if let Some(soft_body) = model.soft_bodies.get_mut(*soft_body as usize) {
                removal.restore(&mut soft_body.anchors);
            }
        }
        for (bone, removal) in self.ik_links.iter_mut().rev() {
            if let Some(bone) = model.bones.get_mut(*bone as usize) {
                removal.restore(&mut bone.ik.links);
            }
        }
        for (frame, removal) in self.items.iter_mut().rev() {
            if let Some(frame) = model.display_frames.get_mut(*frame as usize) {
                removal.restore(&mut frame.items);
            }
        }
        for removal in self.offsets.iter_mut().rev() {
            if let (Some(morph), Some(items)) = (
                model.morphs.get_mut(removal.morph as usize),
                removal.items.take(),
            ) {
                put_offsets(&mut morph.offsets, &removal.positions, items);
            }
        }
        for &(material, count) in &self.face_counts {
            if let Some(material) = model.materials.get_mut(material as usize) {
                material.face_index_count = material.face_index_count.saturating_add(count);
            }
        }
        if !self.faces.positions.is_empty() {
            self.faces.restore(&mut model.faces);
            let positions = std::sync::Arc::clone(&self.faces.positions);
            touched.add_remap(ElementKind::Face, Reindex::Insert(positions));
        }
        self.swap(model);
        self.note(touched);
    }

    /// Swaps the rewritten fields with the model's (its own inverse).
    fn swap(&mut self, model: &mut Model) {
        for (vertex, weight) in &mut self.weights {
            if let Some(vertex) = model.vertices.get_mut(*vertex as usize) {
                std::mem::swap(weight, &mut vertex.weight);
            }
        }
        for (bone, links) in &mut self.bones {
            if let Some(bone) = model.bones.get_mut(*bone as usize) {
                links.swap(bone);
            }
        }
        for (body, bone) in &mut self.rigid_bodies {
            if let Some(body) = model.rigid_bodies.get_mut(*body as usize) {
                std::mem::swap(bone, &mut body.bone);
            }
        }
    }

    /// Notes the elements whose values changed (indices of the model before the deletion, which
    /// the renumbering walk's own notes cover for the deleted kind).
    fn note(&self, touched: &mut Touched) {
        note_indices(
            touched,
            EditTarget::Material,
            self.face_counts.iter().map(|&(m, _)| m),
        );
        note_indices(
            touched,
            EditTarget::Morph,
            self.offsets.iter().map(|r| r.morph),
        );
        note_indices(touched, EditTarget::DisplayFrame, firsts_of(&self.items));
        note_indices(
            touched,
            EditTarget::Bone,
            firsts_of(&self.ik_links).chain(self.bones.iter().map(|(b, _)| *b)),
        );
        note_indices(
            touched,
            EditTarget::SoftBody,
            firsts_of(&self.anchors).chain(firsts_of(&self.pins)),
        );
        note_indices(
            touched,
            EditTarget::Vertex,
            self.weights.iter().map(|(v, _)| *v),
        );
        note_indices(
            touched,
            EditTarget::RigidBody,
            self.rigid_bodies.iter().map(|(r, _)| *r),
        );
    }

    pub(crate) fn heap_size(&self) -> usize {
        fn nested<T: super::FieldType>(list: &[(u32, Removal<T>)]) -> usize {
            list.iter()
                .map(|(_, r)| std::mem::size_of::<(u32, Removal<T>)>() + r.heap_size())
                .sum()
        }
        self.faces.heap_size()
            + self.face_counts.capacity() * 8
            + self
                .offsets
                .iter()
                .map(|r| {
                    std::mem::size_of::<OffsetRemoval>()
                        + r.positions.capacity() * 4
                        + r.items.as_ref().map_or(0, HeapSize::heap_size)
                })
                .sum::<usize>()
            + nested(&self.items)
            + nested(&self.ik_links)
            + nested(&self.anchors)
            + nested(&self.pins)
            + self.joints.heap_size()
            + self.weights.capacity() * std::mem::size_of::<(u32, Weight)>()
            + self.bones.capacity() * std::mem::size_of::<(u32, BoneLinks)>()
            + self.rigid_bodies.capacity() * std::mem::size_of::<(u32, Option<BoneIdx>)>()
    }
}

fn removals<T: super::FieldType>(groups: Vec<(u32, Vec<u32>)>) -> Vec<(u32, Removal<T>)> {
    groups
        .into_iter()
        .map(|(owner, positions)| (owner, Removal::at(positions)))
        .collect()
}

fn firsts_of<T>(list: &[(u32, Removal<T>)]) -> impl Iterator<Item = u32> + '_ {
    list.iter().map(|(i, _)| *i)
}

/// Notes changed elements: each run of indices, or (for more than [`Touched::MAX_RANGES`], which
/// `Touched` would merge into one anyway) one covering range, found without sorting: a bone
/// deletion on a 1,000,000-vertex model rewrites tens of thousands of scattered weights.
fn note_indices(touched: &mut Touched, target: EditTarget, indices: impl Iterator<Item = u32>) {
    let indices: Vec<u32> = indices.collect();
    if indices.len() > Touched::MAX_RANGES {
        let low = indices.iter().copied().min().unwrap_or(0) as usize;
        let high = indices.iter().copied().max().unwrap_or(0) as usize;
        touched.add_range(target, low..high + 1);
    } else if !indices.is_empty() {
        touched.add_indices(target, &indices);
    }
}

/// The references into the deleted elements, sorted by what happens to them. The walk visits
/// them in element order, so each list comes out ascending.
#[derive(Debug, Default)]
struct Hits {
    faces: Vec<u32>,
    weights: Vec<u32>,
    /// Surviving bones whose parent, tail, append parent or IK target is deleted.
    bones: Vec<u32>,
    ik_links: Vec<(u32, Vec<u32>)>,
    offsets: Vec<(u32, Vec<u32>)>,
    items: Vec<(u32, Vec<u32>)>,
    rigid_bodies: Vec<u32>,
    joints: Vec<u32>,
    anchors: Vec<(u32, Vec<u32>)>,
    pins: Vec<(u32, Vec<u32>)>,
    /// References that are cleared to none (where the format allows none).
    cleared: Vec<(RefSite, usize)>,
}

fn push_unique(list: &mut Vec<u32>, value: usize) {
    let value = value as u32;
    if list.last() != Some(&value) {
        list.push(value);
    }
}

fn push_in(groups: &mut Vec<(u32, Vec<u32>)>, owner: usize, position: usize) {
    match groups.last_mut() {
        Some((last, positions)) if *last as usize == owner => push_unique(positions, position),
        _ => groups.push((owner as u32, vec![position as u32])),
    }
}

impl Hits {
    fn add(&mut self, site: RefSite, index: usize) {
        match site {
            RefSite::VertexWeight { vertex, .. } => push_unique(&mut self.weights, vertex),
            RefSite::Face { face, .. } => push_unique(&mut self.faces, face),
            RefSite::BoneParent { bone }
            | RefSite::BoneTail { bone }
            | RefSite::BoneAppendParent { bone }
            | RefSite::IkTarget { bone } => push_unique(&mut self.bones, bone),
            RefSite::IkLink { bone, link } => push_in(&mut self.ik_links, bone, link),
            RefSite::MorphOffset { morph, offset } => push_in(&mut self.offsets, morph, offset),
            RefSite::DisplayItem { frame, item } => push_in(&mut self.items, frame, item),
            RefSite::RigidBodyBone { body } => push_unique(&mut self.rigid_bodies, body),
            RefSite::JointBodyA { joint } | RefSite::JointBodyB { joint } => {
                push_unique(&mut self.joints, joint);
            }
            RefSite::SoftBodyAnchorBody { soft_body, anchor }
            | RefSite::SoftBodyAnchorVertex { soft_body, anchor } => {
                push_in(&mut self.anchors, soft_body, anchor);
            }
            RefSite::SoftBodyPin { soft_body, pin } => push_in(&mut self.pins, soft_body, pin),
            // A material's textures and a soft body's material may be none.
            RefSite::MaterialTexture { .. }
            | RefSite::MaterialSphere { .. }
            | RefSite::MaterialToon { .. }
            | RefSite::SoftBodyMaterial { .. } => self.cleared.push((site, index)),
        }
    }
}

/// Where each bone's role goes when `removed` bones are deleted: itself if it survives, else its
/// nearest surviving ancestor (`None` for a deleted root, a dangling parent, or a parent cycle
/// of deleted bones).
fn survivors(bones: &[Bone], removed: &[bool]) -> Vec<Option<u32>> {
    let mut result: Vec<Option<u32>> = Vec::with_capacity(bones.len());
    for (b, bone) in bones.iter().enumerate() {
        if !removed[b] {
            result.push(Some(b as u32));
            continue;
        }
        let mut found = None;
        let mut parent = bone.parent;
        // At most one step per bone: a longer walk is a cycle.
        for _ in 0..bones.len() {
            let Some(p) = parent.map(BoneIdx::get).filter(|&p| p < bones.len()) else {
                break;
            };
            if !removed[p] {
                found = Some(p as u32);
                break;
            }
            parent = bones[p].parent;
        }
        result.push(found);
    }
    result
}

/// `weight` with every bone mapped by `map`; a bone named twice afterwards gets one slot with the
/// summed weight, and the type is simplified where that deforms the same: BDEF2 or SDEF with
/// both bones equal → BDEF1; BDEF4 or QDEF with one bone left → BDEF1; BDEF4 with two → BDEF2.
/// (QDEF with two bones stays QDEF: dual-quaternion blending is not BDEF2's. SDEF with two
/// different bones keeps its C, R0 and R1, which are positions and still valid.)
pub(crate) fn reassigned_weight(
    weight: &Weight,
    map: impl Fn(Option<BoneIdx>) -> Option<BoneIdx>,
) -> Weight {
    match *weight {
        Weight::Bdef1 { bone } => Weight::Bdef1 { bone: map(bone) },
        Weight::Bdef2 { bones, weight } => {
            let bones = [map(bones[0]), map(bones[1])];
            if bones[0] == bones[1] {
                Weight::Bdef1 { bone: bones[0] }
            } else {
                Weight::Bdef2 { bones, weight }
            }
        }
        Weight::Sdef {
            bones,
            weight,
            c,
            r0,
            r1,
        } => {
            let bones = [map(bones[0]), map(bones[1])];
            if bones[0] == bones[1] {
                Weight::Bdef1 { bone: bones[0] }
            } else {
                Weight::Sdef {
                    bones,
                    weight,
                    c,
                    r0,
                    r1,
                }
            }
        }
        Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
            let qdef = matches!(weight, Weight::Qdef { .. });
            let mut bones = bones.map(&map);
            let mut weights = weights;
            for i in 0..4 {
                for j in i + 1..4 {
                    if bones[i].is_some() && bones[i] == bones[j] {
                        weights[i] += weights[j];
                        bones[j] = None;
                        weights[j] = 0.0;
                    }
                }
            }
            let used: Vec<usize> = (0..4)
                .filter(|&i| bones[i].is_some() && weights[i] != 0.0)
                .collect();
            let weight_on_none = (0..4).any(|i| bones[i].is_none() && weights[i] != 0.0);
            let total: f32 = weights.iter().sum();
            // Only a weight that sums to 1 (as the spec wants) can change its type losslessly.
            if !weight_on_none && (total - 1.0).abs() <= 1e-3 {
                match *used.as_slice() {
                    [only] => return Weight::Bdef1 { bone: bones[only] },
                    [a, b] if !qdef => {
                        return Weight::Bdef2 {
                            bones: [bones[a], bones[b]],
                            weight: weights[a] / (weights[a] + weights[b]),
                        };
                    }
                    _ => {}
                }
            }
            if qdef {
                Weight::Qdef { bones, weights }
            } else {
                Weight::Bdef4 { bones, weights }
            }
        }
    }
}

/// How many references of each kind of what moved, to which surviving bone (old index).
#[derive(Debug, Default)]
struct Moves(BTreeMap<(u32, u8), usize>);

const MOVED_CHILDREN: u8 = 0;
const MOVED_WEIGHTS: u8 = 1;
const MOVED_BODIES: u8 = 2;

impl Moves {
    fn add(&mut self, to: u32, what: u8, count: usize) {
        *self.0.entry((to, what)).or_default() += count;
    }

    fn into_report(self, model: &Model, positions: &[u32]) -> Vec<MovedRefs> {
        self.0
            .into_iter()
            .map(|((to, what), count)| {
                let shift = positions.partition_point(|&p| p < to);
                MovedRefs {
                    what: match what {
                        MOVED_CHILDREN => "child bones",
                        MOVED_WEIGHTS => "vertex weights",
                        _ => "rigid bodies",
                    }
                    .to_owned(),
                    to: to as usize - shift,
                    to_name: model
                        .bones
                        .get(to as usize)
                        .map(|b| b.name_ja.as_str().into_owned())
                        .unwrap_or_default(),
                    count,
                }
            })
            .collect()
    }
}

/// The places of the first cleared references of each field listed, at most this many per field.
const EXAMPLES_PER_FIELD: usize = 3;

fn add_cleared(report: &mut EditReport, kind: ElementKind, site: RefSite, index: usize) {
    let count = report
        .cleared
        .entry(site.field_name().to_owned())
        .or_default();
    *count += 1;
    // A few places of each field, so that rare fields show next to common ones.
    if *count <= EXAMPLES_PER_FIELD && report.cleared_examples.len() < EditReport::MAX_EXAMPLES {
        report.cleared_examples.push(format!(
            "{site} (was {} {index})",
            kind.name().replace('_', " ")
        ));
    }
}

/// Plans the deletion of the elements of `kind` at `positions` (ascending, unique, in range):
/// what goes with them and what is rewritten, and the report saying so.
pub(crate) fn plan(
    model: &Model,
    kind: ElementKind,
    positions: &[u32],
    report: &mut EditReport,
) -> Dependents {
    let mut dependents = Dependents::default();
    match kind {
        ElementKind::Face => dependents.face_counts = face_counts_of(model, positions),
        ElementKind::Material => {
            let ranges = super::elements::material_face_ranges(model);
            let faces: Vec<u32> = positions
                .iter()
                .filter_map(|&m| ranges.get(m as usize))
                .flat_map(|range| range.start as u32..range.end as u32)
                .collect();
            dependents.faces = Removal::at(faces);
        }
        _ => {}
    }
    if let Some(ref_kind) = RefKind::of_element(kind) {
        let mut removed = vec![false; model.count(kind)];
        for &p in positions {
            removed[p as usize] = true;
        }
        let mut hits = Hits::default();
        for_each_ref_into(model, ref_kind, &removed, |site, index| {
            hits.add(site, index);
        });
        plan_hits(
            model,
            kind,
            positions,
            &removed,
            hits,
            &mut dependents,
            report,
        );
    }
    dependents.report(report);
    dependents
}

fn plan_hits(
    model: &Model,
    kind: ElementKind,
    positions: &[u32],
    removed: &[bool],
    hits: Hits,
    dependents: &mut Dependents,
    report: &mut EditReport,
) {
    for &(site, index) in &hits.cleared {
        add_cleared(report, kind, site, index);
    }
    if !hits.faces.is_empty() {
        dependents.face_counts = face_counts_of(model, &hits.faces);
        dependents.faces = Removal::at(hits.faces);
    }
    dependents.offsets = hits
        .offsets
        .into_iter()
        .map(|(morph, positions)| OffsetRemoval {
            morph,
            positions,
            items: None,
        })
        .collect();
    dependents.items = removals(hits.items);
    dependents.ik_links = removals(hits.ik_links);
    dependents.anchors = removals(hits.anchors);
    dependents.pins = removals(hits.pins);
    dependents.joints = Removal::at(hits.joints);
    if kind != ElementKind::Bone {
        return;
    }

    let bones = &model.bones;
    let survivor = survivors(bones, removed);
    let is_gone =
        |b: Option<BoneIdx>| b.is_some_and(|b| removed.get(b.get()).copied().unwrap_or(false));
    // A deleted root (no surviving ancestor) hands its vertices and static rigid bodies to the
    // model's first remaining bone, as the validator's weight repair does: they keep moving
    // with the model instead of standing still in space.
    let first_bone = (0..bones.len()).find(|&b| !removed[b]).map(|b| b as u32);
    let target = |b: BoneIdx| survivor.get(b.get()).copied().flatten().or(first_bone);
    let mut moves = Moves::default();

    for &b in &hits.bones {
        let Some(bone) = bones.get(b as usize) else {
            continue;
        };
        let mut links = BoneLinks::of(bone);
        if is_gone(bone.parent) {
            // The nearest surviving ancestor; a bone never becomes its own parent (that would be
            // a cycle of deleted bones around it): it becomes a root instead.
            let ancestor = bone
                .parent
                .and_then(|p| survivor.get(p.get()).copied().flatten())
                .filter(|&a| a != b);
            links.parent = ancestor.map(|a| BoneIdx::new(a as usize));
            match ancestor {
                Some(a) => moves.add(a, MOVED_CHILDREN, 1),
                None => add_cleared(
                    report,
                    kind,
                    RefSite::BoneParent { bone: b as usize },
                    bone.parent.map_or(0, BoneIdx::get),
                ),
            }
        }
        if let Some(tail) = bone.tail_bone.filter(|_| is_gone(bone.tail_bone)) {
            links.tail_bone = None;
            if bone.flags.contains(BoneFlags::TAIL_IS_BONE) {
                // The tail points where the deleted bone was, as an offset: the bone looks and
                // turns as before (PmxEditor keeps the display direction the same way).
                links.flags -= BoneFlags::TAIL_IS_BONE;
                if let Some(to) = bones.get(tail.get()) {
                    let offset = Vec3::new(
                        to.position.x - bone.position.x,
                        to.position.y - bone.position.y,
                        to.position.z - bone.position.z,
                    );
                    if offset.is_finite() {
                        links.tail_offset = offset;
                    }
                }
                *report
                    .switched_off
                    .entry("tail bone".to_owned())
                    .or_default() += 1;
            }
        }
        if is_gone(bone.append_parent) {
            links.append_parent = None;
            if bone.has_append() {
                // An append names one bone's own rotation; handing it to an ancestor would
                // append something else. The append stops (PmxEditor: 付与 off).
                links.flags -= BoneFlags::APPEND_ROTATE | BoneFlags::APPEND_MOVE;
                links.flags -= BoneFlags::LOCAL_APPEND;
                *report.switched_off.entry("append".to_owned()).or_default() += 1;
            }
        }
        if is_gone(bone.ik.target) {
            links.ik_target = None;
            if bone.is_ik() {
                links.flags -= BoneFlags::IK;
                *report.switched_off.entry("IK".to_owned()).or_default() += 1;
            }
        }
        if links != BoneLinks::of(bone) {
            dependents.bones.push((b, links));
        }
    }

    for &v in &hits.weights {
        let Some(vertex) = model.vertices.get(v as usize) else {
            continue;
        };
        for &bone in vertex.weight.bones() {
            if let Some(bone) = bone.filter(|&b| is_gone(Some(b))) {
                match target(bone) {
                    Some(to) => moves.add(to, MOVED_WEIGHTS, 1),
                    None => add_cleared(
                        report,
                        kind,
                        RefSite::VertexWeight {
                            vertex: v as usize,
                            slot: 0,
                        },
                        bone.get(),
                    ),
                }
            }
        }
        let weight = reassigned_weight(&vertex.weight, |bone| match bone {
            Some(b) if is_gone(Some(b)) => target(b).map(|t| BoneIdx::new(t as usize)),
            other => other,
        });
        dependents.weights.push((v, weight));
    }

    for &r in &hits.rigid_bodies {
        let Some(body) = model.rigid_bodies.get(r as usize) else {
            continue;
        };
        // A body that follows its bone (ボーン追従) follows the ancestor: it keeps colliding
        // where that part of the model is, and the physics chains jointed to it keep hanging
        // from something that moves. A physics body is not re-bound: physics would then drive
        // the ancestor (the head or the upper body would flop); it keeps simulating with its
        // joints but moves no bone.
        let to = match body.mode {
            RigidMode::FollowBone => body.bone.and_then(target),
            RigidMode::Physics | RigidMode::PhysicsWithBone | RigidMode::Unknown(_) => None,
        };
        match to {
            Some(to) => moves.add(to, MOVED_BODIES, 1),
            None => add_cleared(
                report,
                kind,
                RefSite::RigidBodyBone { body: r as usize },
                body.bone.map_or(0, BoneIdx::get),
            ),
        }
        dependents
            .rigid_bodies
            .push((r, to.map(|t| BoneIdx::new(t as usize))));
    }
    report.moved = moves.into_report(model, positions);
}

impl Dependents {
    /// Adds what goes with the deleted elements to `report.removed_with`.
    fn report(&self, report: &mut EditReport) {
        let mut add = |what: &str, count: usize| {
            if count > 0 {
                *report.removed_with.entry(what.to_owned()).or_default() += count;
            }
        };
        fn sum<T>(list: &[(u32, Removal<T>)]) -> usize {
            list.iter().map(|(_, r)| r.positions.len()).sum()
        }
        add("faces", self.faces.positions.len());
        add(
            "morph offsets",
            self.offsets.iter().map(|r| r.positions.len()).sum(),
        );
        add("display frame items", sum(&self.items));
        add("IK links", sum(&self.ik_links));
        add("soft body anchors", sum(&self.anchors));
        add("soft body pins", sum(&self.pins));
        add("joints", self.joints.positions.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(i: usize) -> Option<BoneIdx> {
        Some(BoneIdx::new(i))
    }

    /// Bone 3 is deleted and goes to bone 1.
    fn to_one(bone: Option<BoneIdx>) -> Option<BoneIdx> {
        if bone == b(3) { b(1) } else { bone }
    }

    #[test]
    fn weights_merge_and_simplify() {
        assert_eq!(
            reassigned_weight(&Weight::Bdef1 { bone: b(3) }, to_one),
            Weight::Bdef1 { bone: b(1) }
        );
        assert_eq!(
            reassigned_weight(
                &Weight::Bdef2 {
                    bones: [b(1), b(3)],
                    weight: 0.25
                },
                to_one
            ),
            Weight::Bdef1 { bone: b(1) }
        );
        assert_eq!(
            reassigned_weight(
                &Weight::Bdef2 {
                    bones: [b(2), b(3)],
                    weight: 0.25
                },
                to_one
            ),
            Weight::Bdef2 {
                bones: [b(2), b(1)],
                weight: 0.25
            }
        );
        let sdef = |bones| Weight::Sdef {
            bones,
            weight: 0.5,
            c: Vec3::new(0.0, 1.0, 0.0),
            r0: Vec3::new(0.0, 2.0, 0.0),
            r1: Vec3::new(0.0, 0.5, 0.0),
        };
        assert_eq!(
            reassigned_weight(&sdef([b(3), b(1)]), to_one),
            Weight::Bdef1 { bone: b(1) }
        );
        assert_eq!(
            reassigned_weight(&sdef([b(3), b(2)]), to_one),
            sdef([b(1), b(2)])
        );
        // BDEF4: the deleted bone's 0.25 joins bone 1's 0.25; two bones left → BDEF2.
        assert_eq!(
            reassigned_weight(
                &Weight::Bdef4 {
                    bones: [b(1), b(3), b(2), None],
                    weights: [0.25, 0.25, 0.5, 0.0]
                },
                to_one
            ),
            Weight::Bdef2 {
                bones: [b(1), b(2)],
                weight: 0.5
            }
        );
        // Three bones left: BDEF4 with the merged slot emptied.
        assert_eq!(
            reassigned_weight(
                &Weight::Bdef4 {
                    bones: [b(1), b(3), b(2), b(4)],
                    weights: [0.25, 0.25, 0.25, 0.25]
                },
                to_one
            ),
            Weight::Bdef4 {
                bones: [b(1), None, b(2), b(4)],
                weights: [0.5, 0.0, 0.25, 0.25]
            }
        );
        // QDEF with two bones stays QDEF; with one it is BDEF1.
        assert_eq!(
            reassigned_weight(
                &Weight::Qdef {
                    bones: [b(1), b(3), b(2), None],
                    weights: [0.25, 0.25, 0.5, 0.0]
                },
                to_one
            ),
            Weight::Qdef {
                bones: [b(1), None, b(2), None],
                weights: [0.5, 0.0, 0.5, 0.0]
            }
        );
        assert_eq!(
            reassigned_weight(
                &Weight::Qdef {
                    bones: [b(1), b(3), None, None],
                    weights: [0.5, 0.5, 0.0, 0.0]
                },
                to_one
            ),
            Weight::Bdef1 { bone: b(1) }
        );
        // A weight that does not sum to 1 keeps its type.
        assert_eq!(
            reassigned_weight(
                &Weight::Bdef4 {
                    bones: [b(1), b(3), None, None],
                    weights: [0.5, 0.25, 0.0, 0.0]
                },
                to_one
            ),
            Weight::Bdef4 {
                bones: [b(1), None, None, None],
                weights: [0.75, 0.0, 0.0, 0.0]
            }
        );
    }

    #[test]
    fn survivors_skip_deleted_ancestors_and_cycles() {
        let bone = |parent: Option<BoneIdx>| Bone {
            parent,
            ..Bone::default()
        };
        // 0 ← 1 ← 2 ← 3, and 4 ↔ 5 (a cycle).
        let bones = vec![
            bone(None),
            bone(b(0)),
            bone(b(1)),
            bone(b(2)),
            bone(b(5)),
            bone(b(4)),
        ];
        let removed = [false, true, true, false, true, true];
        assert_eq!(
            survivors(&bones, &removed),
            vec![Some(0), Some(0), Some(0), Some(3), None, None]
        );
    }
}
