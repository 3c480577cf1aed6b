//! 準標準ボーン (semi-standard bones): the bones MMD motions made for today's models key but
//! older models lack (全ての親, 操作中心, グルーブ, 腰, 上半身2, 肩P/肩C, 腕捩/手捩, 親指０,
//! 足IK親, 足D/ひざD/足首D/足先EX, 両目), each added only when the model does not have it, placed
//! and wired as PmxEditor's 準標準ボーンプラグイン (by そぼろ) does: the same positions,
//! flags, layers, parents, weight rules, rigid body moves and display frame places.
//!
//! The groups run in the plugin's order, each one step built on the model as the earlier ones
//! leave it. What a group needs is checked on the model as it is, so the notes say before the
//! run what will be added and what is skipped, and why. Not made: the plugin's 手持ちアクセサリ
//! 用ダミー (a prop holder, not a bone motions key); made beyond the plugin: 両目.

mod groups;
mod work;

use crate::api::{
    EditBatch, Needs, Plugin, PluginContext, PluginError, PluginGroup, PluginInfo, PluginOutput,
};
use crate::options::{OptionSpec, Options};
use groups::{Side, Twist};
use pmx_core::Model;
use work::{Work, bone_named};

/// 準標準ボーン追加.
#[derive(Debug, Clone, Copy)]
pub struct SemiStandardBones;

/// The option keys, one per group, in the plugin's order.
const ARM_TWIST: &str = "arm_twist";
const WRIST_TWIST: &str = "wrist_twist";
const UPPER_BODY_2: &str = "upper_body_2";
const WAIST: &str = "waist";
const LEG_IK_PARENT: &str = "leg_ik_parent";
const LEG_D: &str = "leg_d";
const SHOULDER_P: &str = "shoulder_p";
const THUMB0: &str = "thumb0";
const GROOVE: &str = "groove";
const EYES: &str = "eyes";
const MASTER: &str = "master";
const VIEW_CENTER: &str = "view_center";
/// Settings of the groups.
const ELBOW_OFFSET: &str = "elbow_offset";
const LEG_D_OPERABLE: &str = "leg_d_operable";
const THUMB_LOCAL_AXES: &str = "thumb_local_axes";
const DISPLAY_FRAMES: &str = "display_frames";

impl Plugin for SemiStandardBones {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "semi_standard_bones".to_owned(),
            group: PluginGroup::Bones,
            name_ja: "準標準ボーン追加".to_owned(),
            name_en: "Add semi-standard bones".to_owned(),
            description_ja: "モデルにない準標準ボーン(全ての親・操作中心・グルーブ・腰・上半身2・肩P・腕捩・手捩・親指０・足IK親・足D・両目)を、準標準ボーンプラグインと同じ位置・設定で追加し、ウェイト・剛体・表示枠を移します。既にあるボーンはそのままです。".to_owned(),
            description_en: "Adds the semi-standard bones the model lacks (master, view center, groove, waist, upper body 2, shoulder P, arm and wrist twist, thumb 0, leg IK parent, leg D-bones, eyes) where and as the semi-standard bone plugin makes them, moving weights, rigid bodies and display frame items to them. Existing bones are left alone.".to_owned(),
            version: "1.0".to_owned(),
            needs: Needs::Nothing,
            options: vec![
                OptionSpec::bool(ARM_TWIST, "腕捩", "Arm twist (腕捩, 腕捩1-3)", true),
                OptionSpec::bool(ELBOW_OFFSET, "回転自動補正(腕捩の軸をひじの奥行きに合わせる)", "Elbow offset (the arm twist axis follows the arm's depth)", true),
                OptionSpec::bool(WRIST_TWIST, "手捩", "Wrist twist (手捩, 手捩1-3)", true),
                OptionSpec::bool(UPPER_BODY_2, "上半身2", "Upper body 2 (上半身2)", true),
                OptionSpec::bool(WAIST, "腰(腰キャンセル)", "Waist (腰, 腰キャンセル)", true),
                OptionSpec::bool(LEG_IK_PARENT, "足IK親", "Leg IK parent (足IK親)", true),
                OptionSpec::bool(LEG_D, "足D・足先EX", "Leg D-bones and toes (足D, ひざD, 足首D, 足先EX)", true),
                OptionSpec::bool(LEG_D_OPERABLE, "足Dボーンを操作可能に", "Make the leg D-bones operable", false),
                OptionSpec::bool(SHOULDER_P, "肩P(肩C)", "Shoulder P (肩P, 肩C)", true),
                OptionSpec::bool(THUMB0, "親指０", "Thumb 0 (親指０)", true),
                OptionSpec::bool(THUMB_LOCAL_AXES, "親指ローカル軸設定", "Thumb local axes", true),
                OptionSpec::bool(GROOVE, "グルーブ", "Groove (グルーブ)", true),
                OptionSpec::bool(EYES, "両目", "Both eyes (両目)", true),
                OptionSpec::bool(MASTER, "全ての親", "Master (全ての親)", true),
                OptionSpec::bool(VIEW_CENTER, "操作中心", "View center (操作中心)", true),
                OptionSpec::bool(DISPLAY_FRAMES, "ボーン表示枠に自動登録", "List the new bones in the display frames", true),
            ],
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let model = cx.model;
        if model.bones.is_empty() {
            return Err(PluginError::refused(
                "the model has no bones to add semi-standard bones to",
                "ボーンがないため準標準ボーンを追加できません",
            ));
        }
        let mut plan = Plan {
            model,
            options: cx.options,
            batch: EditBatch::new(),
            added: Vec::new(),
            existing: Vec::new(),
            output: PluginOutput::default(),
            lacking: false,
        };
        plan.all();
        let Plan {
            batch,
            added,
            existing,
            mut output,
            lacking,
            ..
        } = plan;
        if !existing.is_empty() {
            let list = existing.join(", ");
            let list_ja = existing.join("・");
            output.notes.insert(
                0,
                crate::api::Note::new(
                    format!("already there, left alone: {list}"),
                    format!("既にあるため変更なし: {list_ja}"),
                ),
            );
        }
        if batch.is_empty() {
            if lacking {
                let (en, ja): (Vec<String>, Vec<String>) = output
                    .notes
                    .iter()
                    .map(|note| (note.en.clone(), note.ja.clone()))
                    .unzip();
                return Err(PluginError::refused(
                    format!("no semi-standard bone could be added: {}", en.join("; ")),
                    format!("追加できる準標準ボーンがありません: {}", ja.join(" / ")),
                ));
            }
            return Err(PluginError::NoChange);
        }
        output.notes.insert(
            0,
            crate::api::Note::new(
                format!("added {} bones: {}", added.len(), added.join(", ")),
                format!("ボーンを{}個追加: {}", added.len(), added.join("・")),
            ),
        );
        output.batch = batch;
        Ok(output)
    }
}

/// What the run will do, checked on the model as it is.
struct Plan<'a> {
    model: &'a Model,
    options: &'a Options,
    batch: EditBatch,
    /// The bones that will be added, in order.
    added: Vec<String>,
    /// Bones of the enabled groups the model has already.
    existing: Vec<String>,
    output: PluginOutput,
    /// Whether a group was skipped for want of the bones it is built on.
    lacking: bool,
}

impl Plan<'_> {
    fn has(&self, name: &str) -> bool {
        bone_named(self.model, name).is_some()
    }

    /// Whether the group whose bones are `made` (the first one names it) should be built: it
    /// is enabled, none of its bones exists, and every bone in `needs` does. Notes a skip.
    /// `aliases`: other spellings of the bones that count as present (左親指0 for 左親指０).
    fn check(&mut self, key: &str, made: &[String], aliases: &[String], needs: &[String]) -> bool {
        if !self.options.bool(key) {
            return false;
        }
        let present: Vec<&String> = made
            .iter()
            .chain(aliases)
            .filter(|name| self.has(name))
            .collect();
        if !present.is_empty() {
            self.existing.extend(present.into_iter().cloned());
            return false;
        }
        let missing: Vec<&String> = needs.iter().filter(|name| !self.has(name)).collect();
        if !missing.is_empty() {
            let what = made.first().map_or("", String::as_str);
            let missing_list: Vec<&str> = missing.iter().map(|name| name.as_str()).collect();
            self.output.note(
                format!(
                    "{what} skipped: the model has no {}",
                    missing_list.join(", ")
                ),
                format!(
                    "「{what}」は追加しません: 必要な「{}」ボーンがありません",
                    missing_list.join("」「")
                ),
            );
            self.lacking = true;
            return false;
        }
        self.added.extend(made.iter().cloned());
        true
    }

    fn build(
        &mut self,
        what: String,
        build: impl FnOnce(&mut Work<'_>) -> Result<(), pmx_core::edit::EditError> + Send + 'static,
    ) {
        let label = what.clone();
        let note = match what.strip_prefix("add ") {
            Some(names) => crate::api::Note::new(what.clone(), format!("{names}を追加")),
            None => crate::api::Note::from(what),
        };
        self.batch.push_build(note, move |model| {
            let mut work = Work::new(model);
            build(&mut work)?;
            Ok(work.finish(&label))
        });
    }

    fn all(&mut self) {
        let frames = self.options.bool(DISPLAY_FRAMES);
        for (key, name, en, upper, lower, helper_en, elbow) in [
            (
                ARM_TWIST,
                "腕捩",
                "arm twist",
                "腕",
                "ひじ",
                "arm twist",
                true,
            ),
            (
                WRIST_TWIST,
                "手捩",
                "wrist twist",
                "ひじ",
                "手首",
                "wrist twist",
                false,
            ),
        ] {
            for side in Side::BOTH {
                let s = side.ja();
                let made: Vec<String> = std::iter::once(format!("{s}{name}"))
                    .chain((1..=3).map(|i| format!("{s}{name}{i}")))
                    .collect();
                let needs = [format!("{s}{upper}"), format!("{s}{lower}")];
                if self.check(key, &made, &[], &needs) {
                    let twist = Twist {
                        name_ja: made[0].clone(),
                        name_en: format!("{en}_{}", side.en()),
                        upper: needs[0].clone(),
                        lower: needs[1].clone(),
                        helper_en,
                        side,
                        elbow_offset: elbow && self.options.bool(ELBOW_OFFSET),
                        frames,
                    };
                    self.build(format!("add {}", made.join(", ")), move |work| {
                        groups::twist(work, &twist)
                    });
                }
            }
        }

        let made = ["上半身2".to_owned()];
        if self.check(UPPER_BODY_2, &made, &[], &["上半身".into(), "首".into()]) {
            self.build("add 上半身2".into(), move |work| {
                groups::upper_body_2(work, frames)
            });
        }

        self.waist(frames);

        for side in Side::BOTH {
            let s = side.ja();
            let ik = groups::leg_ik_name(self.model, side).unwrap_or(format!("{s}足ＩＫ"));
            let made = [format!("{s}足IK親"), format!("{s}足ＩＫ親")];
            if self.check(LEG_IK_PARENT, &made[..1], &made[1..], &[ik]) {
                self.build(format!("add {}", made[0]), move |work| {
                    groups::leg_ik_parent(work, side, frames)
                });
            }
        }

        for side in Side::BOTH {
            let s = side.ja();
            let made = [
                format!("{s}足D"),
                format!("{s}ひざD"),
                format!("{s}足首D"),
                format!("{s}足先EX"),
            ];
            let toe = [
                format!("{s}つま先ＩＫ"),
                format!("{s}つま先IK"),
                format!("{s}つま先"),
            ]
            .into_iter()
            .find(|name| self.has(name))
            .unwrap_or(format!("{s}つま先ＩＫ"));
            let needs = [
                format!("{s}足"),
                format!("{s}ひざ"),
                format!("{s}足首"),
                toe,
            ];
            if self.check(LEG_D, &made, &[], &needs) {
                let operable = self.options.bool(LEG_D_OPERABLE);
                self.build(format!("add {}", made.join(", ")), move |work| {
                    groups::leg_d(work, side, operable, frames)
                });
            }
        }

        for side in Side::BOTH {
            let s = side.ja();
            let made = [format!("{s}肩P"), format!("{s}肩C")];
            if self.check(
                SHOULDER_P,
                &made,
                &[],
                &[format!("{s}肩"), format!("{s}腕")],
            ) {
                self.build(format!("add {}", made.join(", ")), move |work| {
                    groups::shoulder(work, side, frames)
                });
            }
        }

        for side in Side::BOTH {
            let s = side.ja();
            let made = [format!("{s}親指０"), format!("{s}親指0")];
            if self.check(
                THUMB0,
                &made[..1],
                &made[1..],
                &[format!("{s}手首"), format!("{s}親指１")],
            ) {
                let axes = self.options.bool(THUMB_LOCAL_AXES);
                self.build(format!("add {}", made[0]), move |work| {
                    groups::thumb0(work, side, axes, frames)
                });
            }
        }

        if self.check(GROOVE, &["グルーブ".into()], &[], &["センター".into()]) {
            self.build("add グルーブ".into(), move |work| {
                groups::groove(work, frames)
            });
        }

        if self.check(
            EYES,
            &["両目".into()],
            &[],
            &["頭".into(), "左目".into(), "右目".into()],
        ) {
            self.build("add 両目".into(), move |work| groups::eyes(work, frames));
        }

        if self.check(MASTER, &["全ての親".into()], &[], &[]) {
            self.build("add 全ての親".into(), move |work| {
                groups::master(work, frames)
            });
        }

        if self.check(VIEW_CENTER, &["操作中心".into()], &[], &[]) {
            self.build("add 操作中心".into(), move |work| {
                groups::view_center(work, frames)
            });
        }
    }

    /// 腰 and, with it, the 腰キャンセル of each leg that has none.
    fn waist(&mut self, frames: bool) {
        let lower_body_parent = bone_named(self.model, "下半身")
            .and_then(|bone| self.model.bones[bone].parent)
            .filter(|parent| parent.get() < self.model.bones.len());
        let leg = if self.has("右足") {
            "右足"
        } else {
            "左足"
        };
        let mut needs = vec!["下半身".to_owned(), leg.to_owned()];
        if self.has("下半身") && lower_body_parent.is_none() {
            // 腰 goes between 下半身 and its parent.
            needs.push("下半身の親".to_owned());
        }
        let cancels: Vec<String> = Side::BOTH
            .iter()
            .filter(|side| self.has(&format!("{}足", side.ja())))
            .map(|side| format!("腰キャンセル{}", side.ja()))
            .filter(|name| !self.has(name))
            .collect();
        let made: Vec<String> = std::iter::once("腰".to_owned()).chain(cancels).collect();
        if self.check(WAIST, &made[..1], &[], &needs) {
            self.added.extend(made[1..].iter().cloned());
            self.build(format!("add {}", made.join(", ")), move |work| {
                groups::waist(work, frames)
            });
        }
    }
}
