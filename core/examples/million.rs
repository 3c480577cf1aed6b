//! Writes the benchmark model of the issues (1,000,000 vertices, 2,000,000 triangles, 800 bones,
//! 300 morphs, physics) to a file, to open in the editor and time it. With `--tube`, its faces
//! are laid out as a tube of small triangles ([`pmx_core::generate::lay_out_as_tube`]), as in a
//! real model; without it each triangle spans the model, which a software rasterizer draws for
//! minutes.
//!
//! `cargo run --release -p pmx_core --example million -- OUT.pmx [--tube]`

use pmx_core::formats::{SaveOptions, save_path};
use pmx_core::generate::{LargeModelSpec, large_model, lay_out_as_tube};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: million OUT.pmx [--tube]")?;
    let mut model = large_model(&LargeModelSpec::million());
    if args.any(|a| a == "--tube") {
        lay_out_as_tube(&mut model, 1000);
    }
    save_path(&model, std::path::Path::new(&path), &SaveOptions::default())?;
    println!(
        "{path}: {} vertices, {} faces",
        model.vertices.len(),
        model.faces.len()
    );
    Ok(())
}
