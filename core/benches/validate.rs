//! Checking the generated 1,000,000-vertex model (2,000,000 triangles, 800 bones, 300 morphs of
//! every kind, 200 rigid bodies, 200 joints) with every rule. Budget: under 300 ms.
//!
//! `cargo bench -p pmx_core --bench validate`
//!
//! The generated faces come in vertex order, which flatters the duplicate-face sort; the
//! `shuffled faces` run checks the same model with its faces in random order.

// A benchmark on generated data: a failure here is a bug to see at once, not input to handle.
#![allow(clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use pmx_core::formats::LoadReport;
use pmx_core::generate::{LargeModelSpec, Rng, large_model};
use pmx_core::model::IndexSizes;
use pmx_core::validate::{CheckOptions, Target, check};
use std::hint::black_box;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let mut model = large_model(&LargeModelSpec::million());
    // As read from a file: the file rules and the index-size rule run too.
    model.header.index_sizes = Some(IndexSizes::minimal_for(&model));
    let report = LoadReport {
        face_index_count: Some(model.faces.len() * 3),
        ..LoadReport::default()
    };
    let options = CheckOptions::default();
    let issues = check(&model, Some(&report), &options);
    println!(
        "{} issues on the generated model (errors {})",
        issues.len(),
        issues.iter().filter(|i| i.is_error()).count()
    );

    let mut group = c.benchmark_group("validate");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("check 1M vertices", |b| {
        b.iter(|| black_box(check(black_box(&model), Some(&report), &options)));
    });
    let pmx20 = CheckOptions {
        target: Some(Target::Pmx(pmx_core::model::PmxVersion::V2_0)),
        ..CheckOptions::default()
    };
    group.bench_function("check 1M vertices, target pmx2.0", |b| {
        b.iter(|| black_box(check(black_box(&model), Some(&report), &pmx20)));
    });

    // Faces in random order (within each material, so the material ranges stay the same).
    let mut rng = Rng::new(7);
    for range in model.material_face_ranges() {
        let faces = &mut model.faces[range];
        for i in (1..faces.len()).rev() {
            faces.swap(i, rng.below(i + 1));
        }
    }
    group.bench_function("check 1M vertices, shuffled faces", |b| {
        b.iter(|| black_box(check(black_box(&model), Some(&report), &options)));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
