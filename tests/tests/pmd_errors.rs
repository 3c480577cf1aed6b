//! Bad PMD input: truncation in every section, counts past the end, invalid Shift-JIS. Every
//! error names section, element, field and byte offset; nothing panics; a huge count fails
//! before any large allocation.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::pmd::{self, FixedText, Layout, PmdFile};
use pmx_core::formats::{LoadLimits, ReadError};
use pmx_core::generate::Rng;
use pmx_tests::mutate;
use pmx_tests::pmd::sample_file;
use std::alloc::{GlobalAlloc, Layout as AllocLayout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts the largest single allocation made on a thread that asked for counting (the other
/// tests of this file allocate on their own threads meanwhile), to prove counts are checked
/// before allocating.
struct LargestAllocation;

static LARGEST: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static COUNTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}
/// Tests that measure allocations run one at a time.
static MEASURING: Mutex<()> = Mutex::new(());

#[allow(unsafe_code)]
unsafe impl GlobalAlloc for LargestAllocation {
    unsafe fn alloc(&self, layout: AllocLayout) -> *mut u8 {
        if COUNTING.try_with(std::cell::Cell::get).unwrap_or(false) {
            LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        }
        // SAFETY: forwards the caller's layout unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: AllocLayout) {
        // SAFETY: `ptr` was allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: LargestAllocation = LargestAllocation;

fn sample_bytes() -> (Vec<u8>, Layout) {
    let file = sample_file();
    (pmd::write_file(&file).expect("writes"), Layout::of(&file))
}

fn malformed(
    result: Result<(PmdFile, pmx_core::formats::LoadReport), ReadError>,
) -> (String, String, usize, String) {
    match result {
        Err(ReadError::Malformed { location, message }) => (
            location.section.to_owned(),
            location.field.to_owned(),
            location.offset,
            message.to_string(),
        ),
        other => panic!("expected a malformed-file error, got {other:?}"),
    }
}

#[test]
fn truncation_in_every_section_names_the_section() {
    let (bytes, layout) = sample_bytes();
    let sections = [
        ("header", 0, layout.vertices),
        ("vertices", layout.vertices, layout.faces),
        ("faces", layout.faces, layout.materials),
        ("materials", layout.materials, layout.bones),
        ("bones", layout.bones, layout.iks),
        ("iks", layout.iks, layout.skins),
        ("skins", layout.skins, layout.skin_display),
        ("skin_display", layout.skin_display, layout.bone_frame_names),
        (
            "bone_frame_names",
            layout.bone_frame_names,
            layout.bone_frame_items,
        ),
        ("bone_frame_items", layout.bone_frame_items, layout.english),
        // The extensions may be absent, but once one starts it must be complete.
        ("english", layout.english + 1, layout.toon_names),
        ("toon_names", layout.toon_names + 1, layout.rigid_bodies),
        ("rigid_bodies", layout.rigid_bodies + 1, layout.joints),
        ("joints", layout.joints + 1, layout.end),
    ];
    for (section, start, end) in sections {
        assert!(start < end, "{section}");
        for cut in [start, (start + end) / 2, end - 1] {
            // A cut at the very start of an extension is a file without it.
            if cut == start && section != "header" && cut == layout.english {
                continue;
            }
            let (got, field, offset, message) =
                malformed(pmd::read_file(&bytes[..cut], &LoadOptions::default()));
            let got_section = if section == "header" && cut < 3 {
                "header"
            } else {
                &got
            };
            assert_eq!(got_section, section, "cut at {cut}: {field}: {message}");
            assert!(offset <= cut, "cut at {cut}: offset {offset}");
            assert!(
                message.contains("unexpected end of file") || message.contains("need"),
                "{message}"
            );
        }
    }
    // A file cut inside the vertices: the message says where and what.
    let error = pmd::read_file(
        &bytes[..layout.vertices + 4 + 38 + 10],
        &LoadOptions::default(),
    )
    .expect_err("truncated");
    assert_eq!(
        error.to_string(),
        format!(
            "malformed file: vertices.count at byte {0} (0x{0:x}): count 6 needs at least 228 \
             bytes but only 48 are left in the file",
            layout.vertices
        )
    );
}

#[test]
fn every_prefix_reads_or_fails_cleanly() {
    let (bytes, layout) = sample_bytes();
    let valid_ends = [
        layout.english,
        layout.toon_names,
        layout.rigid_bodies,
        layout.joints,
        layout.end,
    ];
    for cut in 0..=bytes.len() {
        match pmd::read(&bytes[..cut], &LoadOptions::default()) {
            Ok(_) => assert!(valid_ends.contains(&cut), "a file cut at {cut} read"),
            Err(error) => {
                assert!(!valid_ends.contains(&cut), "cut at {cut}: {error}");
                let location = error.location().expect("a location");
                assert!(location.offset <= cut, "cut at {cut}: {error}");
            }
        }
    }
}

/// Sets the count field at `offset` to its largest value (for 32-bit counts, the largest the
/// default limits allow: larger is a limit error, tested apart).
fn with_count(bytes: &[u8], offset: usize, width: usize) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    bytes[offset..offset + width].fill(0xFF);
    if width == 4 {
        bytes[offset + 3] = 0x7F;
    }
    bytes
}

#[test]
fn counts_past_the_end_fail_before_allocating() {
    let _guard = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let (bytes, layout) = sample_bytes();
    let cases = [
        ("vertices", "count", layout.vertices, 4),
        ("faces", "count", layout.faces, 4),
        ("materials", "count", layout.materials, 4),
        ("bones", "count", layout.bones, 2),
        ("iks", "count", layout.iks, 2),
        ("iks", "link_count", layout.ik_entries[0] + 4, 1),
        ("skins", "count", layout.skins, 2),
        ("skins", "vertex_count", layout.skin_entries[0] + 20, 4),
        ("skin_display", "count", layout.skin_display, 1),
        ("bone_frame_names", "count", layout.bone_frame_names, 1),
        ("bone_frame_items", "count", layout.bone_frame_items, 4),
        ("rigid_bodies", "count", layout.rigid_bodies, 4),
        ("joints", "count", layout.joints, 4),
    ];
    for (section, field, offset, width) in cases {
        let mut bad = with_count(&bytes, offset, width);
        if width == 1 {
            // 255 elements fit in the rest of the sample: cut the file to put them past the end
            // (with one IK entry, whose 11 bytes are still there, for the link count).
            bad.truncate(offset + 9);
            if field == "link_count" {
                bad[layout.iks..layout.iks + 2].copy_from_slice(&1u16.to_le_bytes());
            }
        }
        LARGEST.store(0, Ordering::Relaxed);
        COUNTING.with(|c| c.set(true));
        let read = pmd::read_file(&bad, &LoadOptions::default());
        COUNTING.with(|c| c.set(false));
        let largest = LARGEST.load(Ordering::Relaxed);
        let (got_section, got_field, got_offset, message) = malformed(read);
        assert_eq!(
            (got_section.as_str(), got_field.as_str()),
            (section, field),
            "{message}"
        );
        assert_eq!(got_offset, offset, "{section}.{field}: {message}");
        assert!(
            message.contains("need") && message.contains("left"),
            "{section}.{field}: {message}"
        );
        assert!(
            largest < 64 * 1024,
            "{section}.{field}: an allocation of {largest} bytes before the count was checked"
        );
    }
}

#[test]
fn english_names_past_the_end_are_malformed() {
    let (bytes, layout) = sample_bytes();
    // A file that ends right after the English flag byte.
    let (section, field, offset, message) = malformed(pmd::read_file(
        &bytes[..layout.english + 1 + 20],
        &LoadOptions::default(),
    ));
    assert_eq!(
        (section.as_str(), field.as_str(), offset),
        ("english", "flag", layout.english + 1)
    );
    assert!(
        message.contains("English names of 17 bones, 3 skins and 3 frames"),
        "{message}"
    );
}

#[test]
fn huge_counts_hit_the_load_limits() {
    let (bytes, layout) = sample_bytes();
    let options = LoadOptions {
        limits: LoadLimits {
            max_elements: 5,
            ..LoadLimits::default()
        },
        ..LoadOptions::default()
    };
    match pmd::read_file(&bytes, &options) {
        Err(ReadError::LimitExceeded { location, message }) => {
            assert_eq!(location.path(), "vertices.count");
            assert_eq!(location.offset, layout.vertices);
            assert_eq!(message.to_string(), "6 elements is over the limit of 5");
        }
        other => panic!("expected a limit error, got {other:?}"),
    }
}

#[test]
fn not_a_pmd_file() {
    let (mut bytes, _) = sample_bytes();
    bytes[2] = b'x';
    let (section, field, offset, message) =
        malformed(pmd::read_file(&bytes, &LoadOptions::default()));
    assert_eq!(
        (section.as_str(), field.as_str(), offset),
        ("header", "magic", 0)
    );
    assert_eq!(
        message,
        "not a PMD file: magic is [50, 6d, 78], expected \"Pmd\""
    );
    assert!(pmd::read_file(b"", &LoadOptions::default()).is_err());
    assert!(pmd::read_file(b"Pm", &LoadOptions::default()).is_err());
}

#[test]
fn invalid_shift_jis_reads_lossily_with_a_note() {
    let mut file = sample_file();
    // 0xA0 is no Shift-JIS byte; the name ends in a lone lead byte 0x83 (a name cut by a tool).
    file.bones[2].name = FixedText::new(b"ab\xA0cd".to_vec());
    file.skins[1].name = FixedText::new(b"Nirva \x83".to_vec());
    let bytes = pmd::write_file(&file).expect("writes");
    let layout = Layout::of(&file);
    let (raw, report) = pmd::read_file(&bytes, &LoadOptions::default()).expect("reads");
    assert!(report.notes.is_empty(), "the raw file keeps the bytes");
    assert_eq!(raw.bones[2].name.as_bytes(), b"ab\xA0cd");

    let (model, report) = pmd::read(&bytes, &LoadOptions::default()).expect("reads");
    assert_eq!(model.bones[2].name_ja.as_str(), "ab\u{FFFD}cd");
    assert_eq!(model.morphs[0].name_ja.as_str(), "Nirva ");
    let bone_note = report
        .notes
        .iter()
        .find(|n| n.location.section == "bones")
        .expect("a note on the bone name");
    assert_eq!(bone_note.location.path(), "bones[2].name");
    assert_eq!(bone_note.location.offset, layout.bones + 2 + 2 * 39);
    assert!(bone_note.lost);
    assert!(
        bone_note.message.contains("not valid Shift-JIS"),
        "{}",
        bone_note.message
    );
    let skin_note = report
        .notes
        .iter()
        .find(|n| n.location.section == "skins")
        .expect("a note on the skin name");
    assert_eq!(skin_note.location.path(), "skins[1].name");
    assert_eq!(skin_note.location.offset, layout.skin_entries[1]);
    assert!(!skin_note.lost);
    assert!(report.lost_data());
}

#[test]
fn names_filling_their_field_and_any_padding_read() {
    let (mut bytes, layout) = sample_bytes();
    // A bone name of 20 bytes with no terminator, and padding of 0x00 instead of 0xFD.
    let at = layout.bones + 2;
    bytes[at..at + 20].copy_from_slice(&[0x82, 0xA0].repeat(10));
    let name_at = layout.bones + 2 + 39;
    bytes[name_at + 10..name_at + 20].fill(0);
    let (model, report) = pmd::read(&bytes, &LoadOptions::default()).expect("reads");
    assert!(!report.lost_data(), "{:?}", report.notes);
    assert_eq!(model.bones[0].name_ja.as_str(), "ああああああああああ");
    assert_eq!(model.bones[1].name_ja.as_str(), "センター");
}

#[test]
fn unknown_version_is_noted() {
    let (mut bytes, _) = sample_bytes();
    bytes[3..7].copy_from_slice(&2.0f32.to_le_bytes());
    let (file, report) = pmd::read_file(&bytes, &LoadOptions::default()).expect("reads");
    assert_eq!(file.version, 2.0);
    assert_eq!(report.notes.len(), 1);
    assert_eq!(report.notes[0].location.path(), "header.version");
    assert_eq!(report.notes[0].location.offset, 3);
}

#[test]
fn recovery_keeps_the_complete_elements() {
    let (bytes, layout) = sample_bytes();
    // Cut in the middle of bone 5.
    let cut = layout.bones + 2 + 5 * 39 + 17;
    let options = LoadOptions {
        recover: true,
        ..LoadOptions::default()
    };
    let (model, report) = pmd::read(&bytes[..cut], &options).expect("recovers");
    assert_eq!(model.vertices.len(), 6);
    assert_eq!(model.materials.len(), 4);
    assert_eq!(model.bones.len(), 5);
    assert!(report.recovered_from.is_some());
    assert!(report.lost_data());
    // The bone count the cut file cannot hold is noted at the count, then where reading stopped.
    assert_eq!(report.notes[0].location.path(), "bones.count");
    let location = &report.notes[1].location;
    assert_eq!(location.path(), "bones[5].name");
}

#[test]
fn dangling_references_convert_and_are_noted() {
    let mut file = sample_file();
    file.iks[0].bone = 999;
    file.skin_display.push(0);
    file.skin_display.push(77);
    file.bone_frame_items
        .push(pmd::PmdBoneFrameItem { bone: 1, frame: 9 });
    file.skins[1].vertices[0].index = 50;
    file.face_indices.push(1);
    let bytes = pmd::write_file(&file).expect("writes");
    let (model, report) = pmd::read(&bytes, &LoadOptions::default()).expect("reads");
    let paths: Vec<String> = report.notes.iter().map(|n| n.location.path()).collect();
    assert_eq!(
        paths,
        [
            "faces[12]",
            "iks[0].bone",
            "skins[1].vertices",
            "skin_display[3].skin",
            "skin_display[4].skin",
            "bone_frame_items[6].frame",
        ]
    );
    assert!(report.notes.iter().all(|n| n.lost));
    assert_eq!(model.faces.len(), 4);
    // The bone is still an IK bone (its kind says so), with no chain.
    assert!(model.bones[7].is_ik());
    assert!(model.bones[7].ik.links.is_empty());
}

/// A bounded in-process fuzz loop over mutations of the sample: the reader never panics, the
/// raw writer gives back what it read, converting to the model and back never panics, and
/// neither does checking what recovery reads.
#[test]
fn mutated_files_never_panic() {
    let (bytes, _) = sample_bytes();
    let mut rng = Rng::new(0x5EED_0FD0);
    for _ in 0..3_000 {
        let mut input = bytes.clone();
        mutate(&mut rng, &mut input, COUNT_VALUES);
        check_invariants(&input);
    }
}

/// Interesting values for a count-sized field.
const COUNT_VALUES: &[u32] = &[0, 1, 0xFF, 0xFFFF, 0xFFFF_FFFF, 0x8000_0000];

fn check_invariants(input: &[u8]) {
    // What `check --recover` does: whatever recovery reads goes through every validator.
    let checked = pmx_core::validate::check_recovered(input, LoadLimits::default());
    std::hint::black_box(checked);
    let Ok((file, _)) = pmd::read_file(input, &LoadOptions::default()) else {
        return;
    };
    let written = pmd::write_file(&file).expect("a file that was read can be written");
    let (again, _) = pmd::read_file(&written, &LoadOptions::default()).expect("re-reads");
    assert_eq!(pmd::write_file(&again).expect("writes"), written);
    let (model, _) = pmd::to_model(&file);
    let _ = pmd::pmd_losses(&model);
    if let Ok((bytes, _)) = pmd::write(&model) {
        pmd::read(&bytes, &LoadOptions::default()).expect("a written model reads");
    }
}
