//! VMD motions (Vocaloid Motion Data): bone and morph tracks (and the show/IK switches) read
//! with a bounded reader, bound to a model by Shift-JIS name, sampled at any frame.
//!
//! Layout (little endian): 30-byte signature; model name (20 bytes, 10 in the old
//! "Vocaloid Motion Data file" version); bone keys (count, then 111 bytes each: name 15, frame
//! u32, translation 3×f32, rotation quaternion 4×f32, interpolation 64 bytes); morph keys
//! (count, then 23 bytes: name 15, frame, weight); camera (61 bytes), light (28) and self-shadow
//! (9) keys; show/IK keys (frame, shown u8, count, then name 20 + enabled u8 each). Every section
//! after the bones may be missing at the end of the file.

use super::bytes::{ByteReader, Input};
use super::cp932::{NameMatcher, SjisName};
use super::error::{LoadOptions, ReadError};
use crate::i18n::Message;
use crate::model::{BoneIdx, Model, MorphIdx, Vec3, Vec4};
use crate::pose::Pose;
use std::collections::HashMap;

/// Signature of current VMD files (20-byte model name).
pub const SIGNATURE: &[u8] = b"Vocaloid Motion Data 0002";
/// Signature of the first VMD version (10-byte model name).
pub const SIGNATURE_OLD: &[u8] = b"Vocaloid Motion Data file";

/// Bytes of a bone or morph name field.
pub const NAME_LEN: usize = 15;
/// Bytes of an IK bone name field in the show/IK section.
pub const IK_NAME_LEN: usize = 20;

const BONE_KEY_LEN: usize = 111;
const MORPH_KEY_LEN: usize = 23;
const CAMERA_KEY_LEN: usize = 61;
const LIGHT_KEY_LEN: usize = 28;
const SHADOW_KEY_LEN: usize = 9;

/// A bone key frame.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneKey {
    pub frame: u32,
    pub translation: Vec3,
    /// Quaternion x, y, z, w.
    pub rotation: Vec4,
    /// The 64 interpolation bytes as stored. They describe the curves of the segment that
    /// ends at this key.
    pub interpolation: [u8; 64],
}

/// The four Bezier curves of a bone key: X, Y, Z translation and rotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoneCurves {
    pub x: Bezier,
    pub y: Bezier,
    pub z: Bezier,
    pub rotation: Bezier,
}

impl BoneKey {
    /// The curves: for channel `c` (X, Y, Z, rotation) the control points are bytes
    /// `c`, `4 + c` (first point x, y) and `8 + c`, `12 + c` (second point x, y).
    #[must_use]
    pub fn curves(&self) -> BoneCurves {
        let b = &self.interpolation;
        let curve = |c: usize| Bezier::new(b[c], b[4 + c], b[8 + c], b[12 + c]);
        BoneCurves {
            x: curve(0),
            y: curve(1),
            z: curve(2),
            rotation: curve(3),
        }
    }
}

/// An interpolation curve from (0,0) to (1,1) with control points given in 0..=127.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bezier {
    pub x1: u8,
    pub y1: u8,
    pub x2: u8,
    pub y2: u8,
}

impl Bezier {
    pub const LINEAR: Self = Self {
        x1: 20,
        y1: 20,
        x2: 107,
        y2: 107,
    };

    #[must_use]
    pub fn new(x1: u8, y1: u8, x2: u8, y2: u8) -> Self {
        Self { x1, y1, x2, y2 }
    }

    /// The curve's value at `x` in 0..=1: finds the parameter whose x is `x` (by bisection:
    /// x grows with the parameter for control points in 0..=1) and returns its y.
    #[must_use]
    pub fn evaluate(&self, x: f32) -> f32 {
        let x = x.clamp(0.0, 1.0);
        if self.x1 == self.y1 && self.x2 == self.y2 {
            return x;
        }
        let point = |v: u8| (f32::from(v) / 127.0).clamp(0.0, 1.0);
        let (x1, y1, x2, y2) = (
            point(self.x1),
            point(self.y1),
            point(self.x2),
            point(self.y2),
        );
        // B(s) = 3(1-s)²s·p1 + 3(1-s)s²·p2 + s³.
        let bezier = |s: f32, p1: f32, p2: f32| {
            let r = 1.0 - s;
            3.0 * r * r * s * p1 + 3.0 * r * s * s * p2 + s * s * s
        };
        let (mut low, mut high) = (0.0f32, 1.0f32);
        let mut s = x;
        for _ in 0..32 {
            let value = bezier(s, x1, x2);
            if (value - x).abs() < 1e-7 {
                break;
            }
            if value < x {
                low = s;
            } else {
                high = s;
            }
            s = 0.5 * (low + high);
        }
        bezier(s, y1, y2)
    }
}

/// A morph key frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MorphKey {
    pub frame: u32,
    pub weight: f32,
}

/// All keys of one bone name, sorted by frame.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneTrack {
    pub name: SjisName,
    pub keys: Vec<BoneKey>,
}

/// All keys of one morph name, sorted by frame.
#[derive(Debug, Clone, PartialEq)]
pub struct MorphTrack {
    pub name: SjisName,
    pub keys: Vec<MorphKey>,
}

/// A show/IK key: whether the model is shown and which IK bones are on from this frame.
#[derive(Debug, Clone, PartialEq)]
pub struct IkKey {
    pub frame: u32,
    pub visible: bool,
    pub ik: Vec<(SjisName, bool)>,
}

/// A VMD motion.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Motion {
    /// Whether the file is the first VMD version (10-byte model name).
    pub old_version: bool,
    pub model_name: SjisName,
    pub bone_tracks: Vec<BoneTrack>,
    pub morph_tracks: Vec<MorphTrack>,
    /// Sorted by frame.
    pub ik_keys: Vec<IkKey>,
    /// Keys of the sections this editor does not use (counted, skipped).
    pub num_camera_keys: usize,
    pub num_light_keys: usize,
    pub num_shadow_keys: usize,
}

/// Reads a VMD file.
pub fn read(bytes: &[u8], options: &LoadOptions) -> Result<Motion, ReadError> {
    let mut reader = ByteReader::new(Input::Bytes(bytes), "header");
    let signature = reader.take(30, "signature")?;
    let old_version = if signature.starts_with(SIGNATURE) {
        false
    } else if signature.starts_with(SIGNATURE_OLD) {
        true
    } else {
        reader.pos = 0;
        return Err(reader.malformed("signature", Message::new("load.vmd.signature")));
    };
    let model_name =
        SjisName::from_field(reader.take(if old_version { 10 } else { 20 }, "model_name")?);
    let mut motion = Motion {
        old_version,
        model_name,
        ..Motion::default()
    };

    reader.section = "bone_keys";
    let count = section_count(&mut reader, options, BONE_KEY_LEN, false)?;
    let mut bone_index: HashMap<Vec<u8>, usize> = HashMap::new();
    for i in 0..count {
        reader.element = Some(i);
        let name = SjisName::from_field(reader.take(NAME_LEN, "name")?);
        let frame = reader.u32("frame")?;
        let translation = Vec3::new(
            reader.f32("translation")?,
            reader.f32("translation")?,
            reader.f32("translation")?,
        );
        let rotation = Vec4::new(
            reader.f32("rotation")?,
            reader.f32("rotation")?,
            reader.f32("rotation")?,
            reader.f32("rotation")?,
        );
        let mut interpolation = [0u8; 64];
        interpolation.copy_from_slice(reader.take(64, "interpolation")?);
        let track = *bone_index.entry(name.raw.clone()).or_insert_with(|| {
            motion.bone_tracks.push(BoneTrack {
                name,
                keys: Vec::new(),
            });
            motion.bone_tracks.len() - 1
        });
        motion.bone_tracks[track].keys.push(BoneKey {
            frame,
            translation,
            rotation,
            interpolation,
        });
    }
    reader.element = None;

    reader.section = "morph_keys";
    let count = section_count(&mut reader, options, MORPH_KEY_LEN, true)?;
    let mut morph_index: HashMap<Vec<u8>, usize> = HashMap::new();
    for i in 0..count {
        reader.element = Some(i);
        let name = SjisName::from_field(reader.take(NAME_LEN, "name")?);
        let frame = reader.u32("frame")?;
        let weight = reader.f32("weight")?;
        let track = *morph_index.entry(name.raw.clone()).or_insert_with(|| {
            motion.morph_tracks.push(MorphTrack {
                name,
                keys: Vec::new(),
            });
            motion.morph_tracks.len() - 1
        });
        motion.morph_tracks[track]
            .keys
            .push(MorphKey { frame, weight });
    }
    reader.element = None;

    for (section, len, slot) in [
        ("camera_keys", CAMERA_KEY_LEN, &mut motion.num_camera_keys),
        ("light_keys", LIGHT_KEY_LEN, &mut motion.num_light_keys),
        (
            "self_shadow_keys",
            SHADOW_KEY_LEN,
            &mut motion.num_shadow_keys,
        ),
    ] {
        reader.section = section;
        let count = section_count(&mut reader, options, len, true)?;
        reader.take(count * len, "keys")?;
        *slot = count;
    }

    reader.section = "ik_keys";
    // Each key is at least 9 bytes (frame, shown, count).
    let count = section_count(&mut reader, options, 9, true)?;
    for i in 0..count {
        reader.element = Some(i);
        let frame = reader.u32("frame")?;
        let visible = reader.u8("visible")? != 0;
        let num_ik = section_count(&mut reader, options, IK_NAME_LEN + 1, false)?;
        let mut ik = Vec::with_capacity(num_ik);
        for _ in 0..num_ik {
            let name = SjisName::from_field(reader.take(IK_NAME_LEN, "ik.name")?);
            let enabled = reader.u8("ik.enabled")? != 0;
            ik.push((name, enabled));
        }
        motion.ik_keys.push(IkKey { frame, visible, ik });
    }

    for track in &mut motion.bone_tracks {
        sort_by_frame(&mut track.keys, |k| k.frame);
    }
    for track in &mut motion.morph_tracks {
        sort_by_frame(&mut track.keys, |k| k.frame);
    }
    sort_by_frame(&mut motion.ik_keys, |k| k.frame);
    Ok(motion)
}

/// Sorts keys by frame, stably: keys on the same frame keep their file order (names cut to the
/// same 15 bytes share a track, as they do in MMD) and sampling uses the last of them.
fn sort_by_frame<T>(keys: &mut [T], frame: impl Fn(&T) -> u32) {
    keys.sort_by_key(|k| frame(k));
}

/// A section's element count, checked against the limits and the bytes left (each element
/// takes at least `min_len` bytes) before anything is allocated. With `optional`, the end of
/// the file here means an empty section.
fn section_count(
    reader: &mut ByteReader<'_>,
    options: &LoadOptions,
    min_len: usize,
    optional: bool,
) -> Result<usize, ReadError> {
    if optional && reader.at_end() {
        return Ok(0);
    }
    let count = reader.u32("count")? as usize;
    reader.refuse_over_limit(count, 4, options.limits.max_elements, "count")?;
    if count.saturating_mul(min_len) > reader.remaining() {
        reader.pos -= 4;
        return Err(reader.malformed(
            "count",
            Message::new("load.vmd.count_past_end")
                .arg("count", count)
                .arg("size", min_len)
                .arg("left", reader.remaining() - 4),
        ));
    }
    Ok(count)
}

/// Which model bones and morphs a motion's tracks drive.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Binding {
    /// (bone, index into `Motion::bone_tracks`).
    pub bones: Vec<(BoneIdx, usize)>,
    /// (morph, index into `Motion::morph_tracks`).
    pub morphs: Vec<(MorphIdx, usize)>,
    /// Per IK key, the IK bones it switches: (index into the key's list, bone).
    pub ik: Vec<Vec<(usize, BoneIdx)>>,
    /// Track names the model does not have.
    pub unmatched_bones: Vec<String>,
    pub unmatched_morphs: Vec<String>,
}

impl Motion {
    /// Matches the tracks to `model`'s bones and morphs by name (see [`NameMatcher`]).
    #[must_use]
    pub fn bind(&self, model: &Model) -> Binding {
        let bones = NameMatcher::new(model.bones.iter().map(|b| b.name_ja.as_str()), NAME_LEN);
        let ik_bones =
            NameMatcher::new(model.bones.iter().map(|b| b.name_ja.as_str()), IK_NAME_LEN);
        let morphs = NameMatcher::new(model.morphs.iter().map(|m| m.name_ja.as_str()), NAME_LEN);
        let mut binding = Binding::default();
        for (t, track) in self.bone_tracks.iter().enumerate() {
            match bones.find(&track.name) {
                Some(b) => binding.bones.push((BoneIdx::new(b), t)),
                None => binding.unmatched_bones.push(track.name.text.clone()),
            }
        }
        for (t, track) in self.morph_tracks.iter().enumerate() {
            match morphs.find(&track.name) {
                Some(m) => binding.morphs.push((MorphIdx::new(m), t)),
                None => binding.unmatched_morphs.push(track.name.text.clone()),
            }
        }
        binding.ik = self
            .ik_keys
            .iter()
            .map(|key| {
                key.ik
                    .iter()
                    .enumerate()
                    .filter_map(|(i, (name, _))| ik_bones.find(name).map(|b| (i, BoneIdx::new(b))))
                    .collect()
            })
            .collect();
        binding
    }

    /// The last frame any key is on.
    #[must_use]
    pub fn last_frame(&self) -> u32 {
        let bones = self
            .bone_tracks
            .iter()
            .filter_map(|t| t.keys.last())
            .map(|k| k.frame);
        let morphs = self
            .morph_tracks
            .iter()
            .filter_map(|t| t.keys.last())
            .map(|k| k.frame);
        bones.chain(morphs).max().unwrap_or(0)
    }

    /// Sets the bound bones and morphs of `pose` to the motion at `frame` (fractional frames
    /// interpolate). Bones and morphs without a track keep their values. Allocates nothing.
    pub fn sample(&self, binding: &Binding, frame: f32, pose: &mut Pose) {
        for &(bone, track) in &binding.bones {
            let (Some(track), Some(target)) =
                (self.bone_tracks.get(track), pose.bones.get_mut(bone.get()))
            else {
                continue;
            };
            if let Some((rotation, translation)) = sample_bone(&track.keys, frame) {
                target.rotation = rotation;
                target.translation = translation;
            }
        }
        for &(morph, track) in &binding.morphs {
            let (Some(track), Some(target)) = (
                self.morph_tracks.get(track),
                pose.morphs.get_mut(morph.get()),
            ) else {
                continue;
            };
            if let Some(weight) = sample_morph(&track.keys, frame) {
                *target = weight;
            }
        }
        // IK switches hold from their key to the next.
        let current = self.ik_keys.partition_point(|k| k.frame as f32 <= frame);
        if let Some(index) = current.checked_sub(1)
            && let (Some(key), Some(bones)) = (self.ik_keys.get(index), binding.ik.get(index))
        {
            for &(i, bone) in bones {
                if let (Some((_, enabled)), Some(target)) =
                    (key.ik.get(i), pose.bones.get_mut(bone.get()))
                {
                    target.ik_enabled = *enabled;
                }
            }
        }
    }
}

/// The keys around `frame`: (before, after, t in 0..1), or one key when `frame` is outside.
fn segment<K>(keys: &[K], frame: f32, key_frame: impl Fn(&K) -> u32) -> Option<(&K, &K, f32)> {
    let first = keys.first()?;
    let after = keys.partition_point(|k| key_frame(k) as f32 <= frame);
    if after == 0 {
        return Some((first, first, 0.0));
    }
    let before = &keys[after - 1];
    let Some(next) = keys.get(after) else {
        return Some((before, before, 0.0));
    };
    let (a, b) = (key_frame(before) as f32, key_frame(next) as f32);
    Some((before, next, ((frame - a) / (b - a)).clamp(0.0, 1.0)))
}

/// A bone track at `frame`: rotation and translation, with the next key's Bezier curves.
#[must_use]
pub fn sample_bone(keys: &[BoneKey], frame: f32) -> Option<(glam::Quat, glam::Vec3)> {
    let (a, b, t) = segment(keys, frame, |k| k.frame)?;
    let ra = a.rotation.to_quat().normalize();
    let ta = glam::Vec3::from(a.translation);
    if t == 0.0 || std::ptr::eq(a, b) {
        return Some((ra, ta));
    }
    let curves = b.curves();
    let tb = glam::Vec3::from(b.translation);
    let translation = glam::Vec3::new(
        ta.x + (tb.x - ta.x) * curves.x.evaluate(t),
        ta.y + (tb.y - ta.y) * curves.y.evaluate(t),
        ta.z + (tb.z - ta.z) * curves.z.evaluate(t),
    );
    let rotation = ra.slerp(
        b.rotation.to_quat().normalize(),
        curves.rotation.evaluate(t),
    );
    Some((rotation, translation))
}

/// A morph track at `frame` (linear between keys).
#[must_use]
pub fn sample_morph(keys: &[MorphKey], frame: f32) -> Option<f32> {
    let (a, b, t) = segment(keys, frame, |k| k.frame)?;
    Some(a.weight + (b.weight - a.weight) * t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::bytes::PutLe;

    /// A VMD built in code: one bone track of two keys, one morph track of two keys.
    fn sample_file(interpolation: [u8; 4]) -> Vec<u8> {
        let name = super::super::cp932::encode("センター").unwrap_or_default();
        sample_file_named(&name, interpolation)
    }

    fn sample_file_named(name: &[u8], interpolation: [u8; 4]) -> Vec<u8> {
        let mut out = Vec::new();
        let field = |bytes: &[u8], len: usize, out: &mut Vec<u8>| {
            let mut f = vec![0u8; len];
            f[..bytes.len()].copy_from_slice(bytes);
            out.extend_from_slice(&f);
        };
        field(SIGNATURE, 30, &mut out);
        field(b"model", 20, &mut out);
        out.put_u32(2);
        for (frame, x, angle) in [(0u32, 0.0f32, 0.0f32), (10, 10.0, 90.0)] {
            field(&name[..name.len().min(NAME_LEN)], NAME_LEN, &mut out);
            out.put_u32(frame);
            for v in [x, 0.0, 0.0] {
                out.put_f32(v);
            }
            let q = glam::Quat::from_rotation_y(angle.to_radians());
            for v in [q.x, q.y, q.z, q.w] {
                out.put_f32(v);
            }
            let mut curves = [0u8; 64];
            for c in 0..4 {
                curves[c] = interpolation[0];
                curves[4 + c] = interpolation[1];
                curves[8 + c] = interpolation[2];
                curves[12 + c] = interpolation[3];
            }
            out.extend_from_slice(&curves);
        }
        out.put_u32(2);
        let morph = super::super::cp932::encode("まばたき").unwrap_or_default();
        for (frame, weight) in [(0u32, 0.0f32), (4, 1.0)] {
            field(&morph, NAME_LEN, &mut out);
            out.put_u32(frame);
            out.put_f32(weight);
        }
        out
    }

    fn model() -> Model {
        let mut model = Model::default();
        model.bones.push(crate::model::Bone {
            name_ja: "センター".into(),
            ..crate::model::Bone::default()
        });
        model.morphs.push(crate::model::Morph {
            name_ja: "まばたき".into(),
            name_en: "blink".into(),
            panel: crate::model::MorphPanel::Eye,
            offsets: crate::model::MorphOffsets::Vertex(Vec::new()),
        });
        model
    }

    #[test]
    fn linear_keys_interpolate_linearly() {
        let bytes = sample_file([20, 20, 107, 107]);
        let motion = read(&bytes, &LoadOptions::default());
        let Ok(motion) = motion else {
            panic!("{motion:?}");
        };
        assert_eq!(motion.bone_tracks.len(), 1);
        assert_eq!(motion.bone_tracks[0].name.text, "センター");
        assert_eq!(motion.last_frame(), 10);
        let model = model();
        let binding = motion.bind(&model);
        assert!(binding.unmatched_bones.is_empty() && binding.unmatched_morphs.is_empty());
        let mut pose = Pose::new(&model);
        motion.sample(&binding, 5.0, &mut pose);
        assert!((pose.bones[0].translation.x - 5.0).abs() < 1e-6);
        let expected = glam::Quat::from_rotation_y(45f32.to_radians());
        assert!(pose.bones[0].rotation.abs_diff_eq(expected, 1e-6));
        // Morphs are linear: frame 1 of 0..4 is 0.25.
        motion.sample(&binding, 1.0, &mut pose);
        assert!((pose.morphs[0] - 0.25).abs() < 1e-6);
        // Past the end: the last key.
        motion.sample(&binding, 100.0, &mut pose);
        assert!((pose.bones[0].translation.x - 10.0).abs() < 1e-6);
        assert_eq!(pose.morphs[0], 1.0);
    }

    #[test]
    fn bezier_keys_follow_the_curve() {
        // Ease in-out, control points (127,0) and (0,127): symmetric, so 0.5 at 0.5.
        let curve = Bezier::new(127, 0, 0, 127);
        assert!((curve.evaluate(0.5) - 0.5).abs() < 1e-5);
        // x1 = 1, y1 = 0, x2 = 0, y2 = 1: x(s) = 3(1-s)²s + s³, y(s) = 3(1-s)s² + s³.
        let s = 0.25f32;
        let x = 3.0 * 0.75 * 0.75 * s + s * s * s;
        let y = 3.0 * 0.75 * s * s + s * s * s;
        assert!(
            (curve.evaluate(x) - y).abs() < 1e-5,
            "{} vs {y}",
            curve.evaluate(x)
        );
        let bytes = sample_file([127, 0, 0, 127]);
        let Ok(motion) = read(&bytes, &LoadOptions::default()) else {
            panic!("read failed");
        };
        let model = model();
        let binding = motion.bind(&model);
        let mut pose = Pose::new(&model);
        motion.sample(&binding, 10.0 * x, &mut pose);
        assert!((pose.bones[0].translation.x - 10.0 * y).abs() < 1e-4);
    }

    #[test]
    fn truncated_files_fail_with_a_location() {
        let bytes = sample_file([20, 20, 107, 107]);
        // Two bone keys announced, one and a bit there: refused at the count, before reading.
        let cut = &bytes[..50 + 4 + 111 + 21];
        let Err(ReadError::Malformed { location, .. }) = read(cut, &LoadOptions::default()) else {
            panic!("a cut file must fail");
        };
        assert_eq!(
            (
                location.section,
                location.element,
                location.field,
                location.offset
            ),
            ("bone_keys", None, "count", 50)
        );
        // A count that cannot fit fails before allocating.
        let mut huge = bytes[..54].to_vec();
        huge[50..54].copy_from_slice(&1_000_000u32.to_le_bytes());
        let error = read(&huge, &LoadOptions::default());
        assert!(
            matches!(error, Err(ReadError::Malformed { ref location, .. }) if location.field == "count")
        );
        huge[50..54].copy_from_slice(&u32::MAX.to_le_bytes());
        let error = read(&huge, &LoadOptions::default());
        assert!(matches!(error, Err(ReadError::LimitExceeded { .. })));
        // Over the element limit: limit exceeded, not malformed.
        let limits = LoadOptions {
            limits: crate::formats::LoadLimits {
                max_elements: 1,
                ..Default::default()
            },
            ..Default::default()
        };
        assert!(matches!(
            read(&bytes, &limits),
            Err(ReadError::LimitExceeded { .. })
        ));
        // Files may end after the bone section.
        let Ok(motion) = read(&bytes[..50 + 4 + 222], &LoadOptions::default()) else {
            panic!("bones only");
        };
        assert!(motion.morph_tracks.is_empty());
        // An IK key announcing 2 switches with room for 1: located in the key.
        let mut with_ik = bytes.clone();
        for count in [0u32, 0, 0, 1] {
            with_ik.put_u32(count);
        }
        with_ik.put_u32(0);
        with_ik.push(1);
        with_ik.put_u32(2);
        with_ik.extend_from_slice(&[0u8; 21]);
        let Err(ReadError::Malformed { location, .. }) = read(&with_ik, &LoadOptions::default())
        else {
            panic!("a cut IK key must fail");
        };
        assert_eq!(
            (location.section, location.element, location.field),
            ("ik_keys", Some(0), "count")
        );
        assert_eq!(location.offset, bytes.len() + 16 + 5);
    }

    #[test]
    fn a_bone_name_cut_mid_character_binds() {
        // 9 full-width characters are 18 bytes; MMD keeps 15: 7 characters and a lead byte.
        let full = super::super::cp932::encode("左腕捩れ補助ボーン").unwrap_or_default();
        let bytes = sample_file_named(&full, [20, 20, 107, 107]);
        let Ok(motion) = read(&bytes, &LoadOptions::default()) else {
            panic!("read failed");
        };
        let name = &motion.bone_tracks[0].name;
        assert!(name.cut);
        assert_eq!(name.text, "左腕捩れ補助ボ");
        let mut model = model();
        model.bones.insert(
            0,
            crate::model::Bone {
                name_ja: "左腕捩れ補助".into(),
                ..crate::model::Bone::default()
            },
        );
        model.bones.push(crate::model::Bone {
            name_ja: "左腕捩れ補助ボーン".into(),
            ..crate::model::Bone::default()
        });
        let binding = motion.bind(&model);
        assert_eq!(binding.bones, [(BoneIdx::new(2), 0)]);
        // Without the bytes (a model name Shift-JIS cannot hold), the decoded prefix still finds
        // it.
        let matcher = NameMatcher::new(
            ["左腕捩れ補助ボーン🦴", "左腕捩れ補助ボーン"].map(std::borrow::Cow::Borrowed),
            NAME_LEN,
        );
        assert_eq!(matcher.find(name), Some(1), "raw bytes first");
        let matcher = NameMatcher::new(
            ["左腕捩れ補助ボーン🦴"].map(std::borrow::Cow::Borrowed),
            NAME_LEN,
        );
        assert_eq!(matcher.find(name), Some(0), "then the decoded prefix");
    }
}
