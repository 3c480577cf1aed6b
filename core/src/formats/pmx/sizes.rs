//! Index sizes that are not the ones the header declares, section by section.
//!
//! Some exporters write a header that declares one index size and sections that store another:
//! a bone index size of 1 over 2-byte bone indices everywhere, or over 2-byte bone indices in
//! the vertex section only (every other section storing the 1 byte the header says), or over
//! 4-byte ones in a file that then ends after the material list. Other loaders open such
//! files. They do not read with the sizes they declare; recovery then reads the body again
//! section by section ([`read_section`]), each section with its own sizes for the index kinds
//! it reads (the sizes the path so far used first, then the header's, then the fewest
//! changes), backtracking when a choice reads one section but fails a later one. A reading
//! - reads each section strictly, and
//! - has no index past the end of its list among those a section read with a size other than
//!   the header's (a size that is off reads misaligned bytes, which make such indices; checked
//!   as soon as the list's count is known).
//!
//! The first reading that ends exactly at the end of the file is taken. Where none does (the
//! file is also cut, or a count overruns the end, or bytes trail), the reading whose complete
//! sections reach furthest is taken, and the section after them is read with recovery's
//! allowances (a cut keeps the elements before it, an overrunning count is capped), with the
//! sizes that read it furthest. The caller keeps the ordinary recovery when it reaches further
//! (recovery never gives a model emptier than its bytes hold). Each header byte that every
//! section contradicts the same way is reported at the header; a section that differs from the
//! others is reported at the section.
//!
//! Bounds: the search reads at most [`BUDGET_FILE_READS`] times the file (summed over every
//! attempt, plus one section), makes at most [`MAX_ATTEMPTS`] section reads, and remembers at
//! most that many dead ends; the model is read in place (never copied per attempt), so the
//! memory is the model's plus the list of sections on the current path. The replay of the best
//! reading and the recovery of the section after it read at most twice the file more.
//!
//! This does not fix a header size byte that is not 1, 2 or 4 (the header itself does not read),
//! and it does not search at all when the declared sizes read the file (even with bytes left
//! over at the end: sizes that swallow those bytes exactly would be a guess, not a finding).

use super::read::{Section, read_header, read_section};
use crate::formats::error::{LoadNote, LoadOptions, LoadReport, Location, ReadError};
use crate::i18n::Message;
use crate::model::refs::{RefKind, RefSite, RefVisitor, visit_refs};
use crate::model::*;
use crate::path::ElementKind;
use std::collections::HashSet;

/// Byte offset of the vertex index size in the header: magic (4), version (4), the header byte
/// count (1), encoding (1) and additional UV count (1) come before it; the other five sizes
/// follow in [`RefKind::ALL`] order (texture 12, material 13, bone 14, morph 15, rigid body 16).
/// A header with more than 8 bytes (read in recovery) keeps the same first 8.
const FIRST_SIZE_BYTE: usize = 11;

/// The sizes a PMX header may declare.
const SIZES: [u8; 3] = [1, 2, 4];

/// The search reads at most this many times the file's size, summed over every attempt (and
/// then at most one more section), so it stays linear in the file size and never reads the
/// whole file hundreds of times. Measured on feature models: finding one wrong byte of any kind
/// reads 1 to 2.8 times the file; a cut file 0.9 times on average, 4.8 at most, over every cut
/// (a search that would need more takes the best reading found so far).
const BUDGET_FILE_READS: usize = 4;

/// Most section reads one search makes (each bounded by the file's size), and so most dead
/// ends it remembers.
const MAX_ATTEMPTS: usize = 512;

/// A recovery reading that stops within this many bytes of the end of the file ran out of
/// file: a field of the section needed more than was left (the largest fixed-size field read
/// at once is 16 bytes; a text's length may ask for more).
const END_REGION: usize = 64;

/// One value per index kind, in [`RefKind::ALL`] order.
type PerKind<T> = [T; 6];

/// What a recovery reads with the sizes the sections store: the model, the report (header
/// notes, the sections' notes, one note per size that differs from the header's) and the
/// error that stopped it, if one did (the caller notes it as recovery's stop).
pub(super) struct SizedReading {
    pub model: Model,
    pub report: LoadReport,
    pub stopped: Option<ReadError>,
}

/// Reads `bytes` again with the index sizes its sections use when those differ from what the
/// header declares (see the module documentation). `None` when no section needs other sizes,
/// or when the ordinary recovery, which stopped at byte `ordinary_reach`, reads further.
pub(super) fn read_with_corrected_sizes(
    bytes: &[u8],
    options: &LoadOptions,
    ordinary_reach: usize,
) -> Option<SizedReading> {
    let found = search(bytes, options)?;
    let notes = found.size_notes();
    if notes.is_empty() || found.reach() < ordinary_reach {
        return None;
    }
    let reach = found.reach();
    let Found {
        mut model,
        header_report,
        steps,
        stopped,
        exact,
        ..
    } = found;
    model.header.index_sizes = Some(found_header_sizes(found.declared, &steps));
    let mut report = header_report;
    report.file_size = bytes.len();
    report.notes.extend(notes);
    for step in steps {
        report.notes.extend(step.report.notes);
        if step.report.face_index_count.is_some() {
            report.face_index_count = step.report.face_index_count;
        }
    }
    if stopped.is_none() && !exact {
        report.notes.push(LoadNote {
            location: Location {
                section: "end",
                element: None,
                sub: None,
                field: "",
                offset: reach,
            },
            message: Message::new("load.pmx.trailing_bytes")
                .arg("count", bytes.len().saturating_sub(reach)),
            lost: true,
        });
    }
    Some(SizedReading {
        model,
        report,
        stopped,
    })
}

/// The error of a strict read, pointed at the header byte (or the section) whose size is
/// wrong when the sections read exactly with other sizes (see the module documentation);
/// `error` itself otherwise. A strict read does not read the file with sizes it does not
/// declare: that is recovery's choice, and the error says recovery reads it.
pub(super) fn explain_failure(bytes: &[u8], options: &LoadOptions, error: ReadError) -> ReadError {
    // A header that does not read is not a question of sizes. A limit refused in the body may
    // be: misaligned bytes read as a text length are often over it (the search keeps the limits).
    let in_body = error
        .location()
        .is_some_and(|location| location.section != "header");
    if !in_body {
        return error;
    }
    let Some(found) = search(bytes, options) else {
        return error;
    };
    if !found.exact {
        return error;
    }
    let differences = found.differences();
    let Some(first) = differences.first() else {
        return error;
    };
    let said = differences
        .iter()
        .map(SizeDifference::describe)
        .reduce(|all, next| {
            Message::new("load.list_joined")
                .arg("first", all)
                .arg("next", next)
        })
        .unwrap_or_else(|| first.describe());
    // The failure without its kind ("malformed file: "), which the whole error already says.
    let failure = match &error {
        ReadError::Malformed { location, message }
        | ReadError::LimitExceeded { location, message } => Message::new("load.note")
            .arg("location", location.to_message())
            .arg("message", message.clone()),
        other => other.to_message(),
    };
    ReadError::Malformed {
        location: first.location(),
        message: Message::new("load.pmx.sizes_explain")
            .arg("problems", said)
            .arg("failure", failure),
    }
}

/// The header sizes a model read with per-section sizes keeps (what `IndexSizeMode::Keep`
/// writes): for each kind, the largest size a section stored it with (every index read
/// fits), the header's for kinds no section read.
fn found_header_sizes(declared: IndexSizes, steps: &[Step]) -> IndexSizes {
    let mut sizes = declared;
    for kind in RefKind::ALL {
        let stored = steps
            .iter()
            .filter(|step| step.used.contains(&kind))
            .map(|step| size_of(step.sizes, kind))
            .max();
        if let Some(stored) = stored {
            set_size(&mut sizes, kind, stored);
        }
    }
    sizes
}

/// A size the file stores that is not the header's: for every section that reads the kind
/// (`section: None`, a wrong header byte), or for one section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SizeDifference {
    kind: RefKind,
    declared: u8,
    stored: u8,
    /// The section and where it starts, when the other sections agree with the header.
    section: Option<(Section, usize)>,
    /// Whether the whole file read exactly with it.
    exact: bool,
}

impl SizeDifference {
    fn location(&self) -> Location {
        match self.section {
            None => Location {
                section: "header",
                element: None,
                sub: None,
                field: size_field(self.kind),
                offset: FIRST_SIZE_BYTE + kind_slot(self.kind),
            },
            Some((section, start)) => Location {
                section: section_name(section),
                element: None,
                sub: None,
                field: size_field(self.kind),
                offset: start,
            },
        }
    }

    fn describe(&self) -> Message {
        let message = match self.section {
            None => Message::new("load.pmx.index_size_file"),
            Some((section, _)) => {
                Message::new("load.pmx.index_size_section").arg("section", section_name(section))
            }
        };
        message
            .word("kind", kind_noun(self.kind))
            .arg("declared", self.declared)
            .arg("stored", self.stored)
    }

    fn note(&self) -> LoadNote {
        let why = if self.exact {
            "load.pmx.index_size_exact"
        } else {
            "load.pmx.index_size_furthest"
        };
        LoadNote {
            location: self.location(),
            message: Message::new("load.pmx.index_size_read")
                .arg("problem", self.describe())
                .arg("stored", self.stored)
                .word("why", why),
            lost: false,
        }
    }
}

/// A section as the search read it.
#[derive(Debug, Clone)]
struct Step {
    section: Section,
    start: usize,
    sizes: IndexSizes,
    /// The index kinds the section did read (its elements hold some).
    used: Vec<RefKind>,
    /// The largest index the section read of each kind it read with a size other than the
    /// header's: such indices must be in range once their list is known.
    claims: PerKind<Option<usize>>,
    report: LoadReport,
}

/// A reading of the file with sizes chosen section by section.
struct Found {
    model: Model,
    header_report: LoadReport,
    declared: IndexSizes,
    /// The sections read, in order (the last one may be the one recovery stopped in).
    steps: Vec<Step>,
    /// The error recovery stopped at in the section after the complete ones.
    stopped: Option<ReadError>,
    /// Where the last section read ends (the whole file when `exact`).
    end: usize,
    /// Every section read strictly, the last ending at the end of the file.
    exact: bool,
}

impl Found {
    /// The byte up to which the file was read: where recovery stopped, or the end.
    fn reach(&self) -> usize {
        match &self.stopped {
            Some(error) => error.location().map_or(self.end, |l| l.offset),
            None => self.end,
        }
    }

    /// The sizes the file stores that are not the header's: a kind every section that read it
    /// read with the same other size is one wrong header byte; otherwise each section that
    /// differs from the header is one difference.
    fn differences(&self) -> Vec<SizeDifference> {
        let mut differences = Vec::new();
        for kind in RefKind::ALL {
            let declared = size_of(self.declared, kind);
            let readers: Vec<&Step> = self
                .steps
                .iter()
                .filter(|step| step.used.contains(&kind))
                .collect();
            let Some(first) = readers.first() else {
                continue;
            };
            let stored = size_of(first.sizes, kind);
            let agreed = readers
                .iter()
                .all(|step| size_of(step.sizes, kind) == stored);
            if agreed && stored != declared {
                differences.push(SizeDifference {
                    kind,
                    declared,
                    stored,
                    section: None,
                    exact: self.exact,
                });
            } else if !agreed {
                for step in readers {
                    let stored = size_of(step.sizes, kind);
                    if stored != declared {
                        differences.push(SizeDifference {
                            kind,
                            declared,
                            stored,
                            section: Some((step.section, step.start)),
                            exact: self.exact,
                        });
                    }
                }
            }
        }
        // Header bytes first, in the header's order; then the sections in file order.
        differences.sort_by_key(|d| d.section.map_or((0, 0), |(_, start)| (1, start)));
        differences
    }

    fn size_notes(&self) -> Vec<LoadNote> {
        self.differences()
            .iter()
            .map(SizeDifference::note)
            .collect()
    }
}

fn search(bytes: &[u8], options: &LoadOptions) -> Option<Found> {
    search_within(
        bytes,
        options,
        bytes.len().saturating_mul(BUDGET_FILE_READS),
    )
    .0
}

/// The search with a budget of `budget` bytes read; also returns how many it read (the replay
/// of the reading taken included).
fn search_within(bytes: &[u8], options: &LoadOptions, budget: usize) -> (Option<Found>, usize) {
    search_from_header(bytes, options, budget).unwrap_or((None, 0))
}

/// `None` when the header or the model info does not read (nothing to search).
fn search_from_header(
    bytes: &[u8],
    options: &LoadOptions,
    budget: usize,
) -> Option<(Option<Found>, usize)> {
    let (mut model, body_start, header_report) = read_header(bytes, options).ok()?;
    let declared = model.header.index_sizes?;
    // Each section must read as the file says, without recovery's leniency: a reading that
    // needs it is not one the sizes explain (recovery's allowances come after the search, in
    // the section after the complete ones).
    let strict = LoadOptions {
        recover: false,
        ..*options
    };
    let (after_info, _) = read_section(
        bytes,
        &strict,
        declared,
        body_start,
        Section::ModelInfo,
        &mut model,
    )
    .ok()?;
    let sections = Section::after_info(model.header.version);
    let mut search = Search {
        bytes,
        options: strict,
        declared,
        sections,
        model,
        path: Vec::new(),
        failed: HashSet::new(),
        best: (Vec::new(), after_info),
        budget,
        bytes_read: 0,
        attempts_left: MAX_ATTEMPTS,
    };
    if search.from(0, after_info) {
        let end = bytes.len();
        let found = Found {
            model: search.model,
            header_report,
            declared,
            steps: search.path,
            stopped: None,
            end,
            exact: true,
        };
        return Some((Some(found), search.bytes_read));
    }
    let found = search.recover_after_best(options, header_report, after_info);
    Some((Some(found), search.bytes_read))
}

/// A state of the search: the section, the byte it starts at, the counts of the lists read
/// and the largest claimed index of each kind whose list is not read yet. Two paths that reach
/// the same state read the rest of the file the same way, to the same end.
type StateKey = (usize, usize, PerKind<Option<usize>>, PerKind<Option<usize>>);

struct Search<'a> {
    bytes: &'a [u8],
    options: LoadOptions,
    declared: IndexSizes,
    sections: Vec<Section>,
    /// The model as the sections read so far on the current path left it.
    model: Model,
    /// The sections read on the current path.
    path: Vec<Step>,
    /// States from which no reading reaches the end.
    failed: HashSet<StateKey>,
    /// The path of complete sections that reaches furthest, and where it ends.
    best: (Vec<Step>, usize),
    /// Bytes the search may read, and has read, over all its attempts.
    budget: usize,
    bytes_read: usize,
    attempts_left: usize,
}

impl Search<'_> {
    /// Whether a reading of the sections from `index` on, starting at `pos`, ends exactly at
    /// the end of the file and is plausible (then `path` holds it); `false` when there is
    /// none (or the budget ran out).
    fn from(&mut self, index: usize, pos: usize) -> bool {
        if pos > self.best.1 {
            self.best = (self.path.clone(), pos);
        }
        let Some(&section) = self.sections.get(index) else {
            return pos == self.bytes.len();
        };
        let key = self.state_key(index, pos);
        if self.failed.contains(&key) {
            return false;
        }
        // Readings that led nowhere, with the kinds they read: another choice that agrees on
        // those kinds reads the same bytes the same way, to the same dead end.
        let mut read: Vec<(IndexSizes, Vec<RefKind>)> = Vec::new();
        for sizes in self.choices(section) {
            let same_as_before = read.iter().any(|(before, used)| {
                used.iter()
                    .all(|&kind| size_of(*before, kind) == size_of(sizes, kind))
            });
            if same_as_before {
                continue;
            }
            if self.out_of_budget() {
                return false;
            }
            self.attempts_left -= 1;
            self.clear_from(index);
            match read_section(
                self.bytes,
                &self.options,
                sizes,
                pos,
                section,
                &mut self.model,
            ) {
                Ok((end, report)) => {
                    self.bytes_read = self.bytes_read.saturating_add(end.saturating_sub(pos));
                    let used = kinds_used(section, &self.model);
                    self.path
                        .push(self.step(section, pos, sizes, used.clone(), report));
                    if self.plausible() && self.from(index + 1, end) {
                        return true;
                    }
                    self.path.truncate(index);
                    read.push((sizes, used));
                }
                Err(error) => {
                    let reached = error.location().map_or(pos, |l| l.offset);
                    let spent = reached.saturating_sub(pos).max(1);
                    self.bytes_read = self.bytes_read.saturating_add(spent);
                    // Where the failing element's own index kinds are known, the failure
                    // depends only on them and on those of the complete elements before it
                    // (a cut file fails so, and would otherwise be read up to the cut once per
                    // choice).
                    if let Some(own) = failing_element_kinds(self.bytes, section, &error) {
                        let mut used = kinds_used(section, &self.model);
                        for kind in own {
                            if !used.contains(&kind) {
                                used.push(kind);
                            }
                        }
                        read.push((sizes, used));
                    }
                }
            }
        }
        if !self.out_of_budget() {
            self.failed.insert(key);
        }
        false
    }

    /// No exact reading: the best path of complete sections read again, then the sections
    /// after it with recovery's allowances, each with the sizes that read it furthest, until
    /// one stops.
    fn recover_after_best(
        &mut self,
        options: &LoadOptions,
        header_report: LoadReport,
        after_info: usize,
    ) -> Found {
        let (best, _) = std::mem::take(&mut self.best);
        self.clear_from(0);
        self.path.clear();
        let mut replay_pos = after_info;
        for step in best {
            // The same sections with the same sizes read the same bytes again.
            match read_section(
                self.bytes,
                &self.options,
                step.sizes,
                replay_pos,
                step.section,
                &mut self.model,
            ) {
                Ok((end, _)) => {
                    self.bytes_read = self.bytes_read.saturating_add(end - replay_pos);
                    replay_pos = end;
                    self.path.push(step);
                }
                Err(_) => break,
            }
        }
        let mut pos = replay_pos;
        let recovering = LoadOptions {
            recover: true,
            ..*options
        };
        let mut stopped = None;
        let mut index = self.path.len();
        while let Some(&section) = self.sections.get(index) {
            let Some((sizes, _)) = self.furthest_recovering(index, section, pos, &recovering)
            else {
                break;
            };
            self.clear_from(index);
            let result = read_section(
                self.bytes,
                &recovering,
                sizes,
                pos,
                section,
                &mut self.model,
            );
            let used = kinds_used(section, &self.model);
            match result {
                Ok((end, report)) => {
                    self.bytes_read = self.bytes_read.saturating_add(end.saturating_sub(pos));
                    self.path.push(self.step(section, pos, sizes, used, report));
                    pos = end;
                    index += 1;
                }
                Err(error) => {
                    // What the section read before it stopped stays, with the sizes it used.
                    let report = LoadReport {
                        face_index_count: (section == Section::Faces)
                            .then(|| self.face_index_count_at(pos))
                            .flatten(),
                        ..LoadReport::default()
                    };
                    self.path.push(self.step(section, pos, sizes, used, report));
                    stopped = Some(error);
                    break;
                }
            }
        }
        Found {
            model: std::mem::take(&mut self.model),
            header_report,
            declared: self.declared,
            steps: std::mem::take(&mut self.path),
            stopped,
            end: pos,
            exact: false,
        }
    }

    /// The sizes with which `section` is read from `pos` with recovery's allowances (the
    /// first choice in the search's order, or the first that reads it whole or up to the end
    /// of the file where that one does not), and whether they read it so; within what is left
    /// of the budget, and at least the first choice.
    fn furthest_recovering(
        &mut self,
        index: usize,
        section: Section,
        pos: usize,
        recovering: &LoadOptions,
    ) -> Option<(IndexSizes, bool)> {
        let mut best: Option<(IndexSizes, bool)> = None;
        let mut read: Vec<(IndexSizes, Vec<RefKind>)> = Vec::new();
        for sizes in self.choices(section) {
            let same_as_before = read.iter().any(|(before, used)| {
                used.iter()
                    .all(|&kind| size_of(*before, kind) == size_of(sizes, kind))
            });
            if same_as_before {
                continue;
            }
            if best.is_some_and(|(_, whole)| whole)
                || best.is_some() && self.bytes_read >= self.budget.saturating_add(self.bytes.len())
            {
                break;
            }
            self.clear_from(index);
            let (reach, whole) =
                match read_section(self.bytes, recovering, sizes, pos, section, &mut self.model) {
                    Ok((end, _)) => (end, true),
                    Err(error) => {
                        let reach = error.location().map_or(pos, |l| l.offset);
                        (reach, reach.saturating_add(END_REGION) >= self.bytes.len())
                    }
                };
            self.bytes_read = self
                .bytes_read
                .saturating_add(reach.saturating_sub(pos).max(1));
            // Kinds the section did not read leave it the same: only those it read tell
            // choices apart.
            read.push((sizes, kinds_used(section, &self.model)));
            // The path's own sizes stay unless they stop on bytes that make no sense and
            // other sizes read the section whole, or up to the end of the file (a cut, a count
            // past the end): sizes that merely read further into bytes that make no sense are
            // no better explanation, nor are sizes that swallow a few more bytes of a cut.
            if best.is_none_or(|(_, best_whole)| !best_whole && whole) {
                best = Some((sizes, whole));
            }
        }
        best
    }

    /// The face index count a faces section starting at `pos` declares.
    fn face_index_count_at(&self, pos: usize) -> Option<usize> {
        let count = self.bytes.get(pos..pos.checked_add(4)?)?;
        let count = i32::from_le_bytes(count.try_into().ok()?);
        usize::try_from(count).ok()
    }

    fn step(
        &self,
        section: Section,
        start: usize,
        sizes: IndexSizes,
        used: Vec<RefKind>,
        report: LoadReport,
    ) -> Step {
        let mut changed = [false; 6];
        for &kind in &used {
            changed[kind_slot(kind)] = size_of(sizes, kind) != size_of(self.declared, kind);
        }
        let mut claims = Claims {
            owner: owner_kind(section),
            changed,
            largest: [None; 6],
        };
        if changed.contains(&true) {
            visit_refs(&self.model, &mut claims);
        }
        Step {
            section,
            start,
            sizes,
            used,
            claims: claims.largest,
            report,
        }
    }

    /// Empties the sections from `index` on, before they are read again.
    fn clear_from(&mut self, index: usize) {
        for &later in self.sections.get(index..).unwrap_or_default() {
            clear_section(&mut self.model, later);
        }
    }

    fn out_of_budget(&self) -> bool {
        self.attempts_left == 0 || self.bytes_read >= self.budget
    }

    /// The count of each list whose section is on the path (`None` for the others).
    fn known_counts(&self) -> PerKind<Option<usize>> {
        let counts = [
            self.model.vertices.len(),
            self.model.textures.len(),
            self.model.materials.len(),
            self.model.bones.len(),
            self.model.morphs.len(),
            self.model.rigid_bodies.len(),
        ];
        let mut known = [None; 6];
        for (slot, kind) in RefKind::ALL.into_iter().enumerate() {
            if self.path.iter().any(|step| step.section == list_of(kind)) {
                known[slot] = Some(counts[slot]);
            }
        }
        known
    }

    /// The largest index of each kind claimed on the path (read with another size than the
    /// header's).
    fn claimed(&self) -> PerKind<Option<usize>> {
        let mut largest = [None; 6];
        for step in &self.path {
            for (slot, claim) in step.claims.iter().enumerate() {
                largest[slot] = largest[slot].max(*claim);
            }
        }
        largest
    }

    fn state_key(&self, index: usize, pos: usize) -> StateKey {
        let known = self.known_counts();
        let mut pending = self.claimed();
        for (slot, count) in known.iter().enumerate() {
            if count.is_some() {
                pending[slot] = None;
            }
        }
        (index, pos, known, pending)
    }

    /// Whether every index the path read with a size other than the header's is in range,
    /// for the kinds whose list is read: sizes that are off read misaligned bytes, and those
    /// make indices past the end. Checked after every section, so a wrong size is dropped as
    /// soon as the count that bounds its indices is known.
    fn plausible(&self) -> bool {
        let known = self.known_counts();
        let claimed = self.claimed();
        known
            .iter()
            .zip(claimed)
            .all(|(count, claim)| match (count, claim) {
                (Some(count), Some(claim)) => claim < *count,
                _ => true,
            })
    }

    /// Every combination of sizes for the kinds `section` reads: the sizes the path used
    /// last for each kind (the header's for kinds it has not read) first, so a file whose
    /// header is right, or wrong the same way everywhere, reads on the first try; then the
    /// fewest changes from those, then from the header's.
    fn choices(&self, section: Section) -> Vec<IndexSizes> {
        let mut base = self.declared;
        for step in &self.path {
            for &kind in &step.used {
                set_size(&mut base, kind, size_of(step.sizes, kind));
            }
        }
        let open = kinds_read_by(section);
        let mut choices = vec![base];
        for &kind in open {
            choices = choices
                .iter()
                .flat_map(|&sizes| {
                    SIZES.into_iter().map(move |size| {
                        let mut sizes = sizes;
                        set_size(&mut sizes, kind, size);
                        sizes
                    })
                })
                .collect();
        }
        let changes = |sizes: &IndexSizes, from: IndexSizes| {
            open.iter()
                .filter(|&&kind| size_of(*sizes, kind) != size_of(from, kind))
                .count()
        };
        choices.sort_by_key(|sizes| (changes(sizes, base), changes(sizes, self.declared)));
        choices.dedup();
        choices
    }
}

/// The largest index of each `changed` kind among the references `owner`'s elements hold.
struct Claims {
    owner: Option<ElementKind>,
    changed: PerKind<bool>,
    largest: PerKind<Option<usize>>,
}

impl Claims {
    fn see(&mut self, site: RefSite, kind: RefKind, index: Option<usize>) {
        let slot = kind_slot(kind);
        if self.changed[slot] && Some(site.owner().0) == self.owner {
            self.largest[slot] = self.largest[slot].max(index);
        }
    }
}

impl RefVisitor for Claims {
    fn vertex(&mut self, site: RefSite, index: &VertexIdx) {
        self.see(site, RefKind::Vertex, Some(index.get()));
    }
    fn texture(&mut self, site: RefSite, index: &Option<TextureIdx>) {
        self.see(site, RefKind::Texture, index.map(TextureIdx::get));
    }
    fn material(&mut self, site: RefSite, index: &Option<MaterialIdx>) {
        self.see(site, RefKind::Material, index.map(MaterialIdx::get));
    }
    fn bone(&mut self, site: RefSite, index: &Option<BoneIdx>) {
        self.see(site, RefKind::Bone, index.map(BoneIdx::get));
    }
    fn morph(&mut self, site: RefSite, index: &Option<MorphIdx>) {
        self.see(site, RefKind::Morph, index.map(MorphIdx::get));
    }
    fn rigid_body(&mut self, site: RefSite, index: &Option<RigidBodyIdx>) {
        self.see(site, RefKind::RigidBody, index.map(RigidBodyIdx::get));
    }
}

/// The element kind whose elements a section reads (`None` for sections without indices).
fn owner_kind(section: Section) -> Option<ElementKind> {
    match section {
        Section::ModelInfo | Section::Textures => None,
        Section::Vertices => Some(ElementKind::Vertex),
        Section::Faces => Some(ElementKind::Face),
        Section::Materials => Some(ElementKind::Material),
        Section::Bones => Some(ElementKind::Bone),
        Section::Morphs => Some(ElementKind::Morph),
        Section::DisplayFrames => Some(ElementKind::DisplayFrame),
        Section::RigidBodies => Some(ElementKind::RigidBody),
        Section::Joints => Some(ElementKind::Joint),
        Section::SoftBodies => Some(ElementKind::SoftBody),
    }
}

/// The section's name as the reader's locations give it.
fn section_name(section: Section) -> &'static str {
    match section {
        Section::ModelInfo => "model_info",
        Section::Vertices => "vertices",
        Section::Faces => "faces",
        Section::Textures => "textures",
        Section::Materials => "materials",
        Section::Bones => "bones",
        Section::Morphs => "morphs",
        Section::DisplayFrames => "display_frames",
        Section::RigidBodies => "rigid_bodies",
        Section::Joints => "joints",
        Section::SoftBodies => "soft_bodies",
    }
}

/// The index kinds a section may read (and so the header sizes its layout depends on).
fn kinds_read_by(section: Section) -> &'static [RefKind] {
    match section {
        Section::ModelInfo | Section::Textures => &[],
        Section::Vertices | Section::Bones | Section::RigidBodies => &[RefKind::Bone],
        Section::Faces => &[RefKind::Vertex],
        Section::Materials => &[RefKind::Texture],
        Section::Morphs => &[
            RefKind::Vertex,
            RefKind::Bone,
            RefKind::Material,
            RefKind::Morph,
            RefKind::RigidBody,
        ],
        Section::DisplayFrames => &[RefKind::Bone, RefKind::Morph],
        Section::Joints => &[RefKind::RigidBody],
        Section::SoftBodies => &[RefKind::Material, RefKind::RigidBody, RefKind::Vertex],
    }
}

/// The index kinds the element a section failed in read, or whose size its failure depends
/// on, where the error's place tells: nothing at the fields an element starts with (before any
/// index); for a morph's offset count (whose check against the bytes left depends on the size
/// of its offsets' index), the kind of its offsets, from the kind byte just before it. `None`
/// where it cannot tell.
fn failing_element_kinds(
    bytes: &[u8],
    section: Section,
    error: &ReadError,
) -> Option<Vec<RefKind>> {
    let location = error.location()?;
    if location.element.is_none() || location.sub.is_some() {
        return None;
    }
    let before_any_index: &[&str] = match section {
        Section::ModelInfo | Section::Faces => &[],
        Section::Vertices => &["position", "normal", "uv", "additional_uv", "weight.type"],
        Section::Textures => &["path"],
        Section::Materials | Section::Bones | Section::RigidBodies => &["name_ja", "name_en"],
        Section::Joints => &["name_ja", "name_en", "kind"],
        Section::SoftBodies => &["name_ja", "name_en", "shape"],
        Section::DisplayFrames => &["name_ja", "name_en", "special"],
        Section::Morphs => &["name_ja", "name_en", "panel", "kind"],
    };
    if before_any_index.contains(&location.field) {
        return Some(Vec::new());
    }
    if section == Section::Morphs && location.field == "offset_count" {
        let kind_byte = *bytes.get(location.offset.checked_sub(1)?)?;
        return Some(vec![offset_kind(MorphKind::from_raw(kind_byte)?)]);
    }
    None
}

/// The index kinds a section that was read did read: only those sizes are settled by it (a
/// model without impulse morphs says nothing about the rigid body index size in its morphs).
fn kinds_used(section: Section, model: &Model) -> Vec<RefKind> {
    let mut used = Vec::new();
    let mut add = |kind: RefKind, any: bool| {
        if any && !used.contains(&kind) {
            used.push(kind);
        }
    };
    match section {
        Section::ModelInfo | Section::Textures => {}
        Section::Vertices => add(RefKind::Bone, !model.vertices.is_empty()),
        Section::Faces => add(RefKind::Vertex, !model.faces.is_empty()),
        Section::Materials => add(RefKind::Texture, !model.materials.is_empty()),
        Section::Bones => add(RefKind::Bone, !model.bones.is_empty()),
        Section::Morphs => {
            for morph in &model.morphs {
                if morph.offsets.is_empty() {
                    continue;
                }
                add(offset_kind(morph.offsets.kind()), true);
            }
        }
        Section::DisplayFrames => {
            let items = || model.display_frames.iter().flat_map(|f| &f.items);
            add(
                RefKind::Bone,
                items().any(|item| matches!(item, DisplayItem::Bone(_))),
            );
            add(
                RefKind::Morph,
                items().any(|item| matches!(item, DisplayItem::Morph(_))),
            );
        }
        Section::RigidBodies => add(RefKind::Bone, !model.rigid_bodies.is_empty()),
        Section::Joints => add(RefKind::RigidBody, !model.joints.is_empty()),
        Section::SoftBodies => {
            add(RefKind::Material, !model.soft_bodies.is_empty());
            let anchors = model.soft_bodies.iter().any(|s| !s.anchors.is_empty());
            add(RefKind::RigidBody, anchors);
            let pins = model
                .soft_bodies
                .iter()
                .any(|s| !s.pinned_vertices.is_empty());
            add(RefKind::Vertex, anchors || pins);
        }
    }
    used
}

/// The section that holds the list a kind of index points into.
fn list_of(kind: RefKind) -> Section {
    match kind {
        RefKind::Vertex => Section::Vertices,
        RefKind::Texture => Section::Textures,
        RefKind::Material => Section::Materials,
        RefKind::Bone => Section::Bones,
        RefKind::Morph => Section::Morphs,
        RefKind::RigidBody => Section::RigidBodies,
    }
}

/// The index kind a morph's offsets hold.
fn offset_kind(kind: MorphKind) -> RefKind {
    match kind {
        MorphKind::Group | MorphKind::Flip => RefKind::Morph,
        MorphKind::Vertex
        | MorphKind::Uv
        | MorphKind::AdditionalUv1
        | MorphKind::AdditionalUv2
        | MorphKind::AdditionalUv3
        | MorphKind::AdditionalUv4 => RefKind::Vertex,
        MorphKind::Bone => RefKind::Bone,
        MorphKind::Material => RefKind::Material,
        MorphKind::Impulse => RefKind::RigidBody,
    }
}

/// Empties what a section reads into, before it is read again with other sizes.
fn clear_section(model: &mut Model, section: Section) {
    match section {
        Section::ModelInfo => model.info = ModelInfo::default(),
        Section::Vertices => {
            model.vertices.clear();
            for channel in &mut model.additional_uvs {
                channel.clear();
            }
        }
        Section::Faces => model.faces.clear(),
        Section::Textures => model.textures.clear(),
        Section::Materials => model.materials.clear(),
        Section::Bones => model.bones.clear(),
        Section::Morphs => model.morphs.clear(),
        Section::DisplayFrames => model.display_frames.clear(),
        Section::RigidBodies => model.rigid_bodies.clear(),
        Section::Joints => model.joints.clear(),
        Section::SoftBodies => model.soft_bodies.clear(),
    }
}

/// The position of a kind in [`RefKind::ALL`], which is the header's order of the sizes.
fn kind_slot(kind: RefKind) -> usize {
    match kind {
        RefKind::Vertex => 0,
        RefKind::Texture => 1,
        RefKind::Material => 2,
        RefKind::Bone => 3,
        RefKind::Morph => 4,
        RefKind::RigidBody => 5,
    }
}

fn size_of(sizes: IndexSizes, kind: RefKind) -> u8 {
    match kind {
        RefKind::Vertex => sizes.vertex,
        RefKind::Texture => sizes.texture,
        RefKind::Material => sizes.material,
        RefKind::Bone => sizes.bone,
        RefKind::Morph => sizes.morph,
        RefKind::RigidBody => sizes.rigid_body,
    }
}

fn set_size(sizes: &mut IndexSizes, kind: RefKind, size: u8) {
    match kind {
        RefKind::Vertex => sizes.vertex = size,
        RefKind::Texture => sizes.texture = size,
        RefKind::Material => sizes.material = size,
        RefKind::Bone => sizes.bone = size,
        RefKind::Morph => sizes.morph = size,
        RefKind::RigidBody => sizes.rigid_body = size,
    }
}

/// The header field of a kind's size, as the reader names it in its errors.
fn size_field(kind: RefKind) -> &'static str {
    match kind {
        RefKind::Vertex => "vertex_index_size",
        RefKind::Texture => "texture_index_size",
        RefKind::Material => "material_index_size",
        RefKind::Bone => "bone_index_size",
        RefKind::Morph => "morph_index_size",
        RefKind::RigidBody => "rigid_body_index_size",
    }
}

/// The resource word of an index kind ("頂点" / "vertex").
fn kind_noun(kind: RefKind) -> &'static str {
    match kind {
        RefKind::Vertex => "noun.vertex",
        RefKind::Texture => "noun.texture",
        RefKind::Material => "noun.material",
        RefKind::Bone => "noun.bone",
        RefKind::Morph => "noun.morph",
        RefKind::RigidBody => "noun.rigid_body",
    }
}

#[cfg(test)]
mod tests {
    // Test code: a failed expectation is the test failing.
    #![allow(clippy::expect_used, clippy::unwrap_used)]

    use super::*;
    use crate::formats::pmx::{IndexSizeMode, PmxSaveOptions, read, write};
    use crate::generate::{feature_model, sample_model};

    fn recovering() -> LoadOptions {
        LoadOptions {
            recover: true,
            ..LoadOptions::default()
        }
    }

    /// `model` written with `sizes`, and the model a strict read of that file gives.
    fn file_with(model: &Model, sizes: IndexSizes) -> (Vec<u8>, Model) {
        let mut model = model.clone();
        model.header.index_sizes = Some(sizes);
        let options = PmxSaveOptions {
            index_sizes: IndexSizeMode::Keep,
            ..PmxSaveOptions::default()
        };
        let bytes = write(&model, &options).unwrap().0;
        assert_eq!(
            &bytes[FIRST_SIZE_BYTE..FIRST_SIZE_BYTE + 6],
            &sizes.to_array()
        );
        let (read_back, report) = read(&bytes, &LoadOptions::default()).unwrap();
        assert!(report.notes.is_empty(), "{:?}", report.notes);
        (bytes, read_back)
    }

    /// `bytes` with the header saying `declared` for `kind`.
    fn with_header_size(bytes: &[u8], kind: RefKind, declared: u8) -> Vec<u8> {
        let mut broken = bytes.to_vec();
        broken[FIRST_SIZE_BYTE + kind_slot(kind)] = declared;
        broken
    }

    fn size_notes(report: &LoadReport) -> Vec<&LoadNote> {
        report
            .notes
            .iter()
            .filter(|note| note.location.field.ends_with("_index_size"))
            .collect()
    }

    /// Reads `broken` in recovery and expects exactly `expected` with one note at the header
    /// byte of `kind` saying `declared` and `stored`.
    fn expect_corrected(broken: &[u8], expected: &Model, kind: RefKind, declared: u8, stored: u8) {
        let (model, report) = read(broken, &recovering()).unwrap();
        assert!(
            report.recovered_from.is_none(),
            "{:?}",
            report.recovered_from
        );
        assert!(!report.lost_data(), "{:?}", report.notes);
        assert!(
            model == *expected,
            "{kind:?} {declared} → {stored}: another model"
        );
        let notes = size_notes(&report);
        assert_eq!(notes.len(), 1, "{:?}", report.notes);
        let note = notes[0];
        assert_eq!(note.location.section, "header");
        assert_eq!(note.location.field, size_field(kind));
        assert_eq!(note.location.offset, FIRST_SIZE_BYTE + kind_slot(kind));
        assert!(
            note.message.contains(&format!("is {declared} byte(s)"))
                && note.message.contains(&format!("stores {stored}-byte")),
            "{}",
            note.message
        );
        // A strict read refuses the file, at the header byte, and says what recovery finds.
        let error = read(broken, &LoadOptions::default()).unwrap_err();
        let location = error.location().unwrap();
        assert_eq!(
            (location.section, location.field, location.offset),
            (
                "header",
                size_field(kind),
                FIRST_SIZE_BYTE + kind_slot(kind)
            ),
            "{error}"
        );
        assert!(
            error.to_string().contains("recovery mode reads it"),
            "{error}"
        );
    }

    fn all(size: u8) -> IndexSizes {
        IndexSizes {
            vertex: size,
            texture: size,
            material: size,
            bone: size,
            morph: size,
            rigid_body: size,
        }
    }

    /// Where each section of `bytes` (read with `sizes`) starts and ends, in file order.
    fn section_bounds(bytes: &[u8], sizes: IndexSizes) -> Vec<(Section, usize, usize)> {
        let (mut model, mut pos, _) = read_header(bytes, &LoadOptions::default()).unwrap();
        let mut sections = vec![Section::ModelInfo];
        sections.extend(Section::after_info(model.header.version));
        let options = LoadOptions::default();
        sections
            .into_iter()
            .map(|section| {
                let (end, _) =
                    read_section(bytes, &options, sizes, pos, section, &mut model).unwrap();
                let bounds = (section, pos, end);
                pos = end;
                bounds
            })
            .collect()
    }

    fn bounds_of(bounds: &[(Section, usize, usize)], section: Section) -> (usize, usize) {
        let &(_, start, end) = bounds.iter().find(|(s, ..)| *s == section).unwrap();
        (start, end)
    }

    /// `base`'s file with the bytes of `section` taken from `other` (the same model written
    /// with other sizes): a file whose one section stores its own index sizes.
    fn with_section_from(
        base: (&[u8], IndexSizes),
        other: (&[u8], IndexSizes),
        section: Section,
    ) -> Vec<u8> {
        let (start, end) = bounds_of(&section_bounds(base.0, base.1), section);
        let (other_start, other_end) = bounds_of(&section_bounds(other.0, other.1), section);
        let mut spliced = base.0[..start].to_vec();
        spliced.extend_from_slice(&other.0[other_start..other_end]);
        spliced.extend_from_slice(&base.0[end..]);
        spliced
    }

    /// A model of 24 vertices whose header and every section but the vertices' say 1-byte bone
    /// indices, the vertices storing `stored`-byte ones; the expected model and the bounds of
    /// the sections in the spliced file.
    fn vertices_storing_bone_indices(stored: u8) -> (Vec<u8>, Model) {
        let model = feature_model(PmxVersion::V2_0, TextEncoding::Utf8, 24, 12);
        let declared = IndexSizes::minimal_for(&model);
        assert_eq!(declared.bone, 1);
        let (bytes, expected) = file_with(&model, declared);
        let mut wide = declared;
        wide.bone = stored;
        let (wide_bytes, _) = file_with(&model, wide);
        let spliced = with_section_from((&bytes, declared), (&wide_bytes, wide), Section::Vertices);
        (spliced, expected)
    }

    fn same_but_header_sizes(a: &Model, b: &Model) -> bool {
        let mut a = a.clone();
        a.header.index_sizes = b.header.index_sizes;
        a == *b
    }

    fn section_notes<'a>(report: &'a LoadReport, section: &str) -> Vec<&'a LoadNote> {
        size_notes(report)
            .into_iter()
            .filter(|note| note.location.section == section)
            .collect()
    }

    /// The real writer's file: bone indices in 2 bytes in the vertex section only. Before the
    /// per-section search, recovery kept 13 of 24 vertices and nothing after them.
    #[test]
    fn vertices_with_their_own_bone_index_size_read_whole() {
        let (file, expected) = vertices_storing_bone_indices(2);
        let (model, report) = read(&file, &recovering()).unwrap();
        assert!(report.recovered_from.is_none(), "{:?}", report.notes);
        assert!(!report.lost_data(), "{:?}", report.notes);
        assert_eq!(model.vertices, expected.vertices);
        assert_eq!(model.faces, expected.faces);
        assert_eq!(model.materials, expected.materials);
        assert!(same_but_header_sizes(&model, &expected), "another model");
        // The header sizes the model keeps hold every index it read.
        assert_eq!(model.header.index_sizes.unwrap().bone, 2);
        // The note is at the vertex section, which alone stores 2-byte bone indices.
        let notes = section_notes(&report, "vertices");
        assert_eq!(notes.len(), 1, "{:?}", report.notes);
        assert_eq!(notes[0].location.field, "bone_index_size");
        assert!(
            notes[0]
                .message
                .contains("vertices section stores 2-byte bone"),
            "{}",
            notes[0].message
        );
        assert!(section_notes(&report, "header").is_empty());
        // A strict read refuses it and names the section.
        let error = read(&file, &LoadOptions::default()).unwrap_err();
        assert_eq!(error.location().unwrap().section, "vertices", "{error}");
        assert!(
            error.to_string().contains("recovery mode reads it"),
            "{error}"
        );
        // Saved, the header's sizes hold every index: the file reads strictly.
        let saved = write(&model, &PmxSaveOptions::default()).unwrap().0;
        let (again, report) = read(&saved, &LoadOptions::default()).unwrap();
        assert!(report.notes.is_empty(), "{:?}", report.notes);
        assert!(again == expected);
        let kept = PmxSaveOptions {
            index_sizes: IndexSizeMode::Keep,
            ..PmxSaveOptions::default()
        };
        let saved = write(&model, &kept).unwrap().0;
        assert_eq!(saved[FIRST_SIZE_BYTE + kind_slot(RefKind::Bone)], 2);
        let (again, report) = read(&saved, &LoadOptions::default()).unwrap();
        assert!(report.notes.is_empty(), "{:?}", report.notes);
        assert!(same_but_header_sizes(&again, &expected));
    }

    /// The same file cut inside the bones: every vertex, face and material still comes back,
    /// with the cut noted.
    #[test]
    fn vertices_with_their_own_size_in_a_cut_file_read_up_to_the_cut() {
        let (file, expected) = vertices_storing_bone_indices(2);
        let declared = IndexSizes::minimal_for(&expected);
        let (bones_start, bones_end) = bounds_of(
            &section_bounds(&file_with(&expected, declared).0, declared),
            Section::Bones,
        );
        // The spliced vertex section is longer by one byte per bone index.
        let grown = file.len() - file_with(&expected, declared).0.len();
        let cut = &file[..grown + (bones_start + bones_end) / 2];
        let (model, report) = read(cut, &recovering()).unwrap();
        assert!(report.recovered_from.is_some());
        assert_eq!(model.vertices, expected.vertices);
        assert_eq!(model.faces, expected.faces);
        assert_eq!(model.textures, expected.textures);
        assert_eq!(model.materials, expected.materials);
        assert!(!model.bones.is_empty());
        assert_eq!(model.bones[..], expected.bones[..model.bones.len()]);
        assert_eq!(
            section_notes(&report, "vertices").len(),
            1,
            "{:?}",
            report.notes
        );
    }

    /// The other real writer's file: 4-byte bone indices in the vertices under a header of 1,
    /// and the file ends after the material list. Before, 3 of 3 vertices and nothing else.
    #[test]
    fn four_byte_vertex_bone_indices_in_a_file_ending_after_the_materials() {
        let (file, expected) = vertices_storing_bone_indices(4);
        let declared = IndexSizes::minimal_for(&expected);
        let (plain, _) = file_with(&expected, declared);
        let (_, materials_end) = bounds_of(&section_bounds(&plain, declared), Section::Materials);
        let grown = file.len() - plain.len();
        let cut = &file[..materials_end + grown];
        let (model, report) = read(cut, &recovering()).unwrap();
        assert!(
            report.recovered_from.is_some(),
            "the missing bones are lost"
        );
        assert_eq!(model.vertices, expected.vertices);
        assert_eq!(model.faces, expected.faces);
        assert_eq!(model.textures, expected.textures);
        assert_eq!(model.materials, expected.materials);
        assert!(model.bones.is_empty());
        // Only the vertices read bone indices: the header's byte is the wrong one.
        let notes = size_notes(&report);
        assert_eq!(notes.len(), 1, "{:?}", report.notes);
        assert_eq!(notes[0].location.section, "header");
        assert!(
            notes[0].message.contains("stores 4-byte bone"),
            "{}",
            notes[0].message
        );
        assert_eq!(model.header.index_sizes.unwrap().bone, 4);
    }

    /// Faces with 2-byte indices under a header (and vertex morphs, soft body pins) of 1, and
    /// a joint count that overruns the end of the file.
    #[test]
    fn a_face_section_with_its_own_size_and_an_overrunning_count() {
        let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 40, 12);
        let declared = IndexSizes::minimal_for(&model);
        assert_eq!(declared.vertex, 1);
        let (bytes, expected) = file_with(&model, declared);
        let mut wide = declared;
        wide.vertex = 2;
        let (wide_bytes, _) = file_with(&model, wide);
        let file = with_section_from((&bytes, declared), (&wide_bytes, wide), Section::Faces);
        let (read_back, report) = read(&file, &recovering()).unwrap();
        assert!(!report.lost_data(), "{:?}", report.notes);
        assert!(same_but_header_sizes(&read_back, &expected));
        let notes = section_notes(&report, "faces");
        assert_eq!(notes.len(), 1, "{:?}", report.notes);
        assert_eq!(notes[0].location.field, "vertex_index_size");

        // Version 2.0 (no soft bodies after the joints): the joint count overruns the end.
        let model = feature_model(PmxVersion::V2_0, TextEncoding::Utf16, 40, 12);
        let declared = IndexSizes::minimal_for(&model);
        let mut wide = declared;
        wide.vertex = 2;
        let (bytes, expected) = file_with(&model, declared);
        let (wide_bytes, _) = file_with(&model, wide);
        let file = with_section_from((&bytes, declared), (&wide_bytes, wide), Section::Faces);
        let grown = file.len() - bytes.len();
        let (joints_start, _) = bounds_of(&section_bounds(&bytes, declared), Section::Joints);
        let at = joints_start + grown;
        let mut overrun = file.clone();
        let count = i32::from_le_bytes(overrun[at..at + 4].try_into().unwrap());
        overrun[at..at + 4].copy_from_slice(&(count + 3).to_le_bytes());
        let (read_back, report) = read(&overrun, &recovering()).unwrap();
        assert!(report.lost_data());
        assert_eq!(read_back.vertices, expected.vertices);
        assert_eq!(read_back.faces, expected.faces);
        assert_eq!(read_back.materials, expected.materials);
        assert_eq!(read_back.rigid_bodies, expected.rigid_bodies);
        assert_eq!(read_back.joints, expected.joints);
        assert_eq!(
            section_notes(&report, "faces").len(),
            1,
            "{:?}",
            report.notes
        );
    }

    #[test]
    fn header_offsets_are_the_readers() {
        let (bytes, _) = file_with(&sample_model(), all(2));
        for kind in RefKind::ALL {
            let broken = with_header_size(&bytes, kind, 3);
            let error = read(&broken, &recovering()).unwrap_err();
            let location = error.location().unwrap();
            assert_eq!(location.field, size_field(kind));
            assert_eq!(location.offset, FIRST_SIZE_BYTE + kind_slot(kind));
        }
    }

    #[test]
    fn a_utf8_file_whose_header_says_bone_size_1_over_2_byte_indices_reads() {
        let mut model = feature_model(PmxVersion::V2_0, TextEncoding::Utf8, 20, 12);
        model.header.encoding = TextEncoding::Utf8;
        let mut sizes = IndexSizes::minimal_for(&model);
        sizes.bone = 2;
        let (bytes, expected) = file_with(&model, sizes);
        let broken = with_header_size(&bytes, RefKind::Bone, 1);
        // Before the search, recovery stopped in the first vertex.
        expect_corrected(&broken, &expected, RefKind::Bone, 1, 2);
    }

    #[test]
    fn vertices_storing_4_byte_bone_indices_under_a_header_of_2_read() {
        let model = sample_model();
        let mut sizes = IndexSizes::minimal_for(&model);
        sizes.bone = 4;
        let (bytes, expected) = file_with(&model, sizes);
        let broken = with_header_size(&bytes, RefKind::Bone, 2);
        expect_corrected(&broken, &expected, RefKind::Bone, 2, 4);
    }

    /// Every kind, every size the file may store, every other size its header may say, in both
    /// versions (2.1 has soft bodies, which read three kinds).
    #[test]
    fn every_wrong_size_byte_of_every_kind_is_found() {
        for version in [PmxVersion::V2_0, PmxVersion::V2_1] {
            let model = feature_model(version, TextEncoding::Utf8, 40, 12);
            for kind in RefKind::ALL {
                for stored in SIZES {
                    let mut sizes = IndexSizes::minimal_for(&model);
                    set_size(&mut sizes, kind, stored);
                    let (bytes, expected) = file_with(&model, sizes);
                    for declared in SIZES.into_iter().filter(|&s| s != stored) {
                        let broken = with_header_size(&bytes, kind, declared);
                        expect_corrected(&broken, &expected, kind, declared, stored);
                    }
                }
            }
        }
    }

    #[test]
    fn two_wrong_bytes_are_both_found() {
        let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf16, 40, 12);
        let mut sizes = IndexSizes::minimal_for(&model);
        sizes.bone = 2;
        sizes.morph = 4;
        let (bytes, expected) = file_with(&model, sizes);
        let broken = with_header_size(&bytes, RefKind::Bone, 1);
        let broken = with_header_size(&broken, RefKind::Morph, 1);
        let (model, report) = read(&broken, &recovering()).unwrap();
        assert!(model == expected);
        let fields: Vec<_> = size_notes(&report)
            .iter()
            .map(|note| (note.location.field, note.location.offset))
            .collect();
        assert_eq!(fields, [("bone_index_size", 14), ("morph_index_size", 15)]);
    }

    /// PMX reads 2-byte vertex indices unsigned: a file with more than 32,767 vertices keeps
    /// its high indices, and the search does not take them for a size problem.
    #[test]
    fn two_byte_vertex_indices_stay_unsigned() {
        let model = feature_model(PmxVersion::V2_0, TextEncoding::Utf8, 40_000, 12);
        let sizes = IndexSizes::minimal_for(&model);
        assert_eq!(sizes.vertex, 2);
        let (bytes, expected) = file_with(&model, sizes);
        assert!(expected.faces.iter().flatten().any(|v| v.get() > 32_767));
        let broken = with_header_size(&bytes, RefKind::Bone, 4);
        expect_corrected(&broken, &expected, RefKind::Bone, 4, 1);
    }

    /// A file that is cut or damaged, and whose sizes are right, goes through the ordinary
    /// recovery: no size is "corrected" to explain the damage.
    #[test]
    fn damage_is_not_taken_for_a_size_problem() {
        let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 40, 12);
        let (bytes, _) = file_with(&model, IndexSizes::minimal_for(&model));
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for cut in [1, 2, 3, 4, 7, 50, bytes.len() / 2, bytes.len() - 40] {
            cases.push(bytes[..bytes.len() - cut].to_vec());
        }
        // An impossible weight type in the first vertex.
        let body_start = read_header(&bytes, &recovering()).unwrap().1;
        let (after_info, _) = read_section(
            &bytes,
            &LoadOptions::default(),
            IndexSizes::minimal_for(&model),
            body_start,
            Section::ModelInfo,
            &mut Model::default(),
        )
        .unwrap();
        let mut corrupt = bytes.clone();
        corrupt[after_info + 4 + 32 + 16 * 4] = 9;
        cases.push(corrupt);
        for (case, broken) in cases.iter().enumerate() {
            let (_, report) = read(broken, &recovering()).unwrap();
            assert!(report.recovered_from.is_some(), "case {case}");
            assert!(
                size_notes(&report).is_empty(),
                "case {case}: {:?}",
                report.notes
            );
            let error = read(broken, &LoadOptions::default()).unwrap_err();
            assert_ne!(error.location().unwrap().section, "header", "case {case}");
        }
        // A file with a wrong size byte that is also cut: the size is found, and the cut
        // noted as what it is.
        let mut sizes = IndexSizes::minimal_for(&model);
        sizes.bone = 2;
        let (bytes, expected) = file_with(&model, sizes);
        let broken = with_header_size(&bytes, RefKind::Bone, 1);
        let (read_back, report) = read(&broken[..broken.len() - 3], &recovering()).unwrap();
        assert!(report.recovered_from.is_some());
        assert_eq!(size_notes(&report).len(), 1, "{:?}", report.notes);
        assert_eq!(read_back.vertices, expected.vertices);
        assert_eq!(read_back.bones, expected.bones);
    }

    /// Bytes after the last section do not start a search: the declared sizes read the file.
    #[test]
    fn trailing_bytes_are_not_a_size_problem() {
        let model = feature_model(PmxVersion::V2_0, TextEncoding::Utf8, 40, 12);
        let (mut bytes, expected) = file_with(&model, IndexSizes::minimal_for(&model));
        bytes.extend_from_slice(&[0; 12]);
        let (model, report) = read(&bytes, &LoadOptions::default()).unwrap();
        assert!(model == expected);
        assert!(size_notes(&report).is_empty());
        assert_eq!(report.notes.len(), 1, "{:?}", report.notes);
    }

    /// The search reads a bounded multiple of the file, however the sizes are wrong.
    #[test]
    fn the_search_stays_within_its_budget() {
        let model = feature_model(PmxVersion::V2_1, TextEncoding::Utf8, 2_000, 200);
        let (bytes, _) = file_with(&model, all(4));
        let unbounded = usize::MAX;
        for kind in RefKind::ALL {
            let broken = with_header_size(&bytes, kind, 1);
            let (found, read) = search_within(&broken, &LoadOptions::default(), unbounded);
            assert!(found.is_some(), "{kind:?}");
            assert!(
                read <= 2 * broken.len(),
                "{kind:?}: read {read} bytes of a {}-byte file",
                broken.len()
            );
            // Cut as well: no exact reading is found, and the search stops at its budget
            // (plus at most one section), then reads the best path again and recovers the
            // section after it (at most twice the file).
            for cut in [1, broken.len() / 3] {
                let cut_file = &broken[..broken.len() - cut];
                let budget = BUDGET_FILE_READS * cut_file.len();
                let (found, read) = search_within(cut_file, &LoadOptions::default(), budget);
                assert!(found.is_some_and(|found| !found.exact), "{kind:?}");
                assert!(
                    read <= budget + 3 * cut_file.len(),
                    "{kind:?}, cut by {cut}: read {read} bytes of a {}-byte file",
                    cut_file.len()
                );
            }
        }
    }
}
