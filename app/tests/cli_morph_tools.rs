//! `pmx-studio run split_morph` and `pmx-studio edit` with a morph tool op: the saved file holds
//! the same morphs the library's op makes.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::edit::{EditOp, ops_to_edit};
use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::generate::sample_model;
use pmx_core::model::MorphOffsets;
use serde_json::json;
use std::path::Path;
use std::process::Command;

/// The sample model with its mouth morph renamed まばたき, written to `dir/in.pmx`.
fn input(dir: &Path) -> (pmx_core::Model, std::path::PathBuf) {
    let mut model = sample_model();
    model.morphs[0].name_ja = "まばたき".into();
    let (bytes, _) = pmx::write(&model, &PmxSaveOptions::default()).expect("the model writes");
    let path = dir.join("in.pmx");
    std::fs::write(&path, &bytes).expect("the model file is written");
    (model, path)
}

fn read(path: &Path) -> pmx_core::Model {
    pmx::read(&std::fs::read(path).unwrap(), &Default::default())
        .unwrap()
        .0
}

#[test]
fn run_split_morph_writes_the_two_halves_after_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let (model, input) = input(dir.path());
    let output = dir.path().join("out.pmx");
    let result = Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .args(["run", "split_morph"])
        .args([&input, &output])
        .args(["--select", "morphs:まばたき"])
        .args([
            "--options",
            r#"{"suffix_left": "左", "suffix_right": "右", "blend_width": 0.5}"#,
        ])
        .output()
        .expect("pmx-studio runs");
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let saved = read(&output);
    assert_eq!(saved.morphs.len(), model.morphs.len() + 2);
    assert_eq!(saved.morphs[1].name_ja.as_str(), "まばたき左");
    assert_eq!(saved.morphs[2].name_ja.as_str(), "まばたき右");

    // The same as the op built in the library.
    let op: EditOp =
        serde_json::from_value(json!({"op": "split_morph", "morph": "まばたき"})).unwrap();
    let mut expected = model.clone();
    let mut edit = ops_to_edit(&mut expected, &[op]).unwrap();
    edit.apply(&mut expected);
    for (a, b) in saved.morphs.iter().zip(&expected.morphs) {
        assert_eq!(a.name_ja.as_str(), b.name_ja.as_str());
        assert_eq!(a.offsets, b.offsets);
    }
    assert!(!saved.morphs[1].offsets.is_empty());
}

#[test]
fn an_edit_script_runs_a_morph_tool_op() {
    let dir = tempfile::tempdir().unwrap();
    let (model, input) = input(dir.path());
    let output = dir.path().join("out.pmx");
    let script = dir.path().join("group.json");
    std::fs::write(
        &script,
        json!([
            {"op": "group_morph_from_selection", "name": "合成", "panel": "other",
             "morphs": [{"morph": "まばたき", "ratio": 0.5}, {"morph": 1}]},
            {"op": "mirror_morph", "morph": "まばたき", "mode": "symmetrize"}
        ])
        .to_string(),
    )
    .unwrap();
    let result = Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .arg("edit")
        .args([&input, &output])
        .arg("--script")
        .arg(&script)
        .output()
        .expect("pmx-studio runs");
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let saved = read(&output);
    let group = saved.morphs.last().unwrap();
    assert_eq!(group.name_ja.as_str(), "合成");
    let MorphOffsets::Group(members) = &group.offsets else {
        panic!("a group morph");
    };
    assert_eq!(members.len(), 2);
    assert_eq!(
        (members[0].morph.unwrap().get(), members[0].ratio),
        (0, 0.5)
    );
    assert_eq!(
        (members[1].morph.unwrap().get(), members[1].ratio),
        (1, 1.0)
    );
    assert_eq!(saved.morphs.len(), model.morphs.len() + 1);
}
