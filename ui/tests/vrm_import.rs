//! File > Import VRM through the real editor: an avatar as a new model (its embedded images
//! unpacked so the view and the validator find them, written beside the PMX on save, the VRM
//! never written), merged into the open model as one undo step that undo gives back exactly,
//! the physics option, and the dialog in Japanese. Skipped with the reason printed when the
//! corpus is absent.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::formats::{self, FileFormat};
use pmx_core::model::Model;
use pmx_ui::EditorState;
use pmx_ui::document::Document;
use pmx_ui::editor::settings::Settings;
use pmx_ui::i18n::Language;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn corpus(file: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus")
        .join(file);
    if path.is_file() {
        Some(path)
    } else {
        println!("skipped: corpus file {} is absent", path.display());
        None
    }
}

fn editor(language: Language) -> EditorState {
    EditorState::new(Settings {
        language,
        ..Settings::default()
    })
}

fn harness(editor: EditorState) -> Harness<'static, EditorState> {
    let mut harness = Harness::builder()
        .with_size(egui::Vec2::new(1500.0, 900.0))
        .with_context_setup(pmx_ui::editor::fonts::install)
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();
    harness
}

fn wait_for_load(harness: &mut Harness<'_, EditorState>) {
    let started = Instant::now();
    while harness.state().loading.is_some() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "load did not finish"
        );
        harness.step();
        std::thread::sleep(Duration::from_millis(5));
    }
    harness.run_ok();
}

fn click(harness: &mut Harness<'_, EditorState>, label: &str) {
    harness.get_by_label(label).click();
    harness.run_ok();
}

fn set_path(harness: &mut Harness<'_, EditorState>, path: &Path) {
    harness
        .get_by_role_and_label(Role::TextInput, "Path")
        .set_text_value_accesskit(&path.display().to_string());
    harness.run_ok();
}

fn document<'a>(harness: &'a Harness<'_, EditorState>) -> &'a Document {
    harness
        .state()
        .document
        .as_ref()
        .expect("a document is open")
}

fn open_import_dialog(harness: &mut Harness<'_, EditorState>) {
    click(harness, "File");
    harness.get_by_label_contains("Import VRM").click();
    harness.run_ok();
    harness.get_by_label("Import VRM (1.0 / 0.x) or glTF");
}

#[test]
fn an_avatar_imports_as_a_new_model_and_saves_with_its_images() {
    let Some(vrm) = corpus("vrm/godette_vrm0_cc_by.vrm") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("godette.vrm");
    std::fs::copy(&vrm, &source).unwrap();
    let before = std::fs::read(&source).unwrap();
    let mut harness = harness(editor(Language::English));
    open_import_dialog(&mut harness);
    set_path(&mut harness, &source);
    click(&mut harness, "Import");
    wait_for_load(&mut harness);
    let imported = document(&harness);
    assert!(
        imported
            .model
            .bones
            .iter()
            .any(|b| b.name_ja.as_str() == "センター")
    );
    assert_eq!(imported.path, None, "the VRM is not the model's file");
    assert_eq!(imported.imported_from.as_deref(), Some(source.as_path()));
    assert!(!imported.is_dirty(), "opening is not an edit");
    // The images are where the view and the validator look, before anything is saved.
    let folder = imported.folder().unwrap().to_owned();
    assert_ne!(folder, dir.path(), "nothing is written beside the VRM yet");
    for texture in &imported.model.textures {
        assert!(folder.join(texture.as_str().as_ref()).is_file());
    }
    let missing = pmx_core::validate::check(&imported.model, None, &imported.check_options(None))
        .into_iter()
        .filter(|issue| issue.code.starts_with("W-TEXTURE"))
        .count();
    assert_eq!(missing, 0);

    // Save offers a PMX beside the VRM and writes the images with it.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    harness.run_ok();
    let offered = harness
        .get_by_role_and_label(Role::TextInput, "Path")
        .value()
        .unwrap();
    assert_eq!(
        offered,
        dir.path().join("godette.pmx").display().to_string()
    );
    click(&mut harness, "Save");
    assert_eq!(
        std::fs::read(&source).unwrap(),
        before,
        "the VRM is untouched"
    );
    let saved = formats::load_path(&dir.path().join("godette.pmx"), &Default::default()).unwrap();
    assert_eq!(saved.format, FileFormat::Pmx);
    for texture in &saved.model.textures {
        let image = dir.path().join(texture.as_str().as_ref());
        assert!(image.is_file(), "{} written on save", image.display());
    }
    let document = document(&harness);
    assert!(document.unpacked.is_none());
    assert_eq!(document.folder(), Some(dir.path()));
}

#[test]
fn an_avatar_merged_into_the_open_model_is_one_undo_step() {
    let Some(vrm) = corpus("vrm/s06_example_vrm1_skinned.vrm") else {
        return;
    };
    let original: Model = pmx_core::generate::sample_model();
    let mut editor = editor(Language::English);
    editor.open_document(Document::from_model(original.clone(), None, None));
    let mut harness = harness(editor);
    open_import_dialog(&mut harness);
    set_path(&mut harness, &vrm);
    click(&mut harness, "added to the open model (one undo step)");
    click(&mut harness, "Import");
    wait_for_load(&mut harness);
    let merged = &document(&harness).model;
    assert!(merged.vertices.len() > original.vertices.len() + 1000);
    assert_eq!(document(&harness).history.len(), 1);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(
        document(&harness).model == original,
        "undo gives back the model"
    );
}

#[test]
fn an_avatar_merged_into_a_saved_model_puts_its_images_beside_it() {
    let Some(vrm) = corpus("vrm/godette_vrm0_cc_by.vrm") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pmx = dir.path().join("figure.pmx");
    formats::save_path(
        &pmx_core::generate::sample_model(),
        &pmx,
        &Default::default(),
    )
    .unwrap();
    let loaded = formats::load_path(&pmx, &Default::default()).unwrap();
    let mut editor = editor(Language::English);
    editor.open_document(Document::from_loaded(pmx.clone(), loaded, None));
    let mut harness = harness(editor);
    open_import_dialog(&mut harness);
    set_path(&mut harness, &vrm);
    click(&mut harness, "added to the open model (one undo step)");
    click(&mut harness, "Import");
    wait_for_load(&mut harness);
    let document = document(&harness);
    assert_eq!(document.folder(), Some(dir.path()));
    assert!(!document.model.textures.is_empty());
    // The view and the validator look beside the model's file: the images are there now.
    for texture in &document.model.textures {
        let image = dir.path().join(texture.as_str().as_ref());
        assert!(image.is_file(), "{} written", image.display());
    }
    let missing = pmx_core::validate::check(&document.model, None, &document.check_options(None))
        .into_iter()
        .filter(|issue| issue.code.starts_with("W-TEXTURE"))
        .count();
    assert_eq!(missing, 0);
}

#[test]
fn without_physics_no_rigid_bodies_are_made() {
    let Some(vrm) = corpus("vrm/metalkit_springbone_capsule_collider_vrm1.vrm") else {
        return;
    };
    let mut counts = Vec::new();
    for physics in [true, false] {
        let mut harness = harness(editor(Language::English));
        open_import_dialog(&mut harness);
        set_path(&mut harness, &vrm);
        if !physics {
            click(
                &mut harness,
                "Spring bones become rigid bodies and joints; colliders static bodies",
            );
        }
        click(&mut harness, "Import");
        wait_for_load(&mut harness);
        counts.push(document(&harness).model.rigid_bodies.len());
    }
    assert!(counts[0] > 0, "the spring chain becomes bodies: {counts:?}");
    assert_eq!(counts[1], 0);
}

#[test]
fn the_import_dialog_speaks_japanese() {
    let mut harness = harness(editor(Language::Japanese));
    click(&mut harness, "ファイル");
    harness.get_by_label_contains("VRM・glTF読み込み").click();
    harness.run_ok();
    harness.get_by_label("VRM (1.0 / 0.x)・glTF のインポート");
    harness.get_by_label(
        "揺れもの（スプリングボーン）を剛体とジョイントに、コライダーを静的剛体にする",
    );
}
