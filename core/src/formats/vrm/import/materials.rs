//! glTF materials → PMX materials, and images → textures embedded beside the PMX.
//!
//! One reading ([`Look`]) is made of each material from whichever description it has (VRM 1.0
//! `VRMC_materials_mtoon`, VRM 0.x `materialProperties`, `KHR_materials_unlit`, or the glTF
//! core values), then turned into MMD's terms:
//!
//! - **Colours**: MMD colours are sRGB-encoded. glTF and MToon 1.0 factors are linear and are
//!   encoded; VRM 0.x `vectorProperties` are Unity colours, already sRGB, and are kept.
//! - **Diffuse** is the base colour; its alpha counts only for `BLEND` and `MASK` (`OPAQUE`
//!   ignores alpha in glTF). **Ambient** is half the diffuse (the usual PMX convention: with
//!   MMD's default light it gives the base colour on lit faces), the whole diffuse for unlit
//!   materials. **Specular** is black (MToon has none).
//! - **Toon**: MToon shades by blending from the shade colour to the base colour across the
//!   light. A 32 × 32 ramp is generated (once per distinct ramp): top row lit, bottom row
//!   facing away, as MMD looks toons up by `0.5 − N·L / 2`, its rows following MToon's
//!   shading range (`shadingToonyFactor` / `shadingShiftFactor`, 0.x `_ShadeToony` /
//!   `_ShadeShift`). MMD multiplies the toon into the diffuse × texture colour, so the dark
//!   end is `shade / base` per channel (clamped to 0..1; the shade itself for a white base).
//!   This is the inverse of the export, which writes `shade = diffuse × toon's bottom row`
//!   and the toon's turn as toony and shift (`super::super::toon`): a shade equal to the base
//!   colour is no toon, and a shade with a shared toon's colour and range is that toon01–10.
//! - **Edge**: an outline becomes the edge flag, colour and size. World-coordinate widths:
//!   `edge size = width / 5 mm` ([`METRES_PER_EDGE_SIZE`], the export's factor). VRM 0.x
//!   widths are in centimetres (× 0.01). Screen-coordinate widths (a fraction of the screen
//!   height) are taken as world widths on a 2 m tall view ([`SCREEN_HEIGHT_METRES`]), a full
//!   body shot; MMD's edge has no screen mode.
//! - **Sphere**: the MToon matcap (0.x `_SphereAdd`) becomes an additive sphere map, MToon
//!   adding its matcap too; a `matcapFactor` other than white is multiplied into a copy of
//!   the image.
//! - **Culling**: `doubleSided` (0.x `_CullMode` 0) → the double-sided flag. **Unlit**
//!   (`KHR_materials_unlit` without MToon, 0.x `VRM/Unlit*` shaders): no self shadow on it,
//!   ambient = diffuse, and no toon.
//! - **Texture transform**: `KHR_texture_transform` of the base colour texture (0.x: the
//!   `_MainTex` scale and offset) is baked into the material's vertex UVs, which PMX has no
//!   other place for.
//!
//! Images come from a buffer view, a `data:` URI or a file beside a text `.gltf`, and are
//! embedded under `tex/` with a file name safe on every system.

use super::{ImportedTexture, Importer, VrmVersion, external, unique_name};
use crate::formats::ReadError;
use crate::formats::vrm::toon;
use crate::i18n::Message;
use crate::model::{DrawFlags, Face, Material, SphereMode, TextureIdx, Toon, Vec2, Vec3, Vec4};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The outline width, in metres, of MMD edge size 1 (the export writes
/// `outlineWidthFactor = edge size × 0.005`; 5 mm is VRM 0's MToon default width).
pub(super) const METRES_PER_EDGE_SIZE: f32 = 0.005;

/// The view height, in metres, a screen-relative outline width is measured against.
pub(super) const SCREEN_HEIGHT_METRES: f32 = 2.0;

/// VRM 0.x gives outline widths in centimetres (world) or percent of the screen height.
const V0_WIDTH_UNIT: f32 = 0.01;

/// The side of a generated toon ramp (MMD's own toon01–10.bmp are 32 × 32).
const TOON_SIZE: u32 = 32;

/// Encodes one linear channel as sRGB.
pub(super) fn linear_to_srgb(value: f32) -> f32 {
    let value = if value.is_finite() {
        value.clamp(0.0, 1.0)
    } else {
        0.0
    };
    if value <= 0.003_130_8 {
        value * 12.92
    } else {
        1.055 * value.powf(1.0 / 2.4) - 0.055
    }
}

/// Up to `N` finite numbers of a JSON array over `default`.
pub(super) fn floats<const N: usize>(value: Option<&Value>, default: [f32; N]) -> [f32; N] {
    let mut out = default;
    if let Some(items) = value.and_then(Value::as_array) {
        for (slot, item) in out.iter_mut().zip(items) {
            if let Some(number) = item.as_f64().filter(|n| n.is_finite()) {
                *slot = number as f32;
            }
        }
    }
    out
}

/// A linear colour factor as MMD's sRGB (the 4th value, alpha, is not encoded).
pub(super) fn srgb<const N: usize>(linear: [f32; N]) -> [f32; N] {
    let mut out = linear;
    for (index, channel) in out.iter_mut().enumerate() {
        *channel = if index < 3 {
            linear_to_srgb(*channel)
        } else {
            channel.clamp(0.0, 1.0)
        };
    }
    out
}

fn clamp01<const N: usize>(values: [f32; N]) -> [f32; N] {
    values.map(|v| {
        if v.is_finite() {
            v.clamp(0.0, 1.0)
        } else {
            0.0
        }
    })
}

fn number(value: Option<&Value>) -> Option<f32> {
    value
        .and_then(Value::as_f64)
        .filter(|n| n.is_finite())
        .map(|n| n as f32)
}

fn index(value: Option<&Value>) -> Option<usize> {
    value?.as_u64().and_then(|v| usize::try_from(v).ok())
}

/// A texture's scale and offset (and rotation, from `KHR_texture_transform`), in glTF UV
/// space: `uv' = offset + R(rotation) · (scale ⊙ uv)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct UvTransform {
    pub offset: [f32; 2],
    pub scale: [f32; 2],
    pub rotation: f32,
}

impl Default for UvTransform {
    fn default() -> Self {
        Self {
            offset: [0.0, 0.0],
            scale: [1.0, 1.0],
            rotation: 0.0,
        }
    }
}

impl UvTransform {
    fn from_khr(texture_info: Option<&Value>) -> Self {
        let Some(khr) = texture_info
            .and_then(|t| t.get("extensions"))
            .and_then(|e| e.get("KHR_texture_transform"))
        else {
            return Self::default();
        };
        Self {
            offset: floats(khr.get("offset"), [0.0, 0.0]),
            scale: floats(khr.get("scale"), [1.0, 1.0]),
            rotation: number(khr.get("rotation")).unwrap_or(0.0),
        }
    }

    /// A Unity scale-and-offset (`_MainTex_ST`: scale x, y, offset x, y) in glTF UV space:
    /// UniVRM flips V on export (`v = 1 − v_unity`), so `offset.y = 1 − offset_y − scale_y`.
    pub(super) fn from_unity_st(st: [f32; 4]) -> Self {
        Self {
            offset: [st[2], 1.0 - st[3] - st[1]],
            scale: [st[0], st[1]],
            rotation: 0.0,
        }
    }

    fn is_identity(&self) -> bool {
        *self == Self::default()
    }

    /// `R(rotation) · v`, the rotation as `KHR_texture_transform` defines it.
    pub(super) fn rotate(&self, v: [f32; 2]) -> [f32; 2] {
        let (sin, cos) = self.rotation.sin_cos();
        [cos * v[0] + sin * v[1], -sin * v[0] + cos * v[1]]
    }

    pub(super) fn apply(&self, uv: [f32; 2]) -> [f32; 2] {
        let scaled = self.rotate([uv[0] * self.scale[0], uv[1] * self.scale[1]]);
        [scaled[0] + self.offset[0], scaled[1] + self.offset[1]]
    }
}

/// How a material's alpha is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AlphaMode {
    Opaque,
    Mask,
    Blend,
}

/// Where MToon's blend from shade to base colour starts and ends, in N·L (−1..1).
#[derive(Debug, Clone, Copy, PartialEq)]
struct ShadingRange {
    min: f32,
    max: f32,
}

impl ShadingRange {
    /// MToon 1.0: `linearstep(−1 + toony, 1 − toony, N·L + shift)`.
    fn v1(toony: f32, shift: f32) -> Self {
        Self {
            min: -1.0 + toony - shift,
            max: 1.0 - toony - shift,
        }
    }

    /// MToon 0.x: from `_ShadeShift` to `lerp(1, _ShadeShift, _ShadeToony)`.
    fn v0(toony: f32, shift: f32) -> Self {
        Self {
            min: shift,
            max: 1.0 + (shift - 1.0) * toony,
        }
    }

    /// How lit (0 shade … 1 base) a surface with this N·L is.
    fn lit(&self, n_dot_l: f32) -> f32 {
        let width = self.max - self.min;
        if width.abs() < 1e-4 {
            // A hard boundary (toony 1).
            if n_dot_l >= self.min { 1.0 } else { 0.0 }
        } else {
            ((n_dot_l - self.min) / width).clamp(0.0, 1.0)
        }
    }
}

/// A material as read, in MMD's (sRGB) colours.
struct Look {
    base: [f32; 4],
    alpha: AlphaMode,
    double_sided: bool,
    unlit: bool,
    /// MToon's shade colour and shading range (none for PBR and unlit materials).
    shade: Option<([f32; 3], ShadingRange)>,
    /// Edge size and colour.
    outline: Option<(f32, [f32; 3])>,
    /// The glTF texture of the matcap and its factor.
    matcap: Option<(usize, [f32; 3])>,
    emission: [f32; 3],
    main_texture: Option<usize>,
    transform: UvTransform,
}

/// What expressions' material binds need of a PMX material: its values at rest (sRGB) and
/// its vertices with their glTF UVs (before the base transform was baked in).
#[derive(Debug, Clone)]
pub(super) struct BindBase {
    /// The glTF material (`None`: the default material of primitives without one).
    pub gltf_material: Option<usize>,
    pub diffuse: [f32; 4],
    pub edge: [f32; 3],
    /// The toon ramp's dark end (the shade over the base colour).
    pub toon_dark: [f32; 3],
    pub matcap: [f32; 3],
    pub emission: [f32; 3],
    pub transform: UvTransform,
    pub vertices: Vec<(usize, [f32; 2])>,
}

/// The shade colour over the base colour, per channel: what the toon multiplies in.
pub(super) fn toon_dark(shade: [f32; 3], base: [f32; 3]) -> [f32; 3] {
    [0, 1, 2].map(|c| {
        if base[c] > 1e-4 {
            (shade[c] / base[c]).clamp(0.0, 1.0)
        } else {
            // A black channel stays black whatever the toon.
            shade[c].clamp(0.0, 1.0)
        }
    })
}

/// Edge size of an outline `width` in metres, or a fraction of the screen height.
fn edge_size(width: f32, screen: bool) -> f32 {
    let metres = if screen {
        width * SCREEN_HEIGHT_METRES
    } else {
        width
    };
    metres / METRES_PER_EDGE_SIZE
}

fn read_v1_or_gltf(value: &Value) -> Look {
    let pbr = value.get("pbrMetallicRoughness");
    let base_texture = pbr.and_then(|p| p.get("baseColorTexture"));
    let extensions = value.get("extensions");
    let mtoon = extensions.and_then(|e| e.get("VRMC_materials_mtoon"));
    let alpha = match value.get("alphaMode").and_then(Value::as_str) {
        Some("BLEND") => AlphaMode::Blend,
        Some("MASK") => AlphaMode::Mask,
        _ => AlphaMode::Opaque,
    };
    let mut look = Look {
        base: srgb(floats(pbr.and_then(|p| p.get("baseColorFactor")), [1.0; 4])),
        alpha,
        double_sided: value.get("doubleSided").and_then(Value::as_bool) == Some(true),
        // MToon takes precedence over KHR_materials_unlit (its spec says so).
        unlit: mtoon.is_none()
            && extensions
                .and_then(|e| e.get("KHR_materials_unlit"))
                .is_some(),
        shade: None,
        outline: None,
        matcap: None,
        emission: srgb(floats(value.get("emissiveFactor"), [0.0; 3])),
        main_texture: index(base_texture.and_then(|t| t.get("index"))),
        transform: UvTransform::from_khr(base_texture),
    };
    if let Some(mtoon) = mtoon {
        let toony = number(mtoon.get("shadingToonyFactor")).unwrap_or(0.9);
        let shift = number(mtoon.get("shadingShiftFactor")).unwrap_or(0.0);
        look.shade = Some((
            srgb(floats(mtoon.get("shadeColorFactor"), [1.0; 3])),
            ShadingRange::v1(toony, shift),
        ));
        let width = number(mtoon.get("outlineWidthFactor")).unwrap_or(0.0);
        let mode = mtoon.get("outlineWidthMode").and_then(Value::as_str);
        if width > 0.0 && matches!(mode, Some("worldCoordinates" | "screenCoordinates")) {
            look.outline = Some((
                edge_size(width, mode == Some("screenCoordinates")),
                srgb(floats(mtoon.get("outlineColorFactor"), [0.0; 3])),
            ));
        }
        if let Some(texture) = index(mtoon.get("matcapTexture").and_then(|t| t.get("index"))) {
            look.matcap = Some((texture, srgb(floats(mtoon.get("matcapFactor"), [1.0; 3]))));
        }
    }
    look
}

/// VRM 0.x: the `materialProperties` entry (matched by name) over the glTF core values.
fn read_v0(value: &Value, properties: &Value) -> Look {
    let mut look = read_v1_or_gltf(value);
    let floats_of = properties.get("floatProperties");
    let vectors = properties.get("vectorProperties");
    let textures = properties.get("textureProperties");
    let float = |key: &str| number(floats_of.and_then(|f| f.get(key)));
    let vector = |key: &str| vectors.and_then(|v| v.get(key));
    let shader = properties
        .get("shader")
        .and_then(Value::as_str)
        .unwrap_or("");
    if shader == "VRM_USE_GLTFSHADER" {
        return look;
    }
    // Unity colours are sRGB already.
    if let Some(color) = vector("_Color") {
        look.base = clamp01(floats(Some(color), [1.0; 4]));
    }
    if let Some(texture) = index(textures.and_then(|t| t.get("_MainTex"))) {
        look.main_texture = Some(texture);
    }
    if let Some(st) = vector("_MainTex") {
        // UniVRM writes a texture's scale and offset as [offset x, y, scale x, y].
        let [ox, oy, sx, sy] = floats(Some(st), [0.0, 0.0, 1.0, 1.0]);
        look.transform = UvTransform::from_unity_st([sx, sy, ox, oy]);
    }
    look.alpha = match float("_BlendMode").map(|m| m.round() as i32) {
        Some(1) => AlphaMode::Mask,
        Some(2 | 3) => AlphaMode::Blend,
        Some(_) => AlphaMode::Opaque,
        None => look.alpha,
    };
    if let Some(cull) = float("_CullMode") {
        // Unity's CullMode: 0 off, 1 front, 2 back.
        look.double_sided = cull.round() as i32 == 0;
    }
    if shader.starts_with("VRM/Unlit") {
        look.unlit = true;
        look.alpha = match shader {
            "VRM/UnlitCutout" => AlphaMode::Mask,
            "VRM/UnlitTransparent" | "VRM/UnlitTransparentZWrite" => AlphaMode::Blend,
            _ => AlphaMode::Opaque,
        };
        return look;
    }
    if shader != "VRM/MToon" {
        return look;
    }
    look.unlit = false;
    look.shade = Some((
        clamp01(floats(vector("_ShadeColor"), [0.97, 0.81, 0.86])),
        ShadingRange::v0(
            float("_ShadeToony").unwrap_or(0.9),
            float("_ShadeShift").unwrap_or(0.0),
        ),
    ));
    if let Some(emission) = vector("_EmissionColor") {
        look.emission = clamp01(floats(Some(emission), [0.0; 3]));
    }
    let mode = float("_OutlineWidthMode").map_or(0, |m| m.round() as i32);
    let width = float("_OutlineWidth").unwrap_or(0.0) * V0_WIDTH_UNIT;
    look.outline = (matches!(mode, 1 | 2) && width > 0.0).then(|| {
        (
            edge_size(width, mode == 2),
            clamp01(floats(vector("_OutlineColor"), [0.0; 3])),
        )
    });
    look.matcap = index(textures.and_then(|t| t.get("_SphereAdd"))).map(|t| (t, [1.0; 3]));
    look
}

/// The textures made so far, so each is embedded once.
#[derive(Default)]
struct Made {
    /// glTF image → texture (`None`: the image could not be used, already listed).
    images: BTreeMap<usize, Option<TextureIdx>>,
    /// (glTF image, sphere factor in 1/255) → a tinted copy.
    tinted: BTreeMap<(usize, [u8; 3]), Option<TextureIdx>>,
    /// Ramp parameters → toon texture.
    toons: HashMap<[i32; 5], TextureIdx>,
}

/// The faces of each glTF material (`None`: the default material), in order of first use.
#[derive(Default)]
pub(super) struct Buckets {
    pub(super) order: Vec<Option<usize>>,
    pub(super) faces: HashMap<Option<usize>, Vec<Face>>,
}

impl Buckets {
    pub(super) fn add(&mut self, material: Option<usize>, faces: Vec<Face>) {
        if !self.faces.contains_key(&material) {
            self.order.push(material);
        }
        self.faces.entry(material).or_default().extend(faces);
    }
}

/// One PMX material per glTF material, faces in the order the buckets were filled.
pub(super) fn build(import: &mut Importer<'_>, buckets: Buckets) -> Result<(), ReadError> {
    let mut names = HashSet::new();
    let mut made = Made::default();
    let mut masked = 0usize;
    let Buckets { order, mut faces } = buckets;
    for key in order {
        let faces = faces.remove(&key).unwrap_or_default();
        let value = match key {
            Some(material) => import
                .gltf
                .item("materials", material, ("materials", Some(material), ""))?
                .clone(),
            None => Value::Null,
        };
        let wanted = value
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.trim().is_empty())
            .map_or_else(
                || key.map_or("default".to_owned(), |k| format!("material{k}")),
                str::to_owned,
            );
        let name = unique_name(&mut names, &wanted);
        let look = match v0_properties(import, &wanted) {
            Some(properties) => read_v0(&value, &properties),
            None => read_v1_or_gltf(&value),
        };
        let diffuse = match look.alpha {
            // OPAQUE ignores the alpha (glTF 2.0 § 3.9.4).
            AlphaMode::Opaque => [look.base[0], look.base[1], look.base[2], 1.0],
            AlphaMode::Mask | AlphaMode::Blend => look.base,
        };
        masked += usize::from(look.alpha == AlphaMode::Mask);
        let rgb = [diffuse[0], diffuse[1], diffuse[2]];
        let ambient = if look.unlit {
            rgb
        } else {
            rgb.map(|c| c * 0.5)
        };
        let mut material = Material {
            name_ja: name.as_str().into(),
            name_en: name.as_str().into(),
            diffuse: Vec4::from_array(diffuse),
            specular: Vec3::ZERO,
            ambient: Vec3::from_array(ambient),
            face_index_count: u32::try_from(faces.len() * 3).unwrap_or(u32::MAX),
            ..Material::default()
        };
        if look.double_sided {
            material.draw_flags |= DrawFlags::DOUBLE_SIDED;
        }
        if look.unlit {
            material.draw_flags.remove(DrawFlags::DRAW_SELF_SHADOW);
        }
        if let Some((size, color)) = look.outline {
            material.draw_flags |= DrawFlags::EDGE;
            material.edge_size = size;
            material.edge_color = Vec4::new(color[0], color[1], color[2], 1.0);
        }
        if let Some(texture) = look.main_texture {
            material.texture = texture_of(import, &mut made, texture, None)?;
        }
        if let Some((texture, factor)) = look.matcap
            && factor.iter().any(|&c| c > 0.0)
        {
            material.sphere_texture = texture_of(import, &mut made, texture, Some(factor))?;
            if material.sphere_texture.is_some() {
                material.sphere_mode = SphereMode::Add;
            }
        }
        let dark = look
            .shade
            .map_or([1.0; 3], |(shade, _)| toon_dark(shade, rgb));
        if let Some((_, range)) = look.shade {
            material.toon = toon_of(import, &mut made, dark, rgb, range);
        }

        // The base texture's transform goes into the UVs (PMX has no texture transform).
        let vertices: BTreeSet<usize> = faces
            .iter()
            .flat_map(|face| face.iter().map(|v| v.get()))
            .collect();
        let mut originals = Vec::with_capacity(vertices.len());
        for vertex in vertices {
            let Some(data) = import.model.vertices.get_mut(vertex) else {
                continue;
            };
            let uv = [data.uv.x, data.uv.y];
            originals.push((vertex, uv));
            if !look.transform.is_identity() {
                let moved = look.transform.apply(uv);
                data.uv = Vec2::new(moved[0], moved[1]);
            }
        }
        import.material_binds.push(BindBase {
            gltf_material: key,
            diffuse,
            edge: look.outline.map_or([0.0; 3], |(_, color)| color),
            toon_dark: dark,
            matcap: look.matcap.map_or([1.0; 3], |(_, factor)| factor),
            emission: look.emission,
            transform: look.transform,
            vertices: originals,
        });
        import.model.faces.extend(faces);
        import.model.materials.push(material);
    }
    if masked > 0 {
        let location = import.gltf.at("materials", None, "alphaMode");
        import.note(
            location,
            Message::new("load.vrm.materials_masked").arg("count", masked),
            false,
        );
    }
    Ok(())
}

/// VRM 0.x keeps MToon's values in `materialProperties`, matched by material name.
fn v0_properties(import: &Importer<'_>, name: &str) -> Option<Value> {
    if import.version != VrmVersion::V0 {
        return None;
    }
    import
        .vrm_extension()?
        .get("materialProperties")?
        .as_array()?
        .iter()
        .find(|p| p.get("name").and_then(Value::as_str) == Some(name))
        .cloned()
}

/// The texture of glTF `textures[texture]` (its image), tinted by `sphere_factor` when that
/// is not white. `None` when it cannot be had (listed in the report).
fn texture_of(
    import: &mut Importer<'_>,
    made: &mut Made,
    texture: usize,
    sphere_factor: Option<[f32; 3]>,
) -> Result<Option<TextureIdx>, ReadError> {
    let source = import
        .gltf
        .list("textures")?
        .get(texture)
        .and_then(|t| t.get("source"))
        .and_then(Value::as_u64)
        .and_then(|s| usize::try_from(s).ok());
    let Some(image) = source else {
        let location = import.gltf.at("textures", Some(texture), "source");
        import.note(
            location,
            Message::new("load.vrm.texture_without_image").arg("texture", texture),
            true,
        );
        return Ok(None);
    };
    let plain = match made.images.get(&image) {
        Some(&known) => known,
        None => {
            let index = image_texture(import, image)?;
            made.images.insert(image, index);
            index
        }
    };
    let Some(factor) = sphere_factor.filter(|f| f.iter().any(|&c| c < 0.999)) else {
        return Ok(plain);
    };
    let Some(plain) = plain else {
        return Ok(None);
    };
    let key = (image, factor.map(|c| (c * 255.0).round() as u8));
    if let Some(&known) = made.tinted.get(&key) {
        return Ok(known);
    }
    let tinted = tinted_copy(import, plain, factor);
    made.tinted.insert(key, tinted);
    Ok(tinted)
}

/// A PNG copy of texture `plain` with its colours multiplied by `factor` (a matcap factor MMD
/// has no place for). The untinted texture when the image does not decode.
fn tinted_copy(
    import: &mut Importer<'_>,
    plain: TextureIdx,
    factor: [f32; 3],
) -> Option<TextureIdx> {
    let path = import
        .model
        .textures
        .get(plain.get())?
        .as_str()
        .into_owned();
    let bytes = &import.textures.iter().find(|t| t.path == path)?.bytes;
    let Ok(decoded) = image::load_from_memory(bytes) else {
        return Some(plain);
    };
    let mut pixels = decoded.to_rgba8();
    for pixel in pixels.pixels_mut() {
        for (channel, &scale) in pixel.0.iter_mut().zip(&factor) {
            *channel = (f32::from(*channel) * scale).round().clamp(0.0, 255.0) as u8;
        }
    }
    let mut png = Vec::new();
    if pixels
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .is_err()
    {
        return Some(plain);
    }
    let stem = path
        .rsplit_once('/')
        .map_or(path.as_str(), |(_, file)| file)
        .to_owned();
    Some(add_texture(
        import,
        &format!("tex/{}_matcap.png", safe_file_stem(&stem)),
        png,
    ))
}

/// Embeds `bytes` at a relative path unique among the embedded files (compared ignoring case,
/// as Windows and macOS file systems do) and names it as a texture of the model.
fn add_texture(import: &mut Importer<'_>, wanted: &str, bytes: Vec<u8>) -> TextureIdx {
    let taken: HashSet<String> = import
        .textures
        .iter()
        .map(|t| t.path.to_lowercase())
        .collect();
    let (stem, extension) = wanted.rsplit_once('.').unwrap_or((wanted, ""));
    let mut path = wanted.to_owned();
    let mut n = 2;
    while taken.contains(&path.to_lowercase()) {
        path = format!("{stem}_{n}.{extension}");
        n += 1;
    }
    import.textures.push(ImportedTexture {
        path: path.clone(),
        bytes,
    });
    let index = import.model.textures.len();
    import.model.textures.push(path.as_str().into());
    TextureIdx::new(index)
}

/// The toon that draws like an MToon shade (`dark`, the shade over the base colour `base`):
/// none when the shade is the base colour, the shared toon the export wrote it from when the
/// colour and range are one's, else a generated ramp.
fn toon_of(
    import: &mut Importer<'_>,
    made: &mut Made,
    dark: [f32; 3],
    base: [f32; 3],
    range: ShadingRange,
) -> Toon {
    // A black base channel is black whatever the toon: it tells nothing.
    let compared = base.map(|c| c > 1e-3);
    if toon::is_untoned(dark, compared) {
        return Toon::Texture(None);
    }
    if let Some(number) = toon::shared_toon_of(dark, compared, (range.min, range.max)) {
        return Toon::Shared(number);
    }
    Toon::Texture(Some(toon_texture(import, made, dark, range)))
}

/// The toon ramp of a shade (the dark end, over the base colour) and shading range, made once
/// per distinct ramp.
fn toon_texture(
    import: &mut Importer<'_>,
    made: &mut Made,
    dark: [f32; 3],
    range: ShadingRange,
) -> TextureIdx {
    let dark_bytes = dark.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8);
    let key = [
        i32::from(dark_bytes[0]),
        i32::from(dark_bytes[1]),
        i32::from(dark_bytes[2]),
        (range.min * 1000.0).round() as i32,
        (range.max * 1000.0).round() as i32,
    ];
    if let Some(&known) = made.toons.get(&key) {
        return known;
    }
    let png = toon_ramp_png(dark_bytes, range);
    let name = format!(
        "tex/toon_{:02x}{:02x}{:02x}.png",
        dark_bytes[0], dark_bytes[1], dark_bytes[2]
    );
    let index = add_texture(import, &name, png);
    made.toons.insert(key, index);
    index
}

/// A `TOON_SIZE`² PNG: row `y` is what MMD multiplies in where `0.5 − N·L / 2` lands on it,
/// from white (lit, top) to `dark` (facing away, bottom).
fn toon_ramp_png(dark: [u8; 3], range: ShadingRange) -> Vec<u8> {
    let mut ramp = image::RgbImage::new(TOON_SIZE, TOON_SIZE);
    for y in 0..TOON_SIZE {
        let v = (y as f32 + 0.5) / TOON_SIZE as f32;
        let lit = range.lit(1.0 - 2.0 * v);
        let texel =
            image::Rgb(dark.map(|c| (f32::from(c) + (255.0 - f32::from(c)) * lit).round() as u8));
        for x in 0..TOON_SIZE {
            ramp.put_pixel(x, y, texel);
        }
    }
    let mut png = Vec::new();
    // Encoding a small in-memory RGB image cannot fail short of running out of memory.
    let _ = ramp.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png);
    png
}

/// Makes `images[image]` a texture of the model, embedded under `tex/` whether its bytes are in
/// a buffer view, a `data:` URI or a file beside the glTF. `None` when the image cannot be
/// used (listed in the report: the file is damaged or an image file is missing).
fn image_texture(import: &mut Importer<'_>, image: usize) -> Result<Option<TextureIdx>, ReadError> {
    let Some(value) = import.gltf.list("images")?.get(image).cloned() else {
        let location = import.gltf.at("textures", None, "source");
        import.note(
            location,
            Message::new("load.vrm.image_missing").arg("image", image),
            true,
        );
        return Ok(None);
    };
    let named = value
        .get("name")
        .and_then(Value::as_str)
        .map(safe_file_stem)
        .filter(|s| !s.is_empty());
    let mut media_type = value
        .get("mimeType")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let (bytes, stem) = if let Some(view) =
        import
            .gltf
            .index_field(&value, "bufferView", ("images", Some(image), "bufferView"))?
    {
        match import
            .gltf
            .view_bytes(view, ("images", Some(image), "bufferView"))
        {
            Ok(bytes) => (bytes.to_vec(), named),
            // As glTF viewers do, an image whose bytes are not all there is left out and
            // the model is read without it.
            Err(error) if import.recover => {
                let location = import.gltf.at("images", Some(image), "bufferView");
                import.note(
                    location,
                    Message::new("load.vrm.image_left_out")
                        .arg("image", image)
                        .arg("error", error.to_message()),
                    true,
                );
                return Ok(None);
            }
            Err(error) => return Err(error),
        }
    } else if let Some(uri) = value.get("uri").and_then(Value::as_str) {
        match external::resolve(uri, import.gltf.base_dir) {
            Ok(bytes) => {
                if let Some(kind) = external::data_uri_media_type(uri).filter(|t| !t.is_empty()) {
                    media_type = Some(kind.to_owned());
                }
                let file_stem = external::relative_path(uri)
                    .ok()
                    .and_then(|path| {
                        path.file_name()
                            .map(|name| safe_file_stem(&name.to_string_lossy()))
                    })
                    .filter(|s| !s.is_empty());
                (bytes, named.or(file_stem))
            }
            Err(why) => {
                let location = import.gltf.at("images", Some(image), "uri");
                import.note(
                    location,
                    Message::new("load.vrm.image_unreadable")
                        .arg("uri", external::shown(uri))
                        .arg("reason", why),
                    true,
                );
                return Ok(None);
            }
        }
    } else {
        let location = import.gltf.at("images", Some(image), "");
        import.note(location, Message::new("load.vrm.image_without_data"), true);
        return Ok(None);
    };
    let extension = match image::guess_format(&bytes) {
        Ok(image::ImageFormat::Png) => "png",
        Ok(image::ImageFormat::Jpeg) => "jpg",
        Ok(image::ImageFormat::Bmp) => "bmp",
        Ok(image::ImageFormat::Gif) => "gif",
        Ok(image::ImageFormat::WebP) => "webp",
        _ => match media_type.as_deref() {
            Some("image/png") => "png",
            Some("image/jpeg") => "jpg",
            _ => {
                let location = import.gltf.at("images", Some(image), "");
                import.note(
                    location,
                    Message::new("load.vrm.image_not_png_or_jpeg")
                        .arg("image", image)
                        .arg("bytes", bytes.len()),
                    true,
                );
                return Ok(None);
            }
        },
    };
    let stem = stem.unwrap_or_else(|| format!("image{image}"));
    Ok(Some(add_texture(
        import,
        &format!("tex/{stem}.{extension}"),
        bytes,
    )))
}

/// A file name stem without path separators or characters Windows refuses.
pub(super) fn safe_file_stem(name: &str) -> String {
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    stem.chars()
        .map(|c| {
            if c.is_control() || "\\/:*?\"<>|".contains(c) {
                '_'
            } else {
                c
            }
        })
        .collect::<String>()
        .trim_matches(|c: char| c == '.' || c.is_whitespace())
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_stems_lose_separators() {
        assert_eq!(safe_file_stem("a/b:c.png"), "a_b_c");
        assert_eq!(safe_file_stem("..\\..\\evil.png"), "_.._evil");
    }

    #[test]
    fn colours_encode_to_srgb_and_keep_alpha() {
        assert_eq!(srgb([0.0, 1.0, 0.5, 0.5])[3], 0.5);
        assert!((linear_to_srgb(0.5) - 0.735_356_7).abs() < 1e-5);
        assert_eq!(linear_to_srgb(f32::NAN), 0.0);
    }

    #[test]
    fn toon_dark_end_is_the_shade_over_the_base() {
        assert_eq!(
            toon_dark([0.5, 0.25, 1.0], [1.0, 0.5, 0.5]),
            [0.5, 0.5, 1.0]
        );
        // A black base channel keeps the shade's value (it multiplies black anyway).
        assert_eq!(toon_dark([0.3, 0.0, 0.0], [0.0, 1.0, 1.0])[0], 0.3);
    }

    #[test]
    fn toon_ramp_runs_from_white_to_the_dark_end() {
        let png = toon_ramp_png([10, 20, 30], ShadingRange::v1(0.9, 0.0));
        let ramp = image::load_from_memory(&png)
            .map(|i| i.to_rgb8())
            .unwrap_or_default();
        assert_eq!(ramp.dimensions(), (TOON_SIZE, TOON_SIZE));
        assert_eq!(ramp.get_pixel(0, 0).0, [255, 255, 255]);
        assert_eq!(ramp.get_pixel(0, TOON_SIZE - 1).0, [10, 20, 30]);
        // toony 0.9: the blend happens within ±0.1 of N·L = 0, the middle rows.
        assert_eq!(ramp.get_pixel(5, 12).0, [255, 255, 255]);
        assert_eq!(ramp.get_pixel(5, 19).0, [10, 20, 30]);
    }

    #[test]
    fn shading_ranges_match_mtoon() {
        let hard = ShadingRange::v1(1.0, 0.0);
        assert_eq!(hard.lit(0.01), 1.0);
        assert_eq!(hard.lit(-0.01), 0.0);
        // MToon 0.x: from _ShadeShift to lerp(1, shift, toony).
        let v0 = ShadingRange::v0(0.5, -0.5);
        assert_eq!((v0.min, v0.max), (-0.5, 0.25));
    }

    #[test]
    fn edge_sizes_invert_the_export() {
        // The export writes edge size × 5 mm.
        assert!((edge_size(0.005, false) - 1.0).abs() < 1e-6);
        assert!((edge_size(0.0025, true) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn unity_scale_offset_flips_v() {
        let t = UvTransform::from_unity_st([1.0, 0.5, 0.25, 0.0]);
        assert_eq!(t.scale, [1.0, 0.5]);
        assert_eq!(t.offset, [0.25, 0.5]);
        // The top of the Unity texture (v_unity 1 → glTF 0) maps to its top.
        assert_eq!(t.apply([0.0, 0.0]), [0.25, 0.5]);
        let rotated = UvTransform {
            rotation: std::f32::consts::FRAC_PI_2,
            ..UvTransform::default()
        };
        let moved = rotated.apply([1.0, 0.0]);
        assert!(moved[0].abs() < 1e-6 && (moved[1] + 1.0).abs() < 1e-6);
    }
}
