//! ウェイト描画 through the real editor, as a user paints: the tool switched on in the view's
//! toolbar, the target bone chosen, strokes dragged over the model in the 3D view, then undone.
//! - on the sample figure (always here): an 加算 stroke with X mirror over the left elbow is one
//!   undo step named "ウェイト描画 左腕 (頂点N個)"; every touched vertex sums to 1, its mirror
//!   image got the same weight on 右腕, every other vertex is untouched, the validator finds
//!   nothing new, and undo gives the model back exactly;
//! - on Gene with 左ひじ bent in the pose pane (when the shared corpus is here): the stroke
//!   lands on the bent arm where it is drawn, the posed mesh the view shows is what a fresh
//!   evaluation of the painted model gives, a ぼかし stroke is a second step, the tooltip shows
//!   the weight of the vertex under the pointer, and undo restores everything.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use glam::{Vec2, Vec3};
use pmx_core::model::{ElementKind, Model, Weight};
use pmx_core::pose::PoseEvaluator;
use pmx_ui::EditorState;
use pmx_ui::i18n::Language;
use pmx_ui::panes::view::weight_paint::BrushMode;

mod support;
use support::{button, click, document, harness_with, tab};

/// The pixel (screen points) where the view draws world point `at`.
fn screen_point(harness: &Harness<'_, EditorState>, at: Vec3) -> egui::Pos2 {
    let view = &harness.state().view;
    let rect = view.last_rect.expect("the view was drawn");
    let size = Vec2::new(rect.width(), rect.height());
    let projector = pmx_scene::camera::Projector::new(&view.camera, size);
    let (pixel, _) = projector.project(at).expect("in front of the camera");
    rect.min + egui::vec2(pixel.x, pixel.y)
}

/// A brush stroke: pressed at `from`, dragged through `through`, released at the last point.
fn stroke(harness: &mut Harness<'_, EditorState>, from: egui::Pos2, through: &[egui::Vec2]) {
    harness.event(egui::Event::PointerMoved(from));
    harness.step();
    button(harness, from, true);
    let mut at = from;
    for &offset in through {
        at = from + offset;
        harness.event(egui::Event::PointerMoved(at));
        harness.step();
    }
    button(harness, at, false);
    harness.run_ok();
}

fn bone_named(model: &Model, name: &str) -> usize {
    model
        .bones
        .iter()
        .position(|b| b.name_ja.as_str() == name)
        .unwrap_or_else(|| panic!("no bone {name}"))
}

fn select_bone(harness: &mut Harness<'_, EditorState>, bone: usize) {
    harness
        .state_mut()
        .document
        .as_mut()
        .unwrap()
        .selection
        .get_mut(ElementKind::Bone)
        .select_only(bone);
    harness.run_ok();
}

/// The summed weight of `bone` in `weight`.
fn weight_on(weight: &Weight, bone: usize) -> f32 {
    weight
        .bone_weights()
        .into_iter()
        .filter(|(b, _)| b.map(|b| b.get()) == Some(bone))
        .map(|(_, w)| w)
        .sum()
}

fn total(weight: &Weight) -> f32 {
    weight.bone_weights().into_iter().map(|(_, w)| w).sum()
}

/// The vertices whose weights differ between `before` and `after`.
fn changed(before: &Model, after: &Model) -> Vec<usize> {
    (0..before.vertices.len())
        .filter(|&v| before.vertices[v].weight != after.vertices[v].weight)
        .collect()
}

fn error_count(model: &Model) -> usize {
    pmx_core::validate::check(model, None, &Default::default())
        .iter()
        .filter(|issue| issue.severity == pmx_core::validate::Severity::Error)
        .count()
}

/// Where bone `bone`'s head is drawn (world space; posed when the pose pane poses it).
fn drawn_head(harness: &Harness<'_, EditorState>, bone: usize) -> Vec3 {
    let editor = harness.state();
    editor
        .view
        .drawn_bone_head(&editor.document.as_ref().unwrap().model, bone)
        .unwrap()
}

/// The undo step's name as the Japanese editor shows it (履歴, Edit menu).
fn japanese_undo_label(document: &pmx_ui::document::Document) -> String {
    document
        .history
        .undo_edit_label()
        .expect("a step to undo")
        .render(Language::Japanese)
}

/// Switches the brush on from the view's toolbar and sets it up.
fn brush_on(harness: &mut Harness<'_, EditorState>, label: &str, mode: BrushMode, strength: f32) {
    click(harness, label);
    assert!(harness.state().view.weight_paint.active, "the brush is on");
    let brush = &mut harness.state_mut().view.weight_paint.brush;
    brush.mode = mode;
    brush.strength = strength;
    brush.radius = 60.0;
    harness.run_ok();
}

#[test]
fn a_mirrored_stroke_on_the_sample_figure_is_one_valid_step_and_undoes_exactly() {
    let original = pmx_core::generate::sample_model();
    let mut harness = harness_with(original.clone(), Language::Japanese);
    let errors_before = error_count(&original);
    let (left_arm, right_arm, left_elbow) = (
        bone_named(&original, "左腕"),
        bone_named(&original, "右腕"),
        bone_named(&original, "左ひじ"),
    );
    select_bone(&mut harness, left_arm);
    brush_on(&mut harness, "ウェイト描画", BrushMode::Add, 0.5);
    harness.state_mut().view.weight_paint.brush.mirror = true;
    let elbow = drawn_head(&harness, left_elbow);
    harness.state_mut().view.camera.frame(elbow, 3.0);
    harness.run_ok();
    let from = screen_point(&harness, elbow);
    stroke(
        &mut harness,
        from,
        &[
            egui::vec2(10.0, 0.0),
            egui::vec2(20.0, 4.0),
            egui::vec2(30.0, 0.0),
        ],
    );

    let painted = document(&harness);
    let model = &painted.model;
    assert_eq!(painted.history.len(), 1, "one stroke, one undo step");
    let touched = changed(&original, model);
    assert!(!touched.is_empty(), "the stroke changed weights");
    let label = japanese_undo_label(painted);
    assert_eq!(
        label,
        format!("ウェイト描画 左腕 (頂点{}個)", touched.len()),
        "the step names the bone and counts the vertices"
    );
    let position = |m: &Model, v: usize| Vec3::from(m.vertices[v].position);
    let mut mirrored_pairs = 0;
    for &v in &touched {
        let weight = &model.vertices[v].weight;
        assert!((total(weight) - 1.0).abs() < 1e-5, "vertex {v}: {weight:?}");
        assert!(weight.bones().iter().flatten().count() <= 4);
        let p = position(model, v);
        if p.x > 0.01 {
            // Its mirror image took the same weight on the mirrored bone.
            let mirror = (0..model.vertices.len())
                .find(|&m| position(model, m).distance(Vec3::new(-p.x, p.y, p.z)) < 1e-4)
                .expect("the sample figure is symmetric");
            assert!(touched.contains(&mirror), "vertex {v}'s mirror {mirror}");
            let (a, b) = (
                weight_on(weight, left_arm),
                weight_on(&model.vertices[mirror].weight, right_arm),
            );
            assert!(
                (a - b).abs() < 1e-5,
                "vertex {v}: {a} on 左腕, mirror {b} on 右腕"
            );
            mirrored_pairs += 1;
        }
    }
    assert!(mirrored_pairs > 0);
    // The stroke went where the pointer was: around the left elbow, on the left side.
    assert!(
        touched
            .iter()
            .filter(|&&v| position(model, v).x > 0.0)
            .all(|&v| position(model, v).distance(Vec3::new(elbow.x, elbow.y, -elbow.z)) < 3.0)
    );
    for v in 0..model.vertices.len() {
        if !touched.contains(&v) {
            assert_eq!(
                model.vertices[v], original.vertices[v],
                "vertex {v} untouched"
            );
        }
    }
    assert!(
        error_count(model) <= errors_before,
        "no new validator error"
    );
    let _ = painted;

    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(
        document(&harness).model == original,
        "undo gives back exactly"
    );
}

#[test]
fn painting_the_bent_elbow_of_gene_lands_on_the_posed_arm_and_re_deforms_it() {
    let Some((original, _)) = support::gene_and_nod_motion() else {
        return;
    };
    let mut harness = harness_with(original.clone(), Language::Japanese);
    harness
        .ctx
        .all_styles_mut(|style| style.interaction.tooltip_delay = 0.0);
    let (arm, elbow) = (
        bone_named(&original, "左腕"),
        bone_named(&original, "左ひじ"),
    );
    let errors_before = error_count(&original);
    // The forearm bent 70° in the pose pane.
    tab(&mut harness, "ポーズ");
    harness
        .state_mut()
        .pose
        .set_bone_rotation(&original, elbow, Vec3::new(0.0, 0.0, 70.0));
    harness.run_ok();
    let rest_elbow = Vec3::from(original.bones[elbow].position);
    let wrist = bone_named(&original, "左手首");
    let posed_wrist = drawn_head(&harness, wrist);
    let rest_wrist = Vec3::from(original.bones[wrist].position);
    assert!(
        posed_wrist.distance(Vec3::new(rest_wrist.x, rest_wrist.y, -rest_wrist.z)) > 1.0,
        "the forearm is bent"
    );

    select_bone(&mut harness, arm);
    brush_on(&mut harness, "ウェイト描画", BrushMode::Add, 0.3);
    // On the bent forearm, between the elbow and the wrist where the pose put them.
    let posed_elbow = drawn_head(&harness, elbow);
    let target = posed_elbow + (posed_wrist - posed_elbow) * 0.3;
    harness.state_mut().view.camera.frame(target, 4.0);
    harness.run_ok();
    let from = screen_point(&harness, target);
    stroke(
        &mut harness,
        from,
        &[
            egui::vec2(6.0, 0.0),
            egui::vec2(12.0, 2.0),
            egui::vec2(18.0, 0.0),
        ],
    );
    let model = document(&harness).model.clone();
    let touched = changed(&original, &model);
    assert!(!touched.is_empty(), "the stroke changed weights");
    assert_eq!(document(&harness).history.len(), 1);
    assert_eq!(
        japanese_undo_label(document(&harness)),
        format!("ウェイト描画 左腕 (頂点{}個)", touched.len())
    );
    // Picked on the posed mesh: the painted vertices are drawn near the bent forearm's
    // point, not where the forearm is at rest.
    let posed: Vec<Vec3> = harness
        .state_mut()
        .pose
        .deformed_positions()
        .unwrap()
        .to_vec();
    let target_model = Vec3::new(target.x, target.y, -target.z);
    let rest_target = rest_elbow + (rest_wrist - rest_elbow) * 0.3;
    let near_posed = touched
        .iter()
        .filter(|&&v| posed[v].distance(target_model) < 2.0)
        .count();
    assert!(
        near_posed * 10 >= touched.len() * 9,
        "{near_posed} of {} painted vertices are drawn near the posed stroke",
        touched.len()
    );
    assert!(
        target_model.distance(rest_target) > 1.0,
        "the stroke's point is off the resting arm"
    );
    for &v in &touched {
        assert!((total(&model.vertices[v].weight) - 1.0).abs() < 1e-5);
    }
    // The mesh the view shows is what a fresh evaluation of the painted model gives.
    let mut fresh = PoseEvaluator::new(&model);
    fresh.evaluate(&model, &harness.state().pose.pose).unwrap();
    for (v, (shown, expected)) in posed.iter().zip(fresh.positions()).enumerate() {
        assert!(
            shown.distance(*expected) < 1e-4,
            "vertex {v}: shown {shown}, fresh {expected}"
        );
    }
    assert!(error_count(&model) <= errors_before);

    // ぼかし: a second step.
    harness.state_mut().view.weight_paint.brush.mode = BrushMode::Smooth;
    harness.run_ok();
    stroke(
        &mut harness,
        from,
        &[egui::vec2(-6.0, 0.0), egui::vec2(-12.0, 0.0)],
    );
    assert_eq!(
        document(&harness).history.len(),
        2,
        "the smooth stroke is a step"
    );
    assert!(japanese_undo_label(document(&harness)).starts_with("ウェイト描画 左腕 (頂点"));

    // The tooltip: the weight on 左腕 of the vertex under the pointer.
    let over = screen_point(&harness, target);
    harness.event(egui::Event::PointerMoved(over + egui::vec2(3.0, 0.0)));
    harness.run_ok();
    let hovered = harness
        .state()
        .view
        .weight_paint
        .hovered_vertex()
        .expect("a vertex under the pointer");
    // `+ 0.0`: the sum over no slots is -0.0; the tooltip says 0.000.
    let value = weight_on(&document(&harness).model.vertices[hovered].weight, arm) + 0.0;
    let expected = format!("左腕 {value:.3}");
    assert!(
        harness
            .query_all_by_label_contains(&expected)
            .next()
            .is_some(),
        "the tooltip shows \"{expected}\""
    );
    assert!(
        harness
            .query_all_by_label_contains(&format!("頂点 {hovered}"))
            .next()
            .is_some()
    );

    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
    assert!(
        document(&harness).model == original,
        "undo gives back exactly"
    );
    let restored: Vec<Vec3> = harness
        .state_mut()
        .pose
        .deformed_positions()
        .unwrap()
        .to_vec();
    let mut fresh = PoseEvaluator::new(&original);
    fresh
        .evaluate(&original, &harness.state().pose.pose)
        .unwrap();
    for (shown, expected) in restored.iter().zip(fresh.positions()) {
        assert!(shown.distance(*expected) < 1e-4);
    }
}
