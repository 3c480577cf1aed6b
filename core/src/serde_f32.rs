//! Exact serde for `f32`: every bit pattern survives a JSON round trip.
//!
//! JSON has no NaN or infinity, and parsing a shortest `f32` decimal through `f64` can, in rare
//! midpoint cases, round twice. Non-finite values are written as strings (`"inf"`, `"-inf"`,
//! `"NaN"`, or `"nan:0x7fc00001"` for other payloads) and midpoints are resolved by re-formatting
//! the candidates, so that PMX → JSON → PMX gives the same bytes.

use serde::de::{self, Deserializer, Visitor};
use serde::ser::{SerializeTuple, Serializer};
use std::fmt;

const CANONICAL_NAN_BITS: u32 = 0x7fc0_0000;

/// Serializes one `f32` exactly (use with `#[serde(with = "crate::serde_f32")]`).
pub fn serialize<S: Serializer>(value: &f32, serializer: S) -> Result<S::Ok, S::Error> {
    let value = *value;
    if value.is_finite() {
        serializer.serialize_f32(value)
    } else {
        serializer.serialize_str(&non_finite_name(value))
    }
}

/// Deserializes one `f32` written by [`serialize`] (plain JSON numbers are accepted too).
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f32, D::Error> {
    deserializer.deserialize_any(ExactF32Visitor)
}

fn non_finite_name(value: f32) -> String {
    if value == f32::INFINITY {
        "inf".to_owned()
    } else if value == f32::NEG_INFINITY {
        "-inf".to_owned()
    } else if value.to_bits() == CANONICAL_NAN_BITS {
        "NaN".to_owned()
    } else {
        format!("nan:0x{:08x}", value.to_bits())
    }
}

fn parse_non_finite(text: &str) -> Option<f32> {
    match text {
        "inf" | "Infinity" => Some(f32::INFINITY),
        "-inf" | "-Infinity" => Some(f32::NEG_INFINITY),
        "NaN" | "nan" => Some(f32::from_bits(CANONICAL_NAN_BITS)),
        _ => {
            let hex = text.strip_prefix("nan:0x")?;
            u32::from_str_radix(hex, 16).ok().map(f32::from_bits)
        }
    }
}

/// The `f32` whose shortest decimal, read as `f64`, is `parsed`.
pub(crate) fn f32_from_parsed_f64(parsed: f64) -> f32 {
    let rounded = parsed as f32;
    if rounded as f64 == parsed || !parsed.is_finite() {
        return rounded;
    }
    let other = if (rounded as f64) < parsed {
        rounded.next_up()
    } else {
        rounded.next_down()
    };
    let midpoint = (rounded as f64 + other as f64) / 2.0;
    if parsed != midpoint {
        return rounded;
    }
    // Exactly between two f32s: the one whose own shortest decimal reads back as `parsed` wins.
    let mut buffer = ryu::Buffer::new();
    for candidate in [rounded, other] {
        if buffer.format(candidate).parse::<f64>().ok() == Some(parsed) {
            return candidate;
        }
    }
    rounded
}

struct ExactF32Visitor;

impl Visitor<'_> for ExactF32Visitor {
    type Value = f32;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a number, or \"inf\", \"-inf\", \"NaN\", \"nan:0x…\"")
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<f32, E> {
        Ok(f32_from_parsed_f64(value))
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<f32, E> {
        Ok(value as f32)
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<f32, E> {
        Ok(value as f32)
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<f32, E> {
        parse_non_finite(value).ok_or_else(|| E::invalid_value(de::Unexpected::Str(value), &self))
    }
}

/// A wrapper that (de)serializes its `f32` exactly; used inside vectors and arrays.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ExactF32(pub f32);

impl serde::Serialize for ExactF32 {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize(&self.0, serializer)
    }
}

impl<'de> serde::Deserialize<'de> for ExactF32 {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserialize(deserializer).map(ExactF32)
    }
}

/// Exact serde for `[f32; N]` (use with `#[serde(with = "crate::serde_f32::array")]`).
pub mod array {
    use super::ExactF32;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer, const N: usize>(
        values: &[f32; N],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        super::serialize_array(values, serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        deserializer: D,
    ) -> Result<[f32; N], D::Error> {
        let values: Vec<ExactF32> = Vec::deserialize(deserializer)?;
        if values.len() != N {
            return Err(serde::de::Error::invalid_length(
                values.len(),
                &"a fixed-size array",
            ));
        }
        let mut out = [0.0; N];
        for (slot, value) in out.iter_mut().zip(values) {
            *slot = value.0;
        }
        Ok(out)
    }
}

pub(crate) fn serialize_array<S: Serializer>(
    values: &[f32],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut tuple = serializer.serialize_tuple(values.len())?;
    for value in values {
        tuple.serialize_element(&ExactF32(*value))?;
    }
    tuple.end()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(value: f32) -> f32 {
        let json = serde_json::to_string(&ExactF32(value)).unwrap_or_default();
        serde_json::from_str::<ExactF32>(&json)
            .map(|v| v.0)
            .unwrap_or(f32::NAN)
    }

    #[test]
    fn special_values_keep_their_bits() {
        for bits in [
            0x7fc0_0000u32,
            0x7fc0_0001,
            0xffc0_0000,
            0x7f80_0000,
            0xff80_0000,
            0x8000_0000,
            1,
            0x7f7f_ffff,
        ] {
            assert_eq!(
                round_trip(f32::from_bits(bits)).to_bits(),
                bits,
                "bits {bits:#x}"
            );
        }
    }

    #[test]
    fn many_values_keep_their_bits() {
        // A cheap LCG walk over the bit space, including subnormals and huge values.
        let mut bits: u32 = 12345;
        for _ in 0..200_000 {
            bits = bits.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let value = f32::from_bits(bits);
            assert_eq!(round_trip(value).to_bits(), bits, "bits {bits:#x}");
        }
    }
}
