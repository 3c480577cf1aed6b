//! Field access by path (`ik.links.0.bone`, `position.y`) for field edits, with typed storage.
//!
//! Every model type implements [`Reflect`]: its children by name (struct fields, generated from
//! an exhaustive destructuring, so a new model field is a compile error here until it is listed)
//! or by position (lists, arrays, morph offsets). Every node is also a [`FieldType`], so any
//! field, leaf or not, can be set as a whole, and a field edit keeps its old and new values in the
//! field's own type (a `Vec3` costs 12 bytes, not a JSON tree).

use super::field::{SetRequest, build_values};
use super::{EditError, FieldValues};
use crate::model::*;
use crate::serde_f32::ExactF32;
use serde_json::Value;
use std::any::Any;
use std::fmt::Debug;

/// Heap memory owned by a value (not counting the value itself), for history accounting.
pub trait HeapSize {
    fn heap_size(&self) -> usize;
}

/// A node of the model that field paths can reach.
pub trait Reflect: Any + Send + Sync {
    /// The child named `segment` (a field name, or a position in a list).
    fn child(&self, segment: &str) -> Option<&dyn Reflect>;
    fn child_mut(&mut self, segment: &str) -> Option<&mut dyn Reflect>;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// The node in the model's JSON form.
    fn to_json(&self) -> Value;
    /// Builds the stored values of a field edit for a field of this node's type.
    fn build_set(&self, request: &SetRequest<'_>) -> Result<Box<dyn FieldValues>, EditError>;
}

/// A value a field edit can store: any node of the model.
pub trait FieldType: Reflect + HeapSize + Clone + PartialEq + Debug {
    /// Parses the JSON form of a value of this type.
    fn from_json(value: &Value) -> Result<Self, String>;
}

fn parse_serde<T: serde::de::DeserializeOwned>(value: &Value) -> Result<T, String> {
    T::deserialize(value).map_err(|e| e.to_string())
}

fn json_of<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The `Reflect` methods every type shares.
macro_rules! reflect_common {
    ($ty:ty) => {
        fn as_any(&self) -> &dyn Any {
            self
        }
        fn as_any_mut(&mut self) -> &mut dyn Any {
            self
        }
        fn build_set(&self, request: &SetRequest<'_>) -> Result<Box<dyn FieldValues>, EditError> {
            build_values::<$ty>(request)
        }
    };
}

/// Leaves (no children) with serde JSON forms and no heap memory.
macro_rules! serde_leaf {
    ($($ty:ty),* $(,)?) => {$(
        impl HeapSize for $ty {
            fn heap_size(&self) -> usize {
                0
            }
        }
        impl Reflect for $ty {
            fn child(&self, _segment: &str) -> Option<&dyn Reflect> {
                None
            }
            fn child_mut(&mut self, _segment: &str) -> Option<&mut dyn Reflect> {
                None
            }
            fn to_json(&self) -> Value {
                json_of(self)
            }
            reflect_common!($ty);
        }
        impl FieldType for $ty {
            fn from_json(value: &Value) -> Result<Self, String> {
                parse_serde(value)
            }
        }
    )*};
}

serde_leaf!(
    bool,
    u8,
    u16,
    u32,
    i32,
    PmxVersion,
    TextEncoding,
    VertexIdx,
    TextureIdx,
    MaterialIdx,
    BoneIdx,
    MorphIdx,
    RigidBodyIdx,
    DrawFlags,
    SphereMode,
    Toon,
    BoneFlags,
    MorphPanel,
    MaterialMorphOp,
    DisplayItem,
    RigidShape,
    RigidMode,
    JointKind,
    SoftBodyShape,
    SoftBodyFlags,
    AeroModel,
);

impl HeapSize for f32 {
    fn heap_size(&self) -> usize {
        0
    }
}

impl Reflect for f32 {
    fn child(&self, _segment: &str) -> Option<&dyn Reflect> {
        None
    }
    fn child_mut(&mut self, _segment: &str) -> Option<&mut dyn Reflect> {
        None
    }
    fn to_json(&self) -> Value {
        json_of(&ExactF32(*self))
    }
    reflect_common!(f32);
}

impl FieldType for f32 {
    fn from_json(value: &Value) -> Result<Self, String> {
        parse_serde::<ExactF32>(value).map(|v| v.0)
    }
}

impl HeapSize for Text {
    fn heap_size(&self) -> usize {
        match self {
            Text::Str(text) => text.capacity(),
            Text::Undecodable { raw, .. } => raw.capacity(),
        }
    }
}

impl Reflect for Text {
    fn child(&self, _segment: &str) -> Option<&dyn Reflect> {
        None
    }
    fn child_mut(&mut self, _segment: &str) -> Option<&mut dyn Reflect> {
        None
    }
    fn to_json(&self) -> Value {
        json_of(self)
    }
    reflect_common!(Text);
}

impl FieldType for Text {
    fn from_json(value: &Value) -> Result<Self, String> {
        parse_serde(value)
    }
}

/// Vectors: children by component name (`x`) or position (`0`, as in the JSON array form).
macro_rules! reflect_vector {
    ($ty:ident, $($field:ident = $pos:literal),+) => {
        impl HeapSize for $ty {
            fn heap_size(&self) -> usize {
                0
            }
        }
        impl Reflect for $ty {
            fn child(&self, segment: &str) -> Option<&dyn Reflect> {
                match segment {
                    $(stringify!($field) | $pos => Some(&self.$field),)+
                    _ => None,
                }
            }
            fn child_mut(&mut self, segment: &str) -> Option<&mut dyn Reflect> {
                match segment {
                    $(stringify!($field) | $pos => Some(&mut self.$field),)+
                    _ => None,
                }
            }
            fn to_json(&self) -> Value {
                json_of(self)
            }
            reflect_common!($ty);
        }
        impl FieldType for $ty {
            fn from_json(value: &Value) -> Result<Self, String> {
                parse_serde(value)
            }
        }
    };
}

reflect_vector!(Vec2, x = "0", y = "1");
reflect_vector!(Vec3, x = "0", y = "1", z = "2");
reflect_vector!(Vec4, x = "0", y = "1", z = "2", w = "3");

/// Structs: children by field name. The destructuring has no `..`: a field added to the model
/// without being listed here does not compile.
macro_rules! reflect_struct {
    ($ty:ident { $($field:ident),* $(,)? }) => {
        impl HeapSize for $ty {
            fn heap_size(&self) -> usize {
                let $ty { $($field),* } = self;
                0 $(+ $field.heap_size())*
            }
        }
        impl Reflect for $ty {
            fn child(&self, segment: &str) -> Option<&dyn Reflect> {
                let $ty { $($field),* } = self;
                match segment {
                    $(stringify!($field) => Some($field),)*
                    _ => None,
                }
            }
            fn child_mut(&mut self, segment: &str) -> Option<&mut dyn Reflect> {
                let $ty { $($field),* } = self;
                match segment {
                    $(stringify!($field) => Some($field),)*
                    _ => None,
                }
            }
            fn to_json(&self) -> Value {
                json_of(self)
            }
            reflect_common!($ty);
        }
        impl FieldType for $ty {
            fn from_json(value: &Value) -> Result<Self, String> {
                parse_serde(value)
            }
        }
    };
}

reflect_struct!(Header {
    version,
    encoding,
    index_sizes
});
reflect_struct!(IndexSizes {
    vertex,
    texture,
    material,
    bone,
    morph,
    rigid_body
});
reflect_struct!(ModelInfo {
    name_ja,
    name_en,
    comment_ja,
    comment_en
});
reflect_struct!(Vertex {
    position,
    normal,
    uv,
    weight,
    edge_scale
});
reflect_struct!(Material {
    name_ja,
    name_en,
    diffuse,
    specular,
    specular_power,
    ambient,
    draw_flags,
    edge_color,
    edge_size,
    texture,
    sphere_texture,
    sphere_mode,
    toon,
    memo,
    face_index_count,
});
reflect_struct!(Bone {
    name_ja,
    name_en,
    position,
    parent,
    layer,
    flags,
    tail_offset,
    tail_bone,
    append_parent,
    append_ratio,
    fixed_axis,
    local_axis_x,
    local_axis_z,
    external_parent_key,
    ik,
});
reflect_struct!(Ik {
    target,
    loop_count,
    limit_angle,
    links
});
reflect_struct!(IkLink { bone, limits });
reflect_struct!(AngleLimits { lower, upper });
reflect_struct!(Morph {
    name_ja,
    name_en,
    panel,
    offsets
});
reflect_struct!(VertexMorphOffset { vertex, offset });
reflect_struct!(UvMorphOffset { vertex, offset });
reflect_struct!(BoneMorphOffset {
    bone,
    translation,
    rotation
});
reflect_struct!(MaterialMorphOffset {
    material,
    op,
    diffuse,
    specular,
    specular_power,
    ambient,
    edge_color,
    edge_size,
    texture_tint,
    sphere_tint,
    toon_tint,
});
reflect_struct!(GroupMorphOffset { morph, ratio });
reflect_struct!(ImpulseMorphOffset {
    rigid_body,
    local,
    velocity,
    torque
});
reflect_struct!(DisplayFrame {
    name_ja,
    name_en,
    special,
    items
});
reflect_struct!(RigidBody {
    name_ja,
    name_en,
    bone,
    group,
    non_collision_mask,
    shape,
    size,
    position,
    rotation,
    mass,
    linear_damping,
    angular_damping,
    restitution,
    friction,
    mode,
});
reflect_struct!(Joint {
    name_ja,
    name_en,
    kind,
    body_a,
    body_b,
    position,
    rotation,
    move_lower,
    move_upper,
    rotate_lower,
    rotate_upper,
    spring_move,
    spring_rotate,
});
reflect_struct!(SoftBody {
    name_ja,
    name_en,
    shape,
    material,
    group,
    non_collision_mask,
    flags,
    b_link_distance,
    cluster_count,
    total_mass,
    margin,
    aero_model,
    config,
    cluster,
    iterations,
    stiffness,
    anchors,
    pinned_vertices,
});
reflect_struct!(SoftBodyConfig {
    vcf,
    dp,
    dg,
    lf,
    pr,
    vc,
    df,
    mt,
    chr,
    khr,
    shr,
    ahr
});
reflect_struct!(SoftBodyCluster {
    srhr_cl,
    skhr_cl,
    sshr_cl,
    sr_splt_cl,
    sk_splt_cl,
    ss_splt_cl
});
reflect_struct!(SoftBodyIterations {
    v_it,
    p_it,
    d_it,
    c_it
});
reflect_struct!(SoftBodyStiffness { lst, ast, vst });
reflect_struct!(SoftBodyAnchor {
    rigid_body,
    vertex,
    near_mode
});

impl HeapSize for Weight {
    fn heap_size(&self) -> usize {
        0
    }
}

/// A weight's children are its variant's fields (`bones`, `weight`, `c`, ...).
impl Reflect for Weight {
    fn child(&self, segment: &str) -> Option<&dyn Reflect> {
        match (self, segment) {
            (Weight::Bdef1 { bone }, "bone") => Some(bone),
            (Weight::Bdef2 { bones, .. } | Weight::Sdef { bones, .. }, "bones") => Some(bones),
            (Weight::Bdef4 { bones, .. } | Weight::Qdef { bones, .. }, "bones") => Some(bones),
            (Weight::Bdef2 { weight, .. } | Weight::Sdef { weight, .. }, "weight") => Some(weight),
            (Weight::Bdef4 { weights, .. } | Weight::Qdef { weights, .. }, "weights") => {
                Some(weights)
            }
            (Weight::Sdef { c, .. }, "c") => Some(c),
            (Weight::Sdef { r0, .. }, "r0") => Some(r0),
            (Weight::Sdef { r1, .. }, "r1") => Some(r1),
            _ => None,
        }
    }
    fn child_mut(&mut self, segment: &str) -> Option<&mut dyn Reflect> {
        match (self, segment) {
            (Weight::Bdef1 { bone }, "bone") => Some(bone),
            (Weight::Bdef2 { bones, .. } | Weight::Sdef { bones, .. }, "bones") => Some(bones),
            (Weight::Bdef4 { bones, .. } | Weight::Qdef { bones, .. }, "bones") => Some(bones),
            (Weight::Bdef2 { weight, .. } | Weight::Sdef { weight, .. }, "weight") => Some(weight),
            (Weight::Bdef4 { weights, .. } | Weight::Qdef { weights, .. }, "weights") => {
                Some(weights)
            }
            (Weight::Sdef { c, .. }, "c") => Some(c),
            (Weight::Sdef { r0, .. }, "r0") => Some(r0),
            (Weight::Sdef { r1, .. }, "r1") => Some(r1),
            _ => None,
        }
    }
    fn to_json(&self) -> Value {
        json_of(self)
    }
    reflect_common!(Weight);
}

impl FieldType for Weight {
    fn from_json(value: &Value) -> Result<Self, String> {
        parse_serde(value)
    }
}

impl HeapSize for MorphOffsets {
    fn heap_size(&self) -> usize {
        match self {
            MorphOffsets::Group(list) | MorphOffsets::Flip(list) => list.heap_size(),
            MorphOffsets::Vertex(list) => list.heap_size(),
            MorphOffsets::Bone(list) => list.heap_size(),
            MorphOffsets::Uv(list)
            | MorphOffsets::AdditionalUv1(list)
            | MorphOffsets::AdditionalUv2(list)
            | MorphOffsets::AdditionalUv3(list)
            | MorphOffsets::AdditionalUv4(list) => list.heap_size(),
            MorphOffsets::Material(list) => list.heap_size(),
            MorphOffsets::Impulse(list) => list.heap_size(),
        }
    }
}

/// Morph offsets' children are the offsets by position (`offsets.3.vertex`).
impl Reflect for MorphOffsets {
    fn child(&self, segment: &str) -> Option<&dyn Reflect> {
        let index: usize = segment.parse().ok()?;
        match self {
            MorphOffsets::Group(list) | MorphOffsets::Flip(list) => {
                list.get(index).map(|o| o as &dyn Reflect)
            }
            MorphOffsets::Vertex(list) => list.get(index).map(|o| o as &dyn Reflect),
            MorphOffsets::Bone(list) => list.get(index).map(|o| o as &dyn Reflect),
            MorphOffsets::Uv(list)
            | MorphOffsets::AdditionalUv1(list)
            | MorphOffsets::AdditionalUv2(list)
            | MorphOffsets::AdditionalUv3(list)
            | MorphOffsets::AdditionalUv4(list) => list.get(index).map(|o| o as &dyn Reflect),
            MorphOffsets::Material(list) => list.get(index).map(|o| o as &dyn Reflect),
            MorphOffsets::Impulse(list) => list.get(index).map(|o| o as &dyn Reflect),
        }
    }
    fn child_mut(&mut self, segment: &str) -> Option<&mut dyn Reflect> {
        let index: usize = segment.parse().ok()?;
        match self {
            MorphOffsets::Group(list) | MorphOffsets::Flip(list) => {
                list.get_mut(index).map(|o| o as &mut dyn Reflect)
            }
            MorphOffsets::Vertex(list) => list.get_mut(index).map(|o| o as &mut dyn Reflect),
            MorphOffsets::Bone(list) => list.get_mut(index).map(|o| o as &mut dyn Reflect),
            MorphOffsets::Uv(list)
            | MorphOffsets::AdditionalUv1(list)
            | MorphOffsets::AdditionalUv2(list)
            | MorphOffsets::AdditionalUv3(list)
            | MorphOffsets::AdditionalUv4(list) => {
                list.get_mut(index).map(|o| o as &mut dyn Reflect)
            }
            MorphOffsets::Material(list) => list.get_mut(index).map(|o| o as &mut dyn Reflect),
            MorphOffsets::Impulse(list) => list.get_mut(index).map(|o| o as &mut dyn Reflect),
        }
    }
    fn to_json(&self) -> Value {
        json_of(self)
    }
    reflect_common!(MorphOffsets);
}

impl FieldType for MorphOffsets {
    fn from_json(value: &Value) -> Result<Self, String> {
        parse_serde(value)
    }
}

impl<T: FieldType> HeapSize for Vec<T> {
    fn heap_size(&self) -> usize {
        self.capacity() * std::mem::size_of::<T>() + self.iter().map(T::heap_size).sum::<usize>()
    }
}

impl<T: FieldType> Reflect for Vec<T> {
    fn child(&self, segment: &str) -> Option<&dyn Reflect> {
        let index: usize = segment.parse().ok()?;
        self.get(index).map(|v| v as &dyn Reflect)
    }
    fn child_mut(&mut self, segment: &str) -> Option<&mut dyn Reflect> {
        let index: usize = segment.parse().ok()?;
        self.get_mut(index).map(|v| v as &mut dyn Reflect)
    }
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(T::to_json).collect())
    }
    reflect_common!(Vec<T>);
}

impl<T: FieldType> FieldType for Vec<T> {
    fn from_json(value: &Value) -> Result<Self, String> {
        let Value::Array(items) = value else {
            return Err(format!("expected a list, found {value}"));
        };
        items.iter().map(T::from_json).collect()
    }
}

impl<T: FieldType, const N: usize> HeapSize for [T; N] {
    fn heap_size(&self) -> usize {
        self.iter().map(T::heap_size).sum()
    }
}

impl<T: FieldType, const N: usize> Reflect for [T; N] {
    fn child(&self, segment: &str) -> Option<&dyn Reflect> {
        let index: usize = segment.parse().ok()?;
        self.get(index).map(|v| v as &dyn Reflect)
    }
    fn child_mut(&mut self, segment: &str) -> Option<&mut dyn Reflect> {
        let index: usize = segment.parse().ok()?;
        self.get_mut(index).map(|v| v as &mut dyn Reflect)
    }
    fn to_json(&self) -> Value {
        Value::Array(self.iter().map(T::to_json).collect())
    }
    reflect_common!([T; N]);
}

impl<T: FieldType, const N: usize> FieldType for [T; N] {
    fn from_json(value: &Value) -> Result<Self, String> {
        let Value::Array(items) = value else {
            return Err(format!("expected a list of {N}, found {value}"));
        };
        let parsed: Vec<T> = items.iter().map(T::from_json).collect::<Result<_, _>>()?;
        <[T; N]>::try_from(parsed)
            .map_err(|parsed| format!("expected {N} values, found {}", parsed.len()))
    }
}

impl<T: FieldType> HeapSize for Option<T> {
    fn heap_size(&self) -> usize {
        self.as_ref().map_or(0, T::heap_size)
    }
}

/// `None` is JSON `null`; the children of `Some` are the inner value's.
impl<T: FieldType> Reflect for Option<T> {
    fn child(&self, segment: &str) -> Option<&dyn Reflect> {
        self.as_ref()?.child(segment)
    }
    fn child_mut(&mut self, segment: &str) -> Option<&mut dyn Reflect> {
        self.as_mut()?.child_mut(segment)
    }
    fn to_json(&self) -> Value {
        self.as_ref().map_or(Value::Null, T::to_json)
    }
    reflect_common!(Option<T>);
}

impl<T: FieldType> FieldType for Option<T> {
    fn from_json(value: &Value) -> Result<Self, String> {
        match value {
            Value::Null => Ok(None),
            other => T::from_json(other).map(Some),
        }
    }
}

impl HeapSize for Model {
    fn heap_size(&self) -> usize {
        let Model {
            header: _,
            info,
            vertices,
            additional_uvs,
            faces,
            textures,
            materials,
            bones,
            morphs,
            display_frames,
            rigid_bodies,
            joints,
            soft_bodies,
        } = self;
        info.heap_size()
            + vertices.heap_size()
            + additional_uvs.heap_size()
            + faces.heap_size()
            + textures.heap_size()
            + materials.heap_size()
            + bones.heap_size()
            + morphs.heap_size()
            + display_frames.heap_size()
            + rigid_bodies.heap_size()
            + joints.heap_size()
            + soft_bodies.heap_size()
    }
}
