//! Every corpus VRM (and Gene, the PmxEditor model) through import → export → the Khronos
//! validator → import again, with three-vrm opening what was written (the peers in
//! `../shared/tools/peers`, after their `install.sh`). Files from elsewhere join with
//! `VRM_EXTRA_DIR=DIR` (every `.vrm`/`.glb` in it). Missing corpus folders and peers are skipped
//! with the reason printed; each file's line says what happened, for reports.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use crate::LoadOptions;
use crate::formats::vrm::{VrmExportOptions, map_bones, read_vrm, write_vrm};
use crate::model::Model;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn shared(sub: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared")
        .join(sub);
    if path.exists() {
        Some(path)
    } else {
        println!("skipped: {} is absent", path.display());
        None
    }
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.extension().is_some_and(|e| {
                        e.eq_ignore_ascii_case("vrm") || e.eq_ignore_ascii_case("glb")
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// A peer's JSON verdict on `file` (`None`: not installed).
fn peer(name: &str, file: &Path) -> Option<Value> {
    let peer = shared("tools/peers")?.join(name);
    let output = Command::new(&peer).arg(file).output().ok()?;
    if output.status.code() == Some(2) {
        println!("skipped {name}: not installed (run its install.sh)");
        return None;
    }
    serde_json::from_str(String::from_utf8_lossy(&output.stdout).lines().last()?).ok()
}

/// Exports `model` (textures in `dir`), validates, reads back; the validator's error count.
fn export_validate_import(
    name: &str,
    model: &Model,
    dir: Option<&Path>,
    out: &Path,
) -> Option<u64> {
    if !map_bones(model).missing_required().is_empty() {
        println!("{name}: no humanoid to export");
        return None;
    }
    let options = VrmExportOptions {
        model_dir: dir.map(Path::to_owned),
        ..VrmExportOptions::default()
    };
    let export = match write_vrm(model, &options) {
        Ok(export) => export,
        Err(error) => {
            println!("{name}: export refused: {error}");
            return None;
        }
    };
    let file = out.join(format!("{name}.out.vrm"));
    std::fs::write(&file, &export.vrm).unwrap();
    let validator = peer("gltf-validator-peer", &file);
    let errors = validator.as_ref().and_then(|v| v["errors"].as_u64());
    let three = peer("three-vrm-peer", &file).map(|v| v["ok"] == true);
    let again = read_vrm(&export.vrm, &LoadOptions::default());
    println!(
        "{name}: written {} bytes, validator errors {:?} (codes {}), three-vrm opens {:?}, read back {}",
        export.vrm.len(),
        errors,
        validator
            .as_ref()
            .map_or(Value::Null, |v| v["issue_codes"].clone()),
        three,
        match &again {
            Ok(import) => format!(
                "ok ({} vertices, {} bones, {} bodies)",
                import.model.vertices.len(),
                import.model.bones.len(),
                import.model.rigid_bodies.len()
            ),
            Err(error) => format!("FAILED: {error}"),
        }
    );
    assert!(again.is_ok(), "{name}: our own file reads back");
    if let Some(opened) = three {
        assert!(opened, "{name}: three-vrm opens what we wrote");
    }
    errors
}

#[test]
fn corpus_vrms_and_gene_export_with_no_validator_errors_and_read_back() {
    let out = tempfile::tempdir().unwrap();
    let mut sources: Vec<PathBuf> = shared("corpus/vrm").map(|d| files(&d)).unwrap_or_default();
    if let Some(extra) = std::env::var_os("VRM_EXTRA_DIR") {
        sources.extend(files(Path::new(&extra)));
    }
    let mut failures = Vec::new();
    for path in sources {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let three = peer("three-vrm-peer", &path).map(|v| v["ok"] == true);
        let import = read_vrm(&bytes, &LoadOptions::default());
        println!(
            "{name}: three-vrm opens the source {three:?}; we read it {}",
            match &import {
                Ok(import) => format!("with {} notes", import.report.notes.len()),
                Err(error) => format!("NOT: {error}"),
            }
        );
        let Ok(import) = import else {
            if three == Some(true) {
                failures.push(format!("{name}: three-vrm opens it, we do not"));
            }
            continue;
        };
        let textures = out.path().join(&name);
        import.write_textures(&textures).unwrap();
        if let Some(errors) =
            export_validate_import(&name, &import.model, Some(&textures), out.path())
            && errors > 0
        {
            failures.push(format!("{name}: {errors} validator errors"));
        }
    }
    if let Some(dir) = shared("corpus/pmx") {
        let gene = dir.join("pmxeditor_gene_cc_by.pmx");
        if let Ok(bytes) = std::fs::read(&gene) {
            let (model, _) = crate::formats::pmx::read(&bytes, &LoadOptions::default()).unwrap();
            if let Some(errors) = export_validate_import("gene", &model, Some(&dir), out.path())
                && errors > 0
            {
                failures.push(format!("gene: {errors} validator errors"));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
