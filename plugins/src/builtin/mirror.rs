//! ミラー: copy the selected half of a model to the other side, or make the other side match
//! it, as PmxEditor's mirror tools do.
//!
//! Two modes:
//! - `copy` duplicates the selected vertices (with the faces among them, winding reversed, in
//!   their own materials, and their vertex/UV morph offsets), bones, rigid bodies and joints,
//!   mirrored; copies of named elements get the other side's name (左↔右, `_L`↔`_R`, ...).
//! - `mirror` finds each selected element's counterpart on the other side (bones, rigid bodies
//!   and joints by their mirrored name, vertices by their mirrored position within
//!   `tolerance`, looked up in a grid) and gives it the selected element's values mirrored. It
//!   changes no topology: faces, UVs and names stay as they are.
//!
//! Mirroring in X negates x of points and vectors. Rotations are MikuMikuDance's Y-X-Z Euler
//! angles: a reflection in X keeps the rotation about X and negates those about Y and Z
//! (generally: the angle about the mirror axis stays, the two others negate), so angle limits
//! about the other two axes negate and swap (lower ↔ upper), and translation limits along the
//! mirror axis negate and swap. Bone references follow the counterpart bone when one exists
//! (a bone without a side, like 上半身, is its own counterpart).

use crate::api::{
    EditBatch, Needs, Plugin, PluginContext, PluginError, PluginGroup, PluginInfo, PluginOutput,
};
use crate::options::OptionSpec;
use pmx_core::Model;
use pmx_core::edit::{Edit, Element, Elements, SetField, field};
use pmx_core::model::{
    AngleLimits, Bone, BoneIdx, BoneMorphOffset, DisplayFrame, DisplayItem, ElementKind,
    ImpulseMorphOffset, Joint, Morph, MorphOffsets, RigidBody, RigidBodyIdx, Text, UvMorphOffset,
    Vec3, Vec4, Vertex, VertexIdx, VertexMorphOffset, Weight,
};
use pmx_core::validate::FixStep;
use std::collections::{HashMap, HashSet};

/// ミラー (左右コピー / 左右対称化).
#[derive(Debug, Clone, Copy)]
pub struct Mirror;

/// The axis a mirror reflects across (the component that changes sign).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    X,
    Y,
    Z,
}

impl Axis {
    fn index(self) -> usize {
        match self {
            Axis::X => 0,
            Axis::Y => 1,
            Axis::Z => 2,
        }
    }
}

/// A point or vector reflected: the axis component negated.
#[must_use]
pub fn reflect(v: Vec3, axis: Axis) -> Vec3 {
    match axis {
        Axis::X => Vec3::new(-v.x, v.y, v.z),
        Axis::Y => Vec3::new(v.x, -v.y, v.z),
        Axis::Z => Vec3::new(v.x, v.y, -v.z),
    }
}

/// Euler angles (any order of single-axis rotations, so MMD's Y-X-Z too) or an angular
/// quantity reflected: the rotation about the mirror axis stays, the two others negate.
#[must_use]
pub fn reflect_rotation(r: Vec3, axis: Axis) -> Vec3 {
    match axis {
        Axis::X => Vec3::new(r.x, -r.y, -r.z),
        Axis::Y => Vec3::new(-r.x, r.y, -r.z),
        Axis::Z => Vec3::new(-r.x, -r.y, r.z),
    }
}

/// A quaternion (x, y, z, w) reflected like [`reflect_rotation`].
#[must_use]
pub fn reflect_quaternion(q: Vec4, axis: Axis) -> Vec4 {
    let v = reflect_rotation(Vec3::new(q.x, q.y, q.z), axis);
    Vec4::new(v.x, v.y, v.z, q.w)
}

/// Angle limits reflected: about the two axes other than the mirror axis the range negates,
/// so its ends swap.
#[must_use]
pub fn reflect_angle_limits(lower: Vec3, upper: Vec3, axis: Axis) -> (Vec3, Vec3) {
    let mut lo = lower.to_array();
    let mut hi = upper.to_array();
    for component in 0..3 {
        if component != axis.index() {
            let (l, h) = (lo[component], hi[component]);
            lo[component] = -h;
            hi[component] = -l;
        }
    }
    (Vec3::from_array(lo), Vec3::from_array(hi))
}

/// Translation limits reflected: along the mirror axis the range negates and its ends swap.
#[must_use]
pub fn reflect_move_limits(lower: Vec3, upper: Vec3, axis: Axis) -> (Vec3, Vec3) {
    let mut lo = lower.to_array();
    let mut hi = upper.to_array();
    let component = axis.index();
    let (l, h) = (lo[component], hi[component]);
    lo[component] = -h;
    hi[component] = -l;
    (Vec3::from_array(lo), Vec3::from_array(hi))
}

pub use pmx_core::model::facts::mirrored_name;

/// Each element's counterpart by mirrored name: `Some(other)` for a sided name whose
/// counterpart exists, `Some(self)` for a name without a side, `None` for a sided name whose
/// counterpart is missing.
fn counterparts<'a>(names: impl Iterator<Item = std::borrow::Cow<'a, str>>) -> Vec<Option<usize>> {
    let names: Vec<String> = names.map(|name| name.into_owned()).collect();
    let mut first: HashMap<&str, usize> = HashMap::with_capacity(names.len());
    for (index, name) in names.iter().enumerate() {
        first.entry(name.as_str()).or_insert(index);
    }
    names
        .iter()
        .enumerate()
        .map(|(index, name)| match mirrored_name(name) {
            None => Some(index),
            Some(other) => first.get(other.as_str()).copied(),
        })
        .collect()
}

/// A reference to an element of a list that has counterparts (bones, rigid bodies).
trait Reference: Copy {
    fn position(self) -> usize;
    fn at(position: usize) -> Self;
}

impl Reference for BoneIdx {
    fn position(self) -> usize {
        self.get()
    }
    fn at(position: usize) -> Self {
        BoneIdx::new(position)
    }
}

impl Reference for RigidBodyIdx {
    fn position(self) -> usize {
        self.get()
    }
    fn at(position: usize) -> Self {
        RigidBodyIdx::new(position)
    }
}

/// Maps a reference: `map[r]` when known, else the reference unchanged.
fn map_ref<R: Reference>(reference: Option<R>, map: &[Option<usize>]) -> Option<R> {
    reference.map(|r| match map.get(r.position()).copied().flatten() {
        Some(other) => R::at(other),
        None => r,
    })
}

/// Maps a reference strictly: `None` (inside `Some`) when the element has a side and no
/// counterpart.
fn map_ref_strict<R: Reference>(reference: Option<R>, map: &[Option<usize>]) -> Option<Option<R>> {
    match reference {
        None => Some(None),
        Some(r) => map
            .get(r.position())
            .copied()
            .flatten()
            .map(|other| Some(R::at(other))),
    }
}

/// Where references go: the bone and rigid body maps of the mode (copies or counterparts).
struct Maps<'a> {
    bones: &'a [Option<usize>],
    bodies: &'a [Option<usize>],
}

/// What the named elements (bones, rigid bodies, joints) have alike: their list, their names,
/// the insert of new ones and their noun in notes.
trait Named: Sized {
    /// The plural noun in notes, English and Japanese.
    const NOUNS: (&'static str, &'static str);
    fn list(model: &Model) -> &[Self];
    fn names(&self) -> [&Text; 2];
    fn names_mut(&mut self) -> [&mut Text; 2];
    fn inserted(items: Vec<Self>) -> Elements;
}

macro_rules! named {
    ($($ty:ty => $list:ident, $elements:ident, $nouns:expr;)*) => {$(
        impl Named for $ty {
            const NOUNS: (&'static str, &'static str) = $nouns;
            fn list(model: &Model) -> &[Self] {
                &model.$list
            }
            fn names(&self) -> [&Text; 2] {
                [&self.name_ja, &self.name_en]
            }
            fn names_mut(&mut self) -> [&mut Text; 2] {
                [&mut self.name_ja, &mut self.name_en]
            }
            fn inserted(items: Vec<Self>) -> Elements {
                Elements::$elements(items)
            }
        }
    )*};
}

named! {
    Bone => bones, Bones, ("bones", "ボーン");
    RigidBody => rigid_bodies, RigidBodies, ("rigid bodies", "剛体");
    Joint => joints, Joints, ("joints", "Joint");
}

/// Bones, rigid bodies and joints: the named elements both modes pair up by their 左/右 names
/// and treat alike, apart from their geometry and the references they hold.
trait Sided: Named + Element + Clone + PartialEq {
    /// The element reflected in `axis` (references untouched).
    fn mirrored(&self, axis: Axis) -> Self;
    /// A copy's references: copied elements name their copies, sided ones their
    /// counterparts, the rest stay.
    fn map_copy(&mut self, maps: &Maps<'_>);
    /// References onto the other side (mirror mode): one whose counterpart is missing keeps
    /// the value `current` (the element being overwritten) has.
    fn map_onto(&mut self, original: &Self, current: &Self, maps: &Maps<'_>);
}

impl Sided for Bone {
    fn mirrored(&self, axis: Axis) -> Self {
        let mut out = self.clone();
        out.position = reflect(self.position, axis);
        out.tail_offset = reflect(self.tail_offset, axis);
        out.fixed_axis = reflect(self.fixed_axis, axis);
        out.local_axis_x = reflect(self.local_axis_x, axis);
        out.local_axis_z = reflect(self.local_axis_z, axis);
        for link in &mut out.ik.links {
            if let Some(limits) = &mut link.limits {
                let (lower, upper) = reflect_angle_limits(limits.lower, limits.upper, axis);
                *limits = AngleLimits { lower, upper };
            }
        }
        out
    }
    fn map_copy(&mut self, maps: &Maps<'_>) {
        self.parent = map_ref(self.parent, maps.bones);
        self.tail_bone = map_ref(self.tail_bone, maps.bones);
        self.append_parent = map_ref(self.append_parent, maps.bones);
        self.ik.target = map_ref(self.ik.target, maps.bones);
        for link in &mut self.ik.links {
            link.bone = map_ref(link.bone, maps.bones);
        }
    }
    fn map_onto(&mut self, original: &Self, current: &Self, maps: &Maps<'_>) {
        let strict = |bone| map_ref_strict(bone, maps.bones);
        self.parent = strict(original.parent).unwrap_or(current.parent);
        self.tail_bone = strict(original.tail_bone).unwrap_or(current.tail_bone);
        self.append_parent = strict(original.append_parent).unwrap_or(current.append_parent);
        let target = strict(original.ik.target);
        let links: Option<Vec<Option<BoneIdx>>> = original
            .ik
            .links
            .iter()
            .map(|link| strict(link.bone))
            .collect();
        match (target, links) {
            (Some(target), Some(links)) => {
                self.ik.target = target;
                for (link, mapped) in self.ik.links.iter_mut().zip(links) {
                    link.bone = mapped;
                }
            }
            _ => self.ik = current.ik.clone(),
        }
    }
}

impl Sided for RigidBody {
    fn mirrored(&self, axis: Axis) -> Self {
        let mut out = self.clone();
        out.position = reflect(self.position, axis);
        out.rotation = reflect_rotation(self.rotation, axis);
        out
    }
    fn map_copy(&mut self, maps: &Maps<'_>) {
        self.bone = map_ref(self.bone, maps.bones);
    }
    fn map_onto(&mut self, original: &Self, current: &Self, maps: &Maps<'_>) {
        self.bone = map_ref_strict(original.bone, maps.bones).unwrap_or(current.bone);
    }
}

impl Sided for Joint {
    fn mirrored(&self, axis: Axis) -> Self {
        let mut out = self.clone();
        out.position = reflect(self.position, axis);
        out.rotation = reflect_rotation(self.rotation, axis);
        (out.move_lower, out.move_upper) =
            reflect_move_limits(self.move_lower, self.move_upper, axis);
        (out.rotate_lower, out.rotate_upper) =
            reflect_angle_limits(self.rotate_lower, self.rotate_upper, axis);
        out
    }
    fn map_copy(&mut self, maps: &Maps<'_>) {
        self.body_a = map_ref(self.body_a, maps.bodies);
        self.body_b = map_ref(self.body_b, maps.bodies);
    }
    fn map_onto(&mut self, original: &Self, current: &Self, maps: &Maps<'_>) {
        self.body_a = map_ref_strict(original.body_a, maps.bodies).unwrap_or(current.body_a);
        self.body_b = map_ref_strict(original.body_b, maps.bodies).unwrap_or(current.body_b);
    }
}

/// Each element of kind `T`'s counterpart by its mirrored Japanese name.
fn counterparts_of<T: Sided>(model: &Model) -> Vec<Option<usize>> {
    counterparts(T::list(model).iter().map(|item| item.names()[0].as_str()))
}

/// A weight mirrored: its bones mapped by `map_bone`, SDEF's points reflected.
fn mirror_weight(
    weight: &Weight,
    axis: Axis,
    map_bone: &mut dyn FnMut(Option<BoneIdx>) -> Option<Option<BoneIdx>>,
) -> Option<Weight> {
    let mut weight = weight.clone();
    for slot in weight.bones_mut() {
        *slot = map_bone(*slot)?;
    }
    if let Weight::Sdef { c, r0, r1, .. } = &mut weight {
        *c = reflect(*c, axis);
        *r0 = reflect(*r0, axis);
        *r1 = reflect(*r1, axis);
    }
    Some(weight)
}

fn renamed(name: &Text, swap: bool) -> Text {
    if !swap {
        return name.clone();
    }
    match mirrored_name(&name.as_str()) {
        Some(other) => other.into(),
        None => name.clone(),
    }
}

/// Indices of `kind` selected and in range.
fn selected(cx: &PluginContext<'_>, kind: ElementKind) -> Vec<usize> {
    let count = cx.model.count(kind);
    cx.selection
        .get(kind)
        .iter()
        .copied()
        .filter(|&index| index < count)
        .collect()
}

/// A grid of vertex positions for lookups within `tolerance` (cells of that size: a match is
/// in the cell of the looked-up point or a neighbour).
struct PositionGrid {
    cell: f32,
    cells: HashMap<[i64; 3], Vec<u32>>,
}

impl PositionGrid {
    fn new(vertices: &[Vertex], tolerance: f32) -> Self {
        let cell = tolerance.max(1e-6);
        let mut cells: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
        for (index, vertex) in vertices.iter().enumerate() {
            if vertex.position.is_finite() {
                let key = Self::key(vertex.position, cell);
                cells
                    .entry(key)
                    .or_default()
                    .push(u32::try_from(index).unwrap_or(u32::MAX));
            }
        }
        Self { cell, cells }
    }

    #[allow(clippy::cast_possible_truncation)]
    fn key(p: Vec3, cell: f32) -> [i64; 3] {
        // `as` saturates, so a huge coordinate lands in an edge cell instead of overflowing.
        [
            (p.x / cell).floor() as i64,
            (p.y / cell).floor() as i64,
            (p.z / cell).floor() as i64,
        ]
    }

    /// The vertex nearest `p` within `tolerance`, other than `except`.
    fn nearest(
        &self,
        vertices: &[Vertex],
        p: Vec3,
        tolerance: f32,
        except: usize,
    ) -> Option<usize> {
        if !p.is_finite() {
            return None;
        }
        let [kx, ky, kz] = Self::key(p, self.cell);
        let mut best: Option<(f32, usize)> = None;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    let key = [
                        kx.saturating_add(dx),
                        ky.saturating_add(dy),
                        kz.saturating_add(dz),
                    ];
                    for &index in self.cells.get(&key).into_iter().flatten() {
                        let index = index as usize;
                        if index == except {
                            continue;
                        }
                        let Some(vertex) = vertices.get(index) else {
                            continue;
                        };
                        let q = vertex.position;
                        let distance =
                            ((q.x - p.x).powi(2) + (q.y - p.y).powi(2) + (q.z - p.z).powi(2))
                                .sqrt();
                        if distance <= tolerance && best.is_none_or(|(d, _)| distance < d) {
                            best = Some((distance, index));
                        }
                    }
                }
            }
        }
        best.map(|(_, index)| index)
    }
}

impl Plugin for Mirror {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "mirror".to_owned(),
            group: PluginGroup::Mirror,
            name_ja: "ミラー".to_owned(),
            name_en: "Mirror".to_owned(),
            description_ja: "選択した頂点・ボーン・剛体・Jointを反対側へ左右反転でコピーします(コピー)。または反対側の対応する要素(ボーン・剛体・Jointは左右の名前、頂点は反転位置で検索)を選択側に合わせます(ミラー)。コピーでは選択頂点間の面も面の向きを反転して同じ材質に追加し、頂点モーフも複製します。".to_owned(),
            description_en: "Copies the selected vertices, bones, rigid bodies and joints mirrored to the other side (copy), or makes their counterparts on the other side (bones, rigid bodies and joints found by their left/right names, vertices by their mirrored position) match them (mirror). A copy takes the faces among the selected vertices along, winding reversed, into the same materials, and their morph offsets.".to_owned(),
            version: "1.0".to_owned(),
            needs: Needs::Nothing,
            options: vec![
                OptionSpec::choice(
                    "mode",
                    "方式",
                    "Mode",
                    "copy",
                    vec![
                        ("copy", "反対側へコピー", "Copy to the other side"),
                        ("mirror", "反対側を選択側に合わせる", "Make the other side match"),
                    ],
                ),
                OptionSpec::choice(
                    "axis",
                    "反転軸",
                    "Axis",
                    "x",
                    vec![("x", "X", "X"), ("y", "Y", "Y"), ("z", "Z", "Z")],
                ),
                OptionSpec::number(
                    "tolerance",
                    "頂点検索の許容距離",
                    "Vertex match tolerance",
                    0.001,
                    0.0,
                    1.0,
                    "",
                ),
            ],
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let axis = match cx.options.text("axis") {
            "y" => Axis::Y,
            "z" => Axis::Z,
            _ => Axis::X,
        };
        let selection = Selected {
            vertices: selected(cx, ElementKind::Vertex),
            bones: selected(cx, ElementKind::Bone),
            bodies: selected(cx, ElementKind::RigidBody),
            joints: selected(cx, ElementKind::Joint),
        };
        if selection.is_empty() {
            return Err(PluginError::refused(
                "select vertices, bones, rigid bodies or joints first",
                "先に頂点・ボーン・剛体・Jointを選択してください",
            ));
        }
        if cx.options.text("mode") == "mirror" {
            #[allow(clippy::cast_possible_truncation)]
            let tolerance = cx.options.number("tolerance") as f32;
            mirror_mode(cx.model, &selection, axis, tolerance)
        } else {
            copy_mode(cx.model, &selection, axis)
        }
    }
}

struct Selected {
    vertices: Vec<usize>,
    bones: Vec<usize>,
    bodies: Vec<usize>,
    joints: Vec<usize>,
}

impl Selected {
    fn is_empty(&self) -> bool {
        self.vertices.is_empty()
            && self.bones.is_empty()
            && self.bodies.is_empty()
            && self.joints.is_empty()
    }
}

/// Where each element goes in a copy: the copy's index for a copied element, else its
/// counterpart by name, else itself.
fn copy_map(count: usize, copied: &[usize], counterpart: &[Option<usize>]) -> Vec<Option<usize>> {
    let mut map: Vec<Option<usize>> = (0..count)
        .map(|index| counterpart.get(index).copied().flatten().or(Some(index)))
        .collect();
    for (k, &original) in copied.iter().enumerate() {
        if let Some(slot) = map.get_mut(original) {
            *slot = Some(count + k);
        }
    }
    map
}

#[allow(clippy::too_many_lines)]
fn copy_mode(model: &Model, selection: &Selected, axis: Axis) -> Result<PluginOutput, PluginError> {
    let swap_names = axis == Axis::X;
    let mut batch = EditBatch::new();
    let mut notes: Vec<(String, String)> = Vec::new();

    let bone_map = copy_map(
        model.bones.len(),
        &selection.bones,
        &if swap_names {
            counterparts_of::<Bone>(model)
        } else {
            Vec::new()
        },
    );
    let body_map = copy_map(
        model.rigid_bodies.len(),
        &selection.bodies,
        &if swap_names {
            counterparts_of::<RigidBody>(model)
        } else {
            Vec::new()
        },
    );
    let maps = Maps {
        bones: &bone_map,
        bodies: &body_map,
    };
    let mut unchanged_names = 0usize;

    // Bones first, so that the copied bodies and vertices can name the copies.
    let copies = [
        copy_sided::<Bone>(model, &selection.bones, axis, &maps, &mut unchanged_names),
        copy_sided::<RigidBody>(model, &selection.bodies, axis, &maps, &mut unchanged_names),
        copy_sided::<Joint>(model, &selection.joints, axis, &maps, &mut unchanged_names),
    ];
    for step in copies.into_iter().flatten() {
        batch.push(step);
    }

    let vertex_count = model.vertices.len();
    let mut vertex_map: HashMap<usize, usize> = HashMap::new();
    let mut copied_faces = 0usize;
    if !selection.vertices.is_empty() {
        let mut vertices = Vec::with_capacity(selection.vertices.len());
        for (k, &index) in selection.vertices.iter().enumerate() {
            let original = &model.vertices[index];
            let weight = mirror_weight(&original.weight, axis, &mut |bone| {
                Some(map_ref(bone, &bone_map))
            })
            .unwrap_or_else(|| original.weight.clone());
            vertices.push(Vertex {
                position: reflect(original.position, axis),
                normal: reflect(original.normal, axis),
                uv: original.uv,
                weight,
                edge_scale: original.edge_scale,
            });
            vertex_map.insert(index, vertex_count + k);
        }
        let additional_uvs = model
            .additional_uvs
            .iter()
            .map(|channel| {
                selection
                    .vertices
                    .iter()
                    .map(|&index| channel.get(index).copied().unwrap_or_default())
                    .collect()
            })
            .collect();
        batch.push(FixStep::Insert {
            at: None,
            elements: Elements::Vertices {
                vertices,
                additional_uvs,
            },
        });

        // Faces wholly among the selected vertices, winding reversed so the copy faces out.
        for (material, range) in model.material_face_ranges().into_iter().enumerate() {
            let faces: Vec<[VertexIdx; 3]> = model.faces[range]
                .iter()
                .filter_map(|face| {
                    let a = *vertex_map.get(&face[0].get())?;
                    let b = *vertex_map.get(&face[1].get())?;
                    let c = *vertex_map.get(&face[2].get())?;
                    Some([VertexIdx::new(a), VertexIdx::new(c), VertexIdx::new(b)])
                })
                .collect();
            if faces.is_empty() {
                continue;
            }
            copied_faces += faces.len();
            let what = (
                format!("copy {} faces into material {material}", faces.len()),
                format!("面{}個を材質{material}へコピー", faces.len()),
            );
            batch.push_build(what, move |model| {
                Edit::insert_faces(model, material, faces)
            });
        }
    }

    // Morph offsets of the copied vertices, bones and bodies, for their copies.
    let bone_copy: HashMap<usize, usize> = selection
        .bones
        .iter()
        .enumerate()
        .map(|(k, &b)| (b, model.bones.len() + k))
        .collect();
    let body_copy: HashMap<usize, usize> = selection
        .bodies
        .iter()
        .enumerate()
        .map(|(k, &b)| (b, model.rigid_bodies.len() + k))
        .collect();
    let (morph_indices, morph_offsets) =
        copied_morph_offsets(model, axis, &vertex_map, &bone_copy, &body_copy);
    let morphs_touched = morph_indices.len();
    if !morph_indices.is_empty() {
        batch.push(FixStep::Set(SetField::each(
            field::<Morph>().offsets(),
            morph_indices,
            morph_offsets,
        )));
    }

    // Copied bones join the display frames of their originals, right after them.
    if !bone_copy.is_empty() {
        let (frame_indices, frame_items) = frames_with_copies(model, &bone_copy);
        if !frame_indices.is_empty() {
            batch.push(FixStep::Set(SetField::each(
                field::<DisplayFrame>().items(),
                frame_indices,
                frame_items,
            )));
        }
    }

    let mut output = PluginOutput::new(batch);
    output.note(
        format!(
            "copied mirrored: {} vertices, {copied_faces} faces, {} bones, {} rigid bodies, {} joints; {morphs_touched} morphs extended",
            selection.vertices.len(),
            selection.bones.len(),
            selection.bodies.len(),
            selection.joints.len()
        ),
        format!(
            "反転コピー: 頂点{}個, 面{copied_faces}個, ボーン{}個, 剛体{}個, Joint{}個; モーフ{morphs_touched}個に追加",
            selection.vertices.len(),
            selection.bones.len(),
            selection.bodies.len(),
            selection.joints.len()
        ),
    );
    if unchanged_names > 0 {
        notes.push((
            format!(
                "{unchanged_names} copies keep their original's name (it has no 左/右 or L/R side)"
            ),
            format!("{unchanged_names}個のコピーは名前に左右がないため元と同じ名前です"),
        ));
    }
    for (en, ja) in notes {
        output.note(en, ja);
    }
    Ok(output)
}

/// The insert of mirrored copies of the `selected` elements of kind `T`, named for the other
/// side (counted in `unchanged_names` when the name has no side); `None` when none is selected.
fn copy_sided<T: Sided>(
    model: &Model,
    selected: &[usize],
    axis: Axis,
    maps: &Maps<'_>,
    unchanged_names: &mut usize,
) -> Option<FixStep> {
    if selected.is_empty() {
        return None;
    }
    let swap_names = axis == Axis::X;
    let list = T::list(model);
    let copies = selected
        .iter()
        .map(|&index| {
            let original = &list[index];
            let mut copy = original.mirrored(axis);
            for (name, original_name) in copy.names_mut().into_iter().zip(original.names()) {
                *name = renamed(original_name, swap_names);
            }
            if copy.names()[0] == original.names()[0] {
                *unchanged_names += 1;
            }
            copy.map_copy(maps);
            copy
        })
        .collect();
    Some(FixStep::Insert {
        at: None,
        elements: T::inserted(copies),
    })
}

/// The morphs that gain offsets for copies, with their whole new offset lists.
fn copied_morph_offsets(
    model: &Model,
    axis: Axis,
    vertex_map: &HashMap<usize, usize>,
    bone_copy: &HashMap<usize, usize>,
    body_copy: &HashMap<usize, usize>,
) -> (Vec<usize>, Vec<MorphOffsets>) {
    fn extend_uv(
        list: &[UvMorphOffset],
        map: &HashMap<usize, usize>,
    ) -> Option<Vec<UvMorphOffset>> {
        let added: Vec<UvMorphOffset> = list
            .iter()
            .filter_map(|o| {
                map.get(&o.vertex.get()).map(|&copy| UvMorphOffset {
                    vertex: VertexIdx::new(copy),
                    offset: o.offset,
                })
            })
            .collect();
        (!added.is_empty()).then(|| list.iter().copied().chain(added).collect())
    }
    let mut indices = Vec::new();
    let mut values = Vec::new();
    for (index, morph) in model.morphs.iter().enumerate() {
        let extended = match &morph.offsets {
            MorphOffsets::Vertex(list) if !vertex_map.is_empty() => {
                let added: Vec<VertexMorphOffset> = list
                    .iter()
                    .filter_map(|o| {
                        vertex_map
                            .get(&o.vertex.get())
                            .map(|&copy| VertexMorphOffset {
                                vertex: VertexIdx::new(copy),
                                offset: reflect(o.offset, axis),
                            })
                    })
                    .collect();
                (!added.is_empty())
                    .then(|| MorphOffsets::Vertex(list.iter().copied().chain(added).collect()))
            }
            MorphOffsets::Uv(list) if !vertex_map.is_empty() => {
                extend_uv(list, vertex_map).map(MorphOffsets::Uv)
            }
            MorphOffsets::AdditionalUv1(list) if !vertex_map.is_empty() => {
                extend_uv(list, vertex_map).map(MorphOffsets::AdditionalUv1)
            }
            MorphOffsets::AdditionalUv2(list) if !vertex_map.is_empty() => {
                extend_uv(list, vertex_map).map(MorphOffsets::AdditionalUv2)
            }
            MorphOffsets::AdditionalUv3(list) if !vertex_map.is_empty() => {
                extend_uv(list, vertex_map).map(MorphOffsets::AdditionalUv3)
            }
            MorphOffsets::AdditionalUv4(list) if !vertex_map.is_empty() => {
                extend_uv(list, vertex_map).map(MorphOffsets::AdditionalUv4)
            }
            MorphOffsets::Bone(list) if !bone_copy.is_empty() => {
                let added: Vec<BoneMorphOffset> = list
                    .iter()
                    .filter_map(|o| {
                        let copy = bone_copy.get(&o.bone?.get())?;
                        Some(BoneMorphOffset {
                            bone: Some(BoneIdx::new(*copy)),
                            translation: reflect(o.translation, axis),
                            rotation: reflect_quaternion(o.rotation, axis),
                        })
                    })
                    .collect();
                (!added.is_empty())
                    .then(|| MorphOffsets::Bone(list.iter().copied().chain(added).collect()))
            }
            MorphOffsets::Impulse(list) if !body_copy.is_empty() => {
                let added: Vec<ImpulseMorphOffset> = list
                    .iter()
                    .filter_map(|o| {
                        let copy = body_copy.get(&o.rigid_body?.get())?;
                        Some(ImpulseMorphOffset {
                            rigid_body: Some(RigidBodyIdx::new(*copy)),
                            local: o.local,
                            velocity: reflect(o.velocity, axis),
                            // Angular quantities are pseudovectors: they reflect like rotations.
                            torque: reflect_rotation(o.torque, axis),
                        })
                    })
                    .collect();
                (!added.is_empty())
                    .then(|| MorphOffsets::Impulse(list.iter().copied().chain(added).collect()))
            }
            _ => None,
        };
        if let Some(offsets) = extended {
            indices.push(index);
            values.push(offsets);
        }
    }
    (indices, values)
}

fn frames_with_copies(
    model: &Model,
    bone_copy: &HashMap<usize, usize>,
) -> (Vec<usize>, Vec<Vec<DisplayItem>>) {
    let mut indices = Vec::new();
    let mut values = Vec::new();
    for (index, frame) in model.display_frames.iter().enumerate() {
        let mut items = Vec::with_capacity(frame.items.len());
        let mut added = false;
        for item in &frame.items {
            items.push(*item);
            if let DisplayItem::Bone(Some(bone)) = item
                && let Some(&copy) = bone_copy.get(&bone.get())
            {
                items.push(DisplayItem::Bone(Some(BoneIdx::new(copy))));
                added = true;
            }
        }
        if added {
            indices.push(index);
            values.push(items);
        }
    }
    (indices, values)
}

/// Pairs (source, target) of selected elements and their counterparts; the sources whose
/// counterpart is missing, and those skipped because the counterpart is selected too.
struct Pairs {
    pairs: Vec<(usize, usize)>,
    missing: Vec<usize>,
    both_selected: usize,
}

fn pair_up(selected: &[usize], counterpart: &[Option<usize>]) -> Pairs {
    let chosen: HashSet<usize> = selected.iter().copied().collect();
    let mut pairs = Pairs {
        pairs: Vec::new(),
        missing: Vec::new(),
        both_selected: 0,
    };
    for &source in selected {
        match counterpart.get(source).copied().flatten() {
            None => pairs.missing.push(source),
            // A centre element is its own counterpart: nothing to mirror onto.
            Some(target) if target == source => {}
            Some(target) if chosen.contains(&target) => pairs.both_selected += 1,
            Some(target) => pairs.pairs.push((source, target)),
        }
    }
    pairs
}

fn name_list<'a>(names: impl Iterator<Item = std::borrow::Cow<'a, str>>) -> String {
    let names: Vec<String> = names.map(|n| format!("「{n}」")).collect();
    let shown: Vec<&String> = names.iter().take(10).collect();
    let more = names.len().saturating_sub(10);
    let mut text = shown
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    if more > 0 {
        text.push_str(&format!(" (+{more})"));
    }
    text
}

#[allow(clippy::too_many_lines)]
fn mirror_mode(
    model: &Model,
    selection: &Selected,
    axis: Axis,
    tolerance: f32,
) -> Result<PluginOutput, PluginError> {
    let mut batch = EditBatch::new();
    let mut notes: Vec<(String, String)> = Vec::new();
    let named =
        !selection.bones.is_empty() || !selection.bodies.is_empty() || !selection.joints.is_empty();
    if named && axis != Axis::X {
        notes.push((
            "bones, rigid bodies and joints pair up by their 左/右 names, which only means something across X: they were skipped".to_owned(),
            "ボーン・剛体・Jointは左右の名前で対応を取るため、X軸以外では処理しませんでした".to_owned(),
        ));
    }
    let by_name = axis == Axis::X;
    let bone_map = counterparts_of::<Bone>(model);
    let body_map = counterparts_of::<RigidBody>(model);
    let maps = Maps {
        bones: &bone_map,
        bodies: &body_map,
    };
    let mut both_selected = 0usize;
    let mut changed = [0usize; 4];

    if by_name {
        let mut onto = Onto {
            model,
            axis,
            maps: &maps,
            notes: &mut notes,
            both_selected: &mut both_selected,
        };
        let steps = [
            onto.sided::<Bone>(&selection.bones),
            onto.sided::<RigidBody>(&selection.bodies),
            onto.sided::<Joint>(&selection.joints),
        ];
        for (slot, (count, step)) in steps.into_iter().enumerate() {
            changed[slot + 1] = count;
            if let Some(step) = step {
                batch.push(step);
            }
        }
    }

    if !selection.vertices.is_empty() {
        let (vertex_changes, vertex_notes, skipped_both) = mirror_vertices(
            model,
            &selection.vertices,
            axis,
            tolerance,
            &bone_map,
            &mut batch,
        );
        changed[0] = vertex_changes;
        both_selected += skipped_both;
        notes.extend(vertex_notes);
    }

    if both_selected > 0 {
        notes.push((
            format!(
                "{both_selected} selected elements were skipped because their counterpart is selected too (select one side only)"
            ),
            format!("{both_selected}個の選択要素は反対側も選択されていたため処理しませんでした(片側だけを選択してください)"),
        ));
    }
    if batch.is_empty() {
        let (en, ja): (Vec<String>, Vec<String>) = notes.into_iter().unzip();
        return Err(PluginError::refused(
            if en.is_empty() {
                "the other side already matches".to_owned()
            } else {
                format!("nothing to mirror: {}", en.join("; "))
            },
            if ja.is_empty() {
                "反対側はすでに一致しています".to_owned()
            } else {
                format!("ミラーする対象がありません: {}", ja.join("; "))
            },
        ));
    }
    let mut output = PluginOutput::new(batch);
    output.note(
        format!(
            "mirrored onto the other side: {} vertices, {} bones, {} rigid bodies, {} joints",
            changed[0], changed[1], changed[2], changed[3]
        ),
        format!(
            "反対側へミラー: 頂点{}個, ボーン{}個, 剛体{}個, Joint{}個",
            changed[0], changed[1], changed[2], changed[3]
        ),
    );
    for (en, ja) in notes {
        output.note(en, ja);
    }
    Ok(output)
}

/// What mirror mode needs to set the counterparts of one kind of named element.
struct Onto<'a> {
    model: &'a Model,
    axis: Axis,
    maps: &'a Maps<'a>,
    notes: &'a mut Vec<(String, String)>,
    both_selected: &'a mut usize,
}

impl Onto<'_> {
    /// Gives the counterpart of each of the `selected` elements of kind `T` that element's
    /// values mirrored (keeping the counterpart's names): how many changed, and the set.
    fn sided<T: Sided>(&mut self, selected: &[usize]) -> (usize, Option<FixStep>) {
        if selected.is_empty() {
            return (0, None);
        }
        let list = T::list(self.model);
        let pairs = pair_up(selected, &counterparts_of::<T>(self.model));
        *self.both_selected += pairs.both_selected;
        if !pairs.missing.is_empty() {
            let names = name_list(pairs.missing.iter().map(|&i| list[i].names()[0].as_str()));
            let (en, ja) = T::NOUNS;
            let count = pairs.missing.len();
            self.notes.push((
                format!("{count} {en} have no counterpart on the other side: {names}"),
                format!("反対側の{ja}が見つかりません({count}個): {names}"),
            ));
        }
        let mut indices = Vec::new();
        let mut values = Vec::new();
        for (source, target) in pairs.pairs {
            let original = &list[source];
            let current = &list[target];
            let mut item = original.mirrored(self.axis);
            for (name, kept) in item.names_mut().into_iter().zip(current.names()) {
                *name = kept.clone();
            }
            item.map_onto(original, current, self.maps);
            if item != *current {
                indices.push(target);
                values.push(item);
            }
        }
        let count = indices.len();
        let step = (!indices.is_empty())
            .then(|| FixStep::Set(SetField::each(field::<T>(), indices, values)));
        (count, step)
    }
}

/// Mirror mode for vertices: each selected vertex's counterpart (the vertex nearest its
/// mirrored position within `tolerance`) takes its mirrored position, normal and weight, and
/// its vertex morph offsets. Returns the number of vertices set, notes, and how many were
/// skipped because both sides were selected.
fn mirror_vertices(
    model: &Model,
    selected: &[usize],
    axis: Axis,
    tolerance: f32,
    bone_map: &[Option<usize>],
    batch: &mut EditBatch,
) -> (usize, Vec<(String, String)>, usize) {
    let mut notes = Vec::new();
    let grid = PositionGrid::new(&model.vertices, tolerance);
    let chosen: HashSet<usize> = selected.iter().copied().collect();
    let mut source_of: HashMap<usize, usize> = HashMap::new();
    let mut missing = 0usize;
    let mut both = 0usize;
    let mut on_plane = 0usize;
    for &source in selected {
        let position = model.vertices[source].position;
        let mirrored = reflect(position, axis);
        let along = position.to_array()[axis.index()];
        if along.abs() <= tolerance {
            // On the mirror plane: the vertex is its own counterpart.
            on_plane += 1;
            continue;
        }
        match grid.nearest(&model.vertices, mirrored, tolerance, source) {
            None => missing += 1,
            Some(target) if chosen.contains(&target) => both += 1,
            Some(target) => {
                source_of.entry(target).or_insert(source);
            }
        }
    }
    let mut targets: Vec<usize> = source_of.keys().copied().collect();
    targets.sort_unstable();
    let mut kept_weights = 0usize;
    let mut positions = Vec::with_capacity(targets.len());
    let mut normals = Vec::with_capacity(targets.len());
    let mut weights = Vec::with_capacity(targets.len());
    for &target in &targets {
        let source = &model.vertices[source_of[&target]];
        positions.push(reflect(source.position, axis));
        normals.push(reflect(source.normal, axis));
        let weight = if axis == Axis::X {
            mirror_weight(&source.weight, axis, &mut |bone| {
                map_ref_strict(bone, bone_map)
            })
        } else {
            mirror_weight(&source.weight, axis, &mut |bone| Some(bone))
        };
        weights.push(weight.unwrap_or_else(|| {
            kept_weights += 1;
            model.vertices[target].weight.clone()
        }));
    }
    if !targets.is_empty() {
        batch.push(FixStep::Set(SetField::each(
            field::<Vertex>().position(),
            targets.clone(),
            positions,
        )));
        batch.push(FixStep::Set(SetField::each(
            field::<Vertex>().normal(),
            targets.clone(),
            normals,
        )));
        batch.push(FixStep::Set(SetField::each(
            field::<Vertex>().weight(),
            targets.clone(),
            weights,
        )));
        let (morph_indices, morph_values) = mirrored_vertex_morphs(model, axis, &source_of);
        if !morph_indices.is_empty() {
            batch.push(FixStep::Set(SetField::each(
                field::<Morph>().offsets(),
                morph_indices,
                morph_values,
            )));
        }
    }
    if missing > 0 {
        notes.push((
            format!(
                "{missing} selected vertices have no vertex at their mirrored position (within {tolerance})"
            ),
            format!("{missing}個の選択頂点は反転位置({tolerance}以内)に頂点がありません"),
        ));
    }
    if on_plane > 0 {
        notes.push((
            format!("{on_plane} selected vertices lie on the mirror plane and were left alone"),
            format!("{on_plane}個の選択頂点は対称面上にあるため変更しませんでした"),
        ));
    }
    if kept_weights > 0 {
        notes.push((
            format!(
                "{kept_weights} vertices kept their own weights: a bone of the source has no counterpart"
            ),
            format!("{kept_weights}個の頂点は反対側のボーンがないためウェイトを変更しませんでした"),
        ));
    }
    (targets.len(), notes, both)
}

/// Vertex morphs whose offsets change in mirror mode: the targets' own offsets go, the
/// sources' offsets come mirrored onto the targets.
fn mirrored_vertex_morphs(
    model: &Model,
    axis: Axis,
    source_of: &HashMap<usize, usize>,
) -> (Vec<usize>, Vec<MorphOffsets>) {
    let target_of: HashMap<usize, usize> = source_of.iter().map(|(&t, &s)| (s, t)).collect();
    let mut indices = Vec::new();
    let mut values = Vec::new();
    for (index, morph) in model.morphs.iter().enumerate() {
        let MorphOffsets::Vertex(list) = &morph.offsets else {
            continue;
        };
        let touches = list.iter().any(|o| {
            source_of.contains_key(&o.vertex.get()) || target_of.contains_key(&o.vertex.get())
        });
        if !touches {
            continue;
        }
        let mut offsets: Vec<VertexMorphOffset> = list
            .iter()
            .filter(|o| !source_of.contains_key(&o.vertex.get()))
            .copied()
            .collect();
        offsets.extend(list.iter().filter_map(|o| {
            target_of
                .get(&o.vertex.get())
                .map(|&target| VertexMorphOffset {
                    vertex: VertexIdx::new(target),
                    offset: reflect(o.offset, axis),
                })
        }));
        if offsets != *list {
            indices.push(index);
            values.push(MorphOffsets::Vertex(offsets));
        }
    }
    (indices, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_swap_sides_in_both_languages() {
        assert_eq!(mirrored_name("左腕").as_deref(), Some("右腕"));
        assert_eq!(mirrored_name("右足ＩＫ").as_deref(), Some("左足ＩＫ"));
        assert_eq!(mirrored_name("ウィンク右").as_deref(), Some("ウィンク左"));
        assert_eq!(mirrored_name("arm_L").as_deref(), Some("arm_R"));
        assert_eq!(mirrored_name("eye_R end").as_deref(), Some("eye_L end"));
        assert_eq!(mirrored_name("hand.L").as_deref(), Some("hand.R"));
        assert_eq!(mirrored_name("LeftThumb1").as_deref(), Some("RightThumb1"));
        assert_eq!(mirrored_name("上半身"), None);
        // `_Lx` is not a side marker.
        assert_eq!(mirrored_name("hair_Long"), None);
    }

    #[test]
    fn limits_negate_and_swap() {
        let (lower, upper) = reflect_angle_limits(
            Vec3::new(-1.0, -0.5, -0.25),
            Vec3::new(2.0, 0.75, 0.125),
            Axis::X,
        );
        assert_eq!(lower, Vec3::new(-1.0, -0.75, -0.125));
        assert_eq!(upper, Vec3::new(2.0, 0.5, 0.25));
        let (lower, upper) = reflect_move_limits(
            Vec3::new(-1.0, -2.0, -3.0),
            Vec3::new(4.0, 5.0, 6.0),
            Axis::X,
        );
        assert_eq!(lower, Vec3::new(-4.0, -2.0, -3.0));
        assert_eq!(upper, Vec3::new(1.0, 5.0, 6.0));
    }

    #[test]
    fn reflected_euler_angles_are_the_mirrored_rotation() {
        use pmx_core::model::facts::euler_to_quat;
        let angles = Vec3::new(0.3, -0.7, 1.1);
        let m = glam::Mat3::from_diagonal(glam::Vec3::new(-1.0, 1.0, 1.0));
        let r = glam::Mat3::from_quat(euler_to_quat(angles));
        let expected = m * r * m;
        let mirrored = glam::Mat3::from_quat(euler_to_quat(reflect_rotation(angles, Axis::X)));
        assert!(mirrored.abs_diff_eq(expected, 1e-6));
    }
}
