//! Brush selection (the toolbar's ブラシ): a primary drag paints a screen circle over the view
//! and selects what passes under it, of the pick mode's kind. Without 貫通 (through) only what
//! faces the camera counts: vertices inside the weight brush's sphere at the surface under the
//! pointer (`pmx_scene::brush`, the same reach), faces (and so materials) whose front is seen;
//! with it everything drawn inside the circle. Hidden elements are never taken. The stroke is
//! one selection change, made on release with the modifiers (Shift adds, Ctrl takes out);
//! never an edit.

use super::shown::{Region, SelectShape};
use super::tool::{Taken, ToolCx, ViewInput, ViewTool};
use glam::Vec2;
use std::collections::BTreeSet;

/// The circle's colour.
const CIRCLE: egui::Color32 = egui::Color32::from_rgb(255, 140, 0);

/// At most this many dabs between two frames' pointer positions (a fast drag is filled in at
/// half the radius apart, up to this).
const MAX_DABS_PER_FRAME: usize = 8;

/// The brush tool: its radius and reach, and the stroke under way.
#[derive(Debug)]
pub struct BrushSelect {
    /// The circle's radius on screen (pixels).
    pub radius: f32,
    /// 貫通: everything drawn inside the circle, front or back.
    pub through: bool,
    /// What the stroke has passed over so far, and where its last dab was.
    stroke: Option<(BTreeSet<usize>, Vec2)>,
    /// Where the pointer is over the view (for the circle).
    hover: Option<Vec2>,
}

impl Default for BrushSelect {
    fn default() -> Self {
        Self {
            radius: 30.0,
            through: false,
            stroke: None,
            hover: None,
        }
    }
}

impl BrushSelect {
    /// What the stroke under way has passed over (ascending).
    #[must_use]
    pub fn stroke(&self) -> Option<Vec<usize>> {
        self.stroke
            .as_ref()
            .map(|(picked, _)| picked.iter().copied().collect())
    }

    /// What one dab of the circle at `at` takes.
    fn dab(&self, cx: &ToolCx<'_>, at: Vec2) -> Vec<usize> {
        let region = Region::Circle {
            at,
            radius: self.radius,
            through: self.through,
        };
        cx.scene
            .in_region(&cx.document.model, cx.pick_mode, &region)
    }

    /// Dabs from the last dab to `at`, filling in a fast drag.
    fn paint_to(&mut self, cx: &ToolCx<'_>, at: Vec2) {
        let Some((_, last)) = self.stroke else {
            return;
        };
        let step = (self.radius * 0.5).max(1.0);
        let dabs = ((last.distance(at) / step).ceil() as usize).clamp(1, MAX_DABS_PER_FRAME);
        let taken: Vec<usize> = (1..=dabs)
            .flat_map(|i| self.dab(cx, last.lerp(at, i as f32 / dabs as f32)))
            .collect();
        if let Some((picked, last)) = &mut self.stroke {
            picked.extend(taken);
            *last = at;
        }
    }
}

impl ViewTool for BrushSelect {
    fn options_ui(&mut self, ui: &mut egui::Ui, cx: &mut ToolCx<'_>) {
        if cx.select_shape != SelectShape::Brush {
            return;
        }
        let lang = cx.lang;
        ui.label(lang.tr("brush.radius"));
        ui.add(egui::Slider::new(&mut self.radius, 2.0..=200.0).suffix(" px"))
            .on_hover_text(lang.tr("brush.radius"));
        ui.checkbox(&mut self.through, lang.tr("brush.through"))
            .on_hover_text(lang.tr("brush.through_hint"));
    }

    fn prepare(&mut self, cx: &mut ToolCx<'_>, hover: Option<Vec2>) {
        self.hover = hover.filter(|_| cx.select_shape == SelectShape::Brush);
    }

    fn input(&mut self, cx: &mut ToolCx<'_>, input: ViewInput) -> Taken {
        match input {
            ViewInput::DragStart { origin, at } if cx.select_shape == SelectShape::Brush => {
                // The first dab where the button went down, then on to the pointer.
                let first = self.dab(cx, origin).into_iter().collect();
                self.stroke = Some((first, origin));
                self.paint_to(cx, at);
            }
            ViewInput::Drag { at } if self.stroke.is_some() => self.paint_to(cx, at),
            ViewInput::DragEnd { at } if self.stroke.is_some() => {
                self.paint_to(cx, at);
                let picked = self.stroke().unwrap_or_default();
                self.stroke = None;
                cx.select(cx.pick_mode.kind(), picked);
            }
            ViewInput::Cancel => self.stroke = None,
            _ => return Taken::No,
        }
        Taken::Yes
    }

    fn cursor(&self) -> Option<egui::CursorIcon> {
        self.hover.map(|_| egui::CursorIcon::Crosshair)
    }

    fn paint(&mut self, _cx: &ToolCx<'_>, painter: &egui::Painter, rect: egui::Rect) {
        let centre = self.stroke.as_ref().map(|(_, last)| *last).or(self.hover);
        if let Some(at) = centre {
            painter.circle_stroke(
                rect.min + egui::vec2(at.x, at.y),
                self.radius,
                egui::Stroke::new(1.0, CIRCLE),
            );
        }
    }
}
