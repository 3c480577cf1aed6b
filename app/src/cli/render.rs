//! `pmx-studio render MODEL OUT.png [--size WxH] [--view front|back|left|right|top]
//! [--layers LIST] [--edit STEPS.json] [--then-undo] [--select QUERY]...
//! [--vmd M.vmd --frame N | [--vmd M.vmd] --frames A-B] [--physics]`: draws the 3D view alone,
//! offscreen, with the editor's own view code (`pmx_ui::panes::view`, `pmx_scene`,
//! `pmx_view`: the same scene, buffers, shaders and camera placement), and writes a PNG.
//!
//! With `--edit` the model is drawn once, the edit script is applied as one undo step through
//! the document (as an edit in the window is: the view then uploads only what the step
//! touched) and the model is drawn again; `--then-undo` undoes the step before that second
//! drawing. So `render --edit` pictures what the window shows after the edit (without the
//! selection the step leaves: the picture is of the model), and it must equal `render` of the
//! file `pmx-studio edit` writes with the same script. `--select` shows elements selected, as
//! the window's `--select` does (the same selection grammar).
//!
//! Posed pictures: `--vmd M.vmd --frame N` draws the motion's frame N; `--frames A-B` draws a
//! PNG sequence `OUT_0000.png`, ... named by frame number (four digits at least), posed by the
//! motion or, without `--vmd`, at rest. The pose reaches the view as the pose pane's reaches
//! it in the window: the motion sampled into a pose held by a `PoseState`, evaluated there and
//! sent by `PoseFeed::feed` (deformed vertices, bone and body placements, UV and material
//! morphs). `--physics` runs the physics (MikuMikuDance's rigid bodies) from frame 0 of the
//! motion (or from the rest pose) at 60 steps a second up to each frame drawn, as `pmx-studio
//! pose --physics` does; a sequence steps on from frame to frame and never starts over, so a
//! still of frame N equals the sequence's frame N. The camera is framed once on the model at
//! rest and kept for every frame (no jitter); one offscreen context and one GPU scene serve
//! the whole sequence, so a frame costs the skinning, an upload of the vertices and the
//! drawing. `--edit` is refused with a pose (it pictures an edit, not a motion).

use anyhow::Result;
#[cfg(feature = "gui")]
use pmx_core::{formats::vmd, model::Model, pose::Pose};
#[cfg(feature = "gui")]
use pmx_physics::{Engine, Simulation, simulation::MOTION_FPS};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// The model to draw (PMX, PMD or JSON); its textures are looked up next to it.
    pub model: PathBuf,
    /// The PNG to write.
    pub output: PathBuf,
    /// Image size, as WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "1024x1024")]
    pub size: String,
    /// The camera preset (the view's 視点 buttons).
    #[arg(long, value_name = "VIEW", default_value = "front",
          value_parser = ["front", "back", "left", "right", "top"])]
    pub view: String,
    /// 3D view layers to switch on, comma-separated, as the window's --view-layers (model,
    /// edges, bones, rigid_bodies, joints, vertices, wireframe, normals, weights, grid;
    /// `-name` switches one off).
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub layers: Option<String>,
    /// An edit script (as `pmx-studio edit --script`) applied as one undo step after a first
    /// drawing; the picture shows the result (not with a pose: --vmd, --frames, --physics).
    #[arg(long, value_name = "STEPS.json",
          conflicts_with_all = ["vmd", "frame", "frames", "physics"])]
    pub edit: Option<PathBuf>,
    /// Undo the --edit step again before the final drawing.
    #[arg(long, requires = "edit")]
    pub then_undo: bool,
    /// Elements to show selected, as selection queries (`bones:5`, `vertices:linked:12`;
    /// the grammar of `pmx-studio select`), answered on the model as it is finally drawn;
    /// the view picks the first query's kind. Repeat for several.
    #[arg(long, value_name = "QUERY")]
    pub select: Vec<String>,
    /// A motion (VMD) to pose the model with: at --frame for one picture, or over --frames.
    #[arg(long, value_name = "M.vmd", requires = "frame_choice")]
    pub vmd: Option<PathBuf>,
    /// The motion frame to draw (fractional frames interpolate); needs --vmd.
    #[arg(long, value_name = "N", group = "frame_choice", requires = "vmd")]
    pub frame: Option<f32>,
    /// Draw frames A to B as a PNG sequence OUT_0000.png, OUT_0001.png, ... (numbered by
    /// frame, four digits at least), posed by --vmd or, without it, at rest.
    #[arg(long, value_name = "A-B", group = "frame_choice", value_parser = parse_frames)]
    pub frames: Option<FrameRange>,
    /// Run the physics (rigid bodies and joints, as `pose --physics`) from frame 0 at 60 steps
    /// a second up to each frame drawn; a sequence steps on from frame to frame.
    #[arg(long, requires = "frame_choice")]
    pub physics: bool,
}

/// The frames `--frames A-B` draws, first and last included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameRange {
    pub first: u32,
    pub last: u32,
}

/// `A-B`: two frame numbers, the second not before the first.
fn parse_frames(text: &str) -> Result<FrameRange, String> {
    let usage = "expected A-B, two frame numbers (0 or more) with A <= B, e.g. 0-29";
    let (first, last) = text.split_once('-').ok_or_else(|| usage.to_owned())?;
    let number = |part: &str| part.trim().parse::<u32>().map_err(|_| usage.to_owned());
    let (first, last) = (number(first)?, number(last)?);
    if last < first {
        return Err(format!("the last frame {last} is before the first {first}"));
    }
    Ok(FrameRange { first, last })
}

/// Where frame `frame` of a sequence goes: `OUT_0007.png` beside `OUT.png` (the output's
/// extension kept, `.png` when it has none).
#[cfg(any(feature = "gui", test))]
fn frame_path(output: &std::path::Path, frame: u32) -> PathBuf {
    let mut name = output.file_stem().unwrap_or_default().to_os_string();
    name.push(format!("_{frame:04}."));
    name.push(output.extension().unwrap_or("png".as_ref()));
    output.with_file_name(name)
}

/// Image width and height from `WIDTHxHEIGHT`.
#[cfg(any(feature = "gui", test))]
fn parse_size(text: &str) -> Result<(u32, u32)> {
    use anyhow::Context as _;
    let (w, h) = text
        .split_once(['x', 'X'])
        .context("--size takes WIDTHxHEIGHT, e.g. 512x512")?;
    let w: u32 = w.trim().parse().context("--size width")?;
    let h: u32 = h.trim().parse().context("--size height")?;
    Ok((w, h))
}

#[cfg(not(feature = "gui"))]
pub fn run(_args: &RenderArgs) -> Result<ExitCode> {
    errln!(
        "error: this pmx-studio was built without the 3D view (feature \"gui\"): no OpenGL rendering"
    );
    Ok(ExitCode::from(2))
}

#[cfg(feature = "gui")]
pub fn run(args: &RenderArgs) -> Result<ExitCode> {
    use anyhow::{Context as _, anyhow, bail};
    use pmx_core::edit::{EditScript, ops_to_edit_in};
    use pmx_core::formats::{self, LoadOptions};
    use pmx_core::model::ElementKind;
    use pmx_ui::document::Document;
    use pmx_ui::panes::pose::PoseState;
    use pmx_ui::panes::pose_feed::PoseFeed;
    use pmx_ui::panes::view::ViewState;
    use pmx_ui::panes::view::camera::CameraPreset;
    use pmx_view::offscreen::{MAX_SIZE, Offscreen, OffscreenError};

    let (width, height) = parse_size(&args.size)?;
    if !(1..=MAX_SIZE).contains(&width) || !(1..=MAX_SIZE).contains(&height) {
        bail!("--size {width}x{height}: each side must be 1 to {MAX_SIZE} pixels");
    }
    let preset = match args.view.as_str() {
        "back" => CameraPreset::Back,
        "left" => CameraPreset::Left,
        "right" => CameraPreset::Right,
        "top" => CameraPreset::Top,
        _ => CameraPreset::Front,
    };
    let mut view = ViewState::default();
    if let Some(list) = &args.layers {
        view.layers.set_from_list(list).map_err(|e| anyhow!(e))?;
    }
    // The script is read before anything is drawn: a bad script fails fast.
    let script = match &args.edit {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("{}: cannot read the script", path.display()))?;
            let script = EditScript::parse(&text)
                .with_context(|| format!("{}: invalid edit script", path.display()))?;
            Some((path, script))
        }
        None => None,
    };
    if let Some(frame) = args.frame
        && !(frame.is_finite() && frame >= 0.0)
    {
        bail!("--frame {frame}: expected a frame number of 0 or more");
    }
    // The motion too: a file that does not read fails before anything is drawn.
    let motion = match &args.vmd {
        Some(path) => Some(
            vmd::read(&super::pose::read(path)?, &LoadOptions::default())
                .with_context(|| path.display().to_string())?,
        ),
        None => None,
    };
    let loaded = formats::load_path(&args.model, &LoadOptions::default())?;
    let mut document = Document::from_loaded(args.model.clone(), loaded, None);
    // The selection queries are answered on the model as it is drawn last (after --edit);
    // they are checked on the model as loaded first, so a bad query fails before any drawing.
    let select = |document: &mut Document| -> Result<()> {
        for query in &args.select {
            let (kind, indices) = pmx_core::select::parse_query(&document.model, query)
                .map_err(|error| anyhow!("--select {error}"))?;
            let selection = document.selection.get_mut(kind);
            selection.current = selection.current.or(indices.first().copied());
            for index in indices {
                selection.indices.insert(index);
            }
        }
        Ok(())
    };
    select(&mut document)?;
    if let Some(kind) = args
        .select
        .first()
        .and_then(|query| pmx_core::select::query_kind(query).ok())
        && let Some(mode) = pmx_ui::panes::view::PickMode::ALL
            .into_iter()
            .find(|mode| mode.kind() == kind)
    {
        view.pick_mode = mode;
    }

    let offscreen = match Offscreen::new() {
        Ok(offscreen) => offscreen,
        Err(error) => {
            errln!(
                "error: {error}; rendering needs OpenGL 3.3 through EGL (on Debian/Ubuntu: \
                 apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri)"
            );
            return Ok(ExitCode::from(2));
        }
    };
    // The camera as the view places it for a model it opens (on the model as it is now, so
    // that an edited model is framed as a fresh load of it), turned to the preset.
    let place_camera = |view: &mut ViewState, document: &Document| {
        view.sync(document, DOCUMENT_ID);
        view.frame_model(document);
        view.camera.apply_preset(preset);
    };
    let picture = |view: &mut ViewState, document: &Document| -> Result<image::RgbaImage> {
        view.prepare_frame(document, DOCUMENT_ID, width, height);
        offscreen
            .render_queue(&view.scene.shared, width, height)
            .map_err(|e: OffscreenError| anyhow!(e))
    };
    let draw = |view: &mut ViewState, document: &Document| -> Result<image::RgbaImage> {
        place_camera(view, document);
        picture(view, document)
    };
    let write = |image: &image::RgbaImage, path: &std::path::Path| -> Result<()> {
        image
            .save_with_format(path, image::ImageFormat::Png)
            .with_context(|| format!("{}: cannot write the PNG", path.display()))
    };
    let warn_textures = |view: &ViewState| {
        for problem in &view.scene.texture_problems {
            errln!("warning: {problem}");
        }
    };

    if args.frame.is_some() || args.frames.is_some() {
        // The GPU side starts before the first pose, so that the view knows whether this
        // model's skinning fits the GPU (else it poses on the CPU).
        offscreen
            .start_scene(&view.scene.shared)
            .map_err(|e: OffscreenError| anyhow!(e))?;
        // Framed once, at rest, and kept: a sequence does not jitter as the pose moves.
        place_camera(&mut view, &document);
        let model = &document.model;
        let motion = match (&motion, &args.vmd) {
            (Some(motion), Some(path)) => {
                let binding = motion.bind(model);
                super::pose::warn_unmatched(path, "bones", &binding.unmatched_bones);
                super::pose::warn_unmatched(path, "morphs", &binding.unmatched_morphs);
                Some((motion, binding))
            }
            _ => None,
        };
        let mut player = Player {
            motion: motion.as_ref().map(|(motion, binding)| (*motion, binding)),
            simulation: args.physics.then(|| Simulation::new(model, Engine::Mmd)),
            physics_at: None,
            pose: Pose::new(model),
        };
        // The pose pane's state and the window's feed: the pose reaches the view as it does
        // there (evaluated by the pane, sent by the feed).
        let mut pose_state = PoseState::default();
        pose_state.sync(&document, DOCUMENT_ID);
        let mut feed = PoseFeed::default();
        let mut draw_frame = |frame: f32, path: &std::path::Path| -> Result<()> {
            pose_state.restore(player.pose_at(model, frame)?.clone());
            pose_state.evaluate(model);
            feed.feed(&mut view, &mut pose_state, &document, DOCUMENT_ID);
            write(&picture(&mut view, &document)?, path)
        };
        match (args.frame, args.frames) {
            (Some(frame), _) => draw_frame(frame, &args.output)?,
            (None, Some(range)) => {
                for frame in range.first..=range.last {
                    draw_frame(frame as f32, &frame_path(&args.output, frame))?;
                }
            }
            (None, None) => {}
        }
        if let Some(simulation) = &player.simulation {
            super::pose::report_physics(simulation);
        }
        warn_textures(&view);
        return Ok(ExitCode::SUCCESS);
    }

    let mut image = draw(&mut view, &document)?;
    if let Some((path, script)) = script {
        // As an edit in the window: built on the model, applied to the document as one undo
        // step (its change log drives the view's partial uploads). Merge paths in the script are
        // relative to the script's folder, as for `pmx-studio edit`.
        let base_dir = path.parent().map(PathBuf::from);
        let edit = ops_to_edit_in(
            &mut document.model,
            &script.ops,
            script.label.as_deref(),
            base_dir.as_deref(),
        )
        .with_context(|| path.display().to_string())?;
        document.apply(edit);
        if args.then_undo {
            document.undo();
        }
        // The picture is of the model, as a fresh load of it draws it, never of a selection
        // (the view tints selected materials and marks selected bones, bodies and joints; an
        // undone material delete of a selected material comes back selected).
        for kind in ElementKind::ALL {
            document.selection.get_mut(kind).clear();
        }
        select(&mut document)?;
        image = draw(&mut view, &document)?;
    }
    warn_textures(&view);
    write(&image, &args.output)?;
    Ok(ExitCode::SUCCESS)
}

/// The document id the view and the pose state know the one document by.
#[cfg(feature = "gui")]
const DOCUMENT_ID: u64 = 1;

/// The pose of each frame drawn: the motion sampled there (the rest pose without one) and,
/// with the physics on, the physics stepped on to it from the frame it stands at. It starts
/// as `pose --physics` runs (the motion's frame 0, or the rest pose, then 60 steps a second)
/// and never starts over, so the frames must come in order.
#[cfg(feature = "gui")]
struct Player<'a> {
    motion: Option<(&'a vmd::Motion, &'a vmd::Binding)>,
    simulation: Option<Simulation>,
    /// The frame the physics stands at; `None` before its first frame.
    physics_at: Option<f32>,
    pose: Pose,
}

#[cfg(feature = "gui")]
impl Player<'_> {
    fn pose_at(&mut self, model: &Model, frame: f32) -> Result<&Pose> {
        let pose = &mut self.pose;
        let Some(simulation) = &mut self.simulation else {
            if let Some((motion, binding)) = self.motion {
                motion.sample(binding, frame, pose);
            }
            return Ok(pose);
        };
        match (self.motion, self.physics_at) {
            // As `pose --vmd --frame N --physics`: frame 0, a reset there, then the steps.
            (Some((motion, binding)), None) => {
                simulation.run_motion(model, motion, binding, frame, pose)?;
            }
            (Some((motion, binding)), Some(at)) => {
                simulation.play_motion(model, motion, binding, at, frame, pose)?;
            }
            (None, at) => {
                if at.is_none() {
                    simulation.reset(model, pose)?;
                }
                let from = at.unwrap_or(0.0);
                simulation.run_for(model, pose, (frame - from) / MOTION_FPS)?;
            }
        }
        self.physics_at = Some(frame);
        Ok(pose)
    }
}

#[cfg(test)]
mod tests {
    use super::{FrameRange, frame_path, parse_frames, parse_size};
    use std::path::{Path, PathBuf};

    #[test]
    fn frame_ranges() {
        assert_eq!(parse_frames("2-4"), Ok(FrameRange { first: 2, last: 4 }));
        assert_eq!(parse_frames("7-7"), Ok(FrameRange { first: 7, last: 7 }));
        for bad in ["4-2", "2", "a-4", "2-b", "-1-3", "1-2-3", "", "1.5-3"] {
            assert!(parse_frames(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn frame_file_names() {
        assert_eq!(
            frame_path(Path::new("out/walk.png"), 7),
            PathBuf::from("out/walk_0007.png")
        );
        assert_eq!(
            frame_path(Path::new("walk.png"), 12345),
            PathBuf::from("walk_12345.png")
        );
        assert_eq!(
            frame_path(Path::new("dir/walk"), 0),
            PathBuf::from("dir/walk_0000.png")
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("256x128").ok(), Some((256, 128)));
        assert_eq!(parse_size(" 64 X 32").ok(), Some((64, 32)));
        assert!(parse_size("256").is_err());
        assert!(parse_size("-1x5").is_err());
    }
}
