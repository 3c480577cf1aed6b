//! Keeps the GPU's copy of the model in step with the document: a new document or a
//! structural edit rebuilds the mesh (of the texture list: loads every texture again); a value
//! edit of vertices uploads only their ranges, of faces only their indices, of materials their ranges (colours are per-frame uniforms), of
//! textures only those textures. A pose uploads deformed positions and normals through
//! [`ViewScene::upload_deformed`], the UVs its UV morphs move through
//! [`ViewScene::show_posed_uvs`], and its material morphs reach each frame's material values
//! through [`ViewScene::set_material_morphs`] (uniforms, never a mesh upload). The GPU objects live with the [`Painter`]; this side only
//! queues [`Upload`]s in the [`SceneQueue`] the paint callback locks.

use crate::frame::{Frame, Upload};
use crate::mesh::{Bounds, MeshData, VertexArrays, VertexPatch, face_indices, material_ranges};
use crate::skin::{SkinData, SkinLayout, SkinPose};
use pmx_core::edit::{EditTarget, Touched};
use pmx_core::model::{ElementKind, Model, MorphOffsets};
use pmx_core::pose::MaterialMorphState;
use pmx_core::texture::{self as textures, Image, TextureProblem};
use std::ops::Range;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// At most this many buffer writes per attribute for a sparse vertex patch.
pub const MAX_PATCH_RUNS: usize = 32;

/// Index ranges covering the sorted `vertices`, at most `max_runs` of them: runs of
/// consecutive indices, joined across the smallest gaps first (a gap's vertices are written
/// again with the values they have; a buffer write costs more than a few hundred bytes).
#[must_use]
pub fn coalesce_runs(vertices: &[u32], max_runs: usize) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    for &v in vertices {
        let v = v as usize;
        match runs.last_mut() {
            Some(last) if v < last.end => {}
            Some(last) if v == last.end => last.end = v + 1,
            _ => runs.push(v..v + 1),
        }
    }
    let max_runs = max_runs.max(1);
    if runs.len() <= max_runs {
        return runs;
    }
    // Keep the `max_runs - 1` widest gaps; close the others.
    let mut gaps: Vec<(usize, usize)> = runs
        .windows(2)
        .enumerate()
        .map(|(i, pair)| (pair[1].start - pair[0].end, i))
        .collect();
    gaps.sort_unstable_by(|a, b| b.cmp(a));
    let mut kept: Vec<usize> = gaps[..max_runs - 1].iter().map(|&(_, i)| i).collect();
    kept.sort_unstable();
    let mut merged = Vec::with_capacity(max_runs);
    let mut start = runs[0].start;
    for i in kept {
        merged.push(start..runs[i].end);
        start = runs[i + 1].start;
    }
    merged.push(start..runs[runs.len() - 1].end);
    merged
}

/// Deformed positions and normals (model space) from vertex `first` on, as the GPU takes
/// them (world space: Z mirrored).
fn deformed_patch(first: usize, positions: &[glam::Vec3], normals: &[glam::Vec3]) -> Upload {
    let world =
        |list: &[glam::Vec3]| -> Vec<[f32; 3]> { list.iter().map(|v| [v.x, v.y, -v.z]).collect() };
    Upload::Vertices(VertexPatch::Deformed {
        first,
        positions: world(positions),
        normals: world(normals),
    })
}

/// What the paint callback shares with the UI thread: the uploads and the frame this side
/// queued, and how painting went.
#[derive(Debug, Default)]
pub struct SceneQueue {
    /// The painter's GPU resources for this scene (created on the first paint; opaque here, so
    /// that this crate needs no GL).
    pub gpu: Option<Box<dyn std::any::Any + Send>>,
    /// Why the GPU side could not start (shown in the view instead of the model).
    pub failure: Option<String>,
    pub pending: Vec<Upload>,
    pub frame: Option<Frame>,
    /// CPU time of the last paint callback (uploads + draw calls).
    pub last_paint: Duration,
    /// Frames drawn so far.
    pub frames: u64,
    /// When the first frame with a model was drawn.
    pub first_model_frame: Option<std::time::Instant>,
    /// An upload failed (the GPU copy no longer matches the model): the next sync rebuilds.
    pub upload_error: Option<String>,
    /// The most texels one texture buffer holds on the GPU (`GL_MAX_TEXTURE_BUFFER_SIZE`),
    /// once the GPU side started: a model whose skinning data needs more is posed on the CPU.
    pub max_buffer_texels: Option<usize>,
}

/// Draws a [`SceneQueue`] on the GPU: the window gives the editor one (`pmx_view`'s), so this
/// crate and the editor's panels never link the GL code.
pub trait Painter: Send + Sync + std::fmt::Debug {
    /// The egui paint callback that applies `queue`'s uploads and draws its frame in `rect`.
    fn callback(&self, rect: egui::Rect, queue: Arc<Mutex<SceneQueue>>) -> egui::PaintCallback;
}

/// What the scene follows: the open document's model and its log of changes.
pub trait SceneSource {
    fn model(&self) -> &Model;
    /// The folder texture paths are relative to (`None`: a model not saved yet).
    fn base_dir(&self) -> Option<&Path>;
    /// Increases with every applied, undone or redone edit.
    fn revision(&self) -> u64;
    /// What changed after `revision`, oldest first; `None` when the log no longer reaches back.
    fn changes_since(&self, revision: u64) -> Option<Vec<&Touched>>;
}

/// What the CPU side knows about the uploaded model.
#[derive(Debug, Default)]
pub struct ViewScene {
    pub shared: Arc<Mutex<SceneQueue>>,
    /// (document id, revision) the GPU copy reflects.
    synced: Option<(u64, u64)>,
    /// The box around the model's vertices (world space), as a fresh load computes it: after a
    /// vertex edit it is computed again when asked for ([`ViewScene::bounds`]), since a moved
    /// outermost vertex can shrink it.
    bounds: Bounds,
    bounds_stale: bool,
    /// Textures that could not be loaded, in texture order (what `problem_of` holds).
    pub texture_problems: Vec<TextureProblem>,
    /// Each texture's problem, by texture index: a texture whose path is edited drops its old
    /// problem, as a fresh load would not have it.
    problem_of: Vec<Option<TextureProblem>>,
    /// How the last sync went, for the status line and the figures.
    pub last_sync: SyncKind,
    /// The GPU's positions and normals are the deformed ones last uploaded: no whole mesh
    /// (at rest) went up since. Partial deformed uploads only make sense on top of them.
    holds_deformed: bool,
    /// The GPU skins the mesh in a pose ([`ViewScene::upload_skin_pose`]).
    skin_posed: bool,
    /// The skinning data's layout while the GPU holds the data (`None`: it does not; the next
    /// pose uploads it).
    skin_layout: Option<SkinLayout>,
    /// This mesh's skinning data needs more texels than the GPU's texture buffers hold: its
    /// poses go up as CPU-deformed vertices ([`ViewScene::upload_skin_pose`]).
    skin_too_large: bool,
    /// The pose's material morphs, one state per material, that each frame's material values
    /// take in (empty: none, the model's own values).
    material_morphs: Vec<MaterialMorphState>,
    /// The UVs the pose's UV morphs put on the GPU (`None`: the model's own UVs, as the mesh
    /// was built).
    shown_uvs: Option<ShownUvs>,
    /// Counts the uploads that wrote face indices (a whole mesh, a face range): indices with
    /// hidden faces left out ([`ViewScene::upload_shown_faces`]) must go up again after one.
    index_generation: std::sync::atomic::AtomicU64,
}

/// What [`ViewScene::show_posed_uvs`] last uploaded: the UV morphs' weights the GPU's UVs
/// are of, and the vertices they may have moved (what goes back to rest).
#[derive(Debug, Clone, PartialEq)]
struct ShownUvs {
    weights: Vec<f32>,
    vertices: Vec<u32>,
}

/// The UVs of a pose with UV morphs, as the view takes them (from
/// `pmx_core::pose::MorphEvaluator`).
#[derive(Debug, Clone, Copy)]
pub struct PosedUvs<'a> {
    /// Every vertex's UV with the UV morphs applied, indexed by vertex.
    pub uvs: &'a [glam::Vec2],
    /// The vertices some UV morph can move (ascending): the only UVs that can differ from
    /// the model's.
    pub vertices: &'a [u32],
    /// Each morph's total weight this frame, indexed by morph (flips and groups included):
    /// equal weights of the UV morphs, equal UVs.
    pub weights: &'a [f32],
}

/// The weights of the UV morphs (channel 0) among `weights` (one per morph), in morph order.
fn uv_morph_weights(model: &Model, weights: &[f32]) -> Vec<f32> {
    model
        .morphs
        .iter()
        .zip(weights)
        .filter(|(morph, _)| matches!(morph.offsets, MorphOffsets::Uv(_)))
        .map(|(_, &weight)| weight)
        .collect()
}

/// UVs of the vertices `runs` from `uv_of` (image coordinates, as the mesh holds them).
fn uv_patches(
    runs: Vec<Range<usize>>,
    uv_of: impl Fn(usize) -> [f32; 2],
) -> impl Iterator<Item = Upload> {
    runs.into_iter().map(move |run| {
        Upload::Vertices(VertexPatch::Uvs {
            first: run.start,
            uvs: run.map(&uv_of).collect(),
        })
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyncKind {
    #[default]
    None,
    Full,
    Partial {
        vertices: usize,
    },
}

impl ViewScene {
    fn queue(&self, uploads: impl IntoIterator<Item = Upload>) {
        if let Ok(mut shared) = self.shared.lock() {
            let before = shared.pending.len();
            shared.pending.extend(uploads);
            if shared.pending[before..]
                .iter()
                .any(|u| matches!(u, Upload::Mesh(_) | Upload::Faces { .. }))
            {
                self.index_generation
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        }
    }

    /// Changes whenever the scene queues face indices of the model (a rebuilt mesh, an edit of
    /// faces): what an upload of [`ViewScene::upload_shown_faces`] is keyed by.
    #[must_use]
    pub fn index_generation(&self) -> u64 {
        self.index_generation
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Uploads every face's indices with the faces `shown` leaves out made empty (all three
    /// corners vertex 0, which draws nothing): 絞り込み表示 without touching the vertex buffers
    /// or the material ranges. `shown`: one flag per face (`None`: every face, the model's
    /// own indices again).
    pub fn upload_shown_faces(&self, model: &Model, shown: Option<&[bool]>) {
        if model.faces.is_empty() {
            return;
        }
        let mut indices = face_indices(model, 0..model.faces.len());
        if let Some(shown) = shown {
            for (face, corners) in indices.chunks_exact_mut(3).enumerate() {
                if !shown.get(face).copied().unwrap_or(true) {
                    corners.fill(0);
                }
            }
        }
        if let Ok(mut shared) = self.shared.lock() {
            shared.pending.push(Upload::Faces {
                first_face: 0,
                indices,
            });
        }
    }

    /// Forgets the uploaded model (the next sync rebuilds it).
    pub fn invalidate(&mut self) {
        self.synced = None;
    }

    /// The box around the model's vertices in world space (exact: after vertex edits it is
    /// computed again from `document`, which must be the document last synced).
    pub fn bounds(&mut self, document: &dyn SceneSource) -> Bounds {
        if self.bounds_stale {
            self.bounds = Bounds::of(
                document
                    .model()
                    .vertices
                    .iter()
                    .map(|v| crate::camera::to_world(v.position)),
            );
            self.bounds_stale = false;
        }
        self.bounds
    }

    /// Brings the GPU copy up to `document`'s revision. Returns whether anything was queued.
    pub fn sync(&mut self, document: &dyn SceneSource, document_id: u64) -> bool {
        let failed = self
            .shared
            .lock()
            .ok()
            .and_then(|mut shared| shared.upload_error.take());
        if failed.is_some() {
            self.synced = None;
        }
        let revision = document.revision();
        match self.synced {
            Some((id, seen)) if id == document_id && seen == revision => false,
            Some((id, seen)) if id == document_id => {
                match document.changes_since(seen) {
                    Some(changes) => self.apply_changes(document, &changes),
                    None => self.rebuild(document, true),
                }
                self.synced = Some((document_id, revision));
                true
            }
            _ => {
                self.rebuild(document, true);
                self.synced = Some((document_id, revision));
                true
            }
        }
    }

    fn rebuild(&mut self, document: &dyn SceneSource, textures: bool) {
        let mut uploads = vec![self.mesh_upload(document)];
        if textures {
            // Every texture is loaded again: problems of textures no longer there go.
            self.problem_of.clear();
            uploads.push(Upload::Textures(
                self.load_textures(document, 0..usize::MAX),
            ));
        }
        self.queue(uploads);
        self.last_sync = SyncKind::Full;
    }

    /// The whole mesh, with the bounds a fresh load computes.
    fn mesh_upload(&mut self, document: &dyn SceneSource) -> Upload {
        let mesh = MeshData::build(document.model());
        self.bounds = mesh.bounds;
        self.bounds_stale = false;
        self.holds_deformed = false;
        // The GPU drops the skinning data and the pose with the old mesh.
        self.skin_posed = false;
        self.skin_layout = None;
        self.skin_too_large = false;
        // The whole mesh is the model at rest: the pose's morphs are fed again with its
        // positions (the window's feed sees `holds_deformed` drop).
        self.shown_uvs = None;
        self.material_morphs.clear();
        Upload::Mesh(mesh)
    }

    fn load_textures(
        &mut self,
        document: &dyn SceneSource,
        range: Range<usize>,
    ) -> Vec<Option<Image>> {
        let base = document.base_dir();
        let end = range.end.min(document.model().textures.len());
        let start = range.start.min(end);
        self.problem_of
            .resize(document.model().textures.len(), None);
        let images = document.model().textures[start..end]
            .iter()
            .zip(&mut self.problem_of[start..end])
            .map(
                |(name, problem)| match textures::load(base, &name.as_str()) {
                    Ok(image) => {
                        *problem = None;
                        Some(image)
                    }
                    Err(error) => {
                        *problem = Some(error);
                        None
                    }
                },
            )
            .collect();
        self.texture_problems = self.problem_of.iter().flatten().cloned().collect();
        images
    }

    fn apply_changes(&mut self, document: &dyn SceneSource, changes: &[&Touched]) {
        let model = document.model();
        let structural = |kind: ElementKind| changes.iter().any(|t| t.structure.contains(&kind));
        let header = changes.iter().any(|t| t.touches(EditTarget::Header));
        if structural(ElementKind::Texture) {
            self.rebuild(document, true);
            return;
        }
        // A new mesh with the same texture list: textures whose path changed in the same
        // changes (one step of a script, or several edits between two frames) are still loaded
        // below. (Returning after the mesh once left such a texture showing its old image.)
        let remesh = header
            || structural(ElementKind::Vertex)
            || structural(ElementKind::Face)
            || structural(ElementKind::Material);
        let mut uploads = Vec::new();
        let vertices = if remesh {
            uploads.push(self.mesh_upload(document));
            0
        } else {
            self.value_uploads(model, changes, &mut uploads)
        };
        let texture_ranges: Vec<Range<usize>> = changes
            .iter()
            .flat_map(|t| t.ranges(EditTarget::Texture))
            .collect();
        for range in texture_ranges {
            let images = self.load_textures(document, range.clone());
            for (offset, image) in images.into_iter().enumerate() {
                uploads.push(Upload::Texture {
                    index: range.start + offset,
                    image,
                });
            }
        }
        self.queue(uploads);
        self.last_sync = if remesh {
            SyncKind::Full
        } else {
            SyncKind::Partial { vertices }
        };
    }

    /// The uploads of value edits (no list changed shape): vertex ranges, face ranges, and the
    /// material ranges when a material changed. Returns the vertices uploaded.
    fn value_uploads(
        &mut self,
        model: &Model,
        changes: &[&Touched],
        uploads: &mut Vec<Upload>,
    ) -> usize {
        let mut vertices = 0;
        for touched in changes {
            // A spread selection's vertices in a few ranges (a gap of up to 256 vertices goes
            // up with them), not one range from the first to the last.
            for range in touched.vertex_runs(256) {
                if !touched.vertex_positions_only
                    && let Some(layout) = &mut self.skin_layout
                {
                    // Weights may have changed: the GPU's skinning data of just these.
                    uploads.push(Upload::SkinPatch(layout.patch(model, range.clone())));
                }
                if touched.vertex_weights_only {
                    // Weights only: the mesh at rest is unchanged (a posed one is re-skinned
                    // and patched by the pose's feed, the weight colours by the view).
                    continue;
                }
                self.bounds_stale = true;
                if touched.vertex_positions_only {
                    // A move: only the positions go up (a drag of 100,000 vertices each frame).
                    let end = range.end.min(model.vertices.len());
                    let start = range.start.min(end);
                    let positions: Vec<[f32; 3]> = model.vertices[start..end]
                        .iter()
                        .map(|v| crate::camera::to_world(v.position).to_array())
                        .collect();
                    vertices += positions.len();
                    uploads.push(Upload::Vertices(VertexPatch::Positions {
                        first: start,
                        positions,
                    }));
                } else {
                    let arrays = VertexArrays::of(model, range.clone());
                    vertices += arrays.len();
                    // The model's UVs go up with the rest: a pose's UVs must go up again.
                    self.shown_uvs = None;
                    uploads.push(Upload::Vertices(VertexPatch::All {
                        first: range.start,
                        arrays,
                    }));
                }
            }
            for range in touched.ranges(EditTarget::Face) {
                uploads.push(Upload::Faces {
                    first_face: range.start,
                    indices: face_indices(model, range),
                });
            }
        }
        if changes.iter().any(|t| t.touches(EditTarget::Material)) {
            uploads.push(Upload::MaterialRanges(material_ranges(model)));
        }
        let skin_changed = changes.iter().any(|t| {
            t.touches(EditTarget::Morph)
                || t.structure.contains(&ElementKind::Bone)
                || t.structure.contains(&ElementKind::Morph)
        });
        if skin_changed {
            // The next pose finds out again whether the new skinning data fits the GPU.
            self.skin_too_large = false;
        }
        if skin_changed && self.skin_layout.is_some() {
            // Bone indices or morph offsets moved: the skinning data goes up whole.
            let (data, layout) = SkinData::build(model);
            uploads.push(Upload::Skin(data));
            self.skin_layout = Some(layout);
        }
        vertices
    }

    /// Uploads deformed positions and normals (model space) of the vertices from `first` on:
    /// what a pose preview feeds each frame. The document is unchanged.
    pub fn upload_deformed(
        &mut self,
        first: usize,
        positions: &[glam::Vec3],
        normals: &[glam::Vec3],
    ) {
        self.holds_deformed = true;
        self.stop_skinning();
        self.queue([deformed_patch(first, positions, normals)]);
    }

    /// Draws the mesh in the pose `evaluator` last evaluated (its bones and morphs; its CPU
    /// skinning need not have run), skinned by the vertex shaders: the skinning data goes up
    /// when the GPU lacks it (the mesh's first pose, a new model), then per frame only the
    /// bone palette and the vertex morphs' weights. `model` is the document's model (the one
    /// the evaluator was built for). Vertex buffers a CPU-deformed pose wrote go back to rest
    /// first. The document is unchanged.
    ///
    /// Where the GPU's texture buffers cannot hold the model's skinning data
    /// ([`SceneQueue::max_buffer_texels`]; OpenGL 3.3 promises only 65,536 texels), the pose
    /// goes up as CPU-skinned vertices instead (the evaluation's [`SkinJob`], run here), every
    /// vertex each frame, as before GPU skinning: the picture is the same.
    ///
    /// [`SkinJob`]: pmx_core::pose::SkinJob
    pub fn upload_skin_pose(&mut self, model: &Model, evaluator: &pmx_core::pose::PoseEvaluator) {
        let mut uploads = Vec::new();
        let mut skin = None;
        if !self.skin_too_large && !self.skin_layout.as_ref().is_some_and(|l| l.fits(model)) {
            let (data, layout) = SkinData::build(model);
            let limit = self.shared.lock().ok().and_then(|q| q.max_buffer_texels);
            self.skin_too_large = limit.is_some_and(|limit| data.largest_texture() > limit);
            skin = Some((data, layout));
        }
        if self.skin_too_large {
            let (mut positions, mut normals) = (Vec::new(), Vec::new());
            evaluator
                .skin_job()
                .skin_all_into(&mut positions, &mut normals);
            self.upload_deformed(0, &positions, &normals);
            return;
        }
        if self.holds_deformed {
            uploads.push(self.rest_patch(model));
        }
        if let Some((data, layout)) = skin {
            uploads.push(Upload::Skin(data));
            self.skin_layout = Some(layout);
        }
        uploads.push(Upload::SkinPose(Some(SkinPose::of(evaluator))));
        self.skin_posed = true;
        self.queue(uploads);
    }

    /// The model's own positions and normals for every vertex, over deformed ones.
    fn rest_patch(&mut self, model: &Model) -> Upload {
        let positions: Vec<glam::Vec3> = model.vertices.iter().map(|v| v.position.into()).collect();
        let normals: Vec<glam::Vec3> = model.vertices.iter().map(|v| v.normal.into()).collect();
        self.holds_deformed = false;
        deformed_patch(0, &positions, &normals)
    }

    /// Draws `model` at rest again after a pose: the GPU stops skinning, and vertices a pose
    /// deformed on the CPU go back to the model's. The skinning data stays for the next pose.
    pub fn show_rest(&mut self, model: &Model) {
        if self.holds_deformed {
            let patch = self.rest_patch(model);
            self.queue([patch]);
        }
        self.stop_skinning();
    }

    /// Draws the mesh as its vertex buffers hold it again (the model at rest, unless CPU-
    /// deformed vertices went up: [`ViewScene::show_rest`] puts those back): the GPU stops
    /// skinning. The skinning data stays for the next pose.
    pub fn stop_skinning(&mut self) {
        if self.skin_posed {
            self.skin_posed = false;
            self.queue([Upload::SkinPose(None)]);
        }
    }

    /// Whether the GPU skins the mesh in a pose ([`ViewScene::upload_skin_pose`]).
    #[must_use]
    pub fn shows_skin_pose(&self) -> bool {
        self.skin_posed
    }

    /// Uploads the deformed positions and normals (model space) of `vertices` only: what a
    /// weight brush's step re-skinned on a posed model. `vertices` are sorted vertex indices,
    /// `positions` and `normals` their values, one each. Consecutive indices go up as one
    /// run; a caller that holds every vertex's values uploads fewer, longer runs with
    /// [`ViewScene::upload_deformed_spans`].
    pub fn upload_deformed_vertices(
        &self,
        vertices: &[u32],
        positions: &[glam::Vec3],
        normals: &[glam::Vec3],
    ) {
        let len = vertices.len().min(positions.len()).min(normals.len());
        let mut uploads = Vec::new();
        let mut start = 0;
        while start < len {
            let mut end = start + 1;
            while end < len && vertices[end] == vertices[end - 1].wrapping_add(1) {
                end += 1;
            }
            uploads.push(deformed_patch(
                vertices[start] as usize,
                &positions[start..end],
                &normals[start..end],
            ));
            start = end;
        }
        self.queue(uploads);
    }

    /// Uploads the deformed positions and normals (model space) of `vertices` (sorted vertex
    /// indices) from `positions` and `normals`, which hold every vertex (indexed by vertex, as
    /// the pose evaluator keeps them): runs a few vertices apart go up as one, gap included
    /// ([`coalesce_runs`]), so a scattered brush step is a bounded number of buffer writes.
    /// Indices past the arrays are skipped.
    pub fn upload_deformed_spans(
        &self,
        vertices: &[u32],
        positions: &[glam::Vec3],
        normals: &[glam::Vec3],
    ) {
        let len = positions.len().min(normals.len());
        let end = vertices.partition_point(|&v| (v as usize) < len);
        let uploads: Vec<Upload> = coalesce_runs(&vertices[..end], MAX_PATCH_RUNS)
            .into_iter()
            .map(|run| deformed_patch(run.start, &positions[run.clone()], &normals[run]))
            .collect();
        self.queue(uploads);
    }

    /// Whether the GPU holds the deformed positions and normals last uploaded
    /// ([`ViewScene::upload_deformed`]): false after the whole mesh went up again (a new
    /// model, a structural edit), when a pose must be uploaded whole again.
    #[must_use]
    pub fn holds_deformed(&self) -> bool {
        self.holds_deformed || self.skin_posed
    }

    /// Shows the UVs of a pose's UV morphs (`None`, or every UV morph at 0: the model's own
    /// UVs, exactly as a fresh load uploads them). Only the vertices the UV morphs can move go
    /// up, in at most [`MAX_PATCH_RUNS`] runs, and only when the UV morphs' weights changed
    /// since the last upload (a bone turned under a UV morph uploads nothing). The document is
    /// unchanged.
    pub fn show_posed_uvs(&mut self, model: &Model, posed: Option<PosedUvs<'_>>) {
        let count = model.vertices.len();
        let posed = posed
            .filter(|p| p.uvs.len() == count)
            .map(|p| (p, uv_morph_weights(model, p.weights)))
            .filter(|(_, weights)| weights.iter().any(|&w| w != 0.0));
        let uploads: Vec<Upload> = match posed {
            Some((posed, weights)) => {
                if self
                    .shown_uvs
                    .as_ref()
                    .is_some_and(|s| s.weights == weights)
                {
                    return;
                }
                let vertices =
                    &posed.vertices[..posed.vertices.partition_point(|&v| (v as usize) < count)];
                let runs = coalesce_runs(vertices, MAX_PATCH_RUNS);
                let uploads = uv_patches(runs, |v| posed.uvs[v].to_array()).collect();
                self.shown_uvs = Some(ShownUvs {
                    weights,
                    vertices: vertices.to_vec(),
                });
                uploads
            }
            None => {
                let Some(shown) = self.shown_uvs.take() else {
                    return;
                };
                let vertices =
                    &shown.vertices[..shown.vertices.partition_point(|&v| (v as usize) < count)];
                let runs = coalesce_runs(vertices, MAX_PATCH_RUNS);
                uv_patches(runs, |v| model.vertices[v].uv.to_array()).collect()
            }
        };
        self.queue(uploads);
    }

    /// Takes in the material morphs of a pose (`None`: none; else one state per material, as
    /// `pmx_core::pose::MorphEvaluator::materials` gives them): every frame's material values
    /// are the morphed ones from now on ([`ViewScene::material_morphs`]), and the frame
    /// already queued is changed too, so the pose fed after the pane queued it is drawn in
    /// this frame. Nothing is uploaded but a few numbers per material.
    pub fn set_material_morphs(&mut self, model: &Model, morphs: Option<&[MaterialMorphState]>) {
        self.material_morphs.clear();
        if let Some(morphs) = morphs.filter(|m| {
            m.len() == model.materials.len() && m.iter().any(|state| !state.is_identity())
        }) {
            self.material_morphs.extend_from_slice(morphs);
        }
        if let Ok(mut shared) = self.shared.lock()
            && let Some(frame) = &mut shared.frame
            && frame.materials.len() == model.materials.len()
        {
            for (index, (draw, material)) in
                frame.materials.iter_mut().zip(&model.materials).enumerate()
            {
                crate::frame::set_material_values(draw, material, self.material_morphs.get(index));
            }
        }
    }

    /// The material morphs each frame's material values take in (empty: none): pass them to
    /// [`crate::frame::posed_material_draws`].
    #[must_use]
    pub fn material_morphs(&self) -> &[MaterialMorphState] {
        &self.material_morphs
    }

    pub fn set_overlay(&self, geometry: crate::overlay::OverlayGeometry) {
        self.queue([Upload::Overlay(geometry)]);
    }

    /// The weight view's colour of every vertex (RGBA8, alpha unused; `None`: no weight
    /// view). A list that is not one colour per vertex of the uploaded mesh is ignored.
    pub fn set_weight_colors(&self, colors: Option<Vec<[u8; 4]>>) {
        self.queue([Upload::WeightColors(colors)]);
    }

    /// New weight-view colours of `vertices` (sorted vertex indices, one colour each), after
    /// [`ViewScene::set_weight_colors`] gave every vertex one: a brush step recolours only what
    /// it changed.
    pub fn patch_weight_colors(&self, vertices: Vec<u32>, colors: Vec<[u8; 4]>) {
        self.queue([Upload::WeightColorPatch { vertices, colors }]);
    }

    pub fn set_frame(&self, frame: Frame) {
        if let Ok(mut shared) = self.shared.lock() {
            shared.frame = Some(frame);
        }
    }

    /// Uploads queued and not yet applied by a paint (tests and the figures look at these).
    #[must_use]
    pub fn pending(&self) -> Vec<Upload> {
        self.shared
            .lock()
            .map(|s| s.pending.clone())
            .unwrap_or_default()
    }

    /// Drops what is queued (tests).
    pub fn clear_pending(&self) {
        if let Ok(mut shared) = self.shared.lock() {
            shared.pending.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmx_core::edit::EditOp;

    /// A document as the editor keeps one: a model and the log of what each edit touched.
    struct Document {
        model: Model,
        revision: u64,
        log: Vec<(u64, Touched)>,
    }

    impl SceneSource for Document {
        fn model(&self) -> &Model {
            &self.model
        }
        fn base_dir(&self) -> Option<&Path> {
            None
        }
        fn revision(&self) -> u64 {
            self.revision
        }
        fn changes_since(&self, revision: u64) -> Option<Vec<&Touched>> {
            Some(
                self.log
                    .iter()
                    .filter(|(r, _)| *r > revision)
                    .map(|(_, t)| t)
                    .collect(),
            )
        }
    }

    impl Document {
        fn apply(&mut self, mut edit: pmx_core::edit::Edit) {
            let touched = edit.apply(&mut self.model);
            self.revision += 1;
            self.log.push((self.revision, touched));
        }
    }

    fn document() -> Document {
        let model = pmx_core::generate::feature_model(
            pmx_core::model::PmxVersion::V2_0,
            pmx_core::model::TextEncoding::Utf16,
            200,
            2,
        );
        Document {
            model,
            revision: 0,
            log: Vec::new(),
        }
    }

    #[test]
    fn a_spread_move_uploads_its_vertices_not_the_range_between_them() {
        // 66 vertices 300 apart: more runs than an edit's ranges keep (they collapse into one
        // covering range of 19,501 vertices); the uploads follow the edit's exact list.
        let mut document = Document {
            model: pmx_core::generate::feature_model(
                pmx_core::model::PmxVersion::V2_0,
                pmx_core::model::TextEncoding::Utf16,
                20_000,
                2,
            ),
            revision: 0,
            log: Vec::new(),
        };
        let mut scene = ViewScene::default();
        assert!(scene.sync(&document, 1));
        scene.clear_pending();
        let moved: Vec<usize> = (0..66).map(|i| i * 300 + 5).collect();
        let ops: Vec<EditOp> = serde_json::from_value(serde_json::json!([
            {"op": "set", "kind": "vertex", "indices": moved, "field": "position.y", "value": 7.0}
        ]))
        .expect("ops");
        let edit = pmx_core::edit::ops_to_edit(&mut document.model, &ops).expect("edit");
        document.apply(edit);
        assert!(scene.sync(&document, 1));
        assert_eq!(scene.last_sync, SyncKind::Partial { vertices: 66 });
        let mut uploaded = Vec::new();
        for upload in scene.pending() {
            match upload {
                Upload::Vertices(VertexPatch::Positions { first, positions }) => {
                    for (k, position) in positions.iter().enumerate() {
                        let model_position = document.model.vertices[first + k].position;
                        assert_eq!(
                            *position,
                            crate::camera::to_world(model_position).to_array()
                        );
                        uploaded.push(first + k);
                    }
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        assert_eq!(uploaded, moved);
    }

    #[test]
    fn vertex_edits_upload_only_their_range() {
        let mut document = document();
        let mut scene = ViewScene::default();
        assert!(scene.sync(&document, 1));
        assert_eq!(scene.last_sync, SyncKind::Full);
        assert!(matches!(scene.pending().first(), Some(Upload::Mesh(_))));
        scene.clear_pending();
        assert!(!scene.sync(&document, 1));
        let ops: Vec<EditOp> = serde_json::from_value(serde_json::json!([
            {"op": "set", "kind": "vertex", "indices": [10, 11, 12], "field": "position.y", "value": 5.0}
        ]))
        .expect("ops");
        let edit = pmx_core::edit::ops_to_edit(&mut document.model, &ops).expect("edit");
        document.apply(edit);
        assert!(scene.sync(&document, 1));
        assert_eq!(scene.last_sync, SyncKind::Partial { vertices: 3 });
        let pending = scene.pending();
        assert_eq!(pending.len(), 1);
        // A move uploads the positions only.
        match &pending[0] {
            Upload::Vertices(VertexPatch::Positions { first, positions }) => {
                assert_eq!(*first, 10);
                assert_eq!(positions.len(), 3);
                assert_eq!(positions[0][1], 5.0);
            }
            other => panic!("unexpected {other:?}"),
        }
        // Any other vertex field uploads every attribute of the range.
        scene.clear_pending();
        let ops: Vec<EditOp> = serde_json::from_value(serde_json::json!([
            {"op": "set", "kind": "vertex", "indices": [20], "field": "uv.x", "value": 0.5}
        ]))
        .expect("ops");
        let edit = pmx_core::edit::ops_to_edit(&mut document.model, &ops).expect("edit");
        document.apply(edit);
        assert!(scene.sync(&document, 1));
        match &scene.pending()[0] {
            Upload::Vertices(VertexPatch::All { first, arrays }) => {
                assert_eq!(*first, 20);
                assert_eq!(arrays.len(), 1);
                assert_eq!(arrays.uvs[0][0], 0.5);
            }
            other => panic!("unexpected {other:?}"),
        }
        // Another document id rebuilds.
        scene.clear_pending();
        assert!(scene.sync(&document, 2));
        assert_eq!(scene.last_sync, SyncKind::Full);
    }

    #[test]
    fn a_pose_on_the_gpu_uploads_its_palette_and_weight_edits_patch_the_skin() {
        let mut document = document();
        let mut scene = ViewScene::default();
        scene.sync(&document, 1);
        scene.clear_pending();
        let mut pose = pmx_core::pose::Pose::new(&document.model);
        pose.bones[1].rotation = glam::Quat::from_rotation_z(0.5);
        let mut evaluator = pmx_core::pose::PoseEvaluator::new(&document.model);
        evaluator
            .evaluate_bones(&document.model, &pose)
            .expect("pose");
        // The first pose: the skinning data, then the palette; no vertex data.
        scene.upload_skin_pose(&document.model, &evaluator);
        let pending = scene.pending();
        assert_eq!(pending.len(), 2, "{pending:?}");
        assert!(matches!(&pending[0], Upload::Skin(data) if data.vertices.len() == 200));
        match &pending[1] {
            Upload::SkinPose(Some(pose)) => {
                assert_eq!(pose.bone_count(), document.model.bones.len());
                assert_eq!(pose.morph_weights.len(), document.model.morphs.len());
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(scene.holds_deformed() && scene.shows_skin_pose());
        // The next frames: the palette only.
        scene.clear_pending();
        scene.upload_skin_pose(&document.model, &evaluator);
        assert!(matches!(scene.pending()[..], [Upload::SkinPose(Some(_))]));
        scene.clear_pending();
        // A weight edit: the skinning data of its vertices only.
        document.revision += 1;
        let touched = Touched {
            values: vec![pmx_core::edit::TouchedRange {
                target: EditTarget::Vertex,
                start: 4,
                end: 6,
            }],
            vertex_weights_only: true,
            weighted_vertices: vec![4, 5],
            ..Touched::default()
        };
        document.log.push((document.revision, touched));
        scene.sync(&document, 1);
        match &scene.pending()[..] {
            [Upload::SkinPatch(patch)] => {
                assert_eq!(patch.first, 4);
                assert_eq!(patch.vertices.len(), 2);
            }
            other => panic!("unexpected {other:?}"),
        }
        scene.clear_pending();
        // An edit of a morph's offsets: the skinning data again, whole.
        let ops: Vec<EditOp> = serde_json::from_value(serde_json::json!([
            {"op": "set", "kind": "morph", "indices": [0], "field": "name_en", "value": "renamed"}
        ]))
        .expect("ops");
        let edit = pmx_core::edit::ops_to_edit(&mut document.model, &ops).expect("edit");
        document.apply(edit);
        scene.sync(&document, 1);
        assert!(scene.pending().iter().any(|u| matches!(u, Upload::Skin(_))));
        scene.clear_pending();
        // Back at rest: the GPU stops skinning, once.
        scene.stop_skinning();
        scene.stop_skinning();
        assert!(matches!(scene.pending()[..], [Upload::SkinPose(None)]));
        assert!(!scene.holds_deformed());
        // A CPU-deformed pose turns the GPU's skinning off; the GPU's again puts the buffers
        // back at rest first.
        scene.clear_pending();
        scene.upload_skin_pose(&document.model, &evaluator);
        scene.clear_pending();
        evaluator.evaluate(&document.model, &pose).expect("pose");
        scene.upload_deformed(0, evaluator.positions(), evaluator.normals());
        assert!(matches!(
            scene.pending()[..],
            [
                Upload::SkinPose(None),
                Upload::Vertices(VertexPatch::Deformed { .. })
            ]
        ));
        scene.clear_pending();
        scene.upload_skin_pose(&document.model, &evaluator);
        match &scene.pending()[..] {
            [
                Upload::Vertices(VertexPatch::Deformed { positions, .. }),
                Upload::SkinPose(Some(_)),
            ] => {
                let rest = crate::camera::to_world(document.model.vertices[7].position);
                assert_eq!(positions[7], rest.to_array());
            }
            other => panic!("unexpected {other:?}"),
        }
        // A whole mesh drops the skinning data: the next pose sends it again.
        scene.invalidate();
        scene.sync(&document, 1);
        scene.clear_pending();
        assert!(!scene.holds_deformed());
        scene.upload_skin_pose(&document.model, &evaluator);
        assert!(matches!(scene.pending().first(), Some(Upload::Skin(_))));
    }

    #[test]
    fn a_weight_edit_uploads_no_mesh() {
        let mut document = document();
        let mut scene = ViewScene::default();
        scene.sync(&document, 1);
        scene.clear_pending();
        // What a weight brush's step reports.
        document.revision += 1;
        let range = |start, end| pmx_core::edit::TouchedRange {
            target: EditTarget::Vertex,
            start,
            end,
        };
        let touched = Touched {
            values: vec![range(4, 6), range(30, 31)],
            vertex_weights_only: true,
            weighted_vertices: vec![4, 5, 30],
            ..Touched::default()
        };
        document.log.push((document.revision, touched));
        assert!(scene.sync(&document, 1));
        assert_eq!(scene.last_sync, SyncKind::Partial { vertices: 0 });
        assert!(scene.pending().is_empty(), "{:?}", scene.pending());
    }

    #[test]
    fn runs_join_across_the_smallest_gaps() {
        assert_eq!(coalesce_runs(&[], 4), Vec::<Range<usize>>::new());
        assert_eq!(coalesce_runs(&[3, 4, 5, 9, 10], 4), vec![3..6, 9..11]);
        // Gaps 1, 10 and 3: with two runs allowed the widest gap stays.
        assert_eq!(coalesce_runs(&[0, 2, 13, 17, 18], 2), vec![0..3, 13..19]);
        assert_eq!(coalesce_runs(&[0, 2, 13, 17, 18], 1), vec![0..19]);
        // Repeated indices count once.
        assert_eq!(coalesce_runs(&[1, 1, 2], 8), vec![1..3]);
    }

    #[test]
    fn deformed_vertices_go_up_in_runs() {
        // Every vertex's values (spans across gaps), then exactly the changed ones.
        let mut scene = ViewScene::default();
        let positions: Vec<glam::Vec3> = (0..1000)
            .map(|i| glam::Vec3::new(i as f32, 1.0, 2.0))
            .collect();
        let normals: Vec<glam::Vec3> = (0..1000)
            .map(|i| glam::Vec3::new(0.0, i as f32, 1.0))
            .collect();
        // Two runs, then many scattered vertices, then one past the end (skipped).
        let mut vertices: Vec<u32> = vec![10, 11, 12, 500];
        vertices.extend((600..990).step_by(3));
        vertices.push(5000);
        scene.upload_deformed_spans(&vertices, &positions, &normals);
        let pending = scene.pending();
        assert!(pending.len() <= MAX_PATCH_RUNS, "{} runs", pending.len());
        let mut covered = Vec::new();
        for upload in &pending {
            let Upload::Vertices(VertexPatch::Deformed {
                first,
                positions: p,
                normals: n,
            }) = upload
            else {
                panic!("unexpected {upload:?}");
            };
            assert_eq!(p.len(), n.len());
            for (offset, (p, n)) in p.iter().zip(n).enumerate() {
                let v = first + offset;
                // World space: Z mirrored.
                assert_eq!(*p, [v as f32, 1.0, -2.0]);
                assert_eq!(*n, [0.0, v as f32, -1.0]);
                covered.push(v as u32);
            }
        }
        for v in &vertices[..vertices.len() - 1] {
            assert!(covered.contains(v), "vertex {v} not uploaded");
        }
        match &pending[0] {
            Upload::Vertices(VertexPatch::Deformed {
                first, positions, ..
            }) => {
                assert_eq!((*first, positions.len()), (10, 3));
            }
            other => panic!("unexpected {other:?}"),
        }
        // The values of exactly those vertices: consecutive ones as one run.
        scene.clear_pending();
        let values = |list: &[glam::Vec3]| -> Vec<glam::Vec3> {
            vertices.iter().map(|&v| list[v as usize % 1000]).collect()
        };
        let exact = &vertices[..vertices.len() - 1];
        scene.upload_deformed_vertices(exact, &values(&positions), &values(&normals));
        let pending = scene.pending();
        assert_eq!(pending.len(), 2 + (600..990).step_by(3).count());
        let mut sent = Vec::new();
        for upload in &pending {
            let Upload::Vertices(VertexPatch::Deformed {
                first,
                positions: p,
                normals: n,
            }) = upload
            else {
                panic!("unexpected {upload:?}");
            };
            for (offset, (p, n)) in p.iter().zip(n).enumerate() {
                let v = first + offset;
                assert_eq!((*p, *n), ([v as f32, 1.0, -2.0], [0.0, v as f32, -1.0]));
                sent.push(v as u32);
            }
        }
        assert_eq!(sent, exact);
        // A whole-mesh upload at rest drops the deformed state; a pose upload brings it back.
        assert!(!scene.holds_deformed());
        scene.upload_deformed(0, &positions, &normals);
        assert!(scene.holds_deformed());
        scene.sync(&document(), 1);
        assert!(!scene.holds_deformed());
    }

    #[test]
    fn a_texture_edited_with_a_structural_edit_is_loaded_again() {
        // One step (a script's batch) that sets a texture's path and deletes a material: the
        // mesh is rebuilt and that texture loaded again, as a fresh load would show it.
        let mut document = document();
        assert!(document.model.textures.len() > 1 && document.model.materials.len() > 1);
        let mut scene = ViewScene::default();
        scene.sync(&document, 1);
        scene.clear_pending();
        let ops: Vec<EditOp> = serde_json::from_value(serde_json::json!([
            {"op": "set", "kind": "texture", "indices": [1], "field": "path", "value": "other.png"},
            {"op": "delete", "kind": "material", "indices": [0]}
        ]))
        .expect("ops");
        let edit = pmx_core::edit::ops_to_edit(&mut document.model, &ops).expect("edit");
        document.apply(edit);
        assert!(scene.sync(&document, 1));
        assert_eq!(scene.last_sync, SyncKind::Full);
        let pending = scene.pending();
        assert!(matches!(pending.first(), Some(Upload::Mesh(_))));
        assert!(
            pending
                .iter()
                .any(|u| matches!(u, Upload::Texture { index: 1, .. })),
            "texture 1 is not loaded again"
        );
        // Its problem is the new path's (the document has no folder: nothing is found).
        assert!(
            scene
                .texture_problems
                .iter()
                .any(|p| p.name() == "other.png"),
            "{:?}",
            scene.texture_problems
        );
    }

    /// A UV morph on `vertices` (offset (0.25, -0.5) each), added to `model`; its index.
    fn add_uv_morph(model: &mut Model, vertices: &[u32]) -> usize {
        use pmx_core::model::{Morph, MorphPanel, UvMorphOffset, Vec4, VertexIdx};
        model.morphs.push(Morph {
            name_ja: "UV".into(),
            name_en: "UV".into(),
            panel: MorphPanel::Other,
            offsets: MorphOffsets::Uv(
                vertices
                    .iter()
                    .map(|&v| UvMorphOffset {
                        vertex: VertexIdx(v),
                        offset: Vec4::new(0.25, -0.5, 0.0, 0.0),
                    })
                    .collect(),
            ),
        });
        model.morphs.len() - 1
    }

    /// The UV patches among `uploads`: (vertex, UV) of every vertex they write.
    fn uv_writes(uploads: &[Upload]) -> Vec<(usize, [f32; 2])> {
        uploads
            .iter()
            .flat_map(|upload| match upload {
                Upload::Vertices(VertexPatch::Uvs { first, uvs }) => uvs
                    .iter()
                    .enumerate()
                    .map(|(i, uv)| (first + i, *uv))
                    .collect::<Vec<_>>(),
                other => panic!("unexpected {other:?}"),
            })
            .collect()
    }

    #[test]
    fn uv_morphs_upload_only_their_vertices_and_go_back_to_rest() {
        let mut document = document();
        // The feature model's own UV morphs move every vertex: only this test's one is kept.
        for morph in &mut document.model.morphs {
            if let MorphOffsets::Uv(list) = &mut morph.offsets {
                list.clear();
            }
        }
        let moved = [5u32, 6, 150];
        let morph = add_uv_morph(&mut document.model, &moved);
        let model = &document.model;
        let mut scene = ViewScene::default();
        scene.sync(&document, 1);
        scene.clear_pending();
        let mut evaluator = pmx_core::pose::PoseEvaluator::new(model);
        let mut pose = pmx_core::pose::Pose::new(model);
        let mut show = |scene: &mut ViewScene, value: Option<f32>| {
            scene.clear_pending();
            if let Some(value) = value {
                pose.set_morph(pmx_core::model::MorphIdx::new(morph), value);
                evaluator.evaluate(model, &pose).expect("evaluate");
            }
            scene.show_posed_uvs(
                model,
                value.map(|_| PosedUvs {
                    uvs: evaluator.uvs(),
                    vertices: evaluator.morphs.uv_morphed_vertices(),
                    weights: evaluator.morphs.offset_morph_weights(),
                }),
            );
            uv_writes(&scene.pending())
        };
        let rest = |v: usize| model.vertices[v].uv.to_array();
        // At 1: the moved vertices (and at most the few between them in one run) go up.
        let writes = show(&mut scene, Some(1.0));
        assert!(writes.len() < 10, "{} UVs uploaded", writes.len());
        for &v in &moved {
            let (_, uv) = writes
                .iter()
                .find(|(w, _)| *w == v as usize)
                .expect("moved");
            let [u, w] = rest(v as usize);
            assert_eq!(*uv, [u + 0.25, w - 0.5]);
        }
        for (v, uv) in &writes {
            if !moved.contains(&(*v as u32)) {
                assert_eq!(*uv, rest(*v), "vertex {v} is not moved");
            }
        }
        // The same weights again (a bone turned): nothing goes up.
        assert!(show(&mut scene, Some(1.0)).is_empty());
        let writes = show(&mut scene, Some(0.5));
        let (_, uv) = writes.iter().find(|(w, _)| *w == 150).expect("moved");
        assert_eq!(*uv, [rest(150)[0] + 0.125, rest(150)[1] - 0.25]);
        // Back to 0 (or no pose): exactly the model's UVs of the same vertices, once.
        let writes = show(&mut scene, Some(0.0));
        assert!(writes.iter().all(|(v, uv)| *uv == rest(*v)));
        assert!(
            moved
                .iter()
                .all(|&m| writes.iter().any(|(v, _)| *v == m as usize))
        );
        assert!(show(&mut scene, Some(0.0)).is_empty());
        assert!(show(&mut scene, None).is_empty());
        // A whole mesh went up (at rest UVs): the pose's UVs go up again.
        assert!(!show(&mut scene, Some(1.0)).is_empty());
        scene.sync(&document, 2);
        assert!(!show(&mut scene, Some(1.0)).is_empty());
        let writes = show(&mut scene, None);
        assert!(writes.iter().all(|(v, uv)| *uv == rest(*v)) && !writes.is_empty());
    }

    #[test]
    fn material_morphs_change_the_queued_frame_and_go_back_to_rest() {
        use pmx_core::model::{MaterialIdx, MaterialMorphOffset, MaterialMorphOp, Vec3, Vec4};
        use pmx_core::pose::MaterialMorphState;
        let document = document();
        let model = &document.model;
        let mut scene = ViewScene::default();
        scene.sync(&document, 1);
        let rest = crate::frame::material_draws(model, |_| false);
        scene.set_frame(Frame {
            view: glam::Mat4::IDENTITY,
            view_projection: glam::Mat4::IDENTITY,
            eye: glam::Vec3::ZERO,
            pixel_factor: 1.0,
            light_direction: crate::frame::LIGHT_DIRECTION,
            light_color: crate::frame::LIGHT_COLOR,
            background: crate::frame::BACKGROUND,
            materials: rest.clone(),
            layers: crate::frame::Layers {
                model: true,
                edges: true,
                wireframe: false,
                vertices: false,
                weights: false,
            },
        });
        let queued = |scene: &ViewScene| {
            scene
                .shared
                .lock()
                .expect("lock")
                .frame
                .as_ref()
                .expect("frame")
                .materials
                .clone()
        };
        // Material 1 at multiply (0.5, 1, 1, 0) by a morph at 1: its diffuse alpha reaches 0.
        let mut morphs = vec![MaterialMorphState::default(); model.materials.len()];
        let fade = MaterialMorphOffset {
            material: Some(MaterialIdx::new(1)),
            op: MaterialMorphOp::Multiply,
            diffuse: Vec4::new(0.5, 1.0, 1.0, 0.0),
            specular: Vec3::new(1.0, 1.0, 1.0),
            specular_power: 1.0,
            ambient: Vec3::new(1.0, 1.0, 1.0),
            edge_color: Vec4::new(1.0, 1.0, 1.0, 1.0),
            edge_size: 2.0,
            texture_tint: Vec4::new(1.0, 0.5, 1.0, 1.0),
            sphere_tint: Vec4::new(1.0, 1.0, 1.0, 1.0),
            toon_tint: Vec4::new(1.0, 1.0, 1.0, 1.0),
        };
        let mut one = pmx_core::model::Model::new_empty();
        one.materials = model.materials.clone();
        one.morphs.push(pmx_core::model::Morph {
            name_ja: "fade".into(),
            name_en: "fade".into(),
            panel: pmx_core::model::MorphPanel::Other,
            offsets: MorphOffsets::Material(vec![fade]),
        });
        let mut evaluator = pmx_core::pose::MorphEvaluator::new(&one);
        let mut skeleton = pmx_core::pose::Skeleton::new(&one);
        evaluator.evaluate(&one, &[1.0], &mut skeleton);
        morphs.copy_from_slice(evaluator.materials());
        scene.set_material_morphs(model, Some(&morphs));
        let drawn = queued(&scene);
        let material = &model.materials[1];
        assert_eq!(drawn[1].diffuse[0], material.diffuse.x * 0.5);
        assert!(!drawn[1].visible, "alpha 0 is not drawn");
        if material
            .draw_flags
            .contains(pmx_core::model::DrawFlags::EDGE)
        {
            assert_eq!(drawn[1].edge.map(|e| e.1), Some(material.edge_size * 2.0));
        }
        if drawn[1].texture.is_some() {
            assert_eq!(
                drawn[1].texture_tint.multiply,
                glam::Vec4::new(1.0, 0.5, 1.0, 1.0)
            );
        }
        // Every other material is drawn as at rest; the next frames take the morphs in too.
        for (i, (drawn, rest)) in drawn.iter().zip(&rest).enumerate() {
            if i != 1 {
                assert_eq!(drawn, rest);
            }
        }
        assert_eq!(
            crate::frame::posed_material_draws(model, |_| false, scene.material_morphs()),
            drawn
        );
        // Back to 0 (identity states) or no pose: exactly the rest values.
        evaluator.evaluate(&one, &[0.0], &mut skeleton);
        scene.set_material_morphs(model, Some(evaluator.materials()));
        assert!(scene.material_morphs().is_empty());
        assert_eq!(queued(&scene), rest);
        scene.set_material_morphs(model, Some(&morphs));
        scene.set_material_morphs(model, None);
        assert_eq!(queued(&scene), rest);
    }
}
