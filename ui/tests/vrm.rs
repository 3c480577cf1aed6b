//! File > Export VRM through the real editor: the dialog opens from the menu with the meta
//! prefilled and the writer's own report, a change in the humanoid table shows a missing
//! required bone and blocks the export, and Export writes the VRM without touching the
//! document (no undo step, not dirty).

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;
use support::wait_for_label;

use egui::accesskit::Role;
use egui::{Event, Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use pmx_core::formats::FileFormat;
use pmx_core::formats::vrm::{VrmExportOptions, split_glb, write_vrm};
use pmx_core::generate::sample_model;
use pmx_core::model::Model;
use pmx_ui::EditorState;
use pmx_ui::document::Document;
use pmx_ui::editor::settings::Settings;
use pmx_ui::editor::{BrowsePurpose, PlatformRequest};
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

fn open_dialog(harness: &mut Harness<'_, EditorState>) {
    click(harness, "File");
    harness.get_by_label_contains("Export VRM").click();
    harness.run_ok();
    harness.get_by_label("Export VRM 1.0");
}

fn document<'a>(harness: &'a Harness<'_, EditorState>) -> &'a Document {
    harness.state().document.as_ref().expect("a document")
}

/// Presses and releases the primary button at `pos` in separate frames, as a real click
/// arrives (a combo box's popup needs it).
fn click_at(harness: &mut Harness<'_, EditorState>, pos: Pos2) {
    harness.hover_at(pos);
    harness.step();
    for pressed in [true, false] {
        harness.event(Event::PointerButton {
            pos,
            button: PointerButton::Primary,
            pressed,
            modifiers: Modifiers::NONE,
        });
        harness.step();
    }
    harness.run_ok();
}

/// Picks `choice` in the combo box named `combo` (in the humanoid table: the VRM bone name).
fn choose(harness: &mut Harness<'_, EditorState>, combo: &str, choice: &str) {
    // Positions are last frame's: let a layout that just changed settle first.
    harness.run_ok();
    let pos = harness
        .get_by_role_and_label(Role::ComboBox, combo)
        .rect()
        .center();
    click_at(harness, pos);
    let pos = harness.get_by_label(choice).rect().center();
    click_at(harness, pos);
}

#[test]
fn export_shows_the_writers_report_then_writes_the_vrm_and_leaves_the_document_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("avatar.vrm");
    let model = sample_model();
    let mut harness = harness(Language::English, model.clone());
    open_dialog(&mut harness);
    // The meta's name starts as the model's.
    let name = harness
        .get_by_role_and_label(Role::TextInput, "Avatar name")
        .value()
        .unwrap();
    assert_eq!(name, *model.info.name_ja.as_str());
    // The report is the writer's, computed when the dialog opens.
    let expected = write_vrm(&model, &VrmExportOptions::default())
        .unwrap()
        .report;
    let summary = format!(
        "{} humanoid bones, {} nodes, {} meshes ({} primitives), {} morph targets",
        expected.humanoid_bones,
        expected.joints,
        expected.meshes,
        expected.primitives,
        expected.morph_targets
    );
    wait_for_label(&mut harness, &summary);
    let springs = &expected.springs;
    harness.get_by_label_contains(&format!(
        "{} spring chains with {} spring joints, {} colliders",
        springs.springs, springs.joints, springs.colliders
    ));
    if let Some(loss) = expected.losses.first() {
        harness.get_by_label_contains(&format!("VRM cannot hold {} things", expected.losses.len()));
        harness.get_by_label(&loss.message_en());
    }
    // The meta form's values go into the file.
    harness
        .get_by_role_and_label(
            Role::MultilineTextInput,
            "Authors (comma or line separated)",
        )
        .set_text_value_accesskit("Ann, Bob");
    harness.run_ok();
    choose(&mut harness, "Who may use it as an avatar", "everyone");

    // Browse asks the platform for a save dialog; its answer fills the path.
    click(&mut harness, "Browse…");
    assert!(
        harness
            .state_mut()
            .take_platform_requests()
            .iter()
            .any(|request| matches!(
                request,
                PlatformRequest::Browse {
                    purpose: BrowsePurpose::Export(FileFormat::Vrm),
                    ..
                }
            ))
    );
    harness
        .state_mut()
        .browse_finished(BrowsePurpose::Export(FileFormat::Vrm), Some(path.clone()));
    harness.run_ok();
    assert!(!path.exists(), "nothing is written before Export");
    click(&mut harness, "Export");
    let bytes = std::fs::read(&path).expect("the VRM is written");
    let (json, _) = split_glb(&bytes).expect("a GLB");
    let meta = &json["extensions"]["VRMC_vrm"]["meta"];
    assert_eq!(meta["name"], *model.info.name_ja.as_str());
    assert_eq!(meta["authors"], serde_json::json!(["Ann", "Bob"]));
    assert_eq!(meta["avatarPermission"], "everyone");
    assert_eq!(meta["modification"], "prohibited");
    harness.get_by_label_contains("Exported avatar.vrm");
    // An export is not a save.
    let document = document(&harness);
    assert!(document.model == model);
    assert!(document.history.is_empty());
    assert!(!document.is_dirty());
    assert_eq!(document.path, None);
}

#[test]
fn unmapping_a_required_bone_in_the_table_shows_it_and_blocks_the_export() {
    let model = sample_model();
    let head = model
        .bones
        .iter()
        .position(|bone| bone.name_ja.as_str() == "頭")
        .unwrap();
    let mut harness = harness(Language::English, model.clone());
    open_dialog(&mut harness);
    wait_for_label(&mut harness, "humanoid bones,");
    assert!(
        harness
            .query_by_label_contains("No bone for these")
            .is_none()
    );
    let head_choice = format!("{head}: 頭");
    assert_eq!(
        harness
            .get_by_role_and_label(Role::ComboBox, "head")
            .value()
            .as_deref(),
        Some(head_choice.as_str())
    );

    choose(&mut harness, "head", "(none)");
    // In the table's words at once, and in the writer's once its check has run.
    assert!(
        harness
            .query_all_by_label("No bone for these required humanoid bones: head (頭)")
            .next()
            .is_some()
    );
    assert!(
        harness
            .get_by_label("Export")
            .accesskit_node()
            .is_disabled()
    );
    // The writer's check says the same in words.
    let started = Instant::now();
    while harness
        .query_all_by_label("No bone for these required humanoid bones: head (頭)")
        .count()
        < 2
    {
        assert!(started.elapsed() < Duration::from_secs(120), "no check");
        harness.step();
        std::thread::sleep(Duration::from_millis(10));
    }

    // Back to a bone: the export is possible again. The report line goes once the check that
    // runs on its own thread has finished, so wait for it (as a user sees it clear).
    choose(&mut harness, "head", &head_choice);
    let started = Instant::now();
    while harness
        .query_all_by_label_contains("No bone for these")
        .count()
        > 0
    {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the missing-bone message stays after the bone is chosen again"
        );
        harness.step();
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        !harness
            .get_by_label("Export")
            .accesskit_node()
            .is_disabled()
    );
    let document = document(&harness);
    assert!(document.model == model);
    assert!(document.history.is_empty());
    assert!(!document.is_dirty());
}

#[test]
fn the_vrm_dialog_speaks_japanese() {
    let mut harness = harness(Language::Japanese, sample_model());
    click(&mut harness, "ファイル");
    harness.get_by_label_contains("VRM形式で出力").click();
    harness.run_ok();
    harness.get_by_label("VRM 1.0形式で出力");
    harness.get_by_role_and_label(Role::ComboBox, "アバターとして使える人");
    harness.get_by_label("物理をスプリングボーンとして出力");
    wait_for_label(&mut harness, "個、ノード");
    click(&mut harness, "キャンセル");
    assert!(harness.query_by_label("VRM 1.0形式で出力").is_none());
}
