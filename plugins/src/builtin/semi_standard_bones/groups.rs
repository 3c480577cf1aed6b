//! How each group of semi-standard bones is made: where the bones go, what they are wired to,
//! which weights, rigid bodies and display frame items move to them. Positions, flags, layers
//! and weight rules are the semi-standard bone plugin's (as nanoem's port of it reproduces
//! them); a model's existing bones are only re-parented where the new bone goes between them.

use super::work::{DEDICATED, Work, bdef2, contains, new_bone, replaced, share};
use glam::Vec3;
use pmx_core::edit::{EditError, field};
use pmx_core::model::{Bone, BoneFlags, BoneIdx, DisplayItem, Weight};

/// Right or left, as MMD names them (右腕, arm_R).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Right,
    Left,
}

impl Side {
    /// The plugin's order.
    pub(super) const BOTH: [Side; 2] = [Side::Right, Side::Left];

    pub(super) fn ja(self) -> &'static str {
        match self {
            Side::Right => "右",
            Side::Left => "左",
        }
    }

    pub(super) fn en(self) -> &'static str {
        match self {
            Side::Right => "R",
            Side::Left => "L",
        }
    }
}

const VISIBLE_ROTATABLE: BoneFlags = BoneFlags::ROTATABLE
    .union(BoneFlags::VISIBLE)
    .union(BoneFlags::OPERABLE);
const HANDLE: BoneFlags = VISIBLE_ROTATABLE.union(BoneFlags::MOVABLE);
/// A bone that only carries an append: rotatable (so the append applies) and operable, but
/// not shown (腰キャンセル, 肩C, 腕捩1).
const APPEND_ONLY: BoneFlags = BoneFlags::ROTATABLE
    .union(BoneFlags::OPERABLE)
    .union(BoneFlags::APPEND_ROTATE);

/// Bones that stay where they are when a bone is put between a parent and its children: IK
/// bones and their parents keep following the root, not the body.
fn keeps_parent(bone: &Bone) -> bool {
    let name = bone.name_ja.as_str();
    bone.is_ik() || name.ends_with("IK親") || name.ends_with("ＩＫ親") || name == "センター先"
}

/// 腕捩 (arm twist) or 手捩 (wrist twist) of one side, with its three helpers 腕捩1-3 that
/// take a quarter, a half and three quarters of its rotation, and the weights of the vertices
/// that were the upper bone's alone spread over the helpers by their place along the bone.
pub(super) struct Twist {
    pub name_ja: String,
    pub name_en: String,
    /// 腕 / ひじ: the bone being split.
    pub upper: String,
    /// ひじ / 手首: where it ends.
    pub lower: String,
    /// The helpers' English stem ("arm twist" → "arm twist1_R").
    pub helper_en: &'static str,
    pub side: Side,
    /// Move the end towards the depth of the upper bone's vertices (回転自動補正, arm only).
    pub elbow_offset: bool,
    pub frames: bool,
}

pub(super) fn twist(work: &mut Work<'_>, twist: &Twist) -> Result<(), EditError> {
    let (Some(upper), Some(lower)) = (work.bone(&twist.upper), work.bone(&twist.lower)) else {
        return Ok(());
    };
    let upper_at = work.position(upper);
    let mut lower_at = work.position(lower);
    if twist.elbow_offset {
        // An elbow bent back or forward in the mesh: the twist axis follows the arm's vertices.
        let (mut sum, mut count) = (0.0f32, 0usize);
        for vertex in &work.model().vertices {
            if share(&vertex.weight, upper) > 0.6 {
                sum += vertex.position.z;
                count += 1;
            }
        }
        if count > 0 {
            lower_at.z += (sum / count as f32 - lower_at.z) * 0.75;
        }
    }
    let axis = (lower_at - upper_at).normalize_or_zero();
    if axis == Vec3::ZERO || !lower_at.is_finite() {
        return Ok(());
    }
    let origin = upper_at.lerp(lower_at, 0.6);
    let layer = work.model().bones[upper].layer;

    let mut bone = new_bone(&twist.name_ja, &twist.name_en, origin, Some(upper));
    bone.flags = VISIBLE_ROTATABLE | BoneFlags::FIXED_AXIS;
    bone.fixed_axis = axis.into();
    bone.layer = layer;
    let twist_bone = work.insert_bone(upper + 1, bone)?;
    let lower = if lower >= twist_bone {
        lower + 1
    } else {
        lower
    };

    // How far along the axis the upper bone's own vertices reach: the helpers share that span.
    let mut upper_dot = (upper_at - origin).dot(axis) * 0.8;
    let mut lower_dot = (lower_at - origin).dot(axis) * 0.8;
    for vertex in &work.model().vertices {
        if share(&vertex.weight, upper) > DEDICATED {
            let along = (Vec3::from(vertex.position) - origin).dot(axis);
            upper_dot = upper_dot.min(along);
            lower_dot = lower_dot.max(along);
        }
    }

    let mut helpers = [0usize; 3];
    for (i, slot) in helpers.iter_mut().enumerate() {
        let ratio = (i + 1) as f32 / 4.0;
        let at = origin + axis * (upper_dot + (lower_dot - upper_dot) * ratio);
        let mut helper = new_bone(
            &format!("{}{}", twist.name_ja, i + 1),
            &format!("{}{}_{}", twist.helper_en, i + 1, twist.side.en()),
            at,
            Some(upper),
        );
        helper.flags = APPEND_ONLY;
        helper.append_parent = Some(BoneIdx::new(twist_bone));
        helper.append_ratio = ratio;
        helper.layer = layer;
        *slot = work.insert_bone(twist_bone + 1 + i, helper)?;
    }
    // The helpers went in after the twist bone: indices past it moved by three.
    let lower = if lower > twist_bone { lower + 3 } else { lower };

    let span = lower_dot - upper_dot;
    let mut changes: Vec<(usize, Weight)> = Vec::new();
    for (index, vertex) in work.model().vertices.iter().enumerate() {
        let along = (Vec3::from(vertex.position) - origin).dot(axis);
        if share(&vertex.weight, upper) > DEDICATED {
            if span <= 0.0 {
                continue;
            }
            let delta = (along - upper_dot) / span * 4.0;
            // Whole hundredths, as the plugin writes them.
            let weight = ((100.0 * delta) as i64 % 100) as f32 / 100.0;
            let (first, second) = match delta as i64 {
                0 => (helpers[0], upper),
                1 => (helpers[1], helpers[0]),
                2 => (helpers[2], helpers[1]),
                3 => (twist_bone, helpers[2]),
                _ => (lower, twist_bone),
            };
            changes.push((index, bdef2(first, second, weight)));
        } else if along > 0.0
            && contains(&vertex.weight, lower)
            && let Some(weight) = replaced(&vertex.weight, upper, twist_bone)
        {
            // Shared with the lower bone past the twist bone: the twist bone takes the upper
            // bone's share.
            changes.push((index, weight));
        }
    }
    work.set_weights(changes)?;
    work.set(
        field::<Bone>().parent(),
        lower,
        Some(BoneIdx::new(twist_bone)),
    )?;
    if twist.frames {
        work.list_beside(twist_bone, upper, true)?;
    }
    Ok(())
}

/// 上半身2 (upper body2) between 上半身 and 首: 上半身's children and rigid bodies move to it,
/// and the vertices that were 上半身's alone are shared by height.
pub(super) fn upper_body_2(work: &mut Work<'_>, frames: bool) -> Result<(), EditError> {
    let (Some(spine), Some(neck)) = (work.bone("上半身"), work.bone("首")) else {
        return Ok(());
    };
    let spine_at = work.position(spine);
    let neck_at = work.position(neck);
    let origin = spine_at.lerp(neck_at, 0.35);
    let mut bone = new_bone("上半身2", "upper body2", origin, Some(spine));
    bone.flags = VISIBLE_ROTATABLE;
    bone.tail_offset = ((neck_at - origin) * 0.8).into();
    bone.layer = work.model().bones[spine].layer;
    let chest = work.insert_bone(spine + 1, bone)?;
    work.set(
        field::<Bone>().tail_bone(),
        spine,
        Some(BoneIdx::new(chest)),
    )?;
    let flags = work.model().bones[spine].flags | BoneFlags::TAIL_IS_BONE;
    work.set(field::<Bone>().flags(), spine, flags)?;

    let height = neck_at.y - origin.y;
    let mut changes = Vec::new();
    for (index, vertex) in work.model().vertices.iter().enumerate() {
        let at = Vec3::from(vertex.position);
        if share(&vertex.weight, spine) > DEDICATED {
            let mut offset = at - origin;
            // The back rises with the chest further up than the front.
            if offset.z > 0.0 {
                offset.y += offset.z * 0.5;
            }
            let v = if height != 0.0 {
                offset.y / height
            } else {
                0.0
            };
            let weight = if v < -0.35 {
                Weight::Bdef1 {
                    bone: Some(BoneIdx::new(spine)),
                }
            } else if v > 0.35 {
                Weight::Bdef1 {
                    bone: Some(BoneIdx::new(chest)),
                }
            } else {
                let w = (((v + 0.35) / 0.7) * 100.0) as i64 as f32 * 0.01;
                bdef2(chest, spine, w)
            };
            changes.push((index, weight));
        } else if at.y > origin.y
            && let Some(weight) = replaced(&vertex.weight, spine, chest)
        {
            changes.push((index, weight));
        }
    }
    work.set_weights(changes)?;
    let children: Vec<usize> = work
        .children(spine)
        .into_iter()
        .filter(|&child| child != chest)
        .collect();
    work.set_parents(children, chest)?;
    work.move_bodies(spine, chest)?;
    if frames {
        work.list_beside(chest, spine, true)?;
    }
    Ok(())
}

/// 腰 (waist) between 下半身's parent and the body, with 腰キャンセル右/左 above the legs
/// taking back its rotation (append rotation −1), so the legs keep their direction.
pub(super) fn waist(work: &mut Work<'_>, frames: bool) -> Result<(), EditError> {
    let Some(lower_body) = work.bone("下半身") else {
        return Ok(());
    };
    let Some(parent) = work.model().bones[lower_body].parent.map(BoneIdx::get) else {
        return Ok(());
    };
    if parent >= work.model().bones.len() {
        return Ok(());
    }
    let Some(leg) = work.bone("右足").or_else(|| work.bone("左足")) else {
        return Ok(());
    };
    let lower_at = work.position(lower_body);
    let leg_at = work.position(leg);
    let origin = Vec3::new(
        0.0,
        lower_at.y + (leg_at.y - lower_at.y) * 0.6,
        lower_at.y * 0.02,
    );
    let mut bone = new_bone("腰", "waist", origin, Some(parent));
    bone.flags = VISIBLE_ROTATABLE;
    bone.tail_offset = ((lower_at - origin) * 0.8).into();
    bone.layer = work.model().bones[parent].layer;
    let waist = work.insert_bone(parent + 1, bone)?;
    let children: Vec<usize> = work
        .children(parent)
        .into_iter()
        .filter(|&child| child != waist && !keeps_parent(&work.model().bones[child]))
        .collect();
    work.set_parents(children, waist)?;
    if frames && !work.list_beside(waist, parent, true)? {
        let frame = work.center_frame()?;
        let end = work.model().display_frames[frame].items.len();
        work.insert_item(frame, end, waist)?;
    }
    for side in Side::BOTH {
        let name = format!("腰キャンセル{}", side.ja());
        if work.bone(&name).is_some() {
            continue;
        }
        let Some(leg) = work.bone(&format!("{}足", side.ja())) else {
            continue;
        };
        let leg_bone = &work.model().bones[leg];
        let mut cancel = new_bone(
            &name,
            &format!("waist cancel_{}", side.en()),
            leg_bone.position.into(),
            leg_bone.parent.map(BoneIdx::get),
        );
        cancel.flags = APPEND_ONLY;
        cancel.append_parent = Some(BoneIdx::new(waist));
        cancel.append_ratio = -1.0;
        cancel.layer = leg_bone.layer;
        let cancel = work.insert_bone(leg, cancel)?;
        work.set(
            field::<Bone>().parent(),
            cancel + 1,
            Some(BoneIdx::new(cancel)),
        )?;
    }
    Ok(())
}

/// The leg IK bone of `side`, full-width ＩＫ as MMD names it, else half-width.
pub(super) fn leg_ik_name(model: &pmx_core::Model, side: Side) -> Option<String> {
    [format!("{}足ＩＫ", side.ja()), format!("{}足IK", side.ja())]
        .into_iter()
        .find(|name| super::work::bone_named(model, name).is_some())
}

/// 足IK親 (leg IKP) on the floor under the leg IK bone, between it and its parent.
pub(super) fn leg_ik_parent(
    work: &mut Work<'_>,
    side: Side,
    frames: bool,
) -> Result<(), EditError> {
    let Some(ik) = leg_ik_name(work.model(), side).and_then(|name| work.bone(&name)) else {
        return Ok(());
    };
    let ik_bone = &work.model().bones[ik];
    let at = ik_bone.position;
    let parent = ik_bone.parent.map(BoneIdx::get);
    let mut bone = new_bone(
        &format!("{}足IK親", side.ja()),
        &format!("leg IKP_{}", side.en()),
        Vec3::new(at.x, 0.0, at.z),
        parent,
    );
    bone.flags = HANDLE | BoneFlags::TAIL_IS_BONE;
    bone.tail_bone = Some(BoneIdx::new(ik));
    bone.layer = parent
        .and_then(|p| work.model().bones.get(p))
        .map_or(0, |p| p.layer);
    let new = work.insert_bone(ik, bone)?;
    let ik = new + 1;
    work.set(field::<Bone>().parent(), ik, Some(BoneIdx::new(new)))?;
    if frames {
        work.list_beside(new, ik, false)?;
    }
    Ok(())
}

/// 足D, ひざD, 足首D (the leg as the mesh sees it: append rotation 1.0 from 足, ひざ, 足首, so
/// a motion's leg keys still move it) and 足先EX (toes) under 足首D, at the end of the bone
/// list. The leg's vertices and rigid bodies move to the D-bones; the vertices that were the
/// ankle's alone are shared with 足先EX towards the toes.
pub(super) fn leg_d(
    work: &mut Work<'_>,
    side: Side,
    operable: bool,
    frames: bool,
) -> Result<(), EditError> {
    let s = side.ja();
    let (Some(leg), Some(knee), Some(ankle)) = (
        work.bone(&format!("{s}足")),
        work.bone(&format!("{s}ひざ")),
        work.bone(&format!("{s}足首")),
    ) else {
        return Ok(());
    };
    let Some(toe) = work
        .bone(&format!("{s}つま先ＩＫ"))
        .or_else(|| work.bone(&format!("{s}つま先IK")))
        .or_else(|| work.bone(&format!("{s}つま先")))
    else {
        return Ok(());
    };
    let ankle_at = work.position(ankle);
    let toe_at = work.position(toe);
    let toes_at = ankle_at.lerp(toe_at, 2.0 / 3.0);

    let mut parent = work.model().bones[leg].parent.map(BoneIdx::get);
    let mut made = [0usize; 3];
    for (slot, (original, name_en)) in
        made.iter_mut()
            .zip([(leg, "legD"), (knee, "kneeD"), (ankle, "ankleD")])
    {
        let source = &work.model().bones[original];
        let mut bone = source.clone();
        bone.name_ja = format!("{}D", source.name_ja.as_str()).into();
        bone.name_en = format!("{name_en}_{}", side.en()).into();
        bone.parent = parent.map(BoneIdx::new);
        let mut flags = source.flags
            - (BoneFlags::IK
                | BoneFlags::TAIL_IS_BONE
                | BoneFlags::APPEND_MOVE
                | BoneFlags::LOCAL_APPEND);
        if !operable {
            flags -= BoneFlags::VISIBLE | BoneFlags::OPERABLE;
        }
        bone.flags = flags | BoneFlags::APPEND_ROTATE;
        if source.flags.contains(BoneFlags::TAIL_IS_BONE) {
            bone.tail_offset = pmx_core::model::Vec3::ZERO;
        }
        bone.tail_bone = None;
        bone.append_parent = Some(BoneIdx::new(original));
        bone.append_ratio = 1.0;
        bone.ik = pmx_core::model::Ik::default();
        // After the original, and after the IK that turns it (the append must see the IK's
        // rotation).
        bone.layer = (source.layer + 1).max(ik_layer_of(work.model(), original));
        let end = work.model().bones.len();
        *slot = work.insert_bone(end, bone)?;
        parent = Some(*slot);
    }
    let mut toes = new_bone(
        &format!("{s}足先EX"),
        &format!("toe2_{}", side.en()),
        toes_at,
        Some(made[2]),
    );
    toes.flags = VISIBLE_ROTATABLE;
    toes.tail_offset = pmx_core::model::Vec3::new(0.0, 0.0, -1.0);
    toes.layer = work.model().bones[made[2]].layer;
    let end = work.model().bones.len();
    let toes = work.insert_bone(end, toes)?;

    let depth = toes_at.z - ankle_at.z;
    let mut changes = Vec::new();
    for (index, vertex) in work.model().vertices.iter().enumerate() {
        let mut weight = if share(&vertex.weight, ankle) > DEDICATED {
            let along = if depth != 0.0 {
                (vertex.position.z - ankle_at.z) / depth
            } else {
                0.0
            };
            bdef2(toes, ankle, ((along - 0.75) * 2.0).clamp(0.0, 1.0))
        } else if [leg, knee, ankle]
            .iter()
            .any(|&bone| contains(&vertex.weight, bone))
        {
            vertex.weight.clone()
        } else {
            continue;
        };
        for (from, to) in [(leg, made[0]), (knee, made[1]), (ankle, made[2])] {
            if let Some(new) = replaced(&weight, from, to) {
                weight = new;
            }
        }
        changes.push((index, weight));
    }
    work.set_weights(changes)?;
    for (from, to) in [(leg, made[0]), (knee, made[1]), (ankle, made[2])] {
        work.move_bodies(from, to)?;
    }
    if frames && work.list_beside(toes, ankle, true)? && operable {
        for &bone in made.iter().rev() {
            work.list_beside(bone, ankle, true)?;
        }
    }
    Ok(())
}

/// The highest layer of the IK bones that turn `bone` (0 when none does).
fn ik_layer_of(model: &pmx_core::Model, bone: usize) -> i32 {
    model
        .bones
        .iter()
        .filter(|ik| {
            ik.is_ik()
                && (ik.ik.target.map(BoneIdx::get) == Some(bone)
                    || ik
                        .ik
                        .links
                        .iter()
                        .any(|l| l.bone.map(BoneIdx::get) == Some(bone)))
        })
        .map(|ik| ik.layer)
        .max()
        .unwrap_or(0)
}

/// 肩P (shoulderP) above 肩 and 肩C (shoulder cancel) under it at the arm, taking back 肩P's
/// rotation (append rotation −1), so 肩P lifts the shoulder without turning the arm.
pub(super) fn shoulder(work: &mut Work<'_>, side: Side, frames: bool) -> Result<(), EditError> {
    let s = side.ja();
    let (Some(shoulder), Some(arm)) = (work.bone(&format!("{s}肩")), work.bone(&format!("{s}腕")))
    else {
        return Ok(());
    };
    let shoulder_bone = &work.model().bones[shoulder];
    let layer = shoulder_bone.layer;
    let mut p = new_bone(
        &format!("{s}肩P"),
        &format!("shoulderP_{}", side.en()),
        shoulder_bone.position.into(),
        shoulder_bone.parent.map(BoneIdx::get),
    );
    p.flags = VISIBLE_ROTATABLE;
    p.layer = layer;
    let p = work.insert_bone(shoulder, p)?;
    let shoulder = p + 1;
    let arm = if arm >= p { arm + 1 } else { arm };
    let mut c = new_bone(
        &format!("{s}肩C"),
        &format!("shoulderC_{}", side.en()),
        work.position(arm),
        Some(shoulder),
    );
    c.flags = APPEND_ONLY;
    c.append_parent = Some(BoneIdx::new(p));
    c.append_ratio = -1.0;
    c.layer = layer;
    let c = work.insert_bone(shoulder + 1, c)?;
    let arm = if arm >= c { arm + 1 } else { arm };
    work.set(field::<Bone>().parent(), shoulder, Some(BoneIdx::new(p)))?;
    work.set(field::<Bone>().parent(), arm, Some(BoneIdx::new(c)))?;
    if frames {
        work.list_beside(p, shoulder, false)?;
    }
    Ok(())
}

/// 親指０ (thumb0) two thirds of the way from the wrist to 親指１, above it; the wrist's and
/// 親指１'s vertices near the thumb's base share their weight with it, and (when asked) the
/// thumb gets local axes along its joints.
pub(super) fn thumb0(
    work: &mut Work<'_>,
    side: Side,
    local_axes: bool,
    frames: bool,
) -> Result<(), EditError> {
    let s = side.ja();
    let (Some(wrist), Some(thumb1)) = (
        work.bone(&format!("{s}手首")),
        work.bone(&format!("{s}親指１")),
    ) else {
        return Ok(());
    };
    let wrist_at = work.position(wrist);
    let thumb1_at = work.position(thumb1);
    let origin = wrist_at.lerp(thumb1_at, 2.0 / 3.0);
    let mut bone = new_bone(
        &format!("{s}親指０"),
        &format!("thumb0_{}", side.en()),
        origin,
        Some(wrist),
    );
    bone.flags = VISIBLE_ROTATABLE | BoneFlags::TAIL_IS_BONE;
    bone.tail_bone = Some(BoneIdx::new(thumb1));
    bone.layer = work.model().bones[wrist].layer;
    let thumb0 = work.insert_bone(thumb1, bone)?;
    let thumb1 = thumb0 + 1;
    let wrist = if wrist >= thumb0 { wrist + 1 } else { wrist };
    work.set(field::<Bone>().parent(), thumb1, Some(BoneIdx::new(thumb0)))?;
    if frames {
        work.list_beside(thumb0, thumb1, false)?;
    }

    // The plugin measures each vertex's distance from a line through the middle of the new
    // bone, slanting down and out across the hand.
    let direction = match side {
        Side::Right => Vec3::new(1.0, -1.0, 0.0),
        Side::Left => Vec3::new(-1.0, -1.0, 0.0),
    }
    .normalize();
    let middle = (origin + thumb1_at) * 0.5;
    let reach = (thumb1_at - origin).length() * 1.4;
    let mut changes = Vec::new();
    if reach > 0.0 {
        for (index, vertex) in work.model().vertices.iter().enumerate() {
            let old = &vertex.weight;
            if !contains(old, wrist) && !contains(old, thumb1) {
                continue;
            }
            let offset = Vec3::from(vertex.position) - middle;
            let distance = (offset - offset.dot(direction) * direction).length() / reach;
            if distance.is_nan() || distance >= 1.0 {
                continue;
            }
            let weight = ((1.0 - distance) * 1.3).clamp(0.0, 1.0);
            let new = if share(old, wrist) > DEDICATED {
                bdef2(thumb0, wrist, weight)
            } else if share(old, thumb1) > DEDICATED {
                bdef2(thumb0, thumb1, weight)
            } else {
                moved_to_thumb(old, wrist, thumb0, weight)
            };
            if new != *old {
                changes.push((index, new));
            }
        }
    }
    work.set_weights(changes)?;

    if local_axes {
        thumb_local_axes(work, side, thumb0)?;
    }
    Ok(())
}

/// A vertex shared by the wrist and other bones near the thumb's base: the wrist's slots go
/// to 親指０, raised to `weight` when they held less, the other slots scaled so the weights
/// still sum to one.
fn moved_to_thumb(old: &Weight, wrist: usize, thumb0: usize, weight: f32) -> Weight {
    let mut new = old.clone();
    let thumb = Some(BoneIdx::new(thumb0));
    match &mut new {
        Weight::Bdef1 { bone } => {
            if bone.map(BoneIdx::get) == Some(wrist) {
                *bone = thumb;
            }
        }
        Weight::Bdef2 { bones, weight: w0 }
        | Weight::Sdef {
            bones, weight: w0, ..
        } => {
            if bones[0].map(BoneIdx::get) == Some(wrist) {
                bones[0] = thumb;
                if *w0 < weight {
                    *w0 = weight;
                }
            }
            if bones[1].map(BoneIdx::get) == Some(wrist) {
                bones[1] = thumb;
                if 1.0 - *w0 < weight {
                    *w0 = 1.0 - weight;
                }
            }
        }
        Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
            for i in 0..4 {
                if bones[i].map(BoneIdx::get) != Some(wrist) {
                    continue;
                }
                bones[i] = thumb;
                if weights[i] < weight {
                    let others: f32 = (0..4).filter(|&j| j != i).map(|j| weights[j]).sum();
                    weights[i] = weight;
                    if others > 0.0 {
                        for j in (0..4).filter(|&j| j != i) {
                            weights[j] *= (1.0 - weight) / others;
                        }
                    }
                }
            }
        }
    }
    new
}

/// Local axes of 親指０, 親指１ and 親指２: X along each joint, Z across the thumb (the
/// plugin's 親指ローカル軸設定).
fn thumb_local_axes(work: &mut Work<'_>, side: Side, thumb0: usize) -> Result<(), EditError> {
    let s = side.ja();
    let (Some(thumb1), Some(thumb2), Some(index1)) = (
        work.bone(&format!("{s}親指１")),
        work.bone(&format!("{s}親指２")),
        work.bone(&format!("{s}人指１")),
    ) else {
        return Ok(());
    };
    let at0 = work.position(thumb0);
    let at1 = work.position(thumb1);
    let at2 = work.position(thumb2);
    let index_at = work.position(index1);
    let bend = at2 - at1;
    let mut across = match side {
        Side::Right => Vec3::new(-bend.y, bend.x, 0.0),
        Side::Left => Vec3::new(bend.y, -bend.x, 0.0),
    };
    across.z = -across.length() * 0.2;
    let thumb2_bone = &work.model().bones[thumb2];
    let thumb2_end = if thumb2_bone.flags.contains(BoneFlags::TAIL_IS_BONE) {
        thumb2_bone
            .tail_bone
            .map_or(at2, |tail| work.position(tail.get()))
    } else {
        at2 + Vec3::from(thumb2_bone.tail_offset)
    };
    for (bone, x, z) in [
        (thumb0, at1 - at0, at0 - index_at),
        (thumb1, at2 - at1, across),
        (thumb2, thumb2_end - at2, across),
    ] {
        let (x, z) = (x.normalize_or_zero(), z.normalize_or_zero());
        if x == Vec3::ZERO || z == Vec3::ZERO {
            continue;
        }
        let flags = work.model().bones[bone].flags | BoneFlags::LOCAL_AXES;
        work.set(field::<Bone>().flags(), bone, flags)?;
        work.set(field::<Bone>().local_axis_x(), bone, x.into())?;
        work.set(field::<Bone>().local_axis_z(), bone, z.into())?;
    }
    Ok(())
}

/// グルーブ (groove) just above センター, between it and its children.
pub(super) fn groove(work: &mut Work<'_>, frames: bool) -> Result<(), EditError> {
    let Some(center) = work.bone("センター") else {
        return Ok(());
    };
    let mut bone = new_bone(
        "グルーブ",
        "groove",
        work.position(center) + Vec3::new(0.0, 0.2, 0.0),
        Some(center),
    );
    bone.flags = HANDLE;
    bone.tail_offset = pmx_core::model::Vec3::new(0.0, 1.4, 0.0);
    bone.layer = work.model().bones[center].layer;
    let groove = work.insert_bone(center + 1, bone)?;
    let children: Vec<usize> = work
        .children(center)
        .into_iter()
        .filter(|&child| child != groove && !keeps_parent(&work.model().bones[child]))
        .collect();
    work.set_parents(children, groove)?;
    if frames && !work.list_beside(groove, center, true)? {
        let frame = work.center_frame()?;
        let end = work.model().display_frames[frame].items.len();
        work.insert_item(frame, end, groove)?;
    }
    Ok(())
}

/// 両目 (eyes) above the eyes, under 頭; eyes without an append of their own follow it
/// (append rotation 1.0), as MMD's eye motions expect.
pub(super) fn eyes(work: &mut Work<'_>, frames: bool) -> Result<(), EditError> {
    let (Some(head), Some(left), Some(right)) =
        (work.bone("頭"), work.bone("左目"), work.bone("右目"))
    else {
        return Ok(());
    };
    let (left_at, right_at) = (work.position(left), work.position(right));
    let spacing = (left_at - right_at).length();
    let middle = (left_at + right_at) * 0.5;
    let origin = middle + Vec3::new(0.0, spacing * 2.0, 0.0);
    let mut bone = new_bone("両目", "eyes", origin, Some(head));
    bone.flags = VISIBLE_ROTATABLE;
    bone.tail_offset = pmx_core::model::Vec3::new(0.0, 0.0, -spacing.max(0.1));
    bone.layer = work.model().bones[head].layer;
    // Before the eyes, so their append reads it after it turned.
    let at = left.min(right).max(head + 1);
    let both = work.insert_bone(at, bone)?;
    for eye in [left, right] {
        let eye = if eye >= both { eye + 1 } else { eye };
        let eye_bone = &work.model().bones[eye];
        if eye_bone.has_append() {
            continue;
        }
        let flags = eye_bone.flags | BoneFlags::APPEND_ROTATE;
        work.set(field::<Bone>().flags(), eye, flags)?;
        work.set(
            field::<Bone>().append_parent(),
            eye,
            Some(BoneIdx::new(both)),
        )?;
        work.set(field::<Bone>().append_ratio(), eye, 1.0)?;
    }
    if frames {
        let right = if right >= both { right + 1 } else { right };
        let left = if left >= both { left + 1 } else { left };
        let first_listed = [right, left]
            .into_iter()
            .filter_map(|eye| work.listed_at(eye))
            .min();
        match first_listed {
            Some((frame, at)) => work.insert_item(frame, at, both)?,
            None => {
                work.list_beside(both, head, true)?;
            }
        }
    }
    Ok(())
}

/// Puts `root` alone in the Root frame; what Root listed moves to the front of the センター
/// frame unless another frame lists it.
fn take_root_frame(work: &mut Work<'_>, root: usize) -> Result<(), EditError> {
    let Some(root_frame) = work.root_frame() else {
        return Ok(());
    };
    let previous: Vec<DisplayItem> = work.model().display_frames[root_frame]
        .items
        .iter()
        .copied()
        .filter(|item| match item {
            DisplayItem::Bone(Some(bone)) => {
                bone.get() != root && work.listed_at(bone.get()).is_none()
            }
            _ => false,
        })
        .collect();
    if !previous.is_empty() {
        let frame = work.center_frame()?;
        let mut items = previous;
        items.extend(work.model().display_frames[frame].items.iter().copied());
        work.set_items(frame, items)?;
    }
    let root_frame = work.root_frame().unwrap_or(root_frame);
    work.set_items(
        root_frame,
        vec![DisplayItem::Bone(Some(BoneIdx::new(root)))],
    )
}

/// 全ての親 (master) at index 0, the parent of every bone that had none (but 操作中心), its
/// tail at the bone that was first.
pub(super) fn master(work: &mut Work<'_>, frames: bool) -> Result<(), EditError> {
    if work.model().bones.is_empty() {
        return Ok(());
    }
    let mut bone = new_bone("全ての親", "master", Vec3::ZERO, None);
    bone.flags = HANDLE | BoneFlags::TAIL_IS_BONE;
    bone.tail_bone = Some(BoneIdx::new(0));
    let master = work.insert_bone(0, bone)?;
    let orphans: Vec<usize> = work
        .model()
        .bones
        .iter()
        .enumerate()
        .filter(|(index, bone)| {
            *index != master && bone.parent.is_none() && bone.name_ja.as_str() != "操作中心"
        })
        .map(|(index, _)| index)
        .collect();
    work.set_parents(orphans, master)?;
    if frames {
        take_root_frame(work, master)?;
    }
    Ok(())
}

/// 操作中心 (view cnt) at index 0: MMD's camera turns around it; it takes the Root frame.
pub(super) fn view_center(work: &mut Work<'_>, frames: bool) -> Result<(), EditError> {
    let mut bone = new_bone("操作中心", "view cnt", Vec3::ZERO, None);
    bone.flags = HANDLE;
    let center = work.insert_bone(0, bone)?;
    if frames {
        take_root_frame(work, center)?;
    }
    Ok(())
}
