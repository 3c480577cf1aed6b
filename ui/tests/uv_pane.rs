//! The UV tab through the real editor, as a modeller fixes UVs: corners selected in the UV tab
//! show in the 3D view's selection and corners selected in the 3D view show in the UV tab; a
//! gizmo drag moves the selected UVs as one undo step that undo takes back exactly; a UV morph
//! chosen in the tab takes the edits instead of the UVs; File > Export UV layout… writes the
//! PNG.
//!
//! Selections are checked by element: the vertices whose UVs lie inside the dragged rectangle,
//! computed here from the model, never by position in a list.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::Vec2;
use pmx_core::model::{
    ElementKind, Model, Morph, MorphOffsets, MorphPanel, UvMorphOffset, Vec4, VertexIdx,
};
use pmx_ui::EditorState;
use pmx_ui::command::BrowsePurpose;
use pmx_ui::i18n::Language;

mod support;
use support::{click, document, drag, harness_with, tab};

/// The sample figure with every vertex at its own UV, spread over 0–1 (the sample's boxes map
/// each side onto the whole square, so many corners would share one UV).
fn spread_model() -> Model {
    let mut model = pmx_core::generate::sample_model();
    for (i, vertex) in model.vertices.iter_mut().enumerate() {
        vertex.uv = pmx_core::model::Vec2::new(
            ((i * 37 % 101) as f32 + 0.5) / 101.0,
            ((i * 53 % 97) as f32 + 0.5) / 97.0,
        );
    }
    model
}

fn uv(model: &Model, v: usize) -> Vec2 {
    Vec2::from(model.vertices[v].uv)
}

/// Where UV `at` is drawn in the UV tab (screen points).
fn uv_screen(harness: &Harness<'_, EditorState>, at: Vec2) -> egui::Pos2 {
    let uv = &harness.state().uv;
    uv.camera
        .to_screen(uv.last_rect.expect("the UV tab was drawn"), at)
}

/// Clicks the button labelled `label` in the UV tab (the 3D view's rows have buttons of the
/// same names).
fn click_in_uv_tab(harness: &mut Harness<'_, EditorState>, label: &str) {
    let canvas = harness.state().uv.last_rect.expect("the UV tab was drawn");
    harness
        .query_all_by_role_and_label(Role::Button, label)
        .find(|node| (canvas.left()..=canvas.right()).contains(&node.rect().center().x))
        .unwrap_or_else(|| panic!("no {label} in the UV tab"))
        .click();
    harness.run_ok();
}

fn selected_vertices(harness: &Harness<'_, EditorState>) -> Vec<usize> {
    document(harness)
        .selection
        .get(ElementKind::Vertex)
        .indices
        .to_vec()
}

/// Every vertex a face uses.
fn face_vertices(model: &Model) -> Vec<usize> {
    let mut used: Vec<usize> = model
        .faces
        .iter()
        .flat_map(|f| f.iter().map(|v| v.0 as usize))
        .collect();
    used.sort_unstable();
    used.dedup();
    used
}

#[test]
fn a_rectangle_in_the_uv_tab_selects_those_vertices_for_the_3d_view_and_back() {
    let model = spread_model();
    let mut harness = harness_with(model.clone(), Language::Japanese);
    tab(&mut harness, "UV");
    assert!(
        harness.state().uv.last_rect.is_some(),
        "the UV tab is drawn"
    );

    // A rectangle from UV (0.21, 0.13) to (0.58, 0.66): exactly the vertices whose UVs lie in it.
    let (low, high) = (Vec2::new(0.21, 0.13), Vec2::new(0.58, 0.66));
    let from = uv_screen(&harness, low);
    let to = uv_screen(&harness, high);
    drag(&mut harness, from, to, 6);
    let expected: Vec<usize> = face_vertices(&model)
        .into_iter()
        .filter(|&v| {
            let p = uv(&model, v);
            p.x > low.x && p.x < high.x && p.y > low.y && p.y < high.y
        })
        .collect();
    assert!(expected.len() > 20, "the rectangle holds vertices");
    assert_eq!(selected_vertices(&harness), expected);
    assert_eq!(
        harness.state().view.pick_mode,
        pmx_ui::panes::view::PickMode::Vertex,
        "the 3D view shows the selected vertices"
    );
    assert_eq!(
        document(&harness).history.len(),
        0,
        "selecting edits nothing"
    );
    assert_eq!(document(&harness).model, model);

    // Shift adds the corner clicked; a click on nothing clears.
    let outside: usize = face_vertices(&model)
        .into_iter()
        .find(|v| !expected.contains(v) && uv(&model, *v).x > 0.7)
        .unwrap();
    let at = uv_screen(&harness, uv(&model, outside));
    harness.event(egui::Event::PointerMoved(at));
    harness.step();
    harness.event(egui::Event::ModifiersChanged(egui::Modifiers::SHIFT));
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::SHIFT,
        });
        harness.step();
    }
    harness.event(egui::Event::ModifiersChanged(egui::Modifiers::NONE));
    harness.run_ok();
    let mut with_it = expected.clone();
    with_it.push(outside);
    with_it.sort_unstable();
    assert_eq!(selected_vertices(&harness), with_it);

    // A selection made in the 3D view shows in the UV tab: a rectangle around the figure's
    // head in the view selects what it holds, and the UV tab draws exactly those.
    let view_rect = harness
        .state()
        .view
        .last_rect
        .expect("the 3D view is drawn");
    let (head_from, head_to) = {
        let editor = harness.state();
        let model = &document(&harness).model;
        let scene = editor
            .view
            .shown(Vec2::new(view_rect.width(), view_rect.height()));
        let head = (0..model.vertices.len())
            .max_by(|&a, &b| {
                model.vertices[a]
                    .position
                    .y
                    .total_cmp(&model.vertices[b].position.y)
            })
            .unwrap();
        let world = editor.view.drawn_vertex(model, head).unwrap();
        let pixel = scene.projector().project(world).unwrap().0;
        let centre = view_rect.min + egui::vec2(pixel.x, pixel.y);
        (
            centre - egui::vec2(40.0, 40.0),
            centre + egui::vec2(40.0, 40.0),
        )
    };
    drag(&mut harness, head_from, head_to, 6);
    let from_view = selected_vertices(&harness);
    assert!(
        !from_view.is_empty(),
        "the view's rectangle selected vertices"
    );
    assert!(
        from_view.iter().all(|v| !with_it.contains(v)) || from_view != with_it,
        "the view replaced the selection"
    );
    harness.run_ok();
    assert_eq!(harness.state().uv.drawn_selection, from_view);
    assert!(harness.state().uv.last_gizmo.is_some(), "the gizmo shows");
}

#[test]
fn a_gizmo_drag_moves_the_selected_uvs_as_one_step_and_undo_gives_them_back() {
    let model = spread_model();
    let mut harness = harness_with(model.clone(), Language::English);
    tab(&mut harness, "UV");
    let (low, high) = (Vec2::new(0.1, 0.1), Vec2::new(0.45, 0.5));
    let (from, to) = (uv_screen(&harness, low), uv_screen(&harness, high));
    drag(&mut harness, from, to, 6);
    let chosen = selected_vertices(&harness);
    assert!(chosen.len() > 10);
    let gizmo = harness.state().uv.last_gizmo.expect("the gizmo shows");
    let zoom = harness.state().uv.camera.zoom;

    // The centre square dragged 60 points right and 30 down: every chosen UV moves by
    // (60, 30) / zoom, nothing else changes.
    drag(&mut harness, gizmo, gizmo + egui::vec2(60.0, 30.0), 6);
    let after = &document(&harness).model;
    let by = Vec2::new(60.0, 30.0) / zoom;
    for v in 0..model.vertices.len() {
        let want = if chosen.contains(&v) {
            uv(&model, v) + by
        } else {
            uv(&model, v)
        };
        assert!(
            (uv(after, v) - want).length() < 1e-4,
            "vertex {v}: {} instead of {want}",
            uv(after, v)
        );
        assert_eq!(after.vertices[v].position, model.vertices[v].position);
    }
    let history = &document(&harness).history;
    assert_eq!(history.len(), 1, "one drag, one undo step");
    assert_eq!(
        history.undo_edit_label().unwrap().render(Language::English),
        format!("Move the UVs of {} vertices", chosen.len())
    );
    assert!(
        pmx_core::validate::check(after, None, &Default::default())
            .iter()
            .all(|issue| issue.severity != pmx_core::validate::Severity::Error)
    );

    // Flip U about the selection's centre, then undo both: the model as it was, bit for bit.
    click(&mut harness, "Flip U");
    assert_eq!(document(&harness).history.len(), 2);
    click(&mut harness, "Undo");
    click(&mut harness, "Undo");
    assert_eq!(document(&harness).model, model);
}

#[test]
fn with_a_uv_morph_chosen_edits_change_only_the_morph() {
    let mut model = spread_model();
    model.morphs.push(Morph {
        name_ja: "UVずらし".into(),
        name_en: "uv shift".into(),
        offsets: MorphOffsets::Uv(vec![UvMorphOffset {
            vertex: VertexIdx::new(3),
            offset: Vec4::new(0.05, 0.0, 0.0, 0.0),
        }]),
        panel: MorphPanel::default(),
    });
    let morph = model.morphs.len() - 1;
    let mut harness = harness_with(model.clone(), Language::Japanese);
    tab(&mut harness, "UV");
    // Vertices 3 and 7 selected (as the 3D view or a table would).
    {
        let editor = harness.state_mut();
        let selection = editor
            .document
            .as_mut()
            .unwrap()
            .selection
            .get_mut(ElementKind::Vertex);
        selection.indices.insert(3);
        selection.indices.insert(7);
    }
    harness.run_ok();
    // The morph chosen in the tab's list: shown at full strength.
    harness
        .get_by_role_and_label(Role::ComboBox, "UVモーフ")
        .click();
    harness.run_ok();
    click(&mut harness, "UVずらし");
    assert_eq!(harness.state().uv.morph, Some(morph));
    harness
        .get_by_role_and_label(Role::Slider, "プレビュー")
        .set_value_accesskit(0.5);
    harness.run_ok();
    // Move U by 0.1 at 0.5: the offsets change by 0.2.
    harness.get_by_label("移動 U").set_value_accesskit(0.1);
    harness.run_ok();
    click_in_uv_tab(&mut harness, "移動を適用");
    let after = &document(&harness).model;
    assert_eq!(after.vertices, model.vertices, "the UVs are not touched");
    assert_eq!(after.morphs[..morph], model.morphs[..morph]);
    let MorphOffsets::Uv(list) = &after.morphs[morph].offsets else {
        panic!("still a UV morph");
    };
    let of = |v: usize| {
        list.iter()
            .find(|o| o.vertex.get() == v)
            .map(|o| o.offset)
            .unwrap()
    };
    assert!((of(3).x - 0.25).abs() < 1e-5, "{:?}", of(3));
    assert!((of(7).x - 0.2).abs() < 1e-5, "{:?}", of(7));
    assert_eq!(of(3).y, 0.0);
    assert_eq!(document(&harness).history.len(), 1);
    click(&mut harness, "元に戻す");
    assert_eq!(document(&harness).model, model);
}

#[test]
fn file_export_uv_layout_writes_the_png() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("layout.png");
    let mut harness = harness_with(spread_model(), Language::English);
    click(&mut harness, "File");
    harness.get_by_label_contains("Export UV layout").click();
    harness.run_ok();
    harness
        .state_mut()
        .browse_finished(BrowsePurpose::UvLayout, Some(path.clone()));
    harness.run_ok();
    harness
        .get_by_role_and_label(Role::SpinButton, "Size")
        .set_value_accesskit(512.0);
    harness.run_ok();
    click(&mut harness, "Export");
    let image = image::open(&path).expect("a PNG was written").to_rgba8();
    assert_eq!(image.dimensions(), (512, 512));
    assert!(image.pixels().any(|p| p[3] > 0), "the wireframe is drawn");
    assert!(image.pixels().any(|p| p[3] == 0), "on transparency");
    assert_eq!(document(&harness).history.len(), 0);
}
