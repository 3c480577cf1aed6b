//! The UV pane's and `pmx-studio uv-layout`'s work: building the UV wireframe (distinct edges
//! and seams) of every material of the generated 1,000,000-vertex model (2,000,000 triangles),
//! as generated (triangles joining far-apart vertices) and laid out as a tube (neighbouring
//! vertices, as on a real mesh); and drawing the layout of the textured sample at 2048×2048,
//! on transparency and over a texture.
//!
//! `cargo bench -p pmx_core --bench uv_layout -- --warm-up-time 1 --measurement-time 3`
//!
//! Goal (issue 37): the wireframe is built when the pane's materials change, not per frame;
//! on 1M vertices it should take a fraction of a second. Measured when it was written (2
//! cores shared with other builds, so on the slow side): the wireframe 482 ms (as generated,
//! 2,000,000 edges) and 566 ms (tube, 2,998,000 edges); the layout at 2048 of one material
//! 18 ms on transparency, 135 ms over its texture (mostly scaling the texture), every material
//! 74 ms.

// Test and benchmark code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use pmx_core::generate::{LargeModelSpec, large_model, lay_out_as_tube, textured_model};
use pmx_core::uv::{UvLayoutOptions, render_uv_layout, uv_wireframe};
use std::hint::black_box;
use std::time::Duration;

fn wireframe_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("uv_wireframe");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(3));
    group.warm_up_time(Duration::from_secs(1));
    let generated = large_model(&LargeModelSpec::million());
    let mut tube = generated.clone();
    lay_out_as_tube(&mut tube, 1_000);
    for (name, model) in [("1M", &generated), ("1M_tube", &tube)] {
        let wireframe = uv_wireframe(model, &[], 0);
        println!(
            "uv_wireframe/{name}: {} edges, {} seams, {} materials",
            wireframe.edges.len(),
            wireframe.edges.iter().filter(|edge| edge.seam).count(),
            wireframe.materials.len()
        );
        group.bench_function(format!("{name}/all_materials"), |b| {
            b.iter(|| black_box(uv_wireframe(black_box(model), &[], 0)));
        });
    }
    group.finish();
}

fn render_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("render_uv_layout");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(3));
    group.warm_up_time(Duration::from_secs(1));
    let textured = textured_model();
    let dir = tempfile::tempdir().unwrap();
    textured.write(dir.path(), "textured.pmx").unwrap();
    let model = &textured.model;
    for (name, texture) in [("2048/transparent", false), ("2048/texture", true)] {
        let options = UvLayoutOptions {
            materials: vec![2],
            texture,
            ..UvLayoutOptions::default()
        };
        group.bench_function(name, |b| {
            b.iter(|| black_box(render_uv_layout(model, Some(dir.path()), &options).unwrap()));
        });
    }
    let every_material = UvLayoutOptions::default();
    group.bench_function("2048/all_materials", |b| {
        b.iter(|| black_box(render_uv_layout(model, Some(dir.path()), &every_material).unwrap()));
    });
    group.finish();
}

criterion_group!(benches, wireframe_benches, render_benches);
criterion_main!(benches);
