#![allow(clippy::expect_used, clippy::unwrap_used)]
//! UI time per frame of the structure editors on large data: the bone tab (tree + table +
//! property panel) of a 1,000-bone model, and the morph tab with the offset table of a morph
//! with 100,000 vertex offsets, idle and while the wheel scrolls. `Context::run_ui` plus
//! tessellation, i.e. everything but the GPU upload. Run: `cargo bench -p pmx_ui --bench editors`.

use criterion::{Criterion, criterion_group, criterion_main};
use egui::Pos2;
use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::model::{ElementKind, MorphOffsets, PmxVersion, Vec3, VertexIdx, VertexMorphOffset};

mod common;

use common::EditorBench;

/// `model` open on `tab` with element `select` of `kind` selected.
fn open(model: pmx_core::model::Model, tab: &str, kind: ElementKind, select: usize) -> EditorBench {
    EditorBench::open(model, tab, |editor| {
        if let Some(document) = editor.document.as_mut() {
            document.selection.get_mut(kind).select_only(select);
        }
    })
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
    let mut bench = open(model, "bones", ElementKind::Bone, 500);
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
            bench.wheel_frame(over_tree, if down { -240.0 } else { 240.0 })
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
    let mut bench = open(model, "morphs", ElementKind::Morph, 0);
    let mut group = c.benchmark_group("ui_frame_100k_morph_offsets");
    group.sample_size(60);
    group.bench_function("idle", |b| b.iter(|| bench.frame(Vec::new())));
    // The wheel over the offset table (the lower half of the tab, above the validation pane).
    let over_offsets = Pos2::new(300.0, 440.0);
    group.bench_function("offset_wheel_scroll", |b| {
        b.iter(|| bench.wheel_frame(over_offsets, -240.0))
    });
    group.finish();
}

criterion_group!(benches, bone_tree, morph_offsets);
criterion_main!(benches);
