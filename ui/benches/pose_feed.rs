#![allow(clippy::expect_used, clippy::unwrap_used)]
//! A posed frame in the editor as a motion plays, on the 1,000,000-vertex benchmark model:
//! the pose pane's evaluation and the feed to the 3D view (bone and body placements, the
//! overlay, the GPU's bone palette and morph weights queued). Two cases in one run:
//!
//! - `no_vertex_overlay`: nothing in the view needs the posed vertices, so the CPU skins none
//!   (the GPU skins the mesh);
//! - `vertex_selected`: a selected vertex is drawn where the pose puts it, so every frame skins
//!   every vertex on the CPU, which every posed frame did before the skinning became lazy.
//!
//! Run: `cargo bench -p pmx_ui --bench pose_feed`.

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use pmx_core::generate::{LargeModelSpec, large_model, lay_out_as_tube};
use pmx_core::model::ElementKind;
use pmx_ui::document::Document;
use pmx_ui::panes::pose::PoseState;
use pmx_ui::panes::pose_feed::PoseFeed;
use pmx_ui::panes::view::ViewState;
use std::time::Duration;

fn pose_feed(c: &mut Criterion) {
    let mut model = large_model(&LargeModelSpec::million());
    lay_out_as_tube(&mut model, 1000);
    let mut document = Document::from_model(model, None, None);
    let mut view = ViewState::default();
    view.sync(&document, 1);
    view.scene.clear_pending();
    let mut pose = PoseState::default();
    pose.sync(&document, 1);
    let mut feed = PoseFeed::default();
    let bones = document.model.bones.len();
    let mut step = 0u32;
    // One frame of a playing motion: a few bones turned a little further, evaluated and fed.
    let mut frame = |view: &mut ViewState, pose: &mut PoseState, document: &Document| {
        step += 1;
        let angle = (step % 10) as f32 * 2.0;
        for bone in (0..bones).step_by(40) {
            pose.set_bone_rotation(&document.model, bone, Vec3::new(0.0, 0.0, angle));
        }
        pose.evaluate(&document.model);
        feed.feed(view, pose, document, 1);
        view.scene.clear_pending();
    };
    let mut group = c.benchmark_group("pose_feed_1m_vertices");
    group.sample_size(20);
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("no_vertex_overlay", |b| {
        b.iter(|| frame(&mut view, &mut pose, &document));
    });
    assert_eq!(view.posed_vertices_made(), Some(false), "nothing skinned");
    document
        .selection
        .get_mut(ElementKind::Vertex)
        .select_only(500_000);
    group.bench_function("vertex_selected", |b| {
        b.iter(|| frame(&mut view, &mut pose, &document));
    });
    assert_eq!(
        view.posed_vertices_made(),
        Some(true),
        "skinned for the overlay"
    );
    group.finish();
}

criterion_group!(benches, pose_feed);
criterion_main!(benches);
