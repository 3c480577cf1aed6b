//! VRM with a big mesh: the shipped sample avatar (humanoid, physics, morphs) with a wavy
//! 1000 × 500 quad skirt (501,501 more vertices, 1,000,000 triangles, BDEF2 between 下半身 and
//! 上半身, carried by two vertex morphs) exported as VRM 1.0 once, then:
//! - `vrm import`: the GLB read back as an MMD model with the default options (A-pose baked,
//!   spring bones as rigid bodies and joints, materials, morphs, display frames);
//! - `vrm export`: the same model written as VRM 1.0 (T-pose baked, sparse morph targets).
//!
//! `cargo bench -p pmx_core --bench vrm_io`

// A benchmark on generated data: a failure here is a bug to see at once, not input to handle.
#![allow(clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use pmx_core::LoadOptions;
use pmx_core::formats::vrm::{VrmExportOptions, read_vrm, write_vrm};
use pmx_core::model::{
    Bone, BoneIdx, Model, Morph, MorphOffsets, MorphPanel, Vec2, Vec3, Vertex, VertexIdx,
    VertexMorphOffset, Weight,
};
use std::hint::black_box;
use std::time::Duration;

const COLUMNS: usize = 1000;
const ROWS: usize = 500;

fn bone_named(model: &Model, name: &str) -> Option<BoneIdx> {
    model
        .bones
        .iter()
        .position(|b: &Bone| b.name_ja.as_str() == name)
        .map(BoneIdx::new)
}

/// The sample model with the skirt added to its first material.
fn big_avatar() -> Model {
    let mut model = pmx_core::generate::sample_model();
    let lower = bone_named(&model, "下半身");
    let upper = bone_named(&model, "上半身");
    let first = model.vertices.len();
    let width = COLUMNS + 1;
    for row in 0..=ROWS {
        for column in 0..=COLUMNS {
            let angle = column as f32 / COLUMNS as f32 * std::f32::consts::TAU;
            let height = 10.0 - row as f32 * 0.01;
            let radius = 2.0 + (angle * 12.0).sin() * 0.1 + row as f32 * 0.004;
            model.vertices.push(Vertex {
                position: Vec3::new(angle.cos() * radius, height, angle.sin() * radius),
                normal: Vec3::new(angle.cos(), 0.0, angle.sin()),
                uv: Vec2::new(column as f32 / COLUMNS as f32, row as f32 / ROWS as f32),
                weight: Weight::Bdef2 {
                    bones: [lower, upper],
                    weight: 0.8,
                },
                edge_scale: 1.0,
            });
        }
    }
    let mut faces = Vec::with_capacity(COLUMNS * ROWS * 2);
    for row in 0..ROWS {
        for column in 0..COLUMNS {
            let a = first + row * width + column;
            let (b, c, d) = (a + 1, a + width + 1, a + width);
            faces.push([VertexIdx::new(a), VertexIdx::new(c), VertexIdx::new(b)]);
            faces.push([VertexIdx::new(a), VertexIdx::new(d), VertexIdx::new(c)]);
        }
    }
    // The skirt's faces go first, in the first material.
    let added = u32::try_from(faces.len() * 3).expect("fits");
    faces.extend_from_slice(&model.faces);
    model.faces = faces;
    if let Some(material) = model.materials.first_mut() {
        material.face_index_count += added;
    }
    for (name, lift) in [("skirt up", 0.5f32), ("skirt out", 0.2)] {
        let offsets = (first..model.vertices.len())
            .step_by(3)
            .map(|v| VertexMorphOffset {
                vertex: VertexIdx::new(v),
                offset: Vec3::new(0.0, lift, 0.0),
            })
            .collect();
        model.morphs.push(Morph {
            name_ja: name.into(),
            name_en: name.into(),
            panel: MorphPanel::Other,
            offsets: MorphOffsets::Vertex(offsets),
        });
    }
    model
}

fn benches(c: &mut Criterion) {
    let model = big_avatar();
    let vrm = write_vrm(&model, &VrmExportOptions::default())
        .expect("the avatar exports")
        .vrm;
    let mut group = c.benchmark_group("vrm_io");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.bench_function("vrm import (1M triangles)", |b| {
        b.iter(|| read_vrm(black_box(&vrm), &LoadOptions::default()).expect("reads"));
    });
    group.bench_function("vrm export (1M triangles)", |b| {
        b.iter(|| write_vrm(black_box(&model), &VrmExportOptions::default()).expect("writes"));
    });
    group.finish();
}

criterion_group!(vrm_benches, benches);
criterion_main!(vrm_benches);
