//! `pmx-studio render MODEL OUT.png [--size WxH] [--view front|back|left|right|top]
//! [--layers LIST] [--edit STEPS.json] [--then-undo] [--select QUERY]...`: draws the 3D view alone, offscreen,
//! with the editor's own view code (`pmx_ui::panes::view`, `pmx_scene`, `pmx_view`: the same scene, buffers, shaders and camera
//! placement), and writes a PNG.
//!
//! With `--edit` the model is drawn once, the edit script is applied as one undo step through
//! the document (as an edit in the window is: the view then uploads only what the step
//! touched) and the model is drawn again; `--then-undo` undoes the step before that second
//! drawing. So `render --edit` pictures what the window shows after the edit (without the
//! selection the step leaves: the picture is of the model), and it must equal `render` of the
//! file `pmx-studio edit` writes with the same script. `--select` shows elements selected, as
//! the window's `--select` does (the same selection grammar).

use anyhow::Result;
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
    /// drawing; the picture shows the result.
    #[arg(long, value_name = "STEPS.json")]
    pub edit: Option<PathBuf>,
    /// Undo the --edit step again before the final drawing.
    #[arg(long, requires = "edit")]
    pub then_undo: bool,
    /// Elements to show selected, as selection queries (`bones:5`, `vertices:linked:12`;
    /// the grammar of `pmx-studio select`), answered on the model as it is finally drawn;
    /// the view picks the first query's kind. Repeat for several.
    #[arg(long, value_name = "QUERY")]
    pub select: Vec<String>,
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
    eprintln!(
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
            eprintln!(
                "error: {error}; rendering needs OpenGL 3.3 through EGL (on Debian/Ubuntu: \
                 apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri)"
            );
            return Ok(ExitCode::from(2));
        }
    };
    let draw = |view: &mut ViewState, document: &Document| -> Result<image::RgbaImage> {
        // The camera as the view places it for a model it opens (on the model as it is now, so
        // that an edited model is framed as a fresh load of it), turned to the preset.
        view.sync(document, 1);
        view.frame_model(document);
        view.camera.apply_preset(preset);
        view.prepare_frame(document, 1, width, height);
        offscreen
            .render_queue(&view.scene.shared, width, height)
            .map_err(|e: OffscreenError| anyhow!(e))
    };
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
    for problem in &view.scene.texture_problems {
        eprintln!("warning: {problem}");
    }
    image
        .save_with_format(&args.output, image::ImageFormat::Png)
        .with_context(|| format!("{}: cannot write the PNG", args.output.display()))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("256x128").ok(), Some((256, 128)));
        assert_eq!(parse_size(" 64 X 32").ok(), Some((64, 32)));
        assert!(parse_size("256").is_err());
        assert!(parse_size("-1x5").is_err());
    }
}
