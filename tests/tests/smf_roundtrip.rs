//! SMF export and import together: PMX → SMF → PMX on every corpus PMX and PMD and on
//! generated models keeps the face count, every face corner's position, normal and UV (bit for
//! bit), each face's material, and the weights up to the two-bone reduction; models with more
//! than 40 bones are cut into meshes whose palettes fit and pose the same after the trip.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use glam::{Quat, Vec3};
use pmx_core::LoadOptions;
use pmx_core::formats::smf::{
    MAX_BONE_COUNT, SmfExportOptions, read_smf, two_bone_weight, write_smf,
};
use pmx_core::formats::{pmd, pmx};
use pmx_core::model::{BoneFlags, BoneIdx, Model, PmxVersion, TextEncoding, Weight};
use pmx_core::pose::{Pose, PoseEvaluator};
use pmx_tests::{corpus_dir, files_with_extension};
use std::collections::BTreeMap;

/// Faces that belong to a material (the export writes only those).
fn material_faces(model: &Model) -> usize {
    let declared: usize = model
        .materials
        .iter()
        .map(|m| m.face_index_count as usize / 3)
        .sum();
    declared.min(model.faces.len())
}

/// The material index of every face, in face order.
fn face_materials(model: &Model) -> Vec<usize> {
    model
        .materials
        .iter()
        .enumerate()
        .flat_map(|(i, m)| std::iter::repeat_n(i, m.face_index_count as usize / 3))
        .take(model.faces.len())
        .collect()
}

/// Position, normal and UV bits of every face corner.
fn corners(model: &Model, faces: usize) -> Vec<[u32; 8]> {
    model.faces[..faces]
        .iter()
        .flat_map(|face| {
            face.map(|v| {
                let vertex = &model.vertices[v.get()];
                let values = [
                    vertex.position.x,
                    vertex.position.y,
                    vertex.position.z,
                    vertex.normal.x,
                    vertex.normal.y,
                    vertex.normal.z,
                    vertex.uv.x,
                    vertex.uv.y,
                ];
                values.map(f32::to_bits)
            })
        })
        .collect()
}

/// A weight as bone → weight, bones named twice summed, zero weights left out.
fn weight_map(weight: &Weight) -> BTreeMap<usize, f32> {
    let mut map = BTreeMap::new();
    for (bone, w) in weight.bone_weights() {
        if let Some(bone) = bone {
            *map.entry(bone.get()).or_insert(0.0) += w;
        }
    }
    map.retain(|_, w| w.abs() > 1e-6);
    map
}

/// What the export makes of a weight: two bones, a vertex without a bone on the first.
fn reduced(weight: &Weight, bones: usize) -> Weight {
    two_bone_weight(weight, bones).map_or(
        Weight::Bdef1 {
            bone: Some(BoneIdx::new(0)),
        },
        |(w, _)| w,
    )
}

fn round_trip(model: &Model, what: &str) -> Model {
    let export = write_smf(model, &SmfExportOptions::default())
        .unwrap_or_else(|e| panic!("{what}: export failed: {e}"));
    assert!(
        export.report.largest_palette <= MAX_BONE_COUNT,
        "{what}: palette of {}",
        export.report.largest_palette
    );
    eprintln!(
        "{what}: {} bones, {} faces -> {} meshes, largest palette {}, {} vertices written ({} in the model), {} weights reduced",
        model.bones.len(),
        model.faces.len(),
        export.report.meshes,
        export.report.largest_palette,
        export.report.vertices,
        model.vertices.len(),
        export.report.weight_reductions.len()
    );
    let (read, _) = read_smf(&export.bytes, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{what}: import failed: {e}"));
    let faces = material_faces(model);
    assert_eq!(read.faces.len(), faces, "{what}: face count");
    let expected = corners(model, faces);
    let got = corners(&read, faces);
    for (i, (a, b)) in expected.iter().zip(&got).enumerate() {
        assert_eq!(a, b, "{what}: corner {i} (position, normal, UV bits)");
    }
    if faces == 0 {
        // No mesh to hold the materials (reported as a loss).
        assert!(read.materials.is_empty());
        return read;
    }
    assert_eq!(
        read.materials.len(),
        model.materials.len(),
        "{what}: material count"
    );
    assert_eq!(
        face_materials(&read),
        face_materials(model)[..faces].to_vec(),
        "{what}: material of each face"
    );
    for (a, b) in read.materials.iter().zip(&model.materials) {
        assert_eq!(a.diffuse, b.diffuse, "{what}: diffuse");
        assert_eq!(a.ambient, b.ambient, "{what}: ambient");
    }
    if !model.bones.is_empty() {
        assert_eq!(read.bones.len(), model.bones.len(), "{what}: bones");
        for (k, (a, b)) in model.faces[..faces].iter().zip(&read.faces).enumerate() {
            for c in 0..3 {
                let original = &model.vertices[a[c].get()].weight;
                let expected = weight_map(&reduced(original, model.bones.len()));
                let got = weight_map(&read.vertices[b[c].get()].weight);
                let same = expected.len() == got.len()
                    && expected
                        .iter()
                        .zip(&got)
                        .all(|((ba, wa), (bb, wb))| ba == bb && (wa - wb).abs() < 1e-6);
                assert!(same, "{what}: face {k} corner {c}: {expected:?} vs {got:?}");
            }
        }
    }
    if let Some(channel) = model.additional_uvs.first() {
        let reread = read.additional_uvs.first();
        for (a, b) in model.faces[..faces].iter().zip(&read.faces) {
            for c in 0..3 {
                let expected = channel[a[c].get()];
                let got = reread.map_or(read.vertices[b[c].get()].uv.to_array(), |r| {
                    [r[b[c].get()].x, r[b[c].get()].y]
                });
                assert_eq!([expected.x, expected.y], got, "{what}: second UV");
            }
        }
    }
    read
}

/// The model as SMF shows it: plain forward kinematics, weights cut to two bones.
fn as_engine_sees_it(model: &Model) -> Model {
    let mut reference = model.clone();
    let kept = BoneFlags::ROTATABLE
        | BoneFlags::MOVABLE
        | BoneFlags::VISIBLE
        | BoneFlags::OPERABLE
        | BoneFlags::TAIL_IS_BONE;
    for bone in &mut reference.bones {
        bone.flags &= kept;
        bone.layer = 0;
    }
    let bones = reference.bones.len();
    for vertex in &mut reference.vertices {
        vertex.weight = reduced(&vertex.weight, bones);
    }
    reference
}

fn posed_corners(model: &Model, faces: usize) -> Vec<Vec3> {
    let mut pose = Pose::new(model);
    for i in 0..model.bones.len() {
        let f = i as f32;
        let rotation = Quat::from_euler(
            glam::EulerRot::YXZ,
            0.3 * (f * 0.7).sin(),
            0.25 * (f * 1.3).cos(),
            0.2 * (f * 0.4).sin(),
        );
        pose.set_bone(BoneIdx::new(i), rotation, Vec3::ZERO);
    }
    let mut evaluator = PoseEvaluator::new(model);
    evaluator.evaluate(model, &pose).unwrap();
    let positions = evaluator.positions();
    model.faces[..faces]
        .iter()
        .flat_map(|f| f.map(|v| positions[v.get()]))
        .collect()
}

/// The re-imported model poses as the original does in the engine.
fn poses_the_same(model: &Model, read: &Model, what: &str) {
    let faces = material_faces(model);
    let expected = posed_corners(&as_engine_sees_it(model), faces);
    let got = posed_corners(read, faces);
    let scale = expected
        .iter()
        .map(|p| p.abs().max_element())
        .fold(1.0f32, f32::max);
    for (i, (a, b)) in expected.iter().zip(&got).enumerate() {
        assert!(
            (*a - *b).abs().max_element() <= 2e-5 * scale,
            "{what}: corner {i} under the test pose: {a} vs {b}"
        );
    }
}

#[test]
fn corpus_pmx_round_trips() {
    let Some(dir) = corpus_dir("pmx") else {
        eprintln!("skipped: no PMX corpus");
        return;
    };
    let files = files_with_extension(&dir, "pmx");
    assert!(!files.is_empty(), "the corpus folder has pmx files");
    for path in files {
        let what = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let (model, _) = pmx::read(&bytes, &LoadOptions::default()).unwrap();
        let read = round_trip(&model, &what);
        if model.bones.len() > MAX_BONE_COUNT && !model.faces.is_empty() {
            poses_the_same(&model, &read, &what);
        }
    }
}

#[test]
fn corpus_pmd_round_trips() {
    let Some(dir) = corpus_dir("pmd") else {
        eprintln!("skipped: no PMD corpus");
        return;
    };
    let files = files_with_extension(&dir, "pmd");
    assert!(!files.is_empty(), "the corpus folder has pmd files");
    for path in files {
        let what = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let (model, _) = pmd::read(&bytes, &LoadOptions::default()).unwrap();
        let read = round_trip(&model, &what);
        if model.bones.len() > MAX_BONE_COUNT && !model.faces.is_empty() {
            poses_the_same(&model, &read, &what);
        }
    }
}

#[test]
fn gene_is_cut_into_palettes_of_at_most_40_bones_and_poses_the_same() {
    let Some(dir) = corpus_dir("pmx") else {
        eprintln!("skipped: no PMX corpus");
        return;
    };
    let path = dir.join("pmxeditor_gene_cc_by.pmx");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("skipped: {} is absent", path.display());
        return;
    };
    let (model, _) = pmx::read(&bytes, &LoadOptions::default()).unwrap();
    assert_eq!(model.bones.len(), 224);
    let export = write_smf(&model, &SmfExportOptions::default()).unwrap();
    assert!(export.report.meshes > 1);
    assert!(export.report.largest_palette <= MAX_BONE_COUNT);
    let read = round_trip(&model, "gene");
    poses_the_same(&model, &read, "gene");
}

#[test]
fn generated_models_round_trip() {
    let sample = pmx_core::generate::sample_model();
    round_trip(&sample, "sample");
    for (version, vertices, others) in [
        (PmxVersion::V2_0, 300, 12),
        (PmxVersion::V2_0, 2000, 150),
        (PmxVersion::V2_1, 500, 64),
    ] {
        let model =
            pmx_core::generate::feature_model(version, TextEncoding::Utf16, vertices, others);
        let what = format!("feature {version:?} {vertices} {others}");
        let read = round_trip(&model, &what);
        if model.bones.len() > MAX_BONE_COUNT {
            poses_the_same(&model, &read, &what);
        }
    }
}

#[test]
fn a_model_without_faces_reports_its_materials() {
    let mut model = pmx_core::generate::sample_model();
    model.faces.clear();
    for material in &mut model.materials {
        material.face_index_count = 0;
    }
    let export = write_smf(&model, &SmfExportOptions::default()).unwrap();
    assert_eq!(export.report.meshes, 0);
    assert!(export.report.losses.iter().any(|l| matches!(
        l,
        pmx_core::formats::smf::SmfLoss::MaterialsWithoutFaces { .. }
    )));
    let (read, _) = read_smf(&export.bytes, &LoadOptions::default()).unwrap();
    assert_eq!(read.bones.len(), model.bones.len());
}
