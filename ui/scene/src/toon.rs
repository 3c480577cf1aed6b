//! The shared toon textures toon01..toon10, drawn by this project (MikuMikuDance's own files
//! are not ours to ship): vertical ramps from lit (top) to a shadow colour (bottom), 32×32 like
//! MMD's. `resources/toon/toonNN.png` holds the same images for users; a test keeps them equal.

/// Shadow colour and softness (the width of the lit → shadow transition) of each shared toon.
const TOONS: [([f32; 3], f32); 10] = [
    ([0.80, 0.80, 0.80], 0.06),
    ([0.92, 0.92, 0.92], 0.06),
    ([0.62, 0.62, 0.62], 0.06),
    ([0.96, 0.82, 0.80], 0.30),
    ([0.86, 0.86, 0.96], 0.30),
    ([0.72, 0.72, 0.72], 0.30),
    ([0.92, 0.78, 0.72], 0.06),
    ([0.76, 0.80, 0.90], 0.30),
    ([0.95, 0.90, 0.80], 0.30),
    ([0.66, 0.62, 0.68], 0.30),
];

pub const TOON_SIZE: u32 = 32;

/// Shared toon `number` (0 = toon01) as RGBA8, top row first; `None` past toon10.
#[must_use]
pub fn shared_toon(number: u8) -> Option<Vec<u8>> {
    let (shadow, softness) = *TOONS.get(usize::from(number))?;
    let size = TOON_SIZE as usize;
    let mut pixels = Vec::with_capacity(size * size * 4);
    for y in 0..size {
        // The shader samples v = 0.5 - N·L / 2: lit above the middle, shadow below.
        let v = (y as f32 + 0.5) / size as f32;
        let t = ((v - 0.5) / softness + 0.5).clamp(0.0, 1.0);
        let t = t * t * (3.0 - 2.0 * t);
        let rgb: [u8; 3] =
            std::array::from_fn(|i| ((1.0 + (shadow[i] - 1.0) * t) * 255.0).round() as u8);
        for _ in 0..size {
            pixels.extend_from_slice(&[rgb[0], rgb[1], rgb[2], 255]);
        }
    }
    Some(pixels)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ramps_go_from_white_to_the_shadow() {
        let toon = shared_toon(0).expect("toon01");
        assert_eq!(toon.len(), 32 * 32 * 4);
        assert_eq!(&toon[0..4], &[255, 255, 255, 255]);
        let last_row = (31 * 32) * 4;
        assert_eq!(&toon[last_row..last_row + 4], &[204, 204, 204, 255]);
        assert!(shared_toon(10).is_none());
    }

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
