//! モーフ編集 and the モーフ tab's preview through the real editor, as a user makes an
//! expression: morph edit mode switched on in the view's toolbar, a new vertex morph 笑い2 made
//! in its row, vertices on the figure's left side dragged with the gizmo (X mirror on), the
//! result previewed at half strength with the モーフ tab's slider, then undone.
//!
//! What is checked, by element: the base mesh never changes; the morph holds exactly the drag
//! (the selected vertices by the move, their mirror images by its mirror, nothing else); the
//! drag is one undo step named "モーフ「笑い2」の頂点N個を移動"; the view draws the vertices at
//! `base + offset` while editing, at `base + offset / 2` when previewed at 0.5 and at rest after;
//! the validator finds nothing new; undo gives the model back exactly.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::{Vec2, Vec3};
use pmx_core::model::{ElementKind, Model, MorphOffsets};
use pmx_ui::EditorState;
use pmx_ui::i18n::Language;
use pmx_ui::panes::view::gizmo::GizmoMode;

mod support;
use support::{button, click, document, harness_with, tab};

fn error_count(model: &Model) -> usize {
    pmx_core::validate::check(model, None, &Default::default())
        .iter()
        .filter(|issue| issue.severity == pmx_core::validate::Severity::Error)
        .count()
}

fn position(model: &Model, v: usize) -> Vec3 {
    Vec3::from(model.vertices[v].position)
}

/// Where the view draws vertex `v` (model space).
fn drawn(harness: &Harness<'_, EditorState>, v: usize) -> Vec3 {
    let editor = harness.state();
    let world = editor
        .view
        .drawn_vertex(&editor.document.as_ref().unwrap().model, v)
        .unwrap();
    Vec3::new(world.x, world.y, -world.z)
}

/// Drags the gizmo's X arrow `pixels` to the right on screen, as a user does.
fn drag_x_arrow(harness: &mut Harness<'_, EditorState>, pixels: f32) {
    let (rect, layout) = {
        let editor = harness.state();
        let rect = editor.view.last_rect.expect("the view was drawn");
        let layout = editor
            .view
            .gizmo_layout
            .clone()
            .expect("the gizmo is shown");
        (rect, layout)
    };
    let along = (layout.tips[0].unwrap() - layout.centre).normalize();
    let grab = layout.centre + along * layout.length * 0.7;
    let screen = |p: Vec2| rect.min + egui::vec2(p.x, p.y);
    harness.event(egui::Event::PointerMoved(screen(grab)));
    harness.step();
    button(harness, screen(grab), true);
    let mut at = grab;
    for step in 1..=5 {
        at = grab + along * (pixels * step as f32 / 5.0);
        harness.event(egui::Event::PointerMoved(screen(at)));
        harness.step();
    }
    button(harness, screen(at), false);
    harness.run_ok();
}

#[test]
fn a_new_morph_shaped_by_a_mirrored_gizmo_drag_previews_and_undoes_exactly() {
    let original = pmx_core::generate::sample_model();
    let errors_before = error_count(&original);
    let mut harness = harness_with(original.clone(), Language::Japanese);

    // The mode on, a new morph made in its row.
    click(&mut harness, "モーフ編集");
    assert!(harness.state().view.morph_edit.active);
    harness
        .get_by_role_and_label(Role::TextInput, "新規モーフ")
        .focus();
    harness.run_ok();
    harness
        .get_by_role_and_label(Role::TextInput, "新規モーフ")
        .type_text("笑い2");
    harness.run_ok();
    click(&mut harness, "新規作成");
    let made = document(&harness);
    let morph = made.model.morphs.len() - 1;
    assert_eq!(made.model.morphs[morph].name_ja.as_str(), "笑い2");
    assert_eq!(
        made.selection.get(ElementKind::Morph).current,
        Some(morph),
        "the new morph is the one edited"
    );
    assert_eq!(made.history.len(), 1);

    // Vertices on the figure's left (+X) above the waist, chosen by where they are.
    let left: Vec<usize> = (0..original.vertices.len())
        .filter(|&v| {
            let p = position(&original, v);
            p.x > 0.5 && p.y > 10.0
        })
        .take(40)
        .collect();
    assert!(left.len() >= 4);
    {
        let editor = harness.state_mut();
        let document = editor.document.as_mut().unwrap();
        let selection = document.selection.get_mut(ElementKind::Vertex);
        selection.clear();
        left.iter().for_each(|&v| selection.indices.insert(v));
        selection.current = left.first().copied();
        editor.view.gizmo.mode = GizmoMode::Move;
        editor.view.transform.mirror_x = true;
        let document = editor.document.as_ref().unwrap();
        editor.view.frame_selection(document);
    }
    harness.run_ok();
    drag_x_arrow(&mut harness, 40.0);

    let edited = document(&harness);
    let model = &edited.model;
    assert_eq!(edited.history.len(), 2, "the drag is one undo step");
    assert_eq!(
        model.vertices, original.vertices,
        "the base mesh is untouched"
    );
    let MorphOffsets::Vertex(offsets) = &model.morphs[morph].offsets else {
        panic!("a vertex morph");
    };
    let by_vertex: std::collections::HashMap<usize, Vec3> = offsets
        .iter()
        .map(|o| (o.vertex.get(), Vec3::from(o.offset)))
        .collect();
    let moved = by_vertex[&left[0]];
    assert!(moved.x > 0.05, "moved along +X: {moved:?}");
    assert!(moved.y.abs() < 1e-4 && moved.z.abs() < 1e-4, "{moved:?}");
    // Every vertex drawn where a selected one's mirror image is (seams have several).
    let mirrored: Vec<usize> = (0..original.vertices.len())
        .filter(|&m| {
            let p = position(&original, m);
            left.iter()
                .any(|&v| position(&original, v).distance(Vec3::new(-p.x, p.y, p.z)) < 1e-4)
        })
        .collect();
    assert!(mirrored.len() >= left.len());
    for &v in &left {
        assert!((by_vertex[&v] - moved).length() < 1e-5, "vertex {v}");
    }
    for &m in &mirrored {
        let expected = Vec3::new(-moved.x, moved.y, moved.z);
        assert!(
            (by_vertex[&m] - expected).length() < 1e-5,
            "mirror image {m}"
        );
    }
    assert_eq!(
        by_vertex.len(),
        left.len() + mirrored.len(),
        "nothing else is in the morph"
    );
    assert_eq!(
        edited
            .history
            .undo_edit_label()
            .unwrap()
            .render(Language::Japanese),
        format!("モーフ「笑い2」の頂点{}個を移動", by_vertex.len())
    );
    assert!(
        error_count(model) <= errors_before,
        "no new validator error"
    );
    // The view draws the morph at 1 while editing.
    let v = left[0];
    assert!((drawn(&harness, v) - (position(&original, v) + moved)).length() < 1e-4);

    // Leaving the mode: the view is back at rest, the model as it was edited.
    click(&mut harness, "モーフ編集");
    assert!(!harness.state().view.morph_edit.active);
    assert!((drawn(&harness, v) - position(&original, v)).length() < 1e-5);

    // The モーフ tab's slider previews it at 0.5: drawn halfway, the document unchanged.
    let revision = document(&harness).revision();
    tab(&mut harness, "モーフ");
    harness
        .get_by_role_and_label(Role::Slider, "プレビュー")
        .set_value_accesskit(0.5);
    harness.run_ok();
    assert!(
        (drawn(&harness, v) - (position(&original, v) + moved * 0.5)).length() < 1e-4,
        "previewed at half strength"
    );
    assert_eq!(
        document(&harness).revision(),
        revision,
        "a preview is no edit"
    );
    click(&mut harness, "プレビューをすべて0に");
    assert!((drawn(&harness, v) - position(&original, v)).length() < 1e-5);

    // Undo twice: exactly the model that was opened.
    for _ in 0..2 {
        harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
        harness.run_ok();
    }
    assert!(
        document(&harness).model == original,
        "undo gives back exactly"
    );
}

#[test]
fn a_grab_stroke_moves_the_vertices_under_the_brush_into_the_morph_only() {
    let original = pmx_core::generate::sample_model();
    let mut harness = harness_with(original.clone(), Language::English);
    click(&mut harness, "Morph edit");
    click(&mut harness, "New");
    let morph = document(&harness).model.morphs.len() - 1;
    {
        let editor = harness.state_mut();
        editor.view.morph_edit.sculpt.on = true;
        editor.view.morph_edit.sculpt.radius = 30.0;
        editor.view.morph_edit.sculpt.strength = 1.0;
    }
    harness.run_ok();
    // A vertex on the figure's front (its normal towards the camera, −Z) near the middle.
    let front = (0..original.vertices.len())
        .filter(|&v| original.vertices[v].normal.z < -0.9 && position(&original, v).x.abs() < 0.5)
        .max_by(|&a, &b| {
            position(&original, a)
                .y
                .total_cmp(&position(&original, b).y)
        })
        .expect("a front-facing vertex");
    let target = position(&original, front);
    harness
        .state_mut()
        .view
        .camera
        .frame(Vec3::new(target.x, target.y, -target.z), 3.0);
    harness.run_ok();
    let from = {
        let view = &harness.state().view;
        let rect = view.last_rect.unwrap();
        let size = Vec2::new(rect.width(), rect.height());
        let projector = pmx_scene::camera::Projector::new(&view.camera, size);
        let (pixel, _) = projector
            .project(Vec3::new(target.x, target.y, -target.z))
            .unwrap();
        rect.min + egui::vec2(pixel.x, pixel.y)
    };
    harness.event(egui::Event::PointerMoved(from));
    harness.step();
    button(&mut harness, from, true);
    let mut at = from;
    for step in 1..=4 {
        at = from + egui::vec2(0.0, -6.0 * step as f32);
        harness.event(egui::Event::PointerMoved(at));
        harness.step();
    }
    button(&mut harness, at, false);
    harness.run_ok();

    let edited = document(&harness);
    assert_eq!(
        edited.model.vertices, original.vertices,
        "the base is untouched"
    );
    let MorphOffsets::Vertex(offsets) = &edited.model.morphs[morph].offsets else {
        panic!("a vertex morph");
    };
    assert!(!offsets.is_empty(), "the stroke caught vertices");
    // Dragged up the screen with the front camera: the offsets point up, the most at the
    // brush's centre.
    for offset in offsets {
        let o = Vec3::from(offset.offset);
        assert!(o.y > 0.0 && o.x.abs() < 1e-4, "{o:?}");
    }
    assert_eq!(edited.history.len(), 2, "the new morph, then one stroke");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    let MorphOffsets::Vertex(offsets) = &document(&harness).model.morphs[morph].offsets else {
        panic!("a vertex morph");
    };
    assert!(offsets.is_empty(), "undo takes the stroke back");
}

/// The sample figure with a まばたき (blink) vertex morph on its head: every head vertex, both
/// sides and the centre band, moved down by its own amount.
fn with_blink() -> (Model, usize) {
    use pmx_core::model::{Morph, MorphPanel, VertexIdx, VertexMorphOffset};
    let mut model = pmx_core::generate::sample_model();
    let head: Vec<usize> = (0..model.vertices.len())
        .filter(|&v| position(&model, v).y > 16.0)
        .collect();
    assert!(head.len() > 20);
    let offsets = head
        .iter()
        .enumerate()
        .map(|(k, &v)| VertexMorphOffset {
            vertex: VertexIdx::new(v),
            offset: pmx_core::model::Vec3::new(0.01 * (k % 3) as f32, -0.1 - 0.001 * k as f32, 0.0),
        })
        .collect();
    model.morphs.push(Morph {
        name_ja: "まばたき".into(),
        name_en: "blink".into(),
        panel: MorphPanel::Eye,
        offsets: MorphOffsets::Vertex(offsets),
    });
    let blink = model.morphs.len() - 1;
    (model, blink)
}

#[test]
fn splitting_mabataki_from_the_tools_menu_gives_halves_that_add_up_and_undoes_exactly() {
    let (original, blink) = with_blink();
    let errors_before = error_count(&original);
    let mut harness = harness_with(original.clone(), Language::Japanese);
    harness
        .state_mut()
        .document
        .as_mut()
        .unwrap()
        .selection
        .get_mut(ElementKind::Morph)
        .select_only(blink);
    harness.run_ok();
    click(&mut harness, "ツール");
    // The menu's group (a tab and a column share its name; the open menu comes first).
    harness.query_all_by_label("モーフ").next().unwrap().click();
    harness.run_ok();
    click(&mut harness, "モーフ分割（左右）…");
    click(&mut harness, "適用");
    let started = std::time::Instant::now();
    while document(&harness).history.is_empty() {
        assert!(started.elapsed().as_secs() < 120, "never applied");
        harness.step();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    harness.run_ok();

    let split = &document(&harness).model;
    assert_eq!(split.vertices, original.vertices);
    let (left, right) = (&split.morphs[blink + 1], &split.morphs[blink + 2]);
    assert_eq!(left.name_ja.as_str(), "まばたき左");
    assert_eq!(right.name_ja.as_str(), "まばたき右");
    let (MorphOffsets::Vertex(whole), MorphOffsets::Vertex(l), MorphOffsets::Vertex(r)) =
        (&split.morphs[blink].offsets, &left.offsets, &right.offsets)
    else {
        panic!("vertex morphs");
    };
    let of = |list: &[pmx_core::model::VertexMorphOffset], v: usize| {
        list.iter()
            .find(|o| o.vertex.get() == v)
            .map_or(Vec3::ZERO, |o| Vec3::from(o.offset))
    };
    // The default blend band is 0.5 wide: the model's left (+X) beyond 0.25 is all in 左, the
    // right beyond −0.25 all in 右, shared linearly between; the halves add up.
    for entry in whole {
        let v = entry.vertex.get();
        let x = position(&original, v).x;
        let (a, b, sum) = (of(l, v), of(r, v), Vec3::from(entry.offset));
        assert!(
            (a + b - sum).length() < 1e-6,
            "vertex {v}: {a:?} + {b:?} ≠ {sum:?}"
        );
        let share = ((x + 0.25) / 0.5).clamp(0.0, 1.0);
        assert!(
            (a - sum * share).length() < 1e-5,
            "vertex {v} at x {x}: {a:?}"
        );
    }
    assert!(
        l.len() < whole.len() && r.len() < whole.len(),
        "each half has one side"
    );
    assert!(
        error_count(split) <= errors_before,
        "no new validator error"
    );
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(
        document(&harness).model == original,
        "undo gives back exactly"
    );
}
