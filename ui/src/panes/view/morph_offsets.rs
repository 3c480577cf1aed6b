//! A vertex morph's offsets as the 3D view's morph edit mode changes them: a change is the new
//! offsets of some vertices, and the edit is one typed `set` of `morphs[k].offsets` named after
//! the morph (what scripts replay). Shared by the mode's transforms and its sculpt brush.

use crate::command::{Command, EditCommand, EditRequest};
use glam::Vec3;
use pmx_core::edit::{EditLabel, LabelArg, SetField, field};
use pmx_core::model::{Model, Morph, MorphOffsets, VertexMorphOffset};
use std::collections::HashMap;

/// An offset this short is zero: it leaves the morph's list.
const ZERO_OFFSET: f32 = 1.0e-6;

/// Morph `morph`'s offsets, if it is a vertex morph.
pub fn vertex_offsets(model: &Model, morph: usize) -> Option<&[VertexMorphOffset]> {
    match model.morphs.get(morph).map(|m| &m.offsets) {
        Some(MorphOffsets::Vertex(list)) => Some(list),
        _ => None,
    }
}

/// The offsets of `morph` by vertex.
pub fn offsets_by_vertex(list: &[VertexMorphOffset]) -> HashMap<usize, Vec3> {
    list.iter()
        .map(|o| (o.vertex.get(), Vec3::from(o.offset)))
        .collect()
}

/// `list` with the vertices of `changes` at their new offsets: an entry there already keeps
/// its place (and leaves the list when its offset is zero now), a new one joins the end in
/// vertex order. `None` when nothing changes.
#[must_use]
pub fn with_offsets(
    list: &[VertexMorphOffset],
    changes: &HashMap<usize, Vec3>,
) -> Option<Vec<VertexMorphOffset>> {
    let is_zero = |v: Vec3| v.length() < ZERO_OFFSET;
    let mut changed = false;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(list.len() + changes.len());
    for entry in list {
        let vertex = entry.vertex.get();
        match changes.get(&vertex) {
            Some(&new) if seen.insert(vertex) => {
                if is_zero(new) {
                    changed = true;
                    continue;
                }
                if Vec3::from(entry.offset) != new {
                    changed = true;
                }
                out.push(VertexMorphOffset {
                    vertex: entry.vertex,
                    offset: new.into(),
                });
            }
            _ => out.push(*entry),
        }
    }
    let mut added: Vec<(usize, Vec3)> = changes
        .iter()
        .filter(|(v, offset)| !seen.contains(*v) && !is_zero(**offset))
        .map(|(&v, &offset)| (v, offset))
        .collect();
    added.sort_unstable_by_key(|&(v, _)| v);
    changed |= !added.is_empty();
    out.extend(added.into_iter().map(|(v, offset)| VertexMorphOffset {
        vertex: pmx_core::model::VertexIdx::new(v),
        offset: offset.into(),
    }));
    changed.then_some(out)
}

/// The edit that gives `morph` the offsets `changes` (vertex → new offset), named `label`;
/// `None` when nothing changes.
#[must_use]
pub fn offsets_command(
    model: &Model,
    morph: usize,
    changes: &HashMap<usize, Vec3>,
    label: EditLabel,
    gesture: Option<egui::Id>,
) -> Option<Command> {
    let list = vertex_offsets(model, morph)?;
    let offsets = with_offsets(list, changes)?;
    Some(Command::Edit(EditCommand {
        request: EditRequest::SetNamed {
            set: SetField::new(
                field::<Morph>().offsets(),
                vec![morph],
                MorphOffsets::Vertex(offsets),
            ),
            label,
        },
        gesture,
        select_created: false,
    }))
}

/// A label naming the morph and what was done: "モーフ「笑い」の頂点12個を移動".
pub fn label(model: &Model, key: &'static str, morph: usize, count: usize) -> EditLabel {
    let name = model
        .morphs
        .get(morph)
        .map_or_else(String::new, |m| m.name_ja.as_str().into_owned());
    EditLabel::new(key)
        .arg("name", LabelArg::Text(name))
        .arg("count", LabelArg::Count(count, "vertex"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmx_core::model::VertexIdx;

    fn entry(vertex: usize, offset: [f32; 3]) -> VertexMorphOffset {
        VertexMorphOffset {
            vertex: VertexIdx::new(vertex),
            offset: Vec3::from(offset).into(),
        }
    }

    #[test]
    fn changed_offsets_keep_their_place_new_ones_join_in_vertex_order_and_zeros_leave() {
        let list = vec![entry(5, [1.0, 0.0, 0.0]), entry(2, [0.0, 1.0, 0.0])];
        let changes = HashMap::from([
            (2, Vec3::ZERO),
            (5, Vec3::new(2.0, 0.0, 0.0)),
            (9, Vec3::new(0.0, 0.0, 3.0)),
            (7, Vec3::new(0.0, 0.5, 0.0)),
            (8, Vec3::splat(1.0e-8)),
        ]);
        let out = with_offsets(&list, &changes).unwrap();
        assert_eq!(
            out,
            vec![
                entry(5, [2.0, 0.0, 0.0]),
                entry(7, [0.0, 0.5, 0.0]),
                entry(9, [0.0, 0.0, 3.0]),
            ]
        );
        // The same offsets again change nothing.
        let same = HashMap::from([(5, Vec3::new(2.0, 0.0, 0.0))]);
        assert_eq!(with_offsets(&out, &same), None);
    }
}
