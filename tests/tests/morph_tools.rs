//! The morph tools (ツール > モーフ and their ops) on a symmetric grid built here, whose
//! vertices sit at known ±x, and on Gene: every number is worked out here from the grid, not
//! read back from the code. Each run checks that undo gives the model back exactly and that
//! `check` finds no new error.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use glam::Vec3 as V3;
use pmx_core::Model;
use pmx_core::edit::{Edit, EditOp, ops_to_edit};
use pmx_core::formats::{self, SaveOptions, vpd};
use pmx_core::model::{
    BoneIdx, DisplayFrame, DisplayItem, ElementKind, Material, Morph, MorphIdx, MorphKind,
    MorphOffsets, MorphPanel, UvMorphOffset, Vec3, Vec4, Vertex, VertexIdx, VertexMorphOffset,
    Weight,
};
use pmx_core::pose::Pose;
use pmx_plugins::{Options, PluginSelection, Registry, run_plugin, run_plugin_posed};
use pmx_tests::{corpus_model, run_tool, validation_errors};
use serde_json::json;

/// The grid's columns: x at multiples of 1/8, so sums and differences are exact in f32.
const XS: [f32; 7] = [-1.0, -0.5, -0.125, 0.0, 0.125, 0.5, 1.0];

/// Vertex `column` of row `row` (rows at y = 0 and y = 1).
fn vertex(row: usize, column: usize) -> usize {
    row * XS.len() + column
}

/// A symmetric grid of two rows of [`XS`], the lower row on センター, the upper on 頭 (at y = 1);
/// the morphs まばたき (every vertex, down), 笑い左 (the model-left vertices only), UV (every
/// vertex) and a bone morph; Root and 表情 frames listing them.
fn grid() -> Model {
    let mut model = Model::new_empty();
    model.bones.push(pmx_core::model::Bone {
        name_ja: "センター".into(),
        ..Default::default()
    });
    model.bones.push(pmx_core::model::Bone {
        name_ja: "頭".into(),
        position: Vec3::new(0.0, 1.0, 0.0),
        parent: Some(BoneIdx::new(0)),
        ..Default::default()
    });
    for row in 0..2 {
        for &x in &XS {
            model.vertices.push(Vertex {
                position: Vec3::new(x, row as f32, 0.0),
                normal: Vec3::new(0.0, 0.0, -1.0),
                weight: Weight::Bdef1 {
                    bone: Some(BoneIdx::new(row)),
                },
                edge_scale: 1.0,
                ..Vertex::default()
            });
        }
    }
    for column in 0..XS.len() - 1 {
        let (a, b) = (vertex(0, column), vertex(0, column + 1));
        let (c, d) = (vertex(1, column), vertex(1, column + 1));
        model.faces.push([a, c, b].map(VertexIdx::new));
        model.faces.push([b, c, d].map(VertexIdx::new));
    }
    model.materials.push(Material {
        name_ja: "材質".into(),
        face_index_count: 3 * model.faces.len() as u32,
        ..Material::default()
    });
    let all: Vec<usize> = (0..model.vertices.len()).collect();
    let blink = all
        .iter()
        .map(|&v| VertexMorphOffset {
            vertex: VertexIdx::new(v),
            offset: Vec3::new(0.25, -0.125 * (v + 1) as f32, 0.0625),
        })
        .collect();
    let smile_left = all
        .iter()
        .filter(|&&v| model.vertices[v].position.x > 0.0)
        .map(|&v| VertexMorphOffset {
            vertex: VertexIdx::new(v),
            offset: Vec3::new(0.5, 0.125 * v as f32, -0.25),
        })
        .collect();
    let uv = all
        .iter()
        .map(|&v| UvMorphOffset {
            vertex: VertexIdx::new(v),
            offset: Vec4::new(0.5, 0.25, 0.0, 0.0),
        })
        .collect();
    let morph = |name_ja: &str, name_en: &str, offsets| Morph {
        name_ja: name_ja.into(),
        name_en: name_en.into(),
        panel: MorphPanel::Eye,
        offsets,
    };
    model.morphs = vec![
        morph("まばたき", "blink", MorphOffsets::Vertex(blink)),
        morph("笑い左", "smile_L", MorphOffsets::Vertex(smile_left)),
        morph("UV", "", MorphOffsets::Uv(uv)),
        morph("ボーン", "", MorphOffsets::Bone(Vec::new())),
    ];
    model.display_frames = vec![
        DisplayFrame {
            name_ja: "Root".into(),
            name_en: "Root".into(),
            special: true,
            items: vec![DisplayItem::Bone(Some(BoneIdx::new(0)))],
        },
        DisplayFrame {
            name_ja: "表情".into(),
            name_en: "Exp".into(),
            special: true,
            items: (0..4)
                .map(|m| DisplayItem::Morph(Some(MorphIdx::new(m))))
                .collect(),
        },
    ];
    model
}

/// Applies `edit` to a copy of `model`, checks that `check` finds no new error and that undo
/// gives `model` back exactly, and returns the model after the edit.
fn apply_checked(model: &Model, mut edit: Edit) -> Model {
    let mut working = model.clone();
    edit.apply(&mut working);
    let before = validation_errors(model);
    let new_errors: Vec<String> = validation_errors(&working)
        .into_iter()
        .filter(|error| !before.contains(error))
        .collect();
    assert!(
        new_errors.is_empty(),
        "new validator errors: {new_errors:?}"
    );
    let after = working.clone();
    edit.revert(&mut working);
    assert!(working == *model, "undo did not give the model back");
    after
}

fn op(model: &Model, value: serde_json::Value) -> Result<Model, String> {
    let op: EditOp = serde_json::from_value(value).map_err(|e| e.to_string())?;
    let mut working = model.clone();
    let edit = ops_to_edit(&mut working, &[op]).map_err(|e| e.to_string())?;
    assert!(working == *model, "building the edit changed the model");
    Ok(apply_checked(model, edit))
}

fn vertex_offsets(morph: &Morph) -> Vec<(usize, [f32; 3])> {
    let MorphOffsets::Vertex(offsets) = &morph.offsets else {
        panic!("{} is not a vertex morph", morph.name_ja.as_str());
    };
    offsets
        .iter()
        .map(|o| (o.vertex.get(), [o.offset.x, o.offset.y, o.offset.z]))
        .collect()
}

fn expression_items(model: &Model) -> Vec<usize> {
    let frame = model.expression_frame().unwrap();
    model.display_frames[frame]
        .items
        .iter()
        .filter_map(|item| match item {
            DisplayItem::Morph(Some(m)) => Some(m.get()),
            _ => None,
        })
        .collect()
}

fn morph_selection(morphs: &[usize]) -> PluginSelection {
    PluginSelection::new().with(ElementKind::Morph, morphs.to_vec())
}

/// `model` with every vertex moved by `offset(v)`, written to a PMX file in `dir`.
fn moved_copy(
    model: &Model,
    dir: &std::path::Path,
    offset: impl Fn(usize) -> Vec3,
) -> std::path::PathBuf {
    let mut moved = model.clone();
    for (v, vertex) in moved.vertices.iter_mut().enumerate() {
        let d = offset(v);
        vertex.position = Vec3::new(
            vertex.position.x + d.x,
            vertex.position.y + d.y,
            vertex.position.z + d.z,
        );
    }
    let path = dir.join("moved.pmx");
    formats::save_path(&moved, &path, &SaveOptions::default()).unwrap();
    path
}

/// Every third vertex moved by a different amount (multiples of 1/64: exact in f32).
fn known_offset(v: usize) -> Vec3 {
    if v.is_multiple_of(3) {
        Vec3::new(v as f32 / 64.0, -0.5, 0.25)
    } else {
        Vec3::new(0.0, 0.0, 0.0)
    }
}

#[test]
fn a_model_moved_by_known_offsets_gives_exactly_those_offsets() {
    let model = grid();
    let dir = tempfile::tempdir().unwrap();
    let path = moved_copy(&model, dir.path(), known_offset);
    let outcome = run_tool(
        "morph_from_model",
        &model,
        &PluginSelection::new(),
        &json!({"model": path, "name": "動いた", "panel": "mouth", "threshold": 0.00001}),
    );
    let after = outcome.after;
    assert_eq!(after.morphs.len(), 5);
    let new = &after.morphs[4];
    assert_eq!(new.name_ja.as_str(), "動いた");
    assert_eq!(new.panel, MorphPanel::Mouth);
    let expected: Vec<(usize, [f32; 3])> = (0..model.vertices.len())
        .filter(|v| v.is_multiple_of(3))
        .map(|v| (v, [v as f32 / 64.0, -0.5, 0.25]))
        .collect();
    assert_eq!(vertex_offsets(new), expected);
    assert_eq!(
        expression_items(&after),
        vec![0, 1, 2, 3, 4],
        "listed in 表情"
    );
    assert_eq!(
        outcome.label_ja, "モデルからモーフ",
        "a tool's step is named after the tool"
    );
}

#[test]
fn a_model_with_another_vertex_count_is_refused_naming_both_counts() {
    let model = grid();
    let mut bigger = model.clone();
    bigger.vertices.push(Vertex::default());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bigger.pmx");
    formats::save_path(&bigger, &path, &SaveOptions::default()).unwrap();
    let plugin = Registry::builtin().find("morph_from_model").unwrap();
    let options =
        Options::from_json(&plugin.info().options, &json!({"model": path, "name": "x"})).unwrap();
    let error = run_plugin(
        plugin.as_ref(),
        &mut model.clone(),
        &PluginSelection::new(),
        &options,
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("15 vertices") && error.contains("14"),
        "{error}"
    );
    assert!(error.contains("bigger.pmx"), "{error}");
    let missing = op(
        &model,
        json!({"op": "morph_from_model", "model": dir.path().join("none.pmx"), "name": "x"}),
    )
    .unwrap_err();
    assert!(missing.contains("none.pmx"), "{missing}");
}

/// The left half's share at x for a band of 0.5, worked out by hand.
fn left_share_by_hand(x: f32) -> f32 {
    match x {
        x if x >= 0.25 => 1.0,
        x if x <= -0.25 => 0.0,
        // -0.125 → 0.25, 0 → 0.5, 0.125 → 0.75
        x => (x + 0.25) / 0.5,
    }
}

#[test]
fn split_halves_share_linearly_in_the_band_and_add_up_to_the_original() {
    let model = grid();
    let outcome = run_tool(
        "split_morph",
        &model,
        &morph_selection(&[0]),
        &json!({"suffix_left": "左", "suffix_right": "右", "blend_width": 0.5}),
    );
    let after = outcome.after;
    assert_eq!(after.morphs.len(), 6);
    assert_eq!(after.morphs[0], model.morphs[0], "the source is kept");
    let (left, right) = (&after.morphs[1], &after.morphs[2]);
    assert_eq!(left.name_ja.as_str(), "まばたき左");
    assert_eq!(right.name_ja.as_str(), "まばたき右");
    assert_eq!(left.name_en.as_str(), "blink_L");
    assert_eq!(right.name_en.as_str(), "blink_R");
    assert_eq!(
        (left.panel, right.panel),
        (MorphPanel::Eye, MorphPanel::Eye)
    );
    assert_eq!(
        after.morphs[3].name_ja.as_str(),
        "笑い左",
        "inserted after the source"
    );
    let left = vertex_offsets(left);
    let right = vertex_offsets(right);
    // Shares of zero are left out: the left half has no vertex at x ≤ −0.25, the right none
    // at x ≥ 0.25.
    assert_eq!(left.len(), 2 * 5);
    assert_eq!(right.len(), 2 * 5);
    for (v, original) in vertex_offsets(&model.morphs[0]) {
        let share = left_share_by_hand(model.vertices[v].position.x);
        let find = |half: &[(usize, [f32; 3])]| {
            half.iter()
                .find(|(u, _)| *u == v)
                .map_or([0.0; 3], |(_, o)| *o)
        };
        let (l, r) = (V3::from(find(&left)), V3::from(find(&right)));
        let original = V3::from(original);
        assert!(
            (l - original * share).abs().max_element() <= 1e-6,
            "vertex {v}"
        );
        assert!((l + r - original).abs().max_element() <= 1e-6, "vertex {v}");
    }
    assert_eq!(expression_items(&after), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(outcome.label_ja, "モーフ分割（左右）");
}

#[test]
fn a_hard_cut_halves_the_centre_and_uv_morphs_split_too() {
    let model = grid();
    let after = op(
        &model,
        json!({"op": "split_morph", "morph": "UV", "blend_width": 0.0, "suffix_left": "L", "suffix_right": "R"}),
    )
    .unwrap();
    let (MorphOffsets::Uv(left), MorphOffsets::Uv(right)) =
        (&after.morphs[3].offsets, &after.morphs[4].offsets)
    else {
        panic!("UV halves");
    };
    assert_eq!(after.morphs[3].name_ja.as_str(), "UVL");
    assert_eq!(
        after.morphs[3].name_en.as_str(),
        "",
        "an empty English name stays empty"
    );
    // 3 columns right of the centre and the centre column, in both rows.
    assert_eq!(left.len(), 2 * 4);
    assert_eq!(right.len(), 2 * 4);
    let centre = vertex(0, 3);
    let at = |half: &[UvMorphOffset]| {
        half.iter()
            .find(|o| o.vertex.get() == centre)
            .unwrap()
            .offset
    };
    assert_eq!(at(left), Vec4::new(0.25, 0.125, 0.0, 0.0));
    assert_eq!(at(right), Vec4::new(0.25, 0.125, 0.0, 0.0));
}

#[test]
fn split_refuses_other_kinds_by_name() {
    let model = grid();
    let error = op(&model, json!({"op": "split_morph", "morph": 3})).unwrap_err();
    assert!(
        error.contains("ボーン") && error.contains("bone morph"),
        "{error}"
    );
}

#[test]
fn mirror_copy_of_a_left_only_morph_is_its_exact_mirror() {
    let model = grid();
    let outcome = run_tool(
        "mirror_morph",
        &model,
        &morph_selection(&[1]),
        &json!({"mode": "mirror_copy", "tolerance": 0.001}),
    );
    let after = outcome.after;
    let mirrored = &after.morphs[2];
    assert_eq!(mirrored.name_ja.as_str(), "笑い右");
    assert_eq!(mirrored.name_en.as_str(), "smile_R");
    let mut expected: Vec<(usize, [f32; 3])> = vertex_offsets(&model.morphs[1])
        .into_iter()
        .map(|(v, [dx, dy, dz])| {
            // The partner of column c is column 6 − c in the same row.
            let (row, column) = (v / XS.len(), v % XS.len());
            (vertex(row, XS.len() - 1 - column), [-dx, dy, dz])
        })
        .collect();
    expected.sort_by_key(|(v, _)| *v);
    assert_eq!(vertex_offsets(mirrored), expected);
    assert_eq!(expression_items(&after), vec![0, 1, 2, 3, 4]);

    // Again: the morph of that name exists now, and gets the offsets instead.
    let again = run_tool(
        "mirror_morph",
        &after,
        &morph_selection(&[1]),
        &json!({"mode": "mirror_copy"}),
    );
    assert_eq!(again.after.morphs.len(), after.morphs.len());
    assert!(
        again.notes.iter().any(|n| n.contains("exists already")),
        "{:?}",
        again.notes
    );
}

#[test]
fn symmetrize_copies_the_left_side_onto_the_right_and_zeroes_dx_on_the_centre() {
    let model = grid();
    // まばたき has offsets everywhere: the right side's own are replaced by the left's mirror.
    let outcome = run_tool(
        "mirror_morph",
        &model,
        &morph_selection(&[0]),
        &json!({"mode": "symmetrize", "from": "left"}),
    );
    let after = outcome.after;
    assert_eq!(after.morphs.len(), model.morphs.len(), "no new morph");
    let original: std::collections::BTreeMap<usize, [f32; 3]> =
        vertex_offsets(&model.morphs[0]).into_iter().collect();
    let mut expected = Vec::new();
    for row in 0..2 {
        for column in 0..XS.len() {
            let v = vertex(row, column);
            let offset = match column {
                3 => {
                    let [_, dy, dz] = original[&v];
                    [0.0, dy, dz]
                }
                c if c > 3 => original[&v],
                c => {
                    let [dx, dy, dz] = original[&vertex(row, XS.len() - 1 - c)];
                    [-dx, dy, dz]
                }
            };
            expected.push((v, offset));
        }
    }
    assert_eq!(vertex_offsets(&after.morphs[0]), expected);
    assert_eq!(outcome.label_ja, "モーフミラー");
}

#[test]
fn vertices_without_a_partner_are_skipped_and_counted() {
    let mut model = grid();
    // Move one model-left vertex off the grid: its mirror place is empty.
    model.vertices[vertex(1, 6)].position.z = 0.5;
    let outcome = run_tool(
        "mirror_morph",
        &model,
        &morph_selection(&[1]),
        &json!({"mode": "mirror_copy"}),
    );
    assert_eq!(vertex_offsets(&outcome.after.morphs[2]).len(), 5);
    assert!(
        outcome.notes.iter().any(|n| n.contains("1 vertices")),
        "{:?}",
        outcome.notes
    );
}

#[test]
fn a_group_morph_takes_the_pose_values_and_one_where_there_is_none() {
    let model = grid();
    let plugin = Registry::builtin()
        .find("group_morph_from_selection")
        .unwrap();
    let options = Options::from_json(
        &plugin.info().options,
        &json!({"name": "合成", "panel": "other"}),
    )
    .unwrap();
    let mut pose = Pose::new(&model);
    pose.set_morph(MorphIdx::new(0), 0.5);
    pose.set_morph(MorphIdx::new(2), 0.25);
    let mut working = model.clone();
    let run = run_plugin_posed(
        plugin.as_ref(),
        &mut working,
        &morph_selection(&[0, 1, 2]),
        &options,
        Some(&pose),
    )
    .unwrap();
    let after = apply_checked(&model, run.edit);
    let group = &after.morphs[4];
    assert_eq!(group.name_ja.as_str(), "合成");
    assert_eq!(group.panel, MorphPanel::Other);
    let MorphOffsets::Group(members) = &group.offsets else {
        panic!("a group morph");
    };
    let members: Vec<(usize, f32)> = members
        .iter()
        .map(|m| (m.morph.unwrap().get(), m.ratio))
        .collect();
    // 笑い左 is at 0 in the pose: ratio 1.
    assert_eq!(members, vec![(0, 0.5), (1, 1.0), (2, 0.25)]);
    assert_eq!(expression_items(&after), vec![0, 1, 2, 3, 4]);

    // Without a pose every ratio is 1; the op names its members explicitly.
    let after = op(
        &model,
        json!({"op": "group_morph_from_selection", "name": "g", "morphs": [{"morph": "まばたき", "ratio": 0.75}, {"morph": 1}]}),
    )
    .unwrap();
    let MorphOffsets::Group(members) = &after.morphs[4].offsets else {
        panic!("a group morph");
    };
    assert_eq!((members[0].ratio, members[1].ratio), (0.75, 1.0));
}

/// What bending 頭 (at y = 1) by 90° about Z does to vertex (x, 1, 0) of the upper row: it
/// turns to (0, 1 + x, 0), an offset of (−x, x, 0); the lower row (on センター) stays.
fn bent_head_offsets() -> Vec<(usize, [f32; 3])> {
    XS.iter()
        .enumerate()
        .filter(|(_, x)| **x != 0.0)
        .map(|(column, &x)| (vertex(1, column), [-x, x, 0.0]))
        .collect()
}

fn assert_close(actual: &[(usize, [f32; 3])], expected: &[(usize, [f32; 3])]) {
    assert_eq!(
        actual.iter().map(|(v, _)| *v).collect::<Vec<_>>(),
        expected.iter().map(|(v, _)| *v).collect::<Vec<_>>()
    );
    for ((v, a), (_, e)) in actual.iter().zip(expected) {
        assert!(
            (V3::from(*a) - V3::from(*e)).abs().max_element() < 1e-4,
            "vertex {v}: {a:?} vs {e:?}"
        );
    }
}

#[test]
fn a_vpd_that_bends_a_bone_gives_posed_minus_rest() {
    let model = grid();
    let mut pose = Pose::new(&model);
    pose.set_bone(
        BoneIdx::new(1),
        glam::Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
        glam::Vec3::ZERO,
    );
    let file = vpd::PoseFile::from_pose(&model, &pose, "grid.osm");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bend.vpd");
    std::fs::write(&path, vpd::write(&file).unwrap()).unwrap();
    let after = op(
        &model,
        json!({"op": "morph_from_pose", "vpd": path, "name": "曲げ", "panel": "eyebrow"}),
    )
    .unwrap();
    let new = &after.morphs[4];
    assert_eq!(new.panel, MorphPanel::Eyebrow);
    assert_close(&vertex_offsets(new), &bent_head_offsets());

    // The same pose given inline, and the same pose from the host through the tool.
    let inline = op(
        &model,
        json!({"op": "morph_from_pose", "bones": {"頭": {"rotate": [0.0, 0.0, 90.0]}}, "name": "曲げ"}),
    )
    .unwrap();
    assert_close(&vertex_offsets(&inline.morphs[4]), &bent_head_offsets());
    let plugin = Registry::builtin().find("morph_from_pose").unwrap();
    let options = Options::from_json(&plugin.info().options, &json!({"name": "曲げ"})).unwrap();
    let run = run_plugin_posed(
        plugin.as_ref(),
        &mut model.clone(),
        &PluginSelection::new(),
        &options,
        Some(&pose),
    )
    .unwrap();
    let after = apply_checked(&model, run.edit);
    assert_close(&vertex_offsets(&after.morphs[4]), &bent_head_offsets());
}

#[test]
fn without_a_vpd_or_a_pose_morph_from_pose_is_refused() {
    let model = grid();
    let plugin = Registry::builtin().find("morph_from_pose").unwrap();
    let options = Options::from_json(&plugin.info().options, &json!({"name": "x"})).unwrap();
    for pose in [None, Some(Pose::new(&model))] {
        let error = run_plugin_posed(
            plugin.as_ref(),
            &mut model.clone(),
            &PluginSelection::new(),
            &options,
            pose.as_ref(),
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("no pose"), "{error}");
    }
    let error = op(&model, json!({"op": "morph_from_pose", "name": "x"})).unwrap_err();
    assert!(error.contains("no pose"), "{error}");
}

#[test]
fn gene_split_mirror_and_from_model() {
    let Some(gene) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let vertex_morphs: Vec<usize> = (0..gene.morphs.len())
        .filter(|&m| {
            gene.morphs[m].offsets.kind() == MorphKind::Vertex && !gene.morphs[m].offsets.is_empty()
        })
        .collect();
    let Some(&first) = vertex_morphs.first() else {
        println!("skipped: Gene has no vertex morph");
        return;
    };
    let split = run_tool("split_morph", &gene, &morph_selection(&[first]), &json!({}));
    let (left, right) = (
        &split.after.morphs[first + 1],
        &split.after.morphs[first + 2],
    );
    let mut sums = std::collections::BTreeMap::<usize, V3>::new();
    for (v, o) in vertex_offsets(left)
        .into_iter()
        .chain(vertex_offsets(right))
    {
        *sums.entry(v).or_default() += V3::from(o);
    }
    for (v, original) in vertex_offsets(&gene.morphs[first]) {
        let sum = sums.get(&v).copied().unwrap_or_default();
        assert!(
            (sum - V3::from(original)).abs().max_element() <= 1e-6,
            "vertex {v}"
        );
    }

    let mirrored = run_tool(
        "mirror_morph",
        &gene,
        &morph_selection(&[first]),
        &json!({"mode": "mirror_copy"}),
    );
    assert!(mirrored.after.morphs.len() >= gene.morphs.len());
    let _ = run_tool(
        "mirror_morph",
        &gene,
        &morph_selection(&[first]),
        &json!({"mode": "symmetrize"}),
    );

    let dir = tempfile::tempdir().unwrap();
    let path = moved_copy(&gene, dir.path(), |v| {
        if v.is_multiple_of(97) {
            Vec3::new(0.0, 0.5, 0.0)
        } else {
            Vec3::new(0.0, 0.0, 0.0)
        }
    });
    let from_model = run_tool(
        "morph_from_model",
        &gene,
        &PluginSelection::new(),
        &json!({"model": path, "name": "動き"}),
    );
    let new = from_model.after.morphs.last().unwrap();
    let offsets = vertex_offsets(new);
    assert_eq!(offsets.len(), gene.vertices.len().div_ceil(97));
    for (v, [dx, dy, dz]) in offsets {
        assert_eq!(v % 97, 0);
        // y + 0.5 − y is 0.5 up to the rounding of y + 0.5.
        assert!(
            dx == 0.0 && dz == 0.0 && (dy - 0.5).abs() < 1e-5,
            "vertex {v}"
        );
    }
}

#[test]
fn an_op_step_is_named_after_the_morph() {
    let model = grid();
    for (value, ja, en) in [
        (
            json!({"op": "split_morph", "morph": 0}),
            "モーフ分割「まばたき」",
            "Split morph \"まばたき\"",
        ),
        (
            json!({"op": "mirror_morph", "morph": 1}),
            "モーフミラー「笑い左」",
            "Mirror morph \"笑い左\"",
        ),
        (
            json!({"op": "mirror_morph", "morph": 0, "mode": "symmetrize"}),
            "モーフ左右対称化「まばたき」",
            "Symmetrize morph \"まばたき\"",
        ),
        (
            json!({"op": "group_morph_from_selection", "name": "g", "morphs": [{"morph": 0}]}),
            "グループモーフ「g」",
            "Group morph \"g\"",
        ),
    ] {
        let op: EditOp = serde_json::from_value(value).unwrap();
        let edit = ops_to_edit(&mut model.clone(), &[op]).unwrap();
        assert_eq!(edit.label_in(pmx_core::i18n::Language::Japanese), ja);
        assert_eq!(edit.label_in(pmx_core::i18n::Language::English), en);
    }
}
