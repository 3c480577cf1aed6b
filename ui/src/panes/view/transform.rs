//! Numeric move / rotate / scale of the selected vertices, bones, rigid bodies or joints, from
//! the 3D view's toolbar (PmxEditor's 移動・回転・拡大 with numbers), optionally mirrored across
//! the X axis: the counterpart of each element (the vertex at (-x, y, z), the bone or body
//! named with 左 and 右 swapped) gets the mirrored change. One undoable edit per click.
//! Material mode moves the vertices the selected materials draw.

use super::morph_offsets;
use crate::command::{Command, EditCommand, EditRequest};
use crate::document::Document;
use crate::i18n::Language;
use glam::{Quat, Vec3};
use pmx_core::edit::{EditTarget, TransformGroup};
use pmx_core::model::{ElementKind, Model};
use std::collections::{BTreeSet, HashMap};

/// The smallest value at which morph edit mode edits: below it a small move of a drawn vertex
/// would be a huge offset.
pub const MIN_MORPH_EDIT_VALUE: f32 = pmx_core::edit::MIN_MORPH_VALUE;

/// Where transforms of the selection go.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum TransformInto {
    /// The model's own elements.
    #[default]
    Model,
    /// Morph edit mode: the offsets of vertex morph `morph`, shown at `value`.
    Morph { morph: usize, value: f32 },
    /// Morph edit mode with no vertex morph to edit: nothing moves.
    Nothing,
}

/// How a transform of the selection is carried out: into what, and with the X mirror.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TransformRoute {
    pub into: TransformInto,
    pub mirror_x: bool,
}

/// The edit for `change` of the selection of `kind`, as `route` says.
#[must_use]
pub fn routed_command(
    document: &Document,
    kind: ElementKind,
    change: Transform,
    route: TransformRoute,
) -> Option<Command> {
    match route.into {
        TransformInto::Model => transform_command(document, kind, change, route.mirror_x),
        TransformInto::Morph { morph, value } => {
            morph_transform_command(document, morph, value, kind, change, route.mirror_x)
        }
        TransformInto::Nothing => None,
    }
}

/// The numbers the toolbar holds between clicks.
#[derive(Debug, Clone, PartialEq)]
pub struct TransformTool {
    pub translate: Vec3,
    /// Euler angles in degrees (Y, X, Z order), about the selection's centre.
    pub rotate_degrees: Vec3,
    /// Uniform scale about the selection's centre.
    pub scale: f32,
    pub mirror_x: bool,
}

impl Default for TransformTool {
    fn default() -> Self {
        Self {
            translate: Vec3::ZERO,
            rotate_degrees: Vec3::ZERO,
            scale: 1.0,
            mirror_x: false,
        }
    }
}

/// One of the three operations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Transform {
    Move(Vec3),
    Rotate(Quat),
    Scale(f32),
}

impl Transform {
    /// The edit's transform of this change about `pivot` (model space).
    #[must_use]
    pub fn about(self, pivot: Vec3) -> pmx_core::edit::Transform {
        use pmx_core::edit::Transform as Core;
        match self {
            Transform::Move(by) => Core::moving(by),
            Transform::Rotate(rotation) => Core::rotating(rotation, pivot),
            Transform::Scale(factor) => Core::scaling(Vec3::splat(factor), pivot),
        }
    }
}

/// The element kind whose positions a pick mode's selection moves, and the elements.
pub(super) fn targets(kind: ElementKind, document: &Document) -> (EditTarget, Vec<usize>) {
    let selected = document.selection.get(kind).targets();
    let model = &document.model;
    let mut vertices = BTreeSet::new();
    match kind {
        // Materials: the vertices their faces use.
        ElementKind::Material => {
            for (m, range) in model.material_face_ranges().into_iter().enumerate() {
                if selected.binary_search(&m).is_ok() {
                    for face in &model.faces[range] {
                        vertices.extend(face.iter().map(|v| v.0 as usize));
                    }
                }
            }
        }
        // Faces: their corners.
        ElementKind::Face => {
            for face in selected.iter().filter_map(|&f| model.faces.get(f)) {
                vertices.extend(face.iter().map(|v| v.0 as usize));
            }
        }
        _ => return (EditTarget::from(kind), selected),
    }
    (
        EditTarget::Vertex,
        vertices
            .into_iter()
            .filter(|&v| v < model.vertices.len())
            .collect(),
    )
}

fn position(model: &Model, target: EditTarget, index: usize) -> Option<Vec3> {
    pmx_core::edit::transform_position(model, target, index).map(|p| Vec3::new(p.x, p.y, p.z))
}

/// The mirror counterpart of each element (those that have one and are not selected already).
pub(super) fn counterparts(model: &Model, target: EditTarget, indices: &[usize]) -> Vec<usize> {
    let selected: BTreeSet<usize> = indices.iter().copied().collect();
    let mut found = BTreeSet::new();
    match target {
        EditTarget::Vertex => {
            // Positions on a 0.0001 grid: a mirrored vertex lands in the same cell.
            let cell = |p: Vec3| {
                (
                    (p.x * 1e4).round() as i64,
                    (p.y * 1e4).round() as i64,
                    (p.z * 1e4).round() as i64,
                )
            };
            let mut by_cell: HashMap<(i64, i64, i64), Vec<usize>> = HashMap::new();
            for (v, vertex) in model.vertices.iter().enumerate() {
                let p = Vec3::new(vertex.position.x, vertex.position.y, vertex.position.z);
                if p.is_finite() {
                    by_cell.entry(cell(p)).or_default().push(v);
                }
            }
            for &v in indices {
                let Some(p) = position(model, target, v).filter(|p| p.is_finite()) else {
                    continue;
                };
                if p.x.abs() < 1e-4 {
                    continue; // on the mirror plane: its own counterpart
                }
                if let Some(list) = by_cell.get(&cell(Vec3::new(-p.x, p.y, p.z))) {
                    found.extend(list.iter().copied());
                }
            }
        }
        EditTarget::Bone | EditTarget::RigidBody | EditTarget::Joint => {
            let names: Vec<String> = match target {
                EditTarget::Bone => model
                    .bones
                    .iter()
                    .map(|b| b.name_ja.as_str().into())
                    .collect(),
                EditTarget::RigidBody => model
                    .rigid_bodies
                    .iter()
                    .map(|b| b.name_ja.as_str().into())
                    .collect(),
                _ => model
                    .joints
                    .iter()
                    .map(|j| j.name_ja.as_str().into())
                    .collect(),
            };
            let mut by_name: HashMap<&str, usize> = HashMap::new();
            for (i, name) in names.iter().enumerate() {
                by_name.entry(name.as_str()).or_insert(i);
            }
            for &i in indices {
                if let Some(other) = names
                    .get(i)
                    .and_then(|n| pmx_core::model::facts::mirrored_name(n))
                    .and_then(|n| by_name.get(n.as_str()).copied())
                {
                    found.insert(other);
                }
            }
        }
        _ => {}
    }
    found.difference(&selected).copied().collect()
}

/// The centre (mean position, model space) of the elements a transform of the selection of
/// `kind` moves: the pivot of rotation and scale, where the gizmo sits.
#[must_use]
pub fn selection_centre(document: &Document, kind: ElementKind) -> Option<Vec3> {
    let (target, indices) = targets(kind, document);
    pmx_core::edit::transform_centre(&document.model, target, &indices)
}

/// The edit that applies `transform` to the selection of `kind` about its centre (and, with
/// `mirror_x`, the mirrored change to the counterparts about the mirrored centre); `None` when
/// nothing is selected.
#[must_use]
pub fn transform_command(
    document: &Document,
    kind: ElementKind,
    transform: Transform,
    mirror_x: bool,
) -> Option<Command> {
    let model = &document.model;
    let (target, mut indices) = targets(kind, document);
    indices.retain(|&i| position(model, target, i).is_some());
    let centre = pmx_core::edit::transform_centre(model, target, &indices)?;
    let change = transform.about(centre);
    if change.kind() == pmx_core::edit::TransformKind::Identity {
        // Apply with zeros (or a scale of 1) changes nothing: no step, no message.
        return None;
    }
    let mut groups = Vec::with_capacity(2);
    if mirror_x {
        let counterparts = counterparts(model, target, &indices);
        if !counterparts.is_empty() {
            groups.push(TransformGroup {
                indices: counterparts,
                transform: change.mirrored_x(),
            });
        }
    }
    groups.insert(
        0,
        TransformGroup {
            indices,
            transform: change,
        },
    );
    Some(Command::Edit(EditCommand {
        request: EditRequest::Transform { target, groups },
        gesture: None,
        select_created: false,
    }))
}

/// The edit that applies `change` to the selected vertices (of the pick mode's `kind`: the
/// vertices, or the vertices of the selected materials) as `morph`'s offsets, shown at
/// `value`: about the centre of where they are drawn, with `mirror_x` the mirrored change to
/// their counterparts. `None` when nothing would change (nothing selected, a kind that is not
/// vertices, a value under [`MIN_MORPH_EDIT_VALUE`]).
#[must_use]
pub fn morph_transform_command(
    document: &Document,
    morph: usize,
    value: f32,
    kind: ElementKind,
    change: Transform,
    mirror_x: bool,
) -> Option<Command> {
    if value < MIN_MORPH_EDIT_VALUE {
        return None;
    }
    let model = &document.model;
    morph_offsets::vertex_offsets(model, morph)?;
    let (target, indices) = targets(kind, document);
    if target != pmx_core::edit::EditTarget::Vertex || indices.is_empty() {
        return None;
    }
    let centre = pmx_core::edit::drawn_centre(model, morph, value, &indices)?;
    let moved = change.about(centre);
    if moved.kind() == pmx_core::edit::TransformKind::Identity || !moved.is_finite() {
        return None;
    }
    let mut groups = vec![TransformGroup {
        indices: indices.clone(),
        transform: moved,
    }];
    if mirror_x {
        let counterparts = counterparts(model, target, &indices);
        if !counterparts.is_empty() {
            groups.push(TransformGroup {
                indices: counterparts,
                transform: moved.mirrored_x(),
            });
        }
    }
    let (set, label) = pmx_core::edit::morph_transform_set(model, morph, value, &groups).ok()?;
    Some(Command::Edit(EditCommand {
        request: EditRequest::SetNamed { set, label },
        gesture: None,
        select_created: false,
    }))
}

/// The toolbar row under the view's buttons: the change asked for by a click of an apply
/// button (the view carries it out as its transforms go).
pub fn transform_ui(
    ui: &mut egui::Ui,
    lang: Language,
    tool: &mut TransformTool,
) -> Option<Transform> {
    let mut requested = None;
    ui.horizontal_wrapped(|ui| {
        let axis_fields = |ui: &mut egui::Ui, values: &mut Vec3, name: &str, speed: f64| {
            for (axis, value) in [
                ("X", &mut values.x),
                ("Y", &mut values.y),
                ("Z", &mut values.z),
            ] {
                ui.add(egui::DragValue::new(value).speed(speed).max_decimals(3))
                    .accessible_name(format!("{name} {axis}"));
            }
        };
        ui.label(lang.tr("view.move"));
        axis_fields(ui, &mut tool.translate, lang.tr("view.move"), 0.05);
        if ui.button(lang.tr("view.apply_move")).clicked() {
            requested = Some(Transform::Move(tool.translate));
        }
        ui.separator();
        ui.label(lang.tr("view.rotate"));
        axis_fields(ui, &mut tool.rotate_degrees, lang.tr("view.rotate"), 0.5);
        if ui.button(lang.tr("view.apply_rotate")).clicked() {
            let d = tool.rotate_degrees;
            requested = Some(Transform::Rotate(
                pmx_core::model::facts::euler_degrees_to_quat(d.into()),
            ));
        }
        ui.separator();
        ui.label(lang.tr("view.scale"));
        ui.add(
            egui::DragValue::new(&mut tool.scale)
                .speed(0.01)
                .range(0.001..=1000.0)
                .max_decimals(3),
        )
        .accessible_name(lang.tr("view.scale"));
        if ui.button(lang.tr("view.apply_scale")).clicked() {
            requested = Some(Transform::Scale(tool.scale));
        }
        ui.separator();
        ui.checkbox(&mut tool.mirror_x, lang.tr("view.mirror_x"));
    });
    requested
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmx_core::generate::feature_model;
    use pmx_core::model::{PmxVersion, TextEncoding};

    /// The elements a command moves and their new positions, read back by applying it to a
    /// copy of the model.
    fn positions(document: &Document, command: &Command) -> (Vec<usize>, Vec<Vec3>) {
        let Command::Edit(EditCommand {
            request: EditRequest::Transform { target, groups },
            ..
        }) = command
        else {
            panic!("unexpected command {command:?}");
        };
        let mut model = document.model.clone();
        let edit = pmx_core::edit::Edit::transform(&mut model, *target, groups).unwrap();
        pmx_core::edit::History::new().apply(&mut model, edit);
        let mut indices: Vec<usize> = groups.iter().flat_map(|g| g.indices.clone()).collect();
        indices.sort_unstable();
        let positions = indices
            .iter()
            .map(|&i| position(&model, *target, i).unwrap())
            .collect();
        (indices, positions)
    }

    #[test]
    fn rotation_turns_about_the_selection_centre_and_mirrors_to_the_counterpart() {
        let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 8, 2);
        model.vertices[0].position = pmx_core::model::Vec3::new(1.0, 0.0, 0.0);
        model.vertices[1].position = pmx_core::model::Vec3::new(3.0, 0.0, 0.0);
        model.vertices[2].position = pmx_core::model::Vec3::new(-1.0, 0.0, 0.0);
        model.vertices[3].position = pmx_core::model::Vec3::new(-3.0, 0.0, 0.0);
        let mut document = Document::from_model(model, None, None);
        let selection = document.selection.get_mut(ElementKind::Vertex);
        selection.indices.insert(0);
        selection.indices.insert(1);
        let turn = Transform::Rotate(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
        let command = transform_command(&document, ElementKind::Vertex, turn, true).unwrap();
        let (indices, values) = positions(&document, &command);
        assert_eq!(indices, vec![0, 1, 2, 3]);
        let at = |k: usize| -> Vec3 { values[k] };
        // About (2, 0, 0) by +90° about Z: (1,0,0) → (2,-1,0), (3,0,0) → (2,1,0).
        assert!((at(0) - Vec3::new(2.0, -1.0, 0.0)).length() < 1e-5);
        assert!((at(1) - Vec3::new(2.0, 1.0, 0.0)).length() < 1e-5);
        // The mirror image: about (-2, 0, 0) by -90°.
        assert!((at(2) - Vec3::new(-2.0, -1.0, 0.0)).length() < 1e-5);
        assert!((at(3) - Vec3::new(-2.0, 1.0, 0.0)).length() < 1e-5);
    }

    #[test]
    fn mirrored_bone_names_swap_left_and_right() {
        assert_eq!(
            pmx_core::model::facts::mirrored_name("左足ＩＫ").as_deref(),
            Some("右足ＩＫ")
        );
        assert_eq!(pmx_core::model::facts::mirrored_name("センター"), None);
    }

    #[test]
    fn nothing_selected_is_no_edit() {
        let document = Document::from_model(
            feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 8, 2),
            None,
            None,
        );
        assert!(
            transform_command(&document, ElementKind::Bone, Transform::Scale(2.0), false).is_none()
        );
        // Applying zeros (or a scale of 1) to a selection is no step either.
        let mut document = document;
        document
            .selection
            .get_mut(ElementKind::Vertex)
            .indices
            .insert(0);
        for nothing in [
            Transform::Move(Vec3::ZERO),
            Transform::Rotate(Quat::IDENTITY),
            Transform::Scale(1.0),
        ] {
            assert!(transform_command(&document, ElementKind::Vertex, nothing, true).is_none());
        }
    }
}
