//! Models built in code: the sample model `resources/` ships, a textured variant of it whose
//! materials each draw a texture of their own (render comparisons), a model using every
//! feature of the format (for round-trip tests), and large models for benchmarks.

mod sample;
mod textured;

pub use sample::sample_model;
pub use textured::{TexturedModel, textured_model};

use crate::model::*;

/// A small deterministic random source (xorshift), so generated models are the same every run.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    pub fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.unit()
    }

    pub fn vec3(&mut self, scale: f32) -> Vec3 {
        Vec3::new(
            self.range(-scale, scale),
            self.range(-scale, scale),
            self.range(-scale, scale),
        )
    }

    pub fn vec4(&mut self, scale: f32) -> Vec4 {
        Vec4::new(
            self.range(-scale, scale),
            self.range(-scale, scale),
            self.range(-scale, scale),
            self.range(-scale, scale),
        )
    }
}

/// Sizes for [`large_model`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LargeModelSpec {
    pub vertices: usize,
    pub faces: usize,
    pub bones: usize,
    pub morphs: usize,
    pub rigid_bodies: usize,
    pub joints: usize,
    pub materials: usize,
    pub additional_uvs: usize,
    pub version: PmxVersion,
}

impl LargeModelSpec {
    /// The benchmark model of the issues: 1,000,000 vertices, 2,000,000 triangles, 800 bones,
    /// 300 morphs of every kind, 200 rigid bodies, 200 joints.
    #[must_use]
    pub fn million() -> Self {
        Self {
            vertices: 1_000_000,
            faces: 2_000_000,
            bones: 800,
            morphs: 300,
            rigid_bodies: 200,
            joints: 200,
            materials: 40,
            additional_uvs: 0,
            version: PmxVersion::V2_1,
        }
    }

    /// The same shape, scaled down (for tests).
    #[must_use]
    pub fn small() -> Self {
        Self {
            vertices: 3_000,
            faces: 6_000,
            bones: 120,
            morphs: 44,
            rigid_bodies: 20,
            joints: 20,
            materials: 6,
            additional_uvs: 2,
            version: PmxVersion::V2_1,
        }
    }
}

/// Lays the vertices of `model` out on a closed tube (20 units high, `columns` vertices round)
/// and rebuilds its faces as the tube's quads, two triangles each, split evenly between the
/// materials. [`large_model`] places vertices at random and joins neighbours in index order, so
/// each of its triangles spans the model; a real model's triangles are small. What draws
/// triangles (the 3D view) is measured on this layout. Weights, morphs and everything else
/// stay as they are.
pub fn lay_out_as_tube(model: &mut Model, columns: usize) {
    let count = model.vertices.len();
    let columns = columns.clamp(3, count.max(3));
    let rows = count.div_ceil(columns).max(1);
    let radius = 4.0;
    let height = 20.0;
    for (i, vertex) in model.vertices.iter_mut().enumerate() {
        let (column, row) = (i % columns, i / columns);
        let angle = column as f32 / columns as f32 * std::f32::consts::TAU;
        let (sin, cos) = angle.sin_cos();
        vertex.position = Vec3::new(
            radius * cos,
            row as f32 / rows as f32 * height,
            radius * sin,
        );
        vertex.normal = Vec3::new(cos, 0.0, sin);
        vertex.uv = Vec2::new(
            column as f32 / columns as f32,
            1.0 - row as f32 / rows as f32,
        );
    }
    model.faces.clear();
    for row in 0..rows.saturating_sub(1) {
        for column in 0..columns {
            let a = row * columns + column;
            let b = row * columns + (column + 1) % columns;
            let (c, d) = (a + columns, b + columns);
            if d >= count || c >= count {
                continue;
            }
            model
                .faces
                .push([VertexIdx::new(a), VertexIdx::new(c), VertexIdx::new(b)]);
            model
                .faces
                .push([VertexIdx::new(b), VertexIdx::new(c), VertexIdx::new(d)]);
        }
    }
    let materials = model.materials.len().max(1);
    let per_material = model.faces.len() / materials;
    let last = model.materials.len().saturating_sub(1);
    for (i, material) in model.materials.iter_mut().enumerate() {
        let faces = if i == last {
            model.faces.len() - per_material * last
        } else {
            per_material
        };
        material.face_index_count = (faces * 3) as u32;
    }
}

/// The 1,000,000-vertex model as the file the load and save speed is measured on: PMX 2.0,
/// UTF-16, one additional UV, and vertex morphs the size of a real model's (each of the 50
/// moves 208,000 vertices: 10.4M offsets in all). Written, 253 MB.
#[must_use]
pub fn big_file_model() -> Model {
    let mut model = large_model(&LargeModelSpec {
        version: PmxVersion::V2_0,
        additional_uvs: 1,
        ..LargeModelSpec::million()
    });
    let vertices = model.vertices.len();
    for (m, morph) in model.morphs.iter_mut().enumerate() {
        if let MorphOffsets::Vertex(offsets) = &mut morph.offsets {
            *offsets = (0..208_000)
                .map(|j| VertexMorphOffset {
                    vertex: VertexIdx::new((m * 7_919 + j * 4) % vertices),
                    offset: Vec3::new(0.001 * (j % 97) as f32, 0.002, -0.001 * (m % 13) as f32),
                })
                .collect();
        }
    }
    model
}

/// A large model with a bone hierarchy (IK legs, append bones), every weight type, morphs of
/// every kind, physics and a soft body (for 2.1). Deterministic.
#[must_use]
pub fn large_model(spec: &LargeModelSpec) -> Model {
    let mut rng = Rng::new(0x5EED);
    let mut model = Model::new_empty();
    model.header.version = spec.version;
    model.info.name_ja = "大きな生成モデル".into();
    model.info.name_en = "large generated model".into();
    model.info.comment_ja = "ベンチマーク用に生成".into();
    model.info.comment_en = "generated for benchmarks".into();

    let num_bones = spec.bones.max(8);
    for i in 0..num_bones {
        let mut bone = Bone {
            name_ja: format!("ボーン{i}").into(),
            name_en: format!("bone{i}").into(),
            position: rng.vec3(10.0),
            parent: if i == 0 {
                None
            } else {
                Some(BoneIdx::new(rng.below(i)))
            },
            ..Bone::default()
        };
        bone.flags |= BoneFlags::MOVABLE;
        match i % 10 {
            1 => {
                bone.flags |= BoneFlags::TAIL_IS_BONE;
                bone.tail_bone = Some(BoneIdx::new((i + 1) % num_bones));
            }
            2 if i >= 4 => {
                bone.flags |= BoneFlags::IK;
                bone.layer = 1;
                bone.ik = Ik {
                    target: Some(BoneIdx::new(i - 1)),
                    loop_count: 40,
                    limit_angle: 0.5,
                    links: vec![
                        IkLink {
                            bone: Some(BoneIdx::new(i - 2)),
                            limits: Some(AngleLimits {
                                lower: Vec3::new(-std::f32::consts::PI, 0.0, 0.0),
                                upper: Vec3::new(-0.01, 0.0, 0.0),
                            }),
                        },
                        IkLink {
                            bone: Some(BoneIdx::new(i - 3)),
                            limits: None,
                        },
                    ],
                };
            }
            3 => {
                bone.flags |= BoneFlags::APPEND_ROTATE;
                bone.append_parent = Some(BoneIdx::new(rng.below(i)));
                bone.append_ratio = 0.5;
            }
            4 => {
                bone.flags |=
                    BoneFlags::APPEND_ROTATE | BoneFlags::APPEND_MOVE | BoneFlags::LOCAL_APPEND;
                bone.append_parent = Some(BoneIdx::new(rng.below(i)));
                bone.append_ratio = -1.0;
            }
            5 => {
                bone.flags |= BoneFlags::FIXED_AXIS;
                bone.fixed_axis = Vec3::new(0.0, 0.0, 1.0);
            }
            6 => {
                bone.flags |= BoneFlags::LOCAL_AXES;
                bone.local_axis_x = Vec3::new(1.0, 0.0, 0.0);
                bone.local_axis_z = Vec3::new(0.0, 0.0, 1.0);
            }
            7 => {
                bone.flags |= BoneFlags::EXTERNAL_PARENT | BoneFlags::AFTER_PHYSICS;
                bone.external_parent_key = i as i32;
            }
            _ => bone.tail_offset = rng.vec3(1.0),
        }
        model.bones.push(bone);
    }

    let bone = |rng: &mut Rng| Some(BoneIdx::new(rng.below(num_bones)));
    model.vertices.reserve_exact(spec.vertices);
    for i in 0..spec.vertices {
        let weight = match i % 16 {
            0..=7 => Weight::Bdef1 {
                bone: bone(&mut rng),
            },
            8..=11 => Weight::Bdef2 {
                bones: [bone(&mut rng), bone(&mut rng)],
                weight: rng.unit(),
            },
            12 | 13 => Weight::Bdef4 {
                bones: [
                    bone(&mut rng),
                    bone(&mut rng),
                    bone(&mut rng),
                    bone(&mut rng),
                ],
                weights: [0.4, 0.3, 0.2, 0.1],
            },
            14 => Weight::Sdef {
                bones: [bone(&mut rng), bone(&mut rng)],
                weight: 0.5,
                c: rng.vec3(1.0),
                r0: rng.vec3(1.0),
                r1: rng.vec3(1.0),
            },
            _ if spec.version == PmxVersion::V2_1 => Weight::Qdef {
                bones: [
                    bone(&mut rng),
                    bone(&mut rng),
                    bone(&mut rng),
                    bone(&mut rng),
                ],
                weights: [0.25; 4],
            },
            _ => Weight::Bdef1 {
                bone: bone(&mut rng),
            },
        };
        model.vertices.push(Vertex {
            position: rng.vec3(20.0),
            normal: Vec3::new(0.0, 1.0, 0.0),
            uv: Vec2::new(rng.unit(), rng.unit()),
            weight,
            edge_scale: 1.0,
        });
    }
    model.additional_uvs = (0..spec.additional_uvs)
        .map(|_| (0..spec.vertices).map(|_| rng.vec4(1.0)).collect())
        .collect();

    let num_vertices = spec.vertices.max(1);
    model.faces.reserve_exact(spec.faces);
    for i in 0..spec.faces {
        let a = i % num_vertices;
        model.faces.push([
            VertexIdx::new(a),
            VertexIdx::new((a + 1) % num_vertices),
            VertexIdx::new((a + 2) % num_vertices),
        ]);
    }

    model.textures = (0..spec.materials.min(8))
        .map(|i| Text::from(format!("tex\\テクスチャ{i}.png")))
        .collect();
    let num_materials = spec.materials.max(1);
    let per_material = spec.faces / num_materials;
    for i in 0..num_materials {
        let faces = if i + 1 == num_materials {
            spec.faces - per_material * (num_materials - 1)
        } else {
            per_material
        };
        model.materials.push(Material {
            name_ja: format!("材質{i}").into(),
            name_en: format!("material{i}").into(),
            diffuse: Vec4::new(rng.unit(), rng.unit(), rng.unit(), 1.0),
            texture: (!model.textures.is_empty())
                .then(|| TextureIdx::new(i % model.textures.len())),
            toon: if i % 2 == 0 {
                Toon::Shared((i % 10) as u8)
            } else {
                Toon::Texture(None)
            },
            draw_flags: DrawFlags::GROUND_SHADOW
                | DrawFlags::EDGE
                | if i % 3 == 0 {
                    DrawFlags::DOUBLE_SIDED
                } else {
                    DrawFlags::empty()
                },
            face_index_count: (faces * 3) as u32,
            ..Material::default()
        });
    }

    let num_morphs = spec.morphs.max(11);
    let kinds: Vec<MorphKind> = MorphKind::ALL
        .into_iter()
        .filter(|k| spec.version == PmxVersion::V2_1 || !k.is_pmx21_only())
        .filter(|k| match k {
            MorphKind::AdditionalUv1 => spec.additional_uvs >= 1,
            MorphKind::AdditionalUv2 => spec.additional_uvs >= 2,
            MorphKind::AdditionalUv3 => spec.additional_uvs >= 3,
            MorphKind::AdditionalUv4 => spec.additional_uvs >= 4,
            _ => true,
        })
        .collect();
    for i in 0..num_morphs {
        let kind = kinds[i % kinds.len()];
        let n = match kind {
            MorphKind::Vertex => 2_000,
            MorphKind::Uv
            | MorphKind::AdditionalUv1
            | MorphKind::AdditionalUv2
            | MorphKind::AdditionalUv3
            | MorphKind::AdditionalUv4 => 500,
            _ => 4,
        };
        let vertex = |rng: &mut Rng| VertexIdx::new(rng.below(num_vertices));
        let uv = |rng: &mut Rng| {
            (0..n)
                .map(|_| UvMorphOffset {
                    vertex: vertex(rng),
                    offset: rng.vec4(0.1),
                })
                .collect()
        };
        let offsets = match kind {
            MorphKind::Group | MorphKind::Flip => {
                let list = (0..n)
                    .map(|_| GroupMorphOffset {
                        morph: Some(MorphIdx::new(rng.below(num_morphs))),
                        ratio: rng.unit(),
                    })
                    .collect();
                if kind == MorphKind::Group {
                    MorphOffsets::Group(list)
                } else {
                    MorphOffsets::Flip(list)
                }
            }
            MorphKind::Vertex => MorphOffsets::Vertex(
                (0..n)
                    .map(|_| VertexMorphOffset {
                        vertex: vertex(&mut rng),
                        offset: rng.vec3(0.2),
                    })
                    .collect(),
            ),
            MorphKind::Bone => MorphOffsets::Bone(
                (0..n)
                    .map(|_| BoneMorphOffset {
                        bone: bone(&mut rng),
                        translation: rng.vec3(0.5),
                        rotation: Vec4::new(0.0, 0.0, 0.38268343, 0.9238795),
                    })
                    .collect(),
            ),
            MorphKind::Uv => MorphOffsets::Uv(uv(&mut rng)),
            MorphKind::AdditionalUv1 => MorphOffsets::AdditionalUv1(uv(&mut rng)),
            MorphKind::AdditionalUv2 => MorphOffsets::AdditionalUv2(uv(&mut rng)),
            MorphKind::AdditionalUv3 => MorphOffsets::AdditionalUv3(uv(&mut rng)),
            MorphKind::AdditionalUv4 => MorphOffsets::AdditionalUv4(uv(&mut rng)),
            MorphKind::Material => MorphOffsets::Material(
                (0..n)
                    .map(|j| MaterialMorphOffset {
                        material: if j == 0 {
                            None
                        } else {
                            Some(MaterialIdx::new(rng.below(num_materials)))
                        },
                        op: if j % 2 == 0 {
                            MaterialMorphOp::Multiply
                        } else {
                            MaterialMorphOp::Add
                        },
                        diffuse: rng.vec4(1.0),
                        specular: rng.vec3(1.0),
                        specular_power: rng.unit(),
                        ambient: rng.vec3(1.0),
                        edge_color: rng.vec4(1.0),
                        edge_size: rng.unit(),
                        texture_tint: rng.vec4(1.0),
                        sphere_tint: rng.vec4(1.0),
                        toon_tint: rng.vec4(1.0),
                    })
                    .collect(),
            ),
            MorphKind::Impulse => MorphOffsets::Impulse(
                (0..n)
                    .map(|j| ImpulseMorphOffset {
                        rigid_body: Some(RigidBodyIdx::new(rng.below(spec.rigid_bodies.max(1)))),
                        local: j % 2 == 0,
                        velocity: rng.vec3(1.0),
                        torque: rng.vec3(1.0),
                    })
                    .collect(),
            ),
        };
        let panel = [
            MorphPanel::Eyebrow,
            MorphPanel::Eye,
            MorphPanel::Mouth,
            MorphPanel::Other,
        ][i % 4];
        model.morphs.push(Morph {
            name_ja: format!("モーフ{i}").into(),
            name_en: format!("morph{i}").into(),
            panel,
            offsets,
        });
    }

    if let Some(root) = model.display_frames.first_mut() {
        root.items.push(DisplayItem::Bone(Some(BoneIdx::new(0))));
    }
    if let Some(expressions) = model.display_frames.get_mut(1) {
        expressions
            .items
            .extend((0..num_morphs).map(|i| DisplayItem::Morph(Some(MorphIdx::new(i)))));
    }
    for frame in 0..4 {
        model.display_frames.push(DisplayFrame {
            name_ja: format!("枠{frame}").into(),
            name_en: format!("frame{frame}").into(),
            special: false,
            items: (1..num_bones)
                .filter(|b| b % 4 == frame)
                .map(|b| DisplayItem::Bone(Some(BoneIdx::new(b))))
                .collect(),
        });
    }

    for i in 0..spec.rigid_bodies {
        model.rigid_bodies.push(RigidBody {
            name_ja: format!("剛体{i}").into(),
            name_en: format!("body{i}").into(),
            bone: bone(&mut rng),
            group: (i % 16) as u8,
            non_collision_mask: (rng.next_u64() & 0xffff) as u16,
            shape: [RigidShape::Sphere, RigidShape::Box, RigidShape::Capsule][i % 3],
            size: Vec3::new(0.5, 1.0, 0.5),
            position: rng.vec3(10.0),
            rotation: rng.vec3(1.0),
            mass: 1.0,
            mode: [
                RigidMode::FollowBone,
                RigidMode::Physics,
                RigidMode::PhysicsWithBone,
            ][i % 3],
            ..RigidBody::default()
        });
    }
    let num_bodies = spec.rigid_bodies.max(1);
    for i in 0..spec.joints {
        let kind = if spec.version == PmxVersion::V2_1 {
            JointKind::ALL[i % 6]
        } else {
            JointKind::Spring6Dof
        };
        model.joints.push(Joint {
            name_ja: format!("ジョイント{i}").into(),
            name_en: format!("joint{i}").into(),
            kind,
            body_a: Some(RigidBodyIdx::new(i % num_bodies)),
            body_b: Some(RigidBodyIdx::new((i + 1) % num_bodies)),
            position: rng.vec3(10.0),
            rotation: rng.vec3(1.0),
            move_lower: Vec3::new(-0.1, -0.1, -0.1),
            move_upper: Vec3::new(0.1, 0.1, 0.1),
            rotate_lower: Vec3::new(-0.5, -0.5, -0.5),
            rotate_upper: Vec3::new(0.5, 0.5, 0.5),
            spring_move: Vec3::new(10.0, 10.0, 10.0),
            spring_rotate: Vec3::new(5.0, 5.0, 5.0),
        });
    }
    if spec.version == PmxVersion::V2_1 {
        model
            .soft_bodies
            .push(full_soft_body(num_materials, num_bodies, num_vertices));
    }
    model
}

fn full_soft_body(num_materials: usize, num_bodies: usize, num_vertices: usize) -> SoftBody {
    SoftBody {
        name_ja: "スカート".into(),
        name_en: "skirt".into(),
        shape: SoftBodyShape::TriMesh,
        material: Some(MaterialIdx::new(num_materials.saturating_sub(1))),
        group: 3,
        non_collision_mask: 0x00f0,
        flags: SoftBodyFlags::B_LINK | SoftBodyFlags::LINK_HYBRID,
        b_link_distance: 2,
        cluster_count: 4,
        total_mass: 1.5,
        margin: 0.05,
        aero_model: AeroModel::FTwoSided,
        config: SoftBodyConfig {
            vcf: 1.0,
            dp: 0.1,
            dg: 0.2,
            lf: 0.3,
            pr: 0.4,
            vc: 0.5,
            df: 0.6,
            mt: 0.7,
            chr: 0.8,
            khr: 0.9,
            shr: 1.0,
            ahr: 0.75,
        },
        cluster: SoftBodyCluster {
            srhr_cl: 0.1,
            skhr_cl: 1.0,
            sshr_cl: 0.5,
            sr_splt_cl: 0.5,
            sk_splt_cl: 0.5,
            ss_splt_cl: 0.5,
        },
        iterations: SoftBodyIterations {
            v_it: 1,
            p_it: 2,
            d_it: 3,
            c_it: 4,
        },
        stiffness: SoftBodyStiffness {
            lst: 1.0,
            ast: 0.9,
            vst: 0.8,
        },
        anchors: vec![
            SoftBodyAnchor {
                rigid_body: Some(RigidBodyIdx::new(0)),
                vertex: VertexIdx::new(0),
                near_mode: false,
            },
            SoftBodyAnchor {
                rigid_body: Some(RigidBodyIdx::new(num_bodies - 1)),
                vertex: VertexIdx::new(num_vertices - 1),
                near_mode: true,
            },
        ],
        pinned_vertices: vec![VertexIdx::new(1), VertexIdx::new(num_vertices / 2)],
    }
}

/// A model that uses every feature of PMX `version` at least once (every weight type, every
/// bone flag with the fields it brings, every morph kind, every joint kind, soft bodies), with
/// `counts` elements of the indexed kinds so tests can hit the index-size boundaries.
#[must_use]
pub fn feature_model(
    version: PmxVersion,
    encoding: TextEncoding,
    vertices: usize,
    others: usize,
) -> Model {
    let spec = LargeModelSpec {
        vertices: vertices.max(4),
        faces: vertices.max(4),
        bones: others.max(8),
        morphs: others.max(11),
        rigid_bodies: others.max(2),
        joints: 6,
        materials: others.clamp(1, 64),
        additional_uvs: if version == PmxVersion::V2_1 { 4 } else { 1 },
        version,
    };
    let mut model = large_model(&spec);
    model.header.encoding = encoding;
    // Exactly `others` elements of each signed-index kind, for index-size boundary tests.
    let others = others.max(11);
    model.bones.truncate(others.max(8));
    model.textures = (0..others)
        .map(|i| Text::from(format!("tex/t{i}.png")))
        .collect();
    model.morphs.truncate(others);
    model.rigid_bodies.truncate(others);
    model.vertices.truncate(vertices.max(4));
    for channel in &mut model.additional_uvs {
        channel.truncate(vertices.max(4));
    }
    // Texts in both scripts, and one of each bone flag combination.
    model.info.comment_ja = "テスト\r\n二行目".into();
    if let Some(bone) = model.bones.get_mut(0) {
        bone.flags = BoneFlags::all() | BoneFlags::from_bits_retain(0x4040);
        bone.tail_bone = Some(BoneIdx::new(1));
        bone.append_parent = Some(BoneIdx::new(1));
        bone.append_ratio = 0.25;
        bone.fixed_axis = Vec3::new(0.0, 1.0, 0.0);
        bone.local_axis_x = Vec3::new(0.0, 0.0, 1.0);
        bone.local_axis_z = Vec3::new(1.0, 0.0, 0.0);
        bone.external_parent_key = -7;
        bone.ik = Ik {
            target: Some(BoneIdx::new(2)),
            loop_count: 255,
            limit_angle: 1.0,
            links: vec![IkLink {
                bone: None,
                limits: None,
            }],
        };
    }
    if let Some(material) = model.materials.get_mut(0) {
        material.sphere_mode = SphereMode::SubTexture;
        material.sphere_texture = Some(TextureIdx::new(others - 1));
        material.toon = Toon::Texture(Some(TextureIdx::new(others - 1)));
        material.memo = "メモ".into();
        if version == PmxVersion::V2_1 {
            material.draw_flags |= DrawFlags::VERTEX_COLOR | DrawFlags::POINT | DrawFlags::LINE;
        }
    }
    // The last element of every kind is referenced somewhere, so index sizes are exercised at
    // their largest value.
    if let Some(MorphOffsets::Vertex(offsets)) = model
        .morphs
        .iter_mut()
        .map(|m| &mut m.offsets)
        .find(|o| matches!(o, MorphOffsets::Vertex(_)))
    {
        offsets.push(VertexMorphOffset {
            vertex: VertexIdx::new(vertices.max(4) - 1),
            offset: Vec3::ONE,
        });
    }
    if let Some(frame) = model.display_frames.get_mut(1) {
        frame
            .items
            .retain(|item| !matches!(item, DisplayItem::Morph(Some(m)) if m.get() >= others));
        frame
            .items
            .push(DisplayItem::Morph(Some(MorphIdx::new(others - 1))));
    }
    for frame in &mut model.display_frames {
        frame
            .items
            .retain(|item| !matches!(item, DisplayItem::Bone(Some(b)) if b.get() >= others.max(8)));
    }
    fix_dangling(&mut model);
    model
}

/// Points references past the end (left over from truncating a generated model) at valid
/// elements, so generated models are well formed.
fn fix_dangling(model: &mut Model) {
    let bones = model.bones.len();
    let morphs = model.morphs.len();
    let bodies = model.rigid_bodies.len();
    let vertices = model.vertices.len();
    let clamp_bone = |b: &mut Option<BoneIdx>| {
        if let Some(i) = b
            && i.get() >= bones
        {
            *b = Some(BoneIdx::new(i.get() % bones));
        }
    };
    for vertex in &mut model.vertices {
        vertex.weight.bones_mut().iter_mut().for_each(clamp_bone);
    }
    for face in &mut model.faces {
        for v in face {
            if v.get() >= vertices {
                *v = VertexIdx::new(v.get() % vertices);
            }
        }
    }
    for bone in &mut model.bones {
        clamp_bone(&mut bone.parent);
        clamp_bone(&mut bone.tail_bone);
        clamp_bone(&mut bone.append_parent);
        clamp_bone(&mut bone.ik.target);
        bone.ik
            .links
            .iter_mut()
            .for_each(|l| clamp_bone(&mut l.bone));
    }
    for morph in &mut model.morphs {
        match &mut morph.offsets {
            MorphOffsets::Group(o) | MorphOffsets::Flip(o) => {
                for g in o {
                    if let Some(m) = g.morph {
                        g.morph = Some(MorphIdx::new(m.get() % morphs));
                    }
                }
            }
            MorphOffsets::Vertex(o) => o
                .iter_mut()
                .for_each(|v| v.vertex = VertexIdx::new(v.vertex.get() % vertices)),
            MorphOffsets::Uv(o)
            | MorphOffsets::AdditionalUv1(o)
            | MorphOffsets::AdditionalUv2(o)
            | MorphOffsets::AdditionalUv3(o)
            | MorphOffsets::AdditionalUv4(o) => {
                o.iter_mut()
                    .for_each(|v| v.vertex = VertexIdx::new(v.vertex.get() % vertices));
            }
            MorphOffsets::Bone(o) => o.iter_mut().for_each(|b| clamp_bone(&mut b.bone)),
            MorphOffsets::Impulse(o) => o.iter_mut().for_each(|i| {
                i.rigid_body = Some(RigidBodyIdx::new(
                    i.rigid_body.map_or(0, |r| r.get()) % bodies,
                ))
            }),
            MorphOffsets::Material(_) => {}
        }
    }
    for body in &mut model.rigid_bodies {
        clamp_bone(&mut body.bone);
    }
    for joint in &mut model.joints {
        joint.body_a = joint.body_a.map(|b| RigidBodyIdx::new(b.get() % bodies));
        joint.body_b = joint.body_b.map(|b| RigidBodyIdx::new(b.get() % bodies));
    }
    for soft in &mut model.soft_bodies {
        for anchor in &mut soft.anchors {
            anchor.vertex = VertexIdx::new(anchor.vertex.get() % vertices);
            anchor.rigid_body = anchor
                .rigid_body
                .map(|b| RigidBodyIdx::new(b.get() % bodies));
        }
        for pin in &mut soft.pinned_vertices {
            *pin = VertexIdx::new(pin.get() % vertices);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tube_layout_has_small_faces_and_a_valid_model() {
        let mut model = large_model(&LargeModelSpec::small());
        lay_out_as_tube(&mut model, 50);
        // 3,000 vertices: 60 rings of 50; 59 bands of 50 quads.
        assert_eq!(model.faces.len(), 59 * 50 * 2);
        let total: u32 = model.materials.iter().map(|m| m.face_index_count).sum();
        assert_eq!(total as usize, model.faces.len() * 3);
        let longest = model
            .faces
            .iter()
            .flat_map(|f| {
                let p = |i: usize| model.vertices[f[i].0 as usize].position;
                [(p(0), p(1)), (p(1), p(2)), (p(2), p(0))]
            })
            .map(|(a, b)| ((a.x - b.x).powi(2) + (a.y - b.y).powi(2) + (a.z - b.z).powi(2)).sqrt())
            .fold(0.0f32, f32::max);
        assert!(longest < 1.0, "longest edge {longest}");
        let issues = crate::validate::check(&model, None, &Default::default());
        assert!(issues.iter().all(|i| !i.is_error()), "{issues:?}");
    }
}
