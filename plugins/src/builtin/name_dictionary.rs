//! MikuMikuDance's standard names in Japanese and English, and the rules that translate the
//! names the tables do not hold.
//!
//! The English names are the ones MMD's own models and PmxEditor's English names use for the
//! standard bones (`arm_L`, `leg IK_R`, `upper body2`), the standard morphs (`blink`, `a`),
//! display frames (`Exp`, `Body[u]`) and common material words. Sided bones are stored once,
//! without their side: MMD writes the side as a 左/右 prefix in Japanese (a suffix for a few,
//! like 腰キャンセル右) and as an `_L`/`_R` suffix in English, before a D/EX marker
//! (`leg_LD`).
//!
//! Names the tables do not hold are translated by parts ([`translate_parts`]) only when every
//! part is a known word or plain ASCII, so a guess never lands in a model; English → Japanese
//! uses the tables only.

/// Which table a name is looked up in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    Bone,
    Morph,
    Material,
    Frame,
}

/// Bones without a side: (Japanese as MMD writes it, English).
pub const BONES: &[(&str, &str)] = &[
    ("全ての親", "master"),
    ("操作中心", "view cnt"),
    ("センター", "center"),
    ("センター先", "center end"),
    ("グルーブ", "groove"),
    ("腰", "waist"),
    ("上半身", "upper body"),
    ("上半身2", "upper body2"),
    ("上半身3", "upper body3"),
    ("上半身先", "upper body end"),
    ("下半身", "lower body"),
    ("下半身先", "lower body end"),
    ("首", "neck"),
    ("頭", "head"),
    ("頭先", "head end"),
    ("両目", "eyes"),
    ("両目先", "eyes end"),
];

/// A sided bone: its Japanese stem, English stem, what English puts after the side
/// (`leg` + `_L` + `D`), and whether Japanese puts the side last (腰キャンセル右).
#[derive(Debug, Clone, Copy)]
pub struct SidedBone {
    pub ja: &'static str,
    pub en: &'static str,
    pub en_after_side: &'static str,
    pub ja_side_last: bool,
}

const fn sided(ja: &'static str, en: &'static str) -> SidedBone {
    SidedBone {
        ja,
        en,
        en_after_side: "",
        ja_side_last: false,
    }
}

const fn sided_d(ja: &'static str, en: &'static str, after: &'static str) -> SidedBone {
    SidedBone {
        ja,
        en,
        en_after_side: after,
        ja_side_last: false,
    }
}

/// Bones with a side, without it.
pub const SIDED_BONES: &[SidedBone] = &[
    sided("目", "eye"),
    sided("目先", "eye end"),
    sided("肩P", "shoulderP"),
    sided("肩C", "shoulderC"),
    sided("肩", "shoulder"),
    sided("腕", "arm"),
    sided("腕捩", "arm twist"),
    sided("腕捩1", "arm twist1"),
    sided("腕捩2", "arm twist2"),
    sided("腕捩3", "arm twist3"),
    sided("ひじ", "elbow"),
    sided("手捩", "wrist twist"),
    sided("手捩1", "wrist twist1"),
    sided("手捩2", "wrist twist2"),
    sided("手捩3", "wrist twist3"),
    sided("手首", "wrist"),
    sided("手先", "wrist end"),
    sided("ダミー", "dummy"),
    sided("親指０", "thumb0"),
    sided("親指１", "thumb1"),
    sided("親指２", "thumb2"),
    sided("親指先", "thumb end"),
    sided("人指１", "fore1"),
    sided("人指２", "fore2"),
    sided("人指３", "fore3"),
    sided("人指先", "fore end"),
    sided("中指１", "middle1"),
    sided("中指２", "middle2"),
    sided("中指３", "middle3"),
    sided("中指先", "middle end"),
    sided("薬指１", "third1"),
    sided("薬指２", "third2"),
    sided("薬指３", "third3"),
    sided("薬指先", "third end"),
    sided("小指１", "little1"),
    sided("小指２", "little2"),
    sided("小指３", "little3"),
    sided("小指先", "little end"),
    sided("足", "leg"),
    sided("ひざ", "knee"),
    sided("足首", "ankle"),
    sided("つま先", "toe"),
    sided("足ＩＫ", "leg IK"),
    sided("つま先ＩＫ", "toe IK"),
    sided("足ＩＫ親", "leg IK parent"),
    sided_d("足D", "leg", "D"),
    sided_d("ひざD", "knee", "D"),
    sided_d("足首D", "ankle", "D"),
    sided_d("足先EX", "toe", "EX"),
    SidedBone {
        ja: "腰キャンセル",
        en: "waist cancel",
        en_after_side: "",
        ja_side_last: true,
    },
];

/// Morphs: MMD's standard expression names.
pub const MORPHS: &[(&str, &str)] = &[
    ("まばたき", "blink"),
    ("笑い", "smile"),
    ("ウィンク", "wink"),
    ("ウィンク２", "wink2"),
    ("ｳｨﾝｸ", "wink"),
    ("ｳｨﾝｸ２", "wink2"),
    ("はぅ", "close><"),
    ("なごみ", "calm"),
    ("びっくり", "surprise"),
    ("じと目", "spite"),
    ("ジト目", "spite"),
    ("ｷﾘｯ", "sharp"),
    ("キリッ", "sharp"),
    ("星目", "star eyes"),
    ("はぁと", "heart"),
    ("瞳小", "small pupil"),
    ("瞳大", "big pupil"),
    ("恐ろしい子！", "scary"),
    ("ハイライト消", "highlight off"),
    ("映り込み消", "reflection off"),
    ("見開き", "wide eyes"),
    ("白目", "white eyes"),
    ("真面目", "serious"),
    ("困る", "sadness"),
    ("困り", "troubled"),
    ("にこり", "cheerful"),
    ("怒り", "anger"),
    ("上", "go up"),
    ("下", "go down"),
    ("前", "go forward"),
    ("あ", "a"),
    ("い", "i"),
    ("う", "u"),
    ("え", "e"),
    ("お", "o"),
    ("ワ", "wa"),
    ("ん", "n"),
    ("∧", "∧"),
    ("ω", "omega"),
    ("ω□", "omega box"),
    ("▲", "triangle"),
    ("はんっ！", "hmph"),
    ("えー", "eh"),
    ("にやり", "grin"),
    ("にっこり", "beam"),
    ("ぺろっ", "tongue out"),
    ("口角上げ", "mouth corner up"),
    ("口角下げ", "mouth corner down"),
    ("口横広げ", "mouth wide"),
    ("照れ", "blush"),
    ("青ざめ", "pale"),
    ("涙", "tears"),
    ("驚き", "surprised"),
];

/// Display frames (MMD's English frame names).
pub const FRAMES: &[(&str, &str)] = &[
    ("Root", "Root"),
    ("表情", "Exp"),
    ("センター", "Center"),
    ("ＩＫ", "IK"),
    ("体(上)", "Body[u]"),
    ("体(下)", "Body[l]"),
    ("髪", "Hair"),
    ("腕", "Arms"),
    ("指", "Fingers"),
    ("足", "Legs"),
    ("目", "Eyes"),
    ("顔", "Face"),
    ("胸", "Chest"),
    ("服", "Clothes"),
    ("スカート", "Skirt"),
    ("物理", "Physics"),
    ("その他", "Other"),
];

/// Common material names.
pub const MATERIALS: &[(&str, &str)] = &[
    ("肌", "skin"),
    ("髪", "hair"),
    ("前髪", "bangs"),
    ("後髪", "back hair"),
    ("顔", "face"),
    ("目", "eye"),
    ("白目", "eye white"),
    ("瞳", "pupil"),
    ("眉", "eyebrow"),
    ("まゆ", "eyebrow"),
    ("まつげ", "eyelash"),
    ("睫毛", "eyelash"),
    ("口", "mouth"),
    ("口内", "mouth inside"),
    ("歯", "teeth"),
    ("舌", "tongue"),
    ("体", "body"),
    ("服", "clothes"),
    ("上着", "jacket"),
    ("シャツ", "shirt"),
    ("スカート", "skirt"),
    ("靴", "shoes"),
    ("靴下", "socks"),
    ("帽子", "hat"),
    ("手袋", "gloves"),
    ("リボン", "ribbon"),
    ("ネクタイ", "necktie"),
    ("ベルト", "belt"),
    ("髪飾り", "hair ornament"),
    ("ハイライト", "highlight"),
    ("影", "shadow"),
    ("頬", "cheek"),
    ("表情", "expression"),
    ("眼鏡", "glasses"),
    ("メガネ", "glasses"),
];

/// Words for translation by parts (any category).
pub const WORDS: &[(&str, &str)] = &[
    ("先", "end"),
    ("親", "parent"),
    ("上", "upper"),
    ("下", "lower"),
    ("前", "front"),
    ("後", "back"),
    ("後ろ", "back"),
    ("横", "side"),
    ("中", "mid"),
    ("内", "inner"),
    ("外", "outer"),
    ("左", "left"),
    ("右", "right"),
    ("髪", "hair"),
    ("毛", "hair"),
    ("前髪", "bangs"),
    ("後髪", "back hair"),
    ("横髪", "side hair"),
    ("アホ毛", "ahoge"),
    ("あほ毛", "ahoge"),
    ("もみあげ", "sideburn"),
    ("おさげ", "pigtail"),
    ("スカート", "skirt"),
    ("クローク", "cloak"),
    ("ケープ", "cape"),
    ("マント", "mantle"),
    ("リボン", "ribbon"),
    ("ネクタイ", "necktie"),
    ("袖", "sleeve"),
    ("裾", "hem"),
    ("襟", "collar"),
    ("胸", "chest"),
    ("乳", "breast"),
    ("尻", "hip"),
    ("腹", "belly"),
    ("腰", "waist"),
    ("首", "neck"),
    ("頭", "head"),
    ("顔", "face"),
    ("目", "eye"),
    ("眼", "eye"),
    ("瞳", "pupil"),
    ("眉", "brow"),
    ("口", "mouth"),
    ("唇", "lip"),
    ("舌", "tongue"),
    ("歯", "teeth"),
    ("耳", "ear"),
    ("鼻", "nose"),
    ("頬", "cheek"),
    ("肩", "shoulder"),
    ("腕", "arm"),
    ("ひじ", "elbow"),
    ("手首", "wrist"),
    ("手", "hand"),
    ("指", "finger"),
    ("親指", "thumb"),
    ("人指", "fore"),
    ("人差指", "fore"),
    ("中指", "middle"),
    ("薬指", "third"),
    ("小指", "little"),
    ("足首", "ankle"),
    ("足", "leg"),
    ("ひざ", "knee"),
    ("膝", "knee"),
    ("つま先", "toe"),
    ("捩", "twist"),
    ("連", "link"),
    ("補助", "helper"),
    ("補", "helper"),
    ("ダミー", "dummy"),
    ("物理", "physics"),
    ("飾り", "ornament"),
    ("服", "clothes"),
    ("靴", "shoes"),
    ("帽子", "hat"),
    ("肌", "skin"),
    ("体", "body"),
    ("紐", "string"),
    ("鎖", "chain"),
    ("尻尾", "tail"),
    ("しっぽ", "tail"),
    ("猫耳", "cat ears"),
    ("イヤリング", "earring"),
    ("ピアス", "piercing"),
    ("ネックレス", "necklace"),
    ("眼鏡", "glasses"),
    ("メガネ", "glasses"),
    ("ハイライト", "highlight"),
    ("影", "shadow"),
    ("光", "light"),
    ("表情", "expression"),
    ("材質", "material"),
    ("中心", "center"),
    ("センター", "center"),
    ("調整", "adjust"),
    ("制御", "control"),
    ("回転", "rotation"),
    ("移動", "move"),
    ("軸", "axis"),
    ("根元", "root"),
    ("先端", "tip"),
    ("まばたき", "blink"),
    ("ウィンク", "wink"),
    ("笑い", "smile"),
    ("・", " "),
];

/// A name folded for lookups: full-width ASCII to ASCII (ＩＫ → IK, １ → 1), the ideographic
/// space to a space, trimmed.
#[must_use]
pub fn normalize(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
            '\u{3000}' => ' ',
            other => other,
        })
        .collect::<String>()
        .trim()
        .to_owned()
}

/// A side: left or right.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

impl Side {
    fn ja(self) -> char {
        match self {
            Side::Left => '左',
            Side::Right => '右',
        }
    }

    fn en(self) -> &'static str {
        match self {
            Side::Left => "_L",
            Side::Right => "_R",
        }
    }
}

/// Splits a 左/右 prefix (else a suffix) off a normalized Japanese name.
fn split_side_ja(name: &str) -> Option<(Side, &str, bool)> {
    let side_of = |c: char| match c {
        '左' => Some(Side::Left),
        '右' => Some(Side::Right),
        _ => None,
    };
    let first = name.chars().next()?;
    if let Some(side) = side_of(first) {
        let rest = &name[first.len_utf8()..];
        return (!rest.is_empty()).then_some((side, rest, false));
    }
    let last = name.chars().next_back()?;
    let side = side_of(last)?;
    let rest = &name[..name.len() - last.len_utf8()];
    (!rest.is_empty()).then_some((side, rest, true))
}

fn lookup<'a>(table: &'a [(&'static str, &'static str)], key: &str) -> Option<&'a str> {
    table
        .iter()
        .find(|(ja, _)| normalize(ja) == key)
        .map(|(_, en)| *en)
}

fn table(category: Category) -> &'static [(&'static str, &'static str)] {
    match category {
        Category::Bone => BONES,
        Category::Morph => MORPHS,
        Category::Material => MATERIALS,
        Category::Frame => FRAMES,
    }
}

/// The English name of a Japanese name from the built-in tables and rules, if it is safe.
#[must_use]
pub fn japanese_to_english(name: &str, category: Category) -> Option<String> {
    let key = normalize(name);
    if key.is_empty() {
        return None;
    }
    if let Some(en) = lookup(table(category), &key) {
        return Some(en.to_owned());
    }
    if let Some((side, stem, _)) = split_side_ja(&key) {
        if category == Category::Bone
            && let Some(bone) = SIDED_BONES.iter().find(|b| normalize(b.ja) == stem)
        {
            return Some(format!("{}{}{}", bone.en, side.en(), bone.en_after_side));
        }
        if let Some(en) = lookup(table(category), stem) {
            return Some(format!("{en}{}", side.en()));
        }
        if category == Category::Bone
            && let Some(en) = lookup(BONES, stem)
        {
            return Some(format!("{en}{}", side.en()));
        }
        return translate_parts(stem).map(|en| format!("{en}{}", side.en()));
    }
    translate_parts(&key)
}

/// A normalized name translated word by word: every part must be a known word ([`WORDS`],
/// longest first) or ASCII; `None` otherwise.
#[must_use]
pub fn translate_parts(name: &str) -> Option<String> {
    let mut words: Vec<(&str, &str)> = WORDS.to_vec();
    words.sort_by_key(|(ja, _)| std::cmp::Reverse(ja.chars().count()));
    let mut tokens: Vec<(String, bool)> = Vec::new();
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii() {
            let end = rest
                .char_indices()
                .find(|(_, c)| !c.is_ascii())
                .map_or(rest.len(), |(i, _)| i);
            tokens.push((rest[..end].to_owned(), false));
            rest = &rest[end..];
            continue;
        }
        let (ja, en) = words.iter().find(|(ja, _)| rest.starts_with(ja))?;
        tokens.push(((*en).to_owned(), true));
        rest = &rest[ja.len()..];
    }
    if !tokens.iter().any(|(_, word)| *word) {
        return None;
    }
    let mut out = String::new();
    for (text, word) in tokens {
        let text = if word { text } else { text.trim().to_owned() };
        if text.trim().is_empty() {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
            continue;
        }
        let glued = !word && text.starts_with(|c: char| c.is_ascii_digit() || c == '_' || c == '.');
        if !out.is_empty() && !out.ends_with(' ') && !glued {
            out.push(' ');
        }
        out.push_str(&text);
    }
    let out = out.trim().to_owned();
    (!out.is_empty()).then_some(out)
}

/// The Japanese name of an English name from the built-in tables (no translation by parts).
#[must_use]
pub fn english_to_japanese(name: &str, category: Category) -> Option<String> {
    let key = name.trim();
    if key.is_empty() {
        return None;
    }
    let same = |a: &str, b: &str| a.eq_ignore_ascii_case(b);
    if let Some((ja, _)) = table(category).iter().find(|(_, en)| same(en, key)) {
        return Some((*ja).to_owned());
    }
    // `stem_L`, `stem_LD`, `stem_LEX` (and `.L`).
    for (marker, side) in [
        ("_L", Side::Left),
        ("_R", Side::Right),
        (".L", Side::Left),
        (".R", Side::Right),
    ] {
        let Some(at) = key.rfind(marker) else {
            continue;
        };
        let stem = &key[..at];
        let after = &key[at + marker.len()..];
        if stem.is_empty() {
            continue;
        }
        if category == Category::Bone
            && let Some(bone) = SIDED_BONES
                .iter()
                .find(|b| same(b.en, stem) && same(b.en_after_side, after))
        {
            return Some(if bone.ja_side_last {
                format!("{}{}", bone.ja, side.ja())
            } else {
                format!("{}{}", side.ja(), bone.ja)
            });
        }
        if !after.is_empty() {
            continue;
        }
        if let Some((ja, _)) = table(category).iter().find(|(_, en)| same(en, stem)) {
            // Morphs put the side last (ウィンク右), the others first (左目).
            return Some(if category == Category::Morph {
                format!("{ja}{}", side.ja())
            } else {
                format!("{}{ja}", side.ja())
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_bones_translate_both_ways() {
        let cases = [
            ("全ての親", "master"),
            ("センター", "center"),
            ("上半身2", "upper body2"),
            ("左腕", "arm_L"),
            ("右ひじ", "elbow_R"),
            ("左親指１", "thumb1_L"),
            ("右足ＩＫ", "leg IK_R"),
            ("左つま先ＩＫ", "toe IK_L"),
            ("左足D", "leg_LD"),
            ("右足先EX", "toe_REX"),
            ("左腕捩", "arm twist_L"),
            ("右手捩", "wrist twist_R"),
            ("左肩P", "shoulderP_L"),
            ("腰キャンセル右", "waist cancel_R"),
        ];
        for (ja, en) in cases {
            assert_eq!(
                japanese_to_english(ja, Category::Bone).as_deref(),
                Some(en),
                "{ja}"
            );
            assert_eq!(
                english_to_japanese(en, Category::Bone).as_deref(),
                Some(ja),
                "{en}"
            );
        }
    }

    #[test]
    fn unknown_names_translate_by_parts_only_when_every_part_is_known() {
        assert_eq!(
            japanese_to_english("左腕捩連", Category::Bone).as_deref(),
            Some("arm twist link_L")
        );
        assert_eq!(
            japanese_to_english("後髪A1_1", Category::Bone).as_deref(),
            Some("back hair A1_1")
        );
        assert_eq!(
            japanese_to_english("前髪１_２", Category::Bone).as_deref(),
            Some("bangs1_2")
        );
        assert_eq!(japanese_to_english("謎の骨", Category::Bone), None);
        assert_eq!(
            japanese_to_english("ウィンク右", Category::Morph).as_deref(),
            Some("wink_R")
        );
        assert_eq!(
            japanese_to_english("ｳｨﾝｸ２右", Category::Morph).as_deref(),
            Some("wink2_R")
        );
        assert_eq!(
            english_to_japanese("wink2_R", Category::Morph).as_deref(),
            Some("ウィンク２右")
        );
        assert_eq!(
            japanese_to_english("体（上）", Category::Frame).as_deref(),
            Some("Body[u]")
        );
    }
}
