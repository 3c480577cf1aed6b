//! `repair --recover` on files whose vertex section stores its own bone index size (as real
//! writers' files do), whole and cut inside the faces: every recovered vertex stays (the
//! unused-vertex fix is not a fix of the damage), the report says what was recovered and what
//! was lost, and the exit status is 1 while part of the input was lost.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::pmx::{self, IndexSizeMode, PmxSaveOptions};
use pmx_core::generate::feature_model;
use pmx_core::model::{IndexSizes, Model, PmxVersion, TextEncoding};
use std::path::Path;
use std::process::{Command, Output};

fn pmx_studio(args: &[&Path]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_pmx-studio"));
    command.arg("repair");
    command.args(args);
    command.arg("--recover");
    command.output().expect("pmx-studio runs")
}

fn written_with(model: &Model, sizes: IndexSizes) -> Vec<u8> {
    let mut model = model.clone();
    model.header.index_sizes = Some(sizes);
    let options = PmxSaveOptions {
        index_sizes: IndexSizeMode::Keep,
        ..PmxSaveOptions::default()
    };
    pmx::write(&model, &options).unwrap().0
}

/// Where the face section of `bytes` starts: its index count, then the first triangle.
fn faces_start(bytes: &[u8], model: &Model, vertex_size: usize) -> usize {
    let mut pattern = ((3 * model.faces.len()) as i32).to_le_bytes().to_vec();
    for corner in model.faces[0] {
        pattern.extend_from_slice(&corner.get().to_le_bytes()[..vertex_size]);
    }
    let found: Vec<usize> = bytes
        .windows(pattern.len())
        .enumerate()
        .filter(|(_, w)| *w == pattern.as_slice())
        .map(|(at, _)| at)
        .collect();
    assert_eq!(found.len(), 1, "the face section is found once");
    found[0]
}

/// The model, and its file whose header (and every section but the vertices) says 1-byte
/// bone indices while the vertices store 2-byte ones; and where the faces start in it.
fn spliced() -> (Model, Vec<u8>, usize) {
    let model = feature_model(PmxVersion::V2_0, TextEncoding::Utf8, 24, 12);
    let narrow = IndexSizes::minimal_for(&model);
    assert_eq!((narrow.bone, narrow.vertex), (1, 1));
    let mut wide = narrow;
    wide.bone = 2;
    let narrow_bytes = written_with(&model, narrow);
    let wide_bytes = written_with(&model, wide);
    let wide_faces = faces_start(&wide_bytes, &model, 1);
    let narrow_faces = faces_start(&narrow_bytes, &model, 1);
    let mut file = wide_bytes[..wide_faces].to_vec();
    file.extend_from_slice(&narrow_bytes[narrow_faces..]);
    // The header (byte 14: the bone index size) says 1, as every section but the vertices.
    assert_eq!(file[14], 2);
    file[14] = 1;
    (model, file, wide_faces)
}

#[test]
fn a_whole_file_with_its_own_vertex_bone_size_is_repaired_whole() {
    let (model, file, _) = spliced();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.pmx");
    let output = dir.path().join("out.pmx");
    std::fs::write(&input, &file).unwrap();
    let result = pmx_studio(&[&input, &output]);
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert_eq!(result.status.code(), Some(0), "{stdout}");
    let (repaired, report) = pmx::read(&std::fs::read(&output).unwrap(), &LoadOptions::default())
        .expect("the output reads strictly");
    assert!(report.notes.is_empty(), "{:?}", report.notes);
    assert_eq!(repaired.vertices, model.vertices);
    assert_eq!(repaired.faces, model.faces);
    assert_eq!(repaired.materials, model.materials);
    assert_eq!(repaired.bones.len(), model.bones.len());
}

#[test]
fn a_file_cut_in_the_faces_keeps_every_recovered_vertex() {
    let (model, file, faces) = spliced();
    // Cut after the count and five triangles: 19 of the 24 vertices lose every face.
    let cut = &file[..faces + 4 + 5 * 3 + 1];
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("cut.pmx");
    let output = dir.path().join("out.pmx");
    std::fs::write(&input, cut).unwrap();
    let result = pmx_studio(&[&input, &output]);
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert_eq!(
        result.status.code(),
        Some(1),
        "part of the input was lost: {stdout}"
    );
    assert!(
        stdout.contains("recovered: 24 vertices, 5 faces"),
        "{stdout}"
    );
    assert!(stdout.contains("lost    "), "{stdout}");
    assert!(
        !stdout.contains("unused vertex") || stdout.contains("kept    "),
        "the unused-vertex fix is held: {stdout}"
    );
    let (repaired, _) = pmx::read(&std::fs::read(&output).unwrap(), &LoadOptions::default())
        .expect("the output reads strictly");
    assert_eq!(repaired.vertices.len(), model.vertices.len());
    for (got, want) in repaired.vertices.iter().zip(&model.vertices) {
        assert_eq!(got.position, want.position);
        assert_eq!(got.uv, want.uv);
    }
    assert_eq!(repaired.faces[..], model.faces[..5]);
}
