//! テクスチャ (textures): the paths materials refer to, how many materials use each, and whether
//! the file is there beside the model.

use crate::command::Command;
use crate::widgets::properties::PropertyGrid;
use crate::widgets::table::{ColumnSpec, ElementTable, SortValue};
use crate::widgets::{EditCx, text_commit_ui};
use pmx_core::edit::Elements;
use pmx_core::edit::field;
use pmx_core::model::{ElementKind, Model, Text, TextureIdx, Toon};
use std::path::{Path, PathBuf};

/// The texture table.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextureTable;

/// How many materials use texture `index` (as texture, sphere map or toon).
#[must_use]
pub fn texture_users(model: &Model, index: usize) -> usize {
    let is = |t: Option<TextureIdx>| t.is_some_and(|t| t.get() == index);
    model
        .materials
        .iter()
        .filter(|m| {
            is(m.texture) || is(m.sphere_texture) || matches!(m.toon, Toon::Texture(t) if is(t))
        })
        .count()
}

/// Where a texture path points, relative to the model's folder (PMX paths use `\`).
#[must_use]
pub fn resolve_texture(base_dir: &Path, path: &str) -> PathBuf {
    let relative: PathBuf = path.split(['\\', '/']).filter(|p| !p.is_empty()).collect();
    base_dir.join(relative)
}

impl ElementTable for TextureTable {
    fn kind(&self) -> ElementKind {
        ElementKind::Texture
    }

    fn columns(&self, _model: &Model) -> Vec<ColumnSpec> {
        vec![
            ColumnSpec::new("texture.path", 360.0),
            ColumnSpec::new("texture.users", 90.0),
            ColumnSpec::new("texture.file", 110.0),
        ]
    }

    /// The path.
    fn key_columns(&self) -> usize {
        1
    }

    fn cell_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, index: usize, column: usize) {
        let Some(path) = cx.model.textures.get(index) else {
            return;
        };
        match column {
            0 => {
                let path = path.as_str();
                let id = ui.scope_id().with(("texture_path", index));
                let name = format!("texture {index} path");
                if let Some(new) = text_commit_ui(ui, id, &path, false, ui.available_width(), &name)
                {
                    cx.commands.push(Command::set(
                        field::<Text>(),
                        vec![index],
                        Text::from(new.as_str()),
                    ));
                }
            }
            1 => {
                ui.label(texture_users(cx.model, index).to_string());
            }
            2 => match cx.base_dir {
                Some(dir) if resolve_texture(dir, &path.as_str()).is_file() => {
                    ui.label(cx.tr("texture.found"));
                }
                Some(_) => {
                    ui.colored_label(ui.visuals().warn_fg_color, cx.tr("texture.missing"));
                }
                None => {
                    ui.weak("-");
                }
            },
            _ => {}
        }
    }

    fn sort_value(&self, model: &Model, index: usize, column: usize) -> SortValue {
        match column {
            0 => SortValue::Text(
                model
                    .textures
                    .get(index)
                    .map(|t| t.as_str().to_lowercase())
                    .unwrap_or_default(),
            ),
            1 => SortValue::Number(texture_users(model, index) as f64),
            _ => SortValue::Number(0.0),
        }
    }

    fn row_text(&self, model: &Model, index: usize, out: &mut String) {
        if let Some(path) = model.textures.get(index) {
            out.push_str(&path.as_str());
        }
    }

    fn new_element(&self, _model: &Model, _at: usize) -> Option<Elements> {
        Some(Elements::Textures(vec![Text::default()]))
    }

    fn properties_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, grid: &mut PropertyGrid<'_>) {
        let model = cx.model;
        let indices = grid.indices;
        grid.show(ui, "texture_properties", |ui, grid| {
            ui.label(cx.tr("texture.path"));
            if let Some((path, mixed)) = grid.summary("path", |i| {
                model.textures.get(i).map(|t| t.as_str().into_owned())
            }) {
                let shown = if mixed { "" } else { path.as_str() };
                let id = ui
                    .scope_id()
                    .with(("texture_path_property", indices.first()));
                if let Some(new) = text_commit_ui(ui, id, shown, false, 240.0, "path") {
                    cx.commands.push(Command::set(
                        field::<Text>(),
                        indices.to_vec(),
                        Text::from(new.as_str()),
                    ));
                }
            }
            ui.end_row();
            ui.label(cx.tr("texture.users"));
            let users: usize = indices.iter().map(|&i| texture_users(model, i)).sum();
            ui.label(users.to_string());
            ui.end_row();
        });
        if let [only] = indices {
            ui.separator();
            ui.label(cx.tr("texture.used_by"));
            let is = |t: Option<TextureIdx>| t.is_some_and(|t| t.get() == *only);
            for (m, material) in model.materials.iter().enumerate() {
                let mut roles = Vec::new();
                if is(material.texture) {
                    roles.push(cx.tr("material.texture"));
                }
                if is(material.sphere_texture) {
                    roles.push(cx.tr("material.sphere"));
                }
                if matches!(material.toon, Toon::Texture(t) if is(t)) {
                    roles.push(cx.tr("material.toon"));
                }
                if !roles.is_empty()
                    && ui
                        .link(format!("{} ({})", cx.material_label(m), roles.join(", ")))
                        .clicked()
                {
                    cx.commands.push(Command::Reveal {
                        kind: ElementKind::Material,
                        index: m,
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_paths_resolve_with_either_separator() {
        let base = Path::new("/models/miku");
        assert_eq!(
            resolve_texture(base, "tex\\body.png"),
            PathBuf::from("/models/miku/tex/body.png")
        );
        assert_eq!(
            resolve_texture(base, "tex/body.png"),
            PathBuf::from("/models/miku/tex/body.png")
        );
    }
}
