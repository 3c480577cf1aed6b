//! PMX 2.0/2.1 reader: bounded, allocation-checked, and exact.
//!
//! The reader reads from bytes in memory or straight from a file through a small window
//! (`pmx::read_file`): a 261 MB model then costs no second copy of the file in memory, only
//! the model itself. A summary (`pmx::read_summary`) reads everything but the vertices, faces
//! and morph offsets (which it checks and counts), for `info`. What a failed reading becomes
//! (recovery, the index size search of `sizes.rs`) is decided by the entry points in
//! `pmx/mod.rs`, above both.

use crate::formats::bytes::{
    ByteReader, Input, WINDOW, f32_at, i32_at, read_exact_at, u16_at, u32_at,
};
use crate::formats::error::{LoadNote, LoadOptions, LoadReport, Location, ReadError};
use crate::i18n::Message;
use crate::model::*;
use rayon::prelude::*;
use std::borrow::Cow;
use std::cell::Cell;
use std::mem::MaybeUninit;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};

/// The magic of PMX 2.x files.
pub const MAGIC: &[u8; 4] = b"PMX ";
/// The magic of the unpublished PMX 1.0.
const MAGIC_PMX1: &[u8; 4] = b"Pmx ";

/// How a reading runs: what the entry points (`pmx/mod.rs`) ask for.
#[derive(Default)]
pub(super) struct Run<'a> {
    /// Called with the bytes read so far (see `pmx::read_with_progress`).
    pub progress: Option<&'a dyn Fn(usize)>,
    /// Once set, the next read from a file fails.
    pub cancel: Option<&'a AtomicBool>,
    /// Never hand the bulk to a second thread.
    pub one_thread: bool,
    /// Check and count the vertices, faces and morph offsets instead of keeping them.
    pub summary: bool,
}

/// What a reading of the header and body gives: the model as far as it was read, what the
/// reader noted, what a summary counted, and the error that stopped the body, if one did
/// (the entry points decide what a failure becomes: recovery, the index size search).
pub(super) struct Reading {
    pub model: Model,
    pub report: LoadReport,
    pub counted: Counted,
    pub stopped: Option<Stopped>,
}

/// The error that stopped a reading of the body, and where the reader stood (for an error
/// without a location of its own).
pub(super) struct Stopped {
    pub error: ReadError,
    pub at: Location,
}

/// Reads the header and the body of `input`; a header that does not read is an error, a body
/// that stops is a [`Reading`] with [`Stopped`].
pub(super) fn read_model(
    input: Input<'_>,
    options: &LoadOptions,
    run: Run<'_>,
) -> Result<Reading, ReadError> {
    let mut reader = Reader::new(input, options);
    reader.progress = run.progress;
    reader.input.cancel = run.cancel;
    reader.one_thread = run.one_thread;
    if run.summary {
        reader.summary = Some(Counted::default());
    }
    reader.read_all()
}

/// The whole file in memory, for the index size search after a failed reading (a file is
/// read once more; `None` when the disk does not give it).
pub(super) fn whole_file(input: Input<'_>) -> Option<Cow<'_, [u8]>> {
    match input {
        Input::Bytes(bytes) => Some(Cow::Borrowed(bytes)),
        Input::File(file, len) => {
            let mut bytes = vec![0; len];
            read_exact_at(file, &mut bytes, 0).ok()?;
            Some(Cow::Owned(bytes))
        }
    }
}

/// The bulk a summary counts instead of keeping.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Counted {
    pub vertices: usize,
    pub faces: usize,
    pub morph_offsets: usize,
}

/// The PMX layer on the shared [`ByteReader`]: index sizes, text encodings, the report, the
/// progress and the second thread.
struct Reader<'a> {
    /// The bytes, where the reader is and the place its errors name.
    input: ByteReader<'a>,
    encoding: TextEncoding,
    sizes: IndexSizes,
    options: LoadOptions,
    report: LoadReport,
    progress: Option<&'a dyn Fn(usize)>,
    /// Set for [`read_summary`]: vertices, faces and morph offsets are checked and counted,
    /// not kept.
    summary: Option<Counted>,
    /// Never hand the bulk to a second thread ([`read_on_one_thread`]).
    one_thread: bool,
    /// While other threads read parts of the file: the bytes they have read so far, and the
    /// bytes this reader handed them (skipped here), for the progress.
    alongside: Option<(Arc<AtomicUsize>, usize)>,
    /// Set during the layout check of the vertices and faces: where the check sends the
    /// vertex count and each [`VERTEX_CHUNK`]th vertex's start as it finds them, so that the
    /// workers read the chunks while it goes on.
    bulk_messages: Option<Sender<BulkMessage>>,
}

/// Files (bytes left after the model info) from this size on read their vertices, faces and
/// morphs on several threads. Small enough that every real model's file does; the threads
/// cost far less than a megabyte's parsing.
const PARALLEL_FROM: usize = 1 << 20;
/// Vertices one worker reads at a time.
const VERTEX_CHUNK: usize = 1 << 15;
/// Triangles one worker reads at a time.
const FACE_CHUNK: usize = 1 << 16;

thread_local! {
    /// Sections read in parallel by readings started on this thread: see [`parallel_reads`].
    static PARALLEL_READS: Cell<ParallelReads> = const { Cell::new(ParallelReads { bulk: 0, morphs: 0 }) };
}

/// How many readings started on this thread read their vertices and faces (`bulk`) and their
/// morphs in parallel: for the tests, which check that the parallel path engaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ParallelReads {
    pub bulk: usize,
    pub morphs: usize,
}

/// [`ParallelReads`] of this thread so far.
pub fn parallel_reads() -> ParallelReads {
    PARALLEL_READS.with(Cell::get)
}

fn count_parallel_read(bump: impl FnOnce(&mut ParallelReads)) {
    PARALLEL_READS.with(|reads| {
        let mut now = reads.get();
        bump(&mut now);
        reads.set(now);
    });
}

/// What the layout check tells the workers, in this order: the vertex count, the start of
/// every [`VERTEX_CHUNK`]th vertex (chunk by chunk), then where the faces are. A check that
/// fails stops before `Faces`: the workers' readings are then dropped.
#[derive(Debug)]
enum BulkMessage {
    Vertices(usize),
    Chunk { index: usize, start: usize },
    Faces { at: usize, triangles: usize },
}

/// What the workers need to read parts of the file a [`Reader`] reads (the reader itself stays
/// on its thread: its progress callback is not `Send`).
#[derive(Clone, Copy)]
struct Part<'a> {
    input: Input<'a>,
    options: LoadOptions,
    encoding: TextEncoding,
    sizes: IndexSizes,
    cancel: Option<&'a AtomicBool>,
    /// Bytes the workers have read, for the first reader's progress.
    done: &'a AtomicUsize,
}

/// Held by a worker job for [`Reader::wait_for`]: when the job ends, however it ends (its
/// result or a panic drops this), it sets the flag and wakes the thread that waits.
struct JobEnd<'f> {
    ended: &'f AtomicBool,
    waiter: std::thread::Thread,
}

impl<'f> JobEnd<'f> {
    /// For a job the current thread will wait for.
    fn new(ended: &'f AtomicBool) -> Self {
        Self {
            ended,
            waiter: std::thread::current(),
        }
    }
}

/// Spawns `job` on `scope` holding a [`JobEnd`] of `ended`, for [`Reader::wait_for`] on this
/// thread.
fn spawn_watched<'scope, 'env, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, 'env>,
    ended: &'env AtomicBool,
    job: impl FnOnce() -> T + Send + 'scope,
) -> std::thread::ScopedJoinHandle<'scope, T> {
    let end = JobEnd::new(ended);
    scope.spawn(move || {
        let _end = end;
        job()
    })
}

impl Drop for JobEnd<'_> {
    fn drop(&mut self) {
        self.ended.store(true, Ordering::Release);
        self.waiter.unpark();
    }
}

/// The vertices, their additional UVs and the faces read by the workers.
type Bulk = (Vec<Vertex>, Vec<Vec<Vec4>>, Vec<[VertexIdx; 3]>);

impl Part<'_> {
    /// A reader at `pos` in `section`.
    fn reader(&self, section: &'static str, pos: usize) -> Reader<'_> {
        let mut reader = Reader::new(self.input, &self.options);
        reader.encoding = self.encoding;
        reader.sizes = self.sizes;
        reader.input.cancel = self.cancel;
        reader.input.pos = pos;
        reader.input.enter(section);
        reader
    }

    /// The vertices (with their additional UVs) and faces, read in chunks by the workers
    /// straight into their place in the model's lists as the layout check finds the chunks
    /// ([`BulkMessage`]). `None` where the check stopped before the faces (its reading is
    /// dropped); the first error in file order where a worker failed (only the disk can make
    /// one fail once the check has passed).
    #[allow(unsafe_code)]
    fn fill_bulk(&self, channels: usize, messages: &Receiver<BulkMessage>) -> Option<Res<Bulk>> {
        let Ok(BulkMessage::Vertices(count)) = messages.recv() else {
            return None;
        };
        let mut vertices: Vec<Vertex> = Vec::with_capacity(count);
        let mut additional_uvs: Vec<Vec<Vec4>> =
            (0..channels).map(|_| Vec::with_capacity(count)).collect();
        let mut faces: Vec<[VertexIdx; 3]> = Vec::new();
        // Each chunk's first error, by its place in the file.
        let failed: Mutex<Option<(usize, ReadError)>> = Mutex::new(None);
        let fail = |place: usize, error: ReadError| {
            let mut first = failed
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if first.as_ref().is_none_or(|(earlier, _)| place < *earlier) {
                *first = Some((place, error));
            }
        };
        let chunks = count.div_ceil(VERTEX_CHUNK);
        let vertex_slots = vertices.spare_capacity_mut()[..count].chunks_mut(VERTEX_CHUNK);
        let uv_slots: Vec<_> = additional_uvs
            .iter_mut()
            .map(|channel| channel.spare_capacity_mut()[..count].chunks_mut(VERTEX_CHUNK))
            .collect();
        let faces_list = &mut faces;
        let fail = &fail;
        let (dispatched, triangles) = rayon::in_place_scope(move |scope| {
            let (mut vertex_slots, mut uv_slots, faces) = (vertex_slots, uv_slots, faces_list);
            let mut dispatched = 0;
            let faces_at = loop {
                match messages.recv() {
                    Ok(BulkMessage::Chunk { index, start }) if index == dispatched => {
                        let Some(slots) = vertex_slots.next() else {
                            break None;
                        };
                        let mut uvs: Vec<&mut [MaybeUninit<Vec4>]> =
                            uv_slots.iter_mut().filter_map(Iterator::next).collect();
                        scope.spawn(move |_| {
                            if let Err(error) =
                                self.read_vertex_chunk(index, start, slots, &mut uvs)
                            {
                                fail(start, error);
                            }
                        });
                        dispatched += 1;
                    }
                    Ok(BulkMessage::Faces { at, triangles }) => break Some((at, triangles)),
                    _ => break None,
                }
            };
            let Some((at, triangles)) = faces_at else {
                return (dispatched, None);
            };
            faces.reserve_exact(triangles);
            let size = 3 * self.sizes.vertex as usize;
            for (chunk, slots) in faces.spare_capacity_mut()[..triangles]
                .chunks_mut(FACE_CHUNK)
                .enumerate()
            {
                let start = at + chunk * FACE_CHUNK * size;
                scope.spawn(move |_| {
                    if let Err(error) = self.read_face_chunk(start, slots) {
                        fail(start, error);
                    }
                });
            }
            (dispatched, Some(triangles))
        });
        let triangles = triangles?;
        if let Some((_, error)) = failed
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
        {
            return Some(Err(error));
        }
        if dispatched != chunks {
            // Not a file's doing: the check sends every chunk before the faces.
            return None;
        }
        // SAFETY: every chunk of the vertices, of each additional UV channel and of the faces
        // went to a worker, and a worker that returned without an error wrote every slot of
        // its chunk (`read_vertex_chunk` and `read_face_chunk` write each slot in order or
        // stop with an error); no error was recorded, so all `count` and `triangles` slots
        // are written.
        unsafe {
            vertices.set_len(count);
            for channel in &mut additional_uvs {
                channel.set_len(count);
            }
            faces.set_len(triangles);
        }
        Some(Ok((vertices, additional_uvs, faces)))
    }

    /// Chunk `chunk` of the vertices, which starts at `start`, into `vertices` (every slot
    /// written unless it fails) and their additional UVs into `uvs`.
    fn read_vertex_chunk(
        &self,
        chunk: usize,
        start: usize,
        vertices: &mut [MaybeUninit<Vertex>],
        uvs: &mut [&mut [MaybeUninit<Vec4>]],
    ) -> Res<()> {
        let mut reader = self.reader("vertices", start);
        let channels = uvs.len();
        let mut additional = [Vec4::ZERO; 4];
        for (k, vertex) in vertices.iter_mut().enumerate() {
            reader.input.element = Some(chunk * VERTEX_CHUNK + k);
            vertex.write(reader.vertex_record(channels, &mut additional)?);
            for (channel, value) in uvs.iter_mut().zip(additional) {
                channel[k].write(value);
            }
        }
        self.done
            .fetch_add(reader.input.pos - start, Ordering::Relaxed);
        Ok(())
    }

    /// The triangles at `start` into `faces` (every slot written unless it fails).
    fn read_face_chunk(&self, start: usize, faces: &mut [MaybeUninit<[VertexIdx; 3]>]) -> Res<()> {
        let size = self.sizes.vertex as usize;
        let mut reader = self.reader("faces", start);
        // A window's worth at a time: the window keeps its size (and its mapped pages).
        for piece in faces.chunks_mut((WINDOW / (3 * size)).max(1)) {
            let bytes = reader.input.take(piece.len() * 3 * size, "indices")?;
            for (face, triangle) in piece.iter_mut().zip(bytes.chunks_exact(3 * size)) {
                face.write(triangle_at(triangle, size));
            }
        }
        self.done
            .fetch_add(faces.len() * 3 * size, Ordering::Relaxed);
        Ok(())
    }

    /// Morph `index`, which starts at `at` and ends at `end`, and the notes its reading made.
    fn read_morph(&self, index: usize, at: usize, end: usize) -> Res<(Morph, Vec<LoadNote>)> {
        let mut reader = self.reader("morphs", at);
        // The window holds this morph (a window's worth at most), not the ones after it (a
        // reader per morph: 300 morphs read 300 MB from the disk cache with whole windows).
        // At most a window, it is also the thread's spare for the next morph.
        reader.input.window_size = end.saturating_sub(at).min(WINDOW);
        reader.input.element = Some(index);
        let morph = reader.morph_record()?;
        self.done
            .fetch_add(reader.input.pos - at, Ordering::Relaxed);
        Ok((morph, reader.report.notes))
    }
}

/// Tells the workers (during the layout check, when `messages` is set) that vertex `i`, the
/// first of a chunk, starts at `start`. A worker gone shows when the reading is collected.
fn send_chunk(messages: Option<&Sender<BulkMessage>>, i: usize, start: usize) {
    if let Some(messages) = messages {
        let _ = messages.send(BulkMessage::Chunk {
            index: i / VERTEX_CHUNK,
            start,
        });
    }
}

/// The bytes of a vertex's weight after its type byte, by weight type (BDEF1, BDEF2, BDEF4,
/// SDEF, QDEF: indexed by [`WeightKind`]), with `bone`-byte bone indices.
pub(super) fn weight_sizes(bone: usize) -> [usize; 5] {
    [
        bone,
        2 * bone + 4,
        4 * bone + 16,
        2 * bone + 40,
        4 * bone + 16,
    ]
}

/// The bytes of the longest vertex record there can be with `channels` additional UVs and
/// `bone`-byte bone indices (the weight's, position to edge scale).
fn longest_vertex(channels: usize, bone: usize) -> usize {
    let longest_weight = weight_sizes(bone).into_iter().max().unwrap_or(0);
    32 + 16 * channels + 1 + longest_weight + 4
}

/// Elements between two progress reports inside a section.
const PROGRESS_EVERY: usize = 1 << 14;

type Res<T> = Result<T, ReadError>;

impl<'a> Reader<'a> {
    fn new(input: Input<'a>, options: &LoadOptions) -> Self {
        Self {
            input: ByteReader::new(input, "header"),
            encoding: TextEncoding::Utf16,
            sizes: IndexSizes {
                vertex: 1,
                texture: 1,
                material: 1,
                bone: 1,
                morph: 1,
                rigid_body: 1,
            },
            options: *options,
            report: LoadReport::default(),
            progress: None,
            summary: None,
            one_thread: false,
            alongside: None,
            bulk_messages: None,
        }
    }

    /// The whole file: the header, then the body as far as it reads.
    fn read_all(&mut self) -> Result<Reading, ReadError> {
        let mut model = Model::default();
        self.header(&mut model)?;
        let result = self.body(&mut model);
        let mut report = std::mem::take(&mut self.report);
        report.file_size = self.input.len();
        let stopped = result.err().map(|error| Stopped {
            error,
            at: self.input.location(""),
        });
        Ok(Reading {
            model,
            report,
            counted: self.summary.unwrap_or_default(),
            stopped,
        })
    }

    fn report_progress(&self) {
        if let Some(progress) = self.progress {
            progress(self.done());
        }
    }

    /// The bytes read so far: while workers read parts of the file, what they have read and
    /// what this reader read itself (the parts it handed them skipped).
    fn done(&self) -> usize {
        match &self.alongside {
            Some((workers, handed_off)) => {
                workers.load(Ordering::Relaxed) + self.input.pos.saturating_sub(*handed_off)
            }
            None => self.input.pos,
        }
    }

    /// What the workers share to read parts of this file; `done` counts their bytes.
    fn part<'p>(&self, done: &'p AtomicUsize) -> Part<'p>
    where
        'a: 'p,
    {
        Part {
            input: self.input.input(),
            options: self.options,
            encoding: self.encoding,
            sizes: self.sizes,
            cancel: self.input.cancel,
            done,
        }
    }

    /// Waits for `job` while reporting the progress of the workers every 2 ms; `ended` is the
    /// flag `job` was spawned with ([`spawn_watched`]), which wakes this thread the moment the
    /// job ends (a sleep of 2 ms between looks cost a small file up to 2 ms a wait).
    fn wait_for<T>(&self, job: std::thread::ScopedJoinHandle<'_, T>, ended: &AtomicBool) -> T {
        while !ended.load(Ordering::Acquire) {
            self.report_progress();
            // Returns at once if the job ended since the look (its unpark is kept).
            std::thread::park_timeout(std::time::Duration::from_millis(2));
        }
        let result = match job.join() {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        // The last report in the loop may be from before the workers' last chunks (a fast
        // machine finishes them between two looks): the bar ends where the workers ended.
        self.report_progress();
        result
    }

    /// A 0/1 flag byte; other values read as `true` and are noted.
    fn flag(&mut self, field: &'static str) -> Res<bool> {
        let at = self.input.location(field);
        let value = self.input.u8(field)?;
        if value > 1 {
            self.report.notes.push(LoadNote {
                location: at,
                message: Message::new("load.pmx.flag_byte").arg("value", value),
                lost: false,
            });
        }
        Ok(value != 0)
    }

    fn text(&mut self, field: &'static str) -> Res<Text> {
        let len = self
            .input
            .text_length(field, self.options.limits.max_text_bytes)?;
        let at = self.input.location(field);
        let encoding = self.encoding;
        let text = Text::decode(self.input.take(len, field)?, encoding);
        if !text.is_decodable() {
            self.report.notes.push(LoadNote {
                location: at,
                message: Message::new("load.pmx.text_not_decodable")
                    .arg("encoding", self.encoding.name()),
                lost: false,
            });
        }
        Ok(text)
    }

    /// Reads an element count and checks that `min_size` bytes per element are left, so that
    /// a count far larger than the file fails before anything is allocated (in recovery mode,
    /// one the bytes left cannot hold is capped: [`ByteReader::cap_count`]).
    fn count(&mut self, field: &'static str, min_size: usize) -> Res<usize> {
        let count = self.input.i32(field)?;
        if count < 0 {
            self.input.pos -= 4;
            return Err(self.input.malformed(
                field,
                Message::new("load.pmx.negative_count").arg("count", count),
            ));
        }
        self.input.check_count(
            count as usize,
            4,
            min_size,
            field,
            &self.options,
            &mut self.report.notes,
        )
    }

    fn signed_index(&mut self, size: u8, field: &'static str) -> Res<i32> {
        Ok(match size {
            1 => self.input.u8(field)? as i8 as i32,
            2 => self.input.u16(field)? as i16 as i32,
            _ => self.input.i32(field)?,
        })
    }

    fn vertex(&mut self, field: &'static str) -> Res<VertexIdx> {
        Ok(VertexIdx(match self.sizes.vertex {
            1 => self.input.u8(field)? as u32,
            2 => self.input.u16(field)? as u32,
            _ => self.input.i32(field)? as u32,
        }))
    }

    fn bone(&mut self, field: &'static str) -> Res<Option<BoneIdx>> {
        self.signed_index(self.sizes.bone, field)
            .map(BoneIdx::from_raw)
    }

    fn texture(&mut self, field: &'static str) -> Res<Option<TextureIdx>> {
        self.signed_index(self.sizes.texture, field)
            .map(TextureIdx::from_raw)
    }

    fn material(&mut self, field: &'static str) -> Res<Option<MaterialIdx>> {
        self.signed_index(self.sizes.material, field)
            .map(MaterialIdx::from_raw)
    }

    fn morph(&mut self, field: &'static str) -> Res<Option<MorphIdx>> {
        self.signed_index(self.sizes.morph, field)
            .map(MorphIdx::from_raw)
    }

    fn rigid_body(&mut self, field: &'static str) -> Res<Option<RigidBodyIdx>> {
        self.signed_index(self.sizes.rigid_body, field)
            .map(RigidBodyIdx::from_raw)
    }

    fn enter(&mut self, section: &'static str) {
        self.report_progress();
        self.input.enter(section);
    }

    fn header(&mut self, model: &mut Model) -> Res<()> {
        self.enter("header");
        let magic: [u8; 4] = self.input.array("magic")?;
        if &magic == MAGIC_PMX1 {
            self.input.pos = 0;
            return Err(ReadError::Unsupported {
                location: self.input.location("magic"),
                message: Message::new("load.pmx.pmx10"),
            });
        }
        if &magic != MAGIC {
            self.input.pos = 0;
            return Err(self.input.malformed(
                "magic",
                Message::new("load.pmx.magic").arg("magic", format!("{magic:02x?}")),
            ));
        }
        let version_at = self.input.location("version");
        let version = self.input.f32("version")?;
        model.header.version = if version == 2.0 {
            PmxVersion::V2_0
        } else if version == 2.1 {
            PmxVersion::V2_1
        } else if self.options.recover {
            // A version this editor does not know: read it as the nearest layout it knows
            // (2.1 adds the soft body section) and say so; the validators report it.
            let read_as = if version > 2.0 {
                PmxVersion::V2_1
            } else {
                PmxVersion::V2_0
            };
            self.report.notes.push(LoadNote {
                location: version_at,
                message: Message::new("load.pmx.version_read_as")
                    .arg("version", version)
                    .arg("read_as", read_as.name()),
                lost: false,
            });
            read_as
        } else {
            self.input.pos -= 4;
            return Err(ReadError::Unsupported {
                location: self.input.location("version"),
                message: Message::new("load.pmx.version_unsupported").arg("version", version),
            });
        };
        let globals_at_count = self.input.location("globals_count");
        let globals_len = self.input.u8("globals_count")?;
        if globals_len != 8 {
            // More than 8 bytes: the 8 PMX defines come first, so recovery reads them and
            // skips the rest. Fewer cannot be read: which byte means what is unknown.
            if !(self.options.recover && globals_len > 8) {
                self.input.pos -= 1;
                return Err(self.input.malformed(
                    "globals_count",
                    Message::new("load.pmx.header_size").arg("count", globals_len),
                ));
            }
            self.report.notes.push(LoadNote {
                location: globals_at_count,
                message: Message::new("load.pmx.header_size_skipped")
                    .arg("count", globals_len)
                    .arg("extra", globals_len - 8),
                lost: false,
            });
        }
        // Where the 8 bytes start, for errors that point at one of them (also when a longer
        // header's extra bytes follow them).
        let globals_at = self.input.pos;
        let globals: [u8; 8] = self.input.array("globals")?;
        if globals_len > 8 {
            self.input.take(usize::from(globals_len - 8), "globals")?;
        }
        self.encoding = match globals[0] {
            0 => TextEncoding::Utf16,
            1 => TextEncoding::Utf8,
            other => {
                self.input.pos = globals_at;
                return Err(self.input.malformed(
                    "encoding",
                    Message::new("load.pmx.encoding").arg("value", other),
                ));
            }
        };
        let additional_uv = globals[1];
        if additional_uv > 4 {
            self.input.pos = globals_at + 1;
            return Err(self.input.malformed(
                "additional_uv_count",
                Message::new("load.pmx.additional_uv").arg("count", additional_uv),
            ));
        }
        const SIZE_FIELDS: [&str; 6] = [
            "vertex_index_size",
            "texture_index_size",
            "material_index_size",
            "bone_index_size",
            "morph_index_size",
            "rigid_body_index_size",
        ];
        for (i, field) in SIZE_FIELDS.iter().enumerate() {
            let size = globals[2 + i];
            if !matches!(size, 1 | 2 | 4) {
                self.input.pos = globals_at + 2 + i;
                return Err(self
                    .input
                    .malformed(field, Message::new("load.pmx.index_size").arg("size", size)));
            }
        }
        self.sizes = IndexSizes {
            vertex: globals[2],
            texture: globals[3],
            material: globals[4],
            bone: globals[5],
            morph: globals[6],
            rigid_body: globals[7],
        };
        model.header.encoding = self.encoding;
        model.header.index_sizes = Some(self.sizes);
        model.additional_uvs = vec![Vec::new(); additional_uv as usize];
        Ok(())
    }

    fn body(&mut self, model: &mut Model) -> Res<()> {
        // The model info belongs to the body: a file cut inside it still recovers (empty names).
        self.model_info(model)?;
        if self.summary.is_none() && self.may_hand_off() && self.input.remaining() >= PARALLEL_FROM
        {
            return self.body_in_parallel(model);
        }
        self.vertices(model)?;
        self.faces(model)?;
        self.rest(model)
    }

    /// [`Reader::body`] of a file past [`PARALLEL_FROM`]: this thread checks the vertices and
    /// faces the way a summary does (every vertex's weight type, which decides its size, and
    /// the counts against the bytes left; one byte read per vertex), and sends each
    /// [`VERTEX_CHUNK`]th vertex's start as it finds it to the workers, which read the chunks
    /// in full meanwhile; then it reads the rest while they finish. Where the check fails, the
    /// workers' reading is dropped and the vertices and faces are read here in full, so a
    /// damaged file fails or recovers exactly as it would on one thread.
    fn body_in_parallel(&mut self, model: &mut Model) -> Res<()> {
        let start = self.input.pos;
        let notes = self.report.notes.len();
        let channels = model.additional_uvs.len();
        let workers = self.hand_off(0);
        let before = workers.load(Ordering::Relaxed);
        let part = self.part(&workers);
        let (sender, messages) = std::sync::mpsc::channel();
        let ended = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let bulk = spawn_watched(scope, &ended, move || part.fill_bulk(channels, &messages));
            self.summary = Some(Counted::default());
            self.bulk_messages = Some(sender);
            // The check is quick and the readings that follow report the progress.
            let progress = self.progress.take();
            let vertices = self.vertices(model);
            // Past the face count.
            let faces_at = self.input.pos + 4;
            let checked = vertices.and_then(|()| self.faces(model));
            self.progress = progress;
            let counted = self.summary.take().unwrap_or_default();
            if let Some(sender) = self.bulk_messages.take()
                && checked.is_ok()
            {
                // A worker gone (it cannot be: it waits for this) shows as a missing reading.
                let _ = sender.send(BulkMessage::Faces {
                    at: faces_at,
                    triangles: counted.faces,
                });
            }
            if checked.is_err() {
                // What the workers read is dropped, and their bytes no longer count (joined
                // without a progress report: theirs would count the vertices twice).
                if let Err(panic) = bulk.join() {
                    std::panic::resume_unwind(panic);
                }
                workers.store(before, Ordering::Relaxed);
                self.input.pos = start;
                self.report.notes.truncate(notes);
                self.report.face_index_count = None;
                self.vertices(model)?;
                self.faces(model)?;
                return self.rest(model);
            }
            if let Some((_, handed_off)) = &mut self.alongside {
                *handed_off += self.input.pos - start;
            }
            count_parallel_read(|reads| reads.bulk += 1);
            let rest = self.rest(model);
            // The progress goes on while the workers finish.
            let (vertices, additional_uvs, faces) = match self.wait_for(bulk, &ended) {
                Some(read) => read?,
                None => {
                    return Err(ReadError::Io {
                        location: self.input.location(""),
                        message: Message::new("load.bytes.io")
                            .arg("error", "the workers stopped before the faces"),
                    });
                }
            };
            model.vertices = vertices;
            model.additional_uvs = additional_uvs;
            model.faces = faces;
            rest
        })
    }

    /// Whether parts of the file may go to the workers: not on one thread, and not from inside
    /// rayon's pool, where this thread's waiting for them could take the pool's last thread.
    fn may_hand_off(&self) -> bool {
        !self.one_thread && rayon::current_thread_index().is_none()
    }

    /// Notes that `bytes` more of the file are read by workers (their progress counts them
    /// instead of this reader's position) and gives the count of bytes they have read.
    fn hand_off(&mut self, bytes: usize) -> Arc<AtomicUsize> {
        let (workers, handed_off) = self
            .alongside
            .get_or_insert_with(|| (Arc::new(AtomicUsize::new(0)), 0));
        *handed_off += bytes;
        Arc::clone(workers)
    }

    /// Everything after the faces.
    fn rest(&mut self, model: &mut Model) -> Res<()> {
        self.textures(model)?;
        self.materials(model)?;
        self.bones(model)?;
        self.morphs(model)?;
        self.display_frames(model)?;
        self.rigid_bodies(model)?;
        self.joints(model)?;
        if model.header.version == PmxVersion::V2_1 {
            self.soft_bodies(model)?;
        }
        if self.input.remaining() > 0 {
            self.enter("end");
            let message =
                Message::new("load.pmx.trailing_bytes").arg("count", self.input.remaining());
            self.report.notes.push(LoadNote {
                location: self.input.location(""),
                message,
                lost: true,
            });
        }
        Ok(())
    }

    fn model_info(&mut self, model: &mut Model) -> Res<()> {
        self.enter("model_info");
        model.info.name_ja = self.text("name_ja")?;
        model.info.name_en = self.text("name_en")?;
        model.info.comment_ja = self.text("comment_ja")?;
        model.info.comment_en = self.text("comment_en")?;
        Ok(())
    }

    fn vertices(&mut self, model: &mut Model) -> Res<()> {
        self.enter("vertices");
        let channels = model.additional_uvs.len();
        // position + normal + uv + additional UVs + weight type + BDEF1 bone + edge scale
        let min_size = 32 + 16 * channels + 1 + self.sizes.bone as usize + 4;
        let count = self.count("count", min_size)?;
        if self.summary.is_some() {
            return self.count_vertices(count, channels);
        }
        let capacity = self.input.capacity(count, min_size);
        model.vertices.reserve_exact(capacity);
        for channel in &mut model.additional_uvs {
            channel.reserve_exact(capacity);
        }
        for i in 0..count {
            if i % PROGRESS_EVERY == 0 {
                self.report_progress();
            }
            self.input.element = Some(i);
            let mut additional = [Vec4::ZERO; 4];
            let vertex = self.vertex_record(channels, &mut additional)?;
            for (channel, value) in model.additional_uvs.iter_mut().zip(additional) {
                channel.push(value);
            }
            model.vertices.push(vertex);
        }
        Ok(())
    }

    /// One vertex; its `channels` additional UVs go to `additional`. Where the longest record
    /// fits in the bytes left it is decoded from one block; near the end of the file, and for
    /// a weight type that does not exist, field by field (which names the field that fails).
    #[inline]
    fn vertex_record(&mut self, channels: usize, additional: &mut [Vec4; 4]) -> Res<Vertex> {
        let bone = self.sizes.bone as usize;
        let longest = longest_vertex(channels, bone);
        if self.input.remaining() >= longest {
            let at = self.input.pos;
            let bytes = self.input.take(longest, "position")?;
            if let Some((vertex, len)) = decode_vertex(bytes, channels, bone, additional) {
                self.input.pos = at + len;
                return Ok(vertex);
            }
            self.input.pos = at;
        }
        self.vertex_by_fields(channels, additional)
    }

    /// [`Reader::vertex_record`] field by field.
    fn vertex_by_fields(&mut self, channels: usize, additional: &mut [Vec4; 4]) -> Res<Vertex> {
        let position = self.input.vec3("position")?;
        let normal = self.input.vec3("normal")?;
        let uv = self.input.vec2("uv")?;
        for slot in additional.iter_mut().take(channels) {
            *slot = self.input.vec4("additional_uv")?;
        }
        let weight = self.weight()?;
        let edge_scale = self.input.f32("edge_scale")?;
        Ok(Vertex {
            position,
            normal,
            uv,
            weight,
            edge_scale,
        })
    }

    /// [`Reader::vertices`] for a summary: each vertex's layout is checked (its weight type
    /// decides its size), nothing is kept.
    fn count_vertices(&mut self, count: usize, channels: usize) -> Res<()> {
        let bone = self.sizes.bone as usize;
        if let Some(messages) = &self.bulk_messages {
            let _ = messages.send(BulkMessage::Vertices(count));
        }
        let mut i = 0;
        while i < count {
            // Where every weight type is known, hop from one to the next in the bytes at hand;
            // the first vertex the hops cannot settle goes through the fields below.
            let before = i;
            i = self.hop_over_vertices(i, count, channels);
            if i != before {
                // A window's worth of vertices at a time.
                self.report_progress();
            }
            if i == count {
                break;
            }
            if i % PROGRESS_EVERY == 0 {
                self.report_progress();
            }
            self.input.element = Some(i);
            if i.is_multiple_of(VERTEX_CHUNK) {
                send_chunk(self.bulk_messages.as_ref(), i, self.input.pos);
            }
            self.input.skip(32 + 16 * channels, "position")?;
            let kind = self.input.u8("weight.type")?;
            let Some(&weight_size) = weight_sizes(bone).get(usize::from(kind)) else {
                self.input.pos -= 1;
                return Err(self.input.malformed(
                    "weight.type",
                    Message::new("load.pmx.weight_type").arg("value", kind),
                ));
            };
            self.input.skip(weight_size, "weight")?;
            self.input.skip(4, "edge_scale")?;
            if let Some(counted) = &mut self.summary {
                counted.vertices = i + 1;
            }
            i += 1;
        }
        Ok(())
    }

    /// [`Reader::count_vertices`]' quick part: from vertex `i`, the vertices whose longest
    /// possible record lies in the bytes at hand (a window of the file) and whose weight type
    /// exists, one byte read for each. Gives the first vertex it did not pass (`i` where it
    /// passed none: near the end of the input, or at a weight type that does not exist).
    fn hop_over_vertices(&mut self, mut i: usize, count: usize, channels: usize) -> usize {
        let bone = self.sizes.bone as usize;
        let before_type = 32 + 16 * channels;
        // The whole record after its weight type byte, the edge scale included.
        let after_type = weight_sizes(bone).map(|weight| weight + 4);
        let longest = longest_vertex(channels, bone);
        let start = self.input.pos;
        let Ok(bytes) = self.input.ahead(longest, "position") else {
            return i;
        };
        let mut at = 0;
        while i < count && at + longest <= bytes.len() {
            let Some(rest) = after_type.get(usize::from(bytes[at + before_type])) else {
                break;
            };
            if i.is_multiple_of(VERTEX_CHUNK) {
                send_chunk(self.bulk_messages.as_ref(), i, start + at);
            }
            at += before_type + 1 + rest;
            i += 1;
        }
        self.input.pos = start + at;
        if let Some(counted) = &mut self.summary {
            counted.vertices = i;
        }
        i
    }

    fn weight(&mut self) -> Res<Weight> {
        let kind = self.input.u8("weight.type")?;
        Ok(match kind {
            0 => Weight::Bdef1 {
                bone: self.bone("weight.bone")?,
            },
            1 => Weight::Bdef2 {
                bones: [self.bone("weight.bones[0]")?, self.bone("weight.bones[1]")?],
                weight: self.input.f32("weight.weight")?,
            },
            2 | 4 => {
                let bones = [
                    self.bone("weight.bones[0]")?,
                    self.bone("weight.bones[1]")?,
                    self.bone("weight.bones[2]")?,
                    self.bone("weight.bones[3]")?,
                ];
                let weights = [
                    self.input.f32("weight.weights[0]")?,
                    self.input.f32("weight.weights[1]")?,
                    self.input.f32("weight.weights[2]")?,
                    self.input.f32("weight.weights[3]")?,
                ];
                if kind == 2 {
                    Weight::Bdef4 { bones, weights }
                } else {
                    Weight::Qdef { bones, weights }
                }
            }
            3 => Weight::Sdef {
                bones: [self.bone("weight.bones[0]")?, self.bone("weight.bones[1]")?],
                weight: self.input.f32("weight.weight")?,
                c: self.input.vec3("weight.sdef_c")?,
                r0: self.input.vec3("weight.sdef_r0")?,
                r1: self.input.vec3("weight.sdef_r1")?,
            },
            other => {
                self.input.pos -= 1;
                return Err(self.input.malformed(
                    "weight.type",
                    Message::new("load.pmx.weight_type").arg("value", other),
                ));
            }
        })
    }

    fn faces(&mut self, model: &mut Model) -> Res<()> {
        self.enter("faces");
        let size = self.sizes.vertex as usize;
        let index_count = self.count("count", size)?;
        self.report.face_index_count = Some(index_count);
        // In recovery mode a cut inside the faces keeps the complete triangles before it.
        let readable = index_count.min(self.input.remaining() / size);
        let triangles = readable / 3;
        let start = self.input.pos;
        if let Some(counted) = &mut self.summary {
            counted.faces = triangles;
            self.input.skip(triangles * 3 * size, "indices")?;
        } else {
            model.faces.reserve_exact(triangles);
            // In pieces, so that a file is read through the window, not all at once.
            const TRIANGLES_PER_READ: usize = 1 << 15;
            let mut left = triangles;
            while left > 0 {
                let now = left.min(TRIANGLES_PER_READ);
                left -= now;
                let bytes = self.input.take(now * 3 * size, "indices")?;
                push_triangles(&mut model.faces, bytes, size);
                self.report_progress();
            }
        }
        if readable < index_count {
            self.input.element = Some(triangles);
            return Err(self.input.malformed(
                "indices",
                Message::new("load.pmx.faces_past_end")
                    .arg("declared", index_count)
                    .arg("present", readable),
            ));
        }
        let leftover = index_count % 3;
        if leftover != 0 {
            let location = Location {
                section: "faces",
                element: Some(triangles),
                sub: None,
                field: "indices",
                offset: start + triangles * 3 * size,
            };
            let message =
                Message::new("load.pmx.face_count_not_triangles").arg("count", index_count);
            if !self.options.recover {
                return Err(ReadError::Malformed { location, message });
            }
            self.input.take(leftover * size, "indices")?;
            self.report.notes.push(LoadNote {
                location,
                message: Message::new("load.pmx.face_indices_dropped")
                    .arg("count", index_count)
                    .arg("dropped", leftover),
                lost: true,
            });
        }
        Ok(())
    }

    fn textures(&mut self, model: &mut Model) -> Res<()> {
        self.enter("textures");
        let count = self.count("count", 4)?;
        model.textures.reserve_exact(self.input.capacity(count, 4));
        for i in 0..count {
            self.input.element = Some(i);
            model.textures.push(self.text("path")?);
        }
        Ok(())
    }

    fn materials(&mut self, model: &mut Model) -> Res<()> {
        self.enter("materials");
        let min_size = 4
            + 4
            + 16
            + 12
            + 4
            + 12
            + 1
            + 16
            + 4
            + 2 * self.sizes.texture as usize
            + 1
            + 1
            + 1
            + 4
            + 4;
        let count = self.count("count", min_size)?;
        model
            .materials
            .reserve_exact(self.input.capacity(count, min_size));
        for i in 0..count {
            self.input.element = Some(i);
            let name_ja = self.text("name_ja")?;
            let name_en = self.text("name_en")?;
            let diffuse = self.input.vec4("diffuse")?;
            let specular = self.input.vec3("specular")?;
            let specular_power = self.input.f32("specular_power")?;
            let ambient = self.input.vec3("ambient")?;
            let draw_flags = DrawFlags::from_bits_retain(self.input.u8("draw_flags")?);
            let edge_color = self.input.vec4("edge_color")?;
            let edge_size = self.input.f32("edge_size")?;
            let texture = self.texture("texture")?;
            let sphere_texture = self.texture("sphere_texture")?;
            let sphere_mode = SphereMode::from_raw(self.input.u8("sphere_mode")?);
            let toon = match self.input.u8("shared_toon_flag")? {
                0 => Toon::Texture(self.texture("toon_texture")?),
                1 => Toon::Shared(self.input.u8("shared_toon")?),
                other => {
                    self.input.pos -= 1;
                    return Err(self.input.malformed(
                        "shared_toon_flag",
                        Message::new("load.pmx.shared_toon_flag").arg("value", other),
                    ));
                }
            };
            let memo = self.text("memo")?;
            let face_index_count = self.input.i32("face_index_count")?;
            if face_index_count < 0 {
                self.input.pos -= 4;
                return Err(self.input.malformed(
                    "face_index_count",
                    Message::new("load.pmx.negative_face_count").arg("count", face_index_count),
                ));
            }
            model.materials.push(Material {
                name_ja,
                name_en,
                diffuse,
                specular,
                specular_power,
                ambient,
                draw_flags,
                edge_color,
                edge_size,
                texture,
                sphere_texture,
                sphere_mode,
                toon,
                memo,
                face_index_count: face_index_count as u32,
            });
        }
        Ok(())
    }

    fn bones(&mut self, model: &mut Model) -> Res<()> {
        self.enter("bones");
        let bone_size = self.sizes.bone as usize;
        let min_size = 4 + 4 + 12 + bone_size + 4 + 2 + bone_size;
        let count = self.count("count", min_size)?;
        model
            .bones
            .reserve_exact(self.input.capacity(count, min_size));
        for i in 0..count {
            self.input.element = Some(i);
            self.input.sub = None;
            let mut bone = Bone {
                name_ja: self.text("name_ja")?,
                name_en: self.text("name_en")?,
                position: self.input.vec3("position")?,
                parent: self.bone("parent")?,
                layer: self.input.i32("layer")?,
                flags: BoneFlags::from_bits_retain(self.input.u16("flags")?),
                tail_offset: Vec3::ZERO,
                tail_bone: None,
                append_parent: None,
                append_ratio: 1.0,
                fixed_axis: Vec3::ZERO,
                local_axis_x: Vec3::ZERO,
                local_axis_z: Vec3::ZERO,
                external_parent_key: 0,
                ik: Ik {
                    target: None,
                    loop_count: 0,
                    limit_angle: 0.0,
                    links: Vec::new(),
                },
            };
            let flags = bone.flags;
            if flags.contains(BoneFlags::TAIL_IS_BONE) {
                bone.tail_bone = self.bone("tail_bone")?;
            } else {
                bone.tail_offset = self.input.vec3("tail_offset")?;
            }
            if flags.intersects(BoneFlags::APPEND_ROTATE | BoneFlags::APPEND_MOVE) {
                bone.append_parent = self.bone("append_parent")?;
                bone.append_ratio = self.input.f32("append_ratio")?;
            }
            if flags.contains(BoneFlags::FIXED_AXIS) {
                bone.fixed_axis = self.input.vec3("fixed_axis")?;
            }
            if flags.contains(BoneFlags::LOCAL_AXES) {
                bone.local_axis_x = self.input.vec3("local_axis_x")?;
                bone.local_axis_z = self.input.vec3("local_axis_z")?;
            }
            if flags.contains(BoneFlags::EXTERNAL_PARENT) {
                bone.external_parent_key = self.input.i32("external_parent_key")?;
            }
            if flags.contains(BoneFlags::IK) {
                bone.ik.target = self.bone("ik.target")?;
                bone.ik.loop_count = self.input.i32("ik.loop_count")?;
                bone.ik.limit_angle = self.input.f32("ik.limit_angle")?;
                let links = self.count("ik.link_count", bone_size + 1)?;
                bone.ik
                    .links
                    .reserve_exact(self.input.capacity(links, bone_size + 1));
                for j in 0..links {
                    self.input.sub = Some(("ik.links", j));
                    let link_bone = self.bone("bone")?;
                    let limits = if self.flag("has_limits")? {
                        Some(AngleLimits {
                            lower: self.input.vec3("lower")?,
                            upper: self.input.vec3("upper")?,
                        })
                    } else {
                        None
                    };
                    bone.ik.links.push(IkLink {
                        bone: link_bone,
                        limits,
                    });
                }
                self.input.sub = None;
            }
            model.bones.push(bone);
        }
        Ok(())
    }

    fn morphs(&mut self, model: &mut Model) -> Res<()> {
        self.enter("morphs");
        let count = self.count("count", 4 + 4 + 1 + 1 + 4)?;
        if let Some(starts) = self.morph_starts(count)
            && self.read_morphs_in_parallel(model, &starts)?
        {
            return Ok(());
        }
        model.morphs.reserve_exact(self.input.capacity(count, 14));
        for i in 0..count {
            // Morphs can hold hundreds of thousands of offsets each: report every one.
            self.report_progress();
            self.input.element = Some(i);
            model.morphs.push(self.morph_record()?);
        }
        Ok(())
    }

    /// One morph (the reader's element is set).
    fn morph_record(&mut self) -> Res<Morph> {
        self.input.sub = None;
        let name_ja = self.text("name_ja")?;
        let name_en = self.text("name_en")?;
        let panel = MorphPanel::from_raw(self.input.u8("panel")?);
        let kind_byte = self.input.u8("kind")?;
        let Some(kind) = MorphKind::from_raw(kind_byte) else {
            self.input.pos -= 1;
            return Err(self.input.malformed(
                "kind",
                Message::new("load.pmx.morph_kind").arg("value", kind_byte),
            ));
        };
        let offsets = self.morph_offsets(kind)?;
        self.input.sub = None;
        Ok(Morph {
            name_ja,
            name_en,
            panel,
            offsets,
        })
    }

    /// Where each of the `count` morphs starts and where the last one ends, found by reading
    /// only each morph's text lengths, kind and offset count (its offsets are skipped, not
    /// read), through a small window of its own. `None`, and nothing moved or noted, for a
    /// small section, a summary, one thread, and wherever this check finds anything a reading
    /// on one thread would stop at or note (which then reads the morphs and fails or notes as
    /// it always did).
    fn morph_starts(&self, count: usize) -> Option<Vec<usize>> {
        if !self.may_hand_off()
            || self.summary.is_some()
            || count < 2
            || self.input.remaining() < PARALLEL_FROM
        {
            return None;
        }
        let mut input = ByteReader::new(self.input.input(), "morphs");
        input.window_size = 4096;
        input.pos = self.input.pos;
        let mut notes = Vec::new();
        let max_text = self.options.limits.max_text_bytes;
        let mut starts = Vec::with_capacity(count + 1);
        for _ in 0..count {
            starts.push(input.pos);
            for field in ["name_ja", "name_en"] {
                let len = input.text_length(field, max_text).ok()?;
                input.skip(len, field).ok()?;
            }
            input.skip(1, "panel").ok()?;
            let kind = MorphKind::from_raw(input.u8("kind").ok()?)?;
            let size = morph_offset_size(kind, self.sizes);
            let offsets = input.i32("offset_count").ok()?;
            let offsets = usize::try_from(offsets).ok()?;
            let offsets = input
                .check_count(offsets, 4, size, "offset_count", &self.options, &mut notes)
                .ok()?;
            if !notes.is_empty() {
                return None;
            }
            input.skip(offsets.checked_mul(size)?, "offsets").ok()?;
        }
        starts.push(input.pos);
        Some(starts)
    }

    /// Reads the morphs that start at `starts` (and end at its last entry) on the workers,
    /// with this thread reporting the progress. `false`, with nothing read, where a worker
    /// stopped on anything but the disk (which the check rules out): the caller reads them on
    /// this thread.
    fn read_morphs_in_parallel(&mut self, model: &mut Model, starts: &[usize]) -> Res<bool> {
        let (Some(&first), Some(&end)) = (starts.first(), starts.last()) else {
            return Ok(false);
        };
        let start = self.input.pos;
        let workers = self.hand_off(end - first);
        let before = workers.load(Ordering::Relaxed);
        self.input.pos = end;
        let part = self.part(&workers);
        let ended = AtomicBool::new(false);
        let read = std::thread::scope(|scope| {
            let job = spawn_watched(scope, &ended, move || {
                starts
                    .par_windows(2)
                    .enumerate()
                    .map(|(index, pair)| part.read_morph(index, pair[0], pair[1]))
                    .collect::<Res<Vec<_>>>()
            });
            self.wait_for(job, &ended)
        });
        match read {
            Ok(morphs) => {
                count_parallel_read(|reads| reads.morphs += 1);
                model.morphs.reserve_exact(morphs.len());
                for (morph, notes) in morphs {
                    model.morphs.push(morph);
                    self.report.notes.extend(notes);
                }
                self.input.element = Some(model.morphs.len().saturating_sub(1));
                self.input.sub = None;
                Ok(true)
            }
            Err(error @ ReadError::Io { .. }) => Err(error),
            Err(_) => {
                self.input.pos = start;
                if let Some((workers, handed_off)) = &mut self.alongside {
                    *handed_off -= end - first;
                    workers.store(before, Ordering::Relaxed);
                }
                Ok(false)
            }
        }
    }

    fn morph_offsets(&mut self, kind: MorphKind) -> Res<MorphOffsets> {
        let offset_size = morph_offset_size(kind, self.sizes);
        let count = self.count("offset_count", offset_size)?;
        if let Some(counted) = &mut self.summary {
            // Every offset of a kind has the same size: the summary checks they are there.
            counted.morph_offsets += count;
            self.input
                .skip(count.saturating_mul(offset_size), "offsets")?;
            return Ok(MorphOffsets::empty(kind));
        }
        macro_rules! collect {
            ($read:expr) => {{
                let mut offsets = Vec::with_capacity(self.input.capacity(count, offset_size));
                for j in 0..count {
                    self.input.sub = Some(("offsets", j));
                    offsets.push($read);
                }
                offsets
            }};
        }
        Ok(match kind {
            MorphKind::Group => MorphOffsets::Group(collect!(self.group_offset()?)),
            MorphKind::Flip => MorphOffsets::Flip(collect!(self.group_offset()?)),
            MorphKind::Vertex => {
                let size = self.sizes.vertex as usize;
                MorphOffsets::Vertex(self.fixed_offsets(
                    count,
                    offset_size,
                    |bytes| VertexMorphOffset {
                        vertex: VertexIdx(unsigned_at(bytes, 0, size)),
                        offset: vec3_at(bytes, size),
                    },
                    |reader| {
                        Ok(VertexMorphOffset {
                            vertex: reader.vertex("vertex")?,
                            offset: reader.input.vec3("offset")?,
                        })
                    },
                )?)
            }
            MorphKind::Bone => {
                let size = self.sizes.bone as usize;
                MorphOffsets::Bone(self.fixed_offsets(
                    count,
                    offset_size,
                    |bytes| BoneMorphOffset {
                        bone: BoneIdx::from_raw(signed_at(bytes, 0, size)),
                        translation: vec3_at(bytes, size),
                        rotation: vec4_at(bytes, size + 12),
                    },
                    |reader| {
                        Ok(BoneMorphOffset {
                            bone: reader.bone("bone")?,
                            translation: reader.input.vec3("translation")?,
                            rotation: reader.input.vec4("rotation")?,
                        })
                    },
                )?)
            }
            MorphKind::Uv => MorphOffsets::Uv(self.uv_offsets(count, offset_size)?),
            MorphKind::AdditionalUv1 => {
                MorphOffsets::AdditionalUv1(self.uv_offsets(count, offset_size)?)
            }
            MorphKind::AdditionalUv2 => {
                MorphOffsets::AdditionalUv2(self.uv_offsets(count, offset_size)?)
            }
            MorphKind::AdditionalUv3 => {
                MorphOffsets::AdditionalUv3(self.uv_offsets(count, offset_size)?)
            }
            MorphKind::AdditionalUv4 => {
                MorphOffsets::AdditionalUv4(self.uv_offsets(count, offset_size)?)
            }
            MorphKind::Material => MorphOffsets::Material(collect!(MaterialMorphOffset {
                material: self.material("material")?,
                op: MaterialMorphOp::from_raw(self.input.u8("op")?),
                diffuse: self.input.vec4("diffuse")?,
                specular: self.input.vec3("specular")?,
                specular_power: self.input.f32("specular_power")?,
                ambient: self.input.vec3("ambient")?,
                edge_color: self.input.vec4("edge_color")?,
                edge_size: self.input.f32("edge_size")?,
                texture_tint: self.input.vec4("texture_tint")?,
                sphere_tint: self.input.vec4("sphere_tint")?,
                toon_tint: self.input.vec4("toon_tint")?,
            })),
            MorphKind::Impulse => MorphOffsets::Impulse(collect!(ImpulseMorphOffset {
                rigid_body: self.rigid_body("rigid_body")?,
                local: self.flag("local")?,
                velocity: self.input.vec3("velocity")?,
                torque: self.input.vec3("torque")?,
            })),
        })
    }

    /// `count` morph offsets of `size` bytes each: those the file holds in full decoded from
    /// their bytes a block at a time (`decode`, which cannot fail: the block is there), any
    /// after them (a cut file, in recovery mode) read field by field (`read`), so that the
    /// error names the field as always.
    fn fixed_offsets<T>(
        &mut self,
        count: usize,
        size: usize,
        decode: impl Fn(&[u8]) -> T,
        mut read: impl FnMut(&mut Self) -> Res<T>,
    ) -> Res<Vec<T>> {
        const BLOCK: usize = 1 << 12;
        let mut offsets = Vec::with_capacity(self.input.capacity(count, size));
        let whole = count.min(self.input.remaining() / size.max(1));
        let mut done = 0;
        while done < whole {
            let now = (whole - done).min(BLOCK);
            self.input.sub = Some(("offsets", done));
            let bytes = self.input.take(now * size, "offsets")?;
            offsets.extend(bytes.chunks_exact(size).map(&decode));
            done += now;
        }
        for j in whole..count {
            self.input.sub = Some(("offsets", j));
            offsets.push(read(self)?);
        }
        Ok(offsets)
    }

    fn uv_offsets(&mut self, count: usize, offset_size: usize) -> Res<Vec<UvMorphOffset>> {
        let size = self.sizes.vertex as usize;
        self.fixed_offsets(
            count,
            offset_size,
            |bytes| UvMorphOffset {
                vertex: VertexIdx(unsigned_at(bytes, 0, size)),
                offset: vec4_at(bytes, size),
            },
            |reader| reader.uv_offset(),
        )
    }

    fn group_offset(&mut self) -> Res<GroupMorphOffset> {
        Ok(GroupMorphOffset {
            morph: self.morph("morph")?,
            ratio: self.input.f32("ratio")?,
        })
    }

    fn uv_offset(&mut self) -> Res<UvMorphOffset> {
        Ok(UvMorphOffset {
            vertex: self.vertex("vertex")?,
            offset: self.input.vec4("offset")?,
        })
    }

    fn display_frames(&mut self, model: &mut Model) -> Res<()> {
        self.enter("display_frames");
        let count = self.count("count", 4 + 4 + 1 + 4)?;
        model
            .display_frames
            .reserve_exact(self.input.capacity(count, 13));
        for i in 0..count {
            self.input.element = Some(i);
            self.input.sub = None;
            let name_ja = self.text("name_ja")?;
            let name_en = self.text("name_en")?;
            let special = self.flag("special")?;
            let min_item = 1 + s_min(self.sizes.bone, self.sizes.morph);
            let items_count = self.count("item_count", min_item)?;
            let mut items = Vec::with_capacity(self.input.capacity(items_count, min_item));
            for j in 0..items_count {
                self.input.sub = Some(("items", j));
                let item = match self.input.u8("target")? {
                    0 => DisplayItem::Bone(self.bone("bone")?),
                    1 => DisplayItem::Morph(self.morph("morph")?),
                    other => {
                        self.input.pos -= 1;
                        return Err(self.input.malformed(
                            "target",
                            Message::new("load.pmx.display_item_target").arg("value", other),
                        ));
                    }
                };
                items.push(item);
            }
            self.input.sub = None;
            model.display_frames.push(DisplayFrame {
                name_ja,
                name_en,
                special,
                items,
            });
        }
        Ok(())
    }

    fn rigid_bodies(&mut self, model: &mut Model) -> Res<()> {
        self.enter("rigid_bodies");
        let min_size = 4 + 4 + self.sizes.bone as usize + 1 + 2 + 1 + 36 + 20 + 1;
        let count = self.count("count", min_size)?;
        model
            .rigid_bodies
            .reserve_exact(self.input.capacity(count, min_size));
        for i in 0..count {
            self.input.element = Some(i);
            model.rigid_bodies.push(RigidBody {
                name_ja: self.text("name_ja")?,
                name_en: self.text("name_en")?,
                bone: self.bone("bone")?,
                group: self.input.u8("group")?,
                non_collision_mask: self.input.u16("non_collision_mask")?,
                shape: RigidShape::from_raw(self.input.u8("shape")?),
                size: self.input.vec3("size")?,
                position: self.input.vec3("position")?,
                rotation: self.input.vec3("rotation")?,
                mass: self.input.f32("mass")?,
                linear_damping: self.input.f32("linear_damping")?,
                angular_damping: self.input.f32("angular_damping")?,
                restitution: self.input.f32("restitution")?,
                friction: self.input.f32("friction")?,
                mode: RigidMode::from_raw(self.input.u8("mode")?),
            });
        }
        Ok(())
    }

    fn joints(&mut self, model: &mut Model) -> Res<()> {
        self.enter("joints");
        let min_size = 4 + 4 + 1 + 2 * self.sizes.rigid_body as usize + 12 * 8;
        let count = self.count("count", min_size)?;
        model
            .joints
            .reserve_exact(self.input.capacity(count, min_size));
        for i in 0..count {
            self.input.element = Some(i);
            model.joints.push(Joint {
                name_ja: self.text("name_ja")?,
                name_en: self.text("name_en")?,
                kind: JointKind::from_raw(self.input.u8("kind")?),
                body_a: self.rigid_body("body_a")?,
                body_b: self.rigid_body("body_b")?,
                position: self.input.vec3("position")?,
                rotation: self.input.vec3("rotation")?,
                move_lower: self.input.vec3("move_lower")?,
                move_upper: self.input.vec3("move_upper")?,
                rotate_lower: self.input.vec3("rotate_lower")?,
                rotate_upper: self.input.vec3("rotate_upper")?,
                spring_move: self.input.vec3("spring_move")?,
                spring_rotate: self.input.vec3("spring_rotate")?,
            });
        }
        Ok(())
    }

    fn soft_bodies(&mut self, model: &mut Model) -> Res<()> {
        self.enter("soft_bodies");
        // A 2.1 file always has the soft body count; one that ends after the joints is cut off
        // (recovery mode reads it as having no soft bodies, and says so).
        if self.input.remaining() == 0 && self.options.recover {
            let message = Message::new("load.pmx.no_soft_body_count");
            self.report.notes.push(LoadNote {
                location: self.input.location("count"),
                message,
                lost: true,
            });
            return Ok(());
        }
        let s = self.sizes;
        let min_size = 4
            + 4
            + 1
            + s.material as usize
            + 1
            + 2
            + 1
            + 4 * 2
            + 4 * 2
            + 4
            + 4 * 12
            + 4 * 6
            + 4 * 4
            + 4 * 3
            + 4
            + 4;
        let count = self.count("count", min_size)?;
        model
            .soft_bodies
            .reserve_exact(self.input.capacity(count, min_size));
        for i in 0..count {
            self.input.element = Some(i);
            self.input.sub = None;
            let name_ja = self.text("name_ja")?;
            let name_en = self.text("name_en")?;
            let shape = SoftBodyShape::from_raw(self.input.u8("shape")?);
            let material = self.material("material")?;
            let group = self.input.u8("group")?;
            let non_collision_mask = self.input.u16("non_collision_mask")?;
            let flags = SoftBodyFlags::from_bits_retain(self.input.u8("flags")?);
            let b_link_distance = self.input.i32("b_link_distance")?;
            let cluster_count = self.input.i32("cluster_count")?;
            let total_mass = self.input.f32("total_mass")?;
            let margin = self.input.f32("margin")?;
            let aero_model = AeroModel::from_raw(self.input.i32("aero_model")?);
            let config = SoftBodyConfig {
                vcf: self.input.f32("config.vcf")?,
                dp: self.input.f32("config.dp")?,
                dg: self.input.f32("config.dg")?,
                lf: self.input.f32("config.lf")?,
                pr: self.input.f32("config.pr")?,
                vc: self.input.f32("config.vc")?,
                df: self.input.f32("config.df")?,
                mt: self.input.f32("config.mt")?,
                chr: self.input.f32("config.chr")?,
                khr: self.input.f32("config.khr")?,
                shr: self.input.f32("config.shr")?,
                ahr: self.input.f32("config.ahr")?,
            };
            let cluster = SoftBodyCluster {
                srhr_cl: self.input.f32("cluster.srhr_cl")?,
                skhr_cl: self.input.f32("cluster.skhr_cl")?,
                sshr_cl: self.input.f32("cluster.sshr_cl")?,
                sr_splt_cl: self.input.f32("cluster.sr_splt_cl")?,
                sk_splt_cl: self.input.f32("cluster.sk_splt_cl")?,
                ss_splt_cl: self.input.f32("cluster.ss_splt_cl")?,
            };
            let iterations = SoftBodyIterations {
                v_it: self.input.i32("iterations.v_it")?,
                p_it: self.input.i32("iterations.p_it")?,
                d_it: self.input.i32("iterations.d_it")?,
                c_it: self.input.i32("iterations.c_it")?,
            };
            let stiffness = SoftBodyStiffness {
                lst: self.input.f32("stiffness.lst")?,
                ast: self.input.f32("stiffness.ast")?,
                vst: self.input.f32("stiffness.vst")?,
            };
            let anchor_count = self.count(
                "anchor_count",
                s.rigid_body as usize + s.vertex as usize + 1,
            )?;
            let anchor_size = s.rigid_body as usize + s.vertex as usize + 1;
            let mut anchors = Vec::with_capacity(self.input.capacity(anchor_count, anchor_size));
            for j in 0..anchor_count {
                self.input.sub = Some(("anchors", j));
                anchors.push(SoftBodyAnchor {
                    rigid_body: self.rigid_body("rigid_body")?,
                    vertex: self.vertex("vertex")?,
                    near_mode: self.flag("near_mode")?,
                });
            }
            self.input.sub = None;
            let pin_count = self.count("pin_count", s.vertex as usize)?;
            let mut pinned_vertices =
                Vec::with_capacity(self.input.capacity(pin_count, s.vertex as usize));
            for j in 0..pin_count {
                self.input.sub = Some(("pinned_vertices", j));
                pinned_vertices.push(self.vertex("vertex")?);
            }
            self.input.sub = None;
            model.soft_bodies.push(SoftBody {
                name_ja,
                name_en,
                shape,
                material,
                group,
                non_collision_mask,
                flags,
                b_link_distance,
                cluster_count,
                total_mass,
                margin,
                aero_model,
                config,
                cluster,
                iterations,
                stiffness,
                anchors,
                pinned_vertices,
            });
        }
        Ok(())
    }
}

/// Appends the triangles of `bytes`, three `size`-byte vertex indices each.
/// The bytes of one offset of a morph of `kind`.
pub(super) fn morph_offset_size(kind: MorphKind, s: IndexSizes) -> usize {
    match kind {
        MorphKind::Group | MorphKind::Flip => s.morph as usize + 4,
        MorphKind::Vertex => s.vertex as usize + 12,
        MorphKind::Bone => s.bone as usize + 28,
        MorphKind::Uv
        | MorphKind::AdditionalUv1
        | MorphKind::AdditionalUv2
        | MorphKind::AdditionalUv3
        | MorphKind::AdditionalUv4 => s.vertex as usize + 16,
        MorphKind::Material => s.material as usize + 1 + 16 + 12 + 4 + 12 + 16 + 4 + 16 * 3,
        MorphKind::Impulse => s.rigid_body as usize + 1 + 24,
    }
}

/// The float at `at` of a block whose size the caller has checked.
#[inline]
fn float_at(bytes: &[u8], at: usize) -> f32 {
    f32_at(bytes, at).unwrap_or(0.0)
}

#[inline]
fn vec3_at(bytes: &[u8], at: usize) -> Vec3 {
    Vec3::new(
        float_at(bytes, at),
        float_at(bytes, at + 4),
        float_at(bytes, at + 8),
    )
}

#[inline]
fn vec4_at(bytes: &[u8], at: usize) -> Vec4 {
    Vec4::new(
        float_at(bytes, at),
        float_at(bytes, at + 4),
        float_at(bytes, at + 8),
        float_at(bytes, at + 12),
    )
}

/// The unsigned index of `size` bytes at `at` of `bytes` (a vertex index; 4 bytes read as the
/// `i32` the file stores, cast), in a block whose size the caller has checked.
#[inline]
fn unsigned_at(bytes: &[u8], at: usize, size: usize) -> u32 {
    match size {
        1 => bytes.get(at).copied().map_or(0, u32::from),
        2 => u16_at(bytes, at).map_or(0, u32::from),
        _ => u32_at(bytes, at).unwrap_or(0),
    }
}

/// The signed index of `size` bytes at `at` of `bytes`.
#[inline]
fn signed_at(bytes: &[u8], at: usize, size: usize) -> i32 {
    match size {
        1 => bytes.get(at).map_or(0, |&b| b as i8 as i32),
        2 => u16_at(bytes, at).map_or(0, |v| v as i16 as i32),
        _ => i32_at(bytes, at).unwrap_or(0),
    }
}

/// The vertex at the start of `bytes` (which hold the longest vertex record) with `channels`
/// additional UVs (into `additional`) and bone indices of `bone` bytes, and its length;
/// `None` for a weight type that does not exist.
#[inline]
fn decode_vertex(
    bytes: &[u8],
    channels: usize,
    bone: usize,
    additional: &mut [Vec4; 4],
) -> Option<(Vertex, usize)> {
    let head = 32 + 16 * channels;
    for (channel, slot) in additional.iter_mut().take(channels).enumerate() {
        *slot = vec4_at(bytes, 32 + 16 * channel);
    }
    let kind = *bytes.get(head)?;
    let w = head + 1;
    let bone_at = |k: usize| BoneIdx::from_raw(signed_at(bytes, w + k * bone, bone));
    let (weight, weight_len) = match kind {
        0 => (Weight::Bdef1 { bone: bone_at(0) }, bone),
        1 => (
            Weight::Bdef2 {
                bones: [bone_at(0), bone_at(1)],
                weight: float_at(bytes, w + 2 * bone),
            },
            2 * bone + 4,
        ),
        2 | 4 => {
            let bones = [bone_at(0), bone_at(1), bone_at(2), bone_at(3)];
            let weights = [0, 1, 2, 3].map(|k| float_at(bytes, w + 4 * bone + 4 * k));
            let weight = if kind == 2 {
                Weight::Bdef4 { bones, weights }
            } else {
                Weight::Qdef { bones, weights }
            };
            (weight, 4 * bone + 16)
        }
        3 => {
            let at = w + 2 * bone;
            (
                Weight::Sdef {
                    bones: [bone_at(0), bone_at(1)],
                    weight: float_at(bytes, at),
                    c: vec3_at(bytes, at + 4),
                    r0: vec3_at(bytes, at + 16),
                    r1: vec3_at(bytes, at + 28),
                },
                2 * bone + 40,
            )
        }
        _ => return None,
    };
    let vertex = Vertex {
        position: vec3_at(bytes, 0),
        normal: vec3_at(bytes, 12),
        uv: Vec2::new(float_at(bytes, 24), float_at(bytes, 28)),
        weight,
        edge_scale: float_at(bytes, w + weight_len),
    };
    Some((vertex, w + weight_len + 4))
}

/// The triangle in `bytes`: three indices of `size` bytes.
#[inline]
fn triangle_at(bytes: &[u8], size: usize) -> [VertexIdx; 3] {
    let read_one = |chunk: &[u8]| -> VertexIdx {
        VertexIdx(match *chunk {
            [a] => a as u32,
            [a, b] => u16::from_le_bytes([a, b]) as u32,
            [a, b, c, d] => u32::from_le_bytes([a, b, c, d]),
            _ => 0,
        })
    };
    let (a, rest) = bytes.split_at(size);
    let (b, c) = rest.split_at(size);
    [read_one(a), read_one(b), read_one(c)]
}

fn push_triangles(faces: &mut Vec<[VertexIdx; 3]>, bytes: &[u8], size: usize) {
    faces.extend(
        bytes
            .chunks_exact(size * 3)
            .map(|triangle| triangle_at(triangle, size)),
    );
}

/// A section of the body, in file order: what [`read_section`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Section {
    ModelInfo,
    Vertices,
    Faces,
    Textures,
    Materials,
    Bones,
    Morphs,
    DisplayFrames,
    RigidBodies,
    Joints,
    SoftBodies,
}

impl Section {
    /// The sections after the model info, in file order, for a file of `version` (soft bodies
    /// are PMX 2.1's).
    pub(super) fn after_info(version: PmxVersion) -> Vec<Section> {
        let mut sections = vec![
            Section::Vertices,
            Section::Faces,
            Section::Textures,
            Section::Materials,
            Section::Bones,
            Section::Morphs,
            Section::DisplayFrames,
            Section::RigidBodies,
            Section::Joints,
        ];
        if version == PmxVersion::V2_1 {
            sections.push(Section::SoftBodies);
        }
        sections
    }
}

/// Reads the header of `bytes`: the model with its header (and its additional UV channels,
/// empty), where the body starts and what the reader noted.
pub(super) fn read_header(bytes: &[u8], options: &LoadOptions) -> Res<(Model, usize, LoadReport)> {
    let mut reader = Reader::new(Input::Bytes(bytes), options);
    let mut model = Model::default();
    reader.header(&mut model)?;
    Ok((model, reader.input.pos, reader.report))
}

/// Reads one section starting at byte `pos` with index sizes `sizes` into `model`, whose header
/// and earlier sections are read (its own lists must be empty); returns where the section ends
/// and what the reader noted. The index size search (`sizes.rs`) reads a body this way, one
/// section at a time, trying sizes.
pub(super) fn read_section(
    bytes: &[u8],
    options: &LoadOptions,
    sizes: IndexSizes,
    pos: usize,
    section: Section,
    model: &mut Model,
) -> Res<(usize, LoadReport)> {
    let mut reader = Reader::new(Input::Bytes(bytes), options);
    reader.input.pos = pos;
    reader.encoding = model.header.encoding;
    reader.sizes = sizes;
    match section {
        Section::ModelInfo => reader.model_info(model),
        Section::Vertices => reader.vertices(model),
        Section::Faces => reader.faces(model),
        Section::Textures => reader.textures(model),
        Section::Materials => reader.materials(model),
        Section::Bones => reader.bones(model),
        Section::Morphs => reader.morphs(model),
        Section::DisplayFrames => reader.display_frames(model),
        Section::RigidBodies => reader.rigid_bodies(model),
        Section::Joints => reader.joints(model),
        Section::SoftBodies => reader.soft_bodies(model),
    }?;
    Ok((reader.input.pos, reader.report))
}

fn s_min(a: u8, b: u8) -> usize {
    a.min(b) as usize
}
