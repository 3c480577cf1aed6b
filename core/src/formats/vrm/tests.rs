//! Tests of the VRM export on the generated sample model and on broken models.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use super::*;
use crate::formats::WriteError;
use crate::generate::sample_model;
use crate::model::{BoneIdx, Face, Model, MorphOffsets, Vec3, VertexIdx};
use glam::Vec3 as G;
use serde_json::Value;

fn export(model: &Model) -> (Value, VrmExport) {
    let export = write_vrm(model, &VrmExportOptions::default()).expect("exports");
    let (json, _) = split_glb(&export.vrm).expect("a GLB");
    (json, export)
}

/// Every node's model-space position (translations only: the writer writes no rotations).
fn node_positions(json: &Value) -> Vec<G> {
    let nodes = json["nodes"].as_array().expect("nodes");
    let mut parent = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        assert!(node.get("rotation").is_none() && node.get("matrix").is_none());
        for child in node["children"].as_array().into_iter().flatten() {
            parent[child.as_u64().expect("index") as usize] = Some(i);
        }
    }
    (0..nodes.len())
        .map(|i| {
            let mut position = G::ZERO;
            let mut current = Some(i);
            while let Some(n) = current {
                let t = &nodes[n]["translation"];
                if t.is_array() {
                    position += G::new(
                        t[0].as_f64().unwrap() as f32,
                        t[1].as_f64().unwrap() as f32,
                        t[2].as_f64().unwrap() as f32,
                    );
                }
                current = parent[n];
            }
            position
        })
        .collect()
}

fn human_node(json: &Value, bone: &str) -> usize {
    json["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"][bone]["node"]
        .as_u64()
        .unwrap_or_else(|| panic!("{bone} assigned")) as usize
}

/// Degrees between `direction` and `target`.
fn angle(direction: G, target: G) -> f32 {
    direction.normalize().angle_between(target).to_degrees()
}

#[test]
fn sample_model_exports_with_the_required_humanoid_bones() {
    let (json, export) = export(&sample_model());
    assert_eq!(&export.vrm[0..4], b"glTF");
    let used: Vec<&str> = json["extensionsUsed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(used.contains(&"VRMC_vrm") && used.contains(&"VRMC_materials_mtoon"));
    assert!(json.get("extensionsRequired").is_none());
    let vrm = &json["extensions"]["VRMC_vrm"];
    assert_eq!(vrm["specVersion"], "1.0");
    assert_eq!(vrm["meta"]["licenseUrl"], VRM_LICENSE_URL);
    assert_eq!(vrm["meta"]["name"], "サンプル人形");
    for bone in humanoid::REQUIRED {
        human_node(&json, bone.vrm_name());
    }
    // あ is the aa preset; the others are custom.
    assert!(vrm["expressions"]["preset"]["aa"]["morphTargetBinds"].is_array());
    assert!(vrm["expressions"]["custom"]["髪上げ"].is_object());
    // The 15 required bones and the neck.
    assert_eq!(export.report.humanoid_bones, 16);
    assert!(
        export
            .report
            .losses
            .iter()
            .any(|l| matches!(l, VrmLoss::HipsAdded))
    );
}

#[test]
fn hips_is_at_the_pelvis_above_spine_and_legs() {
    let (json, _) = export(&sample_model());
    let positions = node_positions(&json);
    let hips = human_node(&json, "hips");
    // 下半身 is at (0, 10, 0) MMD units.
    assert!((positions[hips] - G::new(0.0, 0.8, 0.0)).length() < 1e-4);
    let nodes = json["nodes"].as_array().unwrap();
    let children: Vec<u64> = nodes[hips]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert!(children.contains(&(human_node(&json, "spine") as u64)));
}

#[test]
fn rest_pose_is_a_t_pose() {
    let (json, _) = export(&sample_model());
    let positions = node_positions(&json);
    for (side, x) in [("left", 1.0), ("right", -1.0)] {
        let upper = positions[human_node(&json, &format!("{side}UpperArm"))];
        let lower = positions[human_node(&json, &format!("{side}LowerArm"))];
        let hand = positions[human_node(&json, &format!("{side}Hand"))];
        let along = G::new(x, 0.0, 0.0);
        assert!(angle(lower - upper, along) < 2.0, "{side} upper arm");
        assert!(angle(hand - lower, along) < 2.0, "{side} forearm");
    }
    // The left hand is at +X in VRM, as in MMD: no mirror across X.
    assert!(positions[human_node(&json, "leftHand")].x > 0.3);
}

#[test]
fn without_t_pose_the_arms_stay_as_modelled() {
    let options = VrmExportOptions {
        t_pose: false,
        ..VrmExportOptions::default()
    };
    let export = write_vrm(&sample_model(), &options).unwrap();
    let (json, _) = split_glb(&export.vrm).unwrap();
    let positions = node_positions(&json);
    let upper = positions[human_node(&json, "leftUpperArm")];
    let lower = positions[human_node(&json, "leftLowerArm")];
    assert!(angle(lower - upper, G::X) > 30.0);
}

#[test]
fn t_pose_moves_the_skinned_vertices_with_the_arms() {
    let model = sample_model();
    let map = map_bones(&model);
    let (posed, _) = tpose::bake_t_pose(&model, &map).unwrap();
    // The left hand's box (weighted to 左手首) ends up level with the shoulder, far out on +X.
    let wrist = map.get(HumanBone::LeftHand).unwrap();
    let arm = map.get(HumanBone::LeftUpperArm).unwrap();
    let hand_vertices: Vec<_> = posed
        .vertices
        .iter()
        .filter(|v| matches!(v.weight, crate::model::Weight::Bdef1 { bone: Some(b) } if b.get() == wrist))
        .collect();
    assert!(!hand_vertices.is_empty());
    let arm_y = posed.bones[arm].position.y;
    for vertex in hand_vertices {
        assert!(
            (vertex.position.y - arm_y).abs() < 1.0,
            "{:?}",
            vertex.position
        );
        assert!(vertex.position.x > 5.0);
    }
}

/// The values of a dense accessor, as f32 (floats) or as integers widened to f32.
fn read_accessor(json: &Value, bin: &[u8], index: usize) -> Vec<f32> {
    let accessor = &json["accessors"][index];
    let view = &json["bufferViews"][accessor["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap() as usize;
    let bytes = &bin[start..start + view["byteLength"].as_u64().unwrap() as usize];
    match accessor["componentType"].as_u64().unwrap() {
        5126 => bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect(),
        5123 => bytes
            .chunks_exact(2)
            .map(|c| f32::from(u16::from_le_bytes(c.try_into().unwrap())))
            .collect(),
        5125 => bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()) as f32)
            .collect(),
        other => panic!("component type {other}"),
    }
}

#[test]
fn triangles_face_their_normals_counter_clockwise() {
    let (json, export) = export(&sample_model());
    let (_, bin) = split_glb(&export.vrm).unwrap();
    let mut triangles = 0;
    for mesh in json["meshes"].as_array().unwrap() {
        for primitive in mesh["primitives"].as_array().unwrap() {
            let attribute = |name: &str| primitive["attributes"][name].as_u64().unwrap() as usize;
            let positions = read_accessor(&json, bin, attribute("POSITION"));
            let normals = read_accessor(&json, bin, attribute("NORMAL"));
            let indices =
                read_accessor(&json, bin, primitive["indices"].as_u64().unwrap() as usize);
            let at =
                |values: &[f32], i: f32| G::from_slice(&values[i as usize * 3..i as usize * 3 + 3]);
            for corner in indices.chunks_exact(3) {
                let [a, b, c] = [corner[0], corner[1], corner[2]].map(|i| at(&positions, i));
                let facing = (b - a).cross(c - a);
                let normal = at(&normals, corner[0]);
                assert!(
                    facing.dot(normal) > 0.0,
                    "a triangle faces away from its normal"
                );
                triangles += 1;
            }
        }
    }
    assert!(triangles > 0);
    // The head's front (MMD normal −Z) faces +Z in VRM.
    let model = sample_model();
    assert!(
        model
            .vertices
            .iter()
            .any(|v| v.normal == Vec3::new(0.0, 0.0, -1.0))
    );
}

#[test]
fn morph_normal_deltas_are_differences() {
    let model = sample_model();
    let (json, export) = export(&model);
    let (_, bin) = split_glb(&export.vrm).unwrap();
    let face = json["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "face")
        .expect("a mesh with targets");
    let accessors = json["accessors"].as_array().unwrap();
    let views = json["bufferViews"].as_array().unwrap();
    for primitive in face["primitives"].as_array().unwrap() {
        for target in primitive["targets"].as_array().unwrap() {
            let normal = &accessors[target["NORMAL"].as_u64().unwrap() as usize];
            // Sparse over zeros: never absolute normals (which would be unit vectors).
            assert!(normal.get("bufferView").is_none());
            if let Some(sparse) = normal.get("sparse") {
                let view = &views[sparse["values"]["bufferView"].as_u64().unwrap() as usize];
                let offset = view["byteOffset"].as_u64().unwrap() as usize;
                let length = view["byteLength"].as_u64().unwrap() as usize;
                let values: Vec<f32> = bin[offset..offset + length]
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                    .collect();
                for delta in values.chunks_exact(3) {
                    assert!(G::from_slice(delta).length() < 2.0);
                }
            }
            let position = &accessors[target["POSITION"].as_u64().unwrap() as usize];
            assert!(position["min"].is_array() && position["max"].is_array());
        }
    }
}

#[test]
fn missing_required_bones_are_named() {
    let mut model = sample_model();
    for bone in &mut model.bones {
        if bone.name_ja.as_str() == "左ひじ" {
            bone.name_ja = "left something".into();
            bone.name_en = "".into();
        }
    }
    match write_vrm(&model, &VrmExportOptions::default()) {
        Err(WriteError::MissingHumanoidBones { bones }) => {
            assert_eq!(bones.len(), 1);
            assert!(bones[0].contains("leftLowerArm") && bones[0].contains("左ひじ"));
        }
        other => panic!("expected missing bones, got {other:?}"),
    }
}

#[test]
fn models_without_bones_are_refused() {
    let mut model = sample_model();
    model.bones.clear();
    let error = write_vrm(&model, &VrmExportOptions::default()).unwrap_err();
    assert!(error.to_string().contains("no bones"), "{error}");
    let error = write_vrm(&Model::new_empty(), &VrmExportOptions::default()).unwrap_err();
    assert!(error.to_string().contains("no bones"), "{error}");
}

#[test]
fn nan_and_faces_past_the_vertex_list_are_errors() {
    let mut model = sample_model();
    model.vertices[3].position = Vec3::new(f32::NAN, 0.0, 0.0);
    let error = write_vrm(&model, &VrmExportOptions::default()).unwrap_err();
    assert!(error.to_string().contains("vertices[3]"), "{error}");

    let mut model = sample_model();
    let past = model.vertices.len() + 5;
    model
        .faces
        .push([VertexIdx::new(0), VertexIdx::new(1), VertexIdx::new(past)] as Face);
    let error = write_vrm(&model, &VrmExportOptions::default()).unwrap_err();
    assert!(error.to_string().contains("faces["), "{error}");

    let mut model = sample_model();
    model.bones[2].position = Vec3::new(0.0, f32::INFINITY, 0.0);
    assert!(write_vrm(&model, &VrmExportOptions::default()).is_err());

    let mut model = sample_model();
    if let Some(MorphOffsets::Vertex(offsets)) = model.morphs.first_mut().map(|m| &mut m.offsets) {
        offsets[0].vertex = VertexIdx::new(1_000_000);
    }
    assert!(write_vrm(&model, &VrmExportOptions::default()).is_err());
}

#[test]
fn parent_loops_and_dangling_weights_do_not_panic() {
    let mut model = sample_model();
    // 髪元's parent loops through itself; a vertex weights a bone past the end.
    let last = model.bones.len() - 1;
    model.bones[last].parent = Some(BoneIdx::new(last));
    model.vertices[0].weight = crate::model::Weight::Bdef1 {
        bone: Some(BoneIdx::new(9999)),
    };
    let export = write_vrm(&model, &VrmExportOptions::default()).unwrap();
    assert!(
        export
            .report
            .losses
            .iter()
            .any(|l| matches!(l, VrmLoss::WeightsNormalised { .. }))
    );
}

#[test]
fn preset_table_maps_the_usual_names() {
    assert_eq!(preset_for("あ", ""), Some("aa"));
    assert_eq!(preset_for("まばたき", ""), Some("blink"));
    assert_eq!(preset_for("ウインク右", ""), Some("blinkRight"));
    assert_eq!(preset_for("笑い", ""), Some("happy"));
    assert_eq!(preset_for("眉上", "Blink"), Some("blink"));
    assert_eq!(preset_for("眉上", ""), None);
}

#[test]
fn authors_come_from_the_comment() {
    let mut model = sample_model();
    model.info.comment_ja = "モデル説明\r\n作者：山田\r\n".into();
    assert_eq!(write::author_from_comment(&model).as_deref(), Some("山田"));
    model.info.comment_ja = "".into();
    model.info.comment_en = "".into();
    let (json, _) = export(&model);
    assert_eq!(
        json["extensions"]["VRMC_vrm"]["meta"]["authors"][0],
        "unknown"
    );
}

#[test]
fn loss_messages_have_both_languages() {
    let (_, export) = export(&sample_model());
    for loss in &export.report.losses {
        assert!(!loss.message_en().is_empty() && !loss.message_ja().is_empty());
    }
}

fn write_image(path: &std::path::Path, format: image::ImageFormat, pixels: &[[u8; 4]], width: u32) {
    let height = pixels.len() as u32 / width;
    let raw: Vec<u8> = pixels.iter().flatten().copied().collect();
    let image = image::RgbaImage::from_raw(width, height, raw).unwrap();
    match format {
        image::ImageFormat::Bmp => image::DynamicImage::ImageRgba8(image)
            .to_rgb8()
            .save_with_format(path, format)
            .unwrap(),
        _ => image.save_with_format(path, format).unwrap(),
    }
}

#[test]
fn textures_are_embedded_as_png_and_set_the_alpha_mode() {
    let dir = tempfile::tempdir().unwrap();
    let opaque = [[200, 150, 100, 255]; 4];
    write_image(
        &dir.path().join("skin.bmp"),
        image::ImageFormat::Bmp,
        &opaque,
        2,
    );
    // A cut-out: texels fully clear or fully opaque.
    let cutout = [
        [10, 10, 10, 0],
        [10, 10, 10, 255],
        [10, 10, 10, 255],
        [10, 10, 10, 0],
    ];
    write_image(
        &dir.path().join("hair.png"),
        image::ImageFormat::Png,
        &cutout,
        2,
    );
    // Half-transparent lace.
    let lace = [[90, 90, 90, 128]; 4];
    write_image(
        &dir.path().join("lace.tga"),
        image::ImageFormat::Tga,
        &lace,
        2,
    );
    // A toon: white on top, (128, 64, 32) at the bottom.
    let toon = [
        [255, 255, 255, 255],
        [255, 255, 255, 255],
        [128, 64, 32, 255],
        [128, 64, 32, 255],
    ];
    write_image(
        &dir.path().join("toon.bmp"),
        image::ImageFormat::Bmp,
        &toon,
        2,
    );

    let mut model = sample_model();
    model.textures = vec![
        "skin.bmp".into(),
        "hair.png".into(),
        "lace.tga".into(),
        "toon.bmp".into(),
        "missing.spa".into(),
    ];
    use crate::model::{SphereMode, TextureIdx, Toon};
    model.materials[0].texture = Some(TextureIdx::new(0));
    model.materials[0].toon = Toon::Texture(Some(TextureIdx::new(3)));
    model.materials[0].diffuse = crate::model::Vec4::new(1.0, 1.0, 1.0, 1.0);
    model.materials[1].texture = Some(TextureIdx::new(2));
    model.materials[1].sphere_texture = Some(TextureIdx::new(4));
    model.materials[1].sphere_mode = SphereMode::Add;
    model.materials[2].texture = Some(TextureIdx::new(1));
    let options = VrmExportOptions {
        model_dir: Some(dir.path().to_owned()),
        ..VrmExportOptions::default()
    };
    let export = write_vrm(&model, &options).unwrap();
    let (json, bin) = split_glb(&export.vrm).unwrap();
    let images = json["images"].as_array().unwrap();
    assert_eq!(images.len(), 3, "the toon is read, not embedded");
    for image in images {
        assert_eq!(image["mimeType"], "image/png");
        let view = &json["bufferViews"][image["bufferView"].as_u64().unwrap() as usize];
        let start = view["byteOffset"].as_u64().unwrap() as usize;
        assert_eq!(&bin[start..start + 4], b"\x89PNG");
    }
    let materials = json["materials"].as_array().unwrap();
    assert!(materials[0].get("alphaMode").is_none_or(|m| m == "OPAQUE"));
    assert_eq!(materials[1]["alphaMode"], "BLEND");
    assert_eq!(
        materials[1]["extensions"]["VRMC_materials_mtoon"]["transparentWithZWrite"],
        true
    );
    assert_eq!(materials[2]["alphaMode"], "MASK");
    // Shade: white diffuse × the toon's bottom row, linearised.
    let shade = &materials[0]["extensions"]["VRMC_materials_mtoon"]["shadeColorFactor"];
    let expected = material::srgb_to_linear(128.0 / 255.0);
    assert!(
        (shade[0].as_f64().unwrap() as f32 - expected).abs() < 1e-4,
        "{shade}"
    );
    assert!(materials[0]["extensions"]["VRMC_materials_mtoon"]["shadeMultiplyTexture"].is_object());
    assert!(export.report.losses.iter().any(
        |l| matches!(l, VrmLoss::TextureMissing { problem } if problem.name() == "missing.spa")
    ));
}

#[test]
fn material_and_group_morphs_become_binds() {
    let (json, _) = export(&sample_model());
    let custom = &json["extensions"]["VRMC_vrm"]["expressions"]["custom"];
    // 服透明 multiplies the clothes' alpha: a colour bind on material 1.
    let fade = &custom["服透明"]["materialColorBinds"];
    assert!(
        fade.as_array()
            .unwrap()
            .iter()
            .any(|b| b["material"] == 1 && b["type"] == "color"),
        "{fade}"
    );
    // まとめ combines あ and うなずき (a bone morph baked into a target).
    let combined = &custom["まとめ"]["morphTargetBinds"];
    assert_eq!(combined.as_array().unwrap().len(), 2, "{combined}");
}

#[test]
fn finger_segments_need_their_parents() {
    let mut model = sample_model();
    let hand = model
        .bones
        .iter()
        .position(|b| b.name_ja.as_str() == "左手首")
        .unwrap();
    // 人指2 without 人指1: VRM allows no intermediate without a proximal.
    model.bones.push(crate::model::Bone {
        name_ja: "左人指２".into(),
        parent: Some(BoneIdx::new(hand)),
        position: Vec3::new(6.0, 10.0, 0.0),
        ..crate::model::Bone::default()
    });
    let map = map_bones(&model);
    assert_eq!(map.get(HumanBone::LeftIndexIntermediate), None);
    assert!(
        map.dropped
            .iter()
            .any(|(b, _)| *b == HumanBone::LeftIndexIntermediate)
    );
}

#[test]
fn uniform_uv_morphs_become_texture_transforms() {
    use crate::model::{Morph, MorphPanel, UvMorphOffset, Vec4};
    let mut model = sample_model();
    // Every vertex of the hair (material 2) shifted by (0.25, 0): a scroll.
    let ranges = model.material_face_ranges();
    let hair: std::collections::BTreeSet<usize> = ranges[2]
        .clone()
        .flat_map(|f| model.faces[f].iter().map(|v| v.get()).collect::<Vec<_>>())
        .collect();
    let scroll = hair
        .iter()
        .map(|&v| UvMorphOffset {
            vertex: VertexIdx::new(v),
            offset: Vec4::new(0.25, 0.0, 0.0, 0.0),
        })
        .collect::<Vec<_>>();
    let mut uneven = scroll.clone();
    uneven[0].offset.x = 0.5;
    for (name, offsets) in [("scroll", scroll), ("uneven", uneven)] {
        model.morphs.push(Morph {
            name_ja: name.into(),
            name_en: "".into(),
            panel: MorphPanel::Other,
            offsets: MorphOffsets::Uv(offsets),
        });
    }
    let (json, export) = export(&model);
    let custom = &json["extensions"]["VRMC_vrm"]["expressions"]["custom"];
    let binds = custom["scroll"]["textureTransformBinds"]
        .as_array()
        .unwrap();
    assert_eq!(binds.len(), 1);
    assert_eq!(binds[0]["material"], 2);
    assert_eq!(binds[0]["offset"][0], 0.25);
    assert!(custom["uneven"].get("textureTransformBinds").is_none());
    assert!(
        export
            .report
            .losses
            .iter()
            .any(|l| matches!(l, VrmLoss::UvMorphDropped { morph } if morph == "uneven"))
    );
}

#[test]
fn sdef_and_qdef_are_counted_and_weights_sum_to_one() {
    use crate::model::Weight;
    let mut model = sample_model();
    let (a, b) = (Some(BoneIdx::new(2)), Some(BoneIdx::new(3)));
    model.vertices[0].weight = Weight::Sdef {
        bones: [a, b],
        weight: 0.3,
        c: Vec3::ZERO,
        r0: Vec3::ZERO,
        r1: Vec3::ZERO,
    };
    model.vertices[1].weight = Weight::Qdef {
        bones: [a, b, None, None],
        weights: [0.2, 0.2, 0.0, 0.0],
    };
    model.vertices[2].weight = Weight::Bdef4 {
        bones: [a, a, b, None],
        weights: [0.5, 0.25, 0.25, 0.0],
    };
    let (json, export) = export(&model);
    assert!(
        export
            .report
            .losses
            .contains(&VrmLoss::SkinningAsLinear { sdef: 1, qdef: 1 })
    );
    let (_, bin) = split_glb(&export.vrm).unwrap();
    for mesh in json["meshes"].as_array().unwrap() {
        for primitive in mesh["primitives"].as_array().unwrap() {
            let index = primitive["attributes"]["WEIGHTS_0"].as_u64().unwrap() as usize;
            for weights in read_accessor(&json, bin, index).chunks_exact(4) {
                let sum: f32 = weights.iter().sum();
                assert!((sum - 1.0).abs() < 1e-5, "{weights:?}");
            }
        }
    }
}

#[test]
fn meta_options_are_written() {
    let options = VrmExportOptions {
        meta: VrmMeta {
            name: Some("Avatar".into()),
            version: Some("1.2".into()),
            authors: vec!["Ann".into(), " ".into()],
            avatar_permission: AvatarPermission::Everyone,
            commercial_usage: CommercialUsage::Corporation,
            modification: Modification::AllowModification,
            allow_redistribution: true,
            ..VrmMeta::default()
        },
        ..VrmExportOptions::default()
    };
    let export = write_vrm(&sample_model(), &options).unwrap();
    let (json, _) = split_glb(&export.vrm).unwrap();
    let meta = &json["extensions"]["VRMC_vrm"]["meta"];
    assert_eq!(meta["name"], "Avatar");
    assert_eq!(meta["version"], "1.2");
    assert_eq!(meta["authors"], serde_json::json!(["Ann"]));
    assert_eq!(meta["avatarPermission"], "everyone");
    assert_eq!(meta["commercialUsage"], "corporation");
    assert_eq!(meta["modification"], "allowModification");
    assert_eq!(meta["allowRedistribution"], true);
    assert_eq!(meta["creditNotation"], "required");
    // Defaults stay the conservative ones.
    let (json, _) = export_default();
    let meta = &json["extensions"]["VRMC_vrm"]["meta"];
    assert_eq!(meta["avatarPermission"], "onlyAuthor");
    assert_eq!(meta["commercialUsage"], "personalNonProfit");
    assert_eq!(meta["modification"], "prohibited");
    assert_eq!(meta["allowRedistribution"], false);
}

fn export_default() -> (Value, VrmExport) {
    export(&sample_model())
}

#[test]
fn legs_under_the_spine_are_refused() {
    let mut model = sample_model();
    let spine = model
        .bones
        .iter()
        .position(|b| b.name_ja.as_str() == "上半身")
        .unwrap();
    for bone in &mut model.bones {
        if bone.name_ja.as_str() == "下半身" {
            bone.parent = Some(BoneIdx::new(spine));
        }
    }
    let error = write_vrm(&model, &VrmExportOptions::default()).unwrap_err();
    assert!(error.to_string().contains("上半身"), "{error}");
}

#[test]
fn weights_above_the_hips_go_with_the_hips() {
    use crate::model::Weight;
    let mut model = sample_model();
    let center = model
        .bones
        .iter()
        .position(|b| b.name_ja.as_str() == "センター")
        .unwrap();
    model.vertices[0].weight = Weight::Bdef1 {
        bone: Some(BoneIdx::new(center)),
    };
    let (_, export) = export(&model);
    assert!(
        export
            .report
            .losses
            .contains(&VrmLoss::WeightsMovedToHips { weights: 1 })
    );
}

fn bone_index(model: &Model, name: &str) -> usize {
    model
        .bones
        .iter()
        .position(|b| b.name_ja.as_str() == name)
        .unwrap_or_else(|| panic!("{name}"))
}

#[test]
fn a_waist_bone_above_spine_and_legs_is_the_hips() {
    let mut model = sample_model();
    let center = bone_index(&model, "センター");
    model.bones[center].name_ja = "腰".into();
    let (json, export) = export(&model);
    let nodes = json["nodes"].as_array().unwrap();
    assert_eq!(nodes[human_node(&json, "hips")]["name"], "腰");
    assert!(!export.report.losses.contains(&VrmLoss::HipsAdded));
}

#[test]
fn english_bone_names_map_too() {
    let mut model = sample_model();
    for bone in &mut model.bones {
        bone.name_ja = bone.name_en.clone();
    }
    let map = map_bones(&model);
    assert!(
        map.missing_required().is_empty(),
        "{:?}",
        map.missing_required()
    );
    assert_eq!(
        map.get(HumanBone::LeftLowerArm),
        Some(bone_index(&model, "left elbow"))
    );
    write_vrm(&model, &VrmExportOptions::default()).unwrap();
    // mmd_tools' style.
    assert_eq!(humanoid::fold_name("Ｅｌｂｏｗ_L"), "elbow_l");
}

#[test]
fn d_bone_weights_move_onto_the_bone_driving_them() {
    use crate::model::{Bone, BoneFlags, Weight};
    let mut model = sample_model();
    let leg = bone_index(&model, "左足");
    let lower = bone_index(&model, "下半身");
    let d_bone = model.bones.len();
    model.bones.push(Bone {
        name_ja: "左足D".into(),
        position: model.bones[leg].position,
        parent: Some(BoneIdx::new(lower)),
        flags: BoneFlags::ROTATABLE | BoneFlags::APPEND_ROTATE,
        append_parent: Some(BoneIdx::new(leg)),
        append_ratio: 1.0,
        ..Bone::default()
    });
    for vertex in &mut model.vertices {
        if vertex.weight
            == (Weight::Bdef1 {
                bone: Some(BoneIdx::new(leg)),
            })
        {
            vertex.weight = Weight::Bdef1 {
                bone: Some(BoneIdx::new(d_bone)),
            };
        }
    }
    let map = map_bones(&model);
    assert_eq!(
        map.roles[d_bone],
        humanoid::BoneRole::Redirected { to: leg }
    );
    let (json, export) = export(&model);
    assert!(
        export.report.losses.iter().any(
            |l| matches!(l, VrmLoss::WeightsMoved { bones } if bones == &["左足D".to_owned()])
        )
    );
    // No node for the D-bone.
    assert!(
        json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n["name"] != "左足D")
    );
}

/// The sample model with a three-bone hair chain hanging straight down behind the head: two
/// physics bodies, the first hung on the head body by a joint free ±0.5 rad about X and Z (a
/// cone), the second on the first by a joint free ±0.4 rad about X only (a hinge).
fn model_with_hair_chain() -> Model {
    use crate::model::{Bone, BoneFlags, Joint, RigidBody, RigidBodyIdx, RigidMode, RigidShape};
    let mut model = sample_model();
    let head = bone_index(&model, "頭");
    let head_body = model
        .rigid_bodies
        .iter()
        .position(|b| b.name_ja.as_str() == "頭")
        .expect("the sample's head body");
    let first = model.bones.len();
    for (i, y) in [17.0f32, 15.0, 13.0].into_iter().enumerate() {
        model.bones.push(Bone {
            name_ja: format!("後髪{}", i + 1).into(),
            position: Vec3::new(0.0, y, 1.5),
            parent: Some(BoneIdx::new(if i == 0 { head } else { first + i - 1 })),
            flags: BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE,
            ..Bone::default()
        });
    }
    let body = model.rigid_bodies.len();
    for i in 0..2 {
        model.rigid_bodies.push(RigidBody {
            name_ja: format!("後髪{}", i + 1).into(),
            bone: Some(BoneIdx::new(first + i)),
            group: 1,
            non_collision_mask: 0xFFFF,
            shape: RigidShape::Capsule,
            size: Vec3::new(0.4, 1.2, 0.0),
            position: Vec3::new(0.0, 16.0 - 2.0 * i as f32, 1.5),
            mass: 1.0,
            linear_damping: 0.5,
            angular_damping: 0.5,
            mode: RigidMode::Physics,
            ..RigidBody::default()
        });
    }
    for (i, (limit_x, limit_z)) in [(0.5f32, 0.5f32), (0.4, 0.0)].into_iter().enumerate() {
        model.joints.push(Joint {
            name_ja: format!("後髪{}", i + 1).into(),
            body_a: Some(RigidBodyIdx::new(if i == 0 {
                head_body
            } else {
                body + i - 1
            })),
            body_b: Some(RigidBodyIdx::new(body + i)),
            position: Vec3::new(0.0, 17.0 - 2.0 * i as f32, 1.5),
            rotate_lower: Vec3::new(-limit_x, -0.1, -limit_z),
            rotate_upper: Vec3::new(limit_x, 0.1, limit_z),
            spring_rotate: Vec3::new(100.0, 100.0, 100.0),
            ..Joint::default()
        });
    }
    model
}

fn node_named(json: &Value, name: &str) -> usize {
    json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .position(|n| n["name"] == name)
        .unwrap_or_else(|| panic!("a node named {name}"))
}

#[test]
fn physics_chains_become_springs_with_limits_and_colliders() {
    let model = model_with_hair_chain();
    let (json, export) = export(&model);
    let used: Vec<&str> = json["extensionsUsed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for extension in [
        "VRMC_springBone",
        "VRMC_springBone_limit",
        "VRMC_node_constraint",
    ] {
        assert!(used.contains(&extension), "{extension} in {used:?}");
    }
    assert!(json.get("extensionsRequired").is_none());
    let springs = &json["extensions"]["VRMC_springBone"];
    assert_eq!(springs["specVersion"], "1.0");
    let spring = springs["springs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "後髪1")
        .expect("the hair chain's spring");
    let joints = spring["joints"].as_array().unwrap();
    let nodes: Vec<usize> = joints
        .iter()
        .map(|j| j["node"].as_u64().unwrap() as usize)
        .collect();
    assert_eq!(
        nodes,
        ["後髪1", "後髪2", "後髪3"].map(|n| node_named(&json, n))
    );
    for joint in &joints[..2] {
        // Capsule radius 0.4 MMD units = 3.2 cm.
        assert!((joint["hitRadius"].as_f64().unwrap() - 0.032).abs() < 1e-6);
        assert!(joint["stiffness"].as_f64().unwrap() > 0.0);
        assert!(joint["gravityPower"].as_f64().unwrap() > 0.0);
        let drag = joint["dragForce"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&drag));
        assert_eq!(joint["gravityDir"], serde_json::json!([0.0, -1.0, 0.0]));
        assert_eq!(
            joint["extensions"]["VRMC_springBone_limit"]["specVersion"],
            "1.0-draft"
        );
    }
    let limit = |i: usize| &joints[i]["extensions"]["VRMC_springBone_limit"]["limit"];
    assert!((limit(0)["cone"]["angle"].as_f64().unwrap() - 0.5).abs() < 1e-5);
    assert!((limit(1)["hinge"]["angle"].as_f64().unwrap() - 0.4).abs() < 1e-5);
    assert!(limit(1)["hinge"].get("rotation").is_none());
    assert!(joints[2].get("extensions").is_none());
    assert!(export.report.springs.springs >= 1);
    assert!(export.report.springs.cone_limits >= 1 && export.report.springs.hinge_limits >= 1);

    // The head's follow-bone sphere is a collider on the head node, offset from it in metres
    // with z mirrored.
    let head = human_node(&json, "head");
    let collider = springs["colliders"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["node"] == head)
        .expect("a collider on the head");
    let sphere = &collider["shape"]["sphere"];
    assert!((sphere["radius"].as_f64().unwrap() - 1.4 * 0.08).abs() < 1e-6);
    let head_bone = &model.bones[bone_index(&model, "頭")];
    let offset = sphere["offset"].as_array().unwrap();
    let expected_y = (16.2 - head_bone.position.y) * 0.08;
    assert!((offset[1].as_f64().unwrap() as f32 - expected_y).abs() < 1e-4);
    // The chain collides with the head's group (its mask leaves every group on).
    let groups = spring["colliderGroups"]
        .as_array()
        .expect("collider groups");
    let head_collider = springs["colliders"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["node"] == head)
        .unwrap();
    assert!(groups.iter().any(|g| {
        springs["colliderGroups"][g.as_u64().unwrap() as usize]["colliders"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c.as_u64() == Some(head_collider as u64))
    }));
}

#[test]
fn a_chain_ending_in_a_tail_offset_gets_a_tail_node() {
    let mut model = model_with_hair_chain();
    // Drop the tip bone; the last physics bone points at its tail by an offset instead.
    let tip = bone_index(&model, "後髪3");
    model.bones.truncate(tip);
    let last = bone_index(&model, "後髪2");
    model.bones[last].tail_offset = Vec3::new(0.0, -2.0, 0.0);
    let (json, export) = export(&model);
    let spring = json["extensions"]["VRMC_springBone"]["springs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "後髪1")
        .expect("the hair chain's spring")
        .clone();
    let joints = spring["joints"].as_array().unwrap();
    assert_eq!(joints.len(), 3);
    let tail = joints[2]["node"].as_u64().unwrap() as usize;
    assert_eq!(json["nodes"][tail]["name"], "後髪2先");
    let translation = json["nodes"][tail]["translation"].as_array().unwrap();
    assert!((translation[1].as_f64().unwrap() + 0.16).abs() < 1e-6);
    let parent = node_named(&json, "後髪2");
    assert!(
        json["nodes"][parent]["children"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c.as_u64() == Some(tail as u64))
    );
    // The second joint's limit is measured along the segment to the tail node.
    assert!(joints[1]["extensions"]["VRMC_springBone_limit"]["limit"]["hinge"].is_object());
    assert!(
        !export
            .report
            .losses
            .iter()
            .any(|l| matches!(l, VrmLoss::SpringWithoutTail { bone } if bone == "後髪2"))
    );
}

#[test]
fn spring_bones_can_be_left_out() {
    let model = model_with_hair_chain();
    let export = write_vrm(
        &model,
        &VrmExportOptions {
            spring_bones: false,
            ..VrmExportOptions::default()
        },
    )
    .unwrap();
    let (json, _) = split_glb(&export.vrm).unwrap();
    assert!(json["extensions"].get("VRMC_springBone").is_none());
    assert_eq!(export.report.springs, SpringCounts::default());
    assert!(export.report.losses.iter().any(|l| matches!(
        l,
        VrmLoss::PhysicsNotCarried {
            dynamic_bodies: 3,
            joints: 3,
            ..
        }
    )));
}

#[test]
fn append_rotations_become_node_constraints() {
    let model = sample_model();
    let (json, export) = export(&model);
    // The sample's 髪元 follows half of the neck's rotation.
    let hair = node_named(&json, "髪元");
    let neck = human_node(&json, "neck");
    let constraint = &json["nodes"][hair]["extensions"]["VRMC_node_constraint"];
    assert_eq!(constraint["specVersion"], "1.0");
    assert_eq!(constraint["constraint"]["rotation"]["source"], neck);
    assert_eq!(constraint["constraint"]["rotation"]["weight"], 0.5);
    assert_eq!(export.report.node_constraints, 1);
}

#[test]
fn humanoid_overrides_change_and_clear_the_mapping() {
    let model = sample_model();
    let neck = bone_index(&model, "首");
    let mut options = VrmExportOptions::default();
    options.humanoid_overrides.insert(HumanBone::Neck, None);
    let export = write_vrm(&model, &options).unwrap();
    let (json, _) = split_glb(&export.vrm).unwrap();
    assert!(
        json["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]
            .get("neck")
            .is_none()
    );
    // A required bone taken away is named in the error.
    let spine = bone_index(&model, "上半身");
    options.humanoid_overrides.insert(HumanBone::Spine, None);
    match write_vrm(&model, &options) {
        Err(WriteError::MissingHumanoidBones { bones }) => {
            assert!(bones.iter().any(|b| b.starts_with("spine")), "{bones:?}");
        }
        other => panic!("expected the missing spine, got {other:?}"),
    }
    // Given back by index, and the neck given to the spine's bone's child works the same way.
    options
        .humanoid_overrides
        .insert(HumanBone::Spine, Some(spine));
    options
        .humanoid_overrides
        .insert(HumanBone::Neck, Some(neck));
    let map = map_bones_with(&model, &options.humanoid_overrides);
    assert_eq!(map.get(HumanBone::Neck), Some(neck));
    assert_eq!(map.get(HumanBone::Spine), Some(spine));
}

/// The hair chain with skin on its bones, and a weight (錘) bone far below its last body bone:
/// a bone no vertex follows, carrying a heavy physics body hung on the chain by a joint, as
/// MMD models pull cloaks and skirts down.
fn model_with_weighted_hair_and_a_weight_bone() -> Model {
    use crate::model::{Bone, BoneFlags, Joint, RigidBody, RigidBodyIdx, RigidMode, RigidShape};
    use crate::model::{Vertex, Weight};
    let mut model = model_with_hair_chain();
    for name in ["後髪1", "後髪2"] {
        let bone = bone_index(&model, name);
        model.vertices.push(Vertex {
            position: model.bones[bone].position,
            weight: Weight::Bdef1 {
                bone: Some(BoneIdx::new(bone)),
            },
            ..Vertex::default()
        });
    }
    let last = bone_index(&model, "後髪2");
    let weight_bone = model.bones.len();
    model.bones.push(Bone {
        name_ja: "後髪2錘".into(),
        position: Vec3::new(0.0, -78.0, 1.5),
        parent: Some(BoneIdx::new(last)),
        flags: BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE,
        ..Bone::default()
    });
    let last_body = model
        .rigid_bodies
        .iter()
        .position(|b| b.name_ja.as_str() == "後髪2")
        .unwrap();
    let body = model.rigid_bodies.len();
    model.rigid_bodies.push(RigidBody {
        name_ja: "後髪2錘".into(),
        bone: Some(BoneIdx::new(weight_bone)),
        group: 1,
        non_collision_mask: 0xFFFF,
        shape: RigidShape::Capsule,
        size: Vec3::new(0.2, 1.7, 0.0),
        position: Vec3::new(0.0, -78.0, 1.5),
        mass: 5.0,
        mode: RigidMode::Physics,
        ..RigidBody::default()
    });
    model.joints.push(Joint {
        name_ja: "後髪2錘".into(),
        body_a: Some(RigidBodyIdx::new(last_body)),
        body_b: Some(RigidBodyIdx::new(body)),
        position: Vec3::new(0.0, 13.0, 1.5),
        ..Joint::default()
    });
    model
}

#[test]
fn weight_bones_are_no_spring_joints_and_the_chain_ends_at_its_skin() {
    let model = model_with_weighted_hair_and_a_weight_bone();
    let (json, export) = export(&model);
    let weight_node = node_named(&json, "後髪2錘");
    let positions = node_positions(&json);
    let springs = json["extensions"]["VRMC_springBone"]["springs"]
        .as_array()
        .unwrap();
    let joint_nodes = |spring: &Value| -> Vec<usize> {
        spring["joints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["node"].as_u64().unwrap() as usize)
            .collect()
    };
    for spring in springs {
        let nodes = joint_nodes(spring);
        assert!(!nodes.contains(&weight_node), "{spring}");
        for pair in nodes.windows(2) {
            let segment = positions[pair[1]].distance(positions[pair[0]]);
            assert!(segment < 0.5, "a {segment} m segment in {spring}");
        }
    }
    let hair = springs.iter().find(|s| s["name"] == "後髪1").unwrap();
    assert_eq!(
        joint_nodes(hair),
        ["後髪1", "後髪2", "後髪3"].map(|n| node_named(&json, n))
    );
    // The weight's body is listed as not carried, not hidden.
    assert!(export.report.losses.iter().any(|l| matches!(
        l,
        VrmLoss::PhysicsNotCarried { dynamic_bodies, .. } if *dynamic_bodies >= 1
    )));
    // Read back, no body or joint spans the 93 units down to the weight.
    let import = read_vrm(&export.vrm, &crate::formats::LoadOptions::default()).unwrap();
    for body in &import.model.rigid_bodies {
        let size = body.size;
        assert!(
            size.x.abs().max(size.y.abs()).max(size.z.abs()) < 10.0,
            "{} {:?}",
            body.name_ja.as_str(),
            body.size
        );
    }
}

/// The node parents of a written glTF.
fn node_parents(json: &Value) -> Vec<Option<usize>> {
    let nodes = json["nodes"].as_array().unwrap();
    let mut parents = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        for child in node["children"].as_array().into_iter().flatten() {
            parents[child.as_u64().unwrap() as usize] = Some(i);
        }
    }
    parents
}

/// The Khronos validator peer's verdict on `vrm` (`None`: the peer is not installed).
fn khronos_validator(vrm: &[u8]) -> Option<Value> {
    let peer = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/tools/peers/gltf-validator-peer");
    if !peer.exists() {
        println!("skipped the validator: {} is absent", peer.display());
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("model.vrm");
    std::fs::write(&file, vrm).unwrap();
    let output = std::process::Command::new(&peer).arg(&file).output().ok()?;
    if output.status.code() == Some(2) {
        println!("skipped the validator: not installed (run its install.sh)");
        return None;
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    serde_json::from_str(stdout.lines().last().unwrap_or_default()).ok()
}

#[test]
fn extra_root_bones_get_one_common_skin_root() {
    use crate::model::{Bone, BoneFlags};
    let mut model = sample_model();
    for (name, x) in [("カメラ", 8.0), ("小物", -8.0)] {
        model.bones.push(Bone {
            name_ja: name.into(),
            position: Vec3::new(x, 0.0, 0.0),
            parent: None,
            flags: BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE,
            ..Bone::default()
        });
    }
    let (json, export) = export(&model);
    let parents = node_parents(&json);
    let root_of = |mut node: usize| {
        while let Some(parent) = parents[node] {
            node = parent;
        }
        node
    };
    let skin = &json["skins"][0];
    let skeleton = skin["skeleton"].as_u64().expect("skeleton set") as usize;
    for joint in skin["joints"].as_array().unwrap() {
        assert_eq!(root_of(joint.as_u64().unwrap() as usize), skeleton);
    }
    for name in ["カメラ", "小物"] {
        assert_eq!(parents[node_named(&json, name)], Some(skeleton));
    }
    if let Some(verdict) = khronos_validator(&export.vrm) {
        assert_eq!(verdict["errors"], 0, "{verdict}");
    }
}

#[test]
fn a_jpeg_skin_is_embedded_as_the_same_jpeg() {
    let dir = tempfile::tempdir().unwrap();
    let skin = image::RgbImage::from_fn(64, 32, |x, y| image::Rgb([x as u8 * 4, y as u8 * 8, 120]));
    let path = dir.path().join("skin.jpg");
    skin.save_with_format(&path, image::ImageFormat::Jpeg)
        .unwrap();
    let jpeg = std::fs::read(&path).unwrap();
    let mut model = sample_model();
    model.textures = vec!["skin.jpg".into()];
    model.materials[0].texture = Some(crate::model::TextureIdx::new(0));
    let options = VrmExportOptions {
        model_dir: Some(dir.path().to_owned()),
        ..VrmExportOptions::default()
    };
    let export = write_vrm(&model, &options).unwrap();
    let (json, bin) = split_glb(&export.vrm).unwrap();
    let image = &json["images"][0];
    assert_eq!(image["mimeType"], "image/jpeg");
    let view = &json["bufferViews"][image["bufferView"].as_u64().unwrap() as usize];
    let start = view["byteOffset"].as_u64().unwrap() as usize;
    let length = view["byteLength"].as_u64().unwrap() as usize;
    assert_eq!(&bin[start..start + length], jpeg.as_slice());
    // Read back, the texture is the same file again.
    let import = read_vrm(&export.vrm, &crate::formats::LoadOptions::default()).unwrap();
    assert!(import.textures.iter().any(|t| t.bytes == jpeg));
    if let Some(verdict) = khronos_validator(&export.vrm) {
        assert_eq!(verdict["errors"], 0, "{verdict}");
    }
}
