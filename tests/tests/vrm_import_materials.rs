//! VRM import of materials and of expressions' material binds, on corpus files and on copies
//! of them with binds and images added: diffuse colours are the sRGB of the base colour
//! factors, generated toon ramps end at the shade colour, outlines become edges, colour binds
//! become material morphs and texture transform binds UV morphs with the expected offsets,
//! and images in files beside a `.gltf` or in `data:` URIs are embedded byte for byte, a
//! missing one being listed instead. Corpus files that are absent are skipped with the reason
//! printed.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::LoadOptions;
use pmx_core::formats::vrm::{VrmImport, load_vrm_path, read_vrm, split_glb};
use pmx_core::model::{
    DrawFlags, MaterialMorphOp, Model, MorphOffsets, MorphPanel, SphereMode, Toon,
};
use pmx_tests::corpus_dir;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn corpus_file(sub: &str, name: &str) -> Option<PathBuf> {
    let path = corpus_dir(sub)?.join(name);
    if path.is_file() {
        Some(path)
    } else {
        println!("skipped: {} is absent", path.display());
        None
    }
}

fn linear_to_srgb(value: f32) -> f32 {
    if value <= 0.003_130_8 {
        value * 12.92
    } else {
        1.055 * value.powf(1.0 / 2.4) - 0.055
    }
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() < 1e-4
}

fn material<'a>(model: &'a Model, name: &str) -> (usize, &'a pmx_core::model::Material) {
    model
        .materials
        .iter()
        .enumerate()
        .find(|(_, m)| m.name_ja.as_str() == name)
        .unwrap_or_else(|| panic!("no material {name}"))
}

fn morph<'a>(model: &'a Model, name: &str) -> (usize, &'a pmx_core::model::Morph) {
    model
        .morphs
        .iter()
        .enumerate()
        .find(|(_, m)| m.name_ja.as_str() == name)
        .unwrap_or_else(|| panic!("no morph {name}"))
}

/// The embedded bytes of texture `index`.
fn texture_bytes(import: &VrmImport, index: usize) -> &[u8] {
    let path = import.model.textures[index].as_str().into_owned();
    &import
        .textures
        .iter()
        .find(|t| t.path == path)
        .unwrap_or_else(|| panic!("texture {path} is not embedded"))
        .bytes
}

/// The RGBA of the toon ramp of material `index` at its top and bottom rows.
fn toon_ends(import: &VrmImport, index: usize) -> ([u8; 4], [u8; 4]) {
    let Toon::Texture(Some(toon)) = import.model.materials[index].toon else {
        panic!("material {index} has no toon texture");
    };
    let path = import.model.textures[toon.get()].as_str().into_owned();
    assert!(path.ends_with(".png"), "{path}");
    let image = pmx_core::texture::decode(texture_bytes(import, toon.get()), &path).unwrap();
    let texel = |y: u32| {
        let at = ((y * image.width + image.width / 2) * 4) as usize;
        [
            image.pixels[at],
            image.pixels[at + 1],
            image.pixels[at + 2],
            image.pixels[at + 3],
        ]
    };
    (texel(0), texel(image.height - 1))
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = (u32::from(chunk[0]) << 16)
            | (u32::from(*chunk.get(1).unwrap_or(&0)) << 8)
            | u32::from(*chunk.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn mtoon_1_materials_take_base_colour_edge_toon_and_sphere() {
    let Some(path) = corpus_file("vrm", "s06_mtoon1_vrm1.vrm") else {
        return;
    };
    let import = read_vrm(&std::fs::read(path).unwrap(), &LoadOptions::default()).unwrap();
    let model = &import.model;
    assert!(errors(model).is_empty(), "{:#?}", errors(model));
    for note in &import.report.notes {
        println!("note: {note}");
    }

    // "Opaque": baseColorFactor [0.25, 0, 0, 0.5], OPAQUE (alpha ignored), double-sided,
    // world outline 0.0625 m of [0, 0, 0.5], shade [1, 0.5, 1], matcap factor [0, 1, 1].
    let (opaque_index, opaque) = material(model, "Opaque");
    let diffuse = opaque.diffuse.to_array();
    assert!(close(diffuse[0], linear_to_srgb(0.25)), "{diffuse:?}");
    assert!(close(diffuse[1], 0.0) && close(diffuse[2], 0.0));
    assert!(close(diffuse[3], 1.0), "OPAQUE ignores alpha: {diffuse:?}");
    assert!(close(opaque.ambient.x, diffuse[0] * 0.5));
    assert_eq!(opaque.specular.to_array(), [0.0; 3]);
    assert!(opaque.draw_flags.contains(DrawFlags::DOUBLE_SIDED));
    assert!(opaque.draw_flags.contains(DrawFlags::EDGE));
    assert!(
        close(opaque.edge_size, 0.0625 / 0.005),
        "{}",
        opaque.edge_size
    );
    let edge = opaque.edge_color.to_array();
    assert!(
        close(edge[2], linear_to_srgb(0.5)) && close(edge[0], 0.0),
        "{edge:?}"
    );
    assert_eq!(opaque.sphere_mode, SphereMode::Add);
    let sphere = opaque.sphere_texture.expect("the matcap is the sphere map");
    assert!(
        import.model.textures[sphere.get()]
            .as_str()
            .ends_with("_matcap.png"),
        "a matcap factor other than white is multiplied into a copy"
    );
    // The toon's dark end is the shade over the base colour: red 1 / 0.54 → 1; green and
    // blue are black in the base, so whatever the shade there the toon multiplies black. The
    // shade draws as the base colour: no toon.
    assert_eq!(
        opaque.toon,
        Toon::Texture(None),
        "material {opaque_index}: a shade that draws as the base is no toon"
    );

    // "Cutout": MASK keeps the base alpha; no outline ("none").
    let (_, cutout) = material(model, "Cutout");
    assert!(close(cutout.diffuse.to_array()[2], linear_to_srgb(0.5)));
    assert!(!cutout.draw_flags.contains(DrawFlags::EDGE));
    assert!(!cutout.draw_flags.contains(DrawFlags::DOUBLE_SIDED));
    // "Transparent": BLEND keeps alpha 0; "TransparentWithZWrite": screen outline 0.0125 of
    // the screen height, on a 2 m view → 0.025 m → edge size 5.
    let (_, transparent) = material(model, "Transparent");
    assert!(close(transparent.diffuse.to_array()[3], 0.0));
    let (_, zwrite) = material(model, "TransparentWithZWrite");
    assert!(close(zwrite.edge_size, 5.0), "{}", zwrite.edge_size);
    // MASK is drawn as blending: a conversion note, not a loss.
    assert!(
        import
            .report
            .notes
            .iter()
            .any(|n| n.message.contains("MASK") && !n.lost)
    );
}

#[test]
fn vrm0_material_properties_give_edge_and_shade_toon() {
    let Some(path) = corpus_file("vrm", "godette_vrm0_cc_by.vrm") else {
        return;
    };
    let import = read_vrm(&std::fs::read(path).unwrap(), &LoadOptions::default()).unwrap();
    let model = &import.model;
    assert!(errors(model).is_empty(), "{:#?}", errors(model));
    // "Face": _Color white, _ShadeColor [0.827, 0.736, 0.85] (Unity colours, sRGB already),
    // _OutlineWidthMode 2 (screen) with _OutlineWidth 0.25 (percent) → 0.0025 × 2 m / 5 mm = 1,
    // _OutlineColor [0.792, 0.707, 0.656].
    let (face_index, face) = material(model, "Face");
    assert_eq!(face.diffuse.to_array(), [1.0; 4]);
    assert!(face.draw_flags.contains(DrawFlags::EDGE));
    assert!(close(face.edge_size, 1.0), "{}", face.edge_size);
    let edge = face.edge_color.to_array();
    assert!(
        close(edge[0], 0.792_157_1) && close(edge[2], 0.656_023_7),
        "{edge:?}"
    );
    assert!(face.texture.is_some());
    // _CullMode 2 (back) → one-sided.
    assert!(!face.draw_flags.contains(DrawFlags::DOUBLE_SIDED));
    let (top, bottom) = toon_ends(&import, face_index);
    assert_eq!(top, [255, 255, 255, 255]);
    let expected = [0.827_f32, 0.735_954_1, 0.85].map(|c| (c * 255.0).round() as u8);
    assert_eq!(
        &bottom[..3],
        &expected,
        "the shade colour is the ramp's dark end"
    );
}

#[test]
fn texture_transform_binds_become_uv_morphs() {
    let Some(path) = corpus_file("vrm", "vrmspec_expressions_isbinary_overrides_vrm1.vrm") else {
        return;
    };
    let import = read_vrm(&std::fs::read(path).unwrap(), &LoadOptions::default()).unwrap();
    let model = &import.model;
    assert!(errors(model).is_empty(), "{:#?}", errors(model));
    // happy: material 0 (base scale 0.125, offset 0) to offset [0.875, 0] → +0.875 in u;
    // material 2 (base offset 0.50098) to offset 0.00098 → −0.5 in u.
    let (_, happy) = morph(model, "笑い");
    let MorphOffsets::Uv(offsets) = &happy.offsets else {
        panic!("笑い is a UV morph: {:?}", happy.offsets.kind());
    };
    let (window_index, window) = material(model, "Validation Window");
    let (meter_index, _) = material(model, "Meter Happy");
    let vertices_of = |material: usize| {
        let start: usize = model.materials[..material]
            .iter()
            .map(|m| m.face_index_count as usize / 3)
            .sum();
        let count = model.materials[material].face_index_count as usize / 3;
        let mut set: Vec<usize> = model.faces[start..start + count]
            .iter()
            .flat_map(|f| f.iter().map(|v| v.get()))
            .collect();
        set.sort_unstable();
        set.dedup();
        set
    };
    let window_vertices = vertices_of(window_index);
    let meter_vertices = vertices_of(meter_index);
    assert!(window.texture.is_some());
    for offset in offsets {
        let v = offset.vertex.get();
        let [du, dv, ..] = offset.offset.to_array();
        if window_vertices.contains(&v) {
            assert!(close(du, 0.875) && close(dv, 0.0), "{du}, {dv}");
        } else {
            assert!(
                meter_vertices.contains(&v),
                "vertex {v} is in neither material"
            );
            assert!(close(du, -0.5) && close(dv, 0.0), "{du}, {dv}");
        }
    }
    assert_eq!(offsets.len(), window_vertices.len() + meter_vertices.len());
    // The material's own transform (scale 0.125) is baked into its UVs.
    assert!(
        window_vertices
            .iter()
            .all(|&v| model.vertices[v].uv.x <= 0.125 + 1e-6
                && model.vertices[v].uv.y <= 0.125 + 1e-6)
    );
    assert_eq!(happy.panel, MorphPanel::Other);
}

#[test]
fn colour_binds_become_material_morphs_and_mixed_expressions_groups() {
    let Some(path) = corpus_file("vrm", "s06_mtoon1_vrm1.vrm") else {
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    let (mut json, bin) = split_glb(&bytes).unwrap();
    // happy: Cutout's colour to red, Opaque's outline to white; blink: colour only;
    // surprised: colour and a texture scroll.
    json["extensions"]["VRMC_vrm"]["expressions"]["preset"]["happy"] = json!({
        "materialColorBinds": [
            { "material": 0, "type": "color", "targetValue": [1.0, 0.0, 0.0, 1.0] },
            { "material": 1, "type": "outlineColor", "targetValue": [1.0, 1.0, 1.0, 1.0] },
            { "material": 1, "type": "rimColor", "targetValue": [1.0, 1.0, 1.0, 1.0] }
        ],
        "textureTransformBinds": [
            { "material": 0, "offset": [0.5, 0.25] }
        ]
    });
    json["extensions"]["VRMC_vrm"]["expressions"]["preset"]["blink"] = json!({
        "materialColorBinds": [
            { "material": 0, "type": "color", "targetValue": [0.25, 0.0, 0.5, 0.5] },
            { "material": 99, "type": "color", "targetValue": [0.0, 0.0, 0.0, 1.0] }
        ]
    });
    let import = read_vrm(&glb(&json, bin), &LoadOptions::default()).unwrap();
    let model = &import.model;
    assert!(errors(model).is_empty(), "{:#?}", errors(model));
    for note in &import.report.notes {
        println!("note: {note}");
    }
    let (cutout_index, _) = material(model, "Cutout");
    let (opaque_index, _) = material(model, "Opaque");

    // happy has colour and UV binds: a group 笑い of 笑い_材質 and 笑い_UV.
    let (_, happy) = morph(model, "笑い");
    let MorphOffsets::Group(members) = &happy.offsets else {
        panic!("笑い is a group: {:?}", happy.offsets.kind());
    };
    assert_eq!(happy.panel, MorphPanel::Other);
    let member_names: Vec<String> = members
        .iter()
        .map(|m| {
            model.morphs[m.morph.unwrap().get()]
                .name_ja
                .as_str()
                .into_owned()
        })
        .collect();
    assert_eq!(member_names, ["笑い_材質", "笑い_UV"]);
    assert!(members.iter().all(|m| m.ratio == 1.0));
    let (_, colour) = morph(model, "笑い_材質");
    let MorphOffsets::Material(offsets) = &colour.offsets else {
        panic!("笑い_材質 is a material morph");
    };
    let cutout = offsets
        .iter()
        .find(|o| o.material.map(|m| m.get()) == Some(cutout_index))
        .unwrap();
    assert_eq!(cutout.op, MaterialMorphOp::Add);
    // Red (sRGB 1, 0, 0) minus the base colour sRGB(0.25, 0, 0.5).
    let d = cutout.diffuse.to_array();
    assert!(close(d[0], 1.0 - linear_to_srgb(0.25)), "{d:?}");
    assert!(close(d[1], 0.0) && close(d[2], -linear_to_srgb(0.5)) && close(d[3], 0.0));
    let opaque = offsets
        .iter()
        .find(|o| o.material.map(|m| m.get()) == Some(opaque_index))
        .unwrap();
    let e = opaque.edge_color.to_array();
    assert!(close(e[0], 1.0) && close(e[2], 1.0 - linear_to_srgb(0.5)) && close(e[3], 0.0));
    let (_, scroll) = morph(model, "笑い_UV");
    let MorphOffsets::Uv(uv) = &scroll.offsets else {
        panic!("笑い_UV is a UV morph");
    };
    assert!(!uv.is_empty());
    assert!(
        uv.iter()
            .all(|o| close(o.offset.x, 0.5) && close(o.offset.y, 0.25))
    );

    // blink has colour binds only: one material morph まばたき, alpha 1 → 0.5 (MASK keeps
    // alpha); the bind on a material that does not exist is a listed loss.
    let (_, blink) = morph(model, "まばたき");
    assert_eq!(blink.panel, MorphPanel::Eye);
    let MorphOffsets::Material(offsets) = &blink.offsets else {
        panic!("まばたき is a material morph");
    };
    assert_eq!(offsets.len(), 1);
    assert!(close(offsets[0].diffuse.to_array()[3], -0.5));
    assert!(close(offsets[0].diffuse.to_array()[0], 0.0));
    let notes = &import.report.notes;
    assert!(
        notes
            .iter()
            .any(|n| n.lost && n.message.contains("does not exist")),
        "{notes:#?}"
    );
    // The rim colour is a conversion limit, not damage.
    assert!(
        notes
            .iter()
            .any(|n| !n.lost && n.message.contains("rim colour")),
        "{notes:#?}"
    );
}

/// Copies the text-glTF cube and its companions into a temporary folder.
fn cube_copy(dir: &Path) -> Option<(PathBuf, Value)> {
    let source = corpus_dir("gltf")?.join("three-vrm-core-cube");
    if !source.is_dir() {
        println!("skipped: {} is absent", source.display());
        return None;
    }
    for entry in std::fs::read_dir(&source).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    let path = dir.join("cube.gltf");
    let json: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    Some((path, json))
}

#[test]
fn gltf_images_in_files_and_data_uris_are_embedded_and_a_missing_one_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    let Some((path, mut json)) = cube_copy(dir.path()) else {
        return;
    };
    let png = std::fs::read(dir.path().join("thumbnail.png")).unwrap();
    std::fs::create_dir(dir.path().join("tex")).unwrap();
    std::fs::write(dir.path().join("tex").join("my skin.png"), &png).unwrap();
    json["images"] = json!([
        { "uri": "thumbnail.png" },
        { "uri": "tex/my%20skin.png" },
        { "uri": format!("data:image/png;base64,{}", base64(&png)) },
        { "uri": "missing.png" }
    ]);
    json["textures"] = json!([{ "source": 1 }, { "source": 2 }, { "source": 3 }]);
    for (material, texture) in [(0, 0), (1, 1), (2, 2)] {
        json["materials"][material]["pbrMetallicRoughness"]["baseColorTexture"] =
            json!({ "index": texture });
    }
    // blink: its morph targets, a colour and a scroll: a group of three parts.
    json["extensions"]["VRMC_vrm"]["expressions"]["preset"]["blink"]["materialColorBinds"] =
        json!([{ "material": 1, "type": "color", "targetValue": [1.0, 0.0, 0.0, 1.0] }]);
    json["extensions"]["VRMC_vrm"]["expressions"]["preset"]["blink"]["textureTransformBinds"] =
        json!([{ "material": 0, "offset": [0.5, 0.0], "scale": [1.0, 1.0] }]);
    std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();

    let import = load_vrm_path(&path, &LoadOptions::default()).unwrap();
    let model = &import.model;
    assert!(errors(model).is_empty(), "{:#?}", errors(model));
    for note in &import.report.notes {
        println!("note: {note}");
    }
    let (_, body) = material(model, "Cube Material");
    let (_, eyes) = material(model, "Cube Material (Eyes)");
    let (_, mouth) = material(model, "Cube Material (Mouth)");
    let body_texture = body.texture.expect("a file beside the glTF is embedded");
    assert_eq!(
        model.textures[body_texture.get()].as_str(),
        "cube_tex/my skin.png",
        "under a folder named after the file"
    );
    assert_eq!(texture_bytes(&import, body_texture.get()), &png[..]);
    let eyes_texture = eyes.texture.expect("a data: URI is embedded");
    assert_eq!(texture_bytes(&import, eyes_texture.get()), &png[..]);
    assert!(
        model.textures[eyes_texture.get()]
            .as_str()
            .ends_with(".png")
    );
    assert_ne!(body_texture, eyes_texture);
    assert_eq!(mouth.texture, None, "the missing image leaves no texture");
    let missing = import
        .report
        .notes
        .iter()
        .find(|n| n.message.contains("missing.png"))
        .expect("the missing image is listed");
    assert!(missing.lost);
    // The textures write beside the PMX.
    let out = tempfile::tempdir().unwrap();
    import.write_textures(out.path()).unwrap();
    assert_eq!(
        std::fs::read(out.path().join("cube_tex").join("my skin.png")).unwrap(),
        png
    );

    let (_, blink) = morph(model, "まばたき");
    let MorphOffsets::Group(members) = &blink.offsets else {
        panic!("まばたき is a group: {:?}", blink.offsets.kind());
    };
    assert_eq!(blink.panel, MorphPanel::Eye);
    let kinds: Vec<_> = members
        .iter()
        .map(|m| model.morphs[m.morph.unwrap().get()].offsets.kind())
        .collect();
    assert_eq!(kinds.len(), 3, "{kinds:?}");
    let (_, vertex_part) = morph(model, "まばたき_頂点");
    assert!(matches!(vertex_part.offsets, MorphOffsets::Vertex(_)));
    assert_eq!(vertex_part.panel, MorphPanel::Other);
}

#[test]
fn a_bad_data_uri_or_a_glb_without_folder_is_listed_without_panic() {
    let Some(path) = corpus_file("vrm", "s06_mtoon1_vrm1.vrm") else {
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    let (mut json, bin) = split_glb(&bytes).unwrap();
    // Images 3 (Opaque's base colour) and 6 (its matcap).
    json["images"][3] = json!({ "uri": "data:image/png;base64,***" });
    json["images"][6] = json!({ "uri": "beside.png" });
    let import = read_vrm(&glb(&json, bin), &LoadOptions::default()).unwrap();
    assert!(errors(&import.model).is_empty());
    let notes = &import.report.notes;
    assert!(
        notes.iter().any(|n| n.lost && n.message.contains("base64")),
        "{notes:#?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.lost && n.message.contains("beside.png")),
        "{notes:#?}"
    );
}

#[test]
fn vrm0_material_values_become_material_and_uv_morphs() {
    let Some(path) = corpus_file("vrm", "godette_vrm0_cc_by.vrm") else {
        return;
    };
    let bytes = std::fs::read(path).unwrap();
    let (mut json, bin) = split_glb(&bytes).unwrap();
    let groups = json["extensions"]["VRM"]["blendShapeMaster"]["blendShapeGroups"]
        .as_array_mut()
        .unwrap();
    let joy = groups
        .iter_mut()
        .find(|g| g["presetName"] == "joy")
        .expect("Godette has a joy group");
    // Face: _Color white → red (Unity colours are sRGB); _MainTex [offset 0 0, scale 1 1] →
    // _MainTex_ST [scale 1 1, offset 0.5 0]: u + 0.5, and V flipped: 1 − 0 − 1 = 0 → v + 0.
    joy["materialValues"] = json!([
        { "materialName": "Face", "propertyName": "_Color", "targetValue": [1.0, 0.0, 0.0, 1.0] },
        { "materialName": "Face", "propertyName": "_MainTex_ST", "targetValue": [1.0, 1.0, 0.5, 0.0] },
        { "materialName": "Face", "propertyName": "_OutlineWidth", "targetValue": [0.0] }
    ]);
    let import = read_vrm(&glb(&json, bin), &LoadOptions::default()).unwrap();
    let model = &import.model;
    assert!(errors(model).is_empty(), "{:#?}", errors(model));
    let (face_index, _) = material(model, "Face");
    let (_, colour) = morph(model, "笑い_材質");
    let MorphOffsets::Material(offsets) = &colour.offsets else {
        panic!("笑い_材質 is a material morph");
    };
    let face = offsets
        .iter()
        .find(|o| o.material.map(|m| m.get()) == Some(face_index))
        .unwrap();
    let d = face.diffuse.to_array();
    assert!(close(d[0], 0.0) && close(d[1], -1.0) && close(d[2], -1.0) && close(d[3], 0.0));
    let (_, scroll) = morph(model, "笑い_UV");
    let MorphOffsets::Uv(uv) = &scroll.offsets else {
        panic!("笑い_UV is a UV morph");
    };
    assert!(!uv.is_empty());
    assert!(
        uv.iter()
            .all(|o| close(o.offset.x, 0.5) && close(o.offset.y, 0.0))
    );
    // 笑い is the group of its parts (its blend shape binds, the colour and the UV scroll).
    let (_, joy) = morph(model, "笑い");
    assert!(matches!(joy.offsets, MorphOffsets::Group(_)));
    // The width has no PMX morph: a conversion note, not a loss.
    assert!(
        import
            .report
            .notes
            .iter()
            .any(|n| !n.lost && n.message.contains("0.x properties"))
    );
}

fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
    pmx_tests::glb(json, bin)
}

fn errors(model: &Model) -> Vec<String> {
    pmx_tests::validation_errors(model)
}
