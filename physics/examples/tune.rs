//! Compares solver settings on what the physics tests measure (a diagnostic for tuning): the
//! pendulum's spring balance, its joint limit, every corpus model's worst joint-limit excess
//! over 10 s, and the step time of the 1,001-body model and of Gene.
//!
//! `cargo run --release -p pmx_physics --example tune -- 8x4 4x2w ...` (substeps x passes,
//! `w` joint warm start, `s` sleep, `eN` explicit springs up to a pull of N, `e` all; the corpus folder is `PMX_STUDIO_CORPUS` or
//! `/work/shared/corpus`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use glam::{Quat, Vec3};
use pmx_core::model::{JointKind, Model};
use pmx_core::pose::{Pose, PoseEvaluator, Transform};
use pmx_physics::generate::{PENDULUM_ARM, PENDULUM_MASS, PENDULUM_PIVOT, pendulum};
use pmx_physics::{Engine, MmdWorld, Simulation, SolverSettings};
use std::time::Instant;

fn parse(spec: &str) -> SolverSettings {
    let (substeps, rest) = spec.split_once('x').expect("NxM");
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let flags = &rest[digits.len()..];
    SolverSettings {
        substeps: substeps.parse().unwrap(),
        pgs_iterations: digits.parse().unwrap(),
        warmstart_joints: flags.contains('w'),
        sleep: flags.contains('s'),
        explicit_spring_limit: flags
            .split_once('e')
            .map_or(0.0, |(_, limit)| limit.parse().unwrap_or(f32::INFINITY)),
    }
}

fn bob_angle(world: &MmdWorld) -> f32 {
    let bob = world.body(1).unwrap().transform.translation - glam::Vec3A::from(PENDULUM_PIVOT);
    bob.y.atan2(bob.x)
}

fn spring_equilibrium(spring: f32) -> f32 {
    let (mut low, mut high) = (0.0f32, std::f32::consts::FRAC_PI_2);
    for _ in 0..60 {
        let mid = 0.5 * (low + high);
        if spring * mid < PENDULUM_MASS * 98.0 * PENDULUM_ARM * mid.cos() {
            low = mid;
        } else {
            high = mid;
        }
    }
    0.5 * (low + high)
}

fn worst_limit_excess(model: &Model, transforms: &[Transform]) -> f32 {
    let mut worst = 0.0f32;
    for joint in &model.joints {
        if joint.kind != JointKind::Spring6Dof && joint.kind != JointKind::SixDof {
            continue;
        }
        let (Some(a), Some(b)) = (joint.body_a, joint.body_b) else {
            continue;
        };
        let (a, b) = (a.get(), b.get());
        if a == b || a >= transforms.len() || b >= transforms.len() {
            continue;
        }
        let frame = Transform::placed(joint.position, joint.rotation);
        let rest =
            |body: &pmx_core::model::RigidBody| Transform::placed(body.position, body.rotation);
        let frame_a = rest(&model.rigid_bodies[a]).inverse().compose(&frame);
        let frame_b = rest(&model.rigid_bodies[b]).inverse().compose(&frame);
        let world_a = transforms[a].compose(&frame_a);
        let world_b = transforms[b].compose(&frame_b);
        let mut relative: Quat = (world_a.rotation.conjugate() * world_b.rotation).normalize();
        if relative.w < 0.0 {
            relative = -relative;
        }
        let lower: Vec3 = joint.rotate_lower.into();
        let upper: Vec3 = joint.rotate_upper.into();
        for axis in 0..3 {
            let (lo, hi) = (lower[axis], upper[axis]);
            if lo > hi {
                continue;
            }
            let component = [relative.x, relative.y, relative.z][axis];
            let angle = 2.0 * component.atan2(relative.w);
            worst = worst.max((lo - angle).max(angle - hi).max(0.0));
        }
    }
    worst
}

fn step_time(model: &Model, settings: SolverSettings) -> f64 {
    let mut evaluator = PoseEvaluator::new(model);
    evaluator.evaluate_bones(model, &Pose::new(model)).unwrap();
    let globals = evaluator.skeleton.globals().to_vec();
    let impulses = vec![Default::default(); model.rigid_bodies.len()];
    let mut world = MmdWorld::with_settings(model, settings);
    world.reset(&globals);
    let mut out = Vec::new();
    for _ in 0..60 {
        world.step(&globals, &impulses, &mut out);
    }
    let mut times: Vec<f64> = (0..200)
        .map(|_| {
            let started = Instant::now();
            world.step(&globals, &impulses, &mut out);
            started.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let corpus = std::env::var("PMX_STUDIO_CORPUS").unwrap_or("/work/shared/corpus".into());
    let mut models = Vec::new();
    for sub in ["pmx", "pmd"] {
        let Ok(dir) = std::fs::read_dir(format!("{corpus}/{sub}")) else {
            continue;
        };
        let mut paths: Vec<_> = dir.flatten().map(|e| e.path()).collect();
        paths.sort();
        for path in paths {
            if let Ok(loaded) =
                pmx_core::formats::load_path(&path, &pmx_core::LoadOptions::default())
                && !loaded.model.rigid_bodies.is_empty()
            {
                models.push((
                    path.file_name().unwrap().to_string_lossy().into_owned(),
                    loaded.model,
                ));
            }
        }
    }
    let generated = pmx_physics::generate::hanging_chains(100, 10);
    for spec in std::env::args().skip(1) {
        let settings = parse(&spec);
        let mut spring_error = 0.0f32;
        for spring in [150.0f32, 300.0, 600.0, 2000.0] {
            let model = pendulum((-std::f32::consts::PI, std::f32::consts::PI), spring);
            let mut simulation = Simulation::with_settings(&model, Engine::Mmd, settings);
            let mut pose = Pose::new(&model);
            simulation.reset(&model, &mut pose).unwrap();
            simulation.run_for(&model, &mut pose, 20.0).unwrap();
            let settled = -bob_angle(simulation.mmd_world().unwrap());
            if std::env::var_os("TUNE_VERBOSE").is_some() {
                println!(
                    "{spec} spring {spring}: settled {:.3}°, balance {:.3}°",
                    settled.to_degrees(),
                    spring_equilibrium(spring).to_degrees()
                );
            }
            spring_error = spring_error.max((settled - spring_equilibrium(spring)).abs());
        }
        let limit = 30f32.to_radians();
        let model = pendulum((-limit, limit), 0.0);
        let mut simulation = Simulation::with_settings(&model, Engine::Mmd, settings);
        let mut pose = Pose::new(&model);
        simulation.reset(&model, &mut pose).unwrap();
        let mut lowest = 0.0f32;
        for _ in 0..600 {
            simulation.step(&model, &mut pose).unwrap();
            lowest = lowest.min(bob_angle(simulation.mmd_world().unwrap()));
        }
        let mut corpus_worst = (0.0f32, String::new());
        let mut corpus_recovered = 0;
        let mut corpus_settled = 0.0f32;
        for (name, model) in &models {
            let mut simulation = Simulation::with_settings(model, Engine::Mmd, settings);
            let mut pose = Pose::new(model);
            simulation.reset(model, &mut pose).unwrap();
            let mut transforms = Vec::new();
            for _ in 0..600 {
                simulation.step(model, &mut pose).unwrap();
                let world = simulation.mmd_world().unwrap();
                world.body_transforms(&mut transforms);
                let excess = worst_limit_excess(model, &transforms);
                if excess > corpus_worst.0 {
                    corpus_worst = (excess, name.clone());
                }
            }
            let world = simulation.mmd_world().unwrap();
            corpus_recovered += world.stats().recovered_bodies;
            for index in 0..model.rigid_bodies.len() {
                if let Some(state) = world.body(index)
                    && state.motion != pmx_physics::BodyMotion::FollowsBone
                {
                    corpus_settled = corpus_settled.max(state.linear_velocity.length());
                }
            }
        }
        let gene = models
            .iter()
            .find(|(name, _)| name == "pmxeditor_gene_cc_by.pmx")
            .map_or(f64::NAN, |(_, model)| step_time(model, settings));
        println!(
            "{spec:>6}: 1000 bodies {:.2} ms, Gene {gene:.3} ms | spring error {:.3}°, limit lowest {:.2}°, \
             corpus worst excess {:.2}° ({}), settled {corpus_settled:.2} u/s, recovered {corpus_recovered}",
            step_time(&generated, settings),
            spring_error.to_degrees(),
            lowest.to_degrees(),
            corpus_worst.0.to_degrees(),
            corpus_worst.1,
        );
    }
}
