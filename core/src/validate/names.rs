//! Name rules: empty and duplicate names of every kind, and text that did not decode.
//!
//! Bones and morphs are found by name (motions, poses, other tools): an empty or repeated bone
//! or morph name is a warning. For the other kinds it is only worth knowing. Texture paths that
//! repeat are info (two entries for one file).

use super::util::{FixPart, element_path, json, kind_ja, parts_to_ops};
use super::{Context, Fix, Issue, Rule, Severity};
use crate::edit::EditTarget;
use crate::model::*;
use std::collections::{HashMap, HashSet};

/// The Japanese and English names of the elements of one kind.
type Names<'a> = Vec<(&'a Text, &'a Text)>;

#[derive(Debug)]
pub(crate) struct NameRule;

impl Rule for NameRule {
    fn name(&self) -> &'static str {
        "names"
    }

    fn codes(&self) -> &'static [&'static str] {
        &[
            "W-NAME-EMPTY",
            "I-NAME-EMPTY",
            "W-NAME-DUPLICATE",
            "I-NAME-DUPLICATE",
            "I-TEXTURE-DUPLICATE",
            "W-TEXT-UNDECODABLE",
        ]
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Issue>) {
        let model = cx.model;
        let kinds: [(ElementKind, Names<'_>, bool); 7] = [
            (
                ElementKind::Bone,
                model
                    .bones
                    .iter()
                    .map(|b| (&b.name_ja, &b.name_en))
                    .collect(),
                true,
            ),
            (
                ElementKind::Morph,
                model
                    .morphs
                    .iter()
                    .map(|m| (&m.name_ja, &m.name_en))
                    .collect(),
                true,
            ),
            (
                ElementKind::Material,
                model
                    .materials
                    .iter()
                    .map(|m| (&m.name_ja, &m.name_en))
                    .collect(),
                false,
            ),
            (
                ElementKind::DisplayFrame,
                model
                    .display_frames
                    .iter()
                    .map(|f| (&f.name_ja, &f.name_en))
                    .collect(),
                false,
            ),
            (
                ElementKind::RigidBody,
                model
                    .rigid_bodies
                    .iter()
                    .map(|r| (&r.name_ja, &r.name_en))
                    .collect(),
                false,
            ),
            (
                ElementKind::Joint,
                model
                    .joints
                    .iter()
                    .map(|j| (&j.name_ja, &j.name_en))
                    .collect(),
                false,
            ),
            (
                ElementKind::SoftBody,
                model
                    .soft_bodies
                    .iter()
                    .map(|s| (&s.name_ja, &s.name_en))
                    .collect(),
                false,
            ),
        ];
        for (kind, list, important) in kinds {
            names_of_kind(kind, &list, important, out);
        }
        texture_duplicates(model, out);
        undecodable(model, out);
    }
}

/// A name not in `taken`: `base`, else `base_2`, `base_3`, ...
fn unique_name(base: &str, taken: &HashSet<String>) -> String {
    if !base.is_empty() && !taken.contains(base) {
        return base.to_owned();
    }
    (2..)
        .map(|k| format!("{base}_{k}"))
        .find(|candidate| !taken.contains(candidate))
        .unwrap_or_default()
}

fn names_of_kind(
    kind: ElementKind,
    list: &[(&Text, &Text)],
    important: bool,
    out: &mut Vec<Issue>,
) {
    let (empty_code, duplicate_code, severity) = if important {
        ("W-NAME-EMPTY", "W-NAME-DUPLICATE", Severity::Warning)
    } else {
        ("I-NAME-EMPTY", "I-NAME-DUPLICATE", Severity::Info)
    };
    let mut taken: HashSet<String> = list
        .iter()
        .map(|(ja, _)| ja.as_str().into_owned())
        .collect();
    let mut first_of: HashMap<String, usize> = HashMap::new();
    let target = EditTarget::from(kind);
    for (i, (name_ja, name_en)) in list.iter().enumerate() {
        let name = name_ja.as_str();
        if name.is_empty() {
            // The English name if it is free, else the kind and index (ボーン12).
            let base = if name_en.is_empty() {
                format!("{}{i}", kind_ja(kind))
            } else {
                name_en.as_str().into_owned()
            };
            let new_name = unique_name(&base, &taken);
            taken.insert(new_name.clone());
            out.push(
                Issue::new(
                    severity,
                    empty_code,
                    format!("{}.name_ja", element_path(kind, i)),
                    format!("{} {i} has no name", kind.name().replace('_', " ")),
                    format!("{}{i}に名前がありません", kind_ja(kind)),
                )
                .with_fix(Some(Fix::new(
                    format!("Name it \"{new_name}\""),
                    format!("名前を「{new_name}」にする"),
                    vec![super::util::set_op(
                        target,
                        vec![i],
                        "name_ja",
                        json(&new_name),
                    )],
                ))),
            );
            continue;
        }
        match first_of.get(name.as_ref()) {
            None => {
                first_of.insert(name.into_owned(), i);
            }
            Some(&first) => {
                let new_name = unique_name(&name, &taken);
                taken.insert(new_name.clone());
                let consequence_en = if important {
                    "; motions and other tools find only the first"
                } else {
                    ""
                };
                let consequence_ja = if important {
                    "（モーションなどは最初の方にしか適用されません）"
                } else {
                    ""
                };
                out.push(
                    Issue::new(
                        severity,
                        duplicate_code,
                        format!("{}.name_ja", element_path(kind, i)),
                        format!(
                            "{} {i} has the same name \"{name}\" as {} {first}{consequence_en}",
                            kind.name().replace('_', " "),
                            kind.name().replace('_', " "),
                        ),
                        format!(
                            "{}{i}の名前「{name}」が{}{first}と重複しています{consequence_ja}",
                            kind_ja(kind),
                            kind_ja(kind)
                        ),
                    )
                    .with_fix(Some(Fix::new(
                        format!("Rename it \"{new_name}\""),
                        format!("名前を「{new_name}」に変える"),
                        vec![super::util::set_op(
                            target,
                            vec![i],
                            "name_ja",
                            json(&new_name),
                        )],
                    ))),
                );
            }
        }
    }
}

fn texture_duplicates(model: &Model, out: &mut Vec<Issue>) {
    let mut first_of: HashMap<String, usize> = HashMap::new();
    for (i, path) in model.textures.iter().enumerate() {
        // Windows paths: the same file whatever the case and separator.
        let key = path.as_str().to_lowercase().replace('/', "\\");
        match first_of.get(&key) {
            None => {
                first_of.insert(key, i);
            }
            Some(&first) => out.push(Issue::new(
                Severity::Info,
                "I-TEXTURE-DUPLICATE",
                format!("textures[{i}]"),
                format!("texture {i} \"{path}\" is the same file as texture {first}"),
                format!("テクスチャ{i}「{path}」はテクスチャ{first}と同じファイルです"),
            )),
        }
    }
}

/// Text that did not decode in the file's encoding (kept as raw bytes by the reader).
fn undecodable(model: &Model, out: &mut Vec<Issue>) {
    let mut found: Vec<(String, EditTarget, usize, String, String)> = Vec::new();
    let mut check = |path: String, target: EditTarget, index: usize, field: &str, text: &Text| {
        if !text.is_decodable() {
            found.push((
                path,
                target,
                index,
                field.to_owned(),
                text.as_str().into_owned(),
            ));
        }
    };
    let info = &model.info;
    for (field, text) in [
        ("name_ja", &info.name_ja),
        ("name_en", &info.name_en),
        ("comment_ja", &info.comment_ja),
        ("comment_en", &info.comment_en),
    ] {
        check(format!("info.{field}"), EditTarget::Info, 0, field, text);
    }
    for (i, path) in model.textures.iter().enumerate() {
        check(format!("textures[{i}]"), EditTarget::Texture, i, "", path);
    }
    macro_rules! named {
        ($list:expr, $kind:expr) => {
            for (i, element) in $list.iter().enumerate() {
                let base = element_path($kind, i);
                check(
                    format!("{base}.name_ja"),
                    $kind.into(),
                    i,
                    "name_ja",
                    &element.name_ja,
                );
                check(
                    format!("{base}.name_en"),
                    $kind.into(),
                    i,
                    "name_en",
                    &element.name_en,
                );
            }
        };
    }
    named!(model.materials, ElementKind::Material);
    for (i, m) in model.materials.iter().enumerate() {
        check(
            format!("materials[{i}].memo"),
            EditTarget::Material,
            i,
            "memo",
            &m.memo,
        );
    }
    named!(model.bones, ElementKind::Bone);
    named!(model.morphs, ElementKind::Morph);
    named!(model.display_frames, ElementKind::DisplayFrame);
    named!(model.rigid_bodies, ElementKind::RigidBody);
    named!(model.joints, ElementKind::Joint);
    named!(model.soft_bodies, ElementKind::SoftBody);
    for (path, target, index, field, lossy) in found {
        let part = FixPart::set(target, index, &field, json(&lossy));
        out.push(
            Issue::new(
                Severity::Warning,
                "W-TEXT-UNDECODABLE",
                path.clone(),
                format!(
                    "{path} is not valid {} text; its bytes are kept, shown as \"{lossy}\"",
                    model.header.encoding.name()
                ),
                format!(
                    "{path} は{}として正しくない文字列です（「{lossy}」と表示されます）",
                    model.header.encoding.name()
                ),
            )
            .with_fix(Some(Fix::new(
                "Replace the undecodable characters",
                "読めない文字を置き換える",
                parts_to_ops(&[part]),
            ))),
        );
    }
}
