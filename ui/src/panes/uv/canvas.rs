//! The UV pane's drawing surface: where a UV lands on the screen (U to the right, V downward,
//! as the texture image is seen upright: PMX UVs put v = 0 on the image's top row), the texture
//! tiled under the wireframe, the wireframe as one mesh of thin quads, the selected corners.

use egui::{Color32, Pos2, Rect, Vec2};
use glam::Vec2 as Uv;

/// The wireframe's colour.
pub const EDGE: Color32 = Color32::from_rgb(40, 200, 255);
/// Seam edges (one position split into several vertices).
pub const SEAM: Color32 = Color32::from_rgb(255, 80, 80);
/// Selected corners and the edges between them.
pub const SELECTED: Color32 = Color32::from_rgb(255, 140, 0);
/// The 0–1 square's frame.
const UNIT_FRAME: Color32 = Color32::from_rgb(230, 230, 230);
/// Tiles outside 0–1 are drawn dimmed.
const OUTER_TILE: Color32 = Color32::from_gray(110);
/// The most tiles drawn in each direction around the unit square (zoomed far out, the
/// rest of the plane shows the background).
const MAX_TILES: i32 = 8;

/// The pane's camera: which UV sits at the centre of the canvas and how many points one UV
/// unit spans.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UvCamera {
    pub centre: Uv,
    pub zoom: f32,
}

impl Default for UvCamera {
    fn default() -> Self {
        Self {
            centre: Uv::splat(0.5),
            zoom: 400.0,
        }
    }
}

impl UvCamera {
    /// The closest and farthest zoom (points per UV unit).
    pub const ZOOM_RANGE: (f32, f32) = (8.0, 200_000.0);

    /// The screen point of `uv` in `rect`.
    #[must_use]
    pub fn to_screen(&self, rect: Rect, uv: Uv) -> Pos2 {
        let d = (uv - self.centre) * self.zoom;
        rect.center() + Vec2::new(d.x, d.y)
    }

    /// The UV under screen point `at` of `rect`.
    #[must_use]
    pub fn to_uv(&self, rect: Rect, at: Pos2) -> Uv {
        let d = at - rect.center();
        self.centre + Uv::new(d.x, d.y) / self.zoom
    }

    /// The UVs from `low` to `high` (and the whole 0–1 square) in `rect`, with a margin.
    pub fn fit(&mut self, rect: Rect, low: Uv, high: Uv) {
        let (low, high) = (low.min(Uv::ZERO), high.max(Uv::ONE));
        let span = (high - low).max(Uv::splat(1e-3));
        self.centre = (low + high) * 0.5;
        self.zoom = ((rect.width() / span.x).min(rect.height() / span.y) * 0.9)
            .clamp(Self::ZOOM_RANGE.0, Self::ZOOM_RANGE.1);
    }

    /// Zooms by `factor` keeping the UV under `at` where it is.
    pub fn zoom_about(&mut self, rect: Rect, at: Pos2, factor: f32) {
        let fixed = self.to_uv(rect, at);
        self.zoom = (self.zoom * factor).clamp(Self::ZOOM_RANGE.0, Self::ZOOM_RANGE.1);
        let moved = self.to_uv(rect, at);
        self.centre += fixed - moved;
    }

    /// Moves the picture by `delta` screen points.
    pub fn pan(&mut self, delta: Vec2) {
        self.centre -= Uv::new(delta.x, delta.y) / self.zoom;
    }
}

/// Draws `texture` in the unit square and, dimmed, in the tiles around it that the canvas
/// shows (UVs outside 0–1 repeat the texture, as MikuMikuDance samples it), then the unit
/// square's frame.
pub fn paint_tiles(
    painter: &egui::Painter,
    rect: Rect,
    camera: &UvCamera,
    texture: Option<egui::TextureId>,
) {
    let low = camera.to_uv(rect, rect.min);
    let high = camera.to_uv(rect, rect.max);
    if let Some(texture) = texture {
        let tiles = |a: f32, b: f32| {
            let first = (a.floor() as i32).max(-MAX_TILES);
            let last = (b.floor() as i32).min(MAX_TILES);
            first..=last
        };
        for tv in tiles(low.y, high.y) {
            for tu in tiles(low.x, high.x) {
                let corner = Uv::new(tu as f32, tv as f32);
                let tile = Rect::from_min_max(
                    camera.to_screen(rect, corner),
                    camera.to_screen(rect, corner + Uv::ONE),
                );
                let tint = if tu == 0 && tv == 0 {
                    Color32::WHITE
                } else {
                    OUTER_TILE
                };
                painter.image(
                    texture,
                    tile,
                    Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0)),
                    tint,
                );
            }
        }
    }
    painter.rect_stroke(
        Rect::from_min_max(
            camera.to_screen(rect, Uv::ZERO),
            camera.to_screen(rect, Uv::ONE),
        ),
        0.0,
        egui::Stroke::new(1.0, UNIT_FRAME),
        egui::StrokeKind::Outside,
    );
}

/// Many thin lines as one mesh (one quad each): tens of thousands of edges cost one shape,
/// where a shape per line would be tessellated one by one every frame.
#[derive(Debug, Default)]
pub struct LineMesh {
    mesh: egui::Mesh,
}

impl LineMesh {
    /// A line from `a` to `b`, `width` points wide.
    pub fn line(&mut self, a: Pos2, b: Pos2, width: f32, colour: Color32) {
        let along = b - a;
        let length = along.length();
        let across = if length > 1e-6 {
            Vec2::new(-along.y, along.x) / length * (width * 0.5)
        } else {
            Vec2::new(width * 0.5, 0.0)
        };
        let first = self.mesh.vertices.len() as u32;
        for p in [a + across, a - across, b - across, b + across] {
            self.mesh.colored_vertex(p, colour);
        }
        self.mesh.add_triangle(first, first + 1, first + 2);
        self.mesh.add_triangle(first, first + 2, first + 3);
    }

    /// A filled square of side `size` centred on `at`.
    pub fn dot(&mut self, at: Pos2, size: f32, colour: Color32) {
        self.mesh
            .add_colored_rect(Rect::from_center_size(at, Vec2::splat(size)), colour);
    }

    /// Whether nothing was added.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.mesh.is_empty()
    }

    /// Hands the lines to `painter` as one shape.
    pub fn paint(self, painter: &egui::Painter) {
        if !self.mesh.is_empty() {
            painter.add(egui::Shape::mesh(self.mesh));
        }
    }

    /// Adds `other`'s lines after (over) these.
    pub fn append(&mut self, other: LineMesh) {
        self.mesh.append(other.mesh);
    }

    /// The lines as one mesh.
    #[must_use]
    pub fn into_mesh(self) -> egui::Mesh {
        self.mesh
    }
}

/// Whether the segment from `a` to `b` can cross `rect` (a cheap bounding-box test that
/// keeps every edge that shows and drops most that do not).
#[must_use]
pub fn may_show(rect: Rect, a: Pos2, b: Pos2) -> bool {
    let bounds = Rect::from_two_pos(a, b);
    bounds.intersects(rect)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screen_and_uv_are_inverse_and_v_runs_down() {
        let rect = Rect::from_min_size(Pos2::new(10.0, 20.0), Vec2::new(400.0, 300.0));
        let camera = UvCamera {
            centre: Uv::new(0.5, 0.5),
            zoom: 200.0,
        };
        let top_left = camera.to_screen(rect, Uv::ZERO);
        let bottom_right = camera.to_screen(rect, Uv::ONE);
        assert_eq!(top_left, Pos2::new(110.0, 70.0));
        assert_eq!(bottom_right, Pos2::new(310.0, 270.0));
        let uv = camera.to_uv(rect, Pos2::new(160.0, 220.0));
        assert!((uv - Uv::new(0.25, 0.75)).length() < 1e-6);
    }

    #[test]
    fn zooming_keeps_the_point_under_the_pointer() {
        let rect = Rect::from_min_size(Pos2::ZERO, Vec2::new(400.0, 400.0));
        let mut camera = UvCamera::default();
        let at = Pos2::new(300.0, 100.0);
        let before = camera.to_uv(rect, at);
        camera.zoom_about(rect, at, 2.5);
        assert!((camera.to_uv(rect, at) - before).length() < 1e-5);
        assert!((camera.zoom - 1000.0).abs() < 1e-3);
    }
}
