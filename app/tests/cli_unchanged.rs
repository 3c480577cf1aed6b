//! Batch use of `pmx-studio run` and `script`: a tool or script that changes nothing writes
//! the model as it was (the input's own bytes when the format is the same), says so and exits
//! 0, so that a loop over a folder goes on.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::formats::{LoadOptions, load_path};
use pmx_core::generate::sample_model;
use pmx_core::model::{Bone, Model};
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

/// A model `flip_normals` has nothing to do on: bones, no vertices.
fn skeleton_only(path: &Path) -> Vec<u8> {
    let mut model = Model::new_empty();
    model.bones.push(Bone {
        name_ja: "センター".into(),
        ..Bone::default()
    });
    let (bytes, _) = pmx::write(&model, &PmxSaveOptions::default()).unwrap();
    std::fs::write(path, &bytes).unwrap();
    bytes
}

fn assert_unchanged_run(output: &Output, what: &str) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{what}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("nothing changed; the model is written as it was"),
        "{what}: {stdout}"
    );
}

#[test]
fn a_tool_that_changes_nothing_writes_the_input_bytes_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("skeleton.pmx");
    let bytes = skeleton_only(&input);
    let output_path = dir.path().join("out.pmx");
    let (i, o) = (input.to_str().unwrap(), output_path.to_str().unwrap());
    let output = pmx_studio(&["run", "flip_normals", i, o]);
    assert_unchanged_run(&output, "run");
    assert!(String::from_utf8_lossy(&output.stdout).starts_with("Flip normals: "));
    assert_eq!(
        std::fs::read(&output_path).unwrap(),
        bytes,
        "the input's bytes"
    );

    // --json says it too.
    std::fs::remove_file(&output_path).unwrap();
    let output = pmx_studio(&["run", "flip_normals", i, o, "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["changed"], false);
    assert_eq!(json["plugin"], "flip_normals");
    assert_eq!(std::fs::read(&output_path).unwrap(), bytes);

    // Into another format: the model as it was, written in that format.
    let json_path = dir.path().join("out.json");
    let output = pmx_studio(&["run", "flip_normals", i, json_path.to_str().unwrap()]);
    assert_unchanged_run(&output, "run to .json");
    let written = load_path(&json_path, &LoadOptions::default())
        .unwrap()
        .model;
    let original = load_path(&input, &LoadOptions::default()).unwrap().model;
    assert_eq!(written, original);
}

#[test]
fn a_script_that_changes_nothing_writes_the_input_bytes_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pmx");
    let (bytes, _) = pmx::write(&sample_model(), &PmxSaveOptions::default()).unwrap();
    std::fs::write(&input, &bytes).unwrap();
    let script = dir.path().join("look.rhai");
    // Reads the model and changes nothing.
    std::fs::write(
        &script,
        "const api_version = 2;\nlet count = model.bones.len();\nnote(`${count} bones`);\n",
    )
    .unwrap();
    let output_path = dir.path().join("out.pmx");
    let output = pmx_studio(&[
        "script",
        script.to_str().unwrap(),
        input.to_str().unwrap(),
        output_path.to_str().unwrap(),
    ]);
    assert_unchanged_run(&output, "script");
    assert_eq!(
        std::fs::read(&output_path).unwrap(),
        bytes,
        "the input's bytes"
    );
}

#[test]
fn a_tool_that_fails_still_exits_1_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("skeleton.pmx");
    skeleton_only(&input);
    let output_path = dir.path().join("out.pmx");
    let output = pmx_studio(&[
        "run",
        "flip_normals",
        input.to_str().unwrap(),
        output_path.to_str().unwrap(),
        "--select",
        "vertices:5",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(!output_path.exists());
}
