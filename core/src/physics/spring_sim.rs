//! The VRMC_springBone reference simulation (the spec's "SpringBone Algorithm", as three-vrm
//! and UniVRM run it), with the VRMC_springBone_limit limits, on the springs a model's physics
//! becomes ([`plan_springs`](super::springs::plan_springs): the springs the VRM export writes,
//! and the springs of an imported VRM, whose spring bones the import made into the bodies and
//! joints the plan reads back). It previews in the editor what a VRM runtime will do.
//!
//! **Space and units.** Everything is in the model's own space and MMD units: bone transforms
//! ([`Skeleton::globals`](crate::pose::Skeleton::globals)), tails, hit radii and colliders (as
//! the plan has them). The spring settings are the file's, in metres a second (`stiffness` and
//! `gravityPower` move a tail by `Δt·setting` metres a step), so they are turned into
//! `Δt·setting / METRES_PER_UNIT` MMD units: the tail moves as far relative to its bone as
//! in the VRM file. Gravity points along −Y. Limits are the export's
//! ([`mmd_joint_limit`](super::mmd_limit::mmd_joint_limit), in the file's glTF axes), applied
//! through the same mirror the export writes them with.
//!
//! **A step**, for every joint that has a next point (the next joint's bone, or the chain's
//! tail offset), ancestors first, so a joint's head comes from its parent's transform of this
//! step and a chain's joints move together:
//! 1. head = where the parent's new transform puts the bone; bone length = head to the tail
//!    point as the input pose has them;
//! 2. `next = tail + (tail − prevTail)(1 − dragForce) + Δt·stiffness·(parentRotation · boneAxis)
//!    + Δt·gravityPower·(−Y)`, back onto the sphere of the bone length, then the limit;
//! 3. for each collider of the chain's groups (sphere or capsule, following its bone's input
//!    transform, as the runtimes update colliders before the springs): if the tail's hit sphere
//!    is inside it, push the tail out along the line from the collider's nearest point, back
//!    onto the sphere, and the limit again (the limit spec's "after each collision";
//!    UniVRM applies it once after all colliders);
//! 4. the bone's new world rotation is `parentRotation · fromTo(boneAxis, parentRotation⁻¹ ·
//!    (next − head))`: PMX bones have no rest rotation, so a bone's initial local rotation (the
//!    spec's `initialLocalRotation`) is the identity and its rest axis in its own space is the
//!    rest direction to its tail in the model. The bone's animated rotation (and twist) is
//!    replaced, as in the runtimes and in MMD physics.
//!
//! **Time step.** The algorithm adds `Δt·stiffness` and `Δt·gravityPower` to a position each
//! step where an integrator would add `Δt²·acceleration`, and keeps `1 − dragForce` of the
//! velocity each step: as accelerations the pulls are `stiffness/Δt` and `gravityPower/Δt`, so
//! halving `dt` (stepping twice as often) doubles them and doubles the damping a second, and
//! the swing is not the same. The settings are derived for, and the runtimes are run at,
//! [`FRAME_SECONDS`](super::spring_params::FRAME_SECONDS); step at that (with a fixed-step
//! accumulator at other frame rates) to see what a runtime shows. A `dt` that is not positive
//! (or not a number) moves no tail: the bones are written towards their tails as they are
//! (limits and colliders applied, heads following their parents), as a paused preview.
//!
//! **Degenerate input is held, never NaN.** A joint whose segment has no length (at rest or in
//! the pose), whose bone appears in an earlier chain (the spec forbids it), or whose head or
//! parent transform is not finite is not simulated: it keeps its animated rotation under its
//! parent and is not written. A push whose direction is undefined (a tail exactly on a
//! collider's centre or axis) does nothing, as three-vrm's zero-length normalize; a tail on its
//! head keeps its previous direction (or the rest direction).
//!
//! A chain that branches off another chain's bone (the plan makes each branch a chain of its
//! own, as the spec says) runs after the bones it hangs from; the spec leaves that order open.
//!
//! Not here: the spec's `center` space (the plan has none), plane and "inside" colliders
//! (MMD bodies have no such shapes), and the export's cutting of a chain at its first humanoid
//! or non-exported bone (the preview runs whole chains; such chains are rare and listed in
//! the export's report).

use super::mmd_limit::{apply_limit_in_mmd_space, mmd_joint_limit};
use super::spring_limit::SpringLimit;
use super::spring_params::METRES_PER_UNIT;
use super::springs::{ColliderShape, SpringPlan};
use crate::model::Model;
use crate::pose::Transform;
use glam::{Quat, Vec3, Vec3A};

/// A segment shorter than this (MMD units) has no direction to swing.
const MIN_SEGMENT: f32 = 1e-5;

/// Where a plan does not fit its model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpringSimError {
    #[error("spring {spring}, joint {joint}: bone {bone} is not one of the model's {bones} bones")]
    JointBone {
        spring: usize,
        joint: usize,
        bone: usize,
        bones: usize,
    },
    #[error("collider {collider}: bone {bone} is not one of the model's {bones} bones")]
    ColliderBone {
        collider: usize,
        bone: usize,
        bones: usize,
    },
    #[error("spring {spring}: collider group {group} is not one of the plan's {groups} groups")]
    Group {
        spring: usize,
        group: usize,
        groups: usize,
    },
    #[error(
        "collider group {group}: collider {collider} is not one of the plan's {colliders} colliders"
    )]
    GroupCollider {
        group: usize,
        collider: usize,
        colliders: usize,
    },
}

/// A collider where its bone is now (model space, MMD units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WorldCollider {
    Sphere { centre: Vec3, radius: f32 },
    Capsule { start: Vec3, end: Vec3, radius: f32 },
}

/// A simulated joint as it is now, to draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointTail {
    /// Its index in the plan's chain.
    pub joint: usize,
    pub bone: usize,
    pub head: Vec3,
    pub tail: Vec3,
    /// MMD units.
    pub hit_radius: f32,
}

/// What a joint's tail is.
#[derive(Debug, Clone, Copy)]
enum TailPoint {
    /// The next joint's bone.
    Bone(usize),
    /// The chain's tail offset from the last bone (its rest axes, which are the model's).
    Offset(Vec3A),
}

/// The nearest ancestor of a joint's bone that is simulated: its new transform, carried down
/// to the joint's parent, is the parent's transform of this step.
#[derive(Debug, Clone, Copy)]
struct Driver {
    bone: usize,
    slot: usize,
}

#[derive(Debug, Clone)]
struct Joint {
    chain: usize,
    /// Index in the plan's chain.
    plan_joint: usize,
    bone: usize,
    parent: Option<usize>,
    driver: Option<Driver>,
    tail_point: TailPoint,
    /// Unit rest direction to the tail, in the bone's space (the model's axes: no rest
    /// rotation in PMX).
    bone_axis: Vec3A,
    hit_radius: f32,
    /// MMD units a second (a step moves the tail `dt` times as far): the file's setting, in
    /// metres a second, over [`METRES_PER_UNIT`].
    stiffness: f32,
    gravity: f32,
    drag: f32,
    limit: Option<SpringLimit>,
    head: Vec3A,
    tail: Vec3A,
    previous_tail: Vec3A,
    /// The bone's transform of the last step (or reset).
    world: Transform,
}

#[derive(Debug, Clone)]
struct Chain {
    name: String,
    /// Slots of its simulated joints, in the plan's order.
    slots: Vec<usize>,
    /// Indices into the plan's colliders, its groups' in order.
    colliders: Vec<usize>,
}

#[derive(Debug, Clone, Copy)]
struct Collider {
    bone: usize,
    shape: ColliderShape,
}

/// The spring bones of a model, stepped by the VRMC_springBone reference algorithm. Built once
/// per model and plan (rebuild after edits); stepping allocates nothing once `out` has grown.
#[derive(Debug, Clone)]
pub struct SpringSimulation {
    bone_count: usize,
    /// Simulated joints, ancestors before descendants.
    joints: Vec<Joint>,
    /// In the plan's order.
    chains: Vec<Chain>,
    colliders: Vec<Collider>,
    world_colliders: Vec<WorldCollider>,
    started: bool,
}

fn model_point(v: crate::model::Vec3) -> Vec3A {
    Vec3A::from(Vec3::from(v))
}

fn finite_transform(t: &Transform) -> bool {
    t.rotation.is_finite() && t.translation.is_finite()
}

/// A setting as the export writes it: finite, not negative.
fn setting(value: f32) -> f32 {
    if value.is_finite() {
        value.max(0.0)
    } else {
        0.0
    }
}

impl SpringSimulation {
    /// The simulation of `plan`'s springs on `model` (normally `plan_springs(model)`; a plan
    /// built by hand works too, its next joints being descendants of their joints), at rest
    /// until [`reset`](Self::reset) or the first [`step`](Self::step) places it.
    pub fn new(model: &Model, plan: &SpringPlan) -> Result<Self, SpringSimError> {
        let bone_count = model.bones.len();
        for (index, collider) in plan.colliders.iter().enumerate() {
            if collider.bone >= bone_count {
                return Err(SpringSimError::ColliderBone {
                    collider: index,
                    bone: collider.bone,
                    bones: bone_count,
                });
            }
        }
        for (index, group) in plan.groups.iter().enumerate() {
            if let Some(&collider) = group.colliders.iter().find(|&&c| c >= plan.colliders.len()) {
                return Err(SpringSimError::GroupCollider {
                    group: index,
                    collider,
                    colliders: plan.colliders.len(),
                });
            }
        }
        let parent_of = |bone: usize| {
            model.bones[bone]
                .parent
                .map(|p| p.get())
                .filter(|&p| p < bone_count && p != bone)
        };
        let mut chains = Vec::with_capacity(plan.springs.len());
        let mut joints = Vec::new();
        let mut simulated = vec![false; bone_count];
        for (spring_index, spring) in plan.springs.iter().enumerate() {
            let mut colliders = Vec::new();
            for &group in &spring.collider_groups {
                let Some(group) = plan.groups.get(group) else {
                    return Err(SpringSimError::Group {
                        spring: spring_index,
                        group,
                        groups: plan.groups.len(),
                    });
                };
                colliders.extend_from_slice(&group.colliders);
            }
            for (joint_index, joint) in spring.joints.iter().enumerate() {
                if joint.bone >= bone_count {
                    return Err(SpringSimError::JointBone {
                        spring: spring_index,
                        joint: joint_index,
                        bone: joint.bone,
                        bones: bone_count,
                    });
                }
            }
            for (joint_index, joint) in spring.joints.iter().enumerate() {
                let position = model_point(model.bones[joint.bone].position);
                let (tail_point, next) = match spring.joints.get(joint_index + 1) {
                    Some(next) => (
                        TailPoint::Bone(next.bone),
                        model_point(model.bones[next.bone].position),
                    ),
                    None => match spring.tail_offset {
                        Some(offset) => {
                            let offset = Vec3A::from(offset);
                            (TailPoint::Offset(offset), position + offset)
                        }
                        None => continue,
                    },
                };
                let segment = next - position;
                let Some(bone_axis) = segment.try_normalize() else {
                    continue;
                };
                if segment.length() < MIN_SEGMENT || simulated[joint.bone] {
                    continue;
                }
                simulated[joint.bone] = true;
                let limit = joint.mmd_joint.and_then(|mmd_joint| {
                    mmd_joint_limit(model, mmd_joint, position.into(), next.into())
                });
                let settings = joint.settings;
                let rest = Transform::from_translation(position);
                joints.push(Joint {
                    chain: spring_index,
                    plan_joint: joint_index,
                    bone: joint.bone,
                    parent: parent_of(joint.bone),
                    driver: None,
                    tail_point,
                    bone_axis,
                    hit_radius: setting(joint.hit_radius),
                    stiffness: setting(settings.stiffness) / METRES_PER_UNIT,
                    gravity: setting(settings.gravity_power) / METRES_PER_UNIT,
                    drag: if settings.drag_force.is_finite() {
                        settings.drag_force.clamp(0.0, 1.0)
                    } else {
                        0.0
                    },
                    limit,
                    head: position,
                    tail: next,
                    previous_tail: next,
                    world: rest,
                });
            }
            chains.push(Chain {
                name: spring.name.clone(),
                slots: Vec::new(),
                colliders,
            });
        }
        // Ancestors first: a bone's depth in the tree orders it after every ancestor (a bone in
        // a parent loop counts as deep as there are bones).
        let depth = |bone: usize| {
            let mut depth = 0;
            let mut current = bone;
            while let Some(parent) = parent_of(current) {
                depth += 1;
                current = parent;
                if depth >= bone_count {
                    break;
                }
            }
            depth
        };
        joints.sort_by_key(|joint| depth(joint.bone));
        let mut slot_of_bone: Vec<Option<usize>> = vec![None; bone_count];
        for (slot, joint) in joints.iter().enumerate() {
            slot_of_bone[joint.bone] = Some(slot);
            if let Some(chain) = chains.get_mut(joint.chain) {
                chain.slots.push(slot);
            }
        }
        for chain in &mut chains {
            chain.slots.sort_by_key(|&slot| joints[slot].plan_joint);
        }
        for (slot, joint) in joints.iter_mut().enumerate() {
            let mut current = joint.parent;
            let mut steps = 0;
            while let Some(bone) = current {
                if let Some(driver) = slot_of_bone[bone] {
                    // A driver after the joint is a parent loop: the joint's parent is then
                    // taken as the pose has it.
                    if driver < slot {
                        joint.driver = Some(Driver { bone, slot: driver });
                    }
                    break;
                }
                steps += 1;
                if steps >= bone_count {
                    break;
                }
                current = parent_of(bone);
            }
        }
        let colliders: Vec<Collider> = plan
            .colliders
            .iter()
            .map(|c| Collider {
                bone: c.bone,
                shape: c.shape,
            })
            .collect();
        let world_colliders = colliders
            .iter()
            .map(|c| {
                let rest = Transform::from_translation(model_point(model.bones[c.bone].position));
                world_collider(&c.shape, &rest)
            })
            .collect();
        Ok(Self {
            bone_count,
            joints,
            chains,
            colliders,
            world_colliders,
            started: false,
        })
    }

    /// The bones this simulation writes: every simulated joint's.
    pub fn simulated_bones(&self) -> impl Iterator<Item = usize> + '_ {
        self.joints.iter().map(|joint| joint.bone)
    }

    /// Puts every tail where its bone's rest orientation under its parent puts it (the
    /// parents posed by `globals`, chains root first, as three-vrm's reset), with no velocity.
    /// Does nothing when `globals` has fewer transforms than the model has bones.
    pub fn reset(&mut self, globals: &[Transform]) {
        if globals.len() < self.bone_count {
            return;
        }
        self.update_colliders(globals);
        for slot in 0..self.joints.len() {
            let parent_world = self.parent_world(slot, globals);
            let joint = &self.joints[slot];
            let tail = head_and_length(joint, &parent_world, globals)
                .map(|(head, length)| {
                    (
                        head,
                        head + parent_world.rotation * joint.bone_axis * length,
                    )
                })
                .filter(|(_, tail)| finite_transform(&parent_world) && tail.is_finite());
            let Some((head, tail)) = tail else {
                self.hold(slot, &parent_world, globals);
                continue;
            };
            let joint = &mut self.joints[slot];
            joint.head = head;
            joint.tail = tail;
            joint.previous_tail = tail;
            joint.world = Transform {
                rotation: parent_world.rotation,
                translation: head,
            };
        }
        self.started = true;
    }

    /// One step of `dt` seconds (normally [`FRAME_SECONDS`](super::spring_params::FRAME_SECONDS);
    /// see the module documentation) on the pose `globals` (every bone's world transform, as
    /// [`Skeleton::globals`](crate::pose::Skeleton::globals) gives them). Writes into `out`
    /// (cleared first) the new world transform of every simulated bone, ancestors first; the
    /// caller sets those bones' globals and carries each change to the descendants that are
    /// not written. The first step after [`new`](Self::new) starts from
    /// [`reset`](Self::reset). Nothing is written when `globals` has fewer transforms than
    /// the model has bones.
    pub fn step(&mut self, globals: &[Transform], dt: f32, out: &mut Vec<(usize, Transform)>) {
        out.clear();
        if globals.len() < self.bone_count {
            return;
        }
        if !self.started {
            self.reset(globals);
        }
        let advance = dt.is_finite() && dt > 0.0;
        self.update_colliders(globals);
        for slot in 0..self.joints.len() {
            let parent_world = self.parent_world(slot, globals);
            let joint = &self.joints[slot];
            let Some((head, length)) = head_and_length(joint, &parent_world, globals)
                .filter(|_| finite_transform(&parent_world))
            else {
                self.hold(slot, &parent_world, globals);
                continue;
            };
            let parent_rotation = parent_world.rotation;
            let rest_direction = parent_rotation * joint.bone_axis;
            let mut next = joint.tail;
            if advance {
                next += (joint.tail - joint.previous_tail) * (1.0 - joint.drag)
                    + rest_direction * (dt * joint.stiffness)
                    - Vec3A::Y * (dt * joint.gravity);
            }
            let fallback = (joint.tail - head)
                .try_normalize()
                .unwrap_or(rest_direction);
            let mut next = self.within_limit(
                slot,
                head,
                onto_sphere(head, next, length, fallback),
                length,
                parent_rotation,
            );
            let chain = &self.chains[joint.chain];
            for &collider in &chain.colliders {
                let Some(shape) = self.world_colliders.get(collider) else {
                    continue;
                };
                if let Some(pushed) = push_out(shape, next, joint.hit_radius) {
                    let pushed = onto_sphere(head, pushed, length, fallback);
                    next = self.within_limit(slot, head, pushed, length, parent_rotation);
                }
            }
            let joint = &self.joints[slot];
            let to = parent_rotation.inverse() * (next - head);
            let Some(to) = to.try_normalize().filter(|_| next.is_finite()) else {
                self.hold(slot, &parent_world, globals);
                continue;
            };
            let turn = Quat::from_rotation_arc(joint.bone_axis.into(), to.into());
            let world = Transform {
                rotation: (parent_rotation * turn).normalize(),
                translation: head,
            };
            if !finite_transform(&world) {
                self.hold(slot, &parent_world, globals);
                continue;
            }
            let joint = &mut self.joints[slot];
            joint.head = head;
            joint.world = world;
            if advance {
                joint.previous_tail = joint.tail;
                joint.tail = next;
            }
            out.push((joint.bone, world));
        }
    }

    /// The chains, in the plan's order.
    #[must_use]
    pub fn chain_count(&self) -> usize {
        self.chains.len()
    }

    /// A chain's name (its root bone's), `None` past the last chain.
    #[must_use]
    pub fn chain_name(&self, chain: usize) -> Option<&str> {
        self.chains.get(chain).map(|c| c.name.as_str())
    }

    /// A chain's simulated joints as they are now, in the plan's order (none past the last
    /// chain).
    pub fn joint_tails(&self, chain: usize) -> impl Iterator<Item = JointTail> + '_ {
        self.chains
            .get(chain)
            .map_or(&[][..], |c| c.slots.as_slice())
            .iter()
            .map(|&slot| {
                let joint = &self.joints[slot];
                JointTail {
                    joint: joint.plan_joint,
                    bone: joint.bone,
                    head: joint.head.into(),
                    tail: joint.tail.into(),
                    hit_radius: joint.hit_radius,
                }
            })
    }

    /// For each chain (the plan's order), the unit direction from its first simulated joint's
    /// head to its tail; `None` for a chain with nothing to simulate.
    pub fn root_directions(&self) -> impl Iterator<Item = Option<Vec3>> + '_ {
        self.chains.iter().map(|chain| {
            let joint = &self.joints[*chain.slots.first()?];
            (joint.tail - joint.head).try_normalize().map(Vec3::from)
        })
    }

    /// Every collider of the plan (its order), where the last step or reset put it.
    #[must_use]
    pub fn colliders(&self) -> &[WorldCollider] {
        &self.world_colliders
    }

    fn update_colliders(&mut self, globals: &[Transform]) {
        for (collider, world) in self.colliders.iter().zip(&mut self.world_colliders) {
            if let Some(transform) = globals.get(collider.bone).filter(|t| finite_transform(t)) {
                *world = world_collider(&collider.shape, transform);
            }
        }
    }

    /// The transform this step gives the parent of the joint in `slot`: its driver's new one
    /// carried down through the bones between as the pose has them, or the pose's.
    fn parent_world(&self, slot: usize, globals: &[Transform]) -> Transform {
        let joint = &self.joints[slot];
        let Some(parent) = joint.parent else {
            return Transform::IDENTITY;
        };
        let posed = globals[parent];
        match joint.driver {
            Some(driver) if driver.bone == parent => self.joints[driver.slot].world,
            Some(driver) => self.joints[driver.slot]
                .world
                .compose(&globals[driver.bone].inverse().compose(&posed)),
            None => posed,
        }
    }

    /// Keeps the joint in `slot` at its animated rotation under its parent's new transform
    /// (for its descendants), without writing it.
    fn hold(&mut self, slot: usize, parent_world: &Transform, globals: &[Transform]) {
        let joint = &self.joints[slot];
        let posed = globals[joint.bone];
        let local = joint
            .parent
            .map_or(posed, |p| globals[p].inverse().compose(&posed));
        self.joints[slot].world = parent_world.compose(&local);
    }

    /// `next` (on the joint's sphere) brought within the joint's limit.
    fn within_limit(
        &self,
        slot: usize,
        head: Vec3A,
        next: Vec3A,
        length: f32,
        parent_rotation: Quat,
    ) -> Vec3A {
        let joint = &self.joints[slot];
        let Some(limit) = &joint.limit else {
            return next;
        };
        let Some(direction) = (next - head).try_normalize() else {
            return next;
        };
        let limited = apply_limit_in_mmd_space(
            limit,
            direction.into(),
            parent_rotation,
            joint.bone_axis.into(),
        );
        let limited = head + Vec3A::from(limited) * length;
        if limited.is_finite() { limited } else { next }
    }
}

/// The joint's head where its parent's new transform puts it, and its length to the tail point
/// as the pose has them; `None` when the segment has no length or the head is not finite.
fn head_and_length(
    joint: &Joint,
    parent_world: &Transform,
    globals: &[Transform],
) -> Option<(Vec3A, f32)> {
    let posed = globals[joint.bone];
    let local = match joint.parent {
        Some(parent) => globals[parent].inverse().transform_point(posed.translation),
        None => posed.translation,
    };
    let head = parent_world.transform_point(local);
    let length = match joint.tail_point {
        TailPoint::Bone(bone) => (globals[bone].translation - posed.translation).length(),
        TailPoint::Offset(offset) => offset.length(),
    };
    (head.is_finite() && length.is_finite() && length >= MIN_SEGMENT).then_some((head, length))
}

/// `point` moved along the line from `head` onto the sphere of `length` about it; a point on
/// the head goes along `fallback` (a unit vector).
fn onto_sphere(head: Vec3A, point: Vec3A, length: f32, fallback: Vec3A) -> Vec3A {
    head + (point - head).try_normalize().unwrap_or(fallback) * length
}

fn world_collider(shape: &ColliderShape, transform: &Transform) -> WorldCollider {
    let place = |offset: Vec3| Vec3::from(transform.transform_point(offset.into()));
    match *shape {
        ColliderShape::Sphere { offset, radius } => WorldCollider::Sphere {
            centre: place(offset),
            radius,
        },
        ColliderShape::Capsule {
            offset,
            tail,
            radius,
        } => WorldCollider::Capsule {
            start: place(offset),
            end: place(tail),
            radius,
        },
    }
}

/// Where the spec's collision puts a tail whose hit sphere (`hit_radius`) is inside
/// `collider`: out along the line from the collider's nearest point until they touch. `None`
/// when they do not touch, or the direction is undefined (the tail on that point).
fn push_out(collider: &WorldCollider, tail: Vec3A, hit_radius: f32) -> Option<Vec3A> {
    let (nearest, radius) = match *collider {
        WorldCollider::Sphere { centre, radius } => (Vec3A::from(centre), radius),
        WorldCollider::Capsule { start, end, radius } => {
            let (start, end) = (Vec3A::from(start), Vec3A::from(end));
            let axis = end - start;
            let along = axis.dot(tail - start);
            // three-vrm's `<=` (the spec writes `<`): a capsule of no length is its start's
            // sphere instead of a division by zero.
            let nearest = if along <= 0.0 {
                start
            } else if along >= axis.length_squared() {
                end
            } else {
                start + axis * (along / axis.length_squared())
            };
            (nearest, radius)
        }
    };
    let delta = tail - nearest;
    let distance = delta.length() - radius - hit_radius;
    if distance < 0.0 {
        Some(tail - delta.try_normalize()? * distance)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    // Test code: a failed expectation is the test failing.
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::model::{Bone, BoneIdx, RigidBody, RigidBodyIdx, RigidMode, RigidShape};
    use crate::physics::mmd_limit::{mirror_direction, mirror_rotation};
    use crate::physics::spring_limit::LimitShape;
    use crate::physics::spring_params::FRAME_SECONDS;
    use crate::physics::springs::plan_springs;

    /// MMD units per chain segment.
    const SEGMENT: f32 = 2.0;
    /// The hit radius of the chain's bodies (capsules of this radius).
    const HIT: f32 = 0.2;

    /// How the chain's MMD joints hold it: their rotation spring and limits (MMD radians, per
    /// axis of an unturned joint frame; lower above upper leaves an axis free).
    #[derive(Clone, Copy)]
    struct Holding {
        spring: f32,
        lower: [f32; 3],
        upper: [f32; 3],
    }

    const FREE: [f32; 3] = [1.0, 1.0, 1.0];
    const FREE_UPPER: [f32; 3] = [-1.0, -1.0, -1.0];

    /// Bone 0 (the parent, at (0, 11, 0)) and under it a chain of `segments` bones SEGMENT
    /// units long from (0, 10, 0) along `direction`, and a tip; on each chain bone a physics
    /// capsule (radius HIT, mass 1, damping 0.9), in group 1 and colliding with every group,
    /// hung on the previous one by an MMD joint when `holding` says how (else no joints: no
    /// spring, no limit).
    fn chain_model(direction: Vec3, segments: usize, holding: Option<Holding>) -> Model {
        let mut model = Model::new_empty();
        model.bones.push(Bone {
            name_ja: "親".into(),
            position: Vec3::new(0.0, 11.0, 0.0).into(),
            ..Bone::default()
        });
        let start = Vec3::new(0.0, 10.0, 0.0);
        for i in 0..=segments {
            model.bones.push(Bone {
                name_ja: format!("鎖{}", i + 1).into(),
                position: (start + direction * SEGMENT * i as f32).into(),
                parent: Some(BoneIdx::new(i)),
                ..Bone::default()
            });
        }
        for i in 0..segments {
            model.rigid_bodies.push(RigidBody {
                name_ja: format!("鎖{}", i + 1).into(),
                bone: Some(BoneIdx::new(i + 1)),
                group: 1,
                non_collision_mask: 0xFFFF,
                shape: RigidShape::Capsule,
                size: Vec3::new(HIT, SEGMENT - 2.0 * HIT, 0.0).into(),
                position: (start + direction * SEGMENT * (i as f32 + 0.5)).into(),
                mass: 1.0,
                linear_damping: 0.9,
                angular_damping: 0.9,
                mode: RigidMode::Physics,
                ..RigidBody::default()
            });
            if let Some(holding) = holding {
                model.joints.push(crate::model::Joint {
                    name_ja: format!("鎖{}", i + 1).into(),
                    body_a: i.checked_sub(1).map(RigidBodyIdx::new),
                    body_b: Some(RigidBodyIdx::new(i)),
                    position: (start + direction * SEGMENT * i as f32).into(),
                    rotate_lower: holding.lower.into(),
                    rotate_upper: holding.upper.into(),
                    spring_rotate: [holding.spring; 3].into(),
                    ..crate::model::Joint::default()
                });
            }
        }
        model
    }

    /// A static sphere collider of `radius` at `centre` on the parent bone, in group 0.
    fn add_sphere(model: &mut Model, centre: Vec3, radius: f32) {
        model.rigid_bodies.push(RigidBody {
            name_ja: "球".into(),
            bone: Some(BoneIdx::new(0)),
            group: 0,
            shape: RigidShape::Sphere,
            size: Vec3::new(radius, 0.0, 0.0).into(),
            position: centre.into(),
            mode: RigidMode::FollowBone,
            ..RigidBody::default()
        });
    }

    fn rest_globals(model: &Model) -> Vec<Transform> {
        model
            .bones
            .iter()
            .map(|b| Transform::from_translation(model_point(b.position)))
            .collect()
    }

    /// Every transform moved by `motion` (the whole model moved rigidly).
    fn moved(globals: &[Transform], motion: &Transform) -> Vec<Transform> {
        globals.iter().map(|g| motion.compose(g)).collect()
    }

    fn simulation(model: &Model) -> SpringSimulation {
        SpringSimulation::new(model, &plan_springs(model)).expect("the plan fits the model")
    }

    /// Each simulated joint's unit direction head → tail, in slot order.
    fn directions(sim: &SpringSimulation) -> Vec<Vec3> {
        sim.joints
            .iter()
            .map(|j| Vec3::from((j.tail - j.head).normalize()))
            .collect()
    }

    fn run(sim: &mut SpringSimulation, globals: &[Transform], steps: usize) {
        let mut out = Vec::new();
        for _ in 0..steps {
            sim.step(globals, FRAME_SECONDS, &mut out);
        }
    }

    #[test]
    fn one_step_moves_the_tail_by_the_setting_in_metres() {
        // From rest, no velocity, no stiffness: gravity moves the tail down by
        // Δt·gravityPower metres = Δt·gravityPower / 0.08 units, then back onto the bone's
        // sphere: the bone turns down by atan(drop / length).
        let model = chain_model(Vec3::X, 1, None);
        let plan = plan_springs(&model);
        let settings = plan.springs[0].joints[0].settings;
        assert_eq!(settings.stiffness, 0.0);
        assert!(settings.gravity_power > 0.1, "{settings:?}");
        let mut sim = SpringSimulation::new(&model, &plan).unwrap();
        let mut out = Vec::new();
        sim.step(&rest_globals(&model), FRAME_SECONDS, &mut out);
        let drop = FRAME_SECONDS * settings.gravity_power / METRES_PER_UNIT;
        let expected = (drop / SEGMENT).atan();
        assert_eq!(out.len(), 1);
        let (bone, world) = out[0];
        assert_eq!(bone, 1);
        let turned = world.rotation * Vec3::X;
        let angle = (-turned.y).atan2(turned.x);
        assert!(
            (angle - expected).abs() < 1e-6,
            "turned {angle} rad, expected {expected} (drop {drop} units)"
        );
        // In metres without the conversion the drop would be 12.5 times smaller.
        assert!(expected > 5.0 * (drop * METRES_PER_UNIT / SEGMENT).atan());
        assert_eq!(Vec3::from(world.translation), Vec3::new(0.0, 10.0, 0.0));
    }

    #[test]
    fn without_stiffness_a_level_chain_hangs_straight_down() {
        let model = chain_model(Vec3::X, 3, None);
        let mut sim = simulation(&model);
        let globals = rest_globals(&model);
        let mut out = Vec::new();
        for _ in 0..1200 {
            sim.step(&globals, FRAME_SECONDS, &mut out);
        }
        assert_eq!(out.len(), 3);
        // The chain's joints move together: each head is where the previous tail is.
        let joints: Vec<JointTail> = sim.joint_tails(0).collect();
        for pair in joints.windows(2) {
            assert!(pair[1].head.distance(pair[0].tail) < 1e-5, "{pair:?}");
        }
        for (direction, (bone, world)) in directions(&sim).into_iter().zip(&out) {
            let degrees = direction.angle_between(-Vec3::Y).to_degrees();
            assert!(degrees < 1.0, "bone {bone}: {degrees}° from straight down");
            // The bone's rotation takes its rest axis (+X) onto the tail direction.
            let axis = world.rotation * Vec3::X;
            assert!(axis.angle_between(direction) < 1e-4, "bone {bone}: {axis}");
        }
    }

    #[test]
    fn a_chain_hanging_straight_down_under_front_hair_limits_stays_hanging() {
        // sd_mei's front hair (左前髪１): its root hangs straight down from (0.565, 12.646,
        // −2.562) to y = 11.124, where normalizing the segment gives (0, −0.99999994, 0); its
        // MMD joints swing −20°..0° about X and ±5° about Z (a spherical limit turned 10°),
        // with a stiff rotation spring. The limit's frame once came out pointing up there and
        // held the hair straight up.
        let holding = Holding {
            spring: 50.0,
            lower: [-20f32.to_radians(), 0.0, -5f32.to_radians()],
            upper: [0.0, 0.0, 5f32.to_radians()],
        };
        let (head, drop) = (Vec3::new(0.565_215_5, 12.645_788, -2.562_32), 1.521_438);
        for (label, tilt) in [
            ("straight down", Vec3::ZERO),
            ("1e-6 towards +X", Vec3::new(1e-6, 0.0, 0.0)),
            ("1e-6 towards −Z", Vec3::new(0.0, 0.0, -1e-6)),
        ] {
            let mut model = chain_model(-Vec3::Y, 3, Some(holding));
            for (i, bone) in model.bones.iter_mut().skip(1).enumerate() {
                let step = i as f32;
                bone.position = (head + (tilt - Vec3::Y) * drop * step).into();
            }
            let mut sim = simulation(&model);
            if tilt == Vec3::ZERO {
                // The f32 noise of the sd_mei case is really there.
                assert_eq!(sim.joints[0].bone_axis, Vec3A::new(0.0, -0.999_999_94, 0.0));
            }
            let limit = sim.joints[0].limit.expect("a limit");
            assert!(
                matches!(limit.shape, LimitShape::Spherical { pitch, yaw }
                    if (pitch - 10f32.to_radians()).abs() < 1e-5
                        && (yaw - 5f32.to_radians()).abs() < 1e-5),
                "{label}: {limit:?}"
            );
            let globals = rest_globals(&model);
            let mut out = Vec::new();
            for step in 0..600 {
                sim.step(&globals, FRAME_SECONDS, &mut out);
                for (joint, direction) in directions(&sim).into_iter().enumerate() {
                    let degrees = direction.angle_between(-Vec3::Y).to_degrees();
                    assert!(
                        degrees < 1.0,
                        "{label}, step {step}, joint {joint}: {degrees}° from straight down"
                    );
                }
            }
            // The bones' rotations say the same: each takes its rest axis onto its tail.
            for (joint, (_, world)) in sim.joints.iter().zip(&out) {
                let axis = world.rotation * Vec3::from(joint.bone_axis);
                assert!(
                    axis.angle_between(-Vec3::Y) < 1f32.to_radians(),
                    "{label}: {axis}"
                );
            }
        }
    }

    #[test]
    fn with_stiffness_a_level_chain_settles_where_the_algorithm_balances() {
        // At rest the inertia is 0 and the step's pull P = Δt·(s·A − g·Y) (A: the parent's
        // rotation × the rest axis) must be along the tail direction d, or the projection back
        // onto the sphere moves the tail: d = normalize(s·A − g·Y). The first joint's parent
        // does not turn, so A = +X; each next joint's A is its parent's d (its rotation turns
        // +X onto d). The prediction uses the plan's settings, so it holds whatever they are.
        let holding = Holding {
            spring: 60.0,
            lower: FREE,
            upper: FREE_UPPER,
        };
        let model = chain_model(Vec3::X, 3, Some(holding));
        let plan = plan_springs(&model);
        let mut sim = SpringSimulation::new(&model, &plan).unwrap();
        assert!(sim.joints.iter().all(|j| j.limit.is_none()), "free joints");
        run(&mut sim, &rest_globals(&model), 1200);
        let mut axis = Vec3::X;
        for (k, direction) in directions(&sim).into_iter().enumerate() {
            let settings = plan.springs[0].joints[k].settings;
            assert!(settings.stiffness > 0.0 && settings.gravity_power > 0.0);
            let predicted =
                (axis * settings.stiffness - Vec3::Y * settings.gravity_power).normalize();
            let below = (-predicted.y).asin().to_degrees();
            // Neither level nor hanging: a chain that did not bend, or only hung, fails.
            assert!(
                (1.0..89.0).contains(&below),
                "joint {k}: {below}° is no test"
            );
            eprintln!("joint {k}: predicted {below:.3}° below level");
            let off = direction.angle_between(predicted);
            assert!(
                off < 1e-3,
                "joint {k}: {direction} is {off} rad from the predicted {predicted} ({below}° down)"
            );
            axis = predicted;
        }
    }

    /// How far (radians) `local` (a unit direction in the limit's space) is outside `shape`.
    /// Angles by `atan2`: `acos` of a dot product near 1 is off by up to 5e-4 rad in `f32`.
    fn outside(shape: LimitShape, local: Vec3) -> f32 {
        let turned = local.z.atan2(local.y).abs();
        let tilted = local.x.atan2(local.y.hypot(local.z)).abs();
        match shape {
            LimitShape::Cone { angle } => (local.x.hypot(local.z).atan2(local.y) - angle).max(0.0),
            LimitShape::Hinge { angle } => tilted.max(turned - angle).max(0.0),
            LimitShape::Spherical { pitch, yaw } => (turned - pitch).max(tilted - yaw).max(0.0),
        }
    }

    /// How far (radians) the simulated joints are now outside `limits` (one per simulated
    /// joint, slot order) at worst, measured in each limit's own space (its frame: the
    /// parent's rotation as the last step `out` and the pose `globals` have it, the rest
    /// axis, the limit's rotation, in the file's axes).
    fn excursion(
        sim: &SpringSimulation,
        limits: &[Option<SpringLimit>],
        globals: &[Transform],
        out: &[(usize, Transform)],
    ) -> f32 {
        let mut worst = 0.0f32;
        for (joint, limit) in sim.joints.iter().zip(limits) {
            let Some(limit) = limit else { continue };
            let parent_rotation = joint.parent.map_or(Quat::IDENTITY, |parent| {
                out.iter()
                    .find(|(bone, _)| *bone == parent)
                    .map_or(globals[parent].rotation, |(_, world)| world.rotation)
            });
            let frame = limit.frame(
                mirror_rotation(parent_rotation),
                mirror_direction(joint.bone_axis.into()),
            );
            let direction = Vec3::from((joint.tail - joint.head).normalize());
            let local = frame.inverse() * mirror_direction(direction);
            worst = worst.max(outside(limit.shape, local));
        }
        worst
    }

    /// The worst [`excursion`] over `steps` steps of `sim` on `globals`.
    fn worst_excursion(
        sim: &mut SpringSimulation,
        limits: &[Option<SpringLimit>],
        globals: &[Transform],
        steps: usize,
    ) -> f32 {
        let mut out = Vec::new();
        let mut worst = 0.0f32;
        for _ in 0..steps {
            sim.step(globals, FRAME_SECONDS, &mut out);
            worst = worst.max(excursion(sim, limits, globals, &out));
        }
        worst
    }

    #[test]
    fn limits_hold_while_gravity_pulls_out_of_them() {
        // A level chain along +X whose parent is turned 45° about X: every limit frame is
        // turned with it, so gravity pulls out of each limit both ways.
        let tilt = Transform {
            rotation: Quat::from_rotation_x(std::f32::consts::FRAC_PI_4),
            translation: Vec3A::ZERO,
        };
        let cases = [
            ("hinge", [0.0, -0.5, 0.0], [0.0, 0.5, 0.0]),
            ("cone", [0.0, -0.4, -0.4], [0.0, 0.4, 0.4]),
            ("spherical", [0.0, -0.2, -0.6], [0.0, 0.2, 0.6]),
        ];
        for (name, lower, upper) in cases {
            let holding = Holding {
                spring: 5.0,
                lower,
                upper,
            };
            let model = chain_model(Vec3::X, 3, Some(holding));
            let globals = moved(&rest_globals(&model), &tilt);
            let mut sim = simulation(&model);
            for joint in &sim.joints {
                let shape = joint.limit.expect("a limit").shape;
                let kind = match shape {
                    LimitShape::Cone { .. } => "cone",
                    LimitShape::Hinge { .. } => "hinge",
                    LimitShape::Spherical { .. } => "spherical",
                };
                assert_eq!(kind, name, "{shape:?}");
            }
            let limits: Vec<Option<SpringLimit>> = sim.joints.iter().map(|j| j.limit).collect();
            let mut free = sim.clone();
            for joint in &mut free.joints {
                joint.limit = None;
            }
            let worst = worst_excursion(&mut sim, &limits, &globals, 600);
            assert!(worst <= 1e-4, "{name}: {worst} rad outside the limit");
            // The same chain without limits goes well outside them: the test can fail.
            let free_worst = worst_excursion(&mut free, &limits, &globals, 600);
            if name == "hinge" {
                // In the world: the MMD joint turns only about its Y, which the parent turned
                // to R·Y, so the first bone stays in the plane across R·Y, pressed 0.5 rad
                // from +X by gravity.
                let root = &sim.joints[0];
                assert_eq!(root.bone, 1);
                let direction = Vec3::from((root.tail - root.head).normalize());
                let across = tilt.rotation * Vec3::Y;
                assert!(direction.dot(across).abs() < 1e-4, "{direction}");
                let swing = direction.angle_between(Vec3::X);
                assert!((swing - 0.5).abs() < 1e-3, "{swing} rad from +X");
            }
            eprintln!("{name}: at most {worst:e} rad outside; without limits {free_worst} rad");
            assert!(free_worst > 0.1, "{name}: free chain only {free_worst} out");
        }
    }

    /// For each of `steps` steps, the nearest any tail's hit sphere comes to the sphere
    /// (`centre`, `radius`): its distance minus the radius and the hit radius (negative inside).
    fn gaps(
        sim: &mut SpringSimulation,
        globals: &[Transform],
        centre: Vec3,
        radius: f32,
        steps: usize,
    ) -> Vec<f32> {
        let mut out = Vec::new();
        (0..steps)
            .map(|_| {
                sim.step(globals, FRAME_SECONDS, &mut out);
                sim.joint_tails(0)
                    .map(|joint| joint.tail.distance(centre) - radius - joint.hit_radius)
                    .fold(f32::INFINITY, f32::min)
            })
            .collect()
    }

    #[test]
    fn a_sphere_under_a_hanging_chain_keeps_its_tails_out() {
        // A chain hanging straight down through a sphere just beside it: the second tail
        // rests 0.6 from the centre, inside radius 1 + hit radius 0.2.
        let centre = Vec3::new(0.6, 6.0, 0.0);
        let mut model = chain_model(-Vec3::Y, 3, None);
        add_sphere(&mut model, centre, 1.0);
        let plan = plan_springs(&model);
        assert_eq!(plan.colliders.len(), 1);
        assert_eq!(plan.springs[0].collider_groups, vec![0]);
        let mut sim = SpringSimulation::new(&model, &plan).unwrap();
        assert_eq!(
            sim.colliders(),
            &[WorldCollider::Sphere {
                centre,
                radius: 1.0
            }]
        );
        let globals = rest_globals(&model);
        let gap_per_step = gaps(&mut sim, &globals, centre, 1.0, 600);
        // The spec pushes a tail onto the sphere of radius + hit radius, then back onto its
        // bone's sphere, which leaves it inside by that move's sagitta. At the first step the
        // tail goes to (−0.6, 6), then about its head at (0, 8) to 1.2 − |(1.1747, 0.0843)|
        // = 0.0223 units inside; swinging back onto the sphere it is 0.0092 inside (step 24),
        // and resting on it, pulled in by gravity each step, 0.0006.
        let first = gap_per_step[0];
        assert!((first + 0.0223).abs() < 1e-3, "{first}");
        let worst = gap_per_step.iter().copied().fold(f32::INFINITY, f32::min);
        let resting = gap_per_step[500..]
            .iter()
            .copied()
            .fold(f32::INFINITY, f32::min);
        eprintln!("first step {first}, worst {worst}, resting {resting} units");
        assert!(worst >= -0.025, "a tail {worst} units inside");
        assert!(resting >= -1e-3, "a resting tail {resting} units inside");
        // The chain went round: its second tail is on the far side from the sphere.
        let second = sim.joint_tails(0).nth(1).unwrap();
        assert!(second.tail.x < -0.5, "{}", second.tail);
        // Without the collider the tail stays inside: the test can fail.
        for body in &mut model.rigid_bodies {
            body.non_collision_mask = !1;
        }
        let mut free = simulation(&model);
        let inside = gaps(&mut free, &globals, centre, 1.0, 600);
        assert!(inside[599] < -0.5, "{}", inside[599]);
    }

    #[test]
    fn capsule_collisions_push_from_the_nearest_point_of_the_segment() {
        let capsule = WorldCollider::Capsule {
            start: Vec3::ZERO,
            end: Vec3::new(4.0, 0.0, 0.0),
            radius: 1.0,
        };
        // Beside the middle: pushed straight out to radius + hit radius.
        let pushed = push_out(&capsule, Vec3A::new(2.0, 0.5, 0.0), 0.5).unwrap();
        assert!(
            (pushed - Vec3A::new(2.0, 1.5, 0.0)).length() < 1e-6,
            "{pushed}"
        );
        // Past the end: away from the end's centre.
        let pushed = push_out(&capsule, Vec3A::new(5.0, 0.0, 1.0), 0.5).unwrap();
        let expected = Vec3A::new(4.0, 0.0, 0.0) + Vec3A::new(1.0, 0.0, 1.0).normalize() * 1.5;
        assert!((pushed - expected).length() < 1e-6, "{pushed}");
        // Clear of it, on its axis (no direction) and on a capsule of no length: no NaN.
        assert_eq!(push_out(&capsule, Vec3A::new(2.0, 2.0, 0.0), 0.5), None);
        assert_eq!(push_out(&capsule, Vec3A::new(2.0, 0.0, 0.0), 0.5), None);
        let point = WorldCollider::Capsule {
            start: Vec3::ONE,
            end: Vec3::ONE,
            radius: 1.0,
        };
        let pushed = push_out(&point, Vec3A::new(1.5, 1.0, 1.0), 0.0).unwrap();
        assert!(
            (pushed - Vec3A::new(2.0, 1.0, 1.0)).length() < 1e-6,
            "{pushed}"
        );
    }

    /// A model moving through the steps: turned about Y and carried along X.
    fn motion(step: usize) -> Transform {
        let t = step as f32 * FRAME_SECONDS;
        Transform {
            rotation: Quat::from_rotation_y(0.8 * (2.0 * t).sin()),
            translation: Vec3A::new(3.0 * (3.0 * t).sin(), 0.0, 0.0),
        }
    }

    #[test]
    fn the_same_input_gives_bit_identical_steps() {
        let holding = Holding {
            spring: 30.0,
            lower: [0.0, -0.4, -0.4],
            upper: [0.0, 0.4, 0.4],
        };
        let mut model = chain_model(Vec3::new(1.0, -1.0, 0.5).normalize(), 4, Some(holding));
        add_sphere(&mut model, Vec3::new(2.0, 7.0, 0.0), 1.0);
        let rest = rest_globals(&model);
        let mut first = simulation(&model);
        let mut second = simulation(&model);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let bits = |out: &[(usize, Transform)]| -> Vec<u32> {
            out.iter()
                .flat_map(|(bone, t)| {
                    let mut v = vec![*bone as u32];
                    v.extend(t.rotation.to_array().map(f32::to_bits));
                    v.extend(t.translation.to_array().map(f32::to_bits));
                    v
                })
                .collect()
        };
        let mut moved_at_all = false;
        for step in 0..600 {
            let globals = moved(&rest, &motion(step));
            first.step(&globals, FRAME_SECONDS, &mut a);
            second.step(&globals, FRAME_SECONDS, &mut b);
            assert_eq!(a.len(), 4);
            assert_eq!(bits(&a), bits(&b), "step {step}");
            moved_at_all |= a
                .iter()
                .any(|(_, t)| t.rotation.angle_between(Quat::IDENTITY) > 0.3);
        }
        assert!(moved_at_all, "the chain never swung: nothing was compared");
    }

    #[test]
    fn degenerate_input_is_held_never_nan() {
        let mut model = chain_model(Vec3::X, 3, None);
        // The tip on the last bone: that segment has no length and is not simulated.
        model.bones[4].position = model.bones[3].position;
        // A sphere centred exactly on the first rest tail, of no radius.
        add_sphere(&mut model, Vec3::new(2.0, 10.0, 0.0), 0.0);
        let mut sim = simulation(&model);
        assert_eq!(sim.simulated_bones().collect::<Vec<_>>(), vec![1, 2]);
        let rest = rest_globals(&model);
        let mut out = Vec::new();
        let finite = |out: &[(usize, Transform)]| out.iter().all(|(_, t)| finite_transform(t));
        for _ in 0..60 {
            sim.step(&rest, FRAME_SECONDS, &mut out);
            assert!(finite(&out) && out.len() == 2);
        }
        // A parent that is not a number: the chain is held, nothing is written.
        let mut broken = rest.clone();
        broken[0].translation = Vec3A::NAN;
        broken[0].rotation = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
        sim.step(&broken, FRAME_SECONDS, &mut out);
        assert!(out.is_empty(), "{out:?}");
        // Back to a sound pose, and steps of no time, negative time and NaN time.
        for dt in [FRAME_SECONDS, 0.0, -1.0, f32::NAN, f32::INFINITY] {
            let before: Vec<Vec3> = sim.joint_tails(0).map(|j| j.tail).collect();
            sim.step(&rest, dt, &mut out);
            assert!(finite(&out) && out.len() == 2, "dt {dt}: {out:?}");
            assert!(sim.joint_tails(0).all(|j| j.tail.is_finite()));
            if !(dt > 0.0 && dt.is_finite()) {
                let after: Vec<Vec3> = sim.joint_tails(0).map(|j| j.tail).collect();
                assert_eq!(before, after, "dt {dt} moved a tail");
            }
        }
        // Too few transforms: nothing written, nothing read past the end.
        sim.step(&rest[..2], FRAME_SECONDS, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn a_plan_that_does_not_fit_the_model_is_an_error() {
        let model = chain_model(Vec3::X, 2, None);
        let mut plan = plan_springs(&model);
        plan.springs[0].joints[1].bone = 99;
        assert_eq!(
            SpringSimulation::new(&model, &plan).unwrap_err(),
            SpringSimError::JointBone {
                spring: 0,
                joint: 1,
                bone: 99,
                bones: 4
            }
        );
        let mut plan = plan_springs(&model);
        plan.springs[0].collider_groups.push(3);
        assert!(matches!(
            SpringSimulation::new(&model, &plan),
            Err(SpringSimError::Group { group: 3, .. })
        ));
    }

    #[test]
    fn chains_read_back_for_drawing() {
        let model = chain_model(-Vec3::Y, 2, None);
        let mut sim = simulation(&model);
        assert_eq!(sim.chain_count(), 1);
        assert_eq!(sim.chain_name(0), Some("鎖1"));
        assert_eq!(sim.chain_name(1), None);
        let rest = rest_globals(&model);
        sim.reset(&rest);
        let tails: Vec<JointTail> = sim.joint_tails(0).collect();
        assert_eq!(tails.len(), 2);
        assert_eq!(tails[1].joint, 1);
        assert_eq!(tails[1].bone, 2);
        assert_eq!(tails[1].head, Vec3::new(0.0, 8.0, 0.0));
        assert_eq!(tails[1].tail, Vec3::new(0.0, 6.0, 0.0));
        assert_eq!(tails[1].hit_radius, HIT);
        assert_eq!(sim.joint_tails(5).count(), 0);
        let roots: Vec<Option<Vec3>> = sim.root_directions().collect();
        assert_eq!(roots, vec![Some(-Vec3::Y)]);
    }

    fn corpus(path: &str) -> Option<Vec<u8>> {
        let file = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../shared/corpus")
            .join(path);
        match std::fs::read(&file) {
            Ok(bytes) => Some(bytes),
            Err(error) => {
                eprintln!("skipped: {} is absent ({error})", file.display());
                None
            }
        }
    }

    #[test]
    fn corpus_models_step_without_nan_or_stretch() {
        for (name, springs) in [
            ("pmx/pmxeditor_gene_cc_by.pmx", 38),
            ("pmx/blender2pmxem_sample_finish_physics.pmx", 0),
        ] {
            let Some(bytes) = corpus(name) else { continue };
            let (model, _) =
                crate::formats::pmx::read(&bytes, &crate::formats::LoadOptions::default()).unwrap();
            let plan = plan_springs(&model);
            if springs > 0 {
                assert_eq!(plan.springs.len(), springs, "{name}");
            }
            let mut sim = SpringSimulation::new(&model, &plan).unwrap();
            let simulated = sim.simulated_bones().count();
            assert!(simulated > 0, "{name}");
            let rest = rest_globals(&model);
            let limits: Vec<Option<SpringLimit>> = sim.joints.iter().map(|j| j.limit).collect();
            let mut out = Vec::new();
            let mut longest = 0.0f32;
            let mut outside_limits = 0.0f32;
            for step in 0..600 {
                let globals = moved(&rest, &motion(step));
                sim.step(&globals, FRAME_SECONDS, &mut out);
                outside_limits = outside_limits.max(excursion(&sim, &limits, &globals, &out));
                assert_eq!(out.len(), simulated, "{name}, step {step}");
                for (bone, world) in &out {
                    assert!(
                        finite_transform(world),
                        "{name}: bone {bone} at step {step}"
                    );
                    assert!((world.rotation.length() - 1.0).abs() < 1e-4);
                }
                for joint in &sim.joints {
                    let length = match joint.tail_point {
                        TailPoint::Bone(tail) => {
                            (rest[tail].translation - rest[joint.bone].translation).length()
                        }
                        TailPoint::Offset(offset) => offset.length(),
                    };
                    assert!(joint.tail.is_finite() && joint.head.is_finite(), "{name}");
                    let stretch = (joint.tail - joint.head).length() - length;
                    longest = longest.max(stretch);
                    assert!(
                        stretch <= 1e-3,
                        "{name}: bone {} stretched by {stretch}",
                        joint.bone
                    );
                }
            }
            assert!(
                outside_limits <= 1e-4,
                "{name}: {outside_limits} rad outside a limit"
            );
            eprintln!(
                "{name}: {} springs, {simulated} simulated joints ({} limited), {} colliders; \
                 longest stretch {longest:e}, at most {outside_limits:e} rad outside a limit",
                plan.springs.len(),
                limits.iter().flatten().count(),
                plan.colliders.len()
            );
        }
    }

    #[test]
    fn an_imported_vrm_s_springs_are_its_plan_s() {
        // The import makes each VRM 1.0 spring segment a body and joint; planning the imported
        // model gives back each segment (node → next node) as a simulated joint, with the
        // file's stiffness and hit radius (gravityPower is MMD's gravity on the body there:
        // the import does not keep the file's).
        for name in [
            "vrm/metalkit_smoke_spring_vrm1.vrm",
            "vrm/metalkit_springbone_capsule_collider_vrm1.vrm",
        ] {
            let Some(bytes) = corpus(name) else { continue };
            let (json, _) = crate::formats::vrm::split_glb(&bytes).unwrap();
            let options = crate::formats::LoadOptions::default();
            let model = crate::formats::vrm::read_vrm(&bytes, &options)
                .unwrap()
                .model;
            let plan = plan_springs(&model);
            let sim = SpringSimulation::new(&model, &plan).unwrap();
            let bone_named = |name: &str| {
                model
                    .bones
                    .iter()
                    .position(|b| b.name_ja.as_str() == name)
                    .unwrap_or_else(|| panic!("{name}: a bone named {name}"))
            };
            let nodes = json["nodes"].as_array().unwrap();
            let springs = json["extensions"]["VRMC_springBone"]["springs"]
                .as_array()
                .unwrap();
            let mut segments = 0;
            for spring in springs {
                let joints = spring["joints"].as_array().unwrap();
                for pair in joints.windows(2) {
                    let node_name = |joint: &serde_json::Value| {
                        nodes[joint["node"].as_u64().unwrap() as usize]["name"]
                            .as_str()
                            .unwrap()
                            .to_owned()
                    };
                    let (head, tail) = (
                        bone_named(&node_name(&pair[0])),
                        bone_named(&node_name(&pair[1])),
                    );
                    let joint = sim
                        .joints
                        .iter()
                        .find(|j| j.bone == head)
                        .unwrap_or_else(|| panic!("{name}: bone {head} not simulated"));
                    assert!(matches!(joint.tail_point, TailPoint::Bone(b) if b == tail));
                    let number = |key: &str| pair[0][key].as_f64().unwrap() as f32;
                    let stiffness = joint.stiffness * METRES_PER_UNIT;
                    assert!(
                        (stiffness - number("stiffness")).abs()
                            < 1e-4 * number("stiffness").max(1.0),
                        "{name}: stiffness {stiffness} for {}",
                        number("stiffness")
                    );
                    let hit = number("hitRadius") / METRES_PER_UNIT;
                    assert!(
                        (joint.hit_radius - hit.max(0.05)).abs() < 1e-4,
                        "{name}: {}",
                        joint.hit_radius
                    );
                    segments += 1;
                }
            }
            assert_eq!(sim.simulated_bones().count(), segments, "{name}");
            eprintln!(
                "{name}: {segments} segments, {} colliders",
                plan.colliders.len()
            );
        }
    }
}
