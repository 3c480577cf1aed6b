//! Version rules: PMX 2.1 features in a model saved as PMX 2.0.
//!
//! Which features are 2.1-only is decided in one place, [`pmx21_features`] (the writer refuses
//! a 2.0 target with the same list). The fix converts the feature down, keeping the file 2.0
//! (what MikuMikuDance reads): QDEF → BDEF4, other joint kinds → spring 6DOF, 2.1 material
//! flags cleared, flip/impulse morphs and soft bodies deleted (each listed by the repair
//! report). Raising the version to 2.1 is offered as the alternative.

use super::util::{delete_op, set_op};
use super::{Context, Fix, Issue, Reads, Rule, Severity, Target};
use crate::edit::field;
use crate::formats::pmx::{Pmx21Feature, Pmx21Use, pmx21_features};
use crate::model::{
    DrawFlags, ElementKind, Header, Joint, JointKind, Material, MorphKind, PmxVersion, Vertex,
    Weight,
};
use crate::path::ModelPath;

#[derive(Debug)]
pub(crate) struct VersionRule;

impl Rule for VersionRule {
    fn name(&self) -> &'static str {
        "version"
    }

    fn reads(&self) -> Reads {
        Reads::OUTSIDE_MESH.with(Reads::VERTEX_WEIGHTS)
    }

    fn codes(&self) -> &'static [&'static str] {
        &["E-VERSION-FEATURE"]
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Issue>) {
        if cx.target != Target::Pmx(PmxVersion::V2_0) {
            return;
        }
        let cap = cx.options.max_issues_per_code.max(1);
        let (qdef_uses, found): (Vec<Pmx21Use>, Vec<Pmx21Use>) = pmx21_features(cx.model)
            .into_iter()
            .partition(|used| used.feature == Pmx21Feature::QdefWeight);
        // A 1,000,000-vertex model may have as many QDEF vertices: list the first ones, fix
        // the rest in one summary issue.
        let qdef: Vec<usize> = qdef_uses
            .iter()
            .filter_map(|used| used.path.element_of().map(|(_, index)| index))
            .collect();
        let raise = Fix::new(
            "Raise the version to PMX 2.1",
            "バージョンをPMX 2.1に上げる",
            vec![set_op(
                field::<Header>().version(),
                Vec::new(),
                PmxVersion::V2_1,
            )],
        );
        for (used, &vertex) in qdef_uses.into_iter().zip(&qdef).take(cap) {
            out.push(
                Issue::new(
                    Severity::Error,
                    "E-VERSION-FEATURE",
                    used.path,
                    "QDEF weights are PMX 2.1; this model is PMX 2.0",
                    "QDEFウェイトはPMX 2.1の機能ですが、このモデルはPMX 2.0です",
                )
                .with_fix(qdef_fix(cx, &[vertex]))
                .with_alternative(raise.clone()),
            );
        }
        if qdef.len() > cap {
            let rest = &qdef[cap..];
            out.push(
                Issue::new(
                    Severity::Error,
                    "E-VERSION-FEATURE",
                    ModelPath::list(ElementKind::Vertex),
                    format!("{} more vertices use QDEF weights (PMX 2.1)", rest.len()),
                    format!("他に{}個の頂点がQDEF（PMX 2.1）を使っています", rest.len()),
                )
                .with_fix(qdef_fix(cx, rest))
                .with_alternative(raise.clone())
                .summing_up(rest.len()),
            );
        }
        for used in found {
            let Some((_, index)) = used.path.element_of() else {
                continue;
            };
            let (message_en, message_ja, fix) = match used.feature {
                Pmx21Feature::DrawFlags(_) => {
                    let flags = cx
                        .model
                        .materials
                        .get(index)
                        .map_or(DrawFlags::empty(), |m| m.draw_flags);
                    (
                        format!(
                            "draw flags 0x{:02x} (vertex colour / point / line) are PMX 2.1",
                            (flags & DrawFlags::PMX21_ONLY).bits()
                        ),
                        "描画フラグ 頂点色/点描画/線描画 はPMX 2.1の機能です".to_owned(),
                        Fix::new(
                            "Clear the PMX 2.1 draw flags",
                            "PMX 2.1の描画フラグを外す",
                            vec![set_op(
                                field::<Material>().draw_flags(),
                                vec![index],
                                flags - DrawFlags::PMX21_ONLY,
                            )],
                        ),
                    )
                }
                Pmx21Feature::Morph(kind) => {
                    let what = if kind == MorphKind::Flip {
                        "flip"
                    } else {
                        "impulse"
                    };
                    (
                        format!("{what} morphs are PMX 2.1"),
                        format!("{what}モーフはPMX 2.1の機能です"),
                        Fix::new(
                            format!("Delete the {what} morph"),
                            format!("{what}モーフを削除する"),
                            vec![delete_op(ElementKind::Morph, vec![index])],
                        ),
                    )
                }
                // The text names no kind: it is the one `check --json` and the golden files
                // have always given (the path names the joint).
                Pmx21Feature::Joint(_) => (
                    "joint kind  is PMX 2.1; PMX 2.0 has only the spring 6DOF".to_owned(),
                    "ジョイントの種類がPMX 2.1の機能です（PMX 2.0はバネ付6DOFのみ）".to_owned(),
                    Fix::new(
                        "Make the joint a spring 6DOF",
                        "ジョイントをバネ付6DOFにする",
                        vec![set_op(
                            field::<Joint>().kind(),
                            vec![index],
                            JointKind::Spring6Dof,
                        )],
                    ),
                ),
                Pmx21Feature::SoftBody => (
                    "soft bodies are PMX 2.1".to_owned(),
                    "ソフトボディはPMX 2.1の機能です".to_owned(),
                    Fix::new(
                        "Delete the soft body",
                        "ソフトボディを削除する",
                        vec![delete_op(ElementKind::SoftBody, vec![index])],
                    ),
                ),
                Pmx21Feature::QdefWeight => continue,
            };
            out.push(
                Issue::new(
                    Severity::Error,
                    "E-VERSION-FEATURE",
                    used.path,
                    format!("{message_en}; this model is PMX 2.0"),
                    format!("{message_ja}。このモデルはPMX 2.0です"),
                )
                .with_fix(Some(fix))
                .with_alternative(raise.clone()),
            );
        }
    }
}

/// QDEF → BDEF4 with the same bones and weights (dual-quaternion skinning becomes linear).
fn qdef_fix(cx: &Context<'_>, vertices: &[usize]) -> Option<Fix> {
    let mut indices = Vec::with_capacity(vertices.len());
    let mut values = Vec::with_capacity(vertices.len());
    for &i in vertices {
        if let Some(Weight::Qdef { bones, weights }) = cx.model.vertices.get(i).map(|v| &v.weight) {
            indices.push(i);
            values.push(Weight::Bdef4 {
                bones: *bones,
                weights: *weights,
            });
        }
    }
    if indices.is_empty() {
        return None;
    }
    let count = indices.len();
    Some(Fix::new(
        format!("Convert {count} QDEF weight(s) to BDEF4"),
        format!("QDEFウェイト{count}個をBDEF4に変換する"),
        vec![super::util::set_each_op(
            field::<Vertex>().weight(),
            indices,
            values,
        )],
    ))
}
