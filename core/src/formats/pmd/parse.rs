//! PMD reader: bytes → [`PmdFile`], bounded and allocation-checked.
//!
//! Every count is checked against the bytes left before anything is allocated, and every read
//! is bounds-checked, so no input can make the reader panic or allocate without bound. The
//! extensions (English names, toon list, rigid bodies, joints) are read when bytes remain after
//! the section before them: older files end before them and are valid.

use super::raw::*;
use crate::formats::error::{LoadNote, LoadOptions, Location, ReadError};
use crate::model::{Vec2, Vec3};

/// The magic of PMD files.
pub const MAGIC: &[u8; 3] = b"Pmd";

type Res<T> = Result<T, ReadError>;

/// What the reader produced: the file (complete, or as far as recovery got) and its notes.
#[derive(Debug)]
pub struct Parsed {
    pub file: PmdFile,
    pub notes: Vec<LoadNote>,
    /// The error that ended a recovery read early.
    pub recovered_from: Option<ReadError>,
}

/// Reads a PMD file into its raw form.
pub fn parse(bytes: &[u8], options: &LoadOptions) -> Result<Parsed, ReadError> {
    let mut reader = Reader::new(bytes, options);
    let mut file = PmdFile::default();
    reader.header(&mut file)?;
    let result = reader.body(&mut file);
    let mut notes = std::mem::take(&mut reader.notes);
    match result {
        Ok(()) => Ok(Parsed {
            file,
            notes,
            recovered_from: None,
        }),
        Err(error) if options.recover => {
            notes.push(LoadNote {
                location: error
                    .location()
                    .cloned()
                    .unwrap_or_else(|| reader.location("")),
                message: format!(
                    "reading stopped here; this element and everything after it is lost: {error}"
                ),
                lost: true,
            });
            Ok(Parsed {
                file,
                notes,
                recovered_from: Some(error),
            })
        }
        Err(error) => Err(error),
    }
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    section: &'static str,
    element: Option<usize>,
    sub: Option<(&'static str, usize)>,
    options: LoadOptions,
    notes: Vec<LoadNote>,
}

impl<'a> Reader<'a> {
    fn new(data: &'a [u8], options: &LoadOptions) -> Self {
        Self {
            data,
            pos: 0,
            section: "header",
            element: None,
            sub: None,
            options: *options,
            notes: Vec::new(),
        }
    }

    fn location(&self, field: &'static str) -> Location {
        Location {
            section: self.section,
            element: self.element,
            sub: self.sub,
            field,
            offset: self.pos,
        }
    }

    fn malformed(&self, field: &'static str, message: impl Into<String>) -> ReadError {
        ReadError::Malformed {
            location: self.location(field),
            message: message.into(),
        }
    }

    fn enter(&mut self, section: &'static str) {
        self.section = section;
        self.element = None;
        self.sub = None;
    }

    fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    fn at_end(&self) -> bool {
        self.remaining() == 0
    }

    fn take(&mut self, len: usize, field: &'static str) -> Res<&'a [u8]> {
        let end = self.pos.checked_add(len);
        match end.and_then(|end| self.data.get(self.pos..end)) {
            Some(bytes) => {
                self.pos += len;
                Ok(bytes)
            }
            None => Err(self.malformed(
                field,
                format!(
                    "unexpected end of file: needs {len} bytes, {} left",
                    self.remaining()
                ),
            )),
        }
    }

    fn array<const N: usize>(&mut self, field: &'static str) -> Res<[u8; N]> {
        let bytes = self.take(N, field)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    fn u8(&mut self, field: &'static str) -> Res<u8> {
        Ok(self.array::<1>(field)?[0])
    }

    fn u16(&mut self, field: &'static str) -> Res<u16> {
        Ok(u16::from_le_bytes(self.array(field)?))
    }

    fn u32(&mut self, field: &'static str) -> Res<u32> {
        Ok(u32::from_le_bytes(self.array(field)?))
    }

    fn f32(&mut self, field: &'static str) -> Res<f32> {
        Ok(f32::from_le_bytes(self.array(field)?))
    }

    fn vec2(&mut self, field: &'static str) -> Res<Vec2> {
        let b: [u8; 8] = self.array(field)?;
        Ok(Vec2::new(f(&b, 0), f(&b, 4)))
    }

    fn vec3(&mut self, field: &'static str) -> Res<Vec3> {
        let b: [u8; 12] = self.array(field)?;
        Ok(Vec3::new(f(&b, 0), f(&b, 4), f(&b, 8)))
    }

    fn text(&mut self, len: usize, field: &'static str) -> Res<FixedText> {
        Ok(FixedText::from_field(self.take(len, field)?))
    }

    /// Checks an element count read just before: within the limits, and (outside recovery
    /// mode) no more elements than the bytes left can hold at `min_size` bytes each. `width`
    /// is the byte size of the count field, so errors point at it.
    fn check_count(
        &mut self,
        count: usize,
        width: usize,
        min_size: usize,
        field: &'static str,
    ) -> Res<usize> {
        if count > self.options.limits.max_elements {
            self.pos -= width;
            return Err(ReadError::LimitExceeded {
                location: self.location(field),
                message: format!(
                    "{count} elements is over the limit of {}",
                    self.options.limits.max_elements
                ),
            });
        }
        let needed = count.saturating_mul(min_size.max(1));
        if needed > self.remaining() && !self.options.recover {
            self.pos -= width;
            return Err(self.malformed(
                field,
                format!(
                    "count {count} needs at least {needed} bytes but only {} are left in the file",
                    self.remaining().saturating_sub(width)
                ),
            ));
        }
        Ok(self.cap_count(count, width, min_size, field))
    }

    /// In recovery mode, a count the bytes left cannot hold (`width` bytes back) is noted and
    /// capped at the elements that fit plus one: that one cannot be complete, so reading stops
    /// in it at the end of the file with the error a truncated file gives, while a corrupted
    /// count never makes more elements, or more loop turns, than the file has bytes for.
    fn cap_count(
        &mut self,
        count: usize,
        width: usize,
        min_size: usize,
        field: &'static str,
    ) -> usize {
        let fits = self.remaining() / min_size.max(1);
        if count <= fits {
            return count;
        }
        self.notes.push(LoadNote {
            location: Location {
                offset: self.pos.saturating_sub(width),
                ..self.location(field)
            },
            message: format!(
                "count {count} is more than the {} bytes left can hold (at most {fits} elements of \
                 {min_size} bytes); elements are read up to the end of the file",
                self.remaining()
            ),
            // What is lost is said where reading stops, at the end of the file.
            lost: false,
        });
        fits + 1
    }

    fn count_u8(&mut self, field: &'static str, min_size: usize) -> Res<usize> {
        let count = self.u8(field)? as usize;
        self.check_count(count, 1, min_size, field)
    }

    fn count_u16(&mut self, field: &'static str, min_size: usize) -> Res<usize> {
        let count = self.u16(field)? as usize;
        self.check_count(count, 2, min_size, field)
    }

    fn count_u32(&mut self, field: &'static str, min_size: usize) -> Res<usize> {
        let count = self.u32(field)? as usize;
        self.check_count(count, 4, min_size, field)
    }

    /// Capacity to reserve for `count` elements of `min_size` bytes: never more than the bytes
    /// left can hold (counts are not trusted in recovery mode).
    fn capacity(&self, count: usize, min_size: usize) -> usize {
        count.min(self.remaining() / min_size.max(1))
    }

    fn header(&mut self, file: &mut PmdFile) -> Res<()> {
        self.enter("header");
        let magic: [u8; 3] = self.array("magic")?;
        if &magic != MAGIC {
            self.pos = 0;
            return Err(self.malformed(
                "magic",
                format!("not a PMD file: magic is {magic:02x?}, expected \"Pmd\""),
            ));
        }
        file.version = self.f32("version")?;
        if file.version != 1.0 {
            self.notes.push(LoadNote {
                location: Location {
                    offset: self.pos - 4,
                    ..self.location("version")
                },
                message: format!(
                    "PMD version is {}; only 1.0 is known (read as if it were 1.0)",
                    file.version
                ),
                lost: false,
            });
        }
        file.name = self.text(field::MODEL_NAME, "name")?;
        file.comment = self.text(field::COMMENT, "comment")?;
        Ok(())
    }

    fn body(&mut self, file: &mut PmdFile) -> Res<()> {
        self.vertices(file)?;
        self.faces(file)?;
        self.materials(file)?;
        self.bones(file)?;
        self.iks(file)?;
        self.skins(file)?;
        self.skin_display(file)?;
        self.bone_frame_names(file)?;
        self.bone_frame_items(file)?;
        if self.at_end() {
            return Ok(());
        }
        self.english(file)?;
        if self.at_end() {
            return Ok(());
        }
        self.toon_names(file)?;
        if self.at_end() {
            return Ok(());
        }
        self.rigid_bodies(file)?;
        if self.at_end() {
            return Ok(());
        }
        self.joints(file)?;
        // Bytes after the joints belong to no known extension; they are kept so that
        // PMD → PMD is exact, and the model conversion notes them as dropped.
        file.trailing = self.data.get(self.pos..).unwrap_or_default().to_vec();
        self.pos = self.data.len();
        Ok(())
    }

    fn vertices(&mut self, file: &mut PmdFile) -> Res<()> {
        self.enter("vertices");
        let count = self.count_u32("count", record::VERTEX)?;
        file.vertices
            .reserve_exact(self.capacity(count, record::VERTEX));
        for i in 0..count {
            self.element = Some(i);
            file.vertices.push(PmdVertex {
                position: self.vec3("position")?,
                normal: self.vec3("normal")?,
                uv: self.vec2("uv")?,
                bones: [self.u16("bones[0]")?, self.u16("bones[1]")?],
                weight: self.u8("weight")?,
                edge_flag: self.u8("edge_flag")?,
            });
        }
        Ok(())
    }

    fn faces(&mut self, file: &mut PmdFile) -> Res<()> {
        self.enter("faces");
        let count = self.count_u32("count", 2)?;
        file.face_indices.reserve_exact(self.capacity(count, 2));
        for i in 0..count {
            self.element = Some(i);
            file.face_indices.push(self.u16("vertex")?);
        }
        Ok(())
    }

    fn materials(&mut self, file: &mut PmdFile) -> Res<()> {
        self.enter("materials");
        let count = self.count_u32("count", record::MATERIAL)?;
        file.materials
            .reserve_exact(self.capacity(count, record::MATERIAL));
        for i in 0..count {
            self.element = Some(i);
            file.materials.push(PmdMaterial {
                diffuse: self.vec3("diffuse")?,
                alpha: self.f32("alpha")?,
                specular_power: self.f32("specular_power")?,
                specular: self.vec3("specular")?,
                ambient: self.vec3("ambient")?,
                toon_index: self.u8("toon_index")?,
                edge_flag: self.u8("edge_flag")?,
                face_index_count: self.u32("face_index_count")?,
                texture: self.text(field::TEXTURE, "texture")?,
            });
        }
        Ok(())
    }

    fn bones(&mut self, file: &mut PmdFile) -> Res<()> {
        self.enter("bones");
        let count = self.count_u16("count", record::BONE)?;
        file.bones.reserve_exact(self.capacity(count, record::BONE));
        for i in 0..count {
            self.element = Some(i);
            file.bones.push(PmdBone {
                name: self.text(field::BONE_NAME, "name")?,
                parent: self.u16("parent")?,
                tail: self.u16("tail")?,
                kind: self.u8("kind")?,
                ik_parent: self.u16("ik_parent")?,
                position: self.vec3("position")?,
            });
        }
        Ok(())
    }

    fn iks(&mut self, file: &mut PmdFile) -> Res<()> {
        self.enter("iks");
        let count = self.count_u16("count", record::IK_HEAD)?;
        file.iks
            .reserve_exact(self.capacity(count, record::IK_HEAD));
        for i in 0..count {
            self.element = Some(i);
            self.sub = None;
            let bone = self.u16("bone")?;
            let target = self.u16("target")?;
            let link_count = self.u8("link_count")? as usize;
            let iterations = self.u16("iterations")?;
            let limit = self.f32("limit")?;
            // The links follow the fixed part of the entry, so their count is checked here.
            if 2 * link_count > self.remaining() && !self.options.recover {
                self.pos -= 7;
                return Err(self.malformed(
                    "link_count",
                    format!(
                        "{link_count} links need {} bytes but only {} are left in the file",
                        2 * link_count,
                        self.remaining().saturating_sub(7)
                    ),
                ));
            }
            let link_count = self.cap_count(link_count, 7, 2, "link_count");
            let mut links = Vec::with_capacity(self.capacity(link_count, 2));
            for link in 0..link_count {
                self.sub = Some(("links", link));
                links.push(self.u16("bone")?);
            }
            file.iks.push(PmdIk {
                bone,
                target,
                iterations,
                limit,
                links,
            });
        }
        Ok(())
    }

    fn skins(&mut self, file: &mut PmdFile) -> Res<()> {
        self.enter("skins");
        let count = self.count_u16("count", record::SKIN_HEAD)?;
        file.skins
            .reserve_exact(self.capacity(count, record::SKIN_HEAD));
        for i in 0..count {
            self.element = Some(i);
            self.sub = None;
            let name = self.text(field::SKIN_NAME, "name")?;
            let vertex_count = self.u32("vertex_count")? as usize;
            let kind = self.u8("kind")?;
            if vertex_count > self.options.limits.max_elements {
                self.pos -= 5;
                return Err(ReadError::LimitExceeded {
                    location: self.location("vertex_count"),
                    message: format!(
                        "{vertex_count} skin vertices is over the limit of {}",
                        self.options.limits.max_elements
                    ),
                });
            }
            let needed = vertex_count.saturating_mul(record::SKIN_VERTEX);
            if needed > self.remaining() && !self.options.recover {
                self.pos -= 5;
                return Err(self.malformed(
                    "vertex_count",
                    format!(
                        "{vertex_count} skin vertices need {needed} bytes but only {} are left \
                         in the file",
                        self.remaining().saturating_sub(5)
                    ),
                ));
            }
            let vertex_count = self.cap_count(vertex_count, 5, record::SKIN_VERTEX, "vertex_count");
            let mut vertices = Vec::with_capacity(self.capacity(vertex_count, record::SKIN_VERTEX));
            for v in 0..vertex_count {
                self.sub = Some(("vertices", v));
                vertices.push(PmdSkinVertex {
                    index: self.u32("index")?,
                    position: self.vec3("position")?,
                });
            }
            file.skins.push(PmdSkin {
                name,
                kind,
                vertices,
            });
        }
        Ok(())
    }

    fn skin_display(&mut self, file: &mut PmdFile) -> Res<()> {
        self.enter("skin_display");
        let count = self.count_u8("count", 2)?;
        file.skin_display.reserve_exact(self.capacity(count, 2));
        for i in 0..count {
            self.element = Some(i);
            file.skin_display.push(self.u16("skin")?);
        }
        Ok(())
    }

    fn bone_frame_names(&mut self, file: &mut PmdFile) -> Res<()> {
        self.enter("bone_frame_names");
        let count = self.count_u8("count", field::FRAME_NAME)?;
        file.bone_frame_names
            .reserve_exact(self.capacity(count, field::FRAME_NAME));
        for i in 0..count {
            self.element = Some(i);
            file.bone_frame_names
                .push(self.text(field::FRAME_NAME, "name")?);
        }
        Ok(())
    }

    fn bone_frame_items(&mut self, file: &mut PmdFile) -> Res<()> {
        self.enter("bone_frame_items");
        let count = self.count_u32("count", record::BONE_FRAME_ITEM)?;
        file.bone_frame_items
            .reserve_exact(self.capacity(count, record::BONE_FRAME_ITEM));
        for i in 0..count {
            self.element = Some(i);
            file.bone_frame_items.push(PmdBoneFrameItem {
                bone: self.u16("bone")?,
                frame: self.u8("frame")?,
            });
        }
        Ok(())
    }

    fn english(&mut self, file: &mut PmdFile) -> Res<()> {
        self.enter("english");
        let flag = self.u8("flag")?;
        file.english_flag = Some(flag);
        if flag == 0 {
            return Ok(());
        }
        let bone_count = file.bones.len();
        let skin_count = file.skins.len().saturating_sub(1);
        let frame_count = file.bone_frame_names.len();
        let needed = record::ENGLISH_HEAD
            + field::BONE_NAME * bone_count
            + field::SKIN_NAME * skin_count
            + field::FRAME_NAME * frame_count;
        if needed > self.remaining() && !self.options.recover {
            return Err(self.malformed(
                "flag",
                format!(
                    "the English names of {bone_count} bones, {skin_count} skins and \
                     {frame_count} frames need {needed} bytes but only {} are left",
                    self.remaining()
                ),
            ));
        }
        let mut english = PmdEnglish {
            name: self.text(field::MODEL_NAME, "name")?,
            comment: self.text(field::COMMENT, "comment")?,
            ..PmdEnglish::default()
        };
        english
            .bone_names
            .reserve_exact(self.capacity(bone_count, field::BONE_NAME));
        for i in 0..bone_count {
            self.element = Some(i);
            english
                .bone_names
                .push(self.text(field::BONE_NAME, "bone_name")?);
        }
        english
            .skin_names
            .reserve_exact(self.capacity(skin_count, field::SKIN_NAME));
        for i in 0..skin_count {
            self.element = Some(i);
            english
                .skin_names
                .push(self.text(field::SKIN_NAME, "skin_name")?);
        }
        english
            .bone_frame_names
            .reserve_exact(self.capacity(frame_count, field::FRAME_NAME));
        for i in 0..frame_count {
            self.element = Some(i);
            english
                .bone_frame_names
                .push(self.text(field::FRAME_NAME, "bone_frame_name")?);
        }
        file.english = Some(english);
        Ok(())
    }

    fn toon_names(&mut self, file: &mut PmdFile) -> Res<()> {
        self.enter("toon_names");
        let mut names = default_toon_names();
        for (i, name) in names.iter_mut().enumerate() {
            self.element = Some(i);
            *name = self.text(field::TOON_NAME, "name")?;
        }
        file.toon_names = Some(names);
        Ok(())
    }

    fn rigid_bodies(&mut self, file: &mut PmdFile) -> Res<()> {
        self.enter("rigid_bodies");
        let count = self.count_u32("count", record::RIGID_BODY)?;
        // Filled in place so that a recovery read keeps the complete bodies.
        let bodies = file
            .rigid_bodies
            .insert(Vec::with_capacity(self.capacity(count, record::RIGID_BODY)));
        for i in 0..count {
            self.element = Some(i);
            let body = PmdRigidBody {
                name: self.text(field::RIGID_BODY_NAME, "name")?,
                bone: self.u16("bone")?,
                group: self.u8("group")?,
                collision_mask: self.u16("collision_mask")?,
                shape: self.u8("shape")?,
                size: self.vec3("size")?,
                position: self.vec3("position")?,
                rotation: self.vec3("rotation")?,
                mass: self.f32("mass")?,
                linear_damping: self.f32("linear_damping")?,
                angular_damping: self.f32("angular_damping")?,
                restitution: self.f32("restitution")?,
                friction: self.f32("friction")?,
                mode: self.u8("mode")?,
            };
            bodies.push(body);
        }
        Ok(())
    }

    fn joints(&mut self, file: &mut PmdFile) -> Res<()> {
        self.enter("joints");
        let count = self.count_u32("count", record::JOINT)?;
        let joints = file
            .joints
            .insert(Vec::with_capacity(self.capacity(count, record::JOINT)));
        for i in 0..count {
            self.element = Some(i);
            let joint = PmdJoint {
                name: self.text(field::JOINT_NAME, "name")?,
                body_a: self.u32("body_a")?,
                body_b: self.u32("body_b")?,
                position: self.vec3("position")?,
                rotation: self.vec3("rotation")?,
                move_lower: self.vec3("move_lower")?,
                move_upper: self.vec3("move_upper")?,
                rotate_lower: self.vec3("rotate_lower")?,
                rotate_upper: self.vec3("rotate_upper")?,
                spring_move: self.vec3("spring_move")?,
                spring_rotate: self.vec3("spring_rotate")?,
            };
            joints.push(joint);
        }
        Ok(())
    }
}

fn f(bytes: &[u8], at: usize) -> f32 {
    let mut word = [0u8; 4];
    if let Some(src) = bytes.get(at..at + 4) {
        word.copy_from_slice(src);
    }
    f32::from_le_bytes(word)
}
