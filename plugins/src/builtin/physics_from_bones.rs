//! Physics: rigid bodies and joints along the selected bone chains, as PmxEditor users make
//! hair and skirt physics with the "bone → rigid body" and 連続ジョイント plugins.
//!
//! A chain is a run of selected bones, each the parent of the next. Every selected bone with a
//! length (to its one selected child, else to its tail, else to the middle of its selected
//! children) gets a body from its head to that end; the chain's first bone follows its bone
//! (static) and the rest are physics, unless `anchor` puts a static body on the bone above the
//! chain (or uses the one it has), so that the whole chain swings. Each body hangs on the body
//! above it by a spring 6DOF joint at its bone's head. With `connect_chains`, chains whose first
//! bones share a parent (a skirt ring, a row of bangs) are also joined sideways, body to body at
//! the same depth, in the order of their angle around that parent.
//!
//! Bones that already have a body keep it (the chain's joints use it), and body pairs that
//! already have a joint get no second one, so running the tool twice makes nothing new.
//!
//! The defaults follow PmxEditor where it has numbers: radius 0.2 × length and height = length
//! (Gene's hair bodies, made in PmxEditor, are exactly that size), mass 1, damping 0.5,
//! friction 0.5, repulsion 0. Where it has none they are a common skirt preset: joints turn
//! ±20° about X and Z (swinging) and ±10° about Y (twist), never move, and have a rotation
//! spring of 100 so that a skirt settles back to its shape (PmxEditor's 0 lets it hang
//! wherever it last swung); group 2, since models usually keep their body colliders in 1, and
//! the new bodies collide with every group but their own. The joint and body frames have no
//! turn about Y (see [`euler_y_along`]), so limit X is a swing about the model's X axis.
//!
//! It does not make display frames (bodies have none), never changes existing bodies or
//! joints, and simulates nothing (the core has no physics simulation).

use crate::api::{
    EditBatch, Needs, Plugin, PluginContext, PluginError, PluginGroup, PluginInfo, PluginOutput,
};
use crate::options::{OptionSpec, Options};
use pmx_core::edit::Elements;
use pmx_core::model::{
    Bone, BoneFlags, BoneIdx, ElementKind, Joint, JointKind, RigidBody, RigidBodyIdx, RigidMode,
    RigidShape, Text, Vec3,
};
use pmx_core::validate::FixStep;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Shorter segments (MMD units; 1 unit = 8 cm) make no body: PmxEditor models carry
/// zero-length helper bones (`後髪B2_1` sits 0.0006 from its child), and a body there would
/// be a speck that Bullet cannot keep still.
const MIN_SEGMENT_LENGTH: f32 = 1e-3;

/// ボーンから剛体・Joint一括生成.
#[derive(Debug, Clone, Copy)]
pub struct PhysicsFromBones;

/// The options, read once.
#[derive(Debug, Clone)]
struct Settings {
    shape: RigidShape,
    radius: f32,
    radius_ratio: f32,
    dynamic_mode: RigidMode,
    anchor: bool,
    mass: f32,
    mass_decay: f32,
    linear_damping: f32,
    angular_damping: f32,
    group: u8,
    non_collision_mask: u16,
    angle_limit: Vec3,
    spring_rotate: f32,
    connect_chains: bool,
    ring: Ring,
}

/// Whether sideways joints close a ring of chains (last chain to first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ring {
    /// Closed when the chains surround their parent (no gap of 180° or more between two
    /// neighbours): a skirt is closed, a row of bangs is not.
    Auto,
    Closed,
    Open,
}

#[allow(clippy::cast_possible_truncation)]
fn number(options: &Options, key: &str) -> f32 {
    options.number(key) as f32
}

impl Settings {
    fn read(options: &Options) -> Self {
        let group = u8::try_from(options.integer("group").clamp(1, 16) - 1).unwrap_or(0);
        let everything = 0xFFFFu16;
        Self {
            shape: match options.text("shape") {
                "sphere" => RigidShape::Sphere,
                "box" => RigidShape::Box,
                _ => RigidShape::Capsule,
            },
            radius: number(options, "radius"),
            radius_ratio: number(options, "radius_ratio"),
            dynamic_mode: match options.text("mode") {
                "physics" => RigidMode::Physics,
                _ => RigidMode::PhysicsWithBone,
            },
            anchor: options.bool("anchor"),
            mass: number(options, "mass"),
            mass_decay: number(options, "mass_decay"),
            linear_damping: number(options, "linear_damping"),
            angular_damping: number(options, "angular_damping"),
            group,
            non_collision_mask: if options.bool("collide_with_own_group") {
                everything
            } else {
                everything & !(1u16 << group)
            },
            angle_limit: Vec3::new(
                number(options, "angle_limit_x").to_radians(),
                number(options, "angle_limit_y").to_radians(),
                number(options, "angle_limit_z").to_radians(),
            ),
            spring_rotate: number(options, "spring_rotate"),
            connect_chains: options.bool("connect_chains"),
            ring: match options.text("ring") {
                "closed" => Ring::Closed,
                "open" => Ring::Open,
                _ => Ring::Auto,
            },
        }
    }

    fn radius_for(&self, length: f32) -> f32 {
        if self.radius > 0.0 {
            self.radius
        } else {
            self.radius_ratio * length
        }
    }

    /// The size PMX stores for a body of `radius` over a segment of `length`: a sphere's
    /// radius; a capsule's radius and the height of its cylinder (the bone's length, as
    /// PmxEditor makes them: the round ends reach past the joints into the neighbours, which
    /// do not collide with each other); a box's half extents.
    fn size(&self, radius: f32, length: f32) -> Vec3 {
        match self.shape {
            RigidShape::Sphere => Vec3::new(radius, 0.0, 0.0),
            RigidShape::Box => Vec3::new(radius, length / 2.0, radius),
            _ => Vec3::new(radius, length, 0.0),
        }
    }

    fn joint(&self, name: Names, a: usize, b: usize, position: Vec3, rotation: Vec3) -> Joint {
        let limit = self.angle_limit;
        Joint {
            name_ja: name.ja.into(),
            name_en: name.en.into(),
            kind: JointKind::Spring6Dof,
            body_a: Some(RigidBodyIdx::new(a)),
            body_b: Some(RigidBodyIdx::new(b)),
            position,
            rotation,
            move_lower: Vec3::ZERO,
            move_upper: Vec3::ZERO,
            rotate_lower: Vec3::new(-limit.x, -limit.y, -limit.z),
            rotate_upper: limit,
            spring_move: Vec3::ZERO,
            spring_rotate: Vec3::new(self.spring_rotate, self.spring_rotate, self.spring_rotate),
        }
    }
}

/// A name in both languages.
#[derive(Debug, Clone)]
struct Names {
    ja: String,
    en: String,
}

/// Names made unique among a list's names by a numbered suffix (`_2`, `_3`, ...), Japanese
/// and English apart; an empty English name stays empty.
#[derive(Debug, Default)]
struct UniqueNames {
    ja: HashSet<String>,
    en: HashSet<String>,
}

impl UniqueNames {
    fn of<'a>(names: impl Iterator<Item = (&'a Text, &'a Text)>) -> Self {
        let mut taken = Self::default();
        for (ja, en) in names {
            taken.ja.insert(ja.as_str().into_owned());
            taken.en.insert(en.as_str().into_owned());
        }
        taken
    }

    fn take(&mut self, wanted: Names) -> Names {
        fn unique(taken: &mut HashSet<String>, wanted: String) -> String {
            let name = if taken.contains(&wanted) {
                (2..)
                    .map(|k| format!("{wanted}_{k}"))
                    .find(|candidate| !taken.contains(candidate))
                    .unwrap_or_default()
            } else {
                wanted
            };
            taken.insert(name.clone());
            name
        }
        Names {
            ja: unique(&mut self.ja, wanted.ja),
            en: if wanted.en.is_empty() {
                String::new()
            } else {
                unique(&mut self.en, wanted.en)
            },
        }
    }
}

fn add(a: Vec3, b: Vec3) -> Vec3 {
    Vec3::new(a.x + b.x, a.y + b.y, a.z + b.z)
}

fn sub(a: Vec3, b: Vec3) -> Vec3 {
    Vec3::new(a.x - b.x, a.y - b.y, a.z - b.z)
}

fn scale(a: Vec3, factor: f32) -> Vec3 {
    Vec3::new(a.x * factor, a.y * factor, a.z * factor)
}

fn length(a: Vec3) -> f32 {
    (a.x * a.x + a.y * a.y + a.z * a.z).sqrt()
}

fn midpoint(a: Vec3, b: Vec3) -> Vec3 {
    scale(add(a, b), 0.5)
}

/// A bone's English name, else its Japanese one (for joint names, which need some text).
fn english_or_japanese(bone: &Bone) -> String {
    if bone.name_en.is_empty() {
        bone.name_ja.as_str().into_owned()
    } else {
        bone.name_en.as_str().into_owned()
    }
}

/// Where a selected bone's body ends: its one selected child's head, else its tail (bone or
/// offset), else the middle of its selected children's heads.
fn segment_end(bones: &[Bone], bone: usize, selected_children: &[usize]) -> Option<Vec3> {
    let head = bones[bone].position;
    if let [child] = selected_children {
        return Some(bones[*child].position);
    }
    let owner = &bones[bone];
    let tail = if owner.flags.contains(BoneFlags::TAIL_IS_BONE) {
        owner
            .tail_bone
            .and_then(|tail| bones.get(tail.get()))
            .map(|tail| tail.position)
            .filter(|&end| length(sub(end, head)) >= MIN_SEGMENT_LENGTH)
    } else {
        Some(add(head, owner.tail_offset)).filter(|_| length(owner.tail_offset) > 0.0)
    };
    if tail.is_some() || selected_children.is_empty() {
        return tail;
    }
    #[allow(clippy::cast_precision_loss)]
    let count = selected_children.len() as f32;
    let sum = selected_children
        .iter()
        .fold(Vec3::ZERO, |sum, &child| add(sum, bones[child].position));
    Some(scale(sum, 1.0 / count))
}

/// The MikuMikuDance Euler angles (radians, `x`, `y`, `z` as PMX stores them, composed Y, X,
/// Z: see [`pmx_core::model::facts::euler_to_quat`]) whose rotation takes a body's local +Y
/// (a capsule's or box's length) onto `direction`, with no turn about Y: `y` is 0,
/// `z = asin(−d.x)`, `x = atan2(d.z, d.y)` for the unit direction `d`, since
/// `Rx(x)·Rz(z)·(0, 1, 0) = (−sin z, cos z·cos x, cos z·sin x)`. PmxEditor lays bodies along
/// bones the same way (a body hanging straight down is `x = ±180°`); unlike the shortest arc
/// from +Y (what the VRM import uses) it is steady for bones that point down, as hair and
/// skirts do, and only loses the twist for a bone along ±X. `None` when `direction` is zero or
/// not finite.
fn euler_y_along(direction: Vec3) -> Option<Vec3> {
    let (dx, dy, dz) = (
        f64::from(direction.x),
        f64::from(direction.y),
        f64::from(direction.z),
    );
    let length = (dx * dx + dy * dy + dz * dz).sqrt();
    if !(length.is_finite() && length > 0.0) {
        return None;
    }
    let (dx, dy, dz) = (dx / length, dy / length, dz / length);
    #[allow(clippy::cast_possible_truncation)]
    let angles = Vec3::new(
        dz.atan2(dy) as f32,
        0.0,
        (-dx).clamp(-1.0, 1.0).asin() as f32,
    );
    Some(angles)
}

/// A body to be made or one the model has, as the joints need it.
#[derive(Debug, Clone, Copy)]
struct Placed {
    index: usize,
    position: Vec3,
    rotation: Vec3,
    mode: RigidMode,
}

impl Plugin for PhysicsFromBones {
    fn info(&self) -> PluginInfo {
        PluginInfo {
            id: "physics_from_bones".to_owned(),
            group: PluginGroup::Physics,
            name_ja: "ボーンから剛体・Joint一括生成".to_owned(),
            name_en: "Physics from bones".to_owned(),
            description_ja: "選択ボーンの連なり(髪・スカートなど)に沿って剛体とJointを作ります。各ボーンに子ボーン(または表示先)までの長さの剛体を置き、連なりの先頭はボーン追従、残りは物理演算にして、親の剛体とJointでつなぎます。「親に固定剛体」で先頭の親ボーンに固定剛体を置くと先頭も揺れます。「横につなぐ」で同じ親を持つ連なり(スカートの輪)を同じ段どうし横Jointでつなぎます。新しい剛体は同じグループどうし衝突しません。既に剛体のあるボーンには作りません。".to_owned(),
            description_en: "Makes rigid bodies and joints along the selected bone chains (hair, skirts). Each bone gets a body reaching to its child (or its tail); the first bone of a chain follows its bone, the rest are physics, each hung on its parent's body by a joint. \"Anchor\" puts a static body on the bone above each chain so that the first body swings too. \"Connect chains\" joins chains that hang from the same bone (a skirt ring) sideways at each depth. The new bodies do not collide with their own group. Bones that already have a body get no second one.".to_owned(),
            version: "1.0".to_owned(),
            needs: Needs::Selected(ElementKind::Bone),
            options: vec![
                OptionSpec::choice(
                    "shape",
                    "形状",
                    "Shape",
                    "capsule",
                    vec![
                        ("capsule", "カプセル", "Capsule"),
                        ("sphere", "球", "Sphere"),
                        ("box", "箱", "Box"),
                    ],
                ),
                OptionSpec::number(
                    "radius",
                    "半径 (0: 長さ×比率)",
                    "Radius (0: length × ratio)",
                    0.0,
                    0.0,
                    1000.0,
                    "",
                ),
                OptionSpec::number(
                    "radius_ratio",
                    "半径の比率 (長さに対して)",
                    "Radius ratio (to the length)",
                    0.2,
                    0.01,
                    2.0,
                    "",
                ),
                OptionSpec::choice(
                    "mode",
                    "物理剛体のモード",
                    "Mode of the physics bodies",
                    "physics_with_bone",
                    vec![
                        ("physics_with_bone", "物理+ボーン位置合わせ", "Physics + bone position"),
                        ("physics", "物理演算", "Physics"),
                    ],
                ),
                OptionSpec::bool(
                    "anchor",
                    "親ボーンに固定剛体 (先頭も揺らす)",
                    "Anchor on the parent bone (the first body swings too)",
                    false,
                ),
                OptionSpec::number("mass", "質量", "Mass", 1.0, 0.001, 1000.0, ""),
                OptionSpec::number(
                    "mass_decay",
                    "質量の減衰 (1段ごとの倍率)",
                    "Mass decay (factor per depth)",
                    1.0,
                    0.05,
                    1.0,
                    "",
                ),
                OptionSpec::number(
                    "linear_damping",
                    "移動減衰",
                    "Linear damping",
                    0.5,
                    0.0,
                    1.0,
                    "",
                ),
                OptionSpec::number(
                    "angular_damping",
                    "回転減衰",
                    "Angular damping",
                    0.5,
                    0.0,
                    1.0,
                    "",
                ),
                OptionSpec::integer("group", "グループ", "Group", 2, 1, 16),
                OptionSpec::bool(
                    "collide_with_own_group",
                    "同じグループと衝突",
                    "Collide with the own group",
                    false,
                ),
                OptionSpec::number(
                    "angle_limit_x",
                    "回転制限 X (±)",
                    "Rotation limit X (±)",
                    20.0,
                    0.0,
                    180.0,
                    "°",
                ),
                OptionSpec::number(
                    "angle_limit_y",
                    "回転制限 Y (±)",
                    "Rotation limit Y (±)",
                    10.0,
                    0.0,
                    180.0,
                    "°",
                ),
                OptionSpec::number(
                    "angle_limit_z",
                    "回転制限 Z (±)",
                    "Rotation limit Z (±)",
                    20.0,
                    0.0,
                    180.0,
                    "°",
                ),
                OptionSpec::number(
                    "spring_rotate",
                    "ばね 回転",
                    "Rotation spring",
                    100.0,
                    0.0,
                    100_000.0,
                    "",
                ),
                OptionSpec::bool(
                    "connect_chains",
                    "横につなぐ (同じ親の連なりどうし)",
                    "Connect chains sideways (those with the same parent)",
                    false,
                ),
                OptionSpec::choice(
                    "ring",
                    "横Jointの輪",
                    "Sideways ring",
                    "auto",
                    vec![
                        ("auto", "自動 (親を囲むとき閉じる)", "Auto (closed when around the parent)"),
                        ("closed", "閉じる", "Closed"),
                        ("open", "開く", "Open"),
                    ],
                ),
            ],
        }
    }

    fn run(&self, cx: &PluginContext<'_>) -> Result<PluginOutput, PluginError> {
        let settings = Settings::read(cx.options);
        let model = cx.model;
        let bones = &model.bones;
        let bone_count = bones.len();
        let valid_parent = |bone: usize| {
            bones[bone]
                .parent
                .map(BoneIdx::get)
                .filter(|&parent| parent < bone_count && parent != bone)
        };

        // The selection and each selected bone's selected children.
        let selected: Vec<usize> = cx
            .selection
            .get(ElementKind::Bone)
            .iter()
            .copied()
            .filter(|&bone| bone < bone_count)
            .collect();
        if selected.is_empty() {
            return Err(PluginError::NothingSelected { kind: "bone" });
        }
        let mut is_selected = vec![false; bone_count];
        for &bone in &selected {
            is_selected[bone] = true;
        }
        let mut selected_children: HashMap<usize, Vec<usize>> = HashMap::new();
        for &bone in &selected {
            if let Some(parent) = valid_parent(bone).filter(|&parent| is_selected[parent]) {
                selected_children.entry(parent).or_default().push(bone);
            }
        }
        let children_of = |bone: usize| selected_children.get(&bone).map_or(&[][..], Vec::as_slice);

        // Each selected bone's segment; those without a length make no body.
        let mut segments: HashMap<usize, (Vec3, Vec3)> = HashMap::new();
        let mut without_length = Vec::new();
        for &bone in &selected {
            let head = bones[bone].position;
            match segment_end(bones, bone, children_of(bone)) {
                Some(end)
                    if head.is_finite()
                        && end.is_finite()
                        && length(sub(end, head)) >= MIN_SEGMENT_LENGTH =>
                {
                    segments.insert(bone, (head, end));
                }
                _ => without_length.push(bone),
            }
        }
        let chain_parent = |bone: usize| valid_parent(bone).filter(|p| segments.contains_key(p));

        // Depth in its chain (0: the chain's first bone); bones in a parent loop have none.
        let mut depth: HashMap<usize, usize> = HashMap::new();
        let mut in_loop = Vec::new();
        for &bone in &selected {
            if !segments.contains_key(&bone) {
                continue;
            }
            let mut steps = 0usize;
            let mut at = bone;
            while let Some(parent) = chain_parent(at) {
                steps += 1;
                at = parent;
                if steps > segments.len() {
                    break;
                }
            }
            if steps > segments.len() {
                in_loop.push(bone);
            } else {
                depth.insert(bone, steps);
            }
        }
        // Parents before children.
        let mut order: Vec<usize> = depth.keys().copied().collect();
        order.sort_by_key(|&bone| (depth[&bone], bone));
        if order.is_empty() {
            return Err(PluginError::refused(
                "none of the selected bones has a length (a selected child or a tail away from its head): no body can lie along them",
                "選択ボーンに長さ(選択された子ボーンまたは離れた表示先)がないため、剛体を置けません",
            ));
        }

        // What the model has already: the first body on each bone, and joined body pairs.
        let existing_count = model.rigid_bodies.len();
        let mut body_on_bone: HashMap<usize, Placed> = HashMap::new();
        for (index, body) in model.rigid_bodies.iter().enumerate() {
            if let Some(bone) = body.bone.map(BoneIdx::get) {
                body_on_bone.entry(bone).or_insert(Placed {
                    index,
                    position: body.position,
                    rotation: body.rotation,
                    mode: body.mode,
                });
            }
        }
        let mut joined: HashSet<(usize, usize)> = model
            .joints
            .iter()
            .filter_map(|joint| Some((joint.body_a?.get(), joint.body_b?.get())))
            .map(|(a, b)| (a.min(b), a.max(b)))
            .collect();
        let mut body_names = UniqueNames::of(
            model
                .rigid_bodies
                .iter()
                .map(|body| (&body.name_ja, &body.name_en)),
        );
        let mut joint_names = UniqueNames::of(
            model
                .joints
                .iter()
                .map(|joint| (&joint.name_ja, &joint.name_en)),
        );

        let mut new_bodies: Vec<RigidBody> = Vec::new();
        let mut new_joints: Vec<Joint> = Vec::new();
        let mut reused = Vec::new();
        let mut anchors_made = 0usize;
        let mut anchors_reused: HashSet<usize> = HashSet::new();
        let mut unanchored = Vec::new();
        let mut anchor_of_root: HashMap<usize, Placed> = HashMap::new();

        let new_body = |new_bodies: &mut Vec<RigidBody>, body: RigidBody| {
            let placed = Placed {
                index: existing_count + new_bodies.len(),
                position: body.position,
                rotation: body.rotation,
                mode: body.mode,
            };
            new_bodies.push(body);
            placed
        };

        // Anchors: a static body on the bone above each chain (the one it has, else a ball).
        if settings.anchor {
            for &root in order.iter().filter(|&&bone| depth[&bone] == 0) {
                let Some(parent) =
                    valid_parent(root).filter(|&parent| bones[parent].position.is_finite())
                else {
                    unanchored.push(root);
                    continue;
                };
                let anchor = match body_on_bone.get(&parent) {
                    Some(&placed) => {
                        if placed.index < existing_count {
                            anchors_reused.insert(placed.index);
                        }
                        placed
                    }
                    None => {
                        let (head, end) = segments[&root];
                        let owner = &bones[parent];
                        let names = body_names.take(Names {
                            ja: owner.name_ja.as_str().into_owned(),
                            en: owner.name_en.as_str().into_owned(),
                        });
                        let placed = new_body(
                            &mut new_bodies,
                            RigidBody {
                                name_ja: names.ja.into(),
                                name_en: names.en.into(),
                                bone: Some(BoneIdx::new(parent)),
                                group: settings.group,
                                non_collision_mask: settings.non_collision_mask,
                                shape: RigidShape::Sphere,
                                size: Vec3::new(
                                    settings.radius_for(length(sub(end, head))),
                                    0.0,
                                    0.0,
                                ),
                                position: owner.position,
                                rotation: Vec3::ZERO,
                                mass: settings.mass,
                                linear_damping: settings.linear_damping,
                                angular_damping: settings.angular_damping,
                                restitution: 0.0,
                                friction: 0.5,
                                mode: RigidMode::FollowBone,
                            },
                        );
                        anchors_made += 1;
                        body_on_bone.insert(parent, placed);
                        placed
                    }
                };
                anchor_of_root.insert(root, anchor);
            }
        }

        // The bodies along the chains, and each one's joint to the body above it.
        let mut chain_joints = 0usize;
        for &bone in &order {
            let bone_depth = depth[&bone];
            let body = if let Some(&placed) = body_on_bone.get(&bone) {
                reused.push(bone);
                placed
            } else {
                let (head, end) = segments[&bone];
                let segment = sub(end, head);
                let segment_length = length(segment);
                let radius = settings.radius_for(segment_length);
                let mode = if bone_depth == 0 && !anchor_of_root.contains_key(&bone) {
                    RigidMode::FollowBone
                } else {
                    settings.dynamic_mode
                };
                #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
                let mass = settings.mass * settings.mass_decay.powi(bone_depth.min(1000) as i32);
                let owner = &bones[bone];
                let names = body_names.take(Names {
                    ja: owner.name_ja.as_str().into_owned(),
                    en: owner.name_en.as_str().into_owned(),
                });
                let placed = new_body(
                    &mut new_bodies,
                    RigidBody {
                        name_ja: names.ja.into(),
                        name_en: names.en.into(),
                        bone: Some(BoneIdx::new(bone)),
                        group: settings.group,
                        non_collision_mask: settings.non_collision_mask,
                        shape: settings.shape,
                        size: settings.size(radius, segment_length),
                        position: midpoint(head, end),
                        rotation: euler_y_along(segment).unwrap_or(Vec3::ZERO),
                        mass,
                        linear_damping: settings.linear_damping,
                        angular_damping: settings.angular_damping,
                        restitution: 0.0,
                        friction: 0.5,
                        mode,
                    },
                );
                body_on_bone.insert(bone, placed);
                placed
            };
            let above = match chain_parent(bone) {
                Some(parent) => body_on_bone.get(&parent).copied(),
                None => anchor_of_root.get(&bone).copied(),
            };
            let Some(above) = above else { continue };
            let pair = (above.index.min(body.index), above.index.max(body.index));
            if above.index == body.index || !joined.insert(pair) {
                continue;
            }
            let owner = &bones[bone];
            let names = joint_names.take(Names {
                ja: format!("J_{}", owner.name_ja.as_str()),
                en: format!("J_{}", english_or_japanese(owner)),
            });
            new_joints.push(settings.joint(
                names,
                above.index,
                body.index,
                owner.position,
                body.rotation,
            ));
            chain_joints += 1;
        }

        // Sideways joints between neighbouring chains that hang from the same bone.
        let mut sideways = 0usize;
        if settings.connect_chains {
            let mut rings: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
            for &root in order.iter().filter(|&&bone| depth[&bone] == 0) {
                if let Some(parent) = valid_parent(root) {
                    rings.entry(parent).or_default().push(root);
                }
            }
            for (parent, roots) in rings {
                if roots.len() < 2 {
                    continue;
                }
                let centre = bones[parent].position;
                let angle = |bone: usize| {
                    let offset = sub(bones[bone].position, centre);
                    offset.z.atan2(offset.x)
                };
                let mut around: Vec<(f32, usize)> =
                    roots.iter().map(|&root| (angle(root), root)).collect();
                around.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
                let closed = around.len() >= 3
                    && match settings.ring {
                        Ring::Closed => true,
                        Ring::Open => false,
                        Ring::Auto => surrounds(&around),
                    };
                let mut pairs: Vec<(usize, usize)> = around
                    .windows(2)
                    .map(|pair| (pair[0].1, pair[1].1))
                    .collect();
                if closed && let (Some(last), Some(first)) = (around.last(), around.first()) {
                    pairs.push((last.1, first.1));
                }
                for (left, right) in pairs {
                    let mut a = Some(left);
                    let mut b = Some(right);
                    while let (Some(bone_a), Some(bone_b)) = (a, b) {
                        let (Some(&body_a), Some(&body_b)) =
                            (body_on_bone.get(&bone_a), body_on_bone.get(&bone_b))
                        else {
                            break;
                        };
                        let both_static = body_a.mode == RigidMode::FollowBone
                            && body_b.mode == RigidMode::FollowBone;
                        let pair = (
                            body_a.index.min(body_b.index),
                            body_a.index.max(body_b.index),
                        );
                        if !both_static && body_a.index != body_b.index && joined.insert(pair) {
                            let (owner_a, owner_b) = (&bones[bone_a], &bones[bone_b]);
                            let names = joint_names.take(Names {
                                ja: format!(
                                    "J_{}_{}",
                                    owner_a.name_ja.as_str(),
                                    owner_b.name_ja.as_str()
                                ),
                                en: format!(
                                    "J_{}_{}",
                                    english_or_japanese(owner_a),
                                    english_or_japanese(owner_b)
                                ),
                            });
                            new_joints.push(settings.joint(
                                names,
                                body_a.index,
                                body_b.index,
                                midpoint(body_a.position, body_b.position),
                                body_a.rotation,
                            ));
                            sideways += 1;
                        }
                        let next = |bone: usize| {
                            children_of(bone)
                                .iter()
                                .copied()
                                .find(|child| depth.contains_key(child))
                        };
                        a = next(bone_a);
                        b = next(bone_b);
                    }
                }
            }
        }

        let mut notes = Vec::new();
        let names_of = |list: &[usize]| {
            list.iter()
                .take(8)
                .map(|&bone| bones[bone].name_ja.as_str().into_owned())
                .collect::<Vec<_>>()
                .join(", ")
                + if list.len() > 8 { ", …" } else { "" }
        };
        if !reused.is_empty() {
            notes.push((
                format!(
                    "{} bones already had a rigid body, which was used instead of a new one: {}",
                    reused.len(),
                    names_of(&reused)
                ),
                format!(
                    "{}個のボーンには既に剛体があるため、新しく作らずにそれを使いました: {}",
                    reused.len(),
                    names_of(&reused)
                ),
            ));
        }
        if !without_length.is_empty() {
            notes.push((
                format!(
                    "{} bones have no length (no selected child and no tail away from the head) and got no body: {}",
                    without_length.len(),
                    names_of(&without_length)
                ),
                format!(
                    "{}個のボーンは長さ(選択された子ボーンや離れた表示先)がないため剛体を作りませんでした: {}",
                    without_length.len(),
                    names_of(&without_length)
                ),
            ));
        }
        if !in_loop.is_empty() {
            notes.push((
                format!(
                    "{} bones are their own ancestors (a parent loop) and got no body: {}",
                    in_loop.len(),
                    names_of(&in_loop)
                ),
                format!(
                    "{}個のボーンは親が循環しているため剛体を作りませんでした: {}",
                    in_loop.len(),
                    names_of(&in_loop)
                ),
            ));
        }
        if !unanchored.is_empty() {
            notes.push((
                format!(
                    "{} chains start at a bone without a parent (or with one at no finite place), so their first body follows its bone: {}",
                    unanchored.len(),
                    names_of(&unanchored)
                ),
                format!(
                    "{}本の連なりは先頭ボーンに親がない(または親の位置が不正な)ため、先頭の剛体はボーン追従にしました: {}",
                    unanchored.len(),
                    names_of(&unanchored)
                ),
            ));
        }
        if !anchors_reused.is_empty() {
            let count = anchors_reused.len();
            notes.push((
                format!("the chains hang on {count} rigid bodies their parent bones already had"),
                format!("親ボーンの既存の剛体{count}個に連なりをつなぎました"),
            ));
        }

        if new_bodies.is_empty() && new_joints.is_empty() {
            return Err(PluginError::refused(
                "the selected bones already have their rigid bodies and joints: nothing to make",
                "選択ボーンには既に剛体とJointがあり、作るものがありません",
            ));
        }
        let chains = order.iter().filter(|&&bone| depth[&bone] == 0).count();
        let body_count = new_bodies.len();
        let joint_count = new_joints.len();
        let mut batch = EditBatch::new();
        if !new_bodies.is_empty() {
            batch.push(FixStep::Insert {
                at: None,
                elements: Elements::RigidBodies(new_bodies),
            });
        }
        if !new_joints.is_empty() {
            batch.push(FixStep::Insert {
                at: None,
                elements: Elements::Joints(new_joints),
            });
        }
        let mut output = PluginOutput::new(batch).with_note(
            format!(
                "{body_count} rigid bodies ({anchors_made} anchors) and {joint_count} joints ({chain_joints} along the chains, {sideways} sideways) on {chains} chains"
            ),
            format!(
                "{chains}本の連なりに剛体{body_count}個(固定剛体{anchors_made}個)とJoint{joint_count}個(縦{chain_joints}個、横{sideways}個)を作成"
            ),
        );
        for (en, ja) in notes {
            output.note(en, ja);
        }
        Ok(output)
    }
}

/// Whether chains at these angles (radians, sorted) surround their parent: no gap between
/// neighbours, the last back round to the first included, reaches half a turn.
fn surrounds(around: &[(f32, usize)]) -> bool {
    let (Some(first), Some(last)) = (around.first(), around.last()) else {
        return false;
    };
    let wrap = first.0 + std::f32::consts::TAU - last.0;
    let widest = around
        .windows(2)
        .map(|pair| pair[1].0 - pair[0].0)
        .fold(wrap, f32::max);
    widest < std::f32::consts::PI
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use pmx_core::model::facts::euler_to_quat;

    #[test]
    fn the_body_axis_lies_along_every_direction() {
        let directions = [
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, -1.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(0.0, 0.0, -1.0),
            Vec3::new(0.3, -0.9, 0.1),
            Vec3::new(-0.02, -0.99, 0.075),
            Vec3::new(0.0, -1.0, -1e-7),
            Vec3::new(2.0, 1.0, -3.0),
        ];
        for direction in directions {
            let angles = euler_y_along(direction).unwrap();
            assert_eq!(angles.y, 0.0);
            let rotation = euler_to_quat(angles);
            let axis = Vec3::from(rotation.mul_vec3(Vec3::new(0.0, 1.0, 0.0).into()));
            let unit = scale(direction, 1.0 / length(direction));
            assert!(
                length(sub(axis, unit)) < 1e-6,
                "{direction:?} → {angles:?} → {axis:?}"
            );
        }
        assert!(euler_y_along(Vec3::ZERO).is_none());
        assert!(euler_y_along(Vec3::new(f32::NAN, 1.0, 0.0)).is_none());
        // Hanging straight down: half a turn about X.
        let down = euler_y_along(Vec3::new(0.0, -2.0, 0.0)).unwrap();
        assert!((down.x.abs() - std::f32::consts::PI).abs() < 1e-6);
        assert_eq!(down.z, 0.0);
    }

    #[test]
    fn a_ring_is_closed_only_around_its_parent() {
        let degrees = |list: &[f32]| -> Vec<(f32, usize)> {
            list.iter()
                .enumerate()
                .map(|(k, d)| (d.to_radians(), k))
                .collect()
        };
        assert!(surrounds(&degrees(&[-120.0, 0.0, 120.0])));
        assert!(surrounds(&degrees(&[-180.0, -90.0, 0.0, 90.0])));
        // Bangs: three chains over 60° in front.
        assert!(!surrounds(&degrees(&[-120.0, -90.0, -60.0])));
        assert!(!surrounds(&degrees(&[0.0, 90.0, 180.0])));
    }
}
