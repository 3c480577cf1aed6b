//! Which spring chains and colliders a model's MMD physics becomes (VRMC_springBone), in MMD
//! space and units: the exporter converts positions and lengths and writes the JSON.
//!
//! - **Chains** follow the bone tree through the bones that carry a physics body (modes 1 and
//!   2): a chain starts at such a bone whose parent carries none, goes on through the first
//!   child that carries one (other such children start chains of their own), and ends with the
//!   first child of its last bone as the tail; without a child, the last bone's tail offset
//!   (表示先) is the tail, for the exporter to make a leaf node of (a chain with neither has no
//!   tail; the report says so).
//! - **Each joint** gets the settings of `spring_params` from its body and the MMD joint that
//!   hangs the body on its parent (the joint whose `body_b` it is; the spring constant is the mean
//!   of the two rotation springs across the bone), and a hit radius from the body's size.
//! - **Colliders** come from the bodies that follow their bones (mode 0): spheres stay spheres,
//!   capsules stay capsules along their local Y, boxes become the capsule along their longest
//!   axis (a sphere when the box is nearly a cube). They are grouped by MMD collision group, and
//!   a chain collides with the groups its bodies' non-collision masks leave on.

use super::spring_params::{SpringSettings, SwingingBody, spring_settings};
use crate::model::facts::euler_to_quat;
use crate::model::{BoneFlags, Model, RigidMode, RigidShape};
use glam::{Quat, Vec3};

/// A model vector as glam's.
fn g(v: crate::model::Vec3) -> Vec3 {
    v.into()
}

/// A box whose longest half extent is within this ratio of its shortest is a sphere collider.
const CUBE_RATIO: f32 = 1.25;

/// A chain of spring joints, root first; the last joint is the tail.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedSpring {
    /// The root bone's name.
    pub name: String,
    pub joints: Vec<PlannedJoint>,
    /// Indices into [`SpringPlan::groups`].
    pub collider_groups: Vec<usize>,
    /// When the last bone has no child but a tail offset (PMX's 表示先 as an offset): that
    /// offset (MMD units, from the last bone), which the exporter makes a leaf node for the
    /// chain's tail. The last joint's settings are derived with the segment to it.
    pub tail_offset: Option<Vec3>,
}

/// One joint of a chain.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedJoint {
    pub bone: usize,
    /// The physics body on the bone (`None` for the tail).
    pub body: Option<usize>,
    /// The MMD joint that hangs the body on its parent, when there is one.
    pub mmd_joint: Option<usize>,
    /// MMD units.
    pub hit_radius: f32,
    pub settings: SpringSettings,
}

/// A collider's shape in its bone's space (MMD axes; bones have no rest rotation in PMX, so the
/// offsets are the body's position minus the bone's), MMD units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ColliderShape {
    Sphere {
        offset: Vec3,
        radius: f32,
    },
    Capsule {
        offset: Vec3,
        tail: Vec3,
        radius: f32,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct PlannedCollider {
    pub bone: usize,
    pub body: usize,
    pub shape: ColliderShape,
}

/// The colliders of one MMD collision group.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedColliderGroup {
    pub mmd_group: u8,
    /// Indices into [`SpringPlan::colliders`].
    pub colliders: Vec<usize>,
}

/// What the planner noticed.
#[derive(Debug, Clone, PartialEq)]
pub enum SpringNote {
    /// A physics body without a bone: nothing for a spring to move.
    BodyWithoutBone { body: usize },
    /// A chain's last bone has no child to be its tail.
    NoTail { bone: usize },
    /// A follow-bone body without a bone: no collider.
    ColliderWithoutBone { body: usize },
    /// A physics body on a weight (錘) bone: a bone that moves no vertex, hung below a chain
    /// bone that does, there only to pull the chain down in MMD's physics. It is no joint: as
    /// one it made a segment from the chain to wherever the weight sits (7.5 m on a real
    /// cloak).
    WeightBody { body: usize, bone: usize },
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SpringPlan {
    pub springs: Vec<PlannedSpring>,
    pub colliders: Vec<PlannedCollider>,
    pub groups: Vec<PlannedColliderGroup>,
    pub notes: Vec<SpringNote>,
}

/// [`SwingingBody::gravity_lever`] of a body whose centre is `centre` from the bone's head,
/// the bone pointing along `direction` (unit): the horizontal part of the centre's direction
/// along the horizontal part of the bone's, over the latter's length squared. A bone that
/// (nearly) hangs straight down has no lever to compare with: 1.
#[must_use]
pub fn gravity_lever(centre: Vec3, direction: Vec3) -> f32 {
    let bone = Vec3::new(direction.x, 0.0, direction.z);
    let centre = centre.normalize_or_zero();
    let body = Vec3::new(centre.x, 0.0, centre.z);
    let bone_lever = bone.length_squared();
    if bone_lever < 0.05 * 0.05 || centre == Vec3::ZERO {
        return 1.0;
    }
    body.dot(bone) / bone_lever
}

fn is_dynamic(mode: RigidMode) -> bool {
    matches!(mode, RigidMode::Physics | RigidMode::PhysicsWithBone)
}

/// The radius a spring joint touches colliders with: the body's thickness across the bone.
#[must_use]
pub fn hit_radius(shape: RigidShape, size: Vec3) -> f32 {
    let [x, y, z] = size.to_array().map(f32::abs);
    match shape {
        RigidShape::Box => {
            // The two smaller half extents (the longest runs along the bone).
            let mut sorted = [x, y, z];
            sorted.sort_by(f32::total_cmp);
            (sorted[0] + sorted[1]) / 2.0
        }
        RigidShape::Sphere | RigidShape::Capsule | RigidShape::Unknown(_) => x,
    }
}

/// The collider shape of a follow-bone body, relative to `bone_position`.
#[must_use]
pub fn collider_shape(
    shape: RigidShape,
    size: Vec3,
    position: Vec3,
    rotation: Vec3,
    bone_position: Vec3,
) -> ColliderShape {
    let centre = position - bone_position;
    let turn: Quat = euler_to_quat(rotation.into());
    let [x, y, z] = size.to_array().map(f32::abs);
    match shape {
        RigidShape::Capsule => {
            let half = turn * Vec3::new(0.0, y / 2.0, 0.0);
            ColliderShape::Capsule {
                offset: centre - half,
                tail: centre + half,
                radius: x,
            }
        }
        RigidShape::Box => {
            let extents = [x, y, z];
            let (longest, &length) = extents
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1))
                .unwrap_or((0, &x));
            let others: Vec<f32> = extents
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != longest)
                .map(|(_, v)| *v)
                .collect();
            let radius = (others[0] + others[1]) / 2.0;
            let shortest = others[0].min(others[1]);
            if length <= shortest * CUBE_RATIO {
                return ColliderShape::Sphere {
                    offset: centre,
                    radius: (x + y + z) / 3.0,
                };
            }
            let mut axis = Vec3::ZERO;
            axis[longest] = 1.0;
            // The capsule's round ends reach the box's ends: its segment is shorter by the
            // radius at each end.
            let half = turn * axis * (length - radius).max(0.0);
            ColliderShape::Capsule {
                offset: centre - half,
                tail: centre + half,
                radius,
            }
        }
        RigidShape::Sphere | RigidShape::Unknown(_) => ColliderShape::Sphere {
            offset: centre,
            radius: x,
        },
    }
}

/// The springs and colliders of `model`'s physics.
#[must_use]
pub fn plan_springs(model: &Model) -> SpringPlan {
    let mut plan = SpringPlan::default();
    let bone_count = model.bones.len();
    // The physics body on each bone (the first, when a bone has several).
    let mut body_of_bone: Vec<Option<usize>> = vec![None; bone_count];
    for (index, body) in model.rigid_bodies.iter().enumerate() {
        if !is_dynamic(body.mode) {
            continue;
        }
        match body.bone.map(|b| b.get()).filter(|&b| b < bone_count) {
            Some(bone) => {
                if body_of_bone[bone].is_none() {
                    body_of_bone[bone] = Some(index);
                }
            }
            None => plan.notes.push(SpringNote::BodyWithoutBone { body: index }),
        }
    }
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); bone_count];
    for (index, bone) in model.bones.iter().enumerate() {
        if let Some(parent) = bone.parent.map(|p| p.get()).filter(|&p| p < bone_count) {
            children[parent].push(index);
        }
    }
    let parent_of = |bone: usize| {
        model.bones[bone]
            .parent
            .map(|p| p.get())
            .filter(|&p| p < bone_count)
    };
    let dynamic = |bone: usize| body_of_bone[bone].is_some();
    let deforms = skinned_bones(model);
    // Whether a bone or one below it moves vertices (children come after parents in most
    // models, so one pass from the end settles nearly all; a second catches the rest).
    let mut moves_vertices = deforms.clone();
    for _ in 0..2 {
        for bone in (0..bone_count).rev() {
            if moves_vertices[bone]
                && let Some(parent) = parent_of(bone)
            {
                moves_vertices[parent] = true;
            }
        }
    }
    // A weight bone: a physics bone below a physics bone that moves vertices, moving none
    // itself (nor do the bones below it). A chain
    // of bones that move no vertex at all (hair of a model without skin weights, accessories)
    // is left as its bodies make it.
    let weight_bone = |bone: usize| {
        dynamic(bone)
            && !moves_vertices[bone]
            && parent_of(bone).is_some_and(|p| deforms[p] && dynamic(p))
    };
    for bone in (0..bone_count).filter(|&b| weight_bone(b)) {
        if let Some(body) = body_of_bone[bone] {
            plan.notes.push(SpringNote::WeightBody { body, bone });
        }
    }
    let mut roots: Vec<usize> = (0..bone_count)
        .filter(|&b| dynamic(b) && !weight_bone(b) && !parent_of(b).is_some_and(dynamic))
        .collect();
    let mut index = 0;
    while index < roots.len() {
        let root = roots[index];
        index += 1;
        let mut bones = vec![root];
        let mut current = root;
        loop {
            let mut next = children[current]
                .iter()
                .copied()
                .filter(|&c| dynamic(c) && !weight_bone(c));
            match next.next() {
                Some(first) => {
                    // Further children with bodies start chains of their own.
                    roots.extend(next);
                    bones.push(first);
                    current = first;
                }
                None => break,
            }
        }
        // The display tail when it is a child, else the first child that is no weight bone.
        let display_tail = model.bones[current]
            .flags
            .contains(BoneFlags::TAIL_IS_BONE)
            .then_some(model.bones[current].tail_bone)
            .flatten()
            .map(|t| t.get())
            .filter(|&t| children[current].contains(&t));
        let tail =
            display_tail.or_else(|| children[current].iter().copied().find(|&c| !weight_bone(c)));
        // Without a child bone, the display tail: a tail bone elsewhere in the tree cannot be
        // a spring joint's child, but an offset can become a leaf node.
        let tail_offset = if tail.is_none() {
            let last = &model.bones[current];
            let offset = g(last.tail_offset);
            let usable = !last.flags.contains(BoneFlags::TAIL_IS_BONE)
                && offset.is_finite()
                && offset.length_squared() > 1e-12;
            usable.then_some(offset)
        } else {
            None
        };
        if tail.is_none() && tail_offset.is_none() {
            plan.notes.push(SpringNote::NoTail { bone: current });
        }
        let mut joints: Vec<PlannedJoint> = bones
            .iter()
            .enumerate()
            .map(|(i, &bone)| {
                let next = match bones.get(i + 1).copied().or(tail) {
                    Some(next) => Some(g(model.bones[next].position)),
                    None => tail_offset.map(|offset| g(model.bones[bone].position) + offset),
                };
                planned_joint(model, bone, body_of_bone[bone], next)
            })
            .collect();
        if let Some(tail) = tail {
            joints.push(PlannedJoint {
                bone: tail,
                body: None,
                mmd_joint: None,
                hit_radius: joints.last().map_or(0.0, |j| j.hit_radius),
                settings: joints.last().map_or(
                    SpringSettings {
                        stiffness: 0.0,
                        drag_force: 0.0,
                        gravity_power: 0.0,
                    },
                    |j| j.settings,
                ),
            });
        }
        plan.springs.push(PlannedSpring {
            name: model.bones[root].name_ja.as_str().into_owned(),
            joints,
            collider_groups: Vec::new(),
            tail_offset,
        });
    }
    colliders(model, &mut plan);
    plan
}

/// Which bones some vertex has a weight on.
fn skinned_bones(model: &Model) -> Vec<bool> {
    use crate::model::Weight;
    let mut skinned = vec![false; model.bones.len()];
    let mut mark = |bone: Option<crate::model::BoneIdx>, weight: f32| {
        if weight > 0.0
            && let Some(slot) = bone.and_then(|b| skinned.get_mut(b.get()))
        {
            *slot = true;
        }
    };
    for vertex in &model.vertices {
        match &vertex.weight {
            Weight::Bdef1 { bone } => mark(*bone, 1.0),
            Weight::Bdef2 { bones, weight } | Weight::Sdef { bones, weight, .. } => {
                mark(bones[0], *weight);
                mark(bones[1], 1.0 - *weight);
            }
            Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
                for (bone, weight) in bones.iter().zip(weights) {
                    mark(*bone, *weight);
                }
            }
        }
    }
    skinned
}

fn planned_joint(
    model: &Model,
    bone: usize,
    body: Option<usize>,
    next: Option<Vec3>,
) -> PlannedJoint {
    let position = g(model.bones[bone].position);
    let length = next.map_or(0.0, |n| (n - position).length());
    let direction = next
        .map(|n| n - position)
        .filter(|d| d.length_squared() > 0.0)
        .map_or(Vec3::ZERO, Vec3::normalize);
    let Some(body_index) = body else {
        return PlannedJoint {
            bone,
            body: None,
            mmd_joint: None,
            hit_radius: 0.0,
            settings: SpringSettings {
                stiffness: 0.0,
                drag_force: 0.0,
                gravity_power: 0.0,
            },
        };
    };
    let body = &model.rigid_bodies[body_index];
    let mmd_joint = model
        .joints
        .iter()
        .position(|j| j.body_b.map(|b| b.get()) == Some(body_index));
    let spring = mmd_joint.map_or(0.0, |j| swing_spring(&model.joints[j], direction));
    let settings = spring_settings(&SwingingBody {
        mass: body.mass,
        shape: body.shape,
        size: body.size.to_array(),
        centre_distance: (g(body.position) - position).length(),
        linear_damping: body.linear_damping,
        angular_damping: body.angular_damping,
        spring,
        bone_length: length,
        rest_down_cosine: -direction.y,
        // The body turns about its joint (where one hangs it), not about the bone's head.
        gravity_lever: gravity_lever(
            g(body.position) - mmd_joint.map_or(position, |j| g(model.joints[j].position)),
            direction,
        ),
    });
    PlannedJoint {
        bone,
        body: Some(body_index),
        mmd_joint,
        hit_radius: hit_radius(body.shape, g(body.size)),
        settings,
    }
}

/// The mean of the joint's rotation springs about the two axes of its frame most across
/// `bone_direction` (the third turns the bone about itself, which a spring cannot).
fn swing_spring(joint: &crate::model::Joint, bone_direction: Vec3) -> f32 {
    let frame = euler_to_quat(joint.rotation);
    let axes = [frame * Vec3::X, frame * Vec3::Y, frame * Vec3::Z];
    let twist = (0..3)
        .max_by(|&a, &b| {
            axes[a]
                .dot(bone_direction)
                .abs()
                .total_cmp(&axes[b].dot(bone_direction).abs())
        })
        .unwrap_or(1);
    let springs = joint.spring_rotate.to_array();
    let swing: Vec<f32> = (0..3)
        .filter(|&i| i != twist)
        .map(|i| springs[i].abs())
        .collect();
    (swing[0] + swing[1]) / 2.0
}

fn colliders(model: &Model, plan: &mut SpringPlan) {
    let bone_count = model.bones.len();
    for (index, body) in model.rigid_bodies.iter().enumerate() {
        if is_dynamic(body.mode) {
            continue;
        }
        let Some(bone) = body.bone.map(|b| b.get()).filter(|&b| b < bone_count) else {
            plan.notes
                .push(SpringNote::ColliderWithoutBone { body: index });
            continue;
        };
        let shape = collider_shape(
            body.shape,
            g(body.size),
            g(body.position),
            g(body.rotation),
            g(model.bones[bone].position),
        );
        plan.colliders.push(PlannedCollider {
            bone,
            body: index,
            shape,
        });
        let collider = plan.colliders.len() - 1;
        match plan.groups.iter_mut().find(|g| g.mmd_group == body.group) {
            Some(group) => group.colliders.push(collider),
            None => plan.groups.push(PlannedColliderGroup {
                mmd_group: body.group,
                colliders: vec![collider],
            }),
        }
    }
    plan.groups.sort_by_key(|g| g.mmd_group);
    // A chain collides with the groups any of its bodies' masks leave on. The file's mask has
    // a bit set for each group the body collides with (PmxEditor's 非衝突グループ are the
    // cleared bits; real files hold 0xFFFF, 0xFFFE, ...).
    for spring in &mut plan.springs {
        let mut open = 0u16;
        for joint in &spring.joints {
            if let Some(body) = joint.body.and_then(|b| model.rigid_bodies.get(b)) {
                open |= body.non_collision_mask;
            }
        }
        spring.collider_groups = plan
            .groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.mmd_group < 16 && open & (1 << g.mmd_group) != 0)
            .map(|(i, _)| i)
            .collect();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::model::{Bone, BoneIdx, Joint, RigidBody, RigidBodyIdx, Vec3 as MVec3};

    /// A head bone with a static sphere, and a hair chain of three bones (two with physics
    /// bodies) hanging from it, plus a tip.
    fn hair_model() -> Model {
        let mut model = Model::new_empty();
        let bone = |name: &str, y: f32, parent: Option<usize>| Bone {
            name_ja: name.into(),
            position: MVec3::new(0.0, y, 0.0),
            parent: parent.map(BoneIdx::new),
            ..Bone::default()
        };
        model.bones = vec![
            bone("頭", 16.0, None),
            bone("髪1", 15.0, Some(0)),
            bone("髪2", 13.0, Some(1)),
            bone("髪先", 11.0, Some(2)),
        ];
        model.rigid_bodies = vec![
            RigidBody {
                name_ja: "頭".into(),
                bone: Some(BoneIdx::new(0)),
                group: 0,
                shape: RigidShape::Sphere,
                size: MVec3::new(1.5, 0.0, 0.0),
                position: MVec3::new(0.0, 16.5, 0.0),
                mode: RigidMode::FollowBone,
                ..RigidBody::default()
            },
            RigidBody {
                name_ja: "髪1".into(),
                bone: Some(BoneIdx::new(1)),
                group: 1,
                non_collision_mask: !(1 << 1),
                shape: RigidShape::Capsule,
                size: MVec3::new(0.3, 1.4, 0.0),
                position: MVec3::new(0.0, 14.0, 0.0),
                mass: 1.0,
                linear_damping: 0.9,
                angular_damping: 0.99,
                mode: RigidMode::Physics,
                ..RigidBody::default()
            },
            RigidBody {
                name_ja: "髪2".into(),
                bone: Some(BoneIdx::new(2)),
                group: 1,
                non_collision_mask: !(1 << 1),
                shape: RigidShape::Capsule,
                size: MVec3::new(0.25, 1.4, 0.0),
                position: MVec3::new(0.0, 12.0, 0.0),
                mass: 1.0,
                linear_damping: 0.9,
                angular_damping: 0.99,
                mode: RigidMode::Physics,
                ..RigidBody::default()
            },
        ];
        model.joints = vec![
            Joint {
                name_ja: "髪1".into(),
                body_a: Some(RigidBodyIdx::new(0)),
                body_b: Some(RigidBodyIdx::new(1)),
                spring_rotate: MVec3::new(10.0, 100.0, 30.0),
                ..Joint::default()
            },
            Joint {
                name_ja: "髪2".into(),
                body_a: Some(RigidBodyIdx::new(1)),
                body_b: Some(RigidBodyIdx::new(2)),
                ..Joint::default()
            },
        ];
        model
    }

    #[test]
    fn the_gravity_lever_is_the_body_centres_sideways_share_of_the_bones() {
        let sloping = Vec3::new(0.6, -0.8, 0.0);
        // Along the bone: the whole lever.
        assert!((gravity_lever(sloping * 0.5, sloping) - 1.0).abs() < 1e-6);
        // Straight below the joint (Gene's back hair): gravity does not turn it at rest.
        assert_eq!(gravity_lever(Vec3::new(0.0, -0.3, 0.0), sloping), 0.0);
        // Half as far out to the side at the same height: half the lever.
        let half = gravity_lever(Vec3::new(0.3, -0.8, 0.0), sloping);
        let expected = (0.3 / Vec3::new(0.3, -0.8, 0.0).length()) / 0.6;
        assert!((half - expected).abs() < 1e-5, "{half} vs {expected}");
        // A bone that hangs straight down has no lever to share: unchanged.
        assert_eq!(gravity_lever(Vec3::new(0.5, -1.0, 0.0), Vec3::NEG_Y), 1.0);
    }

    #[test]
    fn a_hair_chain_becomes_one_spring_with_its_tip_as_tail() {
        let plan = plan_springs(&hair_model());
        assert_eq!(plan.springs.len(), 1);
        let spring = &plan.springs[0];
        assert_eq!(spring.name, "髪1");
        let bones: Vec<usize> = spring.joints.iter().map(|j| j.bone).collect();
        assert_eq!(bones, vec![1, 2, 3]);
        assert_eq!(spring.joints[0].body, Some(1));
        assert_eq!(spring.joints[0].mmd_joint, Some(0));
        assert_eq!(spring.joints[2].body, None, "the tip is the tail");
        assert_eq!(spring.joints[0].hit_radius, 0.3);
        // The first joint's spring: the chain hangs along −Y, so the joint's Y spring (100)
        // twists the bone and is left out: (10 + 30) / 2 = 20 on its body.
        let expected = spring_settings(&SwingingBody {
            mass: 1.0,
            shape: RigidShape::Capsule,
            size: [0.3, 1.4, 0.0],
            centre_distance: 1.0,
            linear_damping: 0.9,
            angular_damping: 0.99,
            spring: 20.0,
            bone_length: 2.0,
            rest_down_cosine: 1.0,
            gravity_lever: 1.0,
        });
        assert_eq!(spring.joints[0].settings, expected);
        assert!(expected.stiffness > 0.0 && expected.gravity_power > 0.0);
        assert!(plan.notes.is_empty(), "{:?}", plan.notes);
    }

    #[test]
    fn the_head_is_a_collider_the_hair_collides_with() {
        let plan = plan_springs(&hair_model());
        assert_eq!(plan.colliders.len(), 1);
        assert_eq!(
            plan.colliders[0].shape,
            ColliderShape::Sphere {
                offset: Vec3::new(0.0, 0.5, 0.0),
                radius: 1.5
            }
        );
        assert_eq!(plan.groups.len(), 1);
        assert_eq!(plan.groups[0].mmd_group, 0);
        assert_eq!(plan.springs[0].collider_groups, vec![0]);
        // Masking group 0 on every hair body leaves the spring without colliders.
        let mut model = hair_model();
        for body in &mut model.rigid_bodies[1..] {
            body.non_collision_mask = !0b11;
        }
        assert!(plan_springs(&model).springs[0].collider_groups.is_empty());
    }

    #[test]
    fn branches_start_chains_of_their_own_and_a_tailless_end_is_noted() {
        let mut model = hair_model();
        // A second strand from 髪1, with a body but no child.
        model.bones.push(Bone {
            name_ja: "髪1b".into(),
            position: MVec3::new(1.0, 13.0, 0.0),
            parent: Some(BoneIdx::new(1)),
            ..Bone::default()
        });
        model.rigid_bodies.push(RigidBody {
            bone: Some(BoneIdx::new(4)),
            mode: RigidMode::PhysicsWithBone,
            mass: 1.0,
            ..RigidBody::default()
        });
        let plan = plan_springs(&model);
        let names: Vec<&str> = plan.springs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, vec!["髪1", "髪1b"]);
        assert_eq!(plan.springs[1].joints.len(), 1);
        assert!(plan.notes.contains(&SpringNote::NoTail { bone: 4 }));
    }

    #[test]
    fn every_physics_body_of_the_corpus_is_in_exactly_one_spring() {
        let dir =
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/pmx");
        if !dir.is_dir() {
            eprintln!("skipped: corpus folder {} is absent", dir.display());
            return;
        }
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().and_then(|e| e.to_str()) != Some("pmx") {
                continue;
            }
            let Ok((model, _)) = crate::formats::pmx::read(
                &std::fs::read(&path).unwrap(),
                &crate::formats::LoadOptions::default(),
            ) else {
                continue;
            };
            let plan = plan_springs(&model);
            let mut in_springs: Vec<usize> = plan
                .springs
                .iter()
                .flat_map(|s| s.joints.iter().filter_map(|j| j.body))
                .collect();
            in_springs.sort_unstable();
            let before = in_springs.len();
            in_springs.dedup();
            assert_eq!(
                before,
                in_springs.len(),
                "{}: a body in two springs",
                path.display()
            );
            let with_bones = |dynamic: bool| {
                model
                    .rigid_bodies
                    .iter()
                    .filter(|b| is_dynamic(b.mode) == dynamic)
                    .filter(|b| b.bone.is_some_and(|i| i.get() < model.bones.len()))
                    .count()
            };
            // Bodies sharing a bone: the first one swings it.
            let mut dynamic_bones: Vec<usize> = model
                .rigid_bodies
                .iter()
                .filter(|b| is_dynamic(b.mode))
                .filter_map(|b| b.bone.map(|i| i.get()).filter(|&i| i < model.bones.len()))
                .collect();
            dynamic_bones.sort_unstable();
            dynamic_bones.dedup();
            let weight_bones: Vec<usize> = plan
                .notes
                .iter()
                .filter_map(|n| match n {
                    SpringNote::WeightBody { bone, .. } => Some(*bone),
                    _ => None,
                })
                .collect();
            dynamic_bones.retain(|b| !weight_bones.contains(b));
            assert_eq!(in_springs.len(), dynamic_bones.len(), "{}", path.display());
            assert_eq!(
                plan.colliders.len(),
                with_bones(false),
                "{}",
                path.display()
            );
            for spring in &plan.springs {
                for joint in &spring.joints {
                    let settings = joint.settings;
                    assert!(
                        settings.stiffness.is_finite()
                            && (0.0..=1.0).contains(&settings.drag_force)
                            && settings.gravity_power.is_finite(),
                        "{}: {settings:?}",
                        path.display()
                    );
                }
            }
            eprintln!(
                "{}: {} springs, {} joints, {} colliders in {} groups",
                path.file_name().unwrap().to_string_lossy(),
                plan.springs.len(),
                plan.springs.iter().map(|s| s.joints.len()).sum::<usize>(),
                plan.colliders.len(),
                plan.groups.len()
            );
        }
    }

    #[test]
    fn boxes_become_capsules_along_their_longest_side_or_spheres() {
        let long = collider_shape(
            RigidShape::Box,
            Vec3::new(0.5, 3.0, 0.5),
            Vec3::new(0.0, 10.0, 0.0),
            Vec3::ZERO,
            Vec3::new(0.0, 8.0, 0.0),
        );
        assert_eq!(
            long,
            ColliderShape::Capsule {
                offset: Vec3::new(0.0, -0.5, 0.0),
                tail: Vec3::new(0.0, 4.5, 0.0),
                radius: 0.5
            }
        );
        let cube = collider_shape(
            RigidShape::Box,
            Vec3::new(1.0, 1.1, 0.9),
            Vec3::ZERO,
            Vec3::ZERO,
            Vec3::ZERO,
        );
        assert_eq!(
            cube,
            ColliderShape::Sphere {
                offset: Vec3::ZERO,
                radius: 1.0
            }
        );
        // A capsule turned 90° about Z lies along X.
        let lying = collider_shape(
            RigidShape::Capsule,
            Vec3::new(0.2, 2.0, 0.0),
            Vec3::ZERO,
            Vec3::new(0.0, 0.0, std::f32::consts::FRAC_PI_2),
            Vec3::ZERO,
        );
        let ColliderShape::Capsule {
            offset,
            tail,
            radius,
        } = lying
        else {
            panic!("a capsule")
        };
        assert!(
            (offset - Vec3::new(1.0, 0.0, 0.0)).length() < 1e-5,
            "{offset}"
        );
        assert!((tail - Vec3::new(-1.0, 0.0, 0.0)).length() < 1e-5, "{tail}");
        assert_eq!(radius, 0.2);
    }
}
