//! The byte reader and writer the binary formats share: PMX, PMD, VMD, SMF and VRM's GLB
//! container. Little-endian values, every read bounded, every error at a byte offset.
//!
//! - [`ByteReader`] is a cursor over bytes in memory or over a file read through a window of a
//!   quarter megabyte ([`Input`]). Each read is checked against the bytes left and fails with a
//!   [`ReadError`] at the reader's [`Place`] (section, element, sub-list), the field and the
//!   offset where the read started. Element counts are checked against the bytes left before a
//!   caller allocates ([`ByteReader::check_count`]).
//! - [`u32_at`] and its kin read one value at an offset of a block whose size the caller has
//!   checked (SMF's chunk bodies, the GLB header).
//! - [`PutLe`] appends little-endian values to a `Vec<u8>`; a writer that streams hands that
//!   buffer to its `std::io::Write` sink a chunk at a time (the PMX writer).
//! - [`read_exact_at`] and [`write_all_at`]: positioned file reads and writes, so that two
//!   threads can read or write two parts of one file at once.
//!
//! What a format adds stays in its module as a thin layer on these: PMX's index sizes and text
//! encodings, PMD's fixed-size Shift_JIS fields, VMD's optional sections, SMF's chunk tree.

use super::error::{LoadNote, LoadOptions, Location, ReadError};
use crate::i18n::Message;
use crate::model::{Vec2, Vec3, Vec4};
use std::cell::RefCell;
use std::fs::File;
use std::sync::atomic::{AtomicBool, Ordering};

type Res<T> = Result<T, ReadError>;

/// Where in a file a reader is, for error locations; the field and the byte offset come with
/// each read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Place {
    pub section: &'static str,
    pub element: Option<usize>,
    pub sub: Option<(&'static str, usize)>,
}

impl Place {
    /// A section as a whole (no element yet).
    pub const fn section(section: &'static str) -> Self {
        Self {
            section,
            element: None,
            sub: None,
        }
    }

    /// The same place in element `index` of its section.
    pub const fn with_element(self, index: usize) -> Self {
        Self {
            element: Some(index),
            ..self
        }
    }

    /// The same place in entry `index` of the element's list `name`.
    pub const fn with_sub(self, name: &'static str, index: usize) -> Self {
        Self {
            sub: Some((name, index)),
            ..self
        }
    }

    pub fn at(self, field: &'static str, offset: usize) -> Location {
        Location {
            section: self.section,
            element: self.element,
            sub: self.sub,
            field,
            offset,
        }
    }

    pub fn malformed(
        self,
        field: &'static str,
        offset: usize,
        message: impl Into<Message>,
    ) -> ReadError {
        ReadError::Malformed {
            location: self.at(field, offset),
            message: message.into(),
        }
    }
}

/// What a [`ByteReader`] reads.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Input<'a> {
    Bytes(&'a [u8]),
    /// An open file of the given length in bytes, read by positioned reads (so that several
    /// readers may share it) through a window: never the whole file in memory.
    File(&'a File, usize),
}

impl Input<'_> {
    /// The length in bytes.
    pub fn len(self) -> usize {
        match self {
            Input::Bytes(bytes) => bytes.len(),
            Input::File(_, len) => len,
        }
    }
}

/// `ByteReader::u16` and its kin: a little-endian value of the type the method is named after.
macro_rules! read_le {
    ($($ty:ident),*) => {$(
        #[inline]
        pub fn $ty(&mut self, field: &'static str) -> Res<$ty> {
            Ok($ty::from_le_bytes(self.array(field)?))
        }
    )*};
}

/// Bytes the file window holds at least (larger reads widen it for that read). A quarter of a
/// megabyte: it stays in the core's cache between the read and the parse, and a thread's
/// first window maps 64 pages, not 256 (a window of a megabyte per worker cost a 4 MB model
/// 500 page faults); a 253 MB file takes a thousand reads, a few milliseconds of calls.
pub(crate) const WINDOW: usize = 1 << 18;

/// The largest buffer a thread keeps for its next window or write chunk: a window and what a
/// read may widen it by, or a writer's chunk and its slack.
const SPARE_LIMIT: usize = 2 * WINDOW;

thread_local! {
    /// The window or write buffer the last reader or writer on this thread finished with, for
    /// the next one. Its pages are mapped already: a fresh megabyte costs 256 page faults, and
    /// converting a 4 MB model took 3,670 faults with a new window or buffer per chunk, 2,644
    /// with the spare and smaller windows (16.3 to 15.0 ms).
    static SPARE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// This thread's spare buffer (see [`SPARE`]), empty if it has none; its length is whatever
/// the last user left (bytes of no meaning).
pub(crate) fn take_spare() -> Vec<u8> {
    SPARE
        .try_with(|spare| {
            spare
                .try_borrow_mut()
                .map(|mut spare| std::mem::take(&mut *spare))
                .unwrap_or_default()
        })
        .unwrap_or_default()
}

/// Keeps `buffer` as this thread's spare if it is larger than the one kept and not too large.
pub(crate) fn keep_spare(buffer: Vec<u8>) {
    if buffer.capacity() > SPARE_LIMIT {
        return;
    }
    // A thread that is ending (its locals gone) just frees the buffer.
    let _ = SPARE.try_with(|spare| {
        if let Ok(mut spare) = spare.try_borrow_mut()
            && spare.capacity() < buffer.capacity()
        {
            *spare = buffer;
        }
    });
}

/// A bounded little-endian cursor: see the module documentation. The place fields (`section`,
/// `element`, `sub`) are the reader's to set as it walks the file; every error names them.
pub(crate) struct ByteReader<'a> {
    input: Input<'a>,
    len: usize,
    /// For a file: the bytes of `window_start..window_start + window.len()`.
    window: Vec<u8>,
    window_start: usize,
    /// Bytes a read from the file fills the window with at least ([`WINDOW`] unless set: a
    /// reader that skips far between small reads sets less).
    pub window_size: usize,
    /// Once set, the next read from the file fails ("cancelled"); bytes in memory ignore it.
    pub cancel: Option<&'a AtomicBool>,
    /// The offset of the next read.
    pub pos: usize,
    pub section: &'static str,
    pub element: Option<usize>,
    pub sub: Option<(&'static str, usize)>,
}

impl Drop for ByteReader<'_> {
    fn drop(&mut self) {
        keep_spare(std::mem::take(&mut self.window));
    }
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `input`, in `section`.
    pub fn new(input: Input<'a>, section: &'static str) -> Self {
        Self {
            input,
            len: input.len(),
            window: Vec::new(),
            window_start: 0,
            window_size: WINDOW,
            cancel: None,
            pos: 0,
            section,
            element: None,
            sub: None,
        }
    }

    pub fn input(&self) -> Input<'a> {
        self.input
    }

    /// The length of the input in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.len.saturating_sub(self.pos)
    }

    #[inline]
    pub fn at_end(&self) -> bool {
        self.remaining() == 0
    }

    /// Moves to the start of `section`.
    pub fn enter(&mut self, section: &'static str) {
        self.section = section;
        self.element = None;
        self.sub = None;
    }

    pub fn place(&self) -> Place {
        Place {
            section: self.section,
            element: self.element,
            sub: self.sub,
        }
    }

    /// `field` at the current position.
    pub fn location(&self, field: &'static str) -> Location {
        self.place().at(field, self.pos)
    }

    pub fn malformed(&self, field: &'static str, message: impl Into<Message>) -> ReadError {
        self.place().malformed(field, self.pos, message)
    }

    /// The next `len` bytes; the position moves past them.
    #[inline]
    pub fn take(&mut self, len: usize, field: &'static str) -> Res<&[u8]> {
        let at = self.pos;
        self.skip(len, field)?;
        match self.input {
            Input::Bytes(bytes) => Ok(&bytes[at..at + len]),
            Input::File(..) => {
                let offset = self.in_window(at, len, field)?;
                Ok(&self.window[offset..offset + len])
            }
        }
    }

    /// Where the `len` bytes of a file at `at` are in the window, read into it first if they
    /// are not all there.
    #[inline]
    fn in_window(&mut self, at: usize, len: usize, field: &'static str) -> Res<usize> {
        let held = at
            .checked_sub(self.window_start)
            .filter(|offset| offset + len <= self.window.len());
        match held {
            Some(offset) => Ok(offset),
            None => {
                self.fill_window(at, len, field)?;
                Ok(0)
            }
        }
    }

    /// The bytes from the current position to the end of what is at hand (the rest of the
    /// input in memory; the rest of the window for a file, read first where it holds fewer
    /// than `at_least`), without moving: for a loop that hops over many small records in one
    /// block. `at_least` must be in the input.
    pub fn ahead(&mut self, at_least: usize, field: &'static str) -> Res<&[u8]> {
        let at = self.pos;
        if self.remaining() < at_least {
            return Err(self.past_end(at_least, field));
        }
        match self.input {
            Input::Bytes(bytes) => Ok(&bytes[at..self.len]),
            Input::File(..) => {
                let offset = self.in_window(at, at_least, field)?;
                Ok(&self.window[offset..])
            }
        }
    }

    /// Moves past `len` bytes without reading them (a file is not read there at all).
    #[inline]
    pub fn skip(&mut self, len: usize, field: &'static str) -> Res<()> {
        match self.pos.checked_add(len) {
            Some(end) if end <= self.len => {
                self.pos = end;
                Ok(())
            }
            _ => Err(self.past_end(len, field)),
        }
    }

    #[cold]
    fn past_end(&self, len: usize, field: &'static str) -> ReadError {
        self.malformed(
            field,
            Message::new("load.bytes.past_end")
                .arg("needed", len)
                .arg("left", self.remaining()),
        )
    }

    /// Reads the file from `at` into the window: `len` bytes at least, [`WINDOW`] when the
    /// file has them. The window's memory is reused, so reading a file takes no more than
    /// its largest single read.
    #[cold]
    fn fill_window(&mut self, at: usize, len: usize, field: &'static str) -> Res<()> {
        let Input::File(file, _) = self.input else {
            return Ok(());
        };
        let location = self.place().at(field, at);
        if self
            .cancel
            .is_some_and(|cancel| cancel.load(Ordering::Relaxed))
        {
            return Err(ReadError::Io {
                location,
                message: Message::new("load.cancelled"),
            });
        }
        let size = len.max(self.window_size).min(self.len - at);
        // Only a window that grows is zeroed (and only its new part): the read overwrites
        // every byte, and zeroing a megabyte per read was a pass over the file of its own.
        // A reader's first window is the thread's spare when it has one (mapped pages).
        // Else a new one comes zeroed from the allocator (fresh pages, no pass over them).
        if self.window.is_empty() {
            let spare = take_spare();
            self.window = if spare.capacity() >= size {
                spare
            } else {
                vec![0; size]
            };
        }
        if self.window.len() < size {
            self.window.resize(size, 0);
        } else {
            self.window.truncate(size);
        }
        self.window_start = at;
        read_exact_at(file, &mut self.window, at as u64).map_err(|error| {
            // What a failed read left there is no part of the file.
            self.window.clear();
            ReadError::Io {
                location,
                message: Message::new("load.bytes.io").arg("error", error.to_string()),
            }
        })
    }

    #[inline]
    pub fn array<const N: usize>(&mut self, field: &'static str) -> Res<[u8; N]> {
        let bytes = self.take(N, field)?;
        let mut out = [0u8; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    #[inline]
    pub fn u8(&mut self, field: &'static str) -> Res<u8> {
        Ok(self.array::<1>(field)?[0])
    }

    read_le!(u16, u32, i32, f32);

    /// Two floats, read (and bounds-checked) as one block.
    #[inline]
    pub fn vec2(&mut self, field: &'static str) -> Res<Vec2> {
        let b: [u8; 8] = self.array(field)?;
        Ok(Vec2::new(float_in(&b, 0), float_in(&b, 4)))
    }

    /// Three floats, read (and bounds-checked) as one block.
    #[inline]
    pub fn vec3(&mut self, field: &'static str) -> Res<Vec3> {
        let b: [u8; 12] = self.array(field)?;
        Ok(Vec3::new(float_in(&b, 0), float_in(&b, 4), float_in(&b, 8)))
    }

    /// Four floats, read (and bounds-checked) as one block.
    #[inline]
    pub fn vec4(&mut self, field: &'static str) -> Res<Vec4> {
        let b: [u8; 16] = self.array(field)?;
        Ok(Vec4::new(
            float_in(&b, 0),
            float_in(&b, 4),
            float_in(&b, 8),
            float_in(&b, 12),
        ))
    }

    /// The byte length of a length-prefixed text (an `i32`, then that many bytes; PMX stores
    /// every text so), checked: not negative, at most `max_bytes` (else limit exceeded) and no
    /// more than the bytes left. The errors point at the length; on success the reader stands
    /// at the text's first byte, for [`ByteReader::take`].
    pub fn text_length(&mut self, field: &'static str, max_bytes: usize) -> Res<usize> {
        let len = self.i32(field)?;
        if len < 0 {
            self.pos -= 4;
            return Err(self.malformed(
                field,
                Message::new("load.bytes.negative_text_length").arg("length", len),
            ));
        }
        let len = len as usize;
        if len > max_bytes {
            self.pos -= 4;
            return Err(ReadError::LimitExceeded {
                location: self.location(field),
                message: Message::new("load.bytes.text_over_limit")
                    .arg("length", len)
                    .arg("limit", max_bytes),
            });
        }
        if len > self.remaining() {
            self.pos -= 4;
            return Err(self.malformed(
                field,
                Message::new("load.bytes.text_past_end")
                    .arg("length", len)
                    .arg("left", self.remaining() - 4),
            ));
        }
        Ok(len)
    }

    /// Refuses a count over `limit` (limit exceeded), pointing at the count `width` bytes back.
    pub fn refuse_over_limit(
        &mut self,
        count: usize,
        width: usize,
        limit: usize,
        field: &'static str,
    ) -> Res<()> {
        if count > limit {
            self.pos -= width;
            return Err(ReadError::LimitExceeded {
                location: self.location(field),
                message: Message::new("load.bytes.count_over_limit")
                    .arg("count", count)
                    .arg("limit", limit),
            });
        }
        Ok(())
    }

    /// Checks an element count read `width` bytes back: within `options.limits`, and (outside
    /// recovery mode) no more elements than the bytes left can hold at `min_size` bytes each,
    /// so that a count far larger than the file fails before anything is allocated. Errors
    /// point at the count. In recovery mode such a count is capped instead ([`Self::cap_count`]).
    pub fn check_count(
        &mut self,
        count: usize,
        width: usize,
        min_size: usize,
        field: &'static str,
        options: &LoadOptions,
        notes: &mut Vec<LoadNote>,
    ) -> Res<usize> {
        self.refuse_over_limit(count, width, options.limits.max_elements, field)?;
        let needed = count.saturating_mul(min_size.max(1));
        // In recovery mode the elements that are there are read one by one until the cut.
        if needed > self.remaining() && !options.recover {
            self.pos -= width;
            return Err(self.malformed(
                field,
                Message::new("load.bytes.count_past_end")
                    .arg("count", count)
                    .arg("needed", needed)
                    .arg("left", self.remaining().saturating_sub(width)),
            ));
        }
        Ok(self.cap_count(count, width, min_size, field, notes))
    }

    /// A count the bytes left cannot hold (read `width` bytes back) is noted and capped at the
    /// elements that fit plus one: that one cannot be complete, so reading stops in it at the
    /// end of the file with the error a truncated file gives, while a corrupted count never
    /// makes more elements, or more loop turns, than the file has bytes for (recovery mode).
    pub fn cap_count(
        &mut self,
        count: usize,
        width: usize,
        min_size: usize,
        field: &'static str,
        notes: &mut Vec<LoadNote>,
    ) -> usize {
        let fits = self.remaining() / min_size.max(1);
        if count <= fits {
            return count;
        }
        notes.push(LoadNote {
            location: Location {
                offset: self.pos.saturating_sub(width),
                ..self.location(field)
            },
            message: Message::new("load.bytes.count_capped")
                .arg("count", count)
                .arg("left", self.remaining())
                .arg("fits", fits)
                .arg("size", min_size),
            // What is lost is said where reading stops, at the end of the file.
            lost: false,
        });
        fits + 1
    }

    /// Capacity to reserve for `count` elements of at least `min_size` bytes: never more than
    /// the bytes left can hold (counts are not trusted in recovery mode).
    #[inline]
    pub fn capacity(&self, count: usize, min_size: usize) -> usize {
        count.min(self.remaining() / min_size.max(1))
    }
}

/// `N` bytes at `at` of `data`; `None` where they run past its end.
#[inline]
pub(crate) fn array_at<const N: usize>(data: &[u8], at: usize) -> Option<[u8; N]> {
    data.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// `u16_at` and its kin: the little-endian value at `at` of `data`; `None` past its end.
macro_rules! value_at {
    ($($name:ident: $ty:ident),*) => {$(
        #[inline]
        pub(crate) fn $name(data: &[u8], at: usize) -> Option<$ty> {
            array_at(data, at).map($ty::from_le_bytes)
        }
    )*};
}

value_at!(u16_at: u16, u32_at: u32, i32_at: i32, f32_at: f32);

/// The float at `at` of a block read whole (its size rules out the zero).
#[inline]
fn float_in(block: &[u8], at: usize) -> f32 {
    f32_at(block, at).unwrap_or(0.0)
}

/// Little-endian values appended to a byte buffer: the writer the binary formats share.
pub(crate) trait PutLe {
    fn put_u8(&mut self, value: u8);
    fn put_u16(&mut self, value: u16);
    fn put_i16(&mut self, value: i16);
    fn put_u32(&mut self, value: u32);
    fn put_i32(&mut self, value: i32);
    fn put_f32(&mut self, value: f32);
    fn put_f32s(&mut self, values: &[f32]);
    fn put_vec2(&mut self, v: Vec2);
    fn put_vec3(&mut self, v: Vec3);
    fn put_vec4(&mut self, v: Vec4);
    /// Appends a 4-byte length or size field to be filled in later ([`PutLe::patch_u32`],
    /// [`PutLe::patch_i32`]) and returns where it is.
    fn reserve_u32(&mut self) -> usize;
    fn patch_u32(&mut self, at: usize, value: u32);
    fn patch_i32(&mut self, at: usize, value: i32);
}

/// `put_u16` and its kin: the value's little-endian bytes.
macro_rules! put_le {
    ($($name:ident($ty:ty)),* $(,)?) => {$(
        #[inline]
        fn $name(&mut self, value: $ty) {
            self.extend_from_slice(&value.to_le_bytes());
        }
    )*};
}

impl PutLe for Vec<u8> {
    put_le!(
        put_u16(u16),
        put_i16(i16),
        put_u32(u32),
        put_i32(i32),
        put_f32(f32),
    );

    #[inline]
    fn put_u8(&mut self, value: u8) {
        self.push(value);
    }

    #[inline]
    fn put_f32s(&mut self, values: &[f32]) {
        for &value in values {
            self.put_f32(value);
        }
    }

    #[inline]
    fn put_vec2(&mut self, v: Vec2) {
        self.put_f32s(&[v.x, v.y]);
    }

    #[inline]
    fn put_vec3(&mut self, v: Vec3) {
        self.put_f32s(&[v.x, v.y, v.z]);
    }

    #[inline]
    fn put_vec4(&mut self, v: Vec4) {
        self.put_f32s(&[v.x, v.y, v.z, v.w]);
    }

    fn reserve_u32(&mut self) -> usize {
        let at = self.len();
        self.extend_from_slice(&[0; 4]);
        at
    }

    fn patch_u32(&mut self, at: usize, value: u32) {
        self[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }

    fn patch_i32(&mut self, at: usize, value: i32) {
        self[at..at + 4].copy_from_slice(&value.to_le_bytes());
    }
}

/// Fills `buf` from `file` at `offset`, leaving the file's own position alone (so that
/// several readers may share one open file).
pub(crate) fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let len = buf.len();
        repeat_at(
            len,
            offset,
            std::io::ErrorKind::UnexpectedEof,
            |done, at| std::os::windows::fs::FileExt::seek_read(file, &mut buf[done..], at),
        )
    }
}

/// Writes `bytes` to `file` at `offset`, leaving the file's own position alone (so that two
/// writers can fill two parts of one file at once).
pub(crate) fn write_all_at(file: &File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
    }
    #[cfg(windows)]
    {
        repeat_at(
            bytes.len(),
            offset,
            std::io::ErrorKind::WriteZero,
            |done, at| std::os::windows::fs::FileExt::seek_write(file, &bytes[done..], at),
        )
    }
}

/// Repeats a positioned read or write (`step(done, offset + done)` moves the bytes from `done`
/// on and says how many it moved) until all `len` bytes are moved: Windows' `seek_read` and
/// `seek_write` may move fewer. A step that moves nothing fails with `nothing_moved`.
#[cfg_attr(not(windows), allow(dead_code))]
fn repeat_at(
    len: usize,
    offset: u64,
    nothing_moved: std::io::ErrorKind,
    mut step: impl FnMut(usize, u64) -> std::io::Result<usize>,
) -> std::io::Result<()> {
    let mut done = 0;
    while done < len {
        match step(done, offset + done as u64) {
            Ok(0) => return Err(nothing_moved.into()),
            Ok(moved) => done += moved,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    // Test code: a failed expectation is the test failing.
    #![allow(clippy::expect_used, clippy::unwrap_used)]

    use super::*;

    #[test]
    fn reads_are_bounded_and_located() {
        let bytes = [1u8, 0, 2, 0, 0, 0, 0, 0, 0, 0x3f, 9, 9];
        let mut reader = ByteReader::new(Input::Bytes(&bytes), "header");
        assert_eq!(reader.u16("a").unwrap(), 1);
        assert_eq!(reader.u32("b").unwrap(), 2);
        reader.element = Some(3);
        assert_eq!(reader.f32("c").unwrap(), 0.5);
        let error = reader.u32("d").unwrap_err();
        let location = error.location().unwrap();
        assert_eq!(
            (location.section, location.element, location.field),
            ("header", Some(3), "d")
        );
        assert_eq!(location.offset, 10);
        assert!(
            error.to_string().contains("needs 4 bytes, 2 left"),
            "{error}"
        );
        assert_eq!(reader.pos, 10, "a failed read does not move");
        assert_eq!(reader.remaining(), 2);
    }

    #[test]
    fn counts_are_checked_before_allocation_and_capped_in_recovery() {
        let bytes = [5u8, 0, 0, 0, 1, 2, 3];
        let mut notes = Vec::new();
        let mut reader = ByteReader::new(Input::Bytes(&bytes), "bones");
        let count = reader.u32("count").unwrap() as usize;
        let error = reader
            .check_count(count, 4, 2, "count", &LoadOptions::default(), &mut notes)
            .unwrap_err();
        assert_eq!(error.location().unwrap().offset, 0);
        assert!(
            error
                .to_string()
                .contains("count 5 needs at least 10 bytes but only 3 are left"),
            "{error}"
        );
        reader.pos = 4;
        let recover = LoadOptions {
            recover: true,
            ..LoadOptions::default()
        };
        assert_eq!(
            reader
                .check_count(count, 4, 2, "count", &recover, &mut notes)
                .unwrap(),
            2
        );
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].location.offset, 0);
        assert_eq!(reader.capacity(count, 2), 1);
    }

    #[test]
    fn values_at_offsets_stop_at_the_end() {
        let bytes = [0u8, 1, 0, 0, 0];
        assert_eq!(u32_at(&bytes, 1), Some(1));
        assert_eq!(u32_at(&bytes, 2), None);
        assert_eq!(u32_at(&bytes, usize::MAX), None);
        assert_eq!(u16_at(&bytes, 0), Some(256));
    }

    #[test]
    fn the_writer_writes_little_endian_and_patches_lengths() {
        let mut out = Vec::new();
        let at = out.reserve_u32();
        out.put_u16(0x0102);
        out.put_i16(-1);
        out.put_vec2(Vec2::new(1.0, 0.0));
        out.patch_u32(at, 12);
        assert_eq!(
            out,
            [12, 0, 0, 0, 2, 1, 0xff, 0xff, 0, 0, 0x80, 0x3f, 0, 0, 0, 0]
        );
    }

    #[test]
    fn the_window_gives_the_bytes_of_the_file_wherever_it_moves() {
        // Reads that grow, shrink and move the window (which keeps its memory between
        // reads) and looks ahead, against the same bytes in memory.
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bytes");
        std::fs::write(&path, &bytes).unwrap();
        let file = File::open(&path).unwrap();
        let mut from_file = ByteReader::new(Input::File(&file, bytes.len()), "test");
        from_file.window_size = 100;
        let mut in_memory = ByteReader::new(Input::Bytes(&bytes), "test");
        for (at, len) in [
            (0, 10),
            (50, 300),
            (20, 5),
            (9_000, 40),
            (400, 100),
            (9_990, 10),
        ] {
            from_file.pos = at;
            in_memory.pos = at;
            assert_eq!(
                from_file.take(len, "take").unwrap(),
                in_memory.take(len, "take").unwrap(),
                "take {len} at {at}"
            );
            from_file.pos = at;
            let ahead = from_file.ahead(len, "ahead").unwrap();
            assert!(ahead.len() >= len);
            assert_eq!(ahead, &bytes[at..at + ahead.len()], "ahead {len} at {at}");
            in_memory.pos = at;
            assert_eq!(in_memory.ahead(len, "ahead").unwrap(), &bytes[at..]);
        }
        from_file.pos = 9_995;
        let error = from_file.ahead(10, "ahead").unwrap_err();
        assert_eq!(error.location().unwrap().offset, 9_995);
        assert_eq!(from_file.pos, 9_995, "a failed look ahead does not move");
    }

    #[test]
    fn a_reader_takes_the_last_window_of_its_thread_and_sees_only_its_own_file() {
        // The spare window still holds the first file's bytes: the second reader, over a
        // shorter file, must see its own bytes and nothing past its end.
        let dir = tempfile::tempdir().unwrap();
        let first: Vec<u8> = (0..3 * WINDOW as u32).map(|i| (i % 251) as u8).collect();
        let second: Vec<u8> = (0..1_000u32).map(|i| (i * 3 % 7) as u8).collect();
        for (name, bytes) in [("first", &first), ("second", &second)] {
            std::fs::write(dir.path().join(name), bytes).unwrap();
        }
        drop(take_spare());
        let file = File::open(dir.path().join("first")).unwrap();
        let mut reader = ByteReader::new(Input::File(&file, first.len()), "test");
        reader.pos = WINDOW + 5;
        assert_eq!(
            reader.take(10, "take").unwrap(),
            &first[WINDOW + 5..WINDOW + 15]
        );
        let window = reader.window.as_ptr();
        drop(reader);

        let file = File::open(dir.path().join("second")).unwrap();
        let mut reader = ByteReader::new(Input::File(&file, second.len()), "test");
        assert_eq!(reader.take(100, "take").unwrap(), &second[..100]);
        assert_eq!(reader.window.as_ptr(), window, "the spare window was taken");
        assert_eq!(reader.ahead(1, "ahead").unwrap(), &second[100..]);
        reader.pos = 990;
        assert!(
            reader.take(20, "take").is_err(),
            "nothing past the second file's end"
        );
    }

    #[test]
    fn a_positioned_step_is_repeated_until_everything_moved() {
        let mut calls = Vec::new();
        repeat_at(10, 100, std::io::ErrorKind::WriteZero, |done, at| {
            calls.push((done, at));
            Ok(4)
        })
        .unwrap();
        assert_eq!(calls, [(0, 100), (4, 104), (8, 108)]);
        let error = repeat_at(1, 0, std::io::ErrorKind::UnexpectedEof, |_, _| Ok(0)).unwrap_err();
        assert_eq!(error.kind(), std::io::ErrorKind::UnexpectedEof);
    }
}
