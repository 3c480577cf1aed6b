//! 編集 > 選択 on Gene (skipped with the reason printed when the corpus is absent): from one
//! vertex of an eye, 繋がったパーツを選択 selects exactly that eye's connected vertices (worked
//! out here by a breadth-first search over the faces); 材質で選択, 選択の反転, 選択範囲を拡大 /
//! 縮小, ウェイトで選択 and 対称選択 likewise against sets worked out here. None of them adds a
//! step to the history: a selection is not an edit.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

mod support;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::model::{ElementKind, Model, Weight};
use pmx_ui::EditorState;
use pmx_ui::i18n::Language;
use std::collections::BTreeSet;
use support::{click, document, harness_with};

/// 編集 > 選択 > `item`.
fn select_menu(harness: &mut Harness<'_, EditorState>, item: &str) {
    click(harness, "編集");
    click(harness, "選択");
    // The items show their keys beside the name ("繋がったパーツを選択 Ctrl+L").
    // 編集 has its own すべて選択 and 選択解除 for the table: the submenu's item is the one
    // furthest right (the submenu opens beside 編集).
    harness
        .query_all_by_label_contains(item)
        .max_by(|a, b| a.rect().left().total_cmp(&b.rect().left()))
        .expect("the 選択 menu's item")
        .click();
    harness.run_ok();
}

fn selected(harness: &Harness<'_, EditorState>, kind: ElementKind) -> Vec<usize> {
    document(harness).selection.get(kind).indices.to_vec()
}

fn set_selection(harness: &mut Harness<'_, EditorState>, kind: ElementKind, indices: &[usize]) {
    let selection = harness
        .state_mut()
        .document
        .as_mut()
        .unwrap()
        .selection
        .get_mut(kind);
    selection.clear();
    for &index in indices {
        selection.indices.insert(index);
    }
    selection.current = indices.first().copied();
    harness.run_ok();
}

fn corners(model: &Model, face: usize) -> [usize; 3] {
    model.faces[face].map(|v| v.get())
}

/// The vertices connected to `seed` through faces, by breadth-first search.
fn connected(model: &Model, seed: usize) -> Vec<usize> {
    let mut neighbours = vec![Vec::new(); model.vertices.len()];
    for face in 0..model.faces.len() {
        let [a, b, c] = corners(model, face);
        for (x, y) in [(a, b), (b, c), (c, a)] {
            neighbours[x].push(y);
            neighbours[y].push(x);
        }
    }
    let mut seen = BTreeSet::from([seed]);
    let mut queue = std::collections::VecDeque::from([seed]);
    while let Some(v) = queue.pop_front() {
        for &next in &neighbours[v] {
            if seen.insert(next) {
                queue.push_back(next);
            }
        }
    }
    seen.into_iter().collect()
}

/// The weight of `vertex` to `bone`, each deform type read here.
fn weight_to(weight: &Weight, bone: usize) -> f32 {
    let is = |b: &Option<pmx_core::model::BoneIdx>| b.is_some_and(|b| b.get() == bone);
    match weight {
        Weight::Bdef1 { bone: b } => f32::from(u8::from(is(b))),
        Weight::Bdef2 { bones, weight } | Weight::Sdef { bones, weight, .. } => {
            f32::from(u8::from(is(&bones[0]))) * weight
                + f32::from(u8::from(is(&bones[1]))) * (1.0 - weight)
        }
        Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
            (0..4).filter(|&i| is(&bones[i])).map(|i| weights[i]).sum()
        }
    }
}

#[test]
fn the_selection_menu_on_gene_selects_what_is_worked_out_here() {
    let Some((model, _)) = support::gene_and_nod_motion() else {
        return;
    };
    let eye = model
        .bones
        .iter()
        .position(|bone| bone.name_ja.as_str() == "左目")
        .unwrap();
    let seed = (0..model.vertices.len())
        .find(|&v| weight_to(&model.vertices[v].weight, eye) >= 1.0)
        .expect("a vertex of the left eye");
    let eye_part = connected(&model, seed);
    assert!(eye_part.len() > 3 && eye_part.len() < model.vertices.len() / 10);
    let mut harness = harness_with(model.clone(), Language::Japanese);

    // 繋がったパーツを選択: exactly the eye's connected vertices.
    set_selection(&mut harness, ElementKind::Vertex, &[seed]);
    select_menu(&mut harness, "繋がったパーツを選択");
    assert_eq!(selected(&harness, ElementKind::Vertex), eye_part);

    // 選択範囲を拡大 / 縮小 of the part itself: nothing outside it shares a face with it.
    select_menu(&mut harness, "選択範囲を拡大");
    assert_eq!(selected(&harness, ElementKind::Vertex), eye_part);
    select_menu(&mut harness, "選択範囲を縮小");
    assert_eq!(selected(&harness, ElementKind::Vertex), eye_part);

    // From the one vertex: one ring out, then back in.
    set_selection(&mut harness, ElementKind::Vertex, &[seed]);
    select_menu(&mut harness, "選択範囲を拡大");
    let ring: BTreeSet<usize> = (0..model.faces.len())
        .map(|face| corners(&model, face))
        .filter(|c| c.contains(&seed))
        .flatten()
        .chain([seed])
        .collect();
    let ring: Vec<usize> = ring.into_iter().collect();
    assert_eq!(selected(&harness, ElementKind::Vertex), ring);
    select_menu(&mut harness, "選択範囲を縮小");
    let shrunk: Vec<usize> = ring
        .iter()
        .copied()
        .filter(|&v| {
            (0..model.faces.len())
                .map(|face| corners(&model, face))
                .filter(|c| c.contains(&v))
                .all(|c| c.iter().all(|u| ring.contains(u)))
        })
        .collect();
    assert_eq!(selected(&harness, ElementKind::Vertex), shrunk);

    // 材質で選択: every vertex of the materials drawing a face on the seed.
    set_selection(&mut harness, ElementKind::Vertex, &[seed]);
    select_menu(&mut harness, "材質で選択");
    let mut by_material = BTreeSet::from([seed]);
    let mut start = 0;
    for material in &model.materials {
        let end = start + material.face_index_count as usize / 3;
        if (start..end).any(|face| corners(&model, face).contains(&seed)) {
            by_material.extend((start..end).flat_map(|face| corners(&model, face)));
        }
        start = end;
    }
    assert_eq!(
        selected(&harness, ElementKind::Vertex),
        by_material.iter().copied().collect::<Vec<_>>()
    );

    // 選択の反転: everything else.
    select_menu(&mut harness, "選択の反転");
    let inverted: Vec<usize> = (0..model.vertices.len())
        .filter(|v| !by_material.contains(v))
        .collect();
    assert_eq!(selected(&harness, ElementKind::Vertex), inverted);

    // ウェイトで選択 (threshold 0.5): the vertices the selected bone moves more than half.
    set_selection(&mut harness, ElementKind::Bone, &[eye]);
    select_menu(&mut harness, "ウェイトで選択");
    let weighted: Vec<usize> = (0..model.vertices.len())
        .filter(|&v| weight_to(&model.vertices[v].weight, eye) > 0.5)
        .collect();
    assert_eq!(selected(&harness, ElementKind::Vertex), weighted);

    // 対称選択: a vertex gains its counterpart at exactly (−x, y, z) (the lowest index where
    // seams put several vertices there).
    let mut at: std::collections::HashMap<[u32; 3], usize> = std::collections::HashMap::new();
    for (i, vertex) in model.vertices.iter().enumerate().rev() {
        at.insert(vertex.position.to_array().map(f32::to_bits), i);
    }
    let (left, right) = (0..model.vertices.len())
        .filter(|&v| model.vertices[v].position.x > 0.01)
        .find_map(|v| {
            let p = model.vertices[v].position;
            at.get(&[-p.x, p.y, p.z].map(f32::to_bits))
                .map(|&image| (v, image))
        })
        .expect("a mirrored pair");
    set_selection(&mut harness, ElementKind::Vertex, &[left]);
    select_menu(&mut harness, "対称選択");
    assert_eq!(
        selected(&harness, ElementKind::Vertex),
        BTreeSet::from([left, right])
            .into_iter()
            .collect::<Vec<_>>()
    );

    // すべて選択 / 選択解除.
    select_menu(&mut harness, "すべて選択");
    assert_eq!(
        selected(&harness, ElementKind::Vertex).len(),
        model.vertices.len()
    );
    select_menu(&mut harness, "選択解除");
    assert!(selected(&harness, ElementKind::Vertex).is_empty());

    // No step: a selection is not an edit.
    assert_eq!(document(&harness).history.len(), 0);
    assert_eq!(document(&harness).model, model);
}
