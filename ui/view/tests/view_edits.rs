#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The 3D view after edits draws exactly what a fresh load of the same model draws.
//!
//! - Partial uploads land where they belong: patches at non-zero offsets are read back from the
//!   GPU buffers (three-d 0.19's `fill_subset` took an element index as a byte offset, which
//!   filled the view with wrong triangles after any vertex edit; see `view::gl`).
//! - A random sequence of edits, undos and redos through `Document` (with gestures merged into
//!   one step, as a gizmo drag is), each followed by the view's incremental sync and an
//!   offscreen drawing, compared pixel for pixel with a fresh view of a copy of the model.
//! - Weight painting's partial paths: a posed model whose weights change, re-skinned for those
//!   vertices only (`PoseEvaluator::update_weights`) and patched in runs
//!   (`ViewScene::upload_deformed_spans`, `upload_deformed_vertices`), draws as a fresh load
//!   of the edited model with the same pose uploaded whole (`pmx_core::generate::
//!   textured_model`: a texture of its own on every material, so a vertex patched into the
//!   wrong place shows); the weight view's colours patched at some vertices draw as the same
//!   colours uploaded whole.
//!
//! Offscreen through EGL (`libegl1 libegl-mesa0 libgl1-mesa-dri`); without it they print why
//! and pass.

use pmx_core::edit::{EditOp, ops_to_edit};
use pmx_core::formats::{self, LoadOptions, SaveOptions};
use pmx_core::generate::Rng;
use pmx_core::model::{BoneIdx, ElementKind, Model, PmxVersion, TextEncoding, Weight};
use pmx_core::pose::{Pose, PoseEvaluator};
use pmx_ui::document::Document;
use pmx_ui::panes::view::ViewState;
use pmx_ui::panes::view::camera::OrbitCamera;
use pmx_ui::panes::view::mesh::{MeshData, VertexArrays, VertexPatch, face_indices};
use pmx_view::gpu::{GpuScene, Upload};
use pmx_view::offscreen::{Offscreen, with_offscreen};
use serde_json::{Value, json};
use std::path::Path;

/// A model with every vertex attribute (additional UV 1 included) and ~300 vertices.
fn feature_model() -> Model {
    pmx_core::generate::feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 300, 12)
}

#[test]
fn partial_uploads_land_at_their_element_offset() {
    with_offscreen(|gl| {
        let mut model = feature_model();
        let vertex_count = model.vertices.len();
        let face_count = model.faces.len();
        let mut gpu = GpuScene::new(gl.context().clone()).unwrap();
        gpu.apply(Upload::Mesh(MeshData::build(&model))).unwrap();
        let before = VertexArrays::of(&model, 0..vertex_count);
        assert!(!before.uv1.is_empty(), "the model has additional UV 1");
        assert_eq!(gpu.read_vertices(0..vertex_count).unwrap(), Some(before));

        // Change vertices 101..117 on the CPU and upload only them.
        let first = 101;
        for (n, vertex) in model.vertices[first..first + 16].iter_mut().enumerate() {
            vertex.position.x += 3.0 + n as f32;
            vertex.normal = pmx_core::model::Vec3::new(0.0, 0.0, 1.0);
            vertex.uv.y = 0.25;
            vertex.edge_scale = 0.5 + n as f32;
        }
        for uv in &mut model.additional_uvs[0][first..first + 16] {
            uv.w = 7.0;
        }
        let patch = VertexArrays::of(&model, first..first + 16);
        gpu.apply(Upload::Vertices(VertexPatch::All {
            first,
            arrays: patch,
        }))
        .unwrap();
        // Every element, before, inside and after the patch, is the model's.
        assert_eq!(
            gpu.read_vertices(0..vertex_count).unwrap(),
            Some(VertexArrays::of(&model, 0..vertex_count))
        );

        // A pose's deformed positions and normals from another offset.
        let deformed: Vec<[f32; 3]> = (0..5).map(|i| [i as f32, 100.0, -1.0]).collect();
        gpu.apply(Upload::Vertices(VertexPatch::Deformed {
            first: 250,
            positions: deformed.clone(),
            normals: vec![[1.0, 0.0, 0.0]; 5],
        }))
        .unwrap();
        let read = gpu.read_vertices(0..vertex_count).unwrap().unwrap();
        assert_eq!(read.positions[250..255], deformed[..]);
        assert_eq!(read.normals[250..255], [[1.0, 0.0, 0.0]; 5]);
        let expected = VertexArrays::of(&model, 0..vertex_count);
        assert_eq!(read.positions[..250], expected.positions[..250]);
        assert_eq!(read.positions[255..], expected.positions[255..]);
        assert_eq!(read.uvs, expected.uvs);

        // Faces 40..43 get other vertices; the index buffer changes there only.
        for face in &mut model.faces[40..43] {
            face.rotate_left(1);
            face[0] = pmx_core::model::VertexIdx::new(7);
        }
        gpu.apply(Upload::Faces {
            first_face: 40,
            indices: face_indices(&model, 40..43),
        })
        .unwrap();
        assert_eq!(
            gpu.read_indices(0..face_count * 3).unwrap(),
            Some(face_indices(&model, 0..face_count))
        );

        // A patch past the end is refused and changes nothing.
        let error = gpu
            .apply(Upload::Vertices(VertexPatch::Deformed {
                first: vertex_count - 1,
                positions: vec![[9.0; 3]; 2],
                normals: vec![[9.0; 3]; 2],
            }))
            .unwrap_err();
        assert!(error.to_string().contains("outside"), "{error}");
        assert_eq!(
            gpu.read_vertices(vertex_count - 1..vertex_count)
                .unwrap()
                .unwrap()
                .positions,
            vec![expected.positions[vertex_count - 1]]
        );
    });
}

/// Draws `document` with `view` (synced incrementally) and a fresh view of a copy of the model,
/// with the same camera, layers and selection; panics with both images saved when they differ.
struct Comparison<'a> {
    gl: &'a Offscreen,
    camera: OrbitCamera,
    size: u32,
    step: usize,
}

impl Comparison<'_> {
    fn view(&self, document: &Document, view: &mut ViewState) -> image::RgbaImage {
        view.sync(document, 1);
        view.camera = self.camera;
        view.prepare_frame(document, 1, self.size, self.size);
        self.gl
            .render_queue(&view.scene.shared, self.size, self.size)
            .unwrap()
    }

    fn check(&mut self, what: &str, document: &Document, view: &mut ViewState) {
        self.step += 1;
        let incremental = self.view(document, view);
        // Textures are looked up next to the document's file, in both.
        let mut fresh_document =
            Document::from_model(document.model.clone(), document.path.clone(), None);
        fresh_document.selection = document.selection.clone();
        let mut fresh = ViewState::default();
        fresh.layers = view.layers;
        let expected = self.view(&fresh_document, &mut fresh);
        // The view's list of textures it could not load, too.
        assert_eq!(
            view.scene.texture_problems, fresh.scene.texture_problems,
            "step {} ({what}): texture problems",
            self.step
        );
        if incremental != expected {
            let dir = std::env::temp_dir();
            let a = dir.join(format!("view_edits_{}_incremental.png", self.step));
            let b = dir.join(format!("view_edits_{}_fresh.png", self.step));
            incremental.save(&a).unwrap();
            expected.save(&b).unwrap();
            let differing = incremental
                .pixels()
                .zip(expected.pixels())
                .filter(|(x, y)| x != y)
                .count();
            panic!(
                "step {} ({what}): {differing} pixels differ from a fresh view: {} {}",
                self.step,
                a.display(),
                b.display()
            );
        }
    }
}

fn ops(value: Value) -> Vec<EditOp> {
    serde_json::from_value(value).expect("ops")
}

/// A few distinct indices below `n`, not starting at 0 (partial uploads at offsets).
fn some_indices(rng: &mut Rng, n: usize, count: usize) -> Vec<usize> {
    let mut indices: Vec<usize> = (0..count).map(|_| rng.below(n)).collect();
    indices.sort_unstable();
    indices.dedup();
    indices
}

/// One random edit of `model` as edit-script ops (`None`: nothing of that kind to edit).
fn random_ops(rng: &mut Rng, model: &Model) -> Option<(String, Vec<EditOp>)> {
    let n = |kind: ElementKind| model.count(kind);
    let pick = rng.below(16);
    let (what, value) = match pick {
        0..=3 => {
            let count = n(ElementKind::Vertex);
            (count > 0).then_some(())?;
            let how_many = 1 + rng.below(20);
            let indices = some_indices(rng, count, how_many);
            let values: Vec<Value> = indices
                .iter()
                .map(|&i| {
                    let p = model.vertices[i].position;
                    json!([
                        p.x + rng.range(-2.0, 2.0),
                        p.y + rng.range(-2.0, 2.0),
                        p.z + rng.range(-1.0, 1.0)
                    ])
                })
                .collect();
            (
                "move vertices",
                json!([{"op": "set", "kind": "vertex", "indices": indices, "field": "position", "values": values}]),
            )
        }
        4 => {
            let count = n(ElementKind::Vertex);
            (count > 0).then_some(())?;
            let indices = some_indices(rng, count, 8);
            (
                "vertex normals, uv, edge",
                json!([
                    {"op": "set", "kind": "vertex", "indices": indices, "field": "normal", "value": [0.0, 0.0, -1.0]},
                    {"op": "set", "kind": "vertex", "indices": indices, "field": "uv", "value": [rng.unit(), rng.unit()]},
                    {"op": "set", "kind": "vertex", "indices": indices, "field": "edge_scale", "value": rng.range(0.0, 3.0)}
                ]),
            )
        }
        5 => {
            let (faces, vertices) = (n(ElementKind::Face), n(ElementKind::Vertex));
            (faces > 0 && vertices > 0).then_some(())?;
            let indices = some_indices(rng, faces, 3);
            let value = json!([
                rng.below(vertices),
                rng.below(vertices),
                rng.below(vertices)
            ]);
            (
                "faces",
                json!([{"op": "set", "kind": "face", "indices": indices, "field": "", "value": value}]),
            )
        }
        6 => {
            let count = n(ElementKind::Material);
            (count > 0).then_some(())?;
            let i = rng.below(count);
            (
                "material colour and edge",
                json!([
                    {"op": "set", "kind": "material", "indices": [i], "field": "diffuse", "value": [rng.unit(), rng.unit(), rng.unit(), 1.0]},
                    {"op": "set", "kind": "material", "indices": [i], "field": "edge_size", "value": rng.range(0.0, 2.0)}
                ]),
            )
        }
        7 => {
            // Moves faces from one material to its neighbour (ranges change, not the faces).
            let count = n(ElementKind::Material);
            (count > 1).then_some(())?;
            let i = rng.below(count - 1);
            let a = model.materials[i].face_index_count;
            (a >= 3).then_some(())?;
            let b = model.materials[i + 1].face_index_count;
            (
                "material face counts",
                json!([
                    {"op": "set", "kind": "material", "indices": [i], "field": "face_index_count", "value": a - 3},
                    {"op": "set", "kind": "material", "indices": [i + 1], "field": "face_index_count", "value": b + 3}
                ]),
            )
        }
        8 => {
            let count = n(ElementKind::Bone);
            (count > 0).then_some(())?;
            let i = rng.below(count);
            let p = model.bones[i].position;
            (
                "move a bone",
                json!([{"op": "set", "kind": "bone", "indices": [i], "field": "position", "value": [p.x + 1.0, p.y, p.z]}]),
            )
        }
        9 => {
            let count = n(ElementKind::RigidBody);
            (count > 0).then_some(())?;
            let i = rng.below(count);
            (
                "rigid body size",
                json!([{"op": "set", "kind": "rigid_body", "indices": [i], "field": "size", "value": [rng.range(0.2, 2.0), rng.range(0.2, 2.0), rng.range(0.2, 2.0)]}]),
            )
        }
        _ => {
            let kinds = [
                ElementKind::Vertex,
                ElementKind::Face,
                ElementKind::Material,
                ElementKind::Bone,
                ElementKind::Morph,
                ElementKind::RigidBody,
                ElementKind::Joint,
            ];
            let kind = kinds[rng.below(kinds.len())];
            let count = n(kind);
            (count > 1).then_some(())?;
            let how_many = 1 + rng.below(3);
            let indices = some_indices(rng, count, how_many);
            let name = serde_json::to_value(kind).unwrap();
            (
                "delete",
                json!([{"op": "delete", "kind": name, "indices": indices}]),
            )
        }
    };
    Some((what.to_owned(), ops(value)))
}

/// Random edits (some as multi-step gestures), undos and redos on `model`, the view compared
/// with a fresh one after each.
fn random_session(gl: &Offscreen, model: Model, seed: u64, steps: usize, layers: &str) {
    let mut document = Document::from_model(model, None, None);
    let mut view = ViewState::default();
    view.layers.set_from_list(layers).unwrap();
    view.sync(&document, 1);
    view.frame_model(&document);
    let mut comparison = Comparison {
        gl,
        camera: view.camera,
        size: 128,
        step: 0,
    };
    comparison.check("first drawing", &document, &mut view);
    let mut rng = Rng::new(seed);
    let mut done = 0;
    while done < steps {
        match rng.below(10) {
            0 | 1 => {
                if document.undo().is_some() {
                    done += 1;
                    comparison.check("undo", &document, &mut view);
                }
            }
            2 => {
                if document.redo().is_some() {
                    done += 1;
                    comparison.check("redo", &document, &mut view);
                }
            }
            3 => {
                // A drag: several small moves of the same vertices in one gesture (one step),
                // the view drawn between them as the window does.
                let count = document.model.vertices.len();
                if count == 0 {
                    continue;
                }
                let indices = some_indices(&mut rng, count, 6);
                let gesture = document.history.new_gesture();
                for _ in 0..3 {
                    let delta = rng.range(-0.5, 0.5);
                    let values: Vec<Value> = indices
                        .iter()
                        .map(|&i| {
                            let p = document.model.vertices[i].position;
                            json!([p.x + delta, p.y, p.z])
                        })
                        .collect();
                    let ops = ops(
                        json!([{"op": "set", "kind": "vertex", "indices": indices, "field": "position", "values": values}]),
                    );
                    let edit = ops_to_edit(&mut document.model, &ops).unwrap();
                    document.apply(edit.in_gesture(gesture));
                    comparison.check("drag", &document, &mut view);
                }
                done += 1;
            }
            _ => {
                let Some((what, ops)) = random_ops(&mut rng, &document.model) else {
                    continue;
                };
                let edit = ops_to_edit(&mut document.model, &ops)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                document.apply(edit);
                done += 1;
                comparison.check(&what, &document, &mut view);
            }
        }
    }
    // Back to the start and forward again.
    while document.undo().is_some() {}
    comparison.check("undo all", &document, &mut view);
    while document.redo().is_some() {}
    comparison.check("redo all", &document, &mut view);
}

#[test]
fn random_edits_draw_as_a_fresh_load_sample_model() {
    with_offscreen(|gl| {
        random_session(
            gl,
            pmx_core::generate::sample_model(),
            7,
            40,
            "bones,rigid_bodies,joints",
        );
    });
}

#[test]
fn random_edits_draw_as_a_fresh_load_feature_model() {
    with_offscreen(|gl| {
        // Additional UVs (a fourth vertex buffer), PMX 2.1 point and line materials, the
        // wireframe's line indices and the vertex points, and normals sized by the bounds.
        random_session(
            gl,
            feature_model(),
            11,
            40,
            "wireframe,vertices,normals,-grid",
        );
    });
}

#[test]
fn random_edits_draw_as_a_fresh_load_weight_view() {
    with_offscreen(|gl| {
        // The weight view of bone 3 (the selection is the same in the fresh view).
        let mut document = Document::from_model(pmx_core::generate::sample_model(), None, None);
        let bones = document.selection.get_mut(ElementKind::Bone);
        bones.indices.insert(3);
        bones.current = Some(3);
        let mut view = ViewState::default();
        view.layers.set_from_list("weights,edges").unwrap();
        view.sync(&document, 1);
        view.frame_model(&document);
        let mut comparison = Comparison {
            gl,
            camera: view.camera,
            size: 128,
            step: 100,
        };
        comparison.check("weights", &document, &mut view);
        let mut rng = Rng::new(3);
        for _ in 0..8 {
            let Some((what, ops)) = random_ops(&mut rng, &document.model) else {
                continue;
            };
            let edit = ops_to_edit(&mut document.model, &ops).unwrap();
            document.apply(edit);
            comparison.check(&what, &document, &mut view);
            document.undo();
            comparison.check("undo", &document, &mut view);
        }
    });
}

#[test]
fn normals_and_joints_are_sized_as_after_a_fresh_load_after_undo() {
    with_offscreen(|gl| {
        // Normals and joint markers are sized by the model's bounds: moving the outermost
        // vertex far out and back must leave them as a fresh load sizes them (bounds that only
        // grow would keep them long).
        let mut document = Document::from_model(pmx_core::generate::sample_model(), None, None);
        let mut view = ViewState::default();
        view.layers.set_from_list("normals,joints,-grid").unwrap();
        view.sync(&document, 1);
        view.frame_model(&document);
        let mut comparison = Comparison {
            gl,
            camera: view.camera,
            size: 128,
            step: 200,
        };
        comparison.check("first drawing", &document, &mut view);
        let (outermost, _) = document
            .model
            .vertices
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.position.y.total_cmp(&b.1.position.y))
            .unwrap();
        let p = document.model.vertices[outermost].position;
        let ops = ops(
            json!([{"op": "set", "kind": "vertex", "indices": [outermost], "field": "position", "value": [p.x, p.y * 4.0 + 20.0, p.z]}]),
        );
        let edit = ops_to_edit(&mut document.model, &ops).unwrap();
        document.apply(edit);
        comparison.check("outermost vertex moved out", &document, &mut view);
        document.undo();
        comparison.check("undo", &document, &mut view);
    });
}

#[test]
fn texture_edits_draw_as_a_fresh_load() {
    with_offscreen(|gl| {
        let dir = tempfile::tempdir().unwrap();
        for (name, colour) in [
            ("red.png", [220, 30, 30, 255]),
            ("blue.png", [30, 30, 220, 255]),
            ("green.png", [30, 200, 30, 255]),
        ] {
            image::RgbaImage::from_pixel(4, 4, image::Rgba(colour))
                .save(dir.path().join(name))
                .unwrap();
        }
        let mut model = pmx_core::generate::sample_model();
        model.textures = vec!["red.png".into(), "blue.png".into()];
        for (i, material) in model.materials.iter_mut().enumerate() {
            material.texture = Some(pmx_core::model::TextureIdx::new(i % 2));
        }
        let mut document = Document::from_model(model, Some(dir.path().join("model.pmx")), None);
        let mut view = ViewState::default();
        view.sync(&document, 1);
        view.frame_model(&document);
        assert!(view.scene.texture_problems.is_empty());
        let mut comparison = Comparison {
            gl,
            camera: view.camera,
            size: 128,
            step: 300,
        };
        comparison.check("two textures", &document, &mut view);
        // The textures are in the picture (red and blue dominate their materials).
        let image = comparison.view(&document, &mut view);
        let reddish = image
            .pixels()
            .filter(|p| p[0] > p[1].saturating_add(60) && p[0] > p[2].saturating_add(60))
            .count();
        let bluish = image
            .pixels()
            .filter(|p| p[2] > p[0].saturating_add(60) && p[2] > p[1].saturating_add(60))
            .count();
        assert!(reddish > 50 && bluish > 50, "red {reddish}, blue {bluish}");
        let steps = [
            // Another file for texture 0: only that texture is loaded again.
            json!([{"op": "set", "kind": "texture", "indices": [0], "field": "path", "value": "green.png"}]),
            // A material switches texture (a per-frame parameter).
            json!([{"op": "set", "kind": "material", "indices": [1], "field": "texture", "value": 0}]),
            // The texture list changes shape: everything is loaded again.
            json!([{"op": "delete", "kind": "texture", "indices": [0]}]),
            json!([{"op": "insert", "kind": "texture", "items": ["blue.png"], "at": 0}]),
            // A file that is not there: the placeholder.
            json!([{"op": "set", "kind": "texture", "indices": [1], "field": "path", "value": "missing.png"}]),
        ];
        for step in steps {
            let edit = ops_to_edit(&mut document.model, &ops(step.clone())).unwrap();
            document.apply(edit);
            comparison.check(&step.to_string(), &document, &mut view);
        }
        assert_eq!(view.scene.texture_problems.len(), 1, "missing.png");
        assert!(
            view.scene.texture_problems[0]
                .to_string()
                .contains("missing.png")
        );
        while document.undo().is_some() {
            comparison.check("undo", &document, &mut view);
        }
        while document.redo().is_some() {
            comparison.check("redo", &document, &mut view);
        }
    });
}

/// The weight painting pictures' size.
const SIZE: u32 = 192;

/// A view of `document` with the grid off, framed by `camera` when given.
fn view_of(document: &Document, camera: Option<OrbitCamera>) -> ViewState {
    let mut view = ViewState::default();
    view.layers.set_from_list("-grid").unwrap();
    view.sync(document, 1);
    if let Some(camera) = camera {
        view.camera = camera;
    }
    view
}

fn draw(gl: &Offscreen, document: &Document, view: &mut ViewState) -> image::RgbaImage {
    view.prepare_frame(document, 1, SIZE, SIZE);
    let image = gl.render_queue(&view.scene.shared, SIZE, SIZE).unwrap();
    if let Some(dir) = std::env::var_os("PMX_STUDIO_RENDER_DEBUG") {
        let n = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
        image
            .save(Path::new(&dir).join(format!("weights{n}.png")))
            .unwrap();
    }
    image
}

/// Pixels that differ by more than 2 in any channel.
fn differing(a: &image::RgbaImage, b: &image::RgbaImage) -> usize {
    assert_eq!(a.dimensions(), b.dimensions());
    a.pixels()
        .zip(b.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0.iter()).any(|(x, y)| x.abs_diff(*y) > 2))
        .count()
}

/// Arms and legs bent: the sample figure's bones from 1 on, each a little.
fn bent_pose(model: &Model) -> Pose {
    let mut pose = Pose::new(model);
    for (i, bone) in pose.bones.iter_mut().enumerate().skip(1) {
        bone.rotation = glam::Quat::from_rotation_z(0.35 * ((i % 3) as f32 - 1.0))
            * glam::Quat::from_rotation_x(0.2);
    }
    pose
}

/// New weights on every third vertex (and a run): bound to other bones, kinds changed.
fn reweight(model: &mut Model) -> Vec<u32> {
    let bones = model.bones.len();
    let mut vertices: Vec<u32> = (0..model.vertices.len() as u32).step_by(3).collect();
    vertices.extend(8..16);
    vertices.sort_unstable();
    vertices.dedup();
    for &v in &vertices {
        let v = v as usize;
        let bone = |k: usize| Some(BoneIdx::new((v + k * 5) % bones));
        model.vertices[v].weight = match v % 3 {
            0 => Weight::Bdef1 { bone: bone(1) },
            1 => Weight::Bdef2 {
                bones: [bone(0), bone(2)],
                weight: 0.3,
            },
            _ => Weight::Bdef4 {
                bones: [bone(0), bone(1), bone(2), bone(3)],
                weights: [0.4, 0.3, 0.2, 0.1],
            },
        };
    }
    vertices
}

#[test]
fn a_re_skin_patched_in_runs_draws_as_a_fresh_load_posed() {
    with_offscreen(|gl| {
        let dir = tempfile::tempdir().unwrap();
        let textured = pmx_core::generate::textured_model();
        let path = textured.write(dir.path(), "textured.pmx").unwrap();
        let model = textured.model;
        let pose = bent_pose(&model);

        // The editor's way: the pose uploaded whole once, then a weight edit re-skins some
        // vertices and patches them (the document's revision does not move: a weights-only
        // edit uploads nothing of the mesh).
        let mut document = Document::from_model(model, Some(path.clone()), None);
        let mut view = view_of(&document, None);
        let camera = view.camera;
        let mut evaluator = PoseEvaluator::new(&document.model);
        evaluator.evaluate(&document.model, &pose).unwrap();
        view.scene
            .upload_deformed(0, evaluator.positions(), evaluator.normals());
        let before = draw(gl, &document, &mut view);
        // A second view fed the values of exactly the changed vertices.
        let mut exact_view = view_of(&document, Some(camera));
        exact_view
            .scene
            .upload_deformed(0, evaluator.positions(), evaluator.normals());
        draw(gl, &document, &mut exact_view);
        let changed = reweight(&mut document.model);
        evaluator.update_weights(&document.model, &changed).unwrap();
        view.scene
            .upload_deformed_spans(&changed, evaluator.positions(), evaluator.normals());
        let patched = draw(gl, &document, &mut view);
        let values = |list: &[glam::Vec3]| -> Vec<glam::Vec3> {
            changed.iter().map(|&v| list[v as usize]).collect()
        };
        exact_view.scene.upload_deformed_vertices(
            &changed,
            &values(evaluator.positions()),
            &values(evaluator.normals()),
        );
        let patched_exactly = draw(gl, &document, &mut exact_view);

        // A fresh load of the edited model (saved, read back with its textures), posed whole.
        let fresh_path = dir.path().join("edited.pmx");
        formats::save_path(&document.model, &fresh_path, &SaveOptions::default()).unwrap();
        let loaded = formats::load_path(&fresh_path, &LoadOptions::default()).unwrap();
        let fresh_document = Document::from_model(loaded.model, Some(fresh_path), None);
        let mut fresh_view = view_of(&fresh_document, Some(camera));
        let mut fresh = PoseEvaluator::new(&fresh_document.model);
        fresh.evaluate(&fresh_document.model, &pose).unwrap();
        fresh_view
            .scene
            .upload_deformed(0, fresh.positions(), fresh.normals());
        let expected = draw(gl, &fresh_document, &mut fresh_view);

        assert!(
            differing(&before, &expected) > 50,
            "the weight edit does not show: the test would prove nothing"
        );
        let wrong = differing(&patched, &expected);
        assert_eq!(wrong, 0, "{wrong} pixels differ from the fresh load");
        let wrong = differing(&patched_exactly, &expected);
        assert_eq!(
            wrong, 0,
            "exact values: {wrong} pixels differ from the fresh load"
        );
    });
}

#[test]
fn weight_colours_patched_draw_as_uploaded_whole() {
    with_offscreen(|gl| {
        let model = pmx_core::generate::sample_model();
        let count = model.vertices.len();
        let document = Document::from_model(model, None, None);
        let colors: Vec<[u8; 4]> = (0..count)
            .map(|v| pmx_scene::weight_colors::ramp_color(v as f32 / count as f32))
            .collect();
        let mut recolored = colors.clone();
        let vertices: Vec<u32> = (0..count as u32)
            .filter(|v| v % 4 == 1 || (20..40).contains(v))
            .collect();
        let patch: Vec<[u8; 4]> = vertices
            .iter()
            .map(|&v| [255, (v * 7 % 256) as u8, 40, 255])
            .collect();
        for (&v, &color) in vertices.iter().zip(&patch) {
            recolored[v as usize] = color;
        }

        let mut view = view_of(&document, None);
        let camera = view.camera;
        view.layers.weights = true;
        // The view's own sync queues the selected bone's colours (none selected: off) first.
        view.prepare_frame(&document, 1, SIZE, SIZE);
        view.scene.set_weight_colors(Some(colors));
        let before = draw(gl, &document, &mut view);
        view.scene.patch_weight_colors(vertices, patch);
        let patched = draw(gl, &document, &mut view);

        let mut whole = view_of(&document, Some(camera));
        whole.layers.weights = true;
        whole.prepare_frame(&document, 1, SIZE, SIZE);
        whole.scene.set_weight_colors(Some(recolored));
        let expected = draw(gl, &document, &mut whole);

        assert!(
            differing(&before, &expected) > 50,
            "the patch does not show: the test would prove nothing"
        );
        assert_eq!(differing(&patched, &expected), 0);
    });
}

#[test]
fn weight_colour_patches_land_at_their_vertices() {
    with_offscreen(|gl| {
        let model = feature_model();
        let count = model.vertices.len();
        let mut gpu = GpuScene::new(gl.context().clone()).unwrap();
        gpu.apply(Upload::Mesh(MeshData::build(&model))).unwrap();
        assert_eq!(gpu.read_weight_colors(0..count).unwrap(), None);
        // A list of another length than the mesh is ignored.
        gpu.apply(Upload::WeightColors(Some(vec![[1; 4]; count - 1])))
            .unwrap();
        assert_eq!(gpu.read_weight_colors(0..count).unwrap(), None);
        let mut colors: Vec<[u8; 4]> = (0..count).map(|v| [v as u8, 0, 9, 255]).collect();
        gpu.apply(Upload::WeightColors(Some(colors.clone())))
            .unwrap();
        assert_eq!(
            gpu.read_weight_colors(0..count).unwrap(),
            Some(colors.clone())
        );
        // Scattered vertices and runs (more runs than one patch writes), one past the end.
        let mut vertices: Vec<u32> = (3..count as u32).step_by(4).collect();
        vertices.extend(50..60);
        vertices.sort_unstable();
        vertices.dedup();
        let patch: Vec<[u8; 4]> = vertices.iter().map(|&v| [200, v as u8, 1, 255]).collect();
        for (&v, &color) in vertices.iter().zip(&patch) {
            colors[v as usize] = color;
        }
        let (mut sent_vertices, mut sent) = (vertices.clone(), patch.clone());
        sent_vertices.push(count as u32 + 10);
        sent.push([0; 4]);
        gpu.apply(Upload::WeightColorPatch {
            vertices: sent_vertices,
            colors: sent,
        })
        .unwrap();
        assert_eq!(gpu.read_weight_colors(0..count).unwrap(), Some(colors));
        // Off again.
        gpu.apply(Upload::WeightColors(None)).unwrap();
        assert_eq!(gpu.read_weight_colors(0..count).unwrap(), None);
    });
}
