//! Materials: split the selected faces off into a new material, merge materials whose settings
//! are the same, delete materials with the vertices only they used.

use super::common::{NO_MATERIAL, count, face_materials};
use crate::api::{
    EditBatch, Needs, Plugin, PluginContext, PluginError, PluginGroup, PluginInfo, PluginOutput,
};
use pmx_core::Model;
use pmx_core::edit::{Edit, EditError, EditOp, SetField, field};
use pmx_core::model::{
    ElementKind, Material, MaterialIdx, MaterialMorphOffset, Morph, MorphOffsets, Text,
};
use pmx_core::validate::FixStep;
use std::collections::BTreeMap;

/// What the copy made by [`SplitMaterial`] is called: the original's name with this after it.
pub const SPLIT_SUFFIX: &str = "+";

fn missing(kind: &'static str, index: usize, len: usize) -> EditError {
    EditError::IndexOutOfRange { kind, index, len }
}

/// Each material morph's offsets with a copy of every offset on `from` put right after it,
/// aimed at `to`; only the morphs that change.
fn offsets_duplicated(morphs: &[Morph], from: usize, to: usize) -> (Vec<usize>, Vec<MorphOffsets>) {
    let mut indices = Vec::new();
    let mut lists = Vec::new();
    for (index, morph) in morphs.iter().enumerate() {
        let MorphOffsets::Material(offsets) = &morph.offsets else {
            continue;
        };
        if !offsets
            .iter()
            .any(|offset| offset.material.is_some_and(|m| m.get() == from))
        {
            continue;
        }
        let mut list = Vec::with_capacity(offsets.len() + 1);
        for offset in offsets {
            list.push(*offset);
            if offset.material.is_some_and(|m| m.get() == from) {
                list.push(MaterialMorphOffset {
                    material: Some(MaterialIdx::new(to)),
                    ..*offset
                });
            }
        }
        indices.push(index);
        lists.push(MorphOffsets::Material(list));
    }
    (indices, lists)
}

/// 材質の分割: the selected faces of each material become a new material right after it, a
/// copy of its settings named `<name>+`; the material morph offsets on the old material are
/// copied for the new one, so the morphs still change all of its faces.
#[derive(Debug, Clone, Copy)]
pub struct SplitMaterial;

impl Plugin for SplitMaterial {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "split_material".to_owned(),
            group: PluginGroup::Materials,
            name_ja: "材質の分割".to_owned(),
            name_en: "Split material".to_owned(),
            description_ja: format!(
                "選択面を、元の材質の直後に作る新しい材質（設定は元の材質のコピー、名前は「元の名前{SPLIT_SUFFIX}」）に移します。元の材質を対象とする材質モーフのオフセットは新しい材質にも複製します。材質の面をすべて選択した場合は分割しません。"
            ),
            description_en: format!(
                "Moves the selected faces to a new material right after theirs (a copy of its settings named \"<name>{SPLIT_SUFFIX}\"); material morph offsets on the old material are copied for the new one. A material whose faces are all selected is not split."
            ),
            version: "1.0".to_owned(),
            needs: Needs::Selected(ElementKind::Face),
            options: Vec::new(),
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let model = cx.model;
        let materials_of_faces = face_materials(model);
        let mut by_material: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        let mut outside = 0usize;
        for &face in cx.selection.get(ElementKind::Face) {
            match materials_of_faces.get(face) {
                Some(&material) if material != NO_MATERIAL => {
                    by_material.entry(material).or_default().push(face);
                }
                _ => outside += 1,
            }
        }
        let ranges = model.material_face_ranges();
        let mut output = PluginOutput::new(EditBatch::new());
        let mut whole = Vec::new();
        // From the last material up: a split inserts after its material, so the materials and
        // faces before it keep their indices for the splits still to come.
        for (&material, faces) in by_material.iter().rev() {
            let material = material as usize;
            if faces.len() == ranges[material].len() {
                whole.push(material);
                continue;
            }
            let name = model.materials[material].name_ja.as_str().into_owned();
            output.note(
                format!(
                    "{} faces of {name} moved to the new material {name}{SPLIT_SUFFIX}",
                    count(faces.len())
                ),
                format!(
                    "{name}の面{}個を新しい材質{name}{SPLIT_SUFFIX}へ移動",
                    count(faces.len())
                ),
            );
            let selected = faces.clone();
            output.batch.push_build(
                (
                    format!("insert {name}{SPLIT_SUFFIX}"),
                    format!("{name}{SPLIT_SUFFIX}を追加"),
                ),
                move |model| {
                    let original = model
                        .materials
                        .get(material)
                        .ok_or_else(|| missing("material", material, model.materials.len()))?;
                    let with_suffix = |text: &Text| {
                        if text.as_str().is_empty() {
                            text.clone()
                        } else {
                            Text::from(format!("{}{SPLIT_SUFFIX}", text.as_str()))
                        }
                    };
                    let copy = Material {
                        name_ja: with_suffix(&original.name_ja),
                        name_en: with_suffix(&original.name_en),
                        face_index_count: 0,
                        ..original.clone()
                    };
                    let moved = selected
                        .iter()
                        .map(|&f| {
                            model
                                .faces
                                .get(f)
                                .copied()
                                .ok_or_else(|| missing("face", f, model.faces.len()))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    Edit::insert_materials(model, material + 1, vec![copy], vec![moved])
                },
            );
            output.batch.push(FixStep::Delete {
                kind: ElementKind::Face,
                indices: faces.clone(),
            });
            if !offsets_duplicated(&model.morphs, material, material + 1)
                .0
                .is_empty()
            {
                // Built on the model after the insert, whose renumbering moved the offsets of
                // later materials out of the way.
                output.batch.push_build(
                    (
                        "copy material morph offsets",
                        "材質モーフのオフセットを複製",
                    ),
                    move |model| {
                        let (morphs, offsets) =
                            offsets_duplicated(&model.morphs, material, material + 1);
                        SetField::each(field::<Morph>().offsets(), morphs, offsets).into_edit(model)
                    },
                );
            }
        }
        if !whole.is_empty() {
            let names: Vec<String> = whole
                .iter()
                .rev()
                .map(|&m| model.materials[m].name_ja.as_str().into_owned())
                .collect();
            output.note(
                format!("not split (every face selected): {}", names.join(", ")),
                format!("全面が選択されているため分割しません: {}", names.join("、")),
            );
        }
        if outside > 0 {
            output.note(
                format!("{} selected faces belong to no material", count(outside)),
                format!("選択面{}個はどの材質にも属しません", count(outside)),
            );
        }
        Ok(output)
    }
}

/// A material's settings without its names and face count: what [`MergeMaterials`] compares.
fn settings(material: &Material) -> Material {
    Material {
        name_ja: Text::default(),
        name_en: Text::default(),
        face_index_count: 0,
        ..material.clone()
    }
}

/// The material morph offsets on a material, with the target left out, by morph index.
type MorphPart = Vec<(usize, MaterialMorphOffset)>;

/// The [`MorphPart`] of `material`.
fn morph_part(model: &Model, material: usize) -> MorphPart {
    let mut part = Vec::new();
    for (index, morph) in model.morphs.iter().enumerate() {
        if let MorphOffsets::Material(offsets) = &morph.offsets {
            for offset in offsets {
                if offset.material.is_some_and(|m| m.get() == material) {
                    part.push((
                        index,
                        MaterialMorphOffset {
                            material: None,
                            ..*offset
                        },
                    ));
                }
            }
        }
    }
    part
}

/// 材質の統合: materials whose settings are the same (every field but the names and face
/// count) and that material morphs change alike are merged into the first of them: their faces
/// move to the end of its faces (drawn in its place), and the others are deleted with their
/// morph offsets (the first has the same ones). Works on the selected materials, else all.
#[derive(Debug, Clone, Copy)]
pub struct MergeMaterials;

impl Plugin for MergeMaterials {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "merge_materials".to_owned(),
            group: PluginGroup::Materials,
            name_ja: "同一材質の統合".to_owned(),
            name_en: "Merge identical materials".to_owned(),
            description_ja: "名前と面数以外の設定がすべて同じで、材質モーフの影響も同じ材質を、最初の材質に統合します。面は最初の材質の面の後ろに移り、その位置で描画されます。選択材質があればその中で統合します。SoftBodyが参照する材質は統合しません。".to_owned(),
            description_en: "Merges materials whose settings are all the same (but the names and face count) and that material morphs change alike into the first of them; their faces move after its faces and are drawn in its place. Among the selected materials when some are selected. Materials a soft body uses are left alone.".to_owned(),
            version: "1.0".to_owned(),
            needs: Needs::SelectedOrAll(ElementKind::Material),
            options: Vec::new(),
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let model = cx.model;
        let soft_body_materials: Vec<usize> = model
            .soft_bodies
            .iter()
            .filter_map(|body| body.material.map(MaterialIdx::get))
            .collect();
        let candidates: Vec<usize> = cx
            .selected_or_all(ElementKind::Material)
            .into_iter()
            .filter(|m| !soft_body_materials.contains(m))
            .collect();
        // Materials are few (hundreds at most): comparing each with the groups so far is cheap.
        let mut groups: Vec<(Material, MorphPart, Vec<usize>)> = Vec::new();
        let mut differ_by_morphs = 0usize;
        for &m in &candidates {
            let own = settings(&model.materials[m]);
            let part = morph_part(model, m);
            match groups.iter_mut().find(|(s, p, _)| *s == own && *p == part) {
                Some((_, _, members)) => members.push(m),
                None => {
                    if groups.iter().any(|(s, _, _)| *s == own) {
                        differ_by_morphs += 1;
                    }
                    groups.push((own, part, vec![m]));
                }
            }
        }
        let mut output = PluginOutput::new(EditBatch::new());
        let mut removed = Vec::new();
        for (_, _, members) in groups.into_iter().filter(|(_, _, m)| m.len() > 1) {
            let first = members[0];
            let others = members[1..].to_vec();
            let name = |m: usize| model.materials[m].name_ja.as_str().into_owned();
            let other_names: Vec<String> = others.iter().map(|&m| name(m)).collect();
            output.note(
                format!("{} merged into {}", other_names.join(", "), name(first)),
                format!("{}を{}に統合", other_names.join("、"), name(first)),
            );
            removed.extend(others.iter().copied());
            output.batch.push_build(
                (
                    format!("move faces to {}", name(first)),
                    format!("面を{}へ移動", name(first)),
                ),
                move |model| {
                    let ranges = model.material_face_ranges();
                    let mut faces = Vec::new();
                    for &m in &others {
                        let range = ranges
                            .get(m)
                            .cloned()
                            .ok_or_else(|| missing("material", m, ranges.len()))?;
                        faces.extend_from_slice(model.faces.get(range).unwrap_or(&[]));
                    }
                    Edit::insert_faces(model, first, faces)
                },
            );
        }
        if differ_by_morphs > 0 {
            output.note(
                format!(
                    "{} materials have the same settings as another but material morphs change them differently: not merged",
                    count(differ_by_morphs)
                ),
                format!(
                    "{}個の材質は設定が同じですが材質モーフの影響が異なるため統合しません",
                    count(differ_by_morphs)
                ),
            );
        }
        if removed.is_empty() {
            output.notes.insert(
                0,
                crate::api::Note::new(
                    "no two materials have the same settings",
                    "設定が同じ材質はありません",
                ),
            );
            return Ok(output);
        }
        output.notes.insert(
            0,
            crate::api::Note::new(
                format!("{} materials merged into others", count(removed.len())),
                format!("{}個の材質を統合", count(removed.len())),
            ),
        );
        removed.sort_unstable();
        output.batch.push(FixStep::Delete {
            kind: ElementKind::Material,
            indices: removed,
        });
        Ok(output)
    }
}

/// 材質の削除（頂点も）: the selected materials, their faces, and the vertices only they used
/// (with what depends on those vertices).
#[derive(Debug, Clone, Copy)]
pub struct DeleteMaterialPart;

impl Plugin for DeleteMaterialPart {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "delete_material_part".to_owned(),
            group: PluginGroup::Materials,
            name_ja: "材質パーツの削除".to_owned(),
            name_en: "Delete material part".to_owned(),
            description_ja: "選択材質を、その面と、その材質だけが使っていた頂点（頂点のモーフオフセットなども）とともに削除します。".to_owned(),
            description_en: "Deletes the selected materials with their faces and the vertices only they used (with those vertices' morph offsets and the like).".to_owned(),
            version: "1.0".to_owned(),
            needs: Needs::Selected(ElementKind::Material),
            options: Vec::new(),
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let model = cx.model;
        let selected = cx.selected_or_all(ElementKind::Material);
        if selected.is_empty() {
            return Err(PluginError::NothingSelected {
                kind: ElementKind::Material.name(),
            });
        }
        let materials_of_faces = face_materials(model);
        let mut deleted = vec![false; model.materials.len()];
        for &m in &selected {
            deleted[m] = true;
        }
        let gone = |material: u32| deleted.get(material as usize).copied().unwrap_or(false);
        let mut in_deleted = vec![false; model.vertices.len()];
        let mut in_kept = vec![false; model.vertices.len()];
        let mut faces = 0usize;
        for (face, &material) in model.faces.iter().zip(&materials_of_faces) {
            let marks = if gone(material) {
                faces += 1;
                &mut in_deleted
            } else {
                &mut in_kept
            };
            for corner in face {
                if let Some(slot) = marks.get_mut(corner.get()) {
                    *slot = true;
                }
            }
        }
        let vertices = (0..model.vertices.len())
            .filter(|&v| in_deleted[v] && !in_kept[v])
            .count();
        let names: Vec<String> = selected
            .iter()
            .map(|&m| model.materials[m].name_ja.as_str().into_owned())
            .collect();
        let mut batch = EditBatch::new();
        batch.push_op(EditOp::Delete {
            kind: ElementKind::Material,
            indices: selected.clone(),
            remove_unused_vertices: true,
        });
        Ok(PluginOutput::new(batch).with_note(
            format!(
                "{} materials deleted ({}) with {} faces and {} vertices only they used",
                count(selected.len()),
                names.join(", "),
                count(faces),
                count(vertices)
            ),
            format!(
                "材質{}個（{}）を面{}個、その材質だけの頂点{}個とともに削除",
                count(selected.len()),
                names.join("、"),
                count(faces),
                count(vertices)
            ),
        ))
    }
}
