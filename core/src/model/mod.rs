//! The document model: a PMX 2.0/2.1 model with every field the format has.
//!
//! The model is shaped like the file (element lists in file order, references as typed indices)
//! so that reading and writing are exact; broken content (dangling references, odd values) is
//! representable and left to the validators.

pub mod facts;
mod index;
mod math;
mod mqo;
mod pmd;
pub mod refs;
mod text;

// The kinds a path or an edit names live with the path grammar, the layer below the model.
pub use crate::path::{EditTarget, ElementKind};
pub use index::{BoneIdx, MaterialIdx, MorphIdx, RigidBodyIdx, TextureIdx, VertexIdx};
pub use math::{Vec2, Vec3, Vec4};
pub use mqo::{MqoExtras, MqoFaceRun, MqoObjectSettings};
pub use pmd::{PmdExtras, PmdTextField, PmdTextSlot};
pub use text::{Text, TextEncoding};

use bitflags::bitflags;
use serde::{Deserialize, Serialize};

/// PMX versions this editor reads and writes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
pub enum PmxVersion {
    #[default]
    #[serde(rename = "2.0")]
    V2_0,
    #[serde(rename = "2.1")]
    V2_1,
}

impl PmxVersion {
    #[must_use]
    pub fn as_f32(self) -> f32 {
        match self {
            PmxVersion::V2_0 => 2.0,
            PmxVersion::V2_1 => 2.1,
        }
    }

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            PmxVersion::V2_0 => "2.0",
            PmxVersion::V2_1 => "2.1",
        }
    }
}

/// Byte sizes (1, 2 or 4) of the six index kinds, as a PMX header stores them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IndexSizes {
    pub vertex: u8,
    pub texture: u8,
    pub material: u8,
    pub bone: u8,
    pub morph: u8,
    pub rigid_body: u8,
}

impl IndexSizes {
    /// The smallest sizes that hold the model's element counts (vertex indices unsigned at 1
    /// and 2 bytes, every other kind signed).
    #[must_use]
    pub fn minimal_for(model: &Model) -> Self {
        Self {
            vertex: vertex_index_size(model.vertices.len()),
            texture: signed_index_size(model.textures.len()),
            material: signed_index_size(model.materials.len()),
            bone: signed_index_size(model.bones.len()),
            morph: signed_index_size(model.morphs.len()),
            rigid_body: signed_index_size(model.rigid_bodies.len()),
        }
    }

    /// The sizes as the header's bytes 2..8.
    #[must_use]
    pub fn to_array(self) -> [u8; 6] {
        [
            self.vertex,
            self.texture,
            self.material,
            self.bone,
            self.morph,
            self.rigid_body,
        ]
    }
}

/// Smallest index size for `count` vertices: indices `0..count` must fit unsigned (1: ≤ 255,
/// 2: ≤ 65535 elements... as PMX defines it, 1 byte holds counts up to 255 and 2 bytes up to 65535).
#[must_use]
pub fn vertex_index_size(count: usize) -> u8 {
    if count <= 255 {
        1
    } else if count <= 65_535 {
        2
    } else {
        4
    }
}

/// Smallest index size for `count` elements of a signed kind (1: ≤ 127, 2: ≤ 32767).
#[must_use]
pub fn signed_index_size(count: usize) -> u8 {
    if count <= 127 {
        1
    } else if count <= 32_767 {
        2
    } else {
        4
    }
}

/// Whether an index size can address `count` elements (the rule the writer and the validators share).
#[must_use]
pub fn index_size_fits(size: u8, count: usize, unsigned: bool) -> bool {
    match (size, unsigned) {
        (1, true) => count <= 255,
        (2, true) => count <= 65_535,
        (1, false) => count <= 127,
        (2, false) => count <= 32_767,
        (4, _) => count <= i32::MAX as usize,
        _ => false,
    }
}

/// File-level settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Header {
    pub version: PmxVersion,
    pub encoding: TextEncoding,
    /// The index sizes the file was read with; `None` for a model made in the editor. The writer
    /// uses them with `IndexSizeMode::Keep` when they still fit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_sizes: Option<IndexSizes>,
}

/// Model name and comment (ja/en).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ModelInfo {
    pub name_ja: Text,
    pub name_en: Text,
    pub comment_ja: Text,
    pub comment_en: Text,
}

/// A vertex. Additional UVs live in `Model::additional_uvs` (one list per channel), so that a
/// model without them does not pay 64 bytes per vertex.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Vertex {
    pub position: Vec3,
    pub normal: Vec3,
    pub uv: Vec2,
    pub weight: Weight,
    #[serde(with = "crate::serde_f32")]
    pub edge_scale: f32,
}

impl Default for Vertex {
    fn default() -> Self {
        Self {
            position: Vec3::ZERO,
            normal: Vec3::new(0.0, 1.0, 0.0),
            uv: Vec2::ZERO,
            weight: Weight::Bdef1 { bone: None },
            edge_scale: 1.0,
        }
    }
}

/// Skinning weights of a vertex.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Weight {
    Bdef1 {
        bone: Option<BoneIdx>,
    },
    /// `weight` is bone 0's; bone 1 gets `1 - weight`.
    Bdef2 {
        bones: [Option<BoneIdx>; 2],
        #[serde(with = "crate::serde_f32")]
        weight: f32,
    },
    Bdef4 {
        bones: [Option<BoneIdx>; 4],
        #[serde(with = "crate::serde_f32::array")]
        weights: [f32; 4],
    },
    /// BDEF2 plus the SDEF centre and the two reference points.
    Sdef {
        bones: [Option<BoneIdx>; 2],
        #[serde(with = "crate::serde_f32")]
        weight: f32,
        c: Vec3,
        r0: Vec3,
        r1: Vec3,
    },
    /// Dual-quaternion skinning (PMX 2.1).
    Qdef {
        bones: [Option<BoneIdx>; 4],
        #[serde(with = "crate::serde_f32::array")]
        weights: [f32; 4],
    },
}

/// The weight deform types, as the byte PMX stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WeightKind {
    Bdef1 = 0,
    Bdef2 = 1,
    Bdef4 = 2,
    Sdef = 3,
    Qdef = 4,
}

impl Weight {
    #[must_use]
    pub fn kind(&self) -> WeightKind {
        match self {
            Weight::Bdef1 { .. } => WeightKind::Bdef1,
            Weight::Bdef2 { .. } => WeightKind::Bdef2,
            Weight::Bdef4 { .. } => WeightKind::Bdef4,
            Weight::Sdef { .. } => WeightKind::Sdef,
            Weight::Qdef { .. } => WeightKind::Qdef,
        }
    }

    /// The bones with their weights (BDEF2/SDEF's second weight is `1 - weight`).
    #[must_use]
    pub fn bone_weights(&self) -> Vec<(Option<BoneIdx>, f32)> {
        match self {
            Weight::Bdef1 { bone } => vec![(*bone, 1.0)],
            Weight::Bdef2 { bones, weight } | Weight::Sdef { bones, weight, .. } => {
                vec![(bones[0], *weight), (bones[1], 1.0 - *weight)]
            }
            Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
                bones.iter().copied().zip(weights.iter().copied()).collect()
            }
        }
    }

    /// Every bone reference the weight holds, mutably (for remapping).
    pub fn bones_mut(&mut self) -> &mut [Option<BoneIdx>] {
        match self {
            Weight::Bdef1 { bone } => std::slice::from_mut(bone),
            Weight::Bdef2 { bones, .. } | Weight::Sdef { bones, .. } => bones,
            Weight::Bdef4 { bones, .. } | Weight::Qdef { bones, .. } => bones,
        }
    }

    /// Every bone reference the weight holds.
    #[must_use]
    pub fn bones(&self) -> &[Option<BoneIdx>] {
        match self {
            Weight::Bdef1 { bone } => std::slice::from_ref(bone),
            Weight::Bdef2 { bones, .. } | Weight::Sdef { bones, .. } => bones,
            Weight::Bdef4 { bones, .. } | Weight::Qdef { bones, .. } => bones,
        }
    }
}

/// A triangle: three vertex indices. PMX 2.1 point and line materials use A-A-A and A-B-A.
pub type Face = [VertexIdx; 3];

bitflags! {
    /// Material draw flags (all 8 bits are kept, so unknown bits survive a round trip).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub struct DrawFlags: u8 {
        const DOUBLE_SIDED = 0x01;
        const GROUND_SHADOW = 0x02;
        const DRAW_TO_SHADOW_MAP = 0x04;
        const DRAW_SELF_SHADOW = 0x08;
        const EDGE = 0x10;
        /// PMX 2.1: additional UV 1 is the vertex colour.
        const VERTEX_COLOR = 0x20;
        /// PMX 2.1: draw as points (edge size is the point size).
        const POINT = 0x40;
        /// PMX 2.1: draw as lines.
        const LINE = 0x80;
    }
}

impl DrawFlags {
    /// The flags that exist only in PMX 2.1.
    pub const PMX21_ONLY: DrawFlags = DrawFlags::VERTEX_COLOR
        .union(DrawFlags::POINT)
        .union(DrawFlags::LINE);
}

/// Sphere map mode. Values not in the spec are kept as they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SphereMode {
    #[default]
    Disabled,
    Multiply,
    Add,
    /// PMX 2.1: additional UV 1's x,y as UV of a sub-texture.
    SubTexture,
    Unknown(u8),
}

impl SphereMode {
    #[must_use]
    pub fn from_raw(raw: u8) -> Self {
        match raw {
            0 => SphereMode::Disabled,
            1 => SphereMode::Multiply,
            2 => SphereMode::Add,
            3 => SphereMode::SubTexture,
            other => SphereMode::Unknown(other),
        }
    }

    #[must_use]
    pub fn to_raw(self) -> u8 {
        match self {
            SphereMode::Disabled => 0,
            SphereMode::Multiply => 1,
            SphereMode::Add => 2,
            SphereMode::SubTexture => 3,
            SphereMode::Unknown(other) => other,
        }
    }
}

/// A material's toon: one of the shared toon01..toon10.bmp (0..9), or a texture of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Toon {
    /// Shared toon number 0..9 (toon01.bmp..toon10.bmp); other bytes are kept as they are.
    Shared(u8),
    Texture(Option<TextureIdx>),
}

impl Default for Toon {
    fn default() -> Self {
        Toon::Texture(None)
    }
}

/// A material.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Material {
    pub name_ja: Text,
    pub name_en: Text,
    pub diffuse: Vec4,
    pub specular: Vec3,
    #[serde(with = "crate::serde_f32")]
    pub specular_power: f32,
    pub ambient: Vec3,
    pub draw_flags: DrawFlags,
    pub edge_color: Vec4,
    /// Edge size (point size when drawing points).
    #[serde(with = "crate::serde_f32")]
    pub edge_size: f32,
    pub texture: Option<TextureIdx>,
    pub sphere_texture: Option<TextureIdx>,
    pub sphere_mode: SphereMode,
    pub toon: Toon,
    pub memo: Text,
    /// Number of face vertex indices this material draws (3 per triangle), as PMX stores it.
    pub face_index_count: u32,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            name_ja: Text::default(),
            name_en: Text::default(),
            diffuse: Vec4::ONE,
            specular: Vec3::ZERO,
            specular_power: 5.0,
            ambient: Vec3::new(0.5, 0.5, 0.5),
            draw_flags: DrawFlags::GROUND_SHADOW
                | DrawFlags::DRAW_TO_SHADOW_MAP
                | DrawFlags::DRAW_SELF_SHADOW,
            edge_color: Vec4::new(0.0, 0.0, 0.0, 1.0),
            edge_size: 1.0,
            texture: None,
            sphere_texture: None,
            sphere_mode: SphereMode::Disabled,
            toon: Toon::Texture(None),
            memo: Text::default(),
            face_index_count: 0,
        }
    }
}

bitflags! {
    /// Bone flags (all 16 bits are kept). The flags decide which of the bone's optional fields
    /// the file holds; the fields are kept in memory either way, so switching a flag off and on
    /// again in the editor loses nothing.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub struct BoneFlags: u16 {
        /// The tail is a bone (`tail_bone`), not an offset (`tail_offset`).
        const TAIL_IS_BONE = 0x0001;
        const ROTATABLE = 0x0002;
        const MOVABLE = 0x0004;
        const VISIBLE = 0x0008;
        const OPERABLE = 0x0010;
        const IK = 0x0020;
        /// Append takes the append parent's local deformation.
        const LOCAL_APPEND = 0x0080;
        const APPEND_ROTATE = 0x0100;
        const APPEND_MOVE = 0x0200;
        const FIXED_AXIS = 0x0400;
        const LOCAL_AXES = 0x0800;
        const AFTER_PHYSICS = 0x1000;
        const EXTERNAL_PARENT = 0x2000;
    }
}

/// An IK link: a bone of the chain, with optional per-axis angle limits (radians).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IkLink {
    pub bone: Option<BoneIdx>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<AngleLimits>,
}

/// Lower and upper Euler angle limits, radians.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct AngleLimits {
    pub lower: Vec3,
    pub upper: Vec3,
}

/// IK data of an IK bone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ik {
    pub target: Option<BoneIdx>,
    pub loop_count: i32,
    /// Limit angle per iteration, radians (PMD stores a quarter of... see the PMD converter).
    #[serde(with = "crate::serde_f32")]
    pub limit_angle: f32,
    pub links: Vec<IkLink>,
}

impl Default for Ik {
    fn default() -> Self {
        Self {
            target: None,
            loop_count: 40,
            limit_angle: 2.0_f32.to_radians(),
            links: Vec::new(),
        }
    }
}

/// A bone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bone {
    pub name_ja: Text,
    pub name_en: Text,
    pub position: Vec3,
    pub parent: Option<BoneIdx>,
    /// Deform layer (変形階層).
    pub layer: i32,
    pub flags: BoneFlags,
    /// Tail as an offset from the bone (used when `TAIL_IS_BONE` is off).
    pub tail_offset: Vec3,
    /// Tail bone (used when `TAIL_IS_BONE` is on).
    pub tail_bone: Option<BoneIdx>,
    /// Append (付与) parent, used with `APPEND_ROTATE` / `APPEND_MOVE`.
    pub append_parent: Option<BoneIdx>,
    #[serde(with = "crate::serde_f32")]
    pub append_ratio: f32,
    /// Fixed axis direction (used with `FIXED_AXIS`).
    pub fixed_axis: Vec3,
    /// Local X axis (used with `LOCAL_AXES`).
    pub local_axis_x: Vec3,
    /// Local Z axis (used with `LOCAL_AXES`).
    pub local_axis_z: Vec3,
    /// External parent key (used with `EXTERNAL_PARENT`).
    pub external_parent_key: i32,
    /// IK data (used with `IK`).
    pub ik: Ik,
}

impl Default for Bone {
    fn default() -> Self {
        Self {
            name_ja: Text::default(),
            name_en: Text::default(),
            position: Vec3::ZERO,
            parent: None,
            layer: 0,
            flags: BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE,
            tail_offset: Vec3::ZERO,
            tail_bone: None,
            append_parent: None,
            append_ratio: 1.0,
            fixed_axis: Vec3::new(1.0, 0.0, 0.0),
            local_axis_x: Vec3::new(1.0, 0.0, 0.0),
            local_axis_z: Vec3::new(0.0, 0.0, 1.0),
            external_parent_key: 0,
            ik: Ik::default(),
        }
    }
}

impl Bone {
    #[must_use]
    pub fn is_ik(&self) -> bool {
        self.flags.contains(BoneFlags::IK)
    }

    /// Whether the bone appends rotation or movement from `append_parent`.
    #[must_use]
    pub fn has_append(&self) -> bool {
        self.flags
            .intersects(BoneFlags::APPEND_ROTATE | BoneFlags::APPEND_MOVE)
    }
}

/// Morph panel (操作パネル). Values not in the spec are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum MorphPanel {
    /// 0: reserved for the system.
    System,
    /// 1: 眉 (eyebrow, bottom left).
    Eyebrow,
    /// 2: 目 (eye, top left).
    Eye,
    /// 3: 口 (mouth, top right).
    Mouth,
    /// 4: その他 (other, bottom right).
    #[default]
    Other,
    Unknown(u8),
}

impl MorphPanel {
    #[must_use]
    pub fn from_raw(raw: u8) -> Self {
        match raw {
            0 => MorphPanel::System,
            1 => MorphPanel::Eyebrow,
            2 => MorphPanel::Eye,
            3 => MorphPanel::Mouth,
            4 => MorphPanel::Other,
            other => MorphPanel::Unknown(other),
        }
    }

    #[must_use]
    pub fn to_raw(self) -> u8 {
        match self {
            MorphPanel::System => 0,
            MorphPanel::Eyebrow => 1,
            MorphPanel::Eye => 2,
            MorphPanel::Mouth => 3,
            MorphPanel::Other => 4,
            MorphPanel::Unknown(other) => other,
        }
    }
}

/// The 11 morph kinds, with the byte PMX stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MorphKind {
    Group = 0,
    Vertex = 1,
    Bone = 2,
    Uv = 3,
    AdditionalUv1 = 4,
    AdditionalUv2 = 5,
    AdditionalUv3 = 6,
    AdditionalUv4 = 7,
    Material = 8,
    /// PMX 2.1.
    Flip = 9,
    /// PMX 2.1.
    Impulse = 10,
}

impl MorphKind {
    pub const ALL: [MorphKind; 11] = [
        MorphKind::Group,
        MorphKind::Vertex,
        MorphKind::Bone,
        MorphKind::Uv,
        MorphKind::AdditionalUv1,
        MorphKind::AdditionalUv2,
        MorphKind::AdditionalUv3,
        MorphKind::AdditionalUv4,
        MorphKind::Material,
        MorphKind::Flip,
        MorphKind::Impulse,
    ];

    #[must_use]
    pub fn from_raw(raw: u8) -> Option<Self> {
        Self::ALL.get(raw as usize).copied()
    }

    #[must_use]
    pub fn is_pmx21_only(self) -> bool {
        matches!(self, MorphKind::Flip | MorphKind::Impulse)
    }
}

/// A vertex morph offset.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct VertexMorphOffset {
    pub vertex: VertexIdx,
    pub offset: Vec3,
}

/// A UV or additional-UV morph offset (for the base UV only x,y matter; z,w are kept).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct UvMorphOffset {
    pub vertex: VertexIdx,
    pub offset: Vec4,
}

/// A bone morph offset.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BoneMorphOffset {
    pub bone: Option<BoneIdx>,
    pub translation: Vec3,
    /// Quaternion x,y,z,w.
    pub rotation: Vec4,
}

/// How a material morph offset combines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaterialMorphOp {
    Multiply,
    Add,
    Unknown(u8),
}

impl MaterialMorphOp {
    #[must_use]
    pub fn from_raw(raw: u8) -> Self {
        match raw {
            0 => MaterialMorphOp::Multiply,
            1 => MaterialMorphOp::Add,
            other => MaterialMorphOp::Unknown(other),
        }
    }

    #[must_use]
    pub fn to_raw(self) -> u8 {
        match self {
            MaterialMorphOp::Multiply => 0,
            MaterialMorphOp::Add => 1,
            MaterialMorphOp::Unknown(other) => other,
        }
    }
}

/// A material morph offset. `material: None` means all materials.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MaterialMorphOffset {
    pub material: Option<MaterialIdx>,
    pub op: MaterialMorphOp,
    pub diffuse: Vec4,
    pub specular: Vec3,
    #[serde(with = "crate::serde_f32")]
    pub specular_power: f32,
    pub ambient: Vec3,
    pub edge_color: Vec4,
    #[serde(with = "crate::serde_f32")]
    pub edge_size: f32,
    pub texture_tint: Vec4,
    pub sphere_tint: Vec4,
    pub toon_tint: Vec4,
}

/// A group or flip morph offset: a morph and its ratio (group) or value (flip).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct GroupMorphOffset {
    pub morph: Option<MorphIdx>,
    #[serde(with = "crate::serde_f32")]
    pub ratio: f32,
}

/// An impulse morph offset (PMX 2.1). All-zero velocity and torque means "stop".
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ImpulseMorphOffset {
    pub rigid_body: Option<RigidBodyIdx>,
    pub local: bool,
    pub velocity: Vec3,
    pub torque: Vec3,
}

/// The offsets of a morph; the variant is the morph kind.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "offsets", rename_all = "snake_case")]
pub enum MorphOffsets {
    Group(Vec<GroupMorphOffset>),
    Vertex(Vec<VertexMorphOffset>),
    Bone(Vec<BoneMorphOffset>),
    Uv(Vec<UvMorphOffset>),
    AdditionalUv1(Vec<UvMorphOffset>),
    AdditionalUv2(Vec<UvMorphOffset>),
    AdditionalUv3(Vec<UvMorphOffset>),
    AdditionalUv4(Vec<UvMorphOffset>),
    Material(Vec<MaterialMorphOffset>),
    Flip(Vec<GroupMorphOffset>),
    Impulse(Vec<ImpulseMorphOffset>),
}

impl MorphOffsets {
    #[must_use]
    pub fn kind(&self) -> MorphKind {
        match self {
            MorphOffsets::Group(_) => MorphKind::Group,
            MorphOffsets::Vertex(_) => MorphKind::Vertex,
            MorphOffsets::Bone(_) => MorphKind::Bone,
            MorphOffsets::Uv(_) => MorphKind::Uv,
            MorphOffsets::AdditionalUv1(_) => MorphKind::AdditionalUv1,
            MorphOffsets::AdditionalUv2(_) => MorphKind::AdditionalUv2,
            MorphOffsets::AdditionalUv3(_) => MorphKind::AdditionalUv3,
            MorphOffsets::AdditionalUv4(_) => MorphKind::AdditionalUv4,
            MorphOffsets::Material(_) => MorphKind::Material,
            MorphOffsets::Flip(_) => MorphKind::Flip,
            MorphOffsets::Impulse(_) => MorphKind::Impulse,
        }
    }

    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            MorphOffsets::Group(v) | MorphOffsets::Flip(v) => v.len(),
            MorphOffsets::Vertex(v) => v.len(),
            MorphOffsets::Bone(v) => v.len(),
            MorphOffsets::Uv(v)
            | MorphOffsets::AdditionalUv1(v)
            | MorphOffsets::AdditionalUv2(v)
            | MorphOffsets::AdditionalUv3(v)
            | MorphOffsets::AdditionalUv4(v) => v.len(),
            MorphOffsets::Material(v) => v.len(),
            MorphOffsets::Impulse(v) => v.len(),
        }
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An empty offset list of `kind`.
    #[must_use]
    pub fn empty(kind: MorphKind) -> Self {
        match kind {
            MorphKind::Group => MorphOffsets::Group(Vec::new()),
            MorphKind::Vertex => MorphOffsets::Vertex(Vec::new()),
            MorphKind::Bone => MorphOffsets::Bone(Vec::new()),
            MorphKind::Uv => MorphOffsets::Uv(Vec::new()),
            MorphKind::AdditionalUv1 => MorphOffsets::AdditionalUv1(Vec::new()),
            MorphKind::AdditionalUv2 => MorphOffsets::AdditionalUv2(Vec::new()),
            MorphKind::AdditionalUv3 => MorphOffsets::AdditionalUv3(Vec::new()),
            MorphKind::AdditionalUv4 => MorphOffsets::AdditionalUv4(Vec::new()),
            MorphKind::Material => MorphOffsets::Material(Vec::new()),
            MorphKind::Flip => MorphOffsets::Flip(Vec::new()),
            MorphKind::Impulse => MorphOffsets::Impulse(Vec::new()),
        }
    }
}

/// A morph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Morph {
    pub name_ja: Text,
    pub name_en: Text,
    pub panel: MorphPanel,
    #[serde(flatten)]
    pub offsets: MorphOffsets,
}

/// An item of a display frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DisplayItem {
    Bone(Option<BoneIdx>),
    Morph(Option<MorphIdx>),
}

/// A display frame (表示枠).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct DisplayFrame {
    pub name_ja: Text,
    pub name_en: Text,
    /// The special frames (Root, 表情) that editors must not delete.
    pub special: bool,
    pub items: Vec<DisplayItem>,
}

/// Rigid body shape. Values not in the spec are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RigidShape {
    #[default]
    Sphere,
    Box,
    Capsule,
    Unknown(u8),
}

impl RigidShape {
    #[must_use]
    pub fn from_raw(raw: u8) -> Self {
        match raw {
            0 => RigidShape::Sphere,
            1 => RigidShape::Box,
            2 => RigidShape::Capsule,
            other => RigidShape::Unknown(other),
        }
    }

    #[must_use]
    pub fn to_raw(self) -> u8 {
        match self {
            RigidShape::Sphere => 0,
            RigidShape::Box => 1,
            RigidShape::Capsule => 2,
            RigidShape::Unknown(other) => other,
        }
    }
}

/// How a rigid body moves. Values not in the spec are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum RigidMode {
    /// 0: follows its bone (static/kinematic).
    #[default]
    FollowBone,
    /// 1: physics.
    Physics,
    /// 2: physics, with the bone's position aligned.
    PhysicsWithBone,
    Unknown(u8),
}

impl RigidMode {
    #[must_use]
    pub fn from_raw(raw: u8) -> Self {
        match raw {
            0 => RigidMode::FollowBone,
            1 => RigidMode::Physics,
            2 => RigidMode::PhysicsWithBone,
            other => RigidMode::Unknown(other),
        }
    }

    #[must_use]
    pub fn to_raw(self) -> u8 {
        match self {
            RigidMode::FollowBone => 0,
            RigidMode::Physics => 1,
            RigidMode::PhysicsWithBone => 2,
            RigidMode::Unknown(other) => other,
        }
    }
}

/// A rigid body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RigidBody {
    pub name_ja: Text,
    pub name_en: Text,
    pub bone: Option<BoneIdx>,
    /// Collision group 0..15 (shown as 1..16).
    pub group: u8,
    /// The file's collision mask: bit n set = collides with group n (0xFFFF: with every
    /// group). PmxEditor's 非衝突グループ checkboxes are the cleared bits; the field keeps the
    /// PMX name.
    pub non_collision_mask: u16,
    pub shape: RigidShape,
    pub size: Vec3,
    pub position: Vec3,
    /// Euler angles, radians.
    pub rotation: Vec3,
    #[serde(with = "crate::serde_f32")]
    pub mass: f32,
    #[serde(with = "crate::serde_f32")]
    pub linear_damping: f32,
    #[serde(with = "crate::serde_f32")]
    pub angular_damping: f32,
    #[serde(with = "crate::serde_f32")]
    pub restitution: f32,
    #[serde(with = "crate::serde_f32")]
    pub friction: f32,
    pub mode: RigidMode,
}

impl Default for RigidBody {
    fn default() -> Self {
        Self {
            name_ja: Text::default(),
            name_en: Text::default(),
            bone: None,
            group: 0,
            // Collides with every group, as a new body in PmxEditor (no 非衝突 box checked).
            non_collision_mask: 0xFFFF,
            shape: RigidShape::Sphere,
            size: Vec3::new(1.0, 1.0, 1.0),
            position: Vec3::ZERO,
            rotation: Vec3::ZERO,
            mass: 1.0,
            linear_damping: 0.5,
            angular_damping: 0.5,
            restitution: 0.0,
            friction: 0.5,
            mode: RigidMode::FollowBone,
        }
    }
}

/// Joint kinds (PMX 2.0 has only the spring 6DOF). Values not in the spec are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum JointKind {
    #[default]
    Spring6Dof,
    SixDof,
    PointToPoint,
    ConeTwist,
    Slider,
    Hinge,
    Unknown(u8),
}

impl JointKind {
    pub const ALL: [JointKind; 6] = [
        JointKind::Spring6Dof,
        JointKind::SixDof,
        JointKind::PointToPoint,
        JointKind::ConeTwist,
        JointKind::Slider,
        JointKind::Hinge,
    ];

    #[must_use]
    pub fn from_raw(raw: u8) -> Self {
        Self::ALL
            .get(raw as usize)
            .copied()
            .unwrap_or(JointKind::Unknown(raw))
    }

    #[must_use]
    pub fn to_raw(self) -> u8 {
        match self {
            JointKind::Spring6Dof => 0,
            JointKind::SixDof => 1,
            JointKind::PointToPoint => 2,
            JointKind::ConeTwist => 3,
            JointKind::Slider => 4,
            JointKind::Hinge => 5,
            JointKind::Unknown(other) => other,
        }
    }
}

/// A joint between two rigid bodies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Joint {
    pub name_ja: Text,
    pub name_en: Text,
    pub kind: JointKind,
    pub body_a: Option<RigidBodyIdx>,
    pub body_b: Option<RigidBodyIdx>,
    pub position: Vec3,
    /// Euler angles, radians.
    pub rotation: Vec3,
    pub move_lower: Vec3,
    pub move_upper: Vec3,
    /// Radians.
    pub rotate_lower: Vec3,
    /// Radians.
    pub rotate_upper: Vec3,
    pub spring_move: Vec3,
    pub spring_rotate: Vec3,
}

impl Default for Joint {
    fn default() -> Self {
        Self {
            name_ja: Text::default(),
            name_en: Text::default(),
            kind: JointKind::Spring6Dof,
            body_a: None,
            body_b: None,
            position: Vec3::ZERO,
            rotation: Vec3::ZERO,
            move_lower: Vec3::ZERO,
            move_upper: Vec3::ZERO,
            rotate_lower: Vec3::ZERO,
            rotate_upper: Vec3::ZERO,
            spring_move: Vec3::ZERO,
            spring_rotate: Vec3::ZERO,
        }
    }
}

/// Soft body shape. Values not in the spec are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SoftBodyShape {
    #[default]
    TriMesh,
    Rope,
    Unknown(u8),
}

impl SoftBodyShape {
    #[must_use]
    pub fn from_raw(raw: u8) -> Self {
        match raw {
            0 => SoftBodyShape::TriMesh,
            1 => SoftBodyShape::Rope,
            other => SoftBodyShape::Unknown(other),
        }
    }

    #[must_use]
    pub fn to_raw(self) -> u8 {
        match self {
            SoftBodyShape::TriMesh => 0,
            SoftBodyShape::Rope => 1,
            SoftBodyShape::Unknown(other) => other,
        }
    }
}

bitflags! {
    /// Soft body flags (all 8 bits kept).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
    pub struct SoftBodyFlags: u8 {
        const B_LINK = 0x01;
        const CLUSTERS = 0x02;
        const LINK_HYBRID = 0x04;
    }
}

/// Soft body aerodynamic model. Values not in the spec are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum AeroModel {
    #[default]
    VPoint,
    VTwoSided,
    VOneSided,
    FTwoSided,
    FOneSided,
    Unknown(i32),
}

impl AeroModel {
    #[must_use]
    pub fn from_raw(raw: i32) -> Self {
        match raw {
            0 => AeroModel::VPoint,
            1 => AeroModel::VTwoSided,
            2 => AeroModel::VOneSided,
            3 => AeroModel::FTwoSided,
            4 => AeroModel::FOneSided,
            other => AeroModel::Unknown(other),
        }
    }

    #[must_use]
    pub fn to_raw(self) -> i32 {
        match self {
            AeroModel::VPoint => 0,
            AeroModel::VTwoSided => 1,
            AeroModel::VOneSided => 2,
            AeroModel::FTwoSided => 3,
            AeroModel::FOneSided => 4,
            AeroModel::Unknown(other) => other,
        }
    }
}

/// Bullet soft body config coefficients (<config> in the spec).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct SoftBodyConfig {
    #[serde(with = "crate::serde_f32")]
    pub vcf: f32,
    #[serde(with = "crate::serde_f32")]
    pub dp: f32,
    #[serde(with = "crate::serde_f32")]
    pub dg: f32,
    #[serde(with = "crate::serde_f32")]
    pub lf: f32,
    #[serde(with = "crate::serde_f32")]
    pub pr: f32,
    #[serde(with = "crate::serde_f32")]
    pub vc: f32,
    #[serde(with = "crate::serde_f32")]
    pub df: f32,
    #[serde(with = "crate::serde_f32")]
    pub mt: f32,
    #[serde(with = "crate::serde_f32")]
    pub chr: f32,
    #[serde(with = "crate::serde_f32")]
    pub khr: f32,
    #[serde(with = "crate::serde_f32")]
    pub shr: f32,
    #[serde(with = "crate::serde_f32")]
    pub ahr: f32,
}

/// Cluster coefficients (<cluster> in the spec).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct SoftBodyCluster {
    #[serde(with = "crate::serde_f32")]
    pub srhr_cl: f32,
    #[serde(with = "crate::serde_f32")]
    pub skhr_cl: f32,
    #[serde(with = "crate::serde_f32")]
    pub sshr_cl: f32,
    #[serde(with = "crate::serde_f32")]
    pub sr_splt_cl: f32,
    #[serde(with = "crate::serde_f32")]
    pub sk_splt_cl: f32,
    #[serde(with = "crate::serde_f32")]
    pub ss_splt_cl: f32,
}

/// Solver iterations (<iteration> in the spec).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct SoftBodyIterations {
    pub v_it: i32,
    pub p_it: i32,
    pub d_it: i32,
    pub c_it: i32,
}

/// Material stiffness coefficients (<material> in the spec).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
pub struct SoftBodyStiffness {
    #[serde(with = "crate::serde_f32")]
    pub lst: f32,
    #[serde(with = "crate::serde_f32")]
    pub ast: f32,
    #[serde(with = "crate::serde_f32")]
    pub vst: f32,
}

/// A soft body anchor: a vertex tied to a rigid body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SoftBodyAnchor {
    pub rigid_body: Option<RigidBodyIdx>,
    pub vertex: VertexIdx,
    pub near_mode: bool,
}

/// A soft body (PMX 2.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SoftBody {
    pub name_ja: Text,
    pub name_en: Text,
    pub shape: SoftBodyShape,
    pub material: Option<MaterialIdx>,
    pub group: u8,
    pub non_collision_mask: u16,
    pub flags: SoftBodyFlags,
    pub b_link_distance: i32,
    pub cluster_count: i32,
    #[serde(with = "crate::serde_f32")]
    pub total_mass: f32,
    #[serde(with = "crate::serde_f32")]
    pub margin: f32,
    pub aero_model: AeroModel,
    pub config: SoftBodyConfig,
    pub cluster: SoftBodyCluster,
    pub iterations: SoftBodyIterations,
    pub stiffness: SoftBodyStiffness,
    pub anchors: Vec<SoftBodyAnchor>,
    pub pinned_vertices: Vec<VertexIdx>,
}

impl Default for SoftBodyFlags {
    fn default() -> Self {
        SoftBodyFlags::empty()
    }
}

/// A whole PMX model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Model {
    pub header: Header,
    pub info: ModelInfo,
    pub vertices: Vec<Vertex>,
    /// Additional UV channels (0 to 4), each with one `Vec4` per vertex. The header's additional
    /// UV count is the number of channels.
    #[serde(default)]
    pub additional_uvs: Vec<Vec<Vec4>>,
    pub faces: Vec<Face>,
    pub textures: Vec<Text>,
    pub materials: Vec<Material>,
    pub bones: Vec<Bone>,
    pub morphs: Vec<Morph>,
    pub display_frames: Vec<DisplayFrame>,
    pub rigid_bodies: Vec<RigidBody>,
    pub joints: Vec<Joint>,
    #[serde(default)]
    pub soft_bodies: Vec<SoftBody>,
    /// What a PMD file held that the model has no place for (see [`PmdExtras`]); empty for a
    /// model from any other format, and never written to PMX.
    #[serde(default, skip_serializing_if = "PmdExtras::is_empty")]
    pub pmd: PmdExtras,
    /// What an MQO file held that the model has no place for (see [`MqoExtras`]): its objects
    /// and their settings; empty for a model from any other format, and never written to PMX.
    #[serde(default, skip_serializing_if = "MqoExtras::is_empty")]
    pub mqo: MqoExtras,
}

impl Model {
    /// A new empty model with the special Root and 表情 frames, as PmxEditor makes it.
    #[must_use]
    pub fn new_empty() -> Self {
        Self {
            display_frames: vec![
                DisplayFrame {
                    name_ja: "Root".into(),
                    name_en: "Root".into(),
                    special: true,
                    items: Vec::new(),
                },
                DisplayFrame {
                    name_ja: "表情".into(),
                    name_en: "Exp".into(),
                    special: true,
                    items: Vec::new(),
                },
            ],
            ..Self::default()
        }
    }

    /// Number of elements of `kind`.
    #[must_use]
    pub fn count(&self, kind: ElementKind) -> usize {
        match kind {
            ElementKind::Vertex => self.vertices.len(),
            ElementKind::Face => self.faces.len(),
            ElementKind::Texture => self.textures.len(),
            ElementKind::Material => self.materials.len(),
            ElementKind::Bone => self.bones.len(),
            ElementKind::Morph => self.morphs.len(),
            ElementKind::DisplayFrame => self.display_frames.len(),
            ElementKind::RigidBody => self.rigid_bodies.len(),
            ElementKind::Joint => self.joints.len(),
            ElementKind::SoftBody => self.soft_bodies.len(),
        }
    }

    /// The header's additional UV count.
    #[must_use]
    pub fn additional_uv_count(&self) -> usize {
        self.additional_uvs.len()
    }

    /// Additional UV `channel` (0-based) of vertex `vertex`, if both exist.
    #[must_use]
    pub fn additional_uv(&self, channel: usize, vertex: usize) -> Option<Vec4> {
        self.additional_uvs.get(channel)?.get(vertex).copied()
    }
}

impl EditTarget {
    /// Number of elements (1 for header and info).
    #[must_use]
    pub fn count(self, model: &Model) -> usize {
        self.element_kind().map_or(1, |kind| model.count(kind))
    }
}
