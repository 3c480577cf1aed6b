//! Prints the fastest bodies after a run (a diagnostic for tuning).
#![allow(clippy::unwrap_used, clippy::expect_used)]
fn main() {
    let path = std::env::args().nth(1).expect("model");
    let seconds: f32 = std::env::args().nth(2).map_or(10.0, |s| s.parse().unwrap());
    let model = pmx_core::formats::load_path(
        std::path::Path::new(&path),
        &pmx_core::LoadOptions::default(),
    )
    .unwrap()
    .model;
    let mut sim = pmx_physics::Simulation::new(&model, pmx_physics::Engine::Mmd);
    let mut pose = pmx_core::pose::Pose::new(&model);
    sim.reset(&model, &mut pose).unwrap();
    sim.run_for(&model, &mut pose, seconds).unwrap();
    let world = sim.mmd_world().unwrap();
    let mut rows: Vec<_> = (0..model.rigid_bodies.len())
        .filter_map(|i| world.body(i).map(|s| (i, s)))
        .collect();
    rows.sort_by(|a, b| {
        b.1.linear_velocity
            .length()
            .total_cmp(&a.1.linear_velocity.length())
    });
    for (i, s) in rows.iter().take(12) {
        let b = &model.rigid_bodies[*i];
        println!(
            "{i:3} {:<12} mode {:?} group {} mask {:04x} shape {:?} v {:.2} w {:.2}",
            b.name_ja.as_str(),
            b.mode,
            b.group,
            b.non_collision_mask,
            b.shape,
            s.linear_velocity.length(),
            s.angular_velocity.length()
        );
    }
    for n in world.notes() {
        println!("note: {n}");
    }
}
