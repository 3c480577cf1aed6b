#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The 3D view's tools driven through their trait, without the window: the input a pane would
//! route (press, click, drag start, drags, release) goes to each tool, and what the tool asks
//! for is checked, then carried out on a document or the editor.
//! - click selection picks the vertex drawn under the pointer (Shift adds, Ctrl takes out, a
//!   miss clears);
//! - rectangle selection selects exactly the vertices drawn inside the marquee (the pick
//!   mode's kind);
//! - a gizmo drag is one gesture: one undo step in the editor, a second drag a second step;
//! - routing: a drag that starts on a handle is the gizmo's, elsewhere the rectangle's, a click
//!   the click tool's; a modal brush (written here, as issue 35's will be) owns its stroke from
//!   the press to the release, alone, and the stroke is one undo step.

use glam::{Vec2, Vec3};
use pmx_core::generate::feature_model;
use pmx_core::model::{ElementKind, Model, PmxVersion, TextEncoding};
use pmx_ui::EditorState;
use pmx_ui::command::Commands;
use pmx_ui::document::Document;
use pmx_ui::editor::settings::Settings;
use pmx_ui::panes::view::camera::OrbitCamera;
use pmx_ui::panes::view::click_select::ClickSelect;
use pmx_ui::panes::view::gizmo::{Gizmo, GizmoMode, Layout};
use pmx_ui::panes::view::rectangle_select::RectangleSelect;
use pmx_ui::panes::view::tool::{
    self, Gestures, SelectHow, SelectionChange, Taken, ToolCx, ToolRequest, ViewInput, ViewTool,
};
use pmx_ui::panes::view::transform::{Transform, TransformRoute, selection_centre};
use pmx_ui::panes::view::{PickMode, Placements, ShownScene};

const SIZE: Vec2 = Vec2::new(800.0, 600.0);

/// Eight vertices in a row along X, one unit apart, at the height of the camera's target.
fn row_model() -> Model {
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 8, 2);
    assert_eq!(model.vertices.len(), 8);
    for (i, vertex) in model.vertices.iter_mut().enumerate() {
        vertex.position = pmx_core::model::Vec3::new(i as f32 - 3.5, 10.0, 0.0);
    }
    model
}

/// Looking at the row from the front.
fn camera() -> OrbitCamera {
    OrbitCamera {
        target: Vec3::new(0.0, 10.0, 0.0),
        yaw: 0.0,
        pitch: 0.0,
        distance: 30.0,
        ..OrbitCamera::default()
    }
}

/// Where vertex `index` of `model` is drawn (viewport pixels), at rest.
fn pixel_of(model: &Model, index: usize) -> Vec2 {
    let camera = camera();
    let placements = Placements::default();
    let scene = ShownScene::new(&camera, SIZE, &placements);
    let at = placements.drawn_vertex(model, index).unwrap();
    scene.projector().project(at).unwrap().0
}

/// Sends `inputs` to `tool` one by one, as the view would, and returns what it asked for.
fn drive(
    tool: &mut dyn ViewTool,
    document: &Document,
    modifiers: egui::Modifiers,
    inputs: &[ViewInput],
) -> Vec<ToolRequest> {
    let camera = camera();
    let placements = Placements::default();
    let mut cx = ToolCx::new(
        document,
        ShownScene::new(&camera, SIZE, &placements),
        PickMode::Vertex,
        modifiers,
    );
    for &input in inputs {
        tool.input(&mut cx, input);
    }
    cx.take_requests()
}

fn selected(document: &Document) -> Vec<usize> {
    document.selection.get(ElementKind::Vertex).indices.to_vec()
}

/// Carries `requests` out on `document` (edits are left in the returned queue).
fn apply(document: &mut Document, requests: Vec<ToolRequest>) -> (Commands, PickMode) {
    let mut commands = Commands::default();
    let mut pick_mode = PickMode::Bone;
    for request in requests {
        request.apply(
            document,
            &mut commands,
            &mut pick_mode,
            TransformRoute::default(),
        );
    }
    (commands, pick_mode)
}

/// A click at `at` with `modifiers` through the click tool, carried out on `document`;
/// returns what the tool asked for.
fn click_at(document: &mut Document, at: Vec2, modifiers: egui::Modifiers) -> Vec<ToolRequest> {
    let requests = drive(
        &mut ClickSelect,
        document,
        modifiers,
        &[ViewInput::Click { at }],
    );
    apply(document, requests.clone());
    requests
}

#[test]
fn a_click_selects_the_vertex_under_the_pointer_with_the_modifiers() {
    let model = row_model();
    let mut document = Document::from_model(model.clone(), None, None);
    let near_3 = pixel_of(&model, 3) + Vec2::new(2.0, -2.0);
    assert_eq!(
        click_at(&mut document, near_3, egui::Modifiers::NONE),
        vec![ToolRequest::Select(SelectionChange {
            kind: ElementKind::Vertex,
            elements: vec![3],
            how: SelectHow::Replace,
        })]
    );
    assert_eq!(selected(&document), vec![3]);
    // Shift adds vertex 5; Ctrl takes vertex 3 out again.
    click_at(&mut document, pixel_of(&model, 5), egui::Modifiers::SHIFT);
    assert_eq!(selected(&document), vec![3, 5]);
    click_at(&mut document, pixel_of(&model, 3), egui::Modifiers::COMMAND);
    assert_eq!(selected(&document), vec![5]);
    assert_eq!(document.selection.get(ElementKind::Vertex).current, Some(5));
    // A Shift-click on nothing changes nothing; a plain one clears.
    let nothing = Vec2::new(400.0, 580.0);
    let requests = click_at(&mut document, nothing, egui::Modifiers::SHIFT);
    assert!(requests.is_empty(), "{requests:?}");
    assert_eq!(selected(&document), vec![5]);
    click_at(&mut document, nothing, egui::Modifiers::NONE);
    assert_eq!(selected(&document), Vec::<usize>::new());
    // Drags are not the click tool's.
    let origin = Vec2::new(10.0, 10.0);
    let mut click = ClickSelect;
    let mut owner = None;
    let camera = camera();
    let placements = Placements::default();
    let mut cx = ToolCx::new(
        &document,
        ShownScene::new(&camera, SIZE, &placements),
        PickMode::Vertex,
        egui::Modifiers::NONE,
    );
    let input = ViewInput::DragStart { origin, at: origin };
    assert_eq!(click.input(&mut cx, input), Taken::No);
    tool::route(&mut [&mut click], &mut owner, &mut cx, input);
    assert_eq!(owner, None, "nobody took the drag");
}

#[test]
fn a_rectangle_drag_selects_the_vertices_inside_it_by_element() {
    let model = row_model();
    let mut document = Document::from_model(model.clone(), None, None);
    let mut rectangle = RectangleSelect::default();
    // Round vertices 2, 3 and 4 (one unit apart: tens of pixels at this distance).
    let (left, right) = (pixel_of(&model, 2), pixel_of(&model, 4));
    assert!(right.x - left.x > 40.0, "{left} {right}");
    let origin = left - Vec2::new(6.0, 20.0);
    let end = right + Vec2::new(6.0, 20.0);
    let middle = (origin + end) * 0.5;
    let requests = drive(
        &mut rectangle,
        &document,
        egui::Modifiers::NONE,
        &[
            ViewInput::DragStart {
                origin,
                at: origin + Vec2::new(4.0, 4.0),
            },
            ViewInput::Drag {
                at: origin + Vec2::new(4.0, 4.0),
            },
            ViewInput::Drag { at: middle },
        ],
    );
    assert!(requests.is_empty(), "nothing changes while dragging");
    assert_eq!(rectangle.marquee(), Some((origin, middle)));
    let requests = drive(
        &mut rectangle,
        &document,
        egui::Modifiers::NONE,
        &[ViewInput::DragEnd { at: end }],
    );
    assert_eq!(
        requests,
        vec![ToolRequest::Select(SelectionChange {
            kind: ElementKind::Vertex,
            elements: vec![2, 3, 4],
            how: SelectHow::Replace,
        }),]
    );
    assert_eq!(rectangle.marquee(), None);
    let (commands, _) = apply(&mut document, requests);
    assert!(commands.is_empty(), "selecting is no edit");
    assert_eq!(selected(&document), vec![2, 3, 4]);

    // With Ctrl the same rectangle round 3 and 4 only takes them out.
    let origin = pixel_of(&model, 3) - Vec2::new(6.0, 20.0);
    let requests = drive(
        &mut rectangle,
        &document,
        egui::Modifiers::COMMAND,
        &[
            ViewInput::DragStart { origin, at: origin },
            ViewInput::DragEnd { at: end },
        ],
    );
    apply(&mut document, requests);
    assert_eq!(selected(&document), vec![2]);
    // A cancelled drag selects nothing.
    let requests = drive(
        &mut rectangle,
        &document,
        egui::Modifiers::NONE,
        &[ViewInput::DragStart { origin, at: end }, ViewInput::Cancel],
    );
    assert!(requests.is_empty());
    assert_eq!(rectangle.marquee(), None);
}

/// The editor with the row model open and vertices 0 and 5 selected, its view at the front
/// camera.
fn editor_with_selection() -> EditorState {
    let mut document = Document::from_model(row_model(), None, None);
    let vertices = document.selection.get_mut(ElementKind::Vertex);
    [0, 5].into_iter().for_each(|v| vertices.indices.insert(v));
    let mut editor = EditorState::new(Settings::default());
    editor.open_document(document);
    editor.view.camera = camera();
    editor
}

/// One frame of the view: the tools laid out, then `inputs` routed (registry order: `tools`),
/// the requests carried out and the commands run by the editor.
fn frame(
    editor: &mut EditorState,
    tools: &mut [&mut dyn ViewTool],
    owner: &mut Option<usize>,
    inputs: &[ViewInput],
) {
    let mut commands = Commands::default();
    for &input in inputs {
        let requests = {
            let document = editor.document.as_ref().unwrap();
            let mut cx = ToolCx::new(
                document,
                editor.view.shown(SIZE),
                editor.view.pick_mode,
                egui::Modifiers::NONE,
            );
            tool::prepare(tools, &mut cx, None);
            tool::route(tools, owner, &mut cx, input);
            cx.take_requests()
        };
        let document = editor.document.as_mut().unwrap();
        for request in requests {
            request.apply(
                document,
                &mut commands,
                &mut editor.view.pick_mode,
                TransformRoute::default(),
            );
        }
    }
    for command in commands.take() {
        editor.push(command);
    }
    editor.run_commands();
}

/// Where the gizmo's X handle is, `pixels` along it from the centre.
fn along_x(editor: &EditorState, pixels: f32) -> (Vec2, f32) {
    let document = editor.document.as_ref().unwrap();
    let centre = selection_centre(document, ElementKind::Vertex).unwrap();
    let layout = Layout::new(&editor.view.camera, SIZE, centre).unwrap();
    let along = (layout.tips[0].unwrap() - layout.centre).normalize();
    (layout.centre + along * pixels, layout.length)
}

#[test]
fn a_gizmo_drag_is_one_undo_step() {
    let mut editor = editor_with_selection();
    let original = editor.document.as_ref().unwrap().model.clone();
    let mut gizmo = Gizmo::default();
    gizmo.mode = GizmoMode::Move;
    let mut owner = None;
    let (grab, length) = along_x(&editor, 60.0);
    let direction = (along_x(&editor, 61.0).0 - grab).normalize();
    frame(
        &mut editor,
        &mut [&mut gizmo],
        &mut owner,
        &[
            ViewInput::Press { at: grab },
            ViewInput::DragStart {
                origin: grab,
                at: grab,
            },
        ],
    );
    assert_eq!(owner, Some(0), "the handle under the press takes the drag");
    let gesture = gizmo.drag.unwrap().gesture;
    for d in [70.0, 80.0, 100.0, 120.0, 150.0] {
        frame(
            &mut editor,
            &mut [&mut gizmo],
            &mut owner,
            &[ViewInput::Drag {
                at: grab + direction * (d - 60.0),
            }],
        );
        assert_eq!(gizmo.drag.unwrap().gesture, gesture, "one gesture a drag");
    }
    frame(
        &mut editor,
        &mut [&mut gizmo],
        &mut owner,
        &[ViewInput::DragEnd {
            at: grab + direction * 90.0,
        }],
    );
    assert_eq!(owner, None);
    assert!(gizmo.drag.is_none());
    let document = editor.document.as_ref().unwrap();
    assert_eq!(document.history.len(), 1, "one drag, one undo step");
    assert_eq!(document.history.undo_label(), Some("Move 2 vertices"));
    // 90 pixels along the axis: one gizmo length in model units.
    for v in [0, 5] {
        let dx = document.model.vertices[v].position.x - original.vertices[v].position.x;
        assert!((dx - length).abs() < 0.05 * length, "vertex {v} moved {dx}");
    }
    assert_eq!(document.model.vertices[1], original.vertices[1]);

    // The next drag is a step of its own.
    let (grab, _) = along_x(&editor, 60.0);
    frame(
        &mut editor,
        &mut [&mut gizmo],
        &mut owner,
        &[
            ViewInput::DragStart {
                origin: grab,
                at: grab,
            },
            ViewInput::Drag {
                at: grab + direction * 20.0,
            },
            ViewInput::DragEnd {
                at: grab + direction * 20.0,
            },
        ],
    );
    assert_ne!(gizmo.drag.map(|d| d.gesture), Some(gesture));
    assert_eq!(editor.document.as_ref().unwrap().history.len(), 2);
}

/// A brush as issue 35's weight brush will be: modal while on, its stroke owned from the press
/// to the release, every frame an edit of the stroke's gesture. (It moves the selection a
/// little per frame: what it edits is not the point here.)
#[derive(Debug, Default)]
struct TestBrush {
    on: bool,
    stroke: Option<egui::Id>,
    gestures: Gestures,
    frames: usize,
}

impl ViewTool for TestBrush {
    fn input(&mut self, cx: &mut ToolCx<'_>, input: ViewInput) -> Taken {
        if !self.on {
            return Taken::No;
        }
        match input {
            ViewInput::Press { .. } => self.stroke = Some(self.gestures.next("test_brush")),
            ViewInput::DragStart { .. } => {}
            ViewInput::Drag { .. } => {
                let Some(gesture) = self.stroke else {
                    return Taken::No;
                };
                self.frames += 1;
                cx.request(ToolRequest::Transform {
                    change: Transform::Move(Vec3::new(0.1, 0.0, 0.0)),
                    gesture,
                });
            }
            ViewInput::Click { .. } | ViewInput::DragEnd { .. } | ViewInput::Cancel => {
                self.stroke = None;
            }
            ViewInput::Key(_) => return Taken::No,
        }
        Taken::Yes
    }

    fn is_modal(&self) -> bool {
        self.on
    }
}

#[test]
fn routing_gives_a_drag_to_the_first_tool_that_takes_it_and_a_modal_brush_everything() {
    let mut editor = editor_with_selection();
    let mut brush = TestBrush::default();
    let mut gizmo = Gizmo::default();
    gizmo.mode = GizmoMode::Move;
    let mut rectangle = RectangleSelect::default();
    let mut click = ClickSelect;
    let mut owner = None;
    let (handle, _) = along_x(&editor, 60.0);
    let away = Vec2::new(20.0, 20.0);
    macro_rules! tools {
        () => {
            [
                &mut brush as &mut dyn ViewTool,
                &mut gizmo,
                &mut rectangle,
                &mut click,
            ]
        };
    }
    // On a handle: the gizmo's (registry position 1).
    frame(
        &mut editor,
        &mut tools!(),
        &mut owner,
        &[ViewInput::DragStart {
            origin: handle,
            at: handle,
        }],
    );
    assert_eq!(owner, Some(1));
    frame(
        &mut editor,
        &mut tools!(),
        &mut owner,
        &[ViewInput::DragEnd { at: handle }],
    );
    // Elsewhere: the rectangle's.
    frame(
        &mut editor,
        &mut tools!(),
        &mut owner,
        &[ViewInput::DragStart {
            origin: away,
            at: away,
        }],
    );
    assert_eq!(owner, Some(2));
    assert!(rectangle.marquee().is_some());
    frame(
        &mut editor,
        &mut tools!(),
        &mut owner,
        &[ViewInput::DragEnd { at: away }],
    );
    assert_eq!(owner, None);
    // A click: the click tool's (on nothing: the selection is cleared).
    frame(
        &mut editor,
        &mut tools!(),
        &mut owner,
        &[ViewInput::Click { at: away }],
    );
    let document = editor.document.as_ref().unwrap();
    assert!(
        document
            .selection
            .get(ElementKind::Vertex)
            .indices
            .is_empty()
    );
    assert_eq!(document.history.len(), 0);

    // The brush on: it alone gets the stroke, even on the gizmo's handle.
    let document = editor.document.as_mut().unwrap();
    let vertices = document.selection.get_mut(ElementKind::Vertex);
    [0, 5].into_iter().for_each(|v| vertices.indices.insert(v));
    brush.on = true;
    frame(
        &mut editor,
        &mut tools!(),
        &mut owner,
        &[
            ViewInput::Press { at: handle },
            ViewInput::DragStart {
                origin: handle,
                at: handle,
            },
            ViewInput::Drag { at: handle },
        ],
    );
    assert_eq!(owner, Some(0));
    for step in 1..4 {
        frame(
            &mut editor,
            &mut tools!(),
            &mut owner,
            &[ViewInput::Drag {
                at: handle + Vec2::new(step as f32, 0.0),
            }],
        );
    }
    frame(
        &mut editor,
        &mut tools!(),
        &mut owner,
        &[ViewInput::DragEnd { at: handle }],
    );
    assert_eq!(owner, None);
    assert_eq!(brush.frames, 4);
    assert!(gizmo.drag.is_none() && rectangle.marquee().is_none());
    let document = editor.document.as_ref().unwrap();
    assert_eq!(document.history.len(), 1, "one stroke, one undo step");
    let moved = document.model.vertices[0].position.x - row_model().vertices[0].position.x;
    assert!((moved - 0.4).abs() < 1e-4, "{moved}");
    // While the brush is on, a click is the brush's too (it ends a stroke that never moved).
    frame(
        &mut editor,
        &mut tools!(),
        &mut owner,
        &[ViewInput::Press { at: away }, ViewInput::Click { at: away }],
    );
    assert_eq!(owner, None);
    assert_eq!(
        editor
            .document
            .as_ref()
            .unwrap()
            .selection
            .get(ElementKind::Vertex)
            .indices
            .len(),
        2,
        "the click tool never saw it"
    );
}
