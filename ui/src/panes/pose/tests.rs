// Test code: a failed expectation is the test failing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use pmx_core::edit::{EditOp, TouchedRange};
use pmx_core::model::Weight;

/// What a weight brush's step on `vertices` reports (as the `paint_weights` op does).
fn weight_step(vertices: &[u32]) -> Touched {
    Touched {
        values: vertices
            .iter()
            .map(|&v| TouchedRange {
                target: EditTarget::Vertex,
                start: v as usize,
                end: v as usize + 1,
            })
            .collect(),
        vertex_weights_only: true,
        weighted_vertices: vertices.to_vec(),
        ..Touched::default()
    }
}

#[test]
fn only_weight_edits_with_their_vertices_count_as_weight_edits() {
    let (a, b) = (weight_step(&[3, 9]), weight_step(&[1, 9, 20]));
    assert_eq!(weight_edit_vertices(&[&a, &b]), Some(vec![1, 3, 9, 20]));
    // Nothing changed, or a report that does not list its vertices: rebuild.
    assert_eq!(weight_edit_vertices(&[]), None);
    let unlisted = Touched {
        weighted_vertices: Vec::new(),
        ..a.clone()
    };
    assert_eq!(weight_edit_vertices(&[&unlisted]), None);
    // Any other edit among them: rebuild.
    let moved = Touched {
        vertex_weights_only: false,
        vertex_positions_only: true,
        ..a.clone()
    };
    assert_eq!(weight_edit_vertices(&[&a, &moved]), None);
    let mut structural = a.clone();
    structural.structure.push(ElementKind::Vertex);
    assert_eq!(weight_edit_vertices(&[&structural]), None);
    let mut with_bone = a.clone();
    with_bone.values.push(TouchedRange {
        target: EditTarget::Bone,
        start: 0,
        end: 1,
    });
    assert_eq!(weight_edit_vertices(&[&with_bone]), None);
}

/// The sample figure posed (a bent left arm) with its physics on and stepped.
fn posed_with_physics() -> (Document, PoseState) {
    let document = Document::from_model(pmx_core::generate::sample_model(), None, None);
    let mut state = PoseState::default();
    state.sync(&document, 1);
    let model = &document.model;
    for bone in 0..model.bones.len().min(12) {
        state.set_bone_rotation(model, bone, Vec3::new(0.0, 10.0, 20.0));
    }
    state.set_physics_enabled(model, true);
    state.step_physics_once(model);
    state.step_physics_once(model);
    state.evaluate(model);
    assert!(state.physics.simulation().is_some_and(|s| s.steps() == 2));
    (document, state)
}

#[test]
fn a_weight_edit_keeps_the_evaluator_and_the_physics_and_re_skins() {
    let (mut document, mut state) = posed_with_physics();
    let before = state.generation();
    let shared = state.share_posed_vertices(None).expect("posed");
    // The evaluation skinned nothing on the CPU: the list is made when first asked for.
    assert!(!shared.is_made());
    let lists_at = shared.get().positions.as_ptr();
    drop(shared);
    // A brush step: new weights on three vertices.
    let model = &mut document.model;
    let vertices = [0u32, 5, 7];
    for &v in &vertices {
        model.vertices[v as usize].weight = Weight::Bdef2 {
            bones: [Some(BoneIdx::new(1)), Some(BoneIdx::new(3))],
            weight: 0.25,
        };
    }
    let step = weight_step(&vertices);
    let key = (1, document.revision() + 1);
    assert!(state.follow_weight_edits(&document.model, key, Some(&[&step])));
    assert_eq!(state.built_for, Some(key));
    // The physics runs on, the evaluator is the same, the pose re-skinned.
    assert!(state.physics.simulation().is_some_and(|s| s.steps() == 2));
    assert!(!state.stale && state.evaluator.is_some());
    assert_eq!(state.generation(), before + 1);
    let mut fresh = PoseEvaluator::new(&document.model);
    fresh.evaluate(&document.model, &state.pose).unwrap();
    // The view is told what was re-skinned, once, and the shared list is patched in place.
    let reskinned = state.take_reskinned().expect("re-skinned");
    assert_eq!(
        reskinned,
        Reskinned {
            from: before,
            to: before + 1,
            vertices: vertices.to_vec()
        }
    );
    assert_eq!(state.take_reskinned(), None);
    let shared = state.share_posed_vertices(Some(&reskinned)).unwrap();
    assert!(shared.is_made(), "patched, not left to skin every vertex");
    let posed = shared.get();
    assert_eq!(posed.positions.as_ptr(), lists_at, "the same memory");
    assert_eq!(posed.positions, fresh.positions());
    assert_eq!(posed.normals, fresh.normals());

    // Two steps before the view looks: one note of both.
    for step in [weight_step(&[2]), weight_step(&[7, 9])] {
        let key = (1, key.1 + 1);
        assert!(state.follow_weight_edits(&document.model, key, Some(&[&step])));
    }
    let both = state.take_reskinned().unwrap();
    assert_eq!((both.from, both.vertices), (before + 1, vec![2, 7, 9]));
    // A note the pose has moved past is not given.
    assert!(state.follow_weight_edits(&document.model, (1, 99), Some(&[&weight_step(&[4])])));
    state.set_morph(0, 0.5);
    state.evaluate(&document.model);
    assert_eq!(state.take_reskinned(), None);
    // Not yet made when the weights change: made then from the weights before (and
    // patched), so the edit does not copy the skinning data the job holds.
    let step = weight_step(&[3]);
    document.model.vertices[3].weight = Weight::Bdef1 {
        bone: Some(BoneIdx::new(2)),
    };
    let key = (1, 200);
    state.set_morph(0, 0.25);
    state.evaluate(&document.model);
    let unmade = state.share_posed_vertices(None).unwrap();
    assert!(!unmade.is_made());
    assert!(state.follow_weight_edits(&document.model, key, Some(&[&step])));
    assert!(unmade.is_made());
    drop(unmade);
    let reskinned = state.take_reskinned().unwrap();
    let shared = state.share_posed_vertices(Some(&reskinned)).unwrap();
    assert!(shared.is_made());
    fresh = PoseEvaluator::new(&document.model);
    fresh.evaluate(&document.model, &state.pose).unwrap();
    assert_eq!(shared.get().positions, fresh.positions());
    assert_eq!(shared.get().normals, fresh.normals());
    drop(shared);
}

#[test]
fn any_other_edit_rebuilds_the_evaluator_and_the_physics() {
    let (mut document, mut state) = posed_with_physics();
    // What the document changed, unknown or not weights only: nothing is kept.
    assert!(!state.follow_weight_edits(&document.model, (1, 5), None));
    // A vertex moved: not a weight edit.
    let ops = vec![EditOp::Transform {
        kind: pmx_core::edit::EditTarget::Vertex,
        target: None,
        indices: vec![3],
        translate: Some([0.0, 0.1, 0.0].into()),
        rotate: None,
        scale: None,
        pivot: None,
        morph: None,
        morph_value: None,
    }];
    let edit = pmx_core::edit::ops_to_edit(&mut document.model, &ops).unwrap();
    document.apply(edit);
    state.sync(&document, 1);
    assert!(state.evaluator.is_none() && state.stale);
    assert!(state.physics.simulation().is_none());
    // The pose itself survives (the counts are the same).
    assert!(state.posed_bones() > 0);
}

#[test]
fn a_morph_offset_edit_keeps_the_physics_and_evaluates_as_a_new_evaluator() {
    use pmx_core::model::{MorphOffsets, VertexMorphOffset};
    let (mut document, mut state) = posed_with_physics();
    let model = &mut document.model;
    let morph = model
        .morphs
        .iter()
        .position(|m| matches!(m.offsets, MorphOffsets::Vertex(_)))
        .expect("the sample has a vertex morph");
    // Morph edit mode's drag: new offsets on two vertices, the morph shown at 1.
    model.morphs[morph].offsets = MorphOffsets::Vertex(vec![
        VertexMorphOffset {
            vertex: pmx_core::model::VertexIdx::new(3),
            offset: pmx_core::model::Vec3::new(0.5, 0.0, 0.0),
        },
        VertexMorphOffset {
            vertex: pmx_core::model::VertexIdx::new(8),
            offset: pmx_core::model::Vec3::new(0.0, -0.25, 0.1),
        },
    ]);
    state.set_morph(morph, 1.0);
    let step = Touched {
        values: vec![TouchedRange {
            target: EditTarget::Morph,
            start: morph,
            end: morph + 1,
        }],
        ..Touched::default()
    };
    let key = (1, document.revision() + 1);
    assert!(state.follow_morph_edits(&document.model, key, Some(&[&step])));
    assert!(state.physics.simulation().is_some_and(|s| s.steps() == 2));
    state.evaluate(&document.model);
    let mut fresh = PoseEvaluator::new(&document.model);
    fresh.evaluate(&document.model, &state.pose).unwrap();
    let shared = state.share_posed_vertices(None).unwrap();
    assert_eq!(shared.get().positions, fresh.positions());
    assert_eq!(shared.get().normals, fresh.normals());
    // Anything else (a vertex moved) is no morph edit.
    let moved = Touched {
        values: vec![TouchedRange {
            target: EditTarget::Vertex,
            start: 0,
            end: 1,
        }],
        ..Touched::default()
    };
    assert!(!state.follow_morph_edits(&document.model, (1, 99), Some(&[&step, &moved])));
}

/// The pendulum with a 300-frame motion loaded (one morph track: only its length matters) and
/// the physics on and playing.
fn pendulum_playing_a_motion() -> (Model, PoseState) {
    use pmx_core::formats::vmd::{MorphKey, MorphTrack, Motion};
    let model = pmx_physics::generate::pendulum((-3.0, 3.0), 0.0);
    let document = Document::from_model(model.clone(), None, None);
    let mut state = PoseState::default();
    state.sync(&document, 1);
    let motion = Motion {
        morph_tracks: vec![MorphTrack {
            name: pmx_core::formats::cp932::SjisName::default(),
            keys: vec![
                MorphKey {
                    frame: 0,
                    weight: 0.0,
                },
                MorphKey {
                    frame: 300,
                    weight: 1.0,
                },
            ],
        }],
        ..Motion::default()
    };
    let binding = motion.bind(&model);
    state.motion = Some(LoadedMotion {
        motion,
        binding,
        name: "test.vmd".into(),
        frame: 0.0,
    });
    state.set_physics_enabled(&model, true);
    state.physics.playing = true;
    (model, state)
}

#[test]
fn playing_by_the_clock_keeps_the_motion_on_the_simulated_time() {
    let ms = |ms: u64| std::time::Duration::from_millis(ms);
    // A fast machine: 30 frames of 50 ms are 1.5 s, 90 steps, motion frame 45.
    let (model, mut state) = pendulum_playing_a_motion();
    for _ in 0..30 {
        state.advance_by_clock(&model, ms(50), ms(1));
    }
    let steps = state.physics.simulation().unwrap().steps();
    assert_eq!(steps, 90);
    assert!((state.motion.as_ref().unwrap().frame - 45.0).abs() < 1e-3);
    assert_eq!(state.physics.clock().speed(), 1.0);

    // A machine where a step costs 30 ms: one step a frame of 100 ms. The physics runs a
    // sixth of real time, the motion with it (half a motion frame a step), and the clock
    // says so.
    let (model, mut state) = pendulum_playing_a_motion();
    for _ in 0..30 {
        assert_eq!(state.advance_by_clock(&model, ms(100), ms(30)), 1);
    }
    let steps = state.physics.simulation().unwrap().steps();
    assert_eq!(steps, 30);
    let frame = state.motion.as_ref().unwrap().frame;
    assert!(
        (frame - steps as f32 * 0.5).abs() < 1e-3,
        "motion frame {frame} after {steps} steps"
    );
    let speed = state.physics.clock().speed();
    assert!((speed - 1.0 / 6.0).abs() < 0.01, "speed {speed}");
    assert!(state.physics.clock().is_behind());

    // Paused: the clock forgets; playing again starts at full speed.
    state.physics.playing = false;
    assert!(!state.tick_physics(&model, std::time::Instant::now()));
    assert_eq!(state.physics.clock().speed(), 1.0);
}
