//! The MikuMikuDance physics world (`pmx_physics`): a pendulum settles where its spring and
//! gravity balance, joint limits hold, runs are deterministic, and no corpus model goes NaN or
//! explodes over 10 simulated seconds.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use glam::{Quat, Vec3};
use pmx_core::model::{JointKind, Model};
use pmx_core::pose::{PhysicsBone, Pose, Transform};
use pmx_physics::generate::{PENDULUM_ARM, PENDULUM_MASS, PENDULUM_PIVOT, pendulum};
use pmx_physics::{BodyMotion, Engine, MmdWorld, Simulation};
use pmx_tests::{corpus_dir, files_with_extension};

const GRAVITY: f32 = 98.0;
const PIVOT: Vec3 = PENDULUM_PIVOT;
const ARM: f32 = PENDULUM_ARM;
const MASS: f32 = PENDULUM_MASS;

/// The bob's angle about Z (radians; negative is down from +X).
fn bob_angle(world: &MmdWorld) -> f32 {
    let bob = world.body(1).unwrap().transform.translation - glam::Vec3A::from(PIVOT);
    bob.y.atan2(bob.x)
}

fn run(model: &Model, seconds: f32) -> (Simulation, Pose) {
    let mut simulation = Simulation::new(model, Engine::Mmd);
    let mut pose = Pose::new(model);
    simulation.reset(model, &mut pose).unwrap();
    simulation.run_for(model, &mut pose, seconds).unwrap();
    (simulation, pose)
}

/// Where `k·θ = m·g·r·cos θ` (θ below the horizontal), by bisection.
fn spring_equilibrium(spring: f32) -> f32 {
    let (mut low, mut high) = (0.0f32, std::f32::consts::FRAC_PI_2);
    for _ in 0..60 {
        let mid = 0.5 * (low + high);
        if spring * mid < MASS * GRAVITY * ARM * mid.cos() {
            low = mid;
        } else {
            high = mid;
        }
    }
    0.5 * (low + high)
}

#[test]
fn a_pendulum_settles_where_its_joint_spring_and_gravity_balance() {
    // Tolerance 0.1° (measured: within 0.03°): the joint spring is a motor row of the solver,
    // which a 1/60 s step of 8 substeps × 4 passes brings to the balance.
    for spring in [150.0f32, 300.0, 600.0, 2000.0] {
        let model = pendulum((-std::f32::consts::PI, std::f32::consts::PI), spring);
        let (simulation, _) = run(&model, 20.0);
        let world = simulation.mmd_world().unwrap();
        let settled = -bob_angle(world);
        let predicted = spring_equilibrium(spring);
        println!(
            "spring {spring}: settled {:.3}°, predicted {:.3}°",
            settled.to_degrees(),
            predicted.to_degrees()
        );
        assert!(
            (settled - predicted).abs().to_degrees() < 0.1,
            "spring {spring}: settled at {:.3}°, the balance is at {:.3}°",
            settled.to_degrees(),
            predicted.to_degrees()
        );
        // The arm keeps its length (the linear axes are locked).
        let bob = world.body(1).unwrap().transform.translation - glam::Vec3A::from(PIVOT);
        assert!((bob.length() - ARM).abs() < 1e-2, "arm {}", bob.length());
        assert_eq!(world.stats().recovered_bodies, 0);
    }
}

#[test]
fn without_a_spring_the_pendulum_hangs_straight_down() {
    let model = pendulum((-std::f32::consts::PI, std::f32::consts::PI), 0.0);
    let (simulation, pose) = run(&model, 20.0);
    let angle = bob_angle(simulation.mmd_world().unwrap()).to_degrees();
    assert!((angle + 90.0).abs() < 0.5, "hangs at {angle}°");
    // The bob's bone turned with its body: its tail direction (+X at rest) points down.
    let bone = pose.physics.iter().find(|p| p.bone == 1).unwrap().transform;
    let direction = bone.rotation * Vec3::X;
    assert!(direction.y < -0.99, "bone points {direction}");
}

#[test]
fn joint_rotation_limits_hold_while_gravity_pulls_past_them() {
    // The limit is ±30°; gravity pulls the bob to −90°. Stated tolerance: 1°.
    let limit = 30f32.to_radians();
    let model = pendulum((-limit, limit), 0.0);
    let mut simulation = Simulation::new(&model, Engine::Mmd);
    let mut pose = Pose::new(&model);
    simulation.reset(&model, &mut pose).unwrap();
    let mut lowest = 0.0f32;
    for _ in 0..600 {
        simulation.step(&model, &mut pose).unwrap();
        lowest = lowest.min(bob_angle(simulation.mmd_world().unwrap()));
    }
    println!("lowest {:.3}° against a limit of −30°", lowest.to_degrees());
    assert!(
        lowest.to_degrees() > -31.0,
        "went to {:.3}°, the limit is −30°",
        lowest.to_degrees()
    );
    let settled = bob_angle(simulation.mmd_world().unwrap()).to_degrees();
    assert!((settled + 30.0).abs() < 1.0, "rests at {settled}°");
}

/// Per limited angular axis of every joint: how far the joint's rotation went past its limit
/// (radians), measured as the solver measures it: twice the angle of the relative rotation's
/// half-angle component about that axis.
fn worst_limit_excess(model: &Model, transforms: &[Transform]) -> (f32, usize) {
    let mut worst = (0.0f32, usize::MAX);
    for (index, joint) in model.joints.iter().enumerate() {
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
        let rest_transform =
            |body: &pmx_core::model::RigidBody| Transform::placed(body.position, body.rotation);
        let frame_a = rest_transform(&model.rigid_bodies[a])
            .inverse()
            .compose(&frame);
        let frame_b = rest_transform(&model.rigid_bodies[b])
            .inverse()
            .compose(&frame);
        let world_a = transforms[a].compose(&frame_a);
        let world_b = transforms[b].compose(&frame_b);
        let relative: Quat = (world_a.rotation.conjugate() * world_b.rotation).normalize();
        let relative = if relative.w < 0.0 {
            -relative
        } else {
            relative
        };
        let lower: Vec3 = joint.rotate_lower.into();
        let upper: Vec3 = joint.rotate_upper.into();
        for axis in 0..3 {
            let (lo, hi) = (lower[axis], upper[axis]);
            if lo > hi {
                continue;
            }
            let component = [relative.x, relative.y, relative.z][axis];
            let angle = 2.0 * component.atan2(relative.w);
            let excess = (lo - angle).max(angle - hi).max(0.0);
            if excess > worst.0 {
                worst = (excess, index);
            }
        }
    }
    worst
}

fn corpus_physics_models() -> Vec<(String, Model)> {
    let mut models = Vec::new();
    for (sub, extension) in [("pmx", "pmx"), ("pmd", "pmd")] {
        let Some(dir) = corpus_dir(sub) else {
            continue;
        };
        for path in files_with_extension(&dir, extension) {
            let Ok(loaded) = pmx_core::formats::load_path(&path, &pmx_core::LoadOptions::default())
            else {
                continue;
            };
            if !loaded.model.rigid_bodies.is_empty() {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                models.push((name, loaded.model));
            }
        }
    }
    models
}

#[test]
fn no_corpus_model_goes_nan_or_explodes_in_ten_seconds() {
    let models = corpus_physics_models();
    if models.is_empty() {
        println!("skipped: no corpus model with rigid bodies");
        return;
    }
    for (name, model) in &models {
        let mut simulation = Simulation::new(model, Engine::Mmd);
        let mut pose = Pose::new(model);
        simulation.reset(model, &mut pose).unwrap();
        let mut transforms = Vec::new();
        let mut worst_excess = (0.0f32, usize::MAX);
        let mut fastest = 0.0f32;
        for _ in 0..600 {
            simulation.step(model, &mut pose).unwrap();
            let world = simulation.mmd_world().unwrap();
            world.body_transforms(&mut transforms);
            for (index, t) in transforms.iter().enumerate() {
                assert!(
                    t.translation.is_finite() && t.rotation.is_finite(),
                    "{name}: body {index} is not finite"
                );
                if let Some(state) = world.body(index)
                    && state.motion != BodyMotion::FollowsBone
                {
                    fastest = fastest.max(state.linear_velocity.length());
                }
            }
            let excess = worst_limit_excess(model, &transforms);
            if excess.0 > worst_excess.0 {
                worst_excess = excess;
            }
            for entry in &pose.physics {
                let t = entry.transform;
                assert!(
                    t.translation.is_finite() && t.rotation.is_finite(),
                    "{name}: bone {} is not finite",
                    entry.bone
                );
            }
        }
        let world = simulation.mmd_world().unwrap();
        // Settled: after 10 s at rest nothing still flies about (a body moving at 10 units/s,
        // 80 cm/s, ten seconds after the start has exploded or oscillates).
        let mut settled_speed = 0.0f32;
        for index in 0..model.rigid_bodies.len() {
            if let Some(state) = world.body(index)
                && state.motion != BodyMotion::FollowsBone
            {
                settled_speed = settled_speed.max(state.linear_velocity.length());
            }
        }
        println!(
            "{name}: {} bodies, {} joints in the world, fastest {fastest:.1} units/s, \
             at 10 s {settled_speed:.2} units/s, worst limit excess {:.2}° (joint {}), recovered {}",
            model.rigid_bodies.len(),
            world.joint_count(),
            worst_excess.0.to_degrees(),
            worst_excess.1 as isize,
            world.stats().recovered_bodies,
        );
        assert_eq!(world.stats().recovered_bodies, 0, "{name}: bodies ran away");
        assert!(
            settled_speed < 10.0,
            "{name}: still moving at {settled_speed} units/s"
        );
        // Stated tolerance 4° (measured worst: 2.6°, SD Mei's ribbon in its first swing).
        assert!(
            worst_excess.0.to_degrees() < 4.0,
            "{name}: joint {} went {:.2}° past its limit",
            worst_excess.1,
            worst_excess.0.to_degrees()
        );
    }
}

#[test]
fn the_same_run_twice_gives_the_same_bits() {
    let models = corpus_physics_models();
    let Some((name, model)) = models
        .iter()
        .find(|(name, _)| name.contains("gene"))
        .or(models.first())
    else {
        println!("skipped: no corpus model with rigid bodies");
        return;
    };
    let runs: Vec<Vec<PhysicsBone>> = (0..2)
        .map(|_| {
            let (_, pose) = run(model, 5.0);
            pose.physics
        })
        .collect();
    assert!(!runs[0].is_empty(), "{name}: no bone moved by physics");
    assert_eq!(runs[0].len(), runs[1].len());
    for (entry_a, entry_b) in runs[0].iter().zip(&runs[1]) {
        let (bone_a, a, b) = (entry_a.bone, &entry_a.transform, &entry_b.transform);
        assert_eq!(bone_a, entry_b.bone);
        let bits = |t: &Transform| {
            let r = t.rotation.to_array();
            let p = t.translation.to_array();
            (r.map(f32::to_bits), p.map(f32::to_bits))
        };
        assert_eq!(
            bits(a),
            bits(b),
            "{name}: bone {bone_a} differs between two runs"
        );
    }
}

#[test]
fn a_thousand_bodies_stay_finite_and_settle() {
    let model = pmx_physics::generate::hanging_chains(100, 10);
    let (simulation, pose) = run(&model, 10.0);
    let world = simulation.mmd_world().unwrap();
    assert_eq!(world.stats().recovered_bodies, 0);
    assert_eq!(world.joint_count(), 1000);
    let mut fastest = 0.0f32;
    for index in 0..model.rigid_bodies.len() {
        let state = world.body(index).unwrap();
        assert!(state.transform.translation.is_finite());
        fastest = fastest.max(state.linear_velocity.length());
    }
    assert!(
        fastest < 1.0,
        "still moving at {fastest} units/s after 10 s"
    );
    assert_eq!(
        pose.physics.len(),
        1000,
        "every link's bone follows its body"
    );
}

#[test]
fn imported_vrm_spring_bones_run_in_both_engines() {
    let Some(dir) = corpus_dir("vrm") else {
        return;
    };
    let mut with_springs = 0;
    for path in files_with_extension(&dir, "vrm") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.contains("BROKEN") {
            continue;
        }
        let Ok(loaded) = pmx_core::formats::load_path(&path, &pmx_core::LoadOptions::default())
        else {
            continue;
        };
        let model = loaded.model;
        for engine in Engine::ALL {
            let mut simulation = Simulation::new(&model, engine);
            let mut pose = Pose::new(&model);
            simulation.reset(&model, &mut pose).unwrap();
            simulation.run_for(&model, &mut pose, 10.0).unwrap();
            assert!(
                pose.physics.iter().all(
                    |p| p.transform.translation.is_finite() && p.transform.rotation.is_finite()
                ),
                "{name} ({}): a bone is not finite",
                engine.id()
            );
            if let Some(world) = simulation.mmd_world() {
                assert_eq!(world.stats().recovered_bodies, 0, "{name}: bodies ran away");
            }
            if let Some((chains, joints)) = simulation.spring_counts() {
                println!("{name}: {chains} spring chains, {joints} joints");
                if chains > 0 {
                    with_springs += 1;
                }
            }
        }
    }
    println!("{with_springs} imported VRMs ran their spring bones");
    assert!(with_springs >= 2, "the corpus has VRMs with spring bones");
}

#[test]
fn a_pose_that_is_not_finite_never_reaches_the_bones_as_nan() {
    let model = pendulum((-3.0, 3.0), 0.0);
    let mut simulation = Simulation::new(&model, Engine::Mmd);
    let mut pose = Pose::new(&model);
    simulation.reset(&model, &mut pose).unwrap();
    pose.bones[0].translation = Vec3::new(f32::NAN, 0.0, f32::INFINITY);
    for _ in 0..30 {
        simulation.step(&model, &mut pose).unwrap();
    }
    for entry in &pose.physics {
        assert!(
            entry.transform.rotation.is_finite() && entry.transform.translation.is_finite(),
            "bone {} got a transform that is not finite",
            entry.bone
        );
    }
    let world = simulation.mmd_world().unwrap();
    assert!(world.body(1).unwrap().transform.translation.is_finite());
}
