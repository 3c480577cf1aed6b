//! `VRMC_springBone_limit` 1.0-draft maths: the three limit shapes, the limit frame, and the
//! choice of a shape from a joint's rotation ranges. Pure functions, so the spring bone export
//! and a physics preview share them.
//!
//! # The limit frame
//!
//! A limit is defined around +Y in its own frame; the frame is the joint's rest frame turned
//! by the shortest rotation taking +Y to the bone axis (head → tail), then by the limit's own
//! `rotation`. When the bone axis is exactly −Y the shortest rotation is not unique and the
//! spec fixes it to 180° about X.
//!
//! The spec copy in `specs/vrmc-springbone-limit-1.0.ja.md` writes that shortest rotation as
//! `Quaternion(boneAxis.z, 0, boneAxis.x, dot + 1)`, which takes +Y to (−x, y, z), not to the
//! bone axis its prose asks for; the quaternion of the shortest arc from +Y to `a` is
//! `(cross(Y, a), 1 + dot(Y, a)) = (a.z, 0, −a.x, 1 + a.y)`, which later revisions of the spec
//! and UniVRM use. [`axis_rotation`] is the latter (a test checks it against the prose).
//!
//! # Degenerate directions
//!
//! The reference pseudo-code divides by `1 − y²`, which is 0 for a tail pointing exactly
//! along −Y of the limit frame, and the hinge normalises the direction after dropping X,
//! which is 0 for a tail along ±X. Both are outside every limit narrower than π; this code
//! then returns the limit's edge towards +Z (cone, hinge) or +Y (hinge from ±X), so the
//! result is always a unit vector.

use glam::{Quat, Vec3};
use serde_json::{Value, json};
use std::f32::consts::{FRAC_PI_2, PI};

/// The version this module writes (`VRMC_springBone_limit.specVersion`).
pub const SPEC_VERSION: &str = "1.0-draft";

/// A limit on the direction of a spring joint's tail.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SpringLimit {
    /// The tail stays within `angle` (radians, 0..=π) of +Y.
    Cone { angle: f32, rotation: Quat },
    /// The tail stays in the YZ plane (rotation about X only), within `angle` of +Y.
    Hinge { angle: f32, rotation: Quat },
    /// Pitch (about X, 0..=π) and yaw (towards X, 0..=π/2) limited separately.
    Spherical {
        pitch: f32,
        yaw: f32,
        rotation: Quat,
    },
}

/// The shortest rotation taking +Y to `bone_axis` (unit), with the spec's −Y case.
#[must_use]
pub fn axis_rotation(bone_axis: Vec3) -> Quat {
    let dot = bone_axis.y;
    if dot + 1.0 < 1e-8 {
        return Quat::from_xyzw(1.0, 0.0, 0.0, 0.0);
    }
    Quat::from_xyzw(bone_axis.z, 0.0, -bone_axis.x, dot + 1.0).normalize()
}

/// The rotation from the limit's frame to world space: parent's world rotation, the joint's
/// initial local rotation, the axis rotation and the limit's rotation, in that order.
#[must_use]
pub fn limit_frame(
    parent_world: Quat,
    initial_local: Quat,
    bone_axis: Vec3,
    limit_rotation: Quat,
) -> Quat {
    parent_world * initial_local * axis_rotation(bone_axis) * limit_rotation
}

fn clamp_angle(angle: f32, max: f32) -> f32 {
    if angle.is_nan() {
        0.0
    } else {
        angle.clamp(0.0, max)
    }
}

/// Clamps `dir`'s angle from +Y to `angle`, keeping its azimuth (the spec's cone).
fn clamp_cone(dir: Vec3, angle: f32) -> Vec3 {
    let cos_angle = angle.cos();
    if dir.y >= cos_angle {
        return dir;
    }
    let sin_sq = 1.0 - dir.y * dir.y;
    if sin_sq <= 1e-12 {
        // Straight down: every azimuth is as far; take +Z.
        return Vec3::new(0.0, cos_angle, angle.sin());
    }
    let ratio = ((1.0 - cos_angle * cos_angle) / sin_sq).sqrt();
    Vec3::new(dir.x * ratio, cos_angle, dir.z * ratio)
}

impl SpringLimit {
    /// The limit with its angles in the spec's ranges (negative or NaN: 0; cone, hinge and
    /// pitch at most π; yaw at most π/2).
    #[must_use]
    pub fn clamped(self) -> Self {
        match self {
            SpringLimit::Cone { angle, rotation } => SpringLimit::Cone {
                angle: clamp_angle(angle, PI),
                rotation,
            },
            SpringLimit::Hinge { angle, rotation } => SpringLimit::Hinge {
                angle: clamp_angle(angle, PI),
                rotation,
            },
            SpringLimit::Spherical {
                pitch,
                yaw,
                rotation,
            } => SpringLimit::Spherical {
                pitch: clamp_angle(pitch, PI),
                yaw: clamp_angle(yaw, FRAC_PI_2),
                rotation,
            },
        }
    }

    #[must_use]
    pub fn rotation(&self) -> Quat {
        match *self {
            SpringLimit::Cone { rotation, .. }
            | SpringLimit::Hinge { rotation, .. }
            | SpringLimit::Spherical { rotation, .. } => rotation,
        }
    }

    /// Limits a unit direction given in the limit's frame (the spec's reference code for each
    /// shape).
    #[must_use]
    pub fn apply_local(&self, dir: Vec3) -> Vec3 {
        match self.clamped() {
            SpringLimit::Cone { angle, .. } => clamp_cone(dir, angle),
            SpringLimit::Hinge { angle, .. } => {
                let Some(in_plane) = Vec3::new(0.0, dir.y, dir.z).try_normalize() else {
                    // Along ±X: the hinge's plane has no nearest direction; its centre.
                    return Vec3::Y;
                };
                clamp_cone(in_plane, angle)
            }
            SpringLimit::Spherical { pitch, yaw, .. } => {
                let mut current_pitch = dir.z.atan2(dir.y);
                let mut current_yaw = dir.x.clamp(-1.0, 1.0).asin();
                if current_pitch.abs() > pitch {
                    current_pitch = pitch.copysign(current_pitch);
                }
                if current_yaw.abs() > yaw {
                    current_yaw = yaw.copysign(current_yaw);
                }
                Vec3::new(
                    current_yaw.sin(),
                    current_yaw.cos() * current_pitch.cos(),
                    current_yaw.cos() * current_pitch.sin(),
                )
            }
        }
    }

    /// Limits a world-space unit tail direction, `frame` being [`limit_frame`]'s rotation.
    #[must_use]
    pub fn apply_world(&self, tail_dir: Vec3, frame: Quat) -> Vec3 {
        frame * self.apply_local(frame.inverse() * tail_dir)
    }

    /// The `VRMC_springBone_limit` object of a joint.
    #[must_use]
    pub fn to_json(&self) -> Value {
        let rotation = self.rotation();
        let with_rotation = |mut shape: Value| {
            if !rotation.abs_diff_eq(Quat::IDENTITY, 1e-7) {
                shape["rotation"] = json!(rotation.to_array().map(f64::from));
            }
            shape
        };
        let limit = match self.clamped() {
            SpringLimit::Cone { angle, .. } => {
                json!({ "cone": with_rotation(json!({ "angle": f64::from(angle) })) })
            }
            SpringLimit::Hinge { angle, .. } => {
                json!({ "hinge": with_rotation(json!({ "angle": f64::from(angle) })) })
            }
            SpringLimit::Spherical { pitch, yaw, .. } => json!({
                "spherical": with_rotation(json!({ "pitch": f64::from(pitch), "yaw": f64::from(yaw) }))
            }),
        };
        json!({ "specVersion": SPEC_VERSION, "limit": limit })
    }
}

/// Rotation ranges (radians, lower ≤ upper) of a joint's swing, in the limit frame: `about_x`
/// tilts the tail towards ±Z (the spec's pitch), `about_z` towards ∓X (yaw). The twist about
/// the bone (Y) is not a direction limit and is left out by the caller.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwingRanges {
    pub about_x: (f32, f32),
    pub about_z: (f32, f32),
}

/// Below this half-range a swing axis counts as locked (about 1°).
pub const LOCKED_AXIS: f32 = 0.0175;

/// Half-ranges within this ratio of each other make a cone.
pub const CONE_RATIO: f32 = 0.8;

/// The limit shape for a joint's swing ranges: both axes locked → a cone of angle 0; one
/// locked → a hinge about the other; similar half-ranges → a cone of the larger; otherwise a
/// spherical limit. Asymmetric ranges are centred by the limit's `rotation` (the middle of
/// each range), so the shape itself is symmetric as the spec's shapes are.
#[must_use]
pub fn choose_limit(ranges: SwingRanges) -> SpringLimit {
    let half = |(lower, upper): (f32, f32)| ((upper - lower).abs() * 0.5, (upper + lower) * 0.5);
    let (half_x, centre_x) = half(ranges.about_x);
    let (half_z, centre_z) = half(ranges.about_z);
    let centre = Quat::from_rotation_z(centre_z) * Quat::from_rotation_x(centre_x);
    let locked_x = half_x < LOCKED_AXIS;
    let locked_z = half_z < LOCKED_AXIS;
    let limit = match (locked_x, locked_z) {
        (true, true) => SpringLimit::Cone {
            angle: 0.0,
            rotation: centre,
        },
        // Swings about X only: the spec's hinge as it is.
        (false, true) => SpringLimit::Hinge {
            angle: half_x,
            rotation: centre,
        },
        // Swings about Z only: the hinge turned a quarter about Y, its X axis onto Z.
        (true, false) => SpringLimit::Hinge {
            angle: half_z,
            rotation: centre * Quat::from_rotation_y(FRAC_PI_2),
        },
        (false, false) if half_x.min(half_z) >= CONE_RATIO * half_x.max(half_z) => {
            SpringLimit::Cone {
                angle: half_x.max(half_z),
                rotation: centre,
            }
        }
        (false, false) => SpringLimit::Spherical {
            pitch: half_x,
            yaw: half_z,
            rotation: centre,
        },
    };
    limit.clamped()
}

/// A joint's rotation axes and ranges from MMD into glTF space. MMD joint limits are
/// per axis of the joint's frame (`rotation`, MMD's Euler angles as a quaternion) in MMD's
/// left-handed space; glTF's space is MMD's with z mirrored (see the module documentation of
/// `vrm`), and the mirror `M` turns a rotation by θ about axis `a` into a rotation by −θ about
/// `M·a`. Returns the three axes (glTF world) and each axis's (lower, upper) in glTF's sense.
#[must_use]
pub fn mmd_joint_axes_to_gltf(
    rotation: Quat,
    lower: Vec3,
    upper: Vec3,
) -> ([Vec3; 3], [(f32, f32); 3]) {
    let mirror = |v: Vec3| Vec3::new(v.x, v.y, -v.z);
    let axes = [Vec3::X, Vec3::Y, Vec3::Z].map(|axis| mirror(rotation * axis));
    let ranges = [0, 1, 2].map(|i| (-upper[i], -lower[i]));
    (axes, ranges)
}

/// The swing ranges of a joint in the limit frame `frame` (limit frame → world, without the
/// limit's own rotation: [`limit_frame`] with `Quat::IDENTITY`). Each joint axis goes to the
/// frame axis it is closest to (with its sign); the one closest to Y, the twist about the
/// bone, is dropped. When two joint axes fall on one frame axis the wider range is kept.
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
        let wider = slot.is_none_or(|(l, u)| (range.1 - range.0) > (u - l));
        if wider {
            *slot = Some(range);
        }
    }
    SwingRanges {
        about_x: about_x.unwrap_or((0.0, 0.0)),
        about_z: about_z.unwrap_or((0.0, 0.0)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use std::f32::consts::FRAC_PI_4;

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-5
    }

    fn deg(d: f32) -> f32 {
        d.to_radians()
    }

    #[test]
    fn axis_rotation_takes_y_to_the_bone_axis() {
        for axis in [
            Vec3::X,
            Vec3::Z,
            -Vec3::X,
            Vec3::new(0.3, 0.4, -0.866).normalize(),
            Vec3::new(-0.5, -0.7, 0.2).normalize(),
            Vec3::Y,
        ] {
            assert!(close(axis_rotation(axis) * Vec3::Y, axis), "{axis}");
        }
        // −Y: 180° about X, as the spec fixes it.
        let down = axis_rotation(-Vec3::Y);
        assert_eq!(down, Quat::from_xyzw(1.0, 0.0, 0.0, 0.0));
        assert!(close(down * Vec3::Z, -Vec3::Z));
        // The spec copy's sign would send +Y to (−x, y, z): worked for +X, the result is −X.
        let as_written = Quat::from_xyzw(0.0, 0.0, 1.0, 1.0).normalize();
        assert!(close(as_written * Vec3::Y, -Vec3::X));
    }

    #[test]
    fn cone_by_hand() {
        let cone = SpringLimit::Cone {
            angle: FRAC_PI_4,
            rotation: Quat::IDENTITY,
        };
        // Inside: untouched.
        let inside = Vec3::new(0.1, 0.99, 0.0).normalize();
        assert_eq!(cone.apply_local(inside), inside);
        // Along +Z (90° off): to 45° towards +Z.
        let s = FRAC_PI_4.sin();
        assert!(close(cone.apply_local(Vec3::Z), Vec3::new(0.0, s, s)));
        // Along +X: ratio sqrt((1 − ½)/1) = √½.
        assert!(close(cone.apply_local(Vec3::X), Vec3::new(s, s, 0.0)));
        // Half down, towards −X and +Z equally: azimuth kept.
        let dir = Vec3::new(-0.5, -0.5, 0.5).normalize();
        let out = cone.apply_local(dir);
        assert!((out.y - s).abs() < 1e-6 && (out.x + out.z).abs() < 1e-6 && out.z > 0.0);
        assert!((out.length() - 1.0).abs() < 1e-5);
        // Straight down: the +Z edge.
        assert!(close(cone.apply_local(-Vec3::Y), Vec3::new(0.0, s, s)));
        // π: a sphere, nothing limited.
        let sphere = SpringLimit::Cone {
            angle: 4.0,
            rotation: Quat::IDENTITY,
        };
        assert_eq!(sphere.apply_local(-Vec3::Y), -Vec3::Y);
    }

    #[test]
    fn hinge_by_hand() {
        let hinge = SpringLimit::Hinge {
            angle: deg(30.0),
            rotation: Quat::IDENTITY,
        };
        // Off-plane component dropped: (0.6, 0.8, 0) → (0, 1, 0).
        assert!(close(hinge.apply_local(Vec3::new(0.6, 0.8, 0.0)), Vec3::Y));
        // (0.6, 0, 0.8) → (0, 0, 1) → 30° towards +Z.
        let out = hinge.apply_local(Vec3::new(0.6, 0.0, 0.8));
        assert!(close(out, Vec3::new(0.0, deg(30.0).cos(), deg(30.0).sin())));
        // Inside the plane and the angle: untouched.
        let inside = Vec3::new(0.0, deg(20.0).cos(), -deg(20.0).sin());
        assert!(close(hinge.apply_local(inside), inside));
        // Along X: the hinge's centre.
        assert_eq!(hinge.apply_local(Vec3::X), Vec3::Y);
    }

    #[test]
    fn spherical_by_hand() {
        let limit = SpringLimit::Spherical {
            pitch: deg(30.0),
            yaw: deg(10.0),
            rotation: Quat::IDENTITY,
        };
        // +Z: pitch 90° → 30°, yaw 0.
        let out = limit.apply_local(Vec3::Z);
        assert!(close(out, Vec3::new(0.0, deg(30.0).cos(), deg(30.0).sin())));
        // +X: pitch atan2(0, 0) = 0, yaw 90° → 10°.
        let out = limit.apply_local(Vec3::X);
        assert!(close(out, Vec3::new(deg(10.0).sin(), deg(10.0).cos(), 0.0)));
        // Pitch 20°, yaw 5°: inside, rebuilt unchanged.
        let (p, y) = (deg(20.0), deg(5.0));
        let inside = Vec3::new(y.sin(), y.cos() * p.cos(), y.cos() * p.sin());
        assert!(close(limit.apply_local(inside), inside));
        // Yaw is clamped to π/2.
        let wide = SpringLimit::Spherical {
            pitch: 1.0,
            yaw: 3.0,
            rotation: Quat::IDENTITY,
        };
        assert_eq!(
            wide.clamped(),
            SpringLimit::Spherical {
                pitch: 1.0,
                yaw: FRAC_PI_2,
                rotation: Quat::IDENTITY
            }
        );
    }

    #[test]
    fn world_application_follows_the_frame() {
        // A bone pointing along +X in a rest frame: the cone opens around +X.
        let frame = limit_frame(Quat::IDENTITY, Quat::IDENTITY, Vec3::X, Quat::IDENTITY);
        let cone = SpringLimit::Cone {
            angle: deg(10.0),
            rotation: Quat::IDENTITY,
        };
        assert!(close(cone.apply_world(Vec3::X, frame), Vec3::X));
        let limited = cone.apply_world(Vec3::Y, frame);
        assert!((limited.angle_between(Vec3::X) - deg(10.0)).abs() < 1e-4);
        // The limit's own rotation turns the cone: 20° about Z from +X.
        let turned = limit_frame(
            Quat::IDENTITY,
            Quat::IDENTITY,
            Vec3::X,
            Quat::from_rotation_z(deg(20.0)),
        );
        let centre = turned * Vec3::Y;
        assert!(close(cone.apply_world(centre, turned), centre));
    }

    #[test]
    fn joint_ranges_choose_the_shape() {
        let ranges = |x: (f32, f32), z: (f32, f32)| SwingRanges {
            about_x: (deg(x.0), deg(x.1)),
            about_z: (deg(z.0), deg(z.1)),
        };
        // One axis locked: a hinge about the other.
        match choose_limit(ranges((-30.0, 30.0), (0.0, 0.0))) {
            SpringLimit::Hinge { angle, rotation } => {
                assert!((angle - deg(30.0)).abs() < 1e-5);
                assert!(rotation.abs_diff_eq(Quat::IDENTITY, 1e-6));
            }
            other => panic!("{other:?}"),
        }
        match choose_limit(ranges((0.0, 0.0), (-20.0, 20.0))) {
            SpringLimit::Hinge { angle, rotation } => {
                assert!((angle - deg(20.0)).abs() < 1e-5);
                // The hinge's X axis is on ±Z: it swings the tail towards ±X.
                let hinge = SpringLimit::Hinge { angle, rotation };
                let out = hinge.apply_world(Vec3::X, rotation);
                assert!((out.angle_between(Vec3::Y) - deg(20.0)).abs() < 1e-4);
                assert!(out.x > 0.0 && out.z.abs() < 1e-5);
            }
            other => panic!("{other:?}"),
        }
        // Similar ranges: a cone of the larger.
        match choose_limit(ranges((-30.0, 30.0), (-27.0, 27.0))) {
            SpringLimit::Cone { angle, .. } => assert!((angle - deg(30.0)).abs() < 1e-5),
            other => panic!("{other:?}"),
        }
        // Different ranges: spherical, pitch about X and yaw about Z.
        match choose_limit(ranges((-40.0, 40.0), (-10.0, 10.0))) {
            SpringLimit::Spherical { pitch, yaw, .. } => {
                assert!((pitch - deg(40.0)).abs() < 1e-5 && (yaw - deg(10.0)).abs() < 1e-5);
            }
            other => panic!("{other:?}"),
        }
        // Asymmetric: 0..60° about X is a 30° hinge centred at 30° by the rotation.
        match choose_limit(ranges((0.0, 60.0), (0.0, 0.0))) {
            SpringLimit::Hinge { angle, rotation } => {
                assert!((angle - deg(30.0)).abs() < 1e-5);
                let centre = rotation * Vec3::Y;
                let expected = Quat::from_rotation_x(deg(30.0)) * Vec3::Y;
                assert!(close(centre, expected));
            }
            other => panic!("{other:?}"),
        }
        // Both locked: a cone of 0.
        assert!(matches!(
            choose_limit(ranges((0.0, 0.0), (0.0, 0.0))),
            SpringLimit::Cone { angle, .. } if angle == 0.0
        ));
    }

    #[test]
    fn json_has_the_spec_version_and_one_shape() {
        let value = SpringLimit::Cone {
            angle: 0.5,
            rotation: Quat::IDENTITY,
        }
        .to_json();
        assert_eq!(value["specVersion"], "1.0-draft");
        assert_eq!(value["limit"]["cone"]["angle"], 0.5);
        assert!(value["limit"]["cone"].get("rotation").is_none());
        let value = SpringLimit::Spherical {
            pitch: 0.5,
            yaw: 0.25,
            rotation: Quat::from_rotation_x(0.1),
        }
        .to_json();
        assert_eq!(value["limit"].as_object().unwrap().len(), 1);
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
        let frame = limit_frame(Quat::IDENTITY, Quat::IDENTITY, -Vec3::Y, Quat::IDENTITY);
        let swing = swing_ranges(axes, ranges, frame);
        assert!((swing.about_x.0 + deg(30.0)).abs() < 1e-5);
        assert!((swing.about_x.1 - deg(30.0)).abs() < 1e-5);
        assert_eq!(swing.about_z, (0.0, 0.0));
        assert!(
            matches!(choose_limit(swing), SpringLimit::Hinge { angle, .. } if (angle - deg(30.0)).abs() < 1e-5)
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
        let frame = limit_frame(Quat::IDENTITY, Quat::IDENTITY, Vec3::X, Quat::IDENTITY);
        let swing = swing_ranges(axes, ranges, frame);
        assert!((swing.about_z.0 + deg(10.0)).abs() < 1e-5, "{swing:?}");
        assert!((swing.about_z.1 - deg(40.0)).abs() < 1e-5, "{swing:?}");
        let limit = choose_limit(swing);
        let full = limit_frame(Quat::IDENTITY, Quat::IDENTITY, Vec3::X, limit.rotation());
        let turned = |degrees: f32| Quat::from_rotation_z(deg(degrees)) * Vec3::X;
        assert!(close(limit.apply_world(turned(40.0), full), turned(40.0)));
        assert!(close(limit.apply_world(turned(0.0), full), turned(0.0)));
        assert!(close(limit.apply_world(turned(60.0), full), turned(40.0)));
        assert!(close(limit.apply_world(turned(-20.0), full), turned(-10.0)));
        // Out of the plane: projected back into it.
        let out = limit.apply_world(Vec3::new(1.0, 0.0, 1.0).normalize(), full);
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
        // Check against points: MMD's Rx(30°) turns −Y towards −Z... in MMD numbers
        // (0, −c, −s); mirrored that is (0, −c, s), which glTF's Rx(−30°) gives from −Y.
        let mmd = Quat::from_rotation_x(deg(30.0)) * -Vec3::Y;
        let mirrored = Vec3::new(mmd.x, mmd.y, -mmd.z);
        assert!(close(
            Quat::from_rotation_x(deg(-30.0)) * -Vec3::Y,
            mirrored
        ));
    }
}
