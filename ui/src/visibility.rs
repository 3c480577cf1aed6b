//! 絞り込み表示 (show and hide): which materials, vertices and faces the 3D view and the UV
//! pane leave out. View state kept beside the selection on the `Document`: never an edit (no
//! history step, the revision stays), it follows structural edits the way the selection does
//! ([`Visibility::follow`]), and it does not change the model, so saving ignores it.
//!
//! A face is hidden when its material is hidden, when it is hidden itself, or when it uses a
//! hidden vertex. A vertex is shown (drawn as a point, picked) when it is not hidden itself and
//! some shown face uses it, or no face uses it at all.
//!
//! The entry point for menus is `Command::Visibility` with a [`VisibilityAction`], which the
//! editor carries out with [`Visibility::apply`] on the open document.

use crate::selection::{IndexSet, KindSelection, Selection};
use pmx_core::edit::Reindex;
use pmx_core::model::{ElementKind, Model};

/// What is hidden; everything else is shown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Visibility {
    pub hidden_materials: IndexSet,
    pub hidden_vertices: IndexSet,
    pub hidden_faces: IndexSet,
}

/// One change of what is shown: the 表示 > 絞り込み表示 menu's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VisibilityAction {
    /// 選択材質のみ表示: every material but the selected ones hidden.
    ShowOnlySelectedMaterials,
    /// 選択材質を非表示.
    HideSelectedMaterials,
    /// 選択頂点/面を非表示: the selected elements of this kind (vertices, faces or materials)
    /// hidden.
    HideSelected(ElementKind),
    /// 選択部分のみ表示: every element of this kind (vertices, faces or materials) that is not
    /// selected hidden.
    Isolate(ElementKind),
    /// すべて表示.
    ShowAll,
}

impl VisibilityAction {
    /// The i18n key of the action's menu entry.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            VisibilityAction::ShowOnlySelectedMaterials => "visibility.show_only_materials",
            VisibilityAction::HideSelectedMaterials => "visibility.hide_materials",
            VisibilityAction::HideSelected(_) => "visibility.hide_selected",
            VisibilityAction::Isolate(_) => "visibility.isolate",
            VisibilityAction::ShowAll => "visibility.show_all",
        }
    }
}

/// Which faces and vertices are shown, one flag each (what drawing and picking test).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub faces: Vec<bool>,
    pub vertices: Vec<bool>,
}

impl Shown {
    /// Whether face `index` is shown (faces past the list are not).
    #[must_use]
    pub fn face(&self, index: usize) -> bool {
        self.faces.get(index).copied().unwrap_or(false)
    }

    /// Whether vertex `index` is shown (vertices past the list are not).
    #[must_use]
    pub fn vertex(&self, index: usize) -> bool {
        self.vertices.get(index).copied().unwrap_or(false)
    }
}

/// Keeps a hidden set on its elements through `reindex` (a list now `len` long); removed
/// elements leave it, none joins.
fn follow_set(set: &mut IndexSet, reindex: Option<&Reindex>, len: usize) {
    match reindex {
        Some(reindex) => {
            let mut moved = KindSelection {
                indices: std::mem::take(set),
                current: None,
            };
            moved.follow(reindex, len);
            *set = moved.indices;
        }
        None => set.truncate(len),
    }
}

/// Every index below `len` that `keep` does not exclude.
fn all_but(len: usize, excluded: &IndexSet) -> IndexSet {
    (0..len).filter(|&i| !excluded.contains(i)).collect()
}

impl Visibility {
    /// Whether nothing is hidden.
    #[must_use]
    pub fn shows_everything(&self) -> bool {
        self.hidden_materials.is_empty()
            && self.hidden_vertices.is_empty()
            && self.hidden_faces.is_empty()
    }

    /// A hash of what is hidden, for caches keyed by it (the view's index upload).
    #[must_use]
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for set in [
            &self.hidden_materials,
            &self.hidden_vertices,
            &self.hidden_faces,
        ] {
            (set.len(), set.fingerprint()).hash(&mut hasher);
        }
        hasher.finish()
    }

    /// Whether material `index` is drawn.
    #[must_use]
    pub fn material_shown(&self, index: usize) -> bool {
        !self.hidden_materials.contains(index)
    }

    /// Which faces and vertices of `model` are shown; `None` when everything is (the common
    /// case costs nothing).
    #[must_use]
    pub fn shown(&self, model: &Model) -> Option<Shown> {
        if self.shows_everything() {
            return None;
        }
        let vertex_count = model.vertices.len();
        let mut faces = vec![true; model.faces.len()];
        let mut used = vec![false; vertex_count];
        let mut used_by_shown = vec![false; vertex_count];
        for (material, range) in model.material_face_ranges().into_iter().enumerate() {
            let material_hidden = self.hidden_materials.contains(material);
            for face in range {
                let Some(corners) = model.faces.get(face) else {
                    continue;
                };
                let hidden = material_hidden
                    || self.hidden_faces.contains(face)
                    || corners
                        .iter()
                        .any(|v| self.hidden_vertices.contains(v.get()));
                faces[face] = !hidden;
                for v in corners {
                    if let Some(slot) = used.get_mut(v.get()) {
                        *slot = true;
                    }
                    if !hidden && let Some(slot) = used_by_shown.get_mut(v.get()) {
                        *slot = true;
                    }
                }
            }
        }
        // Faces past every material's range are not drawn: not shown either.
        let drawn: usize = model.material_face_ranges().last().map_or(0, |r| r.end);
        for shown in faces.iter_mut().skip(drawn) {
            *shown = false;
        }
        let vertices = (0..vertex_count)
            .map(|v| !self.hidden_vertices.contains(v) && (used_by_shown[v] || !used[v]))
            .collect();
        Some(Shown { faces, vertices })
    }

    /// Carries out `action` on `model` with `selection`; whether anything changed.
    pub fn apply(
        &mut self,
        action: VisibilityAction,
        model: &Model,
        selection: &Selection,
    ) -> bool {
        let before = self.clone();
        let selected =
            |kind: ElementKind| -> IndexSet { selection.get(kind).targets().into_iter().collect() };
        match action {
            VisibilityAction::ShowOnlySelectedMaterials => {
                self.hidden_materials =
                    all_but(model.materials.len(), &selected(ElementKind::Material));
            }
            VisibilityAction::HideSelectedMaterials
            | VisibilityAction::HideSelected(ElementKind::Material) => {
                for i in selected(ElementKind::Material).iter() {
                    self.hidden_materials.insert(i);
                }
            }
            VisibilityAction::HideSelected(kind @ (ElementKind::Vertex | ElementKind::Face)) => {
                let hidden = match kind {
                    ElementKind::Vertex => &mut self.hidden_vertices,
                    _ => &mut self.hidden_faces,
                };
                for i in selected(kind).iter() {
                    hidden.insert(i);
                }
            }
            VisibilityAction::Isolate(ElementKind::Material) => {
                return self.apply(
                    VisibilityAction::ShowOnlySelectedMaterials,
                    model,
                    selection,
                );
            }
            VisibilityAction::Isolate(ElementKind::Vertex) => {
                self.hidden_vertices =
                    all_but(model.vertices.len(), &selected(ElementKind::Vertex));
            }
            VisibilityAction::Isolate(ElementKind::Face) => {
                self.hidden_faces = all_but(model.faces.len(), &selected(ElementKind::Face));
            }
            // Bones, bodies and the rest are not drawn as the mesh: nothing to hide.
            VisibilityAction::HideSelected(_) | VisibilityAction::Isolate(_) => {}
            VisibilityAction::ShowAll => *self = Visibility::default(),
        }
        *self != before
    }

    /// Takes what is hidden out of `selection` (hidden materials, vertices and faces that are
    /// not shown), so a Delete or a transform after hiding never reaches what the user no
    /// longer sees.
    pub fn deselect_hidden(&self, model: &Model, selection: &mut Selection) {
        let Some(shown) = self.shown(model) else {
            return;
        };
        let keep_shown = |selection: &mut KindSelection, is_shown: &dyn Fn(usize) -> bool| {
            let hidden: Vec<usize> = selection.indices.iter().filter(|&i| !is_shown(i)).collect();
            for i in hidden {
                selection.indices.remove(i);
            }
            if selection
                .current
                .is_some_and(|c| !selection.indices.contains(c))
            {
                selection.current = selection.indices.first();
            }
        };
        keep_shown(selection.get_mut(ElementKind::Vertex), &|v| shown.vertex(v));
        keep_shown(selection.get_mut(ElementKind::Face), &|f| shown.face(f));
        keep_shown(selection.get_mut(ElementKind::Material), &|m| {
            self.material_shown(m)
        });
    }

    /// Follows a structural change of `kind`'s list (now `len` long) as the selection does:
    /// hidden elements stay hidden wherever they went, removed ones leave, none joins.
    pub fn follow(&mut self, kind: ElementKind, reindex: Option<&Reindex>, len: usize) {
        let set = match kind {
            ElementKind::Material => &mut self.hidden_materials,
            ElementKind::Vertex => &mut self.hidden_vertices,
            ElementKind::Face => &mut self.hidden_faces,
            _ => return,
        };
        follow_set(set, reindex, len);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)] // a failed expectation is the test failing
    use super::*;
    use pmx_core::generate;

    #[test]
    fn a_face_hides_with_its_material_itself_or_a_vertex() {
        let model = generate::sample_model();
        let mut visibility = Visibility::default();
        assert!(visibility.shown(&model).is_none());
        visibility.hidden_faces.insert(0);
        let shown = visibility.shown(&model).unwrap();
        assert!(!shown.face(0) && shown.face(1));
        let corner = model.faces[0][0].get();
        let used_elsewhere = model.faces[1..]
            .iter()
            .any(|f| f.iter().any(|v| v.get() == corner));
        assert_eq!(shown.vertex(corner), used_elsewhere);
        visibility.hidden_vertices.insert(corner);
        let shown = visibility.shown(&model).unwrap();
        assert!(!shown.vertex(corner));
        for (f, face) in model.faces.iter().enumerate() {
            if face.iter().any(|v| v.get() == corner) {
                assert!(!shown.face(f), "face {f} uses a hidden vertex");
            }
        }
        visibility.hidden_materials = (0..model.materials.len()).collect();
        let shown = visibility.shown(&model).unwrap();
        assert!(shown.faces.iter().all(|f| !f));
        let used: std::collections::BTreeSet<usize> =
            model.faces.iter().flatten().map(|v| v.get()).collect();
        assert!(used.iter().all(|&v| !shown.vertex(v)));
    }

    #[test]
    fn actions_hide_and_show_by_the_selection() {
        let model = generate::sample_model();
        let mut selection = Selection::default();
        selection.get_mut(ElementKind::Material).select_only(1);
        let mut visibility = Visibility::default();
        assert!(visibility.apply(
            VisibilityAction::ShowOnlySelectedMaterials,
            &model,
            &selection
        ));
        assert_eq!(
            visibility.hidden_materials.to_vec(),
            (0..model.materials.len())
                .filter(|&m| m != 1)
                .collect::<Vec<_>>()
        );
        assert!(visibility.apply(VisibilityAction::ShowAll, &model, &selection));
        assert!(visibility.shows_everything());
        selection.get_mut(ElementKind::Face).select_only(3);
        visibility.apply(
            VisibilityAction::Isolate(ElementKind::Face),
            &model,
            &selection,
        );
        let shown = visibility.shown(&model).unwrap();
        assert_eq!(
            (0..model.faces.len())
                .filter(|&f| shown.face(f))
                .collect::<Vec<_>>(),
            vec![3]
        );
    }
}
