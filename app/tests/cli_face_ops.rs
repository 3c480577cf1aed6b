//! `pmx-studio edit` with the face ops of the 3D view's face mode (`swap_face_diagonal`,
//! `flip_faces`): the saved file holds exactly the faces the library's ops make, and nothing
//! else changes.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::edit::{EditOp, ops_to_edit};
use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::generate::sample_model;
use serde_json::json;
use std::process::Command;

#[test]
fn an_edit_script_swaps_a_diagonal_and_flips_faces() {
    let dir = tempfile::tempdir().unwrap();
    let model = sample_model();
    let (bytes, _) = pmx::write(&model, &PmxSaveOptions::default()).unwrap();
    let input = dir.path().join("in.pmx");
    std::fs::write(&input, &bytes).unwrap();
    // Two neighbouring triangles of one material that share an edge (a quad of the sample).
    let pair = (0..model.faces.len() - 1)
        .find(|&f| {
            let shared = model.faces[f]
                .iter()
                .filter(|v| model.faces[f + 1].contains(v))
                .count();
            shared == 2 && model.material_of_face(f) == model.material_of_face(f + 1)
        })
        .unwrap();
    let ops = json!([
        {"op": "swap_face_diagonal", "faces": [pair, pair + 1]},
        {"op": "flip_faces", "indices": [pair + 2]}
    ]);
    let script = dir.path().join("faces.json");
    std::fs::write(&script, ops.to_string()).unwrap();
    let output = dir.path().join("out.pmx");
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
    let saved = pmx::read(&std::fs::read(&output).unwrap(), &Default::default())
        .unwrap()
        .0;
    let ops: Vec<EditOp> = serde_json::from_value(ops).unwrap();
    let mut expected = model.clone();
    let mut edit = ops_to_edit(&mut expected, &ops).unwrap();
    edit.apply(&mut expected);
    assert_eq!(saved.faces, expected.faces);
    for f in 0..model.faces.len() {
        let changed = [pair, pair + 1, pair + 2].contains(&f);
        assert_eq!(saved.faces[f] != model.faces[f], changed, "face {f}");
    }
    assert_eq!(saved.vertices.len(), model.vertices.len());
}
