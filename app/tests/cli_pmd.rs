//! `info` and `convert` on PMD files: the format name, PMD → PMX → PMD and PMD → PMD through
//! the command line, and the loss report `convert` prints when writing PMD.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pmx_studio(args: &[&Path]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .args(args)
        .output()
        .expect("pmx-studio runs");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn corpus_pmd(file: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/pmd")
        .join(file);
    if path.is_file() {
        Some(path)
    } else {
        println!("skipped: corpus file {} is absent", path.display());
        None
    }
}

#[test]
fn info_reports_pmd_and_convert_round_trips_through_pmx() {
    let Some(corpus_file) = corpus_pmd("mmdagent_sd_mei.pmd") else {
        return;
    };
    // A copy beside the outputs: texture paths are relative to the model's folder, and
    // writing into another folder rewrites them so they still reach the textures.
    let dir = tempfile::tempdir().expect("temp dir");
    let original = dir.path().join("original.pmd");
    std::fs::copy(&corpus_file, &original).expect("copies");
    let output = pmx_studio(&[Path::new("info"), &original, Path::new("--json")]);
    let info: Value = serde_json::from_slice(&output.stdout).expect("one JSON object");
    assert_eq!(info["format"], "pmd");
    assert_eq!(info["counts"]["vertices"], 2207);
    assert_eq!(info["counts"]["faces"], 2975);
    assert_eq!(info["counts"]["bones"], 133);
    assert_eq!(info["counts"]["morphs"], 28);
    assert_eq!(info["counts"]["rigid_bodies"], 41);
    assert_eq!(info["counts"]["joints"], 30);

    let pmx = dir.path().join("mei.pmx");
    let back = dir.path().join("mei.pmd");
    pmx_studio(&[Path::new("convert"), &original, &pmx]);
    let output = pmx_studio(&[Path::new("convert"), &pmx, &back]);
    assert!(output.stderr.is_empty(), "nothing is lost");
    assert!(
        std::fs::read(&back).unwrap() == std::fs::read(&original).unwrap(),
        "PMD → PMX → PMD gives the same bytes"
    );
    let copy = dir.path().join("copy.pmd");
    let output = pmx_studio(&[Path::new("convert"), &original, &copy]);
    assert!(output.stderr.is_empty(), "nothing is lost");
    assert!(
        std::fs::read(&copy).unwrap() == std::fs::read(&original).unwrap(),
        "PMD → PMD gives the same bytes"
    );
}

#[test]
fn convert_to_pmd_prints_the_loss_report() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/pmx/generated_utf8_sdef_two_bone_elbow.pmx");
    if !path.is_file() {
        println!("skipped: corpus file {} is absent", path.display());
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("elbow.pmd");
    let output = pmx_studio(&[Path::new("convert"), &path, &out]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "{} things the PMD file cannot hold (written as described):",
            lines.len() - 1
        )
    );
    assert!(lines.contains(
        &"warning: vertices[0].weight: SDEF is written as BDEF2 (same bones and weight; the C, \
          R0 and R1 points are dropped)"
    ));
    let info: Value =
        serde_json::from_slice(&pmx_studio(&[Path::new("info"), &out, Path::new("--json")]).stdout)
            .unwrap();
    assert_eq!(info["format"], "pmd");
    assert_eq!(info["counts"]["vertices"], 40);
}
