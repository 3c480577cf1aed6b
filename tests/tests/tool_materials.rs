//! The material tools on Gene and on small models built here: split faces land in a copy right
//! after their material with the morphs following them, identical materials merge into the
//! first, and deleting a material part takes exactly the vertices only it used.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use pmx_core::Model;
use pmx_core::edit::thousands;
use pmx_core::model::{
    ElementKind, Material, MaterialIdx, MaterialMorphOffset, MaterialMorphOp, Morph, MorphOffsets,
    MorphPanel, Vec3, Vec4, Vertex, VertexIdx,
};
use pmx_plugins::{Options, PluginError, PluginSelection, Registry, run_plugin};
use pmx_tests::{corpus_model, run_tool};
use serde_json::json;
use std::collections::BTreeSet;

fn run_error(id: &str, model: &Model, selection: &PluginSelection) -> PluginError {
    let registry = Registry::builtin();
    let plugin = registry.find(id).unwrap();
    let options = Options::defaults(&plugin.info().options);
    run_plugin(plugin.as_ref(), &mut model.clone(), selection, &options).unwrap_err()
}

/// Faces as the positions of their corners.
fn positions(model: &Model, faces: &[pmx_core::model::Face]) -> Vec<[[u32; 3]; 3]> {
    faces
        .iter()
        .map(|face| {
            face.map(|c| {
                model.vertices[c.get()]
                    .position
                    .to_array()
                    .map(f32::to_bits)
            })
        })
        .collect()
}

/// The material morph offsets of every morph, with the target's name.
fn material_offsets(model: &Model) -> Vec<Vec<(Option<String>, String)>> {
    model
        .morphs
        .iter()
        .map(|morph| match &morph.offsets {
            MorphOffsets::Material(list) => list
                .iter()
                .map(|o| {
                    (
                        o.material
                            .map(|m| model.materials[m.get()].name_ja.as_str().into_owned()),
                        format!(
                            "{:?}",
                            MaterialMorphOffset {
                                material: None,
                                ..*o
                            }
                        ),
                    )
                })
                .collect(),
            _ => Vec::new(),
        })
        .collect()
}

#[test]
fn splitting_gene_moves_the_selected_faces_into_a_copy_and_the_morphs_follow() {
    let Some(gene) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    // A material some material morph changes (Gene has three material morphs).
    let targeted: BTreeSet<usize> = gene
        .morphs
        .iter()
        .filter_map(|m| match &m.offsets {
            MorphOffsets::Material(list) => {
                Some(list.iter().filter_map(|o| o.material.map(MaterialIdx::get)))
            }
            _ => None,
        })
        .flatten()
        .collect();
    println!("materials with material morph offsets: {targeted:?}");
    let ranges = gene.material_face_ranges();
    let material = targeted
        .iter()
        .copied()
        .find(|&m| ranges[m].len() >= 4)
        .unwrap_or(0);
    let range = ranges[material].clone();
    let selected: Vec<usize> = range.clone().step_by(3).collect();
    let selection = PluginSelection::new().with(ElementKind::Face, selected.clone());
    let outcome = run_tool("split_material", &gene, &selection, &json!({}));
    assert_eq!(outcome.label_ja, "材質の分割");
    let after = &outcome.after;
    let name = gene.materials[material].name_ja.as_str().into_owned();
    assert_eq!(
        outcome.notes[0],
        format!(
            "{} faces of {name} moved to the new material {name}+",
            thousands(selected.len())
        )
    );
    assert_eq!(after.materials.len(), gene.materials.len() + 1);
    let copy = &after.materials[material + 1];
    assert_eq!(copy.name_ja.as_str(), format!("{name}+"));
    assert_eq!(
        Material {
            name_ja: gene.materials[material].name_ja.clone(),
            name_en: gene.materials[material].name_en.clone(),
            face_index_count: gene.materials[material].face_index_count,
            ..copy.clone()
        },
        gene.materials[material]
    );
    assert_eq!(copy.face_index_count as usize, 3 * selected.len());
    assert_eq!(
        after.materials[material].face_index_count as usize,
        3 * (range.len() - selected.len())
    );
    let after_ranges = after.material_face_ranges();
    let kept: Vec<_> = range
        .clone()
        .filter(|f| !selected.contains(f))
        .map(|f| gene.faces[f])
        .collect();
    let moved: Vec<_> = selected.iter().map(|&f| gene.faces[f]).collect();
    assert_eq!(after.faces[after_ranges[material].clone()], kept[..]);
    assert_eq!(after.faces[after_ranges[material + 1].clone()], moved[..]);
    // Every other material draws the same faces.
    for m in (0..gene.materials.len()).filter(|&m| m != material) {
        let m_after = if m < material { m } else { m + 1 };
        assert_eq!(
            after.faces[after_ranges[m_after].clone()],
            gene.faces[ranges[m].clone()]
        );
    }
    // Each offset on the material has a twin on the copy right after it.
    let before_offsets = material_offsets(&gene);
    let after_offsets = material_offsets(after);
    for (old, new) in before_offsets.iter().zip(&after_offsets) {
        let mut expected = Vec::new();
        for (target, values) in old {
            expected.push((target.clone(), values.clone()));
            if target.as_deref() == Some(name.as_str()) {
                expected.push((Some(format!("{name}+")), values.clone()));
            }
        }
        assert_eq!(*new, expected);
    }
    assert!(
        after_offsets
            .iter()
            .flatten()
            .any(|(t, _)| t.as_deref() == Some(&format!("{name}+")))
            == targeted.contains(&material)
    );
}

#[test]
fn a_material_whose_faces_are_all_selected_is_not_split() {
    let model = pmx_core::generate::sample_model();
    let ranges = model.material_face_ranges();
    let selection = PluginSelection::new().with(ElementKind::Face, ranges[0].clone().collect());
    let error = run_error("split_material", &model, &selection);
    assert!(matches!(error, PluginError::NoChange), "{error}");
    let error = run_error("split_material", &model, &PluginSelection::new());
    assert!(
        matches!(error, PluginError::NothingSelected { kind: "face" }),
        "{error}"
    );
    // Faces of two materials: both split, each copy right after its material.
    let mut faces: Vec<usize> = vec![ranges[0].start];
    faces.push(ranges[1].start);
    let selection = PluginSelection::new().with(ElementKind::Face, faces);
    let outcome = run_tool("split_material", &model, &selection, &json!({}));
    let names: Vec<String> = outcome
        .after
        .materials
        .iter()
        .map(|m| m.name_ja.as_str().into_owned())
        .collect();
    let a = model.materials[0].name_ja.as_str().into_owned();
    let b = model.materials[1].name_ja.as_str().into_owned();
    assert_eq!(
        names[..4],
        [a.clone(), format!("{a}+"), b.clone(), format!("{b}+")]
    );
    assert_eq!(
        positions(&outcome.after, &outcome.after.faces).len(),
        model.faces.len()
    );
}

/// Three triangles, three materials: 0 and 2 alike (but for their names), 1 red.
fn three_materials(morph_on: &[usize]) -> Model {
    let mut model = Model::new_empty();
    for k in 0..9 {
        model.vertices.push(Vertex {
            position: Vec3::new(k as f32, (k % 3) as f32, 0.0),
            ..Vertex::default()
        });
    }
    model.faces = (0..3u32)
        .map(|k| [VertexIdx(3 * k), VertexIdx(3 * k + 1), VertexIdx(3 * k + 2)])
        .collect();
    for (k, name) in ["肌", "服", "肌2"].into_iter().enumerate() {
        model.materials.push(Material {
            name_ja: name.into(),
            diffuse: if k == 1 {
                Vec4::new(1.0, 0.0, 0.0, 1.0)
            } else {
                Vec4::ONE
            },
            face_index_count: 3,
            ..Material::default()
        });
    }
    let offset = |m: usize| MaterialMorphOffset {
        material: Some(MaterialIdx::new(m)),
        op: MaterialMorphOp::Multiply,
        diffuse: Vec4::new(0.5, 0.5, 0.5, 1.0),
        specular: Vec3::ONE,
        specular_power: 1.0,
        ambient: Vec3::ONE,
        edge_color: Vec4::ONE,
        edge_size: 1.0,
        texture_tint: Vec4::ONE,
        sphere_tint: Vec4::ONE,
        toon_tint: Vec4::ONE,
    };
    model.morphs.push(Morph {
        name_ja: "照れ".into(),
        name_en: "blush".into(),
        panel: MorphPanel::Other,
        offsets: MorphOffsets::Material(morph_on.iter().map(|&m| offset(m)).collect()),
    });
    model
}

#[test]
fn identical_materials_merge_into_the_first_with_their_faces_after_its_own() {
    let model = three_materials(&[0, 2]);
    let outcome = run_tool(
        "merge_materials",
        &model,
        &PluginSelection::new(),
        &json!({}),
    );
    assert_eq!(
        outcome.notes[..2],
        [
            "1 materials merged into others".to_owned(),
            "肌2 merged into 肌".to_owned()
        ]
    );
    let after = &outcome.after;
    let names: Vec<_> = after
        .materials
        .iter()
        .map(|m| m.name_ja.as_str().into_owned())
        .collect();
    assert_eq!(names, ["肌", "服"]);
    assert_eq!(after.materials[0].face_index_count, 6);
    assert_eq!(
        after.faces,
        vec![model.faces[0], model.faces[2], model.faces[1]]
    );
    // The morph keeps one offset on the merged material.
    let MorphOffsets::Material(list) = &after.morphs[0].offsets else {
        panic!()
    };
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].material, Some(MaterialIdx::new(0)));
    // A morph that changes only one of them keeps them apart.
    let apart = three_materials(&[0]);
    let error = run_error("merge_materials", &apart, &PluginSelection::new());
    assert!(matches!(error, PluginError::NoChange), "{error}");
    // Only among the selected materials.
    let selection = PluginSelection::new().with(ElementKind::Material, vec![0, 1]);
    let error = run_error("merge_materials", &model, &selection);
    assert!(matches!(error, PluginError::NoChange), "{error}");
}

#[test]
fn merging_gene_merges_exactly_its_identical_materials() {
    let Some(gene) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let plain = |m: &Material| Material {
        name_ja: Default::default(),
        name_en: Default::default(),
        face_index_count: 0,
        ..m.clone()
    };
    let mut alike = 0;
    for (k, material) in gene.materials.iter().enumerate() {
        if gene.materials[..k]
            .iter()
            .any(|other| plain(other) == plain(material))
        {
            alike += 1;
        }
    }
    println!("{alike} of Gene's materials repeat an earlier one's settings");
    // Of those, the ones material morphs change alike with the earlier one merge.
    let morph_part = |m: usize| -> Vec<String> {
        gene.morphs
            .iter()
            .enumerate()
            .flat_map(|(k, morph)| match &morph.offsets {
                MorphOffsets::Material(list) => list
                    .iter()
                    .filter(|o| o.material == Some(MaterialIdx::new(m)))
                    .map(|o| {
                        format!(
                            "{k}{:?}",
                            MaterialMorphOffset {
                                material: None,
                                ..*o
                            }
                        )
                    })
                    .collect(),
                _ => Vec::new(),
            })
            .collect()
    };
    let mergeable = (0..gene.materials.len())
        .filter(|&k| {
            (0..k).any(|e| {
                plain(&gene.materials[e]) == plain(&gene.materials[k])
                    && morph_part(e) == morph_part(k)
            })
        })
        .count();
    let whole = run_tool(
        "merge_materials",
        &gene,
        &PluginSelection::new(),
        &json!({}),
    );
    assert_eq!(
        whole.notes[0],
        format!("{mergeable} materials merged into others")
    );
    assert_eq!(
        whole.after.materials.len(),
        gene.materials.len() - mergeable
    );
    assert_eq!(whole.after.faces.len(), gene.faces.len());
    // Made alike: the last material becomes a copy of the first but for its name.
    let mut model = gene.clone();
    let last = model.materials.len() - 1;
    let first = model.materials[0].clone();
    model.materials[last] = Material {
        name_ja: model.materials[last].name_ja.clone(),
        name_en: model.materials[last].name_en.clone(),
        face_index_count: model.materials[last].face_index_count,
        ..first
    };
    let touched_by_morphs: BTreeSet<usize> = model
        .morphs
        .iter()
        .filter_map(|m| match &m.offsets {
            MorphOffsets::Material(list) => {
                Some(list.iter().filter_map(|o| o.material.map(MaterialIdx::get)))
            }
            _ => None,
        })
        .flatten()
        .collect();
    let selection = PluginSelection::new().with(ElementKind::Material, vec![0, last]);
    if touched_by_morphs.contains(&0) != touched_by_morphs.contains(&last) {
        let error = run_error("merge_materials", &model, &selection);
        assert!(matches!(error, PluginError::NoChange), "{error}");
        return;
    }
    let outcome = run_tool("merge_materials", &model, &selection, &json!({}));
    let after = &outcome.after;
    assert_eq!(after.materials.len(), model.materials.len() - 1);
    let ranges = model.material_face_ranges();
    let after_ranges = after.material_face_ranges();
    let mut expected = model.faces[ranges[0].clone()].to_vec();
    expected.extend_from_slice(&model.faces[ranges[last].clone()]);
    assert_eq!(after.faces[after_ranges[0].clone()], expected[..]);
    assert_eq!(after.faces.len(), model.faces.len());
    assert_eq!(after.vertices, model.vertices);
}

#[test]
fn deleting_a_gene_material_part_takes_the_vertices_only_it_used() {
    let Some(gene) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let ranges = gene.material_face_ranges();
    let material = (0..ranges.len()).max_by_key(|&m| ranges[m].len()).unwrap();
    let in_material: BTreeSet<usize> = gene.faces[ranges[material].clone()]
        .iter()
        .flatten()
        .map(|c| c.get())
        .collect();
    let elsewhere: BTreeSet<usize> = gene
        .faces
        .iter()
        .enumerate()
        .filter(|(f, _)| !ranges[material].contains(f))
        .flat_map(|(_, face)| face.iter().map(|c| c.get()))
        .collect();
    let only = in_material.difference(&elsewhere).count();
    let selection = PluginSelection::new().with(ElementKind::Material, vec![material]);
    let outcome = run_tool("delete_material_part", &gene, &selection, &json!({}));
    let name = gene.materials[material].name_ja.as_str().into_owned();
    assert_eq!(
        outcome.notes[0],
        format!(
            "1 materials deleted ({name}) with {} faces and {} vertices only they used",
            thousands(ranges[material].len()),
            thousands(only)
        )
    );
    let after = &outcome.after;
    assert_eq!(after.vertices.len(), gene.vertices.len() - only);
    assert_eq!(after.materials.len(), gene.materials.len() - 1);
    let kept_faces: Vec<_> = gene
        .faces
        .iter()
        .enumerate()
        .filter(|(f, _)| !ranges[material].contains(f))
        .map(|(_, face)| *face)
        .collect();
    assert_eq!(
        positions(after, &after.faces),
        positions(&gene, &kept_faces)
    );
    let error = run_error("delete_material_part", &gene, &PluginSelection::new());
    assert!(
        matches!(error, PluginError::NothingSelected { kind: "material" }),
        "{error}"
    );
}
