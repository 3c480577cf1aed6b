//! PmxEditor CSV on the command line: `convert IN.pmx OUT.csv` and `convert IN.csv OUT.pmx`
//! give back the input's bytes (UTF-8 and `--csv-encoding sjis`), for a generated model and
//! every corpus PMX; a broken CSV fails with its line; `--csv-encoding` is refused elsewhere.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::formats::pmx::{self, IndexSizeMode, PmxSaveOptions};
use pmx_core::model::{PmxVersion, TextEncoding};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .args(args)
        .output()
        .expect("pmx-studio runs")
}

fn convert(input: &Path, output: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .arg("convert")
        .arg(input)
        .arg(output)
        .args(["--index-sizes", "keep", "--allow-version-violations"])
        .args(extra)
        .output()
        .expect("pmx-studio runs")
}

/// PMX → CSV → PMX through the binary; the PMX written must be `pmx`'s bytes.
fn assert_round_trip(pmx_path: &Path, dir: &Path) {
    let original = std::fs::read(pmx_path).expect("reads");
    for encoding in ["utf8", "sjis"] {
        let csv = dir.join("model.csv");
        let back = dir.join("back.pmx");
        let written = convert(pmx_path, &csv, &["--csv-encoding", encoding]);
        assert!(
            written.status.success(),
            "{}: {}",
            pmx_path.display(),
            String::from_utf8_lossy(&written.stderr)
        );
        let text = std::fs::read(&csv).expect("the CSV is written");
        assert_eq!(
            text.starts_with(b"\xEF\xBB\xBF"),
            encoding == "utf8",
            "UTF-8 has a byte order mark, Shift_JIS none"
        );
        let read = convert(&csv, &back, &[]);
        assert!(
            read.status.success(),
            "{}: {}",
            pmx_path.display(),
            String::from_utf8_lossy(&read.stderr)
        );
        assert!(
            std::fs::read(&back).expect("the PMX is written") == original,
            "{} ({encoding}): PMX → CSV → PMX changed bytes",
            pmx_path.display()
        );
    }
}

#[test]
fn convert_to_csv_and_back_keeps_the_bytes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let model = pmx_core::generate::feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 60, 20);
    let options = PmxSaveOptions {
        index_sizes: IndexSizeMode::Keep,
        ..PmxSaveOptions::default()
    };
    let (bytes, _) = pmx::write(&model, &options).expect("writes");
    let input = dir.path().join("feature.pmx");
    std::fs::write(&input, bytes).expect("writes");
    assert_round_trip(&input, dir.path());
    // No temporary file is left beside the outputs.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("lists")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    // `info` reads the CSV like any model.
    let info = run(&[Path::new("info"), &dir.path().join("model.csv")]);
    assert!(
        info.status.success(),
        "{}",
        String::from_utf8_lossy(&info.stderr)
    );
}

#[test]
fn every_corpus_pmx_converts_to_csv_and_back() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/pmx");
    if !corpus.is_dir() {
        println!("skipped: corpus folder {} is absent", corpus.display());
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("lists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pmx")))
        .collect();
    files.sort();
    assert!(files.len() >= 14, "{} corpus PMX files", files.len());
    for path in files {
        // A copy beside the outputs: texture paths are relative to the model's folder, and
        // writing into another folder rewrites them so they still reach the textures.
        let copy = dir.path().join(path.file_name().expect("a file name"));
        std::fs::copy(&path, &copy).expect("copies");
        assert_round_trip(&copy, dir.path());
        std::fs::remove_file(&copy).expect("removes");
    }
}

#[test]
fn a_broken_csv_fails_with_its_line_and_the_flag_is_refused_elsewhere() {
    let dir = tempfile::tempdir().expect("temp dir");
    let csv = dir.path().join("bad.csv");
    std::fs::write(&csv, "PmxHeader,2.0,0,0\r\nPmxBone,\"a\"\r\n").expect("writes");
    let target = dir.path().join("out.pmx");
    let failed = convert(&csv, &target, &[]);
    assert_eq!(failed.status.code(), Some(1));
    let message = String::from_utf8_lossy(&failed.stderr);
    assert!(message.contains("line 2"), "{message}");
    assert!(!target.exists(), "nothing is written");

    let pmx_out = dir.path().join("out2.pmx");
    std::fs::write(dir.path().join("good.csv"), "PmxHeader,2.0,0,0\r\n").expect("writes");
    let refused = convert(
        &dir.path().join("good.csv"),
        &pmx_out,
        &["--csv-encoding", "sjis"],
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--csv-encoding"));
}
