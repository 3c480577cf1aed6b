//! Face edits of the 3D view's face mode: 面の反転 (turn faces over by reversing their winding)
//! and 面対角線の入れ替え (the two triangles of a quad split along the other diagonal). Both are
//! field edits of the faces' vertex indices (`faces[i]` set to the new triangle), so they undo
//! exactly and keep every face in its material's range; no vertex, normal or material changes.
//!
//! Vertex normals are not recomputed: a turned face whose vertices keep their normals shades as
//! before (PmxEditor's 面反転 does the same; 法線反転 and 法線の再計算 are separate tools).

use super::{Edit, EditError, EditLabel, EditTarget, SetField, field};
use crate::model::{Face, Model};

/// The faces at `indices` with the same three vertices in reverse order (their winding, and so
/// their front side, turned over): `[a, b, c]` becomes `[a, c, b]`.
#[must_use]
pub fn reversed(face: Face) -> Face {
    [face[0], face[2], face[1]]
}

/// The two triangles of the quad `first` and `second` form split along its other diagonal:
/// each new triangle winds the way the old one in its slot did (its front side stays on the
/// same side of the quad). `None` when the faces do not share exactly one edge (two vertices)
/// or either is degenerate (a vertex twice).
#[must_use]
pub fn swapped_diagonal(first: Face, second: Face) -> Option<(Face, Face)> {
    let distinct = |f: Face| f[0] != f[1] && f[1] != f[2] && f[0] != f[2];
    if !distinct(first) || !distinct(second) {
        return None;
    }
    let shared: Vec<usize> = (0..3).filter(|&i| second.contains(&first[i])).collect();
    let [one, other] = shared[..] else {
        return None;
    };
    // Turn `first` so that it reads (p, q, r) with p → q the shared edge in its winding.
    let start = if (one + 1) % 3 == other { one } else { other };
    let (p, q, r) = (first[start], first[(start + 1) % 3], first[(start + 2) % 3]);
    let s = *second.iter().find(|v| **v != p && **v != q)?;
    // A consistently wound neighbour runs the shared edge the other way (q → p).
    let second_runs_q_to_p = (0..3).any(|i| second[i] == q && second[(i + 1) % 3] == p);
    // The quad's boundary is p → s → q → r; the new diagonal is r–s.
    let new_first = [r, p, s];
    let new_second = [s, q, r];
    let new_second = if second_runs_q_to_p {
        new_second
    } else {
        reversed(new_second)
    };
    Some((new_first, new_second))
}

fn face_at(model: &Model, index: usize) -> Result<Face, EditError> {
    model
        .faces
        .get(index)
        .copied()
        .ok_or(EditError::IndexOutOfRange {
            kind: "face",
            index,
            len: model.faces.len(),
        })
}

impl Edit {
    /// 面の反転: the faces at `indices` turned over (winding reversed), one step.
    pub fn flip_faces(model: &Model, indices: &[usize]) -> Result<Edit, EditError> {
        if indices.is_empty() {
            return Err(EditError::NothingSelected { kind: "faces" });
        }
        let mut indices = indices.to_vec();
        indices.sort_unstable();
        indices.dedup();
        let faces = indices
            .iter()
            .map(|&index| face_at(model, index).map(reversed))
            .collect::<Result<Vec<_>, _>>()?;
        let label = EditLabel::new("edit.flip_faces").count(indices.len(), EditTarget::Face);
        Ok(SetField::each(field::<Face>(), indices, faces)
            .into_edit(model)?
            .with_label(label))
    }

    /// 面対角線の入れ替え: faces `first` and `second`, two triangles of one material that share
    /// an edge, split along the quad's other diagonal (see [`swapped_diagonal`]), one step.
    pub fn swap_face_diagonal(
        model: &Model,
        first: usize,
        second: usize,
    ) -> Result<Edit, EditError> {
        let (a, b) = (face_at(model, first)?, face_at(model, second)?);
        let refuse = |reason: &'static str| EditError::FacePair {
            first,
            second,
            reason,
        };
        if first == second {
            return Err(refuse("are the same face"));
        }
        if model.material_of_face(first) != model.material_of_face(second) {
            return Err(refuse("belong to different materials"));
        }
        let (new_a, new_b) = swapped_diagonal(a, b).ok_or_else(|| refuse("share no edge"))?;
        let label = EditLabel::new("edit.swap_face_diagonal")
            .arg("first", super::LabelArg::Index(first))
            .arg("second", super::LabelArg::Index(second));
        Ok(
            SetField::each(field::<Face>(), vec![first, second], vec![new_a, new_b])
                .into_edit(model)?
                .with_label(label),
        )
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing
    use super::*;
    use crate::model::{Material, Vec3, Vertex, VertexIdx};

    fn face(a: u32, b: u32, c: u32) -> Face {
        [VertexIdx(a), VertexIdx(b), VertexIdx(c)]
    }

    /// A unit square in the XY plane (vertices 0..4 counter-clockwise from the origin) split
    /// along 0–2, both triangles wound the same way, and a third triangle in a second material.
    fn quad() -> Model {
        let mut model = Model::default();
        for (x, y) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0), (2.0, 0.0)] {
            model.vertices.push(Vertex {
                position: Vec3::new(x, y, 0.0),
                ..Vertex::default()
            });
        }
        model.faces = vec![face(0, 1, 2), face(0, 2, 3), face(1, 4, 2)];
        model.materials = vec![
            Material {
                face_index_count: 6,
                ..Material::default()
            },
            Material {
                face_index_count: 3,
                ..Material::default()
            },
        ];
        model
    }

    fn normal(model: &Model, f: Face) -> glam::Vec3 {
        let p = |v: VertexIdx| {
            let at = model.vertices[v.0 as usize].position;
            glam::Vec3::new(at.x, at.y, at.z)
        };
        (p(f[1]) - p(f[0])).cross(p(f[2]) - p(f[0]))
    }

    #[test]
    fn the_diagonal_swaps_and_both_faces_keep_their_side() {
        let mut model = quad();
        let before = model.clone();
        let mut edit = Edit::swap_face_diagonal(&model, 0, 1).unwrap();
        edit.apply(&mut model);
        let (a, b) = (model.faces[0], model.faces[1]);
        // The new diagonal is 1–3, each triangle has it.
        for f in [a, b] {
            assert!(
                f.contains(&VertexIdx(1)) && f.contains(&VertexIdx(3)),
                "{f:?}"
            );
            assert!(normal(&model, f).z > 0.0, "{f:?} turned over");
        }
        assert_eq!(model.faces[2], before.faces[2]);
        edit.revert(&mut model);
        assert_eq!(model, before);
    }

    #[test]
    fn an_inconsistent_neighbour_keeps_its_own_side() {
        let (a, b) = swapped_diagonal(face(0, 1, 2), face(0, 3, 2)).unwrap();
        let model = quad();
        assert!(normal(&model, a).z > 0.0);
        assert!(normal(&model, b).z < 0.0);
    }

    #[test]
    fn faces_without_a_shared_edge_or_in_two_materials_are_refused() {
        let model = quad();
        let error = Edit::swap_face_diagonal(&model, 0, 2).unwrap_err();
        assert!(error.to_string().contains("different materials"), "{error}");
        assert!(Edit::swap_face_diagonal(&model, 0, 9).is_err());
        assert!(Edit::swap_face_diagonal(&model, 1, 1).is_err());
        // One material: faces 1 and 2 share vertex 2 only.
        let mut one_material = quad();
        one_material.materials[0].face_index_count = 9;
        one_material.materials[1].face_index_count = 0;
        let error = Edit::swap_face_diagonal(&one_material, 1, 2).unwrap_err();
        assert!(error.to_string().contains("share no edge"), "{error}");
    }

    #[test]
    fn flipping_reverses_winding_and_undo_restores_it() {
        let mut model = quad();
        let before = model.clone();
        let mut edit = Edit::flip_faces(&model, &[2, 0]).unwrap();
        edit.apply(&mut model);
        assert_eq!(model.faces[0], face(0, 2, 1));
        assert_eq!(model.faces[1], before.faces[1]);
        assert_eq!(model.faces[2], face(1, 2, 4));
        assert!(normal(&model, model.faces[0]).z < 0.0);
        edit.revert(&mut model);
        assert_eq!(model, before);
        assert!(Edit::flip_faces(&model, &[]).is_err());
    }
}
