#![allow(clippy::expect_used, clippy::unwrap_used)]
//! A figure, not a check: what a preview slider's change of one material morph and of one UV
//! morph costs the view on the generated 1,000,000-vertex benchmark model (300 morphs of
//! every kind, 40 materials), on the CPU side: the morphs evaluated
//! (`pmx_core::pose::MorphEvaluator`, which also sums the vertex morphs' weights), and what the
//! scene does with the result: the UVs the UV morphs move queued as a partial upload
//! (`ViewScene::show_posed_uvs`), the material states taken into the frame
//! (`ViewScene::set_material_morphs`, `frame::posed_material_draws`). Skinning and the posed
//! positions' upload are the pose preview's own cost and not counted here.
//!
//! Ignored by default (building the model takes a while in a debug build). Run:
//! `cargo test -p pmx_view --release --test morph_preview_figures -- --ignored --nocapture`.

use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::model::{Model, MorphOffsets};
use pmx_core::pose::{MorphEvaluator, Skeleton};
use pmx_scene::frame::posed_material_draws;
use pmx_scene::scene::{PosedUvs, ViewScene};
use std::time::{Duration, Instant};

fn first_morph(model: &Model, kind: impl Fn(&MorphOffsets) -> bool) -> usize {
    model
        .morphs
        .iter()
        .position(|m| kind(&m.offsets))
        .expect("the benchmark model has every morph kind")
}

/// The median of `runs` timings of `step` (each given its run number).
fn median(runs: usize, mut step: impl FnMut(usize)) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|run| {
            let started = Instant::now();
            step(run);
            started.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

#[test]
#[ignore = "a figure on the 1,000,000-vertex model; run with --ignored --nocapture"]
fn preview_slider_changes_on_the_million_vertex_model() {
    let model = large_model(&LargeModelSpec::million());
    let material = first_morph(&model, |o| matches!(o, MorphOffsets::Material(_)));
    let uv = first_morph(&model, |o| matches!(o, MorphOffsets::Uv(_)));
    let mut evaluator = MorphEvaluator::new(&model);
    let mut skeleton = Skeleton::new(&model);
    let mut scene = ViewScene::default();
    let mut values = vec![0.0f32; model.morphs.len()];
    let uv_vertices = evaluator.uv_morphed_vertices().len();

    let material_change = median(9, |run| {
        values[material] = (run % 4) as f32 * 0.25 + 0.1;
        skeleton.reset();
        evaluator.evaluate(&model, &values, &mut skeleton);
        scene.set_material_morphs(&model, Some(evaluator.materials()));
        let draws = posed_material_draws(&model, |_| false, scene.material_morphs());
        assert_eq!(draws.len(), model.materials.len());
    });
    let mut queued = 0;
    let uv_change = median(9, |run| {
        values[uv] = (run % 4) as f32 * 0.25 + 0.1;
        skeleton.reset();
        evaluator.evaluate(&model, &values, &mut skeleton);
        scene.clear_pending();
        scene.show_posed_uvs(
            &model,
            Some(PosedUvs {
                uvs: evaluator.uvs(),
                vertices: evaluator.uv_morphed_vertices(),
                weights: evaluator.offset_morph_weights(),
            }),
        );
        queued = scene.pending().len();
    });
    let scene_only = median(9, |run| {
        values[uv] = (run % 4) as f32 * 0.25 + 0.3;
        scene.clear_pending();
        let mut changed = evaluator.offset_morph_weights().to_vec();
        changed[uv] = values[uv];
        scene.show_posed_uvs(
            &model,
            Some(PosedUvs {
                uvs: evaluator.uvs(),
                vertices: evaluator.uv_morphed_vertices(),
                weights: &changed,
            }),
        );
    });
    println!(
        "1,000,000 vertices, {} morphs, {} materials ({} UV-morphed vertices)",
        model.morphs.len(),
        model.materials.len(),
        uv_vertices
    );
    println!("material morph change (evaluate + frame values): {material_change:?}");
    println!("UV morph change (evaluate + queue {queued} UV runs): {uv_change:?}");
    println!("  of which the scene's UV upload queueing: {scene_only:?}");
}
