//! Clean-up: remove unused vertices, textures and bones; weld vertices at the same place.
//!
//! Deleting renumbers every reference (faces, morph offsets, display frames, ...) and takes
//! the entries naming a deleted element out of their lists, so these tools only decide what
//! goes.

use super::common::{
    NO_MATERIAL, PointGrid, SEVERAL_MATERIALS, count, distance_squared, face_materials,
    vertex_materials,
};
use crate::api::{
    EditBatch, Needs, Plugin, PluginContext, PluginError, PluginGroup, PluginInfo, PluginOutput,
};
use crate::options::OptionSpec;
use pmx_core::Model;
use pmx_core::edit::{SetField, field};
use pmx_core::model::{ElementKind, Face, MorphOffsets, Toon, VertexIdx};
use pmx_core::validate::FixStep;
use std::collections::HashMap;

/// Which vertices a face or a soft body uses.
fn used_vertices(model: &Model) -> Vec<bool> {
    let mut used = vec![false; model.vertices.len()];
    let mut mark = |vertex: VertexIdx| {
        if let Some(slot) = used.get_mut(vertex.get()) {
            *slot = true;
        }
    };
    for face in &model.faces {
        face.iter().copied().for_each(&mut mark);
    }
    for body in &model.soft_bodies {
        body.anchors
            .iter()
            .map(|anchor| anchor.vertex)
            .for_each(&mut mark);
        body.pinned_vertices.iter().copied().for_each(&mut mark);
    }
    used
}

/// How many vertex, UV and additional UV morph offsets name a vertex in `vertices`.
fn offsets_naming(model: &Model, vertices: &[bool]) -> usize {
    let names = |vertex: VertexIdx| vertices.get(vertex.get()).copied().unwrap_or(false);
    model
        .morphs
        .iter()
        .map(|morph| match &morph.offsets {
            MorphOffsets::Vertex(list) => list.iter().filter(|o| names(o.vertex)).count(),
            MorphOffsets::Uv(list)
            | MorphOffsets::AdditionalUv1(list)
            | MorphOffsets::AdditionalUv2(list)
            | MorphOffsets::AdditionalUv3(list)
            | MorphOffsets::AdditionalUv4(list) => list.iter().filter(|o| names(o.vertex)).count(),
            _ => 0,
        })
        .sum()
}

/// 未使用頂点の削除: the vertices no face uses (nor a soft body), with their morph offsets.
#[derive(Debug, Clone, Copy)]
pub struct RemoveUnusedVertices;

impl Plugin for RemoveUnusedVertices {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "remove_unused_vertices".to_owned(),
            group: PluginGroup::CleanUp,
            name_ja: "未使用頂点の削除".to_owned(),
            name_en: "Remove unused vertices".to_owned(),
            description_ja: "どの面も使っていない頂点（SoftBodyのアンカー・固定頂点は除く）を、その頂点・UVモーフのオフセットとともに削除します。選択頂点があればその中から削除します。".to_owned(),
            description_en: "Deletes the vertices no face uses (a soft body's anchors and pins are kept), with their vertex and UV morph offsets; among the selected vertices when some are selected.".to_owned(),
            version: "1.0".to_owned(),
            needs: Needs::SelectedOrAll(ElementKind::Vertex),
            options: Vec::new(),
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let model = cx.model;
        let used = used_vertices(model);
        let unused: Vec<usize> = cx
            .selected_or_all(ElementKind::Vertex)
            .into_iter()
            .filter(|&v| !used[v])
            .collect();
        let mut removed = vec![false; model.vertices.len()];
        for &v in &unused {
            removed[v] = true;
        }
        let offsets = offsets_naming(model, &removed);
        let mut output = PluginOutput::new(EditBatch::new()).with_note(
            format!(
                "{} unused vertices removed ({} morph offsets with them)",
                count(unused.len()),
                count(offsets)
            ),
            format!(
                "未使用頂点{}個を削除（モーフオフセット{}個も削除）",
                count(unused.len()),
                count(offsets)
            ),
        );
        if !unused.is_empty() {
            output.batch.push(FixStep::Delete {
                kind: ElementKind::Vertex,
                indices: unused,
            });
        }
        Ok(output)
    }
}

/// 未使用テクスチャの削除: the textures no material uses as texture, sphere map or toon.
#[derive(Debug, Clone, Copy)]
pub struct RemoveUnusedTextures;

impl Plugin for RemoveUnusedTextures {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "remove_unused_textures".to_owned(),
            group: PluginGroup::CleanUp,
            name_ja: "未使用テクスチャの削除".to_owned(),
            name_en: "Remove unused textures".to_owned(),
            description_ja: "どの材質もテクスチャ・スフィア・Toonとして使っていないテクスチャを削除します（ファイルは消しません）。".to_owned(),
            description_en: "Deletes the textures no material uses as texture, sphere map or toon (the files stay).".to_owned(),
            version: "1.0".to_owned(),
            needs: Needs::Nothing,
            options: Vec::new(),
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let model = cx.model;
        let mut used = vec![false; model.textures.len()];
        for material in &model.materials {
            let toon = match material.toon {
                Toon::Texture(texture) => texture,
                Toon::Shared(_) => None,
            };
            for texture in [material.texture, material.sphere_texture, toon]
                .into_iter()
                .flatten()
            {
                if let Some(slot) = used.get_mut(texture.get()) {
                    *slot = true;
                }
            }
        }
        let unused: Vec<usize> = (0..used.len()).filter(|&t| !used[t]).collect();
        let names: Vec<String> = unused
            .iter()
            .take(10)
            .map(|&t| model.textures[t].as_str().into_owned())
            .collect();
        let mut output = PluginOutput::new(EditBatch::new()).with_note(
            format!("{} unused textures removed", count(unused.len())),
            format!("未使用テクスチャ{}個を削除", count(unused.len())),
        );
        if !unused.is_empty() {
            let more = if unused.len() > names.len() {
                ", …"
            } else {
                ""
            };
            output.note(
                format!("{}{more}", names.join(", ")),
                format!("{}{more}", names.join(", ")),
            );
            output.batch.push(FixStep::Delete {
                kind: ElementKind::Texture,
                indices: unused,
            });
        }
        Ok(output)
    }
}

/// MikuMikuDance's standard and semi-standard bone names (without 左/右), which motions key by
/// name: a motion may move them even when nothing in the model uses them yet.
pub const STANDARD_BONE_NAMES: &[&str] = &[
    "全ての親",
    "操作中心",
    "センター",
    "グルーブ",
    "腰",
    "上半身",
    "上半身2",
    "上半身3",
    "首",
    "頭",
    "両目",
    "目",
    "下半身",
    "腰キャンセル",
    "肩P",
    "肩",
    "肩C",
    "腕",
    "腕捩",
    "腕捩１",
    "腕捩２",
    "腕捩３",
    "ひじ",
    "手捩",
    "手捩１",
    "手捩２",
    "手捩３",
    "手首",
    "ダミー",
    "親指０",
    "親指１",
    "親指２",
    "人指１",
    "人指２",
    "人指３",
    "中指１",
    "中指２",
    "中指３",
    "薬指１",
    "薬指２",
    "薬指３",
    "小指１",
    "小指２",
    "小指３",
    "足",
    "ひざ",
    "足首",
    "つま先",
    "足ＩＫ",
    "つま先ＩＫ",
    "足IK親",
    "足D",
    "ひざD",
    "足首D",
    "足先EX",
];

/// Whether `name` is a standard bone name, with or without 左/右.
#[must_use]
pub fn is_standard_bone_name(name: &str) -> bool {
    let base = name
        .strip_prefix('左')
        .or_else(|| name.strip_prefix('右'))
        .unwrap_or(name);
    STANDARD_BONE_NAMES.contains(&base) || STANDARD_BONE_NAMES.contains(&name)
}

/// 未使用ボーンの削除: bones nothing needs. A bone is needed when a vertex gives it weight, a
/// rigid body follows it, a bone morph moves it, it is an IK bone or an IK target or link, it
/// is the parent or append parent of a needed bone, or (unless `include_named_standard`) it
/// has a standard MMD name. Display frame entries do not count (they are cleaned with it),
/// nor do tail bones (the tail becomes an offset to where the bone was).
#[derive(Debug, Clone, Copy)]
pub struct RemoveUnusedBones;

impl Plugin for RemoveUnusedBones {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "remove_unused_bones".to_owned(),
            group: PluginGroup::CleanUp,
            name_ja: "未使用ボーンの削除".to_owned(),
            name_en: "Remove unused bones".to_owned(),
            description_ja: "何にも使われていないボーンを削除します。ウェイトを持つ、剛体・ボーンモーフが参照する、IKボーン・IKターゲット・IKリンク、必要なボーンの親・付与親のボーンは残します。標準ボーン名（センター、左腕など）も既定では残します。表示枠の項目は一緒に削除します。選択ボーンがあればその中から削除します。".to_owned(),
            description_en: "Deletes the bones nothing uses. Kept: bones with vertex weight, followed by a rigid body, moved by a bone morph, IK bones, IK targets and links, and the parents and append parents of kept bones; standard MMD names (センター, 左腕, ...) too unless the option says otherwise. Their display frame entries go with them. Among the selected bones when some are selected.".to_owned(),
            version: "1.0".to_owned(),
            needs: Needs::SelectedOrAll(ElementKind::Bone),
            options: vec![OptionSpec::bool(
                "include_named_standard",
                "標準ボーン名も削除対象にする",
                "Also remove bones with standard names",
                false,
            )],
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let model = cx.model;
        let bone_count = model.bones.len();
        let mut needed = vec![false; bone_count];
        let mut pending = Vec::new();
        let mut need = |bone: Option<pmx_core::model::BoneIdx>, pending: &mut Vec<usize>| {
            if let Some(slot) = bone.and_then(|b| needed.get_mut(b.get()))
                && !*slot
            {
                *slot = true;
                pending.extend(bone.map(|b| b.get()));
            }
        };
        for vertex in &model.vertices {
            for (bone, weight) in vertex.weight.bone_weights() {
                if weight > 0.0 {
                    need(bone, &mut pending);
                }
            }
        }
        for body in &model.rigid_bodies {
            need(body.bone, &mut pending);
        }
        for morph in &model.morphs {
            if let MorphOffsets::Bone(offsets) = &morph.offsets {
                for offset in offsets {
                    need(offset.bone, &mut pending);
                }
            }
        }
        let keep_standard = !cx.options.bool("include_named_standard");
        for (index, bone) in model.bones.iter().enumerate() {
            let own = Some(pmx_core::model::BoneIdx::new(index));
            if bone.is_ik() {
                need(own, &mut pending);
                need(bone.ik.target, &mut pending);
                for link in &bone.ik.links {
                    need(link.bone, &mut pending);
                }
            }
            if keep_standard && is_standard_bone_name(&bone.name_ja.as_str()) {
                need(own, &mut pending);
            }
        }
        // What a needed bone hangs from is needed too.
        while let Some(index) = pending.pop() {
            let bone = &model.bones[index];
            need(bone.parent, &mut pending);
            if bone.has_append() {
                need(bone.append_parent, &mut pending);
            }
        }
        let candidates = cx.selected_or_all(ElementKind::Bone);
        let unused: Vec<usize> = candidates.into_iter().filter(|&b| !needed[b]).collect();
        let names: Vec<String> = unused
            .iter()
            .take(20)
            .map(|&b| model.bones[b].name_ja.as_str().into_owned())
            .collect();
        let mut output = PluginOutput::new(EditBatch::new()).with_note(
            format!("{} unused bones removed", count(unused.len())),
            format!("未使用ボーン{}個を削除", count(unused.len())),
        );
        if !unused.is_empty() {
            let more = if unused.len() > names.len() {
                "、…"
            } else {
                ""
            };
            output.note(
                format!("{}{more}", names.join("、")),
                format!("{}{more}", names.join("、")),
            );
            output.batch.push(FixStep::Delete {
                kind: ElementKind::Bone,
                indices: unused,
            });
        }
        Ok(output)
    }
}

/// The vertex and UV morph offsets of each vertex that has some: (morph, offset bits), sorted,
/// so two vertices compare equal when every morph moves them alike.
fn morph_signatures(model: &Model) -> HashMap<u32, Vec<(u32, u8, [u32; 4])>> {
    let mut signatures: HashMap<u32, Vec<(u32, u8, [u32; 4])>> = HashMap::new();
    for (m, morph) in model.morphs.iter().enumerate() {
        let m = u32::try_from(m).unwrap_or(u32::MAX);
        let kind = morph.offsets.kind() as u8;
        match &morph.offsets {
            MorphOffsets::Vertex(list) => {
                for offset in list {
                    let [x, y, z] = offset.offset.to_array().map(f32::to_bits);
                    signatures
                        .entry(offset.vertex.0)
                        .or_default()
                        .push((m, kind, [x, y, z, 0]));
                }
            }
            MorphOffsets::Uv(list)
            | MorphOffsets::AdditionalUv1(list)
            | MorphOffsets::AdditionalUv2(list)
            | MorphOffsets::AdditionalUv3(list)
            | MorphOffsets::AdditionalUv4(list) => {
                for offset in list {
                    signatures.entry(offset.vertex.0).or_default().push((
                        m,
                        kind,
                        offset.offset.to_array().map(f32::to_bits),
                    ));
                }
            }
            _ => {}
        }
    }
    for list in signatures.values_mut() {
        list.sort_unstable();
    }
    signatures
}

/// 近接頂点の結合: vertices of one material closer than `distance`, with the same weight, the
/// same morph offsets and (by default) the same UVs, become one (the lowest index); faces use
/// it instead, faces that collapse to a line or point go, and the merged vertices are deleted.
/// Vertices of different materials are never merged, nor a vertex faces of several materials
/// use, nor one a soft body names.
#[derive(Debug, Clone, Copy)]
pub struct WeldVertices;

impl Plugin for WeldVertices {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "weld_vertices".to_owned(),
            group: PluginGroup::CleanUp,
            name_ja: "近接頂点の結合".to_owned(),
            name_en: "Weld nearby vertices".to_owned(),
            description_ja: "同じ材質の中で距離以内にあり、ウェイトとモーフのオフセットが同じ（既定ではUVも同じ）頂点を、番号の小さい頂点に結合します。つぶれた面は削除します。別の材質の頂点は結合しません。選択頂点があればその中で結合します。法線は残る頂点のものになります（必要なら法線の再計算を）。".to_owned(),
            description_en: "Merges vertices of one material within the distance that have the same weight and morph offsets (and, by default, UVs) into the one with the lowest index; faces that collapse are deleted. Vertices of different materials are never merged. Among the selected vertices when some are selected. The kept vertex's normal stays (recompute normals afterwards if needed).".to_owned(),
            version: "1.0".to_owned(),
            needs: Needs::SelectedOrAll(ElementKind::Vertex),
            options: vec![
                OptionSpec::number("distance", "距離", "Distance", 0.0001, 0.0, 10.0, ""),
                OptionSpec::bool("require_same_uv", "UVが同じ頂点のみ", "Only vertices with the same UVs", true),
            ],
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let model = cx.model;
        let distance = cx.options.number("distance");
        let same_uv = cx.options.bool("require_same_uv");
        let materials_of_faces = face_materials(model);
        let materials = vertex_materials(model, &materials_of_faces);
        let signatures = morph_signatures(model);
        let mut in_soft_body = vec![false; model.vertices.len()];
        for body in &model.soft_bodies {
            let vertices = body
                .anchors
                .iter()
                .map(|anchor| anchor.vertex)
                .chain(body.pinned_vertices.iter().copied());
            for vertex in vertices {
                if let Some(slot) = in_soft_body.get_mut(vertex.get()) {
                    *slot = true;
                }
            }
        }
        let same_uvs = |a: usize, b: usize| {
            model.vertices[a].uv.bits_eq(model.vertices[b].uv)
                && model.additional_uvs.iter().all(|channel| {
                    match (channel.get(a), channel.get(b)) {
                        (Some(x), Some(y)) => x.bits_eq(*y),
                        (x, y) => x.is_none() && y.is_none(),
                    }
                })
        };
        let no_offsets = Vec::new();
        let offsets_of = |v: usize| {
            u32::try_from(v)
                .ok()
                .and_then(|v| signatures.get(&v))
                .unwrap_or(&no_offsets)
        };
        let mut grid = PointGrid::new(distance);
        let mut kept_as = vec![u32::MAX; model.vertices.len()];
        let mut merged = Vec::new();
        let mut several_materials = 0usize;
        for v in cx.selected_or_all(ElementKind::Vertex) {
            let material = materials[v];
            if material == NO_MATERIAL || in_soft_body[v] {
                continue;
            }
            if material == SEVERAL_MATERIALS {
                several_materials += 1;
                continue;
            }
            let vertex = &model.vertices[v];
            let found = grid.near(vertex.position).filter(|&candidate| {
                let r = candidate as usize;
                materials[r] == material
                    && distance_squared(model.vertices[r].position, vertex.position)
                        <= distance * distance
                    && model.vertices[r].weight == vertex.weight
                    && (!same_uv || same_uvs(r, v))
                    && offsets_of(r) == offsets_of(v)
            });
            // The lowest index wins, whatever cube it was found in.
            let found = found.min();
            match found {
                Some(representative) => {
                    kept_as[v] = representative;
                    merged.push(v);
                }
                None => grid.insert(u32::try_from(v).unwrap_or(u32::MAX), vertex.position),
            }
        }
        let mut rewritten_faces = Vec::new();
        let mut rewritten = Vec::new();
        let mut collapsed = Vec::new();
        for (f, face) in model.faces.iter().enumerate() {
            let mapped: Face = face.map(|corner| match kept_as.get(corner.get()) {
                Some(&representative) if representative != u32::MAX => VertexIdx(representative),
                _ => corner,
            });
            if mapped == *face {
                continue;
            }
            let degenerate = |f: &Face| f[0] == f[1] || f[1] == f[2] || f[0] == f[2];
            if degenerate(&mapped) && !degenerate(face) {
                collapsed.push(f);
            } else {
                rewritten_faces.push(f);
                rewritten.push(mapped);
            }
        }
        let mut output = PluginOutput::new(EditBatch::new()).with_note(
            format!(
                "{} vertices welded into others, {} faces collapsed and removed",
                count(merged.len()),
                count(collapsed.len())
            ),
            format!(
                "{}個の頂点を結合、つぶれた面{}個を削除",
                count(merged.len()),
                count(collapsed.len())
            ),
        );
        if several_materials > 0 {
            output.note(
                format!(
                    "{} vertices used by faces of several materials were left alone",
                    count(several_materials)
                ),
                format!(
                    "複数の材質の面が使う頂点{}個は結合していません",
                    count(several_materials)
                ),
            );
        }
        if merged.is_empty() {
            return Ok(output);
        }
        if !rewritten.is_empty() {
            output.batch.push(FixStep::Set(SetField::each(
                field::<Face>(),
                rewritten_faces,
                rewritten,
            )));
        }
        if !collapsed.is_empty() {
            output.batch.push(FixStep::Delete {
                kind: ElementKind::Face,
                indices: collapsed,
            });
        }
        output.batch.push(FixStep::Delete {
            kind: ElementKind::Vertex,
            indices: merged,
        });
        Ok(output)
    }
}
