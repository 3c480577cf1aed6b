//! Script API version 2: elements as objects whose fields read in their own types and whose
//! assignments queue edits (one per assigned field, a loop's assignments to one field as one
//! edit), reads that see the script's own assignments, errors at the script's line, and
//! version 1 left as it was.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use pmx_core::Model;
use pmx_core::edit::Reflect;
use pmx_core::generate::{feature_model, sample_model};
use pmx_core::i18n::Language;
use pmx_core::model::{BoneFlags, PmxVersion, TextEncoding};
use pmx_core::path::Segment;
use pmx_plugins::{
    Options, Plugin, PluginContext, PluginError, PluginOutput, PluginSelection, ScriptPlugin,
    run_plugin,
};
use std::fmt::Write as _;

/// The script of issue 34, exactly as written there (the command line's test runs it too).
const ISSUE_SCRIPT: &str = include_str!("issue34.rhai");

const HEADER: &str = "const api_version = 2;\n";

fn script(name: &str, source: &str) -> ScriptPlugin {
    ScriptPlugin::from_source(name, source).unwrap_or_else(|error| panic!("{name}: {error}"))
}

fn v2(body: &str) -> ScriptPlugin {
    script("v2.rhai", &format!("{HEADER}{body}"))
}

fn run_on(plugin: &ScriptPlugin, model: &Model) -> Result<PluginOutput, PluginError> {
    let options = Options::defaults(&plugin.info().options);
    plugin.run(&PluginContext::new(
        model,
        &PluginSelection::new(),
        &options,
    ))
}

fn notes(output: &PluginOutput) -> Vec<String> {
    output.notes.iter().map(|note| note.en.clone()).collect()
}

/// (line, message) of a script error.
fn script_error(error: PluginError) -> (usize, String) {
    match error {
        PluginError::Script { line, message, .. } => (line, message),
        other => panic!("expected a script error, got {other:?}"),
    }
}

/// A run through the host: its label, its preview lines (one per queued edit) and the model
/// after it (the run changes nothing itself, and its undo gives the model back).
struct Applied {
    label: String,
    steps: Vec<String>,
    after: Model,
}

fn apply(plugin: &ScriptPlugin, model: &Model) -> Applied {
    let mut working = model.clone();
    let mut run = run_plugin(
        plugin,
        &mut working,
        &PluginSelection::new(),
        &Options::default(),
    )
    .unwrap();
    assert!(working == *model, "running changes nothing");
    run.edit.apply(&mut working);
    let after = working.clone();
    run.edit.revert(&mut working);
    assert!(working == *model, "undo gives the model back");
    Applied {
        label: run.edit.label_in(Language::English),
        steps: run.steps.iter().map(|step| step.en.clone()).collect(),
        after,
    }
}

fn steps_and_result(plugin: &ScriptPlugin, model: &Model) -> (Vec<String>, Model) {
    let applied = apply(plugin, model);
    (applied.steps, applied.after)
}

#[test]
fn the_script_of_the_issue_runs_as_written_as_one_undo_step() {
    let model = sample_model();
    let plugin = script("issue.rhai", ISSUE_SCRIPT);
    assert_eq!(plugin.api_version(), 2);
    let output = run_on(&plugin, &model).unwrap();
    assert_eq!(notes(&output), ["21 bones, first 全ての親"]);

    let Applied {
        label,
        steps,
        after,
    } = apply(&plugin, &model);
    assert_eq!(label, "issue");
    // The loop's flags are one edit, the vertex another: each assignment queued once.
    assert_eq!(
        steps,
        [
            "set flags of 2 bones (issue.rhai:3:56)",
            "set position.y of 1 vertex (issue.rhai:6:11)"
        ]
    );
    for (index, (now, before)) in after.bones.iter().zip(&model.bones).enumerate() {
        let visible = BoneFlags::VISIBLE;
        assert_eq!(
            now.flags,
            if before.is_ik() {
                before.flags - visible
            } else {
                before.flags
            },
            "bone {index}"
        );
    }
    assert_eq!(
        after.vertices[0].position.y,
        model.vertices[0].position.y + 0.5
    );
    assert_eq!(after.vertices[1..], model.vertices[1..]);
}

/// The script expression of `path` below `element` (`model.bones[0]` + `ik.links[0].bone`).
fn accessor(element: &str, segments: &[Segment]) -> String {
    let mut text = element.to_owned();
    for segment in segments {
        match segment {
            Segment::Field(name) => write!(text, ".{name}").unwrap(),
            Segment::Index(index) => write!(text, "[{index}]").unwrap(),
        }
    }
    text
}

/// Every value below `node`, the first item of each list standing for the list.
fn leaf_paths(node: &dyn Reflect, path: &mut Vec<Segment>, out: &mut Vec<Vec<Segment>>) {
    let mut children = Vec::new();
    node.for_each_child(&mut |segment, _| children.push(segment));
    if node.list_len().is_some() {
        children.truncate(1);
    }
    if children.is_empty() {
        if node.list_len().is_none() {
            out.push(path.clone());
        }
        return;
    }
    for segment in children {
        let child = node.child(&segment).unwrap();
        path.push(segment);
        leaf_paths(child, path, out);
        path.pop();
    }
}

/// Every value of one element of every kind (and of the header and the info), read through
/// version 2's objects, is the value version 1's `model.get` gives for the same path (but a
/// reference to nothing, -1 where version 1 gives `()`, and flag sets, which are objects).
#[test]
fn every_field_of_every_kind_reads_as_version_1_reads_it() {
    let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 40, 12);
    let mut body = String::from(
        r#"
fn check(kind, index, path, actual) {
    let expected = model.get(kind, index, path);
    if type_of(actual) == "Place" { actual = actual.value(); }
    let same = if type_of(expected) == "()" { actual == -1 || type_of(actual) == "()" }
        else { type_of(actual) == type_of(expected) && actual.to_string() == expected.to_string() };
    if !same { note(`${kind}[${index}].${path}: ${actual} (${type_of(actual)}) is not ${expected} (${type_of(expected)})`); }
}
"#,
    );
    let mut checked = 0;
    let mut check = |kind: &str, index: usize, element: &str, node: &dyn Reflect| {
        let mut paths = Vec::new();
        leaf_paths(node, &mut Vec::new(), &mut paths);
        for path in paths {
            let text = pmx_core::edit::FieldPath::from_segments(path.clone()).to_string();
            let expression = accessor(element, &path);
            writeln!(
                body,
                "check(\"{kind}\", {index}, \"{text}\", {expression});"
            )
            .unwrap();
            checked += 1;
        }
    };
    for (kind, list, index) in [
        ("vertex", "vertices", 1),
        ("face", "faces", 2),
        ("material", "materials", 0),
        ("bone", "bones", 0),
        ("display_frame", "display_frames", 2),
        ("rigid_body", "rigid_bodies", 1),
        ("joint", "joints", 1),
        ("soft_body", "soft_bodies", 0),
    ] {
        let kind_of = pmx_plugins::kind_from_name(kind).unwrap();
        let path = pmx_core::path::ModelPath::list(kind_of).index(index);
        let node = pmx_core::edit::resolve_path(&model, &path).unwrap();
        check(kind, index, &format!("model.{list}[{index}]"), node);
    }
    for (index, morph) in model.morphs.iter().enumerate() {
        check("morph", index, &format!("model.morphs[{index}]"), morph);
    }
    check("header", 0, "model.header", &model.header);
    check("info", 0, "model.info", &model.info);
    assert!(checked > 200, "{checked} values");
    body.push_str(
        r#"
check("vertex", 3, "additional_uvs[0]", model.vertices[3].additional_uvs[0]);
check("vertex", 3, "additional_uvs[3].w", model.vertices[3].additional_uvs[3].w);
check("texture", 4, "", model.textures[4].path);
"#,
    );
    let output = run_on(&v2(&body), &model).unwrap();
    assert_eq!(notes(&output), Vec::<String>::new());
}

#[test]
fn fields_read_in_their_own_types() {
    let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 40, 12);
    let plugin = v2(r#"
let bone = model.bones[0];
let v = model.vertices[1];
let m = model.materials[0];
for value in [
    bone.position.x, bone.flags.ik, bone.flags.tail_is_bone, bone.parent, bone.ik.links[0].bone,
    bone.ik.links[0].limits, bone.ik.links.len(), bone.name, bone.name_en, bone.layer,
    v.weight.type, v.position[1], v.additional_uvs.len(), m.draw_flags.vertex_color, m.sphere_mode,
    model.morphs[1].kind, model.soft_bodies[0].flags.b_link, model.rigid_bodies[0].shape,
    model.joints[0].kind, model.faces[2][1], model.faces[2].len(), model.textures[0].path,
    model.header.version, model.info.comment, bone.index, model.bones[3].index,
] {
    note(`${type_of(value)} ${value}`);
}
note(`${bone.flags}`);
note(`${model.vertices.len()} ${model.morphs.len()} ${model.textures}`);
"#);
    let output = run_on(&plugin, &model).unwrap();
    let bone = &model.bones[0];
    let vertex = &model.vertices[1];
    assert_eq!(
        notes(&output),
        [
            format!("f64 {:?}", f64::from(bone.position.x)),
            "bool true".to_owned(),
            "bool true".to_owned(),
            format!(
                "i64 {}",
                bone.parent.map_or(-1, |parent| i64::from(parent.raw()))
            ),
            "i64 -1".to_owned(),
            "() ".to_owned(),
            "i64 1".to_owned(),
            format!("string {}", bone.name_ja.as_str()),
            format!("string {}", bone.name_en.as_str()),
            format!("i64 {}", bone.layer),
            format!(
                "string {}",
                serde_json::to_value(vertex.weight.kind())
                    .unwrap()
                    .as_str()
                    .unwrap()
            ),
            format!("f64 {:?}", f64::from(vertex.position.y)),
            "i64 4".to_owned(),
            "bool true".to_owned(),
            "string sub_texture".to_owned(),
            format!(
                "string {}",
                serde_json::to_value(model.morphs[1].offsets.kind())
                    .unwrap()
                    .as_str()
                    .unwrap()
            ),
            format!(
                "bool {}",
                model.soft_bodies[0]
                    .flags
                    .contains(pmx_core::model::SoftBodyFlags::B_LINK)
            ),
            format!(
                "string {}",
                serde_json::to_value(model.rigid_bodies[0].shape)
                    .unwrap()
                    .as_str()
                    .unwrap()
            ),
            format!(
                "string {}",
                serde_json::to_value(model.joints[0].kind)
                    .unwrap()
                    .as_str()
                    .unwrap()
            ),
            format!("i64 {}", model.faces[2][1].0),
            "i64 3".to_owned(),
            "string tex/t0.png".to_owned(),
            "string 2.1".to_owned(),
            "string テスト\r\n二行目".to_owned(),
            "i64 0".to_owned(),
            "i64 3".to_owned(),
            serde_json::to_value(bone.flags)
                .unwrap()
                .as_str()
                .unwrap()
                .to_owned(),
            format!(
                "{} {} textures ({})",
                model.vertices.len(),
                model.morphs.len(),
                model.textures.len()
            ),
        ]
    );
}

#[test]
fn reads_see_the_script_s_own_assignments_and_model_get_the_model_as_it_started() {
    let model = sample_model();
    let plugin = v2(r#"
let v = model.vertices[1];
let started = v.position.y;
v.position.y = 2.5;
note(`${v.position.y}`);
v.position = [1, 2, 3];
note(`${v.position.y} ${v.position}`);
v.position.x += 1;
note(`${v.position}`);
v.position.y = 0.1;
note(`${v.position.y == 0.1} ${model.get("vertex", 1, "position.y") == started}`);
let bone = model.bones[3];
bone.name = "新しい名前";
bone.flags.visible = false;
bone.parent = -1;
note(`${model.bones[3].name} ${bone.flags.visible} ${bone.parent}`);
bone.parent = model.bones[2];
note(`${bone.parent} ${bone.flags}`);
let p = model.vertices[2].position;
model.vertices[2].position.z = 7.0;
note(`${p.z}`);
"#);
    let output = run_on(&plugin, &model).unwrap();
    let visible_off = serde_json::to_value(model.bones[3].flags - BoneFlags::VISIBLE).unwrap();
    assert_eq!(
        notes(&output),
        [
            "2.5".to_owned(),
            "2.0 [1.0, 2.0, 3.0]".to_owned(),
            "[2.0, 2.0, 3.0]".to_owned(),
            // 0.1 is held as the model will hold it: an f32.
            "false true".to_owned(),
            "新しい名前 false -1".to_owned(),
            format!("2 {}", visible_off.as_str().unwrap()),
            // A field read through a variable is a view of the model, not a copy.
            "7.0".to_owned(),
        ]
    );
    let (_, after) = steps_and_result(&plugin, &model);
    assert_eq!(
        after.vertices[1].position,
        pmx_core::model::Vec3::new(2.0, 0.1, 3.0)
    );
    assert_eq!(after.bones[3].name_ja.as_str(), "新しい名前");
    assert_eq!(
        after.bones[3].parent,
        Some(pmx_core::model::BoneIdx::new(2))
    );
    assert_eq!(after.vertices[2].position.z, 7.0);
}

#[test]
fn each_assignment_queues_one_edit_and_a_loop_one_edit_per_field() {
    let model = sample_model();
    let cases: [(&str, &[&str]); 5] = [
        (
            "let bone = model.bones[4];\nbone.flags.visible = false;",
            &["set flags of 1 bone (v2.rhai:3:11)"],
        ),
        (
            "model.vertices[5].position.y += 0.5;",
            &["set position.y of 1 vertex (v2.rhai:2:27)"],
        ),
        (
            "let ik = model.bones.find(\"左足ＩＫ\");\nik.ik.links[0].bone = 3;",
            &["set ik.links[0].bone of 1 bone (v2.rhai:3:15)"],
        ),
        (
            "for v in model.vertices { v.position.y += 1.0; v.uv.x = 0.5; }",
            &[
                "set position.y of {N} vertices (v2.rhai:2:37)",
                "set uv.x of {N} vertices (v2.rhai:2:52)",
            ],
        ),
        (
            "for v in model.vertices { v.position.y += 1.0; }\nmodel.info.name_en = \"x\";",
            &[],
        ),
    ];
    for (body, expected) in cases {
        let (steps, _) = steps_and_result(&v2(body), &model);
        if expected.is_empty() {
            let count = model.vertices.len();
            assert_eq!(
                steps,
                [
                    format!("set position.y of {count} vertices (v2.rhai:2:37)"),
                    "set info name_en (v2.rhai:3:11)".to_owned()
                ],
                "{body}"
            );
        } else {
            let count = model.vertices.len().to_string();
            let expected: Vec<String> = expected
                .iter()
                .map(|step| step.replace("{N}", &count))
                .collect();
            assert_eq!(steps, expected, "{body}");
        }
    }
    // A loop over a million vertices would otherwise be a million edits.
    let (steps, after) = steps_and_result(
        &v2("for bone in model.bones { bone.tail_offset.y *= 2.0; }"),
        &model,
    );
    assert_eq!(steps.len(), 1, "{steps:?}");
    for (now, before) in after.bones.iter().zip(&model.bones) {
        assert_eq!(now.tail_offset.y, before.tail_offset.y * 2.0);
    }
}

#[test]
fn mistakes_fail_at_the_script_line_and_say_what_is_wrong() {
    let model = sample_model();
    let cases = [
        (
            "note(model.bones[0].nmae);",
            "bones[0] has no field `nmae` (its fields: name_ja",
        ),
        (
            "let b = model.bones[999];",
            "bone 999 does not exist (the model has 21 bones)",
        ),
        (
            "model.bones[0].flags.visble = true;",
            "bones[0].flags has no flag `visble` (flags: tail_is_bone, rotatable",
        ),
        (
            "model.bones[0].flags.ik = 1;",
            "a flag is true or false, not i64",
        ),
        (
            "model.vertices[0].weight.type = \"bdef2\";",
            "cannot be assigned: a weight's type changes with the whole weight",
        ),
        ("model.bones[0].index = 3;", "cannot be assigned"),
        ("model.vertices[0].position.y = \"up\";", "position.y"),
        (
            "note(model.bones[0].ik.links[7].bone);",
            "has 0 items, no [7]",
        ),
        (
            "for x in model.bones[0].position { note(x); }",
            "is not a list",
        ),
        (
            "model.bones[0].name = model.bones;",
            "model.bones is the list of every element",
        ),
        (
            "note(model.vertices.find(\"x\"));",
            "vertices have no names",
        ),
    ];
    for (body, expected) in cases {
        let result = run_on(&v2(&format!("\n{body}")), &model);
        let (line, message) = script_error(result.err().unwrap_or_else(|| panic!("{body} ran")));
        assert_eq!(line, 3, "{body}: {message}");
        assert!(message.contains(expected), "{body}: {message}");
    }
}

#[test]
fn version_1_scripts_see_the_version_1_model() {
    let model = sample_model();
    let v1 = script(
        "v1.rhai",
        "const api_version = 1;\nnote(type_of(model.info));\nnote(model.bones.len());",
    );
    let (line, _) = script_error(run_on(&v1, &model).unwrap_err());
    assert_eq!(line, 3, "model.bones is not version 1");
    let v1 = script(
        "v1.rhai",
        "const api_version = 1;\nnote(type_of(model.info)); note(model.info.name_ja);",
    );
    assert_eq!(
        notes(&run_on(&v1, &model).unwrap()),
        ["map", model.info.name_ja.as_str().as_ref()]
    );
    // Version 2 keeps every call of version 1, and elements stand for their index there.
    let both = v2("let bone = model.bones.find(\"頭\");\n\
         set(\"bone\", bone, \"name_en\", \"head\");\n\
         note(`${model.get(\"bone\", bone.index, \"name_ja\")} ${type_of(model.info)}`);");
    let output = run_on(&both, &model).unwrap();
    assert_eq!(notes(&output), ["頭 Place"]);
}

/// A million vertices: each read goes to the model and converts one value, so the loop costs
/// the same per vertex as on a small model (printed; the limit leaves room for a loaded
/// machine).
#[test]
fn reading_every_vertex_of_a_million_reads_no_copy() {
    use pmx_core::generate::{LargeModelSpec, large_model};
    let model = large_model(&LargeModelSpec::million());
    let plugin =
        v2("let sum = 0.0;\nfor v in model.vertices { sum += v.position.y; }\nnote(`${sum}`);")
            .with_limits(pmx_plugins::ScriptLimits {
                time: std::time::Duration::from_secs(120),
                ..pmx_plugins::ScriptLimits::default()
            });
    let started = std::time::Instant::now();
    let output = run_on(&plugin, &model).unwrap();
    println!(
        "version 2: read the position of 1,000,000 vertices in {:?}",
        started.elapsed()
    );
    let expected: f64 = model
        .vertices
        .iter()
        .map(|vertex| f64::from(vertex.position.y))
        .sum();
    let sum: f64 = notes(&output)[0].parse().unwrap();
    assert!(
        (sum - expected).abs() <= expected.abs() * 1e-9,
        "{sum} {expected}"
    );
}

fn example(name: &str) -> ScriptPlugin {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../resources/scripts")
        .join(name);
    ScriptPlugin::load(path).unwrap_or_else(|error| panic!("{error}"))
}

fn is_centre(bone: &pmx_core::model::Bone) -> bool {
    let name = bone.name_ja.as_str();
    !name.contains('左') && !name.contains('右')
}

/// What snap_centre_bones.rhai must do to `model`: each bone's position and tail offset after it.
fn snapped(model: &Model, tolerance: f32) -> Vec<(f32, f32)> {
    model
        .bones
        .iter()
        .map(|bone| {
            let x = bone.position.x;
            if is_centre(bone) && x != 0.0 && x.abs() <= tolerance {
                let tail = if bone.flags.contains(BoneFlags::TAIL_IS_BONE) {
                    bone.tail_offset.x
                } else {
                    0.0
                };
                (0.0, tail)
            } else {
                (x, bone.tail_offset.x)
            }
        })
        .collect()
}

fn assert_snapped(after: &Model, expected: &[(f32, f32)]) {
    for (index, bone) in after.bones.iter().enumerate() {
        assert_eq!(
            (bone.position.x, bone.tail_offset.x),
            expected[index],
            "bone {index}"
        );
    }
}

#[test]
fn snap_centre_bones_moves_the_centre_bones_a_little_off_and_names_the_far_ones() {
    let plugin = example("snap_centre_bones.rhai");
    assert_eq!(plugin.api_version(), 2);
    assert_eq!(plugin.info().id, "script:snap_centre_bones");
    let mut model = sample_model();
    let find = |model: &Model, name: &str| {
        model
            .bones
            .iter()
            .position(|bone| bone.name_ja.as_str() == name)
            .unwrap()
    };
    let upper = find(&model, "上半身");
    let head = find(&model, "頭");
    let arm = find(&model, "左腕");
    model.bones[upper].position.x = 0.01;
    model.bones[upper].flags -= BoneFlags::TAIL_IS_BONE;
    model.bones[upper].tail_offset.x = 0.02;
    model.bones[head].position.x = 1.0;
    let arm_before = model.bones[arm].clone();

    let output = run_on(&plugin, &model).unwrap();
    assert_eq!(
        notes(&output),
        [
            "1 centre bones moved onto X = 0.",
            "1 centre bones are farther off than 0.05 and stay: [\"頭\"]"
        ]
    );
    let (steps, after) = steps_and_result(&plugin, &model);
    assert_eq!(
        steps,
        [
            "set position.x of 1 bone (snap_centre_bones.rhai:33:18)",
            "set tail_offset.x of 1 bone (snap_centre_bones.rhai:35:25)"
        ]
    );
    assert_eq!(after.bones[upper].position.x, 0.0);
    assert_eq!(after.bones[upper].tail_offset.x, 0.0);
    assert_eq!(after.bones[head], model.bones[head]);
    assert_eq!(after.bones[arm], arm_before);
    let expected = snapped(&model, 0.05);
    assert_snapped(&after, &expected);
}

#[test]
fn snap_centre_bones_on_gene() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/pmx/pmxeditor_gene_cc_by.pmx");
    if !path.is_file() {
        println!("skipped: corpus file {} is absent", path.display());
        return;
    }
    let model = pmx_core::formats::load_path(&path, &pmx_core::formats::LoadOptions::default())
        .unwrap()
        .model;
    let plugin = example("snap_centre_bones.rhai");
    let expected = snapped(&model, 0.05);
    let moved = expected
        .iter()
        .zip(&model.bones)
        .filter(|((x, _), bone)| *x != bone.position.x)
        .count();
    let output = run_on(&plugin, &model).unwrap();
    println!("{:?}", notes(&output));
    assert_eq!(
        notes(&output)[0],
        format!("{moved} centre bones moved onto X = 0.")
    );
    if moved == 0 {
        assert!(output.batch.is_empty());
        return;
    }
    let (_, after) = steps_and_result(&plugin, &model);
    assert_snapped(&after, &expected);
}

#[test]
fn elements_and_fields_take_other_elements_values() {
    let model = sample_model();
    let plugin = v2(r#"
model.bones[3] = model.bones[2];
model.vertices[1].position = model.vertices[0].position;
model.vertices[2].normal = [0, 1, 0];
let frame = model.display_frames[0];
note(`${model.bones[3].name} ${model.vertices[1].position.x == model.vertices[0].position.x} ${model.textures.len()}`);
model.bones[5].parent = model.bones.find("センター");
model.bones[6].parent = ();
"#);
    let output = run_on(&plugin, &model).unwrap();
    assert_eq!(
        notes(&output),
        [format!(
            "{} true {}",
            model.bones[2].name_ja.as_str(),
            model.textures.len()
        )]
    );
    let (steps, after) = steps_and_result(&plugin, &model);
    assert_eq!(
        steps,
        [
            "set 1 bone (v2.rhai:3:12)",
            "set position of 1 vertex (v2.rhai:4:18)",
            "set normal of 1 vertex (v2.rhai:5:18)",
            // Both parents in one edit: successive bones, one field.
            "set parent of 2 bones (v2.rhai:8:15)"
        ]
    );
    assert_eq!(after.bones[3], model.bones[2]);
    assert_eq!(after.vertices[1].position, model.vertices[0].position);
    assert_eq!(
        after.vertices[2].normal,
        pmx_core::model::Vec3::new(0.0, 1.0, 0.0)
    );
    let centre = model
        .bones
        .iter()
        .position(|bone| bone.name_ja.as_str() == "センター")
        .unwrap();
    assert_eq!(
        after.bones[5].parent,
        Some(pmx_core::model::BoneIdx::new(centre))
    );
    assert_eq!(after.bones[6].parent, None);
}
