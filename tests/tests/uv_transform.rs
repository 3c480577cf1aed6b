//! The `transform` op on UVs (issue 37): a small model built here whose UVs sit on the corners
//! and edges of the texture, so that every expected number is worked out by hand from the
//! documented direction (U to the right, V downward, positive degrees counter-clockwise as the
//! texture is seen upright). Undo gives the model back bit for bit.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing

use glam::Vec2 as G2;
use pmx_core::Model;
use pmx_core::edit::{
    Edit, EditError, EditOp, History, UvChannel, UvTransform, UvTransformGroup, drawn_uv_centre,
    ops_to_edit, uv_centre,
};
use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::i18n::Language;
use pmx_core::model::{
    Morph, MorphKind, MorphOffsets, MorphPanel, UvMorphOffset, Vec2, Vec3, Vec4, Vertex, VertexIdx,
    VertexMorphOffset,
};
use serde_json::json;

/// The UVs of the vertices: the four corners (top-left, top-right, bottom-right,
/// bottom-left), one vertex left out of every selection, and the right edge's middle.
const UVS: [[f32; 2]; 6] = [
    [0.0, 0.0],
    [1.0, 0.0],
    [1.0, 1.0],
    [0.0, 1.0],
    [0.25, 0.75],
    [1.0, 0.5],
];
const CORNERS: [usize; 4] = [0, 1, 2, 3];
const UNSELECTED: usize = 4;
const EDGE_MIDDLE: usize = 5;

/// Additional UV channel `channel` (0-based) of vertex `v`: distinct x, y, z and w.
fn additional(channel: usize, v: usize) -> Vec4 {
    let base = (channel * 10 + v) as f32;
    Vec4::new(base * 0.125, base * 0.25, base + 0.5, -base - 0.25)
}

/// The model: six vertices with [`UVS`], two additional UV channels, a UV morph 「目UV」, an
/// additional UV 1 morph, an additional UV 2 morph and a vertex morph.
fn model() -> Model {
    let mut model = Model::new_empty();
    for (i, uv) in UVS.iter().enumerate() {
        model.vertices.push(Vertex {
            position: Vec3::new(i as f32, 0.0, 0.0),
            uv: Vec2::from(*uv),
            ..Vertex::default()
        });
    }
    model.additional_uvs = (0..2)
        .map(|channel| (0..UVS.len()).map(|v| additional(channel, v)).collect())
        .collect();
    let morph = |name: &str, offsets| Morph {
        name_ja: name.into(),
        name_en: "".into(),
        panel: MorphPanel::Other,
        offsets,
    };
    let uv = |vertex: usize, offset: [f32; 4]| UvMorphOffset {
        vertex: VertexIdx::new(vertex),
        offset: Vec4::from(offset),
    };
    model.morphs.push(morph(
        "目UV",
        MorphOffsets::Uv(vec![
            uv(2, [0.125, 0.0, 0.5, 0.75]),
            uv(0, [0.0, 0.25, 0.0, 0.0]),
            uv(UNSELECTED, [0.5, 0.5, 0.0, 0.0]),
        ]),
    ));
    model.morphs.push(morph(
        "追加UV1モーフ",
        MorphOffsets::AdditionalUv1(vec![uv(1, [0.5, 0.0, 0.0, 0.0])]),
    ));
    model.morphs.push(morph(
        "追加UV2モーフ",
        MorphOffsets::AdditionalUv2(vec![uv(1, [0.0, 0.5, 1.0, 2.0])]),
    ));
    model.morphs.push(morph(
        "あ",
        MorphOffsets::Vertex(vec![VertexMorphOffset {
            vertex: VertexIdx::new(0),
            offset: Vec3::new(0.0, 1.0, 0.0),
        }]),
    ));
    model
}

const EYE_UV: usize = 0;
const ADDITIONAL1_MORPH: usize = 1;
const ADDITIONAL2_MORPH: usize = 2;
const VERTEX_MORPH: usize = 3;

fn bytes(model: &Model) -> Vec<u8> {
    pmx::write(model, &PmxSaveOptions::default()).unwrap().0
}

fn op(value: serde_json::Value) -> EditOp {
    serde_json::from_value(value).unwrap()
}

/// Applies `edit` through a history, checks that undo gives the bytes back and redo the
/// edited bytes, and returns the edited model.
fn apply_undo_redo(model: &Model, edit: Edit) -> Model {
    let before = bytes(model);
    let mut edited = model.clone();
    let mut history = History::new();
    history.apply(&mut edited, edit);
    let after = bytes(&edited);
    let result = edited.clone();
    history.undo(&mut edited);
    assert_eq!(bytes(&edited), before, "undo gives back the exact bits");
    assert_eq!(edited, *model);
    history.redo(&mut edited);
    assert_eq!(bytes(&edited), after, "redo repeats the edit");
    result
}

/// The labels of an edit: English, Japanese.
struct Labels {
    en: String,
    ja: String,
}

/// The op's edit on `model` (unchanged), applied, undone and redone; the edited model and the
/// edit's labels.
fn run(model: &Model, value: serde_json::Value) -> (Model, Labels) {
    let mut scratch = model.clone();
    let edit = ops_to_edit(&mut scratch, &[op(value)]).unwrap();
    assert_eq!(scratch, *model, "building the edit leaves the model");
    let labels = Labels {
        en: edit.label().to_string(),
        ja: edit.label_in(Language::Japanese).to_string(),
    };
    (apply_undo_redo(model, edit), labels)
}

fn uv(model: &Model, v: usize) -> [f32; 2] {
    model.vertices[v].uv.to_array()
}

fn close(a: [f32; 2], b: [f32; 2]) -> bool {
    (a[0] - b[0]).abs() < 1e-6 && (a[1] - b[1]).abs() < 1e-6
}

#[test]
fn a_quarter_turn_about_the_middle_turns_counter_clockwise_as_the_texture_is_seen() {
    let model = model();
    let (after, edit) = run(
        &model,
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [0, 1, 2, 3, 5],
               "rotate": 90, "pivot": [0.5, 0.5]}),
    );
    // u' = 0.5 + (v − 0.5), v' = 0.5 − (u − 0.5): each corner goes one corner on,
    // counter-clockwise on the upright image (V downward), exactly.
    assert_eq!(uv(&after, 0), [0.0, 1.0], "top-left → bottom-left");
    assert_eq!(uv(&after, 1), [0.0, 0.0], "top-right → top-left");
    assert_eq!(uv(&after, 2), [1.0, 0.0], "bottom-right → top-right");
    assert_eq!(uv(&after, 3), [1.0, 1.0], "bottom-left → bottom-right");
    assert_eq!(
        uv(&after, EDGE_MIDDLE),
        [0.5, 0.0],
        "right middle → top middle"
    );
    assert_eq!(uv(&after, UNSELECTED), uv(&model, UNSELECTED));
    assert_eq!(after.additional_uvs, model.additional_uvs);
    assert_eq!(after.morphs, model.morphs);
    for (a, b) in after.vertices.iter().zip(&model.vertices) {
        assert_eq!(a.position, b.position, "positions stay");
    }
    assert_eq!(edit.en, "Rotate the UVs of 5 vertices");
    assert_eq!(edit.ja, "頂点5個のUVを回転");

    // −90° (and 270°) turns the other way.
    let (back, _) = run(
        &model,
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [1],
               "rotate": 270, "pivot": [0.5, 0.5]}),
    );
    assert_eq!(uv(&back, 1), [1.0, 1.0], "top-right → bottom-right");
    // 30° about the top-left corner: (1, 0) goes up-left of the top edge, v negative.
    let (turned, _) = run(
        &model,
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [1],
               "rotate": 30, "pivot": [0, 0]}),
    );
    let (sin, cos) = 30f32.to_radians().sin_cos();
    assert!(close(uv(&turned, 1), [cos, -sin]), "{:?}", uv(&turned, 1));
}

#[test]
fn the_default_pivot_is_the_selections_uv_centre() {
    let model = model();
    assert_eq!(
        uv_centre(&model, UvChannel::Base, &CORNERS),
        Some(G2::new(0.5, 0.5))
    );
    let (after, _) = run(
        &model,
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": CORNERS,
               "rotate": 90}),
    );
    assert_eq!(uv(&after, 0), [0.0, 1.0]);
    assert_eq!(uv(&after, 1), [0.0, 0.0]);
    assert_eq!(uv(&after, 2), [1.0, 0.0]);
    assert_eq!(uv(&after, 3), [1.0, 1.0]);
    // Halved in U about the centre (0.5, 0.5): the corners move a quarter inward.
    let (after, edit) = run(
        &model,
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": CORNERS,
               "scale": [0.5, 1]}),
    );
    assert_eq!(uv(&after, 0), [0.25, 0.0]);
    assert_eq!(uv(&after, 2), [0.75, 1.0]);
    assert_eq!(edit.en, "Scale the UVs of 4 vertices");
}

#[test]
fn a_move_and_a_per_axis_scale_about_a_pivot_land_on_the_worked_out_uvs() {
    let model = model();
    let (after, edit) = run(
        &model,
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [1, 2, 5],
               "move": [0.25, -0.5]}),
    );
    assert_eq!(uv(&after, 1), [1.25, -0.5]);
    assert_eq!(uv(&after, 2), [1.25, 0.5]);
    assert_eq!(uv(&after, 5), [1.25, 0.0]);
    assert_eq!(edit.ja, "頂点3個のUVを移動");
    // Scaled ×2 in U and ×0.5 in V about (1, 1), then moved by (0, 0.25).
    let (after, edit) = run(
        &model,
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [0, 5],
               "scale": [2, 0.5], "pivot": [1, 1], "move": [0, 0.25]}),
    );
    assert_eq!(uv(&after, 0), [-1.0, 0.75]);
    assert_eq!(uv(&after, 5), [1.0, 1.0]);
    assert_eq!(edit.en, "Transform the UVs of 2 vertices");
    // One number scales both axes.
    let (after, _) = run(
        &model,
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [2],
               "scale": 0.5, "pivot": [0, 0]}),
    );
    assert_eq!(uv(&after, 2), [0.5, 0.5]);
}

#[test]
fn nothing_to_do_and_bad_input_are_refused() {
    let mut model = model();
    let fails = |model: &mut Model, value: serde_json::Value| {
        ops_to_edit(model, &[op(value)]).unwrap_err().to_string()
    };
    // A whole turn, an empty selection, a vertex out of range.
    let whole_turn = fails(
        &mut model,
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [0], "rotate": 360}),
    );
    assert!(
        whole_turn.contains("move, rotation or scale"),
        "{whole_turn}"
    );
    assert!(
        fails(
            &mut model,
            json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [], "move": [1, 0]})
        )
        .contains("no vertex")
    );
    assert!(
        fails(
            &mut model,
            json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [9], "move": [1, 0]})
        )
        .contains("out of range")
    );
    // Parts of the wrong shape are named.
    let three = fails(
        &mut model,
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [0], "move": [1, 0, 0]}),
    );
    assert!(
        three.contains("`move`") && three.contains("[u, v]"),
        "{three}"
    );
    let turn = fails(
        &mut model,
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [0], "rotate": [0, 0, 90]}),
    );
    assert!(turn.contains("`rotate`"), "{turn}");
    let two = fails(
        &mut model,
        json!({"op": "transform", "kind": "vertex", "indices": [0], "move": [1, 0]}),
    );
    assert!(two.contains("`move`") && two.contains("[x, y, z]"), "{two}");
    let pivot = fails(
        &mut model,
        json!({"op": "transform", "kind": "vertex", "indices": [0], "rotate": [0, 0, 90], "pivot": 1}),
    );
    assert!(pivot.contains("`pivot`"), "{pivot}");
    // UVs only of vertices.
    assert!(
        fails(
            &mut model,
            json!({"op": "transform", "kind": "bone", "target": "uv", "indices": [0], "move": [1, 0]})
        )
        .contains("transform of UVs")
    );
    // Non-finite through the API.
    let nan = UvTransformGroup {
        indices: vec![0],
        transform: UvTransform::moving(G2::new(f32::NAN, 0.0)),
    };
    assert!(matches!(
        Edit::transform_uv(&model, UvChannel::Base, &[nan]),
        Err(EditError::InvalidValue { .. })
    ));
    // Unknown targets do not parse.
    for target in ["additional_uv[0]", "additional_uv[5]", "uv2", "normal"] {
        let parsed = serde_json::from_value::<EditOp>(
            json!({"op": "transform", "kind": "vertex", "target": target, "indices": [0]}),
        );
        assert!(parsed.is_err(), "{target} parsed");
    }
}

#[test]
fn an_additional_channel_edits_only_its_x_and_y() {
    let model = model();
    assert_eq!(
        UvChannel::available(&model),
        vec![
            UvChannel::Base,
            UvChannel::Additional(1),
            UvChannel::Additional(2)
        ]
    );
    assert_eq!(
        UvChannel::Additional(2).morph_kind(),
        MorphKind::AdditionalUv2
    );
    assert_eq!(
        UvChannel::Additional(2).uv(&model, 3),
        Some(G2::new(additional(1, 3).x, additional(1, 3).y))
    );
    let (after, edit) = run(
        &model,
        json!({"op": "transform", "kind": "vertex", "target": "additional_uv[2]",
               "indices": [1, 3], "move": [0.5, -0.25]}),
    );
    for v in 0..UVS.len() {
        let old = additional(1, v);
        let new = after.additional_uvs[1][v];
        if v == 1 || v == 3 {
            assert_eq!(
                new,
                Vec4::new(old.x + 0.5, old.y - 0.25, old.z, old.w),
                "x, y move; z, w stay"
            );
        } else {
            assert_eq!(new, old);
        }
    }
    assert_eq!(after.additional_uvs[0], model.additional_uvs[0]);
    assert_eq!(after.vertices, model.vertices, "the base UVs stay");
    assert_eq!(after.morphs, model.morphs);
    assert_eq!(edit.en, "Move the additional UV 2 of 2 vertices");
    assert_eq!(edit.ja, "頂点2個の追加UV2を移動");
    // A channel the model does not have is named.
    let mut scratch = model.clone();
    let missing = ops_to_edit(
        &mut scratch,
        &[op(
            json!({"op": "transform", "kind": "vertex", "target": "additional_uv[3]",
                   "indices": [0], "move": [1, 0]}),
        )],
    )
    .unwrap_err()
    .to_string();
    assert!(missing.contains("additional_uv[3]"), "{missing}");
}

/// The offsets of UV morph `morph` as (vertex, [x, y, z, w]).
fn offsets(model: &Model, morph: usize) -> Vec<(usize, [f32; 4])> {
    match &model.morphs[morph].offsets {
        MorphOffsets::Uv(list)
        | MorphOffsets::AdditionalUv1(list)
        | MorphOffsets::AdditionalUv2(list)
        | MorphOffsets::AdditionalUv3(list)
        | MorphOffsets::AdditionalUv4(list) => list
            .iter()
            .map(|o| (o.vertex.get(), o.offset.to_array()))
            .collect(),
        _ => panic!("not a UV morph"),
    }
}

fn close4(a: [f32; 4], b: [f32; 4]) -> bool {
    a.iter().zip(&b).all(|(a, b)| (a - b).abs() < 1e-6)
}

#[test]
fn into_a_uv_morph_only_the_morphs_offsets_change() {
    let model = model();
    // At 0.5 a drawn move of 0.1 is an offset change of 0.2. Vertex 2's entry keeps its place
    // (and its z, w), vertex 0's too, vertex 1 joins the end.
    let (after, edit) = run(
        &model,
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [2, 0, 1],
               "move": [0.1, 0], "morph": "目UV", "morph_value": 0.5}),
    );
    let got = offsets(&after, EYE_UV);
    let expected = [
        (2, [0.325, 0.0, 0.5, 0.75]),
        (0, [0.2, 0.25, 0.0, 0.0]),
        (UNSELECTED, [0.5, 0.5, 0.0, 0.0]),
        (1, [0.2, 0.0, 0.0, 0.0]),
    ];
    assert_eq!(got.len(), expected.len(), "{got:?}");
    for ((v, offset), (ev, eoffset)) in got.iter().zip(&expected) {
        assert_eq!(v, ev, "{got:?}");
        assert!(close4(*offset, *eoffset), "{got:?}");
    }
    assert_eq!(after.vertices, model.vertices, "base UVs and vertices stay");
    assert_eq!(after.additional_uvs, model.additional_uvs);
    for m in [ADDITIONAL1_MORPH, ADDITIONAL2_MORPH, VERTEX_MORPH] {
        assert_eq!(after.morphs[m], model.morphs[m], "morph {m} stays");
    }
    assert_eq!(after.morphs[EYE_UV].name_ja, model.morphs[EYE_UV].name_ja);
    assert_eq!(edit.en, "Move the UVs of 3 vertices of morph \"目UV\"");
    assert_eq!(edit.ja, "モーフ「目UV」の頂点3個のUVを移動");

    // Moving vertex 0 back to its base UV empties its entry: it leaves the list.
    let (back, _) = run(
        &model,
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [0],
               "move": [0, -0.125], "morph": 0, "morph_value": 0.5}),
    );
    assert_eq!(
        offsets(&back, EYE_UV)
            .iter()
            .map(|o| o.0)
            .collect::<Vec<_>>(),
        vec![2, UNSELECTED]
    );

    // The default pivot is the centre as drawn: vertices 0 and 2 drawn at (0, 0.125) and
    // (1.0625, 1) at 0.5, centre (0.53125, 0.5625).
    assert_eq!(
        drawn_uv_centre(&model, UvChannel::Base, EYE_UV, 0.5, &[0, 2]),
        Some(G2::new(0.53125, 0.5625))
    );
    let (scaled, _) = run(
        &model,
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [0, 2],
               "scale": 2, "morph": "目UV", "morph_value": 0.5}),
    );
    // Doubled about c: a UV drawn at d goes to 2d − c, so its offset grows by (d − c) / 0.5.
    let got = offsets(&scaled, EYE_UV);
    assert!(
        close4(got[0].1, [0.125 + 1.0625, 0.875, 0.5, 0.75]),
        "{got:?}"
    );
    assert!(
        close4(got[1].1, [-1.0625, 0.25 - 0.875, 0.0, 0.0]),
        "{got:?}"
    );
}

#[test]
fn into_a_morph_of_another_kind_is_refused() {
    let mut model = model();
    let into = |model: &mut Model, target: &str, morph: usize| {
        ops_to_edit(
            model,
            &[op(
                json!({"op": "transform", "kind": "vertex", "target": target, "indices": [1],
                       "move": [0.1, 0], "morph": morph}),
            )],
        )
        .map(|_| ())
        .map_err(|e| e.to_string())
    };
    let vertex = into(&mut model, "uv", VERTEX_MORPH).unwrap_err();
    assert!(vertex.contains("`morph`"), "{vertex}");
    assert!(into(&mut model, "uv", ADDITIONAL1_MORPH).is_err());
    assert!(into(&mut model, "additional_uv[1]", EYE_UV).is_err());
    assert!(into(&mut model, "additional_uv[2]", ADDITIONAL1_MORPH).is_err());
    // The right channel's morph works; z and w of its entry stay.
    let group = UvTransformGroup {
        indices: vec![1],
        transform: UvTransform::moving(G2::new(0.0, 0.5)),
    };
    let edit = Edit::transform_uv_morph(
        &model,
        UvChannel::Additional(2),
        ADDITIONAL2_MORPH,
        1.0,
        std::slice::from_ref(&group),
    )
    .unwrap();
    let after = apply_undo_redo(&model, edit);
    assert_eq!(
        offsets(&after, ADDITIONAL2_MORPH),
        vec![(1, [0.0, 1.0, 1.0, 2.0])]
    );
    // A vertex morph through the API, and a value of 0.
    assert!(
        Edit::transform_uv_morph(
            &model,
            UvChannel::Base,
            VERTEX_MORPH,
            1.0,
            std::slice::from_ref(&group)
        )
        .is_err()
    );
    assert!(Edit::transform_uv_morph(&model, UvChannel::Base, EYE_UV, 0.0, &[group]).is_err());
}

#[test]
fn the_frames_of_one_drag_are_one_undo_step() {
    let mut model = model();
    let original = bytes(&model);
    let mut history = History::new();
    let gesture = history.new_gesture();
    for _ in 0..4 {
        let edit = Edit::transform_uv(
            &model,
            UvChannel::Base,
            &[UvTransformGroup {
                indices: CORNERS.to_vec(),
                transform: UvTransform::rotating(22.5, G2::new(0.5, 0.5)),
            }],
        )
        .unwrap()
        .in_gesture(gesture);
        history.apply(&mut model, edit);
    }
    assert_eq!(history.len(), 1, "one drag, one step");
    assert!(
        close(uv(&model, 1), [0.0, 0.0]),
        "four eighth turns are a quarter"
    );
    history.undo(&mut model);
    assert_eq!(bytes(&model), original);
}

#[test]
fn the_ops_json_keeps_its_text_and_old_position_ops_still_work() {
    for text in [
        json!({"op": "transform", "kind": "vertex", "target": "uv", "indices": [0, 1],
               "move": [0.25, 0.5], "rotate": 90.0, "scale": [2.0, 0.5], "pivot": [0.5, 0.5]}),
        json!({"op": "transform", "kind": "vertex", "target": "additional_uv[4]",
               "indices": [3], "scale": 2.0, "morph": "目UV", "morph_value": 0.5}),
        json!({"op": "transform", "kind": "vertex", "target": "position", "indices": [0],
               "move": [0.0, 1.0, 0.0]}),
        json!({"op": "transform", "kind": "bone", "indices": [0], "move": [1.0, 0.0, 0.0],
               "rotate": [0.0, 0.0, 90.0], "scale": 2.0, "pivot": [0.0, 0.0, 0.0]}),
    ] {
        let parsed = op(text.clone());
        assert_eq!(serde_json::to_value(&parsed).unwrap(), text);
    }
    // An old position op: the vertices move, their UVs stay.
    let model = model();
    let (after, edit) = run(
        &model,
        json!({"op": "transform", "kind": "vertex", "indices": [0, 1], "move": [0, 2, 0]}),
    );
    assert_eq!(after.vertices[1].position, Vec3::new(1.0, 2.0, 0.0));
    assert_eq!(after.vertices[1].uv, model.vertices[1].uv);
    assert_eq!(edit.en, "Move 2 vertices");
}

/// UV edits say they touched only UVs (the UV pane keeps its wireframe and seams across them;
/// the weight brush its lookups), undo and redo alike; a position edit does not.
#[test]
fn uv_edits_report_that_they_touched_only_uvs() {
    let mut model = model();
    let mut history = History::new();
    for channel in [UvChannel::Base, UvChannel::Additional(2)] {
        let edit = Edit::transform_uv(
            &model,
            channel,
            &[UvTransformGroup {
                indices: vec![0, 1],
                transform: UvTransform::moving(G2::new(0.25, 0.0)),
            }],
        )
        .unwrap();
        let touched = history.apply(&mut model, edit);
        assert!(touched.vertex_uvs_only, "{channel}");
        assert!(!touched.vertex_positions_only);
        let undone = history.undo(&mut model).unwrap();
        assert!(undone.vertex_uvs_only, "{channel} undone");
    }
    let moved = ops_to_edit(
        &mut model,
        &[serde_json::from_value::<EditOp>(json!({
            "op": "transform", "kind": "vertex", "indices": [0], "move": [1.0, 0.0, 0.0]
        }))
        .unwrap()],
    )
    .unwrap();
    let touched = history.apply(&mut model, moved);
    assert!(!touched.vertex_uvs_only && touched.vertex_positions_only);
}

/// A scale about the line the chosen corners lie on moves nothing: no step (the UV tab's Apply
/// adds nothing to the history).
#[test]
fn a_transform_that_moves_no_uv_is_no_change() {
    let model = model();
    // Vertices 1 and 2 (top-right, bottom-right) lie on u = 1: scaling U about u = 1.
    let groups = [UvTransformGroup {
        indices: vec![1, 2],
        transform: UvTransform::scaling(G2::new(0.5, 1.0), G2::new(1.0, 0.5)),
    }];
    assert!(matches!(
        Edit::transform_uv(&model, UvChannel::Base, &groups),
        Err(EditError::NoChange)
    ));
}
