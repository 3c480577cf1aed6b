//! VRM expressions (1.0) and blend shape groups (0.x) → morphs with MMD's names for the
//! presets; morph targets no expression uses → morphs of their own.
//!
//! An expression's binds become, by kind:
//!
//! - morph target binds: one vertex morph, the targets summed by weight;
//! - material colour binds (1.0 `materialColorBinds`, 0.x `materialValues` on colours): one
//!   material morph, adding per material the difference between the bind's target and the
//!   material's value (VRM sets a target at weight 1; MMD adds an offset × weight). `color` →
//!   diffuse (and alpha), `outlineColor` → edge colour, `shadeColor` → toon tint (the change of
//!   the toon ramp's dark end), `matcapColor` → sphere tint, `emissionColor` → ambient.
//!   `rimColor` has nothing in PMX to change and is left out (listed in the report);
//! - texture transform binds (1.0 `textureTransformBinds`, 0.x `_MainTex_ST`): one UV morph
//!   moving each vertex of the material by where the bind's transform puts its UV minus where
//!   the material's own transform does.
//!
//! An expression with one kind is one morph with the expression's name; with more, each kind
//! is a morph of its own (`名前_頂点`, `名前_材質`, `名前_UV`, on the その他 panel, placed after
//! the others) and the expression's name goes to a group morph of them, on the expression's
//! panel, so motions driving MMD's names drive the whole expression.

use super::materials::{UvTransform, floats, srgb, toon_dark};
use super::{Importer, VrmVersion, unique_name};
use crate::formats::ReadError;
use crate::formats::vrm::PRESET_TABLE;
use crate::i18n::Message;
use crate::model::{
    GroupMorphOffset, MaterialIdx, MaterialMorphOffset, MaterialMorphOp, Morph, MorphIdx,
    MorphOffsets, MorphPanel, UvMorphOffset, Vec3, Vec4, VertexIdx, VertexMorphOffset,
};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// What a material colour bind changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ColorKind {
    Color,
    Emission,
    Shade,
    Matcap,
    Rim,
    Outline,
}

impl ColorKind {
    fn of_v1(kind: &str) -> Option<Self> {
        Some(match kind {
            "color" => Self::Color,
            "emissionColor" => Self::Emission,
            "shadeColor" => Self::Shade,
            "matcapColor" => Self::Matcap,
            "rimColor" => Self::Rim,
            "outlineColor" => Self::Outline,
            _ => return None,
        })
    }

    fn of_v0(property: &str) -> Option<Self> {
        Some(match property {
            "_Color" => Self::Color,
            "_EmissionColor" => Self::Emission,
            "_ShadeColor" => Self::Shade,
            "_RimColor" => Self::Rim,
            "_OutlineColor" => Self::Outline,
            _ => return None,
        })
    }
}

/// A material colour bind: the glTF material, what changes and its sRGB target (alpha kept).
#[derive(Debug, Clone, Copy)]
struct ColorBind {
    material: usize,
    kind: ColorKind,
    target: [f32; 4],
}

/// A texture transform bind: the glTF material and its transform at weight 1.
#[derive(Debug, Clone, Copy)]
struct TransformBind {
    material: usize,
    transform: UvTransform,
}

/// One expression as read: its names, panel and binds.
struct Expression {
    name_ja: String,
    name_en: String,
    panel: MorphPanel,
    /// (mesh, target, weight 0..1).
    binds: Vec<(usize, usize, f32)>,
    colors: Vec<ColorBind>,
    transforms: Vec<TransformBind>,
    /// Binds that name nothing that exists (a damaged file).
    broken_binds: usize,
    /// Binds that change something PMX materials do not have.
    unsupported: usize,
}

impl Expression {
    fn new(name_ja: &str, name_en: &str, panel: MorphPanel) -> Self {
        Self {
            name_ja: name_ja.to_owned(),
            name_en: name_en.to_owned(),
            panel,
            binds: Vec::new(),
            colors: Vec::new(),
            transforms: Vec::new(),
            broken_binds: 0,
            unsupported: 0,
        }
    }
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
    Expression::new(name_ja, preset, panel_of(Some(preset)))
}

fn index(value: Option<&Value>) -> Option<usize> {
    value?.as_u64().and_then(|v| usize::try_from(v).ok())
}

fn list(value: Option<&Value>) -> &[Value] {
    value
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
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
                Expression::new(name, name, MorphPanel::Other)
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
                    read.broken_binds += 1;
                }
            }
            for bind in list(expression.get("materialColorBinds")) {
                let material = index(bind.get("material"));
                let kind = bind
                    .get("type")
                    .and_then(Value::as_str)
                    .and_then(ColorKind::of_v1);
                match (material, kind) {
                    (Some(material), Some(kind)) => read.colors.push(ColorBind {
                        material,
                        kind,
                        // 1.0 colours are linear.
                        target: srgb(floats(bind.get("targetValue"), [0.0, 0.0, 0.0, 1.0])),
                    }),
                    _ => read.broken_binds += 1,
                }
            }
            for bind in list(expression.get("textureTransformBinds")) {
                match index(bind.get("material")) {
                    Some(material) => read.transforms.push(TransformBind {
                        material,
                        transform: UvTransform {
                            offset: floats(bind.get("offset"), [0.0, 0.0]),
                            scale: floats(bind.get("scale"), [1.0, 1.0]),
                            rotation: 0.0,
                        },
                    }),
                    None => read.broken_binds += 1,
                }
            }
            out.push(read);
        }
    }
    out
}

fn expressions_v0(import: &Importer<'_>) -> Vec<Expression> {
    let mut out = Vec::new();
    // 0.x material values name the material.
    let material_names: Vec<Option<&str>> = import
        .gltf
        .list("materials")
        .unwrap_or(&[])
        .iter()
        .map(|m| m.get("name").and_then(Value::as_str))
        .collect();
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
            None => Expression::new(name, name, MorphPanel::Other),
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
                _ => read.broken_binds += 1,
            }
        }
        for value in list(group.get("materialValues")) {
            let material = value
                .get("materialName")
                .and_then(Value::as_str)
                .and_then(|name| material_names.iter().position(|m| *m == Some(name)));
            let property = value
                .get("propertyName")
                .and_then(Value::as_str)
                .unwrap_or("");
            let Some(material) = material else {
                read.broken_binds += 1;
                continue;
            };
            if property == "_MainTex_ST" {
                let st = floats(value.get("targetValue"), [1.0, 1.0, 0.0, 0.0]);
                read.transforms.push(TransformBind {
                    material,
                    transform: UvTransform::from_unity_st(st),
                });
            } else if let Some(kind) = ColorKind::of_v0(property) {
                read.colors.push(ColorBind {
                    material,
                    kind,
                    // Unity colours are sRGB already.
                    target: floats(value.get("targetValue"), [0.0, 0.0, 0.0, 1.0])
                        .map(|c| c.clamp(0.0, 1.0)),
                });
            } else {
                // Other properties (`_MainTex_ST_S`, widths, ...) have nothing to change in PMX.
                read.unsupported += 1;
            }
        }
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
    let mut tally = BindTally::default();
    let mut morphs = Vec::new();
    // The parts of expressions with more than one kind of bind, placed after the others; a
    // group names its parts by their index in this list until then.
    let mut parts: Vec<Morph> = Vec::new();
    let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
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
        tally.broken += expression.broken_binds;
        tally.unsupported += expression.unsupported;
        let material = material_offsets(import, &expression.colors, &mut tally);
        let uv = uv_offsets(import, &expression.transforms, &mut tally);
        let mut kinds: Vec<(&str, &str, MorphOffsets)> = Vec::new();
        if !expression.binds.is_empty() {
            kinds.push(("頂点", "vertex", vertex_offsets(summed)));
        }
        if !material.is_empty() {
            kinds.push(("材質", "material", MorphOffsets::Material(material)));
        }
        if !uv.is_empty() {
            kinds.push(("UV", "uv", MorphOffsets::Uv(uv)));
        }
        let name = unique_name(&mut names, &expression.name_ja);
        if kinds.len() <= 1 {
            let offsets = kinds
                .pop()
                .map_or_else(|| vertex_offsets(BTreeMap::new()), |(_, _, o)| o);
            morphs.push(Morph {
                name_ja: name.as_str().into(),
                name_en: expression.name_en.as_str().into(),
                panel: expression.panel,
                offsets,
            });
            continue;
        }
        let mut members = Vec::new();
        for (suffix_ja, suffix_en, offsets) in kinds {
            let part_name = unique_name(&mut names, &format!("{name}_{suffix_ja}"));
            members.push(parts.len());
            parts.push(Morph {
                name_ja: part_name.as_str().into(),
                name_en: format!("{}_{suffix_en}", expression.name_en)
                    .as_str()
                    .into(),
                panel: MorphPanel::Other,
                offsets,
            });
        }
        groups.push((morphs.len(), members));
        morphs.push(Morph {
            name_ja: name.as_str().into(),
            name_en: expression.name_en.as_str().into(),
            panel: expression.panel,
            offsets: MorphOffsets::Group(Vec::new()),
        });
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
        morphs.push(Morph {
            name_ja: name.as_str().into(),
            name_en: name.as_str().into(),
            panel: MorphPanel::Other,
            offsets: vertex_offsets(offsets),
        });
    }
    let first_part = morphs.len();
    for (group, members) in groups {
        morphs[group].offsets = MorphOffsets::Group(
            members
                .into_iter()
                .map(|part| GroupMorphOffset {
                    morph: Some(MorphIdx::new(first_part + part)),
                    ratio: 1.0,
                })
                .collect(),
        );
    }
    morphs.extend(parts);
    if missing_binds > 0 {
        let location = import.gltf.at("extensions", None, "expressions");
        import.note(
            location,
            Message::new("load.vrm.binds_missing_target").arg("count", missing_binds),
            true,
        );
    }
    tally.report(import);
    import.model.morphs = morphs;
    Ok(())
}

/// What happened to material binds, for the report.
#[derive(Default)]
struct BindTally {
    /// Binds naming a material (or morph target) that does not exist: the file is damaged.
    broken: usize,
    /// Binds on materials no mesh draws: nothing to change.
    unused_material: usize,
    /// Rim colours and 0.x properties PMX has no place for.
    unsupported: usize,
    /// Shade and emission binds, made as toon tint and ambient (not the same shading).
    approximated: usize,
    /// Matcap binds on materials without a sphere map.
    no_sphere: usize,
}

impl BindTally {
    fn report(&self, import: &mut Importer<'_>) {
        let location = import.gltf.at("extensions", None, "expressions");
        if self.broken > 0 {
            import.note(
                location.clone(),
                Message::new("load.vrm.binds_broken").arg("count", self.broken),
                true,
            );
        }
        let dropped = self.unsupported + self.no_sphere + self.unused_material;
        if dropped > 0 {
            import.note(
                location.clone(),
                Message::new("load.vrm.material_binds_dropped").arg("count", dropped),
                false,
            );
        }
        if self.approximated > 0 {
            import.note(
                location.clone(),
                Message::new("load.vrm.colour_binds_approximated").arg("count", self.approximated),
                false,
            );
        }
    }
}

/// The PMX materials drawing glTF material `material` (of the file's `material_count`); none,
/// counted in `tally`, for a bind naming a material that does not exist or that draws nothing.
fn pmx_materials_of(
    import: &Importer<'_>,
    material: usize,
    material_count: usize,
    tally: &mut BindTally,
) -> Vec<usize> {
    if material >= material_count {
        tally.broken += 1;
        return Vec::new();
    }
    let targets: Vec<usize> = import
        .material_binds
        .iter()
        .enumerate()
        .filter(|(_, base)| base.gltf_material == Some(material))
        .map(|(index, _)| index)
        .collect();
    if targets.is_empty() {
        tally.unused_material += 1;
    }
    targets
}

/// One additive material morph offset per PMX material: target − the material's value.
fn material_offsets(
    import: &Importer<'_>,
    binds: &[ColorBind],
    tally: &mut BindTally,
) -> Vec<MaterialMorphOffset> {
    let material_count = import.gltf.list("materials").map_or(0, <[Value]>::len);
    let mut by_material: BTreeMap<usize, MaterialMorphOffset> = BTreeMap::new();
    for bind in binds {
        for pmx in pmx_materials_of(import, bind.material, material_count, tally) {
            let base = &import.material_binds[pmx];
            let offset = by_material
                .entry(pmx)
                .or_insert_with(|| zero_material_offset(pmx));
            let t = bind.target;
            let rgb_minus = |from: [f32; 3]| [t[0] - from[0], t[1] - from[1], t[2] - from[2]];
            match bind.kind {
                ColorKind::Color => {
                    let d = rgb_minus([base.diffuse[0], base.diffuse[1], base.diffuse[2]]);
                    offset.diffuse =
                        plus4(offset.diffuse, [d[0], d[1], d[2], t[3] - base.diffuse[3]]);
                }
                ColorKind::Outline => {
                    // MToon's outline colour has no alpha.
                    let d = rgb_minus(base.edge);
                    offset.edge_color = plus4(offset.edge_color, [d[0], d[1], d[2], 0.0]);
                }
                ColorKind::Emission => {
                    let d = rgb_minus(base.emission);
                    let a = offset.ambient.to_array();
                    offset.ambient = Vec3::new(a[0] + d[0], a[1] + d[1], a[2] + d[2]);
                    tally.approximated += 1;
                }
                ColorKind::Shade => {
                    let rgb = [base.diffuse[0], base.diffuse[1], base.diffuse[2]];
                    let dark = toon_dark([t[0], t[1], t[2]], rgb);
                    let d = [0, 1, 2].map(|c| dark[c] - base.toon_dark[c]);
                    offset.toon_tint = plus4(offset.toon_tint, [d[0], d[1], d[2], 0.0]);
                    tally.approximated += 1;
                }
                ColorKind::Matcap => {
                    let has_sphere = import
                        .model
                        .materials
                        .get(pmx)
                        .is_some_and(|m| m.sphere_texture.is_some());
                    if !has_sphere {
                        tally.no_sphere += 1;
                        continue;
                    }
                    // The sphere image has the material's matcap factor multiplied in: the
                    // tint scales it by target / factor.
                    let d = [0, 1, 2].map(|c| {
                        if base.matcap[c] > 1e-4 {
                            t[c] / base.matcap[c] - 1.0
                        } else {
                            0.0
                        }
                    });
                    offset.sphere_tint = plus4(offset.sphere_tint, [d[0], d[1], d[2], 0.0]);
                }
                ColorKind::Rim => tally.unsupported += 1,
            }
        }
    }
    by_material
        .into_values()
        .filter(|offset| {
            *offset != zero_material_offset(offset.material.map_or(0, MaterialIdx::get))
        })
        .collect()
}

fn plus4(value: Vec4, add: [f32; 4]) -> Vec4 {
    let v = value.to_array();
    Vec4::new(v[0] + add[0], v[1] + add[1], v[2] + add[2], v[3] + add[3])
}

/// An additive material morph offset that changes nothing.
fn zero_material_offset(material: usize) -> MaterialMorphOffset {
    MaterialMorphOffset {
        material: Some(MaterialIdx::new(material)),
        op: MaterialMorphOp::Add,
        diffuse: Vec4::ZERO,
        specular: Vec3::ZERO,
        specular_power: 0.0,
        ambient: Vec3::ZERO,
        edge_color: Vec4::ZERO,
        edge_size: 0.0,
        texture_tint: Vec4::ZERO,
        sphere_tint: Vec4::ZERO,
        toon_tint: Vec4::ZERO,
    }
}

/// The UV offset of every vertex of the bound materials: where the bind's transform puts the
/// vertex's glTF UV minus where the material's own transform (baked into the UVs) put it. The
/// material's rotation is kept (binds have none).
fn uv_offsets(
    import: &Importer<'_>,
    binds: &[TransformBind],
    tally: &mut BindTally,
) -> Vec<UvMorphOffset> {
    let material_count = import.gltf.list("materials").map_or(0, <[Value]>::len);
    let mut summed: BTreeMap<usize, [f32; 2]> = BTreeMap::new();
    for bind in binds {
        for pmx in pmx_materials_of(import, bind.material, material_count, tally) {
            let base = &import.material_binds[pmx];
            let moved = UvTransform {
                rotation: base.transform.rotation,
                ..bind.transform
            };
            for &(vertex, uv) in &base.vertices {
                let from = base.transform.apply(uv);
                let to = moved.apply(uv);
                let slot = summed.entry(vertex).or_insert([0.0, 0.0]);
                slot[0] += to[0] - from[0];
                slot[1] += to[1] - from[1];
            }
        }
    }
    summed
        .into_iter()
        .filter(|(_, d)| d.iter().all(|c| c.is_finite()) && d.iter().any(|c| c.abs() > 1e-7))
        .map(|(vertex, d)| UvMorphOffset {
            vertex: VertexIdx::new(vertex),
            offset: Vec4::new(d[0], d[1], 0.0, 0.0),
        })
        .collect()
}

fn vertex_offsets(offsets: BTreeMap<usize, Vec3>) -> MorphOffsets {
    MorphOffsets::Vertex(
        offsets
            .into_iter()
            .map(|(vertex, offset)| VertexMorphOffset {
                vertex: VertexIdx::new(vertex),
                offset,
            })
            .collect(),
    )
}
