//! Every PMX file of the shared corpus reads, writes back byte for byte, and survives JSON.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::pmx::{IndexSizeMode, PmxSaveOptions};
use pmx_core::formats::{json, pmx};
use pmx_tests::{corpus_dir, files_with_extension};

#[test]
fn corpus_pmx_round_trips_byte_identical() {
    let Some(dir) = corpus_dir("pmx") else { return };
    let files = files_with_extension(&dir, "pmx");
    assert!(
        files.len() >= 14,
        "expected the 14 corpus PMX files, found {}",
        files.len()
    );
    for path in files {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).expect("corpus file reads");
        let (model, report) =
            pmx::read(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!report.lost_data(), "{name}: {:?}", report.notes);
        let options = PmxSaveOptions {
            index_sizes: IndexSizeMode::Keep,
            allow_version_violations: true,
            ..Default::default()
        };
        let (written, _) = pmx::write(&model, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            written == bytes,
            "{name}: PMX → PMX differs (first difference at byte {:?})",
            first_difference(&written, &bytes)
        );
        let text = json::write(&model).expect("json writes");
        let (back, _) = json::read(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (rewritten, _) = pmx::write(&back, &options).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            rewritten == bytes,
            "{name}: PMX → JSON → PMX differs at byte {:?}",
            first_difference(&rewritten, &bytes)
        );
    }
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .or((a.len() != b.len()).then_some(a.len().min(b.len())))
}
