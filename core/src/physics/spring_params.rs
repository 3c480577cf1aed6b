//! VRMC_springBone joint settings (`stiffness`, `dragForce`, `gravityPower`) from the MMD
//! physics a spring replaces: the rigid body that hangs on the joint (mass, shape, damping) and
//! the joint's rotation spring. No constant is picked by taste: each setting is the one that
//! makes the spring's small-swing motion the same as the rigid body's.
//!
//! **The spring** (VRMC_springBone's reference algorithm) moves the tail once a frame of `Δt`
//! seconds: `nextTail = tail + (tail − prevTail)(1 − dragForce) + Δt·stiffness·restAxis +
//! Δt·gravityPower·gravityDir`, then back onto the sphere of the bone's length `L` (metres). For
//! a swing angle θ from the rest direction and φ from straight down, per frame the angular
//! velocity ω (radians a frame) becomes
//! `ω' = (1 − dragForce)·ω − Δt·stiffness·sin θ / L − Δt·gravityPower·sin φ / L`,
//! which in seconds is `θ̈ = −(dragForce/Δt)·θ̇ − (stiffness/(L·Δt))·θ − (gravityPower/(L·Δt))·sin φ`
//! (small θ; `dragForce` small).
//!
//! **The rigid body** (Bullet, as MikuMikuDance runs it) turns about the joint with moment of
//! inertia `I = I_c + m·r²` (its own about its centre plus its mass `m` at the distance `r` of
//! its centre from the joint, MMD units), pulled back by the joint's rotation spring `K` and by
//! gravity `g` (98 MMD units/s²: MikuMikuDance's 9.8 × 10), so
//! `θ̈ = −c·θ̇ − (K/I)·θ − (m·g·r/I)·sin φ`, where Bullet keeps `(1 − damping)` of a velocity
//! each second (`c = −ln(1 − damping)`), the linear damping acting on the `m·r²` part of the
//! motion and the angular damping on the `I_c` part.
//!
//! Matching the terms gives, with `L` in metres (0.08 m per MMD unit):
//! - `stiffness = (K/I)·L·Δt`
//! - `gravityPower = (m·g·r/I)·L·Δt·lever`, where `lever` is the share of the bone's sideways
//!   reach the body's centre has about its joint ([`SwingingBody::gravity_lever`]): gravity
//!   turns a body by its centre and a spring by its tail, so a body hung straight below its
//!   joint (lever 0), which gravity does not turn at rest, gives a spring gravity does not turn
//! - `dragForce = 1 − keep^Δt·(1 + δ/L)`, `keep = (m·r²·(1 − linear) + I_c·(1 − angular)) / I`.
//!
//! The `(1 + δ/L)` is the algorithm's own damping: the pull of a frame,
//! `δ = Δt·(stiffness + gravityPower·cos ψ)` along the bone at rest (ψ: the rest direction's
//! angle from straight down), moves the tail off the bone's sphere, and putting it back on
//! shrinks the frame's swing by `L/(L + δ)`: without it a spring damps several times more than
//! its body (a test measures both). Where that alone damps more than the body, `dragForce` is 0.
//!
//! `Δt` is [`FRAME_SECONDS`] (the 60 frames a second the VRM runtimes are run at); the
//! spring's behaviour depends on the frame rate by its own definition.

use crate::model::RigidShape;

/// The frame the VRM runtimes step the springs at (60 a second).
pub const FRAME_SECONDS: f32 = 1.0 / 60.0;
/// MikuMikuDance's gravity in MMD units a second squared (9.8 m/s² × 10 units per metre as
/// MikuMikuDance sets Bullet's gravity).
pub const MMD_GRAVITY: f32 = 98.0;
/// The most [`SwingingBody::gravity_lever`] raises gravity by (a body far off to the side of
/// a bone that hangs almost straight down would otherwise get an unbounded pull).
pub const MAX_GRAVITY_LEVER: f32 = 2.0;
/// Metres per MMD unit (the VRM export's scale).
pub const METRES_PER_UNIT: f32 = 0.08;

/// What a spring joint replaces: one rigid body hanging on one joint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SwingingBody {
    pub mass: f32,
    pub shape: RigidShape,
    /// The rigid body's `size` (sphere: radius; box: half extents; capsule: radius, height).
    pub size: [f32; 3],
    /// Distance of the body's centre from the joint, MMD units.
    pub centre_distance: f32,
    /// Bullet's linear and angular damping (0..1: the part of a velocity lost each second).
    pub linear_damping: f32,
    pub angular_damping: f32,
    /// The joint's rotation spring about the swing axes (N·m/rad in MMD units; the mean of the
    /// two axes across the bone).
    pub spring: f32,
    /// The bone's length (joint to tail), MMD units.
    pub bone_length: f32,
    /// Cosine of the angle between the bone's rest direction and straight down (1 for a bone
    /// that hangs, 0 for a level one, −1 for one pointing up).
    pub rest_down_cosine: f32,
    /// How much of the bone's lever against gravity the body has at rest: the body's centre's
    /// sideways offset from the joint (its horizontal part), along the bone's own, as a share
    /// of the bone's. 1 for a body laid along its bone; 0 for one whose centre hangs straight
    /// below the joint, which gravity does not turn at rest (see [`spring_settings`]).
    pub gravity_lever: f32,
}

/// The settings of a VRMC_springBone joint.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringSettings {
    pub stiffness: f32,
    pub drag_force: f32,
    pub gravity_power: f32,
}

/// The moment of inertia of a rigid body about an axis through its centre and across its local
/// Y (the axis MMD bodies are laid along their bones), MMD mass × units².
#[must_use]
pub fn inertia_across(shape: RigidShape, size: [f32; 3], mass: f32) -> f32 {
    let mass = mass.max(0.0);
    match shape {
        RigidShape::Box => {
            let [a, b, c] = size.map(f32::abs);
            // Full edges are twice the half extents: I = m (edge₁² + edge₂²) / 12.
            let about_x = mass * (b * b + c * c) / 3.0;
            let about_z = mass * (a * a + b * b) / 3.0;
            (about_x + about_z) / 2.0
        }
        RigidShape::Capsule => {
            let radius = size[0].abs();
            let length = size[1].abs() + 2.0 * radius;
            // A solid cylinder of the whole length, about a diameter through its centre.
            mass * (3.0 * radius * radius + length * length) / 12.0
        }
        RigidShape::Sphere | RigidShape::Unknown(_) => {
            let radius = size[0].abs();
            0.4 * mass * radius * radius
        }
    }
}

/// The spring settings that swing like `body` (see the module documentation for the
/// derivation). A body with no inertia at all (no mass) gets no stiffness, no gravity and no
/// drag.
#[must_use]
pub fn spring_settings(body: &SwingingBody) -> SpringSettings {
    let mass = body.mass.max(0.0);
    let own = inertia_across(body.shape, body.size, mass);
    let r = body.centre_distance.abs();
    let carried = mass * r * r;
    let inertia = own + carried;
    let length = body.bone_length.abs() * METRES_PER_UNIT;
    if !(inertia.is_finite() && inertia > 0.0) {
        return SpringSettings {
            stiffness: 0.0,
            drag_force: 0.0,
            gravity_power: 0.0,
        };
    }
    let keep_linear = (1.0 - body.linear_damping).clamp(0.0, 1.0);
    let keep_angular = (1.0 - body.angular_damping).clamp(0.0, 1.0);
    let keep = (carried * keep_linear + own * keep_angular) / inertia;
    let stiffness = (body.spring.max(0.0) / inertia) * length * FRAME_SECONDS;
    // Gravity turns a body by its centre, a spring by its tail: where the two are not in line
    // (a body hung below its joint from a bone that slopes away), the spring gets the pull
    // the body feels at rest, so both rest where they start when the body is balanced
    // (measured on Gene's back hair: 30° apart without this, 0.1° with it).
    let lever = if body.gravity_lever.is_finite() {
        body.gravity_lever.clamp(0.0, MAX_GRAVITY_LEVER)
    } else {
        1.0
    };
    let gravity_power = (mass * MMD_GRAVITY * r / inertia) * length * FRAME_SECONDS * lever;
    let pull = FRAME_SECONDS * (stiffness + gravity_power * body.rest_down_cosine.clamp(-1.0, 1.0));
    let projection = if length > 0.0 {
        (1.0 + pull / length).max(0.0)
    } else {
        1.0
    };
    let drag_force = 1.0 - keep.powf(FRAME_SECONDS) * projection;
    SpringSettings {
        stiffness,
        drag_force: if drag_force.is_finite() {
            drag_force.clamp(0.0, 1.0)
        } else {
            0.0
        },
        gravity_power,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(a: f32, b: f32) -> bool {
        (a - b).abs() <= 1e-5 * b.abs().max(1.0)
    }

    /// A point mass of 1 at the end of a bone 1 unit long.
    fn pendulum() -> SwingingBody {
        SwingingBody {
            mass: 1.0,
            shape: RigidShape::Sphere,
            size: [0.0; 3],
            centre_distance: 1.0,
            linear_damping: 0.0,
            angular_damping: 0.0,
            spring: 0.0,
            bone_length: 1.0,
            rest_down_cosine: 0.0,
            gravity_lever: 1.0,
        }
    }

    #[test]
    fn a_point_pendulum_worked_by_hand() {
        // I = m r² = 1; gravity: m g r / I = 98 /s²; × L (0.08 m) × Δt (1/60) = 0.130 67.
        let settings = spring_settings(&pendulum());
        assert!(
            near(settings.gravity_power, 98.0 * 0.08 / 60.0),
            "{settings:?}"
        );
        assert_eq!(settings.stiffness, 0.0, "no joint spring, no stiffness");
        assert_eq!(settings.drag_force, 0.0, "no damping, no drag");
        // Twice the bone, twice the distance: the same angular motion needs the same power
        // per metre of bone, so gravityPower doubles with L and halves with r: unchanged.
        let longer = spring_settings(&SwingingBody {
            centre_distance: 2.0,
            bone_length: 2.0,
            ..pendulum()
        });
        assert!(near(longer.gravity_power, settings.gravity_power));
    }

    #[test]
    fn the_joint_spring_becomes_stiffness() {
        // K = 100 on I = 1: 100 /s²; × 0.08 m × 1/60 s = 0.1333.
        let settings = spring_settings(&SwingingBody {
            spring: 100.0,
            ..pendulum()
        });
        assert!(
            near(settings.stiffness, 100.0 * 0.08 / 60.0),
            "{settings:?}"
        );
    }

    #[test]
    fn damping_becomes_drag_per_frame() {
        // Half of the velocity kept each second: (1/2)^(1/60) kept each frame.
        let settings = spring_settings(&SwingingBody {
            linear_damping: 0.5,
            angular_damping: 0.5,
            ..pendulum()
        });
        assert!(
            near(settings.drag_force, 1.0 - 0.5f32.powf(1.0 / 60.0)),
            "{settings:?}"
        );
        // MMD hair: 0.999 angular damping on a body with its own inertia only (centre on the
        // joint): 1 − 0.001^(1/60) = 0.1087.
        let hair = spring_settings(&SwingingBody {
            shape: RigidShape::Sphere,
            size: [0.5, 0.0, 0.0],
            centre_distance: 0.0,
            angular_damping: 0.999,
            ..pendulum()
        });
        assert!(
            near(hair.drag_force, 1.0 - 0.001f32.powf(1.0 / 60.0)),
            "{hair:?}"
        );
        assert_eq!(
            hair.gravity_power, 0.0,
            "a body centred on the joint does not hang"
        );
    }

    #[test]
    fn shapes_have_their_textbook_inertia() {
        assert!(near(
            inertia_across(RigidShape::Sphere, [2.0, 0.0, 0.0], 3.0),
            0.4 * 3.0 * 4.0
        ));
        // A cube of half extent 1 (edge 2): m·(4 + 4)/12 = m·2/3 about any axis.
        assert!(near(
            inertia_across(RigidShape::Box, [1.0, 1.0, 1.0], 3.0),
            2.0
        ));
        // A capsule of radius 1 and height 2 (whole length 4) as a cylinder: m(3 + 16)/12.
        assert!(near(
            inertia_across(RigidShape::Capsule, [1.0, 2.0, 0.0], 12.0),
            19.0
        ));
    }

    /// The angle of the reference spring algorithm, stepped frame by frame in the plane of the
    /// swing, rest direction and gravity straight down.
    fn spring_angles(settings: SpringSettings, length: f32, start: f32, frames: usize) -> Vec<f32> {
        let down = glam::Vec2::new(0.0, -1.0);
        let mut tail = glam::Vec2::new(start.sin(), -start.cos()) * length;
        let mut previous = tail;
        let mut angles = Vec::with_capacity(frames);
        for _ in 0..frames {
            let inertia = (tail - previous) * (1.0 - settings.drag_force);
            let pull = down * (FRAME_SECONDS * (settings.stiffness + settings.gravity_power));
            let next = (tail + inertia + pull).normalize() * length;
            previous = tail;
            tail = next;
            angles.push(tail.x.atan2(-tail.y));
        }
        angles
    }

    /// The angle of the rigid body on its joint, integrated finely from its equation.
    fn body_angles(body: &SwingingBody, start: f32, frames: usize) -> Vec<f32> {
        let own = inertia_across(body.shape, body.size, body.mass);
        let carried = body.mass * body.centre_distance * body.centre_distance;
        let inertia = own + carried;
        let keep =
            (carried * (1.0 - body.linear_damping) + own * (1.0 - body.angular_damping)) / inertia;
        let damping = -keep.ln();
        let steps_per_frame = 200;
        let dt = FRAME_SECONDS / steps_per_frame as f32;
        let (mut angle, mut velocity) = (start, 0.0f32);
        let mut angles = Vec::with_capacity(frames);
        for _ in 0..frames {
            for _ in 0..steps_per_frame {
                let torque = -body.spring * angle
                    - body.mass * MMD_GRAVITY * body.centre_distance * angle.sin();
                velocity += dt * (torque / inertia - damping * velocity);
                angle += dt * velocity;
            }
            angles.push(angle);
        }
        angles
    }

    #[test]
    fn the_spring_swings_like_the_rigid_body_it_replaces() {
        // A capsule hanging 1.5 units under its joint on a 3-unit bone, a joint spring, damping
        // as MMD models set it (0.9 linear, 0.99 angular): over two seconds the spring's swing
        // follows the body's within a few percent of the starting angle (the spring is stepped
        // once a frame, the body finely).
        let body = SwingingBody {
            mass: 1.0,
            shape: RigidShape::Capsule,
            size: [0.3, 2.0, 0.0],
            centre_distance: 1.5,
            linear_damping: 0.9,
            angular_damping: 0.99,
            spring: 40.0,
            bone_length: 3.0,
            rest_down_cosine: 1.0,
            gravity_lever: 1.0,
        };
        let settings = spring_settings(&body);
        let start = 0.2;
        let frames = 120;
        let spring = spring_angles(settings, body.bone_length * METRES_PER_UNIT, start, frames);
        let rigid = body_angles(&body, start, frames);
        let worst = spring
            .iter()
            .zip(&rigid)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(
            worst < 0.1 * start,
            "largest difference {worst} rad: {settings:?}"
        );
        // And a factor of two in any setting would not pass: the test can tell.
        let doubled = SpringSettings {
            stiffness: settings.stiffness * 2.0,
            gravity_power: settings.gravity_power * 2.0,
            ..settings
        };
        let wrong = spring_angles(doubled, body.bone_length * METRES_PER_UNIT, start, frames);
        let off = wrong
            .iter()
            .zip(&rigid)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f32, f32::max);
        assert!(off > 0.3 * start, "doubled settings differ by only {off}");
    }

    #[test]
    fn a_massless_or_broken_body_gives_a_still_spring_not_nan() {
        for body in [
            SwingingBody {
                mass: 0.0,
                ..pendulum()
            },
            SwingingBody {
                mass: f32::NAN,
                ..pendulum()
            },
        ] {
            let settings = spring_settings(&body);
            assert!(settings.stiffness.is_finite() && settings.drag_force.is_finite());
            assert!(settings.gravity_power.is_finite());
        }
    }
}
