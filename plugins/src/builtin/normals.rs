//! Normals: flip, and recompute from the faces by a smoothing angle.

use super::common::{PointGrid, count, distance_squared, face_materials, target_vertices};
use crate::api::{
    EditBatch, Needs, Plugin, PluginContext, PluginError, PluginGroup, PluginInfo, PluginOutput,
};
use crate::options::OptionSpec;
use glam::DVec3;
use pmx_core::Model;
use pmx_core::edit::{SetField, field};
use pmx_core::model::{ElementKind, Vec3, Vertex};
use pmx_core::validate::FixStep;

/// 法線反転: the selected vertices' normals (all when none is selected) point the other way.
#[derive(Debug, Clone, Copy)]
pub struct FlipNormals;

impl Plugin for FlipNormals {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "flip_normals".to_owned(),
            group: PluginGroup::Normals,
            name_ja: "法線反転".to_owned(),
            name_en: "Flip normals".to_owned(),
            description_ja: "選択頂点(未選択なら全頂点)の法線を反転します。".to_owned(),
            description_en: "Turns the normals of the selected vertices (all when none is selected) the other way.".to_owned(),
            version: "1.0".to_owned(),
            needs: Needs::SelectedOrAll(ElementKind::Vertex),
            options: Vec::new(),
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let indices = cx.selected_or_all(ElementKind::Vertex);
        if indices.is_empty() {
            return Err(PluginError::NoChange);
        }
        let normals = indices
            .iter()
            .map(|&index| {
                let n = cx.model.vertices[index].normal;
                pmx_core::model::Vec3::new(-n.x, -n.y, -n.z)
            })
            .collect();
        let count = indices.len();
        let mut batch = EditBatch::new();
        batch.push(FixStep::Set(SetField::each(
            field::<Vertex>().normal(),
            indices,
            normals,
        )));
        Ok(PluginOutput::new(batch).with_note(
            format!("{count} normals flipped"),
            format!("{count}個の法線を反転"),
        ))
    }
}

/// Vertices closer than this are "at the same position" (a UV seam or a hard edge split in
/// two): far below any modelled detail in MMD units (1 ≈ 8 cm), well above float noise.
pub const SAME_POSITION: f64 = 1e-5;

/// 法線の再計算: each vertex's normal from the faces around it, weighted by the face's angle at
/// the vertex (so a quad counts the same however it is split into triangles). Faces that
/// share the vertex index always count (a vertex has one normal); where a seam splits one
/// position into several vertices, the faces of the others count too when their normal is
/// within `angle` of the vertex's own, so a UV seam is smoothed and an edge sharper than the
/// angle stays sharp. Metasequoia's default smoothing angle (59.5°) is the default.
#[derive(Debug, Clone, Copy)]
pub struct RecomputeNormals;

/// A face's unit normal and its angles at its three corners (radians); `None` for a face that
/// is degenerate or names a vertex past the end.
fn face_geometry(model: &Model, face: &pmx_core::model::Face) -> Option<(DVec3, [f64; 3])> {
    let point = |corner: usize| {
        let vertex = model.vertices.get(face[corner].get())?;
        vertex
            .position
            .is_finite()
            .then(|| glam::Vec3::from(vertex.position).as_dvec3())
    };
    let points = [point(0)?, point(1)?, point(2)?];
    let normal = (points[1] - points[0])
        .cross(points[2] - points[0])
        .try_normalize()?;
    let angle_at = |corner: usize| {
        let here = points[corner];
        let to_next = points[(corner + 1) % 3] - here;
        let to_previous = points[(corner + 2) % 3] - here;
        to_next
            .cross(to_previous)
            .length()
            .atan2(to_next.dot(to_previous))
    };
    Some((normal, [angle_at(0), angle_at(1), angle_at(2)]))
}

impl Plugin for RecomputeNormals {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "recompute_normals".to_owned(),
            group: PluginGroup::Normals,
            name_ja: "法線の再計算".to_owned(),
            name_en: "Recompute normals".to_owned(),
            description_ja: "面から頂点法線を計算し直します（面の角度で重み付け）。選択頂点、なければ選択材質の頂点、なければ全頂点が対象です。同じインデックスの頂点を共有する面は常に平均し、同じ位置に分かれた頂点（UVの継ぎ目）の面は法線の角度が「スムージング角」以内なら平均します。範囲「材質ごと」では別の材質の頂点とは平均しません。面のない頂点は法線を変えません。".to_owned(),
            description_en: "Computes the vertex normals again from the faces (each face weighted by its angle at the vertex), for the selected vertices, else the vertices of the selected materials, else all. Faces that share a vertex index are always averaged; where a seam splits a position into several vertices (a UV seam), their faces are averaged too when their normals are within the smoothing angle. With scope \"per material\" vertices of other materials are never averaged in. A vertex with no face keeps its normal.".to_owned(),
            version: "1.0".to_owned(),
            needs: Needs::Nothing,
            options: vec![
                OptionSpec::number(
                    "angle",
                    "スムージング角",
                    "Smoothing angle",
                    59.5,
                    0.0,
                    180.0,
                    "°",
                ),
                OptionSpec::choice(
                    "scope",
                    "範囲",
                    "Scope",
                    "material",
                    vec![
                        ("material", "材質ごと", "Per material"),
                        ("all", "全体", "Whole model"),
                    ],
                ),
            ],
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let model = cx.model;
        let cos_angle = cx.options.number("angle").to_radians().cos();
        let per_material = cx.options.text("scope") != "all";
        let (targets, scope) = target_vertices(cx);
        if targets.is_empty() {
            return Err(PluginError::refused(
                "the model has no vertices to recompute",
                "法線を計算する頂点がありません",
            ));
        }
        let geometry: Vec<Option<(DVec3, [f64; 3])>> = model
            .faces
            .iter()
            .map(|face| face_geometry(model, face))
            .collect();
        let materials_of_faces = face_materials(model);
        // The corners around each vertex (face * 3 + corner), in compressed rows.
        let vertex_count = model.vertices.len();
        let mut starts = vec![0u32; vertex_count + 1];
        for (face, geometry) in model.faces.iter().zip(&geometry) {
            if geometry.is_some() {
                for corner in face {
                    starts[corner.get() + 1] += 1;
                }
            }
        }
        for v in 0..vertex_count {
            starts[v + 1] += starts[v];
        }
        let mut corners = vec![0u32; starts[vertex_count] as usize];
        let mut fill = starts.clone();
        for (f, (face, geometry)) in model.faces.iter().zip(&geometry).enumerate() {
            if geometry.is_some() {
                for (c, corner) in face.iter().enumerate() {
                    let slot = &mut fill[corner.get()];
                    corners[*slot as usize] = u32::try_from(f * 3 + c).unwrap_or(u32::MAX);
                    *slot += 1;
                }
            }
        }
        let corners_of = |v: usize| &corners[starts[v] as usize..starts[v + 1] as usize];
        let contribution = |entry: u32| {
            let (face, corner) = (entry as usize / 3, entry as usize % 3);
            geometry[face].map(|(normal, angles)| (face, normal, normal * angles[corner]))
        };
        let mut grid = PointGrid::new(SAME_POSITION);
        for (v, vertex) in model.vertices.iter().enumerate() {
            if starts[v] < starts[v + 1] {
                grid.insert(u32::try_from(v).unwrap_or(u32::MAX), vertex.position);
            }
        }
        let shares_material = |u: usize, v: usize| {
            corners_of(u).iter().any(|&a| {
                corners_of(v).iter().any(|&b| {
                    materials_of_faces[a as usize / 3] == materials_of_faces[b as usize / 3]
                })
            })
        };
        let mut changed = Vec::new();
        let mut normals = Vec::new();
        let mut without_faces = 0usize;
        let mut cancelled = 0usize;
        for &v in &targets {
            let own = corners_of(v);
            if own.is_empty() {
                without_faces += 1;
                continue;
            }
            let own_sum: DVec3 = own
                .iter()
                .filter_map(|&entry| contribution(entry))
                .map(|(_, _, weighted)| weighted)
                .sum();
            let Some(own_normal) = own_sum.try_normalize() else {
                cancelled += 1;
                continue;
            };
            let position = model.vertices[v].position;
            let mut sum = own_sum;
            for u in grid.near(position) {
                let u = u as usize;
                if u == v
                    || distance_squared(model.vertices[u].position, position)
                        > SAME_POSITION * SAME_POSITION
                    || (per_material && !shares_material(u, v))
                {
                    continue;
                }
                for (face, normal, weighted) in
                    corners_of(u).iter().filter_map(|&e| contribution(e))
                {
                    let also_own = model.faces[face].iter().any(|corner| corner.get() == v);
                    if !also_own && normal.dot(own_normal) >= cos_angle - 1e-12 {
                        sum += weighted;
                    }
                }
            }
            let Some(normal) = sum.try_normalize() else {
                cancelled += 1;
                continue;
            };
            let normal = Vec3::from(normal.as_vec3());
            if !normal.bits_eq(model.vertices[v].normal) {
                changed.push(v);
                normals.push(normal);
            }
        }
        let mut output = PluginOutput::new(EditBatch::new());
        let (scope_en, scope_ja) = scope.describe(targets.len());
        output.note(
            format!(
                "{} normals recomputed of {scope_en} ({} already right)",
                count(changed.len()),
                count(targets.len() - changed.len() - without_faces - cancelled)
            ),
            format!(
                "{scope_ja}のうち{}個の法線を再計算（{}個は変更なし）",
                count(changed.len()),
                count(targets.len() - changed.len() - without_faces - cancelled)
            ),
        );
        if without_faces > 0 {
            output.note(
                format!(
                    "{} vertices use no face and kept their normals",
                    count(without_faces)
                ),
                format!(
                    "{}個の頂点は面がないため法線を変えていません",
                    count(without_faces)
                ),
            );
        }
        if cancelled > 0 {
            output.note(
                format!(
                    "{} vertices kept their normals: their faces point opposite ways",
                    count(cancelled)
                ),
                format!(
                    "{}個の頂点は面の向きが打ち消し合うため法線を変えていません",
                    count(cancelled)
                ),
            );
        }
        if !changed.is_empty() {
            output.batch.push(FixStep::Set(SetField::each(
                field::<Vertex>().normal(),
                changed,
                normals,
            )));
        }
        Ok(output)
    }
}
