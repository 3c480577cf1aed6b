//! `get` as scripts use it: values in the model's JSON form, one line per path, exit 2 for a path
//! that does not resolve; and every path `check --json` prints resolves with `get` on that model
//! (generated broken models always, the corpus when it is there).

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::generate::sample_model;
use pmx_core::model::{BoneIdx, Model};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pmx_studio(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .args(args)
        .output()
        .expect("pmx-studio runs")
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn write_model(dir: &Path, name: &str, model: &Model) -> PathBuf {
    let path = dir.join(name);
    let bytes = pmx::write(model, &PmxSaveOptions::default()).unwrap().0;
    std::fs::write(&path, bytes).unwrap();
    path
}

fn get(file: &Path, paths: &[&str]) -> Output {
    let mut args = vec!["get", path_str(file)];
    args.extend_from_slice(paths);
    pmx_studio(&args)
}

#[test]
fn get_prints_values_in_the_json_form() {
    let dir = tempfile::tempdir().unwrap();
    let model = sample_model();
    let file = write_model(dir.path(), "sample.pmx", &model);
    let output = get(
        &file,
        &[
            "header.version",
            "bones[0].name_ja",
            "bones[0].position",
            "vertices[0].position.y",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let lines: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let expected = serde_json::to_value(&model).unwrap();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0], expected["header"]["version"]);
    assert_eq!(lines[1], expected["bones"][0]["name_ja"]);
    assert_eq!(lines[2], expected["bones"][0]["position"]);
    assert_eq!(lines[3], expected["vertices"][0]["position"][1]);
    // A whole list, and the older dotted positions.
    let output = get(&file, &["materials", "bones.0.name_ja"]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    let mut lines = text.lines();
    let materials: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(materials, expected["materials"]);
    assert_eq!(
        serde_json::from_str::<Value>(lines.next().unwrap()).unwrap(),
        expected["bones"][0]["name_ja"]
    );
}

#[test]
fn unresolved_paths_exit_2_and_print_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let model = sample_model();
    let count = model.bones.len();
    let file = write_model(dir.path(), "sample.pmx", &model);
    for (path, says) in [
        (format!("bones[{count}]"), format!("has {count} elements")),
        ("bones[0].nope".to_owned(), "has no `nope`".to_owned()),
        (
            "bones[0].ik.links[0]".to_owned(),
            "`bones[0].ik.links`".to_owned(),
        ),
        ("bone[0]".to_owned(), "not part of a model".to_owned()),
        ("bones[".to_owned(), "expected a position".to_owned()),
    ] {
        let output = get(&file, &["header.version", &path]);
        assert_eq!(output.status.code(), Some(2), "{path}");
        assert!(output.stdout.is_empty(), "{path}: nothing is printed");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(&says), "{path}: {stderr}");
    }
}

/// Paths of `check --json` on `file` (with `extra` arguments), and whether it read the file.
fn check_paths(file: &Path, extra: &[&str]) -> Option<Vec<String>> {
    let mut args = vec!["check", path_str(file), "--json"];
    args.extend_from_slice(extra);
    let output = pmx_studio(&args);
    if output.status.code() == Some(2) {
        return None;
    }
    let list: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "{}: check --json printed no list ({error}): {}",
            file.display(),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    Some(
        list.iter()
            .map(|issue| issue["path"].as_str().unwrap().to_owned())
            .collect(),
    )
}

/// Checks that every path `check --json` prints for `file` resolves with `get`; returns how
/// many paths there were.
fn check_paths_resolve(file: &Path) -> usize {
    let (paths, extra): (Vec<String>, &[&str]) = match check_paths(file, &[]) {
        Some(paths) => (paths, &[]),
        None => (
            check_paths(file, &["--recover"]).expect("read with --recover"),
            &["--recover"],
        ),
    };
    if paths.is_empty() {
        return 0;
    }
    let mut unique = paths.clone();
    unique.sort();
    unique.dedup();
    // In chunks: a command line has a length limit.
    for chunk in unique.chunks(500) {
        let mut args = vec!["get", path_str(file)];
        args.extend_from_slice(extra);
        args.extend(chunk.iter().map(String::as_str));
        let output = pmx_studio(&args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{}: {}",
            file.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    paths.len()
}

#[test]
fn every_check_path_of_a_broken_model_resolves_with_get() {
    let dir = tempfile::tempdir().unwrap();
    let mut model = sample_model();
    let bones = model.bones.len();
    model.bones[1].parent = BoneIdx::from_raw(i32::try_from(bones).unwrap() + 5);
    model.vertices[0].normal.x = f32::NAN;
    model.vertices[1].position.y = f32::INFINITY;
    model.bones[2].name_ja = model.bones[3].name_ja.clone();
    model.materials[0].diffuse.w = 2.0;
    let file = write_model(dir.path(), "broken.pmx", &model);
    assert!(check_paths_resolve(&file) >= 4);

    // Damaged files: cut short, and with bytes after the last section.
    let bytes = std::fs::read(&file).unwrap();
    let cut = dir.path().join("cut.pmx");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    assert!(check_paths_resolve(&cut) >= 1);
    let trailing = dir.path().join("trailing.pmx");
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"junk");
    std::fs::write(&trailing, longer).unwrap();
    assert!(check_paths_resolve(&trailing) >= 1);
}

#[test]
fn every_check_path_of_the_corpus_resolves_with_get() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    if !root.is_dir() {
        println!("skipped: no corpus at {}", root.display());
        return;
    }
    let mut files = Vec::new();
    for sub in ["pmx", "pmd"] {
        let Ok(entries) = std::fs::read_dir(root.join(sub)) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let extension = path
                .extension()
                .and_then(|e| e.to_str())
                .map(str::to_ascii_lowercase);
            if matches!(extension.as_deref(), Some("pmx" | "pmd")) {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no models in {}", root.display());
    let mut total = 0;
    for file in &files {
        total += check_paths_resolve(file);
    }
    println!(
        "{} corpus models, {total} issue paths, all resolved",
        files.len()
    );
}
