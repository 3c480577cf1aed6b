//! The 表示 (View) pane: the model drawn as MikuMikuDance draws it (three-d inside egui through
//! egui_glow's paint callback), overlays, an MMD-like camera, and picking into the shared
//! selection.
//!
//! - `transform`, `gizmo`: moving, turning and scaling the selection (numbers, or handles
//!   dragged in the view);
//! - `camera`, `pick`, `mesh`, `overlay`, `toon`, `frame`, `scene`: the GPU-free side of the
//!   view, in the `pmx_scene` crate (re-exported here);
//! - the GL side is the `pmx_view` crate, which this crate does not depend on: the window hands
//!   [`ViewState::painter`] its painter. Without one (panel tests) the pane draws no model.

pub mod gizmo;
pub mod transform;
pub use pmx_core::texture as textures;
pub use pmx_scene::{camera, frame, mesh, overlay, pick, scene, toon};

use crate::document::Document;
use crate::i18n::Language;
use camera::{CameraPreset, OrbitCamera, Projector};
pub use frame::{BACKGROUND, LIGHT_COLOR, LIGHT_DIRECTION};
use frame::{Frame, Layers};
use glam::{Vec2, Vec3};
use pmx_core::model::{ElementKind, Model};
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

/// The View menu's switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(clippy::struct_excessive_bools)]
pub struct ViewLayers {
    pub model: bool,
    pub edges: bool,
    pub bones: bool,
    pub rigid_bodies: bool,
    pub joints: bool,
    pub vertices: bool,
    pub wireframe: bool,
    pub normals: bool,
    pub weights: bool,
    pub grid: bool,
}

impl Default for ViewLayers {
    fn default() -> Self {
        Self {
            model: true,
            edges: true,
            bones: false,
            rigid_bodies: false,
            joints: false,
            vertices: false,
            wireframe: false,
            normals: false,
            weights: false,
            grid: true,
        }
    }
}

impl ViewLayers {
    /// Switches layers by name (`bones`, `rigid_bodies`, ...; `-bones` switches one off).
    pub fn set_from_list(&mut self, list: &str) -> Result<(), String> {
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (on, name) = match item.strip_prefix('-') {
                Some(name) => (false, name),
                None => (true, item),
            };
            let key = format!("view.layer_{name}");
            let switch = self
                .entries()
                .into_iter()
                .find(|(k, _)| *k == key)
                .map(|(_, switch)| switch)
                .ok_or_else(|| format!("no 3D view layer named `{name}`"))?;
            *switch = on;
        }
        Ok(())
    }

    /// (i18n key, switch) for the menu.
    pub fn entries(&mut self) -> [(&'static str, &mut bool); 10] {
        [
            ("view.layer_model", &mut self.model),
            ("view.layer_edges", &mut self.edges),
            ("view.layer_bones", &mut self.bones),
            ("view.layer_rigid_bodies", &mut self.rigid_bodies),
            ("view.layer_joints", &mut self.joints),
            ("view.layer_vertices", &mut self.vertices),
            ("view.layer_wireframe", &mut self.wireframe),
            ("view.layer_normals", &mut self.normals),
            ("view.layer_weights", &mut self.weights),
            ("view.layer_grid", &mut self.grid),
        ]
    }
}

/// The view's state (one per editor; the scene follows the open document).
#[derive(Debug, Default)]
pub struct ViewState {
    pub camera: OrbitCamera,
    pub layers: ViewLayers,
    pub pick_mode: PickMode,
    pub scene: scene::ViewScene,
    overlay_key: Option<u64>,
    weights_key: Option<(u64, u64, Option<usize>)>,
    rect_start: Option<egui::Pos2>,
    framed_document: Option<u64>,
    /// The numeric move/rotate/scale row.
    pub transform: transform::TransformTool,
    /// The move/rotate/scale handles dragged in the view.
    pub gizmo: gizmo::Gizmo,
    /// Where the view was drawn in the last frame (screen points), for tests and tools.
    pub last_rect: Option<egui::Rect>,
    /// Draws the scene on the GPU (`pmx_view::GlPainter`, given by the window).
    pub painter: Option<Arc<dyn scene::Painter>>,
    /// Where the pose pane's pose (or its physics) puts the rigid bodies, model space, one per
    /// body, with a generation that changes with them; `None`: at rest.
    body_placements: Option<(u64, Arc<[pmx_core::pose::Transform]>)>,
    /// Where the pose pane's pose (after its physics) puts the bones: each bone's global
    /// transform in model space, the ones the shown mesh was skinned with, with a generation
    /// that changes with them; `None`: at rest.
    bone_placements: Option<(u64, Arc<[pmx_core::pose::Transform]>)>,
    /// Where the pose pane's pose puts the vertices (skinned positions and normals, model
    /// space), the ones the shown mesh was deformed with, with a generation that changes with
    /// them; `None`: at rest.
    vertex_placements: Option<(u64, Arc<overlay::PosedVertices>)>,
    /// The gizmo's pivot where the pose puts the selection, for (revision, selection
    /// generation, kind, placement generations).
    posed_pivot: Option<(PivotKey, Option<Vec3>)>,
    /// Where the gizmo is painted this frame (its layer and clip rectangle, the handle under the
    /// pointer or dragged): painted by [`ViewState::paint_gizmo`] once the frame's pose is fed.
    gizmo_paint: Option<GizmoPaint>,
    /// The gizmo as last painted (where its pivot and handles were), for tests and tools.
    pub gizmo_layout: Option<gizmo::Layout>,
}

/// What the posed pivot was worked out for.
type PivotKey = (u64, u64, ElementKind, [Option<u64>; 3]);

/// The gizmo to paint at the end of the frame.
#[derive(Debug, Clone, Copy)]
struct GizmoPaint {
    layer: egui::LayerId,
    clip: egui::Rect,
    rect: egui::Rect,
    active: Option<gizmo::Handle>,
}

impl pmx_scene::Selected for crate::selection::IndexSet {
    fn contains(&self, index: usize) -> bool {
        crate::selection::IndexSet::contains(self, index)
    }
    fn indices(&self) -> Box<dyn Iterator<Item = usize> + '_> {
        Box::new(self.iter())
    }
    fn count(&self) -> usize {
        self.len()
    }
}

impl scene::SceneSource for Document {
    fn model(&self) -> &Model {
        &self.model
    }
    fn base_dir(&self) -> Option<&std::path::Path> {
        self.folder()
    }
    fn revision(&self) -> u64 {
        Document::revision(self)
    }
    fn changes_since(&self, revision: u64) -> Option<Vec<&pmx_core::edit::Touched>> {
        Document::changes_since(self, revision)
    }
}

impl ViewState {
    /// The frame to draw for a viewport of `size` pixels.
    #[must_use]
    pub fn frame(
        &self,
        model: &Model,
        highlight: &crate::selection::IndexSet,
        size: Vec2,
    ) -> Frame {
        Frame {
            view: self.camera.view_matrix(),
            view_projection: self.camera.view_projection(size),
            eye: self.camera.eye(),
            pixel_factor: 2.0 * (self.camera.fov_y * 0.5).tan() / size.y.max(1.0),
            light_direction: LIGHT_DIRECTION,
            light_color: LIGHT_COLOR,
            background: BACKGROUND,
            materials: frame::material_draws(model, |i| highlight.contains(i)),
            layers: Layers {
                model: self.layers.model,
                edges: self.layers.edges,
                wireframe: self.layers.wireframe,
                vertices: self.layers.vertices,
                weights: self.layers.weights,
            },
        }
    }

    /// Brings the scene up to date with `document` and queues the frame for a viewport of
    /// `width`×`height` pixels, as the pane does before painting: what an offscreen renderer
    /// (`pmx_view::offscreen`) then draws from [`scene::ViewScene::shared`].
    pub fn prepare_frame(
        &mut self,
        document: &Document,
        document_id: u64,
        width: u32,
        height: u32,
    ) {
        self.sync(document, document_id);
        let size = Vec2::new(width as f32, height as f32);
        let highlight = &document.selection.get(ElementKind::Material).indices;
        self.scene
            .set_frame(self.frame(&document.model, highlight, size));
    }

    /// Brings the GPU copy, the overlays and the weights up to date with `document`.
    pub fn sync(&mut self, document: &Document, document_id: u64) {
        self.scene.sync(document, document_id);
        if self.framed_document != Some(document_id) {
            self.framed_document = Some(document_id);
            self.frame_model(document);
        }
        self.sync_overlay(document, document_id);
        let selection = &document.selection;
        let bone = selection
            .get(ElementKind::Bone)
            .current
            .or_else(|| selection.get(ElementKind::Bone).indices.first());
        let weights_key = (
            document_id,
            document.revision(),
            bone.filter(|_| self.layers.weights),
        );
        if self.layers.weights && self.weights_key != Some(weights_key) {
            self.weights_key = Some(weights_key);
            self.scene
                .set_weights(bone.map(|b| overlay::weights_for(&document.model, b)));
        }
        if !self.layers.weights {
            self.weights_key = None;
        }
    }

    /// Rebuilds the overlay (bones, bodies, joints, grid, normals, selected vertices) when
    /// what it shows changed. The editor calls it again after feeding the frame's pose, so
    /// the overlay painted with a deformed mesh comes from the same pose as the mesh.
    pub fn sync_overlay(&mut self, document: &Document, document_id: u64) {
        let selection = &document.selection;
        let key = {
            use std::hash::{Hash, Hasher};
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            (document_id, document.revision(), self.layers).hash(&mut hasher);
            self.body_placements
                .as_ref()
                .map(|(generation, _)| *generation)
                .hash(&mut hasher);
            self.bone_placements
                .as_ref()
                .map(|(generation, _)| *generation)
                .hash(&mut hasher);
            self.vertex_placements
                .as_ref()
                .map(|(generation, _)| *generation)
                .hash(&mut hasher);
            for kind in [
                ElementKind::Vertex,
                ElementKind::Bone,
                ElementKind::RigidBody,
                ElementKind::Joint,
            ] {
                selection.get(kind).indices.fingerprint().hash(&mut hasher);
            }
            hasher.finish()
        };
        if self.overlay_key != Some(key) {
            self.overlay_key = Some(key);
            // Joint markers and normals are sized by the model (only they need its bounds).
            let bounds = if self.layers.joints || self.layers.normals {
                self.scene.bounds(document)
            } else {
                mesh::Bounds::default()
            };
            self.scene.set_overlay(self.overlay(document, &bounds));
        }
    }

    /// Draws the rigid bodies and joints where a pose or the physics put them (`None`: at
    /// rest). `generation` must change whenever the placements do.
    pub fn set_body_placements(
        &mut self,
        placements: Option<(u64, Arc<[pmx_core::pose::Transform]>)>,
    ) {
        self.body_placements = placements;
    }

    /// Draws and picks the bones where a pose or the physics put them (`None`: at rest): one
    /// global transform per bone, model space. `generation` must change whenever they do.
    pub fn set_bone_placements(
        &mut self,
        placements: Option<(u64, Arc<[pmx_core::pose::Transform]>)>,
    ) {
        self.bone_placements = placements;
    }

    /// Draws and picks the vertices where a pose put them (`None`: at rest): the skinned
    /// positions and normals the mesh shows, model space. `generation` must change whenever
    /// they do.
    pub fn set_vertex_placements(
        &mut self,
        placements: Option<(u64, Arc<overlay::PosedVertices>)>,
    ) {
        self.vertex_placements = placements;
    }

    /// The posed vertices the view draws with, if they fit `model` (lists made for another
    /// vertex count are ignored until the pose follows the edit).
    fn posed_vertices_for(&self, model: &Model) -> Option<&overlay::PosedVertices> {
        self.vertex_placements
            .as_ref()
            .map(|(_, posed)| &**posed)
            .filter(|posed| posed.fits(model))
    }

    /// The rigid body placements the view draws with, if they fit `model`.
    fn body_placements_for(&self, model: &Model) -> Option<&[pmx_core::pose::Transform]> {
        self.body_placements
            .as_ref()
            .map(|(_, list)| &list[..])
            .filter(|list| list.len() == model.rigid_bodies.len())
    }

    /// Where vertex `index` is drawn and picked, in world space (Z mirrored).
    #[doc(hidden)]
    #[must_use]
    pub fn drawn_vertex(&self, model: &Model, index: usize) -> Option<Vec3> {
        overlay::vertex_placed(model, index, self.posed_vertices_for(model))
    }

    /// The bone placements the view draws with, if they fit `model` (a list made for another
    /// bone count is ignored until the pose follows the edit).
    fn bone_placements_for(&self, model: &Model) -> Option<&[pmx_core::pose::Transform]> {
        self.bone_placements
            .as_ref()
            .map(|(_, list)| &list[..])
            .filter(|list| list.len() == model.bones.len())
    }

    /// The gizmo's pivot (model space): the centre of what a transform of the selection of
    /// `kind` moves ([`transform::selection_centre`]), where the pose puts those elements
    /// while the model is posed: the mean of their posed positions (vertices skinned, bone
    /// heads, bodies and joints where the pose or the physics carried them). At rest it is
    /// the rest centre itself.
    pub fn gizmo_pivot(&mut self, document: &Document, kind: ElementKind) -> Option<Vec3> {
        let rest = self.gizmo.centre(document, kind)?;
        let model = &document.model;
        let generations = [
            self.posed_vertices_for(model)
                .and(self.vertex_placements.as_ref().map(|(g, _)| *g)),
            self.bone_placements_for(model)
                .and(self.bone_placements.as_ref().map(|(g, _)| *g)),
            self.body_placements_for(model)
                .and(self.body_placements.as_ref().map(|(g, _)| *g)),
        ];
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
        let pivot = self.posed_centre(document, kind);
        self.posed_pivot = Some((key, pivot));
        pivot
    }

    /// The mean posed position (model space) of the elements a transform of the selection of
    /// `kind` moves: the selected vertices, bones, bodies or joints (the current one when none
    /// is selected), or the vertices the selected materials draw.
    fn posed_centre(&self, document: &Document, kind: ElementKind) -> Option<Vec3> {
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
                let placements = self.body_placements_for(model);
                for &i in &selected {
                    add(match placements.and_then(|list| list.get(i)) {
                        Some(at) => Some(Vec3::from(at.translation)),
                        None => model.rigid_bodies.get(i).map(|b| b.position.into()),
                    });
                }
            }
            ElementKind::Joint => {
                let placements = self.body_placements_for(model);
                for &i in &selected {
                    add(overlay::joint_placed(model, i, placements).map(|f| f.translation.into()));
                }
            }
            _ => {}
        }
        let centre = sum / count.max(1) as f32;
        (count > 0 && centre.is_finite()).then_some(centre)
    }

    /// Paints the gizmo the view pane laid out this frame, at the pivot where the frame's pose
    /// puts the selection: the editor calls it after feeding the pose, so the gizmo is painted
    /// with the mesh and the overlay of the same pose (the view pane is drawn before the pose
    /// of the frame is known).
    pub fn paint_gizmo(&mut self, ctx: &egui::Context, document: Option<&Document>) {
        let Some(paint) = self.gizmo_paint.take() else {
            self.gizmo_layout = None;
            return;
        };
        let Some(document) = document else {
            self.gizmo_layout = None;
            return;
        };
        let size = Vec2::new(paint.rect.width(), paint.rect.height());
        let layout = self
            .gizmo_pivot(document, self.pick_mode.kind())
            .and_then(|pivot| gizmo::Layout::new(&self.camera, size, pivot));
        if let Some(layout) = &layout {
            let painter = ctx.layer_painter(paint.layer).with_clip_rect(paint.clip);
            gizmo::paint(
                &painter,
                paint.rect.min,
                layout,
                self.gizmo.mode,
                paint.active,
            );
        }
        self.gizmo_layout = layout;
    }

    /// Where bone `index`'s head is drawn and picked, in world space (Z mirrored).
    #[doc(hidden)]
    #[must_use]
    pub fn drawn_bone_head(&self, model: &Model, index: usize) -> Option<Vec3> {
        overlay::bone_head_placed(model, index, self.bone_placements_for(model))
    }

    /// The camera as the view places it for a model it opens: MikuMikuDance's default view,
    /// which suits a character; anything much smaller or larger is framed. `document` must be
    /// the document last synced.
    pub fn frame_model(&mut self, document: &Document) {
        self.camera.reset();
        if let Some((center, radius)) = self.scene.bounds(document).sphere()
            && !(4.0..=40.0).contains(&radius)
        {
            self.camera.frame(center, radius);
        }
    }

    fn overlay(&self, document: &Document, bounds: &mesh::Bounds) -> overlay::OverlayGeometry {
        let model = &document.model;
        let selection = &document.selection;
        let mut geometry = overlay::OverlayGeometry::default();
        if self.layers.grid {
            geometry.extend(overlay::grid_and_axes(5.0, 10));
        }
        let placements = self.body_placements_for(model);
        let posed = self.posed_vertices_for(model);
        if self.layers.rigid_bodies {
            geometry.extend(overlay::rigid_bodies_placed(
                model,
                &selection.get(ElementKind::RigidBody).indices,
                placements,
            ));
        }
        if self.layers.joints {
            let size = bounds.sphere().map_or(0.2, |(_, r)| (r * 0.006).max(0.05));
            geometry.extend(overlay::joints_placed(
                model,
                &selection.get(ElementKind::Joint).indices,
                size,
                placements,
            ));
        }
        if self.layers.bones {
            geometry.extend(overlay::bones_placed(
                model,
                &selection.get(ElementKind::Bone).indices,
                self.bone_placements_for(model),
            ));
        }
        if self.layers.normals {
            let length = bounds.sphere().map_or(0.3, |(_, r)| r * 0.02);
            geometry.extend(overlay::normals_placed(model, length, posed));
        }
        overlay::add_selected_vertices_placed(
            &mut geometry,
            model,
            &selection.get(ElementKind::Vertex).indices,
            posed,
        );
        geometry
    }

    /// Points the camera at what is selected in the pick mode's kind (the whole model when
    /// nothing is).
    pub fn frame_selection(&mut self, document: &Document) {
        let model = &document.model;
        let selected = &document.selection.get(self.pick_mode.kind()).indices;
        let mut bounds = mesh::Bounds::default();
        match self.pick_mode {
            PickMode::Vertex => {
                for i in selected.iter() {
                    if let Some(at) = self.drawn_vertex(model, i) {
                        bounds.add(at);
                    }
                }
            }
            PickMode::Material => {
                let ranges = mesh::material_ranges(model);
                for i in selected.iter() {
                    if let Some(range) = ranges.get(i) {
                        let faces =
                            (range.first / 3) as usize..((range.first + range.count) / 3) as usize;
                        for face in model.faces.get(faces).unwrap_or_default() {
                            for v in face {
                                if let Some(at) = self.drawn_vertex(model, v.0 as usize) {
                                    bounds.add(at);
                                }
                            }
                        }
                    }
                }
            }
            PickMode::Bone => {
                for i in selected.iter() {
                    if let Some(head) = self.drawn_bone_head(model, i) {
                        bounds.add(head);
                    }
                }
            }
            PickMode::RigidBody => {
                let placements = self.body_placements_for(model);
                for i in selected.iter() {
                    if let Some(b) = model.rigid_bodies.get(i) {
                        let c = match placements.and_then(|list| list.get(i)) {
                            Some(at) => overlay::world_placement(at).0,
                            None => camera::to_world(b.position),
                        };
                        let r = b.size.x.abs().max(b.size.y.abs()).max(b.size.z.abs());
                        bounds.add(c - Vec3::splat(r));
                        bounds.add(c + Vec3::splat(r));
                    }
                }
            }
            PickMode::Joint => {
                let placements = self.body_placements_for(model);
                for i in selected.iter() {
                    if let Some(frame) = overlay::joint_placed(model, i, placements) {
                        bounds.add(overlay::world_placement(&frame).0);
                    }
                }
            }
        }
        let sphere = bounds
            .sphere()
            .or_else(|| self.scene.bounds(document).sphere());
        if let Some((center, radius)) = sphere {
            self.camera.frame(center, radius.max(0.5));
        }
    }

    /// A click at `pixel` in a viewport of `size`: the element of the pick mode's kind there.
    #[must_use]
    pub fn pick(&self, model: &Model, pixel: Vec2, size: Vec2) -> Option<usize> {
        let projector = Projector::new(&self.camera, size);
        let ray = self.camera.ray(pixel, size);
        match self.pick_mode {
            // Where they are drawn: posed vertices are picked where the pose put them.
            PickMode::Vertex => pick::pick_point(
                &projector,
                overlay::vertices_placed(model, self.posed_vertices_for(model)),
                pixel,
                8.0,
            ),
            // Where they are drawn: posed or simulated bones are picked where they are.
            PickMode::Bone => pick::pick_point(
                &projector,
                overlay::bone_heads_placed(model, self.bone_placements_for(model)),
                pixel,
                10.0,
            ),
            PickMode::Joint => {
                let placements = self.body_placements_for(model);
                pick::pick_point(
                    &projector,
                    (0..model.joints.len()).map(|index| {
                        overlay::joint_placed(model, index, placements)
                            .map_or(Vec3::NAN, |frame| overlay::world_placement(&frame).0)
                    }),
                    pixel,
                    10.0,
                )
            }
            PickMode::RigidBody => {
                // Where they are drawn: posed or simulated bodies are picked where they are.
                let placements = self.body_placements_for(model);
                pick::pick_solid(
                    &ray,
                    model.rigid_bodies.iter().enumerate().map(|(index, body)| {
                        let mut solid = overlay::solid(body);
                        if let Some(at) = placements.and_then(|p| p.get(index)) {
                            (solid.center, solid.rotation) = overlay::world_placement(at);
                        }
                        solid
                    }),
                )
            }
            PickMode::Material => {
                let positions: Vec<Vec3> =
                    overlay::vertices_placed(model, self.posed_vertices_for(model)).collect();
                let faces: Vec<[u32; 3]> = model
                    .faces
                    .iter()
                    .map(|f| [f[0].0, f[1].0, f[2].0])
                    .collect();
                let (face, _) = pick::pick_face(&ray, &positions, &faces)?;
                model.material_of_face(face)
            }
        }
    }

    /// Vertices inside the screen rectangle `a..b`.
    #[must_use]
    pub fn vertices_in_rect(&self, model: &Model, a: Vec2, b: Vec2, size: Vec2) -> Vec<usize> {
        let projector = Projector::new(&self.camera, size);
        pick::points_in_rect(
            &projector,
            overlay::vertices_placed(model, self.posed_vertices_for(model)),
            a,
            b,
        )
    }
}

/// World space → model space (and back): MMD's Z is negated.
fn mirror_z(v: Vec3) -> Vec3 {
    Vec3::new(v.x, v.y, -v.z)
}

/// How a pick changes the selection: replace, add (Shift), remove (Ctrl).
fn apply_pick(
    selection: &mut crate::selection::KindSelection,
    picked: &[usize],
    modifiers: egui::Modifiers,
) {
    if modifiers.command {
        for &i in picked {
            selection.indices.remove(i);
        }
        if selection
            .current
            .is_some_and(|c| !selection.indices.contains(c))
        {
            selection.current = selection.indices.first();
        }
    } else {
        if !modifiers.shift {
            selection.clear();
        }
        for &i in picked {
            selection.indices.insert(i);
        }
        if let Some(&first) = picked.first() {
            selection.current = Some(first);
        }
    }
}

/// The View menu's part for the 3D view: layers, pick mode, camera.
pub fn view_menu_ui(ui: &mut egui::Ui, lang: Language, state: &mut ViewState) {
    ui.menu_button(lang.tr("view.menu_layers"), |ui| {
        for (key, on) in state.layers.entries() {
            ui.checkbox(on, lang.tr(key));
        }
    });
    ui.menu_button(lang.tr("view.menu_pick"), |ui| {
        for mode in PickMode::ALL {
            ui.radio_value(&mut state.pick_mode, mode, lang.tr(mode.key()));
        }
    });
    ui.menu_button(lang.tr("view.menu_camera"), |ui| {
        for preset in CameraPreset::ALL {
            if ui.button(lang.tr(preset.key())).clicked() {
                state.camera.apply_preset(preset);
            }
        }
        if ui.button(lang.tr("view.camera_reset")).clicked() {
            state.camera.reset();
        }
    });
}

/// The part of `viewport` inside `clip`, as GL's scissor box (from the bottom left).
/// The 表示 pane.
pub fn view_pane_ui(ui: &mut egui::Ui, state: &mut ViewState, cx: &mut crate::widgets::PaneCx<'_>) {
    let (lang, document_id) = (cx.lang, cx.document_id);
    let document = &mut *cx.document;
    let commands = &mut *cx.commands;
    state.sync(document, document_id);
    ui.horizontal_wrapped(|ui| {
        ui.label(lang.tr("view.pick"));
        for mode in PickMode::ALL {
            ui.selectable_value(&mut state.pick_mode, mode, lang.tr(mode.key()));
        }
        ui.separator();
        for preset in CameraPreset::ALL {
            if ui.small_button(lang.tr(preset.key())).clicked() {
                state.camera.apply_preset(preset);
            }
        }
        if ui.small_button(lang.tr("view.frame_selection")).clicked() {
            state.frame_selection(document);
        }
        ui.separator();
        for (key, on) in state.layers.entries().into_iter().skip(2).take(4) {
            ui.checkbox(on, lang.tr(key));
        }
        ui.separator();
        ui.label(lang.tr("view.gizmo"));
        for mode in gizmo::GizmoMode::ALL {
            ui.selectable_value(&mut state.gizmo.mode, mode, lang.tr(mode.key()));
        }
    });
    transform::transform_ui(
        ui,
        lang,
        &mut state.transform,
        state.pick_mode.kind(),
        document,
        commands,
    );
    let problems = &state.scene.texture_problems;
    if !problems.is_empty() {
        let text = lang.format("view.texture_problems", &[("count", &problems.len())]);
        let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
        ui.colored_label(egui::Color32::from_rgb(200, 120, 0), text)
            .on_hover_text(list.join("\n"));
    }
    let (rect, response) =
        ui.allocate_exact_size(ui.available_size(), egui::Sense::click_and_drag());
    state.last_rect = Some(rect);
    let size = Vec2::new(rect.width(), rect.height());
    let pixels_per_point = ui.ctx().pixels_per_point();
    let local = |p: egui::Pos2| Vec2::new(p.x - rect.left(), p.y - rect.top());
    let modifiers = ui.input(|i| i.modifiers);
    // Camera: right drag orbits, middle drag (or Shift + right) pans, the wheel zooms.
    let delta = response.drag_delta();
    let delta = Vec2::new(delta.x, delta.y);
    if response.dragged_by(egui::PointerButton::Middle)
        || (response.dragged_by(egui::PointerButton::Secondary) && modifiers.shift)
    {
        state.camera.pan(delta, size.y);
    } else if response.dragged_by(egui::PointerButton::Secondary) {
        state.camera.orbit(delta);
    }
    if response.hovered() {
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0 {
            state.camera.zoom(scroll);
        }
    }
    if response.double_clicked() {
        state.camera.reset();
    } else if response.clicked()
        && let Some(pointer) = response.interact_pointer_pos()
    {
        let picked = state.pick(&document.model, local(pointer), size);
        let selection = document.selection.get_mut(state.pick_mode.kind());
        match picked {
            Some(index) => apply_pick(selection, &[index], modifiers),
            None if !modifiers.shift && !modifiers.command => selection.clear(),
            None => {}
        }
    }
    // The gizmo: a left drag on a handle moves, turns or scales the selection.
    let kind = state.pick_mode.kind();
    let layout = if state.gizmo.mode == gizmo::GizmoMode::Off {
        None
    } else {
        // Where the pose puts the selection, as drawn in the last frame.
        state
            .gizmo_pivot(document, kind)
            .and_then(|centre| gizmo::Layout::new(&state.camera, size, centre))
    };
    let hovered = layout.as_ref().and_then(|layout| {
        let pointer = response.hover_pos()?;
        layout.hit(state.gizmo.mode, local(pointer))
    });
    // Hit-test where the button went down: egui reports the drag only after the pointer has
    // moved a few pixels, possibly off a thin handle already.
    let press_origin = ui.input(|i| i.pointer.press_origin());
    if response.drag_started_by(egui::PointerButton::Primary)
        && let (Some(layout), Some(pointer)) = (&layout, press_origin)
        && let Some(handle) = layout.hit(state.gizmo.mode, local(pointer))
    {
        state.gizmo.start(handle, local(pointer));
    }
    if let Some(drag) = state.gizmo.drag {
        if response.dragged_by(egui::PointerButton::Primary)
            && let (Some(layout), Some(now)) = (&layout, ui.input(|i| i.pointer.latest_pos()))
        {
            let now = local(now);
            if let Some(change) = gizmo::drag_step(
                state.gizmo.mode,
                drag.handle,
                &state.camera,
                size,
                layout.centre_world,
                drag.last,
                now,
            ) && let Some(command) =
                transform::transform_command(document, kind, change, state.transform.mirror_x)
            {
                commands.push(command.in_gesture(Some(drag.gesture)));
            }
            if let Some(active) = &mut state.gizmo.drag {
                active.last = now;
            }
        }
        if response.drag_stopped() || !response.dragged() {
            state.gizmo.drag = None;
        }
    }
    // Left drag elsewhere: rectangle selection of vertices.
    if response.drag_started_by(egui::PointerButton::Primary) && state.gizmo.drag.is_none() {
        // From where the button went down (egui reports the drag a few pixels later).
        state.rect_start = press_origin.or_else(|| response.interact_pointer_pos());
    }
    if let (Some(start), Some(now)) = (state.rect_start, ui.input(|i| i.pointer.latest_pos())) {
        if response.dragged_by(egui::PointerButton::Primary) {
            let marquee = egui::Rect::from_two_pos(start, now);
            ui.painter().rect_stroke(
                marquee,
                0.0,
                egui::Stroke::new(1.0, egui::Color32::from_rgb(255, 140, 0)),
                egui::StrokeKind::Inside,
            );
        }
        if response.drag_stopped() {
            state.rect_start = None;
            let picked = state.vertices_in_rect(&document.model, local(start), local(now), size);
            apply_pick(
                document.selection.get_mut(ElementKind::Vertex),
                &picked,
                modifiers,
            );
            state.pick_mode = PickMode::Vertex;
        }
    }
    let highlight = document
        .selection
        .get(ElementKind::Material)
        .indices
        .clone();
    state
        .scene
        .set_frame(state.frame(&document.model, &highlight, size));
    if let Some(painter) = &state.painter {
        ui.painter()
            .add(painter.callback(rect, Arc::clone(&state.scene.shared)));
    }
    if layout.is_some() {
        let active = state.gizmo.drag.map(|d| d.handle).or(hovered);
        if state.gizmo.drag.is_some() {
            ui.ctx().set_cursor_icon(egui::CursorIcon::Grabbing);
        } else if hovered.is_some() {
            ui.ctx().set_cursor_icon(egui::CursorIcon::Grab);
        }
        // Painted once the frame's pose is fed ([`ViewState::paint_gizmo`]).
        state.gizmo_paint = Some(GizmoPaint {
            layer: ui.layer_id(),
            clip: ui.clip_rect().intersect(rect),
            rect,
            active,
        });
    }
    let _ = pixels_per_point;
    if let Ok(shared) = state.scene.shared.lock()
        && let Some(failure) = &shared.failure
    {
        ui.painter().text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            lang.format("view.gl_failed", &[("message", failure)]),
            egui::FontId::proportional(14.0),
            egui::Color32::RED,
        );
    }
}
