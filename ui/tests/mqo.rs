//! File > Import MQO and File > Export MQO through the real editor: import as a new model
//! (named after the MQO, saved as PMX, never written back to the MQO), import merged into the
//! open model as one undo step, and export with the loss list shown before writing.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::formats::mqo::{MqoExportOptions, write_mqo};
use pmx_core::formats::{self, FileFormat};
use pmx_core::generate::feature_model;
use pmx_core::model::{Model, PmxVersion, TextEncoding};
use pmx_ui::EditorState;
use pmx_ui::document::Document;
use pmx_ui::editor::settings::Settings;
use pmx_ui::i18n::Language;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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

fn model() -> Model {
    feature_model(PmxVersion::V2_0, TextEncoding::Utf16, 60, 6)
}

fn with_document(model: Model) -> Harness<'static, EditorState> {
    let mut editor = editor(Language::English);
    editor.open_document(Document::from_model(model, None, None));
    harness(editor)
}

fn wait_for_load(harness: &mut Harness<'_, EditorState>) {
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

/// An MQO of `model` (with its `.mqx`) written into `dir`.
fn write_mqo_file(dir: &Path, model: &Model) -> PathBuf {
    let path = dir.join("part.mqo");
    formats::save_mqo(model, &path, &MqoExportOptions::default()).unwrap();
    path
}

#[test]
fn import_as_a_new_model_is_named_after_the_mqo_and_saved_as_pmx() {
    let dir = tempfile::tempdir().unwrap();
    let source = model();
    let path = write_mqo_file(dir.path(), &source);
    let mut harness = harness(editor(Language::English));
    click(&mut harness, "File");
    harness.get_by_label_contains("Import MQO").click();
    harness.run_ok();
    harness.get_by_label("Import Metasequoia MQO");
    set_path(&mut harness, &path);
    click(&mut harness, "Import");
    wait_for_load(&mut harness);
    let imported = document(&harness);
    assert_eq!(imported.model.faces.len(), source.faces.len());
    assert_eq!(
        imported.model.bones.len(),
        source.bones.len(),
        "bones from the .mqx"
    );
    assert_eq!(imported.path, None, "the MQO is not the model's file");
    assert_eq!(imported.imported_from.as_deref(), Some(path.as_path()));
    assert_eq!(imported.file_name().as_deref(), Some("part.mqo"));
    assert!(!imported.is_dirty());

    // Save offers a PMX beside the MQO; the MQO itself is never overwritten.
    let before = std::fs::read(&path).unwrap();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    harness.run_ok();
    let offered = harness
        .get_by_role_and_label(Role::TextInput, "Path")
        .value()
        .unwrap();
    assert_eq!(offered, dir.path().join("part.pmx").display().to_string());
    click(&mut harness, "Save");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let saved = formats::load_path(&dir.path().join("part.pmx"), &Default::default()).unwrap();
    assert_eq!(saved.format, FileFormat::Pmx);
    assert_eq!(saved.model.faces.len(), source.faces.len());
    assert_eq!(
        document(&harness).path.as_deref(),
        Some(dir.path().join("part.pmx").as_path())
    );
}

#[test]
fn import_merged_into_the_open_model_is_one_undo_step() {
    let dir = tempfile::tempdir().unwrap();
    let part = pmx_core::generate::sample_model();
    let path = write_mqo_file(dir.path(), &part);
    let original = model();
    let mut harness = with_document(original.clone());
    click(&mut harness, "File");
    harness.get_by_label_contains("Import MQO").click();
    harness.run_ok();
    set_path(&mut harness, &path);
    click(&mut harness, "added to the open model (one undo step)");
    click(&mut harness, "Import");
    wait_for_load(&mut harness);
    let merged = &document(&harness).model;
    assert_eq!(merged.faces.len(), original.faces.len() + part.faces.len());
    // Bones named like one of the open model's are that bone (the default).
    let new_bones = part
        .bones
        .iter()
        .filter(|b| !original.bones.iter().any(|o| o.name_ja == b.name_ja))
        .count();
    assert_eq!(merged.bones.len(), original.bones.len() + new_bones);
    assert_eq!(document(&harness).history.len(), 1);
    harness.get_by_label_contains("Added part.mqo to the model");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(
        document(&harness).model == original,
        "undo gives back the model"
    );
}

#[test]
fn export_lists_what_mqo_cannot_hold_then_writes_mqo_and_mqx() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.mqo");
    let original = model();
    let mut harness = with_document(original.clone());
    click(&mut harness, "File");
    harness.get_by_label_contains("Export MQO").click();
    harness.run_ok();
    harness.get_by_label("Export Metasequoia MQO");
    set_path(&mut harness, &path);
    // Before anything is written: the counts and the losses, as the writer reports them.
    let expected = write_mqo(
        &original,
        &MqoExportOptions {
            file_name: "out.mqo".into(),
            ..MqoExportOptions::default()
        },
    )
    .unwrap()
    .report;
    harness.get_by_label_contains(&format!(
        "MQO cannot hold {} things of this model",
        expected.losses.len()
    ));
    harness.get_by_label(&format!(
        "{} objects, {} vertices, {} faces, {} morph targets",
        expected.objects, expected.vertices, expected.faces, expected.morph_targets
    ));
    harness.get_by_label_contains("rigid bodies: MQO has no place for them");
    assert!(!path.exists(), "nothing is written before Export");
    click(&mut harness, "Export");
    assert!(path.exists());
    assert!(
        dir.path().join("out.mqx").exists(),
        "bones and morphs in the .mqx"
    );
    let back = formats::load_path(&path, &Default::default()).unwrap();
    assert_eq!(back.format, FileFormat::Mqo);
    assert_eq!(back.model.faces.len(), original.faces.len());
    // An export is not a save: the document keeps (not) its file and changes nothing.
    assert_eq!(document(&harness).path, None);
    assert!(document(&harness).model == original);
    assert!(document(&harness).history.is_empty());
}

#[test]
fn the_mqo_dialogs_speak_japanese() {
    let mut editor = editor(Language::Japanese);
    editor.open_document(Document::from_model(model(), None, None));
    let mut harness = harness(editor);
    click(&mut harness, "ファイル");
    harness.get_by_label_contains("MQO形式で出力").click();
    harness.run_ok();
    harness.get_by_label("メタセコイアMQO形式で出力");
    harness.get_by_label_contains("MQOで保持できないものが");
    let rigid_bodies = model().rigid_bodies.len();
    harness.get_by_label_contains(&format!("剛体{rigid_bodies}個: MQOには保存できない"));
    click(&mut harness, "キャンセル");
    click(&mut harness, "ファイル");
    harness.get_by_label_contains("MQO読み込み").click();
    harness.run_ok();
    harness.get_by_label("メタセコイアMQOの読み込み");
    harness.get_by_label("非表示のオブジェクトは読み込まない");
}
