//! Where a rigid body sits relative to its bone, and where the bones' current state puts it.
//! MikuMikuDance fixes a body to its bone at the rest pose: the body's transform in the bone's
//! frame never changes, so a body that follows its bone (mode 0) is `bone global ∘ offset`,
//! and a bone that follows its body (modes 1 and 2) is `body ∘ offset⁻¹`.

use glam::{Quat, Vec3, Vec3A};
use pmx_core::model::facts::euler_to_quat;
use pmx_core::model::{Model, RigidBody};
use pmx_core::pose::Transform;

/// A body's rest transform in model space (its position and its Y-X-Z Euler rotation).
#[must_use]
pub fn rest_transform(body: &RigidBody) -> Transform {
    Transform {
        rotation: euler_to_quat(body.rotation).normalize(),
        translation: Vec3A::from(Vec3::from(body.position)),
    }
}

/// The bone a body is fixed to, when it names one the model has.
#[must_use]
pub fn body_bone(model: &Model, body: &RigidBody) -> Option<usize> {
    body.bone
        .map(pmx_core::model::BoneIdx::get)
        .filter(|&b| b < model.bones.len())
}

/// Each body's transform in its bone's frame (PMX bones have no rest rotation, so the bone's
/// rest frame is its position); a body without a bone keeps its model-space rest transform.
#[must_use]
pub fn bone_offsets(model: &Model) -> Vec<Transform> {
    model
        .rigid_bodies
        .iter()
        .map(|body| {
            let rest = rest_transform(body);
            match body_bone(model, body) {
                Some(bone) => {
                    let bone_rest = Vec3A::from(Vec3::from(model.bones[bone].position));
                    Transform {
                        rotation: rest.rotation,
                        translation: rest.translation - bone_rest,
                    }
                }
                None => rest,
            }
        })
        .collect()
}

/// Where the bones' current transforms (`globals`, one per bone) put every body, as its bone
/// carries it; bodies without a bone stay at rest. `offsets` come from [`bone_offsets`].
pub fn follow_bones(
    model: &Model,
    offsets: &[Transform],
    globals: &[Transform],
    out: &mut Vec<Transform>,
) {
    out.clear();
    out.extend(
        model
            .rigid_bodies
            .iter()
            .zip(offsets)
            .map(
                |(body, offset)| match body_bone(model, body).and_then(|b| globals.get(b)) {
                    Some(global) => global.compose(offset),
                    None => *offset,
                },
            ),
    );
}

/// A joint's rest frame in model space.
#[must_use]
pub fn joint_transform(position: Vec3, rotation: Vec3) -> Transform {
    Transform {
        rotation: euler_to_quat(rotation.into()).normalize(),
        translation: Vec3A::from(position),
    }
}

/// A rotation's angle (radians, 0..π).
#[must_use]
pub fn angle_of(rotation: Quat) -> f32 {
    2.0 * rotation.w.abs().clamp(0.0, 1.0).acos()
}
