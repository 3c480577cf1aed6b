//! A frame of the pose engine allocates nothing once the evaluator is built (its buffers are
//! reused), so posing a 1,000,000-vertex model does not churn the heap.
//!
//! The counting allocator needs `unsafe impl GlobalAlloc`; it only forwards to the system
//! allocator.
#![allow(unsafe_code)]

use glam::{Quat, Vec3};
use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::pose::{Pose, PoseEvaluator};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Set on the thread that runs the frames: the test harness's own threads allocate now
    /// and then while they wait, and must not count.
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

fn counting() -> bool {
    COUNTING.with(Cell::get)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counting() {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: forwards the caller's layout to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counting() {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        // SAFETY: same contract as `GlobalAlloc::realloc`, forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn frames_allocate_nothing() {
    // The small model has every feature the large one has: IK, append, every weight kind,
    // every morph kind (flip, group, impulse, material, additional UVs).
    let model = large_model(&LargeModelSpec::small());
    let mut pose = Pose::new(&model);
    let mut evaluator = PoseEvaluator::new(&model);
    let subset: Vec<u32> = (0..model.vertices.len() as u32).step_by(3).collect();
    let frame = |pose: &mut Pose, evaluator: &mut PoseEvaluator, n: u32| {
        for (i, (bone, slot)) in model.bones.iter().zip(&mut pose.bones).enumerate() {
            let phase = n as f32 * 0.1 + i as f32;
            slot.rotation = Quat::from_rotation_y(phase.sin());
            slot.translation = if bone.is_ik() {
                Vec3::splat(phase.cos())
            } else {
                Vec3::ZERO
            };
        }
        for (i, value) in pose.morphs.iter_mut().enumerate() {
            *value = (n as f32 + i as f32).sin().abs();
        }
        assert!(evaluator.evaluate(&model, pose).is_ok());
        assert!(evaluator.evaluate_vertices(&model, pose, &subset).is_ok());
    };
    // Frames run inside a one-thread pool, on its thread, so that only the pose engine's own
    // allocations are counted: rayon's scheduling allocates a little now and then by itself
    // (its global injector takes a new block every 63 jobs sent from outside the pool, and
    // work stealing between threads defers frees through crossbeam-epoch).
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
        Ok(pool) => pool,
        Err(error) => panic!("{error}"),
    };
    let allocations = pool.install(|| {
        // The first frames may grow the reused buffers.
        for n in 0..3 {
            frame(&mut pose, &mut evaluator, n);
        }
        COUNTING.with(|c| c.set(true));
        for n in 3..20 {
            frame(&mut pose, &mut evaluator, n);
        }
        COUNTING.with(|c| c.set(false));
        ALLOCATIONS.load(Ordering::Relaxed)
    });
    assert_eq!(allocations, 0, "{allocations} allocations in 17 frames");
}
