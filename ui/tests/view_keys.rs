#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The 3D view's keys (issue 38), with the pointer over the view:
//! - keypad 2/8/4/6/5/0 put the camera at the front/back/left/right/top/bottom preset
//!   (compared with `apply_preset` on the camera it had), F frames the selection, Home gives
//!   the camera back as the model opened;
//! - Q/W/E/R switch the gizmo's modes, B ボーン追加, P ウェイト描画, M モーフ編集 (one mode at a
//!   time); with the pointer elsewhere, or with Ctrl held, the keys do nothing to the view;
//! - Help > Shortcuts lists every key of the table, in both languages;
//! - a double click resets the camera and leaves the selection as it was (its first click's
//!   pick is given back).

mod support;
#[path = "support/view_edit.rs"]
mod view_edit;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec2;
use pmx_core::model::ElementKind;
use pmx_ui::EditorState;
use pmx_ui::i18n::Language;
use pmx_ui::panes::view::camera::{CameraPreset, OrbitCamera};
use pmx_ui::panes::view::gizmo::GizmoMode;
use pmx_ui::panes::view::keys::VIEW_KEYS;
use support::{document, harness_with};
use view_edit::{on_screen, view_size};

fn sample(language: Language) -> Harness<'static, EditorState> {
    let mut harness = harness_with(pmx_core::generate::sample_model(), language);
    let centre = on_screen(&harness, view_size(&harness) * 0.5);
    harness.event(egui::Event::PointerMoved(centre));
    harness.run_ok();
    harness
}

/// A camera turned away from every preset.
fn turned() -> OrbitCamera {
    OrbitCamera {
        yaw: 0.7,
        pitch: 0.3,
        ..OrbitCamera::default()
    }
}

fn press(harness: &mut Harness<'_, EditorState>, key: egui::Key) {
    harness.key_press(key);
    harness.run_ok();
}

#[test]
fn keypad_digits_put_the_camera_at_the_presets() {
    let mut harness = sample(Language::Japanese);
    for (key, preset) in [
        (egui::Key::Num2, CameraPreset::Front),
        (egui::Key::Num8, CameraPreset::Back),
        (egui::Key::Num4, CameraPreset::Left),
        (egui::Key::Num6, CameraPreset::Right),
        (egui::Key::Num5, CameraPreset::Top),
        (egui::Key::Num0, CameraPreset::Bottom),
    ] {
        harness.state_mut().view.camera = turned();
        press(&mut harness, key);
        let mut expected = turned();
        expected.apply_preset(preset);
        assert_eq!(harness.state().view.camera, expected, "{key:?}");
    }
}

#[test]
fn f_frames_the_selection_and_home_resets_the_camera() {
    let mut harness = sample(Language::Japanese);
    let opened = harness.state().view.camera;
    let model = document(&harness).model.clone();
    let chosen = [0usize, 1, 2];
    {
        let editor = harness.state_mut();
        let selection = editor
            .document
            .as_mut()
            .unwrap()
            .selection
            .get_mut(ElementKind::Vertex);
        for v in chosen {
            selection.indices.insert(v);
        }
        editor.view.camera = turned();
    }
    harness.run_ok();
    press(&mut harness, egui::Key::F);
    // The centre of the selected vertices' bounds (world space: Z negated).
    let (mut lo, mut hi) = (glam::Vec3::splat(f32::MAX), glam::Vec3::splat(f32::MIN));
    for v in chosen {
        let at = pmx_ui::panes::view::camera::to_world(model.vertices[v].position);
        (lo, hi) = (lo.min(at), hi.max(at));
    }
    let target = harness.state().view.camera.target;
    assert!((target - (lo + hi) * 0.5).length() < 1.0e-4, "{target}");
    press(&mut harness, egui::Key::Home);
    assert_eq!(harness.state().view.camera, opened);
}

#[test]
fn tool_keys_switch_the_gizmo_and_the_modes_only_over_the_view() {
    let mut harness = sample(Language::Japanese);
    for (key, mode) in [
        (egui::Key::W, GizmoMode::Move),
        (egui::Key::E, GizmoMode::Rotate),
        (egui::Key::R, GizmoMode::Scale),
        (egui::Key::G, GizmoMode::Move),
        (egui::Key::Q, GizmoMode::Off),
    ] {
        press(&mut harness, key);
        assert_eq!(harness.state().view.gizmo.mode, mode, "{key:?}");
    }
    press(&mut harness, egui::Key::B);
    assert!(harness.state().view.bone_place.active);
    assert!(
        harness.state().view.layers.bones,
        "placing bones shows them"
    );
    press(&mut harness, egui::Key::P);
    let view = &harness.state().view;
    assert!(
        view.weight_paint.active && !view.bone_place.active,
        "one mode at a time"
    );
    press(&mut harness, egui::Key::M);
    let view = &harness.state().view;
    assert!(view.morph_edit.active && !view.weight_paint.active);
    press(&mut harness, egui::Key::Q);
    let view = &harness.state().view;
    assert!(!view.morph_edit.active && !view.weight_paint.active && !view.bone_place.active);
    // With Ctrl the key is the editor's; with the pointer on the menu bar, nobody's.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::E);
    harness.run_ok();
    assert_eq!(harness.state().view.gizmo.mode, GizmoMode::Off);
    harness.event(egui::Event::PointerMoved(egui::pos2(400.0, 8.0)));
    harness.run_ok();
    press(&mut harness, egui::Key::W);
    assert_eq!(harness.state().view.gizmo.mode, GizmoMode::Off);
    harness.state_mut().view.camera = turned();
    press(&mut harness, egui::Key::Num2);
    assert_eq!(harness.state().view.camera, turned());
}

#[test]
fn help_shortcuts_lists_every_view_key_in_both_languages() {
    for (language, menu, item) in [
        (Language::Japanese, "ヘルプ", "キーボードショートカット…"),
        (Language::English, "Help", "Keyboard shortcuts…"),
    ] {
        let mut harness = sample(language);
        harness.get_by_label(menu).click();
        harness.run_ok();
        harness.get_by_label(item).click();
        harness.run_ok();
        for line in VIEW_KEYS {
            assert!(
                harness.query_all_by_label(line.shown).next().is_some(),
                "{language:?}: {} listed",
                line.shown
            );
            let action = language.tr(line.action.key());
            assert!(
                harness.query_all_by_label(action).next().is_some(),
                "{language:?}: {action} listed"
            );
        }
    }
}

#[test]
fn a_double_click_resets_the_camera_and_keeps_the_selection() {
    // Frames a hand's pace apart (kittest's default is 0.25 s, past egui's double-click time).
    let mut editor = support::editor(Language::Japanese);
    editor.open_document(pmx_ui::document::Document::from_model(
        pmx_core::generate::sample_model(),
        None,
        None,
    ));
    let mut harness = Harness::builder()
        .with_size(egui::Vec2::new(2600.0, 1400.0))
        .with_step_dt(1.0 / 60.0)
        .with_context_setup(pmx_ui::editor::fonts::install)
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();
    let opened = harness.state().view.camera;
    // A vertex drawn in the view, and another selected before the double click.
    let size = view_size(&harness);
    let model = document(&harness).model.clone();
    let projector = pmx_ui::panes::view::camera::Projector::new(&opened, size);
    let (vertex, pixel) = (0..model.vertices.len())
        .find_map(|v| {
            let at = pmx_ui::panes::view::camera::to_world(model.vertices[v].position);
            let (pixel, _) = projector.project(at)?;
            let picked = harness.state().view.pick(&model, pixel, size);
            (picked == Some(v) && pixel.cmpgt(Vec2::splat(10.0)).all()).then_some((v, pixel))
        })
        .expect("a vertex in view");
    let other = (vertex + 1) % model.vertices.len();
    {
        let editor = harness.state_mut();
        editor
            .document
            .as_mut()
            .unwrap()
            .selection
            .get_mut(ElementKind::Vertex)
            .select_only(other);
    }
    harness.run_ok();
    let before = document(&harness)
        .selection
        .get(ElementKind::Vertex)
        .clone();
    // One click picks the vertex (what a click does), after egui's double-click time since
    // the harness started, so that it is a first click...
    let at = on_screen(&harness, pixel);
    harness.event(egui::Event::PointerMoved(at));
    for _ in 0..40 {
        harness.step();
    }
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        harness.step();
    }
    harness.step();
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Vertex)
            .indices
            .to_vec(),
        vec![vertex]
    );
    // ...and the second click of a double click gives the selection back.
    harness.state_mut().view.camera = turned();
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        harness.step();
    }
    harness.run_ok();
    assert_eq!(
        *document(&harness).selection.get(ElementKind::Vertex),
        before
    );
    assert_eq!(harness.state().view.camera, OrbitCamera::default());
    assert_eq!(document(&harness).history.len(), 0);
}
