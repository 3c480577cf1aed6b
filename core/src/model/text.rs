//! Text fields: decoded strings, or the raw bytes of text that does not decode.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::fmt;

/// PMX text encodings (header byte 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum TextEncoding {
    #[default]
    Utf16,
    Utf8,
}

impl TextEncoding {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf16 => "utf16",
            TextEncoding::Utf8 => "utf8",
        }
    }
}

/// A name, comment, path or memo.
///
/// Text that does not decode in the file's encoding (a lone UTF-16 surrogate, invalid UTF-8, an
/// odd UTF-16 byte count) is kept as the raw bytes, so that saving it in the same encoding gives
/// the same bytes; shown, it is decoded lossily.
#[derive(Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Text {
    Str(String),
    Undecodable {
        /// The encoding the bytes were read in.
        encoding: TextEncoding,
        /// The bytes, as lowercase hex.
        #[serde(with = "hex_bytes")]
        raw: Vec<u8>,
    },
}

impl Default for Text {
    fn default() -> Self {
        Text::Str(String::new())
    }
}

impl Text {
    /// Decodes `bytes` in `encoding`, keeping them raw when they do not decode.
    #[must_use]
    pub fn decode(bytes: &[u8], encoding: TextEncoding) -> Self {
        match encoding {
            TextEncoding::Utf8 => match std::str::from_utf8(bytes) {
                Ok(text) => Text::Str(text.to_owned()),
                Err(_) => Text::Undecodable {
                    encoding,
                    raw: bytes.to_vec(),
                },
            },
            TextEncoding::Utf16 => {
                if !bytes.len().is_multiple_of(2) {
                    return Text::Undecodable {
                        encoding,
                        raw: bytes.to_vec(),
                    };
                }
                let units = bytes
                    .chunks_exact(2)
                    .map(|pair| u16::from_le_bytes([pair[0], pair[1]]));
                let mut text = String::with_capacity(bytes.len() / 2);
                for decoded in char::decode_utf16(units) {
                    match decoded {
                        Ok(ch) => text.push(ch),
                        Err(_) => {
                            return Text::Undecodable {
                                encoding,
                                raw: bytes.to_vec(),
                            };
                        }
                    }
                }
                Text::Str(text)
            }
        }
    }

    /// The text for display (undecodable bytes are decoded lossily).
    #[must_use]
    pub fn as_str(&self) -> Cow<'_, str> {
        match self {
            Text::Str(text) => Cow::Borrowed(text),
            Text::Undecodable {
                encoding: TextEncoding::Utf8,
                raw,
            } => String::from_utf8_lossy(raw),
            Text::Undecodable {
                encoding: TextEncoding::Utf16,
                raw,
            } => {
                let units = raw.chunks(2).map(|pair| {
                    u16::from_le_bytes([
                        pair.first().copied().unwrap_or(0),
                        pair.get(1).copied().unwrap_or(0),
                    ])
                });
                Cow::Owned(
                    char::decode_utf16(units)
                        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
                        .collect(),
                )
            }
        }
    }

    /// Whether the text decoded cleanly.
    #[must_use]
    pub fn is_decodable(&self) -> bool {
        matches!(self, Text::Str(_))
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        match self {
            Text::Str(text) => text.is_empty(),
            Text::Undecodable { raw, .. } => raw.is_empty(),
        }
    }

    /// Encodes for writing. Undecodable text written in its own encoding gives its raw bytes
    /// back; in the other encoding it is converted lossily (`lossy` is then `true`).
    pub fn encode_into(&self, encoding: TextEncoding, out: &mut Vec<u8>) -> bool {
        match self {
            Text::Str(text) => {
                encode_str(text, encoding, out);
                false
            }
            Text::Undecodable { encoding: own, raw } if *own == encoding => {
                out.extend_from_slice(raw);
                false
            }
            Text::Undecodable { .. } => {
                encode_str(&self.as_str(), encoding, out);
                true
            }
        }
    }
}

fn encode_str(text: &str, encoding: TextEncoding, out: &mut Vec<u8>) {
    match encoding {
        TextEncoding::Utf8 => out.extend_from_slice(text.as_bytes()),
        TextEncoding::Utf16 => {
            for unit in text.encode_utf16() {
                out.extend_from_slice(&unit.to_le_bytes());
            }
        }
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Self {
        Text::Str(text.to_owned())
    }
}

impl From<String> for Text {
    fn from(text: String) -> Self {
        Text::Str(text)
    }
}

impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_str())
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Text::Str(text) => fmt::Debug::fmt(text, f),
            Text::Undecodable { encoding, raw } => {
                write!(f, "Undecodable({}, {:02x?})", encoding.name(), raw)
            }
        }
    }
}

pub(crate) mod hex_bytes {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        let mut hex = String::with_capacity(bytes.len() * 2);
        for byte in bytes {
            hex.push_str(&format!("{byte:02x}"));
        }
        serializer.serialize_str(&hex)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        let hex = String::deserialize(deserializer)?;
        if hex.len() % 2 != 0 {
            return Err(serde::de::Error::custom("hex text has an odd length"));
        }
        (0..hex.len())
            .step_by(2)
            .map(|at| {
                hex.get(at..at + 2)
                    .and_then(|pair| u8::from_str_radix(pair, 16).ok())
                    .ok_or_else(|| serde::de::Error::custom("invalid hex digit"))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogate_keeps_raw_bytes() {
        let bytes = [0x00, 0xD8, 0x41, 0x00]; // lone high surrogate, then 'A'
        let text = Text::decode(&bytes, TextEncoding::Utf16);
        assert!(!text.is_decodable());
        let mut out = Vec::new();
        assert!(!text.encode_into(TextEncoding::Utf16, &mut out));
        assert_eq!(out, bytes);
        let json = serde_json::to_string(&text).unwrap_or_default();
        let back: Text = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back, text);
    }

    #[test]
    fn japanese_round_trips_in_both_encodings() {
        for encoding in [TextEncoding::Utf8, TextEncoding::Utf16] {
            let text = Text::from("センター");
            let mut out = Vec::new();
            text.encode_into(encoding, &mut out);
            assert_eq!(Text::decode(&out, encoding), text);
        }
    }
}
