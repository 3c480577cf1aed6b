//! The comment line before each block (PmxEditor's Japanese column names, then ours with `@`)
//! and how many cells each row kind has: PmxEditor's (`*_STD`) and with ours (`*_FULL`). The
//! counts include the row kind's own cell. See the module documentation for the sources.

pub(super) const HEADER: &str = ";PmxHeader,ver,文字エンコード(0:UTF16/1:UTF8),追加UV数,\
@頂点Indexサイズ,@テクスチャIndexサイズ,@材質Indexサイズ,@ボーンIndexサイズ,@モーフIndexサイズ,@剛体Indexサイズ";
pub(super) const HEADER_STD: usize = 4;
pub(super) const HEADER_FULL: usize = 10;

pub(super) const MODEL_INFO: &str = ";PmxModelInfo,モデル名,モデル名(英),コメント,コメント(英)";
pub(super) const MODEL_INFO_STD: usize = 5;

pub(super) const VERTEX: &str = ";PmxVertex,頂点Index,位置_x,位置_y,位置_z,法線_x,法線_y,法線_z,\
エッジ倍率,UV_u,UV_v,追加UV1_x,追加UV1_y,追加UV1_z,追加UV1_w,追加UV2_x,追加UV2_y,追加UV2_z,追加UV2_w,\
追加UV3_x,追加UV3_y,追加UV3_z,追加UV3_w,追加UV4_x,追加UV4_y,追加UV4_z,追加UV4_w,\
ウェイト変形タイプ(0:BDEF1/1:BDEF2/2:BDEF4/3:SDEF/4:QDEF),\
ウェイト1_ボーン名,ウェイト1_ウェイト値,ウェイト2_ボーン名,ウェイト2_ウェイト値,\
ウェイト3_ボーン名,ウェイト3_ウェイト値,ウェイト4_ボーン名,ウェイト4_ウェイト値,\
C_x,C_y,C_z,R0_x,R0_y,R0_z,R1_x,R1_y,R1_z,\
@ウェイト1_ボーンIndex,@ウェイト2_ボーンIndex,@ウェイト3_ボーンIndex,@ウェイト4_ボーンIndex";
pub(super) const VERTEX_STD: usize = 45;
pub(super) const VERTEX_FULL: usize = 49;

pub(super) const TEXTURE: &str = ";;@PmxTexture,テクスチャIndex,テクスチャパス";
pub(super) const TEXTURE_FULL: usize = 3;

pub(super) const MATERIAL: &str = ";PmxMaterial,材質名,材質名(英),拡散色_R,拡散色_G,拡散色_B,拡散色_A(非透過度),\
反射色_R,反射色_G,反射色_B,反射強度,環境色_R,環境色_G,環境色_B,\
両面描画(0/1),地面影(0/1),セルフ影マップ(0/1),セルフ影(0/1),頂点色(0/1),描画(0:Tri/1:Point/2:Line),\
エッジ(0/1),エッジサイズ,エッジ色_R,エッジ色_G,エッジ色_B,エッジ色_A,\
テクスチャパス,スフィアテクスチャパス,スフィアモード(0:無効/1:乗算/2:加算/3:サブテクスチャ),Toonテクスチャパス,メモ,\
@描画フラグ,@テクスチャIndex,@スフィアテクスチャIndex,@共有Toon(0/1),@Toon値,@面頂点数";
pub(super) const MATERIAL_STD: usize = 31;
pub(super) const MATERIAL_FULL: usize = 37;

pub(super) const FACE: &str = ";PmxFace,親材質名,面Index,頂点Index1,頂点Index2,頂点Index3";
pub(super) const FACE_STD: usize = 6;

pub(super) const BONE: &str = ";PmxBone,ボーン名,ボーン名(英),変形階層,物理後(0/1),位置_x,位置_y,位置_z,\
回転(0/1),移動(0/1),IK(0/1),表示(0/1),操作(0/1),親ボーン名,\
表示先(0:オフセット/1:ボーン),表示先ボーン名,表示先オフセット_x,表示先オフセット_y,表示先オフセット_z,\
ローカル付与(0/1),回転付与(0/1),移動付与(0/1),付与率,付与親名,軸制限(0/1),制限軸_x,制限軸_y,制限軸_z,\
ローカル軸(0/1),ローカルX軸_x,ローカルX軸_y,ローカルX軸_z,ローカルZ軸_x,ローカルZ軸_y,ローカルZ軸_z,\
外部親(0/1),外部親Key,IKTarget名,IKLoop,IK単位角[deg],\
@ボーンフラグ,@親ボーンIndex,@表示先ボーンIndex,@付与親Index,@IKTargetIndex,@IK単位角[rad]";
pub(super) const BONE_STD: usize = 40;
pub(super) const BONE_FULL: usize = 46;

pub(super) const IK_LINK: &str = ";PmxIKLink,親ボーン名,Linkボーン名,角度制限(0/1),\
XL[deg],XH[deg],YL[deg],YH[deg],ZL[deg],ZH[deg],\
@LinkボーンIndex,@XL[rad],@YL[rad],@ZL[rad],@XH[rad],@YH[rad],@ZH[rad]";
pub(super) const IK_LINK_STD: usize = 10;
pub(super) const IK_LINK_FULL: usize = 17;

pub(super) const MORPH: &str = ";PmxMorph,モーフ名,モーフ名(英),パネル(0:無効/1:眉(左下)/2:目(左上)/3:口(右上)/4:その他(右下)),\
モーフ種類(0:グループモーフ/1:頂点モーフ/2:ボーンモーフ/3:UV(Tex)モーフ/4:追加UV1モーフ/5:追加UV2モーフ/\
6:追加UV3モーフ/7:追加UV4モーフ/8:材質モーフ/9:フリップモーフ/10:インパルスモーフ)";
pub(super) const MORPH_STD: usize = 5;

pub(super) const VERTEX_MORPH: &str = ";PmxVertexMorph,親モーフ名,オフセットIndex,頂点Index,位置オフセット_x,位置オフセット_y,位置オフセット_z";
pub(super) const VERTEX_MORPH_STD: usize = 7;

pub(super) const UV_MORPH: &str = ";PmxUVMorph,親モーフ名,オフセットIndex,頂点Index,\
UVオフセット_x,UVオフセット_y,UVオフセット_z,UVオフセット_w";
pub(super) const UV_MORPH_STD: usize = 8;

pub(super) const BONE_MORPH: &str = ";PmxBoneMorph,親モーフ名,オフセットIndex,ボーン名,\
移動_x,移動_y,移動_z,回転_x,回転_y,回転_z,回転_w,@ボーンIndex";
pub(super) const BONE_MORPH_STD: usize = 11;
pub(super) const BONE_MORPH_FULL: usize = 12;

pub(super) const MATERIAL_MORPH: &str = ";PmxMaterialMorph,親モーフ名,オフセットIndex,材質名,演算タイプ(0:乗算/1:加算),\
拡散色_R,拡散色_G,拡散色_B,拡散色_A(非透過度),反射色_R,反射色_G,反射色_B,反射強度,環境色_R,環境色_G,環境色_B,\
エッジサイズ,エッジ色_R,エッジ色_G,エッジ色_B,エッジ色_A,Tex_R,Tex_G,Tex_B,Tex_A,\
スフィア_R,スフィア_G,スフィア_B,スフィア_A,Toon_R,Toon_G,Toon_B,Toon_A,@材質Index";
pub(super) const MATERIAL_MORPH_STD: usize = 33;
pub(super) const MATERIAL_MORPH_FULL: usize = 34;

pub(super) const GROUP_MORPH: &str =
    ";PmxGroupMorph,親モーフ名,オフセットIndex,モーフ名,影響度,@モーフIndex";
pub(super) const FLIP_MORPH: &str =
    ";PmxFlipMorph,親モーフ名,オフセットIndex,モーフ名,影響度,@モーフIndex";
pub(super) const GROUP_MORPH_STD: usize = 5;
pub(super) const GROUP_MORPH_FULL: usize = 6;

pub(super) const IMPULSE_MORPH: &str = ";PmxImpulseMorph,親モーフ名,オフセットIndex,剛体Index,ローカル(0/1),\
速度_x,速度_y,速度_z,トルク_x,トルク_y,トルク_z";
pub(super) const IMPULSE_MORPH_STD: usize = 11;

pub(super) const NODE: &str = ";PmxNode,表示枠名,表示枠名(英),@特殊枠(0/1)";
pub(super) const NODE_STD: usize = 3;
pub(super) const NODE_FULL: usize = 4;

pub(super) const NODE_ITEM: &str =
    ";PmxNodeItem,親表示枠名,対象(0:ボーン/1:モーフ),ボーン名／モーフ名,@ボーン／モーフIndex";
pub(super) const NODE_ITEM_STD: usize = 4;
pub(super) const NODE_ITEM_FULL: usize = 5;

pub(super) const BODY: &str = ";PmxBody,剛体名,剛体名(英),関連ボーン名,剛体タイプ(0:Bone/1:物理演算/2:物理演算+ボーン追従),\
グループ(0~15),非衝突グループ文字列(ex:1 2 3 4),形状(0:球/1:箱/2:カプセル),\
サイズ_x,サイズ_y,サイズ_z,位置_x,位置_y,位置_z,回転_x[deg],回転_y[deg],回転_z[deg],\
質量,移動減衰,回転減衰,反発力,摩擦力,@関連ボーンIndex,@回転_x[rad],@回転_y[rad],@回転_z[rad]";
pub(super) const BODY_STD: usize = 22;
pub(super) const BODY_FULL: usize = 26;

pub(super) const JOINT: &str = ";PmxJoint,Joint名,Joint名(英),剛体名A,剛体名B,\
Jointタイプ(0:ﾊﾞﾈ付6DOF/1:6DOF/2:P2P/3:ConeTwist/4:Slider/5:Hinge),\
位置_x,位置_y,位置_z,回転_x[deg],回転_y[deg],回転_z[deg],\
移動下限_x,移動下限_y,移動下限_z,移動上限_x,移動上限_y,移動上限_z,\
回転下限_x[deg],回転下限_y[deg],回転下限_z[deg],回転上限_x[deg],回転上限_y[deg],回転上限_z[deg],\
バネ定数-移動_x,バネ定数-移動_y,バネ定数-移動_z,バネ定数-回転_x,バネ定数-回転_y,バネ定数-回転_z,\
@剛体IndexA,@剛体IndexB,@回転_x[rad],@回転_y[rad],@回転_z[rad],\
@回転下限_x[rad],@回転下限_y[rad],@回転下限_z[rad],@回転上限_x[rad],@回転上限_y[rad],@回転上限_z[rad]";
pub(super) const JOINT_STD: usize = 30;
pub(super) const JOINT_FULL: usize = 41;

pub(super) const SOFT_BODY: &str = ";PmxSoftBody,SoftBody名,SoftBody名(英),形状(0:TriMesh/1:Rope),関連材質名,\
グループ(0~15),非衝突グループ文字列(ex:1 2 3 4),B-Link(0/1),B-Link距離,クラスタ(0/1),クラスタ数,\
リンク交雑(0/1),総質量,衝突マージン,Aero(0-4),VCF,DP,DG,LF,PR,VC,DF,MT,CHR,KHR,SHR,AHR,\
SRHR_CL,SKHR_CL,SSHR_CL,SR_SPLT_CL,SK_SPLT_CL,SS_SPLT_CL,V_IT,P_IT,D_IT,C_IT,LST,AST,VST,\
@関連材質Index,@SoftBodyフラグ";
pub(super) const SOFT_BODY_STD: usize = 40;
pub(super) const SOFT_BODY_FULL: usize = 42;

pub(super) const SOFT_BODY_ANCHOR: &str =
    ";PmxSoftBodyAnchor,親SoftBody名,剛体名,頂点Index,Near(0/1),@剛体Index";
pub(super) const SOFT_BODY_ANCHOR_STD: usize = 5;
pub(super) const SOFT_BODY_ANCHOR_FULL: usize = 6;

pub(super) const SOFT_BODY_PIN: &str = ";PmxSoftBodyPin,親SoftBody名,頂点Index";
pub(super) const SOFT_BODY_PIN_STD: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;

    /// Each comment line names as many columns as the row has.
    #[test]
    fn comments_name_every_column() {
        let lines = [
            (HEADER, HEADER_FULL),
            (MODEL_INFO, MODEL_INFO_STD),
            (VERTEX, VERTEX_FULL),
            (TEXTURE, TEXTURE_FULL),
            (MATERIAL, MATERIAL_FULL),
            (FACE, FACE_STD),
            (BONE, BONE_FULL),
            (IK_LINK, IK_LINK_FULL),
            (MORPH, MORPH_STD),
            (VERTEX_MORPH, VERTEX_MORPH_STD),
            (UV_MORPH, UV_MORPH_STD),
            (BONE_MORPH, BONE_MORPH_FULL),
            (MATERIAL_MORPH, MATERIAL_MORPH_FULL),
            (GROUP_MORPH, GROUP_MORPH_FULL),
            (FLIP_MORPH, GROUP_MORPH_FULL),
            (IMPULSE_MORPH, IMPULSE_MORPH_STD),
            (NODE, NODE_FULL),
            (NODE_ITEM, NODE_ITEM_FULL),
            (BODY, BODY_FULL),
            (JOINT, JOINT_FULL),
            (SOFT_BODY, SOFT_BODY_FULL),
            (SOFT_BODY_ANCHOR, SOFT_BODY_ANCHOR_FULL),
            (SOFT_BODY_PIN, SOFT_BODY_PIN_STD),
        ];
        for (line, count) in lines {
            assert_eq!(line.split(',').count(), count, "{line}");
            let standard = line.split(',').filter(|c| !c.starts_with('@')).count();
            assert!(standard <= count, "{line}");
        }
    }
}
