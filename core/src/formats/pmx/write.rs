//! PMX 2.0/2.1 writer.

use crate::formats::bytes::{PutLe, keep_spare, take_spare, write_all_at};
use crate::formats::error::{SaveReport, WriteError};
use crate::formats::files::start_writeback;
use crate::model::*;
use crate::path::ModelPath;
use rayon::prelude::*;
use std::fmt;
use std::fs::File;

/// How index sizes are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IndexSizeMode {
    /// The smallest sizes that fit the element counts.
    #[default]
    Minimal,
    /// The sizes the file was read with, where they still fit (minimal otherwise).
    Keep,
}

/// How to write a PMX file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PmxSaveOptions {
    /// Target version; `None` keeps the model's.
    pub version: Option<PmxVersion>,
    /// Target encoding; `None` keeps the model's.
    pub encoding: Option<TextEncoding>,
    pub index_sizes: IndexSizeMode,
    /// Write a PMX 2.0 file even though the model uses PMX 2.1 features.
    pub allow_version_violations: bool,
}

/// A PMX 2.1-only feature, as a PMX 2.0 file cannot hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pmx21Feature {
    /// A QDEF vertex weight.
    QdefWeight,
    /// A material's 2.1 draw flags (vertex colour, point and line drawing): those bits only.
    DrawFlags(DrawFlags),
    /// A flip or impulse morph.
    Morph(MorphKind),
    /// A joint kind other than the spring 6DOF.
    Joint(JointKind),
    /// A soft body.
    SoftBody,
}

impl fmt::Display for Pmx21Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pmx21Feature::QdefWeight => f.write_str("QDEF"),
            Pmx21Feature::DrawFlags(flags) => {
                write!(f, "0x{:02x} (vertex colour/point/line)", flags.bits())
            }
            Pmx21Feature::Morph(kind) => write!(
                f,
                "{} morph",
                if *kind == MorphKind::Flip {
                    "flip"
                } else {
                    "impulse"
                }
            ),
            Pmx21Feature::Joint(kind) => {
                write!(f, "{kind:?} (only the spring 6DOF exists in 2.0)")
            }
            Pmx21Feature::SoftBody => f.write_str("soft body"),
        }
    }
}

/// One use of a PMX 2.1-only feature: where it is and what it is. Its text is
/// `vertices[12].weight: QDEF`, `morphs[3]: flip morph`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pmx21Use {
    pub path: ModelPath,
    pub feature: Pmx21Feature,
}

impl fmt::Display for Pmx21Use {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.feature)
    }
}

/// Every use of a PMX 2.1-only feature (for a 2.0 target), in model order.
#[must_use]
pub fn pmx21_features(model: &Model) -> Vec<Pmx21Use> {
    let mut found = Vec::new();
    let mut add = |path, feature| found.push(Pmx21Use { path, feature });
    for (i, vertex) in model.vertices.iter().enumerate() {
        if let Weight::Qdef { .. } = vertex.weight {
            add(
                ModelPath::element(ElementKind::Vertex, i).field("weight"),
                Pmx21Feature::QdefWeight,
            );
        }
    }
    for (i, material) in model.materials.iter().enumerate() {
        let only21 = material.draw_flags & DrawFlags::PMX21_ONLY;
        if !only21.is_empty() {
            add(
                ModelPath::element(ElementKind::Material, i).field("draw_flags"),
                Pmx21Feature::DrawFlags(only21),
            );
        }
    }
    for (i, morph) in model.morphs.iter().enumerate() {
        let kind = morph.offsets.kind();
        if kind.is_pmx21_only() {
            add(
                ModelPath::element(ElementKind::Morph, i),
                Pmx21Feature::Morph(kind),
            );
        }
    }
    for (i, joint) in model.joints.iter().enumerate() {
        if joint.kind != JointKind::Spring6Dof {
            add(
                ModelPath::element(ElementKind::Joint, i).field("kind"),
                Pmx21Feature::Joint(joint.kind),
            );
        }
    }
    for i in 0..model.soft_bodies.len() {
        add(
            ModelPath::element(ElementKind::SoftBody, i),
            Pmx21Feature::SoftBody,
        );
    }
    found
}

/// Whether [`pmx21_features`] finds anything: the vertices (the long part) are looked at in
/// parallel and nothing is listed, as a save of a 2.0 model that has none (the usual case)
/// needs no list.
fn uses_pmx21_features(model: &Model) -> bool {
    model
        .vertices
        .par_iter()
        .with_min_len(1 << 14)
        .any(|vertex| matches!(vertex.weight, Weight::Qdef { .. }))
        || model
            .materials
            .iter()
            .any(|material| material.draw_flags.intersects(DrawFlags::PMX21_ONLY))
        || model
            .morphs
            .iter()
            .any(|morph| morph.offsets.kind().is_pmx21_only())
        || model
            .joints
            .iter()
            .any(|joint| joint.kind != JointKind::Spring6Dof)
        || !model.soft_bodies.is_empty()
}

/// The index sizes a write with `mode` uses.
#[must_use]
pub fn choose_index_sizes(model: &Model, mode: IndexSizeMode) -> IndexSizes {
    let minimal = IndexSizes::minimal_for(model);
    let (IndexSizeMode::Keep, Some(kept)) = (mode, model.header.index_sizes) else {
        return minimal;
    };
    let pick = |kept: u8, minimal: u8, count: usize, unsigned: bool| {
        if index_size_fits(kept, count, unsigned) {
            kept
        } else {
            minimal
        }
    };
    IndexSizes {
        vertex: pick(kept.vertex, minimal.vertex, model.vertices.len(), true),
        texture: pick(kept.texture, minimal.texture, model.textures.len(), false),
        material: pick(
            kept.material,
            minimal.material,
            model.materials.len(),
            false,
        ),
        bone: pick(kept.bone, minimal.bone, model.bones.len(), false),
        morph: pick(kept.morph, minimal.morph, model.morphs.len(), false),
        rigid_body: pick(
            kept.rigid_body,
            minimal.rigid_body,
            model.rigid_bodies.len(),
            false,
        ),
    }
}

/// Writes `model` as PMX.
pub fn write(model: &Model, options: &PmxSaveOptions) -> Result<(Vec<u8>, SaveReport), WriteError> {
    let plan = Plan::new(model, options)?;
    let mut w = Writer::new(&plan, None, estimate_size(model, plan.sizes));
    w.whole_file(model, &plan)?;
    Ok((w.out, w.report))
}

/// Writes `model` as PMX to `sink` as it goes, a quarter megabyte at a time: the file is never
/// whole in memory (a 261 MB model saves with a buffer of [`CHUNK`]).
pub fn write_to(
    model: &Model,
    options: &PmxSaveOptions,
    sink: &mut dyn std::io::Write,
) -> Result<SaveReport, WriteError> {
    let plan = Plan::new(model, options)?;
    let mut w = Writer::new(&plan, Some(sink), 0);
    w.whole_file(model, &plan)?;
    Ok(w.report)
}

/// Writes `model` as PMX into `file` (empty, just created) from its start. A big model is
/// written by several threads at once, each a part of the vertices, the faces or the morphs at
/// its place in the file (the size of every part is worked out first), while the small sections
/// are written from memory. Fails exactly as [`write`] does.
pub fn write_file(
    model: &Model,
    options: &PmxSaveOptions,
    file: &File,
) -> Result<SaveReport, WriteError> {
    const PARALLEL_FROM: usize = 10_000;
    let offsets: usize = model.morphs.iter().map(|morph| morph.offsets.len()).sum();
    if model.vertices.len() + model.faces.len() + offsets < PARALLEL_FROM {
        return write_to(model, options, &mut AtOffset { file, offset: 0 });
    }
    let plan = Plan::new(model, options)?;
    write_in_parts(model, &plan, file).map_err(|error| {
        // The parts are written out of order: the error to report is the first one in file
        // order, which the sequential writer finds (without writing anywhere).
        match write_to(model, options, &mut std::io::sink()) {
            Err(first) => first,
            Ok(_) => error,
        }
    })
}

thread_local! {
    /// Files written in parts by [`write_file`] on this thread: see [`parallel_writes`].
    static PARALLEL_WRITES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many files [`write_file`] wrote in parallel parts on this thread: for the tests, which
/// check that the parallel path engaged.
#[doc(hidden)]
pub fn parallel_writes() -> usize {
    PARALLEL_WRITES.with(std::cell::Cell::get)
}

/// Vertices one worker writes at a time.
const VERTEX_PART: usize = 1 << 15;
/// Triangles one worker writes at a time.
const FACE_PART: usize = 1 << 16;
/// Bytes of morphs one worker writes at a time (at least one morph).
const MORPH_PART: u64 = 1 << 20;

/// A part of the file a worker writes: a range of the elements of one list.
#[derive(Debug, Clone)]
enum Part {
    Vertices(std::ops::Range<usize>),
    Faces(std::ops::Range<usize>),
    Morphs(std::ops::Range<usize>),
}

/// [`write_file`]'s parallel path: the small sections written from memory (the header and
/// model info; the textures, materials and bones; what follows the morphs; each with the count
/// of the list after it) and [`Part`]s of the vertices, faces and morphs between them, written
/// by the workers at offsets worked out from their sizes.
fn write_in_parts(model: &Model, plan: &Plan, file: &File) -> Result<SaveReport, WriteError> {
    let sizes = plan.sizes;
    let mut head = Writer::new(plan, None, 4096);
    head.head(model, plan)?;
    head.count(model.vertices.len(), "vertices")?;
    let mut faces_count = Writer::new(plan, None, 4);
    faces_count.count(model.faces.len().saturating_mul(3), "faces")?;
    let mut middle = Writer::new(plan, None, 64 << 10);
    middle.middle(model)?;
    middle.count(model.morphs.len(), "morphs")?;
    let mut after = Writer::new(plan, None, 64 << 10);
    after.after_morphs(model, plan)?;

    // The parts in file order, each with its length in bytes.
    let mut parts: Vec<(Part, u64)> = Vec::new();
    let vertex_chunks: Vec<&[Vertex]> = model.vertices.chunks(VERTEX_PART).collect();
    let in_file_order: Vec<usize> = (0..vertex_chunks.len()).collect();
    let vertex_sizes = on_caller_and_helpers(&in_file_order, |i| {
        vertices_len(vertex_chunks[i], model.additional_uvs.len(), sizes)
    });
    for (chunk, len) in vertex_sizes.into_iter().enumerate() {
        let start = chunk * VERTEX_PART;
        let end = (start + VERTEX_PART).min(model.vertices.len());
        parts.push((Part::Vertices(start..end), len));
    }
    let triangle = 3 * u64::from(sizes.vertex);
    for start in (0..model.faces.len()).step_by(FACE_PART) {
        let end = (start + FACE_PART).min(model.faces.len());
        parts.push((Part::Faces(start..end), (end - start) as u64 * triangle));
    }
    let mut scratch = Vec::new();
    let (mut group_start, mut group_len) = (0, 0);
    for (i, morph) in model.morphs.iter().enumerate() {
        group_len += morph_len(morph, plan.encoding, sizes, &mut scratch);
        if group_len >= MORPH_PART || i + 1 == model.morphs.len() {
            parts.push((Part::Morphs(group_start..i + 1), group_len));
            (group_start, group_len) = (i + 1, 0);
        }
    }

    // The offsets: a section from memory sits before the first part of the list it counts.
    let faces_len = faces_count.out.len() as u64;
    let middle_len = middle.out.len() as u64;
    let mut at = head.out.len() as u64;
    let (mut faces_at, mut middle_at) = (None, None);
    let mut placed = Vec::with_capacity(parts.len());
    for (part, len) in parts {
        if !matches!(part, Part::Vertices(_)) && faces_at.is_none() {
            faces_at = Some(at);
            at += faces_len;
        }
        if matches!(part, Part::Morphs(_)) && middle_at.is_none() {
            middle_at = Some(at);
            at += middle_len;
        }
        placed.push((part, at, len));
        at += len;
    }
    let faces_at = faces_at.unwrap_or_else(|| {
        at += faces_len;
        at - faces_len
    });
    let middle_at = middle_at.unwrap_or_else(|| {
        at += middle_len;
        at - middle_len
    });
    let after_at = at;

    // The longest parts first, so that no long one is left to run alone at the end (a 4.4 MB
    // model's morphs, last in the file, took a millisecond after both threads' vertices).
    let mut order: Vec<usize> = (0..placed.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(placed[i].2));
    let reports = on_caller_and_helpers(&order, |i| {
        let (part, offset, len) = &placed[i];
        write_part(model, plan, file, part, *offset, *len)
    })
    .into_iter()
    .collect::<Result<Vec<SaveReport>, WriteError>>()?;
    for (bytes, offset) in [
        (&head.out, 0),
        (&faces_count.out, faces_at),
        (&middle.out, middle_at),
        (&after.out, after_at),
    ] {
        write_all_at(file, bytes, offset).map_err(|error| WriteError::Io(error.to_string()))?;
    }
    PARALLEL_WRITES.with(|writes| writes.set(writes.get() + 1));
    let mut report = plan.report.clone();
    report.warnings.extend(head.report.warnings);
    report.warnings.extend(middle.report.warnings);
    for part in reports {
        report.warnings.extend(part.warnings);
    }
    report.warnings.extend(after.report.warnings);
    Ok(report)
}

/// `job(i)` for every `i` in `order` (each index of `0..order.len()` once), taken in that
/// order by this thread and by as many helper threads as the pool has threads besides
/// (rayon's count: `RAYON_NUM_THREADS` is heeded); the results by `i`, from 0 up. A panic in a
/// job is passed on. Fresh threads rather than the pool's, and this thread working rather
/// than waiting: a sleeping pool thread, woken, was often queued behind the waker on its core,
/// and started a millisecond late on two cores (a quarter of a 4.4 MB model's save); a new
/// thread goes to an idle core at once.
fn on_caller_and_helpers<T: Send>(order: &[usize], job: impl Fn(usize) -> T + Sync) -> Vec<T> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    // Each thread's results with their indices.
    let work = || {
        let mut done = Vec::new();
        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            done.push((i, job(i)));
        }
        done
    };
    let helpers = rayon::current_num_threads()
        .min(order.len())
        .saturating_sub(1);
    let mut done = std::thread::scope(|scope| {
        // Where no thread can be made, the others (this one at least) do its share.
        let helpers: Vec<_> = (0..helpers)
            .filter_map(|_| std::thread::Builder::new().spawn_scoped(scope, work).ok())
            .collect();
        let mut done = work();
        for helper in helpers {
            match helper.join() {
                Ok(theirs) => done.extend(theirs),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        done
    });
    done.sort_unstable_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, result)| result).collect()
}

/// Writes `part` at `offset` of `file`; it must take the `len` bytes set aside for it.
fn write_part(
    model: &Model,
    plan: &Plan,
    file: &File,
    part: &Part,
    offset: u64,
    len: u64,
) -> Result<SaveReport, WriteError> {
    let mut sink = AtOffset { file, offset };
    // A part of a few kilobytes (a small model's faces, a group of morphs) takes a buffer of
    // its size, not a whole chunk of fresh memory.
    let mut w = Writer::new(plan, Some(&mut sink), usize::try_from(len).unwrap_or(CHUNK));
    match part {
        Part::Vertices(range) => w.vertex_records(model, range.clone())?,
        Part::Faces(range) => w.face_records(model, range.clone())?,
        Part::Morphs(range) => {
            for i in range.clone() {
                w.morph(&model.morphs[i], i)?;
                w.flush()?;
            }
        }
    }
    w.flush_all()?;
    let report = std::mem::take(&mut w.report);
    // The buffer is the next part's on this thread.
    keep_spare(std::mem::take(&mut w.out));
    drop(w);
    let written = sink.offset - offset;
    if written != len {
        return Err(WriteError::Io(format!(
            "a part took {written} bytes, {len} were set aside"
        )));
    }
    Ok(report)
}

/// The bytes of `vertices` in the vertex section.
fn vertices_len(vertices: &[Vertex], channels: usize, sizes: IndexSizes) -> u64 {
    // The reader's table: the two sides cannot disagree on a record's size.
    let weight_sizes = super::read::weight_sizes(usize::from(sizes.bone));
    let fixed = 32 + 16 * channels as u64 + 1 + 4;
    let weights: u64 = vertices
        .iter()
        .map(|vertex| weight_sizes[vertex.weight.kind() as usize] as u64)
        .sum();
    fixed * vertices.len() as u64 + weights
}

/// The bytes of `morph` in the file (`scratch` takes its names' encoded text).
fn morph_len(
    morph: &Morph,
    encoding: TextEncoding,
    sizes: IndexSizes,
    scratch: &mut Vec<u8>,
) -> u64 {
    let mut texts = 0;
    for text in [&morph.name_ja, &morph.name_en] {
        scratch.clear();
        let _lossy = text.encode_into(encoding, scratch);
        texts += 4 + scratch.len() as u64;
    }
    let offset = super::read::morph_offset_size(morph.offsets.kind(), sizes) as u64;
    texts + 1 + 1 + 4 + morph.offsets.len() as u64 * offset
}

/// A `Write` that puts its bytes at `offset` of `file` and moves on (positioned writes, so
/// that two writers can fill two parts of one file at once).
struct AtOffset<'f> {
    file: &'f File,
    offset: u64,
}

impl std::io::Write for AtOffset<'_> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        write_all_at(self.file, bytes, self.offset)?;
        start_writeback(self.file, self.offset, bytes.len());
        self.offset += bytes.len() as u64;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Bytes the writer gathers before it hands them to its sink: a quarter megabyte, which stays
/// in the core's cache until the write copies it (and maps 64 pages where a part's buffer is
/// new).
const CHUNK: usize = 1 << 18;

/// What a write settles before the first byte: the version, encoding and index sizes, the
/// model's fitness for them, and the warnings that go with them.
struct Plan {
    version: PmxVersion,
    encoding: TextEncoding,
    sizes: IndexSizes,
    report: SaveReport,
}

impl Plan {
    fn new(model: &Model, options: &PmxSaveOptions) -> Result<Self, WriteError> {
        let version = options.version.unwrap_or(model.header.version);
        let encoding = options.encoding.unwrap_or(model.header.encoding);
        let mut report = SaveReport::default();
        if version == PmxVersion::V2_0 && uses_pmx21_features(model) {
            let violations = pmx21_features(model);
            if !violations.is_empty() {
                if !options.allow_version_violations {
                    return Err(WriteError::VersionViolations {
                        violations: violations.iter().map(ToString::to_string).collect(),
                    });
                }
                if !model.soft_bodies.is_empty() {
                    report.warnings.push(
                        format!(
                            "{} soft bodies are not written: PMX 2.0 has no soft body section",
                            model.soft_bodies.len()
                        )
                        .into(),
                    );
                }
            }
        }
        let channels = model.additional_uvs.len();
        if channels > 4 {
            return Err(WriteError::Unrepresentable {
                path: "additional_uvs".into(),
                message: format!("{channels} additional UV channels; PMX holds at most 4").into(),
            });
        }
        for (channel, values) in model.additional_uvs.iter().enumerate() {
            if values.len() != model.vertices.len() {
                return Err(WriteError::Unrepresentable {
                    path: format!("additional_uvs[{channel}]"),
                    message: format!(
                        "{} values for {} vertices",
                        values.len(),
                        model.vertices.len()
                    )
                    .into(),
                });
            }
        }
        let sizes = choose_index_sizes(model, options.index_sizes);
        Ok(Plan {
            version,
            encoding,
            sizes,
            report,
        })
    }
}

impl<'w> Writer<'w> {
    /// A writer gathering `capacity` bytes in memory, or handing them to `sink` a chunk at a
    /// time (then `capacity` is what it will write, 0 for unknown: a new buffer is no larger;
    /// the thread's spare, already mapped, may be).
    fn new(plan: &Plan, sink: Option<&'w mut dyn std::io::Write>, capacity: usize) -> Self {
        let out = if sink.is_some() {
            let chunk = if capacity == 0 {
                CHUNK
            } else {
                capacity.min(CHUNK)
            };
            // A chunk and room for the element that crosses its end.
            let wanted = chunk + (64 << 10);
            // The thread's spare buffer where it is large enough: its pages are mapped.
            let mut spare = take_spare();
            spare.clear();
            if spare.capacity() < wanted {
                spare = Vec::with_capacity(wanted);
            }
            spare
        } else {
            Vec::with_capacity(capacity)
        };
        Writer {
            out,
            sink,
            encoding: plan.encoding,
            sizes: plan.sizes,
            report: SaveReport::default(),
        }
    }

    /// Every section in file order, with the plan's warnings first; what is gathered is
    /// handed to the sink at the end.
    fn whole_file(&mut self, model: &Model, plan: &Plan) -> Result<(), WriteError> {
        self.report = plan.report.clone();
        self.head(model, plan)?;
        self.vertices(model)?;
        self.faces(model)?;
        self.middle(model)?;
        self.tail(model, plan)?;
        self.flush_all()
    }

    /// The header and the model info.
    fn head(&mut self, model: &Model, plan: &Plan) -> Result<(), WriteError> {
        let (version, encoding, sizes) = (plan.version, plan.encoding, plan.sizes);
        let channels = model.additional_uvs.len();
        self.out.extend_from_slice(super::read::MAGIC);
        self.out.put_f32(version.as_f32());
        self.out.put_u8(8);
        self.out.put_u8(match encoding {
            TextEncoding::Utf16 => 0,
            TextEncoding::Utf8 => 1,
        });
        self.out.put_u8(channels as u8);
        self.out.extend_from_slice(&sizes.to_array());

        self.text(&model.info.name_ja, "model_info.name_ja");
        self.text(&model.info.name_en, "model_info.name_en");
        self.text(&model.info.comment_ja, "model_info.comment_ja");
        self.text(&model.info.comment_en, "model_info.comment_en");
        Ok(())
    }

    fn vertices(&mut self, model: &Model) -> Result<(), WriteError> {
        self.count(model.vertices.len(), "vertices")?;
        self.vertex_records(model, 0..model.vertices.len())
    }

    /// The vertices of `range`, without the count.
    fn vertex_records(
        &mut self,
        model: &Model,
        range: std::ops::Range<usize>,
    ) -> Result<(), WriteError> {
        let start = range.start;
        for (i, vertex) in model.vertices[range].iter().enumerate() {
            let i = start + i;
            self.out.put_vec3(vertex.position);
            self.out.put_vec3(vertex.normal);
            self.out.put_vec2(vertex.uv);
            for channel in &model.additional_uvs {
                self.out
                    .put_vec4(channel.get(i).copied().unwrap_or_default());
            }
            self.weight(&vertex.weight, i)?;
            self.out.put_f32(vertex.edge_scale);
            self.flush()?;
        }
        Ok(())
    }

    fn faces(&mut self, model: &Model) -> Result<(), WriteError> {
        self.count(model.faces.len().saturating_mul(3), "faces")?;
        self.face_records(model, 0..model.faces.len())
    }

    /// The triangles of `range`, without the count.
    fn face_records(
        &mut self,
        model: &Model,
        range: std::ops::Range<usize>,
    ) -> Result<(), WriteError> {
        let start = range.start;
        for (i, face) in model.faces[range].iter().enumerate() {
            let i = start + i;
            for &vertex in face {
                self.vertex(vertex, || format!("faces[{i}]"))?;
            }
            self.flush()?;
        }
        Ok(())
    }

    /// Textures, materials and bones: the small sections between the faces and the morphs.
    fn middle(&mut self, model: &Model) -> Result<(), WriteError> {
        let sizes = self.sizes;
        self.count(model.textures.len(), "textures")?;
        for (i, path) in model.textures.iter().enumerate() {
            self.text(path, &format!("textures[{i}]"));
        }

        self.count(model.materials.len(), "materials")?;
        for (i, m) in model.materials.iter().enumerate() {
            let at = || format!("materials[{i}]");
            self.text(&m.name_ja, &format!("materials[{i}].name_ja"));
            self.text(&m.name_en, &format!("materials[{i}].name_en"));
            self.out.put_vec4(m.diffuse);
            self.out.put_vec3(m.specular);
            self.out.put_f32(m.specular_power);
            self.out.put_vec3(m.ambient);
            self.out.put_u8(m.draw_flags.bits());
            self.out.put_vec4(m.edge_color);
            self.out.put_f32(m.edge_size);
            self.signed(TextureIdx::to_raw(m.texture), sizes.texture, || {
                format!("{}.texture", at())
            })?;
            self.signed(TextureIdx::to_raw(m.sphere_texture), sizes.texture, || {
                format!("{}.sphere_texture", at())
            })?;
            self.out.put_u8(m.sphere_mode.to_raw());
            match m.toon {
                Toon::Texture(texture) => {
                    self.out.put_u8(0);
                    self.signed(TextureIdx::to_raw(texture), sizes.texture, || {
                        format!("{}.toon", at())
                    })?;
                }
                Toon::Shared(number) => {
                    self.out.put_u8(1);
                    self.out.put_u8(number);
                }
            }
            self.text(&m.memo, &format!("materials[{i}].memo"));
            self.out
                .put_i32(i32::try_from(m.face_index_count).map_err(|_| {
                    WriteError::Unrepresentable {
                        path: format!("{}.face_index_count", at()),
                        message: format!("{} does not fit an int", m.face_index_count).into(),
                    }
                })?);
        }

        self.count(model.bones.len(), "bones")?;
        for (i, bone) in model.bones.iter().enumerate() {
            self.bone_record(bone, i)?;
        }
        Ok(())
    }

    /// The morphs and every section after them.
    fn tail(&mut self, model: &Model, plan: &Plan) -> Result<(), WriteError> {
        self.count(model.morphs.len(), "morphs")?;
        for (i, morph) in model.morphs.iter().enumerate() {
            self.morph(morph, i)?;
            self.flush()?;
        }
        self.after_morphs(model, plan)
    }

    /// The display frames and every section after them.
    fn after_morphs(&mut self, model: &Model, plan: &Plan) -> Result<(), WriteError> {
        let (version, sizes) = (plan.version, self.sizes);
        self.count(model.display_frames.len(), "display_frames")?;
        for (i, frame) in model.display_frames.iter().enumerate() {
            self.text(&frame.name_ja, &format!("display_frames[{i}].name_ja"));
            self.text(&frame.name_en, &format!("display_frames[{i}].name_en"));
            self.out.put_u8(u8::from(frame.special));
            self.count(frame.items.len(), "display frame items")?;
            for (j, item) in frame.items.iter().enumerate() {
                let at = || format!("display_frames[{i}].items[{j}]");
                match *item {
                    DisplayItem::Bone(bone) => {
                        self.out.put_u8(0);
                        self.signed(BoneIdx::to_raw(bone), sizes.bone, at)?;
                    }
                    DisplayItem::Morph(morph) => {
                        self.out.put_u8(1);
                        self.signed(MorphIdx::to_raw(morph), sizes.morph, at)?;
                    }
                }
            }
        }

        self.count(model.rigid_bodies.len(), "rigid_bodies")?;
        for (i, body) in model.rigid_bodies.iter().enumerate() {
            self.text(&body.name_ja, &format!("rigid_bodies[{i}].name_ja"));
            self.text(&body.name_en, &format!("rigid_bodies[{i}].name_en"));
            self.signed(BoneIdx::to_raw(body.bone), sizes.bone, || {
                format!("rigid_bodies[{i}].bone")
            })?;
            self.out.put_u8(body.group);
            self.out.put_u16(body.non_collision_mask);
            self.out.put_u8(body.shape.to_raw());
            self.out.put_vec3(body.size);
            self.out.put_vec3(body.position);
            self.out.put_vec3(body.rotation);
            self.out.put_f32(body.mass);
            self.out.put_f32(body.linear_damping);
            self.out.put_f32(body.angular_damping);
            self.out.put_f32(body.restitution);
            self.out.put_f32(body.friction);
            self.out.put_u8(body.mode.to_raw());
        }

        self.count(model.joints.len(), "joints")?;
        for (i, joint) in model.joints.iter().enumerate() {
            self.text(&joint.name_ja, &format!("joints[{i}].name_ja"));
            self.text(&joint.name_en, &format!("joints[{i}].name_en"));
            self.out.put_u8(joint.kind.to_raw());
            self.signed(RigidBodyIdx::to_raw(joint.body_a), sizes.rigid_body, || {
                format!("joints[{i}].body_a")
            })?;
            self.signed(RigidBodyIdx::to_raw(joint.body_b), sizes.rigid_body, || {
                format!("joints[{i}].body_b")
            })?;
            for v in [
                joint.position,
                joint.rotation,
                joint.move_lower,
                joint.move_upper,
                joint.rotate_lower,
                joint.rotate_upper,
                joint.spring_move,
                joint.spring_rotate,
            ] {
                self.out.put_vec3(v);
            }
        }

        if version == PmxVersion::V2_1 {
            self.count(model.soft_bodies.len(), "soft_bodies")?;
            for (i, body) in model.soft_bodies.iter().enumerate() {
                self.soft_body(body, i)?;
            }
        }
        Ok(())
    }
}

/// A close upper estimate of the file size, so the output buffer is allocated once.
fn estimate_size(model: &Model, sizes: IndexSizes) -> usize {
    let vertex = 32 + 16 * model.additional_uvs.len() + 1 + 4 * sizes.bone as usize + 16 + 4;
    let names = 200;
    1024 + model.vertices.len() * vertex
        + model.faces.len() * 3 * sizes.vertex as usize
        + (model.textures.len() + model.materials.len() + model.bones.len() + model.morphs.len())
            * names
        + model.materials.len() * 120
        + model.bones.len() * 120
        + model.rigid_bodies.len() * 150
        + model.joints.len() * 160
}

struct Writer<'w> {
    out: Vec<u8>,
    sink: Option<&'w mut dyn std::io::Write>,
    encoding: TextEncoding,
    sizes: IndexSizes,
    report: SaveReport,
}

impl Writer<'_> {
    /// Hands what is gathered to the sink once it is a chunk (called between elements, so a
    /// text's length is always patched before its bytes leave).
    #[inline]
    fn flush(&mut self) -> Result<(), WriteError> {
        if self.out.len() >= CHUNK {
            self.flush_all()?;
        }
        Ok(())
    }

    #[cold]
    fn flush_all(&mut self) -> Result<(), WriteError> {
        if let Some(sink) = &mut self.sink {
            sink.write_all(&self.out)
                .map_err(|error| WriteError::Io(error.to_string()))?;
            self.out.clear();
        }
        Ok(())
    }

    fn count(&mut self, count: usize, what: &str) -> Result<(), WriteError> {
        let count = i32::try_from(count).map_err(|_| WriteError::Unrepresentable {
            path: what.to_owned(),
            message: format!("{count} elements do not fit PMX's int count").into(),
        })?;
        self.out.put_i32(count);
        Ok(())
    }

    fn text(&mut self, text: &Text, path: &str) {
        let len_at = self.out.reserve_u32();
        if text.encode_into(self.encoding, &mut self.out) {
            self.report.warnings.push(
                format!(
                    "{path}: undecodable text converted to {} with replacement characters",
                    self.encoding.name()
                )
                .into(),
            );
        }
        let len = (self.out.len() - len_at - 4) as u32;
        self.out.patch_u32(len_at, len);
    }

    /// Writes a signed index of `size` bytes; values that do not fit are an error.
    fn signed(
        &mut self,
        raw: i32,
        size: u8,
        path: impl FnOnce() -> String,
    ) -> Result<(), WriteError> {
        match size {
            1 => match i8::try_from(raw) {
                Ok(v) => self.out.put_u8(v as u8),
                Err(_) => return Err(does_not_fit(path(), raw as i64, size)),
            },
            2 => match i16::try_from(raw) {
                Ok(v) => self.out.put_i16(v),
                Err(_) => return Err(does_not_fit(path(), raw as i64, size)),
            },
            _ => self.out.put_i32(raw),
        }
        Ok(())
    }

    fn vertex(
        &mut self,
        vertex: VertexIdx,
        path: impl FnOnce() -> String,
    ) -> Result<(), WriteError> {
        let raw = vertex.0;
        match self.sizes.vertex {
            1 => match u8::try_from(raw) {
                Ok(v) => self.out.put_u8(v),
                Err(_) => return Err(does_not_fit(path(), raw as i64, 1)),
            },
            2 => match u16::try_from(raw) {
                Ok(v) => self.out.put_u16(v),
                Err(_) => return Err(does_not_fit(path(), raw as i64, 2)),
            },
            _ => self.out.put_u32(raw),
        }
        Ok(())
    }

    fn bone(
        &mut self,
        bone: Option<BoneIdx>,
        path: impl FnOnce() -> String,
    ) -> Result<(), WriteError> {
        self.signed(BoneIdx::to_raw(bone), self.sizes.bone, path)
    }

    fn weight(&mut self, weight: &Weight, i: usize) -> Result<(), WriteError> {
        let at = || format!("vertices[{i}].weight");
        self.out.put_u8(weight.kind() as u8);
        match weight {
            Weight::Bdef1 { bone } => self.bone(*bone, at)?,
            Weight::Bdef2 { bones, weight } => {
                self.bone(bones[0], at)?;
                self.bone(bones[1], at)?;
                self.out.put_f32(*weight);
            }
            Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
                for bone in bones {
                    self.bone(*bone, at)?;
                }
                for weight in weights {
                    self.out.put_f32(*weight);
                }
            }
            Weight::Sdef {
                bones,
                weight,
                c,
                r0,
                r1,
            } => {
                self.bone(bones[0], at)?;
                self.bone(bones[1], at)?;
                self.out.put_f32(*weight);
                self.out.put_vec3(*c);
                self.out.put_vec3(*r0);
                self.out.put_vec3(*r1);
            }
        }
        Ok(())
    }

    fn bone_record(&mut self, bone: &Bone, i: usize) -> Result<(), WriteError> {
        let at = |field: &str| format!("bones[{i}].{field}");
        self.text(&bone.name_ja, &at("name_ja"));
        self.text(&bone.name_en, &at("name_en"));
        self.out.put_vec3(bone.position);
        self.bone(bone.parent, || at("parent"))?;
        self.out.put_i32(bone.layer);
        let flags = bone.flags;
        self.out.put_u16(flags.bits());
        if flags.contains(BoneFlags::TAIL_IS_BONE) {
            self.bone(bone.tail_bone, || at("tail_bone"))?;
        } else {
            self.out.put_vec3(bone.tail_offset);
        }
        if flags.intersects(BoneFlags::APPEND_ROTATE | BoneFlags::APPEND_MOVE) {
            self.bone(bone.append_parent, || at("append_parent"))?;
            self.out.put_f32(bone.append_ratio);
        }
        if flags.contains(BoneFlags::FIXED_AXIS) {
            self.out.put_vec3(bone.fixed_axis);
        }
        if flags.contains(BoneFlags::LOCAL_AXES) {
            self.out.put_vec3(bone.local_axis_x);
            self.out.put_vec3(bone.local_axis_z);
        }
        if flags.contains(BoneFlags::EXTERNAL_PARENT) {
            self.out.put_i32(bone.external_parent_key);
        }
        if flags.contains(BoneFlags::IK) {
            self.bone(bone.ik.target, || at("ik.target"))?;
            self.out.put_i32(bone.ik.loop_count);
            self.out.put_f32(bone.ik.limit_angle);
            self.count(bone.ik.links.len(), &at("ik.links"))?;
            for (j, link) in bone.ik.links.iter().enumerate() {
                self.bone(link.bone, || at(&format!("ik.links[{j}].bone")))?;
                match &link.limits {
                    Some(limits) => {
                        self.out.put_u8(1);
                        self.out.put_vec3(limits.lower);
                        self.out.put_vec3(limits.upper);
                    }
                    None => self.out.put_u8(0),
                }
            }
        }
        Ok(())
    }

    fn morph(&mut self, morph: &Morph, i: usize) -> Result<(), WriteError> {
        let sizes = self.sizes;
        self.text(&morph.name_ja, &format!("morphs[{i}].name_ja"));
        self.text(&morph.name_en, &format!("morphs[{i}].name_en"));
        self.out.put_u8(morph.panel.to_raw());
        self.out.put_u8(morph.offsets.kind() as u8);
        self.count(morph.offsets.len(), &format!("morphs[{i}].offsets"))?;
        let at = |j: usize| move || format!("morphs[{i}].offsets[{j}]");
        match &morph.offsets {
            MorphOffsets::Group(offsets) | MorphOffsets::Flip(offsets) => {
                for (j, o) in offsets.iter().enumerate() {
                    self.signed(MorphIdx::to_raw(o.morph), sizes.morph, at(j))?;
                    self.out.put_f32(o.ratio);
                    self.flush()?;
                }
            }
            MorphOffsets::Vertex(offsets) => {
                for (j, o) in offsets.iter().enumerate() {
                    self.vertex(o.vertex, at(j))?;
                    self.out.put_vec3(o.offset);
                    self.flush()?;
                }
            }
            MorphOffsets::Bone(offsets) => {
                for (j, o) in offsets.iter().enumerate() {
                    self.bone(o.bone, at(j))?;
                    self.out.put_vec3(o.translation);
                    self.out.put_vec4(o.rotation);
                    self.flush()?;
                }
            }
            MorphOffsets::Uv(offsets)
            | MorphOffsets::AdditionalUv1(offsets)
            | MorphOffsets::AdditionalUv2(offsets)
            | MorphOffsets::AdditionalUv3(offsets)
            | MorphOffsets::AdditionalUv4(offsets) => {
                for (j, o) in offsets.iter().enumerate() {
                    self.vertex(o.vertex, at(j))?;
                    self.out.put_vec4(o.offset);
                    self.flush()?;
                }
            }
            MorphOffsets::Material(offsets) => {
                for (j, o) in offsets.iter().enumerate() {
                    self.signed(MaterialIdx::to_raw(o.material), sizes.material, at(j))?;
                    self.out.put_u8(o.op.to_raw());
                    self.out.put_vec4(o.diffuse);
                    self.out.put_vec3(o.specular);
                    self.out.put_f32(o.specular_power);
                    self.out.put_vec3(o.ambient);
                    self.out.put_vec4(o.edge_color);
                    self.out.put_f32(o.edge_size);
                    self.out.put_vec4(o.texture_tint);
                    self.out.put_vec4(o.sphere_tint);
                    self.out.put_vec4(o.toon_tint);
                    self.flush()?;
                }
            }
            MorphOffsets::Impulse(offsets) => {
                for (j, o) in offsets.iter().enumerate() {
                    self.signed(RigidBodyIdx::to_raw(o.rigid_body), sizes.rigid_body, at(j))?;
                    self.out.put_u8(u8::from(o.local));
                    self.out.put_vec3(o.velocity);
                    self.out.put_vec3(o.torque);
                    self.flush()?;
                }
            }
        }
        Ok(())
    }

    fn soft_body(&mut self, body: &SoftBody, i: usize) -> Result<(), WriteError> {
        let sizes = self.sizes;
        let at = |field: &str| format!("soft_bodies[{i}].{field}");
        self.text(&body.name_ja, &at("name_ja"));
        self.text(&body.name_en, &at("name_en"));
        self.out.put_u8(body.shape.to_raw());
        self.signed(MaterialIdx::to_raw(body.material), sizes.material, || {
            at("material")
        })?;
        self.out.put_u8(body.group);
        self.out.put_u16(body.non_collision_mask);
        self.out.put_u8(body.flags.bits());
        self.out.put_i32(body.b_link_distance);
        self.out.put_i32(body.cluster_count);
        self.out.put_f32(body.total_mass);
        self.out.put_f32(body.margin);
        self.out.put_i32(body.aero_model.to_raw());
        let c = &body.config;
        for v in [
            c.vcf, c.dp, c.dg, c.lf, c.pr, c.vc, c.df, c.mt, c.chr, c.khr, c.shr, c.ahr,
        ] {
            self.out.put_f32(v);
        }
        let k = &body.cluster;
        for v in [
            k.srhr_cl,
            k.skhr_cl,
            k.sshr_cl,
            k.sr_splt_cl,
            k.sk_splt_cl,
            k.ss_splt_cl,
        ] {
            self.out.put_f32(v);
        }
        let it = &body.iterations;
        for v in [it.v_it, it.p_it, it.d_it, it.c_it] {
            self.out.put_i32(v);
        }
        let st = &body.stiffness;
        for v in [st.lst, st.ast, st.vst] {
            self.out.put_f32(v);
        }
        self.count(body.anchors.len(), &at("anchors"))?;
        for (j, anchor) in body.anchors.iter().enumerate() {
            self.signed(
                RigidBodyIdx::to_raw(anchor.rigid_body),
                sizes.rigid_body,
                || at(&format!("anchors[{j}].rigid_body")),
            )?;
            self.vertex(anchor.vertex, || at(&format!("anchors[{j}].vertex")))?;
            self.out.put_u8(u8::from(anchor.near_mode));
        }
        self.count(body.pinned_vertices.len(), &at("pinned_vertices"))?;
        for (j, &vertex) in body.pinned_vertices.iter().enumerate() {
            self.vertex(vertex, || at(&format!("pinned_vertices[{j}]")))?;
        }
        Ok(())
    }
}

fn does_not_fit(path: String, raw: i64, size: u8) -> WriteError {
    WriteError::Unrepresentable {
        path,
        message: format!("index {raw} does not fit a {size}-byte index").into(),
    }
}
