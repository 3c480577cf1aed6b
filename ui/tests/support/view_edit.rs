//! What the 3D view's edit tests share (the context menu, bones by clicking, the view keys):
//! the view's rectangle, pointer events over it, and the validator's errors before and after.
#![allow(dead_code, clippy::unwrap_used)]

use egui_kittest::Harness;
use pmx_core::model::Model;
use pmx_core::validate::{CheckOptions, Severity, check};
use pmx_ui::EditorState;
use std::collections::BTreeMap;

/// Where the 3D view was drawn in the last frame (screen points).
pub fn view_rect(harness: &Harness<'_, EditorState>) -> egui::Rect {
    harness
        .state()
        .view
        .last_rect
        .expect("the 3D view was drawn")
}

/// A viewport pixel of the view as a screen point.
pub fn on_screen(harness: &Harness<'_, EditorState>, pixel: glam::Vec2) -> egui::Pos2 {
    view_rect(harness).min + egui::vec2(pixel.x, pixel.y)
}

/// The view's size in pixels.
pub fn view_size(harness: &Harness<'_, EditorState>) -> glam::Vec2 {
    let rect = view_rect(harness);
    glam::Vec2::new(rect.width(), rect.height())
}

/// `button` pressed and released at the view's pixel `pixel` without moving: a click.
pub fn click_view(
    harness: &mut Harness<'_, EditorState>,
    pixel: glam::Vec2,
    button: egui::PointerButton,
) {
    let at = on_screen(harness, pixel);
    harness.event(egui::Event::PointerMoved(at));
    harness.step();
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos: at,
            button,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        harness.step();
    }
    harness.run_ok();
}

/// The validator's errors by code.
pub fn errors(model: &Model) -> BTreeMap<&'static str, usize> {
    let mut out = BTreeMap::new();
    for issue in check(model, None, &CheckOptions::default()) {
        if issue.severity == Severity::Error {
            *out.entry(issue.code).or_default() += 1;
        }
    }
    out
}

/// The validator finds no error in `after` of a code (or more of one) it did not find in `before`.
pub fn assert_no_new_errors(before: &Model, after: &Model) {
    let (was, now) = (errors(before), errors(after));
    for (code, count) in &now {
        assert!(
            was.get(code).is_some_and(|c| c >= count),
            "new error {code}: {count} after, {:?} before",
            was.get(code)
        );
    }
}
