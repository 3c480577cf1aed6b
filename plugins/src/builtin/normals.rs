//! Normals: flip.

use crate::api::{
    EditBatch, Needs, Plugin, PluginContext, PluginError, PluginGroup, PluginInfo, PluginOutput,
};
use pmx_core::edit::{SetField, field};
use pmx_core::model::{ElementKind, Vertex};
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
