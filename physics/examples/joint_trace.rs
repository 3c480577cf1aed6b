//! Traces one joint's relative rotation per axis over a run (a diagnostic for tuning).
#![allow(clippy::unwrap_used, clippy::expect_used)]
use pmx_physics::placement::{joint_transform, rest_transform};
fn main() {
    let path = std::env::args().nth(1).expect("model");
    let j: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    let model = pmx_core::formats::load_path(
        std::path::Path::new(&path),
        &pmx_core::LoadOptions::default(),
    )
    .unwrap()
    .model;
    let mut model = model;
    if std::env::var("ONLY").is_ok() {
        let keep = model.joints[j].clone();
        let next = model.joints[j + 1].clone();
        model.joints = vec![keep, next];
    }
    let j = if std::env::var("ONLY").is_ok() { 0 } else { j };
    if let Ok(r) = std::env::var("ROT") {
        let b = model.joints[j].body_b.unwrap().get();
        let v: Vec<f32> = r.split(',').map(|x| x.parse().unwrap()).collect();
        model.rigid_bodies[b].rotation = pmx_core::model::Vec3::new(v[0], v[1], v[2]);
    }
    let mut sim = pmx_physics::Simulation::new(&model, pmx_physics::Engine::Mmd);
    let mut pose = pmx_core::pose::Pose::new(&model);
    sim.reset(&model, &mut pose).unwrap();
    let joint = &model.joints[j];
    let (a, b) = (joint.body_a.unwrap().get(), joint.body_b.unwrap().get());
    let frame = joint_transform(joint.position.into(), joint.rotation.into());
    let fa = rest_transform(&model.rigid_bodies[a])
        .inverse()
        .compose(&frame);
    let fb = rest_transform(&model.rigid_bodies[b])
        .inverse()
        .compose(&frame);
    let mut ts = Vec::new();
    for step in 0..600 {
        sim.step(&model, &mut pose).unwrap();
        sim.mmd_world().unwrap().body_transforms(&mut ts);
        let wa = ts[a].compose(&fa);
        let wb = ts[b].compose(&fb);
        let mut q = (wa.rotation.conjugate() * wb.rotation).normalize();
        if q.w < 0.0 {
            q = -q;
        }
        let ang = [q.x, q.y, q.z].map(|c| (2.0 * c.atan2(q.w)).to_degrees());
        let sep = (wb.translation - wa.translation).length();
        if step % 30 == 0 {
            println!(
                "{step:4} x {:7.2} y {:7.2} z {:7.2} sep {sep:.4}",
                ang[0], ang[1], ang[2]
            );
        }
    }
}
