//! Reading and writing the generated 1,000,000-vertex model (2,000,000 triangles, 800 bones,
//! 300 morphs of every kind, 200 rigid bodies, 200 joints), with the peak heap each takes.
//!
//! `cargo bench -p pmx_core --bench pmx_io`. Also opens and saves the 253 MB file of
//! `generate::big_file_model` as the editor does (`formats::load_path`, `formats::save_path`),
//! with the time and peak heap of each.

// A benchmark on generated data: a failure here is a bug to see at once, not input to handle.
#![allow(clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use pmx_core::LoadOptions;
use pmx_core::formats::{self, json, pmx};
use pmx_core::generate::{LargeModelSpec, big_file_model, large_model};
use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Tracks live and peak heap bytes, so the benchmark can report the memory an operation needs.
struct PeakTracking;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[allow(unsafe_code)]
unsafe impl GlobalAlloc for PeakTracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        // SAFETY: forwards the caller's layout to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let live = LIVE.fetch_add(new_size - layout.size(), Ordering::Relaxed) + new_size
                - layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: same contract as `GlobalAlloc::realloc`, forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: PeakTracking = PeakTracking;

/// Heap bytes an operation adds at its peak, over what was live before it.
fn peak_of<T>(operation: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let result = operation();
    (result, PEAK.load(Ordering::Relaxed) - before)
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn pmx_io(c: &mut Criterion) {
    let model = large_model(&LargeModelSpec::million());
    let (bytes, _) = pmx::write(&model, &Default::default()).expect("the generated model writes");
    println!(
        "model: {} vertices, {} triangles, {} bones, {} morphs, {} rigid bodies, {} joints; file {:.1} MiB",
        model.vertices.len(),
        model.faces.len(),
        model.bones.len(),
        model.morphs.len(),
        model.rigid_bodies.len(),
        model.joints.len(),
        mib(bytes.len())
    );
    let (read_back, read_peak) =
        peak_of(|| pmx::read(&bytes, &LoadOptions::default()).expect("reads"));
    drop(read_back);
    let (written, write_peak) =
        peak_of(|| pmx::write(&model, &Default::default()).expect("writes"));
    drop(written);
    println!(
        "peak heap: read {:.1} MiB ({:.2}× the file), write {:.1} MiB ({:.2}× the file)",
        mib(read_peak),
        read_peak as f64 / bytes.len() as f64,
        mib(write_peak),
        write_peak as f64 / bytes.len() as f64
    );
    // From and to the disk, as opening and saving in the editor do (`load_path`, `save_path`),
    // on the 253 MB file of `big_file_model`: the file is never whole in memory.
    let big = big_file_model();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("big.pmx");
    let started = Instant::now();
    let ((), save_peak) = peak_of(|| {
        formats::save_path(&big, &path, &Default::default()).expect("saves");
    });
    let save_time = started.elapsed();
    let size = std::fs::metadata(&path).expect("saved").len() as usize;
    drop(big);
    let started = Instant::now();
    let (opened, open_peak) =
        peak_of(|| formats::load_path(&path, &LoadOptions::default()).expect("opens"));
    let open_time = started.elapsed();
    drop(opened);
    println!(
        "open and save of a {:.1} MiB file: open {open_time:.2?}, peak heap {:.1} MiB (the model \
         itself); save (written, synced, renamed) {save_time:.2?}, peak heap {:.1} MiB",
        mib(size),
        mib(open_peak),
        mib(save_peak),
    );
    let started = Instant::now();
    let text = json::write(&model).expect("json writes");
    println!(
        "JSON: {:.1} MiB written in {:.2?}",
        mib(text.len()),
        started.elapsed()
    );
    drop(text);

    let mut group = c.benchmark_group("pmx_1m_vertices");
    group.sample_size(10);
    group.bench_function("read", |b| {
        b.iter(|| black_box(pmx::read(black_box(&bytes), &LoadOptions::default())))
    });
    group.bench_function("write", |b| {
        b.iter(|| black_box(pmx::write(black_box(&model), &Default::default())))
    });
    group.finish();
}

criterion_group!(benches, pmx_io);
criterion_main!(benches);
