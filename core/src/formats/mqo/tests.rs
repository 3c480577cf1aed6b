// Tests: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use super::*;
use std::path::PathBuf;

fn corpus() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/mqo");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipped: corpus folder {} is absent", dir.display());
        None
    }
}

#[test]
fn explore() {
    let Some(dir) = corpus() else { return };
    for name in [
        "wanwan_cube_ver10_nomaterial.mqo",
        "wanwan_includexml_cube.mqo",
        "wanwan_hachune_miku01_ver10.mqo",
        "tamachan_shrinkwrap_cp932_ver11.mqo",
        "binzume_autocsg_ver11_vertexattr.mqo",
        "anatawa12_simple_bone/test.mqo",
        "wanwan_trialnoise_chunk.mqo",
    ] {
        let result = load_mqo_path(&dir.join(name), &MqoImportOptions::default());
        match result {
            Err(e) => println!("{name}: ERROR {e}"),
            Ok(imp) => {
                let m = &imp.model;
                let mut lo = [f32::MAX; 3];
                let mut hi = [f32::MIN; 3];
                for v in &m.vertices {
                    for a in 0..3 {
                        lo[a] = lo[a].min(v.position.to_array()[a]);
                        hi[a] = hi[a].max(v.position.to_array()[a]);
                    }
                }
                println!(
                    "{name}: v {} f {} mat {} bones {} morphs {} tex {} bbox {:?} {:?}",
                    m.vertices.len(),
                    m.faces.len(),
                    m.materials.len(),
                    m.bones.len(),
                    m.morphs.len(),
                    m.textures.len(),
                    lo,
                    hi
                );
                for mat in &m.materials {
                    println!("   mat {} count {}", mat.name_ja, mat.face_index_count);
                }
                for b in &m.bones {
                    println!(
                        "   bone {} {:?} parent {:?}",
                        b.name_ja, b.position, b.parent
                    );
                }
                for n in &imp.report.notes {
                    println!("   note: {}", n.message_en());
                }
                let issues =
                    crate::validate::check(m, None, &crate::validate::CheckOptions::default());
                for i in issues
                    .iter()
                    .filter(|i| i.severity >= crate::validate::Severity::Warning)
                {
                    println!("   issue: {i}");
                }
            }
        }
    }
}
