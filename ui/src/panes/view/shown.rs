//! The model as the 3D view shows it, for the view's tools: the camera, the viewport and where
//! the pose pane's pose puts vertices, bones, rigid bodies and joints. Picking, rectangle
//! selection and the selection's posed centre all read it, so every tool picks what is drawn,
//! where it is drawn (posed or simulated elements where the pose or the physics put them).
//!
//! Nothing here changes the document or the view: tools read a [`ShownScene`] and ask for
//! changes through their [`super::tool::ToolCx`].

use crate::document::Document;
use crate::visibility::Shown;
use glam::{Vec2, Vec3};
use pmx_core::model::{ElementKind, Model};
use pmx_core::pose::Transform as Placement;
use pmx_scene::camera::{OrbitCamera, Projector, Ray};
use pmx_scene::{brush, overlay, pick};
use std::sync::Arc;

/// What the user picks with a click in the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PickMode {
    #[default]
    Vertex,
    /// 面: triangles (their face edits: 面対角線の入れ替え, 面の反転).
    Face,
    Material,
    Bone,
    RigidBody,
    Joint,
}

impl PickMode {
    pub const ALL: [PickMode; 6] = [
        PickMode::Vertex,
        PickMode::Face,
        PickMode::Material,
        PickMode::Bone,
        PickMode::RigidBody,
        PickMode::Joint,
    ];

    #[must_use]
    pub fn kind(self) -> ElementKind {
        match self {
            PickMode::Vertex => ElementKind::Vertex,
            PickMode::Face => ElementKind::Face,
            PickMode::Material => ElementKind::Material,
            PickMode::Bone => ElementKind::Bone,
            PickMode::RigidBody => ElementKind::RigidBody,
            PickMode::Joint => ElementKind::Joint,
        }
    }

    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            PickMode::Vertex => "view.pick_vertex",
            PickMode::Face => "view.pick_face",
            PickMode::Material => "view.pick_material",
            PickMode::Bone => "view.pick_bone",
            PickMode::RigidBody => "view.pick_rigid_body",
            PickMode::Joint => "view.pick_joint",
        }
    }
}

/// The shape a primary drag selects with (the view toolbar's 矩形 / 投げ縄 / ブラシ): each is a
/// tool of its own that takes the drag only while its shape is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SelectShape {
    #[default]
    Rectangle,
    Lasso,
    Brush,
}

impl SelectShape {
    pub const ALL: [SelectShape; 3] = [
        SelectShape::Rectangle,
        SelectShape::Lasso,
        SelectShape::Brush,
    ];

    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            SelectShape::Rectangle => "view.select_rectangle",
            SelectShape::Lasso => "view.select_lasso",
            SelectShape::Brush => "view.select_brush",
        }
    }
}

/// Where the pose pane's pose (after its physics) puts the model's elements, each list with a
/// generation that changes whenever it does; `None`: at rest. Lists made for another element
/// count are ignored until the pose follows the edit.
#[derive(Debug, Clone, Default)]
pub struct Placements {
    /// The skinned positions and normals the mesh was deformed with (model space), skinned
    /// on the CPU when first asked for ([`Placements::vertices_for`]).
    pub(super) vertices: Option<(u64, Arc<overlay::LazyPosedVertices>)>,
    /// Each bone's global transform (model space), the ones the mesh was skinned with.
    pub(super) bones: Option<(u64, Arc<[Placement]>)>,
    /// Each rigid body's transform (model space).
    pub(super) bodies: Option<(u64, Arc<[Placement]>)>,
}

impl Placements {
    /// The posed vertices, if they fit `model`: skinned now if nothing asked for them since
    /// the pose changed (so ask only where they are used).
    #[must_use]
    pub fn vertices_for(&self, model: &Model) -> Option<&overlay::PosedVertices> {
        self.vertices
            .as_ref()
            .filter(|(_, posed)| posed.vertex_count() == model.vertices.len())
            .map(|(_, posed)| posed.get())
            .filter(|posed| posed.fits(model))
    }

    /// The bone placements, if they fit `model`.
    #[must_use]
    pub fn bones_for(&self, model: &Model) -> Option<&[Placement]> {
        fitting(self.bones.as_ref(), model.bones.len())
    }

    /// The rigid body placements, if they fit `model`.
    #[must_use]
    pub fn bodies_for(&self, model: &Model) -> Option<&[Placement]> {
        fitting(self.bodies.as_ref(), model.rigid_bodies.len())
    }

    /// The generations of the vertex, bone and body lists that fit `model` (`None` for each
    /// one at rest): what anything derived from the placements is keyed by.
    #[must_use]
    pub fn generations_for(&self, model: &Model) -> [Option<u64>; 3] {
        [
            // Without skinning them: the count says whether they fit.
            self.vertices
                .as_ref()
                .filter(|(_, posed)| posed.vertex_count() == model.vertices.len())
                .map(|(g, _)| *g),
            self.bones_for(model)
                .and(self.bones.as_ref().map(|(g, _)| *g)),
            self.bodies_for(model)
                .and(self.bodies.as_ref().map(|(g, _)| *g)),
        ]
    }

    /// The generations of the three lists as they were set, fitting or not.
    pub(super) fn generations(&self) -> [Option<u64>; 3] {
        [
            self.vertices.as_ref().map(|(g, _)| *g),
            self.bones.as_ref().map(|(g, _)| *g),
            self.bodies.as_ref().map(|(g, _)| *g),
        ]
    }

    /// Where vertex `index` is drawn and picked, in world space (Z mirrored).
    #[must_use]
    pub fn drawn_vertex(&self, model: &Model, index: usize) -> Option<Vec3> {
        overlay::vertex_placed(model, index, self.vertices_for(model))
    }

    /// Where bone `index`'s head is drawn and picked, in world space (Z mirrored).
    #[must_use]
    pub fn drawn_bone_head(&self, model: &Model, index: usize) -> Option<Vec3> {
        overlay::bone_head_placed(model, index, self.bones_for(model))
    }

    /// The mean posed position (model space) of the elements a transform of the selection of
    /// `kind` moves: the selected vertices, bones, bodies or joints (the current one when none
    /// is selected), or the vertices the selected materials draw.
    #[must_use]
    pub fn posed_centre(&self, document: &Document, kind: ElementKind) -> Option<Vec3> {
        let model = &document.model;
        let selected = document.selection.get(kind).targets();
        let posed_vertex = |index: usize| self.drawn_vertex(model, index).map(mirror_z);
        let mut sum = Vec3::ZERO;
        let mut count = 0usize;
        let mut add = |at: Option<Vec3>| {
            if let Some(at) = at {
                sum += at;
                count += 1;
            }
        };
        match kind {
            ElementKind::Vertex => selected.iter().for_each(|&i| add(posed_vertex(i))),
            ElementKind::Material | ElementKind::Face => {
                let mut vertices = std::collections::BTreeSet::new();
                let mut add_face = |face: &pmx_core::model::Face| {
                    vertices.extend(face.iter().map(|v| v.0 as usize));
                };
                if kind == ElementKind::Face {
                    selected
                        .iter()
                        .filter_map(|&f| model.faces.get(f))
                        .for_each(&mut add_face);
                }
                for (material, range) in model.material_face_ranges().into_iter().enumerate() {
                    if kind == ElementKind::Material && selected.binary_search(&material).is_ok() {
                        model
                            .faces
                            .get(range)
                            .unwrap_or_default()
                            .iter()
                            .for_each(&mut add_face);
                    }
                }
                vertices.into_iter().for_each(|i| add(posed_vertex(i)));
            }
            ElementKind::Bone => selected
                .iter()
                .for_each(|&i| add(self.drawn_bone_head(model, i).map(mirror_z))),
            ElementKind::RigidBody => {
                let placements = self.bodies_for(model);
                for &i in &selected {
                    add(match placements.and_then(|list| list.get(i)) {
                        Some(at) => Some(Vec3::from(at.translation)),
                        None => model.rigid_bodies.get(i).map(|b| b.position.into()),
                    });
                }
            }
            ElementKind::Joint => {
                let placements = self.bodies_for(model);
                for &i in &selected {
                    add(overlay::joint_placed(model, i, placements).map(|f| f.translation.into()));
                }
            }
            _ => {}
        }
        let centre = sum / count.max(1) as f32;
        (count > 0 && centre.is_finite()).then_some(centre)
    }
}

/// A placement list, if it has one placement per element of a list of `len`.
fn fitting(list: Option<&(u64, Arc<[Placement]>)>, len: usize) -> Option<&[Placement]> {
    list.map(|(_, list)| &list[..])
        .filter(|list| list.len() == len)
}

/// World space → model space (and back): MMD's Z is negated.
pub(super) fn mirror_z(v: Vec3) -> Vec3 {
    Vec3::new(v.x, v.y, -v.z)
}

/// A part of the screen a selection tool picks in (viewport pixels).
#[derive(Debug, Clone, Copy)]
pub enum Region<'r> {
    /// The rectangle with these two corners.
    Rect(Vec2, Vec2),
    /// The closed polygon of a lasso.
    Lasso(&'r [Vec2]),
    /// A brush's circle: with `through`, everything drawn inside it; without, only what faces
    /// the camera near the surface under the pointer (the weight brush's sphere).
    Circle {
        at: Vec2,
        radius: f32,
        through: bool,
    },
}

impl Region<'_> {
    /// Whether `pixel` lies in the region's outline on screen.
    #[must_use]
    pub fn contains(&self, pixel: Vec2) -> bool {
        match *self {
            Region::Rect(a, b) => pixel.cmpge(a.min(b)).all() && pixel.cmple(a.max(b)).all(),
            Region::Lasso(polygon) => pick::inside_polygon(polygon, pixel),
            Region::Circle { at, radius, .. } => pixel.distance(at) <= radius,
        }
    }

    /// Whether only what faces the camera counts (a brush without 貫通).
    fn front_only(&self) -> bool {
        matches!(self, Region::Circle { through: false, .. })
    }
}

/// The view as its tools see it in one frame: the camera, the viewport's size in pixels, the
/// placements of the pose it shows and what 絞り込み表示 leaves out (hidden faces and vertices
/// are never picked). Pixels are the viewport's, from its top left.
#[derive(Debug, Clone, Copy)]
pub struct ShownScene<'a> {
    pub camera: &'a OrbitCamera,
    pub size: Vec2,
    pub placements: &'a Placements,
    /// Which faces and vertices are shown (`None`: all).
    pub shown: Option<&'a Shown>,
}

impl<'a> ShownScene<'a> {
    #[must_use]
    pub fn new(camera: &'a OrbitCamera, size: Vec2, placements: &'a Placements) -> Self {
        Self {
            camera,
            size,
            placements,
            shown: None,
        }
    }

    /// The scene with only what `shown` shows pickable (`None`: everything).
    #[must_use]
    pub fn with_shown(mut self, shown: Option<&'a Shown>) -> Self {
        self.shown = shown;
        self
    }

    /// The visibility flags if they fit `model` (a model just edited may have other counts
    /// until the view syncs: then everything counts as shown).
    fn shown_for(&self, model: &Model) -> Option<&'a Shown> {
        self.shown.filter(|shown| {
            shown.faces.len() == model.faces.len() && shown.vertices.len() == model.vertices.len()
        })
    }

    /// Model-to-pixel projection for this viewport.
    #[must_use]
    pub fn projector(&self) -> Projector {
        Projector::new(self.camera, self.size)
    }

    /// The pointer's ray through `pixel` (world space).
    #[must_use]
    pub fn ray(&self, pixel: Vec2) -> Ray {
        self.camera.ray(pixel, self.size)
    }

    /// Every vertex where it is drawn (world space), hidden ones as NaN (which nothing picks).
    fn shown_vertices<'m>(&self, model: &'m Model) -> impl Iterator<Item = Vec3> + 'm
    where
        'a: 'm,
    {
        let shown = self.shown_for(model);
        overlay::vertices_placed(model, self.placements.vertices_for(model))
            .enumerate()
            .map(move |(index, at)| {
                if shown.is_none_or(|s| s.vertex(index)) {
                    at
                } else {
                    Vec3::NAN
                }
            })
    }

    /// The drawn positions and the faces' corners, hidden faces with corners past the end
    /// (which [`pick::pick_face`] skips), for ray picking.
    fn shown_triangles(&self, model: &Model) -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let shown = self.shown_for(model);
        let positions: Vec<Vec3> =
            overlay::vertices_placed(model, self.placements.vertices_for(model)).collect();
        let faces = model
            .faces
            .iter()
            .enumerate()
            .map(|(index, f)| {
                if shown.is_none_or(|s| s.face(index)) {
                    [f[0].0, f[1].0, f[2].0]
                } else {
                    [u32::MAX; 3]
                }
            })
            .collect();
        (positions, faces)
    }

    /// The element of `mode`'s kind drawn at `pixel` (a click's pick), if any: the nearest
    /// shown one.
    #[must_use]
    pub fn pick(&self, model: &Model, mode: PickMode, pixel: Vec2) -> Option<usize> {
        let projector = self.projector();
        let placements = self.placements;
        match mode {
            // Where they are drawn: posed vertices are picked where the pose put them.
            PickMode::Vertex => {
                pick::pick_point(&projector, self.shown_vertices(model), pixel, 8.0)
            }
            // Where they are drawn: posed or simulated bones are picked where they are.
            PickMode::Bone => pick::pick_point(
                &projector,
                overlay::bone_heads_placed(model, placements.bones_for(model)),
                pixel,
                10.0,
            ),
            PickMode::Joint => {
                let bodies = placements.bodies_for(model);
                pick::pick_point(
                    &projector,
                    (0..model.joints.len()).map(|index| {
                        overlay::joint_placed(model, index, bodies)
                            .map_or(Vec3::NAN, |frame| overlay::world_placement(&frame).0)
                    }),
                    pixel,
                    10.0,
                )
            }
            PickMode::RigidBody => {
                // Where they are drawn: posed or simulated bodies are picked where they are.
                let bodies = placements.bodies_for(model);
                pick::pick_solid(
                    &self.ray(pixel),
                    model.rigid_bodies.iter().enumerate().map(|(index, body)| {
                        let mut solid = overlay::solid(body);
                        if let Some(at) = bodies.and_then(|p| p.get(index)) {
                            (solid.center, solid.rotation) = overlay::world_placement(at);
                        }
                        solid
                    }),
                )
            }
            PickMode::Face | PickMode::Material => {
                let (positions, faces) = self.shown_triangles(model);
                let (face, _) = pick::pick_face(&self.ray(pixel), &positions, &faces)?;
                match mode {
                    PickMode::Face => Some(face),
                    _ => model.material_of_face(face),
                }
            }
        }
    }

    /// The shown vertices drawn inside the screen rectangle with corners `a` and `b` (pixels).
    #[must_use]
    pub fn vertices_in_rect(&self, model: &Model, a: Vec2, b: Vec2) -> Vec<usize> {
        self.in_region(model, PickMode::Vertex, &Region::Rect(a, b))
    }

    /// The elements of `mode`'s kind shown in `region`: vertices, bone heads, joints and rigid
    /// bodies by where they are drawn, faces by their centre, materials by the centres of
    /// their faces. A brush circle without 貫通 takes only vertices and faces that face the
    /// camera (vertices: inside the weight brush's sphere at the surface under the pointer).
    #[must_use]
    pub fn in_region(&self, model: &Model, mode: PickMode, region: &Region<'_>) -> Vec<usize> {
        let projector = self.projector();
        let inside = |at: Vec2| region.contains(at);
        let placements = self.placements;
        match mode {
            PickMode::Vertex => match *region {
                Region::Circle {
                    at,
                    radius,
                    through: false,
                } => {
                    let posed = placements.vertices_for(model);
                    let surface = brush::Surface::new(model, posed);
                    let view = brush::BrushView::new(self.camera, self.size);
                    let shape = brush::BrushShape {
                        at,
                        radius,
                        falloff: brush::Falloff::Constant,
                        reach: brush::Reach::FrontFaces,
                    };
                    let allowed = self.shown_for(model).map(|s| &s.vertices[..]);
                    let dab = brush::dab(&surface, &view, &shape, allowed);
                    dab.vertices.into_iter().map(|v| v as usize).collect()
                }
                _ => pick::points_where(&projector, self.shown_vertices(model), inside),
            },
            PickMode::Face | PickMode::Material => {
                let faces = self.faces_in_region(model, region);
                if mode == PickMode::Face {
                    return faces;
                }
                let mut materials: Vec<usize> = faces
                    .into_iter()
                    .filter_map(|f| model.material_of_face(f))
                    .collect();
                materials.dedup();
                materials
            }
            PickMode::Bone => pick::points_where(
                &projector,
                overlay::bone_heads_placed(model, placements.bones_for(model)),
                inside,
            ),
            PickMode::Joint => {
                let bodies = placements.bodies_for(model);
                pick::points_where(
                    &projector,
                    (0..model.joints.len()).map(|index| {
                        overlay::joint_placed(model, index, bodies)
                            .map_or(Vec3::NAN, |frame| overlay::world_placement(&frame).0)
                    }),
                    inside,
                )
            }
            PickMode::RigidBody => {
                let bodies = placements.bodies_for(model);
                pick::points_where(
                    &projector,
                    model.rigid_bodies.iter().enumerate().map(|(index, body)| {
                        match bodies.and_then(|p| p.get(index)) {
                            Some(at) => overlay::world_placement(at).0,
                            None => overlay::solid(body).center,
                        }
                    }),
                    inside,
                )
            }
        }
    }

    /// The shown faces whose centre is drawn in `region` (in face order); for a brush without
    /// 貫通 only those facing the camera.
    fn faces_in_region(&self, model: &Model, region: &Region<'_>) -> Vec<usize> {
        let projector = self.projector();
        let (positions, faces) = self.shown_triangles(model);
        let eye = self.camera.eye();
        let front_only = region.front_only();
        faces
            .iter()
            .enumerate()
            .filter_map(|(index, corners)| {
                let [a, b, c] = corners.map(|v| positions.get(v as usize).copied());
                let (a, b, c) = (a?, b?, c?);
                let centre = (a + b + c) / 3.0;
                // PMX front faces wind clockwise as seen (world space, Z mirrored, as drawn).
                if front_only && (b - a).cross(c - a).dot(eye - centre) >= 0.0 {
                    return None;
                }
                let (at, depth) = projector.project(centre)?;
                (depth <= 1.0 && region.contains(at)).then_some(index)
            })
            .collect()
    }
}
