//! Where a rigid body sits relative to its bone, and where the bones' current state puts it.
//! MikuMikuDance fixes a body to its bone at the rest pose: the body's transform in the bone's
//! frame never changes, so a body that follows its bone (mode 0) is `bone global ∘ offset`,
//! and a bone that follows its body (modes 1 and 2) is `body ∘ offset⁻¹`.

use glam::{Vec3, Vec3A};
use pmx_core::model::{Model, RigidBody};
use pmx_core::pose::Transform;

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
            let rest = Transform::placed(body.position, body.rotation);
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

/// Where the bones' current transforms (`globals`, one per bone) put a body fixed to `bone`
/// at `offset` (from [`bone_offsets`]); a body without a bone stays at rest.
#[must_use]
pub fn carried(bone: Option<usize>, offset: &Transform, globals: &[Transform]) -> Transform {
    match bone.and_then(|b| globals.get(b)) {
        Some(global) => global.compose(offset),
        None => *offset,
    }
}

/// [`carried`] for every body of `model`, in model order.
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
            .map(|(body, offset)| carried(body_bone(model, body), offset, globals)),
    );
}
