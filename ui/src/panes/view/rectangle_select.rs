//! Rectangle selection: a primary drag (one no other tool took, such as a gizmo handle's)
//! draws a marquee from where the button went down and, on release, selects the vertices drawn
//! inside it (where the pose puts them), with the click's modifiers (Shift adds, Ctrl takes
//! out). The view then picks vertices.

use super::shown::PickMode;
use super::tool::{Taken, ToolCx, ToolRequest, ViewInput, ViewTool};
use glam::Vec2;
use pmx_core::model::ElementKind;

/// The marquee's colour.
const MARQUEE: egui::Color32 = egui::Color32::from_rgb(255, 140, 0);

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

impl ViewTool for RectangleSelect {
    fn input(&mut self, cx: &mut ToolCx<'_>, input: ViewInput) -> Taken {
        match input {
            ViewInput::DragStart { origin, at } => self.marquee = Some((origin, at)),
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
                let picked = cx.scene.vertices_in_rect(&cx.document.model, start, at);
                cx.select(ElementKind::Vertex, picked);
                cx.request(ToolRequest::SetPickMode(PickMode::Vertex));
            }
            ViewInput::Cancel => self.marquee = None,
            ViewInput::Press { .. } | ViewInput::Click { .. } | ViewInput::Key(_) => {
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
