//! The history grows with the size of a change, not with the size of the model.
//!
//! On a generated 100,000-vertex model (the 1,000,000-vertex figures are in `core/benches/edit.rs`):
//! moving 1,000 vertices adds well under 100 KB; deleting one bone adds memory in proportion to the
//! references it moves, removes or clears plus the removed bone, nowhere near a copy of the model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use pmx_core::edit::{Edit, EditTarget, HeapSize, History};
use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::model::refs::for_each_bone_ref;
use pmx_core::model::{BoneIdx, ElementKind, Model, Vec3};

fn model() -> Model {
    large_model(&LargeModelSpec {
        vertices: 100_000,
        faces: 200_000,
        ..LargeModelSpec::million()
    })
}

#[test]
fn moving_a_thousand_vertices_adds_under_100_kb() {
    let mut model = model();
    let original = model.clone();
    let mut history = History::new();
    let before = history.heap_size();
    let indices: Vec<usize> = (0..1000).map(|i| i * 97).collect();
    let moved: Vec<Vec3> = indices
        .iter()
        .map(|&i| {
            let p = model.vertices[i].position;
            Vec3::new(p.x + 1.0, p.y, p.z - 0.5)
        })
        .collect();
    let edit = Edit::set_each(&model, EditTarget::Vertex, &indices, "position", moved).unwrap();
    assert_eq!(edit.label(), "Set position of 1,000 vertices");
    history.apply(&mut model, edit);
    let growth = history.heap_size() - before;
    println!("moving 1,000 of 100,000 vertices: history +{growth} bytes");
    // 4 (index) + 12 (old) + 12 (new) bytes per vertex, plus the step itself.
    assert!(
        growth >= 28_000,
        "the figure is measured, not guessed: {growth}"
    );
    assert!(growth < 100_000, "history grew by {growth} bytes");
    history.undo(&mut model);
    assert!(model == original);
}

#[test]
fn deleting_a_bone_stores_what_referenced_it() {
    let mut model = model();
    let original = model.clone();
    let bone = 10;
    let mut referencing = 0usize;
    for_each_bone_ref(&model, |_, b| {
        if b == Some(BoneIdx::new(bone)) {
            referencing += 1;
        }
    });
    let mut history = History::new();
    let edit = Edit::delete(&model, ElementKind::Bone, &[bone]).unwrap();
    // Every reference to the bone is accounted for: moved to its ancestor, removed with its
    // list entry, a setting switched off, or cleared.
    let report = edit.report();
    let accounted = report.moved.iter().map(|m| m.count).sum::<usize>()
        + report.removed_with.values().sum::<usize>()
        + report.switched_off.values().sum::<usize>()
        + report.cleared_total();
    assert_eq!(accounted, referencing, "{report:?}");
    let removed_bone = model.bones[bone].heap_size() + std::mem::size_of_val(&model.bones[bone]);
    history.apply(&mut model, edit);
    let growth = history.heap_size();
    let model_size = original.heap_size();
    // Per reference at most one rewritten vertex weight (its index and the other weight) or a
    // removed list entry with its position; the bone; and a fixed part (label, report,
    // positions).
    let per_reference = std::mem::size_of::<(u32, pmx_core::model::Weight)>();
    let bound = per_reference * referencing + removed_bone + 8 * 1024;
    println!(
        "deleting 1 of 800 bones ({referencing} references): history +{growth} bytes (bound {bound}); the model holds {model_size} bytes"
    );
    assert!(
        growth <= bound,
        "history grew by {growth} bytes, bound {bound}"
    );
    assert!(growth * 100 < model_size, "far from a copy of the model");
    history.undo(&mut model);
    assert!(model == original);
}
