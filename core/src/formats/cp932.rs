//! Shift-JIS (cp932) names as VMD and VPD files store them, and matching them to a model's
//! names even when a fixed-size field cut a name in the middle of a character.

use encoding_rs::SHIFT_JIS;
use std::borrow::Cow;
use std::collections::HashMap;

/// A name read from a Shift-JIS field.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SjisName {
    /// The bytes up to the first NUL (or the whole field).
    pub raw: Vec<u8>,
    /// The decoded text. When `cut`, the incomplete last character is left out; bytes that do not
    /// decode at all show as U+FFFD.
    pub text: String,
    /// The field ended in the middle of a two-byte character.
    pub cut: bool,
    /// Every byte decoded (apart from a cut last character).
    pub decodable: bool,
}

impl SjisName {
    /// Reads a fixed-size field: the name ends at the first NUL (MMD fills the rest with NUL or
    /// 0xFD bytes).
    #[must_use]
    pub fn from_field(field: &[u8]) -> Self {
        let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
        Self::from_bytes(&field[..end])
    }

    /// Decodes `raw` (no NUL handling).
    #[must_use]
    pub fn from_bytes(raw: &[u8]) -> Self {
        if let Some(text) = decode_strict(raw) {
            return Self {
                raw: raw.to_vec(),
                text: text.into_owned(),
                cut: false,
                decodable: true,
            };
        }
        if let Some((&last, head)) = raw.split_last()
            && is_lead_byte(last)
            && let Some(text) = decode_strict(head)
        {
            return Self {
                raw: raw.to_vec(),
                text: text.into_owned(),
                cut: true,
                decodable: true,
            };
        }
        let (text, _) = SHIFT_JIS.decode_without_bom_handling(raw);
        Self {
            raw: raw.to_vec(),
            text: text.into_owned(),
            cut: false,
            decodable: false,
        }
    }

    /// A name from text, encoded to Shift-JIS (`None` when a character has no Shift-JIS code).
    #[must_use]
    pub fn from_text(text: &str) -> Option<Self> {
        let raw = encode(text)?;
        Some(Self {
            raw,
            text: text.to_owned(),
            cut: false,
            decodable: true,
        })
    }
}

fn decode_strict(bytes: &[u8]) -> Option<Cow<'_, str>> {
    SHIFT_JIS.decode_without_bom_handling_and_without_replacement(bytes)
}

/// Whether `byte` starts a two-byte Shift-JIS (cp932) character.
#[must_use]
pub fn is_lead_byte(byte: u8) -> bool {
    matches!(byte, 0x81..=0x9F | 0xE0..=0xFC)
}

/// `text` in Shift-JIS (cp932), or `None` when a character has no code there.
#[must_use]
pub fn encode(text: &str) -> Option<Vec<u8>> {
    let (bytes, _, had_errors) = SHIFT_JIS.encode(text);
    (!had_errors).then(|| bytes.into_owned())
}

/// Decodes Shift-JIS text leniently (U+FFFD for bytes that do not decode).
#[must_use]
pub fn decode_lossy(bytes: &[u8]) -> Cow<'_, str> {
    SHIFT_JIS.decode_without_bom_handling(bytes).0
}

/// Finds a model's element (bone or morph) for a name a file stored in a Shift-JIS field of
/// `field_len` bytes.
///
/// In order: the model name's Shift-JIS bytes cut to the field length equal the stored bytes
/// (this matches names cut in the middle of a character, as MMD writes them); the decoded text
/// equals the model name; a stored name that fills its field (so may have been cut) is the
/// start of a model name. The first element in index order wins each rule.
#[derive(Debug, Clone)]
pub struct NameMatcher {
    field_len: usize,
    by_raw: HashMap<Vec<u8>, usize>,
    by_text: HashMap<String, usize>,
    names: Vec<String>,
}

impl NameMatcher {
    pub fn new<'a>(names: impl IntoIterator<Item = Cow<'a, str>>, field_len: usize) -> Self {
        let mut by_raw = HashMap::new();
        let mut by_text = HashMap::new();
        let mut all = Vec::new();
        for (index, name) in names.into_iter().enumerate() {
            if let Some(mut raw) = encode(&name) {
                raw.truncate(field_len);
                by_raw.entry(raw).or_insert(index);
            }
            by_text.entry(name.to_string()).or_insert(index);
            all.push(name.into_owned());
        }
        Self {
            field_len,
            by_raw,
            by_text,
            names: all,
        }
    }

    /// The index of the element `name` refers to.
    #[must_use]
    pub fn find(&self, name: &SjisName) -> Option<usize> {
        if let Some(&index) = self.by_raw.get(&name.raw) {
            return Some(index);
        }
        if !name.cut
            && let Some(&index) = self.by_text.get(&name.text)
        {
            return Some(index);
        }
        let may_be_cut = name.cut || name.raw.len() >= self.field_len;
        if may_be_cut && !name.text.is_empty() {
            return self
                .names
                .iter()
                .position(|candidate| candidate.starts_with(name.text.as_str()));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_cut_in_a_character_keeps_its_whole_characters() {
        // "左足首" is 6 bytes; cut after 5, the last byte is the lead byte of 首.
        let full = encode("左足首").unwrap_or_default();
        assert_eq!(full.len(), 6);
        let name = SjisName::from_field(&full[..5]);
        assert!(name.cut && name.decodable);
        assert_eq!(name.text, "左足");
        assert_eq!(name.raw, &full[..5]);
    }

    #[test]
    fn fields_end_at_nul() {
        let mut field = [0xFDu8; 15];
        field[..4].copy_from_slice(b"head");
        field[4] = 0;
        let name = SjisName::from_field(&field);
        assert_eq!((name.text.as_str(), name.cut), ("head", false));
    }

    #[test]
    fn matcher_finds_cut_names_by_bytes_and_prefix() {
        // 8 full-width characters = 16 bytes: a 15-byte field cuts the last one in half.
        let names = ["右足ＩＫ親", "あいうえおかきく", "あいうえおかきけ"];
        let matcher = NameMatcher::new(names.iter().map(|&n| Cow::Borrowed(n)), 15);
        let bytes = encode("あいうえおかきけ").unwrap_or_default();
        let stored = SjisName::from_field(&bytes[..15]);
        assert!(stored.cut);
        assert_eq!(
            matcher.find(&stored),
            Some(1),
            "first name with those 15 bytes"
        );
        assert_eq!(
            matcher.find(&SjisName::from_text("右足ＩＫ親").unwrap_or_default()),
            Some(0)
        );
        assert_eq!(
            matcher.find(&SjisName::from_text("右足").unwrap_or_default()),
            None,
            "short names match whole names only"
        );
    }
}
