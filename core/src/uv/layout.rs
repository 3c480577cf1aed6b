//! The UV layout image: the wireframe of chosen materials drawn into an N×N RGBA image, on
//! transparency or over a material's texture, with anti-aliased lines (`pmx-studio uv-layout`
//! and the editor's File > Export UV layout… draw the same picture through this).
//!
//! UV (0, 0) is the image's top-left pixel corner and (1, 1) its bottom-right one: PMX UVs run
//! V down, as the texture image's rows do, so the layout lies on the texture as the model maps
//! it. Edges are clipped to that square, not wrapped: the part of an edge outside 0–1 is not
//! drawn (a tiled texture repeats, but a painter paints the one tile).

use super::wireframe::distinct_edges;
use super::{MAX_CHANNEL, channel_uv, has_channel};
use crate::model::{Material, Model};
use crate::texture::{self, TextureProblem};
use glam::{Vec2, Vec2Swizzles};
use image::RgbaImage;
use std::path::Path;

/// The image size when none is given.
pub const DEFAULT_SIZE: u32 = 2048;
/// The smallest image size.
pub const MIN_SIZE: u32 = 16;
/// The largest image size (1 GiB of RGBA; the texture decoder's limit too).
pub const MAX_SIZE: u32 = 16_384;
/// The widest line, in pixels.
pub const MAX_LINE_WIDTH: f32 = 64.0;

/// What [`render_uv_layout`] draws.
#[derive(Debug, Clone, PartialEq)]
pub struct UvLayoutOptions {
    /// Material indices (all materials when empty); the first one's texture is the background
    /// with `texture`.
    pub materials: Vec<usize>,
    /// 0 = the vertices' own UV, 1..=4 = additional UV channel N.
    pub channel: u8,
    /// The image's width and height in pixels ([`MIN_SIZE`]..=[`MAX_SIZE`]).
    pub size: u32,
    /// Line width in pixels (more than 0, at most [`MAX_LINE_WIDTH`]).
    pub line_width: f32,
    /// Draw over the first chosen material's texture, scaled to the image's size.
    pub texture: bool,
    /// The lines' colour, RGBA.
    pub colour: [u8; 4],
}

impl Default for UvLayoutOptions {
    /// Every material's own UVs at 2048×2048, 1-pixel black lines on transparency (the usual
    /// template to paint over on a layer of its own).
    fn default() -> Self {
        Self {
            materials: Vec::new(),
            channel: 0,
            size: DEFAULT_SIZE,
            line_width: 1.0,
            texture: false,
            colour: [0, 0, 0, 255],
        }
    }
}

/// Why a UV layout cannot be drawn.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum UvLayoutError {
    #[error(
        "the model has no UV channel {channel} (0 is the vertices' own UV; it has {additional} additional UV channel(s))"
    )]
    NoChannel { channel: u8, additional: usize },
    #[error("material {index} does not exist (the model has {count} materials)")]
    NoMaterial { index: usize, count: usize },
    #[error("size {size}: the image must be {MIN_SIZE} to {MAX_SIZE} pixels wide")]
    Size { size: u32 },
    #[error("line width {width}: expected more than 0 and at most {MAX_LINE_WIDTH} pixels")]
    LineWidth { width: f32 },
    #[error("material {index} ({material}) has no texture")]
    NoTexture { index: usize, material: String },
    #[error("material {index} ({material}) names texture {texture}, which the model does not list")]
    TextureIndex {
        index: usize,
        material: String,
        texture: usize,
    },
    #[error("material {index} ({material}): texture {problem} (looked up in {folder})")]
    Texture {
        index: usize,
        material: String,
        problem: TextureProblem,
        folder: String,
    },
    #[error("cannot encode the PNG: {0}")]
    Encode(String),
}

/// [`render_uv_layout`]'s image as PNG bytes, for the caller to write (atomically:
/// `formats::write_atomic`).
pub fn uv_layout_png(
    model: &Model,
    folder: Option<&Path>,
    options: &UvLayoutOptions,
) -> Result<Vec<u8>, UvLayoutError> {
    let image = render_uv_layout(model, folder, options)?;
    let mut png = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|error| UvLayoutError::Encode(error.to_string()))?;
    Ok(png)
}

/// The wireframe of `options.materials` as an N×N RGBA image (see the module documentation
/// for where UVs land and what is clipped): on transparency, or over the first chosen
/// material's texture (found relative to `folder` as the 3D view finds it; a texture that
/// cannot be loaded is an error naming the file). Lines are anti-aliased, `line_width` pixels
/// wide.
pub fn render_uv_layout(
    model: &Model,
    folder: Option<&Path>,
    options: &UvLayoutOptions,
) -> Result<RgbaImage, UvLayoutError> {
    let size = options.size;
    if !(MIN_SIZE..=MAX_SIZE).contains(&size) {
        return Err(UvLayoutError::Size { size });
    }
    let width = options.line_width;
    if !(width > 0.0 && width <= MAX_LINE_WIDTH) {
        return Err(UvLayoutError::LineWidth { width });
    }
    if options.channel > MAX_CHANNEL || !has_channel(model, options.channel) {
        return Err(UvLayoutError::NoChannel {
            channel: options.channel,
            additional: model.additional_uvs.len(),
        });
    }
    let count = model.materials.len();
    if let Some(&index) = options.materials.iter().find(|&&index| index >= count) {
        return Err(UvLayoutError::NoMaterial { index, count });
    }
    let background = if options.texture {
        texture_background(model, folder, options)?
    } else {
        RgbaImage::new(size, size)
    };

    let mut coverage = Coverage::new(size);
    let scale = size as f32;
    let edges = distinct_edges(model, &options.materials, options.channel);
    for &(a, b) in &edges.pairs {
        if let (Some(from), Some(to)) = (
            channel_uv(model, options.channel, a as usize),
            channel_uv(model, options.channel, b as usize),
        ) {
            coverage.line(from * scale, to * scale, width);
        }
    }
    Ok(coverage.paint_over(background, options.colour))
}

/// A material's name for messages: Japanese, or English when that is empty.
fn material_name(material: &Material) -> String {
    let name = material.name_ja.as_str();
    if name.is_empty() {
        material.name_en.as_str().into_owned()
    } else {
        name.into_owned()
    }
}

/// The first chosen material's texture, scaled to the image's size.
fn texture_background(
    model: &Model,
    folder: Option<&Path>,
    options: &UvLayoutOptions,
) -> Result<RgbaImage, UvLayoutError> {
    let index = options.materials.first().copied().unwrap_or(0);
    let material = model
        .materials
        .get(index)
        .ok_or(UvLayoutError::NoMaterial {
            index,
            count: model.materials.len(),
        })?;
    let material_name = material_name(material);
    let texture = material.texture.ok_or_else(|| UvLayoutError::NoTexture {
        index,
        material: material_name.clone(),
    })?;
    let texture_name = model
        .textures
        .get(texture.get())
        .ok_or_else(|| UvLayoutError::TextureIndex {
            index,
            material: material_name.clone(),
            texture: texture.get(),
        })?
        .as_str();
    let problem = |problem: TextureProblem| UvLayoutError::Texture {
        index,
        material: material_name.clone(),
        problem,
        folder: folder.map_or_else(
            || "no folder: the model has no file".to_owned(),
            |folder| folder.display().to_string(),
        ),
    };
    let image = texture::load(folder, &texture_name).map_err(problem)?;
    let image = RgbaImage::from_raw(image.width, image.height, image.pixels).ok_or_else(|| {
        problem(TextureProblem::Undecodable {
            name: texture_name.clone().into_owned(),
            message: "its pixels do not fill its size".to_owned(),
        })
    })?;
    Ok(image::imageops::resize(
        &image,
        options.size,
        options.size,
        image::imageops::FilterType::Triangle,
    ))
}

/// How much of each pixel the lines cover (0–255), the most of any line: where lines cross,
/// a pixel is no darker than on one line.
struct Coverage {
    size: u32,
    values: Vec<u8>,
}

impl Coverage {
    fn new(size: u32) -> Self {
        Self {
            size,
            values: vec![0; size as usize * size as usize],
        }
    }

    /// A line from `from` to `to` in pixels (pixel (i, j) covers [i, i+1]×[j, j+1]), `width`
    /// pixels wide with round ends, clipped to the image. A pixel's coverage is the line's
    /// width through its centre, a box filter: 1 within `width / 2 - 0.5` of the segment, falling
    /// to 0 at `width / 2 + 0.5` (lines thinner than a pixel are fainter instead).
    fn line(&mut self, from: Vec2, to: Vec2, width: f32) {
        if !(from.is_finite() && to.is_finite()) {
            return;
        }
        let Some((from, to)) = clip(from, to, self.size as f32) else {
            return;
        };
        let reach = width / 2.0 + 0.5;
        let strength = width.min(1.0);
        let delta = to - from;
        // Walk the longer axis, so each step covers a short run of pixels across the line.
        if delta.x.abs() >= delta.y.abs() {
            self.sweep(from, to, reach, strength, false);
        } else {
            self.sweep(from.yx(), to.yx(), reach, strength, true);
        }
    }

    /// Covers the pixels within `reach` of the segment, walking its x (y when `transposed`:
    /// the points are then given as (y, x)), whose extent is the longer.
    fn sweep(&mut self, from: Vec2, to: Vec2, reach: f32, strength: f32, transposed: bool) {
        let (from, to) = if from.x <= to.x {
            (from, to)
        } else {
            (to, from)
        };
        let delta = to - from;
        let (slope, half_band) = if delta.x > 0.0 {
            // Across a column, the band within `reach` of the line is reach / cos θ high.
            (delta.y / delta.x, reach * delta.length() / delta.x)
        } else {
            (0.0, reach)
        };
        let last = i64::from(self.size) - 1;
        let first_column = ((from.x - reach).floor() as i64).max(0);
        let last_column = ((to.x + reach).floor() as i64).min(last);
        for column in first_column..=last_column {
            let centre_x = column as f32 + 0.5;
            // Past an end, the round cap lies within the band around the end's height.
            let line_y = from.y + (centre_x.clamp(from.x, to.x) - from.x) * slope;
            let first_row = ((line_y - half_band - 0.5).floor() as i64).max(0);
            let last_row = ((line_y + half_band - 0.5).ceil() as i64).min(last);
            for row in first_row..=last_row {
                let centre = Vec2::new(centre_x, row as f32 + 0.5);
                let covered = (reach - distance_to_segment(centre, from, to)).min(1.0) * strength;
                if covered <= 0.0 {
                    continue;
                }
                let (x, y) = if transposed {
                    (row, column)
                } else {
                    (column, row)
                };
                let at = y as usize * self.size as usize + x as usize;
                if let Some(value) = self.values.get_mut(at) {
                    *value = (*value).max((covered * 255.0).round() as u8);
                }
            }
        }
    }

    /// `colour` laid over `background` (the "over" operator, straight alpha) by the coverage.
    fn paint_over(&self, mut background: RgbaImage, colour: [u8; 4]) -> RgbaImage {
        let line_alpha = f32::from(colour[3]) / 255.0;
        for (pixel, &covered) in background.pixels_mut().zip(&self.values) {
            let alpha = f32::from(covered) / 255.0 * line_alpha;
            if alpha <= 0.0 {
                continue;
            }
            let under = f32::from(pixel[3]) / 255.0 * (1.0 - alpha);
            let out = alpha + under;
            for channel in 0..3 {
                let mixed =
                    (f32::from(colour[channel]) * alpha + f32::from(pixel[channel]) * under) / out;
                pixel[channel] = mixed.round() as u8;
            }
            pixel[3] = (out * 255.0).round() as u8;
        }
        background
    }
}

/// The part of the segment inside [0, size]² (Liang–Barsky), or `None`.
fn clip(from: Vec2, to: Vec2, size: f32) -> Option<(Vec2, Vec2)> {
    let delta = to - from;
    let (mut enter, mut leave) = (0.0f32, 1.0f32);
    // Each side as `direction · t <= room`.
    for (direction, room) in [
        (-delta.x, from.x),
        (delta.x, size - from.x),
        (-delta.y, from.y),
        (delta.y, size - from.y),
    ] {
        if direction == 0.0 {
            if room < 0.0 {
                return None;
            }
        } else if direction < 0.0 {
            enter = enter.max(room / direction);
        } else {
            leave = leave.min(room / direction);
        }
    }
    (enter <= leave).then(|| (from + delta * enter, from + delta * leave))
}

fn distance_to_segment(point: Vec2, from: Vec2, to: Vec2) -> f32 {
    let delta = to - from;
    let length_squared = delta.length_squared();
    let along = if length_squared > 0.0 {
        ((point - from).dot(delta) / length_squared).clamp(0.0, 1.0)
    } else {
        0.0
    };
    point.distance(from + delta * along)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Vec2 as ModelVec2, Vertex, VertexIdx};

    /// One triangle with UVs (0.25, 0.25), (0.75, 0.25), (0.25, 0.75), and a second whose
    /// edge (1.5, 0.5)–(0.5, 0.5) leaves the square.
    fn model() -> Model {
        let mut model = Model::default();
        model.vertices = [
            (0.25, 0.25),
            (0.75, 0.25),
            (0.25, 0.75),
            (1.5, 0.5),
            (0.5, 0.5),
            (1.5, 0.6),
        ]
        .into_iter()
        .enumerate()
        .map(|(i, (u, v))| Vertex {
            uv: ModelVec2::new(u, v),
            position: crate::model::Vec3::new(i as f32, 0.0, 0.0),
            ..Vertex::default()
        })
        .collect();
        model.faces = vec![[0, 1, 2].map(VertexIdx), [3, 4, 5].map(VertexIdx)];
        model.materials = vec![
            Material {
                name_ja: "面".into(),
                face_index_count: 3,
                ..Material::default()
            },
            Material {
                face_index_count: 3,
                ..Material::default()
            },
        ];
        model
    }

    fn options(size: u32) -> UvLayoutOptions {
        UvLayoutOptions {
            size,
            ..UvLayoutOptions::default()
        }
    }

    fn alpha(image: &RgbaImage, x: u32, y: u32) -> u8 {
        image.get_pixel(x, y)[3]
    }

    #[test]
    fn edges_land_where_their_uvs_put_them_and_nothing_else_is_drawn() {
        let image = render_uv_layout(&model(), None, &options(64)).expect("drawn");
        assert_eq!(image.dimensions(), (64, 64));
        // The top edge (16, 16)–(48, 16) runs along pixel boundaries: both rows half covered.
        assert_eq!(alpha(&image, 32, 15), 128);
        assert_eq!(alpha(&image, 32, 16), 128);
        // V runs down: the left edge runs from row 16 to row 48 at x = 16.
        assert!(alpha(&image, 16, 40) > 0);
        assert_eq!(image.get_pixel(16, 40).0[..3], [0, 0, 0]);
        // The inside of the triangle and the corners stay transparent.
        assert_eq!(alpha(&image, 24, 24), 0);
        assert_eq!(alpha(&image, 0, 0), 0);
        assert_eq!(alpha(&image, 63, 63), 0);
    }

    #[test]
    fn edges_leaving_the_square_are_clipped_not_wrapped() {
        let only_second = UvLayoutOptions {
            materials: vec![1],
            ..options(64)
        };
        let image = render_uv_layout(&model(), None, &only_second).expect("drawn");
        // (1.5, 0.5)–(0.5, 0.5): drawn from x = 32 to the right border, nothing wraps to the left.
        assert!(alpha(&image, 40, 31) > 0 && alpha(&image, 63, 31) > 0);
        assert_eq!(alpha(&image, 8, 31), 0);
        assert_eq!(alpha(&image, 24, 31), 0);
    }

    #[test]
    fn wide_lines_cover_their_width() {
        let wide = UvLayoutOptions {
            line_width: 4.0,
            materials: vec![0],
            ..options(64)
        };
        let image = render_uv_layout(&model(), None, &wide).expect("drawn");
        // The line y = 16, 4 px wide covers y 14 to 18: rows 14–17, and nothing around them.
        let column: Vec<u8> = (12..20).map(|y| alpha(&image, 32, y)).collect();
        assert_eq!(column, vec![0, 0, 255, 255, 255, 255, 0, 0]);
    }

    #[test]
    fn options_out_of_range_are_errors() {
        let model = model();
        let bad = |options: UvLayoutOptions| render_uv_layout(&model, None, &options).err();
        assert_eq!(bad(options(8)), Some(UvLayoutError::Size { size: 8 }));
        assert_eq!(
            bad(UvLayoutOptions {
                channel: 1,
                ..options(64)
            }),
            Some(UvLayoutError::NoChannel {
                channel: 1,
                additional: 0
            })
        );
        assert_eq!(
            bad(UvLayoutOptions {
                materials: vec![0, 2],
                ..options(64)
            }),
            Some(UvLayoutError::NoMaterial { index: 2, count: 2 })
        );
        assert!(matches!(
            bad(UvLayoutOptions {
                line_width: f32::NAN,
                ..options(64)
            }),
            Some(UvLayoutError::LineWidth { .. })
        ));
        let no_texture = bad(UvLayoutOptions {
            texture: true,
            ..options(64)
        });
        assert_eq!(
            no_texture.map(|e| e.to_string()),
            Some("material 0 (面) has no texture".to_owned())
        );
    }

    #[test]
    fn a_missing_texture_is_an_error_naming_the_file() {
        let mut model = model();
        model.textures = vec!["tex\\skin.png".into()];
        model.materials[0].texture = Some(crate::model::TextureIdx::new(0));
        let folder = tempfile::tempdir().expect("temporary folder");
        let with_texture = UvLayoutOptions {
            texture: true,
            ..options(64)
        };
        let error = render_uv_layout(&model, Some(folder.path()), &with_texture)
            .expect_err("no texture file");
        assert!(
            error.to_string().contains("tex\\skin.png: not found"),
            "{error}"
        );

        std::fs::create_dir(folder.path().join("tex")).expect("folder");
        RgbaImage::from_pixel(4, 4, image::Rgba([200, 100, 50, 255]))
            .save(folder.path().join("tex/skin.png"))
            .expect("texture written");
        let image = render_uv_layout(&model, Some(folder.path()), &with_texture).expect("drawn");
        assert_eq!(image.get_pixel(5, 5).0, [200, 100, 50, 255]);
        // A half-covered pixel mixes the line into the texture.
        assert_eq!(image.get_pixel(32, 16).0, [100, 50, 25, 255]);
    }

    #[test]
    fn clipping_keeps_the_part_inside() {
        let inside = clip(Vec2::new(-8.0, 4.0), Vec2::new(8.0, 4.0), 16.0);
        assert_eq!(inside, Some((Vec2::new(0.0, 4.0), Vec2::new(8.0, 4.0))));
        assert_eq!(clip(Vec2::new(-8.0, 4.0), Vec2::new(-1.0, 4.0), 16.0), None);
        assert_eq!(
            clip(Vec2::new(20.0, -5.0), Vec2::new(20.0, 30.0), 16.0),
            None
        );
    }
}
