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
//! - **Meshes** are joined into one vertex and face list, every vertex of the file a vertex of
//!   the model. The one exception is provable: the export writes a vertex once per mesh it is
//!   used in and lists, per mesh, the model vertex each was written from (`PXVI`, a chunk of
//!   its own that the engine skips); a vertex of a later mesh with the same source and equal
//!   in everything (position, normal, both UVs, bones and weight) is that vertex again, and
//!   the join is noted with the counts. Vertices that merely look alike stay apart.
//! - **Materials**, one per `MTRL`; the last `MTRL` of a mesh and the first of the next are one
//!   material when they agree in every property (the export cut a material there).
//! - **Weights**: `V_A`'s two palette entries and weight, as BDEF1 or BDEF2.
//! - Collision data and animation sets are checked and noted, not kept.
//!
//! **Recovery** (`LoadOptions::recover`): damage becomes a lost note at the damaged field's
//! byte offset and the reading goes on, as the PMX reader's recovery does (`Recovery`). A
//! chunk cut short keeps its bytes; complete frames, meshes, vertices and triangles before the
//! damage are kept; a frame whose parent is missing or makes a loop becomes a root bone, one
//! whose mesh is missing holds none; references to what was not read are cut; counts that
//! disagree with the chunks are taken from the chunks. Only a file without a readable header
//! fails, and limits stay limits.

use super::{ChunkId, IDENTITY, MAX_BONE_COUNT, Matrix, SMF_VERSION_GUID, id, multiply, size};
use crate::formats::bytes::{Place, array_at, f32_at, i32_at, u16_at, u32_at};
use crate::formats::cp932;
use crate::formats::error::{LoadNote, LoadOptions, LoadReport, Location, ReadError};
use crate::i18n::Message;
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
    const KNOWN: [(ChunkId, &str); 35] = [
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
        (id::PXVI, "PXVI"),
    ];
    KNOWN
        .iter()
        .find(|(known, _)| *known == chunk)
        .map_or("chunk", |(_, name)| name)
}

/// Recovery mode's bookkeeping. In strict mode every damage is the error; in recovery mode
/// (`LoadOptions::recover`) it becomes a note with `lost` set at the damaged field, and the
/// reading goes on with what the bytes still hold, as the PMX reader's recovery does.
/// Limits are never relaxed.
#[derive(Debug)]
struct Recovery {
    recover: bool,
    notes: Vec<LoadNote>,
    /// The first damage read past: the report's `recovered_from`.
    first: Option<ReadError>,
}

impl Recovery {
    fn new(recover: bool) -> Self {
        Self {
            recover,
            notes: Vec::new(),
            first: None,
        }
    }

    /// `error` in strict mode; in recovery mode a lost note saying what the reading does
    /// instead (`then`), and `Ok`.
    fn damage(&mut self, error: ReadError, then: Message) -> Res<()> {
        if !self.recover {
            return Err(error);
        }
        let location = error.location().cloned().unwrap_or(FILE.at("", 0));
        self.notes.push(LoadNote::new(
            location,
            Message::new("load.smf.recovered")
                .arg("damage", error.message())
                .arg("then", then),
            true,
        ));
        self.first.get_or_insert(error);
        Ok(())
    }

    /// A note that is not damage (`lost` says whether the model lacks something the file has).
    fn note(&mut self, location: Location, message: Message, lost: bool) {
        self.notes.push(LoadNote::new(location, message, lost));
    }
}

/// Splits `data` (starting at file offset `base`) into chunks, as the loader's loops walk it.
/// In recovery mode a chunk that runs past its parent keeps the bytes that are there, and bytes
/// too few for a chunk header end the list.
fn chunks<'a>(
    data: &'a [u8],
    base: usize,
    place: Place,
    recovery: &mut Recovery,
) -> Res<Vec<Chunk<'a>>> {
    let mut list = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let offset = base + pos;
        let left = data.len() - pos;
        if left < size::CHUNK_HEADER {
            recovery.damage(
                place.malformed(
                    "Chunk",
                    offset,
                    Message::new("load.smf.chunk_header_cut").arg("left", left),
                ),
                Message::new("load.smf.then.bytes_skipped"),
            )?;
            break;
        }
        let chunk = ChunkId(u32_at(data, pos).unwrap_or(0));
        let declared = i32_at(data, pos + 4).unwrap_or(0);
        let body_left = left - size::CHUNK_HEADER;
        let Ok(mut size) = usize::try_from(declared) else {
            recovery.damage(
                place.malformed(
                    "Size",
                    offset + 4,
                    Message::new("load.smf.negative_size")
                        .arg("chunk", format!("{chunk:?}"))
                        .arg("size", declared),
                ),
                Message::new("load.smf.then.rest_of_parent"),
            )?;
            break;
        };
        if size > body_left {
            recovery.damage(
                place.malformed(
                    "Size",
                    offset + 4,
                    Message::new("load.smf.size_past_parent")
                        .arg("chunk", format!("{chunk:?}"))
                        .arg("size", size)
                        .arg("left", body_left),
                ),
                Message::new("load.smf.then.read_as_far"),
            )?;
            size = body_left;
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
/// body are finite: a model keeps no NaN or infinity (the validator refuses them). In recovery
/// mode the first one is noted, `false` returned, and the callers read every such value as 0
/// ([`finite_or_zero`]) or use a default.
fn finite(
    chunk: &Chunk<'_>,
    count: usize,
    stride: usize,
    offsets: &[usize],
    place: Place,
    field: &'static str,
    recovery: &mut Recovery,
) -> Res<bool> {
    for record in 0..count {
        for &offset in offsets {
            let at = record * stride + offset;
            let value = chunk.f32(at);
            if !value.is_finite() {
                return recovery
                    .damage(
                        place.malformed(
                            field,
                            chunk.body_offset() + at,
                            Message::new("load.smf.not_finite").arg("value", value.to_string()),
                        ),
                        Message::new("load.smf.then.read_as_zero"),
                    )
                    .map(|()| false);
            }
        }
    }
    Ok(true)
}

/// `values` with every NaN and infinity replaced by 0 (what recovery reads them as; strict
/// mode has refused them before).
fn finite_or_zero<const N: usize>(values: [f32; N]) -> [f32; N] {
    values.map(|v| if v.is_finite() { v } else { 0.0 })
}

/// The error for `chunk` holding fewer than `needed` bytes.
fn too_small(chunk: &Chunk<'_>, needed: usize, place: Place, what: &str) -> Option<ReadError> {
    (chunk.body.len() < needed).then(|| {
        place.malformed(
            "Size",
            chunk.offset + 4,
            Message::new("load.smf.too_small")
                .arg("chunk", format!("{:?}", chunk.id))
                .arg("size", chunk.body.len())
                .arg("what", what)
                .arg("needed", needed),
        )
    })
}

/// Whether `chunk` holds at least `needed` bytes; damage (with `then`) when it does not.
fn need(
    chunk: &Chunk<'_>,
    needed: usize,
    place: Place,
    what: &str,
    recovery: &mut Recovery,
    then: Message,
) -> Res<bool> {
    match too_small(chunk, needed, place, what) {
        Some(error) => {
            recovery.damage(error, then)?;
            Ok(false)
        }
        None => Ok(true),
    }
}

/// The number of `stride`-byte records in `chunk`, which must be a whole number (in recovery
/// mode the whole records are read).
fn records(
    chunk: &Chunk<'_>,
    stride: usize,
    place: Place,
    limit: usize,
    recovery: &mut Recovery,
) -> Res<usize> {
    if !chunk.body.len().is_multiple_of(stride) {
        recovery.damage(
            place.malformed(
                "Size",
                chunk.offset + 4,
                Message::new("load.smf.partial_records")
                    .arg("chunk", format!("{:?}", chunk.id))
                    .arg("size", chunk.body.len())
                    .arg("stride", stride),
            ),
            Message::new("load.smf.then.whole_records"),
        )?;
    }
    let count = chunk.body.len() / stride;
    if count > limit {
        return Err(ReadError::LimitExceeded {
            location: place.at("Size", chunk.offset + 4),
            message: Message::new("load.smf.records_over_limit")
                .arg("count", count)
                .arg("limit", limit),
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
        .ok_or_else(|| {
            place.malformed(
                field,
                offset,
                Message::new("load.smf.outside_range")
                    .arg("value", value)
                    .arg("max", max),
            )
        })
}

/// Where `FRM`'s fields are in its body.
mod frame_field {
    pub const MESH_NO: usize = super::size::MATRIX + super::super::MAX_NAME_SIZE;
    pub const PARENT_FRAME_NO: usize = MESH_NO + 4;
}

#[derive(Debug, Clone)]
struct Frame {
    local: Matrix,
    name: String,
    mesh: Option<usize>,
    parent: Option<usize>,
    /// File offset of the frame's body (`mTransform`); the other fields follow it at the
    /// offsets of [`frame_field`].
    at: usize,
}

#[derive(Debug, Clone, Default)]
struct MaterialChunk {
    /// File offset of the chunk's body.
    at: usize,
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
    /// The frame of each `BONE` entry (`None`: an entry recovery could not read).
    palette: Vec<Option<usize>>,
    positions: Vec<[f32; 3]>,
    /// File offset of `V_PC`'s body.
    positions_at: usize,
    normals: Option<Vec<[f32; 3]>>,
    weights: Option<Vec<(f32, [u8; 2])>>,
    uvs: Option<Vec<[f32; 4]>>,
    /// The model vertex each vertex was exported from (`PXVI`, the exporter's own chunk), and
    /// the chunk's body offset.
    sources: Option<(Vec<u32>, usize)>,
    indices: Vec<u32>,
    /// File offset of the index chunk's body.
    indices_at: usize,
    materials: Vec<MaterialChunk>,
    /// (attributes, faces, vertices) of collision data, and the offset of its first chunk.
    collision: Option<((usize, usize, usize), usize)>,
}

/// Reads an SMF file into a model.
///
/// In recovery mode (`options.recover`) damage is read past, each with a lost note at its
/// byte offset: a file cut short keeps every complete frame, mesh, vertex and triangle before
/// the cut; a frame whose parent is missing or makes a loop becomes a root bone; counts that
/// disagree with the chunks present are taken from the chunks; non-finite values read as 0.
/// Only a file without a readable SMF header still fails.
///
/// # Errors
/// [`ReadError::Malformed`] for bytes that do not follow the format (naming the chunk, field
/// and offset), [`ReadError::Unsupported`] for another version,
/// [`ReadError::LimitExceeded`] past `options.limits`.
pub fn read_smf(bytes: &[u8], options: &LoadOptions) -> Result<(Model, LoadReport), ReadError> {
    let limit = options.limits.max_elements;
    let mut recovery = Recovery::new(options.recover);
    let top = chunks(bytes, 0, FILE, &mut recovery)?;
    let Some(first) = top.first() else {
        return Err(FILE.malformed("Chunk", 0, Message::new("load.smf.empty_file")));
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
            Message::new("load.smf.not_smf").arg("chunk", format!("{:?}", first.id)),
        ));
    }
    if let Some(error) = too_small(first, size::FILE_HEAD, head_place, "SMF_FILEHEAD") {
        return Err(error);
    }
    let guid = first.u32(0);
    if guid != SMF_VERSION_GUID {
        return Err(ReadError::Unsupported {
            location: head_place.at("Guid", first.body_offset()),
            message: Message::new("load.smf.version")
                .arg("version", format!("0x{guid:08X}"))
                .arg("supported", format!("0x{SMF_VERSION_GUID:08X}")),
        });
    }
    // Every frame, mesh and animation set is a chunk with at least its structure: counts that
    // the rest of the file cannot hold are refused before anything is allocated.
    let rest = bytes.len() - (first.body_offset() + first.body.len());
    let mut counts = [0usize; 3];
    for (slot, (field, at, record, kind)) in counts.iter_mut().zip([
        (
            "MeshCount",
            4,
            size::CHUNK_HEADER + size::MESH_DATA,
            id::MESH,
        ),
        (
            "FrameCount",
            8,
            size::CHUNK_HEADER + size::FRAME_DATA,
            id::FRM,
        ),
        (
            "AnimationSetCount",
            12,
            size::CHUNK_HEADER + size::ANIMATION_SET_DATA,
            id::ANIS,
        ),
    ]) {
        let offset = first.body_offset() + at;
        let count = match checked_count(first.i32(at), rest / record, head_place, field, offset) {
            Ok(count) => count,
            Err(error) => {
                recovery.damage(error, Message::new("load.smf.then.counted_from_chunks"))?;
                top.iter().filter(|chunk| chunk.id == kind).count()
            }
        };
        if count > limit {
            return Err(ReadError::LimitExceeded {
                location: head_place.at(field, offset),
                message: Message::new("load.smf.count_over_limit")
                    .arg("count", count)
                    .arg("limit", limit),
            });
        }
        *slot = count;
    }
    let [mesh_count, frame_count, animation_set_count] = counts;

    let mut frames: Vec<Frame> = Vec::with_capacity(frame_count);
    let mut meshes: Vec<Mesh> = Vec::with_capacity(mesh_count);
    let mut animation_sets = 0usize;
    let mut first_animation_set = None;
    // Frames are numbered by their place: after a frame recovery cannot read, the ones after
    // it would take wrong numbers, so they are left out.
    let mut frames_cut = false;
    for chunk in &top[1..] {
        match chunk.id {
            id::SMF => {
                recovery.damage(
                    FILE.malformed(
                        "Chunk",
                        chunk.offset,
                        Message::new("load.smf.second_header"),
                    ),
                    Message::new("load.smf.then.not_read"),
                )?;
            }
            id::FRM => {
                let place = Place {
                    section: "FRM",
                    element: Some(frames.len()),
                    sub: None,
                };
                if frames_cut {
                    continue;
                }
                if frames.len() == frame_count {
                    recovery.damage(
                        place.malformed(
                            "Chunk",
                            chunk.offset,
                            Message::new("load.smf.extra_chunks")
                                .arg("chunk", "FRM")
                                .arg("field", "FrameCount")
                                .arg("count", frame_count),
                        ),
                        Message::new("load.smf.then.frame_not_read"),
                    )?;
                    continue;
                }
                match read_frame(chunk, place, frame_count, mesh_count, &mut recovery)? {
                    Some(frame) => frames.push(frame),
                    None => frames_cut = true,
                }
            }
            id::MESH => {
                let place = Place {
                    section: "MESH",
                    element: Some(meshes.len()),
                    sub: None,
                };
                if meshes.len() == mesh_count {
                    recovery.damage(
                        place.malformed(
                            "Chunk",
                            chunk.offset,
                            Message::new("load.smf.extra_chunks")
                                .arg("chunk", "MESH")
                                .arg("field", "MeshCount")
                                .arg("count", mesh_count),
                        ),
                        Message::new("load.smf.then.mesh_not_read"),
                    )?;
                    continue;
                }
                meshes.push(read_mesh(chunk, place, frame_count, limit, &mut recovery)?);
            }
            id::ANIS => {
                let place = Place {
                    section: "ANIS",
                    element: Some(animation_sets),
                    sub: None,
                };
                first_animation_set.get_or_insert(chunk.offset);
                if let Err(error) = read_animation_set(chunk, place, frame_count, &mut recovery) {
                    recovery.damage(error, Message::new("load.smf.then.animation_unchecked"))?;
                }
                if animation_sets == animation_set_count {
                    recovery.damage(
                        place.malformed(
                            "Chunk",
                            chunk.offset,
                            Message::new("load.smf.extra_chunks")
                                .arg("chunk", "ANIS")
                                .arg("field", "AnimationSetCount")
                                .arg("count", animation_set_count),
                        ),
                        Message::new("load.smf.then.counted"),
                    )?;
                }
                animation_sets += 1;
            }
            other => recovery.note(
                FILE.at("Chunk", chunk.offset),
                Message::new("load.smf.unknown_chunk").arg("chunk", format!("{other:?}")),
                false,
            ),
        }
    }
    for (kind, found, expected, field, at) in [
        ("FRM", frames.len(), frame_count, "FrameCount", 8),
        ("MESH", meshes.len(), mesh_count, "MeshCount", 4),
    ] {
        if found != expected && !(kind == "FRM" && frames_cut) {
            recovery.damage(
                head_place.malformed(
                    field,
                    first.body_offset() + at,
                    Message::new("load.smf.count_mismatch")
                        .arg("expected", expected)
                        .arg("found", found)
                        .arg("chunk", kind),
                ),
                Message::new("load.smf.then.chunks_present"),
            )?;
        }
    }
    // Only recovery gets here with fewer frames or meshes than the header promised: references
    // to the missing ones are cut.
    cut_missing_references(&mut frames, &mut meshes, &mut recovery)?;
    if let Some(offset) = first_animation_set {
        recovery.note(
            FILE.at("ANIS", offset),
            Message::new("load.smf.animation_sets").arg("count", animation_sets),
            true,
        );
    }
    check_frame_tree(&mut frames, &mut recovery)?;
    let model = build_model(&frames, &meshes, &mut recovery)?;
    Ok((
        model,
        LoadReport {
            recovered_from: recovery.first,
            notes: recovery.notes,
            file_size: bytes.len(),
            face_index_count: None,
        },
    ))
}

/// Frames that name a parent or a mesh the file does not hold (recovery of a file cut short)
/// become roots or hold no mesh; palette entries naming a missing frame move no vertex.
fn cut_missing_references(
    frames: &mut [Frame],
    meshes: &mut [Mesh],
    recovery: &mut Recovery,
) -> Res<()> {
    let frame_count = frames.len();
    let mesh_count = meshes.len();
    for (index, frame) in frames.iter_mut().enumerate() {
        let place = Place::section("FRM").with_element(index);
        if let Some(parent) = frame.parent.filter(|&p| p >= frame_count) {
            recovery.damage(
                place.malformed(
                    "ParentFrameNo",
                    frame.at + frame_field::PARENT_FRAME_NO,
                    Message::new("load.smf.frame_missing")
                        .arg("frame", parent)
                        .arg("count", frame_count),
                ),
                Message::new("load.smf.then.root_bone"),
            )?;
            frame.parent = None;
        }
        if let Some(mesh) = frame.mesh.filter(|&m| m >= mesh_count) {
            recovery.damage(
                place.malformed(
                    "MeshNo",
                    frame.at + frame_field::MESH_NO,
                    Message::new("load.smf.mesh_missing")
                        .arg("mesh", mesh)
                        .arg("count", mesh_count),
                ),
                Message::new("load.smf.then.no_mesh"),
            )?;
            frame.mesh = None;
        }
    }
    for mesh in meshes {
        for entry in &mut mesh.palette {
            if entry.is_some_and(|frame| frame >= frame_count) {
                *entry = None;
            }
        }
    }
    Ok(())
}

/// One `FRM`; `None` when recovery cannot read it (too short for `SMF_FRAMEDATA`).
fn read_frame(
    chunk: &Chunk<'_>,
    place: Place,
    frame_count: usize,
    mesh_count: usize,
    recovery: &mut Recovery,
) -> Res<Option<Frame>> {
    if !need(
        chunk,
        size::FRAME_DATA,
        place,
        "SMF_FRAMEDATA",
        recovery,
        Message::new("load.smf.then.frames_after_lost"),
    )? {
        return Ok(None);
    }
    let body = chunk.body;
    let base = chunk.body_offset();
    let mut optional = |value: i32,
                        count: usize,
                        field: &'static str,
                        at: usize,
                        then: Message|
     -> Res<Option<usize>> {
        if value == -1 {
            return Ok(None);
        }
        match usize::try_from(value).ok().filter(|&v| v < count) {
            Some(index) => Ok(Some(index)),
            None => {
                recovery.damage(
                    place.malformed(
                        field,
                        base + at,
                        Message::new("load.smf.bad_reference")
                            .arg("value", value)
                            .arg("count", count),
                    ),
                    then,
                )?;
                Ok(None)
            }
        }
    };
    let mesh = optional(
        chunk.i32(frame_field::MESH_NO),
        mesh_count,
        "MeshNo",
        frame_field::MESH_NO,
        Message::new("load.smf.then.no_mesh"),
    )?;
    let parent = optional(
        chunk.i32(frame_field::PARENT_FRAME_NO),
        frame_count,
        "ParentFrameNo",
        frame_field::PARENT_FRAME_NO,
        Message::new("load.smf.then.root_bone"),
    )?;
    let offsets: Vec<usize> = (0..16).map(|i| i * 4).collect();
    // A matrix with a NaN in it places nothing: recovery reads it as the identity.
    let local = if finite(
        chunk,
        1,
        size::MATRIX,
        &offsets,
        place,
        "mTransform",
        recovery,
    )? {
        chunk.matrix(0)
    } else {
        IDENTITY
    };
    // Sub-chunks (OBB): walked for their sizes; the collision box has no place in a bone.
    chunks(
        &body[size::FRAME_DATA..],
        base + size::FRAME_DATA,
        place,
        recovery,
    )?;
    let name_at_offset = size::MATRIX;
    Ok(Some(Frame {
        local,
        name: name_at(&body[name_at_offset..name_at_offset + super::MAX_NAME_SIZE]),
        mesh,
        parent,
        at: base,
    }))
}

/// Checks an animation set as the loader would read it (the model keeps no motion): every
/// `ANI`'s target frame exists and its key arrays fit inside it.
fn read_animation_set(
    chunk: &Chunk<'_>,
    place: Place,
    frame_count: usize,
    recovery: &mut Recovery,
) -> Res<()> {
    if let Some(error) = too_small(
        chunk,
        size::ANIMATION_SET_DATA,
        place,
        "SMF_ANIMATIONSETDATA",
    ) {
        return Err(error);
    }
    let base = chunk.body_offset() + size::ANIMATION_SET_DATA;
    let subs = chunks(
        &chunk.body[size::ANIMATION_SET_DATA..],
        base,
        place,
        recovery,
    )?;
    for (index, sub) in subs.iter().enumerate() {
        if sub.id != id::ANI {
            continue;
        }
        let sub_place = place.with_sub("ANI", index);
        if let Some(error) = too_small(sub, 16, sub_place, "SMF_ANIMATIONDATA") {
            return Err(error);
        }
        let at = sub.body_offset();
        let target = sub.i32(0);
        if usize::try_from(target).map_or(true, |t| t >= frame_count) {
            return Err(sub_place.malformed(
                "TargetFrame",
                at,
                Message::new("load.smf.not_a_frame")
                    .arg("value", target)
                    .arg("count", frame_count),
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
                Message::new("load.smf.keys_past_chunk")
                    .arg("needed", needed)
                    .arg("size", sub.body.len()),
            ));
        }
    }
    Ok(())
}

/// The vertex arrays of a mesh, checked against each other as they are read.
#[derive(Debug, Default)]
struct VertexCount {
    /// The count every vertex chunk so far agrees on, and the chunk that set it.
    count: Option<(usize, &'static str)>,
}

impl VertexCount {
    /// Takes the count of the vertex chunk `name`. In recovery mode a disagreement keeps the
    /// smaller count: the vertices every chunk holds.
    fn take(
        &mut self,
        count: usize,
        name: &'static str,
        sub: &Chunk<'_>,
        place: Place,
        recovery: &mut Recovery,
    ) -> Res<()> {
        match self.count {
            Some((expected, from)) if expected != count => {
                recovery.damage(
                    place.malformed(
                        "Size",
                        sub.offset + 4,
                        Message::new("load.smf.vertex_count_mismatch")
                            .arg("count", count)
                            .arg("chunk", from)
                            .arg("expected", expected),
                    ),
                    Message::new("load.smf.then.common_vertices"),
                )?;
                if count < expected {
                    self.count = Some((count, name));
                }
            }
            Some(_) => {}
            None => self.count = Some((count, name)),
        }
        Ok(())
    }

    fn total(&self) -> usize {
        self.count.map_or(0, |(count, _)| count)
    }
}

/// `count` records of `N` floats each, `stride` bytes apart in `sub` (non-finite values as 0).
fn float_records<const N: usize>(sub: &Chunk<'_>, count: usize, stride: usize) -> Vec<[f32; N]> {
    (0..count)
        .map(|i| finite_or_zero(std::array::from_fn(|k| sub.f32(i * stride + k * 4))))
        .collect()
}

fn read_mesh(
    chunk: &Chunk<'_>,
    place: Place,
    frame_count: usize,
    limit: usize,
    recovery: &mut Recovery,
) -> Res<Mesh> {
    if !need(
        chunk,
        size::MESH_DATA,
        place,
        "SMF_MESHDATA",
        recovery,
        Message::new("load.smf.then.mesh_empty"),
    )? {
        return Ok(Mesh::default());
    }
    let base = chunk.body_offset();
    let subs = chunks(
        &chunk.body[size::MESH_DATA..],
        base + size::MESH_DATA,
        place,
        recovery,
    )?;
    let material_count = match checked_count(
        chunk.i32(64),
        chunk.body.len() / (size::CHUNK_HEADER + size::MATERIAL),
        place,
        "MaterialCount",
        base + 64,
    ) {
        Ok(count) => count,
        Err(error) => {
            recovery.damage(error, Message::new("load.smf.then.mtrl_present"))?;
            subs.iter().filter(|sub| sub.id == id::MTRL).count()
        }
    };
    let mut mesh = Mesh::default();
    let mut seen: Vec<ChunkId> = Vec::new();
    let mut vertex_count = VertexCount::default();
    let mut material_chunks = Vec::new();
    let mut index_chunk = None;
    let mut sources = None;
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
            id::PXVI,
        ]
        .contains(&sub.id);
        if is_array {
            if seen.contains(&sub.id)
                || (matches!(sub.id, id::IDX2 | id::IDX4)
                    && (seen.contains(&id::IDX2) || seen.contains(&id::IDX4)))
            {
                recovery.damage(
                    sub_place.malformed(
                        "Chunk",
                        sub.offset,
                        Message::new("load.smf.duplicate_chunk")
                            .arg("chunk", format!("{:?}", sub.id)),
                    ),
                    Message::new("load.smf.then.not_read"),
                )?;
                continue;
            }
            seen.push(sub.id);
        }
        match sub.id {
            id::OBB => {
                need(
                    sub,
                    size::OBB_DATA,
                    sub_place,
                    "SMF_OBBDATA",
                    recovery,
                    Message::new("load.smf.then.obb_unused"),
                )?;
            }
            id::BONE => {
                let mut count = records(sub, size::BONE_DATA, sub_place, limit, recovery)?;
                if count > MAX_BONE_COUNT {
                    recovery.damage(
                        sub_place.malformed(
                            "Size",
                            sub.offset + 4,
                            Message::new("load.smf.palette_too_big")
                                .arg("count", count)
                                .arg("max", MAX_BONE_COUNT),
                        ),
                        Message::new("load.smf.then.first_40"),
                    )?;
                    count = MAX_BONE_COUNT;
                }
                for entry in 0..count {
                    let at = entry * size::BONE_DATA + size::MATRIX;
                    let value = sub.i32(at);
                    let frame = usize::try_from(value).ok().filter(|&f| f < frame_count);
                    if frame.is_none() {
                        recovery.damage(
                            sub_place.malformed(
                                "FrameNo",
                                sub.body_offset() + at,
                                Message::new("load.smf.not_a_frame")
                                    .arg("value", value)
                                    .arg("count", frame_count),
                            ),
                            Message::new("load.smf.then.entry_moves_nothing"),
                        )?;
                    }
                    mesh.palette.push(frame);
                }
            }
            id::V_PC => {
                let count = records(sub, size::V_PC, sub_place, limit, recovery)?;
                vertex_count.take(count, name, sub, sub_place, recovery)?;
                finite(
                    sub,
                    count,
                    size::V_PC,
                    &[0, 4, 8],
                    sub_place,
                    "Position",
                    recovery,
                )?;
                mesh.positions = float_records(sub, count, size::V_PC);
                mesh.positions_at = sub.body_offset();
            }
            id::V_N => {
                let count = records(sub, size::V_N, sub_place, limit, recovery)?;
                vertex_count.take(count, name, sub, sub_place, recovery)?;
                finite(
                    sub,
                    count,
                    size::V_N,
                    &[0, 4, 8],
                    sub_place,
                    "Normal",
                    recovery,
                )?;
                mesh.normals = Some(float_records(sub, count, size::V_N));
            }
            id::V_B => {
                let count = records(sub, size::V_N, sub_place, limit, recovery)?;
                vertex_count.take(count, name, sub, sub_place, recovery)?;
            }
            id::V_A => {
                let count = records(sub, size::V_A, sub_place, limit, recovery)?;
                vertex_count.take(count, name, sub, sub_place, recovery)?;
                finite(sub, count, size::V_A, &[0], sub_place, "Weight", recovery)?;
                mesh.weights = Some(
                    (0..count)
                        .map(|i| {
                            let at = i * size::V_A;
                            let palette: [u8; 2] = array_at(sub.body, at + 4).unwrap_or_default();
                            let [weight] = finite_or_zero([sub.f32(at)]);
                            (weight, palette)
                        })
                        .collect(),
                );
            }
            id::V_UV => {
                let count = records(sub, size::V_UV, sub_place, limit, recovery)?;
                vertex_count.take(count, name, sub, sub_place, recovery)?;
                finite(
                    sub,
                    count,
                    size::V_UV,
                    &[0, 4, 8, 12],
                    sub_place,
                    "UV",
                    recovery,
                )?;
                mesh.uvs = Some(float_records(sub, count, size::V_UV));
            }
            id::PXVI => sources = Some((index, *sub)),
            id::IDX2 | id::IDX4 => index_chunk = Some((index, *sub)),
            id::MTRL => {
                if material_chunks.len() == material_count {
                    recovery.damage(
                        sub_place.malformed(
                            "Chunk",
                            sub.offset,
                            Message::new("load.smf.extra_chunks")
                                .arg("chunk", "MTRL")
                                .arg("field", "MaterialCount")
                                .arg("count", material_count),
                        ),
                        Message::new("load.smf.then.material_read_anyway"),
                    )?;
                }
                material_chunks.push((index, *sub));
            }
            id::C_AT | id::C_FC | id::C_VX => {
                let stride = match sub.id {
                    id::C_AT => size::COLLISION_ATTRIBUTE,
                    id::C_FC => size::COLLISION_FACE,
                    _ => size::COLLISION_VERTEX,
                };
                let count = records(sub, stride, sub_place, limit, recovery)?;
                let (collision, _) = mesh.collision.get_or_insert(((0, 0, 0), sub.offset));
                match sub.id {
                    id::C_AT => collision.0 = count,
                    id::C_FC => collision.1 = count,
                    _ => collision.2 = count,
                }
            }
            _ => {}
        }
    }
    let mut vertex_total = vertex_count.total();
    if vertex_total > 0 && mesh.positions.is_empty() {
        recovery.damage(
            place.malformed("V_PC", chunk.offset, Message::new("load.smf.no_positions")),
            Message::new("load.smf.then.vertices_faces_lost"),
        )?;
        vertex_total = 0;
    }
    // Recovery keeps the vertices every chunk holds.
    mesh.positions.truncate(vertex_total);
    for list in [&mut mesh.normals].into_iter().flatten() {
        list.truncate(vertex_total);
    }
    if let Some(weights) = &mut mesh.weights {
        weights.truncate(vertex_total);
    }
    if let Some(uvs) = &mut mesh.uvs {
        uvs.truncate(vertex_total);
    }
    if let Some((index, sub)) = sources {
        mesh.sources = read_sources(&sub, place.with_sub("PXVI", index), vertex_total, recovery);
    }
    if let Some((index, sub)) = index_chunk {
        let sub_place = place.with_sub(chunk_name(sub.id), index);
        mesh.indices = read_indices(&sub, sub_place, vertex_total, limit, recovery)?;
        mesh.indices_at = sub.body_offset();
    }
    if let Some(weights) = &mesh.weights {
        let bad: Vec<(usize, u8)> = weights
            .iter()
            .enumerate()
            .filter_map(|(vertex, (_, palette))| {
                palette
                    .iter()
                    .find(|&&slot| slot as usize >= mesh.palette.len())
                    .map(|&slot| (vertex, slot))
            })
            .collect();
        if let Some(&(vertex, slot)) = bad.first() {
            let sub_index = subs.iter().position(|s| s.id == id::V_A).unwrap_or(0);
            let sub = subs
                .get(sub_index)
                .map_or(chunk.offset, |s| s.body_offset());
            recovery.damage(
                place.with_sub("V_A", sub_index).malformed(
                    "Index",
                    sub + vertex * size::V_A + 4,
                    Message::new("load.smf.palette_index")
                        .arg("vertex", vertex)
                        .arg("slot", slot)
                        .arg("count", mesh.palette.len()),
                ),
                Message::new("load.smf.then.palette_entries").arg("count", bad.len()),
            )?;
        }
    }
    let polygons = mesh.indices.len() / 3;
    for (index, sub) in material_chunks {
        let sub_place = place.with_sub("MTRL", index);
        if let Some(material) = read_material(&sub, sub_place, polygons, vertex_total, recovery)? {
            mesh.materials.push(material);
        }
    }
    Ok(mesh)
}

/// `PXVI`: the model vertex each of the mesh's vertices was exported from. Not the engine's
/// chunk, so a `PXVI` that does not fit the mesh is noted and left unused, never an error.
fn read_sources(
    sub: &Chunk<'_>,
    place: Place,
    vertex_total: usize,
    recovery: &mut Recovery,
) -> Option<(Vec<u32>, usize)> {
    let count = sub.body.len() / 4;
    if !sub.body.len().is_multiple_of(4) || count != vertex_total {
        recovery.note(
            place.at("Size", sub.offset + 4),
            Message::new("load.smf.sources_mismatch")
                .arg("size", sub.body.len())
                .arg("count", vertex_total),
            false,
        );
        return None;
    }
    Some((
        (0..count).map(|i| sub.u32(i * 4)).collect(),
        sub.body_offset(),
    ))
}

/// `IDX2`/`IDX4`: whole triangles of indices below `vertex_total` (recovery keeps the
/// complete triangles before the first bad index).
fn read_indices(
    sub: &Chunk<'_>,
    place: Place,
    vertex_total: usize,
    limit: usize,
    recovery: &mut Recovery,
) -> Res<Vec<u32>> {
    let wide = sub.id == id::IDX4;
    let stride = if wide { 4 } else { 2 };
    let mut count = records(sub, stride, place, limit, recovery)?;
    if count % 3 != 0 {
        recovery.damage(
            place.malformed(
                "Size",
                sub.offset + 4,
                Message::new("load.smf.partial_triangles").arg("count", count),
            ),
            Message::new("load.smf.then.indices_dropped").arg("count", count % 3),
        )?;
        count -= count % 3;
    }
    let mut indices = Vec::with_capacity(count);
    for i in 0..count {
        let at = i * stride;
        let value = if wide {
            sub.u32(at)
        } else {
            u32::from(sub.u16(at))
        };
        if value as usize >= vertex_total {
            recovery.damage(
                place.malformed(
                    "index",
                    sub.body_offset() + at,
                    Message::new("load.smf.index_past_vertices")
                        .arg("index", value)
                        .arg("count", vertex_total),
                ),
                Message::new("load.smf.then.triangles_lost"),
            )?;
            indices.truncate(i - i % 3);
            break;
        }
        indices.push(value);
    }
    Ok(indices)
}

/// One `MTRL`; `None` when recovery cannot read it (too short for `SMF_MATERIAL`).
#[allow(
    clippy::collapsible_match,
    reason = "each sub-chunk arm checks its size, then its values; a guard would hide the check"
)]
fn read_material(
    chunk: &Chunk<'_>,
    place: Place,
    polygons: usize,
    vertices: usize,
    recovery: &mut Recovery,
) -> Res<Option<MaterialChunk>> {
    if !need(
        chunk,
        size::MATERIAL,
        place,
        "SMF_MATERIAL",
        recovery,
        Message::new("load.smf.then.material_not_read"),
    )? {
        return Ok(None);
    }
    let body = chunk.body;
    let base = chunk.body_offset();
    // A range past the mesh's faces or vertices: recovery keeps the part inside it.
    let mut field = |at: usize, max: usize, name: &'static str| -> Res<usize> {
        let value = chunk.i32(at);
        match checked_count(value, max, place, name, base + at) {
            Ok(value) => Ok(value),
            Err(error) => {
                recovery.damage(error, Message::new("load.smf.then.clamped"))?;
                Ok(usize::try_from(value).map_or(0, |v| v.min(max)))
            }
        }
    };
    let polygon_start = field(64, polygons, "PolygonStart")?;
    let polygon_count = field(68, polygons - polygon_start, "PolygonCount")?;
    let vertex_start = field(72, vertices, "VertexStart")?;
    field(76, vertices - vertex_start, "VertexCount")?;
    let mut material = MaterialChunk {
        at: base,
        name: name_at(&body[..super::MAX_NAME_SIZE]),
        polygon_start,
        polygon_count,
        diffuse: [1.0; 4],
        cull: true,
        ..MaterialChunk::default()
    };
    for sub in chunks(
        &body[size::MATERIAL..],
        base + size::MATERIAL,
        place,
        recovery,
    )? {
        let value_place = Place {
            sub: place.sub,
            ..place
        };
        let skip = || Message::new("load.smf.then.value_not_read");
        match sub.id {
            id::TEXC if !sub.body.is_empty() => material.texture = Some(name_at(sub.body)),
            id::DRAW | id::ZTES | id::ZWRI | id::ATES | id::ABND | id::LGT | id::BUMP => {
                need(
                    &sub,
                    size::FLAG,
                    value_place,
                    "unsigned long",
                    recovery,
                    skip(),
                )?;
            }
            id::CULL => {
                if need(
                    &sub,
                    size::FLAG,
                    value_place,
                    "unsigned long",
                    recovery,
                    skip(),
                )? {
                    material.cull = sub.u32(0) != 0;
                }
            }
            id::DIFF => {
                if need(
                    &sub,
                    size::DIFF,
                    value_place,
                    "SMF_VECTOR4",
                    recovery,
                    skip(),
                )? && finite(
                    &sub,
                    1,
                    size::DIFF,
                    &[0, 4, 8, 12],
                    value_place,
                    "DIFF",
                    recovery,
                )? {
                    for (i, c) in material.diffuse.iter_mut().enumerate() {
                        *c = sub.f32(i * 4);
                    }
                }
            }
            id::EMIS => {
                if need(
                    &sub,
                    size::EMIS,
                    value_place,
                    "SMF_VECTOR3",
                    recovery,
                    skip(),
                )? && finite(
                    &sub,
                    1,
                    size::EMIS,
                    &[0, 4, 8],
                    value_place,
                    "EMIS",
                    recovery,
                )? {
                    material.emissive = sub.vec3(0);
                }
            }
            id::SPEC => {
                if need(
                    &sub,
                    size::SPEC,
                    value_place,
                    "SMF_SPECULAR",
                    recovery,
                    skip(),
                )? && finite(
                    &sub,
                    1,
                    size::SPEC,
                    &[0, 4, 8, 12],
                    value_place,
                    "SPEC",
                    recovery,
                )? {
                    material.specular = Some((sub.vec3(0), sub.f32(12)));
                }
            }
            _ => {}
        }
    }
    Ok(Some(material))
}

/// Every parent chain must end: the engine's frame update recurses down the tree. Recovery
/// makes the frame where a loop closes a root.
fn check_frame_tree(frames: &mut [Frame], recovery: &mut Recovery) -> Res<()> {
    let mut state = vec![0u8; frames.len()];
    for start in 0..frames.len() {
        let mut path = Vec::new();
        let mut current = start;
        loop {
            match state[current] {
                2 => break,
                1 => {
                    recovery.damage(
                        Place::section("FRM").with_element(current).malformed(
                            "ParentFrameNo",
                            frames[current].at + frame_field::PARENT_FRAME_NO,
                            Message::new("load.smf.parent_loop"),
                        ),
                        Message::new("load.smf.then.root_bone"),
                    )?;
                    frames[current].parent = None;
                    break;
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

/// What makes two vertices of different meshes one: the model vertex the exporter wrote both
/// from (`PXVI`) and the bits of everything the file stores for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct VertexKey {
    source: u32,
    position: [u32; 3],
    normal: [u32; 3],
    uv: [u32; 4],
    bones: [Option<usize>; 2],
    weight: u32,
}

fn bits<const N: usize>(values: [f32; N]) -> [u32; N] {
    values.map(f32::to_bits)
}

fn build_model(frames: &[Frame], meshes: &[Mesh], recovery: &mut Recovery) -> Res<Model> {
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
            let mut world = multiply(&frames[frame].local, &parent);
            if world.iter().flatten().any(|v| !v.is_finite()) {
                recovery.damage(
                    Place::section("FRM").with_element(frame).malformed(
                        "mTransform",
                        frames[frame].at,
                        Message::new("load.smf.world_overflow"),
                    ),
                    Message::new("load.smf.then.parent_place"),
                )?;
                world = parent;
            }
            worlds[frame] = Some(world);
        }
    }
    let worlds: Vec<Matrix> = worlds.into_iter().map(|w| w.unwrap_or(IDENTITY)).collect();

    // Frames that only hold a mesh are not bones.
    let mut has_child = vec![false; frames.len()];
    for frame in frames {
        if let Some(parent) = frame.parent {
            has_child[parent] = true;
        }
    }
    let mut in_palette = vec![false; frames.len()];
    for mesh in meshes {
        for &frame in mesh.palette.iter().flatten() {
            in_palette[frame] = true;
        }
    }
    let mut frame_bone: Vec<Option<usize>> = vec![None; frames.len()];
    let mut rotated = 0usize;
    let mut first_rotated = None;
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
            first_rotated.get_or_insert(frame.at);
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
    if let Some(offset) = first_rotated {
        recovery.note(
            Place::section("FRM").at("mTransform", offset),
            Message::new("load.smf.rotated_frames").arg("count", rotated),
            true,
        );
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
    let mut file_vertices = 0usize;
    let mut joined = 0usize;
    let mut first_join = None;
    // Materials continued across a mesh cut (the first of a mesh equal to the last of the one
    // before) become one, as the export split them; said, as the vertex join is.
    let mut materials_joined = 0usize;
    let mut first_material_join = None;
    let mut first_uncovered = None;
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
                            .copied()
                            .flatten()
                            .and_then(|frame| frame_bone[frame])
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
                        recovery.damage(
                            Place::section("MESH").with_element(mesh_index).malformed(
                                "Position",
                                mesh.positions_at + i * size::V_PC,
                                Message::new("load.smf.vertex_overflow").arg("vertex", i),
                            ),
                            Message::new("load.smf.then.vertex_unmoved"),
                        )?;
                        (position, normal, [rigid_bone, rigid_bone], 1.0)
                    } else {
                        (p, n, [rigid_bone, rigid_bone], 1.0)
                    }
                }
            };
            file_vertices += 1;
            // Only the exporter's own list says that two vertices are one (a mesh cut wrote
            // the vertex into both meshes); vertices that merely look alike stay apart.
            let key = mesh.sources.as_ref().and_then(|(sources, _)| {
                Some(VertexKey {
                    source: *sources.get(i)?,
                    position: bits(position),
                    normal: bits(normal),
                    uv: bits(uv),
                    bones,
                    weight: weight.to_bits(),
                })
            });
            let existing = key
                .and_then(|key| seen_vertices.get(&key))
                .filter(|(mesh, _)| *mesh < mesh_index)
                .map(|&(_, vertex)| vertex);
            if existing.is_some() {
                joined += 1;
                let at = mesh.sources.as_ref().map_or(0, |(_, at)| *at);
                first_join.get_or_insert(
                    Place::section("MESH")
                        .with_element(mesh_index)
                        .at("PXVI", at + i * 4),
                );
            }
            let vertex = match existing {
                Some(vertex) => vertex,
                None => {
                    let vertex = model.vertices.len() as u32;
                    if let Some(key) = key {
                        seen_vertices.entry(key).or_insert((mesh_index, vertex));
                    }
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
                materials_joined += 1;
                first_material_join.get_or_insert(
                    Place::section("MESH")
                        .with_element(mesh_index)
                        .at("Material", chunk.at),
                );
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
        let mesh_uncovered = covered.iter().filter(|&&c| !c).count();
        if mesh_uncovered > 0 {
            first_uncovered.get_or_insert(
                Place::section("MESH")
                    .with_element(mesh_index)
                    .at("Index", mesh.indices_at),
            );
        }
        uncovered += mesh_uncovered;
        previous_last = mesh
            .materials
            .last()
            .filter(|m| m.polygon_count > 0)
            .map(|m| (m.clone(), mesh_index));
        if let Some(((attributes, faces, vertices), at)) = mesh.collision {
            recovery.note(
                Place::section("MESH")
                    .with_element(mesh_index)
                    .at("Chunk", at),
                Message::new("load.smf.collision")
                    .arg("attributes", attributes)
                    .arg("faces", faces)
                    .arg("vertices", vertices),
                true,
            );
        }
    }
    if let Some(location) = first_uncovered {
        recovery.note(
            location,
            Message::new("load.smf.uncovered_faces").arg("count", uncovered),
            true,
        );
    }
    if let Some(location) = first_join {
        recovery.note(
            location,
            Message::new("load.smf.vertices_joined")
                .arg("joined", joined)
                .arg("file", file_vertices)
                .arg("model", model.vertices.len()),
            false,
        );
    }
    if let Some(location) = first_material_join {
        recovery.note(
            location,
            Message::new("load.smf.materials_joined").arg("count", materials_joined),
            false,
        );
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
