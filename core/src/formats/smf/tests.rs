//! Unit tests of the SMF writer and reader, with a second, independent reader that walks the
//! bytes the way the engine's `CModelLoader::LoadFromMemory` does.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use super::*;
use crate::formats::LoadOptions;
use crate::formats::error::ReadError;
use crate::generate::{self, LargeModelSpec};
use crate::model::{
    Bone, BoneFlags, BoneIdx, Material, Model, PmxVersion, TextEncoding, Vec2, Vec3, Vertex,
    VertexIdx, Weight,
};
use crate::pose::{Pose, PoseEvaluator};
use glam::{Mat3, Quat, Vec3 as GVec3};
use write::SmfAnimation;

// ---------------------------------------------------------------------------------------------
// Chunk IDs

#[test]
fn chunk_ids_are_msvc_multicharacter_constants_stored_little_endian() {
    // 'SMF' is 0x00534D46; little-endian it is 46 4D 53 00 (the README's bytes).
    assert_eq!(id::SMF.0, 0x0053_4D46);
    assert_eq!(id::SMF.to_bytes(), [0x46, 0x4D, 0x53, 0x00]);
    assert_eq!(id::MESH.0, 0x4D45_5348);
    assert_eq!(id::MESH.to_bytes(), [0x48, 0x53, 0x45, 0x4D]);
    assert_eq!(&id::FRM.to_bytes(), b"MRF\0");
    assert_eq!(&id::V_A.to_bytes(), b"A_V\0");
    assert_eq!(&id::LGT.to_bytes(), b"TGL\0");
    assert_eq!(&id::IDX2.to_bytes(), b"2XDI");
    assert_eq!(id::V_UV.name().as_deref(), Some("V_UV"));
    assert_eq!(format!("{:?}", id::OBB), "'OBB'");
}

// ---------------------------------------------------------------------------------------------
// The engine's walk, written apart from the project's reader: raw byte IDs spelled out by hand,
// the loader's loop, and every size and count asserted.

type M4 = [[f32; 4]; 4];

#[derive(Debug, Default)]
struct EngineFrame {
    local: M4,
    mesh: i32,
    parent: i32,
}

#[derive(Debug, Default)]
struct EngineMaterial {
    polygon_start: usize,
    polygon_count: usize,
    vertex_start: usize,
    vertex_count: usize,
    sub_ids: Vec<[u8; 4]>,
}

#[derive(Debug, Default)]
struct EngineMesh {
    palette: Vec<(M4, usize)>,
    positions: Vec<[f32; 3]>,
    weights: Vec<(f32, [u8; 4])>,
    uv_count: usize,
    normal_count: usize,
    indices: Vec<u32>,
    wide_indices: bool,
    materials: Vec<EngineMaterial>,
    collision: [usize; 3],
}

/// One `ANI`: target frame and its keys (time, value).
#[derive(Debug, Default)]
struct EngineAnimation {
    target: usize,
    rotations: Vec<(i32, [f32; 4])>,
    translations: Vec<(i32, [f32; 3])>,
}

#[derive(Debug, Default)]
struct EngineFile {
    frames: Vec<EngineFrame>,
    meshes: Vec<EngineMesh>,
    animation_sets: Vec<(i32, Vec<EngineAnimation>)>,
}

fn rd_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn rd_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn rd_f32(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn rd_m4(b: &[u8], at: usize) -> M4 {
    let mut m = [[0.0; 4]; 4];
    for (r, row) in m.iter_mut().enumerate() {
        for (c, cell) in row.iter_mut().enumerate() {
            *cell = rd_f32(b, at + (r * 4 + c) * 4);
        }
    }
    m
}

/// The loader's loop over `data`: (ID bytes, body) pairs; asserts that the chunks fill `data`
/// exactly.
fn engine_chunks(data: &[u8]) -> Vec<([u8; 4], &[u8])> {
    let mut out = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        assert!(pos + 8 <= data.len(), "chunk header past the end at {pos}");
        let id: [u8; 4] = data[pos..pos + 4].try_into().unwrap();
        let size = rd_i32(data, pos + 4);
        assert!(size >= 0, "negative size");
        pos += 8;
        let end = pos + size as usize;
        assert!(end <= data.len(), "chunk {id:?} runs past its parent");
        out.push((id, &data[pos..end]));
        pos = end;
    }
    assert_eq!(pos, data.len(), "chunks fill their parent exactly");
    out
}

fn engine_walk(bytes: &[u8]) -> EngineFile {
    let top = engine_chunks(bytes);
    assert_eq!(top[0].0, *b"FMS\0", "the SMF header comes first");
    let head = top[0].1;
    assert_eq!(head.len(), 16, "SMF_FILEHEAD is 16 bytes");
    assert_eq!(rd_u32(head, 0), 0x2007_1101);
    let mesh_count = rd_i32(head, 4) as usize;
    let frame_count = rd_i32(head, 8) as usize;
    let animation_set_count = rd_i32(head, 12) as usize;
    let mut file = EngineFile::default();
    for (id, body) in &top[1..] {
        match id {
            b"MRF\0" => {
                assert_eq!(body.len(), 136, "SMF_FRAMEDATA, no sub-chunks");
                assert_eq!(body[64 + 63], 0, "names end in NUL inside 64 bytes");
                file.frames.push(EngineFrame {
                    local: rd_m4(body, 0),
                    mesh: rd_i32(body, 128),
                    parent: rd_i32(body, 132),
                });
            }
            b"HSEM" => file.meshes.push(engine_mesh(body)),
            b"SINA" => file.animation_sets.push(engine_animation_set(body)),
            other => panic!("unexpected top-level chunk {other:?}"),
        }
    }
    assert_eq!(
        file.animation_sets.len(),
        animation_set_count,
        "AnimationSetCount"
    );
    for (_, animations) in &file.animation_sets {
        for animation in animations {
            assert!(animation.target < frame_count);
        }
    }
    assert_eq!(file.frames.len(), frame_count, "FrameCount");
    assert_eq!(file.meshes.len(), mesh_count, "MeshCount");
    for frame in &file.frames {
        assert!(frame.parent >= -1 && frame.parent < frame_count as i32);
        assert!(frame.mesh >= -1 && frame.mesh < mesh_count as i32);
    }
    for mesh_index in 0..mesh_count {
        let holders = file
            .frames
            .iter()
            .filter(|f| f.mesh == mesh_index as i32)
            .count();
        assert_eq!(holders, 1, "mesh {mesh_index} has exactly one holder frame");
    }
    for mesh in &file.meshes {
        for &(_, frame) in &mesh.palette {
            assert!(frame < frame_count);
        }
    }
    file
}

fn engine_animation_set(body: &[u8]) -> (i32, Vec<EngineAnimation>) {
    assert!(body.len() >= 72);
    assert_eq!(body[63], 0);
    let count = rd_i32(body, 64) as usize;
    let last_time = rd_i32(body, 68);
    let mut animations = Vec::new();
    for (id, sub) in engine_chunks(&body[72..]) {
        assert_eq!(&id, b"INA\0", "only ANI inside ANIS");
        let target = rd_i32(sub, 0) as usize;
        let [scales, rotations, translations] = [4, 8, 12].map(|at| rd_i32(sub, at) as usize);
        assert_eq!(
            sub.len(),
            16 + 16 * scales + 20 * rotations + 16 * translations,
            "ANI size"
        );
        assert!(rotations >= 1 && scales >= 1 && translations >= 1);
        let mut at = 16 + 16 * scales;
        let mut animation = EngineAnimation {
            target,
            ..EngineAnimation::default()
        };
        for _ in 0..rotations {
            animation.rotations.push((
                rd_i32(sub, at),
                [0, 1, 2, 3].map(|k| rd_f32(sub, at + 4 + k * 4)),
            ));
            at += 20;
        }
        for _ in 0..translations {
            animation.translations.push((
                rd_i32(sub, at),
                [0, 1, 2].map(|k| rd_f32(sub, at + 4 + k * 4)),
            ));
            at += 16;
        }
        assert!(animation.rotations.iter().all(|&(t, _)| t <= last_time));
        animations.push(animation);
    }
    assert_eq!(animations.len(), count, "AnimationCount");
    (last_time, animations)
}

fn engine_mesh(body: &[u8]) -> EngineMesh {
    assert!(body.len() >= 68);
    assert_eq!(body[63], 0);
    let material_count = rd_i32(body, 64) as usize;
    let mut mesh = EngineMesh::default();
    let mut vertex_count = None;
    let mut check_count = |n: usize| match vertex_count {
        Some(expected) => assert_eq!(n, expected, "every vertex chunk has the V_PC count"),
        None => vertex_count = Some(n),
    };
    for (id, sub) in engine_chunks(&body[68..]) {
        match &id {
            b"\0BBO" => unreachable!(),
            b"BBO\0" => assert_eq!(sub.len(), 60, "SMF_OBBDATA"),
            b"ENOB" => {
                assert_eq!(sub.len() % 68, 0);
                let n = sub.len() / 68;
                assert!(n <= 40, "palette of {n} > MAX_BONE_COUNT");
                mesh.palette = (0..n)
                    .map(|i| (rd_m4(sub, i * 68), rd_i32(sub, i * 68 + 64) as usize))
                    .collect();
            }
            b"CP_V" => {
                assert_eq!(sub.len() % 16, 0);
                let n = sub.len() / 16;
                check_count(n);
                mesh.positions = (0..n)
                    .map(|i| [0, 1, 2].map(|k| rd_f32(sub, i * 16 + k * 4)))
                    .collect();
            }
            b"N_V\0" => {
                assert_eq!(sub.len() % 12, 0);
                mesh.normal_count = sub.len() / 12;
                check_count(mesh.normal_count);
            }
            b"A_V\0" => {
                assert_eq!(sub.len() % 8, 0);
                let n = sub.len() / 8;
                check_count(n);
                mesh.weights = (0..n)
                    .map(|i| {
                        (
                            rd_f32(sub, i * 8),
                            sub[i * 8 + 4..i * 8 + 8].try_into().unwrap(),
                        )
                    })
                    .collect();
            }
            b"VU_V" => {
                assert_eq!(sub.len() % 16, 0);
                mesh.uv_count = sub.len() / 16;
                check_count(mesh.uv_count);
            }
            b"2XDI" => {
                assert_eq!(sub.len() % 6, 0, "whole triangles of u16");
                mesh.indices = sub
                    .chunks_exact(2)
                    .map(|c| u32::from(u16::from_le_bytes([c[0], c[1]])))
                    .collect();
            }
            b"4XDI" => {
                assert_eq!(sub.len() % 12, 0, "whole triangles of u32");
                mesh.wide_indices = true;
                mesh.indices = sub
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                    .collect();
            }
            b"LRTM" => mesh.materials.push(engine_material(sub)),
            b"TA_C" => {
                assert_eq!(sub.len() % 12, 0);
                mesh.collision[0] = sub.len() / 12;
            }
            b"CF_C" => {
                assert_eq!(sub.len() % 32, 0);
                mesh.collision[1] = sub.len() / 32;
            }
            b"XV_C" => {
                assert_eq!(sub.len() % 28, 0);
                mesh.collision[2] = sub.len() / 28;
            }
            // The exporter's vertex list, which the loader's switch skips.
            b"IVXP" => {
                assert_eq!(sub.len() % 4, 0);
                check_count(sub.len() / 4);
            }
            other => panic!("unexpected mesh sub-chunk {other:?}"),
        }
    }
    let n = mesh.positions.len();
    assert_eq!(mesh.normal_count, n);
    assert_eq!(mesh.uv_count, n);
    assert_eq!(mesh.wide_indices, n > 65_535, "IDX2 up to 65,535 vertices");
    assert!(mesh.indices.iter().all(|&i| (i as usize) < n));
    assert_eq!(mesh.materials.len(), material_count, "MaterialCount");
    if !mesh.weights.is_empty() {
        for (_, index) in &mesh.weights {
            assert!((index[0] as usize) < mesh.palette.len());
            assert!((index[1] as usize) < mesh.palette.len());
        }
    }
    let polygons = mesh.indices.len() / 3;
    for material in &mesh.materials {
        assert!(material.polygon_start + material.polygon_count <= polygons);
        let used = &mesh.indices
            [material.polygon_start * 3..(material.polygon_start + material.polygon_count) * 3];
        for &i in used {
            let i = i as usize;
            assert!(
                i >= material.vertex_start && i < material.vertex_start + material.vertex_count,
                "DrawIndexedPrimitive's vertex range covers the material's indices"
            );
        }
    }
    mesh
}

fn engine_material(body: &[u8]) -> EngineMaterial {
    assert!(body.len() >= 80);
    assert_eq!(body[63], 0);
    let mut material = EngineMaterial {
        polygon_start: rd_i32(body, 64) as usize,
        polygon_count: rd_i32(body, 68) as usize,
        vertex_start: rd_i32(body, 72) as usize,
        vertex_count: rd_i32(body, 76) as usize,
        sub_ids: Vec::new(),
    };
    for (id, sub) in engine_chunks(&body[80..]) {
        let expected = match &id {
            b"CXET" => 64,
            b"WARD" | b"SETZ" | b"IRWZ" | b"SETA" | b"DNBA" | b"LLUC" | b"TGL\0" => 4,
            b"FFID" => 16,
            b"SIME" => 12,
            b"CEPS" => 20,
            other => panic!("unexpected material sub-chunk {other:?}"),
        };
        assert_eq!(sub.len(), expected, "size of {id:?}");
        material.sub_ids.push(id);
    }
    // CULL falls through into LGT in the loader: LGT must come right after it.
    let cull = material.sub_ids.iter().position(|id| id == b"LLUC");
    let light = material.sub_ids.iter().position(|id| id == b"TGL\0");
    assert!(
        cull.is_some() && light == cull.map(|c| c + 1),
        "LGT right after CULL"
    );
    material
}

/// Vertex positions as the engine skins them under `rotations` (one per bone frame, applied in
/// the frame's local space before its translation: `local' = R × local`), face corner by face
/// corner in file order.
fn engine_skinned_corners(file: &EngineFile, rotations: &[Quat]) -> Vec<GVec3> {
    fn rot(q: Quat) -> M4 {
        // Row-vector matrix: its rows are the column-vector matrix's columns.
        let m = Mat3::from_quat(q);
        let r = [m.x_axis, m.y_axis, m.z_axis];
        let mut out = IDENTITY;
        for (row, axis) in r.iter().enumerate() {
            out[row][..3].copy_from_slice(&axis.to_array());
        }
        out
    }
    engine_corners(file, |i, frame| {
        let q = rotations.get(i).copied().unwrap_or(Quat::IDENTITY);
        multiply(&rot(q), &frame.local)
    })
}

/// Selene's `Matrix = Quaternion` (Math/Matrix.h), as written there.
fn selene_rotation(q: [f32; 4]) -> M4 {
    let [x, y, z, w] = q;
    let (xx, yy, zz, xy, xz, yz, wx, wy, wz) = (
        x * x,
        y * y,
        z * z,
        x * y,
        x * z,
        y * z,
        w * x,
        w * y,
        w * z,
    );
    [
        [1.0 - 2.0 * (yy + zz), 2.0 * (xy - wz), 2.0 * (xz + wy), 0.0],
        [2.0 * (xy + wz), 1.0 - 2.0 * (xx + zz), 2.0 * (yz - wx), 0.0],
        [2.0 * (xz - wy), 2.0 * (yz + wx), 1.0 - 2.0 * (xx + yy), 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

/// The engine at key time `time` of animation set 0: `CFrame::UpdateAnimationTransform`'s
/// `scale × rotation` with the translation in the fourth row for animated frames, the default
/// local matrix for the others.
fn engine_animated_corners(file: &EngineFile, time: i32) -> Vec<GVec3> {
    let animations = &file.animation_sets[0].1;
    engine_corners(file, |i, frame| {
        match animations.iter().find(|a| a.target == i) {
            Some(animation) => {
                let rotation = animation.rotations.iter().find(|k| k.0 == time).unwrap().1;
                let translation = animation
                    .translations
                    .iter()
                    .find(|k| k.0 == time)
                    .unwrap()
                    .1;
                let mut local = selene_rotation(rotation);
                local[3] = [translation[0], translation[1], translation[2], 1.0];
                local
            }
            None => frame.local,
        }
    })
}

/// Face corners skinned with each frame's local matrix from `local_of`.
fn engine_corners(file: &EngineFile, local_of: impl Fn(usize, &EngineFrame) -> M4) -> Vec<GVec3> {
    let n = file.frames.len();
    let mut world: Vec<Option<M4>> = vec![None; n];
    fn resolve(
        i: usize,
        file: &EngineFile,
        local_of: &dyn Fn(usize, &EngineFrame) -> M4,
        world: &mut Vec<Option<M4>>,
    ) -> M4 {
        if let Some(m) = world[i] {
            return m;
        }
        let frame = &file.frames[i];
        let local = local_of(i, frame);
        let m = if frame.parent >= 0 {
            let parent = resolve(frame.parent as usize, file, local_of, world);
            multiply(&local, &parent)
        } else {
            local
        };
        world[i] = Some(m);
        m
    }
    let mut corners = Vec::new();
    for mesh in &file.meshes {
        let skin: Vec<M4> = mesh
            .palette
            .iter()
            .map(|(offset, frame)| multiply(offset, &resolve(*frame, file, &local_of, &mut world)))
            .collect();
        let skinned: Vec<GVec3> = mesh
            .positions
            .iter()
            .zip(&mesh.weights)
            .map(|(&p, &(w, index))| {
                let a = GVec3::from(transform_point(p, &skin[index[0] as usize]));
                let b = GVec3::from(transform_point(p, &skin[index[1] as usize]));
                a * w + b * (1.0 - w)
            })
            .collect();
        for material in &mesh.materials {
            for polygon in material.polygon_start..material.polygon_start + material.polygon_count {
                for c in 0..3 {
                    corners.push(skinned[mesh.indices[polygon * 3 + c] as usize]);
                }
            }
        }
    }
    corners
}

// ---------------------------------------------------------------------------------------------
// Models

fn corpus_file(sub: &str, name: &str) -> Option<Vec<u8>> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus")
        .join(sub)
        .join(name);
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(_) => {
            eprintln!("skipped: {} is absent", path.display());
            None
        }
    }
}

/// A chain of `bones` bones along +Y with a ring of four vertices at each, every face between
/// neighbouring rings weighted across three or four bones, so palettes fill up fast.
fn long_chain(bones: usize) -> Model {
    let mut model = Model::new_empty();
    for i in 0..bones {
        model.bones.push(Bone {
            name_ja: format!("骨{i}").into(),
            position: Vec3::new(0.0, i as f32, 0.0),
            parent: (i > 0).then(|| BoneIdx::new(i - 1)),
            flags: BoneFlags::ROTATABLE | BoneFlags::VISIBLE,
            ..Bone::default()
        });
    }
    for i in 0..bones {
        for k in 0..4 {
            let angle = k as f32 * std::f32::consts::FRAC_PI_2;
            let b = |j: usize| Some(BoneIdx::new(j.min(bones - 1)));
            let weight = match k {
                0 => Weight::Bdef1 { bone: b(i) },
                1 => Weight::Bdef2 {
                    bones: [b(i), b(i + 1)],
                    weight: 0.75,
                },
                2 => Weight::Bdef4 {
                    bones: [b(i), b(i + 1), b(i + 2), b(i + 3)],
                    weights: [0.4, 0.3, 0.2, 0.1],
                },
                _ => Weight::Sdef {
                    bones: [b(i + 1), b(i)],
                    weight: 0.5,
                    c: Vec3::ZERO,
                    r0: Vec3::ZERO,
                    r1: Vec3::ZERO,
                },
            };
            model.vertices.push(Vertex {
                position: Vec3::new(angle.cos(), i as f32 + 0.5, angle.sin()),
                normal: Vec3::new(angle.cos(), 0.0, angle.sin()),
                uv: Vec2::new(k as f32 / 4.0, i as f32 / bones as f32),
                weight,
                edge_scale: 1.0,
            });
        }
    }
    for i in 0..bones - 1 {
        for k in 0..4 {
            let a = (i * 4 + k) as u32;
            let b = (i * 4 + (k + 1) % 4) as u32;
            let c = a + 4;
            let d = b + 4;
            model.faces.push([VertexIdx(a), VertexIdx(c), VertexIdx(b)]);
            model.faces.push([VertexIdx(b), VertexIdx(c), VertexIdx(d)]);
        }
    }
    let half = model.faces.len() / 2 * 3;
    model.materials.push(Material {
        name_ja: "上".into(),
        face_index_count: half as u32,
        ..Material::default()
    });
    model.materials.push(Material {
        name_ja: "下".into(),
        face_index_count: (model.faces.len() * 3 - half) as u32,
        ..Material::default()
    });
    model
}

fn feature_model() -> Model {
    generate::feature_model(PmxVersion::V2_0, TextEncoding::Utf16, 400, 60)
}

/// The model as SMF shows it: IK and append off (the engine plays neither), weights cut to
/// two bones as the export does, vertices without a bone bound to the first.
fn as_engine_sees_it(model: &Model) -> Model {
    let mut reference = model.clone();
    // Plain forward kinematics, parents first: no IK, append, axis limits, external parents
    // or deform layers (Selene updates frames down the tree).
    let kept = BoneFlags::ROTATABLE
        | BoneFlags::MOVABLE
        | BoneFlags::VISIBLE
        | BoneFlags::OPERABLE
        | BoneFlags::TAIL_IS_BONE;
    for bone in &mut reference.bones {
        bone.flags &= kept;
        bone.layer = 0;
    }
    let bones = reference.bones.len();
    for vertex in &mut reference.vertices {
        vertex.weight = two_bone_weight(&vertex.weight, bones).map_or(
            Weight::Bdef1 {
                bone: Some(BoneIdx::new(0)),
            },
            |(w, _)| w,
        );
    }
    reference
}

fn test_pose(model: &Model) -> (Pose, Vec<Quat>) {
    let mut pose = Pose::new(model);
    let mut rotations = Vec::new();
    for i in 0..model.bones.len() {
        let f = i as f32;
        let q = Quat::from_euler(
            glam::EulerRot::YXZ,
            0.3 * (f * 0.7).sin(),
            0.25 * (f * 1.3).cos(),
            0.2 * (f * 0.4).sin(),
        );
        pose.set_bone(BoneIdx::new(i), q, glam::Vec3::ZERO);
        rotations.push(q.normalize());
    }
    (pose, rotations)
}

/// The pose engine's positions of `model`'s face corners, in face order.
fn posed_corners(model: &Model, pose: &Pose) -> Vec<GVec3> {
    let mut evaluator = PoseEvaluator::new(model);
    evaluator.evaluate(model, pose).unwrap();
    let positions = evaluator.positions();
    model
        .faces
        .iter()
        .flat_map(|face| face.map(|v| positions[v.get()]))
        .collect()
}

fn assert_close(a: &[GVec3], b: &[GVec3], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: corner counts");
    let scale = a
        .iter()
        .map(|p| p.abs().max_element())
        .fold(1.0f32, f32::max);
    for (i, (p, q)) in a.iter().zip(b).enumerate() {
        assert!(
            (*p - *q).abs().max_element() <= 2e-5 * scale,
            "{what}: corner {i}: {p} vs {q}"
        );
    }
}

/// Exports `model`, walks the file as the engine, and checks the engine's skinning under a
/// test pose against the pose engine on the model as SMF shows it.
fn check_engine_view(model: &Model, what: &str) -> (EngineFile, SmfExportReport) {
    let export = write_smf(model, &SmfExportOptions::default()).unwrap();
    let file = engine_walk(&export.bytes);
    assert_eq!(
        file.frames.len(),
        model.bones.len() + file.meshes.len(),
        "{what}: a frame per bone and per mesh"
    );
    assert!(export.report.largest_palette <= MAX_BONE_COUNT);
    let reference = as_engine_sees_it(model);
    let (pose, rotations) = test_pose(&reference);
    let expected = posed_corners(&reference, &pose);
    let got = engine_skinned_corners(&file, &rotations);
    assert_close(&got, &expected, what);
    // And the rest pose is the model itself.
    let rest = engine_skinned_corners(&file, &[]);
    let original: Vec<GVec3> = model
        .faces
        .iter()
        .flat_map(|f| f.map(|v| GVec3::from(model.vertices[v.get()].position)))
        .collect();
    assert_close(&rest, &original, what);
    (file, export.report)
}

// ---------------------------------------------------------------------------------------------
// Writer

#[test]
fn sample_model_walks_as_the_engine_reads_it() {
    let model = generate::sample_model();
    let (file, report) = check_engine_view(&model, "sample");
    assert_eq!(report.faces, model.faces.len());
    assert!(!file.meshes.is_empty());
}

#[test]
fn a_long_chain_is_cut_into_meshes_of_at_most_40_bones() {
    let model = long_chain(130);
    let (file, report) = check_engine_view(&model, "chain");
    assert!(file.meshes.len() >= 4, "{} meshes", file.meshes.len());
    assert!(
        file.meshes
            .iter()
            .all(|m| m.palette.len() <= MAX_BONE_COUNT)
    );
    assert!(
        file.meshes.iter().any(|m| m.palette.len() > 30),
        "palettes are filled"
    );
    // Both materials survive the cut, the first continued over several meshes.
    let faces: usize = file
        .meshes
        .iter()
        .flat_map(|m| &m.materials)
        .map(|m| m.polygon_count)
        .sum();
    assert_eq!(faces, model.faces.len());
    // SDEF and BDEF4 are reported; the BDEF4 error is 0.2 (the dropped 0.2 weight).
    assert!(
        report
            .losses
            .iter()
            .any(|l| matches!(l, SmfLoss::SdefAsLinear { vertices: 130 }))
    );
    let first_bdef4 = report
        .weight_reductions
        .iter()
        .find(|r| r.vertex == 2)
        .expect("vertex 2 is BDEF4");
    assert!((first_bdef4.error - 0.2).abs() < 1e-6, "{first_bdef4:?}");
    // The same model always gives the same bytes.
    let again = write_smf(&model, &SmfExportOptions::default()).unwrap();
    assert_eq!(
        again.bytes,
        write_smf(&model, &SmfExportOptions::default())
            .unwrap()
            .bytes
    );
}

#[test]
fn generated_feature_model_walks_and_skins_as_the_pose_engine() {
    let model = feature_model();
    check_engine_view(&model, "feature");
}

#[test]
fn gene_with_224_bones_skins_the_same_under_a_pose() {
    let Some(bytes) = corpus_file("pmx", "pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let (model, _) = crate::formats::pmx::read(&bytes, &LoadOptions::default()).unwrap();
    assert!(model.bones.len() > 40);
    let (file, report) = check_engine_view(&model, "gene");
    assert!(file.meshes.len() > 1);
    assert!(report.largest_palette <= MAX_BONE_COUNT);
}

#[test]
fn two_bone_reduction() {
    let b = |i: usize| Some(BoneIdx::new(i));
    let (w, error) = two_bone_weight(
        &Weight::Bdef4 {
            bones: [b(3), b(1), b(2), b(0)],
            weights: [0.1, 0.4, 0.3, 0.2],
        },
        4,
    )
    .unwrap();
    assert_eq!(
        w,
        Weight::Bdef2 {
            bones: [b(1), b(2)],
            weight: 0.4f32 / (0.4f32 + 0.3f32)
        }
    );
    assert!((error - 0.2).abs() < 1e-6);
    // BDEF2 and BDEF1 are exact.
    let bdef2 = Weight::Bdef2 {
        bones: [b(0), b(1)],
        weight: 0.3,
    };
    assert_eq!(two_bone_weight(&bdef2, 2), Some((bdef2, 0.0)));
    assert_eq!(
        two_bone_weight(&Weight::Bdef1 { bone: b(1) }, 2),
        Some((Weight::Bdef1 { bone: b(1) }, 0.0))
    );
    // A bone named twice counts once with the sum.
    let (w, _) = two_bone_weight(
        &Weight::Bdef4 {
            bones: [b(0), b(1), b(0), None],
            weights: [0.3, 0.4, 0.3, 0.0],
        },
        2,
    )
    .unwrap();
    assert_eq!(
        w,
        Weight::Bdef2 {
            bones: [b(0), b(1)],
            weight: 0.6 / 1.0
        }
    );
    assert_eq!(two_bone_weight(&Weight::Bdef1 { bone: None }, 2), None);
}

#[test]
fn names_are_cut_at_a_character_boundary_within_63_bytes() {
    let long = "あ".repeat(40); // 80 bytes in cp932
    let (field, cut, unmappable) = write::name_field(&long);
    assert!(cut && !unmappable);
    let end = field.iter().position(|&b| b == 0).unwrap();
    assert_eq!(
        end, 62,
        "31 two-byte characters; the 32nd would end at byte 64"
    );
    assert_eq!(
        crate::formats::cp932::decode_lossy(&field[..end]),
        "あ".repeat(31)
    );
    let (field, cut, unmappable) = write::name_field("a\u{1F600}b");
    assert!(!cut && unmappable);
    assert_eq!(&field[..4], b"a?b\0");

    let mut model = long_chain(3);
    model.bones[0].name_ja = long.as_str().into();
    let export = write_smf(&model, &SmfExportOptions::default()).unwrap();
    assert!(
        export
            .report
            .losses
            .iter()
            .any(|l| matches!(l, SmfLoss::NameCut { kind: "bone", .. }))
    );
    let (read, _) = read_smf(&export.bytes, &LoadOptions::default()).unwrap();
    assert_eq!(read.bones[0].name_ja.as_str(), "あ".repeat(31));
}

#[test]
fn materials_write_their_state_chunks() {
    let mut model = long_chain(3);
    model.materials[0].diffuse.w = 0.5;
    model.materials[0].draw_flags |= crate::model::DrawFlags::DOUBLE_SIDED;
    model.materials[1].specular = Vec3::new(0.1, 0.2, 0.3);
    model.materials[1].specular_power = 12.0;
    model.textures.push("tex\\hair.png".into());
    model.materials[1].texture = Some(crate::model::TextureIdx::new(0));
    let options = SmfExportOptions {
        collision_materials: vec![1, 7],
        ..SmfExportOptions::default()
    };
    let export = write_smf(&model, &options).unwrap();
    let file = engine_walk(&export.bytes);
    let mesh = &file.meshes[0];
    let ids: Vec<Vec<[u8; 4]>> = mesh.materials.iter().map(|m| m.sub_ids.clone()).collect();
    assert_eq!(
        ids[0],
        vec![
            *b"WARD", *b"SETZ", *b"IRWZ", *b"LLUC", *b"TGL\0", *b"FFID", *b"SIME"
        ]
    );
    assert_eq!(
        ids[1],
        vec![
            *b"CXET", *b"WARD", *b"SETZ", *b"IRWZ", *b"SETA", *b"DNBA", *b"LLUC", *b"TGL\0",
            *b"FFID", *b"SIME", *b"CEPS"
        ]
    );
    let half = model.materials[1].face_index_count as usize / 3;
    assert_eq!(mesh.collision, [1, half, 4 * 2]);
    assert!(
        export
            .report
            .losses
            .contains(&SmfLoss::CollisionMaterialMissing { material: 7 })
    );

    let (read, report) = read_smf(&export.bytes, &LoadOptions::default()).unwrap();
    assert_eq!(read.materials.len(), 2);
    assert_eq!(read.materials[0].diffuse.w, 0.5);
    assert!(
        read.materials[0]
            .draw_flags
            .contains(crate::model::DrawFlags::DOUBLE_SIDED)
    );
    assert_eq!(read.materials[1].specular, Vec3::new(0.1, 0.2, 0.3));
    assert_eq!(read.materials[1].specular_power, 12.0);
    assert_eq!(read.textures[0].as_str(), "tex\\hair.png");
    assert!(report.notes.iter().any(|n| n.message.contains("collision")));
}

// ---------------------------------------------------------------------------------------------
// Reader

fn corners_of(model: &Model) -> Vec<[u32; 10]> {
    model
        .faces
        .iter()
        .flat_map(|face| {
            face.map(|v| {
                let vertex = &model.vertices[v.get()];
                let mut out = [0u32; 10];
                for (slot, value) in out.iter_mut().zip(
                    vertex
                        .position
                        .to_array()
                        .into_iter()
                        .chain(vertex.normal.to_array())
                        .chain(vertex.uv.to_array()),
                ) {
                    *slot = value.to_bits();
                }
                out
            })
        })
        .collect()
}

#[test]
fn chain_reads_back_with_split_vertices_joined() {
    let model = long_chain(130);
    let export = write_smf(&model, &SmfExportOptions::default()).unwrap();
    assert!(
        export.report.vertices > model.vertices.len(),
        "some vertices were duplicated"
    );
    let (read, _) = read_smf(&export.bytes, &LoadOptions::default()).unwrap();
    assert_eq!(
        read.vertices.len(),
        model.vertices.len(),
        "duplicates joined again"
    );
    assert_eq!(read.bones.len(), model.bones.len());
    assert_eq!(
        read.materials.len(),
        2,
        "the material cut between meshes is one again"
    );
    assert_eq!(corners_of(&read), corners_of(&model));
    for (a, b) in read.bones.iter().zip(&model.bones) {
        assert_eq!(a.position, b.position);
        assert_eq!(a.parent, b.parent);
        assert_eq!(a.name_ja, b.name_ja);
    }
}

/// A small file with every kind of chunk: meshes, materials with every state chunk, collision
/// data and an animation set.
fn small_file() -> Vec<u8> {
    use crate::formats::vmd::{BoneKey, BoneTrack, Motion};
    let mut model = long_chain(4);
    model.textures.push("a.png".into());
    model.materials[0].texture = Some(crate::model::TextureIdx::new(0));
    model.materials[1].specular = Vec3::new(0.5, 0.5, 0.5);
    let motion = Motion {
        bone_tracks: vec![BoneTrack {
            name: crate::formats::cp932::SjisName::from_text("骨1").unwrap(),
            keys: vec![BoneKey {
                frame: 2,
                translation: Vec3::ZERO,
                rotation: crate::model::Vec4::new(0.0, 0.0, 0.3f32.sin(), 0.3f32.cos()),
                interpolation: [20; 64],
            }],
        }],
        ..Motion::default()
    };
    let options = SmfExportOptions {
        collision_materials: vec![0],
        animation: Some(SmfAnimation {
            name: "anim".into(),
            motion,
        }),
        ..SmfExportOptions::default()
    };
    let bytes = write_smf(&model, &options).unwrap().bytes;
    assert_eq!(engine_walk(&bytes).animation_sets.len(), 1);
    bytes
}

#[test]
fn every_prefix_fails_cleanly_with_a_location() {
    let bytes = small_file();
    assert!(read_smf(&bytes, &LoadOptions::default()).is_ok());
    for end in 0..bytes.len() {
        match read_smf(&bytes[..end], &LoadOptions::default()) {
            Ok(_) => panic!("prefix of {end} bytes read as a whole file"),
            Err(error) => {
                let location = error.location().expect("every error has a location");
                assert!(location.offset <= end, "{error}");
                let text = error.to_string();
                assert!(text.contains("at byte"), "{text}");
            }
        }
    }
}

#[test]
fn byte_flips_never_panic() {
    let bytes = small_file();
    let mut rng = generate::Rng::new(0x5F_u64);
    let mut failures = 0;
    for _ in 0..3000 {
        let mut broken = bytes.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(broken.len());
            broken[at] = rng.next_u64() as u8;
        }
        match read_smf(&broken, &LoadOptions::default()) {
            Err(error) => {
                failures += 1;
                assert!(error.location().is_some(), "{error}");
            }
            // What the fuzz target checks: a model that validates and exports again.
            Ok((model, _)) => {
                let errors: Vec<_> =
                    crate::validate::check(&model, None, &crate::validate::CheckOptions::default())
                        .into_iter()
                        .filter(|issue| issue.is_error())
                        .collect();
                assert!(errors.is_empty(), "{errors:#?}");
                let export = write_smf(&model, &SmfExportOptions::default()).unwrap();
                let (again, _) = read_smf(&export.bytes, &LoadOptions::default()).unwrap();
                assert_eq!(again.faces.len(), model.faces.len());
            }
        }
    }
    assert!(failures > 0);
}

#[test]
fn errors_name_the_chunk_field_and_offset() {
    let model = long_chain(4);
    let bytes = write_smf(&model, &SmfExportOptions::default())
        .unwrap()
        .bytes;
    // The GUID.
    let mut broken = bytes.clone();
    broken[8] ^= 1;
    let error = read_smf(&broken, &LoadOptions::default()).unwrap_err();
    assert!(matches!(error, ReadError::Unsupported { .. }), "{error}");
    assert_eq!(error.location().unwrap().path(), "SMF.Guid");
    assert_eq!(error.location().unwrap().offset, 8);
    // A frame count the file cannot hold is refused before allocating.
    let mut broken = bytes.clone();
    broken[16..20].copy_from_slice(&i32::MAX.to_le_bytes());
    let error = read_smf(&broken, &LoadOptions::default()).unwrap_err();
    assert_eq!(
        error.location().unwrap().path(),
        "SMF.FrameCount",
        "{error}"
    );
    // An index past the mesh's vertices.
    let file = write_smf(&model, &SmfExportOptions::default()).unwrap();
    let at = find(&file.bytes, b"2XDI") + 8;
    let mut broken = file.bytes.clone();
    broken[at..at + 2].copy_from_slice(&9999u16.to_le_bytes());
    let error = read_smf(&broken, &LoadOptions::default()).unwrap_err();
    let location = error.location().unwrap();
    assert_eq!(location.path(), "MESH[0].IDX2[6].index", "{error}");
    assert_eq!(location.offset, at);
}

fn find(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .position(|w| w == needle)
        .unwrap()
}

#[test]
fn large_generated_model_round_trips() {
    let model = generate::large_model(&LargeModelSpec {
        vertices: 3000,
        faces: 5000,
        bones: 120,
        morphs: 11,
        rigid_bodies: 2,
        joints: 1,
        materials: 7,
        additional_uvs: 1,
        version: PmxVersion::V2_0,
    });
    check_engine_view(&model, "large");
    let export = write_smf(&model, &SmfExportOptions::default()).unwrap();
    let (read, _) = read_smf(&export.bytes, &LoadOptions::default()).unwrap();
    assert_eq!(corners_of(&read), corners_of(&model));
}

#[test]
fn a_mesh_past_65535_vertices_uses_32_bit_indices() {
    // A grid without bones: one mesh, 300 × 240 = 72,000 vertices.
    let (columns, rows) = (300usize, 240usize);
    let mut model = Model::new_empty();
    for r in 0..rows {
        for c in 0..columns {
            model.vertices.push(Vertex {
                position: Vec3::new(c as f32, r as f32, 0.0),
                uv: Vec2::new(c as f32 / columns as f32, r as f32 / rows as f32),
                ..Vertex::default()
            });
        }
    }
    for r in 0..rows - 1 {
        for c in 0..columns - 1 {
            let a = (r * columns + c) as u32;
            let b = a + 1;
            let d = a + columns as u32;
            model.faces.push([VertexIdx(a), VertexIdx(d), VertexIdx(b)]);
            model
                .faces
                .push([VertexIdx(b), VertexIdx(d), VertexIdx(d + 1)]);
        }
    }
    model.materials.push(Material {
        name_ja: "grid".into(),
        face_index_count: (model.faces.len() * 3) as u32,
        ..Material::default()
    });
    let export = write_smf(&model, &SmfExportOptions::default()).unwrap();
    let file = engine_walk(&export.bytes);
    assert_eq!(file.meshes.len(), 1);
    assert!(file.meshes[0].wide_indices);
    assert!(file.meshes[0].weights.is_empty(), "no V_A without bones");
    let (read, _) = read_smf(&export.bytes, &LoadOptions::default()).unwrap();
    assert_eq!(corners_of(&read), corners_of(&model));
    assert!(read.bones.is_empty(), "the mesh holder frame is not a bone");
}

#[test]
fn a_motion_is_baked_into_an_animation_set_the_engine_plays_as_the_pose_engine() {
    use crate::formats::cp932::SjisName;
    use crate::formats::vmd::{BoneKey, BoneTrack, Motion};
    let model = long_chain(60);
    let mut interpolation = [0u8; 64];
    for c in 0..4 {
        interpolation[c] = 20;
        interpolation[4 + c] = 20;
        interpolation[8 + c] = 107;
        interpolation[12 + c] = 107;
    }
    let key = |frame: u32, rotation: Quat, translation: Vec3| BoneKey {
        frame,
        translation,
        rotation: crate::model::Vec4::new(rotation.x, rotation.y, rotation.z, rotation.w),
        interpolation,
    };
    let track = |name: &str, keys: Vec<BoneKey>| BoneTrack {
        name: SjisName::from_text(name).unwrap(),
        keys,
    };
    let motion = Motion {
        bone_tracks: vec![
            track(
                "骨3",
                vec![
                    key(0, Quat::IDENTITY, Vec3::ZERO),
                    key(10, Quat::from_rotation_z(0.8), Vec3::ZERO),
                ],
            ),
            track(
                "骨30",
                vec![
                    key(0, Quat::IDENTITY, Vec3::ZERO),
                    key(10, Quat::from_rotation_x(-0.6), Vec3::new(0.5, 0.0, 0.0)),
                ],
            ),
            track("骨なし", vec![key(0, Quat::IDENTITY, Vec3::ZERO)]),
        ],
        ..Motion::default()
    };
    let options = SmfExportOptions {
        animation: Some(SmfAnimation {
            name: "歩き".into(),
            motion: motion.clone(),
        }),
        ..SmfExportOptions::default()
    };
    let export = write_smf(&model, &options).unwrap();
    assert!(export.report.losses.iter().any(|l| matches!(
        l,
        SmfLoss::MotionKeysDropped {
            unmatched_bones: 1,
            ..
        }
    )));
    let file = engine_walk(&export.bytes);
    assert_eq!(file.animation_sets.len(), 1);
    assert_eq!(file.animation_sets[0].0, 10, "LastTime in frames");
    let targets: Vec<usize> = file.animation_sets[0].1.iter().map(|a| a.target).collect();
    assert_eq!(targets, vec![3, 30], "only the bones that move");

    let reference = as_engine_sees_it(&model);
    let binding = motion.bind(&reference);
    for frame in [0u32, 4, 10] {
        let mut pose = Pose::new(&reference);
        motion.sample(&binding, frame as f32, &mut pose);
        let expected = posed_corners(&reference, &pose);
        let got = engine_animated_corners(&file, frame as i32);
        assert_close(&got, &expected, &format!("frame {frame}"));
    }
    // The reader skips the animation set with a note.
    let (read, report) = read_smf(&export.bytes, &LoadOptions::default()).unwrap();
    assert_eq!(read.faces.len(), model.faces.len());
    assert!(report.notes.iter().any(|n| n.message.contains("ANIS")));
}

#[test]
fn gene_nodding_plays_in_the_engine_as_in_the_pose_engine() {
    let (Some(model_bytes), Some(motion_bytes)) = (
        corpus_file("pmx", "pmxeditor_gene_cc_by.pmx"),
        corpus_file("vmd", "mmdagent_ex_nod.vmd"),
    ) else {
        return;
    };
    let (model, _) = crate::formats::pmx::read(&model_bytes, &LoadOptions::default()).unwrap();
    let motion = crate::formats::vmd::read(&motion_bytes, &LoadOptions::default()).unwrap();
    let options = SmfExportOptions {
        animation: Some(SmfAnimation {
            name: "motion".into(),
            motion: motion.clone(),
        }),
        ..SmfExportOptions::default()
    };
    let export = write_smf(&model, &options).unwrap();
    let file = engine_walk(&export.bytes);
    let last = file.animation_sets[0].0;
    assert_eq!(last as u32, motion.last_frame());
    eprintln!(
        "gene motion: {} frames, {} animated bones",
        last,
        file.animation_sets[0].1.len()
    );
    assert!(!file.animation_sets[0].1.is_empty());
    // The pose engine on the model itself (IK and append included: the keys are baked), with
    // the weights the file holds.
    let mut reference = model.clone();
    let bones = reference.bones.len();
    for vertex in &mut reference.vertices {
        vertex.weight = two_bone_weight(&vertex.weight, bones).map_or(
            Weight::Bdef1 {
                bone: Some(BoneIdx::new(0)),
            },
            |(w, _)| w,
        );
    }
    let binding = motion.bind(&reference);
    for frame in [0, last / 3, last / 2, last] {
        let mut pose = Pose::new(&reference);
        motion.sample(&binding, frame as f32, &mut pose);
        let expected = posed_corners(&reference, &pose);
        let got = engine_animated_corners(&file, frame);
        assert_close(&got, &expected, &format!("gene frame {frame}"));
    }
}

#[test]
fn the_report_lists_what_smf_cannot_hold_in_both_languages() {
    let mut model = feature_model();
    model.vertices.push(Vertex::default());
    let export = write_smf(&model, &SmfExportOptions::default()).unwrap();
    let losses = &export.report.losses;
    for expected in ["morphs", "rigid bodies", "joints"] {
        assert!(
            losses
                .iter()
                .any(|l| matches!(l, SmfLoss::Dropped { kind, .. } if *kind == expected)),
            "{expected} in {losses:#?}"
        );
    }
    assert!(
        losses
            .iter()
            .any(|l| matches!(l, SmfLoss::IkDropped { .. }))
    );
    assert!(
        losses
            .iter()
            .any(|l| matches!(l, SmfLoss::AppendDropped { .. }))
    );
    assert!(
        losses
            .iter()
            .any(|l| matches!(l, SmfLoss::WeightsReduced { .. }))
    );
    assert!(losses.contains(&SmfLoss::UnusedVertices { vertices: 1 }));
    assert!(losses.contains(&SmfLoss::EnglishNamesDropped));
    for loss in losses {
        assert!(!loss.message_en().is_empty());
        assert!(!loss.message_ja().is_ascii(), "{}", loss.message_ja());
    }
    assert_eq!(export.report.to_save_report().warnings.len(), losses.len());
}

/// `long_chain(130)` with its faces cut into materials of one ring (8 faces) each and a
/// material without faces after every one of them, so that faceless materials fall at every
/// place a mesh cut can be: inside a mesh, at a cut, first and last.
fn chain_with_faceless_materials() -> Model {
    let mut model = long_chain(130);
    let rings = model.faces.len() / 8;
    model.materials.clear();
    model.materials.push(Material {
        name_ja: "空0".into(),
        face_index_count: 0,
        ..Material::default()
    });
    for ring in 0..rings {
        model.materials.push(Material {
            name_ja: format!("輪{ring}").into(),
            face_index_count: 24,
            ..Material::default()
        });
        model.materials.push(Material {
            name_ja: format!("空{}", ring + 1).into(),
            face_index_count: 0,
            ..Material::default()
        });
    }
    model
}

#[test]
fn materials_without_faces_survive_export_and_import() {
    let model = chain_with_faceless_materials();
    let export = write_smf(&model, &SmfExportOptions::default()).unwrap();
    assert!(export.report.meshes > 1, "the chain is cut into meshes");
    let (read, _) = read_smf(&export.bytes, &LoadOptions::default()).unwrap();
    let names = |m: &Model| -> Vec<String> {
        m.materials
            .iter()
            .map(|material| material.name_ja.as_str().into_owned())
            .collect()
    };
    assert_eq!(names(&read), names(&model));
    let counts =
        |m: &Model| -> Vec<u32> { m.materials.iter().map(|x| x.face_index_count).collect() };
    assert_eq!(counts(&read), counts(&model));

    // A model without any face has no mesh to keep its materials in (a mesh without vertices
    // is no safe input for the engine): the save report lists them.
    let mut faceless = model.clone();
    faceless.faces.clear();
    for material in &mut faceless.materials {
        material.face_index_count = 0;
    }
    let export = write_smf(&faceless, &SmfExportOptions::default()).unwrap();
    let warnings = export.report.to_save_report().warnings;
    let count = faceless.materials.len();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains(&format!("{count} materials not written"))),
        "{warnings:?}"
    );
}

#[test]
fn identical_vertices_stay_apart_and_only_the_exporters_copies_are_joined() {
    // Every vertex of the chain again, equal in every value, used by faces of the last
    // material (so by a later mesh than the originals).
    let mut model = long_chain(130);
    let originals = model.vertices.len();
    model.vertices.extend_from_within(..);
    let copied_faces: Vec<[VertexIdx; 3]> = model.faces[..16]
        .iter()
        .map(|face| face.map(|v| VertexIdx(v.0 + originals as u32)))
        .collect();
    model.faces.extend(copied_faces);
    model.materials[1].face_index_count += 16 * 3;
    let used_copies: std::collections::BTreeSet<u32> = model.faces[model.faces.len() - 16..]
        .iter()
        .flatten()
        .map(|v| v.0)
        .collect();
    let export = write_smf(&model, &SmfExportOptions::default()).unwrap();
    assert!(export.report.meshes > 1);
    let (read, report) = read_smf(&export.bytes, &LoadOptions::default()).unwrap();
    assert_eq!(
        read.vertices.len(),
        originals + used_copies.len(),
        "the look-alike copies are vertices of their own"
    );
    assert_eq!(corners_of(&read), corners_of(&model));
    let join = report
        .notes
        .iter()
        .find(|note| note.message.contains("PXVI"))
        .expect("the join of the exporter's copies is noted");
    assert!(!join.lost, "{join}");
    assert_eq!(join.location.field, "PXVI");
    assert!(join.location.offset > 0);

    // Without the exporter's list (a file from another writer), every vertex of the file is a
    // vertex of the model.
    let mut foreign = export.bytes.clone();
    let list = id::PXVI.to_bytes();
    let mut at = 0;
    while let Some(found) = foreign[at..].windows(4).position(|w| w == list) {
        foreign[at + found..at + found + 4].copy_from_slice(b"????");
        at += found + 4;
    }
    let (read, report) = read_smf(&foreign, &LoadOptions::default()).unwrap();
    assert_eq!(read.vertices.len(), export.report.vertices);
    assert!(
        report
            .notes
            .iter()
            .all(|note| !note.message.contains("joined"))
    );
    assert_eq!(corners_of(&read), corners_of(&model));
}

/// The offset of frame `index`'s body in a file `write_smf` wrote (its frames follow the
/// header chunk, each `FRM` without sub-chunks).
fn frame_body(bytes: &[u8], index: usize) -> usize {
    let header = size::CHUNK_HEADER + size::FILE_HEAD;
    let at = header + index * (size::CHUNK_HEADER + size::FRAME_DATA);
    assert_eq!(&bytes[at..at + 4], &id::FRM.to_bytes());
    at + size::CHUNK_HEADER
}

#[test]
fn a_parent_loop_is_reported_at_its_byte_and_recovered_as_a_root() {
    let model = long_chain(4);
    let mut bytes = write_smf(&model, &SmfExportOptions::default())
        .unwrap()
        .bytes;
    // Frame 0's parent becomes frame 3: 0 → 3 → 2 → 1 → 0.
    let parent_at = frame_body(&bytes, 0) + 132;
    assert_eq!(parent_at, 164, "the field the issue names");
    bytes[parent_at..parent_at + 4].copy_from_slice(&3i32.to_le_bytes());
    let error = read_smf(&bytes, &LoadOptions::default()).unwrap_err();
    let location = error.location().unwrap();
    assert_eq!(location.path(), "FRM[0].ParentFrameNo", "{error}");
    assert_eq!(location.offset, 164, "{error}");

    let recover = LoadOptions {
        recover: true,
        ..LoadOptions::default()
    };
    let (read, report) = read_smf(&bytes, &recover).unwrap();
    assert_eq!(read.bones.len(), 4);
    assert_eq!(read.bones[0].parent, None, "the loop is cut at frame 0");
    for (index, bone) in read.bones.iter().enumerate().skip(1) {
        assert_eq!(bone.parent, Some(BoneIdx::new(index - 1)));
    }
    assert_eq!(read.vertices.len(), model.vertices.len());
    assert_eq!(read.faces.len(), model.faces.len());
    let note = report
        .notes
        .iter()
        .find(|note| note.location.field == "ParentFrameNo")
        .unwrap();
    assert!(note.lost);
    assert_eq!(note.location.offset, 164);
    assert!(report.lost_data());
}

#[test]
fn every_location_is_the_fields_own_byte() {
    let model = long_chain(4);
    let bytes = write_smf(&model, &SmfExportOptions::default())
        .unwrap()
        .bytes;
    // A parent past the frames, a mesh number past the meshes, a NaN in a matrix.
    for (field, at, value) in [
        ("ParentFrameNo", 132, 99i32.to_le_bytes()),
        ("MeshNo", 128, 99i32.to_le_bytes()),
        ("mTransform", 20, f32::NAN.to_le_bytes()),
    ] {
        let mut broken = bytes.clone();
        let offset = frame_body(&bytes, 2) + at;
        broken[offset..offset + 4].copy_from_slice(&value);
        let error = read_smf(&broken, &LoadOptions::default()).unwrap_err();
        let location = error.location().unwrap();
        assert_eq!(location.path(), format!("FRM[2].{field}"), "{error}");
        assert_eq!(location.offset, offset, "{error}");
    }
}

#[test]
fn recovery_keeps_everything_before_a_damaged_frame() {
    let model = long_chain(4);
    let bytes = write_smf(&model, &SmfExportOptions::default())
        .unwrap()
        .bytes;
    let recover = LoadOptions {
        recover: true,
        ..LoadOptions::default()
    };
    // A parent number that is no frame: the frame becomes a root, nothing else is lost.
    let mut broken = bytes.clone();
    let parent_at = frame_body(&bytes, 2) + 132;
    broken[parent_at..parent_at + 4].copy_from_slice(&1234i32.to_le_bytes());
    assert!(read_smf(&broken, &LoadOptions::default()).is_err());
    let (read, report) = read_smf(&broken, &recover).unwrap();
    assert_eq!(read.bones.len(), 4);
    assert_eq!(read.bones[2].parent, None);
    assert_eq!(read.bones[3].parent, Some(BoneIdx::new(2)));
    assert_eq!(read.vertices.len(), model.vertices.len());
    assert_eq!(corners_of(&read), corners_of(&model));
    let note = report.notes.iter().find(|note| note.lost).unwrap();
    assert_eq!(note.location.offset, parent_at);
    assert!(note.message.contains("root"), "{note}");
    assert!(report.recovered_from.is_some());

    // The file cut inside frame 2: frames 0 and 1 are kept as bones; the meshes after them
    // are gone, and said so.
    let cut = frame_body(&bytes, 2) + 40;
    assert!(read_smf(&bytes[..cut], &LoadOptions::default()).is_err());
    let (read, report) = read_smf(&bytes[..cut], &recover).unwrap();
    assert_eq!(read.bones.len(), 2);
    assert_eq!(read.bones[1].parent, Some(BoneIdx::new(0)));
    assert!(read.vertices.is_empty());
    assert!(report.lost_data());
    assert!(
        report
            .notes
            .iter()
            .any(|note| note.location.offset == cut - 40 - 4)
    );

    // The file cut inside the last mesh's vertices: every complete vertex before the cut is
    // kept.
    let positions = find(&bytes, &id::V_PC.to_bytes()) + size::CHUNK_HEADER;
    let cut = positions + 3 * size::V_PC + 5;
    let (read, report) = read_smf(&bytes[..cut], &recover).unwrap();
    let (whole, _) = read_smf(&bytes, &LoadOptions::default()).unwrap();
    assert_eq!(read.bones.len(), model.bones.len());
    assert_eq!(read.vertices.len(), 3);
    // Their positions: normals, weights and UVs come after the cut.
    for (kept, first) in read.vertices.iter().zip(&whole.vertices) {
        assert_eq!(kept.position, first.position, "the file's first vertices");
    }
    assert!(report.lost_data());
}

#[test]
fn every_prefix_recovers_or_fails_only_without_a_header() {
    let bytes = small_file();
    let recover = LoadOptions {
        recover: true,
        ..LoadOptions::default()
    };
    let header = size::CHUNK_HEADER + size::FILE_HEAD;
    for end in 0..bytes.len() {
        match read_smf(&bytes[..end], &recover) {
            Ok((model, report)) => {
                assert!(end >= header, "{end}");
                assert!(report.lost_data(), "prefix of {end} bytes");
                for note in report.notes.iter().filter(|note| note.lost) {
                    assert!(note.location.offset <= end, "{note}");
                }
                // What recovery gives exports again.
                write_smf(&model, &SmfExportOptions::default()).unwrap();
            }
            Err(error) => assert!(end < header, "prefix of {end} bytes: {error}"),
        }
    }
}
