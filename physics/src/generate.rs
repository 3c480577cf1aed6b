//! Models built in code for the physics benchmarks and tests: a ring of hanging chains (hair,
//! skirts) on one root bone, every link a capsule on a spring 6DOF joint, as the physics of a
//! big model is laid out.

use glam::Vec3;
use pmx_core::model::{
    Bone, BoneFlags, BoneIdx, Joint, JointKind, Model, RigidBody, RigidBodyIdx, RigidMode,
    RigidShape,
};

/// `chains` chains of `links` dynamic bodies each, hung in a ring around a root body that
/// follows the root bone, neighbours 0.5 units apart (their capsules 0.2 apart, as strands
/// of hair lie side by side, touching when they swing): `1 + chains × links` bodies and
/// `chains × links` joints.
/// Neighbouring chains are in different collision groups and collide with each other, so the
/// broad phase has real work; links of one chain do not collide (as MMD models set them).
#[must_use]
pub fn hanging_chains(chains: usize, links: usize) -> Model {
    let v = |v: Vec3| -> pmx_core::model::Vec3 { v.into() };
    let mut model = Model::default();
    let root = Vec3::new(0.0, 20.0, 0.0);
    model.bones.push(Bone {
        name_ja: "センター".into(),
        position: v(root),
        flags: BoneFlags::ROTATABLE | BoneFlags::MOVABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE,
        ..Bone::default()
    });
    model.rigid_bodies.push(RigidBody {
        name_ja: "root".into(),
        bone: Some(BoneIdx::new(0)),
        shape: RigidShape::Sphere,
        size: v(Vec3::splat(2.0)),
        position: v(root),
        mode: RigidMode::FollowBone,
        group: 0,
        non_collision_mask: 0,
        ..RigidBody::default()
    });
    const LINK: f32 = 0.8;
    let radius = (chains as f32 * 0.5 / std::f32::consts::TAU).max(3.0);
    for chain in 0..chains {
        let angle = chain as f32 / chains.max(1) as f32 * std::f32::consts::TAU;
        let start = root + Vec3::new(radius * angle.cos(), 0.0, radius * angle.sin());
        let group = 1 + (chain % 2) as u8;
        // Collides with the other chain group only.
        let mask = 1u16 << (3 - group);
        let mut parent_bone = 0usize;
        let mut parent_body = 0usize;
        for link in 0..links {
            let head = start - Vec3::Y * (LINK * link as f32);
            let bone = model.bones.len();
            model.bones.push(Bone {
                name_ja: format!("髪{chain}_{link}").into(),
                position: v(head),
                parent: Some(BoneIdx::new(parent_bone)),
                tail_offset: v(-Vec3::Y * LINK),
                flags: BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE,
                ..Bone::default()
            });
            let body = model.rigid_bodies.len();
            model.rigid_bodies.push(RigidBody {
                name_ja: format!("髪{chain}_{link}").into(),
                bone: Some(BoneIdx::new(bone)),
                shape: RigidShape::Capsule,
                size: v(Vec3::new(0.15, LINK * 0.6, 0.0)),
                position: v(head - Vec3::Y * (LINK * 0.5)),
                mass: 1.0 / (1.0 + link as f32 * 0.2),
                linear_damping: 0.5,
                angular_damping: 0.5,
                mode: RigidMode::Physics,
                group,
                non_collision_mask: mask,
                ..RigidBody::default()
            });
            let swing = 30f32.to_radians();
            model.joints.push(Joint {
                name_ja: format!("髪{chain}_{link}").into(),
                kind: JointKind::Spring6Dof,
                body_a: Some(RigidBodyIdx::new(parent_body)),
                body_b: Some(RigidBodyIdx::new(body)),
                position: v(head),
                rotate_lower: v(Vec3::new(-swing, -0.1, -swing)),
                rotate_upper: v(Vec3::new(swing, 0.1, swing)),
                spring_rotate: v(Vec3::new(20.0, 20.0, 20.0)),
                ..Joint::default()
            });
            parent_bone = bone;
            parent_body = body;
        }
    }
    model
}

/// Where [`pendulum`] hangs from.
pub const PENDULUM_PIVOT: Vec3 = Vec3::new(0.0, 10.0, 0.0);
/// How far out its bob is (along +X).
pub const PENDULUM_ARM: f32 = 2.0;
/// The bob's mass.
pub const PENDULUM_MASS: f32 = 1.0;

/// A bone 支点 and a body that follows it at [`PENDULUM_PIVOT`], and a bob 振り子 (bone with its
/// tail at the bob, a physics sphere of mass [`PENDULUM_MASS`]) [`PENDULUM_ARM`] units along +X
/// on a spring 6DOF joint at the pivot that turns about Z only, within `z_limits` (radians),
/// pulled back by the rotation spring `spring`; everything else locked, nothing collides.
#[must_use]
pub fn pendulum(z_limits: (f32, f32), spring: f32) -> Model {
    let v = |v: Vec3| -> pmx_core::model::Vec3 { v.into() };
    let flags = BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE;
    let mut model = Model::default();
    model.bones.push(Bone {
        name_ja: "支点".into(),
        name_en: "pivot".into(),
        position: v(PENDULUM_PIVOT),
        flags,
        ..Bone::default()
    });
    model.bones.push(Bone {
        name_ja: "振り子".into(),
        name_en: "bob".into(),
        position: v(PENDULUM_PIVOT),
        parent: Some(BoneIdx::new(0)),
        tail_offset: v(Vec3::X * PENDULUM_ARM),
        flags,
        ..Bone::default()
    });
    model.rigid_bodies.push(RigidBody {
        name_ja: "支点".into(),
        bone: Some(BoneIdx::new(0)),
        shape: RigidShape::Sphere,
        size: v(Vec3::splat(0.3)),
        position: v(PENDULUM_PIVOT),
        mode: RigidMode::FollowBone,
        non_collision_mask: 0,
        ..RigidBody::default()
    });
    model.rigid_bodies.push(RigidBody {
        name_ja: "振り子".into(),
        bone: Some(BoneIdx::new(1)),
        shape: RigidShape::Sphere,
        size: v(Vec3::splat(0.2)),
        position: v(PENDULUM_PIVOT + Vec3::X * PENDULUM_ARM),
        mass: PENDULUM_MASS,
        linear_damping: 0.9,
        angular_damping: 0.9,
        mode: RigidMode::Physics,
        non_collision_mask: 0,
        ..RigidBody::default()
    });
    model.joints.push(Joint {
        name_ja: "支点".into(),
        kind: JointKind::Spring6Dof,
        body_a: Some(RigidBodyIdx::new(0)),
        body_b: Some(RigidBodyIdx::new(1)),
        position: v(PENDULUM_PIVOT),
        rotate_lower: v(Vec3::new(0.0, 0.0, z_limits.0)),
        rotate_upper: v(Vec3::new(0.0, 0.0, z_limits.1)),
        spring_rotate: v(Vec3::new(0.0, 0.0, spring)),
        ..Joint::default()
    });
    model
}
