//! Broken files made here (truncated at many offsets, bad index sizes, references past the
//! end, NaN) open in recovery mode, and `repair` makes of each a file the strict reader reads
//! and `check` finds no error in.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::edit::History;
use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::formats::{LoadOptions, LoadReport};
use pmx_core::generate::{feature_model, sample_model};
use pmx_core::model::*;
use pmx_core::validate::{self, CheckOptions, Issue, RepairOptions};

const RECOVER: LoadOptions = LoadOptions {
    recover: true,
    limits: pmx_core::formats::LoadLimits {
        max_elements: i32::MAX as usize,
        max_text_bytes: 64 * 1024 * 1024,
    },
    mqo: None,
    vrm: None,
};

fn write(model: &Model) -> Vec<u8> {
    pmx::write(model, &PmxSaveOptions::default()).unwrap().0
}

fn sources() -> Vec<(&'static str, Model)> {
    vec![
        ("sample", sample_model()),
        (
            "features 2.1 utf16",
            feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 20, 12),
        ),
        (
            "features 2.0 utf8, 2-byte indices",
            feature_model(PmxVersion::V2_0, TextEncoding::Utf8, 300, 140),
        ),
    ]
}

fn errors(issues: &[Issue]) -> Vec<String> {
    issues
        .iter()
        .filter(|i| i.is_error())
        .map(ToString::to_string)
        .collect()
}

/// Repairs what was read, writes it, reads it back strictly and checks it: no error anywhere.
/// Returns the repaired model.
fn repair_to_clean_file(what: &str, mut model: Model, report: &LoadReport) -> Model {
    let mut history = History::new();
    let repaired = validate::repair(
        &mut model,
        Some(report),
        &mut history,
        &RepairOptions::default(),
    );
    assert!(repaired.failed.is_empty(), "{what}: {:#?}", repaired.failed);
    assert!(
        errors(&repaired.remaining).is_empty(),
        "{what}: {:#?}",
        errors(&repaired.remaining)
    );
    let bytes = write(&model);
    let (read, read_report) = pmx::read(&bytes, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{what}: the repaired file does not read strictly: {e}"));
    let issues = validate::check(&read, Some(&read_report), &CheckOptions::default());
    assert!(errors(&issues).is_empty(), "{what}: {:#?}", errors(&issues));
    read
}

fn element_count(model: &Model) -> usize {
    ElementKind::ALL.iter().map(|&k| model.count(k)).sum()
}

#[test]
fn truncated_files_recover_and_repair() {
    for (name, model) in sources() {
        let bytes = write(&model);
        // Every offset in the header and model info, then about 120 spread over the rest.
        let step = (bytes.len() / 120).max(1);
        let offsets: Vec<usize> = (0..bytes.len().min(160))
            .chain((160..bytes.len()).step_by(step))
            .collect();
        let mut previous = 0;
        for cut in offsets {
            let what = format!("{name} cut at {cut} of {}", bytes.len());
            let read = pmx::read(&bytes[..cut], &RECOVER);
            // The header (magic, version, 8 bytes) is 17 bytes: past it, recovery never fails.
            let Ok((recovered, report)) = read else {
                assert!(cut < 17, "{what}: {:?}", read.err());
                continue;
            };
            assert!(report.lost_data(), "{what}: the cut is reported");
            let issues = validate::check(&recovered, Some(&report), &CheckOptions::default());
            assert!(
                issues
                    .iter()
                    .any(|i| i.code == "E-FILE-DAMAGED" || i.code == "E-FILE-LOST"),
                "{what}: the damage is an error"
            );
            // Cutting later never recovers less.
            let count = element_count(&recovered);
            assert!(count >= previous, "{what}: {count} elements < {previous}");
            previous = count;
            repair_to_clean_file(&what, recovered, &report);
        }
        let (whole, _) = pmx::read(&bytes, &RECOVER).unwrap();
        assert_eq!(element_count(&whole), element_count(&model), "{name}");
    }
}

#[test]
fn misparsed_index_sizes_recover_and_repair() {
    // The header says other index sizes than the data has: everything after reads as garbage.
    for (name, model) in sources() {
        let bytes = write(&model);
        for field in 11..17 {
            for size in [1u8, 2, 4] {
                if bytes[field] == size {
                    continue;
                }
                let mut broken = bytes.clone();
                broken[field] = size;
                let what = format!("{name}: header byte {field} = {size}");
                let (recovered, report) = pmx::read(&broken, &RECOVER)
                    .unwrap_or_else(|e| panic!("{what}: valid header, recovery failed: {e}"));
                repair_to_clean_file(&what, recovered, &report);
            }
        }
    }
}

/// A file whose texture index size is 1 byte while it has 130 textures (1 byte addresses 127):
/// structurally readable, but index 128 and above cannot be written.
fn file_with_too_small_texture_index() -> Vec<u8> {
    let mut model = sample_model();
    model.header.encoding = TextEncoding::Utf8;
    model.textures = (0..127)
        .map(|i| Text::from(format!("t{i:03}.png")))
        .collect();
    let mut bytes = write(&model);
    assert_eq!(bytes[12], 1, "1-byte texture indices");
    let entry = |name: &str| {
        let mut e = (name.len() as i32).to_le_bytes().to_vec();
        e.extend_from_slice(name.as_bytes());
        e
    };
    let find = |bytes: &[u8], needle: &[u8]| {
        bytes
            .windows(needle.len())
            .position(|w| w == needle)
            .unwrap()
    };
    let first = find(&bytes, &entry("t000.png"));
    bytes[first - 4..first].copy_from_slice(&130i32.to_le_bytes());
    let last = find(&bytes, &entry("t126.png")) + entry("t126.png").len();
    let extra: Vec<u8> = ["t127.png", "t128.png", "t129.png"]
        .iter()
        .flat_map(|n| entry(n))
        .collect();
    bytes.splice(last..last, extra);
    bytes
}

#[test]
fn too_small_index_size_is_found_and_repaired() {
    let bytes = file_with_too_small_texture_index();
    let (model, report) = pmx::read(&bytes, &LoadOptions::default()).unwrap();
    assert_eq!(model.textures.len(), 130);
    let issues = validate::check(&model, Some(&report), &CheckOptions::default());
    let codes: Vec<(&str, String)> = issues
        .iter()
        .filter(|i| i.is_error())
        .map(|i| (i.code, i.path.to_string()))
        .collect();
    assert_eq!(
        codes,
        vec![("E-INDEX-SIZE", "header.index_sizes.texture".to_owned())]
    );
    let repaired = repair_to_clean_file("too small texture index", model, &report);
    assert_eq!(repaired.header.index_sizes.map(|s| s.texture), Some(2));
    assert_eq!(repaired.textures.len(), 130);
}

#[test]
fn references_past_the_end_are_found_and_repaired() {
    let mut model = sample_model();
    let bones = model.bones.len();
    assert!(bones < 100 && model.vertices.len() > 255);
    let past = |n: usize| Some(BoneIdx::new(n));
    model.bones[3].parent = past(100);
    model.bones[2].ik.target = past(101);
    model.vertices[5].weight = Weight::Bdef1 { bone: past(120) };
    let num_vertices = model.vertices.len();
    model.faces[7][1] = VertexIdx::new(num_vertices + 10);
    model.materials[0].texture = Some(TextureIdx::new(90));
    if let Some(frame) = model.display_frames.get_mut(1) {
        frame
            .items
            .push(DisplayItem::Morph(Some(MorphIdx::new(110))));
    }
    model.rigid_bodies[0].bone = past(105);
    model.joints[0].body_b = Some(RigidBodyIdx::new(99));
    let bytes = write(&model);
    let (read, report) = pmx::read(&bytes, &RECOVER).unwrap();
    assert!(report.recovered_from.is_none());
    let issues = validate::check(&read, Some(&report), &CheckOptions::default());
    let paths: Vec<String> = issues
        .iter()
        .filter(|i| i.code == "E-REF-RANGE")
        .map(|i| i.path.to_string())
        .collect();
    for expected in [
        "bones[3].parent",
        "vertices[5].weight.bone",
        "faces[7][1]",
        "materials[0].texture",
        "rigid_bodies[0].bone",
        "joints[0].body_b",
    ] {
        assert!(paths.iter().any(|p| p == expected), "{expected}: {paths:?}");
    }
    let repaired = repair_to_clean_file("references past the end", read, &report);
    assert_eq!(repaired.faces.len(), model.faces.len() - 1);
    assert_eq!(repaired.bones[3].parent, None);
}

#[test]
fn nan_is_found_and_repaired() {
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 20, 12);
    model.vertices[0].position.x = f32::NAN;
    model.vertices[1].normal = Vec3::new(f32::NAN, 0.0, 0.0);
    model.bones[1].position.y = f32::INFINITY;
    model.materials[0].diffuse.w = f32::NAN;
    model.rigid_bodies[0].mass = f32::NAN;
    model.joints[0].rotation.z = f32::NEG_INFINITY;
    if let Some(soft) = model.soft_bodies.first_mut() {
        soft.margin = f32::NAN;
    }
    let bytes = write(&model);
    let (read, report) = pmx::read(&bytes, &RECOVER).unwrap();
    let issues = validate::check(&read, Some(&report), &CheckOptions::default());
    let nan: Vec<String> = issues
        .iter()
        .filter(|i| i.code == "E-VALUE-NAN")
        .map(|i| i.path.to_string())
        .collect();
    assert_eq!(
        nan,
        vec![
            "vertices[0].position",
            "vertices[1].normal",
            "materials[0].diffuse",
            "bones[1].position",
            "rigid_bodies[0].mass",
            "joints[0].rotation",
            "soft_bodies[0].margin",
        ]
    );
    let repaired = repair_to_clean_file("NaN", read, &report);
    assert_eq!(repaired.vertices[0].position.x, 0.0);
    // The NaN normal is recomputed from the faces around the vertex: unit length.
    let n = repaired.vertices[1].normal;
    assert!(((n.x * n.x + n.y * n.y + n.z * n.z).sqrt() - 1.0).abs() < 1e-4);
}

#[test]
fn a_cut_inside_the_vertices_keeps_every_complete_vertex() {
    let model = feature_model(PmxVersion::V2_0, TextEncoding::Utf16, 40, 8);
    let bytes = write(&model);
    let whole = pmx::read(&bytes, &RECOVER).unwrap().0;
    // Find where the 11th vertex ends by reading growing prefixes.
    let mut seen = Vec::new();
    for cut in (17..bytes.len()).step_by(7) {
        let (m, report) = pmx::read(&bytes[..cut], &RECOVER).unwrap();
        if m.vertices.len() < whole.vertices.len() && !m.vertices.is_empty() {
            // Every vertex kept is exactly the original one.
            assert_eq!(m.vertices[..], whole.vertices[..m.vertices.len()]);
            let stop = report.recovered_from.as_ref().unwrap().location().unwrap();
            assert_eq!(stop.section, "vertices");
            assert_eq!(stop.element, Some(m.vertices.len()));
            seen.push(m.vertices.len());
        }
    }
    assert!(seen.len() > 10, "{seen:?}");
}
