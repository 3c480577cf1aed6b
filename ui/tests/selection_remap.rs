#![allow(clippy::expect_used, clippy::unwrap_used)]
//! The selection stays on the same elements through the structural edits of the bone, morph and
//! material tabs (duplicate, move up and down, move to by dragging in the bone tree, sort,
//! delete) and through undo and redo of each: the editor driven through its UI with
//! egui_kittest, the selection checked by element names (each with how many elements before it
//! share its name, so a copy is told from its original), never by indices.
//!
//! What the tabs do not offer in their UI is driven through the editor's command queue instead
//! (the same path a menu takes), and says so: sorting bones and morphs (the Tools menu sorts
//! textures and materials only), and moving morphs or materials to an index (only the bone tree
//! has a drag that moves).

use egui::accesskit::Role;
use egui::{Event, Modifiers, PointerButton};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use pmx_core::edit::{EditOp, SortKey};
use pmx_core::generate::feature_model;
use pmx_core::model::{ElementKind, Model, PmxVersion, TextEncoding};
use pmx_ui::EditorState;
use pmx_ui::command::Command;
use pmx_ui::document::Document;
use pmx_ui::editor::settings::Settings;
use pmx_ui::i18n::Language;

/// A small model using every feature, each bone, morph and material with a name of its own
/// (given in reverse order, so that sorting by name changes the order).
fn model() -> Model {
    let mut model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 24, 12);
    let bones = model.bones.len();
    for (i, bone) in model.bones.iter_mut().enumerate() {
        bone.name_ja = format!("骨{:02}", bones - i).into();
    }
    let morphs = model.morphs.len();
    for (i, morph) in model.morphs.iter_mut().enumerate() {
        morph.name_ja = format!("表情{:02}", morphs - i).into();
    }
    let materials = model.materials.len();
    for (i, material) in model.materials.iter_mut().enumerate() {
        material.name_ja = format!("材質{:02}", materials - i).into();
    }
    model
}

fn harness(model: Model) -> Harness<'static, EditorState> {
    let mut editor = EditorState::new(Settings {
        language: Language::English,
        ..Settings::default()
    });
    editor.open_document(Document::from_model(model, None, None));
    let mut harness = Harness::builder()
        .with_size(egui::Vec2::new(1600.0, 1000.0))
        .with_context_setup(pmx_ui::editor::fonts::install)
        .build_ui_state(|ui, editor: &mut EditorState| editor.ui(ui), editor);
    harness.run_ok();
    harness
}

/// One of the three tabs: its kind, tab title and the name its table rows go by ("bone 3").
#[derive(Clone, Copy)]
struct Tab {
    kind: ElementKind,
    title: &'static str,
    row: &'static str,
}

const BONES: Tab = Tab {
    kind: ElementKind::Bone,
    title: "Bones",
    row: "bone",
};
const MORPHS: Tab = Tab {
    kind: ElementKind::Morph,
    title: "Morphs",
    row: "morph",
};
const MATERIALS: Tab = Tab {
    kind: ElementKind::Material,
    title: "Materials",
    row: "material",
};

fn document<'a>(harness: &'a Harness<'_, EditorState>) -> &'a Document {
    harness.state().document.as_ref().expect("a document")
}

/// The names of `kind`'s elements in list order.
fn names(model: &Model, kind: ElementKind) -> Vec<String> {
    match kind {
        ElementKind::Bone => model
            .bones
            .iter()
            .map(|b| b.name_ja.as_str().into_owned())
            .collect(),
        ElementKind::Morph => model
            .morphs
            .iter()
            .map(|m| m.name_ja.as_str().into_owned())
            .collect(),
        ElementKind::Material => model
            .materials
            .iter()
            .map(|m| m.name_ja.as_str().into_owned())
            .collect(),
        other => panic!("no names for {other:?}"),
    }
}

/// An element by name: its name and how many elements before it have the same name (0 for an
/// original, 1 for its copy right after it).
type Named = (String, usize);

fn named(names: &[String], index: usize) -> Named {
    let name = names[index].clone();
    let earlier = names[..index].iter().filter(|n| **n == name).count();
    (name, earlier)
}

/// The selected elements (in list order) and the current one, by name.
fn selection(harness: &Harness<'_, EditorState>, kind: ElementKind) -> (Vec<Named>, Option<Named>) {
    let document = document(harness);
    let names = names(&document.model, kind);
    let selection = document.selection.get(kind);
    (
        selection
            .targets()
            .iter()
            .map(|&i| named(&names, i))
            .collect(),
        selection.current.map(|i| named(&names, i)),
    )
}

fn open(harness: &mut Harness<'_, EditorState>, tab: Tab) {
    harness
        .get_by_role_and_label(Role::Button, tab.title)
        .click();
    harness.run_ok();
}

/// Selects the rows of `indices` in the table: a click on the first, Ctrl-click on the others.
fn select(harness: &mut Harness<'_, EditorState>, tab: Tab, indices: &[usize]) {
    for (k, index) in indices.iter().enumerate() {
        let label = format!("{} {index}", tab.row);
        harness.get_by_label(&label).scroll_to_me();
        harness.run_ok();
        let modifiers = if k == 0 {
            Modifiers::NONE
        } else {
            Modifiers::COMMAND
        };
        harness.get_by_label(&label).click_modifiers(modifiers);
        harness.run_ok();
    }
}

/// Right-clicks row `index` (selected: the selection stays) and picks `item` from its menu.
fn context(harness: &mut Harness<'_, EditorState>, tab: Tab, index: usize, item: &str) {
    harness
        .get_by_label(&format!("{} {index}", tab.row))
        .click_secondary();
    harness.run_ok();
    harness.get_by_label(item).click();
    harness.run_ok();
}

fn undo(harness: &mut Harness<'_, EditorState>) {
    harness.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    harness.run_ok();
}

fn redo(harness: &mut Harness<'_, EditorState>) {
    harness.key_press_modifiers(Modifiers::COMMAND, egui::Key::Y);
    harness.run_ok();
}

/// Drags the bone tree's row of `bone` onto the upper edge of the row of `before` (which moves
/// the dragged bones before it): press, move in steps past the drag threshold, release.
fn drag_before(harness: &mut Harness<'_, EditorState>, bone: usize, before: usize) {
    let start = harness
        .get_by_label(&format!("bone tree {bone}"))
        .rect()
        .center();
    let target = harness.get_by_label(&format!("bone tree {before}")).rect();
    let end = egui::pos2(target.center().x, target.top() + target.height() * 0.15);
    harness.hover_at(start);
    harness.step();
    harness.drag_at(start);
    harness.step();
    for k in 1..=6 {
        let t = k as f32 / 6.0;
        harness.hover_at(start + (end - start) * t);
        harness.step();
    }
    harness.event(Event::PointerButton {
        pos: end,
        button: PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    harness.step();
    harness.remove_cursor();
    harness.run_ok();
}

/// What an edit should leave selected, and checks it after the edit, its undo and its redo.
struct Expect {
    /// After the edit and after its redo.
    after: (Vec<Named>, Option<Named>),
    /// After its undo.
    undone: (Vec<Named>, Option<Named>),
}

/// Runs `edit` on a harness showing `tab` with `initial` selected, then undo and redo, checking
/// the model changed, came back and changed again, and the selection each time.
fn check(
    tab: Tab,
    initial: &[usize],
    edit: impl FnOnce(&mut Harness<'_, EditorState>),
    expect: impl FnOnce(&[String], &Model) -> Expect,
) {
    let original = model();
    let mut harness = harness(original.clone());
    open(&mut harness, tab);
    select(&mut harness, tab, initial);
    let before = selection(&harness, tab.kind);
    assert_eq!(
        before.0,
        initial
            .iter()
            .map(|&i| named(&names(&original, tab.kind), i))
            .collect::<Vec<_>>(),
        "the rows clicked are selected"
    );
    edit(&mut harness);
    let edited = document(&harness).model.clone();
    assert!(edited != original, "the edit changed the model");
    assert_eq!(document(&harness).history.len(), 1, "one undo step");
    let expect = expect(&names(&original, tab.kind), &edited);
    assert_eq!(
        selection(&harness, tab.kind),
        expect.after,
        "after the edit"
    );
    undo(&mut harness);
    assert!(document(&harness).model == original, "undo restores");
    assert_eq!(selection(&harness, tab.kind), expect.undone, "after undo");
    redo(&mut harness);
    assert!(document(&harness).model == edited, "redo edits again");
    assert_eq!(selection(&harness, tab.kind), expect.after, "after redo");
}

/// The selection as the user left it before the edit: the rows clicked, the current element
/// the one clicked last (an undo gives back exactly that).
fn originals(names: &[String], indices: &[usize]) -> (Vec<Named>, Option<Named>) {
    let list: Vec<Named> = indices.iter().map(|&i| named(names, i)).collect();
    let current = list.last().cloned();
    (list, current)
}

/// The selection stays on the same elements, wherever the edit put them: the current element
/// is the one clicked last.
fn same_elements(names: &[String], indices: &[usize], edited: &Model, kind: ElementKind) -> Expect {
    let now = self::names(edited, kind);
    let mut list: Vec<Named> = indices.iter().map(|&i| named(names, i)).collect();
    // In the order of the list after the edit.
    list.sort_by_key(|(name, _)| now.iter().position(|n| n == name));
    let current = indices.last().map(|&i| named(names, i));
    let undone_list: Vec<Named> = indices.iter().map(|&i| named(names, i)).collect();
    Expect {
        after: (list, current.clone()),
        undone: (undone_list, current),
    }
}

fn duplicate(tab: Tab) {
    let initial = [2, 5];
    check(
        tab,
        &initial,
        |h| context(h, tab, 2, "Duplicate"),
        |names, _| {
            // The copies (each the second element of its name) are selected; undo leaves the
            // originals selected.
            let copies: Vec<Named> = initial.iter().map(|&i| (names[i].clone(), 1)).collect();
            Expect {
                after: (copies.clone(), copies.first().cloned()),
                undone: originals(names, &initial),
            }
        },
    );
}

fn move_by(tab: Tab, item: &str) {
    let initial = [3, 6];
    check(
        tab,
        &initial,
        |h| context(h, tab, 3, item),
        |names, edited| {
            let now = self::names(edited, tab.kind);
            let moved = if item == "Move up" { [2, 5] } else { [4, 7] };
            assert_eq!(now[moved[0]], names[3], "{item} moved the first one");
            assert_eq!(now[moved[1]], names[6], "{item} moved the second one");
            same_elements(names, &initial, edited, tab.kind)
        },
    );
}

fn delete(tab: Tab) {
    let initial = [2, 5];
    check(
        tab,
        &initial,
        |h| context(h, tab, 2, "Delete"),
        |names, _| {
            // The deleted elements leave the selection and no other element joins it; undo
            // selects the deleted ones again, where they came back.
            Expect {
                after: (Vec::new(), None),
                undone: originals(names, &initial),
            }
        },
    );
}

/// `op` run through the editor's command queue (for what the tab has no UI for).
fn by_command(op: EditOp) -> impl FnOnce(&mut Harness<'_, EditorState>) {
    move |h| {
        h.state_mut().push(Command::ops(vec![op]));
        h.run_ok();
    }
}

fn sorted_by_name(tab: Tab, edit: impl FnOnce(&mut Harness<'_, EditorState>)) {
    let initial = [1, 4];
    check(tab, &initial, edit, |names, edited| {
        let now = self::names(edited, tab.kind);
        let mut sorted = names.to_vec();
        sorted.sort();
        assert_eq!(now, sorted, "sorted by name");
        same_elements(names, &initial, edited, tab.kind)
    });
}

#[test]
fn bones_duplicate() {
    duplicate(BONES);
}

#[test]
fn bones_move_up_and_down() {
    move_by(BONES, "Move up");
    move_by(BONES, "Move down");
}

#[test]
fn bones_move_to_by_dragging_in_the_tree() {
    let initial = [4, 7];
    check(
        BONES,
        &initial,
        // Dragging one of the selected bones drags the selection: both go before bone 1.
        |h| drag_before(h, 7, 1),
        |names, edited| {
            let now = names_of(edited);
            assert_eq!(now[1], names[4]);
            assert_eq!(now[2], names[7]);
            same_elements(names, &initial, edited, ElementKind::Bone)
        },
    );
}

fn names_of(model: &Model) -> Vec<String> {
    names(model, ElementKind::Bone)
}

/// The bone tab has no sort in its UI (the Tools menu sorts textures and materials): the sort
/// goes through the editor's command queue.
#[test]
fn bones_sort_through_the_command_queue() {
    sorted_by_name(
        BONES,
        by_command(EditOp::Sort {
            kind: ElementKind::Bone,
            by: SortKey::Name,
        }),
    );
}

#[test]
fn bones_delete() {
    delete(BONES);
}

#[test]
fn morphs_duplicate() {
    duplicate(MORPHS);
}

#[test]
fn morphs_move_up_and_down() {
    move_by(MORPHS, "Move up");
    move_by(MORPHS, "Move down");
}

/// The morph tab has no move to an index in its UI (no drag): the move goes through the
/// editor's command queue.
#[test]
fn morphs_move_to_through_the_command_queue() {
    let initial = [2, 6];
    check(
        MORPHS,
        &initial,
        by_command(EditOp::Move {
            kind: ElementKind::Morph,
            indices: initial.to_vec(),
            to: Some(0),
            by: None,
        }),
        |names, edited| {
            let now = self::names(edited, ElementKind::Morph);
            assert_eq!(now[..2], [names[2].clone(), names[6].clone()]);
            same_elements(names, &initial, edited, ElementKind::Morph)
        },
    );
}

/// The morph tab has no sort in its UI: the sort goes through the editor's command queue.
#[test]
fn morphs_sort_through_the_command_queue() {
    sorted_by_name(
        MORPHS,
        by_command(EditOp::Sort {
            kind: ElementKind::Morph,
            by: SortKey::Name,
        }),
    );
}

#[test]
fn morphs_delete() {
    delete(MORPHS);
}

#[test]
fn materials_duplicate() {
    duplicate(MATERIALS);
}

#[test]
fn materials_move_up_and_down() {
    move_by(MATERIALS, "Move up");
    move_by(MATERIALS, "Move down");
}

/// The material tab has no move to an index in its UI: the move goes through the editor's
/// command queue.
#[test]
fn materials_move_to_through_the_command_queue() {
    let initial = [1, 3];
    let last = model().materials.len() - 2;
    check(
        MATERIALS,
        &initial,
        by_command(EditOp::Move {
            kind: ElementKind::Material,
            indices: initial.to_vec(),
            to: Some(last),
            by: None,
        }),
        |names, edited| {
            let now = self::names(edited, ElementKind::Material);
            assert_eq!(now[last..], [names[1].clone(), names[3].clone()]);
            same_elements(names, &initial, edited, ElementKind::Material)
        },
    );
}

/// Tools → "Sort materials by name", the material sort the UI has.
#[test]
fn materials_sort_from_the_tools_menu() {
    sorted_by_name(MATERIALS, |h| {
        h.get_by_label("Tools").click();
        h.run_ok();
        h.get_by_label("Sort materials by name").click();
        h.run_ok();
    });
}

#[test]
fn materials_delete() {
    delete(MATERIALS);
}

/// "Delete with unused vertices" removes materials, their faces and vertices in one step: the
/// material selection empties as after a plain delete and comes back with undo.
#[test]
fn materials_delete_with_unused_vertices() {
    let initial = [2, 5];
    check(
        MATERIALS,
        &initial,
        |h| context(h, MATERIALS, 2, "Delete with unused vertices"),
        |names, _| Expect {
            after: (Vec::new(), None),
            undone: originals(names, &initial),
        },
    );
}
