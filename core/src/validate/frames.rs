//! Display frame rules: the special Root and 表情 frames present and first (MikuMikuDance shows
//! frames 0 and 1 as Root and 表情), and bones and morphs that are in no frame (they cannot be
//! keyed from the frame list). Items pointing at nothing are reference errors (see
//! `references`).

use super::util::{quoted, set_op};
use super::{Context, Fix, FixStep, Issue, Reads, Rule, Severity};
use crate::edit::{Elements, field};
use crate::model::*;

#[derive(Debug)]
pub(crate) struct DisplayFrameRule;

use crate::model::facts::{EXPRESSION_FRAME as EXPRESSIONS, ROOT_FRAME as ROOT};
use crate::path::ModelPath;

impl Rule for DisplayFrameRule {
    fn name(&self) -> &'static str {
        "display frames"
    }

    fn reads(&self) -> Reads {
        Reads::OUTSIDE_MESH
    }

    fn codes(&self) -> &'static [&'static str] {
        &[
            "W-FRAME-ROOT",
            "W-FRAME-EXP",
            "I-FRAME-BONE-MISSING",
            "I-FRAME-MORPH-MISSING",
        ]
    }

    fn check(&self, cx: &Context<'_>, out: &mut Vec<Issue>) {
        let model = cx.model;
        let frames = &model.display_frames;
        let root = model.intended_special_frame(ROOT);
        let expressions = model.intended_special_frame(EXPRESSIONS);
        if let Some(issue) = special_issue(model, root, 0) {
            out.push(issue);
        }
        // The 表情 frame's fix assumes Root is in place: one structural fix per round.
        if root == Some(0)
            && frames.first().is_some_and(|f| f.special)
            && let Some(issue) = special_issue(model, expressions, 1)
        {
            out.push(issue);
        }
        missing_items(cx, out);
    }
}

fn special_issue(model: &Model, found: Option<usize>, place: usize) -> Option<Issue> {
    let (code, name, name_en) = if place == 0 {
        ("W-FRAME-ROOT", ROOT, "Root")
    } else {
        ("W-FRAME-EXP", EXPRESSIONS, "Exp")
    };
    let frames = &model.display_frames;
    let (en, ja, fix) = match found {
        Some(index) if index == place => {
            if frames.get(index).is_some_and(|f| f.special) {
                return None;
            }
            (
                format!("the {name} frame is not marked special"),
                format!("{name}枠が特殊枠になっていません"),
                Fix::new(
                    format!("Mark the {name} frame special"),
                    format!("{name}枠を特殊枠にする"),
                    vec![set_op(field::<DisplayFrame>().special(), vec![index], true)],
                ),
            )
        }
        Some(index) => {
            let mut ops = vec![FixStep::MoveTo {
                kind: ElementKind::DisplayFrame,
                indices: vec![index],
                to: place,
            }];
            if !frames.get(index).is_some_and(|f| f.special) {
                ops.push(set_op(field::<DisplayFrame>().special(), vec![place], true));
            }
            (
                format!("the {name} frame is frame {index}; it must be frame {place}"),
                format!("{name}枠が{index}番目にあります（{place}番目である必要があります）"),
                Fix::new(
                    format!("Move the {name} frame to position {place}"),
                    format!("{name}枠を{place}番目に移動する"),
                    ops,
                ),
            )
        }
        None => {
            // Root holds the root bone (bone 0) when no other frame has it; 表情 starts empty
            // (the morph rule then offers to add the morphs).
            let mut items = Vec::new();
            if place == 0
                && !model.bones.is_empty()
                && !frames
                    .iter()
                    .any(|f| f.items.contains(&DisplayItem::Bone(Some(BoneIdx::new(0)))))
            {
                items.push(DisplayItem::Bone(Some(BoneIdx::new(0))));
            }
            let frame = DisplayFrame {
                name_ja: name.into(),
                name_en: name_en.into(),
                special: true,
                items,
            };
            (
                format!("the special {name} frame is missing"),
                format!("特殊枠「{name}」がありません"),
                Fix::new(
                    format!("Add the {name} frame"),
                    format!("{name}枠を追加する"),
                    vec![FixStep::Insert {
                        at: Some(place.min(frames.len())),
                        elements: Elements::DisplayFrames(vec![frame]),
                    }],
                ),
            )
        }
    };
    Some(
        Issue::new(
            Severity::Warning,
            code,
            found.map_or_else(
                || ModelPath::list(ElementKind::DisplayFrame),
                |i| ModelPath::element(ElementKind::DisplayFrame, i),
            ),
            en,
            ja,
        )
        .with_fix(Some(fix)),
    )
}

/// Bones (visible and operable ones: the others are not meant to be keyed) and morphs that no
/// frame lists. The fix appends bones to the last ordinary frame (a new one when there is
/// none) and morphs to the 表情 frame.
fn missing_items(cx: &Context<'_>, out: &mut Vec<Issue>) {
    let model = cx.model;
    let frames = &model.display_frames;
    // One rule for what belongs in a frame, shared with the frame editor.
    let bones = model.unlisted_bones();
    let morphs = model.unlisted_morphs();
    let cap = cx.options.max_issues_per_code.max(1);

    if !bones.is_empty() {
        let items: Vec<DisplayItem> = bones
            .iter()
            .map(|&b| DisplayItem::Bone(Some(BoneIdx::new(b))))
            .collect();
        let ordinary = frames.iter().rposition(|f| !f.special);
        let fix = match ordinary {
            Some(frame) => {
                let mut all = frames[frame].items.clone();
                all.extend(items);
                Fix::new(
                    format!(
                        "Add {} bone(s) to frame {}",
                        bones.len(),
                        quoted(&frames[frame].name_ja)
                    ),
                    format!(
                        "{}個のボーンを表示枠{}に追加する",
                        bones.len(),
                        quoted(&frames[frame].name_ja)
                    ),
                    vec![set_op(field::<DisplayFrame>().items(), vec![frame], all)],
                )
            }
            None => Fix::new(
                format!("Add {} bone(s) to a new frame", bones.len()),
                format!("{}個のボーンを新しい表示枠に追加する", bones.len()),
                vec![FixStep::Insert {
                    at: None,
                    elements: Elements::DisplayFrames(vec![DisplayFrame {
                        name_ja: "その他".into(),
                        name_en: "Others".into(),
                        special: false,
                        items,
                    }]),
                }],
            ),
        };
        push_missing(
            out,
            "I-FRAME-BONE-MISSING",
            &bones,
            cap,
            |b| {
                let name = model
                    .bones
                    .get(b)
                    .map_or_else(String::new, |bone| quoted(&bone.name_ja).into_owned());
                (
                    ModelPath::element(ElementKind::Bone, b),
                    format!(
                        "bone {name} is in no display frame; it cannot be keyed from the frame list"
                    ),
                    format!("ボーン{name}はどの表示枠にも入っていません"),
                )
            },
            (
                "bones are in no display frame",
                "表示枠に入っていないボーン",
            ),
            &fix,
        );
    }
    if !morphs.is_empty() {
        let expressions = frames
            .get(1)
            .filter(|f| f.special && f.name_ja.as_str() == EXPRESSIONS);
        // Without the 表情 frame in place, its own rule comes first.
        let fix = expressions.map(|frame| {
            let mut all = frame.items.clone();
            all.extend(
                morphs
                    .iter()
                    .map(|&m| DisplayItem::Morph(Some(MorphIdx::new(m)))),
            );
            Fix::new(
                format!("Add {} morph(s) to the 表情 frame", morphs.len()),
                format!("{}個のモーフを表情枠に追加する", morphs.len()),
                vec![set_op(field::<DisplayFrame>().items(), vec![1], all)],
            )
        });
        let fix_ref = fix.as_ref();
        let describe = |m: usize| {
            let name = model
                .morphs
                .get(m)
                .map_or_else(String::new, |morph| quoted(&morph.name_ja).into_owned());
            (
                ModelPath::element(ElementKind::Morph, m),
                format!(
                    "morph {name} is in no display frame; it cannot be keyed from the frame list"
                ),
                format!("モーフ{name}はどの表示枠にも入っていません"),
            )
        };
        match fix_ref {
            Some(fix) => push_missing(
                out,
                "I-FRAME-MORPH-MISSING",
                &morphs,
                cap,
                describe,
                (
                    "morphs are in no display frame",
                    "表示枠に入っていないモーフ",
                ),
                fix,
            ),
            None => {
                for &m in morphs.iter().take(cap) {
                    let (path, en, ja) = describe(m);
                    out.push(Issue::new(
                        Severity::Info,
                        "I-FRAME-MORPH-MISSING",
                        path,
                        en,
                        ja,
                    ));
                }
            }
        }
    }
}

/// One issue per element (up to `cap`, then a summary), all with the same fix (which adds all
/// of them at once; `repair` applies it once).
fn push_missing(
    out: &mut Vec<Issue>,
    code: &'static str,
    elements: &[usize],
    cap: usize,
    describe: impl Fn(usize) -> (ModelPath, String, String),
    summary: (&str, &str),
    fix: &Fix,
) {
    for &e in elements.iter().take(cap) {
        let (path, en, ja) = describe(e);
        out.push(Issue::new(Severity::Info, code, path, en, ja).with_fix(Some(fix.clone())));
    }
    if elements.len() > cap {
        let rest = elements.len() - cap;
        out.push(
            Issue::new(
                Severity::Info,
                code,
                ModelPath::list(ElementKind::DisplayFrame),
                format!("and {rest} more: {}", summary.0),
                format!("他に{rest}件: {}", summary.1),
            )
            .with_fix(Some(fix.clone()))
            .summing_up(rest),
        );
    }
}
