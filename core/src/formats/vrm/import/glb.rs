//! The GLB container: the 12-byte header and the JSON and BIN chunks, every length checked
//! against the bytes present (GLB 2.0, glTF spec § "Binary glTF Layout").
//!
//! As lenient as three.js's GLTFLoader (what three-vrm reads with) where a writer got a length
//! wrong but the bytes are there: a header length that is not the file's, a BIN chunk cut short
//! by the end of the file (GLTFLoader slices it), a few stray bytes after the last chunk, and a
//! JSON chunk that starts with a byte order mark (TextDecoder drops it) or is padded with NULs
//! instead of spaces. Each is read with a note.

use crate::formats::bytes::{Place, u32_at};
use crate::formats::{LoadNote, ReadError};
use crate::i18n::Message;

/// `glTF` in the first four bytes.
pub const GLB_MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;
const HEADER_LEN: usize = 12;
/// UTF-8's byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";
const CHUNK_HEADER_LEN: usize = 8;

/// The two chunks of a GLB and where they start in the file.
#[derive(Debug, Clone)]
pub(super) struct GlbChunks<'a> {
    pub json: &'a [u8],
    pub json_offset: usize,
    pub bin: Option<&'a [u8]>,
    pub bin_offset: usize,
    /// What was read leniently (see the module documentation).
    pub notes: Vec<LoadNote>,
}

const HEADER: Place = Place::section("glb header");
const CHUNKS: Place = Place::section("glb chunks");
const JSON_CHUNK: Place = Place::section("glb json");

/// Splits a GLB into its chunks. A text glTF (`{` first) is returned as one JSON chunk without
/// a BIN, so the same reader takes both.
pub(super) fn split(bytes: &[u8]) -> Result<GlbChunks<'_>, ReadError> {
    let text = bytes.strip_prefix(BOM).unwrap_or(bytes);
    if text.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        let mut notes = Vec::new();
        let (json, json_offset) = trim_json(bytes, 0, &mut notes);
        return Ok(GlbChunks {
            json,
            json_offset,
            bin: None,
            bin_offset: 0,
            notes,
        });
    }
    if bytes.len() < HEADER_LEN {
        return Err(HEADER.malformed(
            "",
            0,
            Message::new("load.vrm.glb_too_short")
                .arg("length", bytes.len())
                .arg("needed", HEADER_LEN),
        ));
    }
    if &bytes[..4] != GLB_MAGIC {
        return Err(HEADER.malformed("magic", 0, Message::new("load.vrm.glb_not_glb")));
    }
    let version = u32_at(bytes, 4).unwrap_or(0);
    if version != 2 {
        return Err(ReadError::Unsupported {
            location: HEADER.at("version", 4),
            message: Message::new("load.vrm.glb_version").arg("version", version),
        });
    }
    let mut notes = Vec::new();
    let declared = u32_at(bytes, 8).unwrap_or(0) as usize;
    // GLTFLoader walks the chunks up to the declared length; a declared length past the end of
    // the file (a writer that counted wrong, or a file cut short) is read to the file's end.
    let end = if declared > bytes.len() || declared < HEADER_LEN {
        notes.push(note(
            HEADER.at("length", 8),
            Message::new("load.vrm.glb_length_mismatch")
                .arg("declared", declared)
                .arg("actual", bytes.len()),
            false,
        ));
        bytes.len()
    } else {
        declared
    };
    // Bytes after the declared length are not part of the GLB (the spec's length is binding).
    let bytes = &bytes[..end];
    let mut offset = HEADER_LEN;
    let mut json = None;
    let mut bin = None;
    let mut index = 0usize;
    while offset < bytes.len() {
        let (Some(length), Some(kind)) = (u32_at(bytes, offset), u32_at(bytes, offset + 4)) else {
            if json.is_some() {
                // Stray padding after the last chunk: nothing a chunk could hold.
                notes.push(note(
                    CHUNKS.with_element(index).at("header", offset),
                    Message::new("load.vrm.glb_stray_bytes").arg("count", bytes.len() - offset),
                    false,
                ));
                break;
            }
            return Err(CHUNKS.with_element(index).malformed(
                "header",
                offset,
                Message::new("load.vrm.glb_chunk_header_short")
                    .arg("needed", CHUNK_HEADER_LEN)
                    .arg("left", bytes.len() - offset),
            ));
        };
        let start = offset + CHUNK_HEADER_LEN;
        let declared_end = start.saturating_add(length as usize);
        let end = if declared_end <= bytes.len() {
            declared_end
        } else if kind == CHUNK_BIN && index > 0 {
            // GLTFLoader slices the BIN chunk, which stops at the end of the file; views
            // inside what is there still read.
            notes.push(note(
                CHUNKS.with_element(index).at("length", offset),
                Message::new("load.vrm.glb_bin_short")
                    .arg("declared", length)
                    .arg("actual", bytes.len() - start.min(bytes.len())),
                true,
            ));
            bytes.len()
        } else {
            return Err(CHUNKS.with_element(index).malformed(
                "length",
                offset,
                Message::new("load.vrm.glb_chunk_short")
                    .arg("declared", length)
                    .arg("actual", bytes.len().saturating_sub(start)),
            ));
        };
        let start = start.min(end);
        let data = &bytes[start..end];
        match (index, kind) {
            (0, CHUNK_JSON) => json = Some((data, start)),
            (0, _) => {
                return Err(CHUNKS.with_element(0).malformed(
                    "type",
                    offset + 4,
                    Message::new("load.vrm.glb_first_not_json")
                        .arg("kind", format!("0x{kind:08x}")),
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
        return Err(CHUNKS.with_element(0).malformed(
            "",
            HEADER_LEN,
            Message::new("load.vrm.glb_no_json"),
        ));
    };
    let (json, json_offset) = trim_json(json, json_offset, &mut notes);
    Ok(GlbChunks {
        json,
        json_offset,
        bin: bin.map(|(data, _)| data),
        bin_offset: bin.map_or(0, |(_, start)| start),
        notes,
    })
}

fn note(location: crate::formats::Location, message: Message, lost: bool) -> LoadNote {
    LoadNote {
        location,
        message,
        lost,
    }
}

/// The JSON chunk without a leading byte order mark (TextDecoder, which GLTFLoader decodes
/// with, drops it) and without trailing NULs (a padding some writers use instead of the
/// spaces the spec asks for, which JSON parsers refuse).
fn trim_json<'a>(json: &'a [u8], offset: usize, notes: &mut Vec<LoadNote>) -> (&'a [u8], usize) {
    let (json, offset) = match json.strip_prefix(BOM) {
        Some(rest) => {
            notes.push(note(
                JSON_CHUNK.at("", offset),
                Message::new("load.vrm.json_bom"),
                false,
            ));
            (rest, offset + BOM.len())
        }
        None => (json, offset),
    };
    let kept = json.len() - json.iter().rev().take_while(|&&b| b == 0).count();
    if kept < json.len() {
        notes.push(note(
            JSON_CHUNK.at("", offset + kept),
            Message::new("load.vrm.json_nul_padding").arg("count", json.len() - kept),
            false,
        ));
    }
    (&json[..kept], offset)
}
