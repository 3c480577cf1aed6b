//! The PMD file as it is stored: every section and extension, every field, in file order.
//!
//! This is the exact layer: reading a file into [`PmdFile`] and writing it back gives the same
//! bytes, the padding after each text terminator included. The conversion to and from the PMX
//! document model lives in `to_model.rs` and `from_model.rs`.

use crate::model::{PmdTextSlot, Vec2, Vec3};
use std::fmt;

/// Byte sizes of the fixed-size text fields.
pub mod field {
    pub const MODEL_NAME: usize = 20;
    pub const COMMENT: usize = 256;
    pub const TEXTURE: usize = 20;
    pub const BONE_NAME: usize = 20;
    pub const SKIN_NAME: usize = 20;
    pub const FRAME_NAME: usize = 50;
    pub const TOON_NAME: usize = 100;
    pub const RIGID_BODY_NAME: usize = 20;
    pub const JOINT_NAME: usize = 20;
}

/// Byte sizes of the fixed-size records.
pub mod record {
    pub const HEADER: usize = 3 + 4 + 20 + 256;
    pub const VERTEX: usize = 38;
    pub const MATERIAL: usize = 70;
    pub const BONE: usize = 39;
    /// An IK entry without its links (each link adds 2 bytes).
    pub const IK_HEAD: usize = 11;
    /// A skin without its vertices (each vertex adds 16 bytes).
    pub const SKIN_HEAD: usize = 25;
    pub const SKIN_VERTEX: usize = 16;
    pub const BONE_FRAME_ITEM: usize = 3;
    pub const ENGLISH_HEAD: usize = 20 + 256;
    pub const TOON_LIST: usize = 10 * 100;
    pub const RIGID_BODY: usize = 83;
    pub const JOINT: usize = 124;
}

/// The number of toon texture names the toon extension holds.
pub const TOON_COUNT: usize = 10;

/// The padding PMDEditor writes after a text terminator, and the writer's default.
pub const PADDING: u8 = 0xFD;

/// A fixed-size Shift-JIS text field: the text (the bytes before the first NUL, or every byte of
/// the field when it has no NUL: names may fill their field) and what follows it.
///
/// Files pad differently (PMDEditor with 0xFD, MikuMikuDance's own models with zeros, some tools
/// leave the bytes of an older, longer text), so the padding is kept as read for PMD → PMD to
/// give the same bytes. Only padding that differs from the writer's default is stored, so that a
/// file PMDEditor wrote costs nothing extra.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct FixedText {
    /// The text, without its terminator.
    pub bytes: Vec<u8>,
    /// The rest of the field as read: the NUL and the bytes after it. Empty for the writer's
    /// default (a NUL, then 0xFD up to the end) and when the text fills the field. The writer
    /// uses it only while it still fits: a NUL first, and exactly the bytes the text leaves.
    pub padding: Vec<u8>,
}

impl FixedText {
    /// A text with the writer's default padding.
    #[must_use]
    pub fn new(bytes: Vec<u8>) -> Self {
        Self {
            bytes,
            padding: Vec::new(),
        }
    }

    /// The value of a whole field: the text up to the first NUL and the padding after it.
    #[must_use]
    pub fn from_field(field: &[u8]) -> Self {
        let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
        let (text, rest) = field.split_at(end);
        let default = rest
            .split_first()
            .is_none_or(|(&nul, tail)| nul == 0 && tail.iter().all(|&b| b == PADDING));
        Self {
            bytes: text.to_vec(),
            padding: if default { Vec::new() } else { rest.to_vec() },
        }
    }

    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The kept padding, when it still completes a field of `len` bytes after the text (a NUL
    /// first, so the text reads back the same); `None`: the writer pads with its default.
    #[must_use]
    pub fn padding_for(&self, len: usize) -> Option<&[u8]> {
        (self.padding.first() == Some(&0) && self.bytes.len() + self.padding.len() == len)
            .then_some(self.padding.as_slice())
    }

    /// Appends the text as a field of `len` bytes, [`FixedText::from_field`]'s inverse: the
    /// bytes (cut to the field), then the padding as read when it still fits, else a NUL when
    /// there is room and [`PADDING`].
    pub(crate) fn write_field(&self, out: &mut Vec<u8>, len: usize) {
        let bytes = self.as_bytes();
        if let Some(padding) = self.padding_for(len) {
            out.extend_from_slice(bytes);
            out.extend_from_slice(padding);
            return;
        }
        let used = bytes.len().min(len);
        out.extend_from_slice(&bytes[..used]);
        if used < len {
            out.push(0);
            out.resize(out.len() + len - used - 1, PADDING);
        }
    }
}

impl From<&str> for FixedText {
    /// ASCII text (tests and defaults); other characters are encoded as Shift-JIS lossily.
    fn from(text: &str) -> Self {
        Self::new(super::text::encode_lossy(text))
    }
}

impl fmt::Debug for FixedText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (text, _, _) = encoding_rs::SHIFT_JIS.decode(&self.bytes);
        fmt::Debug::fmt(&text, f)?;
        if !self.padding.is_empty() {
            write!(f, " (padding {:02x?})", self.padding)?;
        }
        Ok(())
    }
}

/// The PMD bone kinds (the `bone_type` byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BoneKind {
    /// 0: 回転.
    Rotate,
    /// 1: 回転と移動.
    RotateMove,
    /// 2: IK.
    Ik,
    /// 3: 不明 (no known meaning; read as a rotate bone).
    Unknown,
    /// 4: IK影響下 (a link of an IK chain; `ik_parent` names the IK bone or is 0).
    IkLink,
    /// 5: 回転影響下 (rotation follows the bone `ik_parent` names).
    RotationInfluenced,
    /// 6: IK接続先 (an IK target, hidden).
    IkTarget,
    /// 7: 非表示.
    Hidden,
    /// 8: 捩り (twist: rotates about the axis towards its tail).
    Twist,
    /// 9: 回転運動 (rotation motion: appends `ik_parent`/100 of the rotation of the bone
    /// `tail` names).
    RotationMotion,
    /// Any other byte, kept as it is.
    Other(u8),
}

impl BoneKind {
    #[must_use]
    pub fn from_raw(raw: u8) -> Self {
        match raw {
            0 => BoneKind::Rotate,
            1 => BoneKind::RotateMove,
            2 => BoneKind::Ik,
            3 => BoneKind::Unknown,
            4 => BoneKind::IkLink,
            5 => BoneKind::RotationInfluenced,
            6 => BoneKind::IkTarget,
            7 => BoneKind::Hidden,
            8 => BoneKind::Twist,
            9 => BoneKind::RotationMotion,
            other => BoneKind::Other(other),
        }
    }

    #[must_use]
    pub fn to_raw(self) -> u8 {
        match self {
            BoneKind::Rotate => 0,
            BoneKind::RotateMove => 1,
            BoneKind::Ik => 2,
            BoneKind::Unknown => 3,
            BoneKind::IkLink => 4,
            BoneKind::RotationInfluenced => 5,
            BoneKind::IkTarget => 6,
            BoneKind::Hidden => 7,
            BoneKind::Twist => 8,
            BoneKind::RotationMotion => 9,
            BoneKind::Other(other) => other,
        }
    }
}

/// A vertex (38 bytes).
#[derive(Debug, Clone, PartialEq)]
pub struct PmdVertex {
    pub position: Vec3,
    pub normal: Vec3,
    pub uv: Vec2,
    pub bones: [u16; 2],
    /// Weight of `bones[0]`, 0..=100; `bones[1]` gets the rest.
    pub weight: u8,
    /// 0: edge drawn, 1: no edge.
    pub edge_flag: u8,
}

/// A material (70 bytes).
#[derive(Debug, Clone, PartialEq)]
pub struct PmdMaterial {
    pub diffuse: Vec3,
    pub alpha: f32,
    pub specular_power: f32,
    pub specular: Vec3,
    /// `mirror_color` in the spec: the ambient colour.
    pub ambient: Vec3,
    /// 0..=9: the toon list entry; 0xFF: no toon (toon0.bmp).
    pub toon_index: u8,
    /// Non-zero: edge and ground shadow drawn.
    pub edge_flag: u8,
    /// Face vertex indices this material draws (3 per triangle).
    pub face_index_count: u32,
    /// `texture.bmp`, `sphere.sph`, `texture.bmp*sphere.sph` (or `.spa`), or the MMD 5.11
    /// form `texture.bmp/sphere.sph`.
    pub texture: FixedText,
}

/// A bone (39 bytes).
#[derive(Debug, Clone, PartialEq)]
pub struct PmdBone {
    pub name: FixedText,
    /// 0xFFFF: none.
    pub parent: u16,
    /// The tail bone (0 and 0xFFFF: none). Rotation-motion bones store their source bone here.
    pub tail: u16,
    pub kind: u8,
    /// The IK bone of an IK link, the source of a rotation-influenced bone, or the percentage of
    /// a rotation-motion bone (as `i16`); 0 otherwise.
    pub ik_parent: u16,
    pub position: Vec3,
}

impl PmdBone {
    #[must_use]
    pub fn kind(&self) -> BoneKind {
        BoneKind::from_raw(self.kind)
    }
}

/// An IK list entry ((11 + 2 × links) bytes).
#[derive(Debug, Clone, PartialEq)]
pub struct PmdIk {
    pub bone: u16,
    pub target: u16,
    pub iterations: u16,
    /// The per-iteration limit (`control_weight`): a quarter of the PMX limit angle in radians.
    pub limit: f32,
    /// The chain, from the bone nearest the target (at most 255).
    pub links: Vec<u16>,
}

/// A skin vertex (16 bytes): for the base skin a vertex index and its position, for the others
/// an index into the base skin's list and an offset.
#[derive(Debug, Clone, PartialEq)]
pub struct PmdSkinVertex {
    pub index: u32,
    pub position: Vec3,
}

/// A skin (表情) ((25 + 16 × vertices) bytes).
#[derive(Debug, Clone, PartialEq)]
pub struct PmdSkin {
    pub name: FixedText,
    /// 0: base, 1: eyebrow, 2: eye, 3: mouth (lip), 4: other.
    pub kind: u8,
    pub vertices: Vec<PmdSkinVertex>,
}

/// An entry of the bone frame list (3 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PmdBoneFrameItem {
    pub bone: u16,
    /// 1-based index into the frame names (0 is the implicit centre frame).
    pub frame: u8,
}

/// The English names extension.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PmdEnglish {
    pub name: FixedText,
    pub comment: FixedText,
    /// One per bone.
    pub bone_names: Vec<FixedText>,
    /// One per skin except the base skin (skin count - 1).
    pub skin_names: Vec<FixedText>,
    /// One per bone frame name.
    pub bone_frame_names: Vec<FixedText>,
}

/// A rigid body (83 bytes).
#[derive(Debug, Clone, PartialEq)]
pub struct PmdRigidBody {
    pub name: FixedText,
    /// 0xFFFF: none (the body then sits relative to the センター bone).
    pub bone: u16,
    pub group: u8,
    /// 0xFFFF minus the groups it does not collide with (the same value PMX stores).
    pub collision_mask: u16,
    /// 0: sphere, 1: box, 2: capsule.
    pub shape: u8,
    /// Width (radius), height, depth.
    pub size: Vec3,
    /// Relative to the bone's position.
    pub position: Vec3,
    /// Euler angles, radians.
    pub rotation: Vec3,
    pub mass: f32,
    pub linear_damping: f32,
    pub angular_damping: f32,
    pub restitution: f32,
    pub friction: f32,
    /// 0: follows the bone, 1: physics, 2: physics with the bone aligned.
    pub mode: u8,
}

/// A joint (124 bytes).
#[derive(Debug, Clone, PartialEq)]
pub struct PmdJoint {
    pub name: FixedText,
    pub body_a: u32,
    pub body_b: u32,
    pub position: Vec3,
    pub rotation: Vec3,
    pub move_lower: Vec3,
    pub move_upper: Vec3,
    pub rotate_lower: Vec3,
    pub rotate_upper: Vec3,
    pub spring_move: Vec3,
    pub spring_rotate: Vec3,
}

/// A whole PMD file. Extensions the file ends before are `None`.
#[derive(Debug, Clone, PartialEq)]
pub struct PmdFile {
    /// 1.0 in every known file.
    pub version: f32,
    pub name: FixedText,
    pub comment: FixedText,
    pub vertices: Vec<PmdVertex>,
    /// Vertex indices, 3 per triangle.
    pub face_indices: Vec<u16>,
    pub materials: Vec<PmdMaterial>,
    pub bones: Vec<PmdBone>,
    pub iks: Vec<PmdIk>,
    pub skins: Vec<PmdSkin>,
    /// Skin indices shown in the 表情 frame (at most 255).
    pub skin_display: Vec<u16>,
    /// Bone frame names (at most 255), PMDEditor ends them with "\n".
    pub bone_frame_names: Vec<FixedText>,
    pub bone_frame_items: Vec<PmdBoneFrameItem>,
    /// The English names flag byte (`None`: the file ends before it).
    pub english_flag: Option<u8>,
    /// The English names (present when the flag is non-zero).
    pub english: Option<PmdEnglish>,
    /// The toon texture list (`toon01.bmp`..`toon10.bmp` in most files).
    pub toon_names: Option<[FixedText; TOON_COUNT]>,
    pub rigid_bodies: Option<Vec<PmdRigidBody>>,
    pub joints: Option<Vec<PmdJoint>>,
    /// Bytes after the last section (unknown extensions), kept so that PMD → PMD is exact.
    pub trailing: Vec<u8>,
}

impl Default for PmdFile {
    fn default() -> Self {
        Self {
            version: 1.0,
            name: FixedText::default(),
            comment: FixedText::default(),
            vertices: Vec::new(),
            face_indices: Vec::new(),
            materials: Vec::new(),
            bones: Vec::new(),
            iks: Vec::new(),
            skins: Vec::new(),
            skin_display: Vec::new(),
            bone_frame_names: Vec::new(),
            bone_frame_items: Vec::new(),
            english_flag: None,
            english: None,
            toon_names: None,
            rigid_bodies: None,
            joints: None,
            trailing: Vec::new(),
        }
    }
}

impl PmdFile {
    /// Every fixed-size text field of the file, in file order, with its byte size.
    pub fn text_fields(&self) -> impl Iterator<Item = (PmdTextSlot, usize, &FixedText)> {
        use PmdTextSlot as S;
        let header = [
            (S::Name, field::MODEL_NAME, &self.name),
            (S::Comment, field::COMMENT, &self.comment),
        ];
        let textures = self
            .materials
            .iter()
            .enumerate()
            .map(|(i, m)| (S::MaterialTexture(i), field::TEXTURE, &m.texture));
        let bones = self
            .bones
            .iter()
            .enumerate()
            .map(|(i, b)| (S::BoneName(i), field::BONE_NAME, &b.name));
        let skins = self
            .skins
            .iter()
            .enumerate()
            .map(|(i, s)| (S::SkinName(i), field::SKIN_NAME, &s.name));
        let frames = indexed(&self.bone_frame_names, S::BoneFrameName, field::FRAME_NAME);
        let english = self.english.iter().flat_map(move |e| {
            [
                (S::EnglishName, field::MODEL_NAME, &e.name),
                (S::EnglishComment, field::COMMENT, &e.comment),
            ]
            .into_iter()
            .chain(indexed(&e.bone_names, S::EnglishBoneName, field::BONE_NAME))
            .chain(indexed(&e.skin_names, S::EnglishSkinName, field::SKIN_NAME))
            .chain(indexed(
                &e.bone_frame_names,
                S::EnglishBoneFrameName,
                field::FRAME_NAME,
            ))
        });
        let toons = self
            .toon_names
            .iter()
            .flat_map(move |names| indexed(names, S::ToonName, field::TOON_NAME));
        let bodies = self
            .rigid_bodies
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, r)| (S::RigidBodyName(i), field::RIGID_BODY_NAME, &r.name));
        let joints = self
            .joints
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, j)| (S::JointName(i), field::JOINT_NAME, &j.name));
        header
            .into_iter()
            .chain(textures)
            .chain(bones)
            .chain(skins)
            .chain(frames)
            .chain(english)
            .chain(toons)
            .chain(bodies)
            .chain(joints)
    }

    /// The text field at `slot`, if the file has that element.
    pub fn text_field_mut(&mut self, slot: PmdTextSlot) -> Option<&mut FixedText> {
        use PmdTextSlot as S;
        match slot {
            S::Name => Some(&mut self.name),
            S::Comment => Some(&mut self.comment),
            S::MaterialTexture(i) => Some(&mut self.materials.get_mut(i)?.texture),
            S::BoneName(i) => Some(&mut self.bones.get_mut(i)?.name),
            S::SkinName(i) => Some(&mut self.skins.get_mut(i)?.name),
            S::BoneFrameName(i) => self.bone_frame_names.get_mut(i),
            S::EnglishName => Some(&mut self.english.as_mut()?.name),
            S::EnglishComment => Some(&mut self.english.as_mut()?.comment),
            S::EnglishBoneName(i) => self.english.as_mut()?.bone_names.get_mut(i),
            S::EnglishSkinName(i) => self.english.as_mut()?.skin_names.get_mut(i),
            S::EnglishBoneFrameName(i) => self.english.as_mut()?.bone_frame_names.get_mut(i),
            S::ToonName(i) => self.toon_names.as_mut()?.get_mut(i),
            S::RigidBodyName(i) => Some(&mut self.rigid_bodies.as_mut()?.get_mut(i)?.name),
            S::JointName(i) => Some(&mut self.joints.as_mut()?.get_mut(i)?.name),
        }
    }
}

/// A list of names as text fields of `len` bytes at the slots `slot` makes of their positions.
fn indexed(
    names: &[FixedText],
    slot: fn(usize) -> PmdTextSlot,
    len: usize,
) -> impl Iterator<Item = (PmdTextSlot, usize, &FixedText)> {
    names
        .iter()
        .enumerate()
        .map(move |(i, name)| (slot(i), len, name))
}

/// The standard toon list: `toon01.bmp`..`toon10.bmp`.
#[must_use]
pub fn default_toon_names() -> [FixedText; TOON_COUNT] {
    std::array::from_fn(|i| FixedText::new(format!("toon{:02}.bmp", i + 1).into_bytes()))
}

/// Byte offsets of every section and element of a [`PmdFile`] as written. The format has no
/// alignment or optional padding, so the offsets follow from the content alone; conversion notes
/// use them to say where in the file a value sits.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Layout {
    pub vertices: usize,
    pub faces: usize,
    pub materials: usize,
    pub bones: usize,
    pub iks: usize,
    /// Offset of each IK entry.
    pub ik_entries: Vec<usize>,
    pub skins: usize,
    /// Offset of each skin.
    pub skin_entries: Vec<usize>,
    pub skin_display: usize,
    pub bone_frame_names: usize,
    pub bone_frame_items: usize,
    pub english: usize,
    pub toon_names: usize,
    pub rigid_bodies: usize,
    pub joints: usize,
    pub end: usize,
}

impl Layout {
    /// Offsets of the sections of `file` as the writer lays them out.
    #[must_use]
    pub fn of(file: &PmdFile) -> Self {
        let mut layout = Layout::default();
        let mut at = record::HEADER;
        layout.vertices = at;
        at += 4 + record::VERTEX * file.vertices.len();
        layout.faces = at;
        at += 4 + 2 * file.face_indices.len();
        layout.materials = at;
        at += 4 + record::MATERIAL * file.materials.len();
        layout.bones = at;
        at += 2 + record::BONE * file.bones.len();
        layout.iks = at;
        at += 2;
        for ik in &file.iks {
            layout.ik_entries.push(at);
            at += record::IK_HEAD + 2 * ik.links.len().min(255);
        }
        layout.skins = at;
        at += 2;
        for skin in &file.skins {
            layout.skin_entries.push(at);
            at += record::SKIN_HEAD + record::SKIN_VERTEX * skin.vertices.len();
        }
        layout.skin_display = at;
        at += 1 + 2 * file.skin_display.len().min(255);
        layout.bone_frame_names = at;
        at += 1 + field::FRAME_NAME * file.bone_frame_names.len().min(255);
        layout.bone_frame_items = at;
        at += 4 + record::BONE_FRAME_ITEM * file.bone_frame_items.len();
        layout.english = at;
        let later_sections =
            file.toon_names.is_some() || file.rigid_bodies.is_some() || file.joints.is_some();
        if file.english_flag.is_some() || file.english.is_some() || later_sections {
            at += 1;
            if file.english.is_some() {
                at += record::ENGLISH_HEAD
                    + field::BONE_NAME * file.bones.len()
                    + field::SKIN_NAME * file.skins.len().saturating_sub(1)
                    + field::FRAME_NAME * file.bone_frame_names.len().min(255);
            }
        }
        layout.toon_names = at;
        if file.toon_names.is_some() || file.rigid_bodies.is_some() || file.joints.is_some() {
            at += record::TOON_LIST;
        }
        layout.rigid_bodies = at;
        if file.rigid_bodies.is_some() || file.joints.is_some() {
            at += 4 + record::RIGID_BODY * file.rigid_bodies.as_ref().map_or(0, Vec::len);
        }
        layout.joints = at;
        if let Some(joints) = &file.joints {
            at += 4 + record::JOINT * joints.len();
        }
        layout.end = at;
        layout
    }
}
