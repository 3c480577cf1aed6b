//! Geometry and value rules: non-finite floats anywhere, normals, weights, SDEF parameters, UV
//! range, material face counts, degenerate and duplicate faces, unused vertices, colours.
//!
//! These rules walk every vertex and face, so they are written as tight loops over the lists
//! (a 1,000,000-vertex, 2,000,000-face model is checked in well under the 300 ms budget) and
//! build messages only for what they find.

use super::util::{Finding, FixPart, Floats, emit_findings, quoted, repaired_weight, set_op};
use super::{Context, Dirty, Fix, FixStep, Issue, Reads, Rule, RuleMemo, Severity};
use crate::edit::{Element, Reflect, field, non_finite_places, replace_non_finite};
use crate::model::*;
use crate::path::{FieldPath, ModelPath, Segment};

/// Every float of the model is finite.
#[derive(Debug)]
pub(crate) struct ValueRule;

/// Normals, weights, SDEF parameters and UVs of vertices.
#[derive(Debug)]
pub(crate) struct VertexRule;

/// Material face counts, degenerate and duplicate faces, unused vertices.
#[derive(Debug)]
pub(crate) struct FaceRule;

/// Material colours.
#[derive(Debug)]
pub(crate) struct MaterialRule;

const NAN_SUMMARY: (&str, &str) = (
    "elements hold NaN or infinite numbers",
    "NaNまたは無限大の値を含む要素があります",
);

/// Additional UV channels whose non-finite values the memo keeps (a byte per vertex: one bit
/// for the vertex, one per channel; PMX has at most 4).
const MEMO_CHANNELS: usize = 7;

fn nan_label(n: usize) -> (String, String) {
    (
        format!("Replace NaN/infinite numbers in {n} element(s)"),
        format!("{n}個の要素のNaN・無限大の値を置き換える"),
    )
}

impl Rule for ValueRule {
    fn name(&self) -> &'static str {
        "finite values"
    }

    fn codes(&self) -> &'static [&'static str] {
        &["E-VALUE-NAN"]
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
        // Per vertex index: bit 0, the vertex holds a non-finite number; bit 1 + c, additional
        // UV channel c does there (for the first MEMO_CHANNELS channels, which may be longer
        // or shorter than the vertex list in a broken model).
        let channel_lens: Vec<usize> = model.additional_uvs.iter().map(Vec::len).collect();
        let len = channel_lens
            .iter()
            .copied()
            .fold(model.vertices.len(), usize::max);
        let mut key = vec![model.vertices.len()];
        key.extend_from_slice(&channel_lens);
        let classes = memo.vertex_classes(len, &key, dirty, |i| {
            let mut class = u8::from(model.vertices.get(i).is_some_and(|v| !vertex_is_finite(v)));
            for (channel, values) in model.additional_uvs.iter().enumerate().take(MEMO_CHANNELS) {
                if values.get(i).is_some_and(|value| !value.is_finite()) {
                    class |= 2 << channel;
                }
            }
            class
        });
        let mut findings = Vec::new();
        for (i, _) in classes.iter().enumerate().filter(|(_, c)| **c & 1 != 0) {
            if let Some(vertex) = model.vertices.get(i) {
                findings.push(vertex_nan_finding(i, vertex));
            }
        }
        for (channel, values) in model.additional_uvs.iter().enumerate() {
            let flagged: Box<dyn Iterator<Item = usize>> = if channel < MEMO_CHANNELS {
                let bit = 2 << channel;
                Box::new(
                    classes
                        .iter()
                        .enumerate()
                        .filter(move |(_, c)| **c & bit != 0)
                        .map(|(i, _)| i),
                )
            } else {
                Box::new(
                    values
                        .iter()
                        .enumerate()
                        .filter(|(_, value)| !value.is_finite())
                        .map(|(i, _)| i),
                )
            };
            for i in flagged {
                let Some(value) = values.get(i) else {
                    continue;
                };
                findings.push(nan_finding(
                    ModelPath::element(ElementKind::Vertex, i).at("additional_uvs", channel),
                    vec![FixPart::set(
                        field::<Vertex>().additional_uv(channel),
                        i,
                        value.finite_or(Vec4::ZERO),
                    )],
                ));
            }
        }
        element_nans(
            &model.materials,
            ElementKind::Material,
            always,
            sanitized_material,
            &mut findings,
        );
        element_nans(
            &model.bones,
            ElementKind::Bone,
            bone_uses,
            sanitized_bone,
            &mut findings,
        );
        element_nans(
            &model.morphs,
            ElementKind::Morph,
            always,
            sanitized_morph,
            &mut findings,
        );
        element_nans(
            &model.rigid_bodies,
            ElementKind::RigidBody,
            always,
            sanitized_rigid_body,
            &mut findings,
        );
        element_nans(
            &model.joints,
            ElementKind::Joint,
            always,
            sanitized_joint,
            &mut findings,
        );
        element_nans(
            &model.soft_bodies,
            ElementKind::SoftBody,
            always,
            sanitized_soft_body,
            &mut findings,
        );
        emit_findings(
            out,
            Severity::Error,
            "E-VALUE-NAN",
            findings,
            cx.options.max_issues_per_code,
            None,
            NAN_SUMMARY,
            nan_label,
        );
    }
}

fn nan_finding(path: ModelPath, parts: Vec<FixPart>) -> Finding {
    Finding {
        message_en: format!("{path} is NaN or infinite"),
        message_ja: format!("{path} がNaNまたは無限大です"),
        path,
        parts,
    }
}

fn weight_is_finite(weight: &Weight) -> bool {
    match weight {
        Weight::Bdef1 { .. } => true,
        Weight::Bdef2 { weight, .. } => weight.is_finite(),
        Weight::Bdef4 { weights, .. } | Weight::Qdef { weights, .. } => {
            weights.iter().all(|w| w.is_finite())
        }
        Weight::Sdef {
            weight, c, r0, r1, ..
        } => weight.is_finite() && c.is_finite() && r0.is_finite() && r1.is_finite(),
    }
}

fn vertex_is_finite(vertex: &Vertex) -> bool {
    vertex.position.is_finite()
        && vertex.normal.is_finite()
        && vertex.uv.is_finite()
        && vertex.edge_scale.is_finite()
        && weight_is_finite(&vertex.weight)
}

fn vertex_nan_finding(i: usize, vertex: &Vertex) -> Finding {
    let mut parts = Vec::new();
    let mut fields = Vec::new();
    let vertex_field = field::<Vertex>();
    if !vertex.position.is_finite() {
        fields.push("position");
        parts.push(FixPart::set(
            vertex_field.clone().position(),
            i,
            vertex.position.finite_or(Vec3::ZERO),
        ));
    }
    if !vertex.normal.is_finite() {
        // Zero: the normal rule then computes it from the faces around the vertex.
        fields.push("normal");
        parts.push(FixPart::set(
            vertex_field.clone().normal(),
            i,
            vertex.normal.finite_or(Vec3::ZERO),
        ));
    }
    if !vertex.uv.is_finite() {
        fields.push("uv");
        parts.push(FixPart::set(
            vertex_field.clone().uv(),
            i,
            vertex.uv.finite_or(Vec2::ZERO),
        ));
    }
    if !vertex.edge_scale.is_finite() {
        fields.push("edge_scale");
        parts.push(FixPart::set(vertex_field.clone().edge_scale(), i, 1.0_f32));
    }
    if !weight_is_finite(&vertex.weight) {
        // Non-finite weights become 0; the weight rule then renormalizes.
        let weight = match vertex.weight.clone() {
            Weight::Bdef2 { bones, weight } => Weight::Bdef2 {
                bones,
                weight: weight.finite_or(0.5),
            },
            Weight::Bdef4 { bones, weights } => Weight::Bdef4 {
                bones,
                weights: weights.map(|w| w.finite_or(0.0)),
            },
            Weight::Qdef { bones, weights } => Weight::Qdef {
                bones,
                weights: weights.map(|w| w.finite_or(0.0)),
            },
            Weight::Sdef {
                bones,
                weight,
                c,
                r0,
                r1,
            } => Weight::Sdef {
                bones,
                weight: weight.finite_or(0.5),
                c: c.finite_or(Vec3::ZERO),
                r0: r0.finite_or(Vec3::ZERO),
                r1: r1.finite_or(Vec3::ZERO),
            },
            other => other,
        };
        fields.push("weight");
        parts.push(FixPart::set(vertex_field.weight(), i, weight));
    }
    let path = ModelPath::element(ElementKind::Vertex, i)
        .field(fields.first().copied().unwrap_or("position"));
    Finding {
        message_en: nan_message_en(&fields, &format!("vertex {i}")),
        message_ja: format!("頂点{i}の{}がNaNまたは無限大です", fields.join("・")),
        path,
        parts,
    }
}

/// "`fields` of `owner` is (are) NaN or infinite", the verb agreeing with the fields.
fn nan_message_en<S: std::fmt::Display>(fields: &[S], owner: &str) -> String {
    match fields {
        [one] => format!("{one} of {owner} is NaN or infinite"),
        many => format!("{} of {owner} are NaN or infinite", joined(many, ", ")),
    }
}

fn joined<S: std::fmt::Display>(items: &[S], separator: &str) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(separator)
}

/// Non-vertex elements: one finding per element naming its non-finite fields; the fix sets the
/// element to a copy with them replaced by defaults.
fn element_nans<T: Element>(
    list: &[T],
    kind: ElementKind,
    meaningful: fn(&T, &FieldPath) -> bool,
    sanitized: fn(&T) -> T,
    findings: &mut Vec<Finding>,
) {
    for (i, element) in list.iter().enumerate() {
        // Every float of the element, found by the exhaustive walk; the fields the file does
        // not use (by the element's flags) are left alone.
        let fields: Vec<FieldPath> = non_finite_places(element)
            .into_iter()
            .filter(|place| meaningful(element, place))
            .collect();
        let Some(first) = fields.first() else {
            continue;
        };
        let path = ModelPath::element(kind, i).join(first);
        findings.push(Finding {
            message_en: nan_message_en(&fields, &format!("{} {i}", kind.name().replace('_', " "))),
            message_ja: format!(
                "{}{i}の{}がNaNまたは無限大です",
                super::util::kind_ja(kind),
                joined(&fields, "・")
            ),
            path,
            parts: vec![FixPart::set(
                field::<T>(),
                i,
                sanitized_fully(element, sanitized),
            )],
        });
    }
}

/// `sanitized(element)`, then any float it left non-finite set to 0 (a field the hand-written
/// defaults do not know yet is still fixed).
fn sanitized_fully<T: Reflect>(element: &T, sanitized: fn(&T) -> T) -> T {
    let mut clean = sanitized(element);
    replace_non_finite(&mut clean, 0.0);
    clean
}

/// Every float field counts.
fn always<T>(_: &T, _: &FieldPath) -> bool {
    true
}

fn sanitized_material(m: &Material) -> Material {
    let d = Material::default();
    Material {
        diffuse: m.diffuse.finite_or(d.diffuse),
        specular: m.specular.finite_or(d.specular),
        specular_power: m.specular_power.finite_or(d.specular_power),
        ambient: m.ambient.finite_or(d.ambient),
        edge_color: m.edge_color.finite_or(d.edge_color),
        edge_size: m.edge_size.finite_or(d.edge_size),
        ..m.clone()
    }
}

/// Only the fields the flags make meaningful (the others are not written).
fn bone_uses(b: &Bone, place: &FieldPath) -> bool {
    match place
        .segments()
        .first()
        .and_then(Segment::name)
        .unwrap_or_default()
    {
        "tail_offset" => !b.flags.contains(BoneFlags::TAIL_IS_BONE),
        "append_ratio" => b.has_append(),
        "fixed_axis" => b.flags.contains(BoneFlags::FIXED_AXIS),
        "local_axis_x" | "local_axis_z" => b.flags.contains(BoneFlags::LOCAL_AXES),
        "ik" => b.is_ik(),
        _ => true,
    }
}

fn sanitized_bone(b: &Bone) -> Bone {
    let d = Bone::default();
    let mut bone = Bone {
        position: b.position.finite_or(Vec3::ZERO),
        tail_offset: b.tail_offset.finite_or(Vec3::ZERO),
        append_ratio: b.append_ratio.finite_or(1.0),
        fixed_axis: b.fixed_axis.finite_or(Vec3::ZERO),
        local_axis_x: b.local_axis_x.finite_or(d.local_axis_x),
        local_axis_z: b.local_axis_z.finite_or(d.local_axis_z),
        ..b.clone()
    };
    bone.ik.limit_angle = b.ik.limit_angle.finite_or(Ik::default().limit_angle);
    for link in &mut bone.ik.links {
        if let Some(limits) = &mut link.limits {
            limits.lower = limits.lower.finite_or(Vec3::ZERO);
            limits.upper = limits.upper.finite_or(Vec3::ZERO);
        }
    }
    bone
}

fn sanitized_morph(m: &Morph) -> Morph {
    let mut morph = m.clone();
    match &mut morph.offsets {
        MorphOffsets::Group(l) | MorphOffsets::Flip(l) => {
            for o in l {
                o.ratio = o.ratio.finite_or(0.0);
            }
        }
        MorphOffsets::Vertex(l) => {
            for o in l {
                o.offset = o.offset.finite_or(Vec3::ZERO);
            }
        }
        MorphOffsets::Bone(l) => {
            for o in l {
                o.translation = o.translation.finite_or(Vec3::ZERO);
                if !o.rotation.is_finite() {
                    o.rotation = Vec4::IDENTITY_QUAT;
                }
            }
        }
        MorphOffsets::Uv(l)
        | MorphOffsets::AdditionalUv1(l)
        | MorphOffsets::AdditionalUv2(l)
        | MorphOffsets::AdditionalUv3(l)
        | MorphOffsets::AdditionalUv4(l) => {
            for o in l {
                o.offset = o.offset.finite_or(Vec4::ZERO);
            }
        }
        MorphOffsets::Material(l) => {
            for o in l {
                // Multiply offsets are neutral at 1, add offsets at 0.
                let n = if o.op == MaterialMorphOp::Multiply {
                    1.0
                } else {
                    0.0
                };
                o.diffuse = o.diffuse.finite_or(Vec4::new(n, n, n, n));
                o.specular = o.specular.finite_or(Vec3::new(n, n, n));
                o.specular_power = o.specular_power.finite_or(n);
                o.ambient = o.ambient.finite_or(Vec3::new(n, n, n));
                o.edge_color = o.edge_color.finite_or(Vec4::new(n, n, n, n));
                o.edge_size = o.edge_size.finite_or(n);
                o.texture_tint = o.texture_tint.finite_or(Vec4::new(n, n, n, n));
                o.sphere_tint = o.sphere_tint.finite_or(Vec4::new(n, n, n, n));
                o.toon_tint = o.toon_tint.finite_or(Vec4::new(n, n, n, n));
            }
        }
        MorphOffsets::Impulse(l) => {
            for o in l {
                o.velocity = o.velocity.finite_or(Vec3::ZERO);
                o.torque = o.torque.finite_or(Vec3::ZERO);
            }
        }
    }
    morph
}

fn sanitized_rigid_body(r: &RigidBody) -> RigidBody {
    let d = RigidBody::default();
    RigidBody {
        size: r.size.finite_or(d.size),
        position: r.position.finite_or(d.position),
        rotation: r.rotation.finite_or(d.rotation),
        mass: r.mass.finite_or(d.mass),
        linear_damping: r.linear_damping.finite_or(d.linear_damping),
        angular_damping: r.angular_damping.finite_or(d.angular_damping),
        restitution: r.restitution.finite_or(d.restitution),
        friction: r.friction.finite_or(d.friction),
        ..r.clone()
    }
}

fn sanitized_joint(j: &Joint) -> Joint {
    Joint {
        position: j.position.finite_or(Vec3::ZERO),
        rotation: j.rotation.finite_or(Vec3::ZERO),
        move_lower: j.move_lower.finite_or(Vec3::ZERO),
        move_upper: j.move_upper.finite_or(Vec3::ZERO),
        rotate_lower: j.rotate_lower.finite_or(Vec3::ZERO),
        rotate_upper: j.rotate_upper.finite_or(Vec3::ZERO),
        spring_move: j.spring_move.finite_or(Vec3::ZERO),
        spring_rotate: j.spring_rotate.finite_or(Vec3::ZERO),
        ..j.clone()
    }
}

/// The soft body's floats, by name, for reading and for replacing.
fn soft_body_floats(s: &mut SoftBody) -> [(&'static str, &mut f32); 23] {
    let SoftBody {
        total_mass,
        margin,
        config: c,
        cluster: k,
        stiffness: t,
        ..
    } = s;
    [
        ("total_mass", total_mass),
        ("margin", margin),
        ("config.vcf", &mut c.vcf),
        ("config.dp", &mut c.dp),
        ("config.dg", &mut c.dg),
        ("config.lf", &mut c.lf),
        ("config.pr", &mut c.pr),
        ("config.vc", &mut c.vc),
        ("config.df", &mut c.df),
        ("config.mt", &mut c.mt),
        ("config.chr", &mut c.chr),
        ("config.khr", &mut c.khr),
        ("config.shr", &mut c.shr),
        ("config.ahr", &mut c.ahr),
        ("cluster.srhr_cl", &mut k.srhr_cl),
        ("cluster.skhr_cl", &mut k.skhr_cl),
        ("cluster.sshr_cl", &mut k.sshr_cl),
        ("cluster.sr_splt_cl", &mut k.sr_splt_cl),
        ("cluster.sk_splt_cl", &mut k.sk_splt_cl),
        ("cluster.ss_splt_cl", &mut k.ss_splt_cl),
        ("stiffness.lst", &mut t.lst),
        ("stiffness.ast", &mut t.ast),
        ("stiffness.vst", &mut t.vst),
    ]
}

fn sanitized_soft_body(s: &SoftBody) -> SoftBody {
    let mut copy = s.clone();
    for (_, value) in soft_body_floats(&mut copy) {
        *value = value.finite_or(0.0);
    }
    copy
}

impl Rule for VertexRule {
    fn name(&self) -> &'static str {
        "vertices"
    }

    fn codes(&self) -> &'static [&'static str] {
        &[
            "W-NORMAL-ZERO",
            "W-NORMAL-LENGTH",
            "W-WEIGHT-SUM",
            "W-WEIGHT-NEGATIVE",
            "W-WEIGHT-SAME-BONE",
            "W-WEIGHT-NO-BONE",
            "W-SDEF-PARAMS",
            "I-UV-RANGE",
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
        let num_bones = model.bones.len();
        let classes = memo.vertex_classes(
            model.vertices.len(),
            &[model.vertices.len(), num_bones],
            dirty,
            |i| {
                model
                    .vertices
                    .get(i)
                    .map_or(0, |v| vertex_class(v, num_bones))
            },
        );
        let mut zero_normals = Vec::new();
        let mut long_normals = Vec::new();
        let mut sums = Vec::new();
        let mut negatives = Vec::new();
        let mut same_bones = Vec::new();
        let mut no_bones = Vec::new();
        let mut sdef_params = Vec::new();
        let mut uv_outside = 0usize;
        let mut first_uv_outside = None;
        for (i, &class) in classes.iter().enumerate().filter(|(_, c)| **c != 0) {
            if class & ZERO_NORMAL != 0 {
                zero_normals.push(i);
            } else if class & LONG_NORMAL != 0 {
                long_normals.push(i);
            }
            if class & UV_OUTSIDE != 0 {
                uv_outside += 1;
                first_uv_outside.get_or_insert(i);
            }
            match class & WEIGHT_MASK {
                WEIGHT_SUM => sums.push(i),
                WEIGHT_NEGATIVE => negatives.push(i),
                WEIGHT_SAME_BONE => same_bones.push(i),
                WEIGHT_NO_BONE => no_bones.push(i),
                WEIGHT_SDEF => sdef_params.push(i),
                _ => {}
            }
        }
        let cap = cx.options.max_issues_per_code;
        normal_issues(cx, out, &zero_normals, &long_normals);
        let weight_fix = |vertices: &[usize]| {
            let parts: Vec<FixPart> = vertices
                .iter()
                .filter_map(|&i| model.vertices.get(i).map(|v| (i, v)))
                .map(|(i, v)| {
                    FixPart::set(
                        field::<Vertex>().weight(),
                        i,
                        repaired_weight(&v.weight, num_bones),
                    )
                })
                .collect();
            parts
        };
        let findings = |vertices: &[usize],
                        en: &dyn Fn(usize) -> String,
                        ja: &dyn Fn(usize) -> String,
                        fixable: bool|
         -> Vec<Finding> {
            vertices
                .iter()
                .map(|&i| Finding {
                    path: ModelPath::element(ElementKind::Vertex, i).field("weight"),
                    message_en: en(i),
                    message_ja: ja(i),
                    parts: if fixable {
                        weight_fix(&[i])
                    } else {
                        Vec::new()
                    },
                })
                .collect()
        };
        let weight_label = |n: usize| {
            (
                format!("Repair the weights of {n} vertex(es)"),
                format!("{n}個の頂点のウェイトを修正する"),
            )
        };
        emit_findings(
            out,
            Severity::Warning,
            "W-WEIGHT-SUM",
            findings(
                &sums,
                &|i| {
                    format!(
                        "the weights of vertex {i} sum to {}, not 1",
                        weight_sum(model, i)
                    )
                },
                &|i| {
                    format!(
                        "頂点{i}のウェイトの合計が1ではありません（{}）",
                        weight_sum(model, i)
                    )
                },
                true,
            ),
            cap,
            Some(ModelPath::list(ElementKind::Vertex)),
            (
                "vertex weights do not sum to 1",
                "ウェイトの合計が1ではない頂点",
            ),
            weight_label,
        );
        emit_findings(
            out,
            Severity::Warning,
            "W-WEIGHT-NEGATIVE",
            findings(
                &negatives,
                &|i| {
                    format!(
                        "vertex {i} has a negative weight (or a BDEF2/SDEF weight outside 0..1)"
                    )
                },
                &|i| {
                    format!(
                        "頂点{i}に負のウェイトがあります（またはBDEF2/SDEFのウェイトが0〜1の外です）"
                    )
                },
                true,
            ),
            cap,
            Some(ModelPath::list(ElementKind::Vertex)),
            ("vertices have negative weights", "負のウェイトを持つ頂点"),
            weight_label,
        );
        emit_findings(
            out,
            Severity::Warning,
            "W-WEIGHT-SAME-BONE",
            findings(
                &same_bones,
                &|i| format!("vertex {i} is BDEF2/SDEF with the same bone twice"),
                &|i| format!("頂点{i}はBDEF2/SDEFですが、2つのボーンが同じです"),
                true,
            ),
            cap,
            Some(ModelPath::list(ElementKind::Vertex)),
            (
                "BDEF2/SDEF vertices name the same bone twice",
                "同じボーンを2回使うBDEF2/SDEF頂点",
            ),
            |n| {
                (
                    format!("Make {n} vertex(es) BDEF1"),
                    format!("{n}個の頂点をBDEF1にする"),
                )
            },
        );
        emit_findings(
            out,
            Severity::Warning,
            "W-WEIGHT-NO-BONE",
            findings(
                &no_bones,
                &|i| {
                    format!(
                        "vertex {i} gives weight to bone -1 (none); that part of it does not move"
                    )
                },
                &|i| format!("頂点{i}がボーン -1（なし）にウェイトを割り当てています"),
                num_bones > 0,
            ),
            cap,
            Some(ModelPath::list(ElementKind::Vertex)),
            (
                "vertices give weight to no bone",
                "ボーンなしにウェイトを割り当てている頂点",
            ),
            weight_label,
        );
        let sdef_findings = sdef_params
            .iter()
            .filter_map(|&i| {
                let Weight::Sdef { bones, weight, .. } = model.vertices.get(i)?.weight else {
                    return None;
                };
                Some(Finding {
                    path: ModelPath::element(ElementKind::Vertex, i).field("weight"),
                    message_en: format!(
                        "SDEF vertex {i} has no C/R0/R1 (all zero); it deforms like BDEF2 at best"
                    ),
                    message_ja: format!("SDEF頂点{i}のC/R0/R1がすべて0です"),
                    parts: vec![FixPart::set(
                        field::<Vertex>().weight(),
                        i,
                        Weight::Bdef2 { bones, weight },
                    )],
                })
            })
            .collect();
        emit_findings(
            out,
            Severity::Warning,
            "W-SDEF-PARAMS",
            sdef_findings,
            cap,
            Some(ModelPath::list(ElementKind::Vertex)),
            ("SDEF vertices have no C/R0/R1", "C/R0/R1のないSDEF頂点"),
            |n| {
                (
                    format!("Make {n} SDEF vertex(es) BDEF2"),
                    format!("{n}個のSDEF頂点をBDEF2にする"),
                )
            },
        );
        if let Some(first) = first_uv_outside {
            out.push(Issue::new(
                Severity::Info,
                "I-UV-RANGE",
                ModelPath::element(ElementKind::Vertex, first).field("uv"),
                format!(
                    "{uv_outside} vertex UV(s) lie outside 0..1 (the texture repeats there), first vertex {first}"
                ),
                format!(
                    "{uv_outside}個の頂点のUVが0〜1の外にあります（テクスチャが繰り返されます）。最初は頂点{first}"
                ),
            ));
        }
    }
}

// What `VertexRule` finds in one vertex, as bits (its memo keeps one byte per vertex).
const ZERO_NORMAL: u8 = 1;
const LONG_NORMAL: u8 = 2;
const UV_OUTSIDE: u8 = 4;
/// Bits 3..6: at most one weight finding.
const WEIGHT_MASK: u8 = 0b111 << 3;
const WEIGHT_SUM: u8 = 1 << 3;
const WEIGHT_NEGATIVE: u8 = 2 << 3;
const WEIGHT_SAME_BONE: u8 = 3 << 3;
const WEIGHT_NO_BONE: u8 = 4 << 3;
const WEIGHT_SDEF: u8 = 5 << 3;

/// The findings of `VertexRule` in `vertex` (see the bits above).
fn vertex_class(vertex: &Vertex, num_bones: usize) -> u8 {
    let mut class = 0;
    let n = vertex.normal;
    if n.is_finite() {
        let length_squared = n.x * n.x + n.y * n.y + n.z * n.z;
        if length_squared < 1e-12 {
            class |= ZERO_NORMAL;
        } else if (length_squared - 1.0).abs() > 0.02 {
            class |= LONG_NORMAL;
        }
    }
    let uv = vertex.uv;
    let inside = |t: f32| (-1e-4..=1.0001).contains(&t);
    if uv.is_finite() && !(inside(uv.x) && inside(uv.y)) {
        class |= UV_OUTSIDE;
    }
    let weight = &vertex.weight;
    // Non-finite weights and bones past the end belong to other rules (their fixes come
    // first); checking them here too would fix the same weight twice.
    if !weight_is_finite(weight)
        || weight
            .bones()
            .iter()
            .any(|b| b.is_some_and(|b| b.get() >= num_bones))
    {
        return class;
    }
    let finding = match weight {
        Weight::Bdef1 { bone } => {
            if bone.is_none() {
                WEIGHT_NO_BONE
            } else {
                0
            }
        }
        Weight::Bdef2 { bones, weight } | Weight::Sdef { bones, weight, .. } => {
            if bones[0].is_some() && bones[0] == bones[1] {
                WEIGHT_SAME_BONE
            } else if !(0.0..=1.0).contains(weight) {
                WEIGHT_NEGATIVE
            } else if (bones[0].is_none() && *weight > 1e-6)
                || (bones[1].is_none() && *weight < 1.0 - 1e-6)
            {
                WEIGHT_NO_BONE
            } else if let Weight::Sdef { c, r0, r1, .. } = &vertex.weight
                && *c == Vec3::ZERO
                && *r0 == Vec3::ZERO
                && *r1 == Vec3::ZERO
            {
                WEIGHT_SDEF
            } else {
                0
            }
        }
        Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
            if weights.iter().any(|w| *w < 0.0) {
                WEIGHT_NEGATIVE
            } else if bones
                .iter()
                .zip(weights)
                .any(|(b, w)| b.is_none() && *w > 1e-6)
            {
                WEIGHT_NO_BONE
            } else if (weights.iter().sum::<f32>() - 1.0).abs() > 1e-3 {
                WEIGHT_SUM
            } else {
                0
            }
        }
    };
    class | finding
}

fn weight_sum(model: &Model, i: usize) -> String {
    model.vertices.get(i).map_or_else(String::new, |v| {
        let sum: f32 = v.weight.bone_weights().iter().map(|(_, w)| w).sum();
        format!("{sum}")
    })
}

fn normal_issues(cx: &Context<'_>, out: &mut Vec<Issue>, zero: &[usize], long: &[usize]) {
    let model = cx.model;
    let cap = cx.options.max_issues_per_code;
    if !zero.is_empty() {
        let computed = normals_from_faces(model, zero);
        let findings = zero
            .iter()
            .zip(&computed)
            .map(|(&i, normal)| Finding {
                path: ModelPath::element(ElementKind::Vertex, i).field("normal"),
                message_en: format!("vertex {i} has a zero normal; lighting is undefined there"),
                message_ja: format!("頂点{i}の法線の長さが0です"),
                parts: vec![FixPart::set(field::<Vertex>().normal(), i, *normal)],
            })
            .collect();
        emit_findings(
            out,
            Severity::Warning,
            "W-NORMAL-ZERO",
            findings,
            cap,
            Some(ModelPath::list(ElementKind::Vertex)),
            ("vertices have zero normals", "法線の長さが0の頂点"),
            |n| {
                (
                    format!("Compute {n} normal(s) from the faces"),
                    format!("{n}個の法線を面から計算する"),
                )
            },
        );
    }
    let findings = long
        .iter()
        .filter_map(|&i| model.vertices.get(i).map(|v| (i, v.normal)))
        .map(|(i, n)| {
            let length = (n.x * n.x + n.y * n.y + n.z * n.z).sqrt();
            Finding {
                path: ModelPath::element(ElementKind::Vertex, i).field("normal"),
                message_en: format!("the normal of vertex {i} has length {length}, not 1"),
                message_ja: format!("頂点{i}の法線の長さが1ではありません（{length}）"),
                parts: vec![FixPart::set(
                    field::<Vertex>().normal(),
                    i,
                    Vec3::new(n.x / length, n.y / length, n.z / length),
                )],
            }
        })
        .collect();
    emit_findings(
        out,
        Severity::Warning,
        "W-NORMAL-LENGTH",
        findings,
        cap,
        Some(ModelPath::list(ElementKind::Vertex)),
        ("normals are not unit length", "長さが1でない法線"),
        |n| {
            (
                format!("Normalize {n} normal(s)"),
                format!("{n}個の法線を正規化する"),
            )
        },
    );
}

/// Area-weighted normals of the faces around each of `vertices` ((0, 1, 0) for a vertex no
/// face uses, or whose faces have no area).
fn normals_from_faces(model: &Model, vertices: &[usize]) -> Vec<Vec3> {
    const NONE: u32 = u32::MAX;
    let mut slot = vec![NONE; model.vertices.len()];
    for (k, &v) in vertices.iter().enumerate() {
        if let Some(s) = slot.get_mut(v) {
            *s = k as u32;
        }
    }
    let mut sums = vec![glam::Vec3::ZERO; vertices.len()];
    let position = |v: VertexIdx| {
        model
            .vertices
            .get(v.get())
            .map(|v| glam::Vec3::from(v.position))
    };
    for face in &model.faces {
        let slots = face.map(|v| slot.get(v.get()).copied().unwrap_or(NONE));
        if slots.iter().all(|&s| s == NONE) {
            continue;
        }
        let (Some(a), Some(b), Some(c)) = (position(face[0]), position(face[1]), position(face[2]))
        else {
            continue;
        };
        let normal = (b - a).cross(c - a);
        if !normal.is_finite() {
            continue;
        }
        for s in slots {
            if let Some(sum) = sums.get_mut(s as usize) {
                *sum += normal;
            }
        }
    }
    sums.into_iter()
        .map(|sum| {
            let n = sum.normalize_or_zero();
            if n == glam::Vec3::ZERO {
                Vec3::new(0.0, 1.0, 0.0)
            } else {
                Vec3::from(n)
            }
        })
        .collect()
}

impl Rule for FaceRule {
    fn name(&self) -> &'static str {
        "faces"
    }

    fn reads(&self) -> Reads {
        Reads::EVERYTHING.without(Reads::VERTEX_VALUES)
    }

    fn codes(&self) -> &'static [&'static str] {
        &[
            "E-MATERIAL-FACE-SUM",
            "W-MATERIAL-FACE-SUM",
            "E-MATERIAL-FACE-MULTIPLE",
            "W-FACE-DEGENERATE",
            "W-FACE-DUPLICATE",
            "W-VERTEX-UNUSED",
        ]
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Issue>) {
        let model = cx.model;
        let cap = cx.options.max_issues_per_code;
        face_counts(model, cap, out);
        let (degenerate, duplicates) = degenerate_and_duplicate_faces(model);
        let delete_faces = |faces: &[usize]| {
            faces
                .iter()
                .map(|&f| FixPart::Delete {
                    kind: ElementKind::Face,
                    index: f,
                })
                .collect::<Vec<_>>()
        };
        let face_label = |n: usize| {
            (
                format!("Delete {n} face(s)"),
                format!("{n}個の面を削除する"),
            )
        };
        emit_findings(
            out,
            Severity::Warning,
            "W-FACE-DEGENERATE",
            degenerate
                .iter()
                .map(|&f| Finding {
                    path: ModelPath::element(ElementKind::Face, f),
                    message_en: format!(
                        "face {f} uses the same vertex twice ({:?}); it has no area",
                        model
                            .faces
                            .get(f)
                            .map(|face| face.map(|v| v.0))
                            .unwrap_or_default()
                    ),
                    message_ja: format!("面{f}が同じ頂点を2回使っています（面積がありません）"),
                    parts: delete_faces(&[f]),
                })
                .collect(),
            cap,
            Some(ModelPath::list(ElementKind::Face)),
            ("faces are degenerate", "縮退した面"),
            face_label,
        );
        emit_findings(
            out,
            Severity::Warning,
            "W-FACE-DUPLICATE",
            duplicates
                .iter()
                .map(|&(f, original)| Finding {
                    path: ModelPath::element(ElementKind::Face, f),
                    message_en: format!("face {f} repeats face {original} of the same material"),
                    message_ja: format!("面{f}は同じ材質の面{original}と重複しています"),
                    parts: delete_faces(&[f]),
                })
                .collect(),
            cap,
            Some(ModelPath::list(ElementKind::Face)),
            ("faces are duplicates", "重複した面"),
            face_label,
        );

        let mut used = vec![false; model.vertices.len()];
        for face in &model.faces {
            for v in face {
                if let Some(slot) = used.get_mut(v.get()) {
                    *slot = true;
                }
            }
        }
        let unused: Vec<usize> = used
            .iter()
            .enumerate()
            .filter(|(_, used)| !**used)
            .map(|(v, _)| v)
            .collect();
        emit_findings(
            out,
            Severity::Warning,
            "W-VERTEX-UNUSED",
            unused
                .iter()
                .map(|&v| Finding {
                    path: ModelPath::element(ElementKind::Vertex, v),
                    message_en: format!("vertex {v} is used by no face"),
                    message_ja: format!("頂点{v}はどの面にも使われていません"),
                    parts: vec![FixPart::Delete {
                        kind: ElementKind::Vertex,
                        index: v,
                    }],
                })
                .collect(),
            cap,
            Some(ModelPath::list(ElementKind::Vertex)),
            (
                "vertices are used by no face",
                "どの面にも使われていない頂点",
            ),
            |n| {
                (
                    format!("Delete {n} unused vertex(es)"),
                    format!("未使用の頂点{n}個を削除する"),
                )
            },
        );
    }
}

/// Faces that use a vertex twice (outside PMX 2.1 point and line materials, which draw A-A-A
/// and A-B-A on purpose), and faces that repeat an earlier face of the same material: the same
/// corners with the same winding, whichever corner comes first (the reverse winding is a back
/// face, a common way to make a surface two-sided). Returns (degenerate faces, (duplicate,
/// original) pairs), both sorted.
///
/// Duplicates: each material's faces become 64-bit keys (the three corners packed, the
/// smallest first) sorted by a stable radix sort, O(n) whatever order the faces come in; equal
/// neighbours are duplicates. Models with more than 2^21 vertices, whose corners do not pack
/// into 64 bits, sort (corners, face) tuples instead: O(n log n).
fn degenerate_and_duplicate_faces(model: &Model) -> (Vec<usize>, Vec<(usize, usize)>) {
    const BITS: u32 = 21;
    let num_vertices = model.vertices.len();
    let packable = num_vertices <= 1 << BITS;
    let ranges = model.material_face_ranges();
    let covered = ranges.last().map_or(0, |r| r.end);
    let groups = ranges
        .iter()
        .enumerate()
        .map(|(m, r)| (Some(m), r.clone()))
        .chain(std::iter::once((None, covered..model.faces.len())));
    let mut degenerate = Vec::new();
    let mut duplicates = Vec::new();
    let mut keys: Vec<(u64, u32)> = Vec::new();
    let mut scratch: Vec<(u64, u32)> = Vec::new();
    let mut tuples: Vec<(u32, u32, u32, u32)> = Vec::new();
    for (material, range) in groups {
        let Some(faces) = model.faces.get(range.clone()) else {
            continue;
        };
        let points_or_lines = material
            .and_then(|m| model.materials.get(m))
            .is_some_and(|m| m.draw_flags.intersects(DrawFlags::POINT | DrawFlags::LINE));
        keys.clear();
        tuples.clear();
        for (offset, face) in faces.iter().enumerate() {
            let f = range.start + offset;
            let [a, b, c] = face.map(|v| v.0);
            if a == b || b == c || a == c {
                if !points_or_lines {
                    degenerate.push(f);
                }
                continue;
            }
            let (a, b, c) = if a < b && a < c {
                (a, b, c)
            } else if b < c {
                (b, c, a)
            } else {
                (c, a, b)
            };
            if packable {
                // Corners past the end (reference errors) may not fit 21 bits: they are
                // skipped here, the face is deleted by the reference fix.
                if (c.max(b) as usize) < num_vertices {
                    let key = (u64::from(a) << (2 * BITS)) | (u64::from(b) << BITS) | u64::from(c);
                    keys.push((key, f as u32));
                }
            } else {
                tuples.push((a, b, c, f as u32));
            }
        }
        if packable {
            radix_sort(&mut keys, &mut scratch);
            for pair in keys.windows(2) {
                if pair[0].0 == pair[1].0 {
                    duplicates.push((pair[1].1 as usize, pair[0].1 as usize));
                }
            }
        } else {
            tuples.sort_unstable();
            for pair in tuples.windows(2) {
                if (pair[0].0, pair[0].1, pair[0].2) == (pair[1].0, pair[1].1, pair[1].2) {
                    duplicates.push((pair[1].3 as usize, pair[0].3 as usize));
                }
            }
        }
    }
    // A run of three equal faces gives (2nd, 1st), (3rd, 2nd): each names a face it repeats.
    duplicates.sort_unstable();
    (degenerate, duplicates)
}

/// Stable LSD radix sort by the 64-bit key, 11 bits at a time, over only the bits the largest
/// key uses (60 bits, 6 passes, for a 1,000,000-vertex model).
fn radix_sort(keys: &mut Vec<(u64, u32)>, scratch: &mut Vec<(u64, u32)>) {
    const DIGIT: u32 = 11;
    const BUCKETS: usize = 1 << DIGIT;
    let max = keys.iter().map(|(key, _)| *key).max().unwrap_or(0);
    let bits = u64::BITS - max.leading_zeros();
    scratch.clear();
    scratch.resize(keys.len(), (0, 0));
    let mut counts = vec![0usize; BUCKETS];
    for shift in (0..bits).step_by(DIGIT as usize) {
        let digit = |key: u64| ((key >> shift) as usize) & (BUCKETS - 1);
        counts.fill(0);
        for &(key, _) in keys.iter() {
            counts[digit(key)] += 1;
        }
        let mut sum = 0;
        for count in counts.iter_mut() {
            let c = *count;
            *count = sum;
            sum += c;
        }
        for &entry in keys.iter() {
            let bucket = &mut counts[digit(entry.0)];
            if let Some(slot) = scratch.get_mut(*bucket) {
                *slot = entry;
            }
            *bucket += 1;
        }
        std::mem::swap(keys, scratch);
    }
}

/// Material face counts: each a multiple of 3, together the number of face indices.
/// At most `cap` materials are listed one by one (each issue carries the whole fix, so a
/// damaged file with thousands of odd counts would otherwise hold thousands of copies of it).
fn face_counts(model: &Model, cap: usize, out: &mut Vec<Issue>) {
    let total = model.faces.len() as u64 * 3;
    let sum: u64 = model
        .materials
        .iter()
        .map(|m| u64::from(m.face_index_count))
        .sum();
    let odd: Vec<usize> = model
        .materials
        .iter()
        .enumerate()
        .filter(|(_, m)| m.face_index_count % 3 != 0)
        .map(|(i, _)| i)
        .collect();
    if sum == total && odd.is_empty() {
        return;
    }
    let fix = face_count_fix(model);
    let cap = cap.max(1);
    for &i in odd.iter().take(cap) {
        let m = &model.materials[i];
        out.push(
            Issue::new(
                Severity::Error,
                "E-MATERIAL-FACE-MULTIPLE",
                ModelPath::element(ElementKind::Material, i).field("face_index_count"),
                format!(
                    "material {} draws {} face indices, not a multiple of 3",
                    quoted(&m.name_ja),
                    m.face_index_count
                ),
                format!(
                    "材質{}の面頂点数 {} が3の倍数ではありません",
                    quoted(&m.name_ja),
                    m.face_index_count
                ),
            )
            .with_fix(fix.clone()),
        );
    }
    if odd.len() > cap {
        let rest = odd.len() - cap;
        out.push(
            Issue::new(
                Severity::Error,
                "E-MATERIAL-FACE-MULTIPLE",
                ModelPath::list(ElementKind::Material),
                format!(
                    "and {rest} more materials draw a face index count that is not a multiple of 3"
                ),
                format!("他に{rest}件: 面頂点数が3の倍数でない材質"),
            )
            .with_fix(fix.clone())
            .summing_up(rest),
        );
    }
    if sum != total {
        // More than there are: readers draw past the end of the face list (an error). Fewer:
        // the file loads and the faces no material draws are simply not drawn (a warning).
        let (severity, code, en, ja) = if sum > total {
            (
                Severity::Error,
                "E-MATERIAL-FACE-SUM",
                "more than there are",
                "面頂点数より多くなっています",
            )
        } else {
            (
                Severity::Warning,
                "W-MATERIAL-FACE-SUM",
                "the faces after them are drawn by no material",
                "残りの面はどの材質にも描画されません",
            )
        };
        out.push(
            Issue::new(
                severity,
                code,
                ModelPath::list(ElementKind::Material),
                format!(
                    "the materials draw {sum} face indices but the model has {total} ({} faces): {en}",
                    model.faces.len()
                ),
                format!(
                    "材質の面頂点数の合計 {sum} がモデルの面頂点数 {total}（{}面）と一致しません（{ja}）",
                    model.faces.len()
                ),
            )
            .with_fix(fix),
        );
    }
}

/// Face counts that fit: each material keeps its whole triangles while faces last, the last
/// material takes the faces left over (a new material when there is none).
fn face_count_fix(model: &Model) -> Option<Fix> {
    let total = model.faces.len() as u64 * 3;
    let mut remaining = total;
    let mut counts: Vec<u64> = model
        .materials
        .iter()
        .map(|m| {
            let whole = u64::from(m.face_index_count - m.face_index_count % 3);
            let count = whole.min(remaining);
            remaining -= count;
            count
        })
        .collect();
    let mut ops = Vec::new();
    if remaining > 0 {
        match counts.last_mut() {
            Some(last) => *last += remaining,
            None => {
                ops.push(FixStep::Insert {
                    at: None,
                    elements: crate::edit::Elements::Materials(vec![Material {
                        name_ja: "材質1".into(),
                        name_en: "material1".into(),
                        ..Material::default()
                    }]),
                });
                ops.push(set_op(
                    field::<Material>().face_index_count(),
                    vec![model.materials.len()],
                    u32::try_from(remaining).ok()?,
                ));
            }
        }
    }
    let mut indices = Vec::new();
    let mut values = Vec::new();
    for (i, (m, count)) in model.materials.iter().zip(&counts).enumerate() {
        if u64::from(m.face_index_count) != *count {
            indices.push(i);
            values.push(u32::try_from(*count).ok()?);
        }
    }
    if !indices.is_empty() {
        ops.push(super::util::set_each_op(
            field::<Material>().face_index_count(),
            indices,
            values,
        ));
    }
    (!ops.is_empty()).then(|| {
        Fix::new(
            "Make the material face counts match the faces",
            "材質の面数を面の数に合わせる",
            ops,
        )
    })
}

impl Rule for MaterialRule {
    fn name(&self) -> &'static str {
        "materials"
    }

    fn reads(&self) -> Reads {
        Reads::OUTSIDE_MESH
    }

    fn codes(&self) -> &'static [&'static str] {
        &["W-COLOR-RANGE"]
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Issue>) {
        let unit = |v: f32| !v.is_finite() || (0.0..=1.0).contains(&v);
        for (i, m) in cx.model.materials.iter().enumerate() {
            let mut fields = Vec::new();
            let mut parts = Vec::new();
            let clamp = |v: f32| if v.is_finite() { v.clamp(0.0, 1.0) } else { v };
            if !m.diffuse.to_array().into_iter().all(unit) {
                fields.push("diffuse");
                parts.push(FixPart::set(
                    field::<Material>().diffuse(),
                    i,
                    Vec4::from_array(m.diffuse.to_array().map(clamp)),
                ));
            }
            let material_field = field::<Material>();
            for (name, handle, value) in [
                ("specular", material_field.clone().specular(), m.specular),
                ("ambient", material_field.ambient(), m.ambient),
            ] {
                if !value.to_array().into_iter().all(unit) {
                    fields.push(name);
                    parts.push(FixPart::set(
                        handle,
                        i,
                        Vec3::from_array(value.to_array().map(clamp)),
                    ));
                }
            }
            if !m.edge_color.to_array().into_iter().all(unit) {
                fields.push("edge_color");
                parts.push(FixPart::set(
                    field::<Material>().edge_color(),
                    i,
                    Vec4::from_array(m.edge_color.to_array().map(clamp)),
                ));
            }
            let Some(first) = fields.first() else {
                continue;
            };
            out.push(
                Issue::new(
                    Severity::Warning,
                    "W-COLOR-RANGE",
                    ModelPath::element(ElementKind::Material, i).field(first),
                    format!(
                        "material {} has colour components outside 0..1 ({})",
                        quoted(&m.name_ja),
                        fields.join(", ")
                    ),
                    format!(
                        "材質{}の色に0〜1の範囲外の値があります（{}）",
                        quoted(&m.name_ja),
                        fields.join("・")
                    ),
                )
                .with_fix(Some(Fix::new(
                    "Clamp the colours to 0..1",
                    "色を0〜1に収める",
                    super::util::parts_to_steps(parts),
                ))),
            );
        }
    }
}
