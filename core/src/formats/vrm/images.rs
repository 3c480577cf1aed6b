//! The bytes an exported texture is embedded with: a PNG or JPEG file as it is (glTF's two
//! core image types; re-encoding a JPEG skin as PNG made a 3.1 MB texture 12.5 MB and changed
//! no pixel for the better), anything else (BMP, TGA, DDS...) decoded and written as PNG.
//!
//! The decoded image is returned too: the material needs its alpha to choose the alpha mode.

use crate::texture::{Image, TextureProblem};
use std::path::Path;

/// An image ready for a glTF buffer view.
#[derive(Debug, Clone)]
pub struct EmbeddedImage {
    /// The file's bytes (PNG or JPEG) or a PNG encoding of the decoded pixels.
    pub bytes: Vec<u8>,
    /// `image/png` or `image/jpeg`.
    pub mime_type: &'static str,
    /// The decoded pixels.
    pub image: Image,
}

/// Loads the texture `name` of a model in `model_dir` for embedding (see the module
/// documentation).
pub fn load_embeddable(
    model_dir: Option<&Path>,
    name: &str,
) -> Result<EmbeddedImage, TextureProblem> {
    let path = model_dir
        .and_then(|dir| crate::texture::resolve(dir, name))
        .ok_or_else(|| TextureProblem::NotFound {
            name: name.to_owned(),
        })?;
    let bytes = std::fs::read(&path).map_err(|e| TextureProblem::Unreadable {
        name: name.to_owned(),
        message: e.to_string(),
    })?;
    let undecodable = |message: String| TextureProblem::Undecodable {
        name: name.to_owned(),
        message,
    };
    let image = crate::texture::decode(&bytes, name).map_err(undecodable)?;
    // Only by content: a `.png` that is a JPEG inside is embedded as the JPEG it is.
    let kept = match image::guess_format(&bytes) {
        Ok(image::ImageFormat::Png) => Some("image/png"),
        Ok(image::ImageFormat::Jpeg) => Some("image/jpeg"),
        _ => None,
    };
    let (bytes, mime_type) = match kept {
        Some(mime_type) => (bytes, mime_type),
        None => (encode_png(&image).map_err(undecodable)?, "image/png"),
    };
    Ok(EmbeddedImage {
        bytes,
        mime_type,
        image,
    })
}

fn encode_png(image: &Image) -> Result<Vec<u8>, String> {
    let buffer = image::RgbaImage::from_raw(image.width, image.height, image.pixels.clone())
        .ok_or_else(|| "the decoded image has the wrong size".to_owned())?;
    let mut out = Vec::new();
    buffer
        .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::unwrap_used)]
    use super::*;

    fn encoded(format: image::ImageFormat) -> Vec<u8> {
        let image =
            image::RgbImage::from_fn(16, 8, |x, y| image::Rgb([x as u8 * 16, y as u8 * 32, 90]));
        let mut out = Vec::new();
        image
            .write_to(&mut std::io::Cursor::new(&mut out), format)
            .unwrap();
        out
    }

    #[test]
    fn png_and_jpeg_keep_their_bytes_and_bmp_becomes_png() {
        let dir = tempfile::tempdir().unwrap();
        let jpeg = encoded(image::ImageFormat::Jpeg);
        let png = encoded(image::ImageFormat::Png);
        std::fs::write(dir.path().join("skin.jpg"), &jpeg).unwrap();
        // A JPEG named .png is still a JPEG.
        std::fs::write(dir.path().join("odd.png"), &jpeg).unwrap();
        std::fs::write(dir.path().join("face.png"), &png).unwrap();
        std::fs::write(dir.path().join("old.bmp"), encoded(image::ImageFormat::Bmp)).unwrap();
        let load = |name| load_embeddable(Some(dir.path()), name).unwrap();
        let skin = load("skin.jpg");
        assert_eq!(
            (skin.bytes.as_slice(), skin.mime_type),
            (jpeg.as_slice(), "image/jpeg")
        );
        assert_eq!((skin.image.width, skin.image.height), (16, 8));
        assert_eq!(load("odd.png").mime_type, "image/jpeg");
        let face = load("face.png");
        assert_eq!(
            (face.bytes.as_slice(), face.mime_type),
            (png.as_slice(), "image/png")
        );
        let old = load("old.bmp");
        assert_eq!(old.mime_type, "image/png");
        assert_eq!(
            image::guess_format(&old.bytes).unwrap(),
            image::ImageFormat::Png
        );
        assert!(matches!(
            load_embeddable(Some(dir.path()), "gone.png"),
            Err(TextureProblem::NotFound { .. })
        ));
    }
}
