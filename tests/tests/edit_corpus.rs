//! Edits on every PMX file of the shared corpus: a script deleting, duplicating, moving, sorting
//! and setting elements of every kind the file has, then undone: the model and its bytes are the
//! file's again. Skips (with the reason printed) when the corpus is absent.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pmx_core::LoadOptions;
use pmx_core::edit::{EditOp, EditTarget, History, SortKey, ops_to_edit};
use pmx_core::formats::pmx::{self, IndexSizeMode, PmxSaveOptions};
use pmx_core::model::{ElementKind, Model};
use pmx_tests::{assert_same_model, corpus_dir, files_with_extension};

fn script(model: &Model) -> Vec<EditOp> {
    let mut ops = Vec::new();
    let count = |kind| model.count(kind);
    if count(ElementKind::Vertex) > 0 {
        ops.push(EditOp::Set {
            kind: EditTarget::Vertex,
            indices: vec![0],
            field: "position.y".into(),
            value: Some(serde_json::json!(1.5)),
            values: None,
        });
        ops.push(EditOp::Delete {
            kind: ElementKind::Vertex,
            indices: vec![count(ElementKind::Vertex) / 2],
            remove_unused_vertices: false,
        });
    }
    for kind in [
        ElementKind::Texture,
        ElementKind::Bone,
        ElementKind::Morph,
        ElementKind::RigidBody,
        ElementKind::Joint,
        ElementKind::SoftBody,
    ] {
        if count(kind) >= 2 {
            ops.push(EditOp::Duplicate {
                kind,
                indices: vec![0],
            });
            ops.push(EditOp::Move {
                kind,
                indices: vec![0],
                to: None,
                by: Some(1),
            });
            ops.push(EditOp::Delete {
                kind,
                indices: vec![1],
                remove_unused_vertices: false,
            });
        }
    }
    if count(ElementKind::Material) >= 2 {
        ops.push(EditOp::Delete {
            kind: ElementKind::Material,
            indices: vec![0],
            remove_unused_vertices: true,
        });
    }
    if count(ElementKind::Bone) >= 2 {
        ops.push(EditOp::Sort {
            kind: ElementKind::Bone,
            by: SortKey::Hierarchy,
        });
    }
    if count(ElementKind::Morph) >= 2 {
        ops.push(EditOp::Sort {
            kind: ElementKind::Morph,
            by: SortKey::Panel,
        });
    }
    ops
}

#[test]
fn corpus_edits_undo_to_the_same_bytes() {
    let Some(dir) = corpus_dir("pmx") else { return };
    let options = PmxSaveOptions {
        index_sizes: IndexSizeMode::Keep,
        allow_version_violations: true,
        ..PmxSaveOptions::default()
    };
    for path in files_with_extension(&dir, "pmx") {
        let name = path.display().to_string();
        let bytes = std::fs::read(&path).unwrap();
        let (original, _) = pmx::read(&bytes, &LoadOptions::default()).unwrap();
        let mut model = original.clone();
        let ops = script(&model);
        if ops.is_empty() {
            continue;
        }
        let edit = ops_to_edit(&mut model, &ops).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_same_model(&model, &original, &format!("{name}: building"));
        let mut history = History::new();
        history.apply(&mut model, edit);
        let edited = model.clone();
        pmx::write(&edited, &options)
            .unwrap_or_else(|e| panic!("{name}: the edited model writes: {e}"));
        history.undo(&mut model);
        assert_same_model(&model, &original, &format!("{name}: undo"));
        let (written, _) = pmx::write(&model, &options).unwrap();
        assert!(
            written == bytes,
            "{name}: undone model writes the file's bytes"
        );
        history.redo(&mut model);
        assert_same_model(&model, &edited, &format!("{name}: redo"));
    }
}
