//! Rectangle selection (the toolbar's 矩形): a primary drag (one no other tool took, such as a
//! gizmo handle's) draws a marquee from where the button went down and, on release, selects the
//! elements of the pick mode's kind drawn inside it (where the pose puts them; hidden ones
//! never), with the click's modifiers (Shift adds, Ctrl takes out).

use super::shown::{Region, SelectShape};
use super::tool::{Taken, ToolCx, ViewInput, ViewTool};
use glam::Vec2;

/// The marquee's and the lasso's colour.
pub(super) const MARQUEE: egui::Color32 = egui::Color32::from_rgb(255, 140, 0);

/// The rectangle tool: the corners of the marquee being dragged.
#[derive(Debug, Default)]
pub struct RectangleSelect {
    /// Where the drag began and where the pointer is (viewport pixels), while dragging.
    marquee: Option<(Vec2, Vec2)>,
}

impl RectangleSelect {
    /// The marquee being dragged (viewport pixels: where it began, where the pointer is).
    #[must_use]
    pub fn marquee(&self) -> Option<(Vec2, Vec2)> {
        self.marquee
    }
}

/// Selects what `region` holds of the pick mode's kind, as the modifiers say.
pub(super) fn select_in(cx: &mut ToolCx<'_>, region: &Region<'_>) {
    let picked = cx.scene.in_region(&cx.document.model, cx.pick_mode, region);
    cx.select(cx.pick_mode.kind(), picked);
}

impl ViewTool for RectangleSelect {
    fn input(&mut self, cx: &mut ToolCx<'_>, input: ViewInput) -> Taken {
        match input {
            ViewInput::DragStart { origin, at } if cx.select_shape == SelectShape::Rectangle => {
                self.marquee = Some((origin, at));
            }
            ViewInput::Drag { at } => {
                let Some((_, now)) = &mut self.marquee else {
                    return Taken::No;
                };
                *now = at;
            }
            ViewInput::DragEnd { at } => {
                let Some((start, _)) = self.marquee.take() else {
                    return Taken::No;
                };
                select_in(cx, &Region::Rect(start, at));
            }
            ViewInput::Cancel => self.marquee = None,
            ViewInput::DragStart { .. }
            | ViewInput::Press { .. }
            | ViewInput::Click { .. }
            | ViewInput::Key(_) => {
                return Taken::No;
            }
        }
        Taken::Yes
    }

    fn paint(&mut self, _cx: &ToolCx<'_>, painter: &egui::Painter, rect: egui::Rect) {
        if let Some((start, now)) = self.marquee {
            let at = |p: Vec2| rect.min + egui::vec2(p.x, p.y);
            painter.rect_stroke(
                egui::Rect::from_two_pos(at(start), at(now)),
                0.0,
                egui::Stroke::new(1.0, MARQUEE),
                egui::StrokeKind::Inside,
            );
        }
    }
}
