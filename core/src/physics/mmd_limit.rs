//! The `VRMC_springBone_limit` of a spring joint from the MMD joint that hangs its body: the
//! one function the VRM export writes limits with and the spring preview limits with, so both
//! hold a joint to the same directions.
//!
//! The limit is expressed as the VRM file holds it, in glTF axes (MMD's with z mirrored, no
//! scale: only directions matter), so the export writes it unchanged;
//! [`apply_limit_in_mmd_space`] applies it to a direction in MMD space through the same mirror.
//!
//! **From joint to limit.** The MMD joint limits its body's rotation per axis of the joint's own
//! frame; those axes and ranges are mirrored into glTF ([`mmd_joint_axes_to_gltf`]), sorted
//! onto the limit frame's X and Z (the twist about the bone, Y, is not a direction limit and
//! is dropped; [`swing_ranges`]), and the shape is chosen by [`choose_limit`]. Bullet leaves an
//! axis free when its lower limit is above its upper one, and so does this. A joint that allows
//! no swing at all gets a cone of angle 0: the body cannot swing in MikuMikuDance either.

use super::spring_limit::{LimitShape, SpringLimit, SwingRanges, axis_rotation, choose_limit};
use crate::model::facts::euler_to_quat;
use crate::model::{JointKind, Model};
use glam::{Quat, Vec3};
use std::f32::consts::PI;

/// An MMD direction in glTF axes (z mirrored).
#[must_use]
pub fn mirror_direction(v: Vec3) -> Vec3 {
    Vec3::new(v.x, v.y, -v.z)
}

/// An MMD rotation in glTF axes: the mirror `M` turns `R` into `M·R·M`, a turn by θ about `a`
/// into one by −θ about `M·a`, which is the quaternion with x and y negated.
#[must_use]
pub fn mirror_rotation(q: Quat) -> Quat {
    Quat::from_xyzw(-q.x, -q.y, q.z, q.w)
}

/// A joint's rotation axes and ranges from MMD into glTF space. MMD joint limits are per axis
/// of the joint's frame (`rotation`, MMD's Euler angles as a quaternion) in MMD's left-handed
/// space; glTF's space is MMD's with z mirrored (see the module documentation of `vrm`), and
/// the mirror `M` turns a rotation by θ about axis `a` into a rotation by −θ about `M·a`.
/// Returns the three axes (glTF world) and each axis's (lower, upper) in glTF's sense.
#[must_use]
pub fn mmd_joint_axes_to_gltf(
    rotation: Quat,
    lower: Vec3,
    upper: Vec3,
) -> ([Vec3; 3], [(f32, f32); 3]) {
    let axes = [Vec3::X, Vec3::Y, Vec3::Z].map(|axis| mirror_direction(rotation * axis));
    let ranges = [0, 1, 2].map(|i| {
        let (l, u) = (-upper[i], -lower[i]);
        (l.min(u), l.max(u))
    });
    (axes, ranges)
}

/// The swing ranges of a joint in the limit frame `frame` (limit space → world, without the
/// limit's own rotation: the joint frame times [`axis_rotation`] of the bone axis). Each joint
/// axis goes to the frame axis it is closest to (with its sign); the one closest to Y, the
/// twist about the bone, is dropped. When two joint axes fall on one frame axis the wider range
/// is kept. `pitch` is the turn about X (towards +Z), `yaw` the tilt towards +X, which is a
/// turn about −Z.
#[must_use]
pub fn swing_ranges(axes: [Vec3; 3], ranges: [(f32, f32); 3], frame: Quat) -> SwingRanges {
    let mut about_x: Option<(f32, f32)> = None;
    let mut about_z: Option<(f32, f32)> = None;
    let inverse = frame.inverse();
    for (axis, (lower, upper)) in axes.into_iter().zip(ranges) {
        let local = inverse * axis;
        let components = [local.x, local.y, local.z];
        let (k, component) = components
            .iter()
            .copied()
            .enumerate()
            .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
            .unwrap_or((1, 1.0));
        // A rotation about −e is a rotation about +e by the opposite angle.
        let range = if component < 0.0 {
            (-upper, -lower)
        } else {
            (lower, upper)
        };
        let slot = match k {
            0 => &mut about_x,
            2 => &mut about_z,
            _ => continue,
        };
        if slot.is_none_or(|(l, u)| (range.1 - range.0) > (u - l)) {
            *slot = Some(range);
        }
    }
    let about_z = about_z.unwrap_or((0.0, 0.0));
    SwingRanges {
        pitch: about_x.unwrap_or((0.0, 0.0)),
        yaw: (-about_z.1, -about_z.0),
    }
}

/// The limit frame of a joint without the limit's own rotation: its rest frame in the world
/// (glTF nodes carry no rest rotation here, so that is the identity unless given) turned by
/// the shortest rotation from +Y to the bone axis.
#[must_use]
pub fn unrotated_frame(joint_frame: Quat, bone_axis: Vec3) -> Quat {
    joint_frame * axis_rotation(bone_axis)
}

/// The limit of a spring joint from the MMD joint `mmd_joint` hanging its body, for a joint at
/// `position` whose segment runs to `next` (MMD space, the pose the limit is taken in: the
/// rest pose, or the T-pose for the export). In glTF axes (see the module documentation).
/// `None` for a joint that leaves every direction free (a ball joint, or free swing axes), a
/// segment of no length, or a joint index past the model's joints.
#[must_use]
pub fn mmd_joint_limit(
    model: &Model,
    mmd_joint: usize,
    position: Vec3,
    next: Vec3,
) -> Option<SpringLimit> {
    let joint = model.joints.get(mmd_joint)?;
    if matches!(joint.kind, JointKind::PointToPoint) {
        // A ball joint: every direction is free.
        return None;
    }
    let bone_axis = mirror_direction(next - position).try_normalize()?;
    let lower: Vec3 = joint.rotate_lower.into();
    let upper: Vec3 = joint.rotate_upper.into();
    // Bullet: lower above upper leaves the axis free.
    let (lower, upper) = (0..3).fold((lower, upper), |(mut l, mut u), i| {
        if l[i] > u[i] {
            l[i] = -PI;
            u[i] = PI;
        }
        (l, u)
    });
    let (axes, ranges) = mmd_joint_axes_to_gltf(euler_to_quat(joint.rotation), lower, upper);
    let frame = unrotated_frame(Quat::IDENTITY, bone_axis);
    let swing = swing_ranges(axes, ranges, frame);
    if swing.pitch.1 - swing.pitch.0 >= 2.0 * PI - 1e-3
        && swing.yaw.1 - swing.yaw.0 >= 2.0 * PI - 1e-3
    {
        return None;
    }
    Some(choose_limit(swing).unwrap_or(SpringLimit {
        shape: LimitShape::Cone { angle: 0.0 },
        rotation: Quat::IDENTITY,
    }))
}

/// `tail_direction` (a unit vector in MMD space) brought within `limit` (in glTF axes, as
/// [`mmd_joint_limit`] gives it), for a joint whose frame (its parent's world rotation times its
/// initial local rotation) is `joint_frame` and whose rest direction in that frame is
/// `bone_axis`, both MMD space: the spec's `apply_world` run in the file's axes, as a VRM
/// runtime runs the exported limit.
#[must_use]
pub fn apply_limit_in_mmd_space(
    limit: &SpringLimit,
    tail_direction: Vec3,
    joint_frame: Quat,
    bone_axis: Vec3,
) -> Vec3 {
    mirror_direction(limit.apply_world(
        mirror_direction(tail_direction),
        mirror_rotation(joint_frame),
        mirror_direction(bone_axis),
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::model::Joint;

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-5
    }

    fn deg(d: f32) -> f32 {
        d.to_radians()
    }

    #[test]
    fn hanging_hair_joint_becomes_a_hinge() {
        // MMD: a bone hanging down (−Y), its joint free ±30° about X only.
        let (axes, ranges) = mmd_joint_axes_to_gltf(
            Quat::IDENTITY,
            Vec3::new(deg(-30.0), 0.0, 0.0),
            Vec3::new(deg(30.0), 0.0, 0.0),
        );
        let frame = unrotated_frame(Quat::IDENTITY, -Vec3::Y);
        let swing = swing_ranges(axes, ranges, frame);
        assert!((swing.pitch.0 + deg(30.0)).abs() < 1e-5);
        assert!((swing.pitch.1 - deg(30.0)).abs() < 1e-5);
        assert_eq!(swing.yaw, (0.0, 0.0));
        let limit = choose_limit(swing).unwrap();
        assert!(
            matches!(limit.shape, LimitShape::Hinge { angle } if (angle - deg(30.0)).abs() < 1e-5)
        );
    }

    #[test]
    fn arm_like_joint_about_z_limits_the_swing_in_the_xy_plane() {
        // MMD: a bone along +X, its joint free −10°..40° about Z (MMD and glTF agree on
        // rotations within the XY plane, which the z mirror does not touch).
        let (axes, ranges) = mmd_joint_axes_to_gltf(
            Quat::IDENTITY,
            Vec3::new(0.0, 0.0, deg(-10.0)),
            Vec3::new(0.0, 0.0, deg(40.0)),
        );
        let frame = unrotated_frame(Quat::IDENTITY, Vec3::X);
        let swing = swing_ranges(axes, ranges, frame);
        let limit = choose_limit(swing).unwrap();
        assert!(matches!(limit.shape, LimitShape::Hinge { .. }), "{limit:?}");
        let apply = |dir: Vec3| limit.apply_world(dir, Quat::IDENTITY, Vec3::X);
        let turned = |degrees: f32| Quat::from_rotation_z(deg(degrees)) * Vec3::X;
        assert!(close(apply(turned(40.0)), turned(40.0)));
        assert!(close(apply(turned(0.0)), turned(0.0)));
        assert!(close(apply(turned(60.0)), turned(40.0)));
        assert!(close(apply(turned(-20.0)), turned(-10.0)));
        // Out of the plane: projected back into it.
        let out = apply(Vec3::new(1.0, 0.0, 1.0).normalize());
        assert!(out.z.abs() < 1e-5);
    }

    #[test]
    fn joint_axes_mirror_into_gltf() {
        // 30° about MMD's +X is −30° about glTF's +X (the mirror flips the turn).
        let (axes, ranges) = mmd_joint_axes_to_gltf(
            Quat::IDENTITY,
            Vec3::new(deg(10.0), 0.0, 0.0),
            Vec3::new(deg(30.0), 0.0, 0.0),
        );
        assert!(close(axes[0], Vec3::X) && close(axes[2], -Vec3::Z));
        assert!((ranges[0].0 + deg(30.0)).abs() < 1e-6 && (ranges[0].1 + deg(10.0)).abs() < 1e-6);
        // Against points: MMD's Rx(30°) turns −Y to (0, −c, −s) in MMD numbers; mirrored that
        // is (0, −c, s), which glTF's Rx(−30°) gives from −Y.
        let mmd = Quat::from_rotation_x(deg(30.0)) * -Vec3::Y;
        let mirrored = Vec3::new(mmd.x, mmd.y, -mmd.z);
        assert!(close(
            Quat::from_rotation_x(deg(-30.0)) * -Vec3::Y,
            mirrored
        ));
        // The mirrored rotation is M·R·M on every vector.
        let rotation = Quat::from_euler(glam::EulerRot::YXZ, 0.3, -0.7, 1.1);
        for v in [Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(0.2, -0.5, 0.8)] {
            assert!(close(
                mirror_rotation(rotation) * v,
                mirror_direction(rotation * mirror_direction(v))
            ));
        }
    }

    /// A model whose joint 0 hangs a body from a bone along +X at the origin, its rotation
    /// limited `lower..upper` per axis of the joint's unturned frame (MMD radians).
    fn model_with_joint(lower: Vec3, upper: Vec3) -> Model {
        let mut model = Model::new_empty();
        model.joints.push(Joint {
            rotate_lower: lower.into(),
            rotate_upper: upper.into(),
            ..Joint::default()
        });
        model
    }

    /// Asserts that `limit` brings each direction turned by `turn(from)` from `bone_axis` (under
    /// an unturned parent) to the one turned by `turn(to)`: `cases` are (from, to) in degrees.
    fn assert_turns(
        limit: &SpringLimit,
        bone_axis: Vec3,
        turn: fn(f32) -> Quat,
        cases: &[(f32, f32)],
    ) {
        for &(from, to) in cases {
            let direction = turn(deg(from)) * bone_axis;
            let limited = apply_limit_in_mmd_space(limit, direction, Quat::IDENTITY, bone_axis);
            let expected = turn(deg(to)) * bone_axis;
            assert!(
                close(limited, expected),
                "{from}° → {limited}, not {expected}"
            );
        }
    }

    #[test]
    fn in_mmd_space_the_limit_keeps_the_mmd_joint_s_sense_of_rotation() {
        // An MMD joint free 0..+30° about Z only, on a bone along +X: MMD's own turn by +20°
        // about Z stays, +50° comes back to +30°, −20° to 0 (the mirror must not flip it).
        let model = model_with_joint(Vec3::ZERO, Vec3::new(0.0, 0.0, deg(30.0)));
        let limit = mmd_joint_limit(&model, 0, Vec3::ZERO, Vec3::X).unwrap();
        let cases = [(20.0, 20.0), (50.0, 30.0), (-20.0, 0.0)];
        assert_turns(&limit, Vec3::X, Quat::from_rotation_z, &cases);
        // The same about X, which the mirror does flip: 0..+30° about MMD's X on a bone along
        // −Y allows MMD's Rx(+20°) and not Rx(−20°).
        let model = model_with_joint(Vec3::ZERO, Vec3::new(deg(30.0), 0.0, 0.0));
        let limit = mmd_joint_limit(&model, 0, Vec3::ZERO, -Vec3::Y).unwrap();
        assert_turns(&limit, -Vec3::Y, Quat::from_rotation_x, &cases);
        // The joint's frame turned by the parent carries the limit along.
        let parent = Quat::from_rotation_y(deg(90.0));
        let turned = |degrees: f32| Quat::from_rotation_x(deg(degrees)) * -Vec3::Y;
        let limited = apply_limit_in_mmd_space(&limit, parent * turned(-20.0), parent, -Vec3::Y);
        assert!(close(limited, parent * turned(0.0)), "{limited}");
    }

    #[test]
    fn free_ball_and_rigid_joints() {
        // Lower above upper on every axis: all free, no limit.
        let free = model_with_joint(Vec3::splat(1.0), Vec3::splat(-1.0));
        assert_eq!(mmd_joint_limit(&free, 0, Vec3::ZERO, Vec3::X), None);
        // Locked on every axis: a cone of 0.
        let rigid = model_with_joint(Vec3::ZERO, Vec3::ZERO);
        assert_eq!(
            mmd_joint_limit(&rigid, 0, Vec3::ZERO, Vec3::X).map(|l| l.shape),
            Some(LimitShape::Cone { angle: 0.0 })
        );
        // A ball joint, a segment of no length, a joint that is not there: no limit.
        let mut ball = model_with_joint(Vec3::ZERO, Vec3::ZERO);
        ball.joints[0].kind = JointKind::PointToPoint;
        assert_eq!(mmd_joint_limit(&ball, 0, Vec3::ZERO, Vec3::X), None);
        assert_eq!(mmd_joint_limit(&rigid, 0, Vec3::X, Vec3::X), None);
        assert_eq!(mmd_joint_limit(&rigid, 1, Vec3::ZERO, Vec3::X), None);
    }
}
