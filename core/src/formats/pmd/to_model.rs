//! PMD → the PMX document model, as the PMX spec's PMD compatibility section describes.
//!
//! The conversion is chosen so that [`super::from_model`] gives the PMD values back: every
//! mapping below has its inverse there, and the fields PMX would not write back for a flag
//! (fixed axis without `FIXED_AXIS`, ...) are zero, as the PMX reader leaves them, so that a
//! model converted from PMD equals the same model written to PMX and read again.

use super::raw::*;
use super::text::{self, Decoded};
use crate::formats::error::{LoadNote, Location};
use crate::i18n::Message;
use crate::model::*;
use std::collections::HashMap;

/// PMX's limit angle is 4 times PMD's `control_weight` (PMX spec: "PMDのIK値とは4倍異なる").
pub const IK_LIMIT_FACTOR: f32 = 4.0;

/// The angle limits PmxEditor gives knee links (ひざ) when converting from PMD: X from -180°
/// to -0.5°, Y and Z locked (from PmxEditor's `IK制限角.txt`).
#[must_use]
pub fn knee_limits() -> AngleLimits {
    AngleLimits {
        lower: Vec3::new((-180.0_f32).to_radians(), 0.0, 0.0),
        upper: Vec3::new((-0.5_f32).to_radians(), 0.0, 0.0),
    }
}

/// Whether a bone gets the knee limits when it is an IK link.
#[must_use]
pub fn is_knee(name: &str) -> bool {
    name.contains("ひざ")
}

/// The name PMD → PMX gives material `index` (PMD materials have none).
#[must_use]
pub fn generated_material_name(index: usize) -> (String, String) {
    (
        format!("材質{}", index + 1),
        format!("Material{}", index + 1),
    )
}

/// A PMD bone index: 0xFFFF is "none".
#[must_use]
pub fn bone_ref(raw: u16) -> Option<BoneIdx> {
    (raw != u16::MAX).then(|| BoneIdx::new(raw as usize))
}

/// The standard toon number (0 for `toon01.bmp` .. 9 for `toon10.bmp`) a toon name names.
#[must_use]
pub fn standard_toon_number(name: &str) -> Option<u8> {
    let lower = name.to_ascii_lowercase();
    let digits = lower.strip_prefix("toon")?.strip_suffix(".bmp")?;
    if digits.len() != 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let number: u8 = digits.parse().ok()?;
    (1..=10).contains(&number).then(|| number - 1)
}

/// Splits a PMD material's texture field into texture and sphere map names.
#[must_use]
pub fn split_texture_field(field: &str) -> (Option<&str>, Option<&str>) {
    fn non_empty(s: &str) -> Option<&str> {
        (!s.is_empty()).then_some(s)
    }
    if let Some((texture, sphere)) = field.split_once('*') {
        return (non_empty(texture), non_empty(sphere));
    }
    if is_sphere_name(field) {
        // MMD 5.11 wrote "texture.bmp/sphere.sph"; a plain "folder/sphere.sph" is a sphere in
        // a folder. The part before the slash tells them apart: a file name has an extension.
        if let Some((texture, sphere)) = field.rsplit_once('/')
            && has_extension(texture)
        {
            return (non_empty(texture), non_empty(sphere));
        }
        return (None, Some(field));
    }
    (non_empty(field), None)
}

/// Whether a file name ends in `.sph` or `.spa` (MMD decides "sphere map" by extension).
#[must_use]
pub fn is_sphere_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".sph") || lower.ends_with(".spa")
}

fn has_extension(path: &str) -> bool {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    file.rfind('.')
        .is_some_and(|dot| dot > 0 && dot + 1 < file.len())
}

/// The sphere mode MMD uses for a sphere map name: `.spa` adds, anything else multiplies.
#[must_use]
pub fn sphere_mode_of(name: &str) -> SphereMode {
    if name.to_ascii_lowercase().ends_with(".spa") {
        SphereMode::Add
    } else {
        SphereMode::Multiply
    }
}

/// The draw flags MMD uses for a PMD material: double-sided when translucent, no self shadow
/// at alpha 0.98 exactly (MMD's convention), edge and ground shadow from the edge flag.
#[must_use]
pub fn implied_draw_flags(alpha: f32, edge: bool) -> DrawFlags {
    let mut flags = DrawFlags::empty();
    if alpha < 1.0 {
        flags |= DrawFlags::DOUBLE_SIDED;
    }
    if alpha != 0.98 {
        flags |= DrawFlags::DRAW_TO_SHADOW_MAP | DrawFlags::DRAW_SELF_SHADOW;
    }
    if edge {
        flags |= DrawFlags::EDGE | DrawFlags::GROUND_SHADOW;
    }
    flags
}

/// The display/operation flags a PMD bone kind stands for.
#[must_use]
pub fn implied_bone_flags(kind: BoneKind) -> BoneFlags {
    let base = BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE;
    match kind {
        BoneKind::RotateMove | BoneKind::Ik => base | BoneFlags::MOVABLE,
        BoneKind::IkTarget | BoneKind::Hidden | BoneKind::RotationMotion => {
            BoneFlags::ROTATABLE | BoneFlags::OPERABLE
        }
        BoneKind::Rotate
        | BoneKind::Unknown
        | BoneKind::IkLink
        | BoneKind::RotationInfluenced
        | BoneKind::Twist
        | BoneKind::Other(_) => base,
    }
}

/// The deform layer base of a bone: 1 for IK bones, 2 for rotation-influenced bones (PMX spec,
/// PMD compatibility: "IKボーン及びそのIKを親としている系列の変形階層を 0→1, 回転影響下以下の
/// 変形階層を 0→2").
#[must_use]
pub fn layer_base(is_ik: bool, kind: BoneKind) -> i32 {
    if kind == BoneKind::RotationInfluenced {
        2
    } else if is_ik {
        1
    } else {
        0
    }
}

/// Each bone's layer: the largest base among itself and its ancestors, so that the chains under
/// an IK bone or a rotation-influenced bone deform after it. Dangling parents in broken files
/// end the walk; the bones of a parent cycle share the cycle's largest base.
#[must_use]
pub fn propagate_layers(parents: &[Option<BoneIdx>], base: &[i32]) -> Vec<i32> {
    const UNVISITED: u8 = 0;
    const VISITING: u8 = 1;
    const DONE: u8 = 2;
    let count = parents.len().min(base.len());
    let mut layers = vec![0; count];
    let mut state = vec![UNVISITED; count];
    let mut chain = Vec::new();
    for start in 0..count {
        if state[start] == DONE {
            continue;
        }
        chain.clear();
        let mut inherited = 0;
        let mut current = Some(start);
        while let Some(bone) = current.filter(|&b| b < count) {
            match state[bone] {
                DONE => {
                    inherited = layers[bone];
                    break;
                }
                VISITING => {
                    // A parent cycle (broken file): every bone on it is the others' ancestor,
                    // so all of them get the cycle's largest base, whichever bone came first.
                    let start = chain.iter().position(|&b| b == bone).unwrap_or(0);
                    inherited = chain[start..].iter().map(|&b| base[b]).max().unwrap_or(0);
                    break;
                }
                _ => {}
            }
            state[bone] = VISITING;
            chain.push(bone);
            current = parents[bone].map(BoneIdx::get);
        }
        for &bone in chain.iter().rev() {
            inherited = inherited.max(base[bone]);
            layers[bone] = inherited;
            state[bone] = DONE;
        }
    }
    layers
}

/// The bone rigid bodies without a bone sit relative to: センター, else bone 0 (as MMDAgent).
#[must_use]
pub fn rigid_body_anchor(bone_names: &[String]) -> Option<usize> {
    bone_names
        .iter()
        .position(|name| name == "センター")
        .or((!bone_names.is_empty()).then_some(0))
}

/// Removes the "\n" PMDEditor ends frame names with.
fn strip_frame_newline(name: String) -> String {
    match name.strip_suffix('\n') {
        Some(stripped) => stripped.strip_suffix('\r').unwrap_or(stripped).to_owned(),
        None => name,
    }
}

/// Converts a raw PMD file to the document model, noting what does not convert exactly.
#[must_use]
pub fn to_model(file: &PmdFile) -> (Model, Vec<LoadNote>) {
    let mut conv = Converter {
        file,
        layout: Layout::of(file),
        notes: Vec::new(),
        model: Model::default(),
        textures: HashMap::new(),
    };
    conv.info();
    conv.vertices();
    conv.faces();
    conv.materials();
    conv.bones();
    let skin_to_morph = conv.morphs();
    conv.display_frames(&skin_to_morph);
    conv.physics();
    conv.model.pmd.text_fields = kept_text_fields(file);
    if !file.trailing.is_empty() {
        let offset = conv.layout.end;
        conv.note(
            "end",
            None,
            "",
            offset,
            true,
            Message::new("load.pmd.trailing").arg("count", file.trailing.len()),
        );
    }
    (conv.model, conv.notes)
}

/// The text fields whose bytes the PMD writer would not give back from the model's text alone:
/// padding other than its default, texts that fill their field (the writer keeps room for a
/// terminator), and bone frame names without the "\n" the writer ends them with
/// (MikuMikuDance's own models). They travel with the model (`Model::pmd`) so that PMD → model
/// → PMD is exact.
fn kept_text_fields(file: &PmdFile) -> Vec<PmdTextField> {
    file.text_fields()
        .filter(|(slot, len, text)| {
            let bare_frame_name =
                matches!(slot, PmdTextSlot::BoneFrameName(_)) && !text.bytes.ends_with(b"\n");
            !text.padding.is_empty() || text.bytes.len() >= *len || bare_frame_name
        })
        .map(|(slot, _, text)| PmdTextField {
            slot,
            text: text.bytes.clone(),
            padding: text.padding.clone(),
        })
        .collect()
}

struct Converter<'a> {
    file: &'a PmdFile,
    layout: Layout,
    notes: Vec<LoadNote>,
    model: Model,
    /// Texture names already in `model.textures`.
    textures: HashMap<String, TextureIdx>,
}

impl Converter<'_> {
    fn note(
        &mut self,
        section: &'static str,
        element: Option<usize>,
        field: &'static str,
        offset: usize,
        lost: bool,
        message: Message,
    ) {
        self.notes.push(LoadNote {
            location: Location {
                section,
                element,
                sub: None,
                field,
                offset,
            },
            message,
            lost,
        });
    }

    /// Decodes a text field, noting text that is not valid Shift-JIS.
    fn text(
        &mut self,
        value: &FixedText,
        section: &'static str,
        element: Option<usize>,
        field: &'static str,
        offset: usize,
    ) -> String {
        match text::decode(value.as_bytes()) {
            Decoded::Exact(text) => text,
            Decoded::CutCharacter(text) => {
                self.note(
                    section,
                    element,
                    field,
                    offset,
                    false,
                    Message::new("load.pmd.text_cut_character").arg("text", text.as_str()),
                );
                text
            }
            Decoded::Lossy(text) => {
                self.note(
                    section,
                    element,
                    field,
                    offset,
                    true,
                    Message::new("load.pmd.text_not_sjis")
                        .arg("bytes", format!("{:02x?}", value.as_bytes()))
                        .arg("text", text.as_str()),
                );
                text
            }
        }
    }

    fn texture(&mut self, name: &str) -> TextureIdx {
        if let Some(&index) = self.textures.get(name) {
            return index;
        }
        let index = TextureIdx::new(self.model.textures.len());
        self.model.textures.push(Text::from(name));
        self.textures.insert(name.to_owned(), index);
        index
    }

    fn info(&mut self) {
        let file = self.file;
        self.model.header = Header {
            version: PmxVersion::V2_0,
            encoding: TextEncoding::Utf16,
            index_sizes: None,
        };
        self.model.info.name_ja = self.text(&file.name, "header", None, "name", 7).into();
        self.model.info.comment_ja = self
            .text(&file.comment, "header", None, "comment", 27)
            .into();
        if let Some(english) = &file.english {
            let at = self.layout.english + 1;
            self.model.info.name_en = self.text(&english.name, "english", None, "name", at).into();
            self.model.info.comment_en = self
                .text(&english.comment, "english", None, "comment", at + 20)
                .into();
        }
    }

    fn vertices(&mut self) {
        let file = self.file;
        self.model.vertices.reserve_exact(file.vertices.len());
        let mut odd_edge_flags = 0usize;
        let mut heavy_weights = 0usize;
        for v in &file.vertices {
            // BDEF1 only where writing it back gives the same bytes: (bone, 0, 100) is how
            // PmxEditor and MMD store a single-bone vertex. Everything else stays BDEF2, so the
            // second bone of a weight-100 vertex survives PMD → PMX → PMD.
            let weight = if v.weight == 100 && v.bones[1] == 0 {
                Weight::Bdef1 {
                    bone: bone_ref(v.bones[0]),
                }
            } else {
                Weight::Bdef2 {
                    bones: [bone_ref(v.bones[0]), bone_ref(v.bones[1])],
                    weight: f32::from(v.weight) / 100.0,
                }
            };
            odd_edge_flags += usize::from(v.edge_flag > 1);
            heavy_weights += usize::from(v.weight > 100);
            self.model.vertices.push(Vertex {
                position: v.position,
                normal: v.normal,
                uv: v.uv,
                weight,
                edge_scale: if v.edge_flag == 0 { 1.0 } else { 0.0 },
            });
        }
        let at = self.layout.vertices;
        if odd_edge_flags > 0 {
            self.note(
                "vertices",
                None,
                "edge_flag",
                at,
                true,
                Message::new("load.pmd.edge_flags").arg("count", odd_edge_flags),
            );
        }
        if heavy_weights > 0 {
            self.note(
                "vertices",
                None,
                "weight",
                at,
                false,
                Message::new("load.pmd.heavy_weights").arg("count", heavy_weights),
            );
        }
    }

    fn faces(&mut self) {
        let indices = &self.file.face_indices;
        self.model.faces = indices
            .chunks_exact(3)
            .map(|t| {
                [
                    VertexIdx(u32::from(t[0])),
                    VertexIdx(u32::from(t[1])),
                    VertexIdx(u32::from(t[2])),
                ]
            })
            .collect();
        let rest = indices.len() % 3;
        if rest != 0 {
            let at = self.layout.faces;
            self.note(
                "faces",
                Some(indices.len() - rest),
                "",
                at + 4 + 2 * (indices.len() - rest),
                true,
                Message::new("load.pmx.face_indices_dropped")
                    .arg("count", indices.len())
                    .arg("dropped", rest),
            );
        }
    }

    fn materials(&mut self) {
        let file = self.file;
        for (i, m) in file.materials.iter().enumerate() {
            let at = self.layout.materials + 4 + i * record::MATERIAL;
            let field = self.text(&m.texture, "materials", Some(i), "texture", at + 50);
            let (texture_name, sphere_name) = split_texture_field(&field);
            let texture = texture_name.map(|name| self.texture(name));
            let sphere_texture = sphere_name.map(|name| self.texture(name));
            let sphere_mode = sphere_name.map_or(SphereMode::Disabled, sphere_mode_of);
            let toon = self.toon(i, m.toon_index, at + 44);
            let (name_ja, name_en) = generated_material_name(i);
            self.model.materials.push(Material {
                name_ja: name_ja.into(),
                name_en: name_en.into(),
                diffuse: Vec4::new(m.diffuse.x, m.diffuse.y, m.diffuse.z, m.alpha),
                specular: m.specular,
                specular_power: m.specular_power,
                ambient: m.ambient,
                draw_flags: implied_draw_flags(m.alpha, m.edge_flag != 0),
                edge_color: Vec4::new(0.0, 0.0, 0.0, 1.0),
                edge_size: 1.0,
                texture,
                sphere_texture,
                sphere_mode,
                toon,
                memo: Text::default(),
                face_index_count: m.face_index_count,
            });
        }
    }

    /// A material's toon: 0xFF is none; 0..9 pick from the toon list, where the standard
    /// names are the shared toons and other names become textures.
    fn toon(&mut self, material: usize, index: u8, offset: usize) -> Toon {
        if index == u8::MAX {
            return Toon::Texture(None);
        }
        let slot = index as usize;
        let Some(names) = &self.file.toon_names else {
            return Toon::Shared(index);
        };
        let Some(raw_name) = names.get(slot) else {
            self.note(
                "materials",
                Some(material),
                "toon_index",
                offset,
                false,
                Message::new("load.pmd.toon_index").arg("index", index),
            );
            return Toon::Shared(index);
        };
        let at = self.layout.toon_names + slot * field::TOON_NAME;
        let name = self.text(raw_name, "toon_names", Some(slot), "name", at);
        if name.is_empty() {
            return Toon::Texture(None);
        }
        match standard_toon_number(&name) {
            Some(number) => Toon::Shared(number),
            None => Toon::Texture(Some(self.texture(&name))),
        }
    }

    fn bones(&mut self) {
        let file = self.file;
        let count = file.bones.len();
        let mut names = Vec::with_capacity(count);
        for (i, b) in file.bones.iter().enumerate() {
            let at = self.layout.bones + 2 + i * record::BONE;
            let name_ja = self.text(&b.name, "bones", Some(i), "name", at);
            let name_en = match file.english.as_ref().and_then(|e| e.bone_names.get(i)) {
                Some(name) => {
                    let at = self.layout.english + 1 + record::ENGLISH_HEAD + i * field::BONE_NAME;
                    self.text(name, "english", Some(i), "bone_name", at)
                }
                None => String::new(),
            };
            names.push(name_ja.clone());
            let kind = b.kind();
            let mut bone = Bone {
                name_ja: name_ja.into(),
                name_en: name_en.into(),
                position: b.position,
                parent: bone_ref(b.parent),
                layer: 0,
                flags: implied_bone_flags(kind),
                tail_offset: Vec3::ZERO,
                tail_bone: None,
                append_parent: None,
                append_ratio: 1.0,
                fixed_axis: Vec3::ZERO,
                local_axis_x: Vec3::ZERO,
                local_axis_z: Vec3::ZERO,
                external_parent_key: 0,
                ik: empty_ik(),
            };
            // Tail: 0 is "none" in practice; 0xFFFF (the spec's "none") is kept apart as an
            // offset tail of zero, so that both come back as they were.
            match b.tail {
                u16::MAX => {}
                0 => bone.flags |= BoneFlags::TAIL_IS_BONE,
                tail => {
                    bone.flags |= BoneFlags::TAIL_IS_BONE;
                    bone.tail_bone = bone_ref(tail);
                }
            }
            match kind {
                BoneKind::Ik => bone.flags |= BoneFlags::IK,
                BoneKind::RotationInfluenced => {
                    bone.flags |= BoneFlags::APPEND_ROTATE;
                    bone.append_parent = bone_ref(b.ik_parent);
                }
                BoneKind::Twist => bone.flags |= BoneFlags::FIXED_AXIS,
                BoneKind::RotationMotion => {
                    // The tail field holds the source bone, the IK field the percentage.
                    bone.flags |= BoneFlags::APPEND_ROTATE | BoneFlags::TAIL_IS_BONE;
                    bone.tail_bone = None;
                    bone.append_parent = bone_ref(b.tail);
                    bone.append_ratio = f32::from(b.ik_parent as i16) / 100.0;
                }
                BoneKind::Unknown | BoneKind::Other(_) => self.note(
                    "bones",
                    Some(i),
                    "kind",
                    at + 24,
                    true,
                    Message::new("load.pmd.bone_kind").arg("kind", kind.to_raw()),
                ),
                BoneKind::Rotate
                | BoneKind::RotateMove
                | BoneKind::IkLink
                | BoneKind::IkTarget
                | BoneKind::Hidden => {}
            }
            self.model.bones.push(bone);
        }
        self.twist_axes();
        self.iks(&names);
        let is_ik: Vec<bool> = self.model.bones.iter().map(Bone::is_ik).collect();
        let base: Vec<i32> = (0..self.model.bones.len())
            .map(|i| {
                let kind = file.bones.get(i).map_or(BoneKind::Ik, PmdBone::kind);
                layer_base(is_ik[i], kind)
            })
            .collect();
        let parents: Vec<Option<BoneIdx>> = self.model.bones.iter().map(|b| b.parent).collect();
        for (bone, layer) in self
            .model
            .bones
            .iter_mut()
            .zip(propagate_layers(&parents, &base))
        {
            bone.layer = layer;
        }
    }

    /// A twist bone's fixed axis is the direction from the bone to its tail.
    fn twist_axes(&mut self) {
        let file = self.file;
        for (i, b) in file.bones.iter().enumerate() {
            if b.kind() != BoneKind::Twist {
                continue;
            }
            match twist_axis(&file.bones, i) {
                Some(axis) => self.model.bones[i].fixed_axis = axis,
                None => {
                    let at = self.layout.bones + 2 + i * record::BONE + 22;
                    self.note(
                        "bones",
                        Some(i),
                        "tail",
                        at,
                        false,
                        Message::new("load.pmd.twist_axis"),
                    );
                }
            }
        }
    }

    fn iks(&mut self, names: &[String]) {
        let file = self.file;
        let original_count = file.bones.len();
        let mut has_ik = vec![false; original_count];
        for (k, ik) in file.iks.iter().enumerate() {
            let at = self.layout.ik_entries.get(k).copied().unwrap_or(0);
            let owner = ik.bone as usize;
            if owner >= original_count {
                self.note(
                    "iks",
                    Some(k),
                    "bone",
                    at,
                    true,
                    Message::new("load.pmd.ik_bone_missing")
                        .arg("bone", ik.bone)
                        .arg("count", original_count),
                );
                continue;
            }
            let links = ik
                .links
                .iter()
                .map(|&link| IkLink {
                    bone: bone_ref(link),
                    limits: names
                        .get(link as usize)
                        .filter(|name| is_knee(name))
                        .map(|_| knee_limits()),
                })
                .collect();
            let data = Ik {
                target: bone_ref(ik.target),
                loop_count: i32::from(ik.iterations),
                limit_angle: ik.limit * IK_LIMIT_FACTOR,
                links,
            };
            let index = if has_ik[owner] {
                // PMX holds one IK per bone: a second chain on the same bone goes to a copy
                // of it, a child named "<name>+" (as mmd_tools and babylon-mmd do).
                let mut copy = self.model.bones[owner].clone();
                copy.name_ja = format!("{}+", copy.name_ja).into();
                copy.parent = Some(BoneIdx::new(owner));
                copy.flags.remove(BoneFlags::VISIBLE);
                self.model.bones.push(copy);
                let index = self.model.bones.len() - 1;
                self.note(
                    "iks",
                    Some(k),
                    "bone",
                    at,
                    false,
                    Message::new("load.pmd.ik_second_chain")
                        .arg("bone", owner)
                        .arg("index", index)
                        .arg("name", format!("{}+", names[owner])),
                );
                index
            } else {
                has_ik[owner] = true;
                owner
            };
            let bone = &mut self.model.bones[index];
            bone.flags |= BoneFlags::IK;
            bone.ik = data;
        }
    }

    /// Skins to vertex morphs; returns each skin's morph index.
    fn morphs(&mut self) -> Vec<Option<usize>> {
        let file = self.file;
        let base = file.skins.first().filter(|skin| skin.kind == 0);
        if let Some(base) = base {
            let moved = base
                .vertices
                .iter()
                .filter(|v| {
                    self.model
                        .vertices
                        .get(v.index as usize)
                        .is_none_or(|vertex| !vertex.position.bits_eq(v.position))
                })
                .count();
            if moved > 0 {
                let at = self.layout.skin_entries.first().copied().unwrap_or(0);
                self.note(
                    "skins",
                    Some(0),
                    "vertices",
                    at,
                    true,
                    Message::new("load.pmd.base_skin_moved").arg("count", moved),
                );
            }
        } else if !file.skins.is_empty() {
            let at = self.layout.skins;
            self.note(
                "skins",
                Some(0),
                "kind",
                at + 2 + 24,
                true,
                Message::new("load.pmd.no_base_skin"),
            );
        }
        let mut skin_to_morph = vec![None; file.skins.len()];
        for (s, skin) in file.skins.iter().enumerate() {
            if s == 0 && base.is_some() {
                continue;
            }
            let at = self.layout.skin_entries.get(s).copied().unwrap_or(0);
            let name_ja = self.text(&skin.name, "skins", Some(s), "name", at);
            let english_name = s
                .checked_sub(1)
                .and_then(|e| file.english.as_ref()?.skin_names.get(e));
            let name_en = match english_name {
                Some(name) => {
                    let english_at = self.layout.english
                        + 1
                        + record::ENGLISH_HEAD
                        + file.bones.len() * field::BONE_NAME
                        + (s - 1) * field::SKIN_NAME;
                    self.text(name, "english", Some(s - 1), "skin_name", english_at)
                }
                None => String::new(),
            };
            // Kind 0 after the base skin is how PmxEditor stores a morph on the system panel.
            let mut offsets = Vec::with_capacity(skin.vertices.len());
            let mut dangling = 0usize;
            for v in &skin.vertices {
                let vertex = match base {
                    Some(base) => base.vertices.get(v.index as usize).map(|b| b.index),
                    None => Some(v.index),
                };
                match vertex {
                    Some(vertex) => offsets.push(VertexMorphOffset {
                        vertex: VertexIdx(vertex),
                        offset: v.position,
                    }),
                    None => dangling += 1,
                }
            }
            if dangling > 0 {
                self.note(
                    "skins",
                    Some(s),
                    "vertices",
                    at + record::SKIN_HEAD,
                    true,
                    Message::new("load.pmd.skin_dangling")
                        .arg("count", dangling)
                        .arg("base", base.map_or(0, |b| b.vertices.len())),
                );
            }
            skin_to_morph[s] = Some(self.model.morphs.len());
            self.model.morphs.push(Morph {
                name_ja: name_ja.into(),
                name_en: name_en.into(),
                panel: MorphPanel::from_raw(skin.kind),
                offsets: MorphOffsets::Vertex(offsets),
            });
        }
        skin_to_morph
    }

    /// The special Root and 表情 frames, then one frame per bone frame name.
    fn display_frames(&mut self, skin_to_morph: &[Option<usize>]) {
        let file = self.file;
        let mut root = DisplayFrame {
            name_ja: "Root".into(),
            name_en: "Root".into(),
            special: true,
            items: Vec::new(),
        };
        if !self.model.bones.is_empty() {
            root.items.push(DisplayItem::Bone(Some(BoneIdx::new(0))));
        }
        let mut expressions = DisplayFrame {
            name_ja: "表情".into(),
            name_en: "Exp".into(),
            special: true,
            items: Vec::with_capacity(file.skin_display.len()),
        };
        for (i, &skin) in file.skin_display.iter().enumerate() {
            match skin_to_morph.get(skin as usize).copied().flatten() {
                Some(morph) => expressions
                    .items
                    .push(DisplayItem::Morph(Some(MorphIdx::new(morph)))),
                None => {
                    let at = self.layout.skin_display + 1 + 2 * i;
                    self.note(
                        "skin_display",
                        Some(i),
                        "skin",
                        at,
                        true,
                        Message::new("load.pmd.frame_skin_missing")
                            .arg("skin", skin)
                            .arg("count", file.skins.len()),
                    );
                }
            }
        }
        let mut frames = Vec::with_capacity(file.bone_frame_names.len());
        for (f, name) in file.bone_frame_names.iter().enumerate() {
            let at = self.layout.bone_frame_names + 1 + f * field::FRAME_NAME;
            let name_ja =
                strip_frame_newline(self.text(name, "bone_frame_names", Some(f), "name", at));
            let name_en = match file
                .english
                .as_ref()
                .and_then(|e| e.bone_frame_names.get(f))
            {
                Some(name) => {
                    let english_at = self.layout.english
                        + 1
                        + record::ENGLISH_HEAD
                        + file.bones.len() * field::BONE_NAME
                        + file.skins.len().saturating_sub(1) * field::SKIN_NAME
                        + f * field::FRAME_NAME;
                    strip_frame_newline(self.text(
                        name,
                        "english",
                        Some(f),
                        "bone_frame_name",
                        english_at,
                    ))
                }
                None => String::new(),
            };
            frames.push(DisplayFrame {
                name_ja: name_ja.into(),
                name_en: name_en.into(),
                special: false,
                items: Vec::new(),
            });
        }
        for (i, item) in file.bone_frame_items.iter().enumerate() {
            let entry = DisplayItem::Bone(bone_ref(item.bone));
            match (item.frame as usize).checked_sub(1) {
                // Frame 0 is the implicit centre frame: its bones go to Root.
                None => root.items.push(entry),
                Some(f) => match frames.get_mut(f) {
                    Some(frame) => frame.items.push(entry),
                    None => {
                        let at = self.layout.bone_frame_items + 4 + i * record::BONE_FRAME_ITEM;
                        self.note(
                            "bone_frame_items",
                            Some(i),
                            "frame",
                            at + 2,
                            true,
                            Message::new("load.pmd.frame_missing")
                                .arg("frame", item.frame)
                                .arg("count", frames.len()),
                        );
                    }
                },
            }
        }
        self.model.display_frames = Vec::with_capacity(frames.len() + 2);
        self.model.display_frames.push(root);
        self.model.display_frames.push(expressions);
        self.model.display_frames.extend(frames);
    }

    fn physics(&mut self) {
        let file = self.file;
        let names: Vec<String> = self
            .model
            .bones
            .iter()
            .take(file.bones.len())
            .map(|b| b.name_ja.as_str().into_owned())
            .collect();
        let anchor = rigid_body_anchor(&names);
        for (i, r) in file.rigid_bodies.iter().flatten().enumerate() {
            let at = self.layout.rigid_bodies + 4 + i * record::RIGID_BODY;
            let name = self.text(&r.name, "rigid_bodies", Some(i), "name", at);
            let anchor_bone = if r.bone == u16::MAX {
                anchor
            } else {
                Some(r.bone as usize)
            };
            let origin = match anchor_bone.and_then(|b| file.bones.get(b)) {
                Some(bone) => bone.position,
                None => {
                    if anchor_bone.is_some() {
                        self.note(
                            "rigid_bodies",
                            Some(i),
                            "bone",
                            at + 20,
                            false,
                            Message::new("load.pmd.body_bone_missing").arg("bone", r.bone),
                        );
                    }
                    Vec3::ZERO
                }
            };
            self.model.rigid_bodies.push(RigidBody {
                name_ja: name.into(),
                name_en: Text::default(),
                bone: bone_ref(r.bone),
                group: r.group,
                non_collision_mask: r.collision_mask,
                shape: RigidShape::from_raw(r.shape),
                size: r.size,
                position: add(origin, r.position),
                rotation: r.rotation,
                mass: r.mass,
                linear_damping: r.linear_damping,
                angular_damping: r.angular_damping,
                restitution: r.restitution,
                friction: r.friction,
                mode: RigidMode::from_raw(r.mode),
            });
        }
        for (i, j) in file.joints.iter().flatten().enumerate() {
            let at = self.layout.joints + 4 + i * record::JOINT;
            let name = self.text(&j.name, "joints", Some(i), "name", at);
            self.model.joints.push(Joint {
                name_ja: name.into(),
                name_en: Text::default(),
                kind: JointKind::Spring6Dof,
                body_a: RigidBodyIdx::from_raw(j.body_a as i32),
                body_b: RigidBodyIdx::from_raw(j.body_b as i32),
                position: j.position,
                rotation: j.rotation,
                move_lower: j.move_lower,
                move_upper: j.move_upper,
                rotate_lower: j.rotate_lower,
                rotate_upper: j.rotate_upper,
                spring_move: j.spring_move,
                spring_rotate: j.spring_rotate,
            });
        }
    }
}

/// The IK data of a bone without IK, as the PMX reader leaves it.
#[must_use]
pub fn empty_ik() -> Ik {
    Ik {
        target: None,
        loop_count: 0,
        limit_angle: 0.0,
        links: Vec::new(),
    }
}

/// The axis of twist bone `index`: the unit direction to its tail bone.
#[must_use]
pub fn twist_axis(bones: &[PmdBone], index: usize) -> Option<Vec3> {
    let bone = bones.get(index)?;
    let tail = bones
        .get(bone_ref(bone.tail)?.get())
        .filter(|_| bone.tail != 0)?;
    let direction = glam::Vec3::from(tail.position) - glam::Vec3::from(bone.position);
    let axis = direction.try_normalize()?;
    Some(axis.into())
}

pub(super) fn add(a: Vec3, b: Vec3) -> Vec3 {
    Vec3::new(a.x + b.x, a.y + b.y, a.z + b.z)
}
