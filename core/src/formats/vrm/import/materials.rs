//! glTF materials → PMX materials, and images → textures embedded beside the PMX.

use super::mesh::Buckets;
use super::{ImportedTexture, Importer, VrmVersion, unique_name};
use crate::formats::ReadError;
use crate::model::{DrawFlags, Material, TextureIdx, Vec3, Vec4};
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

fn linear_to_srgb(value: f32) -> f32 {
    let value = value.clamp(0.0, 1.0);
    if value <= 0.003_130_8 {
        value * 12.92
    } else {
        1.055 * value.powf(1.0 / 2.4) - 0.055
    }
}

/// A colour factor (linear RGB(A) in glTF) as MMD's sRGB.
fn color(value: Option<&Value>, default: [f32; 4]) -> Vec4 {
    let mut rgba = default;
    if let Some(items) = value.and_then(Value::as_array) {
        for (slot, item) in rgba.iter_mut().zip(items) {
            if let Some(number) = item.as_f64().filter(|n| n.is_finite()) {
                *slot = number as f32;
            }
        }
    }
    Vec4::new(
        linear_to_srgb(rgba[0]),
        linear_to_srgb(rgba[1]),
        linear_to_srgb(rgba[2]),
        rgba[3].clamp(0.0, 1.0),
    )
}

/// One PMX material per glTF material, faces in the order the buckets were filled.
pub(super) fn build(import: &mut Importer<'_>, buckets: Buckets) -> Result<(), ReadError> {
    let mut names = HashSet::new();
    let mut image_textures: BTreeMap<usize, Option<TextureIdx>> = BTreeMap::new();
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
        let pbr = value.get("pbrMetallicRoughness");
        let diffuse = color(pbr.and_then(|p| p.get("baseColorFactor")), [1.0; 4]);
        let mut material = Material {
            name_ja: name.as_str().into(),
            name_en: name.as_str().into(),
            diffuse,
            ambient: Vec3::new(diffuse.x * 0.5, diffuse.y * 0.5, diffuse.z * 0.5),
            face_index_count: u32::try_from(faces.len() * 3).unwrap_or(u32::MAX),
            ..Material::default()
        };
        if value.get("doubleSided").and_then(Value::as_bool) == Some(true) {
            material.draw_flags |= DrawFlags::DOUBLE_SIDED;
        }
        let mtoon = value
            .get("extensions")
            .and_then(|e| e.get("VRMC_materials_mtoon"));
        if let Some(mtoon) = mtoon {
            let mode = mtoon
                .get("outlineWidthMode")
                .and_then(Value::as_str)
                .unwrap_or("none");
            let width = mtoon
                .get("outlineWidthFactor")
                .and_then(Value::as_f64)
                .unwrap_or(0.0);
            if mode != "none" && width > 0.0 {
                material.draw_flags |= DrawFlags::EDGE;
                material.edge_color = color(mtoon.get("outlineColorFactor"), [0.0, 0.0, 0.0, 1.0]);
            }
        }
        if import.version == VrmVersion::V0 {
            v0_outline(import, &name, &mut material);
        }
        if let Some(texture) = pbr
            .and_then(|p| p.get("baseColorTexture"))
            .and_then(|t| t.get("index"))
            .and_then(Value::as_u64)
            .and_then(|t| usize::try_from(t).ok())
        {
            let source = import
                .gltf
                .list("textures")?
                .get(texture)
                .and_then(|t| t.get("source"))
                .and_then(Value::as_u64)
                .and_then(|s| usize::try_from(s).ok());
            if let Some(image) = source {
                let index = match image_textures.get(&image) {
                    Some(&index) => index,
                    None => {
                        let index = image_texture(import, image)?;
                        image_textures.insert(image, index);
                        index
                    }
                };
                material.texture = index;
            }
        }
        import.model.faces.extend(faces);
        import.model.materials.push(material);
    }
    Ok(())
}

/// VRM 0.x keeps MToon's outline in `materialProperties` (matched by material name).
fn v0_outline(import: &Importer<'_>, name: &str, material: &mut Material) {
    let Some(properties) = import
        .vrm_extension()
        .and_then(|vrm| vrm.get("materialProperties"))
        .and_then(Value::as_array)
    else {
        return;
    };
    let Some(found) = properties
        .iter()
        .find(|p| p.get("name").and_then(Value::as_str) == Some(name))
    else {
        return;
    };
    let mode = found
        .get("floatProperties")
        .and_then(|f| f.get("_OutlineWidthMode"))
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    let width = found
        .get("floatProperties")
        .and_then(|f| f.get("_OutlineWidth"))
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    if mode > 0.0 && width > 0.0 {
        material.draw_flags |= DrawFlags::EDGE;
        // 0.x colours are stored in gamma space already.
        let mut rgba = [0.0, 0.0, 0.0, 1.0];
        if let Some(items) = found
            .get("vectorProperties")
            .and_then(|v| v.get("_OutlineColor"))
            .and_then(Value::as_array)
        {
            for (slot, item) in rgba.iter_mut().zip(items) {
                *slot = item
                    .as_f64()
                    .filter(|n| n.is_finite())
                    .unwrap_or(0.0)
                    .clamp(0.0, 1.0) as f32;
            }
        }
        material.edge_color = Vec4::from_array(rgba);
    }
}

/// Makes `images[image]` a texture of the model: embedded bytes under `tex/`, an external
/// file by its relative path. `None` when the image cannot be used (listed in the report).
fn image_texture(import: &mut Importer<'_>, image: usize) -> Result<Option<TextureIdx>, ReadError> {
    let Some(value) = import.gltf.list("images")?.get(image).cloned() else {
        let location = import.gltf.at("textures", None, "source");
        import.note(
            location,
            format!("images[{image}] does not exist; the material has no texture"),
            true,
        );
        return Ok(None);
    };
    let path = if let Some(view) =
        import
            .gltf
            .index_field(&value, "bufferView", ("images", Some(image), "bufferView"))?
    {
        let bytes = import
            .gltf
            .view_bytes(view, ("images", Some(image), "bufferView"))?
            .to_vec();
        let extension = match value.get("mimeType").and_then(Value::as_str) {
            Some("image/jpeg") => "jpg",
            Some("image/png") => "png",
            _ if bytes.starts_with(&[0xFF, 0xD8]) => "jpg",
            _ => "png",
        };
        let stem = value
            .get("name")
            .and_then(Value::as_str)
            .map(safe_file_stem)
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| format!("image{image}"));
        let mut taken: HashSet<String> = import.textures.iter().map(|t| t.path.clone()).collect();
        let path = unique_name(&mut taken, &format!("tex/{stem}.{extension}"));
        import.textures.push(ImportedTexture {
            path: path.clone(),
            bytes,
        });
        path
    } else if let Some(uri) = value.get("uri").and_then(Value::as_str) {
        if uri.starts_with("data:") {
            let location = import.gltf.at("images", Some(image), "uri");
            import.note(
                location,
                "images in data URIs are not imported yet; the material has no texture",
                true,
            );
            return Ok(None);
        }
        uri.to_owned()
    } else {
        return Ok(None);
    };
    let index = import.model.textures.len();
    import.model.textures.push(path.as_str().into());
    Ok(Some(TextureIdx::new(index)))
}

/// A file name stem without path separators or characters Windows refuses.
fn safe_file_stem(name: &str) -> String {
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
    }
}
