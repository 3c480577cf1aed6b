//! Bad input: every error names section, element, field and byte offset; nothing panics; a
//! huge declared count fails before any large allocation.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::ReadError;
use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::generate::feature_model;
use pmx_core::model::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts the largest single allocation made on a thread that asked for counting, to prove
/// counts are checked before allocating. Only that thread counts: the other tests of this file
/// run at the same time on their own threads and allocate what they like.
struct LargestAllocation;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with this thread's allocations counted from zero; returns its result and the
/// largest single allocation it made.
fn largest_allocation_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.store(0, Ordering::Relaxed);
    COUNTING.with(|c| c.set(true));
    let result = f();
    COUNTING.with(|c| c.set(false));
    (result, LARGEST.load(Ordering::Relaxed))
}

#[allow(unsafe_code)]
unsafe impl GlobalAlloc for LargestAllocation {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.try_with(std::cell::Cell::get).unwrap_or(false) {
            LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        }
        // SAFETY: forwards the caller's layout unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: LargestAllocation = LargestAllocation;

/// A small valid file with empty model info, so the vertex count sits at byte 33.
fn small_file() -> Vec<u8> {
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 20, 12);
    model.info = ModelInfo::default();
    pmx::write(&model, &PmxSaveOptions::default())
        .map(|(b, _)| b)
        .unwrap_or_default()
}

fn read_err(bytes: &[u8]) -> ReadError {
    match pmx::read(bytes, &LoadOptions::default()) {
        Ok(_) => panic!("a broken file was accepted"),
        Err(error) => error,
    }
}

fn location(error: &ReadError) -> &pmx_core::formats::Location {
    error
        .location()
        .unwrap_or_else(|| panic!("no location in {error}"))
}

const VERTEX_COUNT_AT: usize = 17 + 16;

#[test]
fn wrong_magic_and_pmx_1_0() {
    let mut bytes = small_file();
    bytes[0] = b'X';
    let error = read_err(&bytes);
    assert!(matches!(error, ReadError::Malformed { .. }), "{error}");
    assert_eq!(location(&error).field, "magic");
    assert_eq!(location(&error).offset, 0);
    bytes[..4].copy_from_slice(b"Pmx ");
    let error = read_err(&bytes);
    assert!(
        matches!(error, ReadError::Unsupported { .. }) && error.to_string().contains("PMX 1.0"),
        "{error}"
    );
}

#[test]
fn versions_other_than_2_0_and_2_1() {
    for version in [1.0f32, 2.2, 3.0] {
        let mut bytes = small_file();
        bytes[4..8].copy_from_slice(&version.to_le_bytes());
        let error = read_err(&bytes);
        assert!(matches!(error, ReadError::Unsupported { .. }), "{error}");
        assert_eq!(location(&error).field, "version");
        assert_eq!(location(&error).offset, 4);
    }
}

#[test]
fn header_size_index_size_and_encoding() {
    let mut bytes = small_file();
    bytes[8] = 7;
    let error = read_err(&bytes);
    assert_eq!(
        (location(&error).field, location(&error).offset),
        ("globals_count", 8),
        "{error}"
    );
    let mut bytes = small_file();
    bytes[9 + 5] = 3; // bone index size
    let error = read_err(&bytes);
    assert_eq!(
        (location(&error).field, location(&error).offset),
        ("bone_index_size", 14),
        "{error}"
    );
    assert!(error.to_string().contains("must be 1, 2 or 4"), "{error}");
    let mut bytes = small_file();
    bytes[9] = 2;
    let error = read_err(&bytes);
    assert_eq!(location(&error).field, "encoding", "{error}");
    let mut bytes = small_file();
    bytes[10] = 5;
    let error = read_err(&bytes);
    assert_eq!(location(&error).field, "additional_uv_count", "{error}");
    // A longer header (read in recovery, its extra bytes skipped): an error in one of the 8
    // bytes still points at that byte, not past the extra ones.
    let mut bytes = small_file();
    bytes[8] = 10;
    bytes.splice(17..17, [0, 0]);
    bytes[9 + 5] = 3;
    let recovering = LoadOptions {
        recover: true,
        ..LoadOptions::default()
    };
    let error = pmx::read(&bytes, &recovering).unwrap_err();
    assert_eq!(
        (location(&error).field, location(&error).offset),
        ("bone_index_size", 14),
        "{error}"
    );
}

#[test]
fn negative_counts() {
    let mut bytes = small_file();
    bytes[VERTEX_COUNT_AT..VERTEX_COUNT_AT + 4].copy_from_slice(&(-1i32).to_le_bytes());
    let error = read_err(&bytes);
    let at = location(&error);
    assert_eq!(
        (at.section, at.field, at.offset),
        ("vertices", "count", VERTEX_COUNT_AT),
        "{error}"
    );
    assert!(error.to_string().contains("negative count -1"), "{error}");
}

#[test]
fn string_length_past_the_end() {
    let mut bytes = small_file();
    bytes[17..21].copy_from_slice(&1_000_000i32.to_le_bytes());
    let error = read_err(&bytes);
    let at = location(&error);
    assert_eq!(
        (at.section, at.field, at.offset),
        ("model_info", "name_ja", 17),
        "{error}"
    );
    assert!(error.to_string().contains("runs past the end"), "{error}");
}

#[test]
fn a_count_far_larger_than_the_file_fails_without_allocating() {
    let mut bytes = small_file();
    bytes.truncate(100);
    bytes[VERTEX_COUNT_AT..VERTEX_COUNT_AT + 4].copy_from_slice(&i32::MAX.to_le_bytes());
    let (error, largest) = largest_allocation_of(|| read_err(&bytes));
    assert!(
        largest < 64 * 1024,
        "the reader allocated {largest} bytes at once"
    );
    assert!(
        error
            .to_string()
            .contains("count 2147483647 needs at least"),
        "{error}"
    );
    // The recovery reader must not trust the count either.
    let (recovered, largest) = largest_allocation_of(|| {
        pmx::read(
            &bytes,
            &LoadOptions {
                recover: true,
                ..Default::default()
            },
        )
    });
    assert!(
        largest < 64 * 1024,
        "recovery allocated {largest} bytes at once"
    );
    let (model, report) = recovered.unwrap_or_else(|e| panic!("{e}"));
    assert!(model.vertices.is_empty() && report.recovered_from.is_some());
}

#[test]
fn every_truncation_fails_cleanly_in_file_order() {
    let bytes = small_file();
    let sections = pmx_tests::PMX_SECTIONS;
    let mut last = 0;
    let mut seen = std::collections::BTreeSet::new();
    let mut fields = std::collections::BTreeSet::new();
    for len in 0..bytes.len() {
        let error = read_err(&bytes[..len]);
        let at = location(&error);
        let rank = sections
            .iter()
            .position(|s| *s == at.section)
            .unwrap_or_else(|| panic!("unknown section {}", at.section));
        assert!(
            rank >= last,
            "cut at {len}: section {} after {}",
            at.section,
            sections[last]
        );
        assert!(
            at.offset <= len,
            "cut at {len}: error offset {} past the cut",
            at.offset
        );
        last = rank;
        seen.insert(at.section);
        fields.insert(format!("{}.{}", at.section, at.field));
        if matches!(at.section, "vertices" | "bones" | "morphs" | "soft_bodies")
            && at.field != "count"
        {
            assert!(
                at.element.is_some(),
                "cut at {len}: {error} names no element"
            );
        }
    }
    for section in sections {
        assert!(
            seen.contains(section),
            "no truncation was reported in {section}"
        );
    }
    // Truncations inside a vertex, a string, a bone, a morph and a soft body (cuts early in a
    // section are caught by the count check, so these are the cuts near each section's end).
    for section in ["vertices", "bones", "morphs", "soft_bodies"] {
        assert!(
            fields
                .iter()
                .any(|f| f.starts_with(&format!("{section}.")) && !f.ends_with(".count")),
            "no truncation inside an element of {section}; saw {fields:?}"
        );
    }
    assert!(
        fields.contains("model_info.name_ja") && fields.contains("bones.name_ja"),
        "{fields:?}"
    );
}

#[test]
fn truncated_files_recover_every_complete_element() {
    let bytes = small_file();
    let (full, _) = pmx::read(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    for len in (40..bytes.len()).step_by(7) {
        let (model, report) = pmx::read(
            &bytes[..len],
            &LoadOptions {
                recover: true,
                ..Default::default()
            },
        )
        .unwrap_or_else(|e| panic!("cut at {len}: {e}"));
        assert!(report.lost_data(), "cut at {len}");
        assert!(model.vertices.len() <= full.vertices.len());
        assert_eq!(
            model.vertices[..],
            full.vertices[..model.vertices.len()],
            "cut at {len}"
        );
        assert_eq!(
            model.bones[..],
            full.bones[..model.bones.len()],
            "cut at {len}"
        );
        assert_eq!(
            model.morphs[..],
            full.morphs[..model.morphs.len()],
            "cut at {len}"
        );
        let lost = report
            .notes
            .iter()
            .find(|n| n.lost)
            .unwrap_or_else(|| panic!("cut at {len}: no lost note"));
        assert!(lost.location.offset <= len);
    }
}

#[test]
fn bad_structure_bytes_are_named() {
    let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 20, 12);
    let (bytes, _) =
        pmx::write(&model, &PmxSaveOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    // Find the first vertex's weight type byte: header 17 + info texts, count, then 32 + 4*16 bytes.
    let (read_back, _) =
        pmx::read(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    let info_len: usize = [
        &read_back.info.name_ja,
        &read_back.info.name_en,
        &read_back.info.comment_ja,
        &read_back.info.comment_en,
    ]
    .iter()
    .map(|t| 4 + t.as_str().encode_utf16().count() * 2)
    .sum();
    let weight_at = 17 + info_len + 4 + 32 + 16 * model.additional_uvs.len();
    let mut broken = bytes.clone();
    broken[weight_at] = 9;
    let error = read_err(&broken);
    let at = location(&error);
    assert_eq!(
        (at.section, at.element, at.field, at.offset),
        ("vertices", Some(0), "weight.type", weight_at),
        "{error}"
    );
}
