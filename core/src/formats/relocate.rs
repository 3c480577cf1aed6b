//! Texture paths that follow a model written into another folder.
//!
//! A model names its textures relative to its own file (PMX, PMD, the JSON and CSV forms, SMF,
//! MQO's `tex`). Written into another folder as they are, every relative path points at
//! nothing. Before such a write, [`relocate_textures`] either rewrites each relative path so it
//! reaches the same image from the new folder, or ([`TextureRelocation::Copy`]) copies the image
//! beside the output, keeping its relative layout, as the VRM import writes the images it
//! unpacks. What cannot be kept (a missing image, an image on another drive, an absolute path
//! when copying, a copy that failed) is listed in the [`RelocationReport`]: never silently
//! broken.
//!
//! Writing beside the source changes nothing. The folder arithmetic here (lexical `..`
//! resolution, relative paths between folders) is the only copy of it: the MQO export uses it
//! for its `tex` paths too.

use super::{FileFormat, pmd};
use crate::i18n::Message;
use crate::model::Model;
use std::path::{Component, Path, PathBuf};

/// What to do with the textures of a model written into another folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextureRelocation {
    /// Rewrite relative paths so they still reach the images where they are.
    #[default]
    Rewrite,
    /// Copy the images beside the output (their relative layout kept, `..` left out) and point
    /// the paths at the copies.
    Copy,
}

/// Why a texture path could not be kept pointing at its image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnkeptReason {
    /// No image at the path, seen from the source's folder (the path is still rewritten to
    /// where the image would be).
    Missing,
    /// The image is on another drive than the output: no relative path reaches it, so the
    /// path was made absolute.
    OtherDrive,
    /// An absolute path, kept as it is and not copied.
    Absolute,
    /// A file with other contents is already where the copy would go (kept; the path was
    /// rewritten to the original image instead).
    Occupied,
    /// The copy failed (the path was rewritten to the original image instead).
    CopyFailed(String),
}

/// A texture path that could not be kept pointing at its image, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnkeptTexture {
    /// The path as the model named it before the write.
    pub path: String,
    /// The path written (equal to `path` when it was left as it is).
    pub written: String,
    pub reason: UnkeptReason,
}

impl UnkeptTexture {
    /// What happened to the path, for the user.
    #[must_use]
    pub fn message(&self) -> Message {
        let message = match &self.reason {
            UnkeptReason::Missing => Message::new("save.textures.missing"),
            UnkeptReason::OtherDrive => Message::new("save.textures.other_drive"),
            UnkeptReason::Absolute => Message::new("save.textures.absolute"),
            UnkeptReason::Occupied => Message::new("save.textures.occupied"),
            UnkeptReason::CopyFailed(error) => {
                Message::new("save.textures.copy_failed").arg("error", error.as_str())
            }
        };
        message
            .arg("path", self.path.as_str())
            .arg("written", self.written.as_str())
    }
}

impl std::fmt::Display for UnkeptTexture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.message().fmt(f)
    }
}

/// What [`relocate_textures`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RelocationReport {
    /// Texture paths changed: (before, after).
    pub rewritten: Vec<(String, String)>,
    /// Images copied beside the output (files already there with the same bytes included).
    pub copied: Vec<PathBuf>,
    /// Paths that could not be kept pointing at their image.
    pub unkept: Vec<UnkeptTexture>,
}

/// Whether `from_dir` and `to_dir` are the same folder (by their real paths where they exist,
/// lexically otherwise).
#[must_use]
pub fn same_folder(from_dir: &Path, to_dir: &Path) -> bool {
    let real = |dir: &Path| {
        std::fs::canonicalize(dir)
            .ok()
            .and_then(|path| lexical_absolute(&path))
            .or_else(|| lexical_absolute(dir))
    };
    real(from_dir) == real(to_dir)
}

/// Makes the texture paths of `model`, relative to `from_dir`, reach the same images from
/// `to_dir` (see the module documentation). Paths listed in `unpacked` (images written beside
/// the output by the caller, as a VRM's) are left alone, as is everything when both folders are
/// the same.
pub fn relocate_textures(
    model: &mut Model,
    from_dir: &Path,
    to_dir: &Path,
    mode: TextureRelocation,
    unpacked: &[&str],
) -> RelocationReport {
    let mut report = RelocationReport::default();
    if same_folder(from_dir, to_dir) {
        return report;
    }
    for texture in &mut model.textures {
        let path = texture.as_str().into_owned();
        if path.trim().is_empty() || unpacked.iter().any(|u| same_path_text(u, &path)) {
            continue;
        }
        let resolved = crate::texture::resolve(from_dir, &path);
        if resolved.is_none() && is_shared_toon_name(&path) {
            // MikuMikuDance's own toon01.bmp..toon10.bmp, found in its Data folder.
            continue;
        }
        let (written, reason, copied) = relocate_one(&path, resolved, from_dir, to_dir, mode);
        if let Some(copied) = copied {
            report.copied.push(copied);
        }
        if let Some(reason) = reason {
            report.unkept.push(UnkeptTexture {
                path: path.clone(),
                written: written.clone(),
                reason,
            });
        }
        if written != path {
            *texture = written.clone().into();
            report.rewritten.push((path, written));
        }
    }
    report
}

/// The relocation to use for `model` written from `from_dir` to `output` (its format by its
/// extension) when `asked` is: [`TextureRelocation::Copy`] where rewritten paths would make
/// some PMD texture field (`texture*sphere`, 20 bytes of Shift-JIS) too long that the model's
/// own paths fit (`../../textures/face.png` does not fit where `face.png` did: the PMD writer
/// would cut it and the file would name no image), since the images copied beside the file
/// keep their short names; `asked` otherwise. `unpacked` as for [`relocate_textures`].
#[must_use]
pub fn relocation_for(
    model: &Model,
    from_dir: &Path,
    output: &Path,
    asked: TextureRelocation,
    unpacked: &[&str],
) -> TextureRelocation {
    if FileFormat::from_extension(output) != Some(FileFormat::Pmd)
        || asked == TextureRelocation::Copy
    {
        return asked;
    }
    let mut rewritten = Model {
        textures: model.textures.clone(),
        ..Model::default()
    };
    relocate_textures(
        &mut rewritten,
        from_dir,
        super::folder_of(output),
        TextureRelocation::Rewrite,
        unpacked,
    );
    let cut_by_rewrite = model.materials.iter().any(|material| {
        !pmd::texture_field_fits(material, &rewritten.textures)
            && pmd::texture_field_fits(material, &model.textures)
    });
    if cut_by_rewrite {
        TextureRelocation::Copy
    } else {
        asked
    }
}

/// One texture path: what to write, why it could not be kept (if so), and the copy made.
fn relocate_one(
    path: &str,
    resolved: Option<PathBuf>,
    from_dir: &Path,
    to_dir: &Path,
    mode: TextureRelocation,
) -> (String, Option<UnkeptReason>, Option<PathBuf>) {
    if is_absolute_text(path) {
        let reason = (mode == TextureRelocation::Copy).then_some(UnkeptReason::Absolute);
        return (path.to_owned(), reason, None);
    }
    let backslashes = path.contains('\\');
    let styled = |text: String| {
        if backslashes {
            text.replace('/', "\\")
        } else {
            text
        }
    };
    let rewritten = || -> (String, Option<UnkeptReason>) {
        let portable = path.trim().replace('\\', "/");
        match relative_path(to_dir, &from_dir.join(&portable)) {
            Some(relative) => (styled(relative), None),
            None => {
                let absolute = lexical_absolute(&from_dir.join(&portable))
                    .map_or_else(|| portable.clone(), |parts| joined(&parts));
                (absolute, Some(UnkeptReason::OtherDrive))
            }
        }
    };
    let Some(image) = resolved else {
        let (written, _) = rewritten();
        return (written, Some(UnkeptReason::Missing), None);
    };
    if mode == TextureRelocation::Rewrite {
        let (written, reason) = rewritten();
        return (written, reason, None);
    }
    // The layout beside the output: the path without its `.` and `..` parts.
    let inside: Vec<String> = Path::new(&path.trim().replace('\\', "/"))
        .components()
        .filter_map(|c| match c {
            Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let destination = to_dir.join(inside.join("/"));
    let copied = copy_image(&image, &destination);
    match copied {
        Ok(()) => (styled(inside.join("/")), None, Some(destination)),
        Err(reason) => {
            let (written, other) = rewritten();
            (written, other.or(Some(reason)), None)
        }
    }
}

/// Copies `image` to `destination` unless a file with the same bytes is there already.
fn copy_image(image: &Path, destination: &Path) -> Result<(), UnkeptReason> {
    let bytes = std::fs::read(image).map_err(|e| UnkeptReason::CopyFailed(e.to_string()))?;
    match std::fs::read(destination) {
        Ok(existing) if existing == bytes => return Ok(()),
        Ok(_) => return Err(UnkeptReason::Occupied),
        Err(_) => {}
    }
    if let Some(parent) = destination.parent() {
        std::fs::create_dir_all(parent).map_err(|e| UnkeptReason::CopyFailed(e.to_string()))?;
    }
    super::write_atomic(destination, &bytes).map_err(|e| UnkeptReason::CopyFailed(e.to_string()))
}

/// `toon01.bmp` .. `toon10.bmp` (any case, no folder): MikuMikuDance's shared toons.
fn is_shared_toon_name(path: &str) -> bool {
    let lower = path.trim().to_ascii_lowercase();
    lower
        .strip_prefix("toon")
        .and_then(|rest| rest.strip_suffix(".bmp"))
        .and_then(|number| number.parse::<u32>().ok())
        .is_some_and(|number| (1..=10).contains(&number))
}

/// An absolute path on any system: `/x`, `\x`, `C:...`.
pub(crate) fn is_absolute_text(path: &str) -> bool {
    let path = path.trim();
    path.starts_with('/') || path.starts_with('\\') || path.get(1..2) == Some(":")
}

fn same_path_text(a: &str, b: &str) -> bool {
    a.replace('\\', "/")
        .eq_ignore_ascii_case(&b.replace('\\', "/"))
}

/// The path from folder `from_dir` to `target`, `/`-separated, or `None` when no relative path
/// reaches it (another drive).
#[must_use]
pub fn relative_path(from_dir: &Path, target: &Path) -> Option<String> {
    let from = lexical_absolute(from_dir)?;
    let to = lexical_absolute(target)?;
    let prefix = |parts: &[String]| parts.first().filter(|p| p.ends_with(':')).cloned();
    if prefix(&from) != prefix(&to) {
        return None;
    }
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; from.len() - common];
    parts.extend(to[common..].iter().map(String::as_str));
    Some(parts.join("/"))
}

/// `path` made absolute against the working folder, with `.` and `..` resolved lexically, as
/// its parts (a drive prefix first).
fn lexical_absolute(path: &Path) -> Option<Vec<String>> {
    let absolute = if path.is_absolute() {
        path.to_owned()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    let mut parts: Vec<String> = Vec::new();
    for component in absolute.components() {
        match component {
            Component::Prefix(prefix) => {
                parts.push(prefix.as_os_str().to_string_lossy().into_owned());
            }
            Component::RootDir | Component::CurDir => {}
            Component::ParentDir => {
                parts.pop();
            }
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
        }
    }
    Some(parts)
}

/// Parts from [`lexical_absolute`] as an absolute path text.
fn joined(parts: &[String]) -> String {
    match parts.first() {
        Some(first) if first.ends_with(':') => parts.join("\\"),
        _ => format!("/{}", parts.join("/")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used, clippy::unwrap_used)]
    // A failed expectation is the test failing.

    use super::*;

    fn model_with(textures: &[&str]) -> Model {
        let mut model = Model::new_empty();
        model.textures = textures.iter().map(|&t| t.into()).collect();
        model
    }

    #[test]
    fn pmd_gets_copies_where_rewritten_paths_would_not_fit_its_texture_field() {
        use crate::model::{Material, SphereMode, TextureIdx};
        let root = tempfile::tempdir().unwrap();
        let source = root.path().join("a");
        std::fs::create_dir_all(source.join("tex")).unwrap();
        std::fs::write(source.join("tex/face.png"), b"png").unwrap();
        let (near, far) = (root.path().join("b"), root.path().join("b/c/d"));
        std::fs::create_dir_all(&far).unwrap();
        let mut model = model_with(&["tex/face.png", "tex/sphere_of_the_face.spa"]);
        model.materials.push(Material {
            texture: Some(TextureIdx::new(0)),
            ..Material::default()
        });
        let relocation = |model: &Model, to: &Path, extension: &str| {
            let output = to.join(format!("model.{extension}"));
            relocation_for(model, &source, &output, TextureRelocation::Rewrite, &[])
        };
        // `../a/tex/face.png`: 17 bytes, fits. `../../../a/tex/face.png`: 23, does not.
        assert_eq!(relocation(&model, &near, "pmd"), TextureRelocation::Rewrite);
        assert_eq!(relocation(&model, &far, "pmd"), TextureRelocation::Copy);
        assert_eq!(relocation(&model, &far, "pmx"), TextureRelocation::Rewrite);
        let copy = relocation_for(
            &model,
            &source,
            &far.join("model.pmd"),
            TextureRelocation::Copy,
            &[],
        );
        assert_eq!(copy, TextureRelocation::Copy);
        // A field too long in the source already (texture and sphere) is cut wherever it goes.
        model.materials[0].sphere_texture = Some(TextureIdx::new(1));
        model.materials[0].sphere_mode = SphereMode::Add;
        assert_eq!(relocation(&model, &far, "pmd"), TextureRelocation::Rewrite);
        // With its sphere mode off, the sphere is not written: the texture alone counts.
        model.materials[0].sphere_mode = SphereMode::Disabled;
        assert_eq!(relocation(&model, &far, "pmd"), TextureRelocation::Copy);
    }

    #[test]
    fn rewrites_relative_paths_for_another_folder() {
        let root = tempfile::tempdir().unwrap();
        let source = root.path().join("a");
        std::fs::create_dir_all(source.join("tex")).unwrap();
        std::fs::write(source.join("tex/face.png"), b"png").unwrap();
        let output = root.path().join("b/c");
        std::fs::create_dir_all(&output).unwrap();
        let mut model = model_with(&["tex\\face.png", "toon01.bmp", "gone.png", ""]);
        let report = relocate_textures(
            &mut model,
            &source,
            &output,
            TextureRelocation::Rewrite,
            &[],
        );
        assert_eq!(model.textures[0].as_str(), "..\\..\\a\\tex\\face.png");
        assert_eq!(model.textures[1].as_str(), "toon01.bmp");
        assert_eq!(model.textures[2].as_str(), "../../a/gone.png");
        assert_eq!(report.unkept.len(), 1);
        assert_eq!(report.unkept[0].reason, UnkeptReason::Missing);
        assert_eq!(
            std::fs::read(crate::texture::resolve(&output, &model.textures[0].as_str()).unwrap())
                .unwrap(),
            b"png"
        );
    }

    #[test]
    fn copies_images_beside_the_output() {
        let root = tempfile::tempdir().unwrap();
        let source = root.path().join("a");
        std::fs::create_dir_all(source.join("tex")).unwrap();
        std::fs::write(source.join("tex/face.png"), b"png").unwrap();
        std::fs::write(root.path().join("shared.png"), b"shared").unwrap();
        let output = root.path().join("b");
        let mut model = model_with(&["tex\\face.png", "../shared.png", "/abs/x.png"]);
        let report = relocate_textures(&mut model, &source, &output, TextureRelocation::Copy, &[]);
        assert_eq!(model.textures[0].as_str(), "tex\\face.png");
        assert_eq!(model.textures[1].as_str(), "shared.png");
        assert_eq!(std::fs::read(output.join("tex/face.png")).unwrap(), b"png");
        assert_eq!(std::fs::read(output.join("shared.png")).unwrap(), b"shared");
        assert_eq!(report.copied.len(), 2);
        assert_eq!(report.unkept.len(), 1);
        assert_eq!(report.unkept[0].reason, UnkeptReason::Absolute);
    }

    #[test]
    fn the_same_folder_changes_nothing() {
        let root = tempfile::tempdir().unwrap();
        let mut model = model_with(&["missing.png"]);
        let report = relocate_textures(
            &mut model,
            root.path(),
            &root.path().join("."),
            TextureRelocation::Copy,
            &[],
        );
        assert_eq!(report, RelocationReport::default());
        assert_eq!(model.textures[0].as_str(), "missing.png");
    }

    #[test]
    fn relative_paths_between_folders() {
        assert_eq!(
            relative_path(Path::new("/x/y"), Path::new("/x/z/t.png")).as_deref(),
            Some("../z/t.png")
        );
    }
}
