//! PMD files built in code for the PMD tests.

use pmx_core::formats::pmd::*;
use pmx_core::model::{PmdTextSlot, Vec2, Vec3};

fn text(s: &str) -> FixedText {
    FixedText::from(s)
}

fn bone(name: &str, parent: u16, tail: u16, kind: BoneKind, ik_parent: u16, y: f32) -> PmdBone {
    PmdBone {
        name: text(name),
        parent,
        tail,
        kind: kind.to_raw(),
        ik_parent,
        position: Vec3::new(0.25 * y, y, -0.5),
    }
}

fn vertex(x: f32, bones: [u16; 2], weight: u8, edge_flag: u8) -> PmdVertex {
    PmdVertex {
        position: Vec3::new(x, 2.0 * x, 0.5),
        normal: Vec3::new(0.0, 1.0, 0.0),
        uv: Vec2::new(x / 8.0, 1.0 - x / 8.0),
        bones,
        weight,
        edge_flag,
    }
}

fn material(texture: &str, toon_index: u8, alpha: f32, edge_flag: u8) -> PmdMaterial {
    PmdMaterial {
        diffuse: Vec3::new(0.8, 0.7, 0.6),
        alpha,
        specular_power: 12.5,
        specular: Vec3::new(0.1, 0.2, 0.3),
        ambient: Vec3::new(0.4, 0.35, 0.3),
        toon_index,
        edge_flag,
        face_index_count: 3,
        texture: text(texture),
    }
}

/// Bone indices of [`sample_file`].
pub mod bones {
    pub const ROOT: usize = 0;
    pub const CENTER: usize = 1;
    pub const UPPER_BODY: usize = 2;
    pub const NECK: usize = 3;
    pub const LEG: usize = 4;
    pub const KNEE: usize = 5;
    pub const ANKLE: usize = 6;
    pub const LEG_IK: usize = 7;
    pub const TOE: usize = 8;
    pub const TOE_IK: usize = 9;
    pub const EYES: usize = 10;
    pub const EYE: usize = 11;
    pub const EYE_TIP: usize = 12;
    pub const ARM_TWIST: usize = 13;
    pub const ARM_TWIST_1: usize = 14;
    pub const ELBOW: usize = 15;
    pub const SHOULDER_P: usize = 16;
}

/// A PMD file with every section and extension and every bone kind except the meaningless 3:
/// two IK chains (one of two links through a knee), a rotation-influenced eye, twist and
/// rotation-motion bones, a base skin and three skins, three bone frames, a toon list with one
/// custom toon, three rigid bodies (one without a bone) and two joints (one without body A).
///
/// Every value is one that PMD → model → PMD gives back as it is (see the PMD module docs).
#[must_use]
pub fn sample_file() -> PmdFile {
    use BoneKind::*;
    let none = u16::MAX;
    let vertices = vec![
        vertex(0.0, [0, 0], 100, 0),
        vertex(1.0, [2, 3], 60, 1),
        vertex(2.0, [4, 5], 100, 0),
        vertex(3.0, [5, 6], 0, 0),
        vertex(4.0, [6, 0], 100, 0),
        vertex(5.0, [1, 2], 50, 1),
    ];
    let bone_list = vec![
        bone("全ての親", none, 1, RotateMove, 0, 0.0),
        bone("センター", 0, 0, RotateMove, 0, 8.0),
        bone("上半身", 1, 3, Rotate, 0, 10.0),
        bone("首", 2, none, Rotate, 0, 14.0),
        bone("左足", 1, 5, IkLink, 0, 7.5),
        bone("左ひざ", 4, 6, IkLink, 0, 4.0),
        bone("左足首", 5, 0, IkLink, 0, 1.0),
        bone("左足ＩＫ", 0, 0, Ik, 0, 1.1),
        bone("左つま先", 6, 0, IkTarget, 0, 0.2),
        bone("左つま先ＩＫ", 7, 0, Ik, 0, 0.1),
        bone("両目", 3, 0, Rotate, 0, 16.0),
        bone("左目", 3, 12, RotationInfluenced, 10, 15.0),
        bone("左目先", 11, 0, Hidden, 0, 15.5),
        bone("左腕捩", 2, 15, Twist, 0, 12.0),
        bone("左腕捩1", 2, 13, RotationMotion, 25, 12.5),
        bone("左ひじ", 13, 0, Rotate, 0, 11.0),
        // −10 %: rotation motion stores the percentage as a signed 16-bit number.
        bone("右肩P", 2, 13, RotationMotion, (-10i16) as u16, 13.0),
    ];
    let skins = vec![
        PmdSkin {
            name: text("base"),
            kind: 0,
            vertices: [1usize, 3, 4]
                .iter()
                .map(|&v| PmdSkinVertex {
                    index: v as u32,
                    position: vertices[v].position,
                })
                .collect(),
        },
        PmdSkin {
            name: text("まばたき"),
            kind: 2,
            vertices: vec![
                PmdSkinVertex {
                    index: 0,
                    position: Vec3::new(0.0, -0.1, 0.0),
                },
                PmdSkinVertex {
                    index: 2,
                    position: Vec3::new(0.0, -0.2, 0.01),
                },
            ],
        },
        PmdSkin {
            name: text("あ"),
            kind: 3,
            vertices: vec![PmdSkinVertex {
                index: 1,
                position: Vec3::new(0.5, 0.0, 0.0),
            }],
        },
        PmdSkin {
            name: text("その他"),
            kind: 4,
            vertices: (0..3)
                .map(|i| PmdSkinVertex {
                    index: i,
                    position: Vec3::new(0.0, 0.0, i as f32),
                })
                .collect(),
        },
    ];
    let mut toon_names = default_toon_names();
    toon_names[1] = text("toon_face.bmp");
    let english = PmdEnglish {
        name: text("Sample"),
        comment: text("A sample model\r\nfor tests"),
        bone_names: (0..bone_list.len())
            .map(|i| match i {
                0 => text("master"),
                1 => text("center"),
                5 => text("knee_L"),
                _ => FixedText::default(),
            })
            .collect(),
        skin_names: vec![text("blink"), text("a"), text("other")],
        bone_frame_names: vec![text("center"), text("upper body"), text("legs")],
    };
    let rigid = |name: &str, bone: u16, shape: u8, mode: u8, y: f32| PmdRigidBody {
        name: text(name),
        bone,
        group: (bone % 16) as u8,
        collision_mask: 0xFFFF - (1 << (bone % 16)),
        shape,
        size: Vec3::new(0.5, 1.0, 0.25),
        // Dyadic values: bone position + offset - bone position gives the offset back
        // exactly, so the PMD → PMX → PMD comparison can be exact.
        position: Vec3::new(0.125, y, -0.25),
        rotation: Vec3::new(0.0, 0.5, 1.5707964),
        mass: 1.5,
        linear_damping: 0.5,
        angular_damping: 0.6,
        restitution: 0.1,
        friction: 0.7,
        mode,
    };
    let joint = |name: &str, body_a: u32, body_b: u32| PmdJoint {
        name: text(name),
        body_a,
        body_b,
        position: Vec3::new(0.0, 15.0, -0.5),
        rotation: Vec3::new(0.0, 0.0, 0.1),
        move_lower: Vec3::new(-0.1, -0.2, -0.3),
        move_upper: Vec3::new(0.1, 0.2, 0.3),
        rotate_lower: Vec3::new(-0.5, -0.6, -0.7),
        rotate_upper: Vec3::new(0.5, 0.6, 0.7),
        spring_move: Vec3::new(0.0, 0.0, 0.0),
        spring_rotate: Vec3::new(100.0, 200.0, 300.0),
    };
    PmdFile {
        version: 1.0,
        name: text("サンプル"),
        comment: text("PMD のテスト用モデル\r\n2 行目"),
        vertices,
        face_indices: vec![0, 1, 2, 3, 4, 5, 0, 2, 4, 1, 3, 5],
        materials: vec![
            material("body.bmp*metal.sph", 0, 1.0, 1),
            material("face.png", 1, 1.0, 1),
            material("eye.spa", u8::MAX, 0.98, 0),
            material("", 3, 0.5, 0),
        ],
        iks: vec![
            PmdIk {
                bone: bones::LEG_IK as u16,
                target: bones::ANKLE as u16,
                iterations: 40,
                limit: 0.5,
                links: vec![bones::KNEE as u16, bones::LEG as u16],
            },
            PmdIk {
                bone: bones::TOE_IK as u16,
                target: bones::TOE as u16,
                iterations: 3,
                limit: 1.0,
                links: vec![bones::ANKLE as u16],
            },
        ],
        bones: bone_list,
        skins,
        skin_display: vec![2, 1, 3],
        bone_frame_names: vec![text("センター\n"), text("体(上)\n"), text("足\n")],
        bone_frame_items: vec![
            PmdBoneFrameItem { bone: 1, frame: 1 },
            PmdBoneFrameItem { bone: 2, frame: 2 },
            PmdBoneFrameItem { bone: 3, frame: 2 },
            PmdBoneFrameItem { bone: 7, frame: 3 },
            PmdBoneFrameItem { bone: 9, frame: 3 },
            PmdBoneFrameItem { bone: 4, frame: 3 },
        ],
        english_flag: Some(1),
        english: Some(english),
        toon_names: Some(toon_names),
        rigid_bodies: Some(vec![
            rigid("頭", bones::NECK as u16, 0, 0, 1.0),
            rigid("髪", u16::MAX, 2, 1, 6.5),
            rigid("ひざ", bones::KNEE as u16, 1, 2, -0.25),
        ]),
        joints: Some(vec![joint("髪1", 0, 1), joint("ひざ", u32::MAX, 2)]),
        trailing: Vec::new(),
    }
}

/// [`sample_file`] as an older file that ends before the extensions.
#[must_use]
pub fn sample_without_extensions() -> PmdFile {
    PmdFile {
        english_flag: None,
        english: None,
        toon_names: None,
        rigid_bodies: None,
        joints: None,
        ..sample_file()
    }
}

/// [`sample_file`] with a text that fills its field to the last byte (no terminator) in every
/// section that has names: MikuMikuDance reads such names, and old tools wrote them.
#[must_use]
pub fn sample_with_full_names() -> PmdFile {
    let mut file = sample_file();
    file.name = text("Full model name: 20B");
    file.comment = FixedText::new(b"c".repeat(field::COMMENT));
    file.materials[1].texture = text("face_texture_001.png");
    // Ten two-byte characters.
    file.bones[bones::NECK].name = text("くびくびくびくびくび");
    file.skins[1].name = text("まばたきまばたきまば");
    // 49 bytes and the "\n" PMDEditor ends frame names with.
    file.bone_frame_names[1] = FixedText::new([b"f".repeat(49), b"\n".to_vec()].concat());
    if let Some(english) = &mut file.english {
        english.name = text("A sample, 20 bytes..");
        english.bone_names[0] = text("master_bone_of_model");
        english.skin_names[2] = text("other_skin_is_twenty");
        english.bone_frame_names[0] = FixedText::new(b"e".repeat(field::FRAME_NAME));
    }
    if let Some(toons) = &mut file.toon_names {
        toons[1] = FixedText::new([b"t".repeat(96), b".bmp".to_vec()].concat());
    }
    if let Some(bodies) = &mut file.rigid_bodies {
        bodies[1].name = text("hair_body_twenty_b_1");
    }
    if let Some(joints) = &mut file.joints {
        joints[0].name = text("hair_joint_twenty__1");
    }
    file
}

/// `file` with the padding `pad(slot, room)` after the text of every field the text leaves room
/// in (`room`: the bytes after the text, terminator included). `pad` must return `room` bytes
/// starting with a NUL.
#[must_use]
pub fn padded(mut file: PmdFile, pad: impl Fn(PmdTextSlot, usize) -> Vec<u8>) -> PmdFile {
    let rooms: Vec<(PmdTextSlot, usize)> = file
        .text_fields()
        .map(|(slot, len, text)| (slot, len.saturating_sub(text.bytes.len())))
        .filter(|&(_, room)| room > 0)
        .collect();
    for (slot, room) in rooms {
        let padding = pad(slot, room);
        assert_eq!(padding.len(), room, "{slot:?}");
        if let Some(text) = file.text_field_mut(slot) {
            text.padding = padding;
        }
    }
    file
}

/// The paddings files use: MikuMikuDance's zeros, PMDEditor's 0xFD, and the leftover bytes of
/// an older, longer text.
pub mod padding {
    use super::PADDING;
    use pmx_core::model::PmdTextSlot;

    #[must_use]
    pub fn zeros(_: PmdTextSlot, room: usize) -> Vec<u8> {
        vec![0; room]
    }

    #[must_use]
    pub fn fd(_: PmdTextSlot, room: usize) -> Vec<u8> {
        let mut bytes = vec![PADDING; room];
        bytes[0] = 0;
        bytes
    }

    #[must_use]
    pub fn leftover(_: PmdTextSlot, room: usize) -> Vec<u8> {
        let old = "an older name\u{0}, then 0xFD: \u{FD}\u{FD}".as_bytes();
        std::iter::once(0)
            .chain(old.iter().copied().cycle())
            .take(room)
            .collect()
    }

    /// A different one of the three by field, as a file edited by several tools has.
    #[must_use]
    pub fn mixed(slot: PmdTextSlot, room: usize) -> Vec<u8> {
        let styles = [zeros, fd, leftover];
        let which = format!("{slot:?}").len() % styles.len();
        styles[which](slot, room)
    }
}
