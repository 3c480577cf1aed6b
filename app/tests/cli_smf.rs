//! Selene SMF on the command line: `convert` PMX → SMF (with `--vmd`, `--collision-materials`,
//! `--alpha-test`) and SMF → PMX, the loss report on stderr, `info` and `check` on `.smf`, and
//! the flags refused where they mean nothing.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::formats::smf::{MAX_BONE_COUNT, read_smf};
use serde_json::Value;
use std::path::{Path, PathBuf};
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

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn info(path: &Path) -> Value {
    let output = ok(&["info", s(path), "--json"]);
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The sample model the repository ships.
fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../resources/sample/sample.pmx")
}

fn corpus(file: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus")
        .join(file);
    if path.is_file() {
        Some(path)
    } else {
        println!("skipped: corpus file {} is absent", path.display());
        None
    }
}

/// The largest bone palette `convert` reports ("largest bone palette N of 40").
fn largest_palette(stderr: &str) -> usize {
    let rest = stderr
        .split("largest bone palette ")
        .nth(1)
        .expect("the palette is reported");
    rest.split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn sample_converts_to_smf_and_back_with_info_and_check() {
    let dir = tempfile::tempdir().unwrap();
    let smf = dir.path().join("sample.smf");
    let output = ok(&["convert", s(&sample()), s(&smf)]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("wrote "), "{stderr}");
    assert!(stderr.contains(" frames, "), "{stderr}");
    assert!(largest_palette(&stderr) <= MAX_BONE_COUNT);
    // The loss report: what SMF has no place for, one warning per line.
    assert!(
        stderr.contains("things the SMF file cannot hold"),
        "{stderr}"
    );
    assert!(stderr.contains("warning: "), "{stderr}");

    let before = info(&sample());
    let after = info(&smf);
    assert_eq!(after["format"], "smf");
    assert_eq!(after["counts"]["faces"], before["counts"]["faces"]);
    assert_eq!(after["counts"]["bones"], before["counts"]["bones"]);
    assert_eq!(after["counts"]["morphs"], 0, "SMF has no morphs");

    // `info` in text and `check` read it too (check may find problems, but reads the file).
    let text = ok(&["info", s(&smf)]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("format:         smf"));
    let check = run(&["check", s(&smf), "--no-texture-files"]);
    assert_ne!(check.status.code(), Some(2), "check reads .smf");
    assert!(String::from_utf8_lossy(&check.stdout).contains("error(s)"));

    let back = dir.path().join("back.pmx");
    ok(&["convert", s(&smf), s(&back)]);
    let back_info = info(&back);
    assert_eq!(back_info["format"], "pmx");
    assert_eq!(back_info["counts"]["faces"], before["counts"]["faces"]);
    assert_eq!(
        back_info["counts"]["materials"],
        before["counts"]["materials"]
    );
}

#[test]
fn collision_materials_by_index_and_name_are_written_and_noted_on_import() {
    let dir = tempfile::tempdir().unwrap();
    let (model, _) = pmx_core::formats::pmx::read(
        &std::fs::read(sample()).unwrap(),
        &pmx_core::LoadOptions::default(),
    )
    .unwrap();
    let name = model.materials[model.materials.len() - 1]
        .name_ja
        .as_str()
        .into_owned();
    let smf = dir.path().join("stage.smf");
    let list = format!("0,{name}");
    let output = ok(&[
        "convert",
        s(&sample()),
        s(&smf),
        "--collision-materials",
        &list,
        "--alpha-test",
        "none",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let expected = if model.materials.len() > 1 { 2 } else { 1 };
    assert!(
        stderr.contains(&format!("collision from {expected} materials")),
        "{stderr}"
    );
    let (_, report) = read_smf(&std::fs::read(&smf).unwrap(), &Default::default()).unwrap();
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.message.contains("collision data")),
        "{:?}",
        report.notes
    );
    // Importing it says so on stderr.
    let back = dir.path().join("back.pmx");
    let output = ok(&["convert", s(&smf), s(&back)]);
    assert!(String::from_utf8_lossy(&output.stderr).contains("note: collision data"));
}

#[test]
fn gene_with_a_motion_keeps_every_palette_within_40_bones() {
    let (Some(gene), Some(motion)) = (
        corpus("pmx/pmxeditor_gene_cc_by.pmx"),
        corpus("vmd/gene_00_normal_truncated_sjis_name.vmd"),
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let smf = dir.path().join("gene.smf");
    let output = ok(&["convert", s(&gene), s(&smf), "--vmd", s(&motion)]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(largest_palette(&stderr) <= MAX_BONE_COUNT, "{stderr}");
    assert!(
        stderr.contains("animation set \"gene_00_normal_truncated_sjis_name\""),
        "{stderr}"
    );
    assert!(
        stderr.contains("30 a second"),
        "the time unit is said: {stderr}"
    );
    // The morph tracks and the IK are among the losses.
    assert!(stderr.contains("IK bones"), "{stderr}");
    let (_, report) = read_smf(&std::fs::read(&smf).unwrap(), &Default::default()).unwrap();
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.message.contains("animation sets (ANIS)")),
        "{:?}",
        report.notes
    );
    assert_eq!(
        info(&smf)["counts"]["faces"],
        info(&gene)["counts"]["faces"]
    );
}

#[test]
fn a_pmd_stage_exports_collision_and_converts_back() {
    let Some(stage) = corpus("pmd/mmdagent_ex_tatami_room_stage.pmd") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let smf = dir.path().join("stage.smf");
    ok(&["convert", s(&stage), s(&smf), "--collision-materials", "0"]);
    assert_eq!(
        info(&smf)["counts"]["faces"],
        info(&stage)["counts"]["faces"]
    );
}

#[test]
fn smf_flags_are_refused_for_other_outputs_and_unknown_materials_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let pmx = dir.path().join("out.pmx");
    let output = run(&[
        "convert",
        s(&sample()),
        s(&pmx),
        "--collision-materials",
        "0",
    ]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("are for .smf output"));
    assert!(!pmx.exists());

    let smf = dir.path().join("out.smf");
    let output = run(&[
        "convert",
        s(&sample()),
        s(&smf),
        "--collision-materials",
        "存在しない材質",
    ]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no material \"存在しない材質\""),
        "{stderr}"
    );
    assert!(!smf.exists(), "nothing is written on a bad option");

    let output = run(&[
        "convert",
        s(&sample()),
        s(&smf),
        "--vmd",
        s(&dir.path().join("missing.vmd")),
    ]);
    assert!(!output.status.success());
    assert!(!smf.exists());
}
