//! The VRM humanoid bones and how MMD's standard and semi-standard bone names map to them.
//!
//! Names are compared after folding full-width digits and letters to ASCII and dropping
//! spaces, so `親指０`, `親指0` and `左 腕` all match. English names are matched as MMD's own
//! English names (`left arm`), mmd_tools' (`arm_L`) and Blender-style (`arm.L`).
//!
//! Bones whose weights follow another bone (the D-bones of the leg and the twist bones of the
//! arm) are *redirected*: their vertex weights move onto the humanoid bone that drives them,
//! and they are not exported as nodes. IK bones are not exported either (VRM applications
//! move the humanoid bones themselves).

use crate::model::Model;
use std::collections::BTreeMap;

/// A VRM 1.0 humanoid bone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HumanBone {
    Hips,
    Spine,
    Chest,
    UpperChest,
    Neck,
    Head,
    LeftEye,
    RightEye,
    LeftUpperLeg,
    LeftLowerLeg,
    LeftFoot,
    LeftToes,
    RightUpperLeg,
    RightLowerLeg,
    RightFoot,
    RightToes,
    LeftShoulder,
    LeftUpperArm,
    LeftLowerArm,
    LeftHand,
    RightShoulder,
    RightUpperArm,
    RightLowerArm,
    RightHand,
    LeftThumbMetacarpal,
    LeftThumbProximal,
    LeftThumbDistal,
    LeftIndexProximal,
    LeftIndexIntermediate,
    LeftIndexDistal,
    LeftMiddleProximal,
    LeftMiddleIntermediate,
    LeftMiddleDistal,
    LeftRingProximal,
    LeftRingIntermediate,
    LeftRingDistal,
    LeftLittleProximal,
    LeftLittleIntermediate,
    LeftLittleDistal,
    RightThumbMetacarpal,
    RightThumbProximal,
    RightThumbDistal,
    RightIndexProximal,
    RightIndexIntermediate,
    RightIndexDistal,
    RightMiddleProximal,
    RightMiddleIntermediate,
    RightMiddleDistal,
    RightRingProximal,
    RightRingIntermediate,
    RightRingDistal,
    RightLittleProximal,
    RightLittleIntermediate,
    RightLittleDistal,
}

use HumanBone as H;

/// Which side of the body a bone table entry is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

impl Side {
    /// The sign of the side's X in MMD coordinates (MMD models face −Z, so their left is +X).
    #[must_use]
    pub fn x_sign(self) -> f32 {
        match self {
            Side::Left => 1.0,
            Side::Right => -1.0,
        }
    }
}

/// The bones VRM 1.0 requires ("Required" in the humanoid spec).
pub const REQUIRED: [HumanBone; 15] = [
    H::Hips,
    H::Spine,
    H::Head,
    H::LeftUpperLeg,
    H::LeftLowerLeg,
    H::LeftFoot,
    H::RightUpperLeg,
    H::RightLowerLeg,
    H::RightFoot,
    H::LeftUpperArm,
    H::LeftLowerArm,
    H::LeftHand,
    H::RightUpperArm,
    H::RightLowerArm,
    H::RightHand,
];

impl HumanBone {
    /// Every bone, parents before children.
    pub const ALL: [HumanBone; 54] = [
        H::Hips,
        H::Spine,
        H::Chest,
        H::UpperChest,
        H::Neck,
        H::Head,
        H::LeftEye,
        H::RightEye,
        H::LeftUpperLeg,
        H::LeftLowerLeg,
        H::LeftFoot,
        H::LeftToes,
        H::RightUpperLeg,
        H::RightLowerLeg,
        H::RightFoot,
        H::RightToes,
        H::LeftShoulder,
        H::LeftUpperArm,
        H::LeftLowerArm,
        H::LeftHand,
        H::RightShoulder,
        H::RightUpperArm,
        H::RightLowerArm,
        H::RightHand,
        H::LeftThumbMetacarpal,
        H::LeftThumbProximal,
        H::LeftThumbDistal,
        H::LeftIndexProximal,
        H::LeftIndexIntermediate,
        H::LeftIndexDistal,
        H::LeftMiddleProximal,
        H::LeftMiddleIntermediate,
        H::LeftMiddleDistal,
        H::LeftRingProximal,
        H::LeftRingIntermediate,
        H::LeftRingDistal,
        H::LeftLittleProximal,
        H::LeftLittleIntermediate,
        H::LeftLittleDistal,
        H::RightThumbMetacarpal,
        H::RightThumbProximal,
        H::RightThumbDistal,
        H::RightIndexProximal,
        H::RightIndexIntermediate,
        H::RightIndexDistal,
        H::RightMiddleProximal,
        H::RightMiddleIntermediate,
        H::RightMiddleDistal,
        H::RightRingProximal,
        H::RightRingIntermediate,
        H::RightRingDistal,
        H::RightLittleProximal,
        H::RightLittleIntermediate,
        H::RightLittleDistal,
    ];

    /// The name in `VRMC_vrm.humanoid.humanBones`.
    #[must_use]
    pub fn vrm_name(self) -> &'static str {
        match self {
            H::Hips => "hips",
            H::Spine => "spine",
            H::Chest => "chest",
            H::UpperChest => "upperChest",
            H::Neck => "neck",
            H::Head => "head",
            H::LeftEye => "leftEye",
            H::RightEye => "rightEye",
            H::LeftUpperLeg => "leftUpperLeg",
            H::LeftLowerLeg => "leftLowerLeg",
            H::LeftFoot => "leftFoot",
            H::LeftToes => "leftToes",
            H::RightUpperLeg => "rightUpperLeg",
            H::RightLowerLeg => "rightLowerLeg",
            H::RightFoot => "rightFoot",
            H::RightToes => "rightToes",
            H::LeftShoulder => "leftShoulder",
            H::LeftUpperArm => "leftUpperArm",
            H::LeftLowerArm => "leftLowerArm",
            H::LeftHand => "leftHand",
            H::RightShoulder => "rightShoulder",
            H::RightUpperArm => "rightUpperArm",
            H::RightLowerArm => "rightLowerArm",
            H::RightHand => "rightHand",
            H::LeftThumbMetacarpal => "leftThumbMetacarpal",
            H::LeftThumbProximal => "leftThumbProximal",
            H::LeftThumbDistal => "leftThumbDistal",
            H::LeftIndexProximal => "leftIndexProximal",
            H::LeftIndexIntermediate => "leftIndexIntermediate",
            H::LeftIndexDistal => "leftIndexDistal",
            H::LeftMiddleProximal => "leftMiddleProximal",
            H::LeftMiddleIntermediate => "leftMiddleIntermediate",
            H::LeftMiddleDistal => "leftMiddleDistal",
            H::LeftRingProximal => "leftRingProximal",
            H::LeftRingIntermediate => "leftRingIntermediate",
            H::LeftRingDistal => "leftRingDistal",
            H::LeftLittleProximal => "leftLittleProximal",
            H::LeftLittleIntermediate => "leftLittleIntermediate",
            H::LeftLittleDistal => "leftLittleDistal",
            H::RightThumbMetacarpal => "rightThumbMetacarpal",
            H::RightThumbProximal => "rightThumbProximal",
            H::RightThumbDistal => "rightThumbDistal",
            H::RightIndexProximal => "rightIndexProximal",
            H::RightIndexIntermediate => "rightIndexIntermediate",
            H::RightIndexDistal => "rightIndexDistal",
            H::RightMiddleProximal => "rightMiddleProximal",
            H::RightMiddleIntermediate => "rightMiddleIntermediate",
            H::RightMiddleDistal => "rightMiddleDistal",
            H::RightRingProximal => "rightRingProximal",
            H::RightRingIntermediate => "rightRingIntermediate",
            H::RightRingDistal => "rightRingDistal",
            H::RightLittleProximal => "rightLittleProximal",
            H::RightLittleIntermediate => "rightLittleIntermediate",
            H::RightLittleDistal => "rightLittleDistal",
        }
    }

    /// The humanoid spec's parent ("Parent Bone" column); `None` for hips.
    #[must_use]
    pub fn spec_parent(self) -> Option<HumanBone> {
        Some(match self {
            H::Hips => return None,
            H::Spine | H::LeftUpperLeg | H::RightUpperLeg => H::Hips,
            H::Chest => H::Spine,
            H::UpperChest => H::Chest,
            H::Neck | H::LeftShoulder | H::RightShoulder => H::UpperChest,
            H::Head => H::Neck,
            H::LeftEye | H::RightEye => H::Head,
            H::LeftLowerLeg => H::LeftUpperLeg,
            H::LeftFoot => H::LeftLowerLeg,
            H::LeftToes => H::LeftFoot,
            H::RightLowerLeg => H::RightUpperLeg,
            H::RightFoot => H::RightLowerLeg,
            H::RightToes => H::RightFoot,
            H::LeftUpperArm => H::LeftShoulder,
            H::LeftLowerArm => H::LeftUpperArm,
            H::LeftHand => H::LeftLowerArm,
            H::RightUpperArm => H::RightShoulder,
            H::RightLowerArm => H::RightUpperArm,
            H::RightHand => H::RightLowerArm,
            H::LeftThumbMetacarpal
            | H::LeftIndexProximal
            | H::LeftMiddleProximal
            | H::LeftRingProximal
            | H::LeftLittleProximal => H::LeftHand,
            H::RightThumbMetacarpal
            | H::RightIndexProximal
            | H::RightMiddleProximal
            | H::RightRingProximal
            | H::RightLittleProximal => H::RightHand,
            H::LeftThumbProximal => H::LeftThumbMetacarpal,
            H::LeftThumbDistal => H::LeftThumbProximal,
            H::LeftIndexIntermediate => H::LeftIndexProximal,
            H::LeftIndexDistal => H::LeftIndexIntermediate,
            H::LeftMiddleIntermediate => H::LeftMiddleProximal,
            H::LeftMiddleDistal => H::LeftMiddleIntermediate,
            H::LeftRingIntermediate => H::LeftRingProximal,
            H::LeftRingDistal => H::LeftRingIntermediate,
            H::LeftLittleIntermediate => H::LeftLittleProximal,
            H::LeftLittleDistal => H::LeftLittleIntermediate,
            H::RightThumbProximal => H::RightThumbMetacarpal,
            H::RightThumbDistal => H::RightThumbProximal,
            H::RightIndexIntermediate => H::RightIndexProximal,
            H::RightIndexDistal => H::RightIndexIntermediate,
            H::RightMiddleIntermediate => H::RightMiddleProximal,
            H::RightMiddleDistal => H::RightMiddleIntermediate,
            H::RightRingIntermediate => H::RightRingProximal,
            H::RightRingDistal => H::RightRingIntermediate,
            H::RightLittleIntermediate => H::RightLittleProximal,
            H::RightLittleDistal => H::RightLittleIntermediate,
        })
    }

    /// Whether the spec's "Needs Parent Bone" column says yes: the bone may only exist when
    /// its spec parent does.
    #[must_use]
    pub fn needs_parent(self) -> bool {
        let name = self.vrm_name();
        self == H::UpperChest
            || name.ends_with("Intermediate")
            || name.ends_with("Distal")
            || name.ends_with("ThumbProximal")
    }

    /// The MMD name a user would look for (for error messages): the standard Japanese name.
    #[must_use]
    pub fn mmd_name(self) -> String {
        if self == H::Hips {
            return "下半身 (hips: the pelvis)".into();
        }
        names(self)
            .and_then(|(side, ja, _)| ja.first().map(|first| format!("{}{first}", side_ja(side))))
            .unwrap_or_default()
    }
}

impl HumanBone {
    /// The bone named `name` in VRM 1.0's `humanoid.humanBones` (`leftUpperArm`).
    #[must_use]
    pub fn from_vrm_name(name: &str) -> Option<HumanBone> {
        HumanBone::ALL
            .into_iter()
            .find(|bone| bone.vrm_name() == name)
    }

    /// The MMD standard names (Japanese, English) an imported humanoid bone gets: the first
    /// Japanese name of the table above with its side (`左腕`, fingers with full-width digits
    /// as MMD's standard models write them: `左人指１`), and MMD's English name with the
    /// mmd_tools side suffix (`arm_L`), which [`map_bones`] finds again on export. The hips
    /// become 下半身 (the VRM pelvis carries the legs, as 下半身 does in MMD); the toes become
    /// つま先 (the target つま先ＩＫ needs; 足先EX is semi-standard).
    #[must_use]
    pub fn mmd_standard_names(self) -> (String, String) {
        match self {
            H::Hips => return ("下半身".into(), "lower body".into()),
            H::LeftToes => return ("左つま先".into(), "toe_L".into()),
            H::RightToes => return ("右つま先".into(), "toe_R".into()),
            _ => {}
        }
        let Some((side, ja, en)) = names(self) else {
            return (self.vrm_name().into(), self.vrm_name().into());
        };
        let stem = ja.first().copied().unwrap_or_default();
        // MMD's standard models number the fingers with full-width digits (左人指１, 左親指０);
        // 上半身2 keeps its ASCII 2 as they do.
        let stem: String = if stem.contains('指') {
            stem.chars().map(full_width_digit).collect()
        } else {
            stem.to_owned()
        };
        let ja_name = format!("{}{stem}", side_ja(side));
        let en_stem = en.first().copied().unwrap_or_else(|| self.vrm_name());
        let en_name = match side {
            Some(Side::Left) => format!("{en_stem}_L"),
            Some(Side::Right) => format!("{en_stem}_R"),
            None => en_stem.to_owned(),
        };
        (ja_name, en_name)
    }
}

/// `c` as a full-width digit when it is an ASCII digit.
fn full_width_digit(c: char) -> char {
    if c.is_ascii_digit() {
        char::from_u32(c as u32 + 0xFEE0).unwrap_or(c)
    } else {
        c
    }
}

fn side_ja(side: Option<Side>) -> &'static str {
    match side {
        Some(Side::Left) => "左",
        Some(Side::Right) => "右",
        None => "",
    }
}

/// The names a humanoid bone goes by: its side, the Japanese names (without the side prefix)
/// and the English names (without the side), first choice first.
#[allow(clippy::type_complexity)]
fn names(
    bone: HumanBone,
) -> Option<(
    Option<Side>,
    &'static [&'static str],
    &'static [&'static str],
)> {
    use Side::{Left as L, Right as R};
    let (side, ja, en): (
        Option<Side>,
        &'static [&'static str],
        &'static [&'static str],
    ) = match bone {
        H::Hips => return None,
        H::Spine => (None, &["上半身"], &["upper body", "upperbody", "spine"]),
        H::Chest => (None, &["上半身2"], &["upper body2", "upperbody2", "chest"]),
        H::UpperChest => (
            None,
            &["上半身3"],
            &["upper body3", "upperbody3", "upperchest"],
        ),
        H::Neck => (None, &["首"], &["neck"]),
        H::Head => (None, &["頭"], &["head"]),
        H::LeftEye => (Some(L), &["目"], &["eye"]),
        H::RightEye => (Some(R), &["目"], &["eye"]),
        H::LeftUpperLeg => (Some(L), &["足"], &["leg", "upperleg", "thigh"]),
        H::RightUpperLeg => (Some(R), &["足"], &["leg", "upperleg", "thigh"]),
        H::LeftLowerLeg => (Some(L), &["ひざ", "膝"], &["knee", "lowerleg"]),
        H::RightLowerLeg => (Some(R), &["ひざ", "膝"], &["knee", "lowerleg"]),
        H::LeftFoot => (Some(L), &["足首"], &["ankle", "foot"]),
        H::RightFoot => (Some(R), &["足首"], &["ankle", "foot"]),
        // The ball of the foot: 足先EX (semi-standard) is where the toes bend; つま先 is
        // the tip, used only when there is no 足先EX.
        H::LeftToes => (Some(L), &["足先EX", "つま先"], &["toe ex", "toe", "toes"]),
        H::RightToes => (Some(R), &["足先EX", "つま先"], &["toe ex", "toe", "toes"]),
        H::LeftShoulder => (Some(L), &["肩"], &["shoulder"]),
        H::RightShoulder => (Some(R), &["肩"], &["shoulder"]),
        H::LeftUpperArm => (Some(L), &["腕"], &["arm", "upperarm"]),
        H::RightUpperArm => (Some(R), &["腕"], &["arm", "upperarm"]),
        H::LeftLowerArm => (Some(L), &["ひじ", "肘"], &["elbow", "lowerarm"]),
        H::RightLowerArm => (Some(R), &["ひじ", "肘"], &["elbow", "lowerarm"]),
        H::LeftHand => (Some(L), &["手首"], &["wrist", "hand"]),
        H::RightHand => (Some(R), &["手首"], &["wrist", "hand"]),
        // Thumbs: with 親指0 the model has all three segments; without it 親指1/2 are
        // shifted up by one (see `map_bones`).
        H::LeftThumbMetacarpal => (Some(L), &["親指0"], &["thumb0"]),
        H::RightThumbMetacarpal => (Some(R), &["親指0"], &["thumb0"]),
        H::LeftThumbProximal => (Some(L), &["親指1"], &["thumb1"]),
        H::RightThumbProximal => (Some(R), &["親指1"], &["thumb1"]),
        H::LeftThumbDistal => (Some(L), &["親指2"], &["thumb2"]),
        H::RightThumbDistal => (Some(R), &["親指2"], &["thumb2"]),
        H::LeftIndexProximal => (Some(L), &["人指1", "人差指1"], &["fore1", "index1"]),
        H::RightIndexProximal => (Some(R), &["人指1", "人差指1"], &["fore1", "index1"]),
        H::LeftIndexIntermediate => (Some(L), &["人指2", "人差指2"], &["fore2", "index2"]),
        H::RightIndexIntermediate => (Some(R), &["人指2", "人差指2"], &["fore2", "index2"]),
        H::LeftIndexDistal => (Some(L), &["人指3", "人差指3"], &["fore3", "index3"]),
        H::RightIndexDistal => (Some(R), &["人指3", "人差指3"], &["fore3", "index3"]),
        H::LeftMiddleProximal => (Some(L), &["中指1"], &["middle1"]),
        H::RightMiddleProximal => (Some(R), &["中指1"], &["middle1"]),
        H::LeftMiddleIntermediate => (Some(L), &["中指2"], &["middle2"]),
        H::RightMiddleIntermediate => (Some(R), &["中指2"], &["middle2"]),
        H::LeftMiddleDistal => (Some(L), &["中指3"], &["middle3"]),
        H::RightMiddleDistal => (Some(R), &["中指3"], &["middle3"]),
        H::LeftRingProximal => (Some(L), &["薬指1"], &["third1", "ring1"]),
        H::RightRingProximal => (Some(R), &["薬指1"], &["third1", "ring1"]),
        H::LeftRingIntermediate => (Some(L), &["薬指2"], &["third2", "ring2"]),
        H::RightRingIntermediate => (Some(R), &["薬指2"], &["third2", "ring2"]),
        H::LeftRingDistal => (Some(L), &["薬指3"], &["third3", "ring3"]),
        H::RightRingDistal => (Some(R), &["薬指3"], &["third3", "ring3"]),
        H::LeftLittleProximal => (Some(L), &["小指1"], &["little1"]),
        H::RightLittleProximal => (Some(R), &["小指1"], &["little1"]),
        H::LeftLittleIntermediate => (Some(L), &["小指2"], &["little2"]),
        H::RightLittleIntermediate => (Some(R), &["小指2"], &["little2"]),
        H::LeftLittleDistal => (Some(L), &["小指3"], &["little3"]),
        H::RightLittleDistal => (Some(R), &["小指3"], &["little3"]),
    };
    Some((side, ja, en))
}

/// A bone name folded for comparison: full-width ASCII to ASCII, lowercase, no spaces or
/// underscores/dots before a side suffix handled by the callers.
#[must_use]
pub fn fold_name(name: &str) -> String {
    name.chars()
        .filter_map(|c| {
            let c = match c {
                '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
                '\u{3000}' => ' ',
                other => other,
            };
            (!c.is_whitespace()).then(|| c.to_ascii_lowercase())
        })
        .collect()
}

/// Every folded name `bone` may have.
fn candidate_names(bone: HumanBone) -> Vec<String> {
    let Some((side, ja, en)) = names(bone) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for name in ja {
        out.push(fold_name(&format!("{}{name}", side_ja(side))));
    }
    for name in en {
        let name = fold_name(name);
        match side {
            None => out.push(name),
            Some(side) => {
                let (word, letter) = match side {
                    Side::Left => ("left", "l"),
                    Side::Right => ("right", "r"),
                };
                out.push(format!("{word}{name}"));
                out.push(format!("{name}_{letter}"));
                out.push(format!("{name}.{letter}"));
            }
        }
    }
    out
}

/// What a bone is in the export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoneRole {
    /// A node of the glTF skeleton (humanoid or not).
    Node,
    /// Not a node: its weights move onto `to` (a D-bone or twist bone and its driver).
    Redirected { to: usize },
    /// An IK bone: not a node; weights (rare) go to the nearest exported ancestor.
    Ik,
}

/// The humanoid bones found in a model, and what every bone becomes.
#[derive(Debug, Clone, PartialEq)]
pub struct HumanoidMap {
    /// Humanoid bone → model bone index (hips is not here: it is placed by the skeleton).
    pub bones: BTreeMap<HumanBone, usize>,
    /// One role per model bone.
    pub roles: Vec<BoneRole>,
    /// Optional humanoid bones found but not used, with the reason.
    pub dropped: Vec<(HumanBone, crate::i18n::Message)>,
}

impl HumanoidMap {
    #[must_use]
    pub fn get(&self, bone: HumanBone) -> Option<usize> {
        self.bones.get(&bone).copied()
    }

    /// The required bones (hips aside: it is always made) that are missing.
    #[must_use]
    pub fn missing_required(&self) -> Vec<HumanBone> {
        REQUIRED
            .iter()
            .copied()
            .filter(|&bone| bone != H::Hips && !self.bones.contains_key(&bone))
            .collect()
    }
}

/// The user's changes to the mapping by name: a humanoid bone given another model bone
/// (`Some(index)`), or left unassigned (`None`).
pub type HumanoidOverrides = BTreeMap<HumanBone, Option<usize>>;

/// Maps the model's bones to humanoid bones by name and decides every bone's role.
#[must_use]
pub fn map_bones(model: &Model) -> HumanoidMap {
    map_bones_with(model, &HumanoidOverrides::new())
}

/// [`map_bones`] with the user's changes applied before the roles and the tree are checked. An
/// override naming a bone that does not exist or is an IK bone is ignored (the mapping by name
/// stays); a bone given to one humanoid bone is taken from any other it had by name.
#[must_use]
pub fn map_bones_with(model: &Model, overrides: &HumanoidOverrides) -> HumanoidMap {
    let folded: Vec<String> = model
        .bones
        .iter()
        .map(|bone| fold_name(&bone.name_ja.as_str()))
        .collect();
    let folded_en: Vec<String> = model
        .bones
        .iter()
        .map(|bone| fold_name(&bone.name_en.as_str()))
        .collect();
    let find = |wanted: &str| -> Option<usize> {
        folded
            .iter()
            .position(|name| name == wanted)
            .or_else(|| folded_en.iter().position(|name| name == wanted))
            .filter(|&i| !model.bones[i].is_ik())
    };
    let mut bones = BTreeMap::new();
    for bone in HumanBone::ALL {
        if let Some(index) = candidate_names(bone).iter().find_map(|name| find(name)) {
            bones.insert(bone, index);
        }
    }
    // Thumbs without 親指0: 親指1/2 become the metacarpal and the proximal, since VRM needs
    // the metacarpal before a proximal ("Needs Parent Bone: Yes").
    for (metacarpal, proximal, distal) in [
        (
            H::LeftThumbMetacarpal,
            H::LeftThumbProximal,
            H::LeftThumbDistal,
        ),
        (
            H::RightThumbMetacarpal,
            H::RightThumbProximal,
            H::RightThumbDistal,
        ),
    ] {
        if !bones.contains_key(&metacarpal) {
            if let Some(first) = bones.remove(&proximal) {
                bones.insert(metacarpal, first);
            }
            if let Some(second) = bones.remove(&distal) {
                bones.insert(proximal, second);
            }
        }
    }

    for (&human, &choice) in overrides {
        match choice {
            Some(index) if model.bones.get(index).is_some_and(|bone| !bone.is_ik()) => {
                bones.retain(|_, &mut b| b != index);
                bones.insert(human, index);
            }
            Some(_) => {}
            None => {
                bones.remove(&human);
            }
        }
    }

    let mut roles: Vec<BoneRole> = model
        .bones
        .iter()
        .map(|bone| {
            if bone.is_ik() {
                BoneRole::Ik
            } else {
                BoneRole::Node
            }
        })
        .collect();
    // D-bones follow the bone they append from; twist bones their arm segment.
    let redirects: [(&str, &[&str], [HumanBone; 2]); 5] = [
        ("足d", &["足d", "legd"], [H::LeftUpperLeg, H::RightUpperLeg]),
        (
            "ひざd",
            &["ひざd", "kneed"],
            [H::LeftLowerLeg, H::RightLowerLeg],
        ),
        ("足首d", &["足首d", "ankled"], [H::LeftFoot, H::RightFoot]),
        (
            "腕捩",
            &["腕捩", "armtwist"],
            [H::LeftUpperArm, H::RightUpperArm],
        ),
        (
            "手捩",
            &["手捩", "wristtwist"],
            [H::LeftLowerArm, H::RightLowerArm],
        ),
    ];
    for (i, name) in folded.iter().enumerate() {
        if bones.values().any(|&b| b == i) || roles[i] == BoneRole::Ik {
            continue;
        }
        let (side, rest) = if let Some(rest) = name.strip_prefix('左') {
            (0, rest)
        } else if let Some(rest) = name.strip_prefix('右') {
            (1, rest)
        } else {
            continue;
        };
        // 腕捩1..3 and 手捩1..3 (the twist's helpers) go with their twist bone.
        let stem = rest.trim_end_matches(|c: char| c.is_ascii_digit());
        let mut target = redirects
            .iter()
            .find(|(_, stems, _)| stems.contains(&stem))
            .and_then(|(_, _, humans)| bones.get(&humans[side]).copied());
        // 足先EX, when the toes are the tip bone (つま先): the toes, else the foot.
        if target.is_none() && stem == "足先ex" {
            let toes = [H::LeftToes, H::RightToes][side];
            let foot = [H::LeftFoot, H::RightFoot][side];
            target = bones.get(&toes).or_else(|| bones.get(&foot)).copied();
        }
        if let Some(to) = target {
            roles[i] = BoneRole::Redirected { to };
        }
    }
    let mut map = HumanoidMap {
        bones,
        roles,
        dropped: Vec::new(),
    };
    check_ancestry(model, &mut map);
    map
}

/// The nearest ancestor of `bone` (excluded) that `keep` accepts.
pub(super) fn exported_ancestor(
    model: &Model,
    bone: usize,
    keep: impl Fn(usize) -> bool,
) -> Option<usize> {
    let mut current = model.bones.get(bone)?.parent.map(|p| p.get());
    let mut steps = 0;
    while let Some(index) = current {
        if index >= model.bones.len() || steps > model.bones.len() {
            return None;
        }
        if keep(index) {
            return Some(index);
        }
        current = model.bones[index].parent.map(|p| p.get());
        steps += 1;
    }
    None
}

/// Drops optional humanoid bones whose nearest humanoid ancestor is not what the spec asks
/// (for example eyes that are not under the head): a wrong tree breaks VRM applications.
fn check_ancestry(model: &Model, map: &mut HumanoidMap) {
    // "Needs Parent Bone: Yes" in the spec: these exist only below their spec parent.
    for bone in HumanBone::ALL {
        if !bone.needs_parent() || !map.bones.contains_key(&bone) {
            continue;
        }
        if let Some(parent) = bone.spec_parent()
            && !map.bones.contains_key(&parent)
        {
            map.bones.remove(&bone);
            map.dropped.push((
                bone,
                crate::i18n::Message::new("save.vrm.human_bone_needs_parent")
                    .arg("parent", parent.vrm_name()),
            ));
        }
    }
    for bone in HumanBone::ALL {
        let Some(&index) = map.bones.get(&bone) else {
            continue;
        };
        let Some(expected) = bone.spec_parent() else {
            continue;
        };
        // The expected parent, or its nearest mapped ancestor when it is optional and absent.
        let mut wanted = Some(expected);
        while let Some(w) = wanted {
            if map.bones.contains_key(&w) {
                break;
            }
            wanted = w.spec_parent();
        }
        let Some(wanted) = wanted.filter(|&w| w != H::Hips) else {
            continue;
        };
        let Some(&wanted_index) = map.bones.get(&wanted) else {
            continue;
        };
        let humanoid_indices: Vec<usize> = map.bones.values().copied().collect();
        let nearest = exported_ancestor(model, index, |i| humanoid_indices.contains(&i));
        if nearest != Some(wanted_index) && !REQUIRED.contains(&bone) {
            map.bones.remove(&bone);
            map.dropped.push((
                bone,
                crate::i18n::Message::new("save.vrm.human_bone_not_under")
                    .arg("bone", model.bones[index].name_ja.to_string())
                    .arg("parent", model.bones[wanted_index].name_ja.to_string()),
            ));
        }
    }
}
