//! MQO export and import together: PMX → MQO → PMX on every corpus PMX and on generated models
//! keeps the face count, every face corner's position (to the scale's precision) and UV, and
//! each face's material; MQO → PMX → MQO keeps the polygons of a triangulated file; bones,
//! weights and vertex morphs survive the `.mqx`.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::mqo::{
    self, MqoExportOptions, MqoImportOptions, MqoObjectGrouping, read_mqo, read_mqo_with_mqx,
    write_mqo,
};
use pmx_core::formats::pmx;
use pmx_core::model::{Model, MorphOffsets};
use pmx_core::model::{PmxVersion, TextEncoding};
use pmx_tests::{corpus_dir, files_with_extension};
use std::collections::HashMap;

fn feature_model() -> Model {
    pmx_core::generate::feature_model(PmxVersion::V2_0, TextEncoding::Utf16, 300, 12)
}

/// Each face's corners as (position, UV), with its material's name.
fn corners(model: &Model) -> Vec<(String, [[f32; 5]; 3])> {
    let names: Vec<String> = model
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let name = m.name_ja.as_str().into_owned();
            if name.trim().is_empty() {
                let en = m.name_en.as_str().into_owned();
                if en.trim().is_empty() {
                    format!("material{i}")
                } else {
                    en
                }
            } else {
                name
            }
        })
        .collect();
    let ranges = model.material_face_ranges();
    let mut out = Vec::with_capacity(model.faces.len());
    for (material, range) in ranges.into_iter().enumerate() {
        for face in &model.faces[range] {
            let corner = |i: usize| {
                let v = &model.vertices[face[i].get()];
                [v.position.x, v.position.y, v.position.z, v.uv.x, v.uv.y]
            };
            out.push((names[material].clone(), [corner(0), corner(1), corner(2)]));
        }
    }
    out
}

fn assert_same_geometry(name: &str, original: &Model, back: &Model, tolerance: f32) {
    let mut before = corners(original);
    let mut after = corners(back);
    assert_eq!(before.len(), after.len(), "{name}: face count");
    // The import orders faces by material (file order); the export writes materials in PMX
    // order and faces in face order within each, so the faces come back in the same order;
    // except where vertex morphs move part of a material: that part is an object of its own
    // (so morph targets copy only it), and its faces come back after the rest of the
    // material's. Then the faces are compared in a canonical order.
    let morphed = original
        .morphs
        .iter()
        .any(|m| matches!(&m.offsets, MorphOffsets::Vertex(o) if !o.is_empty()));
    if morphed {
        let key = |(material, corners): &(String, [[f32; 5]; 3])| {
            (
                material.clone(),
                corners.map(|c| c.map(|v| (v * 1000.0).round() as i64)),
            )
        };
        before.sort_by_key(key);
        after.sort_by_key(key);
    }
    for (index, ((m0, c0), (m1, c1))) in before.iter().zip(&after).enumerate() {
        assert_eq!(m0, m1, "{name}: face {index} material");
        for corner in 0..3 {
            for k in 0..5 {
                let tolerance = if k < 3 { tolerance } else { 0.0 };
                assert!(
                    (c0[corner][k] - c1[corner][k]).abs() <= tolerance,
                    "{name}: face {index} corner {corner} component {k}: {} vs {}",
                    c0[corner][k],
                    c1[corner][k]
                );
            }
        }
    }
}

/// The model's faces without the materials that have none (the import makes only the
/// materials faces use).
fn used_materials_only(model: &Model) -> Model {
    let mut model = model.clone();
    model.materials.retain(|m| m.face_index_count >= 3);
    model
}

fn round_trip(model: &Model, options: &MqoExportOptions) -> (Model, mqo::MqoExport) {
    let export = write_mqo(model, options).expect("exports");
    let import = MqoImportOptions {
        units_per_pmx_unit: options.units_per_pmx_unit,
        ..MqoImportOptions::default()
    };
    let imported = match &export.mqx {
        Some((_, mqx)) => read_mqo_with_mqx(&export.mqo, mqx, &import),
        None => read_mqo(&export.mqo, &import),
    }
    .expect("our MQO reads back");
    (imported.model, export)
}

#[test]
fn corpus_pmx_to_mqo_to_pmx_keeps_faces_positions_uvs_and_materials() {
    let Some(dir) = corpus_dir("pmx") else { return };
    let files = files_with_extension(&dir, "pmx");
    assert!(!files.is_empty());
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let Ok((model, _)) = pmx::read(&bytes, &LoadOptions::default()) else {
            continue; // deliberately broken files are the validator's tests
        };
        let (back, export) = round_trip(&model, &MqoExportOptions::default());
        let extent = model
            .vertices
            .iter()
            .map(|v| {
                v.position
                    .to_array()
                    .map(f32::abs)
                    .into_iter()
                    .fold(0.0, f32::max)
            })
            .fold(0.0f32, f32::max);
        // Scaling by 10 and back costs at most a couple of ulps of the largest coordinate.
        let tolerance = extent * 4.0 * f32::EPSILON;
        assert_same_geometry(&name, &used_materials_only(&model), &back, tolerance);
        // Every vertex morph that moves a vertex some face uses comes back, by name, once
        // (a morph split over several objects joins again), and moves as far.
        let used: std::collections::HashSet<usize> =
            model.faces.iter().flatten().map(|v| v.get()).collect();
        let reach = |model: &Model, used: Option<&std::collections::HashSet<usize>>| {
            let mut out: HashMap<String, f32> = HashMap::new();
            for morph in &model.morphs {
                let MorphOffsets::Vertex(offsets) = &morph.offsets else {
                    continue;
                };
                let longest = offsets
                    .iter()
                    .filter(|o| used.is_none_or(|u| u.contains(&o.vertex.get())))
                    .map(|o| {
                        o.offset
                            .to_array()
                            .map(f32::abs)
                            .into_iter()
                            .fold(0.0, f32::max)
                    })
                    .fold(0.0f32, f32::max);
                if longest > 0.0 {
                    out.insert(morph.name_ja.as_str().into_owned(), longest);
                }
            }
            out
        };
        let before = reach(&model, Some(&used));
        let after = reach(&back, None);
        let mut names_before: Vec<&String> = before.keys().collect();
        let mut names_after: Vec<&String> = after.keys().collect();
        names_before.sort();
        names_after.sort();
        assert_eq!(names_before, names_after, "{name}: vertex morphs");
        for (morph, longest) in &before {
            assert!(
                (after[morph] - longest).abs() <= 1e-4 * longest.max(1.0),
                "{name}: morph {morph} moves {} not {longest}",
                after[morph]
            );
        }
        eprintln!(
            "{name}: {} objects, {} MQO vertices (from {}), {} faces, {} morph targets, {} losses",
            export.report.objects,
            export.report.vertices,
            model.vertices.len(),
            export.report.faces,
            export.report.morph_targets,
            export.report.losses.len()
        );
    }
}

#[test]
fn generated_model_round_trips_with_bones_weights_and_morphs() {
    let model = feature_model();
    let (back, export) = round_trip(&model, &MqoExportOptions::default());
    assert!(export.mqx.is_some(), "bones and morphs need the .mqx");
    assert_same_geometry("feature model", &used_materials_only(&model), &back, 1e-4);
    // Bones by name and position.
    let bones: HashMap<String, [f32; 3]> = back
        .bones
        .iter()
        .map(|b| (b.name_ja.as_str().into_owned(), b.position.to_array()))
        .collect();
    for bone in &model.bones {
        let name = bone.name_ja.as_str().into_owned();
        let position = bones
            .get(&name)
            .unwrap_or_else(|| panic!("bone {name} comes back"));
        for (back, original) in position.iter().zip(bone.position.to_array()) {
            assert!((back - original).abs() < 1e-4, "{name}");
        }
    }
}

#[test]
fn sample_model_round_trips() {
    let model = pmx_core::generate::sample_model();
    let (back, export) = round_trip(&model, &MqoExportOptions::default());
    assert_same_geometry("sample", &used_materials_only(&model), &back, 1e-4);
    assert_eq!(
        back.bones.len(),
        model.bones.len(),
        "every bone, no extra root"
    );
    assert!(export.report.vertices <= model.vertices.len());
}

#[test]
fn mqo_to_pmx_to_mqo_keeps_the_polygons_of_a_triangulated_file() {
    let Some(dir) = corpus_dir("mqo") else { return };
    for name in [
        "wanwan_hachune_miku01_ver10.mqo",
        "tamachan_shrinkwrap_cp932_ver11.mqo",
        "binzume_autocsg_ver11_vertexattr.mqo",
        "wanwan_cube_ver10_nomaterial.mqo",
    ] {
        let options = MqoImportOptions::default();
        let first = mqo::load_mqo_path(&dir.join(name), &options).expect("corpus MQO imports");
        let export = MqoExportOptions {
            bones: false,
            morphs: false,
            ..MqoExportOptions::default()
        };
        // The first export triangulates; from then on the file is triangles, and a round trip
        // must give the same polygons back.
        let triangulated = write_mqo(&first.model, &export).expect("exports").mqo;
        let again = read_mqo(&triangulated, &options).expect("reads").model;
        let twice = write_mqo(&again, &export).expect("exports").mqo;
        assert_eq!(
            polygons(&triangulated),
            polygons(&twice),
            "{name}: MQO → PMX → MQO keeps the polygons"
        );
    }
}

/// Every face of an MQO text as (material, corner positions), sorted.
fn polygons(mqo_bytes: &[u8]) -> Vec<(String, Vec<[u32; 3]>)> {
    let (document, _) = mqo::parse_mqo(mqo_bytes, &MqoImportOptions::default()).expect("parses");
    let mut faces = Vec::new();
    for object in &document.objects {
        for face in &object.faces {
            let material = face
                .material
                .and_then(|m| document.materials.get(m as usize))
                .map(|m| m.name.clone())
                .unwrap_or_default();
            let corners = object.corner_vertices[face.corners()]
                .iter()
                .map(|&v| object.vertices[v as usize].map(f32::to_bits))
                .collect();
            faces.push((material, corners));
        }
    }
    faces.sort();
    faces
}

#[test]
fn grouping_per_bone_keeps_every_face() {
    let model = feature_model();
    let options = MqoExportOptions {
        grouping: MqoObjectGrouping::PerBone,
        ..MqoExportOptions::default()
    };
    let (back, export) = round_trip(&model, &options);
    assert_eq!(back.faces.len(), model.faces.len());
    assert!(export.report.objects >= 1);
}
