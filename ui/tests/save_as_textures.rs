//! Save as into another folder (issue 39): the editor's save rewrites the model's relative
//! texture paths so they still reach the images from the new file, as one undoable edit, and
//! saving beside the source keeps the paths as they were.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::LoadOptions;
use pmx_core::formats;
use pmx_ui::EditorState;
use pmx_ui::command::Command;
use pmx_ui::i18n::Language;
use std::path::Path;
use std::time::{Duration, Instant};

mod support;
use support::document;

/// Each material's texture image bytes, found from the folder of the model at `path`.
fn texture_bytes(path: &Path) -> Vec<Option<Vec<u8>>> {
    let model = formats::load_path(path, &LoadOptions::default())
        .unwrap()
        .model;
    let folder = formats::folder_of(path);
    model
        .materials
        .iter()
        .map(|m| {
            let name = model.textures.get(m.texture?.get())?.as_str().into_owned();
            std::fs::read(pmx_core::texture::resolve(folder, &name)?).ok()
        })
        .collect()
}

/// The textured model written in `dir/src`.
fn textured_source(dir: &Path) -> std::path::PathBuf {
    let source_dir = dir.join("src");
    std::fs::create_dir_all(&source_dir).unwrap();
    pmx_core::generate::textured_model()
        .write(&source_dir, "model.pmx")
        .unwrap()
}

fn open(harness: &mut Harness<'_, EditorState>, path: &Path) {
    harness.state_mut().push(Command::Open(path.to_owned()));
    harness.run_ok();
    let started = Instant::now();
    while harness.state().loading.is_some() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "load did not finish"
        );
        harness.step();
        std::thread::sleep(Duration::from_millis(5));
    }
    harness.run_ok();
}

fn save_to(harness: &mut Harness<'_, EditorState>, path: &Path) {
    let settings = document(harness).save_settings;
    harness.state_mut().push(Command::SaveTo {
        path: path.to_owned(),
        settings,
        then: None,
    });
    harness.run_ok();
}

#[test]
fn save_as_into_another_folder_keeps_every_texture() {
    let dir = tempfile::tempdir().unwrap();
    let source = textured_source(dir.path());
    let source_dir = source.parent().unwrap();
    let expected = texture_bytes(&source);
    assert!(expected.iter().all(Option::is_some));

    let mut harness = support::harness_of(
        support::editor(Language::English),
        pmx_core::model::Model::new_empty(),
    );
    open(&mut harness, &source);

    // Beside the source: the same paths, the same bytes.
    let beside = source_dir.join("copy.pmx");
    save_to(&mut harness, &beside);
    assert_eq!(
        std::fs::read(&beside).unwrap(),
        std::fs::read(&source).unwrap()
    );

    // Another folder: the paths reach the same images, and the document says so too.
    let other = dir.path().join("other/deeper/model.pmx");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    save_to(&mut harness, &other);
    assert_eq!(texture_bytes(&other), expected);
    let doc = document(&harness);
    assert_eq!(doc.path.as_deref(), Some(other.as_path()));
    assert!(!doc.is_dirty(), "the rewrite is part of what was saved");
    assert!(
        doc.model.textures[0].as_str().starts_with("..\\..\\src\\")
            || doc.model.textures[0].as_str().starts_with("../../src/"),
        "{}",
        doc.model.textures[0].as_str()
    );
}

/// Save as PMD into a folder from which the rewritten paths would not fit PMD's 20-byte
/// texture field (`../../src/tex/hair.png`): the images are copied beside the file instead, so
/// every material whose field fitted in the source still shows its texture.
#[test]
fn save_as_pmd_far_away_copies_the_images_its_fields_could_not_reach() {
    let dir = tempfile::tempdir().unwrap();
    let source = textured_source(dir.path());
    let model = formats::load_path(&source, &LoadOptions::default())
        .unwrap()
        .model;
    // `texture*sphere` is over 20 bytes in the source already: cut wherever the file goes.
    let fitting: Vec<usize> = model
        .materials
        .iter()
        .enumerate()
        .filter(|(_, m)| m.sphere_texture.is_none() && m.texture.is_some())
        .map(|(i, _)| i)
        .collect();
    assert!(fitting.len() >= 2);
    let expected = texture_bytes(&source);

    let mut harness = support::harness_of(
        support::editor(Language::English),
        pmx_core::model::Model::new_empty(),
    );
    open(&mut harness, &source);
    let other = dir.path().join("other/deeper/model.pmd");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    save_to(&mut harness, &other);
    let saved = texture_bytes(&other);
    for &i in &fitting {
        assert!(expected[i].is_some());
        assert_eq!(saved[i], expected[i], "material {i}");
    }
    assert!(other.parent().unwrap().join("tex/hair.png").is_file());
    assert_eq!(document(&harness).path.as_deref(), Some(other.as_path()));
    // The status line says why the images are there, beside the count of what PMD lost.
    harness.run_ok();
    harness.get_by_label_contains("do not fit PMD's 20-byte texture field");
}
