//! The example scripts of resources/scripts/, each run through the host as the editor runs it
//! (one edit, no new validator error, undo exact) on the sample model and on Gene, with the
//! exact outcome.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use pmx_core::Model;
use pmx_core::generate::sample_model;
use pmx_core::model::{BoneFlags, ElementKind, Vec3};
use pmx_plugins::{
    Options, Plugin, PluginContext, PluginError, PluginOutput, PluginSelection, ScriptPlugin,
    find_scripts, run_plugin,
};
use pmx_tests::{corpus_model, run_plugin_checked};
use serde_json::json;
use std::path::PathBuf;

fn scripts_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../resources/scripts")
}

fn example(name: &str) -> ScriptPlugin {
    ScriptPlugin::load(scripts_dir().join(name)).unwrap_or_else(|error| panic!("{error}"))
}

fn run_direct(
    plugin: &ScriptPlugin,
    model: &Model,
    selection: &PluginSelection,
    options: &serde_json::Value,
) -> PluginOutput {
    let options = Options::from_json(&plugin.info().options, options).unwrap();
    plugin
        .run(&PluginContext::new(model, selection, &options))
        .unwrap()
}

fn notes_en(output: &PluginOutput) -> Vec<String> {
    output.notes.iter().map(|note| note.en.clone()).collect()
}

fn gene() -> Option<Model> {
    corpus_model("pmx/pmxeditor_gene_cc_by.pmx")
}

#[test]
fn every_example_script_loads_with_its_description() {
    let found = find_scripts(&scripts_dir());
    let ids: Vec<String> = found
        .iter()
        .map(|script| match script {
            Ok(plugin) => plugin.info().id,
            Err((path, error)) => panic!("{}: {error}", path.display()),
        })
        .collect();
    assert_eq!(
        ids,
        [
            "script:center_model",
            "script:hide_ik_bones",
            "script:rename_lr_suffix",
            "script:scale_selected_bones_tail",
            "script:select_report",
            "script:snap_centre_bones",
        ]
    );
    for plugin in found.into_iter().flatten() {
        let info = plugin.info();
        assert!(
            !info.name_ja.is_empty() && info.name_ja != info.name_en,
            "{}",
            info.id
        );
        assert!(!info.description_en.is_empty(), "{}", info.id);
        assert_eq!(info.version, "1.0", "{}", info.id);
    }
}

// center_model.rhai

/// Where center_model moves `model`: the bottom centre of the vertices' bounding box to the
/// origin, worked out as the script does (in f64, from the f32 positions).
fn centering_offset(model: &Model, floor: bool) -> [f64; 3] {
    let mut low = [f64::INFINITY; 3];
    let mut high = [f64::NEG_INFINITY; 3];
    for vertex in &model.vertices {
        let p = vertex.position;
        for (axis, value) in [p.x, p.y, p.z].into_iter().enumerate() {
            low[axis] = low[axis].min(f64::from(value));
            high[axis] = high[axis].max(f64::from(value));
        }
    }
    [
        -(low[0] + high[0]) / 2.0,
        if floor { -low[1] } else { 0.0 },
        -(low[2] + high[2]) / 2.0,
    ]
}

fn moved(p: Vec3, by: [f64; 3]) -> Vec3 {
    Vec3::new(
        (f64::from(p.x) + by[0]) as f32,
        (f64::from(p.y) + by[1]) as f32,
        (f64::from(p.z) + by[2]) as f32,
    )
}

fn assert_centered(model: &Model, floor: bool) {
    let plugin = example("center_model.rhai");
    let by = centering_offset(model, floor);
    let outcome = run_plugin_checked(
        &plugin,
        model,
        &PluginSelection::new(),
        &json!({ "floor": floor }),
    );
    assert_eq!(outcome.label_en, "Center model");
    assert_eq!(outcome.label_ja, "モデルを原点へ");
    let after = &outcome.after;
    for (index, (before, now)) in model.vertices.iter().zip(&after.vertices).enumerate() {
        assert_eq!(now.position, moved(before.position, by), "vertex {index}");
        assert_eq!(now.normal, before.normal, "vertex {index}");
        assert_eq!(now.weight, before.weight, "vertex {index}");
    }
    for (before, now) in model.bones.iter().zip(&after.bones) {
        assert_eq!(
            now.position,
            moved(before.position, by),
            "{}",
            before.name_ja
        );
        assert_eq!(now.tail_offset, before.tail_offset);
    }
    for (before, now) in model.rigid_bodies.iter().zip(&after.rigid_bodies) {
        assert_eq!(
            now.position,
            moved(before.position, by),
            "{}",
            before.name_ja
        );
        assert_eq!(now.rotation, before.rotation);
    }
    for (before, now) in model.joints.iter().zip(&after.joints) {
        assert_eq!(
            now.position,
            moved(before.position, by),
            "{}",
            before.name_ja
        );
    }
    assert_eq!(after.morphs, model.morphs);
    assert_eq!(after.faces, model.faces);
    // The lowest vertex now stands on the floor, the box centred on X and Z.
    let low_y = after
        .vertices
        .iter()
        .map(|vertex| vertex.position.y)
        .fold(f32::INFINITY, f32::min);
    if floor {
        assert!(low_y.abs() < 1e-5, "lowest point at {low_y}");
    }
    let [dx, dy, dz] = by;
    assert_eq!(
        outcome.notes[0],
        format!(
            "Moved by ({}, {}, {}): {} vertices, {} bones, {} rigid bodies, {} joints.",
            rhai_float((dx * 1000.0).round() / 1000.0),
            rhai_float((dy * 1000.0).round() / 1000.0),
            rhai_float((dz * 1000.0).round() / 1000.0),
            model.vertices.len(),
            model.bones.len(),
            model.rigid_bodies.len(),
            model.joints.len()
        )
    );
}

/// A float as Rhai prints it (always with a decimal point).
fn rhai_float(value: f64) -> String {
    let text = format!("{value:?}");
    if text.contains('.') || text.contains('e') {
        text
    } else {
        format!("{text}.0")
    }
}

#[test]
fn center_model_moves_the_sample_so_its_bottom_centre_is_the_origin() {
    let mut model = sample_model();
    // The sample stands at the origin already: lift and shift it first.
    for vertex in &mut model.vertices {
        vertex.position = moved(vertex.position, [1.25, 3.5, -2.0]);
    }
    assert_centered(&model, true);
    assert_centered(&model, false);
}

#[test]
fn center_model_on_gene() {
    let Some(model) = gene() else {
        return;
    };
    assert_centered(&model, true);
}

#[test]
fn center_model_leaves_a_centred_model_alone() {
    let plugin = example("center_model.rhai");
    let mut model = sample_model();
    for vertex in &mut model.vertices {
        vertex.position = Vec3::new(1.0, 0.0, -1.0);
    }
    model.vertices[0].position = Vec3::new(-1.0, 2.0, 1.0);
    let output = run_direct(&plugin, &model, &PluginSelection::new(), &json!({}));
    assert!(output.batch.is_empty());
    assert_eq!(notes_en(&output), ["The model is centred already."]);
    let empty = Model::default();
    let output = run_direct(&plugin, &empty, &PluginSelection::new(), &json!({}));
    assert_eq!(
        notes_en(&output),
        ["The model has no vertices: nothing to center."]
    );
}

// hide_ik_bones.rhai

fn hidden_ik(model: &Model) -> Vec<BoneFlags> {
    model
        .bones
        .iter()
        .map(|bone| {
            if bone.flags.contains(BoneFlags::IK) {
                bone.flags - BoneFlags::VISIBLE
            } else {
                bone.flags
            }
        })
        .collect()
}

fn flags_of(model: &Model) -> Vec<BoneFlags> {
    model.bones.iter().map(|bone| bone.flags).collect()
}

#[test]
fn hide_ik_bones_turns_visible_off_on_the_ik_bones_only() {
    let model = sample_model();
    let plugin = example("hide_ik_bones.rhai");
    let outcome = run_plugin_checked(&plugin, &model, &PluginSelection::new(), &json!({}));
    assert_eq!(outcome.label_en, "Hide IK bones");
    assert_eq!(outcome.notes[0], "2 IK bones hidden.");
    assert_eq!(flags_of(&outcome.after), hidden_ik(&model));
    for name in ["左足ＩＫ", "右足ＩＫ"] {
        let bone = outcome
            .after
            .bones
            .iter()
            .find(|bone| bone.name_ja.as_str() == name)
            .unwrap();
        assert_eq!(
            bone.flags,
            BoneFlags::ROTATABLE | BoneFlags::MOVABLE | BoneFlags::OPERABLE | BoneFlags::IK
        );
    }
    // Shown again: back to the model as it was.
    let shown = run_plugin_checked(
        &plugin,
        &outcome.after,
        &PluginSelection::new(),
        &json!({ "show": true }),
    );
    assert_eq!(shown.notes[0], "2 IK bones shown.");
    assert_eq!(flags_of(&shown.after), flags_of(&model));
    // Nothing left to hide.
    let output = run_direct(&plugin, &outcome.after, &PluginSelection::new(), &json!({}));
    assert!(output.batch.is_empty());
    assert_eq!(notes_en(&output), ["2 IK bones, none to change."]);
}

#[test]
fn hide_ik_bones_on_gene() {
    let Some(model) = gene() else {
        return;
    };
    let plugin = example("hide_ik_bones.rhai");
    let outcome = run_plugin_checked(&plugin, &model, &PluginSelection::new(), &json!({}));
    // 足ＩＫ and つま先ＩＫ on each side; the two helper IK bones (右腕xcIK, 前クローク2_1xcIK)
    // are hidden already.
    assert_eq!(outcome.notes[0], "4 IK bones hidden.");
    assert_eq!(flags_of(&outcome.after), hidden_ik(&model));
    let shown = run_plugin_checked(
        &plugin,
        &model,
        &PluginSelection::new(),
        &json!({ "show": true }),
    );
    assert_eq!(shown.notes[0], "2 IK bones shown.");
    for (index, (before, now)) in model.bones.iter().zip(&shown.after.bones).enumerate() {
        let expected = if before.flags.contains(BoneFlags::IK) {
            before.flags | BoneFlags::VISIBLE
        } else {
            before.flags
        };
        assert_eq!(now.flags, expected, "bone {index} {}", before.name_ja);
    }
}

// rename_lr_suffix.rhai

fn english_names(model: &Model) -> Vec<String> {
    model
        .bones
        .iter()
        .map(|bone| bone.name_en.as_str().into_owned())
        .collect()
}

#[test]
fn rename_lr_suffix_names_the_sample_s_left_and_right_bones() {
    let model = sample_model();
    let plugin = example("rename_lr_suffix.rhai");
    let outcome = run_plugin_checked(&plugin, &model, &PluginSelection::new(), &json!({}));
    assert_eq!(outcome.notes[0], "14 English names set, e.g. arm_L.");
    let mut expected = english_names(&model);
    for (index, name) in [
        (6, "arm_L"),
        (7, "elbow_L"),
        (8, "wrist_L"),
        (9, "leg_L"),
        (10, "knee_L"),
        (11, "ankle_L"),
        (12, "leg_IK_L"),
        (13, "arm_R"),
        (14, "elbow_R"),
        (15, "wrist_R"),
        (16, "leg_R"),
        (17, "knee_R"),
        (18, "ankle_R"),
        (19, "leg_IK_R"),
    ] {
        expected[index] = name.to_owned();
    }
    assert_eq!(english_names(&outcome.after), expected);

    // Only the selected bones; and without overwrite, none (they all have English names).
    let selection = PluginSelection::new().with(ElementKind::Bone, vec![4, 6, 19]);
    let some = run_plugin_checked(&plugin, &model, &selection, &json!({}));
    let mut expected = english_names(&model);
    expected[6] = "arm_L".to_owned();
    expected[19] = "leg_IK_R".to_owned();
    assert_eq!(english_names(&some.after), expected);
    let mut working = model.clone();
    let error = run_plugin(
        &plugin,
        &mut working,
        &PluginSelection::new(),
        &Options::from_json(&plugin.info().options, &json!({ "overwrite": false })).unwrap(),
    )
    .unwrap_err();
    assert!(matches!(error, PluginError::NoChange), "{error}");
}

#[test]
fn rename_lr_suffix_on_gene() {
    let Some(model) = gene() else {
        return;
    };
    let plugin = example("rename_lr_suffix.rhai");
    let outcome = run_plugin_checked(&plugin, &model, &PluginSelection::new(), &json!({}));
    let before = english_names(&model);
    let after = english_names(&outcome.after);
    let name_of = |index: usize| after[index].as_str();
    for (index, japanese, english) in [
        (13, "左目", "eye_L"),
        (14, "左目先", "eye_end_L"),
        (19, "左腕捩", "arm_twist_L"),
        (20, "左腕捩連", "腕捩連_L"),
        (25, "左手先", "hand_end_L"),
        (35, "右肩連", "shoulder_R"),
        (39, "左親指０", "thumb0_L"),
        (43, "左人指１", "index1_L"),
        (46, "左人指先", "Index_End_L"),
        (59, "右親指０", "thumb0_R"),
        (85, "左足IK親", "leg_IK_parent_L"),
        (86, "左足ＩＫ", "leg_IK_L"),
        (87, "左つま先ＩＫ", "toe_IK_L"),
        (88, "左つま先EX", "toe_EX_L"),
        (89, "左つま先先", "Toe_End_L"),
        (107, "右横髪1_1", "横髪1_1_R"),
    ] {
        assert_eq!(model.bones[index].name_ja.as_str(), japanese);
        assert_eq!(name_of(index), english, "{japanese}");
    }
    let mut changed = 0;
    for (index, bone) in model.bones.iter().enumerate() {
        let japanese = bone.name_ja.as_str();
        if japanese.starts_with('左') {
            assert!(after[index].ends_with("_L"), "{japanese}: {}", after[index]);
        } else if japanese.starts_with('右') {
            assert!(after[index].ends_with("_R"), "{japanese}: {}", after[index]);
        } else {
            assert_eq!(after[index], before[index], "{japanese}");
        }
        changed += usize::from(after[index] != before[index]);
    }
    assert!(
        outcome.notes[0].starts_with(&format!("{changed} English names set")),
        "{}",
        outcome.notes[0]
    );
}

// scale_selected_bones_tail.rhai

fn scaled(tail: Vec3, by: f64) -> Vec3 {
    Vec3::new(
        (f64::from(tail.x) * by) as f32,
        (f64::from(tail.y) * by) as f32,
        (f64::from(tail.z) * by) as f32,
    )
}

#[test]
fn scale_selected_bones_tail_scales_offsets_and_skips_bone_tails() {
    let model = sample_model();
    let plugin = example("scale_selected_bones_tail.rhai");
    // 左腕 (6) points at a bone; 左手首 (8) and 左足首 (11) have offsets.
    let selection = PluginSelection::new().with(ElementKind::Bone, vec![6, 8, 11]);
    let outcome = run_plugin_checked(&plugin, &model, &selection, &json!({ "scale": 1.5 }));
    assert_eq!(outcome.label_en, "Scale bone tails");
    assert_eq!(
        outcome.notes[0],
        "Scaled the tails of 2 bones by 1.5; 1 skipped (their tail is a bone)."
    );
    for (index, (before, now)) in model.bones.iter().zip(&outcome.after.bones).enumerate() {
        if index == 8 || index == 11 {
            assert_eq!(
                now.tail_offset,
                scaled(before.tail_offset, 1.5),
                "bone {index}"
            );
        } else {
            assert_eq!(now, before, "bone {index}");
        }
    }
    assert_eq!(
        outcome.after.bones[8].tail_offset,
        Vec3::new(1.2, -1.2, 0.0)
    );
    assert_eq!(
        outcome.after.bones[11].tail_offset,
        Vec3::new(0.0, -1.5, -1.5)
    );
    // Nothing selected: refused before the script runs.
    let mut working = model.clone();
    let error = run_plugin(
        &plugin,
        &mut working,
        &PluginSelection::new(),
        &Options::defaults(&plugin.info().options),
    )
    .unwrap_err();
    assert_eq!(error.to_string(), "select at least one bone first");
    // Only bone tails selected: a note, no change.
    let only_bone_tails = PluginSelection::new().with(ElementKind::Bone, vec![6, 7]);
    let output = run_direct(&plugin, &model, &only_bone_tails, &json!({}));
    assert!(output.batch.is_empty());
    assert_eq!(
        notes_en(&output),
        ["All 2 selected bones point at a bone: nothing to scale."]
    );
}

#[test]
fn scale_selected_bones_tail_on_gene() {
    let Some(model) = gene() else {
        return;
    };
    let plugin = example("scale_selected_bones_tail.rhai");
    // 左腕, 左ひじ and 左足IK親 have offsets; 頭 points at 頭先.
    let selected = [9, 18, 21, 85];
    let selection = PluginSelection::new().with(ElementKind::Bone, selected.to_vec());
    let outcome = run_plugin_checked(&plugin, &model, &selection, &json!({}));
    assert_eq!(
        outcome.notes[0],
        "Scaled the tails of 3 bones by 2.0; 1 skipped (their tail is a bone)."
    );
    for (index, (before, now)) in model.bones.iter().zip(&outcome.after.bones).enumerate() {
        if [18, 21, 85].contains(&index) {
            let doubled = scaled(before.tail_offset, 2.0);
            assert_eq!(now.tail_offset, doubled, "{}", before.name_ja);
            assert_ne!(doubled, Vec3::ZERO, "{}", before.name_ja);
        } else {
            assert_eq!(now, before, "{}", before.name_ja);
        }
    }
}

// select_report.rhai

#[test]
fn select_report_writes_the_counts_and_changes_nothing() {
    let model = sample_model();
    let plugin = example("select_report.rhai");
    let selection = PluginSelection::new()
        .with(ElementKind::Vertex, vec![0, 1, 2])
        .with(ElementKind::Bone, vec![4, 6]);
    let output = run_direct(&plugin, &model, &selection, &json!({}));
    assert!(output.batch.is_empty());
    let count = |kind| model.count(kind);
    assert_eq!(
        notes_en(&output),
        [
            format!("vertex: 3 of {} selected", count(ElementKind::Vertex)),
            format!("face: 0 of {} selected", count(ElementKind::Face)),
            format!("material: 0 of {} selected", count(ElementKind::Material)),
            format!("bone: 2 of {} selected", count(ElementKind::Bone)),
            format!("morph: 0 of {} selected", count(ElementKind::Morph)),
            format!(
                "display_frame: 0 of {} selected",
                count(ElementKind::DisplayFrame)
            ),
            format!(
                "rigid_body: 0 of {} selected",
                count(ElementKind::RigidBody)
            ),
            format!("joint: 0 of {} selected", count(ElementKind::Joint)),
            "bone 4: 頭 (head)".to_owned(),
            "bone 6: 左腕 (left arm)".to_owned(),
        ]
    );
    assert_eq!(
        output.notes[3].ja,
        format!("bone: {}個中 2個を選択", count(ElementKind::Bone))
    );
    // Through the host: no edit, so no undo step.
    let mut working = model.clone();
    let error = run_plugin(&plugin, &mut working, &selection, &Options::default()).unwrap_err();
    assert!(matches!(error, PluginError::NoChange));
    let nothing = run_direct(
        &plugin,
        &model,
        &PluginSelection::new(),
        &json!({ "list": 0 }),
    );
    assert_eq!(notes_en(&nothing).last().unwrap(), "Nothing is selected.");
}

/// A million vertices: the script reads one position per call and collects the new ones in a
/// setter: about 5 s here (printed), under the default 10 s limit. The test gives
/// it a minute so that a loaded machine does not fail it.
#[test]
fn center_model_moves_a_million_vertices_within_the_time_limit() {
    use pmx_core::generate::{LargeModelSpec, large_model};
    let model = large_model(&LargeModelSpec::million());
    let plugin = example("center_model.rhai").with_limits(pmx_plugins::ScriptLimits {
        time: std::time::Duration::from_secs(60),
        ..pmx_plugins::ScriptLimits::default()
    });
    let started = std::time::Instant::now();
    let output = run_direct(&plugin, &model, &PluginSelection::new(), &json!({}));
    let script_time = started.elapsed();
    let mut working = model.clone();
    let started = std::time::Instant::now();
    let run = run_plugin(
        &plugin,
        &mut working,
        &PluginSelection::new(),
        &Options::default(),
    )
    .unwrap();
    println!(
        "center_model on 1,000,000 vertices: script {script_time:?}, script and edit {:?}",
        started.elapsed()
    );
    assert_eq!(output.batch.len(), 4);
    let mut edit = run.edit;
    let by = centering_offset(&model, true);
    edit.apply(&mut working);
    assert_eq!(
        working.vertices[999_999].position,
        moved(model.vertices[999_999].position, by)
    );
}
