// Test and benchmark code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]
//! One frame of the pose engine on the generated 1,000,000-vertex model (800 bones with IK and
//! append, 300 morphs of every kind): morphs, bones, skinning, and the parts apart. Also counts
//! the heap allocations of a frame (the goal is none).
//!
//! Also a weight brush's step: `update_weights` of 2,000 vertices on the 100k and 1M models.
//!
//! `cargo bench -p pmx_core --bench pose`

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::model::Model;
use pmx_core::pose::{Pose, PoseEvaluator};
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts allocations, so the benchmark can show that a frame makes none.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: forwards the caller's layout to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as `GlobalAlloc::realloc`, forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A pose that moves every bone (IK bones by translation, so every IK solves) and sets every
/// morph, different for each `frame` so nothing is the same as the frame before.
fn animate(model: &Model, pose: &mut Pose, frame: u32) {
    let t = frame as f32 * 0.01;
    for (i, (bone, slot)) in model.bones.iter().zip(&mut pose.bones).enumerate() {
        let phase = t + i as f32 * 0.1;
        slot.rotation = pmx_core::model::facts::euler_to_quat(pmx_core::model::Vec3::new(
            phase.cos() * 0.2,
            phase.sin() * 0.3,
            0.1,
        ));
        slot.translation = if bone.is_ik() {
            Vec3::new(phase.sin(), 0.5 + phase.cos(), 0.3)
        } else {
            Vec3::ZERO
        };
    }
    for (i, value) in pose.morphs.iter_mut().enumerate() {
        *value = 0.5 + 0.5 * (t + i as f32).sin();
    }
}

fn pose_frame(c: &mut Criterion) {
    let model = large_model(&LargeModelSpec::million());
    let num_ik = model.bones.iter().filter(|b| b.is_ik()).count();
    let num_append = model.bones.iter().filter(|b| b.has_append()).count();
    println!(
        "model: {} vertices, {} bones ({num_ik} IK, {num_append} append), {} morphs",
        model.vertices.len(),
        model.bones.len(),
        model.morphs.len()
    );
    let mut pose = Pose::new(&model);
    let mut evaluator = PoseEvaluator::new(&model);
    animate(&model, &mut pose, 0);
    if let Err(error) = evaluator.evaluate(&model, &pose) {
        panic!("{error}");
    }
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for frame in 1..=10 {
        animate(&model, &mut pose, frame);
        let _ = evaluator.evaluate(&model, &pose);
    }
    println!(
        "heap allocations in 10 frames after the first: {}",
        ALLOCATIONS.load(Ordering::Relaxed) - before
    );

    let mut group = c.benchmark_group("pose");
    group.sample_size(30);
    let mut frame = 0;
    group.bench_function(
        "full frame: morphs + bones (IK, append) + skinning 1M",
        |b| {
            b.iter(|| {
                frame += 1;
                animate(&model, &mut pose, frame);
                black_box(evaluator.evaluate(&model, &pose))
            })
        },
    );
    group.bench_function("morphs + bones, no skinning", |b| {
        b.iter(|| {
            frame += 1;
            animate(&model, &mut pose, frame);
            black_box(evaluator.evaluate_bones(&model, &pose))
        })
    });
    group.bench_function("skinning 1M only", |b| {
        b.iter(|| {
            let positions = evaluator.morphs.positions();
            evaluator.skinner.skin_all(positions);
            black_box(evaluator.skinner.positions().first().copied())
        })
    });
    let subset: Vec<u32> = (0..model.vertices.len() as u32).step_by(100).collect();
    group.bench_function("skinning 10,000 chosen vertices", |b| {
        b.iter(|| {
            let positions = evaluator.morphs.positions();
            evaluator.skinner.update_vertices(&subset, positions);
            black_box(evaluator.skinner.positions().first().copied())
        })
    });
    group.finish();
}

/// A weight brush's step on a posed model: 2,000 vertices (every fifth of a stretch, as a
/// brush on a model whose neighbours are near in index) get new weights, which the evaluator
/// takes in and re-skins (`update_weights`), on the 100,000- and the 1,000,000-vertex model.
fn weight_update(c: &mut Criterion) {
    let mut group = c.benchmark_group("pose weights");
    group.sample_size(30);
    for (label, vertices) in [("100k", 100_000), ("1M", 1_000_000)] {
        let mut model = large_model(&LargeModelSpec {
            vertices,
            faces: vertices * 2,
            ..LargeModelSpec::million()
        });
        let mut pose = Pose::new(&model);
        animate(&model, &mut pose, 1);
        let mut evaluator = PoseEvaluator::new(&model);
        if let Err(error) = evaluator.evaluate(&model, &pose) {
            panic!("{error}");
        }
        let start = (vertices / 2) as u32;
        let brushed: Vec<u32> = (start..start + 10_000).step_by(5).collect();
        let bone = |b: usize| Some(pmx_core::model::BoneIdx::new(b));
        let mut step = 0usize;
        group.bench_function(
            format!("update_weights of 2,000 vertices, {label} model"),
            |b| {
                b.iter(|| {
                    step += 1;
                    for &v in &brushed {
                        // Alternates kinds, as strokes that add and take away a bone do.
                        model.vertices[v as usize].weight = if step.is_multiple_of(2) {
                            pmx_core::model::Weight::Bdef2 {
                                bones: [bone(step % 100), bone(v as usize % 100)],
                                weight: 0.6,
                            }
                        } else {
                            pmx_core::model::Weight::Bdef4 {
                                bones: [bone(1), bone(2), bone(3), bone(step % 100)],
                                weights: [0.4, 0.3, 0.2, 0.1],
                            }
                        };
                    }
                    black_box(evaluator.update_weights(&model, &brushed))
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, pose_frame, weight_update);
criterion_main!(benches);
