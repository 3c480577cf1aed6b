//! The selection queries (`pmx_core::select`: 編集 > 選択, `--select`, `pmx-studio select`, the
//! scripts' `select`) on the generated 1,000,000-vertex model laid out as a tube (neighbouring
//! vertices share faces, as on a real mesh): the connected part of one vertex (the whole tube),
//! a material's vertices, one ring grown from 1,000 vertices, the X mirror of 1,000 vertices
//! and the vertices weighted to one bone.
//!
//! `cargo bench -p pmx_core --bench select -- --warm-up-time 1 --measurement-time 3`
//!
//! Goal (issue 38): each answers within a frame or two on 1M vertices, so a menu choice or a
//! key never stalls the editor.

// Benchmark code: a failed expectation is the benchmark failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use pmx_core::generate::{LargeModelSpec, large_model, lay_out_as_tube};
use pmx_core::select;
use std::hint::black_box;
use std::time::Duration;

fn select_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("select");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(3));
    group.warm_up_time(Duration::from_secs(1));
    let mut model = large_model(&LargeModelSpec::million());
    lay_out_as_tube(&mut model, 1_000);
    let seeds: Vec<usize> = (0..1_000).map(|i| i * 997 % model.vertices.len()).collect();
    println!(
        "select/1M_tube: linked from one vertex gives {} vertices, grow of 1,000 gives {}",
        select::linked_vertices(&model, &[0]).len(),
        select::grow_vertices(&model, &seeds).len()
    );
    group.bench_function("linked_1M", |b| {
        b.iter(|| black_box(select::linked_vertices(&model, &[0])));
    });
    group.bench_function("material_vertices_1M", |b| {
        b.iter(|| black_box(select::material_vertices(&model, &[0])));
    });
    group.bench_function("grow_1000_of_1M", |b| {
        b.iter(|| black_box(select::grow_vertices(&model, &seeds)));
    });
    group.bench_function("mirror_1000_of_1M", |b| {
        b.iter(|| black_box(select::mirror_vertices(&model, &seeds)));
    });
    group.bench_function("weighted_1M", |b| {
        b.iter(|| black_box(select::weighted_vertices(&model, &[0], 0.5)));
    });
    group.finish();
}

criterion_group!(benches, select_benches);
criterion_main!(benches);
