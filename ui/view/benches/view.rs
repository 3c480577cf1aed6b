#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The 3D view on the generated 1,000,000-vertex model: CPU time per frame (sync check,
//! overlay key, per-material parameters and matrices), an edit of 1,000 vertices (the edit
//! plus building the upload of just those vertices), building the whole mesh, and — with an
//! offscreen GL context (EGL, Mesa) — opening the saved file to the first rendered frame
//! (read + parse + mesh + upload + draw + read back one pixel), with the model's faces laid out
//! as a tube of small triangles ([`pmx_core::generate::lay_out_as_tube`]).
//! A posed frame of the same model as a motion plays: CPU skinning and a whole vertex upload
//! against the GPU's skinning from a bone palette (`posed_frame`).
//! Run: `cargo bench -p pmx_view --bench view` (only the posed frame:
//! `cargo bench -p pmx_view --bench view -- posed_frame`).

use criterion::{Criterion, criterion_group, criterion_main};
use pmx_core::edit::{Edit, EditTarget};
use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::model::ElementKind;
use pmx_ui::document::Document;
use pmx_ui::panes::view::ViewState;
use pmx_ui::panes::view::mesh::MeshData;
use pmx_ui::panes::view::scene::SyncKind;
use std::time::{Duration, Instant};

fn views(c: &mut Criterion) {
    let model = large_model(&LargeModelSpec::million());
    assert_eq!(model.vertices.len(), 1_000_000);
    let mut group = c.benchmark_group("view_1m");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("mesh_build", |b| b.iter(|| MeshData::build(&model)));
    let mut document = Document::from_model(model, None, None);
    let mut view = ViewState::default();
    view.sync(&document, 1);
    view.scene.clear_pending();
    let size = glam::Vec2::new(1280.0, 760.0);
    group.bench_function("frame_cpu", |b| {
        b.iter(|| {
            view.sync(&document, 1);
            let highlight = document
                .selection
                .get(ElementKind::Material)
                .indices
                .clone();
            let frame = view.frame(&document.model, &highlight, size);
            view.scene.set_frame(frame);
        });
    });
    let indices: Vec<usize> = (0..1000).map(|i| 400_000 + i * 7).collect();
    let mut step = 0u32;
    group.bench_function("edit_1000_vertices", |b| {
        b.iter(|| {
            step += 1;
            let edit = Edit::set(
                &document.model,
                EditTarget::Vertex,
                &indices,
                "position.y",
                step as f32 * 0.001,
            )
            .unwrap();
            document.apply(edit);
            view.sync(&document, 1);
            assert!(
                matches!(view.scene.last_sync, SyncKind::Partial { vertices } if vertices <= 7000)
            );
            view.scene.clear_pending();
        });
    });
    group.finish();
}

/// Opening the saved 1,000,000-vertex file to the first frame drawn offscreen.
fn open_to_first_frame(c: &mut Criterion) {
    let offscreen = match pmx_view::offscreen::Offscreen::new() {
        Ok(offscreen) => offscreen,
        Err(reason) => {
            println!("open_to_first_frame skipped: no offscreen GL ({reason})");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("million.pmx");
    let mut model = large_model(&LargeModelSpec::million());
    // Small triangles, as in a real model: the generated layout's triangles each span the model,
    // and a software rasterizer spends minutes filling 2,000,000 of them.
    pmx_core::generate::lay_out_as_tube(&mut model, 1000);
    pmx_core::formats::save_path(&model, &path, &pmx_core::formats::SaveOptions::default())
        .unwrap();
    drop(model);
    let mut printed_parts = false;
    let mut group = c.benchmark_group("view_1m");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(30));
    group.bench_function("open_to_first_frame", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let started = Instant::now();
                let loaded = pmx_core::formats::load_path(&path, &Default::default()).unwrap();
                let document = Document::from_loaded(path.clone(), loaded, None);
                let read = started.elapsed();
                let mut view = ViewState::default();
                view.sync(&document, 1);
                let synced = started.elapsed();
                let size = glam::Vec2::new(1280.0, 760.0);
                let highlight = document
                    .selection
                    .get(ElementKind::Material)
                    .indices
                    .clone();
                view.scene
                    .set_frame(view.frame(&document.model, &highlight, size));
                let context = offscreen.context().clone();
                let color = three_d::Texture2D::new_empty::<[u8; 4]>(
                    &context,
                    1280,
                    760,
                    three_d::Interpolation::Nearest,
                    three_d::Interpolation::Nearest,
                    None,
                    three_d::Wrapping::ClampToEdge,
                    three_d::Wrapping::ClampToEdge,
                );
                let depth = three_d::DepthTexture2D::new::<f32>(
                    &context,
                    1280,
                    760,
                    three_d::Wrapping::ClampToEdge,
                    three_d::Wrapping::ClampToEdge,
                );
                let target = three_d::RenderTarget::new(
                    color.as_color_target(None),
                    depth.as_depth_target(),
                );
                target.clear(three_d::ClearState::color_and_depth(
                    1.0, 1.0, 1.0, 1.0, 1.0,
                ));
                target
                    .write::<std::convert::Infallible>(|| {
                        let mut shared = view.scene.shared.lock().unwrap();
                        pmx_view::painter::paint(
                            &mut shared,
                            || Ok(context.clone()),
                            three_d::Viewport::new_at_origo(1280, 760),
                            three_d::ScissorBox::new_at_origo(1280, 760),
                            false,
                        );
                        Ok(())
                    })
                    .unwrap();
                let pixel: Vec<[u8; 4]> = target.read_color_partially(three_d::ScissorBox {
                    x: 640,
                    y: 380,
                    width: 1,
                    height: 1,
                });
                assert_eq!(pixel.len(), 1);
                let drawn = started.elapsed();
                total += drawn;
                if !printed_parts {
                    printed_parts = true;
                    println!(
                        "open_to_first_frame parts: read {:.0} ms, mesh and textures {:.0} ms, \
                         upload + draw + read back {:.0} ms, total {:.0} ms",
                        read.as_secs_f64() * 1e3,
                        (synced - read).as_secs_f64() * 1e3,
                        (drawn - synced).as_secs_f64() * 1e3,
                        drawn.as_secs_f64() * 1e3
                    );
                }
            }
            total
        });
    });
    group.finish();
}

/// Draws what `view` queued into an offscreen `width`×`height` target and reads one pixel back
/// (so the GPU has finished).
fn paint_offscreen(context: &three_d::Context, view: &ViewState, width: u32, height: u32) {
    let color = three_d::Texture2D::new_empty::<[u8; 4]>(
        context,
        width,
        height,
        three_d::Interpolation::Nearest,
        three_d::Interpolation::Nearest,
        None,
        three_d::Wrapping::ClampToEdge,
        three_d::Wrapping::ClampToEdge,
    );
    let depth = three_d::DepthTexture2D::new::<f32>(
        context,
        width,
        height,
        three_d::Wrapping::ClampToEdge,
        three_d::Wrapping::ClampToEdge,
    );
    let target = three_d::RenderTarget::new(color.as_color_target(None), depth.as_depth_target());
    target.clear(three_d::ClearState::color_and_depth(
        1.0, 1.0, 1.0, 1.0, 1.0,
    ));
    target
        .write::<std::convert::Infallible>(|| {
            let mut shared = view.scene.shared.lock().unwrap();
            pmx_view::painter::paint(
                &mut shared,
                || Ok(context.clone()),
                three_d::Viewport::new_at_origo(width, height),
                three_d::ScissorBox::new_at_origo(width, height),
                false,
            );
            Ok(())
        })
        .unwrap();
    let pixel: Vec<[u8; 4]> = target.read_color_partially(three_d::ScissorBox {
        x: width as i32 / 2,
        y: height as i32 / 2,
        width: 1,
        height: 1,
    });
    assert_eq!(pixel.len(), 1);
}

/// A posed frame of the 1,000,000-vertex model, as a motion plays: the pose evaluated, then
/// either skinned on the CPU and every vertex uploaded (the old path) or only the bone palette
/// and morph weights uploaded and skinned by the vertex shaders; each drawn offscreen. Prints
/// the parts of one frame of each.
fn posed_frame(c: &mut Criterion) {
    let offscreen = match pmx_view::offscreen::Offscreen::new() {
        Ok(offscreen) => offscreen,
        Err(reason) => {
            println!("posed_frame skipped: no offscreen GL ({reason})");
            return;
        }
    };
    let context = offscreen.context().clone();
    let mut model = large_model(&LargeModelSpec::million());
    pmx_core::generate::lay_out_as_tube(&mut model, 1000);
    let document = Document::from_model(model, None, None);
    let (width, height) = (640, 380);
    let mut view = ViewState::default();
    view.sync(&document, 1);
    let size = glam::Vec2::new(width as f32, height as f32);
    let highlight = document
        .selection
        .get(ElementKind::Material)
        .indices
        .clone();
    view.scene
        .set_frame(view.frame(&document.model, &highlight, size));
    paint_offscreen(&context, &view, width, height);
    let mut evaluator = pmx_core::pose::PoseEvaluator::new(&document.model);
    let mut pose = pmx_core::pose::Pose::new(&document.model);
    let mut step = 0u32;
    let mut next_pose = |pose: &mut pmx_core::pose::Pose| {
        step += 1;
        let angle = 0.1 + (step % 10) as f32 * 0.02;
        for (i, bone) in pose
            .bones
            .iter_mut()
            .enumerate()
            .filter(|(i, _)| i % 4 == 0)
        {
            bone.rotation = glam::Quat::from_rotation_z(angle * ((i % 3) as f32 - 1.0));
        }
        for value in pose.morphs.iter_mut().step_by(5) {
            *value = angle;
        }
    };
    let mut group = c.benchmark_group("view_1m_posed_frame");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    let mut times = FrameTimes::default();
    group.bench_function("cpu_skin_upload_draw", |b| {
        b.iter(|| {
            next_pose(&mut pose);
            let started = Instant::now();
            evaluator.evaluate(&document.model, &pose).unwrap();
            let skinned = started.elapsed();
            view.scene
                .upload_deformed(0, evaluator.positions(), evaluator.normals());
            let queued = started.elapsed();
            paint_offscreen(&context, &view, width, height);
            times.add(skinned, queued, started.elapsed());
        });
    });
    let [evaluate, queue, draw] = times.mean_ms();
    println!(
        "posed frame, CPU skin + upload: evaluate with skinning {evaluate:.1} ms, queue upload \
         {queue:.1} ms, upload + draw {draw:.1} ms"
    );
    // The GPU path: the vertex buffers back at rest once, then palettes only.
    view.scene.upload_skin_pose(&document.model, &evaluator);
    paint_offscreen(&context, &view, width, height);
    let mut times = FrameTimes::default();
    let mut uploaded = 0usize;
    group.bench_function("gpu_palette_upload_draw", |b| {
        b.iter(|| {
            next_pose(&mut pose);
            let started = Instant::now();
            evaluator.evaluate_bones(&document.model, &pose).unwrap();
            let evaluated = started.elapsed();
            view.scene.upload_skin_pose(&document.model, &evaluator);
            let queued = started.elapsed();
            uploaded = view
                .scene
                .pending()
                .iter()
                .map(|u| match u {
                    pmx_view::gpu::Upload::SkinPose(Some(p)) => {
                        p.palette.len() * 16 + p.morph_weights.len() * 4
                    }
                    _ => usize::MAX / 4,
                })
                .sum();
            paint_offscreen(&context, &view, width, height);
            times.add(evaluated, queued, started.elapsed());
        });
    });
    let [evaluate, queue, draw] = times.mean_ms();
    println!(
        "posed frame, GPU palette: evaluate bones and morphs {evaluate:.1} ms, queue palette \
         {queue:.2} ms ({uploaded} bytes), upload + skin + draw {draw:.1} ms"
    );
    group.finish();
}

/// The three parts of posed frames, summed over the frames timed: evaluating the pose,
/// queueing its upload, uploading and drawing.
#[derive(Default)]
struct FrameTimes {
    parts: [Duration; 3],
    frames: u32,
}

impl FrameTimes {
    /// One frame, from the times since its start at which each part ended.
    fn add(&mut self, evaluated: Duration, queued: Duration, drawn: Duration) {
        self.parts[0] += evaluated;
        self.parts[1] += queued - evaluated;
        self.parts[2] += drawn - queued;
        self.frames += 1;
    }

    /// Each part's mean, in milliseconds.
    fn mean_ms(&self) -> [f64; 3] {
        self.parts
            .map(|part| part.as_secs_f64() * 1e3 / f64::from(self.frames.max(1)))
    }
}

criterion_group!(benches, views, open_to_first_frame, posed_frame);
criterion_main!(benches);
