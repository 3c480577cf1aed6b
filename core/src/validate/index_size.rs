//! Index-size rules: for a file as read, each header index size against the element count it
//! must address. The rule is [`index_size_fits`], the one the writer uses to choose sizes, so
//! the two never disagree.

use super::util::set_op;
use super::{Context, Fix, Issue, Reads, Rule, Severity};
use crate::model::Header;
use crate::model::{IndexSizes, index_size_fits};
use crate::path::ModelPath;

#[derive(Debug)]
pub(crate) struct IndexSizeRule;

impl Rule for IndexSizeRule {
    fn name(&self) -> &'static str {
        "index sizes"
    }

    fn reads(&self) -> Reads {
        Reads::OUTSIDE_MESH
    }

    fn codes(&self) -> &'static [&'static str] {
        &["E-INDEX-SIZE"]
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Issue>) {
        // Sizes matter for a file as read; a model edited since gets sizes that fit on save.
        if cx.report.is_none() {
            return;
        }
        let model = cx.model;
        let Some(sizes) = model.header.index_sizes else {
            return;
        };
        let minimal = IndexSizes::minimal_for(model);
        let kinds = [
            ("vertex", "頂点", sizes.vertex, model.vertices.len(), true),
            (
                "texture",
                "テクスチャ",
                sizes.texture,
                model.textures.len(),
                false,
            ),
            (
                "material",
                "材質",
                sizes.material,
                model.materials.len(),
                false,
            ),
            ("bone", "ボーン", sizes.bone, model.bones.len(), false),
            ("morph", "モーフ", sizes.morph, model.morphs.len(), false),
            (
                "rigid_body",
                "剛体",
                sizes.rigid_body,
                model.rigid_bodies.len(),
                false,
            ),
        ];
        for (field, name_ja, size, count, unsigned) in kinds {
            if index_size_fits(size, count, unsigned) {
                continue;
            }
            let range = if unsigned {
                match size {
                    1 => "0..=255",
                    2 => "0..=65535",
                    _ => "0..=2147483647",
                }
            } else {
                match size {
                    1 => "-1..=127",
                    2 => "-1..=32767",
                    _ => "-1..=2147483647",
                }
            };
            let signed_en = if unsigned { "unsigned" } else { "signed" };
            let signed_ja = if unsigned {
                "符号なし"
            } else {
                "符号あり"
            };
            out.push(
                Issue::new(
                    Severity::Error,
                    "E-INDEX-SIZE",
                    ModelPath::header().field("index_sizes").field(field),
                    format!(
                        "the {field} index size is {size} byte(s) ({signed_en}, {range}), too small for {count} elements; indices past it were misread"
                    ),
                    format!(
                        "{name_ja}Indexサイズ {size} バイト（{signed_ja}）では{count}個の要素を参照できません。範囲外のIndexは誤って読み込まれています"
                    ),
                )
                .with_fix(Some(Fix::new(
                    "Use index sizes that fit the element counts",
                    "要素数に合うIndexサイズにする",
                    vec![set_op(crate::edit::field::<Header>().index_sizes(), Vec::new(), Some(minimal))],
                ))),
            );
        }
    }
}
