#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The renumbering an edit reports ([`Touched::remaps`]) is where its elements really went: every
//! element is tagged (names; vertices by position), random structural edits (insert, duplicate,
//! delete, move by, move to, sort, merge, deleting materials with their unused vertices, batches
//! of them) are applied, undone and redone, and each report is checked against the tags.

use super::*;
use crate::generate::feature_model;
use crate::model::*;
use proptest::prelude::*;

/// A tiny deterministic generator (splitmix64), so a failing case is its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// A few distinct indices of `0..len`, ascending.
    fn subset(&mut self, len: usize) -> Vec<usize> {
        let count = 1 + self.below(len.min(4));
        let mut picked: Vec<usize> = (0..count).map(|_| self.below(len)).collect();
        picked.sort_unstable();
        picked.dedup();
        picked
    }
}

/// One tag per element of `kind`: its Japanese name, a texture's path, a vertex's position, a
/// face's three vertex tags.
fn tags(model: &Model, kind: ElementKind) -> Vec<String> {
    let name = |text: &Text| text.as_str().into_owned();
    let vertex = |v: &VertexIdx| {
        model
            .vertices
            .get(v.get())
            .map_or_else(|| "?".to_owned(), |v| v.position.x.to_string())
    };
    match kind {
        ElementKind::Vertex => model
            .vertices
            .iter()
            .map(|v| v.position.x.to_string())
            .collect(),
        ElementKind::Face => model
            .faces
            .iter()
            .map(|f| f.iter().map(vertex).collect::<Vec<_>>().join("/"))
            .collect(),
        ElementKind::Texture => model.textures.iter().map(name).collect(),
        ElementKind::Material => model.materials.iter().map(|m| name(&m.name_ja)).collect(),
        ElementKind::Bone => model.bones.iter().map(|b| name(&b.name_ja)).collect(),
        ElementKind::Morph => model.morphs.iter().map(|m| name(&m.name_ja)).collect(),
        ElementKind::DisplayFrame => model
            .display_frames
            .iter()
            .map(|f| name(&f.name_ja))
            .collect(),
        ElementKind::RigidBody => model
            .rigid_bodies
            .iter()
            .map(|b| name(&b.name_ja))
            .collect(),
        ElementKind::Joint => model.joints.iter().map(|j| name(&j.name_ja)).collect(),
        ElementKind::SoftBody => model.soft_bodies.iter().map(|s| name(&s.name_ja)).collect(),
    }
}

fn all_tags(model: &Model) -> Vec<Vec<String>> {
    ElementKind::ALL.iter().map(|&k| tags(model, k)).collect()
}

/// Gives every element whose tag another element before it has a tag of its own (faces are
/// tagged by their vertices, which this makes distinct too).
fn retag(model: &mut Model, counter: &mut u32) {
    let mut fresh = |seen: &mut std::collections::HashSet<String>, tag: String| {
        if seen.insert(tag) {
            None
        } else {
            *counter += 1;
            Some(*counter)
        }
    };
    let mut seen = std::collections::HashSet::new();
    for v in &mut model.vertices {
        if let Some(n) = fresh(&mut seen, v.position.x.to_string()) {
            v.position.x = n as f32 + 0.5;
            seen.insert(v.position.x.to_string());
        }
    }
    macro_rules! names {
        ($list:expr, $field:ident) => {{
            let mut seen = std::collections::HashSet::new();
            for element in &mut $list {
                if let Some(n) = fresh(&mut seen, element.$field.as_str().into_owned()) {
                    element.$field = format!("tag{n}").into();
                    seen.insert(element.$field.as_str().into_owned());
                }
            }
        }};
    }
    let mut seen = std::collections::HashSet::new();
    for texture in &mut model.textures {
        if let Some(n) = fresh(&mut seen, texture.as_str().into_owned()) {
            *texture = format!("tag{n}.png").into();
            seen.insert(texture.as_str().into_owned());
        }
    }
    names!(model.materials, name_ja);
    names!(model.bones, name_ja);
    names!(model.morphs, name_ja);
    names!(model.display_frames, name_ja);
    names!(model.rigid_bodies, name_ja);
    names!(model.joints, name_ja);
    names!(model.soft_bodies, name_ja);
}

/// Checks `touched` against the tags before and after the change. `exact_removal`: tags are
/// unique before and no element was both copied and removed, so a removed element's tag is gone.
fn check(
    what: &str,
    before: &[Vec<String>],
    after: &[Vec<String>],
    touched: &Touched,
    exact_removal: bool,
) {
    for (slot, &kind) in ElementKind::ALL.iter().enumerate() {
        let (old, new) = (&before[slot], &after[slot]);
        assert_eq!(
            touched.structure.contains(&kind),
            touched.remap(kind).is_some(),
            "{what}: {kind:?} in structure and remaps"
        );
        let Some(reindex) = touched.remap(kind) else {
            assert_eq!(old, new, "{what}: {kind:?} changed without a remap");
            continue;
        };
        let mut image = vec![false; new.len()];
        let mut removed = Vec::new();
        for (i, tag) in old.iter().enumerate() {
            match reindex.map(i) {
                Some(n) => {
                    assert!(n < new.len(), "{what}: {kind:?} {i} → {n} past the end");
                    assert_eq!(&new[n], tag, "{what}: {kind:?} {i} → {n}");
                    assert!(!image[n], "{what}: {kind:?} two elements → {n}");
                    image[n] = true;
                }
                None => removed.push(i),
            }
        }
        let created: Vec<usize> = touched.created(kind).into_iter().flatten().collect();
        let not_mapped: Vec<usize> = (0..new.len()).filter(|&n| !image[n]).collect();
        assert_eq!(created, not_mapped, "{what}: {kind:?} created");
        assert_eq!(reindex.removed(), removed, "{what}: {kind:?} removed");
        if exact_removal {
            // Faces are tagged by their vertices: copies of a face cannot be told apart.
            for &i in removed
                .iter()
                .filter(|&&i| old.iter().filter(|t| **t == old[i]).count() == 1)
            {
                assert!(
                    !new.contains(&old[i]),
                    "{what}: {kind:?} {i} ({}) reported removed but still there",
                    old[i]
                );
            }
        }
        let back = reindex.inverse();
        for (i, _) in old.iter().enumerate() {
            if let Some(n) = reindex.map(i) {
                assert_eq!(back.map(n), Some(i), "{what}: {kind:?} inverse of {i}");
            }
        }
    }
}

fn sort_keys(kind: ElementKind) -> &'static [SortKey] {
    match kind {
        ElementKind::Vertex | ElementKind::Face => &[],
        ElementKind::Material => &[SortKey::Name, SortKey::Transparency],
        ElementKind::Bone => &[SortKey::Name, SortKey::Hierarchy],
        ElementKind::Morph => &[SortKey::Name, SortKey::Panel],
        _ => &[SortKey::Name],
    }
}

/// One random structural edit of `model` (unchanged on return), and whether it may copy an
/// element it also removes (a batch, a merge).
fn random_edit(model: &mut Model, rng: &mut Rng, other: &Model, depth: u32) -> (Edit, bool) {
    loop {
        let kind = ElementKind::ALL[rng.below(ElementKind::ALL.len())];
        let len = model.count(kind);
        let built = match rng.below(9) {
            0 if len > 0 => {
                let originals = rng.subset(len);
                let at = rng.below(len + 1);
                let mut items = Elements::clone_from_model(model, kind, &originals);
                match &mut items {
                    Elements::Materials(materials) => {
                        let faces = vec![Vec::new(); materials.len()];
                        for m in materials.iter_mut() {
                            m.face_index_count = 0;
                        }
                        let materials = std::mem::take(materials);
                        Edit::insert_materials(model, at, materials, faces)
                    }
                    Elements::DisplayFrames(frames) => {
                        for frame in frames.iter_mut() {
                            frame.special = false;
                        }
                        Edit::insert(model, at, items)
                    }
                    _ => Edit::insert(model, at, items),
                }
            }
            1 if len > 0 => Edit::duplicate(model, kind, &rng.subset(len)),
            2 if len > 1 => {
                let indices: Vec<usize> = rng
                    .subset(len)
                    .into_iter()
                    .filter(|&i| {
                        kind != ElementKind::DisplayFrame || !model.display_frames[i].special
                    })
                    .collect();
                if indices.is_empty() {
                    continue;
                }
                Edit::delete(model, kind, &indices)
            }
            3 if len > 1 => {
                let by = [-3, -1, 1, 2][rng.below(4)];
                Edit::move_by(model, kind, &rng.subset(len), by)
            }
            4 if len > 1 => {
                let indices = rng.subset(len);
                let to = rng.below(len - indices.len() + 1);
                Edit::move_to(model, kind, &indices, to)
            }
            5 if !sort_keys(kind).is_empty() => {
                let keys = sort_keys(kind);
                Edit::sort(model, kind, keys[rng.below(keys.len())])
            }
            6 if model.materials.len() > 1 => {
                let indices = rng.subset(model.materials.len());
                Edit::delete_materials_and_vertices(model, &indices)
            }
            7 if depth == 0 => {
                let mut sequence = Sequence::new(model);
                let steps = 2 + rng.below(3);
                for _ in 0..steps {
                    let (edit, _) = random_edit(sequence.model_mut(), rng, other, depth + 1);
                    sequence.push(edit);
                }
                return (sequence.finish("batch"), true);
            }
            8 if depth == 0 && rng.below(3) == 0 => {
                return (
                    Edit::merge_model(model, other, MergeOptions::default()).expect("merges"),
                    true,
                );
            }
            _ => continue,
        };
        if let Ok(edit) = built {
            let batch = matches!(edit.change, Change::Batch(_));
            return (edit, batch);
        }
    }
}

fn run(seed: u64, steps: usize) {
    let mut rng = Rng(seed);
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 24, 8);
    let other = feature_model(PmxVersion::V2_0, TextEncoding::Utf8, 6, 2);
    let mut counter = 0;
    retag(&mut model, &mut counter);
    let mut history = History::new();
    let mut exact = Vec::new();
    for step in 0..steps {
        let (edit, copies) = random_edit(&mut model, &mut rng, &other, 0);
        let label = format!("seed {seed} step {step} apply {}", edit.label());
        let before = all_tags(&model);
        let touched = history.apply(&mut model, edit);
        check(&label, &before, &all_tags(&model), &touched, !copies);
        exact.push(!copies);
        // Copies get tags of their own, so that the next checks tell every element apart.
        retag(&mut model, &mut counter);
    }
    for step in (0..steps).rev() {
        let before = all_tags(&model);
        let touched = history.undo(&mut model).expect("a step to undo");
        let label = format!("seed {seed} step {step} undo");
        check(&label, &before, &all_tags(&model), &touched, exact[step]);
    }
    for (step, &exact) in exact.iter().enumerate() {
        let before = all_tags(&model);
        let touched = history.redo(&mut model).expect("a step to redo");
        let label = format!("seed {seed} step {step} redo");
        check(&label, &before, &all_tags(&model), &touched, exact);
    }
}

#[test]
fn reported_remaps_are_where_elements_went() {
    for seed in 0..100 {
        run(seed, 8);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn reported_remaps_are_where_elements_went_for_any_seed(seed in any::<u64>()) {
        run(seed, 6);
    }
}

#[test]
fn each_structural_edit_reports_its_own_shape() {
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 24, 8);
    let bones = model.bones.len();
    // A move reports runs, not a map of every bone.
    let edit = Edit::move_by(&model, ElementKind::Bone, &[3], -1).unwrap();
    let mut history = History::new();
    let touched = history.apply(&mut model, edit);
    let remap = touched.remap(ElementKind::Bone).expect("bones moved");
    assert!(
        matches!(remap, Reindex::Reorder(runs) if runs.len() <= 4),
        "{remap:?}"
    );
    assert_eq!(remap.map(3), Some(2));
    assert_eq!(remap.map(2), Some(3));
    assert_eq!(remap.map(bones - 1), Some(bones - 1));
    // Undo reports the inverse.
    let touched = history.undo(&mut model).unwrap();
    assert_eq!(touched.remap(ElementKind::Bone).unwrap().map(2), Some(3));
    // A duplicate creates the copies right after their originals.
    let edit = Edit::duplicate(&model, ElementKind::Morph, &[1, 4]).unwrap();
    let touched = history.apply(&mut model, edit);
    assert_eq!(touched.created(ElementKind::Morph), vec![2..3, 6..7]);
    assert_eq!(touched.remaps.len(), 1);
    // Deleting a material removes its faces: both kinds report it.
    let faces = model.materials[0].face_index_count as usize / 3;
    let edit = Edit::delete(&model, ElementKind::Material, &[0]).unwrap();
    let touched = history.apply(&mut model, edit);
    assert_eq!(
        touched.remap(ElementKind::Material).unwrap().removed(),
        vec![0]
    );
    assert_eq!(
        touched.remap(ElementKind::Face).unwrap().removed(),
        (0..faces).collect::<Vec<_>>()
    );
    let touched = history.undo(&mut model).unwrap();
    assert_eq!(touched.created(ElementKind::Face), vec![0..faces]);
}

#[test]
fn moving_a_few_of_a_million_vertices_reports_a_few_runs() {
    let mut model = Model::new_empty();
    model.vertices = vec![Vertex::default(); 1_000_000];
    let edit = Edit::move_to(&model, ElementKind::Vertex, &[10, 500_000, 999_999], 0).unwrap();
    let mut history = History::new();
    let touched = history.apply(&mut model, edit);
    let remap = touched.remap(ElementKind::Vertex).expect("vertices moved");
    assert!(remap.heap_size() < 256, "{} bytes", remap.heap_size());
    assert_eq!(remap.map(500_000), Some(1));
    assert_eq!(remap.map(11), Some(13));
    assert_eq!(remap.map(500_001), Some(500_002));
    let edit = Edit::move_by(&model, ElementKind::Vertex, &[5, 7, 800_000], 2).unwrap();
    let touched = history.apply(&mut model, edit);
    let remap = touched.remap(ElementKind::Vertex).expect("vertices moved");
    assert!(remap.heap_size() < 512, "{} bytes", remap.heap_size());
    assert_eq!(remap.map(800_000), Some(800_002));
    assert_eq!(remap.map(800_002), Some(800_001));
}
