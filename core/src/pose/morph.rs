//! Morph evaluation: vertex, UV and additional UV, bone, material (multiply and add kept apart),
//! group, flip (the spec's two passes) and impulse (collected per rigid body).

use super::bone::Skeleton;
use crate::model::{
    GroupMorphOffset, ImpulseMorphOffset, Material, MaterialMorphOffset, MaterialMorphOp, Model,
    MorphOffsets,
};
use glam::{Vec2, Vec3, Vec3A, Vec4};
use rayon::prelude::*;

/// Vertices per parallel task when UV morphs are applied.
const UV_CHUNK: usize = 64 * 1024;

/// A UV channel (the UV or an additional UV) with the UV morph offsets grouped by vertex: each
/// frame the vertices some UV morph can change are recomputed as rest + Σ offset × weight, in
/// vertex order and in parallel, so there is nothing to undo from the frame before and no
/// scattered writes over a big model.
#[derive(Debug, Clone)]
pub(crate) struct UvChannel<T> {
    rest: Vec<T>,
    current: Vec<T>,
    /// The vertices with offsets, ascending.
    vertices: Vec<u32>,
    /// Offsets of `vertices[i]` are `rows[i]..rows[i + 1]`.
    rows: Vec<u32>,
    morph: Vec<u32>,
    offset: Vec<T>,
}

impl<T> UvChannel<T>
where
    T: Copy + Send + Sync + std::ops::Add<Output = T> + std::ops::Mul<f32, Output = T>,
{
    /// `entries`: (vertex, morph, offset) in morph order; vertices past the end are dropped.
    fn new(rest: Vec<T>, entries: impl Iterator<Item = (usize, usize, T)>) -> Self {
        let mut entries: Vec<(u32, u32, T)> = entries
            .filter(|(v, _, _)| *v < rest.len())
            .map(|(v, m, o)| (v as u32, m as u32, o))
            .collect();
        // Stable: a vertex's offsets stay in morph order, so sums are the same every frame.
        entries.sort_by_key(|&(v, _, _)| v);
        let mut vertices = Vec::new();
        let mut rows = Vec::new();
        for (i, &(v, _, _)) in entries.iter().enumerate() {
            if vertices.last() != Some(&v) {
                vertices.push(v);
                rows.push(i as u32);
            }
        }
        rows.push(entries.len() as u32);
        Self {
            current: rest.clone(),
            rest,
            vertices,
            rows,
            morph: entries.iter().map(|e| e.1).collect(),
            offset: entries.iter().map(|e| e.2).collect(),
        }
    }

    fn update(&mut self, weights: &[f32]) {
        let (rest, vertices, rows, morph, offset) = (
            &self.rest,
            &self.vertices,
            &self.rows,
            &self.morph,
            &self.offset,
        );
        if vertices.is_empty() {
            return;
        }
        self.current
            .par_chunks_mut(UV_CHUNK)
            .enumerate()
            .for_each(|(chunk, out)| {
                let base = chunk * UV_CHUNK;
                let first = vertices.partition_point(|&v| (v as usize) < base);
                let last = vertices.partition_point(|&v| (v as usize) < base + out.len());
                for i in first..last {
                    let v = vertices[i] as usize;
                    let mut value = rest[v];
                    for entry in rows[i] as usize..rows[i + 1] as usize {
                        let weight = weights.get(morph[entry] as usize).copied().unwrap_or(0.0);
                        value = value + offset[entry] * weight;
                    }
                    out[v - base] = value;
                }
            });
    }
}

/// Vertex morph offsets grouped by vertex (compressed rows), so that skinning adds them while
/// it streams through the vertices instead of morphs scattering writes over a big model.
#[derive(Debug, Clone, Default)]
pub struct VertexMorphTable {
    /// Entries of vertex `v` are `start[v]..start[v + 1]`; empty when no morph moves vertices.
    start: Vec<u32>,
    morph: Vec<u32>,
    offset: Vec<Vec3>,
}

impl VertexMorphTable {
    /// The offsets of `model`'s vertex morphs, grouped by vertex in morph order.
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let num_vertices = model.vertices.len();
        let vertex_offsets = || {
            model
                .morphs
                .iter()
                .enumerate()
                .filter_map(|(m, morph)| match &morph.offsets {
                    MorphOffsets::Vertex(list) => Some((m, list)),
                    _ => None,
                })
                .flat_map(|(m, list)| list.iter().map(move |o| (m, o)))
                .filter(|(_, o)| o.vertex.get() < num_vertices)
        };
        let mut counts = vec![0u32; num_vertices + 1];
        let mut total = 0usize;
        for (_, o) in vertex_offsets() {
            counts[o.vertex.get() + 1] += 1;
            total += 1;
        }
        if total == 0 {
            return Self::default();
        }
        for v in 0..num_vertices {
            counts[v + 1] += counts[v];
        }
        let start = counts;
        let mut cursor = start.clone();
        let mut morph = vec![0u32; total];
        let mut offset = vec![Vec3::ZERO; total];
        // In morph order, so every frame sums a vertex's offsets in the same order.
        for (m, o) in vertex_offsets() {
            let slot = &mut cursor[o.vertex.get()];
            morph[*slot as usize] = m as u32;
            offset[*slot as usize] = Vec3::from(o.offset);
            *slot += 1;
        }
        Self {
            start,
            morph,
            offset,
        }
    }
}

impl VertexMorphTable {
    /// Where each vertex's entries start: vertex `v`'s are `starts()[v]..starts()[v + 1]`
    /// (empty when no morph moves a vertex).
    #[must_use]
    pub fn starts(&self) -> &[u32] {
        &self.start
    }

    /// The entries, grouped by vertex in morph order: the morph and its offset.
    pub fn entries(&self) -> impl Iterator<Item = (u32, Vec3)> + '_ {
        self.morph.iter().copied().zip(self.offset.iter().copied())
    }
}

/// Rest positions with this frame's vertex morphs: what skinning deforms.
#[derive(Debug, Clone, Copy)]
pub struct MorphedPositions<'a> {
    rest: &'a [Vec3],
    table: &'a VertexMorphTable,
    /// Total weight of each morph this frame (its value plus what groups add).
    weights: &'a [f32],
}

impl<'a> MorphedPositions<'a> {
    pub(crate) fn new(rest: &'a [Vec3], table: &'a VertexMorphTable, weights: &'a [f32]) -> Self {
        Self {
            rest,
            table,
            weights,
        }
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.rest.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// The morphed position of vertex `v`.
    #[must_use]
    pub fn get(&self, v: usize) -> Option<Vec3> {
        (v < self.rest.len()).then(|| self.at(v))
    }

    /// `v` must be below `len()`.
    #[inline(always)]
    pub(crate) fn at(&self, v: usize) -> Vec3 {
        let mut position = self.rest[v];
        if let Some(bounds) = self.table.start.get(v..v + 2) {
            for entry in bounds[0] as usize..bounds[1] as usize {
                let weight = self.weights[self.table.morph[entry] as usize];
                position += self.table.offset[entry] * weight;
            }
        }
        position
    }
}

/// One frame's [`MorphedPositions`], owned: see [`MorphEvaluator::snapshot`].
#[derive(Debug, Clone)]
pub struct MorphSnapshot {
    rest: std::sync::Arc<[Vec3]>,
    table: std::sync::Arc<VertexMorphTable>,
    weights: Vec<f32>,
}

impl MorphSnapshot {
    /// The morphed positions, as the evaluation they were taken from gave them.
    #[must_use]
    pub fn positions(&self) -> MorphedPositions<'_> {
        MorphedPositions::new(&self.rest, &self.table, &self.weights)
    }
}

/// The material values a material morph changes, as one set (the multiply set starts at 1,
/// the add set at 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialValues {
    pub diffuse: Vec4,
    pub specular: Vec3,
    pub specular_power: f32,
    pub ambient: Vec3,
    pub edge_color: Vec4,
    pub edge_size: f32,
    pub texture_tint: Vec4,
    pub sphere_tint: Vec4,
    pub toon_tint: Vec4,
}

impl MaterialValues {
    pub const ONE: Self = Self {
        diffuse: Vec4::ONE,
        specular: Vec3::ONE,
        specular_power: 1.0,
        ambient: Vec3::ONE,
        edge_color: Vec4::ONE,
        edge_size: 1.0,
        texture_tint: Vec4::ONE,
        sphere_tint: Vec4::ONE,
        toon_tint: Vec4::ONE,
    };
    pub const ZERO: Self = Self {
        diffuse: Vec4::ZERO,
        specular: Vec3::ZERO,
        specular_power: 0.0,
        ambient: Vec3::ZERO,
        edge_color: Vec4::ZERO,
        edge_size: 0.0,
        texture_tint: Vec4::ZERO,
        sphere_tint: Vec4::ZERO,
        toon_tint: Vec4::ZERO,
    };

    fn of(offset: &MaterialMorphOffset) -> Self {
        Self {
            diffuse: offset.diffuse.into(),
            specular: offset.specular.into(),
            specular_power: offset.specular_power,
            ambient: offset.ambient.into(),
            edge_color: offset.edge_color.into(),
            edge_size: offset.edge_size,
            texture_tint: offset.texture_tint.into(),
            sphere_tint: offset.sphere_tint.into(),
            toon_tint: offset.toon_tint.into(),
        }
    }

    /// `self *= 1 + (factor - 1) × weight`, field by field: a multiply morph at `weight`.
    fn multiply_by(&mut self, factor: &Self, weight: f32) {
        let v4 = |f: Vec4| Vec4::ONE + (f - Vec4::ONE) * weight;
        let v3 = |f: Vec3| Vec3::ONE + (f - Vec3::ONE) * weight;
        let s = |f: f32| 1.0 + (f - 1.0) * weight;
        self.diffuse *= v4(factor.diffuse);
        self.specular *= v3(factor.specular);
        self.specular_power *= s(factor.specular_power);
        self.ambient *= v3(factor.ambient);
        self.edge_color *= v4(factor.edge_color);
        self.edge_size *= s(factor.edge_size);
        self.texture_tint *= v4(factor.texture_tint);
        self.sphere_tint *= v4(factor.sphere_tint);
        self.toon_tint *= v4(factor.toon_tint);
    }

    /// `self += offset × weight`: an add morph at `weight`.
    fn add_scaled(&mut self, offset: &Self, weight: f32) {
        self.diffuse += offset.diffuse * weight;
        self.specular += offset.specular * weight;
        self.specular_power += offset.specular_power * weight;
        self.ambient += offset.ambient * weight;
        self.edge_color += offset.edge_color * weight;
        self.edge_size += offset.edge_size * weight;
        self.texture_tint += offset.texture_tint * weight;
        self.sphere_tint += offset.sphere_tint * weight;
        self.toon_tint += offset.toon_tint * weight;
    }
}

/// What the material morphs did to one material: the multiply and add sets, kept apart as the
/// spec asks, applied at draw time as `value × multiply + add`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialMorphState {
    pub multiply: MaterialValues,
    pub add: MaterialValues,
}

impl Default for MaterialMorphState {
    fn default() -> Self {
        Self {
            multiply: MaterialValues::ONE,
            add: MaterialValues::ZERO,
        }
    }
}

/// A texture's morph tint (texture, sphere or toon): how the shader changes a texel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextureTint {
    pub multiply: Vec4,
    pub add: Vec4,
}

impl TextureTint {
    /// The tinted colour of a texel. The spec: the tint's A is the ratio of a blend of the
    /// multiplied texel with white (multiply) and of the added colour with black (add); the
    /// texel's own alpha is not changed by the morph.
    #[must_use]
    pub fn apply(&self, texel_rgb: Vec3) -> Vec3 {
        let multiplied = texel_rgb * self.multiply.truncate();
        let multiplied = Vec3::ONE.lerp(multiplied, self.multiply.w);
        multiplied + self.add.truncate() * self.add.w
    }
}

/// A material with its morphs applied.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MorphedMaterial {
    pub diffuse: Vec4,
    pub specular: Vec3,
    pub specular_power: f32,
    pub ambient: Vec3,
    pub edge_color: Vec4,
    pub edge_size: f32,
    pub texture: TextureTint,
    pub sphere: TextureTint,
    pub toon: TextureTint,
}

impl MaterialMorphState {
    /// `material × multiply + add`, field by field (the tints stay apart for the shader).
    #[must_use]
    pub fn apply(&self, material: &Material) -> MorphedMaterial {
        let (m, a) = (&self.multiply, &self.add);
        MorphedMaterial {
            diffuse: Vec4::from(material.diffuse) * m.diffuse + a.diffuse,
            specular: Vec3::from(material.specular) * m.specular + a.specular,
            specular_power: material.specular_power * m.specular_power + a.specular_power,
            ambient: Vec3::from(material.ambient) * m.ambient + a.ambient,
            edge_color: Vec4::from(material.edge_color) * m.edge_color + a.edge_color,
            edge_size: material.edge_size * m.edge_size + a.edge_size,
            texture: TextureTint {
                multiply: m.texture_tint,
                add: a.texture_tint,
            },
            sphere: TextureTint {
                multiply: m.sphere_tint,
                add: a.sphere_tint,
            },
            toon: TextureTint {
                multiply: m.toon_tint,
                add: a.toon_tint,
            },
        }
    }

    #[must_use]
    pub fn is_identity(&self) -> bool {
        *self == Self::default()
    }
}

/// Impulses collected for one rigid body this frame, local and global kept apart (they are sent
/// to the physics engine separately). `stop` means an all-zero impulse morph asked to stop the
/// body's motion.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RigidBodyImpulse {
    pub local_velocity: Vec3,
    pub local_torque: Vec3,
    pub global_velocity: Vec3,
    pub global_torque: Vec3,
    pub stop: bool,
}

impl RigidBodyImpulse {
    #[must_use]
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// The flip morph's choice: `index = (int)((count + 1) × value) − 1`, clamped; `None` when no
/// registered morph is chosen (values near 0 and below).
#[must_use]
pub fn flip_index(count: usize, value: f32) -> Option<usize> {
    if count == 0 {
        return None;
    }
    // `as` truncates toward zero like the spec's (int) cast, and maps NaN to 0.
    let index = ((count as f32 + 1.0) * value) as i64 - 1;
    if index < 0 {
        None
    } else {
        Some((index as usize).min(count - 1))
    }
}

/// Evaluates morphs; keeps its buffers from frame to frame.
#[derive(Debug, Clone)]
pub struct MorphEvaluator {
    values: Vec<f32>,
    /// Shared with the [`MorphSnapshot`]s taken for skinning later: built once per model.
    rest_positions: std::sync::Arc<[Vec3]>,
    vertex_table: std::sync::Arc<VertexMorphTable>,
    /// Total weight each vertex and UV morph gets this frame (its value plus what groups add).
    weights: Vec<f32>,
    uvs: UvChannel<Vec2>,
    additional_uvs: [Option<UvChannel<Vec4>>; 4],
    materials: Vec<MaterialMorphState>,
    impulses: Vec<RigidBodyImpulse>,
}

impl MorphEvaluator {
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let positions: std::sync::Arc<[Vec3]> = model
            .vertices
            .iter()
            .map(|v| Vec3::from(v.position))
            .collect();
        let num_vertices = model.vertices.len();
        let uv_entries = |channel: usize| {
            model
                .morphs
                .iter()
                .enumerate()
                .filter_map(move |(m, morph)| match (&morph.offsets, channel) {
                    (MorphOffsets::Uv(list), 0)
                    | (MorphOffsets::AdditionalUv1(list), 1)
                    | (MorphOffsets::AdditionalUv2(list), 2)
                    | (MorphOffsets::AdditionalUv3(list), 3)
                    | (MorphOffsets::AdditionalUv4(list), 4) => Some((m, list)),
                    _ => None,
                })
                .flat_map(|(m, list)| list.iter().map(move |o| (o.vertex.get(), m, o.offset)))
        };
        let uvs = UvChannel::new(
            model.vertices.iter().map(|v| Vec2::from(v.uv)).collect(),
            uv_entries(0).map(|(v, m, o)| (v, m, Vec2::new(o.x, o.y))),
        );
        // The spec recommends holding all four additional UVs with (0,0,0,0) by default, so that
        // a UV morph on a channel the file does not have still does something; a channel is
        // held when the model has it or a morph changes it.
        let additional_uvs = std::array::from_fn(|channel| {
            let has_channel = channel < model.additional_uvs.len();
            let morphed = uv_entries(channel + 1).next().is_some();
            (has_channel || morphed).then(|| {
                let rest = match model.additional_uvs.get(channel) {
                    Some(values) => (0..num_vertices)
                        .map(|v| values.get(v).copied().map_or(Vec4::ZERO, Vec4::from))
                        .collect(),
                    None => vec![Vec4::ZERO; num_vertices],
                };
                UvChannel::new(
                    rest,
                    uv_entries(channel + 1).map(|(v, m, o)| (v, m, Vec4::from(o))),
                )
            })
        });
        Self {
            values: vec![0.0; model.morphs.len()],
            rest_positions: positions,
            vertex_table: std::sync::Arc::new(VertexMorphTable::new(model)),
            weights: vec![0.0; model.morphs.len()],
            uvs,
            additional_uvs,
            materials: vec![MaterialMorphState::default(); model.materials.len()],
            impulses: vec![RigidBodyImpulse::default(); model.rigid_bodies.len()],
        }
    }

    /// Evaluates every morph at `input` values (one per morph, as the user or a motion set
    /// them). Bone morph amounts go to `skeleton`, which must have been reset.
    /// Does nothing for a model other than the one it was built for (a different morph or
    /// vertex count).
    pub fn evaluate(&mut self, model: &Model, input: &[f32], skeleton: &mut Skeleton) {
        if model.morphs.len() != self.values.len()
            || model.vertices.len() != self.rest_positions.len()
        {
            return;
        }
        for (value, &given) in self.values.iter_mut().zip(input) {
            *value = given;
        }
        self.weights.fill(0.0);
        self.materials.fill(MaterialMorphState::default());
        self.impulses.fill(RigidBodyImpulse::default());

        // First pass: flips rewrite the values of the morphs they choose, in index order,
        // also when a group holds them (spec: グループモーフや他のフリップモーフとの共存).
        for index in 0..model.morphs.len() {
            match &model.morphs[index].offsets {
                MorphOffsets::Flip(targets) => self.flip(targets, self.values[index]),
                MorphOffsets::Group(members) => {
                    let value = self.values[index];
                    for member in members {
                        if let Some(MorphOffsets::Flip(targets)) = morph_offsets(model, member) {
                            self.flip(targets, value * member.ratio);
                        }
                    }
                }
                _ => {}
            }
        }
        // Second pass: every other morph at its (possibly rewritten) value; groups apply their
        // members except flips. Groups of groups are not part of the spec and are skipped.
        for index in 0..model.morphs.len() {
            let value = self.values[index];
            match &model.morphs[index].offsets {
                MorphOffsets::Flip(_) => {}
                MorphOffsets::Group(members) => {
                    for member in members {
                        if let (Some(offsets), Some(target)) =
                            (morph_offsets(model, member), member.morph)
                        {
                            self.apply(target.get(), offsets, value * member.ratio, skeleton);
                        }
                    }
                }
                offsets => self.apply(index, offsets, value, skeleton),
            }
        }
        self.uvs.update(&self.weights);
        for channel in self.additional_uvs.iter_mut().flatten() {
            channel.update(&self.weights);
        }
    }

    fn flip(&mut self, targets: &[GroupMorphOffset], value: f32) {
        let Some(chosen) = flip_index(targets.len(), value) else {
            return;
        };
        if let Some(target) = targets[chosen].morph
            && let Some(slot) = self.values.get_mut(target.get())
        {
            *slot = targets[chosen].ratio;
        }
    }

    fn apply(
        &mut self,
        index: usize,
        offsets: &MorphOffsets,
        weight: f32,
        skeleton: &mut Skeleton,
    ) {
        if weight == 0.0 || !weight.is_finite() {
            return;
        }
        match offsets {
            // Summed per morph here; the offsets are added vertex by vertex afterwards (UVs) or
            // while skinning (positions).
            MorphOffsets::Vertex(_)
            | MorphOffsets::Uv(_)
            | MorphOffsets::AdditionalUv1(_)
            | MorphOffsets::AdditionalUv2(_)
            | MorphOffsets::AdditionalUv3(_)
            | MorphOffsets::AdditionalUv4(_) => {
                if let Some(total) = self.weights.get_mut(index) {
                    *total += weight;
                }
            }
            MorphOffsets::Bone(list) => {
                for o in list {
                    if let Some(bone) = o.bone {
                        skeleton.add_morph(
                            bone.get(),
                            Vec3A::from(Vec3::from(o.translation)),
                            o.rotation.to_quat(),
                            weight,
                        );
                    }
                }
            }
            MorphOffsets::Material(list) => {
                for o in list {
                    self.material(o, weight);
                }
            }
            MorphOffsets::Impulse(list) => {
                for o in list {
                    self.impulse(o, weight);
                }
            }
            MorphOffsets::Group(_) | MorphOffsets::Flip(_) => {}
        }
    }

    fn material(&mut self, offset: &MaterialMorphOffset, weight: f32) {
        let values = MaterialValues::of(offset);
        let range = match offset.material {
            // -1: every material.
            None => 0..self.materials.len(),
            Some(m) if m.get() < self.materials.len() => m.get()..m.get() + 1,
            Some(_) => return,
        };
        for state in &mut self.materials[range] {
            match offset.op {
                MaterialMorphOp::Multiply => state.multiply.multiply_by(&values, weight),
                MaterialMorphOp::Add => state.add.add_scaled(&values, weight),
                MaterialMorphOp::Unknown(_) => {}
            }
        }
    }

    fn impulse(&mut self, offset: &ImpulseMorphOffset, weight: f32) {
        let Some(state) = offset
            .rigid_body
            .and_then(|b| self.impulses.get_mut(b.get()))
        else {
            return;
        };
        let velocity = Vec3::from(offset.velocity);
        let torque = Vec3::from(offset.torque);
        if velocity == Vec3::ZERO && torque == Vec3::ZERO {
            state.stop = true;
        } else if offset.local {
            state.local_velocity += velocity * weight;
            state.local_torque += torque * weight;
        } else {
            state.global_velocity += velocity * weight;
            state.global_torque += torque * weight;
        }
    }

    /// Morph values after the flips rewrote them.
    #[must_use]
    pub fn values(&self) -> &[f32] {
        &self.values
    }

    /// Vertex positions with the vertex morphs applied (before skinning).
    #[must_use]
    pub fn positions(&self) -> MorphedPositions<'_> {
        MorphedPositions {
            rest: &self.rest_positions,
            table: &self.vertex_table,
            weights: &self.weights,
        }
    }

    /// This frame's morphed positions as a value of their own, for skinning them later
    /// ([`super::SkinJob`]): the rest positions and offsets are shared, the morph weights
    /// copied.
    #[must_use]
    pub fn snapshot(&self) -> MorphSnapshot {
        MorphSnapshot {
            rest: std::sync::Arc::clone(&self.rest_positions),
            table: std::sync::Arc::clone(&self.vertex_table),
            weights: self.weights.clone(),
        }
    }

    /// The total weight each vertex and UV morph has this frame (its value after flips plus
    /// what groups add; 0 for other kinds).
    #[must_use]
    pub fn offset_morph_weights(&self) -> &[f32] {
        &self.weights
    }

    /// Collects the vertices the vertex morphs move this frame (sorted, once each).
    pub fn moved_vertices(&self, model: &Model, out: &mut Vec<u32>) {
        out.clear();
        for (morph, &weight) in model.morphs.iter().zip(&self.weights) {
            if let (MorphOffsets::Vertex(list), true) = (&morph.offsets, weight != 0.0) {
                out.extend(
                    list.iter()
                        .filter(|o| o.vertex.get() < self.rest_positions.len())
                        .map(|o| o.vertex.0),
                );
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    #[must_use]
    pub fn uvs(&self) -> &[Vec2] {
        &self.uvs.current
    }

    /// The vertices whose UV some UV morph can change (ascending): the only UVs that can
    /// differ from the model's.
    #[must_use]
    pub fn uv_morphed_vertices(&self) -> &[u32] {
        &self.uvs.vertices
    }

    /// Additional UV `channel` (0-3) with morphs applied; `None` when the model neither has the
    /// channel nor morphs it (it is (0,0,0,0) everywhere then).
    #[must_use]
    pub fn additional_uv(&self, channel: usize) -> Option<&[Vec4]> {
        self.additional_uvs
            .get(channel)?
            .as_ref()
            .map(|channel| channel.current.as_slice())
    }

    /// The multiply and add sets of every material.
    #[must_use]
    pub fn materials(&self) -> &[MaterialMorphState] {
        &self.materials
    }

    /// Impulses per rigid body, for the physics step.
    #[must_use]
    pub fn impulses(&self) -> &[RigidBodyImpulse] {
        &self.impulses
    }
}

fn morph_offsets<'m>(model: &'m Model, member: &GroupMorphOffset) -> Option<&'m MorphOffsets> {
    let offsets = &model.morphs.get(member.morph?.get())?.offsets;
    // Groups inside groups are not part of the spec (仕様上グループモーフのグループ化は非対応).
    (!matches!(offsets, MorphOffsets::Group(_))).then_some(offsets)
}
