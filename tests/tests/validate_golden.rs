//! Golden reports (insta snapshots in `tests/snapshots/`) of whole models: the sample model,
//! models using every feature (as themselves, and checked for PMX 2.0 and PMD), the small
//! generated large model, and a model broken in many ways with its repair.
//!
//! After an intended change: `cargo insta review` (or `INSTA_UPDATE=always cargo test`).

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::edit::History;
use pmx_core::generate::{LargeModelSpec, feature_model, large_model, sample_model};
use pmx_core::model::*;
use pmx_core::validate::{self, CheckOptions, Issue, RepairOptions, Target};
use std::fmt::Write as _;

/// One issue per block: severity, code, path, both messages and the fix labels.
fn render(issues: &[Issue]) -> String {
    let mut out = String::new();
    for issue in issues {
        let _ = writeln!(out, "{} {} {}", issue.severity, issue.code, issue.path);
        let _ = writeln!(out, "  en: {}", issue.message_en);
        let _ = writeln!(out, "  ja: {}", issue.message_ja);
        if let Some(fix) = &issue.fix {
            let _ = writeln!(out, "  fix: {} / {}", fix.label_en, fix.label_ja);
        }
        for alternative in &issue.alternatives {
            let _ = writeln!(
                out,
                "  or: {} / {}",
                alternative.label_en, alternative.label_ja
            );
        }
    }
    let summary = validate::Summary::of(issues);
    let _ = writeln!(
        out,
        "{} errors, {} warnings, {} info, {} fixable",
        summary.errors, summary.warnings, summary.infos, summary.fixable
    );
    out
}

fn with_target(target: Target) -> CheckOptions {
    CheckOptions {
        target: Some(target),
        ..CheckOptions::default()
    }
}

#[test]
fn sample_model_report() {
    let issues = validate::check(&sample_model(), None, &CheckOptions::default());
    insta::assert_snapshot!(render(&issues));
}

#[test]
fn feature_model_reports() {
    let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 12, 8);
    insta::assert_snapshot!(
        "feature_model_as_itself",
        render(&validate::check(&model, None, &CheckOptions::default()))
    );
    insta::assert_snapshot!(
        "feature_model_for_pmx20",
        render(&validate::check(
            &model,
            None,
            &with_target(Target::Pmx(PmxVersion::V2_0))
        ))
    );
    let options = CheckOptions {
        max_issues_per_code: 5,
        ..with_target(Target::Pmd)
    };
    insta::assert_snapshot!(
        "feature_model_for_pmd",
        render(&validate::check(&model, None, &options))
    );
}

#[test]
fn small_generated_model_report() {
    let model = large_model(&LargeModelSpec::small());
    let options = CheckOptions {
        max_issues_per_code: 5,
        ..CheckOptions::default()
    };
    insta::assert_snapshot!(render(&validate::check(&model, None, &options)));
}

/// The sample model with a problem for most rules.
fn broken_sample() -> Model {
    let mut m = sample_model();
    let b = |i: usize| Some(BoneIdx::new(i));
    m.bones[3].parent = b(200);
    m.bones[4].name_ja = m.bones[5].name_ja.clone();
    m.bones[1].layer = 3;
    m.vertices[0].position.x = f32::NAN;
    m.vertices[1].normal = Vec3::ZERO;
    m.vertices[2].weight = Weight::Bdef2 {
        bones: [b(1), b(1)],
        weight: 0.3,
    };
    m.vertices[3].weight = Weight::Bdef4 {
        bones: [b(1), b(2), None, None],
        weights: [0.4, 0.4, 0.0, 0.0],
    };
    m.faces.push([VertexIdx(0), VertexIdx(0), VertexIdx(1)]);
    m.faces.push(m.faces[0]);
    m.materials[0].diffuse.x = 1.5;
    m.display_frames.swap(0, 1);
    m.joints[0].body_b = m.joints[0].body_a;
    m
}

#[test]
fn broken_model_report_and_repair() {
    let mut model = broken_sample();
    let issues = validate::check(&model, None, &CheckOptions::default());
    insta::assert_snapshot!("broken_sample_report", render(&issues));
    let mut history = History::new();
    let report = validate::repair(&mut model, None, &mut history, &RepairOptions::default());
    let mut out = String::new();
    for fix in &report.applied {
        let _ = writeln!(out, "{} {}: {}", fix.code, fix.path, fix.label_en);
    }
    let _ = writeln!(out, "rounds: {}", report.rounds);
    let _ = writeln!(out, "undo: {}", report.undo_label.as_deref().unwrap_or("-"));
    out.push_str(&render(&report.remaining));
    insta::assert_snapshot!("broken_sample_repair", out);
}
