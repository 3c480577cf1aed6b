//! Our VRM output read by others: the Khronos glTF validator and @pixiv/three-vrm (the shared
//! peer wrappers `../shared/tools/peers/gltf-validator-peer` and `three-vrm-peer`, after their
//! `install.sh`), on the sample model and the corpus models that have the humanoid bones (PMX,
//! and PMD converted on reading). Each peer or corpus file that is not there is skipped with
//! the reason printed. Set `VRM_EXPORT_KEEP=DIR` to keep the written files.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::vrm::{SpringCounts, VrmExportOptions, map_bones, split_glb, write_vrm};
use pmx_core::formats::{WriteError, pmd, pmx};
use pmx_core::model::Model;
use pmx_tests::corpus_dir;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The corpus models expected to have every required humanoid bone.
const CORPUS_HUMANOIDS: [(&str, &str); 3] = [
    ("pmx", "pmxeditor_gene_cc_by.pmx"),
    ("pmd", "pmd_gene_cc_by.pmd"),
    ("pmd", "mmdagent_sd_mei.pmd"),
];

/// (name, model, folder its textures are in).
fn models() -> Vec<(String, Model, Option<PathBuf>)> {
    let mut models = vec![
        (
            "sample".to_owned(),
            pmx_core::generate::sample_model(),
            None,
        ),
        textured_sample(),
    ];
    for (sub, file) in CORPUS_HUMANOIDS {
        let Some(dir) = corpus_dir(sub) else { continue };
        let path = dir.join(file);
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("skipped: {} is absent", path.display());
            continue;
        };
        let model = if sub == "pmd" {
            pmd::read(&bytes, &LoadOptions::default()).unwrap().0
        } else {
            pmx::read(&bytes, &LoadOptions::default()).unwrap().0
        };
        models.push((file.to_owned(), model, Some(dir)));
    }
    // Every other corpus model that has the required humanoid bones (skeleton-only files and
    // other tools' exports among them).
    for sub in ["pmx", "pmd"] {
        let Some(dir) = corpus_dir(sub) else { continue };
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case(sub)))
            .collect();
        files.sort();
        for path in files {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if CORPUS_HUMANOIDS.iter().any(|(_, f)| *f == name) {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let read = if sub == "pmd" {
                pmd::read(&bytes, &LoadOptions::default()).map(|r| r.0)
            } else {
                pmx::read(&bytes, &LoadOptions::default()).map(|r| r.0)
            };
            let Ok(model) = read else { continue };
            if map_bones(&model).missing_required().is_empty() {
                models.push((name, model, Some(dir.clone())));
            }
        }
    }
    models
}

/// A 2×2 24-bit BMP of one colour (written by hand: the tests crate has no image codec).
fn bmp(rgb: [u8; 3]) -> Vec<u8> {
    let row = [rgb[2], rgb[1], rgb[0], rgb[2], rgb[1], rgb[0], 0, 0];
    let mut out = Vec::new();
    out.extend_from_slice(b"BM");
    out.extend_from_slice(&(54u32 + 16).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&54u32.to_le_bytes());
    for value in [40u32, 2, 2] {
        out.extend_from_slice(&value.to_le_bytes());
    }
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&24u16.to_le_bytes());
    for value in [0u32, 16, 2835, 2835, 0, 0] {
        out.extend_from_slice(&value.to_le_bytes());
    }
    out.extend_from_slice(&row);
    out.extend_from_slice(&row);
    out
}

/// The sample with a BMP texture, an additive sphere and a toon texture beside it.
fn textured_sample() -> (String, Model, Option<PathBuf>) {
    let dir = std::env::temp_dir().join(format!("pmx-vrm-export-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("skin.bmp"), bmp([230, 200, 180])).unwrap();
    std::fs::write(dir.join("metal.spa"), bmp([60, 60, 80])).unwrap();
    std::fs::write(dir.join("toon.bmp"), bmp([200, 160, 160])).unwrap();
    let mut model = pmx_core::generate::sample_model();
    model.textures = vec!["skin.bmp".into(), "metal.spa".into(), "toon.bmp".into()];
    use pmx_core::model::{SphereMode, TextureIdx, Toon};
    for material in &mut model.materials {
        material.texture = Some(TextureIdx::new(0));
        material.toon = Toon::Texture(Some(TextureIdx::new(2)));
    }
    model.materials[1].sphere_texture = Some(TextureIdx::new(1));
    model.materials[1].sphere_mode = SphereMode::Add;
    ("sample_textured".to_owned(), model, Some(dir))
}

/// Every model written to `dir`: (name, path, expressions expected, spring counts written).
fn written(dir: &Path) -> Vec<(String, PathBuf, usize, SpringCounts)> {
    models()
        .into_iter()
        .map(|(name, model, model_dir)| {
            let options = VrmExportOptions {
                model_dir,
                ..VrmExportOptions::default()
            };
            let export = write_vrm(&model, &options)
                .unwrap_or_else(|e| panic!("{name}: the export failed: {e}"));
            let path = dir.join(format!("{name}.vrm"));
            std::fs::write(&path, &export.vrm).unwrap();
            let report = &export.report;
            eprintln!(
                "{name}: {} humanoid bones, {} preset + {} custom expressions, {} morph targets, {} materials, {} images; {} losses:",
                report.humanoid_bones,
                report.preset_expressions,
                report.custom_expressions,
                report.morph_targets,
                report.materials,
                report.images,
                report.losses.len()
            );
            let springs = report.springs;
            eprintln!(
                "{name}: {} springs, {} spring joints, {} colliders in {} groups, limits {} cone / {} hinge / {} spherical, {} node constraints",
                springs.springs,
                springs.joints,
                springs.colliders,
                springs.collider_groups,
                springs.cone_limits,
                springs.hinge_limits,
                springs.spherical_limits,
                report.node_constraints
            );
            for loss in &report.losses {
                eprintln!("  - {}", loss.message_en());
            }
            let expressions = report.preset_expressions + report.custom_expressions;
            (name, path, expressions, springs)
        })
        .collect()
}

fn output_dir() -> (Option<tempfile::TempDir>, PathBuf) {
    match std::env::var_os("VRM_EXPORT_KEEP") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            std::fs::create_dir_all(&dir).unwrap();
            (None, dir)
        }
        None => {
            let temp = tempfile::tempdir().unwrap();
            let path = temp.path().to_owned();
            (Some(temp), path)
        }
    }
}

fn peer(name: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/tools/peers")
        .join(name);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("skipped: {} is absent", path.display());
        None
    }
}

/// Runs a peer on `file`: its JSON line, or `None` (reason printed) when it is not installed.
fn run_peer(peer: &Path, file: &Path) -> Option<serde_json::Value> {
    let output = Command::new(peer).arg(file).output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    let verdict: serde_json::Value =
        serde_json::from_str(line).unwrap_or_else(|e| panic!("peer printed {stdout:?}: {e}"));
    if output.status.code() == Some(2) {
        eprintln!(
            "skipped: {} is not installed (run its install.sh): {}",
            peer.display(),
            verdict["error"]
        );
        return None;
    }
    Some(verdict)
}

#[test]
fn the_khronos_validator_finds_no_errors() {
    let Some(validator) = peer("gltf-validator-peer") else {
        return;
    };
    let (_keep, dir) = output_dir();
    for (name, path, _, springs) in written(&dir) {
        // Gene's hair, skirt and ribbons are physics chains with joint limits.
        if name.contains("gene") {
            assert!(
                springs.springs > 10 && springs.colliders > 0,
                "{name}: {springs:?}"
            );
            assert!(springs.cone_limits + springs.hinge_limits + springs.spherical_limits > 10);
        }
        let Some(verdict) = run_peer(&validator, &path) else {
            return;
        };
        eprintln!("{name}: validator {verdict}");
        assert_eq!(verdict["errors"], 0, "{name}: {verdict}");
        assert_eq!(verdict["ok"], true, "{name}: {verdict}");
    }
}

#[test]
fn three_vrm_loads_vrm_1_with_the_humanoid_and_expressions() {
    let Some(three_vrm) = peer("three-vrm-peer") else {
        return;
    };
    let (_keep, dir) = output_dir();
    for (name, path, expressions, springs) in written(&dir) {
        let Some(verdict) = run_peer(&three_vrm, &path) else {
            return;
        };
        eprintln!("{name}: three-vrm {verdict}");
        assert_eq!(verdict["ok"], true, "{name}: {verdict}");
        assert_eq!(verdict["meta_version"], "1", "{name}: {verdict}");
        let bones: Vec<&str> = verdict["humanoid_bone_names"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b.as_str().unwrap())
            .collect();
        for required in pmx_core::formats::vrm::humanoid::REQUIRED {
            assert!(
                bones.contains(&required.vrm_name()),
                "{name}: {} missing in {verdict}",
                required.vrm_name()
            );
        }
        assert_eq!(verdict["expressions"], expressions, "{name}: {verdict}");
        // three-vrm makes one joint per file joint that has a child joint (not the tails).
        assert_eq!(
            verdict["spring_joints"].as_u64().unwrap() as usize,
            springs.joints - springs.springs,
            "{name}: {verdict}"
        );
        assert_eq!(verdict["springs_in_file"], springs.springs, "{name}");
        assert_eq!(
            verdict["spring_colliders"].as_u64().unwrap() as usize,
            springs.colliders,
            "{name}: {verdict}"
        );
        // Every material is MToon (skeleton-only models have none).
        assert_eq!(
            verdict["mtoon_materials"], verdict["gltf"]["materials"],
            "{name}: {verdict}"
        );
        // The named corpus humanoids have 左目/右目: lookAt of type bone.
        if CORPUS_HUMANOIDS.iter().any(|(_, file)| *file == name) {
            assert_eq!(
                verdict["look_at"], "VRMLookAtBoneApplier",
                "{name}: {verdict}"
            );
            assert!(bones.contains(&"leftEye") && bones.contains(&"rightEye"));
        }
    }
}

#[test]
fn corpus_models_rest_in_a_t_pose() {
    for (name, model, model_dir) in models() {
        let options = VrmExportOptions {
            model_dir,
            ..VrmExportOptions::default()
        };
        let export = write_vrm(&model, &options).unwrap();
        let (json, _) = split_glb(&export.vrm).unwrap();
        let nodes = json["nodes"].as_array().unwrap();
        let mut parent = vec![None; nodes.len()];
        for (i, node) in nodes.iter().enumerate() {
            for child in node["children"].as_array().into_iter().flatten() {
                parent[child.as_u64().unwrap() as usize] = Some(i);
            }
        }
        let position = |mut node: usize| {
            let mut sum = glam::Vec3::ZERO;
            loop {
                if let Some(t) = nodes[node]["translation"].as_array() {
                    sum += glam::Vec3::new(
                        t[0].as_f64().unwrap() as f32,
                        t[1].as_f64().unwrap() as f32,
                        t[2].as_f64().unwrap() as f32,
                    );
                }
                match parent[node] {
                    Some(p) => node = p,
                    None => return sum,
                }
            }
        };
        let bones = &json["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"];
        let at = |bone: &str| position(bones[bone]["node"].as_u64().unwrap() as usize);
        for (side, x) in [("left", 1.0f32), ("right", -1.0)] {
            let along = glam::Vec3::new(x, 0.0, 0.0);
            let upper = at(&format!("{side}UpperArm"));
            let lower = at(&format!("{side}LowerArm"));
            let hand = at(&format!("{side}Hand"));
            for (segment, from, to) in [("upper arm", upper, lower), ("forearm", lower, hand)] {
                let degrees = (to - from).normalize().angle_between(along).to_degrees();
                eprintln!("{name}: {side} {segment} {degrees:.2}° from ±X");
                assert!(degrees < 3.0, "{name}: {side} {segment} is {degrees}° off");
            }
            // Fingers along ±X, thumbs along the bisector of ±X and +Z (when the model has them).
            let thumb = glam::Vec3::new(x, 0.0, 1.0).normalize();
            for (finger, target) in [
                ("Index", along),
                ("Middle", along),
                ("Ring", along),
                ("Little", along),
            ] {
                let proximal = format!("{side}{finger}Proximal");
                let intermediate = format!("{side}{finger}Intermediate");
                if bones[&proximal].is_null() || bones[&intermediate].is_null() {
                    continue;
                }
                let direction = at(&intermediate) - at(&proximal);
                let degrees = direction.normalize().angle_between(target).to_degrees();
                assert!(degrees < 3.0, "{name}: {side} {finger} is {degrees}° off");
            }
            let metacarpal = format!("{side}ThumbMetacarpal");
            let proximal = format!("{side}ThumbProximal");
            if !bones[&metacarpal].is_null() && !bones[&proximal].is_null() {
                let direction = at(&proximal) - at(&metacarpal);
                let degrees = direction.normalize().angle_between(thumb).to_degrees();
                eprintln!("{name}: {side} thumb {degrees:.2}° from the X+Z bisector");
                assert!(degrees < 3.0, "{name}: {side} thumb is {degrees}° off");
            }
        }
    }
}

#[test]
fn models_without_humanoid_bones_are_refused_by_name() {
    let Some(dir) = corpus_dir("pmx") else { return };
    let path = dir.join("pmxeditor_glasses_accessory.pmx");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("skipped: {} is absent", path.display());
        return;
    };
    let (model, _) = pmx::read(&bytes, &LoadOptions::default()).unwrap();
    match write_vrm(&model, &VrmExportOptions::default()) {
        Err(WriteError::MissingHumanoidBones { bones }) => {
            assert!(bones.iter().any(|b| b.contains("leftUpperArm (左腕)")));
        }
        Err(other) => eprintln!("refused: {other}"),
        Ok(_) => panic!("an accessory is not a humanoid"),
    }
}
