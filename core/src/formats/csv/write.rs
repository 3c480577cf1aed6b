//! The CSV writer: every element of the model, PmxEditor's columns first, ours after them.

use super::CsvEncoding;
use super::columns as col;
use super::text::{TextKind, push_f32, push_text};
use crate::formats::error::WriteError;
use crate::model::{
    BoneFlags, BoneIdx, DisplayItem, DrawFlags, MaterialIdx, Model, MorphIdx, MorphOffsets,
    RigidBodyIdx, Text, TextureIdx, Toon, Vec3, Vec4, Weight,
};
use std::fmt::Write as _;

/// `model` as CSV text (UTF-8, no byte order mark; [`super::write_bytes`] adds the encoding).
#[must_use]
pub fn write_csv(model: &Model) -> String {
    write_with(model, CsvEncoding::Utf8Bom)
}

/// `model` as the bytes of a CSV file in the default encoding (UTF-8 with a BOM).
pub fn write(model: &Model) -> Result<Vec<u8>, WriteError> {
    super::write_bytes(model, &super::CsvSaveOptions::default())
}

/// One line being written.
struct Row<'a> {
    out: &'a mut String,
    encoding: CsvEncoding,
}

impl Row<'_> {
    fn cell(&mut self) -> &mut String {
        self.out.push(',');
        self.out
    }

    fn int(&mut self, value: impl std::fmt::Display) -> &mut Self {
        let _ = write!(self.cell(), "{value}");
        self
    }

    fn flag(&mut self, on: bool) -> &mut Self {
        self.int(u8::from(on))
    }

    fn f(&mut self, value: f32) -> &mut Self {
        push_f32(self.cell(), value);
        self
    }

    fn deg(&mut self, radians: f32) -> &mut Self {
        self.f(radians.to_degrees())
    }

    fn v3(&mut self, v: Vec3) -> &mut Self {
        self.f(v.x).f(v.y).f(v.z)
    }

    fn v4(&mut self, v: Vec4) -> &mut Self {
        self.f(v.x).f(v.y).f(v.z).f(v.w)
    }

    fn deg3(&mut self, v: Vec3) -> &mut Self {
        self.deg(v.x).deg(v.y).deg(v.z)
    }

    fn text(&mut self, text: &Text) -> &mut Self {
        let encoding = self.encoding;
        push_text(self.cell(), text, TextKind::Line, encoding);
        self
    }

    fn multiline(&mut self, text: &Text) -> &mut Self {
        let encoding = self.encoding;
        push_text(self.cell(), text, TextKind::MultiLine, encoding);
        self
    }

    fn empty(&mut self) -> &mut Self {
        self.cell();
        self
    }
}

impl Drop for Row<'_> {
    fn drop(&mut self) {
        self.out.push_str("\r\n");
    }
}

struct Writer<'m> {
    model: &'m Model,
    out: String,
    encoding: CsvEncoding,
}

impl<'m> Writer<'m> {
    fn comment(&mut self, columns: &str) {
        self.out.push_str(columns);
        self.out.push_str("\r\n");
    }

    fn row(&mut self, kind: &str) -> Row<'_> {
        self.out.push_str(kind);
        Row {
            out: &mut self.out,
            encoding: self.encoding,
        }
    }

    fn bone_name(&self, bone: Option<BoneIdx>) -> &'m Text {
        let model = self.model;
        bone.and_then(|b| model.bones.get(b.get()))
            .map_or(&EMPTY, |b| &b.name_ja)
    }

    fn material_name(&self, material: Option<MaterialIdx>) -> &'m Text {
        let model = self.model;
        material
            .and_then(|m| model.materials.get(m.get()))
            .map_or(&EMPTY, |m| &m.name_ja)
    }

    fn morph_name(&self, morph: Option<MorphIdx>) -> &'m Text {
        let model = self.model;
        morph
            .and_then(|m| model.morphs.get(m.get()))
            .map_or(&EMPTY, |m| &m.name_ja)
    }

    fn body_name(&self, body: Option<RigidBodyIdx>) -> &'m Text {
        let model = self.model;
        body.and_then(|b| model.rigid_bodies.get(b.get()))
            .map_or(&EMPTY, |b| &b.name_ja)
    }

    fn texture_path(&self, texture: Option<TextureIdx>) -> &'m Text {
        let model = self.model;
        texture
            .and_then(|t| model.textures.get(t.get()))
            .unwrap_or(&EMPTY)
    }
}

static EMPTY: Text = Text::Str(String::new());

/// `model` as CSV text whose every character `encoding` can hold.
pub(super) fn write_with(model: &Model, encoding: CsvEncoding) -> String {
    let mut w = Writer {
        model,
        out: String::new(),
        encoding,
    };
    header(&mut w);
    vertices(&mut w);
    textures(&mut w);
    materials(&mut w);
    faces(&mut w);
    bones(&mut w);
    morphs(&mut w);
    frames(&mut w);
    bodies(&mut w);
    joints(&mut w);
    soft_bodies(&mut w);
    w.out
}

fn header(w: &mut Writer<'_>) {
    let model = w.model;
    w.comment(col::HEADER);
    let mut row = w.row("PmxHeader");
    row.out.push(',');
    row.out.push_str(model.header.version.name());
    row.int(match model.header.encoding {
        crate::model::TextEncoding::Utf16 => 0,
        crate::model::TextEncoding::Utf8 => 1,
    })
    .int(model.additional_uvs.len());
    match model.header.index_sizes {
        Some(sizes) => {
            for size in sizes.to_array() {
                row.int(size);
            }
        }
        None => {
            for _ in 0..6 {
                row.empty();
            }
        }
    }
    drop(row);
    w.comment(col::MODEL_INFO);
    let info = &model.info;
    w.row("PmxModelInfo")
        .text(&info.name_ja)
        .text(&info.name_en)
        .multiline(&info.comment_ja)
        .multiline(&info.comment_en);
}

fn vertices(w: &mut Writer<'_>) {
    let model = w.model;
    if model.vertices.is_empty() {
        return;
    }
    w.comment(col::VERTEX);
    for (index, vertex) in model.vertices.iter().enumerate() {
        let (kind, bones, weights, sdef): (u8, &[Option<BoneIdx>], [f32; 4], _) = match &vertex
            .weight
        {
            Weight::Bdef1 { bone } => (0, std::slice::from_ref(bone), [1.0, 0.0, 0.0, 0.0], None),
            Weight::Bdef2 { bones, weight } => (
                1,
                bones.as_slice(),
                [*weight, 1.0 - *weight, 0.0, 0.0],
                None,
            ),
            Weight::Bdef4 { bones, weights } => (2, bones.as_slice(), *weights, None),
            Weight::Sdef {
                bones,
                weight,
                c,
                r0,
                r1,
            } => (
                3,
                bones.as_slice(),
                [*weight, 1.0 - *weight, 0.0, 0.0],
                Some((*c, *r0, *r1)),
            ),
            Weight::Qdef { bones, weights } => (4, bones.as_slice(), *weights, None),
        };
        let names: Vec<&Text> = (0..4)
            .map(|k| match bones.get(k) {
                Some(bone) => w.bone_name(*bone),
                None => &EMPTY,
            })
            .collect();
        let mut row = w.row("PmxVertex");
        row.int(index)
            .v3(vertex.position)
            .v3(vertex.normal)
            .f(vertex.edge_scale)
            .f(vertex.uv.x)
            .f(vertex.uv.y);
        for channel in 0..4 {
            row.v4(model.additional_uv(channel, index).unwrap_or(Vec4::ZERO));
        }
        row.int(kind);
        for (k, name) in names.iter().enumerate() {
            let weight = if k < bones.len() { weights[k] } else { 0.0 };
            row.text(name).f(weight);
        }
        let (c, r0, r1) = sdef.unwrap_or((Vec3::ZERO, Vec3::ZERO, Vec3::ZERO));
        row.v3(c).v3(r0).v3(r1);
        for k in 0..4 {
            match bones.get(k) {
                Some(bone) => row.int(BoneIdx::to_raw(*bone)),
                None => row.empty(),
            };
        }
    }
}

fn textures(w: &mut Writer<'_>) {
    let model = w.model;
    w.comment(col::TEXTURE);
    for (index, path) in model.textures.iter().enumerate() {
        w.row(";@PmxTexture").int(index).text(path);
    }
}

fn materials(w: &mut Writer<'_>) {
    let model = w.model;
    if model.materials.is_empty() {
        return;
    }
    w.comment(col::MATERIAL);
    for material in &model.materials {
        let flags = material.draw_flags;
        let draw_mode = if flags.contains(DrawFlags::POINT) {
            1
        } else if flags.contains(DrawFlags::LINE) {
            2
        } else {
            0
        };
        let toon_path = match material.toon {
            Toon::Shared(n) => Text::Str(format!("toon{:02}.bmp", u32::from(n) + 1)),
            Toon::Texture(texture) => w.texture_path(texture).clone(),
        };
        let texture = w.texture_path(material.texture);
        let sphere = w.texture_path(material.sphere_texture);
        let (toon_shared, toon_raw) = match material.toon {
            Toon::Shared(n) => (1, i32::from(n)),
            Toon::Texture(texture) => (0, TextureIdx::to_raw(texture)),
        };
        w.row("PmxMaterial")
            .text(&material.name_ja)
            .text(&material.name_en)
            .v4(material.diffuse)
            .v3(material.specular)
            .f(material.specular_power)
            .v3(material.ambient)
            .flag(flags.contains(DrawFlags::DOUBLE_SIDED))
            .flag(flags.contains(DrawFlags::GROUND_SHADOW))
            .flag(flags.contains(DrawFlags::DRAW_TO_SHADOW_MAP))
            .flag(flags.contains(DrawFlags::DRAW_SELF_SHADOW))
            .flag(flags.contains(DrawFlags::VERTEX_COLOR))
            .int(draw_mode)
            .flag(flags.contains(DrawFlags::EDGE))
            .f(material.edge_size)
            .v4(material.edge_color)
            .text(texture)
            .text(sphere)
            .int(material.sphere_mode.to_raw())
            .text(&toon_path)
            .multiline(&material.memo)
            // Ours: the exact flags, texture indices, toon and face count.
            .int(flags.bits())
            .int(TextureIdx::to_raw(material.texture))
            .int(TextureIdx::to_raw(material.sphere_texture))
            .int(toon_shared)
            .int(toon_raw)
            .int(material.face_index_count);
    }
}

fn faces(w: &mut Writer<'_>) {
    let model = w.model;
    let ranges = model.material_face_ranges();
    // The material whose range holds the face: ranges are in face order, so a cursor finds it.
    let mut cursor = 0usize;
    let mut current: Option<Option<usize>> = None;
    for (index, face) in model.faces.iter().enumerate() {
        while ranges.get(cursor).is_some_and(|r| r.end <= index) {
            cursor += 1;
        }
        let material = ranges
            .get(cursor)
            .filter(|r| r.contains(&index))
            .map(|_| cursor);
        if current != Some(material) {
            current = Some(material);
            w.comment(col::FACE);
        }
        // Faces past every material's range are numbered from the end of the last range.
        let start = match material {
            Some(m) => ranges.get(m).map_or(index, |r| r.start),
            None => ranges.last().map_or(0, |r| r.end.min(index)),
        };
        let name = w.material_name(material.map(MaterialIdx::new));
        w.row("PmxFace")
            .text(name)
            .int(index - start)
            .int(face[0].0)
            .int(face[1].0)
            .int(face[2].0);
    }
}

fn bones(w: &mut Writer<'_>) {
    let model = w.model;
    if model.bones.is_empty() {
        return;
    }
    for bone in &model.bones {
        w.comment(col::BONE);
        let flags = bone.flags;
        let has = |flag| u8::from(flags.contains(flag));
        let parent = w.bone_name(bone.parent);
        let tail = w.bone_name(bone.tail_bone);
        let append = w.bone_name(bone.append_parent);
        let target = w.bone_name(bone.ik.target);
        w.row("PmxBone")
            .text(&bone.name_ja)
            .text(&bone.name_en)
            .int(bone.layer)
            .int(has(BoneFlags::AFTER_PHYSICS))
            .v3(bone.position)
            .int(has(BoneFlags::ROTATABLE))
            .int(has(BoneFlags::MOVABLE))
            .int(has(BoneFlags::IK))
            .int(has(BoneFlags::VISIBLE))
            .int(has(BoneFlags::OPERABLE))
            .text(parent)
            .int(has(BoneFlags::TAIL_IS_BONE))
            .text(tail)
            .v3(bone.tail_offset)
            .int(has(BoneFlags::LOCAL_APPEND))
            .int(has(BoneFlags::APPEND_ROTATE))
            .int(has(BoneFlags::APPEND_MOVE))
            .f(bone.append_ratio)
            .text(append)
            .int(has(BoneFlags::FIXED_AXIS))
            .v3(bone.fixed_axis)
            .int(has(BoneFlags::LOCAL_AXES))
            .v3(bone.local_axis_x)
            .v3(bone.local_axis_z)
            .int(has(BoneFlags::EXTERNAL_PARENT))
            .int(bone.external_parent_key)
            .text(target)
            .int(bone.ik.loop_count)
            .deg(bone.ik.limit_angle)
            // Ours: every flag bit, the indices behind the names, the exact angle.
            .int(flags.bits())
            .int(BoneIdx::to_raw(bone.parent))
            .int(BoneIdx::to_raw(bone.tail_bone))
            .int(BoneIdx::to_raw(bone.append_parent))
            .int(BoneIdx::to_raw(bone.ik.target))
            .f(bone.ik.limit_angle);
        if !bone.ik.links.is_empty() {
            w.comment(col::IK_LINK);
        }
        for link in &bone.ik.links {
            let name = w.bone_name(link.bone);
            let limits = link.limits.unwrap_or_default();
            let mut row = w.row("PmxIKLink");
            row.text(&bone.name_ja)
                .text(name)
                .flag(link.limits.is_some());
            for axis in 0..3 {
                row.deg(limits.lower.to_array()[axis])
                    .deg(limits.upper.to_array()[axis]);
            }
            row.int(BoneIdx::to_raw(link.bone))
                .v3(limits.lower)
                .v3(limits.upper);
        }
    }
}

fn morphs(w: &mut Writer<'_>) {
    let model = w.model;
    for morph in &model.morphs {
        w.comment(col::MORPH);
        w.row("PmxMorph")
            .text(&morph.name_ja)
            .text(&morph.name_en)
            .int(morph.panel.to_raw())
            .int(morph.offsets.kind() as u8);
        let parent = &morph.name_ja;
        match &morph.offsets {
            MorphOffsets::Vertex(offsets) => {
                if !offsets.is_empty() {
                    w.comment(col::VERTEX_MORPH);
                }
                for (k, o) in offsets.iter().enumerate() {
                    w.row("PmxVertexMorph")
                        .text(parent)
                        .int(k)
                        .int(o.vertex.0)
                        .v3(o.offset);
                }
            }
            MorphOffsets::Uv(offsets)
            | MorphOffsets::AdditionalUv1(offsets)
            | MorphOffsets::AdditionalUv2(offsets)
            | MorphOffsets::AdditionalUv3(offsets)
            | MorphOffsets::AdditionalUv4(offsets) => {
                if !offsets.is_empty() {
                    w.comment(col::UV_MORPH);
                }
                for (k, o) in offsets.iter().enumerate() {
                    w.row("PmxUVMorph")
                        .text(parent)
                        .int(k)
                        .int(o.vertex.0)
                        .v4(o.offset);
                }
            }
            MorphOffsets::Bone(offsets) => {
                if !offsets.is_empty() {
                    w.comment(col::BONE_MORPH);
                }
                for (k, o) in offsets.iter().enumerate() {
                    let name = w.bone_name(o.bone);
                    w.row("PmxBoneMorph")
                        .text(parent)
                        .int(k)
                        .text(name)
                        .v3(o.translation)
                        .v4(o.rotation)
                        .int(BoneIdx::to_raw(o.bone));
                }
            }
            MorphOffsets::Material(offsets) => {
                if !offsets.is_empty() {
                    w.comment(col::MATERIAL_MORPH);
                }
                for (k, o) in offsets.iter().enumerate() {
                    let name = w.material_name(o.material);
                    w.row("PmxMaterialMorph")
                        .text(parent)
                        .int(k)
                        .text(name)
                        .int(o.op.to_raw())
                        .v4(o.diffuse)
                        .v3(o.specular)
                        .f(o.specular_power)
                        .v3(o.ambient)
                        .f(o.edge_size)
                        .v4(o.edge_color)
                        .v4(o.texture_tint)
                        .v4(o.sphere_tint)
                        .v4(o.toon_tint)
                        .int(MaterialIdx::to_raw(o.material));
                }
            }
            MorphOffsets::Group(offsets) | MorphOffsets::Flip(offsets) => {
                let (kind, comment) = if matches!(morph.offsets, MorphOffsets::Group(_)) {
                    ("PmxGroupMorph", col::GROUP_MORPH)
                } else {
                    ("PmxFlipMorph", col::FLIP_MORPH)
                };
                if !offsets.is_empty() {
                    w.comment(comment);
                }
                for (k, o) in offsets.iter().enumerate() {
                    let name = w.morph_name(o.morph);
                    w.row(kind)
                        .text(parent)
                        .int(k)
                        .text(name)
                        .f(o.ratio)
                        .int(MorphIdx::to_raw(o.morph));
                }
            }
            MorphOffsets::Impulse(offsets) => {
                if !offsets.is_empty() {
                    w.comment(col::IMPULSE_MORPH);
                }
                for (k, o) in offsets.iter().enumerate() {
                    w.row("PmxImpulseMorph")
                        .text(parent)
                        .int(k)
                        .int(RigidBodyIdx::to_raw(o.rigid_body))
                        .flag(o.local)
                        .v3(o.velocity)
                        .v3(o.torque);
                }
            }
        }
    }
}

fn frames(w: &mut Writer<'_>) {
    let model = w.model;
    for frame in &model.display_frames {
        w.comment(col::NODE);
        w.row("PmxNode")
            .text(&frame.name_ja)
            .text(&frame.name_en)
            .flag(frame.special);
        if !frame.items.is_empty() {
            w.comment(col::NODE_ITEM);
        }
        for item in &frame.items {
            let (target, name, raw) = match *item {
                DisplayItem::Bone(bone) => (0, w.bone_name(bone), BoneIdx::to_raw(bone)),
                DisplayItem::Morph(morph) => (1, w.morph_name(morph), MorphIdx::to_raw(morph)),
            };
            w.row("PmxNodeItem")
                .text(&frame.name_ja)
                .int(target)
                .text(name)
                .int(raw);
        }
    }
}

/// PmxEditor's 非衝突グループ: the 1-based groups a body does not collide with (the mask's
/// cleared bits), separated by spaces.
fn non_collision_groups(mask: u16) -> Text {
    let groups: Vec<String> = (0..16)
        .filter(|bit| mask & (1 << bit) == 0)
        .map(|bit| (bit + 1).to_string())
        .collect();
    Text::Str(groups.join(" "))
}

fn bodies(w: &mut Writer<'_>) {
    let model = w.model;
    if model.rigid_bodies.is_empty() {
        return;
    }
    w.comment(col::BODY);
    for body in &model.rigid_bodies {
        let bone = w.bone_name(body.bone);
        w.row("PmxBody")
            .text(&body.name_ja)
            .text(&body.name_en)
            .text(bone)
            .int(body.mode.to_raw())
            .int(body.group)
            .text(&non_collision_groups(body.non_collision_mask))
            .int(body.shape.to_raw())
            .v3(body.size)
            .v3(body.position)
            .deg3(body.rotation)
            .f(body.mass)
            .f(body.linear_damping)
            .f(body.angular_damping)
            .f(body.restitution)
            .f(body.friction)
            .int(BoneIdx::to_raw(body.bone))
            .v3(body.rotation);
    }
}

fn joints(w: &mut Writer<'_>) {
    let model = w.model;
    if model.joints.is_empty() {
        return;
    }
    w.comment(col::JOINT);
    for joint in &model.joints {
        let a = w.body_name(joint.body_a);
        let b = w.body_name(joint.body_b);
        w.row("PmxJoint")
            .text(&joint.name_ja)
            .text(&joint.name_en)
            .text(a)
            .text(b)
            .int(joint.kind.to_raw())
            .v3(joint.position)
            .deg3(joint.rotation)
            .v3(joint.move_lower)
            .v3(joint.move_upper)
            .deg3(joint.rotate_lower)
            .deg3(joint.rotate_upper)
            .v3(joint.spring_move)
            .v3(joint.spring_rotate)
            .int(RigidBodyIdx::to_raw(joint.body_a))
            .int(RigidBodyIdx::to_raw(joint.body_b))
            .v3(joint.rotation)
            .v3(joint.rotate_lower)
            .v3(joint.rotate_upper);
    }
}

fn soft_bodies(w: &mut Writer<'_>) {
    use crate::model::SoftBodyFlags;
    let model = w.model;
    for soft in &model.soft_bodies {
        w.comment(col::SOFT_BODY);
        let material = w.material_name(soft.material);
        let c = &soft.config;
        let k = &soft.cluster;
        let i = &soft.iterations;
        let s = &soft.stiffness;
        w.row("PmxSoftBody")
            .text(&soft.name_ja)
            .text(&soft.name_en)
            .int(soft.shape.to_raw())
            .text(material)
            .int(soft.group)
            .text(&non_collision_groups(soft.non_collision_mask))
            .flag(soft.flags.contains(SoftBodyFlags::B_LINK))
            .int(soft.b_link_distance)
            .flag(soft.flags.contains(SoftBodyFlags::CLUSTERS))
            .int(soft.cluster_count)
            .flag(soft.flags.contains(SoftBodyFlags::LINK_HYBRID))
            .f(soft.total_mass)
            .f(soft.margin)
            .int(soft.aero_model.to_raw())
            .f(c.vcf)
            .f(c.dp)
            .f(c.dg)
            .f(c.lf)
            .f(c.pr)
            .f(c.vc)
            .f(c.df)
            .f(c.mt)
            .f(c.chr)
            .f(c.khr)
            .f(c.shr)
            .f(c.ahr)
            .f(k.srhr_cl)
            .f(k.skhr_cl)
            .f(k.sshr_cl)
            .f(k.sr_splt_cl)
            .f(k.sk_splt_cl)
            .f(k.ss_splt_cl)
            .int(i.v_it)
            .int(i.p_it)
            .int(i.d_it)
            .int(i.c_it)
            .f(s.lst)
            .f(s.ast)
            .f(s.vst)
            .int(MaterialIdx::to_raw(soft.material))
            .int(soft.flags.bits());
        if !soft.anchors.is_empty() {
            w.comment(col::SOFT_BODY_ANCHOR);
        }
        for anchor in &soft.anchors {
            let body = w.body_name(anchor.rigid_body);
            w.row("PmxSoftBodyAnchor")
                .text(&soft.name_ja)
                .text(body)
                .int(anchor.vertex.0)
                .flag(anchor.near_mode)
                .int(RigidBodyIdx::to_raw(anchor.rigid_body));
        }
        if !soft.pinned_vertices.is_empty() {
            w.comment(col::SOFT_BODY_PIN);
        }
        for vertex in &soft.pinned_vertices {
            w.row("PmxSoftBodyPin").text(&soft.name_ja).int(vertex.0);
        }
    }
}
