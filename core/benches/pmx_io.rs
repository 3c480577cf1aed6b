//! Reading and writing the generated 1,000,000-vertex model (2,000,000 triangles, 800 bones,
//! 300 morphs of every kind, 200 rigid bodies, 200 joints), with the peak heap each takes.
//!
//! `cargo bench -p pmx_core --bench pmx_io`. Also reads and writes the file on the disk
//! (`pmx::read_file`, `pmx::write_file`: what opening and saving do), with their peak heap.

// A benchmark on generated data: a failure here is a bug to see at once, not input to handle.
#![allow(clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use pmx_core::LoadOptions;
use pmx_core::formats::{json, pmx};
use pmx_core::generate::{LargeModelSpec, large_model};
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
    // From and to the disk, as `load_path` and `save_path` do: the file is never whole in memory.
    let dir = tempfile::tempdir().expect("a temporary folder");
    let path = dir.path().join("million.pmx");
    std::fs::write(&path, &bytes).expect("the file is written");
    let file = std::fs::File::open(&path).expect("opens");
    let started = Instant::now();
    let (from_disk, file_read_peak) = peak_of(|| {
        pmx::read_file(&file, bytes.len(), &LoadOptions::default(), &|_| {}, None).expect("reads")
    });
    let file_read_time = started.elapsed();
    let out = std::fs::File::create(dir.path().join("out.pmx")).expect("creates");
    let started = Instant::now();
    let ((), file_write_peak) = peak_of(|| {
        pmx::write_file(&from_disk.0, &Default::default(), &out).expect("writes");
    });
    let file_write_time = started.elapsed();
    drop(from_disk);
    println!(
        "from the disk: read {:.1} MiB peak heap in {file_read_time:.2?} (the model itself), \
         write {:.1} MiB peak heap in {file_write_time:.2?}",
        mib(file_read_peak),
        mib(file_write_peak),
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
