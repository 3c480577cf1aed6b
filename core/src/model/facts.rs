//! Facts about a model that several parts of the editor need, computed one way: which faces
//! each material draws, MikuMikuDance's Euler angles, and display frame membership with the
//! special Root and 表情 frames.

use super::{BoneFlags, DisplayItem, Model, Vec3};
use glam::{EulerRot, Quat};
use std::ops::Range;

/// The name of the special frame MikuMikuDance shows first (the root bone's).
pub const ROOT_FRAME: &str = "Root";
/// The name of the special frame MikuMikuDance shows second (the morphs').
pub const EXPRESSION_FRAME: &str = "表情";

impl Model {
    /// The faces each material draws: `face_index_count / 3` faces after the previous
    /// material's, clamped to the face list (a count past the end gets what is left; a count
    /// that is not whole triangles rounds down, which the validator reports).
    #[must_use]
    pub fn material_face_ranges(&self) -> Vec<Range<usize>> {
        let len = self.faces.len();
        let mut start = 0usize;
        self.materials
            .iter()
            .map(|material| {
                let end = start.saturating_add(material.face_index_count as usize / 3);
                let range = start.min(len)..end.min(len);
                start = end;
                range
            })
            .collect()
    }

    /// The material that draws face `face` (`None` past every material's range).
    #[must_use]
    pub fn material_of_face(&self, face: usize) -> Option<usize> {
        let mut end = 0usize;
        for (index, material) in self.materials.iter().enumerate() {
            end = end.saturating_add(material.face_index_count as usize / 3);
            if face < end {
                return (face < self.faces.len()).then_some(index);
            }
        }
        None
    }

    /// The special frame named `name` ([`ROOT_FRAME`], [`EXPRESSION_FRAME`]).
    #[must_use]
    pub fn special_frame(&self, name: &str) -> Option<usize> {
        self.display_frames
            .iter()
            .position(|frame| frame.special && frame.name_ja.as_str() == name)
    }

    /// The frame that is, or is meant to be, the special frame `name`: the special one, else
    /// one of that name not marked special (what the validator's fix marks).
    #[must_use]
    pub fn intended_special_frame(&self, name: &str) -> Option<usize> {
        self.special_frame(name).or_else(|| {
            self.display_frames
                .iter()
                .position(|frame| frame.name_ja.as_str() == name)
        })
    }

    /// The frame morphs are registered in: the special 表情 frame.
    #[must_use]
    pub fn expression_frame(&self) -> Option<usize> {
        self.special_frame(EXPRESSION_FRAME)
    }

    /// Which bones and which morphs some display frame lists.
    #[must_use]
    pub fn listed_in_frames(&self) -> (Vec<bool>, Vec<bool>) {
        let mut bones = vec![false; self.bones.len()];
        let mut morphs = vec![false; self.morphs.len()];
        for item in self.display_frames.iter().flat_map(|frame| &frame.items) {
            let slot = match item {
                DisplayItem::Bone(Some(bone)) => bones.get_mut(bone.get()),
                DisplayItem::Morph(Some(morph)) => morphs.get_mut(morph.get()),
                DisplayItem::Bone(None) | DisplayItem::Morph(None) => None,
            };
            if let Some(slot) = slot {
                *slot = true;
            }
        }
        (bones, morphs)
    }

    /// Bones that belong in a display frame and are in none, ascending: visible and operable
    /// ones (the others are not meant to be keyed, as in PmxEditor).
    #[must_use]
    pub fn unlisted_bones(&self) -> Vec<usize> {
        let (listed, _) = self.listed_in_frames();
        self.bones
            .iter()
            .enumerate()
            .filter(|(b, bone)| {
                !listed[*b]
                    && bone
                        .flags
                        .contains(BoneFlags::VISIBLE | BoneFlags::OPERABLE)
            })
            .map(|(b, _)| b)
            .collect()
    }

    /// Morphs in no display frame, ascending.
    #[must_use]
    pub fn unlisted_morphs(&self) -> Vec<usize> {
        let (_, listed) = self.listed_in_frames();
        (0..self.morphs.len()).filter(|&m| !listed[m]).collect()
    }
}

/// The rotation of MikuMikuDance Euler angles in radians (`x`, `y`, `z` as PMX stores a rigid
/// body's or joint's rotation and PmxEditor shows a bone morph's, in degrees): Y, then X, then
/// Z, as MikuMikuDance composes them.
#[must_use]
pub fn euler_to_quat(radians: Vec3) -> Quat {
    Quat::from_euler(EulerRot::YXZ, radians.y, radians.x, radians.z)
}

/// The MikuMikuDance Euler angles (radians) of a rotation, inverse of [`euler_to_quat`].
#[must_use]
pub fn quat_to_euler(rotation: Quat) -> Vec3 {
    let (y, x, z) = rotation.to_euler(EulerRot::YXZ);
    Vec3::new(x, y, z)
}

/// [`euler_to_quat`] of angles in degrees, as the editor shows them.
#[must_use]
pub fn euler_degrees_to_quat(degrees: Vec3) -> Quat {
    euler_to_quat(Vec3::new(
        degrees.x.to_radians(),
        degrees.y.to_radians(),
        degrees.z.to_radians(),
    ))
}

/// [`quat_to_euler`] in degrees.
#[must_use]
pub fn quat_to_euler_degrees(rotation: Quat) -> Vec3 {
    let radians = quat_to_euler(rotation);
    Vec3::new(
        radians.x.to_degrees(),
        radians.y.to_degrees(),
        radians.z.to_degrees(),
    )
}

/// The name of the other side's element: 左↔右 everywhere, and the English markers `Left` ↔
/// `Right` (also lower and upper case), `_L` ↔ `_R` and `.L` ↔ `.R` (when not followed by a
/// letter or digit). `None` when the name has no side.
#[must_use]
pub fn mirrored_name(name: &str) -> Option<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len());
    let mut changed = false;
    let mut i = 0;
    let word_at = |i: usize, word: &str| -> bool {
        let word: Vec<char> = word.chars().collect();
        chars.get(i..i + word.len()) == Some(&word[..])
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '左' || c == '右' {
            out.push(if c == '左' { '右' } else { '左' });
            changed = true;
            i += 1;
            continue;
        }
        let mut swapped = false;
        for (from, to) in [
            ("Left", "Right"),
            ("Right", "Left"),
            ("left", "right"),
            ("right", "left"),
            ("LEFT", "RIGHT"),
            ("RIGHT", "LEFT"),
        ] {
            if word_at(i, from) {
                out.push_str(to);
                i += from.chars().count();
                changed = true;
                swapped = true;
                break;
            }
        }
        if swapped {
            continue;
        }
        if (c == '_' || c == '.')
            && let Some(&side) = chars.get(i + 1)
            && (side == 'L' || side == 'R')
            && !chars.get(i + 2).is_some_and(|next| next.is_alphanumeric())
        {
            out.push(c);
            out.push(if side == 'L' { 'R' } else { 'L' });
            changed = true;
            i += 2;
            continue;
        }
        out.push(c);
        i += 1;
    }
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::model::{DisplayFrame, Material};

    #[test]
    fn material_ranges_follow_the_counts_and_stop_at_the_faces() {
        let mut model = Model::default();
        model.faces = vec![[crate::model::VertexIdx(0); 3]; 5];
        for count in [6, 4, 9, 3] {
            model.materials.push(Material {
                face_index_count: count,
                ..Material::default()
            });
        }
        // 2 faces, 1 (4 rounds down), 3 (runs past: 2 are left), none left.
        assert_eq!(model.material_face_ranges(), vec![0..2, 2..3, 3..5, 5..5]);
        assert_eq!(model.material_of_face(0), Some(0));
        assert_eq!(model.material_of_face(2), Some(1));
        assert_eq!(model.material_of_face(4), Some(2));
        assert_eq!(model.material_of_face(5), None);
    }

    #[test]
    fn euler_angles_are_yxz_and_round_trip() {
        let angles = Vec3::new(0.3, -0.7, 1.1);
        let q = euler_to_quat(angles);
        let expected = Quat::from_rotation_y(angles.y)
            * Quat::from_rotation_x(angles.x)
            * Quat::from_rotation_z(angles.z);
        assert!(q.abs_diff_eq(expected, 1e-6));
        let back = quat_to_euler(q);
        assert!((back.x - angles.x).abs() < 1e-5);
        assert!((back.y - angles.y).abs() < 1e-5);
        assert!((back.z - angles.z).abs() < 1e-5);
        let degrees = quat_to_euler_degrees(euler_degrees_to_quat(Vec3::new(30.0, 45.0, -60.0)));
        assert!((degrees.y - 45.0).abs() < 1e-3);
    }

    #[test]
    fn frames_name_their_members_and_the_special_frames() {
        let mut model = crate::generate::sample_model();
        let expressions = model.expression_frame().unwrap();
        assert!(model.display_frames[expressions].special);
        assert_eq!(model.special_frame(ROOT_FRAME), Some(0));
        model.display_frames.push(DisplayFrame::default());
        let (bones, _) = model.listed_in_frames();
        assert_eq!(bones.len(), model.bones.len());
        for bone in model.unlisted_bones() {
            assert!(!bones[bone]);
        }
    }
}
