//! The conversion of an [`MqoDocument`] (and its [`MqxDocument`]) to a PMX [`Model`].
//!
//! - **Geometry.** Vertices are stored in world coordinates in the file; each object's local
//!   frame (scale, rotation HPB, translation, under its parents by `depth`) is the frame its
//!   mirror planes and lathe axis are in, and is not applied to the vertices again (a
//!   Metasequoia 4 plugin reads the same coordinates as world ones). Lathes are generated
//!   first, then mirrors, axis by axis (X, Y, Z: up to eight copies), mirrored copies wound the
//!   other way; a connected mirror joins vertices within `mirror_dis` of the plane.
//! - **Faces.** Polygons are triangulated on their best-fit plane (`mesh.rs`); two-corner
//!   faces (lines) are skipped and counted unless a lathe turns them into surfaces.
//! - **Normals.** `shading 0`: each face's own normal; `shading 1`: the normals of the faces
//!   around a vertex within `facet` degrees of each other are averaged. A PMX vertex is made
//!   for each distinct (vertex, normal, UV[, colour]): UV seams and hard edges split
//!   vertices, nothing else does.
//! - **Axes and scale** as the module documentation says: (x, y, −z) / scale, same winding.
//! - **Materials.** One PMX material per MQO material a face uses, in file order, then a
//!   default material for faces without one.
//! - **Bones and morphs** come from the MQX (BoneSet2 weights, four largest renormalised;
//!   morph target objects as vertex morphs of their base object); without them one root
//!   bone holds every vertex.

use super::DEFAULT_MQO_UNITS_PER_PMX_UNIT;
use super::document::{MirrorMode, MqoDocument, MqoMaterial, MqoObject, unpack_color};
use super::mesh::{Triangulation, Triangulator, VertexFaces, outward_normal, smooth_normal};
use super::mqx::MqxDocument;
use super::report::{MqoError, MqoNote};
use crate::formats::LoadLimits;
use crate::i18n::Message;
use crate::model::{
    Bone, BoneFlags, BoneIdx, DisplayFrame, DisplayItem, DrawFlags, IndexSizes, Material, Model,
    Morph, MorphIdx, MorphOffsets, MorphPanel, MqoExtras, MqoFaceRun, MqoObjectSettings,
    PmxVersion, Text, TextEncoding, TextureIdx, Vec2, Vec3, Vec4, Vertex, VertexIdx,
    VertexMorphOffset, Weight,
};
use glam::{DVec3, Mat3, Mat4, Quat, Vec3 as GVec3};
use std::collections::{HashMap, HashSet};

/// How to import.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MqoImportOptions {
    /// MQO units per PMX unit ([`DEFAULT_MQO_UNITS_PER_PMX_UNIT`] unless the user says).
    pub units_per_pmx_unit: f32,
    /// Leave hidden objects (`visible 0`) out instead of importing them.
    pub skip_hidden_objects: bool,
    /// The model's PMX version. 2.1 keeps vertex colours (PMX 2.1's vertex colour: additional
    /// UV 1 with the materials' vertex colour flag); 2.0 has none and drops them.
    pub version: PmxVersion,
    /// The model's text encoding (names are decoded from the file's code page either way).
    pub encoding: TextEncoding,
    /// Counts above these are refused before anything is allocated.
    pub limits: LoadLimits,
}

impl Default for MqoImportOptions {
    fn default() -> Self {
        Self {
            units_per_pmx_unit: DEFAULT_MQO_UNITS_PER_PMX_UNIT,
            skip_hidden_objects: false,
            version: PmxVersion::V2_0,
            encoding: TextEncoding::Utf16,
            limits: LoadLimits::default(),
        }
    }
}

/// The root bone of a model without bone data (and of vertices no MQX bone weights).
const ROOT_BONE_JA: &str = "センター";
const ROOT_BONE_EN: &str = "center";

/// Most lathe segments generated (the file may ask for any number).
const MAX_LATHE_SEGMENTS: u32 = 1024;

/// Corners the import may generate beyond the file's own (mirrors, lathes): this many per
/// input byte, at least [`MIN_GENERATED_CORNERS`], so memory stays proportional to the input.
const GENERATED_CORNERS_PER_BYTE: usize = 8;
const MIN_GENERATED_CORNERS: usize = 4_000_000;

const NONE: u32 = u32::MAX;

/// A face of an object's working mesh.
#[derive(Debug, Clone, Copy)]
struct MeshFace {
    first: u32,
    count: u32,
    bucket: u32,
}

/// An object's mesh as it is imported: the file's vertices, then lathe and mirror copies.
#[derive(Debug, Default)]
struct Mesh {
    /// MQO world coordinates.
    positions: Vec<GVec3>,
    /// The file vertex each vertex copies (for weights and morphs).
    source: Vec<u32>,
    /// Which linear map takes a file vertex's morph offset to this copy's (`transforms`).
    transform: Vec<u16>,
    transforms: Vec<Mat3>,
    faces: Vec<MeshFace>,
    corner_vertex: Vec<u32>,
    corner_uv: Vec<[f32; 2]>,
    /// 0xAABBGGRR per corner, or empty when colours are not kept.
    corner_color: Vec<u32>,
    keep_colors: bool,
    /// Faces of the object itself (from the file or its lathe); those after are mirror copies.
    own_faces: usize,
    /// Vertices of the file; those after are lathe and mirror copies.
    own_vertices: usize,
}

impl Mesh {
    fn corners(&self, face: &MeshFace) -> std::ops::Range<usize> {
        face.first as usize..(face.first + face.count) as usize
    }

    fn push_vertex(&mut self, position: GVec3, source: u32, transform: u16) -> u32 {
        self.positions.push(position);
        self.source.push(source);
        self.transform.push(transform);
        (self.positions.len() - 1) as u32
    }

    /// Appends a face, dropping consecutive repeats of a vertex; faces left with fewer than
    /// three corners are not added (returns false).
    fn push_face(&mut self, corners: &[(u32, [f32; 2], u32)], bucket: u32) -> bool {
        let first = self.corner_vertex.len();
        for (i, &(vertex, uv, color)) in corners.iter().enumerate() {
            let previous = if i == 0 {
                corners.last().map(|c| c.0)
            } else {
                Some(corners[i - 1].0)
            };
            if previous == Some(vertex) && corners.len() > 1 {
                continue;
            }
            self.corner_vertex.push(vertex);
            self.corner_uv.push(uv);
            if self.keeps_colors() {
                self.corner_color.push(color);
            }
        }
        let count = self.corner_vertex.len() - first;
        if count < 3 {
            self.corner_vertex.truncate(first);
            self.corner_uv.truncate(first);
            if self.keeps_colors() {
                self.corner_color.truncate(first);
            }
            return false;
        }
        self.faces.push(MeshFace {
            first: first as u32,
            count: count as u32,
            bucket,
        });
        true
    }

    fn keeps_colors(&self) -> bool {
        self.keep_colors
    }
}

/// The frame an object's mirror planes and lathe axis are in.
#[derive(Debug, Clone, Copy)]
struct Frame {
    world: Mat4,
    inverse: Mat4,
}

impl Frame {
    fn new(world: Mat4) -> Self {
        let determinant = world.determinant();
        if determinant.is_finite() && determinant.abs() > 1e-12 {
            Self {
                world,
                inverse: world.inverse(),
            }
        } else {
            // A collapsed frame (scale 0) has no axes: use the world's.
            Self {
                world: Mat4::IDENTITY,
                inverse: Mat4::IDENTITY,
            }
        }
    }

    fn to_local(self, position: GVec3) -> GVec3 {
        self.inverse.transform_point3(position)
    }

    fn to_world(self, position: GVec3) -> GVec3 {
        self.world.transform_point3(position)
    }

    /// The world map of a local linear map `local`.
    fn conjugate(self, local: Mat4) -> Mat4 {
        self.world * local * self.inverse
    }
}

/// The local matrix of an object: translation · rotation (heading about Y, then pitch about
/// X, then bank about Z, as Metasequoia's HPB angles compose) · scale.
fn local_matrix(object: &MqoObject) -> Mat4 {
    let [heading, pitch, bank] = object.rotation.map(f32::to_radians);
    let rotation =
        Quat::from_rotation_y(heading) * Quat::from_rotation_x(pitch) * Quat::from_rotation_z(bank);
    Mat4::from_scale_rotation_translation(
        GVec3::from(object.scale),
        rotation,
        GVec3::from(object.translation),
    )
}

/// Each object's world frame, from the `depth` hierarchy (an object's parent is the nearest
/// earlier object one level up).
fn frames(objects: &[MqoObject]) -> Vec<Frame> {
    let mut stack: Vec<(u32, Mat4)> = Vec::new();
    let mut frames = Vec::with_capacity(objects.len());
    for object in objects {
        while stack
            .last()
            .is_some_and(|&(depth, _)| depth >= object.depth)
        {
            stack.pop();
        }
        let parent = stack.last().map_or(Mat4::IDENTITY, |&(_, world)| world);
        let world = parent * local_matrix(object);
        let world = if world.is_finite() {
            world
        } else {
            Mat4::IDENTITY
        };
        stack.push((object.depth, world));
        frames.push(Frame::new(world));
    }
    frames
}

/// An object's settings as `MqoExtras` keeps them.
fn object_settings(object: &MqoObject) -> MqoObjectSettings {
    MqoObjectSettings {
        name: object.name.clone(),
        depth: object.depth,
        folding: object.folding,
        scale: object.scale,
        rotation: object.rotation,
        translation: object.translation,
        visible: object.visible,
        locked: object.locked,
        smooth_shading: object.smooth_shading,
        facet: object.facet,
        color: object.color,
        color_type: object.color_type,
        mirror: match object.mirror {
            MirrorMode::None => 0,
            MirrorMode::Separate => 1,
            MirrorMode::Connected => 2,
        },
        mirror_axis: object.mirror_axis,
        mirror_distance: object.mirror_distance,
    }
}

/// Where each PMX vertex came from.
#[derive(Debug, Clone, Copy)]
struct VertexOrigin {
    object: u32,
    source: u32,
    transform: u16,
}

/// The conversion's state across objects.
struct Builder<'a> {
    document: &'a MqoDocument,
    scale: f32,
    keep_colors: bool,
    /// PMX material (bucket) of each MQO material, when used.
    bucket_of_material: Vec<Option<u32>>,
    default_bucket: Option<u32>,
    bucket_triangles: Vec<Vec<[VertexIdx; 3]>>,
    /// Per bucket, its triangles as runs by the object they came from (`MqoExtras`).
    bucket_runs: Vec<Vec<MqoFaceRun>>,
    /// The imported objects' settings, in import order (`MqoExtras`).
    object_settings: Vec<MqoObjectSettings>,
    /// Per PMX vertex: the file vertex it copies, or `NONE` for a generated one.
    vertex_sources: Vec<u32>,
    vertices: Vec<Vertex>,
    colors: Vec<Vec4>,
    origins: Vec<VertexOrigin>,
    /// Per imported object: its transforms table (morph offsets of its copies).
    transforms: HashMap<u32, Vec<Mat3>>,
    generated_budget: usize,
    triangulator: Triangulator,
    notes: &'a mut Vec<MqoNote>,
}

pub(super) fn to_model(
    document: &MqoDocument,
    mqx: Option<&MqxDocument>,
    options: &MqoImportOptions,
    file_size: usize,
    notes: &mut Vec<MqoNote>,
) -> Result<Model, MqoError> {
    let scale = options.units_per_pmx_unit;
    if !(scale.is_finite() && scale > 0.0) {
        return Err(MqoError::Options {
            message: Message::new("load.mqo.bad_scale")
                .arg("scale", scale)
                .arg("default", DEFAULT_MQO_UNITS_PER_PMX_UNIT),
        });
    }
    let morph_targets: HashSet<&str> = mqx
        .map(|mqx| {
            mqx.morphs
                .iter()
                .flat_map(|list| list.targets.iter().map(|t| t.name.as_str()))
                .collect()
        })
        .unwrap_or_default();
    let mut imported = Vec::new();
    for (index, object) in document.objects.iter().enumerate() {
        if morph_targets.contains(object.name.as_str()) {
            continue;
        }
        if !object.visible {
            notes.push(MqoNote::HiddenObject {
                name: object.name.clone(),
                imported: !options.skip_hidden_objects,
            });
            if options.skip_hidden_objects {
                continue;
            }
        }
        imported.push(index);
    }
    let has_colors = imported.iter().any(|&i| {
        let object = &document.objects[i];
        !object.corner_colors.is_empty() || !object.vertex_colors.is_empty()
    });
    let keep_colors = has_colors && options.version == PmxVersion::V2_1;
    if has_colors && !keep_colors {
        notes.push(MqoNote::VertexColorsDropped);
    }

    let mut builder = Builder {
        document,
        scale,
        keep_colors,
        bucket_of_material: vec![None; document.materials.len()],
        default_bucket: None,
        bucket_triangles: Vec::new(),
        bucket_runs: Vec::new(),
        object_settings: Vec::new(),
        vertex_sources: Vec::new(),
        vertices: Vec::new(),
        colors: Vec::new(),
        origins: Vec::new(),
        transforms: HashMap::new(),
        generated_budget: file_size
            .saturating_mul(GENERATED_CORNERS_PER_BYTE)
            .max(MIN_GENERATED_CORNERS),
        triangulator: Triangulator::default(),
        notes,
    };
    builder.assign_buckets(&imported);
    let frames = frames(&document.objects);
    for &index in &imported {
        builder.object(index, frames[index])?;
    }

    let mut model = Model::new_empty();
    model.header.version = options.version;
    model.header.encoding = options.encoding;
    model.info.comment_ja = format!(
        "Metasequoia MQO (Format Text Ver {}) から読み込み",
        version_text(document)
    )
    .into();
    model.info.comment_en = format!(
        "Imported from Metasequoia MQO (Format Text Ver {})",
        version_text(document)
    )
    .into();
    builder.materials(&mut model);
    let Builder {
        vertices,
        colors,
        origins,
        transforms,
        notes,
        bucket_runs,
        object_settings,
        vertex_sources,
        ..
    } = builder;
    model.mqo = MqoExtras {
        objects: object_settings,
        face_runs: bucket_runs.into_iter().flatten().collect(),
        vertex_sources,
    };
    model.vertices = vertices;
    if keep_colors {
        model.additional_uvs = vec![colors];
    }
    bones_and_weights(document, mqx, &imported, &origins, scale, &mut model, notes);
    morphs(
        document,
        mqx,
        &origins,
        &transforms,
        scale,
        &mut model,
        notes,
    );
    model.header.index_sizes = Some(IndexSizes::minimal_for(&model));
    Ok(model)
}

fn version_text(document: &MqoDocument) -> String {
    document
        .version
        .map_or_else(|| "?".to_owned(), |v| format!("{}.{}", v.major, v.minor))
}

impl Builder<'_> {
    /// Gives each used MQO material a PMX material, in file order, then the default one.
    fn assign_buckets(&mut self, imported: &[usize]) {
        let material_count = self.document.materials.len();
        let mut used = vec![false; material_count];
        let mut default_faces = 0usize;
        for &index in imported {
            let object = &self.document.objects[index];
            let lathe = object.lathe != 0;
            let mut missing = 0usize;
            for face in &object.faces {
                if face.corner_count < 3 && !lathe {
                    continue;
                }
                match face.material {
                    Some(m) if (m as usize) < material_count => used[m as usize] = true,
                    Some(_) => {
                        missing += 1;
                        default_faces += 1;
                    }
                    None => default_faces += 1,
                }
            }
            if missing > 0 {
                self.notes.push(MqoNote::MissingMaterial {
                    object: object.name.clone(),
                    count: missing,
                });
            }
        }
        let mut next = 0u32;
        for (material, &is_used) in used.iter().enumerate() {
            if is_used {
                self.bucket_of_material[material] = Some(next);
                next += 1;
            }
        }
        let unused = used.iter().filter(|&&u| !u).count();
        if unused > 0 {
            self.notes.push(MqoNote::UnusedMaterials { count: unused });
        }
        if default_faces > 0 {
            self.default_bucket = Some(next);
            next += 1;
            self.notes.push(MqoNote::DefaultMaterial {
                faces: default_faces,
            });
        }
        self.bucket_triangles = vec![Vec::new(); next as usize];
        self.bucket_runs = vec![Vec::new(); next as usize];
    }

    fn bucket(&self, material: Option<u32>) -> u32 {
        material
            .and_then(|m| self.bucket_of_material.get(m as usize).copied().flatten())
            .or(self.default_bucket)
            .unwrap_or(0)
    }

    /// The colour of a face corner: the face's `COL`, else the vertex's `color`, else white.
    fn corner_color(object: &MqoObject, corner: usize, vertex_colors: &HashMap<u32, u32>) -> u32 {
        if let Some(&color) = object.corner_colors.get(corner) {
            return color;
        }
        let vertex = object.corner_vertices.get(corner).copied().unwrap_or(0);
        vertex_colors.get(&vertex).copied().unwrap_or(u32::MAX)
    }

    fn object(&mut self, index: usize, frame: Frame) -> Result<(), MqoError> {
        let object = &self.document.objects[index];
        let mut mesh = Mesh {
            positions: object.vertices.iter().map(|&p| GVec3::from(p)).collect(),
            source: (0..object.vertices.len() as u32).collect(),
            transform: vec![0; object.vertices.len()],
            transforms: vec![Mat3::IDENTITY],
            keep_colors: self.keep_colors,
            ..Mesh::default()
        };
        let vertex_colors: HashMap<u32, u32> = if self.keep_colors {
            object.vertex_colors.iter().copied().collect()
        } else {
            HashMap::new()
        };
        let lathe = object.lathe != 0;
        let mut lines: Vec<(u32, u32, u32)> = Vec::new();
        let mut skipped_lines = 0usize;
        let mut degenerate = 0usize;
        let mut corners = Vec::new();
        for face in &object.faces {
            let bucket = self.bucket(face.material);
            if face.corner_count == 2 {
                let range = face.corners();
                let (a, b) = (
                    object.corner_vertices[range.start],
                    object.corner_vertices[range.start + 1],
                );
                if lathe {
                    lines.push((a, b, bucket));
                } else {
                    skipped_lines += 1;
                }
                continue;
            }
            corners.clear();
            for corner in face.corners() {
                let uv = if face.has_uv {
                    object.corner_uvs.get(corner).copied().unwrap_or_default()
                } else {
                    [0.0, 0.0]
                };
                let color = if self.keep_colors {
                    Self::corner_color(object, corner, &vertex_colors)
                } else {
                    u32::MAX
                };
                corners.push((object.corner_vertices[corner], uv, color));
            }
            if !mesh.push_face(&corners, bucket) {
                degenerate += 1;
            }
        }
        if lathe && !lines.is_empty() {
            self.lathe(object, frame, &mut mesh, &lines)?;
        }
        mesh.own_faces = mesh.faces.len();
        mesh.own_vertices = if lathe { 0 } else { object.vertices.len() };
        if object.mirror != MirrorMode::None && object.mirror_axis & 7 != 0 {
            self.mirror(object, frame, &mut mesh)?;
        }
        if skipped_lines > 0 {
            self.notes.push(MqoNote::SkippedLines {
                object: object.name.clone(),
                count: skipped_lines,
            });
        }
        if degenerate > 0 {
            self.notes.push(MqoNote::DegenerateFaces {
                object: object.name.clone(),
                count: degenerate,
            });
        }
        if object.patch != 0 {
            self.notes.push(MqoNote::Patch {
                object: object.name.clone(),
                patch: object.patch,
                segment: object.segment,
            });
        }
        let settings = object_settings(object);
        self.object_settings.push(settings);
        self.emit(index as u32, object, &mesh)?;
        self.transforms
            .insert(index as u32, std::mem::take(&mut mesh.transforms));
        Ok(())
    }

    /// Takes `extra` corners from the generation budget.
    fn spend(&mut self, extra: usize, object: &MqoObject) -> Result<(), MqoError> {
        if extra > self.generated_budget {
            return Err(MqoError::LimitExceeded {
                line: object.line,
                message: Message::new("load.mqo.generation_over_budget")
                    .arg("object", &object.name)
                    .arg("extra", extra)
                    .arg("budget", self.generated_budget),
            });
        }
        self.generated_budget -= extra;
        Ok(())
    }

    /// Revolves the object's lines around its lathe axis into double-sided quad strips.
    fn lathe(
        &mut self,
        object: &MqoObject,
        frame: Frame,
        mesh: &mut Mesh,
        lines: &[(u32, u32, u32)],
    ) -> Result<(), MqoError> {
        let segments = object.lathe_segments.clamp(3, MAX_LATHE_SEGMENTS);
        let axis = object.lathe_axis.min(2) as usize;
        self.spend(
            lines
                .len()
                .saturating_mul(segments as usize)
                .saturating_mul(8),
            object,
        )?;
        let axis_vector = [GVec3::X, GVec3::Y, GVec3::Z][axis];
        let rotations: Vec<Mat4> = (0..segments)
            .map(|k| {
                let angle = std::f32::consts::TAU * k as f32 / segments as f32;
                frame.conjugate(Mat4::from_axis_angle(axis_vector, angle))
            })
            .collect();
        // Transform ids 1..segments are the rotations k = 1..segments-1 (0 is identity).
        let first_transform = mesh.transforms.len() as u16;
        for rotation in rotations.iter().skip(1) {
            mesh.transforms.push(Mat3::from_mat4(*rotation));
        }
        // Each profile vertex gets a ring of copies; vertices on the axis stay one vertex.
        let mut ring_start = vec![NONE; mesh.positions.len()];
        let extent = mesh
            .positions
            .iter()
            .fold(1.0f32, |m, p| m.max(frame.to_local(*p).abs().max_element()));
        for &(a, b, _) in lines {
            for vertex in [a, b] {
                let v = vertex as usize;
                if ring_start[v] != NONE {
                    continue;
                }
                let local = frame.to_local(mesh.positions[v]);
                let mut off_axis = local;
                off_axis[axis] = 0.0;
                if off_axis.length() <= extent * 1e-6 {
                    ring_start[v] = vertex; // marks "on the axis": every copy is the vertex
                    continue;
                }
                ring_start[v] = mesh.positions.len() as u32;
                for (k, rotation) in rotations.iter().enumerate().skip(1) {
                    let position = rotation.transform_point3(mesh.positions[v]);
                    let transform = first_transform + (k - 1) as u16;
                    mesh.push_vertex(position, mesh.source[v], transform);
                }
            }
        }
        let copy = |vertex: u32, k: u32| -> u32 {
            let start = ring_start[vertex as usize];
            if k.is_multiple_of(segments) || start == vertex {
                vertex
            } else {
                start + (k % segments) - 1
            }
        };
        let white = u32::MAX;
        for &(a, b, bucket) in lines {
            for k in 0..segments {
                let (u0, u1) = (k as f32 / segments as f32, (k + 1) as f32 / segments as f32);
                let quad = [
                    (copy(a, k), [u0, 0.0], white),
                    (copy(b, k), [u0, 1.0], white),
                    (copy(b, k + 1), [u1, 1.0], white),
                    (copy(a, k + 1), [u1, 0.0], white),
                ];
                mesh.push_face(&quad, bucket);
                let mut back = quad;
                back.reverse();
                mesh.push_face(&back, bucket);
            }
        }
        self.notes.push(MqoNote::LatheApplied {
            object: object.name.clone(),
            axis: axis as u32,
            segments,
            lathe: object.lathe,
        });
        Ok(())
    }

    /// Mirrors the mesh on each axis of `mirror_axis` in turn (in the object's frame).
    fn mirror(
        &mut self,
        object: &MqoObject,
        frame: Frame,
        mesh: &mut Mesh,
    ) -> Result<(), MqoError> {
        let connected = object.mirror == MirrorMode::Connected;
        let distance = object.mirror_distance.max(0.0);
        let mut welded_total = 0usize;
        for axis in 0..3 {
            if object.mirror_axis & (1 << axis) == 0 {
                continue;
            }
            self.spend(mesh.corner_vertex.len(), object)?;
            let mut flip = GVec3::ONE;
            flip[axis] = -1.0;
            let reflection = frame.conjugate(Mat4::from_scale(flip));
            let linear = Mat3::from_mat4(reflection);
            let transform_ids: Vec<u16> = (0..mesh.transforms.len())
                .map(|id| {
                    mesh.transforms.push(linear * mesh.transforms[id]);
                    (mesh.transforms.len() - 1) as u16
                })
                .collect();
            let vertex_count = mesh.positions.len();
            let mut mirrored = vec![NONE; vertex_count];
            let mut on_plane = vec![false; vertex_count];
            for v in 0..vertex_count {
                let mut local = frame.to_local(mesh.positions[v]);
                if connected && local[axis].abs() <= distance {
                    local[axis] = 0.0;
                    mesh.positions[v] = frame.to_world(local);
                    mirrored[v] = v as u32;
                    on_plane[v] = true;
                    welded_total += 1;
                } else {
                    let position = reflection.transform_point3(mesh.positions[v]);
                    let transform = transform_ids[mesh.transform[v] as usize];
                    mirrored[v] = mesh.push_vertex(position, mesh.source[v], transform);
                }
            }
            let face_count = mesh.faces.len();
            let mut corners = Vec::new();
            for f in 0..face_count {
                let face = mesh.faces[f];
                let range = mesh.corners(&face);
                // A face lying in the mirror plane would only be doubled, reversed.
                if mesh.corner_vertex[range.clone()]
                    .iter()
                    .all(|&v| on_plane[v as usize])
                {
                    continue;
                }
                corners.clear();
                for corner in range.rev() {
                    let color = mesh.corner_color.get(corner).copied().unwrap_or(u32::MAX);
                    corners.push((
                        mirrored[mesh.corner_vertex[corner] as usize],
                        mesh.corner_uv[corner],
                        color,
                    ));
                }
                mesh.push_face(&corners, face.bucket);
            }
        }
        self.notes.push(MqoNote::MirrorApplied {
            object: object.name.clone(),
            axes: object.mirror_axis & 7,
            connected,
            welded: welded_total,
        });
        Ok(())
    }

    /// Normals, PMX vertices and triangles of one object's mesh.
    fn emit(&mut self, object_index: u32, object: &MqoObject, mesh: &Mesh) -> Result<(), MqoError> {
        let mut points: Vec<DVec3> = Vec::new();
        let face_normals: Vec<GVec3> = mesh
            .faces
            .iter()
            .map(|face| {
                points.clear();
                points.extend(
                    mesh.corner_vertex[mesh.corners(face)]
                        .iter()
                        .map(|&v| mesh.positions[v as usize].as_dvec3()),
                );
                outward_normal(&points)
            })
            .collect();
        let smooth = object.smooth_shading;
        let vertex_faces = if smooth {
            VertexFaces::new(
                mesh.positions.len(),
                mesh.faces.len(),
                |f| mesh.corners(&mesh.faces[f]),
                &mesh.corner_vertex,
            )
        } else {
            VertexFaces::default()
        };
        let facet = if object.facet.is_finite() {
            object.facet.clamp(0.0, 180.0)
        } else {
            180.0
        };
        // A little slack, so faces at exactly the facet angle (a cube at 90°) count as within.
        let cos_facet = facet.to_radians().cos() - 1e-5;

        // This object's index in `MqoExtras::objects` (its settings were pushed just before).
        let extras_object = self.object_settings.len().saturating_sub(1) as u32;
        let first_vertex = self.vertices.len();
        if first_vertex + mesh.corner_vertex.len() > i32::MAX as usize {
            return Err(MqoError::LimitExceeded {
                line: object.line,
                message: Message::new("load.mqo.too_many_vertices"),
            });
        }
        // PMX vertices made from each mesh vertex, chained through `next`.
        let mut head = vec![NONE; mesh.positions.len()];
        let mut next: Vec<u32> = Vec::new();
        let mut corner_pmx: Vec<u32> = Vec::new();
        let mut triangles: Vec<[u32; 3]> = Vec::new();
        let mut huge_faces = 0usize;
        let mut largest_face = 0usize;
        for (face_index, face) in mesh.faces.iter().enumerate() {
            let range = mesh.corners(face);
            corner_pmx.clear();
            for corner in range.clone() {
                let vertex = mesh.corner_vertex[corner];
                let normal = if smooth {
                    smooth_normal(
                        face_index as u32,
                        vertex,
                        &face_normals,
                        &vertex_faces,
                        cos_facet,
                    )
                } else {
                    face_normals[face_index]
                };
                let normal = if normal == GVec3::ZERO {
                    GVec3::Y
                } else {
                    normal
                };
                let uv = mesh.corner_uv[corner];
                let color = mesh.corner_color.get(corner).copied().unwrap_or(u32::MAX);
                let pmx_normal = Vec3::new(normal.x, normal.y, -normal.z);
                let pmx_uv = Vec2::new(uv[0], uv[1]);
                let mut candidate = head[vertex as usize];
                let mut found = NONE;
                while candidate != NONE {
                    let existing = &self.vertices[candidate as usize];
                    let same_color =
                        !self.keep_colors || self.colors[candidate as usize] == color_vec(color);
                    if existing.normal.bits_eq(pmx_normal)
                        && existing.uv.bits_eq(pmx_uv)
                        && same_color
                    {
                        found = candidate;
                        break;
                    }
                    candidate = next[candidate as usize - first_vertex];
                }
                if found == NONE {
                    let position = mesh.positions[vertex as usize] / self.scale;
                    found = self.vertices.len() as u32;
                    self.vertices.push(Vertex {
                        position: Vec3::new(position.x, position.y, -position.z),
                        normal: pmx_normal,
                        uv: pmx_uv,
                        weight: Weight::Bdef1 { bone: None },
                        edge_scale: 1.0,
                    });
                    if self.keep_colors {
                        self.colors.push(color_vec(color));
                    }
                    self.origins.push(VertexOrigin {
                        object: object_index,
                        source: mesh.source[vertex as usize],
                        transform: mesh.transform[vertex as usize],
                    });
                    self.vertex_sources
                        .push(if (vertex as usize) < mesh.own_vertices {
                            vertex
                        } else {
                            NONE
                        });
                    next.push(head[vertex as usize]);
                    head[vertex as usize] = found;
                }
                corner_pmx.push(found);
            }
            points.clear();
            points.extend(
                mesh.corner_vertex[range.clone()]
                    .iter()
                    .map(|&v| mesh.positions[v as usize].as_dvec3()),
            );
            triangles.clear();
            if self.triangulator.triangulate(&points, &mut triangles) == Triangulation::Fan {
                huge_faces += 1;
                largest_face = largest_face.max(points.len());
            }
            let bucket = &mut self.bucket_triangles[face.bucket as usize];
            let before = bucket.len();
            for triangle in &triangles {
                let [a, b, c] = triangle.map(|i| corner_pmx[i as usize]);
                if a != b && b != c && a != c {
                    bucket.push([a, b, c].map(|v| VertexIdx::new(v as usize)));
                }
            }
            let added = (bucket.len() - before) as u32;
            let owner = (face_index < mesh.own_faces).then_some(extras_object);
            let runs = &mut self.bucket_runs[face.bucket as usize];
            match runs.last_mut() {
                Some(run) if run.object == owner => run.faces += added,
                _ if added == 0 => {}
                _ => runs.push(MqoFaceRun {
                    object: owner,
                    faces: added,
                }),
            }
        }
        if huge_faces > 0 {
            self.notes.push(MqoNote::HugeFace {
                object: object.name.clone(),
                corners: largest_face,
            });
        }
        Ok(())
    }

    /// The PMX materials and textures, and the faces in material order.
    fn materials(&mut self, model: &mut Model) {
        let mut textures: HashMap<String, TextureIdx> = HashMap::new();
        let mut vertex_color_materials = 0usize;
        let mut used: Vec<(Option<usize>, u32)> = self
            .bucket_of_material
            .iter()
            .enumerate()
            .filter_map(|(m, bucket)| bucket.map(|b| (Some(m), b)))
            .collect();
        if let Some(bucket) = self.default_bucket {
            used.push((None, bucket));
        }
        used.sort_by_key(|&(_, bucket)| bucket);
        for (source, bucket) in used {
            let triangles = std::mem::take(&mut self.bucket_triangles[bucket as usize]);
            let mut material = match source.and_then(|m| self.document.materials.get(m)) {
                Some(mqo) => self.material(mqo, model, &mut textures),
                None => Material {
                    name_ja: "既定の材質".into(),
                    name_en: "default".into(),
                    diffuse: Vec4::new(0.8, 0.8, 0.8, 1.0),
                    ambient: Vec3::new(0.6, 0.6, 0.6),
                    ..Material::default()
                },
            };
            if material.draw_flags.contains(DrawFlags::VERTEX_COLOR) {
                vertex_color_materials += 1;
            }
            material.face_index_count = (triangles.len() * 3).min(u32::MAX as usize) as u32;
            model.materials.push(material);
            model.faces.extend(triangles);
        }
        if self.keep_colors {
            self.notes.push(MqoNote::VertexColorsKept {
                materials: vertex_color_materials,
            });
        }
    }

    fn material(
        &mut self,
        mqo: &MqoMaterial,
        model: &mut Model,
        textures: &mut HashMap<String, TextureIdx>,
    ) -> Material {
        let [r, g, b, a] = mqo.color;
        let tinted = |factor: f32, color: Option<[f32; 3]>| {
            let [cr, cg, cb] = color.unwrap_or([r, g, b]);
            Vec3::new(cr * factor, cg * factor, cb * factor)
        };
        let diffuse = tinted(mqo.diffuse, None);
        let mut draw_flags =
            DrawFlags::GROUND_SHADOW | DrawFlags::DRAW_TO_SHADOW_MAP | DrawFlags::DRAW_SELF_SHADOW;
        if mqo.double_sided {
            draw_flags |= DrawFlags::DOUBLE_SIDED;
        }
        if self.keep_colors && mqo.vertex_color {
            draw_flags |= DrawFlags::VERTEX_COLOR;
        }
        let texture = mqo.texture.as_ref().filter(|t| !t.is_empty()).map(|path| {
            *textures.entry(path.clone()).or_insert_with(|| {
                model.textures.push(Text::from(path.as_str()));
                TextureIdx::new(model.textures.len() - 1)
            })
        });
        for (kind, value) in [("aplane", &mqo.alpha_map), ("bump", &mqo.bump_map)] {
            if let Some(value) = value {
                self.notes.push(MqoNote::MaterialMapDropped {
                    material: mqo.name.clone(),
                    kind,
                    value: value.clone(),
                });
            }
        }
        if mqo.projection.kind != 0 {
            self.notes.push(MqoNote::MaterialMapDropped {
                material: mqo.name.clone(),
                kind: "proj_type",
                value: mqo.projection.kind.to_string(),
            });
        }
        Material {
            name_ja: mqo.name.as_str().into(),
            name_en: mqo.name.as_str().into(),
            diffuse: Vec4::new(diffuse.x, diffuse.y, diffuse.z, a),
            specular: tinted(mqo.specular, mqo.specular_color.or(Some([1.0, 1.0, 1.0]))),
            specular_power: mqo.power,
            ambient: tinted(mqo.ambient, mqo.ambient_color),
            draw_flags,
            texture,
            ..Material::default()
        }
    }
}

fn color_vec(packed: u32) -> Vec4 {
    Vec4::from(unpack_color(packed))
}

/// Bones from the MQX (with their weights), or one root bone holding every vertex.
fn bones_and_weights(
    document: &MqoDocument,
    mqx: Option<&MqxDocument>,
    imported: &[usize],
    origins: &[VertexOrigin],
    scale: f32,
    model: &mut Model,
    notes: &mut Vec<MqoNote>,
) {
    let mqx_bones = mqx.map(|m| m.bones.as_slice()).unwrap_or_default();
    let mut index_of_id: HashMap<u32, usize> = HashMap::new();
    let mut kept = Vec::new();
    for bone in mqx_bones {
        if index_of_id.contains_key(&bone.id) {
            notes.push(MqoNote::DuplicateBoneId {
                bone: bone.name.clone(),
                id: bone.id,
            });
            continue;
        }
        index_of_id.insert(bone.id, kept.len());
        kept.push(bone);
    }
    for bone in &kept {
        let [x, y, z] = bone.position.map(|c| c / scale);
        let mut flags = BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE;
        if bone.movable {
            flags |= BoneFlags::MOVABLE;
        }
        if bone.hidden {
            flags.remove(BoneFlags::VISIBLE);
        }
        model.bones.push(Bone {
            name_ja: bone.name.as_str().into(),
            name_en: bone.name.as_str().into(),
            position: Vec3::new(x, y, -z),
            flags,
            ..Bone::default()
        });
    }
    // Parents, refusing ones that name no bone or close a cycle.
    for (index, bone) in kept.iter().enumerate() {
        let Some(parent_id) = bone.parent else {
            continue;
        };
        let parent = index_of_id.get(&parent_id).copied();
        let mut closes_cycle = false;
        if let Some(parent) = parent {
            let mut current = Some(parent);
            let mut steps = 0;
            while let Some(at) = current {
                if at == index || steps > kept.len() {
                    closes_cycle = true;
                    break;
                }
                current = model.bones[at].parent.map(BoneIdx::get);
                steps += 1;
            }
        }
        match parent {
            Some(parent) if !closes_cycle => {
                model.bones[index].parent = Some(BoneIdx::new(parent));
            }
            _ => notes.push(MqoNote::BadBoneParent {
                bone: bone.name.clone(),
                parent: parent_id,
            }),
        }
    }
    // A bone with exactly one child points its tail at it.
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); model.bones.len()];
    for (index, bone) in model.bones.iter().enumerate() {
        if let Some(parent) = bone.parent {
            children[parent.get()].push(index);
        }
    }
    for (index, list) in children.iter().enumerate() {
        if let [only] = list.as_slice() {
            model.bones[index].flags |= BoneFlags::TAIL_IS_BONE;
            model.bones[index].tail_bone = Some(BoneIdx::new(*only));
        }
    }
    let ik_bones = kept.iter().filter(|b| b.ik_chain.is_some()).count();
    if ik_bones > 0 {
        notes.push(MqoNote::IkNotConverted { bones: ik_bones });
    }

    // Weights per (object, file vertex), through object uids and vertex uids.
    let object_by_uid: HashMap<u32, usize> = imported
        .iter()
        .map(|&i| {
            let object = &document.objects[i];
            (object.uid.unwrap_or(i as u32 + 1), i)
        })
        .collect();
    let mut vertex_by_uid: HashMap<usize, HashMap<u32, u32>> = HashMap::new();
    let mut entries: Vec<(u32, u32, u32, f32)> = Vec::new();
    for (bone_index, bone) in kept.iter().enumerate() {
        let mut dangling = 0usize;
        for weight in &bone.weights {
            let Some(&object_index) = object_by_uid.get(&weight.object) else {
                dangling += 1;
                continue;
            };
            let object = &document.objects[object_index];
            let vertex = if object.vertex_uids.is_empty() {
                (weight.vertex as usize)
                    .checked_sub(1)
                    .filter(|&v| v < object.vertices.len())
                    .map(|v| v as u32)
            } else {
                vertex_by_uid
                    .entry(object_index)
                    .or_insert_with(|| {
                        object
                            .vertex_uids
                            .iter()
                            .enumerate()
                            .map(|(i, &uid)| (uid, i as u32))
                            .collect()
                    })
                    .get(&weight.vertex)
                    .copied()
            };
            match vertex {
                Some(vertex) if weight.weight > 0.0 => {
                    entries.push((
                        object_index as u32,
                        vertex,
                        bone_index as u32,
                        weight.weight,
                    ));
                }
                Some(_) => {}
                None => dangling += 1,
            }
        }
        if dangling > 0 {
            notes.push(MqoNote::DanglingWeights {
                bone: bone.name.clone(),
                count: dangling,
            });
        }
    }
    entries.sort_by_key(|e| (e.0, e.1, e.2));

    let mut root: Option<BoneIdx> = None;
    let mut unweighted = 0usize;
    let mut truncated = 0usize;
    let mut mirrored_weighted: HashSet<u32> = HashSet::new();
    for (vertex, origin) in model.vertices.iter_mut().zip(origins) {
        let start = entries.partition_point(|e| (e.0, e.1) < (origin.object, origin.source));
        let end = entries.partition_point(|e| (e.0, e.1) <= (origin.object, origin.source));
        let mut weights: Vec<(u32, f32)> = entries[start..end].iter().map(|e| (e.2, e.3)).collect();
        if weights.is_empty() {
            unweighted += 1;
            let bone = *root.get_or_insert(BoneIdx::new(model.bones.len()));
            vertex.weight = Weight::Bdef1 { bone: Some(bone) };
            continue;
        }
        if origin.transform != 0 {
            mirrored_weighted.insert(origin.object);
        }
        // The same bone named twice counts once, with the weights added.
        weights.dedup_by(|later, earlier| {
            if later.0 == earlier.0 {
                earlier.1 += later.1;
                true
            } else {
                false
            }
        });
        weights.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        if weights.len() > 4 {
            truncated += 1;
            weights.truncate(4);
        }
        let sum: f32 = weights.iter().map(|w| w.1).sum();
        let bone = |i: usize| Some(BoneIdx::new(weights[i].0 as usize));
        let share = |i: usize| weights[i].1 / sum;
        vertex.weight = match weights.len() {
            1 => Weight::Bdef1 { bone: bone(0) },
            2 => Weight::Bdef2 {
                bones: [bone(0), bone(1)],
                weight: share(0),
            },
            n => {
                let mut bones = [None; 4];
                let mut values = [0.0; 4];
                for i in 0..n {
                    bones[i] = bone(i);
                    values[i] = share(i);
                }
                Weight::Bdef4 {
                    bones,
                    weights: values,
                }
            }
        };
    }
    if truncated > 0 {
        notes.push(MqoNote::WeightsTruncated {
            vertices: truncated,
        });
    }
    for object in mirrored_weighted {
        notes.push(MqoNote::MirrorKeepsWeights {
            object: document.objects[object as usize].name.clone(),
        });
    }
    if root.is_some() || model.bones.is_empty() {
        model.bones.push(Bone {
            name_ja: ROOT_BONE_JA.into(),
            name_en: ROOT_BONE_EN.into(),
            flags: BoneFlags::ROTATABLE
                | BoneFlags::MOVABLE
                | BoneFlags::VISIBLE
                | BoneFlags::OPERABLE,
            ..Bone::default()
        });
        notes.push(MqoNote::RootBoneAdded {
            name: ROOT_BONE_JA.to_owned(),
            vertices: unweighted,
        });
    }
    // Root frame: the first root bone; the rest in a frame of their own.
    let first_root = model.bones.iter().position(|b| b.parent.is_none());
    if let Some(first_root) = first_root {
        if let Some(frame) = model.display_frames.get_mut(0) {
            frame
                .items
                .push(DisplayItem::Bone(Some(BoneIdx::new(first_root))));
        }
        let others: Vec<DisplayItem> = (0..model.bones.len())
            .filter(|&i| i != first_root)
            .map(|i| DisplayItem::Bone(Some(BoneIdx::new(i))))
            .collect();
        if !others.is_empty() {
            model.display_frames.push(DisplayFrame {
                name_ja: "ボーン".into(),
                name_en: "Bones".into(),
                special: false,
                items: others,
            });
        }
    }
}

/// Vertex morphs from the MQX morph plugin: each target object's offsets from its base.
fn morphs(
    document: &MqoDocument,
    mqx: Option<&MqxDocument>,
    origins: &[VertexOrigin],
    transforms: &HashMap<u32, Vec<Mat3>>,
    scale: f32,
    model: &mut Model,
    notes: &mut Vec<MqoNote>,
) {
    let Some(mqx) = mqx else {
        return;
    };
    let object_named = |name: &str| document.objects.iter().position(|o| o.name == name);
    let mut joined: HashMap<String, usize> = HashMap::new();
    for list in &mqx.morphs {
        let base = object_named(&list.base);
        for target in &list.targets {
            let target_index = object_named(&target.name);
            let (Some(base), Some(target_index)) = (base, target_index) else {
                notes.push(MqoNote::MorphTargetMismatch {
                    base: list.base.clone(),
                    target: target.name.clone(),
                });
                continue;
            };
            let base_object = &document.objects[base];
            let target_object = &document.objects[target_index];
            let Some(table) = transforms.get(&(base as u32)) else {
                notes.push(MqoNote::MorphTargetMismatch {
                    base: list.base.clone(),
                    target: target.name.clone(),
                });
                continue;
            };
            if base_object.vertices.len() != target_object.vertices.len() {
                notes.push(MqoNote::MorphTargetMismatch {
                    base: list.base.clone(),
                    target: target.name.clone(),
                });
                continue;
            }
            let mut offsets = Vec::new();
            for (vertex, origin) in origins.iter().enumerate() {
                if origin.object != base as u32 {
                    continue;
                }
                let source = origin.source as usize;
                let delta = GVec3::from(target_object.vertices[source])
                    - GVec3::from(base_object.vertices[source]);
                if delta == GVec3::ZERO {
                    continue;
                }
                let transform = table
                    .get(origin.transform as usize)
                    .copied()
                    .unwrap_or(Mat3::IDENTITY);
                let offset = transform * delta / scale;
                offsets.push(VertexMorphOffset {
                    vertex: VertexIdx::new(vertex),
                    offset: Vec3::new(offset.x, offset.y, -offset.z),
                });
            }
            // A morph that moves several objects has one target per object, each named
            // `morph:object` (PMX Studio's export writes them so): they join again here.
            let name = target
                .name
                .strip_suffix(list.base.as_str())
                .and_then(|rest| rest.strip_suffix(':'))
                .filter(|rest| !rest.is_empty())
                .unwrap_or(&target.name);
            if let Some(&index) = joined.get(name) {
                if let Some(Morph {
                    offsets: MorphOffsets::Vertex(existing),
                    ..
                }) = model.morphs.get_mut(index)
                {
                    existing.extend(offsets);
                }
                continue;
            }
            model.morphs.push(Morph {
                name_ja: name.into(),
                name_en: name.into(),
                panel: MorphPanel::Other,
                offsets: MorphOffsets::Vertex(offsets),
            });
            let index = MorphIdx::new(model.morphs.len() - 1);
            if name != target.name {
                joined.insert(name.to_owned(), index.get());
            }
            if let Some(frame) = model.display_frames.get_mut(1) {
                frame.items.push(DisplayItem::Morph(Some(index)));
            }
        }
    }
}
