//! The 3D view's vertex overlays follow the pose pane's pose, as the mesh and the bones do: the
//! selected vertices and the normals are drawn where the skinned mesh has them, the weight
//! colours ride on the deformed mesh, the gizmo sits at the posed selection's centre, and
//! vertices are picked (click and rectangle) where they are drawn. At rest everything is where
//! it was. Posing never changes the document. The GPU skins the mesh: the CPU skins a pose's
//! vertices only when a pick, a brush or a vertex overlay needs them.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use egui_kittest::Harness;
use glam::{Vec2, Vec3};
use pmx_core::model::{
    Bone, BoneFlags, BoneIdx, ElementKind, Material, Model, Vertex, VertexIdx, Weight,
};
use pmx_core::pose::PoseEvaluator;
use pmx_scene::frame::Upload;
use pmx_scene::mesh::VertexPatch;
use pmx_scene::overlay::OverlayGeometry;
use pmx_ui::EditorState;
use pmx_ui::i18n::Language;
use pmx_ui::panes::view::PickMode;
use pmx_ui::panes::view::gizmo::GizmoMode;

mod support;
use support::{click, document, gene_and_nod_motion, harness_with, load_motion, tab};

fn world(p: Vec3) -> Vec3 {
    Vec3::new(p.x, p.y, -p.z)
}

/// The last overlay the view queued for the GPU: what it draws.
fn drawn_overlay(harness: &Harness<'_, EditorState>) -> OverlayGeometry {
    harness
        .state()
        .view
        .scene
        .pending()
        .into_iter()
        .rev()
        .find_map(|upload| match upload {
            Upload::Overlay(geometry) => Some(geometry),
            _ => None,
        })
        .expect("the view queued an overlay")
}

/// The overlay's points (only the selected vertices add points: the bone layer is off).
fn drawn_points(harness: &Harness<'_, EditorState>) -> Vec<Vec3> {
    drawn_overlay(harness)
        .points
        .iter()
        .map(|p| Vec3::from(p.position))
        .collect()
}

/// The vertex positions the view's mesh shows now (model space): the pose's skinned ones, or
/// the model's at rest.
fn shown_positions(harness: &mut Harness<'_, EditorState>) -> Vec<Vec3> {
    let editor = harness.state_mut();
    match editor.pose.deformed_positions() {
        Some(posed) => posed.to_vec(),
        None => editor
            .document
            .as_ref()
            .unwrap()
            .model
            .vertices
            .iter()
            .map(|v| v.position.into())
            .collect(),
    }
}

fn select_vertices(harness: &mut Harness<'_, EditorState>, indices: &[usize]) {
    let editor = harness.state_mut();
    let selection = editor
        .document
        .as_mut()
        .unwrap()
        .selection
        .get_mut(ElementKind::Vertex);
    selection.clear();
    for &index in indices {
        selection.indices.insert(index);
    }
    harness.run_ok();
}

fn selected_vertices(harness: &Harness<'_, EditorState>) -> Vec<usize> {
    document(harness)
        .selection
        .get(ElementKind::Vertex)
        .indices
        .iter()
        .collect()
}

/// The pixel (screen points) where the view draws world point `at`.
fn screen_point(harness: &Harness<'_, EditorState>, at: Vec3) -> egui::Pos2 {
    let view = &harness.state().view;
    let rect = view.last_rect.expect("the view was drawn");
    let size = Vec2::new(rect.width(), rect.height());
    let projector = pmx_scene::camera::Projector::new(&view.camera, size);
    let (pixel, _) = projector.project(at).expect("in front of the camera");
    rect.min + egui::vec2(pixel.x, pixel.y)
}

fn press(harness: &mut Harness<'_, EditorState>, at: egui::Pos2, pressed: bool) {
    harness.event(egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    });
    harness.step();
}

/// A click in the view at world point `at`.
fn click_in_view(harness: &mut Harness<'_, EditorState>, at: Vec3) {
    let position = screen_point(harness, at);
    harness.event(egui::Event::PointerMoved(position));
    harness.step();
    press(harness, position, true);
    press(harness, position, false);
    harness.run_ok();
}

/// A left drag in the view from `from` to `to` (screen points): the rectangle selection.
fn drag_in_view(harness: &mut Harness<'_, EditorState>, from: egui::Pos2, to: egui::Pos2) {
    harness.event(egui::Event::PointerMoved(from));
    harness.step();
    press(harness, from, true);
    for step in 1..=4 {
        let t = step as f32 / 4.0;
        harness.event(egui::Event::PointerMoved(from + (to - from) * t));
        harness.step();
    }
    press(harness, to, false);
    harness.run_ok();
}

/// An upper arm (bone 0 at (0, 10, 0)) and a forearm (bone 1 at (0, 15, 0)): vertices 0–3 on
/// the forearm (BDEF1), 4 on the upper arm, 5 half on each (BDEF2); two triangles of one
/// material on the forearm.
fn arm() -> Model {
    let at = |x, y, z| pmx_core::model::Vec3::new(x, y, z);
    let mut model = Model::new_empty();
    let mut upper = Bone {
        name_ja: "上腕".into(),
        position: at(0.0, 10.0, 0.0),
        tail_bone: Some(BoneIdx::new(1)),
        ..Bone::default()
    };
    upper.flags |= BoneFlags::TAIL_IS_BONE;
    let fore = Bone {
        name_ja: "前腕".into(),
        position: at(0.0, 15.0, 0.0),
        parent: Some(BoneIdx::new(0)),
        tail_offset: at(0.0, 4.0, 0.0),
        ..Bone::default()
    };
    model.bones = vec![upper, fore];
    let on = |bone: usize| Weight::Bdef1 {
        bone: Some(BoneIdx::new(bone)),
    };
    for (position, weight) in [
        (at(-0.5, 16.0, 0.0), on(1)),
        (at(0.5, 16.0, 0.0), on(1)),
        (at(-0.5, 18.0, 0.0), on(1)),
        (at(0.5, 18.0, 0.5), on(1)),
        (at(0.5, 11.0, 0.0), on(0)),
        (
            at(-0.5, 15.0, 0.0),
            Weight::Bdef2 {
                bones: [Some(BoneIdx::new(0)), Some(BoneIdx::new(1))],
                weight: 0.5,
            },
        ),
    ] {
        model.vertices.push(Vertex {
            position,
            normal: at(0.0, 0.0, -1.0),
            weight,
            ..Vertex::default()
        });
    }
    model.faces = vec![
        [VertexIdx::new(0), VertexIdx::new(2), VertexIdx::new(1)],
        [VertexIdx::new(1), VertexIdx::new(2), VertexIdx::new(3)],
    ];
    model.materials.push(Material {
        name_ja: "腕".into(),
        face_index_count: 6,
        ..Material::default()
    });
    model
}

/// The mean of `indices` of `positions` (model space), in world space.
fn world_centre(positions: &[Vec3], indices: &[usize]) -> Vec3 {
    world(indices.iter().map(|&i| positions[i]).sum::<Vec3>() / indices.len() as f32)
}

#[test]
fn selected_vertices_normals_weights_gizmo_and_picking_follow_a_posed_arm() {
    let original = arm();
    let mut harness = harness_with(original.clone(), Language::English);
    let revision = document(&harness).revision();
    {
        let view = &mut harness.state_mut().view;
        view.layers.grid = false;
        view.layers.normals = true;
        view.gizmo.mode = GizmoMode::Move;
        // Both the resting and the posed arm in sight.
        view.camera.frame(Vec3::new(-3.5, 13.0, 0.0), 9.0);
    }
    let selected = [1, 3, 5];
    select_vertices(&mut harness, &selected);
    let rest: Vec<Vec3> = shown_positions(&mut harness);
    let rest_points: Vec<Vec3> = selected.iter().map(|&i| world(rest[i])).collect();
    assert_eq!(drawn_points(&harness), rest_points);
    let rest_pivot = harness
        .state()
        .view
        .gizmo_layout
        .as_ref()
        .unwrap()
        .centre_world;
    assert_eq!(rest_pivot, world_centre(&rest, &selected));

    // The upper arm turned 90° about Z: the forearm swings sideways.
    tab(&mut harness, "Pose");
    harness
        .state_mut()
        .pose
        .set_bone_rotation(&original, 0, Vec3::new(0.0, 0.0, 90.0));
    harness.run_ok();
    let posed = shown_positions(&mut harness);
    assert!(
        posed[3].distance(rest[3]) > 5.0,
        "the forearm moved: {}",
        posed[3]
    );

    // The selected vertices: exactly those, where the skinned mesh has them.
    let points = drawn_points(&harness);
    assert_eq!(points.len(), selected.len());
    for (point, &index) in points.iter().zip(&selected) {
        assert!(
            point.distance(world(posed[index])) < 1e-5,
            "vertex {index} drawn at {point}, the mesh has it at {}",
            world(posed[index])
        );
    }
    // Normals start at the posed vertices and turn with them (the grid is off: only they are
    // depth lines).
    let evaluated_normals: Vec<Vec3> = harness
        .state_mut()
        .pose
        .share_posed_vertices(None)
        .unwrap()
        .get()
        .normals
        .clone();
    let lines = drawn_overlay(&harness).depth_lines;
    assert_eq!(lines.len(), 2 * original.vertices.len());
    for (index, pair) in lines.chunks(2).enumerate() {
        let (start, end) = (Vec3::from(pair[0].position), Vec3::from(pair[1].position));
        assert!(start.distance(world(posed[index])) < 1e-5, "normal {index}");
        let along = (end - start).normalize();
        let expected = world(evaluated_normals[index]).normalize();
        assert!(along.distance(expected) < 1e-4, "normal {index}: {along}");
    }
    // The weight colours are drawn on the mesh the view holds: the posed one.
    {
        let view = &mut harness.state_mut().view;
        view.layers.weights = true;
    }
    harness
        .state_mut()
        .document
        .as_mut()
        .unwrap()
        .selection
        .get_mut(ElementKind::Bone)
        .select_only(1);
    harness.run_ok();
    let uploads = harness.state().view.scene.pending();
    let weights = uploads
        .iter()
        .rev()
        .find_map(|upload| match upload {
            Upload::WeightColors(colors) => Some(colors.clone()),
            _ => None,
        })
        .flatten()
        .expect("the forearm's weights");
    // Four vertices wholly on the forearm, one only on the upper arm (off the forearm: its own
    // colour, not the ramp's 0), one shared half and half.
    let ramp = pmx_scene::weight_colors::ramp_color;
    assert_eq!(
        weights,
        vec![
            ramp(1.0),
            ramp(1.0),
            ramp(1.0),
            ramp(1.0),
            pmx_scene::weight_colors::NOT_ON_BONE,
            ramp(0.5)
        ]
    );
    // The posed mesh is skinned on the GPU (`view_gpu_skinning` reads it back against the
    // pose engine): the pose went up as the bone palette and morph weights of this very
    // evaluation, and no vertex data.
    let sent = uploads
        .iter()
        .rev()
        .find_map(|upload| match upload {
            Upload::SkinPose(Some(pose)) => Some(pose.clone()),
            _ => None,
        })
        .expect("the pose as the GPU's palette");
    assert_eq!(
        sent,
        pmx_scene::skin::SkinPose::of(harness.state().pose.evaluated().unwrap())
    );
    assert!(
        !uploads
            .iter()
            .any(|upload| matches!(upload, Upload::Vertices(VertexPatch::Deformed { .. }))),
        "a pose uploads no vertices"
    );

    // The gizmo sits at the posed selection's centre.
    let pivot = harness
        .state()
        .view
        .gizmo_layout
        .as_ref()
        .unwrap()
        .centre_world;
    let posed_pivot = world_centre(&posed, &selected);
    assert!(
        pivot.distance(posed_pivot) < 1e-4,
        "{pivot} vs {posed_pivot}"
    );
    assert!(pivot.distance(rest_pivot) > 1.0);

    // A click where vertex 3 is drawn picks it; where it rested, nothing is left.
    harness.state_mut().view.gizmo.mode = GizmoMode::Off;
    assert_eq!(harness.state().view.pick_mode, PickMode::Vertex);
    click_in_view(&mut harness, world(posed[3]));
    assert_eq!(selected_vertices(&harness), vec![3]);
    click_in_view(&mut harness, world(rest[2]));
    assert_eq!(selected_vertices(&harness), Vec::<usize>::new());
    // A rectangle round the posed forearm selects its vertices (0–3), not the upper arm's.
    let forearm: Vec<Vec3> = (0..4).map(|i| world(posed[i])).collect();
    let pixels: Vec<egui::Pos2> = forearm.iter().map(|&p| screen_point(&harness, p)).collect();
    let min = pixels
        .iter()
        .fold(egui::pos2(f32::MAX, f32::MAX), |a, p| a.min(*p));
    let max = pixels
        .iter()
        .fold(egui::pos2(f32::MIN, f32::MIN), |a, p| a.max(*p));
    drag_in_view(
        &mut harness,
        min - egui::vec2(6.0, 6.0),
        max + egui::vec2(6.0, 6.0),
    );
    assert_eq!(selected_vertices(&harness), vec![0, 1, 2, 3]);
    // Material picking hits the posed triangles.
    click(&mut harness, "material");
    let middle = (forearm[0] + forearm[1] + forearm[2]) / 3.0;
    click_in_view(&mut harness, middle);
    assert_eq!(
        document(&harness)
            .selection
            .get(ElementKind::Material)
            .current,
        Some(0)
    );

    // Nothing of this changed the document.
    assert_eq!(document(&harness).revision(), revision);
    assert!(document(&harness).model == original);
    assert!(document(&harness).history.is_empty());
    assert!(!document(&harness).is_dirty());

    // Back at rest: exactly the rest overlay, pivot and picking.
    click(&mut harness, "vertex");
    select_vertices(&mut harness, &selected);
    harness.state_mut().view.gizmo.mode = GizmoMode::Move;
    click(&mut harness, "Reset pose");
    assert!(harness.state().pose.pose.is_rest());
    assert_eq!(drawn_points(&harness), rest_points);
    let lines = drawn_overlay(&harness).depth_lines;
    assert_eq!(Vec3::from(lines[6].position), world(rest[3]));
    assert_eq!(
        harness
            .state()
            .view
            .gizmo_layout
            .as_ref()
            .unwrap()
            .centre_world,
        rest_pivot
    );
    harness.state_mut().view.gizmo.mode = GizmoMode::Off;
    harness.run_ok();
    click_in_view(&mut harness, world(rest[2]));
    assert_eq!(selected_vertices(&harness), vec![2]);
    assert!(document(&harness).model == original);
    assert!(document(&harness).history.is_empty());
}

/// The vertices of `harness`'s pose as a new pose engine skins them (model space), apart
/// from the editor (asking the editor would skin them there).
fn engine_positions(harness: &Harness<'_, EditorState>, model: &Model) -> Vec<Vec3> {
    let mut engine = PoseEvaluator::new(model);
    engine
        .evaluate(model, &harness.state().pose.pose)
        .expect("the pose fits");
    engine.positions().to_vec()
}

#[test]
fn a_pose_skins_no_vertices_on_the_cpu_until_a_click_or_an_overlay_needs_them() {
    let original = arm();
    let mut harness = harness_with(original.clone(), Language::English);
    {
        let view = &mut harness.state_mut().view;
        view.layers.grid = false;
        view.layers.normals = false;
        view.gizmo.mode = GizmoMode::Off;
        view.camera.frame(Vec3::new(-3.5, 13.0, 0.0), 9.0);
    }
    select_vertices(&mut harness, &[]);
    tab(&mut harness, "Pose");
    let turn = |harness: &mut Harness<'_, EditorState>, degrees: f32| {
        harness
            .state_mut()
            .pose
            .set_bone_rotation(&original, 0, Vec3::new(0.0, 0.0, degrees));
        harness.run_ok();
    };
    turn(&mut harness, 90.0);
    assert_eq!(
        harness.state().view.posed_vertices_made(),
        Some(false),
        "posed, and nothing skinned on the CPU"
    );
    // The pointer moving over the view skins nothing either.
    let posed = engine_positions(&harness, &original);
    let over_forearm = screen_point(&harness, world(posed[3]));
    harness.event(egui::Event::PointerMoved(
        over_forearm + egui::vec2(40.0, 0.0),
    ));
    harness.run_ok();
    assert_eq!(harness.state().view.posed_vertices_made(), Some(false));
    // A click picks the vertex where the posed mesh draws it: skinned for the pick.
    click_in_view(&mut harness, world(posed[3]));
    assert_eq!(selected_vertices(&harness), vec![3]);
    assert_eq!(harness.state().view.posed_vertices_made(), Some(true));
    // With a vertex selected, its overlay needs the vertices of every new pose.
    turn(&mut harness, 60.0);
    assert_eq!(harness.state().view.posed_vertices_made(), Some(true));
    let posed = engine_positions(&harness, &original);
    let points = drawn_points(&harness);
    assert_eq!(points.len(), 1);
    assert!(
        points[0].distance(world(posed[3])) < 1e-5,
        "the selected vertex is drawn at {}, the pose engine has it at {}",
        points[0],
        world(posed[3])
    );
    // Nothing selected, no normals: the next pose is skinned on the GPU only again.
    select_vertices(&mut harness, &[]);
    turn(&mut harness, 30.0);
    assert_eq!(harness.state().view.posed_vertices_made(), Some(false));
    assert!(document(&harness).model == original);
    assert!(document(&harness).history.is_empty());
}

#[test]
fn a_corpus_motion_draws_the_selected_vertices_and_the_pivot_on_the_skinned_mesh() {
    let Some((original, motion_path)) = gene_and_nod_motion() else {
        return;
    };
    let mut harness = harness_with(original.clone(), Language::English);
    harness.state_mut().view.gizmo.mode = GizmoMode::Move;
    let selected: Vec<usize> = (0..original.vertices.len()).step_by(41).collect();
    select_vertices(&mut harness, &selected);
    tab(&mut harness, "Pose");
    load_motion(&mut harness, &motion_path);
    let last = harness.state().pose.motion_last_frame().unwrap();
    let (mut posed_frames, mut moved) = (0, 0);
    for frame in 0..=last {
        harness.state_mut().pose.set_frame(frame as f32);
        // One frame: what is painted with this frame's mesh comes from the same pose.
        harness.step();
        let shown = shown_positions(&mut harness);
        if harness.state_mut().pose.deformed_positions().is_some() {
            posed_frames += 1;
        }
        let expected: Vec<Vec3> = selected.iter().map(|&i| world(shown[i])).collect();
        let points = drawn_points(&harness);
        assert_eq!(points, expected, "frame {frame}");
        moved += selected
            .iter()
            .filter(|&&i| shown[i].distance(original.vertices[i].position.into()) > 1e-3)
            .count();
        let pivot = harness
            .state()
            .view
            .gizmo_layout
            .as_ref()
            .unwrap()
            .centre_world;
        let centre = world_centre(&shown, &selected);
        assert!(
            pivot.distance(centre) < 1e-3,
            "frame {frame}: the gizmo at {pivot}, the posed selection's centre {centre}"
        );
    }
    assert!(posed_frames > 0, "the motion poses the model");
    assert!(moved > 0, "the motion moved selected vertices");
    assert!(document(&harness).model == original);
    assert!(document(&harness).history.is_empty());
    assert!(!document(&harness).is_dirty());
}
