//! VRM import on the command line: `convert IN.vrm|.glb|.gltf OUT.pmx` writes the PMX and the
//! images the VRM embeds beside it (never over a different file), `info` and `check` read
//! VRM files (with their images checked where a conversion puts them), a BROKEN file fails
//! with the reason and writes nothing, and a VRM converts straight back to VRM. Corpus files
//! that are absent are skipped with the reason printed.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::pmx;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .args(args)
        .output()
        .expect("pmx-studio runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn ok(args: &[&str]) -> Output {
    let output = run(args);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    output
}

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
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

#[test]
fn a_vrm_becomes_a_pmx_with_its_images_beside_it() {
    let Some(vrm) = corpus("vrm/godette_vrm0_cc_by.vrm") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("godette.pmx");
    let output = ok(&["convert", s(&vrm), s(&out)]);
    let (model, _) = pmx::read(&std::fs::read(&out).unwrap(), &LoadOptions::default()).unwrap();
    // The 3 images of the VRM and the toon ramps generated from its MToon shade colours.
    let toons = model
        .textures
        .iter()
        .filter(|t| t.as_str().starts_with("tex/toon_"))
        .count();
    assert!(toons >= 1, "{:?}", model.textures);
    assert_eq!(model.textures.len(), 3 + toons);
    assert!(
        stderr(&output).contains(&format!("wrote {} image(s)", 3 + toons)),
        "{}",
        stderr(&output)
    );
    for texture in &model.textures {
        let image = dir.path().join(texture.as_str().as_ref());
        let bytes = std::fs::read(&image).unwrap_or_else(|e| panic!("{}: {e}", image.display()));
        image::load_from_memory(&bytes).unwrap();
    }
    // The standard skeleton MMD motions look for.
    let names: Vec<String> = model
        .bones
        .iter()
        .map(|b| b.name_ja.as_str().into_owned())
        .collect();
    for name in [
        "全ての親",
        "センター",
        "上半身",
        "頭",
        "左腕",
        "右ひじ",
        "左足ＩＫ",
    ] {
        assert!(names.iter().any(|n| n == name), "no {name} in {names:?}");
    }
    // The PMX passes check with its images found.
    let check = ok(&["check", s(&out)]);
    assert!(
        String::from_utf8_lossy(&check.stdout).contains("0 error(s)"),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
}

#[test]
fn an_image_already_there_with_other_contents_is_kept() {
    let Some(vrm) = corpus("vrm/godette_vrm0_cc_by.vrm") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("a.pmx");
    ok(&["convert", s(&vrm), s(&first)]);
    let image = std::fs::read_dir(dir.path().join("tex"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(&image, b"the user's own picture").unwrap();
    let output = run(&["convert", s(&vrm), s(&dir.path().join("b.pmx"))]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("not replaced"),
        "{}",
        stderr(&output)
    );
    assert_eq!(std::fs::read(&image).unwrap(), b"the user's own picture");
}

#[test]
fn info_and_check_read_vrm_files() {
    let Some(vrm) = corpus("vrm/s06_example_vrm1_skinned.vrm") else {
        return;
    };
    let output = ok(&["info", s(&vrm), "--json"]);
    let info: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(info["format"], "vrm");
    assert!(info["counts"]["bones"].as_u64().unwrap() > 50);
    assert!(info["counts"]["vertices"].as_u64().unwrap() > 1000);
    let output = run(&["check", s(&vrm)]);
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success() && text.contains("0 error(s)"),
        "{text}"
    );
    assert!(!text.contains("W-TEXTURE-MISSING"), "{text}");
}

#[test]
fn a_broken_vrm_fails_with_the_reason_and_writes_nothing() {
    let Some(vrm) = corpus("vrm/s06_BROKEN_draco.vrm") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.pmx");
    let output = run(&["convert", s(&vrm), s(&out)]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("KHR_draco_mesh_compression"),
        "{}",
        stderr(&output)
    );
    assert!(!out.exists());
    let output = run(&["check", s(&vrm)]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

#[test]
fn a_text_gltf_reads_its_buffers_from_beside_it() {
    let Some(gltf) = corpus("gltf/three-vrm-core-cube/cube.gltf") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cube.pmx");
    ok(&["convert", s(&gltf), s(&out)]);
    let (model, _) = pmx::read(&std::fs::read(&out).unwrap(), &LoadOptions::default()).unwrap();
    assert_eq!(model.faces.len(), 216);
    // The expressions' morph targets live in two more external buffers.
    assert!(model.morphs.len() >= 6, "{} morphs", model.morphs.len());
}

#[test]
fn a_vrm_converts_back_to_vrm() {
    let Some(vrm) = corpus("vrm/godette_vrm0_cc_by.vrm") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("godette.vrm");
    let output = ok(&["convert", s(&vrm), s(&out)]);
    assert!(
        stderr(&output).contains("3 images"),
        "the embedded images reach the export: {}",
        stderr(&output)
    );
    // Nothing is left beside the output but the VRM.
    let entries: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(entries.len(), 1);
}

#[test]
fn import_flags_choose_the_pose_and_the_physics() {
    let Some(vrm) = corpus("vrm/metalkit_springbone_capsule_collider_vrm1.vrm") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bodies = |name: &str, flags: &[&str]| {
        let out = dir.path().join(name);
        let mut args = vec!["convert", s(&vrm), s(&out)];
        args.extend_from_slice(flags);
        ok(&args);
        let (model, _) = pmx::read(&std::fs::read(&out).unwrap(), &LoadOptions::default()).unwrap();
        model.rigid_bodies.len()
    };
    assert!(bodies("physics.pmx", &[]) > 0, "the spring becomes bodies");
    assert_eq!(bodies("none.pmx", &["--no-physics"]), 0);
    assert!(bodies("t.pmx", &["--keep-t-pose", "--arm-angle", "30"]) > 0);
    // The flags mean nothing for other inputs, and a silly angle is refused.
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../resources/sample/sample.pmx");
    let output = run(&[
        "convert",
        s(&sample),
        s(&dir.path().join("x.pmx")),
        "--keep-t-pose",
    ]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("--keep-t-pose"),
        "{}",
        stderr(&output)
    );
    let output = run(&[
        "convert",
        s(&vrm),
        s(&dir.path().join("y.pmx")),
        "--arm-angle",
        "400",
    ]);
    assert!(!output.status.success());
}
