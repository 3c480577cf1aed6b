//! `pmx-studio plugins`, `run` and `script`: the list (text and JSON), a tool run as one step
//! with a selection and options, and clear errors for unknown tools, bad selections and bad
//! options (exit 1, no output file).

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::formats::{LoadOptions, load_path};
use pmx_core::generate::sample_model;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn pmx_studio(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .args(args)
        .env("PMX_STUDIO_SCRIPTS", "/nonexistent-scripts-folder")
        .output()
        .expect("pmx-studio runs")
}

fn write_sample(path: &Path) {
    let (bytes, _) = pmx::write(&sample_model(), &PmxSaveOptions::default()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn plugins_lists_every_built_in_with_its_options_as_json() {
    let output = pmx_studio(&["plugins", "--json"]);
    assert!(output.status.success());
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let plugins = json["plugins"].as_array().unwrap();
    let registry = pmx_plugins::Registry::builtin();
    assert_eq!(plugins.len(), registry.len());
    for (entry, info) in plugins.iter().zip(registry.infos()) {
        assert_eq!(entry["id"], info.id.as_str());
        assert_eq!(entry["name_ja"], info.name_ja.as_str());
        assert_eq!(entry["name_en"], info.name_en.as_str());
        assert_eq!(entry["group"], info.group.id());
        assert_eq!(
            entry["options"].as_array().unwrap().len(),
            info.options.len()
        );
        for (option, spec) in entry["options"]
            .as_array()
            .unwrap()
            .iter()
            .zip(&info.options)
        {
            assert_eq!(option["key"], spec.key);
            assert_eq!(option["default"], spec.default.to_json());
        }
    }
    let flip = plugins.iter().find(|p| p["id"] == "flip_normals").unwrap();
    assert_eq!(flip["needs"]["kind"], "vertex");
    assert_eq!(flip["needs"]["selection"], "optional");
    let text = pmx_studio(&["plugins"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("flip_normals"));
}

#[test]
fn run_applies_a_tool_to_the_selection_and_says_what_changed() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pmx");
    let output_path = dir.path().join("out.pmx");
    write_sample(&input);
    let (i, o) = (input.to_str().unwrap(), output_path.to_str().unwrap());
    let output = pmx_studio(&["run", "flip_normals", i, o, "--select", "vertices:1,3-4"]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.starts_with("Flip normals\n"), "{stdout}");
    assert!(stdout.contains("3 normals flipped"), "{stdout}");
    let before = sample_model();
    let after = load_path(&output_path, &LoadOptions::default())
        .unwrap()
        .model;
    for (index, (b, a)) in before.vertices.iter().zip(&after.vertices).enumerate() {
        if [1, 3, 4].contains(&index) {
            assert_eq!(a.normal.y, -b.normal.y, "vertex {index}");
        } else {
            assert_eq!(a.normal, b.normal, "vertex {index}");
        }
    }
    let json = pmx_studio(&[
        "run",
        "flip_normals",
        i,
        o,
        "--select",
        "vertices:0",
        "--json",
    ]);
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["plugin"], "flip_normals");
    assert_eq!(json["label"], "Flip normals");
    assert_eq!(json["notes"][0], "1 normals flipped");
}

#[test]
fn bad_tools_selections_and_options_are_refused_by_name_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pmx");
    let output_path = dir.path().join("out.pmx");
    write_sample(&input);
    let (i, o) = (input.to_str().unwrap(), output_path.to_str().unwrap());
    let cases: [(&[&str], &str); 4] = [
        (
            &["run", "no_such_tool", i, o],
            "no tool named \"no_such_tool\"",
        ),
        (
            &["run", "flip_normals", i, o, "--select", "vertices:100000"],
            "the model has",
        ),
        (
            &["run", "flip_normals", i, o, "--select", "widgets:1"],
            "not an element kind",
        ),
        (
            &["run", "flip_normals", i, o, "--options", "{\"angle\": 3}"],
            "this plugin has no options",
        ),
    ];
    for (args, expected) in cases {
        let output = pmx_studio(args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(!output_path.exists(), "{args:?} wrote a file");
    }
}

fn example_scripts() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../resources/scripts")
}

#[test]
fn scripts_are_listed_from_the_folder_and_run_as_one_step() {
    let scripts = example_scripts();
    let output = pmx_studio(&["plugins", "--json", "--scripts", scripts.to_str().unwrap()]);
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let ids: Vec<&str> = json["plugins"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"script:hide_ik_bones"), "{ids:?}");
    assert!(ids.contains(&"script:center_model"), "{ids:?}");

    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pmx");
    let out = dir.path().join("out.pmx");
    write_sample(&input);
    let (i, o) = (input.to_str().unwrap(), out.to_str().unwrap());
    let script = scripts.join("hide_ik_bones.rhai");
    let output = pmx_studio(&["script", script.to_str().unwrap(), i, o]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.starts_with("Hide IK bones\n"), "{stdout}");
    let after = load_path(&out, &LoadOptions::default()).unwrap().model;
    for (a, b) in after.bones.iter().zip(&sample_model().bones) {
        let visible = pmx_core::model::BoneFlags::VISIBLE;
        assert_eq!(
            a.flags.contains(visible),
            b.flags.contains(visible) && !b.is_ik()
        );
    }
    // The same through `run script:NAME`.
    let output = pmx_studio(&[
        "run",
        "script:hide_ik_bones",
        i,
        o,
        "--scripts",
        scripts.to_str().unwrap(),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_script_that_never_ends_is_stopped_at_its_time_limit() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pmx");
    let out = dir.path().join("out.pmx");
    write_sample(&input);
    let script = dir.path().join("endless.rhai");
    std::fs::write(
        &script,
        "const api_version = 1;\nconst name = \"x\";\nloop {}\n",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let output = pmx_studio(&[
        "script",
        script.to_str().unwrap(),
        input.to_str().unwrap(),
        out.to_str().unwrap(),
        "--time-limit",
        "0.5",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("endless.rhai:3:"), "{stderr}");
    assert!(stderr.contains("ran longer than"), "{stderr}");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert!(!out.exists());
}

/// The version-2 script of issue 34, exactly as written there.
const ISSUE_34_SCRIPT: &str = include_str!("../../plugins/tests/issue34.rhai");

/// Runs the issue's script with `pmx-studio script` on `input` (text, then `--json`) and checks
/// the written model against `before`: the IK bones hidden and nothing else about the bones,
/// vertex 0 moved up by 0.5, the note printed, one step named after the script; then the same
/// run in process through a history, undone in one step.
fn issue_34_script_edits(input: &Path, before: &pmx_core::Model) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("issue34.rhai");
    std::fs::write(&script, ISSUE_34_SCRIPT).unwrap();
    let out = dir.path().join("out.pmx");
    let (s, i, o) = (
        script.to_str().unwrap(),
        input.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    let output = pmx_studio(&["script", s, i, o]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let note = format!(
        "{} bones, first {}",
        before.bones.len(),
        before.bones[0].name_ja.as_str()
    );
    assert!(stdout.starts_with("issue34\n"), "{stdout}");
    assert!(stdout.contains(&format!("  {note}\n")), "{stdout}");

    let after = load_path(&out, &LoadOptions::default()).unwrap().model;
    let visible = pmx_core::model::BoneFlags::VISIBLE;
    let ik_bones = before.bones.iter().filter(|bone| bone.is_ik()).count();
    assert!(ik_bones > 0, "the model has IK bones to hide");
    for (index, (now, then)) in after.bones.iter().zip(&before.bones).enumerate() {
        let expected = if then.is_ik() {
            then.flags - visible
        } else {
            then.flags
        };
        assert_eq!(now.flags, expected, "bone {index}");
        assert_eq!(now.position, then.position, "bone {index}");
    }
    assert_eq!(
        after.vertices[0].position.y,
        before.vertices[0].position.y + 0.5
    );
    assert_eq!(after.vertices[1..], before.vertices[1..]);

    // One step, named after the script, made of the flags of the IK bones and the vertex.
    let json = pmx_studio(&["script", s, i, o, "--json"]);
    assert!(json.status.success());
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["label"], "issue34");
    assert_eq!(json["notes"], serde_json::json!([note]));
    let visible_ik = before
        .bones
        .iter()
        .filter(|bone| bone.is_ik() && bone.flags.contains(visible))
        .count();
    assert_eq!(
        json["steps"],
        serde_json::json!([
            format!("set flags of {visible_ik} bones (issue34.rhai:3:56)"),
            "set position.y of 1 vertex (issue34.rhai:6:11)"
        ])
    );

    let plugin = pmx_plugins::ScriptPlugin::load(&script).unwrap();
    let mut model = before.clone();
    let run = pmx_plugins::run_plugin(
        &plugin,
        &mut model,
        &pmx_plugins::PluginSelection::new(),
        &pmx_plugins::Options::default(),
    )
    .unwrap();
    let mut history = pmx_core::edit::History::new();
    history.apply(&mut model, run.edit);
    assert_eq!(history.len(), 1);
    assert_eq!(history.undo_label(), Some("issue34"));
    history.undo(&mut model);
    assert!(model == *before, "one undo gives the model back");
}

#[test]
fn the_version_2_script_of_issue_34_edits_the_corpus_gene_in_one_step() {
    let gene = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/pmx/pmxeditor_gene_cc_by.pmx");
    if !gene.is_file() {
        println!("skipped: corpus file {} is absent", gene.display());
        return;
    }
    let before = load_path(&gene, &LoadOptions::default()).unwrap().model;
    issue_34_script_edits(&gene, &before);
}

#[test]
fn the_version_2_script_of_issue_34_edits_a_generated_model_in_one_step() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pmx");
    write_sample(&input);
    let before = load_path(&input, &LoadOptions::default()).unwrap().model;
    issue_34_script_edits(&input, &before);
}
