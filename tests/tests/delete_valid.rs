//! Every delete leaves a model the validator finds no new error in, and undo restores it
//! exactly: random deletions of every element kind on every corpus PMX file (skipped with the
//! reason printed when the corpus is absent) and on the generated every-feature models, and
//! deleting 左腕 from Gene (PmxEditor's sample model), which once left a root bone, vertices
//! weighted to -1 and a new error behind.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pmx_core::LoadOptions;
use pmx_core::edit::{Edit, EditOp, History, ops_to_edit};
use pmx_core::formats::pmx::{self, IndexSizeMode, PmxSaveOptions};
use pmx_core::generate::{Rng, feature_model};
use pmx_core::model::{BoneIdx, ElementKind, Model, PmxVersion, TextEncoding, Weight};
use pmx_core::validate::{self, CheckOptions};
use pmx_tests::{assert_same_model, corpus_dir, files_with_extension};
use std::collections::BTreeMap;

/// Random deletions per element kind and model (each checked and undone).
const CASES_PER_KIND: usize = 8;

/// Error codes with their counts. Paths shift with a deletion (indices move up), counts do not;
/// every issue is listed (no per-code summary) so the counts are exact.
fn error_counts(model: &Model) -> BTreeMap<&'static str, usize> {
    let options = CheckOptions {
        max_issues_per_code: usize::MAX,
        ..CheckOptions::default()
    };
    let mut counts = BTreeMap::new();
    for issue in validate::check(model, None, &options) {
        if issue.is_error() {
            *counts.entry(issue.code).or_default() += 1;
        }
    }
    counts
}

fn assert_no_new_error(before: &BTreeMap<&'static str, usize>, model: &Model, context: &str) {
    let after = error_counts(model);
    for (code, count) in &after {
        let had = before.get(code).copied().unwrap_or(0);
        assert!(
            *count <= had,
            "{context}: {count} {code} after, {had} before; errors before {before:?}, after {after:?}"
        );
    }
}

fn deletable(model: &Model, kind: ElementKind) -> Vec<usize> {
    match kind {
        // The special frames (Root, 表情) cannot be deleted.
        ElementKind::DisplayFrame => model
            .display_frames
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.special)
            .map(|(i, _)| i)
            .collect(),
        _ => (0..model.count(kind)).collect(),
    }
}

/// One to three elements, or a run of up to a tenth of the list (at most 50).
fn random_indices(rng: &mut Rng, candidates: &[usize]) -> Vec<usize> {
    if rng.below(3) == 0 {
        let len = 1 + rng.below((candidates.len() / 10).clamp(1, 50));
        let start = rng.below(candidates.len() + 1 - len.min(candidates.len()));
        candidates[start..(start + len).min(candidates.len())].to_vec()
    } else {
        (0..1 + rng.below(3))
            .map(|_| candidates[rng.below(candidates.len())])
            .collect()
    }
}

/// Random deletions of every kind the model has, each applied, checked and undone.
fn delete_randomly(name: &str, original: &Model, seed: u64) -> usize {
    let before = error_counts(original);
    let mut model = original.clone();
    let mut rng = Rng::new(seed);
    let mut done = 0;
    for kind in ElementKind::ALL {
        let candidates = deletable(&model, kind);
        if candidates.is_empty() {
            continue;
        }
        for case in 0..CASES_PER_KIND {
            let indices = random_indices(&mut rng, &candidates);
            let context = format!("{name}: delete {} {indices:?}", kind.name());
            let edit = if kind == ElementKind::Material && case % 2 == 1 {
                Edit::delete_materials_and_vertices(&mut model, &indices)
            } else {
                Edit::delete(&model, kind, &indices)
            }
            .unwrap_or_else(|e| panic!("{context}: {e}"));
            let mut history = History::new();
            history.apply(&mut model, edit);
            assert_no_new_error(&before, &model, &context);
            history.undo(&mut model);
            assert_same_model(&model, original, &format!("{context}: undo"));
            done += 1;
        }
    }
    done
}

/// A script deleting elements of every kind one after the other (as `pmx-studio edit` runs
/// it): no new error at the end, and undo gives the same bytes.
fn delete_every_kind_in_one_script(name: &str, original: &Model) {
    let before = error_counts(original);
    let mut model = original.clone();
    let mut ops = Vec::new();
    let mut scratch = original.clone();
    let mut history = History::new();
    for kind in ElementKind::ALL {
        let candidates = deletable(&scratch, kind);
        // The middle element: the first ones are often roots and special.
        let Some(&index) = candidates.get(candidates.len() / 2) else {
            continue;
        };
        let op = EditOp::Delete {
            kind,
            indices: vec![index],
            remove_unused_vertices: false,
        };
        let edit = ops_to_edit(&mut scratch, std::slice::from_ref(&op)).unwrap();
        history.apply(&mut scratch, edit);
        ops.push(op);
    }
    if ops.is_empty() {
        return;
    }
    let edit = ops_to_edit(&mut model, &ops).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut history = History::new();
    history.apply(&mut model, edit);
    assert_no_new_error(
        &before,
        &model,
        &format!("{name}: a script deleting every kind"),
    );
    history.undo(&mut model);
    assert_same_model(&model, original, &format!("{name}: script undo"));
    let options = PmxSaveOptions {
        index_sizes: IndexSizeMode::Keep,
        allow_version_violations: true,
        ..PmxSaveOptions::default()
    };
    assert!(
        pmx::write(&model, &options).unwrap().0 == pmx::write(original, &options).unwrap().0,
        "{name}: the undone model writes the same bytes"
    );
}

#[test]
fn deleting_from_generated_models_adds_no_error_and_undoes_exactly() {
    for (version, seed) in [(PmxVersion::V2_1, 21), (PmxVersion::V2_0, 20)] {
        let model = feature_model(version, TextEncoding::Utf16, 300, 40);
        let name = format!("feature model {version:?}");
        let done = delete_randomly(&name, &model, seed);
        assert!(done >= 9 * CASES_PER_KIND, "{name}: {done} deletions");
        delete_every_kind_in_one_script(&name, &model);
    }
}

#[test]
fn deleting_from_corpus_models_adds_no_error_and_undoes_exactly() {
    let Some(dir) = corpus_dir("pmx") else { return };
    for (n, path) in files_with_extension(&dir, "pmx").into_iter().enumerate() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let (model, _) = pmx::read(&bytes, &LoadOptions::default()).unwrap();
        let done = delete_randomly(&name, &model, 0xDE1E7E + n as u64);
        println!("{name}: {done} deletions checked and undone");
        delete_every_kind_in_one_script(&name, &model);
    }
}

/// Gene (PmxEditor's sample, CC BY): 左腕 has weighted vertices, children, a rigid body and
/// display frame items.
#[test]
fn deleting_the_left_arm_of_gene_hands_everything_to_its_parent() {
    let Some(dir) = corpus_dir("pmx") else { return };
    let path = dir.join("pmxeditor_gene_cc_by.pmx");
    if !path.exists() {
        println!("skipped: {} is absent", path.display());
        return;
    }
    let bytes = std::fs::read(&path).unwrap();
    let (original, _) = pmx::read(&bytes, &LoadOptions::default()).unwrap();
    let arm = original
        .bones
        .iter()
        .position(|b| b.name_ja.as_str() == "左腕")
        .expect("Gene has 左腕");
    let arm_idx = Some(BoneIdx::new(arm));
    let parent = original.bones[arm].parent.expect("左腕 has a parent").get();
    let children: Vec<usize> = (0..original.bones.len())
        .filter(|&b| original.bones[b].parent == arm_idx)
        .collect();
    let weighted: Vec<usize> = (0..original.vertices.len())
        .filter(|&v| original.vertices[v].weight.bones().contains(&arm_idx))
        .collect();
    let weight_refs: usize = original
        .vertices
        .iter()
        .map(|v| v.weight.bones().iter().filter(|&&b| b == arm_idx).count())
        .sum();
    assert!(!children.is_empty() && !weighted.is_empty());
    let before = error_counts(&original);

    let mut model = original.clone();
    let edit = Edit::delete(&model, ElementKind::Bone, &[arm]).unwrap();
    let parent_name = original.bones[parent].name_ja.as_str().into_owned();
    let new_parent = if parent > arm { parent - 1 } else { parent };
    let report = edit.report().clone();
    let moved = |what: &str| {
        report
            .moved
            .iter()
            .find(|m| m.what == what)
            .map(|m| (m.to, m.to_name.clone(), m.count))
    };
    assert_eq!(
        moved("child bones"),
        Some((new_parent, parent_name.clone(), children.len()))
    );
    assert_eq!(
        moved("vertex weights"),
        Some((new_parent, parent_name.clone(), weight_refs))
    );
    assert!(report.cleared.is_empty(), "{report:?}");
    let label = edit.label().to_owned();
    assert!(
        label.starts_with(&format!(
            "Delete 1 bone ({} child bones, {} vertex weights",
            children.len(),
            pmx_core_thousands(weight_refs)
        )) && label.contains(&format!("moved to {parent_name}")),
        "{label}"
    );

    let mut history = History::new();
    history.apply(&mut model, edit);
    let new_index = |b: usize| if b > arm { b - 1 } else { b };
    for &child in &children {
        assert_eq!(
            model.bones[new_index(child)].parent,
            Some(BoneIdx::new(new_parent)),
            "{} is re-parented to {parent_name}",
            original.bones[child].name_ja.as_str()
        );
    }
    for &v in &weighted {
        let weight = &model.vertices[v].weight;
        assert!(
            weight.bones().contains(&Some(BoneIdx::new(new_parent))),
            "vertex {v}: {weight:?}"
        );
        let total = |w: &Weight| w.bone_weights().iter().map(|(_, w)| w).sum::<f32>();
        assert!((total(weight) - total(&original.vertices[v].weight)).abs() < 1e-5);
        if let Weight::Bdef2 { bones, .. } | Weight::Sdef { bones, .. } = weight {
            assert_ne!(bones[0], bones[1], "vertex {v}: {weight:?}");
        }
    }
    assert!(
        model.vertices.iter().all(|v| v
            .weight
            .bone_weights()
            .iter()
            .all(|(b, w)| b.is_some() || *w == 0.0)),
        "no vertex gives weight to -1"
    );
    assert_eq!(
        model.bones.iter().filter(|b| b.parent.is_none()).count(),
        original.bones.iter().filter(|b| b.parent.is_none()).count(),
        "no new root bone"
    );
    assert_no_new_error(&before, &model, "Gene without 左腕");
    // 左腕 is the middle of a chain (左肩 → 左腕 → 左ひじ): re-parenting to its parent, which
    // already came before its children, makes no bone deform before its new parent.
    let order_warnings = |m: &Model| {
        validate::check(m, None, &CheckOptions::default())
            .iter()
            .filter(|i| i.code == "W-BONE-ORDER")
            .count()
    };
    assert!(order_warnings(&model) <= order_warnings(&original));
    history.undo(&mut model);
    assert_same_model(&model, &original, "Gene: undo");
    let options = PmxSaveOptions {
        index_sizes: IndexSizeMode::Keep,
        ..PmxSaveOptions::default()
    };
    assert!(
        pmx::write(&model, &options).unwrap().0 == bytes,
        "Gene: the undone model writes the file's bytes"
    );
}

/// `1234567` as `1,234,567`, as labels write counts.
fn pmx_core_thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
