#![allow(clippy::expect_used, clippy::unwrap_used)]
//! UI time per frame of the editor showing the vertex table of the generated 1,000,000-vertex
//! model while it scrolls: `Context::run_ui` (layout, widgets, the table's visible rows) plus
//! tessellation, i.e. everything but the GPU upload. Run: `cargo bench -p pmx_ui`.

use criterion::{Criterion, criterion_group, criterion_main};
use egui::Pos2;
use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::model::ElementKind;

mod common;

use common::EditorBench;

/// The table's middle, where the wheel scrolls it.
const OVER_TABLE: Pos2 = Pos2::new(400.0, 400.0);

fn million_on(tab: &str) -> EditorBench {
    let model = large_model(&LargeModelSpec::million());
    assert_eq!(model.vertices.len(), 1_000_000);
    EditorBench::open(model, tab, |_| {})
}

fn vertex_table(c: &mut Criterion) {
    let mut bench = million_on("vertices");
    let mut group = c.benchmark_group("ui_frame_1m_vertices");
    group.sample_size(60);
    group.bench_function("idle", |b| b.iter(|| bench.frame(Vec::new())));
    group.bench_function("wheel_scroll", |b| {
        b.iter(|| bench.wheel_frame(OVER_TABLE, -240.0))
    });
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
        b.iter(|| bench.wheel_frame(OVER_TABLE, 240.0))
    });
    group.finish();
}

/// Opening the 1,000,000-vertex file from the File menu's path: the window keeps drawing frames
/// (with the progress bar) while the file loads on its own thread. Prints the load time, the
/// number of frames drawn meanwhile and the slowest of them; the frame that takes the loaded
/// model in (and checks it for the validation pane) is reported apart.
fn frames_while_loading(_: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("million.pmx");
    pmx_core::formats::save_path(
        &large_model(&LargeModelSpec::million()),
        &path,
        &pmx_core::formats::SaveOptions::default(),
    )
    .unwrap();
    let file_size = std::fs::metadata(&path).unwrap().len();
    let mut bench = million_on("vertices");
    bench.editor.push(pmx_ui::command::Command::Open(path));
    let started = std::time::Instant::now();
    let mut loading_frames = Vec::new();
    let taking_in = loop {
        let frame_started = std::time::Instant::now();
        let was_loading = bench.editor.loading.is_some() || loading_frames.is_empty();
        bench.frame(Vec::new());
        if bench.editor.loading.is_none() && !loading_frames.is_empty() {
            break frame_started.elapsed();
        }
        if was_loading {
            loading_frames.push(frame_started.elapsed());
        }
        // A window redraws about 60 times a second while the progress bar moves.
        std::thread::sleep(std::time::Duration::from_millis(16));
    };
    let total = started.elapsed();
    loading_frames.sort();
    let median = loading_frames[loading_frames.len() / 2];
    let slowest = loading_frames[loading_frames.len() - 1];
    println!(
        "open {:.1} MiB in the window: {:.0} ms until the model was shown; {} frames drawn while \
         loading, median {:.2} ms, slowest {:.2} ms; the frame taking the model in {:.1} ms",
        file_size as f64 / (1024.0 * 1024.0),
        total.as_secs_f64() * 1e3,
        loading_frames.len(),
        median.as_secs_f64() * 1e3,
        slowest.as_secs_f64() * 1e3,
        taking_in.as_secs_f64() * 1e3,
    );
}

criterion_group!(benches, vertex_table, frames_while_loading);
criterion_main!(benches);
