//! Reference rules: every index in range, and "none" (-1) only where the spec allows it.
//!
//! The walk is [`visit_refs`](crate::model::refs::visit_refs), the one walk that knows every field holding an index (the edits
//! renumber references through it), so no reference kind is missed here either. Fields the
//! bone flags switch off (a tail offset's stale tail bone, IK data of a bone that is no longer
//! IK) are not written and not checked.
//!
//! Fixes: a dangling weight bone is dropped and the weight renormalized; a face using a vertex
//! past the end is deleted; a dangling texture, parent, tail, append parent, rigid body bone or
//! joint body becomes none; an IK bone without a target stops being IK; dangling IK links,
//! morph offsets, display frame items, soft body anchors and pins are removed from their list;
//! a soft body without a material is deleted.

use super::util::{Finding, FixPart, emit_findings, repaired_weight};
use super::{Context, Dirty, Issue, Reads, Rule, RuleMemo, Severity};
use crate::edit::field;
use crate::model::refs::{RefSite, RefVisitor, visit_refs_outside_mesh};
use crate::model::*;
use crate::path::ModelPath;
use std::collections::BTreeMap;

#[derive(Debug)]
pub(crate) struct ReferenceRule;

impl Rule for ReferenceRule {
    fn name(&self) -> &'static str {
        "references"
    }

    fn reads(&self) -> Reads {
        Reads::EVERYTHING.without(
            Reads::VERTEX_POSITIONS
                .with(Reads::VERTEX_UVS)
                .with(Reads::VERTEX_OTHER),
        )
    }

    fn codes(&self) -> &'static [&'static str] {
        &[
            "E-REF-RANGE",
            "E-REF-NONE",
            "W-MORPH-GROUP-NESTED",
            "W-MORPH-UV-CHANNEL",
            "W-SOFT-BODY-NO-MATERIAL",
        ]
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Issue>) {
        self.check_memo(cx, &mut RuleMemo::default(), None, out);
    }

    fn check_memo(
        &self,
        cx: &Context<'_>,
        memo: &mut RuleMemo,
        dirty: Option<&Dirty>,
        out: &mut Vec<Issue>,
    ) {
        let model = cx.model;
        let mut collector = Collector {
            model,
            bad: Vec::new(),
        };
        // The mesh's references, in the order `visit_refs` visits them: per vertex the weight
        // slots whose bone is past the end, per face the corners past the last vertex (bit
        // per slot or corner), kept between checks; then everything else.
        let (num_vertices, num_bones) = (model.vertices.len(), model.bones.len());
        let weight_classes =
            memo.vertex_classes(num_vertices, &[num_vertices, num_bones], dirty, |i| {
                model.vertices.get(i).map_or(0, |v| {
                    v.weight
                        .bones()
                        .iter()
                        .enumerate()
                        .filter(|(_, b)| b.is_some_and(|b| b.get() >= num_bones))
                        .fold(0, |class, (slot, _)| class | (1 << slot))
                })
            });
        for (vertex, _) in weight_classes.iter().enumerate().filter(|(_, c)| **c != 0) {
            if let Some(v) = model.vertices.get(vertex) {
                for (slot, bone) in v.weight.bones().iter().enumerate() {
                    collector.bone(RefSite::VertexWeight { vertex, slot }, bone);
                }
            }
        }
        let face_classes = memo.face_classes(
            model.faces.len(),
            &[num_vertices, model.faces.len()],
            dirty,
            |f| {
                model.faces.get(f).map_or(0, |face| {
                    face.iter()
                        .enumerate()
                        .filter(|(_, v)| v.get() >= num_vertices)
                        .fold(0, |class, (corner, _)| class | (1 << corner))
                })
            },
        );
        for (face, _) in face_classes.iter().enumerate().filter(|(_, c)| **c != 0) {
            if let Some(corners) = model.faces.get(face) {
                for (corner, index) in corners.iter().enumerate() {
                    collector.vertex(RefSite::Face { face, corner }, index);
                }
            }
        }
        visit_refs_outside_mesh(model, &mut collector);
        let cap = cx.options.max_issues_per_code;
        let (range, none): (Vec<Bad>, Vec<Bad>) =
            collector.bad.into_iter().partition(|bad| bad.raw.is_some());
        emit_findings(
            out,
            Severity::Error,
            "E-REF-RANGE",
            findings(model, &range, cap),
            cap,
            None,
            (
                "references point past the end of their list",
                "参照先が範囲外です",
            ),
            |n| {
                (
                    format!("Fix {n} reference(s) past the end"),
                    format!("範囲外の参照{n}件を修正する"),
                )
            },
        );
        emit_findings(
            out,
            Severity::Error,
            "E-REF-NONE",
            findings(model, &none, cap),
            cap,
            None,
            (
                "references are -1 where the spec requires one",
                "参照が必須の箇所が-1です",
            ),
            |n| {
                (
                    format!("Fix {n} missing reference(s)"),
                    format!("参照なし{n}件を修正する"),
                )
            },
        );
        nested_groups(cx, out);
        uv_channels(cx, out);
        soft_bodies_without_material(cx, out);
    }
}

/// A reference that is out of range (`raw` holds it) or none where none is not allowed.
#[derive(Debug, Clone, Copy)]
struct Bad {
    site: RefSite,
    /// The index as stored (PMX's raw value); `None` for -1.
    raw: Option<i64>,
    /// The kind of element referred to.
    kind: ElementKind,
}

struct Collector<'m> {
    model: &'m Model,
    bad: Vec<Bad>,
}

impl Collector<'_> {
    /// Whether the field is written for this element (flags switch some off).
    fn meaningful(&self, site: RefSite) -> bool {
        let bone = |b: usize| self.model.bones.get(b);
        match site {
            RefSite::BoneTail { bone: b } => {
                bone(b).is_some_and(|b| b.flags.contains(BoneFlags::TAIL_IS_BONE))
            }
            RefSite::BoneAppendParent { bone: b } => bone(b).is_some_and(Bone::has_append),
            RefSite::IkTarget { bone: b } | RefSite::IkLink { bone: b, .. } => {
                bone(b).is_some_and(Bone::is_ik)
            }
            _ => true,
        }
    }

    fn check<T>(
        &mut self,
        site: RefSite,
        index: Option<T>,
        get: impl Fn(T) -> (usize, i64),
        len: usize,
        kind: ElementKind,
        none_allowed: bool,
    ) {
        if !self.meaningful(site) {
            return;
        }
        match index.map(get) {
            Some((index, _)) if index < len => {}
            Some((_, raw)) => self.bad.push(Bad {
                site,
                raw: Some(raw),
                kind,
            }),
            None if none_allowed => {}
            None => self.bad.push(Bad {
                site,
                raw: None,
                kind,
            }),
        }
    }
}

impl RefVisitor for Collector<'_> {
    fn vertex(&mut self, site: RefSite, index: &VertexIdx) {
        // The hot path (faces, weights of a million vertices): a compare and nothing else.
        if index.get() >= self.model.vertices.len() {
            self.bad.push(Bad {
                site,
                raw: Some(i64::from(index.0)),
                kind: ElementKind::Vertex,
            });
        }
    }

    fn texture(&mut self, site: RefSite, index: &Option<TextureIdx>) {
        let len = self.model.textures.len();
        self.check(
            site,
            *index,
            |i| (i.get(), i64::from(i.raw())),
            len,
            ElementKind::Texture,
            true,
        );
    }

    fn material(&mut self, site: RefSite, index: &Option<MaterialIdx>) {
        // -1 means "all materials" in a material morph. A soft body without a material loads
        // (it has no mesh to simulate): a warning of its own (`soft_bodies_without_material`).
        let none_allowed = matches!(
            site,
            RefSite::MorphOffset { .. } | RefSite::SoftBodyMaterial { .. }
        );
        let len = self.model.materials.len();
        self.check(
            site,
            *index,
            |i| (i.get(), i64::from(i.raw())),
            len,
            ElementKind::Material,
            none_allowed,
        );
    }

    fn bone(&mut self, site: RefSite, index: &Option<BoneIdx>) {
        if let (Some(bone), RefSite::VertexWeight { .. }) = (index, site)
            && bone.get() < self.model.bones.len()
        {
            return;
        }
        let none_allowed = matches!(
            site,
            RefSite::VertexWeight { .. }
                | RefSite::BoneParent { .. }
                | RefSite::BoneTail { .. }
                | RefSite::BoneAppendParent { .. }
                | RefSite::RigidBodyBone { .. }
        );
        let len = self.model.bones.len();
        self.check(
            site,
            *index,
            |i| (i.get(), i64::from(i.raw())),
            len,
            ElementKind::Bone,
            none_allowed,
        );
    }

    fn morph(&mut self, site: RefSite, index: &Option<MorphIdx>) {
        let len = self.model.morphs.len();
        self.check(
            site,
            *index,
            |i| (i.get(), i64::from(i.raw())),
            len,
            ElementKind::Morph,
            false,
        );
    }

    fn rigid_body(&mut self, site: RefSite, index: &Option<RigidBodyIdx>) {
        let none_allowed = matches!(
            site,
            RefSite::JointBodyA { .. } | RefSite::JointBodyB { .. }
        );
        let len = self.model.rigid_bodies.len();
        self.check(
            site,
            *index,
            |i| (i.get(), i64::from(i.raw())),
            len,
            ElementKind::RigidBody,
            none_allowed,
        );
    }
}

/// The validator path of a reference (`bones[3].ik.links[1].bone`, `morphs[2].offsets[5].vertex`).
fn site_path(model: &Model, site: RefSite) -> ModelPath {
    site.path(model)
}

/// What a reference field is called in Japanese, for messages.
fn site_ja(site: RefSite) -> &'static str {
    match site {
        RefSite::VertexWeight { .. } => "ウェイトのボーン",
        RefSite::Face { .. } => "面の頂点",
        RefSite::MaterialTexture { .. } => "材質のテクスチャ",
        RefSite::MaterialSphere { .. } => "材質のスフィアテクスチャ",
        RefSite::MaterialToon { .. } => "材質のToonテクスチャ",
        RefSite::BoneParent { .. } => "親ボーン",
        RefSite::BoneTail { .. } => "表示先ボーン",
        RefSite::BoneAppendParent { .. } => "付与親ボーン",
        RefSite::IkTarget { .. } => "IKターゲット",
        RefSite::IkLink { .. } => "IKリンク",
        RefSite::MorphOffset { .. } => "モーフのオフセット",
        RefSite::DisplayItem { .. } => "表示枠の要素",
        RefSite::RigidBodyBone { .. } => "剛体の関連ボーン",
        RefSite::JointBodyA { .. } | RefSite::JointBodyB { .. } => "ジョイントの剛体",
        RefSite::SoftBodyMaterial { .. } => "ソフトボディの材質",
        RefSite::SoftBodyAnchorBody { .. } | RefSite::SoftBodyAnchorVertex { .. } => {
            "ソフトボディのアンカー"
        }
        RefSite::SoftBodyPin { .. } => "ソフトボディのピン頂点",
    }
}

/// Groups bad references by what one fix changes (a weight, a list of an element, one field)
/// and describes each group; past the first `cap` groups only the fix and the place are kept
/// (their issues are summed up: a file read out of garbage can have a bad reference in each of
/// hundreds of thousands of faces, and messages nobody reads would take most of the memory).
fn findings(model: &Model, bad: &[Bad], cap: usize) -> Vec<Finding> {
    // Key: (owner kind, owner index, list) for lists, else the site itself (one field).
    #[derive(PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
    enum Key {
        Weight(usize),
        Face(usize),
        IkLinks(usize),
        Offsets(usize),
        Items(usize),
        Anchors(usize),
        Pins(usize),
        Field(u8, usize, usize),
    }
    let key = |site: RefSite| match site {
        RefSite::VertexWeight { vertex, .. } => Key::Weight(vertex),
        RefSite::Face { face, .. } => Key::Face(face),
        RefSite::IkLink { bone, .. } => Key::IkLinks(bone),
        RefSite::MorphOffset { morph, .. } => Key::Offsets(morph),
        RefSite::DisplayItem { frame, .. } => Key::Items(frame),
        RefSite::SoftBodyAnchorBody { soft_body, .. }
        | RefSite::SoftBodyAnchorVertex { soft_body, .. } => Key::Anchors(soft_body),
        RefSite::SoftBodyPin { soft_body, .. } => Key::Pins(soft_body),
        other => {
            let (kind, index) = other.owner();
            Key::Field(kind as u8, index, field_rank(other))
        }
    };
    // Visit order is file order; group while keeping the first site of each group.
    let mut groups: BTreeMap<Key, Vec<Bad>> = BTreeMap::new();
    let mut order: Vec<Key> = Vec::new();
    for b in bad {
        let k = key(b.site);
        let entry = groups.entry(k).or_default();
        if entry.is_empty() {
            order.push(k);
        }
        entry.push(*b);
    }
    order
        .into_iter()
        .enumerate()
        .filter_map(|(n, k)| {
            let list = groups.get(&k)?;
            let first = list.first()?;
            Some(if n < cap.max(1) {
                describe(model, list, first)
            } else {
                Finding {
                    path: site_path(model, first.site),
                    message_en: String::new(),
                    message_ja: String::new(),
                    parts: fix_parts(model, list, first.site),
                }
            })
        })
        .collect()
}

fn field_rank(site: RefSite) -> usize {
    match site {
        RefSite::MaterialTexture { .. } | RefSite::BoneParent { .. } => 0,
        RefSite::MaterialSphere { .. } | RefSite::BoneTail { .. } | RefSite::JointBodyB { .. } => 1,
        RefSite::MaterialToon { .. } | RefSite::BoneAppendParent { .. } => 2,
        RefSite::IkTarget { .. } => 3,
        _ => 4,
    }
}

fn describe(model: &Model, list: &[Bad], first: &Bad) -> Finding {
    let path = site_path(model, first.site);
    let target = first.kind.list_name();
    let what_en = match first.raw {
        Some(raw) => format!(
            "points at {} {raw}, past the end ({} has {})",
            first.kind.name().replace('_', " "),
            target,
            model.count(first.kind)
        ),
        None => "is -1 (none), which is not allowed here".to_owned(),
    };
    let what_ja = match first.raw {
        Some(raw) => format!(
            "が存在しない{} {raw} を参照しています（{}個）",
            super::util::kind_ja(first.kind),
            model.count(first.kind)
        ),
        None => "が -1（参照なし）ですが、ここでは参照が必要です".to_owned(),
    };
    let more_en = if list.len() > 1 {
        format!(" ({} such references in this list)", list.len())
    } else {
        String::new()
    };
    let more_ja = if list.len() > 1 {
        format!("（このリストに{}件）", list.len())
    } else {
        String::new()
    };
    let parts = fix_parts(model, list, first.site);
    Finding {
        path,
        message_en: format!("{} {what_en}{more_en}", first.site.field_name()),
        message_ja: format!("{}{what_ja}{more_ja}", site_ja(first.site)),
        parts,
    }
}

/// The fix of one group of bad references (all in the same element's field or list).
fn fix_parts(model: &Model, list: &[Bad], site: RefSite) -> Vec<FixPart> {
    // Positions of the bad entries in their list, sorted (lists may be long: binary search).
    let mut bad_positions: Vec<usize> = list.iter().filter_map(|b| sub_position(b.site)).collect();
    bad_positions.sort_unstable();
    let keep = |position: usize| bad_positions.binary_search(&position).is_err();
    match site {
        RefSite::VertexWeight { vertex, .. } => model
            .vertices
            .get(vertex)
            .map(|v| {
                FixPart::set(
                    field::<Vertex>().weight(),
                    vertex,
                    repaired_weight(&v.weight, model.bones.len()),
                )
            })
            .into_iter()
            .collect(),
        RefSite::Face { face, .. } => vec![FixPart::Delete {
            kind: ElementKind::Face,
            index: face,
        }],
        RefSite::MaterialTexture { material } => {
            vec![FixPart::set(field::<Material>().texture(), material, None)]
        }
        RefSite::MaterialSphere { material } => vec![FixPart::set(
            field::<Material>().sphere_texture(),
            material,
            None,
        )],
        RefSite::MaterialToon { material } => vec![FixPart::set(
            field::<Material>().toon(),
            material,
            Toon::Texture(None),
        )],
        RefSite::BoneParent { bone } => {
            vec![FixPart::set(field::<Bone>().parent(), bone, None)]
        }
        RefSite::BoneTail { bone } => vec![FixPart::set(field::<Bone>().tail_bone(), bone, None)],
        RefSite::BoneAppendParent { bone } => {
            vec![FixPart::set(field::<Bone>().append_parent(), bone, None)]
        }
        RefSite::IkTarget { bone } => model
            .bones
            .get(bone)
            .map(|b| FixPart::set(field::<Bone>().flags(), bone, b.flags - BoneFlags::IK))
            .into_iter()
            .collect(),
        RefSite::IkLink { bone, .. } => model
            .bones
            .get(bone)
            .map(|b| {
                let links: Vec<IkLink> =
                    b.ik.links
                        .iter()
                        .enumerate()
                        .filter(|(link, _)| keep(*link))
                        .map(|(_, l)| l.clone())
                        .collect();
                FixPart::set(field::<Bone>().ik().links(), bone, links)
            })
            .into_iter()
            .collect(),
        RefSite::MorphOffset { morph, .. } => model
            .morphs
            .get(morph)
            .map(|m| {
                FixPart::set(
                    field::<Morph>().offsets(),
                    morph,
                    filter_offsets(&m.offsets, &keep),
                )
            })
            .into_iter()
            .collect(),
        RefSite::DisplayItem { frame, .. } => model
            .display_frames
            .get(frame)
            .map(|f| {
                let items: Vec<DisplayItem> = f
                    .items
                    .iter()
                    .enumerate()
                    .filter(|(item, _)| keep(*item))
                    .map(|(_, item)| *item)
                    .collect();
                FixPart::set(field::<DisplayFrame>().items(), frame, items)
            })
            .into_iter()
            .collect(),
        RefSite::RigidBodyBone { body } => {
            vec![FixPart::set(field::<RigidBody>().bone(), body, None)]
        }
        RefSite::JointBodyA { joint } => vec![FixPart::set(field::<Joint>().body_a(), joint, None)],
        RefSite::JointBodyB { joint } => vec![FixPart::set(field::<Joint>().body_b(), joint, None)],
        RefSite::SoftBodyMaterial { soft_body } => vec![FixPart::Delete {
            kind: ElementKind::SoftBody,
            index: soft_body,
        }],
        RefSite::SoftBodyAnchorBody { soft_body, .. }
        | RefSite::SoftBodyAnchorVertex { soft_body, .. } => model
            .soft_bodies
            .get(soft_body)
            .map(|s| {
                let anchors: Vec<SoftBodyAnchor> = s
                    .anchors
                    .iter()
                    .enumerate()
                    .filter(|(anchor, _)| keep(*anchor))
                    .map(|(_, a)| *a)
                    .collect();
                FixPart::set(field::<SoftBody>().anchors(), soft_body, anchors)
            })
            .into_iter()
            .collect(),
        RefSite::SoftBodyPin { soft_body, .. } => model
            .soft_bodies
            .get(soft_body)
            .map(|s| {
                let pins: Vec<VertexIdx> = s
                    .pinned_vertices
                    .iter()
                    .enumerate()
                    .filter(|(pin, _)| keep(*pin))
                    .map(|(_, v)| *v)
                    .collect();
                FixPart::set(field::<SoftBody>().pinned_vertices(), soft_body, pins)
            })
            .into_iter()
            .collect(),
    }
}

/// The position of a reference inside its element's list, for list references.
fn sub_position(site: RefSite) -> Option<usize> {
    match site {
        RefSite::IkLink { link, .. } => Some(link),
        RefSite::MorphOffset { offset, .. } => Some(offset),
        RefSite::DisplayItem { item, .. } => Some(item),
        RefSite::SoftBodyAnchorBody { anchor, .. }
        | RefSite::SoftBodyAnchorVertex { anchor, .. } => Some(anchor),
        RefSite::SoftBodyPin { pin, .. } => Some(pin),
        _ => None,
    }
}

/// The offsets `keep` accepts (by position), of the same kind.
pub(crate) fn filter_offsets(offsets: &MorphOffsets, keep: &dyn Fn(usize) -> bool) -> MorphOffsets {
    fn pick<T: Clone>(list: &[T], keep: &dyn Fn(usize) -> bool) -> Vec<T> {
        list.iter()
            .enumerate()
            .filter(|(i, _)| keep(*i))
            .map(|(_, o)| o.clone())
            .collect()
    }
    match offsets {
        MorphOffsets::Group(l) => MorphOffsets::Group(pick(l, keep)),
        MorphOffsets::Flip(l) => MorphOffsets::Flip(pick(l, keep)),
        MorphOffsets::Vertex(l) => MorphOffsets::Vertex(pick(l, keep)),
        MorphOffsets::Bone(l) => MorphOffsets::Bone(pick(l, keep)),
        MorphOffsets::Uv(l) => MorphOffsets::Uv(pick(l, keep)),
        MorphOffsets::AdditionalUv1(l) => MorphOffsets::AdditionalUv1(pick(l, keep)),
        MorphOffsets::AdditionalUv2(l) => MorphOffsets::AdditionalUv2(pick(l, keep)),
        MorphOffsets::AdditionalUv3(l) => MorphOffsets::AdditionalUv3(pick(l, keep)),
        MorphOffsets::AdditionalUv4(l) => MorphOffsets::AdditionalUv4(pick(l, keep)),
        MorphOffsets::Material(l) => MorphOffsets::Material(pick(l, keep)),
        MorphOffsets::Impulse(l) => MorphOffsets::Impulse(pick(l, keep)),
    }
}

/// Group morphs whose offsets name other group morphs: the spec does not support nesting, and
/// MikuMikuDance ignores the inner group. The fix flattens one level (the inner group's
/// offsets with the ratios multiplied), which keeps what the nesting meant; a group naming
/// itself loses that offset.
fn nested_groups(cx: &Context<'_>, out: &mut Vec<Issue>) {
    let model = cx.model;
    let is_group = |m: Option<MorphIdx>| {
        m.and_then(|m| model.morphs.get(m.get()))
            .is_some_and(|m| matches!(m.offsets, MorphOffsets::Group(_)))
    };
    let group_len = |m: Option<MorphIdx>| match m.and_then(|m| model.morphs.get(m.get())) {
        Some(Morph {
            offsets: MorphOffsets::Group(inner),
            ..
        }) => inner.len(),
        _ => 1,
    };
    // Flattening multiplies: a group of n offsets naming groups of n offsets each is n × n
    // long, and a damaged file can hold many such groups. The flattened lists of all fixes
    // together stay within a fixed budget (far above any real model's nesting, and fixed so
    // that repair rounds, each flattening one level, cannot compound); past it, a fix drops the
    // nested offsets instead, which is what MikuMikuDance does with them.
    let mut budget: usize = 1 << 20;
    for (i, morph) in model.morphs.iter().enumerate() {
        let MorphOffsets::Group(offsets) = &morph.offsets else {
            continue;
        };
        let nested: Vec<usize> = offsets
            .iter()
            .enumerate()
            .filter(|(_, o)| is_group(o.morph))
            .map(|(j, _)| j)
            .collect();
        let Some(&first) = nested.first() else {
            continue;
        };
        let flattened_len: usize = offsets.iter().map(|o| group_len(o.morph)).sum();
        let fix = if flattened_len <= budget {
            budget -= flattened_len;
            flatten_fix(model, i, offsets)
        } else {
            super::Fix::new(
                "Remove the nested group morphs (MikuMikuDance ignores them)",
                "入れ子のグループモーフを取り除く（MikuMikuDanceでは無視されます）",
                vec![super::util::set_op(
                    field::<Morph>().offsets(),
                    vec![i],
                    MorphOffsets::Group(
                        offsets
                            .iter()
                            .filter(|o| !is_group(o.morph))
                            .copied()
                            .collect(),
                    ),
                )],
            )
        };
        let count = nested.len();
        out.push(
            Issue::new(
                Severity::Warning,
                "W-MORPH-GROUP-NESTED",
                ModelPath::element(ElementKind::Morph, i).at("offsets", first).field("morph"),
                format!(
                    "group morph {} contains {count} group morph(s); the spec does not support nested groups",
                    super::util::quoted(&morph.name_ja)
                ),
                format!(
                    "グループモーフ{}がグループモーフを{count}個含んでいます（仕様上、入れ子のグループモーフは非対応です）",
                    super::util::quoted(&morph.name_ja)
                ),
            )
            .with_fix(Some(fix)),
        );
    }
}

/// The fix that flattens group morph `i`'s nested groups one level, ratios multiplied.
fn flatten_fix(model: &Model, i: usize, offsets: &[GroupMorphOffset]) -> super::Fix {
    {
        let mut flattened = Vec::with_capacity(offsets.len());
        for offset in offsets {
            let inner = offset
                .morph
                .and_then(|m| model.morphs.get(m.get()).map(|inner| (m.get(), inner)));
            match inner {
                Some((index, _)) if index == i => {}
                Some((
                    _,
                    Morph {
                        offsets: MorphOffsets::Group(inner),
                        ..
                    },
                )) => flattened.extend(
                    inner
                        .iter()
                        .filter(|o| o.morph.map(MorphIdx::get) != Some(i))
                        .map(|o| GroupMorphOffset {
                            morph: o.morph,
                            ratio: o.ratio * offset.ratio,
                        }),
                ),
                _ => flattened.push(*offset),
            }
        }
        super::Fix::new(
            "Flatten the nested group morphs",
            "入れ子のグループモーフを展開する",
            vec![super::util::set_op(
                field::<Morph>().offsets(),
                vec![i],
                MorphOffsets::Group(flattened),
            )],
        )
    }
}

/// Additional-UV morphs of a channel the model does not have. A warning: the offsets are read
/// like any UV morph's and readers ignore a channel the vertices lack; the morph moves nothing.
fn uv_channels(cx: &Context<'_>, out: &mut Vec<Issue>) {
    let model = cx.model;
    for (i, morph) in model.morphs.iter().enumerate() {
        let channel = match morph.offsets.kind() {
            MorphKind::AdditionalUv1 => 1,
            MorphKind::AdditionalUv2 => 2,
            MorphKind::AdditionalUv3 => 3,
            MorphKind::AdditionalUv4 => 4,
            _ => continue,
        };
        if channel <= model.additional_uv_count() {
            continue;
        }
        out.push(
            Issue::new(
                Severity::Warning,
                "W-MORPH-UV-CHANNEL",
                ModelPath::element(ElementKind::Morph, i),
                format!(
                    "morph {} moves additional UV {channel}, but the model has {} additional UV channel(s)",
                    super::util::quoted(&morph.name_ja),
                    model.additional_uv_count()
                ),
                format!(
                    "モーフ{}は追加UV{channel}を動かしますが、モデルの追加UV数は{}です",
                    super::util::quoted(&morph.name_ja),
                    model.additional_uv_count()
                ),
            )
            .with_fix(Some(super::Fix::new(
                "Delete the morph",
                "モーフを削除する",
                vec![super::util::delete_op(ElementKind::Morph, vec![i])],
            ))),
        );
    }
}

/// Soft bodies without a material (-1). A warning: the file loads (PmxEditor reads it; the soft
/// body has no mesh and simulates nothing). The fix deletes the soft body.
fn soft_bodies_without_material(cx: &Context<'_>, out: &mut Vec<Issue>) {
    for (i, soft_body) in cx.model.soft_bodies.iter().enumerate() {
        if soft_body.material.is_some() {
            continue;
        }
        out.push(
            Issue::new(
                Severity::Warning,
                "W-SOFT-BODY-NO-MATERIAL",
                ModelPath::element(ElementKind::SoftBody, i).field("material"),
                format!(
                    "soft body {} has no material; it has no mesh and simulates nothing",
                    super::util::quoted(&soft_body.name_ja)
                ),
                format!(
                    "ソフトボディ{}に材質がありません（メッシュがなく、何も動きません）",
                    super::util::quoted(&soft_body.name_ja)
                ),
            )
            .with_fix(Some(super::Fix::new(
                "Delete the soft body",
                "ソフトボディを削除する",
                vec![super::util::delete_op(ElementKind::SoftBody, vec![i])],
            ))),
        );
    }
}
