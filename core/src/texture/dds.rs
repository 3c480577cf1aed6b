//! A small DDS decoder: BC1 (DXT1), BC2 (DXT3), BC3 (DXT5) and uncompressed RGB(A)/luminance
//! with any bit masks, also behind a DX10 header. Only the top mip level is read. Every size
//! and offset is checked: a broken file is an error, never a panic.

use thiserror::Error;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum DdsError {
    #[error("not a DDS file")]
    NotDds,
    #[error("the DDS file is cut short")]
    Truncated,
    #[error("DDS size {0}×{1} is not supported")]
    BadSize(u32, u32),
    #[error("DDS pixel format {0} is not supported")]
    Unsupported(String),
}

/// A decoded image: `width × height` RGBA8 pixels, top row first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgba {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

const MAX_SIDE: u32 = 16_384;

fn u32_at(bytes: &[u8], offset: usize) -> Result<u32, DdsError> {
    bytes
        .get(offset..offset + 4)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_le_bytes)
        .ok_or(DdsError::Truncated)
}

#[derive(Debug, Clone, Copy)]
enum Format {
    Bc1,
    Bc2,
    Bc3,
    Masked {
        bytes_per_pixel: usize,
        masks: [u32; 4],
        luminance: bool,
    },
}

/// Whether `bytes` start like a DDS file.
#[must_use]
pub fn is_dds(bytes: &[u8]) -> bool {
    bytes.starts_with(b"DDS ")
}

/// What the header says: the size, the pixel format and where the top mip level starts.
#[derive(Debug, Clone, Copy)]
struct Header {
    width: u32,
    height: u32,
    format: Format,
    data_offset: usize,
}

impl Header {
    /// Bytes the top mip level takes.
    fn top_level_len(&self) -> usize {
        let (w, h) = (self.width as usize, self.height as usize);
        match self.format {
            Format::Bc1 => w.div_ceil(4) * h.div_ceil(4) * 8,
            Format::Bc2 | Format::Bc3 => w.div_ceil(4) * h.div_ceil(4) * 16,
            Format::Masked {
                bytes_per_pixel, ..
            } => w * h * bytes_per_pixel,
        }
    }
}

/// The size of a DDS image from its first bytes (148 are enough) and the file's length,
/// checking the header as [`decode`] does and that the file holds the whole top level: what a
/// validator needs without decoding the pixels.
pub fn dimensions(start: &[u8], file_len: u64) -> Result<(u32, u32), DdsError> {
    let header = parse_header(start)?;
    let needed = (header.data_offset + header.top_level_len()) as u64;
    if file_len < needed {
        return Err(DdsError::Truncated);
    }
    Ok((header.width, header.height))
}

pub fn decode(bytes: &[u8]) -> Result<Rgba, DdsError> {
    let Header {
        width,
        height,
        format,
        data_offset,
    } = parse_header(bytes)?;
    let data = bytes.get(data_offset..).ok_or(DdsError::Truncated)?;
    let (w, h) = (width as usize, height as usize);
    let mut pixels = vec![0u8; w * h * 4];
    decode_pixels(data, format, w, h, &mut pixels)?;
    Ok(Rgba {
        width,
        height,
        pixels,
    })
}

fn parse_header(bytes: &[u8]) -> Result<Header, DdsError> {
    if !is_dds(bytes) {
        return Err(DdsError::NotDds);
    }
    let height = u32_at(bytes, 12)?;
    let width = u32_at(bytes, 16)?;
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return Err(DdsError::BadSize(width, height));
    }
    let pf_flags = u32_at(bytes, 80)?;
    let four_cc = bytes.get(84..88).ok_or(DdsError::Truncated)?;
    let mut data_offset = 128;
    const FOURCC: u32 = 0x4;
    const RGB: u32 = 0x40;
    const ALPHA_PIXELS: u32 = 0x1;
    const LUMINANCE: u32 = 0x20000;
    const ALPHA_ONLY: u32 = 0x2;
    let format = if pf_flags & FOURCC != 0 {
        match four_cc {
            b"DXT1" => Format::Bc1,
            b"DXT2" | b"DXT3" => Format::Bc2,
            b"DXT4" | b"DXT5" => Format::Bc3,
            b"DX10" => {
                data_offset += 20;
                let dxgi = u32_at(bytes, 128)?;
                let rgba = [0xff, 0xff00, 0xff_0000, 0xff00_0000];
                let bgra = [0xff_0000, 0xff00, 0xff, 0xff00_0000];
                match dxgi {
                    70..=72 => Format::Bc1,
                    73..=75 => Format::Bc2,
                    76..=78 => Format::Bc3,
                    27..=29 => Format::Masked {
                        bytes_per_pixel: 4,
                        masks: rgba,
                        luminance: false,
                    },
                    87 | 90 | 91 => Format::Masked {
                        bytes_per_pixel: 4,
                        masks: bgra,
                        luminance: false,
                    },
                    88 | 92 | 93 => Format::Masked {
                        bytes_per_pixel: 4,
                        masks: [0xff_0000, 0xff00, 0xff, 0],
                        luminance: false,
                    },
                    other => return Err(DdsError::Unsupported(format!("DXGI {other}"))),
                }
            }
            other => {
                return Err(DdsError::Unsupported(
                    String::from_utf8_lossy(other).into_owned(),
                ));
            }
        }
    } else if pf_flags & (RGB | LUMINANCE | ALPHA_ONLY) != 0 {
        let bits = u32_at(bytes, 88)?;
        if !matches!(bits, 8 | 16 | 24 | 32) {
            return Err(DdsError::Unsupported(format!("{bits}-bit")));
        }
        let alpha = if pf_flags & (ALPHA_PIXELS | ALPHA_ONLY) != 0 {
            u32_at(bytes, 104)?
        } else {
            0
        };
        Format::Masked {
            bytes_per_pixel: bits as usize / 8,
            masks: [
                u32_at(bytes, 92)?,
                u32_at(bytes, 96)?,
                u32_at(bytes, 100)?,
                alpha,
            ],
            luminance: pf_flags & LUMINANCE != 0,
        }
    } else {
        return Err(DdsError::Unsupported(format!("flags {pf_flags:#x}")));
    };
    Ok(Header {
        width,
        height,
        format,
        data_offset,
    })
}

fn decode_pixels(
    data: &[u8],
    format: Format,
    w: usize,
    h: usize,
    pixels: &mut [u8],
) -> Result<(), DdsError> {
    match format {
        Format::Bc1 | Format::Bc2 | Format::Bc3 => {
            let block_bytes = if matches!(format, Format::Bc1) { 8 } else { 16 };
            let (bw, bh) = (w.div_ceil(4), h.div_ceil(4));
            if data.len() < bw * bh * block_bytes {
                return Err(DdsError::Truncated);
            }
            for by in 0..bh {
                for bx in 0..bw {
                    let offset = (by * bw + bx) * block_bytes;
                    let block = &data[offset..offset + block_bytes];
                    let texels = match format {
                        Format::Bc1 => color_block(block, true),
                        Format::Bc2 => {
                            let mut texels = color_block(&block[8..], false);
                            for (i, texel) in texels.iter_mut().enumerate() {
                                let nibble = (block[i / 2] >> ((i % 2) * 4)) & 0xf;
                                texel[3] = nibble * 17;
                            }
                            texels
                        }
                        _ => {
                            let mut texels = color_block(&block[8..], false);
                            let alphas = alpha_block(&block[..8]);
                            for (texel, alpha) in texels.iter_mut().zip(alphas) {
                                texel[3] = alpha;
                            }
                            texels
                        }
                    };
                    for (i, texel) in texels.iter().enumerate() {
                        let (x, y) = (bx * 4 + i % 4, by * 4 + i / 4);
                        if x < w && y < h {
                            let at = (y * w + x) * 4;
                            pixels[at..at + 4].copy_from_slice(texel);
                        }
                    }
                }
            }
        }
        Format::Masked {
            bytes_per_pixel,
            masks,
            luminance,
        } => {
            if data.len() < w * h * bytes_per_pixel {
                return Err(DdsError::Truncated);
            }
            for (i, chunk) in data.chunks_exact(bytes_per_pixel).take(w * h).enumerate() {
                let mut raw = [0u8; 4];
                raw[..bytes_per_pixel].copy_from_slice(chunk);
                let value = u32::from_le_bytes(raw);
                let channel = |mask: u32| -> Option<u8> {
                    if mask == 0 {
                        return None;
                    }
                    let shift = mask.trailing_zeros();
                    let max = u64::from(mask >> shift);
                    let v = u64::from((value & mask) >> shift);
                    Some((v * 255 / max.max(1)) as u8)
                };
                let px = if luminance {
                    let l = channel(masks[0]).unwrap_or(0);
                    [l, l, l, channel(masks[3]).unwrap_or(255)]
                } else {
                    [
                        channel(masks[0]).unwrap_or(0),
                        channel(masks[1]).unwrap_or(0),
                        channel(masks[2]).unwrap_or(0),
                        channel(masks[3]).unwrap_or(255),
                    ]
                };
                pixels[i * 4..i * 4 + 4].copy_from_slice(&px);
            }
        }
    }
    Ok(())
}

fn rgb565(value: u16) -> [u8; 3] {
    let r = (value >> 11) & 0x1f;
    let g = (value >> 5) & 0x3f;
    let b = value & 0x1f;
    [
        ((r * 527 + 23) >> 6) as u8,
        ((g * 259 + 33) >> 6) as u8,
        ((b * 527 + 23) >> 6) as u8,
    ]
}

/// A BC1 colour block's 16 texels. `allow_transparent`: BC1's 3-colour mode (c0 <= c1) has a
/// transparent black; BC2/BC3 always use four colours.
fn color_block(block: &[u8], allow_transparent: bool) -> [[u8; 4]; 16] {
    let c0 = u16::from_le_bytes([block[0], block[1]]);
    let c1 = u16::from_le_bytes([block[2], block[3]]);
    let (a, b) = (rgb565(c0), rgb565(c1));
    let mix = |wa: u16, wb: u16, d: u16| -> [u8; 4] {
        let m = |i: usize| ((u16::from(a[i]) * wa + u16::from(b[i]) * wb) / d) as u8;
        [m(0), m(1), m(2), 255]
    };
    let palette = if c0 > c1 || !allow_transparent {
        [
            [a[0], a[1], a[2], 255],
            [b[0], b[1], b[2], 255],
            mix(2, 1, 3),
            mix(1, 2, 3),
        ]
    } else {
        [
            [a[0], a[1], a[2], 255],
            [b[0], b[1], b[2], 255],
            mix(1, 1, 2),
            [0, 0, 0, 0],
        ]
    };
    let bits = u32::from_le_bytes([block[4], block[5], block[6], block[7]]);
    std::array::from_fn(|i| palette[((bits >> (i * 2)) & 3) as usize])
}

fn alpha_block(block: &[u8]) -> [u8; 16] {
    let (a0, a1) = (u16::from(block[0]), u16::from(block[1]));
    let mut table = [0u8; 8];
    table[0] = a0 as u8;
    table[1] = a1 as u8;
    if a0 > a1 {
        for i in 1..7u16 {
            table[i as usize + 1] = (((7 - i) * a0 + i * a1) / 7) as u8;
        }
    } else {
        for i in 1..5u16 {
            table[i as usize + 1] = (((5 - i) * a0 + i * a1) / 5) as u8;
        }
        table[6] = 0;
        table[7] = 255;
    }
    let mut bits = 0u64;
    for (i, &byte) in block[2..8].iter().enumerate() {
        bits |= u64::from(byte) << (8 * i);
    }
    std::array::from_fn(|i| table[((bits >> (i * 3)) & 7) as usize])
}

/// Builds a DDS file (for tests and fixtures): `four_cc` blocks, or uncompressed with `masks`.
#[must_use]
pub fn encode_for_tests(
    width: u32,
    height: u32,
    four_cc: Option<&[u8; 4]>,
    bits_masks: Option<(u32, [u32; 4])>,
    data: &[u8],
) -> Vec<u8> {
    let mut out = Vec::with_capacity(128 + data.len());
    out.extend_from_slice(b"DDS ");
    let mut header = [0u32; 31];
    header[0] = 124;
    header[1] = 0x1007;
    header[2] = height;
    header[3] = width;
    header[18] = 32;
    if let Some(four_cc) = four_cc {
        header[19] = 0x4;
        header[20] = u32::from_le_bytes(*four_cc);
    } else if let Some((bits, masks)) = bits_masks {
        header[19] = 0x40 | if masks[3] != 0 { 0x1 } else { 0 };
        header[21] = bits;
        header[22..26].copy_from_slice(&masks);
    }
    header[26] = 0x1000;
    for value in header {
        out.extend_from_slice(&value.to_le_bytes());
    }
    out.extend_from_slice(data);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bc1_four_and_three_colour_blocks() {
        // c0 = pure red (0xF800), c1 = pure blue (0x001F); indices 0,1,2,3 in the first row.
        let block = [0x00, 0xF8, 0x1F, 0x00, 0b1110_0100, 0, 0, 0];
        let file = encode_for_tests(4, 4, Some(b"DXT1"), None, &block);
        let image = decode(&file).expect("decodes");
        assert_eq!((image.width, image.height), (4, 4));
        assert_eq!(&image.pixels[0..4], &[255, 0, 0, 255]);
        assert_eq!(&image.pixels[4..8], &[0, 0, 255, 255]);
        assert_eq!(&image.pixels[8..12], &[170, 0, 85, 255]);
        assert_eq!(&image.pixels[12..16], &[85, 0, 170, 255]);
        // The rest of the block uses index 0.
        assert_eq!(&image.pixels[60..64], &[255, 0, 0, 255]);
        // c0 <= c1: index 3 is transparent black.
        let block = [0x1F, 0x00, 0x00, 0xF8, 0b11, 0, 0, 0];
        let image = decode(&encode_for_tests(4, 4, Some(b"DXT1"), None, &block)).expect("ok");
        assert_eq!(&image.pixels[0..4], &[0, 0, 0, 0]);
    }

    #[test]
    fn bc2_and_bc3_alpha() {
        let color = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0];
        let mut bc2 = vec![0x0F, 0, 0, 0, 0, 0, 0, 0xF0];
        bc2.extend_from_slice(&color);
        let image = decode(&encode_for_tests(4, 4, Some(b"DXT3"), None, &bc2)).expect("ok");
        assert_eq!(&image.pixels[0..4], &[255, 255, 255, 255]);
        assert_eq!(image.pixels[7], 0);
        assert_eq!(image.pixels[63], 255);
        // BC3: a0 = 255, a1 = 0, first texel index 1 (→ 0), second index 2 (→ 218).
        let mut bc3 = vec![255, 0, 0b0001_0001, 0, 0, 0, 0, 0];
        bc3.extend_from_slice(&color);
        let image = decode(&encode_for_tests(4, 4, Some(b"DXT5"), None, &bc3)).expect("ok");
        assert_eq!(image.pixels[3], 0);
        assert_eq!(image.pixels[7], 218);
        assert_eq!(image.pixels[11], 255);
    }

    #[test]
    fn uncompressed_masks_and_partial_blocks() {
        // 24-bit BGR, 2×1.
        let file = encode_for_tests(
            2,
            1,
            None,
            Some((24, [0xff_0000, 0xff00, 0xff, 0])),
            &[1, 2, 3, 4, 5, 6],
        );
        let image = decode(&file).expect("ok");
        assert_eq!(image.pixels, vec![3, 2, 1, 255, 6, 5, 4, 255]);
        // 16-bit A1R5G5B5.
        let file = encode_for_tests(
            1,
            1,
            None,
            Some((16, [0x7c00, 0x3e0, 0x1f, 0x8000])),
            &0xfc00u16.to_le_bytes(),
        );
        assert_eq!(decode(&file).expect("ok").pixels, vec![255, 0, 0, 255]);
        // A 5×3 BC1 image needs 2×1 blocks; only the visible texels are kept.
        let blocks = [0u8; 16];
        let image = decode(&encode_for_tests(5, 3, Some(b"DXT1"), None, &blocks)).expect("ok");
        assert_eq!(image.pixels.len(), 5 * 3 * 4);
    }

    #[test]
    fn broken_files_are_errors() {
        assert_eq!(decode(b"BM.."), Err(DdsError::NotDds));
        assert_eq!(decode(b"DDS "), Err(DdsError::Truncated));
        let file = encode_for_tests(8, 8, Some(b"DXT1"), None, &[0; 8]);
        assert_eq!(decode(&file), Err(DdsError::Truncated));
        let file = encode_for_tests(0, 8, Some(b"DXT1"), None, &[]);
        assert_eq!(decode(&file), Err(DdsError::BadSize(0, 8)));
        let file = encode_for_tests(4, 4, Some(b"ATI2"), None, &[0; 16]);
        assert!(matches!(decode(&file), Err(DdsError::Unsupported(_))));
    }
}
