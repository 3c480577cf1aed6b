//! Pose engine tests. Expected numbers are worked out by hand in the comments (trigonometry of
//! the small rigs below), not taken from the code under test.

use super::*;
use crate::model::{
    AngleLimits, Bone, BoneFlags, GroupMorphOffset, Ik, IkLink, ImpulseMorphOffset, Material,
    MaterialIdx, MaterialMorphOffset, MaterialMorphOp, Morph, MorphOffsets, RigidBody,
    RigidBodyIdx, UvMorphOffset, Vertex, VertexIdx, VertexMorphOffset, Weight,
};
use glam::{Quat, Vec2, Vec3, Vec4};
use std::f32::consts::{FRAC_PI_2, PI};

const EPS: f32 = 1e-5;

fn bone(name: &str, position: [f32; 3], parent: Option<usize>) -> Bone {
    Bone {
        name_ja: name.into(),
        position: position.into(),
        parent: parent.map(BoneIdx::new),
        ..Bone::default()
    }
}

fn model_with_bones(bones: Vec<Bone>) -> Model {
    Model {
        bones,
        ..Model::default()
    }
}

fn assert_vec3(actual: Vec3, expected: [f32; 3], eps: f32, what: &str) {
    let expected = Vec3::from(expected);
    assert!(
        actual.abs_diff_eq(expected, eps),
        "{what}: {actual:?} is not {expected:?} (±{eps})"
    );
}

fn assert_quat(actual: Quat, expected: Quat, eps: f32, what: &str) {
    // q and -q are the same rotation.
    let close = actual.abs_diff_eq(expected, eps) || actual.abs_diff_eq(-expected, eps);
    assert!(close, "{what}: {actual:?} is not {expected:?} (±{eps})");
}

fn position_of(evaluator: &PoseEvaluator, bone: usize) -> Vec3 {
    evaluator.skeleton.globals()[bone].translation.into()
}

fn rotation_of(evaluator: &PoseEvaluator, bone: usize) -> Quat {
    evaluator.skeleton.globals()[bone].rotation
}

fn evaluate_bones(model: &Model, pose: &Pose) -> PoseEvaluator {
    let mut evaluator = PoseEvaluator::new(model);
    assert_eq!(evaluator.evaluate_bones(model, pose), Ok(()));
    evaluator
}

#[test]
fn deform_order_is_the_specs_example() {
    // The spec's example: name, after physics, layer (index = position in the list).
    let rows = [
        ("A", false, 2),
        ("B", true, 1),
        ("C", false, 0),
        ("D", true, 0),
        ("E", false, 0),
        ("F", false, 1),
    ];
    let bones = rows
        .iter()
        .map(|&(name, after, layer)| {
            let mut b = bone(name, [0.0; 3], None);
            b.layer = layer;
            b.flags.set(BoneFlags::AFTER_PHYSICS, after);
            b
        })
        .collect();
    let model = model_with_bones(bones);
    let (order, before_physics) = deform_order(&model);
    let names: Vec<String> = order
        .iter()
        .map(|b| model.bones[b.get()].name_ja.as_str().into_owned())
        .collect();
    assert_eq!(names, ["C", "E", "F", "A", "D", "B"]);
    assert_eq!(before_physics, 4, "physics runs between A and D");
    let skeleton = Skeleton::new(&model);
    let (skeleton_order, split) = skeleton.order();
    assert_eq!(skeleton_order.collect::<Vec<_>>(), order);
    assert_eq!(split, 4);
}

#[test]
fn append_rotation_ratio_half_and_minus_one() {
    // Q (index 0) comes before its append parent P (index 2) in the order: appending user
    // rotation still works (spec: 付与親の変形前にボーン変形が呼び出されても正常に変形する).
    let mut q = bone("Q", [1.0, 0.0, 0.0], None);
    q.flags |= BoneFlags::APPEND_ROTATE;
    q.append_parent = Some(BoneIdx::new(2));
    q.append_ratio = 0.5;
    let mut r = bone("R", [3.0, 0.0, 0.0], None);
    r.flags |= BoneFlags::APPEND_ROTATE;
    r.append_parent = Some(BoneIdx::new(2));
    r.append_ratio = -1.0;
    let model = model_with_bones(vec![
        q,
        bone("Q tip", [1.0, 1.0, 0.0], Some(0)),
        bone("P", [0.0, 0.0, 0.0], None),
        r,
        bone("R tip", [3.0, 1.0, 0.0], Some(3)),
    ]);
    let mut pose = Pose::new(&model);
    pose.set_bone(
        BoneIdx::new(2),
        Quat::from_rotation_z(60f32.to_radians()),
        Vec3::ZERO,
    );
    let evaluator = evaluate_bones(&model, &pose);
    // Q turns 30°: its tip (0,1,0) above it goes to (1 - sin 30°, cos 30°).
    assert_vec3(
        position_of(&evaluator, 1),
        [0.5, 0.866_025_4, 0.0],
        EPS,
        "Q tip",
    );
    // R turns -60°: (3 + sin 60°, cos 60°).
    assert_vec3(
        position_of(&evaluator, 4),
        [3.866_025_4, 0.5, 0.0],
        EPS,
        "R tip",
    );
    assert_quat(
        rotation_of(&evaluator, 3),
        Quat::from_rotation_z(-60f32.to_radians()),
        EPS,
        "R",
    );
}

#[test]
fn multi_level_append_uses_the_stored_amount() {
    let both = BoneFlags::APPEND_ROTATE | BoneFlags::APPEND_MOVE;
    let mut q = bone("Q", [0.0, 0.0, 0.0], None);
    q.flags |= both;
    q.append_parent = Some(BoneIdx::new(0));
    q.append_ratio = 0.5;
    let mut r = bone("R", [5.0, 0.0, 0.0], None);
    r.flags |= both;
    r.append_parent = Some(BoneIdx::new(1));
    r.append_ratio = 0.5;
    let model = model_with_bones(vec![bone("P", [0.0, 0.0, 0.0], None), q, r]);
    let mut pose = Pose::new(&model);
    pose.set_bone(
        BoneIdx::new(0),
        Quat::from_rotation_z(40f32.to_radians()),
        Vec3::new(2.0, 0.0, 0.0),
    );
    pose.set_bone(
        BoneIdx::new(1),
        Quat::from_rotation_z(10f32.to_radians()),
        Vec3::new(0.0, 1.0, 0.0),
    );
    let evaluator = evaluate_bones(&model, &pose);
    // Q: 40° × 0.5 + its own 10° = 30°; (2,0,0) × 0.5 + (0,1,0) = (1,1,0). Stored for R.
    let (q_rotation, q_translation) = evaluator
        .skeleton
        .append_amount(BoneIdx::new(1))
        .unwrap_or_default();
    assert_quat(
        q_rotation,
        Quat::from_rotation_z(30f32.to_radians()),
        EPS,
        "Q stored",
    );
    assert_vec3(q_translation.into(), [1.0, 1.0, 0.0], EPS, "Q stored move");
    // R: half of Q's stored amount (not of Q's user 10° alone): 15° and (0.5, 0.5, 0).
    assert_quat(
        rotation_of(&evaluator, 2),
        Quat::from_rotation_z(15f32.to_radians()),
        EPS,
        "R",
    );
    assert_vec3(
        position_of(&evaluator, 2),
        [5.5, 0.5, 0.0],
        EPS,
        "R position",
    );
}

#[test]
fn local_append_takes_the_parents_deformed_state() {
    let mut local = bone("local", [2.0, 0.0, 0.0], Some(0));
    local.flags |= BoneFlags::APPEND_ROTATE | BoneFlags::LOCAL_APPEND;
    local.append_parent = Some(BoneIdx::new(1));
    local.append_ratio = 1.0;
    let mut plain = bone("plain", [2.0, 0.0, 0.0], Some(0));
    plain.flags |= BoneFlags::APPEND_ROTATE;
    plain.append_parent = Some(BoneIdx::new(1));
    plain.append_ratio = 1.0;
    let mut moved = bone("moved", [4.0, 0.0, 0.0], None);
    moved.flags |= BoneFlags::APPEND_MOVE | BoneFlags::LOCAL_APPEND;
    moved.append_parent = Some(BoneIdx::new(1));
    moved.append_ratio = 0.5;
    let model = model_with_bones(vec![
        bone("root", [0.0, 0.0, 0.0], None),
        bone("P", [0.0, 1.0, 0.0], Some(0)),
        local,
        plain,
        moved,
    ]);
    let mut pose = Pose::new(&model);
    pose.set_bone(
        BoneIdx::new(0),
        Quat::from_rotation_z(10f32.to_radians()),
        Vec3::ZERO,
    );
    pose.set_bone(
        BoneIdx::new(1),
        Quat::from_rotation_z(30f32.to_radians()),
        Vec3::new(0.0, 0.0, 1.0),
    );
    let evaluator = evaluate_bones(&model, &pose);
    // Local: P's deformed rotation (10° + 30° = 40°) under root's 10°: 50°.
    assert_quat(
        rotation_of(&evaluator, 2),
        Quat::from_rotation_z(50f32.to_radians()),
        EPS,
        "local append",
    );
    // Not local: P's user rotation 30° under root's 10°: 40°.
    assert_quat(
        rotation_of(&evaluator, 3),
        Quat::from_rotation_z(40f32.to_radians()),
        EPS,
        "plain append",
    );
    // P now at Rz(10°)·(0,1,1) = (-sin 10°, cos 10°, 1); minus rest (0,1,0), × 0.5.
    let (s, c) = 10f32.to_radians().sin_cos();
    assert_vec3(
        position_of(&evaluator, 4),
        [4.0 - s * 0.5, (c - 1.0) * 0.5, 0.5],
        EPS,
        "local append move",
    );
}

/// Hip (0,10,0) → knee (0,5,0) → ankle (0,0,0), leg IK at the ankle (`loop_count` loops, unit
/// angle 2 rad), knee limited to x ∈ [-180°, -0.5°]; bone 4 appends the knee's rotation after
/// the IK (it comes later in the order), bone 5 before it (layer -1).
fn leg_model_with_loops(loop_count: i32) -> Model {
    let mut ik = bone("左足ＩＫ", [0.0, 0.0, 0.0], None);
    ik.flags |= BoneFlags::IK | BoneFlags::MOVABLE;
    ik.ik = Ik {
        target: Some(BoneIdx::new(2)),
        loop_count,
        limit_angle: 2.0,
        links: vec![
            IkLink {
                bone: Some(BoneIdx::new(1)),
                limits: Some(AngleLimits {
                    lower: [-PI, 0.0, 0.0].into(),
                    upper: [-0.5f32.to_radians(), 0.0, 0.0].into(),
                }),
            },
            IkLink {
                bone: Some(BoneIdx::new(0)),
                limits: None,
            },
        ],
    };
    let mut follower = bone("after IK", [0.0, 5.0, 1.0], None);
    follower.flags |= BoneFlags::APPEND_ROTATE;
    follower.append_parent = Some(BoneIdx::new(1));
    let mut early = follower.clone();
    early.name_ja = "before IK".into();
    early.layer = -1;
    model_with_bones(vec![
        bone("左足", [0.0, 10.0, 0.0], None),
        bone("左ひざ", [0.0, 5.0, 0.0], Some(0)),
        bone("左足首", [0.0, 0.0, 0.0], Some(1)),
        ik,
        follower,
        early,
    ])
}

fn leg_model() -> Model {
    leg_model_with_loops(40)
}

#[test]
fn leg_ik_reaches_a_reachable_target() {
    // CCD from a straight leg converges linearly: 40 loops (what models use) get within 1e-3,
    // 255 (the most MMD runs) reach the exact solution.
    let model = leg_model();
    let mut pose = Pose::new(&model);
    pose.set_bone(BoneIdx::new(3), Quat::IDENTITY, Vec3::new(0.0, 2.0, 0.0));
    let evaluator = evaluate_bones(&model, &pose);
    assert_vec3(
        position_of(&evaluator, 2),
        [0.0, 2.0, 0.0],
        1e-3,
        "ankle after 40 loops",
    );

    let model = leg_model_with_loops(255);
    let evaluator = evaluate_bones(&model, &pose);
    // Hip to goal is 8 with two bones of 5: the knee's inner angle has cos = (25+25-64)/50,
    // the thigh turns α with cos α = 64/80 = 0.8 forwards (-z, the knee limit bends the shin
    // back), so the knee is at hip + 5·(0, -0.8, -0.6) = (0, 6, -3).
    assert_vec3(position_of(&evaluator, 2), [0.0, 2.0, 0.0], 1e-5, "ankle");
    assert_vec3(position_of(&evaluator, 1), [0.0, 6.0, -3.0], 1e-4, "knee");
    let knee_bend = -(PI - (-0.28f32).acos()); // -73.74°
    let knee_local = evaluator
        .skeleton
        .local(BoneIdx::new(1))
        .map(|l| l.rotation)
        .unwrap_or_default();
    assert_quat(knee_local, Quat::from_rotation_x(knee_bend), 1e-4, "knee");
    assert_quat(
        rotation_of(&evaluator, 0),
        Quat::from_rotation_x(0.8f32.acos()),
        1e-4,
        "thigh",
    );
    // The append of an IK link takes its IK rotation: the bone after the IK bends like the
    // knee; the one deformed before the IK was solved does not.
    assert_quat(
        rotation_of(&evaluator, 4),
        Quat::from_rotation_x(knee_bend),
        1e-4,
        "follower",
    );
    assert_quat(
        rotation_of(&evaluator, 5),
        Quat::IDENTITY,
        EPS,
        "early follower",
    );
}

#[test]
fn leg_ik_stretches_towards_an_unreachable_target() {
    let model = leg_model();
    let mut pose = Pose::new(&model);
    pose.set_bone(BoneIdx::new(3), Quat::IDENTITY, Vec3::new(3.0, -5.0, 0.0));
    let evaluator = evaluate_bones(&model, &pose);
    // The knee stays at its -0.5° limit: the leg's reach is 2·5·cos(0.25°) = 9.999905, and
    // the ankle ends on the line from the hip to the goal (3,-15,0 away, 15.29706 long).
    let knee_local = evaluator
        .skeleton
        .local(BoneIdx::new(1))
        .map(|l| l.rotation)
        .unwrap_or_default();
    assert_quat(
        knee_local,
        Quat::from_rotation_x(-0.5f32.to_radians()),
        1e-5,
        "knee at its limit",
    );
    let reach = 10.0 * 0.25f32.to_radians().cos();
    let direction = Vec3::new(3.0, -15.0, 0.0).normalize();
    let expected = Vec3::new(0.0, 10.0, 0.0) + direction * reach;
    assert_vec3(position_of(&evaluator, 2), expected.into(), 1e-3, "ankle");
    let miss = position_of(&evaluator, 2).distance(Vec3::new(3.0, -5.0, 0.0));
    assert!((miss - (15.297_06 - reach)).abs() < 1e-3, "miss {miss}");
}

#[test]
fn a_hinge_about_y_bends_past_90_degrees() {
    // Shoulder (0,0,0) → elbow (1,0,0) → wrist (2,0,0), the elbow turns about y only. A goal
    // 1 from the shoulder needs the elbow bent 120° (two unit bones, inner angle 60°).
    let mut ik = bone("arm IK", [2.0, 0.0, 0.0], None);
    ik.flags |= BoneFlags::IK;
    ik.ik = Ik {
        target: Some(BoneIdx::new(2)),
        loop_count: 255,
        limit_angle: 1.0,
        links: vec![
            IkLink {
                bone: Some(BoneIdx::new(1)),
                limits: Some(AngleLimits {
                    lower: [0.0, 0.01, 0.0].into(),
                    upper: [0.0, PI, 0.0].into(),
                }),
            },
            IkLink {
                bone: Some(BoneIdx::new(0)),
                limits: None,
            },
        ],
    };
    let model = model_with_bones(vec![
        bone("shoulder", [0.0; 3], None),
        bone("elbow", [1.0, 0.0, 0.0], Some(0)),
        bone("wrist", [2.0, 0.0, 0.0], Some(1)),
        ik,
    ]);
    let mut pose = Pose::new(&model);
    pose.set_bone(BoneIdx::new(3), Quat::IDENTITY, Vec3::new(-2.0, 0.0, 1.0));
    let evaluator = evaluate_bones(&model, &pose);
    assert_vec3(position_of(&evaluator, 2), [0.0, 0.0, 1.0], 1e-4, "wrist");
    let elbow = evaluator
        .skeleton
        .local(BoneIdx::new(1))
        .map(|l| l.rotation)
        .unwrap_or_default();
    assert_quat(
        elbow,
        Quat::from_rotation_y(120f32.to_radians()),
        1e-4,
        "elbow",
    );
}

#[test]
fn ik_off_leaves_the_leg_straight() {
    let model = leg_model();
    let mut pose = Pose::new(&model);
    pose.set_bone(BoneIdx::new(3), Quat::IDENTITY, Vec3::new(0.0, 2.0, 0.0));
    pose.bones[3].ik_enabled = false;
    let evaluator = evaluate_bones(&model, &pose);
    assert_vec3(position_of(&evaluator, 2), [0.0, 0.0, 0.0], EPS, "ankle");
}

/// Four vertices on bone 0, two materials, two rigid bodies, additional UV channels 1-2 in the
/// file (3-4 only morphed).
fn morph_model(morphs: Vec<Morph>) -> Model {
    let vertex = |x: f32| Vertex {
        position: [x, 0.0, 0.0].into(),
        uv: [0.5, 0.5].into(),
        weight: Weight::Bdef1 {
            bone: Some(BoneIdx::new(0)),
        },
        ..Vertex::default()
    };
    Model {
        vertices: (0..4).map(|i| vertex(i as f32)).collect(),
        additional_uvs: vec![vec![crate::model::Vec4::ZERO; 4]; 2],
        bones: vec![
            bone("root", [0.0; 3], None),
            bone("moved", [0.0, 1.0, 0.0], Some(0)),
        ],
        materials: vec![
            Material {
                diffuse: [0.8, 0.6, 0.4, 1.0].into(),
                ..Material::default()
            },
            Material {
                diffuse: [0.2, 0.2, 0.2, 1.0].into(),
                ..Material::default()
            },
        ],
        rigid_bodies: vec![RigidBody::default(), RigidBody::default()],
        morphs,
        ..Model::default()
    }
}

fn morph(name: &str, offsets: MorphOffsets) -> Morph {
    Morph {
        name_ja: name.into(),
        name_en: name.into(),
        panel: crate::model::MorphPanel::Other,
        offsets,
    }
}

fn vertex_morph(offsets: &[(usize, [f32; 3])]) -> MorphOffsets {
    MorphOffsets::Vertex(
        offsets
            .iter()
            .map(|&(v, offset)| VertexMorphOffset {
                vertex: VertexIdx::new(v),
                offset: offset.into(),
            })
            .collect(),
    )
}

fn uv_offsets(v: usize, offset: [f32; 4]) -> Vec<UvMorphOffset> {
    vec![UvMorphOffset {
        vertex: VertexIdx::new(v),
        offset: offset.into(),
    }]
}

fn material_offset(
    material: Option<usize>,
    op: MaterialMorphOp,
    diffuse: [f32; 4],
    texture_tint: [f32; 4],
) -> MaterialMorphOffset {
    let neutral = if op == MaterialMorphOp::Multiply {
        1.0
    } else {
        0.0
    };
    MaterialMorphOffset {
        material: material.map(MaterialIdx::new),
        op,
        diffuse: diffuse.into(),
        specular: [neutral; 3].into(),
        specular_power: neutral,
        ambient: [neutral; 3].into(),
        edge_color: [neutral; 4].into(),
        edge_size: neutral,
        texture_tint: texture_tint.into(),
        sphere_tint: [neutral; 4].into(),
        toon_tint: [neutral; 4].into(),
    }
}

fn group(kind_flip: bool, members: &[(usize, f32)]) -> MorphOffsets {
    let list = members
        .iter()
        .map(|&(m, ratio)| GroupMorphOffset {
            morph: Some(MorphIdx::new(m)),
            ratio,
        })
        .collect();
    if kind_flip {
        MorphOffsets::Flip(list)
    } else {
        MorphOffsets::Group(list)
    }
}

#[test]
fn every_morph_kind_at_exact_values() {
    let impulse =
        |body: usize, local: bool, velocity: [f32; 3], torque: [f32; 3]| ImpulseMorphOffset {
            rigid_body: Some(RigidBodyIdx::new(body)),
            local,
            velocity: velocity.into(),
            torque: torque.into(),
        };
    let model = morph_model(vec![
        morph(
            "v0",
            vertex_morph(&[(0, [2.0, 0.0, 0.0]), (1, [0.0, 4.0, 0.0])]),
        ),
        morph("v1", vertex_morph(&[(0, [0.0, 0.0, 2.0])])),
        morph("uv", MorphOffsets::Uv(uv_offsets(0, [0.2, 0.4, 9.0, 9.0]))),
        morph(
            "a1",
            MorphOffsets::AdditionalUv1(uv_offsets(1, [0.1, 0.2, 0.3, 0.4])),
        ),
        morph(
            "a2",
            MorphOffsets::AdditionalUv2(uv_offsets(1, [0.1, 0.2, 0.3, 0.4])),
        ),
        morph(
            "a3",
            MorphOffsets::AdditionalUv3(uv_offsets(1, [0.1, 0.2, 0.3, 0.4])),
        ),
        morph(
            "a4",
            MorphOffsets::AdditionalUv4(uv_offsets(1, [0.1, 0.2, 0.3, 0.4])),
        ),
        morph(
            "bone",
            MorphOffsets::Bone(vec![crate::model::BoneMorphOffset {
                bone: Some(BoneIdx::new(1)),
                translation: [0.0, 2.0, 0.0].into(),
                rotation: crate::model::Vec4::from_quat(Quat::from_rotation_z(FRAC_PI_2)),
            }]),
        ),
        morph(
            "multiply",
            MorphOffsets::Material(vec![material_offset(
                Some(0),
                MaterialMorphOp::Multiply,
                [0.5, 0.5, 0.5, 0.0],
                [0.5, 1.0, 1.0, 1.0],
            )]),
        ),
        morph(
            "add",
            MorphOffsets::Material(vec![material_offset(
                None,
                MaterialMorphOp::Add,
                [0.2, 0.2, 0.2, 0.2],
                [0.4, 0.0, 0.0, 1.0],
            )]),
        ),
        morph(
            "impulse",
            MorphOffsets::Impulse(vec![
                impulse(0, true, [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
                impulse(1, false, [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]),
            ]),
        ),
        morph(
            "stop",
            MorphOffsets::Impulse(vec![impulse(1, false, [0.0; 3], [0.0; 3])]),
        ),
        morph("group", group(false, &[(0, 0.6)])),
        morph(
            "impulse at 0",
            MorphOffsets::Impulse(vec![impulse(0, false, [0.0; 3], [0.0; 3])]),
        ),
    ]);
    let mut pose = Pose::new(&model);
    pose.morphs = vec![
        0.5, 1.0, 0.5, 1.0, 0.5, 0.25, 1.0, 0.5, 0.5, 0.5, 0.5, 1.0, 0.5, 0.0,
    ];
    let mut evaluator = PoseEvaluator::new(&model);
    assert_eq!(evaluator.evaluate(&model, &pose), Ok(()));

    // Vertex: v0 moves (2,0,0)×0.5 + (0,0,2)×1 + (2,0,0)×(0.5 group × 0.6); v1 (0,4,0)×0.8.
    let positions = evaluator.positions();
    assert_vec3(positions[0], [1.6, 0.0, 2.0], EPS, "vertex 0");
    assert_vec3(positions[1], [1.0, 3.2, 0.0], EPS, "vertex 1");
    assert_vec3(positions[2], [2.0, 0.0, 0.0], EPS, "vertex 2");
    let mut moved = Vec::new();
    evaluator.morphs.moved_vertices(&model, &mut moved);
    assert_eq!(moved, [0, 1]);
    assert_eq!(
        evaluator.morphs.positions().get(0),
        Some(Vec3::new(1.6, 0.0, 2.0))
    );
    // UV: only x, y of the offset, × 0.5.
    assert!(evaluator.uvs()[0].abs_diff_eq(Vec2::new(0.6, 0.7), EPS));
    assert!(evaluator.uvs()[1].abs_diff_eq(Vec2::new(0.5, 0.5), EPS));
    // Additional UV 1-4 at 1, 0.5, 0.25, 1; channels 3 and 4 are not in the file: from zero.
    for (channel, value) in [1.0, 0.5, 0.25, 1.0].into_iter().enumerate() {
        let uv = evaluator.additional_uv(channel).map(|c| c[1]);
        let expected = Vec4::new(0.1, 0.2, 0.3, 0.4) * value;
        assert!(
            uv.is_some_and(|uv| uv.abs_diff_eq(expected, EPS)),
            "additional UV {channel}: {uv:?}"
        );
    }
    // Bone morph at 0.5: half the move, half the turn.
    assert_vec3(
        position_of(&evaluator, 1),
        [0.0, 2.0, 0.0],
        EPS,
        "bone morph move",
    );
    assert_quat(
        rotation_of(&evaluator, 1),
        Quat::from_rotation_z(FRAC_PI_2 / 2.0),
        EPS,
        "bone morph turn",
    );
    // Material 0: × (1 + (0.5 − 1)·0.5) = × 0.75 (alpha × 0.5), then + 0.2·0.5.
    let materials = evaluator.morphs.materials();
    let m0 = materials[0].apply(&model.materials[0]);
    assert!(
        m0.diffuse.abs_diff_eq(Vec4::new(0.7, 0.55, 0.4, 0.6), EPS),
        "{:?}",
        m0.diffuse
    );
    let m1 = materials[1].apply(&model.materials[1]);
    assert!(m1.diffuse.abs_diff_eq(Vec4::new(0.3, 0.3, 0.3, 1.1), EPS));
    assert!(
        m0.texture
            .multiply
            .abs_diff_eq(Vec4::new(0.75, 1.0, 1.0, 1.0), EPS)
    );
    assert!(
        m0.texture
            .add
            .abs_diff_eq(Vec4::new(0.2, 0.0, 0.0, 0.5), EPS)
    );
    // A grey texel 0.5: × 0.75 in red (alpha 1 keeps the whole multiply), + 0.2 × 0.5.
    let texel = m0.texture.apply(Vec3::splat(0.5));
    assert_vec3(texel, [0.475, 0.5, 0.5], EPS, "tinted texel");
    // Impulses: local and global apart; the all-zero offset stops body 1; at value 0 nothing.
    let impulses = evaluator.morphs.impulses();
    assert_eq!(
        impulses[0],
        RigidBodyImpulse {
            local_velocity: Vec3::new(0.5, 0.0, 0.0),
            local_torque: Vec3::new(0.0, 0.5, 0.0),
            ..RigidBodyImpulse::default()
        }
    );
    assert_eq!(
        impulses[1],
        RigidBodyImpulse {
            global_velocity: Vec3::new(0.0, 0.0, 1.5),
            stop: true,
            ..RigidBodyImpulse::default()
        }
    );

    // The next frame starts from rest again (buffers are restored, not accumulated).
    pose.morphs.fill(0.0);
    assert_eq!(evaluator.evaluate(&model, &pose), Ok(()));
    assert_vec3(evaluator.positions()[0], [0.0, 0.0, 0.0], 0.0, "restored");
    assert!(
        evaluator
            .morphs
            .impulses()
            .iter()
            .all(RigidBodyImpulse::is_empty)
    );
    assert!(
        evaluator
            .morphs
            .materials()
            .iter()
            .all(MaterialMorphState::is_identity)
    );
}

#[test]
fn flip_index_follows_the_formula() {
    // (9 + 1) × 0.3 − 1 = 2: the third registered morph.
    assert_eq!(flip_index(9, 0.3), Some(2));
    assert_eq!(flip_index(9, 0.0), None);
    assert_eq!(flip_index(9, 0.099), None);
    assert_eq!(flip_index(9, 0.1), Some(0));
    assert_eq!(flip_index(9, 1.0), Some(8), "clamped to the last");
    assert_eq!(flip_index(9, 2.5), Some(8));
    assert_eq!(flip_index(9, -0.5), None);
    assert_eq!(flip_index(9, f32::NAN), None);
    assert_eq!(flip_index(0, 0.5), None);
    assert_eq!(flip_index(1, 0.5), Some(0));
}

/// Morphs 0-8: vertex 0 moves (i+1, 0, 0); morph 9 flips between them, each with value 0.8;
/// morph 10 groups the flip (ratio 1) and morph 0 (ratio 0.5).
fn flip_model() -> Model {
    let mut morphs: Vec<Morph> = (0..9)
        .map(|i| {
            morph(
                &format!("m{i}"),
                vertex_morph(&[(0, [(i + 1) as f32, 0.0, 0.0])]),
            )
        })
        .collect();
    let targets: Vec<(usize, f32)> = (0..9).map(|i| (i, 0.8)).collect();
    morphs.push(morph("flip", group(true, &targets)));
    morphs.push(morph("group", group(false, &[(9, 1.0), (0, 0.5)])));
    morph_model(morphs)
}

#[test]
fn flip_with_nine_morphs_at_0_3_sets_the_third() {
    let model = flip_model();
    let mut pose = Pose::new(&model);
    pose.morphs[9] = 0.3;
    // A user value on the chosen morph is overwritten, whatever it was.
    pose.morphs[2] = 0.1;
    let mut evaluator = PoseEvaluator::new(&model);
    assert_eq!(evaluator.evaluate(&model, &pose), Ok(()));
    let mut expected = vec![0.0; 11];
    expected[2] = 0.8;
    expected[9] = 0.3;
    assert_eq!(evaluator.morphs.values(), expected.as_slice());
    // Morph 2 moves vertex 0 by 3 × 0.8.
    assert_vec3(evaluator.positions()[0], [2.4, 0.0, 0.0], EPS, "vertex 0");

    for (value, chosen) in [
        (0.05, None),
        (1.0, Some(8)),
        (0.95, Some(8)),
        (0.5, Some(4)),
    ] {
        pose.morphs.fill(0.0);
        pose.morphs[9] = value;
        assert_eq!(evaluator.evaluate(&model, &pose), Ok(()));
        let x = chosen.map_or(0.0, |c| (c + 1) as f32 * 0.8);
        assert_vec3(evaluator.positions()[0], [x, 0.0, 0.0], EPS, "flip {value}");
    }
}

#[test]
fn group_containing_a_flip() {
    let model = flip_model();
    let mut pose = Pose::new(&model);
    pose.morphs[10] = 0.3;
    let mut evaluator = PoseEvaluator::new(&model);
    assert_eq!(evaluator.evaluate(&model, &pose), Ok(()));
    // The group runs its flip at 0.3 × 1 in the first pass (morph 2 := 0.8), then applies
    // morph 0 at 0.3 × 0.5 = 0.15 in the second: x = 3 × 0.8 + 1 × 0.15.
    assert_eq!(evaluator.morphs.values()[2], 0.8);
    assert_eq!(
        evaluator.morphs.values()[9],
        0.0,
        "the flip's own value is untouched"
    );
    assert_vec3(evaluator.positions()[0], [2.55, 0.0, 0.0], EPS, "vertex 0");
}

/// Bone 0 at the origin, bone 1 (the elbow) at (1,0,0). Vertex 0 is SDEF, vertex 1 BDEF2,
/// both at (1, 0.2, 0) with weights 0.5/0.5, C = (1,0,0), R0 = (0.5,0,0), R1 = (1.5,0,0).
fn elbow_model() -> Model {
    let bones = [Some(BoneIdx::new(0)), Some(BoneIdx::new(1))];
    let vertex = |weight: Weight| Vertex {
        position: [1.0, 0.2, 0.0].into(),
        normal: [0.0, 1.0, 0.0].into(),
        weight,
        ..Vertex::default()
    };
    Model {
        bones: vec![
            bone("upper", [0.0; 3], None),
            bone("elbow", [1.0, 0.0, 0.0], Some(0)),
        ],
        vertices: vec![
            vertex(Weight::Sdef {
                bones,
                weight: 0.5,
                c: [1.0, 0.0, 0.0].into(),
                r0: [0.5, 0.0, 0.0].into(),
                r1: [1.5, 0.0, 0.0].into(),
            }),
            vertex(Weight::Bdef2 { bones, weight: 0.5 }),
        ],
        ..Model::default()
    }
}

#[test]
fn sdef_and_bdef2_at_0_and_90_degrees() {
    let model = elbow_model();
    let mut pose = Pose::new(&model);
    let mut evaluator = PoseEvaluator::new(&model);
    assert_eq!(evaluator.evaluate(&model, &pose), Ok(()));
    assert_vec3(evaluator.positions()[0], [1.0, 0.2, 0.0], EPS, "SDEF at 0°");
    assert_vec3(
        evaluator.positions()[1],
        [1.0, 0.2, 0.0],
        EPS,
        "BDEF2 at 0°",
    );

    pose.set_bone(
        BoneIdx::new(1),
        Quat::from_rotation_z(FRAC_PI_2),
        Vec3::ZERO,
    );
    assert_eq!(evaluator.evaluate(&model, &pose), Ok(()));
    // BDEF2: half of (1,0.2,0) and half of it turned 90° about the elbow, (0.8,0,0).
    assert_vec3(
        evaluator.positions()[1],
        [0.9, 0.1, 0.0],
        EPS,
        "BDEF2 at 90°",
    );
    // SDEF: I = (1,0,0), r0 = (0.5,0,0), r1 = (1.5,0,0); M0 (C+r0)/2 = (0.75,0,0),
    // M1 (C+r1)/2 = (1,0.25,0); centre (0.875, 0.125); (0,0.2,0) turned 45°.
    let h = 0.2 * std::f32::consts::FRAC_1_SQRT_2;
    assert_vec3(
        evaluator.positions()[0],
        [0.875 - h, 0.125 + h, 0.0],
        EPS,
        "SDEF at 90°",
    );
    let n = std::f32::consts::FRAC_1_SQRT_2;
    assert_vec3(evaluator.normals()[0], [-n, n, 0.0], EPS, "SDEF normal");
    // The blend of (0,1,0) and (-1,0,0) is (-0.5, 0.5, 0), unit on request.
    assert_vec3(
        evaluator.normals()[1],
        [-0.5, 0.5, 0.0],
        EPS,
        "BDEF2 normal",
    );
    let unit = evaluator.skinner.unit_normal(1).unwrap_or_default();
    assert_vec3(unit, [-n, n, 0.0], EPS, "BDEF2 unit normal");
}

/// A ring of 8 vertices of radius 1 at x = 1, half on bone 0 and half on bone 1 (at x = 1),
/// once as QDEF and once as BDEF4.
fn cylinder_model() -> Model {
    let bones = [Some(BoneIdx::new(0)), Some(BoneIdx::new(1)), None, None];
    let weights = [0.5, 0.5, 0.0, 0.0];
    let mut vertices = Vec::new();
    for weight in [
        Weight::Qdef { bones, weights },
        Weight::Bdef4 { bones, weights },
    ] {
        for k in 0..8 {
            let angle = k as f32 * PI / 4.0;
            vertices.push(Vertex {
                position: [1.0, angle.cos(), angle.sin()].into(),
                normal: [0.0, angle.cos(), angle.sin()].into(),
                weight: weight.clone(),
                ..Vertex::default()
            });
        }
    }
    Model {
        bones: vec![
            bone("root", [0.0; 3], None),
            bone("twist", [1.0, 0.0, 0.0], Some(0)),
        ],
        vertices,
        ..Model::default()
    }
}

#[test]
fn qdef_keeps_volume_on_a_twisted_cylinder() {
    let model = cylinder_model();
    let mut pose = Pose::new(&model);
    pose.set_bone(
        BoneIdx::new(1),
        Quat::from_rotation_x(FRAC_PI_2),
        Vec3::ZERO,
    );
    let mut evaluator = PoseEvaluator::new(&model);
    assert_eq!(evaluator.evaluate(&model, &pose), Ok(()));
    let positions = evaluator.positions();
    for k in 0..8 {
        // QDEF: the blended rotation is 45° about x; the radius stays 1.
        let angle = k as f32 * PI / 4.0 + PI / 4.0;
        assert_vec3(positions[k], [1.0, angle.cos(), angle.sin()], EPS, "QDEF");
        assert_vec3(
            evaluator.normals()[k],
            [0.0, angle.cos(), angle.sin()],
            EPS,
            "QDEF normal",
        );
        // BDEF4: the average of a point and it turned 90° has radius cos 45°.
        let radius = Vec2::new(positions[8 + k].y, positions[8 + k].z).length();
        assert!(
            (radius - std::f32::consts::FRAC_1_SQRT_2).abs() < EPS,
            "BDEF4 radius {radius}"
        );
    }
    // At 180° linear blending collapses the ring onto the axis; QDEF keeps radius 1.
    pose.set_bone(BoneIdx::new(1), Quat::from_rotation_x(PI), Vec3::ZERO);
    assert_eq!(evaluator.evaluate(&model, &pose), Ok(()));
    for k in 0..8 {
        let p = evaluator.positions()[k];
        assert!(
            (Vec2::new(p.y, p.z).length() - 1.0).abs() < EPS,
            "QDEF at 180°: {p:?}"
        );
        let q = evaluator.positions()[8 + k];
        assert!(Vec2::new(q.y, q.z).length() < EPS, "BDEF4 at 180°: {q:?}");
    }
}

#[test]
fn skinning_a_subset_matches_skinning_all() {
    let model = crate::generate::large_model(&crate::generate::LargeModelSpec::small());
    let mut pose = Pose::new(&model);
    for (i, bone) in pose.bones.iter_mut().enumerate() {
        bone.rotation = Quat::from_rotation_y(i as f32 * 0.01);
    }
    pose.morphs.fill(0.5);
    let mut full = PoseEvaluator::new(&model);
    assert_eq!(full.evaluate(&model, &pose), Ok(()));
    let mut partial = PoseEvaluator::new(&model);
    let subset: Vec<u32> = (0..model.vertices.len() as u32).step_by(7).collect();
    assert_eq!(partial.evaluate_vertices(&model, &pose, &subset), Ok(()));
    for &v in &subset {
        assert_eq!(
            partial.positions()[v as usize],
            full.positions()[v as usize]
        );
        assert_eq!(partial.normals()[v as usize], full.normals()[v as usize]);
    }
    // Vertices not in the subset keep their rest values.
    assert_eq!(
        partial.positions()[1],
        Vec3::from(model.vertices[1].position)
    );
    let mut using = Vec::new();
    full.skinner.vertices_using_bones(|b| b == 0, &mut using);
    assert!(using.iter().all(|&v| {
        model.vertices[v as usize]
            .weight
            .bone_weights()
            .iter()
            .any(|(b, w)| *b == Some(BoneIdx::new(0)) && *w != 0.0)
    }));
}

#[test]
fn pose_and_model_counts_must_match() {
    let model = leg_model();
    let mut evaluator = PoseEvaluator::new(&model);
    let pose = Pose::default();
    assert_eq!(
        evaluator.evaluate(&model, &pose),
        Err(PoseError::CountMismatch {
            what: "the pose",
            kind: "bones",
            expected: 6,
            found: 0
        })
    );
}

#[test]
fn manipulation_frame_corrects_local_axes() {
    let mut b = bone("arm", [0.0; 3], None);
    b.flags |= BoneFlags::LOCAL_AXES | BoneFlags::FIXED_AXIS;
    // X and Z not orthogonal: Y = Z × X, Z' = X × Y.
    b.local_axis_x = [1.0, 1.0, 0.0].into();
    b.local_axis_z = [0.0, 0.0, 1.0].into();
    b.fixed_axis = [0.0, 2.0, 0.0].into();
    let frame = ManipulationFrame::of(&b);
    let s = std::f32::consts::FRAC_1_SQRT_2;
    assert_vec3(frame.axes[0], [s, s, 0.0], EPS, "x");
    assert_vec3(frame.axes[1], [-s, s, 0.0], EPS, "y");
    assert_vec3(frame.axes[2], [0.0, 0.0, 1.0], EPS, "z");
    assert_eq!(frame.fixed_axis, Some(Vec3::Y));
    // A rotation about x+y keeps only its twist about the fixed y axis.
    let twisted = frame.constrain_rotation(Quat::from_rotation_y(0.3) * Quat::from_rotation_x(0.4));
    let (axis, _) = twisted.to_axis_angle();
    assert!(axis.abs_diff_eq(Vec3::Y, EPS) || axis.abs_diff_eq(-Vec3::Y, EPS));
    assert_vec3(
        frame.constrain_translation(Vec3::new(1.0, 2.0, 3.0)),
        [0.0, 2.0, 0.0],
        EPS,
        "move",
    );
}

#[test]
fn external_parent_keys_are_exposed() {
    let mut b = bone("attached", [0.0; 3], None);
    b.flags |= BoneFlags::EXTERNAL_PARENT;
    b.external_parent_key = 42;
    let model = model_with_bones(vec![bone("root", [0.0; 3], None), b]);
    let skeleton = Skeleton::new(&model);
    assert_eq!(skeleton.external_parents(), &[(BoneIdx::new(1), 42)]);
}

#[test]
fn pose_as_rest_bakes_skinning_and_bones() {
    let model = elbow_model();
    let mut pose = Pose::new(&model);
    pose.set_bone(
        BoneIdx::new(1),
        Quat::from_rotation_z(FRAC_PI_2),
        Vec3::ZERO,
    );
    let result = apply_pose_as_rest(&model, &pose);
    let Ok((rested, notes)) = result else {
        panic!("{result:?}");
    };
    assert!(notes.is_empty(), "{notes:?}");
    assert_vec3(
        rested.vertices[1].position.into(),
        [0.9, 0.1, 0.0],
        EPS,
        "BDEF2 vertex",
    );
    // The new rest shape is the posed shape: evaluating the rest pose gives it unchanged.
    let mut evaluator = PoseEvaluator::new(&rested);
    assert_eq!(evaluator.evaluate(&rested, &Pose::new(&rested)), Ok(()));
    assert_vec3(evaluator.positions()[1], [0.9, 0.1, 0.0], EPS, "at rest");
    // SDEF: C stays at the elbow (its blend there); R1 turns with the elbow to (1, 0.5, 0).
    let Weight::Sdef { c, r0, r1, .. } = rested.vertices[0].weight else {
        panic!("not SDEF");
    };
    assert_vec3(r0.into(), [0.5, 0.0, 0.0], EPS, "R0");
    assert_vec3(r1.into(), [1.0, 0.5, 0.0], EPS, "R1");
    // C goes where SDEF takes it: the moved centre (0.875, 0.125, 0) of the 90° test.
    assert_vec3(c.into(), [0.875, 0.125, 0.0], EPS, "C");

    // A bone moved by the pose ends at its posed place.
    let model = leg_model_with_loops(255);
    let mut pose = Pose::new(&model);
    pose.set_bone(BoneIdx::new(3), Quat::IDENTITY, Vec3::new(0.0, 2.0, 0.0));
    let Ok(changes) = pose_as_rest(&model, &pose) else {
        panic!("pose as rest failed");
    };
    assert_vec3(
        changes.bones[1].position.into(),
        [0.0, 6.0, -3.0],
        1e-3,
        "knee",
    );
    assert_vec3(
        changes.bones[2].position.into(),
        [0.0, 2.0, 0.0],
        1e-4,
        "ankle",
    );
}

#[test]
fn pose_as_bone_morph_gives_the_pose_back() {
    let model = elbow_model();
    let mut pose = Pose::new(&model);
    pose.set_bone(
        BoneIdx::new(1),
        Quat::from_rotation_z(0.7),
        Vec3::new(0.0, 0.5, 0.0),
    );
    let morph = pose_as_bone_morph(&pose, "ポーズ", "pose");
    assert_eq!(morph.offsets.len(), 1, "bones at rest are left out");
    let mut with_morph = model.clone();
    with_morph.morphs.push(morph);
    let mut morph_pose = Pose::new(&with_morph);
    morph_pose.morphs[0] = 1.0;
    let mut by_morph = PoseEvaluator::new(&with_morph);
    assert_eq!(by_morph.evaluate(&with_morph, &morph_pose), Ok(()));
    let mut by_pose = PoseEvaluator::new(&model);
    assert_eq!(by_pose.evaluate(&model, &pose), Ok(()));
    for v in 0..2 {
        assert!(by_morph.positions()[v].abs_diff_eq(by_pose.positions()[v], EPS));
    }
}

/// A physics result on bone 1 (turned 90° about Z at its head): its child that deforms before
/// physics is carried with it, its child that deforms after physics (物理後) is evaluated from
/// it, a rotation-only result keeps the position the parent gives, and the evaluation with the
/// result in the pose equals the split evaluation a simulation runs.
#[test]
fn a_physics_result_moves_its_bone_and_everything_below_it() {
    let mut after = bone("after", [2.0, 1.0, 0.0], Some(1));
    after.flags |= BoneFlags::AFTER_PHYSICS;
    let model = model_with_bones(vec![
        bone("root", [0.0, 0.0, 0.0], None),
        bone("swing", [1.0, 0.0, 0.0], Some(0)),
        bone("carried", [2.0, 0.0, 0.0], Some(1)),
        after,
    ]);
    let turn = Quat::from_rotation_z(FRAC_PI_2);
    let mut pose = Pose::new(&model);
    pose.physics = vec![PhysicsBone::placed(
        1,
        Transform {
            rotation: turn,
            translation: glam::Vec3A::new(1.0, 0.0, 0.0),
        },
    )];
    let mut evaluator = PoseEvaluator::new(&model);
    evaluator.evaluate_bones(&model, &pose).unwrap();
    let at = |e: &PoseEvaluator, b: usize| Vec3::from(e.skeleton.globals()[b].translation);
    assert_vec3(at(&evaluator, 1), [1.0, 0.0, 0.0], 1e-6, "the swung bone");
    assert_vec3(
        at(&evaluator, 2),
        [1.0, 1.0, 0.0],
        1e-6,
        "its child, carried",
    );
    assert_vec3(
        at(&evaluator, 3),
        [0.0, 1.0, 0.0],
        1e-6,
        "its after-physics child",
    );

    // Split as a simulation runs it: the same result.
    let mut split = PoseEvaluator::new(&model);
    split.evaluate_before_physics(&model, &pose).unwrap();
    assert_vec3(
        at(&split, 2),
        [2.0, 0.0, 0.0],
        1e-6,
        "before the physics is put on",
    );
    split.finish_after_physics(&pose);
    for b in 0..4 {
        assert_eq!(split.skeleton.globals()[b], evaluator.skeleton.globals()[b]);
    }

    // Rotation only (mode 2): the bone stays where its parent puts it.
    pose.physics = vec![PhysicsBone {
        bone: 1,
        transform: Transform {
            rotation: turn,
            translation: glam::Vec3A::new(9.0, 9.0, 9.0),
        },
        rotation_only: true,
    }];
    evaluator.evaluate_bones(&model, &pose).unwrap();
    assert_vec3(
        at(&evaluator, 1),
        [1.0, 0.0, 0.0],
        1e-6,
        "position from the parent",
    );
    assert_vec3(
        at(&evaluator, 2),
        [1.0, 1.0, 0.0],
        1e-6,
        "child turned with it",
    );
}

/// A weight for vertex `i` of another kind than most have (BDEF4→BDEF2, SDEF→BDEF1, BDEF1→
/// BDEF4, BDEF2→SDEF, QDEF→QDEF with new weights...), cycling through the kinds.
fn changed_weight(i: usize, old: &Weight, num_bones: usize) -> Weight {
    let bone = |k: usize| Some(BoneIdx::new((i * 7 + k * 13) % num_bones));
    match (i % 6, old) {
        (_, Weight::Sdef { c, r0, r1, .. }) if i.is_multiple_of(2) => Weight::Sdef {
            bones: [bone(0), bone(1)],
            weight: 0.3,
            c: *c,
            r0: *r0,
            r1: *r1,
        },
        (_, Weight::Qdef { .. }) if !i.is_multiple_of(3) => Weight::Qdef {
            bones: [bone(0), bone(1), bone(2), None],
            weights: [0.5, 0.3, 0.2, 0.0],
        },
        (0, _) => Weight::Bdef1 { bone: bone(0) },
        (1, _) => Weight::Bdef2 {
            bones: [bone(0), bone(1)],
            weight: 0.7,
        },
        (2, _) => Weight::Bdef4 {
            bones: [bone(0), bone(1), bone(2), bone(3)],
            weights: [0.1, 0.2, 0.3, 0.4],
        },
        // Cannot come from the brush; taken in all the same.
        (3, _) => Weight::Sdef {
            bones: [bone(0), bone(1)],
            weight: 0.6,
            c: crate::model::Vec3::new(0.1, 0.2, 0.3),
            r0: crate::model::Vec3::new(1.0, 0.0, 0.0),
            r1: crate::model::Vec3::new(0.0, 1.0, 0.0),
        },
        (4, _) => Weight::Qdef {
            bones: [bone(0), bone(1), None, None],
            weights: [0.6, 0.4, 0.0, 0.0],
        },
        _ => Weight::Bdef2 {
            bones: [bone(0), None],
            weight: 1.0,
        },
    }
}

/// Changes the weights of some vertices of `model` (each kind to another or the same kind),
/// takes them in with `update_weights` and checks the outputs against a new evaluator of the
/// edited model: every vertex, bit for bit.
fn check_weight_updates(mut model: Model) {
    let mut pose = Pose::new(&model);
    for (i, bone) in pose.bones.iter_mut().enumerate() {
        bone.rotation = Quat::from_rotation_y(i as f32 * 0.013) * Quat::from_rotation_x(0.2);
        bone.translation = Vec3::new(0.0, (i % 3) as f32 * 0.1, 0.0);
    }
    for (i, value) in pose.morphs.iter_mut().enumerate() {
        *value = (i % 4) as f32 * 0.3;
    }
    let mut evaluator = PoseEvaluator::new(&model);
    assert_eq!(evaluator.evaluate(&model, &pose), Ok(()));
    let num_bones = model.bones.len();
    for round in 0..3 {
        // Scattered vertices, a run inside one chunk and a run across a chunk boundary.
        let mut changed: Vec<u32> = (round..model.vertices.len() as u32)
            .step_by(5 + round as usize)
            .chain(100..140)
            .chain(2040..2060)
            .collect();
        changed.sort_unstable();
        changed.dedup();
        for &v in &changed {
            let v = v as usize;
            let old = model.vertices[v].weight.clone();
            model.vertices[v].weight = changed_weight(v + round as usize, &old, num_bones);
        }
        // A job taken before the edit keeps skinning the weights it was taken with.
        let (positions_before, normals_before) =
            (evaluator.positions().to_vec(), evaluator.normals().to_vec());
        let job_before = evaluator.skin_job();
        assert_eq!(evaluator.update_weights(&model, &changed), Ok(()));
        let mut fresh = PoseEvaluator::new(&model);
        assert_eq!(fresh.evaluate(&model, &pose), Ok(()));
        let (mut positions, mut normals) = (Vec::new(), Vec::new());
        job_before.skin_all_into(&mut positions, &mut normals);
        assert_eq!(
            positions, positions_before,
            "round {round}: the earlier job"
        );
        assert_eq!(normals, normals_before, "round {round}: the earlier job");
        // A job taken after it skins the new weights, whole or only the changed vertices
        // over the earlier output.
        let job_after = evaluator.skin_job();
        job_after.skin_vertices_in_place(&changed, &mut positions, &mut normals);
        assert_eq!(
            positions,
            fresh.positions(),
            "round {round}: changed vertices"
        );
        assert_eq!(normals, fresh.normals(), "round {round}: changed vertices");
        job_after.skin_all_into(&mut positions, &mut normals);
        assert_eq!(positions, fresh.positions(), "round {round}: the later job");
        assert_eq!(normals, fresh.normals(), "round {round}: the later job");
        for v in 0..model.vertices.len() {
            assert_eq!(
                evaluator.positions()[v].to_array().map(f32::to_bits),
                fresh.positions()[v].to_array().map(f32::to_bits),
                "round {round}: position of vertex {v} ({:?})",
                model.vertices[v].weight
            );
            assert_eq!(
                evaluator.normals()[v].to_array().map(f32::to_bits),
                fresh.normals()[v].to_array().map(f32::to_bits),
                "round {round}: normal of vertex {v}"
            );
        }
        // The next frame skins everything from the new weights too, and a job taken after
        // only the bones and morphs were evaluated skins them as the whole evaluation does.
        pose.bones[1].rotation = Quat::from_rotation_z(0.1 * round as f32);
        assert_eq!(evaluator.evaluate_bones(&model, &pose), Ok(()));
        evaluator
            .skin_job()
            .skin_all_into(&mut positions, &mut normals);
        assert_eq!(evaluator.evaluate(&model, &pose), Ok(()));
        assert_eq!(fresh.evaluate(&model, &pose), Ok(()));
        assert_eq!(
            positions,
            fresh.positions(),
            "round {round}: bones-only job"
        );
        assert_eq!(normals, fresh.normals(), "round {round}: bones-only job");
        assert_eq!(evaluator.positions(), fresh.positions(), "round {round}");
        assert_eq!(evaluator.normals(), fresh.normals(), "round {round}");
    }
    // A model with other counts is refused.
    let mut other = model.clone();
    other.vertices.pop();
    assert!(matches!(
        evaluator.update_weights(&other, &[0]),
        Err(PoseError::CountMismatch { .. })
    ));
    // Indices past the end are skipped.
    assert_eq!(evaluator.update_weights(&model, &[u32::MAX]), Ok(()));
}

#[test]
fn update_weights_matches_a_new_evaluator() {
    // Every kind (BDEF1/2/4, SDEF, QDEF), posed bones and vertex morphs.
    check_weight_updates(crate::generate::large_model(
        &crate::generate::LargeModelSpec::small(),
    ));
}

#[test]
fn update_weights_on_a_model_without_qdef_takes_a_new_qdef_vertex() {
    // PMX 2.0 has no QDEF: the skinner has no dual quaternions until a vertex becomes QDEF.
    let spec = crate::generate::LargeModelSpec {
        version: crate::model::PmxVersion::V2_0,
        additional_uvs: 0,
        ..crate::generate::LargeModelSpec::small()
    };
    let model = crate::generate::large_model(&spec);
    assert!(
        !model
            .vertices
            .iter()
            .any(|v| matches!(v.weight, Weight::Qdef { .. }))
    );
    check_weight_updates(model);
}
