//! What the 3D view draws of the pose pane's pose: deformed positions and normals go to the
//! GPU when the pose changes, and the model's own values again when it is back at rest; the
//! overlays (bones, rigid bodies, selected vertices, normals) and the gizmo are drawn where the
//! same evaluation put them. The document never changes. After a weight edit (a brush step)
//! only the vertices it re-skinned are copied and uploaded. The window's editor and
//! `pmx-studio render` feed the view through this one type.

use crate::document::Document;
use crate::panes::pose::PoseState;
use crate::panes::view::ViewState;

/// The pose last sent to a 3D view.
#[derive(Debug, Default)]
pub struct PoseFeed {
    /// The pose generation last sent to the view.
    fed_generation: u64,
    /// Whether the view shows a pose (deformed vertices) rather than the model at rest.
    view_shows_pose: bool,
}

impl PoseFeed {
    /// Sends the pose to the view if it changed since the last call (or the view's mesh went
    /// up again at rest under an unchanged pose).
    pub fn feed(
        &mut self,
        view: &mut ViewState,
        pose: &mut PoseState,
        document: &Document,
        document_id: u64,
    ) {
        let generation = pose.generation();
        // The whole mesh went up again at rest (a structural edit) under an unchanged pose:
        // the pose goes up again too.
        let mesh_lost_pose = self.view_shows_pose && !view.scene.holds_deformed();
        if generation == self.fed_generation && !mesh_lost_pose {
            return;
        }
        let reskinned = pose
            .take_reskinned()
            .filter(|r| r.from == self.fed_generation && !mesh_lost_pose);
        self.fed_generation = generation;
        view.set_body_placements(pose.body_placements(&document.model));
        view.set_bone_placements(pose.bone_placements());
        // The view gives its share of the posed vertices back, so a re-skin patches them in
        // place instead of copying a million.
        view.set_vertex_placements(None);
        let posed = pose.share_posed_vertices(reskinned.as_ref());
        view.set_vertex_placements(posed.clone().map(|posed| (generation, posed)));
        // The view pane was drawn before the pose changed this frame; its paint runs after
        // this, so an overlay rebuilt now is painted with the mesh uploaded below (one built
        // in the next frame would trail the mesh by a frame while a motion or physics plays).
        view.sync_overlay(document, document_id);
        match posed {
            Some(posed) => {
                match reskinned {
                    Some(reskinned) if self.view_shows_pose => view.scene.upload_deformed_spans(
                        &reskinned.vertices,
                        &posed.positions,
                        &posed.normals,
                    ),
                    _ => view
                        .scene
                        .upload_deformed(0, &posed.positions, &posed.normals),
                }
                self.view_shows_pose = true;
            }
            None if self.view_shows_pose => {
                let vertices = &document.model.vertices;
                let positions: Vec<_> = vertices.iter().map(|v| v.position.into()).collect();
                let normals: Vec<_> = vertices.iter().map(|v| v.normal.into()).collect();
                view.scene.upload_deformed(0, &positions, &normals);
                self.view_shows_pose = false;
            }
            None => {}
        }
        // UV and material morphs: the few UVs they move, and each material's values.
        let scene = &mut view.scene;
        scene.show_posed_uvs(&document.model, pose.posed_uvs());
        scene.set_material_morphs(&document.model, pose.posed_material_morphs());
    }
}
