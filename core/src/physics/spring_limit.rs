//! VRMC_springBone_limit 1.0-draft: the cone, hinge and spherical limits of a spring joint, in
//! the limit's own space (Y = the joint's rest direction, head → tail) and in the world, after
//! the spec's reference implementation (its appendix); and the choice of a limit from the swing
//! ranges of a joint (the VRM export turns MMD joint rotation limits into these).
//!
//! One difference from the copy of the spec in `../shared/specs`: its pseudo-code builds the
//! minimal rotation from +Y to the bone axis as `Quaternion(boneAxis.z, 0, boneAxis.x, dot + 1)`,
//! which turns +Y to (−x, y, z). The current spec text and UniVRM's implementation write
//! `-boneAxis.x`, which is `quaternion(cross(Y, axis), dot + 1)`, the rotation that really takes
//! +Y to the bone axis; [`axis_rotation`] is that one (a test checks it on every axis).
//!
//! Angles are radians.

use glam::{Quat, Vec3};

/// Below this, `dot(+Y, bone axis) + 1` counts as the bone pointing straight down (−Y), where the
/// shortest rotation is not unique and the spec fixes 180° about X.
const DOWNWARD_EPSILON: f32 = 1e-8;

/// A swing range narrower than this (radians, about 1°) counts as no swing: one such axis makes
/// a hinge.
pub const NO_SWING: f32 = 0.017_453_3;

/// Two swing half-ranges within this ratio of each other make a cone.
pub const CONE_RATIO: f32 = 1.2;

/// The shape of a limit, in the limit's space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LimitShape {
    /// The direction stays within `angle` of +Y.
    Cone { angle: f32 },
    /// The direction stays in the YZ plane (a rotation about X), within `angle` of +Y.
    Hinge { angle: f32 },
    /// `pitch`: the largest turn about X (towards ±Z); `yaw`: the largest tilt towards ±X.
    Spherical { pitch: f32, yaw: f32 },
}

/// A limit with its rotation from the default orientation (`rotation` of the JSON).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringLimit {
    pub shape: LimitShape,
    pub rotation: Quat,
}

impl LimitShape {
    /// `direction` (a unit vector in the limit's space) brought within the limit, as the spec's
    /// reference implementation does. Directions the reference leaves undefined (straight down
    /// for a cone; along ±X for a hinge, which has no YZ component) go to the nearest point the
    /// limit allows in a fixed, documented way: the cone's edge towards +Z, the hinge's rest
    /// direction +Y.
    ///
    /// The cone and the hinge compare angles (`atan2` of the sine and cosine of the direction's
    /// angle from +Y) where the reference compares `y` with `cos(angle)`, and scale the sideways
    /// part by `sin(angle) / sin(direction's angle)`, which is the reference's
    /// `sqrt((1 − cos²) / (1 − y²))`: the same in exact arithmetic, but in `f32` a cosine near
    /// 1 cannot tell apart directions within 3.5e-4 rad of the axis (`1 − 6e-8` rounds to 1),
    /// and a cone of angle 0 (an MMD joint with no swing) let Gene's hair through by up to
    /// 7e-4 rad. A negative angle (the schema allows none) counts as its size, as the
    /// reference's cosine makes it.
    #[must_use]
    pub fn apply(self, direction: Vec3) -> Vec3 {
        match self {
            LimitShape::Cone { angle } => {
                let angle = angle.abs();
                let sideways = direction.x.hypot(direction.z);
                if sideways.atan2(direction.y) <= angle {
                    return direction;
                }
                let (sin_angle, cos_angle) = angle.sin_cos();
                if sideways <= f32::EPSILON {
                    // Straight down: every point of the cone's edge is as near.
                    return Vec3::new(0.0, cos_angle, sin_angle);
                }
                let ratio = sin_angle / sideways;
                Vec3::new(direction.x * ratio, cos_angle, direction.z * ratio)
            }
            LimitShape::Hinge { angle } => {
                let angle = angle.abs();
                let in_plane = Vec3::new(0.0, direction.y, direction.z);
                let in_plane = if in_plane.length_squared() <= f32::EPSILON {
                    Vec3::Y
                } else {
                    in_plane.normalize()
                };
                if in_plane.z.abs().atan2(in_plane.y) <= angle {
                    return in_plane;
                }
                let (sin_angle, cos_angle) = angle.sin_cos();
                if in_plane.z.abs() <= f32::EPSILON {
                    return Vec3::new(0.0, cos_angle, sin_angle);
                }
                Vec3::new(0.0, cos_angle, sin_angle.copysign(in_plane.z))
            }
            LimitShape::Spherical { pitch, yaw } => {
                let mut turned = direction.z.atan2(direction.y);
                let mut tilted = direction.x.clamp(-1.0, 1.0).asin();
                if turned.abs() > pitch {
                    turned = pitch.copysign(turned);
                }
                if tilted.abs() > yaw {
                    tilted = yaw.copysign(tilted);
                }
                Vec3::new(
                    tilted.sin(),
                    tilted.cos() * turned.cos(),
                    tilted.cos() * turned.sin(),
                )
            }
        }
    }
}

/// The shortest rotation from +Y to `bone_axis` (a unit vector: the child's rest direction in
/// the joint's local space); 180° about X when the bone points straight down.
///
/// This is the spec's `quaternion(cross(Y, axis), dot + 1)` normalized, evaluated as the turn by
/// `atan2(|cross|, dot)` about `cross / |cross|`: the same rotation, but the spec's form loses
/// everything near −Y in `f32`. A bone axis normalized from a vertical segment can come out
/// as (0, −0.99999994, 0): `dot + 1` = 6e-8 passes the spec's 1e-8 test, the cross product is
/// zero, and the normalized quaternion is the identity, which turns the limit's frame up: the
/// limit then held sd_mei's hanging front hair pointing straight up.
#[must_use]
pub fn axis_rotation(bone_axis: Vec3) -> Quat {
    let dot = bone_axis.y;
    let half_turn_about_x = Quat::from_xyzw(1.0, 0.0, 0.0, 0.0);
    if dot + 1.0 < DOWNWARD_EPSILON {
        return half_turn_about_x;
    }
    // cross(+Y, axis) = (z, 0, −x); its length is the sine of the turn.
    let sideways = bone_axis.z.hypot(bone_axis.x);
    if sideways <= f32::MIN_POSITIVE {
        // Along ±Y to the last bit: no turn, or the spec's 180° about X.
        return if dot < 0.0 {
            half_turn_about_x
        } else {
            Quat::IDENTITY
        };
    }
    let (sin_half, cos_half) = (0.5 * sideways.atan2(dot)).sin_cos();
    let scale = sin_half / sideways;
    Quat::from_xyzw(bone_axis.z * scale, 0.0, -bone_axis.x * scale, cos_half)
}

impl SpringLimit {
    /// The rotation that takes the limit's space to the world: the joint's frame (its parent's
    /// world rotation times its own initial local rotation), then the shortest rotation from
    /// +Y to the bone axis, then the limit's own rotation.
    #[must_use]
    pub fn frame(&self, joint_frame: Quat, bone_axis: Vec3) -> Quat {
        joint_frame * axis_rotation(bone_axis) * self.rotation
    }

    /// `tail_direction` (a unit vector in the world: from the joint to the next tail position)
    /// brought within the limit.
    #[must_use]
    pub fn apply_world(&self, tail_direction: Vec3, joint_frame: Quat, bone_axis: Vec3) -> Vec3 {
        let frame = self.frame(joint_frame, bone_axis);
        frame * self.shape.apply(frame.inverse() * tail_direction)
    }
}

/// How far a joint may swing, in the limit's space: `pitch` is the turn about X (positive
/// towards +Z), `yaw` the tilt towards +X; each `(min, max)` in radians, `min <= max`.
/// Twist about the bone (Y) has no place in a limit and is not part of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwingRanges {
    pub pitch: (f32, f32),
    pub yaw: (f32, f32),
}

/// Which limit holds `ranges`: no swing about one axis makes a hinge (turned so that it swings
/// the way the other axis does), two half-ranges within [`CONE_RATIO`] of each other a cone of
/// the larger, anything else a spherical limit. Asymmetric ranges are centred: the limit's
/// rotation turns its rest direction to the middle of each range. `None` when neither axis
/// swings (the joint is rigid: a spring with nothing to limit).
#[must_use]
pub fn choose_limit(ranges: SwingRanges) -> Option<SpringLimit> {
    let half = |(min, max): (f32, f32)| (max - min).max(0.0) / 2.0;
    let centre = |(min, max): (f32, f32)| (min + max) / 2.0;
    let (pitch_half, yaw_half) = (half(ranges.pitch), half(ranges.yaw));
    let (pitch_centre, yaw_centre) = (centre(ranges.pitch), centre(ranges.yaw));
    let pitch_swings = 2.0 * pitch_half >= NO_SWING;
    let yaw_swings = 2.0 * yaw_half >= NO_SWING;
    // The tilt towards +X is a turn about −Z.
    let centring = Quat::from_rotation_x(pitch_centre) * Quat::from_rotation_z(-yaw_centre);
    match (pitch_swings, yaw_swings) {
        (false, false) => None,
        (true, false) => Some(SpringLimit {
            shape: LimitShape::Hinge { angle: pitch_half },
            rotation: centring,
        }),
        // A hinge turns about X; a swing towards X is the hinge turned a quarter about Y.
        (false, true) => Some(SpringLimit {
            shape: LimitShape::Hinge { angle: yaw_half },
            rotation: centring * Quat::from_rotation_y(std::f32::consts::FRAC_PI_2),
        }),
        (true, true) => {
            let (larger, smaller) = if pitch_half >= yaw_half {
                (pitch_half, yaw_half)
            } else {
                (yaw_half, pitch_half)
            };
            let shape = if larger <= smaller * CONE_RATIO {
                LimitShape::Cone { angle: larger }
            } else {
                LimitShape::Spherical {
                    pitch: pitch_half,
                    yaw: yaw_half,
                }
            };
            Some(SpringLimit {
                shape,
                rotation: centring,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use std::f32::consts::{FRAC_1_SQRT_2, FRAC_PI_2, FRAC_PI_3, FRAC_PI_4, FRAC_PI_6};

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-5
    }

    #[test]
    fn the_axis_rotation_turns_plus_y_onto_the_bone_axis() {
        for axis in [
            Vec3::X,
            -Vec3::X,
            Vec3::Z,
            -Vec3::Z,
            Vec3::Y,
            Vec3::new(1.0, 1.0, 0.0).normalize(),
            Vec3::new(-0.3, -0.9, 0.3).normalize(),
        ] {
            let turned = axis_rotation(axis) * Vec3::Y;
            assert!(close(turned, axis), "{axis} → {turned}");
        }
        // Straight down: 180° about X, as the spec requires (Z flips too).
        let down = axis_rotation(-Vec3::Y);
        assert_eq!(down, Quat::from_xyzw(1.0, 0.0, 0.0, 0.0));
        assert!(close(down * Vec3::Y, -Vec3::Y));
        assert!(close(down * Vec3::Z, -Vec3::Z));
        // Straight down as normalizing a vertical segment can leave it: y one ulp above −1,
        // which the spec's `dot + 1 < 1e-8` lets through with a zero cross product.
        let almost = Vec3::new(0.0, -0.999_999_94, 0.0);
        assert_eq!(axis_rotation(almost), down);
        // Within f32 noise of −Y, tilted any way: still turned onto the axis, never up.
        for tilt in [
            Vec3::new(1e-6, 0.0, 0.0),
            Vec3::new(0.0, 0.0, -1e-6),
            Vec3::new(2e-7, 0.0, 7.6e-7),
        ] {
            for y in [-1.0, -0.999_999_94] {
                let axis = Vec3::new(tilt.x, y, tilt.z);
                let turned = axis_rotation(axis) * Vec3::Y;
                assert!(close(turned, axis.normalize()), "{axis} → {turned}");
                assert!(axis_rotation(axis).is_normalized(), "{axis}");
            }
        }
        // Off by 1e-3 (y = −0.9999995, clear of the spec's special case): onto the axis.
        let axis = Vec3::new(-3e-4, -1.0, 1e-3).normalize();
        assert!(close(axis_rotation(axis) * Vec3::Y, axis));
        // The formula of the seed copy of the spec (+x) would turn +Y to −X for a bone along
        // +X: the reason this module follows the corrected spec.
        let seed = Quat::from_xyzw(0.0, 0.0, 1.0, 1.0).normalize();
        assert!(close(seed * Vec3::Y, -Vec3::X));
    }

    #[test]
    fn cone_worked_by_hand() {
        let cone = LimitShape::Cone { angle: FRAC_PI_4 };
        // Inside: unchanged.
        let inside = Vec3::new(0.3, 0.9, 0.1).normalize();
        assert_eq!(cone.apply(inside), inside);
        // Along +X, 90° out: y = cos 45°, x scaled by sqrt((1 − ½) / (1 − 0)) = 0.7071.
        let limited = cone.apply(Vec3::X);
        assert!(
            close(limited, Vec3::new(FRAC_1_SQRT_2, FRAC_1_SQRT_2, 0.0)),
            "{limited}"
        );
        // 60° towards −Z with a 30° cone: y = cos 30°, z = −sin 60° · sin 30° / sin 60°.
        let cone = LimitShape::Cone { angle: FRAC_PI_6 };
        let direction = Vec3::new(0.0, FRAC_PI_3.cos(), -FRAC_PI_3.sin());
        let limited = cone.apply(direction);
        assert!(
            close(limited, Vec3::new(0.0, FRAC_PI_6.cos(), -0.5)),
            "{limited}"
        );
        // Straight down: the edge towards +Z (undefined in the reference; never NaN).
        let down = cone.apply(-Vec3::Y);
        assert!(close(down, Vec3::new(0.0, FRAC_PI_6.cos(), 0.5)), "{down}");
    }

    #[test]
    fn hinge_worked_by_hand() {
        let hinge = LimitShape::Hinge { angle: FRAC_PI_6 };
        // The X part is dropped: (0.6, 0.8, 0) → +Y, within the hinge.
        assert!(close(hinge.apply(Vec3::new(0.6, 0.8, 0.0)), Vec3::Y));
        // Along +Z, 90° out: (0, cos 30°, sin 30°).
        assert!(close(
            hinge.apply(Vec3::Z),
            Vec3::new(0.0, FRAC_PI_6.cos(), 0.5)
        ));
        // (0.6, 0, 0.8) → (0, 0, 1) after dropping X → the hinge's edge towards +Z.
        assert!(close(
            hinge.apply(Vec3::new(0.6, 0.0, 0.8)),
            Vec3::new(0.0, FRAC_PI_6.cos(), 0.5)
        ));
        // Along ±X there is nothing left in the plane: the rest direction.
        assert!(close(hinge.apply(Vec3::X), Vec3::Y));
        assert!(hinge.apply(-Vec3::X).is_finite());
    }

    #[test]
    fn narrow_limits_hold_to_f32_precision() {
        // 1e-4 rad off the axis: y = 1 − 5e-9 is 1.0 in f32, so comparing y with cos(0)
        // would let it through.
        let off = Vec3::new(1e-4f32.sin(), 1e-4f32.cos(), 0.0);
        assert_eq!(off.y, 1.0);
        for shape in [
            LimitShape::Cone { angle: 0.0 },
            LimitShape::Hinge { angle: 0.0 },
        ] {
            let limited = shape.apply(Quat::from_rotation_y(0.3) * off);
            assert!(
                limited.x.abs() < 1e-7 && limited.z.abs() < 1e-7,
                "{shape:?}: {limited}"
            );
        }
        // A cone of 1e-3 rad keeps a direction 5e-4 off and brings one 2e-3 off to its edge.
        let cone = LimitShape::Cone { angle: 1e-3 };
        let inside = Vec3::new(0.0, 5e-4f32.cos(), 5e-4f32.sin());
        assert_eq!(cone.apply(inside), inside);
        let edge = cone.apply(Vec3::new(0.0, 2e-3f32.cos(), 2e-3f32.sin()));
        assert!((edge.z.atan2(edge.y) - 1e-3).abs() < 1e-7, "{edge}");
        // A negative angle is its size.
        let negative = LimitShape::Cone { angle: -FRAC_PI_4 };
        assert!(close(
            negative.apply(Vec3::X),
            Vec3::new(FRAC_1_SQRT_2, FRAC_1_SQRT_2, 0.0)
        ));
    }

    #[test]
    fn spherical_worked_by_hand() {
        let sphere = LimitShape::Spherical {
            pitch: 0.5,
            yaw: 0.25,
        };
        // Along +Z: pitch = atan2(1, 0) = 90° → 0.5; yaw = asin 0 = 0.
        assert!(close(
            sphere.apply(Vec3::Z),
            Vec3::new(0.0, 0.5f32.cos(), 0.5f32.sin())
        ));
        // Along +X: pitch = atan2(0, 0) = 0; yaw = 90° → 0.25.
        assert!(close(
            sphere.apply(Vec3::X),
            Vec3::new(0.25f32.sin(), 0.25f32.cos(), 0.0)
        ));
        // Along −X, −Z mixed: both clamped with their signs.
        let direction = Vec3::new(-0.6, 0.0, -0.8);
        let limited = sphere.apply(direction);
        let expected = Vec3::new(
            (-0.25f32).sin(),
            (-0.25f32).cos() * (-0.5f32).cos(),
            (-0.25f32).cos() * (-0.5f32).sin(),
        );
        assert!(close(limited, expected), "{limited}");
        // Inside both ranges: the same direction (recomputed from its angles).
        let inside = Vec3::new(0.1, 0.95, 0.2).normalize();
        assert!(close(sphere.apply(inside), inside));
    }

    #[test]
    fn in_the_world_the_limit_follows_the_bone_axis_and_its_rotation() {
        // A bone along +X under an unturned joint, a 30° cone: a tail swung up to +Y comes
        // back to 30° above +X.
        let limit = SpringLimit {
            shape: LimitShape::Cone { angle: FRAC_PI_6 },
            rotation: Quat::IDENTITY,
        };
        let limited = limit.apply_world(Vec3::Y, Quat::IDENTITY, Vec3::X);
        assert!(
            close(limited, Vec3::new(FRAC_PI_6.cos(), FRAC_PI_6.sin(), 0.0)),
            "{limited}"
        );
        // The joint's frame turned 90° about Z carries the whole limit with it: the bone now
        // points along world +Y, world −X is the joint's local +Y, 90° out, and comes back to
        // 30° from the bone towards it.
        let frame = Quat::from_rotation_z(FRAC_PI_2);
        let limited = limit.apply_world(-Vec3::X, frame, Vec3::X);
        let expected = frame * Vec3::new(FRAC_PI_6.cos(), FRAC_PI_6.sin(), 0.0);
        assert!(close(expected, Vec3::new(-0.5, FRAC_PI_6.cos(), 0.0)));
        assert!(close(limited, expected), "{limited} vs {expected}");
    }

    #[test]
    fn joints_choose_hinge_cone_or_spherical() {
        let hinge = choose_limit(SwingRanges {
            pitch: (-0.5, 0.5),
            yaw: (0.0, 0.0),
        })
        .unwrap();
        assert_eq!(hinge.shape, LimitShape::Hinge { angle: 0.5 });
        assert!(close(hinge.rotation * Vec3::Y, Vec3::Y));

        let cone = choose_limit(SwingRanges {
            pitch: (-0.5, 0.5),
            yaw: (-0.45, 0.45),
        })
        .unwrap();
        assert_eq!(cone.shape, LimitShape::Cone { angle: 0.5 });

        let sphere = choose_limit(SwingRanges {
            pitch: (-0.8, 0.8),
            yaw: (-0.2, 0.2),
        })
        .unwrap();
        assert_eq!(
            sphere.shape,
            LimitShape::Spherical {
                pitch: 0.8,
                yaw: 0.2
            }
        );

        // Asymmetric: 0..1 about X is a hinge of ±0.5 turned to the middle, 0.5 towards +Z.
        let turned = choose_limit(SwingRanges {
            pitch: (0.0, 1.0),
            yaw: (0.0, 0.0),
        })
        .unwrap();
        assert_eq!(turned.shape, LimitShape::Hinge { angle: 0.5 });
        let middle = turned.rotation * Vec3::Y;
        assert!(
            close(middle, Vec3::new(0.0, 0.5f32.cos(), 0.5f32.sin())),
            "{middle}"
        );
        // Its edges are the range's ends: 0 (+Y) and 1 rad towards +Z.
        let edge = turned.rotation * turned.shape.apply(turned.rotation.inverse() * Vec3::Z);
        assert!(
            close(edge, Vec3::new(0.0, 1f32.cos(), 1f32.sin())),
            "{edge}"
        );

        // Swinging only towards ±X: a hinge turned to swing in the XY plane.
        let sideways = choose_limit(SwingRanges {
            pitch: (0.0, 0.0),
            yaw: (-0.3, 0.3),
        })
        .unwrap();
        assert_eq!(sideways.shape, LimitShape::Hinge { angle: 0.3 });
        let edge = sideways.rotation * sideways.shape.apply(sideways.rotation.inverse() * Vec3::X);
        assert!(
            close(edge, Vec3::new(0.3f32.sin(), 0.3f32.cos(), 0.0)),
            "{edge}"
        );

        // Rigid: nothing to limit.
        assert_eq!(
            choose_limit(SwingRanges {
                pitch: (0.0, 0.001),
                yaw: (0.0, 0.0),
            }),
            None
        );
    }
}
