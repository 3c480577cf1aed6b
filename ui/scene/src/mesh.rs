//! The model as the GPU draws it, built on the CPU: vertex arrays in world space, the index
//! list, and each material's range of it. GPU-free (tests and benches build it without GL).
//!
//! Incremental updates: [`VertexPatch`] carries the arrays of one range of vertices, so an edit
//! of a few vertices (or a pose that deforms some) re-uploads only those.

use crate::camera::to_world;
use glam::Vec3;
use pmx_core::model::{DrawFlags, Model};
use std::ops::Range;

/// Per-vertex arrays, each indexed like the model's vertices.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VertexArrays {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub uvs: Vec<[f32; 2]>,
    pub edge_scales: Vec<f32>,
    /// Additional UV 1 (sub-texture coordinates or vertex colour in PMX 2.1); empty when the
    /// model has none (the shaders then use a constant).
    pub uv1: Vec<[f32; 4]>,
}

impl VertexArrays {
    /// The arrays of `range` (clamped to the model).
    #[must_use]
    pub fn of(model: &Model, range: Range<usize>) -> Self {
        let end = range.end.min(model.vertices.len());
        let start = range.start.min(end);
        let vertices = &model.vertices[start..end];
        let uv1 = model
            .additional_uvs
            .first()
            .map(|channel| {
                (start..end)
                    .map(|i| channel.get(i).map_or([0.0; 4], |v| v.to_array()))
                    .collect()
            })
            .unwrap_or_default();
        Self {
            positions: vertices
                .iter()
                .map(|v| to_world(v.position).to_array())
                .collect(),
            normals: vertices
                .iter()
                .map(|v| to_world(v.normal).to_array())
                .collect(),
            uvs: vertices.iter().map(|v| v.uv.to_array()).collect(),
            edge_scales: vertices.iter().map(|v| v.edge_scale).collect(),
            uv1,
        }
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }
}

/// New values for the vertices from `first` on.
#[derive(Debug, Clone, PartialEq)]
pub enum VertexPatch {
    /// Every attribute (an edit of the vertices).
    All { first: usize, arrays: VertexArrays },
    /// Positions only (the vertices were moved), in world space.
    Positions {
        first: usize,
        positions: Vec<[f32; 3]>,
    },
    /// Positions and normals only (a pose deformed them), in world space.
    Deformed {
        first: usize,
        positions: Vec<[f32; 3]>,
        normals: Vec<[f32; 3]>,
    },
    /// UVs only (a pose's UV morphs moved them, or they go back to rest).
    Uvs { first: usize, uvs: Vec<[f32; 2]> },
}

/// One material's part of the index list, with what decides how it is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaterialRange {
    /// First index (3 per triangle) and index count.
    pub first: u32,
    pub count: u32,
}

/// The whole drawable model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MeshData {
    pub vertices: VertexArrays,
    /// Three per triangle, in OpenGL's winding (see [`face_indices`]); triangles naming a
    /// vertex that does not exist are degenerate (0, 0, 0) so that every material keeps its
    /// range.
    pub indices: Vec<u32>,
    pub materials: Vec<MaterialRange>,
    pub bounds: Bounds,
}

impl MeshData {
    #[must_use]
    pub fn build(model: &Model) -> Self {
        let vertices = VertexArrays::of(model, 0..model.vertices.len());
        let indices = face_indices(model, 0..model.faces.len());
        let materials = material_ranges(model);
        let bounds = Bounds::of(vertices.positions.iter().map(|&p| Vec3::from(p)));
        Self {
            vertices,
            indices,
            materials,
            bounds,
        }
    }
}

/// The index list of faces `range` (clamped), with out-of-range triangles made degenerate.
#[must_use]
pub fn face_indices(model: &Model, range: Range<usize>) -> Vec<u32> {
    let count = model.vertices.len();
    let end = range.end.min(model.faces.len());
    let start = range.start.min(end);
    let mut indices = Vec::with_capacity((end - start) * 3);
    for face in &model.faces[start..end] {
        if face.iter().all(|v| (v.0 as usize) < count) {
            // PMX front faces are clockwise on screen, and mirroring Z for the world (camera
            // included) keeps them clockwise: reversed here, they are OpenGL's counter-clockwise.
            indices.extend([face[0].0, face[2].0, face[1].0]);
        } else {
            indices.extend([0, 0, 0]);
        }
    }
    indices
}

/// Each material's index range, in file order, clamped to the faces there are (a material
/// whose count runs past the end draws what exists; a count not a multiple of 3 is rounded
/// down to whole triangles).
#[must_use]
pub fn material_ranges(model: &Model) -> Vec<MaterialRange> {
    // Whole triangles, as everything else in the editor counts a material's faces.
    let index = |face: usize| u32::try_from(face.saturating_mul(3)).unwrap_or(u32::MAX);
    model
        .material_face_ranges()
        .into_iter()
        .map(|range| MaterialRange {
            first: index(range.start),
            count: index(range.end) - index(range.start),
        })
        .collect()
}

/// How a material's triangles are drawn (PMX 2.1 point and line modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Primitive {
    Triangles,
    Lines,
    Points,
}

#[must_use]
pub fn primitive(flags: DrawFlags) -> Primitive {
    // PmxEditor: points win over lines.
    if flags.contains(DrawFlags::POINT) {
        Primitive::Points
    } else if flags.contains(DrawFlags::LINE) {
        Primitive::Lines
    } else {
        Primitive::Triangles
    }
}

/// Each triangle's three edges as line indices (for the line mode and the wireframe).
#[must_use]
pub fn triangle_edges(indices: &[u32]) -> Vec<u32> {
    let mut lines = Vec::with_capacity(indices.len() * 2);
    for triangle in indices.chunks_exact(3) {
        let [a, b, c] = [triangle[0], triangle[1], triangle[2]];
        lines.extend([a, b, b, c, c, a]);
    }
    lines
}

/// An axis-aligned box around the finite points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub min: Vec3,
    pub max: Vec3,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            min: Vec3::splat(f32::INFINITY),
            max: Vec3::splat(f32::NEG_INFINITY),
        }
    }
}

impl Bounds {
    pub fn of(points: impl IntoIterator<Item = Vec3>) -> Self {
        let mut bounds = Self::default();
        for point in points {
            bounds.add(point);
        }
        bounds
    }

    pub fn add(&mut self, point: Vec3) {
        if point.is_finite() {
            self.min = self.min.min(point);
            self.max = self.max.max(point);
        }
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        !(self.min.cmple(self.max).all())
    }

    /// Centre and radius of the enclosing sphere; `None` when empty.
    #[must_use]
    pub fn sphere(&self) -> Option<(Vec3, f32)> {
        (!self.is_empty()).then(|| {
            let center = (self.min + self.max) * 0.5;
            (center, (self.max - center).length().max(0.05))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmx_core::model::{Material, Vertex, VertexIdx};

    fn model() -> Model {
        let mut model = Model::new_empty();
        for i in 0..4 {
            model.vertices.push(Vertex {
                position: pmx_core::model::Vec3::new(i as f32, 1.0, 2.0),
                ..Vertex::default()
            });
        }
        model.faces = vec![
            [VertexIdx(0), VertexIdx(1), VertexIdx(2)],
            [VertexIdx(1), VertexIdx(2), VertexIdx(7)],
            [VertexIdx(1), VertexIdx(2), VertexIdx(3)],
        ];
        model.materials = vec![
            Material {
                face_index_count: 3,
                ..Material::default()
            },
            Material {
                face_index_count: 9,
                ..Material::default()
            },
        ];
        model
    }

    #[test]
    fn bad_faces_become_degenerate_and_ranges_clamp() {
        let mesh = MeshData::build(&model());
        assert_eq!(mesh.indices, vec![0, 2, 1, 0, 0, 0, 1, 3, 2]);
        assert_eq!(
            mesh.materials,
            vec![
                MaterialRange { first: 0, count: 3 },
                MaterialRange { first: 3, count: 6 }
            ]
        );
        assert_eq!(mesh.vertices.positions[3], [3.0, 1.0, -2.0]);
        assert!(mesh.vertices.uv1.is_empty());
        assert_eq!(mesh.bounds.min, Vec3::new(0.0, 1.0, -2.0));
        assert_eq!(mesh.bounds.max, Vec3::new(3.0, 1.0, -2.0));
    }

    #[test]
    fn partial_arrays_and_edges() {
        let mut model = model();
        model.additional_uvs = vec![vec![pmx_core::model::Vec4::new(1.0, 2.0, 3.0, 4.0); 4]];
        model.vertices[2].position.x = f32::NAN;
        let arrays = VertexArrays::of(&model, 2..10);
        assert_eq!(arrays.len(), 2);
        assert_eq!(arrays.uv1, vec![[1.0, 2.0, 3.0, 4.0]; 2]);
        assert_eq!(triangle_edges(&[0, 1, 2]), vec![0, 1, 1, 2, 2, 0]);
        let bounds = Bounds::of(arrays.positions.iter().map(|&p| Vec3::from(p)));
        assert_eq!(bounds.min, Vec3::new(3.0, 1.0, -2.0));
        assert!(Bounds::default().sphere().is_none());
        assert_eq!(
            primitive(DrawFlags::POINT | DrawFlags::LINE),
            Primitive::Points
        );
    }
}
