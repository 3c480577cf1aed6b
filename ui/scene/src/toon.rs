//! The shared toon textures toon01..toon10, drawn by this project (MikuMikuDance's own files
//! are not ours to ship): `pmx_core::texture::toon` draws them (the VRM export reads their
//! colours from there too). `resources/toon/toonNN.png` holds the same images for users; a
//! test keeps them equal.

pub use pmx_core::texture::toon::{TOON_SIZE, shared_toon};

#[cfg(test)]
mod tests {
    use super::*;

    /// The PNGs in `resources/toon/` are these images (regenerate them with
    /// `PMX_STUDIO_WRITE_TOONS=1 cargo test -p pmx_scene toon`).
    #[test]
    fn shipped_toons_match() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../resources/toon");
        for number in 0..10u8 {
            let pixels = shared_toon(number).expect("exists");
            let path = dir.join(format!("toon{:02}.png", number + 1));
            if std::env::var_os("PMX_STUDIO_WRITE_TOONS").is_some() {
                std::fs::create_dir_all(&dir).expect("dir");
                image::RgbaImage::from_raw(TOON_SIZE, TOON_SIZE, pixels.clone())
                    .expect("size")
                    .save(&path)
                    .expect("write");
            }
            let shipped = image::open(&path).expect("shipped toon").to_rgba8();
            assert_eq!(shipped.into_raw(), pixels, "{}", path.display());
        }
    }
}
