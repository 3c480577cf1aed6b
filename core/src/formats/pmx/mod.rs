//! PMX 2.0 / 2.1 (`specs/pmx-2.1.ja.txt`).
//!
//! `read.rs` is the reader and `sizes.rs` the search for the index sizes a file's sections use,
//! which reads the file again through `read.rs`; the entry points here run the reader and
//! decide what a failed reading becomes (recovery, or that search), so neither file needs the
//! other's caller.

mod read;
mod sizes;
mod write;

pub use read::MAGIC;
#[doc(hidden)]
pub use read::{ParallelReads, parallel_reads};
pub use write::{
    IndexSizeMode, Pmx21Feature, Pmx21Use, PmxSaveOptions, choose_index_sizes, parallel_writes,
    pmx21_features, write, write_file, write_to,
};

use crate::formats::bytes::Input;
use crate::formats::error::{LoadNote, LoadOptions, LoadReport, Location, ReadError};
use crate::model::Model;
use read::{Counted, Reading, Run, Stopped};
use std::fs::File;
use std::sync::atomic::AtomicBool;

/// Reads a PMX file.
pub fn read(bytes: &[u8], options: &LoadOptions) -> Result<(Model, LoadReport), ReadError> {
    read_with_progress(bytes, options, &|_| {})
}

/// Reads a PMX file, calling `progress` with the number of bytes read so far at the start of
/// each section and every few thousand vertices, faces and morph offsets (cheap enough for a
/// progress bar, never per field).
pub fn read_with_progress(
    bytes: &[u8],
    options: &LoadOptions,
    progress: &dyn Fn(usize),
) -> Result<(Model, LoadReport), ReadError> {
    let run = Run {
        progress: Some(progress),
        ..Run::default()
    };
    finish(Input::Bytes(bytes), options, run)
}

/// [`read`] on one thread whatever the file's size: the reference the tests hold the
/// two-thread reading of big files to.
#[doc(hidden)]
pub fn read_on_one_thread(
    bytes: &[u8],
    options: &LoadOptions,
) -> Result<(Model, LoadReport), ReadError> {
    let run = Run {
        one_thread: true,
        ..Run::default()
    };
    finish(Input::Bytes(bytes), options, run)
}

/// Reads the PMX file `file` of `len` bytes from its start, through a window of a few MB
/// (never the whole file in memory), with `progress` as in [`read_with_progress`]. Setting
/// `cancel` stops the reading at its next read from the file, with an error.
pub fn read_file(
    file: &File,
    len: usize,
    options: &LoadOptions,
    progress: &dyn Fn(usize),
    cancel: Option<&AtomicBool>,
) -> Result<(Model, LoadReport), ReadError> {
    let run = Run {
        progress: Some(progress),
        cancel,
        ..Run::default()
    };
    finish(Input::File(file, len), options, run)
}

/// What [`read_summary`] gives: the model without its vertices, faces, additional UVs and
/// morph offsets (morphs are there, with empty offset lists of their kind), and how many of
/// those the file holds.
#[derive(Debug, Clone)]
pub struct PmxSummary {
    pub model: Model,
    pub report: LoadReport,
    pub vertices: usize,
    /// Triangles.
    pub faces: usize,
    pub morph_offsets: usize,
}

/// Reads a PMX file as [`read`] does but keeps no vertex, face or morph offset: they are
/// checked as the full reader checks them (every vertex's weight type, the counts against the
/// bytes left) and counted. What `info` needs, in the memory of the small sections only.
pub fn read_summary(
    source: SummarySource<'_>,
    options: &LoadOptions,
) -> Result<PmxSummary, ReadError> {
    let input = match source {
        SummarySource::Bytes(bytes) => Input::Bytes(bytes),
        SummarySource::File(file, len) => Input::File(file, len),
    };
    let run = Run {
        summary: true,
        ..Run::default()
    };
    let (model, report, counted) = finish_with_counts(input, options, run)?;
    Ok(PmxSummary {
        model,
        report,
        vertices: counted.vertices,
        faces: counted.faces,
        morph_offsets: counted.morph_offsets,
    })
}

/// Where [`read_summary`] reads from.
#[derive(Debug, Clone, Copy)]
pub enum SummarySource<'a> {
    Bytes(&'a [u8]),
    /// An open file and its length.
    File(&'a File, usize),
}

/// Runs a reading and finishes it ([`finish_with_counts`]).
fn finish(
    input: Input<'_>,
    options: &LoadOptions,
    run: Run<'_>,
) -> Result<(Model, LoadReport), ReadError> {
    finish_with_counts(input, options, run).map(|(model, report, _)| (model, report))
}

/// Runs a reading; a body that stopped becomes, in recovery mode, the file read with the index
/// sizes its sections use (`sizes.rs`) or what was read with a note where reading stopped, and
/// otherwise an error that names the wrong header byte where the search finds one.
fn finish_with_counts(
    input: Input<'_>,
    options: &LoadOptions,
    run: Run<'_>,
) -> Result<(Model, LoadReport, Counted), ReadError> {
    let summary = run.summary;
    let Reading {
        model,
        mut report,
        counted,
        stopped,
    } = read::read_model(input, options, run)?;
    let Some(Stopped { error, at }) = stopped else {
        return Ok((model, report, counted));
    };
    match error {
        // The disk failed or the reading was cancelled: not a question of the bytes, and
        // nothing to recover (a second reader's part may be missing).
        error @ ReadError::Io { .. } => Err(error),
        error if options.recover => {
            // Sections that store other index sizes than the header says (`sizes.rs`); taken
            // only where it reads at least as far as the reading that stopped here. Not for a
            // summary: the search reads the sections in full.
            let reach = error.location().map_or(at.offset, |l| l.offset);
            if !summary
                && let Some(bytes) = read::whole_file(input)
                && let Some(sized) = sizes::read_with_corrected_sizes(&bytes, options, reach)
            {
                let mut report = sized.report;
                if let Some(error) = sized.stopped {
                    note_stop(&mut report, error, at);
                }
                return Ok((sized.model, report, counted));
            }
            note_stop(&mut report, error, at);
            Ok((model, report, counted))
        }
        error => Err(match read::whole_file(input) {
            Some(bytes) => sizes::explain_failure(&bytes, options, error),
            None => error,
        }),
    }
}

/// Notes the error a recovery stopped at (`at`: where the reader stood, for an error without a
/// location of its own) and keeps it as the report's `recovered_from`.
fn note_stop(report: &mut LoadReport, error: ReadError, at: Location) {
    report.notes.push(LoadNote {
        location: error.location().cloned().unwrap_or(at),
        message: crate::i18n::Message::new("load.stopped_here").arg("error", error.to_message()),
        lost: true,
    });
    report.recovered_from = Some(error);
}
