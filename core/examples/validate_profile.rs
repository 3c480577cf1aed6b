//! Times each validator rule on the generated 1,000,000-vertex model: wall time and, on Linux,
//! the CPU time of the thread (a fairer figure on a machine busy with other work).
//!
//! `cargo run --release -p pmx_core --example validate_profile`

use pmx_core::formats::LoadReport;
use pmx_core::generate::{LargeModelSpec, Rng, large_model};
use pmx_core::model::{IndexSizes, Model, PmxVersion};
use pmx_core::validate::{CheckOptions, Context, Registry, Target};
use std::time::{Duration, Instant};

/// CPU time of this thread so far (Linux: `/proc/thread-self/schedstat`).
fn cpu_time() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

fn profile(label: &str, model: &Model, options: CheckOptions) {
    let report = LoadReport::default();
    let cx = Context::new(model, Some(&report), &options);
    let (mut wall_total, mut cpu_total) = (Duration::ZERO, Duration::ZERO);
    for rule in Registry::standard().rules() {
        let (wall, cpu) = (Instant::now(), cpu_time());
        let mut out = Vec::new();
        rule.check(&cx, &mut out);
        let wall = wall.elapsed();
        let cpu = cpu.zip(cpu_time()).map_or(Duration::ZERO, |(a, b)| b - a);
        wall_total += wall;
        cpu_total += cpu;
        println!(
            "{label:18} {:28} wall {:7.1} ms  cpu {:7.1} ms  {} issues",
            rule.name(),
            wall.as_secs_f64() * 1e3,
            cpu.as_secs_f64() * 1e3,
            out.len()
        );
    }
    println!(
        "{label:18} {:28} wall {:7.1} ms  cpu {:7.1} ms",
        "total",
        wall_total.as_secs_f64() * 1e3,
        cpu_total.as_secs_f64() * 1e3
    );
}

fn main() {
    let mut model = large_model(&LargeModelSpec::million());
    model.header.index_sizes = Some(IndexSizes::minimal_for(&model));
    profile("own version", &model, CheckOptions::default());
    profile(
        "target pmx2.0",
        &model,
        CheckOptions {
            target: Some(Target::Pmx(PmxVersion::V2_0)),
            ..CheckOptions::default()
        },
    );
    let mut rng = Rng::new(7);
    for i in (1..model.faces.len()).rev() {
        model.faces.swap(i, rng.below(i + 1));
    }
    profile("shuffled faces", &model, CheckOptions::default());
}
