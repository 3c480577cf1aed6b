//! Materials: glTF core values for viewers without MToon, and `VRMC_materials_mtoon`.
//!
//! - Base colour: the diffuse colour (MMD colours are sRGB-encoded; glTF factors are linear,
//!   so the RGB is decoded) and alpha; the texture embedded as PNG.
//! - Shade: the toon as MToon shading (`super::toon`): the diffuse colour times the toon
//!   ramp's shadow end, and `shadingToonyFactor` / `shadingShiftFactor` from where and how fast
//!   the ramp turns (the shared toon01–10 from their known colours, the model's own toon image
//!   measured on its pixels; no toon, or one that cannot be read, is white: the shade is the
//!   lit colour). The shade is multiplied by the base texture (`shadeMultiplyTexture`), as MMD
//!   multiplies its toon into the textured colour. A ramp's lit end is taken as white: MToon
//!   has no other place for it than the base colour, which expressions drive too.
//! - Outline: with the edge flag, world-coordinate outlines of `edge size × 5 mm` (VRM 0's
//!   MToon default width at size 1) in the edge colour, unlit (MMD's edge ignores lighting).
//! - Alpha: `BLEND` when the diffuse alpha is below 1 or the texture has partly transparent
//!   texels, with `transparentWithZWrite` (MMD writes depth for every material) and the MMD
//!   draw order kept in `renderQueueOffsetNumber`; `MASK` when the texture's alpha is only
//!   fully opaque or fully clear; `OPAQUE` otherwise.
//! - Additive sphere maps become the MToon matcap (MToon adds its matcap too).

use super::VrmExportOptions;
use super::glb::Builder;
use super::report::VrmLoss;
use super::toon::mtoon_toony_and_shift;
use crate::model::{DrawFlags, Model, SphereMode, Toon};
use crate::texture::toon::ToonRamp;
use gltf_json as json;
use json::validation::Checked;
use serde_json::{Value, json};
use std::collections::HashMap;

/// Decodes one sRGB-encoded channel to linear.
#[must_use]
pub fn srgb_to_linear(value: f32) -> f32 {
    let value = value.clamp(0.0, 1.0);
    if value <= 0.04045 {
        value / 12.92
    } else {
        ((value + 0.055) / 1.055).powf(2.4)
    }
}

/// The values of a material that expressions change (gamma-space, as MMD stores them).
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialFactors {
    pub diffuse_gamma: [f32; 4],
    pub edge_gamma: [f32; 4],
}

/// How a texture's alpha channel is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextureAlpha {
    Opaque,
    Cutout,
    Blended,
}

#[derive(Debug, Clone)]
struct LoadedTexture {
    texture: json::Index<json::Texture>,
    alpha: TextureAlpha,
}

/// Embeds textures once each and remembers what failed.
struct Textures<'a> {
    model: &'a Model,
    options: &'a VrmExportOptions,
    sampler: Option<json::Index<json::texture::Sampler>>,
    loaded: HashMap<String, Option<LoadedTexture>>,
    /// The ramps of the model's toon images, by name (`None`: not readable, listed once).
    toons: HashMap<String, Option<ToonRamp>>,
}

impl Textures<'_> {
    fn name(&self, index: Option<crate::model::TextureIdx>) -> Option<String> {
        let name = self
            .model
            .textures
            .get(index?.get())?
            .as_str()
            .trim()
            .to_owned();
        (!name.is_empty()).then_some(name)
    }

    fn image(&self, name: &str) -> Result<crate::texture::Image, crate::texture::TextureProblem> {
        crate::texture::load(self.options.model_dir.as_deref(), name)
    }

    fn embed(
        &mut self,
        builder: &mut Builder,
        name: &str,
        losses: &mut Vec<VrmLoss>,
    ) -> Option<LoadedTexture> {
        if let Some(known) = self.loaded.get(name) {
            return known.clone();
        }
        let result = super::images::load_embeddable(self.options.model_dir.as_deref(), name);
        let loaded = match result {
            Ok(embedded) => {
                let alpha = alpha_kind(&embedded.image);
                let view = builder.view(&embedded.bytes, None);
                let image = builder.root.push(json::Image {
                    buffer_view: Some(view),
                    mime_type: Some(json::image::MimeType(embedded.mime_type.into())),
                    name: Some(name.to_owned()),
                    uri: None,
                    extensions: None,
                    extras: Default::default(),
                });
                let sampler = *self.sampler.get_or_insert_with(|| {
                    builder.root.push(json::texture::Sampler {
                        mag_filter: Some(Checked::Valid(json::texture::MagFilter::Linear)),
                        min_filter: Some(Checked::Valid(
                            json::texture::MinFilter::LinearMipmapLinear,
                        )),
                        name: None,
                        wrap_s: Checked::Valid(json::texture::WrappingMode::Repeat),
                        wrap_t: Checked::Valid(json::texture::WrappingMode::Repeat),
                        extensions: None,
                        extras: Default::default(),
                    })
                });
                let texture = builder.root.push(json::Texture {
                    name: Some(name.to_owned()),
                    sampler: Some(sampler),
                    source: image,
                    extensions: None,
                    extras: Default::default(),
                });
                Some(LoadedTexture { texture, alpha })
            }
            Err(problem) => {
                losses.push(VrmLoss::TextureMissing { problem });
                None
            }
        };
        self.loaded.insert(name.to_owned(), loaded.clone());
        loaded
    }

    /// The ramp of a material's toon: a shared toon's known colours, the model's own toon image
    /// measured on its pixels, white for none (or one that cannot be read, listed).
    fn toon_ramp(&mut self, toon: Toon, losses: &mut Vec<VrmLoss>) -> ToonRamp {
        let name = match toon {
            Toon::Shared(number) => return ToonRamp::shared(number).unwrap_or(ToonRamp::WHITE),
            Toon::Texture(index) => match self.name(index) {
                Some(name) => name,
                None => return ToonRamp::WHITE,
            },
        };
        if let Some(known) = self.toons.get(&name) {
            return known.unwrap_or(ToonRamp::WHITE);
        }
        let ramp = match self.image(&name) {
            Ok(image) => ToonRamp::of_image(&image),
            Err(problem) => {
                losses.push(VrmLoss::TextureMissing { problem });
                None
            }
        };
        self.toons.insert(name, ramp);
        ramp.unwrap_or(ToonRamp::WHITE)
    }
}

fn alpha_kind(image: &crate::texture::Image) -> TextureAlpha {
    let mut clear = false;
    let mut partial = 0usize;
    for alpha in image.pixels.iter().skip(3).step_by(4) {
        match alpha {
            0..=4 => clear = true,
            251..=255 => {}
            _ => partial += 1,
        }
    }
    let texels = image.pixels.len() / 4;
    // A few partly clear texels are the anti-aliased rim of a cut-out, not a blended surface.
    if partial * 100 > texels.max(1) {
        TextureAlpha::Blended
    } else if clear || partial > 0 {
        TextureAlpha::Cutout
    } else {
        TextureAlpha::Opaque
    }
}

fn linear_rgb(rgb: [f32; 3]) -> Vec<f64> {
    rgb.iter().map(|&c| f64::from(srgb_to_linear(c))).collect()
}

/// Writes every material (glTF material `i` is PMX material `i`) and returns the factors the
/// expressions need.
pub(super) fn write_materials(
    builder: &mut Builder,
    model: &Model,
    options: &VrmExportOptions,
    losses: &mut Vec<VrmLoss>,
) -> Vec<MaterialFactors> {
    let mut textures = Textures {
        model,
        options,
        sampler: None,
        loaded: HashMap::new(),
        toons: HashMap::new(),
    };
    let mut factors = Vec::with_capacity(model.materials.len());
    let mut spheres_dropped = 0usize;
    // Blended materials in draw order, for renderQueueOffsetNumber.
    let mut blended: Vec<(usize, Value)> = Vec::new();
    let mut materials = Vec::with_capacity(model.materials.len());
    for material in &model.materials {
        let diffuse = material.diffuse.to_array().map(|c| c.clamp(0.0, 1.0));
        let edge = material.edge_color.to_array().map(|c| c.clamp(0.0, 1.0));
        factors.push(MaterialFactors {
            diffuse_gamma: diffuse,
            edge_gamma: edge,
        });
        let base = textures
            .name(material.texture)
            .and_then(|name| textures.embed(builder, &name, losses));
        let ramp = textures.toon_ramp(material.toon, losses);
        let (toony, shift) = mtoon_toony_and_shift(&ramp);
        let shade_gamma: [f32; 3] = std::array::from_fn(|c| diffuse[c] * ramp.shadow[c]);
        let texture_alpha = base.as_ref().map_or(TextureAlpha::Opaque, |t| t.alpha);
        let alpha_mode = if diffuse[3] < 0.999 || texture_alpha == TextureAlpha::Blended {
            json::material::AlphaMode::Blend
        } else if texture_alpha == TextureAlpha::Cutout {
            json::material::AlphaMode::Mask
        } else {
            json::material::AlphaMode::Opaque
        };
        let texture_info =
            |texture: json::Index<json::Texture>| json!({ "index": texture.value() });
        let mut mtoon = serde_json::Map::new();
        mtoon.insert("specVersion".into(), json!("1.0"));
        mtoon.insert(
            "transparentWithZWrite".into(),
            json!(alpha_mode == json::material::AlphaMode::Blend),
        );
        mtoon.insert("shadeColorFactor".into(), json!(linear_rgb(shade_gamma)));
        if let Some(base) = &base {
            mtoon.insert("shadeMultiplyTexture".into(), texture_info(base.texture));
        }
        mtoon.insert("shadingToonyFactor".into(), json!(f64::from(toony)));
        mtoon.insert("shadingShiftFactor".into(), json!(f64::from(shift)));
        mtoon.insert("giEqualizationFactor".into(), json!(0.9));
        match material.sphere_mode {
            SphereMode::Add => {
                let sphere = textures
                    .name(material.sphere_texture)
                    .and_then(|name| textures.embed(builder, &name, losses));
                if let Some(sphere) = sphere {
                    mtoon.insert("matcapTexture".into(), texture_info(sphere.texture));
                    mtoon.insert("matcapFactor".into(), json!([1.0, 1.0, 1.0]));
                }
            }
            SphereMode::Disabled => {}
            _ => {
                if material.sphere_texture.is_some() {
                    spheres_dropped += 1;
                }
            }
        }
        if material.draw_flags.contains(DrawFlags::EDGE) && material.edge_size > 0.0 {
            mtoon.insert("outlineWidthMode".into(), json!("worldCoordinates"));
            mtoon.insert(
                "outlineWidthFactor".into(),
                json!(f64::from(material.edge_size * 0.005)),
            );
            mtoon.insert(
                "outlineColorFactor".into(),
                json!(linear_rgb([edge[0], edge[1], edge[2]])),
            );
            mtoon.insert("outlineLightingMixFactor".into(), json!(0.0));
        }
        let index = materials.len();
        if alpha_mode == json::material::AlphaMode::Blend {
            blended.push((index, Value::Null));
        }
        let mut extensions = json::extensions::material::Material::default();
        extensions
            .others
            .insert("VRMC_materials_mtoon".into(), Value::Object(mtoon));
        materials.push(json::Material {
            alpha_cutoff: (alpha_mode == json::material::AlphaMode::Mask)
                .then_some(json::material::AlphaCutoff(0.5)),
            alpha_mode: Checked::Valid(alpha_mode),
            double_sided: material.draw_flags.contains(DrawFlags::DOUBLE_SIDED),
            name: Some(material.name_ja.as_str().into_owned()),
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor([
                    srgb_to_linear(diffuse[0]),
                    srgb_to_linear(diffuse[1]),
                    srgb_to_linear(diffuse[2]),
                    diffuse[3],
                ]),
                base_color_texture: base.as_ref().map(|base| json::texture::Info {
                    index: base.texture,
                    tex_coord: 0,
                    extensions: None,
                    extras: Default::default(),
                }),
                metallic_factor: json::material::StrengthFactor(0.0),
                roughness_factor: json::material::StrengthFactor(1.0),
                metallic_roughness_texture: None,
                extensions: None,
                extras: Default::default(),
            },
            normal_texture: None,
            occlusion_texture: None,
            emissive_texture: None,
            emissive_factor: json::material::EmissiveFactor([0.0, 0.0, 0.0]),
            extensions: Some(extensions),
            extras: Default::default(),
        });
    }
    // MMD draws materials in order; transparentWithZWrite's queue offsets run 0..=9.
    let count = blended.len();
    for (rank, (index, _)) in blended.iter().enumerate() {
        let offset = if count > 1 { rank * 9 / (count - 1) } else { 0 };
        if let Some(mtoon) = materials[*index]
            .extensions
            .as_mut()
            .and_then(|e| e.others.get_mut("VRMC_materials_mtoon"))
            .and_then(Value::as_object_mut)
        {
            mtoon.insert("renderQueueOffsetNumber".into(), json!(offset));
        }
    }
    builder.root.materials = materials;
    if spheres_dropped > 0 {
        losses.push(VrmLoss::SphereDropped {
            materials: spheres_dropped,
        });
    }
    factors
}
