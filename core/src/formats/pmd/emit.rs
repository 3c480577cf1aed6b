//! PMD writer: [`PmdFile`] → bytes, exactly as the raw file holds it.

use super::raw::*;
use crate::formats::error::WriteError;
use crate::model::{Vec2, Vec3};

/// Writes `file`. Extensions are written up to the last one present; an earlier one that is
/// missing is written empty (English flag 0, the standard toon list, no rigid bodies), because
/// the format locates extensions by order alone.
///
/// Fails when a count does not fit its field (e.g. more than 65,535 bones or 255 IK links).
/// Texts longer than their field are cut to the field (bytes, not characters: `FixedText`
/// holds bytes; the model converter cuts at character boundaries before this).
pub fn emit(file: &PmdFile) -> Result<Vec<u8>, WriteError> {
    check_counts(file)?;
    let layout = Layout::of(file);
    let mut out = Out(Vec::with_capacity(layout.end + file.trailing.len()));

    out.bytes(MAGIC_BYTES);
    out.f32(file.version);
    out.text(&file.name, field::MODEL_NAME);
    out.text(&file.comment, field::COMMENT);

    out.u32(file.vertices.len() as u32);
    for v in &file.vertices {
        out.vec3(v.position);
        out.vec3(v.normal);
        out.vec2(v.uv);
        out.u16(v.bones[0]);
        out.u16(v.bones[1]);
        out.u8(v.weight);
        out.u8(v.edge_flag);
    }

    out.u32(file.face_indices.len() as u32);
    for &index in &file.face_indices {
        out.u16(index);
    }

    out.u32(file.materials.len() as u32);
    for m in &file.materials {
        out.vec3(m.diffuse);
        out.f32(m.alpha);
        out.f32(m.specular_power);
        out.vec3(m.specular);
        out.vec3(m.ambient);
        out.u8(m.toon_index);
        out.u8(m.edge_flag);
        out.u32(m.face_index_count);
        out.text(&m.texture, field::TEXTURE);
    }

    out.u16(file.bones.len() as u16);
    for b in &file.bones {
        out.text(&b.name, field::BONE_NAME);
        out.u16(b.parent);
        out.u16(b.tail);
        out.u8(b.kind);
        out.u16(b.ik_parent);
        out.vec3(b.position);
    }

    out.u16(file.iks.len() as u16);
    for ik in &file.iks {
        out.u16(ik.bone);
        out.u16(ik.target);
        out.u8(ik.links.len() as u8);
        out.u16(ik.iterations);
        out.f32(ik.limit);
        for &link in &ik.links {
            out.u16(link);
        }
    }

    out.u16(file.skins.len() as u16);
    for skin in &file.skins {
        out.text(&skin.name, field::SKIN_NAME);
        out.u32(skin.vertices.len() as u32);
        out.u8(skin.kind);
        for v in &skin.vertices {
            out.u32(v.index);
            out.vec3(v.position);
        }
    }

    out.u8(file.skin_display.len() as u8);
    for &skin in &file.skin_display {
        out.u16(skin);
    }

    out.u8(file.bone_frame_names.len() as u8);
    for name in &file.bone_frame_names {
        out.text(name, field::FRAME_NAME);
    }

    out.u32(file.bone_frame_items.len() as u32);
    for item in &file.bone_frame_items {
        out.u16(item.bone);
        out.u8(item.frame);
    }

    let toons_or_later =
        file.toon_names.is_some() || file.rigid_bodies.is_some() || file.joints.is_some();
    if let Some(english) = &file.english {
        out.u8(file.english_flag.filter(|&flag| flag != 0).unwrap_or(1));
        out.text(&english.name, field::MODEL_NAME);
        out.text(&english.comment, field::COMMENT);
        // Exactly one name per element, whatever the lists hold.
        let empty = FixedText::default();
        for i in 0..file.bones.len() {
            out.text(
                english.bone_names.get(i).unwrap_or(&empty),
                field::BONE_NAME,
            );
        }
        for i in 0..file.skins.len().saturating_sub(1) {
            out.text(
                english.skin_names.get(i).unwrap_or(&empty),
                field::SKIN_NAME,
            );
        }
        for i in 0..file.bone_frame_names.len() {
            out.text(
                english.bone_frame_names.get(i).unwrap_or(&empty),
                field::FRAME_NAME,
            );
        }
    } else if file.english_flag.is_some() || toons_or_later {
        out.u8(0);
    }

    if toons_or_later {
        let default_names;
        let names = match &file.toon_names {
            Some(names) => names,
            None => {
                default_names = default_toon_names();
                &default_names
            }
        };
        for name in names {
            out.text(name, field::TOON_NAME);
        }
    }

    if file.rigid_bodies.is_some() || file.joints.is_some() {
        let bodies = file.rigid_bodies.as_deref().unwrap_or_default();
        out.u32(bodies.len() as u32);
        for r in bodies {
            out.text(&r.name, field::RIGID_BODY_NAME);
            out.u16(r.bone);
            out.u8(r.group);
            out.u16(r.collision_mask);
            out.u8(r.shape);
            out.vec3(r.size);
            out.vec3(r.position);
            out.vec3(r.rotation);
            out.f32(r.mass);
            out.f32(r.linear_damping);
            out.f32(r.angular_damping);
            out.f32(r.restitution);
            out.f32(r.friction);
            out.u8(r.mode);
        }
    }

    if let Some(joints) = &file.joints {
        out.u32(joints.len() as u32);
        for j in joints {
            out.text(&j.name, field::JOINT_NAME);
            out.u32(j.body_a);
            out.u32(j.body_b);
            for v in [
                j.position,
                j.rotation,
                j.move_lower,
                j.move_upper,
                j.rotate_lower,
                j.rotate_upper,
                j.spring_move,
                j.spring_rotate,
            ] {
                out.vec3(v);
            }
        }
    }

    out.bytes(&file.trailing);
    Ok(out.0)
}

const MAGIC_BYTES: &[u8] = super::parse::MAGIC;

fn check_counts(file: &PmdFile) -> Result<(), WriteError> {
    let too_many = |path: &str, count: usize, max: usize| -> Result<(), WriteError> {
        if count > max {
            Err(WriteError::Unrepresentable {
                path: path.to_owned(),
                message: format!("{count} elements; a PMD file holds at most {max}"),
            })
        } else {
            Ok(())
        }
    };
    let u32_max = u32::MAX as usize;
    too_many("vertices", file.vertices.len(), u32_max)?;
    too_many("faces", file.face_indices.len(), u32_max)?;
    too_many("materials", file.materials.len(), u32_max)?;
    too_many("bones", file.bones.len(), u16::MAX as usize)?;
    too_many("iks", file.iks.len(), u16::MAX as usize)?;
    for (i, ik) in file.iks.iter().enumerate() {
        too_many(&format!("iks[{i}].links"), ik.links.len(), u8::MAX as usize)?;
    }
    too_many("skins", file.skins.len(), u16::MAX as usize)?;
    for (i, skin) in file.skins.iter().enumerate() {
        too_many(
            &format!("skins[{i}].vertices"),
            skin.vertices.len(),
            u32_max,
        )?;
    }
    too_many("skin_display", file.skin_display.len(), u8::MAX as usize)?;
    too_many(
        "bone_frame_names",
        file.bone_frame_names.len(),
        u8::MAX as usize,
    )?;
    too_many("bone_frame_items", file.bone_frame_items.len(), u32_max)?;
    if let Some(bodies) = &file.rigid_bodies {
        too_many("rigid_bodies", bodies.len(), u32_max)?;
    }
    if let Some(joints) = &file.joints {
        too_many("joints", joints.len(), u32_max)?;
    }
    Ok(())
}

struct Out(Vec<u8>);

impl Out {
    fn bytes(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    fn u8(&mut self, value: u8) {
        self.0.push(value);
    }

    fn u16(&mut self, value: u16) {
        self.bytes(&value.to_le_bytes());
    }

    fn u32(&mut self, value: u32) {
        self.bytes(&value.to_le_bytes());
    }

    fn f32(&mut self, value: f32) {
        self.bytes(&value.to_le_bytes());
    }

    fn vec2(&mut self, v: Vec2) {
        self.f32(v.x);
        self.f32(v.y);
    }

    fn vec3(&mut self, v: Vec3) {
        self.f32(v.x);
        self.f32(v.y);
        self.f32(v.z);
    }

    /// A fixed-size text field: the bytes (cut to the field), then the padding as read when it
    /// still fits, else a NUL when there is room and 0xFD padding.
    fn text(&mut self, text: &FixedText, len: usize) {
        let bytes = text.as_bytes();
        if let Some(padding) = text.padding_for(len) {
            self.bytes(bytes);
            self.bytes(padding);
            return;
        }
        let used = bytes.len().min(len);
        self.bytes(&bytes[..used]);
        if used < len {
            self.0.push(0);
            self.0.resize(self.0.len() + len - used - 1, PADDING);
        }
    }
}
