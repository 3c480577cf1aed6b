//! One case per rule and code: the rule fires on a broken model built in code, stays silent on
//! the good one, and (where it has one) its fix removes the issue and undoes exactly.

use super::*;
use crate::edit::History;
use crate::formats::{LoadNote, LoadOptions, LoadReport, Location, ReadError, pmx};
use crate::model::*;
use std::collections::BTreeSet;

/// A small model every rule is silent on: a weighted quad, a leg with IK and a D bone, a
/// fixed-axis bone, a vertex and a group morph, two rigid bodies and a joint, all in frames.
fn good_model() -> Model {
    let mut m = Model::new_empty();
    m.info.name_ja = "テスト".into();
    m.info.name_en = "test".into();
    let bone = |name: &str, parent: Option<usize>| Bone {
        name_ja: name.into(),
        name_en: "b".into(),
        parent: parent.map(BoneIdx::new),
        flags: BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE,
        ..Bone::default()
    };
    m.bones = vec![
        bone("センター", None),
        bone("上半身", Some(0)),
        bone("首", Some(1)),
        bone("右足", Some(0)),
        bone("右ひざ", Some(3)),
        bone("右足首", Some(4)),
        bone("右足ＩＫ", Some(0)),
        bone("右足D", Some(0)),
        bone("捩", Some(1)),
    ];
    m.bones[6].flags |= BoneFlags::IK;
    m.bones[6].ik = Ik {
        target: Some(BoneIdx::new(5)),
        loop_count: 40,
        limit_angle: 2.0,
        links: vec![
            IkLink {
                bone: Some(BoneIdx::new(4)),
                limits: Some(AngleLimits {
                    lower: Vec3::new(-3.0, 0.0, 0.0),
                    upper: Vec3::new(-0.01, 0.0, 0.0),
                }),
            },
            IkLink {
                bone: Some(BoneIdx::new(3)),
                limits: None,
            },
        ],
    };
    m.bones[7].flags |= BoneFlags::APPEND_ROTATE;
    m.bones[7].append_parent = Some(BoneIdx::new(3));
    m.bones[8].flags |= BoneFlags::FIXED_AXIS;
    m.bones[8].fixed_axis = Vec3::new(1.0, 0.0, 0.0);
    let b = |i: usize| Some(BoneIdx::new(i));
    let vertex = |x: f32, y: f32, weight: Weight| Vertex {
        position: Vec3::new(x, y, 0.0),
        normal: Vec3::new(0.0, 0.0, -1.0),
        uv: Vec2::new(x, 1.0 - y),
        weight,
        edge_scale: 1.0,
    };
    m.vertices = vec![
        vertex(0.0, 0.0, Weight::Bdef1 { bone: b(1) }),
        vertex(
            1.0,
            0.0,
            Weight::Bdef2 {
                bones: [b(1), b(2)],
                weight: 0.5,
            },
        ),
        vertex(
            1.0,
            1.0,
            Weight::Bdef4 {
                bones: [b(1), b(2), b(3), None],
                weights: [0.5, 0.3, 0.2, 0.0],
            },
        ),
        vertex(
            0.0,
            1.0,
            Weight::Sdef {
                bones: [b(1), b(2)],
                weight: 0.5,
                c: Vec3::new(0.0, 1.0, 0.0),
                r0: Vec3::new(0.0, 1.2, 0.0),
                r1: Vec3::new(0.0, 0.8, 0.0),
            },
        ),
    ];
    m.faces = vec![
        [VertexIdx(0), VertexIdx(1), VertexIdx(2)],
        [VertexIdx(0), VertexIdx(2), VertexIdx(3)],
    ];
    m.textures = vec!["tex.png".into()];
    m.materials = vec![Material {
        name_ja: "材質".into(),
        name_en: "material".into(),
        texture: Some(TextureIdx::new(0)),
        face_index_count: 6,
        ..Material::default()
    }];
    m.morphs = vec![
        Morph {
            name_ja: "あ".into(),
            name_en: "a".into(),
            panel: MorphPanel::Mouth,
            offsets: MorphOffsets::Vertex(vec![VertexMorphOffset {
                vertex: VertexIdx(0),
                offset: Vec3::new(0.0, 0.1, 0.0),
            }]),
        },
        Morph {
            name_ja: "グループ".into(),
            name_en: "group".into(),
            panel: MorphPanel::Other,
            offsets: MorphOffsets::Group(vec![GroupMorphOffset {
                morph: Some(MorphIdx::new(0)),
                ratio: 0.5,
            }]),
        },
    ];
    m.display_frames[0].items = vec![DisplayItem::Bone(b(0))];
    m.display_frames[1].items = vec![
        DisplayItem::Morph(Some(MorphIdx::new(0))),
        DisplayItem::Morph(Some(MorphIdx::new(1))),
    ];
    m.display_frames.push(DisplayFrame {
        name_ja: "体".into(),
        name_en: "body".into(),
        special: false,
        items: [1, 2, 8].map(|i| DisplayItem::Bone(b(i))).to_vec(),
    });
    m.display_frames.push(DisplayFrame {
        name_ja: "足".into(),
        name_en: "legs".into(),
        special: false,
        items: [3, 4, 5, 6, 7].map(|i| DisplayItem::Bone(b(i))).to_vec(),
    });
    m.rigid_bodies = vec![
        RigidBody {
            name_ja: "剛体0".into(),
            bone: b(1),
            ..RigidBody::default()
        },
        RigidBody {
            name_ja: "剛体1".into(),
            bone: b(2),
            mode: RigidMode::Physics,
            ..RigidBody::default()
        },
    ];
    m.joints = vec![Joint {
        name_ja: "J".into(),
        body_a: Some(RigidBodyIdx::new(0)),
        body_b: Some(RigidBodyIdx::new(1)),
        ..Joint::default()
    }];
    m
}

fn b(i: usize) -> Option<BoneIdx> {
    Some(BoneIdx::new(i))
}

/// A rule case: `broken` turns the good model into one with exactly the problem `code` names
/// at `path`.
struct Case {
    code: &'static str,
    path: &'static str,
    broken: fn(&mut Model),
    target: Option<Target>,
    /// The case checks a model as read (with a report and its index sizes).
    as_read: bool,
    fixable: bool,
}

const fn case(code: &'static str, path: &'static str, broken: fn(&mut Model)) -> Case {
    Case {
        code,
        path,
        broken,
        target: None,
        as_read: false,
        fixable: true,
    }
}

const fn unfixable(code: &'static str, path: &'static str, broken: fn(&mut Model)) -> Case {
    Case {
        fixable: false,
        ..case(code, path, broken)
    }
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            as_read: true,
            ..case("E-INDEX-SIZE", "header.index_sizes.texture", |m| {
                m.textures
                    .extend((0..130).map(|i| Text::from(format!("t{i}.png"))));
                let mut sizes = IndexSizes::minimal_for(m);
                sizes.texture = 1;
                m.header.index_sizes = Some(sizes);
            })
        },
        case("E-VERSION-FEATURE", "vertices[2].weight", |m| {
            m.vertices[2].weight = Weight::Qdef {
                bones: [b(1), b(2), b(3), None],
                weights: [0.5, 0.3, 0.2, 0.0],
            };
        }),
        case("E-VERSION-FEATURE", "materials[0].draw_flags", |m| {
            m.materials[0].draw_flags |= DrawFlags::VERTEX_COLOR;
        }),
        case("E-VERSION-FEATURE", "morphs[2]", |m| {
            m.morphs.push(Morph {
                name_ja: "フリップ".into(),
                name_en: "flip".into(),
                panel: MorphPanel::Other,
                offsets: MorphOffsets::Flip(vec![]),
            });
            m.display_frames[1]
                .items
                .push(DisplayItem::Morph(Some(MorphIdx::new(2))));
        }),
        case("E-VERSION-FEATURE", "joints[0].kind", |m| {
            m.joints[0].kind = JointKind::Hinge;
        }),
        case("E-VERSION-FEATURE", "soft_bodies[0]", |m| {
            m.soft_bodies.push(SoftBody {
                name_ja: "布".into(),
                material: Some(MaterialIdx::new(0)),
                ..SoftBody::default()
            });
        }),
        case("E-REF-RANGE", "bones[2].parent", |m| {
            m.bones[2].parent = b(99)
        }),
        case("E-REF-RANGE", "vertices[1].weight.bones[1]", |m| {
            m.vertices[1].weight = Weight::Bdef2 {
                bones: [b(1), b(40)],
                weight: 0.5,
            };
        }),
        case("E-REF-RANGE", "faces[1][2]", |m| {
            m.faces[1][2] = VertexIdx(7)
        }),
        case("E-REF-RANGE", "materials[0].texture", |m| {
            m.materials[0].texture = Some(TextureIdx::new(3));
        }),
        case("E-REF-RANGE", "bones[6].ik.links[1].bone", |m| {
            m.bones[6].ik.links[1].bone = BoneIdx::from_raw(-7);
        }),
        case("E-REF-RANGE", "morphs[0].offsets[0].vertex", |m| {
            m.morphs[0].offsets = MorphOffsets::Vertex(vec![VertexMorphOffset {
                vertex: VertexIdx(4),
                offset: Vec3::ZERO,
            }]);
        }),
        case("E-REF-RANGE", "display_frames[2].items[1]", |m| {
            m.display_frames[2]
                .items
                .insert(1, DisplayItem::Bone(b(50)));
        }),
        case("E-REF-RANGE", "rigid_bodies[1].bone", |m| {
            m.rigid_bodies[1].bone = b(9)
        }),
        case("E-REF-RANGE", "joints[0].body_b", |m| {
            m.joints[0].body_b = Some(RigidBodyIdx::new(2));
        }),
        Case {
            target: Some(Target::Pmx(PmxVersion::V2_1)),
            ..case("E-REF-RANGE", "soft_bodies[0].anchors[0].vertex", |m| {
                m.soft_bodies.push(SoftBody {
                    name_ja: "布".into(),
                    material: Some(MaterialIdx::new(0)),
                    anchors: vec![SoftBodyAnchor {
                        rigid_body: Some(RigidBodyIdx::new(0)),
                        vertex: VertexIdx(9),
                        near_mode: false,
                    }],
                    ..SoftBody::default()
                });
            })
        },
        case("E-REF-NONE", "bones[6].ik.links[0].bone", |m| {
            m.bones[6].ik.links[0].bone = None;
        }),
        case("E-REF-NONE", "bones[6].ik.target", |m| {
            m.bones[6].ik.target = None
        }),
        case("E-REF-NONE", "morphs[1].offsets[0].morph", |m| {
            m.morphs[1].offsets = MorphOffsets::Group(vec![GroupMorphOffset {
                morph: None,
                ratio: 1.0,
            }]);
        }),
        case("E-REF-NONE", "display_frames[1].items[0]", |m| {
            m.display_frames[1].items[0] = DisplayItem::Morph(None);
            m.display_frames[1]
                .items
                .push(DisplayItem::Morph(Some(MorphIdx::new(0))));
        }),
        Case {
            target: Some(Target::Pmx(PmxVersion::V2_1)),
            ..case("W-SOFT-BODY-NO-MATERIAL", "soft_bodies[0].material", |m| {
                m.soft_bodies.push(SoftBody {
                    name_ja: "布".into(),
                    ..SoftBody::default()
                });
            })
        },
        case("W-MORPH-GROUP-NESTED", "morphs[2].offsets[0].morph", |m| {
            m.morphs.push(Morph {
                name_ja: "入れ子".into(),
                name_en: "nested".into(),
                panel: MorphPanel::Other,
                offsets: MorphOffsets::Group(vec![GroupMorphOffset {
                    morph: Some(MorphIdx::new(1)),
                    ratio: 0.5,
                }]),
            });
            m.display_frames[1]
                .items
                .push(DisplayItem::Morph(Some(MorphIdx::new(2))));
        }),
        case("W-MORPH-UV-CHANNEL", "morphs[2]", |m| {
            m.morphs.push(Morph {
                name_ja: "追加UV".into(),
                name_en: "uv2".into(),
                panel: MorphPanel::Other,
                offsets: MorphOffsets::AdditionalUv2(vec![]),
            });
            m.display_frames[1]
                .items
                .push(DisplayItem::Morph(Some(MorphIdx::new(2))));
        }),
        case("E-VALUE-NAN", "vertices[1].position", |m| {
            m.vertices[1].position.y = f32::NAN;
        }),
        case("E-VALUE-NAN", "vertices[2].weight", |m| {
            m.vertices[2].weight = Weight::Bdef4 {
                bones: [b(1), b(2), b(3), None],
                weights: [0.5, f32::INFINITY, 0.2, 0.0],
            };
        }),
        case("E-VALUE-NAN", "vertices[0].additional_uvs[0]", |m| {
            m.additional_uvs = vec![vec![Vec4::ZERO; 4]];
            m.additional_uvs[0][0].w = f32::NAN;
        }),
        case("E-VALUE-NAN", "materials[0].diffuse", |m| {
            m.materials[0].diffuse.x = f32::NAN;
        }),
        case("E-VALUE-NAN", "bones[8].fixed_axis", |m| {
            m.bones[8].fixed_axis.z = f32::NEG_INFINITY;
        }),
        case("E-VALUE-NAN", "morphs[0].offsets", |m| {
            m.morphs[0].offsets = MorphOffsets::Vertex(vec![VertexMorphOffset {
                vertex: VertexIdx(0),
                offset: Vec3::new(f32::NAN, 0.0, 0.0),
            }]);
        }),
        case("E-VALUE-NAN", "rigid_bodies[0].mass", |m| {
            m.rigid_bodies[0].mass = f32::NAN;
        }),
        case("E-VALUE-NAN", "joints[0].spring_move", |m| {
            m.joints[0].spring_move.x = f32::NAN;
        }),
        Case {
            target: Some(Target::Pmx(PmxVersion::V2_1)),
            ..case("E-VALUE-NAN", "soft_bodies[0].config.dp", |m| {
                m.soft_bodies.push(SoftBody {
                    name_ja: "布".into(),
                    material: Some(MaterialIdx::new(0)),
                    config: SoftBodyConfig {
                        dp: f32::NAN,
                        ..SoftBodyConfig::default()
                    },
                    ..SoftBody::default()
                });
            })
        },
        case("W-NORMAL-ZERO", "vertices[3].normal", |m| {
            m.vertices[3].normal = Vec3::ZERO;
        }),
        case("W-NORMAL-LENGTH", "vertices[0].normal", |m| {
            m.vertices[0].normal = Vec3::new(0.0, 0.0, -2.0);
        }),
        case("W-WEIGHT-SUM", "vertices[2].weight", |m| {
            m.vertices[2].weight = Weight::Bdef4 {
                bones: [b(1), b(2), b(3), None],
                weights: [0.5, 0.3, 0.1, 0.0],
            };
        }),
        case("W-WEIGHT-NEGATIVE", "vertices[1].weight", |m| {
            m.vertices[1].weight = Weight::Bdef2 {
                bones: [b(1), b(2)],
                weight: 1.5,
            };
        }),
        case("W-WEIGHT-SAME-BONE", "vertices[3].weight", |m| {
            m.vertices[3].weight = Weight::Sdef {
                bones: [b(2), b(2)],
                weight: 0.5,
                c: Vec3::ONE,
                r0: Vec3::ONE,
                r1: Vec3::ONE,
            };
        }),
        case("W-WEIGHT-NO-BONE", "vertices[0].weight", |m| {
            m.vertices[0].weight = Weight::Bdef1 { bone: None };
        }),
        case("W-SDEF-PARAMS", "vertices[3].weight", |m| {
            m.vertices[3].weight = Weight::Sdef {
                bones: [b(1), b(2)],
                weight: 0.5,
                c: Vec3::ZERO,
                r0: Vec3::ZERO,
                r1: Vec3::ZERO,
            };
        }),
        unfixable("I-UV-RANGE", "vertices[2].uv", |m| m.vertices[2].uv.x = 2.0),
        case("W-MATERIAL-FACE-SUM", "materials", |m| {
            m.materials[0].face_index_count = 3;
        }),
        case("W-MATERIAL-FACE-SUM", "materials", |m| {
            m.materials.clear();
        }),
        case("E-MATERIAL-FACE-SUM", "materials", |m| {
            m.materials[0].face_index_count += 3;
        }),
        case(
            "E-MATERIAL-FACE-MULTIPLE",
            "materials[0].face_index_count",
            |m| {
                m.materials[0].face_index_count = 5;
            },
        ),
        case("W-FACE-DEGENERATE", "faces[2]", |m| {
            m.faces.push([VertexIdx(1), VertexIdx(3), VertexIdx(1)]);
            m.materials[0].face_index_count = 9;
        }),
        case("W-FACE-DUPLICATE", "faces[2]", |m| {
            m.faces.push([VertexIdx(2), VertexIdx(0), VertexIdx(1)]);
            m.materials[0].face_index_count = 9;
        }),
        case("W-VERTEX-UNUSED", "vertices[4]", |m| {
            let copy = m.vertices[0].clone();
            m.vertices.push(copy);
        }),
        case("W-COLOR-RANGE", "materials[0].ambient", |m| {
            m.materials[0].ambient.y = -0.5;
        }),
        case("W-BONE-ORDER", "bones[2].parent", |m| m.bones[1].layer = 1),
        case("W-BONE-ORDER", "bones[7].append_parent", |m| {
            // 右足D appends 右足, a link of 右足ＩＫ: it must follow the IK.
            m.bones[6].layer = 1;
        }),
        case("E-BONE-PARENT-CYCLE", "bones[1].parent", |m| {
            m.bones[1].parent = b(2)
        }),
        case("E-BONE-APPEND-CYCLE", "bones[3].append_parent", |m| {
            m.bones[3].flags |= BoneFlags::APPEND_ROTATE;
            m.bones[3].append_parent = b(7);
        }),
        case("W-APPEND-NO-PARENT", "bones[7].append_parent", |m| {
            m.bones[7].append_parent = None;
        }),
        case("W-IK-LOOP", "bones[6].ik.loop_count", |m| {
            m.bones[6].ik.loop_count = 0
        }),
        case("W-IK-ANGLE", "bones[6].ik.limit_angle", |m| {
            m.bones[6].ik.limit_angle = 0.0;
        }),
        unfixable("W-IK-NO-LINKS", "bones[6].ik.links", |m| {
            m.bones[6].ik.links.clear();
        }),
        case("W-FIXED-AXIS", "bones[8].fixed_axis", |m| {
            m.bones[8].fixed_axis = Vec3::new(0.0, 3.0, 0.0);
        }),
        unfixable("W-RIGID-NO-BONE", "rigid_bodies[0].bone", |m| {
            m.rigid_bodies[0].bone = None;
        }),
        case("W-JOINT-NO-BODY", "joints[0].body_a", |m| {
            m.joints[0].body_a = None
        }),
        case("W-JOINT-SAME-BODY", "joints[0].body_b", |m| {
            m.joints[0].body_b = m.joints[0].body_a;
        }),
        case("W-NAME-EMPTY", "bones[2].name_ja", |m| {
            m.bones[2].name_ja = "".into()
        }),
        case("I-NAME-EMPTY", "materials[0].name_ja", |m| {
            m.materials[0].name_ja = "".into();
        }),
        case("W-NAME-DUPLICATE", "morphs[1].name_ja", |m| {
            m.morphs[1].name_ja = "あ".into();
        }),
        case("I-NAME-DUPLICATE", "rigid_bodies[1].name_ja", |m| {
            m.rigid_bodies[1].name_ja = "剛体0".into();
        }),
        unfixable("I-TEXTURE-DUPLICATE", "textures[1]", |m| {
            m.textures.push("TEX.png".into());
        }),
        case("W-TEXT-UNDECODABLE", "bones[2].name_en", |m| {
            m.bones[2].name_en = Text::decode(&[0x00, 0xD8], TextEncoding::Utf16);
        }),
        case("W-FRAME-ROOT", "display_frames", |m| {
            m.display_frames.remove(0);
        }),
        case("W-FRAME-ROOT", "display_frames[2]", |m| {
            m.display_frames.swap(0, 2);
        }),
        case("W-FRAME-ROOT", "display_frames[0]", |m| {
            m.display_frames[0].special = false;
        }),
        case("W-FRAME-EXP", "display_frames", |m| {
            m.display_frames.remove(1);
        }),
        case("I-FRAME-BONE-MISSING", "bones[8]", |m| {
            m.display_frames[2].items.pop();
        }),
        case("I-FRAME-BONE-MISSING", "bones[1]", |m| {
            m.display_frames.truncate(2);
        }),
        case("I-FRAME-MORPH-MISSING", "morphs[1]", |m| {
            m.display_frames[1].items.pop();
        }),
        unfixable("I-MMD-NAME-LONG", "bones[2].name_ja", |m| {
            m.bones[2].name_ja = "首首首首首首首首".into();
        }),
        unfixable("W-MMD-NAME-COLLISION", "bones[8].name_ja", |m| {
            m.bones[2].name_ja = "ひだりスカート前後1".into();
            m.bones[8].name_ja = "ひだりスカート前後2".into();
        }),
        unfixable("W-MMD-NAME-CHARS", "morphs[0].name_ja", |m| {
            m.morphs[0].name_ja = "😀".into();
        }),
    ]
}

/// `(code, path)` of every issue.
fn found(issues: &[Issue]) -> BTreeSet<(&'static str, String)> {
    issues
        .iter()
        .map(|issue| (issue.code, issue.path.to_string()))
        .collect()
}

fn prepared(case: &Case) -> (Model, Option<LoadReport>, CheckOptions) {
    let mut model = good_model();
    let report = case.as_read.then(LoadReport::default);
    if case.as_read {
        model.header.index_sizes = Some(IndexSizes::minimal_for(&model));
    }
    let options = CheckOptions {
        target: case.target,
        ..CheckOptions::default()
    };
    (model, report, options)
}

#[test]
fn good_model_has_no_issue() {
    let model = good_model();
    let issues = check(&model, None, &CheckOptions::default());
    assert_eq!(found(&issues), BTreeSet::new(), "{issues:#?}");
    let mut as_read = model.clone();
    as_read.header.index_sizes = Some(IndexSizes::minimal_for(&as_read));
    let issues = check(
        &as_read,
        Some(&LoadReport::default()),
        &CheckOptions::default(),
    );
    assert!(issues.is_empty(), "{issues:#?}");
    // The model round-trips through the writer and reader unchanged, so it is a real file.
    let (bytes, _) = pmx::write(&model, &pmx::PmxSaveOptions::default()).unwrap();
    let (read, report) = pmx::read(&bytes, &LoadOptions::default()).unwrap();
    assert!(check(&read, Some(&report), &CheckOptions::default()).is_empty());
}

#[test]
fn each_rule_fires_on_its_broken_case_and_its_fix_removes_it() {
    for case in cases() {
        let (good, report, options) = prepared(&case);
        let before = found(&check(&good, report.as_ref(), &options));
        assert!(
            !before.iter().any(|(code, _)| *code == case.code),
            "{}: fires on the good model: {before:?}",
            case.code
        );
        let mut model = good.clone();
        (case.broken)(&mut model);
        let issues = check(&model, report.as_ref(), &options);
        let issue = issues
            .iter()
            .find(|i| i.code == case.code && i.path == case.path)
            .unwrap_or_else(|| {
                panic!(
                    "{} at {}: not found in {:#?}",
                    case.code,
                    case.path,
                    found(&issues)
                )
            });
        assert!(!issue.message_en.is_empty() && !issue.message_ja.is_empty());
        // Every issue's path names a place the broken model has (`pmx-studio get` resolves it).
        for any in &issues {
            assert!(
                crate::edit::resolve_path(&model, &any.path).is_ok(),
                "{}: {any}",
                case.code
            );
        }
        // The code names its severity (README, "Checking and repairing").
        let prefix = match issue.severity {
            Severity::Error => "E-",
            Severity::Warning => "W-",
            Severity::Info => "I-",
        };
        assert!(
            issue.code.starts_with(prefix),
            "{} is a {}",
            issue.code,
            issue.severity
        );
        assert_eq!(
            issue.fix.is_some(),
            case.fixable,
            "{} at {}: fix {:?}",
            case.code,
            case.path,
            issue.fix
        );
        if !case.fixable {
            continue;
        }
        let original = model.clone();
        let mut history = History::new();
        let repaired = repair(
            &mut model,
            report.as_ref(),
            &mut history,
            &RepairOptions {
                check: options.clone(),
                ..RepairOptions::default()
            },
        );
        assert!(
            repaired.failed.is_empty(),
            "{}: {:#?}",
            case.code,
            repaired.failed
        );
        let after = check(&model, report.as_ref(), &options);
        assert!(
            !after.iter().any(|i| i.code == case.code),
            "{} at {}: still there after repair: {:#?}",
            case.code,
            case.path,
            after
        );
        assert!(
            !after.iter().any(Issue::is_error),
            "{}: errors after repair: {after:#?}",
            case.code
        );
        // The repair is one undo step that restores the broken model exactly.
        assert_eq!(history.len(), 1, "{}", case.code);
        history.undo(&mut model);
        assert!(model_eq(&model, &original), "{}: undo differs", case.code);
    }
}

/// Equality that treats NaN as equal to NaN (the broken models hold NaN on purpose).
fn model_eq(a: &Model, b: &Model) -> bool {
    let json = |m: &Model| serde_json::to_string(m).unwrap_or_default();
    json(a) == json(b)
}

#[test]
fn every_code_of_every_rule_has_a_case() {
    let tested: BTreeSet<&str> = cases().iter().map(|c| c.code).collect();
    // Codes about the file as read and the PMD target have their own tests below.
    let elsewhere = [
        "E-FILE-DAMAGED",
        "E-FILE-LOST",
        "W-FILE-TRAILING",
        "I-FILE-NOTE",
        "E-VERSION",
        "E-HEADER-SIZE",
        "E-HEADER-INDEX-SIZE",
        "E-FACE-INDEX-COUNT",
        "E-PMD-LIMIT",
        "W-PMD-NAME-BYTES",
        "W-PMD-NAME-CHARS",
        "W-PMD-WEIGHT",
        "W-PMD-IK-CHAIN",
        "W-PMD-LOST",
        // Texture files: tested in `textures.rs` (they need files on disk).
        "W-TEXTURE-MISSING",
        "W-TEXTURE-UNREADABLE",
        "I-TEXTURE-CASE",
    ];
    for rule in Registry::standard().rules() {
        for code in rule.codes() {
            assert!(
                tested.contains(code) || elsewhere.contains(code),
                "{code} of rule {} has no case",
                rule.name()
            );
        }
    }
}

fn bytes_of(model: &Model) -> Vec<u8> {
    pmx::write(model, &pmx::PmxSaveOptions::default())
        .unwrap()
        .0
}

fn read_recovering(bytes: &[u8]) -> (Model, LoadReport) {
    pmx::read(
        bytes,
        &LoadOptions {
            recover: true,
            ..LoadOptions::default()
        },
    )
    .unwrap()
}

fn codes_of(model: &Model, report: &LoadReport) -> BTreeSet<(&'static str, String)> {
    found(&check(model, Some(report), &CheckOptions::default()))
}

#[test]
fn a_wrong_header_index_size_is_reported_at_its_byte() {
    let good = good_model();
    let mut bytes = bytes_of(&good);
    // The bone index size (byte 14) says 2; the file stores 1-byte bone indices.
    assert_eq!(bytes[14], 1);
    bytes[14] = 2;
    let (model, report) = read_recovering(&bytes);
    assert!(report.recovered_from.is_none());
    assert_eq!(model.header.index_sizes.map(|s| s.bone), Some(1));
    let issues = check(&model, Some(&report), &CheckOptions::default());
    let codes = found(&issues);
    assert!(
        codes.contains(&("E-HEADER-INDEX-SIZE", "header.index_sizes.bone".to_owned())),
        "{codes:?}"
    );
    assert!(
        !codes.iter().any(|(code, _)| code.starts_with("E-FILE")),
        "{codes:?}"
    );
    let issue = issues
        .iter()
        .find(|i| i.code == "E-HEADER-INDEX-SIZE")
        .unwrap();
    assert!(issue.message_en.contains("byte 14"), "{}", issue.message_en);
    assert!(
        issue.message_ja.contains("14バイト目"),
        "{}",
        issue.message_ja
    );
    // Nothing in the model is wrong: saving writes the right header.
    assert_eq!(
        found(&check(&model, None, &CheckOptions::default())),
        BTreeSet::new()
    );
}

#[test]
fn truncated_file_is_damaged() {
    let bytes = bytes_of(&good_model());
    let (model, report) = read_recovering(&bytes[..bytes.len() - 10]);
    let codes = codes_of(&model, &report);
    // The joint being read was lost: the path names what the model has (the list), the
    // message the file's place.
    assert!(
        codes.contains(&("E-FILE-DAMAGED", "joints".to_owned())),
        "{codes:?}"
    );
    let issues = check(&model, Some(&report), &CheckOptions::default());
    let damaged = issues.iter().find(|i| i.code == "E-FILE-DAMAGED").unwrap();
    assert!(
        damaged.message_en.contains("joints[0].spring_rotate"),
        "{}",
        damaged.message_en
    );
    // The note of where reading stopped is not repeated as E-FILE-LOST.
    assert!(!codes.iter().any(|(code, _)| *code == "E-FILE-LOST"));
}

#[test]
fn trailing_bytes_and_reader_notes() {
    let mut bytes = bytes_of(&good_model());
    bytes.extend_from_slice(b"junk");
    let (model, report) = read_recovering(&bytes);
    let codes = codes_of(&model, &report);
    assert!(
        codes.contains(&("W-FILE-TRAILING", "header".to_owned())),
        "{codes:?}"
    );
    let mut report = LoadReport::default();
    report.notes.push(LoadNote {
        location: Location {
            section: "bones",
            element: Some(2),
            sub: None,
            field: "flags",
            offset: 99,
        },
        message: "flag byte 7 is neither 0 nor 1; read as 1".into(),
        lost: false,
    });
    report.notes.push(LoadNote {
        location: Location {
            section: "soft_bodies",
            element: None,
            sub: None,
            field: "count",
            offset: 120,
        },
        message: "the file ends after the joints".into(),
        lost: true,
    });
    let codes = codes_of(&good_model(), &report);
    assert!(codes.contains(&("I-FILE-NOTE", "bones[2].flags".to_owned())));
    assert!(codes.contains(&("E-FILE-LOST", "soft_bodies".to_owned())));
}

#[test]
fn unknown_version_and_long_header_read_in_recovery() {
    let good = bytes_of(&good_model());
    let mut bytes = good.clone();
    bytes[4..8].copy_from_slice(&2.5f32.to_le_bytes());
    assert!(matches!(
        pmx::read(&bytes, &LoadOptions::default()),
        Err(ReadError::Unsupported { .. })
    ));
    let (model, report) = read_recovering(&bytes);
    assert_eq!(model.header.version, PmxVersion::V2_1);
    assert!(codes_of(&model, &report).contains(&("E-VERSION", "header.version".to_owned())));

    // A header of 9 bytes: the 8 PMX defines, then one more.
    let mut bytes = good[..8].to_vec();
    bytes.push(9);
    bytes.extend_from_slice(&good[9..17]);
    bytes.push(0xEE);
    bytes.extend_from_slice(&good[17..]);
    assert!(pmx::read(&bytes, &LoadOptions::default()).is_err());
    let (model, report) = read_recovering(&bytes);
    assert!(report.recovered_from.is_none());
    assert_eq!(model.bones.len(), 9);
    assert!(codes_of(&model, &report).contains(&("E-HEADER-SIZE", "header".to_owned())));
}

#[test]
fn face_index_count_not_a_multiple_of_three() {
    let report = LoadReport {
        face_index_count: Some(7),
        ..LoadReport::default()
    };
    let codes = codes_of(&good_model(), &report);
    assert!(codes.contains(&("E-FACE-INDEX-COUNT", "faces".to_owned())));
}

fn pmd_ready() -> Model {
    let mut m = good_model();
    m.vertices[2].weight = Weight::Bdef2 {
        bones: [b(1), b(2)],
        weight: 0.6,
    };
    m.vertices[3].weight = Weight::Bdef1 { bone: b(2) };
    m
}

fn pmd_codes(model: &Model) -> BTreeSet<(&'static str, String)> {
    found(&check(
        model,
        None,
        &CheckOptions {
            target: Some(Target::Pmd),
            ..CheckOptions::default()
        },
    ))
}

#[test]
fn pmd_target_rules() {
    let good = pmd_codes(&pmd_ready());
    for code in [
        "E-PMD-LIMIT",
        "W-PMD-NAME-BYTES",
        "W-PMD-NAME-CHARS",
        "W-PMD-WEIGHT",
        "W-PMD-IK-CHAIN",
    ] {
        assert!(!good.iter().any(|(c, _)| *c == code), "{code}: {good:?}");
    }
    // PMD has no material names: the writer's loss list says so (and PMX targets do not).
    assert!(good.contains(&("W-PMD-LOST", "materials[0].name_ja".to_owned())));
    assert!(
        !found(&check(&pmd_ready(), None, &CheckOptions::default()))
            .iter()
            .any(|(c, _)| c.starts_with("W-PMD"))
    );

    let mut m = pmd_ready();
    m.bones[2].name_ja = "くびくびくびくびくびく".into(); // 22 bytes
    m.morphs[0].name_ja = "あ😀".into();
    m.vertices[2].weight = Weight::Bdef4 {
        bones: [b(1), b(2), b(3), None],
        weights: [0.2, 0.5, 0.3, 0.0],
    };
    let mut second_ik = m.bones[6].clone();
    second_ik.name_ja = "左足ＩＫ".into();
    second_ik.ik.links.truncate(1);
    m.bones.push(second_ik);
    m.display_frames[3].items.push(DisplayItem::Bone(b(9)));
    let codes = pmd_codes(&m);
    for expected in [
        ("W-PMD-NAME-BYTES", "bones[2].name_ja"),
        ("W-PMD-NAME-CHARS", "morphs[0].name_ja"),
        ("W-PMD-WEIGHT", "vertices[2].weight"),
        ("W-PMD-IK-CHAIN", "bones[9].ik.links[0].bone"),
    ] {
        assert!(
            codes.contains(&(expected.0, expected.1.to_owned())),
            "{expected:?}: {codes:?}"
        );
    }
    // What an issue above says is not repeated by the writer's loss list.
    assert!(!codes.contains(&("W-PMD-LOST", "bones[2].name_ja".to_owned())));
    assert!(!codes.contains(&("W-PMD-LOST", "vertices[2].weight".to_owned())));

    // The weight fix: the two largest weights as BDEF2, as the PMD writer would store them.
    let issues = check(
        &m,
        None,
        &CheckOptions {
            target: Some(Target::Pmd),
            ..CheckOptions::default()
        },
    );
    let mut history = History::new();
    let fix = issues
        .iter()
        .find(|i| i.code == "W-PMD-WEIGHT")
        .and_then(|i| i.fix.clone())
        .unwrap();
    let edit = fix.to_edit(&mut m).unwrap();
    history.apply(&mut m, edit);
    assert_eq!(
        m.vertices[2].weight,
        Weight::Bdef2 {
            bones: [b(2), b(3)],
            weight: 0.625
        }
    );

    let mut huge = pmd_ready();
    huge.vertices.resize(65_536, huge.vertices[0].clone());
    assert!(pmd_codes(&huge).contains(&("E-PMD-LIMIT", "vertices".to_owned())));
}

#[test]
fn version_fix_converts_down_and_offers_raising() {
    let mut m = good_model();
    m.vertices[2].weight = Weight::Qdef {
        bones: [b(1), b(2), b(3), None],
        weights: [0.5, 0.3, 0.2, 0.0],
    };
    let issues = check(&m, None, &CheckOptions::default());
    let issue = issues
        .iter()
        .find(|i| i.code == "E-VERSION-FEATURE")
        .unwrap();
    assert_eq!(issue.alternatives.len(), 1);
    // Saving as 2.1 needs no fix.
    let as_21 = check(
        &m,
        None,
        &CheckOptions {
            target: Some(Target::Pmx(PmxVersion::V2_1)),
            ..CheckOptions::default()
        },
    );
    assert!(as_21.is_empty(), "{as_21:#?}");
    let raise = issue.alternatives[0].to_edit(&mut m).unwrap();
    let mut history = History::new();
    history.apply(&mut m, raise);
    assert_eq!(m.header.version, PmxVersion::V2_1);
    assert!(check(&m, None, &CheckOptions::default()).is_empty());
}

#[test]
fn many_issues_are_capped_with_a_summary_that_fixes_the_rest() {
    let mut m = good_model();
    for v in &mut m.vertices {
        v.normal = Vec3::new(0.0, 0.0, -3.0);
    }
    let options = CheckOptions {
        max_issues_per_code: 2,
        ..CheckOptions::default()
    };
    let issues = check(&m, None, &options);
    let normals: Vec<&Issue> = issues
        .iter()
        .filter(|i| i.code == "W-NORMAL-LENGTH")
        .collect();
    assert_eq!(normals.len(), 3);
    assert_eq!(normals[2].path, "vertices");
    assert!(normals[2].message_en.starts_with("and 2 more"));
    let mut history = History::new();
    let report = repair(
        &mut m,
        None,
        &mut history,
        &RepairOptions {
            check: options,
            ..RepairOptions::default()
        },
    );
    assert_eq!(report.applied.len(), 3);
    assert!(report.remaining.is_empty(), "{:#?}", report.remaining);
    assert!(
        m.vertices
            .iter()
            .all(|v| v.normal == Vec3::new(0.0, 0.0, -1.0))
    );
}

/// A damaged file with thousands of materials of odd face counts: the list and its memory stay
/// bounded (each issue carries the fix for all materials), and the summary's fix repairs all.
#[test]
fn odd_material_face_counts_are_capped_with_a_summary() {
    let mut m = good_model();
    let template = m.materials[0].clone();
    m.materials.clear();
    let total = m.faces.len() * 3;
    // 2,000 materials of 1 face index each, the rest on the last: all odd but the sum right.
    for _ in 0..2000 {
        let mut material = template.clone();
        material.face_index_count = 1;
        m.materials.push(material);
    }
    let mut last = template;
    last.face_index_count = u32::try_from(total)
        .unwrap_or(u32::MAX)
        .saturating_sub(2000);
    m.materials.push(last);
    let options = CheckOptions {
        max_issues_per_code: 5,
        ..CheckOptions::default()
    };
    let odd: Vec<Issue> = check(&m, None, &options)
        .into_iter()
        .filter(|i| i.code == "E-MATERIAL-FACE-MULTIPLE")
        .collect();
    assert_eq!(odd.len(), 6, "5 listed and a summary");
    assert_eq!(odd[5].path, "materials");
    assert!(
        odd[5].message_en.starts_with("and 1995 more"),
        "{}",
        odd[5].message_en
    );
    let mut history = History::new();
    let report = repair(
        &mut m,
        None,
        &mut history,
        &RepairOptions {
            check: options,
            ..RepairOptions::default()
        },
    );
    assert!(
        !report
            .remaining
            .iter()
            .any(|i| i.code.starts_with("E-MATERIAL-FACE")),
        "{:#?}",
        report.remaining
    );
    assert!(m.materials.iter().all(|m| m.face_index_count % 3 == 0));
    assert_eq!(
        m.materials
            .iter()
            .map(|m| m.face_index_count as usize)
            .sum::<usize>(),
        total
    );
}

#[test]
fn layer_fix_raises_the_bones_under_a_raised_bone() {
    let mut m = good_model();
    m.bones[1].layer = 2;
    let mut history = History::new();
    let report = repair(&mut m, None, &mut history, &RepairOptions::default());
    assert!(report.remaining.is_empty(), "{:#?}", report.remaining);
    // 首 and 捩 (children of 上半身) follow it; nothing else moves.
    let layers: Vec<i32> = m.bones.iter().map(|b| b.layer).collect();
    assert_eq!(layers, vec![0, 2, 2, 0, 0, 0, 0, 0, 2]);
}

#[test]
fn repair_of_many_problems_at_once_leaves_no_error() {
    let mut m = good_model();
    // Problems of many rules in one model (mutations that leave the indices the others use).
    m.bones[2].parent = b(99);
    m.bones[1].layer = 1;
    m.bones[3].flags |= BoneFlags::APPEND_ROTATE;
    m.bones[3].append_parent = b(7);
    m.bones[6].ik.links[0].bone = None;
    m.bones[6].ik.loop_count = 0;
    m.bones[8].fixed_axis = Vec3::new(0.0, 3.0, 0.0);
    m.bones[2].name_ja = "".into();
    m.vertices[0].normal = Vec3::ZERO;
    m.vertices[1].position.x = f32::NAN;
    m.vertices[1].weight = Weight::Bdef2 {
        bones: [b(1), b(40)],
        weight: 0.5,
    };
    m.vertices[2].weight = Weight::Qdef {
        bones: [b(1), b(1), b(3), None],
        weights: [0.5, 0.3, -0.2, 0.0],
    };
    m.vertices.push(m.vertices[3].clone());
    m.faces.push([VertexIdx(0), VertexIdx(0), VertexIdx(1)]);
    m.faces.push([VertexIdx(1), VertexIdx(2), VertexIdx(0)]);
    m.faces.push([VertexIdx(1), VertexIdx(2), VertexIdx(70)]);
    m.materials[0].face_index_count = 8;
    m.materials[0].diffuse.w = 2.0;
    m.morphs[1].offsets = MorphOffsets::Group(vec![GroupMorphOffset {
        morph: Some(MorphIdx::new(1)),
        ratio: 1.0,
    }]);
    m.display_frames.swap(0, 1);
    m.display_frames[3].items.push(DisplayItem::Morph(None));
    m.rigid_bodies[1].name_ja = "剛体0".into();
    m.joints[0].body_b = m.joints[0].body_a;
    m.soft_bodies.push(SoftBody::default());
    let before = check(&m, None, &CheckOptions::default());
    assert!(
        before.iter().filter(|i| i.is_error()).count() >= 8,
        "{before:#?}"
    );

    let mut history = History::new();
    let report = repair(&mut m, None, &mut history, &RepairOptions::default());
    assert!(report.failed.is_empty(), "{:#?}", report.failed);
    assert!(
        !report.remaining.iter().any(Issue::is_error),
        "{:#?}",
        report.remaining
    );
    // The result is a file the strict reader reads, and it checks clean of errors.
    let bytes = bytes_of(&m);
    let (read, read_report) = pmx::read(&bytes, &LoadOptions::default()).unwrap();
    assert!(
        !check(&read, Some(&read_report), &CheckOptions::default())
            .iter()
            .any(Issue::is_error)
    );
}

/// Sets the `target`-th float under `node` (in walk order) to NaN; returns how many it saw.
fn poison_nth_float(node: &mut dyn crate::edit::Reflect, target: usize, seen: &mut usize) {
    if let Some(value) = node.as_any_mut().downcast_mut::<f32>() {
        if *seen == target {
            *value = f32::NAN;
        }
        *seen += 1;
        return;
    }
    node.for_each_child_mut(&mut |_, child| poison_nth_float(child, target, seen));
}

/// Every float the model can hold is checked: each float of a vertex of every weight kind, and
/// of every other element of the feature model, set to NaN in turn, is an E-VALUE-NAN on that
/// element (unless the element's flags say the file does not use the field), and the rule's
/// fix removes it. The floats are found by the exhaustive `Reflect` walk, not by a list.
#[test]
fn every_float_of_every_element_is_checked_for_nan() {
    use crate::edit::{EditTarget, Reflect};
    let base = crate::generate::feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 24, 12);
    let mut checked = 0;
    let targets = [
        EditTarget::Vertex,
        EditTarget::Material,
        EditTarget::Bone,
        EditTarget::Morph,
        EditTarget::RigidBody,
        EditTarget::Joint,
        EditTarget::SoftBody,
    ];
    for target in targets {
        // One element of each weight kind and morph kind; two of the others.
        let mut kinds = BTreeSet::new();
        let indices: Vec<usize> = (0..target.count(&base))
            .filter(|&i| match target {
                EditTarget::Vertex => kinds.insert(base.vertices[i].weight.kind() as u8),
                EditTarget::Morph => kinds.insert(base.morphs[i].offsets.kind() as u8),
                _ => i < 2,
            })
            .collect();
        for index in indices {
            let mut floats = 0;
            {
                let mut copy = base.clone();
                let node: &mut dyn Reflect = match target {
                    EditTarget::Vertex => &mut copy.vertices[index],
                    EditTarget::Material => &mut copy.materials[index],
                    EditTarget::Bone => &mut copy.bones[index],
                    EditTarget::Morph => &mut copy.morphs[index],
                    EditTarget::RigidBody => &mut copy.rigid_bodies[index],
                    EditTarget::Joint => &mut copy.joints[index],
                    _ => &mut copy.soft_bodies[index],
                };
                poison_nth_float(node, usize::MAX, &mut floats);
            }
            // Long offset lists repeat their fields: the first 40 floats, then a sample.
            let sample = (0..floats).filter(|&k| k < 40 || k % 97 == 0);
            for k in sample {
                let mut broken = base.clone();
                let node: &mut dyn Reflect = match target {
                    EditTarget::Vertex => &mut broken.vertices[index],
                    EditTarget::Material => &mut broken.materials[index],
                    EditTarget::Bone => &mut broken.bones[index],
                    EditTarget::Morph => &mut broken.morphs[index],
                    EditTarget::RigidBody => &mut broken.rigid_bodies[index],
                    EditTarget::Joint => &mut broken.joints[index],
                    _ => &mut broken.soft_bodies[index],
                };
                poison_nth_float(node, k, &mut 0);
                let issues = check(&broken, None, &CheckOptions::default());
                let prefix = format!("{}[{index}]", target.element_kind().unwrap().list_name());
                let found = issues
                    .iter()
                    .any(|i| i.code == "E-VALUE-NAN" && i.path.to_string().starts_with(&prefix));
                let bone_unused = target == EditTarget::Bone && !found;
                if bone_unused {
                    // A field the bone's flags leave unused is not written: not an error.
                    continue;
                }
                assert!(
                    found,
                    "{prefix}: float {k} of {floats} set to NaN is not found"
                );
                let mut repaired = broken.clone();
                let mut history = History::new();
                repair(&mut repaired, None, &mut history, &RepairOptions::default());
                assert!(
                    !check(&repaired, None, &CheckOptions::default())
                        .iter()
                        .any(|i| i.code == "E-VALUE-NAN"),
                    "{prefix}: float {k} is fixed"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked} floats checked");
}
