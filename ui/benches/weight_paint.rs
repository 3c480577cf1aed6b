#![allow(clippy::expect_used, clippy::unwrap_used)]
//! One step of the weight brush on a posed model, as the 3D view runs it for every dab of a
//! stroke: the dab picked on the posed mesh (every vertex projected, the ~2,000 under the brush
//! kept with their falloff), the `paint_weights` edit built with the view's kept lookups and
//! merged into the stroke's undo step, the touched vertices re-skinned, and the partial upload
//! queued (their posed positions and normals in runs, their weight colours). On the tube layout
//! of the 100,000- and 1,000,000-vertex benchmark models (small triangles, as a real mesh has),
//! weights made to sum to 1 and slightly posed, skinned through the pose engine. The budget: 8 ms and 16 ms.
//! Run: `cargo bench -p pmx_ui --bench weight_paint`.

use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Quat, Vec2, Vec3};
use pmx_core::edit::{BoneRef, Edit, History, PaintIndex, PaintMode, PaintWeights};
use pmx_core::generate::{LargeModelSpec, large_model, lay_out_as_tube};
use pmx_core::model::{BoneIdx, Model, PmxVersion, Weight};
use pmx_core::pose::{Pose, PoseEvaluator};
use pmx_scene::brush::{self, BrushShape, BrushView, Falloff, Reach, Surface};
use pmx_scene::camera::OrbitCamera;
use pmx_scene::overlay::PosedVertices;
use pmx_scene::scene::ViewScene;
use pmx_scene::weight_colors::{self, WeightDisplay};

const SIZE: Vec2 = Vec2::new(1280.0, 800.0);
/// How many vertices a dab should touch.
const TOUCHED: usize = 2_000;

struct Setup {
    model: Model,
    evaluator: PoseEvaluator,
    posed: PosedVertices,
    camera: OrbitCamera,
    radius: f32,
    bone: usize,
}

fn setup(vertices: usize) -> Setup {
    let mut model = large_model(&LargeModelSpec {
        vertices,
        faces: vertices * 2,
        bones: 400,
        morphs: 10,
        rigid_bodies: 10,
        joints: 10,
        materials: 20,
        additional_uvs: 0,
        version: PmxVersion::V2_1,
    });
    lay_out_as_tube(&mut model, 1000);
    // The generated weights are random and need not sum to 1 (a skinned vertex would land
    // anywhere): made to sum to 1, as a real model's do. Then a slight pose, so every vertex is
    // skinned through the pose engine as a posed model's is without scattering the tube (the
    // generated bones lie anywhere).
    for vertex in &mut model.vertices {
        if let Weight::Bdef4 { weights, .. } | Weight::Qdef { weights, .. } = &mut vertex.weight {
            let sum: f32 = weights.iter().sum();
            if sum > 0.0 {
                weights.iter_mut().for_each(|w| *w /= sum);
            }
        }
    }
    let mut pose = Pose::new(&model);
    for bone in (0..model.bones.len()).step_by(40) {
        pose.set_bone(BoneIdx::new(bone), Quat::from_rotation_z(0.001), Vec3::ZERO);
    }
    let mut evaluator = PoseEvaluator::new(&model);
    evaluator.evaluate(&model, &pose).unwrap();
    // The mesh the brush picks on: the rest shape (the generated model's IK and append bones
    // pull its skinned shape apart, which no real model does). Picking reads positions and
    // normals from the same kind of list either way, so the cost is a posed model's.
    let posed = PosedVertices {
        positions: model.vertices.iter().map(|v| v.position.into()).collect(),
        normals: model.vertices.iter().map(|v| v.normal.into()).collect(),
    };
    let mut camera = OrbitCamera::default();
    let centre = posed.positions.iter().copied().sum::<Vec3>() / posed.positions.len() as f32;
    // The tube's front, close enough that a brush of a few hundred pixels covers TOUCHED
    // vertices.
    camera.frame(Vec3::new(centre.x, centre.y, -centre.z + 4.0), 3.0);
    // The radius whose dab at the viewport's centre touches about TOUCHED vertices.
    let (mut low, mut high) = (1.0f32, 400.0f32);
    for _ in 0..30 {
        let radius = (low + high) * 0.5;
        let count = dab(&model, &posed, &camera, radius).vertices.len();
        if count < TOUCHED {
            low = radius;
        } else {
            high = radius;
        }
    }
    let bone = model.bones.len() / 2;
    Setup {
        model,
        evaluator,
        posed,
        camera,
        radius: high,
        bone,
    }
}

fn dab(model: &Model, posed: &PosedVertices, camera: &OrbitCamera, radius: f32) -> brush::Dab {
    brush::dab(
        &Surface::new(model, Some(posed)),
        &BrushView::new(camera, SIZE),
        &BrushShape {
            at: SIZE * 0.5,
            radius,
            falloff: Falloff::Smooth,
            reach: Reach::FrontFaces,
        },
        None,
    )
}

fn brush_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("weight_brush_step");
    group.sample_size(20);
    for (name, vertices) in [("100k_vertices", 100_000), ("1m_vertices", 1_000_000)] {
        let Setup {
            mut model,
            mut evaluator,
            mut posed,
            camera,
            radius,
            bone,
        } = setup(vertices);
        let touched = dab(&model, &posed, &camera, radius).vertices.len();
        println!("{name}: a dab of {radius:.1} px touches {touched} vertices");
        let index = PaintIndex::new(&model);
        let scene = ViewScene::default();
        let mut history = History::new();
        let gesture = history.new_gesture();
        let mut add = true;
        group.bench_function(name, |b| {
            b.iter(|| {
                // Pick: the dab on the posed mesh.
                let dab = dab(&model, &posed, &camera, radius);
                // Weights: the op built with the kept lookups, merged into the stroke.
                let paint = PaintWeights {
                    bone: BoneRef::Index(bone),
                    mode: if add {
                        PaintMode::Add
                    } else {
                        PaintMode::Subtract
                    },
                    vertices: dab.vertices.iter().map(|&v| v as usize).collect(),
                    amounts: dab.falloffs.iter().map(|f| f * 0.1).collect(),
                    mirror: false,
                    max_bones: 4,
                    locked: Vec::new(),
                };
                add = !add;
                let Ok(edit) = Edit::paint_weights_with(&model, &paint, &index) else {
                    return;
                };
                let touched = history.apply(&mut model, edit.in_gesture(gesture));
                // Re-skin what changed, then queue the partial upload.
                let changed = &touched.weighted_vertices;
                evaluator.update_weights(&model, changed).unwrap();
                // The view's posed copy patched in place, then uploaded in bounded runs.
                let (positions, normals) = (evaluator.positions(), evaluator.normals());
                for &v in changed {
                    posed.positions[v as usize] = positions[v as usize];
                    posed.normals[v as usize] = normals[v as usize];
                }
                scene.upload_deformed_spans(changed, &posed.positions, &posed.normals);
                let colors =
                    weight_colors::weight_colors_of(&model, WeightDisplay::Bone(bone), changed);
                scene.patch_weight_colors(changed.clone(), colors);
                scene.clear_pending();
            });
        });
        assert_eq!(history.len(), 1, "a stroke's dabs are one undo step");
        // The parts of the step on their own, to see where the time goes.
        group.bench_function(format!("{name}/pick"), |b| {
            b.iter(|| dab(&model, &posed, &camera, radius));
        });
        let dab_now = dab(&model, &posed, &camera, radius);
        let paint = PaintWeights {
            bone: BoneRef::Index(bone),
            mode: PaintMode::Add,
            vertices: dab_now.vertices.iter().map(|&v| v as usize).collect(),
            amounts: dab_now.falloffs.iter().map(|f| f * 0.1).collect(),
            mirror: false,
            max_bones: 4,
            locked: Vec::new(),
        };
        group.bench_function(format!("{name}/build_edit"), |b| {
            b.iter(|| Edit::paint_weights_with(&model, &paint, &index));
        });
        let changed: Vec<u32> = dab_now.vertices.clone();
        group.bench_function(format!("{name}/reskin"), |b| {
            b.iter(|| evaluator.update_weights(&model, &changed).unwrap());
        });
        group.bench_function(format!("{name}/upload"), |b| {
            b.iter(|| {
                scene.upload_deformed_spans(&changed, &posed.positions, &posed.normals);
                let colors =
                    weight_colors::weight_colors_of(&model, WeightDisplay::Bone(bone), &changed);
                scene.patch_weight_colors(changed.clone(), colors);
                scene.clear_pending();
            });
        });
    }
    group.finish();
}

criterion_group!(benches, brush_step);
criterion_main!(benches);
