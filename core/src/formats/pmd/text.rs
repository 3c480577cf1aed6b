//! Shift-JIS (Windows code page 932, as `encoding_rs` implements it) for PMD's fixed-size fields.

use encoding_rs::SHIFT_JIS;

/// How a field decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decoded {
    /// Valid Shift-JIS.
    Exact(String),
    /// The field ended inside a two-byte character (a tool cut the name at the byte limit):
    /// the lone lead byte was dropped.
    CutCharacter(String),
    /// Bytes that are not Shift-JIS were replaced with U+FFFD.
    Lossy(String),
}

impl Decoded {
    #[must_use]
    pub fn into_text(self) -> String {
        match self {
            Decoded::Exact(text) | Decoded::CutCharacter(text) | Decoded::Lossy(text) => text,
        }
    }
}

/// Whether `byte` starts a two-byte Shift-JIS character.
fn is_lead_byte(byte: u8) -> bool {
    matches!(byte, 0x81..=0x9F | 0xE0..=0xFC)
}

/// Decodes the bytes of a field.
#[must_use]
pub fn decode(bytes: &[u8]) -> Decoded {
    if let Some(text) = SHIFT_JIS.decode_without_bom_handling_and_without_replacement(bytes) {
        return Decoded::Exact(text.into_owned());
    }
    if let Some((&last, head)) = bytes.split_last()
        && is_lead_byte(last)
        && let Some(text) = SHIFT_JIS.decode_without_bom_handling_and_without_replacement(head)
    {
        return Decoded::CutCharacter(text.into_owned());
    }
    let (text, _) = SHIFT_JIS.decode_without_bom_handling(bytes);
    Decoded::Lossy(text.into_owned())
}

/// The result of encoding text for a field.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Encoded {
    pub bytes: Vec<u8>,
    /// Characters Shift-JIS cannot hold (written as `?`).
    pub unmappable: Vec<char>,
    /// The text was cut at a character boundary to fit the field.
    pub cut: bool,
}

/// Encodes `text` as Shift-JIS in at most `limit` bytes, cutting at a character boundary.
/// Characters Shift-JIS cannot hold become `?` (`encoding_rs` would write HTML entities).
#[must_use]
pub fn encode(text: &str, limit: usize) -> Encoded {
    let mut encoded = Encoded::default();
    let mut utf8 = [0u8; 4];
    for ch in text.chars() {
        let (bytes, _, unmappable) = SHIFT_JIS.encode(ch.encode_utf8(&mut utf8));
        let bytes: &[u8] = if unmappable {
            encoded.unmappable.push(ch);
            b"?"
        } else {
            &bytes
        };
        if encoded.bytes.len() + bytes.len() > limit {
            encoded.cut = true;
            break;
        }
        encoded.bytes.extend_from_slice(bytes);
    }
    encoded
}

/// Encodes `text` with no byte limit, replacing unmappable characters with `?`.
#[must_use]
pub fn encode_lossy(text: &str) -> Vec<u8> {
    encode(text, usize::MAX).bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn japanese_round_trips() {
        let encoded = encode("右ひざ", 20);
        assert_eq!(encoded.bytes, [0x89, 0x45, 0x82, 0xD0, 0x82, 0xB4]);
        assert!(!encoded.cut && encoded.unmappable.is_empty());
        assert_eq!(decode(&encoded.bytes), Decoded::Exact("右ひざ".into()));
    }

    #[test]
    fn cut_at_character_boundary() {
        // 11 two-byte characters are 22 bytes: the 20-byte field keeps 10 of them.
        let encoded = encode("あいうえおかきくけこさ", 20);
        assert_eq!(encoded.bytes.len(), 20);
        assert!(encoded.cut);
        assert_eq!(decode(&encoded.bytes).into_text(), "あいうえおかきくけこ");
        // 19 bytes of room: "a" + 9 characters, never half a character.
        let encoded = encode("aあいうえおかきくけこ", 20);
        assert_eq!(encoded.bytes.len(), 19);
    }

    #[test]
    fn unmappable_characters_become_question_marks() {
        let encoded = encode("a😀b", 20);
        assert_eq!(encoded.bytes, b"a?b");
        assert_eq!(encoded.unmappable, vec!['😀']);
    }

    #[test]
    fn lone_lead_byte_at_the_end_is_a_cut_character() {
        assert_eq!(
            decode(&[b'N', b'i', 0x83]),
            Decoded::CutCharacter("Ni".into())
        );
        assert!(matches!(decode(&[0xFF, b'a']), Decoded::Lossy(_)));
    }
}
