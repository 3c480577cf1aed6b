//! The sample model the README opens: a small blocky figure with a real bone structure (parent
//! chain, leg IK with a knee limit, an append bone), materials, morphs, display frames and
//! physics. Made entirely by this code, so the repository ships no third-party model.

use crate::model::*;

struct Builder {
    model: Model,
}

/// The bones of one side of the figure.
#[derive(Clone, Copy)]
struct Side {
    arm: usize,
    elbow: usize,
    wrist: usize,
    leg: usize,
    knee: usize,
    ankle: usize,
    leg_ik: usize,
    /// +1 for the left side (MMD models face -Z, so their left is +X), -1 for the right.
    x: f32,
}

impl Builder {
    fn bone(
        &mut self,
        name_ja: &str,
        name_en: &str,
        position: [f32; 3],
        parent: Option<usize>,
    ) -> usize {
        let index = self.model.bones.len();
        self.model.bones.push(Bone {
            name_ja: name_ja.into(),
            name_en: name_en.into(),
            position: Vec3::from(position),
            parent: parent.map(BoneIdx::new),
            flags: BoneFlags::ROTATABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE,
            ..Bone::default()
        });
        index
    }

    fn tail_to(&mut self, bone: usize, tail: usize) {
        self.model.bones[bone].flags |= BoneFlags::TAIL_IS_BONE;
        self.model.bones[bone].tail_bone = Some(BoneIdx::new(tail));
    }

    /// An axis-aligned box from `min` to `max`, weighted to `bone` (its top half-blended with
    /// `blend` when given, so joints bend softly).
    fn cuboid(&mut self, min: [f32; 3], max: [f32; 3], bone: usize, blend: Option<usize>) {
        let [x0, y0, z0] = min;
        let [x1, y1, z1] = max;
        // Each side gets its own four vertices so normals are flat, as modellers expect.
        let sides: [([f32; 3], [[f32; 3]; 4]); 6] = [
            (
                [0.0, 0.0, -1.0],
                [[x0, y0, z0], [x0, y1, z0], [x1, y1, z0], [x1, y0, z0]],
            ),
            (
                [0.0, 0.0, 1.0],
                [[x1, y0, z1], [x1, y1, z1], [x0, y1, z1], [x0, y0, z1]],
            ),
            (
                [-1.0, 0.0, 0.0],
                [[x0, y0, z1], [x0, y1, z1], [x0, y1, z0], [x0, y0, z0]],
            ),
            (
                [1.0, 0.0, 0.0],
                [[x1, y0, z0], [x1, y1, z0], [x1, y1, z1], [x1, y0, z1]],
            ),
            (
                [0.0, 1.0, 0.0],
                [[x0, y1, z0], [x0, y1, z1], [x1, y1, z1], [x1, y1, z0]],
            ),
            (
                [0.0, -1.0, 0.0],
                [[x0, y0, z1], [x0, y0, z0], [x1, y0, z0], [x1, y0, z1]],
            ),
        ];
        for (normal, corners) in sides {
            let base = self.model.vertices.len();
            for (k, corner) in corners.iter().enumerate() {
                let weight = match blend {
                    Some(other) if corner[1] >= y1 - 1e-4 => Weight::Bdef2 {
                        bones: [Some(BoneIdx::new(bone)), Some(BoneIdx::new(other))],
                        weight: 0.5,
                    },
                    _ => Weight::Bdef1 {
                        bone: Some(BoneIdx::new(bone)),
                    },
                };
                self.model.vertices.push(Vertex {
                    position: Vec3::from(*corner),
                    normal: Vec3::from(normal),
                    uv: Vec2::new(
                        if k < 2 { 0.0 } else { 1.0 },
                        if k % 3 == 0 { 1.0 } else { 0.0 },
                    ),
                    weight,
                    edge_scale: 1.0,
                });
            }
            let v = |k: usize| VertexIdx::new(base + k);
            self.model.faces.push([v(0), v(1), v(2)]);
            self.model.faces.push([v(0), v(2), v(3)]);
        }
    }

    /// A material drawing the triangles added since `first_face`.
    fn material(
        &mut self,
        name_ja: &str,
        name_en: &str,
        diffuse: [f32; 4],
        toon: u8,
        first_face: usize,
    ) {
        let triangles = self.model.faces.len() - first_face;
        self.model.materials.push(Material {
            name_ja: name_ja.into(),
            name_en: name_en.into(),
            diffuse: Vec4::from(diffuse),
            specular: Vec3::new(0.1, 0.1, 0.1),
            specular_power: 10.0,
            ambient: Vec3::new(diffuse[0] * 0.5, diffuse[1] * 0.5, diffuse[2] * 0.5),
            draw_flags: DrawFlags::GROUND_SHADOW
                | DrawFlags::DRAW_TO_SHADOW_MAP
                | DrawFlags::DRAW_SELF_SHADOW
                | DrawFlags::EDGE,
            edge_size: 0.6,
            toon: Toon::Shared(toon),
            face_index_count: (triangles * 3) as u32,
            ..Material::default()
        });
    }

    fn side(
        &mut self,
        side_ja: &str,
        side_en: &str,
        x: f32,
        upper: usize,
        lower: usize,
        root: usize,
    ) -> Side {
        let arm = self.bone(
            &format!("{side_ja}腕"),
            &format!("{side_en} arm"),
            [1.5 * x, 14.0, 0.0],
            Some(upper),
        );
        let elbow = self.bone(
            &format!("{side_ja}ひじ"),
            &format!("{side_en} elbow"),
            [3.5 * x, 12.0, 0.0],
            Some(arm),
        );
        let wrist = self.bone(
            &format!("{side_ja}手首"),
            &format!("{side_en} wrist"),
            [5.0 * x, 10.5, 0.0],
            Some(elbow),
        );
        self.tail_to(arm, elbow);
        self.tail_to(elbow, wrist);
        self.model.bones[wrist].tail_offset = Vec3::new(0.8 * x, -0.8, 0.0);
        let leg = self.bone(
            &format!("{side_ja}足"),
            &format!("{side_en} leg"),
            [0.8 * x, 9.5, 0.0],
            Some(lower),
        );
        let knee = self.bone(
            &format!("{side_ja}ひざ"),
            &format!("{side_en} knee"),
            [0.8 * x, 5.0, 0.0],
            Some(leg),
        );
        let ankle = self.bone(
            &format!("{side_ja}足首"),
            &format!("{side_en} ankle"),
            [0.8 * x, 1.0, 0.0],
            Some(knee),
        );
        self.tail_to(leg, knee);
        self.tail_to(knee, ankle);
        self.model.bones[ankle].tail_offset = Vec3::new(0.0, -1.0, -1.0);
        let leg_ik = self.bone(
            &format!("{side_ja}足ＩＫ"),
            &format!("{side_en} leg IK"),
            [0.8 * x, 1.0, 0.0],
            Some(root),
        );
        let bone = &mut self.model.bones[leg_ik];
        bone.flags |= BoneFlags::IK | BoneFlags::MOVABLE;
        bone.tail_offset = Vec3::new(0.0, 0.0, 1.5);
        // MMD's usual leg IK: 40 loops, 2 radians per iteration, the knee bending one way only.
        bone.ik = Ik {
            target: Some(BoneIdx::new(ankle)),
            loop_count: 40,
            limit_angle: 2.0,
            links: vec![
                IkLink {
                    bone: Some(BoneIdx::new(knee)),
                    limits: Some(AngleLimits {
                        lower: Vec3::new(-180.0_f32.to_radians(), 0.0, 0.0),
                        upper: Vec3::new(-0.5_f32.to_radians(), 0.0, 0.0),
                    }),
                },
                IkLink {
                    bone: Some(BoneIdx::new(leg)),
                    limits: None,
                },
            ],
        };
        Side {
            arm,
            elbow,
            wrist,
            leg,
            knee,
            ankle,
            leg_ik,
            x,
        }
    }
}

/// The sample model (PMX 2.0, UTF-16, as PmxEditor writes by default).
#[must_use]
pub fn sample_model() -> Model {
    let mut b = Builder {
        model: Model::new_empty(),
    };
    b.model.info.name_ja = "サンプル人形".into();
    b.model.info.name_en = "Sample figure".into();
    b.model.info.comment_ja =
        "PMX Studio のサンプルモデル。\r\nPMX Studio 自身のコードで生成しています。".into();
    b.model.info.comment_en =
        "PMX Studio's sample model,\r\ngenerated by PMX Studio's own code.".into();

    let root = b.bone("全ての親", "master", [0.0, 0.0, 0.0], None);
    let center = b.bone("センター", "center", [0.0, 8.0, 0.0], Some(root));
    let upper = b.bone("上半身", "upper body", [0.0, 10.0, 0.0], Some(center));
    let neck = b.bone("首", "neck", [0.0, 14.5, 0.0], Some(upper));
    let head = b.bone("頭", "head", [0.0, 15.5, 0.0], Some(neck));
    let lower = b.bone("下半身", "lower body", [0.0, 10.0, 0.0], Some(center));
    let sides = [
        b.side("左", "left", 1.0, upper, lower, root),
        b.side("右", "right", -1.0, upper, lower, root),
    ];
    // An append bone: the hair root follows half of the neck's rotation again.
    let hair_root = b.bone("髪元", "hair root", [0.0, 17.5, -0.8], Some(head));
    let hair = &mut b.model.bones[hair_root];
    hair.flags |= BoneFlags::APPEND_ROTATE;
    hair.flags.remove(BoneFlags::VISIBLE | BoneFlags::OPERABLE);
    hair.append_parent = Some(BoneIdx::new(neck));
    hair.append_ratio = 0.5;
    for movable in [root, center] {
        b.model.bones[movable].flags |= BoneFlags::MOVABLE;
    }

    // Skin: head and hands.
    let first = b.model.faces.len();
    b.cuboid([-1.2, 14.8, -1.2], [1.2, 17.6, 1.2], head, None);
    for side in sides {
        let (lo, hi) = if side.x > 0.0 {
            (4.8, 5.8)
        } else {
            (-5.8, -4.8)
        };
        b.cuboid([lo, 9.6, -0.4], [hi, 10.6, 0.4], side.wrist, None);
    }
    b.material("肌", "skin", [1.0, 0.86, 0.76, 1.0], 1, first);
    // Clothes: body, arms and legs.
    let first = b.model.faces.len();
    b.cuboid([-1.4, 10.0, -0.8], [1.4, 14.6, 0.8], upper, Some(neck));
    b.cuboid([-1.4, 8.0, -0.8], [1.4, 10.0, 0.8], lower, None);
    for side in sides {
        let (lo, hi) = if side.x > 0.0 {
            (0.3, 1.3)
        } else {
            (-1.3, -0.3)
        };
        b.cuboid([lo, 5.0, -0.5], [hi, 9.5, 0.5], side.leg, None);
        b.cuboid([lo, 1.0, -0.5], [hi, 5.0, 0.5], side.knee, Some(side.leg));
        b.cuboid([lo, 0.0, -1.2], [hi, 1.0, 0.5], side.ankle, None);
        let (alo, ahi) = if side.x > 0.0 {
            (1.4, 3.5)
        } else {
            (-3.5, -1.4)
        };
        b.cuboid([alo, 13.0, -0.4], [ahi, 14.0, 0.4], side.arm, None);
        let (elo, ehi) = if side.x > 0.0 {
            (3.5, 5.0)
        } else {
            (-5.0, -3.5)
        };
        b.cuboid([elo, 11.0, -0.35], [ehi, 12.0, 0.35], side.elbow, None);
    }
    b.material("服", "clothes", [0.25, 0.55, 0.75, 1.0], 3, first);
    // Hair.
    let first = b.model.faces.len();
    let hair_first = b.model.vertices.len();
    b.cuboid([-1.3, 16.8, -1.4], [1.3, 18.0, 1.3], head, None);
    b.cuboid([-1.0, 14.0, -1.5], [1.0, 17.5, -1.1], hair_root, None);
    let hair_vertices = hair_first..b.model.vertices.len();
    b.material("髪", "hair", [0.15, 0.12, 0.35, 1.0], 0, first);

    // Morphs of several kinds.
    let mouth: Vec<VertexMorphOffset> = (0..24)
        .filter(|k| b.model.vertices[*k].position.y < 15.5)
        .map(|k| VertexMorphOffset {
            vertex: VertexIdx::new(k),
            offset: Vec3::new(0.0, -0.3, 0.0),
        })
        .collect();
    let hair_lift: Vec<VertexMorphOffset> = hair_vertices
        .map(|k| VertexMorphOffset {
            vertex: VertexIdx::new(k),
            offset: Vec3::new(0.0, 0.4, 0.0),
        })
        .collect();
    b.model.morphs = vec![
        Morph {
            name_ja: "あ".into(),
            name_en: "a".into(),
            panel: MorphPanel::Mouth,
            offsets: MorphOffsets::Vertex(mouth),
        },
        Morph {
            name_ja: "髪上げ".into(),
            name_en: "hair up".into(),
            panel: MorphPanel::Other,
            offsets: MorphOffsets::Vertex(hair_lift),
        },
        Morph {
            name_ja: "服透明".into(),
            name_en: "clothes fade".into(),
            panel: MorphPanel::Other,
            offsets: MorphOffsets::Material(vec![MaterialMorphOffset {
                material: Some(MaterialIdx::new(1)),
                op: MaterialMorphOp::Multiply,
                diffuse: Vec4::new(1.0, 1.0, 1.0, 0.0),
                specular: Vec3::ONE,
                specular_power: 1.0,
                ambient: Vec3::ONE,
                edge_color: Vec4::new(1.0, 1.0, 1.0, 0.0),
                edge_size: 1.0,
                texture_tint: Vec4::ONE,
                sphere_tint: Vec4::ONE,
                toon_tint: Vec4::ONE,
            }]),
        },
        Morph {
            name_ja: "うなずき".into(),
            name_en: "nod".into(),
            panel: MorphPanel::Other,
            offsets: MorphOffsets::Bone(vec![BoneMorphOffset {
                bone: Some(BoneIdx::new(neck)),
                translation: Vec3::ZERO,
                rotation: Vec4::from_quat(glam::Quat::from_rotation_x(20.0_f32.to_radians())),
            }]),
        },
        Morph {
            name_ja: "まとめ".into(),
            name_en: "combined".into(),
            panel: MorphPanel::Eyebrow,
            offsets: MorphOffsets::Group(vec![
                GroupMorphOffset {
                    morph: Some(MorphIdx::new(0)),
                    ratio: 1.0,
                },
                GroupMorphOffset {
                    morph: Some(MorphIdx::new(3)),
                    ratio: 0.5,
                },
            ]),
        },
    ];

    // Display frames: Root and 表情, then the bones as PmxEditor users arrange them.
    b.model.display_frames[0]
        .items
        .push(DisplayItem::Bone(Some(BoneIdx::new(root))));
    b.model.display_frames[1].items = (0..b.model.morphs.len())
        .map(|m| DisplayItem::Morph(Some(MorphIdx::new(m))))
        .collect();
    let frames: [(&str, &str, Vec<usize>); 5] = [
        ("センター", "center", vec![center]),
        ("体(上)", "upper body", vec![upper, neck, head]),
        (
            "腕",
            "arms",
            sides
                .iter()
                .flat_map(|s| [s.arm, s.elbow, s.wrist])
                .collect(),
        ),
        ("体(下)", "lower body", vec![lower]),
        (
            "足",
            "legs",
            sides
                .iter()
                .flat_map(|s| [s.leg, s.knee, s.ankle, s.leg_ik])
                .collect(),
        ),
    ];
    for (name_ja, name_en, bones) in frames {
        b.model.display_frames.push(DisplayFrame {
            name_ja: name_ja.into(),
            name_en: name_en.into(),
            special: false,
            items: bones
                .into_iter()
                .map(|i| DisplayItem::Bone(Some(BoneIdx::new(i))))
                .collect(),
        });
    }

    // Physics: a head body following its bone, and the hair hanging from it by a joint.
    b.model.rigid_bodies = vec![
        RigidBody {
            name_ja: "頭".into(),
            name_en: "head".into(),
            bone: Some(BoneIdx::new(head)),
            group: 0,
            non_collision_mask: 0x0002,
            shape: RigidShape::Sphere,
            size: Vec3::new(1.4, 0.0, 0.0),
            position: Vec3::new(0.0, 16.2, 0.0),
            mode: RigidMode::FollowBone,
            ..RigidBody::default()
        },
        RigidBody {
            name_ja: "髪".into(),
            name_en: "hair".into(),
            bone: Some(BoneIdx::new(hair_root)),
            group: 1,
            non_collision_mask: 0x0001,
            shape: RigidShape::Capsule,
            size: Vec3::new(0.5, 2.5, 0.0),
            position: Vec3::new(0.0, 15.8, -1.3),
            mass: 0.5,
            mode: RigidMode::Physics,
            ..RigidBody::default()
        },
    ];
    b.model.joints.push(Joint {
        name_ja: "頭-髪".into(),
        name_en: "head-hair".into(),
        body_a: Some(RigidBodyIdx::new(0)),
        body_b: Some(RigidBodyIdx::new(1)),
        position: Vec3::new(0.0, 17.5, -1.0),
        rotate_lower: Vec3::new(-0.3, -0.2, -0.2),
        rotate_upper: Vec3::new(0.3, 0.2, 0.2),
        spring_rotate: Vec3::new(50.0, 50.0, 50.0),
        ..Joint::default()
    });
    b.model
}
