//! Saving never overwrites a source it did not read whole: a model opened in recovery mode, or
//! converted from another format (VRM, CSV, PMD), has no silent save in place. Ctrl+S asks for
//! a `.pmx` beside the source (`NAME.recovered.pmx`, `NAME.pmx`), the source's bytes stay as
//! they were, and writing over it (typed, or from the native dialog) happens only after a
//! question that says what would be lost. Once saved to a new file, Ctrl+S saves in place.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::formats::{self, FileFormat, SaveOptions};
use pmx_core::generate::{feature_model, sample_model};
use pmx_core::model::{Model, PmxVersion, TextEncoding};
use pmx_ui::EditorState;
use pmx_ui::command::Command;
use pmx_ui::document::SourceLoss;
use pmx_ui::editor::BrowsePurpose;
use pmx_ui::i18n::Language;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod support;
use support::{click, document};

fn harness(language: Language) -> Harness<'static, EditorState> {
    let mut harness = Harness::builder()
        .with_size(egui::Vec2::new(1500.0, 900.0))
        .with_context_setup(pmx_ui::editor::fonts::install)
        .build_ui_state(
            |ui, editor: &mut EditorState| editor.ui(ui),
            support::editor(language),
        );
    harness.run_ok();
    harness
}

/// Steps frames until the background load is done.
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

/// Opens `path` as File > Open does.
fn open(harness: &mut Harness<'_, EditorState>, path: &Path) {
    harness.state_mut().push(Command::Open(path.to_owned()));
    harness.run_ok();
    wait_for_load(harness);
}

fn ctrl_s(harness: &mut Harness<'_, EditorState>) {
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::S);
    harness.run_ok();
}

/// The Save as dialog's path field.
fn offered_path(harness: &Harness<'_, EditorState>) -> PathBuf {
    PathBuf::from(
        harness
            .get_by_role_and_label(Role::TextInput, "Path")
            .value()
            .expect("the path field has a value"),
    )
}

fn set_path(harness: &mut Harness<'_, EditorState>, path: &Path) {
    harness
        .get_by_role_and_label(Role::TextInput, "Path")
        .set_text_value_accesskit(&path.display().to_string());
    harness.run_ok();
}

fn is_showing(harness: &Harness<'_, EditorState>, label: &str) -> bool {
    harness.query_by_label(label).is_some()
}

/// A small PMX 2.1 model using every feature.
fn model() -> Model {
    feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 24, 4)
}

/// `cut.pmx` in `dir`: the model's file cut after two thirds, which only recovery mode reads
/// (everything after the cut is lost, and what was read refers to what was not).
fn damaged_pmx(dir: &Path) -> PathBuf {
    let path = dir.join("cut.pmx");
    let (bytes, _) = formats::pmx::write(&model(), &Default::default()).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() * 2 / 3]).unwrap();
    path
}

/// Opens `path` (a damaged file): the reader's error, then 復旧モードで開く.
fn open_in_recovery_mode(harness: &mut Harness<'_, EditorState>, path: &Path) {
    open(harness, path);
    click(harness, "Open in recovery mode");
    wait_for_load(harness);
    assert!(
        matches!(
            document(harness).source_loss,
            Some(SourceLoss::Recovered { .. })
        ),
        "{:?}",
        document(harness).source_loss
    );
}

/// A change to the model (the comment), through a command as a panel would push it.
fn edit_comment(harness: &mut Harness<'_, EditorState>, text: &str) {
    harness.state_mut().push(Command::set(
        pmx_core::edit::field::<pmx_core::model::ModelInfo>().comment_en(),
        Vec::new(),
        text.into(),
    ));
    harness.run_ok();
}

#[test]
fn ctrl_s_after_recovery_asks_for_a_new_file_and_leaves_the_damaged_one() {
    let dir = tempfile::tempdir().unwrap();
    let damaged = damaged_pmx(dir.path());
    let before = std::fs::read(&damaged).unwrap();
    let mut harness = harness(Language::English);
    open_in_recovery_mode(&mut harness, &damaged);

    // Ctrl+S asks: a new PMX beside the damaged one, and why.
    ctrl_s(&mut harness);
    assert!(is_showing(&harness, "Save as"));
    assert_eq!(offered_path(&harness), dir.path().join("cut.recovered.pmx"));
    harness.get_by_label_contains("cut.pmx was read only in part (recovery mode)");
    assert_eq!(std::fs::read(&damaged).unwrap(), before, "nothing written");

    // The damaged file itself, typed: Save asks again, saying what would be lost.
    set_path(&mut harness, &damaged);
    click(&mut harness, "Save");
    assert!(is_showing(&harness, "Overwrite the original file?"));
    let problems = document(&harness).load_report.as_ref().unwrap().notes.len();
    harness.get_by_label_contains(&format!(
        "cut.pmx was read only in part: {problems} problems while reading it"
    ));
    harness.get_by_label_contains("what was not read is lost for good");
    assert_eq!(std::fs::read(&damaged).unwrap(), before);
    // Back to Save as, then Cancel: nothing written.
    click(&mut harness, "Choose another name");
    assert!(is_showing(&harness, "Save as"));
    assert_eq!(offered_path(&harness), damaged);
    click(&mut harness, "Cancel");
    assert!(!is_showing(&harness, "Save as"));
    assert_eq!(std::fs::read(&damaged).unwrap(), before);

    // The native dialog only fills the path field: picking the damaged file asks the same.
    ctrl_s(&mut harness);
    harness
        .state_mut()
        .browse_finished(BrowsePurpose::Save, Some(damaged.clone()));
    harness.run_ok();
    assert_eq!(offered_path(&harness), damaged);
    click(&mut harness, "Save");
    assert!(is_showing(&harness, "Overwrite the original file?"));
    click(&mut harness, "Cancel");
    assert_eq!(std::fs::read(&damaged).unwrap(), before);

    // Saved as suggested, the model is an ordinary PMX document.
    ctrl_s(&mut harness);
    click(&mut harness, "Save");
    let recovered = dir.path().join("cut.recovered.pmx");
    assert_eq!(std::fs::read(&damaged).unwrap(), before);
    let saved = formats::load_path(&recovered, &Default::default()).expect("a whole PMX");
    assert_eq!(saved.format, FileFormat::Pmx);
    assert!(saved.model == document(&harness).model);
    let document_now = document(&harness);
    assert_eq!(document_now.path.as_deref(), Some(recovered.as_path()));
    assert_eq!(document_now.source_loss, None);
    assert!(!document_now.is_dirty());
    assert_eq!(harness.state().title(), "cut.recovered.pmx - PMX Studio");

    // ...which Ctrl+S now saves in place, without a question.
    edit_comment(&mut harness, "after recovery");
    ctrl_s(&mut harness);
    assert!(!is_showing(&harness, "Save as"));
    assert!(!document(&harness).is_dirty());
    let saved = formats::load_path(&recovered, &Default::default()).unwrap();
    assert_eq!(saved.model.info.comment_en.as_str(), "after recovery");
    assert_eq!(std::fs::read(&damaged).unwrap(), before);
}

#[test]
fn the_damaged_original_is_overwritten_only_after_the_explicit_yes() {
    let dir = tempfile::tempdir().unwrap();
    let damaged = damaged_pmx(dir.path());
    let before = std::fs::read(&damaged).unwrap();
    let mut harness = harness(Language::English);
    open_in_recovery_mode(&mut harness, &damaged);
    edit_comment(&mut harness, "kept what was read");

    // Closing with unsaved changes and choosing Save asks for a path too, then closes.
    harness.state_mut().push(Command::New);
    harness.run_ok();
    assert!(harness.state().is_asking_to_save());
    click(&mut harness, "Save");
    assert!(is_showing(&harness, "Save as"));
    assert_eq!(std::fs::read(&damaged).unwrap(), before);
    set_path(&mut harness, &damaged);
    click(&mut harness, "Save");
    assert_eq!(
        std::fs::read(&damaged).unwrap(),
        before,
        "not before the yes"
    );
    click(&mut harness, "Overwrite cut.pmx");
    assert_ne!(std::fs::read(&damaged).unwrap(), before);
    let saved = formats::load_path(&damaged, &Default::default()).expect("a whole PMX now");
    assert_eq!(saved.model.info.comment_en.as_str(), "kept what was read");
    // The New the question came from went ahead.
    assert_eq!(document(&harness).path, None);
    assert_eq!(harness.state().title(), "untitled - PMX Studio");
}

#[test]
fn the_question_speaks_japanese() {
    let dir = tempfile::tempdir().unwrap();
    let damaged = damaged_pmx(dir.path());
    let mut harness = harness(Language::Japanese);
    open(&mut harness, &damaged);
    click(&mut harness, "復旧モードで開く");
    wait_for_load(&mut harness);
    ctrl_s(&mut harness);
    assert!(is_showing(&harness, "名前を付けて保存"));
    harness.get_by_label_contains("cut.pmx は一部しか読めていません (復旧モード)");
    harness
        .get_by_role_and_label(Role::TextInput, "パス")
        .set_text_value_accesskit(&damaged.display().to_string());
    harness.run_ok();
    click(&mut harness, "保存");
    assert!(is_showing(&harness, "元のファイルを上書きしますか？"));
    harness.get_by_label_contains("読めなかった部分は失われて");
    assert!(is_showing(&harness, "cut.pmx を上書き"));
    click(&mut harness, "キャンセル");
}

#[test]
fn an_imported_vrm_is_saved_as_a_new_pmx_and_never_written_over() {
    let dir = tempfile::tempdir().unwrap();
    let vrm = dir.path().join("avatar.vrm");
    formats::save_path(&sample_model(), &vrm, &SaveOptions::default()).unwrap();
    let before = std::fs::read(&vrm).unwrap();
    let mut harness = harness(Language::English);
    open(&mut harness, &vrm);
    assert_eq!(
        document(&harness).source_loss,
        Some(SourceLoss::Foreign(FileFormat::Vrm))
    );
    // File > Export VRM over the avatar asks first too.
    harness.state_mut().push(Command::Export {
        format: FileFormat::Vrm,
        path: vrm.clone(),
        options: Box::default(),
    });
    harness.run_ok();
    harness.get_by_label_contains(
        "avatar.vrm is the VRM file this model was converted from. Writing over it replaces that \
         file with a VRM file written from the converted model",
    );
    click(&mut harness, "Cancel");
    assert_eq!(std::fs::read(&vrm).unwrap(), before);

    ctrl_s(&mut harness);
    assert_eq!(offered_path(&harness), dir.path().join("avatar.pmx"));
    harness.get_by_label_contains("converted from avatar.vrm (VRM)");
    // Save as writes no VRM, typed or picked in the native dialog.
    set_path(&mut harness, &vrm);
    harness.get_by_label_contains("VRM is written with File > Export VRM");
    click(&mut harness, "Save");
    harness
        .state_mut()
        .browse_finished(BrowsePurpose::Save, Some(vrm.clone()));
    harness.run_ok();
    click(&mut harness, "Save");
    assert!(is_showing(&harness, "Save as"), "Save is disabled for .vrm");
    assert_eq!(std::fs::read(&vrm).unwrap(), before);

    set_path(&mut harness, &dir.path().join("avatar.pmx"));
    click(&mut harness, "Save");
    assert_eq!(std::fs::read(&vrm).unwrap(), before, "the VRM is untouched");
    let pmx = dir.path().join("avatar.pmx");
    assert_eq!(
        formats::load_path(&pmx, &Default::default())
            .unwrap()
            .format,
        FileFormat::Pmx
    );
    edit_comment(&mut harness, "edited");
    ctrl_s(&mut harness);
    assert!(!is_showing(&harness, "Save as"), "now a PMX document");
    let saved = formats::load_path(&pmx, &Default::default()).unwrap();
    assert_eq!(saved.model.info.comment_en.as_str(), "edited");
    assert_eq!(std::fs::read(&vrm).unwrap(), before);
}

#[test]
fn a_csv_is_converted_its_overwrite_asks_and_a_csv_saved_here_saves_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("table.csv");
    formats::save_path(&sample_model(), &csv, &SaveOptions::default()).unwrap();
    let before = std::fs::read(&csv).unwrap();
    let mut harness = harness(Language::English);
    open(&mut harness, &csv);
    assert_eq!(document(&harness).path.as_deref(), Some(csv.as_path()));
    assert_eq!(
        document(&harness).source_loss,
        Some(SourceLoss::Foreign(FileFormat::Csv))
    );
    edit_comment(&mut harness, "from the table");
    ctrl_s(&mut harness);
    assert_eq!(offered_path(&harness), dir.path().join("table.pmx"));
    assert_eq!(std::fs::read(&csv).unwrap(), before);

    // Over the CSV itself: the question names the formats, and Cancel writes nothing.
    set_path(&mut harness, &csv);
    click(&mut harness, "Save");
    harness.get_by_label_contains(
        "table.csv is the CSV file this model was converted from. Writing over it replaces that \
         file with a CSV file written from the converted model",
    );
    click(&mut harness, "Cancel");
    assert_eq!(std::fs::read(&csv).unwrap(), before);
    assert!(document(&harness).is_dirty());

    // A CSV this editor writes is its own file: Ctrl+S saves it in place.
    let own = dir.path().join("own.csv");
    ctrl_s(&mut harness);
    set_path(&mut harness, &own);
    click(&mut harness, "Save");
    assert!(!is_showing(&harness, "Overwrite the original file?"));
    assert_eq!(document(&harness).path.as_deref(), Some(own.as_path()));
    edit_comment(&mut harness, "again");
    ctrl_s(&mut harness);
    assert!(!is_showing(&harness, "Save as"));
    assert!(!document(&harness).is_dirty());
    let text = std::fs::read_to_string(&own).unwrap();
    assert!(text.contains("again"));
    assert_eq!(std::fs::read(&csv).unwrap(), before);

    // Opened again, File > Export CSV suggests the CSV itself: written only after the yes.
    open(&mut harness, &csv);
    edit_comment(&mut harness, "exported over");
    click(&mut harness, "File");
    harness
        .get_by_label_contains("Export CSV (PmxEditor)")
        .click();
    harness.run_ok();
    click(&mut harness, "Export");
    assert!(is_showing(&harness, "Overwrite the original file?"));
    assert_eq!(std::fs::read(&csv).unwrap(), before);
    click(&mut harness, "Overwrite table.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.contains("exported over"), "the export was written");
    // An export leaves the document as it was: still the CSV it came from, unsaved.
    assert!(document(&harness).is_dirty());
}

#[test]
fn a_pmd_is_saved_as_pmx_and_written_over_only_after_the_question() {
    let dir = tempfile::tempdir().unwrap();
    let pmd = dir.path().join("old.pmd");
    formats::save_path(&sample_model(), &pmd, &SaveOptions::default()).unwrap();
    let before = std::fs::read(&pmd).unwrap();
    let mut harness = harness(Language::English);
    open(&mut harness, &pmd);
    assert_eq!(
        document(&harness).source_loss,
        Some(SourceLoss::Foreign(FileFormat::Pmd))
    );
    edit_comment(&mut harness, "x");
    ctrl_s(&mut harness);
    assert_eq!(offered_path(&harness), dir.path().join("old.pmx"));
    harness.get_by_label_contains("converted from old.pmd (PMD)");
    set_path(&mut harness, &pmd);
    click(&mut harness, "Save");
    harness.get_by_label_contains("old.pmd is the PMD file this model was converted from");
    assert_eq!(std::fs::read(&pmd).unwrap(), before);
    click(&mut harness, "Overwrite old.pmd");
    assert!(!document(&harness).is_dirty());
    let saved = formats::load_path(&pmd, &Default::default()).unwrap();
    assert_eq!(saved.format, FileFormat::Pmd);
    // A PMD file is still saved as PMX by Ctrl+S (what PMD cannot hold is listed there).
    ctrl_s(&mut harness);
    assert_eq!(offered_path(&harness), dir.path().join("old.pmx"));
    assert!(!is_showing(&harness, "Overwrite the original file?"));
}
