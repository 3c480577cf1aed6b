//! What the 3D view draws of the pose pane's pose: the GPU skins the mesh, so a pose sends only
//! the bone palette and the vertex morphs' weights ([`pmx_scene::skin`]), and at rest the GPU
//! draws the vertex buffers as they are; the overlays (bones, rigid bodies, selected vertices,
//! normals) and the gizmo are drawn where the same evaluation put them. The CPU skins the
//! vertices of a pose only when something asks for them (a pick, a brush, an overlay on
//! vertices: [`pmx_scene::overlay::LazyPosedVertices`]), so a motion playing under no vertex
//! overlay skins nothing on the CPU. The document never changes. After a weight edit (a
//! brush step) only the vertices it re-skinned are skinned again, and the scene's sync
//! uploads only their skinning data. The window's editor and `pmx-studio render` feed the
//! view through this one type.

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
        // The view gives its share of the posed vertices back, so the next generation's go
        // into the same memory, and a re-skin patches them in place instead of skinning a
        // million.
        view.set_vertex_placements(None);
        let posed = pose.share_posed_vertices(reskinned.as_ref());
        view.set_vertex_placements(posed.map(|posed| (generation, posed)));
        // The view pane was drawn before the pose changed this frame; its paint runs after
        // this, so an overlay rebuilt now is painted with the mesh uploaded below (one built
        // in the next frame would trail the mesh by a frame while a motion or physics plays).
        view.sync_overlay(document, document_id);
        // The mesh is skinned on the GPU: only the bone palette and the vertex morphs'
        // weights go up (physics results are bone transforms, in the palette). A weight
        // edit's skinning data goes up with the scene's sync of the edit.
        match pose.evaluated().filter(|_| !pose.pose.is_rest()) {
            Some(evaluator) => {
                view.scene.upload_skin_pose(&document.model, evaluator);
                self.view_shows_pose = true;
            }
            None if self.view_shows_pose => {
                view.scene.show_rest(&document.model);
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
