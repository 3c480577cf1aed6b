//! What a VRM export wrote, and what the VRM cannot hold, as messages (`save.vrm.*`).

use crate::formats::SaveReport;
use crate::i18n::{Language, Message};
use crate::texture::TextureProblem;

/// What the export wrote and what it lost.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VrmExportReport {
    /// Humanoid bones written (hips included).
    pub humanoid_bones: usize,
    /// Nodes of the skeleton (bones and the hips node).
    pub joints: usize,
    pub meshes: usize,
    pub primitives: usize,
    pub morph_targets: usize,
    pub preset_expressions: usize,
    pub custom_expressions: usize,
    pub materials: usize,
    pub images: usize,
    /// The spring bones written from the MMD physics.
    pub springs: SpringCounts,
    /// Append rotations kept as `VRMC_node_constraint` rotation constraints.
    pub node_constraints: usize,
    pub losses: Vec<VrmLoss>,
}

impl VrmExportReport {
    /// The losses as a save report (one message each).
    #[must_use]
    pub fn to_save_report(&self) -> SaveReport {
        SaveReport {
            warnings: self.losses.iter().map(VrmLoss::message).collect(),
        }
    }
}

/// How many of each thing the spring bones hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SpringCounts {
    pub springs: usize,
    pub joints: usize,
    pub colliders: usize,
    pub collider_groups: usize,
    pub cone_limits: usize,
    pub hinge_limits: usize,
    pub spherical_limits: usize,
}

/// One thing the VRM cannot hold, or holds differently.
#[derive(Debug, Clone, PartialEq)]
pub enum VrmLoss {
    /// SDEF vertices written as BDEF2, QDEF vertices as a linear blend.
    SkinningAsLinear { sdef: usize, qdef: usize },
    /// Vertices whose weights did not sum to 1 (or had none): normalised.
    WeightsNormalised { vertices: usize },
    /// D-bones and twist bones: their weights moved onto the humanoid bone driving them.
    WeightsMoved { bones: Vec<String> },
    /// Vertex weights on bones above the hips (センター, グルーブ...), moved onto the hips.
    WeightsMovedToHips { weights: usize },
    /// IK bones: not exported (VRM applications move the humanoid bones themselves).
    IkBonesDropped { bones: usize },
    /// Append (付与) rotations and moves that no node constraint holds (moves, local appends,
    /// ratios outside 0..1, humanoid bones, sources not exported).
    AppendDropped { bones: usize },
    /// An optional humanoid bone found by name but not usable.
    HumanBoneDropped { bone: &'static str, reason: Message },
    /// The model had no bone at the pelvis: `hips` is a new node there.
    HipsAdded,
    /// What the pose engine could not keep when the T-pose became the rest pose.
    TPoseNote { note: Message },
    /// Morphs of a kind VRM has no place for (flip, impulse, additional UV).
    MorphsDropped { kind: &'static str, count: usize },
    /// Bone morphs, baked into morph targets in the T-pose.
    BoneMorphsBaked { count: usize },
    /// Material morph values VRM expressions cannot change (specular, ambient, tints...).
    MaterialMorphPartial { morph: String },
    /// UV morphs that do not shift whole materials uniformly.
    UvMorphDropped { morph: String },
    /// Group morph ratios outside 0..1, clamped.
    GroupRatioClamped { morph: String },
    /// MMD physics no spring bone carries: physics bodies outside every written chain,
    /// follow-bone bodies that are no collider, joints that hang no spring joint (the links
    /// across chains, such as a skirt's rings).
    PhysicsNotCarried {
        dynamic_bodies: usize,
        static_bodies: usize,
        joints: usize,
    },
    /// A physics chain ending at a bone without a child: its last bone has no segment to swing.
    SpringWithoutTail { bone: String },
    /// Physics chains that run through bones that are not nodes (IK or D-bones) or are
    /// humanoid bones: written up to that bone.
    SpringChainsCut { chains: Vec<String> },
    /// A texture that could not be found or decoded.
    TextureMissing { problem: TextureProblem },
    /// Sphere maps other than additive ones (additive ones become the MToon matcap).
    SphereDropped { materials: usize },
    /// Faces repeating a corner (points and lines of PMX 2.1, degenerate triangles).
    DegenerateFacesDropped { faces: usize },
    /// Additional UV channels.
    AdditionalUvsDropped { channels: usize },
    /// Per-vertex edge scales (MToon has a width texture, not a per-vertex scale).
    EdgeScalesDropped { vertices: usize },
    /// Vertex normals that were zero or not finite, written as +Y.
    NormalsReplaced { vertices: usize },
}

impl VrmLoss {
    /// The loss as a message (keys `save.vrm.*`), rendered in the reader's language.
    #[must_use]
    pub fn message(&self) -> Message {
        match self {
            VrmLoss::SkinningAsLinear { sdef, qdef } => Message::new("save.vrm.skinning_as_linear")
                .arg("sdef", *sdef)
                .arg("qdef", *qdef),
            VrmLoss::WeightsNormalised { vertices } => {
                Message::new("save.vrm.weights_normalised").arg("vertices", *vertices)
            }
            VrmLoss::WeightsMoved { bones } => Message::new("save.vrm.weights_moved")
                .arg("count", bones.len())
                .arg("bones", bones.join(", ")),
            VrmLoss::WeightsMovedToHips { weights } => {
                Message::new("save.vrm.weights_moved_to_hips").arg("weights", *weights)
            }
            VrmLoss::IkBonesDropped { bones } => {
                Message::new("save.vrm.ik_bones_dropped").arg("bones", *bones)
            }
            VrmLoss::AppendDropped { bones } => {
                Message::new("save.vrm.append_dropped").arg("bones", *bones)
            }
            VrmLoss::HumanBoneDropped { bone, reason } => {
                Message::new("save.vrm.human_bone_dropped")
                    .arg("bone", *bone)
                    .arg("reason", reason.clone())
            }
            VrmLoss::HipsAdded => Message::new("save.vrm.hips_added"),
            VrmLoss::TPoseNote { note } => {
                Message::new("save.vrm.t_pose_note").arg("note", note.clone())
            }
            VrmLoss::MorphsDropped { kind, count } => Message::new("save.vrm.morphs_dropped")
                .word("kind", morph_kind_key(kind))
                .arg("count", *count),
            VrmLoss::BoneMorphsBaked { count } => {
                Message::new("save.vrm.bone_morphs_baked").arg("count", *count)
            }
            VrmLoss::MaterialMorphPartial { morph } => {
                Message::new("save.vrm.material_morph_partial").arg("morph", morph)
            }
            VrmLoss::UvMorphDropped { morph } => {
                Message::new("save.vrm.uv_morph_dropped").arg("morph", morph)
            }
            VrmLoss::GroupRatioClamped { morph } => {
                Message::new("save.vrm.group_ratio_clamped").arg("morph", morph)
            }
            VrmLoss::PhysicsNotCarried {
                dynamic_bodies,
                static_bodies,
                joints,
            } => Message::new("save.vrm.physics_not_carried")
                .arg("dynamic_bodies", *dynamic_bodies)
                .arg("static_bodies", *static_bodies)
                .arg("joints", *joints),
            VrmLoss::SpringWithoutTail { bone } => {
                Message::new("save.vrm.spring_without_tail").arg("bone", bone)
            }
            VrmLoss::SpringChainsCut { chains } => {
                Message::new("save.vrm.spring_chains_cut").arg("chains", chains.join(", "))
            }
            VrmLoss::TextureMissing { problem } => match problem {
                TextureProblem::NotFound { name } => {
                    Message::new("save.vrm.texture_not_found").arg("name", name)
                }
                TextureProblem::Unreadable { name, message } => {
                    Message::new("save.vrm.texture_unreadable")
                        .arg("name", name)
                        .arg("error", message)
                }
                TextureProblem::Undecodable { name, message } => {
                    Message::new("save.vrm.texture_undecodable")
                        .arg("name", name)
                        .arg("error", message)
                }
            },
            VrmLoss::SphereDropped { materials } => {
                Message::new("save.vrm.sphere_dropped").arg("materials", *materials)
            }
            VrmLoss::DegenerateFacesDropped { faces } => {
                Message::new("save.vrm.degenerate_faces_dropped").arg("faces", *faces)
            }
            VrmLoss::AdditionalUvsDropped { channels } => {
                Message::new("save.vrm.additional_uvs_dropped").arg("channels", *channels)
            }
            VrmLoss::EdgeScalesDropped { vertices } => {
                Message::new("save.vrm.edge_scales_dropped").arg("vertices", *vertices)
            }
            VrmLoss::NormalsReplaced { vertices } => {
                Message::new("save.vrm.normals_replaced").arg("vertices", *vertices)
            }
        }
    }

    /// [`Self::message`] in English.
    #[must_use]
    pub fn message_en(&self) -> String {
        self.message().render(Language::English)
    }

    /// [`Self::message`] in Japanese.
    #[must_use]
    pub fn message_ja(&self) -> String {
        self.message().render(Language::Japanese)
    }
}

/// The word for a morph kind [`VrmLoss::MorphsDropped`] names.
fn morph_kind_key(kind: &str) -> &'static str {
    match kind {
        "flip" => "save.vrm.word.flip",
        "impulse" => "save.vrm.word.impulse",
        _ => "save.vrm.word.additional_uv",
    }
}

impl std::fmt::Display for VrmLoss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message_en())
    }
}
