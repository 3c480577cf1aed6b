#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The 3D view's right-click menu and Delete over the view (issue 38):
//! - a right click (no drag) opens the menu; its 削除 deletes exactly the selected vertices and
//!   the faces that use them, as one undo step the validator finds no new error in, the
//!   selection empty afterwards; undo gives the model back exactly;
//! - the Delete key with the pointer over the view does the same;
//! - the menu names the material under the pointer; choosing it selects it;
//! - ここを回転の中心に puts the orbit centre on the surface point under the pointer.

mod support;
#[path = "support/view_edit.rs"]
mod view_edit;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::model::{ElementKind, Model};
use pmx_ui::EditorState;
use pmx_ui::i18n::Language;
use support::{document, harness_with};
use view_edit::{assert_no_new_errors, click_view, on_screen, view_size};

/// The sample model with `vertices` selected in the view (vertex picking).
fn with_selection(vertices: &[usize]) -> (Model, Harness<'static, EditorState>) {
    let model = pmx_core::generate::sample_model();
    let mut harness = harness_with(model.clone(), Language::Japanese);
    {
        let editor = harness.state_mut();
        let selection = editor
            .document
            .as_mut()
            .unwrap()
            .selection
            .get_mut(ElementKind::Vertex);
        for &v in vertices {
            selection.indices.insert(v);
        }
        selection.current = vertices.first().copied();
    }
    harness.run_ok();
    (model, harness)
}

/// Two vertices of the sample model's first faces.
fn chosen(model: &Model) -> Vec<usize> {
    let a = model.faces[0][0].0 as usize;
    let b = model.faces[3][2].0 as usize;
    let mut chosen = vec![a, b];
    chosen.sort_unstable();
    chosen.dedup();
    chosen
}

/// The model without `deleted` vertices and every face that uses one, worked out by element.
fn checks_deletion(before: &Model, after: &Model, deleted: &[usize]) {
    let kept: Vec<usize> = (0..before.vertices.len())
        .filter(|v| !deleted.contains(v))
        .collect();
    assert_eq!(after.vertices.len(), kept.len());
    for (new, &old) in kept.iter().enumerate() {
        assert_eq!(after.vertices[new], before.vertices[old], "vertex {old}");
    }
    let renumbered = |old: u32| kept.binary_search(&(old as usize)).unwrap() as u32;
    let faces: Vec<[u32; 3]> = before
        .faces
        .iter()
        .filter(|f| f.iter().all(|v| !deleted.contains(&(v.0 as usize))))
        .map(|f| [renumbered(f[0].0), renumbered(f[1].0), renumbered(f[2].0)])
        .collect();
    let after_faces: Vec<[u32; 3]> = after
        .faces
        .iter()
        .map(|f| [f[0].0, f[1].0, f[2].0])
        .collect();
    assert_eq!(after_faces, faces);
    assert!(faces.len() < before.faces.len(), "faces used the vertices");
    assert_no_new_errors(before, after);
}

fn undo_gives_the_model_back(harness: &mut Harness<'_, EditorState>, original: &Model) {
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(
        document(harness).model == *original,
        "undo restores the model exactly"
    );
}

#[test]
fn the_menus_delete_takes_the_selected_vertices_and_their_faces_as_one_step() {
    let original = pmx_core::generate::sample_model();
    let deleted = chosen(&original);
    let (original, mut harness) = with_selection(&deleted);
    let centre = view_size(&harness) * 0.5;
    click_view(&mut harness, centre, egui::PointerButton::Secondary);
    harness.get_by_label("削除").click();
    harness.run_ok();
    let after = document(&harness);
    checks_deletion(&original, &after.model, &deleted);
    assert_eq!(after.history.len(), 1, "one undo step");
    assert!(after.selection.get(ElementKind::Vertex).indices.is_empty());
    assert!(
        harness.query_by_label("ここにボーンを追加").is_none(),
        "the menu closed"
    );
    undo_gives_the_model_back(&mut harness, &original);
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Vertex)
            .indices
            .to_vec(),
        deleted,
        "undo selects them again"
    );
}

#[test]
fn delete_with_the_pointer_over_the_view_deletes_the_views_selection() {
    let original = pmx_core::generate::sample_model();
    let deleted = chosen(&original);
    let (original, mut harness) = with_selection(&deleted);
    let centre = on_screen(&harness, view_size(&harness) * 0.5);
    harness.event(egui::Event::PointerMoved(centre));
    harness.run_ok();
    harness.key_press(egui::Key::Delete);
    harness.run_ok();
    checks_deletion(&original, &document(&harness).model, &deleted);
    assert_eq!(document(&harness).history.len(), 1);
    undo_gives_the_model_back(&mut harness, &original);
}

#[test]
fn the_menu_names_the_material_under_the_pointer_and_centres_the_orbit_there() {
    let original = pmx_core::generate::sample_model();
    let (_, mut harness) = with_selection(&[]);
    // The pixel of a face's centre, and the material drawing it, worked out here.
    let size = view_size(&harness);
    let camera = harness.state().view.camera;
    let projector = pmx_ui::panes::view::camera::Projector::new(&camera, size);
    let (face, pixel) = (0..original.faces.len())
        .find_map(|f| {
            let centre = original.faces[f]
                .iter()
                .map(|v| {
                    pmx_ui::panes::view::camera::to_world(original.vertices[v.0 as usize].position)
                })
                .sum::<glam::Vec3>()
                / 3.0;
            let (pixel, _) = projector.project(centre)?;
            let front = harness.state().view.pick(&original, pixel, size).is_some();
            (front && pixel.cmpgt(glam::Vec2::splat(20.0)).all() && pixel.cmplt(size - 20.0).all())
                .then_some((f, pixel))
        })
        .expect("a face in view");
    let positions: Vec<glam::Vec3> = original
        .vertices
        .iter()
        .map(|v| pmx_ui::panes::view::camera::to_world(v.position))
        .collect();
    let faces: Vec<[u32; 3]> = original
        .faces
        .iter()
        .map(|f| [f[0].0, f[1].0, f[2].0])
        .collect();
    let ray = camera.ray(pixel, size);
    let (front_face, t) = pmx_ui::panes::view::pick::pick_face(&ray, &positions, &faces).unwrap();
    let material = original.material_of_face(front_face).unwrap();
    let _ = face;
    let name = original.materials[material].name_ja.as_str().into_owned();
    click_view(&mut harness, pixel, egui::PointerButton::Secondary);
    harness.get_by_label(&format!("材質: {name}")).click();
    harness.run_ok();
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Material)
            .indices
            .to_vec(),
        vec![material]
    );
    assert_eq!(
        harness.state().view.pick_mode,
        pmx_ui::panes::view::PickMode::Material
    );
    click_view(&mut harness, pixel, egui::PointerButton::Secondary);
    harness.get_by_label("ここを回転の中心に").click();
    harness.run_ok();
    let target = harness.state().view.camera.target;
    assert!(
        (target - ray.at(t)).length() < 1.0e-3,
        "{target} vs {}",
        ray.at(t)
    );
    assert_eq!(document(&harness).history.len(), 0, "nothing was edited");
}

/// The vertices sharing a face with `seeds`, repeated until nothing joins: the faces-connected
/// part, worked out here by brute force over the faces.
fn connected_part(model: &Model, seeds: &[usize]) -> Vec<usize> {
    let mut part: std::collections::BTreeSet<usize> = seeds.iter().copied().collect();
    loop {
        let before = part.len();
        for face in &model.faces {
            if face.iter().any(|v| part.contains(&(v.0 as usize))) {
                part.extend(face.iter().map(|v| v.0 as usize));
            }
        }
        if part.len() == before {
            return part.into_iter().collect();
        }
    }
}

#[test]
fn the_menus_hide_and_linked_entries_act_on_the_selection_without_a_step() {
    let original = pmx_core::generate::sample_model();
    let seed = original.faces[0][0].0 as usize;
    let (_, mut harness) = with_selection(&[seed]);
    let centre = view_size(&harness) * 0.5;
    click_view(&mut harness, centre, egui::PointerButton::Secondary);
    harness.get_by_label("繋がったパーツを選択").click();
    harness.run_ok();
    let expected = connected_part(&original, &[seed]);
    assert!(expected.len() > 3, "the part is more than one face");
    let selected = document(&harness)
        .selection
        .get(ElementKind::Vertex)
        .indices
        .to_vec();
    assert_eq!(selected, expected, "the connected part, vertex by vertex");
    click_view(&mut harness, centre, egui::PointerButton::Secondary);
    harness.get_by_label("選択頂点/面を非表示").click();
    harness.run_ok();
    let document = document(&harness);
    for &v in &expected {
        assert!(
            document.visibility.hidden_vertices.contains(v),
            "vertex {v} hidden"
        );
    }
    assert!(document.history.is_empty(), "show and hide are no edit");
    assert!(document.model == original);
}

#[test]
fn the_selection_keys_act_on_the_views_selection_while_the_pointer_is_over_it() {
    let original = pmx_core::generate::sample_model();
    let seed = original.faces[0][0].0 as usize;
    let (_, mut harness) = with_selection(&[seed]);
    let centre = on_screen(&harness, view_size(&harness) * 0.5);
    harness.event(egui::Event::PointerMoved(centre));
    harness.run_ok();
    let selected = |harness: &Harness<'_, EditorState>| {
        document(harness)
            .selection
            .get(ElementKind::Vertex)
            .indices
            .to_vec()
    };
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::L);
    harness.run_ok();
    let part = connected_part(&original, &[seed]);
    assert_eq!(selected(&harness), part, "Ctrl+L: the connected part");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::I);
    harness.run_ok();
    let rest: Vec<usize> = (0..original.vertices.len())
        .filter(|v| !part.contains(v))
        .collect();
    assert_eq!(selected(&harness), rest, "Ctrl+I: every other vertex");
    harness.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::A,
    );
    harness.run_ok();
    assert!(selected(&harness).is_empty(), "Ctrl+Shift+A: none");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.run_ok();
    assert_eq!(selected(&harness).len(), original.vertices.len(), "Ctrl+A");
    assert!(
        document(&harness).history.is_empty(),
        "selection is no edit"
    );
}
