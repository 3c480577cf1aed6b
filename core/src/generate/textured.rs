//! A small textured model for render comparisons: the sample figure cut into six materials,
//! each with a texture of its own (a PNG of two clearly different tones in quadrants, so a
//! texture drawn on the wrong material, or turned, shows), some with a sphere map (add and
//! multiply) or a toon texture, and the textures listed in another order than the materials
//! use them, with one texture no material uses. Every material has the same colours, so what
//! tells them apart in a picture is their textures.
//!
//! The images are kept as files beside the model ([`TexturedModel::write`]): the 3D view finds
//! them as it finds a real model's.

use super::sample_model;
use crate::formats::{self, EmbeddedFile, FileError, SaveOptions};
use crate::model::*;
use std::path::{Path, PathBuf};

/// The model and the image files its texture paths name.
#[derive(Debug, Clone)]
pub struct TexturedModel {
    pub model: Model,
    /// Relative to the model's folder: every texture of the model.
    pub files: Vec<EmbeddedFile>,
}

impl TexturedModel {
    /// Writes the images under `dir` and the model as `dir/file_name` (PMX, or the format the
    /// extension names); returns the model's path.
    pub fn write(&self, dir: &Path, file_name: &str) -> Result<PathBuf, FileError> {
        let path = dir.join(file_name);
        formats::write_embedded_files(&self.files, dir, true).map_err(|source| FileError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        formats::save_path(&self.model, &path, &SaveOptions::default())?;
        Ok(path)
    }
}

/// An 8×8 RGBA PNG: `main` with its top-right and bottom-left quadrants in `second`.
fn quadrant_png(main: [u8; 3], second: [u8; 3]) -> Vec<u8> {
    let image = image::RgbaImage::from_fn(8, 8, |x, y| {
        let [r, g, b] = if (x < 4) == (y < 4) { main } else { second };
        image::Rgba([r, g, b, 255])
    });
    let mut bytes = Vec::new();
    // Encoding a small in-memory image into a Vec cannot fail.
    if image
        .write_to(
            &mut std::io::Cursor::new(&mut bytes),
            image::ImageFormat::Png,
        )
        .is_err()
    {
        bytes.clear();
    }
    bytes
}

/// (name, main tone, second tone): the textures in the order the model lists them.
const IMAGES: [(&str, [u8; 3], [u8; 3]); 10] = [
    ("tex/hair.png", [130, 50, 180], [60, 20, 90]),
    ("tex/right.png", [40, 210, 220], [10, 90, 100]),
    ("toon/toon_warm.png", [255, 190, 120], [200, 80, 40]),
    ("tex/left.png", [230, 220, 40], [120, 110, 10]),
    ("sphere/add.png", [90, 30, 0], [0, 60, 90]),
    ("tex/unused.png", [255, 255, 255], [0, 0, 0]),
    ("tex/torso.png", [40, 80, 230], [200, 210, 255]),
    ("sphere/multiply.png", [255, 160, 160], [160, 255, 160]),
    ("tex/hands.png", [40, 200, 60], [10, 80, 20]),
    ("tex/face.png", [240, 140, 40], [120, 50, 0]),
];

fn texture(name: &str) -> Option<TextureIdx> {
    IMAGES
        .iter()
        .position(|(image, _, _)| *image == name)
        .map(TextureIdx::new)
}

/// The sample figure with six materials, each textured differently (see the module
/// documentation), PMX 2.0 UTF-16.
#[must_use]
pub fn textured_model() -> TexturedModel {
    let mut model = sample_model();
    model.info.name_ja = "テクスチャ人形".into();
    model.info.name_en = "Textured figure".into();
    model.textures = IMAGES.iter().map(|(name, _, _)| (*name).into()).collect();
    // The sample's boxes, 12 triangles each, in its material order: head and two hands (skin),
    // torso and hips, five boxes of the left limbs, five of the right (clothes), two of hair.
    let template = model.materials[0].clone();
    let part = |(name_ja, name_en): (&str, &str), boxes: u32, image: &str| Material {
        name_ja: name_ja.into(),
        name_en: name_en.into(),
        diffuse: Vec4::new(0.8, 0.8, 0.8, 1.0),
        ambient: Vec3::new(0.5, 0.5, 0.5),
        texture: texture(image),
        sphere_texture: None,
        sphere_mode: SphereMode::Disabled,
        toon: Toon::Shared(0),
        face_index_count: boxes * 12 * 3,
        ..template.clone()
    };
    let with_sphere = |material: Material, image: &str, mode: SphereMode| Material {
        sphere_texture: texture(image),
        sphere_mode: mode,
        ..material
    };
    let with_toon = |material: Material, toon: Toon| Material { toon, ..material };
    let warm = Toon::Texture(texture("toon/toon_warm.png"));
    model.materials = vec![
        with_toon(part(("顔", "face"), 1, "tex/face.png"), Toon::Shared(1)),
        with_toon(
            with_sphere(
                part(("手", "hands"), 2, "tex/hands.png"),
                "sphere/add.png",
                SphereMode::Add,
            ),
            warm,
        ),
        with_toon(
            with_sphere(
                part(("胴", "torso"), 2, "tex/torso.png"),
                "sphere/multiply.png",
                SphereMode::Multiply,
            ),
            Toon::Shared(3),
        ),
        with_toon(part(("左手足", "left limbs"), 5, "tex/left.png"), warm),
        with_sphere(
            part(("右手足", "right limbs"), 5, "tex/right.png"),
            "sphere/add.png",
            SphereMode::Add,
        ),
        with_toon(part(("髪", "hair"), 2, "tex/hair.png"), Toon::Shared(5)),
    ];
    // The sample's material morph fades the clothes: here the torso.
    for morph in &mut model.morphs {
        if let MorphOffsets::Material(offsets) = &mut morph.offsets {
            for offset in offsets {
                offset.material = Some(MaterialIdx::new(2));
            }
        }
    }
    let files = IMAGES
        .iter()
        .map(|(name, main, second)| EmbeddedFile {
            path: (*name).to_owned(),
            bytes: quadrant_png(*main, *second),
        })
        .collect();
    TexturedModel { model, files }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::unwrap_used)]
    use super::*;

    #[test]
    fn every_material_has_its_own_texture_and_the_files_exist() {
        let textured = textured_model();
        let model = &textured.model;
        let faces: u32 = model.materials.iter().map(|m| m.face_index_count).sum();
        assert_eq!(faces as usize, model.faces.len() * 3);
        let mut own: Vec<_> = model.materials.iter().map(|m| m.texture).collect();
        own.sort();
        own.dedup();
        assert_eq!(own.len(), model.materials.len());
        assert!(own.iter().all(Option::is_some));
        assert!(model.materials.iter().any(|m| m.sphere_texture.is_some()));
        assert!(
            model
                .materials
                .iter()
                .any(|m| matches!(m.toon, Toon::Texture(Some(_))))
        );
        // Textures are not listed in material order.
        assert_ne!(model.materials[0].texture, Some(TextureIdx::new(0)));
        // Every image differs from every other.
        for (i, a) in textured.files.iter().enumerate() {
            assert!(textured.files[i + 1..].iter().all(|b| b.bytes != a.bytes));
        }

        let dir = tempfile::tempdir().unwrap();
        let path = textured.write(dir.path(), "textured.pmx").unwrap();
        let loaded = crate::formats::load_path(&path, &Default::default()).unwrap();
        // The file keeps what is drawn (the header's index sizes are chosen on writing).
        assert!(loaded.model.materials == model.materials);
        assert!(loaded.model.textures == model.textures);
        assert!(loaded.model.faces == model.faces);
        for name in &model.textures {
            let image = crate::texture::load(Some(dir.path()), &name.as_str()).unwrap();
            assert_eq!((image.width, image.height), (8, 8));
        }
    }
}
