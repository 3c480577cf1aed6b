//! Polygon geometry for the MQO import: Newell normals, triangulation of n-gons on their
//! best-fit plane, and smoothing normals by a facet angle.
//!
//! Everything works in MQO space and keeps the file's winding: Metasequoia's front faces wind
//! clockwise seen from outside, so the outward normal is the negated (right-hand) Newell normal.

use glam::{DVec2, DVec3, Vec3};

/// Faces with more corners than this are split as a fan (and reported): ear clipping is
/// quadratic in the worst case, and no modeller makes such faces on purpose.
pub const MAX_EAR_CLIP_CORNERS: usize = 4096;

/// The Newell normal of a polygon (right-hand rule over the corner order), unnormalised; its
/// length is twice the polygon's area. Zero for a degenerate polygon.
#[must_use]
pub fn newell_normal(points: &[DVec3]) -> DVec3 {
    let mut normal = DVec3::ZERO;
    for (i, current) in points.iter().enumerate() {
        let next = points[(i + 1) % points.len()];
        normal.x += (current.y - next.y) * (current.z + next.z);
        normal.y += (current.z - next.z) * (current.x + next.x);
        normal.z += (current.x - next.x) * (current.y + next.y);
    }
    normal
}

/// The outward unit normal of an MQO face (clockwise seen from outside), or zero.
#[must_use]
pub fn outward_normal(points: &[DVec3]) -> Vec3 {
    let normal = -newell_normal(points);
    let length = normal.length();
    if length > 0.0 && length.is_finite() {
        (normal / length).as_vec3()
    } else {
        Vec3::ZERO
    }
}

/// How a polygon was triangulated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Triangulation {
    /// Triangles wound like the polygon (none for a polygon with no area).
    Ok,
    /// More than [`MAX_EAR_CLIP_CORNERS`] corners: split as a fan.
    Fan,
}

/// Reusable buffers for triangulating many polygons.
#[derive(Default)]
pub struct Triangulator {
    earcut: earcut::Earcut<f64>,
    projected: Vec<[f64; 2]>,
    indices: Vec<u32>,
}

impl std::fmt::Debug for Triangulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // earcut's state has no `Debug`; it holds nothing between calls anyway.
        f.debug_struct("Triangulator").finish_non_exhaustive()
    }
}

impl Triangulator {
    /// Triangulates the polygon `points` (its corners in order, no two consecutive corners the
    /// same vertex), appending triangles of corner indices wound like the polygon to `out`.
    pub fn triangulate(&mut self, points: &[DVec3], out: &mut Vec<[u32; 3]>) -> Triangulation {
        match points.len() {
            0..=2 => Triangulation::Ok,
            3 => {
                out.push([0, 1, 2]);
                Triangulation::Ok
            }
            4 => {
                out.extend(quad(points));
                Triangulation::Ok
            }
            n if n > MAX_EAR_CLIP_CORNERS => {
                out.extend((1..n as u32 - 1).map(|i| [0, i, i + 1]));
                Triangulation::Fan
            }
            _ => {
                self.ear_clip(points, out);
                Triangulation::Ok
            }
        }
    }

    /// Ear clipping on the polygon's best-fit plane (the plane of its Newell normal), so
    /// concave and non-planar polygons come out right.
    fn ear_clip(&mut self, points: &[DVec3], out: &mut Vec<[u32; 3]>) {
        let normal = newell_normal(points);
        let length = normal.length();
        if !(length > 0.0 && length.is_finite()) {
            return;
        }
        let normal = normal / length;
        // A basis (u, v) of the plane with u × v = normal: the polygon winds counter-clockwise
        // (positive area) in it.
        let helper = if normal.x.abs() > 0.9 {
            DVec3::Y
        } else {
            DVec3::X
        };
        let u = (helper - normal * helper.dot(normal)).normalize();
        let v = normal.cross(u);
        let origin = points[0];
        self.projected.clear();
        self.projected.extend(points.iter().map(|&p| {
            let d = p - origin;
            [d.dot(u), d.dot(v)]
        }));
        let projected = std::mem::take(&mut self.projected);
        self.earcut
            .earcut(projected.iter().copied(), &[] as &[u32], &mut self.indices);
        for triangle in self.indices.chunks_exact(3) {
            let [a, b, c] = [triangle[0], triangle[1], triangle[2]];
            let point = |i: u32| DVec2::from(projected[i as usize]);
            let area = (point(b) - point(a)).perp_dot(point(c) - point(a));
            if area > 0.0 {
                out.push([a, b, c]);
            } else if area < 0.0 {
                out.push([a, c, b]);
            }
        }
        self.projected = projected;
    }
}

/// A quad split along the diagonal 0–2, or 1–3 when 0–2 would fold a triangle over (a concave
/// quad whose reflex corner is 1 or 3).
fn quad(points: &[DVec3]) -> [[u32; 3]; 2] {
    let normal = newell_normal(points);
    let faces_along = |a: usize, b: usize, c: usize| {
        (points[b] - points[a])
            .cross(points[c] - points[a])
            .dot(normal)
            > 0.0
    };
    if faces_along(0, 1, 2) && faces_along(0, 2, 3) {
        [[0, 1, 2], [0, 2, 3]]
    } else if faces_along(1, 2, 3) && faces_along(1, 3, 0) {
        [[1, 2, 3], [1, 3, 0]]
    } else {
        [[0, 1, 2], [0, 2, 3]]
    }
}

/// For each vertex, the faces that use it (compressed rows).
#[derive(Debug, Default)]
pub struct VertexFaces {
    starts: Vec<u32>,
    faces: Vec<u32>,
}

impl VertexFaces {
    /// `corner_vertices[face_corners(f)]` are face `f`'s vertices.
    pub fn new(
        vertex_count: usize,
        face_count: usize,
        face_corners: impl Fn(usize) -> std::ops::Range<usize>,
        corner_vertices: &[u32],
    ) -> Self {
        let mut starts = vec![0u32; vertex_count + 1];
        for face in 0..face_count {
            for &v in &corner_vertices[face_corners(face)] {
                starts[v as usize + 1] += 1;
            }
        }
        for i in 0..vertex_count {
            starts[i + 1] += starts[i];
        }
        let mut fill = starts.clone();
        let mut faces = vec![0u32; starts[vertex_count] as usize];
        for face in 0..face_count {
            for &v in &corner_vertices[face_corners(face)] {
                let slot = &mut fill[v as usize];
                faces[*slot as usize] = face as u32;
                *slot += 1;
            }
        }
        Self { starts, faces }
    }

    #[must_use]
    pub fn of(&self, vertex: u32) -> &[u32] {
        let start = self.starts[vertex as usize] as usize;
        let end = self.starts[vertex as usize + 1] as usize;
        &self.faces[start..end]
    }
}

/// The smoothed normal at a corner of `face` on `vertex`: the sum of the normals of the faces
/// around the vertex whose normal is within the facet angle of this face's (`cos_facet`), so
/// edges sharper than the facet angle stay sharp. The faces are summed in one fixed order, so
/// corners with the same neighbourhood get bit-identical normals and share a PMX vertex.
#[must_use]
pub fn smooth_normal(
    face: u32,
    vertex: u32,
    face_normals: &[Vec3],
    vertex_faces: &VertexFaces,
    cos_facet: f32,
) -> Vec3 {
    let own = face_normals[face as usize];
    if own == Vec3::ZERO {
        return own;
    }
    let mut sum = Vec3::ZERO;
    let mut previous = u32::MAX;
    for &other in vertex_faces.of(vertex) {
        // A face that uses the vertex twice counts once.
        if other == previous {
            continue;
        }
        previous = other;
        let normal = face_normals[other as usize];
        if own.dot(normal) >= cos_facet {
            sum += normal;
        }
    }
    sum.normalize_or(own)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(points: &[DVec3], triangle: [u32; 3]) -> f64 {
        let [a, b, c] = triangle.map(|i| points[i as usize]);
        (b - a).cross(c - a).length() / 2.0
    }

    #[test]
    fn concave_l_hexagon_becomes_four_triangles_inside_it() {
        // An L in the XY plane (area 3), counter-clockwise: its Newell normal is +Z.
        let points: Vec<DVec3> = [
            (0.0, 0.0),
            (2.0, 0.0),
            (2.0, 1.0),
            (1.0, 1.0),
            (1.0, 2.0),
            (0.0, 2.0),
        ]
        .iter()
        .map(|&(x, y)| DVec3::new(x, y, 0.0))
        .collect();
        let mut triangles = Vec::new();
        let outcome = Triangulator::default().triangulate(&points, &mut triangles);
        assert_eq!(outcome, Triangulation::Ok);
        assert_eq!(triangles.len(), 4);
        let total: f64 = triangles.iter().map(|&t| area(&points, t)).sum();
        assert!((total - 3.0).abs() < 1e-9, "area {total}");
        for &triangle in &triangles {
            let [a, b, c] = triangle.map(|i| points[i as usize]);
            // Wound like the polygon.
            assert!((b - a).cross(c - a).z > 0.0);
            // Inside the L: the centroid is not in the missing square (1..2, 1..2).
            let centroid = (a + b + c) / 3.0;
            assert!(!(centroid.x > 1.0 && centroid.y > 1.0), "{centroid:?}");
        }
    }

    #[test]
    fn non_planar_polygon_is_triangulated_on_its_best_fit_plane() {
        // A pentagon tilted and slightly bent out of its plane.
        let points: Vec<DVec3> = [
            (0.0, 0.0, 0.0),
            (2.0, 0.0, 0.1),
            (3.0, 1.5, -0.1),
            (1.5, 3.0, 0.2),
            (-0.5, 1.5, 0.0),
        ]
        .iter()
        .map(|&(x, y, z)| DVec3::new(x, y + z, z - y))
        .collect();
        let normal = newell_normal(&points);
        let mut triangles = Vec::new();
        Triangulator::default().triangulate(&points, &mut triangles);
        assert_eq!(triangles.len(), 3);
        for &[a, b, c] in &triangles {
            let [a, b, c] = [a, b, c].map(|i| points[i as usize]);
            assert!((b - a).cross(c - a).dot(normal) > 0.0);
        }
    }

    #[test]
    fn concave_quad_is_split_through_its_reflex_corner() {
        // A dart whose reflex corner is 1: the diagonal 0–2 would leave the quad.
        let points: Vec<DVec3> = [(0.0, 0.0), (1.0, 0.5), (2.0, 0.0), (1.0, 2.0)]
            .iter()
            .map(|&(x, y)| DVec3::new(x, y, 0.0))
            .collect();
        let triangles = quad(&points);
        assert_eq!(triangles, [[1, 2, 3], [1, 3, 0]]);
    }

    #[test]
    fn clockwise_square_has_an_outward_normal_towards_the_viewer() {
        // Seen from +Z, clockwise: MQO's front face towards +Z.
        let points = [
            DVec3::new(-1.0, 1.0, 0.0),
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(1.0, -1.0, 0.0),
            DVec3::new(-1.0, -1.0, 0.0),
        ];
        assert_eq!(outward_normal(&points), Vec3::Z);
    }
}
