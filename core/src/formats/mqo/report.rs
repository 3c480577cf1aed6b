//! What the MQO importer refuses ([`MqoError`]) and what it read past or changed
//! ([`MqoReport`]), each in English and Japanese.

use crate::formats::{LoadNote, LoadReport, Location, ReadError};
use std::fmt;
use std::path::PathBuf;

/// Why an MQO file (or its `.mqoz` archive, or its `.mqx` side file) could not be imported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MqoError {
    /// The text does not follow the format.
    #[error("MQO line {line}, column {column} ({section}): {message}")]
    Syntax {
        line: usize,
        column: usize,
        /// Where the parser was: `header`, `Material`, `Object "body" / face`, ...
        section: String,
        message: String,
    },
    /// A valid file of a kind this importer does not read (`Format Compress`, version 2.x).
    #[error("MQO line {line}: {message}")]
    Unsupported { line: usize, message: String },
    /// The file was saved by an unregistered Metasequoia 1.0 (a `TrialNoise` chunk).
    #[error(
        "MQO line {line}: TrialNoise chunk: the file was saved by an unregistered Metasequoia 1.0 \
         and its data is scrambled; reading stops here, as the MQO specification requires \
         (continuing would give only broken data)"
    )]
    TrialNoise { line: usize },
    /// The file asks for more than the limits allow (counts, generated geometry).
    #[error("MQO line {line}: limit exceeded: {message}")]
    LimitExceeded { line: usize, message: String },
    /// The `.mqx` side file is not well-formed XML or holds impossible values.
    #[error("MQX {file} line {line}, column {column}: {message}")]
    Mqx {
        file: String,
        line: usize,
        column: usize,
        message: String,
    },
    /// The `.mqoz` archive cannot be read or holds no `.mqo`.
    #[error("MQOZ archive: {message}")]
    Archive { message: String },
    /// The options cannot be used (a scale of zero).
    #[error("MQO import options: {message}")]
    Options { message: String },
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
}

impl MqoError {
    /// The message in Japanese.
    #[must_use]
    pub fn message_ja(&self) -> String {
        match self {
            MqoError::Syntax {
                line,
                column,
                section,
                message,
            } => {
                format!("MQOの{line}行{column}桁目（{section}）: 書式が正しくありません: {message}")
            }
            MqoError::Unsupported { line, message } => {
                format!("MQOの{line}行目: 対応していない形式です: {message}")
            }
            MqoError::TrialNoise { line } => format!(
                "MQOの{line}行目: TrialNoiseチャンクがあります。ユーザー登録されていない \
                 Metasequoia 1.0 で保存されたファイルで、データが壊されています。仕様のとおり\
                 読み込みを中止しました（読み込みを継続してもおかしなデータしか得られません）"
            ),
            MqoError::LimitExceeded { line, message } => {
                format!("MQOの{line}行目: 上限を超えています: {message}")
            }
            MqoError::Mqx {
                file,
                line,
                column,
                message,
            } => format!("MQX {file} の{line}行{column}桁目: {message}"),
            MqoError::Archive { message } => format!("MQOZアーカイブを読めません: {message}"),
            MqoError::Options { message } => {
                format!("MQO読み込みの設定が正しくありません: {message}")
            }
            MqoError::Io { path, message } => format!("{}: {message}", path.display()),
        }
    }

    /// The 1-based MQO line the error is on, when there is one.
    #[must_use]
    pub fn line(&self) -> Option<usize> {
        match self {
            MqoError::Syntax { line, .. }
            | MqoError::Unsupported { line, .. }
            | MqoError::TrialNoise { line }
            | MqoError::LimitExceeded { line, .. } => Some(*line),
            MqoError::Mqx { .. }
            | MqoError::Archive { .. }
            | MqoError::Options { .. }
            | MqoError::Io { .. } => None,
        }
    }
}

impl From<MqoError> for ReadError {
    /// The error as the other readers report theirs (the app's load error dialog).
    fn from(error: MqoError) -> Self {
        let location = |line: usize| Location::text_line((line > 0).then_some(line));
        match error {
            MqoError::Syntax {
                line,
                column,
                ref section,
                ref message,
            } => ReadError::Parse {
                format: "MQO",
                line,
                column,
                message: format!("{section}: {message}"),
            },
            MqoError::Unsupported { line, .. } | MqoError::TrialNoise { line } => {
                ReadError::Unsupported {
                    location: location(line),
                    message: error.to_string().into(),
                }
            }
            MqoError::LimitExceeded { line, .. } => ReadError::LimitExceeded {
                location: location(line),
                message: error.to_string().into(),
            },
            MqoError::Mqx { line, column, .. } => ReadError::Parse {
                format: "MQX",
                line,
                column,
                message: error.to_string(),
            },
            MqoError::Archive { .. } | MqoError::Options { .. } | MqoError::Io { .. } => {
                ReadError::Malformed {
                    location: location(0),
                    message: error.to_string().into(),
                }
            }
        }
    }
}

/// Why the bones and morphs of an `IncludeXml` side file were not imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MqxUnavailable {
    /// Only the MQO's bytes were given (`read_mqo`), so files next to it cannot be read.
    BytesOnly,
    /// No such file next to the MQO (or in its `.mqoz`).
    NotFound,
    /// The file exists but could not be read.
    Unreadable(String),
}

/// Something the importer read past, changed or could not carry over.
#[derive(Debug, Clone, PartialEq)]
pub enum MqoNote {
    /// A chunk the importer does not use (Scene, BackImage, Blob, Thumbnail, MaterialEx2, ...).
    SkippedChunk { name: String, line: usize },
    /// A statement or attribute the importer does not know (`where_` says in what).
    UnknownAttribute {
        name: String,
        where_: String,
        line: usize,
    },
    /// A `CodePage` the importer does not know; names were read as cp932.
    UnknownCodePage { value: String, line: usize },
    /// `Ver 1.x` newer than 1.1: read with the 1.1 rules.
    NewerMinorVersion { version: String },
    /// A hidden object (`visible 0`), imported or left out.
    HiddenObject { name: String, imported: bool },
    /// Faces with two corners (lines) that PMX cannot draw.
    SkippedLines { object: String, count: usize },
    /// Faces whose corners collapse to fewer than three distinct vertices.
    DegenerateFaces { object: String, count: usize },
    /// A subdivision surface, imported as its control mesh.
    Patch {
        object: String,
        patch: u32,
        segment: u32,
    },
    /// The object's mirror was applied (`welded`: vertices joined on the mirror planes).
    MirrorApplied {
        object: String,
        axes: u8,
        connected: bool,
        welded: usize,
    },
    /// The object's lathe was applied.
    LatheApplied {
        object: String,
        axis: u32,
        segments: u32,
        lathe: u32,
    },
    /// An `IncludeXml` file that was not read: no bones or morphs came from it.
    MqxMissing {
        file: String,
        reason: MqxUnavailable,
    },
    /// The model has no bone data: one root bone holds every vertex.
    RootBoneAdded { name: String, vertices: usize },
    /// Vertex weights that name an object or vertex that does not exist.
    DanglingWeights { bone: String, count: usize },
    /// Bones whose `parent` names no bone (made root bones) or that would close a cycle.
    BadBoneParent { bone: String, parent: u32 },
    /// Bones with the same `id`: the later ones were dropped.
    DuplicateBoneId { bone: String, id: u32 },
    /// Vertices with more than four bones: the four largest weights were kept and renormalised.
    WeightsTruncated { vertices: usize },
    /// MQX IK chains, which PMX expresses with separate IK bones, were not converted.
    IkNotConverted { bones: usize },
    /// The old Metasequoia 3 `BoneSet` (not `BoneSet2`) was not read.
    OldBoneSet,
    /// MQX plugin data the importer does not read.
    SkippedPlugin { name: String },
    /// Mirrored copies of a weighted or morphed object take the original's weights.
    MirrorKeepsWeights { object: String },
    /// A morph target object that is missing or has another vertex count than its base.
    MorphTargetMismatch { base: String, target: String },
    /// A face material index that names no material: the default material was used.
    MissingMaterial { object: String, count: usize },
    /// Material maps PMX cannot hold (`aplane`, `bump`) or a projection other than UV.
    MaterialMapDropped {
        material: String,
        kind: &'static str,
        value: String,
    },
    /// MQO materials no imported face uses; they were not made into PMX materials.
    UnusedMaterials { count: usize },
    /// Faces without a material got the added default material.
    DefaultMaterial { faces: usize },
    /// Vertex colours were kept as PMX 2.1 vertex colours (additional UV 1).
    VertexColorsKept { materials: usize },
    /// The file has vertex colours, but the target is PMX 2.0, which has none.
    VertexColorsDropped,
    /// A face with more corners than the ear clipper takes was fan-triangulated.
    HugeFace { object: String, corners: usize },
}

impl MqoNote {
    #[must_use]
    pub fn message_en(&self) -> String {
        match self {
            MqoNote::SkippedChunk { name, line } => {
                format!("chunk {name} (line {line}) skipped: not used by the import")
            }
            MqoNote::UnknownAttribute { name, where_, line } => {
                format!("unknown {where_} attribute {name} (line {line}) ignored")
            }
            MqoNote::UnknownCodePage { value, line } => {
                format!("unknown CodePage {value} (line {line}): names read as cp932")
            }
            MqoNote::NewerMinorVersion { version } => {
                format!("format version {version} is newer than 1.1: read with the 1.1 rules")
            }
            MqoNote::HiddenObject { name, imported } => {
                if *imported {
                    format!("object \"{name}\" is hidden in Metasequoia; imported")
                } else {
                    format!("object \"{name}\" is hidden in Metasequoia; left out")
                }
            }
            MqoNote::SkippedLines { object, count } => format!(
                "object \"{object}\": {count} two-corner faces (lines) skipped: PMX draws no lines"
            ),
            MqoNote::DegenerateFaces { object, count } => format!(
                "object \"{object}\": {count} faces with fewer than three distinct vertices skipped"
            ),
            MqoNote::Patch {
                object,
                patch,
                segment,
            } => format!(
                "object \"{object}\" is a subdivision surface ({}, {segment} segments): imported as its control mesh",
                patch_name_en(*patch)
            ),
            MqoNote::MirrorApplied {
                object,
                axes,
                connected,
                welded,
            } => format!(
                "object \"{object}\": mirror on {} applied ({}{})",
                axes_name(*axes),
                if *connected {
                    "halves connected"
                } else {
                    "halves separate"
                },
                if *connected {
                    format!(", {welded} vertices joined on the mirror plane")
                } else {
                    String::new()
                }
            ),
            MqoNote::LatheApplied {
                object,
                axis,
                segments,
                lathe,
            } => format!(
                "object \"{object}\": lathe around {} with {segments} segments applied{}",
                axis_name(*axis),
                if *lathe == 3 {
                    String::new()
                } else {
                    format!(
                        " (lathe type {lathe} is not in the specification; made double-sided like 3)"
                    )
                }
            ),
            MqoNote::MqxMissing { file, reason } => match reason {
                MqxUnavailable::BytesOnly => format!(
                    "bone/morph file {file} not read (only the MQO's bytes were given); no bones or morphs from it"
                ),
                MqxUnavailable::NotFound => format!(
                    "bone/morph file {file} not found next to the MQO; no bones or morphs from it"
                ),
                MqxUnavailable::Unreadable(message) => format!(
                    "bone/morph file {file} could not be read ({message}); no bones or morphs from it"
                ),
            },
            MqoNote::RootBoneAdded { name, vertices } => format!(
                "root bone \"{name}\" added; {vertices} vertices without bone weights are weighted to it"
            ),
            MqoNote::DanglingWeights { bone, count } => format!(
                "bone \"{bone}\": {count} weights name an object or vertex that does not exist; ignored"
            ),
            MqoNote::BadBoneParent { bone, parent } => format!(
                "bone \"{bone}\": parent {parent} is not a bone or closes a cycle; made a root bone"
            ),
            MqoNote::DuplicateBoneId { bone, id } => {
                format!("bone \"{bone}\": id {id} is used twice; this bone was dropped")
            }
            MqoNote::WeightsTruncated { vertices } => format!(
                "{vertices} vertices have more than four bones: the four largest weights were kept and renormalised"
            ),
            MqoNote::IkNotConverted { bones } => {
                format!(
                    "IK settings of {bones} bones not converted (PMX IK needs its own IK bones)"
                )
            }
            MqoNote::OldBoneSet => {
                "old Metasequoia 3 bone data (BoneSet) not read; only BoneSet2 is imported".into()
            }
            MqoNote::SkippedPlugin { name } => format!("MQX plugin data {name} skipped"),
            MqoNote::MirrorKeepsWeights { object } => format!(
                "object \"{object}\": mirrored vertices take the weights of the vertices they mirror"
            ),
            MqoNote::MorphTargetMismatch { base, target } => format!(
                "morph target \"{target}\" is missing or its vertex count differs from base \"{base}\"; morph skipped"
            ),
            MqoNote::MissingMaterial { object, count } => format!(
                "object \"{object}\": {count} faces name a material that does not exist; they got the default material"
            ),
            MqoNote::MaterialMapDropped {
                material,
                kind,
                value,
            } => format!("material \"{material}\": {kind} {value} has no PMX equivalent; dropped"),
            MqoNote::UnusedMaterials { count } => {
                format!("{count} materials used by no imported face were not imported")
            }
            MqoNote::DefaultMaterial { faces } => {
                format!("{faces} faces without a material got an added default material")
            }
            MqoNote::VertexColorsKept { materials } => format!(
                "vertex colours kept in additional UV 1 (PMX 2.1 vertex colour, on in {materials} materials)"
            ),
            MqoNote::VertexColorsDropped => {
                "vertex colours dropped: PMX 2.0 has none (import as PMX 2.1 to keep them)".into()
            }
            MqoNote::HugeFace { object, corners } => format!(
                "object \"{object}\": a face with {corners} corners was split as a fan (too many corners for ear clipping)"
            ),
        }
    }

    #[must_use]
    pub fn message_ja(&self) -> String {
        match self {
            MqoNote::SkippedChunk { name, line } => {
                format!("チャンク {name}（{line}行目）は使わないため読み飛ばしました")
            }
            MqoNote::UnknownAttribute { name, where_, line } => {
                format!("{where_}の不明な属性 {name}（{line}行目）を無視しました")
            }
            MqoNote::UnknownCodePage { value, line } => {
                format!("不明な CodePage {value}（{line}行目）: 名前は cp932 として読みました")
            }
            MqoNote::NewerMinorVersion { version } => {
                format!("形式バージョン {version} は 1.1 より新しいため、1.1 の規則で読みました")
            }
            MqoNote::HiddenObject { name, imported } => {
                if *imported {
                    format!("オブジェクト「{name}」は非表示です（読み込みました）")
                } else {
                    format!("オブジェクト「{name}」は非表示のため読み込みませんでした")
                }
            }
            MqoNote::SkippedLines { object, count } => format!(
                "オブジェクト「{object}」: 2頂点の面（線）{count}個はPMXで描けないため読み飛ばしました"
            ),
            MqoNote::DegenerateFaces { object, count } => format!(
                "オブジェクト「{object}」: 異なる頂点が3つ未満の面{count}個を読み飛ばしました"
            ),
            MqoNote::Patch {
                object,
                patch,
                segment,
            } => format!(
                "オブジェクト「{object}」は曲面（{}、分割数{segment}）です。制御メッシュとして読み込みました",
                patch_name_ja(*patch)
            ),
            MqoNote::MirrorApplied {
                object,
                axes,
                connected,
                welded,
            } => format!(
                "オブジェクト「{object}」: {}の鏡面を適用しました（{}）",
                axes_name(*axes),
                if *connected {
                    format!("左右を接続、鏡面上で{welded}頂点を結合")
                } else {
                    "左右を分離".to_owned()
                }
            ),
            MqoNote::LatheApplied {
                object,
                axis,
                segments,
                lathe,
            } => format!(
                "オブジェクト「{object}」: {}軸の回転体（分割数{segments}）を適用しました{}",
                axis_name(*axis),
                if *lathe == 3 {
                    String::new()
                } else {
                    format!("（回転体のタイプ{lathe}は仕様にないため、3と同じく両面にしました）")
                }
            ),
            MqoNote::MqxMissing { file, reason } => match reason {
                MqxUnavailable::BytesOnly => format!(
                    "ボーン・モーフのファイル {file} は読めません（MQOのデータだけが渡されました）。ボーンとモーフは読み込まれません"
                ),
                MqxUnavailable::NotFound => format!(
                    "ボーン・モーフのファイル {file} がMQOと同じ場所にありません。ボーンとモーフは読み込まれません"
                ),
                MqxUnavailable::Unreadable(message) => format!(
                    "ボーン・モーフのファイル {file} を読めません（{message}）。ボーンとモーフは読み込まれません"
                ),
            },
            MqoNote::RootBoneAdded { name, vertices } => format!(
                "ルートボーン「{name}」を追加し、ウェイトのない{vertices}頂点を割り当てました"
            ),
            MqoNote::DanglingWeights { bone, count } => format!(
                "ボーン「{bone}」: 存在しないオブジェクトか頂点を指すウェイト{count}個を無視しました"
            ),
            MqoNote::BadBoneParent { bone, parent } => format!(
                "ボーン「{bone}」: 親 {parent} がボーンでないか循環するため、ルートボーンにしました"
            ),
            MqoNote::DuplicateBoneId { bone, id } => {
                format!("ボーン「{bone}」: id {id} が重複しているため、このボーンを除きました")
            }
            MqoNote::WeightsTruncated { vertices } => format!(
                "4つより多いボーンを持つ{vertices}頂点は、大きい順に4つのウェイトを残して正規化しました"
            ),
            MqoNote::IkNotConverted { bones } => format!(
                "{bones}ボーンのIK設定は変換していません（PMXのIKには専用のIKボーンが必要です）"
            ),
            MqoNote::OldBoneSet => {
                "Metasequoia 3 の旧ボーンデータ（BoneSet）は読みません（BoneSet2 のみ読み込みます）"
                    .into()
            }
            MqoNote::SkippedPlugin { name } => {
                format!("MQXのプラグインデータ {name} を読み飛ばしました")
            }
            MqoNote::MirrorKeepsWeights { object } => format!(
                "オブジェクト「{object}」: 鏡面でできた頂点には元の頂点のウェイトを付けました"
            ),
            MqoNote::MorphTargetMismatch { base, target } => format!(
                "モーフのターゲット「{target}」がないか、ベース「{base}」と頂点数が違うため、このモーフを除きました"
            ),
            MqoNote::MissingMaterial { object, count } => format!(
                "オブジェクト「{object}」: 存在しない材質を指す面{count}個に既定の材質を付けました"
            ),
            MqoNote::MaterialMapDropped {
                material,
                kind,
                value,
            } => format!("材質「{material}」: {kind} {value} はPMXにないため除きました"),
            MqoNote::UnusedMaterials { count } => {
                format!("どの面にも使われていない材質{count}個は読み込みませんでした")
            }
            MqoNote::DefaultMaterial { faces } => {
                format!("材質のない面{faces}個に既定の材質を追加して付けました")
            }
            MqoNote::VertexColorsKept { materials } => format!(
                "頂点カラーを追加UV1に残しました（PMX 2.1 の頂点カラー、{materials}材質で有効）"
            ),
            MqoNote::VertexColorsDropped => {
                "PMX 2.0 には頂点カラーがないため除きました（PMX 2.1 として読み込むと残せます）"
                    .into()
            }
            MqoNote::HugeFace { object, corners } => format!(
                "オブジェクト「{object}」: {corners}頂点の面は耳切りには大きすぎるため扇状に分割しました"
            ),
        }
    }

    /// The 1-based MQO line the note is about, when it has one.
    #[must_use]
    pub fn line(&self) -> Option<usize> {
        match self {
            MqoNote::SkippedChunk { line, .. }
            | MqoNote::UnknownAttribute { line, .. }
            | MqoNote::UnknownCodePage { line, .. } => Some(*line),
            _ => None,
        }
    }
}

impl fmt::Display for MqoNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message_en())
    }
}

fn axis_name(axis: u32) -> &'static str {
    match axis {
        0 => "X",
        1 => "Y",
        _ => "Z",
    }
}

fn axes_name(axes: u8) -> String {
    let names: Vec<&str> = [(1, "X"), (2, "Y"), (4, "Z")]
        .into_iter()
        .filter(|(bit, _)| axes & bit != 0)
        .map(|(_, name)| name)
        .collect();
    names.join("+")
}

fn patch_name_en(patch: u32) -> String {
    match patch {
        1 => "spline type 1".into(),
        2 => "spline type 2".into(),
        3 => "Catmull-Clark".into(),
        4 => "OpenSubdiv".into(),
        other => format!("type {other}"),
    }
}

fn patch_name_ja(patch: u32) -> String {
    match patch {
        1 => "スプライン Type1".into(),
        2 => "スプライン Type2".into(),
        3 => "Catmull-Clark".into(),
        4 => "OpenSubdiv".into(),
        other => format!("タイプ{other}"),
    }
}

/// What an MQO import reports besides the model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MqoReport {
    /// The MQO's size in bytes.
    pub file_size: usize,
    pub notes: Vec<MqoNote>,
}

impl MqoReport {
    /// The chunks that were skipped, by name.
    pub fn skipped_chunks(&self) -> impl Iterator<Item = &str> {
        self.notes.iter().filter_map(|note| match note {
            MqoNote::SkippedChunk { name, .. } => Some(name.as_str()),
            _ => None,
        })
    }

    /// The hidden objects, by name.
    pub fn hidden_objects(&self) -> impl Iterator<Item = &str> {
        self.notes.iter().filter_map(|note| match note {
            MqoNote::HiddenObject { name, .. } => Some(name.as_str()),
            _ => None,
        })
    }

    /// Two-corner faces (lines) skipped, over all objects.
    #[must_use]
    pub fn skipped_lines(&self) -> usize {
        self.notes
            .iter()
            .map(|note| match note {
                MqoNote::SkippedLines { count, .. } => *count,
                _ => 0,
            })
            .sum()
    }

    /// Whether an `IncludeXml` file could not be read.
    #[must_use]
    pub fn mqx_missing(&self) -> bool {
        self.notes
            .iter()
            .any(|note| matches!(note, MqoNote::MqxMissing { .. }))
    }

    /// The report as the other readers give theirs (the app's load report): one note per
    /// item, in English, none of them marking lost data (the model is complete and valid; the
    /// notes say what MQO content PMX has no place for).
    #[must_use]
    pub fn to_load_report(&self) -> LoadReport {
        LoadReport {
            recovered_from: None,
            notes: self
                .notes
                .iter()
                .map(|note| LoadNote {
                    location: Location::text_line(note.line()),
                    message: note.message_en().into(),
                    lost: false,
                })
                .collect(),
            file_size: self.file_size,
            face_index_count: None,
        }
    }
}
