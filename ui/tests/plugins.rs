//! ツール (Tools) through the real editor: a tool opens from its group's menu with its
//! description and options form, Preview shows what it will change without changing anything,
//! Apply commits it as one undo step named after the tool, and undo gives the model back.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;
use support::wait_for_label;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::generate::sample_model;
use pmx_core::model::{ElementKind, Model};
use pmx_ui::EditorState;
use pmx_ui::document::Document;
use pmx_ui::editor::settings::Settings;
use pmx_ui::i18n::Language;
use std::time::{Duration, Instant};

fn harness(language: Language, model: Model) -> Harness<'static, EditorState> {
    let mut editor = EditorState::new(Settings {
        language,
        ..Settings::default()
    });
    editor.open_document(Document::from_model(model, None, None));
    let mut harness = Harness::builder()
        .with_size(egui::Vec2::new(1500.0, 1000.0))
        .with_context_setup(pmx_ui::editor::fonts::install)
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();
    harness
}

fn click(harness: &mut Harness<'_, EditorState>, label: &str) {
    harness.get_by_label(label).click();
    harness.run_ok();
}

fn document<'a>(harness: &'a Harness<'_, EditorState>) -> &'a Document {
    harness.state().document.as_ref().unwrap()
}

fn select_vertices(harness: &mut Harness<'_, EditorState>, indices: &[usize]) {
    let document = harness.state_mut().document.as_mut().unwrap();
    for &index in indices {
        document
            .selection
            .get_mut(ElementKind::Vertex)
            .indices
            .insert(index);
    }
    harness.run_ok();
}

#[test]
fn a_tool_previews_then_applies_as_one_undo_step_named_after_it() {
    let model = sample_model();
    let mut harness = harness(Language::English, model.clone());
    select_vertices(&mut harness, &[1, 4, 5]);
    click(&mut harness, "Tools");
    click(&mut harness, "Normals");
    click(&mut harness, "Flip normals…");
    harness.get_by_label_contains("Works on the selected 3 vertices.");

    // Preview: what it will do, and nothing done.
    click(&mut harness, "Preview");
    wait_for_label(&mut harness, "3 normals flipped");
    harness.get_by_label("set normal of 3 vertices");
    assert!(document(&harness).model == model);
    assert!(document(&harness).history.is_empty());

    click(&mut harness, "Apply");
    assert!(
        harness.query_by_label("Preview").is_none(),
        "the dialog closed"
    );
    let document_now = document(&harness);
    assert_eq!(document_now.history.len(), 1);
    assert_eq!(
        document_now
            .history
            .undo_edit_label()
            .map(|label| label.render(Language::English))
            .as_deref(),
        Some("Flip normals")
    );
    for (index, (before, after)) in model
        .vertices
        .iter()
        .zip(&document_now.model.vertices)
        .enumerate()
    {
        if [1, 4, 5].contains(&index) {
            assert_eq!(after.normal.y, -before.normal.y, "vertex {index}");
        } else {
            assert_eq!(after.normal, before.normal, "vertex {index}");
        }
    }
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(
        document(&harness).model == model,
        "undo gives the model back"
    );
}

#[test]
fn apply_without_preview_runs_and_commits_and_the_menu_speaks_japanese() {
    let model = sample_model();
    let mut harness = harness(Language::Japanese, model.clone());
    click(&mut harness, "ツール");
    click(&mut harness, "法線");
    click(&mut harness, "法線反転…");
    harness.get_by_label_contains("未選択のため、頂点");
    click(&mut harness, "適用");
    let started = Instant::now();
    while document(&harness).history.is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "never applied"
        );
        harness.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    harness.run_ok();
    let after = &document(&harness).model;
    assert!(
        after
            .vertices
            .iter()
            .zip(&model.vertices)
            .all(|(a, b)| a.normal.y == -b.normal.y)
    );
    assert_eq!(
        document(&harness)
            .history
            .undo_edit_label()
            .map(|label| label.render(Language::Japanese))
            .as_deref(),
        Some("法線反転")
    );
}

#[test]
fn an_options_form_sets_what_the_tool_does() {
    let model = sample_model();
    let mut harness = harness(Language::English, model.clone());
    click(&mut harness, "Tools");
    click(&mut harness, "Transform model");
    click(&mut harness, "Transform model…");
    // Every option of the tool has its field, with the default.
    let info = pmx_plugins::Registry::builtin()
        .find("transform_model")
        .unwrap()
        .info();
    for spec in &info.options {
        assert!(
            harness
                .query_all_by_role_and_label(Role::SpinButton, &spec.label_en)
                .next()
                .is_some(),
            "{}",
            spec.label_en
        );
    }
    // Scale 2: typed into the field as a user does.
    // The dialog's field (the 3D view's row behind it has a Scale of its own).
    harness
        .query_all_by_role_and_label(Role::SpinButton, "Scale")
        .last()
        .unwrap()
        .click();
    harness.run_ok();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.event(egui::Event::Text("2".to_owned()));
    harness.key_press(egui::Key::Enter);
    harness.run_ok();
    click(&mut harness, "Preview");
    wait_for_label(&mut harness, "set position of 408 vertices");
    assert!(
        document(&harness).model == model,
        "a preview changes nothing"
    );
    click(&mut harness, "Apply");
    let after = &document(&harness).model;
    assert_eq!(document(&harness).history.len(), 1);
    for (a, b) in after.vertices.iter().zip(&model.vertices) {
        assert_eq!(a.position.x, b.position.x * 2.0);
        assert_eq!(a.position.y, b.position.y * 2.0);
    }
    for (a, b) in after.bones.iter().zip(&model.bones) {
        assert_eq!(a.position.y, b.position.y * 2.0);
    }
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(
        document(&harness).model == model,
        "undo gives the model back"
    );
}

#[test]
fn a_script_from_the_scripts_folder_runs_as_one_step_and_a_runaway_one_stops() {
    let dir = tempfile::tempdir().unwrap();
    let scripts = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../resources/scripts");
    std::fs::copy(
        scripts.join("hide_ik_bones.rhai"),
        dir.path().join("hide_ik_bones.rhai"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("endless.rhai"),
        "const api_version = 1;\nconst name = \"終わらない\";\nconst name_en = \"Endless\";\nloop {}\n",
    )
    .unwrap();
    let model = sample_model();
    let mut editor = EditorState::new(Settings {
        language: Language::English,
        scripts_folder: Some(dir.path().to_owned()),
        ..Settings::default()
    });
    editor.open_document(Document::from_model(model.clone(), None, None));
    let mut harness = Harness::builder()
        .with_size(egui::Vec2::new(1500.0, 1000.0))
        .with_context_setup(pmx_ui::editor::fonts::install)
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();

    // The runaway script: Preview runs, Stop ends it, nothing changes.
    click(&mut harness, "Tools");
    click(&mut harness, "Scripts");
    click(&mut harness, "Endless…");
    click(&mut harness, "Preview");
    harness.get_by_label_contains("Running…");
    click(&mut harness, "Stop");
    harness.get_by_label("Stopped.");
    assert!(document(&harness).model == model);
    assert!(document(&harness).history.is_empty());
    click(&mut harness, "Cancel");

    // A real one: one undo step named after the script.
    click(&mut harness, "Tools");
    click(&mut harness, "Scripts");
    click(&mut harness, "Hide IK bones…");
    click(&mut harness, "Apply");
    let started = Instant::now();
    while document(&harness).history.is_empty() {
        assert!(started.elapsed() < Duration::from_secs(60), "never applied");
        harness.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    let after = &document(&harness).model;
    let ik_bones: Vec<usize> = model
        .bones
        .iter()
        .enumerate()
        .filter(|(_, bone)| bone.is_ik())
        .map(|(index, _)| index)
        .collect();
    assert!(!ik_bones.is_empty());
    for (index, (a, b)) in after.bones.iter().zip(&model.bones).enumerate() {
        if ik_bones.contains(&index) {
            assert!(
                !a.flags.contains(pmx_core::model::BoneFlags::VISIBLE),
                "bone {index}"
            );
        } else {
            assert_eq!(a, b, "bone {index}");
        }
    }
    assert_eq!(
        document(&harness)
            .history
            .undo_edit_label()
            .map(|label| label.render(Language::English))
            .as_deref(),
        Some("Hide IK bones")
    );
}
