//! `pmx-studio edit`: scripts apply as one step, `--undo-all` gives the input's bytes back,
//! errors name the failing step and leave no output.

// Test and benchmark code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::generate::feature_model;
use pmx_core::model::{PmxVersion, TextEncoding};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn pmx_studio(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .arg("edit")
        .args(args)
        .output()
        .expect("pmx-studio runs")
}

fn write_model(path: &Path, others: usize) {
    let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 40, others);
    let (bytes, _) = pmx::write(&model, &PmxSaveOptions::default()).expect("the model writes");
    std::fs::write(path, bytes).expect("the model file is written");
}

#[test]
fn a_script_applies_and_undo_all_gives_the_same_bytes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("in.pmx");
    let other = dir.path().join("other.pmx");
    write_model(&input, 12);
    write_model(&other, 9);
    let script = dir.path().join("steps.json");
    std::fs::write(
        &script,
        r#"{"label": "Tidy up", "ops": [
            {"op": "set", "kind": "vertex", "indices": [0], "field": "position", "value": [0, 1, 0]},
            {"op": "set", "kind": "info", "field": "name_en", "value": "edited"},
            {"op": "delete", "kind": "bone", "indices": [5, 6]},
            {"op": "duplicate", "kind": "material", "indices": [0]},
            {"op": "move", "kind": "morph", "indices": [3], "to": 0},
            {"op": "sort", "kind": "bone", "by": "hierarchy"},
            {"op": "merge", "path": "other.pmx", "match_bones_by_name": false}
        ]}"#,
    )
    .expect("script written");

    let output_path = dir.path().join("out.pmx");
    let flag = Path::new("--script");
    let json = Path::new("--json");
    let output = pmx_studio(&[&input, &output_path, flag, &script, json]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: Value = serde_json::from_slice(&output.stdout).expect("--json prints JSON");
    assert_eq!(printed["label"], "Tidy up");
    assert_eq!(printed["steps"], 7);
    // The deleted bones' vertex weights moved to their ancestors instead of being cleared.
    let moved = printed["report"]["moved"]
        .as_array()
        .expect("moved is a list");
    assert!(
        moved
            .iter()
            .any(|m| m["what"] == "vertex weights" && m["count"].as_u64().unwrap_or(0) > 0),
        "{moved:?}"
    );
    assert!(
        moved
            .iter()
            .all(|m| m["to"].is_u64() && m["to_name"].is_string())
    );
    assert!(printed["report"]["cleared"].get("vertex weights").is_none());
    assert!(printed["report"]["removed_with"].is_object());
    assert!(printed["report"]["switched_off"].is_object());
    let edited = pmx_core::formats::load_path(&output_path, &Default::default())
        .expect("the output reads")
        .model;
    let original = pmx_core::formats::load_path(&input, &Default::default())
        .expect("the input reads")
        .model;
    assert_eq!(edited.info.name_en.as_str(), "edited");
    assert_eq!(edited.bones.len(), original.bones.len() - 2 + 9);
    assert_eq!(edited.vertices.len(), original.vertices.len() + 40);

    let undone_path = dir.path().join("undone.pmx");
    let undo = Path::new("--undo-all");
    let output = pmx_studio(&[&input, &undone_path, flag, &script, undo]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        std::fs::read(&undone_path).expect("output"),
        std::fs::read(&input).expect("input"),
        "undoing the script gives the input's bytes"
    );
}

#[test]
fn a_deletion_prints_what_moved_and_what_went_with_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("in.pmx");
    write_model(&input, 12);
    let script = dir.path().join("delete.json");
    std::fs::write(
        &script,
        r#"[{"op": "delete", "kind": "bone", "indices": [3]}]"#,
    )
    .expect("script written");
    let output_path = dir.path().join("out.pmx");
    let output = pmx_studio(&[&input, &output_path, Path::new("--script"), &script]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut lines = stdout.lines();
    let label = lines.next().unwrap_or_default();
    assert!(
        label.starts_with("Delete 1 bone (") && label.contains("vertex weights"),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("  moved ") && l.contains(" vertex weights to bone ")),
        "{stdout}"
    );
    assert!(
        stdout.lines().any(|l| l.starts_with("  removed ")),
        "{stdout}"
    );
}

#[test]
fn a_failing_step_is_named_and_nothing_is_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("in.pmx");
    write_model(&input, 12);
    let script = dir.path().join("bad.json");
    std::fs::write(
        &script,
        r#"[{"op": "delete", "kind": "bone", "indices": [1]},
            {"op": "set", "kind": "bone", "indices": [500], "field": "layer", "value": 2}]"#,
    )
    .expect("script written");
    let output_path = dir.path().join("out.pmx");
    let output = pmx_studio(&[&input, &output_path, Path::new("--script"), &script]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("step 1 (set): bone index 500 is out of range"),
        "{stderr}"
    );
    assert!(!output_path.exists());

    std::fs::write(&script, r#"[{"op": "explode", "kind": "bone"}]"#).expect("script written");
    let output = pmx_studio(&[&input, &output_path, Path::new("--script"), &script]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("invalid edit script"));
}

#[test]
fn a_v20_file_with_v21_features_is_edited_as_it_came_with_the_allowance() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("in.pmx");
    // The 2.1 every-feature model has QDEF weights, flip/impulse morphs and soft bodies: written
    // as a 2.0 file it is what a tool that ignores the version rules writes.
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 40, 3);
    model.header.version = PmxVersion::V2_0;
    let options = PmxSaveOptions {
        allow_version_violations: true,
        ..PmxSaveOptions::default()
    };
    let (bytes, _) = pmx::write(&model, &options).expect("the model writes");
    std::fs::write(&input, &bytes).expect("the model file is written");
    let script = dir.path().join("steps.json");
    std::fs::write(
        &script,
        r#"[{"op": "set", "kind": "info", "field": "name_en", "value": "edited"}]"#,
    )
    .expect("script written");
    let output_path = dir.path().join("out.pmx");
    let flag = Path::new("--script");

    let refused = pmx_studio(&[&input, &output_path, flag, &script]);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("2.1"),
        "the refusal names the version: {stderr}"
    );
    assert!(!output_path.exists(), "nothing is written when refused");

    let allowance = Path::new("--allow-version-violations");
    let output = pmx_studio(&[&input, &output_path, flag, &script, allowance]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let edited = pmx_core::formats::load_path(&output_path, &Default::default())
        .expect("the output reads")
        .model;
    assert_eq!(edited.header.version, PmxVersion::V2_0);
    assert_eq!(edited.info.name_en.as_str(), "edited");

    let undone_path = dir.path().join("undone.pmx");
    let undo = Path::new("--undo-all");
    let output = pmx_studio(&[&input, &undone_path, flag, &script, undo, allowance]);
    assert!(output.status.success());
    assert_eq!(
        std::fs::read(&undone_path).expect("output"),
        bytes,
        "the file is written as it came"
    );
}

/// `transform` turns vertices 90° about Z: positions, normals, SDEF's C/R0/R1 and the vertex
/// morph offsets on them all turn; `--undo-all` gives the input's bytes back.
#[test]
fn a_transform_op_turns_vertices_with_their_normals_sdef_and_morph_offsets() {
    use pmx_core::model::{MorphOffsets, Vec3, Weight};
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("in.pmx");
    write_model(&input, 12);
    let original = pmx_core::formats::load_path(&input, &Default::default())
        .expect("the input reads")
        .model;
    let count = original.vertices.len();
    assert!(
        original
            .vertices
            .iter()
            .any(|v| matches!(v.weight, Weight::Sdef { .. })),
        "the generated model has SDEF vertices"
    );
    let script = dir.path().join("turn.json");
    let indices: Vec<usize> = (0..count).collect();
    std::fs::write(
        &script,
        serde_json::json!([{"op": "transform", "kind": "vertex", "indices": indices,
            "rotate": [0, 0, 90], "pivot": [0, 0, 0]}])
        .to_string(),
    )
    .expect("script written");
    let output_path = dir.path().join("out.pmx");
    let output = pmx_studio(&[
        &input,
        &output_path,
        Path::new("--script"),
        &script,
        Path::new("--json"),
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: Value = serde_json::from_slice(&output.stdout).expect("--json prints JSON");
    assert_eq!(printed["label"], format!("Rotate {count} vertices"));
    let turned = pmx_core::formats::load_path(&output_path, &Default::default())
        .expect("the output reads")
        .model;
    // A quarter turn about Z: (x, y, z) → (−y, x, z).
    let quarter = |p: Vec3| Vec3::new(-p.y, p.x, p.z);
    let close = |a: Vec3, b: Vec3| {
        (a.x - b.x).abs() < 1e-4 && (a.y - b.y).abs() < 1e-4 && (a.z - b.z).abs() < 1e-4
    };
    let mut sdef = 0;
    for (before, after) in original.vertices.iter().zip(&turned.vertices) {
        assert!(close(after.position, quarter(before.position)));
        let length = |n: Vec3| (n.x * n.x + n.y * n.y + n.z * n.z).sqrt();
        let expected = quarter(before.normal);
        assert!(
            close(after.normal, expected) || (length(before.normal) == 0.0),
            "{:?} → {:?}",
            before.normal,
            after.normal
        );
        if let (
            Weight::Sdef { c, r0, r1, .. },
            Weight::Sdef {
                c: c2,
                r0: r02,
                r1: r12,
                ..
            },
        ) = (&before.weight, &after.weight)
        {
            sdef += 1;
            assert!(
                close(*c2, quarter(*c)) && close(*r02, quarter(*r0)) && close(*r12, quarter(*r1))
            );
        }
    }
    assert!(sdef > 0);
    let mut offsets_checked = 0;
    for (before, after) in original.morphs.iter().zip(&turned.morphs) {
        if let (MorphOffsets::Vertex(a), MorphOffsets::Vertex(b)) =
            (&before.offsets, &after.offsets)
        {
            for (a, b) in a.iter().zip(b) {
                assert!(close(b.offset, quarter(a.offset)));
                offsets_checked += 1;
            }
        }
    }
    assert!(offsets_checked > 0, "the model has vertex morph offsets");

    let undone = dir.path().join("undone.pmx");
    let output = pmx_studio(&[
        &input,
        &undone,
        Path::new("--script"),
        &script,
        Path::new("--undo-all"),
    ]);
    assert!(output.status.success());
    assert_eq!(
        std::fs::read(&undone).expect("written"),
        std::fs::read(&input).expect("read"),
        "--undo-all gives the input's bytes"
    );
}
