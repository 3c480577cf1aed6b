//! The MMD physics as `VRMC_springBone` (with `VRMC_springBone_limit` on the joints), and the
//! append (付与) rotations as `VRMC_node_constraint`.
//!
//! What becomes what is decided in MMD space by [`crate::physics::springs::plan_springs`] (the
//! chains, each joint's settings derived from its body and MMD joint, the colliders and their
//! groups); this module runs it on the T-posed model, so every position is already where the
//! VRM's rest pose has it, and writes it in glTF space. Nodes carry no rest rotation (see
//! `write.rs`), so a node's local axes are the world's and offsets are world directions.
//!
//! **Limits.** A spring joint limits the direction of the segment from its node to the next
//! joint's, as the MMD joint that hangs the joint's body on its parent body limits that body's
//! rotation: [`crate::physics::mmd_limit::mmd_joint_limit`], the function the spring preview
//! (`physics::spring_sim`) limits its joints with, so the file and the preview agree.

use super::METRES_PER_MMD_UNIT;
use super::humanoid::{BoneRole, HumanoidMap, exported_ancestor};
use super::limit::limit_json;
use super::report::{SpringCounts, VrmLoss};
use super::to_gltf;
use crate::model::{BoneFlags, Model, RigidMode};
use crate::physics::mmd_limit::mmd_joint_limit;
use crate::physics::spring_limit::LimitShape;
use crate::physics::springs::{ColliderShape, SpringNote, plan_springs};
use glam::Vec3;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// The `VRMC_springBone` extension version written.
pub const SPRING_BONE_VERSION: &str = "1.0";

/// The `VRMC_node_constraint` extension version written.
pub const NODE_CONSTRAINT_VERSION: &str = "1.0";

/// A leaf node made for a chain's tail where the last bone has a tail offset but no child.
pub(super) struct TailNode {
    pub parent: usize,
    pub name: String,
    /// glTF translation from the parent node (metres).
    pub translation: [f32; 3],
}

/// The `VRMC_springBone` object (`None` when the model has no spring to write) and the tail
/// nodes it refers to, to be appended to the nodes in order.
pub(super) struct SpringBones {
    pub extension: Option<Value>,
    pub counts: SpringCounts,
    pub tail_nodes: Vec<TailNode>,
}

/// An MMD offset as a glTF JSON vector (metres, z mirrored).
fn offset_json(v: Vec3) -> Value {
    json!(to_gltf(v).map(f64::from))
}

/// The node a bone's things hang on: its own, the bone its weights follow, or the nearest
/// exported ancestor's.
fn carrier_node(
    model: &Model,
    map: &HumanoidMap,
    node_of_bone: &[Option<usize>],
    bone: usize,
) -> Option<(usize, usize)> {
    let bone = match map.roles.get(bone) {
        Some(BoneRole::Node) => bone,
        Some(BoneRole::Redirected { to }) => *to,
        _ => exported_ancestor(model, bone, |b| {
            node_of_bone.get(b).copied().flatten().is_some()
        })?,
    };
    node_of_bone.get(bone).copied().flatten().map(|n| (n, bone))
}

/// The spring bones of `model` (T-posed). `node_of_bone` maps model bones to glTF nodes;
/// `first_free_node` is the index the first tail node will have.
pub(super) fn spring_bones(
    model: &Model,
    map: &HumanoidMap,
    node_of_bone: &[Option<usize>],
    first_free_node: usize,
    losses: &mut Vec<VrmLoss>,
) -> SpringBones {
    let plan = plan_springs(model);
    let mut counts = SpringCounts::default();
    let bone_position = |b: usize| -> Vec3 { model.bones[b].position.into() };

    let humanoid: BTreeSet<usize> = map.bones.values().copied().collect();
    let mut springs = Vec::new();
    let mut used_mmd_joints = BTreeSet::new();
    let mut carried_bodies = BTreeSet::new();
    let mut cut_chains = Vec::new();
    let mut tail_nodes = Vec::new();
    for spring in &plan.springs {
        // The chain as far as its bones are non-humanoid nodes: IK or redirected bones cannot
        // swing, and humanoid bones are posed by the application, not by a spring.
        let nodes: Vec<usize> = spring
            .joints
            .iter()
            .map_while(|joint| {
                (matches!(map.roles.get(joint.bone), Some(BoneRole::Node))
                    && !humanoid.contains(&joint.bone))
                .then(|| node_of_bone[joint.bone])
                .flatten()
            })
            .collect();
        let whole = nodes.len() == spring.joints.len();
        if !whole {
            cut_chains.push(spring.name.clone());
        }
        let planned = &spring.joints[..nodes.len()];
        // The tail offset becomes a leaf node under the last bone's.
        let tail = match (whole, spring.tail_offset, nodes.last()) {
            (true, Some(offset), Some(&parent)) => {
                let last = planned.last().map_or(0, |j| j.bone);
                let end = model.bones[last].position.into();
                Some((parent, offset, end))
            }
            _ => None,
        };
        if nodes.len() + usize::from(tail.is_some()) < 2 {
            continue;
        }
        let mut joints = Vec::with_capacity(planned.len() + 1);
        let next_position = |i: usize| -> Option<Vec3> {
            match planned.get(i + 1) {
                Some(next) => Some(bone_position(next.bone)),
                None => tail.map(|(_, offset, end): (usize, Vec3, Vec3)| end + offset),
            }
        };
        for (i, (joint, &node)) in planned.iter().zip(&nodes).enumerate() {
            let settings = joint.settings;
            let mut object = json!({
                "node": node,
                "hitRadius": f64::from((joint.hit_radius * METRES_PER_MMD_UNIT).max(0.0)),
                "stiffness": f64::from(settings.stiffness.max(0.0)),
                "gravityPower": f64::from(settings.gravity_power.max(0.0)),
                "gravityDir": [0.0, -1.0, 0.0],
                "dragForce": f64::from(settings.drag_force.clamp(0.0, 1.0)),
            });
            if let Some(body) = joint.body {
                carried_bodies.insert(body);
            }
            if let Some(mmd_joint) = joint.mmd_joint {
                used_mmd_joints.insert(mmd_joint);
            }
            if let (Some(mmd_joint), Some(next)) = (joint.mmd_joint, next_position(i))
                && let Some(limit) =
                    mmd_joint_limit(model, mmd_joint, bone_position(joint.bone), next)
            {
                match limit.shape {
                    LimitShape::Cone { .. } => counts.cone_limits += 1,
                    LimitShape::Hinge { .. } => counts.hinge_limits += 1,
                    LimitShape::Spherical { .. } => counts.spherical_limits += 1,
                }
                object["extensions"] = json!({ "VRMC_springBone_limit": limit_json(&limit) });
            }
            joints.push(object);
        }
        if let (Some((parent, offset, _)), Some(last)) = (tail, planned.last()) {
            let node = first_free_node + tail_nodes.len();
            tail_nodes.push(TailNode {
                parent,
                name: format!("{}先", model.bones[last.bone].name_ja),
                translation: to_gltf(offset),
            });
            joints.push(json!({
                "node": node,
                "hitRadius": f64::from((last.hit_radius * METRES_PER_MMD_UNIT).max(0.0)),
            }));
        }
        counts.joints += joints.len();
        springs.push((json!({ "name": spring.name, "joints": joints }), spring));
    }
    // Only the colliders some spring collides with: three-vrm and UniVRM load no others, and
    // unused ones would only cost the runtimes time.
    let used_groups: BTreeSet<usize> = springs
        .iter()
        .flat_map(|(_, spring)| spring.collider_groups.iter().copied())
        .collect();
    let used_colliders: BTreeSet<usize> = used_groups
        .iter()
        .filter_map(|&g| plan.groups.get(g))
        .flat_map(|group| group.colliders.iter().copied())
        .collect();
    // Colliders: each on its bone's node (or the node carrying the bone), offsets relative to it.
    let mut collider_index: Vec<Option<usize>> = vec![None; plan.colliders.len()];
    let mut colliders = Vec::new();
    for (i, collider) in plan.colliders.iter().enumerate() {
        if !used_colliders.contains(&i) {
            continue;
        }
        let Some((node, carrier)) = carrier_node(model, map, node_of_bone, collider.bone) else {
            continue;
        };
        let shift = bone_position(collider.bone) - bone_position(carrier);
        let shape = match collider.shape {
            ColliderShape::Sphere { offset, radius } => json!({ "sphere": {
                "offset": offset_json(offset + shift),
                "radius": f64::from(radius * METRES_PER_MMD_UNIT),
            }}),
            ColliderShape::Capsule {
                offset,
                tail,
                radius,
            } => json!({ "capsule": {
                "offset": offset_json(offset + shift),
                "radius": f64::from(radius * METRES_PER_MMD_UNIT),
                "tail": offset_json(tail + shift),
            }}),
        };
        collider_index[i] = Some(colliders.len());
        colliders.push(json!({ "node": node, "shape": shape }));
    }
    let mut group_index: Vec<Option<usize>> = vec![None; plan.groups.len()];
    let mut groups = Vec::new();
    for (i, group) in plan.groups.iter().enumerate() {
        if !used_groups.contains(&i) {
            continue;
        }
        let members: Vec<usize> = group
            .colliders
            .iter()
            .filter_map(|&c| collider_index.get(c).copied().flatten())
            .collect();
        if members.is_empty() {
            continue;
        }
        group_index[i] = Some(groups.len());
        groups.push(json!({
            "name": format!("MMD group {}", u16::from(group.mmd_group) + 1),
            "colliders": members,
        }));
    }

    let springs: Vec<Value> = springs
        .into_iter()
        .map(|(mut object, spring)| {
            let collider_groups: Vec<usize> = spring
                .collider_groups
                .iter()
                .filter_map(|&g| group_index.get(g).copied().flatten())
                .collect();
            if !collider_groups.is_empty() {
                object["colliderGroups"] = json!(collider_groups);
            }
            object
        })
        .collect();
    counts.springs = springs.len();
    counts.colliders = colliders.len();
    counts.collider_groups = groups.len();

    for note in &plan.notes {
        if let SpringNote::NoTail { bone } = note {
            losses.push(VrmLoss::SpringWithoutTail {
                bone: model.bones[*bone].name_ja.as_str().into_owned(),
            });
        }
    }
    if !cut_chains.is_empty() {
        losses.push(VrmLoss::SpringChainsCut { chains: cut_chains });
    }
    let follow_bone = |mode: RigidMode| matches!(mode, RigidMode::FollowBone);
    let dynamic_left = model
        .rigid_bodies
        .iter()
        .enumerate()
        .filter(|(i, body)| !follow_bone(body.mode) && !carried_bodies.contains(i))
        .count();
    let static_left = model
        .rigid_bodies
        .iter()
        .filter(|body| follow_bone(body.mode))
        .count()
        .saturating_sub(colliders.len());
    let joints_left = model.joints.len().saturating_sub(used_mmd_joints.len());
    if dynamic_left + static_left + joints_left > 0 {
        losses.push(VrmLoss::PhysicsNotCarried {
            dynamic_bodies: dynamic_left,
            static_bodies: static_left,
            joints: joints_left,
        });
    }
    if springs.is_empty() && colliders.is_empty() {
        return SpringBones {
            extension: None,
            counts,
            tail_nodes,
        };
    }
    let mut extension = json!({ "specVersion": SPRING_BONE_VERSION });
    if !colliders.is_empty() {
        extension["colliders"] = json!(colliders);
    }
    if !groups.is_empty() {
        extension["colliderGroups"] = json!(groups);
    }
    if !springs.is_empty() {
        extension["springs"] = json!(springs);
    }
    SpringBones {
        extension: Some(extension),
        counts,
        tail_nodes,
    }
}

/// `VRMC_node_constraint` objects for the exported bones with an append (付与) rotation that a
/// rotation constraint can hold: a source that is a node, a ratio in 0..=1 (the schema's
/// weight), a bone that is not humanoid (VRM applications pose humanoid bones themselves) and
/// no local append. Returns (node, extension) pairs; the rest stay in the loss report.
pub(super) fn node_constraints(
    model: &Model,
    map: &HumanoidMap,
    node_of_bone: &[Option<usize>],
    losses: &mut Vec<VrmLoss>,
) -> Vec<(usize, Value)> {
    let humanoid: BTreeSet<usize> = map.bones.values().copied().collect();
    let mut out = Vec::new();
    let mut dropped = 0usize;
    for (index, bone) in model.bones.iter().enumerate() {
        if !bone.has_append() || !matches!(map.roles.get(index), Some(BoneRole::Node)) {
            continue;
        }
        let Some(node) = node_of_bone.get(index).copied().flatten() else {
            continue;
        };
        let source = bone
            .append_parent
            .map(|p| p.get())
            .filter(|&p| p != index && matches!(map.roles.get(p), Some(BoneRole::Node)))
            .and_then(|p| node_of_bone.get(p).copied().flatten());
        let weight = bone.append_ratio;
        let keepable = bone.flags.contains(BoneFlags::APPEND_ROTATE)
            && !bone.flags.contains(BoneFlags::APPEND_MOVE)
            && !bone.flags.contains(BoneFlags::LOCAL_APPEND)
            && !humanoid.contains(&index)
            && weight.is_finite()
            && (0.0..=1.0).contains(&weight);
        match source {
            Some(source) if keepable => out.push((
                node,
                json!({
                    "specVersion": NODE_CONSTRAINT_VERSION,
                    "constraint": { "rotation": { "source": source, "weight": f64::from(weight) } },
                }),
            )),
            _ => dropped += 1,
        }
    }
    if dropped > 0 {
        losses.push(VrmLoss::AppendDropped { bones: dropped });
    }
    out
}
