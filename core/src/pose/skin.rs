//! Skinning: BDEF1, BDEF2, BDEF4, SDEF (with the C/R0/R1 correction) and QDEF (dual
//! quaternion), positions and normals, in parallel over vertices.

use super::bone::Skeleton;
use crate::model::{Model, Weight};
use glam::{Affine3A, Mat3A, Quat, Vec3, Vec3A};
use rayon::prelude::*;

/// Vertices per parallel task: large enough to amortise scheduling, small enough to balance
/// two to many cores.
const CHUNK: usize = 8 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Kind {
    Bdef1,
    Bdef2,
    Bdef4,
    Sdef,
    Qdef,
}

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

/// Deforms vertices by the skeleton. Holds the packed weights and the output buffers, which it
/// reuses every frame.
#[derive(Debug, Clone)]
pub struct Skinner {
    kinds: Vec<Kind>,
    influences: Vec<Influences>,
    sdef: Vec<SdefParams>,
    rest_normals: Vec<Vec3>,
    bones: BoneData,
    has_qdef: bool,
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    subset_positions: Vec<Vec3>,
    subset_normals: Vec<Vec3>,
}

impl Skinner {
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let num_bones = model.bones.len();
        let identity = num_bones as u32;
        let slot = |b: Option<crate::model::BoneIdx>| {
            b.map(|b| b.get())
                .filter(|&b| b < num_bones)
                .map_or(identity, |b| b as u32)
        };
        let mut kinds = Vec::with_capacity(model.vertices.len());
        let mut influences = Vec::with_capacity(model.vertices.len());
        let mut sdef = Vec::new();
        let mut has_qdef = false;
        for vertex in &model.vertices {
            let (kind, bones, weights) = match &vertex.weight {
                Weight::Bdef1 { bone } => (
                    Kind::Bdef1,
                    [slot(*bone), identity, identity, identity],
                    [1.0, 0.0, 0.0, 0.0],
                ),
                Weight::Bdef2 { bones, weight } => (
                    Kind::Bdef2,
                    [slot(bones[0]), slot(bones[1]), identity, identity],
                    [*weight, 1.0 - *weight, 0.0, 0.0],
                ),
                Weight::Bdef4 { bones, weights } => (Kind::Bdef4, bones.map(slot), *weights),
                Weight::Qdef { bones, weights } => {
                    has_qdef = true;
                    (Kind::Qdef, bones.map(slot), *weights)
                }
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
                    let index = sdef.len() as u32;
                    sdef.push(SdefParams {
                        c,
                        cr0: (c + corrected0) * 0.5,
                        cr1: (c + corrected1) * 0.5,
                    });
                    (
                        Kind::Sdef,
                        [slot(bones[0]), slot(bones[1]), index, identity],
                        [w0, w1, 0.0, 0.0],
                    )
                }
            };
            kinds.push(kind);
            influences.push(Influences { bones, weights });
        }
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
        Self {
            kinds,
            influences,
            sdef,
            normals: rest_normals.clone(),
            rest_normals,
            bones: BoneData {
                matrices: vec![Affine3A::IDENTITY; num_bones + 1],
                rotations: vec![Quat::IDENTITY; num_bones + 1],
                duals: vec![(Quat::IDENTITY, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)); num_bones + 1],
            },
            has_qdef,
            positions,
            subset_positions: Vec::new(),
            subset_normals: Vec::new(),
        }
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
            if self.has_qdef {
                let translation = Vec3::from(matrix.translation);
                let dual = Quat::from_xyzw(translation.x, translation.y, translation.z, 0.0)
                    * rotation
                    * 0.5;
                self.bones.duals[i] = (rotation, dual);
            }
        }
    }

    /// Skins every vertex from `positions` (rest positions with vertex morphs applied).
    pub fn skin_all(&mut self, positions: &[Vec3]) {
        let count = self
            .positions
            .len()
            .min(positions.len())
            .min(self.kinds.len());
        let context = Context {
            kinds: &self.kinds[..count],
            influences: &self.influences[..count],
            sdef: &self.sdef,
            bones: &self.bones,
            positions: &positions[..count],
            normals: &self.rest_normals[..count],
        };
        self.positions[..count]
            .par_chunks_mut(CHUNK)
            .zip(self.normals[..count].par_chunks_mut(CHUNK))
            .enumerate()
            .for_each(|(chunk, (out_positions, out_normals))| {
                let start = chunk * CHUNK;
                for (offset, (out_position, out_normal)) in out_positions
                    .iter_mut()
                    .zip(out_normals.iter_mut())
                    .enumerate()
                {
                    (*out_position, *out_normal) = context.skin(start + offset);
                }
            });
    }

    /// Skins only `vertices` (for the preview, when a few bones or morphs changed) into
    /// `out_positions` and `out_normals`, which are parallel to `vertices`. Indices past the end
    /// are skipped (their outputs are left as they were).
    pub fn skin_vertices_into(
        &self,
        vertices: &[u32],
        positions: &[Vec3],
        out_positions: &mut [Vec3],
        out_normals: &mut [Vec3],
    ) {
        let count = self.kinds.len().min(positions.len());
        let context = Context {
            kinds: &self.kinds[..count],
            influences: &self.influences[..count],
            sdef: &self.sdef,
            bones: &self.bones,
            positions: &positions[..count],
            normals: &self.rest_normals[..count],
        };
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
                    if (v as usize) < count {
                        (*out_position, *out_normal) = context.skin(v as usize);
                    }
                }
            });
    }

    /// Skins only `vertices` and writes them into the full output buffers
    /// ([`Skinner::positions`], [`Skinner::normals`]).
    pub fn update_vertices(&mut self, vertices: &[u32], positions: &[Vec3]) {
        let mut out_positions = std::mem::take(&mut self.subset_positions);
        let mut out_normals = std::mem::take(&mut self.subset_normals);
        out_positions.resize(vertices.len(), Vec3::ZERO);
        out_normals.resize(vertices.len(), Vec3::ZERO);
        self.skin_vertices_into(vertices, positions, &mut out_positions, &mut out_normals);
        for ((&v, position), normal) in vertices.iter().zip(&out_positions).zip(&out_normals) {
            if let (Some(p), Some(n)) = (
                self.positions.get_mut(v as usize),
                self.normals.get_mut(v as usize),
            ) {
                *p = *position;
                *n = *normal;
            }
        }
        self.subset_positions = out_positions;
        self.subset_normals = out_normals;
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
        if vertex >= self.kinds.len() {
            return None;
        }
        let context = Context {
            kinds: &self.kinds,
            influences: &self.influences,
            sdef: &self.sdef,
            bones: &self.bones,
            positions: &[],
            normals: &[],
        };
        let (p, n) = context.skin_point(vertex, position.into(), normal.into());
        Some((p.into(), n.into()))
    }

    /// The deform matrix of a bone this frame (the identity for no bone).
    #[must_use]
    pub fn bone_matrix(&self, bone: Option<crate::model::BoneIdx>) -> Affine3A {
        bone.and_then(|b| self.bones.matrices.get(b.get()))
            .filter(|_| bone.is_some_and(|b| b.get() + 1 < self.bones.matrices.len()))
            .copied()
            .unwrap_or(Affine3A::IDENTITY)
    }

    /// Skinned positions of the last [`Skinner::skin_all`].
    #[must_use]
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// Skinned normals (unit length for blended vertices; BDEF1 keeps the file's length).
    #[must_use]
    pub fn normals(&self) -> &[Vec3] {
        &self.normals
    }

    /// The vertices whose weights refer to any bone for which `moved(bone)` is true (a
    /// reference to no bone never moves). For the preview: skin only these after a bone edit.
    pub fn vertices_using_bones(&self, moved: impl Fn(usize) -> bool, out: &mut Vec<u32>) {
        out.clear();
        let num_bones = self.bones.matrices.len().saturating_sub(1);
        for (v, (kind, influences)) in self.kinds.iter().zip(&self.influences).enumerate() {
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
                    // SDEF's third slot is its parameter index, not a bone.
                    w != 0.0 && bone < num_bones && moved(bone)
                });
            if uses {
                out.push(v as u32);
            }
        }
    }
}

struct Context<'a> {
    kinds: &'a [Kind],
    influences: &'a [Influences],
    sdef: &'a [SdefParams],
    bones: &'a BoneData,
    positions: &'a [Vec3],
    normals: &'a [Vec3],
}

impl Context<'_> {
    #[inline]
    fn skin(&self, v: usize) -> (Vec3, Vec3) {
        let (p, n) = self.skin_point(
            v,
            Vec3A::from(self.positions[v]),
            Vec3A::from(self.normals[v]),
        );
        (p.into(), n.into())
    }

    /// Deforms `position` and `normal` as vertex `v` (which must be in range) deforms.
    #[inline]
    fn skin_point(&self, v: usize, position: Vec3A, normal: Vec3A) -> (Vec3A, Vec3A) {
        let Influences { bones, weights } = self.influences[v];
        let m = &self.bones.matrices;
        let (p, n) = match self.kinds[v] {
            Kind::Bdef1 => {
                let matrix = &m[bones[0] as usize];
                (matrix.transform_point3a(position), matrix.matrix3 * normal)
            }
            Kind::Bdef2 => {
                let (a, b) = (&m[bones[0] as usize], &m[bones[1] as usize]);
                let linear = a.matrix3 * weights[0] + b.matrix3 * weights[1];
                let translation = a.translation * weights[0] + b.translation * weights[1];
                blend(linear, translation, position, normal)
            }
            Kind::Bdef4 => {
                let mut linear = Mat3A::ZERO;
                let mut translation = Vec3A::ZERO;
                for k in 0..4 {
                    let matrix = &m[bones[k] as usize];
                    linear += matrix.matrix3 * weights[k];
                    translation += matrix.translation * weights[k];
                }
                blend(linear, translation, position, normal)
            }
            Kind::Sdef => {
                let Some(params) = self.sdef.get(bones[2] as usize) else {
                    return (position, normal);
                };
                let (b0, b1) = (bones[0] as usize, bones[1] as usize);
                let (w0, w1) = (weights[0], weights[1]);
                let rotations = &self.bones.rotations;
                let rotation = rotations[b0].slerp(rotations[b1], w1);
                let p = rotation * (position - params.c)
                    + m[b0].transform_point3a(params.cr0) * w0
                    + m[b1].transform_point3a(params.cr1) * w1;
                (p, (rotation * normal).normalize_or(normal))
            }
            Kind::Qdef => {
                let duals = &self.bones.duals;
                let pivot = duals[bones[0] as usize].0;
                let mut real = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
                let mut dual = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
                for k in 0..4 {
                    let (r, d) = duals[bones[k] as usize];
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
                (real * position + translation, real * normal)
            }
        };
        (p, n)
    }
}

#[inline]
fn blend(linear: Mat3A, translation: Vec3A, position: Vec3A, normal: Vec3A) -> (Vec3A, Vec3A) {
    let n = linear * normal;
    (linear * position + translation, n.normalize_or(normal))
}
