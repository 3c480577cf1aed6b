#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The UV tab on a character-sized model (30,000 vertices, 60,000 faces, 30 materials, every
//! material shown) one editor frame at a time (`Context::run_ui` plus tessellation): idle with
//! 3,000 vertices selected (the wireframe of every face drawn as one mesh, the selected corners,
//! the gizmo), and one frame of a drag that moves those 3,000 UVs (the edit built, merged into
//! the drag's undo step and applied, the wireframe kept since only UVs changed). A frame of
//! 16.7 ms or less keeps 60 frames a second.
//! Run: `cargo bench -p pmx_ui --bench uv_pane`.

use criterion::{Criterion, criterion_group, criterion_main};
use egui::Pos2;
use pmx_core::edit::{UvChannel, UvTransform, UvTransformGroup};
use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::model::{ElementKind, PmxVersion};
use pmx_ui::command::{Command, EditCommand, EditRequest};

mod common;

use common::EditorBench;

const VERTICES: usize = 30_000;
const SELECTED: usize = 3_000;

fn model() -> pmx_core::model::Model {
    large_model(&LargeModelSpec {
        vertices: VERTICES,
        faces: VERTICES * 2,
        bones: 100,
        morphs: 10,
        rigid_bodies: 10,
        joints: 10,
        materials: 30,
        additional_uvs: 0,
        version: PmxVersion::V2_1,
    })
}

fn uv_pane(c: &mut Criterion) {
    let mut bench = EditorBench::open(model(), "uv", |editor| {
        if let Some(document) = editor.document.as_mut() {
            document
                .selection
                .get_mut(ElementKind::Vertex)
                .indices
                .insert_range(0, SELECTED);
        }
    });
    let mut group = c.benchmark_group("uv_pane_30k_vertices_30_materials");
    group.sample_size(30);
    group.bench_function("idle_frame", |b| {
        b.iter(|| bench.frame(Vec::new()));
    });

    // The button stays down for the whole drag (on the empty end of the menu bar): the editor
    // merges the frames of a drag while it is down.
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
    let gesture = egui::Id::unique("bench uv drag");
    let selected: Vec<usize> = (0..SELECTED).collect();
    group.bench_function("drag_frame", |b| {
        b.iter(|| {
            bench.editor.push(Command::Edit(EditCommand {
                request: EditRequest::TransformUv {
                    channel: UvChannel::Base,
                    groups: vec![UvTransformGroup {
                        indices: selected.clone(),
                        transform: UvTransform::moving(glam::Vec2::new(0.0001, 0.0)),
                    }],
                    morph: None,
                },
                gesture: Some(gesture),
                select_created: false,
            }));
            bench.frame(Vec::new());
        });
    });
    group.finish();
    assert_eq!(
        bench.editor.document.as_ref().unwrap().history.len(),
        1,
        "every frame of the drag merged into one undo step"
    );
}

criterion_group!(benches, uv_pane);
criterion_main!(benches);
