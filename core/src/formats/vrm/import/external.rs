//! Data a glTF keeps outside its JSON: buffers and images named by `uri`, either a `data:` URI
//! (base64) or a file relative to the `.gltf` (glTF 2.0 § "URIs"). A `.vrm` / `.glb` has its
//! data in the BIN chunk and needs none of this; a text `.gltf` (as exported for web viewers
//! and by three-vrm's examples) usually does.
//!
//! Files are only read below the model's folder tree by a relative path: an absolute path or a
//! URL (`https:`, `file:`) is refused, so a file cannot make the reader open arbitrary paths or
//! the network. Each file is held to [`MAX_EXTERNAL_FILE_BYTES`].

use crate::i18n::Message;
use base64::Engine as _;
use percent_encoding::percent_decode_str;
use std::path::{Component, Path, PathBuf};

/// The largest external buffer or image read (a glTF buffer's `byteLength` is at most
/// 2³¹ − 1 in practice; four-gigabyte files are not models).
pub(super) const MAX_EXTERNAL_FILE_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// The bytes a `uri` names, or why they cannot be had (shown with the JSON path).
pub(super) type Resolved = Result<Vec<u8>, Message>;

/// Reads the data `uri` names: a `data:` URI's payload, or a file under `base_dir`.
pub(super) fn resolve(uri: &str, base_dir: Option<&Path>) -> Resolved {
    if let Some(rest) = uri.strip_prefix("data:") {
        return decode_data_uri(rest);
    }
    let relative = relative_path(uri)?;
    let Some(base_dir) = base_dir else {
        return Err(Message::new("load.gltf.uri_no_folder").arg("uri", shown(uri)));
    };
    let path = base_dir.join(relative);
    let cannot_read = |error: std::io::Error| {
        Message::new("load.gltf.uri_cannot_read")
            .arg("path", path.display().to_string())
            .arg("error", error.to_string())
    };
    let metadata = std::fs::metadata(&path).map_err(cannot_read)?;
    if metadata.len() > MAX_EXTERNAL_FILE_BYTES {
        return Err(Message::new("load.gltf.uri_too_big")
            .arg("path", path.display().to_string())
            .arg("bytes", metadata.len())
            .arg("limit", MAX_EXTERNAL_FILE_BYTES));
    }
    std::fs::read(&path).map_err(cannot_read)
}

/// The first characters of a URI, for messages (a data URI can be megabytes long).
pub(super) fn shown(uri: &str) -> String {
    let short: String = uri.chars().take(48).collect();
    if short.len() < uri.len() {
        format!("{short}…")
    } else {
        short
    }
}

/// The file name part of a relative `uri`, percent-decoded (`my%20hair.png` → `my hair.png`).
pub(super) fn relative_path(uri: &str) -> Result<PathBuf, Message> {
    // A scheme (`https:`, `file:`, a Windows drive `C:`) before any slash is not a relative
    // reference.
    let first_separator = uri.find(['/', '?', '#']).unwrap_or(uri.len());
    if uri[..first_separator].contains(':') {
        return Err(Message::new("load.gltf.uri_not_relative").arg("uri", shown(uri)));
    }
    let path_part = uri.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode_str(path_part)
        .decode_utf8()
        .map_err(|_| Message::new("load.gltf.uri_not_utf8").arg("uri", shown(uri)))?;
    let path = PathBuf::from(decoded.as_ref());
    if path.as_os_str().is_empty()
        || path
            .components()
            .any(|c| matches!(c, Component::RootDir | Component::Prefix(_)))
    {
        return Err(Message::new("load.gltf.uri_absolute").arg("uri", shown(uri)));
    }
    // `..` would leave the model's folder tree (a downloaded model naming `../../.ssh/…`).
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(Message::new("load.gltf.uri_climbs_out").arg("uri", shown(uri)));
    }
    Ok(path)
}

/// `mediatype;base64,payload` → the payload's bytes.
fn decode_data_uri(rest: &str) -> Resolved {
    let Some((header, payload)) = rest.split_once(',') else {
        return Err(Message::new("load.gltf.data_uri_no_comma"));
    };
    if !header.ends_with(";base64") {
        return Err(Message::new("load.gltf.data_uri_not_base64").arg("header", header));
    }
    base64::engine::general_purpose::STANDARD
        .decode(payload.trim())
        .map_err(|error| Message::new("load.gltf.base64").arg("error", error.to_string()))
}

/// The media type of a data URI (`image/png`), when `uri` is one.
pub(super) fn data_uri_media_type(uri: &str) -> Option<&str> {
    let header = uri.strip_prefix("data:")?.split_once(',')?.0;
    Some(header.split(';').next().unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_uris_decode_and_bad_ones_say_why() {
        assert_eq!(
            resolve("data:application/octet-stream;base64,AAECAw==", None),
            Ok(vec![0, 1, 2, 3])
        );
        assert!(resolve("data:application/octet-stream,abc", None).is_err());
        assert!(resolve("data:;base64,***", None).is_err());
        assert!(resolve("data:nocomma", None).is_err());
        assert_eq!(
            data_uri_media_type("data:image/png;base64,AAAA"),
            Some("image/png")
        );
    }

    #[test]
    fn only_relative_files_are_read() {
        assert!(relative_path("https://example.com/a.bin").is_err());
        assert!(relative_path("file:///etc/passwd").is_err());
        assert!(relative_path("/etc/passwd").is_err());
        assert!(relative_path("C:/model/a.bin").is_err());
        assert!(relative_path("../outside.png").is_err());
        assert!(relative_path("tex/../../outside.png").is_err());
        assert_eq!(
            relative_path("tex/my%20hair.png"),
            Ok(PathBuf::from("tex/my hair.png"))
        );
        assert!(resolve("a.bin", None).is_err_and(|why| why.contains("open the .gltf")));
        // Every refusal says itself in the reader's language.
        let refusal = relative_path("../outside.png").unwrap_err();
        assert!(refusal.is_translated());
        assert!(
            refusal
                .render(crate::i18n::Language::Japanese)
                .contains("「../outside.png」"),
            "{refusal}"
        );
    }

    #[test]
    fn files_are_read_from_the_folder() {
        let dir = tempfile::tempdir().unwrap_or_else(|_| std::process::abort());
        std::fs::write(dir.path().join("mesh.bin"), [9u8, 8, 7]).unwrap_or_default();
        assert_eq!(resolve("mesh.bin", Some(dir.path())), Ok(vec![9, 8, 7]));
        assert!(resolve("missing.bin", Some(dir.path())).is_err());
    }
}
