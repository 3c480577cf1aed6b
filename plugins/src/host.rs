//! Running a plugin: check what it needs, run it on a read-only view, and build its batch into
//! one labelled edit the caller commits (the editor through its history, the command line by
//! applying it and saving).

use crate::api::{BatchStep, EditBatch, Needs, Note, Plugin, PluginContext, PluginInfo};
use crate::error::PluginError;
use crate::nouns::counted;
use crate::options::Options;
use crate::selection::PluginSelection;
use pmx_core::Model;
use pmx_core::edit::{Edit, EditLabel, Sequence, ops_to_edit_in};
use pmx_core::i18n::Language;
use pmx_core::pose::Pose;
use pmx_core::validate::FixStep;

/// A finished run: the edit (not yet applied), what the plugin said, and what each step does.
#[derive(Debug)]
pub struct PluginRun {
    pub edit: Edit,
    pub notes: Vec<Note>,
    /// One line per step, in both languages: the preview the editor shows before committing.
    pub steps: Vec<Note>,
}

impl PluginRun {
    /// The preview in `lang`: the plugin's notes, then its steps.
    #[must_use]
    pub fn preview(&self, lang: Language) -> Vec<String> {
        self.notes
            .iter()
            .chain(&self.steps)
            .map(|note| note.text(lang).to_owned())
            .collect()
    }
}

/// Refuses a run whose selection does not meet what the plugin needs.
pub fn check_needs(info: &PluginInfo, selection: &PluginSelection) -> Result<(), PluginError> {
    match info.needs {
        Needs::Selected(kind) if selection.get(kind).is_empty() => {
            Err(PluginError::NothingSelected { kind: kind.name() })
        }
        _ => Ok(()),
    }
}

/// Runs `plugin` on `model` and builds its edit, labelled with the plugin's name. `model` is
/// unchanged on return (the steps are applied while they are built, each on the model the
/// previous ones leave, and undone again); apply the edit to make the change.
pub fn run_plugin(
    plugin: &dyn Plugin,
    model: &mut Model,
    selection: &PluginSelection,
    options: &Options,
) -> Result<PluginRun, PluginError> {
    run_plugin_posed(plugin, model, selection, options, None)
}

/// [`run_plugin`] with the pose the host shows (the editor's pose pane), for the tools that
/// read it (a morph from the pose, a group morph of the preview values).
pub fn run_plugin_posed(
    plugin: &dyn Plugin,
    model: &mut Model,
    selection: &PluginSelection,
    options: &Options,
    pose: Option<&Pose>,
) -> Result<PluginRun, PluginError> {
    let info = plugin.info();
    check_needs(&info, selection)?;
    let output = plugin.run(&PluginContext::new(model, selection, options).with_pose(pose))?;
    if output.batch.is_empty() {
        return Err(PluginError::NoChange);
    }
    let steps = describe(&output.batch);
    let label = EditLabel::both(info.name_en.clone(), info.name_ja.clone());
    let edit = build_edit(model, label, output.batch)?;
    Ok(PluginRun {
        edit,
        notes: output.notes,
        steps,
    })
}

/// Builds the steps of `batch` in order into one edit named `label` (`model` unchanged on
/// return).
pub fn build_edit(
    model: &mut Model,
    label: EditLabel,
    batch: EditBatch,
) -> Result<Edit, PluginError> {
    let mut sequence = Sequence::new(model);
    for (step, batch_step) in batch.steps.into_iter().enumerate() {
        let what = step_name(&batch_step);
        let built = match batch_step {
            BatchStep::Typed(fix_step) => {
                let fix = pmx_core::validate::Fix::new("", "", vec![fix_step]);
                fix.to_edit(sequence.model_mut())
            }
            BatchStep::Op(op) => ops_to_edit_in(sequence.model_mut(), &[op], None, None),
            BatchStep::Build { build, .. } => build(sequence.model_mut()),
        };
        let edit = match built {
            Ok(edit) => edit,
            // A step with nothing to change (a weight brush over full weights) adds no step.
            Err(pmx_core::edit::EditError::NoChange) => continue,
            Err(source) => {
                return Err(PluginError::Step {
                    step,
                    what,
                    source: Box::new(source),
                });
            }
        };
        sequence.push(edit);
    }
    if sequence.is_empty() {
        return Err(PluginError::NoChange);
    }
    Ok(sequence.finish(label.clone()).with_label(label))
}

fn step_name(step: &BatchStep) -> String {
    match step {
        BatchStep::Typed(step) => step.name().to_owned(),
        BatchStep::Op(op) => op.name().to_owned(),
        BatchStep::Build { what, .. } => what.en.clone(),
    }
}

/// One line per step of `batch`: what it sets, inserts, moves or deletes, and how many.
#[must_use]
pub fn describe(batch: &EditBatch) -> Vec<Note> {
    batch
        .steps
        .iter()
        .map(|step| match step {
            BatchStep::Typed(FixStep::Set(set)) => {
                let (en, ja) = counted(set.indices().len().max(1), set.target().name());
                // The English line keeps the script's own path; the Japanese one says the field
                // in PmxEditor's words ("weight" is ウェイト, `position.y` is 位置Y).
                let path_en = set.path().to_string();
                let path_ja = pmx_core::edit::field_words(Language::Japanese, set.path());
                Note::new(
                    format!("set {path_en} of {en}"),
                    format!("{ja}の{path_ja}を設定"),
                )
            }
            BatchStep::Typed(FixStep::Insert { elements, .. }) => {
                let kind = elements.kind().map_or("element", |kind| kind.name());
                let (en, ja) = counted(elements.len(), kind);
                Note::new(format!("insert {en}"), format!("{ja}を追加"))
            }
            BatchStep::Typed(FixStep::MoveTo { kind, indices, to }) => {
                let (en, ja) = counted(indices.len(), kind.name());
                Note::new(format!("move {en} to {to}"), format!("{ja}を {to} へ移動"))
            }
            BatchStep::Typed(FixStep::Delete { kind, indices }) => {
                let (en, ja) = counted(indices.len(), kind.name());
                Note::new(format!("delete {en}"), format!("{ja}を削除"))
            }
            BatchStep::Op(op) => {
                let text = serde_json::to_string(op).unwrap_or_else(|_| op.name().to_owned());
                let short: String = text.chars().take(160).collect();
                Note::new(short.clone(), short)
            }
            BatchStep::Build { what, .. } => what.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::builtin::normals::FlipNormals;
    use pmx_core::generate::sample_model;
    use pmx_core::model::ElementKind;

    #[test]
    fn a_run_is_one_edit_named_after_the_plugin_and_undoes_exactly() {
        let mut model = sample_model();
        let before = model.clone();
        let selection = PluginSelection::new().with(ElementKind::Vertex, vec![0, 2]);
        let mut run =
            run_plugin(&FlipNormals, &mut model, &selection, &Options::default()).unwrap();
        assert!(
            model == before,
            "running builds the edit and changes nothing"
        );
        assert_eq!(run.edit.label_in(Language::English), "Flip normals");
        assert_eq!(run.edit.label_in(Language::Japanese), "法線反転");
        assert_eq!(run.preview(Language::English)[0], "2 normals flipped");
        run.edit.apply(&mut model);
        assert_eq!(model.vertices[0].normal.y, -before.vertices[0].normal.y);
        assert_eq!(model.vertices[1].normal, before.vertices[1].normal);
        assert_eq!(model.vertices[2].normal.x, -before.vertices[2].normal.x);
        run.edit.revert(&mut model);
        assert!(model == before);
    }

    #[test]
    fn a_failed_step_leaves_the_model_as_it_was() {
        let mut model = sample_model();
        let before = model.clone();
        let mut batch = EditBatch::new();
        batch.push(FixStep::Delete {
            kind: ElementKind::Bone,
            indices: vec![0],
        });
        batch.push(FixStep::Delete {
            kind: ElementKind::Bone,
            indices: vec![usize::MAX],
        });
        let error = build_edit(&mut model, EditLabel::text("x"), batch).unwrap_err();
        assert!(
            matches!(error, PluginError::Step { step: 1, .. }),
            "{error}"
        );
        assert!(model == before);
    }
}
