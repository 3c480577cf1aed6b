//! The built-in tools, each a [`crate::Plugin`] and each one undo step.

use crate::api::Plugin;
use std::sync::Arc;

pub mod mirror;
pub mod name_dictionary;
pub mod normals;
pub mod semi_standard_bones;
pub mod transform_model;
pub mod translate_names;
pub mod physics_from_bones;

/// Every built-in tool, in menu order within each group.
#[must_use]
pub fn all() -> Vec<Arc<dyn Plugin>> {
    vec![
        Arc::new(normals::FlipNormals),
        Arc::new(semi_standard_bones::SemiStandardBones),
        Arc::new(mirror::Mirror),
        Arc::new(translate_names::TranslateNames),
        Arc::new(transform_model::TransformModel),
        Arc::new(physics_from_bones::PhysicsFromBones),
    ]
}
