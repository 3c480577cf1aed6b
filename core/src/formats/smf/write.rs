//! Writing a model as SMF.
//!
//! - **Frames.** One `FRM` per bone, in bone order (frame `i` is bone `i`), with the local
//!   matrix a translation from the parent bone's position (PMX bones have no rest rotation),
//!   then one identity "mesh holder" frame per mesh, whose `MeshNo` names it: the loader gives
//!   every mesh the frame that names it as its parent, and `CModelActorObject::Update` reads
//!   that frame for every mesh, so each mesh needs one.
//! - **Meshes.** Faces are taken in model order (material by material) and cut into meshes so
//!   that no mesh's `BONE` palette has more than [`MAX_BONE_COUNT`] frames: a face whose
//!   corners need bones the current palette has no room for starts the next mesh. Faces stay
//!   whole; a vertex used in several meshes is written once in each. The cut depends only on
//!   the model, so the same model always gives the same file. Each mesh has one `MTRL` per run
//!   of a material's faces inside it (`VertexStart`/`VertexCount` span the vertices those faces
//!   use, as `DrawIndexedPrimitive` needs).
//! - **Weights.** The engine blends two bones per vertex (`V_A`: the first weight; the shader
//!   gives the second `1 − w`). BDEF1, BDEF2 and SDEF (as BDEF2) are written exactly; BDEF4 and
//!   QDEF keep their two largest weights, renormalised, and the largest change of any bone's
//!   weight is reported per vertex ([`WeightReduction`]).
//! - **Bone offsets.** `BONE`'s offset matrix is the inverse of the frame's rest world matrix
//!   (a translation by minus the bone position), so the rest pose is the model as it is.
//! - **Materials.** `DIFF` is the diffuse colour and alpha, `EMIS` the ambient colour (MMD adds
//!   it unlit, as Selene adds emissive), `SPEC` the specular colour with the specular power as
//!   `fRefractive` (written only for a non-black specular: the chunk switches specular on).
//!   `DRAW` is `SMF_DRAW_BLEND` for alpha below 1, else `SMF_DRAW_NORMAL`; blended materials do
//!   not write depth (`ZWRI` 0) so that what is behind them still draws. Alpha-tested
//!   materials get `ATES` 1 and `ABND`. `CULL` is 0 for double-sided materials; `LGT` (1)
//!   follows it because the loader's `case 'CULL':` falls through into `LGT` and would switch
//!   lighting off with culling.

use super::ChunkId;
use super::{
    IDENTITY, MAX_BONE_COUNT, MAX_IDX2_VERTICES, MAX_NAME_SIZE, Matrix, SMF_VERSION_GUID, draw, id,
    translation,
};
use crate::formats::bytes::PutLe;
use crate::formats::{SaveReport, WriteError};
use crate::model::{DrawFlags, Model, Weight};
use encoding_rs::SHIFT_JIS;
use std::collections::HashMap;

/// Which materials are drawn with an alpha test (cut-out textures: hair tips, lace, leaves).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum AlphaTestMaterials {
    /// Materials whose texture is a format that can carry alpha (`.png`, `.tga`, `.dds`): an
    /// alpha test at the boundary costs nothing on opaque pixels and cuts out transparent ones.
    #[default]
    Automatic,
    /// No alpha test anywhere.
    None,
    /// Exactly these materials (by index).
    Listed(Vec<usize>),
}

/// A motion to bake into the file as one animation set (`ANIS`).
#[derive(Debug, Clone, PartialEq)]
pub struct SmfAnimation {
    /// The animation set's name (cp932, at most 63 bytes).
    pub name: String,
    pub motion: crate::formats::vmd::Motion,
}

/// How to export.
#[derive(Debug, Clone, PartialEq)]
pub struct SmfExportOptions {
    /// Materials (by index) whose faces are also written as collision data (`C_AT`, `C_FC`,
    /// `C_VX`, in the first mesh), for stage models. Each face's attribute is its material
    /// index.
    pub collision_materials: Vec<usize>,
    pub alpha_test: AlphaTestMaterials,
    /// `ABND`: pixels with alpha at or below this (0-255) are cut.
    pub alpha_boundary: u32,
    /// A VMD motion baked into one animation set (see [`super`] for the keys and time unit).
    pub animation: Option<SmfAnimation>,
}

impl Default for SmfExportOptions {
    fn default() -> Self {
        Self {
            collision_materials: Vec::new(),
            alpha_test: AlphaTestMaterials::Automatic,
            // Low enough to keep the soft edges of anti-aliased cut-outs.
            alpha_boundary: 16,
            animation: None,
        }
    }
}

/// An exported model: the file's bytes and what SMF could not hold.
#[derive(Debug, Clone, PartialEq)]
pub struct SmfExport {
    pub bytes: Vec<u8>,
    pub report: SmfExportReport,
}

/// What the export wrote and what it lost.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SmfExportReport {
    /// Bone frames plus one holder frame per mesh.
    pub frames: usize,
    pub meshes: usize,
    /// Vertices written over all meshes (a vertex used by two meshes counts twice).
    pub vertices: usize,
    pub faces: usize,
    /// The largest `BONE` palette of any mesh (at most [`MAX_BONE_COUNT`]).
    pub largest_palette: usize,
    /// Every vertex whose weights changed in the two-bone reduction, with its largest change.
    pub weight_reductions: Vec<WeightReduction>,
    pub losses: Vec<SmfLoss>,
}

impl SmfExportReport {
    /// The losses as a save report (English, one line each).
    #[must_use]
    pub fn to_save_report(&self) -> SaveReport {
        SaveReport {
            warnings: self
                .losses
                .iter()
                .map(|loss| loss.message_en().into())
                .collect(),
        }
    }
}

/// A vertex whose weights the two-bone reduction changed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WeightReduction {
    pub vertex: usize,
    /// The largest difference between a bone's weight before and after.
    pub error: f32,
}

/// One thing SMF cannot hold, or holds differently.
#[derive(Debug, Clone, PartialEq)]
pub enum SmfLoss {
    /// Elements SMF has no place for (morphs, rigid bodies, joints, soft bodies, display
    /// frames).
    Dropped { kind: &'static str, count: usize },
    /// IK settings: the frames keep the bones, the engine plays no IK.
    IkDropped { bones: usize },
    /// Append (付与) settings.
    AppendDropped { bones: usize },
    /// Deform layers (変形階層) and after-physics order: the engine updates frames parent
    /// first.
    DeformOrderDropped { bones: usize },
    /// SDEF vertices written as their linear (BDEF2) blend.
    SdefAsLinear { vertices: usize },
    /// BDEF4/QDEF vertices cut to their two largest weights.
    WeightsReduced {
        vertices: usize,
        largest_error: f32,
        vertex: usize,
    },
    /// Vertices with no bone at all, bound to the first frame.
    VerticesWithoutBone { vertices: usize },
    /// A bone whose parent is missing or makes a loop: its frame is a root.
    ParentCut { bone: usize, name: String },
    /// A name or texture path longer than the 63 bytes a field holds: cut at a character.
    NameCut {
        kind: &'static str,
        name: String,
        written: String,
    },
    /// Characters cp932 cannot encode, written as `?`.
    Unmappable { kind: &'static str, name: String },
    /// Additional UV channels past the first, or the first one's z and w.
    AdditionalUvsDropped { channels: usize },
    /// Material properties with no SMF equivalent.
    MaterialPropertiesDropped {
        property: &'static str,
        materials: usize,
    },
    /// Faces past the last material's range.
    FacesWithoutMaterial { faces: usize },
    /// A model without faces: its materials need a mesh, and a mesh without vertices is not
    /// safe to give the engine (a vertex buffer of zero bytes).
    MaterialsWithoutFaces { materials: usize },
    /// Vertices no written face uses: SMF stores vertices per mesh, for its faces.
    UnusedVertices { vertices: usize },
    /// A collision material index the model does not have.
    CollisionMaterialMissing { material: usize },
    /// English names, the model's name and comments.
    EnglishNamesDropped,
    /// Motion keys with no place in an animation set: morph keys, bones the model lacks.
    MotionKeysDropped {
        morph_tracks: usize,
        unmatched_bones: usize,
    },
}

impl SmfLoss {
    #[must_use]
    pub fn message_en(&self) -> String {
        match self {
            SmfLoss::Dropped { kind, count } => {
                format!("{count} {kind}: SMF has no place for them; not written")
            }
            SmfLoss::IkDropped { bones } => format!(
                "{bones} IK bones: written as plain frames (Selene plays no IK; bake IK into a motion)"
            ),
            SmfLoss::AppendDropped { bones } => {
                format!("{bones} bones with append (付与): written as plain frames")
            }
            SmfLoss::DeformOrderDropped { bones } => format!(
                "{bones} bones have a deform layer or deform after physics: Selene updates frames from parent to child"
            ),
            SmfLoss::SdefAsLinear { vertices } => {
                format!("{vertices} SDEF vertices written as linear two-bone blends")
            }
            SmfLoss::WeightsReduced {
                vertices,
                largest_error,
                vertex,
            } => format!(
                "{vertices} vertices have more than two bones (BDEF4/QDEF): the two largest weights are kept and renormalised; the largest change is {largest_error:.4} (vertex {vertex})"
            ),
            SmfLoss::VerticesWithoutBone { vertices } => {
                format!("{vertices} vertices have no bone: bound to the first frame")
            }
            SmfLoss::ParentCut { bone, name } => format!(
                "bone {bone} \"{name}\": its parent is missing or makes a loop; written as a root frame"
            ),
            SmfLoss::NameCut {
                kind,
                name,
                written,
            } => format!(
                "{kind} \"{name}\" is longer than SMF's 63 bytes: written as \"{written}\""
            ),
            SmfLoss::Unmappable { kind, name } => format!(
                "{kind} \"{name}\" has characters Shift_JIS (cp932) cannot hold: written as ?"
            ),
            SmfLoss::AdditionalUvsDropped { channels } => format!(
                "{channels} additional UV channels (or the first one's z and w) not written: SMF's second UV set holds only the first channel's x and y"
            ),
            SmfLoss::MaterialPropertiesDropped {
                property,
                materials,
            } => format!("{property} of {materials} materials not written (SMF has none)"),
            SmfLoss::FacesWithoutMaterial { faces } => {
                format!("{faces} faces belong to no material: not written")
            }
            SmfLoss::MaterialsWithoutFaces { materials } => format!(
                "{materials} materials not written: the model has no faces, and SMF keeps materials in meshes"
            ),
            SmfLoss::UnusedVertices { vertices } => {
                format!("{vertices} vertices no face uses: not written")
            }
            SmfLoss::CollisionMaterialMissing { material } => {
                format!("collision material {material} does not exist: skipped")
            }
            SmfLoss::EnglishNamesDropped => {
                "English names, the model name and comments not written (SMF has one name per element)".into()
            }
            SmfLoss::MotionKeysDropped {
                morph_tracks,
                unmatched_bones,
            } => format!(
                "motion: {morph_tracks} morph tracks not written (SMF animates frames only); {unmatched_bones} bone tracks name bones the model does not have"
            ),
        }
    }

    #[must_use]
    pub fn message_ja(&self) -> String {
        match self {
            SmfLoss::Dropped { kind, count } => {
                format!(
                    "{}{count}個: SMFには保存できないため書き出しません",
                    kind_ja(kind)
                )
            }
            SmfLoss::IkDropped { bones } => format!(
                "IKボーン{bones}個は通常のフレームとして書き出します(SeleneはIKを計算しません。モーションに焼き込んでください)"
            ),
            SmfLoss::AppendDropped { bones } => {
                format!("付与親のあるボーン{bones}個は通常のフレームとして書き出します")
            }
            SmfLoss::DeformOrderDropped { bones } => format!(
                "変形階層または物理後変形のあるボーン{bones}個: Seleneは親から子の順にフレームを計算します"
            ),
            SmfLoss::SdefAsLinear { vertices } => {
                format!("SDEF頂点{vertices}個は2ボーンの線形ブレンドとして書き出します")
            }
            SmfLoss::WeightsReduced {
                vertices,
                largest_error,
                vertex,
            } => format!(
                "3つ以上のボーンを持つ頂点(BDEF4/QDEF){vertices}個は大きい2つのウェイトを正規化して書き出します(最大の変化は{largest_error:.4}、頂点{vertex})"
            ),
            SmfLoss::VerticesWithoutBone { vertices } => {
                format!("ボーンのない頂点{vertices}個は最初のフレームに割り当てます")
            }
            SmfLoss::ParentCut { bone, name } => format!(
                "ボーン{bone}「{name}」の親が存在しないか循環しているため、ルートフレームとして書き出します"
            ),
            SmfLoss::NameCut {
                kind,
                name,
                written,
            } => format!(
                "{}「{name}」はSMFの63バイトを超えるため「{written}」として書き出します",
                kind_ja(kind)
            ),
            SmfLoss::Unmappable { kind, name } => format!(
                "{}「{name}」にShift_JIS(cp932)で表せない文字があるため?として書き出します",
                kind_ja(kind)
            ),
            SmfLoss::AdditionalUvsDropped { channels } => format!(
                "追加UV{channels}チャンネル(または追加UV1のz・w)は書き出しません(SMFの2つ目のUVは追加UV1のx・yのみ)"
            ),
            SmfLoss::MaterialPropertiesDropped {
                property,
                materials,
            } => format!(
                "材質{materials}個の{}は書き出しません(SMFにありません)",
                kind_ja(property)
            ),
            SmfLoss::FacesWithoutMaterial { faces } => {
                format!("どの材質にも属さない面{faces}個は書き出しません")
            }
            SmfLoss::MaterialsWithoutFaces { materials } => format!(
                "面がないため材質{materials}個は書き出しません(SMFの材質はメッシュに属します)"
            ),
            SmfLoss::UnusedVertices { vertices } => {
                format!("どの面にも使われていない頂点{vertices}個は書き出しません")
            }
            SmfLoss::CollisionMaterialMissing { material } => {
                format!("コリジョン用の材質{material}は存在しないため飛ばします")
            }
            SmfLoss::EnglishNamesDropped => {
                "英語名・モデル名・コメントは書き出しません(SMFの名前は一つだけです)".into()
            }
            SmfLoss::MotionKeysDropped {
                morph_tracks,
                unmatched_bones,
            } => format!(
                "モーション: モーフのトラック{morph_tracks}個は書き出しません(SMFはフレームのみ動かします)。ボーンのトラック{unmatched_bones}個はモデルにないボーンのものです"
            ),
        }
    }
}

/// Japanese for the English words the messages are built from.
fn kind_ja(kind: &str) -> &str {
    match kind {
        "morphs" => "モーフ",
        "rigid bodies" => "剛体",
        "joints" => "ジョイント",
        "soft bodies" => "ソフトボディ",
        "display frames" => "表示枠",
        "bone" => "ボーン",
        "material" => "材質",
        "texture" => "テクスチャ",
        "sphere maps" => "スフィアマップ",
        "toons" => "トゥーン",
        "edges" => "エッジ",
        "shadow flags" => "影の設定",
        "draw modes (points, lines)" => "描画モード(点・線)",
        other => other,
    }
}

/// A vertex's weights as the engine holds them: two bones (model bone indices) and the
/// first's weight.
#[derive(Debug, Clone, Copy, PartialEq)]
struct TwoBones {
    bones: [usize; 2],
    weight: f32,
}

/// `weight` reduced to two bones as the export writes it (BDEF1 when one bone carries it all,
/// else BDEF2), and the largest change of any bone's weight; `None` when it names no bone
/// below `bone_count`.
#[must_use]
pub fn two_bone_weight(weight: &Weight, bone_count: usize) -> Option<(Weight, f32)> {
    let (two, error) = reduce(weight, bone_count)?;
    let bone = |i: usize| Some(crate::model::BoneIdx::new(two.bones[i]));
    let reduced = if two.bones[0] == two.bones[1] || two.weight == 1.0 {
        Weight::Bdef1 { bone: bone(0) }
    } else {
        Weight::Bdef2 {
            bones: [bone(0), bone(1)],
            weight: two.weight,
        }
    };
    Some((reduced, error))
}

fn reduce(weight: &Weight, bone_count: usize) -> Option<(TwoBones, f32)> {
    let valid =
        |bone: Option<crate::model::BoneIdx>| bone.map(|b| b.get()).filter(|&b| b < bone_count);
    match weight {
        Weight::Bdef1 { bone } => valid(*bone).map(|b| {
            (
                TwoBones {
                    bones: [b, b],
                    weight: 1.0,
                },
                0.0,
            )
        }),
        Weight::Bdef2 { bones, weight } | Weight::Sdef { bones, weight, .. } => {
            match (valid(bones[0]), valid(bones[1])) {
                (Some(a), Some(b)) => Some((
                    TwoBones {
                        bones: [a, b],
                        weight: *weight,
                    },
                    0.0,
                )),
                (Some(a), None) => Some((
                    TwoBones {
                        bones: [a, a],
                        weight: 1.0,
                    },
                    (1.0 - weight).abs(),
                )),
                (None, Some(b)) => Some((
                    TwoBones {
                        bones: [b, b],
                        weight: 1.0,
                    },
                    weight.abs(),
                )),
                (None, None) => None,
            }
        }
        Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
            // Weights per bone as stored (a bone named twice gets the sum), in first-named
            // order so that ties keep the file's order.
            let mut merged: Vec<(usize, f32)> = Vec::with_capacity(4);
            let mut invalid_weight = 0.0f32;
            for (&bone, &w) in bones.iter().zip(weights) {
                match valid(bone) {
                    Some(b) => match merged.iter_mut().find(|(m, _)| *m == b) {
                        Some(entry) => entry.1 += w,
                        None => merged.push((b, w)),
                    },
                    None => invalid_weight = invalid_weight.max(w.abs()),
                }
            }
            let first = merged.first().map(|&(b, _)| b)?;
            let mut positive: Vec<(usize, f32)> =
                merged.iter().copied().filter(|&(_, w)| w > 0.0).collect();
            positive.sort_by(|a, b| b.1.total_cmp(&a.1));
            let two = match positive.as_slice() {
                [] => TwoBones {
                    bones: [first, first],
                    weight: 1.0,
                },
                [(b, _)] => TwoBones {
                    bones: [*b, *b],
                    weight: 1.0,
                },
                [(a, wa), (b, wb), ..] => TwoBones {
                    bones: [*a, *b],
                    weight: wa / (wa + wb),
                },
            };
            let after = |bone: usize| -> f32 {
                if two.bones[0] == two.bones[1] {
                    if bone == two.bones[0] { 1.0 } else { 0.0 }
                } else if bone == two.bones[0] {
                    two.weight
                } else if bone == two.bones[1] {
                    1.0 - two.weight
                } else {
                    0.0
                }
            };
            let error = merged
                .iter()
                .map(|&(b, w)| (w - after(b)).abs())
                .fold(invalid_weight, f32::max);
            Some((two, error))
        }
    }
}

/// A run of one material's faces inside a mesh.
#[derive(Debug, Clone)]
struct MaterialRun {
    material: usize,
    /// First face of the run, counted inside the mesh.
    first_face: usize,
    faces: usize,
}

/// One mesh being built.
#[derive(Debug, Default)]
struct MeshBuild {
    /// Model bone index per palette entry.
    palette: Vec<usize>,
    palette_slot: HashMap<usize, u8>,
    /// Model vertex index per mesh vertex.
    vertices: Vec<usize>,
    vertex_slot: HashMap<usize, u32>,
    indices: Vec<u32>,
    runs: Vec<MaterialRun>,
}

impl MeshBuild {
    fn face_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// The bones of `needed` this mesh's palette lacks.
    fn missing(&self, needed: &[usize]) -> usize {
        needed
            .iter()
            .filter(|b| !self.palette_slot.contains_key(b))
            .count()
    }

    fn add_face(&mut self, corners: [usize; 3], needed: &[usize]) {
        for &bone in needed {
            if !self.palette_slot.contains_key(&bone) {
                // The caller keeps the palette within MAX_BONE_COUNT (40), so this fits a byte.
                self.palette_slot.insert(bone, self.palette.len() as u8);
                self.palette.push(bone);
            }
        }
        for corner in corners {
            let slot = match self.vertex_slot.get(&corner) {
                Some(&slot) => slot,
                None => {
                    let slot = self.vertices.len() as u32;
                    self.vertices.push(corner);
                    self.vertex_slot.insert(corner, slot);
                    slot
                }
            };
            self.indices.push(slot);
        }
        if let Some(run) = self.runs.last_mut() {
            run.faces += 1;
        }
    }
}

/// Writes `model` as SMF.
///
/// # Errors
/// [`WriteError::Unrepresentable`] for a face naming a vertex that does not exist, or a file
/// or chunk larger than a `long` can size.
pub fn write_smf(model: &Model, options: &SmfExportOptions) -> Result<SmfExport, WriteError> {
    let mut report = SmfExportReport::default();
    let bone_count = model.bones.len();
    for (index, face) in model.faces.iter().enumerate() {
        if let Some(corner) = face.iter().find(|v| v.get() >= model.vertices.len()) {
            return Err(WriteError::Unrepresentable {
                path: format!("faces[{index}]"),
                message: format!(
                    "vertex {} does not exist ({} vertices)",
                    corner.get(),
                    model.vertices.len()
                )
                .into(),
            });
        }
    }
    report_dropped(model, &mut report);

    // Frames: parents that exist and make no loop.
    let parents = frame_parents(model, &mut report);
    let worlds = rest_worlds(model, &parents);

    // Weights, reduced once per vertex.
    let mut weights = Vec::with_capacity(model.vertices.len());
    let mut without_bone = 0;
    let mut sdef = 0;
    for (index, vertex) in model.vertices.iter().enumerate() {
        if matches!(vertex.weight, Weight::Sdef { .. }) {
            sdef += 1;
        }
        let two = match reduce(&vertex.weight, bone_count) {
            Some((two, error)) => {
                if error > 0.0 {
                    report.weight_reductions.push(WeightReduction {
                        vertex: index,
                        error,
                    });
                }
                two
            }
            None => {
                without_bone += 1;
                TwoBones {
                    bones: [0, 0],
                    weight: 1.0,
                }
            }
        };
        weights.push(two);
    }
    if bone_count > 0 && without_bone > 0 {
        report.losses.push(SmfLoss::VerticesWithoutBone {
            vertices: without_bone,
        });
    }
    if sdef > 0 {
        report.losses.push(SmfLoss::SdefAsLinear { vertices: sdef });
    }
    if let Some(worst) = report
        .weight_reductions
        .iter()
        .max_by(|a, b| a.error.total_cmp(&b.error))
    {
        report.losses.push(SmfLoss::WeightsReduced {
            vertices: report.weight_reductions.len(),
            largest_error: worst.error,
            vertex: worst.vertex,
        });
    }

    let meshes = split_meshes(model, &weights, bone_count > 0, &mut report);
    let mut used = vec![false; model.vertices.len()];
    for mesh in &meshes {
        for &vertex in &mesh.vertices {
            used[vertex] = true;
        }
    }
    let unused = used.iter().filter(|&&u| !u).count();
    if unused > 0 {
        report
            .losses
            .push(SmfLoss::UnusedVertices { vertices: unused });
    }

    // The file.
    let mut out = ChunkWriter::default();
    let frame_count = bone_count + meshes.len();
    let head = out.begin(id::SMF);
    out.bytes.put_u32(SMF_VERSION_GUID);
    out.count(meshes.len())?;
    out.count(frame_count)?;
    out.bytes
        .put_u32(u32::from(options.animation.is_some() && bone_count > 0));
    out.end(head)?;

    for (index, bone) in model.bones.iter().enumerate() {
        let local = match parents[index] {
            Some(parent) => sub(
                bone.position.to_array(),
                model.bones[parent].position.to_array(),
            ),
            None => bone.position.to_array(),
        };
        let frame = out.begin(id::FRM);
        out.matrix(&translation(local));
        let name = bone.name_ja.as_str();
        out.name(&name, "bone", &mut report);
        out.bytes.put_i32(-1);
        out.index(parents[index])?;
        out.end(frame)?;
    }
    for index in 0..meshes.len() {
        let frame = out.begin(id::FRM);
        out.matrix(&IDENTITY);
        out.name(&format!("mesh{index}"), "frame", &mut report);
        out.index(Some(index))?;
        out.bytes.put_i32(-1);
        out.end(frame)?;
    }

    if let Some(animation) = options.animation.as_ref().filter(|_| bone_count > 0) {
        write_animation(&mut out, model, animation, &mut report)?;
    }

    let alpha_tested = alpha_tested_materials(model, &options.alpha_test);
    for (index, mesh) in meshes.iter().enumerate() {
        let chunk = out.begin(id::MESH);
        out.name(&format!("mesh{index}"), "mesh", &mut report);
        out.count(mesh.runs.len())?;
        write_mesh(&mut out, model, mesh, &weights, &worlds, bone_count > 0)?;
        for run in &mesh.runs {
            write_material(
                &mut out,
                model,
                mesh,
                run,
                alpha_tested.get(run.material).copied().unwrap_or(false),
                options.alpha_boundary,
                &mut report,
            )?;
        }
        if index == 0 {
            write_collision(&mut out, model, &options.collision_materials, &mut report)?;
        }
        out.end(chunk)?;
        report.vertices += mesh.vertices.len();
        report.faces += mesh.face_count();
        report.largest_palette = report.largest_palette.max(mesh.palette.len());
    }
    report.frames = frame_count;
    report.meshes = meshes.len();
    dedupe_name_losses(&mut report.losses);
    Ok(SmfExport {
        bytes: out.bytes,
        report,
    })
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// Losses that do not depend on the split: elements and settings SMF has no place for.
fn report_dropped(model: &Model, report: &mut SmfExportReport) {
    let display_items: usize = model.display_frames.iter().map(|f| f.items.len()).sum();
    for (kind, count) in [
        ("morphs", model.morphs.len()),
        ("rigid bodies", model.rigid_bodies.len()),
        ("joints", model.joints.len()),
        ("soft bodies", model.soft_bodies.len()),
        (
            "display frames",
            if display_items > 0 {
                model.display_frames.len()
            } else {
                0
            },
        ),
    ] {
        if count > 0 {
            report.losses.push(SmfLoss::Dropped { kind, count });
        }
    }
    let ik = model.bones.iter().filter(|b| b.is_ik()).count();
    if ik > 0 {
        report.losses.push(SmfLoss::IkDropped { bones: ik });
    }
    let append = model.bones.iter().filter(|b| b.has_append()).count();
    if append > 0 {
        report.losses.push(SmfLoss::AppendDropped { bones: append });
    }
    let ordered = model
        .bones
        .iter()
        .filter(|b| b.layer != 0 || b.flags.contains(crate::model::BoneFlags::AFTER_PHYSICS))
        .count();
    if ordered > 0 {
        report
            .losses
            .push(SmfLoss::DeformOrderDropped { bones: ordered });
    }
    let mut uv_loss = model.additional_uvs.len().saturating_sub(1);
    if model
        .additional_uvs
        .first()
        .is_some_and(|channel| channel.iter().any(|uv| uv.z != 0.0 || uv.w != 0.0))
    {
        uv_loss += 1;
    }
    if uv_loss > 0 {
        report
            .losses
            .push(SmfLoss::AdditionalUvsDropped { channels: uv_loss });
    }
    let count = |pred: &dyn Fn(&crate::model::Material) -> bool| {
        model.materials.iter().filter(|m| pred(m)).count()
    };
    for (property, materials) in [
        ("sphere maps", count(&|m| m.sphere_texture.is_some())),
        (
            "toons",
            count(&|m| !matches!(m.toon, crate::model::Toon::Texture(None))),
        ),
        ("edges", count(&|m| m.draw_flags.contains(DrawFlags::EDGE))),
        (
            "draw modes (points, lines)",
            count(&|m| m.draw_flags.intersects(DrawFlags::POINT | DrawFlags::LINE)),
        ),
    ] {
        if materials > 0 {
            report.losses.push(SmfLoss::MaterialPropertiesDropped {
                property,
                materials,
            });
        }
    }
    let has_english = !model.info.name_en.is_empty()
        || !model.info.name_ja.is_empty()
        || !model.info.comment_ja.is_empty()
        || !model.info.comment_en.is_empty()
        || model.bones.iter().any(|b| !b.name_en.is_empty())
        || model.materials.iter().any(|m| !m.name_en.is_empty());
    if has_english {
        report.losses.push(SmfLoss::EnglishNamesDropped);
    }
}

/// Each bone's parent frame: the model's parent when it exists and does not lead back to the
/// bone (the engine's frame update recurses down the tree and would never end on a loop).
fn frame_parents(model: &Model, report: &mut SmfExportReport) -> Vec<Option<usize>> {
    let count = model.bones.len();
    let mut parents: Vec<Option<usize>> = model
        .bones
        .iter()
        .enumerate()
        .map(|(index, bone)| {
            let parent = bone.parent.map(|p| p.get());
            match parent {
                Some(p) if p < count && p != index => Some(p),
                Some(_) => {
                    report.losses.push(SmfLoss::ParentCut {
                        bone: index,
                        name: bone.name_ja.as_str().into_owned(),
                    });
                    None
                }
                None => None,
            }
        })
        .collect();
    // 0: not visited, 1: on the path being walked, 2: known to reach a root.
    let mut state = vec![0u8; count];
    for start in 0..count {
        let mut path = Vec::new();
        let mut current = start;
        loop {
            match state[current] {
                2 => break,
                1 => {
                    // `current` is on this path: the last bone's link closes the loop.
                    if let Some(&last) = path.last() {
                        parents[last] = None;
                        report.losses.push(SmfLoss::ParentCut {
                            bone: last,
                            name: model.bones[last].name_ja.as_str().into_owned(),
                        });
                    }
                    break;
                }
                _ => {}
            }
            state[current] = 1;
            path.push(current);
            match parents[current] {
                Some(parent) => current = parent,
                None => break,
            }
        }
        for bone in path {
            state[bone] = 2;
        }
    }
    parents
}

/// Each frame's rest world translation as the engine computes it: `local × parent_world`,
/// which for translations adds the local offset to the parent's world position.
fn rest_worlds(model: &Model, parents: &[Option<usize>]) -> Vec<[f32; 3]> {
    let count = model.bones.len();
    let mut worlds: Vec<Option<[f32; 3]>> = vec![None; count];
    for start in 0..count {
        let mut chain = Vec::new();
        let mut current = Some(start);
        while let Some(bone) = current {
            if worlds[bone].is_some() {
                break;
            }
            chain.push(bone);
            current = parents[bone];
        }
        for &bone in chain.iter().rev() {
            let position = model.bones[bone].position.to_array();
            let world = match parents[bone].and_then(|p| worlds[p].map(|w| (p, w))) {
                Some((parent, parent_world)) => {
                    let local = sub(position, model.bones[parent].position.to_array());
                    [
                        local[0] + parent_world[0],
                        local[1] + parent_world[1],
                        local[2] + parent_world[2],
                    ]
                }
                None => position,
            };
            worlds[bone] = Some(world);
        }
    }
    worlds.into_iter().map(|w| w.unwrap_or([0.0; 3])).collect()
}

/// Cuts the faces, material by material, into meshes whose palettes fit [`MAX_BONE_COUNT`].
fn split_meshes(
    model: &Model,
    weights: &[TwoBones],
    skinned: bool,
    report: &mut SmfExportReport,
) -> Vec<MeshBuild> {
    let mut meshes = Vec::new();
    let mut current = MeshBuild::default();
    let mut face = 0usize;
    for (material_index, material) in model.materials.iter().enumerate() {
        let count = (material.face_index_count / 3) as usize;
        let end = (face + count).min(model.faces.len());
        current.runs.push(MaterialRun {
            material: material_index,
            first_face: current.face_count(),
            faces: 0,
        });
        while face < end {
            let corners = model.faces[face].map(|v| v.get());
            let mut needed: Vec<usize> = Vec::with_capacity(6);
            if skinned {
                for &corner in &corners {
                    for bone in weights[corner].bones {
                        if !needed.contains(&bone) {
                            needed.push(bone);
                        }
                    }
                }
            }
            if current.palette.len() + current.missing(&needed) > MAX_BONE_COUNT {
                // The next mesh continues this material; a run the old mesh got no face of
                // moves with it.
                current.runs.pop_if(|run| run.faces == 0);
                meshes.push(std::mem::take(&mut current));
                current.runs.push(MaterialRun {
                    material: material_index,
                    first_face: 0,
                    faces: 0,
                });
            }
            current.add_face(corners, &needed);
            face += 1;
        }
    }
    if face < model.faces.len() {
        report.losses.push(SmfLoss::FacesWithoutMaterial {
            faces: model.faces.len() - face,
        });
    }
    if current.face_count() > 0 {
        meshes.push(current);
    } else if let Some(last) = meshes.last_mut() {
        // Materials with no faces at the end: kept, as empty runs of the last mesh.
        let first_face = last.face_count();
        last.runs.extend(
            current
                .runs
                .into_iter()
                .map(|run| MaterialRun { first_face, ..run }),
        );
    } else if !current.runs.is_empty() {
        report.losses.push(SmfLoss::MaterialsWithoutFaces {
            materials: current.runs.len(),
        });
    }
    meshes
}

fn alpha_tested_materials(model: &Model, choice: &AlphaTestMaterials) -> Vec<bool> {
    match choice {
        AlphaTestMaterials::None => vec![false; model.materials.len()],
        AlphaTestMaterials::Listed(list) => (0..model.materials.len())
            .map(|i| list.contains(&i))
            .collect(),
        AlphaTestMaterials::Automatic => model
            .materials
            .iter()
            .map(|material| {
                material
                    .texture
                    .and_then(|t| model.textures.get(t.get()))
                    .is_some_and(|path| {
                        let path = path.as_str().to_ascii_lowercase();
                        [".png", ".tga", ".dds"]
                            .iter()
                            .any(|ext| path.ends_with(ext))
                    })
            })
            .collect(),
    }
}

fn write_mesh(
    out: &mut ChunkWriter,
    model: &Model,
    mesh: &MeshBuild,
    weights: &[TwoBones],
    worlds: &[[f32; 3]],
    skinned: bool,
) -> Result<(), WriteError> {
    // OBB: the axis-aligned box of the mesh's vertices (`fLength` is the full edge length:
    // `CBox::UpdatePoints` halves it).
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for &v in &mesh.vertices {
        let p = model.vertices[v].position.to_array();
        for axis in 0..3 {
            min[axis] = min[axis].min(p[axis]);
            max[axis] = max[axis].max(p[axis]);
        }
    }
    if mesh.vertices.is_empty() {
        min = [0.0; 3];
        max = [0.0; 3];
    }
    let obb = out.begin(id::OBB);
    for axis in 0..3 {
        out.bytes.put_f32((min[axis] + max[axis]) * 0.5);
    }
    for row in &IDENTITY[..3] {
        out.bytes.put_f32(row[0]);
        out.bytes.put_f32(row[1]);
        out.bytes.put_f32(row[2]);
    }
    for axis in 0..3 {
        out.bytes.put_f32(max[axis] - min[axis]);
    }
    out.end(obb)?;

    if skinned {
        let bones = out.begin(id::BONE);
        for &bone in &mesh.palette {
            let world = worlds[bone];
            let offset: Matrix = translation([-world[0], -world[1], -world[2]]);
            out.matrix(&offset);
            out.count(bone)?;
        }
        out.end(bones)?;
    }

    let chunk = out.begin(id::V_PC);
    for &v in &mesh.vertices {
        out.bytes.put_f32s(&model.vertices[v].position.to_array());
        // D3DCOLOR white: MMD has no vertex colours outside PMX 2.1's additional UV.
        out.bytes.put_u32(0xFFFF_FFFF);
    }
    out.end(chunk)?;

    let chunk = out.begin(id::V_N);
    for &v in &mesh.vertices {
        out.bytes.put_f32s(&model.vertices[v].normal.to_array());
    }
    out.end(chunk)?;

    if skinned {
        let chunk = out.begin(id::V_A);
        for &v in &mesh.vertices {
            let two = weights[v];
            out.bytes.put_f32(two.weight);
            let slot = |bone: usize| mesh.palette_slot.get(&bone).copied().unwrap_or(0);
            out.bytes
                .extend_from_slice(&[slot(two.bones[0]), slot(two.bones[1]), 0, 0]);
        }
        out.end(chunk)?;
    }

    let second = model.additional_uvs.first();
    let chunk = out.begin(id::V_UV);
    for &v in &mesh.vertices {
        let uv = model.vertices[v].uv;
        out.bytes.put_f32(uv.x);
        out.bytes.put_f32(uv.y);
        match second.and_then(|channel| channel.get(v)) {
            Some(extra) => {
                out.bytes.put_f32(extra.x);
                out.bytes.put_f32(extra.y);
            }
            None => {
                out.bytes.put_f32(uv.x);
                out.bytes.put_f32(uv.y);
            }
        }
    }
    out.end(chunk)?;

    if mesh.vertices.len() <= MAX_IDX2_VERTICES {
        let chunk = out.begin(id::IDX2);
        for &index in &mesh.indices {
            // Below 65,535 vertices every index fits.
            out.bytes.put_u16(index as u16);
        }
        out.end(chunk)?;
    } else {
        let chunk = out.begin(id::IDX4);
        for &index in &mesh.indices {
            out.bytes.put_u32(index);
        }
        out.end(chunk)?;
    }
    Ok(())
}

fn write_material(
    out: &mut ChunkWriter,
    model: &Model,
    mesh: &MeshBuild,
    run: &MaterialRun,
    alpha_test: bool,
    alpha_boundary: u32,
    report: &mut SmfExportReport,
) -> Result<(), WriteError> {
    let material = &model.materials[run.material];
    let indices = &mesh.indices[run.first_face * 3..(run.first_face + run.faces) * 3];
    let (vertex_start, vertex_count) = match (indices.iter().min(), indices.iter().max()) {
        (Some(&low), Some(&high)) => (low as usize, (high - low) as usize + 1),
        _ => (0, 0),
    };
    let chunk = out.begin(id::MTRL);
    out.name(&material.name_ja.as_str(), "material", report);
    out.count(run.first_face)?;
    out.count(run.faces)?;
    out.count(vertex_start)?;
    out.count(vertex_count)?;

    if let Some(texture) = material.texture.and_then(|t| model.textures.get(t.get())) {
        let sub = out.begin(id::TEXC);
        out.name(&texture.as_str(), "texture", report);
        out.end(sub)?;
    }
    let blended = material.diffuse.w < 1.0;
    for (chunk_id, value) in [
        (id::DRAW, if blended { draw::BLEND } else { draw::NORMAL }),
        (id::ZTES, 1),
        (id::ZWRI, u32::from(!blended)),
    ] {
        let sub = out.begin(chunk_id);
        out.bytes.put_u32(value);
        out.end(sub)?;
    }
    if alpha_test {
        for (chunk_id, value) in [(id::ATES, 1), (id::ABND, alpha_boundary)] {
            let sub = out.begin(chunk_id);
            out.bytes.put_u32(value);
            out.end(sub)?;
        }
    }
    // CULL first, LGT right after: the loader's CULL case falls through into LGT.
    let double_sided = material.draw_flags.contains(DrawFlags::DOUBLE_SIDED);
    for (chunk_id, value) in [(id::CULL, u32::from(!double_sided)), (id::LGT, 1)] {
        let sub = out.begin(chunk_id);
        out.bytes.put_u32(value);
        out.end(sub)?;
    }
    let sub = out.begin(id::DIFF);
    for value in material.diffuse.to_array() {
        out.bytes.put_f32(value);
    }
    out.end(sub)?;
    let sub = out.begin(id::EMIS);
    out.bytes.put_f32s(&material.ambient.to_array());
    out.end(sub)?;
    if material.specular.to_array().iter().any(|&c| c != 0.0) {
        let sub = out.begin(id::SPEC);
        out.bytes.put_f32s(&material.specular.to_array());
        out.bytes.put_f32(material.specular_power);
        // MMD has no roughness: 1 is the neutral value.
        out.bytes.put_f32(1.0);
        out.end(sub)?;
    }
    out.end(chunk)
}

/// One `ANIS` with an `ANI` per bone the motion moves: the motion is played through the pose
/// engine (IK and append included) frame by frame, and each bone's local rotation and
/// translation (from its parent) at every frame becomes a key. Scale is 1 throughout (two keys,
/// so the engine has a segment to interpolate). Times are MMD frames (1/30 s).
fn write_animation(
    out: &mut ChunkWriter,
    model: &Model,
    animation: &SmfAnimation,
    report: &mut SmfExportReport,
) -> Result<(), WriteError> {
    use crate::pose::{Pose, PoseEvaluator};
    let motion = &animation.motion;
    let binding = motion.bind(model);
    if !motion.morph_tracks.is_empty() || !binding.unmatched_bones.is_empty() {
        report.losses.push(SmfLoss::MotionKeysDropped {
            morph_tracks: motion.morph_tracks.len(),
            unmatched_bones: binding.unmatched_bones.len(),
        });
    }
    let last = motion.last_frame();
    let mut evaluator = PoseEvaluator::new(model);
    let mut pose = Pose::new(model);
    let bones = model.bones.len();
    let frames = last as usize + 1;
    // keys[bone][frame] = (rotation, translation) in the parent's space.
    let mut keys: Vec<Vec<(glam::Quat, glam::Vec3)>> = vec![Vec::with_capacity(frames); bones];
    for frame in 0..=last {
        pose.reset();
        motion.sample(&binding, frame as f32, &mut pose);
        evaluator
            .evaluate_bones(model, &pose)
            .map_err(|error| WriteError::Unrepresentable {
                path: "motion".into(),
                message: error.to_string().into(),
            })?;
        for (bone, track) in keys.iter_mut().enumerate() {
            let local = evaluator
                .skeleton
                .local(crate::model::BoneIdx::new(bone))
                .map_or((glam::Quat::IDENTITY, glam::Vec3::ZERO), |local| {
                    (local.rotation, glam::Vec3::from(local.translation))
                });
            track.push(local);
        }
    }
    let moving: Vec<usize> = (0..bones)
        .filter(|&bone| {
            let first = keys[bone].first().copied();
            keys[bone].iter().any(|&key| Some(key) != first)
                || first.is_some_and(|(r, _)| r != glam::Quat::IDENTITY)
        })
        .collect();
    let chunk = out.begin(id::ANIS);
    out.name(&animation.name, "animation", report);
    out.count(moving.len())?;
    out.count(last as usize)?;
    for &bone in &moving {
        let sub = out.begin(id::ANI);
        out.count(bone)?;
        out.count(2)?;
        out.count(frames)?;
        out.count(frames)?;
        for time in [0, last.max(1)] {
            out.count(time as usize)?;
            out.bytes.put_f32s(&[1.0; 3]);
        }
        for (time, (rotation, _)) in keys[bone].iter().enumerate() {
            out.count(time)?;
            // Selene's `Matrix = Quaternion` puts the column-vector rotation matrix of q in
            // its rows, so for row vectors it turns by q's inverse: the conjugate is written
            // for the engine to turn by q.
            for value in [-rotation.x, -rotation.y, -rotation.z, rotation.w] {
                out.bytes.put_f32(value);
            }
        }
        for (time, (_, translation)) in keys[bone].iter().enumerate() {
            out.count(time)?;
            out.bytes.put_f32s(&translation.to_array());
        }
        out.end(sub)?;
    }
    out.end(chunk)
}

/// `C_AT`, `C_FC`, `C_VX` for the picked materials' faces (bind pose, model space).
fn write_collision(
    out: &mut ChunkWriter,
    model: &Model,
    picked: &[usize],
    report: &mut SmfExportReport,
) -> Result<(), WriteError> {
    let mut materials: Vec<usize> = picked.to_vec();
    materials.sort_unstable();
    materials.dedup();
    let mut ranges = Vec::new();
    let mut start = 0usize;
    for material in &model.materials {
        let count = (material.face_index_count / 3) as usize;
        let end = (start + count).min(model.faces.len());
        ranges.push(start..end);
        start = end;
    }
    let mut attributes: Vec<(usize, usize, usize)> = Vec::new();
    let mut faces: Vec<(usize, [u32; 3], [f32; 4])> = Vec::new();
    let mut vertices: Vec<usize> = Vec::new();
    let mut slots: HashMap<usize, u32> = HashMap::new();
    for material in materials {
        let Some(range) = ranges.get(material) else {
            report
                .losses
                .push(SmfLoss::CollisionMaterialMissing { material });
            continue;
        };
        let first = faces.len();
        for face in &model.faces[range.clone()] {
            let corners = face.map(|v| v.get());
            let local = corners.map(|v| {
                *slots.entry(v).or_insert_with(|| {
                    vertices.push(v);
                    (vertices.len() - 1) as u32
                })
            });
            let [a, b, c] = corners.map(|v| glam::Vec3::from(model.vertices[v].position));
            // Direct3D's front is clockwise: (b − a) × (c − a) points out of the front.
            let normal = (b - a).cross(c - a).normalize_or_zero();
            faces.push((
                material,
                local,
                [normal.x, normal.y, normal.z, -normal.dot(a)],
            ));
        }
        attributes.push((first, faces.len() - first, material));
    }
    if attributes.is_empty() {
        return Ok(());
    }
    let chunk = out.begin(id::C_AT);
    for &(first, count, attribute) in &attributes {
        out.count(first)?;
        out.count(count)?;
        out.count(attribute)?;
    }
    out.end(chunk)?;
    let chunk = out.begin(id::C_FC);
    for (attribute, local, plane) in &faces {
        out.count(*attribute)?;
        for index in local {
            out.bytes.put_u32(*index);
        }
        for value in plane {
            out.bytes.put_f32(*value);
        }
    }
    out.end(chunk)?;
    let chunk = out.begin(id::C_VX);
    for &v in &vertices {
        out.bytes.put_f32s(&model.vertices[v].position.to_array());
        out.bytes.put_u32(0xFFFF_FFFF);
        out.bytes.put_f32s(&model.vertices[v].normal.to_array());
    }
    out.end(chunk)
}

/// The same name cut or unmappable in many places is reported once.
fn dedupe_name_losses(losses: &mut Vec<SmfLoss>) {
    let mut seen = std::collections::HashSet::new();
    losses.retain(|loss| match loss {
        SmfLoss::NameCut { kind, name, .. } => seen.insert(("cut", *kind, name.clone())),
        SmfLoss::Unmappable { kind, name } => seen.insert(("unmappable", *kind, name.clone())),
        _ => true,
    });
}

/// Encodes `text` into a [`MAX_NAME_SIZE`]-byte field: cp932, at most 63 bytes cut at a
/// character boundary, NUL-terminated and NUL-padded. Returns the field, whether it was cut and
/// whether a character had no cp932 code (written as `?`).
pub(super) fn name_field(text: &str) -> ([u8; MAX_NAME_SIZE], bool, bool) {
    let mut field = [0u8; MAX_NAME_SIZE];
    let mut length = 0;
    let mut cut = false;
    let mut unmappable = false;
    let mut utf8 = [0u8; 4];
    for ch in text.chars() {
        let (bytes, _, had_errors) = SHIFT_JIS.encode(ch.encode_utf8(&mut utf8));
        let bytes: &[u8] = if had_errors || bytes.contains(&0) {
            unmappable = true;
            b"?"
        } else {
            &bytes
        };
        if length + bytes.len() > MAX_NAME_SIZE - 1 {
            cut = true;
            break;
        }
        field[length..length + bytes.len()].copy_from_slice(bytes);
        length += bytes.len();
    }
    (field, cut, unmappable)
}

/// Little-endian output with chunks whose sizes are filled in when they end.
#[derive(Debug, Default)]
struct ChunkWriter {
    bytes: Vec<u8>,
}

/// Where a begun chunk's size field is.
#[derive(Debug, Clone, Copy)]
struct ChunkMark {
    id: ChunkId,
    size_at: usize,
}

impl ChunkWriter {
    fn begin(&mut self, chunk: ChunkId) -> ChunkMark {
        self.bytes.extend_from_slice(&chunk.to_bytes());
        let size_at = self.bytes.reserve_u32();
        ChunkMark { id: chunk, size_at }
    }

    fn end(&mut self, mark: ChunkMark) -> Result<(), WriteError> {
        let size = self.bytes.len() - mark.size_at - 4;
        let size = i32::try_from(size).map_err(|_| WriteError::Unrepresentable {
            path: format!("{:?} chunk", mark.id),
            message: format!("{size} bytes: more than a chunk's size (a long) can hold").into(),
        })?;
        self.bytes.patch_i32(mark.size_at, size);
        Ok(())
    }

    fn matrix(&mut self, m: &Matrix) {
        for row in m {
            self.bytes.put_f32s(row);
        }
    }

    /// A count or index as a `long`.
    fn count(&mut self, value: usize) -> Result<(), WriteError> {
        let value = i32::try_from(value).map_err(|_| WriteError::Unrepresentable {
            path: "count".into(),
            message: format!("{value} does not fit a long").into(),
        })?;
        self.bytes.put_i32(value);
        Ok(())
    }

    /// An optional index as a `long`, −1 for none.
    fn index(&mut self, value: Option<usize>) -> Result<(), WriteError> {
        match value {
            Some(value) => self.count(value),
            None => {
                self.bytes.put_i32(-1);
                Ok(())
            }
        }
    }

    fn name(&mut self, text: &str, kind: &'static str, report: &mut SmfExportReport) {
        let (field, cut, unmappable) = name_field(text);
        if cut {
            let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
            report.losses.push(SmfLoss::NameCut {
                kind,
                name: text.to_owned(),
                written: crate::formats::cp932::decode_lossy(&field[..end]).into_owned(),
            });
        }
        if unmappable {
            report.losses.push(SmfLoss::Unmappable {
                kind,
                name: text.to_owned(),
            });
        }
        self.bytes.extend_from_slice(&field);
    }
}
