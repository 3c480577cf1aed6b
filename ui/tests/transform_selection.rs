#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Modelling edits through the real editor keep the data whole and the selection true:
//! - turning vertices with the 回転 row and with the gizmo's ring turns their normals with them,
//!   is one step named for what it did, and the saved file holds the turned normals;
//! - a tool that renumbers bones (準標準ボーン追加), and its undo, leave exactly the bones the
//!   user selected selected (checked by name, never by index);
//! - deleting the selected vertices leaves nothing selected and no gizmo.

mod support;

use egui_kittest::Harness;
use glam::{Quat, Vec3};
use pmx_core::generate::sample_model;
use pmx_core::model::{ElementKind, Model};
use pmx_ui::EditorState;
use pmx_ui::command::Command;
use pmx_ui::document::Document;
use pmx_ui::i18n::Language;
use support::{click, document, harness_with, wait_for_label};

fn g(v: pmx_core::model::Vec3) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

fn select(harness: &mut Harness<'_, EditorState>, kind: ElementKind, indices: &[usize]) {
    let selection = harness
        .state_mut()
        .document
        .as_mut()
        .unwrap()
        .selection
        .get_mut(kind);
    selection.clear();
    for &i in indices {
        selection.indices.insert(i);
    }
    selection.current = indices.first().copied();
    harness.run_ok();
}

/// The vertices of the sample's first material (a part with normals pointing every way).
fn some_vertices(model: &Model) -> Vec<usize> {
    let range = model.material_face_ranges()[0].clone();
    let mut vertices: Vec<usize> = model.faces[range]
        .iter()
        .flat_map(|f| f.iter().map(|v| v.get()))
        .collect();
    vertices.sort_unstable();
    vertices.dedup();
    vertices
}

/// Checks that every vertex of `indices` turned by `rotation` about `pivot`, its normal with
/// it (within 1e-5), and that no other vertex changed.
fn assert_turned(before: &Model, after: &Model, indices: &[usize], rotation: Quat, pivot: Vec3) {
    for (i, (a, b)) in before.vertices.iter().zip(&after.vertices).enumerate() {
        if indices.binary_search(&i).is_ok() {
            let expected = pivot + rotation * (g(a.position) - pivot);
            assert!(
                (g(b.position) - expected).length() < 1e-4,
                "vertex {i}: {:?}, expected {expected:?}",
                b.position
            );
            let normal = rotation * g(a.normal);
            assert!(
                (g(b.normal) - normal).length() < 1e-5,
                "normal of vertex {i}: {:?}, expected {normal:?}",
                b.normal
            );
        } else {
            assert_eq!(a, b, "vertex {i} was not selected");
        }
    }
}

#[test]
fn the_rotate_row_turns_positions_and_normals_and_the_saved_file_has_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sample.pmx");
    let original = sample_model();
    pmx_core::formats::save_path(&original, &path, &Default::default()).unwrap();
    let mut harness = harness_with(original.clone(), Language::English);
    {
        let editor = harness.state_mut();
        let mut document = Document::from_model(original.clone(), Some(path.clone()), None);
        document.selection = Default::default();
        editor.open_document(document);
    }
    harness.run_ok();
    let vertices = some_vertices(&original);
    select(&mut harness, ElementKind::Vertex, &vertices);
    let pivot =
        pmx_ui::panes::view::transform::selection_centre(document(&harness), ElementKind::Vertex)
            .unwrap();
    harness.state_mut().view.transform.rotate_degrees = Vec3::new(0.0, 0.0, 90.0);
    harness.run_ok();
    click(&mut harness, "Apply rotation");
    let rotation = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    assert_turned(
        &original,
        &document(&harness).model,
        &vertices,
        rotation,
        pivot,
    );
    assert_eq!(
        document(&harness).history.undo_label(),
        Some(format!("Rotate {} vertices", vertices.len()).as_str())
    );
    // Saved: the file holds the turned normals (what MikuMikuDance would shade).
    harness.state_mut().push(Command::Save);
    harness.run_ok();
    assert!(!document(&harness).is_dirty());
    let saved = pmx_core::formats::load_path(&path, &Default::default())
        .unwrap()
        .model;
    assert_turned(&original, &saved, &vertices, rotation, pivot);
    // Undo gives back exactly what was there.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(document(&harness).model == original);
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Vertex)
            .targets(),
        vertices,
        "the selection stays on its vertices"
    );
}

#[test]
fn the_gizmo_ring_turns_normals_with_positions_as_one_step() {
    let original = sample_model();
    let mut harness = harness_with(original.clone(), Language::English);
    let vertices = some_vertices(&original);
    select(&mut harness, ElementKind::Vertex, &vertices);
    harness.state_mut().view.gizmo.mode = pmx_ui::panes::view::gizmo::GizmoMode::Rotate;
    harness.run_ok();
    {
        let editor = harness.state_mut();
        let document = editor.document.as_ref().unwrap();
        editor.view.frame_selection(document);
    }
    harness.run_ok();
    let pivot =
        pmx_ui::panes::view::transform::selection_centre(document(&harness), ElementKind::Vertex)
            .unwrap();
    let (rect, ring) = {
        let editor = harness.state_mut();
        let rect = editor.view.last_rect.expect("the view was drawn");
        let size = glam::Vec2::new(rect.width(), rect.height());
        let layout = pmx_ui::panes::view::gizmo::Layout::new(&editor.view.camera, size, pivot)
            .expect("the selection is in front of the camera");
        // The Z ring faces the front camera: a circle on screen.
        (rect, layout.rings[2].clone())
    };
    let at = |k: usize| {
        let p = ring[k % (ring.len() - 1)];
        rect.min + egui::vec2(p.x, p.y)
    };
    // Between the axes' ends, where the X and Y rings (seen edge on) do not cross the Z ring.
    harness.event(egui::Event::PointerMoved(at(6)));
    harness.step();
    harness.event(egui::Event::PointerButton {
        pos: at(6),
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: egui::Modifiers::NONE,
    });
    harness.step();
    for k in [7, 8, 9, 10] {
        harness.event(egui::Event::PointerMoved(at(k)));
        harness.step();
    }
    harness.event(egui::Event::PointerButton {
        pos: at(10),
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: egui::Modifiers::NONE,
    });
    harness.run_ok();
    let document = document(&harness);
    assert_eq!(document.history.len(), 1, "one drag, one undo step");
    assert_eq!(
        document.history.undo_label(),
        Some(format!("Rotate {} vertices", vertices.len()).as_str())
    );
    // The turn the positions took (about the pivot, about Z): the normals took the same.
    let v = vertices
        .iter()
        .copied()
        .find(|&v| {
            (g(original.vertices[v].position) - pivot)
                .truncate()
                .length()
                > 0.1
        })
        .unwrap();
    let a = (g(original.vertices[v].position) - pivot).truncate();
    let b = (g(document.model.vertices[v].position) - pivot).truncate();
    let angle = a.perp_dot(b).atan2(a.dot(b));
    assert!(
        angle.abs() > 0.1,
        "the drag turned the selection ({angle} rad)"
    );
    assert_turned(
        &original,
        &document.model,
        &vertices,
        Quat::from_rotation_z(angle),
        pivot,
    );
}

fn bone_names(model: &Model, indices: &[usize]) -> Vec<String> {
    indices
        .iter()
        .map(|&i| model.bones[i].name_ja.as_str().to_string())
        .collect()
}

fn selected_bone_names(harness: &Harness<'_, EditorState>) -> Vec<String> {
    let document = document(harness);
    let mut names = bone_names(
        &document.model,
        &document.selection.get(ElementKind::Bone).targets(),
    );
    names.sort();
    names
}

#[test]
fn semi_standard_bones_and_its_undo_keep_exactly_the_selected_bones() {
    let original = sample_model();
    let mut harness = harness_with(original.clone(), Language::English);
    let chosen: Vec<usize> = ["上半身", "左腕", "右足"]
        .iter()
        .map(|name| {
            original
                .bones
                .iter()
                .position(|b| b.name_ja.as_str() == *name)
                .unwrap_or_else(|| panic!("the sample has {name}"))
        })
        .collect();
    select(&mut harness, ElementKind::Bone, &chosen);
    let mut expected = bone_names(&original, &chosen);
    expected.sort();
    assert_eq!(selected_bone_names(&harness), expected);
    // ツール > ボーン > 準標準ボーン追加… (the menu's command; "Bones" also names a tab).
    harness
        .state_mut()
        .push(Command::ShowPlugin("semi_standard_bones".into()));
    harness.run_ok();
    click(&mut harness, "Apply");
    // The tool runs off the UI thread, and its name is also the dialog's title: wait for its
    // bones, not for the label (on a loaded machine the label shows long before the edit).
    let started = std::time::Instant::now();
    while document(&harness).model.bones.len() == original.bones.len() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "the tool added no bones"
        );
        harness.step();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    harness.run_ok();
    wait_for_label(&mut harness, "Add semi-standard bones");
    let added = document(&harness).model.bones.len() - original.bones.len();
    assert!(added > 0, "the tool added bones");
    assert_eq!(
        selected_bone_names(&harness),
        expected,
        "after the tool: the same bones, none of the new ones"
    );
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(document(&harness).model == original, "undo restores");
    assert_eq!(
        selected_bone_names(&harness),
        expected,
        "after undo: the same bones, nothing that was never selected"
    );
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Y);
    harness.run_ok();
    assert_eq!(selected_bone_names(&harness), expected, "after redo");
}

#[test]
fn deleting_the_selected_vertices_leaves_nothing_selected_and_no_gizmo() {
    let original = sample_model();
    let mut harness = harness_with(original.clone(), Language::English);
    let vertices = some_vertices(&original);
    select(&mut harness, ElementKind::Vertex, &vertices);
    harness.state_mut().view.gizmo.mode = pmx_ui::panes::view::gizmo::GizmoMode::Move;
    harness
        .state_mut()
        .push(Command::ops(vec![pmx_core::edit::EditOp::Delete {
            kind: ElementKind::Vertex,
            indices: vertices.clone(),
            remove_unused_vertices: false,
        }]));
    harness.run_ok();
    let document_now = document(&harness);
    assert_eq!(
        document_now.model.vertices.len(),
        original.vertices.len() - vertices.len()
    );
    let selection = document_now.selection.get(ElementKind::Vertex);
    assert_eq!(selection.targets(), Vec::<usize>::new());
    assert_eq!(selection.current, None);
    assert!(
        pmx_ui::panes::view::transform::selection_centre(document_now, ElementKind::Vertex)
            .is_none(),
        "no selection, no gizmo"
    );
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(document(&harness).model == original);
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Vertex)
            .targets(),
        vertices,
        "undo selects the deleted vertices again"
    );
}
