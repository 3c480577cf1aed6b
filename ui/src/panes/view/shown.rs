//! The model as the 3D view shows it, for the view's tools: the camera, the viewport and where
//! the pose pane's pose puts vertices, bones, rigid bodies and joints. Picking, rectangle
//! selection and the selection's posed centre all read it, so every tool picks what is drawn,
//! where it is drawn (posed or simulated elements where the pose or the physics put them).
//!
//! Nothing here changes the document or the view: tools read a [`ShownScene`] and ask for
//! changes through their [`super::tool::ToolCx`].

use crate::document::Document;
use glam::{Vec2, Vec3};
use pmx_core::model::{ElementKind, Model};
use pmx_core::pose::Transform as Placement;
use pmx_scene::camera::{OrbitCamera, Projector, Ray};
use pmx_scene::{overlay, pick};
use std::sync::Arc;

/// What the user picks with a click in the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PickMode {
    #[default]
    Vertex,
    Material,
    Bone,
    RigidBody,
    Joint,
}

impl PickMode {
    pub const ALL: [PickMode; 5] = [
        PickMode::Vertex,
        PickMode::Material,
        PickMode::Bone,
        PickMode::RigidBody,
        PickMode::Joint,
    ];

    #[must_use]
    pub fn kind(self) -> ElementKind {
        match self {
            PickMode::Vertex => ElementKind::Vertex,
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
            PickMode::Material => "view.pick_material",
            PickMode::Bone => "view.pick_bone",
            PickMode::RigidBody => "view.pick_rigid_body",
            PickMode::Joint => "view.pick_joint",
        }
    }
}

/// Where the pose pane's pose (after its physics) puts the model's elements, each list with a
/// generation that changes whenever it does; `None`: at rest. Lists made for another element
/// count are ignored until the pose follows the edit.
#[derive(Debug, Clone, Default)]
pub struct Placements {
    /// The skinned positions and normals the mesh was deformed with (model space).
    pub(super) vertices: Option<(u64, Arc<overlay::PosedVertices>)>,
    /// Each bone's global transform (model space), the ones the mesh was skinned with.
    pub(super) bones: Option<(u64, Arc<[Placement]>)>,
    /// Each rigid body's transform (model space).
    pub(super) bodies: Option<(u64, Arc<[Placement]>)>,
}

impl Placements {
    /// The posed vertices, if they fit `model`.
    #[must_use]
    pub fn vertices_for(&self, model: &Model) -> Option<&overlay::PosedVertices> {
        self.vertices
            .as_ref()
            .map(|(_, posed)| &**posed)
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
            self.vertices_for(model)
                .and(self.vertices.as_ref().map(|(g, _)| *g)),
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
            ElementKind::Material => {
                let mut vertices = std::collections::BTreeSet::new();
                for (material, range) in model.material_face_ranges().into_iter().enumerate() {
                    if selected.binary_search(&material).is_ok() {
                        for face in model.faces.get(range).unwrap_or_default() {
                            vertices.extend(face.iter().map(|v| v.0 as usize));
                        }
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

/// The view as its tools see it in one frame: the camera, the viewport's size in pixels and
/// the placements of the pose it shows. Pixels are the viewport's, from its top left.
#[derive(Debug, Clone, Copy)]
pub struct ShownScene<'a> {
    pub camera: &'a OrbitCamera,
    pub size: Vec2,
    pub placements: &'a Placements,
}

impl<'a> ShownScene<'a> {
    #[must_use]
    pub fn new(camera: &'a OrbitCamera, size: Vec2, placements: &'a Placements) -> Self {
        Self {
            camera,
            size,
            placements,
        }
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

    /// The element of `mode`'s kind drawn at `pixel` (a click's pick), if any.
    #[must_use]
    pub fn pick(&self, model: &Model, mode: PickMode, pixel: Vec2) -> Option<usize> {
        let projector = self.projector();
        let placements = self.placements;
        match mode {
            // Where they are drawn: posed vertices are picked where the pose put them.
            PickMode::Vertex => pick::pick_point(
                &projector,
                overlay::vertices_placed(model, placements.vertices_for(model)),
                pixel,
                8.0,
            ),
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
            PickMode::Material => {
                let positions: Vec<Vec3> =
                    overlay::vertices_placed(model, placements.vertices_for(model)).collect();
                let faces: Vec<[u32; 3]> = model
                    .faces
                    .iter()
                    .map(|f| [f[0].0, f[1].0, f[2].0])
                    .collect();
                let (face, _) = pick::pick_face(&self.ray(pixel), &positions, &faces)?;
                model.material_of_face(face)
            }
        }
    }

    /// The vertices drawn inside the screen rectangle with corners `a` and `b` (pixels).
    #[must_use]
    pub fn vertices_in_rect(&self, model: &Model, a: Vec2, b: Vec2) -> Vec<usize> {
        pick::points_in_rect(
            &self.projector(),
            overlay::vertices_placed(model, self.placements.vertices_for(model)),
            a,
            b,
        )
    }
}
