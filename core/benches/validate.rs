//! Checking the generated 1,000,000-vertex model (2,000,000 triangles, 800 bones, 300 morphs of
//! every kind, 200 rigid bodies, 200 joints) with every rule. Budget: under 300 ms.
//!
//! `cargo bench -p pmx_core --bench validate`
//!
//! The re-check after an edit (`validate::recheck`: only what the edit touched) is measured on
//! the same model against the full check, after moving 1,000 vertices (a block, and 1,000
//! spread over the whole model) and after a weight brush over 1,000 vertices. Budget: 16 ms.
//!
//! The generated faces come in vertex order, which flatters the duplicate-face sort; the
//! `shuffled faces` run checks the same model with its faces in random order.

// A benchmark on generated data: a failure here is a bug to see at once, not input to handle.
#![allow(clippy::expect_used)]

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use pmx_core::edit::{BoneRef, Edit, History, PaintMode, PaintWeights, SetField, Touched, field};
use pmx_core::formats::LoadReport;
use pmx_core::generate::{LargeModelSpec, Rng, large_model};
use pmx_core::model::{IndexSizes, Model, Vec3, Vertex};
use pmx_core::validate::{CheckOptions, Checked, Target, check, check_keeping, recheck};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The edits a re-check follows, each applied to its own copy of the model: (name, the model
/// after it, what it touched).
fn edits(model: &Model) -> Vec<(&'static str, Model, Touched)> {
    let block: Vec<usize> = (400_000..401_000).collect();
    let spread: Vec<usize> = (0..1_000).map(|i| i * 997 + 13).collect();
    let moved = |indices: &[usize]| {
        let values = indices
            .iter()
            .map(|&i| {
                let p = model.vertices[i].position;
                Vec3::new(p.x, p.y + 0.01, p.z)
            })
            .collect();
        SetField::each(field::<Vertex>().position(), indices.to_vec(), values)
            .into_edit(model)
            .expect("a move")
    };
    let brush = PaintWeights {
        bone: BoneRef::Index(3),
        mode: PaintMode::Add,
        amounts: vec![0.25; spread.len()],
        vertices: spread.clone(),
        mirror: false,
        max_bones: 4,
        locked: Vec::new(),
    };
    let edits = [
        ("move 1,000 vertices (a block)", moved(&block)),
        ("move 1,000 vertices (spread)", moved(&spread)),
        (
            "weight brush on 1,000 vertices",
            Edit::paint_weights(model, &brush).expect("a brush step"),
        ),
    ];
    edits
        .into_iter()
        .map(|(name, edit)| {
            let mut edited = model.clone();
            let touched = History::new().apply(&mut edited, edit);
            (name, edited, touched)
        })
        .collect()
}

/// The median of `runs` timings of `f`, in milliseconds.
fn median_ms(runs: usize, mut f: impl FnMut() -> Duration) -> f64 {
    let mut times: Vec<f64> = (0..runs).map(|_| f().as_secs_f64() * 1000.0).collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

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

    // Full check against re-check after an edit, printed side by side.
    let kept = check_keeping(&model, Some(&report), &options);
    assert_eq!(kept.issues(), issues.as_slice());
    let edits = edits(&model);
    for (name, edited, touched) in &edits {
        let full = median_ms(5, || {
            let started = Instant::now();
            black_box(check(edited, Some(&report), &options));
            started.elapsed()
        });
        let mut again: Checked = kept.clone();
        recheck(&mut again, edited, Some(&report), &options, [touched]);
        assert_eq!(
            again.issues(),
            check(edited, Some(&report), &options).as_slice(),
            "the re-check equals a full check"
        );
        let incremental = median_ms(15, || {
            let mut again: Checked = kept.clone();
            let started = Instant::now();
            recheck(&mut again, edited, Some(&report), &options, [touched]);
            started.elapsed()
        });
        println!("{name}: full check {full:.1} ms, re-check {incremental:.2} ms");
    }

    let mut group = c.benchmark_group("validate");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("check 1M vertices", |b| {
        b.iter(|| black_box(check(black_box(&model), Some(&report), &options)));
    });
    for (name, edited, touched) in &edits {
        group.bench_function(format!("re-check 1M vertices after: {name}"), |b| {
            b.iter_batched(
                || kept.clone(),
                |mut again| {
                    recheck(&mut again, edited, Some(&report), &options, [touched]);
                    again
                },
                BatchSize::LargeInput,
            );
        });
    }
    drop(edits);
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
