//! Cells: text with its escapes, floats that keep their bits, and splitting a line into cells.

use super::CsvEncoding;
use crate::i18n::Message;
use crate::model::{Text, TextEncoding};
use std::fmt::Write as _;

/// The marker of escaped text (`\~` then the text with `\` escapes).
const ESCAPED: &str = "\\~";
/// The marker of raw bytes that did not decode (`\#utf8:HEX`, `\#utf16:HEX`).
const RAW: &str = "\\#";

/// Whether a text field may hold line breaks (PmxEditor writes them as the characters `\r\n`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TextKind {
    /// Names and paths: written verbatim.
    Line,
    /// Comments and memos: CRLF as `\r\n`.
    MultiLine,
}

/// Appends `text` as a quoted cell.
pub(super) fn push_text(out: &mut String, text: &Text, kind: TextKind, encoding: CsvEncoding) {
    out.push('"');
    match text {
        Text::Str(text) => {
            if plain_ok(text, kind, encoding) {
                for ch in text.chars() {
                    match ch {
                        '"' => out.push_str("\"\""),
                        '\r' => out.push_str("\\r"),
                        '\n' => out.push_str("\\n"),
                        other => out.push(other),
                    }
                }
            } else {
                out.push_str(ESCAPED);
                for ch in text.chars() {
                    match ch {
                        '"' => out.push_str("\"\""),
                        '\\' => out.push_str("\\\\"),
                        '\r' => out.push_str("\\r"),
                        '\n' => out.push_str("\\n"),
                        '\t' => out.push_str("\\t"),
                        ch if ch.is_control() || !encodable(ch, encoding) => {
                            let _ = write!(out, "\\u{{{:x}}}", ch as u32);
                        }
                        ch => out.push(ch),
                    }
                }
            }
        }
        Text::Undecodable { encoding, raw } => {
            out.push_str(RAW);
            out.push_str(encoding.name());
            out.push(':');
            for byte in raw {
                let _ = write!(out, "{byte:02x}");
            }
        }
    }
    out.push('"');
}

/// Whether `text` can be written as it is (and reads back the same).
fn plain_ok(text: &str, kind: TextKind, encoding: CsvEncoding) -> bool {
    if text.starts_with(ESCAPED) || text.starts_with(RAW) {
        return false;
    }
    if kind == TextKind::MultiLine {
        // `\r` and `\n` are read back as line breaks, and only whole CRLFs are written so.
        if text.contains("\\r") || text.contains("\\n") {
            return false;
        }
        let bytes = text.as_bytes();
        for (at, &byte) in bytes.iter().enumerate() {
            let paired = match byte {
                b'\r' => bytes.get(at + 1) == Some(&b'\n'),
                b'\n' => at > 0 && bytes.get(at - 1) == Some(&b'\r'),
                _ => true,
            };
            if !paired {
                return false;
            }
        }
    }
    text.chars().all(|ch| {
        let line_break = kind == TextKind::MultiLine && (ch == '\r' || ch == '\n');
        (line_break || !ch.is_control()) && encodable(ch, encoding)
    })
}

/// Whether `ch` survives a trip through `encoding`.
fn encodable(ch: char, encoding: CsvEncoding) -> bool {
    match encoding {
        CsvEncoding::Utf8Bom => true,
        CsvEncoding::ShiftJis => {
            if ch.is_ascii() {
                // WHATWG Shift_JIS decodes every ASCII byte as itself (0x5C stays `\`).
                return true;
            }
            let mut buffer = [0u8; 4];
            let (bytes, _, unmappable) = encoding_rs::SHIFT_JIS.encode(ch.encode_utf8(&mut buffer));
            if unmappable {
                return false;
            }
            // Some characters encode to a byte that decodes as another (U+00A5 → 0x5C → `\`).
            let (decoded, malformed) = encoding_rs::SHIFT_JIS.decode_without_bom_handling(&bytes);
            !malformed && decoded.chars().eq(std::iter::once(ch))
        }
    }
}

/// Reads a text cell (already unquoted) written by [`push_text`] or by PmxEditor.
pub(super) fn parse_text(cell: &str, kind: TextKind) -> Result<Text, Message> {
    if let Some(escaped) = cell.strip_prefix(ESCAPED) {
        return unescape(escaped).map(Text::Str);
    }
    if let Some(raw) = cell.strip_prefix(RAW) {
        let (name, hex) = raw
            .split_once(':')
            .ok_or_else(|| Message::new("load.csv.raw_text_form"))?;
        let encoding = match name {
            "utf8" => TextEncoding::Utf8,
            "utf16" => TextEncoding::Utf16,
            other => {
                return Err(
                    Message::new("load.csv.raw_text_encoding").arg("value", format!("{other:?}"))
                );
            }
        };
        if !hex.len().is_multiple_of(2) {
            return Err(Message::new("load.csv.raw_text_odd"));
        }
        let raw = (0..hex.len())
            .step_by(2)
            .map(|at| {
                hex.get(at..at + 2)
                    .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                    .ok_or_else(|| Message::new("load.csv.raw_text_hex").arg("at", at))
            })
            .collect::<Result<Vec<u8>, Message>>()?;
        return Ok(Text::Undecodable { encoding, raw });
    }
    Ok(Text::Str(match kind {
        TextKind::Line => cell.to_owned(),
        TextKind::MultiLine => cell.replace("\\r", "\r").replace("\\n", "\n"),
    }))
}

fn unescape(escaped: &str) -> Result<String, Message> {
    let mut text = String::with_capacity(escaped.len());
    let mut chars = escaped.chars();
    while let Some(ch) = chars.next() {
        if ch != '\\' {
            text.push(ch);
            continue;
        }
        match chars.next() {
            Some('\\') => text.push('\\'),
            Some('r') => text.push('\r'),
            Some('n') => text.push('\n'),
            Some('t') => text.push('\t'),
            Some('u') => {
                if chars.next() != Some('{') {
                    return Err(Message::new("load.csv.escape_u"));
                }
                let hex: String = chars.by_ref().take_while(|&c| c != '}').take(9).collect();
                let ch = u32::from_str_radix(&hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .ok_or_else(|| {
                        Message::new("load.csv.escape_not_char")
                            .arg("value", format!("\\u{{{hex}}}"))
                    })?;
                text.push(ch);
            }
            Some(other) => {
                return Err(
                    Message::new("load.csv.escape_unknown").arg("value", format!("\\{other}"))
                );
            }
            None => return Err(Message::new("load.csv.escape_lone")),
        }
    }
    Ok(text)
}

/// Appends `value` so that [`parse_f32`] gives back the same bits.
pub(super) fn push_f32(out: &mut String, value: f32) {
    if value.is_nan() && value.to_bits() != f32::NAN.to_bits() {
        let _ = write!(out, "NaN:{:08x}", value.to_bits());
    } else {
        // Display is the shortest text that parses back to the same value (`-0`, `inf`, `NaN`).
        let _ = write!(out, "{value}");
    }
}

/// Parses a float as [`push_f32`] writes it, or as .NET does (`Infinity`, `∞`, `1E-05`).
pub(super) fn parse_f32(cell: &str) -> Result<f32, Message> {
    let cell = cell.trim();
    if let Some(bits) = cell.strip_prefix("NaN:") {
        return u32::from_str_radix(bits, 16)
            .map(f32::from_bits)
            .map_err(|_| Message::new("load.csv.nan_bits").arg("cell", format!("{cell:?}")));
    }
    match cell {
        "NaN" => return Ok(f32::NAN),
        "∞" | "+∞" => return Ok(f32::INFINITY),
        "-∞" => return Ok(f32::NEG_INFINITY),
        _ => {}
    }
    cell.parse::<f32>()
        .map_err(|_| Message::new("load.csv.not_number").arg("cell", format!("{cell:?}")))
}

/// Splits a line into cells: `"..."` quoted (with `""` for `"`), or bare up to the next comma.
pub(super) fn split_cells(line: &str) -> Result<Vec<String>, (usize, Message)> {
    let mut cells = Vec::new();
    let mut rest = line;
    loop {
        let column = cells.len() + 1;
        if let Some(quoted) = rest.strip_prefix('"') {
            let mut cell = String::new();
            let mut chars = quoted.char_indices();
            let after = loop {
                match chars.next() {
                    Some((at, '"')) => {
                        if quoted[at + 1..].starts_with('"') {
                            cell.push('"');
                            chars.next();
                        } else {
                            break &quoted[at + 1..];
                        }
                    }
                    Some((_, ch)) => cell.push(ch),
                    None => return Err((column, Message::new("load.csv.quote_not_closed"))),
                }
            };
            cells.push(cell);
            match after.strip_prefix(',') {
                Some(next) => rest = next,
                None if after.is_empty() => return Ok(cells),
                None => {
                    return Err((column, Message::new("load.csv.text_after_quote")));
                }
            }
        } else {
            match rest.split_once(',') {
                Some((cell, next)) => {
                    cells.push(cell.to_owned());
                    rest = next;
                }
                None => {
                    cells.push(rest.to_owned());
                    return Ok(cells);
                }
            }
        }
    }
}
