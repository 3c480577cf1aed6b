//! What several kittest flows share: the editor window on a model, and the user's clicks.
//! Each test file uses a part of it.
#![allow(dead_code, clippy::unwrap_used)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::model::Model;
use pmx_ui::EditorState;
use pmx_ui::document::Document;
use pmx_ui::editor::settings::Settings;
use pmx_ui::i18n::Language;
use std::path::PathBuf;

/// The editor in `language`, with default settings.
pub fn editor(language: Language) -> EditorState {
    EditorState::new(Settings {
        language,
        ..Settings::default()
    })
}

/// The editor window, large enough for every pane, with `model` open (not from a file).
pub fn harness_with(model: Model, language: Language) -> Harness<'static, EditorState> {
    harness_of(editor(language), model)
}

/// The window of `editor` (its own settings), large enough for every pane, with `model` open.
pub fn harness_of(mut editor: EditorState, model: Model) -> Harness<'static, EditorState> {
    editor.open_document(Document::from_model(model, None, None));
    let mut harness = Harness::builder()
        .with_size(egui::Vec2::new(2600.0, 1400.0))
        .with_context_setup(pmx_ui::editor::fonts::install)
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();
    harness
}

/// Clicks the widget labelled `label` and lets the frame run.
pub fn click(harness: &mut Harness<'_, EditorState>, label: &str) {
    harness.get_by_label(label).click();
    harness.run_ok();
}

/// Clicks the tab (a button) named `name`.
pub fn tab(harness: &mut Harness<'_, EditorState>, name: &str) {
    harness.get_by_role_and_label(Role::Button, name).click();
    harness.run_ok();
}

/// Steps until a label containing `text` shows (tools, checks and loads run on their own
/// threads).
pub fn wait_for_label(harness: &mut Harness<'_, EditorState>, text: &str) {
    let started = std::time::Instant::now();
    while harness.query_all_by_label_contains(text).next().is_none() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "\"{text}\" never showed"
        );
        harness.step();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    harness.run_ok();
}

/// The open document.
pub fn document<'a>(harness: &'a Harness<'_, EditorState>) -> &'a Document {
    harness.state().document.as_ref().unwrap()
}

/// The corpus Gene model and the path of the nod motion made for it, or `None` (with the
/// reason printed) when the shared corpus is absent.
pub fn gene_and_nod_motion() -> Option<(Model, PathBuf)> {
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let (model_path, motion_path) = (
        corpus.join("pmx/pmxeditor_gene_cc_by.pmx"),
        corpus.join("vmd/mmdagent_ex_nod.vmd"),
    );
    if !model_path.exists() || !motion_path.exists() {
        println!(
            "skipped: the shared corpus (Gene and nod.vmd) is not at {}",
            corpus.display()
        );
        return None;
    }
    let model = pmx_core::formats::load_path(&model_path, &Default::default())
        .unwrap()
        .model;
    Some((model, motion_path))
}

/// In the pose pane (English): types the motion's path and clicks Load VMD, as a user does.
pub fn load_motion(harness: &mut Harness<'_, EditorState>, motion: &std::path::Path) {
    harness
        .query_by_role_and_label(Role::TextInput, "Pose/motion file")
        .unwrap()
        .set_text_value_accesskit(&motion.display().to_string());
    harness.run_ok();
    click(harness, "Load VMD");
}

/// The primary button pressed or released at `at` (screen points), one frame.
pub fn button(harness: &mut Harness<'_, EditorState>, at: egui::Pos2, pressed: bool) {
    harness.event(egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    });
    harness.step();
}

/// A primary drag from `from` to `to` (screen points) in `steps` frames, as a hand makes it.
pub fn drag(harness: &mut Harness<'_, EditorState>, from: egui::Pos2, to: egui::Pos2, steps: u32) {
    harness.event(egui::Event::PointerMoved(from));
    harness.step();
    button(harness, from, true);
    for step in 1..=steps {
        let at = from + (to - from) * (step as f32 / steps as f32);
        harness.event(egui::Event::PointerMoved(at));
        harness.step();
    }
    button(harness, to, false);
    harness.run_ok();
}
