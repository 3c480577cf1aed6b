//! Imported VRM avatars as other MMD tools read them: every corpus VRM that is not BROKEN and
//! every text glTF (with its external buffers) is imported from its path, saved as PMX 2.0,
//! and read by mmd-parser (three.js's MMD loader) and pymeshio (the shared peer wrappers in
//! `../shared/tools/peers`, after their `install.sh`), which must see every byte and the
//! counts we wrote. The saved PMX is also read back by our reader and checked by the
//! validator with no error. Absent peers or corpus folders are skipped with the reason printed.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::{self, pmx};
use pmx_core::model::Model;
use pmx_core::validate::{self, CheckOptions, Severity};
use pmx_tests::{corpus_dir, files_with_extension};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Every importable corpus file: the good VRMs and the text glTFs.
fn inputs() -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(dir) = corpus_dir("vrm") {
        files.extend(
            files_with_extension(&dir, "vrm")
                .into_iter()
                .filter(|p| !p.to_string_lossy().contains("BROKEN")),
        );
    }
    if let Some(dir) = corpus_dir("gltf") {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let sub = entry.unwrap().path();
            if sub.is_dir() {
                files.extend(files_with_extension(&sub, "gltf"));
            }
        }
    }
    files.sort();
    files
}

/// Imports `input` and writes it under `dir` as PMX with its images, as `convert` does.
fn import_to_pmx(input: &Path, dir: &Path) -> (PathBuf, Model) {
    let loaded = formats::load_path(input, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", input.display()));
    let stem = input.file_stem().unwrap().to_string_lossy().into_owned();
    let out_dir = dir.join(&stem);
    std::fs::create_dir_all(&out_dir).unwrap();
    let path = out_dir.join(format!("{stem}.pmx"));
    formats::save_path(&loaded.model, &path, &formats::SaveOptions::default()).unwrap();
    formats::write_embedded_files(&loaded.embedded_files, &out_dir, false).unwrap();
    (path, loaded.model)
}

fn peer(name: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/tools/peers")
        .join(name);
    if path.exists() {
        Some(path)
    } else {
        println!("skipped: {} is absent", path.display());
        None
    }
}

fn run_peer(peer: &Path, file: &Path) -> Option<Value> {
    let output = Command::new(peer).arg(file).output().unwrap();
    if output.status.code() == Some(2) {
        println!(
            "skipped: {} is not installed ({})",
            peer.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
        return None;
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    Some(serde_json::from_str(line).unwrap_or_else(|e| panic!("peer printed {stdout:?}: {e}")))
}

fn assert_counts(peer: &str, file: &Path, report: &Value, model: &Model) {
    assert_eq!(
        report["ok"],
        Value::Bool(true),
        "{peer} cannot read {}: {report}",
        file.display()
    );
    assert_eq!(report["trailing_bytes"], 0, "{peer}: {report}");
    let counts = &report["counts"];
    let expected = [
        ("vertices", model.vertices.len()),
        ("faces", model.faces.len()),
        ("materials", model.materials.len()),
        ("textures", model.textures.len()),
        ("bones", model.bones.len()),
        ("morphs", model.morphs.len()),
        ("display_frames", model.display_frames.len()),
        ("rigid_bodies", model.rigid_bodies.len()),
        ("joints", model.joints.len()),
    ];
    for (key, count) in expected {
        assert_eq!(
            counts[key].as_u64(),
            Some(count as u64),
            "{peer} on {}: {key}",
            file.display()
        );
    }
}

#[test]
fn imported_avatars_validate_and_other_readers_read_them() {
    let files = inputs();
    if files.is_empty() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mmd_parser = peer("mmd-parser-peer");
    let pymeshio = peer("pymeshio-peer");
    for input in files {
        let (path, model) = import_to_pmx(&input, dir.path());
        // What the file holds, as a fresh load sees it, with its images beside it.
        let bytes = std::fs::read(&path).unwrap();
        let (read, _) = pmx::read(&bytes, &LoadOptions::default()).unwrap();
        let errors: Vec<String> = validate::check(&read, None, &CheckOptions::for_file(&path))
            .into_iter()
            .filter(|issue| issue.severity == Severity::Error)
            .map(|issue| format!("{} {}: {}", issue.code, issue.path, issue.message_en))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", input.display());
        for (name, peer) in [("mmd-parser", &mmd_parser), ("pymeshio", &pymeshio)] {
            if let Some(peer) = peer
                && let Some(report) = run_peer(peer, &path)
            {
                assert_counts(name, &input, &report, &model);
            }
        }
        println!(
            "{}: {} vertices, {} bones, {} morphs, {} bodies, {} joints read by the peers",
            input.display(),
            model.vertices.len(),
            model.bones.len(),
            model.morphs.len(),
            model.rigid_bodies.len(),
            model.joints.len()
        );
    }
}
