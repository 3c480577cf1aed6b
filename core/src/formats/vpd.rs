//! VPD pose files (Vocaloid Pose Data): Shift-JIS text MikuMikuDance saves a pose in.
//!
//! ```text
//! Vocaloid Pose Data file
//!
//! miku.osm;        // 親ファイル名
//! 2;                // 総ポーズボーン数
//!
//! Bone0{センター
//!   0.000000,1.000000,0.000000;                // trans x,y,z
//!   0.000000,0.000000,0.000000,1.000000;        // Quaternion x,y,z,w
//! }
//!
//! Morph0{まばたき
//!   1.000000;
//! }
//! ```
//! The separators before the comments are tabs in MMD's files. Comments run from `//` to
//! the end of the line; line ends are CR LF (LF is read too).

use super::cp932::{self, NameMatcher, SjisName};
use super::error::{LoadOptions, Location, ReadError, WriteError};
use crate::model::{BoneIdx, Model, MorphIdx, Vec3, Vec4};
use crate::pose::Pose;
use std::borrow::Cow;

pub const SIGNATURE: &str = "Vocaloid Pose Data file";

/// A bone of a pose file.
#[derive(Debug, Clone, PartialEq)]
pub struct PoseBone {
    pub name: SjisName,
    pub translation: Vec3,
    /// Quaternion x, y, z, w.
    pub rotation: Vec4,
}

/// A morph of a pose file.
#[derive(Debug, Clone, PartialEq)]
pub struct PoseMorph {
    pub name: SjisName,
    pub weight: f32,
}

/// A VPD file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PoseFile {
    /// The model file the pose was made for (`miku.osm`).
    pub model_file: String,
    pub bones: Vec<PoseBone>,
    pub morphs: Vec<PoseMorph>,
}

/// Lines of the file with their byte offsets, for error locations.
struct Lines<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Lines<'a> {
    /// The next line that is not empty once its comment is removed: (offset, raw bytes of the
    /// line, text without comment, trimmed). Splitting on LF bytes is safe in Shift-JIS: trail
    /// bytes are never below 0x40.
    fn next_line(&mut self) -> Option<(usize, &'a [u8], String)> {
        while self.pos < self.data.len() {
            let start = self.pos;
            let rest = &self.data[start..];
            let len = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
            self.pos = start + len + 1;
            let raw = &rest[..len];
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            let text = cp932::decode_lossy(raw);
            let without_comment = match text.find("//") {
                Some(at) => &text[..at],
                None => &text[..],
            };
            let trimmed = without_comment.trim();
            if !trimmed.is_empty() {
                return Some((start, raw, trimmed.to_owned()));
            }
        }
        None
    }
}

struct Parser<'a> {
    lines: Lines<'a>,
    section: &'static str,
    element: Option<usize>,
    offset: usize,
}

impl Parser<'_> {
    fn error(&self, field: &'static str, message: impl Into<crate::i18n::Message>) -> ReadError {
        ReadError::Malformed {
            location: Location {
                section: self.section,
                element: self.element,
                sub: None,
                field,
                offset: self.offset,
            },
            message: message.into(),
        }
    }

    fn line(&mut self, field: &'static str) -> Result<(usize, Vec<u8>, String), ReadError> {
        match self.lines.next_line() {
            Some((offset, raw, text)) => {
                self.offset = offset;
                Ok((offset, raw.to_vec(), text))
            }
            None => {
                self.offset = self.lines.data.len();
                Err(self.error(field, "unexpected end of file"))
            }
        }
    }

    /// A `a,b,c;` line of `N` numbers.
    fn numbers<const N: usize>(&mut self, field: &'static str) -> Result<[f32; N], ReadError> {
        let (_, _, text) = self.line(field)?;
        let Some(body) = text.strip_suffix(';') else {
            return Err(self.error(
                field,
                format!("expected {N} numbers ending in ';', found {text:?}"),
            ));
        };
        let mut out = [0.0; N];
        let mut parts = body.split(',');
        for slot in &mut out {
            let part = parts.next().map(str::trim).unwrap_or_default();
            *slot = part
                .parse()
                .map_err(|_| self.error(field, format!("expected {N} numbers, found {text:?}")))?;
        }
        if parts.next().is_some() {
            return Err(self.error(field, format!("expected {N} numbers, found {text:?}")));
        }
        Ok(out)
    }

    fn close(&mut self) -> Result<(), ReadError> {
        let (_, _, text) = self.line("end")?;
        if text == "}" {
            Ok(())
        } else {
            Err(self.error("end", format!("expected '}}', found {text:?}")))
        }
    }
}

/// Reads a VPD file.
pub fn read(bytes: &[u8], options: &LoadOptions) -> Result<PoseFile, ReadError> {
    let mut parser = Parser {
        lines: Lines {
            data: bytes,
            pos: 0,
        },
        section: "header",
        element: None,
        offset: 0,
    };
    let (_, _, signature) = parser.line("signature")?;
    if signature != SIGNATURE {
        return Err(parser.error(
            "signature",
            format!("not a VPD file (expected {SIGNATURE:?}, found {signature:?})"),
        ));
    }
    let (_, _, model_file) = parser.line("model_file")?;
    let model_file = model_file
        .strip_suffix(';')
        .ok_or_else(|| parser.error("model_file", "expected the model file name ending in ';'"))?
        .trim()
        .to_owned();
    let [declared] = parser.numbers::<1>("bone_count")?;
    if declared < 0.0 || declared.fract() != 0.0 {
        return Err(parser.error("bone_count", format!("{declared} is not a bone count")));
    }

    let mut file = PoseFile {
        model_file,
        ..PoseFile::default()
    };
    while let Some((offset, raw, text)) = parser.lines.next_line() {
        parser.offset = offset;
        let Some(brace) = raw.iter().position(|&b| b == b'{') else {
            parser.section = "body";
            parser.element = None;
            return Err(parser.error(
                "block",
                format!("expected 'Bone<n>{{' or 'Morph<n>{{', found {text:?}"),
            ));
        };
        let keyword = String::from_utf8_lossy(&raw[..brace]);
        let keyword = keyword.trim();
        // The name is the rest of the line after '{', as raw Shift-JIS bytes.
        let name_bytes = trim_bytes(&raw[brace + 1..]);
        let name = SjisName::from_bytes(name_bytes);
        if file.bones.len() + file.morphs.len() >= options.limits.max_elements {
            return Err(ReadError::LimitExceeded {
                location: Location {
                    section: "body",
                    element: None,
                    sub: None,
                    field: "block",
                    offset,
                },
                message: format!("more than {} blocks", options.limits.max_elements).into(),
            });
        }
        if keyword.starts_with("Bone") {
            parser.section = "bones";
            parser.element = Some(file.bones.len());
            let translation = parser.numbers::<3>("translation")?;
            let rotation = parser.numbers::<4>("rotation")?;
            parser.close()?;
            file.bones.push(PoseBone {
                name,
                translation: translation.into(),
                rotation: rotation.into(),
            });
        } else if keyword.starts_with("Morph") {
            parser.section = "morphs";
            parser.element = Some(file.morphs.len());
            let [weight] = parser.numbers::<1>("weight")?;
            parser.close()?;
            file.morphs.push(PoseMorph { name, weight });
        } else {
            parser.section = "body";
            parser.element = None;
            return Err(parser.error("block", format!("unknown block {keyword:?}")));
        }
    }
    Ok(file)
}

fn trim_bytes(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |e| e + 1);
    &bytes[start..end.max(start)]
}

/// Writes a VPD file (Shift-JIS, CR LF), as MikuMikuDance does.
pub fn write(file: &PoseFile) -> Result<Vec<u8>, WriteError> {
    let encode = |text: &str, path: String| {
        cp932::encode(text).ok_or_else(|| WriteError::Unrepresentable {
            path,
            message: format!("{text:?} has characters Shift-JIS cannot hold").into(),
        })
    };
    let mut out = Vec::new();
    out.extend_from_slice(SIGNATURE.as_bytes());
    out.extend_from_slice(b"\r\n\r\n");
    out.extend(encode(&file.model_file, "model_file".into())?);
    out.extend(encode(";\t\t// 親ファイル名\r\n", "model_file".into())?);
    out.extend(encode(
        &format!("{};\t\t\t\t// 総ポーズボーン数\r\n\r\n", file.bones.len()),
        "bone_count".into(),
    )?);
    for (i, bone) in file.bones.iter().enumerate() {
        out.extend(format!("Bone{i}{{").as_bytes());
        out.extend_from_slice(&name_bytes(&bone.name, || format!("bones[{i}].name"))?);
        let t = bone.translation;
        let r = bone.rotation;
        out.extend(
            format!(
                "\r\n  {:.6},{:.6},{:.6};\t\t\t\t// trans x,y,z\r\n  {:.6},{:.6},{:.6},{:.6};\t\t// Quaternion x,y,z,w\r\n}}\r\n\r\n",
                t.x, t.y, t.z, r.x, r.y, r.z, r.w
            )
            .as_bytes(),
        );
    }
    for (i, morph) in file.morphs.iter().enumerate() {
        out.extend(format!("Morph{i}{{").as_bytes());
        out.extend_from_slice(&name_bytes(&morph.name, || format!("morphs[{i}].name"))?);
        out.extend(format!("\r\n  {:.6};\r\n}}\r\n\r\n", morph.weight).as_bytes());
    }
    Ok(out)
}

/// The bytes of a name to write: its raw bytes when it came from a file, else its text encoded.
fn name_bytes(name: &SjisName, path: impl Fn() -> String) -> Result<Cow<'_, [u8]>, WriteError> {
    if !name.raw.is_empty() || name.text.is_empty() {
        return Ok(Cow::Borrowed(&name.raw));
    }
    cp932::encode(&name.text)
        .map(Cow::Owned)
        .ok_or_else(|| WriteError::Unrepresentable {
            path: path(),
            message: format!("{:?} has characters Shift-JIS cannot hold", name.text).into(),
        })
}

/// Names of a pose file that the model does not have.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Unmatched {
    pub bones: Vec<String>,
    pub morphs: Vec<String>,
}

impl PoseFile {
    /// The pose file of `pose`: bones that are not at rest and morphs that are not 0, with the
    /// model's Japanese names.
    #[must_use]
    pub fn from_pose(model: &Model, pose: &Pose, model_file: &str) -> Self {
        let name = |text: Cow<'_, str>| {
            SjisName::from_text(&text).unwrap_or(SjisName {
                raw: Vec::new(),
                text: text.into_owned(),
                cut: false,
                decodable: true,
            })
        };
        let bones = model
            .bones
            .iter()
            .zip(&pose.bones)
            .filter(|(_, p)| !p.is_rest())
            .map(|(bone, p)| PoseBone {
                name: name(bone.name_ja.as_str()),
                translation: p.translation.into(),
                rotation: Vec4::from_quat(p.rotation),
            })
            .collect();
        let morphs = model
            .morphs
            .iter()
            .zip(&pose.morphs)
            .filter(|(_, w)| **w != 0.0)
            .map(|(morph, &weight)| PoseMorph {
                name: name(morph.name_ja.as_str()),
                weight,
            })
            .collect();
        Self {
            model_file: model_file.to_owned(),
            bones,
            morphs,
        }
    }

    /// Sets the bones and morphs the file names on `pose` (names matched as VMD names are, with
    /// no length limit); returns the names the model does not have.
    pub fn apply_to(&self, model: &Model, pose: &mut Pose) -> Unmatched {
        let bones = NameMatcher::new(model.bones.iter().map(|b| b.name_ja.as_str()), usize::MAX);
        let morphs = NameMatcher::new(model.morphs.iter().map(|m| m.name_ja.as_str()), usize::MAX);
        let mut unmatched = Unmatched::default();
        for bone in &self.bones {
            match bones.find(&bone.name) {
                Some(b) => pose.set_bone(
                    BoneIdx::new(b),
                    bone.rotation.to_quat(),
                    bone.translation.into(),
                ),
                None => unmatched.bones.push(bone.name.text.clone()),
            }
        }
        for morph in &self.morphs {
            match morphs.find(&morph.name) {
                Some(m) => pose.set_morph(MorphIdx::new(m), morph.weight),
                None => unmatched.morphs.push(morph.name.text.clone()),
            }
        }
        unmatched
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "Vocaloid Pose Data file\r\n\r\nmiku.osm;\t\t// 親ファイル名\r\n2;\t\t\t\t// 総ポーズボーン数\r\n\r\nBone0{センター\r\n  0.000000,1.500000,-2.000000;\t\t\t\t// trans x,y,z\r\n  0.000000,0.707107,0.000000,0.707107;\t\t// Quaternion x,y,z,w\r\n}\r\n\r\nBone1{左ひざ\r\n  0.000000,0.000000,0.000000;\t\t\t\t// trans x,y,z\r\n  0.500000,0.000000,0.000000,0.866025;\t\t// Quaternion x,y,z,w\r\n}\r\n\r\nMorph0{まばたき\r\n  0.250000;\r\n}\r\n\r\n";

    fn sjis(text: &str) -> Vec<u8> {
        cp932::encode(text).unwrap_or_default()
    }

    #[test]
    fn reads_bones_and_morphs() {
        let file = read(&sjis(SAMPLE), &LoadOptions::default());
        let Ok(file) = file else {
            panic!("{file:?}");
        };
        assert_eq!(file.model_file, "miku.osm");
        assert_eq!(file.bones.len(), 2);
        assert_eq!(file.bones[0].name.text, "センター");
        assert_eq!(file.bones[0].translation, Vec3::new(0.0, 1.5, -2.0));
        assert_eq!(file.bones[1].rotation, Vec4::new(0.5, 0.0, 0.0, 0.866025));
        assert_eq!(file.morphs.len(), 1);
        assert_eq!(
            (file.morphs[0].name.text.as_str(), file.morphs[0].weight),
            ("まばたき", 0.25)
        );
    }

    #[test]
    fn writes_what_it_reads() {
        let Ok(file) = read(&sjis(SAMPLE), &LoadOptions::default()) else {
            panic!("read failed");
        };
        let written = write(&file);
        let Ok(written) = written else {
            panic!("{written:?}");
        };
        assert_eq!(written, sjis(SAMPLE));
    }

    #[test]
    fn errors_say_where() {
        let broken = SAMPLE.replace("0.500000,0.000000,0.000000,0.866025;", "0.5,0.0,zero,0.8;");
        let error = read(&sjis(&broken), &LoadOptions::default());
        let Err(ReadError::Malformed { location, .. }) = error else {
            panic!("{error:?}");
        };
        assert_eq!(
            (location.section, location.element, location.field),
            ("bones", Some(1), "rotation")
        );
        let line_start = sjis(&broken)
            .windows(5)
            .position(|w| w == b"  0.5")
            .unwrap_or_default();
        assert_eq!(location.offset, line_start);
        let cut = &SAMPLE[..SAMPLE.find("0.250000;").unwrap_or_default() + 9];
        let error = read(&sjis(cut), &LoadOptions::default());
        assert!(
            matches!(error, Err(ReadError::Malformed { ref location, .. }) if location.section == "morphs" && location.field == "end"),
            "{error:?}"
        );
        assert!(read(b"Vocaloid Motion Data 0002", &LoadOptions::default()).is_err());
    }

    #[test]
    fn a_pose_survives_a_vpd_round_trip() {
        let mut model = Model::default();
        for name in ["センター", "左足ＩＫ"] {
            model.bones.push(crate::model::Bone {
                name_ja: name.into(),
                ..crate::model::Bone::default()
            });
        }
        model.morphs.push(crate::model::Morph {
            name_ja: "あ".into(),
            name_en: "a".into(),
            panel: crate::model::MorphPanel::Mouth,
            offsets: crate::model::MorphOffsets::Vertex(Vec::new()),
        });
        let mut pose = Pose::new(&model);
        pose.set_bone(
            BoneIdx::new(1),
            glam::Quat::from_rotation_x(0.5),
            glam::Vec3::new(0.25, 1.0, -0.5),
        );
        pose.set_morph(MorphIdx::new(0), 0.75);
        let file = PoseFile::from_pose(&model, &pose, "model.pmx");
        assert_eq!((file.bones.len(), file.morphs.len()), (1, 1));
        let Ok(bytes) = write(&file) else {
            panic!("write failed");
        };
        let Ok(back) = read(&bytes, &LoadOptions::default()) else {
            panic!("read failed");
        };
        let mut restored = Pose::new(&model);
        assert_eq!(back.apply_to(&model, &mut restored), Unmatched::default());
        // Six decimals, as MMD writes them.
        let bone = restored.bones[1];
        assert!(bone.rotation.abs_diff_eq(pose.bones[1].rotation, 1e-6));
        assert_eq!(bone.translation, glam::Vec3::new(0.25, 1.0, -0.5));
        assert_eq!(restored.morphs[0], 0.75);
        assert!(restored.bones[0].is_rest());
    }
}
