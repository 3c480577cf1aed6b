//! VRM import, the MMD side of the skeleton: every standard bone MMD motions key exists with
//! MMD's parent, the leg IK is MMD's, the display frames hold every bone once, the A-pose puts
//! the arms 35° down (and the vertices with them), node constraints become append rotations,
//! and a corpus VMD moves the imported avatar. Corpus files that are absent are skipped with
//! the reason printed.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use glam::{Quat, Vec3};
use pmx_core::LoadOptions;
use pmx_core::formats::vmd;
use pmx_core::formats::vrm::{VrmImport, VrmImportOptions, read_vrm};
use pmx_core::model::{BoneFlags, DisplayItem, Model, Weight};
use pmx_core::pose::{Pose, PoseEvaluator};
use pmx_tests::{corpus_dir, files_with_extension};
use serde_json::{Value, json};

/// The samples: (file, whether it maps every humanoid bone the table names).
const SAMPLES: [(&str, bool); 3] = [
    ("s06_example_vrm1_skinned.vrm", true),
    ("godette_vrm0_cc_by.vrm", false),
    ("s06_minimal_vrm0.vrm", false),
];

/// Bones every sample has, with the parents MMD's standard models give them (alternatives
/// where an optional VRM bone may be absent: the arm hangs from the chest without a
/// shoulder, the neck from 上半身 without a chest).
const ALWAYS: [(&str, &[&str]); 25] = [
    ("センター", &["全ての親"]),
    ("グルーブ", &["センター"]),
    ("上半身", &["グルーブ"]),
    ("下半身", &["グルーブ"]),
    ("首", &["上半身2", "上半身3", "上半身"]),
    ("頭", &["首"]),
    ("左腕", &["左肩", "上半身2", "上半身3", "上半身"]),
    ("左ひじ", &["左腕"]),
    ("左手首", &["左ひじ"]),
    ("右腕", &["右肩", "上半身2", "上半身3", "上半身"]),
    ("右ひじ", &["右腕"]),
    ("右手首", &["右ひじ"]),
    ("左足", &["下半身"]),
    ("左ひざ", &["左足"]),
    ("左足首", &["左ひざ"]),
    ("左つま先", &["左足首"]),
    ("右足", &["下半身"]),
    ("右ひざ", &["右足"]),
    ("右足首", &["右ひざ"]),
    ("右つま先", &["右足首"]),
    ("左足ＩＫ", &["全ての親"]),
    ("左つま先ＩＫ", &["左足ＩＫ"]),
    ("右足ＩＫ", &["全ての親"]),
    ("右つま先ＩＫ", &["右足ＩＫ"]),
    ("上半身2", &["上半身"]),
];

/// Bones of the optional humanoid bones (all on the 1.0 sample).
const OPTIONAL: [(&str, &[&str]); 38] = [
    ("両目", &["頭"]),
    ("左目", &["頭"]),
    ("右目", &["頭"]),
    ("左肩", &["上半身2", "上半身3"]),
    ("右肩", &["上半身2", "上半身3"]),
    ("左親指０", &["左手首"]),
    ("左親指１", &["左親指０"]),
    ("左親指２", &["左親指１"]),
    ("左人指１", &["左手首"]),
    ("左人指２", &["左人指１"]),
    ("左人指３", &["左人指２"]),
    ("左中指１", &["左手首"]),
    ("左中指２", &["左中指１"]),
    ("左中指３", &["左中指２"]),
    ("左薬指１", &["左手首"]),
    ("左薬指２", &["左薬指１"]),
    ("左薬指３", &["左薬指２"]),
    ("左小指１", &["左手首"]),
    ("左小指２", &["左小指１"]),
    ("左小指３", &["左小指２"]),
    ("右親指０", &["右手首"]),
    ("右親指１", &["右親指０"]),
    ("右親指２", &["右親指１"]),
    ("右人指１", &["右手首"]),
    ("右人指２", &["右人指１"]),
    ("右人指３", &["右人指２"]),
    ("右中指１", &["右手首"]),
    ("右中指２", &["右中指１"]),
    ("右中指３", &["右中指２"]),
    ("右薬指１", &["右手首"]),
    ("右薬指２", &["右薬指１"]),
    ("右薬指３", &["右薬指２"]),
    ("右小指１", &["右手首"]),
    ("右小指２", &["右小指１"]),
    ("右小指３", &["右小指２"]),
    ("全ての親", &[]),
    ("上半身2", &["上半身"]),
    ("首", &["上半身2", "上半身3"]),
];

fn options(a_pose: bool) -> LoadOptions {
    LoadOptions {
        vrm: Some(VrmImportOptions {
            a_pose,
            ..VrmImportOptions::default()
        }),
        ..LoadOptions::default()
    }
}

fn load(file: &str, a_pose: bool) -> Option<VrmImport> {
    let dir = corpus_dir("vrm")?;
    let path = dir.join(file);
    let Ok(bytes) = std::fs::read(&path) else {
        println!("skipped: {} is absent", path.display());
        return None;
    };
    Some(read_vrm(&bytes, &options(a_pose)).unwrap_or_else(|e| panic!("{file}: {e}")))
}

fn find(model: &Model, name: &str) -> Option<usize> {
    model.bones.iter().position(|b| b.name_ja.as_str() == name)
}

fn bone(model: &Model, name: &str) -> usize {
    find(model, name).unwrap_or_else(|| panic!("no bone {name}"))
}

fn parent_name(model: &Model, index: usize) -> String {
    model.bones[index]
        .parent
        .map(|p| model.bones[p.get()].name_ja.as_str().into_owned())
        .unwrap_or_default()
}

fn check_parents(file: &str, model: &Model, table: &[(&str, &[&str])], required: bool) {
    for &(name, parents) in table {
        let Some(index) = find(model, name) else {
            assert!(!required, "{file}: no {name}");
            continue;
        };
        let parent = parent_name(model, index);
        if parents.is_empty() {
            assert!(
                model.bones[index].parent.is_none(),
                "{file}: {name} is a root"
            );
        } else {
            assert!(
                parents.contains(&parent.as_str()),
                "{file}: {name} hangs from {parent}, not {parents:?}"
            );
        }
    }
}

#[test]
fn standard_bones_exist_with_mmd_parents() {
    for (file, complete) in SAMPLES {
        let Some(imported) = load(file, true) else {
            continue;
        };
        let model = &imported.model;
        assert_eq!(bone(model, "全ての親"), 0, "{file}: 全ての親 comes first");
        check_parents(file, model, &ALWAYS, true);
        check_parents(file, model, &OPTIONAL, complete);
        // The eyes follow 両目 (when the VRM has eyes).
        if let (Some(eyes), Some(left)) = (find(model, "両目"), find(model, "左目")) {
            let left = &model.bones[left];
            assert!(left.flags.contains(BoneFlags::APPEND_ROTATE));
            assert_eq!(left.append_parent.map(|b| b.get()), Some(eyes));
        }
        // Handles move, body bones turn.
        for name in [
            "全ての親",
            "センター",
            "グルーブ",
            "左足ＩＫ",
            "右つま先ＩＫ",
        ] {
            let flags = model.bones[bone(model, name)].flags;
            assert!(
                flags.contains(BoneFlags::MOVABLE | BoneFlags::ROTATABLE),
                "{file}: {name}"
            );
            assert!(
                flags.contains(BoneFlags::VISIBLE | BoneFlags::OPERABLE),
                "{file}: {name}"
            );
        }
        for name in ["上半身", "下半身", "左腕", "右ひざ", "頭"] {
            let flags = model.bones[bone(model, name)].flags;
            assert!(!flags.contains(BoneFlags::MOVABLE), "{file}: {name} moves");
            assert!(
                flags.contains(BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE)
            );
        }
        // Tails run down the chains, so MMD draws the bones as on its standard models.
        for (from, to) in [
            ("上半身", "上半身2"),
            ("左腕", "左ひじ"),
            ("左ひじ", "左手首"),
            ("右足", "右ひざ"),
            ("右ひざ", "右足首"),
        ] {
            let b = &model.bones[bone(model, from)];
            assert!(b.flags.contains(BoneFlags::TAIL_IS_BONE), "{file}: {from}");
            assert_eq!(
                b.tail_bone.map(|t| t.get()),
                Some(bone(model, to)),
                "{file}: {from}"
            );
        }
        if complete {
            let thumb = &model.bones[bone(model, "左親指０")];
            assert_eq!(
                thumb.tail_bone.map(|t| t.get()),
                Some(bone(model, "左親指１"))
            );
            let wrist = &model.bones[bone(model, "右手首")];
            assert_eq!(
                wrist.tail_bone.map(|t| t.get()),
                Some(bone(model, "右中指１"))
            );
        }
        let errors = errors(model);
        assert!(errors.is_empty(), "{file}: {errors:#?}");
    }
}

#[test]
fn leg_ik_has_mmd_targets_links_and_knee_limits() {
    for (file, _) in SAMPLES {
        let Some(imported) = load(file, true) else {
            continue;
        };
        let model = &imported.model;
        for side in ["左", "右"] {
            let leg_ik = &model.bones[bone(model, &format!("{side}足ＩＫ"))];
            assert!(leg_ik.is_ik(), "{file}: {side}足ＩＫ");
            assert_eq!(
                leg_ik.ik.target.map(|t| t.get()),
                Some(bone(model, &format!("{side}足首")))
            );
            assert_eq!((leg_ik.ik.loop_count, leg_ik.ik.limit_angle), (40, 2.0));
            let links: Vec<usize> = leg_ik
                .ik
                .links
                .iter()
                .filter_map(|l| l.bone)
                .map(|b| b.get())
                .collect();
            assert_eq!(
                links,
                vec![
                    bone(model, &format!("{side}ひざ")),
                    bone(model, &format!("{side}足"))
                ]
            );
            let knee = leg_ik.ik.links[0].limits.expect("the knee is limited");
            assert!((knee.lower.x + std::f32::consts::PI).abs() < 1e-6);
            assert!((knee.upper.x + 0.5f32.to_radians()).abs() < 1e-6);
            assert_eq!(
                (knee.lower.y, knee.lower.z, knee.upper.y, knee.upper.z),
                (0.0, 0.0, 0.0, 0.0)
            );
            assert!(leg_ik.ik.links[1].limits.is_none());

            let toe_ik = &model.bones[bone(model, &format!("{side}つま先ＩＫ"))];
            assert!(toe_ik.is_ik());
            assert_eq!(
                toe_ik.ik.target.map(|t| t.get()),
                Some(bone(model, &format!("{side}つま先")))
            );
            assert_eq!((toe_ik.ik.loop_count, toe_ik.ik.limit_angle), (3, 4.0));
            let links: Vec<usize> = toe_ik
                .ik
                .links
                .iter()
                .filter_map(|l| l.bone)
                .map(|b| b.get())
                .collect();
            assert_eq!(links, vec![bone(model, &format!("{side}足首"))]);
        }
    }
    // The minimal 0.x sample has no toes: つま先 is made, and the note is not a loss.
    if let Some(imported) = load("s06_minimal_vrm0.vrm", true) {
        let notes: Vec<_> = imported
            .report
            .notes
            .iter()
            .filter(|n| n.message.contains("toes"))
            .collect();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes.iter().all(|n| !n.lost));
    }
}

#[test]
fn display_frames_hold_every_bone_once() {
    let Some(dir) = corpus_dir("vrm") else { return };
    for path in files_with_extension(&dir, "vrm") {
        if path.to_string_lossy().contains("BROKEN") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let model = read_vrm(&bytes, &LoadOptions::default()).unwrap().model;
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut count = vec![0; model.bones.len()];
        let mut morphs = 0;
        for frame in &model.display_frames {
            for item in &frame.items {
                match item {
                    DisplayItem::Bone(Some(b)) => count[b.get()] += 1,
                    DisplayItem::Morph(Some(_)) => morphs += 1,
                    other => panic!("{file}: {other:?}"),
                }
            }
        }
        assert!(count.iter().all(|&c| c == 1), "{file}: {count:?}");
        assert_eq!(morphs, model.morphs.len(), "{file}");
        let frames = &model.display_frames;
        assert_eq!(frames[0].name_ja.as_str(), "Root");
        assert!(frames[0].special && frames[1].special);
        assert_eq!(frames[1].name_ja.as_str(), "表情");
        assert!(matches!(frames[0].items[..], [DisplayItem::Bone(Some(b))] if b.get() == 0));
        assert!(frames.iter().all(|f| !f.name_en.as_str().is_empty()));
    }
    let Some(imported) = load("s06_example_vrm1_skinned.vrm", true) else {
        return;
    };
    let model = &imported.model;
    let frame_of = |name: &str| {
        let b = bone(model, name);
        model
            .display_frames
            .iter()
            .find(|f| {
                f.items
                    .contains(&DisplayItem::Bone(Some(pmx_core::model::BoneIdx::new(b))))
            })
            .map(|f| f.name_ja.as_str().into_owned())
            .unwrap()
    };
    for (name, frame) in [
        ("センター", "センター"),
        ("グルーブ", "センター"),
        ("上半身", "体(上)"),
        ("頭", "体(上)"),
        ("両目", "体(上)"),
        ("左肩", "腕"),
        ("右手首", "腕"),
        ("左人指１", "指"),
        ("右親指０", "指"),
        ("下半身", "体(下)"),
        ("左足", "足"),
        ("右つま先", "足"),
        ("左足ＩＫ", "足"),
        ("右つま先ＩＫ", "足"),
        ("Sphere", "その他"),
    ] {
        assert_eq!(frame_of(name), frame, "{name}");
    }
}

/// Degrees below horizontal of the bone `from` → `to`.
fn below_horizontal(model: &Model, from: &str, to: &str) -> f32 {
    let d = Vec3::from(model.bones[bone(model, to)].position)
        - Vec3::from(model.bones[bone(model, from)].position);
    (-d.y).atan2(Vec3::new(d.x, 0.0, d.z).length()).to_degrees()
}

/// Vertices weighted only to `bone` and the bones below it (the hand and its fingers: they
/// move as one when the arm turns).
fn only_under(model: &Model, bone: usize) -> Vec<usize> {
    let under = |mut b: usize| {
        for _ in 0..model.bones.len() {
            if b == bone {
                return true;
            }
            match model.bones[b].parent {
                Some(p) => b = p.get(),
                None => return false,
            }
        }
        false
    };
    let all_under = |pairs: &[(Option<pmx_core::model::BoneIdx>, f32)]| {
        pairs
            .iter()
            .all(|&(b, w)| w <= 0.0 || b.is_some_and(|b| under(b.get())))
    };
    model
        .vertices
        .iter()
        .enumerate()
        .filter(|(_, v)| match &v.weight {
            Weight::Bdef1 { bone } => all_under(&[(*bone, 1.0)]),
            Weight::Bdef2 { bones, weight } => {
                all_under(&[(bones[0], *weight), (bones[1], 1.0 - weight)])
            }
            Weight::Bdef4 { bones, weights } => all_under(&[
                (bones[0], weights[0]),
                (bones[1], weights[1]),
                (bones[2], weights[2]),
                (bones[3], weights[3]),
            ]),
            _ => false,
        })
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn a_pose_turns_the_arms_down_and_the_hands_follow() {
    let (Some(t_pose), Some(a_pose)) = (
        load("s06_example_vrm1_skinned.vrm", false),
        load("s06_example_vrm1_skinned.vrm", true),
    ) else {
        return;
    };
    let (t, a) = (&t_pose.model, &a_pose.model);
    assert_eq!(t.vertices.len(), a.vertices.len());
    for side in ["左", "右"] {
        let (arm, elbow) = (format!("{side}腕"), format!("{side}ひじ"));
        let before = below_horizontal(t, &arm, &elbow);
        let after = below_horizontal(a, &arm, &elbow);
        println!("{side}: {before:.3}° → {after:.3}°");
        assert!(
            before.abs() < 1.0,
            "the VRM rest pose is a T-pose: {before}"
        );
        assert!((after - 35.0).abs() < 0.5, "{side}: {after}");
        // The forearm keeps its angle to the upper arm: the whole arm turned.
        let forearm = below_horizontal(a, &elbow, &format!("{side}手首"));
        assert!((forearm - 35.0).abs() < 0.5, "{side} forearm: {forearm}");

        // The hand's vertices turned about the shoulder joint by the arm's rotation.
        let pivot = Vec3::from(t.bones[bone(t, &arm)].position);
        let direction = Vec3::from(t.bones[bone(t, &elbow)].position) - pivot;
        let horizontal = Vec3::new(direction.x, 0.0, direction.z).normalize();
        let angle = 35f32.to_radians();
        let target = horizontal * angle.cos() - Vec3::Y * angle.sin();
        let turn = Quat::from_rotation_arc(direction.normalize(), target);
        let hand = only_under(t, bone(t, &format!("{side}手首")));
        assert!(!hand.is_empty(), "{side}: some vertices follow the hand");
        for v in hand {
            let old = Vec3::from(t.vertices[v].position);
            let expected = turn * (old - pivot) + pivot;
            let new = Vec3::from(a.vertices[v].position);
            assert!(
                (new - expected).length() < 1e-3,
                "{side} hand vertex {v}: {new} vs {expected}"
            );
            assert!(new.y < old.y, "the hand went down");
        }
    }
    // The legs did not move.
    for name in ["左足首", "右つま先", "左足ＩＫ"] {
        let moved = Vec3::from(t.bones[bone(t, name)].position)
            - Vec3::from(a.bones[bone(a, name)].position);
        assert!(moved.length() < 1e-4, "{name} moved by {moved}");
    }
    for model in [t, a] {
        let errors = errors(model);
        assert!(errors.is_empty(), "{errors:#?}");
    }
}

/// A VRM 1.0 humanoid of the required bones (T-pose, metres), with `extra` nodes appended as
/// children of the node each names; returns the JSON.
fn humanoid_vrm(extra: &[(&str, usize, Value)]) -> Value {
    // (name, parent, translation relative to the parent)
    let skeleton: [(&str, Option<usize>, [f32; 3]); 15] = [
        ("hips", None, [0.0, 1.0, 0.0]),
        ("spine", Some(0), [0.0, 0.1, 0.0]),
        ("head", Some(1), [0.0, 0.5, 0.0]),
        ("leftUpperLeg", Some(0), [0.1, -0.05, 0.0]),
        ("leftLowerLeg", Some(3), [0.0, -0.45, 0.0]),
        ("leftFoot", Some(4), [0.0, -0.42, 0.0]),
        ("rightUpperLeg", Some(0), [-0.1, -0.05, 0.0]),
        ("rightLowerLeg", Some(6), [0.0, -0.45, 0.0]),
        ("rightFoot", Some(7), [0.0, -0.42, 0.0]),
        ("leftUpperArm", Some(1), [0.15, 0.35, 0.0]),
        ("leftLowerArm", Some(9), [0.25, 0.0, 0.0]),
        ("leftHand", Some(10), [0.25, 0.0, 0.0]),
        ("rightUpperArm", Some(1), [-0.15, 0.35, 0.0]),
        ("rightLowerArm", Some(12), [-0.25, 0.0, 0.0]),
        ("rightHand", Some(13), [-0.25, 0.0, 0.0]),
    ];
    let mut nodes: Vec<Value> = skeleton
        .iter()
        .map(|(name, _, t)| json!({"name": name, "translation": t, "children": []}))
        .collect();
    for (name, _, ext) in extra {
        let mut node = json!({"name": name, "translation": [0.0, 0.05, 0.0], "children": []});
        if !ext.is_null() {
            node["extensions"] = json!({ "VRMC_node_constraint": ext });
        }
        nodes.push(node);
    }
    let mut parents: Vec<(usize, usize)> = skeleton
        .iter()
        .enumerate()
        .filter_map(|(i, (_, p, _))| p.map(|p| (p, i)))
        .collect();
    for (i, (_, parent, _)) in extra.iter().enumerate() {
        parents.push((*parent, skeleton.len() + i));
    }
    for (parent, child) in parents {
        nodes[parent]["children"]
            .as_array_mut()
            .unwrap()
            .push(json!(child));
    }
    let human_bones: serde_json::Map<String, Value> = skeleton
        .iter()
        .enumerate()
        .map(|(i, (name, _, _))| ((*name).to_owned(), json!({ "node": i })))
        .collect();
    json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["VRMC_vrm", "VRMC_node_constraint"],
        "extensions": {"VRMC_vrm": {
            "specVersion": "1.0",
            "meta": {"name": "constraints", "authors": ["test"], "licenseUrl": "https://vrm.dev/licenses/1.0/"},
            "humanoid": {"humanBones": human_bones}
        }},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": nodes
    })
}

#[test]
fn node_constraints_become_append_rotations() {
    // Node 15 onwards are the extra nodes; 11 is leftHand, 9 leftUpperArm.
    let constraint =
        |kind: &str, body: Value| json!({"specVersion": "1.0", "constraint": { kind: body }});
    let extra = [
        (
            "twist",
            10,
            constraint("rotation", json!({"source": 11, "weight": 0.5})),
        ), // 15
        (
            "roll",
            9,
            constraint(
                "roll",
                json!({"source": 9, "rollAxis": "X", "weight": 0.25}),
            ),
        ), // 16
        (
            "aim",
            2,
            constraint("aim", json!({"source": 11, "aimAxis": "PositiveZ"})),
        ), // 17
        (
            "no_source",
            2,
            constraint("rotation", json!({"weight": 1.0})),
        ), // 18
        ("itself", 2, constraint("rotation", json!({"source": 19}))), // 19
        ("cycle_a", 2, constraint("rotation", json!({"source": 21}))), // 20
        ("cycle_b", 2, constraint("rotation", json!({"source": 20}))), // 21
        (
            "far_away",
            2,
            constraint("rotation", json!({"source": 999})),
        ), // 22
        (
            "two_kinds",
            2,
            json!({"constraint": {"rotation": {"source": 2}, "roll": {"source": 2}}}),
        ), // 23
        (
            "default_weight",
            2,
            constraint("rotation", json!({"source": 12})),
        ), // 24
    ];
    let json = humanoid_vrm(&extra);
    let imported = read_vrm(&glb(&json), &LoadOptions::default()).unwrap();
    let model = &imported.model;
    for note in &imported.report.notes {
        println!("note: {note}");
    }
    let appended = |name: &str| {
        let b = &model.bones[bone(model, name)];
        b.flags
            .contains(BoneFlags::APPEND_ROTATE)
            .then(|| (parent_name_of_append(model, name), b.append_ratio))
    };
    assert_eq!(appended("twist"), Some(("左手首".to_owned(), 0.5)));
    assert_eq!(appended("roll"), Some(("左腕".to_owned(), 0.25)));
    assert_eq!(appended("default_weight"), Some(("右腕".to_owned(), 1.0)));
    for skipped in ["aim", "no_source", "itself", "far_away", "two_kinds"] {
        assert_eq!(appended(skipped), None, "{skipped}");
    }
    // Exactly one of the pair appends: the second would close the cycle.
    assert_eq!(
        [appended("cycle_a"), appended("cycle_b")]
            .iter()
            .filter(|a| a.is_some())
            .count(),
        1
    );
    let notes = &imported.report.notes;
    let note_for = |field: &str, node: usize| {
        notes
            .iter()
            .find(|n| n.location.element == Some(node) && n.location.field.contains(field))
            .unwrap_or_else(|| panic!("no note on nodes[{node}] {field}: {notes:#?}"))
    };
    // Damage is a loss; the approximations are not.
    assert!(!note_for("roll", 16).lost);
    assert!(!note_for("aim", 17).lost);
    assert!(note_for("rotation", 18).lost);
    assert!(note_for("rotation", 19).lost);
    assert!(note_for("rotation", 21).lost);
    assert!(note_for("rotation", 22).lost);
    assert!(note_for("constraint", 23).lost);
    assert!(!notes.iter().any(|n| n.message.contains("not imported")));
    let errors = errors(model);
    assert!(errors.is_empty(), "{errors:#?}");

    // The A-pose bake turned the bones below the arm with the arm only: the roll bone, which
    // appends a quarter of the arm's rotation, did not turn further.
    let t_pose = read_vrm(&glb(&json), &options(false)).unwrap().model;
    let (pivot, elbow) = (
        Vec3::from(t_pose.bones[bone(&t_pose, "左腕")].position),
        Vec3::from(t_pose.bones[bone(&t_pose, "左ひじ")].position),
    );
    let turn = Quat::from_rotation_arc(
        (elbow - pivot).normalize(),
        Vec3::new(35f32.to_radians().cos(), -35f32.to_radians().sin(), 0.0),
    );
    let roll_tail = |m: &Model| Vec3::from(m.bones[bone(m, "roll")].tail_offset);
    assert!(
        (roll_tail(model) - turn * roll_tail(&t_pose)).length() < 1e-4,
        "{} vs {}",
        roll_tail(model),
        turn * roll_tail(&t_pose)
    );
    assert!(
        model.bones[bone(model, "roll")].has_append(),
        "restored after the bake"
    );

    // The twist turns half as far as the hand.
    let mut pose = Pose::new(model);
    let hand = bone(model, "左手首");
    pose.set_bone(
        pmx_core::model::BoneIdx::new(hand),
        Quat::from_rotation_x(1.0),
        Vec3::ZERO,
    );
    let mut evaluator = PoseEvaluator::new(model);
    evaluator.evaluate_bones(model, &pose).unwrap();
    let twist = evaluator
        .skeleton
        .local(pmx_core::model::BoneIdx::new(bone(model, "twist")))
        .unwrap();
    assert!(twist.rotation.angle_between(Quat::from_rotation_x(0.5)) < 1e-4);
}

fn parent_name_of_append(model: &Model, name: &str) -> String {
    model.bones[bone(model, name)]
        .append_parent
        .map(|p| model.bones[p.get()].name_ja.as_str().into_owned())
        .unwrap_or_default()
}

#[test]
fn a_corpus_motion_moves_the_arms_and_legs_of_an_imported_avatar() {
    let (Some(vmd_dir), Some(imported)) = (
        corpus_dir("vmd"),
        load("s06_example_vrm1_skinned.vrm", true),
    ) else {
        return;
    };
    let model = &imported.model;
    let path = vmd_dir.join("yohawing_mmt_test_model_motion.vmd");
    let Ok(bytes) = std::fs::read(&path) else {
        println!("skipped: {} is absent", path.display());
        return;
    };
    let motion = vmd::read(&bytes, &LoadOptions::default()).unwrap();
    let binding = motion.bind(model);
    println!(
        "{} bound, unmatched: {:?}",
        binding.bones.len(),
        binding.unmatched_bones
    );
    let mut pose = Pose::new(model);
    let mut evaluator = PoseEvaluator::new(model);
    evaluator.evaluate(model, &pose).unwrap();
    let rest: Vec<_> = evaluator.skeleton.globals().to_vec();
    let watched = ["左腕", "右腕", "左ひじ", "右ひじ", "左足", "右足"];
    let mut moved = vec![false; watched.len()];
    let last = motion.last_frame();
    for frame in (0..=last).step_by((last as usize / 60).max(1)) {
        motion.sample(&binding, frame as f32, &mut pose);
        evaluator.evaluate(model, &pose).unwrap();
        for (i, name) in watched.iter().enumerate() {
            let b = bone(model, name);
            let now = evaluator.skeleton.globals()[b];
            moved[i] |= now.rotation.angle_between(rest[b].rotation) > 0.05;
        }
        assert!(evaluator.positions().iter().all(|p| p.is_finite()));
    }
    for (name, moved) in watched.iter().zip(moved) {
        assert!(moved, "the motion turns {name}");
    }
}

#[test]
fn a_vrm_without_chest_and_shoulders_gets_an_upper_body_2_and_shoulders() {
    let imported = read_vrm(&glb(&humanoid_vrm(&[])), &LoadOptions::default()).unwrap();
    let model = &imported.model;
    let upper_body_2 = bone(model, "上半身2");
    assert_eq!(parent_name(model, upper_body_2), "上半身");
    // The spine's children (head and arms in this file) hang from it, the arms through the
    // shoulders made for them.
    for (child, parent) in [
        ("頭", "上半身2"),
        ("左肩", "上半身2"),
        ("右肩", "上半身2"),
        ("左腕", "左肩"),
        ("右腕", "右肩"),
    ] {
        assert_eq!(parent_name(model, bone(model, child)), parent, "{child}");
    }
    let shoulder = &model.bones[bone(model, "左肩")];
    assert_eq!(
        shoulder.tail_bone.map(|b| b.get()),
        Some(bone(model, "左腕"))
    );
    assert!(
        shoulder.position.x > 0.0
            && shoulder.position.x < model.bones[bone(model, "左腕")].position.x
    );
    assert!(
        imported
            .report
            .notes
            .iter()
            .any(|n| n.message.contains("左肩") && !n.lost)
    );
    let (spine, head) = (
        model.bones[bone(model, "上半身")].position,
        model.bones[bone(model, "頭")].position,
    );
    let position = model.bones[upper_body_2].position;
    assert!(spine.y < position.y && position.y < head.y);
    assert_eq!(
        model.bones[bone(model, "上半身")]
            .tail_bone
            .map(|b| b.get()),
        Some(upper_body_2)
    );
    let note = imported
        .report
        .notes
        .iter()
        .find(|n| n.message.contains("上半身2"))
        .expect("the made-up bone is listed");
    assert!(!note.lost);
    let errors = errors(model);
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn an_impossible_arm_angle_keeps_the_t_pose() {
    let json = humanoid_vrm(&[]);
    for degrees in [f32::NAN, 400.0] {
        let options = LoadOptions {
            vrm: Some(VrmImportOptions {
                arm_angle_degrees: degrees,
                ..VrmImportOptions::default()
            }),
            ..LoadOptions::default()
        };
        let imported = read_vrm(&glb(&json), &options).unwrap();
        let model = &imported.model;
        assert!(below_horizontal(model, "左腕", "左ひじ").abs() < 1e-3);
        assert!(
            imported
                .report
                .notes
                .iter()
                .any(|n| n.message.contains("T-pose") && !n.lost)
        );
    }
}

fn glb(json: &Value) -> Vec<u8> {
    pmx_tests::glb(json, &[])
}

fn errors(model: &Model) -> Vec<String> {
    pmx_tests::validation_errors(model)
}

/// A spring on the left hand (a sleeve ribbon) and a collider on the left forearm: after the
/// A-pose bake each body and joint sits where its bone took it (same offset from the bone,
/// turned with the arm), as a fresh MMD load of the A-posed model would have them.
#[test]
fn bodies_and_joints_on_the_arm_follow_the_a_pose() {
    // Nodes 15 and 16 hang under the left hand (node 11), each 5 cm up from its parent.
    let mut json = humanoid_vrm(&[("sleeve", 11, Value::Null), ("sleeve_end", 15, Value::Null)]);
    json["extensionsUsed"] = json!(["VRMC_vrm", "VRMC_springBone"]);
    json["extensions"]["VRMC_springBone"] = json!({
        "specVersion": "1.0",
        "colliders": [{ "node": 10, "shape": { "sphere": { "offset": [0.1, 0.0, 0.0], "radius": 0.05 } } }],
        "colliderGroups": [{ "colliders": [0] }],
        "springs": [{
            "joints": [
                { "node": 15, "hitRadius": 0.02, "stiffness": 1.0, "dragForce": 0.1 },
                { "node": 16 }
            ],
            "colliderGroups": [0]
        }]
    });
    let bytes = glb(&json);
    let t = read_vrm(&bytes, &options(false)).unwrap().model;
    let a = read_vrm(&bytes, &options(true)).unwrap().model;
    assert_eq!(t.rigid_bodies.len(), a.rigid_bodies.len());
    assert!(
        t.rigid_bodies.len() >= 2,
        "a spring body and the collider: {:?}",
        t.rigid_bodies
            .iter()
            .map(|b| b.name_ja.as_str())
            .collect::<Vec<_>>()
    );
    let arm = bone(&a, "左腕");
    let shoulder = Vec3::from(a.bones[arm].position);
    let turn_of = |model: &Model| {
        let elbow = Vec3::from(model.bones[bone(model, "左ひじ")].position);
        (elbow - Vec3::from(model.bones[bone(model, "左腕")].position)).normalize()
    };
    let turn = Quat::from_rotation_arc(turn_of(&t), turn_of(&a));
    for (before, after) in t.rigid_bodies.iter().zip(&a.rigid_bodies) {
        let Some(body_bone) = after.bone else {
            continue;
        };
        let name = after.name_ja.as_str().into_owned();
        let expected = turn * (Vec3::from(before.position) - shoulder) + shoulder;
        let got = Vec3::from(after.position);
        assert!(
            (got - expected).length() < 1e-3,
            "{name}: {got} vs {expected} (bone {})",
            a.bones[body_bone.get()].name_ja.as_str()
        );
        // Still at the same place against its bone.
        let offset = |model: &Model, body: &pmx_core::model::RigidBody| {
            (Vec3::from(body.position) - Vec3::from(model.bones[body_bone.get()].position)).length()
        };
        assert!(
            (offset(&t, before) - offset(&a, after)).abs() < 1e-3,
            "{name}"
        );
        assert!(
            got.y < Vec3::from(before.position).y,
            "{name} went down with the arm"
        );
    }
    for (before, after) in t.joints.iter().zip(&a.joints) {
        let expected = turn * (Vec3::from(before.position) - shoulder) + shoulder;
        let got = Vec3::from(after.position);
        assert!(
            (got - expected).length() < 1e-3,
            "{}: {got} vs {expected}",
            after.name_ja.as_str()
        );
    }
    assert!(errors(&a).is_empty(), "{:#?}", errors(&a));
}
