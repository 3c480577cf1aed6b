//! The transform gizmo: handles drawn over the 3D view at the centre of the selection, dragged
//! with the left button to move (along an axis, or in the screen plane from the centre square),
//! rotate (about an axis, on its ring) or scale (uniformly) the selected vertices, bones, rigid
//! bodies or joints — the same edits as the numeric row ([`super::transform`]), X mirror
//! included. Every frame of a drag is an edit of the same gesture, and the history merges them:
//! one drag is one undo step.
//!
//! As a tool of the view ([`Gizmo`], a [`ViewTool`]) it is laid out at the selection's pivot
//! (where the pose puts it) each frame, takes a primary drag that starts on a handle (before
//! the rectangle selection gets it), asks for each frame's change as a
//! [`ToolRequest::Transform`] of the drag's gesture, and paints its handles once the frame's
//! pose is fed.
//!
//! The maths works on the pointer's rays, not on pixel deltas: a move follows the point of the
//! axis under the pointer, a rotation the angle swept on the ring's plane, so the handle stays
//! under the pointer whatever the camera's angle.

use super::shown::Placements;
use super::tool::{Gestures, Taken, ToolCx, ToolRequest, ViewInput, ViewTool};
use super::transform::Transform;
use crate::document::Document;
use crate::i18n::Language;
use glam::{Quat, Vec2, Vec3};
use pmx_core::model::ElementKind;
use pmx_scene::camera::{OrbitCamera, Projector};

/// What a left drag on the gizmo does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum GizmoMode {
    /// No gizmo: a left drag selects vertices in a rectangle.
    #[default]
    Off,
    Move,
    Rotate,
    Scale,
}

impl GizmoMode {
    pub const ALL: [GizmoMode; 4] = [
        GizmoMode::Off,
        GizmoMode::Move,
        GizmoMode::Rotate,
        GizmoMode::Scale,
    ];

    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            GizmoMode::Off => "view.gizmo_off",
            GizmoMode::Move => "view.gizmo_move",
            GizmoMode::Rotate => "view.gizmo_rotate",
            GizmoMode::Scale => "view.gizmo_scale",
        }
    }
}

/// A part of the gizmo the pointer can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handle {
    /// The X, Y or Z axis (model space): its arrow (move), its ring (rotate).
    Axis(usize),
    /// The centre square: move in the screen plane, or scale.
    Centre,
}

/// The gizmo's length on screen, in pixels.
const LENGTH_PIXELS: f32 = 90.0;
/// How close (pixels) the pointer must be to take a handle.
const GRAB_PIXELS: f32 = 7.0;
/// Half the centre square's side, in pixels.
const CENTRE_PIXELS: f32 = 8.0;
/// Points on a ring.
const RING_SEGMENTS: usize = 64;

/// Model space → world space (and back: the map is its own inverse): MMD's Z is negated.
fn flip_z(v: Vec3) -> Vec3 {
    Vec3::new(v.x, v.y, -v.z)
}

/// The model-space unit axis `k`.
fn axis(k: usize) -> Vec3 {
    match k {
        0 => Vec3::X,
        1 => Vec3::Y,
        _ => Vec3::Z,
    }
}

/// Where the gizmo's parts are on screen for a camera and viewport.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The selection's centre (world space) and its pixel.
    pub centre_world: Vec3,
    pub centre: Vec2,
    /// The pixel of each axis's tip; `None` when it is behind the camera.
    pub tips: [Option<Vec2>; 3],
    /// Each axis's ring (the circle about it), as pixels.
    pub rings: [Vec<Vec2>; 3],
    /// The world length of an axis (so it is `LENGTH_PIXELS` long on screen).
    pub length: f32,
}

impl Layout {
    /// The gizmo at `centre_model` (model space); `None` when the centre is behind the camera.
    #[must_use]
    pub fn new(camera: &OrbitCamera, size: Vec2, centre_model: Vec3) -> Option<Self> {
        let projector = Projector::new(camera, size);
        let centre_world = flip_z(centre_model);
        let (centre, _) = projector.project(centre_world)?;
        let forward = (camera.target - camera.eye()).normalize_or(Vec3::NEG_Z);
        let depth = (centre_world - camera.eye()).dot(forward).max(1.0e-3);
        let length =
            LENGTH_PIXELS * camera.world_per_pixel(size.y) * depth / camera.distance.max(1.0e-6);
        let tips = [0, 1, 2].map(|k| {
            projector
                .project(centre_world + flip_z(axis(k)) * length)
                .map(|(p, _)| p)
        });
        let rings = [0, 1, 2].map(|k| {
            let normal = flip_z(axis(k));
            let u = normal.any_orthonormal_vector();
            let v = normal.cross(u);
            (0..=RING_SEGMENTS)
                .filter_map(|i| {
                    let angle = i as f32 / RING_SEGMENTS as f32 * std::f32::consts::TAU;
                    let (sin, cos) = angle.sin_cos();
                    projector
                        .project(centre_world + (u * cos + v * sin) * length)
                        .map(|(p, _)| p)
                })
                .collect()
        });
        Some(Self {
            centre_world,
            centre,
            tips,
            rings,
            length,
        })
    }

    /// The handle under `pointer` (viewport pixels) in `mode`.
    #[must_use]
    pub fn hit(&self, mode: GizmoMode, pointer: Vec2) -> Option<Handle> {
        let near_centre = (pointer - self.centre).abs().max_element() <= CENTRE_PIXELS;
        match mode {
            GizmoMode::Off => None,
            GizmoMode::Move | GizmoMode::Scale => {
                if near_centre {
                    return Some(Handle::Centre);
                }
                let (k, distance) = (0..3)
                    .filter_map(|k| {
                        self.tips[k].map(|tip| (k, segment_distance(pointer, self.centre, tip)))
                    })
                    .min_by(|a, b| a.1.total_cmp(&b.1))?;
                (distance <= GRAB_PIXELS).then_some(if mode == GizmoMode::Move {
                    Handle::Axis(k)
                } else {
                    Handle::Centre
                })
            }
            GizmoMode::Rotate => {
                let (k, distance) = (0..3)
                    .map(|k| {
                        let ring = &self.rings[k];
                        let distance = ring
                            .windows(2)
                            .map(|w| segment_distance(pointer, w[0], w[1]))
                            .fold(f32::INFINITY, f32::min);
                        (k, distance)
                    })
                    .min_by(|a, b| a.1.total_cmp(&b.1))?;
                (distance <= GRAB_PIXELS).then_some(Handle::Axis(k))
            }
        }
    }
}

/// Distance from `p` to the segment `a`–`b`.
fn segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = if ab.length_squared() > 1.0e-9 {
        ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    p.distance(a + ab * t)
}

/// Where the ray through `pixel` meets the plane through `point` with `normal` (world space).
fn on_plane(
    camera: &OrbitCamera,
    size: Vec2,
    pixel: Vec2,
    point: Vec3,
    normal: Vec3,
) -> Option<Vec3> {
    let ray = camera.ray(pixel, size);
    let facing = ray.direction.dot(normal);
    if facing.abs() < 1.0e-4 {
        return None;
    }
    let t = (point - ray.origin).dot(normal) / facing;
    (t > 0.0 && t.is_finite()).then(|| ray.at(t))
}

/// The parameter of the point of the line `point + t · direction` (unit direction) nearest the
/// ray through `pixel`; `None` when the line runs along the ray.
fn along_line(
    camera: &OrbitCamera,
    size: Vec2,
    pixel: Vec2,
    point: Vec3,
    direction: Vec3,
) -> Option<f32> {
    let ray = camera.ray(pixel, size);
    let b = direction.dot(ray.direction);
    let denominator = 1.0 - b * b;
    if denominator < 1.0e-4 {
        return None;
    }
    let r = point - ray.origin;
    let t = (b * ray.direction.dot(r) - direction.dot(r)) / denominator;
    t.is_finite().then_some(t)
}

/// The model-space change of dragging `handle` of a gizmo at `centre_world` from pixel `from`
/// to pixel `to`; `None` when the drag says nothing (the axis seen end on, say).
#[must_use]
pub fn drag_step(
    mode: GizmoMode,
    handle: Handle,
    camera: &OrbitCamera,
    size: Vec2,
    centre_world: Vec3,
    from: Vec2,
    to: Vec2,
) -> Option<Transform> {
    if from == to {
        return None;
    }
    match (mode, handle) {
        (GizmoMode::Move, Handle::Axis(k)) => {
            let direction = flip_z(axis(k));
            let start = along_line(camera, size, from, centre_world, direction)?;
            let end = along_line(camera, size, to, centre_world, direction)?;
            Some(Transform::Move(axis(k) * (end - start)))
        }
        (GizmoMode::Move, Handle::Centre) => {
            let normal = (camera.eye() - camera.target).normalize_or(Vec3::Z);
            let start = on_plane(camera, size, from, centre_world, normal)?;
            let end = on_plane(camera, size, to, centre_world, normal)?;
            Some(Transform::Move(flip_z(end - start)))
        }
        (GizmoMode::Rotate, Handle::Axis(k)) => {
            let normal = flip_z(axis(k));
            let a = on_plane(camera, size, from, centre_world, normal)? - centre_world;
            let b = on_plane(camera, size, to, centre_world, normal)? - centre_world;
            let angle = normal.dot(a.cross(b)).atan2(a.dot(b));
            // A turn by θ about a world axis is a turn by -θ about the same axis in model space,
            // whose Z is mirrored.
            (angle.is_finite() && angle != 0.0)
                .then(|| Transform::Rotate(Quat::from_axis_angle(axis(k), -angle)))
        }
        (GizmoMode::Scale, _) => {
            let delta = to - from;
            let factor = ((delta.x - delta.y) * 0.01).exp();
            (factor.is_finite() && factor > 0.0).then_some(Transform::Scale(factor))
        }
        _ => None,
    }
}

/// An ongoing drag of a handle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GizmoDrag {
    pub handle: Handle,
    /// The pointer's last pixel (viewport).
    pub last: Vec2,
    /// The gesture the drag's edits merge under.
    pub gesture: egui::Id,
}

/// What the posed pivot was worked out for: (revision, selection generation, kind, placement
/// generations).
type PivotKey = (u64, u64, ElementKind, [Option<u64>; 3]);

/// The gizmo as a tool of the view: its mode, the drag under way and where it is laid out.
#[derive(Debug, Default)]
pub struct Gizmo {
    pub mode: GizmoMode,
    pub drag: Option<GizmoDrag>,
    /// One gesture per drag.
    gestures: Gestures,
    /// (revision, selection generation, kind) → the selection's centre in model space.
    centre: Option<((u64, u64, ElementKind), Option<Vec3>)>,
    /// The pivot where the pose puts the selection, for what it was worked out for.
    posed_pivot: Option<(PivotKey, Option<Vec3>)>,
    /// Where the handles are this frame (laid out before the frame's input).
    layout: Option<Layout>,
    /// The handle under the pointer this frame.
    hovered: Option<Handle>,
    /// Where the handles were painted (at the pivot of the frame's pose), until taken.
    painted: Option<Layout>,
}

impl Gizmo {
    /// The selection's centre, worked out again only when the model or the selection changed.
    pub fn centre(&mut self, document: &Document, kind: ElementKind) -> Option<Vec3> {
        let key = (document.revision(), document.selection.generation(), kind);
        match self.centre {
            Some((seen, centre)) if seen == key => centre,
            _ => {
                let centre = super::transform::selection_centre(document, kind);
                self.centre = Some((key, centre));
                centre
            }
        }
    }

    /// The gizmo's pivot (model space): the centre of what a transform of the selection of
    /// `kind` moves ([`super::transform::selection_centre`]), where the pose puts those
    /// elements while the model is posed: the mean of their posed positions (vertices skinned,
    /// bone heads, bodies and joints where the pose or the physics carried them). At rest it
    /// is the rest centre itself.
    pub fn pivot(
        &mut self,
        document: &Document,
        kind: ElementKind,
        placements: &Placements,
    ) -> Option<Vec3> {
        let rest = self.centre(document, kind)?;
        let generations = placements.generations_for(&document.model);
        if generations == [None; 3] {
            return Some(rest);
        }
        let key = (
            document.revision(),
            document.selection.generation(),
            kind,
            generations,
        );
        if let Some((seen, pivot)) = self.posed_pivot
            && seen == key
        {
            return pivot;
        }
        let pivot = placements.posed_centre(document, kind);
        self.posed_pivot = Some((key, pivot));
        pivot
    }

    /// The handles at the pivot of the selection of the pick mode's kind, as `cx` shows it;
    /// `None` when the gizmo is off, nothing is selected or the pivot is behind the camera.
    fn lay_out(&mut self, cx: &ToolCx<'_>) -> Option<Layout> {
        if self.mode == GizmoMode::Off {
            return None;
        }
        let pivot = self.pivot(cx.document, cx.pick_mode.kind(), cx.scene.placements)?;
        Layout::new(cx.scene.camera, cx.scene.size, pivot)
    }

    /// Where the handles were painted last, taken (`None` when they were not painted since).
    pub fn take_painted(&mut self) -> Option<Layout> {
        self.painted.take()
    }
}

impl ViewTool for Gizmo {
    fn toolbar_ui(&mut self, ui: &mut egui::Ui, lang: Language) {
        ui.separator();
        ui.label(lang.tr("view.gizmo"));
        for mode in GizmoMode::ALL {
            ui.selectable_value(&mut self.mode, mode, lang.tr(mode.key()));
        }
    }

    fn prepare(&mut self, cx: &mut ToolCx<'_>, hover: Option<Vec2>) {
        // Where the pose puts the selection, as drawn in the last frame.
        self.layout = self.lay_out(cx);
        self.hovered = self
            .layout
            .as_ref()
            .zip(hover)
            .and_then(|(layout, pointer)| layout.hit(self.mode, pointer));
    }

    fn input(&mut self, cx: &mut ToolCx<'_>, input: ViewInput) -> Taken {
        match input {
            // Hit-tested where the button went down: egui reports the drag only after the
            // pointer has moved a few pixels, possibly off a thin handle already.
            ViewInput::DragStart { origin, .. } => {
                let Some(handle) = self
                    .layout
                    .as_ref()
                    .and_then(|layout| layout.hit(self.mode, origin))
                else {
                    return Taken::No;
                };
                self.drag = Some(GizmoDrag {
                    handle,
                    last: origin,
                    gesture: self.gestures.next("view_gizmo"),
                });
            }
            ViewInput::Drag { at } => {
                let Some(drag) = &mut self.drag else {
                    return Taken::No;
                };
                if let Some(layout) = &self.layout {
                    if let Some(change) = drag_step(
                        self.mode,
                        drag.handle,
                        cx.scene.camera,
                        cx.scene.size,
                        layout.centre_world,
                        drag.last,
                        at,
                    ) {
                        cx.request(ToolRequest::Transform {
                            change,
                            gesture: drag.gesture,
                        });
                    }
                    drag.last = at;
                }
            }
            ViewInput::DragEnd { .. } | ViewInput::Cancel => {
                if self.drag.take().is_none() {
                    return Taken::No;
                }
            }
            ViewInput::Press { .. } | ViewInput::Click { .. } | ViewInput::Key(_) => {
                return Taken::No;
            }
        }
        Taken::Yes
    }

    fn cursor(&self) -> Option<egui::CursorIcon> {
        self.layout.as_ref()?;
        if self.drag.is_some() {
            Some(egui::CursorIcon::Grabbing)
        } else {
            self.hovered.map(|_| egui::CursorIcon::Grab)
        }
    }

    /// Paints the handles at the pivot where the frame's pose puts the selection (the pose of
    /// the frame is fed after the view pane ran, so this may differ from the input's layout).
    fn paint(&mut self, cx: &ToolCx<'_>, painter: &egui::Painter, rect: egui::Rect) {
        let active = self.drag.map(|drag| drag.handle).or(self.hovered);
        self.painted = self.lay_out(cx);
        if let Some(layout) = &self.painted {
            paint(painter, rect.min, layout, self.mode, active);
        }
    }
}

/// Draws the gizmo over the view (`origin`: the view's top left in screen points).
pub fn paint(
    painter: &egui::Painter,
    origin: egui::Pos2,
    layout: &Layout,
    mode: GizmoMode,
    active: Option<Handle>,
) {
    let at = |p: Vec2| origin + egui::vec2(p.x, p.y);
    let colour = |handle: Handle| {
        if active == Some(handle) {
            return egui::Color32::from_rgb(255, 210, 0);
        }
        match handle {
            Handle::Axis(0) => egui::Color32::from_rgb(220, 40, 40),
            Handle::Axis(1) => egui::Color32::from_rgb(40, 170, 40),
            Handle::Axis(_) => egui::Color32::from_rgb(50, 90, 230),
            Handle::Centre => egui::Color32::from_gray(250),
        }
    };
    let centre = at(layout.centre);
    match mode {
        GizmoMode::Off => {}
        GizmoMode::Move | GizmoMode::Scale => {
            for k in 0..3 {
                let Some(tip) = layout.tips[k] else {
                    continue;
                };
                let handle = if mode == GizmoMode::Move {
                    Handle::Axis(k)
                } else {
                    Handle::Centre
                };
                let stroke = egui::Stroke::new(3.0, colour(handle));
                painter.line_segment([centre, at(tip)], stroke);
                if mode == GizmoMode::Move {
                    let direction = (tip - layout.centre).normalize_or_zero();
                    let side = Vec2::new(-direction.y, direction.x);
                    let head = [
                        at(tip + direction * 10.0),
                        at(tip + side * 5.0),
                        at(tip - side * 5.0),
                    ];
                    painter.add(egui::Shape::convex_polygon(
                        head.to_vec(),
                        colour(handle),
                        egui::Stroke::NONE,
                    ));
                } else {
                    painter.rect_filled(
                        egui::Rect::from_center_size(at(tip), egui::vec2(9.0, 9.0)),
                        0.0,
                        colour(Handle::Axis(k)),
                    );
                }
            }
            painter.rect(
                egui::Rect::from_center_size(
                    centre,
                    egui::vec2(CENTRE_PIXELS * 2.0, CENTRE_PIXELS * 2.0),
                ),
                0.0,
                colour(Handle::Centre).gamma_multiply(0.6),
                egui::Stroke::new(1.5, egui::Color32::from_gray(40)),
                egui::StrokeKind::Inside,
            );
        }
        GizmoMode::Rotate => {
            for k in 0..3 {
                let points: Vec<egui::Pos2> = layout.rings[k].iter().map(|&p| at(p)).collect();
                painter.add(egui::Shape::line(
                    points,
                    egui::Stroke::new(2.5, colour(Handle::Axis(k))),
                ));
            }
            painter.circle_filled(centre, 3.0, egui::Color32::from_gray(40));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn camera() -> OrbitCamera {
        // Looking at the origin from the front (MMD's front: the model faces -Z in its own
        // space, the camera sits at world +Z).
        OrbitCamera {
            target: Vec3::ZERO,
            yaw: 0.0,
            pitch: 0.0,
            distance: 30.0,
            ..OrbitCamera::default()
        }
    }

    const SIZE: Vec2 = Vec2::new(800.0, 600.0);

    #[test]
    fn layout_puts_x_right_and_y_up_on_screen() {
        let layout = Layout::new(&camera(), SIZE, Vec3::ZERO).expect("in front");
        assert!((layout.centre - Vec2::new(400.0, 300.0)).length() < 0.5);
        let x = layout.tips[0].expect("x");
        let y = layout.tips[1].expect("y");
        assert!((x.x - 400.0 - LENGTH_PIXELS).abs() < 1.0, "{x}");
        assert!((300.0 - y.y - LENGTH_PIXELS).abs() < 1.0, "{y}");
        // Z points at the camera: its tip is (nearly) on the centre.
        assert_eq!(
            layout.hit(GizmoMode::Move, Vec2::new(400.0 + 60.0, 301.0)),
            Some(Handle::Axis(0))
        );
        assert_eq!(
            layout.hit(GizmoMode::Move, Vec2::new(402.0, 297.0)),
            Some(Handle::Centre)
        );
        assert_eq!(layout.hit(GizmoMode::Move, Vec2::new(600.0, 500.0)), None);
        // The Z ring faces the camera: a circle of the axis length round the centre (the X and
        // Y rings are seen edge on, as the vertical and horizontal diameters).
        let diagonal = LENGTH_PIXELS * std::f32::consts::FRAC_1_SQRT_2;
        assert_eq!(
            layout.hit(
                GizmoMode::Rotate,
                Vec2::new(400.0 + diagonal, 300.0 - diagonal)
            ),
            Some(Handle::Axis(2))
        );
        assert_eq!(
            layout.hit(GizmoMode::Rotate, Vec2::new(400.0, 300.0 - 40.0)),
            Some(Handle::Axis(0))
        );
    }

    #[test]
    fn moving_along_x_follows_the_pointer() {
        let camera = camera();
        let layout = Layout::new(&camera, SIZE, Vec3::ZERO).expect("layout");
        let step = drag_step(
            GizmoMode::Move,
            Handle::Axis(0),
            &camera,
            SIZE,
            layout.centre_world,
            Vec2::new(450.0, 300.0),
            Vec2::new(450.0 + LENGTH_PIXELS, 280.0),
        );
        let Some(Transform::Move(by)) = step else {
            panic!("{step:?}");
        };
        // One gizmo length on screen is one axis length in the model; the vertical part of
        // the drag does not move along X.
        assert!((by.x - layout.length).abs() < 0.01 * layout.length, "{by}");
        assert!(by.y.abs() < 1e-4 && by.z.abs() < 1e-4);
    }

    #[test]
    fn dragging_the_z_ring_counter_clockwise_turns_x_towards_y() {
        let camera = camera();
        let layout = Layout::new(&camera, SIZE, Vec3::ZERO).expect("layout");
        let r = LENGTH_PIXELS;
        // From the ring's right point to its top point: a quarter turn, counter-clockwise as
        // seen from the camera.
        let step = drag_step(
            GizmoMode::Rotate,
            Handle::Axis(2),
            &camera,
            SIZE,
            layout.centre_world,
            Vec2::new(400.0 + r, 300.0),
            Vec2::new(400.0, 300.0 - r),
        );
        let Some(Transform::Rotate(rotation)) = step else {
            panic!("{step:?}");
        };
        // In the model, the point on +X goes to +Y: what the user saw on screen.
        let turned = rotation * Vec3::X;
        assert!((turned - Vec3::Y).length() < 1e-3, "{turned}");
    }

    #[test]
    fn moving_the_centre_follows_the_screen_plane_and_scale_grows_to_the_right() {
        let camera = camera();
        let layout = Layout::new(&camera, SIZE, Vec3::ZERO).expect("layout");
        let step = drag_step(
            GizmoMode::Move,
            Handle::Centre,
            &camera,
            SIZE,
            layout.centre_world,
            Vec2::new(400.0, 300.0),
            Vec2::new(400.0, 300.0 - LENGTH_PIXELS),
        );
        let Some(Transform::Move(by)) = step else {
            panic!("{step:?}");
        };
        assert!((by.y - layout.length).abs() < 0.01 * layout.length, "{by}");
        let grow = drag_step(
            GizmoMode::Scale,
            Handle::Centre,
            &camera,
            SIZE,
            layout.centre_world,
            Vec2::new(400.0, 300.0),
            Vec2::new(450.0, 300.0),
        );
        assert!(matches!(grow, Some(Transform::Scale(f)) if f > 1.4 && f < 1.8));
    }
}
