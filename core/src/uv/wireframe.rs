//! The UV wireframe: every distinct edge of the chosen materials' faces, by vertex index, with
//! the UV seams marked.
//!
//! Built for 1,000,000-vertex models (`benches/uv_layout.rs`): edges are deduplicated and
//! seams found by grouping `(u32, u32)` pairs with a counting sort on the first value (a vertex
//! or a position) and a sort of each small group, which is linear in the faces where a sort of
//! all the pairs, or a map of them, is not.

use super::MAX_CHANNEL;
use crate::model::Model;
use rayon::prelude::*;
use std::ops::Range;

/// One edge of the UV wireframe, by vertex index (`a < b`). The pane reads the current UVs
/// each frame, so the wireframe survives UV edits; it depends only on the faces and the chosen
/// materials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UvEdge {
    pub a: u32,
    pub b: u32,
    /// The edge lies on a UV seam: its two positions are also joined by an edge of another
    /// face (of the chosen materials) whose vertices are different vertices, i.e. the edge is
    /// open in the UV mesh but closed in the 3D mesh.
    pub seam: bool,
}

/// The edges of [`UvWireframe::edges`] first met in one material's faces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaterialEdges {
    pub material: usize,
    pub edges: Range<usize>,
}

/// The UV wireframe of some materials ([`uv_wireframe`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UvWireframe {
    /// Every distinct edge, in face order (an edge where it first appears).
    pub edges: Vec<UvEdge>,
    /// The chosen materials in face order, each with its range of `edges`: an edge shared by
    /// two materials belongs to the first.
    pub materials: Vec<MaterialEdges>,
}

/// Every distinct edge (unordered vertex pair) of the faces of `materials` (all when empty;
/// indices past the material list are ignored), in face order, with its seam flag
/// ([`UvEdge::seam`]: positions compared exactly, by their bits; only the chosen materials'
/// faces are looked at, so the wireframe depends on nothing else). Faces with a vertex index
/// past the vertex list, or past channel `channel`'s UVs, are skipped; a model without that
/// channel has no edges.
#[must_use]
pub fn uv_wireframe(model: &Model, materials: &[usize], channel: u8) -> UvWireframe {
    let distinct = distinct_edges(model, materials, channel);
    let seams = seam_flags(model, &distinct.pairs);
    UvWireframe {
        edges: distinct
            .pairs
            .iter()
            .zip(seams)
            .map(|(&(a, b), seam)| UvEdge { a, b, seam })
            .collect(),
        materials: distinct.materials,
    }
}

/// The distinct edges of the chosen faces without their seams (what the layout image draws).
#[derive(Debug)]
pub(super) struct DistinctEdges {
    /// `(a, b)` with `a < b`, in face order.
    pub(super) pairs: Vec<(u32, u32)>,
    pub(super) materials: Vec<MaterialEdges>,
}

/// The vertices whose UV in `channel` can be read: faces using others are skipped.
fn usable_vertex_count(model: &Model, channel: u8) -> usize {
    match channel {
        0 => model.vertices.len(),
        1..=MAX_CHANNEL => model
            .additional_uvs
            .get(usize::from(channel) - 1)
            .map_or(0, |uvs| uvs.len().min(model.vertices.len())),
        _ => 0,
    }
}

/// The chosen materials that exist, in face order, each once (all when `materials` is empty).
fn chosen_materials(material_count: usize, materials: &[usize]) -> Vec<usize> {
    if materials.is_empty() {
        return (0..material_count).collect();
    }
    let mut chosen: Vec<usize> = materials
        .iter()
        .copied()
        .filter(|&m| m < material_count)
        .collect();
    chosen.sort_unstable();
    chosen.dedup();
    chosen
}

pub(super) fn distinct_edges(model: &Model, materials: &[usize], channel: u8) -> DistinctEdges {
    let usable = usable_vertex_count(model, channel);
    let ranges = model.material_face_ranges();
    let chosen = chosen_materials(ranges.len(), materials);
    // Every edge of every usable face, in face order, as (lower vertex, higher vertex); the
    // edges of the k-th chosen material start at `starts[k]`. A PMX file holds at most 2^31
    // face indices, so positions in this list fit in a u32.
    let mut face_edges: Vec<(u32, u32)> = Vec::new();
    let mut starts = Vec::with_capacity(chosen.len() + 1);
    for &material in &chosen {
        starts.push(face_edges.len());
        let faces = ranges
            .get(material)
            .and_then(|range| model.faces.get(range.clone()))
            .unwrap_or_default();
        face_edges.reserve(faces.len() * 3);
        for face in faces {
            let [a, b, c] = face.map(|vertex| vertex.0);
            if a.max(b).max(c) as usize >= usable {
                continue;
            }
            for (x, y) in [(a, b), (b, c), (c, a)] {
                // A face with a repeated vertex has no edge between the two copies.
                if x != y {
                    face_edges.push((x.min(y), x.max(y)));
                }
            }
        }
    }
    starts.push(face_edges.len());

    let mut first = vec![false; face_edges.len()];
    for_each_run(usable, &face_edges, |_, run| {
        // A run lists one edge's appearances in face order: the first is where it is kept.
        if let Some(&(_, appearance)) = run.first() {
            first[appearance as usize] = true;
        }
    });
    let mut pairs = Vec::with_capacity(first.iter().filter(|&&kept| kept).count());
    let mut material_edges = Vec::with_capacity(chosen.len());
    for (k, &material) in chosen.iter().enumerate() {
        let begin = pairs.len();
        for (pair, _) in face_edges[starts[k]..starts[k + 1]]
            .iter()
            .zip(&first[starts[k]..starts[k + 1]])
            .filter(|(_, kept)| **kept)
        {
            pairs.push(*pair);
        }
        material_edges.push(MaterialEdges {
            material,
            edges: begin..pairs.len(),
        });
    }
    DistinctEdges {
        pairs,
        materials: material_edges,
    }
}

/// For each edge of `pairs` (distinct vertex pairs), whether another of them joins the same two
/// positions (bit for bit): one position split into several vertices along it.
fn seam_flags(model: &Model, pairs: &[(u32, u32)]) -> Vec<bool> {
    let (position_of, position_count) = position_ids(model, pairs);
    let position_pairs: Vec<(u32, u32)> = pairs
        .iter()
        .map(|&(a, b)| {
            let (pa, pb) = (position_of[a as usize], position_of[b as usize]);
            (pa.min(pb), pa.max(pb))
        })
        .collect();
    let mut seam = vec![false; pairs.len()];
    for_each_run(position_count, &position_pairs, |lower, run| {
        // An edge between two vertices at one position has no length to be open along.
        if run.len() > 1 && run[0].0 != lower {
            for &(_, edge) in run {
                seam[edge as usize] = true;
            }
        }
    });
    seam
}

/// A dense id per distinct position (compared by bits) of the vertices `pairs` use, indexed by
/// vertex (other vertices get 0), and the number of ids.
fn position_ids(model: &Model, pairs: &[(u32, u32)]) -> (Vec<u32>, usize) {
    let mut used = vec![false; model.vertices.len()];
    for &(a, b) in pairs {
        used[a as usize] = true;
        used[b as usize] = true;
    }
    let mut keyed: Vec<([u32; 3], u32)> = model
        .vertices
        .iter()
        .zip(&used)
        .enumerate()
        .filter(|(_, (_, used))| **used)
        .map(|(index, (vertex, _))| (vertex.position.to_array().map(f32::to_bits), index as u32))
        .collect();
    keyed.par_sort_unstable();
    let mut ids = vec![0u32; model.vertices.len()];
    let mut count = 0usize;
    for group in keyed.chunk_by(|x, y| x.0 == y.0) {
        for &(_, vertex) in group {
            ids[vertex as usize] = count as u32;
        }
        count += 1;
    }
    (ids, count)
}

/// Calls `visit(key, run)` for every distinct `(key, value)` of `pairs`, with `run` the
/// `(value, position in pairs)` of its appearances, positions ascending. Every key must be below
/// `key_count`: the pairs are grouped by key with a counting sort, then each group is sorted.
fn for_each_run(key_count: usize, pairs: &[(u32, u32)], mut visit: impl FnMut(u32, &[(u32, u32)])) {
    let mut starts = vec![0u32; key_count + 1];
    for &(key, _) in pairs {
        starts[key as usize + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut next = starts.clone();
    let mut grouped = vec![(0u32, 0u32); pairs.len()];
    for (position, &(key, value)) in pairs.iter().enumerate() {
        let slot = &mut next[key as usize];
        grouped[*slot as usize] = (value, position as u32);
        *slot += 1;
    }
    for (key, bounds) in starts.windows(2).enumerate() {
        let group = &mut grouped[bounds[0] as usize..bounds[1] as usize];
        group.sort_unstable();
        for run in group.chunk_by(|x, y| x.0 == y.0) {
            visit(key as u32, run);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Material, Vec2, Vec3, Vertex, VertexIdx};

    fn vertex(x: f32, y: f32) -> Vertex {
        Vertex {
            position: Vec3::new(x, y, 0.0),
            uv: Vec2::new(x, y),
            ..Vertex::default()
        }
    }

    fn material(faces: u32) -> Material {
        Material {
            face_index_count: faces * 3,
            ..Material::default()
        }
    }

    fn faces(list: &[[u32; 3]]) -> Vec<[VertexIdx; 3]> {
        list.iter().map(|face| face.map(VertexIdx)).collect()
    }

    fn pairs(wireframe: &UvWireframe) -> Vec<(u32, u32, bool)> {
        wireframe
            .edges
            .iter()
            .map(|edge| (edge.a, edge.b, edge.seam))
            .collect()
    }

    /// A unit quad of two triangles split along its diagonal 0–2 into two UV islands: the
    /// second triangle uses copies 4 and 5 of corners 0 and 2.
    fn split_quad() -> Model {
        Model {
            vertices: vec![
                vertex(0.0, 0.0),
                vertex(1.0, 0.0),
                vertex(1.0, 1.0),
                vertex(0.0, 1.0),
                vertex(0.0, 0.0),
                vertex(1.0, 1.0),
            ],
            faces: faces(&[[0, 1, 2], [4, 5, 3]]),
            materials: vec![material(2)],
            ..Model::default()
        }
    }

    #[test]
    fn the_split_edges_copies_are_seams_and_the_others_not() {
        let wireframe = uv_wireframe(&split_quad(), &[], 0);
        assert_eq!(
            pairs(&wireframe),
            vec![
                (0, 1, false),
                (1, 2, false),
                (0, 2, true),
                (4, 5, true),
                (3, 5, false),
                (3, 4, false),
            ]
        );
        assert_eq!(
            wireframe.materials,
            vec![MaterialEdges {
                material: 0,
                edges: 0..6
            }]
        );
    }

    #[test]
    fn a_shared_edge_is_one_edge_and_no_seam() {
        let mut model = split_quad();
        model.faces = faces(&[[0, 1, 2], [0, 2, 3]]);
        assert_eq!(
            pairs(&uv_wireframe(&model, &[], 0)),
            vec![
                (0, 1, false),
                (1, 2, false),
                (0, 2, false),
                (2, 3, false),
                (0, 3, false),
            ]
        );
    }

    #[test]
    fn seams_compare_positions_by_bits() {
        let mut model = split_quad();
        // -0.0 is another position than 0.0: the copies of corner 0 no longer meet.
        model.vertices[4].position.x = -0.0;
        assert!(
            uv_wireframe(&model, &[], 0)
                .edges
                .iter()
                .all(|edge| !edge.seam)
        );
    }

    #[test]
    fn materials_are_taken_in_face_order_and_shared_edges_go_to_the_first() {
        let mut model = split_quad();
        model.faces = faces(&[[0, 1, 2], [0, 2, 3]]);
        model.materials = vec![material(1), material(1)];
        let wireframe = uv_wireframe(&model, &[1, 0, 1, 7], 0);
        assert_eq!(
            wireframe.materials,
            vec![
                MaterialEdges {
                    material: 0,
                    edges: 0..3
                },
                MaterialEdges {
                    material: 1,
                    edges: 3..5
                },
            ]
        );
        let second = uv_wireframe(&model, &[1], 0);
        assert_eq!(
            pairs(&second),
            vec![(0, 2, false), (2, 3, false), (0, 3, false)]
        );
    }

    #[test]
    fn faces_out_of_range_or_without_the_channels_uvs_are_skipped() {
        let mut model = split_quad();
        model.faces = faces(&[[0, 1, 9], [4, 5, 3]]);
        assert_eq!(
            pairs(&uv_wireframe(&model, &[], 0)),
            vec![(4, 5, false), (3, 5, false), (3, 4, false)]
        );
        assert!(uv_wireframe(&model, &[], 1).edges.is_empty());
        model.additional_uvs = vec![vec![crate::model::Vec4::ZERO; 5]];
        // Vertex 5 has no additional UV.
        assert!(uv_wireframe(&model, &[], 1).edges.is_empty());
    }

    #[test]
    fn a_big_fan_groups_like_a_small_one() {
        // One vertex in every face: its group holds every edge, sorted as one.
        let fan: Vec<[u32; 3]> = (1..2_000)
            .map(|i| [0, i, i + 1])
            .chain([[0, 1, 2]])
            .collect();
        let model = Model {
            vertices: (0..2_001).map(|i| vertex(i as f32, 1.0)).collect(),
            faces: faces(&fan),
            materials: vec![material(2_000)],
            ..Model::default()
        };
        let wireframe = uv_wireframe(&model, &[], 0);
        assert_eq!(wireframe.edges.len(), 1 + 2 * 1_999);
        assert!(wireframe.edges.iter().all(|edge| !edge.seam));
    }
}
