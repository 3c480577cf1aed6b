//! One weight-brush step (`paint_weights`) on generated models laid out as a tube (so that a
//! brush's 2,000 vertices are neighbours, as on a real mesh): building and applying an add
//! step and a smooth step with a [`PaintIndex`] kept between steps, on 100,000 and 1,000,000
//! vertices, and building the index once.
//!
//! `cargo bench -p pmx_core --bench paint -- paint`
//!
//! Goal (issue 35): the whole brush step (pick + weights + re-skin + upload) under 8 ms at
//! 100k vertices and 16 ms at 1M; the weights part should be a small share of that.

// Test and benchmark code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use pmx_core::edit::{BoneRef, Edit, PaintIndex, PaintMode, PaintWeights};
use pmx_core::generate::{LargeModelSpec, large_model, lay_out_as_tube};
use pmx_core::model::Model;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn tube(vertices: usize) -> Model {
    let spec = LargeModelSpec::million();
    let mut model = large_model(&LargeModelSpec {
        vertices,
        faces: vertices * 2,
        ..spec
    });
    lay_out_as_tube(&mut model, 1_000);
    model
}

/// A round-ish brush: 2,000 neighbouring vertices of the tube (two rows) with a falloff.
fn stroke(mode: PaintMode, mirror: bool) -> PaintWeights {
    let vertices: Vec<usize> = (50_000..52_000).collect();
    let amounts = (0..vertices.len())
        .map(|i| 0.2 * (1.0 - (i % 1_000) as f32 / 1_000.0))
        .collect();
    PaintWeights {
        bone: BoneRef::Index(17),
        mode,
        vertices,
        amounts,
        mirror,
        max_bones: 4,
        locked: vec![BoneRef::Index(0)],
    }
}

fn paint_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("paint");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(3));
    group.warm_up_time(Duration::from_secs(1));
    for (name, vertices) in [("100k", 100_000), ("1M", 1_000_000)] {
        let mut model = tube(vertices);
        let started = Instant::now();
        let index = PaintIndex::new(&model);
        println!("paint/{name}: PaintIndex::new {:?}", started.elapsed());
        for (mode_name, mode, mirror) in [
            ("add", PaintMode::Add, false),
            ("smooth", PaintMode::Smooth, false),
            ("add_mirror", PaintMode::Add, true),
        ] {
            let paint = stroke(mode, mirror);
            let edit = Edit::paint_weights_with(&model, &paint, &index).unwrap();
            println!(
                "paint/{name}/{mode_name}: {} ({} bytes kept)",
                edit.label(),
                edit.heap_size()
            );
            group.bench_function(format!("{name}/{mode_name}_step"), |b| {
                b.iter(|| {
                    let mut edit =
                        Edit::paint_weights_with(black_box(&model), &paint, &index).unwrap();
                    black_box(edit.apply(&mut model));
                    edit.revert(&mut model);
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, paint_benches);
criterion_main!(benches);
