//! The pose engine: morphs, bones (deform order, append, IK) and skinning, exactly as the
//! 機能概要 section of `specs/pmx-2.1.ja.txt` describes them.
//!
//! A [`Pose`] is what the user (or a motion) sets: a rotation and translation per bone and a
//! value per morph. A [`PoseEvaluator`] is built once per model and turns a pose into deformed
//! vertices, UVs, material values, bone transforms and impulses, reusing its buffers, so the
//! per-frame work allocates nothing.
//!
//! Frame order (spec: □変形パラメータの適用順序 and ■グループモーフや他のフリップモーフとの共存):
//!
//! 1. every bone back to rest;
//! 2. morphs (flips first, then the others; bone morphs set the bones' morph amounts);
//! 3. bones in deform order, IK at each IK bone's place;
//! 4. skinning.
//!
//! For big models: vertex and UV morphs only sum a weight per morph; their offsets, grouped by
//! vertex when the evaluator is built, are added while streaming through the vertices (UVs in
//! a parallel pass, positions inside skinning), so nothing is scattered over a million vertices
//! and nothing needs undoing the next frame. Skinning runs in parallel chunks, each skinned
//! weight kind by weight kind. Blended normals are not renormalised (see
//! [`Skinner::normals`]).

pub mod bone;
pub mod morph;
pub mod rest;
pub mod skin;

#[cfg(test)]
mod tests;

pub use bone::{ManipulationFrame, Skeleton, Transform, deform_order, scale_rotation};
pub use morph::{
    MaterialMorphState, MaterialValues, MorphEvaluator, MorphSnapshot, MorphedMaterial,
    RigidBodyImpulse, TextureTint, flip_index,
};
pub use rest::{PoseAsRest, apply_pose_as_rest, pose_as_bone_morph, pose_as_rest};
pub use skin::{Kind as WeightKind, PackedWeight, SkinJob, Skinner, packed_weight};

use crate::model::{BoneIdx, Model, MorphIdx};
use glam::{Quat, Vec2, Vec3, Vec4};

/// What the user or a motion sets on one bone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BonePose {
    /// Rotation relative to the parent, applied after append and before IK.
    pub rotation: Quat,
    /// Movement from the rest position, in the parent's frame.
    pub translation: Vec3,
    /// For IK bones: whether the IK is solved (motions can switch IK off).
    pub ik_enabled: bool,
}

impl Default for BonePose {
    fn default() -> Self {
        Self {
            rotation: Quat::IDENTITY,
            translation: Vec3::ZERO,
            ik_enabled: true,
        }
    }
}

impl BonePose {
    /// Whether the pose leaves the bone at rest.
    #[must_use]
    pub fn is_rest(&self) -> bool {
        self.rotation == Quat::IDENTITY && self.translation == Vec3::ZERO
    }
}

/// A pose of a model: one [`BonePose`] per bone and one value per morph, and what a physics
/// simulation made of it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Pose {
    pub bones: Vec<BonePose>,
    pub morphs: Vec<f32>,
    /// World transforms a physics step gave bones: applied after the bones that deform before
    /// physics and before those that deform after it (物理後), as [`Skeleton::apply_physics`]
    /// describes. Empty without physics. Kept in the pose so that everything made from a pose
    /// (the preview, "apply pose as rest") sees the simulated one.
    pub physics: Vec<PhysicsBone>,
}

impl Pose {
    /// The rest pose of `model`.
    #[must_use]
    pub fn new(model: &Model) -> Self {
        Self {
            bones: vec![BonePose::default(); model.bones.len()],
            morphs: vec![0.0; model.morphs.len()],
            physics: Vec::new(),
        }
    }

    /// Back to rest (all bones unmoved, all morphs 0, IK on, no physics result).
    pub fn reset(&mut self) {
        self.bones.fill(BonePose::default());
        self.morphs.fill(0.0);
        self.physics.clear();
    }

    /// Sets a bone's rotation and translation (ignored for an index past the end).
    pub fn set_bone(&mut self, bone: BoneIdx, rotation: Quat, translation: Vec3) {
        if let Some(pose) = self.bones.get_mut(bone.get()) {
            pose.rotation = rotation.normalize();
            pose.translation = translation;
        }
    }

    /// Sets a morph value (ignored for an index past the end).
    pub fn set_morph(&mut self, morph: MorphIdx, value: f32) {
        if let Some(slot) = self.morphs.get_mut(morph.get()) {
            *slot = value;
        }
    }

    #[must_use]
    pub fn bone(&self, bone: BoneIdx) -> Option<&BonePose> {
        self.bones.get(bone.get())
    }

    #[must_use]
    pub fn morph(&self, morph: MorphIdx) -> Option<f32> {
        self.morphs.get(morph.get()).copied()
    }

    /// Whether every bone is at rest, every morph is 0 and no physics result moves a bone.
    #[must_use]
    pub fn is_rest(&self) -> bool {
        self.bones.iter().all(BonePose::is_rest)
            && self.morphs.iter().all(|&m| m == 0.0)
            && self.physics.is_empty()
    }
}

/// What a physics step made of one bone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PhysicsBone {
    pub bone: usize,
    /// The bone's new world transform.
    pub transform: Transform,
    /// Only the rotation counts: the bone keeps the position its parent's new state and its
    /// own local transform give it (a body of mode 2, 物理+位置合わせ).
    pub rotation_only: bool,
}

impl PhysicsBone {
    /// A bone the physics places entirely.
    #[must_use]
    pub fn placed(bone: usize, transform: Transform) -> Self {
        Self {
            bone,
            transform,
            rotation_only: false,
        }
    }
}

/// Why a pose could not be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PoseError {
    /// The pose or the model does not have the element counts the evaluator was built for
    /// (rebuild the evaluator after editing the model; make poses with [`Pose::new`]).
    #[error("{what} has {found} {kind}, the evaluator was built for {expected}")]
    CountMismatch {
        what: &'static str,
        kind: &'static str,
        expected: usize,
        found: usize,
    },
}

/// Evaluates poses of one model: morphs, bones, skinning. Build it again after an edit that
/// changes the model's bones, morphs or vertices; an edit of weights only is taken in by
/// [`PoseEvaluator::update_weights`].
#[derive(Debug, Clone)]
pub struct PoseEvaluator {
    pub morphs: MorphEvaluator,
    pub skeleton: Skeleton,
    pub skinner: Skinner,
    counts: [usize; 5],
}

impl PoseEvaluator {
    #[must_use]
    pub fn new(model: &Model) -> Self {
        Self {
            morphs: MorphEvaluator::new(model),
            skeleton: Skeleton::new(model),
            skinner: Skinner::new(model),
            counts: counts(model),
        }
    }

    fn check(&self, model: &Model, pose: &Pose) -> Result<(), PoseError> {
        self.check_model(model)?;
        for (kind, expected, found) in [
            ("bones", self.counts[1], pose.bones.len()),
            ("morphs", self.counts[2], pose.morphs.len()),
        ] {
            if expected != found {
                return Err(PoseError::CountMismatch {
                    what: "the pose",
                    kind,
                    expected,
                    found,
                });
            }
        }
        Ok(())
    }

    fn check_model(&self, model: &Model) -> Result<(), PoseError> {
        const KINDS: [&str; 5] = ["vertices", "bones", "morphs", "materials", "rigid bodies"];
        for ((kind, expected), found) in KINDS.iter().zip(self.counts).zip(counts(model)) {
            if expected != found {
                return Err(PoseError::CountMismatch {
                    what: "the model",
                    kind,
                    expected,
                    found,
                });
            }
        }
        Ok(())
    }

    /// Morphs and bones, without skinning (for bone-only views and IK tests).
    pub fn evaluate_bones(&mut self, model: &Model, pose: &Pose) -> Result<(), PoseError> {
        self.evaluate_before_physics(model, pose)?;
        self.finish_after_physics(pose);
        Ok(())
    }

    /// The first half of a frame with physics: morphs, then the bones that deform before
    /// physics. [`Skeleton::globals`] then hold what the physics step reads (bodies that follow
    /// their bones) and [`MorphEvaluator::impulses`] the impulse morphs; the step's result goes
    /// into [`Pose::physics`], and [`PoseEvaluator::finish_after_physics`] completes the frame.
    pub fn evaluate_before_physics(&mut self, model: &Model, pose: &Pose) -> Result<(), PoseError> {
        self.check(model, pose)?;
        self.skeleton.reset();
        self.morphs
            .evaluate(model, &pose.morphs, &mut self.skeleton);
        self.skeleton
            .evaluate_range(pose, 0..self.skeleton.before_physics_count());
        Ok(())
    }

    /// The second half: the physics result of `pose` applied, the bones after physics, the
    /// skinning matrices.
    pub fn finish_after_physics(&mut self, pose: &Pose) {
        self.skeleton.apply_physics(&pose.physics);
        let (_, before) = self.skeleton.order();
        self.skeleton
            .evaluate_range(pose, before..self.skeleton.num_bones());
        self.skeleton.update_skin_matrices();
        self.skinner.set_bones(&self.skeleton);
    }

    /// The whole frame: morphs, bones and skinning of every vertex.
    pub fn evaluate(&mut self, model: &Model, pose: &Pose) -> Result<(), PoseError> {
        self.evaluate_bones(model, pose)?;
        self.skinner.skin_all(self.morphs.positions());
        Ok(())
    }

    /// The skinning of the last evaluation (bones and morphs: [`PoseEvaluator::evaluate_bones`]
    /// or more) as a job to run when the vertices are needed, if ever. Cheap: the per-vertex
    /// data is shared, the bone transforms and morph weights copied. Its output equals what
    /// [`PoseEvaluator::evaluate`] leaves in [`PoseEvaluator::positions`] and
    /// [`PoseEvaluator::normals`], bit for bit.
    #[must_use]
    pub fn skin_job(&self) -> SkinJob {
        self.skinner.job(self.morphs.snapshot())
    }

    /// Morphs and bones, then skinning of `vertices` only (written into the full output
    /// buffers). For the preview when it knows which vertices can have moved.
    pub fn evaluate_vertices(
        &mut self,
        model: &Model,
        pose: &Pose,
        vertices: &[u32],
    ) -> Result<(), PoseError> {
        self.evaluate_bones(model, pose)?;
        self.skinner
            .update_vertices(vertices, self.morphs.positions());
        Ok(())
    }

    /// After an edit that changed only the weights of `vertices` (a weight brush's step, its
    /// undo or redo): takes their weights from `model` again and re-skins just them with the
    /// bones and morphs of the last evaluation, so the pose, the bones and everything else
    /// stay as evaluated. Positions and normals then equal those of a new evaluator of `model`
    /// evaluating the same pose, bit for bit. Indices past the end are skipped.
    ///
    /// Fails (changing nothing) when `model` no longer has the element counts the evaluator
    /// was built for: an edit that did more than weights needs a new evaluator.
    pub fn update_weights(&mut self, model: &Model, vertices: &[u32]) -> Result<(), PoseError> {
        self.check_model(model)?;
        self.skinner
            .update_weights(model, vertices, self.morphs.positions());
        Ok(())
    }

    /// After an edit that changed only morphs' values (their offsets, names, panels or kinds;
    /// morph edit mode's drags): takes the morphs from `model` again, keeping the skeleton and
    /// the skinning data; the next evaluation then equals a new evaluator's. Fails (changing
    /// nothing) when `model` no longer has the element counts the evaluator was built for.
    pub fn update_morphs(&mut self, model: &Model) -> Result<(), PoseError> {
        self.check_model(model)?;
        self.morphs = MorphEvaluator::new(model);
        Ok(())
    }

    /// Deformed vertex positions (after [`PoseEvaluator::evaluate`]).
    #[must_use]
    pub fn positions(&self) -> &[Vec3] {
        self.skinner.positions()
    }

    /// Deformed vertex normals (not renormalised: see [`Skinner::normals`]).
    #[must_use]
    pub fn normals(&self) -> &[Vec3] {
        self.skinner.normals()
    }

    /// UVs with the UV morphs applied.
    #[must_use]
    pub fn uvs(&self) -> &[Vec2] {
        self.morphs.uvs()
    }

    /// Additional UV `channel` (0-3) with morphs applied (`None`: (0,0,0,0) everywhere).
    #[must_use]
    pub fn additional_uv(&self, channel: usize) -> Option<&[Vec4]> {
        self.morphs.additional_uv(channel)
    }
}

fn counts(model: &Model) -> [usize; 5] {
    [
        model.vertices.len(),
        model.bones.len(),
        model.morphs.len(),
        model.materials.len(),
        model.rigid_bodies.len(),
    ]
}
