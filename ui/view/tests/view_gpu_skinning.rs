#![allow(clippy::expect_used, clippy::unwrap_used)]
//! Skinning on the GPU (`pmx_scene::skin`, `shaders::SKIN_GLSL`) gives what the CPU pose
//! engine (`pmx_core::pose::PoseEvaluator`) gives.
//!
//! - The vertices the skinning shader makes (read back through transform feedback from the
//!   view's own uploaded data and shader function) equal the evaluator's positions and
//!   normals within 1e-4, for a generated model with BDEF1/2/4, SDEF, QDEF, invalid bone
//!   references and vertex/group/flip morphs, under a pose that turns and moves bones and sets
//!   morphs; again after a weight edit patched in (vertices turned SDEF get new slots); and
//!   back at rest the mesh as uploaded, bit for bit. The corpus's SDEF and QDEF files too
//!   when present.
//! - A posed frame drawn through the GPU path looks like the same pose CPU-deformed and
//!   uploaded whole (the old path), and a pose sends no vertex data.
//!
//! Offscreen through EGL (`libegl1 libegl-mesa0 libgl1-mesa-dri`); without it they print why
//! and pass.

use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::model::{BoneIdx, Model, Weight};
use pmx_core::pose::{Pose, PoseEvaluator};
use pmx_scene::frame::Upload;
use pmx_scene::mesh::VertexPatch;
use pmx_ui::document::Document;
use pmx_ui::panes::view::ViewState;
use pmx_view::gpu::GpuScene;
use pmx_view::offscreen::{Offscreen, with_offscreen};
use std::path::Path;

const TOLERANCE: f32 = 1e-4;

/// Turns on several bones (about all three axes), a move of the root and of a few others,
/// and morph values (every kind, so groups and flips resolve into vertex morph weights).
fn busy_pose(model: &Model) -> Pose {
    let mut pose = Pose::new(model);
    for (i, bone) in pose.bones.iter_mut().enumerate() {
        if i % 3 == 0 {
            bone.rotation = (glam::Quat::from_rotation_z(0.4 * ((i % 5) as f32 - 2.0))
                * glam::Quat::from_rotation_x(0.3)
                * glam::Quat::from_rotation_y(-0.25))
            .normalize();
        }
        if i % 17 == 0 {
            bone.translation = glam::Vec3::new(0.3, -0.2, 0.5);
        }
    }
    for (m, value) in pose.morphs.iter_mut().enumerate() {
        *value = match m % 4 {
            0 => 0.0,
            1 => 0.35,
            2 => 0.8,
            _ => 1.0,
        };
    }
    pose
}

/// The GPU scene of `view` (after its queue was rendered once).
fn gpu_of(view: &ViewState, run: impl FnOnce(&mut GpuScene)) {
    let mut shared = view.scene.shared.lock().unwrap();
    let gpu = shared
        .gpu
        .as_mut()
        .and_then(|gpu| gpu.downcast_mut::<GpuScene>())
        .expect("the view's GPU scene");
    run(gpu);
}

fn view_of(document: &Document) -> ViewState {
    let mut view = ViewState::default();
    view.layers.set_from_list("-grid").unwrap();
    view.sync(document, 1);
    view
}

fn draw(gl: &Offscreen, document: &Document, view: &mut ViewState) -> image::RgbaImage {
    view.prepare_frame(document, 1, 320, 320);
    gl.render_queue(&view.scene.shared, 320, 320).unwrap()
}

/// The largest difference between what the GPU skinned (world space) and the evaluator's
/// positions and normals (model space), and the vertex where it is.
fn compare(gpu: &mut GpuScene, evaluator: &PoseEvaluator) -> (f32, f32, usize) {
    let count = evaluator.positions().len();
    let (positions, normals) = gpu.read_skinned(0..count).unwrap().expect("a mesh");
    let model = |v: [f32; 3]| glam::Vec3::new(v[0], v[1], -v[2]);
    let (mut worst_position, mut worst_normal, mut worst_vertex) = (0.0f32, 0.0f32, 0);
    for v in 0..count {
        let dp = (model(positions[v]) - evaluator.positions()[v])
            .abs()
            .max_element();
        let dn = (model(normals[v]) - evaluator.normals()[v])
            .abs()
            .max_element();
        if dp > worst_position || dn > worst_normal {
            worst_vertex = v;
        }
        worst_position = worst_position.max(dp);
        worst_normal = worst_normal.max(dn);
    }
    (worst_position, worst_normal, worst_vertex)
}

fn assert_skins_as_the_cpu(gl: &Offscreen, model: Model, what: &str) {
    let pose = busy_pose(&model);
    let mut document = Document::from_model(model, None, None);
    let mut view = view_of(&document);
    draw(gl, &document, &mut view);
    let mut evaluator = PoseEvaluator::new(&document.model);
    evaluator.evaluate(&document.model, &pose).unwrap();
    let rest: Vec<glam::Vec3> = document
        .model
        .vertices
        .iter()
        .map(|v| v.position.into())
        .collect();
    let moved = evaluator
        .positions()
        .iter()
        .zip(&rest)
        .filter(|(a, b)| (**a - **b).length() > 0.01)
        .count();
    assert!(
        moved * 2 > rest.len(),
        "{what}: the pose moves only {moved} of {} vertices: the test would prove little",
        rest.len()
    );

    view.scene.upload_skin_pose(&document.model, &evaluator);
    let pending = view.scene.pending();
    assert!(
        !pending
            .iter()
            .any(|u| matches!(u, Upload::Vertices(_) | Upload::Mesh(_))),
        "{what}: a pose uploads vertex data"
    );
    draw(gl, &document, &mut view);
    gpu_of(&view, |gpu| {
        assert!(gpu.draws_skinned(), "{what}: the GPU does not skin");
        let (position, normal, vertex) = compare(gpu, &evaluator);
        assert!(
            position < TOLERANCE && normal < TOLERANCE,
            "{what}: GPU skinning differs by {position} (positions), {normal} (normals), at \
             vertex {vertex} ({:?})",
            document.model.vertices[vertex].weight
        );
    });

    // A weight edit: some vertices change kind (SDEF ones get new slots); the scene's sync
    // patches their skinning data only.
    let bones = document.model.bones.len();
    let vertices: Vec<u32> = (0..document.model.vertices.len() as u32)
        .step_by(7)
        .collect();
    let mut edited = document.model.clone();
    for &v in &vertices {
        let v = v as usize;
        let bone = |k: usize| Some(BoneIdx::new((v + k * 5) % bones));
        edited.vertices[v].weight = match v % 4 {
            0 => Weight::Sdef {
                bones: [bone(0), bone(1)],
                weight: 0.7,
                c: pmx_core::model::Vec3::new(0.1, 1.0, 0.2),
                r0: pmx_core::model::Vec3::new(0.0, 2.0, 0.0),
                r1: pmx_core::model::Vec3::new(0.5, 0.0, 0.0),
            },
            1 => Weight::Qdef {
                bones: [bone(0), bone(1), bone(2), None],
                weights: [0.5, 0.3, 0.2, 0.0],
            },
            2 => Weight::Bdef2 {
                bones: [bone(2), None],
                weight: 0.4,
            },
            _ => Weight::Bdef1 { bone: bone(3) },
        };
    }
    let indices: Vec<usize> = vertices.iter().map(|&v| v as usize).collect();
    let values: Vec<serde_json::Value> = indices
        .iter()
        .map(|&v| serde_json::to_value(&edited.vertices[v].weight).unwrap())
        .collect();
    let edit = pmx_core::edit::Edit::set_json(
        &document.model,
        pmx_core::edit::EditTarget::Vertex,
        &indices,
        "weight",
        &values,
    )
    .unwrap();
    document.apply(edit);
    assert_eq!(document.model.vertices, edited.vertices);
    view.sync(&document, 1);
    let pending = view.scene.pending();
    assert!(
        pending.iter().any(|u| matches!(u, Upload::SkinPatch(_)))
            && !pending
                .iter()
                .any(|u| matches!(u, Upload::Skin(_) | Upload::Mesh(_))),
        "{what}: a weight edit patches the skinning data"
    );
    evaluator
        .update_weights(&document.model, &vertices)
        .unwrap();
    draw(gl, &document, &mut view);
    gpu_of(&view, |gpu| {
        let (position, normal, vertex) = compare(gpu, &evaluator);
        assert!(
            position < TOLERANCE && normal < TOLERANCE,
            "{what}, after a weight edit: GPU skinning differs by {position}, {normal}, at \
             vertex {vertex}"
        );
    });

    // Back at rest: the mesh as uploaded, exactly.
    view.scene.stop_skinning();
    draw(gl, &document, &mut view);
    gpu_of(&view, |gpu| {
        assert!(!gpu.draws_skinned());
        let count = rest.len();
        let (positions, _) = gpu.read_skinned(0..count).unwrap().unwrap();
        let uploaded = gpu.read_vertices(0..count).unwrap().unwrap();
        assert_eq!(positions, uploaded.positions, "{what}: the rest pose moved");
    });
}

#[test]
fn gpu_skinning_matches_the_pose_engine_on_a_generated_model() {
    with_offscreen(|gl| {
        let model = large_model(&LargeModelSpec::small());
        let kinds = |f: fn(&Weight) -> bool| model.vertices.iter().filter(|v| f(&v.weight)).count();
        assert!(kinds(|w| matches!(w, Weight::Sdef { .. })) > 10);
        assert!(kinds(|w| matches!(w, Weight::Qdef { .. })) > 10);
        assert!(kinds(|w| matches!(w, Weight::Bdef4 { .. })) > 10);
        assert!(
            model
                .morphs
                .iter()
                .any(|m| matches!(m.offsets, pmx_core::model::MorphOffsets::Vertex(_)))
        );
        assert_skins_as_the_cpu(gl, model, "generated");
    });
}

#[test]
fn gpu_skinning_matches_the_pose_engine_on_corpus_sdef_and_qdef_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/pmx");
    let files = [
        "generated_utf8_sdef_two_bone_elbow.pmx",
        "generated_utf8_mixed_deform_qdef_in_v20.pmx",
    ];
    let paths: Vec<_> = files.iter().map(|f| dir.join(f)).collect();
    if !paths.iter().all(|p| p.exists()) {
        println!("skipped: the corpus is not at {}", dir.display());
        return;
    }
    with_offscreen(|gl| {
        for path in &paths {
            let loaded =
                pmx_core::formats::load_path(path, &pmx_core::formats::LoadOptions::default())
                    .unwrap();
            assert_skins_as_the_cpu(gl, loaded.model, &path.display().to_string());
        }
    });
}

/// The generated textured model (a texture per material) and its evaluation in
/// [`busy_pose`].
fn posed_textured_model() -> (Document, PoseEvaluator) {
    let model = pmx_core::generate::textured_model().model;
    let pose = busy_pose(&model);
    let document = Document::from_model(model, None, None);
    let mut evaluator = PoseEvaluator::new(&document.model);
    evaluator.evaluate(&document.model, &pose).unwrap();
    (document, evaluator)
}

/// Pixels that differ by more than 2 in any channel.
fn differing(a: &image::RgbaImage, b: &image::RgbaImage) -> usize {
    a.pixels()
        .zip(b.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0.iter()).any(|(x, y)| x.abs_diff(*y) > 2))
        .count()
}

#[test]
fn a_pose_skinned_on_the_gpu_draws_as_the_cpu_deformed_pose() {
    with_offscreen(|gl| {
        let (document, evaluator) = posed_textured_model();
        for layers in [
            "-grid",
            "-grid,wireframe,vertices",
            "-grid,-model,wireframe",
        ] {
            let mut cpu_view = ViewState::default();
            cpu_view.layers.set_from_list(layers).unwrap();
            cpu_view.sync(&document, 1);
            let rest = draw(gl, &document, &mut cpu_view);
            cpu_view
                .scene
                .upload_deformed(0, evaluator.positions(), evaluator.normals());
            let cpu = draw(gl, &document, &mut cpu_view);

            let mut gpu_view = ViewState::default();
            gpu_view.layers.set_from_list(layers).unwrap();
            gpu_view.sync(&document, 1);
            gpu_view.camera = cpu_view.camera;
            draw(gl, &document, &mut gpu_view);
            gpu_view.scene.upload_skin_pose(&document.model, &evaluator);
            let gpu = draw(gl, &document, &mut gpu_view);

            let total = (cpu.width() * cpu.height()) as usize;
            assert!(
                differing(&rest, &cpu) > total / 50,
                "{layers}: the pose does not show: the test would prove nothing"
            );
            let wrong = differing(&cpu, &gpu);
            assert!(
                wrong * 1000 < total,
                "{layers}: {wrong} of {total} pixels differ between the CPU- and GPU-skinned pose"
            );

            // And the switch back: the CPU path again on the GPU-skinned view.
            gpu_view
                .scene
                .upload_deformed(0, evaluator.positions(), evaluator.normals());
            let pending = gpu_view.scene.pending();
            assert!(matches!(pending.first(), Some(Upload::SkinPose(None))));
            assert!(
                pending
                    .iter()
                    .any(|u| matches!(u, Upload::Vertices(VertexPatch::Deformed { .. })))
            );
            let back = draw(gl, &document, &mut gpu_view);
            assert_eq!(differing(&back, &cpu), 0, "{layers}: back on the CPU path");
        }
    });
}

#[test]
fn a_model_too_large_for_the_gpus_texture_buffers_is_posed_on_the_cpu() {
    with_offscreen(|gl| {
        let (document, evaluator) = posed_textured_model();

        // The CPU-deformed pose, uploaded whole: the reference picture.
        let mut cpu_view = view_of(&document);
        let rest = draw(gl, &document, &mut cpu_view);
        cpu_view
            .scene
            .upload_deformed(0, evaluator.positions(), evaluator.normals());
        let cpu = draw(gl, &document, &mut cpu_view);
        let total = (cpu.width() * cpu.height()) as usize;
        assert!(differing(&rest, &cpu) > total / 50, "the pose shows");

        // A GPU whose texture buffers hold fewer texels than this model's skinning data (as
        // OpenGL 3.3's minimum, 65,536, is for a big model): the view poses on the CPU.
        let mut view = view_of(&document);
        view.camera = cpu_view.camera;
        draw(gl, &document, &mut view);
        let limit = view.scene.shared.lock().unwrap().max_buffer_texels;
        assert!(
            limit.is_some_and(|texels| texels >= 65_536),
            "the GPU side tells its limit: {limit:?}"
        );
        view.scene.shared.lock().unwrap().max_buffer_texels = Some(16);
        view.scene.upload_skin_pose(&document.model, &evaluator);
        let pending = view.scene.pending();
        assert!(
            !pending
                .iter()
                .any(|u| matches!(u, Upload::Skin(_) | Upload::SkinPose(Some(_)))),
            "no skinning data goes up"
        );
        assert!(
            pending
                .iter()
                .any(|u| matches!(u, Upload::Vertices(VertexPatch::Deformed { .. })))
        );
        let posed = draw(gl, &document, &mut view);
        gpu_of(&view, |gpu| assert!(!gpu.draws_skinned()));
        assert_eq!(differing(&posed, &cpu), 0, "the CPU-posed picture");
        // The next frame's pose takes the same path without building the data again.
        view.scene.upload_skin_pose(&document.model, &evaluator);
        assert!(
            !view
                .scene
                .pending()
                .iter()
                .any(|u| matches!(u, Upload::Skin(_) | Upload::SkinPose(Some(_))))
        );
        draw(gl, &document, &mut view);
        // Back at rest, the model's own vertices again.
        view.scene.show_rest(&document.model);
        let back = draw(gl, &document, &mut view);
        assert_eq!(differing(&back, &rest), 0, "back at rest");
    });
}
