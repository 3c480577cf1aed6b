//! ボーン (bones): names, position, parent, 変形階層 (layer), 物理後 (after physics) and the flags
//! in the table; in the property panel every flag with the fields it brings (tail by offset or
//! by bone, 付与 (append) with parent and ratio, fixed axis, local axes, external parent, IK with
//! target, loop count, unit angle in degrees and the IK link list with per-axis limits in
//! degrees), and links to the vertices, rigid bodies, morphs and frames that use the bone.

use crate::command::Command;
use crate::widgets::properties::{
    PropertyGrid, f32_field_ui, flag_field_ui, i64_field_ui, text_field_ui, vec_field_ui,
};
use crate::widgets::table::fields::bone_field_ui;
use crate::widgets::table::fields::{
    Pick, degrees_drag, degrees_field_ui, name_cell_ui, pick_ui, push_numbers, vec_cells_ui,
};
use crate::widgets::table::{ColumnSpec, ElementTable, SortValue};
use crate::widgets::{EditCx, i64_drag};
use pmx_core::edit::Elements;
use pmx_core::edit::field;
use pmx_core::model::{
    AngleLimits, Bone, BoneFlags, BoneIdx, DisplayItem, ElementKind, IkLink, Model, MorphOffsets,
    Vec3,
};

/// The bone table.
#[derive(Debug, Clone, Copy, Default)]
pub struct BoneTable;

/// Every bone flag with its i18n key and the short mark the table shows (PmxEditor's words).
pub const BONE_FLAGS: [(BoneFlags, &str, &str); 13] = [
    (BoneFlags::ROTATABLE, "bone.flag_rotatable", "回"),
    (BoneFlags::MOVABLE, "bone.flag_movable", "移"),
    (BoneFlags::VISIBLE, "bone.flag_visible", "表"),
    (BoneFlags::OPERABLE, "bone.flag_operable", "操"),
    (BoneFlags::IK, "bone.flag_ik", "IK"),
    (BoneFlags::APPEND_ROTATE, "bone.flag_append_rotate", "回付"),
    (BoneFlags::APPEND_MOVE, "bone.flag_append_move", "移付"),
    (BoneFlags::LOCAL_APPEND, "bone.flag_local_append", "L付"),
    (BoneFlags::FIXED_AXIS, "bone.flag_fixed_axis", "軸"),
    (BoneFlags::LOCAL_AXES, "bone.flag_local_axes", "L軸"),
    (BoneFlags::AFTER_PHYSICS, "bone.flag_after_physics", "物後"),
    (
        BoneFlags::EXTERNAL_PARENT,
        "bone.flag_external_parent",
        "外",
    ),
    (BoneFlags::TAIL_IS_BONE, "bone.flag_tail_is_bone", "先"),
];

/// What kind of bone it is, for the icon and colour the tree and the table show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoneKind {
    Ik,
    Append,
    AfterPhysics,
    Invisible,
    Normal,
}

impl BoneKind {
    /// The kind that decides the icon (IK first, then append, after physics, invisible).
    #[must_use]
    pub fn of(bone: &Bone) -> Self {
        if bone.is_ik() {
            BoneKind::Ik
        } else if bone.has_append() {
            BoneKind::Append
        } else if bone.flags.contains(BoneFlags::AFTER_PHYSICS) {
            BoneKind::AfterPhysics
        } else if !bone.flags.contains(BoneFlags::VISIBLE) {
            BoneKind::Invisible
        } else {
            BoneKind::Normal
        }
    }

    #[must_use]
    pub fn icon(self) -> &'static str {
        match self {
            BoneKind::Ik => "◆",
            BoneKind::Append => "◎",
            BoneKind::AfterPhysics => "△",
            BoneKind::Invisible => "・",
            BoneKind::Normal => "○",
        }
    }

    #[must_use]
    pub fn color(self, visuals: &egui::Visuals) -> egui::Color32 {
        match self {
            BoneKind::Ik => egui::Color32::from_rgb(230, 126, 34),
            BoneKind::Append => egui::Color32::from_rgb(155, 89, 182),
            BoneKind::AfterPhysics => egui::Color32::from_rgb(26, 160, 150),
            BoneKind::Invisible => visuals.weak_text_color(),
            BoneKind::Normal => visuals.text_color(),
        }
    }

    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            BoneKind::Ik => "bone.kind_ik",
            BoneKind::Append => "bone.kind_append",
            BoneKind::AfterPhysics => "bone.kind_after_physics",
            BoneKind::Invisible => "bone.kind_invisible",
            BoneKind::Normal => "bone.kind_normal",
        }
    }
}

/// The icon of a bone in its kind's colour, with the kind as hover text.
pub fn bone_icon_ui(ui: &mut egui::Ui, lang: crate::i18n::Language, bone: &Bone) {
    let kind = BoneKind::of(bone);
    ui.colored_label(kind.color(ui.visuals()), kind.icon())
        .on_hover_text(lang.tr(kind.key()));
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    Kind,
    NameJa,
    NameEn,
    Position,
    Parent,
    Layer,
    AfterPhysics,
    Flags,
}

const COLUMNS: [(Col, &str, f32); 8] = [
    (Col::Kind, "bone.kind", 40.0),
    (Col::NameJa, "bone.name_ja", 110.0),
    (Col::NameEn, "bone.name_en", 100.0),
    (Col::Position, "bone.position", 200.0),
    (Col::Parent, "bone.parent", 150.0),
    (Col::Layer, "bone.layer", 60.0),
    (Col::AfterPhysics, "bone.flag_after_physics", 60.0),
    (Col::Flags, "bone.flags", 420.0),
];

/// Bone flags from a check box row's bits (every bit kept: unknown bits survive).
#[must_use]
pub fn bone_flags_from(bits: u32) -> BoneFlags {
    BoneFlags::from_bits_retain(u16::try_from(bits & 0xFFFF).unwrap_or_default())
}

fn push_flag(cx: &mut EditCx<'_>, index: usize, bone: &Bone, flag: BoneFlags, on: bool) {
    let bits = if on {
        bone.flags.bits() | flag.bits()
    } else {
        bone.flags.bits() & !flag.bits()
    };
    cx.commands.push(Command::set(
        field::<Bone>().flags(),
        vec![index],
        BoneFlags::from_bits_retain(bits),
    ));
}

impl ElementTable for BoneTable {
    fn kind(&self) -> ElementKind {
        ElementKind::Bone
    }

    fn columns(&self, _model: &Model) -> Vec<ColumnSpec> {
        ColumnSpec::of_list_except(&COLUMNS, |col| matches!(col, Col::Position | Col::Flags))
    }

    fn cell_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, index: usize, column: usize) {
        let Some(bone) = cx.model.bones.get(index) else {
            return;
        };
        let Some(&(col, _, _)) = COLUMNS.get(column) else {
            return;
        };
        match col {
            Col::Kind => bone_icon_ui(ui, cx.lang, bone),
            Col::NameJa => name_cell_ui(
                cx,
                ui,
                index,
                field::<Bone>().name_ja(),
                &bone.name_ja.as_str(),
            ),
            Col::NameEn => name_cell_ui(
                cx,
                ui,
                index,
                field::<Bone>().name_en(),
                &bone.name_en.as_str(),
            ),
            Col::Position => vec_cells_ui(
                cx,
                ui,
                index,
                field::<Bone>().position(),
                bone.position,
                0.01,
            ),
            Col::Parent => {
                let name = format!("bone {index} parent");
                let current = bone.parent.map(BoneIdx::get);
                if let Some(choice) = pick_ui(cx, ui, Pick::Bone, current, 140.0, &name) {
                    cx.commands.push(Command::set(
                        field::<Bone>().parent(),
                        vec![index],
                        choice.map(BoneIdx::new),
                    ));
                }
            }
            Col::Layer => {
                let name = format!("bone {index} layer");
                let (response, new) = i64_drag(
                    ui,
                    i64::from(bone.layer),
                    false,
                    i64::from(i32::MIN)..=i64::from(i32::MAX),
                    &name,
                );
                if let Ok(layer) = i32::try_from(new) {
                    cx.set_on_change(&response, field::<Bone>().layer(), &[index], layer);
                }
            }
            Col::AfterPhysics => {
                let mut on = bone.flags.contains(BoneFlags::AFTER_PHYSICS);
                let response = ui
                    .checkbox(&mut on, "")
                    .accessible_name(format!("bone {index} after physics"));
                if response.changed() {
                    push_flag(cx, index, bone, BoneFlags::AFTER_PHYSICS, on);
                }
            }
            Col::Flags => {
                for (flag, key, mark) in BONE_FLAGS {
                    if flag == BoneFlags::AFTER_PHYSICS {
                        continue;
                    }
                    let mut on = bone.flags.contains(flag);
                    let response = ui
                        .toggle_value(&mut on, mark)
                        .on_hover_text(cx.tr(key))
                        .accessible_name(format!("bone {index} {}", cx.tr(key)));
                    if response.changed() {
                        push_flag(cx, index, bone, flag, on);
                    }
                }
            }
        }
    }

    /// The kind icon and the name (the English name scrolls with the rest): at 1280 × 800
    /// the bone tree beside the table keeps a readable width.
    fn key_columns(&self) -> usize {
        2
    }

    fn sort_value(&self, model: &Model, index: usize, column: usize) -> SortValue {
        let Some(bone) = model.bones.get(index) else {
            return SortValue::Number(0.0);
        };
        let Some(&(col, _, _)) = COLUMNS.get(column) else {
            return SortValue::Number(0.0);
        };
        match col {
            Col::Kind => SortValue::Number(BoneKind::of(bone) as u8 as f64),
            Col::NameJa => SortValue::Text(bone.name_ja.as_str().into_owned()),
            Col::NameEn => SortValue::Text(bone.name_en.as_str().into_owned()),
            Col::Parent => SortValue::Number(f64::from(BoneIdx::to_raw(bone.parent))),
            Col::Layer => SortValue::Number(f64::from(bone.layer)),
            Col::AfterPhysics => SortValue::Number(f64::from(u8::from(
                bone.flags.contains(BoneFlags::AFTER_PHYSICS),
            ))),
            Col::Position | Col::Flags => SortValue::Number(0.0),
        }
    }

    fn row_text(&self, model: &Model, index: usize, out: &mut String) {
        if let Some(bone) = model.bones.get(index) {
            out.push_str(&bone.name_ja.as_str());
            out.push(' ');
            out.push_str(&bone.name_en.as_str());
            out.push(' ');
            push_numbers(&bone.position.to_array(), out);
        }
    }

    fn new_element(&self, _model: &Model, _at: usize) -> Option<Elements> {
        let bone = Bone {
            name_ja: "新規ボーン".into(),
            name_en: "new bone".into(),
            ..Bone::default()
        };
        Some(Elements::Bones(vec![bone]))
    }

    fn properties_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, grid: &mut PropertyGrid<'_>) {
        let model = cx.model;
        let bone = |i: usize| model.bones.get(i);
        let flags = |i: usize| bone(i).map(|b| u32::from(b.flags.bits()));
        let indices = grid.indices;
        // A flag's fields show when every selected bone has the flag on.
        let all_have = |flag: BoneFlags| {
            indices
                .iter()
                .all(|&i| bone(i).is_some_and(|b| b.flags.contains(flag)))
        };
        let any_has = |flag: BoneFlags| {
            indices
                .iter()
                .any(|&i| bone(i).is_some_and(|b| b.flags.intersects(flag)))
        };
        let flag_row = |cx: &mut EditCx<'_>,
                        ui: &mut egui::Ui,
                        grid: &mut PropertyGrid<'_>,
                        keys: &[(BoneFlags, &'static str)]| {
            ui.label("");
            ui.horizontal_wrapped(|ui| {
                for &(flag, key) in keys {
                    flag_field_ui(
                        cx,
                        ui,
                        grid,
                        key,
                        field::<Bone>().flags(),
                        u32::from(flag.bits()),
                        flags,
                        bone_flags_from,
                    );
                }
            });
            ui.end_row();
        };
        grid.show(ui, "bone_properties", |ui, grid| {
            text_field_ui(
                cx,
                ui,
                grid,
                "bone.name_ja",
                field::<Bone>().name_ja(),
                false,
                |i| bone(i).map(|b| b.name_ja.as_str().into_owned()),
            );
            text_field_ui(
                cx,
                ui,
                grid,
                "bone.name_en",
                field::<Bone>().name_en(),
                false,
                |i| bone(i).map(|b| b.name_en.as_str().into_owned()),
            );
            vec_field_ui(
                cx,
                ui,
                grid,
                "bone.position",
                field::<Bone>().position(),
                0.01,
                |i| bone(i).map(|b| b.position),
            );
            bone_field_ui(cx, ui, grid, "bone.parent", field::<Bone>().parent(), |i| {
                bone(i).map(|b| b.parent)
            });
            i64_field_ui(
                cx,
                ui,
                grid,
                "bone.layer",
                field::<Bone>().layer(),
                i64::from(i32::MIN)..=i64::from(i32::MAX),
                |i| bone(i).map(|b| i64::from(b.layer)),
            );
            flag_row(
                cx,
                ui,
                grid,
                &[
                    (BoneFlags::ROTATABLE, "bone.flag_rotatable"),
                    (BoneFlags::MOVABLE, "bone.flag_movable"),
                    (BoneFlags::VISIBLE, "bone.flag_visible"),
                    (BoneFlags::OPERABLE, "bone.flag_operable"),
                    (BoneFlags::AFTER_PHYSICS, "bone.flag_after_physics"),
                ],
            );
            // Tail (表示先): an offset or a bone.
            ui.strong(cx.tr("bone.tail"));
            ui.end_row();
            flag_row(
                cx,
                ui,
                grid,
                &[(BoneFlags::TAIL_IS_BONE, "bone.flag_tail_is_bone")],
            );
            if all_have(BoneFlags::TAIL_IS_BONE) {
                bone_field_ui(
                    cx,
                    ui,
                    grid,
                    "bone.tail_bone",
                    field::<Bone>().tail_bone(),
                    |i| bone(i).map(|b| b.tail_bone),
                );
            } else if !any_has(BoneFlags::TAIL_IS_BONE) {
                vec_field_ui(
                    cx,
                    ui,
                    grid,
                    "bone.tail_offset",
                    field::<Bone>().tail_offset(),
                    0.01,
                    |i| bone(i).map(|b| b.tail_offset),
                );
            }
            // Append (付与).
            ui.strong(cx.tr("bone.append"));
            ui.end_row();
            flag_row(
                cx,
                ui,
                grid,
                &[
                    (BoneFlags::APPEND_ROTATE, "bone.flag_append_rotate"),
                    (BoneFlags::APPEND_MOVE, "bone.flag_append_move"),
                    (BoneFlags::LOCAL_APPEND, "bone.flag_local_append"),
                ],
            );
            if indices
                .iter()
                .all(|&i| bone(i).is_some_and(Bone::has_append))
            {
                bone_field_ui(
                    cx,
                    ui,
                    grid,
                    "bone.append_parent",
                    field::<Bone>().append_parent(),
                    |i| bone(i).map(|b| b.append_parent),
                );
                f32_field_ui(
                    cx,
                    ui,
                    grid,
                    "bone.append_ratio",
                    field::<Bone>().append_ratio(),
                    0.01,
                    |i| bone(i).map(|b| b.append_ratio),
                );
            }
            // Fixed axis (軸制限) and local axes (ローカル軸).
            ui.strong(cx.tr("bone.axes"));
            ui.end_row();
            flag_row(
                cx,
                ui,
                grid,
                &[
                    (BoneFlags::FIXED_AXIS, "bone.flag_fixed_axis"),
                    (BoneFlags::LOCAL_AXES, "bone.flag_local_axes"),
                ],
            );
            if all_have(BoneFlags::FIXED_AXIS) {
                vec_field_ui(
                    cx,
                    ui,
                    grid,
                    "bone.fixed_axis",
                    field::<Bone>().fixed_axis(),
                    0.01,
                    |i| bone(i).map(|b| b.fixed_axis),
                );
            }
            if all_have(BoneFlags::LOCAL_AXES) {
                vec_field_ui(
                    cx,
                    ui,
                    grid,
                    "bone.local_axis_x",
                    field::<Bone>().local_axis_x(),
                    0.01,
                    |i| bone(i).map(|b| b.local_axis_x),
                );
                vec_field_ui(
                    cx,
                    ui,
                    grid,
                    "bone.local_axis_z",
                    field::<Bone>().local_axis_z(),
                    0.01,
                    |i| bone(i).map(|b| b.local_axis_z),
                );
            }
            // External parent (外部親).
            flag_row(
                cx,
                ui,
                grid,
                &[(BoneFlags::EXTERNAL_PARENT, "bone.flag_external_parent")],
            );
            if all_have(BoneFlags::EXTERNAL_PARENT) {
                i64_field_ui(
                    cx,
                    ui,
                    grid,
                    "bone.external_parent_key",
                    field::<Bone>().external_parent_key(),
                    i64::from(i32::MIN)..=i64::from(i32::MAX),
                    |i| bone(i).map(|b| i64::from(b.external_parent_key)),
                );
            }
            // IK.
            ui.strong("IK");
            ui.end_row();
            flag_row(cx, ui, grid, &[(BoneFlags::IK, "bone.flag_ik")]);
            if all_have(BoneFlags::IK) {
                bone_field_ui(
                    cx,
                    ui,
                    grid,
                    "bone.ik_target",
                    field::<Bone>().ik().target(),
                    |i| bone(i).map(|b| b.ik.target),
                );
                i64_field_ui(
                    cx,
                    ui,
                    grid,
                    "bone.ik_loop_count",
                    field::<Bone>().ik().loop_count(),
                    i64::from(i32::MIN)..=i64::from(i32::MAX),
                    |i| bone(i).map(|b| i64::from(b.ik.loop_count)),
                );
                degrees_field_ui(
                    cx,
                    ui,
                    grid,
                    "bone.ik_limit_angle",
                    field::<Bone>().ik().limit_angle(),
                    |i| bone(i).map(|b| b.ik.limit_angle),
                );
            }
        });
        if let [only] = indices
            && let Some(b) = bone(*only)
        {
            if b.is_ik() {
                ui.separator();
                ik_links_ui(cx, ui, *only, b);
            }
            ui.separator();
            bone_links_ui(cx, ui, *only);
        }
    }
}

/// The IK link list of bone `index`: a bone per link, optional per-axis limits in degrees, add,
/// remove and reorder. Adding, removing, reordering and switching limits set the whole list
/// (one undo step each); the numbers are set one by one.
fn ik_links_ui(cx: &mut EditCx<'_>, ui: &mut egui::Ui, index: usize, bone: &Bone) {
    let links = &bone.ik.links;
    let set_links = |cx: &mut EditCx<'_>, new: Vec<IkLink>| {
        cx.commands
            .push(Command::set(field::<Bone>().ik().links(), vec![index], new));
    };
    ui.horizontal(|ui| {
        ui.strong(cx.tr("bone.ik_links"));
        ui.label(format!("({})", links.len()));
        if ui
            .button(cx.tr("bone.ik_add_link"))
            .on_hover_text(cx.tr("bone.ik_add_link_hint"))
            .clicked()
        {
            let mut new = links.clone();
            new.push(IkLink {
                bone: None,
                limits: None,
            });
            set_links(cx, new);
        }
    });
    egui::Grid::new(("ik_links", index))
        .num_columns(2)
        .striped(true)
        .spacing([6.0, 4.0])
        .show(ui, |ui| {
            for (j, link) in links.iter().enumerate() {
                ui.label(j.to_string());
                ui.vertical(|ui| {
                    ui.horizontal(|ui| {
                        let name = format!("ik link {j} bone");
                        let current = link.bone.map(BoneIdx::get);
                        if let Some(choice) = pick_ui(cx, ui, Pick::Bone, current, 150.0, &name) {
                            cx.commands.push(Command::set(
                                field::<Bone>().ik().links().at(j).bone(),
                                vec![index],
                                choice.map(BoneIdx::new),
                            ));
                        }
                        let mut limited = link.limits.is_some();
                        if ui
                            .checkbox(&mut limited, cx.tr("bone.ik_limits"))
                            .accessible_name(format!("ik link {j} limits"))
                            .changed()
                        {
                            let limits = limited.then(AngleLimits::default);
                            cx.commands.push(Command::set(
                                field::<Bone>().ik().links().at(j).limits(),
                                vec![index],
                                limits,
                            ));
                        }
                        let up = ui
                            .add_enabled(j > 0, egui::Button::new("↑"))
                            .on_hover_text(cx.tr("context.move_up"))
                            .accessible_name(format!("ik link {j} up"));
                        let down = ui
                            .add_enabled(j + 1 < links.len(), egui::Button::new("↓"))
                            .on_hover_text(cx.tr("context.move_down"))
                            .accessible_name(format!("ik link {j} down"));
                        let remove = ui
                            .button("×")
                            .on_hover_text(cx.tr("context.delete"))
                            .accessible_name(format!("ik link {j} remove"));
                        let mut new = links.clone();
                        if up.clicked() {
                            new.swap(j, j - 1);
                            set_links(cx, new);
                        } else if down.clicked() {
                            new.swap(j, j + 1);
                            set_links(cx, new);
                        } else if remove.clicked() {
                            new.remove(j);
                            set_links(cx, new);
                        }
                    });
                    if let Some(limits) = link.limits {
                        let link_limits = field::<Bone>().ik().links().at(j).limits().some();
                        for (side, key, v) in [
                            (link_limits.clone().lower(), "bone.ik_lower", limits.lower),
                            (link_limits.clone().upper(), "bone.ik_upper", limits.upper),
                        ] {
                            ui.horizontal(|ui| {
                                ui.label(cx.tr(key));
                                limit_drags(cx, ui, index, side, v);
                            });
                        }
                    }
                });
                ui.end_row();
            }
        });
}

fn limit_drags(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    index: usize,
    side: pmx_core::edit::Field<Bone, Vec3>,
    v: Vec3,
) {
    for (component, value) in [
        (side.clone().x(), v.x),
        (side.clone().y(), v.y),
        (side.z(), v.z),
    ] {
        let path = component.field_path().to_string();
        let (response, new) = degrees_drag(ui, value, false, &path);
        cx.set_on_change(&response, component, &[index], new);
    }
}

/// The vertices a bone moves (any weight above zero), ascending.
#[must_use]
pub fn vertices_of_bone(model: &Model, bone: usize) -> Vec<usize> {
    model
        .vertices
        .iter()
        .enumerate()
        .filter(|(_, v)| {
            v.weight
                .bone_weights()
                .iter()
                .any(|(b, w)| *w > 0.0 && b.is_some_and(|b| b.get() == bone))
        })
        .map(|(i, _)| i)
        .collect()
}

/// The rigid bodies tied to a bone.
#[must_use]
pub fn rigid_bodies_of_bone(model: &Model, bone: usize) -> Vec<usize> {
    model
        .rigid_bodies
        .iter()
        .enumerate()
        .filter(|(_, b)| b.bone.is_some_and(|b| b.get() == bone))
        .map(|(i, _)| i)
        .collect()
}

/// The bone morphs that move a bone.
#[must_use]
pub fn morphs_of_bone(model: &Model, bone: usize) -> Vec<usize> {
    model
        .morphs
        .iter()
        .enumerate()
        .filter(|(_, m)| match &m.offsets {
            MorphOffsets::Bone(list) => {
                list.iter().any(|o| o.bone.is_some_and(|b| b.get() == bone))
            }
            _ => false,
        })
        .map(|(i, _)| i)
        .collect()
}

/// The display frames that list a bone.
#[must_use]
pub fn frames_of_bone(model: &Model, bone: usize) -> Vec<usize> {
    model
        .display_frames
        .iter()
        .enumerate()
        .filter(|(_, f)| {
            f.items
                .iter()
                .any(|item| matches!(item, DisplayItem::Bone(Some(b)) if b.get() == bone))
        })
        .map(|(i, _)| i)
        .collect()
}

/// Buttons that select what uses the bone, in its own tab.
fn bone_links_ui(cx: &mut EditCx<'_>, ui: &mut egui::Ui, index: usize) {
    ui.strong(cx.tr("links.title"));
    ui.horizontal_wrapped(|ui| {
        if ui
            .button(cx.tr("links.vertices_by_weight"))
            .on_hover_text(cx.tr("links.vertices_by_weight_hint"))
            .clicked()
        {
            let indices = vertices_of_bone(cx.model, index);
            cx.commands.push(Command::Select {
                kind: ElementKind::Vertex,
                indices,
            });
        }
        let model = cx.model;
        for (kind, key, indices) in [
            (
                ElementKind::RigidBody,
                "links.rigid_bodies",
                rigid_bodies_of_bone(model, index),
            ),
            (
                ElementKind::Morph,
                "links.morphs",
                morphs_of_bone(model, index),
            ),
            (
                ElementKind::DisplayFrame,
                "links.display_frames",
                frames_of_bone(model, index),
            ),
        ] {
            let text = cx.lang.format(key, &[("count", &indices.len())]);
            if ui
                .add_enabled(!indices.is_empty(), egui::Button::new(text))
                .clicked()
            {
                cx.commands.push(Command::Select { kind, indices });
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmx_core::model::{RigidBody, Vertex, Weight};

    #[test]
    fn kinds_follow_the_flags_in_order() {
        let mut bone = Bone::default();
        assert_eq!(BoneKind::of(&bone), BoneKind::Normal);
        bone.flags.remove(BoneFlags::VISIBLE);
        assert_eq!(BoneKind::of(&bone), BoneKind::Invisible);
        bone.flags.insert(BoneFlags::AFTER_PHYSICS);
        assert_eq!(BoneKind::of(&bone), BoneKind::AfterPhysics);
        bone.flags.insert(BoneFlags::APPEND_MOVE);
        assert_eq!(BoneKind::of(&bone), BoneKind::Append);
        bone.flags.insert(BoneFlags::IK);
        assert_eq!(BoneKind::of(&bone), BoneKind::Ik);
    }

    #[test]
    fn links_find_weighted_vertices_and_bodies() {
        let mut model = Model::new_empty();
        model.bones = vec![Bone::default(), Bone::default()];
        let b = |i| Some(BoneIdx::new(i));
        model.vertices = vec![
            Vertex {
                weight: Weight::Bdef1 { bone: b(1) },
                ..Vertex::default()
            },
            Vertex {
                weight: Weight::Bdef2 {
                    bones: [b(0), b(1)],
                    weight: 1.0,
                },
                ..Vertex::default()
            },
            Vertex {
                weight: Weight::Bdef2 {
                    bones: [b(0), b(1)],
                    weight: 0.25,
                },
                ..Vertex::default()
            },
        ];
        model.rigid_bodies = vec![
            RigidBody::default(),
            RigidBody {
                bone: b(1),
                ..RigidBody::default()
            },
        ];
        // Vertex 1 gives bone 1 a weight of 0: it does not count.
        assert_eq!(vertices_of_bone(&model, 1), vec![0, 2]);
        assert_eq!(vertices_of_bone(&model, 0), vec![1, 2]);
        assert_eq!(rigid_bodies_of_bone(&model, 1), vec![1]);
        assert!(frames_of_bone(&model, 1).is_empty());
        assert_eq!(bone_flags_from(0x1_001e), BoneFlags::from_bits_retain(0x1e));
    }
}
