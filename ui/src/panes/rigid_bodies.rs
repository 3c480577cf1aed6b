//! 剛体 (rigid bodies): bone, collision group and the 16-group non-collision mask, shape and
//! size, position, rotation in degrees, mass, dampings, restitution, friction and mode; links to
//! the bone and to the joints that hold the body.

use crate::command::Command;
use crate::widgets::properties::{PropertyGrid, f32_field_ui, text_field_ui, vec_field_ui};
use crate::widgets::table::fields::bone_field_ui;
use crate::widgets::table::fields::{
    Pick, choice_field_ui, choice_ui, degrees_vec_field_ui, group_field_ui, mask_field_ui,
    name_cell_ui, pick_ui, push_numbers, vec_cells_ui,
};
use crate::widgets::table::{ColumnSpec, ElementTable, SortValue};
use crate::widgets::{EditCx, f32_drag};
use pmx_core::edit::Elements;
use pmx_core::edit::field;
use pmx_core::model::{BoneIdx, ElementKind, Model, RigidBody, RigidMode, RigidShape};

/// The rigid body table.
#[derive(Debug, Clone, Copy, Default)]
pub struct RigidBodyTable;

pub const SHAPES: [(RigidShape, &str); 3] = [
    (RigidShape::Sphere, "rigid.shape_sphere"),
    (RigidShape::Box, "rigid.shape_box"),
    (RigidShape::Capsule, "rigid.shape_capsule"),
];

pub const MODES: [(RigidMode, &str); 3] = [
    (RigidMode::FollowBone, "rigid.mode_follow_bone"),
    (RigidMode::Physics, "rigid.mode_physics"),
    (RigidMode::PhysicsWithBone, "rigid.mode_physics_with_bone"),
];

fn unknown_shape(shape: RigidShape) -> String {
    format!("? ({})", shape.to_raw())
}

fn unknown_mode(mode: RigidMode) -> String {
    format!("? ({})", mode.to_raw())
}

/// The joints that hold rigid body `body` (as A or B).
#[must_use]
pub fn joints_of_body(model: &Model, body: usize) -> Vec<usize> {
    model
        .joints
        .iter()
        .enumerate()
        .filter(|(_, j)| {
            [j.body_a, j.body_b]
                .iter()
                .any(|b| b.is_some_and(|b| b.get() == body))
        })
        .map(|(i, _)| i)
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    NameJa,
    NameEn,
    Bone,
    Group,
    Shape,
    Size,
    Position,
    Rotation,
    Mass,
    Mode,
}

const COLUMNS: [(Col, &str, f32); 10] = [
    (Col::NameJa, "rigid.name_ja", 130.0),
    (Col::NameEn, "rigid.name_en", 110.0),
    (Col::Bone, "rigid.bone", 150.0),
    (Col::Group, "rigid.group", 50.0),
    (Col::Shape, "rigid.shape", 90.0),
    (Col::Size, "rigid.size", 190.0),
    (Col::Position, "rigid.position", 190.0),
    (Col::Rotation, "rigid.rotation", 190.0),
    (Col::Mass, "rigid.mass", 70.0),
    (Col::Mode, "rigid.mode", 150.0),
];

impl ElementTable for RigidBodyTable {
    fn kind(&self) -> ElementKind {
        ElementKind::RigidBody
    }

    fn columns(&self, _model: &Model) -> Vec<ColumnSpec> {
        ColumnSpec::of_list_except(&COLUMNS, |col| {
            matches!(col, Col::Size | Col::Position | Col::Rotation)
        })
    }

    fn cell_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, index: usize, column: usize) {
        let Some(body) = cx.model.rigid_bodies.get(index) else {
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
                field::<RigidBody>().name_ja(),
                &body.name_ja.as_str(),
            ),
            Col::NameEn => name_cell_ui(
                cx,
                ui,
                index,
                field::<RigidBody>().name_en(),
                &body.name_en.as_str(),
            ),
            Col::Bone => {
                let name = format!("rigid_body {index} bone");
                let current = body.bone.map(BoneIdx::get);
                if let Some(choice) = pick_ui(cx, ui, Pick::Bone, current, 140.0, &name) {
                    cx.commands.push(Command::set(
                        field::<RigidBody>().bone(),
                        vec![index],
                        choice.map(BoneIdx::new),
                    ));
                }
            }
            Col::Group => {
                ui.label((u32::from(body.group) + 1).to_string());
            }
            Col::Shape => {
                let name = format!("rigid_body {index} shape");
                if let Some(shape) = choice_ui(
                    cx,
                    ui,
                    Some(body.shape),
                    &SHAPES,
                    &unknown_shape,
                    80.0,
                    &name,
                ) {
                    let value = shape;
                    cx.commands.push(Command::set(
                        field::<RigidBody>().shape(),
                        vec![index],
                        value,
                    ));
                }
            }
            Col::Size => vec_cells_ui(cx, ui, index, field::<RigidBody>().size(), body.size, 0.01),
            Col::Position => vec_cells_ui(
                cx,
                ui,
                index,
                field::<RigidBody>().position(),
                body.position,
                0.01,
            ),
            Col::Rotation => {
                crate::widgets::table::fields::degrees_cells_ui(
                    cx,
                    ui,
                    index,
                    field::<RigidBody>().rotation(),
                    body.rotation,
                );
            }
            Col::Mass => {
                let (response, new) = f32_drag(
                    ui,
                    body.mass,
                    false,
                    0.01,
                    4,
                    &format!("rigid_body {index} mass"),
                );
                cx.set_on_change(&response, field::<RigidBody>().mass(), &[index], new);
            }
            Col::Mode => {
                let name = format!("rigid_body {index} mode");
                if let Some(mode) =
                    choice_ui(cx, ui, Some(body.mode), &MODES, &unknown_mode, 140.0, &name)
                {
                    let value = mode;
                    cx.commands.push(Command::set(
                        field::<RigidBody>().mode(),
                        vec![index],
                        value,
                    ));
                }
            }
        }
    }

    fn sort_value(&self, model: &Model, index: usize, column: usize) -> SortValue {
        let Some(body) = model.rigid_bodies.get(index) else {
            return SortValue::Number(0.0);
        };
        let Some(&(col, _, _)) = COLUMNS.get(column) else {
            return SortValue::Number(0.0);
        };
        match col {
            Col::NameJa => SortValue::Text(body.name_ja.as_str().into_owned()),
            Col::NameEn => SortValue::Text(body.name_en.as_str().into_owned()),
            Col::Bone => SortValue::Number(f64::from(BoneIdx::to_raw(body.bone))),
            Col::Group => SortValue::Number(f64::from(body.group)),
            Col::Shape => SortValue::Number(f64::from(body.shape.to_raw())),
            Col::Mass => SortValue::Number(f64::from(body.mass)),
            Col::Mode => SortValue::Number(f64::from(body.mode.to_raw())),
            Col::Size | Col::Position | Col::Rotation => SortValue::Number(0.0),
        }
    }

    fn row_text(&self, model: &Model, index: usize, out: &mut String) {
        if let Some(body) = model.rigid_bodies.get(index) {
            out.push_str(&body.name_ja.as_str());
            out.push(' ');
            out.push_str(&body.name_en.as_str());
            out.push(' ');
            if let Some(bone) = body.bone.and_then(|b| model.bones.get(b.get())) {
                out.push_str(&bone.name_ja.as_str());
                out.push(' ');
            }
            push_numbers(&body.position.to_array(), out);
        }
    }

    fn new_element(&self, _model: &Model, _at: usize) -> Option<Elements> {
        let body = RigidBody {
            name_ja: "新規剛体".into(),
            name_en: "new rigid body".into(),
            ..RigidBody::default()
        };
        Some(Elements::RigidBodies(vec![body]))
    }

    fn properties_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, grid: &mut PropertyGrid<'_>) {
        let model = cx.model;
        let body = |i: usize| model.rigid_bodies.get(i);
        let indices = grid.indices;
        grid.show(ui, "rigid_body_properties", |ui, grid| {
            text_field_ui(
                cx,
                ui,
                grid,
                "rigid.name_ja",
                field::<RigidBody>().name_ja(),
                false,
                |i| body(i).map(|b| b.name_ja.as_str().into_owned()),
            );
            text_field_ui(
                cx,
                ui,
                grid,
                "rigid.name_en",
                field::<RigidBody>().name_en(),
                false,
                |i| body(i).map(|b| b.name_en.as_str().into_owned()),
            );
            bone_field_ui(
                cx,
                ui,
                grid,
                "rigid.bone",
                field::<RigidBody>().bone(),
                |i| body(i).map(|b| b.bone),
            );
            group_field_ui(
                cx,
                ui,
                grid,
                "rigid.group",
                field::<RigidBody>().group(),
                |i| body(i).map(|b| b.group),
            );
            mask_field_ui(
                cx,
                ui,
                grid,
                "rigid.non_collision",
                field::<RigidBody>().non_collision_mask(),
                |i| body(i).map(|b| b.non_collision_mask),
            );
            choice_field_ui(
                cx,
                ui,
                grid,
                "rigid.shape",
                field::<RigidBody>().shape(),
                &SHAPES,
                &unknown_shape,
                |i| body(i).map(|b| b.shape),
            );
            vec_field_ui(
                cx,
                ui,
                grid,
                "rigid.size",
                field::<RigidBody>().size(),
                0.01,
                |i| body(i).map(|b| b.size),
            );
            vec_field_ui(
                cx,
                ui,
                grid,
                "rigid.position",
                field::<RigidBody>().position(),
                0.01,
                |i| body(i).map(|b| b.position),
            );
            degrees_vec_field_ui(
                cx,
                ui,
                grid,
                "rigid.rotation",
                field::<RigidBody>().rotation(),
                |i| body(i).map(|b| b.rotation),
            );
            let rigid = field::<RigidBody>;
            for (title, handle) in [
                ("rigid.mass", rigid().mass()),
                ("rigid.linear_damping", rigid().linear_damping()),
                ("rigid.angular_damping", rigid().angular_damping()),
                ("rigid.restitution", rigid().restitution()),
                ("rigid.friction", rigid().friction()),
            ] {
                let read = handle.clone();
                f32_field_ui(cx, ui, grid, title, handle, 0.01, |i| {
                    read.get(model, i).copied()
                });
            }
            choice_field_ui(
                cx,
                ui,
                grid,
                "rigid.mode",
                field::<RigidBody>().mode(),
                &MODES,
                &unknown_mode,
                |i| body(i).map(|b| b.mode),
            );
        });
        if let [only] = indices {
            ui.separator();
            ui.strong(cx.tr("links.title"));
            ui.horizontal_wrapped(|ui| {
                let joints = joints_of_body(model, *only);
                let text = cx.lang.format("links.joints", &[("count", &joints.len())]);
                if ui
                    .add_enabled(!joints.is_empty(), egui::Button::new(text))
                    .clicked()
                {
                    cx.commands.push(Command::Select {
                        kind: ElementKind::Joint,
                        indices: joints,
                    });
                }
                if let Some(bone) = body(*only).and_then(|b| b.bone)
                    && bone.get() < model.bones.len()
                    && ui
                        .button(
                            cx.lang
                                .format("links.bone", &[("name", &cx.bone_label(bone.get()))]),
                        )
                        .clicked()
                {
                    cx.commands.push(Command::Reveal {
                        kind: ElementKind::Bone,
                        index: bone.get(),
                    });
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmx_core::model::{Joint, RigidBodyIdx};

    #[test]
    fn joints_of_a_body_are_found_on_either_side() {
        let mut model = Model::new_empty();
        model.rigid_bodies = vec![RigidBody::default(); 3];
        let r = |i| Some(RigidBodyIdx::new(i));
        model.joints = vec![
            Joint {
                body_a: r(0),
                body_b: r(1),
                ..Joint::default()
            },
            Joint {
                body_a: r(2),
                body_b: r(0),
                ..Joint::default()
            },
            Joint {
                body_a: r(2),
                body_b: None,
                ..Joint::default()
            },
        ];
        assert_eq!(joints_of_body(&model, 0), vec![0, 1]);
        assert_eq!(joints_of_body(&model, 2), vec![1, 2]);
        assert!(joints_of_body(&model, 5).is_empty());
        assert_eq!(unknown_shape(RigidShape::Unknown(7)), "? (7)");
    }
}
