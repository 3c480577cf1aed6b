//! The document model → PMD: the inverse of `to_model.rs`, listing what PMD cannot hold.
//!
//! The conversion never fails: what does not fit is cut, reduced or dropped, and each such
//! change is a [`PmdLoss`] with the element's path. The few things that make a PMD file
//! impossible (more than 65,535 vertices or bones, face indices past 16 bits) are also losses,
//! and [`refusal`] turns them into the error `write` returns.
//!
//! What PMD stores less precisely by design is not listed per element: weights are whole
//! percentages, and a rotation-motion bone's append ratio is a whole percentage.

use super::raw::*;
use super::spheres::SphereNames;
use super::text;
use super::to_model::{
    IK_LIMIT_FACTOR, add, generated_material_name, implied_bone_flags, implied_draw_flags, is_knee,
    is_sphere_name, knee_limits, layer_base, propagate_layers, rigid_body_anchor, sphere_mode_of,
    standard_toon_number, twist_axis,
};
use crate::formats::error::WriteError;
use crate::i18n::Message;
use crate::model::*;
use crate::path::ModelPath;
use std::collections::{BTreeSet, HashMap};
use std::fmt;

/// Something of the model that a PMD file cannot hold as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PmdLoss {
    /// The element path, e.g. `vertices[3].weight` or `bones[12].flags`.
    pub path: ModelPath,
    /// What happens to it, in English.
    pub message: String,
    /// The same in Japanese (the editor shows the list in the UI's language).
    pub message_ja: String,
}

impl PmdLoss {
    /// The loss as a message in both languages, its element path first.
    #[must_use]
    pub fn to_message(&self) -> Message {
        Message::both(
            self.to_string(),
            format!("{}: {}", self.path, self.message_ja),
        )
    }
}

impl fmt::Display for PmdLoss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// The most vertices a PMD file holds: face indices are 16-bit.
pub const MAX_VERTICES: usize = u16::MAX as usize;
/// The most bones: bone indices are 16-bit and 0xFFFF means "none".
pub const MAX_BONES: usize = u16::MAX as usize;

/// Why `model` cannot be written as PMD at all, if it cannot.
#[must_use]
pub fn refusal(model: &Model) -> Option<WriteError> {
    refusal_text(model).map(|(path, message, message_ja)| WriteError::Unrepresentable {
        path: path.to_string(),
        message: Message::both(message, message_ja),
    })
}

/// Why `model` cannot be written as PMD at all, if it cannot: (path, English, Japanese).
#[must_use]
pub fn refusal_text(model: &Model) -> Option<(ModelPath, String, String)> {
    if model.vertices.len() > MAX_VERTICES {
        let n = model.vertices.len();
        return Some((
            ModelPath::list(ElementKind::Vertex),
            format!("{n} vertices; a PMD file holds at most 65,535 (its face indices are 16-bit)"),
            format!(
                "頂点が{n}個あります。PMDは最大65,535個です（面の頂点インデックスが16bitのため）"
            ),
        ));
    }
    if model.bones.len() > MAX_BONES {
        let n = model.bones.len();
        return Some((
            ModelPath::list(ElementKind::Bone),
            format!("{n} bones; a PMD file holds at most 65,535 (its bone indices are 16-bit)"),
            format!(
                "ボーンが{n}個あります。PMDは最大65,535個です（ボーンインデックスが16bitのため）"
            ),
        ));
    }
    for (i, face) in model.faces.iter().enumerate() {
        if let Some(index) = face.iter().find(|v| v.0 > u32::from(u16::MAX)) {
            return Some((
                ModelPath::element(ElementKind::Face, i),
                format!("vertex index {index} does not fit PMD's 16-bit face indices"),
                format!("頂点インデックス{index}はPMDの16bitの面インデックスに収まりません"),
            ));
        }
    }
    None
}

/// Converts `model` to a raw PMD file and lists what PMD cannot hold. Sphere maps keep their
/// names (a mode their extension does not give is a loss): see [`from_model_with_spheres`].
#[must_use]
pub fn from_model(model: &Model) -> (PmdFile, Vec<PmdLoss>) {
    from_model_with_spheres(model, &SphereNames::new())
}

/// [`from_model`] with the sphere maps of `spheres` under their names there, copies MMD reads
/// in the material's mode ([`super::spheres`]).
#[must_use]
pub fn from_model_with_spheres(model: &Model, spheres: &SphereNames) -> (PmdFile, Vec<PmdLoss>) {
    let mut conv = Converter {
        model,
        spheres,
        losses: Vec::new(),
        kept: model
            .pmd
            .text_fields
            .iter()
            .map(|field| (field.slot, field))
            .collect(),
        file: PmdFile {
            english_flag: Some(1),
            english: Some(PmdEnglish::default()),
            toon_names: Some(default_toon_names()),
            rigid_bodies: Some(Vec::new()),
            joints: Some(Vec::new()),
            ..PmdFile::default()
        },
    };
    if let Some((path, message, message_ja)) = refusal_text(model) {
        conv.loss(
            path,
            format!("{message}; the model cannot be saved as PMD"),
            format!("{message_ja}。PMDとして保存できません"),
        );
    }
    conv.info();
    conv.vertices();
    conv.faces();
    conv.materials();
    conv.bones();
    let morph_to_skin = conv.skins();
    conv.display_frames(&morph_to_skin);
    conv.physics();
    for i in 0..model.soft_bodies.len() {
        conv.loss(
            ModelPath::element(ElementKind::SoftBody, i),
            "soft bodies (PMX 2.1) are dropped: PMD has none".into(),
            "SoftBody（PMX 2.1）は削除されます。PMDにはありません".into(),
        );
    }
    conv.keep_padding();
    (conv.file, conv.losses)
}

struct Converter<'a> {
    model: &'a Model,
    /// Sphere maps written under another name (copies the save writes beside the file).
    spheres: &'a SphereNames,
    losses: Vec<PmdLoss>,
    /// The text fields the PMD file the model was read from held beyond their text.
    kept: HashMap<PmdTextSlot, &'a PmdTextField>,
    file: PmdFile,
}

fn english(file: &mut PmdFile) -> &mut PmdEnglish {
    file.english.get_or_insert_with(PmdEnglish::default)
}

impl Converter<'_> {
    fn loss(&mut self, path: ModelPath, message: String, message_ja: String) {
        self.losses.push(PmdLoss {
            path,
            message,
            message_ja,
        });
    }

    /// Encodes a name for a field of `field_len` bytes, keeping room for the terminator the
    /// spec requires ("終端の0x00は省略不可"; PmxEditor cuts the same way), and listing cuts
    /// and unmappable characters. A text the file at `slot` was read with, filling the field
    /// with no terminator, is written back whole ([`Self::kept_full_text`]).
    fn text(
        &mut self,
        value: &Text,
        field_len: usize,
        slot: PmdTextSlot,
        path: impl Fn() -> ModelPath,
    ) -> FixedText {
        if let Some(kept) = self.kept_full_text(value, slot, b"") {
            return kept;
        }
        self.encode(value, field_len.saturating_sub(1), path)
    }

    /// The text of `slot` as read when the file filled the field with it (no terminator) and
    /// `value` followed by `suffix` still encodes to exactly those bytes. Such files exist
    /// (names cut at the byte limit by old tools), and cutting the name again to make room for
    /// a terminator would change an unedited name.
    fn kept_full_text(&self, value: &Text, slot: PmdTextSlot, suffix: &[u8]) -> Option<FixedText> {
        let kept = self.kept.get(&slot)?;
        if !kept.padding.is_empty() || !value.is_decodable() {
            return None;
        }
        let encoded = text::encode(&value.as_str(), usize::MAX);
        let same = encoded.unmappable.is_empty()
            && encoded.bytes.len() + suffix.len() == kept.text.len()
            && kept.text.starts_with(&encoded.bytes)
            && kept.text.ends_with(suffix);
        same.then(|| FixedText::new(kept.text.clone()))
    }

    /// The bone frame name of `slot` as read when the file held it without PMDEditor's "\n"
    /// (MikuMikuDance's own models do) and `value` still encodes to exactly those bytes: an
    /// unchanged name comes back as it was, not with a newline added.
    fn kept_bare_frame_name(&self, value: &Text, slot: PmdTextSlot) -> Option<FixedText> {
        let kept = self.kept.get(&slot)?;
        if kept.text.ends_with(b"\n") || !value.is_decodable() {
            return None;
        }
        let encoded = text::encode(&value.as_str(), field::FRAME_NAME);
        let same = encoded.unmappable.is_empty() && !encoded.cut && encoded.bytes == kept.text;
        same.then(|| FixedText::new(kept.text.clone()))
    }

    /// Gives every text field the padding the file it was read from had there, where the
    /// converted text is still the text read (anything else keeps the default padding).
    fn keep_padding(&mut self) {
        for kept in self.kept.values() {
            if kept.padding.is_empty() {
                continue;
            }
            if let Some(text) = self.file.text_field_mut(kept.slot)
                && text.bytes == kept.text
            {
                text.padding.clone_from(&kept.padding);
            }
        }
    }

    /// Encodes text in at most `limit` bytes.
    fn encode(&mut self, value: &Text, limit: usize, path: impl Fn() -> ModelPath) -> FixedText {
        let shown = value.as_str();
        let encoded = text::encode(&shown, limit);
        if !value.is_decodable() {
            self.loss(
                path(),
                format!("the text is not valid in the model's encoding; written as \"{shown}\""),
                format!(
                    "モデルのエンコードとして正しくない文字列です。「{shown}」として書き込みます"
                ),
            );
        }
        if !encoded.unmappable.is_empty() {
            let characters: String = encoded.unmappable.iter().collect();
            self.loss(
                path(),
                format!("characters \"{characters}\" have no Shift-JIS code; written as '?'"),
                format!("文字「{characters}」はShift-JISにありません。「?」として書き込みます"),
            );
        }
        if encoded.cut {
            let full = text::encode_lossy(&shown).len();
            let kept = text::decode(&encoded.bytes).into_text();
            self.loss(
                path(),
                format!(
                    "\"{shown}\" is {full} bytes in Shift-JIS; cut to {} bytes (the field \
                     holds {limit}): \"{kept}\"",
                    encoded.bytes.len()
                ),
                format!(
                    "「{shown}」はShift-JISで{full}バイトです。{}バイトに切り詰めます（欄は\
                     {limit}バイト）:「{kept}」",
                    encoded.bytes.len()
                ),
            );
        }
        FixedText::new(encoded.bytes)
    }

    /// A bone reference as PMD's 16-bit index (0xFFFF for none).
    fn bone(&mut self, bone: Option<BoneIdx>, path: impl Fn() -> ModelPath) -> u16 {
        match bone {
            None => u16::MAX,
            Some(index) if index.get() < MAX_BONES => index.get() as u16,
            Some(index) => {
                self.loss(
                    path(),
                    format!(
                        "bone index {index} does not fit PMD's 16-bit bone indices; written as none"
                    ),
                    format!(
                        "ボーンインデックス{index}はPMDの16bitのボーンインデックスに収まりません。\
                         なしとして書き込みます"
                    ),
                );
                u16::MAX
            }
        }
    }

    fn info(&mut self) {
        let info = &self.model.info;
        self.file.name = self.text(&info.name_ja, field::MODEL_NAME, PmdTextSlot::Name, || {
            ModelPath::info().field("name_ja")
        });
        self.file.comment = self.text(
            &info.comment_ja,
            field::COMMENT,
            PmdTextSlot::Comment,
            || ModelPath::info().field("comment_ja"),
        );
        let name = self.text(
            &info.name_en,
            field::MODEL_NAME,
            PmdTextSlot::EnglishName,
            || ModelPath::info().field("name_en"),
        );
        let comment = self.text(
            &info.comment_en,
            field::COMMENT,
            PmdTextSlot::EnglishComment,
            || ModelPath::info().field("comment_en"),
        );
        let english = english(&mut self.file);
        english.name = name;
        english.comment = comment;
    }

    fn vertices(&mut self) {
        let model = self.model;
        for (channel, _) in model.additional_uvs.iter().enumerate() {
            self.loss(
                ModelPath::list(ElementKind::Vertex),
                format!("additional UV {} is dropped: PMD has none", channel + 1),
                format!("追加UV{}は削除されます。PMDにはありません", channel + 1),
            );
        }
        self.file.vertices.reserve_exact(model.vertices.len());
        for (i, v) in model.vertices.iter().enumerate() {
            let path = || ModelPath::element(ElementKind::Vertex, i).field("weight");
            let (bones, weight) = match &v.weight {
                Weight::Bdef1 { bone } => ([*bone, Some(BoneIdx::new(0))], 100),
                Weight::Bdef2 { bones, weight } => (*bones, self.percent(*weight, &path)),
                Weight::Sdef { bones, weight, .. } => {
                    self.loss(
                        path(),
                        "SDEF is written as BDEF2 (same bones and weight; the C, R0 and R1 \
                         points are dropped)"
                            .into(),
                        "SDEFはBDEF2として書き込みます（ボーンとウェイトはそのまま、C・R0・R1は\
                         削除されます）"
                            .into(),
                    );
                    (*bones, self.percent(*weight, &path))
                }
                Weight::Bdef4 { bones, weights } => self.reduce("BDEF4", bones, weights, &path),
                Weight::Qdef { bones, weights } => self.reduce("QDEF", bones, weights, &path),
            };
            let bones = [
                self.bone(bones[0], || {
                    ModelPath::element(ElementKind::Vertex, i)
                        .field("weight")
                        .at("bones", 0)
                }),
                self.bone(bones[1], || {
                    ModelPath::element(ElementKind::Vertex, i)
                        .field("weight")
                        .at("bones", 1)
                }),
            ];
            let edge_flag = if v.edge_scale == 1.0 {
                0
            } else if v.edge_scale == 0.0 {
                1
            } else {
                let drawn = v.edge_scale > 0.0;
                self.loss(
                    ModelPath::element(ElementKind::Vertex, i).field("edge_scale"),
                    format!(
                        "edge scale {} is not 0 or 1: PMD only turns a vertex's edge on or off; \
                         written as {}",
                        v.edge_scale,
                        if drawn { "on" } else { "off" }
                    ),
                    format!(
                        "エッジ倍率{}は0でも1でもありません。PMDは頂点のエッジの有無だけを持ちます。\
                         {}として書き込みます",
                        v.edge_scale,
                        if drawn { "有効" } else { "無効" }
                    ),
                );
                u8::from(!drawn)
            };
            self.file.vertices.push(PmdVertex {
                position: v.position,
                normal: v.normal,
                uv: v.uv,
                bones,
                weight,
                edge_flag,
            });
        }
    }

    /// A weight as PMD's whole percentage (0..=100).
    fn percent(&mut self, weight: f32, path: &dyn Fn() -> ModelPath) -> u8 {
        let scaled = (weight * 100.0).round();
        if (0.0..=100.0).contains(&scaled) {
            return scaled as u8;
        }
        let clamped = if scaled > 100.0 { 100 } else { 0 };
        self.loss(
            path(),
            format!("weight {weight} is outside 0..1; written as {clamped}%"),
            format!("ウェイト{weight}が0..1の範囲外です。{clamped}%として書き込みます"),
        );
        clamped
    }

    /// BDEF4/QDEF to BDEF2 on the two largest weights, renormalised.
    fn reduce(
        &mut self,
        kind: &str,
        bones: &[Option<BoneIdx>; 4],
        weights: &[f32; 4],
        path: &dyn Fn() -> ModelPath,
    ) -> ([Option<BoneIdx>; 2], u8) {
        let mut order = [0usize, 1, 2, 3];
        // Stable: equal weights keep their order. NaN sorts last.
        order.sort_by(|&a, &b| {
            weights[b]
                .partial_cmp(&weights[a])
                .unwrap_or_else(|| weights[a].is_nan().cmp(&weights[b].is_nan()))
        });
        let (first, second) = (order[0], order[1]);
        let total = weights[first] + weights[second];
        let share = if total > 0.0 {
            weights[first] / total
        } else {
            1.0
        };
        let percent = self.percent(share, path);
        let describe = |k: usize| match bones[k] {
            Some(bone) => format!("bone {bone} ({})", weights[k]),
            None => format!("no bone ({})", weights[k]),
        };
        let describe_ja = |k: usize| match bones[k] {
            Some(bone) => format!("ボーン{bone}（{}）", weights[k]),
            None => format!("ボーンなし（{}）", weights[k]),
        };
        let rest: Vec<usize> = order[2..]
            .iter()
            .copied()
            .filter(|&k| weights[k] != 0.0)
            .collect();
        let (dropped, dropped_ja) = if rest.is_empty() {
            (
                "no other weight was set".to_owned(),
                "ほかのウェイトはありません".to_owned(),
            )
        } else {
            (
                format!(
                    "dropped {}",
                    rest.iter()
                        .map(|&k| describe(k))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                format!(
                    "{}を削除します",
                    rest.iter()
                        .map(|&k| describe_ja(k))
                        .collect::<Vec<_>>()
                        .join("、")
                ),
            )
        };
        self.loss(
            path(),
            format!(
                "{kind} reduced to BDEF2 on the two largest weights: {} and {} as {percent}/{}; \
                 {dropped}",
                describe(first),
                describe(second),
                100 - percent
            ),
            format!(
                "{kind}をウェイトの大きい2つでBDEF2にします: {}と{}を{percent}/{}。{dropped_ja}",
                describe_ja(first),
                describe_ja(second),
                100 - percent
            ),
        );
        ([bones[first], bones[second]], percent)
    }

    fn faces(&mut self) {
        let model = self.model;
        self.file.face_indices.reserve_exact(model.faces.len() * 3);
        for face in &model.faces {
            for vertex in face {
                // Indices past 16 bits are refused before writing (see `refusal`).
                self.file
                    .face_indices
                    .push(u16::try_from(vertex.0).unwrap_or(u16::MAX));
            }
        }
    }

    fn texture_name(
        &mut self,
        texture: Option<TextureIdx>,
        path: impl Fn() -> ModelPath,
    ) -> Option<String> {
        let index = texture?;
        match self.model.textures.get(index.get()) {
            Some(name) => Some(name.as_str().into_owned()),
            None => {
                self.loss(
                    path(),
                    format!("texture {index} does not exist; written as none"),
                    format!("テクスチャ{index}は存在しません。なしとして書き込みます"),
                );
                None
            }
        }
    }

    fn materials(&mut self) {
        let model = self.model;
        let toon_slots = self.toon_slots();
        for (i, m) in model.materials.iter().enumerate() {
            let at =
                |field: &'static str| ModelPath::element(ElementKind::Material, i).field(field);
            let (generated_ja, generated_en) = generated_material_name(i);
            if !m.name_ja.is_empty() && m.name_ja.as_str() != generated_ja {
                self.loss(
                    at("name_ja"),
                    format!(
                        "material name \"{}\" is dropped: PMD materials have no names",
                        m.name_ja
                    ),
                    format!(
                        "材質名「{}」は削除されます。PMDの材質には名前がありません",
                        m.name_ja
                    ),
                );
            }
            if !m.name_en.is_empty() && m.name_en.as_str() != generated_en {
                self.loss(
                    at("name_en"),
                    format!(
                        "material name \"{}\" is dropped: PMD materials have no names",
                        m.name_en
                    ),
                    format!(
                        "材質名「{}」は削除されます。PMDの材質には名前がありません",
                        m.name_en
                    ),
                );
            }
            if !m.memo.is_empty() {
                self.loss(
                    at("memo"),
                    "the memo is dropped: PMD has none".into(),
                    "メモは削除されます。PMDにはありません".into(),
                );
            }
            if m.edge_color != Vec4::new(0.0, 0.0, 0.0, 1.0) || m.edge_size != 1.0 {
                self.loss(
                    at("edge_color"),
                    format!(
                        "edge colour {:?} and size {} are dropped: MMD draws PMD edges black at \
                         size 1",
                        m.edge_color.to_array(),
                        m.edge_size
                    ),
                    format!(
                        "エッジ色{:?}とエッジサイズ{}は削除されます。MMDはPMDのエッジを黒・サイズ1で\
                         描きます",
                        m.edge_color.to_array(),
                        m.edge_size
                    ),
                );
            }
            let edge = m.draw_flags.contains(DrawFlags::EDGE);
            // Alpha is written as it is, even where 0.98 would turn self shadow off in MMD:
            // the loss report says so, and the user decides.
            let alpha = m.diffuse.w;
            let implied = implied_draw_flags(alpha, edge);
            let differing = m.draw_flags ^ implied;
            if !differing.is_empty() {
                let (message, message_ja) = draw_flags_message(m, alpha, differing);
                self.loss(at("draw_flags"), message, message_ja);
            }
            let texture_field = self.texture_field(i, m);
            let toon_index = match m.toon {
                Toon::Texture(None) => u8::MAX,
                Toon::Shared(number) => {
                    if usize::from(number) >= TOON_COUNT {
                        self.loss(
                            at("toon"),
                            format!("shared toon {number} does not exist; written as it is"),
                            format!("共有Toon{number}は存在しません。そのまま書き込みます"),
                        );
                    }
                    number
                }
                Toon::Texture(Some(texture)) => match toon_slots.get(&texture) {
                    Some(&slot) => slot,
                    None => {
                        let known = self.model.textures.get(texture.get());
                        let name = known
                            .map_or_else(|| format!("texture {texture}"), |n| format!("\"{n}\""));
                        let name_ja = known
                            .map_or_else(|| format!("テクスチャ{texture}"), |n| format!("「{n}」"));
                        self.loss(
                            at("toon"),
                            format!(
                                "toon {name} is dropped: it does not exist, or the PMD toon \
                                 list's 10 entries are taken"
                            ),
                            format!(
                                "Toon {name_ja}は削除されます。存在しないか、PMDのToon一覧の10枠が\
                                 埋まっています"
                            ),
                        );
                        u8::MAX
                    }
                },
            };
            self.file.materials.push(PmdMaterial {
                diffuse: Vec3::new(m.diffuse.x, m.diffuse.y, m.diffuse.z),
                alpha,
                specular_power: m.specular_power,
                specular: m.specular,
                ambient: m.ambient,
                toon_index,
                edge_flag: u8::from(edge),
                face_index_count: m.face_index_count,
                texture: texture_field,
            });
        }
    }

    /// Places the toon textures in the toon list. Slots named by shared toons (and by textures
    /// that are standard toon names) keep their standard name; other toon textures take the
    /// free slots in order of first use.
    fn toon_slots(&mut self) -> HashMap<TextureIdx, u8> {
        let model = self.model;
        let mut reserved = [false; TOON_COUNT];
        let mut slots = HashMap::new();
        let mut custom = Vec::new();
        for m in &model.materials {
            match m.toon {
                Toon::Shared(number) if usize::from(number) < TOON_COUNT => {
                    reserved[usize::from(number)] = true;
                }
                Toon::Texture(Some(texture)) => {
                    let Some(name) = model.textures.get(texture.get()) else {
                        continue;
                    };
                    if let Some(number) = standard_toon_number(&name.as_str()) {
                        reserved[usize::from(number)] = true;
                        slots.insert(texture, number);
                    } else if !custom.contains(&texture) {
                        custom.push(texture);
                    }
                }
                Toon::Shared(_) | Toon::Texture(None) => {}
            }
        }
        let mut free = (0..TOON_COUNT).filter(|&slot| !reserved[slot]);
        for texture in custom {
            let Some(slot) = free.next() else { break };
            let name = model
                .textures
                .get(texture.get())
                .cloned()
                .unwrap_or_default();
            let path = || ModelPath::element(ElementKind::Texture, texture.get());
            let encoded = self.text(&name, field::TOON_NAME, PmdTextSlot::ToonName(slot), path);
            if let Some(names) = &mut self.file.toon_names {
                names[slot] = encoded;
            }
            slots.insert(texture, slot as u8);
        }
        slots
    }

    /// `texture*sphere`, `texture` or `sphere`, as MMD reads it back.
    fn texture_field(&mut self, i: usize, m: &Material) -> FixedText {
        let at = |field: &'static str| ModelPath::element(ElementKind::Material, i).field(field);
        let texture = self.texture_name(m.texture, || at("texture"));
        let sphere = self.texture_name(m.sphere_texture, || at("sphere_texture"));
        // The name a save writes instead, a copy MMD reads in the material's mode.
        let renamed = m
            .sphere_texture
            .and_then(|index| {
                self.spheres
                    .get(&(index.get(), m.sphere_mode, m.texture.is_none()))
            })
            .cloned();
        let sphere = match (sphere, m.sphere_mode, renamed) {
            (None, _, _) => None,
            (Some(sphere), SphereMode::Multiply | SphereMode::Add, Some(written)) => {
                self.loss(
                    at("sphere_texture"),
                    format!(
                        "MMD picks the sphere mode from the file extension (.spa adds, others \
                         multiply): written as \"{written}\", a copy of \"{sphere}\" beside \
                         the file"
                    ),
                    format!(
                        "MMDはスフィアモードを拡張子で決めます（.spaは加算、それ以外は乗算）。\
                         「{sphere}」のコピー「{written}」としてファイルの隣に書き込みます"
                    ),
                );
                Some(written)
            }
            (Some(sphere), SphereMode::Multiply | SphereMode::Add, None) => {
                let stored = sphere_mode_of(&sphere);
                if stored != m.sphere_mode {
                    self.loss(
                        at("sphere_mode"),
                        format!(
                            "MMD picks the sphere mode from the file extension (.spa adds, others \
                             multiply): \"{sphere}\" will be used as {}",
                            if stored == SphereMode::Add {
                                "add"
                            } else {
                                "multiply"
                            }
                        ),
                        format!(
                            "MMDはスフィアモードを拡張子で決めます（.spaは加算、それ以外は乗算）。\
                             「{sphere}」は{}として使われます",
                            if stored == SphereMode::Add {
                                "加算"
                            } else {
                                "乗算"
                            }
                        ),
                    );
                }
                Some(sphere)
            }
            (Some(sphere), SphereMode::Disabled, _) => {
                self.loss(
                    at("sphere_texture"),
                    format!("sphere map \"{sphere}\" is dropped: the sphere mode is off"),
                    format!("スフィアモードが無効のため、スフィア「{sphere}」は削除されます"),
                );
                None
            }
            (Some(sphere), mode, _) => {
                self.loss(
                    at("sphere_mode"),
                    format!(
                        "sphere mode {mode:?} (PMX 2.1 sub-texture or unknown) is not stored: \
                         \"{sphere}\" is dropped"
                    ),
                    format!(
                        "スフィアモード{mode:?}（PMX 2.1のサブテクスチャまたは不明な値）は\
                         保存されません。「{sphere}」は削除されます"
                    ),
                );
                None
            }
        };
        let field_text = match (texture, sphere) {
            (Some(texture), Some(sphere)) => format!("{texture}*{sphere}"),
            (Some(texture), None) => {
                if is_sphere_name(&texture) {
                    self.loss(
                        at("texture"),
                        format!("texture \"{texture}\" will read back as a sphere map (MMD decides by the .sph/.spa extension)"),
                        format!("テクスチャ「{texture}」は読み直すとスフィアになります（MMDは拡張子 .sph/.spa で判断します）"),
                    );
                }
                texture
            }
            (None, Some(sphere)) => {
                if !is_sphere_name(&sphere) {
                    self.loss(
                        at("sphere_texture"),
                        format!("sphere map \"{sphere}\" without a texture will read back as a texture (MMD decides by the .sph/.spa extension)"),
                        format!("テクスチャのないスフィア「{sphere}」は読み直すとテクスチャになります（MMDは拡張子 .sph/.spa で判断します）"),
                    );
                }
                sphere
            }
            (None, None) => String::new(),
        };
        // The texture field may be used to its last byte ("20バイトぎりぎりまで使える").
        self.encode(&Text::from(field_text), field::TEXTURE, || at("texture"))
    }

    fn bones(&mut self) {
        let model = self.model;
        let count = model.bones.len();
        // The first IK bone (in bone order) each link belongs to, and the IK targets.
        let mut link_of = vec![None; count];
        let mut is_target = vec![false; count];
        for (i, bone) in model.bones.iter().enumerate() {
            if !bone.is_ik() {
                continue;
            }
            if let Some(target) = bone.ik.target.filter(|t| t.get() < count) {
                is_target[target.get()] = true;
            }
            for link in &bone.ik.links {
                if let Some(slot) = link.bone.and_then(|b| link_of.get_mut(b.get()))
                    && slot.is_none()
                {
                    *slot = Some(i);
                }
            }
        }
        let kinds: Vec<BoneKind> = (0..count)
            .map(|i| classify(&model.bones[i], link_of[i].is_some(), is_target[i]))
            .collect();
        self.file.bones.reserve_exact(count);
        let mut english_names = Vec::with_capacity(count);
        for (i, bone) in model.bones.iter().enumerate() {
            let kind = kinds[i];
            let at = |field: &'static str| ModelPath::element(ElementKind::Bone, i).field(field);
            let name = self.text(
                &bone.name_ja,
                field::BONE_NAME,
                PmdTextSlot::BoneName(i),
                || at("name_ja"),
            );
            english_names.push(self.text(
                &bone.name_en,
                field::BONE_NAME,
                PmdTextSlot::EnglishBoneName(i),
                || at("name_en"),
            ));
            let parent = self.bone(bone.parent, || at("parent"));
            let (tail, ik_parent) = match kind {
                BoneKind::RotationMotion => {
                    if self.has_tail(bone) {
                        self.loss(
                            at("tail"),
                            "the tail is dropped: a PMD rotation-motion bone stores its source \
                             bone in the tail field"
                                .into(),
                            "表示先は削除されます。PMDの回転連動ボーンは表示先の欄に付与元の\
                             ボーンを持つためです"
                                .into(),
                        );
                    }
                    let scaled = (bone.append_ratio * 100.0).round();
                    let percent = scaled.clamp(f32::from(i16::MIN), f32::from(i16::MAX));
                    let whole = (bone.append_ratio * 100.0 - percent).abs() <= 1e-3;
                    if !whole {
                        self.loss(
                            at("append_ratio"),
                            format!(
                                "append ratio {} is stored as a whole percentage: {}%",
                                bone.append_ratio, percent
                            ),
                            format!(
                                "付与率{}は整数のパーセントで保存されます: {}%",
                                bone.append_ratio, percent
                            ),
                        );
                    }
                    (
                        self.bone(bone.append_parent, || at("append_parent")),
                        percent as i16 as u16,
                    )
                }
                BoneKind::RotationInfluenced => (
                    self.tail(i, bone),
                    self.bone(bone.append_parent, || at("append_parent")),
                ),
                _ => (self.tail(i, bone), 0),
            };
            self.bone_flag_losses(i, bone, kind, link_of[i].is_some());
            self.file.bones.push(PmdBone {
                name,
                parent,
                tail,
                kind: kind.to_raw(),
                ik_parent,
                position: bone.position,
            });
        }
        english(&mut self.file).bone_names = english_names;
        self.twist_losses(&kinds);
        self.layer_losses(&kinds);
        self.iks();
    }

    fn has_tail(&self, bone: &Bone) -> bool {
        if bone.flags.contains(BoneFlags::TAIL_IS_BONE) {
            bone.tail_bone.is_some()
        } else {
            bone.tail_offset != Vec3::ZERO
        }
    }

    /// The tail field: a tail bone, 0 for "none", 0xFFFF for a zero offset.
    fn tail(&mut self, i: usize, bone: &Bone) -> u16 {
        let path = || ModelPath::element(ElementKind::Bone, i).field("tail");
        if !bone.flags.contains(BoneFlags::TAIL_IS_BONE) {
            if bone.tail_offset == Vec3::ZERO {
                return u16::MAX;
            }
            self.loss(
                path(),
                format!(
                    "tail offset {:?} is dropped: PMD tails are bones",
                    bone.tail_offset.to_array()
                ),
                format!(
                    "表示先オフセット{:?}は削除されます。PMDの表示先はボーンです",
                    bone.tail_offset.to_array()
                ),
            );
            return 0;
        }
        match bone.tail_bone {
            None => 0,
            Some(tail) if tail.get() == 0 => {
                self.loss(
                    path(),
                    "tail bone 0 cannot be stored: PMD reads a tail of 0 as none".into(),
                    "表示先ボーン0は保存できません。PMDは表示先0を「なし」として読みます".into(),
                );
                0
            }
            Some(tail) => self.bone(Some(tail), path),
        }
    }

    fn bone_flag_losses(&mut self, i: usize, bone: &Bone, kind: BoneKind, is_link: bool) {
        let at = |field: &'static str| ModelPath::element(ElementKind::Bone, i).field(field);
        let flags = bone.flags;
        let shown =
            BoneFlags::ROTATABLE | BoneFlags::MOVABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE;
        let differing = (flags ^ implied_bone_flags(kind)) & shown;
        if !differing.is_empty() {
            let names = [
                (BoneFlags::ROTATABLE, "rotatable", "回転"),
                (BoneFlags::MOVABLE, "movable", "移動"),
                (BoneFlags::VISIBLE, "visible", "表示"),
                (BoneFlags::OPERABLE, "operable", "操作"),
            ];
            let lost = names.iter().filter(|(flag, ..)| differing.contains(*flag));
            let on = |flag: BoneFlags| flags.contains(flag);
            let lost_en: Vec<String> = lost
                .clone()
                .map(|(flag, name, _)| format!("{name} {}", if on(*flag) { "on" } else { "off" }))
                .collect();
            let lost_ja: Vec<String> = lost
                .map(|(flag, _, name)| format!("{name}{}", if on(*flag) { "オン" } else { "オフ" }))
                .collect();
            self.loss(
                at("flags"),
                format!(
                    "stored as PMD bone kind {} ({}), which fixes the display flags: lost {}",
                    kind.to_raw(),
                    kind_name(kind),
                    lost_en.join(", ")
                ),
                format!(
                    "PMDのボーン種類{}（{}）として保存され、表示フラグは種類で決まります。\
                     失われるもの: {}",
                    kind.to_raw(),
                    kind_name_ja(kind),
                    lost_ja.join("、")
                ),
            );
        }
        let dropped = [
            (BoneFlags::LOCAL_APPEND, "local append", "ローカル付与"),
            (BoneFlags::LOCAL_AXES, "local axes", "ローカル軸"),
            (
                BoneFlags::AFTER_PHYSICS,
                "deform after physics",
                "物理後変形",
            ),
            (BoneFlags::EXTERNAL_PARENT, "external parent", "外部親"),
        ];
        for (flag, name, name_ja) in dropped {
            if flags.contains(flag) {
                self.loss(
                    at("flags"),
                    format!("{name} is dropped: PMD has no such bone setting"),
                    format!("{name_ja}は削除されます。PMDのボーンにはこの設定がありません"),
                );
            }
        }
        if flags.contains(BoneFlags::APPEND_MOVE) {
            self.loss(
                at("flags"),
                "append move is dropped: PMD bones append rotation only".into(),
                "移動付与は削除されます。PMDのボーンは回転付与のみです".into(),
            );
        }
        let appends = flags.contains(BoneFlags::APPEND_ROTATE);
        if appends
            && !matches!(
                kind,
                BoneKind::RotationInfluenced | BoneKind::RotationMotion
            )
        {
            let (reason, reason_ja) = if bone.append_parent.is_none() {
                (
                    "it has no append parent".to_owned(),
                    "付与親がありません".to_owned(),
                )
            } else {
                (
                    format!(
                        "PMD stores the bone as kind {} ({})",
                        kind.to_raw(),
                        kind_name(kind)
                    ),
                    format!(
                        "PMDではボーン種類{}（{}）として保存されます",
                        kind.to_raw(),
                        kind_name_ja(kind)
                    ),
                )
            };
            self.loss(
                at("append_parent"),
                format!("append rotation is dropped: {reason}"),
                format!("回転付与は削除されます: {reason_ja}"),
            );
        }
        if flags.contains(BoneFlags::FIXED_AXIS) && kind != BoneKind::Twist {
            self.loss(
                at("fixed_axis"),
                format!(
                    "the fixed axis is dropped: PMD stores the bone as kind {} ({})",
                    kind.to_raw(),
                    kind_name(kind)
                ),
                format!(
                    "軸制限は削除されます。PMDではボーン種類{}（{}）として保存されます",
                    kind.to_raw(),
                    kind_name_ja(kind)
                ),
            );
        }
        if is_link && kind != BoneKind::IkLink {
            self.loss(
                at("flags"),
                format!(
                    "an IK link stored as kind {} ({}) instead of IK-affected (4)",
                    kind.to_raw(),
                    kind_name(kind)
                ),
                format!(
                    "IKリンクがIK影響下(4)ではなく種類{}（{}）として保存されます",
                    kind.to_raw(),
                    kind_name_ja(kind)
                ),
            );
        }
    }

    /// PMD twists about the direction to the tail bone; other fixed axes are lost.
    fn twist_losses(&mut self, kinds: &[BoneKind]) {
        for (i, bone) in self.model.bones.iter().enumerate() {
            if kinds[i] != BoneKind::Twist {
                continue;
            }
            let stored = twist_axis(&self.file.bones, i);
            let wanted = glam::Vec3::from(bone.fixed_axis).try_normalize();
            let same = match (stored, wanted) {
                (Some(stored), Some(wanted)) => glam::Vec3::from(stored).dot(wanted) > 0.99999,
                (None, None) => true,
                _ => false,
            };
            if !same {
                let axis = bone.fixed_axis.to_array();
                let (message, message_ja) = match stored {
                    Some(stored) => (
                        format!(
                            "fixed axis {axis:?} is not stored: PMD twists about the direction to \
                             the tail bone, {:?}",
                            stored.to_array()
                        ),
                        format!(
                            "制限軸{axis:?}は保存されません。PMDは表示先ボーンへの方向（{:?}）を\
                             軸にひねります",
                            stored.to_array()
                        ),
                    ),
                    None => (
                        format!(
                            "fixed axis {axis:?} is not stored: PMD twists about the direction to \
                             the tail bone, and this bone has no tail bone at another position"
                        ),
                        format!(
                            "制限軸{axis:?}は保存されません。PMDは表示先ボーンへの方向を軸に\
                             ひねりますが、このボーンには別の位置にある表示先ボーンがありません"
                        ),
                    ),
                };
                self.loss(
                    ModelPath::element(ElementKind::Bone, i).field("fixed_axis"),
                    message,
                    message_ja,
                );
            }
        }
    }

    /// PMD has no deform layers; PMD → PMX derives them (IK chains 1, rotation-influenced
    /// chains 2). Other layers are lost.
    fn layer_losses(&mut self, kinds: &[BoneKind]) {
        let model = self.model;
        let base: Vec<i32> = kinds
            .iter()
            .map(|&kind| layer_base(kind == BoneKind::Ik, kind))
            .collect();
        let parents: Vec<Option<BoneIdx>> = model.bones.iter().map(|b| b.parent).collect();
        let derived = propagate_layers(&parents, &base);
        for (i, (bone, derived)) in model.bones.iter().zip(derived).enumerate() {
            if bone.layer != derived {
                self.loss(
                    ModelPath::element(ElementKind::Bone, i).field("layer"),
                    format!(
                        "deform layer {} is not stored: PMD has no layers, and reading the file \
                         back gives {derived}",
                        bone.layer
                    ),
                    format!(
                        "変形階層{}は保存されません。PMDには変形階層がなく、読み直すと{derived}に\
                         なります",
                        bone.layer
                    ),
                );
            }
        }
    }

    fn iks(&mut self) {
        let model = self.model;
        for (i, bone) in model.bones.iter().enumerate() {
            if !bone.is_ik() || (bone.ik.target.is_none() && bone.ik.links.is_empty()) {
                continue;
            }
            let at = |field: &'static str| {
                ModelPath::element(ElementKind::Bone, i)
                    .field("ik")
                    .field(field)
            };
            let ik = &bone.ik;
            let target = self.bone(ik.target, || at("target"));
            let iterations = u16::try_from(ik.loop_count.max(0)).unwrap_or(u16::MAX);
            if i64::from(iterations) != i64::from(ik.loop_count) {
                self.loss(
                    at("loop_count"),
                    format!(
                        "loop count {} is written as {iterations} (PMD: 0..65535)",
                        ik.loop_count
                    ),
                    format!(
                        "Loop回数{}は{iterations}として書き込みます（PMDは0..65535）",
                        ik.loop_count
                    ),
                );
            }
            if ik.links.len() > usize::from(u8::MAX) {
                self.loss(
                    at("links"),
                    format!(
                        "{} links; PMD holds 255, the rest are dropped",
                        ik.links.len()
                    ),
                    format!(
                        "リンクが{}個あります。PMDは255個までで、残りは削除されます",
                        ik.links.len()
                    ),
                );
            }
            let mut links = Vec::with_capacity(ik.links.len().min(255));
            for (k, link) in ik.links.iter().take(255).enumerate() {
                let link_path = || {
                    ModelPath::element(ElementKind::Bone, i)
                        .field("ik")
                        .at("links", k)
                };
                links.push(self.bone(link.bone, || link_path().field("bone")));
                let knee = link
                    .bone
                    .and_then(|b| model.bones.get(b.get()))
                    .is_some_and(|b| is_knee(&b.name_ja.as_str()));
                let read_back = knee.then(knee_limits);
                if link.limits != read_back {
                    let (message, message_ja) = match (link.limits, read_back) {
                        (Some(limits), None) => {
                            let (lower, upper) = (limits.lower.to_array(), limits.upper.to_array());
                            (
                                format!(
                                    "angle limits {lower:?}..{upper:?} are dropped: PMD stores \
                                     none (only knees get their X limit back on reading)"
                                ),
                                format!(
                                    "角度制限{lower:?}..{upper:?}は削除されます。PMDには角度制限が\
                                     ありません（読み込み時にひざだけX軸の制限が戻ります）"
                                ),
                            )
                        }
                        (Some(limits), Some(_)) => {
                            let (lower, upper) = (limits.lower.to_array(), limits.upper.to_array());
                            (
                                format!(
                                    "angle limits {lower:?}..{upper:?} are dropped: reading PMD \
                                     gives a knee the standard X limit -180°..-0.5°"
                                ),
                                format!(
                                    "角度制限{lower:?}..{upper:?}は削除されます。PMDを読むと\
                                     ひざには標準のX軸制限 -180°..-0.5° が付きます"
                                ),
                            )
                        }
                        (None, _) => (
                            "the link has no angle limit, but reading PMD gives a knee the \
                             standard X limit -180°..-0.5°"
                                .to_owned(),
                            "このリンクに角度制限はありませんが、PMDを読むとひざには標準のX軸制限 \
                             -180°..-0.5° が付きます"
                                .to_owned(),
                        ),
                    };
                    self.loss(link_path().field("limits"), message, message_ja);
                }
            }
            let bone_index = self.bone(Some(BoneIdx::new(i)), || {
                ModelPath::element(ElementKind::Bone, i)
            });
            self.file.iks.push(PmdIk {
                bone: bone_index,
                target,
                iterations,
                limit: ik.limit_angle / IK_LIMIT_FACTOR,
                links,
            });
        }
    }

    /// Vertex morphs to skins (with the base skin first); returns each morph's skin index.
    fn skins(&mut self) -> Vec<Option<u16>> {
        let model = self.model;
        let mut morph_to_skin = vec![None; model.morphs.len()];
        let mut vertex_morphs = Vec::new();
        for (i, morph) in model.morphs.iter().enumerate() {
            match &morph.offsets {
                MorphOffsets::Vertex(offsets) => vertex_morphs.push((i, morph, offsets)),
                other => self.loss(
                    ModelPath::element(ElementKind::Morph, i),
                    format!(
                        "{} morph \"{}\" is dropped: PMD has only vertex morphs",
                        morph_kind_name(other.kind()),
                        morph.name_ja
                    ),
                    format!(
                        "{}モーフ「{}」は削除されます。PMDには頂点モーフしかありません",
                        morph_kind_name_ja(other.kind()),
                        morph.name_ja
                    ),
                ),
            }
        }
        // The base skin is the skin count's first entry; skins are counted in 16 bits.
        let room = usize::from(u16::MAX) - 1;
        if vertex_morphs.len() > room {
            for &(i, morph, _) in &vertex_morphs[room..] {
                self.loss(
                    ModelPath::element(ElementKind::Morph, i),
                    format!(
                        "morph \"{}\" is dropped: PMD holds 65,534 skins",
                        morph.name_ja
                    ),
                    format!(
                        "モーフ「{}」は削除されます。PMDの表情は65,534個までです",
                        morph.name_ja
                    ),
                );
            }
            vertex_morphs.truncate(room);
        }
        if vertex_morphs.is_empty() {
            return morph_to_skin;
        }
        // The base skin lists every morphed vertex once, in vertex order (as every known file).
        let base: BTreeSet<u32> = vertex_morphs
            .iter()
            .flat_map(|(_, _, offsets)| offsets.iter().map(|o| o.vertex.0))
            .collect();
        let base: Vec<u32> = base.into_iter().collect();
        let base_slot: HashMap<u32, u32> = base
            .iter()
            .enumerate()
            .map(|(slot, &vertex)| (vertex, slot as u32))
            .collect();
        let mut base_vertices = Vec::with_capacity(base.len());
        for &vertex in &base {
            let position = match model.vertices.get(vertex as usize) {
                Some(v) => v.position,
                None => {
                    self.loss(
                        ModelPath::list(ElementKind::Morph),
                        format!("vertex {vertex} of a vertex morph does not exist; its base position is written as 0"),
                        format!("頂点モーフの頂点{vertex}は存在しません。baseの位置は0として書き込みます"),
                    );
                    Vec3::ZERO
                }
            };
            base_vertices.push(PmdSkinVertex {
                index: vertex,
                position,
            });
        }
        self.file.skins.reserve_exact(vertex_morphs.len() + 1);
        self.file.skins.push(PmdSkin {
            name: FixedText::new(b"base".to_vec()),
            kind: 0,
            vertices: base_vertices,
        });
        let mut english_names = Vec::with_capacity(vertex_morphs.len());
        for (i, morph, offsets) in vertex_morphs {
            let at = |field: &'static str| ModelPath::element(ElementKind::Morph, i).field(field);
            let skin = self.file.skins.len();
            let name = self.text(
                &morph.name_ja,
                field::SKIN_NAME,
                PmdTextSlot::SkinName(skin),
                || at("name_ja"),
            );
            english_names.push(self.text(
                &morph.name_en,
                field::SKIN_NAME,
                PmdTextSlot::EnglishSkinName(english_names.len()),
                || at("name_en"),
            ));
            // The system panel (0) is written as kind 0, as PmxEditor does: only the first
            // skin is the base.
            let kind = morph.panel.to_raw();
            let vertices = offsets
                .iter()
                .map(|o| PmdSkinVertex {
                    index: base_slot.get(&o.vertex.0).copied().unwrap_or(0),
                    position: o.offset,
                })
                .collect();
            morph_to_skin[i] = u16::try_from(self.file.skins.len()).ok();
            self.file.skins.push(PmdSkin {
                name,
                kind,
                vertices,
            });
        }
        english(&mut self.file).skin_names = english_names;
        morph_to_skin
    }

    fn display_frames(&mut self, morph_to_skin: &[Option<u16>]) {
        let model = self.model;
        let mut root_done = false;
        let mut expressions_done = false;
        let mut english_names = Vec::new();
        for (f, frame) in model.display_frames.iter().enumerate() {
            let at =
                |field: &'static str| ModelPath::element(ElementKind::DisplayFrame, f).field(field);
            if !root_done && is_root_frame(f, frame) {
                root_done = true;
                // PMD's centre frame holds bone 0 implicitly; nothing else can go there.
                for (k, item) in frame.items.iter().enumerate() {
                    if k == 0 && *item == DisplayItem::Bone(Some(BoneIdx::new(0))) {
                        continue;
                    }
                    self.loss(
                        ModelPath::element(ElementKind::DisplayFrame, f).at("items", k),
                        "only bone 0 can be in PMD's root frame; the item is dropped".into(),
                        "PMDのRoot枠にはボーン0しか入りません。この要素は削除されます".into(),
                    );
                }
                continue;
            }
            if !expressions_done && is_expression_frame(frame) {
                expressions_done = true;
                for (k, item) in frame.items.iter().enumerate() {
                    self.expression_item(f, k, item, morph_to_skin, false);
                }
                continue;
            }
            if self.file.bone_frame_names.len() == usize::from(u8::MAX) {
                self.loss(
                    at("name_ja"),
                    "frame dropped: PMD holds 255 bone frames".into(),
                    "表示枠は削除されます。PMDのボーン枠は255個までです".into(),
                );
                continue;
            }
            // PMDEditor needs bone frame names to end with "\n".
            let slot = PmdTextSlot::BoneFrameName(self.file.bone_frame_names.len());
            let kept = self
                .kept_full_text(&frame.name_ja, slot, b"\n")
                .or_else(|| self.kept_bare_frame_name(&frame.name_ja, slot));
            let name = match kept {
                Some(kept) => kept,
                None => {
                    let mut name = self.text(&frame.name_ja, field::FRAME_NAME - 1, slot, || {
                        at("name_ja")
                    });
                    // (48 bytes of name, "\n" and the terminator fill the 50-byte field.)
                    name.bytes.push(b'\n');
                    name
                }
            };
            self.file.bone_frame_names.push(name);
            english_names.push(self.text(
                &frame.name_en,
                field::FRAME_NAME,
                PmdTextSlot::EnglishBoneFrameName(english_names.len()),
                || at("name_en"),
            ));
            let number = self.file.bone_frame_names.len() as u8;
            for (k, item) in frame.items.iter().enumerate() {
                match *item {
                    DisplayItem::Bone(bone) => {
                        let bone = self.bone(bone, || {
                            ModelPath::element(ElementKind::DisplayFrame, f).at("items", k)
                        });
                        self.file.bone_frame_items.push(PmdBoneFrameItem {
                            bone,
                            frame: number,
                        });
                    }
                    DisplayItem::Morph(_) => {
                        self.expression_item(f, k, item, morph_to_skin, true);
                    }
                }
            }
        }
        english(&mut self.file).bone_frame_names = english_names;
    }

    /// A morph item goes to the skin display list (PMD's only morph frame).
    fn expression_item(
        &mut self,
        f: usize,
        k: usize,
        item: &DisplayItem,
        morph_to_skin: &[Option<u16>],
        moved: bool,
    ) {
        let path = ModelPath::element(ElementKind::DisplayFrame, f).at("items", k);
        let morph = match *item {
            DisplayItem::Morph(morph) => morph,
            DisplayItem::Bone(_) => {
                self.loss(
                    path,
                    "bones cannot be in PMD's 表情 frame; the item is dropped".into(),
                    "PMDの表情枠にはボーンを入れられません。この要素は削除されます".into(),
                );
                return;
            }
        };
        let Some(skin) = morph.and_then(|m| morph_to_skin.get(m.get()).copied().flatten()) else {
            self.loss(
                path,
                "the morph is not written as a PMD skin; the item is dropped".into(),
                "このモーフはPMDの表情として書き込まれないため、この要素は削除されます".into(),
            );
            return;
        };
        if moved {
            self.loss(
                path.clone(),
                "PMD shows morphs only in the 表情 frame; the morph moves there".into(),
                "PMDではモーフは表情枠にしか表示できません。モーフは表情枠に移ります".into(),
            );
            if self.file.skin_display.contains(&skin) {
                return;
            }
        }
        if self.file.skin_display.len() == usize::from(u8::MAX) {
            self.loss(
                path,
                "the 表情 frame holds at most 255 morphs in PMD; dropped".into(),
                "PMDの表情枠は255個までです。削除されます".into(),
            );
            return;
        }
        self.file.skin_display.push(skin);
    }

    fn physics(&mut self) {
        let model = self.model;
        let names: Vec<String> = model
            .bones
            .iter()
            .map(|b| b.name_ja.as_str().into_owned())
            .collect();
        let anchor = rigid_body_anchor(&names);
        let mut bodies = Vec::with_capacity(model.rigid_bodies.len());
        for (i, r) in model.rigid_bodies.iter().enumerate() {
            let at =
                |field: &'static str| ModelPath::element(ElementKind::RigidBody, i).field(field);
            let name = self.text(
                &r.name_ja,
                field::RIGID_BODY_NAME,
                PmdTextSlot::RigidBodyName(i),
                || at("name_ja"),
            );
            self.english_dropped(&r.name_en, || at("name_en"));
            let bone = self.bone(r.bone, || at("bone"));
            let anchor_bone = if bone == u16::MAX {
                anchor
            } else {
                Some(usize::from(bone))
            };
            let origin = anchor_bone
                .and_then(|b| model.bones.get(b))
                .map_or(Vec3::ZERO, |b| b.position);
            bodies.push(PmdRigidBody {
                name,
                bone,
                group: r.group,
                collision_mask: r.non_collision_mask,
                shape: r.shape.to_raw(),
                size: r.size,
                position: add(r.position, Vec3::new(-origin.x, -origin.y, -origin.z)),
                rotation: r.rotation,
                mass: r.mass,
                linear_damping: r.linear_damping,
                angular_damping: r.angular_damping,
                restitution: r.restitution,
                friction: r.friction,
                mode: r.mode.to_raw(),
            });
        }
        self.file.rigid_bodies = Some(bodies);
        let mut joints = Vec::with_capacity(model.joints.len());
        for (i, j) in model.joints.iter().enumerate() {
            let at = |field: &'static str| ModelPath::element(ElementKind::Joint, i).field(field);
            let name = self.text(
                &j.name_ja,
                field::JOINT_NAME,
                PmdTextSlot::JointName(i),
                || at("name_ja"),
            );
            self.english_dropped(&j.name_en, || at("name_en"));
            if j.kind != JointKind::Spring6Dof {
                self.loss(
                    at("kind"),
                    format!(
                        "joint kind {:?} (PMX 2.1) is written as a spring 6DOF",
                        j.kind
                    ),
                    format!(
                        "ジョイントの種類{:?}（PMX 2.1）はバネ付6DOFとして書き込みます",
                        j.kind
                    ),
                );
            }
            joints.push(PmdJoint {
                name,
                body_a: RigidBodyIdx::to_raw(j.body_a) as u32,
                body_b: RigidBodyIdx::to_raw(j.body_b) as u32,
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
        self.file.joints = Some(joints);
    }

    fn english_dropped(&mut self, name: &Text, path: impl Fn() -> ModelPath) {
        if !name.is_empty() {
            self.loss(
                path(),
                format!("English name \"{name}\" is dropped: PMD has none for this element"),
                format!("英名「{name}」は削除されます。PMDのこの要素には英名がありません"),
            );
        }
    }
}

/// The PMD kind a bone is stored as. IK first, then appends, twists, IK links, hidden bones
/// (IK targets apart) and movable bones; everything else rotates.
fn classify(bone: &Bone, is_link: bool, is_target: bool) -> BoneKind {
    let flags = bone.flags;
    if flags.contains(BoneFlags::IK) {
        BoneKind::Ik
    } else if flags.contains(BoneFlags::APPEND_ROTATE) && bone.append_parent.is_some() {
        // PMD → PMX makes rotation-influenced bones visible with ratio 1 and rotation-motion
        // bones hidden: this is the inverse.
        if flags.contains(BoneFlags::VISIBLE) && bone.append_ratio == 1.0 {
            BoneKind::RotationInfluenced
        } else {
            BoneKind::RotationMotion
        }
    } else if flags.contains(BoneFlags::FIXED_AXIS) {
        BoneKind::Twist
    } else if is_link {
        BoneKind::IkLink
    } else if !flags.contains(BoneFlags::VISIBLE) {
        if is_target {
            BoneKind::IkTarget
        } else {
            BoneKind::Hidden
        }
    } else if flags.contains(BoneFlags::MOVABLE) {
        BoneKind::RotateMove
    } else {
        BoneKind::Rotate
    }
}

/// PMX's special Root frame (by flag and name, as the spec says; nanoem writes it without the
/// flag, so the first frame named "Root" counts too).
fn is_root_frame(index: usize, frame: &DisplayFrame) -> bool {
    frame.name_ja.as_str() == "Root" && (frame.special || index == 0)
}

/// PMX's special 表情 frame (nanoem names it only in English, "Exp").
fn is_expression_frame(frame: &DisplayFrame) -> bool {
    frame.special && (frame.name_ja.as_str() == "表情" || frame.name_en.as_str() == "Exp")
}

fn kind_name(kind: BoneKind) -> &'static str {
    match kind {
        BoneKind::Rotate => "rotate",
        BoneKind::RotateMove => "rotate and move",
        BoneKind::Ik => "IK",
        BoneKind::Unknown => "unknown",
        BoneKind::IkLink => "IK-affected",
        BoneKind::RotationInfluenced => "rotation-influenced",
        BoneKind::IkTarget => "IK target",
        BoneKind::Hidden => "hidden",
        BoneKind::Twist => "twist",
        BoneKind::RotationMotion => "rotation motion",
        BoneKind::Other(_) => "unknown",
    }
}

fn kind_name_ja(kind: BoneKind) -> &'static str {
    match kind {
        BoneKind::Rotate => "回転",
        BoneKind::RotateMove => "回転/移動",
        BoneKind::Ik => "IK",
        BoneKind::Unknown | BoneKind::Other(_) => "不明",
        BoneKind::IkLink => "IK影響下",
        BoneKind::RotationInfluenced => "回転影響下",
        BoneKind::IkTarget => "IK接続先",
        BoneKind::Hidden => "非表示",
        BoneKind::Twist => "捻り",
        BoneKind::RotationMotion => "回転運動",
    }
}

fn morph_kind_name_ja(kind: MorphKind) -> &'static str {
    match kind {
        MorphKind::Group => "グループ",
        MorphKind::Vertex => "頂点",
        MorphKind::Bone => "ボーン",
        MorphKind::Uv => "UV",
        MorphKind::AdditionalUv1 => "追加UV1",
        MorphKind::AdditionalUv2 => "追加UV2",
        MorphKind::AdditionalUv3 => "追加UV3",
        MorphKind::AdditionalUv4 => "追加UV4",
        MorphKind::Material => "材質",
        MorphKind::Flip => "フリップ（PMX 2.1）",
        MorphKind::Impulse => "インパルス（PMX 2.1）",
    }
}

fn morph_kind_name(kind: MorphKind) -> &'static str {
    match kind {
        MorphKind::Group => "group",
        MorphKind::Vertex => "vertex",
        MorphKind::Bone => "bone",
        MorphKind::Uv => "UV",
        MorphKind::AdditionalUv1 => "additional UV 1",
        MorphKind::AdditionalUv2 => "additional UV 2",
        MorphKind::AdditionalUv3 => "additional UV 3",
        MorphKind::AdditionalUv4 => "additional UV 4",
        MorphKind::Material => "material",
        MorphKind::Flip => "flip (PMX 2.1)",
        MorphKind::Impulse => "impulse (PMX 2.1)",
    }
}

/// What the draw flags lose, in English and Japanese.
fn draw_flags_message(m: &Material, alpha: f32, differing: DrawFlags) -> (String, String) {
    let on = |flag: DrawFlags| {
        if m.draw_flags.contains(flag) {
            ("on", "オン")
        } else {
            ("off", "オフ")
        }
    };
    let mut parts = Vec::new();
    let mut parts_ja = Vec::new();
    if differing.contains(DrawFlags::DOUBLE_SIDED) {
        let double = on(DrawFlags::DOUBLE_SIDED);
        parts.push(format!(
            "double-sided {} (MMD draws a PMD material double-sided exactly when its alpha, \
             here {}, is below 1)",
            double.0, alpha
        ));
        parts_ja.push(format!(
            "両面描画{}（MMDはPMDの材質を、アルファ（ここでは{}）が1未満のときに限り両面描画します）",
            double.1, alpha
        ));
    }
    if differing.intersects(DrawFlags::DRAW_TO_SHADOW_MAP | DrawFlags::DRAW_SELF_SHADOW) {
        let (map, self_shadow) = (
            on(DrawFlags::DRAW_TO_SHADOW_MAP),
            on(DrawFlags::DRAW_SELF_SHADOW),
        );
        parts.push(format!(
            "self shadow {}/{} (MMD turns it off exactly when alpha is 0.98; set alpha to 0.98 \
             to get that)",
            map.0, self_shadow.0
        ));
        parts_ja.push(format!(
            "セルフ影{}/{}（MMDはアルファがちょうど0.98のときに限りオフにします。オフにするには\
             アルファを0.98に）",
            map.1, self_shadow.1
        ));
    }
    if differing.contains(DrawFlags::GROUND_SHADOW) {
        let (ground, edge) = (on(DrawFlags::GROUND_SHADOW), on(DrawFlags::EDGE));
        parts.push(format!(
            "ground shadow {} (one flag with the edge in PMD, which is {})",
            ground.0, edge.0
        ));
        parts_ja.push(format!(
            "地面影{}（PMDではエッジと同じフラグで、エッジは{}）",
            ground.1, edge.1
        ));
    }
    if differing.intersects(DrawFlags::PMX21_ONLY) {
        parts.push("vertex colour/point/line drawing (PMX 2.1)".into());
        parts_ja.push("頂点カラー・点描画・線描画（PMX 2.1）".into());
    }
    (
        format!("not stored: {}", parts.join("; ")),
        format!("保存されません: {}", parts_ja.join("。")),
    )
}
