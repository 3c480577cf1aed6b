//! PMD, MikuMikuDance's original model format (`specs/pmd.ja.txt`), read into and written from
//! the PMX document model as the PMX spec's PMD compatibility section describes.
//!
//! Two layers:
//! - [`PmdFile`] is the file as stored (every section and extension, every raw value, the
//!   padding after each text terminator): [`read_file`] and [`write_file`] give back the same
//!   bytes for any file that reads.
//! - [`read`] and [`write`] convert between a PMD file and the document [`Model`]. [`write`]
//!   reports what PMD cannot hold element by element ([`PmdLoss`]); [`pmd_losses`] gives the
//!   same list without writing, for `check --target pmd`. What the model has no place for, the
//!   text fields' padding and names that fill their field, travels in [`Model::pmd`] (keyed by
//!   place in the file, used only while that place still gets the same text), so PMD → model →
//!   PMD gives the same bytes too while the names are unchanged.
//!
//! The mapping, both ways:
//! - Vertices: weight 0..100 of bone 1 → BDEF2 (BDEF1 for `(bone, 0, 100)`, PmxEditor's and
//!   MMD's single-bone form); edge flag 1 → edge scale 0, 0 → 1.
//! - Materials: `tex.bmp*sphere.sph` (`.spa`: add) → texture + sphere map (a save to a file
//!   names a sphere map whose extension gives another mode than the material's after a copy
//!   under the right one, written beside the file: [`spheres`]); toon index → shared
//!   toon for the standard names of the toon list, else a texture; draw flags from alpha (< 1:
//!   double-sided; 0.98: no self shadow) and the edge flag (edge + ground shadow); names
//!   `材質N` / `MaterialN`.
//! - Bones: kinds to flags (see `to_model::implied_bone_flags`); rotation-influenced (5) →
//!   append rotation ×1 from the IK field's bone; rotation motion (9) → append rotation from the
//!   tail field's bone × the IK field / 100; twist (8) → fixed axis towards the tail; IK list
//!   → IK data (limit × 4: PMX's radians are 4 times PMD's value; knees get X -180°..-0.5°);
//!   deform layers 1 for IK bones and the chains under them, 2 for rotation-influenced chains.
//! - Skins → vertex morphs (base skin indices resolved) with their panel; skin display list →
//!   the special 表情 frame; bone frames → display frames after the special Root frame.
//! - Rigid bodies: position relative to the bone (センター when none) → model position;
//!   the collision mask is the same 16-bit value PMX stores. Joints as they are.

mod emit;
mod from_model;
mod parse;
mod raw;
pub mod spheres;
mod text;
mod to_model;

#[cfg(test)]
mod tests;

pub use from_model::{
    MAX_BONES, MAX_VERTICES, PmdLoss, from_model, from_model_with_spheres, refusal, refusal_text,
};
pub use parse::MAGIC;
pub use raw::*;
pub use to_model::{IK_LIMIT_FACTOR, knee_limits, split_texture_field, to_model};

use crate::formats::error::{LoadOptions, LoadReport, ReadError, WriteError};
use crate::model::Model;

/// What [`write`] reports besides the bytes: everything PMD could not hold.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PmdLossReport {
    pub losses: Vec<PmdLoss>,
}

impl PmdLossReport {
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.losses.is_empty()
    }
}

/// Reads a PMD file into its raw form, with what the reader noticed.
pub fn read_file(bytes: &[u8], options: &LoadOptions) -> Result<(PmdFile, LoadReport), ReadError> {
    let parsed = parse::parse(bytes, options)?;
    let report = LoadReport {
        recovered_from: parsed.recovered_from,
        notes: parsed.notes,
        file_size: bytes.len(),
        face_index_count: Some(parsed.file.face_indices.len()),
    };
    Ok((parsed.file, report))
}

/// Writes a raw PMD file. Fails only when a count does not fit its field.
pub fn write_file(file: &PmdFile) -> Result<Vec<u8>, WriteError> {
    emit::emit(file)
}

/// Reads a PMD file as a document model.
pub fn read(bytes: &[u8], options: &LoadOptions) -> Result<(Model, LoadReport), ReadError> {
    let (file, mut report) = read_file(bytes, options)?;
    let (model, notes) = to_model(&file);
    report.notes.extend(notes);
    Ok((model, report))
}

/// Writes `model` as a PMD file, listing what PMD cannot hold. Refuses models PMD cannot
/// represent at all (more than 65,535 vertices or bones).
pub fn write(model: &Model) -> Result<(Vec<u8>, PmdLossReport), WriteError> {
    if let Some(error) = refusal(model) {
        return Err(error);
    }
    let (file, losses) = from_model(model);
    let bytes = write_file(&file)?;
    Ok((bytes, PmdLossReport { losses }))
}

/// Whether `material`'s texture field, with `textures` as the model's texture list, holds its
/// text whole as the writer composes it: the texture, `*` and the sphere map where it has
/// both (a sphere map whose mode MMD has none of is not written), in the field's 20 bytes of
/// Shift-JIS, which the writer fills to the last byte.
#[must_use]
pub fn texture_field_fits(
    material: &crate::model::Material,
    textures: &[crate::model::Text],
) -> bool {
    use crate::model::SphereMode;
    let name = |index: Option<crate::model::TextureIdx>| {
        index
            .and_then(|index| textures.get(index.get()))
            .map(|text| text.as_str().into_owned())
    };
    let sphere = match material.sphere_mode {
        SphereMode::Multiply | SphereMode::Add => name(material.sphere_texture),
        _ => None,
    };
    let field = match (name(material.texture), sphere) {
        (Some(texture), Some(sphere)) => format!("{texture}*{sphere}"),
        (Some(name), None) | (None, Some(name)) => name,
        (None, None) => return true,
    };
    !text::encode(&field, field::TEXTURE).cut
}

/// [`write`] with the sphere maps of `spheres` under their names there
/// ([`spheres::plan_copies`]: the caller writes the copies beside the file).
pub fn write_with_spheres(
    model: &Model,
    spheres: &spheres::SphereNames,
) -> Result<(Vec<u8>, PmdLossReport), WriteError> {
    if let Some(error) = refusal(model) {
        return Err(error);
    }
    let (file, losses) = from_model_with_spheres(model, spheres);
    let bytes = write_file(&file)?;
    Ok((bytes, PmdLossReport { losses }))
}

/// Everything of `model` a PMD file cannot hold, element by element, as a save to a file
/// writes it (what [`write_with_spheres`] reports, sphere maps renamed by
/// [`spheres::names_by_rule`], plus the reasons it would refuse).
#[must_use]
pub fn pmd_losses(model: &Model) -> Vec<PmdLoss> {
    from_model_with_spheres(model, &spheres::names_by_rule(model)).1
}
