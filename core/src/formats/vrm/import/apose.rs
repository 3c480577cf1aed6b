//! T-pose → A-pose: the upper arms (左腕, 右腕) turned down to
//! [`VrmImportOptions::arm_angle_degrees`](super::VrmImportOptions) below horizontal, baked into
//! the rest shape through the pose engine's "pose as rest" so the vertices, morph offsets, bone
//! positions, rigid bodies and joints all follow.
//!
//! Each arm turns about the axis perpendicular to the arm and to the up axis, so it swings
//! down in the vertical plane that holds it (the model's frontal plane for an arm held out
//! sideways) and keeps pointing as far forward or back as before. The angle is measured from
//! the arm's actual direction (腕 → ひじ): an arm the VRM already holds 10° down is turned
//! 25° for a 35° A-pose, and one held lower than asked is raised to it, so the result is the
//! asked angle whatever the file's rest pose.
//!
//! Appends (付与, from node constraints) are off during the bake: a new rest pose is not a
//! motion, so a twist bone appending the arm's rotation must not turn with it.
//!
//! If the pose cannot be evaluated the model keeps its T-pose and the report says so.

use super::Importer;
use crate::i18n::Message;
use crate::model::{BoneFlags, BoneIdx};
use crate::pose::{Pose, pose_as_rest};
use glam::{Quat, Vec3};

/// Arms shorter than this (MMD units) have no direction to measure.
const MIN_ARM_LENGTH: f32 = 1e-4;

/// The rotation that takes an arm pointing along `direction` (MMD space, +Y up) to
/// `angle_below_horizontal` radians below horizontal in the same vertical plane, or `None`
/// when the arm has no length or points straight up or down (no plane to swing in).
#[must_use]
pub(crate) fn lowering_rotation(direction: Vec3, angle_below_horizontal: f32) -> Option<Quat> {
    let length = direction.length();
    if length < MIN_ARM_LENGTH || !length.is_finite() {
        return None;
    }
    let direction = direction / length;
    let horizontal = Vec3::new(direction.x, 0.0, direction.z);
    if horizontal.length() < 1e-4 {
        return None;
    }
    let horizontal = horizontal.normalize();
    let target = horizontal * angle_below_horizontal.cos() - Vec3::Y * angle_below_horizontal.sin();
    Some(Quat::from_rotation_arc(direction, target))
}

pub(super) fn build(import: &mut Importer<'_>) {
    let degrees = import.options.arm_angle_degrees;
    if !(-90.0..=90.0).contains(&degrees) {
        let location = import.gltf.at("nodes", None, "");
        import.note(
            location,
            Message::new("load.vrm.arm_angle_range").arg("degrees", degrees),
            false,
        );
        return;
    }
    let angle = degrees.to_radians();
    let model = &import.model;
    let find = |name: &str| {
        model
            .bones
            .iter()
            .position(|bone| bone.name_ja.as_str() == name)
    };
    let mut pose = Pose::new(model);
    // IK stays off: the legs are at rest and must stay exactly there.
    for (bone, slot) in model.bones.iter().zip(pose.bones.iter_mut()) {
        if bone.is_ik() {
            slot.ik_enabled = false;
        }
    }
    let mut turned = 0;
    for (arm, elbow) in [("左腕", "左ひじ"), ("右腕", "右ひじ")] {
        let (Some(arm), Some(elbow)) = (find(arm), find(elbow)) else {
            continue;
        };
        let direction =
            Vec3::from(model.bones[elbow].position) - Vec3::from(model.bones[arm].position);
        if let Some(rotation) = lowering_rotation(direction, angle) {
            // MMD bones have no rest rotation and the arm's ancestors are not posed, so the
            // arm's local rotation is its rotation in model space.
            pose.set_bone(BoneIdx::new(arm), rotation, Vec3::ZERO);
            turned += 1;
        }
    }
    if turned == 0 {
        return;
    }
    // A change of rest pose is no motion: bones that append the arm's rotation (node
    // constraints on twist bones) must not turn with it. Their appends are switched off for
    // the bake and restored after it.
    let appends: Vec<BoneFlags> = import
        .model
        .bones
        .iter_mut()
        .map(|bone| {
            let append = bone.flags & (BoneFlags::APPEND_ROTATE | BoneFlags::APPEND_MOVE);
            bone.flags.remove(append);
            append
        })
        .collect();
    let baked = pose_as_rest(&import.model, &pose);
    for (bone, append) in import.model.bones.iter_mut().zip(appends) {
        bone.flags |= append;
    }
    match baked {
        Ok(changes) => {
            changes.apply_to(&mut import.model);
            for note in &changes.notes {
                let location = import.gltf.at("nodes", None, "");
                import.note(
                    location,
                    Message::new("load.vrm.a_pose_note").arg("note", note.clone()),
                    false,
                );
            }
        }
        Err(error) => {
            let location = import.gltf.at("nodes", None, "");
            import.note(
                location,
                Message::new("load.vrm.a_pose_failed").arg("error", error.to_string()),
                false,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::lowering_rotation;
    use glam::Vec3;

    fn below_horizontal(v: Vec3) -> f32 {
        (-v.y).atan2(Vec3::new(v.x, 0.0, v.z).length()).to_degrees()
    }

    #[test]
    fn a_level_arm_swings_down_in_its_vertical_plane() {
        let rotation = lowering_rotation(Vec3::X, 35f32.to_radians()).unwrap_or_default();
        let arm = rotation * Vec3::X;
        assert!((below_horizontal(arm) - 35.0).abs() < 1e-3);
        assert!(arm.z.abs() < 1e-6, "stays in the frontal plane: {arm}");
        let right = lowering_rotation(-Vec3::X, 35f32.to_radians()).unwrap_or_default() * -Vec3::X;
        assert!((below_horizontal(right) - 35.0).abs() < 1e-3);
        assert!(right.x < 0.0);
    }

    #[test]
    fn an_arm_already_lowered_is_turned_less() {
        let lowered = Vec3::new(10f32.to_radians().cos(), -10f32.to_radians().sin(), 0.0);
        let rotation = lowering_rotation(lowered, 35f32.to_radians()).unwrap_or_default();
        assert!((rotation.angle_between(glam::Quat::IDENTITY).to_degrees() - 25.0).abs() < 1e-2);
        assert!((below_horizontal(rotation * lowered) - 35.0).abs() < 1e-3);
    }

    #[test]
    fn an_arm_without_a_direction_is_left() {
        assert!(lowering_rotation(Vec3::ZERO, 0.6).is_none());
        assert!(lowering_rotation(Vec3::Y, 0.6).is_none());
    }
}
