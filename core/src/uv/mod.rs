//! A model's UVs as a flat drawing: the UV wireframe of chosen materials with its seams
//! ([`uv_wireframe`], what the editor's UV pane draws over the texture) and that wireframe
//! rasterised into an image ([`render_uv_layout`], `pmx-studio uv-layout` and File > Export UV
//! layout…, the template a texture painter paints over).
//!
//! UVs are read, never changed: editing them is the `transform` op's (`edit`). The wireframe
//! holds vertex indices, not UVs, so that it stays valid while UVs are edited.

mod layout;
mod wireframe;

pub use layout::{
    DEFAULT_SIZE, MAX_LINE_WIDTH, MAX_SIZE, MIN_SIZE, UvLayoutError, UvLayoutOptions,
    render_uv_layout, uv_layout_png,
};
pub use wireframe::{MaterialEdges, UvEdge, UvWireframe, uv_wireframe};

use crate::model::Model;

/// The highest UV channel: 0 is the vertices' own UV, 1 to 4 the additional UV channels.
pub const MAX_CHANNEL: u8 = 4;

/// Which UVs: 0 = the vertices' own UV, 1..=4 = additional UV channel N (its x, y).
/// `None` for a vertex or a channel the model does not have.
#[must_use]
pub fn channel_uv(model: &Model, channel: u8, vertex: usize) -> Option<glam::Vec2> {
    match channel {
        0 => model.vertices.get(vertex).map(|v| glam::Vec2::from(v.uv)),
        1..=MAX_CHANNEL => model
            .additional_uvs
            .get(usize::from(channel) - 1)?
            .get(vertex)
            .map(|uv| glam::Vec2::new(uv.x, uv.y)),
        _ => None,
    }
}

/// Whether the model has UV channel `channel` ([`channel_uv`]): every model has channel 0.
#[must_use]
pub fn has_channel(model: &Model, channel: u8) -> bool {
    channel == 0 || (channel <= MAX_CHANNEL && usize::from(channel) <= model.additional_uvs.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Vec2, Vec4, Vertex};

    #[test]
    fn channels_read_the_own_uv_or_an_additional_channel() {
        let own_uv = Vertex {
            uv: Vec2::new(0.25, 0.75),
            ..Vertex::default()
        };
        let model = Model {
            vertices: vec![own_uv; 2],
            additional_uvs: vec![vec![Vec4::new(0.1, 0.2, 0.3, 0.4); 2]],
            ..Model::default()
        };
        assert_eq!(channel_uv(&model, 0, 1), Some(glam::Vec2::new(0.25, 0.75)));
        assert_eq!(channel_uv(&model, 1, 0), Some(glam::Vec2::new(0.1, 0.2)));
        assert_eq!(channel_uv(&model, 2, 0), None);
        assert_eq!(channel_uv(&model, 0, 2), None);
        assert_eq!(channel_uv(&model, 5, 0), None);
        assert!(has_channel(&model, 0) && has_channel(&model, 1));
        assert!(!has_channel(&model, 2) && !has_channel(&model, 5));
    }
}
