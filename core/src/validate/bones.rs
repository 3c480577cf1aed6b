//! Bone and physics rules: deform order against parents, append parents and IK; parent and
//! append cycles; IK loop count and limit angle; fixed axes; rigid bodies and joints.
//!
//! Deform order is MikuMikuDance's: bones after physics last, then by deform layer (変形階層),
//! then by index. A bone deformed before a bone it depends on reads that bone's transform from
//! before this frame's update: it lags or jitters. The fix raises deform layers, just enough,
//! in dependency order (so the bones under a raised bone are raised with it).

use super::util::{quoted, set_each_op, set_op};
use super::{Context, Fix, Issue, Reads, Rule, Severity};
use crate::edit::field;
use crate::model::*;
use crate::path::ModelPath;

#[derive(Debug)]
pub(crate) struct BoneRule;

#[derive(Debug)]
pub(crate) struct PhysicsRule;

impl Rule for BoneRule {
    fn name(&self) -> &'static str {
        "bones"
    }

    fn reads(&self) -> Reads {
        Reads::OUTSIDE_MESH
    }

    fn codes(&self) -> &'static [&'static str] {
        &[
            "W-BONE-ORDER",
            "E-BONE-PARENT-CYCLE",
            "E-BONE-APPEND-CYCLE",
            "W-APPEND-NO-PARENT",
            "W-IK-LOOP",
            "W-IK-ANGLE",
            "W-IK-NO-LINKS",
            "W-FIXED-AXIS",
        ]
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Issue>) {
        let bones = &cx.model.bones;
        let valid = |b: Option<BoneIdx>| b.map(BoneIdx::get).filter(|&b| b < bones.len());
        cycles(
            bones,
            |b| valid(b.parent),
            "E-BONE-PARENT-CYCLE",
            ("parent", "親ボーン"),
            out,
            |index, _| {
                Fix::new(
                    "Break the parent cycle",
                    "親ボーンの循環を切る",
                    vec![set_op(field::<Bone>().parent(), vec![index], None)],
                )
            },
        );
        cycles(
            bones,
            |b| {
                if b.has_append() {
                    valid(b.append_parent)
                } else {
                    None
                }
            },
            "E-BONE-APPEND-CYCLE",
            ("append parent", "付与親"),
            out,
            |index, bone| {
                Fix::new(
                    "Break the append cycle (the bone stops appending)",
                    "付与の循環を切る（このボーンの付与を外す）",
                    vec![set_op(
                        field::<Bone>().flags(),
                        vec![index],
                        bone.flags - BoneFlags::APPEND_ROTATE - BoneFlags::APPEND_MOVE,
                    )],
                )
            },
        );
        deform_order(cx, out);
        for (i, bone) in bones.iter().enumerate() {
            if bone.has_append() && bone.append_parent.is_none() {
                out.push(
                    Issue::new(
                        Severity::Warning,
                        "W-APPEND-NO-PARENT",
                        ModelPath::element(ElementKind::Bone, i).field("append_parent"),
                        format!(
                            "bone {} appends rotation/movement but has no append parent",
                            quoted(&bone.name_ja)
                        ),
                        format!(
                            "ボーン{}は付与が有効ですが、付与親がありません",
                            quoted(&bone.name_ja)
                        ),
                    )
                    .with_fix(Some(Fix::new(
                        "Turn the append off",
                        "付与を外す",
                        vec![set_op(
                            field::<Bone>().flags(),
                            vec![i],
                            bone.flags - BoneFlags::APPEND_ROTATE - BoneFlags::APPEND_MOVE,
                        )],
                    ))),
                );
            }
            if bone.is_ik() {
                ik(i, bone, out);
            }
            if bone.flags.contains(BoneFlags::FIXED_AXIS) && bone.fixed_axis.is_finite() {
                fixed_axis(i, bone, out);
            }
        }
    }
}

fn ik(i: usize, bone: &Bone, out: &mut Vec<Issue>) {
    let defaults = Ik::default();
    if bone.ik.loop_count <= 0 {
        out.push(
            Issue::new(
                Severity::Warning,
                "W-IK-LOOP",
                ModelPath::element(ElementKind::Bone, i)
                    .field("ik")
                    .field("loop_count"),
                format!(
                    "IK bone {} has loop count {}; the IK never moves its chain",
                    quoted(&bone.name_ja),
                    bone.ik.loop_count
                ),
                format!(
                    "IKボーン{}のループ回数が{}です（IKが動きません）",
                    quoted(&bone.name_ja),
                    bone.ik.loop_count
                ),
            )
            .with_fix(Some(Fix::new(
                format!("Set the IK loop count to {}", defaults.loop_count),
                format!("IKのループ回数を{}にする", defaults.loop_count),
                vec![set_op(
                    field::<Bone>().ik().loop_count(),
                    vec![i],
                    defaults.loop_count,
                )],
            ))),
        );
    }
    if bone.ik.limit_angle.is_finite() && bone.ik.limit_angle <= 0.0 {
        out.push(
            Issue::new(
                Severity::Warning,
                "W-IK-ANGLE",
                ModelPath::element(ElementKind::Bone, i)
                    .field("ik")
                    .field("limit_angle"),
                format!(
                    "IK bone {} has limit angle {}; each iteration may turn a link by nothing",
                    quoted(&bone.name_ja),
                    bone.ik.limit_angle
                ),
                format!(
                    "IKボーン{}の単位角が{}です（リンクが回転できません）",
                    quoted(&bone.name_ja),
                    bone.ik.limit_angle
                ),
            )
            .with_fix(Some(Fix::new(
                format!(
                    "Set the IK limit angle to {}°",
                    defaults.limit_angle.to_degrees().round()
                ),
                format!(
                    "IKの単位角を{}°にする",
                    defaults.limit_angle.to_degrees().round()
                ),
                vec![set_op(
                    field::<Bone>().ik().limit_angle(),
                    vec![i],
                    defaults.limit_angle,
                )],
            ))),
        );
    }
    if bone.ik.links.is_empty() {
        out.push(Issue::new(
            Severity::Warning,
            "W-IK-NO-LINKS",
            ModelPath::element(ElementKind::Bone, i)
                .field("ik")
                .field("links"),
            format!("IK bone {} has no links", quoted(&bone.name_ja)),
            format!("IKボーン{}にリンクがありません", quoted(&bone.name_ja)),
        ));
    }
}

fn fixed_axis(i: usize, bone: &Bone, out: &mut Vec<Issue>) {
    let a = bone.fixed_axis;
    let length = (a.x * a.x + a.y * a.y + a.z * a.z).sqrt();
    if (length - 1.0).abs() <= 0.01 {
        return;
    }
    let fix = if length > 1e-6 {
        Fix::new(
            "Normalize the fixed axis",
            "軸制限の軸を正規化する",
            vec![set_op(
                field::<Bone>().fixed_axis(),
                vec![i],
                Vec3::new(a.x / length, a.y / length, a.z / length),
            )],
        )
    } else {
        Fix::new(
            "Turn the fixed axis off (it has no direction)",
            "軸制限を外す（軸に方向がありません）",
            vec![set_op(
                field::<Bone>().flags(),
                vec![i],
                bone.flags - BoneFlags::FIXED_AXIS,
            )],
        )
    };
    out.push(
        Issue::new(
            Severity::Warning,
            "W-FIXED-AXIS",
            ModelPath::element(ElementKind::Bone, i).field("fixed_axis"),
            format!(
                "the fixed axis of bone {} has length {length}, not 1",
                quoted(&bone.name_ja)
            ),
            format!(
                "ボーン{}の軸制限の軸の長さが1ではありません（{length}）",
                quoted(&bone.name_ja)
            ),
        )
        .with_fix(Some(fix)),
    );
}

/// Finds cycles of the `next` relation (each bone has at most one next bone), reporting each
/// cycle once, at its lowest bone index, whose link the fix cuts.
fn cycles(
    bones: &[Bone],
    next: impl Fn(&Bone) -> Option<usize>,
    code: &'static str,
    (what_en, what_ja): (&str, &str),
    out: &mut Vec<Issue>,
    fix: impl Fn(usize, &Bone) -> Fix,
) {
    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; bones.len()];
    let mut path = Vec::new();
    for start in 0..bones.len() {
        if state[start] != NEW {
            continue;
        }
        path.clear();
        let mut current = Some(start);
        while let Some(b) = current {
            match state[b] {
                NEW => {
                    state[b] = ON_PATH;
                    path.push(b);
                    current = bones.get(b).and_then(&next);
                }
                ON_PATH => {
                    // `b` is on the path: the path from `b` on is a cycle.
                    let from = path.iter().position(|&p| p == b).unwrap_or(0);
                    let members = &path[from..];
                    let lowest = members.iter().copied().min().unwrap_or(b);
                    let Some(bone) = bones.get(lowest) else {
                        break;
                    };
                    let names: Vec<String> = members
                        .iter()
                        .filter_map(|&m| {
                            bones
                                .get(m)
                                .map(|bone| format!("{m} {}", quoted(&bone.name_ja)))
                        })
                        .collect();
                    let field = if code == "E-BONE-PARENT-CYCLE" {
                        "parent"
                    } else {
                        "append_parent"
                    };
                    out.push(
                        Issue::new(
                            Severity::Error,
                            code,
                            ModelPath::element(ElementKind::Bone, lowest).field(field),
                            format!(
                                "bones form a {what_en} cycle: {}; deforming them never ends or is undefined",
                                names.join(" → ")
                            ),
                            format!("ボーンの{what_ja}が循環しています: {}", names.join(" → ")),
                        )
                        .with_fix(Some(fix(lowest, bone))),
                    );
                    break;
                }
                _ => break,
            }
        }
        for &b in &path {
            state[b] = DONE;
        }
    }
}

/// The deform order key: after physics last, then layer, then index.
fn order_key(bones: &[Bone], b: usize) -> (bool, i64, usize) {
    bones.get(b).map_or((false, 0, b), |bone| {
        (
            bone.flags.contains(BoneFlags::AFTER_PHYSICS),
            i64::from(bone.layer),
            b,
        )
    })
}

/// The bones `b` must be deformed after, with the field that names each (the spec's
/// "変形順序による変形量の参照について"): its parent always; its append parent when the append
/// takes the parent's deformed state (local append) or passes on the parent's own append
/// (multi-level append); and the IK bone that turns its append parent, whose IK rotation must be
/// solved before it is appended. IK chains themselves need no order: the IK bone recomputes its
/// chain when it solves.
fn dependencies(
    bones: &[Bone],
    ik_of_link: &[Option<usize>],
    b: usize,
    bone: &Bone,
    out: &mut Vec<(usize, &'static str)>,
) {
    out.clear();
    let valid = |x: Option<BoneIdx>| x.map(BoneIdx::get).filter(|&x| x < bones.len() && x != b);
    if let Some(p) = valid(bone.parent) {
        out.push((p, "parent"));
    }
    if bone.has_append()
        && let Some(a) = valid(bone.append_parent)
    {
        let parent_appends = bones.get(a).is_some_and(Bone::has_append);
        if bone.flags.contains(BoneFlags::LOCAL_APPEND) || parent_appends {
            out.push((a, "append_parent"));
        }
        if let Some(Some(ik)) = ik_of_link.get(a)
            && *ik != b
        {
            out.push((*ik, "append_parent"));
        }
    }
}

/// For each bone, the (first) IK bone whose chain it is a link of.
fn ik_of_links(bones: &[Bone]) -> Vec<Option<usize>> {
    let mut owner = vec![None; bones.len()];
    for (k, bone) in bones.iter().enumerate() {
        if !bone.is_ik() {
            continue;
        }
        for link in &bone.ik.links {
            if let Some(slot) = link.bone.and_then(|l| owner.get_mut(l.get()))
                && slot.is_none()
            {
                *slot = Some(k);
            }
        }
    }
    owner
}

fn deform_order(cx: &Context<'_>, out: &mut Vec<Issue>) {
    let bones = &cx.model.bones;
    let ik_of_link = ik_of_links(bones);
    let mut deps = Vec::new();
    let mut found = Vec::new();
    for (b, bone) in bones.iter().enumerate() {
        dependencies(bones, &ik_of_link, b, bone, &mut deps);
        for (d, field) in deps.drain(..) {
            if order_key(bones, d) > order_key(bones, b) {
                found.push((b, d, field));
            }
        }
    }
    if found.is_empty() {
        return;
    }
    let fix = layer_fix(bones);
    let cap = cx.options.max_issues_per_code.max(1);
    let summary = (found.len() > cap).then(|| {
        let rest = found.len() - cap;
        Issue::new(
            Severity::Warning,
            "W-BONE-ORDER",
            ModelPath::list(ElementKind::Bone),
            format!("and {rest} more bones are deformed before a bone they depend on"),
            format!("他に{rest}件: 依存先より先に変形されるボーン"),
        )
        .with_fix(fix.clone())
        .summing_up(rest)
    });
    for (b, d, field) in found.into_iter().take(cap) {
        let (Some(bone), Some(dep)) = (bones.get(b), bones.get(d)) else {
            continue;
        };
        let relation = if field != "append_parent" {
            ("parent", "親ボーン")
        } else if bone.append_parent.map(BoneIdx::get) == Some(d) {
            ("append parent", "付与親")
        } else {
            (
                "IK bone that turns its append parent",
                "付与親を動かすIKボーン",
            )
        };
        let en = format!(
            "bone {} (layer {}) is deformed before its {} {} (layer {})",
            quoted(&bone.name_ja),
            bone.layer,
            relation.0,
            quoted(&dep.name_ja),
            dep.layer
        );
        let ja = format!(
            "ボーン{}（変形階層{}）が{}{}（変形階層{}）より先に変形されます",
            quoted(&bone.name_ja),
            bone.layer,
            relation.1,
            quoted(&dep.name_ja),
            dep.layer
        );
        let path = ModelPath::element(ElementKind::Bone, b).field(field);
        out.push(Issue::new(Severity::Warning, "W-BONE-ORDER", path, en, ja).with_fix(fix.clone()));
    }
    out.extend(summary);
}

/// The smallest layer raises that put every bone after what it depends on (bones in a cycle
/// and dependencies across the after-physics boundary are left alone: layers cannot fix them).
fn layer_fix(bones: &[Bone]) -> Option<Fix> {
    let n = bones.len();
    let mut deps: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut dependents: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut scratch = Vec::new();
    let ik_of_link = ik_of_links(bones);
    for (b, bone) in bones.iter().enumerate() {
        dependencies(bones, &ik_of_link, b, bone, &mut scratch);
        for (d, _) in scratch.drain(..) {
            deps[b].push(d);
            dependents[d].push(b);
        }
    }
    // Kahn's algorithm: a bone is placed once everything it depends on is.
    let mut waiting: Vec<usize> = deps.iter().map(Vec::len).collect();
    let mut ready: Vec<usize> = (0..n).filter(|&b| waiting[b] == 0).collect();
    let mut layers: Vec<i64> = bones.iter().map(|b| i64::from(b.layer)).collect();
    let after_physics = |b: usize| {
        bones
            .get(b)
            .is_some_and(|b| b.flags.contains(BoneFlags::AFTER_PHYSICS))
    };
    while let Some(b) = ready.pop() {
        for &d in &deps[b] {
            if after_physics(d) == after_physics(b) {
                let needed = layers[d] + i64::from(d > b);
                if needed > layers[b] {
                    layers[b] = needed;
                }
            }
        }
        for &next in &dependents[b] {
            waiting[next] -= 1;
            if waiting[next] == 0 {
                ready.push(next);
            }
        }
    }
    let mut indices = Vec::new();
    let mut values = Vec::new();
    for (b, (bone, &layer)) in bones.iter().zip(&layers).enumerate() {
        if i64::from(bone.layer) != layer {
            indices.push(b);
            values.push(i32::try_from(layer).ok()?);
        }
    }
    if indices.is_empty() {
        return None;
    }
    let count = indices.len();
    Some(Fix::new(
        format!("Raise the deform layer of {count} bone(s) so each follows what it depends on"),
        format!("{count}個のボーンの変形階層を上げて、依存先の後に変形されるようにする"),
        vec![set_each_op(field::<Bone>().layer(), indices, values)],
    ))
}

impl Rule for PhysicsRule {
    fn name(&self) -> &'static str {
        "physics"
    }

    fn reads(&self) -> Reads {
        Reads::OUTSIDE_MESH
    }

    fn codes(&self) -> &'static [&'static str] {
        &["W-RIGID-NO-BONE", "W-JOINT-NO-BODY", "W-JOINT-SAME-BODY"]
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Issue>) {
        let model = cx.model;
        for (i, body) in model.rigid_bodies.iter().enumerate() {
            if body.bone.is_none() {
                out.push(Issue::new(
                    Severity::Warning,
                    "W-RIGID-NO-BONE",
                    ModelPath::element(ElementKind::RigidBody, i).field("bone"),
                    format!(
                        "rigid body {} is tied to no bone; it moves nothing",
                        quoted(&body.name_ja)
                    ),
                    format!("剛体{}に関連ボーンがありません", quoted(&body.name_ja)),
                ));
            }
        }
        let delete = |j: usize| {
            Some(Fix::new(
                "Delete the joint",
                "ジョイントを削除する",
                vec![super::util::delete_op(ElementKind::Joint, vec![j])],
            ))
        };
        for (j, joint) in model.joints.iter().enumerate() {
            if joint.body_a.is_none() || joint.body_b.is_none() {
                let field = if joint.body_a.is_none() {
                    "body_a"
                } else {
                    "body_b"
                };
                out.push(
                    Issue::new(
                        Severity::Warning,
                        "W-JOINT-NO-BODY",
                        ModelPath::element(ElementKind::Joint, j).field(field),
                        format!(
                            "joint {} connects no rigid body on one side; it holds nothing",
                            quoted(&joint.name_ja)
                        ),
                        format!(
                            "ジョイント{}の片側に剛体がありません",
                            quoted(&joint.name_ja)
                        ),
                    )
                    .with_fix(delete(j)),
                );
            } else if joint.body_a == joint.body_b {
                out.push(
                    Issue::new(
                        Severity::Warning,
                        "W-JOINT-SAME-BODY",
                        ModelPath::element(ElementKind::Joint, j).field("body_b"),
                        format!(
                            "joint {} connects rigid body {} to itself",
                            quoted(&joint.name_ja),
                            RigidBodyIdx::to_raw(joint.body_a)
                        ),
                        format!(
                            "ジョイント{}が同じ剛体 {} 同士をつないでいます",
                            quoted(&joint.name_ja),
                            RigidBodyIdx::to_raw(joint.body_a)
                        ),
                    )
                    .with_fix(delete(j)),
                );
            }
        }
    }
}
