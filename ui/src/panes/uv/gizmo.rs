//! The UV pane's gizmo at the pivot: the centre square moves freely, the arrows move along U
//! or V, the ring turns, the squares past the ring scale along U, V or both. A drag sends one
//! transform per frame (the change since the last frame) under one gesture: one undo step.

use super::canvas::{LineMesh, UvCamera};
use egui::{Color32, Pos2, Rect, Vec2};
use glam::Vec2 as Uv;
use pmx_core::edit::UvTransform;

const ARROW: f32 = 60.0;
const RING: f32 = 80.0;
const SCALE_AT: f32 = 96.0;
const GRAB: f32 = 7.0;
const U_COLOUR: Color32 = Color32::from_rgb(235, 70, 70);
const V_COLOUR: Color32 = Color32::from_rgb(70, 200, 70);
const RING_COLOUR: Color32 = Color32::from_rgb(90, 140, 255);
const FREE_COLOUR: Color32 = Color32::from_rgb(240, 240, 240);
const HOT: Color32 = Color32::from_rgb(255, 220, 0);

/// A part of the gizmo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handle {
    Move,
    MoveU,
    MoveV,
    Rotate,
    ScaleU,
    ScaleV,
    Scale,
}

/// A drag of a handle under way.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GizmoDrag {
    pub handle: Handle,
    /// The pivot as the drag began (UV): turns and scales go about it all drag long.
    pub pivot: Uv,
    /// The pointer at the last frame's transform.
    pub last: Pos2,
    pub gesture: egui::Id,
}

/// The handle under `at` for a gizmo at `centre` (screen points), nearest first.
#[must_use]
pub fn handle_at(centre: Pos2, at: Pos2) -> Option<Handle> {
    let d = at - centre;
    let square = |c: Vec2| (d - c).x.abs() <= GRAB && (d - c).y.abs() <= GRAB;
    if square(Vec2::ZERO) {
        return Some(Handle::Move);
    }
    if square(Vec2::new(SCALE_AT, 0.0)) {
        return Some(Handle::ScaleU);
    }
    if square(Vec2::new(0.0, SCALE_AT)) {
        return Some(Handle::ScaleV);
    }
    if square(Vec2::splat(SCALE_AT * std::f32::consts::FRAC_1_SQRT_2)) {
        return Some(Handle::Scale);
    }
    if d.y.abs() <= GRAB && (0.0..=ARROW + GRAB).contains(&d.x) {
        return Some(Handle::MoveU);
    }
    if d.x.abs() <= GRAB && (0.0..=ARROW + GRAB).contains(&d.y) {
        return Some(Handle::MoveV);
    }
    ((d.length() - RING).abs() <= GRAB).then_some(Handle::Rotate)
}

/// The change from pointer `from` to `to` of a drag of `drag.handle` (screen points), about
/// the drag's pivot drawn at `centre`; `None` when it changes nothing.
#[must_use]
pub fn change(drag: &GizmoDrag, camera: &UvCamera, centre: Pos2, to: Pos2) -> Option<UvTransform> {
    let from = drag.last;
    let moved = (to - from) / camera.zoom;
    let (a, b) = (from - centre, to - centre);
    let ratio = |x: f32, y: f32| (x.abs() > 1.0).then(|| y / x);
    let transform = match drag.handle {
        Handle::Move => UvTransform::moving(Uv::new(moved.x, moved.y)),
        Handle::MoveU => UvTransform::moving(Uv::new(moved.x, 0.0)),
        Handle::MoveV => UvTransform::moving(Uv::new(0.0, moved.y)),
        Handle::Rotate => {
            // Screen y runs down like V: an angle growing in atan2 turns clockwise as seen,
            // and the transform's positive degrees turn counter-clockwise.
            let turned = b.y.atan2(b.x) - a.y.atan2(a.x);
            let turned = (turned + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU)
                - std::f32::consts::PI;
            UvTransform::rotating(-turned.to_degrees(), drag.pivot)
        }
        Handle::ScaleU => UvTransform::scaling(Uv::new(ratio(a.x, b.x)?, 1.0), drag.pivot),
        Handle::ScaleV => UvTransform::scaling(Uv::new(1.0, ratio(a.y, b.y)?), drag.pivot),
        Handle::Scale => {
            let s = ratio(a.length(), b.length())?;
            UvTransform::scaling(Uv::splat(s), drag.pivot)
        }
    };
    (transform.kind() != pmx_core::edit::TransformKind::Identity && transform.is_finite())
        .then_some(transform)
}

/// Draws the gizmo at `centre`, `hot` drawn highlighted.
pub fn paint(painter: &egui::Painter, clip: Rect, centre: Pos2, hot: Option<Handle>) {
    let colour = |handle: Handle, base: Color32| if hot == Some(handle) { HOT } else { base };
    let mut lines = LineMesh::default();
    let u_end = centre + Vec2::new(ARROW, 0.0);
    let v_end = centre + Vec2::new(0.0, ARROW);
    lines.line(centre, u_end, 2.0, colour(Handle::MoveU, U_COLOUR));
    lines.line(centre, v_end, 2.0, colour(Handle::MoveV, V_COLOUR));
    for (end, along, handle, base) in [
        (u_end, Vec2::X, Handle::MoveU, U_COLOUR),
        (v_end, Vec2::Y, Handle::MoveV, V_COLOUR),
    ] {
        let side = Vec2::new(-along.y, along.x);
        let tip = end + along * 10.0;
        let c = colour(handle, base);
        lines.line(end + side * 5.0, tip, 2.0, c);
        lines.line(end - side * 5.0, tip, 2.0, c);
    }
    lines.dot(centre, 2.0 * GRAB - 2.0, colour(Handle::Move, FREE_COLOUR));
    lines.dot(
        centre + Vec2::new(SCALE_AT, 0.0),
        9.0,
        colour(Handle::ScaleU, U_COLOUR),
    );
    lines.dot(
        centre + Vec2::new(0.0, SCALE_AT),
        9.0,
        colour(Handle::ScaleV, V_COLOUR),
    );
    lines.dot(
        centre + Vec2::splat(SCALE_AT * std::f32::consts::FRAC_1_SQRT_2),
        9.0,
        colour(Handle::Scale, FREE_COLOUR),
    );
    lines.paint(painter);
    painter.with_clip_rect(clip).circle_stroke(
        centre,
        RING,
        egui::Stroke::new(2.0, colour(Handle::Rotate, RING_COLOUR)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_found_where_they_are_drawn() {
        let c = Pos2::new(100.0, 100.0);
        assert_eq!(handle_at(c, c), Some(Handle::Move));
        assert_eq!(handle_at(c, c + Vec2::new(40.0, 2.0)), Some(Handle::MoveU));
        assert_eq!(handle_at(c, c + Vec2::new(-1.0, 50.0)), Some(Handle::MoveV));
        assert_eq!(
            handle_at(c, c + Vec2::new(0.0, -80.0)),
            Some(Handle::Rotate)
        );
        assert_eq!(
            handle_at(c, c + Vec2::new(SCALE_AT, 0.0)),
            Some(Handle::ScaleU)
        );
        assert_eq!(handle_at(c, c + Vec2::new(30.0, -30.0)), None);
    }

    #[test]
    fn dragging_the_ring_a_quarter_turn_anticlockwise_is_plus_ninety_degrees() {
        let camera = UvCamera::default();
        let centre = Pos2::new(200.0, 200.0);
        let drag = GizmoDrag {
            handle: Handle::Rotate,
            pivot: Uv::splat(0.5),
            last: centre + Vec2::new(RING, 0.0),
            gesture: egui::Id::unique("test"),
        };
        // From the right of the centre to above it on the screen: anticlockwise as seen.
        let turn = change(&drag, &camera, centre, centre + Vec2::new(0.0, -RING)).unwrap();
        assert!((turn.rotation_degrees - 90.0).abs() < 1e-3);
        let moved = turn.point(Uv::new(1.0, 0.5));
        assert!((moved - Uv::new(0.5, 0.0)).length() < 1e-5, "{moved}");
    }
}
