#![allow(clippy::expect_used, clippy::unwrap_used)]
//! UI time per frame of the structure editors on large data: the bone tab (tree + table +
//! property panel) of a 1,000-bone model, and the morph tab with the offset table of a morph
//! with 100,000 vertex offsets, idle and while the wheel scrolls. `Context::run_ui` plus
//! tessellation, i.e. everything but the GPU upload. Run: `cargo bench -p pmx_ui --bench editors`.

use criterion::{Criterion, criterion_group, criterion_main};
use egui::{
    Event, Modifiers, MouseWheelSource, MouseWheelUnit, Pos2, RawInput, Rect, TouchPhase, Vec2,
};
use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::model::{ElementKind, MorphOffsets, PmxVersion, Vec3, VertexIdx, VertexMorphOffset};
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
    fn new(model: pmx_core::model::Model, tab: &str, kind: ElementKind, select: usize) -> Self {
        let mut editor = EditorState::new(Settings {
            language: Language::English,
            ..Settings::default()
        });
        editor.open_document(Document::from_model(model, None, None));
        editor.show_tab(tab).unwrap();
        if let Some(document) = editor.document.as_mut() {
            document.selection.get_mut(kind).select_only(select);
        }
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

    fn scroll_frame(&mut self, at: Pos2, delta: f32) -> usize {
        self.frame(vec![
            Event::PointerMoved(at),
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

fn spec(vertices: usize, bones: usize) -> LargeModelSpec {
    LargeModelSpec {
        vertices,
        faces: vertices,
        bones,
        morphs: 40,
        rigid_bodies: 40,
        joints: 40,
        materials: 8,
        additional_uvs: 0,
        version: PmxVersion::V2_1,
    }
}

fn bone_tree(c: &mut Criterion) {
    let model = large_model(&spec(20_000, 1_000));
    assert_eq!(model.bones.len(), 1_000);
    let mut bench = Bench::new(model, "bones", ElementKind::Bone, 500);
    let mut group = c.benchmark_group("ui_frame_1000_bones");
    group.sample_size(60);
    group.bench_function("idle", |b| b.iter(|| bench.frame(Vec::new())));
    // The wheel over the tree (left side of the pane), down then back up.
    let over_tree = Pos2::new(120.0, 450.0);
    let mut down = true;
    let mut steps = 0;
    group.bench_function("tree_wheel_scroll", |b| {
        b.iter(|| {
            steps += 1;
            if steps % 200 == 0 {
                down = !down;
            }
            bench.scroll_frame(over_tree, if down { -240.0 } else { 240.0 })
        })
    });
    // Find as you type: the tree filtered to the matches and their ancestors.
    bench.editor.editors.bone_tree.search = "9".into();
    group.bench_function("tree_search_idle", |b| b.iter(|| bench.frame(Vec::new())));
    group.finish();
}

fn morph_offsets(c: &mut Criterion) {
    let mut model = large_model(&spec(100_000, 200));
    model.morphs[0].offsets = MorphOffsets::Vertex(
        (0..100_000u32)
            .map(|v| VertexMorphOffset {
                vertex: VertexIdx(v),
                offset: Vec3::new(0.001 * v as f32, 0.0, 0.5),
            })
            .collect(),
    );
    let mut bench = Bench::new(model, "morphs", ElementKind::Morph, 0);
    let mut group = c.benchmark_group("ui_frame_100k_morph_offsets");
    group.sample_size(60);
    group.bench_function("idle", |b| b.iter(|| bench.frame(Vec::new())));
    // The wheel over the offset table (the lower half of the tab, above the validation pane).
    let over_offsets = Pos2::new(300.0, 440.0);
    group.bench_function("offset_wheel_scroll", |b| {
        b.iter(|| bench.scroll_frame(over_offsets, -240.0))
    });
    group.finish();
}

criterion_group!(benches, bone_tree, morph_offsets);
criterion_main!(benches);
