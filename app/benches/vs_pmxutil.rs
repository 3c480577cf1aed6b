//! Whole processes on the issues' big file, against PMXUtil 0.9 (the fastest correct Rust PMX
//! crate) in the same run: `pmx-studio info --json` vs PMXUtil parsing every section, and
//! `pmx-studio convert --index-sizes keep` vs PMXUtil reading and writing the file back. Wall
//! time (median of the runs) and peak resident memory (`ru_maxrss` of the child) of each. The
//! convert ratio is also given paired run by run (the median of each run's PMXUtil time over
//! pmx-studio's), which a machine that changes speed during the runs moves less.
//!
//! `cargo bench -p pmx_studio --bench vs_pmxutil` (`PMX_BENCH_RUNS=N`, default 5;
//! `PMX_BENCH_FILE=PATH` keeps the generated file there between runs instead of a temporary
//! folder).
//!
//! The first file is the 1,000,000-vertex benchmark model as PMX 2.0, UTF-16, with one
//! additional UV (`pmx_core::generate::big_file_model`): 253 MB, 800 bones, 300 morphs with
//! 10.4M offsets; its lines come first, as they always did. Then the other layouts a real model
//! has ([`LAYOUTS`]: UTF-8 with 4 additional UVs, a 60,000-vertex model with 2-byte vertex
//! indices, QDEF and SDEF weights, 1-byte bone indices), each timed the same way, and a table
//! of the ratios. `PMX_BENCH_LAYOUTS=big,qdef-sdef` times only those. Where PMXUtil cannot read
//! a layout the output says so and only pmx-studio is timed.
//!
//! Each layout also times a floor (`vs_pmxutil --floor IN OUT`, [`floor`]): the file copied
//! as a convert must at the least, read into fresh memory, copied once more, written to a
//! temporary file, synced and renamed over the output, with nothing parsed, on one thread.
//! On a small file, PMXUtil's time over the floor's ("floor paired") is about the most that
//! any convert saving the way pmx-studio does (atomically, synced) can be ahead of PMXUtil on
//! this machine; a big file's convert on several threads can beat the floor.
//!
//! The same binary is PMXUtil's side: run as `vs_pmxutil --peer info FILE` or
//! `--peer convert IN OUT` it does that one job with PMXUtil (`pmxutil_peer`, a crate of its
//! own so that PMXUtil's code does not change with this file's) and exits, so both tools are
//! timed as whole processes started the same way.

// A benchmark: a failure here is a bug to see at once, not input to handle.
#![allow(clippy::expect_used, clippy::unwrap_used)]

// pmx-studio's allocator, compiled in here too: the floor's buffers take the memory
// pmx-studio's big lists take (PMXUtil's side keeps the system allocator, this binary's global
// one). Its unit tests' helpers come along without the tests, which run in the program's.
#[path = "../src/huge_pages.rs"]
#[allow(dead_code, unused_imports)]
mod huge_pages;

use pmx_core::formats::pmx;
use pmx_core::generate::{LargeModelSpec, big_file_model, large_model};
use pmx_core::model::{BoneIdx, Model, PmxVersion, TextEncoding, Vec3, Weight};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--peer") {
        peer(&args[1..]);
        return;
    }
    if args.first().map(String::as_str) == Some("--floor") {
        floor(&args[1..]);
        return;
    }
    if args.first().map(String::as_str) == Some("--generate") {
        let layout = args.get(2).map_or("big", String::as_str);
        write_benchmark_file(Path::new(&args[1]), layout);
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
    let chosen: Option<Vec<String>> = std::env::var("PMX_BENCH_LAYOUTS")
        .ok()
        .map(|names| names.split(',').map(str::to_owned).collect());
    let temp = tempfile::tempdir().expect("a temporary folder");
    let file = std::env::var_os("PMX_BENCH_FILE")
        .map(PathBuf::from)
        .unwrap_or_else(|| temp.path().join("million.pmx"));
    let mut ratios = Vec::new();
    for layout in LAYOUTS {
        if chosen
            .as_ref()
            .is_some_and(|names| !names.iter().any(|name| name == layout.name))
        {
            continue;
        }
        // The other layouts' files sit beside the big one (kept between runs with it).
        let path = if layout.name == "big" {
            file.clone()
        } else {
            let stem = file
                .file_stem()
                .and_then(|stem| stem.to_str())
                .unwrap_or("bench");
            file.with_file_name(format!("{stem}-{}.pmx", layout.name))
        };
        if let Some(ratio) = bench_layout(layout, &path, temp.path(), runs) {
            ratios.push((layout.name, ratio));
        }
    }
    if ratios.len() > 1 {
        println!(
            "\nlayout                      info ×PMXUtil  convert ×PMXUtil  convert paired  floor paired"
        );
        for (name, ratio) in &ratios {
            let show = |ratio: Option<f64>| {
                ratio.map_or_else(|| "PMXUtil fails".to_owned(), |r| format!("{r:.2}×"))
            };
            println!(
                "{name:<28} {:>14} {:>17} {:>15} {:>13}",
                show(ratio.info),
                show(ratio.convert),
                show(ratio.convert_paired),
                show(ratio.ceiling)
            );
        }
    }
}

/// A file layout the benchmark times: its name (for `PMX_BENCH_LAYOUTS`), what it is, and
/// the model written as it is.
struct Layout {
    name: &'static str,
    what: &'static str,
    model: fn() -> Model,
}

const LAYOUTS: &[Layout] = &[
    Layout {
        name: "big",
        what: "PMX 2.0, UTF-16, 1 additional UV, 1,000,000 vertices, 10.4M morph offsets",
        model: big_file_model,
    },
    Layout {
        name: "utf8-4uv-bdef4",
        what: "PMX 2.0, UTF-8, 4 additional UVs, every weight BDEF4, 500,000 vertices",
        model: utf8_four_uvs_bdef4,
    },
    Layout {
        name: "60k-vertex-index-2",
        what: "PMX 2.0, UTF-16, 60,000 vertices (2-byte vertex indices), a typical model",
        model: sixty_thousand_vertices,
    },
    Layout {
        name: "qdef-sdef",
        what: "PMX 2.1, UTF-16, half QDEF half SDEF weights, 500,000 vertices",
        model: qdef_sdef,
    },
    Layout {
        name: "bone-index-1",
        what: "PMX 2.0, UTF-16, 100 bones (1-byte bone indices), 500,000 vertices",
        model: one_byte_bones,
    },
];

fn utf8_four_uvs_bdef4() -> Model {
    let mut model = large_model(&LargeModelSpec {
        vertices: 500_000,
        faces: 1_000_000,
        additional_uvs: 4,
        version: PmxVersion::V2_0,
        ..LargeModelSpec::million()
    });
    model.header.encoding = TextEncoding::Utf8;
    let bones = model.bones.len();
    for (i, vertex) in model.vertices.iter_mut().enumerate() {
        vertex.weight = Weight::Bdef4 {
            bones: [0, 1, 2, 3].map(|k| Some(BoneIdx::new((i * 7 + k * 13) % bones))),
            weights: [0.4, 0.3, 0.2, 0.1],
        };
    }
    model
}

fn sixty_thousand_vertices() -> Model {
    large_model(&LargeModelSpec {
        vertices: 60_000,
        faces: 110_000,
        bones: 500,
        morphs: 120,
        additional_uvs: 0,
        version: PmxVersion::V2_0,
        ..LargeModelSpec::million()
    })
}

fn qdef_sdef() -> Model {
    let mut model = large_model(&LargeModelSpec {
        vertices: 500_000,
        faces: 1_000_000,
        version: PmxVersion::V2_1,
        ..LargeModelSpec::million()
    });
    let bones = model.bones.len();
    for (i, vertex) in model.vertices.iter_mut().enumerate() {
        let bone = |k: usize| Some(BoneIdx::new((i * 5 + k * 11) % bones));
        vertex.weight = if i % 2 == 0 {
            Weight::Qdef {
                bones: [bone(0), bone(1), bone(2), bone(3)],
                weights: [0.25; 4],
            }
        } else {
            Weight::Sdef {
                bones: [bone(0), bone(1)],
                weight: 0.5,
                c: Vec3::new(0.1, 0.2, 0.3),
                r0: Vec3::new(0.0, 1.0, 0.0),
                r1: Vec3::new(0.0, -1.0, 0.0),
            }
        };
    }
    model
}

fn one_byte_bones() -> Model {
    large_model(&LargeModelSpec {
        vertices: 500_000,
        faces: 1_000_000,
        bones: 100,
        morphs: 100,
        rigid_bodies: 100,
        joints: 100,
        version: PmxVersion::V2_0,
        ..LargeModelSpec::million()
    })
}

/// Times `info` and `convert` against PMXUtil on the file of `layout` at `file` (written
/// first where it is not there), prints the table, and gives the ratios (PMXUtil's time over
/// pmx-studio's; `None` where PMXUtil cannot read the file).
fn bench_layout(layout: &Layout, file: &Path, temp: &Path, runs: usize) -> Option<Ratios> {
    let me = std::env::current_exe().expect("this benchmark's path");
    if !file.exists() {
        // In a process of its own: a child's peak memory counts the memory of the process it
        // was started from, so this one stays small.
        let status = Command::new(&me)
            .arg("--generate")
            .arg(file)
            .arg(layout.name)
            .status()
            .expect("the generator starts");
        assert!(status.success(), "the benchmark file is written");
    }
    let size = std::fs::metadata(file).expect("the file").len();
    if layout.name == "big" {
        println!("file: {} ({:.1} MB)", file.display(), size as f64 / 1e6);
    } else {
        println!(
            "\nlayout {}: {} ({:.1} MB, {})",
            layout.name,
            file.display(),
            size as f64 / 1e6,
            layout.what
        );
    }

    let studio = env!("CARGO_BIN_EXE_pmx-studio");
    // Beside the input: an output in another folder has its texture paths rewritten to
    // reach the images from there, and is then not the input byte for byte.
    let out_dir = file.parent().unwrap_or(temp);
    let out_studio = out_dir.join(format!(".vs_pmxutil-studio-{}.pmx", layout.name));
    let out_peer = out_dir.join(format!(".vs_pmxutil-pmxutil-{}.pmx", layout.name));
    let out_floor = out_dir.join(format!(".vs_pmxutil-floor-{}.pmx", layout.name));
    let file_arg = file.to_str().expect("a UTF-8 path");
    let peer_info = argv(&[me.to_str().unwrap(), "--peer", "info", file_arg]);
    let peer_convert = argv(&[
        me.to_str().unwrap(),
        "--peer",
        "convert",
        file_arg,
        out_peer.to_str().unwrap(),
    ]);
    // PMXUtil does not read every layout (it panics on some): tried once, quietly.
    let peer_reads = Command::new(&peer_info[0])
        .args(&peer_info[1..])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !peer_reads {
        println!("PMXUtil cannot read this layout: only pmx-studio is timed");
    }
    let mut jobs: Vec<(&str, Vec<String>)> = vec![(
        "pmx-studio info --json",
        argv(&[studio, "info", "--json", file_arg]),
    )];
    if peer_reads {
        jobs.push(("PMXUtil parse", peer_info));
    }
    jobs.push((
        "pmx-studio convert --index-sizes keep",
        argv(&[
            studio,
            "convert",
            "--index-sizes",
            "keep",
            file_arg,
            out_studio.to_str().unwrap(),
        ]),
    ));
    if peer_reads {
        jobs.push(("PMXUtil read + write", peer_convert));
    }
    let floor_job = jobs.len();
    jobs.push((
        "floor: copy + sync + rename, no parsing",
        argv(&[
            me.to_str().unwrap(),
            "--floor",
            file_arg,
            out_floor.to_str().unwrap(),
        ]),
    ));
    let mut results: Vec<Vec<(Duration, u64)>> = vec![Vec::new(); jobs.len()];
    // Interleaved, so that anything else the machine does touches every tool alike.
    for _ in 0..runs {
        for (job, result) in jobs.iter().zip(&mut results) {
            result.push(run(&job.1));
        }
    }
    let same = same_bytes(&out_studio, file);
    for output in [&out_studio, &out_peer, &out_floor] {
        let _ = std::fs::remove_file(output);
    }
    assert!(
        same,
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
    if !peer_reads {
        return Some(Ratios {
            info: None,
            convert: None,
            convert_paired: None,
            ceiling: None,
        });
    }
    let info = medians[1].as_secs_f64() / medians[0].as_secs_f64();
    let convert = medians[3].as_secs_f64() / medians[2].as_secs_f64();
    let paired = paired_ratio(&results[3], &results[2]);
    // On a small file no convert that saves as pmx-studio does (a temporary file, synced,
    // renamed over the output) can be much further ahead of PMXUtil than the floor is.
    let ceiling = paired_ratio(&results[3], &results[floor_job]);
    println!(
        "{}: a convert that parses nothing would be {ceiling:.2}× as fast as PMXUtil (paired)",
        layout.name
    );
    if layout.name == "big" {
        println!(
            "info: pmx-studio is {info:.2}× as fast as PMXUtil; convert: {convert:.2}× \
             (paired: {paired:.2}×)"
        );
    } else {
        println!(
            "{}: info: pmx-studio is {info:.2}× as fast as PMXUtil; convert: {convert:.2}× \
             (paired: {paired:.2}×)",
            layout.name
        );
    }
    Some(Ratios {
        info: Some(info),
        convert: Some(convert),
        convert_paired: Some(paired),
        ceiling: Some(ceiling),
    })
}

/// The median over the runs of `slower`'s time over `faster`'s in the same run: the two ran
/// one after the other, so a stretch when the machine was slower for both cancels out (the
/// ratio of the two medians can pair one tool's quiet run with the other's noisy one).
fn paired_ratio(slower: &[(Duration, u64)], faster: &[(Duration, u64)]) -> f64 {
    let mut ratios: Vec<f64> = slower
        .iter()
        .zip(faster)
        .map(|((slow, _), (fast, _))| slow.as_secs_f64() / fast.as_secs_f64())
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

/// PMXUtil's times over pmx-studio's for one layout (`None` where PMXUtil cannot read it):
/// `info` and `convert` as ratios of the medians, and `convert` paired run by run.
#[derive(Clone, Copy)]
struct Ratios {
    info: Option<f64>,
    convert: Option<f64>,
    convert_paired: Option<f64>,
    /// PMXUtil's convert over the floor's ([`floor`]), paired: on a small file, about the
    /// most any convert that saves atomically and synced can be.
    ceiling: Option<f64>,
}

fn argv(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|part| (*part).to_owned()).collect()
}

/// The file of the layout named `layout`, its model written as it is.
fn write_benchmark_file(path: &Path, layout: &str) {
    let layout = LAYOUTS
        .iter()
        .find(|known| known.name == layout)
        .expect("a known layout");
    let model = (layout.model)();
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

/// What a convert of the file `args[0]` into `args[1]` costs at the least on this machine
/// when it works on one thread, whatever its reader and writer: the file read whole into fresh
/// memory, copied once into more fresh memory (a model's worth), written to a temporary file
/// beside the output, synced and renamed over it, as pmx-studio saves; both buffers on huge
/// pages, as pmx-studio's big lists are. Nothing is parsed or checked: on a small file
/// PMXUtil's time over this one is about the most any convert that saves that way can be ahead
/// of PMXUtil; on a big one a convert that reads and writes on several threads can beat it.
fn floor(args: &[String]) {
    use std::io::{Read as _, Write as _};
    let mut input = std::fs::File::open(&args[0]).expect("the file opens");
    let len = usize::try_from(input.metadata().expect("its size").len()).expect("a size");
    let mut read = HugeBuffer::new(len);
    input.read_exact(read.bytes()).expect("the file reads");
    let mut copy = HugeBuffer::new(len);
    copy.bytes().copy_from_slice(read.bytes());
    let output = Path::new(&args[1]);
    let temp = output.with_extension("floor-tmp");
    let mut file = std::fs::File::create(&temp).expect("the temporary file");
    // 8 MB at a time, each started on its way to the disk at once, as pmx-studio's saves do:
    // the sync then waits only for the last piece.
    let mut at = 0;
    for piece in copy.bytes().chunks(8 << 20) {
        file.write_all(piece).expect("written");
        // SAFETY: integer arguments and the open file's descriptor.
        #[allow(unsafe_code)]
        unsafe {
            libc::sync_file_range(
                std::os::fd::AsRawFd::as_raw_fd(&file),
                at,
                piece.len() as i64,
                libc::SYNC_FILE_RANGE_WRITE,
            );
        }
        at += piece.len() as i64;
    }
    file.sync_all().expect("synced");
    drop(file);
    std::fs::rename(&temp, output).expect("renamed");
}

/// Fresh memory (zeros) from pmx-studio's allocator ([`huge_pages::HugePageAllocator`]): a
/// large buffer is a mapping of its own on huge pages, as pmx-studio's big lists are.
struct HugeBuffer {
    block: *mut u8,
    layout: std::alloc::Layout,
}

impl HugeBuffer {
    #[allow(unsafe_code)]
    fn new(len: usize) -> Self {
        let layout = std::alloc::Layout::from_size_align(len.max(1), 1).expect("a layout");
        // SAFETY: a non-zero layout; the block is freed with it on drop.
        let block = unsafe {
            std::alloc::GlobalAlloc::alloc_zeroed(&huge_pages::HugePageAllocator, layout)
        };
        assert!(!block.is_null(), "memory for the file");
        Self { block, layout }
    }

    #[allow(unsafe_code)]
    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: the block holds the layout's bytes, zeroed or written, and only this buffer
        // uses them.
        unsafe { std::slice::from_raw_parts_mut(self.block, self.layout.size()) }
    }
}

impl Drop for HugeBuffer {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        // SAFETY: allocated in `new` by the same allocator with this layout.
        unsafe {
            std::alloc::GlobalAlloc::dealloc(
                &huge_pages::HugePageAllocator,
                self.block,
                self.layout,
            )
        };
    }
}

/// PMXUtil's side of a job (see `pmxutil_peer`).
fn peer(args: &[String]) {
    pmxutil_peer::run(args);
}

/// Whether two files hold the same bytes, compared a megabyte at a time: reading them whole
/// would raise this process's peak memory, which every child started after it inherits in its
/// `ru_maxrss` (Linux carries the high-water mark across the spawn), so the later layouts'
/// memory figures would show this process's instead of the tools'.
fn same_bytes(a: &Path, b: &Path) -> bool {
    let open = |path: &Path| std::io::BufReader::new(std::fs::File::open(path).expect("a file"));
    let (mut a, mut b) = (open(a), open(b));
    let (mut chunk_a, mut chunk_b) = (vec![0u8; 1 << 20], vec![0u8; 1 << 20]);
    loop {
        let read_a = read_full(&mut a, &mut chunk_a);
        let read_b = read_full(&mut b, &mut chunk_b);
        if chunk_a[..read_a] != chunk_b[..read_b] {
            return false;
        }
        if read_a == 0 {
            return true;
        }
    }
}

/// Fills `buffer` from `reader` as far as the reader goes; the bytes read.
fn read_full(reader: &mut impl std::io::Read, buffer: &mut [u8]) -> usize {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]).expect("the file reads") {
            0 => break,
            n => filled += n,
        }
    }
    filled
}
