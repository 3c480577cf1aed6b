//! The CSV reader: rows into elements, then the references by name resolved once every
//! element is known (PmxEditor writes vertices before the bones they name).

use super::columns as col;
use super::text::{TextKind, parse_f32, parse_text, split_cells};
use crate::formats::error::{LoadReport, ReadError};
use crate::i18n::Message;
use crate::model::{
    AeroModel, AngleLimits, Bone, BoneFlags, BoneIdx, BoneMorphOffset, DisplayFrame, DisplayItem,
    DrawFlags, GroupMorphOffset, Header, IkLink, ImpulseMorphOffset, IndexSizes, JointKind,
    Material, MaterialIdx, MaterialMorphOffset, MaterialMorphOp, Model, Morph, MorphIdx, MorphKind,
    MorphOffsets, MorphPanel, RigidBody, RigidBodyIdx, RigidMode, RigidShape, SoftBody,
    SoftBodyAnchor, SoftBodyFlags, SoftBodyShape, SphereMode, Text, TextEncoding, TextureIdx, Toon,
    UvMorphOffset, Vec2, Vec3, Vec4, Vertex, VertexIdx, VertexMorphOffset, Weight,
};
use std::collections::HashMap;
use std::str::FromStr;

/// Reads a model from the bytes of a CSV file (UTF-8 with or without a byte order mark, or
/// Shift_JIS as PmxEditor writes it).
pub fn read(bytes: &[u8]) -> Result<(Model, LoadReport), ReadError> {
    let text = decode(bytes)?;
    let model = read_csv(&text)?;
    Ok((
        model,
        LoadReport {
            file_size: bytes.len(),
            ..LoadReport::default()
        },
    ))
}

fn decode(bytes: &[u8]) -> Result<std::borrow::Cow<'_, str>, ReadError> {
    if let Some(utf8) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return std::str::from_utf8(utf8)
            .map(std::borrow::Cow::Borrowed)
            .map_err(|error| {
                let at = error.valid_up_to();
                error_at(line_of(utf8, at), 0, Message::new("load.csv.bom_not_utf8"))
            });
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(std::borrow::Cow::Borrowed(text)),
        Err(utf8_error) => {
            let (text, malformed) = encoding_rs::SHIFT_JIS.decode_without_bom_handling(bytes);
            if malformed {
                return Err(error_at(
                    line_of(bytes, utf8_error.valid_up_to()),
                    0,
                    Message::new("load.csv.not_utf8_nor_sjis"),
                ));
            }
            Ok(text)
        }
    }
}

fn line_of(bytes: &[u8], at: usize) -> usize {
    bytes
        .get(..at)
        .map_or(0, |before| before.iter().filter(|&&b| b == b'\n').count())
        + 1
}

fn error_at(line: usize, column: usize, message: impl Into<Message>) -> ReadError {
    ReadError::Parse {
        format: "CSV",
        line,
        column,
        message: message.into(),
    }
}

/// Reads a model from CSV text.
pub fn read_csv(text: &str) -> Result<Model, ReadError> {
    let mut reader = Reader::default();
    for (number, line) in text.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let line_number = number + 1;
        // A byte order mark left in the text (read_csv on a decoded file) is not part of the row.
        let line = if number == 0 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        if line.trim().is_empty() {
            continue;
        }
        let row = if let Some(own) = line.strip_prefix(";@") {
            own
        } else if line.starts_with(';') {
            continue;
        } else {
            line
        };
        let cells =
            split_cells(row).map_err(|(column, message)| error_at(line_number, column, message))?;
        reader.row(line_number, line.starts_with(";@"), cells)?;
    }
    reader.finish()
}

/// A reference by name waiting for every element to be read.
#[derive(Debug)]
struct Fixup {
    line: usize,
    column: usize,
    name: Text,
    slot: Slot,
}

/// Where a resolved reference goes.
#[derive(Debug, Clone, Copy)]
enum Slot {
    VertexBone(usize, usize),
    BoneParent(usize),
    BoneTail(usize),
    BoneAppend(usize),
    IkTarget(usize),
    IkLink(usize, usize),
    BoneMorph(usize, usize),
    MaterialMorph(usize, usize),
    GroupMorph(usize, usize),
    NodeBone(usize, usize),
    NodeMorph(usize, usize),
    BodyBone(usize),
    JointA(usize),
    JointB(usize),
    SoftMaterial(usize),
    AnchorBody(usize, usize),
    Texture(usize),
    Sphere(usize),
    Toon(usize),
}

#[derive(Default)]
struct Reader {
    model: Model,
    header_seen: bool,
    info_seen: bool,
    /// The additional UV channels kept: the header's count once read, all four before.
    auv_limit: Option<usize>,
    auvs: [Vec<Vec4>; 4],
    fixups: Vec<Fixup>,
    /// Each face's line and material name (an interned id), for PmxEditor's grouping.
    face_materials: Vec<(usize, u32)>,
    face_names: HashMap<Text, u32>,
    /// Whether a material row lacked our face count (then faces are grouped by name).
    material_without_count: bool,
    bone_parents: Parents,
    morph_parents: Parents,
    frame_parents: Parents,
    soft_parents: Parents,
}

/// The cells of one row, with what an error needs to say where it is.
struct Cells {
    cells: Vec<String>,
    line: usize,
    /// The comment line naming the columns.
    names: &'static str,
    /// The element the row makes (`bones[3]`).
    element: String,
}

impl Cells {
    fn err(&self, column: usize, message: impl Into<Message>) -> ReadError {
        let name = self.names.split(',').nth(column).unwrap_or("?");
        let kind = self
            .names
            .split(',')
            .next()
            .unwrap_or("")
            .trim_start_matches(';');
        error_at(
            self.line,
            column + 1,
            Message::new("load.csv.cell")
                .arg("kind", kind)
                .arg("element", self.element.as_str())
                .arg("column", name)
                .arg("message", message.into()),
        )
    }

    fn get(&self, column: usize) -> Result<&str, ReadError> {
        self.cells
            .get(column)
            .map(String::as_str)
            .ok_or_else(|| self.err(column, Message::new("load.csv.missing")))
    }

    fn f(&self, column: usize) -> Result<f32, ReadError> {
        parse_f32(self.get(column)?).map_err(|message| self.err(column, message))
    }

    fn v3(&self, column: usize) -> Result<Vec3, ReadError> {
        Ok(Vec3::new(
            self.f(column)?,
            self.f(column + 1)?,
            self.f(column + 2)?,
        ))
    }

    fn v4(&self, column: usize) -> Result<Vec4, ReadError> {
        Ok(Vec4::new(
            self.f(column)?,
            self.f(column + 1)?,
            self.f(column + 2)?,
            self.f(column + 3)?,
        ))
    }

    fn deg(&self, column: usize) -> Result<f32, ReadError> {
        Ok(self.f(column)?.to_radians())
    }

    fn deg3(&self, column: usize) -> Result<Vec3, ReadError> {
        Ok(Vec3::new(
            self.deg(column)?,
            self.deg(column + 1)?,
            self.deg(column + 2)?,
        ))
    }

    fn int<T: FromStr>(&self, column: usize) -> Result<T, ReadError> {
        let cell = self.get(column)?.trim();
        cell.parse::<T>().map_err(|_| {
            self.err(
                column,
                Message::new("load.csv.not_whole_number")
                    .arg("cell", format!("{cell:?}"))
                    .arg("type", std::any::type_name::<T>()),
            )
        })
    }

    fn flag(&self, column: usize) -> Result<bool, ReadError> {
        let cell = self.get(column)?.trim();
        match cell {
            "0" => Ok(false),
            "1" => Ok(true),
            _ if cell.eq_ignore_ascii_case("true") => Ok(true),
            _ if cell.eq_ignore_ascii_case("false") => Ok(false),
            _ => Err(self.err(
                column,
                Message::new("load.csv.not_flag").arg("cell", format!("{cell:?}")),
            )),
        }
    }

    fn text(&self, column: usize) -> Result<Text, ReadError> {
        parse_text(self.get(column)?, TextKind::Line).map_err(|message| self.err(column, message))
    }

    fn multiline(&self, column: usize) -> Result<Text, ReadError> {
        parse_text(self.get(column)?, TextKind::MultiLine)
            .map_err(|message| self.err(column, message))
    }

    /// Checks the column count: PmxEditor's `standard`, or `full` with ours. Returns whether
    /// ours are there.
    fn expect(&self, standard: usize, full: usize) -> Result<bool, ReadError> {
        let count = self.cells.len();
        if count == full {
            return Ok(true);
        }
        if count == standard {
            return Ok(false);
        }
        let expected = if standard == full {
            Message::new("load.csv.columns_one").arg("count", standard)
        } else {
            Message::new("load.csv.columns_either")
                .arg("standard", standard)
                .arg("full", full)
        };
        // The first column missing, or the first one too many.
        let column = if count < full { count } else { full };
        let name = self
            .names
            .split(',')
            .next()
            .unwrap_or("")
            .trim_start_matches(';');
        Err(error_at(
            self.line,
            column + 1,
            Message::new("load.csv.column_count")
                .arg("kind", name)
                .arg("element", self.element.as_str())
                .arg("count", count)
                .arg("expected", expected),
        ))
    }

    fn raw_bone(&self, column: usize) -> Result<Option<BoneIdx>, ReadError> {
        Ok(BoneIdx::from_raw(self.int(column)?))
    }

    /// A cell of the index sizes: all six empty (none) or each 1, 2 or 4.
    fn index_size(&self, column: usize) -> Result<Option<u8>, ReadError> {
        if self.get(column)?.trim().is_empty() {
            return Ok(None);
        }
        match self.int::<u8>(column)? {
            size @ (1 | 2 | 4) => Ok(Some(size)),
            other => Err(self.err(
                column,
                Message::new("load.csv.index_size").arg("value", other),
            )),
        }
    }
}

/// The 16-bit collision mask from PmxEditor's 非衝突グループ text (`1 2 3`: the 1-based
/// groups not collided with).
fn mask_of(cells: &Cells, column: usize) -> Result<u16, ReadError> {
    let text = cells.text(column)?;
    let text = text.as_str();
    let mut mask = 0xFFFFu16;
    for group in text.split([' ', ',', '\t']).filter(|g| !g.is_empty()) {
        match group.parse::<u32>() {
            Ok(n @ 1..=16) => mask &= !(1u16 << (n - 1)),
            _ => {
                return Err(cells.err(
                    column,
                    Message::new("load.csv.group").arg("value", format!("{group:?}")),
                ));
            }
        }
    }
    Ok(mask)
}

/// The parents child rows name (bones for IK links, morphs for offsets, frames for items,
/// soft bodies for anchors and pins): the latest one first (children follow their parent, so
/// the latest parent of a repeated name is the right one), else the first of that name. A map,
/// not a search, so a file of a million rows naming a parent stays linear.
#[derive(Default)]
struct Parents {
    last: Option<(usize, Text)>,
    first: HashMap<Text, usize>,
}

impl Parents {
    fn add(&mut self, index: usize, name: &Text) {
        self.first.entry(name.clone()).or_insert(index);
        self.last = Some((index, name.clone()));
    }

    fn find(&self, name: &Text) -> Option<usize> {
        match &self.last {
            Some((index, last)) if last == name => Some(*index),
            _ => self.first.get(name).copied(),
        }
    }
}

impl Reader {
    fn fixup(&mut self, cells: &Cells, column: usize, slot: Slot) -> Result<(), ReadError> {
        let name = cells.text(column)?;
        self.fixups.push(Fixup {
            line: cells.line,
            column: column + 1,
            name,
            slot,
        });
        Ok(())
    }

    fn row(&mut self, line: usize, own: bool, cells: Vec<String>) -> Result<(), ReadError> {
        let kind = cells
            .first()
            .map(|k| k.trim().to_owned())
            .unwrap_or_default();
        let (names, element): (&'static str, String) = match (own, kind.as_str()) {
            (true, "PmxTexture") => (
                col::TEXTURE,
                format!("textures[{}]", self.model.textures.len()),
            ),
            (false, "PmxHeader") => (col::HEADER, "header".into()),
            (false, "PmxModelInfo") => (col::MODEL_INFO, "info".into()),
            (false, "PmxVertex") => (
                col::VERTEX,
                format!("vertices[{}]", self.model.vertices.len()),
            ),
            (false, "PmxMaterial") => (
                col::MATERIAL,
                format!("materials[{}]", self.model.materials.len()),
            ),
            (false, "PmxFace") => (col::FACE, format!("faces[{}]", self.model.faces.len())),
            (false, "PmxBone") => (col::BONE, format!("bones[{}]", self.model.bones.len())),
            (false, "PmxIKLink") => (col::IK_LINK, "ik link".into()),
            (false, "PmxMorph") => (col::MORPH, format!("morphs[{}]", self.model.morphs.len())),
            (false, "PmxVertexMorph") => (col::VERTEX_MORPH, "offset".into()),
            (false, "PmxUVMorph") => (col::UV_MORPH, "offset".into()),
            (false, "PmxBoneMorph") => (col::BONE_MORPH, "offset".into()),
            (false, "PmxMaterialMorph") => (col::MATERIAL_MORPH, "offset".into()),
            (false, "PmxGroupMorph") => (col::GROUP_MORPH, "offset".into()),
            (false, "PmxFlipMorph") => (col::FLIP_MORPH, "offset".into()),
            (false, "PmxImpulseMorph") => (col::IMPULSE_MORPH, "offset".into()),
            (false, "PmxNode") => (
                col::NODE,
                format!("display_frames[{}]", self.model.display_frames.len()),
            ),
            (false, "PmxNodeItem") => (col::NODE_ITEM, "item".into()),
            (false, "PmxBody") => (
                col::BODY,
                format!("rigid_bodies[{}]", self.model.rigid_bodies.len()),
            ),
            (false, "PmxJoint") => (col::JOINT, format!("joints[{}]", self.model.joints.len())),
            (false, "PmxSoftBody") => (
                col::SOFT_BODY,
                format!("soft_bodies[{}]", self.model.soft_bodies.len()),
            ),
            (false, "PmxSoftBodyAnchor") => (col::SOFT_BODY_ANCHOR, "anchor".into()),
            (false, "PmxSoftBodyPin") => (col::SOFT_BODY_PIN, "pin".into()),
            _ => {
                return Err(error_at(
                    line,
                    1,
                    Message::new("load.csv.unknown_row").arg("kind", format!("{kind:?}")),
                ));
            }
        };
        let cells = Cells {
            cells,
            line,
            names,
            element,
        };
        match (own, kind.as_str()) {
            (true, _) => self.texture(&cells),
            (_, "PmxHeader") => self.header(&cells),
            (_, "PmxModelInfo") => self.info(&cells),
            (_, "PmxVertex") => self.vertex(&cells),
            (_, "PmxMaterial") => self.material(&cells),
            (_, "PmxFace") => self.face(&cells),
            (_, "PmxBone") => self.bone(&cells),
            (_, "PmxIKLink") => self.ik_link(&cells),
            (_, "PmxMorph") => self.morph(&cells),
            (_, "PmxNode") => self.frame(&cells),
            (_, "PmxNodeItem") => self.frame_item(&cells),
            (_, "PmxBody") => self.body(&cells),
            (_, "PmxJoint") => self.joint(&cells),
            (_, "PmxSoftBody") => self.soft_body(&cells),
            (_, "PmxSoftBodyAnchor") => self.anchor(&cells),
            (_, "PmxSoftBodyPin") => self.pin(&cells),
            (_, other) => self.morph_offset(&cells, other),
        }
    }

    fn texture(&mut self, cells: &Cells) -> Result<(), ReadError> {
        cells.expect(col::TEXTURE_FULL, col::TEXTURE_FULL)?;
        let index: usize = cells.int(1)?;
        if index != self.model.textures.len() {
            return Err(cells.err(
                1,
                Message::new("load.csv.out_of_order")
                    .word("kind", "noun.texture")
                    .arg("index", index)
                    .arg("next", self.model.textures.len()),
            ));
        }
        let path = cells.text(2)?;
        self.model.textures.push(path);
        Ok(())
    }

    fn header(&mut self, cells: &Cells) -> Result<(), ReadError> {
        let ours = cells.expect(col::HEADER_STD, col::HEADER_FULL)?;
        if std::mem::replace(&mut self.header_seen, true) {
            return Err(cells.err(
                0,
                Message::new("load.csv.second_row").arg("kind", "PmxHeader"),
            ));
        }
        let version = match cells.get(1)?.trim() {
            "2.0" | "2" => crate::model::PmxVersion::V2_0,
            "2.1" => crate::model::PmxVersion::V2_1,
            other => {
                return Err(cells.err(
                    1,
                    Message::new("load.csv.version").arg("value", format!("{other:?}")),
                ));
            }
        };
        let encoding = match cells.int::<u8>(2)? {
            0 => TextEncoding::Utf16,
            1 => TextEncoding::Utf8,
            other => {
                return Err(cells.err(2, Message::new("load.csv.encoding").arg("value", other)));
            }
        };
        let count: usize = cells.int(3)?;
        if count > 4 {
            return Err(cells.err(
                3,
                Message::new("load.csv.additional_uvs").arg("count", count),
            ));
        }
        let index_sizes = if ours {
            let sizes = (4..10)
                .map(|column| cells.index_size(column))
                .collect::<Result<Vec<_>, _>>()?;
            match sizes.as_slice() {
                [Some(v), Some(t), Some(m), Some(b), Some(mo), Some(r)] => Some(IndexSizes {
                    vertex: *v,
                    texture: *t,
                    material: *m,
                    bone: *b,
                    morph: *mo,
                    rigid_body: *r,
                }),
                [None, None, None, None, None, None] => None,
                _ => return Err(cells.err(4, Message::new("load.csv.index_sizes_all_or_none"))),
            }
        } else {
            None
        };
        self.model.header = Header {
            version,
            encoding,
            index_sizes,
        };
        self.auv_limit = Some(count);
        Ok(())
    }

    fn info(&mut self, cells: &Cells) -> Result<(), ReadError> {
        cells.expect(col::MODEL_INFO_STD, col::MODEL_INFO_STD)?;
        if std::mem::replace(&mut self.info_seen, true) {
            return Err(cells.err(
                0,
                Message::new("load.csv.second_row").arg("kind", "PmxModelInfo"),
            ));
        }
        let info = &mut self.model.info;
        info.name_ja = cells.text(1)?;
        info.name_en = cells.text(2)?;
        info.comment_ja = cells.multiline(3)?;
        info.comment_en = cells.multiline(4)?;
        Ok(())
    }

    fn vertex(&mut self, cells: &Cells) -> Result<(), ReadError> {
        let ours = cells.expect(col::VERTEX_STD, col::VERTEX_FULL)?;
        let index = self.model.vertices.len();
        let given: usize = cells.int(1)?;
        if given != index {
            return Err(cells.err(
                1,
                Message::new("load.csv.out_of_order")
                    .word("kind", "noun.vertex")
                    .arg("index", given)
                    .arg("next", index),
            ));
        }
        let limit = self.auv_limit.unwrap_or(4);
        for (channel, list) in self.auvs.iter_mut().enumerate().take(limit) {
            list.push(cells.v4(11 + channel * 4)?);
        }
        let kind: u8 = cells.int(27)?;
        let used = match kind {
            0 => 1,
            1 | 3 => 2,
            2 | 4 => 4,
            other => {
                return Err(cells.err(27, Message::new("load.csv.weight_type").arg("value", other)));
            }
        };
        let mut bones = [None; 4];
        for (k, bone) in bones.iter_mut().enumerate().take(used) {
            if ours {
                *bone = cells.raw_bone(45 + k)?;
            } else {
                self.fixup(cells, 28 + k * 2, Slot::VertexBone(index, k))?;
            }
        }
        let weights = [cells.f(29)?, cells.f(31)?, cells.f(33)?, cells.f(35)?];
        let pair = [bones[0], bones[1]];
        let weight = match kind {
            0 => Weight::Bdef1 { bone: bones[0] },
            1 => Weight::Bdef2 {
                bones: pair,
                weight: weights[0],
            },
            2 => Weight::Bdef4 { bones, weights },
            3 => Weight::Sdef {
                bones: pair,
                weight: weights[0],
                c: cells.v3(36)?,
                r0: cells.v3(39)?,
                r1: cells.v3(42)?,
            },
            _ => Weight::Qdef { bones, weights },
        };
        self.model.vertices.push(Vertex {
            position: cells.v3(2)?,
            normal: cells.v3(5)?,
            uv: Vec2::new(cells.f(9)?, cells.f(10)?),
            weight,
            edge_scale: cells.f(8)?,
        });
        Ok(())
    }

    fn material(&mut self, cells: &Cells) -> Result<(), ReadError> {
        let ours = cells.expect(col::MATERIAL_STD, col::MATERIAL_FULL)?;
        let index = self.model.materials.len();
        let mut material = Material {
            name_ja: cells.text(1)?,
            name_en: cells.text(2)?,
            diffuse: cells.v4(3)?,
            specular: cells.v3(7)?,
            specular_power: cells.f(10)?,
            ambient: cells.v3(11)?,
            edge_size: cells.f(21)?,
            edge_color: cells.v4(22)?,
            sphere_mode: SphereMode::from_raw(cells.int(28)?),
            memo: cells.multiline(30)?,
            ..Material::default()
        };
        if ours {
            material.draw_flags = DrawFlags::from_bits_retain(cells.int(31)?);
            material.texture = TextureIdx::from_raw(cells.int(32)?);
            material.sphere_texture = TextureIdx::from_raw(cells.int(33)?);
            material.toon = match cells.flag(34)? {
                true => Toon::Shared(cells.int(35)?),
                false => Toon::Texture(TextureIdx::from_raw(cells.int(35)?)),
            };
            material.face_index_count = cells.int(36)?;
        } else {
            self.material_without_count = true;
            let mut flags = DrawFlags::empty();
            for (column, flag) in [
                (14, DrawFlags::DOUBLE_SIDED),
                (15, DrawFlags::GROUND_SHADOW),
                (16, DrawFlags::DRAW_TO_SHADOW_MAP),
                (17, DrawFlags::DRAW_SELF_SHADOW),
                (18, DrawFlags::VERTEX_COLOR),
                (20, DrawFlags::EDGE),
            ] {
                flags.set(flag, cells.flag(column)?);
            }
            match cells.int::<u8>(19)? {
                0 => {}
                1 => flags |= DrawFlags::POINT,
                2 => flags |= DrawFlags::LINE,
                other => {
                    return Err(
                        cells.err(19, Message::new("load.csv.draw_mode").arg("value", other))
                    );
                }
            }
            material.draw_flags = flags;
            self.fixup(cells, 26, Slot::Texture(index))?;
            self.fixup(cells, 27, Slot::Sphere(index))?;
            let toon = cells.text(29)?;
            match shared_toon(&toon) {
                Some(n) => material.toon = Toon::Shared(n),
                None => self.fixup(cells, 29, Slot::Toon(index))?,
            }
        }
        self.model.materials.push(material);
        Ok(())
    }

    fn face(&mut self, cells: &Cells) -> Result<(), ReadError> {
        cells.expect(col::FACE_STD, col::FACE_STD)?;
        let name = cells.text(1)?;
        let next = u32::try_from(self.face_names.len()).unwrap_or(u32::MAX);
        let id = *self.face_names.entry(name).or_insert(next);
        self.face_materials.push((cells.line, id));
        self.model.faces.push([
            VertexIdx(cells.int(3)?),
            VertexIdx(cells.int(4)?),
            VertexIdx(cells.int(5)?),
        ]);
        Ok(())
    }

    fn bone(&mut self, cells: &Cells) -> Result<(), ReadError> {
        let ours = cells.expect(col::BONE_STD, col::BONE_FULL)?;
        let index = self.model.bones.len();
        let mut bone = Bone {
            name_ja: cells.text(1)?,
            name_en: cells.text(2)?,
            layer: cells.int(3)?,
            position: cells.v3(5)?,
            tail_offset: cells.v3(16)?,
            append_ratio: cells.f(22)?,
            fixed_axis: cells.v3(25)?,
            local_axis_x: cells.v3(29)?,
            local_axis_z: cells.v3(32)?,
            external_parent_key: cells.int(36)?,
            ..Bone::default()
        };
        bone.ik.loop_count = cells.int(38)?;
        bone.ik.limit_angle = cells.deg(39)?;
        if ours {
            bone.flags = BoneFlags::from_bits_retain(cells.int(40)?);
            bone.parent = cells.raw_bone(41)?;
            bone.tail_bone = cells.raw_bone(42)?;
            bone.append_parent = cells.raw_bone(43)?;
            bone.ik.target = cells.raw_bone(44)?;
            bone.ik.limit_angle = cells.f(45)?;
        } else {
            let mut flags = BoneFlags::empty();
            for (column, flag) in [
                (4, BoneFlags::AFTER_PHYSICS),
                (8, BoneFlags::ROTATABLE),
                (9, BoneFlags::MOVABLE),
                (10, BoneFlags::IK),
                (11, BoneFlags::VISIBLE),
                (12, BoneFlags::OPERABLE),
                (14, BoneFlags::TAIL_IS_BONE),
                (19, BoneFlags::LOCAL_APPEND),
                (20, BoneFlags::APPEND_ROTATE),
                (21, BoneFlags::APPEND_MOVE),
                (24, BoneFlags::FIXED_AXIS),
                (28, BoneFlags::LOCAL_AXES),
                (35, BoneFlags::EXTERNAL_PARENT),
            ] {
                flags.set(flag, cells.flag(column)?);
            }
            bone.flags = flags;
            self.fixup(cells, 13, Slot::BoneParent(index))?;
            self.fixup(cells, 15, Slot::BoneTail(index))?;
            self.fixup(cells, 23, Slot::BoneAppend(index))?;
            self.fixup(cells, 37, Slot::IkTarget(index))?;
        }
        self.model.bones.push(bone);
        let name = self
            .model
            .bones
            .get(index)
            .map(|b| b.name_ja.clone())
            .unwrap_or_default();
        self.bone_parents.add(index, &name);
        Ok(())
    }

    fn ik_link(&mut self, cells: &Cells) -> Result<(), ReadError> {
        let ours = cells.expect(col::IK_LINK_STD, col::IK_LINK_FULL)?;
        let parent = cells.text(1)?;
        let bone = self
            .bone_parents
            .find(&parent)
            .ok_or_else(|| cells.err(1, no_parent_row("PmxBone", &parent)))?;
        let limited = cells.flag(3)?;
        let link_index = self.model.bones.get(bone).map_or(0, |b| b.ik.links.len());
        let mut link = IkLink {
            bone: None,
            limits: None,
        };
        if ours {
            link.bone = cells.raw_bone(10)?;
            if limited {
                link.limits = Some(AngleLimits {
                    lower: cells.v3(11)?,
                    upper: cells.v3(14)?,
                });
            }
        } else {
            self.fixup(cells, 2, Slot::IkLink(bone, link_index))?;
            if limited {
                link.limits = Some(AngleLimits {
                    lower: Vec3::new(cells.deg(4)?, cells.deg(6)?, cells.deg(8)?),
                    upper: Vec3::new(cells.deg(5)?, cells.deg(7)?, cells.deg(9)?),
                });
            }
        }
        if let Some(bone) = self.model.bones.get_mut(bone) {
            bone.ik.links.push(link);
        }
        Ok(())
    }

    fn morph(&mut self, cells: &Cells) -> Result<(), ReadError> {
        cells.expect(col::MORPH_STD, col::MORPH_STD)?;
        let kind_raw: u8 = cells.int(4)?;
        let kind = MorphKind::from_raw(kind_raw).ok_or_else(|| {
            cells.err(
                4,
                Message::new("load.csv.morph_kind").arg("value", kind_raw),
            )
        })?;
        self.model.morphs.push(Morph {
            name_ja: cells.text(1)?,
            name_en: cells.text(2)?,
            panel: MorphPanel::from_raw(cells.int(3)?),
            offsets: MorphOffsets::empty(kind),
        });
        let index = self.model.morphs.len() - 1;
        let name = self
            .model
            .morphs
            .get(index)
            .map(|m| m.name_ja.clone())
            .unwrap_or_default();
        self.morph_parents.add(index, &name);
        Ok(())
    }

    fn morph_offset(&mut self, cells: &Cells, kind: &str) -> Result<(), ReadError> {
        let (standard, full) = match kind {
            "PmxVertexMorph" => (col::VERTEX_MORPH_STD, col::VERTEX_MORPH_STD),
            "PmxUVMorph" => (col::UV_MORPH_STD, col::UV_MORPH_STD),
            "PmxBoneMorph" => (col::BONE_MORPH_STD, col::BONE_MORPH_FULL),
            "PmxMaterialMorph" => (col::MATERIAL_MORPH_STD, col::MATERIAL_MORPH_FULL),
            "PmxImpulseMorph" => (col::IMPULSE_MORPH_STD, col::IMPULSE_MORPH_STD),
            _ => (col::GROUP_MORPH_STD, col::GROUP_MORPH_FULL),
        };
        let ours = cells.expect(standard, full)?;
        let parent = cells.text(1)?;
        let morph = self
            .morph_parents
            .find(&parent)
            .ok_or_else(|| cells.err(1, no_parent_row("PmxMorph", &parent)))?;
        let Some(offsets) = self.model.morphs.get(morph).map(|m| &m.offsets) else {
            return Err(cells.err(1, Message::new("load.csv.no_such_morph")));
        };
        let offset_index = offsets.len();
        let morph_kind = offsets.kind();
        let mismatch = || {
            cells.err(
                0,
                Message::new("load.csv.offset_kind_mismatch")
                    .arg("kind", kind)
                    .arg("parent", format!("{parent:?}"))
                    .arg("morph_kind", format!("{morph_kind:?}")),
            )
        };
        let mut pending = None;
        let offsets_value = match kind {
            "PmxVertexMorph" => Offset::Vertex(VertexMorphOffset {
                vertex: VertexIdx(cells.int(3)?),
                offset: cells.v3(4)?,
            }),
            "PmxUVMorph" => Offset::Uv(UvMorphOffset {
                vertex: VertexIdx(cells.int(3)?),
                offset: cells.v4(4)?,
            }),
            "PmxBoneMorph" => {
                let bone = if ours {
                    cells.raw_bone(11)?
                } else {
                    pending = Some(Slot::BoneMorph(morph, offset_index));
                    None
                };
                Offset::Bone(BoneMorphOffset {
                    bone,
                    translation: cells.v3(4)?,
                    rotation: cells.v4(7)?,
                })
            }
            "PmxMaterialMorph" => {
                let material = if ours {
                    MaterialIdx::from_raw(cells.int(33)?)
                } else {
                    pending = Some(Slot::MaterialMorph(morph, offset_index));
                    None
                };
                Offset::Material(MaterialMorphOffset {
                    material,
                    op: MaterialMorphOp::from_raw(cells.int(4)?),
                    diffuse: cells.v4(5)?,
                    specular: cells.v3(9)?,
                    specular_power: cells.f(12)?,
                    ambient: cells.v3(13)?,
                    edge_size: cells.f(16)?,
                    edge_color: cells.v4(17)?,
                    texture_tint: cells.v4(21)?,
                    sphere_tint: cells.v4(25)?,
                    toon_tint: cells.v4(29)?,
                })
            }
            "PmxImpulseMorph" => Offset::Impulse(ImpulseMorphOffset {
                rigid_body: RigidBodyIdx::from_raw(cells.int(3)?),
                local: cells.flag(4)?,
                velocity: cells.v3(5)?,
                torque: cells.v3(8)?,
            }),
            _ => {
                let target = if ours {
                    MorphIdx::from_raw(cells.int(5)?)
                } else {
                    pending = Some(Slot::GroupMorph(morph, offset_index));
                    None
                };
                let offset = GroupMorphOffset {
                    morph: target,
                    ratio: cells.f(4)?,
                };
                if kind == "PmxGroupMorph" {
                    Offset::Group(offset)
                } else {
                    Offset::Flip(offset)
                }
            }
        };
        let Some(target) = self.model.morphs.get_mut(morph).map(|m| &mut m.offsets) else {
            return Err(cells.err(1, Message::new("load.csv.no_such_morph")));
        };
        match (target, offsets_value) {
            (MorphOffsets::Vertex(list), Offset::Vertex(o)) => list.push(o),
            (
                MorphOffsets::Uv(list)
                | MorphOffsets::AdditionalUv1(list)
                | MorphOffsets::AdditionalUv2(list)
                | MorphOffsets::AdditionalUv3(list)
                | MorphOffsets::AdditionalUv4(list),
                Offset::Uv(o),
            ) => list.push(o),
            (MorphOffsets::Bone(list), Offset::Bone(o)) => list.push(o),
            (MorphOffsets::Material(list), Offset::Material(o)) => list.push(o),
            (MorphOffsets::Group(list), Offset::Group(o))
            | (MorphOffsets::Flip(list), Offset::Flip(o)) => list.push(o),
            (MorphOffsets::Impulse(list), Offset::Impulse(o)) => list.push(o),
            _ => return Err(mismatch()),
        }
        if let Some(slot) = pending {
            self.fixup(cells, 3, slot)?;
        }
        Ok(())
    }

    fn frame(&mut self, cells: &Cells) -> Result<(), ReadError> {
        let ours = cells.expect(col::NODE_STD, col::NODE_FULL)?;
        let index = self.model.display_frames.len();
        let name_ja = cells.text(1)?;
        let special = if ours {
            cells.flag(3)?
        } else {
            // PmxEditor keeps the two special frames first, under these names.
            (index == 0 && name_ja.as_str() == crate::model::facts::ROOT_FRAME)
                || (index == 1 && name_ja.as_str() == crate::model::facts::EXPRESSION_FRAME)
        };
        self.model.display_frames.push(DisplayFrame {
            name_ja,
            name_en: cells.text(2)?,
            special,
            items: Vec::new(),
        });
        let name = self
            .model
            .display_frames
            .get(index)
            .map(|f| f.name_ja.clone())
            .unwrap_or_default();
        self.frame_parents.add(index, &name);
        Ok(())
    }

    fn frame_item(&mut self, cells: &Cells) -> Result<(), ReadError> {
        let ours = cells.expect(col::NODE_ITEM_STD, col::NODE_ITEM_FULL)?;
        let parent = cells.text(1)?;
        let frame = self
            .frame_parents
            .find(&parent)
            .ok_or_else(|| cells.err(1, no_parent_row("PmxNode", &parent)))?;
        let item_index = self
            .model
            .display_frames
            .get(frame)
            .map_or(0, |f| f.items.len());
        let target: u8 = cells.int(2)?;
        let raw = if ours {
            Some(cells.int::<i32>(4)?)
        } else {
            None
        };
        let item = match target {
            0 => DisplayItem::Bone(raw.and_then(BoneIdx::from_raw)),
            1 => DisplayItem::Morph(raw.and_then(MorphIdx::from_raw)),
            other => {
                return Err(cells.err(2, Message::new("load.csv.item_type").arg("value", other)));
            }
        };
        if raw.is_none() {
            let slot = if target == 0 {
                Slot::NodeBone(frame, item_index)
            } else {
                Slot::NodeMorph(frame, item_index)
            };
            self.fixup(cells, 3, slot)?;
        }
        if let Some(frame) = self.model.display_frames.get_mut(frame) {
            frame.items.push(item);
        }
        Ok(())
    }

    fn body(&mut self, cells: &Cells) -> Result<(), ReadError> {
        let ours = cells.expect(col::BODY_STD, col::BODY_FULL)?;
        let index = self.model.rigid_bodies.len();
        let mut body = RigidBody {
            name_ja: cells.text(1)?,
            name_en: cells.text(2)?,
            mode: RigidMode::from_raw(cells.int(4)?),
            group: cells.int(5)?,
            non_collision_mask: mask_of(cells, 6)?,
            shape: RigidShape::from_raw(cells.int(7)?),
            size: cells.v3(8)?,
            position: cells.v3(11)?,
            rotation: cells.deg3(14)?,
            mass: cells.f(17)?,
            linear_damping: cells.f(18)?,
            angular_damping: cells.f(19)?,
            restitution: cells.f(20)?,
            friction: cells.f(21)?,
            ..RigidBody::default()
        };
        if ours {
            body.bone = cells.raw_bone(22)?;
            body.rotation = cells.v3(23)?;
        } else {
            self.fixup(cells, 3, Slot::BodyBone(index))?;
        }
        self.model.rigid_bodies.push(body);
        Ok(())
    }

    fn joint(&mut self, cells: &Cells) -> Result<(), ReadError> {
        let ours = cells.expect(col::JOINT_STD, col::JOINT_FULL)?;
        let index = self.model.joints.len();
        let mut joint = crate::model::Joint {
            name_ja: cells.text(1)?,
            name_en: cells.text(2)?,
            kind: JointKind::from_raw(cells.int(5)?),
            body_a: None,
            body_b: None,
            position: cells.v3(6)?,
            rotation: cells.deg3(9)?,
            move_lower: cells.v3(12)?,
            move_upper: cells.v3(15)?,
            rotate_lower: cells.deg3(18)?,
            rotate_upper: cells.deg3(21)?,
            spring_move: cells.v3(24)?,
            spring_rotate: cells.v3(27)?,
        };
        if ours {
            joint.body_a = RigidBodyIdx::from_raw(cells.int(30)?);
            joint.body_b = RigidBodyIdx::from_raw(cells.int(31)?);
            joint.rotation = cells.v3(32)?;
            joint.rotate_lower = cells.v3(35)?;
            joint.rotate_upper = cells.v3(38)?;
        } else {
            self.fixup(cells, 3, Slot::JointA(index))?;
            self.fixup(cells, 4, Slot::JointB(index))?;
        }
        self.model.joints.push(joint);
        Ok(())
    }

    fn soft_body(&mut self, cells: &Cells) -> Result<(), ReadError> {
        use crate::model::{
            SoftBodyCluster, SoftBodyConfig, SoftBodyIterations, SoftBodyStiffness,
        };
        let ours = cells.expect(col::SOFT_BODY_STD, col::SOFT_BODY_FULL)?;
        let index = self.model.soft_bodies.len();
        let mut soft = SoftBody {
            name_ja: cells.text(1)?,
            name_en: cells.text(2)?,
            shape: SoftBodyShape::from_raw(cells.int(3)?),
            material: None,
            group: cells.int(5)?,
            non_collision_mask: mask_of(cells, 6)?,
            flags: SoftBodyFlags::empty(),
            b_link_distance: cells.int(8)?,
            cluster_count: cells.int(10)?,
            total_mass: cells.f(12)?,
            margin: cells.f(13)?,
            aero_model: AeroModel::from_raw(cells.int(14)?),
            config: SoftBodyConfig {
                vcf: cells.f(15)?,
                dp: cells.f(16)?,
                dg: cells.f(17)?,
                lf: cells.f(18)?,
                pr: cells.f(19)?,
                vc: cells.f(20)?,
                df: cells.f(21)?,
                mt: cells.f(22)?,
                chr: cells.f(23)?,
                khr: cells.f(24)?,
                shr: cells.f(25)?,
                ahr: cells.f(26)?,
            },
            cluster: SoftBodyCluster {
                srhr_cl: cells.f(27)?,
                skhr_cl: cells.f(28)?,
                sshr_cl: cells.f(29)?,
                sr_splt_cl: cells.f(30)?,
                sk_splt_cl: cells.f(31)?,
                ss_splt_cl: cells.f(32)?,
            },
            iterations: SoftBodyIterations {
                v_it: cells.int(33)?,
                p_it: cells.int(34)?,
                d_it: cells.int(35)?,
                c_it: cells.int(36)?,
            },
            stiffness: SoftBodyStiffness {
                lst: cells.f(37)?,
                ast: cells.f(38)?,
                vst: cells.f(39)?,
            },
            anchors: Vec::new(),
            pinned_vertices: Vec::new(),
        };
        if ours {
            soft.material = MaterialIdx::from_raw(cells.int(40)?);
            soft.flags = SoftBodyFlags::from_bits_retain(cells.int(41)?);
        } else {
            for (column, flag) in [
                (7, SoftBodyFlags::B_LINK),
                (9, SoftBodyFlags::CLUSTERS),
                (11, SoftBodyFlags::LINK_HYBRID),
            ] {
                soft.flags.set(flag, cells.flag(column)?);
            }
            self.fixup(cells, 4, Slot::SoftMaterial(index))?;
        }
        self.model.soft_bodies.push(soft);
        let name = self
            .model
            .soft_bodies
            .get(index)
            .map(|s| s.name_ja.clone())
            .unwrap_or_default();
        self.soft_parents.add(index, &name);
        Ok(())
    }

    fn soft_parent(&self, cells: &Cells) -> Result<usize, ReadError> {
        let parent = cells.text(1)?;
        self.soft_parents
            .find(&parent)
            .ok_or_else(|| cells.err(1, no_parent_row("PmxSoftBody", &parent)))
    }

    fn anchor(&mut self, cells: &Cells) -> Result<(), ReadError> {
        let ours = cells.expect(col::SOFT_BODY_ANCHOR_STD, col::SOFT_BODY_ANCHOR_FULL)?;
        let soft = self.soft_parent(cells)?;
        let anchor_index = self
            .model
            .soft_bodies
            .get(soft)
            .map_or(0, |s| s.anchors.len());
        let anchor = SoftBodyAnchor {
            rigid_body: if ours {
                RigidBodyIdx::from_raw(cells.int(5)?)
            } else {
                None
            },
            vertex: VertexIdx(cells.int(3)?),
            near_mode: cells.flag(4)?,
        };
        if !ours {
            self.fixup(cells, 2, Slot::AnchorBody(soft, anchor_index))?;
        }
        if let Some(soft) = self.model.soft_bodies.get_mut(soft) {
            soft.anchors.push(anchor);
        }
        Ok(())
    }

    fn pin(&mut self, cells: &Cells) -> Result<(), ReadError> {
        cells.expect(col::SOFT_BODY_PIN_STD, col::SOFT_BODY_PIN_STD)?;
        let soft = self.soft_parent(cells)?;
        let vertex = VertexIdx(cells.int(2)?);
        if let Some(soft) = self.model.soft_bodies.get_mut(soft) {
            soft.pinned_vertices.push(vertex);
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Model, ReadError> {
        let count = self.auv_limit.unwrap_or(0);
        self.model.additional_uvs = std::mem::take(&mut self.auvs)
            .into_iter()
            .take(count)
            .collect();
        self.resolve()?;
        if self.material_without_count && !self.model.faces.is_empty() {
            group_faces(&mut self.model, &self.face_materials, &self.face_names)?;
        }
        Ok(self.model)
    }

    fn resolve(&mut self) -> Result<(), ReadError> {
        fn first_by_name<'a>(names: impl Iterator<Item = &'a Text>) -> HashMap<Text, usize> {
            let mut map = HashMap::new();
            for (index, name) in names.enumerate() {
                map.entry(name.clone()).or_insert(index);
            }
            map
        }
        let model = &mut self.model;
        let bones = first_by_name(model.bones.iter().map(|b| &b.name_ja));
        let materials = first_by_name(model.materials.iter().map(|m| &m.name_ja));
        let morphs = first_by_name(model.morphs.iter().map(|m| &m.name_ja));
        let bodies = first_by_name(model.rigid_bodies.iter().map(|b| &b.name_ja));
        let mut textures = first_by_name(model.textures.iter());
        for fixup in std::mem::take(&mut self.fixups) {
            let Fixup {
                line,
                column,
                name,
                slot,
            } = fixup;
            let missing = |kind: &str| {
                error_at(
                    line,
                    column,
                    Message::new("load.csv.no_such_name")
                        .arg("kind", kind)
                        .arg("name", format!("{name:?}")),
                )
            };
            if name.is_empty() {
                continue; // No reference: every slot starts as none.
            }
            let bone = || bones.get(&name).map(|&i| BoneIdx::new(i));
            match slot {
                Slot::Texture(_) | Slot::Sphere(_) | Slot::Toon(_) => {
                    // PmxEditor has no texture table: paths become one, in order of first use.
                    let next = model.textures.len();
                    let index = *textures.entry(name.clone()).or_insert(next);
                    if index == next {
                        model.textures.push(name.clone());
                    }
                    let texture = Some(TextureIdx::new(index));
                    let Some(material) = model.materials.get_mut(match slot {
                        Slot::Texture(m) | Slot::Sphere(m) | Slot::Toon(m) => m,
                        _ => usize::MAX,
                    }) else {
                        continue;
                    };
                    match slot {
                        Slot::Texture(_) => material.texture = texture,
                        Slot::Sphere(_) => material.sphere_texture = texture,
                        _ => material.toon = Toon::Texture(texture),
                    }
                }
                Slot::VertexBone(v, k) => {
                    let found = bone().ok_or_else(|| missing("bone"))?;
                    if let Some(slot) = model
                        .vertices
                        .get_mut(v)
                        .and_then(|v| v.weight.bones_mut().get_mut(k))
                    {
                        *slot = Some(found);
                    }
                }
                Slot::BoneParent(b)
                | Slot::BoneTail(b)
                | Slot::BoneAppend(b)
                | Slot::IkTarget(b) => {
                    let found = Some(bone().ok_or_else(|| missing("bone"))?);
                    if let Some(target) = model.bones.get_mut(b) {
                        match slot {
                            Slot::BoneParent(_) => target.parent = found,
                            Slot::BoneTail(_) => target.tail_bone = found,
                            Slot::BoneAppend(_) => target.append_parent = found,
                            _ => target.ik.target = found,
                        }
                    }
                }
                Slot::IkLink(b, l) => {
                    let found = Some(bone().ok_or_else(|| missing("bone"))?);
                    if let Some(link) = model.bones.get_mut(b).and_then(|b| b.ik.links.get_mut(l)) {
                        link.bone = found;
                    }
                }
                Slot::BoneMorph(m, o) => {
                    let found = Some(bone().ok_or_else(|| missing("bone"))?);
                    if let Some(MorphOffsets::Bone(list)) =
                        model.morphs.get_mut(m).map(|m| &mut m.offsets)
                        && let Some(offset) = list.get_mut(o)
                    {
                        offset.bone = found;
                    }
                }
                Slot::MaterialMorph(m, o) => {
                    let found = materials.get(&name).map(|&i| MaterialIdx::new(i));
                    let found = Some(found.ok_or_else(|| missing("material"))?);
                    if let Some(MorphOffsets::Material(list)) =
                        model.morphs.get_mut(m).map(|m| &mut m.offsets)
                        && let Some(offset) = list.get_mut(o)
                    {
                        offset.material = found;
                    }
                }
                Slot::GroupMorph(m, o) => {
                    let found = morphs.get(&name).map(|&i| MorphIdx::new(i));
                    let found = Some(found.ok_or_else(|| missing("morph"))?);
                    if let Some(MorphOffsets::Group(list) | MorphOffsets::Flip(list)) =
                        model.morphs.get_mut(m).map(|m| &mut m.offsets)
                        && let Some(offset) = list.get_mut(o)
                    {
                        offset.morph = found;
                    }
                }
                Slot::NodeBone(f, i) | Slot::NodeMorph(f, i) => {
                    let item = if matches!(slot, Slot::NodeBone(..)) {
                        DisplayItem::Bone(Some(bone().ok_or_else(|| missing("bone"))?))
                    } else {
                        let found = morphs.get(&name).map(|&i| MorphIdx::new(i));
                        DisplayItem::Morph(Some(found.ok_or_else(|| missing("morph"))?))
                    };
                    if let Some(target) = model
                        .display_frames
                        .get_mut(f)
                        .and_then(|f| f.items.get_mut(i))
                    {
                        *target = item;
                    }
                }
                Slot::BodyBone(r) => {
                    let found = Some(bone().ok_or_else(|| missing("bone"))?);
                    if let Some(body) = model.rigid_bodies.get_mut(r) {
                        body.bone = found;
                    }
                }
                Slot::JointA(j) | Slot::JointB(j) => {
                    let found = bodies.get(&name).map(|&i| RigidBodyIdx::new(i));
                    let found = Some(found.ok_or_else(|| missing("rigid body"))?);
                    if let Some(joint) = model.joints.get_mut(j) {
                        if matches!(slot, Slot::JointA(_)) {
                            joint.body_a = found;
                        } else {
                            joint.body_b = found;
                        }
                    }
                }
                Slot::SoftMaterial(s) => {
                    let found = materials.get(&name).map(|&i| MaterialIdx::new(i));
                    let found = Some(found.ok_or_else(|| missing("material"))?);
                    if let Some(soft) = model.soft_bodies.get_mut(s) {
                        soft.material = found;
                    }
                }
                Slot::AnchorBody(s, a) => {
                    let found = bodies.get(&name).map(|&i| RigidBodyIdx::new(i));
                    let found = Some(found.ok_or_else(|| missing("rigid body"))?);
                    if let Some(anchor) = model
                        .soft_bodies
                        .get_mut(s)
                        .and_then(|s| s.anchors.get_mut(a))
                    {
                        anchor.rigid_body = found;
                    }
                }
            }
        }
        Ok(())
    }
}

/// One morph offset read from a row, before it is added to its morph.
enum Offset {
    Vertex(VertexMorphOffset),
    Uv(UvMorphOffset),
    Bone(BoneMorphOffset),
    Material(MaterialMorphOffset),
    Group(GroupMorphOffset),
    Flip(GroupMorphOffset),
    Impulse(ImpulseMorphOffset),
}

/// `toon01.bmp`..`toon10.bmp` (any case): the shared toon 0..9.
fn shared_toon(path: &Text) -> Option<u8> {
    let path = path.as_str().to_ascii_lowercase();
    let number = path.strip_prefix("toon")?.strip_suffix(".bmp")?;
    if number.len() != 2 {
        return None;
    }
    match number.parse::<u8>() {
        Ok(n @ 1..=10) => Some(n - 1),
        _ => None,
    }
}

/// PmxEditor's faces: each under its material's name. Groups them in material order (keeping
/// their order within a material) and sets each material's face index count from them.
fn group_faces(
    model: &mut Model,
    face_materials: &[(usize, u32)],
    face_names: &HashMap<Text, u32>,
) -> Result<(), ReadError> {
    let mut material_of_name: HashMap<u32, usize> = HashMap::new();
    for (index, material) in model.materials.iter().enumerate().rev() {
        if let Some(&id) = face_names.get(&material.name_ja) {
            material_of_name.insert(id, index);
        }
    }
    let mut names: Vec<Option<&Text>> = vec![None; face_names.len()];
    for (name, &id) in face_names {
        if let Some(slot) = names.get_mut(id as usize) {
            *slot = Some(name);
        }
    }
    let mut counts = vec![0usize; model.materials.len()];
    let mut owners = Vec::with_capacity(face_materials.len());
    for &(line, id) in face_materials {
        let Some(&material) = material_of_name.get(&id) else {
            let name = names.get(id as usize).copied().flatten();
            return Err(error_at(
                line,
                2,
                Message::new("load.csv.no_such_name")
                    .word("kind", "noun.material")
                    .arg(
                        "name",
                        format!(
                            "{:?}",
                            name.map(|n| n.as_str().into_owned()).unwrap_or_default()
                        ),
                    ),
            ));
        };
        if let Some(count) = counts.get_mut(material) {
            *count += 1;
        }
        owners.push(material);
    }
    // A stable counting sort: the faces of material 0 first, each material's in file order.
    let mut starts = Vec::with_capacity(counts.len());
    let mut next = 0usize;
    for &count in &counts {
        starts.push(next);
        next += count;
    }
    let mut sorted = vec![[VertexIdx(0); 3]; model.faces.len()];
    for (face, &material) in model.faces.iter().zip(&owners) {
        if let Some(start) = starts.get_mut(material)
            && let Some(slot) = sorted.get_mut(*start)
        {
            *slot = *face;
            *start += 1;
        }
    }
    model.faces = sorted;
    for (material, count) in model.materials.iter_mut().zip(counts) {
        material.face_index_count = u32::try_from(count.saturating_mul(3)).map_err(|_| {
            error_at(
                0,
                0,
                Message::new("load.csv.too_many_faces")
                    .arg("name", format!("{:?}", material.name_ja)),
            )
        })?;
    }
    Ok(())
}

/// "no `kind` row named `name` before this row".
fn no_parent_row(kind: &'static str, name: &impl std::fmt::Debug) -> Message {
    Message::new("load.csv.no_parent_row")
        .arg("kind", kind)
        .arg("name", format!("{name:?}"))
}
