//! PMD writer: [`PmdFile`] → bytes, exactly as the raw file holds it.

use super::raw::*;
use crate::formats::bytes::PutLe;
use crate::formats::error::WriteError;

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
    let mut out = Vec::with_capacity(layout.end + file.trailing.len());

    out.extend_from_slice(MAGIC_BYTES);
    out.put_f32(file.version);
    file.name.write_field(&mut out, field::MODEL_NAME);
    file.comment.write_field(&mut out, field::COMMENT);

    out.put_u32(file.vertices.len() as u32);
    for v in &file.vertices {
        out.put_vec3(v.position);
        out.put_vec3(v.normal);
        out.put_vec2(v.uv);
        out.put_u16(v.bones[0]);
        out.put_u16(v.bones[1]);
        out.put_u8(v.weight);
        out.put_u8(v.edge_flag);
    }

    out.put_u32(file.face_indices.len() as u32);
    for &index in &file.face_indices {
        out.put_u16(index);
    }

    out.put_u32(file.materials.len() as u32);
    for m in &file.materials {
        out.put_vec3(m.diffuse);
        out.put_f32(m.alpha);
        out.put_f32(m.specular_power);
        out.put_vec3(m.specular);
        out.put_vec3(m.ambient);
        out.put_u8(m.toon_index);
        out.put_u8(m.edge_flag);
        out.put_u32(m.face_index_count);
        m.texture.write_field(&mut out, field::TEXTURE);
    }

    out.put_u16(file.bones.len() as u16);
    for b in &file.bones {
        b.name.write_field(&mut out, field::BONE_NAME);
        out.put_u16(b.parent);
        out.put_u16(b.tail);
        out.put_u8(b.kind);
        out.put_u16(b.ik_parent);
        out.put_vec3(b.position);
    }

    out.put_u16(file.iks.len() as u16);
    for ik in &file.iks {
        out.put_u16(ik.bone);
        out.put_u16(ik.target);
        out.put_u8(ik.links.len() as u8);
        out.put_u16(ik.iterations);
        out.put_f32(ik.limit);
        for &link in &ik.links {
            out.put_u16(link);
        }
    }

    out.put_u16(file.skins.len() as u16);
    for skin in &file.skins {
        skin.name.write_field(&mut out, field::SKIN_NAME);
        out.put_u32(skin.vertices.len() as u32);
        out.put_u8(skin.kind);
        for v in &skin.vertices {
            out.put_u32(v.index);
            out.put_vec3(v.position);
        }
    }

    out.put_u8(file.skin_display.len() as u8);
    for &skin in &file.skin_display {
        out.put_u16(skin);
    }

    out.put_u8(file.bone_frame_names.len() as u8);
    for name in &file.bone_frame_names {
        name.write_field(&mut out, field::FRAME_NAME);
    }

    out.put_u32(file.bone_frame_items.len() as u32);
    for item in &file.bone_frame_items {
        out.put_u16(item.bone);
        out.put_u8(item.frame);
    }

    let toons_or_later =
        file.toon_names.is_some() || file.rigid_bodies.is_some() || file.joints.is_some();
    if let Some(english) = &file.english {
        out.put_u8(file.english_flag.filter(|&flag| flag != 0).unwrap_or(1));
        english.name.write_field(&mut out, field::MODEL_NAME);
        english.comment.write_field(&mut out, field::COMMENT);
        // Exactly one name per element, whatever the lists hold.
        let empty = FixedText::default();
        for i in 0..file.bones.len() {
            english
                .bone_names
                .get(i)
                .unwrap_or(&empty)
                .write_field(&mut out, field::BONE_NAME);
        }
        for i in 0..file.skins.len().saturating_sub(1) {
            english
                .skin_names
                .get(i)
                .unwrap_or(&empty)
                .write_field(&mut out, field::SKIN_NAME);
        }
        for i in 0..file.bone_frame_names.len() {
            english
                .bone_frame_names
                .get(i)
                .unwrap_or(&empty)
                .write_field(&mut out, field::FRAME_NAME);
        }
    } else if file.english_flag.is_some() || toons_or_later {
        out.put_u8(0);
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
            name.write_field(&mut out, field::TOON_NAME);
        }
    }

    if file.rigid_bodies.is_some() || file.joints.is_some() {
        let bodies = file.rigid_bodies.as_deref().unwrap_or_default();
        out.put_u32(bodies.len() as u32);
        for r in bodies {
            r.name.write_field(&mut out, field::RIGID_BODY_NAME);
            out.put_u16(r.bone);
            out.put_u8(r.group);
            out.put_u16(r.collision_mask);
            out.put_u8(r.shape);
            out.put_vec3(r.size);
            out.put_vec3(r.position);
            out.put_vec3(r.rotation);
            out.put_f32(r.mass);
            out.put_f32(r.linear_damping);
            out.put_f32(r.angular_damping);
            out.put_f32(r.restitution);
            out.put_f32(r.friction);
            out.put_u8(r.mode);
        }
    }

    if let Some(joints) = &file.joints {
        out.put_u32(joints.len() as u32);
        for j in joints {
            j.name.write_field(&mut out, field::JOINT_NAME);
            out.put_u32(j.body_a);
            out.put_u32(j.body_b);
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
                out.put_vec3(v);
            }
        }
    }

    out.extend_from_slice(&file.trailing);
    Ok(out)
}

const MAGIC_BYTES: &[u8] = super::parse::MAGIC;

fn check_counts(file: &PmdFile) -> Result<(), WriteError> {
    let too_many = |path: &str, count: usize, max: usize| -> Result<(), WriteError> {
        if count > max {
            Err(WriteError::Unrepresentable {
                path: path.to_owned(),
                message: format!("{count} elements; a PMD file holds at most {max}").into(),
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
