//! `check` and `repair` as scripts use them: exit codes (0 clean, 1 errors, 2 unreadable), the
//! JSON shape, targets, recovery, and a repaired file that checks clean.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::generate::sample_model;
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

fn sample_bytes() -> Vec<u8> {
    pmx::write(&sample_model(), &PmxSaveOptions::default())
        .unwrap()
        .0
}

fn check_json(args: &[&str]) -> (i32, Vec<Value>) {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.push("--json");
    let output = pmx_studio(&all);
    let code = output.status.code().unwrap();
    let list = if code == 2 {
        Vec::new()
    } else {
        serde_json::from_slice::<Vec<Value>>(&output.stdout).expect("check --json prints a list")
    };
    (code, list)
}

fn codes(list: &[Value]) -> Vec<(String, String)> {
    list.iter()
        .map(|i| {
            (
                i["code"].as_str().unwrap().to_owned(),
                i["path"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn corpus_file(name: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/pmx")
        .join(name);
    if path.is_file() {
        Some(path)
    } else {
        println!("skipped: corpus file {} is absent", path.display());
        None
    }
}

#[test]
fn clean_model_exits_0_and_prints_a_json_list() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sample.pmx");
    std::fs::write(&file, sample_bytes()).unwrap();
    let (code, list) = check_json(&[path_str(&file)]);
    assert_eq!(code, 0, "{list:#?}");
    for issue in &list {
        let object = issue.as_object().unwrap();
        for key in [
            "severity",
            "code",
            "path",
            "message",
            "message_ja",
            "fixable",
        ] {
            assert!(object.contains_key(key), "{key} in {issue}");
        }
        assert_ne!(issue["severity"], "error");
    }
    let text = pmx_studio(&["check", path_str(&file)]);
    assert_eq!(text.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&text.stdout).contains("0 error(s)"));
}

#[test]
fn errors_exit_1_and_the_target_decides() {
    let Some(file) = corpus_file("generated_utf8_mixed_deform_qdef_in_v20.pmx") else {
        return;
    };
    let (code, list) = check_json(&[path_str(&file)]);
    assert_eq!(code, 1);
    let found = codes(&list);
    assert!(found.contains(&("E-VERSION-FEATURE".into(), "vertices[16].weight".into())));
    let error = list.iter().find(|i| i["severity"] == "error").unwrap();
    assert_eq!(error["fixable"], true);
    assert!(!error["message_ja"].as_str().unwrap().is_empty());
    let (code, _) = check_json(&[path_str(&file), "--target", "pmx2.1"]);
    assert_eq!(code, 0);
    let (code, list) = check_json(&[path_str(&file), "--target", "pmd"]);
    assert_eq!(code, 0, "PMD losses are warnings");
    assert!(list.iter().any(|i| i["code"] == "W-PMD-WEIGHT"));
}

#[test]
fn unreadable_exits_2_and_recover_reads_a_cut_file() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.pmx");
    std::fs::write(&garbage, b"this is not a model").unwrap();
    let output = pmx_studio(&["check", path_str(&garbage)]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot read"));
    assert_eq!(
        pmx_studio(&["check", path_str(&garbage), "--recover"])
            .status
            .code(),
        Some(2),
        "no header: nothing to recover"
    );

    let bytes = sample_bytes();
    let cut = dir.path().join("cut.pmx");
    std::fs::write(&cut, &bytes[..bytes.len() * 2 / 3]).unwrap();
    assert_eq!(
        pmx_studio(&["check", path_str(&cut)]).status.code(),
        Some(2)
    );
    let (code, list) = check_json(&[path_str(&cut), "--recover"]);
    assert_eq!(code, 1);
    assert!(list.iter().any(|i| i["code"] == "E-FILE-DAMAGED"));

    // Repair without --recover cannot read it either; with it, the output checks clean.
    let out = dir.path().join("repaired.pmx");
    assert_eq!(
        pmx_studio(&["repair", path_str(&cut), path_str(&out)])
            .status
            .code(),
        Some(2)
    );
    // It exits 1: part of the input was lost, which repairing cannot restore; the report
    // says what was recovered and what was lost.
    let output = pmx_studio(&["repair", path_str(&cut), path_str(&out), "--recover"]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("recovered: "), "{stdout}");
    assert!(stdout.contains("lost    "), "{stdout}");
    let (code, list) = check_json(&[path_str(&out)]);
    assert_eq!(code, 0, "{list:#?}");
    // Written atomically: no temporary file is left beside it.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["cut.pmx", "garbage.pmx", "repaired.pmx"]);
}

#[test]
fn repair_json_lists_what_it_changed() {
    let Some(file) = corpus_file("generated_utf8_mixed_deform_qdef_in_v20.pmx") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fixed.pmx");
    let output = pmx_studio(&["repair", path_str(&file), path_str(&out), "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let applied = json["applied"].as_array().unwrap();
    assert!(
        applied
            .iter()
            .filter(|f| f["code"] == "E-VERSION-FEATURE")
            .count()
            == 4,
        "{applied:#?}"
    );
    assert_eq!(json["failed"].as_array().unwrap().len(), 0);
    assert!(
        json["remaining"]
            .as_array()
            .unwrap()
            .iter()
            .all(|i| i["severity"] != "error")
    );
    let (code, _) = check_json(&[path_str(&out)]);
    assert_eq!(code, 0);
}

#[test]
fn texture_files_are_looked_up_next_to_the_model_and_case_is_repaired() {
    let dir = tempfile::tempdir().unwrap();
    let mut model = sample_model();
    model.textures = vec!["Tex\\skin.png".into(), "gone.bmp".into()];
    for material in &mut model.materials {
        material.texture = Some(pmx_core::model::TextureIdx::new(0));
    }
    model.materials[0].sphere_texture = Some(pmx_core::model::TextureIdx::new(1));
    let bytes = pmx::write(&model, &PmxSaveOptions::default()).unwrap().0;
    let path = dir.path().join("model.pmx");
    std::fs::write(&path, bytes).unwrap();
    std::fs::create_dir(dir.path().join("tex")).unwrap();
    let png = image::RgbaImage::from_pixel(2, 2, image::Rgba([1, 2, 3, 255]));
    png.save(dir.path().join("tex/Skin.PNG")).unwrap();

    let (code, list) = check_json(&[path_str(&path)]);
    assert_eq!(
        code, 0,
        "texture problems are warnings and info, not errors"
    );
    let mut found: Vec<(String, String)> = codes(&list)
        .into_iter()
        .filter(|(code, _)| code.contains("TEXTURE"))
        .collect();
    found.sort();
    assert_eq!(
        found,
        vec![
            ("I-TEXTURE-CASE".to_owned(), "textures[0]".to_owned()),
            ("W-TEXTURE-MISSING".to_owned(), "textures[1]".to_owned()),
        ]
    );
    let (_, list) = check_json(&[path_str(&path), "--no-texture-files"]);
    assert!(
        codes(&list)
            .iter()
            .all(|(code, _)| !code.contains("TEXTURE-"))
    );

    // Repaired into the same folder: the path is written as the file is named.
    let repaired = dir.path().join("repaired.pmx");
    let output = pmx_studio(&["repair", path_str(&path), path_str(&repaired)]);
    assert!(output.status.success(), "{output:?}");
    let loaded = pmx_core::formats::load_path(&repaired, &Default::default()).unwrap();
    assert_eq!(loaded.model.textures[0].as_str(), "tex\\Skin.PNG");
    assert_eq!(loaded.model.textures[1].as_str(), "gone.bmp");
}

/// A PMD of about 2 MB whose material count is corrupted to i32::MAX: recovery reads garbage
/// materials up to the end of the file. `check --recover` exits 1 quickly, lists at most the
/// cap of each code and sums up the rest with `"more"`.
#[test]
fn check_recover_of_a_corrupted_count_is_quick_and_capped() {
    use pmx_core::formats::{LoadOptions, pmd};
    use pmx_core::generate::{LargeModelSpec, large_model};
    let model = large_model(&LargeModelSpec {
        vertices: 30_000,
        faces: 60_000,
        bones: 100,
        morphs: 20,
        rigid_bodies: 10,
        joints: 10,
        materials: 8,
        additional_uvs: 0,
        version: pmx_core::model::PmxVersion::V2_0,
    });
    let (mut bytes, _) = pmd::write(&model).unwrap();
    let (file, _) = pmd::read_file(&bytes, &LoadOptions::default()).unwrap();
    let at = pmd::Layout::of(&file).materials;
    bytes[at..at + 4].copy_from_slice(&(i32::MAX as u32).to_le_bytes());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("corrupted.pmd");
    std::fs::write(&path, &bytes).unwrap();

    let start = std::time::Instant::now();
    let (code, list) = check_json(&[path_str(&path), "--recover"]);
    let took = start.elapsed();
    assert_eq!(code, 1);
    // Well under a second in release; generous for the test profile on a busy machine.
    assert!(took < std::time::Duration::from_secs(20), "took {took:?}");
    assert!(
        list.iter().any(|i| i["code"] == "I-FILE-NOTE"
            && i["message"]
                .as_str()
                .unwrap()
                .contains("count 2147483647 is more than")),
        "the corrupted count is noted: {:#?}",
        &list[..list.len().min(20)]
    );
    let mut per_code = std::collections::HashMap::<String, usize>::new();
    for issue in &list {
        *per_code
            .entry(issue["code"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    assert!(per_code.values().all(|&n| n <= 101), "{per_code:?}");
    // At least one code is over the cap: its summary says how many it stands for.
    let summaries: Vec<&Value> = list.iter().filter(|i| i.get("more").is_some()).collect();
    assert!(!summaries.is_empty(), "{per_code:?}");
    for summary in summaries {
        assert!(summary["more"].as_u64().unwrap() > 0);
        assert!(summary["message"].as_str().unwrap().starts_with("and "));
    }
    // Other issues keep the shape they had: no "more".
    assert!(list.iter().any(|i| i.get("more").is_none()));
}

/// A header whose index size byte is not the size the file stores (as some exporters write):
/// a strict read names the byte, `check --recover` reports it, `repair --recover` writes the
/// right header, and `convert --recover --index-sizes keep` writes the sizes the file uses.
#[test]
fn a_wrong_header_index_size_is_found_and_repaired() {
    use pmx_core::formats::pmx::IndexSizeMode;
    use pmx_core::model::IndexSizes;
    let dir = tempfile::tempdir().unwrap();
    let sample = sample_model();
    let minimal = IndexSizes::minimal_for(&sample);
    // (header field, its byte, the size the file stores, what the header says)
    let cases: [(&str, usize, u8, u8); 4] = [
        ("bone", 14, 2, 1),
        ("bone", 14, 4, 2),
        ("vertex", 11, 2, 1),
        ("morph", 15, 2, 4),
    ];
    for (kind, byte, stored, declared) in cases {
        let mut sizes = minimal;
        match kind {
            "bone" => sizes.bone = stored,
            "vertex" => sizes.vertex = stored,
            _ => sizes.morph = stored,
        }
        let mut model = sample.clone();
        model.header.index_sizes = Some(sizes);
        let keep = PmxSaveOptions {
            index_sizes: IndexSizeMode::Keep,
            ..PmxSaveOptions::default()
        };
        let right = pmx::write(&model, &keep).unwrap().0;
        assert_eq!(right[byte], stored);
        let mut broken = right.clone();
        broken[byte] = declared;
        let file = dir.path().join(format!("broken_{kind}_{stored}.pmx"));
        std::fs::write(&file, &broken).unwrap();
        let case = format!("{kind}: the file stores {stored}, the header says {declared}");

        // Strict: refused, at the header byte.
        let output = pmx_studio(&["check", path_str(&file)]);
        assert_eq!(output.status.code(), Some(2), "{case}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("header.{kind}_index_size at byte {byte}")),
            "{case}: {stderr}"
        );

        // Recovery: read exactly, with the wrong byte reported.
        let (code, list) = check_json(&[path_str(&file), "--recover", "--no-texture-files"]);
        assert_eq!(code, 1, "{case}: {list:#?}");
        let found = codes(&list);
        assert_eq!(
            found,
            [(
                "E-HEADER-INDEX-SIZE".to_owned(),
                format!("header.index_sizes.{kind}")
            )],
            "{case}"
        );
        let message = list[0]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("byte {byte}"))
                && message.contains(&format!("is {declared} byte(s)"))
                && message.contains(&format!("stores {stored}-byte")),
            "{case}: {message}"
        );

        // Repair writes the sample's own file (the smallest sizes), which checks clean.
        let repaired = dir.path().join(format!("repaired_{kind}_{stored}.pmx"));
        let output = pmx_studio(&["repair", path_str(&file), path_str(&repaired), "--recover"]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{case}: {stdout}");
        assert!(
            stdout.contains(&format!(
                "fixed   E-HEADER-INDEX-SIZE      header.index_sizes.{kind}"
            )),
            "{case}: {stdout}"
        );
        assert!(!stdout.contains("nothing to fix"), "{case}: {stdout}");
        assert!(
            std::fs::read(&repaired).unwrap() == sample_bytes(),
            "{case}: the repaired file is not the sample's"
        );
        let (code, list) = check_json(&[path_str(&repaired), "--no-texture-files"]);
        assert_eq!(code, 0, "{case}: {list:#?}");

        // Keeping the sizes writes the ones the file really uses: the right file.
        let kept = dir.path().join(format!("kept_{kind}_{stored}.pmx"));
        let args = [
            "convert",
            path_str(&file),
            path_str(&kept),
            "--index-sizes",
            "keep",
        ];
        assert!(
            !pmx_studio(&args).status.success(),
            "{case}: strict convert"
        );
        let mut with_recover = args.to_vec();
        with_recover.push("--recover");
        let output = pmx_studio(&with_recover);
        assert!(output.status.success(), "{case}: {output:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("{kind}_index_size at byte {byte}")),
            "{case}: {stderr}"
        );
        assert!(
            std::fs::read(&kept).unwrap() == right,
            "{case}: convert --index-sizes keep wrote another file"
        );
    }

    // The JSON of `repair` lists the correction apart from the fixes.
    let file = dir.path().join("broken_bone_2.pmx");
    let out = dir.path().join("repaired.json.pmx");
    let output = pmx_studio(&[
        "repair",
        path_str(&file),
        path_str(&out),
        "--recover",
        "--json",
    ]);
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let corrected = json["corrected_while_reading"].as_array().unwrap();
    assert_eq!(corrected.len(), 1, "{json:#}");
    assert_eq!(corrected[0]["path"], "header.index_sizes.bone");
    assert_eq!(json["lost_while_reading"], false);
}
