//! Small vector types as the file stores them (`float2/3/4`), with exact serde and glam conversions.

use crate::serde_f32::{ExactF32, serialize_array};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! vector {
    ($(#[$meta:meta])* $name:ident, $glam:ty, $n:literal, $($field:ident),+) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Default)]
        #[repr(C)]
        pub struct $name {
            $(pub $field: f32,)+
        }

        impl $name {
            pub const ZERO: Self = Self { $($field: 0.0,)+ };

            #[must_use]
            pub const fn new($($field: f32),+) -> Self {
                Self { $($field,)+ }
            }

            #[must_use]
            pub fn to_array(self) -> [f32; $n] {
                [$(self.$field),+]
            }

            #[must_use]
            pub fn from_array(values: [f32; $n]) -> Self {
                let [$($field),+] = values;
                Self { $($field,)+ }
            }

            /// True when every component is finite.
            #[must_use]
            pub fn is_finite(self) -> bool {
                true $(&& self.$field.is_finite())+
            }

            /// Equality of the bit patterns (distinguishes -0.0 and NaN payloads).
            #[must_use]
            pub fn bits_eq(self, other: Self) -> bool {
                true $(&& self.$field.to_bits() == other.$field.to_bits())+
            }
        }

        impl From<$glam> for $name {
            fn from(v: $glam) -> Self {
                Self::from_array(v.to_array())
            }
        }

        impl From<$name> for $glam {
            fn from(v: $name) -> Self {
                <$glam>::from_array(v.to_array())
            }
        }

        impl From<[f32; $n]> for $name {
            fn from(values: [f32; $n]) -> Self {
                Self::from_array(values)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serialize_array(&self.to_array(), serializer)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let values = <[ExactF32; $n]>::deserialize(deserializer)?;
                Ok(Self::from_array(values.map(|v| v.0)))
            }
        }
    };
}

vector!(
    /// `float2` (UV).
    Vec2, glam::Vec2, 2, x, y
);
vector!(
    /// `float3` (position, normal, RGB, Euler angles in radians).
    Vec3, glam::Vec3, 3, x, y, z
);
vector!(
    /// `float4` (RGBA, additional UV, quaternion x,y,z,w).
    Vec4, glam::Vec4, 4, x, y, z, w
);

impl Vec4 {
    /// A quaternion stored as x,y,z,w.
    #[must_use]
    pub fn to_quat(self) -> glam::Quat {
        glam::Quat::from_xyzw(self.x, self.y, self.z, self.w)
    }

    #[must_use]
    pub fn from_quat(q: glam::Quat) -> Self {
        Self::new(q.x, q.y, q.z, q.w)
    }

    pub const IDENTITY_QUAT: Self = Self::new(0.0, 0.0, 0.0, 1.0);
    pub const ONE: Self = Self::new(1.0, 1.0, 1.0, 1.0);
}

impl Vec3 {
    pub const ONE: Self = Self::new(1.0, 1.0, 1.0);
}
