//! `pmx-studio edit` with a `paint_weights` script: the saved file holds the painted weights
//! (the same as the op built in the library), and `--undo-all` gives the input's bytes back.

// Test and benchmark code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::edit::{EditOp, ops_to_edit};
use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::generate::sample_model;
use serde_json::json;
use std::process::Command;

#[test]
fn an_edit_script_paints_weights_and_the_file_holds_them() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("in.pmx");
    let output = dir.path().join("out.pmx");
    let undone = dir.path().join("undone.pmx");
    let model = sample_model();
    let (bytes, _) = pmx::write(&model, &PmxSaveOptions::default()).expect("the model writes");
    std::fs::write(&input, &bytes).expect("the model file is written");
    let arm = model
        .bones
        .iter()
        .position(|b| b.name_ja.as_str() == "左腕")
        .expect("the sample has 左腕");
    let vertices: Vec<usize> = (0..model.vertices.len()).step_by(3).collect();
    let op = json!({
        "op": "paint_weights", "bone": "左腕", "mode": "set",
        "vertices": vertices, "amounts": vec![0.75; vertices.len()],
        "mirror": true, "max_bones": 2, "locked": []
    });
    let script = dir.path().join("paint.json");
    std::fs::write(&script, json!([op.clone()]).to_string()).expect("script written");

    let run = |out: &std::path::Path, extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
            .arg("edit")
            .args([&input, out])
            .arg("--script")
            .arg(&script)
            .args(extra)
            .output()
            .expect("pmx-studio runs")
    };
    let result = run(&output, &["--json"]);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let printed: serde_json::Value = serde_json::from_slice(&result.stdout).expect("JSON");
    assert!(
        printed["label"]
            .as_str()
            .unwrap()
            .starts_with("Weight paint 左腕 ("),
        "{printed}"
    );

    let saved = pmx_core::formats::load_path(&output, &Default::default())
        .expect("the output loads")
        .model;
    let mut expected = model.clone();
    let op: EditOp = serde_json::from_value(op).unwrap();
    let mut edit = ops_to_edit(&mut expected.clone(), &[op]).unwrap();
    edit.apply(&mut expected);
    let mut painted = 0;
    for (v, (now, want)) in saved.vertices.iter().zip(&expected.vertices).enumerate() {
        assert_eq!(now.weight, want.weight, "vertex {v}");
        if now.weight != model.vertices[v].weight {
            painted += 1;
        }
        let sum: f32 = now.weight.bone_weights().iter().map(|(_, w)| w).sum();
        assert!((sum - 1.0).abs() <= 1e-5, "vertex {v}: {:?}", now.weight);
    }
    assert!(painted > 0, "the file holds painted weights");
    for &v in &vertices {
        let held: f32 = saved.vertices[v]
            .weight
            .bone_weights()
            .iter()
            .filter(|(b, _)| b.map(|b| b.get()) == Some(arm))
            .map(|(_, w)| w)
            .sum();
        assert!(
            (held - 0.75).abs() < 1e-6,
            "vertex {v} holds 左腕 at {held}"
        );
    }

    let result = run(&undone, &["--undo-all"]);
    assert!(result.status.success());
    assert_eq!(
        std::fs::read(&undone).unwrap(),
        bytes,
        "undo gives the bytes back"
    );
}
