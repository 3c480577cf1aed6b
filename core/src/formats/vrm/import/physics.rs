//! Spring bones as MMD physics: VRM 1.0 `VRMC_springBone` (with `VRMC_springBone_limit` and
//! `VRMC_springBone_extended_collider`) and VRM 0.x `secondaryAnimation` become rigid bodies
//! and joints, the inverse of the export (`formats::vrm::springs`, [`crate::physics::springs`] and
//! [`crate::physics::spring_params`]).
//!
//! # What becomes what
//!
//! - **A swinging segment.** A spring joint whose node has a next joint (1.0), or every node
//!   under a 0.x bone group's roots (its tail the first child, or for a leaf a point 7 cm on
//!   along its parent's direction, as UniVRM does), swings its node's bone towards the tail.
//!   It becomes one dynamic body on that bone: a capsule from the bone's head to the tail
//!   (radius the joint's `hitRadius`, at least [`MIN_BODY_RADIUS`]), mass [`BODY_MASS`], in
//!   mode 2 (physics with bone alignment): a spring never moves its node, only turns it, and
//!   mode 2 keeps the bone where its parent puts it while the body turns it, so chains cannot
//!   stretch or come apart. This is the body the export reads a joint from: PMX → VRM → PMX
//!   gives back one dynamic body per exported dynamic body.
//! - **The anchor.** The first segment of a chain hangs on its bone's parent: on the body this
//!   import made there (a segment of another chain), or else on a new kinematic (mode 0) sphere
//!   following that bone, which collides with nothing.
//! - **Joints.** Each segment body hangs on its parent body by a spring-6DOF joint at the
//!   segment's head (the child bone's head), translation locked, the twist about the bone
//!   locked (a spring cannot twist), the swing limited by the joint's `VRMC_springBone_limit`
//!   (see [`joint_frame_and_limits`]) or free (±180° about both swing axes, which the export
//!   reads back as "no limit").
//! - **Settings.** Stiffness becomes the joint's rotation spring and dragForce the body's
//!   damping by the exact inverse of [`spring_settings`](crate::physics::spring_params::spring_settings) for the body made here
//!   ([`joint_spring_for_stiffness`], [`damping_for_drag`]). MMD's own gravity pulls every
//!   body; `gravityPower` and `gravityDir` are not kept (listed in the report).
//! - **Colliders** become static (mode 0) bodies on their node's bone: spheres and capsules
//!   as they are (offsets and tails in the node's space, brought into MMD space); an extended
//!   plane becomes a large thin box under the plane; an extended "inside" shape cannot be
//!   held by MMD bodies (they keep things out, not in) and the collider's base shape is used.
//! - **Collision groups.** Spring bodies (and anchors) share group 16, which their masks leave
//!   off: springs do not hit each other, as in VRM. Colliders are sorted into classes by the
//!   set of springs that hit them (through the springs' collider groups); each class gets its
//!   own group (1..15) and each spring body's mask opens exactly the classes that hit its
//!   spring, so every spring hits exactly its colliders. With more than 15 classes the
//!   smallest are merged (their springs then also hit each other's colliders) and the report
//!   says so.
//!
//! Malformed entries (a missing node or collider group, a negative radius, a number that is
//! not one) are listed with their JSON path and left out; what they would have joined is built
//! without them.

use super::{Importer, VrmVersion, unique_name};
use crate::formats::Location;
use crate::i18n::Message;
use crate::model::facts::quat_to_euler;
use crate::model::{
    BoneIdx, Joint, JointKind, RigidBody, RigidBodyIdx, RigidMode, RigidShape, Vec3,
};
use crate::physics::spring_limit::{LimitShape, SpringLimit, axis_rotation};
use crate::physics::spring_params::{FRAME_SECONDS, METRES_PER_UNIT, MMD_GRAVITY, inertia_across};
use glam::{EulerRot, Quat, Vec3 as GVec3};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::f32::consts::{FRAC_PI_2, PI};

/// The mass of every spring body. The mapping does not depend on it (it cancels out of every
/// formula); 1 is what MMD models usually give hair.
pub const BODY_MASS: f32 = 1.0;

/// The thinnest spring body (MMD units, 4 mm): a `hitRadius` of 0 (the spec's default) is a
/// point, which a rigid body cannot be.
pub const MIN_BODY_RADIUS: f32 = 0.05;

/// The radius of an anchor body (MMD units): it only holds the joint and touches nothing.
const ANCHOR_RADIUS: f32 = 0.1;

/// The collision group (0-based) of spring bodies and anchors, shown as 16.
pub const SPRING_GROUP: u8 = 15;

/// How far a 0.x leaf's tail lies past it, metres (UniVRM's 7 cm).
const VIRTUAL_TAIL_METRES: f32 = 0.07;

/// An extended plane collider as a box: half extents along the plane and behind it, MMD units.
const PLANE_HALF_EXTENT: f32 = 40.0;
const PLANE_HALF_THICKNESS: f32 = 1.0;

/// The largest damping an `f32` holds below 1: Bullet keeps `(1 − damping)^Δt` of a velocity
/// each step, and a damping that rounds to 1 stops the body dead. A spring asking for more drag
/// than this gets this (about dragForce 0.15 to 0.25, by segment).
pub const MAX_DAMPING: f32 = 1.0 - f32::EPSILON;

// ----------------------------------------------------------------------------------------
// The inverse of the export's settings
// ----------------------------------------------------------------------------------------

/// A body this import hangs on a spring segment, as far as [`spring_settings`](crate::physics::spring_params::spring_settings) reads it: a
/// capsule of `radius` and cylinder `height` centred halfway along a bone of `bone_length`
/// (MMD units), of mass [`BODY_MASS`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SegmentBody {
    pub radius: f32,
    pub height: f32,
    pub bone_length: f32,
    /// Cosine of the angle between the segment and straight down (as the export computes it).
    pub rest_down_cosine: f32,
}

impl SegmentBody {
    /// The body of a segment of `bone_length` whose spring touches with `radius` (MMD units):
    /// the capsule reaches from the head to the tail (its round ends included), and is a ball
    /// when the segment is shorter than its thickness.
    #[must_use]
    pub fn new(radius: f32, bone_length: f32, rest_down_cosine: f32) -> Self {
        let radius = radius.max(MIN_BODY_RADIUS);
        Self {
            radius,
            height: (bone_length - 2.0 * radius).max(0.0),
            bone_length,
            rest_down_cosine,
        }
    }

    fn size(&self) -> [f32; 3] {
        [self.radius, self.height, 0.0]
    }

    /// `I = I_c + m·r²` about the joint, `r` half the bone (what the export computes).
    fn inertia(&self) -> f64 {
        let own = inertia_across(RigidShape::Capsule, self.size(), BODY_MASS);
        let r = self.bone_length / 2.0;
        f64::from(own) + f64::from(BODY_MASS * r * r)
    }

    /// The bone's length in metres, `L` of the formulas.
    fn length_metres(&self) -> f64 {
        f64::from(self.bone_length.abs() * METRES_PER_UNIT)
    }

    /// What the export's [`spring_settings`](crate::physics::spring_params::spring_settings) reads: this body with a joint spring and a
    /// damping (linear and angular alike).
    #[cfg(test)]
    #[must_use]
    pub fn swinging(
        &self,
        spring: f32,
        damping: f32,
    ) -> crate::physics::spring_params::SwingingBody {
        crate::physics::spring_params::SwingingBody {
            mass: BODY_MASS,
            shape: RigidShape::Capsule,
            size: self.size(),
            centre_distance: self.bone_length / 2.0,
            linear_damping: damping,
            angular_damping: damping,
            spring,
            bone_length: self.bone_length,
            rest_down_cosine: self.rest_down_cosine,
            gravity_lever: 1.0,
        }
    }

    /// The `gravityPower` the export derives from this body: `(m·g·r/I)·L·Δt`.
    #[must_use]
    pub fn derived_gravity_power(&self) -> f32 {
        let inertia = self.inertia();
        if inertia <= 0.0 {
            return 0.0;
        }
        let r = f64::from(self.bone_length / 2.0);
        (f64::from(BODY_MASS * MMD_GRAVITY) * r / inertia
            * self.length_metres()
            * f64::from(FRAME_SECONDS)) as f32
    }
}

/// The joint's rotation spring `K` (about both swing axes) for a spring `stiffness`: the
/// export's `stiffness = (K/I)·L·Δt` solved for K,
///
/// `K = stiffness · I / (L·Δt)`
///
/// (`I` the body's moment of inertia about the joint, `L` the bone in metres, `Δt` = 1/60 s).
/// A bone of no length (or a negative stiffness) gives no spring.
#[must_use]
pub fn joint_spring_for_stiffness(stiffness: f32, body: &SegmentBody) -> f32 {
    let length = body.length_metres();
    if !(stiffness.is_finite() && stiffness > 0.0 && length > 0.0) {
        return 0.0;
    }
    let spring = f64::from(stiffness) * body.inertia() / (length * f64::from(FRAME_SECONDS));
    if spring.is_finite() {
        spring as f32
    } else {
        0.0
    }
}

/// The body's damping (linear and angular alike) for a `dragForce`: the export's
/// `dragForce = 1 − keep^Δt·(1 + δ/L)` with `keep = 1 − damping` (equal dampings make the
/// mass-weighted mean of the two "kept" parts just `1 − damping`) solved for the damping,
///
/// `damping = 1 − ((1 − dragForce) / (1 + δ/L))^(1/Δt)`,
/// `δ = Δt·(stiffness + gravityPower_body·cos ψ)`,
///
/// where `gravityPower_body` is what the export derives from this body
/// ([`SegmentBody::derived_gravity_power`]) and ψ the segment's angle from straight down.
/// Where the spring algorithm's own damping (the `1 + δ/L`) is already more than asked, the
/// damping is 0 (the export clamps there too); where the damping would round to 1 in `f32`,
/// it is [`MAX_DAMPING`] (see there).
#[must_use]
pub fn damping_for_drag(drag: f32, stiffness: f32, body: &SegmentBody) -> f32 {
    if !drag.is_finite() {
        return 0.0;
    }
    let drag = f64::from(drag.clamp(0.0, 1.0));
    let length = body.length_metres();
    let dt = f64::from(FRAME_SECONDS);
    let projection = if length > 0.0 {
        let pull = dt
            * f64::from(
                stiffness.max(0.0)
                    + body.derived_gravity_power() * body.rest_down_cosine.clamp(-1.0, 1.0),
            );
        (1.0 + pull / length).max(0.0)
    } else {
        1.0
    };
    if projection <= 0.0 {
        return 0.0;
    }
    let kept_per_frame = (1.0 - drag) / projection;
    let keep = kept_per_frame.powf(1.0 / dt);
    let damping = 1.0 - keep;
    if !damping.is_finite() || damping <= 0.0 {
        0.0
    } else {
        (damping as f32).min(MAX_DAMPING)
    }
}

/// An MMD joint's frame and rotation limits (MMD space).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointLimits {
    /// The joint's frame (its `rotation` as a quaternion), Y along the segment.
    pub frame: Quat,
    pub lower: GVec3,
    pub upper: GVec3,
}

/// The frame and rotation limits of the MMD joint hanging a segment, the inverse of the
/// export's limit ([`crate::physics::mmd_limit::mmd_joint_limit`]: `mmd_joint_axes_to_gltf`,
/// `swing_ranges`, `choose_limit`).
///
/// - `direction_mmd`: the segment's direction in MMD space; `bone_axis_gltf` the same in glTF
///   (1.0) space; `rest_twist` the file's limit frame against the export's
///   (`axis_rotation(d)⁻¹ · W · axis_rotation(W⁻¹·d)`, `W` the node's rest rotation: the
///   identity for nodes without rotation, as the export writes them).
/// - Without a limit: the frame turns +Y onto the segment and both swing axes (X, Z) are free
///   (−π..π, which the export reads as no limit); the twist (Y) is locked.
/// - With one, its rotation `q` (after `rest_twist`) is split as `Rx(a)·Rz(b)·Ry(c)` (what
///   `choose_limit` writes: the centring `Rx(pitch centre)·Rz(−yaw centre)`, and a quarter turn
///   about Y for a hinge swinging sideways). The half ranges are (pitch, yaw) = (angle, angle)
///   for a cone, (angle, 0) for a hinge, (pitch, yaw) for a spherical limit, swapped when `c`
///   is a quarter turn. In the unrotated frame `U = axis_rotation(d)` (glTF) the ranges are
///   then pitch `a ± pitch half` about X and `b ± yaw half` about Z. A `c` that is not a
///   multiple of a quarter turn cannot be a per-axis range of `U`: then the frame is `U·q`
///   with symmetric ranges (an approximation the export maps back only roughly).
/// - glTF → MMD: the mirror `M` (z flipped) turns the frame `J` into `M·J·M` (the quaternion
///   with x and y negated), a turn by θ about X into −θ about X, and keeps a turn about Z
///   (`M·J·M` has its Z axis at `−M·J·z`, which flips the sign twice). So MMD's X range is
///   `(−upper, −lower)` of glTF's and MMD's Z range is glTF's.
#[must_use]
pub fn joint_frame_and_limits(
    limit: Option<&SpringLimit>,
    direction_mmd: GVec3,
    bone_axis_gltf: GVec3,
    rest_twist: Quat,
) -> JointLimits {
    let Some(limit) = limit else {
        return JointLimits {
            frame: axis_rotation(direction_mmd),
            lower: GVec3::new(-PI, 0.0, -PI),
            upper: GVec3::new(PI, 0.0, PI),
        };
    };
    let unrotated = axis_rotation(bone_axis_gltf);
    let rotation = (rest_twist * limit.rotation).normalize();
    let (pitch_centre, z_centre, twist) = rotation.to_euler(EulerRot::XZY);
    let (mut pitch_half, mut yaw_half) = match limit.shape {
        LimitShape::Cone { angle } => (angle, angle),
        LimitShape::Hinge { angle } => (angle, 0.0),
        LimitShape::Spherical { pitch, yaw } => (pitch, yaw),
    };
    let clean = |a: f32| if a.is_finite() { a.clamp(0.0, PI) } else { 0.0 };
    pitch_half = clean(pitch_half);
    yaw_half = clean(yaw_half);
    let is_cone = matches!(limit.shape, LimitShape::Cone { .. });
    // How far the twist is from a multiple of a quarter turn.
    let quarter_turns = twist / FRAC_PI_2;
    let off_grid = (quarter_turns - quarter_turns.round()).abs() * FRAC_PI_2;
    let (frame_gltf, about_x, about_z) = if is_cone || off_grid < 1e-3 {
        if !is_cone && (quarter_turns.round() as i32).rem_euclid(2) == 1 {
            std::mem::swap(&mut pitch_half, &mut yaw_half);
        }
        (
            unrotated,
            (pitch_centre - pitch_half, pitch_centre + pitch_half),
            (z_centre - yaw_half, z_centre + yaw_half),
        )
    } else {
        (
            unrotated * rotation,
            (-pitch_half, pitch_half),
            (-yaw_half, yaw_half),
        )
    };
    let frame = Quat::from_xyzw(-frame_gltf.x, -frame_gltf.y, frame_gltf.z, frame_gltf.w);
    JointLimits {
        frame: frame.normalize(),
        lower: GVec3::new(-about_x.1, 0.0, about_z.0),
        upper: GVec3::new(-about_x.0, 0.0, about_z.1),
    }
}

// ----------------------------------------------------------------------------------------
// Reading the JSON
// ----------------------------------------------------------------------------------------

/// A collider's shape in its node's space (glTF, metres).
#[derive(Debug, Clone, Copy, PartialEq)]
enum ColliderForm {
    Sphere {
        offset: GVec3,
        radius: f32,
    },
    Capsule {
        offset: GVec3,
        tail: GVec3,
        radius: f32,
    },
    Plane {
        offset: GVec3,
        normal: GVec3,
    },
}

#[derive(Debug, Clone, Copy)]
struct ParsedCollider {
    node: usize,
    form: ColliderForm,
}

#[derive(Debug, Clone, Copy)]
struct Settings {
    stiffness: f32,
    drag: f32,
    /// Metres.
    hit_radius: f32,
}

#[derive(Debug, Clone, Copy)]
enum Tail {
    Node(usize),
    /// A point in glTF world space (a 0.x leaf's virtual tail).
    Point(GVec3),
}

#[derive(Debug, Clone)]
struct Segment {
    node: usize,
    tail: Tail,
    /// The segment (of the same spring) this one hangs on.
    parent: Option<usize>,
    settings: Settings,
    limit: Option<SpringLimit>,
}

#[derive(Debug, Clone, Default)]
struct ParsedSpring {
    /// `None` for segments left out (their children hang on the anchor instead).
    segments: Vec<Option<Segment>>,
    /// Indices into `Parsed::groups`.
    groups: Vec<usize>,
}

#[derive(Debug, Default)]
struct Parsed {
    colliders: Vec<Option<ParsedCollider>>,
    /// Each group's colliders (indices into `colliders`).
    groups: Vec<Vec<usize>>,
    springs: Vec<ParsedSpring>,
    /// Springs whose `gravityPower` is not 0 (MMD's gravity replaces it).
    with_gravity: usize,
}

/// Problems found while reading: (message, lost).
type Found = Vec<(Message, bool)>;

/// `{at}: {why}` and what became of the element, as message `key` says.
fn at_then(key: &'static str, at: &str, why: Message) -> Message {
    Message::new(key).arg("at", at).arg("why", why)
}

/// "`name` value is negative".
fn negative(name: &str, value: f32) -> Message {
    Message::new("load.vrm.spring.negative")
        .arg("name", name)
        .arg("value", value)
}

/// A number field: `Ok(None)` when absent, `Err` when present but not a finite number.
fn number(object: &Value, key: &str) -> Result<Option<f32>, Message> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_f64()
            .map(|v| v as f32)
            .filter(|v| v.is_finite())
            .map(Some)
            .ok_or_else(|| {
                Message::new("load.vrm.spring.not_finite")
                    .arg("key", key)
                    .arg("value", value.to_string())
            }),
    }
}

/// A `[x, y, z]` field (1.0), `Err` when present but not three finite numbers.
fn array_vector(object: &Value, key: &str) -> Result<Option<GVec3>, Message> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        value => super::gltf::numbers::<3>(value)
            .map(|v| Some(GVec3::from_array(v)))
            .ok_or_else(|| Message::new("load.vrm.spring.not_three_numbers").arg("key", key)),
    }
}

/// A `{x, y, z}` field (0.x): missing components are 0.
fn object_vector(object: &Value, key: &str) -> Result<Option<GVec3>, Message> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(value @ Value::Object(_)) => {
            let x = number(value, "x")?.unwrap_or(0.0);
            let y = number(value, "y")?.unwrap_or(0.0);
            let z = number(value, "z")?.unwrap_or(0.0);
            Ok(Some(GVec3::new(x, y, z)))
        }
        Some(other) => Err(Message::new("load.vrm.spring.not_xyz")
            .arg("key", key)
            .arg("shape", "{x, y, z}")
            .arg("value", other.to_string())),
    }
}

/// A node index field that must name one of `node_count` nodes.
fn node_field(object: &Value, key: &str, node_count: usize) -> Result<usize, Message> {
    match object.get(key) {
        Some(value) => value
            .as_u64()
            .and_then(|v| usize::try_from(v).ok())
            .filter(|&v| v < node_count)
            .ok_or_else(|| {
                Message::new("load.vrm.spring.field_not_node")
                    .arg("key", key)
                    .arg("value", value.to_string())
                    .arg("count", node_count)
            }),
        None => Err(Message::new("load.vrm.spring.no_field").arg("key", key)),
    }
}

/// A list field (absent: empty).
fn list<'v>(object: &'v Value, key: &str) -> Result<&'v [Value], Message> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(other) => Err(Message::new("load.vrm.spring.not_array")
            .arg("key", key)
            .arg("value", other.to_string())),
    }
}

/// A list field of the element at `at`; when it is not a list, a note in `found` and no
/// items.
fn list_or_note<'v>(object: &'v Value, key: &str, at: &str, found: &mut Found) -> &'v [Value] {
    list(object, key).unwrap_or_else(|why| {
        found.push((at_then("load.vrm.spring.at", at, why), true));
        &[]
    })
}

/// The settings of a 1.0 joint or a 0.x bone group; `stiffness_key` is `stiffiness` in 0.x.
fn settings(object: &Value, stiffness_key: &str, defaults: Settings) -> Result<Settings, Message> {
    let stiffness = number(object, stiffness_key)?.unwrap_or(defaults.stiffness);
    let drag = number(object, "dragForce")?.unwrap_or(defaults.drag);
    let hit_radius = number(object, "hitRadius")?.unwrap_or(defaults.hit_radius);
    number(object, "gravityPower")?;
    if stiffness < 0.0 {
        return Err(negative("stiffness", stiffness));
    }
    if !(0.0..=1.0).contains(&drag) {
        return Err(Message::new("load.vrm.spring.drag_range").arg("value", drag));
    }
    if hit_radius < 0.0 {
        return Err(negative("hitRadius", hit_radius));
    }
    Ok(Settings {
        stiffness,
        drag,
        hit_radius,
    })
}

fn has_gravity(object: &Value) -> bool {
    number(object, "gravityPower")
        .ok()
        .flatten()
        .is_some_and(|g| g != 0.0)
}

/// A quaternion field (`[x, y, z, w]`), identity when absent.
fn rotation_field(object: &Value) -> Result<Quat, Message> {
    match object.get("rotation") {
        None | Some(Value::Null) => Ok(Quat::IDENTITY),
        value => super::gltf::numbers::<4>(value)
            .map(Quat::from_array)
            .filter(|q| q.length_squared() > 1e-12)
            .map(Quat::normalize)
            .ok_or_else(|| Message::new("load.vrm.spring.not_quaternion")),
    }
}

/// A joint's `VRMC_springBone_limit`, `Ok(None)` without one.
fn read_limit(joint: &Value) -> Result<Option<SpringLimit>, Message> {
    let Some(extension) = joint
        .get("extensions")
        .and_then(|e| e.get("VRMC_springBone_limit"))
    else {
        return Ok(None);
    };
    let Some(limit) = extension.get("limit") else {
        return Err(Message::new("load.vrm.spring.no_limit"));
    };
    let angle = |object: &Value, key: &str| -> Result<f32, Message> {
        match number(object, key)? {
            Some(a) if a >= 0.0 => Ok(a),
            Some(a) => Err(negative(&format!("limit `{key}`"), a)),
            None => Err(Message::new("load.vrm.spring.limit_no_field").arg("key", key)),
        }
    };
    let (shape, object) = if let Some(cone) = limit.get("cone") {
        (
            LimitShape::Cone {
                angle: angle(cone, "angle")?,
            },
            cone,
        )
    } else if let Some(hinge) = limit.get("hinge") {
        (
            LimitShape::Hinge {
                angle: angle(hinge, "angle")?,
            },
            hinge,
        )
    } else if let Some(spherical) = limit.get("spherical") {
        (
            LimitShape::Spherical {
                pitch: angle(spherical, "pitch")?,
                yaw: angle(spherical, "yaw")?,
            },
            spherical,
        )
    } else {
        return Err(Message::new("load.vrm.spring.limit_shape"));
    };
    Ok(Some(SpringLimit {
        shape,
        rotation: rotation_field(object)?,
    }))
}

/// A 1.0 collider's shape: the extended shape where MMD can hold it, else the base one.
fn read_collider_form(
    collider: &Value,
    found: &mut Found,
    at: &str,
) -> Result<ColliderForm, Message> {
    let base = |shape: &Value| -> Result<Option<ColliderForm>, Message> {
        if let Some(sphere) = shape.get("sphere") {
            let radius = number(sphere, "radius")?.unwrap_or(0.0);
            if radius < 0.0 {
                return Err(negative("sphere radius", radius));
            }
            Ok(Some(ColliderForm::Sphere {
                offset: array_vector(sphere, "offset")?.unwrap_or(GVec3::ZERO),
                radius,
            }))
        } else if let Some(capsule) = shape.get("capsule") {
            let radius = number(capsule, "radius")?.unwrap_or(0.0);
            if radius < 0.0 {
                return Err(negative("capsule radius", radius));
            }
            Ok(Some(ColliderForm::Capsule {
                offset: array_vector(capsule, "offset")?.unwrap_or(GVec3::ZERO),
                tail: array_vector(capsule, "tail")?.unwrap_or(GVec3::ZERO),
                radius,
            }))
        } else {
            Ok(None)
        }
    };
    let fallback = collider.get("shape").map(base).transpose()?.flatten();
    let extended = collider
        .get("extensions")
        .and_then(|e| e.get("VRMC_springBone_extended_collider"))
        .and_then(|e| e.get("shape"));
    if let Some(extended) = extended {
        if let Some(plane) = extended.get("plane") {
            let normal = array_vector(plane, "normal")?
                .unwrap_or(GVec3::Z)
                .try_normalize()
                .ok_or_else(|| Message::new("load.vrm.spring.plane_normal"))?;
            found.push((
                Message::new("load.vrm.spring.plane_collider").arg("at", at),
                false,
            ));
            return Ok(ColliderForm::Plane {
                offset: array_vector(plane, "offset")?.unwrap_or(GVec3::ZERO),
                normal,
            });
        }
        let inside = ["sphere", "capsule"].iter().any(|kind| {
            extended
                .get(*kind)
                .and_then(|s| s.get("inside"))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        });
        if inside && fallback.is_none() {
            return Err(Message::new("load.vrm.spring.inside_without_base"));
        }
        if inside {
            found.push((
                Message::new("load.vrm.spring.inside_collider").arg("at", at),
                false,
            ));
        } else if let Some(form) = base(extended)? {
            return Ok(form);
        }
    }
    fallback.ok_or_else(|| Message::new("load.vrm.spring.no_shape"))
}

impl Importer<'_> {
    fn read_springs_v1(&self, found: &mut Found) -> Parsed {
        let mut parsed = Parsed::default();
        let Some(extension) = self
            .gltf
            .json
            .get("extensions")
            .and_then(|e| e.get("VRMC_springBone"))
        else {
            return parsed;
        };
        let node_count = self.nodes.len();
        let colliders = list(extension, "colliders").unwrap_or_else(|why| {
            found.push((why, true));
            &[]
        });
        for (index, collider) in colliders.iter().enumerate() {
            let at = format!("colliders[{index}]");
            let read = node_field(collider, "node", node_count).and_then(|node| {
                read_collider_form(collider, found, &at).map(|form| ParsedCollider { node, form })
            });
            parsed.colliders.push(match read {
                Ok(collider) => Some(collider),
                Err(why) => {
                    found.push((at_then("load.vrm.spring.left_out", &at, why), true));
                    None
                }
            });
        }
        let groups = list(extension, "colliderGroups").unwrap_or_else(|why| {
            found.push((why, true));
            &[]
        });
        for (index, group) in groups.iter().enumerate() {
            let members = list_or_note(
                group,
                "colliders",
                &format!("colliderGroups[{index}]"),
                found,
            );
            let mut kept = Vec::new();
            for member in members {
                match member.as_u64().and_then(|m| usize::try_from(m).ok()) {
                    Some(m) if m < parsed.colliders.len() => {
                        // A collider already listed as malformed is simply not there.
                        if parsed.colliders[m].is_some() {
                            kept.push(m);
                        }
                    }
                    _ => found.push((
                        Message::new("load.vrm.spring.not_collider")
                            .arg("at", format!("colliderGroups[{index}].colliders"))
                            .arg("value", member.to_string())
                            .arg("count", parsed.colliders.len()),
                        true,
                    )),
                }
            }
            parsed.groups.push(kept);
        }
        let springs = list(extension, "springs").unwrap_or_else(|why| {
            found.push((why, true));
            &[]
        });
        let defaults = Settings {
            stiffness: 1.0,
            drag: 0.5,
            hit_radius: 0.0,
        };
        let mut swinging: HashSet<usize> = HashSet::new();
        for (index, spring) in springs.iter().enumerate() {
            let mut out = ParsedSpring {
                groups: self.spring_groups(spring, &parsed, found, &format!("springs[{index}]")),
                ..ParsedSpring::default()
            };
            let joints = list_or_note(spring, "joints", &format!("springs[{index}]"), found);
            // The chain as far as its joints name nodes.
            let mut nodes = Vec::with_capacity(joints.len());
            for (j, joint) in joints.iter().enumerate() {
                match node_field(joint, "node", node_count) {
                    Ok(node) => nodes.push(node),
                    Err(why) => {
                        found.push((
                            at_then(
                                "load.vrm.spring.chain_ends",
                                &format!("springs[{index}].joints[{j}]"),
                                why,
                            ),
                            true,
                        ));
                        break;
                    }
                }
            }
            for (j, pair) in nodes.windows(2).enumerate() {
                let (node, tail) = (pair[0], pair[1]);
                let joint = &joints[j];
                let at = format!("springs[{index}].joints[{j}]");
                if has_gravity(joint) {
                    parsed.with_gravity += 1;
                }
                let segment = match settings(joint, "stiffness", defaults) {
                    Err(why) => {
                        found.push((at_then("load.vrm.spring.joint_still", &at, why), true));
                        None
                    }
                    Ok(_) if node == tail => {
                        found.push((
                            Message::new("load.vrm.spring.same_node")
                                .arg("at", &at)
                                .arg("node", node),
                            true,
                        ));
                        None
                    }
                    Ok(_) if !swinging.insert(node) => {
                        found.push((
                            Message::new("load.vrm.spring.already_swings")
                                .arg("at", &at)
                                .arg("node", node),
                            true,
                        ));
                        None
                    }
                    Ok(settings) => {
                        let limit = read_limit(joint).unwrap_or_else(|why| {
                            found.push((at_then("load.vrm.spring.unlimited", &at, why), true));
                            None
                        });
                        let parent = j
                            .checked_sub(1)
                            .filter(|&p| out.segments.get(p).is_some_and(Option::is_some));
                        Some(Segment {
                            node,
                            tail: Tail::Node(tail),
                            parent,
                            settings,
                            limit,
                        })
                    }
                };
                out.segments.push(segment);
            }
            parsed.springs.push(out);
        }
        parsed
    }

    /// A spring's (1.0) or bone group's (0.x) collider groups that exist.
    fn spring_groups(
        &self,
        spring: &Value,
        parsed: &Parsed,
        found: &mut Found,
        at: &str,
    ) -> Vec<usize> {
        let listed = list_or_note(spring, "colliderGroups", at, found);
        let mut groups = Vec::new();
        for group in listed {
            match group.as_u64().and_then(|g| usize::try_from(g).ok()) {
                Some(g) if g < parsed.groups.len() => {
                    if !groups.contains(&g) {
                        groups.push(g);
                    }
                }
                _ => found.push((
                    Message::new("load.vrm.spring.not_collider_group")
                        .arg("at", format!("{at}.colliderGroups"))
                        .arg("value", group.to_string())
                        .arg("count", parsed.groups.len()),
                    true,
                )),
            }
        }
        groups
    }

    fn read_springs_v0(&self, found: &mut Found) -> Parsed {
        let mut parsed = Parsed::default();
        let Some(secondary) = self
            .gltf
            .json
            .get("extensions")
            .and_then(|e| e.get("VRM"))
            .and_then(|v| v.get("secondaryAnimation"))
        else {
            return parsed;
        };
        let node_count = self.nodes.len();
        let groups = list(secondary, "colliderGroups").unwrap_or_else(|why| {
            found.push((why, true));
            &[]
        });
        for (index, group) in groups.iter().enumerate() {
            let mut kept = Vec::new();
            match node_field(group, "node", node_count) {
                Err(why) => found.push((
                    at_then(
                        "load.vrm.spring.colliders_left_out",
                        &format!("colliderGroups[{index}]"),
                        why,
                    ),
                    true,
                )),
                Ok(node) => {
                    let colliders = list_or_note(
                        group,
                        "colliders",
                        &format!("colliderGroups[{index}]"),
                        found,
                    );
                    for (c, collider) in colliders.iter().enumerate() {
                        let read = object_vector(collider, "offset").and_then(|offset| {
                            let radius = number(collider, "radius")?.unwrap_or(0.0);
                            if radius < 0.0 {
                                return Err(negative("radius", radius));
                            }
                            // UniVRM 0.x writes the offset in Unity's axes: z is the
                            // reverse of the glTF node's (as three-vrm reads it).
                            let offset = offset.unwrap_or(GVec3::ZERO) * GVec3::new(1.0, 1.0, -1.0);
                            Ok(ColliderForm::Sphere { offset, radius })
                        });
                        match read {
                            Ok(form) => {
                                kept.push(parsed.colliders.len());
                                parsed.colliders.push(Some(ParsedCollider { node, form }));
                            }
                            Err(why) => found.push((
                                at_then(
                                    "load.vrm.spring.left_out",
                                    &format!("colliderGroups[{index}].colliders[{c}]"),
                                    why,
                                ),
                                true,
                            )),
                        }
                    }
                }
            }
            parsed.groups.push(kept);
        }
        let bone_groups = list(secondary, "boneGroups").unwrap_or_else(|why| {
            found.push((why, true));
            &[]
        });
        // UniVRM's defaults.
        let defaults = Settings {
            stiffness: 1.0,
            drag: 0.4,
            hit_radius: 0.02,
        };
        let mut swinging: HashSet<usize> = HashSet::new();
        for (index, group) in bone_groups.iter().enumerate() {
            let at = format!("boneGroups[{index}]");
            let settings = match settings(group, "stiffiness", defaults) {
                Ok(settings) => settings,
                Err(why) => {
                    found.push((at_then("load.vrm.spring.group_still", &at, why), true));
                    continue;
                }
            };
            if has_gravity(group) {
                parsed.with_gravity += 1;
            }
            let mut out = ParsedSpring {
                groups: self.spring_groups(group, &parsed, found, &at),
                ..ParsedSpring::default()
            };
            let roots = list_or_note(group, "bones", &at, found);
            for root in roots {
                let root = match root.as_u64().and_then(|r| usize::try_from(r).ok()) {
                    Some(r) if r < node_count => r,
                    _ => {
                        found.push((
                            Message::new("load.vrm.spring.not_node")
                                .arg("at", format!("{at}.bones"))
                                .arg("value", root.to_string())
                                .arg("count", node_count),
                            true,
                        ));
                        continue;
                    }
                };
                // Depth first under the root; a node listed twice (a root under another
                // root, common in 0.x files) swings once.
                let mut stack = vec![(root, None)];
                while let Some((node, parent)) = stack.pop() {
                    if !swinging.insert(node) {
                        continue;
                    }
                    let children: Vec<usize> = self.nodes[node]
                        .children
                        .iter()
                        .copied()
                        .filter(|&c| self.parents[c] == Some(node))
                        .collect();
                    let tail = match children.first() {
                        Some(&child) => Tail::Node(child),
                        None => Tail::Point(self.virtual_tail(node)),
                    };
                    let here = out.segments.len();
                    out.segments.push(Some(Segment {
                        node,
                        tail,
                        parent,
                        settings,
                        limit: None,
                    }));
                    for &child in children.iter().rev() {
                        stack.push((child, Some(here)));
                    }
                }
            }
            parsed.springs.push(out);
        }
        parsed
    }

    /// A 0.x leaf's tail: 7 cm on along the direction from its parent (down without one).
    fn virtual_tail(&self, node: usize) -> GVec3 {
        let here = self.world[node].w_axis.truncate();
        let from = self.parents[node].map(|p| self.world[p].w_axis.truncate());
        let direction = from
            .and_then(|p| (here - p).try_normalize())
            .unwrap_or(GVec3::NEG_Y);
        here + direction * VIRTUAL_TAIL_METRES
    }
}

// ----------------------------------------------------------------------------------------
// Building the bodies and joints
// ----------------------------------------------------------------------------------------

/// Unique body and joint names (Japanese and English kept apart).
#[derive(Default)]
struct Names {
    bodies_ja: HashSet<String>,
    bodies_en: HashSet<String>,
    joints_ja: HashSet<String>,
    joints_en: HashSet<String>,
}

/// The rotation (MMD Euler angles) that turns a body's local +Y onto `direction`.
fn along(direction: GVec3) -> Vec3 {
    quat_to_euler(Quat::from_rotation_arc(GVec3::Y, direction))
}

/// Builds the rigid bodies and joints of the file's spring bones (see the module doc).
pub(super) fn build(import: &mut Importer<'_>) {
    let mut found = Found::new();
    let parsed = match import.version {
        VrmVersion::V0 => import.read_springs_v0(&mut found),
        VrmVersion::V1 | VrmVersion::Gltf => import.read_springs_v1(&mut found),
    };
    let field: &'static str = match import.version {
        VrmVersion::V0 => "VRM.secondaryAnimation",
        _ => "VRMC_springBone",
    };
    let location: Location = import.gltf.at("extensions", None, field);
    let mut names = Names::default();
    let bone_count = import.model.bones.len();
    let node_bone = import.node_bone.clone();
    let bone_of = |node: usize| node_bone.get(node).copied().filter(|&b| b < bone_count);

    // Colliders.
    let mut collider_body: Vec<Option<usize>> = vec![None; parsed.colliders.len()];
    for (index, collider) in parsed.colliders.iter().enumerate() {
        let Some(collider) = collider else { continue };
        let Some(bone) = bone_of(collider.node) else {
            continue;
        };
        let Some(body) = collider_rigid_body(import, collider, bone, &mut names) else {
            found.push((
                Message::new("load.vrm.spring.collider_too_big")
                    .arg("at", format!("colliders[{index}]")),
                true,
            ));
            continue;
        };
        collider_body[index] = Some(import.model.rigid_bodies.len());
        import.model.rigid_bodies.push(body);
    }

    // Springs.
    let mut made_on_bone: HashMap<usize, usize> = HashMap::new();
    let mut spring_bodies: Vec<Vec<usize>> = Vec::with_capacity(parsed.springs.len());
    let mut capped_drag = 0usize;
    for spring in &parsed.springs {
        let mut bodies = Vec::new();
        let mut segment_body: Vec<Option<usize>> = vec![None; spring.segments.len()];
        for (k, segment) in spring.segments.iter().enumerate() {
            let Some(segment) = segment else { continue };
            let Some(bone) = bone_of(segment.node) else {
                continue;
            };
            let head: GVec3 = import.model.bones[bone].position.into();
            let tail: GVec3 = match segment.tail {
                Tail::Node(node) => match bone_of(node) {
                    Some(b) => import.model.bones[b].position.into(),
                    None => continue,
                },
                Tail::Point(point) => import.point(point).into(),
            };
            if !(head.is_finite() && tail.is_finite()) {
                continue;
            }
            let parent_body = match segment.parent.and_then(|p| segment_body[p]) {
                Some(body) => body,
                None => {
                    let Some(parent_bone) = import.model.bones[bone]
                        .parent
                        .map(BoneIdx::get)
                        .filter(|&p| p < bone_count)
                    else {
                        found.push((
                            Message::new("load.vrm.spring.no_parent_bone")
                                .arg("bone", import.model.bones[bone].name_ja.to_string()),
                            false,
                        ));
                        continue;
                    };
                    match made_on_bone.get(&parent_bone) {
                        Some(&body) => body,
                        None => {
                            let body = import.model.rigid_bodies.len();
                            let anchor = anchor_body(import, parent_bone, &mut names);
                            import.model.rigid_bodies.push(anchor);
                            made_on_bone.insert(parent_bone, body);
                            body
                        }
                    }
                }
            };
            let offset = tail - head;
            let length = offset.length();
            let direction = offset.try_normalize().unwrap_or(GVec3::NEG_Y);
            let shape = SegmentBody::new(
                segment.settings.hit_radius / super::super::METRES_PER_MMD_UNIT,
                length,
                -direction.y,
            );
            let spring_constant = joint_spring_for_stiffness(segment.settings.stiffness, &shape);
            let damping =
                damping_for_drag(segment.settings.drag, segment.settings.stiffness, &shape);
            if damping >= MAX_DAMPING {
                capped_drag += 1;
            }
            let body_index = import.model.rigid_bodies.len();
            let bone_names = &import.model.bones[bone];
            let (name_ja, name_en) = (
                bone_names.name_ja.as_str().into_owned(),
                bone_names.name_en.as_str().into_owned(),
            );
            import.model.rigid_bodies.push(RigidBody {
                name_ja: unique_name(&mut names.bodies_ja, &name_ja).into(),
                name_en: unique_name(&mut names.bodies_en, &name_en).into(),
                bone: Some(BoneIdx::new(bone)),
                group: SPRING_GROUP,
                non_collision_mask: 0,
                shape: RigidShape::Capsule,
                size: Vec3::new(shape.radius, shape.height, 0.0),
                position: (head + offset / 2.0).into(),
                rotation: along(direction),
                mass: BODY_MASS,
                linear_damping: damping,
                angular_damping: damping,
                restitution: 0.0,
                friction: 0.5,
                mode: RigidMode::PhysicsWithBone,
            });
            made_on_bone.entry(bone).or_insert(body_index);
            segment_body[k] = Some(body_index);
            bodies.push(body_index);

            // The limit frame in glTF (1.0) space: z mirrored from MMD's.
            let axis_gltf = direction * GVec3::new(1.0, 1.0, -1.0);
            let rest_twist = rest_twist(import, segment.node, axis_gltf);
            let limits =
                joint_frame_and_limits(segment.limit.as_ref(), direction, axis_gltf, rest_twist);
            import.model.joints.push(Joint {
                name_ja: unique_name(&mut names.joints_ja, &name_ja).into(),
                name_en: unique_name(&mut names.joints_en, &name_en).into(),
                kind: JointKind::Spring6Dof,
                body_a: Some(RigidBodyIdx::new(parent_body)),
                body_b: Some(RigidBodyIdx::new(body_index)),
                position: head.into(),
                rotation: quat_to_euler(limits.frame),
                move_lower: Vec3::ZERO,
                move_upper: Vec3::ZERO,
                rotate_lower: limits.lower.into(),
                rotate_upper: limits.upper.into(),
                spring_move: Vec3::ZERO,
                spring_rotate: Vec3::new(spring_constant, 0.0, spring_constant),
            });
        }
        spring_bodies.push(bodies);
    }

    // Collision groups: colliders by the set of springs that hit them.
    let mut hit_by: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); parsed.colliders.len()];
    for (s, spring) in parsed.springs.iter().enumerate() {
        for &group in &spring.groups {
            for &collider in parsed.groups.get(group).map_or(&[][..], Vec::as_slice) {
                if let Some(set) = hit_by.get_mut(collider) {
                    set.insert(s);
                }
            }
        }
    }
    let mut classes: BTreeMap<BTreeSet<usize>, Vec<usize>> = BTreeMap::new();
    for (collider, springs) in hit_by.into_iter().enumerate() {
        if collider_body[collider].is_some() && !springs.is_empty() {
            classes.entry(springs).or_default().push(collider);
        }
    }
    let mut classes: Vec<(BTreeSet<usize>, Vec<usize>)> = classes.into_iter().collect();
    let available = usize::from(SPRING_GROUP);
    if classes.len() > available {
        // The largest classes keep a group each; the rest share the last.
        classes.sort_by_key(|class| std::cmp::Reverse(class.1.len()));
        let merged = classes.split_off(available - 1);
        let count = merged.len();
        let mut shared = (BTreeSet::new(), Vec::new());
        for (springs, colliders) in merged {
            shared.0.extend(springs);
            shared.1.extend(colliders);
        }
        classes.push(shared);
        found.push((
            Message::new("load.vrm.spring.groups_shared")
                .arg("needed", available - 1 + count)
                .arg("count", count),
            false,
        ));
    }
    let mut spring_mask = vec![0u16; parsed.springs.len()];
    for (group, (springs, colliders)) in classes.iter().enumerate() {
        let group = u8::try_from(group).unwrap_or(SPRING_GROUP - 1);
        for &s in springs {
            spring_mask[s] |= 1 << group;
        }
        for &collider in colliders {
            if let Some(body) = collider_body[collider]
                && let Some(body) = import.model.rigid_bodies.get_mut(body)
            {
                body.group = group;
                body.non_collision_mask = 1 << SPRING_GROUP;
            }
        }
    }
    for (bodies, mask) in spring_bodies.iter().zip(&spring_mask) {
        for &body in bodies {
            if let Some(body) = import.model.rigid_bodies.get_mut(body) {
                body.non_collision_mask = *mask;
            }
        }
    }

    let dynamic: usize = spring_bodies.iter().map(Vec::len).sum();
    if dynamic > 0 {
        let mut approximations = Message::new("load.vrm.spring.bodies_made")
            .arg("springs", parsed.springs.len())
            .arg("bodies", dynamic)
            .arg("colliders", collider_body.iter().flatten().count());
        if parsed.with_gravity > 0 {
            approximations = Message::new("load.list_joined")
                .arg("first", approximations)
                .arg(
                    "next",
                    Message::new("load.vrm.spring.gravity_dropped")
                        .arg("count", parsed.with_gravity),
                );
        }
        if capped_drag > 0 {
            approximations = Message::new("load.list_joined")
                .arg("first", approximations)
                .arg(
                    "next",
                    Message::new("load.vrm.spring.drag_capped").arg("count", capped_drag),
                );
        }
        found.push((approximations, false));
    }
    for (message, lost) in found {
        import.note(location.clone(), message, lost);
    }
}

/// The file's limit frame against the export's (see [`joint_frame_and_limits`]):
/// `axis_rotation(d)⁻¹ · W · axis_rotation(W⁻¹·d)`, `W` the node's rest rotation in glTF.
fn rest_twist(import: &Importer<'_>, node: usize, axis_gltf: GVec3) -> Quat {
    let (_, world, _) = import.world[node].to_scale_rotation_translation();
    if !world.is_finite() || world.abs_diff_eq(Quat::IDENTITY, 1e-6) {
        return Quat::IDENTITY;
    }
    let world = world.normalize();
    let local_axis = world.inverse() * axis_gltf;
    (axis_rotation(axis_gltf).inverse() * world * axis_rotation(local_axis)).normalize()
}

/// A kinematic sphere on `bone` that a chain's first joint hangs on; it touches nothing.
fn anchor_body(import: &Importer<'_>, bone: usize, names: &mut Names) -> RigidBody {
    let owner = &import.model.bones[bone];
    RigidBody {
        name_ja: unique_name(&mut names.bodies_ja, &owner.name_ja.as_str()).into(),
        name_en: unique_name(&mut names.bodies_en, &owner.name_en.as_str()).into(),
        bone: Some(BoneIdx::new(bone)),
        group: SPRING_GROUP,
        non_collision_mask: 0,
        shape: RigidShape::Sphere,
        size: Vec3::new(ANCHOR_RADIUS, 0.0, 0.0),
        position: owner.position,
        rotation: Vec3::ZERO,
        mass: BODY_MASS,
        linear_damping: 0.5,
        angular_damping: 0.5,
        restitution: 0.0,
        friction: 0.5,
        mode: RigidMode::FollowBone,
    }
}

/// The static body of a collider on `bone` (its group and mask are set afterwards), `None`
/// when a number does not fit (NaN or infinite after the node's transform).
fn collider_rigid_body(
    import: &Importer<'_>,
    collider: &ParsedCollider,
    bone: usize,
    names: &mut Names,
) -> Option<RigidBody> {
    let world = import.world[collider.node];
    let (scale, _, _) = world.to_scale_rotation_translation();
    let scale = scale.abs().max_element();
    let to_mmd = |p: GVec3| -> GVec3 { import.point(world.transform_point3(p)).into() };
    let units = |metres: f32| metres * scale / super::super::METRES_PER_MMD_UNIT;
    let (shape, size, position, rotation) = match collider.form {
        ColliderForm::Sphere { offset, radius } => (
            RigidShape::Sphere,
            GVec3::new(units(radius), 0.0, 0.0),
            to_mmd(offset),
            Vec3::ZERO,
        ),
        ColliderForm::Capsule {
            offset,
            tail,
            radius,
        } => {
            let (from, to) = (to_mmd(offset), to_mmd(tail));
            let span = to - from;
            (
                RigidShape::Capsule,
                GVec3::new(units(radius), span.length(), 0.0),
                (from + to) / 2.0,
                along(span.try_normalize().unwrap_or(GVec3::Y)),
            )
        }
        ColliderForm::Plane { offset, normal } => {
            let point = to_mmd(offset);
            let normal = (to_mmd(offset + normal) - point).try_normalize()?;
            // The box's local Z along the normal, its front face on the plane.
            let turn = Quat::from_rotation_arc(GVec3::Z, normal);
            (
                RigidShape::Box,
                GVec3::new(PLANE_HALF_EXTENT, PLANE_HALF_EXTENT, PLANE_HALF_THICKNESS),
                point - normal * PLANE_HALF_THICKNESS,
                quat_to_euler(turn),
            )
        }
    };
    let rotation_glam: GVec3 = rotation.into();
    if !(size.is_finite() && position.is_finite() && rotation_glam.is_finite()) {
        return None;
    }
    let owner = &import.model.bones[bone];
    Some(RigidBody {
        name_ja: unique_name(&mut names.bodies_ja, &owner.name_ja.as_str()).into(),
        name_en: unique_name(&mut names.bodies_en, &owner.name_en.as_str()).into(),
        bone: Some(BoneIdx::new(bone)),
        group: SPRING_GROUP,
        non_collision_mask: 0,
        shape,
        size: size.into(),
        position: position.into(),
        rotation,
        mass: BODY_MASS,
        linear_damping: 0.5,
        angular_damping: 0.5,
        restitution: 0.0,
        friction: 0.5,
        mode: RigidMode::FollowBone,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::model::facts::euler_to_quat;
    use crate::physics::mmd_limit::{mmd_joint_axes_to_gltf, swing_ranges, unrotated_frame};
    use crate::physics::spring_limit::choose_limit;
    use crate::physics::spring_params::spring_settings;

    /// Segments hanging down, level and pointing up, short and long, thin and thick.
    fn bodies() -> Vec<SegmentBody> {
        let mut out = Vec::new();
        for (radius, length) in [(0.05, 0.5), (0.3, 2.0), (1.0, 1.5), (0.2, 6.0)] {
            for down in [1.0, 0.0, -0.7] {
                out.push(SegmentBody::new(radius, length, down));
            }
        }
        out
    }

    #[test]
    fn glam_xzy_euler_is_x_then_z_then_y() {
        let q =
            Quat::from_rotation_x(0.3) * Quat::from_rotation_z(-0.2) * Quat::from_rotation_y(0.1);
        let (a, b, c) = q.to_euler(EulerRot::XZY);
        assert!((a - 0.3).abs() < 1e-5 && (b + 0.2).abs() < 1e-5 && (c - 0.1).abs() < 1e-5);
    }

    #[test]
    fn stiffness_round_trips_through_the_export() {
        for body in bodies() {
            for stiffness in [0.0, 0.05, 0.3, 1.0, 2.5, 4.0] {
                let spring = joint_spring_for_stiffness(stiffness, &body);
                let back = spring_settings(&body.swinging(spring, 0.5)).stiffness;
                assert!(
                    (back - stiffness).abs() <= 1e-4 * stiffness.max(1.0),
                    "{body:?}: stiffness {stiffness} → K {spring} → {back}"
                );
            }
        }
    }

    #[test]
    fn drag_round_trips_through_the_export_where_mmd_can_hold_it() {
        for body in bodies() {
            for stiffness in [0.0, 0.5, 2.0] {
                let spring = joint_spring_for_stiffness(stiffness, &body);
                // The least drag a body can give: the spring algorithm's own (no damping).
                let least = spring_settings(&body.swinging(spring, 0.0)).drag_force;
                let most = spring_settings(&body.swinging(spring, MAX_DAMPING)).drag_force;
                for drag in [0.0, 0.01, 0.05, 0.1, 0.15, 0.2, 0.4, 0.8, 1.0] {
                    let damping = damping_for_drag(drag, stiffness, &body);
                    assert!((0.0..=MAX_DAMPING).contains(&damping), "{damping}");
                    let back = spring_settings(&body.swinging(spring, damping)).drag_force;
                    let expected = drag.clamp(least, most);
                    assert!(
                        (back - expected).abs() <= 2e-3,
                        "{body:?} stiffness {stiffness}: drag {drag} → damping {damping} → {back} (expected {expected}, range {least}..{most})"
                    );
                }
            }
        }
        // A typical hanging segment holds every drag up to 0.1 (to 2e-3); above about 0.14
        // the damping rounds to 1 in f32 and is held at MAX_DAMPING.
        let body = SegmentBody::new(0.3, 2.0, 1.0);
        let spring = joint_spring_for_stiffness(1.0, &body);
        let most = spring_settings(&body.swinging(spring, MAX_DAMPING)).drag_force;
        assert!((0.12..0.16).contains(&most), "{most}");
        for drag in [0.02, 0.06, 0.1] {
            let back = spring_settings(&body.swinging(spring, damping_for_drag(drag, 1.0, &body)))
                .drag_force;
            assert!((back - drag).abs() < 2e-3, "{drag} → {back}");
        }
    }

    #[test]
    fn broken_numbers_give_no_spring_and_no_damping() {
        let body = SegmentBody::new(0.3, 2.0, 1.0);
        assert_eq!(joint_spring_for_stiffness(f32::NAN, &body), 0.0);
        assert_eq!(joint_spring_for_stiffness(-1.0, &body), 0.0);
        assert_eq!(damping_for_drag(f32::NAN, 1.0, &body), 0.0);
        let point = SegmentBody::new(0.3, 0.0, 1.0);
        assert_eq!(joint_spring_for_stiffness(1.0, &point), 0.0);
        assert!(damping_for_drag(0.5, 1.0, &point).is_finite());
    }

    /// What the export makes of an MMD joint: its `mmd_joint_limit`, for a segment along
    /// `direction_mmd` and nodes without rotation.
    fn export_limit(limits: &JointLimits, direction_mmd: GVec3) -> Option<SpringLimit> {
        let bone_axis = direction_mmd * GVec3::new(1.0, 1.0, -1.0);
        let rotation = quat_to_euler(limits.frame);
        let (axes, ranges) =
            mmd_joint_axes_to_gltf(euler_to_quat(rotation), limits.lower, limits.upper);
        let swing = swing_ranges(axes, ranges, unrotated_frame(Quat::IDENTITY, bone_axis));
        if swing.pitch.1 - swing.pitch.0 >= 2.0 * PI - 1e-3
            && swing.yaw.1 - swing.yaw.0 >= 2.0 * PI - 1e-3
        {
            return None;
        }
        choose_limit(swing)
    }

    fn same_limit(a: &SpringLimit, b: &SpringLimit) -> bool {
        let shape = match (a.shape, b.shape) {
            (LimitShape::Cone { angle: x }, LimitShape::Cone { angle: y })
            | (LimitShape::Hinge { angle: x }, LimitShape::Hinge { angle: y }) => {
                (x - y).abs() < 1e-4
            }
            (
                LimitShape::Spherical { pitch: p, yaw: w },
                LimitShape::Spherical { pitch: q, yaw: v },
            ) => (p - q).abs() < 1e-4 && (w - v).abs() < 1e-4,
            _ => false,
        };
        shape && a.rotation.dot(b.rotation).abs() > 1.0 - 1e-6
    }

    #[test]
    fn limits_round_trip_through_the_export() {
        let directions = [
            GVec3::NEG_Y,
            GVec3::X,
            GVec3::new(0.3, -0.9, 0.3).normalize(),
            GVec3::new(-0.5, 0.2, -0.8).normalize(),
        ];
        let limits = [
            SpringLimit {
                shape: LimitShape::Cone { angle: 0.5 },
                rotation: Quat::IDENTITY,
            },
            SpringLimit {
                shape: LimitShape::Cone { angle: 1.2 },
                rotation: Quat::from_rotation_x(0.2) * Quat::from_rotation_z(-0.1),
            },
            SpringLimit {
                shape: LimitShape::Hinge { angle: 0.7 },
                rotation: Quat::IDENTITY,
            },
            SpringLimit {
                shape: LimitShape::Hinge { angle: 0.4 },
                rotation: Quat::from_rotation_x(0.3),
            },
            // A hinge swinging sideways, as `choose_limit` writes one.
            SpringLimit {
                shape: LimitShape::Hinge { angle: 0.6 },
                rotation: Quat::from_rotation_z(-0.1) * Quat::from_rotation_y(FRAC_PI_2),
            },
            SpringLimit {
                shape: LimitShape::Spherical {
                    pitch: 0.6,
                    yaw: 0.3,
                },
                rotation: Quat::IDENTITY,
            },
            SpringLimit {
                shape: LimitShape::Spherical {
                    pitch: 0.2,
                    yaw: 0.9,
                },
                rotation: Quat::from_rotation_x(-0.25) * Quat::from_rotation_z(0.15),
            },
        ];
        for direction in directions {
            let axis_gltf = direction * GVec3::new(1.0, 1.0, -1.0);
            for limit in &limits {
                let joint =
                    joint_frame_and_limits(Some(limit), direction, axis_gltf, Quat::IDENTITY);
                let back = export_limit(&joint, direction)
                    .unwrap_or_else(|| panic!("{limit:?} along {direction}: no limit back"));
                assert!(
                    same_limit(&back, limit),
                    "along {direction}: {limit:?} → {joint:?} → {back:?}"
                );
            }
            // No limit: free swing, which the export reads as no limit; the twist is locked.
            let free = joint_frame_and_limits(None, direction, axis_gltf, Quat::IDENTITY);
            assert!(export_limit(&free, direction).is_none());
            assert_eq!((free.lower.y, free.upper.y), (0.0, 0.0));
            // The frame's Y runs along the segment.
            assert!((free.frame * GVec3::Y - direction).length() < 1e-5);
        }
    }

    #[test]
    fn a_hanging_segment_s_limits_worked_by_hand() {
        // Straight down in glTF: the unrotated frame is 180° about X, which the mirror keeps;
        // MMD's X range is glTF's negated and reversed, Z's is glTF's.
        let cone = SpringLimit {
            shape: LimitShape::Cone { angle: 0.5 },
            rotation: Quat::IDENTITY,
        };
        let joint = joint_frame_and_limits(Some(&cone), GVec3::NEG_Y, GVec3::NEG_Y, Quat::IDENTITY);
        assert!((joint.lower - GVec3::new(-0.5, 0.0, -0.5)).length() < 1e-6);
        assert!((joint.upper - GVec3::new(0.5, 0.0, 0.5)).length() < 1e-6);
        let pitched = SpringLimit {
            shape: LimitShape::Hinge { angle: 0.4 },
            rotation: Quat::from_rotation_x(0.3),
        };
        let joint =
            joint_frame_and_limits(Some(&pitched), GVec3::NEG_Y, GVec3::NEG_Y, Quat::IDENTITY);
        // glTF pitch −0.1..0.7 about X → MMD −0.7..0.1; no yaw.
        assert!(
            (joint.lower - GVec3::new(-0.7, 0.0, 0.0)).length() < 1e-5,
            "{joint:?}"
        );
        assert!(
            (joint.upper - GVec3::new(0.1, 0.0, 0.0)).length() < 1e-5,
            "{joint:?}"
        );
    }
}
