//! The SMF reader on arbitrary bytes: it never panics, every error says which chunk, field and
//! byte it is about, and every model it makes passes the validator without errors and exports
//! to SMF again, which reads back with the same faces.
//!
//! Run from `fuzz/` (nightly): seed `corpus/smf/` (git-ignored) with small SMF files, e.g. the
//! sample model exported with `pmx_core::formats::smf::write_smf`, then
//! `cargo +nightly fuzz run smf corpus/smf -- -max_total_time=300 -max_len=8192`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use pmx_core::LoadOptions;
use pmx_core::formats::LoadLimits;
use pmx_core::formats::smf::{self, SmfExportOptions};
use pmx_core::validate::{self, CheckOptions};

fuzz_target!(|data: &[u8]| {
    // Small limits: a fuzzed count must not make the run slow, only the reader's checks matter.
    let options = LoadOptions {
        limits: LoadLimits {
            max_elements: 1 << 16,
            max_text_bytes: 1 << 16,
        },
        ..LoadOptions::default()
    };
    let (model, _) = match smf::read_smf(data, &options) {
        Ok(read) => read,
        Err(error) => {
            assert!(error.location().is_some(), "error without a location: {error}");
            return;
        }
    };
    let errors: Vec<_> = validate::check(&model, None, &CheckOptions::default())
        .into_iter()
        .filter(|issue| issue.is_error())
        .collect();
    assert!(errors.is_empty(), "imported model has errors: {errors:#?}");
    let export = smf::write_smf(&model, &SmfExportOptions::default())
        .unwrap_or_else(|error| panic!("imported model not exportable: {error}"));
    let (again, _) = smf::read_smf(&export.bytes, &LoadOptions::default())
        .unwrap_or_else(|error| panic!("exported file not readable: {error}"));
    assert_eq!(again.faces.len(), model.faces.len());
});
