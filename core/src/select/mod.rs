//! The one selection grammar and the queries behind it: which vertices, faces, bones, ... a
//! selection tool picks. The 3D view's 編集 > 選択 commands, `--select` (window, `run`,
//! `script`, `render`), `pmx-studio select` and the scripts' `select(query)` all answer
//! through these functions, so a query means the same everywhere.
//!
//! Each query is a pure function of the model and a list of indices that returns sorted,
//! distinct indices: linear in the model (or n log n where it sorts), one flag or root per
//! element and never a list per vertex, so a 1,000,000-vertex model answers at once.
//! Selections here are plain index lists; the editor keeps its own bit sets and changes them
//! without an edit (a selection is not an edit). The text form is [`parse_query`]
//! (`vertices:linked:12`, `bones:children:左腕`), documented on [`query`].

mod bones;
mod mesh;
pub mod query;

pub use bones::{bone_children, bone_descendants};
pub use mesh::{
    grow_faces, grow_vertices, linked_faces, linked_vertices, linked_vertices_by_position,
    material_faces, material_vertices, materials_of_faces, materials_of_vertices, mirror_vertices,
    mirror_vertices_with, shrink_faces, shrink_vertices, weighted_vertices,
};
pub use query::{
    QueryError, element_by_name, format_ranges, kind_from_name, parse_query, query_kind,
};

/// Every index of a list of `count` elements.
#[must_use]
pub fn all(count: usize) -> Vec<usize> {
    (0..count).collect()
}

/// The indices of a list of `count` elements that `selected` does not hold (indices past the
/// end in `selected` are ignored).
#[must_use]
pub fn invert(count: usize, selected: &[usize]) -> Vec<usize> {
    let chosen = marked(selected, count);
    (0..count).filter(|&index| !chosen[index]).collect()
}

/// `indices` as flags over `0..count` (those past the end left out).
fn marked(indices: &[usize], count: usize) -> Vec<bool> {
    let mut flags = vec![false; count];
    for &index in indices {
        if let Some(flag) = flags.get_mut(index) {
            *flag = true;
        }
    }
    flags
}

/// The indices whose flag is set, ascending.
fn from_flags(flags: &[bool]) -> Vec<usize> {
    flags
        .iter()
        .enumerate()
        .filter(|(_, flag)| **flag)
        .map(|(index, _)| index)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_and_invert() {
        assert_eq!(all(3), vec![0, 1, 2]);
        assert_eq!(invert(5, &[1, 3, 9]), vec![0, 2, 4]);
        assert_eq!(invert(2, &[]), vec![0, 1]);
    }
}
