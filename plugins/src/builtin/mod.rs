//! The built-in tools, each a [`crate::Plugin`] and each one undo step.

use crate::api::Plugin;
use std::sync::Arc;

pub mod clean_up;
pub mod common;
pub mod materials;
pub mod mirror;
pub mod morphs;
pub mod name_dictionary;
pub mod normals;
pub mod physics_from_bones;
pub mod semi_standard_bones;
pub mod transform_model;
pub mod translate_names;
pub mod weights;

/// Every built-in tool, in menu order within each group.
#[must_use]
pub fn all() -> Vec<Arc<dyn Plugin>> {
    vec![
        Arc::new(normals::FlipNormals),
        Arc::new(normals::RecomputeNormals),
        Arc::new(weights::NormalizeWeights),
        Arc::new(weights::CleanWeights),
        Arc::new(weights::LimitWeights),
        Arc::new(weights::TransferWeights),
        Arc::new(semi_standard_bones::SemiStandardBones),
        Arc::new(mirror::Mirror),
        Arc::new(morphs::MorphFromModelTool),
        Arc::new(morphs::MorphFromPoseTool),
        Arc::new(morphs::SplitMorphTool),
        Arc::new(morphs::MirrorMorphTool),
        Arc::new(morphs::GroupMorphFromSelectionTool),
        Arc::new(materials::SplitMaterial),
        Arc::new(materials::MergeMaterials),
        Arc::new(materials::DeleteMaterialPart),
        Arc::new(physics_from_bones::PhysicsFromBones),
        Arc::new(translate_names::TranslateNames),
        Arc::new(transform_model::TransformModel),
        Arc::new(clean_up::RemoveUnusedVertices),
        Arc::new(clean_up::RemoveUnusedTextures),
        Arc::new(clean_up::RemoveUnusedBones),
        Arc::new(clean_up::WeldVertices),
    ]
}
