//! A vertex morph's offsets as the 3D view's morph edit mode changes them: a change is the new
//! offsets of some vertices, and the edit is one typed `set` of `morphs[k].offsets` named after
//! the morph (what scripts replay); offsets that end up zero leave the list
//! ([`pmx_core::edit::with_vertex_offsets`]). Used by the mode's sculpt brush.

use crate::command::{Command, EditCommand, EditRequest};
use glam::Vec3;
use pmx_core::edit::{EditLabel, LabelArg, SetField, field};
use pmx_core::model::{Model, Morph, MorphOffsets, VertexMorphOffset};
use std::collections::HashMap;

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
    let offsets = pmx_core::edit::with_vertex_offsets(list, changes)?;
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
