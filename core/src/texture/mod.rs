//! Finding and decoding a model's textures: paths relative to the model with `\` or `/`,
//! Japanese names, a case-insensitive fallback on case-sensitive file systems; BMP, PNG, JPEG,
//! TGA (the `image` crate), DDS ([`dds`]) and `.sph`/`.spa` (BMP under another name,
//! recognised by content). A texture that cannot be found or decoded becomes a magenta/black
//! checker and a [`TextureProblem`] the 3D view lists; it never stops the drawing. [`probe`]
//! checks a file from its header only, for the validator.

pub mod dds;
pub mod toon;

use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// An RGBA8 image, top row first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl Image {
    /// The placeholder for a missing or broken texture: 8×8-pixel magenta and black squares.
    #[must_use]
    pub fn placeholder() -> Self {
        let size = 16u32;
        let mut pixels = Vec::with_capacity((size * size * 4) as usize);
        for y in 0..size {
            for x in 0..size {
                let magenta = (x / 8 + y / 8) % 2 == 0;
                pixels.extend_from_slice(if magenta {
                    &[255, 0, 255, 255]
                } else {
                    &[0, 0, 0, 255]
                });
            }
        }
        Self {
            width: size,
            height: size,
            pixels,
        }
    }

    #[must_use]
    pub fn solid(rgba: [u8; 4]) -> Self {
        Self {
            width: 1,
            height: 1,
            pixels: rgba.to_vec(),
        }
    }
}

/// Why a texture shows the placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextureProblem {
    /// No file at the path (nor one differing only in case).
    NotFound {
        name: String,
    },
    Unreadable {
        name: String,
        message: String,
    },
    Undecodable {
        name: String,
        message: String,
    },
}

impl TextureProblem {
    #[must_use]
    pub fn name(&self) -> &str {
        match self {
            TextureProblem::NotFound { name }
            | TextureProblem::Unreadable { name, .. }
            | TextureProblem::Undecodable { name, .. } => name,
        }
    }
}

impl std::fmt::Display for TextureProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TextureProblem::NotFound { name } => write!(f, "{name}: not found"),
            TextureProblem::Unreadable { name, message }
            | TextureProblem::Undecodable { name, message } => write!(f, "{name}: {message}"),
        }
    }
}

/// The file a texture path names, relative to `base_dir`: `\` and `/` both separate, and
/// each component that does not exist as written is looked up case-insensitively.
#[must_use]
pub fn resolve(base_dir: &Path, name: &str) -> Option<PathBuf> {
    let normalized = name.trim().replace('\\', "/");
    if normalized.is_empty() {
        return None;
    }
    // The parent of `model.pmx` is "": the working folder, which `read_dir` needs as ".".
    let base_dir = if base_dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        base_dir
    };
    let relative = Path::new(&normalized);
    let direct = base_dir.join(relative);
    if direct.is_file() {
        return Some(direct);
    }
    let mut path = if relative.is_absolute() {
        PathBuf::from("/")
    } else {
        base_dir.to_path_buf()
    };
    for component in relative.components() {
        match component {
            Component::Normal(part) => {
                let exact = path.join(part);
                if exact.exists() {
                    path = exact;
                    continue;
                }
                let wanted = part.to_string_lossy().to_lowercase();
                let found = std::fs::read_dir(&path)
                    .ok()?
                    .flatten()
                    .find(|entry| entry.file_name().to_string_lossy().to_lowercase() == wanted)?;
                path = found.path();
            }
            Component::ParentDir => path.push(".."),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    path.is_file().then_some(path)
}

/// Decodes a texture file's bytes; `name` (its extension) helps only for TGA, which has no
/// signature.
pub fn decode(bytes: &[u8], name: &str) -> Result<Image, String> {
    if dds::is_dds(bytes) {
        let image = dds::decode(bytes).map_err(|e| e.to_string())?;
        return Ok(Image {
            width: image.width,
            height: image.height,
            pixels: image.pixels,
        });
    }
    let guessed = image::guess_format(bytes).ok();
    let is_tga = name.to_lowercase().ends_with(".tga");
    let format = match guessed {
        Some(format) => format,
        None if is_tga => image::ImageFormat::Tga,
        None => return Err("unknown image format".to_owned()),
    };
    let mut reader = image::ImageReader::with_format(std::io::Cursor::new(bytes), format);
    let mut limits = image::Limits::default();
    limits.max_image_width = Some(16_384);
    limits.max_image_height = Some(16_384);
    reader.limits(limits);
    let decoded = reader.decode().map_err(|e| e.to_string())?.to_rgba8();
    Ok(Image {
        width: decoded.width(),
        height: decoded.height(),
        pixels: decoded.into_raw(),
    })
}

/// Checks that the file at `path` (the texture `name`) is an image the editor and MikuMikuDance
/// read, from its header only: the format by content (TGA, which has none, by its extension),
/// a size that is not zero and, for DDS, a file long enough for the top mip level. Returns
/// the size in pixels.
pub fn probe(path: &Path, name: &str) -> Result<(u32, u32), TextureProblem> {
    let unreadable = |error: std::io::Error| TextureProblem::Unreadable {
        name: name.to_owned(),
        message: error.to_string(),
    };
    let undecodable = |message: String| TextureProblem::Undecodable {
        name: name.to_owned(),
        message,
    };
    let mut file = std::fs::File::open(path).map_err(unreadable)?;
    let file_len = file.metadata().map_err(unreadable)?.len();
    let mut start = Vec::with_capacity(256);
    (&mut file)
        .take(256)
        .read_to_end(&mut start)
        .map_err(unreadable)?;
    if dds::is_dds(&start) {
        return dds::dimensions(&start, file_len).map_err(|e| undecodable(e.to_string()));
    }
    let format = match image::guess_format(&start) {
        Ok(format) => format,
        Err(_) if name.to_lowercase().ends_with(".tga") => image::ImageFormat::Tga,
        Err(_) if start.is_empty() => return Err(undecodable("the file is empty".to_owned())),
        Err(_) => return Err(undecodable("unknown image format".to_owned())),
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let reader = image::ImageReader::with_format(std::io::BufReader::new(file), format);
    let (width, height) = reader
        .into_dimensions()
        .map_err(|e| undecodable(e.to_string()))?;
    if width == 0 || height == 0 {
        return Err(undecodable(format!("size {width}×{height}")));
    }
    Ok((width, height))
}

/// Loads the texture `name` of a model in `base_dir` (`None`: a model not saved yet, whose
/// textures cannot be found).
pub fn load(base_dir: Option<&Path>, name: &str) -> Result<Image, TextureProblem> {
    let not_found = || TextureProblem::NotFound {
        name: name.to_owned(),
    };
    let path = base_dir
        .and_then(|dir| resolve(dir, name))
        .ok_or_else(not_found)?;
    let bytes = std::fs::read(&path).map_err(|e| TextureProblem::Unreadable {
        name: name.to_owned(),
        message: e.to_string(),
    })?;
    decode(&bytes, name).map_err(|message| TextureProblem::Undecodable {
        name: name.to_owned(),
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32, rgba: [u8; 4]) -> Vec<u8> {
        let image = image::RgbaImage::from_pixel(width, height, image::Rgba(rgba));
        let mut out = Vec::new();
        image
            .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .expect("encode");
        out
    }

    fn encode(format: image::ImageFormat, rgba: [u8; 4]) -> Vec<u8> {
        let image = image::RgbImage::from_pixel(2, 2, image::Rgb([rgba[0], rgba[1], rgba[2]]));
        let mut out = Vec::new();
        image
            .write_to(&mut std::io::Cursor::new(&mut out), format)
            .expect("encode");
        out
    }

    #[test]
    fn paths_with_backslashes_japanese_names_and_other_case() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::create_dir_all(dir.path().join("Tex/顔")).expect("dirs");
        std::fs::write(dir.path().join("Tex/顔/肌.PNG"), png(1, 1, [1, 2, 3, 255])).expect("w");
        let found = resolve(dir.path(), "tex\\顔\\肌.png").expect("found");
        assert_eq!(found, dir.path().join("Tex/顔/肌.PNG"));
        let image = load(Some(dir.path()), "Tex/顔/肌.PNG").expect("loads");
        assert_eq!(image.pixels, vec![1, 2, 3, 255]);
        assert_eq!(resolve(dir.path(), "tex/none.png"), None);
        assert_eq!(resolve(dir.path(), "  "), None);
        assert_eq!(
            load(Some(dir.path()), "missing.bmp"),
            Err(TextureProblem::NotFound {
                name: "missing.bmp".to_owned()
            })
        );
        assert!(matches!(
            load(None, "a.png"),
            Err(TextureProblem::NotFound { .. })
        ));
    }

    #[test]
    fn formats_by_content_sph_and_tga() {
        let bmp = encode(image::ImageFormat::Bmp, [10, 20, 30, 255]);
        // A sphere map is a BMP named .sph/.spa.
        let image = decode(&bmp, "metal.sph").expect("bmp content");
        assert_eq!(&image.pixels[0..4], &[10, 20, 30, 255]);
        let tga = encode(image::ImageFormat::Tga, [40, 50, 60, 255]);
        assert_eq!(
            &decode(&tga, "a.TGA").expect("tga").pixels[0..4],
            &[40, 50, 60, 255]
        );
        let jpeg = encode(image::ImageFormat::Jpeg, [128, 128, 128, 255]);
        let image = decode(&jpeg, "a.jpg").expect("jpeg");
        assert!(image.pixels[0].abs_diff(128) <= 2);
        let dds = dds::encode_for_tests(1, 1, dds::Format::B8G8R8A8_UNORM, &[3, 2, 1, 4]);
        assert_eq!(decode(&dds, "a.dds").expect("dds").pixels, vec![1, 2, 3, 4]);
        assert!(decode(b"garbage", "a.png").is_err());
        assert!(decode(&bmp[..20], "a.bmp").is_err());
        let placeholder = Image::placeholder();
        assert_eq!(&placeholder.pixels[0..4], &[255, 0, 255, 255]);
        assert_eq!(&placeholder.pixels[8 * 4..8 * 4 + 4], &[0, 0, 0, 255]);
    }
}
