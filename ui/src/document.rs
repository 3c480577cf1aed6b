//! The open document: the model, where it came from, its undo history and selection, and the
//! background loading that produces it.

use crate::selection::{Dropped, Selection, kind_slot};
use pmx_core::edit::{Edit, History, SetField, Touched, field};
use pmx_core::formats::pmx::{self, IndexSizeMode};
use pmx_core::formats::{
    self, EmbeddedFile, FileFormat, LoadOptions, LoadReport, Loaded, UnkeptTexture,
};
use pmx_core::model::{ElementKind, Model, PmxVersion, Text, TextEncoding};
use std::cell::Cell;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::Instant;

/// How Save writes the file (Save as chooses; Save keeps what the file had).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaveSettings {
    pub version: PmxVersion,
    pub encoding: TextEncoding,
    pub index_sizes: IndexSizeMode,
}

impl SaveSettings {
    #[must_use]
    pub fn of(model: &Model) -> Self {
        Self {
            version: model.header.version,
            encoding: model.header.encoding,
            index_sizes: if model.header.index_sizes.is_some() {
                IndexSizeMode::Keep
            } else {
                IndexSizeMode::Minimal
            },
        }
    }

    #[must_use]
    pub fn to_options(self) -> formats::SaveOptions {
        formats::SaveOptions {
            pmx: pmx::PmxSaveOptions {
                version: Some(self.version),
                encoding: Some(self.encoding),
                index_sizes: self.index_sizes,
                allow_version_violations: false,
            },
            ..formats::SaveOptions::default()
        }
    }
}

/// What writing over the file a document came from would lose. Saving never overwrites such a
/// file in place: Save asks for a new `.pmx` path, and Save as asks before it writes over it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceLoss {
    /// Read only in part (opened in recovery mode, or the reader dropped part of the file): the
    /// model holds only what the reader could read. `problems` is how many things the reader
    /// noted while working round the damage, `first` the first of them (where reading stopped,
    /// when it did).
    Recovered {
        problems: usize,
        first: pmx_core::i18n::Message,
    },
    /// Converted from another format (PMD, CSV, MQO, SMF, VRM): written over, the file would
    /// lose its own format and whatever the conversion did not carry over.
    Foreign(FileFormat),
}

impl SourceLoss {
    /// What overwriting the source of a model loaded from a `format` file with `report` loses
    /// (`recovery`: it was opened in recovery mode); `None` for a PMX or JSON file read whole,
    /// the formats whose every value the model holds.
    #[must_use]
    pub fn of(format: FileFormat, report: &LoadReport, recovery: bool) -> Option<Self> {
        // A conversion's own notes (what an MQO, SMF or VRM became) are no damage of the file.
        let converted = format.spec().converts();
        if recovery || report.recovered_from.is_some() || (!converted && report.lost_data()) {
            let first = report.recovered_from.as_ref().map_or_else(
                || {
                    report.notes.first().map_or_else(
                        || pmx_core::i18n::Message::untranslated("—"),
                        pmx_core::formats::LoadNote::to_message,
                    )
                },
                pmx_core::formats::error::ReadError::to_message,
            );
            return Some(SourceLoss::Recovered {
                problems: report
                    .notes
                    .len()
                    .max(usize::from(report.recovered_from.is_some())),
                first,
            });
        }
        // Only PMX and JSON files are known whole. A CSV is not either: PmxEditor's own files
        // lack the columns that make ours exact, and a CSV written back has ours.
        match format {
            FileFormat::Pmx | FileFormat::Json => None,
            _ => Some(SourceLoss::Foreign(format)),
        }
    }
}

/// Whether `a` and `b` name the same existing file (through links and `..`); a file that does
/// not exist is no file to lose.
#[must_use]
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// A model being edited.
#[derive(Debug)]
pub struct Document {
    pub model: Model,
    /// The file it was opened from or last saved to; `None` for a new model.
    pub path: Option<PathBuf>,
    pub history: History,
    pub selection: Selection,
    /// 絞り込み表示: what the 3D view and the UV pane leave out (view state, never an edit).
    pub visibility: crate::visibility::Visibility,
    /// What the reader noticed (notes, recovery) when the file was opened.
    pub load_report: Option<LoadReport>,
    /// The format of the file it came from (a PMD model is saved as PMX unless asked).
    pub format: FileFormat,
    /// The file an imported model (MQO, SMF) came from: it names the document and is the folder
    /// textures are found in, but saving never writes back to it (`path` is `None` until the
    /// model is saved as PMX).
    pub imported_from: Option<PathBuf>,
    /// Images an imported model carries inside its file (a VRM's), unpacked so the view and
    /// the validator find them before the model is saved; saving writes them beside the PMX.
    pub unpacked: Option<UnpackedFiles>,
    /// What saving over the file the model came from (`path` or `imported_from`) would lose:
    /// while there is something, Save never writes it in place ([`Document::save_in_place_path`]).
    pub source_loss: Option<SourceLoss>,
    pub save_settings: SaveSettings,
    revision: u64,
    structure_revisions: [u64; ElementKind::ALL.len()],
    /// What the last changes touched, with the revision each made (the 3D view refreshes only
    /// that); the oldest are dropped past [`Document::CHANGE_LOG_LEN`].
    changes: std::collections::VecDeque<(u64, Touched)>,
    /// For each step of the history (by [`pmx_core::edit::Edit::id`]) that took selected
    /// elements out of a selection (deleted them, or a table's Duplicate that selected the
    /// copies instead), those elements: its undo selects them again.
    dropped_by_step: std::collections::HashMap<u64, Vec<(ElementKind, Dropped)>>,
    /// The steps whose command made what they created the selection: their redo does again.
    selecting_steps: std::collections::HashSet<u64>,
}

/// Which way a change went, for the selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Applied or redone; `select_created`: what it created becomes the selection.
    Forward {
        select_created: bool,
    },
    Back,
}

impl Document {
    /// A new model with the Root and 表情 display frames, as PmxEditor makes one.
    #[must_use]
    pub fn new_empty() -> Self {
        Self::from_model(Model::new_empty(), None, None)
    }

    /// `loaded` as a document; `unpacked` holds its embedded files when the loader already
    /// unpacked them (see [`FirstCheck::unpacked`]), otherwise they are unpacked here.
    #[must_use]
    pub fn from_loaded(path: PathBuf, loaded: Loaded, unpacked: Option<UnpackedFiles>) -> Self {
        Self::from_loaded_in(path, loaded, unpacked, false)
    }

    /// [`Document::from_loaded`] for a model read with `recovery` mode on or off: a model
    /// recovered from a damaged file is never saved over it without asking.
    #[must_use]
    pub fn from_loaded_in(
        path: PathBuf,
        loaded: Loaded,
        unpacked: Option<UnpackedFiles>,
        recovery: bool,
    ) -> Self {
        let source_loss = SourceLoss::of(loaded.format, &loaded.report, recovery);
        let mut document = Self::from_loaded_file(path, loaded, unpacked);
        document.source_loss = source_loss;
        document
    }

    fn from_loaded_file(path: PathBuf, loaded: Loaded, unpacked: Option<UnpackedFiles>) -> Self {
        let unpacked = unpacked.or_else(|| UnpackedFiles::unpack(&loaded.embedded_files));
        if loaded.format.spec().converts() {
            // An import: the model is new, the MQO, SMF or VRM is not its file (saving must
            // never write over the source).
            let mut document = Self::from_model(loaded.model, None, Some(loaded.report));
            document.imported_from = Some(path);
            document.unpacked = unpacked;
            return document;
        }
        let mut document = Self::from_model(loaded.model, Some(path), Some(loaded.report));
        document.format = loaded.format;
        document
    }

    #[must_use]
    pub fn from_model(
        model: Model,
        path: Option<PathBuf>,
        load_report: Option<LoadReport>,
    ) -> Self {
        let save_settings = SaveSettings::of(&model);
        Self {
            model,
            path,
            history: History::new(),
            selection: Selection::default(),
            visibility: crate::visibility::Visibility::default(),
            load_report,
            format: FileFormat::Pmx,
            imported_from: None,
            unpacked: None,
            source_loss: None,
            save_settings,
            revision: 0,
            structure_revisions: [0; ElementKind::ALL.len()],
            changes: std::collections::VecDeque::new(),
            dropped_by_step: std::collections::HashMap::new(),
            selecting_steps: std::collections::HashSet::new(),
        }
    }

    /// Where File > Export suggests writing: the model's file (or the file it was imported
    /// from) with `extension`, else `untitled.EXTENSION` in the working folder.
    #[must_use]
    pub fn export_path(&self, extension: &str) -> PathBuf {
        let mut path = self
            .path
            .clone()
            .or_else(|| self.imported_from.clone())
            .unwrap_or_else(|| std::env::current_dir().unwrap_or_default().join("untitled"));
        path.set_extension(extension);
        path
    }

    /// The file the model came from: its own file, or the one it was imported from.
    #[must_use]
    pub fn source_file(&self) -> Option<&Path> {
        self.path.as_deref().or(self.imported_from.as_deref())
    }

    /// Where Save writes without asking: the document's file, unless the model was not read
    /// whole from it or was converted from it ([`Document::source_loss`]), and unless it is a
    /// PMD file (a PMD model is saved as PMX unless Save as names a `.pmd`). `None`: Save asks.
    #[must_use]
    pub fn save_in_place_path(&self) -> Option<&Path> {
        self.path
            .as_deref()
            .filter(|_| self.source_loss.is_none() && self.format != FileFormat::Pmd)
    }

    /// Where Save as suggests writing: `NAME.recovered.pmx` beside a file opened in recovery
    /// mode, `NAME.pmx` beside a converted one (or a PMD file), else the document's file, or
    /// `untitled.pmx` in the working folder for a model never saved.
    #[must_use]
    pub fn save_as_suggestion(&self) -> PathBuf {
        let Some(source) = self.source_file() else {
            return std::env::current_dir()
                .unwrap_or_default()
                .join("untitled.pmx");
        };
        match &self.source_loss {
            Some(SourceLoss::Recovered { .. }) => {
                let stem = source
                    .file_stem()
                    .map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
                source.with_file_name(format!("{stem}.recovered.pmx"))
            }
            Some(SourceLoss::Foreign(_)) => source.with_extension("pmx"),
            None if self.format == FileFormat::Pmd => source.with_extension("pmx"),
            None => source.to_owned(),
        }
    }

    /// What writing to `target` would lose when it is the file the model came from and that
    /// file was not read whole or is in another format; `None` when writing there loses nothing
    /// of it.
    #[must_use]
    pub fn overwrite_loss(&self, target: &Path) -> Option<&SourceLoss> {
        let loss = self.source_loss.as_ref()?;
        same_file(target, self.source_file()?).then_some(loss)
    }

    /// The file name for the title bar ("無題" is the caller's business when `None`).
    #[must_use]
    pub fn file_name(&self) -> Option<String> {
        self.path
            .as_deref()
            .or(self.imported_from.as_deref())
            .map(file_name)
    }

    /// The folder the model's relative paths (textures) start from: its file's, or, for a
    /// model not saved yet, where its embedded images were unpacked, or the folder of the file
    /// it was imported from.
    #[must_use]
    pub fn folder(&self) -> Option<&Path> {
        if let Some(path) = &self.path {
            return path.parent();
        }
        if let Some(unpacked) = &self.unpacked {
            return Some(unpacked.dir.path());
        }
        self.imported_from.as_deref().and_then(Path::parent)
    }

    /// Whether the model differs from the file (through undo and redo).
    #[must_use]
    pub fn is_dirty(&self) -> bool {
        self.history.is_dirty()
    }

    /// Increases with every change of the model.
    #[must_use]
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Increases whenever elements of `kind` are inserted, removed or reordered.
    #[must_use]
    pub fn structure_revision(&self, kind: ElementKind) -> u64 {
        self.structure_revisions[kind_slot(kind)]
    }

    pub const CHANGE_LOG_LEN: usize = 256;

    /// Whether the mesh's shape (the vertex list, vertex values other than weights and UVs,
    /// the faces) is as it was at `revision`: lookups built on it then (edge neighbours, the
    /// X-mirror lookup, the UV pane's wireframe and seams) still hold. False when the log no
    /// longer reaches back.
    #[must_use]
    pub fn mesh_unchanged_since(&self, revision: u64) -> bool {
        use pmx_core::edit::EditTarget;
        self.changes_since(revision).is_some_and(|changes| {
            changes.iter().all(|touched| {
                !touched.structure_changed()
                    && !touched.touches(EditTarget::Face)
                    && (touched.vertex_weights_only
                        || touched.vertex_uvs_only
                        || !touched.touches(EditTarget::Vertex))
            })
        })
    }

    /// What changed after `revision`, oldest first; `None` when the log no longer reaches back
    /// that far (the caller refreshes everything).
    #[must_use]
    pub fn changes_since(&self, revision: u64) -> Option<Vec<&Touched>> {
        if revision >= self.revision {
            return Some(Vec::new());
        }
        let oldest = self.changes.front()?.0;
        (oldest <= revision + 1).then(|| {
            self.changes
                .iter()
                .filter(|(r, _)| *r > revision)
                .map(|(_, t)| t)
                .collect()
        })
    }

    /// Applies `edit` and records it as one undo step. Selections follow their elements
    /// through the edit's report: elements it removed leave, nothing joins
    /// ([`crate::selection::KindSelection::follow`]).
    pub fn apply(&mut self, edit: Edit) -> Touched {
        self.apply_selecting(edit, false)
    }

    /// [`Document::apply`]; with `select_created`, what the edit creates becomes the selection
    /// of its kind (a table's Insert and Duplicate: the rows the user asked for).
    pub fn apply_selecting(&mut self, edit: Edit, select_created: bool) -> Touched {
        let touched = self.history.apply(&mut self.model, edit);
        self.note(&touched, Step::Forward { select_created });
        touched
    }

    /// Applies `request` as the next frame of `gesture` if it continues the last step (see
    /// [`pmx_core::edit::History::continue_gesture`]); otherwise gives it back.
    pub fn continue_gesture(
        &mut self,
        gesture: pmx_core::edit::GestureId,
        request: pmx_core::edit::SetField,
    ) -> Result<Touched, pmx_core::edit::SetField> {
        let touched = self
            .history
            .continue_gesture(&mut self.model, gesture, request)?;
        self.note(
            &touched,
            Step::Forward {
                select_created: false,
            },
        );
        Ok(touched)
    }

    /// Undoes the last step; selections follow their elements back: what the step created
    /// leaves them, and the selected elements it took out (deleted ones) are selected again.
    pub fn undo(&mut self) -> Option<Touched> {
        let step = self.history.undo_id();
        let touched = self.history.undo(&mut self.model)?;
        self.note(&touched, Step::Back);
        if let Some(dropped) = step.and_then(|id| self.dropped_by_step.get(&id)) {
            for (kind, dropped) in dropped.clone() {
                let len = self.model.count(kind);
                self.selection.get_mut(kind).restore(&dropped, len);
            }
        }
        Some(touched)
    }

    /// Redoes the next step; selections follow as when it was applied.
    pub fn redo(&mut self) -> Option<Touched> {
        let select_created = self
            .history
            .redo_id()
            .is_some_and(|id| self.selecting_steps.contains(&id));
        let touched = self.history.redo(&mut self.model)?;
        self.note(&touched, Step::Forward { select_created });
        Some(touched)
    }

    /// Undoes or redoes until `head` steps are applied.
    pub fn jump_to(&mut self, head: usize) -> Touched {
        let mut all = Touched::default();
        while self.history.head() > head {
            let Some(touched) = self.undo() else { break };
            all.extend(touched);
        }
        while self.history.head() < head {
            let Some(touched) = self.redo() else { break };
            all.extend(touched);
        }
        all
    }

    /// Bookkeeping after any change: revisions, and selections moved with their elements.
    fn note(&mut self, touched: &Touched, step: Step) {
        self.revision += 1;
        if self.changes.len() >= Self::CHANGE_LOG_LEN {
            self.changes.pop_front();
        }
        self.changes.push_back((self.revision, touched.clone()));
        let mut dropped_here = Vec::new();
        for &kind in &touched.structure {
            self.structure_revisions[kind_slot(kind)] += 1;
            let len = self.model.count(kind);
            self.visibility.follow(kind, touched.remap(kind), len);
            let selection = self.selection.get_mut(kind);
            let dropped = match (touched.remap(kind), step) {
                (Some(reindex), Step::Forward { select_created })
                    if select_created && !reindex.created().is_empty() =>
                {
                    selection.select_created(reindex, len)
                }
                (Some(reindex), _) => selection.follow(reindex, len),
                // A change that does not say where elements went (a repair): keep what is
                // still in the list.
                (None, _) => {
                    selection.truncate(len);
                    Dropped::default()
                }
            };
            if !dropped.is_empty() {
                dropped_here.push((kind, dropped));
            }
        }
        if let Step::Forward { select_created } = step
            && let Some(id) = self.history.undo_id()
        {
            if select_created {
                self.selecting_steps.insert(id);
            }
            if dropped_here.is_empty() {
                self.dropped_by_step.remove(&id);
            } else {
                self.dropped_by_step.insert(id, dropped_here);
            }
            // Forget steps the history no longer holds (dropped past its limit, or a branch
            // a new edit replaced).
            let noted = self.dropped_by_step.len().max(self.selecting_steps.len());
            if noted > 64 && noted > self.history.len() {
                let live: std::collections::HashSet<u64> =
                    self.history.edits().map(Edit::id).collect();
                self.dropped_by_step.retain(|id, _| live.contains(id));
                self.selecting_steps.retain(|id| live.contains(id));
            }
        }
    }

    /// How the validator checks this document for `target`: texture files are looked up next
    /// to the document's file (not at all for a model never saved).
    #[must_use]
    pub fn check_options(
        &self,
        target: Option<pmx_core::validate::Target>,
    ) -> pmx_core::validate::CheckOptions {
        pmx_core::validate::CheckOptions {
            target,
            model_dir: self.folder().map(Path::to_owned),
            ..pmx_core::validate::CheckOptions::default()
        }
    }

    /// Applies every automatic fix of the validator as one undo step (see
    /// `pmx_core::validate::repair`).
    pub fn repair(
        &mut self,
        target: Option<pmx_core::validate::Target>,
    ) -> pmx_core::validate::RepairReport {
        let options = pmx_core::validate::RepairOptions {
            check: self.check_options(target),
            ..Default::default()
        };
        let report = pmx_core::validate::repair(
            &mut self.model,
            self.load_report.as_ref(),
            &mut self.history,
            &options,
        );
        if report.changed() {
            // A repair may touch any kind of element: every view refreshes.
            let touched = Touched {
                values: Vec::new(),
                structure: ElementKind::ALL.to_vec(),
                ..Touched::default()
            };
            self.note(
                &touched,
                Step::Forward {
                    select_created: false,
                },
            );
        }
        report
    }

    /// Writes the model to `path` with `settings`, atomically; on success the document is
    /// saved there. Returns the writer's warnings (what a PMD file could not hold) and the
    /// texture paths that could not be kept pointing at their images.
    ///
    /// Into another folder, the texture paths are first rewritten to reach the images from
    /// there (`formats::relocate`), as one undoable edit; saving beside the source changes
    /// nothing.
    pub fn save_to(
        &mut self,
        path: &Path,
        settings: SaveSettings,
    ) -> Result<Vec<pmx_core::i18n::Message>, pmx_core::i18n::Message> {
        let (relocated, unkept) = self.relocate_textures_for(path)?;
        let report = match formats::save_path(&self.model, path, &settings.to_options()) {
            Ok(report) => report,
            Err(error) => {
                if relocated {
                    // The file was not written: the paths go back to the folder they reach.
                    let _ = self.undo();
                }
                return Err(error.to_message());
            }
        };
        let mut warnings = report.warnings;
        warnings.extend(unkept);
        if let Some(unpacked) = &self.unpacked {
            // The images the model came with go beside it, where its texture paths point; a
            // file already there with other contents is kept, and the user told.
            let folder = formats::folder_of(path);
            match formats::write_embedded_files(&unpacked.files, folder, false) {
                Ok(_) => self.unpacked = None,
                Err(error) => warnings.push(
                    pmx_core::i18n::Message::new("save.images_not_written")
                        .arg("error", error.to_string()),
                ),
            }
        }
        self.format = FileFormat::from_extension(path).unwrap_or(FileFormat::Pmx);
        self.path = Some(path.to_owned());
        self.imported_from = None;
        // The file is now one this editor wrote whole: Save may write it in place.
        self.source_loss = None;
        self.save_settings = settings;
        self.history.mark_saved();
        // The file on disk is now a correct one: what the reader noticed no longer applies.
        self.load_report = None;
        Ok(warnings)
    }
}

impl Document {
    /// Rewrites the texture paths for a save into `path`'s folder when it is not the folder
    /// they start from, as one edit (a PMD whose 20-byte texture fields the rewritten paths
    /// would not fit gets the images copied beside it instead: `formats::relocation_for`);
    /// returns whether an edit was made and, as text for the status line, the paths that
    /// could not be kept and why the images were copied.
    fn relocate_textures_for(
        &mut self,
        path: &Path,
    ) -> Result<(bool, Vec<pmx_core::i18n::Message>), pmx_core::i18n::Message> {
        let Some(from) = self.folder().map(Path::to_owned) else {
            return Ok((false, Vec::new()));
        };
        let unpacked: Vec<&str> = self
            .unpacked
            .iter()
            .flat_map(|u| u.files.iter().map(|f| f.path.as_str()))
            .collect();
        // Only the texture list is relocated, on a copy: the model changes through the edit.
        let mut textures_only = Model {
            textures: self.model.textures.clone(),
            ..Model::default()
        };
        let to = formats::folder_of(path);
        let asked = formats::TextureRelocation::Rewrite;
        let mode = formats::relocation_for(&self.model, &from, path, asked, &unpacked);
        let report = formats::relocate_textures(&mut textures_only, &from, to, mode, &unpacked);
        let mut unkept: Vec<pmx_core::i18n::Message> =
            report.unkept.iter().map(UnkeptTexture::message).collect();
        if mode != asked {
            unkept.insert(
                0,
                pmx_core::i18n::Message::new("save.textures.copied_for_pmd")
                    .arg("folder", to.display().to_string()),
            );
        }
        let (indices, values): (Vec<usize>, Vec<Text>) = textures_only
            .textures
            .into_iter()
            .enumerate()
            .filter(|(index, text)| self.model.textures.get(*index) != Some(text))
            .unzip();
        if indices.is_empty() {
            return Ok((false, unkept));
        }
        let edit = SetField::each(field::<Text>(), indices, values)
            .into_edit(&self.model)
            .map_err(|e| {
                pmx_core::i18n::Message::new("save.textures.not_rewritten")
                    .arg("error", e.to_string())
            })?;
        self.apply(edit);
        Ok((true, unkept))
    }
}

/// Files an imported model carried inside its file, written to a scratch folder (removed with
/// this value) until the model is saved.
#[derive(Debug)]
pub struct UnpackedFiles {
    pub dir: tempfile::TempDir,
    pub files: Vec<EmbeddedFile>,
}

impl UnpackedFiles {
    /// `files` written to a new scratch folder; `None` when there are none or the folder cannot
    /// be written (the textures then show as missing, as they would on disk).
    #[must_use]
    pub fn unpack(files: &[EmbeddedFile]) -> Option<Self> {
        if files.is_empty() {
            return None;
        }
        let dir = tempfile::Builder::new()
            .prefix("pmx-studio-import-")
            .tempdir()
            .ok()?;
        formats::write_embedded_files(files, dir.path(), true).ok()?;
        Some(Self {
            dir,
            files: files.to_vec(),
        })
    }

    /// Adds `files` (an import merged into the model) to the scratch folder.
    pub fn add(&mut self, files: &[EmbeddedFile]) -> std::io::Result<()> {
        formats::write_embedded_files(files, self.dir.path(), true)?;
        self.files.extend_from_slice(files);
        Ok(())
    }
}

/// The last component of a path, for titles and lists.
#[must_use]
pub fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// What a load is doing, for the progress bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadPhase {
    /// Reading the file's bytes from disk.
    Reading,
    /// Parsing them into a model.
    Parsing,
}

/// Progress shared between the loading thread and the UI.
#[derive(Debug, Default)]
pub struct LoadProgress {
    phase: AtomicU8,
    done: AtomicU64,
    total: AtomicU64,
    cancelled: AtomicBool,
}

impl LoadProgress {
    #[must_use]
    pub fn phase(&self) -> LoadPhase {
        if self.phase.load(Ordering::Relaxed) == 0 {
            LoadPhase::Reading
        } else {
            LoadPhase::Parsing
        }
    }

    /// Fraction done over both phases: reading is the first 30 %, parsing the rest (what a
    /// 100 MB PMX file takes on a laptop SSD with a warm page cache).
    #[must_use]
    pub fn fraction(&self) -> f32 {
        let total = self.total.load(Ordering::Relaxed).max(1) as f32;
        let done = (self.done.load(Ordering::Relaxed) as f32 / total).clamp(0.0, 1.0);
        match self.phase() {
            LoadPhase::Reading => 0.3 * done,
            LoadPhase::Parsing => 0.3 + 0.7 * done,
        }
    }

    /// Bytes of the file.
    #[must_use]
    pub fn total_bytes(&self) -> u64 {
        self.total.load(Ordering::Relaxed)
    }

    fn set(&self, phase: LoadPhase, done: u64) {
        self.phase
            .store(u8::from(phase == LoadPhase::Parsing), Ordering::Relaxed);
        self.done.store(done, Ordering::Relaxed);
    }
}

/// Why a load failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadFailure {
    pub path: PathBuf,
    /// The reader's message: section, element, field and byte offset.
    pub message: pmx_core::i18n::Message,
    /// Whether loading in recovery mode may get part of the model (the bytes were read but did
    /// not parse).
    pub recoverable: bool,
}

/// A model being loaded on a worker thread.
#[derive(Debug)]
pub struct LoadJob {
    pub path: PathBuf,
    pub progress: Arc<LoadProgress>,
    pub recover: bool,
    /// File > Import into the open model: the loaded model is merged with these options, not
    /// opened.
    pub merge: Option<pmx_core::edit::MergeOptions>,
    pub started: Instant,
    result: Receiver<Result<(Loaded, FirstCheck), LoadFailure>>,
    first_check: Option<FirstCheck>,
}

/// The validator's issues of a model as loaded, worked out on the loading thread so that the
/// frame that shows a big model does not also wait for its check.
#[derive(Debug)]
pub struct FirstCheck {
    /// The issues, kept for re-checking only what later edits touch.
    pub checked: pmx_core::validate::Checked,
    pub duration: std::time::Duration,
    /// The model's embedded files, unpacked for the check (the document keeps them).
    pub unpacked: Option<UnpackedFiles>,
}

impl LoadJob {
    /// Starts loading `path`; `wake` is called when there is progress or a result, so the UI
    /// repaints (egui's `request_repaint`).
    pub fn start(path: PathBuf, recover: bool, wake: Arc<dyn Fn() + Send + Sync>) -> Self {
        let options = LoadOptions {
            recover,
            ..LoadOptions::default()
        };
        Self::start_with(path, options, None, wake)
    }

    /// Starts loading `path` with `options` (File > Import: the MQO settings), to be opened
    /// as a document or, with `merge`, merged into the open one.
    pub fn start_with(
        path: PathBuf,
        options: LoadOptions,
        merge: Option<pmx_core::edit::MergeOptions>,
        wake: Arc<dyn Fn() + Send + Sync>,
    ) -> Self {
        let recover = options.recover;
        let (sender, receiver) = channel();
        let progress = Arc::new(LoadProgress::default());
        let worker_progress = Arc::clone(&progress);
        let worker_path = path.clone();
        std::thread::spawn(move || {
            let result =
                load_with_progress(&worker_path, options, &worker_progress, &*wake).map(|loaded| {
                    let started = Instant::now();
                    // Embedded images are checked where the document will find them.
                    let unpacked = UnpackedFiles::unpack(&loaded.embedded_files);
                    let check_options = match &unpacked {
                        Some(unpacked) => pmx_core::validate::CheckOptions {
                            model_dir: Some(unpacked.dir.path().to_owned()),
                            ..pmx_core::validate::CheckOptions::default()
                        },
                        None => pmx_core::validate::CheckOptions::for_file(&worker_path),
                    };
                    let checked = pmx_core::validate::check_keeping(
                        &loaded.model,
                        Some(&loaded.report),
                        &check_options,
                    );
                    let duration = started.elapsed();
                    (
                        loaded,
                        FirstCheck {
                            checked,
                            duration,
                            unpacked,
                        },
                    )
                });
            // The receiver is gone when the load was cancelled: nothing to do then.
            let _ = sender.send(result);
            wake();
        });
        Self {
            path,
            progress,
            recover,
            merge,
            started: Instant::now(),
            result: receiver,
            first_check: None,
        }
    }

    /// The result, once the worker has one.
    pub fn poll(&mut self) -> Option<Result<Loaded, LoadFailure>> {
        match self.result.try_recv() {
            Ok(Ok((loaded, first_check))) => {
                self.first_check = Some(first_check);
                Some(Ok(loaded))
            }
            Ok(Err(failure)) => Some(Err(failure)),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(LoadFailure {
                path: self.path.clone(),
                message: pmx_core::i18n::Message::new("load.thread_stopped"),
                recoverable: false,
            })),
        }
    }

    /// The check of the model as loaded (once [`LoadJob::poll`] returned it).
    pub fn take_first_check(&mut self) -> Option<FirstCheck> {
        self.first_check.take()
    }

    /// Stops reading the file (the worker checks between chunks; a parse already under way
    /// runs to its end and its result is dropped).
    pub fn cancel(&self) {
        self.progress.cancelled.store(true, Ordering::Relaxed);
    }
}

/// Chunk size for reading: progress updates every 4 MB.
const READ_CHUNK: usize = 4 << 20;

fn load_with_progress(
    path: &Path,
    options: LoadOptions,
    progress: &LoadProgress,
    wake: &(dyn Fn() + Send + Sync),
) -> Result<Loaded, LoadFailure> {
    let failure = |message: pmx_core::i18n::Message, recoverable: bool| LoadFailure {
        path: path.to_owned(),
        message,
        recoverable,
    };
    let io_failure =
        |e: std::io::Error| failure(formats::FileError::io(path)(e).to_message(), false);
    if let Some((file, len)) = formats::open_pmx(path).map_err(io_failure)? {
        // Straight from the disk through the reader's window: the file is never a second time
        // in memory, and reading and parsing are one pass.
        progress.total.store(len as u64, Ordering::Relaxed);
        progress.set(LoadPhase::Parsing, 0);
        // Wake the UI at most every 1 % of the file, not on every report.
        let step = (len / 100).max(1);
        let last_woken = Cell::new(0usize);
        let on_progress = |position: usize| {
            progress.set(LoadPhase::Parsing, position as u64);
            if position >= last_woken.get() + step {
                last_woken.set(position);
                wake();
            }
        };
        let read = pmx::read_file(
            &file,
            len,
            &options,
            &on_progress,
            Some(&progress.cancelled),
        );
        if progress.cancelled.load(Ordering::Relaxed) {
            return Err(failure(
                pmx_core::i18n::Message::new("load.cancelled"),
                false,
            ));
        }
        // What the disk did not give (as opposed to bytes that do not parse) recovery cannot help.
        let (model, report) = read.map_err(|e| {
            let recoverable = !matches!(e, pmx_core::formats::error::ReadError::Io { .. });
            failure(formats::FileError::read(path)(e).to_message(), recoverable)
        })?;
        progress.set(LoadPhase::Parsing, len as u64);
        return Ok(Loaded {
            model,
            report,
            format: FileFormat::Pmx,
            embedded_files: Vec::new(),
        });
    }
    let mut file = std::fs::File::open(path).map_err(io_failure)?;
    let size = file.metadata().map_err(io_failure)?.len();
    progress.total.store(size, Ordering::Relaxed);
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    let mut chunk = vec![0u8; READ_CHUNK];
    loop {
        if progress.cancelled.load(Ordering::Relaxed) {
            return Err(failure(
                pmx_core::i18n::Message::new("load.cancelled"),
                false,
            ));
        }
        let read = file.read(&mut chunk).map_err(io_failure)?;
        if read == 0 {
            break;
        }
        bytes.extend_from_slice(&chunk[..read]);
        progress.set(LoadPhase::Reading, bytes.len() as u64);
        wake();
    }
    progress.total.store(bytes.len() as u64, Ordering::Relaxed);
    progress.set(LoadPhase::Parsing, 0);
    let Some(format) = FileFormat::detect(path, &bytes) else {
        let unknown = formats::FileError::UnknownFormat {
            path: path.to_owned(),
        };
        return Err(failure(unknown.to_message(), false));
    };
    // Every PMX with a PMX magic was read from the disk above: what is left (a `.pmx` without
    // one fails at its first bytes) and the other formats are read from memory at once; an
    // MQO's `.mqx` and a glTF's buffers from beside the file.
    let spec = format.spec();
    let loaded = (spec.read)(&bytes, Some(path), &options).map_err(|e| {
        failure(
            formats::FileError::read(path)(e).to_message(),
            spec.offers_recovery,
        )
    })?;
    progress.set(LoadPhase::Parsing, bytes.len() as u64);
    Ok(loaded)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait(mut job: LoadJob) -> Result<Loaded, LoadFailure> {
        let started = Instant::now();
        loop {
            if let Some(result) = job.poll() {
                return result;
            }
            assert!(started.elapsed().as_secs() < 60, "load did not finish");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    #[test]
    fn loads_a_file_and_reports_full_progress() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("m.pmx");
        let model = pmx_core::generate::large_model(&pmx_core::generate::LargeModelSpec::small());
        formats::save_path(&model, &path, &formats::SaveOptions::default()).expect("saved");
        let job = LoadJob::start(path.clone(), false, Arc::new(|| {}));
        let progress = Arc::clone(&job.progress);
        let loaded = wait(job).expect("loads");
        assert_eq!(loaded.model.vertices.len(), model.vertices.len());
        assert_eq!(progress.phase(), LoadPhase::Parsing);
        assert!((progress.fraction() - 1.0).abs() < 1e-6);
        assert_eq!(
            progress.total_bytes(),
            std::fs::metadata(&path).expect("exists").len()
        );
    }

    #[test]
    fn a_broken_file_fails_with_the_readers_location_and_recovers() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("cut.pmx");
        let model = pmx_core::generate::large_model(&pmx_core::generate::LargeModelSpec::small());
        let (bytes, _) = pmx::write(&model, &pmx::PmxSaveOptions::default()).expect("written");
        std::fs::write(&path, &bytes[..bytes.len() / 2]).expect("written");
        let failure = wait(LoadJob::start(path.clone(), false, Arc::new(|| {})))
            .expect_err("a cut file fails");
        assert!(failure.recoverable);
        assert!(failure.message.contains("at byte"), "{}", failure.message);
        assert!(
            failure
                .message
                .render(pmx_core::i18n::Language::Japanese)
                .contains("バイト目"),
            "{}",
            failure.message
        );
        let recovered = wait(LoadJob::start(path, true, Arc::new(|| {}))).expect("recovers");
        assert!(recovered.report.recovered_from.is_some());
    }

    #[test]
    fn undo_restores_dirty_state_and_revisions_move() {
        let mut document = Document::new_empty();
        assert!(!document.is_dirty());
        let edit = Edit::set_field(
            &document.model,
            &[],
            pmx_core::edit::field::<pmx_core::model::ModelInfo>().name_ja(),
            pmx_core::model::Text::from("テスト"),
        )
        .expect("edit builds");
        document.apply(edit);
        assert!(document.is_dirty());
        assert_eq!(document.model.info.name_ja.as_str(), "テスト");
        assert_eq!(document.revision(), 1);
        document.undo();
        assert!(!document.is_dirty());
        assert_eq!(document.model.info.name_ja.as_str(), "");
        assert_eq!(document.revision(), 2);
    }
}
