//! Element kinds in words, English and Japanese (PmxEditor's vocabulary): what messages,
//! previews and step names say.

use pmx_core::edit::thousands;

/// The singular and plural English noun and the Japanese noun of the kind named `kind`
/// (`rigid_body`), also `header` and `info`.
fn words(kind: &str) -> Option<(&'static str, &'static str, &'static str)> {
    Some(match kind {
        "vertex" => ("vertex", "vertices", "頂点"),
        "face" => ("face", "faces", "面"),
        "texture" => ("texture", "textures", "テクスチャ"),
        "material" => ("material", "materials", "材質"),
        "bone" => ("bone", "bones", "ボーン"),
        "morph" => ("morph", "morphs", "モーフ"),
        "display_frame" => ("display frame", "display frames", "表示枠"),
        "rigid_body" => ("rigid body", "rigid bodies", "剛体"),
        "joint" => ("joint", "joints", "Joint"),
        "soft_body" => ("soft body", "soft bodies", "SoftBody"),
        "header" => ("header", "headers", "ヘッダ"),
        "info" => ("model info", "model info", "モデル情報"),
        _ => return None,
    })
}

/// `count` elements of the kind named `kind` (`rigid_body`) in English and Japanese words:
/// "3 rigid bodies", "剛体 3個".
#[must_use]
pub fn counted(count: usize, kind: &str) -> (String, String) {
    let (singular, plural, ja) = words(kind).unwrap_or((kind, kind, kind));
    let noun = if count == 1 { singular } else { plural };
    let number = thousands(count);
    (format!("{number} {noun}"), format!("{ja} {number}個"))
}

/// The Japanese name of the kind named `kind` (`rigid_body` → 剛体).
#[must_use]
pub(crate) fn kind_name_ja(kind: &str) -> &'static str {
    words(kind).map_or("要素", |(_, _, ja)| ja)
}
