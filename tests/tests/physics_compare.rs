//! The MikuMikuDance physics and the VRM spring bones the export makes of it, side by side: for
//! each spring chain of the corpus models with physics, the angle its root bone settles at
//! under gravity in each simulation (10 s from the rest pose). `--nocapture` prints the table
//! the closing note quotes.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use glam::Vec3;
use pmx_core::model::Model;
use pmx_core::pose::Pose;
use pmx_physics::{Engine, Simulation};
use pmx_tests::corpus_model;

/// Degrees below the horizontal of a direction.
fn below_horizontal(direction: Vec3) -> f32 {
    let d = direction.normalize_or_zero();
    (-d.y).clamp(-1.0, 1.0).asin().to_degrees()
}

struct ChainAngles {
    name: String,
    rest: f32,
    mmd: f32,
    springs: f32,
}

fn settled_angles(model: &Model, seconds: f32) -> Vec<ChainAngles> {
    let mut springs = Simulation::new(model, Engine::SpringBones);
    let mut pose = Pose::new(model);
    springs.reset(model, &mut pose).unwrap();
    let spring_sim = springs.spring_simulation().expect("the springs build");
    // Each chain's root segment at rest: bone, head, rest direction.
    let roots: Vec<(String, usize, Vec3)> = (0..spring_sim.chain_count())
        .filter_map(|chain| {
            let first = spring_sim.joint_tails(chain).next()?;
            let direction = first.tail - first.head;
            (direction.length() > 1e-4).then(|| {
                (
                    spring_sim.chain_name(chain).unwrap_or("").to_owned(),
                    first.bone,
                    direction,
                )
            })
        })
        .collect();
    springs.run_for(model, &mut pose, seconds).unwrap();
    let spring_globals = springs.evaluator().skeleton.globals().to_vec();

    let mut mmd = Simulation::new(model, Engine::Mmd);
    let mut mmd_pose = Pose::new(model);
    mmd.reset(model, &mut mmd_pose).unwrap();
    mmd.run_for(model, &mut mmd_pose, seconds).unwrap();
    let mmd_globals = mmd.evaluator().skeleton.globals();

    roots
        .into_iter()
        .map(|(name, bone, direction)| ChainAngles {
            name,
            rest: below_horizontal(direction),
            mmd: below_horizontal(mmd_globals[bone].rotation * direction),
            springs: below_horizontal(spring_globals[bone].rotation * direction),
        })
        .collect()
}

#[test]
fn mmd_physics_and_exported_spring_bones_settle_side_by_side() {
    let mut all = Vec::new();
    for file in [
        "pmx/pmxeditor_gene_cc_by.pmx",
        "pmd/pmd_gene_cc_by.pmd",
        "pmd/mmdagent_sd_mei.pmd",
        "pmx/blender2pmxem_sample_finish_physics.pmx",
    ] {
        let Some(model) = corpus_model(file) else {
            return;
        };
        let chains = settled_angles(&model, 10.0);
        println!("\n{file}: {} chains", chains.len());
        println!("| chain | rest | MMD | springs | difference |");
        println!("| --- | --- | --- | --- | --- |");
        for chain in &chains {
            println!(
                "| {} | {:.1}° | {:.1}° | {:.1}° | {:+.1}° |",
                chain.name,
                chain.rest,
                chain.mmd,
                chain.springs,
                chain.springs - chain.mmd
            );
            assert!(chain.mmd.is_finite() && chain.springs.is_finite());
        }
        all.extend(chains.into_iter().map(|c| (c.springs - c.mmd).abs()));
    }
    if all.is_empty() {
        return;
    }
    all.sort_by(f32::total_cmp);
    let median = all[all.len() / 2];
    let p90 = all[(all.len() * 9) / 10];
    println!(
        "\n{} chains: median |difference| {median:.1}°, 90th percentile {p90:.1}°, largest {:.1}°",
        all.len(),
        all[all.len() - 1]
    );
    // Measured: median 0.3°, 90th percentile 13.5°, largest 62.6°. The far ones are Gene's
    // cloak (クローク) chains: the spring bones collide with the torso's colliders where the
    // MMD cloak hangs on weights (錘) that collide with nothing; and SD Mei's back hair, which
    // MMD lets swing in until its bodies touch. Before the spring's gravity took the body's
    // lever (`SwingingBody::gravity_lever`) the median was 4.4°; before the limit frame of a
    // bone hanging straight down was fixed, three chains pointed up (180° off).
    assert!(median < 1.0, "median difference {median:.1}°");
    assert!(p90 < 20.0, "90th percentile {p90:.1}°");
    let largest = all[all.len() - 1];
    assert!(largest < 70.0, "largest difference {largest:.1}°");
}
