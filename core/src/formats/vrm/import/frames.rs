//! Display frames (表示枠) as MMD's standard models lay them out: Root (全ての親), 表情 (every
//! morph), センター, 体(上), 腕, 指, 体(下), 足, then その他 for every bone that is not one of
//! MMD's standard bones (hair, skirt, accessories). Every bone but the root is in exactly one
//! frame, so the frame panel of MMD and PmxEditor shows them all once.
//!
//! Bones are found by their standard names: the skeleton renames every node that happens to
//! carry one (see `skeleton::build`), so a name here is the standard bone it says.

use super::Importer;
use crate::model::{BoneIdx, DisplayFrame, DisplayItem, MorphIdx};
use std::collections::HashMap;

const SIDES: [&str; 2] = ["左", "右"];

/// The standard frames after Root and 表情: (Japanese name, English name, bone names).
fn standard_frames() -> Vec<(&'static str, &'static str, Vec<String>)> {
    let sided = |stems: &[&str]| -> Vec<String> {
        SIDES
            .iter()
            .flat_map(|side| stems.iter().map(move |stem| format!("{side}{stem}")))
            .collect()
    };
    let plain = |names: &[&str]| -> Vec<String> { names.iter().map(|&n| n.to_owned()).collect() };
    let mut upper_body = plain(&["上半身", "上半身2", "上半身3", "首", "頭", "両目"]);
    upper_body.extend(sided(&["目"]));
    let mut legs = sided(&["足", "ひざ", "足首", "つま先"]);
    legs.extend(sided(&["足ＩＫ", "つま先ＩＫ"]));
    vec![
        ("センター", "Center", plain(&["センター", "グルーブ"])),
        ("体(上)", "Upper body", upper_body),
        ("腕", "Arms", sided(&["肩", "腕", "ひじ", "手首"])),
        (
            "指",
            "Fingers",
            sided(&[
                "親指０",
                "親指１",
                "親指２",
                "人指１",
                "人指２",
                "人指３",
                "中指１",
                "中指２",
                "中指３",
                "薬指１",
                "薬指２",
                "薬指３",
                "小指１",
                "小指２",
                "小指３",
            ]),
        ),
        ("体(下)", "Lower body", plain(&["下半身"])),
        ("足", "Legs", legs),
    ]
}

pub(super) fn build(import: &mut Importer<'_>) {
    let model = &mut import.model;
    let bone_count = model.bones.len();
    let by_name: HashMap<String, usize> = model
        .bones
        .iter()
        .enumerate()
        .map(|(i, bone)| (bone.name_ja.as_str().into_owned(), i))
        .collect();
    let bone_item = |b: usize| DisplayItem::Bone(Some(BoneIdx::new(b)));

    // Root and 表情 are the special frames every PMX has (the model starts with both).
    let mut frames: Vec<DisplayFrame> = Vec::new();
    frames.push(DisplayFrame {
        name_ja: "Root".into(),
        name_en: "Root".into(),
        special: true,
        items: if bone_count > 0 {
            vec![bone_item(0)]
        } else {
            Vec::new()
        },
    });
    frames.push(DisplayFrame {
        name_ja: "表情".into(),
        name_en: "Exp".into(),
        special: true,
        items: (0..model.morphs.len())
            .map(|m| DisplayItem::Morph(Some(MorphIdx::new(m))))
            .collect(),
    });

    let mut placed = vec![false; bone_count];
    if let Some(root) = placed.first_mut() {
        *root = true;
    }
    for (name_ja, name_en, names) in standard_frames() {
        let items: Vec<DisplayItem> = names
            .iter()
            .filter_map(|name| by_name.get(name).copied())
            .filter(|&b| !std::mem::replace(&mut placed[b], true))
            .map(bone_item)
            .collect();
        if !items.is_empty() {
            frames.push(DisplayFrame {
                name_ja: name_ja.into(),
                name_en: name_en.into(),
                special: false,
                items,
            });
        }
    }
    let others: Vec<DisplayItem> = (0..bone_count)
        .filter(|&b| !placed[b])
        .map(bone_item)
        .collect();
    if !others.is_empty() {
        frames.push(DisplayFrame {
            name_ja: "その他".into(),
            name_en: "Others".into(),
            special: false,
            items: others,
        });
    }
    model.display_frames = frames;
}

#[cfg(test)]
mod tests {
    use super::standard_frames;

    #[test]
    fn standard_frames_name_each_bone_once() {
        let mut seen = std::collections::HashSet::new();
        for (_, _, names) in standard_frames() {
            for name in names {
                assert!(seen.insert(name.clone()), "{name} is in two frames");
            }
        }
        assert!(seen.contains("左人指１"));
        assert!(seen.contains("右つま先ＩＫ"));
    }
}
