//! Built-in tools on the generated 1,000,000-vertex model (2,000,000 triangles, 800 bones, 300
//! morphs, 200 rigid bodies, 200 joints): the whole run as the editor does it (the plugin reads
//! the model, the host builds its batch into one edit), then applying and undoing that edit.
//!
//! `cargo bench -p pmx_plugins --bench tools`

// Benchmark code: a failed expectation is the benchmark failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_plugins::{Options, PluginSelection, Registry, run_plugin};
use serde_json::json;
use std::time::{Duration, Instant};

fn tools(c: &mut Criterion) {
    let mut model = large_model(&LargeModelSpec::million());
    let registry = Registry::builtin();
    let cases = [
        ("flip_normals", json!({})),
        ("recompute_normals", json!({})),
        ("transform_model", json!({"scale": 2.0, "rotate_y": 30.0})),
        ("normalize_weights", json!({})),
        ("clean_weights", json!({})),
        ("weld_vertices", json!({})),
        ("remove_unused_vertices", json!({})),
    ];
    let mut group = c.benchmark_group("tools_1m");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    for (id, options) in cases {
        let plugin = registry.find(id).unwrap();
        let options = Options::from_json(&plugin.info().options, &options).unwrap();
        let selection = PluginSelection::new();
        group.bench_function(format!("{id}: run and build"), |b| {
            b.iter(|| run_plugin(plugin.as_ref(), &mut model, &selection, &options).ok());
        });
        // Apply and undo once, timed by hand (an edit a tool made is applied once).
        if let Ok(mut run) = run_plugin(plugin.as_ref(), &mut model, &selection, &options) {
            let started = Instant::now();
            run.edit.apply(&mut model);
            let applied = started.elapsed();
            let started = Instant::now();
            run.edit.revert(&mut model);
            println!(
                "{id}: apply {:.1} ms, undo {:.1} ms, {} KiB of history",
                applied.as_secs_f64() * 1000.0,
                started.elapsed().as_secs_f64() * 1000.0,
                run.edit.heap_size() / 1024
            );
        } else {
            println!("{id}: nothing to do on this model");
        }
    }
    group.finish();
}

criterion_group!(benches, tools);
criterion_main!(benches);
