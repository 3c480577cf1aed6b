//! PMD reader: bytes → [`PmdFile`], bounded and allocation-checked.
//!
//! Every count is checked against the bytes left before anything is allocated, and every read
//! is bounds-checked, so no input can make the reader panic or allocate without bound. The
//! extensions (English names, toon list, rigid bodies, joints) are read when bytes remain after
//! the section before them: older files end before them and are valid.

use super::raw::*;
use crate::formats::bytes::{ByteReader, Input};
use crate::formats::error::{LoadNote, LoadOptions, Location, ReadError};
use crate::i18n::Message;

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
                    .unwrap_or_else(|| reader.input.location("")),
                message: Message::new("load.stopped_here").arg("error", error.to_message()),
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

/// The PMD layer on the shared [`ByteReader`]: fixed-size Shift_JIS fields, counts of 1, 2
/// or 4 bytes, the extensions.
struct Reader<'a> {
    input: ByteReader<'a>,
    options: LoadOptions,
    notes: Vec<LoadNote>,
}

impl<'a> Reader<'a> {
    fn new(data: &'a [u8], options: &LoadOptions) -> Self {
        Self {
            input: ByteReader::new(Input::Bytes(data), "header"),
            options: *options,
            notes: Vec::new(),
        }
    }

    fn text(&mut self, len: usize, field: &'static str) -> Res<FixedText> {
        Ok(FixedText::from_field(self.input.take(len, field)?))
    }

    /// An element count `width` bytes wide, checked ([`ByteReader::check_count`]).
    fn check_count(
        &mut self,
        count: usize,
        width: usize,
        min_size: usize,
        field: &'static str,
    ) -> Res<usize> {
        self.input.check_count(
            count,
            width,
            min_size,
            field,
            &self.options,
            &mut self.notes,
        )
    }

    fn count_u8(&mut self, field: &'static str, min_size: usize) -> Res<usize> {
        let count = self.input.u8(field)? as usize;
        self.check_count(count, 1, min_size, field)
    }

    fn count_u16(&mut self, field: &'static str, min_size: usize) -> Res<usize> {
        let count = self.input.u16(field)? as usize;
        self.check_count(count, 2, min_size, field)
    }

    fn count_u32(&mut self, field: &'static str, min_size: usize) -> Res<usize> {
        let count = self.input.u32(field)? as usize;
        self.check_count(count, 4, min_size, field)
    }

    fn header(&mut self, file: &mut PmdFile) -> Res<()> {
        self.input.enter("header");
        let magic: [u8; 3] = self.input.array("magic")?;
        if &magic != MAGIC {
            self.input.pos = 0;
            return Err(self.input.malformed(
                "magic",
                Message::new("load.pmd.magic").arg("magic", format!("{magic:02x?}")),
            ));
        }
        file.version = self.input.f32("version")?;
        if file.version != 1.0 {
            self.notes.push(LoadNote {
                location: Location {
                    offset: self.input.pos - 4,
                    ..self.input.location("version")
                },
                message: Message::new("load.pmd.version").arg("version", file.version),
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
        if self.input.at_end() {
            return Ok(());
        }
        self.english(file)?;
        if self.input.at_end() {
            return Ok(());
        }
        self.toon_names(file)?;
        if self.input.at_end() {
            return Ok(());
        }
        self.rigid_bodies(file)?;
        if self.input.at_end() {
            return Ok(());
        }
        self.joints(file)?;
        // Bytes after the joints belong to no known extension; they are kept so that
        // PMD → PMD is exact, and the model conversion notes them as dropped.
        let rest = self.input.remaining();
        file.trailing = self.input.take(rest, "trailing")?.to_vec();
        Ok(())
    }

    fn vertices(&mut self, file: &mut PmdFile) -> Res<()> {
        self.input.enter("vertices");
        let count = self.count_u32("count", record::VERTEX)?;
        file.vertices
            .reserve_exact(self.input.capacity(count, record::VERTEX));
        for i in 0..count {
            self.input.element = Some(i);
            file.vertices.push(PmdVertex {
                position: self.input.vec3("position")?,
                normal: self.input.vec3("normal")?,
                uv: self.input.vec2("uv")?,
                bones: [self.input.u16("bones[0]")?, self.input.u16("bones[1]")?],
                weight: self.input.u8("weight")?,
                edge_flag: self.input.u8("edge_flag")?,
            });
        }
        Ok(())
    }

    fn faces(&mut self, file: &mut PmdFile) -> Res<()> {
        self.input.enter("faces");
        let count = self.count_u32("count", 2)?;
        file.face_indices
            .reserve_exact(self.input.capacity(count, 2));
        for i in 0..count {
            self.input.element = Some(i);
            file.face_indices.push(self.input.u16("vertex")?);
        }
        Ok(())
    }

    fn materials(&mut self, file: &mut PmdFile) -> Res<()> {
        self.input.enter("materials");
        let count = self.count_u32("count", record::MATERIAL)?;
        file.materials
            .reserve_exact(self.input.capacity(count, record::MATERIAL));
        for i in 0..count {
            self.input.element = Some(i);
            file.materials.push(PmdMaterial {
                diffuse: self.input.vec3("diffuse")?,
                alpha: self.input.f32("alpha")?,
                specular_power: self.input.f32("specular_power")?,
                specular: self.input.vec3("specular")?,
                ambient: self.input.vec3("ambient")?,
                toon_index: self.input.u8("toon_index")?,
                edge_flag: self.input.u8("edge_flag")?,
                face_index_count: self.input.u32("face_index_count")?,
                texture: self.text(field::TEXTURE, "texture")?,
            });
        }
        Ok(())
    }

    fn bones(&mut self, file: &mut PmdFile) -> Res<()> {
        self.input.enter("bones");
        let count = self.count_u16("count", record::BONE)?;
        file.bones
            .reserve_exact(self.input.capacity(count, record::BONE));
        for i in 0..count {
            self.input.element = Some(i);
            file.bones.push(PmdBone {
                name: self.text(field::BONE_NAME, "name")?,
                parent: self.input.u16("parent")?,
                tail: self.input.u16("tail")?,
                kind: self.input.u8("kind")?,
                ik_parent: self.input.u16("ik_parent")?,
                position: self.input.vec3("position")?,
            });
        }
        Ok(())
    }

    fn iks(&mut self, file: &mut PmdFile) -> Res<()> {
        self.input.enter("iks");
        let count = self.count_u16("count", record::IK_HEAD)?;
        file.iks
            .reserve_exact(self.input.capacity(count, record::IK_HEAD));
        for i in 0..count {
            self.input.element = Some(i);
            self.input.sub = None;
            let bone = self.input.u16("bone")?;
            let target = self.input.u16("target")?;
            let link_count = self.input.u8("link_count")? as usize;
            let iterations = self.input.u16("iterations")?;
            let limit = self.input.f32("limit")?;
            // The links follow the fixed part of the entry, so their count is checked here.
            if 2 * link_count > self.input.remaining() && !self.options.recover {
                self.input.pos -= 7;
                return Err(self.input.malformed(
                    "link_count",
                    Message::new("load.pmd.links_past_end")
                        .arg("count", link_count)
                        .arg("needed", 2 * link_count)
                        .arg("left", self.input.remaining().saturating_sub(7)),
                ));
            }
            let link_count = self
                .input
                .cap_count(link_count, 7, 2, "link_count", &mut self.notes);
            let mut links = Vec::with_capacity(self.input.capacity(link_count, 2));
            for link in 0..link_count {
                self.input.sub = Some(("links", link));
                links.push(self.input.u16("bone")?);
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
        self.input.enter("skins");
        let count = self.count_u16("count", record::SKIN_HEAD)?;
        file.skins
            .reserve_exact(self.input.capacity(count, record::SKIN_HEAD));
        for i in 0..count {
            self.input.element = Some(i);
            self.input.sub = None;
            let name = self.text(field::SKIN_NAME, "name")?;
            let vertex_count = self.input.u32("vertex_count")? as usize;
            let kind = self.input.u8("kind")?;
            if vertex_count > self.options.limits.max_elements {
                self.input.pos -= 5;
                return Err(ReadError::LimitExceeded {
                    location: self.input.location("vertex_count"),
                    message: Message::new("load.pmd.skin_vertices_over_limit")
                        .arg("count", vertex_count)
                        .arg("limit", self.options.limits.max_elements),
                });
            }
            let needed = vertex_count.saturating_mul(record::SKIN_VERTEX);
            if needed > self.input.remaining() && !self.options.recover {
                self.input.pos -= 5;
                return Err(self.input.malformed(
                    "vertex_count",
                    Message::new("load.pmd.skin_vertices_past_end")
                        .arg("count", vertex_count)
                        .arg("needed", needed)
                        .arg("left", self.input.remaining().saturating_sub(5)),
                ));
            }
            let vertex_count = self.input.cap_count(
                vertex_count,
                5,
                record::SKIN_VERTEX,
                "vertex_count",
                &mut self.notes,
            );
            let mut vertices =
                Vec::with_capacity(self.input.capacity(vertex_count, record::SKIN_VERTEX));
            for v in 0..vertex_count {
                self.input.sub = Some(("vertices", v));
                vertices.push(PmdSkinVertex {
                    index: self.input.u32("index")?,
                    position: self.input.vec3("position")?,
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
        self.input.enter("skin_display");
        let count = self.count_u8("count", 2)?;
        file.skin_display
            .reserve_exact(self.input.capacity(count, 2));
        for i in 0..count {
            self.input.element = Some(i);
            file.skin_display.push(self.input.u16("skin")?);
        }
        Ok(())
    }

    fn bone_frame_names(&mut self, file: &mut PmdFile) -> Res<()> {
        self.input.enter("bone_frame_names");
        let count = self.count_u8("count", field::FRAME_NAME)?;
        file.bone_frame_names
            .reserve_exact(self.input.capacity(count, field::FRAME_NAME));
        for i in 0..count {
            self.input.element = Some(i);
            file.bone_frame_names
                .push(self.text(field::FRAME_NAME, "name")?);
        }
        Ok(())
    }

    fn bone_frame_items(&mut self, file: &mut PmdFile) -> Res<()> {
        self.input.enter("bone_frame_items");
        let count = self.count_u32("count", record::BONE_FRAME_ITEM)?;
        file.bone_frame_items
            .reserve_exact(self.input.capacity(count, record::BONE_FRAME_ITEM));
        for i in 0..count {
            self.input.element = Some(i);
            file.bone_frame_items.push(PmdBoneFrameItem {
                bone: self.input.u16("bone")?,
                frame: self.input.u8("frame")?,
            });
        }
        Ok(())
    }

    fn english(&mut self, file: &mut PmdFile) -> Res<()> {
        self.input.enter("english");
        let flag = self.input.u8("flag")?;
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
        if needed > self.input.remaining() && !self.options.recover {
            return Err(self.input.malformed(
                "flag",
                Message::new("load.pmd.english_past_end")
                    .arg("bones", bone_count)
                    .arg("skins", skin_count)
                    .arg("frames", frame_count)
                    .arg("needed", needed)
                    .arg("left", self.input.remaining()),
            ));
        }
        let mut english = PmdEnglish {
            name: self.text(field::MODEL_NAME, "name")?,
            comment: self.text(field::COMMENT, "comment")?,
            ..PmdEnglish::default()
        };
        english
            .bone_names
            .reserve_exact(self.input.capacity(bone_count, field::BONE_NAME));
        for i in 0..bone_count {
            self.input.element = Some(i);
            english
                .bone_names
                .push(self.text(field::BONE_NAME, "bone_name")?);
        }
        english
            .skin_names
            .reserve_exact(self.input.capacity(skin_count, field::SKIN_NAME));
        for i in 0..skin_count {
            self.input.element = Some(i);
            english
                .skin_names
                .push(self.text(field::SKIN_NAME, "skin_name")?);
        }
        english
            .bone_frame_names
            .reserve_exact(self.input.capacity(frame_count, field::FRAME_NAME));
        for i in 0..frame_count {
            self.input.element = Some(i);
            english
                .bone_frame_names
                .push(self.text(field::FRAME_NAME, "bone_frame_name")?);
        }
        file.english = Some(english);
        Ok(())
    }

    fn toon_names(&mut self, file: &mut PmdFile) -> Res<()> {
        self.input.enter("toon_names");
        let mut names = default_toon_names();
        for (i, name) in names.iter_mut().enumerate() {
            self.input.element = Some(i);
            *name = self.text(field::TOON_NAME, "name")?;
        }
        file.toon_names = Some(names);
        Ok(())
    }

    fn rigid_bodies(&mut self, file: &mut PmdFile) -> Res<()> {
        self.input.enter("rigid_bodies");
        let count = self.count_u32("count", record::RIGID_BODY)?;
        // Filled in place so that a recovery read keeps the complete bodies.
        let bodies = file.rigid_bodies.insert(Vec::with_capacity(
            self.input.capacity(count, record::RIGID_BODY),
        ));
        for i in 0..count {
            self.input.element = Some(i);
            let body = PmdRigidBody {
                name: self.text(field::RIGID_BODY_NAME, "name")?,
                bone: self.input.u16("bone")?,
                group: self.input.u8("group")?,
                collision_mask: self.input.u16("collision_mask")?,
                shape: self.input.u8("shape")?,
                size: self.input.vec3("size")?,
                position: self.input.vec3("position")?,
                rotation: self.input.vec3("rotation")?,
                mass: self.input.f32("mass")?,
                linear_damping: self.input.f32("linear_damping")?,
                angular_damping: self.input.f32("angular_damping")?,
                restitution: self.input.f32("restitution")?,
                friction: self.input.f32("friction")?,
                mode: self.input.u8("mode")?,
            };
            bodies.push(body);
        }
        Ok(())
    }

    fn joints(&mut self, file: &mut PmdFile) -> Res<()> {
        self.input.enter("joints");
        let count = self.count_u32("count", record::JOINT)?;
        let joints = file.joints.insert(Vec::with_capacity(
            self.input.capacity(count, record::JOINT),
        ));
        for i in 0..count {
            self.input.element = Some(i);
            let joint = PmdJoint {
                name: self.text(field::JOINT_NAME, "name")?,
                body_a: self.input.u32("body_a")?,
                body_b: self.input.u32("body_b")?,
                position: self.input.vec3("position")?,
                rotation: self.input.vec3("rotation")?,
                move_lower: self.input.vec3("move_lower")?,
                move_upper: self.input.vec3("move_upper")?,
                rotate_lower: self.input.vec3("rotate_lower")?,
                rotate_upper: self.input.vec3("rotate_upper")?,
                spring_move: self.input.vec3("spring_move")?,
                spring_rotate: self.input.vec3("spring_rotate")?,
            };
            joints.push(joint);
        }
        Ok(())
    }
}
