//! PmxEditor's CSV form: PMX → CSV → PMX gives the same bytes for every corpus PMX and the
//! generated models (in UTF-8 and Shift_JIS); a CSV as PmxEditor writes it (standard columns
//! only, references by name, Shift_JIS) reads into the model it describes; bad input gives an
//! error with its line and column, never a panic.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::csv::{self, CsvEncoding, CsvSaveOptions};
use pmx_core::formats::pmx::{self, IndexSizeMode, PmxSaveOptions};
use pmx_core::formats::{ReadError, cp932};
use pmx_core::generate::{feature_model, sample_model};
use pmx_core::model::*;
use pmx_tests::{corpus_dir, files_with_extension};

const KEEP: PmxSaveOptions = PmxSaveOptions {
    version: None,
    encoding: None,
    index_sizes: IndexSizeMode::Keep,
    allow_version_violations: true,
};

/// PMX bytes → CSV (each encoding) → PMX bytes, which must be `bytes`.
fn assert_csv_round_trip(bytes: &[u8], name: &str) {
    let (model, _) =
        pmx::read(bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
    for encoding in [CsvEncoding::Utf8Bom, CsvEncoding::ShiftJis] {
        let text = csv::write_bytes(&model, &CsvSaveOptions { encoding })
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let (back, _) = csv::read(&text).unwrap_or_else(|e| panic!("{name} ({encoding:?}): {e}"));
        let (written, _) = pmx::write(&back, &KEEP).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            written == bytes,
            "{name} ({encoding:?}): PMX → CSV → PMX differs at byte {:?}",
            written.iter().zip(bytes).position(|(a, b)| a != b)
        );
        // And the CSV written again from the model read back is the same text.
        let again = csv::write_bytes(&back, &CsvSaveOptions { encoding }).expect("writes");
        assert!(again == text, "{name} ({encoding:?}): CSV → CSV differs");
    }
}

#[test]
fn corpus_pmx_round_trips_through_csv() {
    let Some(dir) = corpus_dir("pmx") else { return };
    let files = files_with_extension(&dir, "pmx");
    assert!(
        files.len() >= 14,
        "expected 14 corpus PMX files, found {}",
        files.len()
    );
    for path in files {
        let bytes = std::fs::read(&path).expect("corpus file reads");
        assert_csv_round_trip(&bytes, &path.display().to_string());
    }
}

/// A model with everything a CSV could get wrong: repeated and empty names, names with
/// commas, quotes, line breaks and escapes of our own, undecodable text, dangling and negative
/// indices, NaN payloads, negative zero, unknown flag bits and enum values.
fn awkward_model() -> Model {
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 40, 14);
    model.info.name_ja = Text::Undecodable {
        encoding: TextEncoding::Utf16,
        raw: vec![0x00, 0xD8, 0x41, 0x00],
    };
    model.info.comment_ja = "一行目\r\n二行目\n\\r literal, \"quoted\"\t😀 ¥".into();
    model.info.comment_en = "\\~looks escaped".into();
    let bone_name = model.bones[2].name_ja.clone();
    model.bones[3].name_ja = bone_name; // a repeated name
    model.bones[4].name_ja = "".into();
    model.bones[5].name_ja = "comma, \"quote\"\r\nbreak".into();
    model.bones[1].parent = BoneIdx::from_raw(-5);
    model.bones[6].parent = BoneIdx::from_raw(120);
    model.bones[6].flags = BoneFlags::from_bits_retain(0xC0FF);
    model.vertices[0].position = Vec3::new(
        f32::from_bits(0x7fc0_0001),
        -0.0,
        f32::from_bits(0xffc0_0000),
    );
    model.vertices[1].weight = Weight::Bdef1 {
        bone: BoneIdx::from_raw(3),
    };
    model.vertices[2].edge_scale = f32::NEG_INFINITY;
    if let Some(material) = model.materials.first_mut() {
        material.toon = Toon::Shared(200);
        material.draw_flags = DrawFlags::from_bits_retain(0xFF);
        material.memo = "memo\r\nwith \\n and a\rlone CR".into();
        material.name_ja = Text::Undecodable {
            encoding: TextEncoding::Utf8,
            raw: vec![0xff, 0xfe],
        };
    }
    model.textures.push("tex\\normal.png".into());
    model.textures.push("tex\\normal.png".into()); // a repeated path
    model.textures.push("".into());
    model
}

#[test]
fn generated_models_round_trip_through_csv() {
    let mut models = vec![
        ("sample".to_owned(), sample_model()),
        ("awkward".to_owned(), awkward_model()),
    ];
    for version in [PmxVersion::V2_0, PmxVersion::V2_1] {
        for encoding in [TextEncoding::Utf16, TextEncoding::Utf8] {
            // Counts at the index-size boundaries (1 and 2 bytes).
            for (vertices, others) in [(12, 10), (256, 128), (300, 130)] {
                models.push((
                    format!("feature {version:?} {encoding:?} {vertices}/{others}"),
                    feature_model(version, encoding, vertices, others),
                ));
            }
        }
    }
    for (name, model) in models {
        let (bytes, _) = pmx::write(&model, &KEEP).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_csv_round_trip(&bytes, &name);
    }
}

/// A CSV as PmxEditor writes it: its columns only, references by name, degrees, faces under
/// their material's name, `\r\n` in comments, Shift_JIS.
const PMX_EDITOR_CSV: &str = r#";PmxHeader,ver,文字エンコード(0:UTF16/1:UTF8),追加UV数
PmxHeader,2.0,0,1
;PmxModelInfo,モデル名,モデル名(英),コメント,コメント(英)
PmxModelInfo,"テストモデル","Test model","一行目\r\n二行目",""
;PmxVertex,頂点Index,位置_x,位置_y,位置_z,法線_x,法線_y,法線_z,エッジ倍率,UV_u,UV_v,追加UV1_x,追加UV1_y,追加UV1_z,追加UV1_w,追加UV2_x,追加UV2_y,追加UV2_z,追加UV2_w,追加UV3_x,追加UV3_y,追加UV3_z,追加UV3_w,追加UV4_x,追加UV4_y,追加UV4_z,追加UV4_w,ウェイト変形タイプ(0:BDEF1/1:BDEF2/2:BDEF4/3:SDEF/4:QDEF),ウェイト1_ボーン名,ウェイト1_ウェイト値,ウェイト2_ボーン名,ウェイト2_ウェイト値,ウェイト3_ボーン名,ウェイト3_ウェイト値,ウェイト4_ボーン名,ウェイト4_ウェイト値,C_x,C_y,C_z,R0_x,R0_y,R0_z,R1_x,R1_y,R1_z
PmxVertex,0,0,0,0,0,1,0,1,0,0,0.5,0.25,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,"センター",1,"",0,"",0,"",0,0,0,0,0,0,0,0,0,0
PmxVertex,1,1,0,0,0,1,0,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,"センター",0.75,"上半身",0.25,"",0,"",0,0,0,0,0,0,0,0,0,0
PmxVertex,2,0,1,0,0,1,0,0.5,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,3,"上半身",0.5,"センター",0.5,"",0,"",0,0,1,0,0,1.5,0,0,0.5,0
PmxVertex,3,1,1,0,0,1,0,1,1,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"左足ＩＫ",1,"",0,"",0,"",0,0,0,0,0,0,0,0,0,0
;PmxMaterial,材質名,材質名(英),拡散色_R,拡散色_G,拡散色_B,拡散色_A(非透過度),反射色_R,反射色_G,反射色_B,反射強度,環境色_R,環境色_G,環境色_B,両面描画(0/1),地面影(0/1),セルフ影マップ(0/1),セルフ影(0/1),頂点色(0/1),描画(0:Tri/1:Point/2:Line),エッジ(0/1),エッジサイズ,エッジ色_R,エッジ色_G,エッジ色_B,エッジ色_A,テクスチャパス,スフィアテクスチャパス,スフィアモード(0:無効/1:乗算/2:加算/3:サブテクスチャ),Toonテクスチャパス,メモ
PmxMaterial,"肌","skin",1,0.8,0.7,1,0.1,0.1,0.1,5,0.5,0.4,0.35,1,1,1,1,0,0,1,0.5,0,0,0,1,"tex\face.png","tex\sphere.spa",2,"toon03.bmp","メモ\r\n二行目"
PmxMaterial,"髪","hair",0.2,0.2,0.2,1,0,0,0,10,0.1,0.1,0.1,0,1,0,1,0,0,0,1,0,0,0,1,"tex\face.png","",0,"tex\toon_hair.bmp",""
;PmxFace,親材質名,面Index,頂点Index1,頂点Index2,頂点Index3
PmxFace,"髪",0,1,3,2
;PmxFace,親材質名,面Index,頂点Index1,頂点Index2,頂点Index3
PmxFace,"肌",0,0,1,2
PmxFace,"肌",1,2,1,3
;PmxBone,ボーン名,ボーン名(英),変形階層,物理後(0/1),位置_x,位置_y,位置_z,回転(0/1),移動(0/1),IK(0/1),表示(0/1),操作(0/1),親ボーン名,表示先(0:オフセット/1:ボーン),表示先ボーン名,表示先オフセット_x,表示先オフセット_y,表示先オフセット_z,ローカル付与(0/1),回転付与(0/1),移動付与(0/1),付与率,付与親名,軸制限(0/1),制限軸_x,制限軸_y,制限軸_z,ローカル軸(0/1),ローカルX軸_x,ローカルX軸_y,ローカルX軸_z,ローカルZ軸_x,ローカルZ軸_y,ローカルZ軸_z,外部親(0/1),外部親Key,IKTarget名,IKLoop,IK単位角[deg]
PmxBone,"センター","center",0,0,0,8,0,1,1,0,1,1,"",0,"",0,-1,0,0,0,0,1,"",0,1,0,0,0,1,0,0,0,0,1,0,0,"",0,0
PmxBone,"上半身","upper body",0,0,0,10,0,1,0,0,1,1,"センター",1,"センター",0,0,0,0,1,0,0.5,"センター",1,0,1,0,0,1,0,0,0,0,1,0,0,"",0,0
PmxBone,"左足ＩＫ","leg IK_L",1,1,1,1,0,1,1,1,1,1,"センター",0,"",0,0,1,0,0,0,1,"",0,1,0,0,0,1,0,0,0,0,1,1,3,"上半身",40,114.5916
;PmxIKLink,親ボーン名,Linkボーン名,角度制限(0/1),XL[deg],XH[deg],YL[deg],YH[deg],ZL[deg],ZH[deg]
PmxIKLink,"左足ＩＫ","上半身",1,-180,-0.5,0,0,0,0
PmxIKLink,"左足ＩＫ","センター",0,0,0,0,0,0,0
;PmxMorph,モーフ名,モーフ名(英),パネル(0:無効/1:眉(左下)/2:目(左上)/3:口(右上)/4:その他(右下)),モーフ種類(0:グループモーフ/1:頂点モーフ/2:ボーンモーフ/3:UV(Tex)モーフ/4:追加UV1モーフ/5:追加UV2モーフ/6:追加UV3モーフ/7:追加UV4モーフ/8:材質モーフ/9:フリップモーフ/10:インパルスモーフ)
PmxMorph,"あ","a",3,1
;PmxVertexMorph,親モーフ名,オフセットIndex,頂点Index,位置オフセット_x,位置オフセット_y,位置オフセット_z
PmxVertexMorph,"あ",0,2,0,-0.25,0
;PmxMorph,モーフ名,モーフ名(英),パネル,モーフ種類
PmxMorph,"お辞儀","bow",4,2
;PmxBoneMorph,親モーフ名,オフセットIndex,ボーン名,移動_x,移動_y,移動_z,回転_x,回転_y,回転_z,回転_w
PmxBoneMorph,"お辞儀",0,"上半身",0,0,0,0.3826834,0,0,0.9238795
;PmxMorph,モーフ名,モーフ名(英),パネル,モーフ種類
PmxMorph,"暗く","dark",4,8
;PmxMaterialMorph,親モーフ名,オフセットIndex,材質名,演算タイプ(0:乗算/1:加算),拡散色_R,拡散色_G,拡散色_B,拡散色_A(非透過度),反射色_R,反射色_G,反射色_B,反射強度,環境色_R,環境色_G,環境色_B,エッジサイズ,エッジ色_R,エッジ色_G,エッジ色_B,エッジ色_A,Tex_R,Tex_G,Tex_B,Tex_A,スフィア_R,スフィア_G,スフィア_B,スフィア_A,Toon_R,Toon_G,Toon_B,Toon_A
PmxMaterialMorph,"暗く",0,"髪",0,0.5,0.5,0.5,1,1,1,1,1,1,1,1,2,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1
PmxMaterialMorph,"暗く",1,"",1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0
;PmxMorph,モーフ名,モーフ名(英),パネル,モーフ種類
PmxMorph,"全部","all",4,0
;PmxGroupMorph,親モーフ名,オフセットIndex,モーフ名,影響度
PmxGroupMorph,"全部",0,"あ",1
PmxGroupMorph,"全部",1,"暗く",0.5
;PmxNode,表示枠名,表示枠名(英)
PmxNode,"Root","Root"
;PmxNodeItem,親表示枠名,対象(0:ボーン/1:モーフ),ボーン名／モーフ名
PmxNodeItem,"Root",0,"センター"
;PmxNode,表示枠名,表示枠名(英)
PmxNode,"表情","Exp"
PmxNodeItem,"表情",1,"あ"
PmxNodeItem,"表情",1,"全部"
PmxNode,"体","body"
PmxNodeItem,"体",0,"上半身"
;PmxBody,剛体名,剛体名(英),関連ボーン名,剛体タイプ(0:Bone/1:物理演算/2:物理演算+ボーン追従),グループ(0~15),非衝突グループ文字列(ex:1 2 3 4),形状(0:球/1:箱/2:カプセル),サイズ_x,サイズ_y,サイズ_z,位置_x,位置_y,位置_z,回転_x[deg],回転_y[deg],回転_z[deg],質量,移動減衰,回転減衰,反発力,摩擦力
PmxBody,"上半身","upper",上半身,0,2,"1 3 16",1,1,2,3,0,10,0,90,0,-45,1,0.5,0.5,0,0.5
PmxBody,"髪1","hair1","",2,3,"",2,0.5,1,0,0,12,1,0,0,0,0.25,0.9,0.9,0,0
;PmxJoint,Joint名,Joint名(英),剛体名A,剛体名B,Jointタイプ(0:ﾊﾞﾈ付6DOF/1:6DOF/2:P2P/3:ConeTwist/4:Slider/5:Hinge/),位置_x,位置_y,位置_z,回転_x[deg],回転_y[deg],回転_z[deg],移動下限_x,移動下限_y,移動下限_z,移動上限_x,移動上限_y,移動上限_z,回転下限_x[deg],回転下限_y[deg],回転下限_z[deg],回転上限_x[deg],回転上限_y[deg],回転上限_z[deg],バネ定数-移動_x,バネ定数-移動_y,バネ定数-移動_z,バネ定数-回転_x,バネ定数-回転_y,バネ定数-回転_z
PmxJoint,"首","neck","上半身","髪1",0,0,11,0,0,180,0,0,0,0,0,0,0,-30,-10,-5,30,10,5,0,0,0,50,50,50
"#;

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-5
}

#[test]
fn reads_a_csv_as_pmx_editor_writes_it() {
    let bytes = cp932::encode(PMX_EDITOR_CSV).expect("the fixture is Shift_JIS text");
    let (model, _) = csv::read(&bytes).unwrap_or_else(|e| panic!("{e}"));

    assert_eq!(model.header.version, PmxVersion::V2_0);
    assert_eq!(model.header.encoding, TextEncoding::Utf16);
    assert_eq!(model.header.index_sizes, None);
    assert_eq!(model.info.name_ja, Text::from("テストモデル"));
    assert_eq!(model.info.comment_ja, Text::from("一行目\r\n二行目"));

    // Vertices: weights by bone name, the one additional UV channel.
    assert_eq!(model.vertices.len(), 4);
    assert_eq!(model.additional_uvs.len(), 1);
    assert_eq!(model.additional_uvs[0][0], Vec4::new(0.5, 0.25, 0.0, 1.0));
    let (center, upper, leg_ik) = (
        Some(BoneIdx::new(0)),
        Some(BoneIdx::new(1)),
        Some(BoneIdx::new(2)),
    );
    assert_eq!(model.vertices[0].weight, Weight::Bdef1 { bone: center });
    assert_eq!(
        model.vertices[1].weight,
        Weight::Bdef2 {
            bones: [center, upper],
            weight: 0.75
        }
    );
    assert_eq!(
        model.vertices[2].weight,
        Weight::Sdef {
            bones: [upper, center],
            weight: 0.5,
            c: Vec3::new(0.0, 1.0, 0.0),
            r0: Vec3::new(0.0, 1.5, 0.0),
            r1: Vec3::new(0.0, 0.5, 0.0),
        }
    );
    assert_eq!(model.vertices[2].edge_scale, 0.5);
    assert_eq!(model.vertices[3].weight, Weight::Bdef1 { bone: leg_ik });

    // Textures from the paths in order of first use; shared toon by name.
    assert_eq!(
        model.textures,
        vec![
            Text::from("tex\\face.png"),
            Text::from("tex\\sphere.spa"),
            Text::from("tex\\toon_hair.bmp"),
        ]
    );
    let skin = &model.materials[0];
    assert_eq!(skin.name_en, Text::from("skin"));
    assert_eq!(skin.texture, Some(TextureIdx::new(0)));
    assert_eq!(skin.sphere_texture, Some(TextureIdx::new(1)));
    assert_eq!(skin.sphere_mode, SphereMode::Add);
    assert_eq!(skin.toon, Toon::Shared(2));
    assert_eq!(skin.memo, Text::from("メモ\r\n二行目"));
    assert_eq!(
        skin.draw_flags,
        DrawFlags::DOUBLE_SIDED
            | DrawFlags::GROUND_SHADOW
            | DrawFlags::DRAW_TO_SHADOW_MAP
            | DrawFlags::DRAW_SELF_SHADOW
            | DrawFlags::EDGE
    );
    assert_eq!(skin.edge_size, 0.5);
    let hair = &model.materials[1];
    assert_eq!(hair.texture, Some(TextureIdx::new(0)));
    assert_eq!(hair.sphere_texture, None);
    assert_eq!(hair.toon, Toon::Texture(Some(TextureIdx::new(2))));
    assert_eq!(
        hair.draw_flags,
        DrawFlags::GROUND_SHADOW | DrawFlags::DRAW_SELF_SHADOW
    );

    // Faces grouped in material order (the hair face came first in the file).
    assert_eq!(skin.face_index_count, 6);
    assert_eq!(hair.face_index_count, 3);
    let v = |a, b, c| [VertexIdx(a), VertexIdx(b), VertexIdx(c)];
    assert_eq!(model.faces, vec![v(0, 1, 2), v(2, 1, 3), v(1, 3, 2)]);

    // Bones: names, flags from the 0/1 columns, references by name, degrees.
    let bones = &model.bones;
    assert_eq!(bones.len(), 3);
    assert_eq!(bones[0].parent, None);
    assert_eq!(
        bones[0].flags,
        BoneFlags::ROTATABLE | BoneFlags::MOVABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE
    );
    assert_eq!(bones[0].tail_offset, Vec3::new(0.0, -1.0, 0.0));
    assert_eq!(bones[1].parent, center);
    assert_eq!(bones[1].tail_bone, center);
    assert_eq!(bones[1].append_parent, center);
    assert_eq!(bones[1].append_ratio, 0.5);
    assert_eq!(
        bones[1].flags,
        BoneFlags::ROTATABLE
            | BoneFlags::VISIBLE
            | BoneFlags::OPERABLE
            | BoneFlags::TAIL_IS_BONE
            | BoneFlags::APPEND_ROTATE
            | BoneFlags::FIXED_AXIS
    );
    assert_eq!(bones[1].fixed_axis, Vec3::new(0.0, 1.0, 0.0));
    let ik = &bones[2];
    assert_eq!(ik.layer, 1);
    assert!(
        ik.flags
            .contains(BoneFlags::IK | BoneFlags::AFTER_PHYSICS | BoneFlags::EXTERNAL_PARENT)
    );
    assert_eq!(ik.external_parent_key, 3);
    assert_eq!(ik.ik.target, upper);
    assert_eq!(ik.ik.loop_count, 40);
    assert!(close(ik.ik.limit_angle, 2.0), "{}", ik.ik.limit_angle);
    assert_eq!(ik.ik.links.len(), 2);
    assert_eq!(ik.ik.links[0].bone, upper);
    let limits = ik.ik.links[0].limits.expect("limited");
    assert!(close(limits.lower.x, -std::f32::consts::PI));
    assert!(close(limits.upper.x, (-0.5f32).to_radians()));
    assert_eq!(ik.ik.links[1].bone, center);
    assert_eq!(ik.ik.links[1].limits, None);

    // Morphs of four kinds, offsets by name.
    let morphs = &model.morphs;
    assert_eq!(morphs.len(), 4);
    assert_eq!(morphs[0].panel, MorphPanel::Mouth);
    assert_eq!(
        morphs[0].offsets,
        MorphOffsets::Vertex(vec![VertexMorphOffset {
            vertex: VertexIdx(2),
            offset: Vec3::new(0.0, -0.25, 0.0)
        }])
    );
    let MorphOffsets::Bone(bone_offsets) = &morphs[1].offsets else {
        panic!("a bone morph")
    };
    assert_eq!(bone_offsets[0].bone, upper);
    assert_eq!(bone_offsets[0].rotation.w, 0.923_879_5);
    let MorphOffsets::Material(material_offsets) = &morphs[2].offsets else {
        panic!("a material morph")
    };
    assert_eq!(material_offsets[0].material, Some(MaterialIdx::new(1)));
    assert_eq!(material_offsets[0].op, MaterialMorphOp::Multiply);
    assert_eq!(material_offsets[0].edge_size, 2.0);
    assert_eq!(material_offsets[1].material, None);
    assert_eq!(material_offsets[1].op, MaterialMorphOp::Add);
    assert_eq!(
        morphs[3].offsets,
        MorphOffsets::Group(vec![
            GroupMorphOffset {
                morph: Some(MorphIdx::new(0)),
                ratio: 1.0
            },
            GroupMorphOffset {
                morph: Some(MorphIdx::new(2)),
                ratio: 0.5
            },
        ])
    );

    // Display frames: Root and 表情 are the special ones.
    let frames = &model.display_frames;
    assert_eq!(frames.len(), 3);
    assert!(frames[0].special && frames[1].special && !frames[2].special);
    assert_eq!(frames[0].items, vec![DisplayItem::Bone(center)]);
    assert_eq!(
        frames[1].items,
        vec![
            DisplayItem::Morph(Some(MorphIdx::new(0))),
            DisplayItem::Morph(Some(MorphIdx::new(3)))
        ]
    );
    assert_eq!(frames[2].items, vec![DisplayItem::Bone(upper)]);

    // Rigid bodies and joints: names, the non-collision groups, degrees.
    let body = &model.rigid_bodies[0];
    assert_eq!(body.bone, upper);
    assert_eq!(body.mode, RigidMode::FollowBone);
    assert_eq!(body.group, 2);
    assert_eq!(body.non_collision_mask, !(1u16 | 4 | 0x8000));
    assert_eq!(body.shape, RigidShape::Box);
    assert!(close(body.rotation.x, std::f32::consts::FRAC_PI_2));
    assert!(close(body.rotation.z, -std::f32::consts::FRAC_PI_4));
    let hair_body = &model.rigid_bodies[1];
    assert_eq!(hair_body.bone, None);
    assert_eq!(hair_body.mode, RigidMode::PhysicsWithBone);
    assert_eq!(hair_body.non_collision_mask, 0xFFFF);
    assert_eq!(hair_body.shape, RigidShape::Capsule);
    let joint = &model.joints[0];
    assert_eq!(joint.body_a, Some(RigidBodyIdx::new(0)));
    assert_eq!(joint.body_b, Some(RigidBodyIdx::new(1)));
    assert_eq!(joint.kind, JointKind::Spring6Dof);
    assert!(close(joint.rotation.y, std::f32::consts::PI));
    assert!(close(joint.rotate_lower.x, (-30f32).to_radians()));
    assert!(close(joint.rotate_upper.z, 5f32.to_radians()));
    assert_eq!(joint.spring_rotate, Vec3::new(50.0, 50.0, 50.0));

    // PmxEditor's file as UTF-8 (with and without a BOM) reads the same.
    let (utf8, _) = csv::read(PMX_EDITOR_CSV.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(utf8, model);
    let with_bom = [b"\xEF\xBB\xBF".as_slice(), PMX_EDITOR_CSV.as_bytes()].concat();
    let (bom, _) = csv::read(&with_bom).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bom, model);

    // And the model writes as a PMX and comes back the same through our CSV.
    let (pmx_bytes, _) = pmx::write(&model, &KEEP).expect("writes");
    assert_csv_round_trip(&pmx_bytes, "PmxEditor fixture");
}

/// The error of reading `text`: it must be a CSV parse error at `line` (and `column` when
/// given) whose message contains `needle`.
fn assert_error(text: &str, line: usize, column: Option<usize>, needle: &str) {
    let error = csv::read(text.as_bytes())
        .err()
        .unwrap_or_else(|| panic!("{text:?} read"));
    let ReadError::Parse {
        line: at_line,
        column: at_column,
        message,
        ..
    } = &error
    else {
        panic!("{error}")
    };
    assert_eq!(*at_line, line, "{error}");
    if let Some(column) = column {
        assert_eq!(*at_column, column, "{error}");
    }
    assert!(message.contains(needle), "{error} (expected {needle:?})");
}

#[test]
fn bad_input_is_an_error_with_its_line_and_column() {
    let header = "PmxHeader,2.0,0,0\n";
    let vertex = "PmxVertex,0,0,0,0,0,1,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,\"\",1,\"\",0,\"\",0,\"\",0,0,0,0,0,0,0,0,0,0";
    // A well-formed start, to show the errors are about the row.
    assert!(csv::read(format!("{header}{vertex}\n").as_bytes()).is_ok());

    // Wrong column counts (a truncated row, a row with one cell too many).
    assert_error(
        &format!("{header}{}\n", &vertex[..40]),
        2,
        None,
        "columns; expected 45",
    );
    assert_error(
        &format!("{header}{vertex},1,2\n"),
        2,
        Some(48),
        "expected 45",
    );
    assert_error(
        &format!("{header}PmxBone,\"a\"\n"),
        2,
        Some(3),
        "expected 40",
    );
    // Bad numbers, flags and enum values.
    assert_error(
        &format!("{header}{}\n", vertex.replacen(",1,0,0,", ",1,zero,0,", 1)),
        2,
        Some(10),
        "UV_u",
    );
    assert_error("PmxHeader,3.0,0,0\n", 1, Some(2), "not 2.0 or 2.1");
    assert_error("PmxHeader,2.0,7,0\n", 1, Some(3), "encoding 7");
    assert_error("PmxHeader,2.0,0,5\n", 1, Some(4), "at most 4");
    assert_error(
        "PmxHeader,2.0,0,0,1,2,3,4,1,1\n",
        1,
        Some(7),
        "not 1, 2 or 4",
    );
    assert_error(
        &format!(
            "{header}{}\n",
            vertex.replacen(",0,\"\",1,", ",9,\"\",1,", 1)
        ),
        2,
        Some(28),
        "weight type 9",
    );
    assert_error("PmxMorph,\"m\",\"\",4,11\n", 1, Some(5), "morph kind 11");
    assert_error(
        "PmxNode,\"f\",\"\"\nPmxNodeItem,\"f\",2,\"x\"\n",
        2,
        Some(3),
        "not 0 or 1",
    );
    assert_error(
        "PmxBody,\"b\",\"\",\"\",0,0,\"1 17\",0,1,1,1,0,0,0,0,0,0,1,0,0,0,0\n",
        1,
        Some(7),
        "not a group",
    );
    // Unknown row kinds, broken quoting and escapes.
    assert_error("PmxSomething,1,2\n", 1, Some(1), "unknown row kind");
    assert_error(";@PmxNothing,1\n", 1, Some(1), "unknown row kind");
    assert_error(
        "PmxModelInfo,\"open,\"\",\"\",\"\"\n",
        1,
        Some(2),
        "not closed",
    );
    assert_error(
        "PmxModelInfo,\"a\"b,\"\",\"\",\"\"\n",
        1,
        Some(2),
        "after a closing quote",
    );
    assert_error(
        "PmxModelInfo,\"\\~bad \\q\",\"\",\"\",\"\"\n",
        1,
        Some(2),
        "unknown escape",
    );
    assert_error(
        "PmxModelInfo,\"\\#utf8:zz\",\"\",\"\",\"\"\n",
        1,
        Some(2),
        "hex",
    );
    // Huge or out-of-order indices: refused or kept as a dangling value, never allocated.
    assert_error(
        &format!(
            "{header}{}\n",
            vertex.replacen("PmxVertex,0,", "PmxVertex,4000000000,", 1)
        ),
        2,
        Some(2),
        "out of order",
    );
    assert_error(
        ";@PmxTexture,2147483647,\"a.png\"\n",
        1,
        Some(2),
        "out of order",
    );
    assert_error(
        "PmxFace,\"\",0,0,1,99999999999\n",
        1,
        Some(6),
        "not a whole number",
    );
    let dangling = csv::read(b"PmxFace,\"\",0,0,1,4294967295\n").expect("a dangling index reads");
    assert_eq!(dangling.0.faces[0][2], VertexIdx(u32::MAX));
    // References: a child row without its parent, a name nobody has.
    assert_error(
        "PmxIKLink,\"nobody\",\"\",0,0,0,0,0,0,0\n",
        1,
        Some(2),
        "no PmxBone named",
    );
    assert_error(
        "PmxBone,\"a\",\"\",0,0,0,0,0,1,1,0,1,1,\"ghost\",0,\"\",0,0,0,0,0,0,1,\"\",0,1,0,0,0,1,0,0,0,0,1,0,0,\"\",0,0\n",
        1,
        Some(14),
        "no bone named",
    );
    assert_error(
        "PmxMorph,\"m\",\"\",4,1\nPmxBoneMorph,\"m\",0,\"\",0,0,0,0,0,0,1\n",
        2,
        Some(1),
        "of kind Vertex",
    );
    assert_error(
        "PmxFace,\"nowhere\",0,0,1,2\nPmxMaterial,\"m\",\"\",1,1,1,1,0,0,0,5,0,0,0,0,1,1,1,0,0,0,1,0,0,0,1,\"\",\"\",0,\"\",\"\"\n",
        1,
        Some(2),
        "no material named",
    );
    assert_error(
        "PmxHeader,2.0,0,0\nPmxHeader,2.0,0,0\n",
        2,
        Some(1),
        "second PmxHeader",
    );
    // Not UTF-8 and not Shift_JIS.
    assert!(csv::read(b"PmxModelInfo,\"\x82\",\"\",\"\",\"\"\n").is_err());
}

#[test]
fn every_truncation_and_corruption_is_an_error_or_a_model() {
    let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 16, 10);
    let bytes = csv::write_bytes(&model, &CsvSaveOptions::default()).expect("writes");
    // Every prefix at a line boundary and a sample of byte positions.
    let mut cuts: Vec<usize> = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(at, _)| at + 1)
        .collect();
    cuts.extend((0..bytes.len()).step_by(97));
    for cut in cuts {
        let _ = csv::read(&bytes[..cut]);
    }
    // Bytes replaced by characters that matter to the format.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    for _ in 0..2000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut corrupted = bytes.clone();
        let at = (state % corrupted.len() as u64) as usize;
        let replacements = b",\"\\;-9.e\n\rx~#@";
        corrupted[at] = replacements[(state >> 40) as usize % replacements.len()];
        let _ = csv::read(&corrupted);
    }
}
