//! The 表示 (View) pane: the model drawn as MikuMikuDance draws it (three-d inside egui through
//! egui_glow's paint callback), overlays, an MMD-like camera, and picking into the shared
//! selection.
//!
//! - `tool`: what the view does with the pointer, as values: the [`tool::ViewTool`] trait and
//!   its routing; the tools, each in its own file, are listed once, in [`ViewState`]'s
//!   registry (`with_tools`): `morph_edit` (モーフ編集: transforms and its sculpt brush shape a
//!   vertex morph; modal while its brush is on), `weight_paint` (ウェイト描画, modal while on),
//!   `bone_place` (ボーン追加, modal while on), `gizmo` (move, rotate and scale handles),
//!   `bone_place::BoneDrag` (bone heads and tails), `rectangle_select`, `lasso_select`,
//!   `brush_select` (the toolbar's 矩形 / 投げ縄 / ブラシ: one of them takes a primary drag),
//!   `click_select`; `face_edit` (the face mode's edits), `context_menu` (the right-click menu),
//!   `keys` (the view's keys, one table). `shown`: the scene as the tools read it (camera, viewport, the pose's
//!   placements; picking). The camera's orbit, pan and zoom stay the pane's;
//! - `transform`: moving, turning and scaling the selection (the numeric row; the edit the
//!   gizmo asks for);
//! - `camera`, `pick`, `mesh`, `overlay`, `toon`, `frame`, `scene`: the GPU-free side of the
//!   view, in the `pmx_scene` crate (re-exported here);
//! - the GL side is the `pmx_view` crate, which this crate does not depend on: the window hands
//!   [`ViewState::painter`] its painter. Without one (panel tests) the pane draws no model.

pub mod bone_place;
pub mod brush_select;
pub mod click_select;
pub mod context_menu;
pub mod face_edit;
pub mod gizmo;
pub mod keys;
pub mod lasso_select;
pub mod morph_edit;
pub mod morph_offsets;
pub mod rectangle_select;
pub mod shown;
pub mod tool;
pub mod transform;
pub mod weight_paint;
pub use pmx_core::texture as textures;
pub use pmx_scene::{camera, frame, mesh, overlay, pick, scene, toon};

use crate::command::Commands;
use crate::document::Document;
use crate::i18n::Language;
use camera::{CameraPreset, OrbitCamera};
pub use frame::{BACKGROUND, LIGHT_COLOR, LIGHT_DIRECTION};
use frame::{Frame, Layers};
use glam::{Vec2, Vec3};
use pmx_core::model::{ElementKind, Model};
use pmx_scene::weight_colors::{self, WeightDisplay};
pub use shown::{PickMode, Placements, SelectShape, ShownScene};
use std::sync::Arc;
use tool::{ToolCx, ViewInput, ViewTool};

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
    /// The document revision the overlay was last keyed by (weight edits since keep it).
    overlay_revision: Option<(u64, u64)>,
    /// The weight display last coloured: (document, what it shows) and the revision.
    weights_key: Option<((u64, WeightDisplay), u64)>,
    framed_document: Option<u64>,
    /// The numeric move/rotate/scale row.
    pub transform: transform::TransformTool,
    /// The move/rotate/scale handles dragged in the view (a tool).
    pub gizmo: gizmo::Gizmo,
    /// What a left drag elsewhere selects with (矩形 / 投げ縄 / ブラシ).
    pub select_shape: SelectShape,
    /// A left drag elsewhere: what is in a rectangle (a tool).
    pub rectangle_select: rectangle_select::RectangleSelect,
    /// A left drag elsewhere: what is in a lasso (a tool).
    pub lasso_select: lasso_select::LassoSelect,
    /// A left drag elsewhere: what a brush's circle passes over (a tool).
    pub brush_select: brush_select::BrushSelect,
    /// 絞り込み表示 as the view last worked it out and uploaded it.
    shown: ShownCache,
    /// A left click: the element under the pointer (a tool).
    pub click_select: click_select::ClickSelect,
    /// ウェイト描画: the weight brush (a tool, modal while on).
    pub weight_paint: weight_paint::WeightPaint,
    /// モーフ編集: moving vertices shapes a vertex morph (a mode; modal while its brush is on).
    pub morph_edit: morph_edit::MorphEdit,
    /// ボーン追加: a click adds a bone there (a tool, modal while on).
    pub bone_place: bone_place::BonePlace,
    /// A left drag on a bone's head or tail in bone pick mode moves it (a tool).
    pub bone_drag: bone_place::BoneDrag,
    /// What was under the pointer when the right-click menu opened (while it is open).
    context_hit: Option<context_menu::Hit>,
    /// The view was the pane last pressed: Delete and 編集 > 削除 act on its selection. Set by
    /// the view, cleared by a press in another pane.
    pub has_focus: bool,
    /// The pointer was over the view in the last frame (Delete there acts on the view).
    pub pointer_over: bool,
    /// The pick kind's selection before the last click and the revision it was taken at: a
    /// double click (which resets the camera) gives back what its first click changed.
    before_click: Option<(ElementKind, crate::selection::KindSelection, u64)>,
    /// The UI's language and the names shown, as the pane last drew (what tools say).
    lang: Language,
    names: crate::i18n::NameLanguage,
    /// The registry position of the tool that owns the pointer gesture under way.
    tool_owner: Option<usize>,
    /// Where the view was drawn in the last frame (screen points), for tests and tools.
    pub last_rect: Option<egui::Rect>,
    /// Draws the scene on the GPU (`pmx_view::GlPainter`, given by the window).
    pub painter: Option<Arc<dyn scene::Painter>>,
    /// Where the pose pane's pose (after its physics) puts vertices, bones and rigid bodies:
    /// the ones the shown mesh was deformed with.
    placements: Placements,
    /// Where the tools paint this frame (the view's layer, clip and rectangle): painted by
    /// [`ViewState::paint_tools`] once the frame's pose is fed.
    paint_target: Option<PaintTarget>,
    /// The gizmo as last painted (where its pivot and handles were), for tests and tools.
    pub gizmo_layout: Option<gizmo::Layout>,
}

/// The document's visibility as the view draws and picks it: which faces and vertices are
/// shown (worked out once per change), the hidden materials, and what the GPU's indices hold.
#[derive(Debug, Default)]
struct ShownCache {
    /// (document id, revision, visibility fingerprint) `shown` was worked out for.
    key: Option<(u64, u64, u64)>,
    shown: Option<crate::visibility::Shown>,
    hidden_materials: crate::selection::IndexSet,
    /// (document id, the scene's index generation, fingerprint) of the indices uploaded with
    /// hidden faces left out; `None` while the GPU holds the model's own indices.
    uploaded: Option<(u64, u64, u64)>,
}

/// Where the view's tools paint at the end of the frame.
#[derive(Debug, Clone, Copy)]
struct PaintTarget {
    layer: egui::LayerId,
    clip: egui::Rect,
    rect: egui::Rect,
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
        let mut materials = frame::posed_material_draws(
            model,
            |i| highlight.contains(i),
            self.scene.material_morphs(),
        );
        // 絞り込み表示: a hidden material is not drawn, nor its edge.
        for index in self.shown.hidden_materials.iter() {
            if let Some(draw) = materials.get_mut(index) {
                draw.visible = false;
            }
        }
        Frame {
            view: self.camera.view_matrix(),
            view_projection: self.camera.view_projection(size),
            eye: self.camera.eye(),
            pixel_factor: 2.0 * (self.camera.fov_y * 0.5).tan() / size.y.max(1.0),
            light_direction: LIGHT_DIRECTION,
            light_color: LIGHT_COLOR,
            background: BACKGROUND,
            materials,
            layers: Layers {
                model: self.layers.model,
                edges: self.layers.edges,
                wireframe: self.layers.wireframe,
                vertices: self.layers.vertices,
                weights: self.layers.weights || self.weight_paint.active,
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
        self.sync_visibility(document, document_id);
        if self.framed_document != Some(document_id) {
            self.framed_document = Some(document_id);
            self.frame_model(document);
        }
        self.sync_overlay(document, document_id);
        self.sync_weight_colors(document, document_id);
    }

    /// Keeps what 絞り込み表示 hides in step with the document: the flags picking reads, the
    /// hidden materials the frame skips, and the GPU's indices with hidden faces left out
    /// (uploaded again when the visibility changes or the scene wrote the model's own indices;
    /// the vertex buffers stay).
    fn sync_visibility(&mut self, document: &Document, document_id: u64) {
        let visibility = &document.visibility;
        let fingerprint = visibility.fingerprint();
        let key = (document_id, document.revision(), fingerprint);
        if self.shown.key != Some(key) {
            self.shown.key = Some(key);
            self.shown.shown = visibility.shown(&document.model);
            self.shown.hidden_materials = visibility.hidden_materials.clone();
        }
        let generation = self.scene.index_generation();
        let wanted = self
            .shown
            .shown
            .as_ref()
            .map(|_| (document_id, generation, fingerprint));
        if wanted != self.shown.uploaded {
            let masked_now_stale = self
                .shown
                .uploaded
                .is_some_and(|(id, at, _)| id == document_id && at == generation);
            if wanted.is_some() || masked_now_stale {
                let faces = self.shown.shown.as_ref().map(|shown| &shown.faces[..]);
                self.scene.upload_shown_faces(&document.model, faces);
            }
            self.shown.uploaded = wanted;
        }
    }

    /// What the weight display shows now: the brush's choice while it is on, else the selected
    /// bone's weights (every bone's colours when none is selected) with the weights layer on.
    #[must_use]
    pub fn weight_display(&self, document: &Document) -> Option<WeightDisplay> {
        if self.weight_paint.active {
            return Some(self.weight_paint.weight_display(document));
        }
        self.layers.weights.then(|| {
            weight_paint::target_bone(document).map_or(WeightDisplay::AllBones, WeightDisplay::Bone)
        })
    }

    /// Keeps the weight colours in step with the document: after weight edits only (a brush's
    /// dabs, their undo) just the changed vertices are coloured again and patched; anything
    /// else that may change them, or another display, colours every vertex.
    fn sync_weight_colors(&mut self, document: &Document, document_id: u64) {
        let Some(display) = self.weight_display(document) else {
            if self.weights_key.take().is_some() {
                self.scene.set_weight_colors(None);
            }
            return;
        };
        let revision = document.revision();
        let key = (document_id, display);
        let patch = match self.weights_key {
            Some((shown, at)) if shown == key && at == revision => return,
            Some((shown, at)) if shown == key => weights_changed_since(document, at),
            _ => None,
        };
        let model = &document.model;
        match patch {
            Some(vertices) => {
                if !vertices.is_empty() {
                    let colors = weight_colors::weight_colors_of(model, display, &vertices);
                    self.scene.patch_weight_colors(vertices, colors);
                }
            }
            None => self
                .scene
                .set_weight_colors(Some(weight_colors::weight_colors(model, display))),
        }
        self.weights_key = Some((key, revision));
    }

    /// Rebuilds the overlay (bones, bodies, joints, grid, normals, selected vertices) when
    /// what it shows changed. The editor calls it again after feeding the frame's pose, so
    /// the overlay painted with a deformed mesh comes from the same pose as the mesh.
    pub fn sync_overlay(&mut self, document: &Document, document_id: u64) {
        let selection = &document.selection;
        let key = {
            use std::hash::{Hash, Hasher};
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            // Weight edits (a brush's dabs) change nothing the overlay draws.
            let revision = match self.overlay_revision {
                Some((id, at))
                    if id == document_id
                        && at <= document.revision()
                        && only_weight_edits_since(document, at) =>
                {
                    at
                }
                _ => document.revision(),
            };
            self.overlay_revision = Some((document_id, revision));
            (document_id, revision, self.layers).hash(&mut hasher);
            let [vertices, bones, bodies] = self.placements.generations();
            bodies.hash(&mut hasher);
            bones.hash(&mut hasher);
            vertices.hash(&mut hasher);
            for kind in [
                ElementKind::Vertex,
                ElementKind::Face,
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
        self.placements.bodies = placements;
    }

    /// Draws and picks the bones where a pose or the physics put them (`None`: at rest): one
    /// global transform per bone, model space. `generation` must change whenever they do.
    pub fn set_bone_placements(
        &mut self,
        placements: Option<(u64, Arc<[pmx_core::pose::Transform]>)>,
    ) {
        self.placements.bones = placements;
    }

    /// Draws and picks the vertices where a pose put them (`None`: at rest): the skinned
    /// positions and normals the mesh shows, model space, skinned when first used. `generation`
    /// must change whenever they do.
    pub fn set_vertex_placements(
        &mut self,
        placements: Option<(u64, Arc<overlay::LazyPosedVertices>)>,
    ) {
        self.placements.vertices = placements;
    }

    /// Whether the pose's vertices have been skinned on the CPU (`None`: none are set, at
    /// rest): for tests that the view skins them only when something needs them.
    #[doc(hidden)]
    #[must_use]
    pub fn posed_vertices_made(&self) -> Option<bool> {
        self.placements
            .vertices
            .as_ref()
            .map(|(_, posed)| posed.is_made())
    }

    /// Where vertex `index` is drawn and picked, in world space (Z mirrored).
    #[doc(hidden)]
    #[must_use]
    pub fn drawn_vertex(&self, model: &Model, index: usize) -> Option<Vec3> {
        self.placements.drawn_vertex(model, index)
    }

    /// The view as its tools see it in a viewport of `size` pixels.
    #[must_use]
    pub fn shown(&self, size: Vec2) -> ShownScene<'_> {
        ShownScene::new(&self.camera, size, &self.placements)
    }

    /// Where transforms of the selection go now: into the model, or into the edited morph's
    /// offsets in morph edit mode; with the numeric row's X mirror.
    #[must_use]
    pub fn transform_route(&self, document: &Document) -> transform::TransformRoute {
        transform::TransformRoute {
            into: self.morph_edit.transform_into(document),
            mirror_x: self.transform.mirror_x,
        }
    }

    /// The tool registry: every pointer tool of the view, in the order they are offered input
    /// (see [`tool`]), lent to `run` with the context they read. A new tool is its file, its
    /// field in [`ViewState`] and its place in this list.
    fn with_tools<R>(
        &mut self,
        document: &Document,
        size: Vec2,
        modifiers: egui::Modifiers,
        run: impl FnOnce(&mut [&mut dyn ViewTool], &mut Option<usize>, &mut ToolCx<'_>) -> R,
    ) -> R {
        let Self {
            morph_edit,
            weight_paint,
            bone_place,
            gizmo,
            bone_drag,
            rectangle_select,
            lasso_select,
            brush_select,
            click_select,
            camera,
            placements,
            pick_mode,
            select_shape,
            shown,
            tool_owner,
            lang,
            names,
            ..
        } = self;
        let mut tools: [&mut dyn ViewTool; 9] = [
            morph_edit,
            weight_paint,
            bone_place,
            gizmo,
            bone_drag,
            rectangle_select,
            lasso_select,
            brush_select,
            click_select,
        ];
        let scene = ShownScene::new(camera, size, placements).with_shown(shown.shown.as_ref());
        let mut cx = ToolCx::new(document, scene, *pick_mode, modifiers)
            .with_select_shape(*select_shape)
            .in_language(*lang, *names);
        run(&mut tools, tool_owner, &mut cx)
    }

    /// Routes one input to the tools and carries out what they ask (selection changes at once,
    /// edits as commands).
    fn tool_input(
        &mut self,
        document: &mut Document,
        commands: &mut Commands,
        size: Vec2,
        modifiers: egui::Modifiers,
        input: ViewInput,
    ) {
        let requests = self.with_tools(document, size, modifiers, |tools, owner, cx| {
            tool::route(tools, owner, cx, input);
            cx.take_requests()
        });
        let route = self.transform_route(document);
        for request in requests {
            request.apply(document, commands, &mut self.pick_mode, route);
        }
    }

    /// Paints the overlays of the tools the view pane laid out this frame (the gizmo at the
    /// pivot where the frame's pose puts the selection, the marquee): the editor calls it
    /// after feeding the pose, so they are painted with the mesh and the overlay of the same
    /// pose (the view pane is drawn before the pose of the frame is known), over the scene.
    pub fn paint_tools(&mut self, ctx: &egui::Context, document: Option<&Document>) {
        self.gizmo_layout = None;
        let (Some(target), Some(document)) = (self.paint_target.take(), document) else {
            return;
        };
        let size = Vec2::new(target.rect.width(), target.rect.height());
        let painter = ctx.layer_painter(target.layer).with_clip_rect(target.clip);
        let modifiers = ctx.input(|i| i.modifiers);
        self.with_tools(document, size, modifiers, |tools, _, cx| {
            tool::paint(tools, cx, &painter, target.rect);
        });
        self.gizmo_layout = self.gizmo.take_painted();
    }

    /// Where bone `index`'s head is drawn and picked, in world space (Z mirrored).
    #[doc(hidden)]
    #[must_use]
    pub fn drawn_bone_head(&self, model: &Model, index: usize) -> Option<Vec3> {
        self.placements.drawn_bone_head(model, index)
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
        let placements = self.placements.bodies_for(model);
        let selected_vertices = &selection.get(ElementKind::Vertex).indices;
        let selected_faces = &selection.get(ElementKind::Face).indices;
        // The posed vertices are skinned on the CPU only for what is drawn on them: a pose or
        // motion under no vertex overlay skins nothing here.
        let posed =
            if self.layers.normals || !selected_vertices.is_empty() || !selected_faces.is_empty() {
                self.placements.vertices_for(model)
            } else {
                None
            };
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
                self.placements.bones_for(model),
            ));
        }
        if self.layers.normals {
            let length = bounds.sphere().map_or(0.3, |(_, r)| r * 0.02);
            geometry.extend(overlay::normals_placed(model, length, posed));
        }
        overlay::add_selected_vertices_placed(&mut geometry, model, selected_vertices, posed);
        overlay::add_selected_faces_placed(&mut geometry, model, selected_faces, posed);
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
            PickMode::Face => {
                for face in selected.iter().filter_map(|f| model.faces.get(f)) {
                    for v in face {
                        if let Some(at) = self.drawn_vertex(model, v.0 as usize) {
                            bounds.add(at);
                        }
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
                let placements = self.placements.bodies_for(model);
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
                let placements = self.placements.bodies_for(model);
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
        self.shown(size).pick(model, self.pick_mode, pixel)
    }

    /// Vertices inside the screen rectangle `a..b`.
    #[must_use]
    pub fn vertices_in_rect(&self, model: &Model, a: Vec2, b: Vec2, size: Vec2) -> Vec<usize> {
        self.shown(size).vertices_in_rect(model, a, b)
    }
}

/// Whether every change since `revision` is a weight edit (the overlay draws no weights).
fn only_weight_edits_since(document: &Document, revision: u64) -> bool {
    document.changes_since(revision).is_some_and(|changes| {
        changes
            .iter()
            .all(|touched| touched.vertex_weights_only && !touched.structure_changed())
    })
}

/// The vertices whose weights changed since `revision`, when weight edits (or edits that
/// touch neither vertices nor the element lists) are all that happened; `None` when anything
/// else may have changed the colours (or the log no longer reaches back).
fn weights_changed_since(document: &Document, revision: u64) -> Option<Vec<u32>> {
    let changes = document.changes_since(revision)?;
    let mut vertices = Vec::new();
    for touched in changes {
        if touched.structure_changed() {
            return None;
        }
        if touched.vertex_weights_only {
            vertices.extend_from_slice(&touched.weighted_vertices);
        } else if touched.touches(pmx_core::edit::EditTarget::Vertex) {
            return None;
        }
    }
    vertices.sort_unstable();
    vertices.dedup();
    Some(vertices)
}

/// The View menu's part for the 3D view: layers, pick mode, camera, 絞り込み表示 (which asks
/// for [`crate::command::Command::Visibility`] in `commands`).
pub fn view_menu_ui(
    ui: &mut egui::Ui,
    lang: Language,
    state: &mut ViewState,
    commands: &mut Commands,
) {
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
    face_edit::visibility_menu_ui(ui, lang, state.pick_mode.kind(), commands);
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

/// The 表示 pane.
pub fn view_pane_ui(ui: &mut egui::Ui, state: &mut ViewState, cx: &mut crate::widgets::PaneCx<'_>) {
    let (lang, document_id) = (cx.lang, cx.document_id);
    (state.lang, state.names) = (lang, cx.names);
    let document = &mut *cx.document;
    let commands = &mut *cx.commands;
    state.sync(document, document_id);
    ui.horizontal_wrapped(|ui| {
        ui.label(lang.tr("view.pick"));
        for mode in PickMode::ALL {
            ui.selectable_value(&mut state.pick_mode, mode, lang.tr(mode.key()));
        }
        ui.separator();
        for shape in SelectShape::ALL {
            ui.selectable_value(&mut state.select_shape, shape, lang.tr(shape.key()))
                .on_hover_text(lang.tr("view.select_shape_hint"));
        }
        if state.pick_mode == PickMode::Face {
            face_edit::face_edits_ui(ui, lang, document, commands);
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
        let before = state.modes();
        state.with_tools(
            document,
            Vec2::ZERO,
            egui::Modifiers::NONE,
            |tools, _, _| {
                for tool in tools {
                    tool.toolbar_ui(ui, lang);
                }
            },
        );
        state.one_mode_at_a_time(before);
    });
    // The rows of the tools that take part (the brush's settings while it is on).
    let options = state.with_tools(
        document,
        Vec2::ZERO,
        egui::Modifiers::NONE,
        |tools, _, cx| {
            ui.horizontal_wrapped(|ui| tool::options(tools, cx, ui));
            cx.take_requests()
        },
    );
    let route = state.transform_route(document);
    for request in options {
        request.apply(document, commands, &mut state.pick_mode, route);
    }
    // The numeric move/rotate/scale row is the selection's; a brush on its own hides it.
    if !state.weight_paint.is_modal()
        && !state.morph_edit.is_modal()
        && let Some(change) = transform::transform_ui(ui, lang, &mut state.transform)
    {
        let route = state.transform_route(document);
        if let Some(command) =
            transform::routed_command(document, state.pick_mode.kind(), change, route)
        {
            commands.push(command);
        }
    }
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
    navigate(ui, state, &response, size);
    route_pointer(ui, state, &response, document, commands);
    context_menu::show(state, &response, document, commands);
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
    // The tools paint once the frame's pose is fed ([`ViewState::paint_tools`]), over the scene.
    state.paint_target = Some(PaintTarget {
        layer: ui.layer_id(),
        clip: ui.clip_rect().intersect(rect),
        rect,
    });
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

/// The camera, whatever tool is in use: right drag orbits, middle drag (or Shift + right) pans,
/// the wheel zooms, a double click resets it (and gives back the selection its first click
/// changed, in [`route_pointer`]).
fn navigate(ui: &egui::Ui, state: &mut ViewState, response: &egui::Response, size: Vec2) {
    let modifiers = ui.input(|i| i.modifiers);
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
    }
}

/// Turns egui's reading of the pointer over the view into [`ViewInput`]s for the tools, in the
/// order a frame has them: a press, a click, then (once the tools are laid out for the
/// selection the click left) a drag's start, movement and end.
fn route_pointer(
    ui: &egui::Ui,
    state: &mut ViewState,
    response: &egui::Response,
    document: &mut Document,
    commands: &mut Commands,
) {
    let rect = response.rect;
    let size = Vec2::new(rect.width(), rect.height());
    let local = |p: egui::Pos2| Vec2::new(p.x - rect.left(), p.y - rect.top());
    let (modifiers, primary_pressed, press_origin, latest) = ui.input(|i| {
        (
            i.modifiers,
            i.pointer.primary_pressed(),
            i.pointer.press_origin(),
            i.pointer.latest_pos(),
        )
    });
    state.pointer_over = response.hovered();
    if response.is_pointer_button_down_on() && ui.input(|i| i.pointer.any_pressed()) {
        state.has_focus = true;
    }
    let mut early = Vec::new();
    if primary_pressed
        && response.is_pointer_button_down_on()
        && let Some(at) = press_origin
    {
        early.push(ViewInput::Press { at: local(at) });
    }
    if response.clicked()
        && !response.double_clicked()
        && let Some(pointer) = response.interact_pointer_pos()
    {
        let kind = state.pick_mode.kind();
        let before = document.selection.get(kind).clone();
        state.before_click = Some((kind, before, document.revision()));
        early.push(ViewInput::Click { at: local(pointer) });
    }
    // The second click of a double click (a camera reset) picks nothing and the first one's
    // pick is given back: PmxView's double click only resets the view.
    if response.double_clicked()
        && let Some((kind, before, revision)) = state.before_click.take()
        && revision == document.revision()
    {
        *document.selection.get_mut(kind) = before;
    }
    for input in early {
        state.tool_input(document, commands, size, modifiers, input);
    }
    let hover = response.hover_pos().map(local);
    state.with_tools(document, size, modifiers, |tools, _, cx| {
        tool::prepare(tools, cx, hover);
    });
    let latest = latest.map(local);
    let mut late = Vec::new();
    if response.drag_started_by(egui::PointerButton::Primary)
        // From where the button went down (egui reports the drag a few pixels later).
        && let Some(origin) = press_origin.or_else(|| response.interact_pointer_pos())
    {
        let origin = local(origin);
        let at = latest.unwrap_or(origin);
        late.push(ViewInput::DragStart { origin, at });
    }
    if response.dragged_by(egui::PointerButton::Primary)
        && let Some(at) = latest
    {
        late.push(ViewInput::Drag { at });
    }
    if response.drag_stopped()
        && let Some(at) = latest
    {
        late.push(ViewInput::DragEnd { at });
    }
    let mut actions = Vec::new();
    if response.hovered() && !ui.ctx().egui_wants_keyboard_input() {
        ui.input(|i| {
            for event in &i.events {
                if let egui::Event::Key {
                    key, pressed: true, ..
                } = event
                {
                    match keys::action_for(*key, modifiers) {
                        Some(action) => actions.push(action),
                        None => late.push(ViewInput::Key(*key)),
                    }
                }
            }
        });
    }
    for input in late {
        state.tool_input(document, commands, size, modifiers, input);
    }
    for action in actions {
        state.view_action(action, document);
    }
    // A gesture whose release the view never saw (the pointer let go elsewhere) ends here.
    if state.tool_owner.is_some() && !response.dragged() && !response.is_pointer_button_down_on() {
        state.tool_input(document, commands, size, modifiers, ViewInput::Cancel);
    }
    let (cursor, hover_text) = state.with_tools(document, size, modifiers, |tools, _, cx| {
        (tool::cursor(tools), tool::hover_text(tools, cx))
    });
    if let Some(cursor) = cursor {
        ui.ctx().set_cursor_icon(cursor);
    }
    if let Some(text) = hover_text
        && response.hovered()
    {
        response.clone().on_hover_text_at_pointer(text);
    }
}
