//! The 情報 (Info) panel: names, comments, format settings and element counts.

use pmx_core::model::{ElementKind, IndexSizes, Model, PmxVersion};

/// Shows the model's info and counts (read-only until the editing issue adds commands).
pub fn info_panel_ui(ui: &mut egui::Ui, model: &Model) {
    egui::Grid::new("model_info")
        .num_columns(2)
        .striped(true)
        .spacing([16.0, 6.0])
        .show(ui, |ui| {
            let row = |ui: &mut egui::Ui, label: &str, value: String| {
                ui.label(label);
                ui.label(value);
                ui.end_row();
            };
            row(ui, "モデル名 / name", model.info.name_ja.to_string());
            row(
                ui,
                "モデル名(英) / name (en)",
                model.info.name_en.to_string(),
            );
            row(ui, "コメント / comment", model.info.comment_ja.to_string());
            row(
                ui,
                "コメント(英) / comment (en)",
                model.info.comment_en.to_string(),
            );
            let version = match model.header.version {
                PmxVersion::V2_0 => "2.0",
                PmxVersion::V2_1 => "2.1",
            };
            row(ui, "バージョン / version", format!("PMX {version}"));
            row(
                ui,
                "エンコード / encoding",
                model.header.encoding.name().to_owned(),
            );
            row(
                ui,
                "追加UV数 / additional UVs",
                model.additional_uv_count().to_string(),
            );
            let sizes = model
                .header
                .index_sizes
                .unwrap_or_else(|| IndexSizes::minimal_for(model));
            row(
                ui,
                "Indexサイズ / index sizes",
                format!(
                    "頂点 {} / テクスチャ {} / 材質 {} / ボーン {} / モーフ {} / 剛体 {}",
                    sizes.vertex,
                    sizes.texture,
                    sizes.material,
                    sizes.bone,
                    sizes.morph,
                    sizes.rigid_body
                ),
            );
        });
    ui.add_space(12.0);
    ui.heading("要素数 / counts");
    egui::Grid::new("model_counts")
        .num_columns(2)
        .striped(true)
        .spacing([16.0, 4.0])
        .show(ui, |ui| {
            for kind in ElementKind::ALL {
                ui.label(kind_label(kind));
                ui.monospace(format!("{:>10}", model.count(kind)));
                ui.end_row();
            }
        });
}

/// PmxEditor's names for the element kinds (ja / en).
#[must_use]
pub fn kind_label(kind: ElementKind) -> &'static str {
    match kind {
        ElementKind::Vertex => "頂点 / vertices",
        ElementKind::Face => "面 / faces",
        ElementKind::Texture => "テクスチャ / textures",
        ElementKind::Material => "材質 / materials",
        ElementKind::Bone => "ボーン / bones",
        ElementKind::Morph => "モーフ / morphs",
        ElementKind::DisplayFrame => "表示枠 / display frames",
        ElementKind::RigidBody => "剛体 / rigid bodies",
        ElementKind::Joint => "Joint / joints",
        ElementKind::SoftBody => "SoftBody / soft bodies",
    }
}
