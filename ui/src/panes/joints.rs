//! Joint: kind (the six of PMX 2.1), rigid bodies A and B, position, rotation in degrees, move
//! and rotation limits (rotation in degrees) and springs.

use crate::command::Command;
use crate::widgets::EditCx;
use crate::widgets::properties::{PropertyGrid, text_field_ui, vec_field_ui};
use crate::widgets::table::fields::{
    Pick, choice_field_ui, choice_ui, degrees_vec_field_ui, name_cell_ui, pick_field_ui, pick_ui,
    push_numbers, rigid_body_label, vec_cells_ui,
};
use crate::widgets::table::{ColumnSpec, ElementTable, SortValue};
use pmx_core::edit::Elements;
use pmx_core::edit::field;
use pmx_core::model::{ElementKind, Joint, JointKind, Model, RigidBodyIdx};

/// The joint table.
#[derive(Debug, Clone, Copy, Default)]
pub struct JointTable;

/// The joint kinds with their i18n keys (PmxEditor's names).
pub const JOINT_KINDS: [(JointKind, &str); 6] = [
    (JointKind::Spring6Dof, "joint.kind_spring_6dof"),
    (JointKind::SixDof, "joint.kind_6dof"),
    (JointKind::PointToPoint, "joint.kind_p2p"),
    (JointKind::ConeTwist, "joint.kind_cone_twist"),
    (JointKind::Slider, "joint.kind_slider"),
    (JointKind::Hinge, "joint.kind_hinge"),
];

fn unknown_kind(kind: JointKind) -> String {
    format!("? ({})", kind.to_raw())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    NameJa,
    NameEn,
    Kind,
    BodyA,
    BodyB,
    Position,
    Rotation,
}

const COLUMNS: [(Col, &str, f32); 7] = [
    (Col::NameJa, "joint.name_ja", 130.0),
    (Col::NameEn, "joint.name_en", 110.0),
    (Col::Kind, "joint.kind", 130.0),
    (Col::BodyA, "joint.body_a", 150.0),
    (Col::BodyB, "joint.body_b", 150.0),
    (Col::Position, "joint.position", 190.0),
    (Col::Rotation, "joint.rotation", 190.0),
];

fn body_index(body: Option<RigidBodyIdx>) -> Option<usize> {
    body.map(RigidBodyIdx::get)
}

impl ElementTable for JointTable {
    fn kind(&self) -> ElementKind {
        ElementKind::Joint
    }

    fn columns(&self, _model: &Model) -> Vec<ColumnSpec> {
        ColumnSpec::of_list_except(&COLUMNS, |col| matches!(col, Col::Position | Col::Rotation))
    }

    fn cell_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, index: usize, column: usize) {
        let Some(joint) = cx.model.joints.get(index) else {
            return;
        };
        let Some(&(col, _, _)) = COLUMNS.get(column) else {
            return;
        };
        match col {
            Col::NameJa => name_cell_ui(
                cx,
                ui,
                index,
                field::<Joint>().name_ja(),
                &joint.name_ja.as_str(),
            ),
            Col::NameEn => name_cell_ui(
                cx,
                ui,
                index,
                field::<Joint>().name_en(),
                &joint.name_en.as_str(),
            ),
            Col::Kind => {
                let name = format!("joint {index} kind");
                if let Some(kind) = choice_ui(
                    cx,
                    ui,
                    Some(joint.kind),
                    &JOINT_KINDS,
                    &unknown_kind,
                    120.0,
                    &name,
                ) {
                    let value = kind;
                    cx.commands
                        .push(Command::set(field::<Joint>().kind(), vec![index], value));
                }
            }
            Col::BodyA | Col::BodyB => {
                let (body, current) = if col == Col::BodyA {
                    (field::<Joint>().body_a(), joint.body_a)
                } else {
                    (field::<Joint>().body_b(), joint.body_b)
                };
                let name = format!("joint {index} {}", body.field_path());
                if let Some(choice) =
                    pick_ui(cx, ui, Pick::RigidBody, body_index(current), 140.0, &name)
                {
                    cx.commands.push(Command::set(
                        body,
                        vec![index],
                        choice.map(RigidBodyIdx::new),
                    ));
                }
            }
            Col::Position => vec_cells_ui(
                cx,
                ui,
                index,
                field::<Joint>().position(),
                joint.position,
                0.01,
            ),
            Col::Rotation => {
                crate::widgets::table::fields::degrees_cells_ui(
                    cx,
                    ui,
                    index,
                    field::<Joint>().rotation(),
                    joint.rotation,
                );
            }
        }
    }

    fn sort_value(&self, model: &Model, index: usize, column: usize) -> SortValue {
        let Some(joint) = model.joints.get(index) else {
            return SortValue::Number(0.0);
        };
        let Some(&(col, _, _)) = COLUMNS.get(column) else {
            return SortValue::Number(0.0);
        };
        match col {
            Col::NameJa => SortValue::Text(joint.name_ja.as_str().into_owned()),
            Col::NameEn => SortValue::Text(joint.name_en.as_str().into_owned()),
            Col::Kind => SortValue::Number(f64::from(joint.kind.to_raw())),
            Col::BodyA => SortValue::Number(f64::from(RigidBodyIdx::to_raw(joint.body_a))),
            Col::BodyB => SortValue::Number(f64::from(RigidBodyIdx::to_raw(joint.body_b))),
            Col::Position | Col::Rotation => SortValue::Number(0.0),
        }
    }

    fn row_text(&self, model: &Model, index: usize, out: &mut String) {
        if let Some(joint) = model.joints.get(index) {
            out.push_str(&joint.name_ja.as_str());
            out.push(' ');
            out.push_str(&joint.name_en.as_str());
            out.push(' ');
            for body in [joint.body_a, joint.body_b].into_iter().flatten() {
                if let Some(body) = model.rigid_bodies.get(body.get()) {
                    out.push_str(&body.name_ja.as_str());
                    out.push(' ');
                }
            }
            push_numbers(&joint.position.to_array(), out);
        }
    }

    fn new_element(&self, _model: &Model, _at: usize) -> Option<Elements> {
        let joint = Joint {
            name_ja: "新規Joint".into(),
            name_en: "new joint".into(),
            ..Joint::default()
        };
        Some(Elements::Joints(vec![joint]))
    }

    fn properties_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, grid: &mut PropertyGrid<'_>) {
        let model = cx.model;
        let joint = |i: usize| model.joints.get(i);
        let indices = grid.indices;
        grid.show(ui, "joint_properties", |ui, grid| {
            text_field_ui(
                cx,
                ui,
                grid,
                "joint.name_ja",
                field::<Joint>().name_ja(),
                false,
                |i| joint(i).map(|j| j.name_ja.as_str().into_owned()),
            );
            text_field_ui(
                cx,
                ui,
                grid,
                "joint.name_en",
                field::<Joint>().name_en(),
                false,
                |i| joint(i).map(|j| j.name_en.as_str().into_owned()),
            );
            choice_field_ui(
                cx,
                ui,
                grid,
                "joint.kind",
                field::<Joint>().kind(),
                &JOINT_KINDS,
                &unknown_kind,
                |i| joint(i).map(|j| j.kind),
            );
            pick_field_ui(
                cx,
                ui,
                grid,
                "joint.body_a",
                field::<Joint>().body_a(),
                Pick::RigidBody,
                |i| joint(i).map(|j| body_index(j.body_a)),
            );
            pick_field_ui(
                cx,
                ui,
                grid,
                "joint.body_b",
                field::<Joint>().body_b(),
                Pick::RigidBody,
                |i| joint(i).map(|j| body_index(j.body_b)),
            );
            vec_field_ui(
                cx,
                ui,
                grid,
                "joint.position",
                field::<Joint>().position(),
                0.01,
                |i| joint(i).map(|j| j.position),
            );
            degrees_vec_field_ui(
                cx,
                ui,
                grid,
                "joint.rotation",
                field::<Joint>().rotation(),
                |i| joint(i).map(|j| j.rotation),
            );
            vec_field_ui(
                cx,
                ui,
                grid,
                "joint.move_lower",
                field::<Joint>().move_lower(),
                0.01,
                |i| joint(i).map(|j| j.move_lower),
            );
            vec_field_ui(
                cx,
                ui,
                grid,
                "joint.move_upper",
                field::<Joint>().move_upper(),
                0.01,
                |i| joint(i).map(|j| j.move_upper),
            );
            degrees_vec_field_ui(
                cx,
                ui,
                grid,
                "joint.rotate_lower",
                field::<Joint>().rotate_lower(),
                |i| joint(i).map(|j| j.rotate_lower),
            );
            degrees_vec_field_ui(
                cx,
                ui,
                grid,
                "joint.rotate_upper",
                field::<Joint>().rotate_upper(),
                |i| joint(i).map(|j| j.rotate_upper),
            );
            vec_field_ui(
                cx,
                ui,
                grid,
                "joint.spring_move",
                field::<Joint>().spring_move(),
                0.01,
                |i| joint(i).map(|j| j.spring_move),
            );
            vec_field_ui(
                cx,
                ui,
                grid,
                "joint.spring_rotate",
                field::<Joint>().spring_rotate(),
                0.01,
                |i| joint(i).map(|j| j.spring_rotate),
            );
        });
        if let [only] = indices
            && let Some(j) = joint(*only)
        {
            ui.separator();
            ui.strong(cx.tr("links.title"));
            ui.horizontal_wrapped(|ui| {
                for body in [j.body_a, j.body_b].into_iter().flatten() {
                    if body.get() < model.rigid_bodies.len()
                        && ui.button(rigid_body_label(cx, body.get())).clicked()
                    {
                        cx.commands.push(Command::Reveal {
                            kind: ElementKind::RigidBody,
                            index: body.get(),
                        });
                    }
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_six_kinds_are_offered() {
        let kinds: Vec<JointKind> = JOINT_KINDS.iter().map(|(k, _)| *k).collect();
        assert_eq!(kinds, JointKind::ALL.to_vec());
        assert_eq!(unknown_kind(JointKind::Unknown(9)), "? (9)");
        assert_eq!(JointTable.columns(&Model::default()).len(), COLUMNS.len());
    }
}
