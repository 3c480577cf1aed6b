//! The clean-up tools on Gene and on small models built here: exactly the unused vertices,
//! textures and bones go (counted here on their own), and what stays still points at the same
//! positions, files and bones; welding joins exactly the vertices that are alike.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use pmx_core::Model;
use pmx_core::edit::thousands;
use pmx_core::model::{
    BoneFlags, ElementKind, Material, MorphOffsets, Vec2, Vec3, Vertex, VertexIdx,
};
use pmx_plugins::{Options, PluginError, PluginSelection, Registry, run_plugin};
use pmx_tests::{corpus_model, run_tool};
use serde_json::json;
use std::collections::{BTreeSet, HashMap};

/// Runs a tool that is expected to find nothing to do.
fn no_change(id: &str, model: &Model, options: serde_json::Value) {
    let registry = Registry::builtin();
    let plugin = registry.find(id).unwrap();
    let options = Options::from_json(&plugin.info().options, &options).unwrap();
    let result = run_plugin(
        plugin.as_ref(),
        &mut model.clone(),
        &PluginSelection::new(),
        &options,
    );
    assert!(
        matches!(result, Err(PluginError::NoChange)),
        "{id}: {result:?}"
    );
}

/// Every face as the positions of its corners.
fn face_positions(model: &Model) -> Vec<[[u32; 3]; 3]> {
    model
        .faces
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

/// Every vertex morph offset as (morph name, position of its vertex, offset).
fn offsets_by_position(model: &Model) -> Vec<(String, [u32; 3], [u32; 3])> {
    let mut all = Vec::new();
    for morph in &model.morphs {
        if let MorphOffsets::Vertex(list) = &morph.offsets {
            for offset in list {
                all.push((
                    morph.name_ja.as_str().into_owned(),
                    model.vertices[offset.vertex.get()]
                        .position
                        .to_array()
                        .map(f32::to_bits),
                    offset.offset.to_array().map(f32::to_bits),
                ));
            }
        }
    }
    all.sort_unstable();
    all
}

#[test]
fn unused_vertices_of_gene_go_and_faces_and_morphs_keep_their_positions() {
    let Some(gene) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    // Gene as it is uses every vertex.
    let used: BTreeSet<usize> = gene.faces.iter().flatten().map(|c| c.get()).collect();
    assert_eq!(used.len(), gene.vertices.len());
    no_change("remove_unused_vertices", &gene, json!({}));
    // Without the faces of its largest material, that material's own vertices are unused.
    let ranges = gene.material_face_ranges();
    let largest = (0..ranges.len()).max_by_key(|&m| ranges[m].len()).unwrap();
    let mut model = gene.clone();
    model.faces.drain(ranges[largest].clone());
    model.materials[largest].face_index_count = 0;
    let still_used: BTreeSet<usize> = model.faces.iter().flatten().map(|c| c.get()).collect();
    let unused = model.vertices.len() - still_used.len();
    assert!(unused > 1000, "{unused}");
    let outcome = run_tool(
        "remove_unused_vertices",
        &model,
        &PluginSelection::new(),
        &json!({}),
    );
    assert_eq!(outcome.label_ja, "未使用頂点の削除");
    assert!(
        outcome.notes[0].starts_with(&format!("{} unused vertices removed", thousands(unused))),
        "{}",
        outcome.notes[0]
    );
    let after = &outcome.after;
    assert_eq!(after.vertices.len(), model.vertices.len() - unused);
    assert_eq!(face_positions(after), face_positions(&model));
    // Offsets on the removed vertices went; the others still move the same positions.
    let expected: Vec<_> = {
        let mut kept_model = model.clone();
        for morph in &mut kept_model.morphs {
            if let MorphOffsets::Vertex(list) = &mut morph.offsets {
                list.retain(|o| still_used.contains(&o.vertex.get()));
            }
        }
        offsets_by_position(&kept_model)
    };
    assert_eq!(offsets_by_position(after), expected);
    // The kept vertices keep their order and values.
    let kept: Vec<&Vertex> = (0..model.vertices.len())
        .filter(|v| still_used.contains(v))
        .map(|v| &model.vertices[v])
        .collect();
    assert_eq!(after.vertices.iter().collect::<Vec<_>>(), kept);
    // Only among the selected ones.
    let first_two: Vec<usize> = (0..model.vertices.len())
        .filter(|v| !still_used.contains(v))
        .take(2)
        .collect();
    let selection =
        PluginSelection::new().with(ElementKind::Vertex, vec![0, first_two[0], first_two[1]]);
    let two = run_tool("remove_unused_vertices", &model, &selection, &json!({}));
    assert_eq!(two.after.vertices.len(), model.vertices.len() - 2);
}

#[test]
fn unused_textures_go_and_materials_keep_their_files() {
    let Some(gene) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let file = |model: &Model, t: Option<pmx_core::model::TextureIdx>| {
        t.map(|t| model.textures[t.get()].as_str().into_owned())
    };
    let files = |model: &Model| -> Vec<(Option<String>, Option<String>, String)> {
        model
            .materials
            .iter()
            .map(|m| {
                (
                    file(model, m.texture),
                    file(model, m.sphere_texture),
                    format!(
                        "{:?}",
                        match m.toon {
                            pmx_core::model::Toon::Texture(t) => file(model, t),
                            pmx_core::model::Toon::Shared(n) => Some(format!("shared {n}")),
                        }
                    ),
                )
            })
            .collect()
    };
    let used: BTreeSet<usize> = gene
        .materials
        .iter()
        .flat_map(|m| {
            let toon = match m.toon {
                pmx_core::model::Toon::Texture(t) => t,
                pmx_core::model::Toon::Shared(_) => None,
            };
            [m.texture, m.sphere_texture, toon]
        })
        .flatten()
        .map(|t| t.get())
        .collect();
    let mut model = gene.clone();
    // Two textures nobody uses, one of them before the used ones.
    model.textures.push("tex\\unused_a.png".into());
    model.textures.insert(0, "tex\\unused_b.png".into());
    for material in &mut model.materials {
        for t in [&mut material.texture, &mut material.sphere_texture] {
            *t = t.map(|t| pmx_core::model::TextureIdx::new(t.get() + 1));
        }
        if let pmx_core::model::Toon::Texture(Some(t)) = material.toon {
            material.toon =
                pmx_core::model::Toon::Texture(Some(pmx_core::model::TextureIdx::new(t.get() + 1)));
        }
    }
    assert_eq!(files(&model), files(&gene));
    let unused_in_gene = gene.textures.len() - used.len();
    let outcome = run_tool(
        "remove_unused_textures",
        &model,
        &PluginSelection::new(),
        &json!({}),
    );
    assert_eq!(
        outcome.notes[0],
        format!("{} unused textures removed", unused_in_gene + 2)
    );
    assert!(
        outcome.notes[1].contains("tex\\unused_b.png"),
        "{}",
        outcome.notes[1]
    );
    assert_eq!(outcome.after.textures.len(), used.len());
    assert_eq!(files(&outcome.after), files(&gene));
}

/// The bones nothing needs, found by iterating to a fixed point (another way than the tool's
/// work list): weighted, followed by a rigid body, moved by a bone morph, IK bone, target or
/// link, standard name, or parent / append parent of a needed bone.
fn unneeded_bones(model: &Model, standard_names_count: bool) -> Vec<String> {
    let mut needed = vec![false; model.bones.len()];
    for v in &model.vertices {
        for (bone, w) in v.weight.bone_weights() {
            if w > 0.0 {
                needed[bone.unwrap().get()] = true;
            }
        }
    }
    for body in &model.rigid_bodies {
        if let Some(b) = body.bone {
            needed[b.get()] = true;
        }
    }
    for morph in &model.morphs {
        if let MorphOffsets::Bone(list) = &morph.offsets {
            for o in list {
                needed[o.bone.unwrap().get()] = true;
            }
        }
    }
    for (i, bone) in model.bones.iter().enumerate() {
        if bone.flags.contains(BoneFlags::IK) {
            needed[i] = true;
            needed[bone.ik.target.unwrap().get()] = true;
            for link in &bone.ik.links {
                needed[link.bone.unwrap().get()] = true;
            }
        }
        let name = bone.name_ja.as_str();
        let base = name.trim_start_matches(['左', '右']);
        if standard_names_count
            && pmx_plugins::builtin::clean_up::STANDARD_BONE_NAMES.contains(&base)
        {
            needed[i] = true;
        }
    }
    loop {
        let mut changed = false;
        for (i, bone) in model.bones.iter().enumerate() {
            if !needed[i] {
                continue;
            }
            let mut up = vec![bone.parent];
            if bone
                .flags
                .intersects(BoneFlags::APPEND_ROTATE | BoneFlags::APPEND_MOVE)
            {
                up.push(bone.append_parent);
            }
            for b in up.into_iter().flatten() {
                if !needed[b.get()] {
                    needed[b.get()] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    (0..model.bones.len())
        .filter(|&i| !needed[i])
        .map(|i| model.bones[i].name_ja.as_str().into_owned())
        .collect()
}

#[test]
fn unused_bones_of_gene_are_exactly_those_nothing_needs() {
    let Some(gene) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    for (standard_kept, options) in [
        (true, json!({})),
        (false, json!({"include_named_standard": true})),
    ] {
        let expected = unneeded_bones(&gene, standard_kept);
        println!("{options}: {} bones: {expected:?}", expected.len());
        if expected.is_empty() {
            no_change("remove_unused_bones", &gene, options);
            continue;
        }
        let outcome = run_tool(
            "remove_unused_bones",
            &gene,
            &PluginSelection::new(),
            &options,
        );
        assert_eq!(
            outcome.notes[0],
            format!("{} unused bones removed", expected.len())
        );
        let after = &outcome.after;
        let names = |model: &Model| -> Vec<String> {
            model
                .bones
                .iter()
                .map(|b| b.name_ja.as_str().into_owned())
                .collect()
        };
        let kept: Vec<String> = names(&gene)
            .into_iter()
            .filter(|name| !expected.contains(name))
            .collect();
        assert_eq!(names(after), kept);
        // Weights, rigid bodies and parents name the same bones as before.
        let name_of = |model: &Model, b: Option<pmx_core::model::BoneIdx>| {
            b.map(|b| model.bones[b.get()].name_ja.as_str().into_owned())
        };
        for (before, now) in gene.vertices.iter().zip(&after.vertices) {
            let old: Vec<_> = before
                .weight
                .bone_weights()
                .into_iter()
                .map(|(b, w)| (name_of(&gene, b), w))
                .collect();
            let new: Vec<_> = now
                .weight
                .bone_weights()
                .into_iter()
                .map(|(b, w)| (name_of(after, b), w))
                .collect();
            assert_eq!(old, new);
        }
        for (before, now) in gene.rigid_bodies.iter().zip(&after.rigid_bodies) {
            assert_eq!(name_of(&gene, before.bone), name_of(after, now.bone));
        }
        for bone in &after.bones {
            let original = gene
                .bones
                .iter()
                .find(|b| b.name_ja == bone.name_ja)
                .unwrap();
            assert_eq!(name_of(&gene, original.parent), name_of(after, bone.parent));
        }
    }
}

#[test]
fn a_lone_control_bone_goes_and_standard_names_stay() {
    let mut model = pmx_core::generate::sample_model();
    let before = model.bones.len();
    let parent = Some(pmx_core::model::BoneIdx::new(0));
    for name in ["飾り", "左腕捩１", "飾り先"] {
        model.bones.push(pmx_core::model::Bone {
            name_ja: name.into(),
            parent,
            ..Default::default()
        });
    }
    // 飾り先 hangs from 飾り: both go; 左腕捩１ is a standard name and stays.
    let last = model.bones.len() - 1;
    model.bones[last].parent = Some(pmx_core::model::BoneIdx::new(before));
    let selection =
        PluginSelection::new().with(ElementKind::Bone, (before..model.bones.len()).collect());
    let outcome = run_tool("remove_unused_bones", &model, &selection, &json!({}));
    assert_eq!(
        outcome.notes[..2],
        [
            "2 unused bones removed".to_owned(),
            "飾り、飾り先".to_owned()
        ]
    );
    assert_eq!(outcome.after.bones.len(), before + 1);
    let all = run_tool(
        "remove_unused_bones",
        &model,
        &selection,
        &json!({"include_named_standard": true}),
    );
    assert_eq!(all.after.bones.len(), before);
}

const SIDES: [([f32; 3], [f32; 3], [f32; 3]); 6] = [
    ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
    ([-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]),
    ([0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]),
    ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
    ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ([0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]),
];

/// A cube of side 2, each side its own 4 vertices; `side_materials[k]` sides per material.
fn split_cube(side_materials: &[usize], uv_per_side: bool) -> Model {
    let mut model = Model::new_empty();
    for (k, (normal, u, w)) in SIDES.into_iter().enumerate() {
        let base = model.vertices.len() as u32;
        for (s, t) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let position = [0, 1, 2].map(|i| normal[i] + s * u[i] + t * w[i]);
            model.vertices.push(Vertex {
                position: Vec3::new(position[0], position[1], position[2]),
                uv: if uv_per_side {
                    Vec2::new(k as f32 / 6.0, 0.0)
                } else {
                    Vec2::ZERO
                },
                ..Vertex::default()
            });
        }
        let corner = |k: u32| VertexIdx(base + k);
        model.faces.push([corner(0), corner(1), corner(2)]);
        model.faces.push([corner(0), corner(2), corner(3)]);
    }
    for &sides in side_materials {
        model.materials.push(Material {
            face_index_count: 6 * sides as u32,
            ..Material::default()
        });
    }
    model
}

#[test]
fn welding_a_split_cube_gives_its_eight_corners_per_material() {
    let cube = split_cube(&[6], false);
    let outcome = run_tool("weld_vertices", &cube, &PluginSelection::new(), &json!({}));
    assert_eq!(outcome.label_ja, "近接頂点の結合");
    assert_eq!(
        outcome.notes[0],
        "16 vertices welded into others, 0 faces collapsed and removed"
    );
    assert_eq!(outcome.after.vertices.len(), 8);
    assert_eq!(face_positions(&outcome.after), face_positions(&cube));
    // Per material: ±X, ±Y share their 8 corners; ±Z keep 8 of their own.
    let two = split_cube(&[4, 2], false);
    let outcome = run_tool("weld_vertices", &two, &PluginSelection::new(), &json!({}));
    assert_eq!(outcome.after.vertices.len(), 16);
    assert_eq!(face_positions(&outcome.after), face_positions(&two));
    // Different UVs on every side: nothing alike unless UVs may differ.
    let seams = split_cube(&[6], true);
    no_change("weld_vertices", &seams, json!({}));
    let outcome = run_tool(
        "weld_vertices",
        &seams,
        &PluginSelection::new(),
        &json!({"require_same_uv": false}),
    );
    assert_eq!(outcome.after.vertices.len(), 8);
    // A vertex moved by a morph is welded only with one the morph moves alike.
    let mut morphed = split_cube(&[6], false);
    morphed.morphs.push(pmx_core::model::Morph {
        name_ja: "膨らみ".into(),
        name_en: String::new().into(),
        panel: pmx_core::model::MorphPanel::Other,
        offsets: MorphOffsets::Vertex(vec![pmx_core::model::VertexMorphOffset {
            vertex: VertexIdx(0),
            offset: Vec3::new(0.5, 0.0, 0.0),
        }]),
    });
    let outcome = run_tool(
        "weld_vertices",
        &morphed,
        &PluginSelection::new(),
        &json!({}),
    );
    assert_eq!(outcome.after.vertices.len(), 9);
}

#[test]
fn welding_removes_faces_that_collapse() {
    // A thin triangle whose two close corners are within the distance.
    let mut model = Model::new_empty();
    for position in [
        Vec3::new(0.0, 0.0, 0.0),
        Vec3::new(0.00005, 0.0, 0.0),
        Vec3::new(1.0, 1.0, 0.0),
        Vec3::new(0.0, 1.0, 1.0),
    ] {
        model.vertices.push(Vertex {
            position,
            ..Vertex::default()
        });
    }
    model.faces = vec![
        [VertexIdx(0), VertexIdx(1), VertexIdx(2)],
        [VertexIdx(1), VertexIdx(2), VertexIdx(3)],
    ];
    model.materials.push(Material {
        face_index_count: 6,
        ..Material::default()
    });
    let outcome = run_tool("weld_vertices", &model, &PluginSelection::new(), &json!({}));
    assert_eq!(
        outcome.notes[0],
        "1 vertices welded into others, 1 faces collapsed and removed"
    );
    assert_eq!(
        outcome.after.faces,
        vec![[VertexIdx(0), VertexIdx(1), VertexIdx(2)]]
    );
    assert_eq!(outcome.after.materials[0].face_index_count, 3);
    // A smaller distance keeps them apart.
    no_change("weld_vertices", &model, json!({"distance": 0.00001}));
}

#[test]
fn welding_gene_joins_exactly_the_alike_vertices_at_one_position() {
    let Some(gene) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    // Counted here on its own: vertices grouped by material, exact position, UV, weight and
    // morph offsets; each group keeps one.
    let ranges = gene.material_face_ranges();
    let mut material_of = vec![None::<usize>; gene.vertices.len()];
    let mut several = vec![false; gene.vertices.len()];
    for (m, range) in ranges.iter().enumerate() {
        for face in &gene.faces[range.clone()] {
            for c in face {
                match material_of[c.get()] {
                    Some(other) if other != m => several[c.get()] = true,
                    _ => material_of[c.get()] = Some(m),
                }
            }
        }
    }
    let mut offsets = HashMap::<usize, Vec<String>>::new();
    for (m, morph) in gene.morphs.iter().enumerate() {
        match &morph.offsets {
            MorphOffsets::Vertex(list) => {
                for o in list {
                    offsets
                        .entry(o.vertex.get())
                        .or_default()
                        .push(format!("{m}{:?}", o.offset));
                }
            }
            MorphOffsets::Uv(list) => {
                for o in list {
                    offsets
                        .entry(o.vertex.get())
                        .or_default()
                        .push(format!("{m}{:?}", o.offset));
                }
            }
            _ => {}
        }
    }
    let mut groups = HashMap::<String, usize>::new();
    for (v, vertex) in gene.vertices.iter().enumerate() {
        if several[v] || material_of[v].is_none() {
            continue;
        }
        let mut own = offsets.get(&v).cloned().unwrap_or_default();
        own.sort();
        let key = format!(
            "{:?}|{:?}|{:?}|{:?}|{own:?}",
            material_of[v],
            vertex.position.to_array().map(f32::to_bits),
            vertex.uv.to_array().map(f32::to_bits),
            vertex.weight
        );
        *groups.entry(key).or_default() += 1;
    }
    let welded: usize = groups.values().map(|n| n - 1).sum();
    println!("{welded} of Gene's vertices are alike");
    if welded == 0 {
        no_change("weld_vertices", &gene, json!({"distance": 0}));
        return;
    }
    let outcome = run_tool(
        "weld_vertices",
        &gene,
        &PluginSelection::new(),
        &json!({"distance": 0}),
    );
    assert!(
        outcome.notes[0].starts_with(&format!("{} vertices welded", thousands(welded))),
        "{}",
        outcome.notes[0]
    );
    assert_eq!(outcome.after.vertices.len(), gene.vertices.len() - welded);
    assert_eq!(face_positions(&outcome.after), face_positions(&gene));
}
