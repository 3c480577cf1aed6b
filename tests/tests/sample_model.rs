//! `resources/sample/sample.pmx` (what the README opens) is exactly what the generator makes.
//! Run with `PMX_STUDIO_BLESS=1` to write it again after changing the generator.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::generate::sample_model;
use std::path::PathBuf;

#[test]
fn shipped_sample_matches_the_generator() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../resources/sample/sample.pmx");
    let (bytes, _) =
        pmx::write(&sample_model(), &PmxSaveOptions::default()).expect("sample writes");
    if std::env::var_os("PMX_STUDIO_BLESS").is_some() {
        std::fs::write(&path, &bytes).expect("sample is written");
    }
    let shipped = std::fs::read(&path).expect("resources/sample/sample.pmx exists");
    assert!(
        shipped == bytes,
        "resources/sample/sample.pmx is stale: run PMX_STUDIO_BLESS=1 cargo test -p pmx_tests --test sample_model"
    );
    let (model, report) = pmx::read(&shipped, &LoadOptions::default()).expect("sample reads");
    assert!(report.notes.is_empty(), "{:?}", report.notes);
    assert_eq!(model.info.name_ja.as_str(), "サンプル人形");
    assert_eq!(
        (model.bones.len(), model.materials.len(), model.morphs.len()),
        (21, 3, 5)
    );
    assert_eq!(
        (
            model.display_frames.len(),
            model.rigid_bodies.len(),
            model.joints.len()
        ),
        (7, 2, 1)
    );
    let faces_by_material: u32 = model.materials.iter().map(|m| m.face_index_count).sum();
    assert_eq!(faces_by_material as usize, model.faces.len() * 3);
    assert!(model.bones.iter().filter(|b| b.is_ik()).count() == 2);
}
