//! Lasso selection (the toolbar's 投げ縄): a primary drag draws a free outline from where the
//! button went down; on release the outline closes and the elements of the pick mode's kind
//! drawn inside it are selected (vertices, bone heads, joints and bodies by where they are
//! drawn, faces by their centre, materials by their faces'; hidden ones never), with the
//! modifiers (Shift adds, Ctrl takes out). One selection change per stroke; never an edit.

use super::rectangle_select::{MARQUEE, select_in};
use super::shown::{Region, SelectShape};
use super::tool::{Taken, ToolCx, ViewInput, ViewTool};
use glam::Vec2;

/// The outline gains a point once the pointer is this far (pixels) from the last one.
const STEP: f32 = 3.0;

/// The lasso tool: the outline being dragged.
#[derive(Debug, Default)]
pub struct LassoSelect {
    /// The outline so far (viewport pixels), while dragging.
    outline: Option<Vec<Vec2>>,
}

impl LassoSelect {
    /// The outline being dragged (viewport pixels).
    #[must_use]
    pub fn outline(&self) -> Option<&[Vec2]> {
        self.outline.as_deref()
    }

    fn extend(&mut self, at: Vec2) {
        if let Some(outline) = &mut self.outline
            && outline.last().is_none_or(|last| last.distance(at) >= STEP)
        {
            outline.push(at);
        }
    }
}

impl ViewTool for LassoSelect {
    fn input(&mut self, cx: &mut ToolCx<'_>, input: ViewInput) -> Taken {
        match input {
            ViewInput::DragStart { origin, at } if cx.select_shape == SelectShape::Lasso => {
                self.outline = Some(vec![origin]);
                self.extend(at);
            }
            ViewInput::Drag { at } if self.outline.is_some() => self.extend(at),
            ViewInput::DragEnd { at } if self.outline.is_some() => {
                self.extend(at);
                let outline = self.outline.take().unwrap_or_default();
                select_in(cx, &Region::Lasso(&outline));
            }
            ViewInput::Cancel => self.outline = None,
            _ => return Taken::No,
        }
        Taken::Yes
    }

    fn paint(&mut self, _cx: &ToolCx<'_>, painter: &egui::Painter, rect: egui::Rect) {
        if let Some(outline) = &self.outline {
            let points: Vec<egui::Pos2> = outline
                .iter()
                .map(|p| rect.min + egui::vec2(p.x, p.y))
                .collect();
            painter.add(egui::Shape::closed_line(
                points,
                egui::Stroke::new(1.0, MARQUEE),
            ));
        }
    }
}
