//! The VRM T-pose, baked into the rest pose through the pose engine.
//!
//! MMD models rest in an A-pose; VRM's rest pose must be the T-pose of `VRMC_vrm-1.0_tpose`:
//! upper arms, forearms and hands along ±X, the four fingers along ±X, each thumb along the
//! bisector of ±X and +Z (VRM space; −Z in MMD space, where the model faces −Z), shoulders as
//! they are ("relaxed and lowest").
//!
//! Each segment is turned, parents first, by the shortest rotation taking its current
//! direction (bone → next bone, or its tail) to the target direction. The rotation is set as
//! the bone's pose rotation `L' = L · G⁻¹ · R · G` (G: the bone's current global rotation, R:
//! the turn), which makes the new global rotation `R · G` whatever the bone inherits. The
//! pose is then applied as the new rest ([`apply_pose_as_rest`]): vertices skinned with their
//! weights, bones moved, vertex morph offsets turned with their vertices, so everything the
//! writer reads afterwards is consistent.

use super::humanoid::{HumanBone as H, HumanoidMap, Side};
use crate::model::{BoneFlags, BoneIdx, Model};
use crate::pose::{Pose, PoseError, PoseEvaluator, apply_pose_as_rest};
use glam::{Quat, Vec3};

/// Where a segment points to.
#[derive(Debug, Clone, Copy)]
enum Toward {
    Bone(usize),
    /// The bone's own tail (tail bone or tail offset).
    Tail,
}

/// The segments to straighten on one side, parents first: (bone, toward, target direction
/// in MMD coordinates).
fn segments(map: &HumanoidMap, side: Side) -> Vec<(usize, Toward, Vec3)> {
    let x = side.x_sign();
    let along_arm = Vec3::new(x, 0.0, 0.0);
    // VRM +Z is MMD −Z (see the module documentation of `vrm`).
    let thumb = Vec3::new(x, 0.0, -1.0).normalize();
    let pick = |left: H, right: H| match side {
        Side::Left => map.get(left),
        Side::Right => map.get(right),
    };
    let mut out = Vec::new();
    let chain = |out: &mut Vec<(usize, Toward, Vec3)>, bones: &[Option<usize>], target: Vec3| {
        for (i, bone) in bones.iter().enumerate() {
            let Some(bone) = *bone else { break };
            let toward = bones
                .get(i + 1)
                .copied()
                .flatten()
                .map_or(Toward::Tail, Toward::Bone);
            out.push((bone, toward, target));
        }
    };
    let hand = pick(H::LeftHand, H::RightHand);
    let middle = pick(H::LeftMiddleProximal, H::RightMiddleProximal);
    chain(
        &mut out,
        &[
            pick(H::LeftUpperArm, H::RightUpperArm),
            pick(H::LeftLowerArm, H::RightLowerArm),
            hand,
        ],
        along_arm,
    );
    // The hand points at the middle finger's root when there is one.
    if let (Some(last), Some(middle)) = (out.last_mut(), middle)
        && Some(last.0) == hand
    {
        last.1 = Toward::Bone(middle);
    }
    let fingers = [
        [
            (H::LeftIndexProximal, H::RightIndexProximal),
            (H::LeftIndexIntermediate, H::RightIndexIntermediate),
            (H::LeftIndexDistal, H::RightIndexDistal),
        ],
        [
            (H::LeftMiddleProximal, H::RightMiddleProximal),
            (H::LeftMiddleIntermediate, H::RightMiddleIntermediate),
            (H::LeftMiddleDistal, H::RightMiddleDistal),
        ],
        [
            (H::LeftRingProximal, H::RightRingProximal),
            (H::LeftRingIntermediate, H::RightRingIntermediate),
            (H::LeftRingDistal, H::RightRingDistal),
        ],
        [
            (H::LeftLittleProximal, H::RightLittleProximal),
            (H::LeftLittleIntermediate, H::RightLittleIntermediate),
            (H::LeftLittleDistal, H::RightLittleDistal),
        ],
    ];
    for finger in fingers {
        let bones: Vec<Option<usize>> = finger.iter().map(|&(l, r)| pick(l, r)).collect();
        chain(&mut out, &bones, along_arm);
    }
    let thumb_bones = [
        pick(H::LeftThumbMetacarpal, H::RightThumbMetacarpal),
        pick(H::LeftThumbProximal, H::RightThumbProximal),
        pick(H::LeftThumbDistal, H::RightThumbDistal),
    ];
    chain(&mut out, &thumb_bones, thumb);
    out
}

/// The T-posed model (a copy of `model` with the pose applied as its rest) and the pose
/// engine's notes on what the new rest could not keep.
pub fn bake_t_pose(
    model: &Model,
    map: &HumanoidMap,
) -> Result<(Model, Vec<crate::i18n::Message>), PoseError> {
    let mut pose = Pose::new(model);
    // IK would pull the legs back to their targets; the T-pose moves arms only.
    for (bone, slot) in model.bones.iter().zip(pose.bones.iter_mut()) {
        if bone.is_ik() {
            slot.ik_enabled = false;
        }
    }
    let mut evaluator = PoseEvaluator::new(model);
    let mut turned = 0usize;
    for side in [Side::Left, Side::Right] {
        for (bone, toward, target) in segments(map, side) {
            evaluator.evaluate_bones(model, &pose)?;
            let skeleton = &evaluator.skeleton;
            let Some(global) = skeleton.global(BoneIdx::new(bone)).copied() else {
                continue;
            };
            let from = Vec3::from(global.translation);
            let to = match toward {
                Toward::Bone(next) => skeleton
                    .global(BoneIdx::new(next))
                    .map(|g| Vec3::from(g.translation)),
                Toward::Tail => tail_position(model, bone, &global.rotation, from, |b| {
                    skeleton
                        .global(BoneIdx::new(b))
                        .map(|g| Vec3::from(g.translation))
                }),
            };
            let Some(to) = to else { continue };
            let direction = to - from;
            if !direction.is_finite() || direction.length() < 1e-5 {
                continue;
            }
            let turn = Quat::from_rotation_arc(direction.normalize(), target);
            let current = pose.bones[bone];
            let local = current.rotation * global.rotation.inverse() * turn * global.rotation;
            pose.set_bone(BoneIdx::new(bone), local, current.translation);
            turned += 1;
        }
    }
    if turned == 0 {
        return Ok((model.clone(), Vec::new()));
    }
    apply_pose_as_rest(model, &pose)
}

/// Where `bone`'s tail is in the posed model: its tail bone, or its tail offset turned with it.
fn tail_position(
    model: &Model,
    bone: usize,
    rotation: &Quat,
    from: Vec3,
    posed: impl Fn(usize) -> Option<Vec3>,
) -> Option<Vec3> {
    let data = model.bones.get(bone)?;
    if data.flags.contains(BoneFlags::TAIL_IS_BONE) {
        let tail = data.tail_bone?.get();
        return (tail != bone).then(|| posed(tail)).flatten();
    }
    let offset = Vec3::from(data.tail_offset);
    (offset.length() > 1e-6).then(|| from + *rotation * offset)
}
