//! The tab area: dockable panes on `egui_tiles` (the docking crate that supports egui 0.37;
//! egui_dock 0.21 still requires egui 0.36). Tabs can be dragged into splits and back; the
//! layout is saved with the settings.

use egui_tiles::{Container, Linear, LinearDir, Tile, TileId, Tiles, Tree};
use pmx_core::model::ElementKind;
use serde::{Deserialize, Serialize};

/// A pane of the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Pane {
    Info,
    Vertices,
    Faces,
    Textures,
    Materials,
    History,
    Validation,
    Pose,
    /// The 3D view.
    View,
    /// The UV pane: the texture with the UV wireframe.
    Uv,
    Bones,
    Morphs,
    DisplayFrames,
    RigidBodies,
    Joints,
    SoftBodies,
}

impl Pane {
    pub const ALL: [Pane; 16] = [
        Pane::View,
        Pane::Uv,
        Pane::Info,
        Pane::Vertices,
        Pane::Faces,
        Pane::Textures,
        Pane::Materials,
        Pane::History,
        Pane::Validation,
        Pane::Pose,
        Pane::Bones,
        Pane::Morphs,
        Pane::DisplayFrames,
        Pane::RigidBodies,
        Pane::Joints,
        Pane::SoftBodies,
    ];

    /// The name `--tab` takes.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Pane::Info => "info",
            Pane::Vertices => "vertices",
            Pane::Faces => "faces",
            Pane::Textures => "textures",
            Pane::Materials => "materials",
            Pane::History => "history",
            Pane::Validation => "validation",
            Pane::Pose => "pose",
            Pane::View => "view",
            Pane::Uv => "uv",
            Pane::Bones => "bones",
            Pane::Morphs => "morphs",
            Pane::DisplayFrames => "display_frames",
            Pane::RigidBodies => "rigid_bodies",
            Pane::Joints => "joints",
            Pane::SoftBodies => "soft_bodies",
        }
    }

    #[must_use]
    pub fn from_name(name: &str) -> Option<Pane> {
        Pane::ALL.into_iter().find(|p| p.name() == name)
    }

    /// i18n key of the tab title (PmxEditor's names).
    #[must_use]
    pub fn title_key(self) -> &'static str {
        match self {
            Pane::Info => "tab.info",
            Pane::Vertices => "tab.vertices",
            Pane::Faces => "tab.faces",
            Pane::Textures => "tab.textures",
            Pane::Materials => "tab.materials",
            Pane::History => "tab.history",
            Pane::Validation => "tab.validation",
            Pane::Pose => "tab.pose",
            Pane::View => "tab.view",
            Pane::Uv => "tab.uv",
            Pane::Bones => "tab.bones",
            Pane::Morphs => "tab.morphs",
            Pane::DisplayFrames => "tab.display_frames",
            Pane::RigidBodies => "tab.rigid_bodies",
            Pane::Joints => "tab.joints",
            Pane::SoftBodies => "tab.soft_bodies",
        }
    }

    /// The element kind a table pane lists.
    #[must_use]
    pub fn kind(self) -> Option<ElementKind> {
        match self {
            Pane::Vertices => Some(ElementKind::Vertex),
            Pane::Faces => Some(ElementKind::Face),
            Pane::Textures => Some(ElementKind::Texture),
            Pane::Materials => Some(ElementKind::Material),
            Pane::Bones => Some(ElementKind::Bone),
            Pane::Morphs => Some(ElementKind::Morph),
            Pane::DisplayFrames => Some(ElementKind::DisplayFrame),
            Pane::RigidBodies => Some(ElementKind::RigidBody),
            Pane::Joints => Some(ElementKind::Joint),
            Pane::SoftBodies => Some(ElementKind::SoftBody),
            Pane::Info | Pane::History | Pane::Validation | Pane::Pose | Pane::View | Pane::Uv => {
                None
            }
        }
    }

    #[must_use]
    pub fn of_kind(kind: ElementKind) -> Option<Pane> {
        Pane::ALL.into_iter().find(|p| p.kind() == Some(kind))
    }
}

/// The version of [`default_tree`]'s arrangement: a layout saved by an older version is
/// replaced by the default once (version 2 moved the history below, beside the validator's issues, so
/// that the tables and their property panels fit beside the 3D view at 1280 × 800; version 3
/// added the UV tab beside the 3D view; version 4 gave the tabs more width and the validator's
/// issues more height, so that at 1280 × 800 the bone tree, table and property panel fit side
/// by side and 検証 shows five issues).
pub const LAYOUT_VERSION: u32 = 4;

/// The 3D view's share of the window width in the default layout: at least a third.
pub const VIEW_SHARE: f32 = 0.35;

/// The tab area's height over the bottom row's (検証 and 編集履歴) in the default layout.
pub const TOP_TO_BOTTOM: f32 = 2.2;

/// The default layout: the 3D view on the left (PmxEditor keeps its view window beside the
/// editor: edits and poses made in the tabs show at once), the element tabs beside it, and
/// below them the validator's issues (visible while the user jumps to the elements they name)
/// and the undo history beside them.
#[must_use]
pub fn default_tree() -> Tree<Pane> {
    let mut tiles = Tiles::default();
    let main: Vec<TileId> = [
        Pane::Info,
        Pane::Vertices,
        Pane::Faces,
        Pane::Textures,
        Pane::Materials,
        Pane::Bones,
        Pane::Morphs,
        Pane::DisplayFrames,
        Pane::RigidBodies,
        Pane::Joints,
        Pane::SoftBodies,
        Pane::Pose,
        Pane::Uv,
    ]
    .into_iter()
    .map(|p| tiles.insert_pane(p))
    .collect();
    let main = tiles.insert_tab_tile(main);
    let view = tiles.insert_pane(Pane::View);
    let view = tiles.insert_tab_tile(vec![view]);
    let mut top = Linear::new(LinearDir::Horizontal, vec![view, main]);
    top.shares.set_share(view, VIEW_SHARE);
    top.shares.set_share(main, 1.0 - VIEW_SHARE);
    let top = tiles.insert_container(Container::Linear(top));
    let validation = tiles.insert_pane(Pane::Validation);
    let validation = tiles.insert_tab_tile(vec![validation]);
    let history = tiles.insert_pane(Pane::History);
    let history = tiles.insert_tab_tile(vec![history]);
    let mut bottom = Linear::new(LinearDir::Horizontal, vec![validation, history]);
    bottom.shares.set_share(validation, 3.0);
    bottom.shares.set_share(history, 1.0);
    let bottom = tiles.insert_container(Container::Linear(bottom));
    let mut root = Linear::new(LinearDir::Vertical, vec![top, bottom]);
    root.shares.set_share(top, TOP_TO_BOTTOM);
    root.shares.set_share(bottom, 1.0);
    let root = tiles.insert_container(Container::Linear(root));
    Tree::new(egui::Id::unique("workspace"), root, tiles)
}

/// Whether a (restored) layout still holds every pane exactly once.
#[must_use]
pub fn is_complete(tree: &Tree<Pane>) -> bool {
    Pane::ALL.iter().all(|pane| {
        tree.tiles
            .tiles()
            .filter(|t| matches!(t, Tile::Pane(p) if p == pane))
            .count()
            == 1
    })
}

/// Makes `pane`'s tab the active one wherever it is.
pub fn show_pane(tree: &mut Tree<Pane>, pane: Pane) {
    tree.make_active(|_, tile| matches!(tile, Tile::Pane(p) if *p == pane));
}

/// The panes whose tabs are showing.
#[must_use]
pub fn visible_panes(tree: &Tree<Pane>) -> Vec<Pane> {
    tree.active_tiles()
        .into_iter()
        .filter_map(|id| tree.tiles.get_pane(&id).copied())
        .collect()
}
