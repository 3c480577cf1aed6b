//! DDS textures through the image-rs `dds` crate: BC1–BC7 (DXT1–5, ATI1/2, BC6H), every
//! uncompressed layout and the DX10 header. Only the top mip level of the first surface is read.
//! Sizes are checked before anything is allocated, so a broken header is an error, never a
//! huge allocation or a panic.

use ::dds::{ColorFormat, Decoder, DecodingError, HeaderError, ImageViewMut};
use std::io::Cursor;
use thiserror::Error;

pub use ::dds::Format;

#[derive(Debug, Error, PartialEq, Eq)]
pub enum DdsError {
    #[error("not a DDS file")]
    NotDds,
    #[error("the DDS file is cut short")]
    Truncated,
    #[error("DDS size {0}×{1} is not supported")]
    BadSize(u32, u32),
    #[error("DDS file not readable: {0}")]
    Invalid(String),
}

impl From<DecodingError> for DdsError {
    fn from(error: DecodingError) -> Self {
        match error {
            DecodingError::Io(io) | DecodingError::Header(HeaderError::Io(io))
                if io.kind() == std::io::ErrorKind::UnexpectedEof =>
            {
                DdsError::Truncated
            }
            other => DdsError::Invalid(other.to_string()),
        }
    }
}

/// A decoded image: `width × height` RGBA8 pixels, top row first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rgba {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

/// The largest side accepted (MikuMikuDance and common GPUs stop at 16,384).
const MAX_SIDE: u32 = 16_384;

/// Whether `bytes` start like a DDS file.
#[must_use]
pub fn is_dds(bytes: &[u8]) -> bool {
    bytes.starts_with(b"DDS ")
}

/// A decoder over `bytes` whose header is read and whose top level has an accepted size.
fn open(bytes: &[u8]) -> Result<Decoder<Cursor<&[u8]>>, DdsError> {
    if !is_dds(bytes) {
        return Err(DdsError::NotDds);
    }
    // The header is 128 bytes (148 with the DX10 extension): fewer is a cut-short file.
    if bytes.len() < 128 {
        return Err(DdsError::Truncated);
    }
    let decoder = Decoder::new(Cursor::new(bytes))?;
    let size = decoder.main_size();
    if size.width == 0 || size.height == 0 || size.width > MAX_SIDE || size.height > MAX_SIDE {
        return Err(DdsError::BadSize(size.width, size.height));
    }
    Ok(decoder)
}

/// The size of a DDS image from its first bytes (148 are enough) and the file's length,
/// checking the header as [`decode`] does and that the file holds the whole top level: what a
/// validator needs without decoding the pixels.
pub fn dimensions(start: &[u8], file_len: u64) -> Result<(u32, u32), DdsError> {
    let decoder = open(start)?;
    // The magic, the header and, for DX10 files, its extension.
    let header_len = 4
        + 124
        + if decoder.header().to_raw().dx10.is_some() {
            20
        } else {
            0
        };
    let size = decoder.main_size();
    let top_level = ::dds::PixelInfo::from(decoder.format())
        .surface_bytes(size)
        .ok_or(DdsError::BadSize(size.width, size.height))?;
    if file_len < header_len + top_level {
        return Err(DdsError::Truncated);
    }
    Ok((size.width, size.height))
}

pub fn decode(bytes: &[u8]) -> Result<Rgba, DdsError> {
    let mut decoder = open(bytes)?;
    let size = decoder.main_size();
    let mut pixels = vec![0u8; size.pixels() as usize * 4];
    let view = ImageViewMut::new(&mut pixels, size, ColorFormat::RGBA_U8)
        .ok_or(DdsError::BadSize(size.width, size.height))?;
    decoder.read_surface(view)?;
    Ok(Rgba {
        width: size.width,
        height: size.height,
        pixels,
    })
}

/// Builds a DDS file (for tests and fixtures): a header for a `width × height` image of
/// `format` followed by `data` as given (which may be too short, for tests of broken files).
#[must_use]
pub fn encode_for_tests(width: u32, height: u32, format: Format, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(148 + data.len());
    out.extend_from_slice(b"DDS ");
    let header = ::dds::header::Header::new_image(width.max(1), height.max(1), format);
    let mut raw = header.to_raw();
    // `new_image` refuses a zero size; broken-file tests need one in the header.
    if width == 0 || height == 0 {
        raw.width = width;
        raw.height = height;
    }
    // Writing into a Vec cannot fail.
    let _ = raw.write(&mut out);
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
        let file = encode_for_tests(4, 4, Format::BC1_UNORM, &block);
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
        let image = decode(&encode_for_tests(4, 4, Format::BC1_UNORM, &block)).expect("ok");
        assert_eq!(&image.pixels[0..4], &[0, 0, 0, 0]);
    }

    #[test]
    fn bc2_and_bc3_alpha() {
        let color = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0];
        let mut bc2 = vec![0x0F, 0, 0, 0, 0, 0, 0, 0xF0];
        bc2.extend_from_slice(&color);
        let image = decode(&encode_for_tests(4, 4, Format::BC2_UNORM, &bc2)).expect("ok");
        assert_eq!(&image.pixels[0..4], &[255, 255, 255, 255]);
        assert_eq!(image.pixels[7], 0);
        assert_eq!(image.pixels[63], 255);
        // BC3: a0 = 255, a1 = 0, first texel index 1 (→ 0), second index 2 (→ 6/7 of 255).
        let mut bc3 = vec![255, 0, 0b0001_0001, 0, 0, 0, 0, 0];
        bc3.extend_from_slice(&color);
        let image = decode(&encode_for_tests(4, 4, Format::BC3_UNORM, &bc3)).expect("ok");
        assert_eq!(image.pixels[3], 0);
        assert!(image.pixels[7].abs_diff(219) <= 1, "{}", image.pixels[7]);
        assert_eq!(image.pixels[11], 255);
    }

    #[test]
    fn formats_the_old_decoder_refused() {
        // BC5 (ATI2): red and green from two alpha-style blocks; both endpoints 255 here.
        let block = [255, 255, 0, 0, 0, 0, 0, 0, 255, 255, 0, 0, 0, 0, 0, 0];
        let image = decode(&encode_for_tests(4, 4, Format::BC5_UNORM, &block)).expect("bc5");
        assert_eq!(&image.pixels[0..4], &[255, 255, 0, 255]);
        // BC7 mode 6 block: all-zero endpoints but mode bit set decodes to black, opaque
        // alpha-less texels (whatever the crate's exact value, it decodes without error).
        let mut bc7 = [0u8; 16];
        bc7[0] = 0b0100_0000;
        let image = decode(&encode_for_tests(4, 4, Format::BC7_UNORM, &bc7)).expect("bc7");
        assert_eq!(image.pixels.len(), 64);
    }

    #[test]
    fn uncompressed_layouts_and_partial_blocks() {
        // 24-bit BGR, 2×1.
        let file = encode_for_tests(2, 1, Format::B8G8R8_UNORM, &[1, 2, 3, 4, 5, 6]);
        let image = decode(&file).expect("ok");
        assert_eq!(image.pixels, vec![3, 2, 1, 255, 6, 5, 4, 255]);
        // 16-bit A1R5G5B5.
        let file = encode_for_tests(1, 1, Format::B5G5R5A1_UNORM, &0xfc00u16.to_le_bytes());
        assert_eq!(decode(&file).expect("ok").pixels, vec![255, 0, 0, 255]);
        // A 5×3 BC1 image needs 2×1 blocks; only the visible texels are kept.
        let blocks = [0u8; 16];
        let image = decode(&encode_for_tests(5, 3, Format::BC1_UNORM, &blocks)).expect("ok");
        assert_eq!(image.pixels.len(), 5 * 3 * 4);
    }

    #[test]
    fn broken_files_are_errors() {
        assert_eq!(decode(b"BM.."), Err(DdsError::NotDds));
        assert_eq!(decode(b"DDS "), Err(DdsError::Truncated));
        let file = encode_for_tests(8, 8, Format::BC1_UNORM, &[0; 8]);
        assert_eq!(decode(&file), Err(DdsError::Truncated));
        let file = encode_for_tests(4, 4, Format::BC1_UNORM, &[0; 8]);
        let header = file.len() - 8;
        let len = file.len() as u64;
        assert_eq!(
            dimensions(&file[..header], len - 1),
            Err(DdsError::Truncated)
        );
        assert_eq!(dimensions(&file[..header], len), Ok((4, 4)));
        let file = encode_for_tests(0, 8, Format::BC1_UNORM, &[]);
        assert!(decode(&file).is_err());
        // A header claiming 100,000 × 100,000 is refused before any allocation.
        let file = encode_for_tests(100_000, 100_000, Format::BC1_UNORM, &[]);
        assert_eq!(decode(&file), Err(DdsError::BadSize(100_000, 100_000)));
        // Garbage after the magic never panics.
        for len in 0..200 {
            let mut bytes = b"DDS ".to_vec();
            bytes.extend((0..len).map(|i| (i * 37 % 251) as u8));
            let _ = decode(&bytes);
            let _ = dimensions(&bytes, bytes.len() as u64);
        }
    }
}
