#![allow(clippy::expect_used, clippy::unwrap_used)]
//! UI time per frame of the editor showing the vertex table of the generated 1,000,000-vertex
//! model while it scrolls: `Context::run_ui` (layout, widgets, the table's visible rows) plus
//! tessellation, i.e. everything but the GPU upload. Run: `cargo bench -p pmx_ui`.

use criterion::{Criterion, criterion_group, criterion_main};
use egui::{
    Event, Modifiers, MouseWheelSource, MouseWheelUnit, Pos2, RawInput, Rect, TouchPhase, Vec2,
};
use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::model::ElementKind;
use pmx_ui::EditorState;
use pmx_ui::document::Document;
use pmx_ui::i18n::Language;
use pmx_ui::settings::Settings;

const SCREEN: Vec2 = Vec2::new(1280.0, 760.0);

struct Bench {
    ctx: egui::Context,
    editor: EditorState,
    time: f64,
}

impl Bench {
    fn new(tab: &str) -> Self {
        let model = large_model(&LargeModelSpec::million());
        assert_eq!(model.vertices.len(), 1_000_000);
        let mut editor = EditorState::new(Settings {
            language: Language::English,
            ..Settings::default()
        });
        editor.open_document(Document::from_model(model, None, None));
        editor.show_tab(tab).unwrap();
        let ctx = egui::Context::default();
        pmx_ui::fonts::install(&ctx);
        let mut bench = Self {
            ctx,
            editor,
            time: 0.0,
        };
        for _ in 0..5 {
            bench.frame(Vec::new());
        }
        bench
    }

    /// One frame with `events`, tessellated as eframe would.
    fn frame(&mut self, events: Vec<Event>) -> usize {
        self.time += 1.0 / 60.0;
        let input = RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, SCREEN)),
            time: Some(self.time),
            predicted_dt: 1.0 / 60.0,
            events,
            ..RawInput::default()
        };
        let editor = &mut self.editor;
        let output = self.ctx.run_ui(input, |ui| editor.ui(ui));
        let primitives = self.ctx.tessellate(output.shapes, output.pixels_per_point);
        primitives.len()
    }

    /// A wheel step over the table (the pointer sits in the table's middle).
    fn scroll_frame(&mut self, delta: f32) -> usize {
        let over_table = Pos2::new(400.0, 400.0);
        self.frame(vec![
            Event::PointerMoved(over_table),
            Event::MouseWheel {
                unit: MouseWheelUnit::Point,
                delta: Vec2::new(0.0, delta),
                phase: TouchPhase::Move,
                source: MouseWheelSource::Unknown,
                modifiers: Modifiers::NONE,
            },
        ])
    }
}

fn vertex_table(c: &mut Criterion) {
    let mut bench = Bench::new("vertices");
    let mut group = c.benchmark_group("ui_frame_1m_vertices");
    group.sample_size(60);
    group.bench_function("idle", |b| b.iter(|| bench.frame(Vec::new())));
    group.bench_function("wheel_scroll", |b| b.iter(|| bench.scroll_frame(-240.0)));
    // Jumps across the whole table (go to index), ending near the last rows.
    let mut row = 0usize;
    group.bench_function("jump_scroll", |b| {
        b.iter(|| {
            row = (row + 99_991) % 1_000_000;
            bench
                .editor
                .tables
                .get_mut(&ElementKind::Vertex)
                .unwrap()
                .scroll_to_index(row);
            bench.frame(Vec::new())
        });
    });
    // Everything selected: the property panel summarises 1,000,000 vertices (cached).
    bench.editor.push(pmx_ui::command::Command::Reveal {
        kind: ElementKind::Vertex,
        index: 999_999,
    });
    bench.frame(Vec::new());
    if let Some(document) = bench.editor.document.as_mut() {
        let selection = document.selection.get_mut(ElementKind::Vertex);
        selection.indices.insert_range(0, 1_000_000);
    }
    group.bench_function("all_selected_wheel_scroll", |b| {
        b.iter(|| bench.scroll_frame(240.0))
    });
    group.finish();
}

criterion_group!(benches, vertex_table);
criterion_main!(benches);
