//! VRM 1.0 export: the model as a glTF 2.0 binary (`.vrm`) with `VRMC_vrm` (humanoid, meta,
//! expressions, lookAt, firstPerson), `VRMC_materials_mtoon`, `VRMC_springBone` with
//! `VRMC_springBone_limit` (from the MMD physics) and `VRMC_node_constraint` (from append
//! rotations). Extensions are listed in `extensionsUsed` only, never required.
//!
//! # Axes, units, winding
//!
//! MMD is left-handed with Y up, and a model faces −Z (towards the default camera), so its
//! left hand is at +X. VRM 1.0 is glTF: right-handed, Y up, and the model faces +Z, so its
//! left hand is at +X too (the T-pose spec puts the left thumb between +X and +Z). The same
//! physical point keeps x and y and flips z when a left-handed frame is read as a right-handed
//! one, and that same flip turns "facing −Z" into "facing +Z". So
//!
//! ```text
//! glTF (x, y, z) = MMD (x, y, −z) · 0.08   (0.08 m per MMD unit)
//! ```
//!
//! and normals map as (x, y, −z). The flip is a mirror (determinant −1): it reverses the turn
//! of every triangle as seen from its front, and MMD's front faces (clockwise, DirectX's
//! default) become glTF's counter-clockwise front faces only once each triangle's corners are
//! reversed: MMD (a, b, c) is written (a, c, b).
//!
//! # What is written
//!
//! - **Skeleton.** One node per bone, except IK bones (VRM applications move humanoid bones
//!   themselves) and the D-bones and twist bones whose weights follow another bone (see
//!   [`humanoid`]); bones have no rotation in MMD, so nodes carry translations only and the
//!   inverse bind matrices are translations. `hips` is a node at the pelvis (下半身's position)
//!   inserted above 上半身 and 下半身, so the spine and both legs descend from it as VRM asks,
//!   unless the model has a 腰 bone doing that already.
//! - **Rest pose.** The T-pose, baked through the pose engine ([`tpose`]).
//! - **Meshes.** Two meshes at most: the materials some vertex or bone morph moves (with the
//!   morph targets), and the others; one primitive per material. Skins: BDEF1/2/4 as they
//!   are, SDEF as BDEF2, QDEF as a linear blend (reported), weights normalised to sum 1.
//! - **Morph targets.** Vertex morphs and bone morphs (baked by the pose engine) as sparse
//!   targets; NORMAL deltas are the normals of the displaced mesh minus those of the rest mesh,
//!   both computed from the faces the same way, so untouched vertices get exactly 0.
//! - **Expressions.** See [`expressions`].
//! - **Materials.** `VRMC_materials_mtoon`; see [`material`].
//! - **Spring bones.** Chains from the physics bodies along the bone tree, settings derived
//!   from each body and joint, limits from the joints' rotation ranges, colliders from the
//!   follow-bone bodies; see [`springs`] and [`crate::physics`].
//! - **Node constraints.** Append rotations of non-humanoid bones with a ratio in 0..1, as
//!   rotation constraints on their source.
//!
//! Whatever the VRM cannot hold is listed in the [`VrmExportReport`], in English and Japanese.

mod expressions;
mod glb;
pub mod humanoid;
mod images;
pub mod import;
pub mod limit;
mod material;
mod meta_json;
mod report;
mod springs;
mod toon;
pub mod tpose;
mod write;

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod tests;

pub use expressions::{PRESET_TABLE, preset_for};
pub use glb::split_glb;
pub use humanoid::{HumanBone, HumanoidMap, HumanoidOverrides, map_bones, map_bones_with};
pub use import::{
    ImportedTexture, VrmImport, VrmImportOptions, VrmVersion, load_vrm_path, read_vrm, read_vrm_in,
};
pub use meta_json::{META_JSON_KEYS, MetaJsonError, ParsedMetaJson, parse_meta_json};
pub use report::{SpringCounts, VrmExportReport, VrmLoss};
pub use write::write_vrm;

use glam::Vec3;
use std::path::PathBuf;

/// Metres per MMD unit (the usual 8 cm: a 20-unit-tall model is 1.6 m).
pub const METRES_PER_MMD_UNIT: f32 = 0.08;

/// MMD position or offset → glTF (see "Axes, units, winding" above).
fn to_gltf(v: Vec3) -> [f32; 3] {
    [
        v.x * METRES_PER_MMD_UNIT,
        v.y * METRES_PER_MMD_UNIT,
        -v.z * METRES_PER_MMD_UNIT,
    ]
}

/// MMD direction → glTF (no scale).
fn direction_to_gltf(v: Vec3) -> [f32; 3] {
    [v.x, v.y, -v.z]
}

/// The only licence document VRM 1.0 accepts (`meta.licenseUrl`).
pub const VRM_LICENSE_URL: &str = "https://vrm.dev/licenses/1.0/";

/// Who may use the model as an avatar (`meta.avatarPermission`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AvatarPermission {
    #[default]
    OnlyAuthor,
    OnlySeparatelyLicensedPerson,
    Everyone,
}

impl AvatarPermission {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            AvatarPermission::OnlyAuthor => "onlyAuthor",
            AvatarPermission::OnlySeparatelyLicensedPerson => "onlySeparatelyLicensedPerson",
            AvatarPermission::Everyone => "everyone",
        }
    }
}

/// Commercial use (`meta.commercialUsage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CommercialUsage {
    #[default]
    PersonalNonProfit,
    PersonalProfit,
    Corporation,
}

impl CommercialUsage {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            CommercialUsage::PersonalNonProfit => "personalNonProfit",
            CommercialUsage::PersonalProfit => "personalProfit",
            CommercialUsage::Corporation => "corporation",
        }
    }
}

/// Modification and redistribution of modified models (`meta.modification`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Modification {
    #[default]
    Prohibited,
    AllowModification,
    AllowModificationRedistribution,
}

impl Modification {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Modification::Prohibited => "prohibited",
            Modification::AllowModification => "allowModification",
            Modification::AllowModificationRedistribution => "allowModificationRedistribution",
        }
    }
}

/// `VRMC_vrm.meta`. The defaults are the spec's most restrictive choices: nothing is
/// permitted that the author did not say.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VrmMeta {
    /// `None`: the model's name (Japanese, else English).
    pub name: Option<String>,
    pub version: Option<String>,
    /// Empty: taken from the model's comment ("作者: …", "Author: …"), else "unknown".
    pub authors: Vec<String>,
    pub copyright_information: Option<String>,
    pub contact_information: Option<String>,
    pub references: Vec<String>,
    pub third_party_licenses: Option<String>,
    pub avatar_permission: AvatarPermission,
    pub allow_excessively_violent_usage: bool,
    pub allow_excessively_sexual_usage: bool,
    pub commercial_usage: CommercialUsage,
    pub allow_political_or_religious_usage: bool,
    pub allow_antisocial_or_hate_usage: bool,
    /// `true`: `creditNotation` "required" (the default), `false`: "unnecessary".
    pub credit_unnecessary: bool,
    pub allow_redistribution: bool,
    pub modification: Modification,
    pub other_license_url: Option<String>,
}

/// How to export.
#[derive(Debug, Clone, PartialEq)]
pub struct VrmExportOptions {
    pub meta: VrmMeta,
    /// The folder the model's texture paths are relative to (the PMX's folder). `None`: no
    /// texture can be found; materials are written with their colours only.
    pub model_dir: Option<PathBuf>,
    /// Bake the VRM T-pose into the rest pose (the spec requires it; off only for tests and
    /// for models already in a T-pose).
    pub t_pose: bool,
    /// The user's changes to the humanoid mapping found by name (the export dialog's table).
    pub humanoid_overrides: HumanoidOverrides,
    /// Write the MMD physics as spring bones (`VRMC_springBone`, with
    /// `VRMC_springBone_limit` from the joints' rotation limits).
    pub spring_bones: bool,
}

impl Default for VrmExportOptions {
    fn default() -> Self {
        Self {
            meta: VrmMeta::default(),
            model_dir: None,
            t_pose: true,
            humanoid_overrides: HumanoidOverrides::new(),
            spring_bones: true,
        }
    }
}

/// An exported model: the `.vrm` bytes and what was written and lost.
#[derive(Debug, Clone, PartialEq)]
pub struct VrmExport {
    pub vrm: Vec<u8>,
    pub report: VrmExportReport,
}
