//! Writes a small showcase of what the 3D view draws, with its texture files, into a folder:
//! four spheres with a texture and a shared toon, a multiplying sphere map (`.sph`), an adding
//! sphere map (`.spa`) with the model's own toon texture, and a thick edge. Every image is made
//! here, so nothing third-party is shipped. The README's toon and sphere map screenshot is this.
//!
//! Run: `cargo run -p pmx_core --example showcase -- OUT_DIR` (then open OUT_DIR/showcase.pmx).

use pmx_core::formats::{SaveOptions, save_path};
use pmx_core::model::*;
use std::path::PathBuf;

const RINGS: usize = 24;
const SEGMENTS: usize = 36;

/// A UV sphere of `radius` at `centre`, drawn by a new material made by `material`.
fn sphere(model: &mut Model, centre: [f32; 3], radius: f32, material: Material) {
    let base = model.vertices.len();
    for ring in 0..=RINGS {
        let v = ring as f32 / RINGS as f32;
        let polar = v * std::f32::consts::PI;
        for segment in 0..=SEGMENTS {
            let u = segment as f32 / SEGMENTS as f32;
            let azimuth = u * std::f32::consts::TAU;
            let normal = Vec3::new(
                polar.sin() * azimuth.sin(),
                polar.cos(),
                -polar.sin() * azimuth.cos(),
            );
            model.vertices.push(Vertex {
                position: Vec3::new(
                    centre[0] + normal.x * radius,
                    centre[1] + normal.y * radius,
                    centre[2] + normal.z * radius,
                ),
                normal,
                uv: Vec2::new(u, v),
                weight: Weight::Bdef1 {
                    bone: Some(BoneIdx::new(0)),
                },
                edge_scale: 1.0,
            });
        }
    }
    let first_face = model.faces.len();
    let row = SEGMENTS + 1;
    for ring in 0..RINGS {
        for segment in 0..SEGMENTS {
            let a = base + ring * row + segment;
            let (b, c, d) = (a + 1, a + row, a + row + 1);
            // MikuMikuDance's front faces wind clockwise seen from outside.
            model
                .faces
                .push([VertexIdx::new(a), VertexIdx::new(b), VertexIdx::new(c)]);
            model
                .faces
                .push([VertexIdx::new(b), VertexIdx::new(d), VertexIdx::new(c)]);
        }
    }
    model.materials.push(Material {
        face_index_count: ((model.faces.len() - first_face) * 3) as u32,
        ..material
    });
}

fn base_material(name_ja: &str, name_en: &str, diffuse: [f32; 4]) -> Material {
    Material {
        name_ja: name_ja.into(),
        name_en: name_en.into(),
        diffuse: Vec4::from(diffuse),
        specular: Vec3::new(0.3, 0.3, 0.3),
        specular_power: 20.0,
        ambient: Vec3::new(diffuse[0] * 0.5, diffuse[1] * 0.5, diffuse[2] * 0.5),
        draw_flags: DrawFlags::GROUND_SHADOW | DrawFlags::EDGE,
        edge_color: Vec4::new(0.0, 0.0, 0.0, 1.0),
        edge_size: 0.5,
        ..Material::default()
    }
}

fn texture(model: &mut Model, name: &str) -> Option<TextureIdx> {
    model.textures.push(name.into());
    Some(TextureIdx::new(model.textures.len() - 1))
}

/// Images: a checker, a metallic sphere map (sky above a dark horizon), a highlight for adding,
/// and a toon ramp (MMD reads toon textures from top, lit, to bottom, shaded).
fn images(dir: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(dir.join("tex"))?;
    let checker = image::RgbaImage::from_fn(256, 256, |x, y| {
        if (x / 32 + y / 32) % 2 == 0 {
            image::Rgba([240, 200, 90, 255])
        } else {
            image::Rgba([70, 120, 200, 255])
        }
    });
    checker.save(dir.join("tex/checker.png"))?;
    let sphere_map = |f: &dyn Fn(f32, f32) -> [u8; 3]| {
        image::RgbImage::from_fn(128, 128, |x, y| {
            let (sx, sy) = (x as f32 / 63.5 - 1.0, y as f32 / 63.5 - 1.0);
            image::Rgb(f(sx, sy))
        })
    };
    let metal = sphere_map(&|_, sy| {
        let sky = (1.0 - (sy + 1.0) * 0.5).clamp(0.0, 1.0);
        let band = if sy > 0.05 { 0.35 } else { 0.6 + 0.4 * sky };
        let v = (band * 255.0) as u8;
        [v, v, (v as f32 * 1.05).min(255.0) as u8]
    });
    // A `.sph` is a BMP under another name.
    metal.save_with_format(dir.join("tex/metal.sph"), image::ImageFormat::Bmp)?;
    let gloss = sphere_map(&|sx, sy| {
        let d = ((sx + 0.35).powi(2) + (sy + 0.35).powi(2)).sqrt();
        let v = ((1.0 - d / 0.45).clamp(0.0, 1.0).powi(2) * 255.0) as u8;
        [v, v, v]
    });
    gloss.save_with_format(dir.join("tex/gloss.spa"), image::ImageFormat::Bmp)?;
    let toon = image::RgbImage::from_fn(32, 32, |_, y| {
        if y < 14 {
            image::Rgb([255, 255, 255])
        } else {
            image::Rgb([200, 170, 220])
        }
    });
    toon.save(dir.join("tex/toon_lilac.bmp"))?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir: PathBuf = std::env::args_os()
        .nth(1)
        .map_or_else(|| PathBuf::from("showcase"), PathBuf::from);
    images(&dir)?;
    let mut model = Model::new_empty();
    model.info.name_ja = "表示見本".into();
    model.info.name_en = "Showcase".into();
    model.info.comment_ja = "PMX Studio の3D表示の見本: テクスチャ、スフィア(乗算・加算)、トゥーン、エッジ。PMX Studio のコードで生成。".into();
    model.info.comment_en = "What PMX Studio's 3D view draws: texture, sphere maps (multiply, add), toon, edge. Generated by PMX Studio's own code.".into();
    model.bones.push(Bone {
        name_ja: "センター".into(),
        name_en: "center".into(),
        flags: BoneFlags::ROTATABLE | BoneFlags::MOVABLE | BoneFlags::VISIBLE | BoneFlags::OPERABLE,
        ..Bone::default()
    });
    let checker = texture(&mut model, "tex\\checker.png");
    let metal = texture(&mut model, "tex\\metal.sph");
    let gloss = texture(&mut model, "tex\\gloss.spa");
    let lilac = texture(&mut model, "tex\\toon_lilac.bmp");
    sphere(
        &mut model,
        [-9.0, 10.0, 0.0],
        2.6,
        Material {
            texture: checker,
            toon: Toon::Shared(2),
            ..base_material("テクスチャ", "texture", [1.0, 1.0, 1.0, 1.0])
        },
    );
    sphere(
        &mut model,
        [-3.0, 10.0, 0.0],
        2.6,
        Material {
            sphere_texture: metal,
            sphere_mode: SphereMode::Multiply,
            toon: Toon::Shared(0),
            ..base_material("スフィア乗算", "sphere multiply", [0.95, 0.8, 0.45, 1.0])
        },
    );
    sphere(
        &mut model,
        [3.0, 10.0, 0.0],
        2.6,
        Material {
            sphere_texture: gloss,
            sphere_mode: SphereMode::Add,
            toon: Toon::Texture(lilac),
            ..base_material(
                "スフィア加算と個別トゥーン",
                "sphere add, own toon",
                [0.6, 0.3, 0.8, 1.0],
            )
        },
    );
    sphere(
        &mut model,
        [9.0, 10.0, 0.0],
        2.6,
        Material {
            toon: Toon::Shared(4),
            edge_color: Vec4::new(0.8, 0.1, 0.1, 1.0),
            edge_size: 2.5,
            ..base_material("太いエッジ", "thick edge", [0.35, 0.75, 0.45, 1.0])
        },
    );
    model.display_frames[0]
        .items
        .push(DisplayItem::Bone(Some(BoneIdx::new(0))));
    let path = dir.join("showcase.pmx");
    save_path(&model, &path, &SaveOptions::default())?;
    println!("{}", path.display());
    Ok(())
}
