//! Whole processes on the issues' big file, against PMXUtil 0.9 (the fastest correct Rust PMX
//! crate) in the same run: `pmx-studio info --json` vs PMXUtil parsing every section, and
//! `pmx-studio convert --index-sizes keep` vs PMXUtil reading and writing the file back. Wall
//! time (median of the runs) and peak resident memory (`ru_maxrss` of the child) of each.
//!
//! `cargo bench -p pmx_studio --bench vs_pmxutil` (`PMX_BENCH_RUNS=N`, default 5;
//! `PMX_BENCH_FILE=PATH` keeps the generated file there between runs instead of a temporary
//! folder).
//!
//! The file is the 1,000,000-vertex benchmark model as PMX 2.0, UTF-16, with one additional UV
//! (`pmx_core::generate::big_file_model`): 253 MB, 800 bones, 300 morphs with 10.4M offsets.
//!
//! The same binary is PMXUtil's side: run as `vs_pmxutil --peer info FILE` or
//! `--peer convert IN OUT` it does that one job with PMXUtil and exits, so both tools are timed
//! as whole processes started the same way.

// A benchmark: a failure here is a bug to see at once, not input to handle.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::formats::pmx;
use pmx_core::generate::big_file_model;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--peer") {
        peer(&args[1..]);
        return;
    }
    if args.first().map(String::as_str) == Some("--generate") {
        write_benchmark_file(Path::new(&args[1]));
        return;
    }
    // `cargo test --benches` runs benchmarks once as a smoke test; this one takes minutes.
    if !args.iter().any(|arg| arg == "--bench") {
        println!("vs_pmxutil: run with `cargo bench` (takes a few minutes)");
        return;
    }
    let runs: usize = std::env::var("PMX_BENCH_RUNS")
        .ok()
        .and_then(|runs| runs.parse().ok())
        .unwrap_or(5);
    let temp = tempfile::tempdir().expect("a temporary folder");
    let file = std::env::var_os("PMX_BENCH_FILE")
        .map(PathBuf::from)
        .unwrap_or_else(|| temp.path().join("million.pmx"));
    let me = std::env::current_exe().expect("this benchmark's path");
    if !file.exists() {
        // In a process of its own: a child's peak memory counts the memory of the process it
        // was started from, so this one stays small.
        let status = Command::new(&me)
            .arg("--generate")
            .arg(&file)
            .status()
            .expect("the generator starts");
        assert!(status.success(), "the benchmark file is written");
    }
    let size = std::fs::metadata(&file).expect("the file").len();
    println!("file: {} ({:.1} MB)", file.display(), size as f64 / 1e6);

    let studio = env!("CARGO_BIN_EXE_pmx-studio");
    let out_studio = temp.path().join("studio.pmx");
    let out_peer = temp.path().join("pmxutil.pmx");
    let file_arg = file.to_str().expect("a UTF-8 path");
    let jobs: [(&str, Vec<String>); 4] = [
        (
            "pmx-studio info --json",
            argv(&[studio, "info", "--json", file_arg]),
        ),
        (
            "PMXUtil parse",
            argv(&[me.to_str().unwrap(), "--peer", "info", file_arg]),
        ),
        (
            "pmx-studio convert --index-sizes keep",
            argv(&[
                studio,
                "convert",
                "--index-sizes",
                "keep",
                file_arg,
                out_studio.to_str().unwrap(),
            ]),
        ),
        (
            "PMXUtil read + write",
            argv(&[
                me.to_str().unwrap(),
                "--peer",
                "convert",
                file_arg,
                out_peer.to_str().unwrap(),
            ]),
        ),
    ];
    let mut results: Vec<Vec<(Duration, u64)>> = vec![Vec::new(); jobs.len()];
    // Interleaved, so that anything else the machine does touches every tool alike.
    for _ in 0..runs {
        for (job, result) in jobs.iter().zip(&mut results) {
            result.push(run(&job.1));
        }
    }
    assert_eq!(
        std::fs::read(&out_studio).expect("pmx-studio's output"),
        std::fs::read(&file).expect("the input"),
        "pmx-studio's convert --index-sizes keep gives the file back byte for byte"
    );
    println!(
        "{:<40} {:>9} {:>9} {:>9} {:>11} {:>9}",
        "", "median", "fastest", "slowest", "peak RSS", "× file"
    );
    let mut medians = Vec::new();
    for ((name, _), result) in jobs.iter().zip(&results) {
        let mut times: Vec<Duration> = result.iter().map(|(time, _)| *time).collect();
        times.sort();
        let peak = result.iter().map(|(_, rss)| *rss).max().unwrap_or(0);
        let median = times[times.len() / 2];
        medians.push(median);
        println!(
            "{name:<40} {:>8.3}s {:>8.3}s {:>8.3}s {:>8.0} MB {:>8.2}×",
            median.as_secs_f64(),
            times[0].as_secs_f64(),
            times[times.len() - 1].as_secs_f64(),
            peak as f64 / 1e6,
            peak as f64 / size as f64
        );
    }
    println!(
        "info: pmx-studio is {:.2}× as fast as PMXUtil; convert: {:.2}×",
        medians[1].as_secs_f64() / medians[0].as_secs_f64(),
        medians[3].as_secs_f64() / medians[2].as_secs_f64()
    );
}

fn argv(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|part| (*part).to_owned()).collect()
}

/// The file: `pmx_core::generate::big_file_model` written as it is.
fn write_benchmark_file(path: &Path) {
    let model = big_file_model();
    let (bytes, _) = pmx::write(&model, &Default::default()).expect("the model writes");
    std::fs::write(path, bytes).expect("the benchmark file is written");
}

/// Runs a command to its end: wall time and the child's peak resident memory in bytes.
// The child is waited for by `wait4` (which also gives its peak memory), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn run(argv: &[String]) -> (Duration, u64) {
    let started = Instant::now();
    let child = Command::new(&argv[0])
        .args(&argv[1..])
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("the command starts");
    let (status, max_rss) = wait_with_rusage(child.id());
    let elapsed = started.elapsed();
    assert!(status == 0, "{argv:?} failed with status {status}");
    (elapsed, max_rss)
}

/// `wait4`: the exit status and the child's `ru_maxrss` (KiB on Linux).
#[allow(unsafe_code)]
fn wait_with_rusage(pid: u32) -> (i32, u64) {
    let mut status = 0;
    // SAFETY: rusage is plain data that wait4 fills in; pid is our own child's.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers to locals, a child of this process.
    let waited = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert!(waited == pid as libc::pid_t, "wait4 failed");
    (status, usage.ru_maxrss as u64 * 1024)
}

/// PMXUtil's side of a job.
fn peer(args: &[String]) {
    use PMXUtil::reader::ModelInfoStage;
    let stages = ModelInfoStage::open(&args[1]).expect("PMXUtil opens the file");
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
