//! MikuMikuDance's toon ramps as colours: the shared toon01–toon10 and what any toon image
//! amounts to ([`ToonRamp`]: its lit end, its shadow end, and where and how fast one turns into
//! the other), for the 3D view (which draws the shared toons from here) and for conversions to
//! shading models that describe a toon by numbers (VRM's MToon).
//!
//! MikuMikuDance multiplies a material's lit colour by the toon's texel at
//! `(0.5, 0.5 − N·L / 2)`: the top rows are what faces towards the light get, the bottom rows
//! what faces turned away get. MMD's own toon01.bmp–toon10.bmp are not ours to ship, so the
//! shared toons are drawn in code: vertical ramps from white to a shadow colour across the
//! middle row. Their shadow colours follow the bundled files as three.js's `MMDLoader` embeds
//! them (toon01 a hard step to 205 grey, toon03 to 154 grey: 0.80 and 0.62 here, within 2/255)
//! and the look of the rest. `resources/toon/toonNN.png` holds the same images for users.

use super::Image;

/// The side of a shared toon image (MMD's own toon01–10.bmp are 32 × 32).
pub const TOON_SIZE: u32 = 32;

/// One shared toon: its shadow colour (sRGB, 0–1) and the width of the lit → shadow
/// transition, a fraction of the ramp's height centred on its middle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SharedToon {
    pub shadow: [f32; 3],
    pub softness: f32,
}

/// toon01 … toon10.
pub const SHARED_TOONS: [SharedToon; 10] = [
    SharedToon::new([0.80, 0.80, 0.80], 0.06),
    SharedToon::new([0.92, 0.92, 0.92], 0.06),
    SharedToon::new([0.62, 0.62, 0.62], 0.06),
    SharedToon::new([0.96, 0.82, 0.80], 0.30),
    SharedToon::new([0.86, 0.86, 0.96], 0.30),
    SharedToon::new([0.72, 0.72, 0.72], 0.30),
    SharedToon::new([0.92, 0.78, 0.72], 0.06),
    SharedToon::new([0.76, 0.80, 0.90], 0.30),
    SharedToon::new([0.95, 0.90, 0.80], 0.30),
    SharedToon::new([0.66, 0.62, 0.68], 0.30),
];

impl SharedToon {
    const fn new(shadow: [f32; 3], softness: f32) -> Self {
        Self { shadow, softness }
    }

    /// The toon's row colour at `v` (0 top … 1 bottom), RGB8: a smooth step from white to the
    /// shadow colour.
    fn row(&self, v: f32) -> [u8; 3] {
        let t = ((v - 0.5) / self.softness + 0.5).clamp(0.0, 1.0);
        let t = t * t * (3.0 - 2.0 * t);
        self.shadow
            .map(|shadow| ((1.0 + (shadow - 1.0) * t) * 255.0).round() as u8)
    }
}

/// Shared toon `number` (0 = toon01) as `TOON_SIZE`² RGBA8, top row first; `None` past toon10.
#[must_use]
pub fn shared_toon(number: u8) -> Option<Vec<u8>> {
    let toon = SHARED_TOONS.get(usize::from(number))?;
    let size = TOON_SIZE as usize;
    let mut pixels = Vec::with_capacity(size * size * 4);
    for y in 0..size {
        let [r, g, b] = toon.row((y as f32 + 0.5) / size as f32);
        for _ in 0..size {
            pixels.extend_from_slice(&[r, g, b, 255]);
        }
    }
    Some(pixels)
}

/// What a toon ramp amounts to, as the texel MikuMikuDance looks up (the image's middle
/// column): the colours at its ends and a linear transition between them that crosses the
/// same rows at 10 %, 50 % and 90 % of the way.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ToonRamp {
    /// The top row (faces towards the light), sRGB 0–1.
    pub lit: [f32; 3],
    /// The bottom row (faces turned away), sRGB 0–1.
    pub shadow: [f32; 3],
    /// Where the transition is halfway, 0 (top) … 1 (bottom).
    pub centre: f32,
    /// The height of the linear transition, 0 (a hard step) … 1 (the whole ramp) or more.
    pub width: f32,
}

impl ToonRamp {
    /// No toon: white at both ends (MMD's toon0, a material without a toon).
    pub const WHITE: Self = Self {
        lit: [1.0; 3],
        shadow: [1.0; 3],
        centre: 0.5,
        width: 0.0,
    };

    /// Shared toon `number` (0 = toon01), measured on the image the view draws.
    #[must_use]
    pub fn shared(number: u8) -> Option<Self> {
        let pixels = shared_toon(number)?;
        Self::of_rgba(TOON_SIZE, TOON_SIZE, &pixels)
    }

    /// The ramp of a decoded toon image; `None` for an empty one.
    #[must_use]
    pub fn of_image(image: &Image) -> Option<Self> {
        Self::of_rgba(image.width, image.height, &image.pixels)
    }

    fn of_rgba(width: u32, height: u32, pixels: &[u8]) -> Option<Self> {
        let (width, height) = (width as usize, height as usize);
        let x = width / 2;
        let column: Vec<[f32; 3]> = (0..height)
            .map(|y| {
                let at = (y * width + x) * 4;
                let texel = pixels.get(at..at + 3)?;
                Some([texel[0], texel[1], texel[2]].map(|c| f32::from(c) / 255.0))
            })
            .collect::<Option<_>>()?;
        let lit = *column.first()?;
        let shadow = *column.last()?;
        let span: [f32; 3] = std::array::from_fn(|c| lit[c] - shadow[c]);
        let span_squared: f32 = span.iter().map(|s| s * s).sum();
        // Ends within a step of 8 bits of each other: no transition to speak of.
        if span_squared < (1.5 / 255.0f32).powi(2) || height < 2 {
            return Some(Self {
                lit,
                shadow,
                centre: 0.5,
                width: 0.0,
            });
        }
        // How far each row is from the shadow end towards the lit end (1 lit, 0 shadow).
        let lit_fraction: Vec<f32> = column
            .iter()
            .map(|colour| {
                let along: f32 = (0..3).map(|c| (colour[c] - shadow[c]) * span[c]).sum();
                (along / span_squared).clamp(0.0, 1.0)
            })
            .collect();
        // MMD samples row centres ((y + 0.5) / height) and filters linearly between them.
        let row_v = |row: f32| (row + 0.5) / height as f32;
        let crossing = |level: f32, from: usize| -> Option<(usize, f32)> {
            (from..height - 1).find_map(|y| {
                let (a, b) = (lit_fraction[y], lit_fraction[y + 1]);
                (a >= level && b < level).then(|| (y, row_v(y as f32 + (a - level) / (a - b))))
            })
        };
        let Some((half_row, centre)) = crossing(0.5, 0) else {
            return Some(Self {
                lit,
                shadow,
                centre: 0.5,
                width: 0.0,
            });
        };
        // The 90 % crossing above the halfway one, the 10 % one below it.
        let lit_end = (0..=half_row)
            .rev()
            .find_map(|y| {
                let (a, b) = (lit_fraction[y], lit_fraction[y + 1]);
                (a >= 0.9 && b < 0.9).then(|| row_v(y as f32 + (a - 0.9) / (a - b)))
            })
            .unwrap_or(row_v(0.0));
        let shadow_end = crossing(0.1, half_row).map_or(row_v(height as f32 - 1.0), |(_, v)| v);
        Some(Self {
            lit,
            shadow,
            centre,
            // A linear ramp of width w crosses 90 % and 10 % 0.8 w apart.
            width: ((shadow_end - lit_end) / 0.8).max(0.0),
        })
    }

    /// Whether the ramp is white at both ends (it changes nothing).
    #[must_use]
    pub fn is_white(&self) -> bool {
        self.lit
            .iter()
            .chain(&self.shadow)
            .all(|&c| c >= 1.0 - 1.5 / 255.0)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::unwrap_used)]
    use super::*;

    #[test]
    fn shared_ramps_go_from_white_to_the_shadow() {
        let toon = shared_toon(0).expect("toon01");
        assert_eq!(toon.len(), 32 * 32 * 4);
        assert_eq!(&toon[0..4], &[255, 255, 255, 255]);
        let last_row = (31 * 32) * 4;
        assert_eq!(&toon[last_row..last_row + 4], &[204, 204, 204, 255]);
        assert!(shared_toon(10).is_none());
    }

    #[test]
    fn shared_ramps_measure_as_their_table() {
        for number in 0..10u8 {
            let ramp = ToonRamp::shared(number).unwrap();
            let toon = SHARED_TOONS[usize::from(number)];
            assert_eq!(ramp.lit, [1.0; 3]);
            for c in 0..3 {
                assert!((ramp.shadow[c] - toon.shadow[c]).abs() < 1.0 / 255.0);
            }
            assert!((ramp.centre - 0.5).abs() < 0.01, "{number}: {ramp:?}");
            assert!(ramp.width <= toon.softness * 1.5, "{number}: {ramp:?}");
            assert!(!ramp.is_white());
        }
    }

    fn image_of_rows(rows: &[[u8; 3]], width: u32) -> Image {
        let mut pixels = Vec::new();
        for row in rows {
            for _ in 0..width {
                pixels.extend_from_slice(&[row[0], row[1], row[2], 255]);
            }
        }
        Image {
            width,
            height: rows.len() as u32,
            pixels,
        }
    }

    #[test]
    fn a_linear_ramp_measures_its_centre_and_width() {
        // White over rows 0..=7, a linear fall to (100, 50, 0) over rows 8..=24, then flat.
        let rows: Vec<[u8; 3]> = (0..32)
            .map(|y: i32| {
                let t = ((y - 8) as f32 / 16.0).clamp(0.0, 1.0);
                [255.0, 255.0, 255.0]
                    .iter()
                    .zip([100.0, 50.0, 0.0])
                    .map(|(lit, dark)| (lit + (dark - lit) * t).round() as u8)
                    .collect::<Vec<_>>()
                    .try_into()
                    .unwrap()
            })
            .collect();
        let ramp = ToonRamp::of_image(&image_of_rows(&rows, 4)).unwrap();
        assert_eq!(ramp.shadow, [100.0 / 255.0, 50.0 / 255.0, 0.0]);
        // Rows 8 and 24 (v = 8.5/32 and 24.5/32): centre 16.5/32, width 0.5.
        assert!((ramp.centre - 16.5 / 32.0).abs() < 0.01, "{ramp:?}");
        assert!((ramp.width - 0.5).abs() < 0.02, "{ramp:?}");
    }

    #[test]
    fn flat_and_white_ramps() {
        let white = ToonRamp::of_image(&image_of_rows(&[[255; 3]; 8], 2)).unwrap();
        assert!(white.is_white());
        let flat = ToonRamp::of_image(&image_of_rows(&[[200, 100, 50]; 8], 2)).unwrap();
        assert_eq!(flat.width, 0.0);
        assert!(!flat.is_white());
        let empty = Image {
            width: 0,
            height: 0,
            pixels: Vec::new(),
        };
        assert!(ToonRamp::of_image(&empty).is_none());
    }
}
