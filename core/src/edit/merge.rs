//! Merging another model into the open one (PmxEditor's import-append), as one step.

use super::elements::Elements;
use super::{Edit, EditError, EditLabel, EditReport, EditTarget, LabelArg, Sequence};
use crate::model::refs::{RefSite, RefVisitorMut, visit_refs_mut};
use crate::model::*;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// How [`Edit::merge_model`] merges.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MergeOptions {
    /// Bones of the other model whose Japanese name matches a bone of this one are not added:
    /// everything of the other model that referred to them refers to this model's bone.
    #[serde(default)]
    pub match_bones_by_name: bool,
}

/// Where each element of the other model ends up in this one.
struct Placement {
    vertex: Vec<Option<usize>>,
    texture: Vec<Option<usize>>,
    material: Vec<Option<usize>>,
    bone: Vec<Option<usize>>,
    morph: Vec<Option<usize>>,
    rigid_body: Vec<Option<usize>>,
    /// References of the other model that pointed nowhere (dangling there), now `None`.
    dangling: usize,
}

fn appended(count: usize, offset: usize) -> Vec<Option<usize>> {
    (0..count).map(|i| Some(offset + i)).collect()
}

impl Placement {
    fn look_up(&mut self, table: fn(&Self) -> &Vec<Option<usize>>, index: usize) -> Option<usize> {
        let found = table(self).get(index).copied().flatten();
        if found.is_none() {
            self.dangling += 1;
        }
        found
    }
}

impl RefVisitorMut for Placement {
    fn vertex(&mut self, _site: RefSite, index: &mut VertexIdx) {
        // A vertex reference cannot be empty: a dangling one keeps pointing past the end.
        match self.vertex.get(index.get()).copied().flatten() {
            Some(new) => *index = VertexIdx::new(new),
            None => {
                self.dangling += 1;
                *index = VertexIdx(u32::MAX);
            }
        }
    }
    fn texture(&mut self, _site: RefSite, index: &mut Option<TextureIdx>) {
        if let Some(old) = *index {
            *index = self.look_up(|p| &p.texture, old.get()).map(TextureIdx::new);
        }
    }
    fn material(&mut self, _site: RefSite, index: &mut Option<MaterialIdx>) {
        if let Some(old) = *index {
            *index = self
                .look_up(|p| &p.material, old.get())
                .map(MaterialIdx::new);
        }
    }
    fn bone(&mut self, _site: RefSite, index: &mut Option<BoneIdx>) {
        if let Some(old) = *index {
            *index = self.look_up(|p| &p.bone, old.get()).map(BoneIdx::new);
        }
    }
    fn morph(&mut self, _site: RefSite, index: &mut Option<MorphIdx>) {
        if let Some(old) = *index {
            *index = self.look_up(|p| &p.morph, old.get()).map(MorphIdx::new);
        }
    }
    fn rigid_body(&mut self, _site: RefSite, index: &mut Option<RigidBodyIdx>) {
        if let Some(old) = *index {
            *index = self
                .look_up(|p| &p.rigid_body, old.get())
                .map(RigidBodyIdx::new);
        }
    }
}

impl Edit {
    /// Appends every element of `other` to `model` as one step: vertices, faces with their
    /// materials, textures (a texture path `model` already has is shared), bones (optionally
    /// matched by name), morphs, rigid bodies, joints, soft bodies; display frames with the name
    /// of one of `model`'s get their items appended to it, the others are added. Additional UV
    /// channels are added to `model` when `other` has more. `model` is unchanged on return.
    pub fn merge_model(
        model: &mut Model,
        other: &Model,
        options: MergeOptions,
    ) -> Result<Edit, EditError> {
        let mut report = EditReport::default();

        let mut texture = Vec::with_capacity(other.textures.len());
        let mut new_textures = Vec::new();
        for path in &other.textures {
            let existing = model.textures.iter().position(|t| t == path);
            texture.push(Some(existing.unwrap_or_else(|| {
                new_textures.push(path.clone());
                model.textures.len() + new_textures.len() - 1
            })));
        }

        let our_bones: HashMap<String, usize> = if options.match_bones_by_name {
            let mut names = HashMap::new();
            for (i, bone) in model.bones.iter().enumerate().rev() {
                names.insert(bone.name_ja.as_str().into_owned(), i);
            }
            names
        } else {
            HashMap::new()
        };
        let mut bone = Vec::with_capacity(other.bones.len());
        let mut appended_bones = Vec::new();
        for (j, their) in other.bones.iter().enumerate() {
            match our_bones.get(their.name_ja.as_str().as_ref()) {
                Some(&ours) => bone.push(Some(ours)),
                None => {
                    bone.push(Some(model.bones.len() + appended_bones.len()));
                    appended_bones.push(j);
                }
            }
        }
        let matched = other.bones.len() - appended_bones.len();
        if matched > 0 {
            report.notes.push(
                crate::i18n::Message::new("edit.note.merge_bones_matched").arg("count", matched),
            );
        }

        let mut placement = Placement {
            vertex: appended(other.vertices.len(), model.vertices.len()),
            texture,
            material: appended(other.materials.len(), model.materials.len()),
            bone,
            morph: appended(other.morphs.len(), model.morphs.len()),
            rigid_body: appended(other.rigid_bodies.len(), model.rigid_bodies.len()),
            dangling: 0,
        };
        let mut theirs = other.clone();
        visit_refs_mut(&mut theirs, &mut placement);
        if placement.dangling > 0 {
            report.notes.push(
                crate::i18n::Message::new("edit.note.merge_dangling")
                    .arg("count", placement.dangling),
            );
        }
        if other.header.version > model.header.version {
            report.notes.push(
                crate::i18n::Message::new("edit.note.merge_version")
                    .arg("theirs", other.header.version.name())
                    .arg("ours", model.header.version.name()),
            );
        }

        let name = other.info.name_ja.as_str().into_owned();
        let label = if name.is_empty() {
            EditLabel::new("edit.merge_unnamed")
        } else {
            EditLabel::new("edit.merge").arg("name", LabelArg::Text(name))
        }
        .arg(
            "vertices",
            LabelArg::Count(other.vertices.len(), EditTarget::Vertex.name()),
        )
        .arg(
            "bones",
            LabelArg::Count(appended_bones.len(), EditTarget::Bone.name()),
        );

        let mut sequence = Sequence::new(model);
        let extra_channels = theirs
            .additional_uvs
            .len()
            .saturating_sub(sequence.model().additional_uvs.len());
        if extra_channels > 0 {
            let edit = Edit::add_uv_channels(sequence.model(), extra_channels)?;
            sequence.push(edit);
        }
        if !new_textures.is_empty() {
            let at = sequence.model().textures.len();
            let edit = Edit::insert(sequence.model(), at, Elements::Textures(new_textures))?;
            sequence.push(edit);
        }
        if !appended_bones.is_empty() {
            let bones: Vec<Bone> = appended_bones
                .iter()
                .filter_map(|&j| theirs.bones.get(j).cloned())
                .collect();
            let at = sequence.model().bones.len();
            let edit = Edit::insert(sequence.model(), at, Elements::Bones(bones))?;
            sequence.push(edit);
        }
        if !theirs.vertices.is_empty() {
            let vertices = std::mem::take(&mut theirs.vertices);
            let additional_uvs = std::mem::take(&mut theirs.additional_uvs);
            let at = sequence.model().vertices.len();
            let edit = Edit::insert(
                sequence.model(),
                at,
                Elements::Vertices {
                    vertices,
                    additional_uvs,
                },
            )?;
            sequence.push(edit);
        }
        if !theirs.rigid_bodies.is_empty() {
            let at = sequence.model().rigid_bodies.len();
            let bodies = std::mem::take(&mut theirs.rigid_bodies);
            let edit = Edit::insert(sequence.model(), at, Elements::RigidBodies(bodies))?;
            sequence.push(edit);
        }
        if !theirs.materials.is_empty() {
            let mut faces_left = std::mem::take(&mut theirs.faces).into_iter();
            let materials = std::mem::take(&mut theirs.materials);
            let mut faces: Vec<Vec<Face>> = materials
                .iter()
                .map(|m| {
                    faces_left
                        .by_ref()
                        .take(m.face_index_count as usize / 3)
                        .collect()
                })
                .collect();
            // Faces no material of the other model drew stay with its last material.
            if let Some(last) = faces.last_mut() {
                last.extend(faces_left);
            }
            let at = sequence.model().materials.len();
            let edit = Edit::insert_materials(sequence.model(), at, materials, faces)?;
            sequence.push(edit);
        } else if !theirs.faces.is_empty() {
            report.notes.push(
                crate::i18n::Message::new("edit.note.merge_faces_without_material")
                    .arg("count", theirs.faces.len()),
            );
        }
        if !theirs.morphs.is_empty() {
            let at = sequence.model().morphs.len();
            let morphs = std::mem::take(&mut theirs.morphs);
            let edit = Edit::insert(sequence.model(), at, Elements::Morphs(morphs))?;
            sequence.push(edit);
        }
        let mut new_frames = Vec::new();
        for frame in std::mem::take(&mut theirs.display_frames) {
            let same_name = sequence
                .model()
                .display_frames
                .iter()
                .position(|ours| ours.name_ja == frame.name_ja);
            match same_name {
                Some(ours) => {
                    let mut items = sequence.model().display_frames[ours].items.clone();
                    let before = items.len();
                    for item in frame.items {
                        if !items.contains(&item) {
                            items.push(item);
                        }
                    }
                    if items.len() > before {
                        let edit = Edit::set(
                            sequence.model(),
                            EditTarget::DisplayFrame,
                            &[ours],
                            "items",
                            items,
                        )?;
                        sequence.push(edit);
                    }
                }
                None => new_frames.push(DisplayFrame {
                    special: false,
                    ..frame
                }),
            }
        }
        if !new_frames.is_empty() {
            let at = sequence.model().display_frames.len();
            let edit = Edit::insert(sequence.model(), at, Elements::DisplayFrames(new_frames))?;
            sequence.push(edit);
        }
        if !theirs.joints.is_empty() {
            let at = sequence.model().joints.len();
            let joints = std::mem::take(&mut theirs.joints);
            let edit = Edit::insert(sequence.model(), at, Elements::Joints(joints))?;
            sequence.push(edit);
        }
        if !theirs.soft_bodies.is_empty() {
            let at = sequence.model().soft_bodies.len();
            let soft_bodies = std::mem::take(&mut theirs.soft_bodies);
            let edit = Edit::insert(sequence.model(), at, Elements::SoftBodies(soft_bodies))?;
            sequence.push(edit);
        }
        let mut edit = sequence.finish(label);
        edit.report.extend(&report);
        Ok(edit)
    }
}
