//! The PMX reader, strict and recovering, and the validators on what it reads.
//!
//! `cargo +nightly fuzz run pmx fuzz/corpus/pmx` (seeds: `cargo run -p pmx_core --example
//! pmx_fuzz_seeds -- fuzz/corpus/pmx`, and the shared corpus folder as a second corpus).
//!
//! Checked besides "no panic": recovery never fails on a file whose header is valid, a file the
//! strict reader reads is read the same by the recovering reader, and `check` and `repair` run
//! on whatever was recovered.

#![no_main]

use libfuzzer_sys::fuzz_target;
use pmx_core::edit::History;
use pmx_core::formats::{LoadLimits, LoadOptions, pmx};
use pmx_core::validate::{self, CheckOptions, RepairOptions};

/// Whether the bytes start with a header recovery must accept: magic, any version, at least
/// the 8 header bytes PMX defines, a known encoding, at most 4 additional UVs, index sizes 1/2/4.
fn header_is_valid(data: &[u8]) -> bool {
    let Some(header) = data.get(..17) else {
        return false;
    };
    header.starts_with(b"PMX ")
        && header[8] >= 8
        && header[9] <= 1
        && header[10] <= 4
        && header[11..17].iter().all(|size| matches!(size, 1 | 2 | 4))
        && data.len() >= 9 + usize::from(header[8])
}

fuzz_target!(|data: &[u8]| {
    // Small limits: a fuzzed count must not make the run slow, only the reader's checks matter.
    let limits = LoadLimits {
        max_elements: 1 << 16,
        max_text_bytes: 1 << 16,
    };
    let strict = pmx::read(
        data,
        &LoadOptions {
            recover: false,
            limits,
            ..LoadOptions::default()
        },
    );
    let recovered = pmx::read(
        data,
        &LoadOptions {
            recover: true,
            limits,
            ..LoadOptions::default()
        },
    );
    if header_is_valid(data) {
        assert!(
            recovered.is_ok(),
            "recovery failed on a valid header: {:?}",
            recovered.err()
        );
    }
    if let (Ok((strict, _)), Ok((recovered, report))) = (&strict, &recovered) {
        assert!(report.recovered_from.is_none());
        // Debug output compares NaN payloads too (`PartialEq` would call NaN unequal).
        assert_eq!(
            format!("{strict:?}"),
            format!("{recovered:?}"),
            "strict and recovering readers disagree"
        );
    }
    if let Ok((mut model, report)) = recovered {
        let issues = validate::check(&model, Some(&report), &CheckOptions::default());
        std::hint::black_box(&issues);
        // Repair is the expensive part: only on small models (the fuzzer finds many).
        if model.vertices.len() + model.faces.len() < 4096 {
            let mut history = History::new();
            let repaired =
                validate::repair(&mut model, Some(&report), &mut history, &RepairOptions::default());
            assert!(
                !repaired.remaining.iter().any(|i| i.is_error()),
                "repair left errors: {:#?}",
                repaired.remaining
            );
            // The repaired model is written, and the strict reader reads the file.
            let (bytes, _) = pmx::write(&model, &pmx::PmxSaveOptions::default())
                .unwrap_or_else(|error| panic!("repaired model not writable: {error}"));
            let reread = pmx::read(&bytes, &LoadOptions::default());
            assert!(reread.is_ok(), "repaired file not readable: {:?}", reread.err());
        }
    }
});
