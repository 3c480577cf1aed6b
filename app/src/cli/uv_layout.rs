//! `pmx-studio uv-layout MODEL OUT.png [--material N|NAME]... [--channel 0..4] [--size N]
//! [--texture] [--line-width PX]`: the UV wireframe of the chosen materials (all by default) as
//! an N×N PNG, on transparency or over the first chosen material's texture: the template a
//! texture painter paints over, drawn by the same core code as the editor's File > Export UV
//! layout… (`pmx_core::uv`).

use anyhow::{Context, Result, bail};
use pmx_core::formats::{self, LoadOptions};
use pmx_core::model::Model;
use pmx_core::uv::{
    self, DEFAULT_SIZE, MAX_CHANNEL, MAX_SIZE, MIN_SIZE, UvLayoutOptions, uv_layout_png,
};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub struct UvLayoutArgs {
    /// The model (any format pmx-studio reads); its textures are looked up next to it.
    pub model: PathBuf,
    /// The PNG to write.
    pub output: PathBuf,
    /// A material to draw, by index or by Japanese or English name (repeatable; all materials
    /// when none is given). The first one's texture is the background with --texture.
    #[arg(long = "material", value_name = "N|NAME")]
    pub materials: Vec<String>,
    /// The UVs to draw: 0 = the vertices' own UV, 1 to 4 = additional UV channel N.
    #[arg(long, value_name = "0..4", default_value_t = 0,
          value_parser = clap::value_parser!(u8).range(0..=i64::from(MAX_CHANNEL)))]
    pub channel: u8,
    /// The image's width and height in pixels.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_SIZE,
          value_parser = clap::value_parser!(u32).range(i64::from(MIN_SIZE)..=i64::from(MAX_SIZE)))]
    pub size: u32,
    /// Draw over the first chosen material's texture (scaled to the image's size) instead of
    /// transparency.
    #[arg(long)]
    pub texture: bool,
    /// Line width in pixels (anti-aliased).
    #[arg(long, value_name = "PX", default_value_t = 1.0)]
    pub line_width: f32,
}

pub fn run(args: &UvLayoutArgs) -> Result<ExitCode> {
    let loaded = formats::load_path(&args.model, &LoadOptions::default())?;
    let model = loaded.model;
    let materials = args
        .materials
        .iter()
        .map(|token| material_index(&model, token))
        .collect::<Result<Vec<_>>>()?;
    let options = UvLayoutOptions {
        materials,
        channel: args.channel,
        size: args.size,
        line_width: args.line_width,
        texture: args.texture,
        ..UvLayoutOptions::default()
    };
    if !uv::has_channel(&model, options.channel) {
        bail!(
            "--channel {}: {} has {} additional UV channel(s) (0 is the vertices' own UV)",
            options.channel,
            args.model.display(),
            model.additional_uvs.len()
        );
    }
    let folder = formats::folder_of(&args.model);
    let png = uv_layout_png(&model, Some(folder), &options)
        .with_context(|| args.model.display().to_string())?;
    formats::write_atomic(&args.output, &png)
        .with_context(|| format!("{}: cannot write the PNG", args.output.display()))?;
    Ok(ExitCode::SUCCESS)
}

/// `--material N|NAME`: an index when it is a number, else the material with that Japanese
/// name, else the one with that English name.
fn material_index(model: &Model, token: &str) -> Result<usize> {
    let count = model.materials.len();
    if let Ok(index) = token.trim().parse::<usize>() {
        if index >= count {
            let indices = match count {
                0 => "it has none".to_owned(),
                _ => format!("0 to {}", count - 1),
            };
            bail!("--material {index}: no such material index ({indices})");
        }
        return Ok(index);
    }
    let named = |english: bool| {
        model.materials.iter().position(|material| {
            let name = if english {
                &material.name_en
            } else {
                &material.name_ja
            };
            name.as_str() == token
        })
    };
    named(false).or_else(|| named(true)).with_context(|| {
        format!(
            "--material {token:?}: no material has that Japanese or English name (the model has \
             {count} materials; give an index or a name)"
        )
    })
}
