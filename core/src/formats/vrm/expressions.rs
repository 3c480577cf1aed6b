//! `VRMC_vrm.expressions` from the model's morphs.
//!
//! Every morph VRM can express becomes one expression: a preset when its name is in
//! [`PRESET_TABLE`] (the first morph of a preset wins), a custom expression named after the
//! morph otherwise.
//!
//! - vertex morphs and bone morphs: a `morphTargetBind` to their morph target (weight 1);
//! - material morphs: `materialColorBinds` (`color` from the diffuse colour and alpha,
//!   `outlineColor` from the edge colour), the target being the MMD result at weight 1
//!   (multiply: base × value, add: base + value);
//! - UV morphs: a `textureTransformBind` per material when the morph shifts every vertex of the
//!   material by the same offset (a scroll); other UV morphs cannot be expressed;
//! - group morphs: the binds of their members, weights multiplied by the ratios, recursively,
//!   summed per target (clamped to 0..1, which VRM weights must be).

use super::material::{MaterialFactors, srgb_to_linear};
use super::report::VrmLoss;
use crate::model::{MaterialMorphOp, Model, MorphOffsets};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

/// MMD morph names (Japanese, then common English ones) and the VRM preset each becomes.
/// ウィンク closes the model's left eye in MMD's convention (ウィンク右 the right one).
pub const PRESET_TABLE: &[(&str, &str)] = &[
    ("あ", "aa"),
    ("い", "ih"),
    ("う", "ou"),
    ("え", "ee"),
    ("お", "oh"),
    ("まばたき", "blink"),
    ("ウィンク", "blinkLeft"),
    ("ウインク", "blinkLeft"),
    ("ウィンク２", "blinkLeft"),
    ("ウインク２", "blinkLeft"),
    ("ウィンク右", "blinkRight"),
    ("ウインク右", "blinkRight"),
    ("ｳｨﾝｸ右", "blinkRight"),
    ("笑い", "happy"),
    ("にこり", "happy"),
    ("怒り", "angry"),
    ("困る", "sad"),
    ("悲しい", "sad"),
    ("なごみ", "relaxed"),
    ("驚き", "surprised"),
    ("びっくり", "surprised"),
    ("a", "aa"),
    ("i", "ih"),
    ("u", "ou"),
    ("e", "ee"),
    ("o", "oh"),
    ("blink", "blink"),
    ("wink", "blinkLeft"),
    ("wink right", "blinkRight"),
    ("wink_r", "blinkRight"),
    ("smile", "happy"),
    ("happy", "happy"),
    ("angry", "angry"),
    ("sad", "sad"),
    ("relaxed", "relaxed"),
    ("surprised", "surprised"),
];

/// The preset names of VRM 1.0 (custom expressions must not use them).
const PRESET_NAMES: [&str; 18] = [
    "happy",
    "angry",
    "sad",
    "relaxed",
    "surprised",
    "aa",
    "ih",
    "ou",
    "ee",
    "oh",
    "blink",
    "blinkLeft",
    "blinkRight",
    "lookUp",
    "lookDown",
    "lookLeft",
    "lookRight",
    "neutral",
];

/// The preset a morph named `name_ja` / `name_en` becomes, if any (Japanese name first).
#[must_use]
pub fn preset_for(name_ja: &str, name_en: &str) -> Option<&'static str> {
    let ja = name_ja.trim();
    let en = name_en.trim().to_lowercase();
    PRESET_TABLE
        .iter()
        .find(|(name, _)| *name == ja)
        .or_else(|| {
            (!en.is_empty())
                .then(|| PRESET_TABLE.iter().find(|(name, _)| *name == en))
                .flatten()
        })
        .map(|&(_, preset)| preset)
}

/// What the expressions refer to.
pub(super) struct Targets<'a> {
    /// Morph index → (node of the mesh with the morph targets, target index).
    pub morph_target: &'a [Option<(usize, usize)>],
    pub materials: &'a [MaterialFactors],
    /// The vertices each material draws (for the uniform-UV check).
    pub material_vertices: &'a [BTreeSet<usize>],
}

/// A morph's leaves (non-group morphs) with their summed weights.
fn flatten(model: &Model, morph: usize, weight: f32, depth: usize, out: &mut BTreeMap<usize, f32>) {
    let Some(data) = model.morphs.get(morph) else {
        return;
    };
    match &data.offsets {
        MorphOffsets::Group(members) if depth < 16 => {
            for member in members {
                if let Some(inner) = member.morph {
                    flatten(model, inner.get(), weight * member.ratio, depth + 1, out);
                }
            }
        }
        MorphOffsets::Group(_) => {}
        _ => *out.entry(morph).or_insert(0.0) += weight,
    }
}

/// The expressions JSON (`preset` and `custom`) and the counts of each.
pub(super) fn expressions(
    model: &Model,
    targets: &Targets<'_>,
    losses: &mut Vec<VrmLoss>,
) -> (Value, usize, usize) {
    let mut presets = serde_json::Map::new();
    let mut custom = serde_json::Map::new();
    let mut dropped: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (index, morph) in model.morphs.iter().enumerate() {
        let kind = match &morph.offsets {
            MorphOffsets::Flip(_) => Some("flip"),
            MorphOffsets::Impulse(_) => Some("impulse"),
            MorphOffsets::AdditionalUv1(_)
            | MorphOffsets::AdditionalUv2(_)
            | MorphOffsets::AdditionalUv3(_)
            | MorphOffsets::AdditionalUv4(_) => Some("additional UV"),
            _ => None,
        };
        if let Some(kind) = kind {
            *dropped.entry(kind).or_insert(0) += 1;
            continue;
        }
        let name_ja = morph.name_ja.as_str().into_owned();
        let mut leaves = BTreeMap::new();
        flatten(model, index, 1.0, 0, &mut leaves);
        let expression = expression(model, &name_ja, &leaves, targets, losses);
        if let MorphOffsets::Group(_) = morph.offsets
            && leaves.values().any(|w| !(0.0..=1.0).contains(w))
        {
            losses.push(VrmLoss::GroupRatioClamped {
                morph: name_ja.clone(),
            });
        }
        match preset_for(&name_ja, &morph.name_en.as_str()) {
            Some(preset) if !presets.contains_key(preset) => {
                presets.insert(preset.to_owned(), expression);
            }
            _ => {
                let base = if name_ja.trim().is_empty() {
                    let en = morph.name_en.as_str().trim().to_owned();
                    if en.is_empty() {
                        format!("morph{index}")
                    } else {
                        en
                    }
                } else {
                    name_ja.trim().to_owned()
                };
                let mut name = base.clone();
                let mut suffix = 2;
                while custom.contains_key(&name) || PRESET_NAMES.contains(&name.as_str()) {
                    name = format!("{base}_{suffix}");
                    suffix += 1;
                }
                custom.insert(name, expression);
            }
        }
    }
    for (kind, count) in dropped {
        losses.push(VrmLoss::MorphsDropped { kind, count });
    }
    let counts = (presets.len(), custom.len());
    (
        json!({ "preset": presets, "custom": custom }),
        counts.0,
        counts.1,
    )
}

fn expression(
    model: &Model,
    name: &str,
    leaves: &BTreeMap<usize, f32>,
    targets: &Targets<'_>,
    losses: &mut Vec<VrmLoss>,
) -> Value {
    let mut morph_binds: BTreeMap<(usize, usize), f32> = BTreeMap::new();
    let mut color_binds = Vec::new();
    let mut texture_binds = Vec::new();
    for (&leaf, &weight) in leaves {
        let Some(morph) = model.morphs.get(leaf) else {
            continue;
        };
        match &morph.offsets {
            MorphOffsets::Vertex(_) | MorphOffsets::Bone(_) => {
                if let Some(Some(target)) = targets.morph_target.get(leaf) {
                    *morph_binds.entry(*target).or_insert(0.0) += weight;
                }
            }
            MorphOffsets::Material(offsets) => {
                let mut partial = false;
                for offset in offsets {
                    let affected: Vec<usize> = match offset.material {
                        Some(m) if m.get() < targets.materials.len() => vec![m.get()],
                        Some(_) => Vec::new(),
                        None => (0..targets.materials.len()).collect(),
                    };
                    let identity = match offset.op {
                        MaterialMorphOp::Add => 0.0,
                        _ => 1.0,
                    };
                    let untouched = |v: &[f32]| v.iter().all(|&c| (c - identity).abs() < 1e-6);
                    partial |= !untouched(&offset.specular.to_array())
                        || !untouched(&[offset.specular_power])
                        || !untouched(&offset.ambient.to_array())
                        || !untouched(&offset.texture_tint.to_array())
                        || !untouched(&offset.sphere_tint.to_array())
                        || !untouched(&offset.toon_tint.to_array())
                        // MToon's outline has neither alpha nor a bindable width.
                        || !untouched(&[offset.edge_color.w, offset.edge_size]);
                    for material in affected {
                        let base = &targets.materials[material];
                        let apply = |base: f32, value: f32| match offset.op {
                            MaterialMorphOp::Add => base + value * weight,
                            _ => base * (1.0 + (value - 1.0) * weight),
                        };
                        let diffuse = offset.diffuse.to_array();
                        let color: Vec<f64> = (0..4)
                            .map(|c| {
                                let value =
                                    apply(base.diffuse_gamma[c], diffuse[c]).clamp(0.0, 1.0);
                                f64::from(if c < 3 { srgb_to_linear(value) } else { value })
                            })
                            .collect();
                        color_binds.push(json!({
                            "material": material, "type": "color", "targetValue": color
                        }));
                        let edge = offset.edge_color.to_array();
                        if !untouched(&edge[..3]) {
                            // MToon's outline colour has no alpha: the 4th value is ignored by
                            // the spec, and three-vrm warns unless it is left at 1.
                            let outline: Vec<f64> = (0..4)
                                .map(|c| {
                                    let value = apply(base.edge_gamma[c], edge[c]).clamp(0.0, 1.0);
                                    f64::from(if c < 3 { srgb_to_linear(value) } else { 1.0 })
                                })
                                .collect();
                            color_binds.push(json!({
                                "material": material, "type": "outlineColor", "targetValue": outline
                            }));
                        }
                    }
                }
                if partial {
                    losses.push(VrmLoss::MaterialMorphPartial {
                        morph: name.to_owned(),
                    });
                }
            }
            MorphOffsets::Uv(offsets) => {
                match uniform_uv_shift(offsets, targets.material_vertices) {
                    Some((shift, materials)) => {
                        for material in materials {
                            texture_binds.push(json!({
                                "material": material,
                                "scale": [1.0, 1.0],
                                "offset": [f64::from(shift[0] * weight), f64::from(shift[1] * weight)],
                            }));
                        }
                    }
                    None => losses.push(VrmLoss::UvMorphDropped {
                        morph: model.morphs[leaf].name_ja.as_str().into_owned(),
                    }),
                }
            }
            _ => {}
        }
    }
    let morph_binds: Vec<Value> = morph_binds
        .into_iter()
        .map(|((node, index), weight)| {
            json!({ "node": node, "index": index, "weight": f64::from(weight.clamp(0.0, 1.0)) })
        })
        .collect();
    let mut out = serde_json::Map::new();
    if !morph_binds.is_empty() {
        out.insert("morphTargetBinds".into(), Value::from(morph_binds));
    }
    if !color_binds.is_empty() {
        out.insert("materialColorBinds".into(), Value::from(color_binds));
    }
    if !texture_binds.is_empty() {
        out.insert("textureTransformBinds".into(), Value::from(texture_binds));
    }
    out.insert("isBinary".into(), Value::from(false));
    for key in ["overrideBlink", "overrideLookAt", "overrideMouth"] {
        out.insert(key.into(), Value::from("none"));
    }
    Value::Object(out)
}

/// The offset and the materials of a UV morph that shifts every vertex of whole materials by
/// the same amount; `None` for any other UV morph.
fn uniform_uv_shift(
    offsets: &[crate::model::UvMorphOffset],
    material_vertices: &[BTreeSet<usize>],
) -> Option<([f32; 2], Vec<usize>)> {
    let first = offsets.first()?;
    let shift = [first.offset.x, first.offset.y];
    let mut moved = BTreeSet::new();
    for offset in offsets {
        if (offset.offset.x - shift[0]).abs() > 1e-6 || (offset.offset.y - shift[1]).abs() > 1e-6 {
            return None;
        }
        moved.insert(offset.vertex.get());
    }
    let mut materials = Vec::new();
    let mut covered = BTreeSet::new();
    for (material, vertices) in material_vertices.iter().enumerate() {
        if vertices.is_empty() || vertices.is_disjoint(&moved) {
            continue;
        }
        if !vertices.is_subset(&moved) {
            return None;
        }
        covered.extend(vertices.iter().copied());
        materials.push(material);
    }
    (!materials.is_empty()).then_some((shift, materials))
}
