//! The GLB container: the 12-byte header and the JSON and BIN chunks, every length checked
//! against the bytes present (GLB 2.0, glTF spec § "Binary glTF Layout").

use crate::formats::ReadError;
use crate::formats::bytes::{Place, u32_at};

/// `glTF` in the first four bytes.
pub const GLB_MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;
const HEADER_LEN: usize = 12;
const CHUNK_HEADER_LEN: usize = 8;

/// The two chunks of a GLB and where they start in the file.
#[derive(Debug, Clone, Copy)]
pub(super) struct GlbChunks<'a> {
    pub json: &'a [u8],
    pub json_offset: usize,
    pub bin: Option<&'a [u8]>,
    pub bin_offset: usize,
}

const HEADER: Place = Place::section("glb header");
const CHUNKS: Place = Place::section("glb chunks");

/// Splits a GLB into its chunks. A text glTF (`{` first) is returned as one JSON chunk without
/// a BIN, so the same reader takes both.
pub(super) fn split(bytes: &[u8]) -> Result<GlbChunks<'_>, ReadError> {
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        return Ok(GlbChunks {
            json: bytes,
            json_offset: 0,
            bin: None,
            bin_offset: 0,
        });
    }
    if bytes.len() < HEADER_LEN {
        return Err(HEADER.malformed(
            "",
            0,
            format!(
                "the file is {} bytes long; a GLB header needs {HEADER_LEN}",
                bytes.len()
            ),
        ));
    }
    if &bytes[..4] != GLB_MAGIC {
        return Err(HEADER.malformed(
            "magic",
            0,
            "not a GLB file (the first four bytes are not \"glTF\")",
        ));
    }
    let version = u32_at(bytes, 4).unwrap_or(0);
    if version != 2 {
        return Err(ReadError::Unsupported {
            location: HEADER.at("version", 4),
            message: format!("GLB version {version}; only version 2 (glTF 2.0) is read").into(),
        });
    }
    let declared = u32_at(bytes, 8).unwrap_or(0) as usize;
    if declared > bytes.len() {
        return Err(HEADER.malformed(
            "length",
            8,
            format!(
                "the header declares {declared} bytes but the file has {} (truncated?)",
                bytes.len()
            ),
        ));
    }
    if declared < HEADER_LEN {
        return Err(HEADER.malformed(
            "length",
            8,
            format!("the header declares {declared} bytes, less than the header itself"),
        ));
    }
    // Bytes after the declared length are not part of the GLB (the spec's length is binding).
    let bytes = &bytes[..declared];
    let mut offset = HEADER_LEN;
    let mut json = None;
    let mut bin = None;
    let mut index = 0usize;
    while offset < bytes.len() {
        let (Some(length), Some(kind)) = (u32_at(bytes, offset), u32_at(bytes, offset + 4)) else {
            return Err(CHUNKS.with_element(index).malformed(
                "header",
                offset,
                format!(
                    "a chunk header needs {CHUNK_HEADER_LEN} bytes; {} are left",
                    bytes.len() - offset
                ),
            ));
        };
        let start = offset + CHUNK_HEADER_LEN;
        let end = start
            .checked_add(length as usize)
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| {
                CHUNKS.with_element(index).malformed(
                    "length",
                    offset,
                    format!(
                        "the chunk declares {length} bytes but only {} follow",
                        bytes.len() - start
                    ),
                )
            })?;
        let data = &bytes[start..end];
        match (index, kind) {
            (0, CHUNK_JSON) => json = Some((data, start)),
            (0, _) => {
                return Err(CHUNKS.with_element(0).malformed(
                    "type",
                    offset + 4,
                    format!("the first chunk must be JSON, not type 0x{kind:08x}"),
                ));
            }
            (_, CHUNK_BIN) if bin.is_none() => bin = Some((data, start)),
            // Unknown chunk types must be ignored (spec); a second BIN is one too.
            _ => {}
        }
        // Chunks are 4-byte aligned; a writer that forgot the padding still ends at `end`.
        offset = end;
        index += 1;
    }
    let Some((json, json_offset)) = json else {
        return Err(CHUNKS
            .with_element(0)
            .malformed("", HEADER_LEN, "the GLB has no JSON chunk"));
    };
    Ok(GlbChunks {
        json,
        json_offset,
        bin: bin.map(|(data, _)| data),
        bin_offset: bin.map_or(0, |(_, start)| start),
    })
}
