//! Every PMX file of the shared corpus checked: no false errors on files MikuMikuDance loads,
//! the known problems found, and `repair` giving a file with no error that the strict reader
//! reads. Skips with a printed reason when the corpus folder is absent.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::edit::History;
use pmx_core::formats::{self, LoadOptions, pmx};
use pmx_core::model::PmxVersion;
use pmx_core::validate::{self, CheckOptions, Issue, RepairOptions, Target};
use pmx_tests::{corpus_dir, files_with_extension};
use std::collections::BTreeSet;

/// The errors a corpus file is known to have, as (code, path).
fn known_errors(file: &str) -> BTreeSet<(&'static str, String)> {
    let set = |items: &[(&'static str, &str)]| {
        items
            .iter()
            .map(|(code, path)| (*code, (*path).to_owned()))
            .collect()
    };
    match file {
        // Header 2.0, but 4 QDEF vertices (a PMX 2.1 feature).
        "generated_utf8_mixed_deform_qdef_in_v20.pmx" => set(&[
            ("E-VERSION-FEATURE", "vertices[16].weight"),
            ("E-VERSION-FEATURE", "vertices[17].weight"),
            ("E-VERSION-FEATURE", "vertices[18].weight"),
            ("E-VERSION-FEATURE", "vertices[19].weight"),
        ]),
        _ => BTreeSet::new(),
    }
}

fn errors(issues: &[Issue]) -> BTreeSet<(&'static str, String)> {
    issues
        .iter()
        .filter(|i| i.is_error())
        .map(|i| (i.code, i.path.to_string()))
        .collect()
}

#[test]
fn corpus_files_have_exactly_their_known_errors() {
    let Some(dir) = corpus_dir("pmx") else {
        return;
    };
    let files = files_with_extension(&dir, "pmx");
    assert!(files.len() >= 14, "{} PMX files", files.len());
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let loaded = formats::load_path(&path, &LoadOptions::default()).unwrap();
        let issues = validate::check(
            &loaded.model,
            Some(&loaded.report),
            &CheckOptions::default(),
        );
        assert_eq!(errors(&issues), known_errors(&name), "{name}");
        // A PMX 2.1 soft body with material -1 (and no materials at all): it loads (PmxEditor
        // reads it) and simulates nothing, so it is a warning, not an error.
        if name == "pmx21_utf8_softbody_mlibgo.pmx" {
            assert!(
                issues
                    .iter()
                    .any(|i| i.code == "W-SOFT-BODY-NO-MATERIAL"
                        && i.path == "soft_bodies[0].material"),
                "{name}: {issues:?}"
            );
        }
        // Every issue names a place the model has and says what is wrong in both languages.
        for issue in &issues {
            assert!(
                pmx_core::edit::resolve_path(&loaded.model, &issue.path).is_ok(),
                "{name}: {issue}"
            );
            assert!(!issue.message_en.is_empty() && !issue.message_ja.is_empty());
        }
    }
}

#[test]
fn qdef_in_a_20_file_is_an_error_for_target_20_only() {
    let Some(dir) = corpus_dir("pmx") else {
        return;
    };
    let path = dir.join("generated_utf8_mixed_deform_qdef_in_v20.pmx");
    let loaded = formats::load_path(&path, &LoadOptions::default()).unwrap();
    assert_eq!(loaded.model.header.version, PmxVersion::V2_0);
    let with = |target| {
        validate::check(
            &loaded.model,
            Some(&loaded.report),
            &CheckOptions {
                target: Some(target),
                ..CheckOptions::default()
            },
        )
    };
    let as_20 = with(Target::Pmx(PmxVersion::V2_0));
    assert_eq!(
        as_20
            .iter()
            .filter(|i| i.code == "E-VERSION-FEATURE")
            .count(),
        4
    );
    assert!(errors(&with(Target::Pmx(PmxVersion::V2_1))).is_empty());
    // As PMD, the QDEF and SDEF vertices are listed as reduced to BDEF2.
    let as_pmd = with(Target::Pmd);
    assert_eq!(
        as_pmd.iter().filter(|i| i.code == "W-PMD-WEIGHT").count(),
        12,
        "4 BDEF4, 4 SDEF, 4 QDEF"
    );
}

#[test]
fn repaired_corpus_files_have_no_error_and_read_strictly() {
    let Some(dir) = corpus_dir("pmx") else {
        return;
    };
    for path in files_with_extension(&dir, "pmx") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut loaded = formats::load_path(&path, &LoadOptions::default()).unwrap();
        let mut history = History::new();
        let report = validate::repair(
            &mut loaded.model,
            Some(&loaded.report),
            &mut history,
            &RepairOptions::default(),
        );
        assert!(report.failed.is_empty(), "{name}: {:#?}", report.failed);
        assert!(errors(&report.remaining).is_empty(), "{name}");
        let (bytes, _) = pmx::write(&loaded.model, &pmx::PmxSaveOptions::default()).unwrap();
        let (model, read_report) = pmx::read(&bytes, &LoadOptions::default()).unwrap();
        let issues = validate::check(&model, Some(&read_report), &CheckOptions::default());
        assert!(errors(&issues).is_empty(), "{name}: {:?}", errors(&issues));
        // A file with nothing to fix is left as it is: no undo step.
        if report.applied.is_empty() {
            assert!(history.is_empty(), "{name}");
        }
    }
}
