#![allow(clippy::expect_used, clippy::unwrap_used)]
//! A gizmo drag of 100,000 selected vertices, one frame at a time: the move of one drag step
//! computed for every selected vertex, sent as typed positions (`SetField` of `Vec<Vec3>`),
//! built into an edit, merged into the drag's undo step and applied, plus the editor's frame
//! around it (the 3D view tab, no GPU). `json_ops` builds the same step the way the editor did
//! before typed edits (one JSON `[x, y, z]` per vertex through `EditOp::Set`), for comparison.
//! Run: `cargo bench -p pmx_ui --bench gizmo`.

use criterion::{Criterion, criterion_group, criterion_main};
use egui::{Pos2, RawInput, Rect, Vec2};
use pmx_core::edit::{EditOp, EditTarget, History, ops_to_edit};
use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::model::{ElementKind, PmxVersion};
use pmx_ui::EditorState;
use pmx_ui::document::Document;
use pmx_ui::i18n::Language;
use pmx_ui::settings::Settings;
use pmx_ui::view::transform::{Transform, transform_command};

// The editor's allocator (app/src/main.rs): the same memory behaviour as the program.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const VERTICES: usize = 100_000;

fn model() -> pmx_core::model::Model {
    large_model(&LargeModelSpec {
        vertices: VERTICES,
        faces: VERTICES,
        bones: 100,
        morphs: 10,
        rigid_bodies: 10,
        joints: 10,
        materials: 8,
        additional_uvs: 0,
        version: PmxVersion::V2_1,
    })
}

struct Bench {
    ctx: egui::Context,
    editor: EditorState,
    time: f64,
}

impl Bench {
    fn frame(&mut self, events: Vec<egui::Event>) {
        self.time += 1.0 / 60.0;
        let input = RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, Vec2::new(1280.0, 760.0))),
            time: Some(self.time),
            predicted_dt: 1.0 / 60.0,
            events,
            ..RawInput::default()
        };
        let editor = &mut self.editor;
        let output = self.ctx.run_ui(input, |ui| editor.ui(ui));
        let _ = self.ctx.tessellate(output.shapes, output.pixels_per_point);
    }
}

fn gizmo_drag(c: &mut Criterion) {
    let model = model();
    assert_eq!(model.vertices.len(), VERTICES);
    let mut editor = EditorState::new(Settings {
        language: Language::English,
        ..Settings::default()
    });
    editor.open_document(Document::from_model(model, None, None));
    editor.show_tab("view").unwrap();
    if let Some(document) = editor.document.as_mut() {
        let selection = document.selection.get_mut(ElementKind::Vertex);
        for v in 0..VERTICES {
            selection.indices.insert(v);
        }
    }
    let ctx = egui::Context::default();
    pmx_ui::fonts::install(&ctx);
    let mut bench = Bench {
        ctx,
        editor,
        time: 0.0,
    };
    bench.frame(Vec::new());
    // The button stays down for the whole drag (on the empty end of the menu bar, where a press
    // does nothing else): the editor merges the frames of a drag while it is down.
    let corner = Pos2::new(1270.0, 8.0);
    bench.frame(vec![
        egui::Event::PointerMoved(corner),
        egui::Event::PointerButton {
            pos: corner,
            button: egui::PointerButton::Primary,
            pressed: true,
            modifiers: egui::Modifiers::NONE,
        },
    ]);
    let gesture = egui::Id::unique("bench gizmo drag");
    let step = Transform::Move(glam::Vec3::new(0.001, 0.0, 0.0));

    let mut group = c.benchmark_group("gizmo_drag_100k_vertices");
    group.sample_size(20);
    // One frame of a drag: the step for every selected vertex, sent, built, merged, applied,
    // and the editor's frame.
    group.bench_function("frame", |b| {
        b.iter(|| {
            let document = bench.editor.document.as_ref().unwrap();
            let command = transform_command(document, ElementKind::Vertex, step, false).unwrap();
            bench.editor.push(command.in_gesture(Some(gesture)));
            bench.frame(Vec::new());
        });
    });
    let history = bench.editor.document.as_ref().unwrap().history.len();
    assert_eq!(
        history, 1,
        "every frame of the drag merged into one undo step"
    );

    // The same step through JSON ops, as before typed edits (built only: no frame around it).
    let document = bench.editor.document.as_ref().unwrap();
    let mut model = document.model.clone();
    let values: Vec<serde_json::Value> = model
        .vertices
        .iter()
        .map(|v| serde_json::json!([v.position.x + 0.001, v.position.y, v.position.z]))
        .collect();
    let mut json_history = History::new();
    let gesture_id = json_history.new_gesture();
    group.bench_function("json_ops_build_and_apply", |b| {
        b.iter(|| {
            let ops = vec![EditOp::Set {
                kind: EditTarget::Vertex,
                indices: (0..VERTICES).collect(),
                field: "position".to_owned(),
                value: None,
                values: Some(values.clone()),
            }];
            let edit = ops_to_edit(&mut model, &ops)
                .unwrap()
                .in_gesture(gesture_id);
            json_history.apply(&mut model, edit);
        });
    });
    group.finish();
}

criterion_group!(benches, gizmo_drag);
criterion_main!(benches);
