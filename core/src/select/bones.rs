//! Selections of bones worked out from the hierarchy (parent indices).

use super::{from_flags, marked};
use crate::model::Model;

/// The bones whose parent is one of `bones` (one level down).
#[must_use]
pub fn bone_children(model: &Model, bones: &[usize]) -> Vec<usize> {
    let parents = marked(bones, model.bones.len());
    model
        .bones
        .iter()
        .enumerate()
        .filter(|(_, bone)| {
            bone.parent
                .is_some_and(|parent| parents.get(parent.get()).copied().unwrap_or(false))
        })
        .map(|(index, _)| index)
        .collect()
}

/// Every bone below one of `bones`, at any depth (not `bones` themselves, unless one is below
/// another). A parent loop, which the validator reports, ends the walk instead of running it
/// forever.
#[must_use]
pub fn bone_descendants(model: &Model, bones: &[usize]) -> Vec<usize> {
    let count = model.bones.len();
    // Children as compressed rows, built once: the walk is linear in the bones.
    let parent_of = |bone: usize| {
        model.bones[bone]
            .parent
            .map(|parent| parent.get())
            .filter(|&parent| parent < count)
    };
    let mut offsets = vec![0usize; count + 1];
    for bone in 0..count {
        if let Some(parent) = parent_of(bone) {
            offsets[parent + 1] += 1;
        }
    }
    for i in 0..count {
        offsets[i + 1] += offsets[i];
    }
    let mut fill = offsets.clone();
    let mut children = vec![0usize; offsets[count]];
    for bone in 0..count {
        if let Some(parent) = parent_of(bone) {
            children[fill[parent]] = bone;
            fill[parent] += 1;
        }
    }
    let mut below = vec![false; count];
    let mut queue: Vec<usize> = bones.iter().copied().filter(|&b| b < count).collect();
    while let Some(bone) = queue.pop() {
        for &child in &children[offsets[bone]..offsets[bone + 1]] {
            if !below[child] {
                below[child] = true;
                queue.push(child);
            }
        }
    }
    from_flags(&below)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::model::{Bone, BoneIdx};

    #[test]
    fn children_and_descendants_follow_parent_indices() {
        let mut model = Model::new_empty();
        // 0 ← 1 ← 2 ← 3, 0 ← 4; 5 and 6 parent each other (a loop).
        for parent in [None, Some(0), Some(1), Some(2), Some(0), Some(6), Some(5)] {
            model.bones.push(Bone {
                parent: parent.map(BoneIdx::new),
                ..Bone::default()
            });
        }
        assert_eq!(bone_children(&model, &[0]), vec![1, 4]);
        assert_eq!(bone_children(&model, &[1, 2]), vec![2, 3]);
        assert_eq!(bone_descendants(&model, &[0]), vec![1, 2, 3, 4]);
        assert_eq!(bone_descendants(&model, &[2]), vec![3]);
        assert_eq!(bone_descendants(&model, &[5]), vec![5, 6]);
        assert_eq!(bone_descendants(&model, &[99]), Vec::<usize>::new());
    }
}
