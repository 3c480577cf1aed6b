//! Times reading a file in recovery mode and each validator rule on what was read.
//!
//! `cargo run --release -p pmx_core --example recover_profile -- FILE`

use pmx_core::formats::{self, LoadOptions};
use pmx_core::validate::{CheckOptions, Context, Registry};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::path::PathBuf::from(std::env::args().nth(1).ok_or("usage: FILE")?);
    let start = Instant::now();
    let loaded = formats::load_path(
        &path,
        &LoadOptions {
            recover: true,
            ..LoadOptions::default()
        },
    )?;
    let m = &loaded.model;
    println!(
        "read {:.1} ms: {} vertices, {} faces, {} materials, {} bones, {} morphs, {} frames, {} bodies, {} joints, {} notes",
        start.elapsed().as_secs_f64() * 1e3,
        m.vertices.len(),
        m.faces.len(),
        m.materials.len(),
        m.bones.len(),
        m.morphs.len(),
        m.display_frames.len(),
        m.rigid_bodies.len(),
        m.joints.len(),
        loaded.report.notes.len()
    );
    let options = CheckOptions::for_file(&path);
    let cx = Context::new(m, Some(&loaded.report), &options);
    for rule in Registry::standard().rules() {
        let start = Instant::now();
        let mut out = Vec::new();
        rule.check(&cx, &mut out);
        println!(
            "{:28} {:9.1} ms  {} issues",
            rule.name(),
            start.elapsed().as_secs_f64() * 1e3,
            out.len()
        );
    }
    Ok(())
}
