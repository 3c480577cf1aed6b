//! The morph tools of ツール > モーフ: a vertex morph from another model or from the pose, a
//! morph split into its left and right halves, a mirrored or symmetric morph, and a group
//! morph of the selected morphs. Each tool only reads its options and the selection and
//! queues the `pmx_core` op of the same name (`core/src/edit/morph_tools.rs` holds the
//! arithmetic), so the editor, `pmx-studio run`, edit scripts and Rhai scripts agree.

use crate::api::{
    EditBatch, Needs, Plugin, PluginContext, PluginError, PluginGroup, PluginInfo, PluginOutput,
};
use crate::options::{OptionSpec, Options};
use pmx_core::edit::{
    DEFAULT_THRESHOLD, Edit, EditOp, GroupMember, GroupMorph, MirrorMode, MirrorMorph, MirrorSide,
    MorphFromModel, MorphFromPose, MorphRef, NewMorph, PanelChoice, SplitMorph, plan_mirror,
    plan_split,
};
use pmx_core::model::{ElementKind, Model};
use std::collections::BTreeMap;
use std::path::PathBuf;

const VERSION: &str = "1.0";

fn panel_option() -> OptionSpec {
    OptionSpec::choice(
        "panel",
        "パネル",
        "Panel",
        "other",
        vec![
            ("eye", "目", "Eye"),
            ("eyebrow", "眉", "Eyebrow"),
            ("mouth", "口", "Mouth"),
            ("other", "その他", "Other"),
        ],
    )
}

fn name_option(default: &str) -> OptionSpec {
    OptionSpec::text("name", "モーフ名", "Morph name", default)
}

fn threshold_option() -> OptionSpec {
    OptionSpec::number(
        "threshold",
        "最小移動量",
        "Smallest offset kept",
        f64::from(DEFAULT_THRESHOLD),
        0.0,
        1000.0,
        "",
    )
}

/// The new morph's name and panel from the options (an empty name is refused).
fn new_morph(options: &Options) -> Result<NewMorph, PluginError> {
    let name = options.text("name").trim().to_owned();
    if name.is_empty() {
        return Err(PluginError::refused(
            "give the new morph a name",
            "新しいモーフの名前を入力してください",
        ));
    }
    Ok(NewMorph {
        name,
        name_en: String::new(),
        panel: PanelChoice::parse(options.text("panel")).unwrap_or_default(),
    })
}

fn threshold(options: &Options) -> f32 {
    options.number("threshold") as f32
}

fn info(
    id: &str,
    (name_ja, name_en): (&str, &str),
    (description_ja, description_en): (&str, &str),
    needs: Needs,
    options: Vec<OptionSpec>,
) -> PluginInfo {
    PluginInfo {
        id: id.to_owned(),
        group: PluginGroup::Morphs,
        name_ja: name_ja.to_owned(),
        name_en: name_en.to_owned(),
        description_ja: description_ja.to_owned(),
        description_en: description_en.to_owned(),
        version: VERSION.to_owned(),
        needs,
        options,
    }
}

/// The selected morphs, last first: a step inserts its morphs after its source, so the
/// morphs before it keep their indices for the steps still to come.
fn selected_morphs_last_first(cx: &PluginContext<'_>) -> Vec<usize> {
    let mut morphs: Vec<usize> = cx
        .selection
        .get(ElementKind::Morph)
        .iter()
        .copied()
        .filter(|&m| m < cx.model.morphs.len())
        .collect();
    morphs.sort_unstable();
    morphs.dedup();
    morphs.reverse();
    morphs
}

fn morph_name(model: &Model, morph: usize) -> String {
    model
        .morphs
        .get(morph)
        .map(|m| m.name_ja.as_str().into_owned())
        .unwrap_or_default()
}

/// モデルからモーフ: `{"model": "PATH", "name": "NAME", "panel": "other", "threshold":
/// 0.00001}`.
#[derive(Debug, Default, Clone, Copy)]
pub struct MorphFromModelTool;

impl Plugin for MorphFromModelTool {
    fn info(&self) -> PluginInfo {
        info(
            "morph_from_model",
            ("モデルからモーフ", "Morph from model"),
            (
                "頂点の数と順番が同じ別のモデル（PMX、PMDなど）との頂点位置の差を、新しい頂点モーフにします。最小移動量以下の差は入れません。頂点数が違うモデルは使えません。",
                "Makes a new vertex morph of the difference to another model file (PMX, PMD, ...) with the same vertices in the same order; differences no longer than the smallest offset are left out. A model with another vertex count is refused.",
            ),
            Needs::Nothing,
            vec![
                OptionSpec::text("model", "モデルファイル", "Model file", ""),
                name_option("新規モーフ"),
                panel_option(),
                threshold_option(),
            ],
        )
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let path = cx.options.text("model").trim().to_owned();
        if path.is_empty() {
            return Err(PluginError::refused(
                "give the model file to take the morph from",
                "モーフの元になるモデルファイルを指定してください",
            ));
        }
        let new = new_morph(cx.options)?;
        let mut output = PluginOutput::new(EditBatch::new()).with_note(
            format!("new vertex morph \"{}\" from {path}", new.name),
            format!("{}から新しい頂点モーフ「{}」", path, new.name),
        );
        output.batch.push_op(EditOp::MorphFromModel(MorphFromModel {
            model: PathBuf::from(path),
            name: new.name,
            name_en: new.name_en,
            panel: new.panel,
            threshold: threshold(cx.options),
        }));
        Ok(output)
    }
}

/// ポーズからモーフ: `{"vpd": "PATH", "name": "NAME", "panel": "other", "threshold":
/// 0.00001}`; without a VPD, the pose the host shows.
#[derive(Debug, Default, Clone, Copy)]
pub struct MorphFromPoseTool;

impl Plugin for MorphFromPoseTool {
    fn info(&self) -> PluginInfo {
        info(
            "morph_from_pose",
            ("ポーズからモーフ", "Morph from pose"),
            (
                "VPDファイルのポーズ（指定がなければポーズ欄の現在のポーズ）で動いた頂点位置と初期位置の差を、新しい頂点モーフにします。",
                "Makes a new vertex morph of the posed vertex positions minus the rest positions, for the pose of a VPD file or, without one, the pose pane's current pose.",
            ),
            Needs::Nothing,
            vec![
                OptionSpec::text(
                    "vpd",
                    "VPDファイル（空: 現在のポーズ）",
                    "VPD file (empty: the current pose)",
                    "",
                ),
                name_option("ポーズモーフ"),
                panel_option(),
                threshold_option(),
            ],
        )
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let new = new_morph(cx.options)?;
        let threshold = threshold(cx.options);
        let vpd = cx.options.text("vpd").trim().to_owned();
        let mut output = PluginOutput::new(EditBatch::new());
        if !vpd.is_empty() {
            output.note(
                format!("new vertex morph \"{}\" from the pose of {vpd}", new.name),
                format!("{vpd}のポーズから新しい頂点モーフ「{}」", new.name),
            );
            output.batch.push_op(EditOp::MorphFromPose(MorphFromPose {
                vpd: Some(PathBuf::from(vpd)),
                morphs: BTreeMap::new(),
                bones: BTreeMap::new(),
                name: new.name,
                name_en: new.name_en,
                panel: new.panel,
                threshold,
            }));
            return Ok(output);
        }
        let Some(pose) = cx.pose.filter(|pose| !pose.is_rest()) else {
            return Err(PluginError::refused(
                "no pose to make a morph of: pose the model in the pose pane, or give a VPD file",
                "モーフにするポーズがありません。ポーズ欄でポーズを付けるか、VPDファイルを指定してください",
            ));
        };
        output.note(
            format!("new vertex morph \"{}\" from the current pose", new.name),
            format!("現在のポーズから新しい頂点モーフ「{}」", new.name),
        );
        let pose = pose.clone();
        output.batch.push_build(
            ("morph from the current pose", "現在のポーズからモーフ"),
            move |model| Edit::morph_from_pose(model, &pose, &new, threshold),
        );
        Ok(output)
    }
}

/// モーフ分割: `{"suffix_left": "左", "suffix_right": "右", "blend_width": 0.5}` on the
/// selected morphs.
#[derive(Debug, Default, Clone, Copy)]
pub struct SplitMorphTool;

impl Plugin for SplitMorphTool {
    fn info(&self) -> PluginInfo {
        info(
            "split_morph",
            ("モーフ分割（左右）", "Split morph (left/right)"),
            (
                "選択した頂点・UVモーフを、モデルの左半分（+X）と右半分（−X）の2つの新しいモーフに分けて元のモーフの直後に追加します（元のモーフは残ります）。中央の幅の範囲では、頂点のX座標に比例して両方に分けます。2つを足すと元のモーフになります。",
                "Splits each selected vertex or UV morph into two new morphs right after it, the model's left half (+X) and right half (−X); the morph itself is kept. Within the blend band around the centre each offset is shared by the vertex's X. The halves add up to the original.",
            ),
            Needs::Selected(ElementKind::Morph),
            vec![
                OptionSpec::text("suffix_left", "左の接尾辞", "Left suffix", "左"),
                OptionSpec::text("suffix_right", "右の接尾辞", "Right suffix", "右"),
                OptionSpec::number(
                    "blend_width",
                    "中央の幅",
                    "Blend width",
                    0.5,
                    0.0,
                    1000.0,
                    "",
                ),
            ],
        )
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let mut output = PluginOutput::new(EditBatch::new());
        let template = SplitMorph {
            morph: MorphRef::Index(0),
            suffix_left: cx.options.text("suffix_left").to_owned(),
            suffix_right: cx.options.text("suffix_right").to_owned(),
            blend_width: cx.options.number("blend_width") as f32,
        };
        for morph in selected_morphs_last_first(cx) {
            let split = SplitMorph {
                morph: MorphRef::Index(morph),
                ..template.clone()
            };
            let [left, right] = plan_split(cx.model, morph, &split).map_err(refusal)?;
            let source = morph_name(cx.model, morph);
            let (left_name, right_name) = (left.name_ja.as_str(), right.name_ja.as_str());
            let (left_count, right_count) = (left.offsets.len(), right.offsets.len());
            output.note(
                format!(
                    "\"{source}\" → \"{left_name}\" ({left_count} offsets), \"{right_name}\" ({right_count} offsets)"
                ),
                format!(
                    "「{source}」→「{left_name}」（オフセット{left_count}個）、「{right_name}」（オフセット{right_count}個）"
                ),
            );
            output.batch.push_op(EditOp::SplitMorph(split));
        }
        Ok(output)
    }
}

/// A refusal of the model as it is (a morph of a kind the tool does not handle), in the
/// words of the edit error.
fn refusal(error: pmx_core::edit::EditError) -> PluginError {
    let text = error.to_string();
    PluginError::refused(text.clone(), text)
}

/// モーフミラー: `{"mode": "mirror_copy" | "symmetrize", "tolerance": 0.001, "from": "left" |
/// "right"}` on the selected vertex morphs.
#[derive(Debug, Default, Clone, Copy)]
pub struct MirrorMorphTool;

impl Plugin for MirrorMorphTool {
    fn info(&self) -> PluginInfo {
        info(
            "mirror_morph",
            ("モーフミラー", "Mirror morph"),
            (
                "選択した頂点モーフの左右反転コピー（名前の左↔右を入れ替えた新しいモーフ。同じ名前の頂点モーフがあればそのオフセットを置き換え）を作るか、片側のオフセットを反対側に写して左右対称にします。ミラー位置（−X）の頂点は許容誤差の範囲で探します。",
                "Makes the mirrored copy of each selected vertex morph (a new morph with 左↔右 swapped in its name, or the existing vertex morph of that name gets the offsets), or makes the morph symmetric from one side. A vertex's mirror is the vertex at (−x, y, z) within the tolerance.",
            ),
            Needs::Selected(ElementKind::Morph),
            vec![
                OptionSpec::choice(
                    "mode",
                    "方法",
                    "Mode",
                    "mirror_copy",
                    vec![
                        ("mirror_copy", "反転コピー", "Mirrored copy"),
                        ("symmetrize", "左右対称化", "Symmetrize"),
                    ],
                ),
                OptionSpec::number("tolerance", "許容誤差", "Tolerance", 0.001, 0.0, 10.0, ""),
                OptionSpec::choice(
                    "from",
                    "対称化の元",
                    "Symmetrize from",
                    "left",
                    vec![
                        ("left", "左（+X）", "Left (+X)"),
                        ("right", "右（−X）", "Right (−X)"),
                    ],
                ),
            ],
        )
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let mode = match cx.options.text("mode") {
            "symmetrize" => MirrorMode::Symmetrize,
            _ => MirrorMode::MirrorCopy,
        };
        let from = match cx.options.text("from") {
            "right" => MirrorSide::Right,
            _ => MirrorSide::Left,
        };
        let tolerance = cx.options.number("tolerance") as f32;
        let mut output = PluginOutput::new(EditBatch::new());
        for morph in selected_morphs_last_first(cx) {
            let mirror = MirrorMorph {
                morph: MorphRef::Index(morph),
                mode,
                tolerance,
                from,
            };
            let plan = plan_mirror(cx.model, &mirror).map_err(refusal)?;
            for (en, ja) in plan.notes() {
                output.note(en, ja);
            }
            output.batch.push_op(EditOp::MirrorMorph(mirror));
        }
        Ok(output)
    }
}

/// 選択モーフからグループモーフ: `{"name": "NAME", "panel": "other"}`: a group morph of the
/// selected morphs, each at its value in the host's pose, or 1 where the host has no pose or
/// the value there is 0 (a group of morphs at 0 would do nothing).
#[derive(Debug, Default, Clone, Copy)]
pub struct GroupMorphFromSelectionTool;

impl Plugin for GroupMorphFromSelectionTool {
    fn info(&self) -> PluginInfo {
        info(
            "group_morph_from_selection",
            ("選択モーフからグループモーフ", "Group morph from selection"),
            (
                "選択したモーフを、ポーズ欄の現在の値を比率にした新しいグループモーフにまとめます（値が0のモーフとポーズがない場合は比率1）。",
                "Makes a new group morph of the selected morphs, each with its current value in the pose pane as its ratio (1 where the value is 0 or there is no pose).",
            ),
            Needs::Selected(ElementKind::Morph),
            vec![name_option("グループ"), panel_option()],
        )
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let new = new_morph(cx.options)?;
        let mut morphs = selected_morphs_last_first(cx);
        morphs.reverse();
        let members: Vec<GroupMember> = morphs
            .iter()
            .map(|&morph| {
                let value = cx
                    .pose
                    .and_then(|pose| pose.morphs.get(morph).copied())
                    .filter(|value| *value != 0.0 && value.is_finite());
                GroupMember {
                    morph: MorphRef::Index(morph),
                    ratio: value.unwrap_or(1.0),
                }
            })
            .collect();
        let from_pose = members.iter().filter(|m| m.ratio != 1.0).count();
        let mut output = PluginOutput::new(EditBatch::new()).with_note(
            format!(
                "new group morph \"{}\" of {} morphs ({from_pose} ratios from the pose, the others 1)",
                new.name,
                members.len()
            ),
            format!(
                "新しいグループモーフ「{}」: モーフ{}個（比率はポーズの値{from_pose}個、ほかは1）",
                new.name,
                members.len()
            ),
        );
        output
            .batch
            .push_op(EditOp::GroupMorphFromSelection(GroupMorph {
                name: new.name,
                name_en: new.name_en,
                panel: new.panel,
                morphs: members,
            }));
        Ok(output)
    }
}
