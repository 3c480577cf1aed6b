//! PMD files as MikuMikuDance's own bundle writes them (初音ミク.pmd, ミクVer2.pmd): zeros after
//! each name's terminator instead of PMDEditor's 0xFD, and bone frame names with or without
//! PMDEditor's trailing "\n". PMD → model → PMD gives the same bytes for each (generated here);
//! real bundle files are read from `$PMX_STUDIO_MMD_BUNDLE` (a folder) and the corpus when
//! present, and skipped with a printed reason otherwise.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::pmd::{self, PmdFile};
use pmx_core::generate::sample_model;
use pmx_core::model::PmdTextSlot;
use pmx_tests::{corpus_dir, files_with_extension};
use std::path::PathBuf;

/// A PMD file written from the sample model, as its raw sections.
fn sample_pmd() -> PmdFile {
    let (bytes, _) = pmd::write(&sample_model()).unwrap();
    let (file, report) = pmd::read_file(&bytes, &LoadOptions::default()).unwrap();
    assert!(report.notes.is_empty(), "{:?}", report.notes);
    assert!(
        !file.bone_frame_names.is_empty(),
        "the sample has bone frames"
    );
    file
}

/// Every text field of `file` with `pad` after its terminator (as MikuMikuDance writes zeros).
fn pad_every_field(file: &mut PmdFile, pad: u8) {
    let slots: Vec<(PmdTextSlot, usize)> = file
        .text_fields()
        .map(|(slot, len, _)| (slot, len))
        .collect();
    for (slot, len) in slots {
        let text = file.text_field_mut(slot).unwrap();
        if text.bytes.len() < len {
            let mut padding = vec![pad; len - text.bytes.len()];
            padding[0] = 0;
            text.padding = padding;
        }
    }
}

/// The bone frame names without their trailing "\n" where `keep` says so.
fn frame_newlines(file: &mut PmdFile, keep: impl Fn(usize) -> bool) {
    for (i, name) in file.bone_frame_names.iter_mut().enumerate() {
        if !keep(i) && name.bytes.last() == Some(&b'\n') {
            name.bytes.pop();
            if !name.padding.is_empty() {
                name.padding.push(name.padding.last().copied().unwrap_or(0));
            }
        }
    }
}

/// PMD → model → PMD gives `bytes` back, and so does open → save as PMX → open → save as PMD?
/// (PMX has no place for the padding: only the first.)
fn assert_same_bytes_through_the_model(bytes: &[u8], context: &str) {
    let (model, _) = pmd::read(bytes, &LoadOptions::default()).unwrap();
    let (written, _) = pmd::write(&model).unwrap();
    if written != bytes {
        let at = written
            .iter()
            .zip(bytes)
            .position(|(a, b)| a != b)
            .unwrap_or(written.len().min(bytes.len()));
        panic!(
            "{context}: PMD → model → PMD differs at byte {at} of {} (written {:02x?}, file {:02x?})",
            bytes.len(),
            &written[at..(at + 8).min(written.len())],
            &bytes[at..(at + 8).min(bytes.len())]
        );
    }
}

#[test]
fn zero_padding_comes_back_as_zeros() {
    let mut file = sample_pmd();
    pad_every_field(&mut file, 0);
    let bytes = pmd::write_file(&file).unwrap();
    // The names are there with zeros after them, not 0xFD.
    let name = file.bones[0].name.as_bytes();
    let at = bytes
        .windows(name.len() + 2)
        .position(|w| w[..name.len()] == *name && w[name.len()..] == [0, 0])
        .expect("a bone name padded with zeros");
    assert!(at > 0);
    assert_same_bytes_through_the_model(&bytes, "zero padding");
}

#[test]
fn fd_padding_comes_back_as_fd() {
    let mut file = sample_pmd();
    pad_every_field(&mut file, 0xFD);
    let bytes = pmd::write_file(&file).unwrap();
    assert_same_bytes_through_the_model(&bytes, "0xFD padding");
}

#[test]
fn frame_names_come_back_with_or_without_their_newline() {
    for pad in [0, 0xFD] {
        // Without any "\n" (MikuMikuDance's own files), and every other one without.
        for keep_every_other in [false, true] {
            let mut file = sample_pmd();
            pad_every_field(&mut file, pad);
            frame_newlines(&mut file, |i| keep_every_other && i % 2 == 0);
            let bytes = pmd::write_file(&file).unwrap();
            let context = format!("padding {pad:#x}, newline on every other: {keep_every_other}");
            assert_same_bytes_through_the_model(&bytes, &context);
            // The names read the same with or without the newline.
            let (model, _) = pmd::read(&bytes, &LoadOptions::default()).unwrap();
            assert!(
                model
                    .display_frames
                    .iter()
                    .all(|frame| !frame.name_ja.as_str().ends_with('\n')),
                "{context}"
            );
        }
    }
    // The writer's own frame names keep their "\n" (PMDEditor needs it).
    let file = sample_pmd();
    assert!(
        file.bone_frame_names
            .iter()
            .all(|name| name.bytes.ends_with(b"\n"))
    );
}

/// A renamed frame gets the writer's defaults: "\n" and 0xFD padding.
#[test]
fn a_renamed_frame_gets_the_writers_defaults() {
    let mut file = sample_pmd();
    pad_every_field(&mut file, 0);
    frame_newlines(&mut file, |_| false);
    let bytes = pmd::write_file(&file).unwrap();
    let (mut model, _) = pmd::read(&bytes, &LoadOptions::default()).unwrap();
    let frame = model
        .display_frames
        .iter_mut()
        .find(|frame| !frame.special)
        .expect("a bone frame");
    frame.name_ja = "新しい枠".into();
    let (written, _) = pmd::write(&model).unwrap();
    let (file, _) = pmd::read_file(&written, &LoadOptions::default()).unwrap();
    let renamed = file
        .bone_frame_names
        .iter()
        .find(|name| name.bytes.ends_with(b"\n"))
        .expect("the renamed frame ends with a newline");
    assert!(renamed.padding.is_empty(), "default padding");
}

/// The folders real MikuMikuDance bundle files are read from.
fn bundle_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    if let Some(dir) = std::env::var_os("PMX_STUDIO_MMD_BUNDLE") {
        files.extend(files_with_extension(&PathBuf::from(dir), "pmd"));
    }
    if let Some(dir) = corpus_dir("pmd") {
        files.extend(files_with_extension(&dir, "pmd"));
    }
    files
}

#[test]
fn real_pmd_files_come_back_byte_for_byte() {
    let files = bundle_files();
    if files.is_empty() {
        eprintln!(
            "skipped: no PMD files (set PMX_STUDIO_MMD_BUNDLE to a folder of MikuMikuDance's bundle models, or add ../shared/corpus/pmd)"
        );
        return;
    }
    if std::env::var_os("PMX_STUDIO_MMD_BUNDLE").is_none() {
        eprintln!(
            "note: PMX_STUDIO_MMD_BUNDLE is not set; only the corpus PMD files are checked (no MikuMikuDance bundle file is in the corpus)"
        );
    }
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.display().to_string();
        let (file, _) = pmd::read_file(&bytes, &LoadOptions::default()).unwrap();
        assert_eq!(pmd::write_file(&file).unwrap(), bytes, "{name}: raw");
        assert_same_bytes_through_the_model(&bytes, &name);
    }
}
