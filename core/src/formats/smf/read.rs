//! Reading SMF into a model.
//!
//! Bounded like the other readers: every chunk's size is checked against the bytes of its
//! parent before it is read, every count against the bytes that would hold it before anything
//! is allocated, and every index against what it indexes, so no input panics or allocates
//! without bound. An error names the chunk (`MESH[2].V_A`), the field and the byte offset.
//! Where the engine's loader would read past a chunk or past an array (a structure larger than
//! its chunk, a palette index past the palette, more chunks than the header counts), this
//! reader stops with an error instead.
//!
//! - **Frames** become bones, in frame order, at their rest world position (`local ×
//!   parent_world`). A frame that only holds a mesh (it names a mesh, has an identity matrix,
//!   no children and is in no palette: what the export writes) is not a bone. Frame rotations
//!   and scales have no place in a PMX bone: they are noted.
//! - **Meshes** are joined into one vertex and face list. A vertex of a later mesh that equals
//!   a vertex of an earlier one in everything (position, normal, both UVs, bones and weight)
//!   is the same vertex again: the export wrote it once per mesh it is used in.
//! - **Materials**, one per `MTRL`; the last `MTRL` of a mesh and the first of the next are one
//!   material when they agree in every property (the export cut a material there).
//! - **Weights**: `V_A`'s two palette entries and weight, as BDEF1 or BDEF2.
//! - Collision data and animation sets are checked and noted, not kept.
//!
//! `LoadOptions::recover` is not used: an SMF file's chunks point into each other (palettes
//! name frames, materials name polygon ranges), so a file cut short has no usable part.

use super::{ChunkId, IDENTITY, MAX_BONE_COUNT, Matrix, SMF_VERSION_GUID, id, multiply, size};
use crate::formats::bytes::{Place, array_at, f32_at, i32_at, u16_at, u32_at};
use crate::formats::cp932;
use crate::formats::error::{LoadNote, LoadOptions, LoadReport, ReadError};
use crate::model::{
    Bone, BoneFlags, BoneIdx, DrawFlags, Material, Model, Text, TextureIdx, Vec2, Vec3, Vec4,
    Vertex, VertexIdx, Weight,
};
use std::collections::HashMap;

type Res<T> = Result<T, ReadError>;

/// The place of what is outside every chunk, and of the file as a whole.
const FILE: Place = Place::section("file");

/// A chunk inside its parent: ID, where its header starts and its body.
#[derive(Debug, Clone, Copy)]
struct Chunk<'a> {
    id: ChunkId,
    /// File offset of the chunk header.
    offset: usize,
    body: &'a [u8],
}

/// Values at offsets of a chunk's body. Zero past its end: the callers check the body's size
/// first, and a mistake then reads zero instead of panicking.
impl Chunk<'_> {
    fn body_offset(&self) -> usize {
        self.offset + size::CHUNK_HEADER
    }

    fn u16(&self, at: usize) -> u16 {
        u16_at(self.body, at).unwrap_or(0)
    }

    fn u32(&self, at: usize) -> u32 {
        u32_at(self.body, at).unwrap_or(0)
    }

    fn i32(&self, at: usize) -> i32 {
        i32_at(self.body, at).unwrap_or(0)
    }

    fn f32(&self, at: usize) -> f32 {
        f32_at(self.body, at).unwrap_or(0.0)
    }

    fn vec3(&self, at: usize) -> [f32; 3] {
        [self.f32(at), self.f32(at + 4), self.f32(at + 8)]
    }

    fn matrix(&self, at: usize) -> Matrix {
        let mut m = [[0.0f32; 4]; 4];
        for (row, cells) in m.iter_mut().enumerate() {
            for (col, cell) in cells.iter_mut().enumerate() {
                *cell = self.f32(at + (row * 4 + col) * 4);
            }
        }
        m
    }
}

/// The name of a known chunk ID, for locations (which take static text).
fn chunk_name(chunk: ChunkId) -> &'static str {
    const KNOWN: [(ChunkId, &str); 34] = [
        (id::SMF, "SMF"),
        (id::FRM, "FRM"),
        (id::OBB, "OBB"),
        (id::ANIS, "ANIS"),
        (id::ANI, "ANI"),
        (id::MESH, "MESH"),
        (id::BONE, "BONE"),
        (id::V_PC, "V_PC"),
        (id::V_N, "V_N"),
        (id::V_B, "V_B"),
        (id::V_A, "V_A"),
        (id::V_UV, "V_UV"),
        (id::IDX2, "IDX2"),
        (id::IDX4, "IDX4"),
        (id::MTRL, "MTRL"),
        (id::TEXC, "TEXC"),
        (id::TEXL, "TEXL"),
        (id::TEXE, "TEXE"),
        (id::TEXS, "TEXS"),
        (id::TEXN, "TEXN"),
        (id::DRAW, "DRAW"),
        (id::ZTES, "ZTES"),
        (id::ZWRI, "ZWRI"),
        (id::ATES, "ATES"),
        (id::ABND, "ABND"),
        (id::CULL, "CULL"),
        (id::LGT, "LGT"),
        (id::DIFF, "DIFF"),
        (id::EMIS, "EMIS"),
        (id::SPEC, "SPEC"),
        (id::BUMP, "BUMP"),
        (id::C_AT, "C_AT"),
        (id::C_FC, "C_FC"),
        (id::C_VX, "C_VX"),
    ];
    KNOWN
        .iter()
        .find(|(known, _)| *known == chunk)
        .map_or("chunk", |(_, name)| name)
}

/// Splits `data` (starting at file offset `base`) into chunks, as the loader's loops walk it.
fn chunks(data: &[u8], base: usize, place: Place) -> Res<Vec<Chunk<'_>>> {
    let mut list = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let offset = base + pos;
        let left = data.len() - pos;
        if left < size::CHUNK_HEADER {
            return Err(place.malformed(
                "Chunk",
                offset,
                format!("{left} bytes left: too few for a chunk header (8 bytes)"),
            ));
        }
        let chunk = ChunkId(u32_at(data, pos).unwrap_or(0));
        let declared = i32_at(data, pos + 4).unwrap_or(0);
        let body_left = left - size::CHUNK_HEADER;
        let size = usize::try_from(declared).map_err(|_| {
            place.malformed(
                "Size",
                offset + 4,
                format!("chunk {chunk:?} has a negative size ({declared})"),
            )
        })?;
        if size > body_left {
            return Err(place.malformed(
                "Size",
                offset + 4,
                format!(
                    "chunk {chunk:?} says {size} bytes but only {body_left} are left in its parent"
                ),
            ));
        }
        let start = pos + size::CHUNK_HEADER;
        list.push(Chunk {
            id: chunk,
            offset,
            body: &data[start..start + size],
        });
        pos = start + size;
    }
    Ok(list)
}

/// A NUL-terminated cp932 name in `field`.
fn name_at(field: &[u8]) -> String {
    cp932::SjisName::from_field(field).text
}

/// Checks that the floats at `offsets` of each of `count` `stride`-byte records of `chunk`'s
/// body are finite: a model keeps no NaN or infinity (the validator refuses them).
fn finite(
    chunk: &Chunk<'_>,
    count: usize,
    stride: usize,
    offsets: &[usize],
    place: Place,
    field: &'static str,
) -> Res<()> {
    for record in 0..count {
        for &offset in offsets {
            let at = record * stride + offset;
            let value = chunk.f32(at);
            if !value.is_finite() {
                return Err(place.malformed(
                    field,
                    chunk.body_offset() + at,
                    format!("{value} is not a finite number"),
                ));
            }
        }
    }
    Ok(())
}

/// Checks that `chunk` holds at least `needed` bytes.
fn need(chunk: &Chunk<'_>, needed: usize, place: Place, what: &str) -> Res<()> {
    if chunk.body.len() < needed {
        return Err(place.malformed(
            "Size",
            chunk.offset + 4,
            format!(
                "{:?} is {} bytes, too small for {what} ({needed} bytes)",
                chunk.id,
                chunk.body.len()
            ),
        ));
    }
    Ok(())
}

/// The number of `stride`-byte records in `chunk`, which must be a whole number.
fn records(chunk: &Chunk<'_>, stride: usize, place: Place, limit: usize) -> Res<usize> {
    if !chunk.body.len().is_multiple_of(stride) {
        return Err(place.malformed(
            "Size",
            chunk.offset + 4,
            format!(
                "{:?} is {} bytes, not a whole number of {stride}-byte records",
                chunk.id,
                chunk.body.len()
            ),
        ));
    }
    let count = chunk.body.len() / stride;
    if count > limit {
        return Err(ReadError::LimitExceeded {
            location: place.at("Size", chunk.offset + 4),
            message: format!("{count} records, more than the limit of {limit}").into(),
        });
    }
    Ok(count)
}

/// A `long` count or index that must lie in `0..=max`.
fn checked_count(
    value: i32,
    max: usize,
    place: Place,
    field: &'static str,
    offset: usize,
) -> Res<usize> {
    usize::try_from(value)
        .ok()
        .filter(|&v| v <= max)
        .ok_or_else(|| place.malformed(field, offset, format!("{value} is outside 0..={max}")))
}

#[derive(Debug, Clone)]
struct Frame {
    local: Matrix,
    name: String,
    mesh: Option<usize>,
    parent: Option<usize>,
}

#[derive(Debug, Clone, Default)]
struct MaterialChunk {
    name: String,
    polygon_start: usize,
    polygon_count: usize,
    texture: Option<String>,
    diffuse: [f32; 4],
    emissive: [f32; 3],
    specular: Option<([f32; 3], f32)>,
    cull: bool,
}

#[derive(Debug, Clone, Default)]
struct Mesh {
    palette: Vec<usize>,
    positions: Vec<[f32; 3]>,
    normals: Option<Vec<[f32; 3]>>,
    weights: Option<Vec<(f32, [u8; 2])>>,
    uvs: Option<Vec<[f32; 4]>>,
    indices: Vec<u32>,
    materials: Vec<MaterialChunk>,
    /// (attributes, faces, vertices) of collision data.
    collision: Option<(usize, usize, usize)>,
}

/// Reads an SMF file into a model.
///
/// # Errors
/// [`ReadError::Malformed`] for bytes that do not follow the format (naming the chunk, field
/// and offset), [`ReadError::Unsupported`] for another version,
/// [`ReadError::LimitExceeded`] past `options.limits`.
pub fn read_smf(bytes: &[u8], options: &LoadOptions) -> Result<(Model, LoadReport), ReadError> {
    let limit = options.limits.max_elements;
    let mut notes = Vec::new();
    let top = chunks(bytes, 0, FILE)?;
    let Some(first) = top.first() else {
        return Err(FILE.malformed("Chunk", 0, "empty file: no SMF header chunk"));
    };
    let head_place = Place {
        section: "SMF",
        element: None,
        sub: None,
    };
    if first.id != id::SMF {
        return Err(FILE.malformed(
            "Chunk",
            0,
            format!(
                "the file starts with chunk {:?}, not the SMF header",
                first.id
            ),
        ));
    }
    need(first, size::FILE_HEAD, head_place, "SMF_FILEHEAD")?;
    let guid = first.u32(0);
    if guid != SMF_VERSION_GUID {
        return Err(ReadError::Unsupported {
            location: head_place.at("Guid", first.body_offset()),
            message: format!("version 0x{guid:08X}; only 0x{SMF_VERSION_GUID:08X} is read").into(),
        });
    }
    // Every frame, mesh and animation set is a chunk with at least its structure: counts that
    // the rest of the file cannot hold are refused before anything is allocated.
    let rest = bytes.len() - (first.body_offset() + first.body.len());
    let mut counts = [0usize; 3];
    for (slot, (field, at, record)) in counts.iter_mut().zip([
        ("MeshCount", 4, size::CHUNK_HEADER + size::MESH_DATA),
        ("FrameCount", 8, size::CHUNK_HEADER + size::FRAME_DATA),
        (
            "AnimationSetCount",
            12,
            size::CHUNK_HEADER + size::ANIMATION_SET_DATA,
        ),
    ]) {
        let value = first.i32(at);
        let count = checked_count(
            value,
            rest / record,
            head_place,
            field,
            first.body_offset() + at,
        )?;
        if count > limit {
            return Err(ReadError::LimitExceeded {
                location: head_place.at(field, first.body_offset() + at),
                message: format!("{count} is more than the limit of {limit}").into(),
            });
        }
        *slot = count;
    }
    let [mesh_count, frame_count, animation_set_count] = counts;

    let mut frames: Vec<Frame> = Vec::with_capacity(frame_count);
    let mut meshes: Vec<Mesh> = Vec::with_capacity(mesh_count);
    let mut animation_sets = 0usize;
    for chunk in &top[1..] {
        match chunk.id {
            id::SMF => {
                return Err(FILE.malformed("Chunk", chunk.offset, "a second SMF header chunk"));
            }
            id::FRM => {
                let place = Place {
                    section: "FRM",
                    element: Some(frames.len()),
                    sub: None,
                };
                if frames.len() == frame_count {
                    return Err(place.malformed(
                        "Chunk",
                        chunk.offset,
                        format!("more FRM chunks than the header's FrameCount ({frame_count})"),
                    ));
                }
                frames.push(read_frame(chunk, place, frame_count, mesh_count)?);
            }
            id::MESH => {
                let place = Place {
                    section: "MESH",
                    element: Some(meshes.len()),
                    sub: None,
                };
                if meshes.len() == mesh_count {
                    return Err(place.malformed(
                        "Chunk",
                        chunk.offset,
                        format!("more MESH chunks than the header's MeshCount ({mesh_count})"),
                    ));
                }
                meshes.push(read_mesh(chunk, place, frame_count, limit)?);
            }
            id::ANIS => {
                let place = Place {
                    section: "ANIS",
                    element: Some(animation_sets),
                    sub: None,
                };
                read_animation_set(chunk, place, frame_count)?;
                if animation_sets == animation_set_count {
                    return Err(Place {
                        section: "ANIS",
                        element: Some(animation_sets),
                        sub: None,
                    }
                    .malformed(
                        "Chunk",
                        chunk.offset,
                        format!(
                            "more ANIS chunks than the header's AnimationSetCount ({animation_set_count})"
                        ),
                    ));
                }
                animation_sets += 1;
            }
            other => notes.push(LoadNote {
                location: FILE.at("Chunk", chunk.offset),
                message: format!("unknown chunk {other:?} skipped (the engine skips it too)")
                    .into(),
                lost: false,
            }),
        }
    }
    for (kind, found, expected, field) in [
        ("FRM", frames.len(), frame_count, "FrameCount"),
        ("MESH", meshes.len(), mesh_count, "MeshCount"),
    ] {
        if found != expected {
            return Err(head_place.malformed(
                field,
                first.body_offset(),
                format!("the header counts {expected} but the file has {found} {kind} chunks"),
            ));
        }
    }
    if animation_sets > 0 {
        notes.push(LoadNote {
            location: FILE.at("", 0),
            message: format!(
                "{animation_sets} animation sets (ANIS) not imported: a model holds no motion"
            )
            .into(),
            lost: true,
        });
    }
    check_frame_tree(&frames)?;
    let model = build_model(&frames, &meshes, &mut notes)?;
    Ok((
        model,
        LoadReport {
            recovered_from: None,
            notes,
            file_size: bytes.len(),
            face_index_count: None,
        },
    ))
}

fn read_frame(
    chunk: &Chunk<'_>,
    place: Place,
    frame_count: usize,
    mesh_count: usize,
) -> Res<Frame> {
    need(chunk, size::FRAME_DATA, place, "SMF_FRAMEDATA")?;
    let body = chunk.body;
    let base = chunk.body_offset();
    let optional =
        |value: i32, count: usize, field: &'static str, at: usize| -> Res<Option<usize>> {
            if value == -1 {
                return Ok(None);
            }
            usize::try_from(value)
                .ok()
                .filter(|&v| v < count)
                .map(Some)
                .ok_or_else(|| {
                    place.malformed(
                        field,
                        base + at,
                        format!("{value} is neither -1 nor below {count}"),
                    )
                })
        };
    let offsets: Vec<usize> = (0..16).map(|i| i * 4).collect();
    finite(chunk, 1, size::MATRIX, &offsets, place, "mTransform")?;
    let name_at_offset = size::MATRIX;
    let mesh = optional(chunk.i32(128), mesh_count, "MeshNo", 128)?;
    let parent = optional(chunk.i32(132), frame_count, "ParentFrameNo", 132)?;
    // Sub-chunks (OBB): walked for their sizes; the collision box has no place in a bone.
    chunks(&body[size::FRAME_DATA..], base + size::FRAME_DATA, place)?;
    Ok(Frame {
        local: chunk.matrix(0),
        name: name_at(&body[name_at_offset..name_at_offset + super::MAX_NAME_SIZE]),
        mesh,
        parent,
    })
}

/// Checks an animation set as the loader would read it (the model keeps no motion): every
/// `ANI`'s target frame exists and its key arrays fit inside it.
fn read_animation_set(chunk: &Chunk<'_>, place: Place, frame_count: usize) -> Res<()> {
    need(
        chunk,
        size::ANIMATION_SET_DATA,
        place,
        "SMF_ANIMATIONSETDATA",
    )?;
    let base = chunk.body_offset() + size::ANIMATION_SET_DATA;
    let subs = chunks(&chunk.body[size::ANIMATION_SET_DATA..], base, place)?;
    for (index, sub) in subs.iter().enumerate() {
        if sub.id != id::ANI {
            continue;
        }
        let sub_place = place.with_sub("ANI", index);
        need(sub, 16, sub_place, "SMF_ANIMATIONDATA")?;
        let at = sub.body_offset();
        let target = sub.i32(0);
        if usize::try_from(target).map_or(true, |t| t >= frame_count) {
            return Err(sub_place.malformed(
                "TargetFrame",
                at,
                format!("{target} is not a frame (there are {frame_count})"),
            ));
        }
        let mut needed = 16usize;
        for (field, offset, stride) in [
            ("KeyMaxScale", 4, 16usize),
            ("KeyMaxRotate", 8, 20),
            ("KeyMaxTranslate", 12, 16),
        ] {
            let count = checked_count(
                sub.i32(offset),
                sub.body.len() / stride,
                sub_place,
                field,
                at + offset,
            )?;
            needed = needed.saturating_add(count * stride);
        }
        if needed > sub.body.len() {
            return Err(sub_place.malformed(
                "Size",
                sub.offset + 4,
                format!(
                    "the keys need {needed} bytes but ANI holds {}",
                    sub.body.len()
                ),
            ));
        }
    }
    Ok(())
}

fn read_mesh(chunk: &Chunk<'_>, place: Place, frame_count: usize, limit: usize) -> Res<Mesh> {
    need(chunk, size::MESH_DATA, place, "SMF_MESHDATA")?;
    let base = chunk.body_offset();
    let material_count = checked_count(
        chunk.i32(64),
        chunk.body.len() / (size::CHUNK_HEADER + size::MATERIAL),
        place,
        "MaterialCount",
        base + 64,
    )?;
    let mut mesh = Mesh::default();
    let mut seen: Vec<ChunkId> = Vec::new();
    let mut vertex_count: Option<(usize, &'static str)> = None;
    let subs = chunks(
        &chunk.body[size::MESH_DATA..],
        base + size::MESH_DATA,
        place,
    )?;
    let mut material_chunks = Vec::new();
    let mut index_chunk = None;
    for (index, sub) in subs.iter().enumerate() {
        let name = chunk_name(sub.id);
        let sub_place = place.with_sub(name, index);
        let is_array = [
            id::BONE,
            id::V_PC,
            id::V_N,
            id::V_B,
            id::V_A,
            id::V_UV,
            id::IDX2,
            id::IDX4,
            id::C_AT,
            id::C_FC,
            id::C_VX,
        ]
        .contains(&sub.id);
        if is_array {
            if seen.contains(&sub.id)
                || (matches!(sub.id, id::IDX2 | id::IDX4)
                    && (seen.contains(&id::IDX2) || seen.contains(&id::IDX4)))
            {
                return Err(sub_place.malformed(
                    "Chunk",
                    sub.offset,
                    format!("a second {:?} chunk in one mesh", sub.id),
                ));
            }
            seen.push(sub.id);
        }
        let mut vertices = |count: usize| -> Res<()> {
            match vertex_count {
                Some((expected, from)) if expected != count => Err(sub_place.malformed(
                    "Size",
                    sub.offset + 4,
                    format!("{count} vertices, but {from} has {expected}"),
                )),
                _ => {
                    vertex_count = Some((count, name));
                    Ok(())
                }
            }
        };
        match sub.id {
            id::OBB => need(sub, size::OBB_DATA, sub_place, "SMF_OBBDATA")?,
            id::BONE => {
                let count = records(sub, size::BONE_DATA, sub_place, limit)?;
                if count > MAX_BONE_COUNT {
                    return Err(sub_place.malformed(
                        "Size",
                        sub.offset + 4,
                        format!("{count} bones, more than MAX_BONE_COUNT ({MAX_BONE_COUNT})"),
                    ));
                }
                for entry in 0..count {
                    let at = entry * size::BONE_DATA + size::MATRIX;
                    let value = sub.i32(at);
                    let frame = usize::try_from(value)
                        .ok()
                        .filter(|&f| f < frame_count)
                        .ok_or_else(|| {
                            sub_place.malformed(
                                "FrameNo",
                                sub.body_offset() + at,
                                format!("{value} is not a frame (there are {frame_count})"),
                            )
                        })?;
                    mesh.palette.push(frame);
                }
            }
            id::V_PC => {
                let count = records(sub, size::V_PC, sub_place, limit)?;
                vertices(count)?;
                finite(sub, count, size::V_PC, &[0, 4, 8], sub_place, "Position")?;
                mesh.positions = (0..count).map(|i| sub.vec3(i * size::V_PC)).collect();
            }
            id::V_N => {
                let count = records(sub, size::V_N, sub_place, limit)?;
                vertices(count)?;
                finite(sub, count, size::V_N, &[0, 4, 8], sub_place, "Normal")?;
                mesh.normals = Some((0..count).map(|i| sub.vec3(i * size::V_N)).collect());
            }
            id::V_B => {
                let count = records(sub, size::V_N, sub_place, limit)?;
                vertices(count)?;
            }
            id::V_A => {
                let count = records(sub, size::V_A, sub_place, limit)?;
                vertices(count)?;
                finite(sub, count, size::V_A, &[0], sub_place, "Weight")?;
                mesh.weights = Some(
                    (0..count)
                        .map(|i| {
                            let at = i * size::V_A;
                            let palette: [u8; 2] = array_at(sub.body, at + 4).unwrap_or_default();
                            (sub.f32(at), palette)
                        })
                        .collect(),
                );
            }
            id::V_UV => {
                let count = records(sub, size::V_UV, sub_place, limit)?;
                vertices(count)?;
                finite(sub, count, size::V_UV, &[0, 4, 8, 12], sub_place, "UV")?;
                mesh.uvs = Some(
                    (0..count)
                        .map(|i| {
                            let at = i * size::V_UV;
                            [
                                sub.f32(at),
                                sub.f32(at + 4),
                                sub.f32(at + 8),
                                sub.f32(at + 12),
                            ]
                        })
                        .collect(),
                );
            }
            id::IDX2 | id::IDX4 => index_chunk = Some((index, *sub)),
            id::MTRL => {
                if material_chunks.len() == material_count {
                    return Err(sub_place.malformed(
                        "Chunk",
                        sub.offset,
                        format!(
                            "more MTRL chunks than the mesh's MaterialCount ({material_count})"
                        ),
                    ));
                }
                material_chunks.push((index, *sub));
            }
            id::C_AT | id::C_FC | id::C_VX => {
                let stride = match sub.id {
                    id::C_AT => size::COLLISION_ATTRIBUTE,
                    id::C_FC => size::COLLISION_FACE,
                    _ => size::COLLISION_VERTEX,
                };
                let count = records(sub, stride, sub_place, limit)?;
                let collision = mesh.collision.get_or_insert((0, 0, 0));
                match sub.id {
                    id::C_AT => collision.0 = count,
                    id::C_FC => collision.1 = count,
                    _ => collision.2 = count,
                }
            }
            _ => {}
        }
    }
    let vertex_total = vertex_count.map_or(0, |(count, _)| count);
    if vertex_total > 0 && mesh.positions.is_empty() {
        return Err(place.malformed(
            "V_PC",
            chunk.offset,
            "vertex data without the V_PC chunk every mesh has",
        ));
    }
    if let Some((index, sub)) = index_chunk {
        let sub_place = place.with_sub(chunk_name(sub.id), index);
        let wide = sub.id == id::IDX4;
        let stride = if wide { 4 } else { 2 };
        let count = records(&sub, stride, sub_place, limit)?;
        if count % 3 != 0 {
            return Err(sub_place.malformed(
                "Size",
                sub.offset + 4,
                format!("{count} indices: not whole triangles"),
            ));
        }
        mesh.indices.reserve(count);
        for i in 0..count {
            let at = i * stride;
            let value = if wide {
                sub.u32(at)
            } else {
                u32::from(sub.u16(at))
            };
            if value as usize >= vertex_total {
                return Err(sub_place.malformed(
                    "index",
                    sub.body_offset() + at,
                    format!("index {value} past the mesh's {vertex_total} vertices"),
                ));
            }
            mesh.indices.push(value);
        }
    }
    if let Some(weights) = &mesh.weights {
        for (vertex, (_, palette)) in weights.iter().enumerate() {
            if let Some(&slot) = palette
                .iter()
                .find(|&&slot| slot as usize >= mesh.palette.len())
            {
                let sub_index = subs.iter().position(|s| s.id == id::V_A).unwrap_or(0);
                let sub = subs
                    .get(sub_index)
                    .map_or(chunk.offset, |s| s.body_offset());
                return Err(place.with_sub("V_A", sub_index).malformed(
                    "Index",
                    sub + vertex * size::V_A + 4,
                    format!(
                        "vertex {vertex}: palette entry {slot} past the mesh's {} BONE entries",
                        mesh.palette.len()
                    ),
                ));
            }
        }
    }
    let polygons = mesh.indices.len() / 3;
    for (index, sub) in material_chunks {
        let sub_place = place.with_sub("MTRL", index);
        mesh.materials
            .push(read_material(&sub, sub_place, polygons, vertex_total)?);
    }
    Ok(mesh)
}

fn read_material(
    chunk: &Chunk<'_>,
    place: Place,
    polygons: usize,
    vertices: usize,
) -> Res<MaterialChunk> {
    need(chunk, size::MATERIAL, place, "SMF_MATERIAL")?;
    let body = chunk.body;
    let base = chunk.body_offset();
    let field = |at: usize, max: usize, name: &'static str| {
        checked_count(chunk.i32(at), max, place, name, base + at)
    };
    let polygon_start = field(64, polygons, "PolygonStart")?;
    let polygon_count = field(68, polygons - polygon_start, "PolygonCount")?;
    let vertex_start = field(72, vertices, "VertexStart")?;
    field(76, vertices - vertex_start, "VertexCount")?;
    let mut material = MaterialChunk {
        name: name_at(&body[..super::MAX_NAME_SIZE]),
        polygon_start,
        polygon_count,
        diffuse: [1.0; 4],
        cull: true,
        ..MaterialChunk::default()
    };
    for sub in chunks(&body[size::MATERIAL..], base + size::MATERIAL, place)? {
        let value_place = Place {
            sub: place.sub,
            ..place
        };
        match sub.id {
            id::TEXC if !sub.body.is_empty() => material.texture = Some(name_at(sub.body)),
            id::DRAW | id::ZTES | id::ZWRI | id::ATES | id::ABND | id::LGT | id::BUMP => {
                need(&sub, size::FLAG, value_place, "a 4-byte value")?;
            }
            id::CULL => {
                need(&sub, size::FLAG, value_place, "a 4-byte value")?;
                material.cull = sub.u32(0) != 0;
            }
            id::DIFF => {
                need(&sub, size::DIFF, value_place, "SMF_VECTOR4")?;
                finite(&sub, 1, size::DIFF, &[0, 4, 8, 12], value_place, "DIFF")?;
                for (i, c) in material.diffuse.iter_mut().enumerate() {
                    *c = sub.f32(i * 4);
                }
            }
            id::EMIS => {
                need(&sub, size::EMIS, value_place, "SMF_VECTOR3")?;
                finite(&sub, 1, size::EMIS, &[0, 4, 8], value_place, "EMIS")?;
                material.emissive = sub.vec3(0);
            }
            id::SPEC => {
                need(&sub, size::SPEC, value_place, "SMF_SPECULAR")?;
                finite(&sub, 1, size::SPEC, &[0, 4, 8, 12], value_place, "SPEC")?;
                material.specular = Some((sub.vec3(0), sub.f32(12)));
            }
            _ => {}
        }
    }
    Ok(material)
}

/// Every parent chain must end: the engine's frame update recurses down the tree.
fn check_frame_tree(frames: &[Frame]) -> Res<()> {
    let mut state = vec![0u8; frames.len()];
    for start in 0..frames.len() {
        let mut path = Vec::new();
        let mut current = start;
        loop {
            match state[current] {
                2 => break,
                1 => {
                    return Err(Place {
                        section: "FRM",
                        element: Some(current),
                        sub: None,
                    }
                    .malformed(
                        "ParentFrameNo",
                        0,
                        "the frame is its own ancestor (a loop of parents)",
                    ));
                }
                _ => {}
            }
            state[current] = 1;
            path.push(current);
            match frames[current].parent {
                Some(parent) => current = parent,
                None => break,
            }
        }
        for frame in path {
            state[frame] = 2;
        }
    }
    Ok(())
}

/// What makes two vertices the same: the bits of everything the file stores for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct VertexKey {
    position: [u32; 3],
    normal: [u32; 3],
    uv: [u32; 4],
    bones: [Option<usize>; 2],
    weight: u32,
}

fn bits<const N: usize>(values: [f32; N]) -> [u32; N] {
    values.map(f32::to_bits)
}

fn build_model(frames: &[Frame], meshes: &[Mesh], notes: &mut Vec<LoadNote>) -> Res<Model> {
    let mut model = Model::new_empty();
    // Rest world matrices, parents first (the tree has no loops).
    let mut worlds: Vec<Option<Matrix>> = vec![None; frames.len()];
    for start in 0..frames.len() {
        let mut chain = Vec::new();
        let mut current = Some(start);
        while let Some(frame) = current {
            if worlds[frame].is_some() {
                break;
            }
            chain.push(frame);
            current = frames[frame].parent;
        }
        for &frame in chain.iter().rev() {
            let parent = frames[frame]
                .parent
                .and_then(|p| worlds[p])
                .unwrap_or(IDENTITY);
            worlds[frame] = Some(multiply(&frames[frame].local, &parent));
        }
    }
    let worlds: Vec<Matrix> = worlds.into_iter().map(|w| w.unwrap_or(IDENTITY)).collect();
    if let Some(frame) = worlds
        .iter()
        .position(|w| w.iter().flatten().any(|v| !v.is_finite()))
    {
        return Err(Place {
            section: "FRM",
            element: Some(frame),
            sub: None,
        }
        .malformed(
            "mTransform",
            0,
            "the frame's world matrix (its matrix times its parents') overflows",
        ));
    }

    // Frames that only hold a mesh are not bones.
    let mut has_child = vec![false; frames.len()];
    for frame in frames {
        if let Some(parent) = frame.parent {
            has_child[parent] = true;
        }
    }
    let mut in_palette = vec![false; frames.len()];
    for mesh in meshes {
        for &frame in &mesh.palette {
            in_palette[frame] = true;
        }
    }
    let mut frame_bone: Vec<Option<usize>> = vec![None; frames.len()];
    let mut rotated = 0usize;
    for (index, frame) in frames.iter().enumerate() {
        let holder = frame.mesh.is_some()
            && !has_child[index]
            && !in_palette[index]
            && frame.local == IDENTITY;
        if holder {
            continue;
        }
        frame_bone[index] = Some(model.bones.len());
        let local3 = [
            &frame.local[0][..3],
            &frame.local[1][..3],
            &frame.local[2][..3],
        ];
        let translation_only = local3.iter().enumerate().all(|(r, row)| {
            row.iter()
                .enumerate()
                .all(|(c, &v)| v == if r == c { 1.0 } else { 0.0 })
        });
        if !translation_only {
            rotated += 1;
        }
        let w = worlds[index][3];
        model.bones.push(Bone {
            name_ja: Text::from(frame.name.as_str()),
            position: Vec3::new(w[0], w[1], w[2]),
            flags: BoneFlags::ROTATABLE
                | BoneFlags::MOVABLE
                | BoneFlags::VISIBLE
                | BoneFlags::OPERABLE,
            ..Bone::default()
        });
    }
    for (index, frame) in frames.iter().enumerate() {
        let Some(bone) = frame_bone[index] else {
            continue;
        };
        model.bones[bone].parent = frame.parent.and_then(|p| frame_bone[p]).map(BoneIdx::new);
    }
    // A bone's tail points at its first child, as PMX editors draw a chain.
    for (index, frame) in frames.iter().enumerate() {
        if let (Some(parent), Some(bone)) =
            (frame.parent.and_then(|p| frame_bone[p]), frame_bone[index])
        {
            let parent_bone = &mut model.bones[parent];
            if parent_bone.tail_bone.is_none() {
                parent_bone.tail_bone = Some(BoneIdx::new(bone));
                parent_bone.flags |= BoneFlags::TAIL_IS_BONE;
            }
        }
    }
    if rotated > 0 {
        notes.push(LoadNote {
            location: FILE.at("", 0),
            message: format!(
                "{rotated} frames have a rotation or scale in their matrix: PMX bones keep only their position"
            ).into(),
            lost: true,
        });
    }

    // Vertices, faces and materials, mesh by mesh.
    let mut holder_of_mesh: Vec<Option<usize>> = vec![None; meshes.len()];
    for (index, frame) in frames.iter().enumerate() {
        if let Some(mesh) = frame.mesh
            && holder_of_mesh[mesh].is_none()
        {
            holder_of_mesh[mesh] = Some(index);
        }
    }
    let mut textures: HashMap<String, usize> = HashMap::new();
    let mut seen_vertices: HashMap<VertexKey, (usize, u32)> = HashMap::new();
    let mut second_uvs: Vec<Vec4> = Vec::new();
    let mut uncovered = 0usize;
    let mut previous_last: Option<(MaterialChunk, usize)> = None;
    for (mesh_index, mesh) in meshes.iter().enumerate() {
        let holder = holder_of_mesh[mesh_index];
        let rigid_bone = holder.and_then(|f| frame_bone[f]);
        let rigid_world = holder.map_or(IDENTITY, |f| worlds[f]);
        let mut local_to_model: Vec<u32> = Vec::with_capacity(mesh.positions.len());
        for (i, &position) in mesh.positions.iter().enumerate() {
            let normal = mesh
                .normals
                .as_ref()
                .and_then(|n| n.get(i).copied())
                .unwrap_or([0.0, 1.0, 0.0]);
            let uv = mesh
                .uvs
                .as_ref()
                .and_then(|u| u.get(i).copied())
                .unwrap_or([0.0; 4]);
            let (position, normal, bones, weight) = match &mesh.weights {
                Some(weights) => {
                    let (w, slots) = weights.get(i).copied().unwrap_or((1.0, [0, 0]));
                    let bone = |slot: u8| {
                        mesh.palette
                            .get(slot as usize)
                            .and_then(|&frame| frame_bone[frame])
                    };
                    (position, normal, [bone(slots[0]), bone(slots[1])], w)
                }
                None => {
                    // Drawn with the holder frame's matrix.
                    let p = super::transform_point(position, &rigid_world);
                    let n = super::transform_point(normal, &{
                        let mut m = rigid_world;
                        m[3] = [0.0, 0.0, 0.0, 1.0];
                        m
                    });
                    if p.iter().chain(&n).any(|v| !v.is_finite()) {
                        return Err(Place {
                            section: "MESH",
                            element: Some(mesh_index),
                            sub: None,
                        }
                        .malformed(
                            "V_PC",
                            0,
                            format!("vertex {i} overflows when moved by its holder frame's matrix"),
                        ));
                    }
                    (p, n, [rigid_bone, rigid_bone], 1.0)
                }
            };
            let key = VertexKey {
                position: bits(position),
                normal: bits(normal),
                uv: bits(uv),
                bones,
                weight: weight.to_bits(),
            };
            let existing = seen_vertices
                .get(&key)
                .filter(|(mesh, _)| *mesh < mesh_index)
                .map(|&(_, vertex)| vertex);
            let vertex = match existing {
                Some(vertex) => vertex,
                None => {
                    let vertex = model.vertices.len() as u32;
                    seen_vertices.entry(key).or_insert((mesh_index, vertex));
                    let weight = if bones[0] == bones[1] || weight == 1.0 {
                        Weight::Bdef1 {
                            bone: bones[0].map(BoneIdx::new),
                        }
                    } else if weight == 0.0 {
                        Weight::Bdef1 {
                            bone: bones[1].map(BoneIdx::new),
                        }
                    } else {
                        Weight::Bdef2 {
                            bones: bones.map(|b| b.map(BoneIdx::new)),
                            weight,
                        }
                    };
                    model.vertices.push(Vertex {
                        position: Vec3::from_array(position),
                        normal: Vec3::from_array(normal),
                        uv: Vec2::new(uv[0], uv[1]),
                        weight,
                        edge_scale: 1.0,
                    });
                    second_uvs.push(Vec4::new(uv[2], uv[3], 0.0, 0.0));
                    vertex
                }
            };
            local_to_model.push(vertex);
        }
        let mut covered = vec![false; mesh.indices.len() / 3];
        for (index, chunk) in mesh.materials.iter().enumerate() {
            let range = chunk.polygon_start..chunk.polygon_start + chunk.polygon_count;
            let triangles = mesh.indices[range.start * 3..range.end * 3].chunks_exact(3);
            for (triangle, seen) in triangles.zip(&mut covered[range]) {
                let corners = [0, 1, 2].map(|c| {
                    let local = triangle[c] as usize;
                    VertexIdx(local_to_model.get(local).copied().unwrap_or(0))
                });
                model.faces.push(corners);
                *seen = true;
            }
            let continues = index == 0
                && chunk.polygon_count > 0
                && previous_last
                    .as_ref()
                    .is_some_and(|(last, _)| same_material(last, chunk));
            let face_indices = u32::try_from(chunk.polygon_count * 3).unwrap_or(u32::MAX);
            if continues {
                if let Some(material) = model.materials.last_mut() {
                    material.face_index_count =
                        material.face_index_count.saturating_add(face_indices);
                }
            } else {
                let texture = chunk.texture.as_ref().map(|path| {
                    *textures.entry(path.clone()).or_insert_with(|| {
                        model.textures.push(Text::from(path.as_str()));
                        model.textures.len() - 1
                    })
                });
                model
                    .materials
                    .push(material_from(chunk, texture, face_indices));
            }
        }
        uncovered += covered.iter().filter(|&&c| !c).count();
        previous_last = mesh
            .materials
            .last()
            .filter(|m| m.polygon_count > 0)
            .map(|m| (m.clone(), mesh_index));
        if let Some((attributes, faces, vertices)) = mesh.collision {
            notes.push(LoadNote {
                location: Place {
                    section: "MESH",
                    element: Some(mesh_index),
                    sub: None,
                }
                .at("C_FC", 0),
                message: format!(
                    "collision data ({attributes} attributes, {faces} faces, {vertices} vertices) not imported: a PMX model has no collision mesh"
                ).into(),
                lost: true,
            });
        }
    }
    if uncovered > 0 {
        notes.push(LoadNote {
            location: FILE.at("", 0),
            message: format!(
                "{uncovered} faces belong to no MTRL: not imported (the engine does not draw them)"
            )
            .into(),
            lost: true,
        });
    }
    if second_uvs
        .iter()
        .zip(&model.vertices)
        .any(|(second, vertex)| second.x != vertex.uv.x || second.y != vertex.uv.y)
    {
        model.additional_uvs = vec![second_uvs];
    }
    Ok(model)
}

fn same_material(a: &MaterialChunk, b: &MaterialChunk) -> bool {
    a.name == b.name
        && a.texture == b.texture
        && bits(a.diffuse) == bits(b.diffuse)
        && bits(a.emissive) == bits(b.emissive)
        && a.specular.map(|(c, p)| (bits(c), p.to_bits()))
            == b.specular.map(|(c, p)| (bits(c), p.to_bits()))
        && a.cull == b.cull
}

fn material_from(chunk: &MaterialChunk, texture: Option<usize>, face_index_count: u32) -> Material {
    let mut material = Material {
        name_ja: Text::from(chunk.name.as_str()),
        diffuse: Vec4::from_array(chunk.diffuse),
        ambient: Vec3::from_array(chunk.emissive),
        texture: texture.map(TextureIdx::new),
        face_index_count,
        ..Material::default()
    };
    if let Some((color, power)) = chunk.specular {
        material.specular = Vec3::from_array(color);
        material.specular_power = power;
    }
    if !chunk.cull {
        material.draw_flags |= DrawFlags::DOUBLE_SIDED;
    }
    material
}
