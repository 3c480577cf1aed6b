//! Sphere maps under the extension MikuMikuDance reads their mode from. A PMD material names its
//! sphere map after its texture (`tex.bmp*sphere.sph`), and MMD picks the mode from the
//! extension alone: `.spa` adds, anything else multiplies (and a field with no texture is a
//! sphere map only as `.sph` or `.spa`). A PMX material has the mode as a field, so real models
//! add `hair_s.bmp` or `km.png`: written as they are, the PMD darkens what the PMX lit. A save
//! to a file therefore names such a sphere map `hair_s.spa` and writes that file beside the PMD
//! as a copy of the image ([`plan_copies`], carried out by the registry's PMD writer).

use super::to_model::{is_sphere_name, sphere_mode_of};
use crate::formats::relocate::is_absolute_text;
use crate::model::{Model, SphereMode};
use std::collections::HashMap;
use std::path::Path;

/// Sphere names a PMD of a model writes in place of the model's, by the model's texture
/// index, the material's sphere mode and whether the field names the sphere map alone (no
/// texture).
pub type SphereNames = HashMap<(usize, SphereMode, bool), String>;

/// A copy of the image `original` (a model texture path, relative to the PMD's folder) that a
/// PMD names `written` (the same), with the image's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SphereCopy {
    pub original: String,
    pub written: String,
    pub bytes: Vec<u8>,
}

/// The name MMD reads the sphere map `name` in `mode` from, where `name` is not one already:
/// `.spa` for add; `.sph` for multiply where `name` ends in `.spa`, or where the field names
/// the sphere map `alone` and `name` is no `.sph`. The extension is replaced (or added); a path
/// that leaves the PMD's folder (`..`, absolute) becomes its file name alone, since the copy
/// goes beside the PMD. `None`: `name` is read as it should be, or the mode is none MMD has.
#[must_use]
pub fn sphere_name_for(name: &str, mode: SphereMode, alone: bool) -> Option<String> {
    let extension = match mode {
        SphereMode::Add => "spa",
        SphereMode::Multiply => "sph",
        _ => return None,
    };
    if sphere_mode_of(name) == mode && (is_sphere_name(name) || !alone) {
        return None;
    }
    let portable = name.trim().replace('\\', "/");
    let leaves_folder = is_absolute_text(&portable) || portable.split('/').any(|part| part == "..");
    let kept = if leaves_folder {
        portable.rsplit('/').next().unwrap_or(&portable).to_owned()
    } else {
        name.trim().to_owned()
    };
    let file_start = kept.rfind(['/', '\\']).map_or(0, |at| at + 1);
    let stem_end = kept[file_start..]
        .rfind('.')
        .filter(|&dot| dot > 0)
        .map_or(kept.len(), |dot| file_start + dot);
    Some(format!("{}.{extension}", &kept[..stem_end]))
}

/// [`sphere_name_for`] for every material of `model` whose sphere map needs another name,
/// without looking at any folder (what a save would write, for the list of what PMD cannot
/// hold as it is).
#[must_use]
pub fn names_by_rule(model: &Model) -> SphereNames {
    wanted_names(model)
        .into_iter()
        .map(|(key, _, written)| (key, written))
        .collect()
}

/// The names [`names_by_rule`] gives, in the order of the materials, each key once, with the
/// model's name of the image.
fn wanted_names(model: &Model) -> Vec<((usize, SphereMode, bool), String, String)> {
    let mut wanted: Vec<((usize, SphereMode, bool), String, String)> = Vec::new();
    for material in &model.materials {
        let Some(index) = material.sphere_texture.map(|t| t.get()) else {
            continue;
        };
        let key = (index, material.sphere_mode, material.texture.is_none());
        let Some(name) = model.textures.get(index).map(|t| t.as_str().into_owned()) else {
            continue;
        };
        if wanted.iter().any(|(known, _, _)| *known == key) {
            continue;
        }
        if let Some(written) = sphere_name_for(&name, key.1, key.2) {
            wanted.push((key, name, written));
        }
    }
    wanted
}

/// The sphere names a PMD of `model` saved in `dir` writes and the copies that go beside it:
/// [`names_by_rule`], where the image is found from `dir` (a missing one keeps its name, and
/// the usual warning). A name already taken by another image, in `dir` or by another copy,
/// gets `_2`, `_3`... before its extension; an identical file already there is used as it is.
#[must_use]
pub fn plan_copies(model: &Model, dir: &Path) -> (SphereNames, Vec<SphereCopy>) {
    let mut names = SphereNames::new();
    let mut copies: Vec<SphereCopy> = Vec::new();
    for (key, original, wanted) in wanted_names(model) {
        let Some(bytes) =
            crate::texture::resolve(dir, &original).and_then(|image| read_image(&image))
        else {
            continue;
        };
        let mut chosen = None;
        for attempt in 1..=99 {
            let written = numbered(&wanted, attempt);
            let planned = copies
                .iter()
                .find(|copy| copy.written.eq_ignore_ascii_case(&written));
            let same = if let Some(copy) = planned {
                copy.bytes == bytes
            } else if let Some(existing) = crate::texture::resolve(dir, &written) {
                read_image(&existing).is_some_and(|b| b == bytes)
            } else {
                copies.push(SphereCopy {
                    original: original.clone(),
                    written: written.clone(),
                    bytes: bytes.clone(),
                });
                true
            };
            if same {
                chosen = Some(written);
                break;
            }
        }
        if let Some(written) = chosen {
            names.insert(key, written);
        }
    }
    (names, copies)
}

/// The most a sphere map copied here may hold: an image of 4096 × 4096 RGBA is 64 MiB. A path
/// that names something bigger (a model naming any file at all) keeps its name.
const MAX_IMAGE_BYTES: u64 = 64 << 20;

/// The bytes of the image at `path`, if it is a file of at most [`MAX_IMAGE_BYTES`].
fn read_image(path: &Path) -> Option<Vec<u8>> {
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_IMAGE_BYTES {
        return None;
    }
    std::fs::read(path).ok()
}

/// `name` with `_N` before its extension for `n` of 2 and more.
fn numbered(name: &str, n: usize) -> String {
    if n < 2 {
        return name.to_owned();
    }
    match name.rfind('.') {
        Some(dot) => format!("{}_{n}{}", &name[..dot], &name[dot..]),
        None => format!("{name}_{n}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_take_the_extension_of_their_mode() {
        use SphereMode::{Add, Disabled, Multiply};
        assert_eq!(
            sphere_name_for("hair_s.bmp", Add, false).as_deref(),
            Some("hair_s.spa")
        );
        assert_eq!(
            sphere_name_for("tex\\km.png", Add, false).as_deref(),
            Some("tex\\km.spa")
        );
        assert_eq!(
            sphere_name_for("es3.sph", Add, false).as_deref(),
            Some("es3.spa")
        );
        assert_eq!(sphere_name_for("glow.SPA", Add, false), None);
        assert_eq!(
            sphere_name_for("metal.spa", Multiply, false).as_deref(),
            Some("metal.sph")
        );
        assert_eq!(sphere_name_for("metal.bmp", Multiply, false), None);
        assert_eq!(
            sphere_name_for("metal.bmp", Multiply, true).as_deref(),
            Some("metal.sph")
        );
        assert_eq!(sphere_name_for("metal.sph", Multiply, true), None);
        assert_eq!(sphere_name_for("metal.bmp", Disabled, true), None);
        // Outside the PMD's folder the copy goes beside it, under the file's name.
        assert_eq!(
            sphere_name_for("../../src/sphere/add.png", Add, false).as_deref(),
            Some("add.spa")
        );
        assert_eq!(
            sphere_name_for("C:\\mmd\\s.bmp", Add, false).as_deref(),
            Some("s.spa")
        );
        assert_eq!(
            sphere_name_for("noext", Add, false).as_deref(),
            Some("noext.spa")
        );
        assert_eq!(
            sphere_name_for("a.b/noext", Add, false).as_deref(),
            Some("a.b/noext.spa")
        );
    }

    #[test]
    fn copies_take_a_free_name_or_an_identical_file() {
        use crate::model::{Material, TextureIdx};
        let dir = tempfile::tempdir().expect("a folder");
        std::fs::write(dir.path().join("a.png"), b"one").expect("written");
        std::fs::write(dir.path().join("a.bmp"), b"two").expect("written");
        // Another image is already where the first copy would go; an identical one for `b`.
        std::fs::write(dir.path().join("a.spa"), b"other").expect("written");
        std::fs::write(dir.path().join("b.png"), b"three").expect("written");
        std::fs::write(dir.path().join("b.spa"), b"three").expect("written");
        let mut model = Model::new_empty();
        model.textures = ["a.png", "a.bmp", "b.png", "gone.png"]
            .iter()
            .map(|&t| t.into())
            .collect();
        for index in 0..4 {
            model.materials.push(Material {
                texture: Some(TextureIdx::new(0)),
                sphere_texture: Some(TextureIdx::new(index)),
                sphere_mode: SphereMode::Add,
                ..Material::default()
            });
        }
        let (names, copies) = plan_copies(&model, dir.path());
        let name = |index: usize| names.get(&(index, SphereMode::Add, false)).cloned();
        // In the order of the materials, whatever the run.
        assert_eq!(name(0).as_deref(), Some("a_2.spa"));
        assert_eq!(name(1).as_deref(), Some("a_3.spa"));
        assert_eq!(name(2).as_deref(), Some("b.spa"));
        assert_eq!(name(3), None, "a missing image keeps its name");
        let written: Vec<&str> = copies.iter().map(|c| c.written.as_str()).collect();
        assert_eq!(written, ["a_2.spa", "a_3.spa"]);
    }
}
