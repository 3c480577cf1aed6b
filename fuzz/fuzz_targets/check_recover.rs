//! `pmx-studio check --recover` on arbitrary bytes: the PMX or PMD reader (by the magic) in
//! recovery mode, then every validator over what it read
//! ([`pmx_core::validate::check_recovered`]). Besides "no panic", this is about bounds: a
//! corrupted count must not make the reader build more elements than the bytes can hold, nor a
//! validator take time or memory more than n log n in what was read, nor list more than the
//! per-code cap. libFuzzer's limits enforce the first two, so run it with them:
//!
//! `cargo +nightly fuzz run check_recover corpus/check_recover -- -rss_limit_mb=512 -timeout=10`
//!
//! from `fuzz/` (seeds: `cargo run -p pmx_core --example pmx_fuzz_seeds --
//! fuzz/corpus/check_recover` and the shared corpus's small PMD files, e.g.
//! `mmdagent_menu_accessory.pmd`). `tests/tests/recover_bounds.rs` runs the same body over
//! thousands of mutated generated files with a counting allocator.

#![no_main]

use libfuzzer_sys::fuzz_target;
use pmx_core::formats::LoadLimits;
use pmx_core::validate::{self, CheckOptions};
use std::collections::HashMap;

fuzz_target!(|data: &[u8]| {
    let Some((_, _, issues)) = validate::check_recovered(data, LoadLimits::default()) else {
        return;
    };
    let cap = CheckOptions::default().max_issues_per_code;
    let mut per_code: HashMap<&str, usize> = HashMap::new();
    for issue in &issues {
        *per_code.entry(issue.code).or_default() += 1;
    }
    for (code, count) in per_code {
        // `cap` issues one by one and one that sums up the rest.
        assert!(count <= cap + 1, "{count} issues of {code} listed");
    }
});
