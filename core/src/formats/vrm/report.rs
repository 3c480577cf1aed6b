//! What a VRM export wrote, and what the VRM cannot hold, in English and Japanese.

use crate::formats::SaveReport;

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
    HumanBoneDropped { bone: &'static str, reason: String },
    /// The model had no bone at the pelvis: `hips` is a new node there.
    HipsAdded,
    /// What the pose engine could not keep when the T-pose became the rest pose.
    TPoseNote { note: String },
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
    TextureMissing { name: String, reason: String },
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
    #[must_use]
    pub fn message_en(&self) -> String {
        match self {
            VrmLoss::SkinningAsLinear { sdef, qdef } => format!(
                "{sdef} SDEF vertices written as BDEF2 and {qdef} QDEF vertices as linear blend weights (glTF skins are linear)"
            ),
            VrmLoss::WeightsNormalised { vertices } => {
                format!("weights of {vertices} vertices normalised to sum 1")
            }
            VrmLoss::WeightsMoved { bones } => format!(
                "weights of {} D-bones and twist bones moved onto the humanoid bones driving them ({}); the bones are not exported",
                bones.len(),
                bones.join(", ")
            ),
            VrmLoss::WeightsMovedToHips { weights } => format!(
                "{weights} vertex weights on bones above the hips (センター, グルーブ...) moved onto the hips, which VRM applications move"
            ),
            VrmLoss::IkBonesDropped { bones } => {
                format!("{bones} IK bones not exported (VRM applications move the humanoid bones)")
            }
            VrmLoss::AppendDropped { bones } => format!(
                "append (付与) of {bones} bones not kept (moves, local appends, ratios outside 0..1, humanoid bones): the bones are exported as plain nodes"
            ),
            VrmLoss::HumanBoneDropped { bone, reason } => {
                format!("humanoid bone {bone} not assigned: {reason}")
            }
            VrmLoss::HipsAdded => {
                "hips is a new node at the pelvis (下半身's position), above 上半身 and 下半身"
                    .into()
            }
            VrmLoss::TPoseNote { note } => format!("T-pose: {note}"),
            VrmLoss::MorphsDropped { kind, count } => {
                format!("{count} {kind} morphs not written (VRM has no place for them)")
            }
            VrmLoss::BoneMorphsBaked { count } => format!(
                "{count} bone morphs written as morph targets (their vertex movement in the T-pose)"
            ),
            VrmLoss::MaterialMorphPartial { morph } => format!(
                "material morph \"{morph}\": only the diffuse colour and alpha and the edge colour are kept (VRM expressions change colours, not specular, ambient, texture tints, edge alpha or edge size)"
            ),
            VrmLoss::UvMorphDropped { morph } => format!(
                "UV morph \"{morph}\" not written: VRM can only shift whole materials' UVs uniformly"
            ),
            VrmLoss::GroupRatioClamped { morph } => {
                format!("group morph \"{morph}\": ratios outside 0..1 clamped")
            }
            VrmLoss::PhysicsNotCarried {
                dynamic_bodies,
                static_bodies,
                joints,
            } => format!(
                "not carried into spring bones: {dynamic_bodies} physics bodies, {static_bodies} follow-bone bodies (no collider), {joints} joints (links across chains and the like)"
            ),
            VrmLoss::SpringWithoutTail { bone } => format!(
                "physics chain ending at \"{bone}\" has no child bone: its last bone does not swing"
            ),
            VrmLoss::SpringChainsCut { chains } => format!(
                "physics chains running through IK, D- or humanoid bones written up to that bone: {}",
                chains.join(", ")
            ),
            VrmLoss::TextureMissing { name, reason } => {
                format!("texture \"{name}\" not embedded: {reason}")
            }
            VrmLoss::SphereDropped { materials } => format!(
                "multiplicative or sub-texture sphere maps of {materials} materials not written (only additive ones become the MToon matcap)"
            ),
            VrmLoss::DegenerateFacesDropped { faces } => {
                format!("{faces} faces with a repeated corner (points, lines) not written")
            }
            VrmLoss::AdditionalUvsDropped { channels } => {
                format!("{channels} additional UV channels not written")
            }
            VrmLoss::EdgeScalesDropped { vertices } => {
                format!("edge scale of {vertices} vertices not written")
            }
            VrmLoss::NormalsReplaced { vertices } => {
                format!("{vertices} zero or invalid vertex normals written as +Y")
            }
        }
    }

    #[must_use]
    pub fn message_ja(&self) -> String {
        match self {
            VrmLoss::SkinningAsLinear { sdef, qdef } => format!(
                "SDEF頂点{sdef}個はBDEF2、QDEF頂点{qdef}個は線形ブレンドとして書き出します(glTFのスキンは線形のみ)"
            ),
            VrmLoss::WeightsNormalised { vertices } => {
                format!("頂点{vertices}個のウェイトを合計1に正規化しました")
            }
            VrmLoss::WeightsMoved { bones } => format!(
                "D系ボーン・捩りボーン{}個のウェイトを、それを動かすヒューマノイドボーンに移しました({})。これらのボーンは書き出しません",
                bones.len(),
                bones.join("、")
            ),
            VrmLoss::WeightsMovedToHips { weights } => format!(
                "hipsより上のボーン(センター・グルーブなど)のウェイト{weights}個をhipsに移しました(VRMのアプリが動かすのはhipsです)"
            ),
            VrmLoss::IkBonesDropped { bones } => format!(
                "IKボーン{bones}個は書き出しません(VRMのアプリはヒューマノイドボーンを直接動かします)"
            ),
            VrmLoss::AppendDropped { bones } => format!(
                "ボーン{bones}個の付与(移動付与・ローカル付与・0〜1外の付与率・ヒューマノイドボーン)は保持されません: 通常のノードとして書き出します"
            ),
            VrmLoss::HumanBoneDropped { bone, reason } => {
                format!("ヒューマノイドボーン{bone}は割り当てません: {reason}")
            }
            VrmLoss::HipsAdded => {
                "hipsは骨盤(下半身の位置)に新しいノードとして作り、上半身と下半身をその下に置きました".into()
            }
            VrmLoss::TPoseNote { note } => format!("Tポーズ: {note}"),
            VrmLoss::MorphsDropped { kind, count } => format!(
                "{}モーフ{count}個は書き出しません(VRMに対応するものがありません)",
                kind_ja(kind)
            ),
            VrmLoss::BoneMorphsBaked { count } => format!(
                "ボーンモーフ{count}個はTポーズでの頂点の動きをモーフターゲットとして書き出します"
            ),
            VrmLoss::MaterialMorphPartial { morph } => format!(
                "材質モーフ「{morph}」: 拡散色(α含む)とエッジ色のみ保持します(VRMの表情はスペキュラ・環境色・テクスチャ係数・エッジのα・エッジサイズを変えられません)"
            ),
            VrmLoss::UvMorphDropped { morph } => format!(
                "UVモーフ「{morph}」は書き出しません(VRMは材質全体のUVの一様な移動のみ扱えます)"
            ),
            VrmLoss::GroupRatioClamped { morph } => {
                format!("グループモーフ「{morph}」: 0〜1の範囲外の係数を範囲内に収めました")
            }
            VrmLoss::PhysicsNotCarried {
                dynamic_bodies,
                static_bodies,
                joints,
            } => format!(
                "スプリングボーンにならないもの: 物理剛体{dynamic_bodies}個、ボーン追従剛体{static_bodies}個(コライダーなし)、ジョイント{joints}個(チェーン間の連結など)"
            ),
            VrmLoss::SpringWithoutTail { bone } => format!(
                "「{bone}」で終わる物理チェーンには子ボーンがありません: 最後のボーンは揺れません"
            ),
            VrmLoss::SpringChainsCut { chains } => format!(
                "IKボーン・Dボーン・ヒューマノイドボーンを通る物理チェーンはそのボーンの手前まで書き出します: {}",
                chains.join("、")
            ),
            VrmLoss::TextureMissing { name, reason } => {
                format!("テクスチャ「{name}」は埋め込めません: {reason}")
            }
            VrmLoss::SphereDropped { materials } => format!(
                "材質{materials}個の乗算・サブテクスチャのスフィアは書き出しません(加算スフィアのみMToonのmatcapにします)"
            ),
            VrmLoss::DegenerateFacesDropped { faces } => {
                format!("頂点が重なる面{faces}個(点・線)は書き出しません")
            }
            VrmLoss::AdditionalUvsDropped { channels } => {
                format!("追加UV{channels}チャンネルは書き出しません")
            }
            VrmLoss::EdgeScalesDropped { vertices } => {
                format!("頂点{vertices}個のエッジ倍率は書き出しません")
            }
            VrmLoss::NormalsReplaced { vertices } => {
                format!("長さ0または不正な頂点法線{vertices}個は+Yとして書き出します")
            }
        }
    }
}

fn kind_ja(kind: &str) -> &str {
    match kind {
        "flip" => "フリップ",
        "impulse" => "インパルス",
        "additional UV" => "追加UV",
        other => other,
    }
}

impl std::fmt::Display for VrmLoss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message_en())
    }
}
