//! VRM import physics: spring bones become rigid bodies and joints, colliders static bodies.
//!
//! - A hand-made VRM 1.0 chain with a cone, a hinge and a spherical `VRMC_springBone_limit`:
//!   the joints' limits and spring constants are the numbers the inverse mapping predicts
//!   (worked out here from the formulas, not by calling the importer's functions).
//! - PMX → VRM → PMX keeps one dynamic body per dynamic body the export carried, one joint
//!   per dynamic body, and the exported stiffness and drag come back (VRM → PMX → VRM).
//! - Every non-BROKEN corpus file with springs imports with bodies, validates without errors
//!   and holds no NaN; `physics: false` gives no bodies; malformed springs are listed with
//!   their JSON path, never a panic.
//!
//! Corpus files that are absent are skipped with the reason printed.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::vrm::{
    VrmExportOptions, VrmImport, VrmImportOptions, VrmLoss, load_vrm_path, read_vrm, split_glb,
    write_vrm,
};
use pmx_core::model::{JointKind, Model, RigidMode};
use pmx_tests::{corpus_dir, files_with_extension};
use serde_json::{Value, json};

fn dynamic_bodies(model: &Model) -> usize {
    model
        .rigid_bodies
        .iter()
        .filter(|b| !matches!(b.mode, RigidMode::FollowBone))
        .count()
}

/// Every number of every body and joint is finite.
fn assert_no_nan(model: &Model, what: &str) {
    for (i, body) in model.rigid_bodies.iter().enumerate() {
        let numbers = [
            body.size.to_array(),
            body.position.to_array(),
            body.rotation.to_array(),
            [body.mass, body.linear_damping, body.angular_damping],
        ];
        assert!(
            numbers.iter().flatten().all(|v| v.is_finite()),
            "{what}: body {i} {body:?}"
        );
    }
    for (i, joint) in model.joints.iter().enumerate() {
        let numbers = [
            joint.position,
            joint.rotation,
            joint.move_lower,
            joint.move_upper,
            joint.rotate_lower,
            joint.rotate_upper,
            joint.spring_move,
            joint.spring_rotate,
        ];
        assert!(
            numbers
                .iter()
                .flat_map(|v| v.to_array())
                .all(f32::is_finite),
            "{what}: joint {i} {joint:?}"
        );
    }
}

fn options(physics: bool) -> LoadOptions {
    LoadOptions {
        vrm: Some(VrmImportOptions {
            physics,
            ..VrmImportOptions::default()
        }),
        ..LoadOptions::default()
    }
}

/// A head node with a hair chain of four segments hanging straight down (0.1 m, then 0.2 m
/// each), the first three joints limited (cone 0.5, hinge 0.7, spherical 0.6 × 0.3), the
/// fourth free; a sphere collider on the head in a group the spring collides with.
fn hair_vrm(spring_extra: impl FnOnce(&mut Value)) -> Value {
    let joint = |node: usize, limit: Option<Value>| {
        let mut joint = json!({
            "node": node,
            "hitRadius": 0.02,
            "stiffness": 1.0,
            "gravityPower": 0.0,
            "gravityDir": [0.0, -1.0, 0.0],
            "dragForce": 0.1,
        });
        if let Some(limit) = limit {
            joint["extensions"] =
                json!({ "VRMC_springBone_limit": { "specVersion": "1.0-draft", "limit": limit } });
        }
        joint
    };
    let mut spring = json!({
        "name": "hair",
        "joints": [
            joint(1, Some(json!({ "cone": { "angle": 0.5 } }))),
            joint(2, Some(json!({ "hinge": { "angle": 0.7 } }))),
            joint(3, Some(json!({ "spherical": { "pitch": 0.6, "yaw": 0.3 } }))),
            joint(4, None),
            { "node": 5 },
        ],
        "colliderGroups": [0],
    });
    spring_extra(&mut spring);
    json!({
        "asset": { "version": "2.0", "generator": "vrm_import_physics test" },
        "scene": 0,
        "scenes": [{ "nodes": [0] }],
        "nodes": [
            { "name": "Head", "translation": [0.0, 1.5, 0.0], "children": [1] },
            { "name": "Hair1", "translation": [0.0, -0.1, 0.0], "children": [2] },
            { "name": "Hair2", "translation": [0.0, -0.2, 0.0], "children": [3] },
            { "name": "Hair3", "translation": [0.0, -0.2, 0.0], "children": [4] },
            { "name": "Hair4", "translation": [0.0, -0.2, 0.0], "children": [5] },
            { "name": "HairTip", "translation": [0.0, -0.2, 0.0] },
        ],
        "extensionsUsed": ["VRMC_vrm", "VRMC_springBone", "VRMC_springBone_limit"],
        "extensions": {
            "VRMC_vrm": {
                "specVersion": "1.0",
                "meta": { "name": "hair", "authors": ["test"], "licenseUrl": "https://vrm.dev/licenses/1.0/" },
                "humanoid": { "humanBones": {} },
            },
            "VRMC_springBone": {
                "specVersion": "1.0",
                "colliders": [
                    { "node": 0, "shape": { "sphere": { "offset": [0.0, 0.1, 0.0], "radius": 0.1 } } },
                ],
                "colliderGroups": [{ "name": "head", "colliders": [0] }],
                "springs": [spring],
            },
        },
    })
}

fn body_named<'m>(model: &'m Model, name: &str) -> &'m pmx_core::model::RigidBody {
    model
        .rigid_bodies
        .iter()
        .find(|b| b.name_ja.as_str() == name)
        .unwrap_or_else(|| panic!("no body {name}"))
}

fn joint_named<'m>(model: &'m Model, name: &str) -> &'m pmx_core::model::Joint {
    model
        .joints
        .iter()
        .find(|j| j.name_ja.as_str() == name)
        .unwrap_or_else(|| panic!("no joint {name}"))
}

fn close(a: [f32; 3], b: [f32; 3], tolerance: f32) -> bool {
    a.iter().zip(&b).all(|(x, y)| (x - y).abs() <= tolerance)
}

#[test]
fn a_limited_hair_chain_imports_with_the_predicted_limits_and_springs() {
    let imported = read_vrm(&glb(&hair_vrm(|_| {})), &LoadOptions::default()).unwrap();
    let model = &imported.model;
    for note in &imported.report.notes {
        println!("note: {note}");
    }
    assert!(errors(model).is_empty(), "{:#?}", errors(model));
    assert_no_nan(model, "hair");
    // Bodies: the head's collider and the chain's anchor on the head (kinematic), and one
    // dynamic body for each of the four segments; one joint for each.
    assert_eq!(model.rigid_bodies.len(), 6, "{:#?}", model.rigid_bodies);
    assert_eq!(dynamic_bodies(model), 4);
    assert_eq!(model.joints.len(), 4);
    let names: Vec<String> = model
        .rigid_bodies
        .iter()
        .map(|b| b.name_ja.as_str().into_owned())
        .collect();
    assert_eq!(
        names,
        ["Head", "Head_2", "Hair1", "Hair2", "Hair3", "Hair4"],
        "bodies are named after their bones, made unique"
    );
    for hair in ["Hair1", "Hair2", "Hair3", "Hair4"] {
        let body = body_named(model, hair);
        assert_eq!(body.mode, RigidMode::PhysicsWithBone);
        assert_eq!(
            joint_named(model, hair).kind,
            JointKind::Spring6Dof,
            "joints are named after the child bone"
        );
    }

    // The second segment: Hair2 → Hair3, 0.2 m = 2.5 units long, hanging; hitRadius 0.02 m =
    // 0.25 units. A capsule reaching from head to tail: cylinder 2.5 − 2·0.25 = 2 units,
    // centred 1.25 below the joint.
    let body = body_named(model, "Hair2");
    assert_eq!(body.shape, pmx_core::model::RigidShape::Capsule);
    assert!(
        close(body.size.to_array(), [0.25, 2.0, 0.0], 1e-4),
        "{body:?}"
    );
    let hair2 = model
        .bones
        .iter()
        .find(|b| b.name_ja.as_str() == "Hair2")
        .unwrap();
    let centre = [hair2.position.x, hair2.position.y - 1.25, hair2.position.z];
    assert!(close(body.position.to_array(), centre, 1e-4), "{body:?}");
    // K = stiffness · I / (L·Δt): I = m(3R² + (h + 2R)²)/12 + m·r² with m = 1, R = 0.25,
    // h = 2, r = 1.25; L = 0.2 m, Δt = 1/60 s.
    let inertia = (3.0 * 0.25f64.powi(2) + 2.5f64.powi(2)) / 12.0 + 1.25f64.powi(2);
    let spring = 1.0 * inertia / (0.2 / 60.0);
    let joint = joint_named(model, "Hair2");
    assert!(
        (f64::from(joint.spring_rotate.x) - spring).abs() < 1e-3 * spring,
        "{} vs {spring}",
        joint.spring_rotate.x
    );
    assert_eq!(joint.spring_rotate.x, joint.spring_rotate.z);
    // damping = 1 − ((1 − drag)/(1 + δ/L))^(1/Δt), δ = Δt·(stiffness + gravityPower_body),
    // gravityPower_body = m·g·r/I · L·Δt (the body hangs: cos ψ = 1).
    let dt = 1.0 / 60.0;
    let gravity_power = 98.0 * 1.25 / inertia * 0.2 * dt;
    let projection = 1.0 + dt * (1.0 + gravity_power) / 0.2;
    let damping = 1.0 - ((1.0 - 0.1) / projection).powf(60.0);
    assert!(
        (f64::from(body.linear_damping) - damping).abs() < 1e-5,
        "{} vs {damping}",
        body.linear_damping
    );
    assert_eq!(body.linear_damping, body.angular_damping);

    // Limits. The chain hangs straight down in glTF and in MMD: the limit frame is 180°
    // about X; MMD's X range is glTF's negated (the z mirror), its Z range glTF's; the
    // twist (Y) is locked.
    let limits = |name: &str| {
        let joint = joint_named(model, name);
        (joint.rotate_lower.to_array(), joint.rotate_upper.to_array())
    };
    let (lower, upper) = limits("Hair1");
    assert!(close(lower, [-0.5, 0.0, -0.5], 1e-5) && close(upper, [0.5, 0.0, 0.5], 1e-5));
    let (lower, upper) = limits("Hair2");
    assert!(close(lower, [-0.7, 0.0, 0.0], 1e-5) && close(upper, [0.7, 0.0, 0.0], 1e-5));
    let (lower, upper) = limits("Hair3");
    assert!(close(lower, [-0.6, 0.0, -0.3], 1e-5) && close(upper, [0.6, 0.0, 0.3], 1e-5));
    // No limit: free swing about X and Z (what the export reads as no limit).
    let (lower, upper) = limits("Hair4");
    let pi = std::f32::consts::PI;
    assert!(close(lower, [-pi, 0.0, -pi], 1e-5) && close(upper, [pi, 0.0, pi], 1e-5));
    // The joints' frames turn +Y down the chain: 180° about X.
    let rotation = joint_named(model, "Hair1").rotation;
    let frame = pmx_core::model::facts::euler_to_quat(rotation);
    let down = frame * glam::Vec3::Y;
    assert!((down - glam::Vec3::NEG_Y).length() < 1e-5, "{down}");
    // Each joint sits at its bone's head.
    assert_eq!(joint_named(model, "Hair2").position, hair2.position);

    // Collisions: the head's collider is in a group the hair's mask opens; the hair bodies
    // (and the anchor) share a group their masks leave closed.
    let collider = body_named(model, "Head");
    assert_eq!(collider.mode, RigidMode::FollowBone);
    let hair = body_named(model, "Hair1");
    assert_ne!(collider.group, hair.group);
    assert_ne!(hair.non_collision_mask & (1 << collider.group), 0);
    assert_ne!(collider.non_collision_mask & (1 << hair.group), 0);
    assert_eq!(hair.non_collision_mask & (1 << hair.group), 0);
    assert_eq!(body_named(model, "Head_2").non_collision_mask, 0);
    // The collider's sphere: 0.1 m above the head, radius 0.1 m.
    assert!(close(collider.size.to_array(), [1.25, 0.0, 0.0], 1e-4));
    let head = model
        .bones
        .iter()
        .find(|b| b.name_ja.as_str() == "Head")
        .unwrap();
    assert!((collider.position.y - (head.position.y + 1.25)).abs() < 1e-4);
    // Nothing lost, and the old "not imported" note is gone.
    assert!(
        imported.report.notes.iter().all(|n| !n.lost),
        "{:#?}",
        imported.report.notes
    );
}

#[test]
fn without_physics_there_are_no_bodies() {
    let imported = read_vrm(&glb(&hair_vrm(|_| {})), &options(false)).unwrap();
    assert_eq!(imported.model.rigid_bodies.len(), 0);
    assert_eq!(imported.model.joints.len(), 0);
    let Some(dir) = corpus_dir("vrm") else { return };
    let path = dir.join("metalkit_springbone_capsule_collider_vrm1.vrm");
    let Ok(bytes) = std::fs::read(&path) else {
        println!("skipped: {} is absent", path.display());
        return;
    };
    assert!(
        !read_vrm(&bytes, &options(true))
            .unwrap()
            .model
            .rigid_bodies
            .is_empty()
    );
    assert!(
        read_vrm(&bytes, &options(false))
            .unwrap()
            .model
            .rigid_bodies
            .is_empty()
    );
}

/// A change that damages a spring's JSON.
type Damage = Box<dyn Fn(&mut Value)>;

#[test]
fn malformed_springs_are_listed_and_left_out() {
    let cases: Vec<(&str, Damage)> = vec![
        (
            "joints[2]",
            Box::new(|spring: &mut Value| spring["joints"][2]["node"] = json!(99)),
        ),
        (
            "colliderGroups",
            Box::new(|spring: &mut Value| spring["colliderGroups"] = json!([0, 7])),
        ),
        (
            "hitRadius",
            Box::new(|spring: &mut Value| spring["joints"][1]["hitRadius"] = json!(-1.0)),
        ),
        (
            "stiffness",
            Box::new(|spring: &mut Value| spring["joints"][0]["stiffness"] = json!("NaN")),
        ),
        (
            "limit",
            Box::new(|spring: &mut Value| {
                spring["joints"][1]["extensions"]["VRMC_springBone_limit"]["limit"] =
                    json!({ "cone": { "angle": -2.0 } });
            }),
        ),
        (
            "node",
            Box::new(|spring: &mut Value| spring["joints"][1]["node"] = json!(1)),
        ),
    ];
    for (what, damage) in cases {
        let vrm = hair_vrm(damage);
        let imported =
            read_vrm(&glb(&vrm), &LoadOptions::default()).unwrap_or_else(|e| panic!("{what}: {e}"));
        let model = &imported.model;
        assert!(errors(model).is_empty(), "{what}: {:#?}", errors(model));
        assert_no_nan(model, what);
        let listed: Vec<String> = imported
            .report
            .notes
            .iter()
            .filter(|n| n.lost)
            .map(ToString::to_string)
            .collect();
        assert!(
            listed
                .iter()
                .any(|n| n.contains("VRMC_springBone") && n.contains("springs[0]")),
            "{what}: {listed:#?}"
        );
        println!("{what}: {listed:?}, {} bodies", model.rigid_bodies.len());
    }
    // A broken collider: a negative radius leaves the collider out, the springs stay.
    let mut vrm = hair_vrm(|_| {});
    vrm["extensions"]["VRMC_springBone"]["colliders"][0]["shape"]["sphere"]["radius"] = json!(-0.5);
    let imported = read_vrm(&glb(&vrm), &LoadOptions::default()).unwrap();
    assert_eq!(dynamic_bodies(&imported.model), 4);
    assert_eq!(imported.model.rigid_bodies.len(), 5, "no collider body");
    assert!(
        imported
            .report
            .notes
            .iter()
            .any(|n| n.lost && n.to_string().contains("colliders[0]"))
    );
}

/// Every spring joint's (stiffness, dragForce) of a VRM by its node's name (the import keeps
/// the names; the order of the springs may change with the order of the bones).
fn spring_settings_of(vrm: &[u8]) -> std::collections::BTreeMap<String, (f64, f64)> {
    let (json, _) = split_glb(vrm).unwrap();
    let mut out = std::collections::BTreeMap::new();
    let springs = json["extensions"]["VRMC_springBone"]["springs"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for spring in springs {
        let joints = spring["joints"].as_array().cloned().unwrap_or_default();
        // The tail joint's settings mean nothing.
        for joint in joints.iter().take(joints.len().saturating_sub(1)) {
            let node = joint["node"].as_u64().unwrap();
            let name = json["nodes"][usize::try_from(node).unwrap()]["name"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            out.insert(
                name,
                (
                    joint["stiffness"].as_f64().unwrap_or(1.0),
                    joint["dragForce"].as_f64().unwrap_or(0.5),
                ),
            );
        }
    }
    out
}

fn not_carried(losses: &[VrmLoss]) -> usize {
    losses
        .iter()
        .map(|loss| match loss {
            VrmLoss::PhysicsNotCarried { dynamic_bodies, .. } => *dynamic_bodies,
            _ => 0,
        })
        .sum()
}

/// PMX → VRM → PMX → VRM: the dynamic bodies the export carried come back one for one with
/// a joint each, and the second export's stiffness and drag are the first's.
fn round_trip(model: &Model, what: &str) {
    let Ok(first) = write_vrm(model, &VrmExportOptions::default()) else {
        println!("{what}: does not export to VRM; skipped");
        return;
    };
    let carried = dynamic_bodies(model) - not_carried(&first.report.losses);
    let imported: VrmImport = read_vrm(&first.vrm, &LoadOptions::default()).unwrap();
    let back = &imported.model;
    assert!(errors(back).is_empty(), "{what}: {:#?}", errors(back));
    assert_no_nan(back, what);
    // The exact relation: one dynamic body per exported joint that has a next joint (each
    // exported spring's joints but its tail), which is each carried MMD body; one MMD joint
    // per dynamic body.
    let exported_segments = first.report.springs.joints - first.report.springs.springs;
    assert_eq!(exported_segments, carried, "{what}");
    assert_eq!(dynamic_bodies(back), carried, "{what}");
    assert_eq!(back.joints.len(), dynamic_bodies(back), "{what}");
    println!(
        "{what}: {} dynamic bodies / {} joints → {carried} springs joints → {} bodies ({} dynamic), {} joints",
        dynamic_bodies(model),
        model.joints.len(),
        back.rigid_bodies.len(),
        dynamic_bodies(back),
        back.joints.len()
    );
    // VRM → PMX → VRM: the settings come back (drag as far as an f32 damping holds it).
    let second = write_vrm(back, &VrmExportOptions::default()).unwrap();
    let (a, b) = (
        spring_settings_of(&first.vrm),
        spring_settings_of(&second.vrm),
    );
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{what}"
    );
    for ((i, (stiffness, drag)), (stiffness2, drag2)) in a.iter().zip(b.values()) {
        assert!(
            (stiffness - stiffness2).abs() <= 1e-3 * stiffness.max(1.0),
            "{what} joint {i}: stiffness {stiffness} → {stiffness2}"
        );
        if *drag < 0.1 {
            assert!(
                (drag - drag2).abs() <= 2e-3,
                "{what} joint {i}: drag {drag} → {drag2}"
            );
        }
    }
}

#[test]
fn pmx_to_vrm_to_pmx_keeps_the_dynamic_bodies_and_joints() {
    let sample = pmx_core::generate::sample_model();
    assert!(dynamic_bodies(&sample) > 0, "the sample has physics");
    round_trip(&sample, "sample");
    let Some(dir) = corpus_dir("pmx") else { return };
    for path in files_with_extension(&dir, "pmx") {
        let Ok((model, _)) =
            pmx_core::formats::pmx::read(&std::fs::read(&path).unwrap(), &LoadOptions::default())
        else {
            continue;
        };
        if dynamic_bodies(&model) > 0 {
            round_trip(&model, &path.file_name().unwrap().to_string_lossy());
        }
    }
}

/// Whether a corpus file has spring bones to import (1.0 springs or 0.x bone groups with
/// bones).
fn has_springs(json: &Value) -> bool {
    let v1 = json["extensions"]["VRMC_springBone"]["springs"]
        .as_array()
        .is_some_and(|s| !s.is_empty());
    let v0 = json["extensions"]["VRM"]["secondaryAnimation"]["boneGroups"]
        .as_array()
        .is_some_and(|groups| {
            groups
                .iter()
                .any(|g| g["bones"].as_array().is_some_and(|b| !b.is_empty()))
        });
    v1 || v0
}

fn check_corpus_import(what: &str, imported: &VrmImport) {
    let model = &imported.model;
    println!(
        "{what}: {} bodies ({} dynamic), {} joints",
        model.rigid_bodies.len(),
        dynamic_bodies(model),
        model.joints.len()
    );
    for note in &imported.report.notes {
        println!("  note: {note}");
    }
    assert!(!model.rigid_bodies.is_empty(), "{what}: no bodies");
    assert!(dynamic_bodies(model) > 0, "{what}: no dynamic bodies");
    assert_eq!(model.joints.len(), dynamic_bodies(model), "{what}");
    assert!(errors(model).is_empty(), "{what}: {:#?}", errors(model));
    assert_no_nan(model, what);
}

#[test]
fn every_good_corpus_file_with_springs_imports_bodies_that_validate() {
    let mut checked = 0;
    if let Some(dir) = corpus_dir("vrm") {
        for path in files_with_extension(&dir, "vrm") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name.contains("BROKEN") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let (json, _) = split_glb(&bytes).unwrap();
            if !has_springs(&json) {
                continue;
            }
            let imported =
                read_vrm(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
            check_corpus_import(&name, &imported);
            checked += 1;
        }
    }
    if let Some(dir) = corpus_dir("gltf/three-vrm-springbone") {
        for path in files_with_extension(&dir, "gltf") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let imported = load_vrm_path(&path, &LoadOptions::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            check_corpus_import(&name, &imported);
            checked += 1;
        }
    }
    println!("{checked} files with springs checked");
}

/// `springs` two-segment strands under one root node, `colliders` spheres on the root, each
/// in its own group; `groups_of(s)` lists spring `s`'s collider groups.
fn strands_vrm(springs: usize, colliders: usize, groups_of: impl Fn(usize) -> Vec<usize>) -> Value {
    let mut nodes = vec![json!({ "name": "Root", "translation": [0.0, 1.5, 0.0], "children": [] })];
    let mut spring_list = Vec::new();
    for s in 0..springs {
        let first = nodes.len();
        nodes[0]["children"]
            .as_array_mut()
            .unwrap()
            .push(json!(first));
        let x = 0.05 * s as f32;
        nodes.push(json!({ "name": format!("S{s}a"), "translation": [x, 0.0, 0.0], "children": [first + 1] }));
        nodes.push(json!({ "name": format!("S{s}b"), "translation": [0.0, -0.1, 0.0], "children": [first + 2] }));
        nodes.push(json!({ "name": format!("S{s}c"), "translation": [0.0, -0.1, 0.0] }));
        let joint = |node: usize| json!({ "node": node, "hitRadius": 0.01, "stiffness": 1.0, "dragForce": 0.1 });
        spring_list.push(json!({
            "joints": [joint(first), joint(first + 1), { "node": first + 2 }],
            "colliderGroups": groups_of(s),
        }));
    }
    let collider_list: Vec<Value> = (0..colliders)
        .map(|c| json!({ "node": 0, "shape": { "sphere": { "offset": [0.0, 0.01 * c as f32, 0.1], "radius": 0.02 } } }))
        .collect();
    let groups: Vec<Value> = (0..colliders)
        .map(|c| json!({ "colliders": [c] }))
        .collect();
    json!({
        "asset": { "version": "2.0" },
        "nodes": nodes,
        "extensions": {
            "VRMC_vrm": { "specVersion": "1.0", "meta": { "name": "strands" }, "humanoid": { "humanBones": {} } },
            "VRMC_springBone": {
                "specVersion": "1.0",
                "colliders": collider_list,
                "colliderGroups": groups,
                "springs": spring_list,
            },
        },
    })
}

/// Whether the bodies of spring `s` (its first segment body, named after `S{s}a`) and
/// collider `c` (the `c`-th body named Root...) would collide in Bullet.
fn collides(model: &Model, spring: usize, collider: usize) -> bool {
    let strand = body_named(model, &format!("S{spring}a"));
    let sphere = model
        .rigid_bodies
        .iter()
        .filter(|b| {
            b.name_ja.as_str().starts_with("Root")
                && b.shape == pmx_core::model::RigidShape::Sphere
                && b.non_collision_mask != 0
        })
        .nth(collider)
        .unwrap();
    strand.non_collision_mask & (1 << sphere.group) != 0
        && sphere.non_collision_mask & (1 << strand.group) != 0
}

#[test]
fn each_spring_hits_exactly_its_colliders_while_16_groups_allow() {
    // Spring 0 hits collider 0; spring 1 colliders 0 and 1; spring 2 none.
    let vrm = strands_vrm(3, 2, |s| match s {
        0 => vec![0],
        1 => vec![0, 1],
        _ => vec![],
    });
    let imported = read_vrm(&glb(&vrm), &LoadOptions::default()).unwrap();
    let model = &imported.model;
    assert!(errors(model).is_empty(), "{:#?}", errors(model));
    assert_eq!(dynamic_bodies(model), 6);
    assert!(collides(model, 0, 0) && !collides(model, 0, 1));
    assert!(collides(model, 1, 0) && collides(model, 1, 1));
    assert!(!collides(model, 2, 0) && !collides(model, 2, 1));
    // Strands never hit each other (nor themselves).
    for a in 0..3 {
        for b in 0..3 {
            let (x, y) = (
                body_named(model, &format!("S{a}a")),
                body_named(model, &format!("S{b}b")),
            );
            assert_eq!(x.non_collision_mask & (1 << y.group), 0);
        }
    }
    assert!(
        imported
            .report
            .notes
            .iter()
            .all(|n| !n.to_string().contains("share"))
    );

    // Twenty springs, each with a collider of its own: twenty classes for fifteen groups.
    let vrm = strands_vrm(20, 20, |s| vec![s]);
    let imported = read_vrm(&glb(&vrm), &LoadOptions::default()).unwrap();
    let model = &imported.model;
    assert!(errors(model).is_empty(), "{:#?}", errors(model));
    let shared = imported
        .report
        .notes
        .iter()
        .find(|n| n.to_string().contains("share"))
        .expect("a note says colliders share a group");
    assert!(!shared.lost, "an approximation, not damage");
    for s in 0..20 {
        assert!(
            collides(model, s, s),
            "spring {s} still hits its own collider"
        );
    }
    let extra = (0..20)
        .flat_map(|s| (0..20).map(move |c| (s, c)))
        .filter(|&(s, c)| s != c && collides(model, s, c))
        .count();
    assert!(extra > 0, "the merged classes hit each other's colliders");
}

#[test]
fn a_vrm0_bone_group_swings_every_node_under_its_roots() {
    // A 0.x file: a root with two strands of two nodes each; the bone group lists the root.
    // The collider's offset is in Unity's axes (z reversed against glTF's).
    let vrm = json!({
        "asset": { "version": "2.0" },
        "nodes": [
            { "name": "Head", "translation": [0.0, 1.5, 0.0], "children": [1] },
            { "name": "HairRoot", "translation": [0.0, 0.0, 0.0], "children": [2, 4] },
            { "name": "L1", "translation": [0.1, -0.1, 0.0], "children": [3] },
            { "name": "L2", "translation": [0.0, -0.1, 0.0] },
            { "name": "R1", "translation": [-0.1, -0.1, 0.0], "children": [5] },
            { "name": "R2", "translation": [0.0, -0.1, 0.0] },
        ],
        "extensions": { "VRM": {
            "specVersion": "0.0",
            "meta": { "title": "v0" },
            "humanoid": { "humanBones": [] },
            "secondaryAnimation": {
                "boneGroups": [{
                    "stiffiness": 1.0, "gravityPower": 0.0, "dragForce": 0.1, "hitRadius": 0.02,
                    "bones": [1, 2],
                    "colliderGroups": [0],
                }],
                "colliderGroups": [{ "node": 0, "colliders": [{ "offset": { "x": 0.1, "y": 0.0, "z": 0.2 }, "radius": 0.05 }] }],
            },
        }},
    });
    let imported = read_vrm(&glb(&vrm), &LoadOptions::default()).unwrap();
    let model = &imported.model;
    for note in &imported.report.notes {
        println!("note: {note}");
    }
    assert!(errors(model).is_empty(), "{:#?}", errors(model));
    assert_no_nan(model, "v0");
    // Five swinging nodes (the root, both strands; node 2 listed again as a root swings once):
    // five dynamic bodies and joints; the root hangs on an anchor on Head.
    assert_eq!(dynamic_bodies(model), 5);
    assert_eq!(model.joints.len(), 5);
    // The strands' first bodies hang on the root's body.
    let root_body = model
        .rigid_bodies
        .iter()
        .position(|b| b.name_ja.as_str() == "HairRoot")
        .unwrap();
    let l1 = model
        .rigid_bodies
        .iter()
        .position(|b| b.name_ja.as_str() == "L1")
        .unwrap();
    let hanging = joint_named(model, "L1");
    assert_eq!(hanging.body_a.map(|b| b.get()), Some(root_body));
    assert_eq!(hanging.body_b.map(|b| b.get()), Some(l1));
    // A leaf's tail is 7 cm on along its parent's direction: L2's capsule runs 0.875 units
    // down from its head.
    let l2_bone = model
        .bones
        .iter()
        .find(|b| b.name_ja.as_str() == "L2")
        .unwrap();
    let l2 = body_named(model, "L2");
    assert!(
        (l2.position.y - (l2_bone.position.y - 0.875 / 2.0)).abs() < 1e-4,
        "{l2:?}"
    );
    // The collider: Unity (0.1, 0, 0.2) is glTF (0.1, 0, −0.2); 0.x faces −Z, so MMD is
    // glTF (−x, y, z) / 0.08 = (−1.25, 0, −2.5) from the head.
    let head = model
        .bones
        .iter()
        .find(|b| b.name_ja.as_str() == "Head")
        .unwrap();
    let sphere = model
        .rigid_bodies
        .iter()
        .find(|b| b.name_ja.as_str() == "Head" && b.mode == RigidMode::FollowBone)
        .unwrap();
    let offset = [
        sphere.position.x - head.position.x,
        sphere.position.y - head.position.y,
        sphere.position.z - head.position.z,
    ];
    assert!(close(offset, [-1.25, 0.0, -2.5], 1e-4), "{offset:?}");
    assert!((sphere.size.x - 0.625).abs() < 1e-5);
}

fn glb(json: &Value) -> Vec<u8> {
    pmx_tests::glb(json, &[])
}

fn errors(model: &Model) -> Vec<String> {
    pmx_tests::validation_errors(model)
}
