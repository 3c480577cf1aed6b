#![allow(clippy::expect_used, clippy::unwrap_used)] // a failed expectation is the test failing
//! The 3D view's selection shapes and face mode:
//! - the lasso selects exactly the vertices whose drawn point lies inside its outline (worked out
//!   here with the view's projection), Shift adds and Ctrl takes out; the rectangle leaves a
//!   drag to it while 投げ縄 is chosen;
//! - the brush selects what passes under its circle: only the camera-facing side without 貫通,
//!   both sides with it; one selection change per stroke;
//! - face mode: a click picks the nearest face under the pointer (checked by its three
//!   vertices), a rectangle the faces whose centre is inside;
//! - 面対角線の入れ替え and 面の反転 through the view's toolbar change exactly those faces, one
//!   undo step each, and undo gives the model back bit for bit;
//! - on Gene, a lasso dragged in the editor selects the vertices inside it.

use glam::{Vec2, Vec3};
use pmx_core::generate::feature_model;
use pmx_core::model::{ElementKind, Face, Material, Model, PmxVersion, TextEncoding, VertexIdx};
use pmx_ui::EditorState;
use pmx_ui::document::Document;
use pmx_ui::i18n::Language;
use pmx_ui::panes::view::brush_select::BrushSelect;
use pmx_ui::panes::view::camera::OrbitCamera;
use pmx_ui::panes::view::click_select::ClickSelect;
use pmx_ui::panes::view::lasso_select::LassoSelect;
use pmx_ui::panes::view::rectangle_select::RectangleSelect;
use pmx_ui::panes::view::tool::{Taken, ToolCx, ToolRequest, ViewInput, ViewTool};
use pmx_ui::panes::view::transform::TransformRoute;
use pmx_ui::panes::view::{PickMode, Placements, SelectShape, ShownScene};

mod support;
use support::{click, document, harness_with};

const SIZE: Vec2 = Vec2::new(800.0, 600.0);

/// Two rows of eight vertices along X, one unit apart at the camera's height: the near row
/// (0..8) at model z = 0 facing the camera, the far row (8..16) half a unit behind it facing
/// away (the back of a thin sheet).
fn two_rows() -> Model {
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 16, 2);
    assert_eq!(model.vertices.len(), 16);
    for (i, vertex) in model.vertices.iter_mut().enumerate() {
        let near = i < 8;
        let z = if near { 0.0 } else { 0.5 };
        vertex.position = pmx_core::model::Vec3::new((i % 8) as f32 - 3.5, 10.0, z);
        vertex.normal = pmx_core::model::Vec3::new(0.0, 0.0, if near { -1.0 } else { 1.0 });
    }
    model
}

/// A square of two triangles facing the camera (vertices 0..4, split along 0–2) and, 3 units
/// behind, one larger triangle (vertices 4..7) in a second material.
fn quad_model() -> Model {
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 7, 2);
    let at = [
        (-1.0, 9.0, 0.0),
        (1.0, 9.0, 0.0),
        (1.0, 11.0, 0.0),
        (-1.0, 11.0, 0.0),
        (-3.0, 7.0, 3.0),
        (3.0, 7.0, 3.0),
        (0.0, 13.0, 3.0),
    ];
    for (vertex, (x, y, z)) in model.vertices.iter_mut().zip(at) {
        vertex.position = pmx_core::model::Vec3::new(x, y, z);
        vertex.normal = pmx_core::model::Vec3::new(0.0, 0.0, -1.0);
    }
    let face = |a: u32, b: u32, c: u32| -> Face { [VertexIdx(a), VertexIdx(b), VertexIdx(c)] };
    // PMX front faces wind clockwise as seen from the camera (looking along +Z).
    model.faces = vec![face(0, 2, 1), face(0, 3, 2), face(4, 6, 5)];
    let template = model.materials.first().cloned().unwrap_or_default();
    model.materials = vec![
        Material {
            face_index_count: 6,
            ..template.clone()
        },
        Material {
            face_index_count: 3,
            ..template
        },
    ];
    model
}

fn camera() -> OrbitCamera {
    OrbitCamera {
        target: Vec3::new(0.0, 10.0, 0.0),
        yaw: 0.0,
        pitch: 0.0,
        distance: 30.0,
        ..OrbitCamera::default()
    }
}

/// Where model point `p` is drawn (viewport pixels), at rest.
fn pixel(p: pmx_core::model::Vec3) -> Vec2 {
    let camera = camera();
    let placements = Placements::default();
    let scene = ShownScene::new(&camera, SIZE, &placements);
    scene
        .projector()
        .project(Vec3::new(p.x, p.y, -p.z))
        .unwrap()
        .0
}

fn pixel_of(model: &Model, vertex: usize) -> Vec2 {
    pixel(model.vertices[vertex].position)
}

/// Sends `inputs` to `tool` as the view would (pick mode `mode`, drags by `shape`) and carries
/// the requests out on `document`; returns them.
fn drive(
    tool: &mut dyn ViewTool,
    document: &mut Document,
    (mode, shape): (PickMode, SelectShape),
    modifiers: egui::Modifiers,
    inputs: &[ViewInput],
) -> Vec<ToolRequest> {
    let camera = camera();
    let placements = Placements::default();
    let requests = {
        let mut cx = ToolCx::new(
            document,
            ShownScene::new(&camera, SIZE, &placements),
            mode,
            modifiers,
        )
        .with_select_shape(shape);
        for &input in inputs {
            tool.input(&mut cx, input);
        }
        cx.take_requests()
    };
    let mut commands = pmx_ui::command::Commands::default();
    let mut pick_mode = mode;
    for request in requests.clone() {
        request.apply(
            document,
            &mut commands,
            &mut pick_mode,
            TransformRoute::default(),
        );
    }
    assert!(commands.is_empty(), "selecting is no edit");
    requests
}

fn selected(document: &Document, kind: ElementKind) -> Vec<usize> {
    document.selection.get(kind).indices.to_vec()
}

/// A lasso stroke through `corners` (pixels), as the view reports it.
fn lasso_stroke(corners: &[Vec2]) -> Vec<ViewInput> {
    let mut inputs = vec![ViewInput::DragStart {
        origin: corners[0],
        at: corners[0],
    }];
    for pair in corners.windows(2) {
        for step in 1..=8 {
            inputs.push(ViewInput::Drag {
                at: pair[0].lerp(pair[1], step as f32 / 8.0),
            });
        }
    }
    inputs.push(ViewInput::DragEnd {
        at: *corners.last().unwrap(),
    });
    inputs
}

#[test]
fn a_lasso_selects_the_vertices_inside_its_outline() {
    let model = two_rows();
    let mut document = Document::from_model(model.clone(), None, None);
    // A triangle round near vertices 2, 3 and 4 (below the row, over it at 3), which leaves 1
    // and 5 outside; the far row lies further in and is inside where its points are.
    let (left, right) = (pixel_of(&model, 2), pixel_of(&model, 4));
    let corners = [
        left + Vec2::new(-30.0, 15.0),
        right + Vec2::new(30.0, 15.0),
        (left + right) * 0.5 + Vec2::new(0.0, -60.0),
    ];
    let expected: Vec<usize> = (0..model.vertices.len())
        .filter(|&v| pmx_scene::pick::inside_polygon(&corners, pixel_of(&model, v)))
        .collect();
    assert!(expected.contains(&2) && expected.contains(&3) && expected.contains(&4));
    assert!(!expected.contains(&1) && !expected.contains(&5));
    let shape = (PickMode::Vertex, SelectShape::Lasso);
    let mut lasso = LassoSelect::default();
    drive(
        &mut lasso,
        &mut document,
        shape,
        egui::Modifiers::NONE,
        &lasso_stroke(&corners),
    );
    assert_eq!(selected(&document, ElementKind::Vertex), expected);
    assert!(lasso.outline().is_none(), "the stroke ended");
    // Ctrl takes the near vertex 3 out with a small lasso round it; Shift adds vertex 6.
    let around = |v: usize| {
        let c = pixel_of(&model, v);
        [
            c + Vec2::new(-6.0, -6.0),
            c + Vec2::new(6.0, -6.0),
            c + Vec2::new(6.0, 6.0),
            c + Vec2::new(-6.0, 6.0),
        ]
    };
    drive(
        &mut lasso,
        &mut document,
        shape,
        egui::Modifiers::COMMAND,
        &lasso_stroke(&around(3)),
    );
    let picked_3: Vec<usize> = (0..16)
        .filter(|&v| pmx_scene::pick::inside_polygon(&around(3), pixel_of(&model, v)))
        .collect();
    let mut after: Vec<usize> = expected
        .iter()
        .copied()
        .filter(|v| !picked_3.contains(v))
        .collect();
    assert_eq!(selected(&document, ElementKind::Vertex), after);
    drive(
        &mut lasso,
        &mut document,
        shape,
        egui::Modifiers::SHIFT,
        &lasso_stroke(&around(6)),
    );
    after.extend(
        (0..16).filter(|&v| pmx_scene::pick::inside_polygon(&around(6), pixel_of(&model, v))),
    );
    after.sort_unstable();
    after.dedup();
    assert_eq!(selected(&document, ElementKind::Vertex), after);
    // While the lasso is chosen the rectangle leaves the drag alone.
    let camera = camera();
    let placements = Placements::default();
    let mut cx = ToolCx::new(
        &document,
        ShownScene::new(&camera, SIZE, &placements),
        PickMode::Vertex,
        egui::Modifiers::NONE,
    )
    .with_select_shape(SelectShape::Lasso);
    let start = ViewInput::DragStart {
        origin: Vec2::ZERO,
        at: Vec2::ONE,
    };
    assert_eq!(RectangleSelect::default().input(&mut cx, start), Taken::No);
}

#[test]
fn the_brush_takes_the_facing_sheet_and_with_through_both() {
    let model = two_rows();
    let stroke = |model: &Model| {
        vec![
            ViewInput::DragStart {
                origin: pixel_of(model, 2),
                at: pixel_of(model, 2),
            },
            ViewInput::Drag {
                at: pixel_of(model, 3),
            },
            ViewInput::DragEnd {
                at: pixel_of(model, 4),
            },
        ]
    };
    let shape = (PickMode::Vertex, SelectShape::Brush);
    let mut document = Document::from_model(model.clone(), None, None);
    let mut brush = BrushSelect::default();
    brush.radius = 8.0;
    let requests = drive(
        &mut brush,
        &mut document,
        shape,
        egui::Modifiers::NONE,
        &stroke(&model),
    );
    assert_eq!(requests.len(), 1, "one selection change per stroke");
    assert_eq!(selected(&document, ElementKind::Vertex), vec![2, 3, 4]);
    assert!(brush.stroke().is_none());
    // 貫通: the far row's vertices under the circle too (worked out: within 8 px of the path).
    brush.through = true;
    let path = |v: usize| {
        let p = pixel_of(&model, v);
        let (a, b) = (pixel_of(&model, 2), pixel_of(&model, 4));
        let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
        p.distance(a.lerp(b, t))
    };
    let expected: Vec<usize> = (0..16).filter(|&v| path(v) <= 8.0 - 0.5).collect();
    assert!(expected.iter().any(|&v| v >= 8), "{expected:?}");
    drive(
        &mut brush,
        &mut document,
        shape,
        egui::Modifiers::NONE,
        &stroke(&model),
    );
    assert_eq!(selected(&document, ElementKind::Vertex), expected);
}

#[test]
fn face_mode_picks_the_nearest_face_and_faces_by_their_centre() {
    let model = quad_model();
    let mut document = Document::from_model(model.clone(), None, None);
    let centre = |f: usize| {
        let [a, b, c] = model.faces[f].map(|v| model.vertices[v.0 as usize].position);
        pixel(pmx_core::model::Vec3::new(
            (a.x + b.x + c.x) / 3.0,
            (a.y + b.y + c.y) / 3.0,
            (a.z + b.z + c.z) / 3.0,
        ))
    };
    let mode = (PickMode::Face, SelectShape::Rectangle);
    // Face 1 lies in front of the big triangle 2: the click takes the nearer.
    drive(
        &mut ClickSelect,
        &mut document,
        mode,
        egui::Modifiers::NONE,
        &[ViewInput::Click { at: centre(1) }],
    );
    let picked = selected(&document, ElementKind::Face);
    assert_eq!(picked, vec![1]);
    let corners: Vec<u32> = model.faces[picked[0]].iter().map(|v| v.0).collect();
    assert_eq!(corners, vec![0, 3, 2]);
    // Beside the square only the big triangle is under the pointer.
    let beside = pixel(pmx_core::model::Vec3::new(0.0, 12.0, 3.0));
    drive(
        &mut ClickSelect,
        &mut document,
        mode,
        egui::Modifiers::NONE,
        &[ViewInput::Click { at: beside }],
    );
    assert_eq!(selected(&document, ElementKind::Face), vec![2]);
    // A rectangle round the square's two centres takes faces 0 and 1, not the big one (its
    // centre is elsewhere).
    let (a, b) = (centre(0), centre(1));
    let mut rectangle = RectangleSelect::default();
    drive(
        &mut rectangle,
        &mut document,
        mode,
        egui::Modifiers::NONE,
        &[
            ViewInput::DragStart {
                origin: a.min(b) - Vec2::splat(4.0),
                at: a.min(b),
            },
            ViewInput::DragEnd {
                at: a.max(b) + Vec2::splat(4.0),
            },
        ],
    );
    assert_eq!(selected(&document, ElementKind::Face), vec![0, 1]);
}

/// Picks faces in the editor, runs `label` (a face button of the view's row) and checks that
/// only `changed` faces differ, then that undo gives the model back exactly.
fn face_edit_flow(faces: &[usize], label: &str, changed: &[usize]) -> Model {
    let model = quad_model();
    let mut harness = harness_with(model.clone(), Language::English);
    harness.state_mut().view.pick_mode = PickMode::Face;
    {
        let document = harness.state_mut().document.as_mut().unwrap();
        let selection = document.selection.get_mut(ElementKind::Face);
        for &f in faces {
            selection.indices.insert(f);
        }
    }
    harness.run_ok();
    click(&mut harness, label);
    let edited = document(&harness).model.clone();
    assert_eq!(document(&harness).history.len(), 1, "one undo step");
    for f in 0..model.faces.len() {
        assert_eq!(
            edited.faces[f] != model.faces[f],
            changed.contains(&f),
            "face {f}"
        );
    }
    assert_eq!(edited.vertices, model.vertices);
    assert_eq!(edited.materials, model.materials);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(document(&harness).model == model, "undo restores the model");
    edited
}

#[test]
fn the_diagonal_swap_and_the_flip_change_only_those_faces_and_undo() {
    let swapped = face_edit_flow(&[0, 1], "Swap diagonal", &[0, 1]);
    for f in &swapped.faces[..2] {
        assert!(
            f.contains(&VertexIdx(1)) && f.contains(&VertexIdx(3)),
            "{f:?}"
        );
    }
    let flipped = face_edit_flow(&[2], "Flip faces", &[2]);
    assert_eq!(flipped.faces[2], [VertexIdx(4), VertexIdx(5), VertexIdx(6)]);
}

/// Gene from the shared corpus, when it is there.
fn gene() -> Option<Model> {
    support::gene_and_nod_motion().map(|(model, _)| model)
}

/// The view's rectangle and a projection of model points to the screen with its camera.
fn screen_of(
    harness: &egui_kittest::Harness<'_, EditorState>,
) -> impl Fn(Vec3) -> Option<egui::Pos2> {
    let view = &harness.state().view;
    let rect = view.last_rect.expect("the view was drawn");
    let projector =
        pmx_scene::camera::Projector::new(&view.camera, Vec2::new(rect.width(), rect.height()));
    move |world: Vec3| {
        let (pixel, depth) = projector.project(world)?;
        (depth <= 1.0).then(|| rect.min + egui::vec2(pixel.x, pixel.y))
    }
}

#[test]
fn on_gene_a_lasso_in_the_editor_selects_the_vertices_inside_it() {
    let Some(model) = gene() else {
        return;
    };
    let mut harness = harness_with(model.clone(), Language::English);
    click(&mut harness, "Lasso");
    assert_eq!(harness.state().view.select_shape, SelectShape::Lasso);
    let rect = harness.state().view.last_rect.unwrap();
    // A triangle over the upper body, well inside the view.
    let corners = [
        rect.center() + egui::vec2(-60.0, -40.0),
        rect.center() + egui::vec2(60.0, -40.0),
        rect.center() + egui::vec2(0.0, 80.0),
    ];
    harness.event(egui::Event::PointerMoved(corners[0]));
    harness.step();
    support::button(&mut harness, corners[0], true);
    for pair in [(corners[0], corners[1]), (corners[1], corners[2])] {
        for step in 1..=10 {
            harness.event(egui::Event::PointerMoved(
                pair.0 + (pair.1 - pair.0) * (step as f32 / 10.0),
            ));
            harness.step();
        }
    }
    support::button(&mut harness, corners[2], false);
    harness.run_ok();
    let to_screen = screen_of(&harness);
    let polygon: Vec<Vec2> = corners.iter().map(|p| Vec2::new(p.x, p.y)).collect();
    let expected: Vec<usize> = model
        .vertices
        .iter()
        .enumerate()
        .filter_map(|(v, vertex)| {
            let p = vertex.position;
            let at = to_screen(Vec3::new(p.x, p.y, -p.z))?;
            pmx_scene::pick::inside_polygon(&polygon, Vec2::new(at.x, at.y)).then_some(v)
        })
        .collect();
    assert!(expected.len() > 100, "the lasso holds Gene's vertices");
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Vertex)
            .indices
            .to_vec(),
        expected
    );
    assert_eq!(
        document(&harness).history.len(),
        0,
        "selecting edits nothing"
    );
}
