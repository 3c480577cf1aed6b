//! Picking UV corners on the canvas: the corner nearest a click (with every vertex that shares
//! its UV there, so that a corner split only for its normals moves as one), the corners inside
//! a rectangle, the corners inside a lasso.

use egui::{Pos2, Rect};

/// How close (points) a click must be to a corner to pick it.
pub const PICK_RADIUS: f32 = 8.0;

/// Corners this close in UV are one corner to a click.
const SAME_CORNER: f32 = 1.0e-6;

/// The vertices of the corner nearest `at` within [`PICK_RADIUS`]: the nearest vertex first,
/// then every other vertex drawn at the same UV. Empty when none is that close.
#[must_use]
pub fn nearest_corner(
    corners: &[u32],
    screen_of: impl Fn(u32) -> Option<(Pos2, glam::Vec2)>,
    at: Pos2,
) -> Vec<usize> {
    let mut best: Option<(f32, u32, glam::Vec2)> = None;
    for &v in corners {
        let Some((p, uv)) = screen_of(v) else {
            continue;
        };
        let d = p.distance_sq(at);
        if d <= PICK_RADIUS * PICK_RADIUS && best.is_none_or(|(b, _, _)| d < b) {
            best = Some((d, v, uv));
        }
    }
    let Some((_, nearest, uv)) = best else {
        return Vec::new();
    };
    let mut picked = vec![nearest as usize];
    picked.extend(
        corners
            .iter()
            .copied()
            .filter(|&v| v != nearest)
            .filter(|&v| screen_of(v).is_some_and(|(_, other)| (other - uv).length() < SAME_CORNER))
            .map(|v| v as usize),
    );
    picked
}

/// The vertices drawn inside `area` (screen points).
#[must_use]
pub fn in_rect(corners: &[u32], screen_of: impl Fn(u32) -> Option<Pos2>, area: Rect) -> Vec<usize> {
    corners
        .iter()
        .copied()
        .filter(|&v| screen_of(v).is_some_and(|p| area.contains(p)))
        .map(|v| v as usize)
        .collect()
}

/// The vertices drawn inside the closed polygon `lasso` (screen points; even-odd rule).
#[must_use]
pub fn in_lasso(
    corners: &[u32],
    screen_of: impl Fn(u32) -> Option<Pos2>,
    lasso: &[Pos2],
) -> Vec<usize> {
    if lasso.len() < 3 {
        return Vec::new();
    }
    let bounds = Rect::from_points(lasso);
    let polygon: Vec<glam::Vec2> = lasso.iter().map(|q| glam::Vec2::new(q.x, q.y)).collect();
    let inside = |p: Pos2| pmx_scene::pick::inside_polygon(&polygon, glam::Vec2::new(p.x, p.y));
    corners
        .iter()
        .copied()
        .filter(|&v| screen_of(v).is_some_and(|p| bounds.contains(p) && inside(p)))
        .map(|v| v as usize)
        .collect()
}

/// Whether `p` lies inside `polygon` (even-odd rule), as the 3D view's lasso decides it.
#[must_use]
pub fn inside_polygon(polygon: &[Pos2], p: Pos2) -> bool {
    let polygon: Vec<glam::Vec2> = polygon.iter().map(|q| glam::Vec2::new(q.x, q.y)).collect();
    pmx_scene::pick::inside_polygon(&polygon, glam::Vec2::new(p.x, p.y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lasso_holds_what_it_circles() {
        // An L-shaped lasso: (5, 15) is inside its bounds but outside the shape.
        let lasso = [
            Pos2::new(0.0, 0.0),
            Pos2::new(10.0, 0.0),
            Pos2::new(10.0, 10.0),
            Pos2::new(20.0, 10.0),
            Pos2::new(20.0, 20.0),
            Pos2::new(0.0, 20.0),
        ];
        assert!(inside_polygon(&lasso, Pos2::new(5.0, 5.0)));
        assert!(inside_polygon(&lasso, Pos2::new(15.0, 15.0)));
        assert!(!inside_polygon(&lasso, Pos2::new(15.0, 5.0)));
        let points = [
            Pos2::new(5.0, 5.0),
            Pos2::new(15.0, 5.0),
            Pos2::new(15.0, 15.0),
        ];
        let picked = in_lasso(&[0, 1, 2], |v| points.get(v as usize).copied(), &lasso);
        assert_eq!(picked, vec![0, 2]);
    }

    #[test]
    fn a_click_takes_every_vertex_of_the_nearest_corner() {
        let at = |x: f32, y: f32| (Pos2::new(x, y), glam::Vec2::new(x / 100.0, y / 100.0));
        let corners = [
            at(10.0, 10.0),
            at(13.0, 10.0),
            at(13.0, 10.0),
            at(40.0, 40.0),
        ];
        let picked = nearest_corner(
            &[0, 1, 2, 3],
            |v| corners.get(v as usize).copied(),
            Pos2::new(12.0, 11.0),
        );
        assert_eq!(picked, vec![1, 2]);
        assert!(
            nearest_corner(
                &[0, 1, 2, 3],
                |v| corners.get(v as usize).copied(),
                Pos2::new(90.0, 90.0)
            )
            .is_empty()
        );
    }
}
