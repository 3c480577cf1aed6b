//! Recovery is bounded: a PMX or PMD file whose counts are corrupted reads in recovery mode
//! and passes every validator in bounded time and memory, and the report lists at most the
//! per-code cap of each code. The files are generated here (a few MB) and, when the shared
//! corpus is there, the Gene PMD whose corrupted material count once made `check --recover`
//! take 16 s and 7.8 GB. The same body as the `check_recover` fuzz target
//! ([`validate::check_recovered`]) also runs over a few thousand randomly mutated files.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::{LoadLimits, LoadReport, ReadError, pmd, pmx};
use pmx_core::generate::{LargeModelSpec, Rng, feature_model, large_model};
use pmx_core::model::{Model, PmxVersion, TextEncoding};
use pmx_core::validate::{self, CheckOptions, Issue};
use pmx_tests::mutate;
use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Tracks live and peak heap bytes (as `core/benches/pmx_io.rs` does).
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
            let grown = new_size - layout.size();
            let live = LIVE.fetch_add(grown, Ordering::Relaxed) + grown;
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

/// The tests of this file measure the process's heap: they run one at a time.
static MEASURING: Mutex<()> = Mutex::new(());

/// Wall time a corrupted file of a few MB may take to read and check (test profile, a busy
/// machine; it takes well under a second in release).
const TIME_LIMIT: Duration = Duration::from_secs(10);
/// Heap a corrupted file of a few MB may take at the peak, over what was live before.
const HEAP_LIMIT: usize = 300 << 20;

/// What [`validate::check_recovered`] gives.
type Checked = Option<(Model, LoadReport, Vec<Issue>)>;

/// What a recovering check of `bytes` gave, its wall time and its peak heap.
fn measured(bytes: &[u8]) -> (Checked, Duration, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let start = Instant::now();
    let result = validate::check_recovered(bytes, LoadLimits::default());
    let time = start.elapsed();
    (
        result,
        time,
        PEAK.load(Ordering::Relaxed).saturating_sub(before),
    )
}

/// At most the cap of each code listed (the cap one by one, and one summary).
fn assert_capped(issues: &[Issue], what: &str) {
    let cap = CheckOptions::default().max_issues_per_code;
    let mut per_code: HashMap<&str, usize> = HashMap::new();
    for issue in issues {
        *per_code.entry(issue.code).or_default() += 1;
    }
    for (code, count) in per_code {
        assert!(count <= cap + 1, "{what}: {count} issues of {code} listed");
    }
}

/// Reads and checks `bytes` within the time and heap limits; returns the model and report.
fn check_within_bounds(bytes: &[u8], what: &str) -> (Model, LoadReport, Vec<Issue>) {
    let (result, time, peak) = measured(bytes);
    let (model, report, issues) = result.unwrap_or_else(|| panic!("{what}: recovery read nothing"));
    println!(
        "{what}: {} bytes, {:.0} ms, peak heap {:.1} MB, {} materials, {} issues",
        bytes.len(),
        time.as_secs_f64() * 1e3,
        peak as f64 / 1e6,
        model.materials.len(),
        issues.len()
    );
    assert!(time < TIME_LIMIT, "{what}: took {time:?}");
    assert!(peak < HEAP_LIMIT, "{what}: peak heap {} MB", peak >> 20);
    assert_capped(&issues, what);
    (model, report, issues)
}

fn with_u32(bytes: &[u8], at: usize, value: u32) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + 4].copy_from_slice(&value.to_le_bytes());
    out
}

/// The count the reader noted as more than the bytes left can hold, at `path`.
fn assert_count_noted(report: &LoadReport, path: &str, what: &str) {
    assert!(
        report
            .notes
            .iter()
            .any(|note| note.location.path() == path && note.message.contains("is more than the")),
        "{what}: no note at {path}: {:#?}",
        report.notes
    );
}

/// A model of a few MB in PMD and PMX: many vertices and faces, some of everything else.
fn generated_model() -> Model {
    large_model(&LargeModelSpec {
        vertices: 40_000,
        faces: 80_000,
        bones: 200,
        morphs: 40,
        rigid_bodies: 20,
        joints: 20,
        materials: 12,
        additional_uvs: 0,
        version: PmxVersion::V2_0,
    })
}

#[test]
fn generated_pmd_with_corrupted_counts() {
    let _guard = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let (bytes, _) = pmd::write(&generated_model()).expect("writes as PMD");
    let (file, _) = pmd::read_file(&bytes, &LoadOptions::default()).expect("reads");
    let layout = pmd::Layout::of(&file);
    for (section, at) in [
        ("vertices", layout.vertices),
        ("faces", layout.faces),
        ("materials", layout.materials),
    ] {
        // 19,338: the material count of the original report; i32::MAX and u32::MAX: the largest.
        for value in [19_338, i32::MAX as u32, u32::MAX] {
            let what = format!("PMD {section} count {value}");
            let broken = with_u32(&bytes, at, value);
            let (_, report, _) = check_within_bounds(&broken, &what);
            // u32::MAX is over the element limit: reading stops at the count instead.
            if value == i32::MAX as u32 {
                assert_count_noted(&report, &format!("{section}.count"), &what);
            }
        }
    }
}

/// The offset of `section`'s count in a PMX file: the shortest prefix the strict reader fails
/// on in that section fails at its count.
fn pmx_count_offset(bytes: &[u8], section: &str) -> usize {
    let rank = |name: &str| pmx_tests::PMX_SECTIONS.iter().position(|s| *s == name);
    let wanted = rank(section).expect("a known section");
    let failing = |len: usize| -> Option<ReadError> {
        pmx::read(&bytes[..len], &LoadOptions::default()).err()
    };
    let reached = |len: usize| {
        failing(len).is_none_or(|error| {
            error
                .location()
                .and_then(|location| rank(location.section))
                .is_some_and(|r| r >= wanted)
        })
    };
    let (mut lo, mut hi) = (0, bytes.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if reached(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let error = failing(lo).expect("a prefix fails");
    let location = error.location().expect("a location");
    assert_eq!(
        (location.section, location.field),
        (section, "count"),
        "{error}"
    );
    location.offset
}

#[test]
fn generated_pmx_with_corrupted_counts() {
    let _guard = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let model = generated_model();
    let (bytes, _) = pmx::write(&model, &pmx::PmxSaveOptions::default()).expect("writes");
    for section in ["vertices", "faces", "materials", "bones", "morphs"] {
        let at = pmx_count_offset(&bytes, section);
        for value in [19_338, i32::MAX as u32] {
            let what = format!("PMX {section} count {value}");
            let broken = with_u32(&bytes, at, value);
            let (_, report, _) = check_within_bounds(&broken, &what);
            if value == i32::MAX as u32 {
                assert_count_noted(&report, &format!("{section}.count"), &what);
            }
        }
    }
}

#[test]
fn gene_pmd_with_a_corrupted_material_count() {
    let _guard = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let Some(dir) = pmx_tests::corpus_dir("pmd") else {
        println!("skipped: the shared corpus (../shared/corpus/pmd) is not there");
        return;
    };
    let path = dir.join("pmd_gene_cc_by.pmd");
    let Ok(bytes) = std::fs::read(&path) else {
        println!("skipped: {} is not there", path.display());
        return;
    };
    let (file, _) = pmd::read_file(&bytes, &LoadOptions::default()).expect("Gene reads");
    let at = pmd::Layout::of(&file).materials;
    for value in [19_338, i32::MAX as u32] {
        let what = format!("Gene PMD material count {value}");
        let (model, report, _) = check_within_bounds(&with_u32(&bytes, at, value), &what);
        assert_count_noted(&report, "materials.count", &what);
        // Garbage materials up to the end of the file, never more than it can hold.
        assert!(model.materials.len() <= (bytes.len() - at) / 70, "{what}");
    }
}

/// Values a mutation writes over four bytes: counts, with the corrupted Gene PMD's among them.
const COUNT_VALUES: &[u32] = &[0, 1, 0xFF, 0xFFFF, 19_338, 0x7FFF_FFFF, 0xFFFF_FFFF];

/// The `check_recover` fuzz target's body over mutated generated PMX and PMD files: each is
/// read and checked within a small multiple of its own size in heap, quickly, with the report
/// capped.
#[test]
fn mutated_files_check_within_bounds() {
    let _guard = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    for (version, encoding) in [
        (PmxVersion::V2_0, TextEncoding::Utf16),
        (PmxVersion::V2_1, TextEncoding::Utf8),
    ] {
        let model = feature_model(version, encoding, 40, 12);
        seeds.push(
            pmx::write(&model, &pmx::PmxSaveOptions::default())
                .expect("writes")
                .0,
        );
    }
    seeds.push(pmd::write_file(&pmx_tests::pmd::sample_file()).expect("writes"));
    let mut rng = Rng::new(0x00B0_0DED);
    let (mut slowest, mut largest) = (Duration::ZERO, 0usize);
    for round in 0..3_000 {
        let seed = &seeds[round % seeds.len()];
        let mut input = seed.clone();
        mutate(&mut rng, &mut input, COUNT_VALUES);
        let (result, time, peak) = measured(&input);
        slowest = slowest.max(time);
        largest = largest.max(peak);
        if let Some((_, _, issues)) = result {
            assert_capped(&issues, &format!("mutation {round}"));
        }
        assert!(time < Duration::from_secs(2), "mutation {round}: {time:?}");
        // The files are a few tens of KB: what they read, and what is found in it, is too.
        assert!(
            peak < 64 << 20,
            "mutation {round}: peak heap {} MB",
            peak >> 20
        );
    }
    println!(
        "3,000 mutations: slowest {:.1} ms, largest peak heap {:.1} MB",
        slowest.as_secs_f64() * 1e3,
        largest as f64 / 1e6
    );
}
