//! The MQO importer on arbitrary bytes: it never panics, every error of a text file says on
//! which line it is, and every model it makes passes the validator without errors and writes
//! as PMX that reads back.
//!
//! Run from `fuzz/` (nightly): seed `corpus/mqo/` (git-ignored) with small MQO files, e.g. the
//! shared corpus's `wanwan_cube_ver10_nomaterial.mqo` and `anatawa12_simple_bone/test.mqo`,
//! then `cargo +nightly fuzz run mqo corpus/mqo -- -max_total_time=300 -max_len=8192`.
//!
//! The input is split at its first NUL byte when it has one: the part after it is given as the
//! `.mqx` side file, so the MQX reader and the bone weights are fuzzed too.

#![no_main]

use libfuzzer_sys::fuzz_target;
use pmx_core::LoadOptions;
use pmx_core::formats::LoadLimits;
use pmx_core::formats::mqo::{self, MqoImportOptions};
use pmx_core::formats::pmx;
use pmx_core::model::PmxVersion;
use pmx_core::validate::{self, CheckOptions};

fuzz_target!(|data: &[u8]| {
    // Small limits: a fuzzed count must not make the run slow, only the reader's checks matter.
    let options = MqoImportOptions {
        // PMX 2.1 keeps vertex colours, the path with the most to check.
        version: PmxVersion::V2_1,
        limits: LoadLimits {
            max_elements: 1 << 16,
            max_text_bytes: 1 << 16,
        },
        ..MqoImportOptions::default()
    };
    let result = match data.iter().position(|&b| b == 0) {
        Some(split) => mqo::read_mqo_with_mqx(&data[..split], &data[split + 1..], &options),
        None => mqo::read_mqo(data, &options),
    };
    let imported = match result {
        Ok(imported) => imported,
        Err(error) => {
            // Only a .mqoz (zip) error has no line: everything else is about the text.
            if !mqo::is_archive(data) {
                assert!(error.line().is_some(), "error without a line: {error}");
            }
            return;
        }
    };
    let model = &imported.model;
    let errors: Vec<_> = validate::check(model, None, &CheckOptions::default())
        .into_iter()
        .filter(|issue| issue.is_error())
        .collect();
    assert!(errors.is_empty(), "imported model has errors: {errors:#?}");
    if model.vertices.len() + model.faces.len() < 4096 {
        let (bytes, _) = pmx::write(model, &pmx::PmxSaveOptions::default())
            .unwrap_or_else(|error| panic!("imported model not writable: {error}"));
        let reread = pmx::read(&bytes, &LoadOptions::default());
        assert!(
            reread.is_ok(),
            "written file not readable: {:?}",
            reread.err()
        );
    }
});
