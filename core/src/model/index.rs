//! Typed indices. Raw integers live only inside format readers and writers.
//!
//! Kinds whose PMX index is signed (bone, texture, material, morph, rigid body) use a niche so that
//! `Option<BoneIdx>` is 4 bytes: the raw value `-1` ("no reference") is `None`, and every other raw
//! value, including other negative ones found in broken files, is `Some` and round-trips exactly
//! (a negative raw value shows up as an index past the end). Vertex indices are unsigned in PMX
//! and never mean "none", so `VertexIdx` holds any `u32`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::num::NonZeroU32;

macro_rules! signed_index {
    ($(#[$meta:meta])* $name:ident, $label:literal) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(NonZeroU32);

        impl $name {
            /// An index into the element list. Values at or above `u32::MAX` saturate to
            /// `u32::MAX - 1` (no model can have that many elements: PMX counts are `i32`).
            #[must_use]
            pub fn new(index: usize) -> Self {
                let value = u32::try_from(index).unwrap_or(u32::MAX - 1).min(u32::MAX - 1);
                Self(NonZeroU32::new(!value).unwrap_or(NonZeroU32::MIN))
            }

            /// From the raw signed integer a PMX file stores: `-1` is `None`.
            #[must_use]
            pub fn from_raw(raw: i32) -> Option<Self> {
                NonZeroU32::new(!(raw as u32)).map(Self)
            }

            /// The raw signed integer PMX stores for `index` (`None` is `-1`).
            #[must_use]
            pub fn to_raw(index: Option<Self>) -> i32 {
                index.map_or(-1, |i| i.raw())
            }

            /// The raw signed value of this index (negative only for broken files).
            #[must_use]
            pub fn raw(self) -> i32 {
                (!self.0.get()) as i32
            }

            /// The index as a `usize` (values from negative raw integers are huge, i.e. out of range).
            #[must_use]
            pub fn get(self) -> usize {
                (!self.0.get()) as usize
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($label, "#{}"), self.raw())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}", self.raw())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_i32(self.raw())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let raw = i64::deserialize(deserializer)?;
                let raw = i32::try_from(raw)
                    .or_else(|_| u32::try_from(raw).map(|v| v as i32))
                    .map_err(|_| serde::de::Error::custom(format!("index {raw} out of range")))?;
                Self::from_raw(raw).ok_or_else(|| {
                    serde::de::Error::custom("index -1 means \"no reference\": write null instead")
                })
            }
        }
    };
}

signed_index!(
    /// Index into `Model::bones`.
    BoneIdx, "bone"
);
signed_index!(
    /// Index into `Model::textures`.
    TextureIdx, "texture"
);
signed_index!(
    /// Index into `Model::materials`.
    MaterialIdx, "material"
);
signed_index!(
    /// Index into `Model::morphs`.
    MorphIdx, "morph"
);
signed_index!(
    /// Index into `Model::rigid_bodies`.
    RigidBodyIdx, "rigid_body"
);

/// Index into `Model::vertices`. PMX stores it unsigned at 1 and 2 bytes and as `int` at 4 bytes;
/// it never means "no reference", so every `u32` is a value (past the end if too large).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct VertexIdx(pub u32);

impl VertexIdx {
    /// An index into the vertex list (saturating at `u32::MAX`).
    #[must_use]
    pub fn new(index: usize) -> Self {
        Self(u32::try_from(index).unwrap_or(u32::MAX))
    }

    /// The index as a `usize`.
    #[must_use]
    pub fn get(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for VertexIdx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "vertex#{}", self.0)
    }
}

impl fmt::Display for VertexIdx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_of_signed_index_is_four_bytes() {
        assert_eq!(std::mem::size_of::<Option<BoneIdx>>(), 4);
    }

    #[test]
    fn raw_values_round_trip() {
        for raw in [-1, 0, 1, 127, -2, -128, i32::MAX, i32::MIN] {
            assert_eq!(BoneIdx::to_raw(BoneIdx::from_raw(raw)), raw);
        }
        assert_eq!(BoneIdx::from_raw(-1), None);
        assert_eq!(BoneIdx::from_raw(5).map(BoneIdx::get), Some(5));
        assert_eq!(BoneIdx::new(7).get(), 7);
    }
}
