//! MikuMikuDance's rigid-body physics on rapier: a PMX model's rigid bodies and joints as
//! MikuMikuDance's Bullet world runs them.
//!
//! - **Space and units**: the model's own (MMD units, its axes); the equations of motion do
//!   not depend on handedness, and rotations are the model's Y-X-Z Euler angles turned into
//!   quaternions the way the pose engine turns them, so a joint's limit about its X axis means
//!   what PmxEditor shows. Gravity is MikuMikuDance's 9.8 × 10 units/s² down.
//! - **Bodies**: sphere (radius `size.x`), box (half extents `size`), capsule (radius `size.x`,
//!   `size.y` between the centres of its caps, along its local Y). Mode 0 follows its bone
//!   (kinematic: it pushes, nothing pushes it); modes 1 and 2 are dynamic with their mass, and
//!   their bone follows them (mode 2 keeps the bone's animated position, only the rotation
//!   comes from the body). A dynamic body of mass 0 is static in Bullet, so it follows its bone.
//! - **Damping**: Bullet keeps `(1 − damping)^dt` of a velocity; rapier keeps
//!   `1 / (1 + dt·c)`, so `c = ((1 − damping)^(−dt) − 1) / dt` gives the same loss per step.
//! - **Contacts**: friction and restitution multiply, as Bullet combines them. A body is in
//!   group `1 << group` and collides with the groups its mask has set; both bodies of a pair
//!   must agree, as in Bullet's filter.
//! - **Joints** in the joint's own frame (its position and rotation at rest, seen from each
//!   body): spring 6DOF (kind 0) and 6DOF (1) have move and rotation limits per axis (an axis
//!   whose lower limit equals its upper is locked; lower above upper leaves it free, as in
//!   Bullet) and, for kind 0, springs about their rest pose with the joint's spring constants
//!   as forces (N/unit, N·unit/rad); P2P (2) is a ball joint; ConeTwist (3) limits the twist
//!   about X and the swings about Y and Z to ± the rotation limits' lower values (the spec's
//!   `_twistSpan`, `_swingSpan2`, `_swingSpan1`); Slider (4) moves along and turns about X
//!   within the X limits; Hinge (5) turns about the frame's Z (Bullet's hinge axis) within the
//!   X rotation limits. Motors, softness and bias of the 2.1 kinds are not simulated (listed
//!   by [`PhysicsNote`]).
//! - **Springs** are forces of stiffness × offset computed once a step, as Bullet's are, where
//!   that is stable for the bodies they pull ([`SolverSettings::explicit_spring_limit`]); the
//!   stiffer ones are force-based motor rows of the solver. Joints without motor rows are
//!   solved four at a time by rapier, which makes the forces the faster of the two.
//! - **Steps** are a fixed 1/60 s; the same model and inputs give the same bits.

use crate::placement::{self, body_bone};
use glam::{Quat, Vec3, Vec3A};
use pmx_core::model::{Joint, JointKind, Model, RigidMode, RigidShape};
use pmx_core::pose::{PhysicsBone, RigidBodyImpulse, Transform};
use rapier3d::prelude::{
    CoefficientCombineRule, ColliderBuilder, GenericJointBuilder, Group, ImpulseJointHandle,
    InteractionGroups, InteractionTestMode, JointAxesMask, JointAxis, MotorModel, PhysicsWorld,
    RigidBodyBuilder, RigidBodyHandle,
};

/// The step MikuMikuDance runs its physics at.
pub const STEP_SECONDS: f32 = 1.0 / 60.0;
/// MikuMikuDance's gravity, MMD units a second squared.
pub const MMD_GRAVITY: f32 = pmx_core::physics::spring_params::MMD_GRAVITY;
/// Sizes below this are raised to it (a shape of size 0 has no volume or inertia).
const MIN_SIZE: f32 = 1e-3;
/// A dynamic body this far (MMD units) from where its bone would carry it has exploded; it is
/// put back on its bone at rest speed (and counted).
const RUNAWAY_DISTANCE: f32 = 1000.0;
/// Damping of 1 would stop a body in no time (an infinite rapier coefficient); this much of it
/// is the most a step applies.
const MAX_DAMPING: f32 = 0.9999;
/// Solver substeps per step, and projected Gauss-Seidel passes in each. Measured on the
/// corpus (`tests/tests/physics_world.rs`): with rapier's defaults (4 and 1) a light body hung
/// between a bone-following body and the rest of its chain (SD Mei's ribbons) swings 50° past
/// its joint's limit, and a stiff joint spring settles 0.8° off its balance; 8 × 4 keeps every
/// corpus joint within 2.6° of its limits and springs within 0.03° of the balance.
/// How rapier solves the world: [`SolverSettings::default`] is what the editor runs;
/// [`SolverSettings::BEFORE_ISSUE_40`] is what it ran before (kept for the step benchmark's
/// comparison and for tuning).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SolverSettings {
    /// Solver substeps a step (rapier's `num_solver_iterations`).
    pub substeps: usize,
    /// Projected Gauss-Seidel passes in each substep (`num_internal_pgs_iterations`).
    pub pgs_iterations: usize,
    /// Joint impulses carried from one step to the next as the solver's first guess.
    pub warmstart_joints: bool,
    /// Bodies at rest may sleep (rapier wakes them when something touches or moves them).
    pub sleep: bool,
    /// Joint springs as forces computed once a step from the joint's offset (as Bullet's 6DOF
    /// spring is: an impulse of stiffness × offset × dt a step) instead of motor rows of
    /// rapier's solver (which it cannot solve four joints at a time), on the axes where that
    /// is stable: stiffness × dt² over the lightest end's smallest moment of inertia (mass,
    /// for a move spring) at most this. 0: every spring is a motor row.
    pub explicit_spring_limit: f32,
}

impl SolverSettings {
    /// The settings of the first version: 8 substeps × 4 passes, no warm start, no sleep.
    pub const BEFORE_ISSUE_40: Self = Self {
        substeps: SOLVER_ITERATIONS,
        pgs_iterations: PGS_ITERATIONS,
        warmstart_joints: false,
        sleep: false,
        explicit_spring_limit: 0.0,
    };
}

impl Default for SolverSettings {
    /// [`SolverSettings::BEFORE_ISSUE_40`] with the springs that pull at most 4 (stiffness ×
    /// dt² / inertia) as forces. Measured with `examples/tune.rs`: every hair link of the
    /// 1,001-body model qualifies and its step takes a third of the time; the pendulum tests
    /// and the corpus' worst joint-limit excess (2.58°) are as before. Springs pulling 35 (the
    /// 2000 N·unit/rad pendulum spring on a bob whose own inertia is 0.016) swing off as
    /// forces, as they would in Bullet's explicit spring, so they stay motor rows.
    fn default() -> Self {
        Self {
            explicit_spring_limit: 4.0,
            ..Self::BEFORE_ISSUE_40
        }
    }
}

const SOLVER_ITERATIONS: usize = 8;
const PGS_ITERATIONS: usize = 4;

/// What the world could not build as the file says.
#[derive(Debug, Clone, PartialEq)]
pub enum PhysicsNote {
    /// Soft bodies (PMX 2.1) are listed, not simulated.
    SoftBodiesNotSimulated { count: usize },
    /// A body whose size, position or rotation is not finite is left out.
    BodyNotFinite { body: usize },
    /// A physics body with mass 0 or less: Bullet makes it static; it follows its bone.
    MasslessBody { body: usize },
    /// A joint without two distinct bodies the model has.
    JointWithoutBodies { joint: usize },
    /// A joint whose values are not finite.
    JointNotFinite { joint: usize },
    /// A 2.1 joint kind's motor, softness or bias is not simulated.
    JointMotorIgnored { joint: usize },
    /// A joint of an unknown kind, run as a spring 6DOF.
    UnknownJointKind { joint: usize, kind: u8 },
}

impl std::fmt::Display for PhysicsNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::SoftBodiesNotSimulated { count } => {
                write!(f, "{count} soft bodies are not simulated")
            }
            Self::BodyNotFinite { body } => {
                write!(
                    f,
                    "rigid body {body}: size, position or rotation is not finite; left out"
                )
            }
            Self::MasslessBody { body } => write!(
                f,
                "rigid body {body}: a physics body with no mass is static; it follows its bone"
            ),
            Self::JointWithoutBodies { joint } => {
                write!(
                    f,
                    "joint {joint}: does not connect two bodies of the model; left out"
                )
            }
            Self::JointNotFinite { joint } => {
                write!(f, "joint {joint}: a value is not finite; left out")
            }
            Self::JointMotorIgnored { joint } => write!(
                f,
                "joint {joint}: motor, softness and bias are not simulated (limits are)"
            ),
            Self::UnknownJointKind { joint, kind } => {
                write!(
                    f,
                    "joint {joint}: unknown kind {kind}, run as a spring 6DOF"
                )
            }
        }
    }
}

/// How a body moves in the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyMotion {
    /// Carried by its bone (mode 0, or a massless physics body).
    FollowsBone,
    /// Moved by the physics; its bone follows it (mode 1).
    Physics,
    /// Moved by the physics; its bone takes its rotation and keeps its own position (mode 2).
    PhysicsKeepsBonePosition,
    /// Left out (not finite).
    Absent,
}

#[derive(Debug, Clone, Copy)]
struct SimBody {
    handle: Option<RigidBodyHandle>,
    motion: BodyMotion,
    bone: Option<usize>,
    /// The body in its bone's frame (model space for a body without a bone).
    offset: Transform,
    /// Mass and smallest principal moment of inertia (infinite for a body the physics does
    /// not move).
    mass: f32,
    inertia: f32,
}

/// A simulated body's state, for drawing and the readout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BodyState {
    pub transform: Transform,
    pub linear_velocity: Vec3,
    pub angular_velocity: Vec3,
    pub motion: BodyMotion,
}

/// Counters of what the world did, for the readout and the tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WorldStats {
    pub steps: u64,
    /// Dynamic bodies put back on their bones because they ran away or went non-finite.
    pub recovered_bodies: u64,
}

/// A model's rigid bodies and joints in a rapier world.
pub struct MmdWorld {
    world: PhysicsWorld,
    bodies: Vec<SimBody>,
    joints: Vec<Option<ImpulseJointHandle>>,
    /// The joint springs run as forces (see [`SolverSettings::explicit_spring_limit`]).
    springs: Vec<JointSpring>,
    notes: Vec<PhysicsNote>,
    stats: WorldStats,
    /// Where the bones put each body this step (reused).
    carried: Vec<Transform>,
}

impl std::fmt::Debug for MmdWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MmdWorld")
            .field("bodies", &self.bodies.len())
            .field("joints", &self.joints.len())
            .field("notes", &self.notes)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}

fn vector(v: Vec3A) -> rapier3d::math::Vector {
    rapier3d::math::Vector::new(v.x, v.y, v.z)
}

fn rotation(q: Quat) -> rapier3d::math::Rotation {
    rapier3d::math::Rotation::from_xyzw(q.x, q.y, q.z, q.w)
}

fn pose(t: &Transform) -> rapier3d::math::Pose {
    rapier3d::math::Pose::from_parts(vector(t.translation), rotation(t.rotation))
}

fn from_pose(p: &rapier3d::math::Pose) -> Transform {
    let t = p.translation;
    let r = p.rotation;
    Transform {
        rotation: Quat::from_xyzw(r.x, r.y, r.z, r.w),
        translation: Vec3A::new(t.x, t.y, t.z),
    }
}

fn from_vector(v: rapier3d::math::Vector) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

fn finite(v: pmx_core::model::Vec3) -> bool {
    v.x.is_finite() && v.y.is_finite() && v.z.is_finite()
}

fn is_finite_transform(t: &Transform) -> bool {
    t.translation.is_finite() && t.rotation.is_finite()
}

/// Bullet's per-second damping as rapier's coefficient for steps of `dt`.
#[must_use]
pub fn rapier_damping(bullet_damping: f32, dt: f32) -> f32 {
    let keep = 1.0 - bullet_damping.clamp(0.0, MAX_DAMPING);
    let coefficient = (keep.powf(-dt) - 1.0) / dt;
    if coefficient.is_finite() {
        coefficient.max(0.0)
    } else {
        0.0
    }
}

impl MmdWorld {
    /// The world of `model` at rest.
    #[must_use]
    pub fn new(model: &Model) -> Self {
        Self::with_settings(model, SolverSettings::default())
    }

    /// The world of `model` at rest, solved with `settings`.
    #[must_use]
    pub fn with_settings(model: &Model, settings: SolverSettings) -> Self {
        let mut world = PhysicsWorld::new();
        world.gravity = rapier3d::math::Vector::new(0.0, -MMD_GRAVITY, 0.0);
        world.integration_parameters.dt = STEP_SECONDS;
        world.integration_parameters.num_solver_iterations = settings.substeps;
        world.integration_parameters.num_internal_pgs_iterations = settings.pgs_iterations;
        world.integration_parameters.warmstart_joints = settings.warmstart_joints;
        let mut notes = Vec::new();
        if !model.soft_bodies.is_empty() {
            notes.push(PhysicsNote::SoftBodiesNotSimulated {
                count: model.soft_bodies.len(),
            });
        }
        let offsets = placement::bone_offsets(model);
        let mut bodies = Vec::with_capacity(model.rigid_bodies.len());
        for (index, (body, &offset)) in model.rigid_bodies.iter().zip(&offsets).enumerate() {
            let bone = body_bone(model, body);
            if !(finite(body.size)
                && finite(body.position)
                && finite(body.rotation)
                && body.mass.is_finite())
            {
                notes.push(PhysicsNote::BodyNotFinite { body: index });
                bodies.push(SimBody {
                    handle: None,
                    motion: BodyMotion::Absent,
                    bone,
                    offset,
                    mass: f32::INFINITY,
                    inertia: f32::INFINITY,
                });
                continue;
            }
            let mut motion = match body.mode {
                RigidMode::Physics => BodyMotion::Physics,
                RigidMode::PhysicsWithBone => BodyMotion::PhysicsKeepsBonePosition,
                RigidMode::FollowBone | RigidMode::Unknown(_) => BodyMotion::FollowsBone,
            };
            if motion != BodyMotion::FollowsBone && body.mass <= 0.0 {
                notes.push(PhysicsNote::MasslessBody { body: index });
                motion = BodyMotion::FollowsBone;
            }
            let rest = Transform::placed(body.position, body.rotation);
            let builder = match motion {
                BodyMotion::FollowsBone => RigidBodyBuilder::kinematic_position_based(),
                _ => RigidBodyBuilder::dynamic()
                    .linear_damping(rapier_damping(body.linear_damping, STEP_SECONDS))
                    .angular_damping(rapier_damping(body.angular_damping, STEP_SECONDS)),
            }
            .pose(pose(&rest))
            .can_sleep(settings.sleep);
            let handle = world.bodies.insert(builder);
            let size = Vec3::from(body.size).abs().max(Vec3::splat(MIN_SIZE));
            let shape = match body.shape {
                RigidShape::Box => ColliderBuilder::cuboid(size.x, size.y, size.z),
                RigidShape::Capsule => ColliderBuilder::capsule_y(size.y * 0.5, size.x),
                RigidShape::Sphere | RigidShape::Unknown(_) => ColliderBuilder::ball(size.x),
            };
            let (mass, inertia) = if motion == BodyMotion::FollowsBone {
                (f32::INFINITY, f32::INFINITY)
            } else {
                // The shape's inertia at density 1, scaled to the body's mass.
                let unit = shape.shape.mass_properties(1.0);
                let scale = body.mass / unit.mass().max(f32::MIN_POSITIVE);
                let moments = unit.principal_inertia() * scale;
                (body.mass, moments.x.min(moments.y).min(moments.z))
            };
            let groups = InteractionGroups::new(
                Group::from_bits_truncate(1u32 << (body.group & 15)),
                Group::from_bits_truncate(u32::from(body.non_collision_mask)),
                InteractionTestMode::And,
            );
            let collider = shape
                .mass(if motion == BodyMotion::FollowsBone {
                    0.0
                } else {
                    body.mass
                })
                .friction(body.friction.max(0.0))
                .restitution(body.restitution.max(0.0))
                .friction_combine_rule(CoefficientCombineRule::Multiply)
                .restitution_combine_rule(CoefficientCombineRule::Multiply)
                .collision_groups(groups);
            world.insert_collider(collider, Some(handle));
            bodies.push(SimBody {
                handle: Some(handle),
                motion,
                bone,
                offset,
                mass,
                inertia,
            });
        }
        let mut joints = Vec::with_capacity(model.joints.len());
        let mut springs = Vec::new();
        for (index, joint) in model.joints.iter().enumerate() {
            joints.push(add_joint(
                &mut world,
                model,
                &bodies,
                index,
                joint,
                &mut notes,
                (settings.explicit_spring_limit > 0.0)
                    .then_some((&mut springs, settings.explicit_spring_limit)),
            ));
        }
        Self {
            world,
            bodies,
            joints,
            springs,
            notes,
            stats: WorldStats::default(),
            carried: Vec::new(),
        }
    }

    /// What could not be built as the file says.
    #[must_use]
    pub fn notes(&self) -> &[PhysicsNote] {
        &self.notes
    }

    #[must_use]
    pub fn stats(&self) -> WorldStats {
        self.stats
    }

    /// How many joints are in the world.
    #[must_use]
    pub fn joint_count(&self) -> usize {
        self.joints.iter().flatten().count()
    }

    fn carry(&mut self, globals: &[Transform]) {
        self.carried.clear();
        self.carried.extend(
            self.bodies
                .iter()
                .map(|body| placement::carried(body.bone, &body.offset, globals)),
        );
    }

    /// Every body where the bones' `globals` put it, at rest speed (the start of a run, or a
    /// jump in a motion).
    pub fn reset(&mut self, globals: &[Transform]) {
        self.carry(globals);
        for (body, at) in self.bodies.iter().zip(&self.carried) {
            let Some(handle) = body.handle else { continue };
            if !is_finite_transform(at) {
                continue;
            }
            if let Some(rb) = self.world.bodies.get_mut(handle) {
                rb.set_position(pose(at), true);
                rb.set_linvel(rapier3d::math::Vector::ZERO, true);
                rb.set_angvel(rapier3d::math::Vector::ZERO, true);
                rb.reset_forces(true);
                rb.reset_torques(true);
            }
        }
        self.stats = WorldStats::default();
    }

    /// One 1/60 s step: bodies that follow bones move to where `globals` (the bones deformed
    /// before physics) put them, the impulse morphs' impulses are applied, the world steps,
    /// and the bones of the physics bodies get their new world transforms in `out`.
    pub fn step(
        &mut self,
        globals: &[Transform],
        impulses: &[RigidBodyImpulse],
        out: &mut Vec<PhysicsBone>,
    ) {
        self.carry(globals);
        for (index, (body, at)) in self.bodies.iter().zip(&self.carried).enumerate() {
            let Some(handle) = body.handle else { continue };
            let Some(rb) = self.world.bodies.get_mut(handle) else {
                continue;
            };
            // A pose that is not finite (a broken motion) must not reach the solver.
            if body.motion == BodyMotion::FollowsBone && is_finite_transform(at) {
                rb.set_next_kinematic_position(pose(at));
            }
            if let Some(impulse) = impulses.get(index)
                && !impulse.is_empty()
                && body.motion != BodyMotion::FollowsBone
            {
                apply_impulse(rb, impulse);
            }
        }
        self.apply_springs();
        self.world.step();
        self.stats.steps += 1;
        out.clear();
        for (body, at) in self.bodies.iter().zip(&self.carried) {
            let Some(handle) = body.handle else { continue };
            if matches!(body.motion, BodyMotion::FollowsBone | BodyMotion::Absent) {
                continue;
            }
            let Some(rb) = self.world.bodies.get_mut(handle) else {
                continue;
            };
            let mut now = from_pose(rb.position());
            let at = if is_finite_transform(at) {
                *at
            } else {
                body.offset
            };
            if !is_finite_transform(&now)
                || (now.translation - at.translation).length() > RUNAWAY_DISTANCE
            {
                // Never hand a bone NaN or a body that flew off: back on the bone, at rest.
                rb.set_position(pose(&at), true);
                rb.set_linvel(rapier3d::math::Vector::ZERO, true);
                rb.set_angvel(rapier3d::math::Vector::ZERO, true);
                self.stats.recovered_bodies += 1;
                now = at;
            }
            let Some(bone) = body.bone else { continue };
            let mut bone_global = now.compose(&body.offset.inverse());
            bone_global.rotation = bone_global.rotation.normalize();
            out.push(PhysicsBone {
                bone,
                transform: bone_global,
                rotation_only: body.motion == BodyMotion::PhysicsKeepsBonePosition,
            });
        }
    }

    /// Each spring's force on its two bodies for this step, from where they are now.
    fn apply_springs(&mut self) {
        // Rapier keeps a force until it is reset: last step's springs go first.
        for spring in &self.springs {
            for handle in [spring.body_a, spring.body_b] {
                if let Some(rb) = self.world.bodies.get_mut(handle) {
                    rb.reset_forces(false);
                    rb.reset_torques(false);
                }
            }
        }
        for spring in &self.springs {
            let bodies = &mut self.world.bodies;
            let (Some(a), Some(b)) = (bodies.get(spring.body_a), bodies.get(spring.body_b)) else {
                continue;
            };
            let frame_a = from_pose(a.position()).compose(&spring.frame_a);
            let frame_b = from_pose(b.position()).compose(&spring.frame_b);
            let mut relative = (frame_a.rotation.conjugate() * frame_b.rotation).normalize();
            if relative.w < 0.0 {
                relative = -relative;
            }
            let half = Vec3::new(relative.x, relative.y, relative.z);
            let angles = Vec3::new(
                2.0 * half.x.atan2(relative.w),
                2.0 * half.y.atan2(relative.w),
                2.0 * half.z.atan2(relative.w),
            );
            let torque = frame_a.rotation * (-spring.angular * angles);
            let offset = frame_a.rotation.conjugate()
                * Vec3::from(frame_b.translation - frame_a.translation);
            let force = frame_a.rotation * (-spring.linear * offset);
            let point = vector(frame_b.translation);
            for (handle, sign) in [(spring.body_b, 1.0f32), (spring.body_a, -1.0)] {
                let Some(rb) = bodies.get_mut(handle) else {
                    continue;
                };
                if !rb.is_dynamic() {
                    continue;
                }
                if torque.is_finite() && torque != Vec3::ZERO {
                    rb.add_torque(vector((torque * sign).into()), false);
                }
                if force.is_finite() && force != Vec3::ZERO {
                    rb.add_force_at_point(vector((force * sign).into()), point, false);
                }
            }
        }
    }

    /// A body's simulated state (`None` for a body left out or past the end).
    #[must_use]
    pub fn body(&self, index: usize) -> Option<BodyState> {
        let body = self.bodies.get(index)?;
        let rb = self.world.bodies.get(body.handle?)?;
        Some(BodyState {
            transform: from_pose(rb.position()),
            linear_velocity: from_vector(rb.linvel()),
            angular_velocity: from_vector(rb.angvel()),
            motion: body.motion,
        })
    }

    /// Every body's transform in model order (bodies left out at their rest offset).
    pub fn body_transforms(&self, out: &mut Vec<Transform>) {
        out.clear();
        for body in &self.bodies {
            let at = body
                .handle
                .and_then(|h| self.world.bodies.get(h))
                .map_or(body.offset, |rb| from_pose(rb.position()));
            out.push(at);
        }
    }
}

fn apply_impulse(rb: &mut rapier3d::dynamics::RigidBody, impulse: &RigidBodyImpulse) {
    if impulse.stop {
        rb.set_linvel(rapier3d::math::Vector::ZERO, true);
        rb.set_angvel(rapier3d::math::Vector::ZERO, true);
        rb.reset_forces(true);
        rb.reset_torques(true);
        return;
    }
    let r = rb.position().rotation;
    let frame = Quat::from_xyzw(r.x, r.y, r.z, r.w);
    // The spec sends the local and the global amounts separately; their sum is the same push.
    let velocity = frame * impulse.local_velocity + impulse.global_velocity;
    let torque = frame * impulse.local_torque + impulse.global_torque;
    if velocity.is_finite() && velocity != Vec3::ZERO {
        rb.apply_impulse(vector(velocity.into()), true);
    }
    if torque.is_finite() && torque != Vec3::ZERO {
        rb.apply_torque_impulse(vector(torque.into()), true);
    }
}

/// A joint's springs as forces: stiffness per axis of the joint's frame (zero on axes that are
/// locked or have no spring).
#[derive(Debug, Clone, Copy)]
struct JointSpring {
    body_a: RigidBodyHandle,
    body_b: RigidBodyHandle,
    /// The joint's frame in each body's frame.
    frame_a: Transform,
    frame_b: Transform,
    linear: Vec3,
    angular: Vec3,
}

const LINEAR: [JointAxis; 3] = [JointAxis::LinX, JointAxis::LinY, JointAxis::LinZ];
const ANGULAR: [JointAxis; 3] = [JointAxis::AngX, JointAxis::AngY, JointAxis::AngZ];
const LINEAR_MASKS: [JointAxesMask; 3] = [
    JointAxesMask::LIN_X,
    JointAxesMask::LIN_Y,
    JointAxesMask::LIN_Z,
];
const ANGULAR_MASKS: [JointAxesMask; 3] = [
    JointAxesMask::ANG_X,
    JointAxesMask::ANG_Y,
    JointAxesMask::ANG_Z,
];

/// How one axis of a 6DOF joint moves: Bullet's reading of a lower and upper limit.
#[derive(Debug, Clone, Copy, PartialEq)]
enum AxisRange {
    Locked,
    Limited(f32, f32),
    Free,
}

fn axis_range(lower: f32, upper: f32) -> AxisRange {
    if lower > upper {
        AxisRange::Free
    } else if upper - lower <= 1e-6 {
        AxisRange::Locked
    } else {
        AxisRange::Limited(lower, upper)
    }
}

fn add_joint(
    world: &mut PhysicsWorld,
    model: &Model,
    bodies: &[SimBody],
    index: usize,
    joint: &Joint,
    notes: &mut Vec<PhysicsNote>,
    explicit_springs: Option<(&mut Vec<JointSpring>, f32)>,
) -> Option<ImpulseJointHandle> {
    let ends = [joint.body_a, joint.body_b].map(|b| {
        b.map(pmx_core::model::RigidBodyIdx::get)
            .filter(|&b| b < model.rigid_bodies.len())
    });
    // Two distinct bodies of the model, both in the world.
    let ends = match ends {
        [Some(a), Some(b)] if a != b => bodies[a]
            .handle
            .zip(bodies[b].handle)
            .map(|handles| (a, b, handles)),
        _ => None,
    };
    let Some((a, b, (handle_a, handle_b))) = ends else {
        notes.push(PhysicsNote::JointWithoutBodies { joint: index });
        return None;
    };
    let values = [
        joint.position,
        joint.rotation,
        joint.move_lower,
        joint.move_upper,
        joint.rotate_lower,
        joint.rotate_upper,
        joint.spring_move,
        joint.spring_rotate,
    ];
    if !values.iter().all(|&v| finite(v)) {
        notes.push(PhysicsNote::JointNotFinite { joint: index });
        return None;
    }
    let frame = Transform::placed(joint.position, joint.rotation);
    let body_rest = |index: usize| {
        let body = &model.rigid_bodies[index];
        Transform::placed(body.position, body.rotation)
    };
    let (rest_a, rest_b) = (body_rest(a), body_rest(b));
    let frame_a = rest_a.inverse().compose(&frame);
    let frame_b = rest_b.inverse().compose(&frame);

    let v = |x: pmx_core::model::Vec3| [x.x, x.y, x.z];
    let (move_lower, move_upper) = (v(joint.move_lower), v(joint.move_upper));
    let (rotate_lower, rotate_upper) = (v(joint.rotate_lower), v(joint.rotate_upper));
    let mut ranges_linear = [AxisRange::Locked; 3];
    let mut ranges_angular = [AxisRange::Locked; 3];
    let mut springs = false;
    match joint.kind {
        JointKind::Spring6Dof | JointKind::SixDof | JointKind::Unknown(_) => {
            for i in 0..3 {
                ranges_linear[i] = axis_range(move_lower[i], move_upper[i]);
                ranges_angular[i] = axis_range(rotate_lower[i], rotate_upper[i]);
            }
            springs = joint.kind != JointKind::SixDof;
            if let JointKind::Unknown(kind) = joint.kind {
                notes.push(PhysicsNote::UnknownJointKind { joint: index, kind });
            }
        }
        JointKind::PointToPoint => ranges_angular = [AxisRange::Free; 3],
        JointKind::ConeTwist => {
            // Twist about X, swings about Y and Z, each within ± its span.
            for (i, range) in ranges_angular.iter_mut().enumerate() {
                let span = rotate_lower[i].abs();
                *range = if span <= 1e-6 {
                    AxisRange::Locked
                } else {
                    AxisRange::Limited(-span, span)
                };
            }
            notes.push(PhysicsNote::JointMotorIgnored { joint: index });
        }
        JointKind::Slider => {
            ranges_linear[0] = axis_range(move_lower[0], move_upper[0]);
            ranges_angular[0] = axis_range(rotate_lower[0], rotate_upper[0]);
            notes.push(PhysicsNote::JointMotorIgnored { joint: index });
        }
        JointKind::Hinge => {
            ranges_angular[2] = axis_range(rotate_lower[0], rotate_upper[0]);
            notes.push(PhysicsNote::JointMotorIgnored { joint: index });
        }
    }
    let mut locked = JointAxesMask::empty();
    for i in 0..3 {
        if ranges_linear[i] == AxisRange::Locked {
            locked |= LINEAR_MASKS[i];
        }
        if ranges_angular[i] == AxisRange::Locked {
            locked |= ANGULAR_MASKS[i];
        }
    }
    let mut builder = GenericJointBuilder::new(locked)
        .local_frame1(pose(&frame_a))
        .local_frame2(pose(&frame_b))
        .contacts_enabled(true);
    let spring_move = v(joint.spring_move);
    let spring_rotate = v(joint.spring_rotate);
    let mut explicit = JointSpring {
        body_a: handle_a,
        body_b: handle_b,
        frame_a,
        frame_b,
        linear: Vec3::ZERO,
        angular: Vec3::ZERO,
    };
    for i in 0..3 {
        for (axis, range, stiffness) in [
            (LINEAR[i], ranges_linear[i], spring_move[i]),
            (ANGULAR[i], ranges_angular[i], spring_rotate[i]),
        ] {
            if let AxisRange::Limited(lower, upper) = range {
                builder = builder.limits(axis, [lower, upper]);
            }
            let sprung = springs && range != AxisRange::Locked && stiffness > 0.0;
            // How hard the spring pulls on its lightest end in one step.
            let pull = |resistance: fn(&SimBody) -> f32| {
                let lightest = resistance(&bodies[a]).min(resistance(&bodies[b]));
                stiffness * STEP_SECONDS * STEP_SECONDS / lightest
            };
            let explicit_ok = explicit_springs.as_ref().is_some_and(|(_, limit)| {
                let pull = if LINEAR.contains(&axis) {
                    pull(|body| body.mass)
                } else {
                    pull(|body| body.inertia)
                };
                pull <= *limit
            });
            if sprung && explicit_ok {
                if LINEAR.contains(&axis) {
                    explicit.linear[i] = stiffness;
                } else {
                    explicit.angular[i] = stiffness;
                }
            } else if sprung {
                // Bullet's 6DOF spring pulls back to the rest pose with stiffness × offset;
                // its damping comes from the bodies' own.
                builder = builder
                    .motor_model(axis, MotorModel::ForceBased)
                    .motor_position(axis, 0.0, stiffness, 0.0);
            }
        }
    }
    if let Some((list, _)) = explicit_springs
        && (explicit.linear != Vec3::ZERO || explicit.angular != Vec3::ZERO)
    {
        list.push(explicit);
    }
    Some(
        world
            .impulse_joints
            .insert(handle_a, handle_b, builder.build(), true),
    )
}
