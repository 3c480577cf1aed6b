//! The command line as scripts use it: `info --json` shapes and counts, `convert` bytes and exit codes.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn pmx_studio() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
}

fn corpus(sub: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus")
        .join(sub);
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: corpus folder {} is absent", dir.display());
        None
    }
}

fn info_json(path: &Path) -> Value {
    let output = pmx_studio()
        .arg("info")
        .arg(path)
        .arg("--json")
        .output()
        .expect("pmx-studio runs");
    assert!(
        output.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("info --json prints one JSON object")
}

/// The stats MANIFEST.md gives a corpus PMX file: version, encoding, addUV, index sizes, counts.
struct ManifestStats {
    version: f64,
    encoding: &'static str,
    additional_uv: u64,
    index_sizes: [u64; 6],
    counts: Vec<(&'static str, u64)>,
}

fn manifest_stats(manifest: &str, file: &str) -> Option<ManifestStats> {
    let row = manifest
        .lines()
        .find(|line| line.starts_with(&format!("| `pmx/{file}`")))?;
    let stats = row.split(" | ").nth(6)?;
    let number_before = |label: &str| -> Option<u64> {
        let at = stats.find(label)?;
        stats[..at]
            .trim_end()
            .rsplit(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    };
    let idx = stats.split("idx v/t/m/b/mo/r=").nth(1)?.split(';').next()?;
    let sizes: Vec<u64> = idx
        .split('/')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    Some(ManifestStats {
        version: if stats.starts_with("PMX 2.1") {
            2.1
        } else {
            2.0
        },
        encoding: if stats.contains(", UTF-8,") {
            "utf8"
        } else {
            "utf16"
        },
        additional_uv: stats
            .split("addUV ")
            .nth(1)?
            .split(',')
            .next()?
            .trim()
            .parse()
            .ok()?,
        index_sizes: sizes.try_into().ok()?,
        counts: vec![
            ("vertices", number_before(" vertices")?),
            ("faces", number_before(" tris")?),
            ("textures", number_before(" textures")?),
            ("materials", number_before(" materials")?),
            ("bones", number_before(" bones")?),
            ("morphs", number_before(" morphs")?),
            ("rigid_bodies", number_before(" rigid bodies")?),
            ("joints", number_before(" joints")?),
        ],
    })
}

#[test]
fn info_json_matches_the_corpus_manifest() {
    let Some(dir) = corpus("pmx") else { return };
    let manifest = std::fs::read_to_string(dir.join("../MANIFEST.md")).expect("MANIFEST.md reads");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir)
        .expect("corpus dir reads")
        .filter_map(Result::ok)
    {
        let path = entry.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stats = manifest_stats(&manifest, &name)
            .unwrap_or_else(|| panic!("{name} is not in MANIFEST.md"));
        let info = info_json(&path);
        assert_eq!(info["format"], "pmx", "{name}");
        assert_eq!(info["version"].as_f64(), Some(stats.version), "{name}");
        assert_eq!(info["encoding"], stats.encoding, "{name}");
        assert_eq!(
            info["additional_uv"].as_u64(),
            Some(stats.additional_uv),
            "{name}"
        );
        let sizes = &info["index_sizes"];
        let got: Vec<u64> = [
            "vertex",
            "texture",
            "material",
            "bone",
            "morph",
            "rigid_body",
        ]
        .iter()
        .map(|k| sizes[*k].as_u64().unwrap_or(0))
        .collect();
        assert_eq!(got, stats.index_sizes, "{name}: index sizes");
        for (key, expected) in &stats.counts {
            assert_eq!(
                info["counts"][*key].as_u64(),
                Some(*expected),
                "{name}: {key}"
            );
        }
        for key in ["display_frames", "soft_bodies"] {
            assert!(info["counts"][key].is_u64(), "{name}: counts.{key}");
        }
        checked += 1;
    }
    assert_eq!(
        checked, 14,
        "every corpus PMX file is in the manifest and checked"
    );
}

#[test]
fn convert_keeps_bytes_and_round_trips_through_json() {
    let Some(dir) = corpus("pmx") else { return };
    let out = tempfile::tempdir().expect("temp dir");
    for entry in std::fs::read_dir(&dir)
        .expect("corpus dir reads")
        .filter_map(Result::ok)
    {
        // A copy beside the outputs: converting within one folder keeps the bytes (into another
        // folder the texture paths are rewritten to follow the file; `cli_textures` tests that).
        let path = out.path().join(entry.file_name());
        std::fs::copy(entry.path(), &path).expect("copied");
        let original = std::fs::read(&path).expect("reads");
        let info = info_json(&path);
        let encoding = info["encoding"].as_str().unwrap_or("utf16").to_owned();
        let json = out.path().join("model.json");
        let pmx = out.path().join("model.pmx");
        // The QDEF-in-2.0 file needs the explicit allowance; without it convert must refuse.
        let needs_allowance = path.to_string_lossy().contains("qdef_in_v20");
        let convert = |input: &Path, output: &Path, allow: bool| {
            let mut command = pmx_studio();
            command.arg("convert").arg(input).arg(output).args([
                "--index-sizes",
                "keep",
                "--encoding",
                &encoding,
            ]);
            if allow {
                command.arg("--allow-version-violations");
            }
            command.output().expect("pmx-studio runs")
        };
        if needs_allowance {
            let refused = convert(&path, &pmx, false);
            assert_eq!(refused.status.code(), Some(1));
            let message = String::from_utf8_lossy(&refused.stderr);
            assert!(
                message.contains("QDEF") && message.contains("vertices["),
                "{message}"
            );
        }
        let done = convert(&path, &pmx, needs_allowance);
        assert!(
            done.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&done.stderr)
        );
        assert!(
            std::fs::read(&pmx).expect("output") == original,
            "{}: convert changed bytes",
            path.display()
        );
        assert!(convert(&path, &json, false).status.success());
        let back = convert(&json, &pmx, needs_allowance);
        assert!(
            back.status.success(),
            "{}",
            String::from_utf8_lossy(&back.stderr)
        );
        assert!(
            std::fs::read(&pmx).expect("output") == original,
            "{}: JSON round trip changed bytes",
            path.display()
        );
    }
}

#[test]
fn convert_reports_errors_with_a_non_zero_exit() {
    let out = tempfile::tempdir().expect("temp dir");
    let bad = out.path().join("bad.pmx");
    std::fs::write(&bad, b"PMX \x00\x00\x00\x40\x07").expect("writes");
    let target = out.path().join("out.pmx");
    std::fs::write(&target, b"keep me").expect("writes");
    let output = pmx_studio()
        .arg("convert")
        .arg(&bad)
        .arg(&target)
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(
        message.contains("header.globals_count at byte 8"),
        "{message}"
    );
    assert_eq!(
        std::fs::read(&target).expect("reads"),
        b"keep me",
        "a failed convert leaves the target alone"
    );
    let output = pmx_studio()
        .arg("convert")
        .arg(&bad)
        .arg(out.path().join("out.xyz"))
        .output()
        .expect("runs");
    assert_ne!(output.status.code(), Some(0));
    let output = pmx_studio()
        .arg("info")
        .arg(out.path().join("missing.pmx"))
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn version_and_encoding_flags_convert() {
    let out = tempfile::tempdir().expect("temp dir");
    let json = out.path().join("m.json");
    let model = pmx_core_model_json();
    std::fs::write(&json, model).expect("writes");
    let pmx = out.path().join("m.pmx");
    let output = pmx_studio()
        .arg("convert")
        .arg(&json)
        .arg(&pmx)
        .args(["--version", "2.1", "--encoding", "utf8"])
        .output()
        .expect("runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let info = info_json(&pmx);
    assert_eq!(info["version"].as_f64(), Some(2.1));
    assert_eq!(info["encoding"], "utf8");
    assert_eq!(info["counts"]["display_frames"].as_u64(), Some(2));
    assert_eq!(info["name_ja"], "テスト");
}

/// A minimal model in the JSON form, as a person might write it by hand.
fn pmx_core_model_json() -> &'static str {
    r#"{
  "header": {"version": "2.0", "encoding": "utf16"},
  "info": {"name_ja": "テスト", "name_en": "test", "comment_ja": "", "comment_en": ""},
  "vertices": [], "faces": [], "textures": [], "materials": [], "bones": [], "morphs": [],
  "display_frames": [
    {"name_ja": "Root", "name_en": "Root", "special": true, "items": []},
    {"name_ja": "表情", "name_en": "Exp", "special": true, "items": []}
  ],
  "rigid_bodies": [], "joints": []
}"#
}

/// Every command that reads a model says a damaged file's error once: the path once, the
/// reader's message once ("info" used to print "...: malformed file: X: malformed file: X").
#[test]
fn every_command_says_a_read_error_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let sample = pmx_core::generate::sample_model();
    let (bytes, _) =
        pmx_core::formats::pmx::write(&sample, &Default::default()).expect("the sample writes");
    let cut = dir.path().join("cut.pmx");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).expect("writes");
    let script = dir.path().join("steps.json");
    std::fs::write(&script, r#"{"version": 1, "ops": []}"#).expect("writes");
    let out = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    let cut_arg = cut.to_string_lossy().into_owned();
    let commands: Vec<Vec<String>> = vec![
        vec!["info".into(), cut_arg.clone()],
        vec!["info".into(), "--json".into(), cut_arg.clone()],
        vec!["get".into(), cut_arg.clone(), "info.name_ja".into()],
        vec!["convert".into(), cut_arg.clone(), out("a.pmx")],
        vec!["check".into(), cut_arg.clone()],
        vec!["repair".into(), cut_arg.clone(), out("b.pmx")],
        vec![
            "edit".into(),
            "--script".into(),
            script.to_string_lossy().into_owned(),
            cut_arg.clone(),
            out("c.pmx"),
        ],
        vec!["pose".into(), cut_arg.clone(), out("d.pmx")],
    ];
    for command in &commands {
        let output = pmx_studio().args(command).output().expect("runs");
        assert_ne!(output.status.code(), Some(0), "{command:?}");
        let message = String::from_utf8_lossy(&output.stderr);
        let first_line = message.lines().next().unwrap_or_default();
        assert_eq!(
            first_line.matches(cut_arg.as_str()).count(),
            1,
            "{command:?}: the path once in {first_line:?}"
        );
        assert_eq!(
            first_line.matches("malformed file").count(),
            1,
            "{command:?}: the error once in {first_line:?}"
        );
        assert!(
            first_line.contains("at byte "),
            "{command:?}: where, in {first_line:?}"
        );
    }
}

/// The program's allocator maps blocks from 1 MB on itself (`src/huge_pages.rs`), some with
/// their last huge page whole and some without: a model whose lists are of both kinds goes
/// through `convert` byte for byte, as this test process (the system allocator) wrote it.
#[test]
fn convert_keeps_the_bytes_of_a_model_with_large_lists() {
    use pmx_core::generate::{LargeModelSpec, large_model};
    use pmx_core::model::{PmxVersion, Vertex};
    let model = large_model(&LargeModelSpec {
        vertices: 120_000,
        faces: 200_000,
        additional_uvs: 2,
        version: PmxVersion::V2_0,
        ..LargeModelSpec::small()
    });
    let mib = 1 << 20;
    // 10.6 MB of vertices: the last huge page taken whole; 2.4 MB of faces: not.
    assert!(model.vertices.len() * std::mem::size_of::<Vertex>() > 10 * mib);
    assert!(model.faces.len() * 12 > 2 * mib);
    let out = tempfile::tempdir().expect("temp dir");
    let input = out.path().join("large.pmx");
    let (bytes, _) = pmx_core::formats::pmx::write(&model, &Default::default()).expect("writes");
    std::fs::write(&input, &bytes).expect("written");
    let output = out.path().join("converted.pmx");
    let done = pmx_studio()
        .arg("convert")
        .arg(&input)
        .arg(&output)
        .args(["--index-sizes", "keep"])
        .output()
        .expect("pmx-studio runs");
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(
        std::fs::read(&output).expect("output") == bytes,
        "convert changed the bytes"
    );
}

/// A reader that stops reading (`pmx-studio check M.pmx | head -3`) does not make a command
/// panic: it stops printing, does its job (a convert still writes its file) and ends with its
/// own exit code. Standard output (and, for the convert, standard error) is a pipe whose
/// reading end is closed before the command starts, so every line it prints fails.
#[test]
fn commands_whose_output_is_closed_finish_without_a_panic() {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("../resources/sample/sample.pmx");
    let closed_pipe = || {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        writer
    };
    let runs: [&[&str]; 4] = [
        &["info"],
        &["info", "--json"],
        &["check"],
        &["get", "header", "bones"],
    ];
    for args in runs {
        let output = pmx_studio()
            .arg(args[0])
            .arg(&sample)
            .args(&args[1..])
            .stdout(closed_pipe())
            .output()
            .expect("pmx-studio runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            output.status.code().is_some_and(|code| code < 100),
            "{args:?} ended with {:?}: {stderr}",
            output.status
        );
        assert!(
            stderr.is_empty(),
            "{args:?} said more than nothing: {stderr}"
        );
    }

    let dir = tempfile::tempdir().expect("a temporary folder");
    let out = dir.path().join("sample.pmd");
    let status = pmx_studio()
        .arg("convert")
        .arg(&sample)
        .arg(&out)
        .stdout(closed_pipe())
        .stderr(closed_pipe())
        .status()
        .expect("pmx-studio runs");
    assert!(status.success(), "convert ended with {status:?}");
    let pmd = std::fs::read(&out).expect("the convert wrote its file");
    assert!(pmd.starts_with(b"Pmd"), "a PMD file");
}
