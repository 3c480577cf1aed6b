//! The 3D view without the GPU: everything the 表示 (View) pane computes before anything is
//! drawn, unit-tested without OpenGL.
//!
//! - `camera`: the MMD-like orbit camera (presets, pan, zoom, framing, pick rays, projection);
//! - `pick`: ray/triangle/shape and screen-space point picking, rectangle selection;
//! - `mesh`, `overlay`: vertex arrays in world space, indices in GL winding, material ranges;
//!   bones, rigid bodies, joints, grid, normals and weights as coloured lines and triangles;
//! - `brush`: the weight brush's dabs and gradients (which vertices, how much), on the mesh as
//!   drawn;
//! - `weight_colors`: the weight display's colour per vertex (one bone on a ramp, or every
//!   bone in its own colour);
//! - `toon`: the shared toon01–10, drawn in code;
//! - `frame`: what one frame draws and the uploads the GPU applies before it;
//! - `scene`: which uploads an edit needs (only the touched ranges; structural edits rebuild),
//!   queued for the [`scene::Painter`] the window provides (`pmx_view`).
//!
//! The editor (`pmx_ui`) builds on this crate; the GL side (`pmx_view`) too. Neither depends on
//! the other, so editing a panel does not rebuild the GL code and panel tests do not link it.

pub mod brush;
pub mod camera;
pub mod frame;
pub mod mesh;
pub mod overlay;
pub mod pick;
pub mod scene;
pub mod skin;
pub mod toon;
pub mod weight_colors;

/// A set of selected element indices, as the overlays read it (the editor's selection sets
/// implement it; so do plain index collections, for tests and tools).
pub trait Selected {
    fn contains(&self, index: usize) -> bool;
    /// The selected indices in ascending order.
    fn indices(&self) -> Box<dyn Iterator<Item = usize> + '_>;
    /// How many are selected.
    fn count(&self) -> usize;
}

impl Selected for std::collections::BTreeSet<usize> {
    fn contains(&self, index: usize) -> bool {
        std::collections::BTreeSet::contains(self, &index)
    }
    fn indices(&self) -> Box<dyn Iterator<Item = usize> + '_> {
        Box::new(self.iter().copied())
    }
    fn count(&self) -> usize {
        self.len()
    }
}
