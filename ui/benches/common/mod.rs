//! The editor as the UI benchmarks drive it: `EditorState` in an egui context, one frame at a
//! time (`Context::run_ui` plus tessellation, i.e. everything but the GPU upload).

use egui::{
    Event, Modifiers, MouseWheelSource, MouseWheelUnit, Pos2, RawInput, Rect, TouchPhase, Vec2,
};
use pmx_core::model::Model;
use pmx_ui::EditorState;
use pmx_ui::document::Document;
use pmx_ui::editor::settings::Settings;
use pmx_ui::i18n::Language;

const SCREEN: Vec2 = Vec2::new(1280.0, 760.0);

pub struct EditorBench {
    pub ctx: egui::Context,
    pub editor: EditorState,
    time: f64,
}

impl EditorBench {
    /// The editor in English with `model` open on `tab`, `prepare` applied to it (a selection),
    /// after five idle frames.
    pub fn open(model: Model, tab: &str, prepare: impl FnOnce(&mut EditorState)) -> Self {
        let mut editor = EditorState::new(Settings {
            language: Language::English,
            ..Settings::default()
        });
        editor.open_document(Document::from_model(model, None, None));
        editor.show_tab(tab).unwrap();
        prepare(&mut editor);
        let ctx = egui::Context::default();
        pmx_ui::editor::fonts::install(&ctx);
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

    /// One frame with `events`, tessellated as eframe would; returns the primitive count.
    pub fn frame(&mut self, events: Vec<Event>) -> usize {
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

    /// A wheel step with the pointer at `at`.
    #[allow(dead_code)] // Not every benchmark scrolls.
    pub fn wheel_frame(&mut self, at: Pos2, delta: f32) -> usize {
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
