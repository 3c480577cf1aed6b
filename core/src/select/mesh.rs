//! Selections of vertices and faces worked out from the mesh: connected parts, materials,
//! weights, the X mirror and one ring more or less. Each query reads the model once (linear,
//! or n log n where it sorts) and keeps one flag or one root per vertex, never a list per
//! vertex, so a 1,000,000-vertex model answers in a fraction of a second.

use super::{from_flags, marked};
use crate::edit::PaintIndex;
use crate::model::{Model, Weight};

/// Disjoint sets over `0..len` (union by size, path halving).
struct UnionFind {
    parent: Vec<u32>,
    size: Vec<u32>,
}

impl UnionFind {
    fn new(len: usize) -> Self {
        Self {
            parent: (0..len as u32).collect(),
            size: vec![1; len],
        }
    }

    fn root(&mut self, mut node: usize) -> usize {
        while self.parent[node] as usize != node {
            let grandparent = self.parent[self.parent[node] as usize];
            self.parent[node] = grandparent;
            node = grandparent as usize;
        }
        node
    }

    fn join(&mut self, a: usize, b: usize) {
        let (mut a, mut b) = (self.root(a), self.root(b));
        if a == b {
            return;
        }
        if self.size[a] < self.size[b] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b] = a as u32;
        self.size[a] += self.size[b];
    }
}

/// A face's three vertex indices when all are in the model (a face naming a vertex past the
/// end, which the validator reports, joins nothing).
fn face_vertices(model: &Model, face: usize) -> Option<[usize; 3]> {
    let count = model.vertices.len();
    let corners = model.faces.get(face)?.map(|v| v.get());
    corners.iter().all(|&v| v < count).then_some(corners)
}

/// The vertices joined through faces (by shared vertex index), and with `by_position` also
/// the vertices at bit-identical positions (PMX splits vertices at UV and normal seams).
fn vertex_parts(model: &Model, by_position: bool) -> UnionFind {
    let mut parts = UnionFind::new(model.vertices.len());
    for face in 0..model.faces.len() {
        if let Some([a, b, c]) = face_vertices(model, face) {
            parts.join(a, b);
            parts.join(b, c);
        }
    }
    if by_position {
        let key = |v: u32| {
            model.vertices[v as usize]
                .position
                .to_array()
                .map(f32::to_bits)
        };
        let mut order: Vec<u32> = (0..model.vertices.len() as u32).collect();
        order.sort_unstable_by_key(|&v| key(v));
        for pair in order.windows(2) {
            if key(pair[0]) == key(pair[1]) {
                parts.join(pair[0] as usize, pair[1] as usize);
            }
        }
    }
    parts
}

/// The roots of the parts that hold `seeds` (seeds past the end are ignored), as flags.
fn seed_roots(parts: &mut UnionFind, len: usize, seeds: &[usize]) -> Vec<bool> {
    let mut roots = vec![false; len];
    for &seed in seeds.iter().filter(|&&seed| seed < len) {
        let root = parts.root(seed);
        roots[root] = true;
    }
    roots
}

fn linked_with(model: &Model, seeds: &[usize], by_position: bool) -> Vec<usize> {
    let len = model.vertices.len();
    let mut parts = vertex_parts(model, by_position);
    let roots = seed_roots(&mut parts, len, seeds);
    (0..len).filter(|&v| roots[parts.root(v)]).collect()
}

/// The vertices of the faces-connected parts that hold `seeds`: two vertices are connected
/// when a chain of faces joins them by shared vertex indices (a vertex in no face is a part of
/// its own). Sorted and distinct.
#[must_use]
pub fn linked_vertices(model: &Model, seeds: &[usize]) -> Vec<usize> {
    linked_with(model, seeds, false)
}

/// [`linked_vertices`] where vertices at bit-identical positions count as joined too: the
/// part as the eye sees it across the UV seams where PMX splits vertices.
#[must_use]
pub fn linked_vertices_by_position(model: &Model, seeds: &[usize]) -> Vec<usize> {
    linked_with(model, seeds, true)
}

/// The faces of the faces-connected parts that hold the faces `seeds` (connected through
/// shared vertex indices, as [`linked_vertices`]).
#[must_use]
pub fn linked_faces(model: &Model, seeds: &[usize]) -> Vec<usize> {
    let len = model.vertices.len();
    let mut parts = vertex_parts(model, false);
    let seed_vertices: Vec<usize> = seeds
        .iter()
        .filter_map(|&face| face_vertices(model, face))
        .map(|[a, _, _]| a)
        .collect();
    let roots = seed_roots(&mut parts, len, &seed_vertices);
    (0..model.faces.len())
        .filter(|&face| face_vertices(model, face).is_some_and(|[a, _, _]| roots[parts.root(a)]))
        .collect()
}

/// The faces the materials `materials` draw (their face ranges, `Model::material_face_ranges`).
#[must_use]
pub fn material_faces(model: &Model, materials: &[usize]) -> Vec<usize> {
    let ranges = model.material_face_ranges();
    let chosen = marked(materials, ranges.len());
    ranges
        .into_iter()
        .zip(chosen)
        .filter(|(_, chosen)| *chosen)
        .flat_map(|(range, _)| range)
        .collect()
}

/// The vertices of the faces the materials `materials` draw.
#[must_use]
pub fn material_vertices(model: &Model, materials: &[usize]) -> Vec<usize> {
    let mut flags = vec![false; model.vertices.len()];
    for face in material_faces(model, materials) {
        if let Some(corners) = face_vertices(model, face) {
            for v in corners {
                flags[v] = true;
            }
        }
    }
    from_flags(&flags)
}

/// The materials that draw a face holding one of `vertices`.
#[must_use]
pub fn materials_of_vertices(model: &Model, vertices: &[usize]) -> Vec<usize> {
    let chosen = marked(vertices, model.vertices.len());
    let ranges = model.material_face_ranges();
    (0..ranges.len())
        .filter(|&material| {
            ranges[material].clone().any(|face| {
                face_vertices(model, face).is_some_and(|corners| corners.iter().any(|&v| chosen[v]))
            })
        })
        .collect()
}

/// The materials that draw one of `faces`.
#[must_use]
pub fn materials_of_faces(model: &Model, faces: &[usize]) -> Vec<usize> {
    let ranges = model.material_face_ranges();
    let mut chosen = vec![false; ranges.len()];
    for &face in faces {
        if let Some(material) = ranges.iter().position(|range| range.contains(&face)) {
            chosen[material] = true;
        }
    }
    from_flags(&chosen)
}

/// The weight `vertex` gives each of `bones` (flags by bone index) summed: BDEF2 and SDEF's
/// second bone gets 1 − w, a bone listed twice counts twice.
fn weight_to(weight: &Weight, bones: &[bool]) -> f32 {
    let on = |bone: &Option<crate::model::BoneIdx>| {
        bone.is_some_and(|b| bones.get(b.get()).copied().unwrap_or(false))
    };
    let pairs = |listed: &[Option<crate::model::BoneIdx>], amounts: &[f32]| -> f32 {
        listed
            .iter()
            .zip(amounts)
            .filter(|(bone, _)| on(bone))
            .map(|(_, amount)| *amount)
            .sum()
    };
    match weight {
        Weight::Bdef1 { bone } => {
            if on(bone) {
                1.0
            } else {
                0.0
            }
        }
        Weight::Bdef2 { bones, weight } | Weight::Sdef { bones, weight, .. } => {
            pairs(bones, &[*weight, 1.0 - *weight])
        }
        Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => pairs(bones, weights),
    }
}

/// The vertices whose weight to the bones `bones` (summed when several are given) is above
/// `threshold` (use 0 for "weighted at all").
#[must_use]
pub fn weighted_vertices(model: &Model, bones: &[usize], threshold: f32) -> Vec<usize> {
    let chosen = marked(bones, model.bones.len());
    model
        .vertices
        .iter()
        .enumerate()
        .filter(|(_, vertex)| weight_to(&vertex.weight, &chosen) > threshold)
        .map(|(index, _)| index)
        .collect()
}

/// The X-mirror counterparts of `vertices` (the vertex at (−x, y, z), found as the weight
/// brush's X mirror finds it, [`PaintIndex::mirror_vertex`]); a vertex with none is left out,
/// one on the centre line is its own.
#[must_use]
pub fn mirror_vertices(model: &Model, vertices: &[usize]) -> Vec<usize> {
    mirror_vertices_with(model, &PaintIndex::lazy(model), vertices)
}

/// [`mirror_vertices`] with a lookup the caller keeps (the editor's, built once per model).
#[must_use]
pub fn mirror_vertices_with(model: &Model, index: &PaintIndex, vertices: &[usize]) -> Vec<usize> {
    let mut flags = vec![false; model.vertices.len()];
    for &vertex in vertices {
        if let Some(image) = index.mirror_vertex(model, vertex) {
            flags[image] = true;
        }
    }
    from_flags(&flags)
}

/// `vertices` and every vertex sharing a face with one of them (one ring more).
#[must_use]
pub fn grow_vertices(model: &Model, vertices: &[usize]) -> Vec<usize> {
    let selected = marked(vertices, model.vertices.len());
    let mut grown = selected.clone();
    for face in 0..model.faces.len() {
        if let Some(corners) = face_vertices(model, face)
            && corners.iter().any(|&v| selected[v])
        {
            for v in corners {
                grown[v] = true;
            }
        }
    }
    from_flags(&grown)
}

/// `vertices` less those sharing a face with a vertex not among them (one ring less).
#[must_use]
pub fn shrink_vertices(model: &Model, vertices: &[usize]) -> Vec<usize> {
    let selected = marked(vertices, model.vertices.len());
    let mut kept = selected.clone();
    for face in 0..model.faces.len() {
        if let Some(corners) = face_vertices(model, face)
            && corners.iter().any(|&v| !selected[v])
        {
            for v in corners {
                kept[v] = false;
            }
        }
    }
    from_flags(&kept)
}

/// `faces` and every face sharing a vertex with one of them.
#[must_use]
pub fn grow_faces(model: &Model, faces: &[usize]) -> Vec<usize> {
    let mut touched = vec![false; model.vertices.len()];
    for &face in faces {
        if let Some(corners) = face_vertices(model, face) {
            for v in corners {
                touched[v] = true;
            }
        }
    }
    let selected = marked(faces, model.faces.len());
    (0..model.faces.len())
        .filter(|&face| {
            selected[face]
                || face_vertices(model, face)
                    .is_some_and(|corners| corners.iter().any(|&v| touched[v]))
        })
        .collect()
}

/// `faces` less those sharing a vertex with a face not among them.
#[must_use]
pub fn shrink_faces(model: &Model, faces: &[usize]) -> Vec<usize> {
    let selected = marked(faces, model.faces.len());
    let mut outside = vec![false; model.vertices.len()];
    for face in (0..model.faces.len()).filter(|&face| !selected[face]) {
        if let Some(corners) = face_vertices(model, face) {
            for v in corners {
                outside[v] = true;
            }
        }
    }
    (0..model.faces.len())
        .filter(|&face| {
            selected[face]
                && face_vertices(model, face)
                    .is_some_and(|corners| corners.iter().all(|&v| !outside[v]))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::model::{BoneIdx, Material, Vec3, Vertex, VertexIdx};

    /// Two triangles sharing an edge (0 1 2, 1 3 2), a lone triangle (4 5 6) whose vertex 4
    /// sits where vertex 0 is, and vertex 7 in no face; material 0 draws the pair, 1 the lone.
    fn pieces() -> Model {
        let mut model = Model::new_empty();
        let positions = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 0.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, -1.0, 0.0],
            [-1.0, 1.0, 0.0],
        ];
        for p in positions {
            model.vertices.push(Vertex {
                position: Vec3::from(p),
                ..Vertex::default()
            });
        }
        for face in [[0, 1, 2], [1, 3, 2], [4, 5, 6]] {
            model.faces.push(face.map(VertexIdx::new));
        }
        for count in [6, 3] {
            model.materials.push(Material {
                face_index_count: count,
                ..Material::default()
            });
        }
        model
    }

    #[test]
    fn linked_parts_join_through_faces_and_by_position() {
        let model = pieces();
        assert_eq!(linked_vertices(&model, &[3]), vec![0, 1, 2, 3]);
        assert_eq!(linked_vertices(&model, &[5, 7]), vec![4, 5, 6, 7]);
        assert_eq!(linked_vertices(&model, &[99]), Vec::<usize>::new());
        assert_eq!(
            linked_vertices_by_position(&model, &[3]),
            vec![0, 1, 2, 3, 4, 5, 6]
        );
        assert_eq!(linked_faces(&model, &[1]), vec![0, 1]);
    }

    #[test]
    fn materials_grow_and_shrink() {
        let model = pieces();
        assert_eq!(material_faces(&model, &[1]), vec![2]);
        assert_eq!(material_vertices(&model, &[0]), vec![0, 1, 2, 3]);
        assert_eq!(materials_of_vertices(&model, &[5, 7]), vec![1]);
        assert_eq!(materials_of_faces(&model, &[0, 2]), vec![0, 1]);
        assert_eq!(grow_vertices(&model, &[0]), vec![0, 1, 2]);
        assert_eq!(grow_vertices(&model, &[0, 7]), vec![0, 1, 2, 7]);
        assert_eq!(shrink_vertices(&model, &[0, 1, 2]), vec![0]);
        assert_eq!(
            shrink_vertices(&model, &[0, 1, 2, 3, 7]),
            vec![0, 1, 2, 3, 7]
        );
        assert_eq!(grow_faces(&model, &[0]), vec![0, 1]);
        assert_eq!(shrink_faces(&model, &[0]), Vec::<usize>::new());
        assert_eq!(shrink_faces(&model, &[0, 1]), vec![0, 1]);
    }

    #[test]
    fn weights_count_every_deform_type() {
        let mut model = pieces();
        let bone = |i: usize| Some(BoneIdx::new(i));
        model.vertices[0].weight = Weight::Bdef1 { bone: bone(1) };
        model.vertices[1].weight = Weight::Bdef2 {
            bones: [bone(0), bone(1)],
            weight: 0.25,
        };
        model.vertices[2].weight = Weight::Bdef4 {
            bones: [bone(1), bone(0), None, None],
            weights: [0.5, 0.5, 0.0, 0.0],
        };
        model.vertices[3].weight = Weight::Qdef {
            bones: [bone(0), bone(2), None, None],
            weights: [0.9, 0.1, 0.0, 0.0],
        };
        model.vertices[4].weight = Weight::Sdef {
            bones: [bone(1), bone(0)],
            weight: 0.6,
            c: Vec3::default(),
            r0: Vec3::default(),
            r1: Vec3::default(),
        };
        for _ in 0..3 {
            model.bones.push(crate::model::Bone::default());
        }
        // Bone 1: 1.0, 0.75, 0.5, 0, 0.6.
        assert_eq!(weighted_vertices(&model, &[1], 0.0), vec![0, 1, 2, 4]);
        assert_eq!(weighted_vertices(&model, &[1], 0.5), vec![0, 1, 4]);
        assert_eq!(weighted_vertices(&model, &[1], 0.7), vec![0, 1]);
        // Bones 0 and 2 together: vertex 3's 0.9 + 0.1.
        assert_eq!(weighted_vertices(&model, &[0, 2], 0.95), vec![3]);
    }

    #[test]
    fn the_mirror_finds_the_vertex_at_minus_x() {
        let model = pieces();
        // 1 (1,0,0) ↔ 5 (−1,0,0); 3 (1,1,0) ↔ 7 (−1,1,0); 0, 2, 4 and 6 lie on x = 0.
        assert_eq!(mirror_vertices(&model, &[1, 3]), vec![5, 7]);
        assert_eq!(mirror_vertices(&model, &[2]), vec![2]);
    }
}
