//! The built-in tools, each a [`crate::Plugin`] and each one undo step.

use crate::api::Plugin;
use std::sync::Arc;

pub mod clean_up;
pub mod common;
pub mod materials;
pub mod normals;
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
        Arc::new(clean_up::RemoveUnusedVertices),
        Arc::new(clean_up::RemoveUnusedTextures),
        Arc::new(clean_up::RemoveUnusedBones),
        Arc::new(clean_up::WeldVertices),
        Arc::new(materials::SplitMaterial),
        Arc::new(materials::MergeMaterials),
        Arc::new(materials::DeleteMaterialPart),
    ]
}
