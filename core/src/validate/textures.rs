//! Texture files: each texture path is looked up next to the model (the folder in
//! [`super::CheckOptions::model_dir`]) as MikuMikuDance and the 3D view look it up. A file that
//! is not there, or that is not an image they read, is a warning: the model loads, but the
//! material shows without its texture. A file found only with other letter case is info: it
//! works on Windows, not on a case-sensitive file system; the fix writes the path as the file is
//! named. Only headers are read ([`crate::texture::probe`]), so the check stays cheap enough to
//! run after every edit.

use super::util::{Finding, FixPart, emit_findings};
use super::{Context, Issue, Rule, Severity};
use crate::edit::field;
use crate::model::{ElementKind, Model, Text, TextureIdx, Toon};
use crate::path::ModelPath;
use crate::texture::{self, TextureProblem};
use std::path::{Component, Path};

#[derive(Debug)]
pub(crate) struct TextureFileRule;

impl Rule for TextureFileRule {
    fn name(&self) -> &'static str {
        "texture files"
    }

    fn codes(&self) -> &'static [&'static str] {
        &[
            "W-TEXTURE-MISSING",
            "W-TEXTURE-UNREADABLE",
            "I-TEXTURE-CASE",
        ]
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Issue>) {
        let Some(dir) = cx.options.model_dir.as_deref() else {
            return;
        };
        let model = cx.model;
        let mut missing = Vec::new();
        let mut unreadable = Vec::new();
        let mut wrong_case = Vec::new();
        let users = users_of_textures(model);
        for (index, name) in model.textures.iter().enumerate() {
            let text = name.as_str();
            let text = text.trim();
            if text.is_empty() {
                continue;
            }
            let path = || ModelPath::element(ElementKind::Texture, index);
            let (users_en, users_ja) = users_text(users.get(index).map_or(&[][..], Vec::as_slice));
            let Some(found) = texture::resolve(dir, text) else {
                if !is_shared_toon(text) {
                    missing.push(Finding {
                        path: path(),
                        message_en: format!(
                            "texture file \"{text}\" is not in the model's folder{users_en}"
                        ),
                        message_ja: format!(
                            "テクスチャファイル「{text}」がモデルのフォルダにありません{users_ja}"
                        ),
                        parts: Vec::new(),
                    });
                }
                continue;
            };
            if let Err(problem) = texture::probe(&found, text) {
                let why = match &problem {
                    TextureProblem::NotFound { .. } => "not found".to_owned(),
                    TextureProblem::Unreadable { message, .. }
                    | TextureProblem::Undecodable { message, .. } => message.clone(),
                };
                unreadable.push(Finding {
                    path: path(),
                    message_en: format!(
                        "texture file \"{text}\" cannot be read as an image ({why}){users_en}"
                    ),
                    message_ja: format!(
                        "テクスチャファイル「{text}」を画像として読めません（{why}）{users_ja}"
                    ),
                    parts: Vec::new(),
                });
            }
            let normalized = text.replace('\\', "/");
            if dir.join(&normalized) != found
                && let Some(as_named) = path_as_named(dir, &found, text)
            {
                wrong_case.push(Finding {
                    message_en: format!(
                        "texture path \"{text}\" matches the file \"{as_named}\" only when \
                         letter case is ignored (it fails on case-sensitive file systems)"
                    ),
                    message_ja: format!(
                        "テクスチャパス「{text}」は大文字小文字を無視したときだけファイル「{as_named}」と一致します（大文字小文字を区別するファイルシステムでは読めません）"
                    ),
                    parts: vec![FixPart::set(
                        field::<Text>(),
                        index,
                        Text::from(as_named.as_str()),
                    )],
                    path: path(),
                });
            }
        }
        let cap = cx.options.max_issues_per_code;
        emit_findings(
            out,
            Severity::Warning,
            "W-TEXTURE-MISSING",
            missing,
            cap,
            Some(ModelPath::list(ElementKind::Texture)),
            ("texture files not found", "見つからないテクスチャファイル"),
            |_| (String::new(), String::new()),
        );
        emit_findings(
            out,
            Severity::Warning,
            "W-TEXTURE-UNREADABLE",
            unreadable,
            cap,
            Some(ModelPath::list(ElementKind::Texture)),
            (
                "texture files that are not images",
                "画像として読めないテクスチャファイル",
            ),
            |_| (String::new(), String::new()),
        );
        emit_findings(
            out,
            Severity::Info,
            "I-TEXTURE-CASE",
            wrong_case,
            cap,
            Some(ModelPath::list(ElementKind::Texture)),
            (
                "texture paths in other letter case than their files",
                "ファイル名と大文字小文字が違うテクスチャパス",
            ),
            |count| {
                (
                    format!("Write {count} texture path(s) as the files are named"),
                    format!("テクスチャパス{count}件をファイル名どおりに修正"),
                )
            },
        );
    }
}

/// `toon01.bmp` … `toon10.bmp` (and `toon0.bmp`) without a folder: MikuMikuDance takes these
/// from its own Data folder when the model's folder has none, so their absence is normal.
fn is_shared_toon(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let Some(number) = lower
        .strip_prefix("toon")
        .and_then(|rest| rest.strip_suffix(".bmp"))
    else {
        return false;
    };
    !number.is_empty()
        && number.len() <= 2
        && number.bytes().all(|b| b.is_ascii_digit())
        && number.parse::<u32>().is_ok_and(|n| n <= 10)
}

/// The path of `found` relative to `dir`, written with the separator `name` uses; `None` when
/// it is not below `dir` (a path with `..` or an absolute one: left as it is).
fn path_as_named(dir: &Path, found: &Path, name: &str) -> Option<String> {
    let relative = found.strip_prefix(dir).ok()?;
    let separator = if name.contains('\\') { "\\" } else { "/" };
    let mut parts = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?.to_owned()),
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join(separator))
}

/// The materials that use each texture, ascending, in one pass over the materials (asking
/// each texture in turn would take textures × materials: a model read out of a damaged file
/// can have tens of thousands of each).
fn users_of_textures(model: &Model) -> Vec<Vec<usize>> {
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); model.textures.len()];
    for (i, m) in model.materials.iter().enumerate() {
        let toon = match m.toon {
            Toon::Texture(t) => t,
            Toon::Shared(_) => None,
        };
        let mut used: Vec<usize> = [m.texture, m.sphere_texture, toon]
            .into_iter()
            .flatten()
            .map(TextureIdx::get)
            .collect();
        used.sort_unstable();
        used.dedup();
        for t in used {
            if let Some(list) = users.get_mut(t) {
                list.push(i);
            }
        }
    }
    users
}

/// Which materials use the texture, for the messages: (` (materials 0, 3)`, `（材質 0, 3）`),
/// empty when none does.
fn users_text(users: &[usize]) -> (String, String) {
    if users.is_empty() {
        return (String::new(), String::new());
    }
    const SHOWN: usize = 4;
    let shown: Vec<String> = users.iter().take(SHOWN).map(ToString::to_string).collect();
    let shown = shown.join(", ");
    let more = users.len().saturating_sub(SHOWN);
    let noun = if users.len() == 1 {
        "material"
    } else {
        "materials"
    };
    if more > 0 {
        (
            format!(" ({noun} {shown} and {more} more)"),
            format!("（材質 {shown} ほか{more}件）"),
        )
    } else {
        (format!(" ({noun} {shown})"), format!("（材質 {shown}）"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate::{CheckOptions, check};

    fn png(width: u32, height: u32) -> Vec<u8> {
        let image = image::RgbaImage::from_pixel(width, height, image::Rgba([9, 8, 7, 255]));
        let mut out = Vec::new();
        image
            .write_to(&mut std::io::Cursor::new(&mut out), image::ImageFormat::Png)
            .expect("encode");
        out
    }

    fn model_with(textures: &[&str]) -> Model {
        let mut model = crate::generate::feature_model(
            crate::model::PmxVersion::V2_0,
            crate::model::TextEncoding::Utf16,
            8,
            2,
        );
        model.textures = textures.iter().map(|&t| Text::from(t)).collect();
        for material in &mut model.materials {
            material.texture = None;
            material.sphere_texture = None;
            material.toon = Toon::Shared(0);
        }
        model.materials[0].texture = Some(TextureIdx::new(0));
        model
    }

    fn codes(issues: &[Issue]) -> Vec<(&'static str, String)> {
        issues
            .iter()
            .filter(|i| i.code.contains("TEXTURE-") && i.code != "I-TEXTURE-DUPLICATE")
            .map(|i| (i.code, i.path.to_string()))
            .collect()
    }

    #[test]
    fn missing_unreadable_and_wrongly_cased_textures() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::create_dir_all(dir.path().join("Tex")).expect("dir");
        std::fs::write(dir.path().join("Tex/Body.png"), png(4, 2)).expect("write");
        std::fs::write(dir.path().join("face.png"), png(1, 1)).expect("write");
        std::fs::write(
            dir.path().join("broken.png"),
            b"\x89PNG\r\n\x1a\nnot really",
        )
        .expect("w");
        std::fs::write(dir.path().join("empty.bmp"), b"").expect("write");
        let model = model_with(&[
            "tex\\body.png",
            "face.png",
            "missing.bmp",
            "broken.png",
            "empty.bmp",
            "toon03.bmp",
        ]);
        let options = CheckOptions {
            model_dir: Some(dir.path().to_path_buf()),
            ..CheckOptions::default()
        };
        let issues = check(&model, None, &options);
        let mut found = codes(&issues);
        found.sort();
        assert_eq!(
            found,
            vec![
                ("I-TEXTURE-CASE", "textures[0]".to_owned()),
                ("W-TEXTURE-MISSING", "textures[2]".to_owned()),
                ("W-TEXTURE-UNREADABLE", "textures[3]".to_owned()),
                ("W-TEXTURE-UNREADABLE", "textures[4]".to_owned()),
            ]
        );
        let missing = issues
            .iter()
            .find(|i| i.code == "W-TEXTURE-MISSING")
            .expect("missing");
        assert!(missing.message_ja.contains("missing.bmp"));
        // The fix writes the path as the file is named, keeping the `\`.
        let case = issues
            .iter()
            .find(|i| i.code == "I-TEXTURE-CASE")
            .expect("case");
        let mut fixed = model.clone();
        let mut history = crate::edit::History::new();
        let fix = case.fix.as_ref().expect("fix");
        let edit = fix.to_edit(&mut fixed).expect("fix builds");
        history.apply(&mut fixed, edit);
        assert_eq!(fixed.textures[0].as_str(), "Tex\\Body.png");
        assert!(codes(&check(&fixed, None, &options)).len() == 3);
        // Without a folder nothing about files is said.
        assert!(codes(&check(&model, None, &CheckOptions::default())).is_empty());
    }

    #[test]
    fn shared_toon_names() {
        assert!(is_shared_toon("toon01.bmp"));
        assert!(is_shared_toon("TOON10.BMP"));
        assert!(is_shared_toon("toon0.bmp"));
        assert!(!is_shared_toon("toon11.bmp"));
        assert!(!is_shared_toon("toon/toon01.bmp"));
        assert!(!is_shared_toon("mytoon01.bmp"));
    }

    #[test]
    fn probe_reads_only_headers_and_checks_dds_length() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("a.png");
        std::fs::write(&path, png(5, 3)).expect("write");
        assert_eq!(texture::probe(&path, "a.png"), Ok((5, 3)));
        let dds = texture::dds::encode_for_tests(8, 8, texture::dds::Format::BC1_UNORM, &[0u8; 32]);
        let path = dir.path().join("a.dds");
        std::fs::write(&path, &dds).expect("write");
        assert_eq!(texture::probe(&path, "a.dds"), Ok((8, 8)));
        std::fs::write(&path, &dds[..dds.len() - 1]).expect("write");
        assert!(matches!(
            texture::probe(&path, "a.dds"),
            Err(TextureProblem::Undecodable { .. })
        ));
    }
}
