//! Edits on the generated 1,000,000-vertex model (2,000,000 triangles, 800 bones, 300 morphs,
//! 200 rigid bodies, 200 joints): building, applying and undoing them, and what they add to the
//! history.
//!
//! `cargo bench -p pmx_core --bench edit`
//!
//! Goals (issue 3): set one field on 1,000 vertices < 1 ms apply and undo; delete 10 bones with
//! remapping < 50 ms; delete 10% of the vertices < 300 ms; undo each.

#![allow(clippy::expect_used)]

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

/// CPU time this thread has run, in nanoseconds (Linux `schedstat`; `None` elsewhere). The
/// machine the figures come from is shared: CPU time is what an operation costs whatever the
/// load, wall time what it takes there and then.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// Measures `operation`: (wall time, CPU time if known).
fn measure<T>(operation: impl FnOnce() -> T) -> (T, Duration, Option<Duration>) {
    let cpu_before = thread_cpu_ns();
    let started = Instant::now();
    let result = operation();
    let wall = started.elapsed();
    let cpu = cpu_before
        .zip(thread_cpu_ns())
        .map(|(before, after)| Duration::from_nanos(after.saturating_sub(before)));
    (result, wall, cpu)
}

/// Builds `edit`, then applies and undoes it `runs` times through a history, printing the mean
/// wall and CPU times and what the step adds to the history.
fn report(name: &str, model: &mut Model, runs: u32, build: impl Fn(&Model) -> Edit) {
    let (edit, build_wall, build_cpu) = measure(|| build(model));
    let label = edit.label().to_owned();
    let mut history = History::new();
    let (mut apply_wall, mut apply_cpu, mut undo_wall, mut undo_cpu) = (
        Duration::ZERO,
        Duration::ZERO,
        Duration::ZERO,
        Duration::ZERO,
    );
    let mut stored = 0;
    history.apply(model, edit);
    history.undo(model);
    for _ in 0..runs {
        let ((), wall, cpu) = measure(|| {
            history.redo(model);
        });
        apply_wall += wall;
        apply_cpu += cpu.unwrap_or_default();
        stored = history.heap_size();
        let ((), wall, cpu) = measure(|| {
            history.undo(model);
        });
        undo_wall += wall;
        undo_cpu += cpu.unwrap_or_default();
    }
    println!(
        "{name}: \"{label}\"\n  build {build_wall:.2?} (cpu {:.2?}); apply {:.2?} (cpu {:.2?}); undo {:.2?} (cpu {:.2?}); history +{:.1} KiB",
        build_cpu.unwrap_or_default(),
        apply_wall / runs,
        apply_cpu / runs,
        undo_wall / runs,
        undo_cpu / runs,
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
    let uptime = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average: {}", uptime.trim());
    report("move 1,000 vertices", &mut model, 50, |m| {
        Edit::set_each(m, EditTarget::Vertex, &indices, "position", moved.clone())
            .expect("set builds")
    });
    report("delete 1 bone", &mut model, 10, |m| {
        Edit::delete(m, ElementKind::Bone, &[TEN_BONES[0]]).expect("delete builds")
    });
    report("delete 10 bones", &mut model, 10, |m| {
        Edit::delete(m, ElementKind::Bone, &TEN_BONES).expect("delete builds")
    });
    let tenth = tenth_of_vertices(&model);
    report("delete 10% of the vertices", &mut model, 5, |m| {
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
