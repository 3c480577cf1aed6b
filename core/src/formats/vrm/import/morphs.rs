//! VRM expressions (1.0) and blend shape groups (0.x) → vertex morphs with MMD's names for
//! the presets; morph targets no expression uses → morphs of their own.

use super::{Importer, VrmVersion, unique_name};
use crate::formats::ReadError;
use crate::formats::vrm::PRESET_TABLE;
use crate::model::{Morph, MorphOffsets, MorphPanel, Vec3, VertexIdx, VertexMorphOffset};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// One expression as read: its names, panel and (mesh, target, weight 0..1) binds.
struct Expression {
    name_ja: String,
    name_en: String,
    panel: MorphPanel,
    binds: Vec<(usize, usize, f32)>,
    /// Binds this import cannot make (material colour, texture transform).
    other_binds: usize,
}

/// The MMD name of a VRM 1.0 preset: the first Japanese name [`PRESET_TABLE`] gives it.
fn mmd_name_of_preset(preset: &str) -> Option<&'static str> {
    PRESET_TABLE
        .iter()
        .find(|(name, p)| *p == preset && !name.is_ascii())
        .map(|&(name, _)| name)
}

/// The panel MMD shows a preset on: lips on 口, eyes on 目, the rest on その他.
fn panel_of(preset: Option<&str>) -> MorphPanel {
    match preset {
        Some("aa" | "ih" | "ou" | "ee" | "oh") => MorphPanel::Mouth,
        Some(p) if p.starts_with("blink") || p.starts_with("look") => MorphPanel::Eye,
        _ => MorphPanel::Other,
    }
}

/// VRM 0.x preset names as 1.0 names them.
fn v1_preset_of_v0(name: &str) -> Option<&'static str> {
    Some(match name.to_ascii_lowercase().as_str() {
        "a" => "aa",
        "i" => "ih",
        "u" => "ou",
        "e" => "ee",
        "o" => "oh",
        "blink" => "blink",
        "blink_l" => "blinkLeft",
        "blink_r" => "blinkRight",
        "joy" => "happy",
        "angry" => "angry",
        "sorrow" => "sad",
        "fun" => "relaxed",
        "surprised" => "surprised",
        "lookup" => "lookUp",
        "lookdown" => "lookDown",
        "lookleft" => "lookLeft",
        "lookright" => "lookRight",
        "neutral" => "neutral",
        _ => return None,
    })
}

fn preset_expression(preset: &str) -> Expression {
    let name_ja = mmd_name_of_preset(preset).unwrap_or(preset);
    Expression {
        name_ja: name_ja.to_owned(),
        name_en: preset.to_owned(),
        panel: panel_of(Some(preset)),
        binds: Vec::new(),
        other_binds: 0,
    }
}

fn index(value: Option<&Value>) -> Option<usize> {
    value?.as_u64().and_then(|v| usize::try_from(v).ok())
}

fn expressions_v1(import: &Importer<'_>) -> Vec<Expression> {
    let mut out = Vec::new();
    let Some(expressions) = import.vrm_extension().and_then(|v| v.get("expressions")) else {
        return out;
    };
    for (group, preset) in [("preset", true), ("custom", false)] {
        let Some(map) = expressions.get(group).and_then(Value::as_object) else {
            continue;
        };
        for (name, expression) in map {
            let mut read = if preset {
                preset_expression(name)
            } else {
                Expression {
                    name_ja: name.clone(),
                    name_en: name.clone(),
                    panel: MorphPanel::Other,
                    binds: Vec::new(),
                    other_binds: 0,
                }
            };
            for bind in expression
                .get("morphTargetBinds")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
            {
                let mesh = index(bind.get("node"))
                    .and_then(|node| import.nodes.get(node))
                    .and_then(|n| n.mesh);
                let target = index(bind.get("index"));
                let weight = bind.get("weight").and_then(Value::as_f64).unwrap_or(1.0) as f32;
                if let (Some(mesh), Some(target)) = (mesh, target) {
                    read.binds.push((mesh, target, weight));
                } else {
                    read.other_binds += 1;
                }
            }
            for key in ["materialColorBinds", "textureTransformBinds"] {
                read.other_binds += expression
                    .get(key)
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len);
            }
            out.push(read);
        }
    }
    out
}

fn expressions_v0(import: &Importer<'_>) -> Vec<Expression> {
    let mut out = Vec::new();
    let groups = import
        .vrm_extension()
        .and_then(|v| v.get("blendShapeMaster"))
        .and_then(|m| m.get("blendShapeGroups"))
        .and_then(Value::as_array);
    for group in groups.map_or(&[][..], Vec::as_slice) {
        let name = group.get("name").and_then(Value::as_str).unwrap_or("");
        let preset = group
            .get("presetName")
            .and_then(Value::as_str)
            .and_then(v1_preset_of_v0);
        let mut read = match preset {
            Some(preset) => preset_expression(preset),
            None => Expression {
                name_ja: name.to_owned(),
                name_en: name.to_owned(),
                panel: MorphPanel::Other,
                binds: Vec::new(),
                other_binds: 0,
            },
        };
        for bind in group
            .get("binds")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
        {
            // 0.x weights are percentages.
            let weight = bind.get("weight").and_then(Value::as_f64).unwrap_or(100.0) as f32 / 100.0;
            match (index(bind.get("mesh")), index(bind.get("index"))) {
                (Some(mesh), Some(target)) => read.binds.push((mesh, target, weight)),
                _ => read.other_binds += 1,
            }
        }
        read.other_binds += group
            .get("materialValues")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        out.push(read);
    }
    out
}

pub(super) fn build(import: &mut Importer<'_>) -> Result<(), ReadError> {
    let expressions = match import.version {
        VrmVersion::V1 => expressions_v1(import),
        VrmVersion::V0 => expressions_v0(import),
        VrmVersion::Gltf => Vec::new(),
    };
    let mut names: HashSet<String> = HashSet::new();
    let mut used: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut missing_binds = 0usize;
    let mut other_binds = 0usize;
    let mut morphs = Vec::new();
    for expression in &expressions {
        let mut summed: BTreeMap<usize, Vec3> = BTreeMap::new();
        for &(mesh, target, weight) in &expression.binds {
            let Some(offsets) = import.targets.get(&(mesh, target)) else {
                missing_binds += 1;
                continue;
            };
            used.insert((mesh, target));
            let weight = if weight.is_finite() {
                weight.clamp(0.0, 1.0)
            } else {
                0.0
            };
            for &(vertex, offset) in offsets {
                let slot = summed.entry(vertex).or_insert(Vec3::ZERO);
                slot.x += offset.x * weight;
                slot.y += offset.y * weight;
                slot.z += offset.z * weight;
            }
        }
        other_binds += expression.other_binds;
        let name = unique_name(&mut names, &expression.name_ja);
        morphs.push(vertex_morph(
            &name,
            &expression.name_en,
            expression.panel,
            summed,
        ));
    }
    // Morph targets no expression uses (a plain glTF's, or a VRM's spare shapes).
    let unused: Vec<(usize, usize)> = import
        .targets
        .keys()
        .copied()
        .filter(|k| !used.contains(k))
        .collect();
    for (mesh, target) in unused {
        let mesh_value = import.gltf.list("meshes")?.get(mesh);
        let target_name = mesh_value
            .and_then(|m| m.get("extras"))
            .and_then(|e| e.get("targetNames"))
            .and_then(|n| n.get(target))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| {
                let mesh_name = mesh_value
                    .and_then(|m| m.get("name"))
                    .and_then(Value::as_str)
                    .unwrap_or("mesh");
                format!("{mesh_name}.{target}")
            });
        let name = unique_name(&mut names, &target_name);
        let offsets: BTreeMap<usize, Vec3> =
            import
                .targets
                .get(&(mesh, target))
                .map_or_else(BTreeMap::new, |list| {
                    let mut map = BTreeMap::new();
                    for &(vertex, offset) in list {
                        map.insert(vertex, offset);
                    }
                    map
                });
        morphs.push(vertex_morph(&name, &name, MorphPanel::Other, offsets));
    }
    if missing_binds > 0 {
        let location = import.gltf.at("extensions", None, "expressions");
        import.note(
            location,
            format!(
                "{missing_binds} expression binds name a morph target that does not exist; ignored"
            ),
            true,
        );
    }
    if other_binds > 0 {
        let location = import.gltf.at("extensions", None, "expressions");
        import.note(
            location,
            format!("{other_binds} material colour / texture transform binds are not imported yet"),
            true,
        );
    }
    import.model.morphs = morphs;
    Ok(())
}

fn vertex_morph(
    name_ja: &str,
    name_en: &str,
    panel: MorphPanel,
    offsets: BTreeMap<usize, Vec3>,
) -> Morph {
    Morph {
        name_ja: name_ja.into(),
        name_en: name_en.into(),
        panel,
        offsets: MorphOffsets::Vertex(
            offsets
                .into_iter()
                .map(|(vertex, offset)| VertexMorphOffset {
                    vertex: VertexIdx::new(vertex),
                    offset,
                })
                .collect(),
        ),
    }
}
