//! Every reference the model holds, by index kind.
//!
//! One walk ([`visit_refs`] / [`visit_refs_mut`]) knows every field that holds an index, and
//! names the place of each one ([`RefSite`]). It destructures every model type without `..`, so
//! adding a field to the model breaks the build here until the walk knows whether the field holds
//! a reference. The per-kind functions (`for_each_bone_ref_mut`, ...) are thin views of it.
//!
//! Insert, delete, reorder, merge and sort all renumber references through an [`IndexRemap`]
//! (old index → new index, or removed), applied by [`IndexRemap::apply`] through the same walk.

use super::*;
use crate::i18n::Message;
use crate::path::ModelPath;
use std::fmt;

/// The kinds of element other elements refer to by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RefKind {
    Vertex,
    Texture,
    Material,
    Bone,
    Morph,
    RigidBody,
}

impl RefKind {
    pub const ALL: [RefKind; 6] = [
        RefKind::Vertex,
        RefKind::Texture,
        RefKind::Material,
        RefKind::Bone,
        RefKind::Morph,
        RefKind::RigidBody,
    ];

    /// The element kind this reference kind points at.
    #[must_use]
    pub fn element_kind(self) -> ElementKind {
        match self {
            RefKind::Vertex => ElementKind::Vertex,
            RefKind::Texture => ElementKind::Texture,
            RefKind::Material => ElementKind::Material,
            RefKind::Bone => ElementKind::Bone,
            RefKind::Morph => ElementKind::Morph,
            RefKind::RigidBody => ElementKind::RigidBody,
        }
    }

    /// The reference kind pointing at `kind`, if other elements refer to that kind by index.
    #[must_use]
    pub fn of_element(kind: ElementKind) -> Option<Self> {
        match kind {
            ElementKind::Vertex => Some(RefKind::Vertex),
            ElementKind::Texture => Some(RefKind::Texture),
            ElementKind::Material => Some(RefKind::Material),
            ElementKind::Bone => Some(RefKind::Bone),
            ElementKind::Morph => Some(RefKind::Morph),
            ElementKind::RigidBody => Some(RefKind::RigidBody),
            ElementKind::Face
            | ElementKind::DisplayFrame
            | ElementKind::Joint
            | ElementKind::SoftBody => None,
        }
    }
}

/// Where a reference lives: the owning element and the field. [`RefSite::path`] gives its path
/// in the one grammar (`bones[12].ik.links[3].bone`), as validators report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RefSite {
    VertexWeight {
        vertex: usize,
        slot: usize,
    },
    Face {
        face: usize,
        corner: usize,
    },
    MaterialTexture {
        material: usize,
    },
    MaterialSphere {
        material: usize,
    },
    MaterialToon {
        material: usize,
    },
    BoneParent {
        bone: usize,
    },
    BoneTail {
        bone: usize,
    },
    BoneAppendParent {
        bone: usize,
    },
    IkTarget {
        bone: usize,
    },
    IkLink {
        bone: usize,
        link: usize,
    },
    /// An offset of any morph kind (vertex, UV, bone, material, group, flip, impulse).
    MorphOffset {
        morph: usize,
        offset: usize,
    },
    DisplayItem {
        frame: usize,
        item: usize,
    },
    RigidBodyBone {
        body: usize,
    },
    JointBodyA {
        joint: usize,
    },
    JointBodyB {
        joint: usize,
    },
    SoftBodyMaterial {
        soft_body: usize,
    },
    SoftBodyAnchorBody {
        soft_body: usize,
        anchor: usize,
    },
    SoftBodyAnchorVertex {
        soft_body: usize,
        anchor: usize,
    },
    SoftBodyPin {
        soft_body: usize,
        pin: usize,
    },
}

impl RefSite {
    /// The element that holds the reference.
    #[must_use]
    pub fn owner(self) -> (ElementKind, usize) {
        match self {
            RefSite::VertexWeight { vertex, .. } => (ElementKind::Vertex, vertex),
            RefSite::Face { face, .. } => (ElementKind::Face, face),
            RefSite::MaterialTexture { material }
            | RefSite::MaterialSphere { material }
            | RefSite::MaterialToon { material } => (ElementKind::Material, material),
            RefSite::BoneParent { bone }
            | RefSite::BoneTail { bone }
            | RefSite::BoneAppendParent { bone }
            | RefSite::IkTarget { bone }
            | RefSite::IkLink { bone, .. } => (ElementKind::Bone, bone),
            RefSite::MorphOffset { morph, .. } => (ElementKind::Morph, morph),
            RefSite::DisplayItem { frame, .. } => (ElementKind::DisplayFrame, frame),
            RefSite::RigidBodyBone { body } => (ElementKind::RigidBody, body),
            RefSite::JointBodyA { joint } | RefSite::JointBodyB { joint } => {
                (ElementKind::Joint, joint)
            }
            RefSite::SoftBodyMaterial { soft_body }
            | RefSite::SoftBodyAnchorBody { soft_body, .. }
            | RefSite::SoftBodyAnchorVertex { soft_body, .. }
            | RefSite::SoftBodyPin { soft_body, .. } => (ElementKind::SoftBody, soft_body),
        }
    }

    /// A short plural name of the field, for summaries ("vertex weights", "IK links").
    #[must_use]
    pub fn field_name(self) -> &'static str {
        match self {
            RefSite::VertexWeight { .. } => "vertex weights",
            RefSite::Face { .. } => "face corners",
            RefSite::MaterialTexture { .. } => "material textures",
            RefSite::MaterialSphere { .. } => "material sphere textures",
            RefSite::MaterialToon { .. } => "material toons",
            RefSite::BoneParent { .. } => "bone parents",
            RefSite::BoneTail { .. } => "bone tails",
            RefSite::BoneAppendParent { .. } => "append parents",
            RefSite::IkTarget { .. } => "IK targets",
            RefSite::IkLink { .. } => "IK links",
            RefSite::MorphOffset { .. } => "morph offsets",
            RefSite::DisplayItem { .. } => "display frame items",
            RefSite::RigidBodyBone { .. } => "rigid body bones",
            RefSite::JointBodyA { .. } | RefSite::JointBodyB { .. } => "joint bodies",
            RefSite::SoftBodyMaterial { .. } => "soft body materials",
            RefSite::SoftBodyAnchorBody { .. } | RefSite::SoftBodyAnchorVertex { .. } => {
                "soft body anchors"
            }
            RefSite::SoftBodyPin { .. } => "soft body pins",
        }
    }
}

impl RefSite {
    /// The place of the reference in the one path grammar ([`crate::path`]), resolvable in
    /// `model`: the model tells which field a morph offset's reference is in (`vertex`, `bone`,
    /// `morph`, `material`, `rigid_body`) and whether a weight is BDEF1 (`weight.bone`).
    #[must_use]
    pub fn path(self, model: &Model) -> ModelPath {
        use crate::model::ElementKind as T;
        let element = ModelPath::element;
        match self {
            RefSite::VertexWeight { vertex, slot } => {
                let weight = element(T::Vertex, vertex).field("weight");
                match model.vertices.get(vertex).map(|v| &v.weight) {
                    Some(Weight::Bdef1 { .. }) => weight.field("bone"),
                    _ => weight.at("bones", slot),
                }
            }
            RefSite::Face { face, corner } => element(T::Face, face).index(corner),
            RefSite::MaterialTexture { material } => {
                element(T::Material, material).field("texture")
            }
            RefSite::MaterialSphere { material } => {
                element(T::Material, material).field("sphere_texture")
            }
            RefSite::MaterialToon { material } => element(T::Material, material).field("toon"),
            RefSite::BoneParent { bone } => element(T::Bone, bone).field("parent"),
            RefSite::BoneTail { bone } => element(T::Bone, bone).field("tail_bone"),
            RefSite::BoneAppendParent { bone } => element(T::Bone, bone).field("append_parent"),
            RefSite::IkTarget { bone } => element(T::Bone, bone).field("ik").field("target"),
            RefSite::IkLink { bone, link } => element(T::Bone, bone)
                .field("ik")
                .at("links", link)
                .field("bone"),
            RefSite::MorphOffset { morph, offset } => {
                let field = match model.morphs.get(morph).map(|m| m.offsets.kind()) {
                    Some(MorphKind::Group | MorphKind::Flip) => "morph",
                    Some(MorphKind::Bone) => "bone",
                    Some(MorphKind::Material) => "material",
                    Some(MorphKind::Impulse) => "rigid_body",
                    _ => "vertex",
                };
                element(T::Morph, morph)
                    .field("offsets")
                    .index(offset)
                    .field(field)
            }
            RefSite::DisplayItem { frame, item } => {
                element(T::DisplayFrame, frame).field("items").index(item)
            }
            RefSite::RigidBodyBone { body } => element(T::RigidBody, body).field("bone"),
            RefSite::JointBodyA { joint } => element(T::Joint, joint).field("body_a"),
            RefSite::JointBodyB { joint } => element(T::Joint, joint).field("body_b"),
            RefSite::SoftBodyMaterial { soft_body } => {
                element(T::SoftBody, soft_body).field("material")
            }
            RefSite::SoftBodyAnchorBody { soft_body, anchor } => element(T::SoftBody, soft_body)
                .field("anchors")
                .index(anchor)
                .field("rigid_body"),
            RefSite::SoftBodyAnchorVertex { soft_body, anchor } => element(T::SoftBody, soft_body)
                .field("anchors")
                .index(anchor)
                .field("vertex"),
            RefSite::SoftBodyPin { soft_body, pin } => element(T::SoftBody, soft_body)
                .field("pinned_vertices")
                .index(pin),
        }
    }
}

/// Without the model: the element and list position, in the path grammar (a morph offset is
/// named as a whole, `morphs[2].offsets[5]`; [`RefSite::path`] names its field).
impl fmt::Display for RefSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RefSite::VertexWeight { vertex, slot } => {
                write!(f, "vertices[{vertex}].weight.bones[{slot}]")
            }
            RefSite::Face { face, corner } => write!(f, "faces[{face}][{corner}]"),
            RefSite::MaterialTexture { material } => write!(f, "materials[{material}].texture"),
            RefSite::MaterialSphere { material } => {
                write!(f, "materials[{material}].sphere_texture")
            }
            RefSite::MaterialToon { material } => write!(f, "materials[{material}].toon"),
            RefSite::BoneParent { bone } => write!(f, "bones[{bone}].parent"),
            RefSite::BoneTail { bone } => write!(f, "bones[{bone}].tail_bone"),
            RefSite::BoneAppendParent { bone } => write!(f, "bones[{bone}].append_parent"),
            RefSite::IkTarget { bone } => write!(f, "bones[{bone}].ik.target"),
            RefSite::IkLink { bone, link } => write!(f, "bones[{bone}].ik.links[{link}].bone"),
            RefSite::MorphOffset { morph, offset } => {
                write!(f, "morphs[{morph}].offsets[{offset}]")
            }
            RefSite::DisplayItem { frame, item } => {
                write!(f, "display_frames[{frame}].items[{item}]")
            }
            RefSite::RigidBodyBone { body } => write!(f, "rigid_bodies[{body}].bone"),
            RefSite::JointBodyA { joint } => write!(f, "joints[{joint}].body_a"),
            RefSite::JointBodyB { joint } => write!(f, "joints[{joint}].body_b"),
            RefSite::SoftBodyMaterial { soft_body } => {
                write!(f, "soft_bodies[{soft_body}].material")
            }
            RefSite::SoftBodyAnchorBody { soft_body, anchor } => {
                write!(f, "soft_bodies[{soft_body}].anchors[{anchor}].rigid_body")
            }
            RefSite::SoftBodyAnchorVertex { soft_body, anchor } => {
                write!(f, "soft_bodies[{soft_body}].anchors[{anchor}].vertex")
            }
            RefSite::SoftBodyPin { soft_body, pin } => {
                write!(f, "soft_bodies[{soft_body}].pinned_vertices[{pin}]")
            }
        }
    }
}

/// Receives every reference of a model, mutably. Each method defaults to doing nothing, so a
/// visitor implements only the kinds it cares about.
pub trait RefVisitorMut {
    fn vertex(&mut self, site: RefSite, index: &mut VertexIdx) {
        let _ = (site, index);
    }
    fn texture(&mut self, site: RefSite, index: &mut Option<TextureIdx>) {
        let _ = (site, index);
    }
    fn material(&mut self, site: RefSite, index: &mut Option<MaterialIdx>) {
        let _ = (site, index);
    }
    fn bone(&mut self, site: RefSite, index: &mut Option<BoneIdx>) {
        let _ = (site, index);
    }
    fn morph(&mut self, site: RefSite, index: &mut Option<MorphIdx>) {
        let _ = (site, index);
    }
    fn rigid_body(&mut self, site: RefSite, index: &mut Option<RigidBodyIdx>) {
        let _ = (site, index);
    }
}

/// Receives every reference of a model. Each method defaults to doing nothing.
pub trait RefVisitor {
    fn vertex(&mut self, site: RefSite, index: &VertexIdx) {
        let _ = (site, index);
    }
    fn texture(&mut self, site: RefSite, index: &Option<TextureIdx>) {
        let _ = (site, index);
    }
    fn material(&mut self, site: RefSite, index: &Option<MaterialIdx>) {
        let _ = (site, index);
    }
    fn bone(&mut self, site: RefSite, index: &Option<BoneIdx>) {
        let _ = (site, index);
    }
    fn morph(&mut self, site: RefSite, index: &Option<MorphIdx>) {
        let _ = (site, index);
    }
    fn rigid_body(&mut self, site: RefSite, index: &Option<RigidBodyIdx>) {
        let _ = (site, index);
    }
}

/// The walk, written once for shared and mutable access: `for x in list` and match ergonomics
/// give `&T` or `&mut T` from the same code. Every type is destructured without `..`.
macro_rules! walk_model {
    ($model:expr, $visitor:expr) => {
        walk_model!($model, $visitor, true)
    };
    ($model:expr, $visitor:expr, $mesh:expr) => {{
        let visitor = $visitor;
        let Model {
            header: _,
            info: _,
            vertices,
            additional_uvs: _,
            faces,
            textures: _,
            materials,
            bones,
            morphs,
            display_frames,
            rigid_bodies,
            joints,
            soft_bodies,
            // Keyed by PMD file position and checked against the text when written: no index
            // of the model.
            pmd: _,
            // Checked against the face and vertex counts when written: no index to follow.
            mqo: _,
        } = $model;

        // Without the mesh: neither the vertices' weights nor the faces.
        let mesh_len = if $mesh { usize::MAX } else { 0 };
        for (vertex, element) in vertices.into_iter().enumerate().take(mesh_len) {
            let Vertex {
                position: _,
                normal: _,
                uv: _,
                weight,
                edge_scale: _,
            } = element;
            match weight {
                Weight::Bdef1 { bone } => {
                    visitor.bone(RefSite::VertexWeight { vertex, slot: 0 }, bone);
                }
                Weight::Bdef2 { bones, weight: _ }
                | Weight::Sdef {
                    bones,
                    weight: _,
                    c: _,
                    r0: _,
                    r1: _,
                } => {
                    for (slot, bone) in bones.into_iter().enumerate() {
                        visitor.bone(RefSite::VertexWeight { vertex, slot }, bone);
                    }
                }
                Weight::Bdef4 { bones, weights: _ } | Weight::Qdef { bones, weights: _ } => {
                    for (slot, bone) in bones.into_iter().enumerate() {
                        visitor.bone(RefSite::VertexWeight { vertex, slot }, bone);
                    }
                }
            }
        }

        for (face, corners) in faces.into_iter().enumerate().take(mesh_len) {
            for (corner, index) in corners.into_iter().enumerate() {
                visitor.vertex(RefSite::Face { face, corner }, index);
            }
        }

        for (material, element) in materials.into_iter().enumerate() {
            let Material {
                name_ja: _,
                name_en: _,
                diffuse: _,
                specular: _,
                specular_power: _,
                ambient: _,
                draw_flags: _,
                edge_color: _,
                edge_size: _,
                texture,
                sphere_texture,
                sphere_mode: _,
                toon,
                memo: _,
                face_index_count: _,
            } = element;
            visitor.texture(RefSite::MaterialTexture { material }, texture);
            visitor.texture(RefSite::MaterialSphere { material }, sphere_texture);
            match toon {
                Toon::Shared(_) => {}
                Toon::Texture(texture) => {
                    visitor.texture(RefSite::MaterialToon { material }, texture);
                }
            }
        }

        for (bone, element) in bones.into_iter().enumerate() {
            let Bone {
                name_ja: _,
                name_en: _,
                position: _,
                parent,
                layer: _,
                flags: _,
                tail_offset: _,
                tail_bone,
                append_parent,
                append_ratio: _,
                fixed_axis: _,
                local_axis_x: _,
                local_axis_z: _,
                external_parent_key: _,
                ik,
            } = element;
            visitor.bone(RefSite::BoneParent { bone }, parent);
            visitor.bone(RefSite::BoneTail { bone }, tail_bone);
            visitor.bone(RefSite::BoneAppendParent { bone }, append_parent);
            let Ik {
                target,
                loop_count: _,
                limit_angle: _,
                links,
            } = ik;
            visitor.bone(RefSite::IkTarget { bone }, target);
            for (link, element) in links.into_iter().enumerate() {
                let IkLink {
                    bone: link_bone,
                    limits: _,
                } = element;
                visitor.bone(RefSite::IkLink { bone, link }, link_bone);
            }
        }

        for (morph, element) in morphs.into_iter().enumerate() {
            let Morph {
                name_ja: _,
                name_en: _,
                panel: _,
                offsets,
            } = element;
            match offsets {
                MorphOffsets::Group(list) | MorphOffsets::Flip(list) => {
                    for (offset, element) in list.into_iter().enumerate() {
                        let GroupMorphOffset {
                            morph: target,
                            ratio: _,
                        } = element;
                        visitor.morph(RefSite::MorphOffset { morph, offset }, target);
                    }
                }
                MorphOffsets::Vertex(list) => {
                    for (offset, element) in list.into_iter().enumerate() {
                        let VertexMorphOffset { vertex, offset: _ } = element;
                        visitor.vertex(RefSite::MorphOffset { morph, offset }, vertex);
                    }
                }
                MorphOffsets::Bone(list) => {
                    for (offset, element) in list.into_iter().enumerate() {
                        let BoneMorphOffset {
                            bone,
                            translation: _,
                            rotation: _,
                        } = element;
                        visitor.bone(RefSite::MorphOffset { morph, offset }, bone);
                    }
                }
                MorphOffsets::Uv(list)
                | MorphOffsets::AdditionalUv1(list)
                | MorphOffsets::AdditionalUv2(list)
                | MorphOffsets::AdditionalUv3(list)
                | MorphOffsets::AdditionalUv4(list) => {
                    for (offset, element) in list.into_iter().enumerate() {
                        let UvMorphOffset { vertex, offset: _ } = element;
                        visitor.vertex(RefSite::MorphOffset { morph, offset }, vertex);
                    }
                }
                MorphOffsets::Material(list) => {
                    for (offset, element) in list.into_iter().enumerate() {
                        let MaterialMorphOffset {
                            material,
                            op: _,
                            diffuse: _,
                            specular: _,
                            specular_power: _,
                            ambient: _,
                            edge_color: _,
                            edge_size: _,
                            texture_tint: _,
                            sphere_tint: _,
                            toon_tint: _,
                        } = element;
                        visitor.material(RefSite::MorphOffset { morph, offset }, material);
                    }
                }
                MorphOffsets::Impulse(list) => {
                    for (offset, element) in list.into_iter().enumerate() {
                        let ImpulseMorphOffset {
                            rigid_body,
                            local: _,
                            velocity: _,
                            torque: _,
                        } = element;
                        visitor.rigid_body(RefSite::MorphOffset { morph, offset }, rigid_body);
                    }
                }
            }
        }

        for (frame, element) in display_frames.into_iter().enumerate() {
            let DisplayFrame {
                name_ja: _,
                name_en: _,
                special: _,
                items,
            } = element;
            for (item, element) in items.into_iter().enumerate() {
                match element {
                    DisplayItem::Bone(bone) => {
                        visitor.bone(RefSite::DisplayItem { frame, item }, bone);
                    }
                    DisplayItem::Morph(morph) => {
                        visitor.morph(RefSite::DisplayItem { frame, item }, morph);
                    }
                }
            }
        }

        for (body, element) in rigid_bodies.into_iter().enumerate() {
            let RigidBody {
                name_ja: _,
                name_en: _,
                bone,
                group: _,
                non_collision_mask: _,
                shape: _,
                size: _,
                position: _,
                rotation: _,
                mass: _,
                linear_damping: _,
                angular_damping: _,
                restitution: _,
                friction: _,
                mode: _,
            } = element;
            visitor.bone(RefSite::RigidBodyBone { body }, bone);
        }

        for (joint, element) in joints.into_iter().enumerate() {
            let Joint {
                name_ja: _,
                name_en: _,
                kind: _,
                body_a,
                body_b,
                position: _,
                rotation: _,
                move_lower: _,
                move_upper: _,
                rotate_lower: _,
                rotate_upper: _,
                spring_move: _,
                spring_rotate: _,
            } = element;
            visitor.rigid_body(RefSite::JointBodyA { joint }, body_a);
            visitor.rigid_body(RefSite::JointBodyB { joint }, body_b);
        }

        for (soft_body, element) in soft_bodies.into_iter().enumerate() {
            let SoftBody {
                name_ja: _,
                name_en: _,
                shape: _,
                material,
                group: _,
                non_collision_mask: _,
                flags: _,
                b_link_distance: _,
                cluster_count: _,
                total_mass: _,
                margin: _,
                aero_model: _,
                config: _,
                cluster: _,
                iterations: _,
                stiffness: _,
                anchors,
                pinned_vertices,
            } = element;
            visitor.material(RefSite::SoftBodyMaterial { soft_body }, material);
            for (anchor, element) in anchors.into_iter().enumerate() {
                let SoftBodyAnchor {
                    rigid_body,
                    vertex,
                    near_mode: _,
                } = element;
                visitor.rigid_body(
                    RefSite::SoftBodyAnchorBody { soft_body, anchor },
                    rigid_body,
                );
                visitor.vertex(RefSite::SoftBodyAnchorVertex { soft_body, anchor }, vertex);
            }
            for (pin, vertex) in pinned_vertices.into_iter().enumerate() {
                visitor.vertex(RefSite::SoftBodyPin { soft_body, pin }, vertex);
            }
        }
    }};
}

/// Visits every reference of `model`, mutably, in a fixed order (the order of the file).
pub fn visit_refs_mut(model: &mut Model, visitor: &mut impl RefVisitorMut) {
    walk_model!(model, visitor);
}

/// Visits every reference of `model` in a fixed order (the order of the file).
pub fn visit_refs(model: &Model, visitor: &mut impl RefVisitor) {
    walk_model!(model, visitor);
}

/// Visits the references of `model` outside the mesh (all but the vertices' weight bones and
/// the faces' vertices), in the order of [`visit_refs`]: for a check that keeps what it found
/// in the mesh and looks again only at the vertices and faces an edit changed.
pub fn visit_refs_outside_mesh(model: &Model, visitor: &mut impl RefVisitor) {
    walk_model!(model, visitor, false);
}

macro_rules! per_kind_visitors {
    ($(($method:ident, $ty:ty, $each_mut:ident, $each:ident, $what:literal)),* $(,)?) => {$(
        #[doc = concat!("Calls `f` on every ", $what, " reference of `model`: ")]
        #[doc = "faces, weights, offsets and every other field that holds one."]
        pub fn $each_mut(model: &mut Model, f: impl FnMut(&mut $ty)) {
            struct Adapter<F>(F);
            impl<F: FnMut(&mut $ty)> RefVisitorMut for Adapter<F> {
                fn $method(&mut self, _site: RefSite, index: &mut $ty) {
                    (self.0)(index);
                }
            }
            visit_refs_mut(model, &mut Adapter(f));
        }

        #[doc = concat!("Calls `f` with the place and value of every ", $what, " reference of `model`.")]
        pub fn $each(model: &Model, f: impl FnMut(RefSite, $ty)) {
            struct Adapter<F>(F);
            impl<F: FnMut(RefSite, $ty)> RefVisitor for Adapter<F> {
                fn $method(&mut self, site: RefSite, index: &$ty) {
                    (self.0)(site, *index);
                }
            }
            visit_refs(model, &mut Adapter(f));
        }
    )*};
}

per_kind_visitors!(
    (
        vertex,
        VertexIdx,
        for_each_vertex_ref_mut,
        for_each_vertex_ref,
        "vertex"
    ),
    (
        texture,
        Option<TextureIdx>,
        for_each_texture_ref_mut,
        for_each_texture_ref,
        "texture"
    ),
    (
        material,
        Option<MaterialIdx>,
        for_each_material_ref_mut,
        for_each_material_ref,
        "material"
    ),
    (
        bone,
        Option<BoneIdx>,
        for_each_bone_ref_mut,
        for_each_bone_ref,
        "bone"
    ),
    (
        morph,
        Option<MorphIdx>,
        for_each_morph_ref_mut,
        for_each_morph_ref,
        "morph"
    ),
    (
        rigid_body,
        Option<RigidBodyIdx>,
        for_each_rigid_body_ref_mut,
        for_each_rigid_body_ref,
        "rigid body"
    ),
);

/// The largest index a PMX file can store (indices are `i32`).
const MAX_INDEX: usize = i32::MAX as usize;
const REMOVED: u32 = u32::MAX;

/// Why an [`IndexRemap`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemapError {
    #[error("index {index} is out of range (the list has {len} elements)")]
    OutOfRange { index: usize, len: usize },
    #[error("new index {new_index} is given to two elements")]
    NotInjective { new_index: usize },
    #[error("the order lists {given} elements but the list has {len}")]
    WrongLength { given: usize, len: usize },
    #[error("a list of more than {MAX_INDEX} elements cannot be renumbered")]
    TooLarge,
}

impl RemapError {
    /// The error as a message key with typed arguments.
    #[must_use]
    pub fn to_message(&self) -> Message {
        match self {
            RemapError::OutOfRange { index, len } => Message::new("edit.error.remap_out_of_range")
                .arg("index", *index)
                .arg("len", *len),
            RemapError::NotInjective { new_index } => {
                Message::new("edit.error.remap_not_injective").arg("new_index", *new_index)
            }
            RemapError::WrongLength { given, len } => Message::new("edit.error.remap_wrong_length")
                .arg("given", *given)
                .arg("len", *len),
            RemapError::TooLarge => {
                Message::new("edit.error.remap_too_large").arg("max", MAX_INDEX)
            }
        }
    }
}

/// What a remap does to one index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mapped {
    /// The element now has this index.
    To(usize),
    /// The index is kept as it is (a broken file's negative raw index).
    Unchanged,
    /// The element is gone (or a dangling index cannot be shifted): the reference is cleared.
    Lost,
}

/// A renumbering of one element list: old index → new index, or removed.
///
/// Indices past the end of the old list (dangling references of a broken file) shift with the
/// list's end, so they stay dangling instead of pointing at an inserted element; raw negative
/// indices stay as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexRemap {
    /// `REMOVED` for removed elements.
    old_to_new: Vec<u32>,
    new_len: usize,
}

impl IndexRemap {
    /// Every index maps to itself.
    #[must_use]
    pub fn identity(len: usize) -> Self {
        Self {
            old_to_new: (0..len).map(|i| i as u32).collect(),
            new_len: len,
        }
    }

    /// Removes the elements at `removed` (any order; duplicates and out-of-range indices are
    /// ignored) and closes the gaps.
    #[must_use]
    pub fn removing(old_len: usize, removed: &[usize]) -> Self {
        let mut old_to_new = vec![0u32; old_len];
        for &index in removed {
            if let Some(slot) = old_to_new.get_mut(index) {
                *slot = REMOVED;
            }
        }
        let mut next = 0u32;
        for slot in &mut old_to_new {
            if *slot != REMOVED {
                *slot = next;
                next += 1;
            }
        }
        Self {
            old_to_new,
            new_len: next as usize,
        }
    }

    /// Inserts new elements so that they end up at `inserted` (indices in the new list, any
    /// order; duplicates are ignored); the old elements keep their order around them.
    #[must_use]
    pub fn inserting(old_len: usize, inserted: &[usize]) -> Self {
        let mut positions: Vec<usize> = inserted.to_vec();
        positions.sort_unstable();
        positions.dedup();
        let new_len = old_len + positions.len();
        let mut old_to_new = Vec::with_capacity(old_len);
        let mut pending = positions.iter().peekable();
        let mut new_index = 0usize;
        while old_to_new.len() < old_len {
            if pending.peek().is_some_and(|&&p| p == new_index) {
                pending.next();
            } else {
                old_to_new.push(new_index as u32);
            }
            new_index += 1;
        }
        Self {
            old_to_new,
            new_len,
        }
    }

    /// A reordering: `order[new] = old`. `order` must be a permutation of `0..order.len()`.
    pub fn from_order(order: &[usize]) -> Result<Self, RemapError> {
        if order.len() > MAX_INDEX {
            return Err(RemapError::TooLarge);
        }
        let mut old_to_new = vec![REMOVED; order.len()];
        for (new, &old) in order.iter().enumerate() {
            let slot = old_to_new.get_mut(old).ok_or(RemapError::OutOfRange {
                index: old,
                len: order.len(),
            })?;
            if *slot != REMOVED {
                return Err(RemapError::NotInjective { new_index: new });
            }
            *slot = new as u32;
        }
        Ok(Self {
            old_to_new,
            new_len: order.len(),
        })
    }

    /// Any renumbering: `map[old]` is the new index or `None` (removed).
    pub fn from_map(map: &[Option<usize>], new_len: usize) -> Result<Self, RemapError> {
        if map.len() > MAX_INDEX || new_len > MAX_INDEX {
            return Err(RemapError::TooLarge);
        }
        let mut taken = vec![false; new_len];
        let mut old_to_new = Vec::with_capacity(map.len());
        for &entry in map {
            match entry {
                None => old_to_new.push(REMOVED),
                Some(new_index) => {
                    let slot = taken.get_mut(new_index).ok_or(RemapError::OutOfRange {
                        index: new_index,
                        len: new_len,
                    })?;
                    if *slot {
                        return Err(RemapError::NotInjective { new_index });
                    }
                    *slot = true;
                    old_to_new.push(new_index as u32);
                }
            }
        }
        Ok(Self {
            old_to_new,
            new_len,
        })
    }

    /// [`IndexRemap::removing`] for ascending `u32` positions (as edits store them).
    pub(crate) fn removing_positions(old_len: usize, removed: &[u32]) -> Self {
        let mut old_to_new = Vec::with_capacity(old_len);
        let mut pending = removed.iter().peekable();
        let mut next = 0u32;
        for old in 0..old_len {
            while pending.peek().is_some_and(|&&p| (p as usize) < old) {
                pending.next();
            }
            if pending.peek().is_some_and(|&&p| p as usize == old) {
                old_to_new.push(REMOVED);
            } else {
                old_to_new.push(next);
                next += 1;
            }
        }
        Self {
            old_to_new,
            new_len: next as usize,
        }
    }

    /// [`IndexRemap::inserting`] for ascending, unique `u32` positions.
    pub(crate) fn inserting_positions(old_len: usize, inserted: &[u32]) -> Self {
        let mut old_to_new = Vec::with_capacity(old_len);
        let mut pending = inserted.iter().peekable();
        let mut new_index = 0u32;
        while old_to_new.len() < old_len {
            if pending.peek().is_some_and(|&&p| p == new_index) {
                pending.next();
            } else {
                old_to_new.push(new_index);
            }
            new_index += 1;
        }
        Self {
            old_to_new,
            new_len: old_len + inserted.len(),
        }
    }

    /// [`IndexRemap::from_order`] for a `u32` order (`None` unless it is a permutation).
    pub(crate) fn from_order_positions(order: &[u32]) -> Option<Self> {
        let mut old_to_new = vec![REMOVED; order.len()];
        for (new, &old) in order.iter().enumerate() {
            let slot = old_to_new.get_mut(old as usize)?;
            if *slot != REMOVED {
                return None;
            }
            *slot = new as u32;
        }
        Some(Self {
            old_to_new,
            new_len: order.len(),
        })
    }

    #[must_use]
    pub fn old_len(&self) -> usize {
        self.old_to_new.len()
    }

    #[must_use]
    pub fn new_len(&self) -> usize {
        self.new_len
    }

    /// Whether the remap changes no index.
    #[must_use]
    pub fn is_identity(&self) -> bool {
        self.old_len() == self.new_len
            && self
                .old_to_new
                .iter()
                .enumerate()
                .all(|(i, &n)| n as usize == i)
    }

    /// The new index of old element `old` (`None` if removed or out of the old list's range).
    #[must_use]
    pub fn get(&self, old: usize) -> Option<usize> {
        self.old_to_new
            .get(old)
            .filter(|&&n| n != REMOVED)
            .map(|&n| n as usize)
    }

    /// What happens to a reference holding `old`, including dangling ones.
    #[must_use]
    pub fn map(&self, old: usize) -> Mapped {
        match self.old_to_new.get(old) {
            Some(&REMOVED) => Mapped::Lost,
            Some(&new) => Mapped::To(new as usize),
            None if old > MAX_INDEX => Mapped::Unchanged,
            None => {
                let shifted = old - self.old_len() + self.new_len;
                if shifted > MAX_INDEX {
                    Mapped::Lost
                } else {
                    Mapped::To(shifted)
                }
            }
        }
    }

    /// The remap that undoes this one (removed elements have no old index to come back to, so
    /// the inverse maps nothing onto them; inserted elements map to removed).
    #[must_use]
    pub fn inverse(&self) -> IndexRemap {
        let mut old_to_new = vec![REMOVED; self.new_len];
        for (old, &new) in self.old_to_new.iter().enumerate() {
            if let Some(slot) = old_to_new.get_mut(new as usize) {
                *slot = old as u32;
            }
        }
        IndexRemap {
            old_to_new,
            new_len: self.old_len(),
        }
    }

    /// Renumbers a selection (data indices): removed elements drop out, the rest keep their order
    /// of appearance.
    #[must_use]
    pub fn remap_selection(&self, selection: &[usize]) -> Vec<usize> {
        selection.iter().filter_map(|&i| self.get(i)).collect()
    }

    /// Renumbers every reference of `kind` in `model`. References to removed elements are set to
    /// `None` (vertex references, which cannot be `None`, are left as they are) and returned.
    pub fn apply(&self, model: &mut Model, kind: RefKind) -> Vec<ClearedRef> {
        remap_refs(model, kind, self, &[], usize::MAX).cleared
    }
}

/// A reference a remap cleared: where it was and what it held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClearedRef {
    pub site: RefSite,
    /// The index it held.
    pub index: usize,
}

/// A reference a remap walk could not map, saved so that the opposite walk restores it exactly:
/// its position in the walk of its kind and its raw value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LostRef {
    pub ordinal: u64,
    pub raw: u32,
}

/// One index-holding field, whatever its type.
pub(crate) trait IndexSlot {
    /// The element index held (`None` when the reference is empty).
    fn index(&self) -> Option<usize>;
    /// The raw bits, to restore the value exactly.
    fn raw(&self) -> u32;
    fn set_raw(&mut self, raw: u32);
    fn set_index(&mut self, index: usize);
    /// Clears the reference; returns `false` for kinds that cannot be empty (vertices).
    fn clear(&mut self) -> bool;
}

macro_rules! signed_slot {
    ($($ty:ty),*) => {$(
        impl IndexSlot for Option<$ty> {
            fn index(&self) -> Option<usize> {
                self.map(<$ty>::get)
            }
            fn raw(&self) -> u32 {
                <$ty>::to_raw(*self) as u32
            }
            fn set_raw(&mut self, raw: u32) {
                *self = <$ty>::from_raw(raw as i32);
            }
            fn set_index(&mut self, index: usize) {
                *self = Some(<$ty>::new(index));
            }
            fn clear(&mut self) -> bool {
                *self = None;
                true
            }
        }
    )*};
}

signed_slot!(TextureIdx, MaterialIdx, BoneIdx, MorphIdx, RigidBodyIdx);

impl IndexSlot for VertexIdx {
    fn index(&self) -> Option<usize> {
        Some(self.get())
    }
    fn raw(&self) -> u32 {
        self.0
    }
    fn set_raw(&mut self, raw: u32) {
        self.0 = raw;
    }
    fn set_index(&mut self, index: usize) {
        *self = VertexIdx::new(index);
    }
    fn clear(&mut self) -> bool {
        false
    }
}

/// Reference kinds as constants, so that a walker for one kind is compiled for that kind alone
/// (the loops over fields of other kinds optimise away).
mod code {
    pub const VERTEX: u8 = 0;
    pub const TEXTURE: u8 = 1;
    pub const MATERIAL: u8 = 2;
    pub const BONE: u8 = 3;
    pub const MORPH: u8 = 4;
    pub const RIGID_BODY: u8 = 5;
}

/// What a renumbering walk did.
#[derive(Debug, Default)]
pub(crate) struct RemapOutcome {
    /// References it could not map, for the opposite walk to restore.
    pub lost: Vec<LostRef>,
    /// The first cleared references, with their place.
    pub cleared: Vec<ClearedRef>,
    /// Kinds whose elements had a reference changed, with the range of their indices.
    pub changed: Vec<(ElementKind, std::ops::Range<usize>)>,
}

/// Applies a remap to every reference of one kind, counting references in walk order so that
/// the ones it cannot map are recorded by position, and restoring the ones a previous opposite
/// walk recorded. Together the two walks make a renumbering exactly reversible.
struct RemapWalker<'a, const KIND: u8> {
    remap: &'a IndexRemap,
    restore: &'a [LostRef],
    next_restore: usize,
    ordinal: u64,
    lost: Vec<LostRef>,
    collect_sites: usize,
    cleared: Vec<ClearedRef>,
    /// Per element kind (by discriminant): lowest and one past the highest changed owner.
    changed: [(usize, usize); ElementKind::ALL.len()],
}

impl<const KIND: u8> RemapWalker<'_, KIND> {
    fn note_change(&mut self, site: RefSite) {
        let (kind, index) = site.owner();
        let slot = &mut self.changed[kind as usize];
        slot.0 = slot.0.min(index);
        slot.1 = slot.1.max(index + 1);
    }

    #[inline]
    fn visit(&mut self, site: RefSite, slot: &mut impl IndexSlot) {
        let ordinal = self.ordinal;
        self.ordinal += 1;
        if let Some(saved) = self.restore.get(self.next_restore)
            && saved.ordinal == ordinal
        {
            self.next_restore += 1;
            if slot.raw() != saved.raw {
                slot.set_raw(saved.raw);
                self.note_change(site);
            }
            return;
        }
        let Some(old) = slot.index() else { return };
        match self.remap.map(old) {
            Mapped::To(new) => {
                if new != old {
                    slot.set_index(new);
                    self.note_change(site);
                }
            }
            Mapped::Unchanged => {}
            Mapped::Lost => {
                self.lost.push(LostRef {
                    ordinal,
                    raw: slot.raw(),
                });
                if self.cleared.len() < self.collect_sites {
                    self.cleared.push(ClearedRef { site, index: old });
                }
                if slot.clear() {
                    self.note_change(site);
                }
            }
        }
    }
}

impl<const KIND: u8> RefVisitorMut for RemapWalker<'_, KIND> {
    #[inline]
    fn vertex(&mut self, site: RefSite, index: &mut VertexIdx) {
        if KIND == code::VERTEX {
            self.visit(site, index);
        }
    }
    #[inline]
    fn texture(&mut self, site: RefSite, index: &mut Option<TextureIdx>) {
        if KIND == code::TEXTURE {
            self.visit(site, index);
        }
    }
    #[inline]
    fn material(&mut self, site: RefSite, index: &mut Option<MaterialIdx>) {
        if KIND == code::MATERIAL {
            self.visit(site, index);
        }
    }
    #[inline]
    fn bone(&mut self, site: RefSite, index: &mut Option<BoneIdx>) {
        if KIND == code::BONE {
            self.visit(site, index);
        }
    }
    #[inline]
    fn morph(&mut self, site: RefSite, index: &mut Option<MorphIdx>) {
        if KIND == code::MORPH {
            self.visit(site, index);
        }
    }
    #[inline]
    fn rigid_body(&mut self, site: RefSite, index: &mut Option<RigidBodyIdx>) {
        if KIND == code::RIGID_BODY {
            self.visit(site, index);
        }
    }
}

fn run_remap<const KIND: u8>(
    model: &mut Model,
    remap: &IndexRemap,
    restore: &[LostRef],
    collect_sites: usize,
) -> RemapOutcome {
    let mut walker = RemapWalker::<KIND> {
        remap,
        restore,
        next_restore: 0,
        ordinal: 0,
        lost: Vec::new(),
        collect_sites,
        cleared: Vec::new(),
        changed: [(usize::MAX, 0); ElementKind::ALL.len()],
    };
    visit_refs_mut(model, &mut walker);
    walker.lost.shrink_to_fit();
    let changed = ElementKind::ALL
        .into_iter()
        .zip(walker.changed)
        .filter(|(_, (start, end))| start < end)
        .map(|(kind, (start, end))| (kind, start..end))
        .collect();
    RemapOutcome {
        lost: walker.lost,
        cleared: walker.cleared,
        changed,
    }
}

/// Renumbers every reference of `kind` with `remap`, restoring the references `restore` lists
/// (by their position in the walk) instead of mapping them; reports the first `collect_sites`
/// cleared references with their place.
pub(crate) fn remap_refs(
    model: &mut Model,
    kind: RefKind,
    remap: &IndexRemap,
    restore: &[LostRef],
    collect_sites: usize,
) -> RemapOutcome {
    match kind {
        RefKind::Vertex => run_remap::<{ code::VERTEX }>(model, remap, restore, collect_sites),
        RefKind::Texture => run_remap::<{ code::TEXTURE }>(model, remap, restore, collect_sites),
        RefKind::Material => run_remap::<{ code::MATERIAL }>(model, remap, restore, collect_sites),
        RefKind::Bone => run_remap::<{ code::BONE }>(model, remap, restore, collect_sites),
        RefKind::Morph => run_remap::<{ code::MORPH }>(model, remap, restore, collect_sites),
        RefKind::RigidBody => {
            run_remap::<{ code::RIGID_BODY }>(model, remap, restore, collect_sites)
        }
    }
}

/// Finds the references of one kind that point at removed elements (read-only) and hands each
/// to a callback with its place.
struct Finder<'a, const KIND: u8, F> {
    removed: &'a [bool],
    found: F,
}

impl<const KIND: u8, F: FnMut(RefSite, usize)> Finder<'_, KIND, F> {
    #[inline]
    fn check(&mut self, site: RefSite, index: Option<usize>) {
        let Some(index) = index else { return };
        if !self.removed.get(index).copied().unwrap_or(false) {
            return;
        }
        // References held by removed elements of the same kind go away with their element.
        let (owner_kind, owner) = site.owner();
        if RefKind::of_element(owner_kind).map(kind_code) == Some(KIND)
            && self.removed.get(owner).copied().unwrap_or(false)
        {
            return;
        }
        (self.found)(site, index);
    }
}

fn kind_code(kind: RefKind) -> u8 {
    match kind {
        RefKind::Vertex => code::VERTEX,
        RefKind::Texture => code::TEXTURE,
        RefKind::Material => code::MATERIAL,
        RefKind::Bone => code::BONE,
        RefKind::Morph => code::MORPH,
        RefKind::RigidBody => code::RIGID_BODY,
    }
}

impl<const KIND: u8, F: FnMut(RefSite, usize)> RefVisitor for Finder<'_, KIND, F> {
    #[inline]
    fn vertex(&mut self, site: RefSite, index: &VertexIdx) {
        if KIND == code::VERTEX {
            self.check(site, Some(index.get()));
        }
    }
    #[inline]
    fn texture(&mut self, site: RefSite, index: &Option<TextureIdx>) {
        if KIND == code::TEXTURE {
            self.check(site, index.map(TextureIdx::get));
        }
    }
    #[inline]
    fn material(&mut self, site: RefSite, index: &Option<MaterialIdx>) {
        if KIND == code::MATERIAL {
            self.check(site, index.map(MaterialIdx::get));
        }
    }
    #[inline]
    fn bone(&mut self, site: RefSite, index: &Option<BoneIdx>) {
        if KIND == code::BONE {
            self.check(site, index.map(BoneIdx::get));
        }
    }
    #[inline]
    fn morph(&mut self, site: RefSite, index: &Option<MorphIdx>) {
        if KIND == code::MORPH {
            self.check(site, index.map(MorphIdx::get));
        }
    }
    #[inline]
    fn rigid_body(&mut self, site: RefSite, index: &Option<RigidBodyIdx>) {
        if KIND == code::RIGID_BODY {
            self.check(site, index.map(RigidBodyIdx::get));
        }
    }
}

fn run_finder<const KIND: u8>(model: &Model, removed: &[bool], found: impl FnMut(RefSite, usize)) {
    visit_refs(model, &mut Finder::<KIND, _> { removed, found });
}

/// Calls `found` with the place and the index of every reference of `kind` that points at an
/// element `removed` marks, in walk order (read-only), so that a deletion can plan what happens
/// to each before it runs. References held by removed elements of the same kind are skipped:
/// they go away with their element.
pub(crate) fn for_each_ref_into(
    model: &Model,
    kind: RefKind,
    removed: &[bool],
    found: impl FnMut(RefSite, usize),
) {
    match kind {
        RefKind::Vertex => run_finder::<{ code::VERTEX }>(model, removed, found),
        RefKind::Texture => run_finder::<{ code::TEXTURE }>(model, removed, found),
        RefKind::Material => run_finder::<{ code::MATERIAL }>(model, removed, found),
        RefKind::Bone => run_finder::<{ code::BONE }>(model, removed, found),
        RefKind::Morph => run_finder::<{ code::MORPH }>(model, removed, found),
        RefKind::RigidBody => run_finder::<{ code::RIGID_BODY }>(model, removed, found),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::feature_model;

    #[test]
    fn removing_closes_gaps() {
        let remap = IndexRemap::removing(5, &[1, 3]);
        assert_eq!(
            (0..5).map(|i| remap.get(i)).collect::<Vec<_>>(),
            vec![Some(0), None, Some(1), None, Some(2)]
        );
        assert_eq!(remap.new_len(), 3);
        // Dangling indices shift with the end of the list and stay dangling.
        assert_eq!(remap.map(7), Mapped::To(5));
        assert_eq!(
            remap.map(BoneIdx::from_raw(-5).map_or(0, BoneIdx::get)),
            Mapped::Unchanged
        );
        let inverse = remap.inverse();
        assert_eq!(
            (0..3).map(|i| inverse.get(i)).collect::<Vec<_>>(),
            vec![Some(0), Some(2), Some(4)]
        );
        assert_eq!(inverse.map(5), Mapped::To(7));
    }

    #[test]
    fn inserting_leaves_room() {
        let remap = IndexRemap::inserting(3, &[0, 2]);
        assert_eq!(
            (0..3).map(|i| remap.get(i)).collect::<Vec<_>>(),
            vec![Some(1), Some(3), Some(4)]
        );
        assert_eq!(remap.new_len(), 5);
        let inverse = remap.inverse();
        assert_eq!(inverse.get(0), None);
        assert_eq!(inverse.get(3), Some(1));
    }

    #[test]
    fn order_must_be_a_permutation() {
        assert!(IndexRemap::from_order(&[2, 0, 1]).is_ok());
        assert_eq!(
            IndexRemap::from_order(&[0, 0, 1]),
            Err(RemapError::NotInjective { new_index: 1 })
        );
        assert!(matches!(
            IndexRemap::from_order(&[0, 3, 1]),
            Err(RemapError::OutOfRange { index: 3, .. })
        ));
        let remap = IndexRemap::from_order(&[2, 0, 1]).unwrap_or_else(|_| IndexRemap::identity(3));
        assert_eq!(remap.get(2), Some(0));
        assert_eq!(remap.remap_selection(&[0, 2]), vec![1, 0]);
    }

    #[test]
    fn per_kind_visitors_count_every_reference() {
        let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 40, 12);
        let mut bones = 0;
        for_each_bone_ref(&model, |_, _| bones += 1);
        let expected_bones: usize = model
            .vertices
            .iter()
            .map(|v| v.weight.bones().len())
            .sum::<usize>()
            + model.bones.len() * 4
            + model.bones.iter().map(|b| b.ik.links.len()).sum::<usize>()
            + model
                .morphs
                .iter()
                .map(|m| match &m.offsets {
                    MorphOffsets::Bone(o) => o.len(),
                    _ => 0,
                })
                .sum::<usize>()
            + model
                .display_frames
                .iter()
                .flat_map(|f| &f.items)
                .filter(|i| matches!(i, DisplayItem::Bone(_)))
                .count()
            + model.rigid_bodies.len();
        assert_eq!(bones, expected_bones);

        let mut vertices = 0;
        for_each_vertex_ref(&model, |_, _| vertices += 1);
        let soft = &model.soft_bodies[0];
        let expected_vertices = model.faces.len() * 3
            + model
                .morphs
                .iter()
                .map(|m| match &m.offsets {
                    MorphOffsets::Vertex(o) => o.len(),
                    MorphOffsets::Uv(o)
                    | MorphOffsets::AdditionalUv1(o)
                    | MorphOffsets::AdditionalUv2(o)
                    | MorphOffsets::AdditionalUv3(o)
                    | MorphOffsets::AdditionalUv4(o) => o.len(),
                    _ => 0,
                })
                .sum::<usize>()
            + soft.anchors.len()
            + soft.pinned_vertices.len();
        assert_eq!(vertices, expected_vertices);
    }

    #[test]
    fn apply_clears_references_to_removed_elements() {
        let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 40, 12);
        model.bones[3].parent = Some(BoneIdx::new(2));
        model.bones[4].parent = Some(BoneIdx::new(5));
        let remap = IndexRemap::removing(model.bones.len(), &[2]);
        let cleared = remap.apply(&mut model, RefKind::Bone);
        assert!(cleared.contains(&ClearedRef {
            site: RefSite::BoneParent { bone: 3 },
            index: 2
        }));
        assert_eq!(model.bones[3].parent, None);
        assert_eq!(model.bones[4].parent, Some(BoneIdx::new(4)));
        assert_eq!(
            RefSite::IkLink { bone: 3, link: 1 }.to_string(),
            "bones[3].ik.links[1].bone"
        );
    }
}
