//! SoftBody (PMX 2.1): shape, material, collision group and mask, flags, B-Link distance,
//! cluster count, mass, margin, aerodynamic model, every Bullet coefficient (config, cluster,
//! iterations, material stiffness), and below the table the anchors (rigid body, vertex, near
//! mode) and pinned vertices, which can be added from the vertex selection.

use crate::command::Command;
use crate::widgets::properties::{
    IntegerField, PropertyGrid, f32_field_ui, flag_field_ui, i64_field_ui, text_field_ui,
};
use crate::widgets::table::fields::{
    Pick, choice_field_ui, group_field_ui, mask_field_ui, name_cell_ui, pick_field_ui, pick_ui,
};
use crate::widgets::table::{ColumnSpec, ElementTable, SortValue};
use crate::widgets::{EditCx, i64_drag};
use pmx_core::edit::Elements;
use pmx_core::edit::{Field, field};
use pmx_core::model::{
    AeroModel, ElementKind, MaterialIdx, Model, RigidBodyIdx, SoftBody, SoftBodyAnchor,
    SoftBodyFlags, SoftBodyShape, VertexIdx,
};

/// The soft body table.
#[derive(Debug, Clone, Copy, Default)]
pub struct SoftBodyTable;

pub const SHAPES: [(SoftBodyShape, &str); 2] = [
    (SoftBodyShape::TriMesh, "soft.shape_trimesh"),
    (SoftBodyShape::Rope, "soft.shape_rope"),
];

pub const AERO_MODELS: [(AeroModel, &str); 5] = [
    (AeroModel::VPoint, "soft.aero_v_point"),
    (AeroModel::VTwoSided, "soft.aero_v_two_sided"),
    (AeroModel::VOneSided, "soft.aero_v_one_sided"),
    (AeroModel::FTwoSided, "soft.aero_f_two_sided"),
    (AeroModel::FOneSided, "soft.aero_f_one_sided"),
];

pub const FLAGS: [(SoftBodyFlags, &str); 3] = [
    (SoftBodyFlags::B_LINK, "soft.flag_b_link"),
    (SoftBodyFlags::CLUSTERS, "soft.flag_clusters"),
    (SoftBodyFlags::LINK_HYBRID, "soft.flag_link_hybrid"),
];

/// The f32 coefficients: (i18n key, the field's handle).
type Coefficient = (&'static str, fn() -> Field<SoftBody, f32>);

const COEFFICIENTS: [Coefficient; 21] = [
    ("soft.vcf", || field::<SoftBody>().config().vcf()),
    ("soft.dp", || field::<SoftBody>().config().dp()),
    ("soft.dg", || field::<SoftBody>().config().dg()),
    ("soft.lf", || field::<SoftBody>().config().lf()),
    ("soft.pr", || field::<SoftBody>().config().pr()),
    ("soft.vc", || field::<SoftBody>().config().vc()),
    ("soft.df", || field::<SoftBody>().config().df()),
    ("soft.mt", || field::<SoftBody>().config().mt()),
    ("soft.chr", || field::<SoftBody>().config().chr()),
    ("soft.khr", || field::<SoftBody>().config().khr()),
    ("soft.shr", || field::<SoftBody>().config().shr()),
    ("soft.ahr", || field::<SoftBody>().config().ahr()),
    ("soft.srhr_cl", || field::<SoftBody>().cluster().srhr_cl()),
    ("soft.skhr_cl", || field::<SoftBody>().cluster().skhr_cl()),
    ("soft.sshr_cl", || field::<SoftBody>().cluster().sshr_cl()),
    ("soft.sr_splt_cl", || {
        field::<SoftBody>().cluster().sr_splt_cl()
    }),
    ("soft.sk_splt_cl", || {
        field::<SoftBody>().cluster().sk_splt_cl()
    }),
    ("soft.ss_splt_cl", || {
        field::<SoftBody>().cluster().ss_splt_cl()
    }),
    ("soft.lst", || field::<SoftBody>().stiffness().lst()),
    ("soft.ast", || field::<SoftBody>().stiffness().ast()),
    ("soft.vst", || field::<SoftBody>().stiffness().vst()),
];

/// The iteration counts: (i18n key, the field's handle).
type Iteration = (&'static str, fn() -> Field<SoftBody, i32>);

const ITERATIONS: [Iteration; 4] = [
    ("soft.v_it", || field::<SoftBody>().iterations().v_it()),
    ("soft.p_it", || field::<SoftBody>().iterations().p_it()),
    ("soft.d_it", || field::<SoftBody>().iterations().d_it()),
    ("soft.c_it", || field::<SoftBody>().iterations().c_it()),
];

fn unknown_shape(shape: SoftBodyShape) -> String {
    format!("? ({})", shape.to_raw())
}

fn unknown_aero(model: AeroModel) -> String {
    format!("? ({})", model.to_raw())
}

/// Soft body flags from a check box row's bits (every bit kept).
fn soft_body_flags_from(bits: u32) -> SoftBodyFlags {
    SoftBodyFlags::from_bits_retain(u8::try_from(bits & 0xFF).unwrap_or_default())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    NameJa,
    NameEn,
    Shape,
    Material,
    Group,
    Mass,
    Anchors,
    Pinned,
}

const COLUMNS: [(Col, &str, f32); 8] = [
    (Col::NameJa, "soft.name_ja", 130.0),
    (Col::NameEn, "soft.name_en", 110.0),
    (Col::Shape, "soft.shape", 90.0),
    (Col::Material, "soft.material", 150.0),
    (Col::Group, "soft.group", 50.0),
    (Col::Mass, "soft.total_mass", 70.0),
    (Col::Anchors, "soft.anchors", 70.0),
    (Col::Pinned, "soft.pinned", 70.0),
];

impl ElementTable for SoftBodyTable {
    fn kind(&self) -> ElementKind {
        ElementKind::SoftBody
    }

    fn columns(&self, _model: &Model) -> Vec<ColumnSpec> {
        ColumnSpec::of_list(&COLUMNS)
    }

    fn cell_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, index: usize, column: usize) {
        let Some(soft) = cx.model.soft_bodies.get(index) else {
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
                field::<SoftBody>().name_ja(),
                &soft.name_ja.as_str(),
            ),
            Col::NameEn => name_cell_ui(
                cx,
                ui,
                index,
                field::<SoftBody>().name_en(),
                &soft.name_en.as_str(),
            ),
            Col::Shape => {
                let key = SHAPES
                    .iter()
                    .find(|(s, _)| *s == soft.shape)
                    .map(|(_, k)| cx.tr(k).to_owned())
                    .unwrap_or_else(|| unknown_shape(soft.shape));
                ui.label(key);
            }
            Col::Material => {
                let text = soft.material.map_or_else(
                    || cx.tr("common.none").to_owned(),
                    |m| cx.material_label(m.get()),
                );
                ui.label(text);
            }
            Col::Group => {
                ui.label((u32::from(soft.group) + 1).to_string());
            }
            Col::Mass => {
                ui.label(crate::widgets::trim_number(f64::from(soft.total_mass), 4));
            }
            Col::Anchors => {
                ui.label(soft.anchors.len().to_string());
            }
            Col::Pinned => {
                ui.label(soft.pinned_vertices.len().to_string());
            }
        }
    }

    fn sort_value(&self, model: &Model, index: usize, column: usize) -> SortValue {
        let Some(soft) = model.soft_bodies.get(index) else {
            return SortValue::Number(0.0);
        };
        let Some(&(col, _, _)) = COLUMNS.get(column) else {
            return SortValue::Number(0.0);
        };
        match col {
            Col::NameJa => SortValue::Text(soft.name_ja.as_str().into_owned()),
            Col::NameEn => SortValue::Text(soft.name_en.as_str().into_owned()),
            Col::Shape => SortValue::Number(f64::from(soft.shape.to_raw())),
            Col::Material => SortValue::Number(f64::from(MaterialIdx::to_raw(soft.material))),
            Col::Group => SortValue::Number(f64::from(soft.group)),
            Col::Mass => SortValue::Number(f64::from(soft.total_mass)),
            Col::Anchors => SortValue::Number(soft.anchors.len() as f64),
            Col::Pinned => SortValue::Number(soft.pinned_vertices.len() as f64),
        }
    }

    fn row_text(&self, model: &Model, index: usize, out: &mut String) {
        if let Some(soft) = model.soft_bodies.get(index) {
            out.push_str(&soft.name_ja.as_str());
            out.push(' ');
            out.push_str(&soft.name_en.as_str());
        }
    }

    fn new_element(&self, _model: &Model, _at: usize) -> Option<Elements> {
        let soft = SoftBody {
            name_ja: "新規SoftBody".into(),
            name_en: "new soft body".into(),
            ..SoftBody::default()
        };
        Some(Elements::SoftBodies(vec![soft]))
    }

    fn properties_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, grid: &mut PropertyGrid<'_>) {
        let model = cx.model;
        let soft = |i: usize| model.soft_bodies.get(i);
        grid.show(ui, "soft_body_properties", |ui, grid| {
            text_field_ui(
                cx,
                ui,
                grid,
                "soft.name_ja",
                field::<SoftBody>().name_ja(),
                false,
                |i| soft(i).map(|s| s.name_ja.as_str().into_owned()),
            );
            text_field_ui(
                cx,
                ui,
                grid,
                "soft.name_en",
                field::<SoftBody>().name_en(),
                false,
                |i| soft(i).map(|s| s.name_en.as_str().into_owned()),
            );
            choice_field_ui(
                cx,
                ui,
                grid,
                "soft.shape",
                field::<SoftBody>().shape(),
                &SHAPES,
                &unknown_shape,
                |i| soft(i).map(|s| s.shape),
            );
            pick_field_ui(
                cx,
                ui,
                grid,
                "soft.material",
                field::<SoftBody>().material(),
                Pick::Material,
                |i| soft(i).map(|s| s.material.map(MaterialIdx::get)),
            );
            group_field_ui(
                cx,
                ui,
                grid,
                "soft.group",
                field::<SoftBody>().group(),
                |i| soft(i).map(|s| s.group),
            );
            mask_field_ui(
                cx,
                ui,
                grid,
                "soft.non_collision",
                field::<SoftBody>().non_collision_mask(),
                |i| soft(i).map(|s| s.non_collision_mask),
            );
            ui.label(cx.tr("soft.flags"));
            ui.vertical(|ui| {
                for (flag, key) in FLAGS {
                    flag_field_ui(
                        cx,
                        ui,
                        grid,
                        key,
                        field::<SoftBody>().flags(),
                        u32::from(flag.bits()),
                        |i| soft(i).map(|s| u32::from(s.flags.bits())),
                        soft_body_flags_from,
                    );
                }
            });
            ui.end_row();
            for (title, handle) in [
                (
                    "soft.b_link_distance",
                    field::<SoftBody>().b_link_distance(),
                ),
                ("soft.cluster_count", field::<SoftBody>().cluster_count()),
            ] {
                let read = handle.clone();
                i64_field_ui(
                    cx,
                    ui,
                    grid,
                    title,
                    handle,
                    i64::from(i32::MIN)..=i64::from(i32::MAX),
                    |i| read.get(model, i).map(|&v| i64::from(v)),
                );
            }
            f32_field_ui(
                cx,
                ui,
                grid,
                "soft.total_mass",
                field::<SoftBody>().total_mass(),
                0.01,
                |i| soft(i).map(|s| s.total_mass),
            );
            f32_field_ui(
                cx,
                ui,
                grid,
                "soft.margin",
                field::<SoftBody>().margin(),
                0.001,
                |i| soft(i).map(|s| s.margin),
            );
            choice_field_ui(
                cx,
                ui,
                grid,
                "soft.aero_model",
                field::<SoftBody>().aero_model(),
                &AERO_MODELS,
                &unknown_aero,
                |i| soft(i).map(|s| s.aero_model),
            );
            for (title, handle) in COEFFICIENTS {
                let read = handle();
                f32_field_ui(cx, ui, grid, title, handle(), 0.01, |i| {
                    read.get(model, i).copied()
                });
            }
            for (title, handle) in ITERATIONS {
                let read = handle();
                i64_field_ui(
                    cx,
                    ui,
                    grid,
                    title,
                    handle(),
                    0..=i64::from(i32::MAX),
                    |i| read.get(model, i).map(|&v| i64::from(v)),
                );
            }
        });
    }
}

/// The anchors and pinned vertices of soft body `index`, with adding from the selected vertices.
/// Each change sets the whole list (one undo step).
pub fn soft_body_lists_ui(
    cx: &mut EditCx<'_>,
    ui: &mut egui::Ui,
    index: usize,
    selected_vertices: &[usize],
) {
    let Some(soft) = cx.model.soft_bodies.get(index) else {
        return;
    };
    let vertex_count = cx.model.vertices.len();
    ui.columns(2, |columns| {
        let ui = &mut columns[0];
        ui.horizontal(|ui| {
            ui.strong(cx.tr("soft.anchors"));
            ui.label(format!("({})", soft.anchors.len()));
            let text = cx
                .lang
                .format("soft.add_anchors", &[("count", &selected_vertices.len())]);
            if ui
                .add_enabled(!selected_vertices.is_empty(), egui::Button::new(text))
                .clicked()
            {
                let mut anchors = soft.anchors.clone();
                anchors.extend(selected_vertices.iter().map(|&v| SoftBodyAnchor {
                    rigid_body: None,
                    vertex: VertexIdx::new(v),
                    near_mode: false,
                }));
                cx.commands.push(Command::set(
                    field::<SoftBody>().anchors(),
                    vec![index],
                    anchors,
                ));
            }
        });
        let row_height = ui.spacing().interact_size.y + 4.0;
        egui::ScrollArea::vertical()
            .id_salt("soft_anchors")
            .max_height(220.0)
            .show_rows(ui, row_height, soft.anchors.len(), |ui, rows| {
                for a in rows {
                    let anchor = soft.anchors[a];
                    let anchor_field = || field::<SoftBody>().anchors().at(a);
                    ui.horizontal(|ui| {
                        ui.label(a.to_string());
                        let name = format!("anchor {a} rigid_body");
                        if let Some(choice) = pick_ui(
                            cx,
                            ui,
                            Pick::RigidBody,
                            anchor.rigid_body.map(|b| b.get()),
                            130.0,
                            &name,
                        ) {
                            cx.commands.push(Command::set(
                                anchor_field().rigid_body(),
                                vec![index],
                                choice.map(RigidBodyIdx::new),
                            ));
                        }
                        ui.label(cx.tr("soft.vertex"));
                        let (response, new) = i64_drag(
                            ui,
                            i64::from(anchor.vertex.0),
                            false,
                            0..=i64::from(u32::MAX),
                            &format!("anchor {a} vertex"),
                        );
                        if anchor.vertex.get() >= vertex_count {
                            ui.colored_label(ui.visuals().warn_fg_color, cx.tr("common.missing"));
                        }
                        if let Some(vertex) = VertexIdx::from_i64(new) {
                            cx.set_on_change(&response, anchor_field().vertex(), &[index], vertex);
                        }
                        let mut near = anchor.near_mode;
                        if ui
                            .checkbox(&mut near, cx.tr("soft.near_mode"))
                            .accessible_name(format!("anchor {a} near_mode"))
                            .changed()
                        {
                            cx.commands.push(Command::set(
                                anchor_field().near_mode(),
                                vec![index],
                                near,
                            ));
                        }
                        if ui
                            .button("×")
                            .on_hover_text(cx.tr("context.delete"))
                            .accessible_name(format!("anchor {a} remove"))
                            .clicked()
                        {
                            let mut anchors = soft.anchors.clone();
                            anchors.remove(a);
                            cx.commands.push(Command::set(
                                field::<SoftBody>().anchors(),
                                vec![index],
                                anchors,
                            ));
                        }
                    });
                }
            });
        let ui = &mut columns[1];
        ui.horizontal(|ui| {
            ui.strong(cx.tr("soft.pinned"));
            ui.label(format!("({})", soft.pinned_vertices.len()));
            let text = cx
                .lang
                .format("soft.add_pinned", &[("count", &selected_vertices.len())]);
            if ui
                .add_enabled(!selected_vertices.is_empty(), egui::Button::new(text))
                .clicked()
            {
                let mut pinned = soft.pinned_vertices.clone();
                pinned.extend(
                    selected_vertices
                        .iter()
                        .map(|&v| VertexIdx::new(v))
                        .filter(|v| !soft.pinned_vertices.contains(v)),
                );
                cx.commands.push(Command::set(
                    field::<SoftBody>().pinned_vertices(),
                    vec![index],
                    pinned,
                ));
            }
        });
        egui::ScrollArea::vertical()
            .id_salt("soft_pinned")
            .max_height(220.0)
            .show_rows(ui, row_height, soft.pinned_vertices.len(), |ui, rows| {
                for p in rows {
                    let vertex = soft.pinned_vertices[p];
                    ui.horizontal(|ui| {
                        ui.label(format!("{p}: {} {}", cx.tr("soft.vertex"), vertex.0));
                        if vertex.get() >= vertex_count {
                            ui.colored_label(ui.visuals().warn_fg_color, cx.tr("common.missing"));
                        }
                        if ui
                            .button("×")
                            .on_hover_text(cx.tr("context.delete"))
                            .accessible_name(format!("pinned {p} remove"))
                            .clicked()
                        {
                            let mut pinned = soft.pinned_vertices.clone();
                            pinned.remove(p);
                            cx.commands.push(Command::set(
                                field::<SoftBody>().pinned_vertices(),
                                vec![index],
                                pinned,
                            ));
                        }
                    });
                }
            });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_coefficient_reads_its_own_field() {
        let mut soft = SoftBody::default();
        soft.config.vcf = 1.0;
        soft.cluster.ss_splt_cl = 2.0;
        soft.stiffness.vst = 3.0;
        soft.iterations.c_it = 4;
        let mut model = pmx_core::model::Model::default();
        model.soft_bodies.push(soft);
        let by_path = |path: &str| {
            COEFFICIENTS
                .iter()
                .find(|(_, handle)| handle().field_path().to_string() == path)
                .and_then(|(_, handle)| handle().get(&model, 0).copied())
        };
        assert_eq!(by_path("config.vcf"), Some(1.0));
        assert_eq!(by_path("cluster.ss_splt_cl"), Some(2.0));
        assert_eq!(by_path("stiffness.vst"), Some(3.0));
        assert_eq!(by_path("config.dp"), Some(0.0));
        assert_eq!(ITERATIONS[3].1().get(&model, 0), Some(&4));
        assert_eq!(unknown_aero(AeroModel::Unknown(-3)), "? (-3)");
    }
}
