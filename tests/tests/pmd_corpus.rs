//! Every PMD file of the shared corpus: reads with counts matching MANIFEST.md, PMD → PMD (raw,
//! and through the document model) gives the same bytes, and PMD → PMX file → PMD keeps
//! vertices, faces, materials, bones, IK chains, skins, display lists, English names and
//! physics.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::pmd::{self, PmdFile, PmdRigidBody};
use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_tests::{corpus_dir, files_with_extension};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn corpus_files() -> Option<Vec<PathBuf>> {
    let dir = corpus_dir("pmd")?;
    let files = files_with_extension(&dir, "pmd");
    assert!(
        files.len() >= 5,
        "expected the 5 corpus PMD files, found {}",
        files.len()
    );
    Some(files)
}

fn name_of(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn read_raw(bytes: &[u8], name: &str) -> PmdFile {
    let (file, report) =
        pmd::read_file(bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(report.notes.is_empty(), "{name}: {:?}", report.notes);
    file
}

/// The counts MANIFEST.md gives for each PMD file ("28646 vertices; 47106 tris; ...").
fn manifest_counts(dir: &Path) -> HashMap<String, HashMap<String, String>> {
    let manifest = std::fs::read_to_string(dir.join("../MANIFEST.md")).expect("MANIFEST.md reads");
    let mut rows = HashMap::new();
    for line in manifest.lines() {
        let Some(rest) = line.strip_prefix("| `pmd/") else {
            continue;
        };
        let file = rest.split('`').next().unwrap().to_owned();
        // Columns: file | repo | path | commit | size | sha256 | stats | license.
        let stats = line.split(" | ").nth(6).expect("a stats column");
        let mut counts = HashMap::new();
        for part in stats.split(['.', ';']) {
            let part = part.trim();
            if let Some(value) = part.strip_prefix("English block: ") {
                counts.insert("english".to_owned(), value.to_owned());
            } else if let Some((number, what)) = part.split_once(' ')
                && number.bytes().all(|b| b.is_ascii_digit())
            {
                counts.insert(what.to_owned(), number.to_owned());
            }
        }
        rows.insert(file, counts);
    }
    rows
}

#[test]
fn corpus_pmd_reads_and_counts_match_the_manifest() {
    let Some(files) = corpus_files() else { return };
    let dir = files[0].parent().unwrap().to_owned();
    let manifest = manifest_counts(&dir);
    for path in files {
        let name = name_of(&path);
        let bytes = std::fs::read(&path).unwrap();
        let file = read_raw(&bytes, &name);
        let expected = manifest
            .get(&name)
            .unwrap_or_else(|| panic!("{name} is not in MANIFEST.md"));
        let count = |key: &str| -> usize {
            expected
                .get(key)
                .unwrap_or_else(|| panic!("{name}: no '{key}' in MANIFEST.md"))
                .parse()
                .unwrap()
        };
        assert_eq!(file.vertices.len(), count("vertices"), "{name}");
        assert_eq!(file.face_indices.len() / 3, count("tris"), "{name}");
        assert_eq!(file.materials.len(), count("materials"), "{name}");
        assert_eq!(file.bones.len(), count("bones"), "{name}");
        assert_eq!(file.iks.len(), count("IK chains"), "{name}");
        assert_eq!(file.skins.len(), count("skins"), "{name}");
        assert_eq!(
            file.english.is_some(),
            expected.get("english").map(String::as_str) == Some("yes"),
            "{name}"
        );
        assert_eq!(
            file.rigid_bodies.as_ref().map_or(0, Vec::len),
            count("rigid bodies"),
            "{name}"
        );
        assert_eq!(
            file.joints.as_ref().map_or(0, Vec::len),
            count("joints"),
            "{name}"
        );

        // The model has the same counts (the base skin is not a morph).
        let (model, report) = pmd::read(&bytes, &LoadOptions::default()).unwrap();
        assert!(!report.lost_data(), "{name}: {:?}", report.notes);
        assert_eq!(model.vertices.len(), count("vertices"), "{name}");
        assert_eq!(model.faces.len(), count("tris"), "{name}");
        assert_eq!(model.bones.len(), count("bones"), "{name}");
        assert_eq!(
            model.morphs.len(),
            count("skins").saturating_sub(1),
            "{name}"
        );
        assert_eq!(
            model.bones.iter().filter(|b| b.is_ik()).count(),
            count("IK chains"),
            "{name}"
        );
        assert_eq!(model.rigid_bodies.len(), count("rigid bodies"), "{name}");
        assert_eq!(model.joints.len(), count("joints"), "{name}");
    }
}

#[test]
fn corpus_pmd_to_pmd_keeps_every_value() {
    let Some(files) = corpus_files() else { return };
    for path in files {
        let name = name_of(&path);
        let bytes = std::fs::read(&path).unwrap();
        let file = read_raw(&bytes, &name);
        let written = pmd::write_file(&file).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(written == bytes, "{name}: PMD → PMD gives the same bytes");
        let again = read_raw(&written, &name);
        assert_same_sections(&name, &again, &file, Physics::Exact);
        assert_eq!(again, file, "{name}");
    }
}

#[test]
fn corpus_pmd_to_model_to_pmd_gives_the_same_bytes() {
    let Some(files) = corpus_files() else { return };
    for path in files {
        let name = name_of(&path);
        let bytes = std::fs::read(&path).unwrap();
        // What `convert a.pmd b.pmd` and the editor's open and save do.
        let (model, _) = pmd::read(&bytes, &LoadOptions::default()).unwrap();
        let (written, report) = pmd::write(&model).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(report.is_empty(), "{name}: {:?}", report.losses);
        assert!(
            written == bytes,
            "{name}: PMD → model → PMD gives the same bytes"
        );
    }
}

#[test]
fn corpus_pmd_to_pmx_file_to_pmd_keeps_the_model() {
    let Some(files) = corpus_files() else { return };
    for path in files {
        let name = name_of(&path);
        let bytes = std::fs::read(&path).unwrap();
        let original = read_raw(&bytes, &name);
        let (model, _) = pmd::read(&bytes, &LoadOptions::default()).unwrap();
        // Nothing a PMD file holds is lost on the way back.
        assert_eq!(pmd::pmd_losses(&model), Vec::new(), "{name}");
        let (pmx_bytes, _) = pmx::write(&model, &PmxSaveOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let (from_pmx, _) = pmx::read(&pmx_bytes, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let (pmd_bytes, report) = pmd::write(&from_pmx).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(report.is_empty(), "{name}: {:?}", report.losses);
        let back = read_raw(&pmd_bytes, &name);
        // PMX has no place for the padding after a text (PMD → PMD keeps it, above).
        assert_same_sections(
            &name,
            &without_padding(back),
            &without_padding(original),
            Physics::Converted,
        );
    }
}

fn without_padding(mut file: PmdFile) -> PmdFile {
    let slots: Vec<_> = file.text_fields().map(|(slot, _, _)| slot).collect();
    for slot in slots {
        if let Some(text) = file.text_field_mut(slot) {
            text.padding.clear();
        }
    }
    file
}

/// Rigid body positions go through `bone + offset` and back `- bone` in f32, which need not
/// give the offset back to the last bit (exact for every corpus file today).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Physics {
    Exact,
    Converted,
}

fn assert_same_sections(name: &str, actual: &PmdFile, expected: &PmdFile, physics: Physics) {
    assert_eq!(actual.name, expected.name, "{name}: model name");
    assert_eq!(actual.comment, expected.comment, "{name}: comment");
    assert_eq!(actual.vertices, expected.vertices, "{name}: vertices");
    assert_eq!(actual.face_indices, expected.face_indices, "{name}: faces");
    assert_eq!(actual.materials, expected.materials, "{name}: materials");
    assert_eq!(actual.bones, expected.bones, "{name}: bones");
    // The IK list's order may change (the writer lists chains in bone order).
    let sorted = |file: &PmdFile| {
        let mut iks = file.iks.clone();
        iks.sort_by_key(|ik| ik.bone);
        iks
    };
    assert_eq!(sorted(actual), sorted(expected), "{name}: IK chains");
    assert_eq!(actual.skins, expected.skins, "{name}: skins");
    assert_eq!(
        actual.skin_display, expected.skin_display,
        "{name}: skin display"
    );
    assert_eq!(
        actual.bone_frame_names, expected.bone_frame_names,
        "{name}: bone frame names"
    );
    assert_eq!(
        actual.bone_frame_items, expected.bone_frame_items,
        "{name}: bone frame items"
    );
    assert_eq!(actual.english, expected.english, "{name}: English names");
    assert_eq!(actual.toon_names, expected.toon_names, "{name}: toon list");
    assert_eq!(actual.joints, expected.joints, "{name}: joints");
    match physics {
        Physics::Exact => assert_eq!(
            actual.rigid_bodies, expected.rigid_bodies,
            "{name}: rigid bodies"
        ),
        Physics::Converted => {
            let (a, e) = (
                actual.rigid_bodies.as_deref().unwrap_or_default(),
                expected.rigid_bodies.as_deref().unwrap_or_default(),
            );
            assert_eq!(a.len(), e.len(), "{name}: rigid bodies");
            for (i, (a, e)) in a.iter().zip(e).enumerate() {
                assert_rigid_body_close(&format!("{name}: rigid_bodies[{i}]"), a, e);
            }
        }
    }
    assert_eq!(actual.trailing, expected.trailing, "{name}: trailing bytes");
}

fn assert_rigid_body_close(what: &str, a: &PmdRigidBody, e: &PmdRigidBody) {
    let with_expected_position = PmdRigidBody {
        position: e.position,
        ..a.clone()
    };
    assert_eq!(&with_expected_position, e, "{what}");
    for (got, want) in a.position.to_array().iter().zip(e.position.to_array()) {
        // One rounding of the sum with the bone position (|bone| < 1000 in any MMD model).
        let tolerance = f32::EPSILON * 1000.0;
        assert!(
            (got - want).abs() <= tolerance,
            "{what}: position {:?} != {:?}",
            a.position,
            e.position
        );
    }
}
