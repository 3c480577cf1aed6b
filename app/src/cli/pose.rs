//! `pmx-studio pose IN OUT [--vpd POSE.vpd] [--vmd MOTION.vmd --frame N] [--morph NAME=VALUE]...
//! [--physics [--seconds S] [--engine mmd|springs]]`: writes the model with the pose and morphs
//! applied as its new rest shape. With `--physics` the physics runs first: from the pose held
//! still for `--seconds` (5 by default), or along the motion from frame 0 to `--frame` at 60
//! steps a second and then `--seconds` more (0 by default); the settled pose is what is written.

use anyhow::{Context, Result, bail};
use pmx_core::formats::{self, FileFormat, LoadOptions, SaveOptions, vmd, vpd};
use pmx_core::model::{Model, MorphIdx};
use pmx_core::pose::{Pose, apply_pose_as_rest};
use pmx_physics::{Engine, Simulation};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct PoseArgs {
    /// The model to pose.
    pub input: PathBuf,
    /// The file to write (.pmx or .json): the posed model as its new rest shape.
    pub output: PathBuf,
    #[command(flatten)]
    pub textures: super::textures::TextureArgs,
    /// A pose file (VPD) to apply.
    #[arg(long, value_name = "POSE.vpd")]
    pub vpd: Option<PathBuf>,
    /// A motion (VMD) to sample at --frame.
    #[arg(long, value_name = "MOTION.vmd", requires = "frame")]
    pub vmd: Option<PathBuf>,
    /// The motion frame to sample (fractional frames interpolate).
    #[arg(long, value_name = "N", requires = "vmd")]
    pub frame: Option<f32>,
    /// A morph value, by Japanese or English name (applied last; repeatable).
    #[arg(long = "morph", value_name = "NAME=VALUE")]
    pub morphs: Vec<String>,
    /// Run the physics and write the settled pose (rigid bodies and joints as MikuMikuDance
    /// runs them, or the VRM spring bones: see --engine).
    #[arg(long)]
    pub physics: bool,
    /// Seconds of physics with the pose held still (default 5; with --vmd, after the motion
    /// reaches --frame, default 0).
    #[arg(long, value_name = "S", requires = "physics")]
    pub seconds: Option<f32>,
    /// The physics to run: mmd (rigid bodies and joints) or springs (the VRMC_springBone
    /// chains the VRM export writes).
    #[arg(
        long,
        value_name = "ENGINE",
        requires = "physics",
        default_value = "mmd"
    )]
    pub engine: String,
}

pub fn run(args: &PoseArgs) -> Result<ExitCode> {
    if FileFormat::from_extension(&args.output).is_none() {
        bail!(
            "{}: unknown output format (use .pmx or .json)",
            args.output.display()
        );
    }
    let loaded = formats::load_path(&args.input, &LoadOptions::default())?;
    let embedded = loaded.embedded_files;
    let model = loaded.model;
    let mut pose = Pose::new(&model);

    if let Some(path) = &args.vpd {
        let file = vpd::read(&read(path)?, &LoadOptions::default())
            .with_context(|| path.display().to_string())?;
        let unmatched = file.apply_to(&model, &mut pose);
        warn_unmatched(path, "bones", &unmatched.bones);
        warn_unmatched(path, "morphs", &unmatched.morphs);
    }
    let engine = Engine::from_id(&args.engine).with_context(|| {
        format!(
            "--engine {}: expected one of {}",
            args.engine,
            Engine::ALL.map(Engine::id).join(", ")
        )
    })?;
    if let Some(seconds) = args.seconds
        && !(seconds.is_finite() && seconds >= 0.0)
    {
        bail!("--seconds {seconds}: expected a number of seconds of 0 or more");
    }
    let mut simulation = args.physics.then(|| Simulation::new(&model, engine));
    let mut morphs = Vec::new();
    for setting in &args.morphs {
        morphs.push(parse_morph(&model, setting)?);
    }
    let mut motion_played = false;
    if let (Some(path), Some(frame)) = (&args.vmd, args.frame) {
        if !frame.is_finite() || frame < 0.0 {
            bail!("--frame {frame}: expected a frame number of 0 or more");
        }
        let motion = vmd::read(&read(path)?, &LoadOptions::default())
            .with_context(|| path.display().to_string())?;
        let binding = motion.bind(&model);
        warn_unmatched(path, "bones", &binding.unmatched_bones);
        warn_unmatched(path, "morphs", &binding.unmatched_morphs);
        match &mut simulation {
            Some(simulation) => {
                simulation.run_motion(&model, &motion, &binding, frame, &mut pose)?;
                motion_played = true;
            }
            None => motion.sample(&binding, frame, &mut pose),
        }
    }
    for &(morph, value) in &morphs {
        pose.set_morph(morph, value);
    }
    if let Some(simulation) = &mut simulation {
        let seconds = args
            .seconds
            .unwrap_or(if motion_played { 0.0 } else { 5.0 });
        if !motion_played {
            simulation.reset(&model, &mut pose)?;
        }
        simulation.run_for(&model, &mut pose, seconds)?;
        report_physics(simulation);
    }

    let (mut posed, notes) = apply_pose_as_rest(&model, &pose)?;
    for note in &notes {
        errln!("warning: {note}");
    }
    args.textures
        .carry(&mut posed, &embedded, &args.input, &args.output)?;
    let report = formats::save_path(&posed, &args.output, &SaveOptions::default())?;
    for warning in &report.warnings {
        errln!("warning: {}", super::say(warning));
    }
    Ok(ExitCode::SUCCESS)
}

/// What ran, on standard error (standard output stays free for tools that read it).
pub(super) fn report_physics(simulation: &Simulation) {
    errln!(
        "physics ({}): {} steps, {:.2} s simulated",
        simulation.engine().id(),
        simulation.steps(),
        simulation.seconds()
    );
    if let Some(world) = simulation.mmd_world() {
        for note in world.notes() {
            errln!("note: {note}");
        }
        let recovered = world.stats().recovered_bodies;
        if recovered > 0 {
            errln!("warning: {recovered} times a body ran away and was put back on its bone");
        }
    }
}

pub(super) fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| path.display().to_string())
}

pub(super) fn warn_unmatched(path: &Path, kind: &str, names: &[String]) {
    if !names.is_empty() {
        errln!(
            "warning: {}: {} {kind} not in the model: {}",
            path.display(),
            names.len(),
            names.join(", ")
        );
    }
}

/// `NAME=VALUE`: the morph with that Japanese name, else that English name.
fn parse_morph(model: &Model, setting: &str) -> Result<(MorphIdx, f32)> {
    let Some((name, value)) = setting.rsplit_once('=') else {
        bail!("--morph {setting:?}: expected NAME=VALUE");
    };
    let value: f32 = value
        .trim()
        .parse()
        .ok()
        .filter(|v: &f32| v.is_finite())
        .with_context(|| format!("--morph {setting:?}: {value:?} is not a number"))?;
    let find = |english: bool| {
        model.morphs.iter().position(|m| {
            let text = if english { &m.name_en } else { &m.name_ja };
            text.as_str() == name
        })
    };
    match find(false).or_else(|| find(true)) {
        Some(index) => Ok((MorphIdx::new(index), value)),
        None => bail!("--morph {setting:?}: the model has no morph named {name:?}"),
    }
}
