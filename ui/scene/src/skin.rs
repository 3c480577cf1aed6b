//! Skinning on the GPU: the model's skinning data as the view's vertex shaders read it
//! (`pmx_view`'s `shaders::SKIN_GLSL`), and the per-frame pose (a bone palette and the vertex
//! morphs' weights). The static data goes up with the mesh's first pose and again only when an
//! edit touches it (a weight edit: the vertices it changed); a frame of a motion uploads a few
//! kilobytes instead of every vertex.
//!
//! Layout (texture buffers):
//! - per vertex, two RGBA32UI texels: the four bone indices (an invalid reference is the
//!   identity slot `bone_count`), then (kind, SDEF slot, first morph entry, end of its
//!   entries); kind is [`WeightKind`] as a number;
//! - per vertex, one RGBA32F texel: the four weights;
//! - per SDEF slot, three RGBA32F texels: C, (C + r0)/2, (C + r1)/2 (corrected as
//!   `pmx_core::pose::Skinner` corrects them);
//! - the vertex morph offsets grouped by vertex, in morph order (as the CPU engine sums them):
//!   RGBA32F (offset xyz, morph index);
//! - per frame: per bone four RGBA32F texels (the skinning matrix's three rows, translation in
//!   w, then the bone's global rotation as a quaternion), the identity last; and one R32F
//!   weight per morph.
//!
//! Everything here is in model space (the shader turns the world-space mesh into model space
//! and back).

use pmx_core::model::Model;
use pmx_core::pose::morph::VertexMorphTable;
use pmx_core::pose::{PoseEvaluator, WeightKind, packed_weight};
use std::ops::Range;

/// Texels per vertex in [`SkinVertices::info`].
pub const VERTEX_TEXELS: usize = 2;
/// Texels per bone in [`SkinPose::palette`].
pub const BONE_TEXELS: usize = 4;
/// Texels per SDEF slot in [`SkinData::sdef`].
pub const SDEF_TEXELS: usize = 3;

/// The per-vertex part of the skinning data of a run of vertices.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkinVertices {
    /// [`VERTEX_TEXELS`] per vertex: bones, then (kind, SDEF slot, morph entries start, end).
    pub info: Vec<[u32; 4]>,
    pub weights: Vec<[f32; 4]>,
}

impl SkinVertices {
    #[must_use]
    pub fn len(&self) -> usize {
        self.weights.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.weights.is_empty()
    }
}

/// A model's whole skinning data.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkinData {
    /// Bones of the model: the palette's identity slot is at this index.
    pub bone_count: usize,
    pub morph_count: usize,
    pub vertices: SkinVertices,
    /// [`SDEF_TEXELS`] per slot.
    pub sdef: Vec<[f32; 4]>,
    pub morph_entries: Vec<[f32; 4]>,
}

/// New per-vertex skinning data of the vertices from `first` on, after a weight edit; SDEF
/// vertices bring their points (slot, the slot's texels): a vertex that became SDEF gets a
/// slot past the end.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinPatch {
    pub first: usize,
    pub vertices: SkinVertices,
    pub sdef: Vec<SdefSlot>,
}

/// The pose for one frame: what goes up per frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SkinPose {
    /// [`BONE_TEXELS`] per bone, the identity slot last.
    pub palette: Vec<[f32; 4]>,
    /// Each morph's total weight (flips and groups resolved; 0 for morphs that are not
    /// vertex morphs).
    pub morph_weights: Vec<f32>,
}

impl SkinPose {
    /// The pose `evaluator` last evaluated (its bones and morphs; skinning need not have
    /// run).
    #[must_use]
    pub fn of(evaluator: &PoseEvaluator) -> Self {
        let skeleton = &evaluator.skeleton;
        // The skeleton's matrices for its bones (past them: nothing a vertex refers to).
        let matrices =
            &skeleton.skin_matrices()[..skeleton.num_bones().min(skeleton.skin_matrices().len())];
        let globals = skeleton.globals();
        let mut palette = Vec::with_capacity((matrices.len() + 1) * BONE_TEXELS);
        for (i, matrix) in matrices.iter().enumerate() {
            let rotation = globals.get(i).map_or(glam::Quat::IDENTITY, |g| g.rotation);
            push_bone(&mut palette, matrix, rotation);
        }
        push_bone(
            &mut palette,
            &glam::Affine3A::IDENTITY,
            glam::Quat::IDENTITY,
        );
        Self {
            palette,
            morph_weights: evaluator.morphs.offset_morph_weights().to_vec(),
        }
    }

    /// Bones in the palette (the identity slot not counted).
    #[must_use]
    pub fn bone_count(&self) -> usize {
        (self.palette.len() / BONE_TEXELS).saturating_sub(1)
    }
}

fn push_bone(palette: &mut Vec<[f32; 4]>, matrix: &glam::Affine3A, rotation: glam::Quat) {
    let (x, y, z) = (
        matrix.matrix3.x_axis,
        matrix.matrix3.y_axis,
        matrix.matrix3.z_axis,
    );
    let t = matrix.translation;
    palette.push([x.x, y.x, z.x, t.x]);
    palette.push([x.y, y.y, z.y, t.y]);
    palette.push([x.z, y.z, z.z, t.z]);
    palette.push(rotation.to_array());
}

/// Where each vertex's morph entries start (`start[v]..start[v + 1]`) and the entries: the pose
/// engine's own table ([`VertexMorphTable`]), so the shader sums a vertex's offsets in the
/// order the CPU does.
fn morph_table(model: &Model) -> (Vec<u32>, Vec<[f32; 4]>) {
    let table = VertexMorphTable::new(model);
    let start = if table.starts().is_empty() {
        vec![0; model.vertices.len() + 1]
    } else {
        table.starts().to_vec()
    };
    let entries = table
        .entries()
        .map(|(morph, offset)| [offset.x, offset.y, offset.z, morph as f32])
        .collect();
    (start, entries)
}

/// Kept on the CPU side while the skinning data is on the GPU: what a weight edit's patch
/// needs to keep the layout (each vertex's morph entries and SDEF slot).
#[derive(Debug, Clone, Default)]
pub struct SkinLayout {
    bone_count: usize,
    morph_start: Vec<u32>,
    /// Each vertex's SDEF slot (`u32::MAX`: none).
    sdef_slot: Vec<u32>,
    sdef_len: u32,
}

impl SkinData {
    /// The texels of the largest texture buffer this data and its poses take (the per-vertex
    /// lists, the SDEF points, the morph entries, the bone palette, the morph weights): what
    /// must fit the GPU's `GL_MAX_TEXTURE_BUFFER_SIZE`.
    #[must_use]
    pub fn largest_texture(&self) -> usize {
        [
            self.vertices.info.len(),
            self.vertices.weights.len(),
            self.sdef.len(),
            self.morph_entries.len(),
            (self.bone_count + 1) * BONE_TEXELS,
            self.morph_count,
        ]
        .into_iter()
        .max()
        .unwrap_or(0)
    }

    /// The skinning data of `model`, and the layout a later patch keeps.
    #[must_use]
    pub fn build(model: &Model) -> (Self, SkinLayout) {
        let (morph_start, morph_entries) = morph_table(model);
        let mut layout = SkinLayout {
            bone_count: model.bones.len(),
            morph_start,
            sdef_slot: vec![u32::MAX; model.vertices.len()],
            sdef_len: 0,
        };
        let (vertices, sdef) = layout.vertices(model, 0..model.vertices.len());
        let sdef = sdef.into_iter().flat_map(|(_, texels)| texels).collect();
        (
            Self {
                bone_count: model.bones.len(),
                morph_count: model.morphs.len(),
                vertices,
                sdef,
                morph_entries,
            },
            layout,
        )
    }
}

/// An SDEF vertex's slot and its points' texels.
pub type SdefSlot = (u32, [[f32; 4]; SDEF_TEXELS]);

impl SkinLayout {
    /// The per-vertex data of `range` (clamped) and the SDEF points of its SDEF vertices,
    /// giving a slot to each that has none.
    fn vertices(&mut self, model: &Model, range: Range<usize>) -> (SkinVertices, Vec<SdefSlot>) {
        let end = range
            .end
            .min(model.vertices.len())
            .min(self.sdef_slot.len());
        let start = range.start.min(end);
        let mut out = SkinVertices {
            info: Vec::with_capacity((end - start) * VERTEX_TEXELS),
            weights: Vec::with_capacity(end - start),
        };
        let mut sdef = Vec::new();
        for v in start..end {
            let packed = packed_weight(&model.vertices[v].weight, self.bone_count);
            let slot = match packed.sdef {
                Some(points) => {
                    let slot = if self.sdef_slot[v] == u32::MAX {
                        self.sdef_len += 1;
                        self.sdef_len - 1
                    } else {
                        self.sdef_slot[v]
                    };
                    self.sdef_slot[v] = slot;
                    sdef.push((slot, points.map(|p| [p.x, p.y, p.z, 0.0])));
                    slot
                }
                // A vertex leaving SDEF keeps its slot for a later return.
                None => self.sdef_slot[v],
            };
            out.info.push(packed.bones);
            out.info.push([
                kind_number(packed.kind),
                slot,
                self.morph_start[v],
                self.morph_start[v + 1],
            ]);
            out.weights.push(packed.weights);
        }
        (out, sdef)
    }

    /// The patch of `range` after an edit of those vertices (their weights).
    #[must_use]
    pub fn patch(&mut self, model: &Model, range: Range<usize>) -> SkinPatch {
        let first = range.start.min(model.vertices.len());
        let (vertices, sdef) = self.vertices(model, range);
        SkinPatch {
            first,
            vertices,
            sdef,
        }
    }

    /// Whether this layout was made for `model`'s vertex and bone counts.
    #[must_use]
    pub fn fits(&self, model: &Model) -> bool {
        self.sdef_slot.len() == model.vertices.len() && self.bone_count == model.bones.len()
    }
}

/// The shader's number for a weight kind.
#[must_use]
pub fn kind_number(kind: WeightKind) -> u32 {
    match kind {
        WeightKind::Bdef1 => 0,
        WeightKind::Bdef2 => 1,
        WeightKind::Bdef4 => 2,
        WeightKind::Sdef => 3,
        WeightKind::Qdef => 4,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmx_core::model::{
        BoneIdx, MorphOffsets, PmxVersion, TextEncoding, Vec3, VertexIdx, Weight,
    };

    fn model() -> Model {
        pmx_core::generate::feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 60, 2)
    }

    #[test]
    fn skin_data_holds_each_vertex_as_the_pose_engine_packs_it() {
        let mut model = model();
        let bones = model.bones.len();
        model.vertices[3].weight = Weight::Sdef {
            bones: [Some(BoneIdx::new(1)), Some(BoneIdx::new(bones + 3))],
            weight: 0.25,
            c: Vec3::new(1.0, 2.0, 3.0),
            r0: Vec3::new(0.0, 4.0, 0.0),
            r1: Vec3::new(2.0, 0.0, 0.0),
        };
        model.vertices[4].weight = Weight::Bdef1 { bone: None };
        let (data, _) = SkinData::build(&model);
        assert_eq!(data.bone_count, bones);
        assert_eq!(data.vertices.len(), model.vertices.len());
        let info = |v: usize| (data.vertices.info[v * 2], data.vertices.info[v * 2 + 1]);
        // SDEF: the invalid second bone is the identity slot; C and the corrected points.
        let (sdef_bones, sdef_info) = info(3);
        assert_eq!(sdef_bones[..2], [1, bones as u32]);
        assert_eq!(sdef_info[0], 3);
        let slot = sdef_info[1] as usize;
        let packed = packed_weight(&model.vertices[3].weight, bones);
        let points = packed.sdef.expect("SDEF points");
        for (k, point) in points.iter().enumerate() {
            assert_eq!(data.sdef[slot * 3 + k][..3], point.to_array());
        }
        // I = r0 w0 + r1 w1 = (1.5, 1, 0); r0' = C + r0 - I = (-0.5, 5, 3); (C + r0') / 2.
        assert_eq!(points[1].to_array(), [0.25, 3.5, 3.0]);
        assert_eq!(info(4).0, [bones as u32; 4]);
        assert_eq!(data.vertices.weights[4], [1.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn morph_entries_are_grouped_by_vertex_in_morph_order() {
        let mut model = model();
        let vertex_morphs: Vec<usize> = model
            .morphs
            .iter()
            .enumerate()
            .filter(|(_, m)| matches!(m.offsets, MorphOffsets::Vertex(_)))
            .map(|(i, _)| i)
            .collect();
        assert!(!vertex_morphs.is_empty());
        // Vertex 5 gets an offset from every vertex morph.
        for &m in &vertex_morphs {
            if let MorphOffsets::Vertex(list) = &mut model.morphs[m].offsets {
                list.push(pmx_core::model::VertexMorphOffset {
                    vertex: VertexIdx::new(5),
                    offset: Vec3::new(m as f32, 0.5, 0.0),
                });
            }
        }
        let (data, _) = SkinData::build(&model);
        let (_, rows) = (data.vertices.info[10], data.vertices.info[11]);
        let entries = &data.morph_entries[rows[2] as usize..rows[3] as usize];
        let mine: Vec<f32> = entries
            .iter()
            .filter(|e| e[1] == 0.5 && e[0] == e[3])
            .map(|e| e[3])
            .collect();
        let expected: Vec<f32> = vertex_morphs.iter().map(|&m| m as f32).collect();
        assert_eq!(mine, expected);
        let mut morphs: Vec<f32> = entries.iter().map(|e| e[3]).collect();
        let sorted = {
            let mut s = morphs.clone();
            s.sort_by(f32::total_cmp);
            s
        };
        assert_eq!(morphs, sorted, "in morph order");
        morphs.clear();
    }

    #[test]
    fn a_patch_keeps_sdef_slots_and_gives_new_sdef_vertices_their_own() {
        let mut model = model();
        let (data, mut layout) = SkinData::build(&model);
        let slots = data.sdef.len() / SDEF_TEXELS;
        let sdef = Weight::Sdef {
            bones: [Some(BoneIdx::new(0)), Some(BoneIdx::new(1))],
            weight: 0.5,
            c: Vec3::new(0.0, 1.0, 0.0),
            r0: Vec3::new(0.0, 2.0, 0.0),
            r1: Vec3::new(0.0, 0.0, 0.0),
        };
        model.vertices[7].weight = sdef.clone();
        model.vertices[8].weight = sdef;
        let patch = layout.patch(&model, 7..9);
        assert_eq!(patch.first, 7);
        let new_slots: Vec<u32> = patch.sdef.iter().map(|(slot, _)| *slot).collect();
        let was_sdef = |v: usize| data.vertices.info[v * 2 + 1][0] == 3;
        for (k, v) in [7usize, 8].into_iter().enumerate() {
            if was_sdef(v) {
                assert_eq!(new_slots[k], data.vertices.info[v * 2 + 1][1]);
            } else {
                assert!(new_slots[k] as usize >= slots, "a new slot past the end");
            }
            assert_eq!(patch.vertices.info[k * 2 + 1][1], new_slots[k]);
        }
        assert_ne!(new_slots[0], new_slots[1]);
        // Patched again: the same slots.
        let again = layout.patch(&model, 7..9);
        assert_eq!(again.sdef, patch.sdef);
    }
}
