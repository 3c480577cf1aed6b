//! VRM on the command line: `convert IN OUT.vrm [--vrm-meta META.json] [--no-spring-bones]`
//! from PMX, PMD and MQO, the meta in the written JSON chunk, the loss report on stderr, and
//! errors that name the META.json key or the missing humanoid bones.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::formats::vrm::split_glb;
use pmx_core::formats::{self, SaveOptions};
use pmx_core::model::Model;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .arg("convert")
        .args(args)
        .output()
        .expect("pmx-studio runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn ok(args: &[&Path]) -> Output {
    let output = run(args);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    output
}

fn save(model: &Model, path: &Path) -> PathBuf {
    formats::save_path(model, path, &SaveOptions::default()).unwrap();
    path.to_owned()
}

/// The sample model the repository ships.
fn shipped_sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../resources/sample/sample.pmx")
}

/// The glTF JSON of a written VRM.
fn vrm_json(path: &Path) -> Value {
    let bytes = std::fs::read(path).unwrap();
    assert!(bytes.starts_with(b"glTF"), "the glTF binary magic");
    split_glb(&bytes).expect("a GLB with a JSON chunk").0
}

#[test]
fn shipped_sample_becomes_a_vrm_with_the_report_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sample.vrm");
    let output = ok(&[&shipped_sample(), &out]);
    let json = vrm_json(&out);
    let vrm = &json["extensions"]["VRMC_vrm"];
    assert_eq!(vrm["specVersion"], "1.0");
    assert!(vrm["humanoid"]["humanBones"]["head"]["node"].is_number());
    // Without --vrm-meta: the conservative defaults.
    assert_eq!(vrm["meta"]["avatarPermission"], "onlyAuthor");
    assert_eq!(vrm["meta"]["modification"], "prohibited");
    let text = stderr(&output);
    assert!(text.contains("humanoid bones"), "{text}");
    let sample = formats::load_path(&shipped_sample(), &Default::default()).unwrap();
    let expected = formats::vrm::write_vrm(
        &sample.model,
        &formats::vrm::VrmExportOptions {
            model_dir: shipped_sample().parent().map(Path::to_owned),
            ..Default::default()
        },
    )
    .unwrap()
    .report;
    // One stderr line per loss, as the writer words them.
    for loss in &expected.losses {
        assert!(
            text.lines()
                .any(|line| line == format!("warning: {}", loss.message_en())),
            "{loss:?} in {text}"
        );
    }
}

#[test]
fn meta_json_shows_up_in_the_vrm() {
    let dir = tempfile::tempdir().unwrap();
    let meta = dir.path().join("META.json");
    std::fs::write(
        &meta,
        r#"{
            "name": "Sample Avatar",
            "version": "2.0",
            "authors": ["Ann", "Bob"],
            "avatarPermission": "everyone",
            "commercialUsage": "corporation",
            "creditNotation": "unnecessary",
            "allowRedistribution": true,
            "modification": "allowModification",
            "otherLicenseUrl": "https://example.com/licence",
            "licenseUrl": "https://example.com/mine"
        }"#,
    )
    .unwrap();
    let out = dir.path().join("avatar.vrm");
    let output = ok(&[
        &shipped_sample(),
        &out,
        Path::new("--vrm-meta"),
        &meta,
        Path::new("--no-spring-bones"),
    ]);
    let json = vrm_json(&out);
    let written = &json["extensions"]["VRMC_vrm"]["meta"];
    assert_eq!(written["name"], "Sample Avatar");
    assert_eq!(written["version"], "2.0");
    assert_eq!(written["authors"], serde_json::json!(["Ann", "Bob"]));
    assert_eq!(written["avatarPermission"], "everyone");
    assert_eq!(written["commercialUsage"], "corporation");
    assert_eq!(written["creditNotation"], "unnecessary");
    assert_eq!(written["allowRedistribution"], true);
    assert_eq!(written["modification"], "allowModification");
    assert_eq!(written["otherLicenseUrl"], "https://example.com/licence");
    assert_eq!(written["licenseUrl"], "https://vrm.dev/licenses/1.0/");
    // Left out: the restrictive default.
    assert_eq!(written["allowExcessivelySexualUsage"], false);
    let text = stderr(&output);
    assert!(
        text.contains("licenseUrl \"https://example.com/mine\" ignored"),
        "{text}"
    );
}

#[test]
fn bad_meta_json_names_the_key_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("avatar.vrm");
    for (text, expected) in [
        (
            r#"{"name": "A", "alowRedistribution": true}"#,
            "unknown key \"alowRedistribution\"",
        ),
        (
            r#"{"avatarPermission": "anybody"}"#,
            "\"avatarPermission\" is \"anybody\"",
        ),
        (r#"{"authors": "Ann"}"#, "\"authors\" must be an array"),
        ("{ not json", "not valid JSON"),
    ] {
        let meta = dir.path().join("META.json");
        std::fs::write(&meta, text).unwrap();
        let output = run(&[&shipped_sample(), &out, Path::new("--vrm-meta"), &meta]);
        assert!(!output.status.success(), "{text} is refused");
        let message = stderr(&output);
        assert!(message.contains(expected), "{text}: {message}");
        assert!(message.contains("META.json"), "{message}");
        assert!(!out.exists(), "nothing written for {text}");
    }
}

#[test]
fn missing_required_humanoid_bones_fail_with_their_names() {
    let dir = tempfile::tempdir().unwrap();
    let mut model = pmx_core::generate::sample_model();
    for bone in &mut model.bones {
        if bone.name_ja.as_str() == "右ひじ" {
            bone.name_ja = "elbow?".into();
            bone.name_en = "".into();
        }
    }
    let input = save(&model, &dir.path().join("broken.pmx"));
    let out = dir.path().join("broken.vrm");
    let output = run(&[&input, &out]);
    assert!(!output.status.success());
    let message = stderr(&output);
    assert!(
        message.contains("rightLowerArm") && message.contains("右ひじ"),
        "{message}"
    );
    assert!(!out.exists());
}

#[test]
fn vrm_flags_need_a_vrm_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.pmx");
    let output = run(&[&shipped_sample(), &out, Path::new("--no-spring-bones")]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("for a .vrm output"));
}

#[test]
fn pmd_and_mqo_inputs_convert_too() {
    let dir = tempfile::tempdir().unwrap();
    let model = pmx_core::generate::sample_model();
    for name in ["sample.pmd", "sample.mqo"] {
        let input = save(&model, &dir.path().join(name));
        let out = dir.path().join(format!("{name}.vrm"));
        let output = run(&[&input, &out]);
        if name.ends_with(".mqo") && !output.status.success() {
            // An MQO keeps bones only in its .mqx; a failure must still be the bones' names.
            assert!(stderr(&output).contains("humanoid"), "{}", stderr(&output));
            continue;
        }
        assert!(output.status.success(), "{name}: {}", stderr(&output));
        vrm_json(&out);
    }
}

#[test]
fn corpus_models_convert() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let files = [
        "pmx/pmxeditor_gene_cc_by.pmx",
        "pmd/pmd_gene_cc_by.pmd",
        "pmx/mmdtools_exported_mmt_test_model.pmx",
    ];
    let dir = tempfile::tempdir().unwrap();
    for file in files {
        let input = corpus.join(file);
        if !input.exists() {
            println!("skipped {file}: not in {}", corpus.display());
            continue;
        }
        let out = dir.path().join("corpus.vrm");
        let output = run(&[&input, &out]);
        if !output.status.success() {
            // Not every corpus model is a humanoid: then the refusal names the bones.
            let message = stderr(&output);
            assert!(
                message.contains("required VRM humanoid bones"),
                "{file}: {message}"
            );
            println!("{file}: not a humanoid: {message}");
            continue;
        }
        let json = vrm_json(&out);
        assert!(
            json["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]["hips"]["node"].is_number(),
            "{file}"
        );
        // Gene's physics: the spring counts on stderr are the springs in the file.
        if file.contains("gene") {
            let springs = json["extensions"]["VRMC_springBone"]["springs"]
                .as_array()
                .map_or(0, Vec::len);
            assert_eq!(springs, 38, "{file}");
            assert!(
                stderr(&output).contains("spring bones: 38 springs"),
                "{file}: {}",
                stderr(&output)
            );
        }
    }
}
