//! `VRMC_springBone_limit` 1.0-draft in the VRM file: a spring joint's MMD joint rotation limits
//! brought into glTF space and into the limit frame, and the limit's JSON. The limit maths
//! itself (the shapes, the limit frame, the shape chosen from swing ranges) is
//! [`crate::physics::spring_limit`], shared with the physics preview.

use crate::physics::spring_limit::{LimitShape, SpringLimit, SwingRanges, axis_rotation};
use glam::{Quat, Vec3};
use serde_json::{Value, json};
use std::f32::consts::{FRAC_PI_2, PI};

/// The version this module writes (`VRMC_springBone_limit.specVersion`).
pub const SPEC_VERSION: &str = "1.0-draft";

/// The `VRMC_springBone_limit` object of a joint. Angles are clamped to the ranges the schema
/// allows (cone and hinge angle and spherical pitch 0..=π, spherical yaw 0..=π/2); the
/// rotation is left out when it is the identity (the schema's default).
#[must_use]
pub fn limit_json(limit: &SpringLimit) -> Value {
    let angle = |a: f32, max: f32| {
        if a.is_finite() {
            f64::from(a.clamp(0.0, max))
        } else {
            0.0
        }
    };
    let mut shape = match limit.shape {
        LimitShape::Cone { angle: a } => json!({ "angle": angle(a, PI) }),
        LimitShape::Hinge { angle: a } => json!({ "angle": angle(a, PI) }),
        LimitShape::Spherical { pitch, yaw } => {
            json!({ "pitch": angle(pitch, PI), "yaw": angle(yaw, FRAC_PI_2) })
        }
    };
    let rotation = limit.rotation.normalize();
    if rotation.is_finite() && !rotation.abs_diff_eq(Quat::IDENTITY, 1e-7) {
        shape["rotation"] = json!(rotation.to_array().map(f64::from));
    }
    let kind = match limit.shape {
        LimitShape::Cone { .. } => "cone",
        LimitShape::Hinge { .. } => "hinge",
        LimitShape::Spherical { .. } => "spherical",
    };
    json!({ "specVersion": SPEC_VERSION, "limit": { kind: shape } })
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
    let mirror = |v: Vec3| Vec3::new(v.x, v.y, -v.z);
    let axes = [Vec3::X, Vec3::Y, Vec3::Z].map(|axis| mirror(rotation * axis));
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::physics::spring_limit::choose_limit;

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-5
    }

    fn deg(d: f32) -> f32 {
        d.to_radians()
    }

    #[test]
    fn json_has_the_spec_version_and_one_shape() {
        let value = limit_json(&SpringLimit {
            shape: LimitShape::Cone { angle: 0.5 },
            rotation: Quat::IDENTITY,
        });
        assert_eq!(value["specVersion"], "1.0-draft");
        assert_eq!(value["limit"]["cone"]["angle"], 0.5);
        assert!(value["limit"]["cone"].get("rotation").is_none());
        let value = limit_json(&SpringLimit {
            shape: LimitShape::Spherical {
                pitch: 0.5,
                yaw: 3.0,
            },
            rotation: Quat::from_rotation_x(0.1),
        });
        assert_eq!(value["limit"].as_object().unwrap().len(), 1);
        assert_eq!(value["limit"]["spherical"]["yaw"], f64::from(FRAC_PI_2));
        assert_eq!(
            value["limit"]["spherical"]["rotation"]
                .as_array()
                .unwrap()
                .len(),
            4
        );
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
    }
}
