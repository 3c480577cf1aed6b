//! Helpers shared by the cross-crate tests.

pub mod pmd;

use std::path::PathBuf;

/// The shared corpus folder of real model files (`../shared/corpus/<sub>` beside the repo),
/// or `None` with the reason printed, so tests skip on a machine that does not have it.
#[must_use]
pub fn corpus_dir(sub: &str) -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let dir = std::env::var_os("PMX_STUDIO_CORPUS")
        .map_or(root, PathBuf::from)
        .join(sub);
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: corpus folder {} is absent", dir.display());
        None
    }
}

/// Every file in `dir` with `extension`, sorted.
#[must_use]
pub fn files_with_extension(dir: &std::path::Path, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case(extension))
                })
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}
