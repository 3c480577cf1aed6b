//! PMXUtil 0.9's side of the `vs_pmxutil` benchmark (`app/benches/vs_pmxutil.rs`), in a crate
//! of its own.
//!
//! Why apart: PMXUtil's reader is generic over its input, so it is compiled in the crate that
//! calls it. Inside the benchmark's crate, unrelated changes (a dependency added to
//! `pmx_studio`, a line of the benchmark) flipped LLVM's inlining of `BufReader::read_exact`
//! and made PMXUtil 1.45x slower or faster from one build to the next. Here its code changes
//! only when this file does.

// A benchmark's peer: a failure is a bug to see at once, not input to handle.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)]

/// Does one job with PMXUtil: `info FILE` (parse every section, print the counts) or
/// `convert IN OUT` (parse, then write it all back with PMXUtil's writer).
pub fn run(args: &[String]) {
    use PMXUtil::reader::ModelInfoStage;
    // The whole file in memory first, then PMXUtil's reader over the bytes: its quickest way
    // in. Through its own `open` (a `BufReader` over the file) it was 1.0x to 1.45x slower,
    // with LLVM's inlining of `BufReader::read_exact` deciding which from build to build.
    let bytes = std::fs::read(&args[1]).expect("the file reads");
    let stages = ModelInfoStage::from_reader(bytes.as_slice()).expect("PMXUtil opens the file");
    let header = stages.get_header();
    let (info, stage) = stages.read();
    let (vertices, stage) = stage.read();
    let (faces, stage) = stage.read();
    let (textures, stage) = stage.read();
    let (materials, stage) = stage.read();
    let (bones, stage) = stage.read();
    let (morphs, stage) = stage.read();
    let (frames, stage) = stage.read();
    let (rigid_bodies, stage) = stage.read();
    let (joints, soft_stage) = stage.read();
    let soft_bodies = soft_stage.map(|stage| stage.read()).unwrap_or_default();
    match args[0].as_str() {
        "info" => println!(
            "{} vertices, {} faces, {} bones, {} morphs, {} rigid bodies, {} joints",
            vertices.len(),
            faces.len(),
            bones.len(),
            morphs.len(),
            rigid_bodies.len(),
            joints.len()
        ),
        "convert" => {
            use PMXUtil::types::Encode;
            let mut writer =
                PMXUtil::writer::Writer::begin_writer(matches!(header.encode, Encode::Utf16Le));
            writer.set_model_info(&info);
            writer
                .set_additional_uv(header.additional_uv)
                .expect("0 to 4 additional UVs");
            writer.add_vertices(&vertices);
            writer.add_faces(&faces);
            writer.add_textures(&textures);
            writer.add_materials(&materials);
            writer.add_bones(&bones);
            writer.add_morphs(&morphs);
            writer.add_frames(&frames);
            writer.add_rigid_bodies(&rigid_bodies);
            writer.add_joints(&joints);
            writer.add_soft_bodies(&soft_bodies);
            writer
                .write_to_path(&args[2])
                .expect("PMXUtil writes the file");
        }
        other => panic!("unknown peer job {other}"),
    }
}
