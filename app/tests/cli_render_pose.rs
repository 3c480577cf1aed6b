//! `pmx-studio render` with a pose: `--vmd M --frame N` (a still), `--frames A-B` (a PNG
//! sequence, posed by the motion or at rest) and `--physics`.
//!
//! The model is the textured sample (`pmx_core::generate::textured_model`: every material its
//! own texture, written beside the model), so a pose that put a texture or a morph on the
//! wrong vertices shows. The motion, built here, turns the left arm and the neck, moves the
//! centre (the hair's rigid body swings behind it with --physics) and raises the hair by a
//! vertex morph (髪上げ), all changing from frame to frame.
//!
//! A posed still is compared with `render` of the file `pmx-studio pose` writes for the same
//! frame (the pose baked as the rest shape): the same skinned positions, the same camera (the
//! view frames both models alike: their sizes are in the range it leaves the default camera
//! for), drawn by the same code. Normals are the one difference: the baked file keeps them
//! normalised as the PMX file stores them, the view gets the skinning's; so a few pixels may
//! differ by a shade or two of rounding (see `assert_close`). A sequence's frames, the rest
//! sequence and the physics are compared with stills drawn by the same command line, which
//! must agree pixel for pixel.
//!
//! Without OpenGL through EGL (`libegl1 libegl-mesa0 libgl1-mesa-dri`) render exits 2 and these
//! tests print why and pass.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::formats::cp932;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SIZE: &str = "192x192";

fn pmx_studio<I: AsRef<OsStr>>(args: impl IntoIterator<Item = I>) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .args(args)
        .output()
        .expect("pmx-studio runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `render MODEL OUT --size SIZE [extra]`; false when there is no OpenGL (exit 2 with the
/// reason, printed).
fn render(model: &Path, out: &Path, extra: &[&str]) -> bool {
    let mut args: Vec<&OsStr> = vec![
        OsStr::new("render"),
        model.as_os_str(),
        out.as_os_str(),
        OsStr::new("--size"),
        OsStr::new(SIZE),
    ];
    args.extend(extra.iter().map(OsStr::new));
    let output = pmx_studio(&args);
    if output.status.code() == Some(2) {
        let text = stderr(&output);
        assert!(text.contains("OpenGL"), "exit 2 without a reason: {text}");
        println!("skipped: {text}");
        return false;
    }
    assert!(
        output.status.success(),
        "render {extra:?}: {:?}\n{}",
        output.status,
        stderr(&output)
    );
    true
}

fn picture(path: &Path) -> image::RgbaImage {
    image::open(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .to_rgba8()
}

fn differing_pixels(a: &image::RgbaImage, b: &image::RgbaImage) -> usize {
    assert_eq!(a.dimensions(), b.dimensions());
    a.pixels().zip(b.pixels()).filter(|(x, y)| x != y).count()
}

fn assert_same(a: &Path, b: &Path) {
    let differing = differing_pixels(&picture(a), &picture(b));
    assert_eq!(
        differing,
        0,
        "{} and {} differ in {differing} pixels",
        a.display(),
        b.display()
    );
}

/// Equal but for rounding: every channel within 2 shades, and at most 1 pixel in 100 off at
/// all (normals normalised by the PMX file versus the skinning's own, see the module docs; at
/// frame 10, the arm turned 70°, 150 of 36,864 pixels differ by a shade or two, where a wrong
/// pose or texture changes thousands by far more).
fn assert_close(a: &Path, b: &Path) {
    let (x, y) = (picture(a), picture(b));
    let mut off = 0;
    for (p, q) in x.pixels().zip(y.pixels()) {
        if p != q {
            off += 1;
            let most = p.0.iter().zip(q.0).map(|(s, t)| s.abs_diff(t)).max();
            assert!(
                most <= Some(2),
                "{} and {}: {p:?} against {q:?}",
                a.display(),
                b.display()
            );
        }
    }
    let pixels = (x.width() * x.height()) as usize;
    assert!(
        off * 100 <= pixels,
        "{} and {}: {off} of {pixels} pixels differ",
        a.display(),
        b.display()
    );
}

/// Clearly different pictures: at least 2% of the pixels.
fn assert_differ(a: &Path, b: &Path) {
    let (x, y) = (picture(a), picture(b));
    let differing = differing_pixels(&x, &y);
    let pixels = (x.width() * x.height()) as usize;
    assert!(
        differing * 50 >= pixels,
        "{} and {} differ in only {differing} of {pixels} pixels",
        a.display(),
        b.display()
    );
}

/// A 15-byte Shift-JIS name field.
fn name_field(bytes: &mut Vec<u8>, name: &str) {
    let mut field = cp932::encode(name).expect("a Shift-JIS name");
    field.resize(15, 0);
    bytes.extend_from_slice(&field);
}

/// A quaternion (x, y, z, w) turning `degrees` about the unit `axis`.
fn turn(axis: [f32; 3], degrees: f32) -> [f32; 4] {
    let (s, c) = (degrees.to_radians() / 2.0).sin_cos();
    [axis[0] * s, axis[1] * s, axis[2] * s, c]
}

/// A bone key: name, frame, translation, rotation quaternion (x, y, z, w).
type BoneKey = (String, u32, [f32; 3], [f32; 4]);
/// A morph key: name, frame, weight.
type MorphKey = (String, u32, f32);

/// A VMD file of these keys (linear curves; no camera, light, self-shadow or IK keys).
fn vmd_bytes(bone_keys: &[BoneKey], morph_keys: &[MorphKey]) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut header = b"Vocaloid Motion Data 0002".to_vec();
    header.resize(30, 0);
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(&[0u8; 20]);
    bytes.extend_from_slice(&(bone_keys.len() as u32).to_le_bytes());
    for (name, frame, translation, rotation) in bone_keys {
        name_field(&mut bytes, name);
        bytes.extend_from_slice(&frame.to_le_bytes());
        for v in translation.iter().chain(rotation) {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        // Linear curves: control points (20, 20) and (107, 107) on every channel.
        let mut curves = [0u8; 64];
        for chunk in curves.chunks_mut(16) {
            chunk[..8].fill(20);
            chunk[8..].fill(107);
        }
        bytes.extend_from_slice(&curves);
    }
    bytes.extend_from_slice(&(morph_keys.len() as u32).to_le_bytes());
    for (name, frame, weight) in morph_keys {
        name_field(&mut bytes, name);
        bytes.extend_from_slice(&frame.to_le_bytes());
        bytes.extend_from_slice(&weight.to_le_bytes());
    }
    for _ in 0..4 {
        bytes.extend_from_slice(&0u32.to_le_bytes());
    }
    bytes
}

/// The test motion: keys at frames 0 and 10, so every frame between is its own pose.
fn motion_bytes() -> Vec<u8> {
    let key = |name: &str, frame, translation, rotation| -> BoneKey {
        (name.to_owned(), frame, translation, rotation)
    };
    let bone_keys = [
        key("左腕", 0, [0.0; 3], turn([0.0, 0.0, 1.0], 0.0)),
        key("左腕", 10, [0.0; 3], turn([0.0, 0.0, 1.0], 70.0)),
        key("首", 0, [0.0; 3], turn([0.0, 1.0, 0.0], 0.0)),
        key("首", 10, [0.0; 3], turn([0.0, 1.0, 0.0], 50.0)),
        key("センター", 0, [0.0; 3], turn([0.0, 0.0, 1.0], 0.0)),
        key("センター", 10, [4.0, 0.0, 0.0], turn([0.0, 0.0, 1.0], 0.0)),
    ];
    let morph_keys = [
        ("髪上げ".to_owned(), 0, 0.0),
        ("髪上げ".to_owned(), 10, 1.0),
    ];
    vmd_bytes(&bone_keys, &morph_keys)
}

/// The textured model with its images and the motion, in a fresh folder.
struct Files {
    dir: tempfile::TempDir,
    model: PathBuf,
    motion: PathBuf,
}

impl Files {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let model = pmx_core::generate::textured_model()
            .write(dir.path(), "textured.pmx")
            .unwrap();
        let motion = dir.path().join("motion.vmd");
        std::fs::write(&motion, motion_bytes()).unwrap();
        Self { dir, model, motion }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn motion(&self) -> &str {
        self.motion.to_str().unwrap()
    }
}

#[test]
fn a_posed_still_equals_the_render_of_the_baked_pose() {
    let files = Files::new();
    let rest = files.path("rest.png");
    if !render(&files.model, &rest, &[]) {
        return;
    }
    for frame in ["3", "10"] {
        let still = files.path(&format!("still_{frame}.png"));
        assert!(render(
            &files.model,
            &still,
            &["--vmd", files.motion(), "--frame", frame]
        ));
        // The same frame baked into the model as its rest shape, beside the images.
        let baked = files.path(&format!("baked_{frame}.pmx"));
        let output = pmx_studio([
            OsStr::new("pose"),
            files.model.as_os_str(),
            baked.as_os_str(),
            OsStr::new("--vmd"),
            files.motion.as_os_str(),
            OsStr::new("--frame"),
            OsStr::new(frame),
        ]);
        assert!(output.status.success(), "pose: {}", stderr(&output));
        let baked_picture = files.path(&format!("baked_{frame}.png"));
        assert!(render(&baked, &baked_picture, &[]));
        assert_close(&still, &baked_picture);
        assert_differ(&still, &rest);
    }
    // Frames between keys are poses of their own.
    assert_differ(&files.path("still_3.png"), &files.path("still_10.png"));
}

/// The PNG files in `dir` whose names start with `prefix`, sorted.
fn files_named(dir: &Path, prefix: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(prefix))
        .collect();
    names.sort();
    names
}

#[test]
fn a_sequence_writes_each_frame_as_its_still() {
    let files = Files::new();
    let out = files.path("walk.png");
    if !render(
        &files.model,
        &out,
        &["--vmd", files.motion(), "--frames", "2-4"],
    ) {
        return;
    }
    assert_eq!(
        files_named(files.dir.path(), "walk"),
        ["walk_0002.png", "walk_0003.png", "walk_0004.png"]
    );
    for frame in 2..=4 {
        let still = files.path(&format!("still_{frame}.png"));
        assert!(render(
            &files.model,
            &still,
            &["--vmd", files.motion(), "--frame", &frame.to_string()]
        ));
        assert_same(&files.path(&format!("walk_{frame:04}.png")), &still);
    }
    assert_differ(&files.path("walk_0002.png"), &files.path("walk_0004.png"));
}

#[test]
fn a_sequence_without_a_motion_is_the_rest_pose() {
    let files = Files::new();
    let rest = files.path("rest.png");
    if !render(&files.model, &rest, &[]) {
        return;
    }
    assert!(render(
        &files.model,
        &files.path("strip.png"),
        &["--frames", "0-1"]
    ));
    assert_eq!(
        files_named(files.dir.path(), "strip"),
        ["strip_0000.png", "strip_0001.png"]
    );
    for name in ["strip_0000.png", "strip_0001.png"] {
        assert_same(&files.path(name), &rest);
    }
    // With the physics on from the rest pose the hair settles under gravity: a picture of its
    // own, the same whichever way the frame is reached.
    assert!(render(
        &files.model,
        &files.path("settle.png"),
        &["--frames", "0-20", "--physics"]
    ));
    assert!(render(
        &files.model,
        &files.path("settle_late.png"),
        &["--frames", "20-20", "--physics"]
    ));
    assert_same(
        &files.path("settle_0020.png"),
        &files.path("settle_late_0020.png"),
    );
}

#[test]
fn a_physics_still_equals_the_same_frame_of_a_physics_sequence() {
    let files = Files::new();
    let still = files.path("physics_8.png");
    if !render(
        &files.model,
        &still,
        &["--vmd", files.motion(), "--frame", "8", "--physics"],
    ) {
        return;
    }
    // The sequence starts at frame 6: the physics must still have run from frame 0.
    assert!(render(
        &files.model,
        &files.path("run.png"),
        &["--vmd", files.motion(), "--frames", "6-8", "--physics"]
    ));
    assert_same(&files.path("run_0008.png"), &still);
    // The physics did something: the hair lags behind the moving centre.
    let plain = files.path("plain_8.png");
    assert!(render(
        &files.model,
        &plain,
        &["--vmd", files.motion(), "--frame", "8"]
    ));
    assert!(differing_pixels(&picture(&still), &picture(&plain)) > 0);
}

#[test]
fn bad_arguments_and_motions_are_errors() {
    let files = Files::new();
    let out = files.path("out.png");
    let run = |extra: &[&str]| {
        let mut args: Vec<&OsStr> = vec![
            OsStr::new("render"),
            files.model.as_os_str(),
            out.as_os_str(),
        ];
        args.extend(extra.iter().map(OsStr::new));
        let output = pmx_studio(&args);
        (output.status.code(), stderr(&output))
    };
    let usage: [(&[&str], &str); 7] = [
        (
            &["--frames", "4-2"],
            "the last frame 2 is before the first 4",
        ),
        (&["--frames", "a-b"], "expected A-B"),
        (&["--frames", "7"], "expected A-B"),
        (&["--frame", "3"], "--vmd"),
        (&["--vmd", files.motion()], "--frame"),
        (&["--physics"], "--frame"),
        (&["--frames", "0-2", "--edit", "steps.json"], "--edit"),
    ];
    for (extra, says) in usage {
        let (code, text) = run(extra);
        assert_eq!(code, Some(2), "{extra:?}: {text}");
        assert!(text.contains(says), "{extra:?}: {text}");
    }
    let (code, text) = run(&["--vmd", files.motion(), "--frame", "-1"]);
    assert_ne!(code, Some(0), "a negative frame: {text}");

    // A motion whose bone key count runs past the end of the file: the reader's message with
    // the byte offset of the count (after the 30-byte signature and 20-byte model name), in
    // the --lang language.
    let broken = files.path("broken.vmd");
    let mut bytes = motion_bytes();
    bytes[50..54].copy_from_slice(&1000u32.to_le_bytes());
    std::fs::write(&broken, &bytes).unwrap();
    let broken = broken.to_str().unwrap();
    for (lang, says) in [("en", "at byte 50 (0x32)"), ("ja", "50バイト目")] {
        let (code, text) = run(&["--vmd", broken, "--frame", "1", "--lang", lang]);
        assert_eq!(code, Some(1), "{text}");
        assert!(text.contains("broken.vmd"), "{text}");
        assert!(text.contains(says), "{lang}: {text}");
    }
    let (code, text) = run(&["--vmd", "no such file.vmd", "--frames", "0-1"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("no such file.vmd"), "{text}");
    // Nothing was written by the failed runs.
    assert!(files_named(files.dir.path(), "out").is_empty());
}

/// The files of the speed measurement: `speed.pmx`, a 100,000-vertex generated model
/// (200,000 small triangles on a tube, 200 bones, 40 morphs), and `speed.vmd`, a motion turning
/// every bone and setting every morph over frames 0 to 30, written into the folder
/// `RENDER_SPEED_DIR` names. Then, with a release build:
/// `hyperfine 'pmx-studio render speed.pmx rest.png --frames 0-29'
/// 'pmx-studio render speed.pmx posed.png --vmd speed.vmd --frames 0-29'`.
#[test]
#[ignore = "writes the speed measurement's files: RENDER_SPEED_DIR=folder"]
fn write_speed_files() {
    use pmx_core::formats::SaveOptions;
    use pmx_core::generate::{LargeModelSpec, large_model, lay_out_as_tube};
    use pmx_core::model::PmxVersion;
    let dir = PathBuf::from(std::env::var("RENDER_SPEED_DIR").expect("RENDER_SPEED_DIR"));
    let spec = LargeModelSpec {
        vertices: 100_000,
        faces: 200_000,
        bones: 200,
        morphs: 40,
        rigid_bodies: 20,
        joints: 20,
        materials: 10,
        additional_uvs: 0,
        version: PmxVersion::V2_0,
    };
    let mut model = large_model(&spec);
    lay_out_as_tube(&mut model, 400);
    pmx_core::formats::save_path(&model, &dir.join("speed.pmx"), &SaveOptions::default()).unwrap();
    let mut bone_keys = Vec::new();
    for (i, bone) in model.bones.iter().enumerate() {
        let name = bone.name_ja.as_str().into_owned();
        let axis = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]][i % 3];
        bone_keys.push((name.clone(), 0, [0.0; 3], turn(axis, 0.0)));
        bone_keys.push((name, 30, [0.0; 3], turn(axis, 20.0)));
    }
    let mut morph_keys = Vec::new();
    for morph in &model.morphs {
        let name = morph.name_ja.as_str().into_owned();
        morph_keys.push((name.clone(), 0, 0.0));
        morph_keys.push((name, 30, 1.0));
    }
    std::fs::write(dir.join("speed.vmd"), vmd_bytes(&bone_keys, &morph_keys)).unwrap();
}
