//! Bones: the deform order, append (付与), IK and the bone transforms, as the spec's
//! 機能概要 ●ボーン変形 describes them.
//!
//! Conventions: glam's column vectors, so the spec's row-vector
//! `ローカル行列 = (スケール) * 回転 * 移動` composed with the parent offset and the parent's
//! matrix is here `global = parent_global * translate(offset + translation) * rotate(rotation)`.
//! What the spec calls a bone's "local deform state" (ローカル変形状態, the matrix whose
//! translation is the bone's current position) is [`Skeleton::global`]; the matrix that deforms
//! vertices (グローバル変形状態) is [`Skeleton::skin_matrices`].

use super::{BonePose, PhysicsBone, Pose};
use crate::model::{BoneFlags, BoneIdx, Model};
use glam::{Affine3A, EulerRot, Quat, Vec3, Vec3A};

/// A rotation followed by a translation: the transforms bones compose. No scale, so products
/// stay exact rigid motions (no matrix drift) and inverses are cheap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    pub rotation: Quat,
    pub translation: Vec3A,
}

impl Transform {
    pub const IDENTITY: Self = Self {
        rotation: Quat::IDENTITY,
        translation: Vec3A::ZERO,
    };

    /// A model-space position and MikuMikuDance Y-X-Z Euler angles (radians), as rigid bodies
    /// and joints store where they are.
    #[must_use]
    pub fn placed(position: crate::model::Vec3, rotation: crate::model::Vec3) -> Self {
        Self {
            rotation: crate::model::facts::euler_to_quat(rotation).normalize(),
            translation: Vec3A::from(Vec3::from(position)),
        }
    }

    #[must_use]
    pub fn from_translation(translation: Vec3A) -> Self {
        Self {
            rotation: Quat::IDENTITY,
            translation,
        }
    }

    /// `self ∘ other`: `other` applied first.
    #[must_use]
    pub fn compose(&self, other: &Transform) -> Transform {
        Transform {
            rotation: self.rotation * other.rotation,
            translation: self.rotation * other.translation + self.translation,
        }
    }

    #[must_use]
    pub fn transform_point(&self, point: Vec3A) -> Vec3A {
        self.rotation * point + self.translation
    }

    #[must_use]
    pub fn inverse(&self) -> Transform {
        let rotation = self.rotation.conjugate();
        Transform {
            rotation,
            translation: -(rotation * self.translation),
        }
    }

    #[must_use]
    pub fn to_affine(&self) -> Affine3A {
        Affine3A::from_rotation_translation(self.rotation, self.translation.into())
    }
}

/// `rotation` scaled by `ratio` (the spec's `Quaternion.Slerp(identity, rotation, ratio)`),
/// computed from the angle so that ratios outside 0..1 (−1 inverts) are exact too.
#[must_use]
pub fn scale_rotation(rotation: Quat, ratio: f32) -> Quat {
    if ratio == 1.0 {
        return rotation;
    }
    // The shortest arc, as slerp from identity takes it.
    let q = if rotation.w < 0.0 {
        -rotation
    } else {
        rotation
    };
    let axis = Vec3::new(q.x, q.y, q.z);
    let sin_half = axis.length();
    if sin_half <= f32::EPSILON {
        return Quat::IDENTITY;
    }
    let half_angle = sin_half.atan2(q.w);
    Quat::from_axis_angle(axis / sin_half, 2.0 * half_angle * ratio)
}

/// The IK target is on its goal when nearer than this (model units; a model is about 20 tall).
const REACHED: f32 = 1e-5;

#[derive(Debug, Clone, Copy)]
struct Append {
    parent: usize,
    ratio: f32,
    rotate: bool,
    translate: bool,
    local: bool,
}

/// Per-axis limits of an IK link, radians, in the link's parent-relative rotation (intrinsic
/// X, Y, Z Euler angles).
#[derive(Debug, Clone, Copy)]
enum LinkLimits {
    /// Only one axis may turn (two axes are locked at 0, like a knee): solved in that plane.
    Hinge {
        axis: usize,
        lower: f32,
        upper: f32,
    },
    Euler {
        lower: Vec3A,
        upper: Vec3A,
    },
}

#[derive(Debug, Clone)]
struct IkLinkData {
    bone: usize,
    limits: Option<LinkLimits>,
}

#[derive(Debug, Clone)]
struct IkSolver {
    bone: usize,
    target: usize,
    loop_count: u32,
    limit_angle: f32,
    links: Vec<IkLinkData>,
    /// The links and the bones between them and the target, parents first: what moves while
    /// iterating.
    chain: Vec<usize>,
    /// Other descendants of the links that were deformed before the IK bone: their transforms
    /// are refreshed once after solving.
    refresh: Vec<usize>,
}

/// The deform order of the spec: before/after physics, then layer (変形階層), then index.
/// Returns the order and how many bones come before physics.
#[must_use]
pub fn deform_order(model: &Model) -> (Vec<BoneIdx>, usize) {
    let mut order: Vec<usize> = (0..model.bones.len()).collect();
    order.sort_by_key(|&i| {
        let bone = &model.bones[i];
        (bone.flags.contains(BoneFlags::AFTER_PHYSICS), bone.layer, i)
    });
    let before_physics = order
        .iter()
        .take_while(|&&i| !model.bones[i].flags.contains(BoneFlags::AFTER_PHYSICS))
        .count();
    (
        order.into_iter().map(BoneIdx::new).collect(),
        before_physics,
    )
}

/// The bone hierarchy with its per-frame state. Built once per model (rebuild after edits that
/// change bones); evaluating a pose allocates nothing.
#[derive(Debug, Clone)]
pub struct Skeleton {
    rest: Vec<Vec3A>,
    parent: Vec<Option<usize>>,
    /// Rest position relative to the parent's rest position.
    offset: Vec<Vec3A>,
    order: Vec<usize>,
    before_physics: usize,
    append: Vec<Option<Append>>,
    appends_rotation: Vec<bool>,
    appends_translation: Vec<bool>,
    ik_solver_of: Vec<Option<usize>>,
    solvers: Vec<IkSolver>,
    external_parents: Vec<(BoneIdx, i32)>,
    /// Every bone, parents before children (for carrying a physics result down the tree).
    parents_first: Vec<usize>,
    deforms_before_physics: Vec<bool>,

    // Per-frame state.
    morph_rotation: Vec<Quat>,
    morph_translation: Vec<Vec3A>,
    append_rotation: Vec<Quat>,
    append_translation: Vec<Vec3A>,
    ik_rotation: Vec<Quat>,
    local: Vec<Transform>,
    global: Vec<Transform>,
    /// One per bone plus a final identity, which weights referring to no bone use.
    skin: Vec<Affine3A>,
    saved_ik: Vec<Quat>,
    hinge_angle: Vec<f32>,
    /// Per bone, during [`Skeleton::apply_physics`]: set by the physics, moved with a parent
    /// the physics set, or untouched.
    physics_moved: Vec<PhysicsMoved>,
    physics_target: Vec<Transform>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PhysicsMoved {
    No,
    Set,
    Turned,
    Carried,
}

impl Skeleton {
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let count = model.bones.len();
        let valid =
            |b: Option<BoneIdx>, me: usize| b.map(BoneIdx::get).filter(|&p| p < count && p != me);
        let rest: Vec<Vec3A> = model
            .bones
            .iter()
            .map(|b| Vec3A::from(Vec3::from(b.position)))
            .collect();
        let parent: Vec<Option<usize>> = model
            .bones
            .iter()
            .enumerate()
            .map(|(i, b)| valid(b.parent, i))
            .collect();
        let offset = (0..count)
            .map(|i| rest[i] - parent[i].map_or(Vec3A::ZERO, |p| rest[p]))
            .collect();
        let (order, before_physics) = deform_order(model);
        let order: Vec<usize> = order.into_iter().map(BoneIdx::get).collect();
        let mut position_in_order = vec![0usize; count];
        for (position, &bone) in order.iter().enumerate() {
            position_in_order[bone] = position;
        }

        let append: Vec<Option<Append>> = model
            .bones
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let rotate = b.flags.contains(BoneFlags::APPEND_ROTATE);
                let translate = b.flags.contains(BoneFlags::APPEND_MOVE);
                let parent = valid(b.append_parent, i)?;
                (rotate || translate).then_some(Append {
                    parent,
                    ratio: b.append_ratio,
                    rotate,
                    translate,
                    local: b.flags.contains(BoneFlags::LOCAL_APPEND),
                })
            })
            .collect();
        let appends_rotation = append.iter().map(|a| a.is_some_and(|a| a.rotate)).collect();
        let appends_translation = append
            .iter()
            .map(|a| a.is_some_and(|a| a.translate))
            .collect();

        let children = children_of(&parent);
        let rank = topological_rank(&parent, &children);
        let mut parents_first: Vec<usize> = (0..count).collect();
        parents_first.sort_by_key(|&b| rank[b]);
        let deforms_before_physics = (0..count)
            .map(|b| position_in_order[b] < before_physics)
            .collect();
        let mut ik_solver_of = vec![None; count];
        let mut solvers = Vec::new();
        for (i, bone) in model.bones.iter().enumerate() {
            if !bone.is_ik() {
                continue;
            }
            let Some(target) = bone.ik.target.map(BoneIdx::get).filter(|&t| t < count) else {
                continue;
            };
            let links: Vec<IkLinkData> = bone
                .ik
                .links
                .iter()
                .filter_map(|link| {
                    let bone = link.bone.map(BoneIdx::get).filter(|&b| b < count)?;
                    Some(IkLinkData {
                        bone,
                        limits: link
                            .limits
                            .map(|l| link_limits(l.lower.into(), l.upper.into())),
                    })
                })
                .collect();
            if links.is_empty() {
                continue;
            }
            let (chain, refresh) = chain_and_refresh(
                &links,
                target,
                i,
                &parent,
                &children,
                &rank,
                &position_in_order,
            );
            ik_solver_of[i] = Some(solvers.len());
            solvers.push(IkSolver {
                bone: i,
                target,
                loop_count: bone.ik.loop_count.max(0) as u32,
                limit_angle: bone.ik.limit_angle,
                links,
                chain,
                refresh,
            });
        }
        let max_links = solvers.iter().map(|s| s.links.len()).max().unwrap_or(0);
        let external_parents = model
            .bones
            .iter()
            .enumerate()
            .filter(|(_, b)| b.flags.contains(BoneFlags::EXTERNAL_PARENT))
            .map(|(i, b)| (BoneIdx::new(i), b.external_parent_key))
            .collect();

        let mut skeleton = Self {
            local: vec![Transform::IDENTITY; count],
            global: vec![Transform::IDENTITY; count],
            rest,
            parent,
            offset,
            order,
            before_physics,
            append,
            appends_rotation,
            appends_translation,
            ik_solver_of,
            solvers,
            external_parents,
            morph_rotation: vec![Quat::IDENTITY; count],
            morph_translation: vec![Vec3A::ZERO; count],
            append_rotation: vec![Quat::IDENTITY; count],
            append_translation: vec![Vec3A::ZERO; count],
            ik_rotation: vec![Quat::IDENTITY; count],
            skin: vec![Affine3A::IDENTITY; count + 1],
            saved_ik: vec![Quat::IDENTITY; max_links],
            hinge_angle: vec![0.0; max_links],
            parents_first,
            deforms_before_physics,
            physics_moved: vec![PhysicsMoved::No; count],
            physics_target: vec![Transform::IDENTITY; count],
        };
        skeleton.reset();
        skeleton
    }

    #[must_use]
    pub fn num_bones(&self) -> usize {
        self.rest.len()
    }

    /// The bones in deform order, and how many of them deform before physics.
    pub fn order(&self) -> (impl Iterator<Item = BoneIdx> + '_, usize) {
        (
            self.order.iter().map(|&b| BoneIdx::new(b)),
            self.before_physics,
        )
    }

    /// How many bones deform before physics (the first positions of the deform order).
    #[must_use]
    pub fn before_physics_count(&self) -> usize {
        self.before_physics
    }

    /// Puts a physics step's result on the skeleton, between the bones that deform before
    /// physics and those after (MikuMikuDance's order): each entry's transform becomes that
    /// bone's global transform (for a `rotation_only` entry, its rotation, with the position
    /// its parent's new state gives it); its local transform is worked out back from its
    /// parent; and the bones below it that deform before physics move with it, keeping their
    /// local transforms, as children follow a parent in MikuMikuDance. Bones that deform after
    /// physics are left to [`Skeleton::evaluate_range`], which evaluates them from their
    /// parents' new state. Entries for bones past the end or after physics are ignored; for a
    /// bone listed twice the last entry counts.
    pub fn apply_physics(&mut self, overrides: &[PhysicsBone]) {
        if overrides.is_empty() {
            return;
        }
        let count = self.rest.len();
        self.physics_moved.fill(PhysicsMoved::No);
        for entry in overrides {
            let bone = entry.bone;
            if bone < count && self.deforms_before_physics[bone] {
                self.physics_moved[bone] = if entry.rotation_only {
                    PhysicsMoved::Turned
                } else {
                    PhysicsMoved::Set
                };
                self.physics_target[bone] = entry.transform;
            }
        }
        for position in 0..self.parents_first.len() {
            let bone = self.parents_first[position];
            if !self.deforms_before_physics[bone] {
                continue;
            }
            let parent = self.parent[bone];
            match self.physics_moved[bone] {
                PhysicsMoved::Set | PhysicsMoved::Turned => {
                    let mut target = self.physics_target[bone];
                    if self.physics_moved[bone] == PhysicsMoved::Turned {
                        target.translation = match parent {
                            Some(p) => self.global[p].transform_point(self.local[bone].translation),
                            None => self.local[bone].translation,
                        };
                    }
                    self.global[bone] = target;
                    self.local[bone] = match parent {
                        Some(p) => self.global[p].inverse().compose(&target),
                        None => target,
                    };
                }
                PhysicsMoved::No | PhysicsMoved::Carried => {
                    if let Some(p) = parent
                        && self.physics_moved[p] != PhysicsMoved::No
                    {
                        self.update_global(bone);
                        self.physics_moved[bone] = PhysicsMoved::Carried;
                    }
                }
            }
        }
    }

    /// Bones with the external parent flag and their keys. They are not evaluated (the parent
    /// lives in another model); the scene that places several models uses them.
    #[must_use]
    pub fn external_parents(&self) -> &[(BoneIdx, i32)] {
        &self.external_parents
    }

    /// Step 0 of the spec: every bone back to rest, morph and IK amounts cleared.
    pub fn reset(&mut self) {
        for i in 0..self.rest.len() {
            self.morph_rotation[i] = Quat::IDENTITY;
            self.morph_translation[i] = Vec3A::ZERO;
            self.append_rotation[i] = Quat::IDENTITY;
            self.append_translation[i] = Vec3A::ZERO;
            self.ik_rotation[i] = Quat::IDENTITY;
            self.local[i] = Transform::from_translation(self.offset[i]);
            self.global[i] = Transform::from_translation(self.rest[i]);
        }
    }

    /// Adds a bone morph offset at `weight` (step 2 of the spec). Rotations of several morphs
    /// multiply in morph order; translations add.
    pub(crate) fn add_morph(
        &mut self,
        bone: usize,
        translation: Vec3A,
        rotation: Quat,
        weight: f32,
    ) {
        if bone >= self.rest.len() {
            return;
        }
        self.morph_translation[bone] += translation * weight;
        self.morph_rotation[bone] =
            (self.morph_rotation[bone] * scale_rotation(rotation.normalize(), weight)).normalize();
    }

    /// The morph rotation and translation a bone has this frame.
    #[must_use]
    pub fn morph_amount(&self, bone: BoneIdx) -> Option<(Quat, Vec3A)> {
        let i = bone.get();
        Some((
            *self.morph_rotation.get(i)?,
            *self.morph_translation.get(i)?,
        ))
    }

    /// Deforms every bone in order (steps 3-4 of the spec), IK at each IK bone's place, then the
    /// skinning matrices. Morph amounts must have been set (after [`Skeleton::reset`]).
    pub fn evaluate(&mut self, pose: &Pose) {
        self.evaluate_range(pose, 0..self.before_physics);
        self.apply_physics(&pose.physics);
        self.evaluate_range(pose, self.before_physics..self.order.len());
        self.update_skin_matrices();
    }

    /// Deforms the bones at `positions` of the deform order: `0..before_physics` and
    /// `before_physics..` let a physics step run in between.
    pub fn evaluate_range(&mut self, pose: &Pose, positions: std::ops::Range<usize>) {
        for position in positions {
            let Some(&bone) = self.order.get(position) else {
                break;
            };
            self.deform(bone, &pose.bones);
            if let Some(solver) = self.ik_solver_of[bone]
                && pose.bones.get(bone).is_none_or(|p| p.ik_enabled)
            {
                self.solve_ik(solver);
            }
        }
    }

    /// 4.1: the local deformation of one bone (spec: □ローカル変形順序).
    fn deform(&mut self, bone: usize, poses: &[BonePose]) {
        let user = |b: usize| poses.get(b).copied().unwrap_or_default();
        let mut rotation = Quat::IDENTITY;
        let mut translation = Vec3A::ZERO;
        if let Some(append) = self.append[bone] {
            let from = append.parent;
            if append.rotate {
                let appended = if append.local {
                    // The append parent's deformed state itself, parents included.
                    self.global[from].rotation
                } else {
                    let base = if self.appends_rotation[from] {
                        self.append_rotation[from]
                    } else {
                        user(from).rotation * self.morph_rotation[from]
                    };
                    base * self.ik_rotation[from]
                };
                rotation = scale_rotation(appended.normalize(), append.ratio);
            }
            if append.translate {
                let appended = if append.local {
                    // Spec (暫定対応): current position minus rest position.
                    self.global[from].translation - self.rest[from]
                } else if self.appends_translation[from] {
                    self.append_translation[from]
                } else {
                    Vec3A::from(user(from).translation) + self.morph_translation[from]
                };
                translation = appended * append.ratio;
            }
        }
        let own = user(bone);
        rotation = (rotation * own.rotation * self.morph_rotation[bone]).normalize();
        translation += Vec3A::from(own.translation) + self.morph_translation[bone];
        // Stored for bones that append from this one (多重付与).
        self.append_rotation[bone] = rotation;
        self.append_translation[bone] = translation;
        self.local[bone] = Transform {
            rotation: (rotation * self.ik_rotation[bone]).normalize(),
            translation: self.offset[bone] + translation,
        };
        self.update_global(bone);
    }

    fn update_global(&mut self, bone: usize) {
        self.global[bone] = match self.parent[bone] {
            Some(parent) => self.global[parent].compose(&self.local[bone]),
            None => self.local[bone],
        };
    }

    /// 4.2: CCD IK of one IK bone, at its place in the deform order.
    fn solve_ik(&mut self, index: usize) {
        // Taken out for the borrow checker; put back below (no allocation).
        let solver = std::mem::take(&mut self.solvers[index]);
        let goal = self.global[solver.bone].translation;
        let mut best = f32::INFINITY;
        self.save_links(&solver);
        for (k, link) in solver.links.iter().enumerate() {
            self.hinge_angle[k] = match link.limits {
                Some(LinkLimits::Hinge { axis, .. }) => {
                    hinge_angle_of(self.local[link.bone].rotation, axis)
                }
                _ => 0.0,
            };
        }
        'iterations: for iteration in 0..solver.loop_count {
            for (k, link) in solver.links.iter().enumerate() {
                if link.bone == solver.target {
                    continue;
                }
                // Already there (a model at rest): stop, so limits do not bend what needs no
                // bending.
                if self.global[solver.target].translation.distance(goal) < REACHED {
                    break 'iterations;
                }
                self.rotate_link(&solver, k, link, goal, iteration == 0);
                self.update_chain(&solver.chain);
            }
            let distance = self.global[solver.target].translation.distance(goal);
            if distance < best {
                best = distance;
                self.save_links(&solver);
            } else {
                // No better than the last iteration: keep the best and stop.
                self.restore_links(&solver);
                self.update_chain(&solver.chain);
                break;
            }
        }
        for &bone in &solver.refresh {
            self.update_global(bone);
        }
        self.solvers[index] = solver;
    }

    fn save_links(&mut self, solver: &IkSolver) {
        for (k, link) in solver.links.iter().enumerate() {
            self.saved_ik[k] = self.ik_rotation[link.bone];
        }
    }

    fn restore_links(&mut self, solver: &IkSolver) {
        for (k, link) in solver.links.iter().enumerate() {
            self.ik_rotation[link.bone] = self.saved_ik[k];
            self.local[link.bone].rotation =
                (self.append_rotation[link.bone] * self.saved_ik[k]).normalize();
        }
    }

    fn update_chain(&mut self, chain: &[usize]) {
        for &bone in chain {
            self.update_global(bone);
        }
    }

    /// One CCD step: turn `link` so that the target points at the goal, by at most the unit
    /// limit angle, then clamp to the link's limits.
    fn rotate_link(
        &mut self,
        solver: &IkSolver,
        k: usize,
        link: &IkLinkData,
        goal: Vec3A,
        first_iteration: bool,
    ) {
        let frame = self.global[link.bone];
        let to_local = frame.rotation.conjugate();
        let to_target = to_local * (self.global[solver.target].translation - frame.translation);
        let to_goal = to_local * (goal - frame.translation);
        let base = self.append_rotation[link.bone];
        let current = self.local[link.bone].rotation;
        let full = match link.limits {
            Some(LinkLimits::Hinge { axis, lower, upper }) => {
                let axis_vector = Vec3A::AXES[axis];
                let a = to_target - axis_vector * to_target.dot(axis_vector);
                let b = to_goal - axis_vector * to_goal.dot(axis_vector);
                let delta = if a.length_squared() > 1e-12 && b.length_squared() > 1e-12 {
                    axis_vector
                        .dot(a.cross(b))
                        .atan2(a.dot(b))
                        .clamp(-solver.limit_angle, solver.limit_angle)
                } else {
                    0.0
                };
                let mut angle = self.hinge_angle[k] + delta;
                if first_iteration && !(lower..=upper).contains(&angle) {
                    // Starting straight, the step may point out of the allowed range while its
                    // mirror is inside it (a knee bending forwards): take the mirror.
                    let mirrored = self.hinge_angle[k] - delta;
                    if (lower..=upper).contains(&mirrored) {
                        angle = mirrored;
                    }
                }
                let angle = angle.clamp(lower, upper);
                self.hinge_angle[k] = angle;
                Quat::from_axis_angle(axis_vector.into(), angle)
            }
            limits => {
                let mut full = current;
                if to_target.length_squared() > 1e-12 && to_goal.length_squared() > 1e-12 {
                    let a = to_target.normalize();
                    let b = to_goal.normalize();
                    let axis = a.cross(b);
                    // atan2 keeps small angles exact where acos of a dot near 1 rounds to 0.
                    let angle = axis.length().atan2(a.dot(b)).min(solver.limit_angle);
                    if angle > 0.0 && axis.length_squared() > 1e-12 {
                        full = current * Quat::from_axis_angle(axis.normalize().into(), angle);
                    }
                }
                if let Some(LinkLimits::Euler { lower, upper }) = limits {
                    let (x, y, z) = full.to_euler(EulerRot::XYZ);
                    let clamped = Vec3A::new(x, y, z).clamp(lower, upper);
                    full = Quat::from_euler(EulerRot::XYZ, clamped.x, clamped.y, clamped.z);
                }
                full
            }
        };
        let full = full.normalize();
        self.ik_rotation[link.bone] = (base.conjugate() * full).normalize();
        self.local[link.bone].rotation = full;
    }

    /// Computes the skinning matrices from the deformed bones.
    pub fn update_skin_matrices(&mut self) {
        for i in 0..self.rest.len() {
            let global = self.global[i];
            self.skin[i] = Affine3A::from_rotation_translation(
                global.rotation,
                (global.translation - global.rotation * self.rest[i]).into(),
            );
        }
    }

    /// The deformed bone's transform in model space (its translation is the bone's position).
    #[must_use]
    pub fn global(&self, bone: BoneIdx) -> Option<&Transform> {
        self.global.get(bone.get())
    }

    /// Every bone's deformed transform, in bone order.
    #[must_use]
    pub fn globals(&self) -> &[Transform] {
        &self.global
    }

    /// The transform of a bone relative to its parent (rest offset included).
    #[must_use]
    pub fn local(&self, bone: BoneIdx) -> Option<&Transform> {
        self.local.get(bone.get())
    }

    /// The IK rotation a link got this frame (identity for bones that are no IK link).
    #[must_use]
    pub fn ik_rotation(&self, bone: BoneIdx) -> Option<Quat> {
        self.ik_rotation.get(bone.get()).copied()
    }

    /// The appended amount stored for multi-level append: rotation and translation.
    #[must_use]
    pub fn append_amount(&self, bone: BoneIdx) -> Option<(Quat, Vec3A)> {
        let i = bone.get();
        Some((
            *self.append_rotation.get(i)?,
            *self.append_translation.get(i)?,
        ))
    }

    /// Vertex deform matrices (`global * translate(-rest)`), one per bone and a final identity.
    #[must_use]
    pub fn skin_matrices(&self) -> &[Affine3A] {
        &self.skin
    }

    #[must_use]
    pub fn rest_position(&self, bone: BoneIdx) -> Option<Vec3A> {
        self.rest.get(bone.get()).copied()
    }
}

impl Default for IkSolver {
    fn default() -> Self {
        Self {
            bone: 0,
            target: 0,
            loop_count: 0,
            limit_angle: 0.0,
            links: Vec::new(),
            chain: Vec::new(),
            refresh: Vec::new(),
        }
    }
}

fn link_limits(lower: Vec3, upper: Vec3) -> LinkLimits {
    let (lower, upper) = (Vec3A::from(lower.min(upper)), Vec3A::from(lower.max(upper)));
    let free: Vec<usize> = (0..3)
        .filter(|&a| lower[a] != 0.0 || upper[a] != 0.0)
        .collect();
    match free.as_slice() {
        [axis] => LinkLimits::Hinge {
            axis: *axis,
            lower: lower[*axis],
            upper: upper[*axis],
        },
        _ => LinkLimits::Euler { lower, upper },
    }
}

/// The angle a rotation turns about one axis (its twist about that axis): exact for a rotation
/// about the axis, the nearest such angle otherwise. In (−π, π].
fn hinge_angle_of(rotation: Quat, axis: usize) -> f32 {
    let along = [rotation.x, rotation.y, rotation.z][axis];
    let angle = 2.0 * along.atan2(rotation.w);
    if angle > std::f32::consts::PI {
        angle - std::f32::consts::TAU
    } else if angle <= -std::f32::consts::PI {
        angle + std::f32::consts::TAU
    } else {
        angle
    }
}

fn children_of(parent: &[Option<usize>]) -> Vec<Vec<usize>> {
    let mut children = vec![Vec::new(); parent.len()];
    for (child, p) in parent.iter().enumerate() {
        if let Some(p) = *p {
            children[p].push(child);
        }
    }
    children
}

/// A rank that puts every parent before its children (bones in a parent cycle are ranked
/// in index order, the cycle being broken where it was entered).
fn topological_rank(parent: &[Option<usize>], children: &[Vec<usize>]) -> Vec<usize> {
    let count = parent.len();
    let mut rank = vec![usize::MAX; count];
    let mut next = 0;
    let mut stack = Vec::new();
    let roots = (0..count).filter(|&b| parent[b].is_none());
    // Roots first, then whatever a cycle left unreached.
    for start in roots.chain(0..count) {
        if rank[start] != usize::MAX {
            continue;
        }
        stack.push(start);
        while let Some(bone) = stack.pop() {
            if rank[bone] != usize::MAX {
                continue;
            }
            rank[bone] = next;
            next += 1;
            stack.extend(
                children[bone]
                    .iter()
                    .rev()
                    .filter(|&&c| rank[c] == usize::MAX),
            );
        }
    }
    rank
}

fn chain_and_refresh(
    links: &[IkLinkData],
    target: usize,
    ik_bone: usize,
    parent: &[Option<usize>],
    children: &[Vec<usize>],
    rank: &[usize],
    position_in_order: &[usize],
) -> (Vec<usize>, Vec<usize>) {
    let count = parent.len();
    // Descendants of the links, the links included.
    let mut below_link = vec![false; count];
    let mut stack: Vec<usize> = links.iter().map(|l| l.bone).collect();
    while let Some(bone) = stack.pop() {
        if below_link[bone] {
            continue;
        }
        below_link[bone] = true;
        stack.extend(children[bone].iter().copied());
    }
    let mut in_chain = vec![false; count];
    for start in links.iter().map(|l| l.bone).chain(std::iter::once(target)) {
        let mut bone = Some(start);
        let mut steps = 0;
        while let Some(b) = bone {
            if !below_link[b] || in_chain[b] || steps > count {
                break;
            }
            in_chain[b] = true;
            bone = parent[b];
            steps += 1;
        }
    }
    let ik_position = position_in_order[ik_bone];
    let mut chain: Vec<usize> = (0..count).filter(|&b| in_chain[b]).collect();
    let mut refresh: Vec<usize> = (0..count)
        .filter(|&b| below_link[b] && !in_chain[b] && position_in_order[b] < ik_position)
        .collect();
    chain.sort_by_key(|&b| rank[b]);
    refresh.sort_by_key(|&b| rank[b]);
    (chain, refresh)
}

/// The frame the UI rotates and moves a bone in (spec: □制限軸, □ローカル軸), in model space
/// at rest.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ManipulationFrame {
    /// X, Y, Z axes (unit, orthogonal).
    pub axes: [Vec3; 3],
    /// With the fixed-axis flag: the only axis the bone may turn about and move along.
    pub fixed_axis: Option<Vec3>,
}

impl ManipulationFrame {
    /// The frame of `bone`: its local axes (corrected as the spec says: `Y = Z × X`,
    /// `Z' = X × Y`) when it has them, else the model's axes; and its fixed axis.
    #[must_use]
    pub fn of(bone: &crate::model::Bone) -> Self {
        let mut axes = [Vec3::X, Vec3::Y, Vec3::Z];
        if bone.flags.contains(BoneFlags::LOCAL_AXES) {
            let x = Vec3::from(bone.local_axis_x).normalize_or_zero();
            let z = Vec3::from(bone.local_axis_z).normalize_or_zero();
            let y = z.cross(x).normalize_or_zero();
            let z = x.cross(y).normalize_or_zero();
            if x != Vec3::ZERO && y != Vec3::ZERO && z != Vec3::ZERO {
                axes = [x, y, z];
            }
        }
        let fixed_axis = bone
            .flags
            .contains(BoneFlags::FIXED_AXIS)
            .then(|| Vec3::from(bone.fixed_axis).normalize_or_zero())
            .filter(|a| *a != Vec3::ZERO);
        Self { axes, fixed_axis }
    }

    /// A rotation the user asked for, limited to the fixed axis (its twist about the axis);
    /// unchanged without a fixed axis.
    #[must_use]
    pub fn constrain_rotation(&self, rotation: Quat) -> Quat {
        let Some(axis) = self.fixed_axis else {
            return rotation;
        };
        let along = axis * Vec3::new(rotation.x, rotation.y, rotation.z).dot(axis);
        let twist = Quat::from_xyzw(along.x, along.y, along.z, rotation.w);
        if twist.length_squared() <= f32::EPSILON {
            Quat::IDENTITY
        } else {
            twist.normalize()
        }
    }

    /// A movement limited to the fixed axis; unchanged without one.
    #[must_use]
    pub fn constrain_translation(&self, translation: Vec3) -> Vec3 {
        match self.fixed_axis {
            Some(axis) => axis * translation.dot(axis),
            None => translation,
        }
    }

    /// The frame turned by `rotation` (the bone's parent rotation when posed).
    #[must_use]
    pub fn rotated(&self, rotation: Quat) -> Self {
        Self {
            axes: self.axes.map(|a| rotation * a),
            fixed_axis: self.fixed_axis.map(|a| rotation * a),
        }
    }
}
