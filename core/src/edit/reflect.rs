//! Field access by path (`ik.links.0.bone`, `position.y`) for field edits, with typed storage.
//!
//! Every model type implements [`Reflect`]: its children by name (struct fields, generated from
//! an exhaustive destructuring, so a new model field is a compile error here until it is listed)
//! or by position (lists, arrays, morph offsets). Every node is also a [`FieldType`], so any
//! field, leaf or not, can be set as a whole, and a field edit keeps its old and new values in the
//! field's own type (a `Vec3` costs 12 bytes, not a JSON tree).

use super::handle::Field;
use super::{EditError, EditTarget};
use crate::model::*;
use crate::path::FieldPath;
use crate::path::Segment;
use crate::serde_f32::ExactF32;
use serde_json::Value;
use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::fmt::Debug;

/// Heap memory owned by a value (not counting the value itself), for history accounting.
pub trait HeapSize {
    fn heap_size(&self) -> usize;
}

/// A node of the model that field paths can reach.
pub trait Reflect: Any + Send + Sync {
    /// The child a path step names (a field, or a position in a list).
    fn child(&self, segment: &Segment) -> Option<&dyn Reflect>;
    fn child_mut(&mut self, segment: &Segment) -> Option<&mut dyn Reflect>;
    /// The number of positions, for lists.
    fn list_len(&self) -> Option<usize> {
        None
    }
    /// Every child with its path step, in order (structs list every field: the listings are
    /// exhaustive, so a walk over children sees every value of the model).
    fn for_each_child(&self, visit: &mut dyn FnMut(Segment, &dyn Reflect)) {
        let _ = visit;
    }
    fn for_each_child_mut(&mut self, visit: &mut dyn FnMut(Segment, &mut dyn Reflect)) {
        let _ = visit;
    }
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
            fn child(&self, _segment: &Segment) -> Option<&dyn Reflect> {
                None
            }
            fn child_mut(&mut self, _segment: &Segment) -> Option<&mut dyn Reflect> {
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
    fn child(&self, _segment: &Segment) -> Option<&dyn Reflect> {
        None
    }
    fn child_mut(&mut self, _segment: &Segment) -> Option<&mut dyn Reflect> {
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
    fn child(&self, _segment: &Segment) -> Option<&dyn Reflect> {
        None
    }
    fn child_mut(&mut self, _segment: &Segment) -> Option<&mut dyn Reflect> {
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

/// Whether a path step names a vector component, by name (`x`) or by position (`[0]`, as in the
/// JSON array form).
fn is_component(segment: &Segment, name: &str, position: usize) -> bool {
    match segment {
        Segment::Field(field) => field == name,
        Segment::Index(index) => *index == position,
    }
}

/// Vectors: children by component name (`x`) or position (`[0]`, as in the JSON array form).
macro_rules! reflect_vector {
    ($ty:ident, $($field:ident = $pos:literal),+) => {
        impl HeapSize for $ty {
            fn heap_size(&self) -> usize {
                0
            }
        }
        impl Reflect for $ty {
            fn child(&self, segment: &Segment) -> Option<&dyn Reflect> {
                $(if is_component(segment, stringify!($field), $pos) {
                    return Some(&self.$field);
                })+
                None
            }
            fn child_mut(&mut self, segment: &Segment) -> Option<&mut dyn Reflect> {
                $(if is_component(segment, stringify!($field), $pos) {
                    return Some(&mut self.$field);
                })+
                None
            }
            fn for_each_child(&self, visit: &mut dyn FnMut(Segment, &dyn Reflect)) {
                $(visit(Segment::Field(Cow::Borrowed(stringify!($field))), &self.$field);)+
            }
            fn for_each_child_mut(&mut self, visit: &mut dyn FnMut(Segment, &mut dyn Reflect)) {
                $(visit(Segment::Field(Cow::Borrowed(stringify!($field))), &mut self.$field);)+
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
        /// Typed handles on the components.
        impl<E> Field<E, $ty> {
            $(
                #[must_use]
                pub fn $field(self) -> Field<E, f32> {
                    self.step(stringify!($field))
                }
            )+
        }
    };
}

reflect_vector!(Vec2, x = 0, y = 1);
reflect_vector!(Vec3, x = 0, y = 1, z = 2);
reflect_vector!(Vec4, x = 0, y = 1, z = 2, w = 3);

/// Structs: children by field name, and typed handles ([`Field`]) on each field. The
/// destructuring has no `..`: a field added to the model without being listed here does not
/// compile, and each listed type is checked against the field's own.
macro_rules! reflect_struct {
    ($ty:ident { $($field:ident: $fty:ty),* $(,)? }) => {
        impl HeapSize for $ty {
            fn heap_size(&self) -> usize {
                let $ty { $($field),* } = self;
                0 $(+ $field.heap_size())*
            }
        }
        impl Reflect for $ty {
            fn child(&self, segment: &Segment) -> Option<&dyn Reflect> {
                let $ty { $($field),* } = self;
                match segment.name()? {
                    $(stringify!($field) => Some($field),)*
                    _ => None,
                }
            }
            fn child_mut(&mut self, segment: &Segment) -> Option<&mut dyn Reflect> {
                let $ty { $($field),* } = self;
                match segment.name()? {
                    $(stringify!($field) => Some($field),)*
                    _ => None,
                }
            }
            fn for_each_child(&self, visit: &mut dyn FnMut(Segment, &dyn Reflect)) {
                let $ty { $($field),* } = self;
                $(visit(Segment::Field(Cow::Borrowed(stringify!($field))), $field);)*
            }
            fn for_each_child_mut(&mut self, visit: &mut dyn FnMut(Segment, &mut dyn Reflect)) {
                let $ty { $($field),* } = self;
                $(visit(Segment::Field(Cow::Borrowed(stringify!($field))), $field);)*
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
        /// Typed handles on the fields (`Field::<Bone>::root().ik().links()`).
        impl<E> Field<E, $ty> {
            $(
                #[must_use]
                pub fn $field(self) -> Field<E, $fty> {
                    self.step(stringify!($field))
                }
            )*
        }
        const _: () = {
            #[allow(dead_code)]
            fn listed_types_are_the_fields_types(value: &$ty) {
                let $ty { $($field),* } = value;
                $(let _: &$fty = $field;)*
            }
        };
    };
}

reflect_struct!(Header {
    version: PmxVersion,
    encoding: TextEncoding,
    index_sizes: Option<IndexSizes>,
});
reflect_struct!(IndexSizes {
    vertex: u8,
    texture: u8,
    material: u8,
    bone: u8,
    morph: u8,
    rigid_body: u8,
});
reflect_struct!(ModelInfo {
    name_ja: Text,
    name_en: Text,
    comment_ja: Text,
    comment_en: Text,
});
reflect_struct!(Vertex {
    position: Vec3,
    normal: Vec3,
    uv: Vec2,
    weight: Weight,
    edge_scale: f32,
});
reflect_struct!(Material {
    name_ja: Text,
    name_en: Text,
    diffuse: Vec4,
    specular: Vec3,
    specular_power: f32,
    ambient: Vec3,
    draw_flags: DrawFlags,
    edge_color: Vec4,
    edge_size: f32,
    texture: Option<TextureIdx>,
    sphere_texture: Option<TextureIdx>,
    sphere_mode: SphereMode,
    toon: Toon,
    memo: Text,
    face_index_count: u32,
});
reflect_struct!(Bone {
    name_ja: Text,
    name_en: Text,
    position: Vec3,
    parent: Option<BoneIdx>,
    layer: i32,
    flags: BoneFlags,
    tail_offset: Vec3,
    tail_bone: Option<BoneIdx>,
    append_parent: Option<BoneIdx>,
    append_ratio: f32,
    fixed_axis: Vec3,
    local_axis_x: Vec3,
    local_axis_z: Vec3,
    external_parent_key: i32,
    ik: Ik,
});
reflect_struct!(Ik {
    target: Option<BoneIdx>,
    loop_count: i32,
    limit_angle: f32,
    links: Vec<IkLink>,
});
reflect_struct!(IkLink {
    bone: Option<BoneIdx>,
    limits: Option<AngleLimits>,
});
reflect_struct!(AngleLimits {
    lower: Vec3,
    upper: Vec3,
});
reflect_struct!(Morph {
    name_ja: Text,
    name_en: Text,
    panel: MorphPanel,
    offsets: MorphOffsets,
});
reflect_struct!(VertexMorphOffset {
    vertex: VertexIdx,
    offset: Vec3,
});
reflect_struct!(UvMorphOffset {
    vertex: VertexIdx,
    offset: Vec4,
});
reflect_struct!(BoneMorphOffset {
    bone: Option<BoneIdx>,
    translation: Vec3,
    rotation: Vec4,
});
reflect_struct!(MaterialMorphOffset {
    material: Option<MaterialIdx>,
    op: MaterialMorphOp,
    diffuse: Vec4,
    specular: Vec3,
    specular_power: f32,
    ambient: Vec3,
    edge_color: Vec4,
    edge_size: f32,
    texture_tint: Vec4,
    sphere_tint: Vec4,
    toon_tint: Vec4,
});
reflect_struct!(GroupMorphOffset {
    morph: Option<MorphIdx>,
    ratio: f32,
});
reflect_struct!(ImpulseMorphOffset {
    rigid_body: Option<RigidBodyIdx>,
    local: bool,
    velocity: Vec3,
    torque: Vec3,
});
reflect_struct!(DisplayFrame {
    name_ja: Text,
    name_en: Text,
    special: bool,
    items: Vec<DisplayItem>,
});
reflect_struct!(RigidBody {
    name_ja: Text,
    name_en: Text,
    bone: Option<BoneIdx>,
    group: u8,
    non_collision_mask: u16,
    shape: RigidShape,
    size: Vec3,
    position: Vec3,
    rotation: Vec3,
    mass: f32,
    linear_damping: f32,
    angular_damping: f32,
    restitution: f32,
    friction: f32,
    mode: RigidMode,
});
reflect_struct!(Joint {
    name_ja: Text,
    name_en: Text,
    kind: JointKind,
    body_a: Option<RigidBodyIdx>,
    body_b: Option<RigidBodyIdx>,
    position: Vec3,
    rotation: Vec3,
    move_lower: Vec3,
    move_upper: Vec3,
    rotate_lower: Vec3,
    rotate_upper: Vec3,
    spring_move: Vec3,
    spring_rotate: Vec3,
});
reflect_struct!(SoftBody {
    name_ja: Text,
    name_en: Text,
    shape: SoftBodyShape,
    material: Option<MaterialIdx>,
    group: u8,
    non_collision_mask: u16,
    flags: SoftBodyFlags,
    b_link_distance: i32,
    cluster_count: i32,
    total_mass: f32,
    margin: f32,
    aero_model: AeroModel,
    config: SoftBodyConfig,
    cluster: SoftBodyCluster,
    iterations: SoftBodyIterations,
    stiffness: SoftBodyStiffness,
    anchors: Vec<SoftBodyAnchor>,
    pinned_vertices: Vec<VertexIdx>,
});
reflect_struct!(SoftBodyConfig {
    vcf: f32,
    dp: f32,
    dg: f32,
    lf: f32,
    pr: f32,
    vc: f32,
    df: f32,
    mt: f32,
    chr: f32,
    khr: f32,
    shr: f32,
    ahr: f32,
});
reflect_struct!(SoftBodyCluster {
    srhr_cl: f32,
    skhr_cl: f32,
    sshr_cl: f32,
    sr_splt_cl: f32,
    sk_splt_cl: f32,
    ss_splt_cl: f32,
});
reflect_struct!(SoftBodyIterations {
    v_it: i32,
    p_it: i32,
    d_it: i32,
    c_it: i32,
});
reflect_struct!(SoftBodyStiffness {
    lst: f32,
    ast: f32,
    vst: f32,
});
reflect_struct!(SoftBodyAnchor {
    rigid_body: Option<RigidBodyIdx>,
    vertex: VertexIdx,
    near_mode: bool,
});

impl HeapSize for Weight {
    fn heap_size(&self) -> usize {
        0
    }
}

/// Visits a weight's fields by name; the same code for `&` and `&mut` (the bindings follow).
macro_rules! visit_weight_fields {
    ($weight:expr, $visit:ident) => {{
        let name = |n: &'static str| Segment::Field(Cow::Borrowed(n));
        match $weight {
            Weight::Bdef1 { bone } => $visit(name("bone"), bone),
            Weight::Bdef2 { bones, weight } => {
                $visit(name("bones"), bones);
                $visit(name("weight"), weight);
            }
            Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
                $visit(name("bones"), bones);
                $visit(name("weights"), weights);
            }
            Weight::Sdef {
                bones,
                weight,
                c,
                r0,
                r1,
            } => {
                $visit(name("bones"), bones);
                $visit(name("weight"), weight);
                $visit(name("c"), c);
                $visit(name("r0"), r0);
                $visit(name("r1"), r1);
            }
        }
    }};
}

/// A weight's children are its variant's fields (`bones`, `weight`, `c`, ...).
impl Reflect for Weight {
    fn child(&self, segment: &Segment) -> Option<&dyn Reflect> {
        match (self, segment.name()?) {
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
    fn child_mut(&mut self, segment: &Segment) -> Option<&mut dyn Reflect> {
        match (self, segment.name()?) {
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
    fn for_each_child(&self, visit: &mut dyn FnMut(Segment, &dyn Reflect)) {
        visit_weight_fields!(self, visit);
    }
    fn for_each_child_mut(&mut self, visit: &mut dyn FnMut(Segment, &mut dyn Reflect)) {
        visit_weight_fields!(self, visit);
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
    fn child(&self, segment: &Segment) -> Option<&dyn Reflect> {
        let index = segment.index()?;
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
    fn child_mut(&mut self, segment: &Segment) -> Option<&mut dyn Reflect> {
        let index = segment.index()?;
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
    fn list_len(&self) -> Option<usize> {
        Some(MorphOffsets::len(self))
    }
    fn for_each_child(&self, visit: &mut dyn FnMut(Segment, &dyn Reflect)) {
        for index in 0..MorphOffsets::len(self) {
            if let Some(offset) = self.child(&Segment::Index(index)) {
                visit(Segment::Index(index), offset);
            }
        }
    }
    fn for_each_child_mut(&mut self, visit: &mut dyn FnMut(Segment, &mut dyn Reflect)) {
        for index in 0..MorphOffsets::len(self) {
            if let Some(offset) = self.child_mut(&Segment::Index(index)) {
                visit(Segment::Index(index), offset);
            }
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
    fn child(&self, segment: &Segment) -> Option<&dyn Reflect> {
        let index = segment.index()?;
        self.get(index).map(|v| v as &dyn Reflect)
    }
    fn child_mut(&mut self, segment: &Segment) -> Option<&mut dyn Reflect> {
        let index = segment.index()?;
        self.get_mut(index).map(|v| v as &mut dyn Reflect)
    }
    fn list_len(&self) -> Option<usize> {
        Some(<[T]>::len(self))
    }
    fn for_each_child(&self, visit: &mut dyn FnMut(Segment, &dyn Reflect)) {
        for (index, item) in self.iter().enumerate() {
            visit(Segment::Index(index), item);
        }
    }
    fn for_each_child_mut(&mut self, visit: &mut dyn FnMut(Segment, &mut dyn Reflect)) {
        for (index, item) in self.iter_mut().enumerate() {
            visit(Segment::Index(index), item);
        }
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
    fn child(&self, segment: &Segment) -> Option<&dyn Reflect> {
        let index = segment.index()?;
        self.get(index).map(|v| v as &dyn Reflect)
    }
    fn child_mut(&mut self, segment: &Segment) -> Option<&mut dyn Reflect> {
        let index = segment.index()?;
        self.get_mut(index).map(|v| v as &mut dyn Reflect)
    }
    fn list_len(&self) -> Option<usize> {
        Some(N)
    }
    fn for_each_child(&self, visit: &mut dyn FnMut(Segment, &dyn Reflect)) {
        for (index, item) in self.iter().enumerate() {
            visit(Segment::Index(index), item);
        }
    }
    fn for_each_child_mut(&mut self, visit: &mut dyn FnMut(Segment, &mut dyn Reflect)) {
        for (index, item) in self.iter_mut().enumerate() {
            visit(Segment::Index(index), item);
        }
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
    fn child(&self, segment: &Segment) -> Option<&dyn Reflect> {
        self.as_ref()?.child(segment)
    }
    fn child_mut(&mut self, segment: &Segment) -> Option<&mut dyn Reflect> {
        self.as_mut()?.child_mut(segment)
    }
    fn list_len(&self) -> Option<usize> {
        self.as_ref()?.list_len()
    }
    fn for_each_child(&self, visit: &mut dyn FnMut(Segment, &dyn Reflect)) {
        if let Some(inner) = self {
            inner.for_each_child(visit);
        }
    }
    fn for_each_child_mut(&mut self, visit: &mut dyn FnMut(Segment, &mut dyn Reflect)) {
        if let Some(inner) = self {
            inner.for_each_child_mut(visit);
        }
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

impl HeapSize for PmdExtras {
    fn heap_size(&self) -> usize {
        let PmdExtras { text_fields } = self;
        text_fields.capacity() * std::mem::size_of::<PmdTextField>()
            + text_fields
                .iter()
                .map(|field| field.text.capacity() + field.padding.capacity())
                .sum::<usize>()
    }
}

impl HeapSize for MqoExtras {
    fn heap_size(&self) -> usize {
        let MqoExtras {
            objects,
            face_runs,
            vertex_sources,
        } = self;
        objects.capacity() * std::mem::size_of::<MqoObjectSettings>()
            + objects.iter().map(|o| o.name.capacity()).sum::<usize>()
            + face_runs.capacity() * std::mem::size_of::<MqoFaceRun>()
            + vertex_sources.capacity() * std::mem::size_of::<u32>()
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
            pmd,
            mqo,
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
            + pmd.heap_size()
            + mqo.heap_size()
    }
}

// Field access by path: from an element (or the header, the info) down the path's steps.

/// The node an element path starts from, and how many path segments that used.
pub(crate) fn root<'a>(
    model: &'a Model,
    target: EditTarget,
    index: usize,
    segments: &[Segment],
) -> Option<(&'a dyn Reflect, usize)> {
    let first = segments.first().and_then(Segment::name);
    Some(match target {
        EditTarget::Header => (&model.header, 0),
        EditTarget::Info => (&model.info, 0),
        EditTarget::Vertex if first == Some("additional_uvs") => {
            let channel = segments.get(1)?.index()?;
            (model.additional_uvs.get(channel)?.get(index)?, 2)
        }
        EditTarget::Vertex => (model.vertices.get(index)?, 0),
        EditTarget::Face => (model.faces.get(index)?, 0),
        EditTarget::Texture => (
            model.textures.get(index)?,
            usize::from(first == Some("path")),
        ),
        EditTarget::Material => (model.materials.get(index)?, 0),
        EditTarget::Bone => (model.bones.get(index)?, 0),
        EditTarget::Morph => (model.morphs.get(index)?, 0),
        EditTarget::DisplayFrame => (model.display_frames.get(index)?, 0),
        EditTarget::RigidBody => (model.rigid_bodies.get(index)?, 0),
        EditTarget::Joint => (model.joints.get(index)?, 0),
        EditTarget::SoftBody => (model.soft_bodies.get(index)?, 0),
    })
}

pub(crate) fn root_mut<'a>(
    model: &'a mut Model,
    target: EditTarget,
    index: usize,
    segments: &[Segment],
) -> Option<(&'a mut dyn Reflect, usize)> {
    let first = segments.first().and_then(Segment::name);
    Some(match target {
        EditTarget::Header => (&mut model.header, 0),
        EditTarget::Info => (&mut model.info, 0),
        EditTarget::Vertex if first == Some("additional_uvs") => {
            let channel = segments.get(1)?.index()?;
            (model.additional_uvs.get_mut(channel)?.get_mut(index)?, 2)
        }
        EditTarget::Vertex => (model.vertices.get_mut(index)?, 0),
        EditTarget::Face => (model.faces.get_mut(index)?, 0),
        EditTarget::Texture => (
            model.textures.get_mut(index)?,
            usize::from(first == Some("path")),
        ),
        EditTarget::Material => (model.materials.get_mut(index)?, 0),
        EditTarget::Bone => (model.bones.get_mut(index)?, 0),
        EditTarget::Morph => (model.morphs.get_mut(index)?, 0),
        EditTarget::DisplayFrame => (model.display_frames.get_mut(index)?, 0),
        EditTarget::RigidBody => (model.rigid_bodies.get_mut(index)?, 0),
        EditTarget::Joint => (model.joints.get_mut(index)?, 0),
        EditTarget::SoftBody => (model.soft_bodies.get_mut(index)?, 0),
    })
}

pub(crate) fn resolve<'a>(
    model: &'a Model,
    target: EditTarget,
    index: usize,
    path: &FieldPath,
) -> Option<&'a dyn Reflect> {
    let (mut node, used) = root(model, target, index, path.segments())?;
    for segment in path.segments().get(used..)? {
        node = node.child(segment)?;
    }
    Some(node)
}

pub(crate) fn resolve_mut<'a>(
    model: &'a mut Model,
    target: EditTarget,
    index: usize,
    path: &FieldPath,
) -> Option<&'a mut dyn Reflect> {
    let (mut node, used) = root_mut(model, target, index, path.segments())?;
    for segment in path.segments().get(used..)? {
        node = node.child_mut(segment)?;
    }
    Some(node)
}

pub(crate) fn check_index(
    model: &Model,
    target: EditTarget,
    index: usize,
) -> Result<(), EditError> {
    let len = target.count(model);
    if index >= len {
        return Err(EditError::IndexOutOfRange {
            kind: target.name(),
            index,
            len,
        });
    }
    Ok(())
}

/// What a field edit is asked to do: built into typed values by the field's own type.
#[derive(Debug)]
pub struct SetRequest<'a> {
    pub(crate) model: &'a Model,
    pub(crate) target: EditTarget,
    pub(crate) path: &'a FieldPath,
    pub(crate) indices: &'a [usize],
    pub(crate) values: &'a [Value],
}

/// The new values of a field edit: one for all elements, or one each.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NewValues<T> {
    Same(T),
    Each(Vec<T>),
}

/// Old and new values of one field over a list of elements.
#[derive(Debug)]
pub(crate) struct TypedValues<T> {
    indices: Vec<u32>,
    old: Vec<T>,
    new: NewValues<T>,
}

/// Type-erased [`TypedValues`].
pub trait FieldValues: fmt::Debug + Send + Sync {
    /// Writes the new (`true`) or the old values into the model.
    fn write(&self, model: &mut Model, target: EditTarget, path: &FieldPath, new: bool);
    fn indices(&self) -> &[u32];
    fn heap_size(&self) -> usize;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// Takes `other`'s new values, if it sets the same elements in the same type (a later step of
    /// the same gesture). They are moved, not copied: `other` is left with these values' old
    /// new ones.
    fn take_new_from(&mut self, other: &mut dyn FieldValues) -> bool;
    /// Whether [`FieldValues::take_new_from`] would take `other`'s values.
    fn same_elements_as(&self, other: &dyn FieldValues) -> bool;
}

impl<T: FieldType> TypedValues<T> {
    /// New values without the old ones: only for an edit that merges into the step of its
    /// gesture, which has them ([`crate::edit::History::continue_gesture`]).
    pub(crate) fn new_only(indices: &[usize], new: NewValues<T>) -> Self {
        Self {
            indices: indices
                .iter()
                .map(|&i| u32::try_from(i).unwrap_or(u32::MAX))
                .collect(),
            old: Vec::new(),
            new,
        }
    }

    pub(crate) fn capture(
        model: &Model,
        target: EditTarget,
        path: &FieldPath,
        indices: &[usize],
        new: NewValues<T>,
    ) -> Result<Self, EditError> {
        let mut old = Vec::with_capacity(indices.len());
        let mut stored_indices = Vec::with_capacity(indices.len());
        for &index in indices {
            check_index(model, target, index)?;
            let node =
                resolve(model, target, index, path).ok_or_else(|| EditError::NoSuchField {
                    target,
                    index,
                    field: path.to_string(),
                })?;
            let value =
                node.as_any()
                    .downcast_ref::<T>()
                    .ok_or_else(|| EditError::FieldTypeMismatch {
                        target,
                        index,
                        field: path.to_string(),
                    })?;
            old.push(value.clone());
            stored_indices.push(
                u32::try_from(index).map_err(|_| EditError::IndexOutOfRange {
                    kind: target.name(),
                    index,
                    len: target.count(model),
                })?,
            );
        }
        Ok(Self {
            indices: stored_indices,
            old,
            new,
        })
    }
}

impl<T: FieldType> FieldValues for TypedValues<T> {
    fn write(&self, model: &mut Model, target: EditTarget, path: &FieldPath, new: bool) {
        let mut put = |index: u32, value: &T| {
            if let Some(node) = resolve_mut(model, target, index as usize, path)
                && let Some(slot) = node.as_any_mut().downcast_mut::<T>()
            {
                slot.clone_from(value);
            }
        };
        match (&self.new, new) {
            (NewValues::Same(value), true) => {
                for &index in &self.indices {
                    put(index, value);
                }
            }
            (NewValues::Each(values), true) => {
                for (&index, value) in self.indices.iter().zip(values) {
                    put(index, value);
                }
            }
            (_, false) => {
                for (&index, value) in self.indices.iter().zip(&self.old) {
                    put(index, value);
                }
            }
        }
    }

    fn indices(&self) -> &[u32] {
        &self.indices
    }

    fn heap_size(&self) -> usize {
        let new = match &self.new {
            NewValues::Same(value) => value.heap_size(),
            NewValues::Each(values) => values.heap_size(),
        };
        self.indices.capacity() * 4 + self.old.heap_size() + new
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn same_elements_as(&self, other: &dyn FieldValues) -> bool {
        other
            .as_any()
            .downcast_ref::<TypedValues<T>>()
            .is_some_and(|other| other.indices == self.indices)
    }

    fn take_new_from(&mut self, other: &mut dyn FieldValues) -> bool {
        match other.as_any_mut().downcast_mut::<TypedValues<T>>() {
            Some(other) if other.indices == self.indices => {
                std::mem::swap(&mut self.new, &mut other.new);
                true
            }
            _ => false,
        }
    }
}

pub(crate) fn build_values<T: FieldType>(
    request: &SetRequest<'_>,
) -> Result<Box<dyn FieldValues>, EditError> {
    let parse = |value: &Value| {
        T::from_json(value).map_err(|message| EditError::InvalidValue {
            target: request.target,
            field: request.path.to_string(),
            message,
        })
    };
    let new = match request.values {
        [one] => NewValues::Same(parse(one)?),
        many if many.len() == request.indices.len() => {
            NewValues::Each(many.iter().map(parse).collect::<Result<_, _>>()?)
        }
        many => {
            return Err(EditError::ValueCount {
                values: many.len(),
                indices: request.indices.len(),
            });
        }
    };
    let values = TypedValues::<T>::capture(
        request.model,
        request.target,
        request.path,
        request.indices,
        new,
    )?;
    Ok(Box::new(values))
}

/// The places under `node` (paths relative to it) whose floats are NaN or infinite, each named
/// down to the value that holds them: an `f32`, a vector, or the list an entry of which holds
/// one (`diffuse`, `ik.limit_angle`, `ik.links`, `config.dp`, `offsets`). The walk goes through
/// every child ([`Reflect::for_each_child`]), so a float field added to the model is checked
/// without being listed anywhere.
pub fn non_finite_places(node: &dyn Reflect) -> Vec<FieldPath> {
    fn is_value(node: &dyn Reflect) -> bool {
        let any = node.as_any();
        any.is::<f32>() || any.is::<Vec2>() || any.is::<Vec3>() || any.is::<Vec4>()
    }
    fn has_non_finite(node: &dyn Reflect) -> bool {
        if let Some(value) = node.as_any().downcast_ref::<f32>() {
            return !value.is_finite();
        }
        let mut found = false;
        node.for_each_child(&mut |_, child| found = found || has_non_finite(child));
        found
    }
    fn walk(node: &dyn Reflect, path: &FieldPath, out: &mut Vec<FieldPath>) {
        node.for_each_child(&mut |segment, child| {
            if segment.index().is_some() {
                // A list entry: the list is the place.
                if has_non_finite(child) && out.last() != Some(path) {
                    out.push(path.clone());
                }
                return;
            }
            let Segment::Field(name) = segment else {
                return;
            };
            let here = match name {
                Cow::Borrowed(name) => path.clone().field(name),
                Cow::Owned(_) => return,
            };
            if is_value(child) {
                if has_non_finite(child) {
                    out.push(here);
                }
            } else {
                walk(child, &here, out);
            }
        });
    }
    let mut out = Vec::new();
    walk(node, &FieldPath::whole(), &mut out);
    out
}

/// Replaces every NaN or infinite float under `node` with `value`.
pub fn replace_non_finite(node: &mut dyn Reflect, value: f32) {
    if let Some(float) = node.as_any_mut().downcast_mut::<f32>() {
        if !float.is_finite() {
            *float = value;
        }
        return;
    }
    node.for_each_child_mut(&mut |_, child| replace_non_finite(child, value));
}
