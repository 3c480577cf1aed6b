#![allow(clippy::expect_used, clippy::unwrap_used)] // a failed expectation is the test failing
//! 絞り込み表示 through the editor: 表示 > 絞り込み表示 > 選択材質のみ表示 hides the other
//! materials, and a click where one of them was drawn then picks nothing of it (in material
//! and vertex picking); hiding and isolating never add a history step nor change the revision;
//! the UV tab draws and picks only the shown faces; すべて表示 brings everything back; the
//! hidden faces follow a structural edit and its undo as the selection does.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::{Vec2, Vec3};
use pmx_core::model::{ElementKind, Model};
use pmx_ui::EditorState;
use pmx_ui::command::Command;
use pmx_ui::i18n::Language;
use pmx_ui::panes::view::PickMode;
use pmx_ui::visibility::VisibilityAction;

mod support;
use support::{document, drag, harness_with, tab};

/// The sample figure with every vertex at its own UV (as the UV tab's tests spread them).
fn model() -> Model {
    let mut model = pmx_core::generate::sample_model();
    for (i, vertex) in model.vertices.iter_mut().enumerate() {
        vertex.uv = pmx_core::model::Vec2::new(
            ((i * 37 % 101) as f32 + 0.5) / 101.0,
            ((i * 53 % 97) as f32 + 0.5) / 97.0,
        );
    }
    model
}

/// Opens 表示 > 絞り込み表示 and clicks `entry` (English names).
fn visibility_menu(harness: &mut Harness<'_, EditorState>, entry: &str) {
    harness.get_by_label("View").click();
    harness.run_ok();
    harness.get_by_label_contains("Show and hide").click();
    harness.run_ok();
    harness.get_by_label(entry).click();
    harness.run_ok();
}

/// A click in the 3D view at world point `at`.
fn click_in_view(harness: &mut Harness<'_, EditorState>, at: Vec3) {
    let position = {
        let view = &harness.state().view;
        let rect = view.last_rect.expect("the view was drawn");
        let size = Vec2::new(rect.width(), rect.height());
        let projector = pmx_scene::camera::Projector::new(&view.camera, size);
        let (pixel, _) = projector.project(at).expect("in front of the camera");
        rect.min + egui::vec2(pixel.x, pixel.y)
    };
    harness.event(egui::Event::PointerMoved(position));
    harness.step();
    for pressed in [true, false] {
        support::button(harness, position, pressed);
    }
    harness.run_ok();
}

/// A face's centre in world space (Z mirrored).
fn face_centre(model: &Model, face: usize) -> Vec3 {
    let mut sum = Vec3::ZERO;
    for v in model.faces[face] {
        let p = model.vertices[v.0 as usize].position;
        sum += Vec3::new(p.x, p.y, -p.z);
    }
    sum / 3.0
}

/// The face of material `material` whose centre a click in the view picks as that material
/// (the front one under its centre), and the material drawn there.
fn face_picked_as_its_material(
    harness: &Harness<'_, EditorState>,
    model: &Model,
    material: usize,
) -> Option<usize> {
    let view = &harness.state().view;
    let rect = view.last_rect.unwrap();
    let size = Vec2::new(rect.width(), rect.height());
    let shown = view.shown(size);
    model.material_face_ranges()[material].clone().find(|&f| {
        let at = face_centre(model, f);
        let Some((pixel, _)) = shown.projector().project(at) else {
            return false;
        };
        shown.pick(model, PickMode::Material, pixel) == Some(material)
    })
}

#[test]
fn show_only_a_material_then_a_click_on_another_picks_nothing_of_it() {
    let model = model();
    let mut harness = harness_with(model.clone(), Language::English);
    harness.state_mut().view.pick_mode = PickMode::Material;
    harness.run_ok();
    // Two materials each with a face a click picks: keep the first, hide the second.
    let materials: Vec<usize> = (0..model.materials.len())
        .filter(|&m| face_picked_as_its_material(&harness, &model, m).is_some())
        .collect();
    assert!(materials.len() >= 2, "{materials:?}");
    let (kept, other) = (materials[0], materials[1]);
    let face = face_picked_as_its_material(&harness, &model, other).unwrap();
    harness
        .state_mut()
        .document
        .as_mut()
        .unwrap()
        .selection
        .get_mut(ElementKind::Material)
        .select_only(kept);
    harness.run_ok();
    let revision = document(&harness).revision();
    visibility_menu(&mut harness, "Show only the selected materials");
    let visibility = &document(&harness).visibility;
    assert_eq!(
        visibility.hidden_materials.to_vec(),
        (0..model.materials.len())
            .filter(|&m| m != kept)
            .collect::<Vec<_>>()
    );
    assert_eq!(document(&harness).history.len(), 0, "no history step");
    assert_eq!(
        document(&harness).revision(),
        revision,
        "the revision stays"
    );
    // The frame leaves the hidden materials out.
    let frame = harness
        .state()
        .view
        .frame(&model, &Default::default(), Vec2::new(800.0, 600.0));
    assert!(!frame.materials[other].visible);
    assert!(frame.materials[kept].visible);

    // A click where `other` was drawn: it is not picked (as material, nor its vertices).
    click_in_view(&mut harness, face_centre(&model, face));
    let picked = document(&harness)
        .selection
        .get(ElementKind::Material)
        .targets();
    assert!(!picked.contains(&other), "{picked:?}");
    harness.state_mut().view.pick_mode = PickMode::Vertex;
    harness.run_ok();
    for v in model.faces[face] {
        let p = model.vertices[v.0 as usize].position;
        click_in_view(&mut harness, Vec3::new(p.x, p.y, -p.z));
        let picked = document(&harness)
            .selection
            .get(ElementKind::Vertex)
            .targets();
        let shown_vertex = picked.iter().all(|&v| {
            let shown = document(&harness).visibility.shown(&model).unwrap();
            shown.vertex(v)
        });
        assert!(shown_vertex, "a hidden vertex was picked: {picked:?}");
    }

    // すべて表示: the other material is picked again.
    visibility_menu(&mut harness, "Show all");
    assert!(document(&harness).visibility.shows_everything());
    harness.state_mut().view.pick_mode = PickMode::Material;
    harness.run_ok();
    click_in_view(&mut harness, face_centre(&model, face));
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Material)
            .targets(),
        vec![other]
    );
    assert_eq!(document(&harness).history.len(), 0);
    assert_eq!(document(&harness).revision(), revision);
}

#[test]
fn isolate_and_hide_are_no_edits_and_follow_structural_edits() {
    let model = model();
    let mut harness = harness_with(model.clone(), Language::English);
    {
        let document = harness.state_mut().document.as_mut().unwrap();
        let faces = document.selection.get_mut(ElementKind::Face);
        for f in [3, 4, 5] {
            faces.indices.insert(f);
        }
    }
    harness.state_mut().view.pick_mode = PickMode::Face;
    harness.run_ok();
    let revision = document(&harness).revision();
    visibility_menu(&mut harness, "Show only the selection");
    let shown = document(&harness).visibility.shown(&model).unwrap();
    assert_eq!(
        (0..model.faces.len())
            .filter(|&f| shown.face(f))
            .collect::<Vec<_>>(),
        vec![3, 4, 5]
    );
    push(
        &mut harness,
        Command::Visibility(VisibilityAction::HideSelected(ElementKind::Face)),
    );
    harness.run_ok();
    assert!(document(&harness).visibility.hidden_faces.len() == model.faces.len());
    assert_eq!(document(&harness).history.len(), 0, "no history step");
    assert_eq!(
        document(&harness).revision(),
        revision,
        "the revision stays"
    );

    // Deleting face 0 moves the hidden faces down by one; undo puts them back.
    push(&mut harness, Command::Visibility(VisibilityAction::ShowAll));
    harness.run_ok();
    {
        let document = harness.state_mut().document.as_mut().unwrap();
        document.visibility.hidden_faces.insert(7);
        let edit = pmx_core::edit::Edit::delete(&document.model, ElementKind::Face, &[0]).unwrap();
        document.apply(edit);
        assert_eq!(document.visibility.hidden_faces.to_vec(), vec![6]);
        document.undo();
        assert_eq!(document.visibility.hidden_faces.to_vec(), vec![7]);
    }
}

/// Queues `command` as a menu would.
fn push(harness: &mut Harness<'_, EditorState>, command: Command) {
    harness.state_mut().push(command);
}

#[test]
fn the_uv_tab_draws_and_picks_only_the_shown_faces() {
    let model = model();
    let mut harness = harness_with(model.clone(), Language::English);
    tab(&mut harness, "UV");
    // Hide material 0: a rectangle over the whole square then takes only the vertices of the
    // other materials' faces.
    harness
        .state_mut()
        .document
        .as_mut()
        .unwrap()
        .selection
        .get_mut(ElementKind::Material)
        .select_only(0);
    push(
        &mut harness,
        Command::Visibility(VisibilityAction::HideSelectedMaterials),
    );
    harness.run_ok();
    // The tab shows every material again when none is selected.
    harness
        .state_mut()
        .document
        .as_mut()
        .unwrap()
        .selection
        .get_mut(ElementKind::Material)
        .clear();
    harness.run_ok();
    let uv = &harness.state().uv;
    let rect = uv.last_rect.expect("the UV tab was drawn");
    let from = uv.camera.to_screen(rect, Vec2::new(-0.01, -0.01));
    let to = uv.camera.to_screen(rect, Vec2::new(1.01, 1.01));
    drag(&mut harness, from, to, 6);
    let ranges = model.material_face_ranges();
    let mut expected: Vec<usize> = model.faces[ranges[0].end..]
        .iter()
        .flat_map(|f| f.iter().map(|v| v.0 as usize))
        .collect();
    expected.sort_unstable();
    expected.dedup();
    assert!(!expected.is_empty());
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Vertex)
            .indices
            .to_vec(),
        expected
    );
    assert_eq!(document(&harness).history.len(), 0);
}
