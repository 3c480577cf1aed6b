//! Elements taken out of a model or to be put into it, and list operations by position.

use super::reflect::{FieldType, HeapSize};
use crate::model::*;
use std::ops::Range;
use std::sync::Arc;

/// A list of elements of one kind (removed by a deletion, or to insert).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Elements {
    /// Nothing (the elements are in the model).
    #[default]
    None,
    /// Vertices with their additional UVs: `additional_uvs[channel][k]` belongs to `vertices[k]`
    /// (channels the list lacks are zero).
    Vertices {
        vertices: Vec<Vertex>,
        additional_uvs: Vec<Vec<Vec4>>,
    },
    Faces(Vec<Face>),
    Textures(Vec<Text>),
    Materials(Vec<Material>),
    Bones(Vec<Bone>),
    Morphs(Vec<Morph>),
    DisplayFrames(Vec<DisplayFrame>),
    RigidBodies(Vec<RigidBody>),
    Joints(Vec<Joint>),
    SoftBodies(Vec<SoftBody>),
}

/// Runs `$body` with `$list` bound to the model's list of the elements' kind and `$items` to the
/// elements (vertices are handled by the callers, because of their additional UVs).
macro_rules! with_lists {
    ($model:expr, $elements:expr, |$list:ident, $items:ident| $body:expr, vertices => $vertices:expr, none => $none:expr) => {
        match $elements {
            Elements::None => $none,
            Elements::Vertices { .. } => $vertices,
            Elements::Faces($items) => {
                let $list = &mut $model.faces;
                $body
            }
            Elements::Textures($items) => {
                let $list = &mut $model.textures;
                $body
            }
            Elements::Materials($items) => {
                let $list = &mut $model.materials;
                $body
            }
            Elements::Bones($items) => {
                let $list = &mut $model.bones;
                $body
            }
            Elements::Morphs($items) => {
                let $list = &mut $model.morphs;
                $body
            }
            Elements::DisplayFrames($items) => {
                let $list = &mut $model.display_frames;
                $body
            }
            Elements::RigidBodies($items) => {
                let $list = &mut $model.rigid_bodies;
                $body
            }
            Elements::Joints($items) => {
                let $list = &mut $model.joints;
                $body
            }
            Elements::SoftBodies($items) => {
                let $list = &mut $model.soft_bodies;
                $body
            }
        }
    };
}

impl Elements {
    /// An empty list of `kind`.
    #[must_use]
    pub fn empty(kind: ElementKind) -> Self {
        match kind {
            ElementKind::Vertex => Elements::Vertices {
                vertices: Vec::new(),
                additional_uvs: Vec::new(),
            },
            ElementKind::Face => Elements::Faces(Vec::new()),
            ElementKind::Texture => Elements::Textures(Vec::new()),
            ElementKind::Material => Elements::Materials(Vec::new()),
            ElementKind::Bone => Elements::Bones(Vec::new()),
            ElementKind::Morph => Elements::Morphs(Vec::new()),
            ElementKind::DisplayFrame => Elements::DisplayFrames(Vec::new()),
            ElementKind::RigidBody => Elements::RigidBodies(Vec::new()),
            ElementKind::Joint => Elements::Joints(Vec::new()),
            ElementKind::SoftBody => Elements::SoftBodies(Vec::new()),
        }
    }

    #[must_use]
    pub fn kind(&self) -> Option<ElementKind> {
        Some(match self {
            Elements::None => return None,
            Elements::Vertices { .. } => ElementKind::Vertex,
            Elements::Faces(_) => ElementKind::Face,
            Elements::Textures(_) => ElementKind::Texture,
            Elements::Materials(_) => ElementKind::Material,
            Elements::Bones(_) => ElementKind::Bone,
            Elements::Morphs(_) => ElementKind::Morph,
            Elements::DisplayFrames(_) => ElementKind::DisplayFrame,
            Elements::RigidBodies(_) => ElementKind::RigidBody,
            Elements::Joints(_) => ElementKind::Joint,
            Elements::SoftBodies(_) => ElementKind::SoftBody,
        })
    }

    #[must_use]
    pub fn len(&self) -> usize {
        match self {
            Elements::None => 0,
            Elements::Vertices { vertices, .. } => vertices.len(),
            Elements::Faces(v) => v.len(),
            Elements::Textures(v) => v.len(),
            Elements::Materials(v) => v.len(),
            Elements::Bones(v) => v.len(),
            Elements::Morphs(v) => v.len(),
            Elements::DisplayFrames(v) => v.len(),
            Elements::RigidBodies(v) => v.len(),
            Elements::Joints(v) => v.len(),
            Elements::SoftBodies(v) => v.len(),
        }
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Copies of the elements of `kind` at `indices` (in range; checked by the caller).
    #[must_use]
    pub fn clone_from_model(model: &Model, kind: ElementKind, indices: &[usize]) -> Self {
        fn pick<T: Clone>(list: &[T], indices: &[usize]) -> Vec<T> {
            indices
                .iter()
                .filter_map(|&i| list.get(i).cloned())
                .collect()
        }
        match kind {
            ElementKind::Vertex => Elements::Vertices {
                vertices: pick(&model.vertices, indices),
                additional_uvs: model
                    .additional_uvs
                    .iter()
                    .map(|channel| pick(channel, indices))
                    .collect(),
            },
            ElementKind::Face => Elements::Faces(pick(&model.faces, indices)),
            ElementKind::Texture => Elements::Textures(pick(&model.textures, indices)),
            ElementKind::Material => Elements::Materials(pick(&model.materials, indices)),
            ElementKind::Bone => Elements::Bones(pick(&model.bones, indices)),
            ElementKind::Morph => Elements::Morphs(pick(&model.morphs, indices)),
            ElementKind::DisplayFrame => {
                Elements::DisplayFrames(pick(&model.display_frames, indices))
            }
            ElementKind::RigidBody => Elements::RigidBodies(pick(&model.rigid_bodies, indices)),
            ElementKind::Joint => Elements::Joints(pick(&model.joints, indices)),
            ElementKind::SoftBody => Elements::SoftBodies(pick(&model.soft_bodies, indices)),
        }
    }

    /// Takes the elements of `kind` at `positions` (ascending) out of `model`.
    pub(crate) fn take(model: &mut Model, kind: ElementKind, positions: &[u32]) -> Self {
        let mut taken = Elements::empty(kind);
        match &mut taken {
            Elements::Vertices {
                vertices,
                additional_uvs,
            } => {
                *vertices = take_positions(&mut model.vertices, positions);
                *additional_uvs = model
                    .additional_uvs
                    .iter_mut()
                    .map(|channel| take_positions(channel, positions))
                    .collect();
            }
            other => {
                with_lists!(model, other, |list, items| *items = take_positions(list, positions),
                vertices => {}, none => {})
            }
        }
        taken
    }

    /// Puts the elements into `model` so that they end up at `positions` (ascending).
    pub(crate) fn put(self, model: &mut Model, positions: &[u32]) {
        match self {
            Elements::Vertices {
                vertices,
                mut additional_uvs,
            } => {
                let count = vertices.len();
                put_positions(&mut model.vertices, positions, vertices);
                for (channel, list) in model.additional_uvs.iter_mut().enumerate() {
                    let mut values = additional_uvs
                        .get_mut(channel)
                        .map(std::mem::take)
                        .unwrap_or_default();
                    values.resize(count, Vec4::ZERO);
                    put_positions(list, positions, values);
                }
            }
            other => with_lists!(model, other, |list, items| put_positions(list, positions, items),
                vertices => {}, none => {}),
        }
    }

    /// Permutes the list of `kind`: element `order[i]` moves to `i`.
    pub(crate) fn permute_model(model: &mut Model, kind: ElementKind, order: &[u32]) {
        match kind {
            ElementKind::Vertex => {
                permute(&mut model.vertices, order);
                for channel in &mut model.additional_uvs {
                    permute(channel, order);
                }
            }
            ElementKind::Face => permute(&mut model.faces, order),
            ElementKind::Texture => permute(&mut model.textures, order),
            ElementKind::Material => {
                permute_face_blocks(model, order);
                permute(&mut model.materials, order);
            }
            ElementKind::Bone => permute(&mut model.bones, order),
            ElementKind::Morph => permute(&mut model.morphs, order),
            ElementKind::DisplayFrame => permute(&mut model.display_frames, order),
            ElementKind::RigidBody => permute(&mut model.rigid_bodies, order),
            ElementKind::Joint => permute(&mut model.joints, order),
            ElementKind::SoftBody => permute(&mut model.soft_bodies, order),
        }
    }
}

impl HeapSize for Elements {
    fn heap_size(&self) -> usize {
        match self {
            Elements::None => 0,
            Elements::Vertices {
                vertices,
                additional_uvs,
            } => vertices.heap_size() + additional_uvs.heap_size(),
            Elements::Faces(v) => v.heap_size(),
            Elements::Textures(v) => v.heap_size(),
            Elements::Materials(v) => v.heap_size(),
            Elements::Bones(v) => v.heap_size(),
            Elements::Morphs(v) => v.heap_size(),
            Elements::DisplayFrames(v) => v.heap_size(),
            Elements::RigidBodies(v) => v.heap_size(),
            Elements::Joints(v) => v.heap_size(),
            Elements::SoftBodies(v) => v.heap_size(),
        }
    }
}

/// Removes the items at `positions` (ascending, unique) and returns them in order. Positions
/// past the end are ignored.
pub(crate) fn take_positions<T>(list: &mut Vec<T>, positions: &[u32]) -> Vec<T> {
    let Some(&first) = positions.first() else {
        return Vec::new();
    };
    let first = first as usize;
    if first >= list.len() {
        return Vec::new();
    }
    if positions.len() == 1 {
        return vec![list.remove(first)];
    }
    let mut pending = positions.iter().peekable();
    let mut index = first;
    list.extract_if(first.., |_| {
        let hit = pending.peek().is_some_and(|&&p| p as usize == index);
        if hit {
            pending.next();
        }
        index += 1;
        hit
    })
    .collect()
}

/// Inserts `items` so that item `k` ends up at `positions[k]` (ascending, positions in the
/// resulting list). Positions past the end append.
pub(crate) fn put_positions<T>(list: &mut Vec<T>, positions: &[u32], items: Vec<T>) {
    let Some(&first) = positions.first() else {
        return;
    };
    let first = (first as usize).min(list.len());
    if items.len() == 1 {
        list.extend(items);
        let last = list.len() - 1;
        list[first..=last].rotate_right(1);
        return;
    }
    // Elements before `first` stay where they are. Splitting there moves the rest twice (out and
    // back); building a new list moves everything once: take the cheaper.
    let moved_by_split = 2 * (list.len() - first);
    let (mut merged, rest) = if moved_by_split < list.len() {
        let rest = list.split_off(first);
        (std::mem::take(list), rest)
    } else {
        let rest = std::mem::take(list);
        (Vec::new(), rest)
    };
    merged.reserve(rest.len() + items.len());
    let mut rest = rest.into_iter();
    for (&position, item) in positions.iter().zip(items) {
        let position = position as usize;
        if position > merged.len() {
            merged.extend(rest.by_ref().take(position - merged.len()));
        }
        merged.push(item);
    }
    merged.extend(rest);
    *list = merged;
}

/// Reorders `list`: the element at `order[i]` moves to `i`. `order` must be a permutation of
/// `0..list.len()` (checked when the edit is built); otherwise the list is left alone.
pub(crate) fn permute<T>(list: &mut Vec<T>, order: &[u32]) {
    if order.len() != list.len() {
        return;
    }
    let mut slots: Vec<Option<T>> = std::mem::take(list).into_iter().map(Some).collect();
    *list = order
        .iter()
        .filter_map(|&old| slots.get_mut(old as usize).and_then(Option::take))
        .collect();
}

/// Items removed from a list at positions (or, for insertions, put there). The positions are
/// shared with the [`Reindex`] the change reports.
#[derive(Debug)]
pub(crate) struct Removal<T> {
    pub(crate) positions: Arc<[u32]>,
    pub(crate) items: Vec<T>,
}

impl<T> Default for Removal<T> {
    fn default() -> Self {
        Self {
            positions: Arc::new([]),
            items: Vec::new(),
        }
    }
}

impl<T: FieldType> Removal<T> {
    pub(crate) fn at(positions: Vec<u32>) -> Self {
        Self {
            positions: positions.into(),
            items: Vec::new(),
        }
    }

    pub(crate) fn take(&mut self, list: &mut Vec<T>) {
        self.items = take_positions(list, &self.positions);
    }

    pub(crate) fn restore(&mut self, list: &mut Vec<T>) {
        put_positions(list, &self.positions, std::mem::take(&mut self.items));
    }

    pub(crate) fn heap_size(&self) -> usize {
        self.positions.len() * 4 + self.items.heap_size()
    }
}

/// Counts `positions` (ascending faces) per material.
pub(crate) fn face_counts_of(model: &Model, positions: &[u32]) -> Vec<(u32, u32)> {
    let ranges = material_face_ranges(model);
    let mut counts: Vec<(u32, u32)> = Vec::new();
    for material in materials_of_faces(&ranges, positions).into_iter().flatten() {
        match counts.last_mut() {
            Some((m, count)) if *m as usize == material => *count += 3,
            _ => counts.push((material as u32, 3)),
        }
    }
    counts
}

/// The face ranges each material draws ([`Model::material_face_ranges`]).
pub(crate) fn material_face_ranges(model: &Model) -> Vec<Range<usize>> {
    model.material_face_ranges()
}

/// The material whose face range holds face `position`, for each position (ascending), and
/// `None` for faces past every material.
pub(crate) fn materials_of_faces(ranges: &[Range<usize>], positions: &[u32]) -> Vec<Option<usize>> {
    let mut material = 0usize;
    positions
        .iter()
        .map(|&p| {
            let p = p as usize;
            while material < ranges.len() && ranges[material].end <= p {
                material += 1;
            }
            (material < ranges.len() && ranges[material].contains(&p)).then_some(material)
        })
        .collect()
}

/// Moves the face blocks of the materials with the materials: block `order[i]` becomes the
/// `i`-th; faces past every material stay at the end.
fn permute_face_blocks(model: &mut Model, order: &[u32]) {
    let ranges = material_face_ranges(model);
    if order.len() != ranges.len() {
        return;
    }
    let covered = ranges.last().map_or(0, |r| r.end);
    let mut faces = Vec::with_capacity(model.faces.len());
    for &old in order {
        if let Some(range) = ranges.get(old as usize)
            && let Some(block) = model.faces.get(range.clone())
        {
            faces.extend_from_slice(block);
        }
    }
    faces.extend_from_slice(model.faces.get(covered..).unwrap_or(&[]));
    model.faces = faces;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn take_and_put_are_inverse() {
        let mut list: Vec<u32> = (0..10).collect();
        let taken = take_positions(&mut list, &[0, 3, 4, 9]);
        assert_eq!(taken, vec![0, 3, 4, 9]);
        assert_eq!(list, vec![1, 2, 5, 6, 7, 8]);
        put_positions(&mut list, &[0, 3, 4, 9], taken);
        assert_eq!(list, (0..10).collect::<Vec<_>>());

        let taken = take_positions(&mut list, &[5]);
        assert_eq!(taken, vec![5]);
        put_positions(&mut list, &[5], taken);
        assert_eq!(list, (0..10).collect::<Vec<_>>());
        // Out-of-range positions are ignored, not a panic.
        assert!(take_positions(&mut list, &[20]).is_empty());
        put_positions(&mut list, &[30], vec![10]);
        assert_eq!(list.last(), Some(&10));
    }

    #[test]
    fn permute_moves_elements() {
        let mut list = vec!['a', 'b', 'c'];
        permute(&mut list, &[2, 0, 1]);
        assert_eq!(list, vec!['c', 'a', 'b']);
    }

    #[test]
    fn faces_belong_to_materials_by_range() {
        let ranges = vec![0..2, 2..2, 2..5];
        assert_eq!(
            materials_of_faces(&ranges, &[0, 1, 2, 4, 5]),
            vec![Some(0), Some(0), Some(2), Some(2), None]
        );
    }
}
