//! Validators: find everything wrong with a model, say where and why, and offer fixes.
//!
//! A [`Registry`] holds [`Rule`]s; [`Registry::check`] runs them all over a model (and, for a
//! model as read from a file, the reader's [`LoadReport`]) and returns [`Issue`]s. Each issue has
//! a [`Severity`], a stable code (`E-INDEX-SIZE`), the element path (`bones[12].ik.links[3].bone`),
//! a message in English and Japanese and, where the problem can be fixed automatically, a
//! [`Fix`]: typed [`FixStep`]s (field sets from typed handles, inserts, moves, deletions) that
//! [`Fix::to_edit`] turns into one undoable batch edit.
//! [`repair`] applies every fix, round after round, until nothing fixable is left.
//!
//! Severities follow one rule (README.md, "Checking and repairing"): an **error** is what makes
//! MikuMikuDance, PmxEditor or a common reader refuse the file or crash, or makes deformation
//! undefined (a reference past the end or -1 where one is required, an index size too small, a
//! PMX 2.1 feature in a 2.0 file, NaN, a parent cycle, material face ranges that cut
//! triangles), or what this program's writer refuses; everything that loads and works, however
//! odd, is a **warning** (it misbehaves or does nothing: a morph of an additional UV channel the
//! model lacks, a soft body without a material, a joint without a body) or **info** (worth
//! knowing). The code's prefix names the severity (`E-`, `W-`, `I-`). Rules never panic on
//! broken data: every index is checked before use.

mod bones;
mod cap;
mod frames;
mod geometry;
mod incremental;
mod index_size;
mod load;
mod names;
mod references;
mod repair;
mod target;
mod textures;
mod util;
mod version;

#[cfg(test)]
mod tests;

pub use incremental::{Checked, Dirty, Reads, Recheck, RuleMemo, check_keeping, recheck};
pub use load::header_corrections;
pub use repair::{AppliedFix, RepairOptions, RepairReport, repair};
pub use target::{VMD_NAME_BYTES, mmd_name_bytes, shift_jis_bytes};

use crate::edit::{Edit, EditError, Elements, Sequence, SetField};
use crate::formats::LoadReport;
use crate::model::ElementKind;
use crate::model::{Model, PmxVersion};
use crate::path::ModelPath;
use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// How bad an issue is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; nothing misbehaves.
    Info,
    /// Loads and works, but misbehaves, does nothing or loses something.
    Warning,
    /// MikuMikuDance, PmxEditor or a common reader refuses the file or crashes, or deformation
    /// is undefined.
    Error,
}

impl Severity {
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An automatic fix: typed steps that become one undoable batch edit.
#[derive(Debug, Clone, PartialEq)]
pub struct Fix {
    /// What the fix does, for the Edit menu and the repair report ("Normalize 3 normals").
    pub label_en: String,
    pub label_ja: String,
    /// Built in order, each on the model as the previous ones leave it.
    pub steps: Vec<FixStep>,
}

/// One step of a [`Fix`], typed: a field set from a typed handle and value, or a structural
/// change of whole elements.
#[derive(Debug, Clone, PartialEq)]
pub enum FixStep {
    /// Set one typed field of some elements.
    Set(SetField),
    /// Insert elements so that the first is at `at` (`None`: at the end).
    Insert {
        at: Option<usize>,
        elements: Elements,
    },
    /// Move elements so that the first is at `to`.
    MoveTo {
        kind: ElementKind,
        indices: Vec<usize>,
        to: usize,
    },
    Delete {
        kind: ElementKind,
        indices: Vec<usize>,
    },
}

impl FixStep {
    /// The step's edit on `model` (unchanged on return).
    fn to_edit(&self, model: &Model) -> Result<Edit, EditError> {
        match self {
            FixStep::Set(set) => set.clone().into_edit(model),
            FixStep::Insert { at, elements } => {
                let count = elements.kind().map_or(0, |kind| model.count(kind));
                Edit::insert(model, at.unwrap_or(count).min(count), elements.clone())
            }
            FixStep::MoveTo { kind, indices, to } => Edit::move_to(model, *kind, indices, *to),
            FixStep::Delete { kind, indices } => Edit::delete(model, *kind, indices),
        }
    }
}

impl Fix {
    #[must_use]
    pub fn new(
        label_en: impl Into<String>,
        label_ja: impl Into<String>,
        steps: Vec<FixStep>,
    ) -> Self {
        Self {
            label_en: label_en.into(),
            label_ja: label_ja.into(),
            steps,
        }
    }

    /// Whether every step only sets fields (no element is inserted, removed or moved), so the
    /// fix leaves every index as it is.
    #[must_use]
    pub fn only_sets_fields(&self) -> bool {
        self.steps
            .iter()
            .all(|step| matches!(step, FixStep::Set(_)))
    }

    /// Builds the edit of this fix on `model` (unchanged on return); apply it through a
    /// [`crate::edit::History`] to make the change undoable.
    pub fn to_edit(&self, model: &mut Model) -> Result<Edit, EditError> {
        let label = crate::edit::EditLabel::both(self.label_en.clone(), self.label_ja.clone());
        let mut sequence = Sequence::new(model);
        for (step, fix_step) in self.steps.iter().enumerate() {
            let edit = fix_step
                .to_edit(sequence.model())
                .map_err(|source| EditError::Step {
                    step,
                    op: fix_step.name(),
                    source: Box::new(source),
                })?;
            sequence.push(edit);
        }
        if sequence.is_empty() {
            return Err(EditError::NothingSelected { kind: "op" });
        }
        Ok(sequence.finish_flat(label.clone()).with_label(label))
    }
}

impl FixStep {
    /// The name of the step's kind, for errors ("set", "insert", "move", "delete").
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            FixStep::Set(_) => "set",
            FixStep::Insert { .. } => "insert",
            FixStep::MoveTo { .. } => "move",
            FixStep::Delete { .. } => "delete",
        }
    }
}

/// One thing wrong with a model.
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    pub severity: Severity,
    /// Stable code: `E-` errors, `W-` warnings, `I-` info (`E-REF-RANGE`).
    pub code: &'static str,
    /// Where, in the one path grammar ([`crate::path`]): `bones[12].ik.links[3].bone`,
    /// `header.index_sizes.vertex`, `faces`. In JSON, its text.
    pub path: ModelPath,
    pub message_en: String,
    pub message_ja: String,
    /// The automatic fix, if there is one (what `repair` applies).
    pub fix: Option<Fix>,
    /// Other ways to fix it the user may prefer (e.g. raise the version instead of converting
    /// a PMX 2.1 feature down).
    pub alternatives: Vec<Fix>,
    /// For the issue that sums up what is over [`CheckOptions::max_issues_per_code`] ("and
    /// 1,234 more: ..."), how many findings it stands for; 0 for an issue about one place.
    pub more: usize,
}

impl Issue {
    #[must_use]
    pub fn new(
        severity: Severity,
        code: &'static str,
        path: ModelPath,
        message_en: impl Into<String>,
        message_ja: impl Into<String>,
    ) -> Self {
        Self {
            severity,
            code,
            path,
            message_en: message_en.into(),
            message_ja: message_ja.into(),
            fix: None,
            alternatives: Vec::new(),
            more: 0,
        }
    }

    /// Marks the issue as the summary of `more` findings not listed one by one.
    #[must_use]
    pub fn summing_up(mut self, more: usize) -> Self {
        self.more = more;
        self
    }

    #[must_use]
    pub fn with_fix(mut self, fix: Option<Fix>) -> Self {
        self.fix = fix;
        self
    }

    #[must_use]
    pub fn with_alternative(mut self, fix: Fix) -> Self {
        self.alternatives.push(fix);
        self
    }

    #[must_use]
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {}: {}",
            self.severity, self.code, self.path, self.message_en
        )
    }
}

/// What a model is checked for: the file it will be saved as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    Pmx(PmxVersion),
    /// PMD: everything PMD cannot hold is listed.
    Pmd,
}

impl Target {
    /// Parses `pmx2.0`, `pmx2.1` or `pmd` (the CLI's `--target`).
    #[must_use]
    pub fn parse(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "pmx2.0" | "pmx20" | "2.0" => Some(Target::Pmx(PmxVersion::V2_0)),
            "pmx2.1" | "pmx21" | "2.1" => Some(Target::Pmx(PmxVersion::V2_1)),
            "pmd" => Some(Target::Pmd),
            _ => None,
        }
    }

    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Target::Pmx(PmxVersion::V2_0) => "pmx2.0",
            Target::Pmx(PmxVersion::V2_1) => "pmx2.1",
            Target::Pmd => "pmd",
        }
    }
}

/// How to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOptions {
    /// The file the model is meant for; `None`: PMX in the model's own version.
    pub target: Option<Target>,
    /// At most this many issues of one code are listed one by one; the rest are summed up in
    /// one more issue (whose fix covers them all), so a broken 1,000,000-vertex model gives a
    /// readable report.
    pub max_issues_per_code: usize,
    /// The folder of the model's file: texture paths are looked up there (missing, unreadable
    /// and wrongly cased texture files). `None`: texture files are not checked (a model not
    /// saved yet, or a check of the data alone).
    pub model_dir: Option<PathBuf>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        Self {
            target: None,
            max_issues_per_code: 100,
            model_dir: None,
        }
    }
}

impl CheckOptions {
    /// The default options with the textures looked up next to the file at `model_path`.
    #[must_use]
    pub fn for_file(model_path: &Path) -> Self {
        Self {
            model_dir: Some(crate::formats::folder_of(model_path).to_path_buf()),
            ..Self::default()
        }
    }
}

/// What rules see.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    pub model: &'a Model,
    /// The reader's report, when checking a model as read from a file (enables the rules about
    /// the file itself: index sizes in the header, recovered damage, face index count).
    pub report: Option<&'a LoadReport>,
    /// The target: the given one, or PMX in the model's version.
    pub target: Target,
    pub options: &'a CheckOptions,
}

impl<'a> Context<'a> {
    #[must_use]
    pub fn new(
        model: &'a Model,
        report: Option<&'a LoadReport>,
        options: &'a CheckOptions,
    ) -> Self {
        Self {
            model,
            report,
            target: options.target.unwrap_or(Target::Pmx(model.header.version)),
            options,
        }
    }
}

/// A group of checks. Rules are independent and may run in any order.
pub trait Rule: Send + Sync + fmt::Debug {
    /// A short name (`references`).
    fn name(&self) -> &'static str;
    /// The codes this rule may report.
    fn codes(&self) -> &'static [&'static str];
    /// Appends what it finds to `out`.
    fn check(&self, cx: &Context<'_>, out: &mut Vec<Issue>);
    /// What the rule reads: after edits, [`Registry::recheck`] runs it again only when they
    /// changed some of it. Everything unless the rule says less.
    fn reads(&self) -> Reads {
        Reads::EVERYTHING
    }
    /// Appends what it finds to `out` as [`Rule::check`] does, keeping what it finds in each
    /// vertex or face in `memo` and looking again only at those in `dirty` (all of them when
    /// `None`). Rules that scan the mesh implement this (and `check` through it); the others
    /// check everything.
    fn check_memo(
        &self,
        cx: &Context<'_>,
        memo: &mut RuleMemo,
        dirty: Option<&Dirty>,
        out: &mut Vec<Issue>,
    ) {
        let _ = (memo, dirty);
        self.check(cx, out);
    }
}

/// The set of rules a check runs.
#[derive(Debug)]
pub struct Registry {
    rules: Vec<Box<dyn Rule>>,
}

impl Default for Registry {
    fn default() -> Self {
        Self::standard()
    }
}

impl Registry {
    /// Every rule of this module.
    #[must_use]
    pub fn standard() -> Self {
        Self {
            rules: vec![
                Box::new(load::LoadRule),
                Box::new(index_size::IndexSizeRule),
                Box::new(version::VersionRule),
                Box::new(references::ReferenceRule),
                Box::new(geometry::ValueRule),
                Box::new(geometry::VertexRule),
                Box::new(geometry::FaceRule),
                Box::new(geometry::MaterialRule),
                Box::new(bones::BoneRule),
                Box::new(bones::PhysicsRule),
                Box::new(names::NameRule),
                Box::new(frames::DisplayFrameRule),
                Box::new(target::PmdTargetRule),
                Box::new(target::MmdCompatibilityRule),
                Box::new(textures::TextureFileRule),
            ],
        }
    }

    /// An empty registry, to add chosen rules to.
    #[must_use]
    pub fn empty() -> Self {
        Self { rules: Vec::new() }
    }

    pub fn add(&mut self, rule: Box<dyn Rule>) -> &mut Self {
        self.rules.push(rule);
        self
    }

    pub fn rules(&self) -> impl Iterator<Item = &dyn Rule> {
        self.rules.iter().map(|rule| rule.as_ref() as &dyn Rule)
    }

    /// Runs every rule. Issues come errors first, then warnings, then info; within a severity
    /// in rule order and element order.
    #[must_use]
    pub fn check(
        &self,
        model: &Model,
        report: Option<&LoadReport>,
        options: &CheckOptions,
    ) -> Vec<Issue> {
        let cx = Context::new(model, report, options);
        let mut issues = Vec::new();
        for rule in &self.rules {
            let start = issues.len();
            rule.check(&cx, &mut issues);
            cap::cap_per_code(&mut issues, start, options.max_issues_per_code);
        }
        issues.sort_by_key(|issue| std::cmp::Reverse(issue.severity));
        issues
    }
}

/// Checks `model` with every rule (see [`Registry::check`]).
#[must_use]
pub fn check(model: &Model, report: Option<&LoadReport>, options: &CheckOptions) -> Vec<Issue> {
    Registry::standard().check(model, report, options)
}

/// What `pmx-studio check --recover` does with a PMX or PMD file's bytes (chosen by the magic),
/// without the texture files: read in recovery mode within `limits`, then every rule over what
/// was read. `None` for bytes that are neither, or whose header cannot be read.
///
/// The body of the `check_recover` fuzz target (`fuzz/`), which `tests/tests/recover_bounds.rs`
/// also runs over thousands of mutated files: both hold it to bounded time and memory.
#[must_use]
pub fn check_recovered(
    bytes: &[u8],
    limits: crate::formats::LoadLimits,
) -> Option<(Model, LoadReport, Vec<Issue>)> {
    use crate::formats::{FileFormat, LoadOptions, pmd, pmx};
    let format = if bytes.starts_with(pmx::MAGIC) || bytes.starts_with(b"Pmx ") {
        FileFormat::Pmx
    } else if bytes.starts_with(pmd::MAGIC) {
        FileFormat::Pmd
    } else {
        return None;
    };
    let options = LoadOptions {
        recover: true,
        limits,
        ..LoadOptions::default()
    };
    let (model, report) = crate::formats::read_bytes(bytes, format, &options).ok()?;
    let issues = check(&model, Some(&report), &CheckOptions::default());
    Some((model, report, issues))
}

/// Counts of issues by severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    pub fixable: usize,
}

impl Summary {
    #[must_use]
    pub fn of(issues: &[Issue]) -> Self {
        let mut summary = Self::default();
        for issue in issues {
            match issue.severity {
                Severity::Error => summary.errors += 1,
                Severity::Warning => summary.warnings += 1,
                Severity::Info => summary.infos += 1,
            }
            if issue.fix.is_some() {
                summary.fixable += 1;
            }
        }
        summary
    }
}
