//! File > Export CSV and Import CSV through the real editor: the export writes PmxEditor's CSV
//! without touching the document; the import opens it as the same model.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::formats::FileFormat;
use pmx_core::formats::csv::read_csv;
use pmx_core::generate::sample_model;
use pmx_ui::EditorState;
use pmx_ui::document::Document;
use pmx_ui::editor::BrowsePurpose;
use pmx_ui::editor::settings::Settings;
use pmx_ui::i18n::Language;
use std::time::{Duration, Instant};

#[test]
fn export_csv_writes_the_model_and_import_csv_opens_it_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.csv");
    let model = sample_model();
    let mut editor = EditorState::new(Settings {
        language: Language::English,
        ..Settings::default()
    });
    editor.open_document(Document::from_model(model.clone(), None, None));
    let mut harness = Harness::builder()
        .with_size(egui::Vec2::new(1400.0, 900.0))
        .with_context_setup(pmx_ui::editor::fonts::install)
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();
    harness.get_by_label("File").click();
    harness.run_ok();
    harness
        .get_by_label_contains("Export CSV (PmxEditor)")
        .click();
    harness.run_ok();
    harness.get_by_label("Export CSV");
    harness
        .state_mut()
        .browse_finished(BrowsePurpose::Export(FileFormat::Csv), Some(path.clone()));
    harness.run_ok();
    harness.get_by_label("Export").click();
    harness.run_ok();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(";PmxVertex,"), "PmxEditor's header lines");
    assert!(read_csv(text.trim_start_matches('\u{feff}')).unwrap() == model);
    let document = harness.state().document.as_ref().unwrap();
    assert!(document.history.is_empty() && !document.is_dirty() && document.path.is_none());

    // Import: the CSV opens as the model (the sample was never saved: nothing to ask).
    harness
        .state_mut()
        .browse_finished(BrowsePurpose::Import(FileFormat::Csv), Some(path.clone()));
    let started = Instant::now();
    while harness.state().loading.is_some()
        || harness.state().document.as_ref().unwrap().path.as_deref() != Some(path.as_path())
    {
        assert!(started.elapsed() < Duration::from_secs(60), "never opened");
        harness.step();
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(harness.state().document.as_ref().unwrap().model == model);
}
