//! One 1/60 s physics step: of Gene (87 rigid bodies, 92 joints; from the shared corpus, skipped
//! with a printed reason without it) and of a generated model of 1,001 bodies and 1,000 joints
//! (`pmx_physics::generate::hanging_chains(100, 10)`). Each case times the world's step alone and
//! the whole frame the pose pane runs (morphs, bones before physics, the step, the bones after).
//! "world step" runs the editor's solver settings, "world step before issue 40" the settings it
//! had before (every joint spring a motor row of the solver), in the same run.
//!
//! `cargo bench -p pmx_physics --bench step`

// Benchmark code: a failed expectation is the benchmark failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use pmx_core::model::Model;
use pmx_core::pose::{Pose, PoseEvaluator};
use pmx_physics::{Engine, MmdWorld, Simulation, SolverSettings};
use std::time::Duration;

fn gene() -> Option<Model> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/pmx/pmxeditor_gene_cc_by.pmx");
    if !path.exists() {
        println!("skipped Gene: {} is absent", path.display());
        return None;
    }
    Some(
        pmx_core::formats::load_path(&path, &pmx_core::LoadOptions::default())
            .unwrap()
            .model,
    )
}

fn bench_model(c: &mut Criterion, name: &str, model: &Model) {
    let mut group = c.benchmark_group(format!("physics_step_{name}"));
    group.measurement_time(Duration::from_secs(8));
    // The world alone, on the rest pose's bones, settled for a second first.
    let mut evaluator = PoseEvaluator::new(model);
    let pose = Pose::new(model);
    evaluator.evaluate_bones(model, &pose).unwrap();
    let globals = evaluator.skeleton.globals().to_vec();
    let impulses = vec![Default::default(); model.rigid_bodies.len()];
    for (name, settings) in [
        ("world step", SolverSettings::default()),
        (
            "world step before issue 40",
            SolverSettings::BEFORE_ISSUE_40,
        ),
    ] {
        let mut world = MmdWorld::with_settings(model, settings);
        world.reset(&globals);
        let mut out = Vec::new();
        for _ in 0..60 {
            world.step(&globals, &impulses, &mut out);
        }
        group.bench_function(name, |b| {
            b.iter(|| world.step(&globals, &impulses, &mut out));
        });
    }
    for engine in Engine::ALL {
        let mut simulation = Simulation::new(model, engine);
        let mut pose = Pose::new(model);
        simulation.reset(model, &mut pose).unwrap();
        simulation.run_for(model, &mut pose, 1.0).unwrap();
        group.bench_function(format!("frame with {}", engine.id()), |b| {
            b.iter(|| simulation.step(model, &mut pose).unwrap());
        });
    }
    group.finish();
}

fn steps(c: &mut Criterion) {
    if let Some(model) = gene() {
        bench_model(c, "gene", &model);
    }
    let generated = pmx_physics::generate::hanging_chains(100, 10);
    assert_eq!(generated.rigid_bodies.len(), 1001);
    bench_model(c, "1000_bodies", &generated);
}

criterion_group!(benches, steps);
criterion_main!(benches);
