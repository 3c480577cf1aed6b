//! Skinning: BDEF1, BDEF2, BDEF4, SDEF (with the C/R0/R1 correction) and QDEF (dual
//! quaternion), positions and normals, in parallel over vertices.

use super::bone::Skeleton;
use super::morph::MorphedPositions;
use crate::model::{Model, Weight};
use glam::{Affine3A, Mat3A, Quat, Vec3, Vec3A};
use rayon::prelude::*;
use std::sync::Arc;

/// Vertices per parallel task: large enough to amortise scheduling, small enough to balance
/// two to many cores and for a task's vertices to stay in cache while it goes over them once
/// per weight kind.
const CHUNK: usize = 2048;

/// How a vertex is skinned (its weight's kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    Bdef1,
    Bdef2,
    Bdef4,
    Sdef,
    Qdef,
}

const NUM_KINDS: usize = 5;

/// A vertex's bones (an invalid reference points at the identity slot past the last bone) and
/// weights. For SDEF, `bones[2]` is the index of its [`SdefParams`].
#[derive(Debug, Clone, Copy)]
struct Influences {
    bones: [u32; 4],
    weights: [f32; 4],
}

/// SDEF's centre and the corrected reference points, worked out once: with
/// `I = R0 × w0 + R1 × w1`, `r0 = C + R0 − I`, `r1 = C + R1 − I`, the vertex moves as
/// `q (P − C) + M0 (C + r0)/2 × w0 + M1 (C + r1)/2 × w1` where `q` is the slerp of the two bone
/// rotations by the weights.
#[derive(Debug, Clone, Copy)]
struct SdefParams {
    c: Vec3A,
    cr0: Vec3A,
    cr1: Vec3A,
}

/// The bone data skinning reads, one entry per bone plus the identity slot.
#[derive(Debug, Clone, Default)]
struct BoneData {
    matrices: Vec<Affine3A>,
    rotations: Vec<Quat>,
    /// Dual quaternions (real, dual) for QDEF.
    duals: Vec<(Quat, Quat)>,
}

impl BoneData {
    /// The dual quaternions from the matrices and rotations (skipped while no vertex is
    /// QDEF).
    fn refresh_duals(&mut self) {
        for ((dual, matrix), rotation) in self
            .duals
            .iter_mut()
            .zip(&self.matrices)
            .zip(&self.rotations)
        {
            *dual = dual_quaternion(matrix, *rotation);
        }
    }
}

/// A bone's (real, dual) quaternion for QDEF, from its skinning matrix and global rotation.
fn dual_quaternion(matrix: &Affine3A, rotation: Quat) -> (Quat, Quat) {
    let translation = Vec3::from(matrix.translation);
    let dual = Quat::from_xyzw(translation.x, translation.y, translation.z, 0.0) * rotation * 0.5;
    (rotation, dual)
}

/// What skinning reads of each vertex, made once per model: the packed weights and the rest
/// normals. Shared (not copied) between the [`Skinner`] and the [`SkinJob`]s taken from it;
/// a weight edit copies it only while a job that has not run still holds it.
#[derive(Debug, Clone)]
struct SkinData {
    kinds: Vec<Kind>,
    influences: Vec<Influences>,
    sdef: Vec<SdefParams>,
    rest_normals: Vec<Vec3>,
    /// Per chunk: the chunk's vertices (offsets in the chunk) sorted by kind...
    chunk_order: Vec<u16>,
    /// ...and where each kind starts in them (`NUM_KINDS + 1` bounds).
    chunk_kinds: Vec<[u16; NUM_KINDS + 1]>,
    has_qdef: bool,
}

impl SkinData {
    fn context<'a>(&'a self, bones: &'a BoneData, positions: MorphedPositions<'a>) -> Context<'a> {
        Context {
            kinds: &self.kinds,
            influences: &self.influences,
            sdef: &self.sdef,
            bones,
            positions,
            normals: &self.rest_normals,
        }
    }

    /// Skins every vertex from `positions` into the outputs (as long as the vertex list;
    /// otherwise nothing is written).
    fn skin_all_into(
        &self,
        bones: &BoneData,
        positions: MorphedPositions<'_>,
        out_positions: &mut [Vec3],
        out_normals: &mut [Vec3],
    ) {
        let count = self.kinds.len();
        if positions.len() != count || out_positions.len() != count || out_normals.len() != count {
            return;
        }
        let context = self.context(bones, positions);
        let order = &self.chunk_order;
        let bounds = &self.chunk_kinds;
        out_positions
            .par_chunks_mut(CHUNK)
            .zip(out_normals.par_chunks_mut(CHUNK))
            .enumerate()
            .for_each(|(chunk, (out_positions, out_normals))| {
                let base = chunk * CHUNK;
                let order = &order[base..base + out_positions.len()];
                let bounds = &bounds[chunk];
                let span = |k: usize| &order[bounds[k] as usize..bounds[k + 1] as usize];
                let (p, n) = (&mut *out_positions, &mut *out_normals);
                skin_span(span(0), base, p, n, |v| context.bdef1(v));
                skin_span(span(1), base, p, n, |v| context.bdef2(v));
                skin_span(span(2), base, p, n, |v| context.bdef4(v));
                skin_span(span(3), base, p, n, |v| context.sdef(v));
                skin_span(span(4), base, p, n, |v| context.qdef(v));
            });
    }

    /// Skins `vertices` into outputs parallel to them (indices past the end are skipped).
    fn skin_vertices_into(
        &self,
        bones: &BoneData,
        vertices: &[u32],
        positions: MorphedPositions<'_>,
        out_positions: &mut [Vec3],
        out_normals: &mut [Vec3],
    ) {
        if positions.len() != self.kinds.len() {
            return;
        }
        let context = self.context(bones, positions);
        let len = vertices
            .len()
            .min(out_positions.len())
            .min(out_normals.len());
        vertices[..len]
            .par_chunks(CHUNK)
            .zip(out_positions[..len].par_chunks_mut(CHUNK))
            .zip(out_normals[..len].par_chunks_mut(CHUNK))
            .for_each(|((indices, out_positions), out_normals)| {
                for ((&v, out_position), out_normal) in
                    indices.iter().zip(out_positions).zip(out_normals)
                {
                    if (v as usize) < context.kinds.len() {
                        let (p, n) = context.skin(v as usize);
                        *out_position = p.into();
                        *out_normal = n.into();
                    }
                }
            });
    }

    /// Skins only `vertices` and writes each at its index in `positions` and `normals`
    /// (every vertex's lists), leaving the others; `subset` holds the skinned vertices in
    /// between (the caller's lists, kept to reuse their memory).
    fn skin_vertices_in_place(
        &self,
        bones: &BoneData,
        vertices: &[u32],
        morphed: MorphedPositions<'_>,
        [subset_positions, subset_normals]: [&mut Vec<Vec3>; 2],
        positions: &mut [Vec3],
        normals: &mut [Vec3],
    ) {
        subset_positions.resize(vertices.len(), Vec3::ZERO);
        subset_normals.resize(vertices.len(), Vec3::ZERO);
        self.skin_vertices_into(bones, vertices, morphed, subset_positions, subset_normals);
        for ((&v, position), normal) in vertices
            .iter()
            .zip(&*subset_positions)
            .zip(&*subset_normals)
        {
            if let (Some(p), Some(n)) = (positions.get_mut(v as usize), normals.get_mut(v as usize))
            {
                *p = *position;
                *n = *normal;
            }
        }
    }
}

/// Deforms vertices by the skeleton. Holds the packed weights and the output buffers, which it
/// reuses every frame.
#[derive(Debug, Clone)]
pub struct Skinner {
    data: Arc<SkinData>,
    bones: BoneData,
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    subset_positions: Vec<Vec3>,
    subset_normals: Vec<Vec3>,
}

/// One evaluation's skinning, taken apart from the evaluator ([`PoseEvaluator::skin_job`]):
/// the packed weights (shared), this frame's bone transforms and vertex morph weights
/// (copied: a few kilobytes). Skins the vertices when, and only if, they are asked for: the
/// 3D view skins on the GPU, so the CPU's posed vertices are made only for what picks or
/// draws overlays on them.
///
/// [`PoseEvaluator::skin_job`]: super::PoseEvaluator::skin_job
#[derive(Debug, Clone)]
pub struct SkinJob {
    data: Arc<SkinData>,
    bones: BoneData,
    morphs: super::morph::MorphSnapshot,
}

impl SkinJob {
    /// How many vertices the job skins.
    #[must_use]
    pub fn vertex_count(&self) -> usize {
        self.data.kinds.len()
    }

    /// Every vertex's skinned position and normal, written into `positions` and `normals`
    /// (resized to the vertex count; pass last frame's lists to reuse their memory). The
    /// same values, bit for bit, as [`Skinner::skin_all`] of the evaluation the job was taken
    /// from.
    pub fn skin_all_into(&self, positions: &mut Vec<Vec3>, normals: &mut Vec<Vec3>) {
        let count = self.vertex_count();
        positions.resize(count, Vec3::ZERO);
        normals.resize(count, Vec3::ZERO);
        self.data
            .skin_all_into(&self.bones, self.morphs.positions(), positions, normals);
    }

    /// Skins only `vertices` (sorted or not; past the end: skipped) and writes each at its
    /// index in `positions` and `normals` (every vertex's lists), leaving the others.
    pub fn skin_vertices_in_place(
        &self,
        vertices: &[u32],
        positions: &mut [Vec3],
        normals: &mut [Vec3],
    ) {
        self.data.skin_vertices_in_place(
            &self.bones,
            vertices,
            self.morphs.positions(),
            [&mut Vec::new(), &mut Vec::new()],
            positions,
            normals,
        );
    }
}

impl Skinner {
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let num_bones = model.bones.len();
        let mut kinds = Vec::with_capacity(model.vertices.len());
        let mut influences = Vec::with_capacity(model.vertices.len());
        let mut sdef = Vec::new();
        for vertex in &model.vertices {
            let (kind, packed) = pack(&vertex.weight, num_bones, None, &mut sdef);
            kinds.push(kind);
            influences.push(packed);
        }
        let has_qdef = kinds.contains(&Kind::Qdef);
        let rest_normals: Vec<Vec3> = model
            .vertices
            .iter()
            .map(|v| Vec3::from(v.normal))
            .collect();
        let positions = model
            .vertices
            .iter()
            .map(|v| Vec3::from(v.position))
            .collect();
        // Within each chunk, the vertices grouped by weight kind: a chunk is skinned kind by
        // kind, so the branch on the kind is not taken per vertex (models and generators mix
        // kinds vertex by vertex).
        let mut chunk_order = Vec::with_capacity(kinds.len());
        let mut chunk_kinds = Vec::with_capacity(kinds.len().div_ceil(CHUNK));
        for chunk in kinds.chunks(CHUNK) {
            let base = chunk_order.len();
            chunk_order.resize(base + chunk.len(), 0);
            chunk_kinds.push(order_by_kind(chunk, &mut chunk_order[base..]));
        }
        Self {
            data: Arc::new(SkinData {
                chunk_order,
                chunk_kinds,
                kinds,
                influences,
                sdef,
                rest_normals: rest_normals.clone(),
                has_qdef,
            }),
            normals: rest_normals,
            bones: BoneData {
                matrices: vec![Affine3A::IDENTITY; num_bones + 1],
                rotations: vec![Quat::IDENTITY; num_bones + 1],
                duals: vec![(Quat::IDENTITY, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)); num_bones + 1],
            },
            positions,
            subset_positions: Vec::new(),
            subset_normals: Vec::new(),
        }
    }

    /// Takes the weights of `vertices` (indices into `model`'s vertices; past the end:
    /// skipped) from `model` again after an edit changed them, the weight kind included, and
    /// skins just those vertices with this frame's bones and `positions` (the morphed
    /// positions of the last evaluation). Afterwards every output is what a new skinner of the
    /// edited model gives for the same frame, bit for bit. `model` must have the vertex and
    /// bone counts this skinner was built for (the caller checks).
    pub fn update_weights(
        &mut self,
        model: &Model,
        vertices: &[u32],
        positions: MorphedPositions<'_>,
    ) {
        let num_bones = self.bones.matrices.len().saturating_sub(1);
        // Copies the data only if a job taken before the edit still holds it.
        let data = Arc::make_mut(&mut self.data);
        let mut chunks: Vec<usize> = Vec::new();
        for &v in vertices {
            let v = v as usize;
            let (Some(vertex), Some(kind)) = (model.vertices.get(v), data.kinds.get(v)) else {
                continue;
            };
            // An SDEF vertex that stays SDEF keeps its slot; one that leaves it leaves the
            // slot unused (a new skinner would not have it; nothing reads it).
            let own_slot = (*kind == Kind::Sdef).then_some(data.influences[v].bones[2]);
            let (new_kind, packed) = pack(&vertex.weight, num_bones, own_slot, &mut data.sdef);
            if new_kind == Kind::Qdef && !data.has_qdef {
                // The first QDEF vertex: the bones' dual quaternions are needed from now on.
                data.has_qdef = true;
                self.bones.refresh_duals();
            }
            if new_kind != *kind {
                data.kinds[v] = new_kind;
                if chunks.last() != Some(&(v / CHUNK)) {
                    chunks.push(v / CHUNK);
                }
            }
            data.influences[v] = packed;
        }
        chunks.sort_unstable();
        chunks.dedup();
        for chunk in chunks {
            let base = chunk * CHUNK;
            let end = (base + CHUNK).min(data.kinds.len());
            data.chunk_kinds[chunk] =
                order_by_kind(&data.kinds[base..end], &mut data.chunk_order[base..end]);
        }
        self.update_vertices(vertices, positions);
    }

    /// Takes the bone transforms of this frame. Call after the skeleton is evaluated and
    /// before skinning.
    pub fn set_bones(&mut self, skeleton: &Skeleton) {
        let matrices = skeleton.skin_matrices();
        let globals = skeleton.globals();
        for (i, matrix) in matrices.iter().enumerate().take(self.bones.matrices.len()) {
            self.bones.matrices[i] = *matrix;
            let rotation = globals.get(i).map_or(Quat::IDENTITY, |g| g.rotation);
            self.bones.rotations[i] = rotation;
            if self.data.has_qdef {
                self.bones.duals[i] = dual_quaternion(matrix, rotation);
            }
        }
    }

    /// Skins every vertex from `positions` (rest positions with vertex morphs applied).
    pub fn skin_all(&mut self, positions: MorphedPositions<'_>) {
        self.data.skin_all_into(
            &self.bones,
            positions,
            &mut self.positions,
            &mut self.normals,
        );
    }

    /// Skins only `vertices` (for the preview, when a few bones or morphs changed) into
    /// `out_positions` and `out_normals`, which are parallel to `vertices`. Indices past the end
    /// are skipped (their outputs are left as they were).
    pub fn skin_vertices_into(
        &self,
        vertices: &[u32],
        positions: MorphedPositions<'_>,
        out_positions: &mut [Vec3],
        out_normals: &mut [Vec3],
    ) {
        self.data
            .skin_vertices_into(&self.bones, vertices, positions, out_positions, out_normals);
    }

    /// This frame's skinning as a job of its own, to be run later or never (see [`SkinJob`]).
    #[must_use]
    pub fn job(&self, morphs: super::morph::MorphSnapshot) -> SkinJob {
        SkinJob {
            data: Arc::clone(&self.data),
            bones: self.bones.clone(),
            morphs,
        }
    }

    /// Skins only `vertices` and writes them into the full output buffers
    /// ([`Skinner::positions`], [`Skinner::normals`]).
    pub fn update_vertices(&mut self, vertices: &[u32], positions: MorphedPositions<'_>) {
        self.data.skin_vertices_in_place(
            &self.bones,
            vertices,
            positions,
            [&mut self.subset_positions, &mut self.subset_normals],
            &mut self.positions,
            &mut self.normals,
        );
    }

    /// Deforms an arbitrary `position` and `normal` the way `vertex` deforms (its weights and
    /// this frame's bones): for moving SDEF points and morph offsets with a vertex.
    #[must_use]
    pub fn deform_as_vertex(
        &self,
        vertex: usize,
        position: Vec3,
        normal: Vec3,
    ) -> Option<(Vec3, Vec3)> {
        if vertex >= self.data.kinds.len() {
            return None;
        }
        let no_morphs = super::morph::VertexMorphTable::default();
        let context = self
            .data
            .context(&self.bones, MorphedPositions::new(&[], &no_morphs, &[]));
        let (p, n) = context.skin_point(vertex, position.into(), normal.into());
        Some((p.into(), n.into()))
    }

    /// The deform matrix of a bone this frame (the identity for no bone).
    #[must_use]
    pub fn bone_matrix(&self, bone: Option<crate::model::BoneIdx>) -> Affine3A {
        let last = self.bones.matrices.len().saturating_sub(1);
        bone.map(|b| b.get())
            .filter(|&b| b < last)
            .and_then(|b| self.bones.matrices.get(b))
            .copied()
            .unwrap_or(Affine3A::IDENTITY)
    }

    /// Skinned positions of the last [`Skinner::skin_all`].
    #[must_use]
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// Skinned normals, not renormalised (rotations keep the file's length, BDEF2/BDEF4
    /// blends shorten it): normalise them where they are used, or use
    /// [`Skinner::unit_normal`].
    #[must_use]
    pub fn normals(&self) -> &[Vec3] {
        &self.normals
    }

    /// The skinned normal of `vertex` at unit length (the rest normal when it has none).
    #[must_use]
    pub fn unit_normal(&self, vertex: usize) -> Option<Vec3> {
        let normal = *self.normals.get(vertex)?;
        Some(normal.normalize_or(self.data.rest_normals[vertex]))
    }

    /// The vertices whose weights refer to any bone for which `moved(bone)` is true (a
    /// reference to no bone never moves). For the preview: skin only these after a bone edit.
    pub fn vertices_using_bones(&self, moved: impl Fn(usize) -> bool, out: &mut Vec<u32>) {
        out.clear();
        let num_bones = self.bones.matrices.len().saturating_sub(1);
        for (v, (kind, influences)) in self
            .data
            .kinds
            .iter()
            .zip(&self.data.influences)
            .enumerate()
        {
            let used = match kind {
                Kind::Bdef1 => 1,
                Kind::Bdef2 | Kind::Sdef => 2,
                Kind::Bdef4 | Kind::Qdef => 4,
            };
            let uses = influences.bones[..used]
                .iter()
                .zip(&influences.weights[..used])
                .any(|(&b, &w)| {
                    let bone = b as usize;
                    w != 0.0 && bone < num_bones && moved(bone)
                });
            if uses {
                out.push(v as u32);
            }
        }
    }
}

/// One vertex's weight as skinning reads it, for a copy of the skinning data elsewhere (the
/// 3D view skins on the GPU): an invalid bone reference is the identity slot `num_bones`, and
/// SDEF's points are worked out exactly as here.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PackedWeight {
    pub kind: Kind,
    /// Bone indices (the identity slot where there is none; SDEF: the two bones, then the
    /// identity slot twice).
    pub bones: [u32; 4],
    pub weights: [f32; 4],
    /// SDEF: C and the corrected `(C + r0) / 2`, `(C + r1) / 2` the skinning transforms.
    pub sdef: Option<[Vec3; 3]>,
}

/// Packs `weight` as [`Skinner`] does, for a model of `num_bones` bones.
#[must_use]
pub fn packed_weight(weight: &Weight, num_bones: usize) -> PackedWeight {
    let mut sdef = Vec::with_capacity(1);
    let (kind, influences) = pack(weight, num_bones, None, &mut sdef);
    let mut bones = influences.bones;
    let sdef = (kind == Kind::Sdef).then(|| {
        bones[2] = num_bones as u32;
        sdef.first().map_or([Vec3::ZERO; 3], |p| {
            [p.c.into(), p.cr0.into(), p.cr1.into()]
        })
    });
    PackedWeight {
        kind,
        bones,
        weights: influences.weights,
        sdef,
    }
}

/// Packs one vertex's weight for skinning: its kind and influences (an invalid bone
/// reference points at the identity slot `num_bones`). SDEF's corrected points go into
/// `sdef`, at `slot` when given (the vertex's own, reused when its weight changes) or at the
/// end.
fn pack(
    weight: &Weight,
    num_bones: usize,
    slot: Option<u32>,
    sdef: &mut Vec<SdefParams>,
) -> (Kind, Influences) {
    let identity = num_bones as u32;
    let bone = |b: Option<crate::model::BoneIdx>| {
        b.map(|b| b.get())
            .filter(|&b| b < num_bones)
            .map_or(identity, |b| b as u32)
    };
    let (kind, bones, weights) = match weight {
        Weight::Bdef1 { bone: b } => (
            Kind::Bdef1,
            [bone(*b), identity, identity, identity],
            [1.0, 0.0, 0.0, 0.0],
        ),
        Weight::Bdef2 { bones, weight } => (
            Kind::Bdef2,
            [bone(bones[0]), bone(bones[1]), identity, identity],
            [*weight, 1.0 - *weight, 0.0, 0.0],
        ),
        Weight::Bdef4 { bones, weights } => (Kind::Bdef4, bones.map(bone), *weights),
        Weight::Qdef { bones, weights } => (Kind::Qdef, bones.map(bone), *weights),
        Weight::Sdef {
            bones,
            weight,
            c,
            r0,
            r1,
        } => {
            let (w0, w1) = (*weight, 1.0 - *weight);
            let c = Vec3A::from(Vec3::from(*c));
            let r0 = Vec3A::from(Vec3::from(*r0));
            let r1 = Vec3A::from(Vec3::from(*r1));
            let blended = r0 * w0 + r1 * w1;
            let corrected0 = c + r0 - blended;
            let corrected1 = c + r1 - blended;
            let params = SdefParams {
                c,
                cr0: (c + corrected0) * 0.5,
                cr1: (c + corrected1) * 0.5,
            };
            let index = match slot.filter(|&s| (s as usize) < sdef.len()) {
                Some(index) => {
                    sdef[index as usize] = params;
                    index
                }
                None => {
                    sdef.push(params);
                    (sdef.len() - 1) as u32
                }
            };
            (
                Kind::Sdef,
                [bone(bones[0]), bone(bones[1]), index, identity],
                [w0, w1, 0.0, 0.0],
            )
        }
    };
    (kind, Influences { bones, weights })
}

/// Writes the offsets of one chunk's vertices into `order` (as long as `kinds`) grouped by
/// kind, and returns where each kind starts in it.
fn order_by_kind(kinds: &[Kind], order: &mut [u16]) -> [u16; NUM_KINDS + 1] {
    let mut bounds = [0u16; NUM_KINDS + 1];
    let mut next = 0;
    for (k, kind) in [
        Kind::Bdef1,
        Kind::Bdef2,
        Kind::Bdef4,
        Kind::Sdef,
        Kind::Qdef,
    ]
    .into_iter()
    .enumerate()
    {
        for (local, _) in kinds.iter().enumerate().filter(|(_, k)| **k == kind) {
            order[next] = local as u16;
            next += 1;
        }
        bounds[k + 1] = next as u16;
    }
    bounds
}

/// Skins the vertices `base + local` for `local` in `span` with `skin` (one weight kind, so the
/// loop has no branch on the kind), writing at `local` in the chunk's outputs.
#[inline(always)]
fn skin_span(
    span: &[u16],
    base: usize,
    out_positions: &mut [Vec3],
    out_normals: &mut [Vec3],
    skin: impl Fn(usize) -> (Vec3A, Vec3A),
) {
    for &local in span {
        let local = local as usize;
        let (p, n) = skin(base + local);
        out_positions[local] = p.into();
        out_normals[local] = n.into();
    }
}

struct Context<'a> {
    kinds: &'a [Kind],
    influences: &'a [Influences],
    sdef: &'a [SdefParams],
    bones: &'a BoneData,
    positions: MorphedPositions<'a>,
    normals: &'a [Vec3],
}

impl Context<'_> {
    #[inline(always)]
    fn inputs(&self, v: usize) -> (Vec3A, Vec3A) {
        (
            Vec3A::from(self.positions.at(v)),
            Vec3A::from(self.normals[v]),
        )
    }

    /// Any kind (for subsets and single points).
    fn skin(&self, v: usize) -> (Vec3A, Vec3A) {
        let (position, normal) = self.inputs(v);
        self.skin_point(v, position, normal)
    }

    #[inline(always)]
    fn bdef1(&self, v: usize) -> (Vec3A, Vec3A) {
        let (position, normal) = self.inputs(v);
        bdef1(&self.bones.matrices, &self.influences[v], position, normal)
    }

    #[inline(always)]
    fn bdef2(&self, v: usize) -> (Vec3A, Vec3A) {
        let (position, normal) = self.inputs(v);
        bdef2(&self.bones.matrices, &self.influences[v], position, normal)
    }

    #[inline(always)]
    fn bdef4(&self, v: usize) -> (Vec3A, Vec3A) {
        let (position, normal) = self.inputs(v);
        bdef4(&self.bones.matrices, &self.influences[v], position, normal)
    }

    #[inline(always)]
    fn sdef(&self, v: usize) -> (Vec3A, Vec3A) {
        let (position, normal) = self.inputs(v);
        sdef(self.bones, self.sdef, &self.influences[v], position, normal)
    }

    #[inline(always)]
    fn qdef(&self, v: usize) -> (Vec3A, Vec3A) {
        let (position, normal) = self.inputs(v);
        qdef(self.bones, &self.influences[v], position, normal)
    }

    /// Deforms `position` and `normal` as vertex `v` (which must be in range) deforms.
    fn skin_point(&self, v: usize, position: Vec3A, normal: Vec3A) -> (Vec3A, Vec3A) {
        let influences = &self.influences[v];
        let m = &self.bones.matrices;
        match self.kinds[v] {
            Kind::Bdef1 => bdef1(m, influences, position, normal),
            Kind::Bdef2 => bdef2(m, influences, position, normal),
            Kind::Bdef4 => bdef4(m, influences, position, normal),
            Kind::Sdef => sdef(self.bones, self.sdef, influences, position, normal),
            Kind::Qdef => qdef(self.bones, influences, position, normal),
        }
    }
}

#[inline(always)]
fn bdef1(
    m: &[Affine3A],
    influences: &Influences,
    position: Vec3A,
    normal: Vec3A,
) -> (Vec3A, Vec3A) {
    let matrix = &m[influences.bones[0] as usize];
    (matrix.transform_point3a(position), matrix.matrix3 * normal)
}

#[inline(always)]
fn bdef2(
    m: &[Affine3A],
    influences: &Influences,
    position: Vec3A,
    normal: Vec3A,
) -> (Vec3A, Vec3A) {
    let Influences { bones, weights } = influences;
    let (a, b) = (&m[bones[0] as usize], &m[bones[1] as usize]);
    let linear = a.matrix3 * weights[0] + b.matrix3 * weights[1];
    let translation = a.translation * weights[0] + b.translation * weights[1];
    blend(linear, translation, position, normal)
}

#[inline(always)]
fn bdef4(
    m: &[Affine3A],
    influences: &Influences,
    position: Vec3A,
    normal: Vec3A,
) -> (Vec3A, Vec3A) {
    let Influences { bones, weights } = influences;
    let mut linear = Mat3A::ZERO;
    let mut translation = Vec3A::ZERO;
    for k in 0..4 {
        let matrix = &m[bones[k] as usize];
        linear += matrix.matrix3 * weights[k];
        translation += matrix.translation * weights[k];
    }
    blend(linear, translation, position, normal)
}

#[inline(always)]
fn sdef(
    bones: &BoneData,
    params: &[SdefParams],
    influences: &Influences,
    position: Vec3A,
    normal: Vec3A,
) -> (Vec3A, Vec3A) {
    let Influences {
        bones: indices,
        weights,
    } = influences;
    let Some(params) = params.get(indices[2] as usize) else {
        return (position, normal);
    };
    let (b0, b1) = (indices[0] as usize, indices[1] as usize);
    let (w0, w1) = (weights[0], weights[1]);
    let m = &bones.matrices;
    let rotation = Mat3A::from_quat(slerp(bones.rotations[b0], bones.rotations[b1], w1));
    let p = rotation * (position - params.c)
        + m[b0].transform_point3a(params.cr0) * w0
        + m[b1].transform_point3a(params.cr1) * w1;
    // A rotation keeps the normal's length, as with BDEF1.
    (p, rotation * normal)
}

/// Spherical interpolation on the shorter arc. With `t` in 0..=1 (SDEF weights) it runs on
/// series that are exact to f32 precision on the ranges they see, instead of libm's atan and
/// sin/cos: SDEF vertices are skinned a million at a time.
#[inline(always)]
fn slerp(from: Quat, to: Quat, t: f32) -> Quat {
    let mut cos = from.dot(to);
    let to = if cos < 0.0 {
        cos = -cos;
        -to
    } else {
        to
    };
    if cos > 0.9995 {
        return from.lerp(to, t).normalize();
    }
    let sin = (1.0 - cos * cos).sqrt();
    // cos ≥ 0, so the half angle is in [0, π/2].
    let angle = atan_unit(sin / (1.0 + cos)) * 2.0;
    let (sin_t, cos_t) = if (0.0..=1.0).contains(&t) {
        sin_cos_quarter_turn(angle * t)
    } else {
        (angle * t).sin_cos()
    };
    // sin((1 - t)θ) = sin θ cos tθ − cos θ sin tθ.
    let scale_from = (sin * cos_t - cos * sin_t) / sin;
    let scale_to = sin_t / sin;
    from * scale_from + to * scale_to
}

/// atan(r) for r in [0, 1]: above tan(π/12) the argument is reduced by π/6, so the Taylor
/// series runs on |z| ≤ 0.268, where its terms past z¹⁵ are below 1e-10.
#[inline(always)]
fn atan_unit(r: f32) -> f32 {
    const TAN_PI_12: f32 = 0.267_949_2;
    const INV_SQRT_3: f32 = 0.577_350_26;
    let (z, base) = if r > TAN_PI_12 {
        (
            (r - INV_SQRT_3) / (1.0 + r * INV_SQRT_3),
            std::f32::consts::FRAC_PI_6,
        )
    } else {
        (r, 0.0)
    };
    let z2 = z * z;
    let series = 1.0
        + z2 * (-1.0 / 3.0
            + z2 * (1.0 / 5.0
                + z2 * (-1.0 / 7.0
                    + z2 * (1.0 / 9.0
                        + z2 * (-1.0 / 11.0 + z2 * (1.0 / 13.0 + z2 * (-1.0 / 15.0)))))));
    base + z * series
}

/// sin and cos of x in [0, π/2] by their Taylor series (the first terms left out are below
/// 7e-10 there).
#[inline(always)]
fn sin_cos_quarter_turn(x: f32) -> (f32, f32) {
    let x2 = x * x;
    let sin = x
        * (1.0
            + x2 * (-1.0 / 6.0
                + x2 * (1.0 / 120.0
                    + x2 * (-1.0 / 5_040.0
                        + x2 * (1.0 / 362_880.0
                            + x2 * (-1.0 / 39_916_800.0 + x2 * (1.0 / 6_227_020_800.0)))))));
    let cos = 1.0
        + x2 * (-0.5
            + x2 * (1.0 / 24.0
                + x2 * (-1.0 / 720.0
                    + x2 * (1.0 / 40_320.0
                        + x2 * (-1.0 / 3_628_800.0
                            + x2 * (1.0 / 479_001_600.0 + x2 * (-1.0 / 87_178_291_200.0)))))));
    (sin, cos)
}

#[inline(always)]
fn qdef(
    bones: &BoneData,
    influences: &Influences,
    position: Vec3A,
    normal: Vec3A,
) -> (Vec3A, Vec3A) {
    let Influences {
        bones: indices,
        weights,
    } = influences;
    let duals = &bones.duals;
    let pivot = duals[indices[0] as usize].0;
    let mut real = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    let mut dual = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    for k in 0..4 {
        let (r, d) = duals[indices[k] as usize];
        // Blend on one hemisphere, or opposite rotations cancel out.
        let w = if pivot.dot(r) < 0.0 {
            -weights[k]
        } else {
            weights[k]
        };
        real += r * w;
        dual += d * w;
    }
    let length = real.length();
    if length <= f32::EPSILON {
        return (position, normal);
    }
    let (real, dual) = (real * length.recip(), dual * length.recip());
    let t = dual * real.conjugate();
    let translation = Vec3A::new(t.x, t.y, t.z) * 2.0;
    let rotation = Mat3A::from_quat(real);
    (rotation * position + translation, rotation * normal)
}

/// A linear blend. The blended normal is not renormalised: a square root and a division per
/// vertex are a third of the cost of BDEF2 skinning, and shaders normalise normals anyway
/// ([`Skinner::unit_normal`] gives the unit one).
#[inline(always)]
fn blend(linear: Mat3A, translation: Vec3A, position: Vec3A, normal: Vec3A) -> (Vec3A, Vec3A) {
    (linear * position + translation, linear * normal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_match_libm() {
        for i in 0..=1000 {
            let r = i as f32 / 1000.0;
            assert!((atan_unit(r) - r.atan()).abs() < 2e-7, "atan {r}");
            let x = r * std::f32::consts::FRAC_PI_2;
            let (s, c) = sin_cos_quarter_turn(x);
            assert!(
                (s - x.sin()).abs() < 2e-7 && (c - x.cos()).abs() < 2e-7,
                "sin_cos {x}"
            );
        }
        let (a, b) = (
            Quat::from_rotation_x(0.3),
            Quat::from_rotation_y(2.0) * Quat::from_rotation_z(-1.0),
        );
        for i in 0..=20 {
            let t = i as f32 / 20.0;
            let expected = a.slerp(b, t);
            let got = slerp(a, b, t);
            assert!(
                got.abs_diff_eq(expected, 1e-6) || got.abs_diff_eq(-expected, 1e-6),
                "{t}: {got} {expected}"
            );
        }
    }
}
