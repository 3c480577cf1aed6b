//! Morph evaluation: vertex, UV and additional UV, bone, material (multiply and add kept apart),
//! group, flip (the spec's two passes) and impulse (collected per rigid body).

use super::bone::Skeleton;
use crate::model::{
    GroupMorphOffset, ImpulseMorphOffset, Material, MaterialMorphOffset, MaterialMorphOp, Model,
    MorphOffsets, UvMorphOffset,
};
use glam::{Vec2, Vec3, Vec3A, Vec4};

/// A per-vertex buffer that starts as the rest values and takes morph offsets, remembering
/// which vertices it changed so the next frame restores only those.
#[derive(Debug, Clone)]
pub(crate) struct Tracked<T> {
    rest: Vec<T>,
    current: Vec<T>,
    touched: Vec<u32>,
    is_touched: Vec<bool>,
}

impl<T: Copy + std::ops::AddAssign> Tracked<T> {
    fn new(rest: Vec<T>, max_touched: usize) -> Self {
        let count = rest.len();
        Self {
            current: rest.clone(),
            rest,
            touched: Vec::with_capacity(max_touched.min(count)),
            is_touched: vec![false; count],
        }
    }

    fn restore(&mut self) {
        for &v in &self.touched {
            let v = v as usize;
            self.current[v] = self.rest[v];
            self.is_touched[v] = false;
        }
        self.touched.clear();
    }

    fn add(&mut self, vertex: usize, delta: T) {
        let Some(value) = self.current.get_mut(vertex) else {
            return;
        };
        *value += delta;
        if !self.is_touched[vertex] {
            self.is_touched[vertex] = true;
            self.touched.push(vertex as u32);
        }
    }

    pub(crate) fn current(&self) -> &[T] {
        &self.current
    }

    pub(crate) fn touched(&self) -> &[u32] {
        &self.touched
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
    positions: Tracked<Vec3>,
    uvs: Tracked<Vec2>,
    additional_uvs: [Option<Tracked<Vec4>>; 4],
    materials: Vec<MaterialMorphState>,
    impulses: Vec<RigidBodyImpulse>,
}

impl MorphEvaluator {
    #[must_use]
    pub fn new(model: &Model) -> Self {
        let mut offsets_per_kind = [0usize; 6];
        for morph in &model.morphs {
            let slot = match &morph.offsets {
                MorphOffsets::Vertex(o) => Some((0, o.len())),
                MorphOffsets::Uv(o) => Some((1, o.len())),
                MorphOffsets::AdditionalUv1(o) => Some((2, o.len())),
                MorphOffsets::AdditionalUv2(o) => Some((3, o.len())),
                MorphOffsets::AdditionalUv3(o) => Some((4, o.len())),
                MorphOffsets::AdditionalUv4(o) => Some((5, o.len())),
                _ => None,
            };
            if let Some((slot, len)) = slot {
                offsets_per_kind[slot] += len;
            }
        }
        let positions = model
            .vertices
            .iter()
            .map(|v| Vec3::from(v.position))
            .collect();
        let uvs = model.vertices.iter().map(|v| Vec2::from(v.uv)).collect();
        let num_vertices = model.vertices.len();
        // The spec recommends holding all four additional UVs with (0,0,0,0) by default, so that
        // a UV morph on a channel the file does not have still does something; a channel is
        // held when the model has it or a morph changes it.
        let additional_uvs = std::array::from_fn(|channel| {
            let has_channel = channel < model.additional_uvs.len();
            let morphed = offsets_per_kind[2 + channel] > 0;
            (has_channel || morphed).then(|| {
                let rest = match model.additional_uvs.get(channel) {
                    Some(values) => (0..num_vertices)
                        .map(|v| values.get(v).copied().map_or(Vec4::ZERO, Vec4::from))
                        .collect(),
                    None => vec![Vec4::ZERO; num_vertices],
                };
                Tracked::new(rest, offsets_per_kind[2 + channel])
            })
        });
        Self {
            values: vec![0.0; model.morphs.len()],
            positions: Tracked::new(positions, offsets_per_kind[0]),
            uvs: Tracked::new(uvs, offsets_per_kind[1]),
            additional_uvs,
            materials: vec![MaterialMorphState::default(); model.materials.len()],
            impulses: vec![RigidBodyImpulse::default(); model.rigid_bodies.len()],
        }
    }

    /// Evaluates every morph at `input` values (one per morph, as the user or a motion set
    /// them). Bone morph amounts go to `skeleton`, which must have been reset.
    pub fn evaluate(&mut self, model: &Model, input: &[f32], skeleton: &mut Skeleton) {
        for (value, &given) in self.values.iter_mut().zip(input) {
            *value = given;
        }
        self.positions.restore();
        self.uvs.restore();
        for channel in self.additional_uvs.iter_mut().flatten() {
            channel.restore();
        }
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
                        if let Some(offsets) = morph_offsets(model, member) {
                            self.apply(offsets, value * member.ratio, skeleton);
                        }
                    }
                }
                offsets => self.apply(offsets, value, skeleton),
            }
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

    fn apply(&mut self, offsets: &MorphOffsets, weight: f32, skeleton: &mut Skeleton) {
        if weight == 0.0 || !weight.is_finite() {
            return;
        }
        match offsets {
            MorphOffsets::Vertex(list) => {
                for o in list {
                    self.positions
                        .add(o.vertex.get(), Vec3::from(o.offset) * weight);
                }
            }
            MorphOffsets::Uv(list) => {
                for o in list {
                    let offset = Vec2::new(o.offset.x, o.offset.y);
                    self.uvs.add(o.vertex.get(), offset * weight);
                }
            }
            MorphOffsets::AdditionalUv1(list) => self.add_additional_uv(0, list, weight),
            MorphOffsets::AdditionalUv2(list) => self.add_additional_uv(1, list, weight),
            MorphOffsets::AdditionalUv3(list) => self.add_additional_uv(2, list, weight),
            MorphOffsets::AdditionalUv4(list) => self.add_additional_uv(3, list, weight),
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

    fn add_additional_uv(&mut self, channel: usize, list: &[UvMorphOffset], weight: f32) {
        if let Some(Some(buffer)) = self.additional_uvs.get_mut(channel) {
            for o in list {
                buffer.add(o.vertex.get(), Vec4::from(o.offset) * weight);
            }
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
    pub fn positions(&self) -> &[Vec3] {
        self.positions.current()
    }

    /// Vertices the vertex morphs moved this frame.
    #[must_use]
    pub fn moved_vertices(&self) -> &[u32] {
        self.positions.touched()
    }

    #[must_use]
    pub fn uvs(&self) -> &[Vec2] {
        self.uvs.current()
    }

    /// Vertices whose UV a morph changed this frame.
    #[must_use]
    pub fn uv_changed_vertices(&self) -> &[u32] {
        self.uvs.touched()
    }

    /// Additional UV `channel` (0-3) with morphs applied; `None` when the model neither has the
    /// channel nor morphs it (it is (0,0,0,0) everywhere then).
    #[must_use]
    pub fn additional_uv(&self, channel: usize) -> Option<&[Vec4]> {
        self.additional_uvs
            .get(channel)?
            .as_ref()
            .map(Tracked::current)
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
