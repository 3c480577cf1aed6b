//! What one frame of the view draws and what the GPU must change before drawing it: plain data
//! the CPU side builds ([`crate::scene`], the editor's view pane) and the GPU side
//! (`pmx_view`) consumes.

use crate::mesh::{MaterialRange, MeshData, Primitive, VertexPatch};
use crate::overlay::OverlayGeometry;
use crate::skin::{SkinData, SkinPatch, SkinPose};
use pmx_core::model::{DrawFlags, Material, Model, SphereMode, TextureIdx, Toon};
use pmx_core::pose::{MaterialMorphState, MorphedMaterial, TextureTint};
use pmx_core::texture::Image;

/// MikuMikuDance's default light: direction (-0.5, -1, 0.5) (world Z negated), colour 154/255.
pub const LIGHT_DIRECTION: glam::Vec3 = glam::Vec3::new(-0.5, -1.0, -0.5);
pub const LIGHT_COLOR: glam::Vec3 = glam::Vec3::splat(154.0 / 255.0);
pub const BACKGROUND: [f32; 4] = [0.92, 0.92, 0.94, 1.0];

/// What the GPU needs to change before drawing.
#[derive(Debug, Clone)]
pub enum Upload {
    /// The whole mesh (a new model or a structural edit).
    Mesh(MeshData),
    Vertices(VertexPatch),
    /// New indices for the faces from `first_face` on.
    Faces {
        first_face: usize,
        indices: Vec<u32>,
    },
    /// The material index ranges (after a material's face count changed).
    MaterialRanges(Vec<MaterialRange>),
    /// The model's texture list (index = texture index; `None`: the placeholder).
    Textures(Vec<Option<Image>>),
    Texture {
        index: usize,
        image: Option<Image>,
    },
    Overlay(OverlayGeometry),
    /// Per-vertex colours for the weight view, RGBA8 (alpha unused), one per vertex of the
    /// mesh (`None`: off).
    WeightColors(Option<Vec<[u8; 4]>>),
    /// New weight-view colours of `vertices` (sorted, one colour each): a weight brush's
    /// step recolours only what it changed. The GPU side writes them in a few runs
    /// ([`crate::scene::coalesce_runs`]).
    WeightColorPatch {
        vertices: Vec<u32>,
        colors: Vec<[u8; 4]>,
    },
    /// The model's skinning data for drawing a pose on the GPU ([`crate::skin`]): with the
    /// mesh's first pose, again after edits of bones or morphs. A whole mesh drops it.
    Skin(SkinData),
    /// New skinning data of some vertices (a weight edit).
    SkinPatch(SkinPatch),
    /// The pose the passes draw the mesh in: a bone palette and the vertex morphs' weights
    /// (`None`: the vertex buffers as they are, the model at rest or a pose the CPU
    /// deformed).
    SkinPose(Option<SkinPose>),
}

/// How one material is drawn this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MaterialDraw {
    pub diffuse: [f32; 4],
    pub specular: [f32; 3],
    pub specular_power: f32,
    pub ambient: [f32; 3],
    pub double_sided: bool,
    pub primitive: Primitive,
    pub vertex_color: bool,
    pub edge: Option<([f32; 4], f32)>,
    /// Point size in pixels (point mode).
    pub point_size: f32,
    pub texture: Option<usize>,
    pub sphere: Option<(usize, u8)>,
    pub toon: ToonRef,
    /// Material morphs' tints of the texture, sphere and toon texels
    /// ([`TextureTint::apply`]); [`NO_TINT`] without morphs.
    pub texture_tint: TextureTint,
    pub sphere_tint: TextureTint,
    pub toon_tint: TextureTint,
    /// False for a material whose diffuse alpha is 0 or less: MikuMikuDance draws neither
    /// it nor its edge (material morphs fade parts out this way).
    pub visible: bool,
    /// Mixed over the colour (selection highlight); alpha 0: none.
    pub tint: [f32; 4],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToonRef {
    None,
    Shared(u8),
    Texture(usize),
}

/// Which overlays to draw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(clippy::struct_excessive_bools)]
pub struct Layers {
    pub model: bool,
    pub edges: bool,
    pub wireframe: bool,
    pub vertices: bool,
    pub weights: bool,
}

/// Everything one frame draws, besides what is uploaded.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub view: glam::Mat4,
    pub view_projection: glam::Mat4,
    pub eye: glam::Vec3,
    /// World units per pixel per unit of distance from the eye (edge widths).
    pub pixel_factor: f32,
    pub light_direction: glam::Vec3,
    pub light_color: glam::Vec3,
    pub background: [f32; 4],
    pub materials: Vec<MaterialDraw>,
    pub layers: Layers,
}

/// The tint that leaves a texel as it is (multiply by 1, add 0).
pub const NO_TINT: TextureTint = TextureTint {
    multiply: glam::Vec4::ONE,
    add: glam::Vec4::ZERO,
};

/// Per-frame material parameters, from the model (cheap: one entry per material);
/// `highlighted` tells which materials the selection tints.
#[must_use]
pub fn material_draws(model: &Model, highlighted: impl Fn(usize) -> bool) -> Vec<MaterialDraw> {
    posed_material_draws(model, highlighted, &[])
}

/// [`material_draws`] with the material morphs of a pose applied (`morphs`: one state per
/// material, as `pmx_core::pose::MorphEvaluator::materials` gives them; a material without
/// one, or with the identity, is drawn with its own values, exactly as a fresh load draws it).
#[must_use]
pub fn posed_material_draws(
    model: &Model,
    highlighted: impl Fn(usize) -> bool,
    morphs: &[MaterialMorphState],
) -> Vec<MaterialDraw> {
    // States of another model (one with other materials, before the pose follows it): none.
    let morphs = if morphs.len() == model.materials.len() {
        morphs
    } else {
        &[]
    };
    model
        .materials
        .iter()
        .enumerate()
        .map(|(index, m)| {
            let texture_index = |t: Option<TextureIdx>| t.map(|t| t.get());
            let sphere_mode = match m.sphere_mode {
                SphereMode::Multiply => 1,
                SphereMode::Add => 2,
                SphereMode::SubTexture => 3,
                SphereMode::Disabled | SphereMode::Unknown(_) => 0,
            };
            let sphere = texture_index(m.sphere_texture)
                .filter(|_| sphere_mode != 0)
                .map(|i| (i, sphere_mode));
            let toon = match m.toon {
                Toon::Shared(n) if n < 10 => ToonRef::Shared(n),
                Toon::Shared(_) | Toon::Texture(None) => ToonRef::None,
                Toon::Texture(Some(t)) => ToonRef::Texture(t.get()),
            };
            let mut draw = MaterialDraw {
                diffuse: [0.0; 4],
                specular: [0.0; 3],
                specular_power: 0.0,
                ambient: [0.0; 3],
                double_sided: m.draw_flags.contains(DrawFlags::DOUBLE_SIDED),
                primitive: crate::mesh::primitive(m.draw_flags),
                vertex_color: m.draw_flags.contains(DrawFlags::VERTEX_COLOR),
                edge: None,
                point_size: 1.0,
                texture: texture_index(m.texture),
                sphere,
                toon,
                texture_tint: NO_TINT,
                sphere_tint: NO_TINT,
                toon_tint: NO_TINT,
                visible: true,
                tint: if highlighted(index) {
                    [1.0, 0.55, 0.1, 0.35]
                } else {
                    [0.0; 4]
                },
            };
            set_material_values(&mut draw, m, morphs.get(index));
            draw
        })
        .collect()
}

/// Sets what material morphs change in `draw` (colours, specular power, edge, tints and
/// whether it is drawn) from `material` with `morph` applied (`None` or the identity: the
/// material's own values). Values that are not finite are drawn as the defaults below.
pub fn set_material_values(
    draw: &mut MaterialDraw,
    material: &Material,
    morph: Option<&MaterialMorphState>,
) {
    let finite = |v: f32, or: f32| if v.is_finite() { v } else { or };
    let values = match morph.filter(|m| !m.is_identity()) {
        Some(morph) => morph.apply(material),
        // The material's own values, not `× 1 + 0`: at rest the view draws the very numbers
        // a fresh load draws.
        None => MorphedMaterial {
            diffuse: material.diffuse.into(),
            specular: material.specular.into(),
            specular_power: material.specular_power,
            ambient: material.ambient.into(),
            edge_color: material.edge_color.into(),
            edge_size: material.edge_size,
            texture: NO_TINT,
            sphere: NO_TINT,
            toon: NO_TINT,
        },
    };
    let tint = |t: TextureTint| TextureTint {
        multiply: glam::Vec4::from_array(t.multiply.to_array().map(|v| finite(v, 1.0))),
        add: glam::Vec4::from_array(t.add.to_array().map(|v| finite(v, 0.0))),
    };
    draw.diffuse = values.diffuse.to_array().map(|v| finite(v, 1.0));
    draw.specular = values.specular.to_array().map(|v| finite(v, 0.0));
    draw.specular_power = finite(values.specular_power, 0.0);
    draw.ambient = values.ambient.to_array().map(|v| finite(v, 0.0));
    draw.edge = material
        .draw_flags
        .contains(DrawFlags::EDGE)
        .then(|| (values.edge_color.to_array(), finite(values.edge_size, 0.0)));
    draw.point_size = finite(values.edge_size, 1.0).clamp(1.0, 64.0);
    // Tints change texels: a material without that texture has none to change (as
    // MikuMikuDance's shader tints only a texture in use).
    let tint_if = |used: bool, t: TextureTint| if used { tint(t) } else { NO_TINT };
    draw.texture_tint = tint_if(draw.texture.is_some(), values.texture);
    draw.sphere_tint = tint_if(draw.sphere.is_some(), values.sphere);
    draw.toon_tint = tint_if(draw.toon != ToonRef::None, values.toon);
    draw.visible = draw.diffuse[3] > 0.0;
}
