//! Script API version 2: the model's elements as objects with fields.
//!
//! An element in a script is a [`Place`]: a kind, an index and a field path, nothing more.
//! Reading a field goes to the model lent for the run (and to the script's own assignments,
//! [`super::written`]) at that moment and converts that one field, so a read costs the same
//! on a model of a million vertices as on a cube: a path of a few steps walked through the
//! model's `Reflect` nodes, one look at the written fields, one value converted. Nothing
//! copies an element, a list or the model. `model.vertices` is an [`ElementList`]: a kind, whose
//! length, items and iteration are read from the model when asked.
//!
//! A field that holds one value reads as that value in its own type: floats, whole numbers,
//! `true`/`false`, strings, references to other elements as their index (-1 for none, as in
//! the PMX file), enumerations as their lower-case name. A field that holds several (a vector,
//! a flag set, a list, a structure such as a bone's `ik`) reads as another [`Place`], so that
//! `v.position.y += 0.5` and `bone.flags.visible = false` name exactly the field they change.
//!
//! What this module does not do: convert a script's values to the model's (the caller does,
//! through [`super::values`]) or queue edits ([`super::queue`]).

use super::lent::{MODEL, fail, to_int};
use super::written::{WRITTEN, Written, json_at, set_json_at};
use pmx_core::Model;
use pmx_core::edit::{EditTarget, FieldPath, FieldType, Reflect, resolve_path};
use pmx_core::model::{
    BoneFlags, BoneIdx, DrawFlags, ElementKind, MaterialIdx, Morph, MorphIdx, RigidBodyIdx,
    SoftBodyFlags, Text, TextureIdx, VertexIdx, Weight,
};
use pmx_core::path::{ModelPath, Segment};
use rhai::{Dynamic, EvalAltResult, FLOAT, INT};
use serde_json::Value;
use std::borrow::Cow;

/// `model.bones`, `model.vertices`, ...: the elements of one kind, read when indexed, counted or
/// looped over (it holds none of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ElementList {
    pub kind: ElementKind,
}

/// An element of the model (`model.bones[3]`), the header or the info, or a field inside one
/// that holds several values (`bone.ik`, `vertex.position`, `bone.flags`, `morph.offsets`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub target: EditTarget,
    /// 0 for the header and the info.
    pub index: usize,
    pub path: FieldPath,
}

/// A step from a place: `.name` or `[index]`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step<'a> {
    Name(&'a str),
    Index(INT),
}

/// What a step from a place names.
#[derive(Debug)]
pub(crate) enum Located {
    /// A field or a list item, read or assigned as a whole. `refers`: it holds a reference to
    /// another element (an index; -1 is none).
    Field { place: Place, refers: bool },
    /// One flag of a flag set (`bone.flags.visible`).
    Flag { flags: Place, flag: Flag },
    /// A value that follows from others and cannot be assigned (why not, in words).
    Fixed { value: Value, why: &'static str },
}

/// A value read from a place.
#[derive(Debug)]
pub(crate) enum Read {
    Value(Dynamic),
    Place(Place),
    /// In the model's JSON form (enumerations, names that did not decode, what a script
    /// assigned where the model had nothing).
    Json(Value),
}

/// The flag sets of the model, whose flags read as named booleans.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FlagSet {
    Bone,
    Draw,
    SoftBody,
}

/// One flag of a flag set.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Flag {
    pub set: FlagSet,
    pub bit: u32,
}

macro_rules! flag_sets {
    ($($set:ident => $ty:ty),* $(,)?) => {
        impl FlagSet {
            /// The set and its bits, if `node` is a flag set.
            fn of(node: &dyn Reflect) -> Option<(FlagSet, u32)> {
                $(if let Some(flags) = node.as_any().downcast_ref::<$ty>() {
                    return Some((FlagSet::$set, u32::from(flags.bits())));
                })*
                None
            }

            /// The bit of the flag named `name` (`visible`, `VISIBLE`).
            fn bit(self, name: &str) -> Option<u32> {
                let name = name.to_ascii_uppercase();
                match self {
                    $(FlagSet::$set => <$ty>::from_name(&name).map(|flag| u32::from(flag.bits())),)*
                }
            }

            /// Every flag's name, as scripts write it.
            fn names(self) -> Vec<String> {
                match self {
                    $(FlagSet::$set => <$ty>::all()
                        .iter_names()
                        .map(|(name, _)| name.to_ascii_lowercase())
                        .collect(),)*
                }
            }

            /// The JSON form of a set with `bits` (bits the set does not name are kept).
            pub(crate) fn to_json(self, bits: u32) -> Value {
                match self {
                    $(FlagSet::$set => {
                        <$ty>::from_bits_retain(bits.try_into().unwrap_or_default()).to_json()
                    })*
                }
            }

            fn parse(self, json: &Value) -> Result<u32, String> {
                match self {
                    $(FlagSet::$set => {
                        <$ty as FieldType>::from_json(json).map(|flags| u32::from(flags.bits()))
                    })*
                }
            }
        }
    };
}

flag_sets!(Bone => BoneFlags, Draw => DrawFlags, SoftBody => SoftBodyFlags);

/// Converts a leaf of the model (a value with no fields) to a script value, and parses what a
/// script assigned to such a leaf back into the leaf's type.
macro_rules! leaves {
    (
        numbers: [$($number:ty),*],
        references: [$($reference:ty),*]
    ) => {
        /// The script value of a leaf: numbers in their type, references as their index (-1
        /// for none), names as strings; anything else in its JSON form.
        fn leaf_value(node: &dyn Reflect) -> Read {
            let any = node.as_any();
            if let Some(value) = any.downcast_ref::<f32>() {
                return Read::Value(Dynamic::from_float(FLOAT::from(*value)));
            }
            if let Some(value) = any.downcast_ref::<bool>() {
                return Read::Value(Dynamic::from_bool(*value));
            }
            $(if let Some(value) = any.downcast_ref::<$number>() {
                return Read::Value(Dynamic::from_int(INT::from(*value)));
            })*
            if let Some(value) = any.downcast_ref::<VertexIdx>() {
                return Read::Value(Dynamic::from_int(INT::from(value.0)));
            }
            $(if let Some(value) = any.downcast_ref::<Option<$reference>>() {
                return Read::Value(Dynamic::from_int(INT::from(<$reference>::to_raw(*value))));
            })*
            if let Some(Text::Str(text)) = any.downcast_ref::<Text>() {
                return Read::Value(Dynamic::from(text.clone()));
            }
            Read::Json(node.to_json())
        }

        /// Whether `node` holds a reference to another element.
        fn is_reference(node: &dyn Reflect) -> bool {
            let any = node.as_any();
            false $(|| any.is::<Option<$reference>>())*
        }

        /// `json` (what a script assigned) read as the type of `witness` (the model's value at
        /// that place), so that a read after a write gives what the model will hold: a float
        /// rounded to `f32`, a reference as its index.
        fn parsed_leaf(witness: &dyn Reflect, json: &Value) -> Read {
            let any = witness.as_any();
            macro_rules! as_type {
                ($ty:ty) => {
                    if any.is::<$ty>() {
                        if let Ok(value) = <$ty as FieldType>::from_json(json) {
                            return leaf_value(&value);
                        }
                    }
                };
            }
            as_type!(f32);
            as_type!(bool);
            $(as_type!($number);)*
            as_type!(VertexIdx);
            $(as_type!(Option<$reference>);)*
            as_type!(Text);
            Read::Json(json.clone())
        }

        /// `json` in the model's own JSON form for a leaf of `witness`'s type (`1` for a float
        /// field becomes `1.0`, `0.1` the `f32` nearest it); `None` for other types, or when it
        /// does not parse (the queued edit's check says why).
        fn canonical_leaf(witness: &dyn Reflect, json: &Value) -> Option<Value> {
            let any = witness.as_any();
            macro_rules! as_type {
                ($ty:ty) => {
                    if any.is::<$ty>() {
                        return <$ty as FieldType>::from_json(json).ok().map(|value| value.to_json());
                    }
                };
            }
            as_type!(f32);
            $(as_type!($number);)*
            as_type!(VertexIdx);
            $(as_type!(Option<$reference>);)*
            as_type!(BoneFlags);
            as_type!(DrawFlags);
            as_type!(SoftBodyFlags);
            None
        }
    };
}

leaves!(
    numbers: [u8, u16, u32, i32],
    references: [BoneIdx, TextureIdx, MaterialIdx, MorphIdx, RigidBodyIdx]
);

/// `json` in the model's JSON form for a value of `witness`'s type, leaf by leaf (lists take
/// their items' type from the model's list; what the model has no place for stays as it is).
fn canonical(witness: &dyn Reflect, json: Value) -> Value {
    if shape(witness) != Shape::Composite {
        return canonical_leaf(witness, &json).unwrap_or(json);
    }
    match json {
        Value::Array(items) => {
            let last = witness.list_len().map(|len| len.saturating_sub(1));
            Value::Array(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(position, item)| {
                        let position = last.map_or(position, |last| position.min(last));
                        match witness.child(&Segment::Index(position)) {
                            Some(child) => canonical(child, item),
                            None => item,
                        }
                    })
                    .collect(),
            )
        }
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .map(|(key, item)| {
                    let child = witness.child(&Segment::Field(Cow::Owned(key.clone())));
                    let item = match child {
                        Some(child) => canonical(child, item),
                        None => item,
                    };
                    (key, item)
                })
                .collect(),
        ),
        other => other,
    }
}

/// A node of the lent model a place names.
enum Node<'m> {
    Value(&'m dyn Reflect),
    /// A vertex's `additional_uvs`: one value per channel, each in its own list of the model.
    UvChannels(usize),
}

impl<'m> Node<'m> {
    fn value(&self) -> Option<&'m dyn Reflect> {
        match self {
            Node::Value(node) => Some(*node),
            Node::UvChannels(_) => None,
        }
    }
}

/// How a node reads: as one value, as a flag set, or as a place of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Leaf,
    Flags,
    Composite,
}

fn shape(node: &dyn Reflect) -> Shape {
    if FlagSet::of(node).is_some() {
        return Shape::Flags;
    }
    if node.list_len().is_some() {
        return Shape::Composite;
    }
    let mut has_children = false;
    node.for_each_child(&mut |_, _| has_children = true);
    if has_children {
        Shape::Composite
    } else {
        Shape::Leaf
    }
}

fn is_uv_channels(place: &Place) -> bool {
    place.target == EditTarget::Vertex
        && matches!(place.path.segments(), [Segment::Field(name)] if name == "additional_uvs")
}

fn node_at<'m>(model: &'m Model, place: &Place) -> Option<Node<'m>> {
    if is_uv_channels(place) {
        return Some(Node::UvChannels(model.additional_uvs.len()));
    }
    resolve_path(model, &place.model_path())
        .ok()
        .map(Node::Value)
}

/// Runs `read` on the lent model and the run's assignments.
fn with_lent<T>(read: impl FnOnce(&Model, &Written) -> Result<T, String>) -> Result<T, String> {
    if !MODEL.is_set() {
        return Err("the model can only be read while the script runs".to_owned());
    }
    MODEL.with(|model| {
        if WRITTEN.is_set() {
            WRITTEN.with(|written| read(model, &written.borrow()))
        } else {
            read(model, &Written::default())
        }
    })
}

impl ElementList {
    pub(crate) fn len(self) -> Result<usize, String> {
        with_lent(|model, _| Ok(model.count(self.kind)))
    }

    /// Element `index` (an error naming the count past the end).
    pub(crate) fn at(self, index: INT) -> Result<Place, String> {
        let count = self.len()?;
        usize::try_from(index)
            .ok()
            .filter(|&index| index < count)
            .map(|index| Place::element(self.kind.into(), index))
            .ok_or_else(|| {
                format!(
                    "{} {index} does not exist (the model has {count} {})",
                    self.kind.name(),
                    self.kind.list_name()
                )
            })
    }
}

/// The elements of a kind, one place at a time.
#[derive(Debug)]
pub(crate) struct Elements {
    kind: ElementKind,
    next: usize,
    count: usize,
}

impl Iterator for Elements {
    type Item = Place;

    fn next(&mut self) -> Option<Place> {
        (self.next < self.count).then(|| {
            self.next += 1;
            Place::element(self.kind.into(), self.next - 1)
        })
    }
}

/// `for bone in model.bones`: the count is read when the loop starts.
impl IntoIterator for ElementList {
    type Item = Place;
    type IntoIter = Elements;

    fn into_iter(self) -> Elements {
        Elements {
            kind: self.kind,
            next: 0,
            count: self.len().unwrap_or(0),
        }
    }
}

/// The items of a list place, one place at a time (an error first if it is no list).
#[derive(Debug)]
pub(crate) struct Items {
    list: Place,
    next: usize,
    count: Result<usize, String>,
}

impl Iterator for Items {
    type Item = Result<Place, Box<EvalAltResult>>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.count {
            Err(message) if !message.is_empty() => Some(Err(fail(std::mem::take(message)))),
            Err(_) => None,
            Ok(count) if self.next < *count => {
                self.next += 1;
                Some(Ok(self.list.child(Segment::Index(self.next - 1))))
            }
            Ok(_) => None,
        }
    }
}

/// `for link in bone.ik.links`: the length is read when the loop starts.
impl IntoIterator for Place {
    type Item = Result<Place, Box<EvalAltResult>>;
    type IntoIter = Items;

    fn into_iter(self) -> Items {
        let count = self.len();
        Items {
            list: self,
            next: 0,
            count,
        }
    }
}

impl Place {
    /// Element `index` of `target` (0 for the header and the info).
    pub(crate) fn element(target: EditTarget, index: usize) -> Self {
        Self {
            target,
            index,
            path: FieldPath::whole(),
        }
    }

    /// Whether this is a whole element (not a field inside one).
    pub(crate) fn is_element(&self) -> bool {
        self.path.is_whole() && self.target.element_kind().is_some()
    }

    fn child(&self, segment: Segment) -> Place {
        let mut segments = Vec::with_capacity(self.path.segments().len() + 1);
        segments.extend_from_slice(self.path.segments());
        segments.push(segment);
        Place {
            target: self.target,
            index: self.index,
            path: FieldPath::from_segments(segments),
        }
    }

    fn model_path(&self) -> ModelPath {
        ModelPath::of_target(self.target, self.index).join(&self.path)
    }

    /// The place in the one path grammar, for messages: `bones[3].ik.links`.
    pub(crate) fn describe(&self) -> String {
        self.model_path().to_string()
    }

    /// What `self.name` or `self[i]` names.
    pub(crate) fn locate(&self, step: Step<'_>) -> Result<Located, String> {
        with_lent(|model, written| {
            self.locate_in(model, written, step)
                .map(|(located, _)| located)
        })
    }

    /// The value of `self.name` or `self[i]`: read in one walk from the model's root to the
    /// place and one step on.
    pub(crate) fn get(&self, step: Step<'_>) -> Result<Read, String> {
        with_lent(|model, written| {
            let (located, node) = self.locate_in(model, written, step)?;
            match located {
                Located::Field { place, .. } => place.read_in(written, node),
                Located::Flag { flags, flag } => flags
                    .flag_bits_in(written, node, flag.set)
                    .map(|bits| Read::Value(Dynamic::from_bool(bits & flag.bit != 0))),
                Located::Fixed { value, .. } => Ok(Read::Json(value)),
            }
        })
    }

    /// What a step names, with the model's node there (for a flag: the flag set's node).
    fn locate_in<'m>(
        &self,
        model: &'m Model,
        written: &Written,
        step: Step<'_>,
    ) -> Result<(Located, Option<Node<'m>>), String> {
        let node = node_at(model, self);
        if let Some((set, _)) = node.as_ref().and_then(Node::value).and_then(FlagSet::of) {
            let Step::Name(name) = step else {
                return Err(format!(
                    "{} is a set of flags, read by name ({})",
                    self.describe(),
                    set.names().join(", ")
                ));
            };
            let bit = set.bit(name).ok_or_else(|| {
                format!(
                    "{} has no flag `{name}` (flags: {})",
                    self.describe(),
                    set.names().join(", ")
                )
            })?;
            let flag = Located::Flag {
                flags: self.clone(),
                flag: Flag { set, bit },
            };
            return Ok((flag, node));
        }
        let segment = match step {
            Step::Index(index) => self.item_segment(model, written, node.as_ref(), index)?,
            Step::Name(name) => {
                if let Some(fixed) = self.fixed(model, written, node.as_ref(), name)? {
                    return Ok((fixed, None));
                }
                match self.field_segment(node.as_ref(), name)? {
                    Some(segment) => segment,
                    // A texture is its path: `texture.path` is the element itself.
                    None => {
                        let field = Located::Field {
                            place: self.clone(),
                            refers: false,
                        };
                        return Ok((field, node));
                    }
                }
            }
        };
        let place = self.child(segment);
        // One step down from the node already found; a vertex's additional UVs live in
        // lists of their own, found from the root.
        let child = match (
            node.as_ref().and_then(Node::value),
            place.path.segments().last(),
        ) {
            (Some(parent), Some(segment)) if !is_uv_channels(&place) => {
                parent.child(segment).map(Node::Value)
            }
            _ => node_at(model, &place),
        };
        let refers = child
            .as_ref()
            .and_then(Node::value)
            .is_some_and(is_reference);
        Ok((Located::Field { place, refers }, child))
    }

    /// The step `[index]`, checked against the list's length (as the script wrote it, where
    /// it assigned the whole list).
    fn item_segment(
        &self,
        model: &Model,
        written: &Written,
        node: Option<&Node<'_>>,
        index: INT,
    ) -> Result<Segment, String> {
        let Ok(position) = usize::try_from(index) else {
            return Err(format!(
                "{}[{index}]: an index is never negative",
                self.describe()
            ));
        };
        let segment = Segment::Index(position);
        // A vector's components are items too (`position[0]` is `position.x`).
        if let Some(vector) = node
            .and_then(Node::value)
            .filter(|node| node.list_len().is_none() && node.child(&Segment::Index(0)).is_some())
        {
            return vector
                .child(&segment)
                .map(|_| segment)
                .ok_or_else(|| format!("{} has no [{position}]", self.describe()));
        }
        let len = self.len_in(model, written)?;
        if position < len {
            Ok(segment)
        } else {
            Err(format!(
                "{} has {len} items, no [{position}]",
                self.describe()
            ))
        }
    }

    /// The step `.name`: the field itself, or `name_ja` for `name` (and `comment_ja` for
    /// `comment`); `None` for a texture's `path` (the texture itself).
    fn field_segment(
        &self,
        node: Option<&Node<'_>>,
        name: &str,
    ) -> Result<Option<Segment>, String> {
        let named = |field: &str| Segment::Field(Cow::Owned(field.to_owned()));
        let node = match node {
            Some(Node::Value(node)) => *node,
            Some(Node::UvChannels(_)) => {
                return Err(format!(
                    "{} is a list of channels: [0] is the first",
                    self.describe()
                ));
            }
            // Not in the model, only in what the script assigned: any name may be there.
            None => return Ok(Some(named(name))),
        };
        if self.target == EditTarget::Texture && self.path.is_whole() && name == "path" {
            return Ok(None);
        }
        if self.target == EditTarget::Vertex && self.path.is_whole() && name == "additional_uvs" {
            return Ok(Some(named(name)));
        }
        let segment = named(name);
        if node.child(&segment).is_some() {
            return Ok(Some(segment));
        }
        let japanese = named(&format!("{name}_ja"));
        if node.child(&japanese).is_some() {
            return Ok(Some(japanese));
        }
        let mut fields = Vec::new();
        node.for_each_child(&mut |segment, _| {
            if let Some(field) = segment.name() {
                fields.push(field.to_owned());
            }
        });
        Err(if fields.is_empty() {
            format!("{} has no fields (it is one value)", self.describe())
        } else {
            format!(
                "{} has no field `{name}` (its fields: {})",
                self.describe(),
                fields.join(", ")
            )
        })
    }

    /// The values that follow from others: an element's `index`, a weight's `type`, a
    /// morph's `kind`.
    fn fixed(
        &self,
        model: &Model,
        written: &Written,
        node: Option<&Node<'_>>,
        name: &str,
    ) -> Result<Option<Located>, String> {
        if name == "index" && self.is_element() {
            return Ok(Some(Located::Fixed {
                value: Value::from(self.index),
                why: "an element's index is its place in the list (move it with the edit calls)",
            }));
        }
        let any = node.and_then(Node::value).map(Reflect::as_any);
        if name == "type" && any.is_some_and(|any| any.is::<Weight>()) {
            // The JSON form of a weight is small; it is the one that names the type.
            let weight = self.json_in(model, written)?;
            return Ok(Some(Located::Fixed {
                value: weight.get("type").cloned().unwrap_or(Value::Null),
                why: "a weight's type changes with the whole weight \
                      (v.weight = #{ type: \"bdef2\", bones: [3, 4], weight: 0.5 })",
            }));
        }
        if name == "kind"
            && let Some(morph) = any.and_then(|any| any.downcast_ref::<Morph>())
        {
            let kind = match written.covering(self.target, self.index, &self.path) {
                Some(covering) => json_at(covering.value, covering.below)
                    .and_then(|morph| morph.get("kind"))
                    .cloned()
                    .unwrap_or(Value::Null),
                None => serde_json::to_value(morph.offsets.kind()).unwrap_or(Value::Null),
            };
            return Ok(Some(Located::Fixed {
                value: kind,
                why: "a morph's kind changes with its offsets (assign the whole morph)",
            }));
        }
        Ok(None)
    }

    /// The value at this place, whose node in the model is `node`: one value, or this place
    /// again when it holds several.
    fn read_in(&self, written: &Written, node: Option<Node<'_>>) -> Result<Read, String> {
        let witness = node.as_ref().and_then(Node::value);
        let covering = if written.touches(self.target) {
            written.covering(self.target, self.index, &self.path)
        } else {
            None
        };
        if let Some(covering) = covering {
            let json = json_at(covering.value, covering.below).ok_or_else(|| {
                format!(
                    "{} is not in what the script assigned above it",
                    self.describe()
                )
            })?;
            let container = json.is_array() || json.is_object();
            return Ok(match witness {
                Some(witness)
                    if shape(witness) == Shape::Flags
                        || (shape(witness) == Shape::Composite && container) =>
                {
                    Read::Place(self.clone())
                }
                Some(witness) => parsed_leaf(witness, json),
                None if container => Read::Place(self.clone()),
                None => Read::Json(json.clone()),
            });
        }
        match node {
            None => Err(format!("{} is not in the model", self.describe())),
            Some(Node::UvChannels(_)) => Ok(Read::Place(self.clone())),
            Some(Node::Value(node)) => Ok(match shape(node) {
                Shape::Leaf => leaf_value(node),
                Shape::Flags | Shape::Composite => Read::Place(self.clone()),
            }),
        }
    }

    /// `json`, about to be assigned here, in the model's JSON form for this place (numbers in
    /// the field's type, a float rounded to `f32`), so that the queued edit and the script's
    /// later reads hold what the model will.
    pub(crate) fn canonical(&self, json: Value) -> Value {
        if !MODEL.is_set() {
            return json;
        }
        MODEL.with(|model| match node_at(model, self) {
            Some(Node::Value(node)) => canonical(node, json),
            _ => json,
        })
    }

    /// The bits of the flag set at this place, with the script's assignments.
    pub(crate) fn flag_bits(&self, set: FlagSet) -> Result<u32, String> {
        with_lent(|model, written| self.flag_bits_in(written, node_at(model, self), set))
    }

    fn flag_bits_in(
        &self,
        written: &Written,
        node: Option<Node<'_>>,
        set: FlagSet,
    ) -> Result<u32, String> {
        match written.covering(self.target, self.index, &self.path) {
            Some(covering) => json_at(covering.value, covering.below)
                .ok_or_else(|| format!("{} is not in the model", self.describe()))
                .and_then(|json| set.parse(json)),
            None => node
                .as_ref()
                .and_then(Node::value)
                .and_then(FlagSet::of)
                .map(|(_, bits)| bits)
                .ok_or_else(|| format!("{} is not a set of flags", self.describe())),
        }
    }

    /// The number of items of a list place.
    pub(crate) fn len(&self) -> Result<usize, String> {
        with_lent(|model, written| self.len_in(model, written))
    }

    fn len_in(&self, model: &Model, written: &Written) -> Result<usize, String> {
        let not_a_list = || format!("{} is not a list", self.describe());
        if let Some(covering) = written.covering(self.target, self.index, &self.path) {
            return json_at(covering.value, covering.below)
                .and_then(Value::as_array)
                .map(Vec::len)
                .ok_or_else(not_a_list);
        }
        match node_at(model, self) {
            Some(Node::UvChannels(count)) => Ok(count),
            Some(Node::Value(node)) => node.list_len().ok_or_else(not_a_list),
            None => Err(format!("{} is not in the model", self.describe())),
        }
    }

    /// The value at this place in the model's JSON form, with the script's assignments.
    pub(crate) fn to_json(&self) -> Result<Value, String> {
        with_lent(|model, written| self.json_in(model, written))
    }

    fn json_in(&self, model: &Model, written: &Written) -> Result<Value, String> {
        let (mut value, after) = match written.covering(self.target, self.index, &self.path) {
            Some(covering) => (
                json_at(covering.value, covering.below)
                    .cloned()
                    .ok_or_else(|| format!("{} is not in the model", self.describe()))?,
                covering.order,
            ),
            None => (
                match node_at(model, self) {
                    Some(Node::Value(node)) => node.to_json(),
                    Some(Node::UvChannels(_)) => Value::Array(
                        model
                            .additional_uvs
                            .iter()
                            .map(|channel| {
                                channel
                                    .get(self.index)
                                    .map_or(Value::Null, Reflect::to_json)
                            })
                            .collect(),
                    ),
                    None => return Err(format!("{} is not in the model", self.describe())),
                },
                0,
            ),
        };
        for (below, new) in written.inside(self.target, self.index, &self.path, after) {
            set_json_at(&mut value, below, new.clone());
        }
        Ok(value)
    }
}

/// The element a script names by its value: an index, or an element (`model.bones[3]`).
pub(crate) fn element_index(place: &Place) -> Option<INT> {
    place.is_element().then(|| to_int(place.index))
}
