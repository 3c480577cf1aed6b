//! Headers whose index sizes are not the ones the file uses.
//!
//! Some exporters write a header that declares one index size and sections that store another
//! (a bone index size of 1 over 2-byte bone indices, or over 4-byte ones); other loaders' test
//! suites still expect such files to load. Such a file does not read with the sizes it declares.
//! Recovery then reads the body again section by section ([`read_section`]), trying the other
//! sizes (1, 2, 4) of the index kinds each section reads and not yet settled by an earlier
//! section, backtracking when a choice reads one section but fails a later one, and takes the
//! first reading that
//! - reads every section strictly,
//! - ends exactly at the end of the file, and
//! - has no index past the end of its list among the kinds whose size it changed (a size that is
//!   off reads misaligned bytes, which make such indices),
//!
//! and reports each header byte it corrected. A file that is cut or otherwise damaged has no
//! such reading and goes through the ordinary recovery; so does a search that runs over its
//! budget (see [`BUDGET_FILE_READS`]).
//!
//! This does not fix a header size byte that is not 1, 2 or 4 (the header itself does not read),
//! and it does not search at all when the declared sizes read the file (even with bytes left
//! over at the end: sizes that swallow those bytes exactly would be a guess, not a finding).

use super::read::{Section, read_header, read_section};
use crate::formats::error::{LoadNote, LoadOptions, LoadReport, Location, ReadError};
use crate::model::refs::{RefKind, RefSite, RefVisitor, visit_refs};
use crate::model::*;
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
/// reads 1 to 2.8 times the file; a cut file (no reading found) 0.9 times on average, 4.8 at
/// most, over every cut (a cut file that would need more goes to the ordinary recovery).
const BUDGET_FILE_READS: usize = 4;

/// Most section reads one search makes (each bounded by the file's size).
const MAX_ATTEMPTS: usize = 512;

/// A size settled for each kind (in [`RefKind::ALL`] order); `None` while no section has read
/// an index of that kind.
type Settled = [Option<u8>; 6];

/// Reads `bytes` again with the index sizes its sections use when those differ from what the
/// header declares: the model carries the sizes it was read with, and the report one note per
/// corrected header byte. `None` when there is no such reading (the file is damaged in some
/// other way) or the search ran over its budget.
pub(super) fn read_with_corrected_sizes(
    bytes: &[u8],
    options: &LoadOptions,
) -> Option<(Model, LoadReport)> {
    let found = search(bytes, options)?;
    let corrections = found.corrections();
    if corrections.is_empty() {
        return None;
    }
    let Found {
        mut model,
        header_report,
        section_reports,
        sizes,
        ..
    } = found;
    model.header.index_sizes = Some(sizes);
    let mut report = header_report;
    report.file_size = bytes.len();
    report
        .notes
        .extend(corrections.iter().map(Correction::note));
    for section in section_reports {
        report.notes.extend(section.notes);
        if section.face_index_count.is_some() {
            report.face_index_count = section.face_index_count;
        }
    }
    Some((model, report))
}

/// The error of a strict read, pointed at the header byte that is wrong when the sections read
/// with other sizes (see the module documentation); `error` itself otherwise. A strict read
/// does not read the file with sizes it does not declare: that is recovery's choice, and the
/// error says recovery reads it.
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
    let corrections = found.corrections();
    let Some(first) = corrections.first() else {
        return error;
    };
    let said: Vec<String> = corrections.iter().map(Correction::describe).collect();
    // The failure without its kind ("malformed file: "), which the whole error already says.
    let failure = match &error {
        ReadError::Malformed { location, message }
        | ReadError::LimitExceeded { location, message } => format!("{location}: {message}"),
        other => other.to_string(),
    };
    ReadError::Malformed {
        location: first.location(),
        message: format!(
            "{}; read with the header's sizes, the file fails at {failure}; recovery mode reads it with the sizes it stores",
            said.join("; ")
        ).into(),
    }
}

/// A header byte the search corrected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Correction {
    kind: RefKind,
    declared: u8,
    stored: u8,
}

impl Correction {
    fn location(&self) -> Location {
        Location {
            section: "header",
            element: None,
            sub: None,
            field: size_field(self.kind),
            offset: FIRST_SIZE_BYTE + kind_slot(self.kind),
        }
    }

    fn describe(&self) -> String {
        let kind = kind_name(self.kind);
        format!(
            "the header says the {kind} index size is {} byte(s), but the file stores {}-byte {kind} indices",
            self.declared, self.stored
        )
    }

    fn note(&self) -> LoadNote {
        LoadNote {
            location: self.location(),
            message: format!(
                "{}; read with {} (with it every section reads and the last one ends exactly at the end of the file)",
                self.describe(),
                self.stored
            ).into(),
            lost: false,
        }
    }
}

/// A reading of the whole file with settled sizes.
struct Found {
    model: Model,
    header_report: LoadReport,
    section_reports: Vec<LoadReport>,
    declared: IndexSizes,
    sizes: IndexSizes,
}

impl Found {
    fn corrections(&self) -> Vec<Correction> {
        RefKind::ALL
            .into_iter()
            .filter_map(|kind| {
                let declared = size_of(self.declared, kind);
                let stored = size_of(self.sizes, kind);
                (declared != stored).then_some(Correction {
                    kind,
                    declared,
                    stored,
                })
            })
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

/// The search with a budget of `budget` bytes read; also returns how many it read.
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
    // needs it is not one the sizes explain.
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
    if model.header.version == PmxVersion::V2_1 {
        sections.push(Section::SoftBodies);
    }
    let mut search = Search {
        bytes,
        options: strict,
        declared,
        reports: vec![LoadReport::default(); sections.len()],
        sections,
        model,
        failed: HashSet::new(),
        budget,
        bytes_read: 0,
        attempts_left: MAX_ATTEMPTS,
    };
    let Some(settled) = search.from(0, after_info, [None; 6]) else {
        return Some((None, search.bytes_read));
    };
    let mut sizes = declared;
    for (kind, size) in RefKind::ALL.into_iter().zip(settled) {
        if let Some(size) = size {
            set_size(&mut sizes, kind, size);
        }
    }
    let found = Found {
        model: search.model,
        header_report,
        section_reports: search.reports,
        declared,
        sizes,
    };
    Some((Some(found), search.bytes_read))
}

struct Search<'a> {
    bytes: &'a [u8],
    options: LoadOptions,
    declared: IndexSizes,
    sections: Vec<Section>,
    /// The model as the sections read so far on the current path left it.
    model: Model,
    /// What the reader noted in each section on the current path.
    reports: Vec<LoadReport>,
    /// Places (section, byte, settled sizes) from which no reading reaches the end.
    failed: HashSet<(usize, usize, Settled)>,
    /// Bytes the search may read, and has read, over all its attempts.
    budget: usize,
    bytes_read: usize,
    attempts_left: usize,
}

impl Search<'_> {
    /// The settled sizes of a reading of the sections from `index` on, starting at `pos`, that
    /// ends exactly at the end of the file and is plausible; `None` when there is none (or the
    /// budget ran out).
    fn from(&mut self, index: usize, pos: usize, settled: Settled) -> Option<Settled> {
        let Some(&section) = self.sections.get(index) else {
            return (pos == self.bytes.len()).then_some(settled);
        };
        if self.failed.contains(&(index, pos, settled)) {
            return None;
        }
        let open: Vec<RefKind> = kinds_read_by(section)
            .iter()
            .copied()
            .filter(|&kind| settled[kind_slot(kind)].is_none())
            .collect();
        // Readings that led nowhere, with the kinds they read: another choice that agrees on
        // those kinds reads the same bytes the same way, to the same dead end.
        let mut read: Vec<(IndexSizes, Vec<RefKind>)> = Vec::new();
        for sizes in self.choices(&open, settled) {
            let same_as_before = read.iter().any(|(before, used)| {
                used.iter()
                    .all(|&kind| size_of(*before, kind) == size_of(sizes, kind))
            });
            if same_as_before {
                continue;
            }
            if self.out_of_budget() {
                return None;
            }
            self.attempts_left -= 1;
            // This section and those after it hold what an earlier path read.
            for &later in self.sections.get(index..).unwrap_or_default() {
                clear_section(&mut self.model, later);
            }
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
                    let mut next = settled;
                    for &kind in &used {
                        next[kind_slot(kind)] = Some(size_of(sizes, kind));
                    }
                    if let Some(slot) = self.reports.get_mut(index) {
                        *slot = report;
                    }
                    if self.plausible(index, next)
                        && let Some(found) = self.from(index + 1, end, next)
                    {
                        return Some(found);
                    }
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
            self.failed.insert((index, pos, settled));
        }
        None
    }

    fn out_of_budget(&self) -> bool {
        self.attempts_left == 0 || self.bytes_read >= self.budget
    }

    /// Every combination of sizes for the `open` kinds (the header's sizes first, so a file
    /// whose header is right reads on the first try; then the fewest changes first), the
    /// settled ones as settled and the others as declared.
    fn choices(&self, open: &[RefKind], settled: Settled) -> Vec<IndexSizes> {
        let mut base = self.declared;
        for (kind, size) in RefKind::ALL.into_iter().zip(settled) {
            if let Some(size) = size {
                set_size(&mut base, kind, size);
            }
        }
        let mut choices = vec![base];
        for &kind in open {
            let declared = size_of(self.declared, kind);
            let order =
                std::iter::once(declared).chain(SIZES.into_iter().filter(|&s| s != declared));
            choices = choices
                .iter()
                .flat_map(|&sizes| {
                    order.clone().map(move |size| {
                        let mut sizes = sizes;
                        set_size(&mut sizes, kind, size);
                        sizes
                    })
                })
                .collect();
        }
        // A header usually has one wrong byte: every change of one size is tried before any
        // change of two (a choice that keeps a wrong size may read far before it fails).
        choices.sort_by_key(|sizes| {
            open.iter()
                .filter(|&&kind| size_of(*sizes, kind) != size_of(self.declared, kind))
                .count()
        });
        choices
    }

    /// Whether every index read so far (the sections up to `index` on the current path; the
    /// model holds them, the later ones empty) of a kind whose size differs from the header's
    /// is in range, for the kinds whose own list is among them: sizes that are off read
    /// misaligned bytes, and those make indices past the end. Checked after every section, not
    /// only at the end, so a wrong size is dropped as soon as the count that bounds its
    /// indices is known.
    fn plausible(&self, index: usize, settled: Settled) -> bool {
        let read = self.sections.get(..=index).unwrap_or_default();
        let mut changed = [false; 6];
        for (slot, kind) in RefKind::ALL.into_iter().enumerate() {
            changed[slot] = read.contains(&list_of(kind))
                && settled[slot].is_some_and(|size| size != size_of(self.declared, kind));
        }
        if !changed.contains(&true) {
            return true;
        }
        let mut check = InRange {
            changed,
            counts: [
                self.model.vertices.len(),
                self.model.textures.len(),
                self.model.materials.len(),
                self.model.bones.len(),
                self.model.morphs.len(),
                self.model.rigid_bodies.len(),
            ],
            past_end: false,
        };
        visit_refs(&self.model, &mut check);
        !check.past_end
    }
}

/// Finds an index past the end of its list among the kinds marked `changed`.
struct InRange {
    changed: [bool; 6],
    counts: [usize; 6],
    past_end: bool,
}

impl InRange {
    fn see(&mut self, kind: RefKind, index: Option<usize>) {
        let slot = kind_slot(kind);
        if let (true, Some(index)) = (self.changed[slot], index) {
            self.past_end |= index >= self.counts[slot];
        }
    }
}

impl RefVisitor for InRange {
    fn vertex(&mut self, _: RefSite, index: &VertexIdx) {
        self.see(RefKind::Vertex, Some(index.get()));
    }
    fn texture(&mut self, _: RefSite, index: &Option<TextureIdx>) {
        self.see(RefKind::Texture, index.map(TextureIdx::get));
    }
    fn material(&mut self, _: RefSite, index: &Option<MaterialIdx>) {
        self.see(RefKind::Material, index.map(MaterialIdx::get));
    }
    fn bone(&mut self, _: RefSite, index: &Option<BoneIdx>) {
        self.see(RefKind::Bone, index.map(BoneIdx::get));
    }
    fn morph(&mut self, _: RefSite, index: &Option<MorphIdx>) {
        self.see(RefKind::Morph, index.map(MorphIdx::get));
    }
    fn rigid_body(&mut self, _: RefSite, index: &Option<RigidBodyIdx>) {
        self.see(RefKind::RigidBody, index.map(RigidBodyIdx::get));
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

fn kind_name(kind: RefKind) -> &'static str {
    match kind {
        RefKind::Vertex => "vertex",
        RefKind::Texture => "texture",
        RefKind::Material => "material",
        RefKind::Bone => "bone",
        RefKind::Morph => "morph",
        RefKind::RigidBody => "rigid body",
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
        // A file with a wrong size byte that is also cut is damaged, not a size problem.
        let mut sizes = IndexSizes::minimal_for(&model);
        sizes.bone = 2;
        let (bytes, _) = file_with(&model, sizes);
        let broken = with_header_size(&bytes, RefKind::Bone, 1);
        let (_, report) = read(&broken[..broken.len() - 3], &recovering()).unwrap();
        assert!(report.recovered_from.is_some());
        assert!(size_notes(&report).is_empty());
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
            // Cut as well: no reading is found, and the search stops at its budget (plus at
            // most one section).
            for cut in [1, broken.len() / 3] {
                let cut_file = &broken[..broken.len() - cut];
                let budget = BUDGET_FILE_READS * cut_file.len();
                let (found, read) = search_within(cut_file, &LoadOptions::default(), budget);
                assert!(found.is_none(), "{kind:?}");
                assert!(
                    read <= budget + cut_file.len(),
                    "{kind:?}, cut by {cut}: read {read} bytes of a {}-byte file",
                    cut_file.len()
                );
            }
        }
    }
}
