//! ボーンから剛体・Joint一括生成 (`physics_from_bones`): bodies along Gene's hair chains with
//! their physics stripped, a skirt ring built in code joined sideways, refusals and options.
//! The core has no physics simulation, so the checks are geometric: each body's bone, mode,
//! shape, size, centre and axis, each joint's bodies, place, limits and springs.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use glam::Vec3 as GVec3;
use pmx_core::Model;
use pmx_core::model::facts::euler_to_quat;
use pmx_core::model::{
    Bone, BoneIdx, ElementKind, Joint, JointKind, RigidBody, RigidBodyIdx, RigidMode, RigidShape,
    Vec3,
};
use pmx_plugins::{Options, PluginError, PluginSelection, Registry, run_plugin};
use pmx_tests::{corpus_model, run_tool};
use serde_json::{Value, json};

const TOLERANCE: f32 = 1e-5;

fn bone_named(model: &Model, name: &str) -> usize {
    model
        .bones
        .iter()
        .position(|bone| bone.name_ja.as_str() == name)
        .unwrap_or_else(|| panic!("no bone {name}"))
}

fn gene_without_physics() -> Option<Model> {
    let mut model = corpus_model("pmx/pmxeditor_gene_cc_by.pmx")?;
    model.rigid_bodies.clear();
    model.joints.clear();
    Some(model)
}

fn close(a: f32, b: f32, what: &str) {
    assert!((a - b).abs() <= TOLERANCE, "{what}: {a} vs {b}");
}

fn close_vec(a: Vec3, b: GVec3, what: &str) {
    assert!(
        GVec3::from(a).abs_diff_eq(b, TOLERANCE),
        "{what}: {a:?} vs {b}"
    );
}

/// What a body along `head → end` is expected to be.
struct Expected {
    bone: usize,
    head: GVec3,
    end: GVec3,
    mode: RigidMode,
    shape: RigidShape,
    radius: f32,
    mass: f32,
}

fn check_body(body: &RigidBody, expected: &Expected, model: &Model) {
    let name = model.bones[expected.bone].name_ja.as_str().into_owned();
    assert_eq!(body.name_ja.as_str(), name);
    assert_eq!(body.bone, Some(BoneIdx::new(expected.bone)), "{name}");
    assert_eq!(body.mode, expected.mode, "{name}");
    assert_eq!(body.shape, expected.shape, "{name}");
    let segment = expected.end - expected.head;
    let length = segment.length();
    match expected.shape {
        RigidShape::Capsule => {
            close_vec(body.size, GVec3::new(expected.radius, length, 0.0), &name);
        }
        RigidShape::Box => close_vec(
            body.size,
            GVec3::new(expected.radius, length / 2.0, expected.radius),
            &name,
        ),
        _ => close_vec(body.size, GVec3::new(expected.radius, 0.0, 0.0), &name),
    }
    close_vec(body.position, (expected.head + expected.end) / 2.0, &name);
    // The body's Y axis, turned by its Euler angles as MMD turns them, lies along the bone.
    let axis = euler_to_quat(body.rotation) * GVec3::Y;
    assert!(
        axis.abs_diff_eq(segment.normalize(), TOLERANCE),
        "{name}: axis {axis} vs bone {}",
        segment.normalize()
    );
    close(body.mass, expected.mass, &name);
    assert_eq!(body.restitution, 0.0);
    assert_eq!(body.friction, 0.5);
}

fn check_joint(
    joint: &Joint,
    name: &str,
    (a, b): (usize, usize),
    position: GVec3,
    rotation: Vec3,
    limits_degrees: [f32; 3],
    spring: f32,
) {
    assert_eq!(joint.name_ja.as_str(), name);
    assert_eq!(joint.kind, JointKind::Spring6Dof);
    assert_eq!(joint.body_a, Some(RigidBodyIdx::new(a)), "{name}");
    assert_eq!(joint.body_b, Some(RigidBodyIdx::new(b)), "{name}");
    close_vec(joint.position, position, name);
    assert_eq!(joint.rotation, rotation, "{name}");
    assert_eq!(joint.move_lower, Vec3::ZERO);
    assert_eq!(joint.move_upper, Vec3::ZERO);
    let [x, y, z] = limits_degrees.map(f32::to_radians);
    assert_eq!(joint.rotate_lower, Vec3::new(-x, -y, -z), "{name}");
    assert_eq!(joint.rotate_upper, Vec3::new(x, y, z), "{name}");
    assert_eq!(joint.spring_move, Vec3::ZERO);
    assert_eq!(joint.spring_rotate, Vec3::new(spring, spring, spring));
}

fn position(model: &Model, bone: usize) -> GVec3 {
    model.bones[bone].position.into()
}

fn select(bones: Vec<usize>) -> PluginSelection {
    PluginSelection::new().with(ElementKind::Bone, bones)
}

/// Runs the tool expecting a refusal or an error.
fn refusal(model: &Model, selection: &PluginSelection, options: &Value) -> PluginError {
    let registry = Registry::builtin();
    let plugin = registry.find("physics_from_bones").unwrap();
    let options = match Options::from_json(&plugin.info().options, options) {
        Ok(options) => options,
        Err(error) => return error,
    };
    let mut working = model.clone();
    match run_plugin(plugin.as_ref(), &mut working, selection, &options) {
        Ok(_) => panic!("expected a refusal"),
        Err(error) => error,
    }
}

#[test]
fn a_hair_chain_of_gene_gets_capsules_along_its_bones_and_joints_at_their_heads() {
    let Some(model) = gene_without_physics() else {
        return;
    };
    let chain = ["右横髪1_1", "右横髪1_2", "右横髪1_3"].map(|name| bone_named(&model, name));
    let tip = bone_named(&model, "右横髪1End");
    let outcome = run_tool(
        "physics_from_bones",
        &model,
        &select(chain.to_vec()),
        &json!({}),
    );
    assert_eq!(outcome.label_en, "Physics from bones");
    assert_eq!(outcome.label_ja, "ボーンから剛体・Joint一括生成");
    assert_eq!(
        outcome.notes[0],
        "3 rigid bodies (0 anchors) and 2 joints (2 along the chains, 0 sideways) on 1 chains"
    );
    let after = &outcome.after;
    assert_eq!(after.rigid_bodies.len(), 3);
    assert_eq!(after.joints.len(), 2);
    // Each bone reaches to the next; the last to its tail bone (右横髪1End, not selected).
    let ends = [chain[1], chain[2], tip];
    let modes = [
        RigidMode::FollowBone,
        RigidMode::PhysicsWithBone,
        RigidMode::PhysicsWithBone,
    ];
    for k in 0..3 {
        let head = position(&model, chain[k]);
        let end = position(&model, ends[k]);
        let body = &after.rigid_bodies[k];
        check_body(
            body,
            &Expected {
                bone: chain[k],
                head,
                end,
                mode: modes[k],
                shape: RigidShape::Capsule,
                radius: 0.2 * (end - head).length(),
                mass: 1.0,
            },
            &model,
        );
        // Group 2 (stored 1); every group but its own.
        assert_eq!(body.group, 1);
        assert_eq!(body.non_collision_mask, 0xFFFD);
        assert_eq!(body.linear_damping, 0.5);
        assert_eq!(body.angular_damping, 0.5);
        assert_eq!(
            body.name_en.as_str(),
            model.bones[chain[k]].name_en.as_str()
        );
    }
    // The capsule sizes worked out by hand for 右横髪1_1: 0.5911 long.
    close(
        after.rigid_bodies[0].size.y,
        0.591_100_3,
        "length of 右横髪1_1",
    );
    // PmxEditor made Gene's own bodies of this chain the same size (radius 0.2 × length,
    // height = length), to the 4th decimal.
    let original = corpus_model("pmx/pmxeditor_gene_cc_by.pmx").unwrap();
    for (k, &bone) in chain.iter().enumerate() {
        let gene_body = original
            .rigid_bodies
            .iter()
            .find(|body| body.bone == Some(BoneIdx::new(bone)))
            .unwrap();
        let made = after.rigid_bodies[k].size;
        assert!(
            (made.x - gene_body.size.x).abs() < 1e-4,
            "{made:?} vs {:?}",
            gene_body.size
        );
        assert!(
            (made.y - gene_body.size.y).abs() < 1e-4,
            "{made:?} vs {:?}",
            gene_body.size
        );
        assert_eq!(gene_body.shape, RigidShape::Capsule);
    }
    for (k, &bone) in chain.iter().enumerate().skip(1) {
        check_joint(
            &after.joints[k - 1],
            &format!("J_{}", model.bones[bone].name_ja.as_str()),
            (k - 1, k),
            position(&model, bone),
            after.rigid_bodies[k].rotation,
            [20.0, 10.0, 20.0],
            100.0,
        );
    }
    assert_eq!(after.joints[0].name_en.as_str(), "J_右横髪1_2");
}

#[test]
fn anchored_chains_share_a_static_ball_on_their_parent_and_take_every_option() {
    let Some(model) = gene_without_physics() else {
        return;
    };
    let head_bone = bone_named(&model, "頭");
    let side = ["右横髪2_1", "右横髪2_2", "右横髪2_3"].map(|name| bone_named(&model, name));
    let back = ["後髪A1_1", "後髪A1_2"].map(|name| bone_named(&model, name));
    let mut selection: Vec<usize> = side.iter().chain(&back).copied().collect();
    selection.sort_unstable();
    let options = json!({
        "shape": "box",
        "radius": 0.3,
        "mode": "physics",
        "anchor": true,
        "mass": 2.0,
        "mass_decay": 0.5,
        "linear_damping": 0.9,
        "angular_damping": 0.95,
        "group": 5,
        "collide_with_own_group": true,
        "angle_limit_x": 30.0,
        "angle_limit_y": 5.0,
        "angle_limit_z": 15.0,
        "spring_rotate": 50.0,
    });
    let outcome = run_tool("physics_from_bones", &model, &select(selection), &options);
    let after = &outcome.after;
    assert_eq!(
        outcome.notes[0],
        "6 rigid bodies (1 anchors) and 5 joints (5 along the chains, 0 sideways) on 2 chains"
    );
    assert_eq!(after.rigid_bodies.len(), 6);
    assert_eq!(after.joints.len(), 5);

    // The anchor first: a static ball on 頭 at its head, as thick as the chains.
    let anchor = &after.rigid_bodies[0];
    assert_eq!(anchor.name_ja.as_str(), "頭");
    assert_eq!(anchor.bone, Some(BoneIdx::new(head_bone)));
    assert_eq!(anchor.mode, RigidMode::FollowBone);
    assert_eq!(anchor.shape, RigidShape::Sphere);
    assert_eq!(anchor.size, Vec3::new(0.3, 0.0, 0.0));
    assert_eq!(anchor.position, model.bones[head_bone].position);
    assert_eq!(anchor.rotation, Vec3::ZERO);

    // Then the chains by depth, then by bone index: 右横髪2_1, 後髪A1_1, 右横髪2_2, 後髪A1_2,
    // 右横髪2_3; every one swings (physics), the mass halves at each depth.
    let tip_of_side = bone_named(&model, "右横髪2End");
    let tip_of_back = bone_named(&model, "後髪A1End");
    let bodies = [
        (side[0], side[1], 2.0),
        (back[0], back[1], 2.0),
        (side[1], side[2], 1.0),
        (back[1], tip_of_back, 1.0),
        (side[2], tip_of_side, 0.5),
    ];
    for (k, &(bone, end, mass)) in bodies.iter().enumerate() {
        let body = &after.rigid_bodies[k + 1];
        check_body(
            body,
            &Expected {
                bone,
                head: position(&model, bone),
                end: position(&model, end),
                mode: RigidMode::Physics,
                shape: RigidShape::Box,
                radius: 0.3,
                mass,
            },
            &model,
        );
        assert_eq!(body.group, 4);
        assert_eq!(body.non_collision_mask, 0xFFFF);
        assert_eq!(body.linear_damping, 0.9);
        assert_eq!(body.angular_damping, 0.95);
    }
    for body in &after.rigid_bodies {
        assert_eq!(body.group, 4);
    }
    // Joints: the first bodies hang on the anchor, the others on the body above.
    let joints = [
        (0, 1, side[0]),
        (0, 2, back[0]),
        (1, 3, side[1]),
        (2, 4, back[1]),
        (3, 5, side[2]),
    ];
    for (joint, &(a, b, bone)) in after.joints.iter().zip(&joints) {
        check_joint(
            joint,
            &format!("J_{}", model.bones[bone].name_ja.as_str()),
            (a, b),
            position(&model, bone),
            after.rigid_bodies[b].rotation,
            [30.0, 5.0, 15.0],
            50.0,
        );
    }
}

#[test]
fn bodies_and_joints_gene_already_has_are_used_not_duplicated() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let bangs = ["前髪1_1", "前髪1_2"].map(|name| bone_named(&model, name));
    // Both bones have their bodies and joints (to 頭a and to each other): nothing to make.
    let error = refusal(&model, &select(bangs.to_vec()), &json!({"anchor": true}));
    assert!(
        error
            .to_string()
            .contains("already have their rigid bodies"),
        "{error}"
    );
    // A chain of 右横髪1 without its bodies, next to the bodies Gene has: the existing body
    // of 頭 (頭a, the first on the bone) is the anchor, 右横髪1_1's body is used as it is.
    let mut model = model;
    let chain = ["右横髪1_1", "右横髪1_2", "右横髪1_3"].map(|name| bone_named(&model, name));
    let first_body = model
        .rigid_bodies
        .iter()
        .position(|body| body.bone == Some(BoneIdx::new(chain[0])))
        .unwrap();
    let head_body = model
        .rigid_bodies
        .iter()
        .position(|body| body.bone == Some(BoneIdx::new(bone_named(&model, "頭"))))
        .unwrap();
    // Keep 右横髪1_1's body, drop the other two and every joint touching the chain.
    let dropped: Vec<usize> = model
        .rigid_bodies
        .iter()
        .enumerate()
        .filter(|(_, body)| {
            body.bone == Some(BoneIdx::new(chain[1])) || body.bone == Some(BoneIdx::new(chain[2]))
        })
        .map(|(index, _)| index)
        .collect();
    assert_eq!(dropped.len(), 2);
    assert!(dropped.iter().all(|&index| index > first_body));
    model.joints.retain(|joint| {
        ![joint.body_a, joint.body_b]
            .iter()
            .flatten()
            .any(|body| body.get() == first_body || dropped.contains(&body.get()))
    });
    for &index in dropped.iter().rev() {
        model.rigid_bodies.remove(index);
        for joint in &mut model.joints {
            for end in [&mut joint.body_a, &mut joint.body_b] {
                if let Some(body) = *end
                    && body.get() > index
                {
                    *end = Some(RigidBodyIdx::new(body.get() - 1));
                }
            }
        }
    }
    let outcome = run_tool(
        "physics_from_bones",
        &model,
        &select(chain.to_vec()),
        &json!({"anchor": true}),
    );
    let after = &outcome.after;
    let count = model.rigid_bodies.len();
    assert_eq!(after.rigid_bodies.len(), count + 2);
    assert_eq!(after.joints.len(), model.joints.len() + 3);
    assert_eq!(
        outcome.notes[1],
        "1 bones already had a rigid body, which was used instead of a new one: 右横髪1_1"
    );
    assert_eq!(
        outcome.notes[2],
        "the chains hang on 1 rigid bodies their parent bones already had"
    );
    assert_eq!(after.rigid_bodies[count].bone, Some(BoneIdx::new(chain[1])));
    assert_eq!(
        after.rigid_bodies[count + 1].bone,
        Some(BoneIdx::new(chain[2]))
    );
    let joints = &after.joints[model.joints.len()..];
    let pairs: Vec<(usize, usize)> = joints
        .iter()
        .map(|joint| (joint.body_a.unwrap().get(), joint.body_b.unwrap().get()))
        .collect();
    assert_eq!(
        pairs,
        vec![
            (head_body, first_body),
            (first_body, count),
            (count, count + 1)
        ]
    );
    assert_eq!(joints[0].rotation, model.rigid_bodies[first_body].rotation);
}

/// A skirt built in code: 下半身 at (0, 10, 0) and three chains of two bones around it at
/// 30°, 150° and 270° (atan2(z, x)), each reaching down and out to a tail offset.
fn skirt() -> (Model, Vec<[usize; 2]>) {
    let mut model = Model::default();
    model.bones.push(Bone {
        name_ja: "下半身".into(),
        name_en: "lower body".into(),
        position: Vec3::new(0.0, 10.0, 0.0),
        ..Bone::default()
    });
    let mut chains = Vec::new();
    for (k, degrees) in [270.0f32, 30.0, 150.0].into_iter().enumerate() {
        let (sin, cos) = degrees.to_radians().sin_cos();
        let at = |radius: f32, height: f32| Vec3::new(radius * cos, height, radius * sin);
        let root = model.bones.len();
        model.bones.push(Bone {
            name_ja: format!("スカート{k}_0").into(),
            position: at(1.0, 10.0),
            parent: Some(BoneIdx::new(0)),
            ..Bone::default()
        });
        let lower = at(1.5, 8.0);
        let tip = at(2.0, 6.0);
        model.bones.push(Bone {
            name_ja: format!("スカート{k}_1").into(),
            position: lower,
            parent: Some(BoneIdx::new(root)),
            tail_offset: Vec3::new(tip.x - lower.x, tip.y - lower.y, tip.z - lower.z),
            ..Bone::default()
        });
        chains.push([root, root + 1]);
    }
    (model, chains)
}

#[test]
fn a_skirt_ring_of_three_chains_is_joined_sideways_in_order_round_its_parent() {
    let (model, chains) = skirt();
    let all: Vec<usize> = chains.iter().flatten().copied().collect();
    let outcome = run_tool(
        "physics_from_bones",
        &model,
        &select(all.clone()),
        &json!({"connect_chains": true}),
    );
    let after = &outcome.after;
    // Bodies by depth: the three tops (static), then the three lower bodies.
    assert_eq!(after.rigid_bodies.len(), 6);
    for (k, chain) in chains.iter().enumerate() {
        let top = &after.rigid_bodies[k];
        let lower = &after.rigid_bodies[3 + k];
        let tip = GVec3::from(model.bones[chain[1]].position)
            + GVec3::from(model.bones[chain[1]].tail_offset);
        for (body, bone, end, mode) in [
            (
                top,
                chain[0],
                position(&model, chain[1]),
                RigidMode::FollowBone,
            ),
            (lower, chain[1], tip, RigidMode::PhysicsWithBone),
        ] {
            let head = position(&model, bone);
            check_body(
                body,
                &Expected {
                    bone,
                    head,
                    end,
                    mode,
                    shape: RigidShape::Capsule,
                    radius: 0.2 * (end - head).length(),
                    mass: 1.0,
                },
                &model,
            );
        }
    }
    // Three joints down the chains, then three sideways between the lower bodies (the tops
    // both follow their bones): 0–1, 1–2 and, the ring closing (gaps of 120°), 2–0.
    assert_eq!(
        outcome.notes[0],
        "6 rigid bodies (0 anchors) and 6 joints (3 along the chains, 3 sideways) on 3 chains"
    );
    assert_eq!(after.joints.len(), 6);
    for (k, chain) in chains.iter().enumerate() {
        check_joint(
            &after.joints[k],
            &format!("J_スカート{k}_1"),
            (k, 3 + k),
            position(&model, chain[1]),
            after.rigid_bodies[3 + k].rotation,
            [20.0, 10.0, 20.0],
            100.0,
        );
    }
    for (joint, (a, b)) in after.joints[3..].iter().zip([(0, 1), (1, 2), (2, 0)]) {
        let (body_a, body_b) = (&after.rigid_bodies[3 + a], &after.rigid_bodies[3 + b]);
        check_joint(
            joint,
            &format!("J_スカート{a}_1_スカート{b}_1"),
            (3 + a, 3 + b),
            (GVec3::from(body_a.position) + GVec3::from(body_b.position)) / 2.0,
            body_a.rotation,
            [20.0, 10.0, 20.0],
            100.0,
        );
    }
    // The lower body of chain 0 hangs straight out at 270°: its axis, worked by hand, is
    // (0, −2, −0.5) normalised, x = atan2(−0.5, −2), no y or z turn.
    let axis = euler_to_quat(after.rigid_bodies[3].rotation) * GVec3::Y;
    assert!(axis.abs_diff_eq(GVec3::new(0.0, -2.0, -0.5).normalize(), TOLERANCE));
    let expected_x = (-0.5f32).atan2(-2.0);
    close(
        after.rigid_bodies[3].rotation.x,
        expected_x,
        "x of スカート0_1",
    );
    close(after.rigid_bodies[3].rotation.z, 0.0, "z of スカート0_1");
    assert_eq!(after.rigid_bodies[3].rotation.y, 0.0);

    // Anchored: a ball on 下半身 first, every chain body swings, and both rows are joined.
    let anchored = run_tool(
        "physics_from_bones",
        &model,
        &select(all.clone()),
        &json!({"connect_chains": true, "anchor": true}),
    );
    let after = &anchored.after;
    assert_eq!(after.rigid_bodies.len(), 7);
    assert_eq!(after.rigid_bodies[0].bone, Some(BoneIdx::new(0)));
    assert_eq!(after.rigid_bodies[0].mode, RigidMode::FollowBone);
    assert!(
        after.rigid_bodies[1..]
            .iter()
            .all(|body| body.mode == RigidMode::PhysicsWithBone)
    );
    let pairs: Vec<(usize, usize)> = after
        .joints
        .iter()
        .map(|joint| (joint.body_a.unwrap().get(), joint.body_b.unwrap().get()))
        .collect();
    assert_eq!(
        pairs,
        vec![
            (0, 1),
            (0, 2),
            (0, 3),
            (1, 4),
            (2, 5),
            (3, 6),
            (1, 2),
            (4, 5),
            (2, 3),
            (5, 6),
            (3, 1),
            (6, 4),
        ]
    );

    // An open ring leaves out the joint from the last chain back to the first.
    let open = run_tool(
        "physics_from_bones",
        &model,
        &select(all),
        &json!({"connect_chains": true, "ring": "open"}),
    );
    assert_eq!(open.after.joints.len(), 5);
    assert_eq!(
        open.after.joints[4].name_ja.as_str(),
        "J_スカート1_1_スカート2_1"
    );
}

#[test]
fn a_row_of_bangs_is_not_closed_into_a_ring() {
    // Three chains in front of the parent over 60° (angles −120°, −90°, −60°): no 180° gap is
    // missing, so the automatic ring stays open.
    let (mut model, chains) = skirt();
    for (chain, degrees) in chains.iter().zip([-120.0f32, -90.0, -60.0]) {
        let (sin, cos) = degrees.to_radians().sin_cos();
        model.bones[chain[0]].position = Vec3::new(cos, 10.0, sin);
        model.bones[chain[1]].position = Vec3::new(1.5 * cos, 8.0, 1.5 * sin);
    }
    let all: Vec<usize> = chains.iter().flatten().copied().collect();
    let outcome = run_tool(
        "physics_from_bones",
        &model,
        &select(all),
        &json!({"connect_chains": true}),
    );
    let names: Vec<String> = outcome.after.joints[3..]
        .iter()
        .map(|joint| joint.name_ja.as_str().into_owned())
        .collect();
    assert_eq!(
        names,
        vec!["J_スカート0_1_スカート1_1", "J_スカート1_1_スカート2_1"]
    );
}

#[test]
fn refusals_and_bad_options_say_why() {
    let (model, chains) = skirt();
    // Nothing selected.
    let error = refusal(&model, &PluginSelection::new(), &json!({}));
    assert!(matches!(
        error,
        PluginError::NothingSelected { kind: "bone" }
    ));
    // A bone with no child selected and no tail has no length.
    let mut tailless = model.clone();
    tailless.bones[chains[0][1]].tail_offset = Vec3::ZERO;
    let error = refusal(&tailless, &select(vec![chains[0][1]]), &json!({}));
    assert!(error.to_string().contains("has a length"), "{error}");
    assert!(
        error
            .message(pmx_core::i18n::Language::Japanese)
            .contains("長さ")
    );
    // Options out of range or unknown.
    for options in [
        json!({"group": 17}),
        json!({"group": 0}),
        json!({"shape": "cone"}),
        json!({"mode": "follow"}),
        json!({"radius_ratio": 0.0}),
        json!({"mass": 0.0}),
        json!({"angle_limit_x": 181.0}),
        json!({"spring": 1.0}),
    ] {
        let error = refusal(&model, &select(vec![chains[0][0]]), &options);
        assert!(
            matches!(error, PluginError::BadOption { .. }),
            "{options}: {error}"
        );
    }
    // A single bone (with a tail) whose parent is unselected: one static body, no joint; with
    // the anchor it swings on a ball on its parent.
    let single = run_tool(
        "physics_from_bones",
        &model,
        &select(vec![chains[0][1]]),
        &json!({}),
    );
    assert_eq!(single.after.rigid_bodies.len(), 1);
    assert_eq!(single.after.rigid_bodies[0].mode, RigidMode::FollowBone);
    assert!(single.after.joints.is_empty());
    // A chain starting at a bone without a parent cannot be anchored: its first body follows
    // the bone, with a note.
    let rootless = run_tool(
        "physics_from_bones",
        &model,
        &select(vec![0, chains[0][0], chains[0][1]]),
        &json!({"anchor": true}),
    );
    let modes: Vec<RigidMode> = rootless
        .after
        .rigid_bodies
        .iter()
        .map(|body| body.mode)
        .collect();
    assert_eq!(
        modes,
        vec![
            RigidMode::FollowBone,
            RigidMode::PhysicsWithBone,
            RigidMode::PhysicsWithBone
        ]
    );
    assert_eq!(rootless.after.joints.len(), 2);
    assert_eq!(
        rootless.notes[1],
        "1 chains start at a bone without a parent (or with one at no finite place), so their first body follows its bone: 下半身"
    );
}

#[test]
fn the_gene_skirt_hem_and_every_bone_of_the_models_never_break_the_model() {
    // The generated sample and Gene (its physics stripped) with every bone selected: no panic,
    // no new validator error, undo exact (run_tool checks these).
    let sample = pmx_core::generate::sample_model();
    let all: Vec<usize> = (0..sample.bones.len()).collect();
    let outcome = run_tool(
        "physics_from_bones",
        &sample,
        &select(all),
        &json!({"anchor": true, "connect_chains": true}),
    );
    assert!(outcome.after.rigid_bodies.len() > sample.rigid_bodies.len());
    let Some(gene) = gene_without_physics() else {
        return;
    };
    // Gene's hem: six one-bone chains on 上半身補 (すそN_1 → すそNEnd), anchored and joined
    // round in a closed ring: 7 bodies, 6 joints down and 6 sideways.
    let hem: Vec<usize> = (1..=6)
        .map(|n| bone_named(&gene, &format!("すそ{n}_1")))
        .collect();
    let outcome = run_tool(
        "physics_from_bones",
        &gene,
        &select(hem.clone()),
        &json!({"anchor": true, "connect_chains": true}),
    );
    assert_eq!(
        outcome.notes[0],
        "7 rigid bodies (1 anchors) and 12 joints (6 along the chains, 6 sideways) on 6 chains"
    );
    let parent = gene.bones[hem[0]].parent.unwrap().get();
    assert_eq!(gene.bones[parent].name_ja.as_str(), "上半身補");
    // Round the parent by angle atan2(z, x): すそ1 (front, z −1.71) is first, then すそ6, ...
    let order: Vec<String> = outcome.after.joints[6..]
        .iter()
        .map(|joint| joint.name_ja.as_str().into_owned())
        .collect();
    assert_eq!(
        order,
        vec![
            "J_すそ6_1_すそ1_1",
            "J_すそ1_1_すそ2_1",
            "J_すそ2_1_すそ3_1",
            "J_すそ3_1_すそ4_1",
            "J_すそ4_1_すそ5_1",
            "J_すそ5_1_すそ6_1",
        ]
    );
    let all: Vec<usize> = (0..gene.bones.len()).collect();
    let everything = run_tool(
        "physics_from_bones",
        &gene,
        &select(all),
        &json!({"anchor": true, "connect_chains": true}),
    );
    assert!(everything.after.rigid_bodies.len() > 100);
}

#[test]
fn a_broken_skeleton_is_refused_bone_by_bone_without_a_panic() {
    let bone = |name: &str, position: Vec3, parent: Option<usize>| Bone {
        name_ja: name.into(),
        position,
        parent: parent.map(BoneIdx::new),
        ..Bone::default()
    };
    // 0: a dangling parent and no tail; 1 ⇄ 2: a parent loop; 3 → 4: the child at infinity
    // (not NaN, which no model equals, so run_tool could not check the undo); 5 → 6: a sound
    // chain with a tail.
    let mut model = Model {
        bones: vec![
            bone("宙", Vec3::new(0.0, 1.0, 0.0), Some(99)),
            bone("輪A", Vec3::new(0.0, 2.0, 0.0), Some(2)),
            bone("輪B", Vec3::new(0.0, 3.0, 0.0), Some(1)),
            bone("親", Vec3::new(1.0, 2.0, 0.0), None),
            bone("無限", Vec3::new(f32::INFINITY, 1.0, 0.0), Some(3)),
            bone("髪1", Vec3::new(2.0, 2.0, 0.0), None),
            bone("髪2", Vec3::new(2.0, 1.0, 0.0), Some(5)),
        ],
        ..Model::default()
    };
    model.bones[6].tail_offset = Vec3::new(0.0, -1.0, 0.0);
    let outcome = run_tool(
        "physics_from_bones",
        &model,
        &select((0..7).collect()),
        &json!({"anchor": true, "connect_chains": true}),
    );
    assert_eq!(outcome.after.rigid_bodies.len(), 2);
    assert_eq!(outcome.after.joints.len(), 1);
    assert_eq!(
        outcome.notes[1..4],
        [
            "3 bones have no length (no selected child and no tail away from the head) and got no body: 宙, 親, 無限",
            "2 bones are their own ancestors (a parent loop) and got no body: 輪A, 輪B",
            "1 chains start at a bone without a parent (or with one at no finite place), so their first body follows its bone: 髪1",
        ]
    );
    // Only the broken bones, one at NaN: refused, with the reason.
    model.bones[4].position.x = f32::NAN;
    let error = refusal(&model, &select(vec![0, 3, 4]), &json!({}));
    assert!(error.to_string().contains("has a length"), "{error}");
}
