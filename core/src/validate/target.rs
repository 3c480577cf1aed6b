//! Target rules. PMD (checked with `--target pmd`): names in Shift-JIS byte limits, at most
//! 65,535 vertices and bones, BDEF1/BDEF2 weights only, one IK per chain bone, and everything
//! else PMD cannot hold (the PMD writer's own list, [`pmd_losses`]). MikuMikuDance
//! compatibility (always): VMD motions name bones and morphs in 15 bytes of cp932, so longer
//! names are cut, names whose first 15 bytes agree get each other's keys, and characters cp932
//! lacks cannot be named at all.

use super::util::{Finding, FixPart, emit_findings, quoted};
use super::{Context, Issue, Reads, Rule, Severity, Target};
use crate::formats::pmd::{self, field, pmd_losses};
use crate::model::*;
use crate::path::ModelPath;
use encoding_rs::SHIFT_JIS;
use std::collections::{HashMap, HashSet};

/// Bytes a VMD motion gives a bone or morph name.
pub const VMD_NAME_BYTES: usize = 15;

/// `text` in Shift-JIS (Windows code page 932, as `encoding_rs` implements it) and the
/// characters it has no code for (left out of the bytes).
#[must_use]
pub fn shift_jis_bytes(text: &str) -> (Vec<u8>, Vec<char>) {
    let (bytes, _, unmappable) = SHIFT_JIS.encode(text);
    if !unmappable {
        return (bytes.into_owned(), Vec::new());
    }
    // `encoding_rs` writes unmappable characters as HTML entities: encode one by one instead.
    let mut out = Vec::with_capacity(text.len());
    let mut missing = Vec::new();
    let mut buffer = [0u8; 4];
    for c in text.chars() {
        let (bytes, _, unmappable) = SHIFT_JIS.encode(c.encode_utf8(&mut buffer));
        if unmappable {
            missing.push(c);
        } else {
            out.extend_from_slice(&bytes);
        }
    }
    (out, missing)
}

/// The key a VMD motion stores for a bone or morph name: its first 15 cp932 bytes.
#[must_use]
pub fn mmd_name_bytes(text: &str) -> Vec<u8> {
    let (mut bytes, _) = shift_jis_bytes(text);
    bytes.truncate(VMD_NAME_BYTES);
    bytes
}

#[derive(Debug)]
pub(crate) struct PmdTargetRule;

impl Rule for PmdTargetRule {
    fn name(&self) -> &'static str {
        "PMD target"
    }

    fn codes(&self) -> &'static [&'static str] {
        &[
            "E-PMD-LIMIT",
            "W-PMD-NAME-BYTES",
            "W-PMD-NAME-CHARS",
            "W-PMD-WEIGHT",
            "W-PMD-IK-CHAIN",
            "W-PMD-LOST",
        ]
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Issue>) {
        if cx.target != Target::Pmd {
            return;
        }
        let model = cx.model;
        let mut covered: HashSet<ModelPath> = HashSet::new();
        if let Some((path, message, message_ja)) = pmd::refusal_text(model) {
            covered.insert(path.clone());
            out.push(Issue::new(
                Severity::Error,
                "E-PMD-LIMIT",
                path,
                format!("{message}; the model cannot be saved as PMD"),
                format!("PMDの上限を超えているため、PMDとして保存できません: {message_ja}"),
            ));
        }
        pmd_names(model, &mut covered, out);
        pmd_weights(cx, &mut covered, out);
        ik_chains(model, &mut covered, out);
        // The rest of what the PMD writer would change or drop, not already said above.
        let mut seen = HashSet::new();
        for loss in pmd_losses(model) {
            let element = loss.path.element_path();
            if covered.contains(&loss.path)
                || element
                    .as_ref()
                    .is_some_and(|element| covered.contains(element))
                || is_vertex_weight(&loss.path)
                || !seen.insert((loss.path.clone(), loss.message.clone()))
            {
                continue;
            }
            out.push(Issue::new(
                Severity::Warning,
                "W-PMD-LOST",
                loss.path,
                format!("PMD cannot hold this: {}", loss.message),
                format!("PMDでは保持できません: {}", loss.message_ja),
            ));
        }
    }
}

/// Whether `path` is a vertex's weight (`vertices[3].weight`): [`pmd_weights`] says those.
fn is_vertex_weight(path: &ModelPath) -> bool {
    matches!(path.element_of(), Some((ElementKind::Vertex, vertex))
        if *path == ModelPath::element(ElementKind::Vertex, vertex).field("weight"))
}

/// A name PMD holds in a field of `limit` bytes: where it is (`None` for the info block) and
/// which field, so the path is built only for a name with an issue.
struct PmdName<'a> {
    element: Option<(ElementKind, usize)>,
    field: &'static str,
    text: &'a Text,
    limit: usize,
}

impl PmdName<'_> {
    fn path(&self) -> ModelPath {
        match self.element {
            Some((kind, index)) => ModelPath::element(kind, index),
            None => ModelPath::info(),
        }
        .field(self.field)
    }
}

fn pmd_names(model: &Model, covered: &mut HashSet<ModelPath>, out: &mut Vec<Issue>) {
    // PMD fields keep a terminating 0 byte ("終端の0x00は省略不可"): a field of n bytes holds n-1.
    let info = |field, text, limit| PmdName {
        element: None,
        field,
        text,
        limit,
    };
    let element = |kind, index, field, text, limit| PmdName {
        element: Some((kind, index)),
        field,
        text,
        limit,
    };
    let mut names: Vec<PmdName<'_>> = vec![
        info("name_ja", &model.info.name_ja, field::MODEL_NAME - 1),
        info("name_en", &model.info.name_en, field::MODEL_NAME - 1),
        info("comment_ja", &model.info.comment_ja, field::COMMENT - 1),
        info("comment_en", &model.info.comment_en, field::COMMENT - 1),
    ];
    for (i, b) in model.bones.iter().enumerate() {
        let bone = |field, text| element(ElementKind::Bone, i, field, text, field::BONE_NAME - 1);
        names.push(bone("name_ja", &b.name_ja));
        names.push(bone("name_en", &b.name_en));
    }
    for (i, m) in model.morphs.iter().enumerate() {
        let morph = |field, text| element(ElementKind::Morph, i, field, text, field::SKIN_NAME - 1);
        names.push(morph("name_ja", &m.name_ja));
        names.push(morph("name_en", &m.name_en));
    }
    for (i, f) in model.display_frames.iter().enumerate() {
        // The special frames are not stored by name in PMD.
        if !f.special {
            names.push(element(
                ElementKind::DisplayFrame,
                i,
                "name_ja",
                &f.name_ja,
                field::FRAME_NAME - 2,
            ));
        }
    }
    for (i, r) in model.rigid_bodies.iter().enumerate() {
        names.push(element(
            ElementKind::RigidBody,
            i,
            "name_ja",
            &r.name_ja,
            field::RIGID_BODY_NAME - 1,
        ));
    }
    for (i, j) in model.joints.iter().enumerate() {
        names.push(element(
            ElementKind::Joint,
            i,
            "name_ja",
            &j.name_ja,
            field::JOINT_NAME - 1,
        ));
    }
    for name in names {
        let limit = name.limit;
        let shown = name.text.as_str();
        let (bytes, missing) = shift_jis_bytes(&shown);
        if !missing.is_empty() {
            let characters: String = missing.iter().collect();
            let path = name.path();
            covered.insert(path.clone());
            out.push(Issue::new(
                Severity::Warning,
                "W-PMD-NAME-CHARS",
                path,
                format!("\"{shown}\" has characters Shift-JIS lacks (\"{characters}\"); PMD writes them as '?'"),
                format!("「{shown}」にShift-JISにない文字（{characters}）があり、PMDでは「?」になります"),
            ));
        }
        if bytes.len() + missing.len() > limit {
            let path = name.path();
            covered.insert(path.clone());
            out.push(Issue::new(
                Severity::Warning,
                "W-PMD-NAME-BYTES",
                path,
                format!(
                    "\"{shown}\" is {} bytes in Shift-JIS; PMD holds {limit}, the rest is cut",
                    bytes.len() + missing.len()
                ),
                format!(
                    "「{shown}」はShift-JISで{}バイトです。PMDは{limit}バイトまでのため切り詰められます",
                    bytes.len() + missing.len()
                ),
            ));
        }
    }
}

/// PMD weights are BDEF2 (BDEF1 as one bone at 100%): BDEF4, QDEF and SDEF are reduced. The
/// fix makes the reduction in the model, the PMD writer's way (the two largest weights).
fn pmd_weights(cx: &Context<'_>, covered: &mut HashSet<ModelPath>, out: &mut Vec<Issue>) {
    let model = cx.model;
    let mut findings = Vec::new();
    for (i, v) in model.vertices.iter().enumerate() {
        let reduced = match &v.weight {
            Weight::Bdef1 { .. } | Weight::Bdef2 { .. } => continue,
            Weight::Sdef { bones, weight, .. } => Weight::Bdef2 {
                bones: *bones,
                weight: *weight,
            },
            Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
                two_largest(bones, weights)
            }
        };
        let kind = match v.weight.kind() {
            WeightKind::Sdef => "SDEF",
            WeightKind::Bdef4 => "BDEF4",
            _ => "QDEF",
        };
        let path = ModelPath::element(ElementKind::Vertex, i).field("weight");
        covered.insert(path.clone());
        findings.push(Finding {
            path,
            message_en: format!("vertex {i} is {kind}; PMD holds BDEF1/BDEF2 only"),
            message_ja: format!("頂点{i}は{kind}です。PMDはBDEF1/BDEF2のみです"),
            parts: vec![FixPart::set(
                crate::edit::field::<Vertex>().weight(),
                i,
                reduced,
            )],
        });
    }
    emit_findings(
        out,
        Severity::Warning,
        "W-PMD-WEIGHT",
        findings,
        cx.options.max_issues_per_code,
        Some(ModelPath::list(ElementKind::Vertex)),
        (
            "vertices have weights PMD cannot hold",
            "PMDで保持できないウェイトの頂点",
        ),
        |n| {
            (
                format!("Reduce {n} weight(s) to BDEF2"),
                format!("{n}個のウェイトをBDEF2にする"),
            )
        },
    );
}

/// BDEF2 on the two largest weights, renormalized (BDEF1 when only one bone has weight).
fn two_largest(bones: &[Option<BoneIdx>; 4], weights: &[f32; 4]) -> Weight {
    let mut order = [0usize, 1, 2, 3];
    let key = |k: usize| {
        let w = weights[k];
        if w.is_finite() && bones[k].is_some() {
            w
        } else {
            f32::NEG_INFINITY
        }
    };
    order.sort_by(|&a, &b| key(b).total_cmp(&key(a)));
    let (first, second) = (order[0], order[1]);
    let (a, b) = (key(first).max(0.0), key(second).max(0.0));
    if b <= 0.0 || bones[second].is_none() || bones[first] == bones[second] {
        return Weight::Bdef1 { bone: bones[first] };
    }
    Weight::Bdef2 {
        bones: [bones[first], bones[second]],
        weight: a / (a + b),
    }
}

/// PMD's IK list drives each chain bone from one IK; a bone in two chains follows one of them.
fn ik_chains(model: &Model, covered: &mut HashSet<ModelPath>, out: &mut Vec<Issue>) {
    let mut owner: HashMap<usize, usize> = HashMap::new();
    for (k, bone) in model.bones.iter().enumerate() {
        if !bone.is_ik() {
            continue;
        }
        for (j, link) in bone.ik.links.iter().enumerate() {
            let Some(b) = link.bone.map(BoneIdx::get) else {
                continue;
            };
            match owner.get(&b) {
                None => {
                    owner.insert(b, k);
                }
                Some(&first) if first != k => {
                    let path = ModelPath::element(ElementKind::Bone, k)
                        .field("ik")
                        .at("links", j)
                        .field("bone");
                    covered.insert(path.clone());
                    let name = |i: usize| {
                        model
                            .bones
                            .get(i)
                            .map_or_else(String::new, |b| quoted(&b.name_ja).into_owned())
                    };
                    out.push(Issue::new(
                        Severity::Warning,
                        "W-PMD-IK-CHAIN",
                        path,
                        format!(
                            "bone {} is a link of IK {} and of IK {}; in PMD a chain bone follows one IK",
                            name(b),
                            name(first),
                            name(k)
                        ),
                        format!(
                            "ボーン{}はIK{}とIK{}の両方のリンクです（PMDではリンクは1つのIKに属します）",
                            name(b),
                            name(first),
                            name(k)
                        ),
                    ));
                }
                Some(_) => {}
            }
        }
    }
}

#[derive(Debug)]
pub(crate) struct MmdCompatibilityRule;

impl Rule for MmdCompatibilityRule {
    fn name(&self) -> &'static str {
        "MikuMikuDance compatibility"
    }

    fn reads(&self) -> Reads {
        Reads::OUTSIDE_MESH
    }

    fn codes(&self) -> &'static [&'static str] {
        &[
            "I-MMD-NAME-LONG",
            "W-MMD-NAME-COLLISION",
            "W-MMD-NAME-CHARS",
        ]
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Issue>) {
        let model = cx.model;
        let bones: Vec<&Text> = model.bones.iter().map(|b| &b.name_ja).collect();
        let morphs: Vec<&Text> = model.morphs.iter().map(|m| &m.name_ja).collect();
        motion_names(ElementKind::Bone, &bones, out);
        motion_names(ElementKind::Morph, &morphs, out);
    }
}

fn motion_names(kind: ElementKind, names: &[&Text], out: &mut Vec<Issue>) {
    let (what_en, what_ja) = match kind {
        ElementKind::Bone => ("bone", "ボーン"),
        _ => ("morph", "モーフ"),
    };
    let mut keys: HashMap<Vec<u8>, (usize, String)> = HashMap::new();
    for (i, name) in names.iter().enumerate() {
        let name = name.as_str();
        if name.is_empty() {
            continue;
        }
        let path = || ModelPath::element(kind, i).field("name_ja");
        let (bytes, missing) = shift_jis_bytes(&name);
        if !missing.is_empty() {
            let characters: String = missing.iter().collect();
            out.push(Issue::new(
                Severity::Warning,
                "W-MMD-NAME-CHARS",
                path(),
                format!(
                    "{what_en} name \"{name}\" has characters cp932 lacks (\"{characters}\"); motions (VMD) cannot name it"
                ),
                format!(
                    "{what_ja}名「{name}」にcp932にない文字（{characters}）があり、モーション（VMD）から参照できません"
                ),
            ));
            continue;
        }
        if bytes.len() > VMD_NAME_BYTES {
            // MikuMikuDance matches the cut name, so a long name alone still works; other
            // tools that compare whole names do not.
            out.push(Issue::new(
                Severity::Info,
                "I-MMD-NAME-LONG",
                path(),
                format!(
                    "{what_en} name \"{name}\" is {} bytes in cp932; motions (VMD) store {VMD_NAME_BYTES} and match the cut name",
                    bytes.len()
                ),
                format!(
                    "{what_ja}名「{name}」はcp932で{}バイトです。モーション（VMD）は{VMD_NAME_BYTES}バイトまでしか記録しません",
                    bytes.len()
                ),
            ));
        }
        let key: Vec<u8> = bytes.iter().copied().take(VMD_NAME_BYTES).collect();
        match keys.get(&key) {
            Some((first, first_name)) if *first_name != *name => {
                out.push(Issue::new(
                    Severity::Warning,
                    "W-MMD-NAME-COLLISION",
                    path(),
                    format!(
                        "{what_en} names \"{first_name}\" ({first}) and \"{name}\" ({i}) agree in their first {VMD_NAME_BYTES} bytes; a motion cannot tell them apart"
                    ),
                    format!(
                        "{what_ja}名「{first_name}」（{first}）と「{name}」（{i}）は先頭{VMD_NAME_BYTES}バイトが同じで、モーションで区別できません"
                    ),
                ));
            }
            Some(_) => {}
            None => {
                keys.insert(key, (i, name.into_owned()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_jis_lengths() {
        assert_eq!(shift_jis_bytes("センター").0.len(), 8);
        assert_eq!(shift_jis_bytes("abc").0.len(), 3);
        let (bytes, missing) = shift_jis_bytes("a♪b");
        // ♪ is in JIS X 0208 (0x81F4).
        assert_eq!((bytes.len(), missing.len()), (4, 0));
        let (bytes, missing) = shift_jis_bytes("a😀b");
        assert_eq!((bytes, missing), (b"ab".to_vec(), vec!['😀']));
        assert_eq!(mmd_name_bytes("左ひじ捩じれ補助ボーン").len(), 15);
    }
}
