//! "Apply pose as rest" and "save pose as bone morph": the new model data a pose gives. The
//! edit layer wraps them as undoable edits; the CLI's `pose` command applies them directly.

use super::{Pose, PoseError, PoseEvaluator};
use crate::model::facts::{euler_to_quat, quat_to_euler};
use crate::model::{
    BoneFlags, BoneMorphOffset, Model, Morph, MorphIdx, MorphOffsets, MorphPanel, Text, Vec2, Vec3,
    Vec4, VertexIdx, Weight,
};

/// New values of the bone fields a rest change touches.
#[derive(Debug, Clone, PartialEq)]
pub struct RestBone {
    pub position: Vec3,
    /// Turned with the bone (meaningful when the tail is an offset).
    pub tail_offset: Vec3,
    pub fixed_axis: Vec3,
    pub local_axis_x: Vec3,
    pub local_axis_z: Vec3,
}

/// New values of the material fields a material morph changes.
#[derive(Debug, Clone, PartialEq)]
pub struct RestMaterial {
    pub diffuse: Vec4,
    pub specular: Vec3,
    pub specular_power: f32,
    pub ambient: Vec3,
    pub edge_color: Vec4,
    pub edge_size: f32,
}

/// Everything "apply pose as rest" changes, element by element (dense: one entry per element
/// of the kind, in model order). [`PoseAsRest::apply_to`] writes it into a model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PoseAsRest {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub uvs: Vec<Vec2>,
    /// The model's additional UV channels with UV morphs applied.
    pub additional_uvs: Vec<Vec<Vec4>>,
    /// New SDEF C, R0, R1 of SDEF vertices: C moves with the vertex's blend, R0 with bone 0,
    /// R1 with bone 1.
    pub sdef: Vec<(VertexIdx, [Vec3; 3])>,
    pub bones: Vec<RestBone>,
    pub materials: Vec<RestMaterial>,
    /// Vertex morph offsets turned with their vertices, so each morph keeps its shape on the
    /// new rest pose.
    pub vertex_morphs: Vec<(MorphIdx, Vec<Vec3>)>,
    /// Rigid body position and rotation (YXZ Euler radians), moved with their bones.
    pub rigid_bodies: Vec<(Vec3, Vec3)>,
    /// Joint position and rotation, moved with the bone of body A (else B).
    pub joints: Vec<(Vec3, Vec3)>,
    /// What the model cannot hold (texture/sphere/toon tints of material morphs, bone morphs
    /// whose frames changed).
    pub notes: Vec<crate::i18n::Message>,
}

/// Works out the model data of `pose` (with its morphs) as the new rest shape: vertices
/// skinned, bones moved to their posed positions, morph results baked in.
pub fn pose_as_rest(model: &Model, pose: &Pose) -> Result<PoseAsRest, PoseError> {
    let mut evaluator = PoseEvaluator::new(model);
    evaluator.evaluate(model, pose)?;
    let skinner = &evaluator.skinner;
    let skeleton = &evaluator.skeleton;
    let mut notes = Vec::new();

    let positions = evaluator
        .positions()
        .iter()
        .map(|&p| Vec3::from(p))
        .collect();
    let normals = (0..model.vertices.len())
        .map(|v| {
            skinner
                .unit_normal(v)
                .map_or(model.vertices[v].normal, Vec3::from)
        })
        .collect();
    let uvs = evaluator.uvs().iter().map(|&uv| Vec2::from(uv)).collect();
    let additional_uvs = (0..model.additional_uvs.len())
        .map(|channel| {
            evaluator.additional_uv(channel).map_or_else(
                || model.additional_uvs[channel].clone(),
                |values| values.iter().map(|&v| Vec4::from(v)).collect(),
            )
        })
        .collect();

    let mut sdef = Vec::new();
    for (v, vertex) in model.vertices.iter().enumerate() {
        if let Weight::Sdef {
            bones, c, r0, r1, ..
        } = &vertex.weight
        {
            let c = skinner
                .deform_as_vertex(v, (*c).into(), glam::Vec3::Y)
                .map_or(*c, |(p, _)| p.into());
            let r0 = skinner.bone_matrix(bones[0]).transform_point3((*r0).into());
            let r1 = skinner.bone_matrix(bones[1]).transform_point3((*r1).into());
            sdef.push((VertexIdx::new(v), [c, r0.into(), r1.into()]));
        }
    }

    let bones = model
        .bones
        .iter()
        .zip(skeleton.globals())
        .map(|(bone, global)| {
            let turn = |v: Vec3| Vec3::from(global.rotation * glam::Vec3::from(v));
            RestBone {
                position: glam::Vec3::from(global.translation).into(),
                tail_offset: turn(bone.tail_offset),
                fixed_axis: turn(bone.fixed_axis),
                local_axis_x: turn(bone.local_axis_x),
                local_axis_z: turn(bone.local_axis_z),
            }
        })
        .collect();

    let materials = model
        .materials
        .iter()
        .zip(evaluator.morphs.materials())
        .enumerate()
        .map(|(i, (material, state))| {
            let morphed = state.apply(material);
            let tints = [
                (state.multiply.texture_tint, state.add.texture_tint),
                (state.multiply.sphere_tint, state.add.sphere_tint),
                (state.multiply.toon_tint, state.add.toon_tint),
            ];
            if tints
                .iter()
                .any(|&(m, a)| m != glam::Vec4::ONE || a != glam::Vec4::ZERO)
            {
                notes.push(
                    crate::i18n::Message::new("edit.note.rest_material_tints").arg("index", i),
                );
            }
            RestMaterial {
                diffuse: morphed.diffuse.into(),
                specular: morphed.specular.into(),
                specular_power: morphed.specular_power,
                ambient: morphed.ambient.into(),
                edge_color: morphed.edge_color.into(),
                edge_size: morphed.edge_size,
            }
        })
        .collect();

    let rest_positions = evaluator.morphs.positions();
    let vertex_morphs = model
        .morphs
        .iter()
        .enumerate()
        .filter_map(|(i, morph)| match &morph.offsets {
            MorphOffsets::Vertex(offsets) => Some((
                MorphIdx::new(i),
                offsets
                    .iter()
                    .map(|o| {
                        let v = o.vertex.get();
                        let Some(base) = rest_positions.get(v) else {
                            return o.offset;
                        };
                        let deform = |p: glam::Vec3| {
                            skinner
                                .deform_as_vertex(v, p, glam::Vec3::Y)
                                .map_or(p, |(p, _)| p)
                        };
                        let moved = deform(base + glam::Vec3::from(o.offset)) - deform(base);
                        moved.into()
                    })
                    .collect(),
            )),
            _ => None,
        })
        .collect();
    if model
        .morphs
        .iter()
        .any(|m| matches!(&m.offsets, MorphOffsets::Bone(o) if !o.is_empty()))
        && !pose.bones.iter().all(super::BonePose::is_rest)
    {
        notes.push(crate::i18n::Message::new("edit.note.rest_bone_morphs"));
    }

    let place = |bone: Option<crate::model::BoneIdx>, position: Vec3, rotation: Vec3| {
        let Some(global) = bone.and_then(|b| skeleton.global(b)) else {
            return (position, rotation);
        };
        let matrix = skinner.bone_matrix(bone);
        let old = euler_to_quat(rotation);
        (
            matrix.transform_point3(position.into()).into(),
            quat_to_euler(global.rotation * old),
        )
    };
    let rigid_bodies = model
        .rigid_bodies
        .iter()
        .map(|body| place(body.bone, body.position, body.rotation))
        .collect();
    let joints = model
        .joints
        .iter()
        .map(|joint| {
            let body = |b: Option<crate::model::RigidBodyIdx>| {
                b.and_then(|b| model.rigid_bodies.get(b.get()))
                    .and_then(|body| body.bone)
            };
            let bone = body(joint.body_a).or_else(|| body(joint.body_b));
            place(bone, joint.position, joint.rotation)
        })
        .collect();

    Ok(PoseAsRest {
        positions,
        normals,
        uvs,
        additional_uvs,
        sdef,
        bones,
        materials,
        vertex_morphs,
        rigid_bodies,
        joints,
        notes,
    })
}

impl PoseAsRest {
    /// Writes the new values into `model` (the model they were worked out from).
    pub fn apply_to(&self, model: &mut Model) {
        for (vertex, ((&position, &normal), &uv)) in model
            .vertices
            .iter_mut()
            .zip(self.positions.iter().zip(&self.normals).zip(&self.uvs))
        {
            vertex.position = position;
            vertex.normal = normal;
            vertex.uv = uv;
        }
        for (channel, values) in model.additional_uvs.iter_mut().zip(&self.additional_uvs) {
            channel.clone_from(values);
        }
        for (v, [new_c, new_r0, new_r1]) in &self.sdef {
            if let Some(Weight::Sdef { c, r0, r1, .. }) =
                model.vertices.get_mut(v.get()).map(|v| &mut v.weight)
            {
                (*c, *r0, *r1) = (*new_c, *new_r0, *new_r1);
            }
        }
        for (bone, rest) in model.bones.iter_mut().zip(&self.bones) {
            bone.position = rest.position;
            if !bone.flags.contains(BoneFlags::TAIL_IS_BONE) {
                bone.tail_offset = rest.tail_offset;
            }
            bone.fixed_axis = rest.fixed_axis;
            bone.local_axis_x = rest.local_axis_x;
            bone.local_axis_z = rest.local_axis_z;
        }
        for (material, rest) in model.materials.iter_mut().zip(&self.materials) {
            material.diffuse = rest.diffuse;
            material.specular = rest.specular;
            material.specular_power = rest.specular_power;
            material.ambient = rest.ambient;
            material.edge_color = rest.edge_color;
            material.edge_size = rest.edge_size;
        }
        for (morph, offsets) in &self.vertex_morphs {
            if let Some(MorphOffsets::Vertex(list)) =
                model.morphs.get_mut(morph.get()).map(|m| &mut m.offsets)
            {
                for (offset, &new) in list.iter_mut().zip(offsets) {
                    offset.offset = new;
                }
            }
        }
        for (body, &(position, rotation)) in model.rigid_bodies.iter_mut().zip(&self.rigid_bodies) {
            body.position = position;
            body.rotation = rotation;
        }
        for (joint, &(position, rotation)) in model.joints.iter_mut().zip(&self.joints) {
            joint.position = position;
            joint.rotation = rotation;
        }
    }
}

impl PoseAsRest {
    /// Exchanges the values it holds with the model's: the model gets the posed values and
    /// `self` the ones they replaced, so calling it again restores the model exactly. This is
    /// the undoable "apply pose as rest" edit: one swap to apply, the same swap to undo, and no
    /// copy of the model beyond the fields the pose changes.
    pub fn swap_with(&mut self, model: &mut Model) {
        for (vertex, ((position, normal), uv)) in model.vertices.iter_mut().zip(
            self.positions
                .iter_mut()
                .zip(self.normals.iter_mut())
                .zip(self.uvs.iter_mut()),
        ) {
            std::mem::swap(&mut vertex.position, position);
            std::mem::swap(&mut vertex.normal, normal);
            std::mem::swap(&mut vertex.uv, uv);
        }
        for (channel, values) in model
            .additional_uvs
            .iter_mut()
            .zip(self.additional_uvs.iter_mut())
        {
            if channel.len() == values.len() {
                std::mem::swap(channel, values);
            }
        }
        for (v, [new_c, new_r0, new_r1]) in &mut self.sdef {
            if let Some(Weight::Sdef { c, r0, r1, .. }) =
                model.vertices.get_mut(v.get()).map(|v| &mut v.weight)
            {
                std::mem::swap(c, new_c);
                std::mem::swap(r0, new_r0);
                std::mem::swap(r1, new_r1);
            }
        }
        for (bone, rest) in model.bones.iter_mut().zip(self.bones.iter_mut()) {
            std::mem::swap(&mut bone.position, &mut rest.position);
            if !bone.flags.contains(BoneFlags::TAIL_IS_BONE) {
                std::mem::swap(&mut bone.tail_offset, &mut rest.tail_offset);
            }
            std::mem::swap(&mut bone.fixed_axis, &mut rest.fixed_axis);
            std::mem::swap(&mut bone.local_axis_x, &mut rest.local_axis_x);
            std::mem::swap(&mut bone.local_axis_z, &mut rest.local_axis_z);
        }
        for (material, rest) in model.materials.iter_mut().zip(self.materials.iter_mut()) {
            std::mem::swap(&mut material.diffuse, &mut rest.diffuse);
            std::mem::swap(&mut material.specular, &mut rest.specular);
            std::mem::swap(&mut material.specular_power, &mut rest.specular_power);
            std::mem::swap(&mut material.ambient, &mut rest.ambient);
            std::mem::swap(&mut material.edge_color, &mut rest.edge_color);
            std::mem::swap(&mut material.edge_size, &mut rest.edge_size);
        }
        for (morph, offsets) in &mut self.vertex_morphs {
            if let Some(MorphOffsets::Vertex(list)) =
                model.morphs.get_mut(morph.get()).map(|m| &mut m.offsets)
            {
                for (offset, new) in list.iter_mut().zip(offsets.iter_mut()) {
                    std::mem::swap(&mut offset.offset, new);
                }
            }
        }
        for (body, (position, rotation)) in model
            .rigid_bodies
            .iter_mut()
            .zip(self.rigid_bodies.iter_mut())
        {
            std::mem::swap(&mut body.position, position);
            std::mem::swap(&mut body.rotation, rotation);
        }
        for (joint, (position, rotation)) in model.joints.iter_mut().zip(self.joints.iter_mut()) {
            std::mem::swap(&mut joint.position, position);
            std::mem::swap(&mut joint.rotation, rotation);
        }
    }

    /// Heap memory the values hold.
    #[must_use]
    pub fn heap_size(&self) -> usize {
        use std::mem::size_of;
        self.positions.capacity() * size_of::<Vec3>()
            + self.normals.capacity() * size_of::<Vec3>()
            + self.uvs.capacity() * size_of::<Vec2>()
            + self
                .additional_uvs
                .iter()
                .map(|c| c.capacity() * size_of::<Vec4>())
                .sum::<usize>()
            + self.sdef.capacity() * size_of::<(VertexIdx, [Vec3; 3])>()
            + self.bones.capacity() * size_of::<RestBone>()
            + self.materials.capacity() * size_of::<RestMaterial>()
            + self
                .vertex_morphs
                .iter()
                .map(|(_, o)| o.capacity() * size_of::<Vec3>())
                .sum::<usize>()
            + (self.rigid_bodies.capacity() + self.joints.capacity()) * size_of::<(Vec3, Vec3)>()
            + self
                .notes
                .iter()
                .map(crate::i18n::Message::heap_size)
                .sum::<usize>()
    }
}

/// `model` with `pose` applied as its new rest shape (see [`pose_as_rest`]), plus the notes on
/// what could not be kept.
pub fn apply_pose_as_rest(
    model: &Model,
    pose: &Pose,
) -> Result<(Model, Vec<crate::i18n::Message>), PoseError> {
    let changes = pose_as_rest(model, pose)?;
    let mut posed = model.clone();
    changes.apply_to(&mut posed);
    Ok((posed, changes.notes))
}

/// A bone morph holding the user's bone rotations and translations of `pose` (bones at rest are
/// left out). Setting the morph to 1 on the rest pose gives the pose back, IK included (the IK
/// bones' moves are in the morph and IK is solved from them).
#[must_use]
pub fn pose_as_bone_morph(pose: &Pose, name_ja: &str, name_en: &str) -> Morph {
    let offsets = pose
        .bones
        .iter()
        .enumerate()
        .filter(|(_, bone)| !bone.is_rest())
        .map(|(i, bone)| BoneMorphOffset {
            bone: Some(crate::model::BoneIdx::new(i)),
            translation: bone.translation.into(),
            rotation: Vec4::from_quat(bone.rotation),
        })
        .collect();
    Morph {
        name_ja: Text::from(name_ja),
        name_en: Text::from(name_en),
        panel: MorphPanel::Other,
        offsets: MorphOffsets::Bone(offsets),
    }
}
