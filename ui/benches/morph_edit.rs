#![allow(clippy::expect_used, clippy::unwrap_used)]
//! One frame of a drag in morph edit mode, as the editor runs it for every frame of a gizmo
//! drag: the edit of the morph's offsets built from the move of the selected vertices (2,000
//! of them, with X mirror), applied as the next frame of the drag's undo step, and the pose the
//! view draws brought up to date (the evaluator takes the morphs again and keeps its skeleton
//! and skinning data, then deforms every vertex with the morph at 1). On the 100,000- and
//! 1,000,000-vertex benchmark models with a vertex morph of 10,000 offsets.
//! Run: `cargo bench -p pmx_ui --bench morph_edit`.

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use pmx_core::edit::{GestureId, History};
use pmx_core::generate::{LargeModelSpec, large_model};
use pmx_core::model::{
    ElementKind, Model, Morph, MorphIdx, MorphOffsets, MorphPanel, PmxVersion, VertexIdx,
    VertexMorphOffset,
};
use pmx_core::pose::{Pose, PoseEvaluator};
use pmx_ui::command::{Command, EditCommand, EditRequest};
use pmx_ui::document::Document;
use pmx_ui::panes::view::transform::{Transform, morph_transform_command};

const SELECTED: usize = 2_000;
const OFFSETS: usize = 10_000;

fn setup(vertices: usize) -> (Document, usize) {
    let mut model: Model = large_model(&LargeModelSpec {
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
    let step = vertices / OFFSETS;
    model.morphs.push(Morph {
        name_ja: "笑い".into(),
        name_en: "smile".into(),
        panel: MorphPanel::Other,
        offsets: MorphOffsets::Vertex(
            (0..OFFSETS)
                .map(|k| VertexMorphOffset {
                    vertex: VertexIdx::new(k * step),
                    offset: pmx_core::model::Vec3::new(0.0, 0.01, 0.0),
                })
                .collect(),
        ),
    });
    let morph = model.morphs.len() - 1;
    let mut document = Document::from_model(model, None, None);
    let selection = document.selection.get_mut(ElementKind::Vertex);
    for k in 0..SELECTED {
        selection.indices.insert(k * (vertices / SELECTED));
    }
    (document, morph)
}

fn frame(c: &mut Criterion, vertices: usize, label: &str) {
    let (mut document, morph) = setup(vertices);
    let mut pose = Pose::new(&document.model);
    pose.set_morph(MorphIdx::new(morph), 1.0);
    let mut evaluator = PoseEvaluator::new(&document.model);
    evaluator.evaluate(&document.model, &pose).unwrap();
    let mut history = History::new();
    let gesture: GestureId = history.new_gesture();
    let change = Transform::Move(Vec3::new(0.001, 0.0, 0.0));
    c.bench_function(&format!("morph_edit_frame_{label}"), |b| {
        b.iter(|| {
            let command =
                morph_transform_command(&document, morph, 1.0, ElementKind::Vertex, change, true)
                    .expect("the drag changes the morph");
            let Command::Edit(EditCommand {
                request: EditRequest::SetNamed { set, label },
                ..
            }) = command
            else {
                panic!("a named set");
            };
            let model = &mut document.model;
            if let Err(set) = history.continue_gesture(model, gesture, set) {
                let edit = set.into_edit(model).unwrap().with_label(label);
                history.apply(model, edit.in_gesture(gesture));
            }
            evaluator.update_morphs(model).unwrap();
            evaluator.evaluate(model, &pose).unwrap();
        });
    });
}

fn morph_edit(c: &mut Criterion) {
    frame(c, 100_000, "100k");
    frame(c, 1_000_000, "1m");
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = morph_edit
}
criterion_main!(benches);
