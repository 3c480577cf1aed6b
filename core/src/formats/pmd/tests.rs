//! Unit tests of the conversion helpers (the file-level tests are in `tests/tests/pmd_*.rs`).

use super::to_model::{
    is_sphere_name, propagate_layers, sphere_mode_of, split_texture_field, standard_toon_number,
};
use super::*;
use crate::formats::error::LoadOptions;
use crate::model::{BoneIdx, SphereMode};

#[test]
fn texture_fields_split_into_texture_and_sphere() {
    let cases = [
        ("tex.bmp*sphere.sph", (Some("tex.bmp"), Some("sphere.sph"))),
        ("tex.bmp*sphere.spa", (Some("tex.bmp"), Some("sphere.spa"))),
        ("*sphere.sph", (None, Some("sphere.sph"))),
        ("sphere.SPH", (None, Some("sphere.SPH"))),
        ("tex/hair2.png", (Some("tex/hair2.png"), None)),
        // MMD 5.11's "texture/sphere" form, and a sphere in a folder.
        ("tex.bmp/sphere.sph", (Some("tex.bmp"), Some("sphere.sph"))),
        ("spheres/metal.sph", (None, Some("spheres/metal.sph"))),
        ("", (None, None)),
    ];
    for (field, expected) in cases {
        assert_eq!(split_texture_field(field), expected, "{field}");
    }
    assert!(is_sphere_name("a.spa") && !is_sphere_name("a.bmp"));
    assert_eq!(sphere_mode_of("a.SPA"), SphereMode::Add);
    assert_eq!(sphere_mode_of("a.sph"), SphereMode::Multiply);
}

#[test]
fn standard_toon_names() {
    assert_eq!(standard_toon_number("toon01.bmp"), Some(0));
    assert_eq!(standard_toon_number("Toon10.BMP"), Some(9));
    assert_eq!(standard_toon_number("toon00.bmp"), None);
    assert_eq!(standard_toon_number("toon11.bmp"), None);
    assert_eq!(standard_toon_number("toon1.bmp"), None);
    assert_eq!(standard_toon_number("mytoon01.bmp"), None);
    assert_eq!(default_toon_names()[9].as_bytes(), b"toon10.bmp");
}

#[test]
fn layers_propagate_down_chains_and_stop_at_cycles() {
    let bone = |i: usize| Some(BoneIdx::new(i));
    // 0 root; 1 under 2 (IK, later index); 3 under 1; 4 and 5 parent each other; 6 dangling.
    let parents = [None, bone(2), bone(0), bone(1), bone(5), bone(4), bone(99)];
    let base = [0, 0, 1, 0, 2, 0, 0];
    assert_eq!(propagate_layers(&parents, &base), [0, 1, 1, 1, 2, 2, 0]);
}

#[test]
fn fixed_text_stops_at_the_first_nul_and_keeps_other_padding() {
    let fd = FixedText::from_field(b"abc\0\xFD\xFD");
    assert_eq!(
        (fd.as_bytes(), fd.padding.as_slice()),
        (&b"abc"[..], &b""[..])
    );
    let full = FixedText::from_field(b"full");
    assert_eq!(
        (full.as_bytes(), full.padding.as_slice()),
        (&b"full"[..], &b""[..])
    );
    let zeros = FixedText::from_field(b"ab\0\0\0");
    assert_eq!(
        (zeros.as_bytes(), zeros.padding.as_slice()),
        (&b"ab"[..], &b"\0\0\0"[..])
    );
    let leftover = FixedText::from_field(b"\0abc");
    assert_eq!(leftover.as_bytes(), b"");
    assert_eq!(leftover.padding, b"\0abc");
    // Kept padding is used only while it completes the field after the text.
    assert_eq!(zeros.padding_for(5), Some(&b"\0\0\0"[..]));
    assert_eq!(zeros.padding_for(6), None);
    let edited = FixedText {
        bytes: b"abcd".to_vec(),
        ..zeros
    };
    assert_eq!(edited.padding_for(5), None);
    assert_eq!(format!("{:?}", FixedText::from("センター")), "\"センター\"");
}

#[test]
fn bone_kinds_round_trip_their_byte() {
    for raw in 0..=u8::MAX {
        assert_eq!(BoneKind::from_raw(raw).to_raw(), raw);
    }
}

#[test]
fn an_empty_model_writes_a_minimal_pmd() {
    let model = crate::model::Model::new_empty();
    let (bytes, report) = write(&model).unwrap_or_default();
    assert!(report.is_empty(), "{:?}", report.losses);
    // Header, 9 empty sections, the English flag and names, the toon list, 0 bodies, 0 joints.
    assert_eq!(
        bytes.len(),
        283 + 4 + 4 + 4 + 2 + 2 + 2 + 1 + 1 + 4 + 1 + 276 + 1000 + 4 + 4
    );
    let (back, _) = read(&bytes, &LoadOptions::default()).unwrap_or_default();
    assert_eq!(back.display_frames.len(), 2);
    assert!(back.bones.is_empty());
}
