//! Fonts: a bundled Japanese font so names render the same everywhere (no tofu, deterministic
//! screenshots), ahead of egui's own fonts.

use egui::{FontData, FontDefinitions, FontFamily};
use std::sync::Arc;

/// A subset of Noto Sans CJK JP (SIL Open Font License 1.1, see `resources/fonts/`): Latin,
/// kana, JIS X 0208 kanji and the symbols MMD models use.
const CJK_FONT: &[u8] = include_bytes!("../../../resources/fonts/NotoSansCJKjp-Regular-subset.otf");

/// Font definitions with the Japanese font first for proportional and monospace text.
#[must_use]
pub fn font_definitions() -> FontDefinitions {
    let mut fonts = FontDefinitions::default();
    fonts.font_data.insert(
        "noto-sans-cjk-jp".to_owned(),
        Arc::new(FontData::from_static(CJK_FONT)),
    );
    for family in [FontFamily::Proportional, FontFamily::Monospace] {
        let list = fonts.families.entry(family.clone()).or_default();
        let position = if family == FontFamily::Monospace {
            1.min(list.len())
        } else {
            0
        };
        list.insert(position, "noto-sans-cjk-jp".to_owned());
    }
    fonts
}

/// Installs the fonts on a context.
pub fn install(ctx: &egui::Context) {
    ctx.set_fonts(font_definitions());
}
