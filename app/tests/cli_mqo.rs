//! MQO on the command line: `convert` both ways with `--scale`, `--mqo-objects` and `--mqx`,
//! `info` and `check` on `.mqo`, and errors that say the line and column.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .args(args)
        .output()
        .expect("pmx-studio runs")
}

fn ok(args: &[&str]) -> Output {
    let output = run(args);
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn info(path: &Path) -> Value {
    let output = ok(&["info", path.to_str().unwrap(), "--json"]);
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The sample model as a PMX file in `dir`.
fn sample(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("sample.pmx");
    pmx_core::formats::save_path(
        &pmx_core::generate::sample_model(),
        &path,
        &pmx_core::formats::SaveOptions::default(),
    )
    .unwrap();
    path
}

fn max_abs_x(info_path: &Path) -> f32 {
    let (model, _) = pmx_core::formats::pmx::read(
        &std::fs::read(info_path).unwrap(),
        &pmx_core::LoadOptions::default(),
    )
    .unwrap();
    model
        .vertices
        .iter()
        .map(|v| v.position.x.abs())
        .fold(0.0, f32::max)
}

#[test]
fn convert_writes_mqo_and_mqx_and_reads_them_back_at_the_same_scale() {
    let dir = tempfile::tempdir().unwrap();
    let pmx = sample(dir.path());
    let mqo = dir.path().join("sample.mqo");
    let output = ok(&["convert", pmx.to_str().unwrap(), mqo.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("wrote "), "{stderr}");
    assert!(
        stderr.contains("things the MQO file cannot hold"),
        "{stderr}"
    );
    assert!(dir.path().join("sample.mqx").is_file());

    let before = info(&pmx);
    let after = info(&mqo);
    assert_eq!(after["format"], "mqo");
    assert_eq!(after["counts"]["faces"], before["counts"]["faces"]);
    assert_eq!(after["counts"]["bones"], before["counts"]["bones"]);

    let back = dir.path().join("back.pmx");
    ok(&["convert", mqo.to_str().unwrap(), back.to_str().unwrap()]);
    let original = max_abs_x(&pmx);
    assert!((max_abs_x(&back) - original).abs() < 1e-4);

    // --scale both ways: 80 MQO units per PMX unit out, read at 10 the model is 8 times bigger.
    let big = dir.path().join("big.mqo");
    ok(&[
        "convert",
        pmx.to_str().unwrap(),
        big.to_str().unwrap(),
        "--scale",
        "80",
        "--mqx",
        "none",
    ]);
    assert!(
        !dir.path().join("big.mqx").exists(),
        "--mqx none writes no .mqx"
    );
    let at_ten = dir.path().join("at_ten.pmx");
    ok(&["convert", big.to_str().unwrap(), at_ten.to_str().unwrap()]);
    assert!((max_abs_x(&at_ten) - 8.0 * original).abs() < 1e-3);
    let at_eighty = dir.path().join("at_eighty.pmx");
    ok(&[
        "convert",
        big.to_str().unwrap(),
        at_eighty.to_str().unwrap(),
        "--scale",
        "80",
    ]);
    assert!((max_abs_x(&at_eighty) - original).abs() < 1e-4);
}

#[test]
fn objects_per_bone_and_bad_flags() {
    let dir = tempfile::tempdir().unwrap();
    let pmx = sample(dir.path());
    let mqo = dir.path().join("bones.mqo");
    ok(&[
        "convert",
        pmx.to_str().unwrap(),
        mqo.to_str().unwrap(),
        "--mqo-objects",
        "bone",
    ]);
    assert_eq!(info(&mqo)["counts"]["faces"], info(&pmx)["counts"]["faces"]);
    let refused = run(&[
        "convert",
        pmx.to_str().unwrap(),
        mqo.to_str().unwrap(),
        "--scale",
        "0",
    ]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--scale must be a positive"));
    let mqoz = dir.path().join("out.mqoz");
    let refused = run(&["convert", pmx.to_str().unwrap(), mqoz.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains(".mqoz is read, not written"));
}

#[test]
fn a_malformed_mqo_says_the_line_and_column_and_check_reads_mqo() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.mqo");
    std::fs::write(
        &bad,
        "Metasequoia Document\r\nFormat Text Ver 1.0\r\nObject \"a\" {\r\n\tvertex 1 {\r\n\t\t1 2\r\n\t}\r\n}\r\nEof\r\n",
    )
    .unwrap();
    let output = run(&["info", bad.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("line 5, column"), "{stderr}");
    assert!(stderr.contains("Object \"a\""), "{stderr}");
    assert_eq!(stderr.matches("line 5").count(), 1, "said once: {stderr}");

    let good = dir.path().join("good.mqo");
    std::fs::write(
        &good,
        "Metasequoia Document\r\nFormat Text Ver 1.0\r\nScene {\r\n\tpos 0 0 1500\r\n}\r\nObject \"a\" {\r\n\tvertex 3 {\r\n\t\t0 0 0\r\n\t\t10 0 0\r\n\t\t0 10 0\r\n\t}\r\n\tface 1 {\r\n\t\t3 V(0 2 1)\r\n\t}\r\n}\r\nEof\r\n",
    )
    .unwrap();
    let output = run(&["check", good.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(0), "no errors");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let text = report.to_string();
    assert!(
        text.contains("Scene"),
        "the skipped chunk is a note: {text}"
    );
}

#[test]
fn vertex_colours_come_in_with_version_2_1_and_hidden_objects_can_be_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("coloured.mqo");
    std::fs::write(
        &path,
        "Metasequoia Document\r\nFormat Text Ver 1.0\r\nMaterial 1 {\r\n\t\"m\" vcol(1) col(1.000 1.000 1.000 1.000)\r\n}\r\n\
         Object \"shown\" {\r\n\tvertex 3 {\r\n\t\t0 0 0\r\n\t\t10 0 0\r\n\t\t0 10 0\r\n\t}\r\n\tface 1 {\r\n\t\t3 V(0 2 1) M(0) COL(4278190335 4278255360 4294901760)\r\n\t}\r\n}\r\n\
         Object \"hidden\" {\r\n\tvisible 0\r\n\tvertex 3 {\r\n\t\t0 0 5\r\n\t\t10 0 5\r\n\t\t0 10 5\r\n\t}\r\n\tface 1 {\r\n\t\t3 V(0 2 1) M(0)\r\n\t}\r\n}\r\nEof\r\n",
    )
    .unwrap();
    let plain = dir.path().join("plain.pmx");
    ok(&["convert", path.to_str().unwrap(), plain.to_str().unwrap()]);
    let plain = info(&plain);
    assert_eq!(plain["additional_uv"], 0);
    assert_eq!(plain["counts"]["faces"], 2, "the hidden object is imported");
    let coloured = dir.path().join("coloured.pmx");
    ok(&[
        "convert",
        path.to_str().unwrap(),
        coloured.to_str().unwrap(),
        "--version",
        "2.1",
        "--skip-hidden-objects",
    ]);
    let coloured = info(&coloured);
    assert_eq!(coloured["version"], 2.1);
    assert_eq!(
        coloured["additional_uv"], 1,
        "vertex colours as PMX 2.1 keeps them"
    );
    assert_eq!(coloured["counts"]["faces"], 1, "the hidden object left out");
}
