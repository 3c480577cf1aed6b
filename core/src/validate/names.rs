//! Name rules: empty and duplicate names of every kind, and text that did not decode.
//!
//! Bones and morphs are found by name (motions, poses, other tools): an empty or repeated bone
//! or morph name is a warning. For the other kinds it is only worth knowing. Texture paths that
//! repeat are info (two entries for one file).

use super::util::{FixPart, kind_ja, parts_to_steps, set_op};
use super::{Context, Fix, FixStep, Issue, Reads, Rule, Severity};
use crate::edit::field;
use crate::model::*;
use crate::path::ModelPath;
use std::collections::{HashMap, HashSet};

/// The Japanese and English names of the elements of one kind.
type Names<'a> = Vec<(&'a Text, &'a Text)>;

#[derive(Debug)]
pub(crate) struct NameRule;

impl Rule for NameRule {
    fn name(&self) -> &'static str {
        "names"
    }

    fn reads(&self) -> Reads {
        Reads::OUTSIDE_MESH
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

/// Sets the Japanese name of element `index` of `kind` (`None` for kinds without names).
fn set_name_ja(kind: ElementKind, index: usize, name: &str) -> Option<FixStep> {
    let indices = vec![index];
    let name = Text::from(name);
    Some(match kind {
        ElementKind::Material => set_op(field::<Material>().name_ja(), indices, name),
        ElementKind::Bone => set_op(field::<Bone>().name_ja(), indices, name),
        ElementKind::Morph => set_op(field::<Morph>().name_ja(), indices, name),
        ElementKind::DisplayFrame => set_op(field::<DisplayFrame>().name_ja(), indices, name),
        ElementKind::RigidBody => set_op(field::<RigidBody>().name_ja(), indices, name),
        ElementKind::Joint => set_op(field::<Joint>().name_ja(), indices, name),
        ElementKind::SoftBody => set_op(field::<SoftBody>().name_ja(), indices, name),
        ElementKind::Vertex | ElementKind::Face | ElementKind::Texture => return None,
    })
}

/// A name not in `taken`: `base`, else `base_2`, `base_3`, ... `next` remembers, per base,
/// the suffix to try first: every smaller one was taken, and `taken` only grows, so the answer
/// is the same as counting from 2, without counting from 2 again for each of thousands of
/// copies of one name (quadratic in a model read out of a damaged file).
fn unique_name(base: &str, taken: &HashSet<String>, next: &mut HashMap<String, usize>) -> String {
    if !base.is_empty() && !taken.contains(base) {
        return base.to_owned();
    }
    let start = next.get(base).copied().unwrap_or(2);
    let (k, name) = (start..)
        .map(|k| (k, format!("{base}_{k}")))
        .find(|(_, candidate)| !taken.contains(candidate))
        .unwrap_or_default();
    next.insert(base.to_owned(), k + 1);
    name
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
    let mut next_suffix: HashMap<String, usize> = HashMap::new();
    for (i, (name_ja, name_en)) in list.iter().enumerate() {
        let name = name_ja.as_str();
        if name.is_empty() {
            // The English name if it is free, else the kind and index (ボーン12).
            let base = if name_en.is_empty() {
                format!("{}{i}", kind_ja(kind))
            } else {
                name_en.as_str().into_owned()
            };
            let new_name = unique_name(&base, &taken, &mut next_suffix);
            taken.insert(new_name.clone());
            out.push(
                Issue::new(
                    severity,
                    empty_code,
                    ModelPath::element(kind, i).field("name_ja"),
                    format!("{} {i} has no name", kind.name().replace('_', " ")),
                    format!("{}{i}に名前がありません", kind_ja(kind)),
                )
                .with_fix(Some(Fix::new(
                    format!("Name it \"{new_name}\""),
                    format!("名前を「{new_name}」にする"),
                    set_name_ja(kind, i, &new_name).into_iter().collect(),
                ))),
            );
            continue;
        }
        match first_of.get(name.as_ref()) {
            None => {
                first_of.insert(name.into_owned(), i);
            }
            Some(&first) => {
                let new_name = unique_name(&name, &taken, &mut next_suffix);
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
                        ModelPath::element(kind, i).field("name_ja"),
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
                        set_name_ja(kind, i, &new_name).into_iter().collect(),
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
                ModelPath::element(ElementKind::Texture, i),
                format!("texture {i} \"{path}\" is the same file as texture {first}"),
                format!("テクスチャ{i}「{path}」はテクスチャ{first}と同じファイルです"),
            )),
        }
    }
}

/// Text that did not decode in the file's encoding (kept as raw bytes by the reader).
fn undecodable(model: &Model, out: &mut Vec<Issue>) {
    // (path, the fix: the text as shown, the text as shown); the path is built only for text
    // that does not decode.
    let mut found: Vec<(ModelPath, FixPart, String)> = Vec::new();
    let mut check = |path: &dyn Fn() -> ModelPath, text: &Text, fix: &dyn Fn(Text) -> FixPart| {
        if !text.is_decodable() {
            let lossy = text.as_str().into_owned();
            found.push((path(), fix(Text::from(lossy.as_str())), lossy));
        }
    };
    let info = field::<ModelInfo>();
    for (name, handle, text) in [
        ("name_ja", info.clone().name_ja(), &model.info.name_ja),
        ("name_en", info.clone().name_en(), &model.info.name_en),
        (
            "comment_ja",
            info.clone().comment_ja(),
            &model.info.comment_ja,
        ),
        ("comment_en", info.comment_en(), &model.info.comment_en),
    ] {
        check(&|| ModelPath::info().field(name), text, &|lossy| {
            FixPart::set(handle.clone(), 0, lossy)
        });
    }
    for (i, path) in model.textures.iter().enumerate() {
        let element = || ModelPath::element(ElementKind::Texture, i);
        check(&element, path, &|lossy| {
            FixPart::set(field::<Text>(), i, lossy)
        });
    }
    macro_rules! named {
        ($list:expr, $kind:expr, $ty:ty) => {
            for (i, element) in $list.iter().enumerate() {
                let base = || ModelPath::element($kind, i);
                check(&|| base().field("name_ja"), &element.name_ja, &|lossy| {
                    FixPart::set(field::<$ty>().name_ja(), i, lossy)
                });
                check(&|| base().field("name_en"), &element.name_en, &|lossy| {
                    FixPart::set(field::<$ty>().name_en(), i, lossy)
                });
            }
        };
    }
    named!(model.materials, ElementKind::Material, Material);
    for (i, m) in model.materials.iter().enumerate() {
        let memo = || ModelPath::element(ElementKind::Material, i).field("memo");
        check(&memo, &m.memo, &|lossy| {
            FixPart::set(field::<Material>().memo(), i, lossy)
        });
    }
    named!(model.bones, ElementKind::Bone, Bone);
    named!(model.morphs, ElementKind::Morph, Morph);
    named!(
        model.display_frames,
        ElementKind::DisplayFrame,
        DisplayFrame
    );
    named!(model.rigid_bodies, ElementKind::RigidBody, RigidBody);
    named!(model.joints, ElementKind::Joint, Joint);
    named!(model.soft_bodies, ElementKind::SoftBody, SoftBody);
    for (path, part, lossy) in found {
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
                parts_to_steps(vec![part]),
            ))),
        );
    }
}
