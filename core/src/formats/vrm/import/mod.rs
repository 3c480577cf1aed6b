//! VRM import: a `.vrm` / `.glb` (VRM 1.0, VRM 0.x or plain glTF 2.0) as an MMD model.
//!
//! # Reading
//!
//! The GLB container ([`glb`]) and the glTF JSON and buffers ([`gltf`]) are read by hand from
//! `serde_json::Value`, so nothing in a file can make the reader panic: every index is looked
//! up, every byte range checked against the bytes present before anything is allocated (an
//! accessor without data is held to 4 × the file size), and errors name the JSON path and the
//! byte offset. Required extensions this reader does not know (Draco among them) are refused
//! with the extension's name. With [`LoadOptions::recover`] a primitive that cannot be read is
//! left out and listed instead.
//!
//! # Axes, units, winding
//!
//! The inverse of the export (see [`super`]): VRM 1.0 and plain glTF face +Z, so
//! `MMD (x, y, z) = glTF (x, y, −z) / 0.08`. VRM 0.x models face −Z in glTF space (they are
//! turned 180° about Y against 1.0), so for them `MMD (x, y, z) = glTF (−x, y, z) / 0.08`.
//! Both are mirrors, so every triangle's corners are reversed: glTF (a, b, c) becomes MMD
//! (a, c, b). Normals map like positions, without the scale.
//!
//! # What the model gets
//!
//! - **Bones**: one per node, names kept (made unique), in parent-first order; the humanoid
//!   bones renamed to MMD's standard names ([`HumanBone::mmd_standard_names`]: 上半身,
//!   上半身2 (chest), 上半身3 (upper chest), 首, 頭, 左目, 左肩, 左腕, 左ひじ, 左手首, the fingers
//!   with full-width digits (左親指０, 左人指１), 左足, 左ひざ, 左足首, 左つま先, ...); 全ての親,
//!   センター and グルーブ added at the root; the hips become 下半身 and the spine 上半身, both
//!   children of グルーブ at the waist (MMD turns the upper and lower body apart); 両目 over
//!   the eyes (which append its rotation); 足ＩＫ and つま先ＩＫ with MMD's usual loop counts,
//!   angles and knee limits (a つま先 is made in front of the foot when the VRM has no toes,
//!   a 上半身2 above the spine when it has no chest, a 肩 at the base of an arm without a
//!   shoulder; none of them carries vertices).
//!   Tails run down the humanoid chains; only the handles (全ての親, センター, グルーブ, IK
//!   bones, non-humanoid roots) move. MMD bones carry no rotation, so the rest pose is baked
//!   into the vertices.
//! - **Node constraints** (`VRMC_node_constraint`): rotation constraints become append (付与)
//!   rotations from the source with the weight as the ratio; roll constraints the same,
//!   approximated (the whole rotation is appended); aim constraints are listed. Malformed ones
//!   (no source, their own node, a cycle) are listed and skipped ([`constraints`]).
//! - **Display frames**: Root, 表情 (every morph), then センター, 体(上), 腕, 指, 体(下), 足 as
//!   MMD's standard models have them and その他 for the other bones; every bone but the root
//!   in exactly one frame ([`frames`]).
//! - **A-pose** ([`VrmImportOptions::a_pose`], the last step): the upper arms turned down to
//!   [`VrmImportOptions::arm_angle_degrees`] below horizontal, measured from the arm's actual
//!   direction, and baked with the pose engine's pose-as-rest so mesh, morphs, bones and
//!   physics follow ([`apose`]).
//! - **Meshes**: every primitive of every mesh node, in node order, skinned by its rest pose
//!   (`Σ wᵢ · world(jointᵢ) · inverseBindᵢ`) or placed by its node; one PMX material per glTF
//!   material. Weights: BDEF1/2/4, more than four influences cut to the four largest and
//!   renormalised (counted in the report).
//! - **Morphs** ([`morphs`]): each VRM expression (1.0 presets and custom, 0.x blend shape
//!   groups) named as MMD names the presets (aa → あ, blink → まばたき, from
//!   [`super::PRESET_TABLE`]): morph target binds summed into a vertex morph, material colour
//!   binds as an additive material morph (target − the material's value), texture transform
//!   binds as a UV morph on the material's vertices. An expression with more than one kind
//!   is a group morph of one morph per kind. Morph targets no expression uses become morphs
//!   of their own.
//! - **Materials** ([`materials`]): base colour (linear → sRGB) and texture, alpha mode,
//!   double-sidedness; MToon 1.0 and 0.x `materialProperties`: a toon ramp generated from the
//!   shade colour and shading range, the outline as the edge (world widths / 5 mm), the matcap
//!   as an additive sphere map; unlit materials without shading. The base texture's transform
//!   is baked into the UVs. Images (buffer views, `data:` URIs, files beside a `.gltf`) and
//!   the generated toons are kept in [`VrmImport::textures`] with the relative path the
//!   model names them by, for the caller to write beside the PMX.
//! - **Physics**: spring bones (1.0 `VRMC_springBone` with its limits and extended colliders,
//!   0.x `secondaryAnimation`) as dynamic rigid bodies and spring joints, colliders as static
//!   bodies; settings by the inverse of the export's mapping ([`physics`]).

mod apose;
mod constraints;
mod external;
mod frames;
mod glb;
mod gltf;
#[cfg(test)]
mod leniency_tests;
mod materials;
mod mesh;
mod morphs;
mod physics;
mod skeleton;

pub use glb::GLB_MAGIC;

use super::HumanBone;
use crate::formats::{LoadNote, LoadOptions, LoadReport, Location, ReadError};
use crate::i18n::Message;
use crate::model::{Model, Vec3};
use glam::{Mat4, Quat, Vec3 as GVec3};
use gltf::Gltf;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// Which VRM a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VrmVersion {
    /// `VRMC_vrm` (1.0).
    V1,
    /// The `VRM` extension (0.x).
    V0,
    /// glTF 2.0 without VRM: no humanoid, imported as plain nodes and meshes.
    Gltf,
}

/// How a VRM becomes an MMD model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VrmImportOptions {
    /// Turn the arms down from the T-pose to MMD's usual A-pose (upper arms at
    /// [`Self::arm_angle_degrees`] below horizontal), baked through the pose engine so the
    /// mesh, morphs and physics follow. MMD motions are made for models in the A-pose.
    pub a_pose: bool,
    /// How far below horizontal the upper arms end up, in degrees (MMD's standard models
    /// hold them at about 35°).
    pub arm_angle_degrees: f32,
    /// Spring bones become rigid bodies and joints (and colliders static bodies).
    pub physics: bool,
}

impl Default for VrmImportOptions {
    fn default() -> Self {
        Self {
            a_pose: true,
            arm_angle_degrees: 35.0,
            physics: true,
        }
    }
}

/// An image the model refers to by a relative path, with its bytes (the file embeds them).
pub use crate::formats::EmbeddedFile as ImportedTexture;

/// An imported model and what the import noticed.
#[derive(Debug, Clone)]
pub struct VrmImport {
    pub model: Model,
    pub report: LoadReport,
    pub version: VrmVersion,
    /// The embedded images, to be written next to the PMX ([`VrmImport::write_textures`]).
    pub textures: Vec<ImportedTexture>,
}

impl VrmImport {
    /// Puts the embedded images under `folder/` instead of `tex/`, the model's texture paths
    /// with them (`folder` is one plain path component).
    pub fn move_images_under(&mut self, folder: &str) {
        let mut moved: std::collections::HashMap<String, String> = std::collections::HashMap::new();
        for file in &mut self.textures {
            if let Some(rest) = file.path.strip_prefix("tex/") {
                let path = format!("{folder}/{rest}");
                moved.insert(std::mem::replace(&mut file.path, path.clone()), path);
            }
        }
        for texture in &mut self.model.textures {
            if let Some(path) = moved.get(texture.as_str().as_ref()) {
                *texture = path.as_str().into();
            }
        }
    }

    /// Writes the embedded images under `dir` (the PMX's folder) at their relative paths.
    pub fn write_textures(&self, dir: &Path) -> std::io::Result<usize> {
        crate::formats::write_embedded_files(&self.textures, dir, true).map(|written| written.len())
    }
}

/// Extensions a file may require: the ones this reader reads, and those whose absence only
/// changes the look (a viewer without them still shows the model).
const UNDERSTOOD_EXTENSIONS: [&str; 11] = [
    "VRM",
    "VRMC_vrm",
    "VRMC_springBone",
    "VRMC_springBone_extended_collider",
    "VRMC_springBone_limit",
    "VRMC_node_constraint",
    "VRMC_materials_mtoon",
    "KHR_materials_unlit",
    "KHR_texture_transform",
    "KHR_materials_emissive_strength",
    "KHR_mesh_quantization",
];

/// Whether `bytes` start like a GLB.
#[must_use]
pub fn is_glb(bytes: &[u8]) -> bool {
    bytes.starts_with(GLB_MAGIC)
}

/// Reads a `.vrm` / `.glb` (or a text glTF whose buffers are all in the file or in `data:`
/// URIs) as a model. [`read_vrm_in`] also reads buffers in files beside it.
pub fn read_vrm(bytes: &[u8], options: &LoadOptions) -> Result<VrmImport, ReadError> {
    read_vrm_in(bytes, options, None)
}

/// Reads the `.vrm`, `.glb` or `.gltf` at `path`, with the buffers and images a `.gltf` keeps
/// in files beside it.
pub fn load_vrm_path(
    path: &Path,
    options: &LoadOptions,
) -> Result<VrmImport, crate::formats::FileError> {
    let bytes = std::fs::read(path).map_err(|source| crate::formats::FileError::Io {
        path: path.to_owned(),
        source,
    })?;
    read_vrm_file(&bytes, path, options).map_err(|source| crate::formats::FileError::Read {
        path: path.to_owned(),
        source: Box::new(source),
    })
}

/// Reads `bytes`, the contents of the `.vrm`, `.glb` or `.gltf` at `path` (a `.gltf`'s buffers
/// and images are read from beside it), as [`load_vrm_path`] does.
pub fn read_vrm_file(
    bytes: &[u8],
    path: &Path,
    options: &LoadOptions,
) -> Result<VrmImport, ReadError> {
    let mut import = read_vrm_in(bytes, options, Some(crate::formats::folder_of(path)))?;
    // Images go in a folder named after the file (as UniVRM's `<name>.Textures`), so avatars
    // converted into one folder, or merged into one model, never share an image path.
    let stem = path
        .file_stem()
        .map(|stem| materials::safe_file_stem(&stem.to_string_lossy()))
        .filter(|stem| !stem.is_empty())
        .unwrap_or_else(|| "vrm".to_owned());
    import.move_images_under(&format!("{stem}_tex"));
    Ok(import)
}

/// Reads a `.vrm` / `.glb` / `.gltf` whose relative `uri`s are files under `base_dir` (none
/// are read when it is `None`).
pub fn read_vrm_in(
    bytes: &[u8],
    options: &LoadOptions,
    base_dir: Option<&Path>,
) -> Result<VrmImport, ReadError> {
    let chunks = glb::split(bytes)?;
    let json: Value = serde_json::from_slice(chunks.json).map_err(|error| ReadError::Parse {
        format: "glTF JSON",
        line: error.line(),
        column: error.column(),
        message: crate::i18n::Message::new("load.json.syntax").arg("message", error.to_string()),
    })?;
    // Buffers named by a uri are read up front (the accessors borrow their bytes).
    let external: Vec<Option<external::Resolved>> = json
        .get("buffers")
        .and_then(Value::as_array)
        .map(|buffers| {
            buffers
                .iter()
                .map(|buffer| {
                    buffer
                        .get("uri")
                        .and_then(Value::as_str)
                        .map(|uri| external::resolve(uri, base_dir))
                })
                .collect()
        })
        .unwrap_or_default();
    let gltf = Gltf {
        json,
        bin: chunks.bin,
        bin_offset: chunks.bin_offset,
        json_offset: chunks.json_offset,
        // Accessors without data are held to a multiple of the bytes present, buffers included.
        file_len: bytes.len().saturating_add(
            external
                .iter()
                .flatten()
                .filter_map(|data| data.as_ref().ok())
                .map(Vec::len)
                .sum(),
        ),
        limits: options.limits,
        external: &external,
        base_dir,
        notes: std::cell::RefCell::new(chunks.notes),
    };
    if !gltf.json.is_object() {
        return Err(gltf.malformed("json", None, "", Message::new("load.gltf.json_not_object")));
    }
    check_required_extensions(&gltf)?;
    let buffer_notes = gltf.buffer_notes();
    gltf.notes.borrow_mut().extend(buffer_notes);
    let mut import = Importer::new(gltf, options.recover, options.vrm.unwrap_or_default())?;
    import.run()?;
    let Importer {
        model,
        notes: import_notes,
        version,
        textures,
        gltf,
        ..
    } = import;
    // The container's and the buffers' notes first: they come from the bytes under the rest.
    let mut notes = gltf.notes.into_inner();
    notes.extend(import_notes);
    Ok(VrmImport {
        model,
        report: LoadReport {
            recovered_from: None,
            notes,
            file_size: bytes.len(),
            face_index_count: None,
        },
        version,
        textures,
    })
}

fn check_required_extensions(gltf: &Gltf<'_>) -> Result<(), ReadError> {
    let required = gltf.list("extensionsRequired")?;
    let unknown: Vec<&str> = required
        .iter()
        .filter_map(Value::as_str)
        .filter(|name| !UNDERSTOOD_EXTENSIONS.contains(name))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    let key = if unknown.contains(&"KHR_draco_mesh_compression") {
        "load.gltf.required_extensions_draco"
    } else {
        "load.gltf.required_extensions"
    };
    Err(ReadError::Unsupported {
        location: gltf.at("extensionsRequired", None, ""),
        message: Message::new(key).arg("extensions", unknown.join(", ")),
    })
}

/// A node as the importer needs it.
#[derive(Debug, Clone)]
struct Node {
    name: Option<String>,
    children: Vec<usize>,
    mesh: Option<usize>,
    skin: Option<usize>,
    local: Mat4,
}

/// The state of one import.
struct Importer<'a> {
    gltf: Gltf<'a>,
    recover: bool,
    options: VrmImportOptions,
    version: VrmVersion,
    nodes: Vec<Node>,
    parents: Vec<Option<usize>>,
    /// Nodes parents first (depth-first from the roots, children in file order).
    order: Vec<usize>,
    world: Vec<Mat4>,
    humanoid: BTreeMap<HumanBone, usize>,
    node_bone: Vec<usize>,
    model: Model,
    notes: Vec<LoadNote>,
    textures: Vec<ImportedTexture>,
    /// Per PMX material, what expressions' material binds change ([`materials::BindBase`]).
    material_binds: Vec<materials::BindBase>,
    /// The vertex offsets of each (mesh, morph target), in MMD space.
    targets: BTreeMap<(usize, usize), Vec<(usize, Vec3)>>,
}

impl<'a> Importer<'a> {
    fn new(gltf: Gltf<'a>, recover: bool, options: VrmImportOptions) -> Result<Self, ReadError> {
        let extensions = gltf.json.get("extensions");
        let version = if extensions.and_then(|e| e.get("VRMC_vrm")).is_some() {
            VrmVersion::V1
        } else if extensions.and_then(|e| e.get("VRM")).is_some() {
            VrmVersion::V0
        } else {
            VrmVersion::Gltf
        };
        Ok(Self {
            gltf,
            recover,
            options,
            version,
            nodes: Vec::new(),
            parents: Vec::new(),
            order: Vec::new(),
            world: Vec::new(),
            humanoid: BTreeMap::new(),
            node_bone: Vec::new(),
            model: Model::new_empty(),
            notes: Vec::new(),
            textures: Vec::new(),
            material_binds: Vec::new(),
            targets: BTreeMap::new(),
        })
    }

    fn note(&mut self, location: Location, message: Message, lost: bool) {
        self.notes.push(LoadNote {
            location,
            message,
            lost,
        });
    }

    fn run(&mut self) -> Result<(), ReadError> {
        if self.version == VrmVersion::Gltf {
            let location = self.gltf.at("extensions", None, "");
            self.note(location, Message::new("load.vrm.no_vrm_extension"), false);
        }
        self.read_nodes()?;
        if self.nodes.is_empty() {
            return Err(self
                .gltf
                .malformed("nodes", None, "", Message::new("load.gltf.no_nodes")));
        }
        self.read_info();
        self.read_humanoid()?;
        skeleton::build(self);
        mesh::build(self)?;
        morphs::build(self)?;
        if self.options.physics {
            physics::build(self);
        }
        constraints::build(self);
        frames::build(self);
        // Last: the A-pose bakes everything built before it (mesh, morphs, physics).
        if self.options.a_pose {
            apose::build(self);
        }
        Ok(())
    }

    /// glTF world space → MMD space, for points (scaled) and directions (`scale` 1).
    fn to_mmd(&self, v: GVec3, scale: f32) -> Vec3 {
        let v = v * scale;
        match self.version {
            VrmVersion::V0 => Vec3::new(-v.x, v.y, v.z),
            _ => Vec3::new(v.x, v.y, -v.z),
        }
    }

    fn point(&self, v: GVec3) -> Vec3 {
        self.to_mmd(v, 1.0 / super::METRES_PER_MMD_UNIT)
    }

    fn read_nodes(&mut self) -> Result<(), ReadError> {
        let count = self.gltf.list("nodes")?.len();
        if count > self.gltf.limits.max_elements {
            return Err(ReadError::LimitExceeded {
                location: self.gltf.at("nodes", None, ""),
                message: Message::new("load.bytes.count_over_limit")
                    .arg("count", count)
                    .arg("limit", self.gltf.limits.max_elements),
            });
        }
        let mut nodes = Vec::with_capacity(count);
        for index in 0..count {
            let value = &self.gltf.list("nodes")?[index];
            let site = ("nodes", Some(index), "");
            let mut children = Vec::new();
            if let Some(list) = value.get("children").and_then(Value::as_array) {
                for child in list {
                    match child.as_u64().and_then(|c| usize::try_from(c).ok()) {
                        Some(child) if child < count && child != index => children.push(child),
                        _ => {
                            return Err(self.gltf.malformed(
                                "nodes",
                                Some(index),
                                "children",
                                Message::new("load.gltf.child_not_node")
                                    .arg("child", child.to_string())
                                    .arg("count", count),
                            ));
                        }
                    }
                }
            }
            let local = match gltf::numbers::<16>(value.get("matrix")) {
                Some(matrix) => Mat4::from_cols_array(&matrix),
                None => {
                    let translation =
                        gltf::numbers::<3>(value.get("translation")).unwrap_or([0.0; 3]);
                    let rotation = gltf::numbers::<4>(value.get("rotation"))
                        .map(Quat::from_array)
                        .filter(|q| q.length_squared() > 1e-12)
                        .map_or(Quat::IDENTITY, Quat::normalize);
                    let scale = gltf::numbers::<3>(value.get("scale")).unwrap_or([1.0; 3]);
                    Mat4::from_scale_rotation_translation(
                        GVec3::from_array(scale),
                        rotation,
                        GVec3::from_array(translation),
                    )
                }
            };
            nodes.push(Node {
                name: value.get("name").and_then(Value::as_str).map(str::to_owned),
                children,
                mesh: self
                    .gltf
                    .index_field(value, "mesh", ("nodes", site.1, "mesh"))?,
                skin: self
                    .gltf
                    .index_field(value, "skin", ("nodes", site.1, "skin"))?,
                local,
            });
        }
        // A node has one parent; a second claim (not a tree) is dropped and listed.
        let mut parents = vec![None; count];
        for (index, node) in nodes.iter().enumerate() {
            for &child in &node.children {
                if parents[child].is_some() {
                    let location = self.gltf.at("nodes", Some(index), "children");
                    self.note(
                        location,
                        Message::new("load.vrm.node_two_parents").arg("node", child),
                        true,
                    );
                } else {
                    parents[child] = Some(index);
                }
            }
        }
        // Depth first from the roots; nodes in a cycle have no root and are started from
        // themselves (their link into the cycle broken).
        let mut order = Vec::with_capacity(count);
        let mut seen = vec![false; count];
        // Popped from the end: reversed so the roots come in file order.
        let mut starts: Vec<usize> = (0..count).rev().filter(|&n| parents[n].is_none()).collect();
        let mut next_unseen = 0;
        loop {
            while let Some(start) = starts.pop() {
                let mut stack = vec![start];
                while let Some(node) = stack.pop() {
                    if seen[node] {
                        continue;
                    }
                    seen[node] = true;
                    order.push(node);
                    for &child in nodes[node].children.iter().rev() {
                        if parents[child] == Some(node) && !seen[child] {
                            stack.push(child);
                        }
                    }
                }
            }
            while next_unseen < count && seen[next_unseen] {
                next_unseen += 1;
            }
            if next_unseen == count {
                break;
            }
            let location = self.gltf.at("nodes", Some(next_unseen), "children");
            self.note(location, Message::new("load.vrm.node_cycle"), true);
            parents[next_unseen] = None;
            starts.push(next_unseen);
        }
        let mut world = vec![Mat4::IDENTITY; count];
        for &node in &order {
            world[node] = match parents[node] {
                Some(parent) => world[parent] * nodes[node].local,
                None => nodes[node].local,
            };
        }
        self.nodes = nodes;
        self.parents = parents;
        self.order = order;
        self.world = world;
        Ok(())
    }

    fn vrm_extension(&self) -> Option<&Value> {
        let extensions = self.gltf.json.get("extensions")?;
        match self.version {
            VrmVersion::V1 => extensions.get("VRMC_vrm"),
            VrmVersion::V0 => extensions.get("VRM"),
            VrmVersion::Gltf => None,
        }
    }

    fn read_info(&mut self) {
        let Some(meta) = self.vrm_extension().and_then(|vrm| vrm.get("meta")) else {
            return;
        };
        let text = |key: &str| {
            meta.get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        let (name, authors, license) = match self.version {
            VrmVersion::V1 => {
                let authors: Vec<String> = meta
                    .get("authors")
                    .and_then(Value::as_array)
                    .map(|list| {
                        list.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                (text("name"), authors.join(", "), text("licenseUrl"))
            }
            _ => (text("title"), text("author"), text("licenseName")),
        };
        if !name.is_empty() {
            self.model.info.name_ja = name.as_str().into();
            self.model.info.name_en = name.as_str().into();
        }
        let comment = format!("Author: {authors}\nLicense: {license}\n(imported from VRM)");
        self.model.info.comment_ja = comment.as_str().into();
        self.model.info.comment_en = comment.as_str().into();
    }

    fn read_humanoid(&mut self) -> Result<(), ReadError> {
        let Some(humanoid) = self
            .vrm_extension()
            .and_then(|vrm| vrm.get("humanoid"))
            .cloned()
        else {
            if self.version != VrmVersion::Gltf {
                let location = self.gltf.at("extensions", None, "humanoid");
                self.note(location, Message::new("load.vrm.no_humanoid"), true);
            }
            return Ok(());
        };
        let node_count = self.nodes.len();
        let mut found: Vec<(String, Option<u64>)> = Vec::new();
        match (self.version, humanoid.get("humanBones")) {
            (VrmVersion::V1, Some(Value::Object(bones))) => {
                for (name, bone) in bones {
                    found.push((name.clone(), bone.get("node").and_then(Value::as_u64)));
                }
            }
            (VrmVersion::V0, Some(Value::Array(bones))) => {
                for bone in bones {
                    let name = bone.get("bone").and_then(Value::as_str).unwrap_or("");
                    // 0.x counts the thumb from the proximal; 1.0 from the metacarpal.
                    let name = match name {
                        "leftThumbProximal" => "leftThumbMetacarpal",
                        "leftThumbIntermediate" => "leftThumbProximal",
                        "rightThumbProximal" => "rightThumbMetacarpal",
                        "rightThumbIntermediate" => "rightThumbProximal",
                        other => other,
                    };
                    found.push((name.to_owned(), bone.get("node").and_then(Value::as_u64)));
                }
            }
            _ => {
                let location = self.gltf.at("extensions", None, "humanoid.humanBones");
                self.note(
                    location,
                    Message::new("load.vrm.human_bones_malformed"),
                    true,
                );
            }
        }
        for (name, node) in found {
            let Some(bone) = HumanBone::from_vrm_name(&name) else {
                if name != "jaw" {
                    let location = self.gltf.at("extensions", None, "humanoid.humanBones");
                    self.note(
                        location,
                        Message::new("load.vrm.unknown_human_bone").arg("name", &name),
                        true,
                    );
                }
                continue;
            };
            match node
                .and_then(|n| usize::try_from(n).ok())
                .filter(|&n| n < node_count)
            {
                Some(node) if !self.humanoid.values().any(|&n| n == node) => {
                    self.humanoid.insert(bone, node);
                }
                Some(node) => {
                    let location = self.gltf.at("extensions", None, "humanoid.humanBones");
                    self.note(
                        location,
                        Message::new("load.vrm.human_bone_taken")
                            .arg("name", &name)
                            .arg("node", node),
                        true,
                    );
                }
                None => {
                    let location = self.gltf.at("extensions", None, "humanoid.humanBones");
                    let message = match node {
                        Some(node) => Message::new("load.vrm.human_bone_no_node")
                            .arg("name", &name)
                            .arg("node", node)
                            .arg("count", node_count),
                        None => Message::new("load.vrm.human_bone_without_node").arg("name", &name),
                    };
                    self.note(location, message, true);
                }
            }
        }
        Ok(())
    }
}

/// A name made unique among `taken` by a numbered suffix (MMD finds bones and morphs by name).
fn unique_name(taken: &mut std::collections::HashSet<String>, wanted: &str) -> String {
    let mut name = wanted.to_owned();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{wanted}_{n}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}
