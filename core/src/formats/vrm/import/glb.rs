//! The GLB container: the 12-byte header and the JSON and BIN chunks, every length checked
//! against the bytes present (GLB 2.0, glTF spec § "Binary glTF Layout").

use crate::formats::{Location, ReadError};

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

fn at(
    section: &'static str,
    element: Option<usize>,
    field: &'static str,
    offset: usize,
) -> Location {
    Location {
        section,
        element,
        sub: None,
        field,
        offset,
    }
}

fn malformed(location: Location, message: impl Into<String>) -> ReadError {
    ReadError::Malformed {
        location,
        message: message.into(),
    }
}

fn u32_at(bytes: &[u8], offset: usize) -> Option<u32> {
    let word = bytes.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
}

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
        return Err(malformed(
            at("glb header", None, "", 0),
            format!(
                "the file is {} bytes long; a GLB header needs {HEADER_LEN}",
                bytes.len()
            ),
        ));
    }
    if &bytes[..4] != GLB_MAGIC {
        return Err(malformed(
            at("glb header", None, "magic", 0),
            "not a GLB file (the first four bytes are not \"glTF\")",
        ));
    }
    let version = u32_at(bytes, 4).unwrap_or(0);
    if version != 2 {
        return Err(ReadError::Unsupported {
            location: at("glb header", None, "version", 4),
            message: format!("GLB version {version}; only version 2 (glTF 2.0) is read"),
        });
    }
    let declared = u32_at(bytes, 8).unwrap_or(0) as usize;
    if declared > bytes.len() {
        return Err(malformed(
            at("glb header", None, "length", 8),
            format!(
                "the header declares {declared} bytes but the file has {} (truncated?)",
                bytes.len()
            ),
        ));
    }
    if declared < HEADER_LEN {
        return Err(malformed(
            at("glb header", None, "length", 8),
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
            return Err(malformed(
                at("glb chunks", Some(index), "header", offset),
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
                malformed(
                    at("glb chunks", Some(index), "length", offset),
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
                return Err(malformed(
                    at("glb chunks", Some(0), "type", offset + 4),
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
        return Err(malformed(
            at("glb chunks", Some(0), "", HEADER_LEN),
            "the GLB has no JSON chunk",
        ));
    };
    Ok(GlbChunks {
        json,
        json_offset,
        bin: bin.map(|(data, _)| data),
        bin_offset: bin.map_or(0, |(_, start)| start),
    })
}
