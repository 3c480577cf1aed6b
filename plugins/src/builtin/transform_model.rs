//! モデル全体の変形: scale, rotate and move the whole model, as PmxEditor's モデル全体の変形 /
//! 拡大縮小 does.
//!
//! The transform is `p' = R · (S · p) + t`: first the scale `S` (the uniform `scale` times the
//! per-axis `scale_x/y/z`), then the rotation `R` from `rotate_x/y/z` in degrees composed in
//! MikuMikuDance's Y-X-Z order (`R = Ry · Rx · Rz`, the order of rigid body angles), then the
//! move `t`. What follows it:
//! - points (vertex positions, SDEF c/r0/r1, bone positions, rigid body and joint positions):
//!   the whole transform;
//! - displacements (bone tail offsets, vertex morph offsets, bone morph translations, impulse
//!   velocities in world space): `R · S`;
//! - directions (fixed axes, local axes): `R · S`, kept at their own length;
//! - normals: the inverse transpose `R · S⁻¹`, renormalised;
//! - rotations (rigid bodies, joints): `R` composed before the element's own; bone morph
//!   rotations are conjugated (`R · q · R⁻¹`), impulse torques in world space rotated;
//! - lengths: a uniform scale multiplies rigid body sizes, joint translation limits and soft
//!   body margins exactly. With per-axis scales a box's half-extents and a joint's translation
//!   limits scale by how much the scale stretches each of the element's own axes (exact for
//!   elements aligned with the model's axes); a sphere's radius by the geometric mean of the
//!   three scales, a capsule's radius by that of its two cross axes and its height along its
//!   own axis. Rigid body and joint rotations are not skewed by a per-axis scale.
//!
//! Untouched: UVs and UV morphs, edge widths, materials, joint rotation limits and springs (in
//! the joint's own frame), IK angle limits (in the bone's parent frame: after a rotation they
//! would need a frame MMD does not have; a note says so when the model has any).

use crate::api::{
    EditBatch, Needs, Plugin, PluginContext, PluginError, PluginGroup, PluginInfo, PluginOutput,
};
use crate::options::OptionSpec;
use glam::Quat;
use pmx_core::edit::{SetField, field};
use pmx_core::model::facts::{euler_degrees_to_quat, euler_to_quat, quat_to_euler};
use pmx_core::model::{Morph, MorphOffsets, RigidBody, RigidShape, Vec3, Vec4, Vertex, Weight};
use pmx_core::validate::FixStep;

/// モデル全体の変形.
#[derive(Debug, Clone, Copy)]
pub struct TransformModel;

/// A similarity-like transform: per-axis scale, then rotation, then move.
#[derive(Debug, Clone, Copy)]
struct Transform {
    scale: glam::Vec3,
    /// `Some` only when some angle is not zero, so an unrotated model keeps its bits.
    rotation: Option<Quat>,
    translation: glam::Vec3,
}

fn g(v: Vec3) -> glam::Vec3 {
    glam::Vec3::new(v.x, v.y, v.z)
}

fn p(v: glam::Vec3) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

impl Transform {
    fn is_uniform(&self) -> bool {
        self.scale.x == self.scale.y && self.scale.y == self.scale.z
    }

    fn rotate(&self, v: glam::Vec3) -> glam::Vec3 {
        match self.rotation {
            Some(rotation) => rotation * v,
            None => v,
        }
    }

    fn point(&self, v: Vec3) -> Vec3 {
        p(self.rotate(g(v) * self.scale) + self.translation)
    }

    fn vector(&self, v: Vec3) -> Vec3 {
        p(self.rotate(g(v) * self.scale))
    }

    /// A direction: transformed, then brought back to its own length (a zero vector, as in a
    /// bone without a fixed axis, stays zero).
    fn direction(&self, v: Vec3) -> Vec3 {
        if self.is_uniform() {
            return p(self.rotate(g(v)));
        }
        let length = g(v).length();
        let w = self.rotate(g(v) * self.scale);
        let new_length = w.length();
        if length > 0.0 && new_length > 0.0 && new_length.is_finite() {
            p(w * (length / new_length))
        } else {
            v
        }
    }

    fn normal(&self, n: Vec3) -> Vec3 {
        if self.is_uniform() {
            return p(self.rotate(g(n)));
        }
        let length = g(n).length();
        let w = self.rotate(g(n) / self.scale);
        let new_length = w.length();
        if length > 0.0 && new_length > 0.0 && new_length.is_finite() {
            p(w * (length / new_length))
        } else {
            n
        }
    }

    /// Euler angles (radians, MMD's Y-X-Z) of an element rotated with the model.
    fn euler(&self, angles: Vec3) -> Vec3 {
        match self.rotation {
            Some(rotation) => quat_to_euler(rotation * euler_to_quat(angles)),
            None => angles,
        }
    }

    /// How much the scale stretches each axis of an element rotated by `angles` (its local
    /// X, Y, Z in model space).
    fn axis_factors(&self, angles: Vec3) -> glam::Vec3 {
        if self.is_uniform() {
            return glam::Vec3::splat(self.scale.x);
        }
        let frame = glam::Mat3::from_quat(euler_to_quat(angles));
        glam::Vec3::new(
            (frame.x_axis * self.scale).length(),
            (frame.y_axis * self.scale).length(),
            (frame.z_axis * self.scale).length(),
        )
    }

    /// The factor for lengths that have no direction (a sphere's radius, a margin).
    fn mean_scale(&self) -> f32 {
        if self.is_uniform() {
            self.scale.x
        } else {
            (self.scale.x * self.scale.y * self.scale.z).cbrt()
        }
    }
}

/// Sets every element of `list` to a copy that `change` made (nothing for an empty list).
fn replace_each<E>(batch: &mut EditBatch, list: &[E], mut change: impl FnMut(&mut E))
where
    E: pmx_core::edit::Element + pmx_core::edit::FieldType + Clone,
{
    if list.is_empty() {
        return;
    }
    let changed = list
        .iter()
        .map(|element| {
            let mut copy = element.clone();
            change(&mut copy);
            copy
        })
        .collect();
    batch.push(FixStep::Set(SetField::each(
        field::<E>(),
        (0..list.len()).collect(),
        changed,
    )));
}

fn scaled(v: Vec3, factors: glam::Vec3) -> Vec3 {
    p(g(v) * factors)
}

impl Plugin for TransformModel {
    fn info(&self) -> PluginInfo {
        let number = |key, ja: &str, en: &str, default, min, max, unit| {
            OptionSpec::number(key, ja, en, default, min, max, unit)
        };
        PluginInfo {
            id: "transform_model".to_owned(),
            group: PluginGroup::Transform,
            name_ja: "モデル全体の変形".to_owned(),
            name_en: "Transform model".to_owned(),
            description_ja: "モデル全体を拡大縮小・回転・移動します(拡大縮小 → 回転(MMDと同じY-X-Zの順) → 移動の順)。頂点・法線・SDEF・ボーン・モーフ・剛体・Joint・SoftBodyが追従します。".to_owned(),
            description_en: "Scales, rotates and moves the whole model (scale, then rotate in MMD's Y-X-Z order, then move). Vertices, normals, SDEF, bones, morphs, rigid bodies, joints and soft bodies follow.".to_owned(),
            version: "1.0".to_owned(),
            needs: Needs::Nothing,
            options: vec![
                number("scale", "拡大率", "Scale", 1.0, 1e-6, 1e6, "×"),
                number("scale_x", "X拡大率", "Scale X", 1.0, 1e-6, 1e6, "×"),
                number("scale_y", "Y拡大率", "Scale Y", 1.0, 1e-6, 1e6, "×"),
                number("scale_z", "Z拡大率", "Scale Z", 1.0, 1e-6, 1e6, "×"),
                number("rotate_x", "X回転", "Rotate X", 0.0, -360.0, 360.0, "°"),
                number("rotate_y", "Y回転", "Rotate Y", 0.0, -360.0, 360.0, "°"),
                number("rotate_z", "Z回転", "Rotate Z", 0.0, -360.0, 360.0, "°"),
                number("move_x", "X移動", "Move X", 0.0, -1e6, 1e6, ""),
                number("move_y", "Y移動", "Move Y", 0.0, -1e6, 1e6, ""),
                number("move_z", "Z移動", "Move Z", 0.0, -1e6, 1e6, ""),
            ],
        }
    }

    #[allow(clippy::cast_possible_truncation, clippy::too_many_lines)]
    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let option = |key: &str| cx.options.number(key) as f32;
        let uniform = option("scale");
        let scale = glam::Vec3::new(
            uniform * option("scale_x"),
            uniform * option("scale_y"),
            uniform * option("scale_z"),
        );
        let degrees = Vec3::new(option("rotate_x"), option("rotate_y"), option("rotate_z"));
        let translation = glam::Vec3::new(option("move_x"), option("move_y"), option("move_z"));
        if !(scale.cmpgt(glam::Vec3::ZERO).all() && scale.is_finite()) {
            return Err(PluginError::BadOption {
                key: "scale".to_owned(),
                message: "the scale must be greater than 0".to_owned(),
            });
        }
        let rotated = degrees.x != 0.0 || degrees.y != 0.0 || degrees.z != 0.0;
        if scale == glam::Vec3::ONE && !rotated && translation == glam::Vec3::ZERO {
            return Err(PluginError::NoChange);
        }
        let transform = Transform {
            scale,
            rotation: rotated.then(|| euler_degrees_to_quat(degrees)),
            translation,
        };
        let model = cx.model;
        let mut batch = EditBatch::new();

        if !model.vertices.is_empty() {
            let all: Vec<usize> = (0..model.vertices.len()).collect();
            let positions = model
                .vertices
                .iter()
                .map(|v| transform.point(v.position))
                .collect();
            let normals = model
                .vertices
                .iter()
                .map(|v| transform.normal(v.normal))
                .collect();
            batch.push(FixStep::Set(SetField::each(
                field::<Vertex>().position(),
                all.clone(),
                positions,
            )));
            batch.push(FixStep::Set(SetField::each(
                field::<Vertex>().normal(),
                all,
                normals,
            )));
            let (sdef, weights): (Vec<usize>, Vec<Weight>) = model
                .vertices
                .iter()
                .enumerate()
                .filter_map(|(index, vertex)| match &vertex.weight {
                    Weight::Sdef {
                        bones,
                        weight,
                        c,
                        r0,
                        r1,
                    } => Some((
                        index,
                        Weight::Sdef {
                            bones: *bones,
                            weight: *weight,
                            c: transform.point(*c),
                            r0: transform.point(*r0),
                            r1: transform.point(*r1),
                        },
                    )),
                    _ => None,
                })
                .unzip();
            if !sdef.is_empty() {
                batch.push(FixStep::Set(SetField::each(
                    field::<Vertex>().weight(),
                    sdef,
                    weights,
                )));
            }
        }

        let mut limited_links = 0usize;
        replace_each(&mut batch, &model.bones, |bone| {
            limited_links += bone
                .ik
                .links
                .iter()
                .filter(|link| link.limits.is_some())
                .count();
            bone.position = transform.point(bone.position);
            bone.tail_offset = transform.vector(bone.tail_offset);
            bone.fixed_axis = transform.direction(bone.fixed_axis);
            bone.local_axis_x = transform.direction(bone.local_axis_x);
            bone.local_axis_z = transform.direction(bone.local_axis_z);
        });

        let (morph_indices, morph_offsets): (Vec<usize>, Vec<MorphOffsets>) = model
            .morphs
            .iter()
            .enumerate()
            .filter_map(|(index, morph)| {
                transformed_offsets(&morph.offsets, &transform).map(|offsets| (index, offsets))
            })
            .unzip();
        if !morph_indices.is_empty() {
            batch.push(FixStep::Set(SetField::each(
                field::<Morph>().offsets(),
                morph_indices,
                morph_offsets,
            )));
        }

        replace_each(&mut batch, &model.rigid_bodies, |body| {
            // The size is worked out from the body as it was (its own axes, its shape).
            let size = body_size(body, &transform);
            body.position = transform.point(body.position);
            body.rotation = transform.euler(body.rotation);
            body.size = size;
        });
        replace_each(&mut batch, &model.joints, |joint| {
            let factors = transform.axis_factors(joint.rotation);
            joint.position = transform.point(joint.position);
            joint.rotation = transform.euler(joint.rotation);
            joint.move_lower = scaled(joint.move_lower, factors);
            joint.move_upper = scaled(joint.move_upper, factors);
        });
        replace_each(&mut batch, &model.soft_bodies, |soft| {
            soft.margin *= transform.mean_scale();
        });

        if batch.is_empty() {
            return Err(PluginError::NoChange);
        }
        let mut output = PluginOutput::new(batch);
        output.note(
            format!(
                "transformed {} vertices, {} bones, {} rigid bodies, {} joints: scale ({}, {}, {}), rotation ({}°, {}°, {}°) in Y-X-Z order, move ({}, {}, {})",
                model.vertices.len(),
                model.bones.len(),
                model.rigid_bodies.len(),
                model.joints.len(),
                scale.x,
                scale.y,
                scale.z,
                degrees.x,
                degrees.y,
                degrees.z,
                translation.x,
                translation.y,
                translation.z
            ),
            format!(
                "頂点{}個, ボーン{}個, 剛体{}個, Joint{}個を変形: 拡大率({}, {}, {}), 回転({}°, {}°, {}°, Y-X-Zの順), 移動({}, {}, {})",
                model.vertices.len(),
                model.bones.len(),
                model.rigid_bodies.len(),
                model.joints.len(),
                scale.x,
                scale.y,
                scale.z,
                degrees.x,
                degrees.y,
                degrees.z,
                translation.x,
                translation.y,
                translation.z
            ),
        );
        if rotated && limited_links > 0 {
            output.note(
                format!(
                    "{limited_links} IK links have angle limits; they are kept as they are (they are angles in the bone's parent frame, which does not turn with the model)"
                ),
                format!(
                    "IKリンク{limited_links}個の角度制限はそのままです(親の軸基準の角度のため、回転に追従できません)"
                ),
            );
        }
        if !transform.is_uniform() && !model.rigid_bodies.is_empty() {
            output.note(
                "per-axis scale: rigid body and joint sizes follow along each element's own axes (exact for axis-aligned ones); spheres take the mean scale",
                "軸ごとの拡大率: 剛体とJointの大きさは各要素の軸方向の倍率で変形します(軸に沿った要素は正確、球は平均倍率)",
            );
        }
        Ok(output)
    }
}

fn body_size(body: &RigidBody, transform: &Transform) -> Vec3 {
    if transform.is_uniform() {
        return scaled(body.size, glam::Vec3::splat(transform.scale.x));
    }
    let factors = transform.axis_factors(body.rotation);
    match body.shape {
        RigidShape::Box => scaled(body.size, factors),
        RigidShape::Capsule => {
            let radius = (factors.x * factors.z).sqrt();
            Vec3::new(body.size.x * radius, body.size.y * factors.y, body.size.z)
        }
        RigidShape::Sphere | RigidShape::Unknown(_) => {
            let mean = transform.mean_scale();
            Vec3::new(body.size.x * mean, body.size.y, body.size.z)
        }
    }
}

/// A morph's offsets after the transform, or `None` for kinds that do not move (UV, material,
/// group, flip) and empty lists.
fn transformed_offsets(offsets: &MorphOffsets, transform: &Transform) -> Option<MorphOffsets> {
    if offsets.is_empty() {
        return None;
    }
    match offsets {
        MorphOffsets::Vertex(list) => Some(MorphOffsets::Vertex(
            list.iter()
                .map(|o| {
                    let mut o = *o;
                    o.offset = transform.vector(o.offset);
                    o
                })
                .collect(),
        )),
        MorphOffsets::Bone(list) => Some(MorphOffsets::Bone(
            list.iter()
                .map(|o| {
                    let mut o = *o;
                    o.translation = transform.vector(o.translation);
                    if let Some(rotation) = transform.rotation {
                        // The morph turns the bone about model axes; in the turned model the
                        // same turn is about the turned axes.
                        let q = rotation * o.rotation.to_quat() * rotation.inverse();
                        o.rotation = Vec4::from_quat(q);
                    }
                    o
                })
                .collect(),
        )),
        MorphOffsets::Impulse(list) => Some(MorphOffsets::Impulse(
            list.iter()
                .map(|o| {
                    let mut o = *o;
                    if o.local {
                        // In the body's own frame, which turns with the model: only the size
                        // of the velocity changes.
                        o.velocity = scaled(o.velocity, glam::Vec3::splat(transform.mean_scale()));
                    } else {
                        o.velocity = transform.vector(o.velocity);
                        o.torque = p(transform.rotate(g(o.torque)));
                    }
                    o
                })
                .collect(),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normals_use_the_inverse_transpose() {
        let transform = Transform {
            scale: glam::Vec3::new(2.0, 1.0, 1.0),
            rotation: None,
            translation: glam::Vec3::ZERO,
        };
        // A surface at 45° between X and Y, stretched in X, turns toward X's normal... i.e.
        // its normal leans toward Y.
        let n = transform.normal(Vec3::new(
            std::f32::consts::FRAC_1_SQRT_2,
            std::f32::consts::FRAC_1_SQRT_2,
            0.0,
        ));
        let expected = glam::Vec3::new(0.5, 1.0, 0.0).normalize();
        assert!(g(n).abs_diff_eq(expected, 1e-6), "{n:?}");
    }
}
