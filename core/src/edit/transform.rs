//! Moving, turning and scaling elements in space: the one edit behind the 3D view's gizmo, its
//! numeric 移動・回転・拡大 row, the X mirror of both, and the `transform` op of edit scripts.
//!
//! A [`Transform`] is `p' = pivot + R · (S · (p − pivot)) + t`: a per-axis scale `S`, then a
//! rotation `R`, both about `pivot`, then a move `t`. What follows it, per kind:
//! - vertices: the position and the SDEF C, R0 and R1 (points); the normal by the inverse
//!   transpose `R · S⁻¹`, brought back to its own length (a mirroring scale keeps it facing
//!   out); the offsets of vertex morphs on those vertices by `R · S` (they are displacements:
//!   turned and scaled, never moved);
//! - bones: the position (a point), the tail offset when the tail is an offset (a
//!   displacement), the fixed axis and the local axes (directions, kept at their length);
//! - rigid bodies and joints: the position (a point) and the rotation (`R` before the element's
//!   own, in MikuMikuDance's Y-X-Z Euler angles). Sizes and limits stay: they are in the
//!   element's own frame.
//!
//! Only the parts a transform has are applied, so a move leaves normals and morphs alone and
//! every value it does not change keeps its bits. The edit is one step of field edits: undo
//! writes the old values back exactly.

use super::{Edit, EditError, EditLabel, EditTarget, SetField, field};
use crate::model::Weight;
use crate::model::facts::{euler_to_quat, quat_to_euler};
use crate::model::{Bone, BoneFlags, Joint, Model, Morph, MorphOffsets, RigidBody, Vec3, Vertex};
use glam::Quat;
use std::collections::HashMap;

/// A per-axis scale, then a rotation, both about `pivot`, then a move (model space).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    pub translation: glam::Vec3,
    pub rotation: Quat,
    pub scale: glam::Vec3,
    pub pivot: glam::Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

/// Which parts a transform has, for its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransformKind {
    Move,
    Rotate,
    Scale,
    /// More than one part.
    Mixed,
    /// No part: nothing changes.
    Identity,
}

impl TransformKind {
    /// The kind of a transform that moves, turns and scales as given.
    #[must_use]
    pub fn of(moves: bool, rotates: bool, scales: bool) -> Self {
        match (moves, rotates, scales) {
            (false, false, false) => TransformKind::Identity,
            (true, false, false) => TransformKind::Move,
            (false, true, false) => TransformKind::Rotate,
            (false, false, true) => TransformKind::Scale,
            _ => TransformKind::Mixed,
        }
    }
}

impl Transform {
    pub const IDENTITY: Transform = Transform {
        translation: glam::Vec3::ZERO,
        rotation: Quat::IDENTITY,
        scale: glam::Vec3::ONE,
        pivot: glam::Vec3::ZERO,
    };

    /// A move by `by`.
    #[must_use]
    pub fn moving(by: glam::Vec3) -> Self {
        Self {
            translation: by,
            ..Self::IDENTITY
        }
    }

    /// A turn by `rotation` about `pivot`.
    #[must_use]
    pub fn rotating(rotation: Quat, pivot: glam::Vec3) -> Self {
        Self {
            rotation,
            pivot,
            ..Self::IDENTITY
        }
    }

    /// A scale by `factors` (per axis) about `pivot`.
    #[must_use]
    pub fn scaling(factors: glam::Vec3, pivot: glam::Vec3) -> Self {
        Self {
            scale: factors,
            pivot,
            ..Self::IDENTITY
        }
    }

    fn rotates(&self) -> bool {
        self.rotation != Quat::IDENTITY
    }

    fn scales(&self) -> bool {
        self.scale != glam::Vec3::ONE
    }

    /// Whether directions change (a rotation or a scale).
    #[must_use]
    pub fn is_linear_identity(&self) -> bool {
        !self.rotates() && !self.scales()
    }

    #[must_use]
    pub fn kind(&self) -> TransformKind {
        TransformKind::of(
            self.translation != glam::Vec3::ZERO,
            self.rotates(),
            self.scales(),
        )
    }

    /// Every part finite (a transform with NaN would write NaN into the model).
    #[must_use]
    pub fn is_finite(&self) -> bool {
        self.translation.is_finite()
            && self.rotation.is_finite()
            && self.scale.is_finite()
            && self.pivot.is_finite()
    }

    /// The same change seen in the mirror x → −x: what the counterpart of an element gets.
    /// (`M T M` with `M = diag(−1, 1, 1)`: the pivot and the move mirror, the rotation's y and
    /// z parts change sign, a per-axis scale stays.)
    #[must_use]
    pub fn mirrored_x(self) -> Self {
        let mirror = |v: glam::Vec3| glam::Vec3::new(-v.x, v.y, v.z);
        let q = self.rotation;
        Self {
            translation: mirror(self.translation),
            rotation: Quat::from_xyzw(q.x, -q.y, -q.z, q.w),
            scale: self.scale,
            pivot: mirror(self.pivot),
        }
    }

    /// A point (a position, SDEF's C, R0, R1).
    #[must_use]
    pub fn point(&self, p: Vec3) -> Vec3 {
        let mut v = g(p);
        if !self.is_linear_identity() {
            v = self.pivot + self.rotation * ((v - self.pivot) * self.scale);
        }
        if self.translation != glam::Vec3::ZERO {
            v += self.translation;
        }
        m(v)
    }

    /// A displacement (a tail offset, a vertex morph offset): turned and scaled, not moved.
    #[must_use]
    pub fn vector(&self, v: Vec3) -> Vec3 {
        if self.is_linear_identity() {
            return v;
        }
        m(self.rotation * (g(v) * self.scale))
    }

    /// A direction (a fixed or local axis): turned and scaled, then brought back to its own
    /// length; a zero vector stays zero.
    #[must_use]
    pub fn direction(&self, v: Vec3) -> Vec3 {
        if self.is_linear_identity() {
            return v;
        }
        keep_length(v, self.rotation * (g(v) * self.scale))
    }

    /// A normal: by the inverse transpose `R · S⁻¹`, brought back to its own length, so a
    /// mirroring scale keeps it facing out of the mirrored surface.
    #[must_use]
    pub fn normal(&self, n: Vec3) -> Vec3 {
        if self.is_linear_identity() {
            return n;
        }
        keep_length(n, self.rotation * (g(n) / self.scale))
    }

    /// An element's rotation (MikuMikuDance's Y-X-Z Euler angles, radians), turned with it.
    #[must_use]
    pub fn euler(&self, angles: Vec3) -> Vec3 {
        if !self.rotates() {
            return angles;
        }
        quat_to_euler(self.rotation * euler_to_quat(angles))
    }
}

fn g(v: Vec3) -> glam::Vec3 {
    glam::Vec3::new(v.x, v.y, v.z)
}

fn m(v: glam::Vec3) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

/// `turned` at the length of `original` (unchanged when either has no direction).
fn keep_length(original: Vec3, turned: glam::Vec3) -> Vec3 {
    let length = g(original).length();
    let new_length = turned.length();
    if length > 0.0 && new_length > 0.0 && new_length.is_finite() {
        m(turned * (length / new_length))
    } else {
        original
    }
}

/// Elements of one kind and the transform they take (the selection, or the mirror
/// counterparts with the mirrored transform).
#[derive(Debug, Clone, PartialEq)]
pub struct TransformGroup {
    pub indices: Vec<usize>,
    pub transform: Transform,
}

/// The mean position of `indices` of `target` (skipping non-finite positions and indices out of
/// range): the pivot the numeric row and the gizmo turn and scale about.
#[must_use]
pub fn centre(model: &Model, target: EditTarget, indices: &[usize]) -> Option<glam::Vec3> {
    let (sum, count) = indices
        .iter()
        .filter_map(|&i| position(model, target, i))
        .map(g)
        .filter(|p| p.is_finite())
        .fold((glam::Vec3::ZERO, 0usize), |(sum, count), p| {
            (sum + p, count + 1)
        });
    let centre = sum / count.max(1) as f32;
    (count > 0 && centre.is_finite()).then_some(centre)
}

/// The position of element `index` of `target`, for the kinds a transform moves.
#[must_use]
pub fn position(model: &Model, target: EditTarget, index: usize) -> Option<Vec3> {
    Some(match target {
        EditTarget::Vertex => model.vertices.get(index)?.position,
        EditTarget::Bone => model.bones.get(index)?.position,
        EditTarget::RigidBody => model.rigid_bodies.get(index)?.position,
        EditTarget::Joint => model.joints.get(index)?.position,
        _ => return None,
    })
}

/// The field edits of a transform, built on the model as it is.
struct Plan {
    sets: Vec<SetField>,
}

impl Edit {
    /// Moves, turns or scales elements of `target` (vertices, bones, rigid bodies or joints),
    /// each group by its own transform, as one undo step labelled by what it did
    /// ("頂点437個を回転" / "Rotate 437 vertices"). `model` is unchanged on return.
    ///
    /// An index in two groups takes the first group's transform. Errors: another kind, an
    /// index out of range, a non-finite transform, no element, or nothing that would change.
    pub fn transform(
        model: &mut Model,
        target: EditTarget,
        groups: &[TransformGroup],
    ) -> Result<Edit, EditError> {
        if !matches!(
            target,
            EditTarget::Vertex | EditTarget::Bone | EditTarget::RigidBody | EditTarget::Joint
        ) {
            return Err(EditError::Unsupported {
                op: "transform",
                target,
            });
        }
        let len = target.count(model);
        // Each element once, with its group's transform, ascending.
        let mut of: HashMap<usize, Transform> = HashMap::new();
        for group in groups {
            if !group.transform.is_finite() {
                return Err(EditError::InvalidValue {
                    target,
                    field: "transform".into(),
                    message: "the move, rotation, scale or pivot is not a finite number".into(),
                });
            }
            for &index in &group.indices {
                if index >= len {
                    return Err(EditError::IndexOutOfRange {
                        kind: target.name(),
                        index,
                        len,
                    });
                }
                of.entry(index).or_insert(group.transform);
            }
        }
        let mut elements: Vec<(usize, Transform)> = of.into_iter().collect();
        elements.sort_unstable_by_key(|&(i, _)| i);
        if elements.is_empty() {
            return Err(EditError::NothingSelected {
                kind: target.name(),
            });
        }
        let kinds: Vec<TransformKind> = groups
            .iter()
            .filter(|g| !g.indices.is_empty())
            .map(|g| g.transform.kind())
            .collect();
        let kind = kinds
            .iter()
            .copied()
            .reduce(|a, b| if a == b { a } else { TransformKind::Mixed })
            .unwrap_or(TransformKind::Identity);
        if kind == TransformKind::Identity {
            return Err(EditError::NothingSelected {
                kind: "move, rotation or scale",
            });
        }
        let plan = match target {
            EditTarget::Vertex => vertex_plan(model, &elements),
            EditTarget::Bone => bone_plan(model, &elements),
            EditTarget::RigidBody => body_plan(model, &elements),
            _ => joint_plan(model, &elements),
        };
        let key = match kind {
            TransformKind::Move => "edit.transform_move",
            TransformKind::Rotate => "edit.transform_rotate",
            TransformKind::Scale => "edit.transform_scale",
            TransformKind::Mixed | TransformKind::Identity => "edit.transform",
        };
        let label = EditLabel::new(key).count(elements.len(), target);
        Ok(SetField::batch_into_edit(plan.sets, model, label.clone())?.with_label(label))
    }
}

/// An offset this short is zero: it leaves a vertex morph's list.
pub(super) const ZERO_OFFSET: f32 = 1.0e-6;

/// The smallest value morph edit mode edits at: below it a small move of a drawn vertex would
/// be a huge offset.
pub const MIN_MORPH_VALUE: f32 = 0.01;

/// `list` with the vertices of `changes` at their new offsets: an entry there already keeps
/// its place (and leaves the list when its offset is zero now, shorter than 1e-6), a new one
/// joins the end in vertex order. `None` when nothing changes.
#[must_use]
pub fn with_vertex_offsets(
    list: &[crate::model::VertexMorphOffset],
    changes: &HashMap<usize, glam::Vec3>,
) -> Option<Vec<crate::model::VertexMorphOffset>> {
    use crate::model::{VertexIdx, VertexMorphOffset};
    let is_zero = |v: glam::Vec3| v.length() < ZERO_OFFSET;
    let mut changed = false;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(list.len() + changes.len());
    for entry in list {
        let vertex = entry.vertex.get();
        match changes.get(&vertex) {
            Some(&new) if seen.insert(vertex) => {
                if is_zero(new) {
                    changed = true;
                    continue;
                }
                changed |= glam::Vec3::from(entry.offset) != new;
                out.push(VertexMorphOffset {
                    vertex: entry.vertex,
                    offset: new.into(),
                });
            }
            _ => out.push(*entry),
        }
    }
    let mut added: Vec<(usize, glam::Vec3)> = changes
        .iter()
        .filter(|(v, offset)| !seen.contains(*v) && !is_zero(**offset))
        .map(|(&v, &offset)| (v, offset))
        .collect();
    added.sort_unstable_by_key(|&(v, _)| v);
    changed |= !added.is_empty();
    out.extend(added.into_iter().map(|(v, offset)| VertexMorphOffset {
        vertex: VertexIdx::new(v),
        offset: offset.into(),
    }));
    changed.then_some(out)
}

/// Morph edit mode's transform as a request: `groups` move vertices as they are drawn with
/// vertex morph `morph` at `value` (`base + value × offset`), and the morph's offsets take the
/// change (a move `d` of where a vertex is drawn is `d / value` of its offset), never the base
/// mesh. Returns the `set` of `morphs[morph].offsets` and its label ("モーフ「笑い」の頂点12個を
/// 移動"). Errors: not a vertex morph, a value under [`MIN_MORPH_VALUE`], a vertex out of range,
/// a non-finite transform, or nothing that would change ([`EditError::NoChange`]).
pub fn morph_transform_set(
    model: &Model,
    morph: usize,
    value: f32,
    groups: &[TransformGroup],
) -> Result<(SetField, EditLabel), EditError> {
    let list = match model.morphs.get(morph).map(|m| &m.offsets) {
        Some(MorphOffsets::Vertex(list)) => list,
        Some(_) => {
            return Err(EditError::Unsupported {
                op: "transform into a morph other than a vertex morph",
                target: EditTarget::Morph,
            });
        }
        None => {
            return Err(EditError::IndexOutOfRange {
                kind: "morph",
                index: morph,
                len: model.morphs.len(),
            });
        }
    };
    if !(value.is_finite() && value >= MIN_MORPH_VALUE) {
        return Err(EditError::InvalidValue {
            target: EditTarget::Morph,
            field: "morph_value".into(),
            message: format!("the morph is edited shown at {MIN_MORPH_VALUE} to 1, not {value}"),
        });
    }
    let offsets: HashMap<usize, glam::Vec3> = list
        .iter()
        .map(|o| (o.vertex.get(), glam::Vec3::from(o.offset)))
        .collect();
    let offset = |v: usize| offsets.get(&v).copied().unwrap_or(glam::Vec3::ZERO);
    let mut changes = HashMap::new();
    let mut kinds = Vec::new();
    for group in groups {
        if !group.transform.is_finite() {
            return Err(EditError::InvalidValue {
                target: EditTarget::Vertex,
                field: "transform".into(),
                message: "the move, rotation, scale or pivot is not a finite number".into(),
            });
        }
        if !group.indices.is_empty() {
            kinds.push(group.transform.kind());
        }
        for &v in &group.indices {
            let Some(vertex) = model.vertices.get(v) else {
                return Err(EditError::IndexOutOfRange {
                    kind: "vertex",
                    index: v,
                    len: model.vertices.len(),
                });
            };
            if changes.contains_key(&v) {
                continue;
            }
            let drawn = glam::Vec3::from(vertex.position) + offset(v) * value;
            let moved = glam::Vec3::from(group.transform.point(drawn.into()));
            changes.insert(v, offset(v) + (moved - drawn) / value);
        }
    }
    let new = with_vertex_offsets(list, &changes).ok_or(EditError::NoChange)?;
    let kind = kinds
        .into_iter()
        .reduce(|a, b| if a == b { a } else { TransformKind::Mixed })
        .unwrap_or(TransformKind::Identity);
    let key = match kind {
        TransformKind::Move => "edit.morph_move",
        TransformKind::Rotate => "edit.morph_rotate",
        TransformKind::Scale => "edit.morph_scale",
        TransformKind::Mixed | TransformKind::Identity => "edit.morph_transform",
    };
    let name = model
        .morphs
        .get(morph)
        .map_or_else(String::new, |m| m.name_ja.as_str().into_owned());
    let label = EditLabel::new(key)
        .arg("name", super::LabelArg::Text(name))
        .arg("count", super::LabelArg::Count(changes.len(), "vertex"));
    Ok((
        SetField::new(
            field::<Morph>().offsets(),
            vec![morph],
            MorphOffsets::Vertex(new),
        ),
        label,
    ))
}

/// The centre of `vertices` where they are drawn with vertex morph `morph` at `value` (`base
/// + value × offset`; another kind of morph: at rest), or `None` when none exists.
#[must_use]
pub fn drawn_centre(
    model: &Model,
    morph: usize,
    value: f32,
    vertices: &[usize],
) -> Option<glam::Vec3> {
    let offsets: HashMap<usize, glam::Vec3> = match model.morphs.get(morph).map(|m| &m.offsets) {
        Some(MorphOffsets::Vertex(list)) => list
            .iter()
            .map(|o| (o.vertex.get(), glam::Vec3::from(o.offset)))
            .collect(),
        _ => HashMap::new(),
    };
    let points: Vec<glam::Vec3> = vertices
        .iter()
        .filter_map(|&v| {
            let base = glam::Vec3::from(model.vertices.get(v)?.position);
            Some(base + offsets.get(&v).copied().unwrap_or(glam::Vec3::ZERO) * value)
        })
        .collect();
    (!points.is_empty()).then(|| points.iter().copied().sum::<glam::Vec3>() / points.len() as f32)
}

impl Edit {
    /// [`morph_transform_set`] as one undo step: the `transform` op with a `morph`.
    pub fn transform_morph(
        model: &Model,
        morph: usize,
        value: f32,
        groups: &[TransformGroup],
    ) -> Result<Edit, EditError> {
        let (set, label) = morph_transform_set(model, morph, value, groups)?;
        Ok(set.into_edit(model)?.with_label(label))
    }
}

/// Every vertex's position; with a rotation or scale also its normal, SDEF points and morph
/// offsets.
fn vertex_plan(model: &Model, elements: &[(usize, Transform)]) -> Plan {
    let mut sets = Vec::new();
    let indices: Vec<usize> = elements.iter().map(|&(i, _)| i).collect();
    let positions = elements
        .iter()
        .map(|&(i, t)| t.point(model.vertices[i].position))
        .collect();
    sets.push(SetField::each(
        field::<Vertex>().position(),
        indices,
        positions,
    ));
    let linear: Vec<(usize, Transform)> = elements
        .iter()
        .copied()
        .filter(|(_, t)| !t.is_linear_identity())
        .collect();
    if !linear.is_empty() {
        sets.push(SetField::each(
            field::<Vertex>().normal(),
            linear.iter().map(|&(i, _)| i).collect(),
            linear
                .iter()
                .map(|&(i, t)| t.normal(model.vertices[i].normal))
                .collect(),
        ));
    }
    // SDEF's C, R0 and R1 are points in model space: they move with the vertex.
    let sdef: Vec<(usize, Transform, [Vec3; 3])> = elements
        .iter()
        .filter_map(|&(i, t)| match model.vertices[i].weight {
            Weight::Sdef { c, r0, r1, .. } => Some((i, t, [c, r0, r1])),
            _ => None,
        })
        .collect();
    if !sdef.is_empty() {
        let sdef_indices: Vec<usize> = sdef.iter().map(|&(i, _, _)| i).collect();
        let weight = || field::<Vertex>().weight();
        for (slot, handle) in [weight().c(), weight().r0(), weight().r1()]
            .into_iter()
            .enumerate()
        {
            sets.push(SetField::each(
                handle,
                sdef_indices.clone(),
                sdef.iter()
                    .map(|&(_, t, points)| t.point(points[slot]))
                    .collect(),
            ));
        }
    }
    // Vertex morph offsets of the transformed vertices turn and scale with them.
    if !linear.is_empty() {
        let by_vertex: HashMap<usize, Transform> = linear.into_iter().collect();
        for (m, morph) in model.morphs.iter().enumerate() {
            let MorphOffsets::Vertex(offsets) = &morph.offsets else {
                continue;
            };
            if !offsets
                .iter()
                .any(|o| by_vertex.contains_key(&o.vertex.get()))
            {
                continue;
            }
            let mut turned = offsets.clone();
            for offset in &mut turned {
                if let Some(t) = by_vertex.get(&offset.vertex.get()) {
                    offset.offset = t.vector(offset.offset);
                }
            }
            sets.push(SetField::new(
                field::<Morph>().offsets(),
                vec![m],
                MorphOffsets::Vertex(turned),
            ));
        }
    }
    Plan { sets }
}

fn bone_plan(model: &Model, elements: &[(usize, Transform)]) -> Plan {
    let mut sets = vec![SetField::each(
        field::<Bone>().position(),
        elements.iter().map(|&(i, _)| i).collect(),
        elements
            .iter()
            .map(|&(i, t)| t.point(model.bones[i].position))
            .collect(),
    )];
    let linear: Vec<(usize, Transform)> = elements
        .iter()
        .copied()
        .filter(|(_, t)| !t.is_linear_identity())
        .collect();
    if linear.is_empty() {
        return Plan { sets };
    }
    let all: Vec<usize> = linear.iter().map(|&(i, _)| i).collect();
    // The tail offset is a displacement; a tail that is a bone follows that bone instead.
    let offset_tails: Vec<(usize, Transform)> = linear
        .iter()
        .copied()
        .filter(|&(i, _)| !model.bones[i].flags.contains(BoneFlags::TAIL_IS_BONE))
        .collect();
    if !offset_tails.is_empty() {
        sets.push(SetField::each(
            field::<Bone>().tail_offset(),
            offset_tails.iter().map(|&(i, _)| i).collect(),
            offset_tails
                .iter()
                .map(|&(i, t)| t.vector(model.bones[i].tail_offset))
                .collect(),
        ));
    }
    // Axes are directions: every bone's, also where its flag is off, so that switching the
    // flag on again shows the axis turned with the bone.
    let directions = |get: fn(&Bone) -> Vec3| -> Vec<Vec3> {
        linear
            .iter()
            .map(|&(i, t)| t.direction(get(&model.bones[i])))
            .collect()
    };
    sets.push(SetField::each(
        field::<Bone>().fixed_axis(),
        all.clone(),
        directions(|b| b.fixed_axis),
    ));
    sets.push(SetField::each(
        field::<Bone>().local_axis_x(),
        all.clone(),
        directions(|b| b.local_axis_x),
    ));
    sets.push(SetField::each(
        field::<Bone>().local_axis_z(),
        all,
        directions(|b| b.local_axis_z),
    ));
    Plan { sets }
}

fn body_plan(model: &Model, elements: &[(usize, Transform)]) -> Plan {
    let indices: Vec<usize> = elements.iter().map(|&(i, _)| i).collect();
    let mut sets = vec![SetField::each(
        field::<RigidBody>().position(),
        indices.clone(),
        elements
            .iter()
            .map(|&(i, t)| t.point(model.rigid_bodies[i].position))
            .collect(),
    )];
    if elements.iter().any(|(_, t)| t.rotates()) {
        sets.push(SetField::each(
            field::<RigidBody>().rotation(),
            indices,
            elements
                .iter()
                .map(|&(i, t)| t.euler(model.rigid_bodies[i].rotation))
                .collect(),
        ));
    }
    Plan { sets }
}

fn joint_plan(model: &Model, elements: &[(usize, Transform)]) -> Plan {
    let indices: Vec<usize> = elements.iter().map(|&(i, _)| i).collect();
    let mut sets = vec![SetField::each(
        field::<Joint>().position(),
        indices.clone(),
        elements
            .iter()
            .map(|&(i, t)| t.point(model.joints[i].position))
            .collect(),
    )];
    if elements.iter().any(|(_, t)| t.rotates()) {
        sets.push(SetField::each(
            field::<Joint>().rotation(),
            indices,
            elements
                .iter()
                .map(|&(i, t)| t.euler(model.joints[i].rotation))
                .collect(),
        ));
    }
    Plan { sets }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use crate::edit::{EditOp, History, ops_to_edit};
    use crate::formats::pmx::{PmxSaveOptions, write};
    use crate::model::{BoneIdx, Ik, VertexIdx, VertexMorphOffset};
    use std::f32::consts::FRAC_PI_2;

    fn v(x: f32, y: f32, z: f32) -> Vec3 {
        Vec3::new(x, y, z)
    }

    fn close(a: Vec3, b: Vec3) -> bool {
        (g(a) - g(b)).length() < 1e-5
    }

    /// Three vertices (one SDEF), a vertex morph on two of them, two bones (one with an offset
    /// tail and axes, one with a bone tail), a rigid body and a joint.
    fn model() -> Model {
        let mut model = Model::new_empty();
        for (i, (p, n)) in [
            (v(1.0, 0.0, 0.0), v(1.0, 0.0, 0.0)),
            (v(3.0, 0.0, 0.0), v(0.0, 1.0, 0.0)),
            (v(2.0, 2.0, 0.0), v(0.6, 0.8, 0.0)),
        ]
        .into_iter()
        .enumerate()
        {
            let mut vertex = Vertex {
                position: p,
                normal: n,
                ..Vertex::default()
            };
            if i == 1 {
                vertex.weight = Weight::Sdef {
                    bones: [Some(BoneIdx::new(0)), Some(BoneIdx::new(1))],
                    weight: 0.5,
                    c: v(3.0, 1.0, 0.0),
                    r0: v(4.0, 0.0, 0.0),
                    r1: v(2.0, 0.0, 0.0),
                };
            }
            model.vertices.push(vertex);
        }
        model.morphs.push(Morph {
            name_ja: "あ".into(),
            name_en: "a".into(),
            panel: crate::model::MorphPanel::Mouth,
            offsets: MorphOffsets::Vertex(vec![
                VertexMorphOffset {
                    vertex: VertexIdx::new(1),
                    offset: v(1.0, 0.0, 0.0),
                },
                VertexMorphOffset {
                    vertex: VertexIdx::new(2),
                    offset: v(0.0, 0.5, 0.0),
                },
            ]),
        });
        let mut bone = Bone {
            position: v(1.0, 0.0, 0.0),
            tail_offset: v(1.0, 0.0, 0.0),
            fixed_axis: v(1.0, 0.0, 0.0),
            local_axis_x: v(1.0, 0.0, 0.0),
            local_axis_z: v(0.0, 0.0, 1.0),
            ..Bone::default()
        };
        bone.flags |= BoneFlags::FIXED_AXIS | BoneFlags::LOCAL_AXES;
        model.bones.push(bone);
        let mut tail_bone = Bone {
            position: v(3.0, 0.0, 0.0),
            tail_bone: Some(BoneIdx::new(0)),
            ik: Ik::default(),
            ..Bone::default()
        };
        tail_bone.flags |= BoneFlags::TAIL_IS_BONE;
        model.bones.push(tail_bone);
        model.rigid_bodies.push(RigidBody {
            position: v(1.0, 0.0, 0.0),
            ..RigidBody::default()
        });
        model.joints.push(Joint {
            position: v(1.0, 0.0, 0.0),
            ..Joint::default()
        });
        model
    }

    fn bytes(model: &Model) -> Vec<u8> {
        write(model, &PmxSaveOptions::default()).unwrap().0
    }

    /// Applies `edit`, checks undo gives the bytes back, and returns the edited model.
    fn apply_and_check_undo(model: &Model, edit: Edit) -> Model {
        let before = bytes(model);
        let mut edited = model.clone();
        let mut history = History::new();
        history.apply(&mut edited, edit);
        let after = edited.clone();
        history.undo(&mut edited);
        assert_eq!(bytes(&edited), before, "undo restores the bytes");
        history.redo(&mut edited);
        assert_eq!(bytes(&edited), bytes(&after), "redo repeats");
        after
    }

    #[test]
    fn a_quarter_turn_of_vertices_turns_normals_sdef_and_morph_offsets() {
        let mut model = model();
        let turn = Transform::rotating(Quat::from_rotation_z(FRAC_PI_2), glam::Vec3::ZERO);
        let edit = Edit::transform(
            &mut model,
            EditTarget::Vertex,
            &[TransformGroup {
                indices: vec![1, 2],
                transform: turn,
            }],
        )
        .unwrap();
        assert_eq!(edit.label(), "Rotate 2 vertices");
        assert_eq!(
            edit.label_in(crate::i18n::Language::Japanese),
            "頂点2個を回転"
        );
        let after = apply_and_check_undo(&model, edit);
        // (x, y) → (−y, x).
        assert_eq!(after.vertices[0], model.vertices[0], "vertex 0 untouched");
        assert!(close(after.vertices[1].position, v(0.0, 3.0, 0.0)));
        assert!(close(after.vertices[1].normal, v(-1.0, 0.0, 0.0)));
        assert!(close(after.vertices[2].position, v(-2.0, 2.0, 0.0)));
        assert!(close(after.vertices[2].normal, v(-0.8, 0.6, 0.0)));
        let Weight::Sdef { c, r0, r1, .. } = after.vertices[1].weight else {
            panic!("SDEF kept");
        };
        assert!(close(c, v(-1.0, 3.0, 0.0)));
        assert!(close(r0, v(0.0, 4.0, 0.0)));
        assert!(close(r1, v(0.0, 2.0, 0.0)));
        let MorphOffsets::Vertex(offsets) = &after.morphs[0].offsets else {
            panic!("vertex morph");
        };
        assert!(close(offsets[0].offset, v(0.0, 1.0, 0.0)));
        assert!(close(offsets[1].offset, v(-0.5, 0.0, 0.0)));
    }

    #[test]
    fn a_move_changes_positions_only_and_keeps_every_other_bit() {
        let mut model = model();
        let edit = Edit::transform(
            &mut model,
            EditTarget::Vertex,
            &[TransformGroup {
                indices: vec![0, 1, 2],
                transform: Transform::moving(glam::Vec3::new(0.0, 1.0, 0.0)),
            }],
        )
        .unwrap();
        assert_eq!(edit.label(), "Move 3 vertices");
        let after = apply_and_check_undo(&model, edit);
        for (a, b) in after.vertices.iter().zip(&model.vertices) {
            assert_eq!(a.position.y, b.position.y + 1.0);
            assert_eq!(a.normal, b.normal);
        }
        // SDEF points are positions: they move with the vertex.
        let Weight::Sdef { c, .. } = after.vertices[1].weight else {
            panic!("SDEF kept");
        };
        assert_eq!(c, v(3.0, 2.0, 0.0));
        assert_eq!(
            after.morphs, model.morphs,
            "a move leaves morph offsets alone"
        );
    }

    #[test]
    fn a_mirroring_scale_keeps_normals_facing_out_and_a_stretch_uses_the_inverse_transpose() {
        let mut model = model();
        let mirror = Transform::scaling(glam::Vec3::new(-1.0, 1.0, 1.0), glam::Vec3::ZERO);
        let edit = Edit::transform(
            &mut model,
            EditTarget::Vertex,
            &[TransformGroup {
                indices: vec![0, 2],
                transform: mirror,
            }],
        )
        .unwrap();
        let after = apply_and_check_undo(&model, edit);
        assert!(close(after.vertices[0].position, v(-1.0, 0.0, 0.0)));
        assert!(close(after.vertices[0].normal, v(-1.0, 0.0, 0.0)));
        assert!(close(after.vertices[2].normal, v(-0.6, 0.8, 0.0)));
        // A surface at 45° stretched twice in X leans toward Y: n ∝ (1/2, 1).
        let stretch = Transform::scaling(glam::Vec3::new(2.0, 1.0, 1.0), glam::Vec3::ZERO);
        let n = stretch.normal(v(
            std::f32::consts::FRAC_1_SQRT_2,
            std::f32::consts::FRAC_1_SQRT_2,
            0.0,
        ));
        assert!(close(n, m(glam::Vec3::new(0.5, 1.0, 0.0).normalize())));
        assert_eq!(
            stretch.normal(Vec3::ZERO),
            Vec3::ZERO,
            "no direction stays none"
        );
    }

    #[test]
    fn bones_bodies_and_joints_turn_with_their_axes_and_rotations() {
        let mut model = model();
        let turn = Transform::rotating(Quat::from_rotation_z(FRAC_PI_2), glam::Vec3::ZERO);
        let group = |indices: Vec<usize>| {
            [TransformGroup {
                indices,
                transform: turn,
            }]
        };
        let edit = Edit::transform(&mut model, EditTarget::Bone, &group(vec![0, 1])).unwrap();
        let after = apply_and_check_undo(&model, edit);
        assert!(close(after.bones[0].position, v(0.0, 1.0, 0.0)));
        assert!(close(after.bones[0].tail_offset, v(0.0, 1.0, 0.0)));
        assert!(close(after.bones[0].fixed_axis, v(0.0, 1.0, 0.0)));
        assert!(close(after.bones[0].local_axis_x, v(0.0, 1.0, 0.0)));
        assert!(close(after.bones[0].local_axis_z, v(0.0, 0.0, 1.0)));
        assert_eq!(
            after.bones[1].tail_offset, model.bones[1].tail_offset,
            "a bone tail follows its bone, not the offset"
        );
        let edit = Edit::transform(&mut model, EditTarget::RigidBody, &group(vec![0])).unwrap();
        let after = apply_and_check_undo(&model, edit);
        assert!(close(after.rigid_bodies[0].position, v(0.0, 1.0, 0.0)));
        assert!(close(
            after.rigid_bodies[0].rotation,
            v(0.0, 0.0, FRAC_PI_2)
        ));
        let edit = Edit::transform(&mut model, EditTarget::Joint, &group(vec![0])).unwrap();
        let after = apply_and_check_undo(&model, edit);
        assert!(close(after.joints[0].rotation, v(0.0, 0.0, FRAC_PI_2)));
    }

    #[test]
    fn the_mirrored_transform_is_the_change_seen_in_the_mirror() {
        let change = Transform {
            translation: glam::Vec3::new(0.5, 0.25, -1.0),
            rotation: Quat::from_euler(glam::EulerRot::YXZ, 0.3, -0.7, 1.1),
            scale: glam::Vec3::new(1.5, 0.5, 2.0),
            pivot: glam::Vec3::new(2.0, 1.0, 0.5),
        };
        let mirror = |p: Vec3| v(-p.x, p.y, p.z);
        for p in [v(1.0, 2.0, 3.0), v(-4.0, 0.5, 0.0), v(0.0, 0.0, -2.0)] {
            let seen = mirror(change.point(p));
            let direct = change.mirrored_x().point(mirror(p));
            assert!(close(seen, direct), "{seen:?} vs {direct:?}");
        }
    }

    #[test]
    fn the_script_op_turns_in_degrees_about_the_centre_and_refuses_other_kinds() {
        let mut model = model();
        let op: EditOp = serde_json::from_str(
            r#"{"op": "transform", "kind": "vertex", "indices": [0, 1], "rotate": [0, 0, 90]}"#,
        )
        .unwrap();
        let edit = ops_to_edit(&mut model, &[op]).unwrap();
        let after = apply_and_check_undo(&model, edit);
        // About the centre (2, 0, 0): (1, 0, 0) → (2, −1, 0), (3, 0, 0) → (2, 1, 0).
        assert!(close(after.vertices[0].position, v(2.0, -1.0, 0.0)));
        assert!(close(after.vertices[1].position, v(2.0, 1.0, 0.0)));
        let op: EditOp = serde_json::from_str(
            r#"{"op": "transform", "kind": "vertex", "indices": [0], "scale": 2, "pivot": [0, 0, 0], "move": [0, 0, 1]}"#,
        )
        .unwrap();
        let edit = ops_to_edit(&mut model, &[op]).unwrap();
        assert_eq!(edit.label(), "Transform 1 vertex");
        let after = apply_and_check_undo(&model, edit);
        assert_eq!(after.vertices[0].position, v(2.0, 0.0, 1.0));
        let op: EditOp = serde_json::from_str(
            r#"{"op": "transform", "kind": "material", "indices": [0], "move": [0, 1, 0]}"#,
        )
        .unwrap();
        assert!(ops_to_edit(&mut model, &[op]).is_err());
        let op: EditOp = serde_json::from_str(
            r#"{"op": "transform", "kind": "vertex", "indices": [7], "move": [0, 1, 0]}"#,
        )
        .unwrap();
        assert!(ops_to_edit(&mut model, &[op]).is_err());
    }

    #[test]
    fn frames_of_one_gesture_merge_into_one_step_that_undoes_exactly() {
        let mut model = model();
        let original = bytes(&model);
        let mut history = History::new();
        let gesture = history.new_gesture();
        let step = Transform::rotating(Quat::from_rotation_z(0.1), glam::Vec3::ZERO);
        for _ in 0..5 {
            let edit = Edit::transform(
                &mut model,
                EditTarget::Vertex,
                &[TransformGroup {
                    indices: vec![1, 2],
                    transform: step,
                }],
            )
            .unwrap()
            .in_gesture(gesture);
            history.apply(&mut model, edit);
        }
        assert_eq!(history.len(), 1, "one drag, one step");
        let turned = Transform::rotating(Quat::from_rotation_z(0.5), glam::Vec3::ZERO);
        assert!(close(
            model.vertices[1].normal,
            turned.normal(v(0.0, 1.0, 0.0))
        ));
        history.undo(&mut model);
        assert_eq!(bytes(&model), original);
    }
}

#[cfg(test)]
mod morph_offset_tests {
    use super::*;
    use crate::model::{VertexIdx, VertexMorphOffset};
    use glam::Vec3;

    fn entry(vertex: usize, offset: [f32; 3]) -> VertexMorphOffset {
        VertexMorphOffset {
            vertex: VertexIdx::new(vertex),
            offset: Vec3::from(offset).into(),
        }
    }

    #[test]
    fn changed_offsets_keep_their_place_new_ones_join_in_vertex_order_and_zeros_leave() {
        let list = vec![entry(5, [1.0, 0.0, 0.0]), entry(2, [0.0, 1.0, 0.0])];
        let changes = HashMap::from([
            (2, Vec3::ZERO),
            (5, Vec3::new(2.0, 0.0, 0.0)),
            (9, Vec3::new(0.0, 0.0, 3.0)),
            (7, Vec3::new(0.0, 0.5, 0.0)),
            (8, Vec3::splat(1.0e-8)),
        ]);
        let out = with_vertex_offsets(&list, &changes).unwrap();
        assert_eq!(
            out,
            vec![
                entry(5, [2.0, 0.0, 0.0]),
                entry(7, [0.0, 0.5, 0.0]),
                entry(9, [0.0, 0.0, 3.0]),
            ]
        );
        // The same offsets again change nothing.
        let same = HashMap::from([(5, Vec3::new(2.0, 0.0, 0.0))]);
        assert_eq!(with_vertex_offsets(&out, &same), None);
    }

    #[test]
    fn a_move_of_vertices_drawn_at_half_strength_doubles_into_the_offsets_and_leaves_the_base() {
        let mut model = crate::generate::sample_model();
        model.morphs.push(crate::model::Morph {
            name_ja: "笑い".into(),
            name_en: "".into(),
            panel: crate::model::MorphPanel::Mouth,
            offsets: MorphOffsets::Vertex(vec![entry(2, [0.0, 1.0, 0.0])]),
        });
        let morph = model.morphs.len() - 1;
        let before = model.clone();
        // Vertex 2 is drawn at base + 0.5 × (0, 1, 0); moving it and vertex 3 by (0.1, 0, 0)
        // drawn is (0.2, 0, 0) of offset; moving vertex 2 back by (0, -0.5, 0) empties its.
        let group = |indices: Vec<usize>, by: [f32; 3]| TransformGroup {
            indices,
            transform: Transform::moving(glam::Vec3::from(by)),
        };
        let edit = Edit::transform_morph(&model, morph, 0.5, &[group(vec![2, 3], [0.1, 0.0, 0.0])])
            .unwrap();
        let mut history = crate::edit::History::new();
        history.apply(&mut model, edit);
        assert_eq!(
            model.vertices, before.vertices,
            "the base mesh is untouched"
        );
        let MorphOffsets::Vertex(list) = &model.morphs[morph].offsets else {
            panic!()
        };
        assert_eq!(list.len(), 2);
        assert!((Vec3::from(list[0].offset) - Vec3::new(0.2, 1.0, 0.0)).length() < 1e-6);
        assert_eq!(list[1].vertex.get(), 3);
        assert!((Vec3::from(list[1].offset) - Vec3::new(0.2, 0.0, 0.0)).length() < 1e-6);
        assert_eq!(
            history
                .undo_edit_label()
                .unwrap()
                .render(crate::i18n::Language::Japanese),
            "モーフ「笑い」の頂点2個を移動"
        );
        let back =
            Edit::transform_morph(&model, morph, 0.5, &[group(vec![3], [-0.1, 0.0, 0.0])]).unwrap();
        history.apply(&mut model, back);
        let MorphOffsets::Vertex(list) = &model.morphs[morph].offsets else {
            panic!()
        };
        assert_eq!(list.len(), 1, "an offset back at zero leaves the list");
        history.undo(&mut model);
        history.undo(&mut model);
        assert_eq!(model, before, "undo is exact");
        // Not a vertex morph, or shown at 0: refused.
        let bone_morph = model
            .morphs
            .iter()
            .position(|m| !matches!(m.offsets, MorphOffsets::Vertex(_)));
        if let Some(other) = bone_morph {
            assert!(
                Edit::transform_morph(&model, other, 1.0, &[group(vec![2], [1.0, 0.0, 0.0])])
                    .is_err()
            );
        }
        assert!(
            Edit::transform_morph(&model, morph, 0.0, &[group(vec![2], [1.0, 0.0, 0.0])]).is_err()
        );
    }

    #[test]
    fn the_transform_op_with_a_morph_replays_morph_edit_mode() {
        let mut model = crate::generate::sample_model();
        model.morphs.push(crate::model::Morph {
            name_ja: "笑い2".into(),
            name_en: "".into(),
            panel: crate::model::MorphPanel::Other,
            offsets: MorphOffsets::Vertex(vec![entry(4, [0.0, 0.0, 1.0])]),
        });
        let morph = model.morphs.len() - 1;
        let before = model.clone();
        let ops: Vec<crate::edit::EditOp> = serde_json::from_str(
            r#"[{"op": "transform", "kind": "vertex", "indices": [4, 5], "scale": 2.0,
                 "morph": "笑い2", "morph_value": 0.5}]"#,
        )
        .unwrap();
        let edit = crate::edit::ops_to_edit(&mut model, &ops).unwrap();
        crate::edit::History::new().apply(&mut model, edit);
        assert_eq!(model.vertices, before.vertices);
        // Drawn at base + 0.5 × offset; doubled about their drawn centre c: a vertex drawn at
        // d goes to 2d − c, so its offset grows by (d − c) / 0.5.
        let drawn = |v: usize| {
            let base = Vec3::from(before.vertices[v].position);
            if v == 4 {
                base + Vec3::new(0.0, 0.0, 0.5)
            } else {
                base
            }
        };
        let centre = (drawn(4) + drawn(5)) / 2.0;
        let MorphOffsets::Vertex(list) = &model.morphs[morph].offsets else {
            panic!()
        };
        let offset = |v: usize| {
            list.iter()
                .find(|o| o.vertex.get() == v)
                .map(|o| Vec3::from(o.offset))
                .unwrap()
        };
        let expected4 = Vec3::new(0.0, 0.0, 1.0) + (drawn(4) - centre) / 0.5;
        let expected5 = (drawn(5) - centre) / 0.5;
        assert!((offset(4) - expected4).length() < 1e-4, "{:?}", offset(4));
        assert!((offset(5) - expected5).length() < 1e-4, "{:?}", offset(5));
        // Into a morph only for vertices.
        let bones: Vec<crate::edit::EditOp> = serde_json::from_str(
            r#"[{"op": "transform", "kind": "bone", "indices": [0], "move": [1, 0, 0], "morph": 0}]"#,
        )
        .unwrap();
        assert!(crate::edit::ops_to_edit(&mut model, &bones).is_err());
    }
}
