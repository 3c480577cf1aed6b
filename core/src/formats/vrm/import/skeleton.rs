//! Nodes → bones, with MMD's standard skeleton around the humanoid: 全ての親, センター and
//! グルーブ at the root, 上半身 and 下半身 as siblings at the waist, 両目, the leg IK, a
//! つま先 made in front of the foot when the VRM has no toes, a 上半身2 above the spine when
//! it has no chest and a 肩 at the base of an arm without a shoulder (the bones MMD motions
//! key). Tails point down the humanoid
//! chain (spine → chest → neck → head, hand → middle finger) so the bones draw as MMD draws
//! its standard models.

use super::{HumanBone, Importer, unique_name};
use crate::i18n::Message;
use crate::model::{AngleLimits, Bone, BoneFlags, BoneIdx, Ik, IkLink, Vec3};
use std::collections::HashSet;

use HumanBone as H;

/// MMD's usual 足ＩＫ: 40 iterations of at most 2 rad (114.59° as PmxEditor shows it).
const LEG_IK_LOOPS: i32 = 40;
const LEG_IK_ANGLE: f32 = 2.0;
/// つま先ＩＫ: 3 iterations of at most 4 rad.
const TOE_IK_LOOPS: i32 = 3;
const TOE_IK_ANGLE: f32 = 4.0;
/// A made-up 肩 starts this fraction of the way from the body's centre line to the arm.
const SHOULDER_START_ALONG_ARM: f32 = 0.3;
/// A made-up つま先 lies this many ankle heights in front of the ankle (about where a
/// shoe's tip is).
const TOE_LENGTH_PER_ANKLE_HEIGHT: f32 = 1.5;
/// The knee bends only one way: −180° to −0.5° about X (the standard models' limit; the
/// −0.5° keeps the solver from locking the leg straight).
const KNEE_LOWER_X: f32 = -std::f32::consts::PI;
const KNEE_UPPER_X: f32 = -0.5 * std::f32::consts::PI / 180.0;

fn idx(index: usize) -> Option<BoneIdx> {
    Some(BoneIdx::new(index))
}

fn bone(name_ja: &str, name_en: &str, position: Vec3, parent: Option<usize>) -> Bone {
    Bone {
        name_ja: name_ja.into(),
        name_en: name_en.into(),
        position,
        parent: parent.and_then(idx),
        ..Bone::default()
    }
}

fn sub(a: Vec3, b: Vec3) -> Vec3 {
    Vec3::new(a.x - b.x, a.y - b.y, a.z - b.z)
}

pub(super) fn build(import: &mut Importer<'_>) {
    let node_count = import.nodes.len();
    let position_of =
        |import: &Importer<'_>, node: usize| import.point(import.world[node].w_axis.truncate());
    let human_of: std::collections::HashMap<usize, HumanBone> = import
        .humanoid
        .iter()
        .map(|(&bone, &node)| (node, bone))
        .collect();
    let hips = import.humanoid.get(&H::Hips).copied();
    let spine = import.humanoid.get(&H::Spine).copied();
    let mut taken: HashSet<String> = HashSet::new();
    let mut bones: Vec<Bone> = Vec::new();

    let movable =
        BoneFlags::ROTATABLE | BoneFlags::MOVABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE;
    let mut root = bone(
        &unique_name(&mut taken, "全ての親"),
        "master",
        Vec3::ZERO,
        None,
    );
    root.flags = movable;
    bones.push(root);
    // グルーブ's index: the parent of 上半身 and 下半身 (全ての親 without a humanoid).
    let mut waist_parent = 0;
    if let Some(hips) = hips {
        let hips_position = position_of(import, hips);
        // センター near the knees' height, as in the standard models (it is the body's
        // move handle; its height only changes where MMD draws it).
        let center_position = Vec3::new(0.0, hips_position.y * 0.6, 0.0);
        let mut center = bone(
            &unique_name(&mut taken, "センター"),
            "center",
            center_position,
            Some(0),
        );
        center.flags = movable;
        bones.push(center);
        let mut groove = bone(
            &unique_name(&mut taken, "グルーブ"),
            "groove",
            center_position,
            Some(1),
        );
        groove.flags = movable;
        bones.push(groove);
        waist_parent = 2;
        // The standard names are the humanoid's; a node that happens to carry one is renamed.
        for &human in import.humanoid.keys() {
            taken.insert(human.mmd_standard_names().0);
        }
    }

    let mut node_bone = vec![0usize; node_count];
    let mut both_eyes = None;
    // Without a chest (optional in VRM) a 上半身2 is made above 上半身 and the spine's
    // children hang from it, so motions that key 上半身2 (most do) still bend the back.
    let make_upper_body_2 = spine.is_some() && !import.humanoid.contains_key(&H::Chest);
    let mut upper_body_2 = None;
    let order = import.order.clone();
    for &node in &order {
        let human = human_of.get(&node).copied();
        let mut parent = if Some(node) == hips || Some(node) == spine {
            waist_parent
        } else {
            import.parents[node].map_or(0, |p| match upper_body_2 {
                Some(stand_in) if Some(p) == spine => stand_in,
                _ => node_bone[p],
            })
        };
        let mut position = position_of(import, node);
        // Without a shoulder (optional in VRM) a 肩 is made between the chest and the arm,
        // so motions that key 肩 still move the arm.
        let missing_shoulder = match human {
            Some(H::LeftUpperArm) => Some((H::LeftShoulder, "左肩", "shoulder_L")),
            Some(H::RightUpperArm) => Some((H::RightShoulder, "右肩", "shoulder_R")),
            _ => None,
        }
        .filter(|(shoulder, _, _)| !import.humanoid.contains_key(shoulder));
        if let Some((missing, name_ja, name_en)) = missing_shoulder {
            let start = Vec3::new(
                position.x * SHOULDER_START_ALONG_ARM,
                position.y,
                position.z,
            );
            let mut shoulder = bone(
                &unique_name(&mut taken, name_ja),
                name_en,
                start,
                Some(parent),
            );
            shoulder.flags |= BoneFlags::TAIL_IS_BONE;
            // The arm is the next bone pushed.
            shoulder.tail_bone = idx(bones.len() + 1);
            parent = bones.len();
            bones.push(shoulder);
            let location = import.gltf.at("extensions", None, "humanoid.humanBones");
            import.note(
                location,
                Message::new("load.vrm.shoulder_made")
                    .arg("bone", missing.vrm_name())
                    .arg("name", name_ja),
                false,
            );
        }
        let (name_ja, name_en) = match human {
            Some(human) => human.mmd_standard_names(),
            None => {
                let name = import.nodes[node]
                    .name
                    .clone()
                    .filter(|n| !n.trim().is_empty())
                    .unwrap_or_else(|| format!("node{node}"));
                let unique = unique_name(&mut taken, &name);
                (unique.clone(), unique)
            }
        };
        if human == Some(H::Hips)
            && let Some(spine) = spine
        {
            // 下半身 turns at the waist, where 上半身 starts.
            position = position_of(import, spine);
        }
        let mut new = bone(&name_ja, &name_en, position, Some(parent));
        // Only the body's handles move in MMD (全ての親, センター, グルーブ and the IK bones):
        // 下半身 and the other humanoid bones turn. A non-humanoid root (an armature, a prop)
        // keeps its translation handle.
        if human.is_none() && import.parents[node].is_none() {
            new.flags |= BoneFlags::MOVABLE;
        }
        if let (Some(H::LeftEye | H::RightEye), Some(eyes)) = (human, both_eyes) {
            new.flags |= BoneFlags::APPEND_ROTATE;
            new.append_parent = idx(eyes);
            new.append_ratio = 1.0;
        }
        node_bone[node] = bones.len();
        bones.push(new);
        if human == Some(H::Spine) && make_upper_body_2 {
            // Halfway up to the neck (else the head), where a chest would bend.
            let above = [H::Neck, H::Head]
                .iter()
                .find_map(|b| import.humanoid.get(b))
                .map_or(position, |&n| position_of(import, n));
            let halfway = Vec3::new(
                (position.x + above.x) / 2.0,
                (position.y + above.y) / 2.0,
                (position.z + above.z) / 2.0,
            );
            let mut stand_in = bone(
                &unique_name(&mut taken, "上半身2"),
                "upper body2",
                halfway,
                Some(node_bone[node]),
            );
            stand_in.tail_offset = sub(above, halfway);
            upper_body_2 = Some(bones.len());
            bones.push(stand_in);
            let location = import.gltf.at("extensions", None, "humanoid.humanBones");
            import.note(location, Message::new("load.vrm.chest_made"), false);
        }
        if human == Some(H::Head)
            && let (Some(&left), Some(&right)) = (
                import.humanoid.get(&H::LeftEye),
                import.humanoid.get(&H::RightEye),
            )
        {
            let (l, r) = (position_of(import, left), position_of(import, right));
            let middle = Vec3::new((l.x + r.x) / 2.0, (l.y + r.y) / 2.0, (l.z + r.z) / 2.0);
            let mut eyes = bone(
                &unique_name(&mut taken, "両目"),
                "eyes",
                middle,
                Some(node_bone[node]),
            );
            eyes.tail_offset = Vec3::new(0.0, 0.0, -1.0);
            both_eyes = Some(bones.len());
            bones.push(eyes);
        }
    }

    // Tails: the humanoid child a bone leads to, else its only child, else the direction it
    // continues in from its parent.
    for &node in &order {
        let this = node_bone[node];
        let human = human_of.get(&node).copied();
        let children = &import.nodes[node].children;
        let humanoid_child = human.and_then(|human| {
            children.iter().copied().find(|child| {
                human_of.get(child).is_some_and(|&c| {
                    present_spec_parent(&import.humanoid, c) == Some(human) && !is_side_branch(c)
                })
            })
        });
        let only_child = (children.len() == 1).then(|| children[0]);
        if human == Some(H::Hips) {
            // 下半身 points down between the legs.
            let legs: Vec<Vec3> = [H::LeftUpperLeg, H::RightUpperLeg]
                .iter()
                .filter_map(|leg| import.humanoid.get(leg))
                .map(|&leg| position_of(import, leg))
                .collect();
            let y = legs.iter().map(|p| p.y).sum::<f32>() / legs.len().max(1) as f32;
            let down = y - bones[this].position.y;
            // Legs level with the waist (or none) still get a tail, so the bone is drawn.
            let down = if legs.is_empty() || down > -0.1 {
                -1.0
            } else {
                down
            };
            bones[this].tail_offset = Vec3::new(0.0, down, 0.0);
            continue;
        }
        match humanoid_child.or(only_child) {
            Some(child) if Some(child) != spine || human != Some(H::Hips) => {
                bones[this].flags |= BoneFlags::TAIL_IS_BONE;
                bones[this].tail_bone = idx(node_bone[child]);
            }
            _ => {
                let parent_position = bones[this]
                    .parent
                    .and_then(|p| bones.get(p.get()))
                    .map_or(bones[this].position, |p| p.position);
                let along = sub(bones[this].position, parent_position);
                bones[this].tail_offset = Vec3::new(along.x * 0.5, along.y * 0.5, along.z * 0.5);
            }
        }
    }

    if let (Some(stand_in), Some(spine)) = (upper_body_2, spine) {
        let spine_bone = node_bone[spine];
        bones[spine_bone].flags |= BoneFlags::TAIL_IS_BONE;
        bones[spine_bone].tail_bone = idx(stand_in);
        if let Some(&neck) = [H::Neck, H::Head]
            .iter()
            .find_map(|b| import.humanoid.get(b))
        {
            bones[stand_in].flags |= BoneFlags::TAIL_IS_BONE;
            bones[stand_in].tail_bone = idx(node_bone[neck]);
        }
    }

    leg_ik(import, &mut bones, &node_bone, &mut taken);
    import.node_bone = node_bone;
    import.model.bones = bones;
}

/// The nearest humanoid ancestor `bone` has in the spec's tree among the bones the file
/// maps (the neck's is the chest when there is no upper chest).
fn present_spec_parent(
    humanoid: &std::collections::BTreeMap<HumanBone, usize>,
    bone: HumanBone,
) -> Option<HumanBone> {
    let mut parent = bone.spec_parent();
    while let Some(p) = parent {
        if humanoid.contains_key(&p) {
            return Some(p);
        }
        parent = p.spec_parent();
    }
    None
}

/// Children that branch off sideways (eyes under the head, shoulders under the chest, the
/// fingers but the middle one under the hand): not where the parent's tail points. The
/// finger segments after the first continue their finger, so they are not side branches.
fn is_side_branch(bone: HumanBone) -> bool {
    matches!(
        bone,
        H::LeftEye
            | H::RightEye
            | H::LeftShoulder
            | H::RightShoulder
            | H::LeftUpperLeg
            | H::RightUpperLeg
    ) || matches!(bone.spec_parent(), Some(H::LeftHand | H::RightHand))
        && !matches!(bone, H::LeftMiddleProximal | H::RightMiddleProximal)
}

fn leg_ik(
    import: &mut Importer<'_>,
    bones: &mut Vec<Bone>,
    node_bone: &[usize],
    taken: &mut HashSet<String>,
) {
    let sides = [
        (
            "左",
            "_L",
            "load.vrm.word.left",
            H::LeftUpperLeg,
            H::LeftLowerLeg,
            H::LeftFoot,
            H::LeftToes,
        ),
        (
            "右",
            "_R",
            "load.vrm.word.right",
            H::RightUpperLeg,
            H::RightLowerLeg,
            H::RightFoot,
            H::RightToes,
        ),
    ];
    for (side_ja, side_en, side_word, upper, lower, foot, toes) in sides {
        let (Some(&upper), Some(&lower), Some(&foot)) = (
            import.humanoid.get(&upper),
            import.humanoid.get(&lower),
            import.humanoid.get(&foot),
        ) else {
            continue;
        };
        let flags = BoneFlags::ROTATABLE
            | BoneFlags::MOVABLE
            | BoneFlags::VISIBLE
            | BoneFlags::OPERABLE
            | BoneFlags::IK;
        let foot_bone = node_bone[foot];
        let mut leg_ik = bone(
            &unique_name(taken, &format!("{side_ja}足ＩＫ")),
            &format!("leg IK{side_en}"),
            bones[foot_bone].position,
            Some(0),
        );
        leg_ik.flags = flags;
        leg_ik.tail_offset = Vec3::new(0.0, 0.0, 1.0);
        leg_ik.ik = Ik {
            target: idx(foot_bone),
            loop_count: LEG_IK_LOOPS,
            limit_angle: LEG_IK_ANGLE,
            links: vec![
                IkLink {
                    bone: idx(node_bone[lower]),
                    limits: Some(AngleLimits {
                        lower: Vec3::new(KNEE_LOWER_X, 0.0, 0.0),
                        upper: Vec3::new(KNEE_UPPER_X, 0.0, 0.0),
                    }),
                },
                IkLink {
                    bone: idx(node_bone[upper]),
                    limits: None,
                },
            ],
        };
        let leg_ik_index = bones.len();
        bones.push(leg_ik);
        let toes_bone = match import.humanoid.get(&toes) {
            Some(&toes) => node_bone[toes],
            None => {
                // つま先ＩＫ needs a target: a つま先 tip in front of the ankle on the ground,
                // as long as the ankle is high (a usual foot), weighted by nothing.
                let ankle = bones[foot_bone].position;
                let length = ankle.y.max(0.5) * TOE_LENGTH_PER_ANKLE_HEIGHT;
                let mut tip = bone(
                    &unique_name(taken, &format!("{side_ja}つま先")),
                    &format!("toe{side_en}"),
                    Vec3::new(ankle.x, 0.0_f32.min(ankle.y), ankle.z - length),
                    Some(foot_bone),
                );
                tip.tail_offset = Vec3::new(0.0, 0.0, -length * 0.5);
                let location = import.gltf.at("extensions", None, "humanoid.humanBones");
                import.note(
                    location,
                    Message::new("load.vrm.toes_made")
                        .word("side", side_word)
                        .arg("name", format!("{side_ja}つま先")),
                    false,
                );
                bones.push(tip);
                bones.len() - 1
            }
        };
        let mut toe_ik = bone(
            &unique_name(taken, &format!("{side_ja}つま先ＩＫ")),
            &format!("toe IK{side_en}"),
            bones[toes_bone].position,
            Some(leg_ik_index),
        );
        toe_ik.flags = flags;
        toe_ik.tail_offset = Vec3::new(0.0, -1.0, 0.0);
        toe_ik.ik = Ik {
            target: idx(toes_bone),
            loop_count: TOE_IK_LOOPS,
            limit_angle: TOE_IK_ANGLE,
            links: vec![IkLink {
                bone: idx(foot_bone),
                limits: None,
            }],
        };
        bones.push(toe_ik);
    }
}
