//! The VRM / GLB reader on arbitrary bytes: it never panics, in strict or recovery mode; a
//! model it reads writes as PMX and reads back with the same element counts.
//!
//! Run from `fuzz/` (nightly): seed `corpus/vrm/` (git-ignored) with small VRM files, e.g. the
//! shared corpus's `s06_mtoon1_vrm1.vrm` and `s06_minimal_vrm0.vrm`, then
//! `cargo +nightly fuzz run vrm corpus/vrm -- -max_total_time=300 -max_len=32768`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use pmx_core::LoadOptions;
use pmx_core::formats::{pmx, vrm};

fuzz_target!(|data: &[u8]| {
    let recovering = LoadOptions {
        recover: true,
        ..LoadOptions::default()
    };
    let _ = vrm::read_vrm(data, &recovering);
    let Ok(imported) = vrm::read_vrm(data, &LoadOptions::default()) else {
        return;
    };
    let model = &imported.model;
    if let Ok((bytes, _)) = pmx::write(model, &pmx::PmxSaveOptions::default()) {
        let (back, _) = pmx::read(&bytes, &LoadOptions::default()).expect("a written model reads");
        assert_eq!(back.vertices.len(), model.vertices.len());
        assert_eq!(back.bones.len(), model.bones.len());
        assert_eq!(back.morphs.len(), model.morphs.len());
    }
});
