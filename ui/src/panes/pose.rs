//! The ポーズ (Pose) pane: pose mode. The user picks a bone and turns or moves it with numeric
//! fields (degrees), sets morphs with sliders grouped by panel, and resets the pose. The pose
//! lives here, never in the document: only "apply pose as rest" and "save pose as bone morph"
//! change the model, as undoable edits. The evaluated pose (skinned vertices, bone transforms)
//! is kept for the 3D preview to draw.

use crate::command::{BrowsePurpose, Command, Commands, EditCommand, EditRequest};
use crate::document::Document;
use crate::i18n::{Language, NameLanguage};
use crate::widgets::PaneCx;
use glam::Vec3;
use pmx_core::edit::{EditTarget, Touched};
use pmx_core::formats::{LoadOptions, vmd, vpd};
use pmx_core::model::facts::{euler_degrees_to_quat, quat_to_euler_degrees};
use pmx_core::model::{BoneFlags, BoneIdx, ElementKind, Model, MorphIdx, MorphPanel};
use pmx_core::pose::{ManipulationFrame, Pose, PoseEvaluator, Transform};
use pmx_scene::overlay::{LazyPosedVertices, PosedVertices};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

mod physics;
pub use physics::PhysicsPreview;

#[cfg(test)]
mod tests;

/// Rows of the bone list (virtualised: a model may have thousands of bones).
const BONE_ROW_HEIGHT: f32 = 20.0;

/// The pose being built in the pane, for one document.
#[derive(Default)]
pub struct PoseState {
    /// (document id, revision) the evaluator was built for; an edit of the model rebuilds it.
    built_for: Option<(u64, u64)>,
    /// The bone and morph structure revisions the pose's lists line up with.
    structure: (u64, u64),
    pub pose: Pose,
    /// What the numeric fields show per bone: Euler angles in degrees (Y, then X, then Z, as
    /// MikuMikuDance's bone panel turns them). Kept so a field does not jump when the
    /// quaternion's Euler decomposition differs from what the user typed.
    euler_degrees: Vec<Vec3>,
    evaluator: Option<PoseEvaluator>,
    /// The pose changed since the last evaluation.
    stale: bool,
    /// Counts evaluations (and returns to rest), for views that follow the pose.
    generation: u64,
    pub last_evaluation: Duration,
    bone_filter: String,
    morph_filter: String,
    /// Name of the bone morph "save pose as bone morph" creates.
    pub morph_name: String,
    /// The path field of the pose/motion row (VPD to load or save, VMD to load).
    pub file_path: String,
    /// A loaded VMD motion, bound to the model, and the frame shown.
    motion: Option<LoadedMotion>,
    /// The last file action's outcome (names the model lacks, errors), rendered when drawn.
    pub file_message: Option<FileReport>,
    /// The recent motions and poses the pane offers (the editor's settings keep them; it puts
    /// them here before the pane is drawn), most recent first.
    pub recent_files: Vec<PathBuf>,
    /// A motion or pose loaded since the editor last took it ([`PoseState::take_opened`]),
    /// for the recent list.
    opened: Option<PathBuf>,
    /// The live physics on the pose.
    pub physics: PhysicsPreview,
    /// The vertices weight edits re-skinned since the view last took them
    /// ([`PoseState::take_reskinned`]).
    reskinned: Option<Reskinned>,
    /// The posed vertices shared with the view, and the generation they are of
    /// ([`PoseState::share_posed_vertices`]).
    posed: Option<(u64, Arc<LazyPosedVertices>)>,
}

/// Vertices a weight edit re-skinned: the posed vertices of generation `to` differ from those
/// of generation `from` only at `vertices`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reskinned {
    pub from: u64,
    pub to: u64,
    /// Sorted, each once.
    pub vertices: Vec<u32>,
}

/// What a pose or motion file action did, as data: the pane renders it in the current
/// language, so switching the language re-renders it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileReport {
    /// A VPD pose or VMD motion was loaded: how many of its bone and morph names the model has
    /// (and the first few it lacks).
    Matched {
        bones_matched: usize,
        bones: usize,
        morphs_matched: usize,
        morphs: usize,
        missing: Vec<String>,
    },
    /// A VPD pose was written.
    Saved {
        bones: usize,
        morphs: usize,
        path: String,
    },
    /// Reading or writing failed (the reader's message).
    Failed(String),
}

impl FileReport {
    /// Names listed at most (the count says how many matched).
    const MAX_MISSING: usize = 8;

    /// The report in `lang`.
    #[must_use]
    pub fn text(&self, lang: Language) -> String {
        match self {
            FileReport::Matched {
                bones_matched,
                bones,
                morphs_matched,
                morphs,
                missing,
            } => {
                let matched = lang.format(
                    "pose.matched",
                    &[
                        ("bones_matched", bones_matched),
                        ("bones", bones),
                        ("morphs_matched", morphs_matched),
                        ("morphs", morphs),
                    ],
                );
                if missing.is_empty() {
                    matched
                } else {
                    let names = missing.join(lang.tr("edit.list_separator"));
                    matched
                        + lang
                            .format("pose.not_in_model", &[("names", &names)])
                            .as_str()
                }
            }
            FileReport::Saved {
                bones,
                morphs,
                path,
            } => lang.format(
                "pose.saved",
                &[("bones", bones), ("morphs", morphs), ("path", path)],
            ),
            FileReport::Failed(error) => lang.format("pose.file_failed", &[("error", error)]),
        }
    }
}

/// A motion bound to the model's bones and morphs by name.
struct LoadedMotion {
    motion: vmd::Motion,
    binding: vmd::Binding,
    name: String,
    pub frame: f32,
}

impl std::fmt::Debug for PoseState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoseState")
            .field("built_for", &self.built_for)
            .field("posed_bones", &self.posed_bones())
            .field("stale", &self.stale)
            .finish_non_exhaustive()
    }
}

impl PoseState {
    /// Keeps the state in step with the document: a new document or an edit rebuilds the
    /// evaluator; the pose survives edits that keep the bone and morph counts. Edits of
    /// weights only (a weight brush's steps, their undo and redo) keep the evaluator, the
    /// motion and the running physics: the evaluator re-skins the vertices they changed.
    pub fn sync(&mut self, document: &Document, document_id: u64) {
        let key = (document_id, document.revision());
        if self.built_for == Some(key) {
            return;
        }
        let changes = self
            .built_for
            .filter(|(id, _)| *id == document_id)
            .and_then(|(_, revision)| document.changes_since(revision));
        if self.follow_weight_edits(&document.model, key, changes.as_deref()) {
            return;
        }
        if self.follow_morph_edits(&document.model, key, changes.as_deref()) {
            return;
        }
        let model = &document.model;
        let structure = (
            document.structure_revision(ElementKind::Bone),
            document.structure_revision(ElementKind::Morph),
        );
        let same_document = self.built_for.is_some_and(|(id, _)| id == document_id);
        // Bones or morphs inserted, removed or reordered: their poses no longer line up.
        if !same_document
            || self.structure.0 != structure.0
            || self.pose.bones.len() != model.bones.len()
        {
            self.pose.bones = Pose::new(model).bones;
            self.euler_degrees = vec![Vec3::ZERO; model.bones.len()];
            // A motion is bound to bone and morph indices: bind it again.
            if let Some(loaded) = &mut self.motion {
                loaded.binding = loaded.motion.bind(model);
            }
        }
        if !same_document {
            self.motion = None;
            self.file_message = None;
        }
        if !same_document
            || self.structure.1 != structure.1
            || self.pose.morphs.len() != model.morphs.len()
        {
            self.pose.morphs = vec![0.0; model.morphs.len()];
        }
        // Built lazily when the pose is first evaluated: a model nobody poses costs nothing.
        self.evaluator = None;
        self.reskinned = None;
        // The physics world is the model's too: built again, starting over.
        self.physics.invalidate();
        self.pose.physics.clear();
        self.built_for = Some(key);
        self.structure = structure;
        self.stale = true;
    }

    /// Evaluates the pose if it changed: morphs and bones. The vertices are skinned on the
    /// GPU for the view and on the CPU only when something asks for them
    /// ([`PoseState::share_posed_vertices`]).
    pub fn evaluate(&mut self, model: &Model) {
        if !self.stale {
            return;
        }
        self.generation += 1;
        if self.pose.is_rest() && self.evaluator.is_none() {
            // Nothing to deform: a model nobody poses never pays for an evaluator.
            self.stale = false;
            return;
        }
        let started = Instant::now();
        let evaluator = self
            .evaluator
            .get_or_insert_with(|| PoseEvaluator::new(model));
        if evaluator.evaluate_bones(model, &self.pose).is_err() {
            // The model changed under the evaluator: build it again.
            *evaluator = PoseEvaluator::new(model);
            // A pose made for this model always fits a new evaluator of it.
            let _ = evaluator.evaluate_bones(model, &self.pose);
        }
        self.last_evaluation = started.elapsed();
        self.stale = false;
    }

    /// Follows `changes` (what the document changed since the evaluator's revision; `None`:
    /// unknown) to revision `key` if they are weight edits only. Returns false when something
    /// else changed, and then nothing was done.
    fn follow_weight_edits(
        &mut self,
        model: &Model,
        key: (u64, u64),
        changes: Option<&[&Touched]>,
    ) -> bool {
        let Some(vertices) = changes.and_then(weight_edit_vertices) else {
            return false;
        };
        if !self.take_weights(model, vertices) {
            return false;
        }
        self.built_for = Some(key);
        true
    }

    /// Follows `changes` to revision `key` if they changed morphs' values only (morph edit
    /// mode's drags, offsets typed in the モーフ tab): the evaluator takes the morphs again and
    /// keeps its skeleton and skinning data, the pose, the motion and the physics stay. Returns
    /// false when something else changed, and then nothing was done.
    fn follow_morph_edits(
        &mut self,
        model: &Model,
        key: (u64, u64),
        changes: Option<&[&Touched]>,
    ) -> bool {
        let only_morph_values = changes.is_some_and(|changes| {
            changes.iter().all(|touched| {
                !touched.structure_changed()
                    && touched
                        .values
                        .iter()
                        .all(|range| range.target == pmx_core::edit::EditTarget::Morph)
            })
        });
        if !only_morph_values {
            return false;
        }
        if let Some(evaluator) = &mut self.evaluator
            && evaluator.update_morphs(model).is_err()
        {
            return false;
        }
        self.reskinned = None;
        self.built_for = Some(key);
        self.stale = true;
        true
    }

    /// Takes in an edit of the weights of `vertices` (sorted) and nothing else: the
    /// evaluator re-skins them with the pose as evaluated, and the generation moves on with a
    /// note of what was re-skinned. Returns false when the evaluator does not fit the model
    /// (then the caller rebuilds).
    fn take_weights(&mut self, model: &Model, vertices: Vec<u32>) -> bool {
        let Some(evaluator) = &mut self.evaluator else {
            // Nothing evaluated yet: the evaluation to come reads the new weights.
            return true;
        };
        // The shared vertices of the pose before the edit are made now, from the weights
        // they were evaluated with: their job then lets go of the skinning data (which the
        // edit would otherwise copy whole), and the view's copy is patched at the edited
        // vertices only.
        if let Some((_, posed)) = &self.posed {
            posed.get();
        }
        if evaluator.update_weights(model, &vertices).is_err() {
            return false;
        }
        if self.stale {
            // An evaluation is due anyway and skins every vertex.
            return true;
        }
        let from = self.generation;
        self.generation += 1;
        match &mut self.reskinned {
            // Steps the view has not taken yet: one note of them all.
            Some(earlier) if earlier.to == from => {
                earlier.vertices.extend(vertices);
                earlier.vertices.sort_unstable();
                earlier.vertices.dedup();
                earlier.to = self.generation;
            }
            _ => {
                self.reskinned = Some(Reskinned {
                    from,
                    to: self.generation,
                    vertices,
                });
            }
        }
        true
    }

    /// What weight edits re-skinned since the view last asked, if that is all that changed
    /// since generation `from` of the posed vertices: the view patches those vertices instead
    /// of uploading all. `None`: anything may have changed. Taken once.
    pub fn take_reskinned(&mut self) -> Option<Reskinned> {
        self.reskinned
            .take()
            .filter(|reskinned| reskinned.to == self.generation)
    }

    /// The posed vertices (positions and normals, model space) of the current generation,
    /// shared with the view and skinned on the CPU when first asked for (`None` at rest or
    /// before an evaluation). Made once per generation, into the lists of the generation
    /// before when nothing else holds them (the view gives its share back first). After a
    /// weight edit (`reskinned`, from [`PoseState::take_reskinned`]) on lists already made,
    /// only the edited vertices are skinned into them, so a brush step on a million vertices
    /// skins a few thousand.
    pub fn share_posed_vertices(
        &mut self,
        reskinned: Option<&Reskinned>,
    ) -> Option<Arc<LazyPosedVertices>> {
        let generation = self.generation;
        let Some(evaluator) = self
            .evaluator
            .as_ref()
            .filter(|_| !self.stale && !self.pose.is_rest())
        else {
            self.posed = None;
            return None;
        };
        if let Some((made, shared)) = &self.posed
            && *made == generation
        {
            return Some(shared.clone());
        }
        let job = evaluator.skin_job();
        let earlier = self.posed.take().and_then(|(made, shared)| {
            Arc::try_unwrap(shared)
                .ok()
                .map(|posed| (made, posed.into_lists()))
        });
        let posed = match (earlier, reskinned) {
            (Some((made, (true, mut lists))), Some(reskinned))
                if reskinned.from == made
                    && reskinned.to == generation
                    && lists.positions.len() == job.vertex_count() =>
            {
                job.skin_vertices_in_place(
                    &reskinned.vertices,
                    &mut lists.positions,
                    &mut lists.normals,
                );
                LazyPosedVertices::made(lists)
            }
            (Some((_, (_, lists))), _) => LazyPosedVertices::new(job, lists),
            (None, _) => LazyPosedVertices::new(job, PosedVertices::default()),
        };
        let shared = Arc::new(posed);
        self.posed = Some((generation, shared.clone()));
        Some(shared)
    }

    /// Changes whenever the evaluated pose does.
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The posed vertex positions, once evaluated (skinned on the CPU now if nothing asked
    /// for them yet: see [`PoseState::share_posed_vertices`]).
    pub fn deformed_positions(&mut self) -> Option<&[Vec3]> {
        self.share_posed_vertices(None)?;
        self.posed
            .as_ref()
            .map(|(_, posed)| posed.get().positions.as_slice())
    }

    /// The evaluator of the current pose (bone transforms, morphs), once evaluated. Its own
    /// skinned vertices are not kept up: ask [`PoseState::share_posed_vertices`] for them.
    #[must_use]
    pub fn evaluated(&self) -> Option<&PoseEvaluator> {
        self.evaluator.as_ref().filter(|_| !self.stale)
    }

    /// Where the bones are in the pose the view shows: every bone's global transform (model
    /// space) from the evaluation the deformed mesh comes from, so with physics on it holds
    /// what the physics did to them too; `None` at rest. O(bones): a copy of the transforms,
    /// with the pose's generation.
    #[must_use]
    pub fn bone_placements(&self) -> Option<(u64, Arc<[Transform]>)> {
        let evaluator = self.evaluated().filter(|_| !self.pose.is_rest())?;
        Some((self.generation, evaluator.skeleton.globals().into()))
    }

    /// How many bones are turned or moved.
    #[must_use]
    pub fn posed_bones(&self) -> usize {
        self.pose.bones.iter().filter(|b| !b.is_rest()).count()
    }

    /// Sets a bone's rotation from Euler angles in degrees, within what the bone allows (a
    /// fixed axis keeps the turn about that axis).
    pub fn set_bone_rotation(&mut self, model: &Model, bone: usize, degrees: Vec3) {
        let (Some(slot), Some(data)) = (self.pose.bones.get_mut(bone), model.bones.get(bone))
        else {
            return;
        };
        let rotation = euler_degrees_to_quat(degrees.into());
        slot.rotation = ManipulationFrame::of(data).constrain_rotation(rotation);
        if let Some(shown) = self.euler_degrees.get_mut(bone) {
            *shown = degrees;
        }
        self.stale = true;
    }

    /// Sets a bone's translation (model units, in the parent's frame).
    pub fn set_bone_translation(&mut self, bone: usize, translation: Vec3) {
        if let Some(slot) = self.pose.bones.get_mut(bone) {
            slot.translation = translation;
            self.stale = true;
        }
    }

    pub fn set_morph(&mut self, morph: usize, value: f32) {
        self.pose.set_morph(MorphIdx::new(morph), value);
        self.stale = true;
    }

    /// Puts back a pose taken earlier from [`PoseState::pose`] (morph edit mode gives back the
    /// pose it replaced); one that no longer fits the model's bones and morphs resets the pose.
    pub fn restore(&mut self, pose: Pose) {
        if pose.bones.len() == self.pose.bones.len() && pose.morphs.len() == self.pose.morphs.len()
        {
            self.pose = pose;
            self.refresh_euler();
            self.stale = true;
        } else {
            self.reset();
        }
    }

    /// Back to the rest pose (every bone and morph; the physics starts over).
    pub fn reset(&mut self) {
        self.pose.reset();
        self.physics.request_reset();
        self.euler_degrees.iter_mut().for_each(|d| *d = Vec3::ZERO);
        self.stale = true;
    }

    /// The numeric fields follow rotations set from a file or a motion.
    fn refresh_euler(&mut self) {
        for (shown, bone) in self.euler_degrees.iter_mut().zip(&self.pose.bones) {
            *shown = quat_to_euler_degrees(bone.rotation).into();
        }
    }

    /// Loads a motion (`.vmd`) or, for any other name, a pose (`.vpd`), as the path field's
    /// buttons do: the path goes into the field, the outcome into the pane's report, and a
    /// file that loaded into the recent list ([`PoseState::take_opened`]).
    pub fn open_file(&mut self, model: &Model, path: &Path) {
        self.file_path = path.display().to_string();
        let is_motion = path
            .extension()
            .is_some_and(|extension| extension.eq_ignore_ascii_case("vmd"));
        let outcome = if is_motion {
            self.load_vmd(model, path)
        } else {
            self.load_vpd(model, path)
        };
        self.file_message = Some(outcome.unwrap_or_else(FileReport::Failed));
    }

    /// The motion or pose file loaded since the last call, once.
    pub fn take_opened(&mut self) -> Option<PathBuf> {
        self.opened.take()
    }

    /// The name of the motion shown, if one is loaded.
    #[must_use]
    pub fn motion_name(&self) -> Option<&str> {
        self.motion.as_ref().map(|loaded| loaded.name.as_str())
    }

    /// Loads a VPD pose file onto the pose (bones and morphs it names; others keep theirs).
    pub fn load_vpd(&mut self, model: &Model, path: &Path) -> Result<FileReport, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = vpd::read(&bytes, &LoadOptions::default())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let unmatched = file.apply_to(model, &mut self.pose);
        self.refresh_euler();
        self.stale = true;
        self.opened = Some(path.to_owned());
        Ok(matched_report(
            &unmatched.bones,
            &unmatched.morphs,
            file.bones.len(),
            file.morphs.len(),
        ))
    }

    /// Writes the pose as a VPD file (bones not at rest, morphs not 0).
    pub fn save_vpd(&self, model: &Model, path: &Path) -> Result<FileReport, String> {
        let model_file = model.info.name_ja.as_str().into_owned();
        let file = vpd::PoseFile::from_pose(model, &self.pose, &format!("{model_file}.osm"));
        let bytes = vpd::write(&file).map_err(|e| e.to_string())?;
        pmx_core::formats::write_atomic(path, &bytes)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(FileReport::Saved {
            bones: file.bones.len(),
            morphs: file.morphs.len(),
            path: path.display().to_string(),
        })
    }

    /// Loads a VMD motion and shows its frame 0.
    pub fn load_vmd(&mut self, model: &Model, path: &Path) -> Result<FileReport, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let motion = vmd::read(&bytes, &LoadOptions::default())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let binding = motion.bind(model);
        let text = matched_report(
            &binding.unmatched_bones,
            &binding.unmatched_morphs,
            motion.bone_tracks.len(),
            motion.morph_tracks.len(),
        );
        self.motion = Some(LoadedMotion {
            motion,
            binding,
            name: crate::document::file_name(path),
            frame: 0.0,
        });
        self.set_frame(0.0);
        self.opened = Some(path.to_owned());
        Ok(text)
    }

    /// Shows the loaded motion at `frame` (fractional frames interpolate).
    pub fn set_frame(&mut self, frame: f32) {
        if let Some(loaded) = &mut self.motion {
            loaded.frame = frame.max(0.0);
            loaded
                .motion
                .sample(&loaded.binding, loaded.frame, &mut self.pose);
            self.refresh_euler();
            self.stale = true;
        }
    }

    /// The loaded motion's last frame, if a motion is loaded.
    #[must_use]
    pub fn motion_last_frame(&self) -> Option<u32> {
        self.motion.as_ref().map(|m| m.motion.last_frame())
    }

    fn reset_bone(&mut self, bone: usize) {
        if let Some(slot) = self.pose.bones.get_mut(bone) {
            *slot = pmx_core::pose::BonePose::default();
        }
        if let Some(shown) = self.euler_degrees.get_mut(bone) {
            *shown = Vec3::ZERO;
        }
        self.stale = true;
    }

    /// The evaluator of the pose the view shows: evaluated and not at rest (what
    /// [`PoseState::share_posed_vertices`] shares the vertices of).
    fn shown_evaluation(&self) -> Option<&PoseEvaluator> {
        self.evaluator
            .as_ref()
            .filter(|_| !self.stale && !self.pose.is_rest())
    }

    /// The material morphs of the evaluated pose, one state per material (multiply and add
    /// sets, applied when drawn), for the 3D preview; `None` at rest or before an evaluation,
    /// like the posed vertices. The document is not changed.
    #[must_use]
    pub fn posed_material_morphs(&self) -> Option<&[pmx_core::pose::MaterialMorphState]> {
        self.shown_evaluation()
            .map(|evaluator| evaluator.morphs.materials())
    }

    /// The UVs of the evaluated pose's UV morphs, for the 3D preview: every vertex's UV, the
    /// vertices UV morphs can move and the morphs' weights; `None` at rest or before an
    /// evaluation, like the posed vertices.
    #[must_use]
    pub fn posed_uvs(&self) -> Option<pmx_scene::scene::PosedUvs<'_>> {
        self.shown_evaluation()
            .map(|evaluator| pmx_scene::scene::PosedUvs {
                uvs: evaluator.uvs(),
                vertices: evaluator.morphs.uv_morphed_vertices(),
                weights: evaluator.morphs.offset_morph_weights(),
            })
    }
}

/// The vertices whose weights `changes` changed, sorted, when weights are all they changed
/// (`None`: anything else changed, or no change says which vertices, so the evaluator is
/// built again). An undo or redo of a weight edit reports the same way.
fn weight_edit_vertices(changes: &[&Touched]) -> Option<Vec<u32>> {
    if changes.is_empty() {
        return None;
    }
    let weights_only = |touched: &&Touched| {
        touched.vertex_weights_only
            && !touched.structure_changed()
            // A report without the list cannot say which vertices to re-skin.
            && (!touched.weighted_vertices.is_empty() || !touched.touches(EditTarget::Vertex))
            && touched.values.iter().all(|r| r.target == EditTarget::Vertex)
    };
    if !changes.iter().all(weights_only) {
        return None;
    }
    let mut vertices: Vec<u32> = changes
        .iter()
        .flat_map(|touched| touched.weighted_vertices.iter().copied())
        .collect();
    vertices.sort_unstable();
    vertices.dedup();
    Some(vertices)
}

/// The pane: tools on top, the bone list and the selected bone's fields on the left, the morph
/// sliders by panel on the right.
pub fn pose_pane_ui(ui: &mut egui::Ui, state: &mut PoseState, cx: &mut PaneCx<'_>) {
    let (lang, names, document_id) = (cx.lang, cx.names, cx.document_id);
    let document = &mut *cx.document;
    let commands = &mut *cx.commands;
    state.sync(document, document_id);
    tools_ui(ui, lang, state, commands);
    physics::physics_ui(ui, lang, state, document);
    files_ui(ui, lang, state, &document.model, commands);
    ui.separator();
    let height = ui.available_height();
    ui.columns(2, |columns| {
        columns[0].set_min_height(height);
        bones_ui(&mut columns[0], lang, names, state, document);
        morphs_ui(&mut columns[1], lang, names, state, &document.model);
    });
    state.evaluate(&document.model);
}

fn tools_ui(ui: &mut egui::Ui, lang: Language, state: &mut PoseState, commands: &mut Commands) {
    ui.horizontal_wrapped(|ui| {
        if ui.button(lang.tr("pose.reset")).clicked() {
            state.reset();
        }
        let posed = !state.pose.is_rest();
        if ui
            .add_enabled(posed, egui::Button::new(lang.tr("pose.apply_as_rest")))
            .on_hover_text(lang.tr("pose.apply_as_rest_hint"))
            .clicked()
        {
            commands.push(Command::Edit(EditCommand {
                request: EditRequest::PoseAsRest(state.pose.clone()),
                gesture: None,
                select_created: false,
            }));
            state.reset();
        }
        ui.separator();
        ui.label(lang.tr("pose.morph_name"));
        ui.add(egui::TextEdit::singleline(&mut state.morph_name).desired_width(120.0))
            .accessible_name(lang.tr("pose.morph_name"));
        let any_bone = state.posed_bones() > 0;
        if ui
            .add_enabled(
                any_bone && !state.morph_name.trim().is_empty(),
                egui::Button::new(lang.tr("pose.save_as_bone_morph")),
            )
            .clicked()
        {
            commands.push(Command::Edit(EditCommand {
                request: EditRequest::PoseAsBoneMorph {
                    pose: state.pose.clone(),
                    name: state.morph_name.trim().to_owned(),
                },
                gesture: None,
                select_created: false,
            }));
        }
        ui.separator();
        let status = lang.format(
            "pose.status",
            &[
                ("bones", &state.posed_bones()),
                (
                    "ms",
                    &format!("{:.1}", state.last_evaluation.as_secs_f64() * 1e3),
                ),
            ],
        );
        // Whole on the next row when the row is full, not broken after its first word.
        ui.add(
            egui::Label::new(egui::RichText::new(status).weak())
                .wrap_mode(egui::TextWrapMode::Extend),
        );
    });
}

/// VPD load/save, VMD load (the path typed, or chosen in the native dialog or the recent
/// list) and the motion's frame slider.
fn files_ui(
    ui: &mut egui::Ui,
    lang: Language,
    state: &mut PoseState,
    model: &Model,
    commands: &mut Commands,
) {
    ui.horizontal_wrapped(|ui| {
        ui.label(lang.tr("pose.file"));
        ui.add(
            egui::TextEdit::singleline(&mut state.file_path)
                .hint_text("pose.vpd / motion.vmd")
                .desired_width(260.0),
        )
        .accessible_name(lang.tr("pose.file"));
        // The native dialog's answer comes back through the editor, which loads the file
        // (`EditorState::browse_finished`); the path field stays for systems without one.
        if ui.button(lang.tr("dialog.browse")).clicked() {
            commands.push(Command::Browse {
                purpose: BrowsePurpose::Pose,
                suggested: None,
            });
        }
        let recent = ui.menu_button(lang.tr("pose.recent"), |ui| {
            crate::widgets::recent_files_ui(ui, lang, &state.recent_files)
        });
        if let Some(path) = recent.inner.flatten() {
            state.open_file(model, &path);
        }
        let path = std::path::PathBuf::from(state.file_path.trim());
        let has_path = !state.file_path.trim().is_empty();
        let mut outcome = None;
        if ui
            .add_enabled(has_path, egui::Button::new(lang.tr("pose.load_vpd")))
            .clicked()
        {
            outcome = Some(state.load_vpd(model, &path));
        }
        if ui
            .add_enabled(has_path, egui::Button::new(lang.tr("pose.save_vpd")))
            .clicked()
        {
            outcome = Some(state.save_vpd(model, &path));
        }
        if ui
            .add_enabled(has_path, egui::Button::new(lang.tr("pose.load_vmd")))
            .clicked()
        {
            outcome = Some(state.load_vmd(model, &path));
        }
        if let Some(outcome) = outcome {
            state.file_message = Some(outcome.unwrap_or_else(FileReport::Failed));
        }
        if let Some(report) = &state.file_message {
            ui.weak(report.text(lang));
        }
    });
    let Some((name, last, mut frame)) = state
        .motion
        .as_ref()
        .map(|m| (m.name.clone(), m.motion.last_frame(), m.frame))
    else {
        return;
    };
    ui.horizontal(|ui| {
        ui.label(lang.format("pose.motion", &[("name", &name)]));
        let slider = egui::Slider::new(&mut frame, 0.0..=last.max(1) as f32)
            .step_by(1.0)
            .text(lang.tr("pose.frame"));
        if ui
            .add(slider)
            .accessible_name(lang.tr("pose.frame"))
            .changed()
        {
            state.scrub_to(model, frame);
        }
        if ui.button(lang.tr("pose.close_motion")).clicked() {
            state.motion = None;
        }
    });
}

/// How many of a file's bone and morph names matched ("12 / 14 bones, 3 / 3 morphs matched;
/// not in the model: 左足IK, まばたき" when rendered).
fn matched_report(
    bones: &[String],
    morphs: &[String],
    bone_count: usize,
    morph_count: usize,
) -> FileReport {
    FileReport::Matched {
        bones_matched: bone_count - bones.len().min(bone_count),
        bones: bone_count,
        morphs_matched: morph_count - morphs.len().min(morph_count),
        morphs: morph_count,
        missing: bones
            .iter()
            .chain(morphs)
            .take(FileReport::MAX_MISSING)
            .cloned()
            .collect(),
    }
}

fn bones_ui(
    ui: &mut egui::Ui,
    lang: Language,
    names: NameLanguage,
    state: &mut PoseState,
    document: &mut Document,
) {
    let model = &document.model;
    ui.horizontal(|ui| {
        ui.label(lang.tr("pose.bones"));
        ui.add(
            egui::TextEdit::singleline(&mut state.bone_filter)
                .hint_text(lang.tr("pose.find"))
                .desired_width(140.0),
        )
        .accessible_name(lang.tr("pose.find_bone"));
    });
    let rows = bones_found(model, &state.bone_filter);
    let current = document.selection.get(ElementKind::Bone).current;
    let mut clicked = None;
    let list_height = (ui.available_height() * 0.45).max(120.0);
    egui::ScrollArea::vertical()
        .id_salt("pose_bones")
        .max_height(list_height)
        .auto_shrink([false, false])
        .show_rows(ui, BONE_ROW_HEIGHT, rows.len(), |ui, range| {
            for &b in &rows[range] {
                let bone = &model.bones[b];
                let posed = state.pose.bones.get(b).is_some_and(|p| !p.is_rest());
                let name = display_name(names, &bone.name_ja, &bone.name_en);
                let text = format!("{b:>4}  {}{name}", if posed { "● " } else { "" });
                if ui
                    .selectable_label(current == Some(b), egui::RichText::new(text))
                    .clicked()
                {
                    clicked = Some(b);
                }
            }
        });
    if let Some(b) = clicked {
        document.selection.get_mut(ElementKind::Bone).select_only(b);
    }
    ui.separator();
    let Some(b) = document
        .selection
        .get(ElementKind::Bone)
        .current
        .filter(|&b| b < document.model.bones.len())
    else {
        ui.weak(lang.tr("pose.pick_a_bone"));
        return;
    };
    bone_fields_ui(ui, lang, names, state, &document.model, b);
}

/// The bones the search `query` finds: those whose Japanese or English name contains it, and
/// when it is a number, the bone of that index too (first), as the tables' index column reads.
fn bones_found(model: &Model, query: &str) -> Vec<usize> {
    let filter = query.trim().to_lowercase();
    let index = filter
        .parse::<usize>()
        .ok()
        .filter(|&b| b < model.bones.len());
    let by_name = (0..model.bones.len()).filter(|&b| {
        let bone = &model.bones[b];
        Some(b) != index
            && (filter.is_empty()
                || bone.name_ja.as_str().to_lowercase().contains(&filter)
                || bone.name_en.as_str().to_lowercase().contains(&filter))
    });
    index.into_iter().chain(by_name).collect()
}

fn bone_fields_ui(
    ui: &mut egui::Ui,
    lang: Language,
    names: NameLanguage,
    state: &mut PoseState,
    model: &Model,
    b: usize,
) {
    let bone = &model.bones[b];
    ui.strong(format!(
        "{b}: {}",
        display_name(names, &bone.name_ja, &bone.name_en)
    ));
    let mut degrees = state.euler_degrees.get(b).copied().unwrap_or_default();
    let mut translation = state
        .pose
        .bones
        .get(b)
        .map(|p| p.translation)
        .unwrap_or_default();
    let rotatable = bone.flags.contains(BoneFlags::ROTATABLE);
    let movable = bone.flags.contains(BoneFlags::MOVABLE);
    egui::Grid::new("pose_bone_fields")
        .num_columns(4)
        .spacing([8.0, 4.0])
        .show(ui, |ui| {
            ui.label(lang.tr("pose.rotation"));
            let mut changed = false;
            for (axis, value) in [
                ("X", &mut degrees.x),
                ("Y", &mut degrees.y),
                ("Z", &mut degrees.z),
            ] {
                changed |= ui
                    .add_enabled(
                        rotatable,
                        egui::DragValue::new(value)
                            .speed(0.5)
                            .range(-180.0..=180.0)
                            .suffix("°")
                            .max_decimals(2),
                    )
                    .on_hover_text(axis)
                    .accessible_name(format!("{} {axis}", lang.tr("pose.rotation")))
                    .changed();
            }
            if changed {
                state.set_bone_rotation(model, b, degrees);
            }
            ui.end_row();
            ui.label(lang.tr("pose.translation"));
            let mut changed = false;
            for (axis, value) in [
                ("X", &mut translation.x),
                ("Y", &mut translation.y),
                ("Z", &mut translation.z),
            ] {
                changed |= ui
                    .add_enabled(
                        movable,
                        egui::DragValue::new(value).speed(0.01).max_decimals(3),
                    )
                    .accessible_name(format!("{} {axis}", lang.tr("pose.translation")))
                    .changed();
            }
            if changed {
                state.set_bone_translation(b, translation);
            }
            ui.end_row();
        });
    if bone.flags.contains(BoneFlags::IK)
        && let Some(slot) = state.pose.bones.get_mut(b)
        && ui
            .checkbox(&mut slot.ik_enabled, lang.tr("pose.ik_enabled"))
            .changed()
    {
        state.stale = true;
    }
    if ui.button(lang.tr("pose.reset_bone")).clicked() {
        state.reset_bone(b);
    }
    if let Some(global) = state
        .evaluated()
        .and_then(|e| e.skeleton.global(BoneIdx::new(b)))
    {
        let position = global.transform_point(glam::Vec3A::ZERO);
        ui.weak(lang.format(
            "pose.posed_position",
            &[(
                "position",
                &format!("{:.3}, {:.3}, {:.3}", position.x, position.y, position.z),
            )],
        ));
    }
}

fn morphs_ui(
    ui: &mut egui::Ui,
    lang: Language,
    names: NameLanguage,
    state: &mut PoseState,
    model: &Model,
) {
    ui.horizontal(|ui| {
        ui.label(lang.tr("pose.morphs"));
        ui.add(
            egui::TextEdit::singleline(&mut state.morph_filter)
                .hint_text(lang.tr("pose.find"))
                .desired_width(140.0),
        )
        .accessible_name(lang.tr("pose.find_morph"));
    });
    let filter = state.morph_filter.trim().to_lowercase();
    egui::ScrollArea::vertical()
        .id_salt("pose_morphs")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (panel, key) in [
                (MorphPanel::Eyebrow, "pose.panel_eyebrow"),
                (MorphPanel::Eye, "pose.panel_eye"),
                (MorphPanel::Mouth, "pose.panel_mouth"),
                (MorphPanel::Other, "pose.panel_other"),
            ] {
                let members: Vec<usize> = (0..model.morphs.len())
                    .filter(|&m| {
                        let morph = &model.morphs[m];
                        let in_panel = morph.panel == panel
                            || (panel == MorphPanel::Other
                                && !matches!(
                                    morph.panel,
                                    MorphPanel::Eyebrow | MorphPanel::Eye | MorphPanel::Mouth
                                ));
                        in_panel
                            && (filter.is_empty()
                                || morph.name_ja.as_str().to_lowercase().contains(&filter)
                                || morph.name_en.as_str().to_lowercase().contains(&filter))
                    })
                    .collect();
                egui::CollapsingHeader::new(format!("{} ({})", lang.tr(key), members.len()))
                    .id_salt(key)
                    .default_open(true)
                    .show(ui, |ui| {
                        for m in members {
                            let morph = &model.morphs[m];
                            let mut value = state.pose.morphs.get(m).copied().unwrap_or(0.0);
                            let name = display_name(names, &morph.name_ja, &morph.name_en);
                            if ui
                                .add(egui::Slider::new(&mut value, 0.0..=1.0).text(name))
                                .changed()
                            {
                                state.set_morph(m, value);
                            }
                        }
                    });
            }
        });
}

/// An element's name in the chosen language (the other one when it is empty).
fn display_name(
    names: NameLanguage,
    ja: &pmx_core::model::Text,
    en: &pmx_core::model::Text,
) -> String {
    names.pick(&ja.as_str(), &en.as_str()).to_owned()
}
