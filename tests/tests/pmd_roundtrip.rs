//! PMD files built in code: every section and extension round-trips, every bone kind, IK,
//! skin, frame, toon and physics mapping converts as the PMX spec describes, and the model →
//! PMD direction lists what PMD cannot hold.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::pmd::{self, BoneKind, FixedText, PmdBone, PmdFile, PmdIk};
use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::model::*;
use pmx_tests::pmd::{
    bones, padded, sample_file, sample_with_full_names, sample_without_extensions,
};

fn bytes_of(file: &PmdFile) -> Vec<u8> {
    pmd::write_file(file).expect("sample writes")
}

fn model_of(file: &PmdFile) -> Model {
    let (model, report) = pmd::read(&bytes_of(file), &LoadOptions::default()).expect("reads");
    assert!(!report.lost_data(), "{:?}", report.notes);
    model
}

fn pmd_of(model: &Model) -> PmdFile {
    let (bytes, _) = pmd::write(model).expect("model writes as PMD");
    pmd::read_file(&bytes, &LoadOptions::default())
        .expect("written PMD reads")
        .0
}

/// Section-by-section equality, so that a failure names the section.
fn assert_same_file(actual: &PmdFile, expected: &PmdFile) {
    assert_eq!(actual.version.to_bits(), expected.version.to_bits());
    assert_eq!(actual.name, expected.name);
    assert_eq!(actual.comment, expected.comment);
    assert_eq!(actual.vertices, expected.vertices, "vertices");
    assert_eq!(actual.face_indices, expected.face_indices, "faces");
    assert_eq!(actual.materials, expected.materials, "materials");
    assert_eq!(actual.bones, expected.bones, "bones");
    assert_eq!(actual.iks, expected.iks, "IK list");
    assert_eq!(actual.skins, expected.skins, "skins");
    assert_eq!(actual.skin_display, expected.skin_display, "skin display");
    assert_eq!(actual.bone_frame_names, expected.bone_frame_names);
    assert_eq!(actual.bone_frame_items, expected.bone_frame_items);
    assert_eq!(actual.english_flag, expected.english_flag);
    assert_eq!(actual.english, expected.english, "English names");
    assert_eq!(actual.toon_names, expected.toon_names, "toon list");
    assert_eq!(actual.rigid_bodies, expected.rigid_bodies, "rigid bodies");
    assert_eq!(actual.joints, expected.joints, "joints");
    assert_eq!(actual.trailing, expected.trailing);
}

#[test]
fn raw_pmd_round_trips_every_section() {
    let file = sample_file();
    let bytes = bytes_of(&file);
    assert_eq!(bytes.len(), pmd::Layout::of(&file).end);
    let (back, report) = pmd::read_file(&bytes, &LoadOptions::default()).expect("reads");
    assert!(report.notes.is_empty(), "{:?}", report.notes);
    assert_eq!(report.face_index_count, Some(12));
    assert_same_file(&back, &file);
    assert_eq!(bytes_of(&back), bytes);
}

#[test]
fn pmd_to_model_to_pmd_is_exact_and_lossless() {
    let file = sample_file();
    let model = model_of(&file);
    assert_eq!(pmd::pmd_losses(&model), Vec::new());
    let (bytes, report) = pmd::write(&model).expect("writes");
    assert!(report.is_empty(), "{:?}", report.losses);
    assert_eq!(
        bytes,
        bytes_of(&file),
        "PMD → model → PMD gives the same bytes"
    );
}

#[test]
fn pmd_to_pmx_file_to_pmd_is_exact() {
    let file = sample_file();
    let model = model_of(&file);
    let (pmx_bytes, _) = pmx::write(&model, &PmxSaveOptions::default()).expect("PMX writes");
    let (from_pmx, _) = pmx::read(&pmx_bytes, &LoadOptions::default()).expect("PMX reads");
    // The PMX file holds everything the conversion produced.
    let mut expected = model.clone();
    expected.header = from_pmx.header.clone();
    assert_eq!(from_pmx, expected);
    assert_same_file(&pmd_of(&from_pmx), &file);
}

#[test]
fn header_vertices_faces_and_materials_convert() {
    let model = model_of(&sample_file());
    assert_eq!(model.info.name_ja.as_str(), "サンプル");
    assert_eq!(
        model.info.comment_ja.as_str(),
        "PMD のテスト用モデル\r\n2 行目"
    );
    assert_eq!(model.info.name_en.as_str(), "Sample");
    assert_eq!(model.vertices.len(), 6);
    // (bone, 0, 100) is BDEF1; every other vertex is BDEF2 with weight / 100.
    assert_eq!(
        model.vertices[0].weight,
        Weight::Bdef1 {
            bone: Some(BoneIdx::new(0))
        }
    );
    assert_eq!(
        model.vertices[1].weight,
        Weight::Bdef2 {
            bones: [Some(BoneIdx::new(2)), Some(BoneIdx::new(3))],
            weight: 0.6
        }
    );
    assert_eq!(
        model.vertices[2].weight,
        Weight::Bdef2 {
            bones: [Some(BoneIdx::new(4)), Some(BoneIdx::new(5))],
            weight: 1.0
        }
    );
    assert_eq!(
        model.vertices[4].weight,
        Weight::Bdef1 {
            bone: Some(BoneIdx::new(6))
        }
    );
    // Edge flag 1 is "no edge": edge scale 0.
    let edges: Vec<f32> = model.vertices.iter().map(|v| v.edge_scale).collect();
    assert_eq!(edges, [1.0, 0.0, 1.0, 1.0, 1.0, 0.0]);
    assert_eq!(model.faces.len(), 4);
    assert_eq!(model.faces[3], [VertexIdx(1), VertexIdx(3), VertexIdx(5)]);

    let names: Vec<String> = model.textures.iter().map(|t| t.to_string()).collect();
    assert_eq!(
        names,
        [
            "body.bmp",
            "metal.sph",
            "face.png",
            "toon_face.bmp",
            "eye.spa"
        ]
    );
    let m = &model.materials;
    assert_eq!(m[0].name_ja.as_str(), "材質1");
    assert_eq!(m[3].name_en.as_str(), "Material4");
    assert_eq!(m[0].diffuse, Vec4::new(0.8, 0.7, 0.6, 1.0));
    assert_eq!(m[0].specular_power, 12.5);
    assert_eq!(m[0].texture, Some(TextureIdx::new(0)));
    assert_eq!(m[0].sphere_texture, Some(TextureIdx::new(1)));
    assert_eq!(m[0].sphere_mode, SphereMode::Multiply);
    // A sphere map alone, and .spa adds.
    assert_eq!(m[2].texture, None);
    assert_eq!(m[2].sphere_texture, Some(TextureIdx::new(4)));
    assert_eq!(m[2].sphere_mode, SphereMode::Add);
    // Toons: standard names are shared toons, others textures, 0xFF none.
    assert_eq!(m[0].toon, Toon::Shared(0));
    assert_eq!(m[1].toon, Toon::Texture(Some(TextureIdx::new(3))));
    assert_eq!(m[2].toon, Toon::Texture(None));
    assert_eq!(m[3].toon, Toon::Shared(3));
    // Draw flags: edge → edge + ground shadow; alpha 0.98 → no self shadow; alpha < 1 →
    // double-sided.
    let shadow = DrawFlags::DRAW_TO_SHADOW_MAP | DrawFlags::DRAW_SELF_SHADOW;
    assert_eq!(
        m[0].draw_flags,
        DrawFlags::EDGE | DrawFlags::GROUND_SHADOW | shadow
    );
    assert_eq!(m[2].draw_flags, DrawFlags::DOUBLE_SIDED);
    assert_eq!(m[3].draw_flags, DrawFlags::DOUBLE_SIDED | shadow);
    assert_eq!(m[0].edge_color, Vec4::new(0.0, 0.0, 0.0, 1.0));
    assert_eq!(m[0].face_index_count, 3);
}

#[test]
fn every_bone_kind_converts_to_flags() {
    let model = model_of(&sample_file());
    let b = &model.bones;
    let base = BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE;
    let tail = BoneFlags::TAIL_IS_BONE;
    // 1 rotate + move, with a tail bone.
    assert_eq!(b[bones::ROOT].flags, base | BoneFlags::MOVABLE | tail);
    assert_eq!(b[bones::ROOT].tail_bone, Some(BoneIdx::new(1)));
    assert_eq!(b[bones::ROOT].parent, None);
    // Tail 0 is "no tail bone"; 0xFFFF is an offset tail of zero.
    assert_eq!(b[bones::CENTER].tail_bone, None);
    assert!(b[bones::CENTER].flags.contains(tail));
    assert!(!b[bones::NECK].flags.contains(tail));
    assert_eq!(b[bones::NECK].tail_offset, Vec3::ZERO);
    // 0 rotate.
    assert_eq!(b[bones::UPPER_BODY].flags, base | tail);
    // 4 IK-affected: an ordinary rotate bone.
    assert_eq!(b[bones::KNEE].flags, base | tail);
    // 2 IK.
    assert_eq!(
        b[bones::LEG_IK].flags,
        base | BoneFlags::MOVABLE | BoneFlags::IK | tail
    );
    // 6 IK target and 7 hidden: not visible.
    let hidden = BoneFlags::ROTATABLE | BoneFlags::OPERABLE | tail;
    assert_eq!(b[bones::TOE].flags, hidden);
    assert_eq!(b[bones::EYE_TIP].flags, hidden);
    // 5 rotation-influenced: append rotation of the IK field's bone, ratio 1.
    assert_eq!(b[bones::EYE].flags, base | BoneFlags::APPEND_ROTATE | tail);
    assert_eq!(b[bones::EYE].append_parent, Some(BoneIdx::new(bones::EYES)));
    assert_eq!(b[bones::EYE].append_ratio, 1.0);
    assert_eq!(b[bones::EYE].tail_bone, Some(BoneIdx::new(bones::EYE_TIP)));
    // 8 twist: fixed axis towards the tail bone (左ひじ, 1 down and 0.25 left).
    assert_eq!(
        b[bones::ARM_TWIST].flags,
        base | BoneFlags::FIXED_AXIS | tail
    );
    let axis = b[bones::ARM_TWIST].fixed_axis;
    let length = (0.25f32 * 0.25 + 1.0).sqrt();
    for (got, want) in axis
        .to_array()
        .iter()
        .zip([-0.25 / length, -1.0 / length, 0.0])
    {
        assert!((got - want).abs() < 1e-6, "{axis:?}");
    }
    // 9 rotation motion: append rotation of the tail field's bone × IK field / 100, hidden.
    let motion = &b[bones::ARM_TWIST_1];
    assert_eq!(
        motion.flags,
        BoneFlags::ROTATABLE | BoneFlags::OPERABLE | BoneFlags::APPEND_ROTATE | tail
    );
    assert_eq!(motion.append_parent, Some(BoneIdx::new(bones::ARM_TWIST)));
    assert_eq!(motion.append_ratio, 0.25);
    assert_eq!(motion.tail_bone, None);
    assert_eq!(b[bones::SHOULDER_P].append_ratio, -0.1);
    // English names.
    assert_eq!(b[bones::ROOT].name_en.as_str(), "master");
    assert_eq!(b[bones::KNEE].name_en.as_str(), "knee_L");

    // And back: the kinds come back as they were (including 4 and 6, which PMX has no flag for).
    let back = pmd_of(&model);
    let kinds: Vec<u8> = back.bones.iter().map(|b| b.kind).collect();
    let expected: Vec<u8> = sample_file().bones.iter().map(|b| b.kind).collect();
    assert_eq!(kinds, expected);
    assert_eq!(kinds, [1, 1, 0, 0, 4, 4, 4, 2, 6, 2, 0, 5, 7, 8, 9, 0, 9]);
}

#[test]
fn unknown_bone_kind_reads_as_rotate_with_a_note() {
    let mut file = sample_file();
    file.bones[bones::UPPER_BODY].kind = 3;
    let (model, report) = pmd::read(&bytes_of(&file), &LoadOptions::default()).expect("reads");
    let note = report
        .notes
        .iter()
        .find(|n| n.location.section == "bones")
        .expect("a note on the bone");
    assert_eq!(note.location.element, Some(bones::UPPER_BODY));
    assert_eq!(note.location.field, "kind");
    assert_eq!(
        note.location.offset,
        pmd::Layout::of(&file).bones + 2 + 2 * 39 + 24
    );
    assert!(note.lost);
    assert_eq!(
        model.bones[bones::UPPER_BODY].flags,
        BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE | BoneFlags::TAIL_IS_BONE
    );
}

#[test]
fn ik_chains_with_several_links() {
    let model = model_of(&sample_file());
    let leg_ik = &model.bones[bones::LEG_IK].ik;
    assert_eq!(leg_ik.target, Some(BoneIdx::new(bones::ANKLE)));
    assert_eq!(leg_ik.loop_count, 40);
    // PMD's 0.5 is PMX's 2 radians: "PMDのIK値とは4倍異なる".
    assert_eq!(leg_ik.limit_angle, 2.0);
    assert_eq!(leg_ik.links.len(), 2);
    // The knee (ひざ) gets the usual X-axis limit, -180°..-0.5°; the leg none.
    assert_eq!(leg_ik.links[0].bone, Some(BoneIdx::new(bones::KNEE)));
    let knee = leg_ik.links[0].limits.expect("knee limits");
    assert_eq!(knee.lower, Vec3::new(-std::f32::consts::PI, 0.0, 0.0));
    assert_eq!(knee.upper, Vec3::new((-0.5f32).to_radians(), 0.0, 0.0));
    assert_eq!(leg_ik.links[1].bone, Some(BoneIdx::new(bones::LEG)));
    assert_eq!(leg_ik.links[1].limits, None);
    let toe_ik = &model.bones[bones::TOE_IK].ik;
    assert_eq!(toe_ik.limit_angle, 4.0);
    assert_eq!(toe_ik.loop_count, 3);
    // Bones without IK keep empty IK data, as the PMX reader leaves it.
    assert_eq!(model.bones[bones::LEG].ik.links.len(), 0);
}

#[test]
fn ik_list_order_may_change_but_chains_survive() {
    let mut file = sample_file();
    file.iks.reverse();
    let back = pmd_of(&model_of(&file));
    // The writer lists IK chains in bone order.
    assert_eq!(back.iks, sample_file().iks);
}

#[test]
fn a_second_ik_chain_on_one_bone_goes_to_a_child_copy() {
    let mut file = sample_file();
    file.iks.push(PmdIk {
        bone: bones::LEG_IK as u16,
        target: bones::TOE as u16,
        iterations: 7,
        limit: 0.25,
        links: vec![bones::ANKLE as u16],
    });
    let (model, report) = pmd::read(&bytes_of(&file), &LoadOptions::default()).expect("reads");
    assert_eq!(model.bones.len(), file.bones.len() + 1);
    let copy = model.bones.last().expect("the copy");
    assert_eq!(copy.name_ja.as_str(), "左足ＩＫ+");
    assert_eq!(copy.parent, Some(BoneIdx::new(bones::LEG_IK)));
    assert_eq!(copy.ik.target, Some(BoneIdx::new(bones::TOE)));
    assert_eq!(copy.ik.loop_count, 7);
    assert_eq!(copy.layer, 1);
    assert!(report.notes.iter().any(|n| n.location.section == "iks"));
}

/// Layers matter where a bone's parent comes later in the bone list: PMX deforms by (layer,
/// index), so a child at a lower index than its IK parent must get the IK's layer, or it would
/// deform before its parent. The same for the chain under a rotation-influenced bone.
#[test]
fn deform_layers_follow_ik_and_rotation_influenced_chains() {
    use BoneKind::*;
    let bone = |name: &str, parent: u16, kind: BoneKind, ik_parent: u16| PmdBone {
        name: name.into(),
        parent,
        tail: 0,
        kind: kind.to_raw(),
        ik_parent,
        position: Vec3::new(0.0, 1.0, 0.0),
    };
    let none = u16::MAX;
    let file = PmdFile {
        bones: vec![
            bone("root", none, RotateMove, 0),
            bone("under ik", 3, Rotate, 0), // index 1, parent 3
            bone("under under ik", 1, Rotate, 0),
            bone("ik", 0, Ik, 0), // index 3
            bone("influenced", 3, RotationInfluenced, 0),
            bone("under influenced", 4, Rotate, 0),
            bone("free", 0, Rotate, 0),
            bone("cycle a", 8, Rotate, 0),
            bone("cycle b", 7, Rotate, 0),
        ],
        iks: vec![PmdIk {
            bone: 3,
            target: 6,
            iterations: 1,
            limit: 1.0,
            links: vec![],
        }],
        ..PmdFile::default()
    };
    let model = model_of(&file);
    let layers: Vec<i32> = model.bones.iter().map(|b| b.layer).collect();
    assert_eq!(layers, [0, 1, 1, 1, 2, 2, 0, 0, 0]);
    // The writer derives the same layers, so nothing is reported lost.
    assert_eq!(pmd::pmd_losses(&model), Vec::new());
    // A layer PMD cannot express is reported.
    let mut edited = model.clone();
    edited.bones[6].layer = 3;
    let losses = pmd::pmd_losses(&edited);
    assert_eq!(losses.len(), 1);
    assert_eq!(losses[0].path, "bones[6].layer");
}

/// Where the layers change the deformation: MMD deforms every PMD bone down the hierarchy, so
/// a bone under an IK bone follows it. In PMX the IK bone deforms in layer 1; its child
/// (左つま先ＩＫ under 左足ＩＫ) must be in layer 1 too, or it deforms in layer 0, before its
/// parent, and stays behind. The same for the tip under a rotation-influenced eye (layer 2).
#[test]
fn the_layer_adjustment_keeps_children_following_their_parents() {
    use glam::{Quat, Vec3 as V};
    use pmx_core::pose::{Pose, PoseEvaluator};
    let model = model_of(&sample_file());
    assert_eq!(model.bones[bones::LEG_IK].layer, 1);
    assert_eq!(model.bones[bones::TOE_IK].layer, 1);
    assert_eq!(model.bones[bones::EYE].layer, 2);
    assert_eq!(model.bones[bones::EYE_TIP].layer, 2);

    let mut pose = Pose::new(&model);
    pose.set_bone(
        BoneIdx::new(bones::LEG_IK),
        Quat::IDENTITY,
        V::new(0.0, 0.0, 1.0),
    );
    let turn = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    pose.set_bone(BoneIdx::new(bones::EYES), turn, V::ZERO);
    let position = |model: &Model, bone: usize| -> V {
        let mut evaluator = PoseEvaluator::new(model);
        evaluator.evaluate_bones(model, &pose).expect("evaluates");
        evaluator
            .skeleton
            .global(BoneIdx::new(bone))
            .expect("bone")
            .translation
            .into()
    };
    let rest = |bone: usize| V::from(model.bones[bone].position);
    let close = |a: V, b: V| (a - b).length() < 1e-5;

    // The toe IK moves with the leg IK.
    let toe_ik = position(&model, bones::TOE_IK);
    assert!(
        close(toe_ik, rest(bones::TOE_IK) + V::new(0.0, 0.0, 1.0)),
        "{toe_ik}"
    );
    // The eye follows 両目 (append ×1), and the tip turns with the eye.
    let tip = position(&model, bones::EYE_TIP);
    let expected = rest(bones::EYE) + turn * (rest(bones::EYE_TIP) - rest(bones::EYE));
    assert!(close(tip, expected), "{tip} != {expected}");

    // Without the adjustment of the chains (only the IK and eye bones moved to their layers),
    // the children deform first and are left behind.
    let mut unadjusted = model.clone();
    unadjusted.bones[bones::TOE_IK].layer = 0;
    unadjusted.bones[bones::EYE_TIP].layer = 0;
    assert!(close(
        position(&unadjusted, bones::TOE_IK),
        rest(bones::TOE_IK)
    ));
    assert!(!close(position(&unadjusted, bones::EYE_TIP), expected));
}

#[test]
fn skins_become_vertex_morphs_with_panels() {
    let model = model_of(&sample_file());
    assert_eq!(model.morphs.len(), 3, "the base skin is not a morph");
    let blink = &model.morphs[0];
    assert_eq!(blink.name_ja.as_str(), "まばたき");
    assert_eq!(blink.name_en.as_str(), "blink");
    assert_eq!(blink.panel, MorphPanel::Eye);
    // Base skin indices 0 and 2 are vertices 1 and 4.
    assert_eq!(
        blink.offsets,
        MorphOffsets::Vertex(vec![
            VertexMorphOffset {
                vertex: VertexIdx(1),
                offset: Vec3::new(0.0, -0.1, 0.0)
            },
            VertexMorphOffset {
                vertex: VertexIdx(4),
                offset: Vec3::new(0.0, -0.2, 0.01)
            },
        ])
    );
    assert_eq!(model.morphs[1].panel, MorphPanel::Mouth);
    assert_eq!(model.morphs[2].panel, MorphPanel::Other);
    let back = pmd_of(&model);
    assert_eq!(back.skins, sample_file().skins);
}

#[test]
fn frames_become_root_expression_and_bone_frames() {
    let mut file = sample_file();
    let model = model_of(&file);
    let frames = &model.display_frames;
    assert_eq!(frames.len(), 5);
    assert_eq!(frames[0].name_ja.as_str(), "Root");
    assert!(frames[0].special);
    assert_eq!(frames[0].items, [DisplayItem::Bone(Some(BoneIdx::new(0)))]);
    assert_eq!(frames[1].name_ja.as_str(), "表情");
    assert!(frames[1].special);
    let morph = |i| DisplayItem::Morph(Some(MorphIdx::new(i)));
    assert_eq!(frames[1].items, [morph(1), morph(0), morph(2)]);
    // PMDEditor's "\n" at the end of frame names is not part of the name.
    assert_eq!(frames[2].name_ja.as_str(), "センター");
    assert_eq!(frames[2].name_en.as_str(), "center");
    assert!(!frames[2].special);
    let bone = |i| DisplayItem::Bone(Some(BoneIdx::new(i)));
    assert_eq!(frames[3].items, [bone(2), bone(3)]);
    assert_eq!(frames[4].name_ja.as_str(), "足");
    assert_eq!(frames[4].items, [bone(7), bone(9), bone(4)]);

    // Items of the implicit frame 0 go to Root; the writer cannot put them back (PMD's
    // centre frame holds bone 0 only) and says so.
    file.bone_frame_items
        .push(pmd::PmdBoneFrameItem { bone: 5, frame: 0 });
    let model = model_of(&file);
    assert_eq!(model.display_frames[0].items, [bone(0), bone(5)]);
    let losses = pmd::pmd_losses(&model);
    assert_eq!(losses.len(), 1);
    assert_eq!(losses[0].path, "display_frames[0].items[1]");
}

#[test]
fn toon_list_entries_become_shared_toons_or_textures() {
    let model = model_of(&sample_file());
    let back = pmd_of(&model);
    assert_eq!(back.toon_names, sample_file().toon_names);
    let toons: Vec<u8> = back.materials.iter().map(|m| m.toon_index).collect();
    assert_eq!(toons, [0, 1, 255, 3]);

    // A model made elsewhere: custom toons take the free slots in order of first use.
    let mut model = model.clone();
    model.textures.push("a.bmp".into());
    model.textures.push("toon05.bmp".into());
    model.materials[2].toon = Toon::Texture(Some(TextureIdx::new(5)));
    model.materials[3].toon = Toon::Texture(Some(TextureIdx::new(6)));
    let back = pmd_of(&model);
    let toons: Vec<u8> = back.materials.iter().map(|m| m.toon_index).collect();
    // Slot 0 is shared toon 1; toon_face.bmp takes slot 1, a.bmp slot 2; toon05.bmp is slot 4.
    assert_eq!(toons, [0, 1, 2, 4]);
    let names = back.toon_names.expect("toon list");
    assert_eq!(names[2].as_bytes(), b"a.bmp");
    assert_eq!(names[4].as_bytes(), b"toon05.bmp");
}

#[test]
fn rigid_bodies_and_joints_convert() {
    let file = sample_file();
    let model = model_of(&file);
    let r = &model.rigid_bodies;
    assert_eq!(r.len(), 3);
    // Bone-relative position + the bone's position (首 at (3.5, 14, -0.5)).
    assert_eq!(r[0].bone, Some(BoneIdx::new(bones::NECK)));
    assert_eq!(r[0].position, Vec3::new(3.625, 15.0, -0.75));
    // No bone: relative to センター at (2, 8, -0.5).
    assert_eq!(r[1].bone, None);
    assert_eq!(r[1].position, Vec3::new(2.125, 14.5, -0.75));
    assert_eq!(r[1].shape, RigidShape::Capsule);
    assert_eq!(r[1].mode, RigidMode::Physics);
    assert_eq!(r[2].mode, RigidMode::PhysicsWithBone);
    // The mask is the same 16-bit value in PMD and PMX.
    assert_eq!(r[0].non_collision_mask, 0xFFFF - (1 << 3));
    assert_eq!(r[0].group, 3);
    assert_eq!(r[0].mass, 1.5);
    assert_eq!(r[0].angular_damping, 0.6);
    let j = &model.joints;
    assert_eq!(j.len(), 2);
    assert_eq!(j[0].body_a, Some(RigidBodyIdx::new(0)));
    assert_eq!(j[0].body_b, Some(RigidBodyIdx::new(1)));
    assert_eq!(j[1].body_a, None);
    assert_eq!(j[0].kind, JointKind::Spring6Dof);
    assert_eq!(j[0].move_upper, Vec3::new(0.1, 0.2, 0.3));
    assert_eq!(j[0].spring_rotate, Vec3::new(100.0, 200.0, 300.0));
    let back = pmd_of(&model);
    assert_eq!(back.rigid_bodies, file.rigid_bodies);
    assert_eq!(back.joints, file.joints);
}

#[test]
fn files_without_extensions_read_and_round_trip() {
    let full = sample_file();
    let full_bytes = bytes_of(&full);
    let layout = pmd::Layout::of(&full);
    // Older files end after the bone frames, the English names, the toon list or the rigid
    // bodies: each is a valid file.
    for (end, english, toons, bodies) in [
        (layout.english, false, false, false),
        (layout.toon_names, true, false, false),
        (layout.rigid_bodies, true, true, false),
        (layout.joints, true, true, true),
    ] {
        let (file, report) = pmd::read_file(&full_bytes[..end], &LoadOptions::default())
            .unwrap_or_else(|e| panic!("a file ending at {end}: {e}"));
        assert!(report.notes.is_empty());
        assert_eq!(file.english.is_some(), english);
        assert_eq!(file.toon_names.is_some(), toons);
        assert_eq!(file.rigid_bodies.is_some(), bodies);
        assert_eq!(file.joints, None);
        assert_eq!(bytes_of(&file), full_bytes[..end]);
    }

    let file = sample_without_extensions();
    let model = model_of(&file);
    // Without a toon list, toon indices are the shared toons.
    assert_eq!(model.materials[1].toon, Toon::Shared(1));
    assert_eq!(model.info.name_en.as_str(), "");
    assert!(model.rigid_bodies.is_empty());
    // PMD → model → PMD writes the extensions (empty); every section before them is kept.
    let back = pmd_of(&model);
    assert_same_file(
        &PmdFile {
            english_flag: None,
            english: None,
            toon_names: None,
            rigid_bodies: None,
            joints: None,
            ..back.clone()
        },
        &file,
    );
    assert_eq!(back.toon_names, Some(pmd::default_toon_names()));
    assert_eq!(back.rigid_bodies, Some(Vec::new()));
}

#[test]
fn english_flag_zero_has_no_names_but_later_extensions() {
    let mut file = sample_file();
    file.english_flag = Some(0);
    file.english = None;
    let bytes = bytes_of(&file);
    let (back, _) = pmd::read_file(&bytes, &LoadOptions::default()).expect("reads");
    assert_same_file(&back, &file);
    assert!(back.rigid_bodies.is_some());
}

#[test]
fn trailing_bytes_survive_pmd_to_pmd_and_are_noted_when_converted() {
    let mut file = sample_file();
    file.trailing = b"extension".to_vec();
    let bytes = bytes_of(&file);
    let (back, _) = pmd::read_file(&bytes, &LoadOptions::default()).expect("reads");
    assert_eq!(back.trailing, b"extension");
    let (_, report) = pmd::read(&bytes, &LoadOptions::default()).expect("reads");
    let note = report.notes.last().expect("a note");
    assert_eq!(note.location.section, "end");
    assert_eq!(note.location.offset, bytes.len() - 9);
    assert!(note.lost);
}

// ---------------------------------------------------------------------------------------------
// Model → PMD: the loss report.

fn losses_at(model: &Model, prefix: &str) -> Vec<String> {
    pmd::pmd_losses(model)
        .into_iter()
        .filter(|l| l.path.to_string().starts_with(prefix))
        .map(|l| format!("{}: {}", l.path, l.message))
        .collect()
}

#[test]
fn bdef4_sdef_and_qdef_reduce_to_bdef2_on_the_two_largest_weights() {
    let mut model = model_of(&sample_file());
    let b = |i| Some(BoneIdx::new(i));
    model.vertices[0].weight = Weight::Bdef4 {
        bones: [b(1), b(2), b(3), b(4)],
        weights: [0.1, 0.5, 0.0, 0.3],
    };
    model.vertices[1].weight = Weight::Qdef {
        bones: [b(1), b(2), b(3), b(4)],
        weights: [0.25, 0.25, 0.25, 0.25],
    };
    model.vertices[2].weight = Weight::Sdef {
        bones: [b(5), b(6)],
        weight: 0.7,
        c: Vec3::ZERO,
        r0: Vec3::ZERO,
        r1: Vec3::ZERO,
    };
    let (bytes, report) = pmd::write(&model).expect("writes");
    let file = pmd::read_file(&bytes, &LoadOptions::default()).unwrap().0;
    // 0.5 and 0.3 kept, renormalised: 62.5 % rounds to 63.
    assert_eq!(file.vertices[0].bones, [2, 4]);
    assert_eq!(file.vertices[0].weight, 63);
    // Ties keep the first bones.
    assert_eq!(file.vertices[1].bones, [1, 2]);
    assert_eq!(file.vertices[1].weight, 50);
    assert_eq!(file.vertices[2].bones, [5, 6]);
    assert_eq!(file.vertices[2].weight, 70);
    let paths: Vec<String> = report.losses.iter().map(|l| l.path.to_string()).collect();
    assert_eq!(
        paths,
        [
            "vertices[0].weight",
            "vertices[1].weight",
            "vertices[2].weight"
        ]
    );
    assert!(
        report.losses[0]
            .message
            .starts_with("BDEF4 reduced to BDEF2")
    );
    assert!(report.losses[0].message.contains("dropped bone 1 (0.1)"));
    assert!(
        report.losses[1]
            .message
            .starts_with("QDEF reduced to BDEF2")
    );
    assert!(
        report.losses[2]
            .message
            .starts_with("SDEF is written as BDEF2")
    );
    assert_eq!(report.losses, pmd::pmd_losses(&model));
}

#[test]
fn names_are_cut_at_a_character_boundary() {
    let mut model = model_of(&sample_file());
    // 10 two-byte characters: 20 bytes, one more than the 19 a bone name has before its NUL.
    model.bones[0].name_ja = "あいうえおかきくけこ".into();
    // "a" + 10 two-byte characters is 21 bytes; at 19, no half character is written.
    model.morphs[0].name_ja = "aあいうえおかきくけこ".into();
    model.info.name_en = "ModelNameThatIsWayTooLong".into();
    model.bones[1].name_en = "😀x".into();
    let losses = pmd::pmd_losses(&model);
    let messages: Vec<String> = losses.iter().map(ToString::to_string).collect();
    assert_eq!(
        messages,
        [
            "info.name_en: \"ModelNameThatIsWayTooLong\" is 25 bytes in Shift-JIS; cut to 19 \
             bytes (the field holds 19): \"ModelNameThatIsWayT\"",
            "bones[0].name_ja: \"あいうえおかきくけこ\" is 20 bytes in Shift-JIS; cut to 18 bytes \
             (the field holds 19): \"あいうえおかきくけ\"",
            "bones[1].name_en: characters \"😀\" have no Shift-JIS code; written as '?'",
            "morphs[0].name_ja: \"aあいうえおかきくけこ\" is 21 bytes in Shift-JIS; cut to 19 \
             bytes (the field holds 19): \"aあいうえおかきくけ\"",
        ]
    );
    let back = pmd_of(&model);
    assert_eq!(back.bones[0].name.as_bytes().len(), 18);
    assert_eq!(
        back.english.as_ref().unwrap().bone_names[1].as_bytes(),
        b"?x"
    );
}

#[test]
fn pmx_only_features_are_listed() {
    let mut model = model_of(&sample_file());
    model.header.version = PmxVersion::V2_1;
    model.additional_uvs = vec![vec![Vec4::ZERO; 6]];
    model.vertices[3].edge_scale = 0.5;
    model.morphs.push(Morph {
        name_ja: "笑い".into(),
        name_en: Text::default(),
        panel: MorphPanel::Other,
        offsets: MorphOffsets::Bone(Vec::new()),
    });
    model.morphs.push(Morph {
        name_ja: "flip".into(),
        name_en: Text::default(),
        panel: MorphPanel::Other,
        offsets: MorphOffsets::Flip(Vec::new()),
    });
    model.bones[bones::UPPER_BODY].flags |= BoneFlags::APPEND_MOVE;
    model.bones[bones::UPPER_BODY].append_parent = Some(BoneIdx::new(0));
    model.bones[bones::NECK].flags |= BoneFlags::AFTER_PHYSICS;
    model.materials[0].draw_flags |= DrawFlags::LINE;
    model.joints[0].kind = JointKind::Hinge;
    model.soft_bodies.push(SoftBody::default());
    let losses = pmd::pmd_losses(&model);
    let paths: Vec<String> = losses.iter().map(|l| l.path.to_string()).collect();
    assert_eq!(
        paths,
        [
            "vertices",
            "vertices[3].edge_scale",
            "materials[0].draw_flags",
            "bones[2].flags",
            "bones[3].flags",
            "morphs[3]",
            "morphs[4]",
            "joints[0].kind",
            "soft_bodies[0]",
        ]
    );
    assert_eq!(
        losses[1].message,
        "edge scale 0.5 is not 0 or 1: PMD only turns a vertex's edge on or off; written as on"
    );
    assert_eq!(
        losses[3].message,
        "append move is dropped: PMD bones append rotation only"
    );
    assert_eq!(
        losses[3].message_ja,
        "移動付与は削除されます。PMDのボーンは回転付与のみです"
    );
    assert_eq!(
        losses[5].message,
        "bone morph \"笑い\" is dropped: PMD has only vertex morphs"
    );
    assert_eq!(
        losses_at(&model, "bones[3]"),
        ["bones[3].flags: deform after physics is dropped: PMD has no such bone setting"]
    );
    let (bytes, report) = pmd::write(&model).expect("writes despite the losses");
    assert_eq!(report.losses, losses);
    let file = pmd::read_file(&bytes, &LoadOptions::default()).unwrap().0;
    assert_eq!(file.vertices[3].edge_flag, 0);
    assert_eq!(file.skins.len(), 4, "base + the 3 vertex morphs");
}

#[test]
fn append_bones_pmd_cannot_express_are_listed() {
    let mut model = model_of(&sample_file());
    // An append with a ratio that is not a whole percentage, and a local append.
    model.bones[bones::ARM_TWIST_1].append_ratio = 0.333;
    model.bones[bones::SHOULDER_P].flags |= BoneFlags::LOCAL_APPEND;
    // Append on an IK bone: IK wins.
    model.bones[bones::LEG_IK].flags |= BoneFlags::APPEND_ROTATE;
    model.bones[bones::LEG_IK].append_parent = Some(BoneIdx::new(0));
    let losses: Vec<String> = pmd::pmd_losses(&model)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        losses,
        [
            "bones[7].append_parent: append rotation is dropped: PMD stores the bone as kind 2 \
             (IK)",
            "bones[14].append_ratio: append ratio 0.333 is stored as a whole percentage: 33%",
            "bones[16].flags: local append is dropped: PMD has no such bone setting",
        ]
    );
}

#[test]
fn more_than_65535_vertices_are_refused() {
    let mut model = model_of(&sample_file());
    model.vertices = vec![Vertex::default(); 65_536];
    let error = pmd::write(&model).expect_err("refused");
    assert_eq!(
        error.to_string(),
        "vertices: 65536 vertices; a PMD file holds at most 65,535 (its face indices are 16-bit)"
    );
    let losses = pmd::pmd_losses(&model);
    assert_eq!(losses[0].path, "vertices");
    assert!(
        losses[0]
            .message
            .ends_with("the model cannot be saved as PMD")
    );
    model.vertices.truncate(65_535);
    assert!(pmd::write(&model).is_ok());
}

#[test]
fn save_path_writes_pmd_and_reports_losses_as_warnings() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("model.pmd");
    let mut model = model_of(&sample_file());
    model.materials[0].memo = "note".into();
    let report = pmx_core::formats::save_path(&model, &path, &Default::default()).expect("saves");
    let warnings: Vec<String> = report.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        ["materials[0].memo: the memo is dropped: PMD has none"]
    );
    let loaded = pmx_core::formats::load_path(&path, &LoadOptions::default()).expect("loads");
    assert_eq!(loaded.format, pmx_core::FileFormat::Pmd);
    assert_eq!(loaded.format.name(), "pmd");
    assert_eq!(loaded.model.bones.len(), sample_file().bones.len());
}

/// The paddings of `pmx_tests::pmd::padding`, each on the sample with every kind of name that
/// fills its field.
fn padded_samples() -> Vec<(&'static str, PmdFile)> {
    use pmx_tests::pmd::padding;
    type Pad = fn(PmdTextSlot, usize) -> Vec<u8>;
    let styles: [(&str, Pad); 4] = [
        ("zeros", padding::zeros),
        ("0xFD", padding::fd),
        ("leftovers", padding::leftover),
        ("mixed", padding::mixed),
    ];
    styles
        .into_iter()
        .map(|(what, pad)| (what, padded(sample_with_full_names(), pad)))
        .collect()
}

#[test]
fn raw_pmd_keeps_the_padding_of_every_text_field() {
    let unpadded = bytes_of(&sample_with_full_names());
    for (what, file) in padded_samples() {
        let bytes = bytes_of(&file);
        assert_eq!(bytes.len(), unpadded.len(), "{what}");
        if what != "0xFD" {
            assert_ne!(bytes, unpadded, "{what}: the padding is written");
        }
        let (back, report) = pmd::read_file(&bytes, &LoadOptions::default()).expect("reads");
        assert!(report.notes.is_empty(), "{what}: {:?}", report.notes);
        assert_eq!(
            bytes_of(&back),
            bytes,
            "{what}: PMD → PMD gives the same bytes"
        );
        // Every field, as read, holds its padding (0xFD after the NUL is the default).
        for ((slot, _, got), (_, _, want)) in back.text_fields().zip(file.text_fields()) {
            assert_eq!(got.bytes, want.bytes, "{what}: {slot:?}");
            let default = want.padding.iter().skip(1).all(|&b| b == pmd::PADDING);
            if !default {
                assert_eq!(got.padding, want.padding, "{what}: {slot:?}");
            }
        }
    }
}

#[test]
fn pmd_to_model_to_pmd_keeps_the_padding_of_every_text_field() {
    let plain = model_of(&sample_with_full_names());
    let options = |target| pmx_core::validate::CheckOptions {
        target,
        ..Default::default()
    };
    let issues = |model: &Model, target| {
        format!(
            "{:?}",
            pmx_core::validate::check(model, None, &options(target))
        )
    };
    for (what, file) in padded_samples() {
        let bytes = bytes_of(&file);
        let (model, report) = pmd::read(&bytes, &LoadOptions::default()).expect("reads");
        assert!(!report.lost_data(), "{what}: {:?}", report.notes);
        assert_eq!(pmd::pmd_losses(&model), Vec::new(), "{what}");
        let (written, losses) = pmd::write(&model).expect("writes");
        assert!(losses.is_empty(), "{what}: {:?}", losses.losses);
        assert_eq!(
            written, bytes,
            "{what}: PMD → model → PMD gives the same bytes"
        );

        // The padding travels with the model and nowhere else: the model is the plain one
        // but for it, the validator says the same, and PMX gets the same bytes.
        let without = Model {
            pmd: plain.pmd.clone(),
            ..model.clone()
        };
        assert_eq!(without, plain, "{what}");
        for target in [None, Some(pmx_core::validate::Target::Pmd)] {
            assert_eq!(issues(&model, target), issues(&plain, target), "{what}");
        }
        let pmx_of = |model: &Model| pmx::write(model, &PmxSaveOptions::default()).unwrap().0;
        assert_eq!(pmx_of(&model), pmx_of(&plain), "{what}");

        // A document saved as JSON keeps it.
        let json = pmx_core::formats::json::write(&model).expect("JSON writes");
        let (from_json, _) = pmx_core::formats::json::read(&json).expect("JSON reads");
        assert_eq!(from_json, model, "{what}");
        assert_eq!(
            pmd::write(&from_json).unwrap().0,
            bytes,
            "{what}: through JSON"
        );
    }
    // PMDEditor's padding needs no record; a model from PMX has none and its JSON no key.
    let (fd_only, _) = pmd::read(&bytes_of(&sample_file()), &LoadOptions::default()).unwrap();
    assert!(fd_only.pmd.is_empty());
    let json = pmx_core::formats::json::write(&fd_only).unwrap();
    assert!(!String::from_utf8(json).unwrap().contains("\"pmd\""));
}

#[test]
fn edited_names_get_the_default_padding_and_the_others_stay_exact() {
    let file = padded(sample_with_full_names(), pmx_tests::pmd::padding::leftover);
    let (mut model, _) = pmd::read(&bytes_of(&file), &LoadOptions::default()).unwrap();
    // Renamed: a padded name, a name that filled its field, an English name and the comment.
    model.bones[bones::UPPER_BODY].name_ja = "上半身2".into();
    model.bones[bones::NECK].name_ja = "首".into();
    model.bones[bones::ROOT].name_en = "root".into();
    model.info.comment_ja = "新しいコメント".into();
    // Moved: the two joints change places (nothing refers to joints).
    model.joints.swap(0, 1);

    let mut expected = file.clone();
    expected.bones[bones::UPPER_BODY].name = FixedText::from("上半身2");
    expected.bones[bones::NECK].name = FixedText::from("首");
    expected.english.as_mut().unwrap().bone_names[0] = FixedText::from("root");
    expected.comment = FixedText::from("新しいコメント");
    let joints = expected.joints.as_mut().unwrap();
    joints.swap(0, 1);
    for joint in joints.iter_mut() {
        joint.name.padding.clear();
    }
    // Moved, the name that filled its field is a 20-byte name like any other: cut to leave
    // room for the terminator, and listed.
    joints[1].name.bytes.truncate(19);
    let (written, losses) = pmd::write(&model).expect("writes");
    let paths: Vec<String> = losses.losses.iter().map(|l| l.path.to_string()).collect();
    assert_eq!(paths, ["joints[1].name_ja"]);
    assert_eq!(written, bytes_of(&expected));

    // Named back, an element gets its padding back: the record is never out of date.
    model.bones[bones::UPPER_BODY].name_ja = "上半身".into();
    expected.bones[bones::UPPER_BODY].name = file.bones[bones::UPPER_BODY].name.clone();
    assert_eq!(pmd::write(&model).unwrap().0, bytes_of(&expected));
}
