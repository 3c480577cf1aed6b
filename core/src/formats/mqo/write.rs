//! Exporting a PMX model as a Metasequoia `.mqo`, with an optional `.mqx` side file for the
//! bones, weights and morphs that MQO itself cannot hold.
//!
//! - **Objects.** One object per material (the default) or per bone (each face goes to the
//!   bone with the most weight over its corners). Within an object, PMX vertices at the same
//!   position are welded into one MQO vertex, so Metasequoia sees whole, connected surfaces;
//!   UVs (and vertex colours) are stored per face corner, so UV seams survive the weld. When
//!   the MQX carries weights or morphs, only vertices that also agree on those are welded (the
//!   upper and lower lip of a mouth that opens stay apart).
//! - **Axes, scale, winding**: the inverse of the import (see the module documentation): PMX
//!   (x, y, z) is written as (x, y, −z) × scale, faces keep their corner order.
//! - **Materials.** Every PMX material is written in order (`M(i)` is the PMX index): `col` is
//!   the diffuse colour and alpha with `dif(1)`; ambient and specular are written as a
//!   strength (`amb`, `spc`: what readers of the original format use) times a colour
//!   (`amb_col`, `spc_col`, Metasequoia 4), whose product is the PMX colour. Texture paths are
//!   rewritten relative to the MQO.
//! - **Text.** cp932 as the format expects; when a name or path has a character cp932 cannot
//!   encode, the file is written in UTF-8 with `CodePage utf8` (Metasequoia 4.6 and later).
//! - **MQX.** Metasequoia 4's bone plugin (`BoneSet2`: positions, parents, weights in percent)
//!   and morph plugin (`MorphSet`: each vertex morph as a hidden target object under its base
//!   object, holding the base's vertex list moved by the morph, without faces). A material
//!   part that morphs move is written as an object of its own (`NAME_morph`), so a target
//!   copies the part a morph moves, not the whole material. Objects get `uid`s for it; vertices are referred to by their 1-based position,
//!   which is the ID Metasequoia gives a vertex without a `vertexattr uid`.
//!
//! Whatever MQO cannot hold is listed in the [`MqoExportReport`], in English and Japanese.

use super::DEFAULT_MQO_UNITS_PER_PMX_UNIT;
use super::document::{CodePage, MqoVersion};
use super::mqx::{BONE_PLUGIN, MORPH_PLUGIN};
use crate::formats::relocate::relative_path;
use crate::formats::{SaveReport, WriteError, cp932};
use crate::i18n::{Language, Message, MessageArg};
use crate::model::{
    BoneFlags, DrawFlags, ElementKind, Model, MorphOffsets, MqoObjectSettings, Vec3, Weight,
};
use crate::path::ModelPath;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// The spec's longest material name in bytes ("31Byte以内").
pub const MATERIAL_NAME_MAX_BYTES: usize = 31;
/// The spec's longest object name in bytes ("63Byte以内").
pub const OBJECT_NAME_MAX_BYTES: usize = 63;

const NONE: u32 = u32::MAX;

/// How faces are gathered into MQO objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MqoObjectGrouping {
    /// One object per PMX material, named after it.
    #[default]
    PerMaterial,
    /// One object per bone: each face goes to the bone with the most weight over its corners.
    PerBone,
}

/// How to export.
#[derive(Debug, Clone, PartialEq)]
pub struct MqoExportOptions {
    /// MQO units per PMX unit ([`DEFAULT_MQO_UNITS_PER_PMX_UNIT`] unless the user says).
    pub units_per_pmx_unit: f32,
    pub grouping: MqoObjectGrouping,
    /// Write the bones and weights to an `.mqx` side file (Metasequoia 4's bone plugin).
    pub bones: bool,
    /// Write vertex morphs as hidden target objects listed in the `.mqx` (the morph plugin).
    pub morphs: bool,
    /// The MQO's file name: the `.mqx` is named after it and refers back to it.
    pub file_name: String,
    /// The folder the model's texture paths are relative to (the PMX's folder), and the folder
    /// the MQO is written to: texture paths are rewritten from the one to the other. Without
    /// both, paths are written as the model has them.
    pub model_dir: Option<PathBuf>,
    pub mqo_dir: Option<PathBuf>,
}

impl Default for MqoExportOptions {
    fn default() -> Self {
        Self {
            units_per_pmx_unit: DEFAULT_MQO_UNITS_PER_PMX_UNIT,
            grouping: MqoObjectGrouping::PerMaterial,
            bones: true,
            morphs: true,
            file_name: "model.mqo".into(),
            model_dir: None,
            mqo_dir: None,
        }
    }
}

impl MqoExportOptions {
    /// Options for writing `path` from a model whose textures are relative to `model_dir`.
    #[must_use]
    pub fn for_path(path: &Path, model_dir: Option<&Path>) -> Self {
        Self {
            file_name: path
                .file_name()
                .map(|name| name.to_string_lossy().into_owned())
                .unwrap_or_else(|| "model.mqo".into()),
            model_dir: model_dir.map(Path::to_owned),
            mqo_dir: Some(crate::formats::folder_of(path).to_owned()),
            ..Self::default()
        }
    }

    /// The `.mqx` side file's name: the MQO's with the extension `.mqx`.
    #[must_use]
    pub fn mqx_file_name(&self) -> String {
        let path = Path::new(&self.file_name).with_extension("mqx");
        path.file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model.mqx".into())
    }
}

/// An exported model: the MQO text, the MQX side file when there is one, and what was lost.
#[derive(Debug, Clone, PartialEq)]
pub struct MqoExport {
    pub mqo: Vec<u8>,
    /// `(file name, bytes)` of the `.mqx`, to be written next to the MQO.
    pub mqx: Option<(String, Vec<u8>)>,
    pub report: MqoExportReport,
}

/// What the export wrote and what MQO cannot hold.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MqoExportReport {
    pub version: Option<MqoVersion>,
    pub code_page: CodePage,
    /// Objects with geometry (morph target objects not counted).
    pub objects: usize,
    /// MQO vertices after welding, over every geometry object.
    pub vertices: usize,
    pub faces: usize,
    pub morph_targets: usize,
    pub losses: Vec<MqoLoss>,
}

impl MqoExportReport {
    /// The losses as a save report (English, one line each).
    #[must_use]
    pub fn to_save_report(&self) -> SaveReport {
        SaveReport {
            warnings: self.losses.iter().map(MqoLoss::message).collect(),
        }
    }
}

/// One thing the MQO (and MQX) cannot hold, or holds differently.
#[derive(Debug, Clone, PartialEq)]
pub enum MqoLoss {
    /// Elements MQO has no place for (rigid bodies, joints, soft bodies, display frames).
    Dropped { kind: &'static str, count: usize },
    /// Morphs MQO cannot hold: every non-vertex morph (by kind), or vertex morphs when morph
    /// targets were not asked for.
    MorphsDropped { kind: &'static str, count: usize },
    /// Bones and weights, when no MQX was asked for.
    BonesDropped { bones: usize },
    /// Bone settings the MQX bone plugin has no place for (IK, append, axes, flags...).
    BoneSettingsDropped { bones: usize },
    /// SDEF and QDEF vertices written as linear blends.
    SkinningAsLinear { sdef: usize, qdef: usize },
    /// Additional UV channels (the vertex colour channel excepted).
    AdditionalUvsDropped { channels: usize },
    /// Material properties with no MQO equivalent.
    MaterialPropertiesDropped {
        property: &'static str,
        materials: usize,
    },
    /// A value outside what MQO stores, clamped.
    Clamped {
        material: String,
        property: &'static str,
        value: f32,
    },
    /// Vertex normals: Metasequoia computes its own from the faces.
    NormalsRecomputed,
    /// Per-vertex edge scales other than 1.
    EdgeScalesDropped { vertices: usize },
    /// English names and the model's name and comments.
    EnglishNamesDropped,
    /// A name longer than the spec allows (Metasequoia 4 reads it; older versions may cut it).
    LongName {
        kind: &'static str,
        name: String,
        bytes: usize,
        limit: usize,
    },
    /// A `"` in a name or path, which MQO cannot quote: written as `'`.
    QuoteReplaced { text: String },
    /// Two objects would share a name: the later one got a suffix.
    NameMadeUnique { from: String, to: String },
    /// A character cp932 cannot encode: the file is UTF-8 with `CodePage utf8`.
    Utf8CodePage { example: String },
    /// Morphs touching several objects became one target per object (`name:object`); the
    /// import joins them again.
    MorphsSplit { morphs: usize, example: String },
}

impl MqoLoss {
    /// The loss as a message of `resources/i18n` (keys `save.mqo.*`).
    #[must_use]
    pub fn message(&self) -> Message {
        match self {
            MqoLoss::Dropped { kind, count } => Message::new("save.mqo.dropped")
                .arg("kind", word(kind))
                .arg("count", *count),
            MqoLoss::MorphsDropped { kind, count } => Message::new("save.mqo.morphs_dropped")
                .arg("kind", word(kind))
                .arg("count", *count),
            MqoLoss::BonesDropped { bones } => {
                Message::new("save.mqo.bones_dropped").arg("bones", *bones)
            }
            MqoLoss::BoneSettingsDropped { bones } => {
                Message::new("save.mqo.bone_settings_dropped").arg("bones", *bones)
            }
            MqoLoss::SkinningAsLinear { sdef, qdef } => Message::new("save.mqo.skinning_as_linear")
                .arg("sdef", *sdef)
                .arg("qdef", *qdef),
            MqoLoss::AdditionalUvsDropped { channels } => {
                Message::new("save.mqo.additional_uvs_dropped").arg("channels", *channels)
            }
            MqoLoss::MaterialPropertiesDropped {
                property,
                materials,
            } => Message::new("save.mqo.material_properties_dropped")
                .arg("property", word(property))
                .arg("materials", *materials),
            MqoLoss::Clamped {
                material,
                property,
                value,
            } => Message::new("save.mqo.clamped")
                .arg("material", material)
                .arg("property", word(property))
                .arg("value", *value),
            MqoLoss::NormalsRecomputed => Message::new("save.mqo.normals_recomputed"),
            MqoLoss::EdgeScalesDropped { vertices } => {
                Message::new("save.mqo.edge_scales_dropped").arg("vertices", *vertices)
            }
            MqoLoss::EnglishNamesDropped => Message::new("save.mqo.english_names_dropped"),
            MqoLoss::LongName {
                kind,
                name,
                bytes,
                limit,
            } => Message::new("save.mqo.long_name")
                .arg("kind", word(kind))
                .arg("name", name)
                .arg("bytes", *bytes)
                .arg("limit", *limit),
            MqoLoss::QuoteReplaced { text } => {
                Message::new("save.mqo.quote_replaced").arg("text", text)
            }
            MqoLoss::NameMadeUnique { from, to } => Message::new("save.mqo.name_made_unique")
                .arg("from", from)
                .arg("to", to),
            MqoLoss::Utf8CodePage { example } => {
                Message::new("save.mqo.utf8_code_page").arg("example", example)
            }
            MqoLoss::MorphsSplit { morphs, example } => Message::new("save.mqo.morphs_split")
                .arg("morphs", *morphs)
                .arg("example", example),
        }
    }

    /// The loss in English.
    #[must_use]
    pub fn message_en(&self) -> String {
        self.message().render(Language::English)
    }

    /// The loss in Japanese.
    #[must_use]
    pub fn message_ja(&self) -> String {
        self.message().render(Language::Japanese)
    }
}

/// An element kind or property the losses name, as a word of the resources.
fn word(kind: &str) -> MessageArg {
    let key = match kind {
        "rigid bodies" => "save.mqo.word.rigid_bodies",
        "joints" => "save.mqo.word.joints",
        "soft bodies" => "save.mqo.word.soft_bodies",
        "display frames" => "save.mqo.word.display_frames",
        "group" => "save.mqo.word.group",
        "bone" => "save.mqo.word.bone",
        "UV" => "save.mqo.word.uv",
        "additional UV" => "save.mqo.word.additional_uv",
        "material" => "save.mqo.word.material",
        "flip" => "save.mqo.word.flip",
        "impulse" => "save.mqo.word.impulse",
        "vertex" => "save.mqo.word.vertex",
        "sphere maps" => "save.mqo.word.sphere_maps",
        "toons" => "save.mqo.word.toons",
        "edges" => "save.mqo.word.edges",
        "draw modes (points, lines)" => "save.mqo.word.draw_modes_points_lines",
        "specular power" => "save.mqo.word.specular_power",
        "colour" => "save.mqo.word.colour",
        "object" => "save.mqo.word.object",
        other => return MessageArg::Text(other.to_owned()),
    };
    MessageArg::Key(key)
}

/// One MQO object being built.
#[derive(Debug, Default)]
struct ObjectBuild {
    name: String,
    /// Its settings in `MqoExtras::objects`, for an object of an MQO import.
    settings: Option<usize>,
    /// `shading` (smooth) and `facet` read from the model's normals (`inferred_shading`).
    shading: (bool, f32),
    /// MQO vertex positions (MQO axes and units).
    positions: Vec<[f32; 3]>,
    /// The PMX vertex each MQO vertex was first made from.
    sources: Vec<u32>,
    /// Three MQO vertex indices per face.
    corners: Vec<u32>,
    /// One `Vec2` per corner.
    uvs: Vec<[f32; 2]>,
    /// One 0xAABBGGRR per corner, or empty.
    colors: Vec<u32>,
    /// `M(i)` per face.
    materials: Vec<Option<u32>>,
}

/// What welds two PMX vertices: the bits of the written position, and a hash of what else must
/// agree (weights, morph offsets) when the MQX carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum WeldKey {
    Position {
        position: [u32; 3],
        extra: u64,
    },
    /// The vertex of the MQO file the model was imported from: the file's own welding.
    FileVertex(u32),
}

/// What an export will write, short of the text: the objects, the morph targets and the losses.
struct Plan {
    objects: Vec<ObjectBuild>,
    targets: Vec<MorphTarget>,
    write_bones: bool,
    write_morphs: bool,
    report: MqoExportReport,
}

/// Writes `model` as an MQO (and an MQX when bones or morphs are asked for and the model has
/// them).
///
/// # Errors
/// [`WriteError::Unrepresentable`] for a scale that is not a positive number, a face naming a
/// vertex that does not exist, or a position that is not finite.
pub fn write_mqo(model: &Model, options: &MqoExportOptions) -> Result<MqoExport, WriteError> {
    let plan = plan(model, options)?;
    let scale = options.units_per_pmx_unit;
    let mqx_name = options.mqx_file_name();
    let mqx_text = (plan.write_bones || plan.write_morphs).then(|| {
        mqx_text(
            model,
            &plan.objects,
            &plan.targets,
            plan.write_bones,
            &options.file_name,
            scale,
        )
    });
    let version = plan
        .report
        .version
        .unwrap_or(MqoVersion { major: 1, minor: 0 });
    let text = mqo_text(
        model,
        options,
        &plan.objects,
        &plan.targets,
        mqx_text.as_ref().map(|_| mqx_name.as_str()),
        version,
        plan.report.code_page,
    );
    let mqo = match plan.report.code_page {
        // The plan found every name and path encodable; were one not, it would be written as
        // `?`, never lost silently (the report says UTF-8 was needed).
        CodePage::Cp932 => cp932::encode(&text)
            .unwrap_or_else(|| encoding_rs::SHIFT_JIS.encode(&text).0.into_owned()),
        CodePage::Utf8 => text.into_bytes(),
    };
    Ok(MqoExport {
        mqo,
        mqx: mqx_text.map(|text| (mqx_name, text.into_bytes())),
        report: plan.report,
    })
}

/// What [`write_mqo`] would report, without writing the text (cheap enough for an export
/// dialog to show before writing).
///
/// # Errors
/// As [`write_mqo`].
pub fn mqo_export_report(
    model: &Model,
    options: &MqoExportOptions,
) -> Result<MqoExportReport, WriteError> {
    plan(model, options).map(|plan| plan.report)
}

fn plan(model: &Model, options: &MqoExportOptions) -> Result<Plan, WriteError> {
    let scale = options.units_per_pmx_unit;
    if !(scale.is_finite() && scale > 0.0) {
        return Err(WriteError::Unrepresentable {
            path: "scale".into(),
            message: format!("the scale must be a positive number, not {scale}").into(),
        });
    }
    for (index, face) in model.faces.iter().enumerate() {
        if let Some(corner) = face.iter().find(|v| v.get() >= model.vertices.len()) {
            return Err(WriteError::Unrepresentable {
                path: ModelPath::element(ElementKind::Face, index).to_string(),
                message: format!(
                    "names vertex {} of {}; fix the model (検証) first",
                    corner.get(),
                    model.vertices.len()
                )
                .into(),
            });
        }
    }
    if let Some((index, _)) = model
        .vertices
        .iter()
        .enumerate()
        .find(|(_, v)| !v.position.to_array().iter().all(|c| c.is_finite()))
    {
        return Err(WriteError::Unrepresentable {
            path: ModelPath::element(ElementKind::Vertex, index)
                .field("position")
                .to_string(),
            message: "is not a finite number; fix the model (検証) first".into(),
        });
    }

    let mut losses = Vec::new();
    let write_bones = options.bones && !model.bones.is_empty();
    let vertex_morphs: Vec<usize> = model
        .morphs
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m.offsets, MorphOffsets::Vertex(_)))
        .map(|(i, _)| i)
        .collect();
    let write_morphs = options.morphs && !vertex_morphs.is_empty();
    collect_model_losses(model, options, write_bones, &mut losses);

    let weld_extra = weld_extras(model, write_bones, write_morphs);
    let moved = write_morphs.then(|| moved_vertices(model));
    let mut objects = build_objects(model, options, scale, &weld_extra, moved.as_deref());
    losses.extend(make_names_unique(&mut objects));
    let targets = if write_morphs {
        morph_targets(model, &vertex_morphs, &objects, scale, &mut losses)
    } else {
        Vec::new()
    };
    let code_page = text_losses(model, options, &objects, &targets, &mut losses);
    // Every face is a triangle: Ver 1.0 (Ver 1.1 is for faces of five corners and more).
    let max_corners = if objects.iter().any(|o| !o.materials.is_empty()) {
        3
    } else {
        0
    };
    let version = MqoVersion {
        major: 1,
        minor: u32::from(max_corners > 4),
    };
    let report = MqoExportReport {
        version: Some(version),
        code_page,
        objects: objects.len(),
        vertices: objects.iter().map(|o| o.positions.len()).sum(),
        faces: objects.iter().map(|o| o.materials.len()).sum(),
        morph_targets: targets.len(),
        losses,
    };
    Ok(Plan {
        objects,
        targets,
        write_bones,
        write_morphs,
        report,
    })
}

/// The losses of the names and paths as written (quotes, lengths), and the code page the text
/// needs: cp932 unless a name or path has a character it cannot encode.
fn text_losses(
    model: &Model,
    options: &MqoExportOptions,
    objects: &[ObjectBuild],
    targets: &[MorphTarget],
    losses: &mut Vec<MqoLoss>,
) -> CodePage {
    let mut unencodable: Option<String> = None;
    let mut check = |text: &str| -> Option<usize> {
        let bytes = cp932::encode(text).map(|b| b.len());
        if bytes.is_none() && unencodable.is_none() {
            unencodable = Some(text.to_owned());
        }
        bytes
    };
    for (index, material) in model.materials.iter().enumerate() {
        let raw = element_name(&material.name_ja, &material.name_en, "material", index);
        let name = quote_safe(&raw);
        if name != raw {
            losses.push(MqoLoss::QuoteReplaced { text: raw });
        }
        let bytes = check(&name).unwrap_or(name.len());
        if bytes > MATERIAL_NAME_MAX_BYTES {
            losses.push(MqoLoss::LongName {
                kind: "material",
                name: name.clone(),
                bytes,
                limit: MATERIAL_NAME_MAX_BYTES,
            });
        }
        let [r, g, b, a] = material.diffuse.to_array();
        if [r, g, b, a].iter().any(|c| !(0.0..=1.0).contains(c)) {
            losses.push(MqoLoss::Clamped {
                material: name.clone(),
                property: "colour",
                value: [r, g, b, a].into_iter().fold(0.0, f32::max),
            });
        }
        let power = material.specular_power;
        if !(power.is_finite() && (0.0..=100.0).contains(&power)) {
            losses.push(MqoLoss::Clamped {
                material: name.clone(),
                property: "specular power",
                value: power,
            });
        }
        if let Some(texture) = material.texture.and_then(|t| model.textures.get(t.get())) {
            let path = texture_path(&texture.as_str(), options);
            let safe = quote_safe(&path);
            if safe != path {
                losses.push(MqoLoss::QuoteReplaced { text: path });
            }
            check(&safe);
        }
    }
    for object in objects {
        let bytes = check(&object.name).unwrap_or(object.name.len());
        if bytes > OBJECT_NAME_MAX_BYTES {
            losses.push(MqoLoss::LongName {
                kind: "object",
                name: object.name.clone(),
                bytes,
                limit: OBJECT_NAME_MAX_BYTES,
            });
        }
    }
    for target in targets {
        check(&target.name);
    }
    check(&quote_safe(&options.mqx_file_name()));
    match unencodable {
        Some(example) => {
            losses.push(MqoLoss::Utf8CodePage { example });
            CodePage::Utf8
        }
        None => CodePage::Cp932,
    }
}

/// The losses that follow from the model alone.
fn collect_model_losses(
    model: &Model,
    options: &MqoExportOptions,
    write_bones: bool,
    losses: &mut Vec<MqoLoss>,
) {
    for (kind, count) in [
        ("rigid bodies", model.rigid_bodies.len()),
        ("joints", model.joints.len()),
        ("soft bodies", model.soft_bodies.len()),
        (
            "display frames",
            model
                .display_frames
                .iter()
                .filter(|f| !f.items.is_empty() || !f.special)
                .count(),
        ),
    ] {
        if count > 0 {
            losses.push(MqoLoss::Dropped { kind, count });
        }
    }
    let mut morph_kinds: Vec<(&'static str, usize)> = Vec::new();
    for morph in &model.morphs {
        let kind = match &morph.offsets {
            MorphOffsets::Vertex(_) if options.morphs => continue,
            MorphOffsets::Vertex(_) => "vertex",
            MorphOffsets::Group(_) => "group",
            MorphOffsets::Bone(_) => "bone",
            MorphOffsets::Uv(_) => "UV",
            MorphOffsets::AdditionalUv1(_)
            | MorphOffsets::AdditionalUv2(_)
            | MorphOffsets::AdditionalUv3(_)
            | MorphOffsets::AdditionalUv4(_) => "additional UV",
            MorphOffsets::Material(_) => "material",
            MorphOffsets::Flip(_) => "flip",
            MorphOffsets::Impulse(_) => "impulse",
        };
        match morph_kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, count)) => *count += 1,
            None => morph_kinds.push((kind, 1)),
        }
    }
    for (kind, count) in morph_kinds {
        losses.push(MqoLoss::MorphsDropped { kind, count });
    }
    if !model.bones.is_empty() && !write_bones {
        losses.push(MqoLoss::BonesDropped {
            bones: model.bones.len(),
        });
    }
    if write_bones {
        let kept = BoneFlags::TAIL_IS_BONE
            | BoneFlags::ROTATABLE
            | BoneFlags::MOVABLE
            | BoneFlags::VISIBLE
            | BoneFlags::OPERABLE;
        let with_settings = model
            .bones
            .iter()
            .filter(|b| !(b.flags - kept).is_empty() || b.layer != 0)
            .count();
        if with_settings > 0 {
            losses.push(MqoLoss::BoneSettingsDropped {
                bones: with_settings,
            });
        }
        let (mut sdef, mut qdef) = (0, 0);
        for vertex in &model.vertices {
            match vertex.weight {
                Weight::Sdef { .. } => sdef += 1,
                Weight::Qdef { .. } => qdef += 1,
                _ => {}
            }
        }
        if sdef + qdef > 0 {
            losses.push(MqoLoss::SkinningAsLinear { sdef, qdef });
        }
    }
    let colour_channel = usize::from(uses_vertex_colors(model));
    let channels = model.additional_uvs.len().saturating_sub(colour_channel);
    if channels > 0 {
        losses.push(MqoLoss::AdditionalUvsDropped { channels });
    }
    for (property, count) in [
        (
            "sphere maps",
            model
                .materials
                .iter()
                .filter(|m| m.sphere_texture.is_some())
                .count(),
        ),
        (
            "toons",
            model
                .materials
                .iter()
                .filter(|m| !matches!(m.toon, crate::model::Toon::Texture(None)))
                .count(),
        ),
        (
            "edges",
            model
                .materials
                .iter()
                .filter(|m| m.draw_flags.contains(DrawFlags::EDGE))
                .count(),
        ),
        (
            "draw modes (points, lines)",
            model
                .materials
                .iter()
                .filter(|m| m.draw_flags.intersects(DrawFlags::POINT | DrawFlags::LINE))
                .count(),
        ),
    ] {
        if count > 0 {
            losses.push(MqoLoss::MaterialPropertiesDropped {
                property,
                materials: count,
            });
        }
    }
    if !model.vertices.is_empty() {
        losses.push(MqoLoss::NormalsRecomputed);
    }
    let edge_scaled = model
        .vertices
        .iter()
        .filter(|v| v.edge_scale != 1.0)
        .count();
    if edge_scaled > 0 {
        losses.push(MqoLoss::EdgeScalesDropped {
            vertices: edge_scaled,
        });
    }
    let english = !model.info.name_ja.as_str().is_empty()
        || !model.info.name_en.as_str().is_empty()
        || !model.info.comment_ja.as_str().is_empty()
        || !model.info.comment_en.as_str().is_empty()
        || model
            .materials
            .iter()
            .any(|m| !m.name_en.as_str().is_empty())
        || model.bones.iter().any(|b| !b.name_en.as_str().is_empty())
        || model.morphs.iter().any(|m| !m.name_en.as_str().is_empty());
    if english {
        losses.push(MqoLoss::EnglishNamesDropped);
    }
}

/// Whether the model's materials show vertex colours from additional UV 1 (PMX 2.1).
fn uses_vertex_colors(model: &Model) -> bool {
    !model.additional_uvs.is_empty()
        && model
            .materials
            .iter()
            .any(|m| m.draw_flags.contains(DrawFlags::VERTEX_COLOR))
}

/// Per PMX vertex, a hash of what must also agree for two vertices at one position to be
/// welded: the weights when bones are written, the morph offsets when morphs are.
fn weld_extras(model: &Model, bones: bool, morphs: bool) -> Vec<u64> {
    let mut extras = vec![0u64; model.vertices.len()];
    if bones {
        for (extra, vertex) in extras.iter_mut().zip(&model.vertices) {
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            for (bone, weight) in vertex.weight.bone_weights() {
                if weight != 0.0 {
                    bone.map(|b| b.get()).hash(&mut hasher);
                    weight.to_bits().hash(&mut hasher);
                }
            }
            *extra = hasher.finish();
        }
    }
    if morphs {
        for (index, morph) in model.morphs.iter().enumerate() {
            let MorphOffsets::Vertex(offsets) = &morph.offsets else {
                continue;
            };
            for offset in offsets {
                if let Some(extra) = extras.get_mut(offset.vertex.get()) {
                    let mut hasher = std::collections::hash_map::DefaultHasher::new();
                    extra.hash(&mut hasher);
                    index.hash(&mut hasher);
                    offset.offset.to_array().map(f32::to_bits).hash(&mut hasher);
                    *extra = hasher.finish();
                }
            }
        }
    }
    extras
}

/// A PMX position in MQO axes and units.
fn to_mqo(position: Vec3, scale: f32) -> [f32; 3] {
    [position.x * scale, position.y * scale, -position.z * scale]
}

/// The bone with the most weight over a face's corners (`None` when no corner is weighted).
fn dominant_bone(model: &Model, face: &[crate::model::VertexIdx; 3]) -> Option<usize> {
    let mut totals: Vec<(usize, f32)> = Vec::with_capacity(6);
    for corner in face {
        for (bone, weight) in model.vertices[corner.get()].weight.bone_weights() {
            let Some(bone) = bone else { continue };
            if bone.get() >= model.bones.len() || weight <= 0.0 {
                continue;
            }
            match totals.iter_mut().find(|(b, _)| *b == bone.get()) {
                Some((_, total)) => *total += weight,
                None => totals.push((bone.get(), weight)),
            }
        }
    }
    totals
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(bone, _)| bone)
}

/// The geometry objects, faces gathered by the grouping and vertices welded within each.
fn build_objects(
    model: &Model,
    options: &MqoExportOptions,
    scale: f32,
    weld_extra: &[u64],
    moved: Option<&[bool]>,
) -> Vec<ObjectBuild> {
    let material_of_face: Vec<Option<u32>> = {
        let mut of_face = vec![None; model.faces.len()];
        for (material, range) in model.material_face_ranges().into_iter().enumerate() {
            for slot in &mut of_face[range] {
                *slot = Some(material as u32);
            }
        }
        of_face
    };
    // Faces per object, in face order within each.
    let mut groups: Vec<(String, Vec<u32>)> = Vec::new();
    match options.grouping {
        MqoObjectGrouping::PerMaterial => {
            let mut group_of_material: HashMap<Option<u32>, usize> = HashMap::new();
            for (face, material) in material_of_face.iter().enumerate() {
                let group = *group_of_material.entry(*material).or_insert_with(|| {
                    let name = material
                        .and_then(|m| model.materials.get(m as usize))
                        .map_or_else(
                            || "no material".to_owned(),
                            |m| element_name(&m.name_ja, &m.name_en, "material", 0),
                        );
                    groups.push((name, Vec::new()));
                    groups.len() - 1
                });
                groups[group].1.push(face as u32);
            }
            // Material order (faces are stored by material already; this keeps it explicit).
            let order: Vec<Option<u32>> = {
                let mut keys: Vec<Option<u32>> = group_of_material.keys().copied().collect();
                keys.sort_by_key(|k| k.unwrap_or(u32::MAX));
                keys
            };
            let mut sorted = Vec::with_capacity(groups.len());
            for key in order {
                let index = group_of_material[&key];
                sorted.push(std::mem::take(&mut groups[index]));
            }
            groups = sorted;
        }
        MqoObjectGrouping::PerBone => {
            let mut group_of_bone: HashMap<Option<usize>, usize> = HashMap::new();
            for (index, face) in model.faces.iter().enumerate() {
                let bone = dominant_bone(model, face);
                let group = *group_of_bone.entry(bone).or_insert_with(|| {
                    let name = bone.map_or_else(
                        || "no bone".to_owned(),
                        |b| {
                            let bone = &model.bones[b];
                            element_name(&bone.name_ja, &bone.name_en, "bone", b)
                        },
                    );
                    groups.push((name, Vec::new()));
                    groups.len() - 1
                });
                groups[group].1.push(index as u32);
            }
            let mut keys: Vec<Option<usize>> = group_of_bone.keys().copied().collect();
            keys.sort_by_key(|k| k.unwrap_or(usize::MAX));
            let mut sorted = Vec::with_capacity(groups.len());
            for key in keys {
                sorted.push(std::mem::take(&mut groups[group_of_bone[&key]]));
            }
            groups = sorted;
        }
    }

    // An MQO import's own objects, when the model still has the faces and vertices it had.
    let mut settings_of_group: Vec<Option<usize>> = vec![None; groups.len()];
    let mut file_vertices: Option<&[u32]> = None;
    if options.grouping == MqoObjectGrouping::PerMaterial
        && let Some((source_groups, sources)) = source_objects(model)
    {
        settings_of_group = source_groups.iter().map(|(_, _, s)| Some(*s)).collect();
        groups = source_groups
            .into_iter()
            .map(|(name, faces, _)| (name, faces))
            .collect();
        file_vertices = Some(sources);
    } else if let Some(moved) = moved {
        groups = split_moved_parts(model, groups, moved);
        settings_of_group = vec![None; groups.len()];
    }

    let colors = uses_vertex_colors(model).then(|| &model.additional_uvs[0]);
    let mut local_of = vec![NONE; model.vertices.len()];
    let mut objects = Vec::with_capacity(groups.len());
    for ((name, faces), settings) in groups.into_iter().zip(settings_of_group) {
        let mut object = ObjectBuild {
            name,
            settings,
            ..ObjectBuild::default()
        };
        let mut welded: HashMap<WeldKey, u32> = HashMap::new();
        let mut touched = Vec::new();
        for &face in &faces {
            let material = material_of_face[face as usize];
            let vertex_colors = colors.filter(|_| {
                material
                    .and_then(|m| model.materials.get(m as usize))
                    .is_some_and(|m| m.draw_flags.contains(DrawFlags::VERTEX_COLOR))
            });
            let first_corner = object.corners.len();
            for corner in model.faces[face as usize] {
                let source = corner.get();
                let vertex = &model.vertices[source];
                if local_of[source] == NONE {
                    let position = to_mqo(vertex.position, scale);
                    let key = match file_vertices.and_then(|v| v.get(source)) {
                        Some(&file_vertex) if file_vertex != NONE => {
                            WeldKey::FileVertex(file_vertex)
                        }
                        _ => WeldKey::Position {
                            position: position.map(|c| (c + 0.0).to_bits()),
                            extra: weld_extra[source],
                        },
                    };
                    let local = match welded.entry(key) {
                        Entry::Occupied(entry) => *entry.get(),
                        Entry::Vacant(entry) => {
                            let local = object.positions.len() as u32;
                            object.positions.push(position);
                            object.sources.push(source as u32);
                            *entry.insert(local)
                        }
                    };
                    local_of[source] = local;
                    touched.push(source);
                }
                let mut local = local_of[source];
                // A zero-area triangle whose corners weld into one MQO vertex would be read
                // back as a line and dropped: the repeated corner gets a vertex of its own.
                if object.corners[first_corner..].contains(&local) {
                    local = object.positions.len() as u32;
                    object
                        .positions
                        .push(object.positions[local_of[source] as usize]);
                    object.sources.push(source as u32);
                }
                object.corners.push(local);
                object.uvs.push(vertex.uv.to_array());
                if let Some(channel) = vertex_colors {
                    let color = channel
                        .get(source)
                        .copied()
                        .unwrap_or(crate::model::Vec4::ONE);
                    object.colors.push(pack_color(color.to_array()));
                } else if colors.is_some() {
                    object.colors.push(0xFFFF_FFFF);
                }
            }
            object.materials.push(material);
        }
        for source in touched {
            local_of[source] = NONE;
        }
        if object.colors.iter().all(|&c| c == 0xFFFF_FFFF) {
            object.colors.clear();
        }
        object.shading = inferred_shading(model, &faces, &object.corners);
        if let Some(file_vertices) = file_vertices {
            in_file_order(&mut object, file_vertices);
        }
        objects.push(object);
    }
    objects
}

/// Which vertices some vertex morph moves (a non-zero offset).
fn moved_vertices(model: &Model) -> Vec<bool> {
    let mut moved = vec![false; model.vertices.len()];
    for morph in &model.morphs {
        let MorphOffsets::Vertex(offsets) = &morph.offsets else {
            continue;
        };
        for offset in offsets {
            if offset.offset.to_array().iter().any(|&c| c != 0.0)
                && let Some(slot) = moved.get_mut(offset.vertex.get())
            {
                *slot = true;
            }
        }
    }
    moved
}

/// Each group split in two where morphs move part of it: the faces that touch a moved vertex
/// (named `NAME_morph`) and the rest. A morph target is a whole copy of its base object (the
/// morph plugin's convention, which our import and Metasequoia's read): a face morph then
/// copies the face, not the whole body it shares a material with (Gene: 136 MB of MQO for a
/// 2.7 MB PMX before this split).
fn split_moved_parts(
    model: &Model,
    groups: Vec<(String, Vec<u32>)>,
    moved: &[bool],
) -> Vec<(String, Vec<u32>)> {
    let mut split = Vec::with_capacity(groups.len());
    for (name, faces) in groups {
        let (morphed, still): (Vec<u32>, Vec<u32>) = faces.into_iter().partition(|&face| {
            model.faces[face as usize]
                .iter()
                .any(|v| moved.get(v.get()).copied().unwrap_or(false))
        });
        match (morphed.is_empty(), still.is_empty()) {
            (true, _) => split.push((name, still)),
            (false, true) => split.push((name, morphed)),
            (false, false) => {
                split.push((name.clone(), still));
                split.push((format!("{name}_morph"), morphed));
            }
        }
    }
    split
}

/// The objects of an MQO import (name, faces, index into `MqoExtras::objects`) and the file
/// vertex of each model vertex, when the model still matches the record: the same face and
/// vertex counts. Mirror copies (faces of no object) are left out: the object's mirror setting
/// makes them again.
/// An import's objects (name, faces, index into `MqoExtras::objects`) and each model vertex's
/// file vertex.
type SourceObjects<'a> = (Vec<(String, Vec<u32>, usize)>, &'a [u32]);

fn source_objects(model: &Model) -> Option<SourceObjects<'_>> {
    let extras = &model.mqo;
    if extras.is_empty() || extras.vertex_sources.len() != model.vertices.len() {
        return None;
    }
    let face_objects = extras.face_objects(model.faces.len())?;
    let mut groups: Vec<(String, Vec<u32>, usize)> = extras
        .objects
        .iter()
        .enumerate()
        .map(|(index, settings)| (settings.name.clone(), Vec::new(), index))
        .collect();
    for (face, object) in face_objects.into_iter().enumerate() {
        if let Some(object) = object {
            groups[object as usize].1.push(face as u32);
        }
    }
    groups.retain(|(_, faces, _)| !faces.is_empty());
    Some((groups, &extras.vertex_sources))
}

/// Puts an object's vertices in the order of the file they were imported from (the vertices
/// the import made itself last, in the order they were met), as Metasequoia and the MQX's
/// vertex numbers had them.
fn in_file_order(object: &mut ObjectBuild, file_vertices: &[u32]) {
    let mut order: Vec<u32> = (0..object.positions.len() as u32).collect();
    order.sort_by_key(|&local| {
        let file_vertex = file_vertices
            .get(object.sources[local as usize] as usize)
            .copied()
            .unwrap_or(NONE);
        (file_vertex, local)
    });
    let mut new_of_old = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_of_old[old as usize] = new as u32;
    }
    object.positions = order
        .iter()
        .map(|&old| object.positions[old as usize])
        .collect();
    object.sources = order
        .iter()
        .map(|&old| object.sources[old as usize])
        .collect();
    for corner in &mut object.corners {
        *corner = new_of_old[*corner as usize];
    }
}

/// The `shading` and `facet` that make the model's normals again on import, read from them:
/// flat when every corner has its face's normal; otherwise smooth, with a smoothing angle
/// above every angle the model smooths across at one MQO vertex and below every angle it keeps
/// a hard edge at (Metasequoia's 59.5° when that fits). `corners` are the object's MQO
/// vertices, three per face of `faces`.
fn inferred_shading(model: &Model, faces: &[u32], corners: &[u32]) -> (bool, f32) {
    const DEFAULT_FACET: f32 = 59.5;
    // Around 0.1°: normals written as f32 and re-normalised differ by far less.
    const SAME: f32 = 0.999_998;
    let face_normal = |face: u32| {
        let [a, b, c] = model.faces[face as usize].map(|v| {
            let p = model.vertices[v.get()].position;
            glam::Vec3::new(p.x, p.y, p.z)
        });
        (b - a).cross(c - a).normalize_or_zero()
    };
    let normals: Vec<glam::Vec3> = faces.iter().map(|&f| face_normal(f)).collect();
    let corner_normal = |face_slot: usize, corner: usize| {
        let vertex = model.faces[faces[face_slot] as usize][corner].get();
        let n = model.vertices[vertex].normal;
        glam::Vec3::new(n.x, n.y, n.z).normalize_or_zero()
    };
    let flat = normals.iter().enumerate().all(|(slot, normal)| {
        *normal == glam::Vec3::ZERO
            || (0..3).all(|c| corner_normal(slot, c).dot(*normal).abs() >= SAME)
    });
    if flat {
        return (false, DEFAULT_FACET);
    }
    // Per MQO vertex, its corners (face slot, corner).
    let mut at_vertex: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
    for (index, &vertex) in corners.iter().enumerate() {
        at_vertex
            .entry(vertex)
            .or_default()
            .push((index / 3, index % 3));
    }
    let (mut smoothed, mut split) = (0.0f32, 180.0f32);
    for list in at_vertex.values().filter(|list| list.len() <= 64) {
        for (i, &(face_a, corner_a)) in list.iter().enumerate() {
            for &(face_b, corner_b) in &list[i + 1..] {
                let (a, b) = (normals[face_a], normals[face_b]);
                if a == glam::Vec3::ZERO || b == glam::Vec3::ZERO {
                    continue;
                }
                let angle = a.dot(b).clamp(-1.0, 1.0).acos().to_degrees();
                if corner_normal(face_a, corner_a).dot(corner_normal(face_b, corner_b)) >= SAME {
                    smoothed = smoothed.max(angle);
                } else {
                    split = split.min(angle);
                }
            }
        }
    }
    let facet = if smoothed <= DEFAULT_FACET && DEFAULT_FACET < split {
        DEFAULT_FACET
    } else if split > smoothed {
        // Whole degrees where they fit, else halfway.
        let above = smoothed.floor() + 1.0;
        if above < split {
            above
        } else {
            (smoothed + split) / 2.0
        }
    } else {
        DEFAULT_FACET
    };
    (true, facet)
}

/// RGBA in 0..1 as the 0xAABBGGRR of `COL`.
fn pack_color(color: [f32; 4]) -> u32 {
    let channel = |value: f32| (value.clamp(0.0, 1.0) * 255.0).round() as u32;
    channel(color[0])
        | (channel(color[1]) << 8)
        | (channel(color[2]) << 16)
        | (channel(color[3]) << 24)
}

/// An element's name for MQO: the Japanese one, else the English one, else kind and index.
fn element_name(
    name_ja: &crate::model::Text,
    name_en: &crate::model::Text,
    kind: &str,
    index: usize,
) -> String {
    let ja = name_ja.as_str();
    if !ja.trim().is_empty() {
        return ja.into_owned();
    }
    let en = name_en.as_str();
    if !en.trim().is_empty() {
        return en.into_owned();
    }
    format!("{kind}{index}")
}

/// Gives objects that would share a name a numeric suffix.
fn make_names_unique(objects: &mut [ObjectBuild]) -> Vec<MqoLoss> {
    let mut losses = Vec::new();
    let mut taken: std::collections::HashSet<String> = std::collections::HashSet::new();
    for object in objects {
        let name = quote_safe(&object.name);
        if taken.insert(name.clone()) {
            object.name = name;
            continue;
        }
        let mut suffix = 2;
        let unique = loop {
            let candidate = format!("{name}_{suffix}");
            if !taken.contains(&candidate) {
                break candidate;
            }
            suffix += 1;
        };
        losses.push(MqoLoss::NameMadeUnique {
            from: name,
            to: unique.clone(),
        });
        taken.insert(unique.clone());
        object.name = unique;
    }
    losses
}

/// `"` cannot be written inside an MQO string.
fn quote_safe(text: &str) -> String {
    text.replace('"', "'")
}

/// A morph target object: a base object's vertices moved by one morph.
#[derive(Debug)]
struct MorphTarget {
    name: String,
    base: usize,
    positions: Vec<[f32; 3]>,
}

/// Hidden target objects for the vertex morphs: per morph, one per object it moves.
fn morph_targets(
    model: &Model,
    vertex_morphs: &[usize],
    objects: &[ObjectBuild],
    scale: f32,
    losses: &mut Vec<MqoLoss>,
) -> Vec<MorphTarget> {
    // Where each PMX vertex went: (object, local vertex); a vertex a face of another object
    // also uses is in both.
    let mut first: Vec<(u32, u32)> = vec![(NONE, NONE); model.vertices.len()];
    let mut more: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    // Only each MQO vertex's first PMX vertex is listed: the others welded into it have the
    // same morph offsets (the weld key includes them).
    for (object_index, object) in objects.iter().enumerate() {
        for (local, &source) in object.sources.iter().enumerate() {
            let entry = (object_index as u32, local as u32);
            let slot = &mut first[source as usize];
            if slot.0 == NONE {
                *slot = entry;
            } else {
                more.entry(source).or_default().push(entry);
            }
        }
    }

    let mut split_morphs = 0usize;
    let mut split_example = String::new();
    let mut targets = Vec::new();
    let mut names: std::collections::HashSet<String> =
        objects.iter().map(|o| o.name.clone()).collect();
    for &morph_index in vertex_morphs {
        let morph = &model.morphs[morph_index];
        let MorphOffsets::Vertex(offsets) = &morph.offsets else {
            continue;
        };
        let mut moved: Vec<(usize, Vec<[f32; 3]>)> = Vec::new();
        for offset in offsets {
            // PmxEditor's morphs often list vertices they do not move (a zero offset): such a
            // vertex must not make its object a target (Gene's were copies of every object).
            if offset.offset.to_array().iter().all(|&c| c == 0.0) {
                continue;
            }
            let vertex = offset.vertex.get();
            let Some(&primary) = first.get(vertex) else {
                continue;
            };
            if primary.0 == NONE {
                continue;
            }
            let delta = to_mqo(offset.offset, scale);
            let extra = more.get(&(vertex as u32));
            for &(object, local) in std::iter::once(&primary).chain(extra.into_iter().flatten()) {
                let object = object as usize;
                let index = match moved.iter().position(|(o, _)| *o == object) {
                    Some(index) => index,
                    None => {
                        moved.push((object, objects[object].positions.clone()));
                        moved.len() - 1
                    }
                };
                let position = &mut moved[index].1[local as usize];
                let base = objects[object].positions[local as usize];
                *position = [base[0] + delta[0], base[1] + delta[1], base[2] + delta[2]];
            }
        }
        if moved.is_empty() {
            continue;
        }
        moved.sort_by_key(|(object, _)| *object);
        let morph_name = quote_safe(&element_name(
            &morph.name_ja,
            &morph.name_en,
            "morph",
            morph_index,
        ));
        if moved.len() > 1 {
            split_morphs += 1;
            if split_example.is_empty() {
                split_example.clone_from(&morph_name);
            }
        }
        // A target named like an object (a material and a morph may share a name) takes the
        // `morph:object` form, which the import reads back as the morph's name.
        let split = moved.len() > 1 || names.contains(&morph_name);
        for (object, positions) in moved {
            let wanted = if split {
                format!("{morph_name}:{}", objects[object].name)
            } else {
                morph_name.clone()
            };
            let mut name = wanted.clone();
            let mut suffix = 2;
            while names.contains(&name) {
                name = format!("{wanted}_{suffix}");
                suffix += 1;
            }
            if name != wanted {
                losses.push(MqoLoss::NameMadeUnique {
                    from: wanted,
                    to: name.clone(),
                });
            }
            names.insert(name.clone());
            targets.push(MorphTarget {
                name,
                base: object,
                positions,
            });
        }
    }
    if split_morphs > 0 {
        losses.push(MqoLoss::MorphsSplit {
            morphs: split_morphs,
            example: split_example,
        });
    }
    targets
}

/// A float as MQO text: the shortest decimal that reads back to the same `f32` (never an
/// exponent, which some readers do not parse).
fn number(value: f32) -> String {
    let value = value + 0.0; // −0 as 0
    format!("{value}")
}

/// A 0..1 value with three decimals, clamped (the readers' patterns expect `d.ddd`).
fn unit(value: f32) -> String {
    let value = if value.is_finite() {
        value.clamp(0.0, 1.0)
    } else {
        0.0
    };
    format!("{value:.3}")
}

/// The MQO text.
fn mqo_text(
    model: &Model,
    options: &MqoExportOptions,
    objects: &[ObjectBuild],
    targets: &[MorphTarget],
    mqx_name: Option<&str>,
    version: MqoVersion,
    code_page: CodePage,
) -> String {
    let mut out = String::with_capacity(
        64 * objects
            .iter()
            .map(|o| o.positions.len() + o.materials.len())
            .sum::<usize>()
            + 1024,
    );
    let _ = write!(
        out,
        "Metasequoia Document\r\nFormat Text Ver {}.{}\r\n",
        version.major, version.minor
    );
    if code_page == CodePage::Utf8 {
        out.push_str("CodePage utf8\r\n");
    }
    out.push_str("\r\n");
    if let Some(name) = mqx_name {
        let _ = write!(out, "IncludeXml \"{}\"\r\n", quote_safe(name));
    }
    if !model.materials.is_empty() {
        let _ = write!(out, "Material {} {{\r\n", model.materials.len());
        for (index, material) in model.materials.iter().enumerate() {
            let name = quote_safe(&element_name(
                &material.name_ja,
                &material.name_en,
                "material",
                index,
            ));
            let [r, g, b, a] = material.diffuse.to_array();
            let _ = write!(out, "\t\"{name}\" shader(3)");
            if material.draw_flags.contains(DrawFlags::VERTEX_COLOR) && uses_vertex_colors(model) {
                out.push_str(" vcol(1)");
            }
            if material.draw_flags.contains(DrawFlags::DOUBLE_SIDED) {
                out.push_str(" dbls(1)");
            }
            // Strength × colour = the PMX colour; the strength alone is what readers of the
            // original format see, so it is the colour's brightest channel.
            let ambient = material.ambient.to_array();
            let ambient_strength = ambient.into_iter().fold(0.0f32, f32::max).clamp(0.0, 1.0);
            let specular = material.specular.to_array();
            let specular_strength = specular.into_iter().fold(0.0f32, f32::max).clamp(0.0, 1.0);
            let _ = write!(
                out,
                " col({} {} {} {}) dif(1.000) amb({}) emi(0.000) spc({})",
                unit(r),
                unit(g),
                unit(b),
                unit(a),
                unit(ambient_strength),
                unit(specular_strength),
            );
            let power = material.specular_power;
            let written_power = if power.is_finite() {
                power.clamp(0.0, 100.0)
            } else {
                0.0
            };
            let _ = write!(out, " power({written_power:.2})");
            if let Some(texture) = material.texture.and_then(|t| model.textures.get(t.get())) {
                let path = quote_safe(&texture_path(&texture.as_str(), options));
                if !path.is_empty() {
                    let _ = write!(out, " tex(\"{path}\")");
                }
            }
            let colour = |strength: f32, channels: [f32; 3]| {
                channels.map(|c| if strength > 0.0 { c / strength } else { 0.0 })
            };
            let [ar, ag, ab] = colour(ambient_strength, ambient);
            let [sr, sg, sb] = colour(specular_strength, specular);
            let _ = write!(
                out,
                " amb_col({} {} {}) spc_col({} {} {})\r\n",
                number(ar),
                number(ag),
                number(ab),
                number(sr),
                number(sg),
                number(sb)
            );
        }
        out.push_str("}\r\n");
    }
    let uids = mqx_name.is_some();
    for (index, object) in objects.iter().enumerate() {
        let settings = object
            .settings
            .and_then(|index| model.mqo.objects.get(index));
        object_header(
            &mut out,
            &object.name,
            uids.then_some(index + 1),
            settings,
            object.shading,
            false,
        );
        vertex_chunk(&mut out, &object.positions);
        face_chunk(&mut out, object);
        out.push_str("}\r\n");
        for (target_index, target) in targets.iter().enumerate() {
            if target.base != index {
                continue;
            }
            object_header(
                &mut out,
                &target.name,
                uids.then_some(objects.len() + target_index + 1),
                settings,
                object.shading,
                true,
            );
            // Only the vertices: the morph plugin (and our import) pairs a target's vertices
            // with its base's by position in the list; repeating the base's faces would make
            // the targets most of the file.
            vertex_chunk(&mut out, &target.positions);
            out.push_str("}\r\n");
        }
    }
    out.push_str("Eof\r\n");
    out
}

/// An object's settings: those of the MQO it was imported from, else Metasequoia's defaults
/// with the shading read from the normals. A morph target sits one level under its base,
/// hidden.
fn object_header(
    out: &mut String,
    name: &str,
    uid: Option<usize>,
    settings: Option<&MqoObjectSettings>,
    (smooth, facet): (bool, f32),
    morph_target: bool,
) {
    let _ = write!(out, "Object \"{name}\" {{\r\n");
    if let Some(uid) = uid {
        let _ = write!(out, "\tuid {uid}\r\n");
    }
    let Some(settings) = settings else {
        let _ = write!(
            out,
            "\tdepth {}\r\n\tfolding 0\r\n\tscale 1.000000 1.000000 1.000000\r\n\trotation 0.000000 0.000000 0.000000\r\n\ttranslation 0.000000 0.000000 0.000000\r\n\tvisible {}\r\n\tlocking 0\r\n\tshading {}\r\n\tfacet {}\r\n\tcolor 0.898 0.498 0.698\r\n\tcolor_type 0\r\n",
            u32::from(morph_target),
            if morph_target { 0 } else { 15 },
            u8::from(smooth),
            number(facet),
        );
        return;
    };
    let triple = |[x, y, z]: [f32; 3]| format!("{} {} {}", number(x), number(y), number(z));
    let _ = write!(
        out,
        "\tdepth {}\r\n\tfolding {}\r\n\tscale {}\r\n\trotation {}\r\n\ttranslation {}\r\n\tvisible {}\r\n\tlocking {}\r\n\tshading {}\r\n\tfacet {}\r\n",
        settings.depth + u32::from(morph_target),
        u8::from(settings.folding),
        triple(settings.scale),
        triple(settings.rotation),
        triple(settings.translation),
        if morph_target || !settings.visible {
            0
        } else {
            15
        },
        u8::from(settings.locked),
        u8::from(settings.smooth_shading),
        number(settings.facet),
    );
    if let Some([r, g, b]) = settings.color {
        let _ = write!(out, "\tcolor {} {} {}\r\n", unit(r), unit(g), unit(b));
    }
    let _ = write!(out, "\tcolor_type {}\r\n", settings.color_type);
    if settings.mirror != 0 && !morph_target {
        let _ = write!(
            out,
            "\tmirror {}\r\n\tmirror_axis {}\r\n\tmirror_dis {}\r\n",
            settings.mirror,
            settings.mirror_axis,
            number(settings.mirror_distance)
        );
    }
}

fn vertex_chunk(out: &mut String, positions: &[[f32; 3]]) {
    let _ = write!(out, "\tvertex {} {{\r\n", positions.len());
    for [x, y, z] in positions {
        // Written in place (no String per number): a million vertices are three million.
        let _ = write!(out, "\t\t{} {} {}\r\n", *x + 0.0, *y + 0.0, *z + 0.0);
    }
    out.push_str("\t}\r\n");
}

/// Writes an object's faces (triangles).
fn face_chunk(out: &mut String, object: &ObjectBuild) {
    let _ = write!(out, "\tface {} {{\r\n", object.materials.len());
    for (face, material) in object.materials.iter().enumerate() {
        let corners = face * 3..face * 3 + 3;
        let [a, b, c] = [
            object.corners[corners.start],
            object.corners[corners.start + 1],
            object.corners[corners.start + 2],
        ];
        let _ = write!(out, "\t\t3 V({a} {b} {c})");
        if let Some(material) = material {
            let _ = write!(out, " M({material})");
        }
        out.push_str(" UV(");
        for (i, [u, v]) in object.uvs[corners.clone()].iter().enumerate() {
            if i > 0 {
                out.push(' ');
            }
            let _ = write!(out, "{} {}", *u + 0.0, *v + 0.0);
        }
        out.push(')');
        if !object.colors.is_empty() {
            let [p, q, r] = [
                object.colors[corners.start],
                object.colors[corners.start + 1],
                object.colors[corners.start + 2],
            ];
            let _ = write!(out, " COL({p} {q} {r})");
        }
        out.push_str("\r\n");
    }
    out.push_str("\t}\r\n");
}

/// A texture path as the MQO should name it: relative to the MQO's folder when both folders
/// are known and the path is relative to the model's (`formats::relocate` does the arithmetic).
fn texture_path(path: &str, options: &MqoExportOptions) -> String {
    let (Some(model_dir), Some(mqo_dir)) = (&options.model_dir, &options.mqo_dir) else {
        return path.to_owned();
    };
    let portable = path.replace('\\', "/");
    if Path::new(&portable).is_absolute() || portable.get(1..2) == Some(":") {
        return path.to_owned();
    }
    let Some(relative) = relative_path(mqo_dir, &model_dir.join(&portable)) else {
        return path.to_owned();
    };
    if path.contains('\\') {
        relative.replace('/', "\\")
    } else {
        relative
    }
}

/// Text escaped for an XML attribute.
fn xml_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&apos;"),
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {}
            c => escaped.push(c),
        }
    }
    escaped
}

/// The `.mqx` text: the bone plugin's `BoneSet2` and the morph plugin's `MorphSet`.
fn mqx_text(
    model: &Model,
    objects: &[ObjectBuild],
    targets: &[MorphTarget],
    bones: bool,
    mqo_name: &str,
    scale: f32,
) -> String {
    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\r\n<MetasequoiaDocument>\r\n");
    let _ = write!(
        out,
        "    <IncludedBy>{}</IncludedBy>\r\n",
        xml_escape(mqo_name)
    );
    if bones {
        // Weights per bone, per object: (object uid, vertex uid, percent).
        let mut weights: Vec<Vec<(usize, usize, f32)>> = vec![Vec::new(); model.bones.len()];
        for (object_index, object) in objects.iter().enumerate() {
            for (local, &source) in object.sources.iter().enumerate() {
                let mut merged: Vec<(usize, f32)> = Vec::with_capacity(4);
                for (bone, weight) in model.vertices[source as usize].weight.bone_weights() {
                    let Some(bone) = bone.map(|b| b.get()).filter(|&b| b < model.bones.len())
                    else {
                        continue;
                    };
                    if weight.is_nan() || weight <= 0.0 {
                        continue;
                    }
                    match merged.iter_mut().find(|(b, _)| *b == bone) {
                        Some((_, total)) => *total += weight,
                        None => merged.push((bone, weight)),
                    }
                }
                for (bone, weight) in merged {
                    weights[bone].push((object_index + 1, local + 1, weight * 100.0));
                }
            }
        }
        let _ = write!(
            out,
            "    <{BONE_PLUGIN} name=\"ボーン\">\r\n        <BoneSet2 normalize=\"1\" skinning=\"0\" config=\"std\">\r\n"
        );
        for (index, bone) in model.bones.iter().enumerate() {
            let name = element_name(&bone.name_ja, &bone.name_en, "bone", index);
            let _ = write!(
                out,
                "            <Bone id=\"{}\" name=\"{}\"",
                index + 1,
                xml_escape(&name)
            );
            if let Some(parent) = bone
                .parent
                .map(|p| p.get())
                .filter(|&p| p < model.bones.len())
            {
                let _ = write!(out, " parent=\"{}\"", parent + 1);
            }
            // Positions in MQO units and axes, like the vertices.
            let [x, y, z] = to_mqo(bone.position, scale);
            let _ = write!(out, " pos=\"{},{},{}\"", number(x), number(y), number(z));
            if !bone.flags.contains(BoneFlags::VISIBLE) {
                out.push_str(" hide=\"1\"");
            }
            if bone.flags.contains(BoneFlags::MOVABLE) {
                out.push_str(" movable=\"1\"");
            }
            let list = &weights[index];
            if list.is_empty() {
                out.push_str("/>\r\n");
                continue;
            }
            out.push_str(">\r\n");
            let mut current = None;
            for &(object, vertex, percent) in list {
                if current != Some(object) {
                    if current.is_some() {
                        out.push_str("                </W>\r\n");
                    }
                    let _ = write!(out, "                <W obj=\"{object}\">\r\n");
                    current = Some(object);
                }
                let _ = write!(
                    out,
                    "                    <V v=\"{vertex}\" w=\"{}\"/>\r\n",
                    number(percent)
                );
            }
            out.push_str("                </W>\r\n            </Bone>\r\n");
        }
        out.push_str("        </BoneSet2>\r\n");
        for index in 0..objects.len() {
            let _ = write!(out, "        <Obj id=\"{}\"/>\r\n", index + 1);
        }
        let _ = write!(out, "    </{BONE_PLUGIN}>\r\n");
    }
    if !targets.is_empty() {
        let _ = write!(
            out,
            "    <{MORPH_PLUGIN} name=\"モーフ\">\r\n        <MorphSet>\r\n"
        );
        for (index, object) in objects.iter().enumerate() {
            let mine: Vec<&MorphTarget> = targets.iter().filter(|t| t.base == index).collect();
            if mine.is_empty() {
                continue;
            }
            let _ = write!(
                out,
                "            <TargetList base=\"{}\">\r\n",
                xml_escape(&object.name)
            );
            for target in mine {
                let _ = write!(
                    out,
                    "                <Target name=\"{}\" param=\"0\"/>\r\n",
                    xml_escape(&target.name)
                );
            }
            out.push_str("            </TargetList>\r\n");
        }
        let _ = write!(out, "        </MorphSet>\r\n    </{MORPH_PLUGIN}>\r\n");
    }
    out.push_str("</MetasequoiaDocument>\r\n");
    out
}
