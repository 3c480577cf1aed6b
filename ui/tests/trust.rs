#![allow(clippy::expect_used, clippy::unwrap_used)]
use egui::accesskit::Role;
use egui::Modifiers;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::generate::feature_model;
use pmx_core::model::{Model, PmxVersion, TextEncoding};
use pmx_ui::EditorState;
use pmx_ui::command::Command;
use pmx_ui::document::Document;
use pmx_ui::i18n::Language;
use pmx_ui::settings::Settings;

fn harness(model: Model) -> Harness<'static, EditorState> {
    let mut editor = EditorState::new(Settings {
        language: Language::English,
        ..Settings::default()
    });
    editor.open_document(Document::from_model(model, None, None));
    let mut harness = Harness::builder()
        .with_size(egui::Vec2::new(1600.0, 1000.0))
        .with_context_setup(pmx_ui::fonts::install)
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();
    harness
}

fn head(h: &Harness<'_, EditorState>) -> usize {
    h.state().document.as_ref().unwrap().history.head()
}


fn press(h: &mut Harness<'_, EditorState>, pos: egui::Pos2, button: egui::PointerButton) {
    h.hover_at(pos);
    h.step();
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton { pos, button, pressed, modifiers: Modifiers::default() });
        h.step();
    }
    h.step();
}

fn ctrl_z(h: &mut Harness<'_, EditorState>) {
    h.event(egui::Event::Key { key: egui::Key::Z, pressed: true, modifiers: Modifiers::COMMAND, repeat: false, physical_key: None });
    h.step();
    h.event(egui::Event::Key { key: egui::Key::Z, pressed: false, modifiers: Modifiers::COMMAND, repeat: false, physical_key: None });
    h.step();
    h.step();
}

fn report(h: &Harness<'_, EditorState>, what: &str) {
    eprintln!("{what}: head {} len {} focused {:?}", head(h), h.state().document.as_ref().unwrap().history.len(), h.ctx.memory(|m| m.focused()));
}

#[test]
fn explore() {
    let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 24, 12);
    let mut h = harness(model);
    for v in [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0] {
        h.state_mut().push(Command::set(pmx_core::edit::EditTarget::Vertex, vec![0], "edge_scale", serde_json::json!(v)));
        h.run_ok();
    }
    h.get_by_role_and_label(Role::Button, "Bones").click();
    h.run_ok();
    report(&h, "start");
    let p = h.get_by_label("bone 1").rect().center();
    press(&mut h, p, egui::PointerButton::Primary);
    report(&h, "clicked index");
    ctrl_z(&mut h);
    report(&h, "ctrl z");
    let p = h.get_by_label("bone 2 name_ja").rect().center();
    press(&mut h, p, egui::PointerButton::Primary);
    report(&h, "clicked name cell");
    ctrl_z(&mut h);
    report(&h, "ctrl z");
    let p = h.get_by_label("bone 3 position.x").rect().center();
    press(&mut h, p, egui::PointerButton::Primary);
    report(&h, "clicked position cell");
    ctrl_z(&mut h);
    report(&h, "ctrl z");
    let p = h.get_by_label("bone 3").rect().center();
    press(&mut h, p, egui::PointerButton::Secondary);
    report(&h, "right clicked");
    let p = h.get_by_label("Move down").rect().center();
    press(&mut h, p, egui::PointerButton::Primary);
    report(&h, "move down");
    ctrl_z(&mut h);
    report(&h, "ctrl z");
    ctrl_z(&mut h);
    report(&h, "ctrl z");
    let p = h.get_by_label("Expand all").rect().center();
    press(&mut h, p, egui::PointerButton::Primary);
    report(&h, "button");
    ctrl_z(&mut h);
    report(&h, "ctrl z");
}
