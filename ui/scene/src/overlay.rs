//! What the view draws over the model, built on the CPU as coloured lines, points and
//! translucent triangles in world space: bones by kind with their tails, rigid bodies by mode,
//! joints, the ground grid and axes, normals, the weight colours. GPU-free.

use crate::Selected;
use crate::camera::to_world;
use crate::pick::{Shape, Solid};
use glam::{Quat, Vec3};
use pmx_core::model::{Bone, BoneFlags, Model, RigidBody, RigidMode, RigidShape, Weight};
use pmx_core::pose::SkinJob;
use std::sync::{Mutex, OnceLock, PoisonError};

/// A coloured vertex (world position, linear RGBA).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ColoredVertex {
    pub position: [f32; 3],
    pub color: [f32; 4],
}

fn cv(position: Vec3, color: [f32; 4]) -> ColoredVertex {
    ColoredVertex {
        position: position.to_array(),
        color,
    }
}

/// Overlay geometry: `lines` in pairs (drawn over the model), `depth_lines` in pairs (hidden
/// behind it: grid, normals), `triangles` in threes, `points` one each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OverlayGeometry {
    pub lines: Vec<ColoredVertex>,
    pub depth_lines: Vec<ColoredVertex>,
    pub triangles: Vec<ColoredVertex>,
    pub points: Vec<ColoredVertex>,
}

impl OverlayGeometry {
    pub fn line(&mut self, a: Vec3, b: Vec3, color: [f32; 4]) {
        if a.is_finite() && b.is_finite() {
            self.lines.push(cv(a, color));
            self.lines.push(cv(b, color));
        }
    }

    pub fn depth_line(&mut self, a: Vec3, b: Vec3, color: [f32; 4]) {
        if a.is_finite() && b.is_finite() {
            self.depth_lines.push(cv(a, color));
            self.depth_lines.push(cv(b, color));
        }
    }

    pub fn point(&mut self, at: Vec3, color: [f32; 4]) {
        if at.is_finite() {
            self.points.push(cv(at, color));
        }
    }

    pub fn triangle(&mut self, a: Vec3, b: Vec3, c: Vec3, color: [f32; 4]) {
        if a.is_finite() && b.is_finite() && c.is_finite() {
            self.triangles
                .extend([cv(a, color), cv(b, color), cv(c, color)]);
        }
    }

    pub fn extend(&mut self, other: OverlayGeometry) {
        self.lines.extend(other.lines);
        self.depth_lines.extend(other.depth_lines);
        self.triangles.extend(other.triangles);
        self.points.extend(other.points);
    }
}

pub const SELECTED: [f32; 4] = [1.0, 0.9, 0.1, 1.0];

/// What a bone looks like in the bone overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoneKind {
    Ik,
    Append,
    AfterPhysics,
    Invisible,
    Normal,
}

impl BoneKind {
    #[must_use]
    pub fn of(bone: &Bone) -> Self {
        if bone.flags.contains(BoneFlags::IK) {
            BoneKind::Ik
        } else if bone
            .flags
            .intersects(BoneFlags::APPEND_ROTATE | BoneFlags::APPEND_MOVE)
        {
            BoneKind::Append
        } else if bone.flags.contains(BoneFlags::AFTER_PHYSICS) {
            BoneKind::AfterPhysics
        } else if !bone.flags.contains(BoneFlags::VISIBLE) {
            BoneKind::Invisible
        } else {
            BoneKind::Normal
        }
    }

    #[must_use]
    pub fn color(self) -> [f32; 4] {
        match self {
            BoneKind::Ik => [1.0, 0.55, 0.1, 1.0],
            BoneKind::Append => [0.2, 0.85, 0.4, 1.0],
            BoneKind::AfterPhysics => [0.75, 0.4, 1.0, 1.0],
            BoneKind::Invisible => [0.55, 0.55, 0.55, 0.7],
            BoneKind::Normal => [0.3, 0.55, 1.0, 1.0],
        }
    }
}

/// A bone's tail in world space: the tail bone's position or the offset; `None` when it has
/// no tail (offset zero, or no tail bone).
#[must_use]
pub fn bone_tail(model: &Model, bone: &Bone) -> Option<Vec3> {
    if bone.flags.contains(BoneFlags::TAIL_IS_BONE) {
        let tail = model.bones.get(bone.tail_bone?.get())?;
        Some(to_world(tail.position))
    } else {
        let offset = to_world(bone.tail_offset);
        (offset.length_squared() > 0.0).then(|| to_world(bone.position) + offset)
    }
}

/// Bones: a line from each head to its tail and a point at the head.
#[must_use]
pub fn bones(model: &Model, selected: &dyn Selected) -> OverlayGeometry {
    bones_placed(model, selected, None)
}

/// A bone's head where `placement` (its global transform, model space) puts it, or at rest.
fn head_placed(bone: &Bone, placement: Option<&pmx_core::pose::Transform>) -> Vec3 {
    match placement {
        Some(placement) => to_world(Vec3::from(placement.translation).into()),
        None => to_world(bone.position),
    }
}

/// Where bone `index`'s head is drawn: where `placements` (model space, one global transform
/// per bone) put it, or at rest when `None` (or when the list has no entry for it).
#[must_use]
pub fn bone_head_placed(
    model: &Model,
    index: usize,
    placements: Option<&[pmx_core::pose::Transform]>,
) -> Option<Vec3> {
    let bone = model.bones.get(index)?;
    Some(head_placed(
        bone,
        placements.and_then(|list| list.get(index)),
    ))
}

/// Bone `index`'s tail as drawn: the tail bone's drawn head, or the offset turned with the
/// bone; `None` when it has no tail (as [`bone_tail`]).
#[must_use]
pub fn bone_tail_placed(
    model: &Model,
    index: usize,
    placements: Option<&[pmx_core::pose::Transform]>,
) -> Option<Vec3> {
    let bone = model.bones.get(index)?;
    let placement = placements.and_then(|list| list.get(index));
    match placement {
        None => bone_tail(model, bone),
        Some(_) if bone.flags.contains(BoneFlags::TAIL_IS_BONE) => {
            bone_head_placed(model, bone.tail_bone?.get(), placements)
        }
        Some(placement) => {
            // The skinning matrix maps a rest point p to R·(p − rest head) + T (T: the posed
            // head); for p = rest head + offset that is R·offset + T.
            let offset = Vec3::from(bone.tail_offset);
            (offset.length_squared() > 0.0).then(|| {
                let tail = placement.rotation * offset + Vec3::from(placement.translation);
                to_world(tail.into())
            })
        }
    }
}

/// Every bone's head where it is drawn (see [`bone_head_placed`]), in bone order: what bone
/// picking tests against.
pub fn bone_heads_placed<'a>(
    model: &'a Model,
    placements: Option<&'a [pmx_core::pose::Transform]>,
) -> impl Iterator<Item = Vec3> + 'a {
    model
        .bones
        .iter()
        .enumerate()
        .map(move |(index, bone)| head_placed(bone, placements.and_then(|list| list.get(index))))
}

/// Bones where `placements` (model space, one global transform per bone, as a pose or the
/// physics left them) put them, or at rest when `None`.
#[must_use]
pub fn bones_placed(
    model: &Model,
    selected: &dyn Selected,
    placements: Option<&[pmx_core::pose::Transform]>,
) -> OverlayGeometry {
    let mut out = OverlayGeometry::default();
    for (index, bone) in model.bones.iter().enumerate() {
        let color = if selected.contains(index) {
            SELECTED
        } else {
            BoneKind::of(bone).color()
        };
        let head = head_placed(bone, placements.and_then(|list| list.get(index)));
        out.point(head, color);
        if let Some(tail) = bone_tail_placed(model, index, placements) {
            out.line(head, tail, color);
        }
    }
    out
}

/// A model-space Euler rotation (radians, applied Y, X, Z as MikuMikuDance does) in world space.
#[must_use]
pub fn world_rotation(rotation: pmx_core::model::Vec3) -> Quat {
    let q = pmx_core::model::facts::euler_to_quat(rotation);
    // Mirroring Z turns a rotation (x, y, z, w) into (-x, -y, z, w).
    Quat::from_xyzw(-q.x, -q.y, q.z, q.w)
}

/// A rigid body's shape, placed in world space (unknown shapes as spheres).
#[must_use]
pub fn solid(body: &RigidBody) -> Solid {
    let size = body.size;
    let shape = match body.shape {
        RigidShape::Box => Shape::Box {
            half: Vec3::new(size.x, size.y, size.z),
        },
        RigidShape::Capsule => Shape::Capsule {
            radius: size.x,
            half_height: size.y * 0.5,
        },
        RigidShape::Sphere | RigidShape::Unknown(_) => Shape::Sphere { radius: size.x },
    };
    Solid {
        shape,
        center: to_world(body.position),
        rotation: world_rotation(body.rotation),
    }
}

#[must_use]
pub fn rigid_mode_color(mode: RigidMode) -> [f32; 4] {
    match mode {
        RigidMode::FollowBone => [0.25, 0.85, 0.35, 1.0],
        RigidMode::Physics => [0.95, 0.3, 0.25, 1.0],
        RigidMode::PhysicsWithBone => [0.95, 0.75, 0.2, 1.0],
        RigidMode::Unknown(_) => [0.6, 0.6, 0.6, 1.0],
    }
}

const RINGS: usize = 8;
const SEGMENTS: usize = 16;

/// A shape's surface as triangles (translucent) and its outline as lines.
pub fn add_solid(out: &mut OverlayGeometry, solid: &Solid, color: [f32; 4], alpha: f32) {
    let fill = [color[0], color[1], color[2], alpha];
    let place = |p: Vec3| solid.center + solid.rotation * p;
    match solid.shape {
        Shape::Box { half } => {
            let corner = |i: usize| {
                Vec3::new(
                    if i & 1 == 0 { -half.x } else { half.x },
                    if i & 2 == 0 { -half.y } else { half.y },
                    if i & 4 == 0 { -half.z } else { half.z },
                )
            };
            let quads = [
                [0, 1, 3, 2],
                [4, 6, 7, 5],
                [0, 4, 5, 1],
                [2, 3, 7, 6],
                [0, 2, 6, 4],
                [1, 5, 7, 3],
            ];
            for quad in quads {
                let [a, b, c, d] = quad.map(|i| place(corner(i)));
                out.triangle(a, b, c, fill);
                out.triangle(a, c, d, fill);
            }
            for (a, b) in [
                (0, 1),
                (1, 3),
                (3, 2),
                (2, 0),
                (4, 5),
                (5, 7),
                (7, 6),
                (6, 4),
                (0, 4),
                (1, 5),
                (2, 6),
                (3, 7),
            ] {
                out.line(place(corner(a)), place(corner(b)), color);
            }
        }
        Shape::Sphere { radius } => {
            add_rounded(out, &place, radius.abs(), 0.0, fill, color);
        }
        Shape::Capsule {
            radius,
            half_height,
        } => {
            add_rounded(out, &place, radius.abs(), half_height.abs(), fill, color);
        }
    }
}

/// A sphere (`half_height` 0) or a capsule along local Y.
fn add_rounded(
    out: &mut OverlayGeometry,
    place: &dyn Fn(Vec3) -> Vec3,
    radius: f32,
    half_height: f32,
    fill: [f32; 4],
    color: [f32; 4],
) {
    use std::f32::consts::{PI, TAU};
    // Rings from the north pole to the south; the upper half is lifted by half_height.
    let point = |ring: usize, segment: usize| -> Vec3 {
        let theta = PI * ring as f32 / RINGS as f32;
        let phi = TAU * segment as f32 / SEGMENTS as f32;
        let y = theta.cos() * radius;
        let r = theta.sin() * radius;
        let lift = if ring <= RINGS / 2 {
            half_height
        } else {
            -half_height
        };
        Vec3::new(r * phi.cos(), y + lift, r * phi.sin())
    };
    // The equator ring twice (top and bottom of the cylinder) when it is a capsule.
    for ring in 0..RINGS {
        for segment in 0..SEGMENTS {
            let next = (segment + 1) % SEGMENTS;
            let (a, b) = (place(point(ring, segment)), place(point(ring, next)));
            let (c, d) = (
                place(point(ring + 1, next)),
                place(point(ring + 1, segment)),
            );
            out.triangle(a, d, c, fill);
            out.triangle(a, c, b, fill);
        }
    }
    if half_height > 0.0 {
        for segment in 0..SEGMENTS {
            let next = (segment + 1) % SEGMENTS;
            let top = |s: usize| {
                let p = point(RINGS / 2, s);
                place(p)
            };
            let bottom = |s: usize| place(point(RINGS / 2, s) - Vec3::Y * 2.0 * half_height);
            out.triangle(top(segment), bottom(segment), bottom(next), fill);
            out.triangle(top(segment), bottom(next), top(next), fill);
            if segment % 4 == 0 {
                out.line(top(segment), bottom(segment), color);
            }
        }
    }
    // Three outline circles.
    for segment in 0..SEGMENTS {
        let next = (segment + 1) % SEGMENTS;
        let angle = |s: usize| TAU * s as f32 / SEGMENTS as f32;
        let horizontal = |s: usize, y: f32| {
            place(Vec3::new(
                angle(s).cos() * radius,
                y,
                angle(s).sin() * radius,
            ))
        };
        out.line(
            horizontal(segment, half_height),
            horizontal(next, half_height),
            color,
        );
        if half_height > 0.0 {
            out.line(
                horizontal(segment, -half_height),
                horizontal(next, -half_height),
                color,
            );
        }
        let vertical = |s: usize, along_x: bool| {
            let (across, up) = (angle(s).cos() * radius, angle(s).sin() * radius);
            let lift = if up >= 0.0 { half_height } else { -half_height };
            if along_x {
                place(Vec3::new(across, up + lift, 0.0))
            } else {
                place(Vec3::new(0.0, up + lift, across))
            }
        };
        out.line(vertical(segment, true), vertical(next, true), color);
        out.line(vertical(segment, false), vertical(next, false), color);
    }
}

/// Rigid bodies, coloured by mode, translucent; the selected ones brighter.
#[must_use]
pub fn rigid_bodies(model: &Model, selected: &dyn Selected) -> OverlayGeometry {
    rigid_bodies_placed(model, selected, None)
}

/// A model-space placement (a pose's or a simulation's) in world space.
#[must_use]
pub fn world_placement(placement: &pmx_core::pose::Transform) -> (Vec3, Quat) {
    let q = placement.rotation;
    (
        to_world(Vec3::from(placement.translation).into()),
        Quat::from_xyzw(-q.x, -q.y, q.z, q.w),
    )
}

/// Rigid bodies where `placements` (model space, one per body, as a pose or the physics left
/// them) put them, or at rest when `None`.
#[must_use]
pub fn rigid_bodies_placed(
    model: &Model,
    selected: &dyn Selected,
    placements: Option<&[pmx_core::pose::Transform]>,
) -> OverlayGeometry {
    let mut out = OverlayGeometry::default();
    for (index, body) in model.rigid_bodies.iter().enumerate() {
        let (color, alpha) = if selected.contains(index) {
            (SELECTED, 0.45)
        } else {
            (rigid_mode_color(body.mode), 0.22)
        };
        let mut placed = solid(body);
        if let Some(at) = placements.and_then(|p| p.get(index)) {
            (placed.center, placed.rotation) = world_placement(at);
        }
        add_solid(&mut out, &placed, color, alpha);
    }
    out
}

pub const JOINT_COLOR: [f32; 4] = [0.2, 0.9, 0.95, 1.0];

/// Joints: a small cube at each, lines to the two bodies it connects.
#[must_use]
pub fn joints(model: &Model, selected: &dyn Selected, size: f32) -> OverlayGeometry {
    joints_placed(model, selected, size, None)
}

/// Joint `index`'s frame (model space) as drawn: carried by its first body from where
/// `placements` (model space, one per body) put the bodies, or at rest when `None`.
#[must_use]
pub fn joint_placed(
    model: &Model,
    index: usize,
    placements: Option<&[pmx_core::pose::Transform]>,
) -> Option<pmx_core::pose::Transform> {
    use pmx_core::pose::Transform;
    let joint = model.joints.get(index)?;
    let rest = Transform::placed(joint.position, joint.rotation);
    let Some(placements) = placements else {
        return Some(rest);
    };
    // The joint rides on its first body (as the physics holds it there).
    let carrier = [joint.body_a, joint.body_b]
        .into_iter()
        .flatten()
        .map(|b| b.get())
        .find(|&b| b < model.rigid_bodies.len());
    let carried = carrier.and_then(|body| {
        let rest_body = model.rigid_bodies.get(body)?;
        let rest_body = Transform::placed(rest_body.position, rest_body.rotation);
        let now = placements.get(body)?;
        Some(now.compose(&rest_body.inverse().compose(&rest)))
    });
    Some(carried.unwrap_or(rest))
}

/// Joints carried by their first body from where `placements` (model space, one per body)
/// put the bodies, or at rest when `None`.
#[must_use]
pub fn joints_placed(
    model: &Model,
    selected: &dyn Selected,
    size: f32,
    placements: Option<&[pmx_core::pose::Transform]>,
) -> OverlayGeometry {
    use pmx_core::pose::Transform;
    let placed_of = |index: usize| -> Option<Transform> {
        match placements {
            Some(list) => list.get(index).copied(),
            None => model
                .rigid_bodies
                .get(index)
                .map(|body| Transform::placed(body.position, body.rotation)),
        }
    };
    let mut out = OverlayGeometry::default();
    for (index, joint) in model.joints.iter().enumerate() {
        let color = if selected.contains(index) {
            SELECTED
        } else {
            JOINT_COLOR
        };
        let Some(frame) = joint_placed(model, index, placements) else {
            continue;
        };
        let (center, rotation) = world_placement(&frame);
        let cube = Solid {
            shape: Shape::Box {
                half: Vec3::splat(size),
            },
            center,
            rotation,
        };
        add_solid(&mut out, &cube, color, 0.5);
        for body in [joint.body_a, joint.body_b].into_iter().flatten() {
            if let Some(at) = placed_of(body.get()) {
                out.line(
                    center,
                    world_placement(&at).0,
                    [color[0], color[1], color[2], 0.6],
                );
            }
        }
    }
    out
}

/// The ground grid (every `step` units, `count` lines each way) and the X/Y/Z axes (red,
/// green, blue; Z towards the model's +Z, which is its back).
#[must_use]
pub fn grid_and_axes(step: f32, count: i32) -> OverlayGeometry {
    let mut out = OverlayGeometry::default();
    let extent = step * count as f32;
    let grey = [0.5, 0.5, 0.5, 0.5];
    for i in -count..=count {
        let at = step * i as f32;
        if i != 0 {
            out.depth_line(
                Vec3::new(at, 0.0, -extent),
                Vec3::new(at, 0.0, extent),
                grey,
            );
            out.depth_line(
                Vec3::new(-extent, 0.0, at),
                Vec3::new(extent, 0.0, at),
                grey,
            );
        }
    }
    out.depth_line(Vec3::new(-extent, 0.0, 0.0), Vec3::ZERO, grey);
    out.depth_line(Vec3::new(0.0, 0.0, extent), Vec3::ZERO, grey);
    out.depth_line(
        Vec3::ZERO,
        Vec3::new(extent, 0.0, 0.0),
        [1.0, 0.2, 0.2, 1.0],
    );
    out.depth_line(
        Vec3::ZERO,
        Vec3::new(0.0, extent, 0.0),
        [0.2, 1.0, 0.2, 1.0],
    );
    out.depth_line(
        Vec3::ZERO,
        to_world(pmx_core::model::Vec3::new(0.0, 0.0, extent)),
        [0.3, 0.4, 1.0, 1.0],
    );
    out
}

/// Where a pose put the model's vertices: the skinned positions and normals (model space, one
/// of each per vertex, normals not renormalised) the view's mesh was deformed with.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PosedVertices {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
}

impl PosedVertices {
    /// Whether the lists are `model`'s (one entry per vertex): a pose made before vertices were
    /// inserted or removed is not used until the pose follows the edit.
    #[must_use]
    pub fn fits(&self, model: &Model) -> bool {
        self.positions.len() == model.vertices.len() && self.normals.len() == model.vertices.len()
    }
}

/// A pose's [`PosedVertices`], skinned on the CPU the first time something asks for them (a
/// pick, a brush, an overlay on vertices) and never otherwise: the view's mesh is skinned on
/// the GPU, so a motion playing under no vertex overlay costs no CPU skinning at all. Holds
/// the evaluation's [`SkinJob`] until then, which gives the same vertices, bit for bit, as
/// skinning at once would have.
#[derive(Debug)]
pub struct LazyPosedVertices {
    vertex_count: usize,
    made: OnceLock<PosedVertices>,
    /// The skinning to run when first asked, and the lists to run it into (last frame's,
    /// reused); taken then.
    job: Mutex<Option<(SkinJob, PosedVertices)>>,
}

impl LazyPosedVertices {
    /// Vertices `job` skins into `lists` (any length: resized; pass the lists of an earlier
    /// frame to reuse their memory) when first asked for.
    #[must_use]
    pub fn new(job: SkinJob, lists: PosedVertices) -> Self {
        Self {
            vertex_count: job.vertex_count(),
            made: OnceLock::new(),
            job: Mutex::new(Some((job, lists))),
        }
    }

    /// Vertices already skinned.
    #[must_use]
    pub fn made(posed: PosedVertices) -> Self {
        Self {
            vertex_count: posed.positions.len(),
            made: OnceLock::from(posed),
            job: Mutex::new(None),
        }
    }

    /// How many vertices the pose has (known without skinning them).
    #[must_use]
    pub fn vertex_count(&self) -> usize {
        self.vertex_count
    }

    /// Whether the vertices have been skinned.
    #[must_use]
    pub fn is_made(&self) -> bool {
        self.made.get().is_some()
    }

    /// The posed vertices, skinned now if this is the first time they are asked for.
    pub fn get(&self) -> &PosedVertices {
        self.made.get_or_init(|| {
            let taken = self
                .job
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            // Without a job (a skinning that panicked) the lists are empty, which no model
            // fits: the view then shows the vertices at rest rather than anything wrong.
            taken.map_or_else(PosedVertices::default, |(job, mut lists)| {
                job.skin_all_into(&mut lists.positions, &mut lists.normals);
                lists
            })
        })
    }

    /// The skinned vertices if they were made, else the lists the job would have filled
    /// (their memory, for the next frame's job).
    #[must_use]
    pub fn into_lists(self) -> (bool, PosedVertices) {
        match self.made.into_inner() {
            Some(made) => (true, made),
            None => {
                let job = self
                    .job
                    .into_inner()
                    .unwrap_or_else(PoisonError::into_inner);
                (false, job.map(|(_, lists)| lists).unwrap_or_default())
            }
        }
    }
}

/// Where vertex `index` is drawn (world space): where `posed` put it, or at rest when `None`.
#[must_use]
pub fn vertex_placed(model: &Model, index: usize, posed: Option<&PosedVertices>) -> Option<Vec3> {
    match posed {
        Some(posed) => posed.positions.get(index).map(|&p| to_world(p.into())),
        None => model.vertices.get(index).map(|v| to_world(v.position)),
    }
}

/// Every vertex where it is drawn (see [`vertex_placed`]), in vertex order: what vertex picking
/// and the rectangle selection test against.
pub fn vertices_placed<'a>(
    model: &'a Model,
    posed: Option<&'a PosedVertices>,
) -> Box<dyn Iterator<Item = Vec3> + 'a> {
    match posed {
        Some(posed) => Box::new(posed.positions.iter().map(|&p| to_world(p.into()))),
        None => Box::new(model.vertices.iter().map(|v| to_world(v.position))),
    }
}

/// A line along each vertex normal, `length` long.
#[must_use]
pub fn normals(model: &Model, length: f32) -> OverlayGeometry {
    normals_placed(model, length, None)
}

const NORMAL_COLOR: [f32; 4] = [0.9, 0.9, 0.2, 1.0];

/// A line along each vertex normal, `length` long, from where `posed` put the vertex and along
/// its posed normal, or at rest when `None`.
#[must_use]
pub fn normals_placed(
    model: &Model,
    length: f32,
    posed: Option<&PosedVertices>,
) -> OverlayGeometry {
    let mut out = OverlayGeometry::default();
    out.depth_lines.reserve(model.vertices.len() * 2);
    match posed {
        Some(posed) => {
            for (&at, &normal) in posed.positions.iter().zip(&posed.normals) {
                let at = to_world(at.into());
                let normal = to_world(normal.into()).normalize_or_zero();
                out.depth_line(at, at + normal * length, NORMAL_COLOR);
            }
        }
        None => {
            for vertex in &model.vertices {
                let at = to_world(vertex.position);
                let normal = to_world(vertex.normal).normalize_or_zero();
                out.depth_line(at, at + normal * length, NORMAL_COLOR);
            }
        }
    }
    out
}

pub const SELECTED_VERTEX: [f32; 4] = [1.0, 0.15, 0.15, 1.0];

/// Selected vertices as points, added to `out` (in place: with 100,000 vertices selected, the
/// overlay is rebuilt every frame of a drag, and a copy of it costs as much as building it).
pub fn add_selected_vertices(out: &mut OverlayGeometry, model: &Model, selected: &dyn Selected) {
    add_selected_vertices_placed(out, model, selected, None);
}

/// Selected vertices as points where `posed` put them (at rest when `None`), added to `out`.
pub fn add_selected_vertices_placed(
    out: &mut OverlayGeometry,
    model: &Model,
    selected: &dyn Selected,
    posed: Option<&PosedVertices>,
) {
    out.points.reserve(selected.count());
    for index in selected.indices() {
        if let Some(at) = vertex_placed(model, index, posed) {
            out.point(at, SELECTED_VERTEX);
        }
    }
}

/// Selected faces' fill and edges (face mode).
pub const SELECTED_FACE: [f32; 4] = [1.0, 0.45, 0.1, 0.35];
const SELECTED_FACE_EDGE: [f32; 4] = [1.0, 0.45, 0.1, 1.0];

/// Selected faces where `posed` put their vertices (at rest when `None`), added to `out`: each
/// a translucent triangle with its three edges, so the selection shows over the mesh.
pub fn add_selected_faces_placed(
    out: &mut OverlayGeometry,
    model: &Model,
    selected: &dyn Selected,
    posed: Option<&PosedVertices>,
) {
    out.triangles.reserve(selected.count() * 3);
    out.lines.reserve(selected.count() * 6);
    for index in selected.indices() {
        let Some(face) = model.faces.get(index) else {
            continue;
        };
        let corner = |k: usize| vertex_placed(model, face[k].0 as usize, posed);
        let (Some(a), Some(b), Some(c)) = (corner(0), corner(1), corner(2)) else {
            continue;
        };
        out.triangle(a, b, c, SELECTED_FACE);
        for (p, q) in [(a, b), (b, c), (c, a)] {
            out.line(p, q, SELECTED_FACE_EDGE);
        }
    }
}

/// How much `vertex` follows `bone` (0..1).
#[must_use]
pub fn weight_of(weight: &Weight, bone: usize) -> f32 {
    let is = |b: &Option<pmx_core::model::BoneIdx>| b.is_some_and(|b| b.get() == bone);
    let total = match weight {
        Weight::Bdef1 { bone } => {
            if is(bone) {
                1.0
            } else {
                0.0
            }
        }
        Weight::Bdef2 { bones, weight } | Weight::Sdef { bones, weight, .. } => {
            let mut total = 0.0;
            if is(&bones[0]) {
                total += weight;
            }
            if is(&bones[1]) {
                total += 1.0 - weight;
            }
            total
        }
        Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => bones
            .iter()
            .zip(weights)
            .filter(|(b, _)| is(b))
            .map(|(_, w)| *w)
            .sum(),
    };
    if total.is_finite() {
        total.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// Every vertex's weight for `bone` (the weight view's per-vertex values).
#[must_use]
pub fn weights_for(model: &Model, bone: usize) -> Vec<f32> {
    model
        .vertices
        .iter()
        .map(|v| weight_of(&v.weight, bone))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn bodies_and_joints_placed_at_rest_draw_as_at_rest() {
        use pmx_core::model::{Joint, RigidBodyIdx};
        let mut model = Model::default();
        for (position, rotation) in [
            (
                pmx_core::model::Vec3::new(1.0, 2.0, 3.0),
                pmx_core::model::Vec3::new(0.3, -0.2, 1.2),
            ),
            (
                pmx_core::model::Vec3::new(-1.0, 5.0, 0.5),
                pmx_core::model::Vec3::new(-0.4, 0.9, 0.1),
            ),
        ] {
            model.rigid_bodies.push(RigidBody {
                position,
                rotation,
                ..RigidBody::default()
            });
        }
        model.joints.push(Joint {
            body_a: Some(RigidBodyIdx::new(0)),
            body_b: Some(RigidBodyIdx::new(1)),
            position: pmx_core::model::Vec3::new(0.0, 3.0, 1.0),
            rotation: pmx_core::model::Vec3::new(0.5, 0.2, -0.3),
            ..Joint::default()
        });
        let rest: Vec<pmx_core::pose::Transform> = model
            .rigid_bodies
            .iter()
            .map(|b| pmx_core::pose::Transform::placed(b.position, b.rotation))
            .collect();
        let none = std::collections::BTreeSet::new();
        let close =
            |a: &OverlayGeometry, b: &OverlayGeometry| {
                a.lines.len() == b.lines.len()
                    && a.lines.iter().zip(&b.lines).all(|(x, y)| {
                        Vec3::from(x.position).distance(Vec3::from(y.position)) < 1e-4
                    })
                    && a.triangles.iter().zip(&b.triangles).all(|(x, y)| {
                        Vec3::from(x.position).distance(Vec3::from(y.position)) < 1e-4
                    })
            };
        assert!(close(
            &joints_placed(&model, &none, 0.2, Some(&rest)),
            &joints(&model, &none, 0.2)
        ));
        assert!(close(
            &rigid_bodies_placed(&model, &none, Some(&rest)),
            &rigid_bodies(&model, &none)
        ));
    }

    use super::*;
    use pmx_core::model::{BoneIdx, Vertex};

    #[test]
    fn bone_kinds_tails_and_colours() {
        let mut model = Model::new_empty();
        let root = Bone {
            position: pmx_core::model::Vec3::new(0.0, 1.0, 2.0),
            tail_offset: pmx_core::model::Vec3::new(0.0, 1.0, 0.0),
            ..Bone::default()
        };
        let mut ik = Bone::default();
        ik.flags |= BoneFlags::IK | BoneFlags::TAIL_IS_BONE;
        ik.tail_bone = Some(BoneIdx::new(0));
        let mut hidden = Bone::default();
        hidden.flags.remove(BoneFlags::VISIBLE);
        hidden.flags |= BoneFlags::TAIL_IS_BONE;
        hidden.tail_bone = Some(BoneIdx::new(99));
        model.bones = vec![root, ik, hidden];
        assert_eq!(BoneKind::of(&model.bones[1]), BoneKind::Ik);
        assert_eq!(BoneKind::of(&model.bones[2]), BoneKind::Invisible);
        assert_eq!(
            bone_tail(&model, &model.bones[0]),
            Some(Vec3::new(0.0, 2.0, -2.0))
        );
        assert_eq!(
            bone_tail(&model, &model.bones[1]),
            Some(Vec3::new(0.0, 1.0, -2.0))
        );
        assert_eq!(bone_tail(&model, &model.bones[2]), None);
        let mut selected = std::collections::BTreeSet::new();
        selected.insert(0);
        let geometry = bones(&model, &selected);
        assert_eq!(geometry.points.len(), 3);
        assert_eq!(geometry.lines.len(), 4);
        assert_eq!(geometry.lines[0].color, SELECTED);
        assert_eq!(geometry.lines[2].color, BoneKind::Ik.color());
    }

    #[test]
    fn posed_bones_follow_a_parent_turned_90_degrees() {
        use pmx_core::pose::{Pose, PoseEvaluator};
        let at = |x, y, z| pmx_core::model::Vec3::new(x, y, z);
        let mut model = Model::new_empty();
        let mut parent = Bone {
            position: at(0.0, 10.0, 0.0),
            tail_bone: Some(BoneIdx::new(1)),
            ..Bone::default()
        };
        parent.flags |= BoneFlags::TAIL_IS_BONE;
        let child = Bone {
            position: at(0.0, 15.0, 0.0),
            parent: Some(BoneIdx::new(0)),
            tail_offset: at(0.0, 3.0, 0.0),
            ..Bone::default()
        };
        let side = Bone {
            position: at(2.0, 10.0, 0.0),
            parent: Some(BoneIdx::new(0)),
            tail_offset: at(0.0, 0.0, 4.0),
            ..Bone::default()
        };
        model.bones = vec![parent, child, side];
        let mut pose = Pose::new(&model);
        // 90° about X: model +Y turns to +Z (world −Z, the view mirrors Z), +Z to −Y.
        pose.set_bone(
            BoneIdx::new(0),
            Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
            Vec3::ZERO,
        );
        let mut evaluator = PoseEvaluator::new(&model);
        evaluator.evaluate_bones(&model, &pose).unwrap();
        let placements = Some(evaluator.skeleton.globals());
        let near = |found: Option<Vec3>, expected: Vec3| {
            let found = found.unwrap();
            assert!(found.distance(expected) < 1e-5, "{found} is not {expected}");
        };
        near(
            bone_head_placed(&model, 0, placements),
            Vec3::new(0.0, 10.0, 0.0),
        );
        near(
            bone_head_placed(&model, 1, placements),
            Vec3::new(0.0, 10.0, -5.0),
        );
        near(
            bone_head_placed(&model, 2, placements),
            Vec3::new(2.0, 10.0, 0.0),
        );
        // The parent's tail is its tail bone's posed head; offset tails turn with their bone.
        near(
            bone_tail_placed(&model, 0, placements),
            Vec3::new(0.0, 10.0, -5.0),
        );
        near(
            bone_tail_placed(&model, 1, placements),
            Vec3::new(0.0, 10.0, -8.0),
        );
        near(
            bone_tail_placed(&model, 2, placements),
            Vec3::new(2.0, 6.0, 0.0),
        );

        let none = std::collections::BTreeSet::new();
        let geometry = bones_placed(&model, &none, placements);
        let drawn = |list: &[ColoredVertex]| -> Vec<Vec3> {
            list.iter().map(|v| Vec3::from(v.position)).collect()
        };
        let points = drawn(&geometry.points);
        assert_eq!(points.len(), 3);
        assert!(points[1].distance(Vec3::new(0.0, 10.0, -5.0)) < 1e-5);
        let lines = drawn(&geometry.lines);
        assert_eq!(lines.len(), 6);
        assert!(lines[3].distance(Vec3::new(0.0, 10.0, -8.0)) < 1e-5);
        let heads: Vec<Vec3> = bone_heads_placed(&model, placements).collect();
        assert_eq!(heads, points);

        // Back at rest, the placed overlay is the rest overlay.
        pose.reset();
        evaluator.evaluate_bones(&model, &pose).unwrap();
        let at_rest = bones_placed(&model, &none, Some(evaluator.skeleton.globals()));
        assert_eq!(at_rest, bones(&model, &none));
        assert_eq!(drawn(&at_rest.points)[1], to_world(model.bones[1].position));
    }

    /// Two bones, the child turned 90° about Z by the pose; vertex 0 on the parent, 1 and 2 on
    /// the child (BDEF1), skinned by the pose engine.
    fn skinned_arm() -> (Model, PosedVertices) {
        use pmx_core::pose::{Pose, PoseEvaluator};
        let at = |x, y, z| pmx_core::model::Vec3::new(x, y, z);
        let mut model = Model::new_empty();
        model.bones = vec![
            Bone {
                position: at(0.0, 10.0, 0.0),
                ..Bone::default()
            },
            Bone {
                position: at(2.0, 10.0, 0.0),
                parent: Some(BoneIdx::new(0)),
                ..Bone::default()
            },
        ];
        for (position, normal, bone) in [
            (at(0.0, 9.0, 1.0), at(0.0, 0.0, -1.0), 0),
            (at(4.0, 10.0, 0.0), at(0.0, 1.0, 0.0), 1),
            (at(3.0, 10.0, -1.0), at(1.0, 0.0, 0.0), 1),
        ] {
            model.vertices.push(Vertex {
                position,
                normal,
                weight: Weight::Bdef1 {
                    bone: Some(BoneIdx::new(bone)),
                },
                ..Vertex::default()
            });
        }
        let mut pose = Pose::new(&model);
        pose.set_bone(
            BoneIdx::new(1),
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            Vec3::ZERO,
        );
        let mut evaluator = PoseEvaluator::new(&model);
        evaluator.evaluate(&model, &pose).unwrap();
        let posed = PosedVertices {
            positions: evaluator.positions().to_vec(),
            normals: evaluator.normals().to_vec(),
        };
        (model, posed)
    }

    #[test]
    fn selected_vertices_and_normals_are_drawn_where_the_pose_puts_them() {
        let (model, posed) = skinned_arm();
        assert!(posed.fits(&model));
        let near = |found: Vec3, expected: Vec3| {
            assert!(found.distance(expected) < 1e-5, "{found} is not {expected}");
        };
        // The child at (2, 10, 0) turned 90° about Z: +X becomes +Y; −Z (world +Z) stays.
        let expected = [
            Vec3::new(0.0, 9.0, -1.0),
            Vec3::new(2.0, 12.0, 0.0),
            Vec3::new(2.0, 11.0, 1.0),
        ];
        for (index, &world) in expected.iter().enumerate() {
            near(vertex_placed(&model, index, Some(&posed)).unwrap(), world);
        }
        let placed: Vec<Vec3> = vertices_placed(&model, Some(&posed)).collect();
        assert_eq!(placed.len(), 3);
        near(placed[2], expected[2]);

        // Exactly the selected vertices, in index order, where the pose put them.
        let selected: std::collections::BTreeSet<usize> = [0, 2].into();
        let mut geometry = OverlayGeometry::default();
        add_selected_vertices_placed(&mut geometry, &model, &selected, Some(&posed));
        assert_eq!(geometry.points.len(), 2);
        near(Vec3::from(geometry.points[0].position), expected[0]);
        near(Vec3::from(geometry.points[1].position), expected[2]);
        assert!(geometry.points.iter().all(|p| p.color == SELECTED_VERTEX));

        // Normals start at the posed vertex and turn with its bone: vertex 2's +X is now +Y.
        let lines = normals_placed(&model, 0.5, Some(&posed)).depth_lines;
        assert_eq!(lines.len(), 6);
        near(Vec3::from(lines[4].position), expected[2]);
        near(
            Vec3::from(lines[5].position),
            expected[2] + Vec3::new(0.0, 0.5, 0.0),
        );
        // Vertex 1's normal +Y turns to −X.
        near(
            Vec3::from(lines[3].position),
            expected[1] + Vec3::new(-0.5, 0.0, 0.0),
        );

        // Without a pose (or with the rest pose's own values) it is the rest overlay.
        let mut at_rest = OverlayGeometry::default();
        add_selected_vertices(&mut at_rest, &model, &selected);
        let rest = PosedVertices {
            positions: model.vertices.iter().map(|v| v.position.into()).collect(),
            normals: model.vertices.iter().map(|v| v.normal.into()).collect(),
        };
        let mut rest_placed = OverlayGeometry::default();
        add_selected_vertices_placed(&mut rest_placed, &model, &selected, Some(&rest));
        assert_eq!(rest_placed, at_rest);
        assert_eq!(
            Vec3::from(at_rest.points[1].position),
            to_world(model.vertices[2].position)
        );
        assert_eq!(
            normals_placed(&model, 0.5, Some(&rest)),
            normals(&model, 0.5)
        );
        assert_eq!(normals_placed(&model, 0.5, None), normals(&model, 0.5));

        // A list made for another vertex count does not fit.
        let mut short = posed.clone();
        short.positions.pop();
        assert!(!short.fits(&model));
    }

    #[test]
    fn weights_for_a_bone() {
        let bone = |i| Some(BoneIdx::new(i));
        let weight = Weight::Bdef4 {
            bones: [bone(1), bone(2), bone(1), None],
            weights: [0.25, 0.5, 0.25, 0.0],
        };
        assert_eq!(weight_of(&weight, 1), 0.5);
        assert_eq!(
            weight_of(
                &Weight::Bdef2 {
                    bones: [bone(0), bone(3)],
                    weight: 0.3
                },
                3
            ),
            0.7
        );
        assert_eq!(weight_of(&Weight::Bdef1 { bone: None }, 0), 0.0);
        assert_eq!(
            weight_of(
                &Weight::Bdef2 {
                    bones: [bone(0), None],
                    weight: f32::NAN
                },
                0
            ),
            0.0
        );
        let mut model = Model::new_empty();
        model.vertices = vec![Vertex::default(); 2];
        model.vertices[1].weight = Weight::Bdef1 { bone: bone(0) };
        assert_eq!(weights_for(&model, 0), vec![0.0, 1.0]);
    }

    #[test]
    fn rigid_body_solids_and_rotation() {
        let body = RigidBody {
            shape: RigidShape::Capsule,
            size: pmx_core::model::Vec3::new(1.0, 4.0, 0.0),
            position: pmx_core::model::Vec3::new(0.0, 5.0, 1.0),
            rotation: pmx_core::model::Vec3::new(0.0, 0.0, std::f32::consts::FRAC_PI_2),
            ..RigidBody::default()
        };
        let s = solid(&body);
        assert_eq!(s.center, Vec3::new(0.0, 5.0, -1.0));
        assert_eq!(
            s.shape,
            Shape::Capsule {
                radius: 1.0,
                half_height: 2.0
            }
        );
        // A rotation of 90° about Z lays the capsule along X (Z is unchanged by the mirror).
        assert!((s.rotation * Vec3::Y - Vec3::new(-1.0, 0.0, 0.0)).length() < 1.0e-5);
        // A rotation about X is mirrored: +Y goes towards model +Z, world -Z.
        let q = world_rotation(pmx_core::model::Vec3::new(
            std::f32::consts::FRAC_PI_2,
            0.0,
            0.0,
        ));
        let model_space = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2) * Vec3::Y;
        assert!(
            (q * Vec3::Y - Vec3::new(model_space.x, model_space.y, -model_space.z)).length()
                < 1.0e-5
        );
        let mut model = Model::new_empty();
        model.rigid_bodies = vec![body];
        let geometry = rigid_bodies(&model, &std::collections::BTreeSet::new());
        assert!(geometry.triangles.len() > 100);
        assert_eq!(geometry.triangles.len() % 3, 0);
        assert_eq!(geometry.triangles[0].color[3], 0.22);
    }

    #[test]
    fn grid_has_axes() {
        let grid = grid_and_axes(5.0, 10);
        // 20 lines each way off the axes, 2 grey half axes, 3 coloured axes.
        assert_eq!(grid.depth_lines.len(), (40 + 2 + 3) * 2);
        assert_eq!(
            grid.depth_lines.last().map(|v| v.position),
            Some([0.0, 0.0, -50.0])
        );
    }
}
