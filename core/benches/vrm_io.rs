//! VRM with a big mesh: the shipped sample avatar (humanoid, physics, morphs) with a wavy
//! 1000 × 500 quad skirt (501,501 more vertices, 1,000,000 triangles, BDEF2 between 下半身 and
//! 上半身, carried by two vertex morphs) exported as VRM 1.0 once, then:
//! - `vrm import`: the GLB read back as an MMD model with the default options (A-pose baked,
//!   spring bones as rigid bodies and joints, materials, morphs, display frames);
//! - `vrm export`: the same model written as VRM 1.0 (T-pose baked, sparse morph targets);
//! - `vrm import, shared accessors`: a glTF laid out as UniVRM writes VRoid avatars, one mesh
//!   whose 10 primitives (one per material) all use the same 100,000 vertices and 50 morph
//!   targets, 10,000 triangles each.
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

/// Appends `data` to `bin` as a buffer view and an accessor; returns the accessor's index.
fn push_accessor(
    bin: &mut Vec<u8>,
    json: &mut serde_json::Value,
    data: &[u8],
    (component, kind, count): (u32, &str, usize),
) -> usize {
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let views = json["bufferViews"].as_array_mut().expect("an array");
    views.push(
        serde_json::json!({ "buffer": 0, "byteOffset": bin.len(), "byteLength": data.len() }),
    );
    let view = views.len() - 1;
    bin.extend_from_slice(data);
    let accessors = json["accessors"].as_array_mut().expect("an array");
    accessors.push(serde_json::json!({
        "bufferView": view, "componentType": component, "type": kind, "count": count,
    }));
    accessors.len() - 1
}

fn floats(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

/// A GLB in UniVRM's layout: every primitive of the one mesh names the same vertex
/// attributes and morph targets.
fn shared_accessor_glb() -> Vec<u8> {
    const VERTICES: usize = 100_000;
    const PRIMITIVES: usize = 10;
    const TARGETS: usize = 50;
    let mut json = serde_json::json!({
        "asset": { "version": "2.0" },
        "scene": 0,
        "scenes": [{ "nodes": [0, 2] }],
        "nodes": [
            { "name": "Hips", "children": [1] },
            { "name": "Spine", "translation": [0.0, 0.8, 0.0] },
            { "name": "Body", "mesh": 0, "skin": 0 },
        ],
        "materials": [],
        "accessors": [],
        "bufferViews": [],
    });
    let mut bin = Vec::new();
    let position = |v: usize| {
        let t = v as f32 / VERTICES as f32;
        [(t * 977.0).sin() * 0.3, t * 1.6, (t * 613.0).cos() * 0.2]
    };
    let vec3 = (5126, "VEC3", VERTICES);
    let positions = floats((0..VERTICES).flat_map(position));
    let position_accessor = push_accessor(&mut bin, &mut json, &positions, vec3);
    let normals = floats((0..VERTICES).flat_map(|_| [0.0, 0.0, 1.0]));
    let normal_accessor = push_accessor(&mut bin, &mut json, &normals, vec3);
    let uvs = floats((0..VERTICES).flat_map(|v| [position(v)[0], position(v)[1]]));
    let uv_accessor = push_accessor(&mut bin, &mut json, &uvs, (5126, "VEC2", VERTICES));
    let joints: Vec<u8> = (0..VERTICES).flat_map(|_| [0, 1, 0, 0]).collect();
    let joint_accessor = push_accessor(&mut bin, &mut json, &joints, (5121, "VEC4", VERTICES));
    let weights = floats((0..VERTICES).flat_map(|v| {
        let upper = position(v)[1] / 1.6;
        [1.0 - upper, upper, 0.0, 0.0]
    }));
    let weight_accessor = push_accessor(&mut bin, &mut json, &weights, (5126, "VEC4", VERTICES));
    let targets: Vec<serde_json::Value> = (0..TARGETS)
        .map(|t| {
            let deltas = floats((0..VERTICES).flat_map(|v| {
                let moved = (v + t) % 7 == 0;
                [0.0, if moved { 0.01 } else { 0.0 }, 0.0]
            }));
            let accessor = push_accessor(&mut bin, &mut json, &deltas, vec3);
            serde_json::json!({ "POSITION": accessor })
        })
        .collect();
    let mut primitives = Vec::new();
    for p in 0..PRIMITIVES {
        let indices: Vec<u8> = (0..VERTICES / PRIMITIVES)
            .flat_map(|f| {
                let a = ((f * PRIMITIVES + p) * 7919) % VERTICES;
                [a, (a + 1) % VERTICES, (a + 2) % VERTICES]
            })
            .flat_map(|i| u32::try_from(i).expect("fits").to_le_bytes())
            .collect();
        let count = indices.len() / 4;
        let index_accessor = push_accessor(&mut bin, &mut json, &indices, (5125, "SCALAR", count));
        json["materials"]
            .as_array_mut()
            .expect("an array")
            .push(serde_json::json!({ "name": format!("material {p}") }));
        primitives.push(serde_json::json!({
            "attributes": {
                "POSITION": position_accessor, "NORMAL": normal_accessor,
                "TEXCOORD_0": uv_accessor, "JOINTS_0": joint_accessor,
                "WEIGHTS_0": weight_accessor,
            },
            "indices": index_accessor,
            "material": p,
            "targets": targets,
        }));
    }
    let identity = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let inverse_binds = floats(
        identity
            .into_iter()
            .chain([0.0, 0.0, 0.0, 1.0])
            .chain(identity)
            .chain([0.0, -0.8, 0.0, 1.0]),
    );
    let inverse_bind_accessor =
        push_accessor(&mut bin, &mut json, &inverse_binds, (5126, "MAT4", 2));
    json["meshes"] = serde_json::json!([{ "name": "Body", "primitives": primitives }]);
    json["skins"] =
        serde_json::json!([{ "joints": [0, 1], "inverseBindMatrices": inverse_bind_accessor }]);
    json["buffers"] = serde_json::json!([{ "byteLength": bin.len() }]);
    let mut json_bytes = serde_json::to_vec(&json).expect("serialises");
    while !json_bytes.len().is_multiple_of(4) {
        json_bytes.push(b' ');
    }
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let total = 12 + 8 + json_bytes.len() + 8 + bin.len();
    let mut glb = Vec::with_capacity(total);
    for word in [0x4654_6C67, 2, total] {
        glb.extend_from_slice(&u32::try_from(word).expect("fits").to_le_bytes());
    }
    glb.extend_from_slice(&u32::try_from(json_bytes.len()).expect("fits").to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&json_bytes);
    glb.extend_from_slice(&u32::try_from(bin.len()).expect("fits").to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&bin);
    glb
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
    let shared = shared_accessor_glb();
    group.bench_function(
        "vrm import, shared accessors (10 primitives × 100k vertices, 50 targets)",
        |b| {
            b.iter(|| read_vrm(black_box(&shared), &LoadOptions::default()).expect("reads"));
        },
    );
    group.finish();
}

criterion_group!(vrm_benches, benches);
criterion_main!(vrm_benches);
