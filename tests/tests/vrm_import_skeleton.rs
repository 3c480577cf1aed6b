#![allow(clippy::expect_used, clippy::unwrap_used)]
use pmx_core::LoadOptions;
use pmx_core::formats::vrm::read_vrm;
use pmx_tests::corpus_dir;

#[test]
fn dump() {
    let Some(dir) = corpus_dir("vrm") else { return };
    for file in ["s06_example_vrm1_skinned.vrm", "godette_vrm0_cc_by.vrm", "s06_minimal_vrm0.vrm"] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let imported = read_vrm(&bytes, &LoadOptions::default()).unwrap();
        let m = &imported.model;
        println!("== {file}");
        for (i, b) in m.bones.iter().enumerate() {
            let p = b.parent.map(|p| m.bones[p.get()].name_ja.as_str().into_owned()).unwrap_or_default();
            println!("{i} {} <- {p} flags={:?} tail={:?}/{:?} pos={:?}", b.name_ja, b.flags, b.tail_bone, b.tail_offset, b.position);
        }
        for f in &m.display_frames { println!("frame {} {}", f.name_ja, f.items.len()); }
        for n in &imported.report.notes { println!("note {n}"); }
    }
}
