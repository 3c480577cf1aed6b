//! Edits on the generated 1,000,000-vertex model (2,000,000 triangles, 800 bones, 300 morphs,
//! 200 rigid bodies, 200 joints): building, applying and undoing them, and what they add to the
//! history.
//!
//! `cargo bench -p pmx_core --bench edit`
//!
//! Goals (issue 3): set one field on 1,000 vertices < 1 ms apply and undo; delete 10 bones with
//! remapping < 50 ms; delete 10% of the vertices < 300 ms; undo each.

// Test and benchmark code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use pmx_core::edit::{Edit, EditTarget, History};
use pmx_core::generate::{LargeModelSpec, Rng, large_model};
use pmx_core::model::{ElementKind, Model, Vec3};
use std::hint::black_box;
use std::time::{Duration, Instant};

fn kib(bytes: usize) -> f64 {
    bytes as f64 / 1024.0
}

/// Times `apply` (or `revert`) of `edit` alone, returning the model to its state between runs.
fn time_apply(model: &mut Model, edit: &mut Edit, iterations: u64) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iterations {
        let started = Instant::now();
        black_box(edit.apply(model));
        total += started.elapsed();
        edit.revert(model);
    }
    total
}

fn time_undo(model: &mut Model, edit: &mut Edit, iterations: u64) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iterations {
        edit.apply(model);
        let started = Instant::now();
        black_box(edit.revert(model));
        total += started.elapsed();
    }
    total
}

/// Builds, applies and undoes `edit` once, printing the times and the history growth.
fn report_once(name: &str, model: &mut Model, build: impl FnOnce(&Model) -> Edit) {
    let started = Instant::now();
    let edit = build(model);
    let built = started.elapsed();
    let mut history = History::new();
    let label = edit.label().to_owned();
    let started = Instant::now();
    history.apply(model, edit);
    let applied = started.elapsed();
    let stored = history.heap_size();
    let started = Instant::now();
    history.undo(model);
    let undone = started.elapsed();
    println!(
        "{name}: \"{label}\": build {built:.2?}, apply {applied:.2?}, undo {undone:.2?}, history +{:.1} KiB",
        kib(stored)
    );
}

fn thousand_vertices(model: &Model) -> (Vec<usize>, Vec<Vec3>) {
    let indices: Vec<usize> = (0..1000).map(|i| i * 997).collect();
    let moved = indices
        .iter()
        .map(|&i| {
            let p = model.vertices[i].position;
            Vec3::new(p.x + 0.1, p.y, p.z)
        })
        .collect();
    (indices, moved)
}

fn tenth_of_vertices(model: &Model) -> Vec<usize> {
    let mut rng = Rng::new(10);
    let mut chosen = vec![false; model.vertices.len()];
    let mut indices = Vec::with_capacity(model.vertices.len() / 10);
    while indices.len() < model.vertices.len() / 10 {
        let i = rng.below(model.vertices.len());
        if !chosen[i] {
            chosen[i] = true;
            indices.push(i);
        }
    }
    indices
}

const TEN_BONES: [usize; 10] = [10, 55, 120, 199, 256, 333, 404, 512, 640, 777];

fn edit_benches(c: &mut Criterion) {
    let mut model = large_model(&LargeModelSpec::million());
    println!(
        "model: {} vertices, {} triangles, {} bones, {} morphs",
        model.vertices.len(),
        model.faces.len(),
        model.bones.len(),
        model.morphs.len()
    );
    let (indices, moved) = thousand_vertices(&model);
    report_once("move 1,000 vertices", &mut model, |m| {
        Edit::set_each(m, EditTarget::Vertex, &indices, "position", moved.clone())
            .expect("set builds")
    });
    report_once("delete 1 bone", &mut model, |m| {
        Edit::delete(m, ElementKind::Bone, &[TEN_BONES[0]]).expect("delete builds")
    });
    report_once("delete 10 bones", &mut model, |m| {
        Edit::delete(m, ElementKind::Bone, &TEN_BONES).expect("delete builds")
    });
    let tenth = tenth_of_vertices(&model);
    report_once("delete 10% of the vertices", &mut model, |m| {
        Edit::delete(m, ElementKind::Vertex, &tenth).expect("delete builds")
    });

    let mut group = c.benchmark_group("edit_1m_vertices");
    group.bench_function("set_1000_vertices/build", |b| {
        b.iter(|| {
            Edit::set_each(
                &model,
                EditTarget::Vertex,
                &indices,
                "position",
                moved.clone(),
            )
            .expect("set builds")
        })
    });
    let mut edit = Edit::set_each(
        &model,
        EditTarget::Vertex,
        &indices,
        "position",
        moved.clone(),
    )
    .expect("set builds");
    group.bench_function("set_1000_vertices/apply", |b| {
        b.iter_custom(|n| time_apply(&mut model, &mut edit, n))
    });
    group.bench_function("set_1000_vertices/undo", |b| {
        b.iter_custom(|n| time_undo(&mut model, &mut edit, n))
    });
    let mut edit = Edit::set_json(
        &model,
        EditTarget::Vertex,
        &indices,
        "position",
        &[serde_json::json!([0.0, 1.0, 0.0])],
    )
    .expect("set builds");
    group.bench_function("set_1000_vertices_json_same_value/apply", |b| {
        b.iter_custom(|n| time_apply(&mut model, &mut edit, n))
    });

    group.sample_size(10);
    let mut edit = Edit::delete(&model, ElementKind::Bone, &TEN_BONES).expect("delete builds");
    group.bench_function("delete_10_bones/apply", |b| {
        b.iter_custom(|n| time_apply(&mut model, &mut edit, n))
    });
    group.bench_function("delete_10_bones/undo", |b| {
        b.iter_custom(|n| time_undo(&mut model, &mut edit, n))
    });
    let mut edit = Edit::delete(&model, ElementKind::Vertex, &tenth).expect("delete builds");
    group.bench_function("delete_10pct_vertices/apply", |b| {
        b.iter_custom(|n| time_apply(&mut model, &mut edit, n))
    });
    group.bench_function("delete_10pct_vertices/undo", |b| {
        b.iter_custom(|n| time_undo(&mut model, &mut edit, n))
    });
    group.finish();
}

criterion_group!(benches, edit_benches);
criterion_main!(benches);
