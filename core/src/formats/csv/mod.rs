//! PmxEditor's CSV text form of a model (File > テキスト(CSV)変換), read and written so that
//! PMX → CSV → PMX gives the same bytes.
//!
//! # The format
//!
//! One element a line, the first column naming the row kind (`PmxVertex,0,...`); lines that
//! start with `;` are comments (PmxEditor writes one before each block, naming the columns in
//! Japanese, and we do the same). Text cells are quoted with `"` (a `"` inside doubled), numbers
//! are bare, flags are `0`/`1`, angles in the standard columns are degrees, and most
//! references are by NAME (a bone's parent, a vertex's weight bones, a rigid body's bone...).
//! Lines end in CRLF, as PmxEditor (a Windows program) writes them.
//!
//! ## Where each row's columns come from
//!
//! PmxEditor itself was not available. Its column orders were taken from projects that read
//! or write its CSV, two independent ones wherever they exist:
//!
//! - `PmxHeader`, `PmxModelInfo`, `PmxVertex`, `PmxFace`, `PmxMaterial`, `PmxBone`,
//!   `PmxMorph`, `PmxVertexMorph`, `PmxMaterialMorph`, `PmxNode`, `PmxNodeItem`, `PmxBody`,
//!   `PmxJoint`: the PmxEditor-compatible CSV writer of the Unity tool Poly_Ling
//!   (`PMX/Export/PMXCSVWriter.cs`, whose comment lines carry PmxEditor's Japanese column
//!   names) and, independently, a JavaScript PMX writer (`pmx.js`, `toCSV` of each element).
//!   The two agree on every one of these rows.
//! - `PmxMaterial` also from mmd_tools' `CSVImporter` (the 30 values after the kind, memo
//!   newlines written as the two characters `\r` `\n`); `PmxBone` and `PmxIKLink` also from a
//!   Blender MMD helper that reads PmxEditor's bone CSV (`LoadBoneSettingsFromCSV`: the 40
//!   columns and the 10 IK link columns, with their Japanese names).
//! - `PmxUVMorph`, `PmxBoneMorph`, `PmxGroupMorph`, `PmxImpulseMorph`, `PmxIKLink` and
//!   `PmxSoftBody`: Poly_Ling alone (one source; `PmxImpulseMorph` names its rigid body by
//!   index there, unlike the other references, and we follow it).
//! - Designed here in the same style, because no source shows them: `PmxFlipMorph` (the
//!   columns of `PmxGroupMorph`), `PmxSoftBodyAnchor` (`親SoftBody名,剛体名,頂点Index,
//!   Near(0/1)`) and `PmxSoftBodyPin` (`親SoftBody名,頂点Index`).
//!
//! ## What we add, and where
//!
//! PmxEditor's columns cannot carry everything a PMX holds: names may repeat or be empty (so a
//! reference by name is ambiguous), references may dangle, angles in degrees do not convert
//! back to the same radians bit for bit, the texture list is implied by the paths materials
//! name, and some bits (unknown bone flags, a toon byte past 10) have no column. So:
//!
//! - **Extra columns at the end of a row** (after every standard column, so a reader that
//!   takes the standard columns by position still reads them): the raw indices behind every
//!   reference by name (`-1` for none), the raw flag bits, the exact radians, a material's
//!   face index count, a display frame's special flag, the header's index sizes. Their names
//!   are in the comment line, after the standard ones, each starting with `@`. A row with
//!   exactly the standard columns (PmxEditor's) is read by name; a row with the extras is
//!   read from the extras (the standard columns that repeat them are then not consulted).
//! - **Rows of our own** start with `;@` (a comment to PmxEditor-style readers, which skip
//!   every line starting with `;`): `;@PmxTexture,index,path` lists the texture table in
//!   order. Without them (a PmxEditor file) the table is built from the materials' paths in
//!   order of first use, and `toon01.bmp`..`toon10.bmp` mean the shared toons.
//! - **Faces**: PmxEditor lists faces under their material's name. When every material row
//!   has our face index count, faces are kept in file order (exactly as stored, even when the
//!   counts do not add up); otherwise they are grouped by material name and the counts are
//!   made from them.
//!
//! ## Text cells
//!
//! Text is written as it is (quoted) when it can be: names and paths verbatim (a path's `\`
//! stays one `\`), comments and memos with each CRLF as the two characters `\r\n` (as
//! PmxEditor writes them). Text that cannot be written that way (control characters, a
//! comment holding the characters `\r` or `\n` itself, characters the file's encoding
//! cannot hold, text starting with one of our markers) is written escaped after the marker
//! `\~`: `\\`, `\r`, `\n`, `\t` and `\u{HEX}`. Text kept as raw bytes because it did not
//! decode ([`Text::Undecodable`]) is written `\#utf8:HEX` or `\#utf16:HEX`.
//!
//! ## Numbers
//!
//! Floats are written with Rust's shortest round-trip formatting (`-0` for negative zero,
//! `inf`, `-inf`, `NaN`; a NaN other than the canonical one as `NaN:` and its 8 hex digits of
//! bits), so every `f32` reads back to the same bits. `Infinity`, `∞` and exponents (as .NET
//! writes them) are read too.
//!
//! ## Encoding
//!
//! PmxEditor writes Shift_JIS (CP932). We write UTF-8 with a byte order mark by default
//! ([`CsvEncoding::Utf8Bom`]): it holds every character, so no text needs escaping for the
//! encoding, and the BOM tells Windows programs (Excel, PmxEditor's .NET reader) it is UTF-8.
//! [`CsvEncoding::ShiftJis`] writes what PmxEditor writes, with the characters Shift_JIS
//! cannot hold escaped as above. Reading takes a UTF-8 BOM, else valid UTF-8, else Shift_JIS.
//!
//! The reader never allocates by a number in the file: elements come one a line, a vertex's
//! `頂点Index` must be the next index, and references are stored as they are (dangling ones
//! included, for the validators).

mod columns;
mod read;
mod text;
mod write;

#[cfg(test)]
mod tests;

pub use read::{read, read_csv};
pub use write::{write, write_csv};

use crate::formats::error::WriteError;
use crate::model::Model;

/// The text encoding of a CSV file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CsvEncoding {
    /// UTF-8 with a byte order mark: every character as it is.
    #[default]
    Utf8Bom,
    /// Shift_JIS (CP932), as PmxEditor writes; characters it cannot hold are escaped.
    ShiftJis,
}

/// How to write a CSV file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CsvSaveOptions {
    pub encoding: CsvEncoding,
}

/// `model` as the bytes of a CSV file in `options`' encoding.
pub fn write_bytes(model: &Model, options: &CsvSaveOptions) -> Result<Vec<u8>, WriteError> {
    let text = write::write_with(model, options.encoding);
    Ok(match options.encoding {
        CsvEncoding::Utf8Bom => {
            let mut bytes = Vec::with_capacity(text.len() + 3);
            bytes.extend_from_slice(b"\xEF\xBB\xBF");
            bytes.extend_from_slice(text.as_bytes());
            bytes
        }
        CsvEncoding::ShiftJis => {
            let (bytes, _, unmappable) = encoding_rs::SHIFT_JIS.encode(&text);
            if unmappable {
                // The writer escapes every character Shift_JIS cannot hold; reaching this is
                // a bug in that check, and writing HTML entities instead would lose text.
                return Err(WriteError::Unrepresentable {
                    path: "csv".into(),
                    message: "a character Shift_JIS cannot hold was not escaped".into(),
                });
            }
            bytes.into_owned()
        }
    })
}

/// Whether `bytes` look like a PmxEditor CSV file: (after a UTF-8 byte order mark) a line
/// starting with `;Pmx` or `Pmx` and a comma, the way every row and comment of the format
/// starts.
#[must_use]
pub fn looks_like_csv(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let bytes = bytes.strip_prefix(b";").unwrap_or(bytes);
    let Some(rest) = bytes.strip_prefix(b"Pmx") else {
        return false;
    };
    let name_end = rest
        .iter()
        .position(|b| !b.is_ascii_alphanumeric())
        .unwrap_or(rest.len());
    rest.get(name_end) == Some(&b',')
}
