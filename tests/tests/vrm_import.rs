//! VRM import: every corpus VRM that is not marked BROKEN imports and passes the validator
//! without errors; the standard MMD bones exist on the 1.0 and 0.x samples; BROKEN files and
//! every truncation of a small file give an error or a listed problem, never a panic; PMX →
//! VRM → PMX keeps the humanoid bone names and the expressions. Corpus files that are absent
//! are skipped with the reason printed.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::vrm::{VrmExportOptions, VrmVersion, read_vrm, write_vrm};
use pmx_core::formats::{self, FileFormat};
use pmx_core::model::{Model, MorphOffsets};
use pmx_core::validate::{self, CheckOptions};
use pmx_tests::{corpus_dir, files_with_extension};
use std::path::PathBuf;

fn corpus_vrms() -> Vec<PathBuf> {
    let Some(dir) = corpus_dir("vrm") else {
        return Vec::new();
    };
    files_with_extension(&dir, "vrm")
}

fn is_broken(path: &std::path::Path) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().contains("BROKEN"))
}

fn bone_names(model: &Model) -> Vec<String> {
    model
        .bones
        .iter()
        .map(|b| b.name_ja.as_str().into_owned())
        .collect()
}

#[test]
fn every_good_corpus_vrm_imports_and_validates() {
    for path in corpus_vrms().into_iter().filter(|p| !is_broken(p)) {
        let bytes = std::fs::read(&path).unwrap();
        let imported = read_vrm(&bytes, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let model = &imported.model;
        println!(
            "{}: {:?}, {} bones, {} vertices, {} faces, {} materials, {} morphs, {} textures, {} notes",
            path.file_name().unwrap().to_string_lossy(),
            imported.version,
            model.bones.len(),
            model.vertices.len(),
            model.faces.len(),
            model.materials.len(),
            model.morphs.len(),
            imported.textures.len(),
            imported.report.notes.len()
        );
        for note in &imported.report.notes {
            println!("  note: {note}");
        }
        let errors = errors(model);
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
        // Only what the triangles use is copied (Godette's primitives leave 101 vertices over).
        let unused = validate::check(model, None, &CheckOptions::default())
            .into_iter()
            .filter(|issue| issue.code == "W-VERTEX-UNUSED")
            .count();
        assert_eq!(unused, 0, "{}", path.display());
        // The model writes as PMX and reads back.
        let (pmx, _) = formats::write_bytes(model, FileFormat::Pmx, &Default::default()).unwrap();
        let (back, _) = formats::pmx::read(&pmx, &LoadOptions::default()).unwrap();
        assert_eq!(back.bones.len(), model.bones.len());
        // Through format detection, as `pmx-studio` reads it.
        assert_eq!(FileFormat::detect(&path, &bytes), Some(FileFormat::Vrm));
    }
}

const STANDARD_BONES: [&str; 20] = [
    "全ての親",
    "センター",
    "グルーブ",
    "上半身",
    "下半身",
    "首",
    "頭",
    "左腕",
    "左ひじ",
    "左手首",
    "右腕",
    "右ひじ",
    "右手首",
    "左足",
    "左ひざ",
    "左足首",
    "右足",
    "右ひざ",
    "右足首",
    "左足ＩＫ",
];

#[test]
fn standard_bones_and_ik_on_the_1_0_and_0_x_samples() {
    let Some(dir) = corpus_dir("vrm") else { return };
    for (file, version) in [
        ("s06_example_vrm1_skinned.vrm", VrmVersion::V1),
        ("godette_vrm0_cc_by.vrm", VrmVersion::V0),
        ("s06_minimal_vrm0.vrm", VrmVersion::V0),
    ] {
        let path = dir.join(file);
        let Ok(bytes) = std::fs::read(&path) else {
            println!("skipped: {} is absent", path.display());
            continue;
        };
        let imported = read_vrm(&bytes, &LoadOptions::default()).unwrap();
        assert_eq!(imported.version, version, "{file}");
        let model = &imported.model;
        let names = bone_names(model);
        for wanted in STANDARD_BONES.iter().chain(&["右足ＩＫ"]) {
            assert!(
                names.iter().any(|n| n == wanted),
                "{file}: no {wanted} in {names:?}"
            );
        }
        let find = |name: &str| names.iter().position(|n| n == name).unwrap();
        let leg_ik = &model.bones[find("左足ＩＫ")];
        assert!(leg_ik.is_ik());
        assert_eq!(leg_ik.ik.target.map(|t| t.get()), Some(find("左足首")));
        assert_eq!(
            leg_ik.ik.links[0].bone.map(|b| b.get()),
            Some(find("左ひざ"))
        );
        assert!(leg_ik.ik.links[0].limits.is_some(), "the knee is limited");
        // The model's left is MMD's +X, whichever way the VRM faced.
        assert!(
            model.bones[find("左腕")].position.x > 0.0,
            "{file}: left arm at {:?}",
            model.bones[find("左腕")].position
        );
        let upper = &model.bones[find("上半身")];
        let lower = &model.bones[find("下半身")];
        assert_eq!(upper.parent, lower.parent, "上半身 and 下半身 are siblings");
    }
}

#[test]
fn vrm0_expressions_become_mmd_morphs() {
    let Some(dir) = corpus_dir("vrm") else { return };
    let path = dir.join("godette_vrm0_cc_by.vrm");
    let Ok(bytes) = std::fs::read(&path) else {
        println!("skipped: {} is absent", path.display());
        return;
    };
    let model = read_vrm(&bytes, &LoadOptions::default()).unwrap().model;
    let names: Vec<String> = model
        .morphs
        .iter()
        .map(|m| m.name_ja.as_str().into_owned())
        .collect();
    println!("morphs: {names:?}");
    for wanted in ["あ", "まばたき"] {
        assert!(
            names.iter().any(|n| n == wanted),
            "no {wanted} in {names:?}"
        );
    }
    let blink = model
        .morphs
        .iter()
        .find(|m| m.name_ja.as_str() == "まばたき")
        .unwrap();
    assert!(matches!(&blink.offsets, MorphOffsets::Vertex(v) if !v.is_empty()));
}

#[test]
fn broken_files_give_an_error_or_a_listed_problem() {
    for path in corpus_vrms().into_iter().filter(|p| is_broken(p)) {
        let bytes = std::fs::read(&path).unwrap();
        for recover in [false, true] {
            let options = LoadOptions {
                recover,
                ..LoadOptions::default()
            };
            match read_vrm(&bytes, &options) {
                Err(error) => println!("{}: {error}", path.display()),
                Ok(imported) => {
                    assert!(
                        imported.report.lost_data(),
                        "{}: read without a listed problem",
                        path.display()
                    );
                    for note in &imported.report.notes {
                        println!("{}: note: {note}", path.display());
                    }
                }
            }
        }
    }
}

#[test]
fn every_truncation_of_a_small_file_returns() {
    let Some(dir) = corpus_dir("vrm") else { return };
    let path = dir.join("s06_mtoon1_vrm1.vrm");
    let Ok(bytes) = std::fs::read(&path) else {
        println!("skipped: {} is absent", path.display());
        return;
    };
    let recovering = LoadOptions {
        recover: true,
        ..LoadOptions::default()
    };
    for end in 0..bytes.len() {
        let _ = read_vrm(&bytes[..end], &LoadOptions::default());
        let _ = read_vrm(&bytes[..end], &recovering);
    }
    // And every single corrupted byte of the header and chunk headers.
    for at in 0..20.min(bytes.len()) {
        let mut broken = bytes.clone();
        broken[at] ^= 0xFF;
        let _ = read_vrm(&broken, &LoadOptions::default());
    }
}

#[test]
fn pmx_to_vrm_to_pmx_keeps_humanoid_names_and_expressions() {
    let model = pmx_core::generate::sample_model();
    let export = write_vrm(
        &model,
        &VrmExportOptions {
            t_pose: false,
            spring_bones: false,
            ..VrmExportOptions::default()
        },
    )
    .unwrap();
    let imported = read_vrm(&export.vrm, &LoadOptions::default()).unwrap();
    assert_eq!(imported.version, VrmVersion::V1);
    let back = &imported.model;
    let map = pmx_core::formats::vrm::map_bones(&model);
    let names = bone_names(back);
    for (human, &bone) in &map.bones {
        let original = model.bones[bone].name_ja.as_str().into_owned();
        let (standard, _) = human.mmd_standard_names();
        assert!(
            names.contains(&standard),
            "{} ({original}) lost: {names:?}",
            human.vrm_name()
        );
        // The sample's names are the standard ones (toes aside, which MMD calls つま先 too).
        if !matches!(
            human,
            pmx_core::formats::vrm::HumanBone::LeftToes
                | pmx_core::formats::vrm::HumanBone::RightToes
        ) {
            assert!(names.contains(&original), "{original} lost: {names:?}");
        }
    }
    // The hierarchy comes back: each bone that returns under its name has its original
    // parent among its ancestors (the import may put a standard bone such as グルーブ between).
    let index_of = |name: &str| names.iter().position(|n| n == name);
    let mut compared = 0;
    for bone in &model.bones {
        let (Some(parent), Some(back_bone)) = (bone.parent, index_of(&bone.name_ja.as_str()))
        else {
            continue;
        };
        let parent_name = model.bones[parent.get()].name_ja.as_str().into_owned();
        if index_of(&parent_name).is_none() {
            continue;
        }
        let mut ancestors = Vec::new();
        let mut at = back.bones[back_bone].parent;
        while let Some(up) = at {
            if ancestors.len() > back.bones.len() {
                break;
            }
            ancestors.push(names[up.get()].clone());
            at = back.bones[up.get()].parent;
        }
        assert!(
            ancestors.contains(&parent_name),
            "{} lost its parent {parent_name}: {ancestors:?}",
            bone.name_ja.as_str()
        );
        compared += 1;
    }
    assert!(compared >= 15, "only {compared} bones compared");
    // The morphs the export carried come back under their names.
    let morph_names: Vec<String> = back
        .morphs
        .iter()
        .map(|m| m.name_ja.as_str().into_owned())
        .collect();
    for morph in &model.morphs {
        let name = morph.name_ja.as_str().into_owned();
        if ["あ", "い", "う", "え", "お", "まばたき"].contains(&name.as_str()) {
            assert!(morph_names.contains(&name), "{name} lost: {morph_names:?}");
        }
    }
    let exported_expressions = export.report.preset_expressions + export.report.custom_expressions;
    assert_eq!(
        back.morphs.len(),
        exported_expressions,
        "one morph per exported expression"
    );
    let errors = errors(back);
    assert!(errors.is_empty(), "{errors:#?}");
}

fn errors(model: &Model) -> Vec<String> {
    pmx_tests::validation_errors(model)
}

/// The GLB's JSON and BIN chunks.
fn split_glb(bytes: &[u8]) -> (serde_json::Value, Vec<u8>) {
    let length = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let json_len = length(12);
    let json = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    let bin_at = 20 + json_len;
    let bin = bytes[bin_at + 8..bin_at + 8 + length(bin_at)].to_vec();
    (json, bin)
}

/// Godette's primitives share their vertex accessors (as UniVRM's avatars do); importing
/// decodes a shared accessor once. Giving every primitive its own copy of each accessor
/// entry (same data) must give exactly the same model.
#[test]
fn primitives_sharing_accessors_import_as_with_their_own_copies() {
    let Some(dir) = corpus_dir("vrm") else {
        return;
    };
    let bytes = std::fs::read(dir.join("godette_vrm0_cc_by.vrm")).unwrap();
    let (mut json, bin) = split_glb(&bytes);
    let mut copies = 0;
    let mut accessors = json["accessors"].as_array().unwrap().clone();
    let mut seen = std::collections::HashSet::new();
    let mut own_copy = |slot: &mut serde_json::Value| {
        let Some(index) = slot.as_u64() else { return };
        if !seen.insert(index) {
            accessors.push(accessors[index as usize].clone());
            *slot = serde_json::json!(accessors.len() - 1);
            copies += 1;
        }
    };
    for mesh in json["meshes"].as_array_mut().unwrap() {
        for primitive in mesh["primitives"].as_array_mut().unwrap() {
            for (_, slot) in primitive["attributes"].as_object_mut().unwrap() {
                own_copy(slot);
            }
            for target in primitive["targets"].as_array_mut().into_iter().flatten() {
                for (_, slot) in target.as_object_mut().unwrap() {
                    own_copy(slot);
                }
            }
        }
    }
    json["accessors"] = serde_json::Value::Array(accessors);
    assert!(copies >= 10, "Godette shares {copies} accessors");
    let shared = read_vrm(&bytes, &LoadOptions::default()).unwrap();
    let separate = read_vrm(&pmx_tests::glb(&json, &bin), &LoadOptions::default()).unwrap();
    pmx_tests::assert_same_model(&shared.model, &separate.model, "godette");
    assert_eq!(shared.model.vertices.len(), separate.model.vertices.len());
    assert!(shared.model.morphs.len() > 10);
}
