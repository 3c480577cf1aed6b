//! The morph tools as script calls: `split_morph(morph, #{...})`, `mirror_morph(morph,
//! #{...})`, `morph_from_pose(#{...})`, `group_morph(#{...})` and `morph_from_model(#{...})`,
//! each queueing the edit op of the same name (read through the op's own JSON form, so that
//! scripts and edit scripts agree).
//!
//! Scripts cannot read files (see the module documentation of [`super`]), so the two calls
//! that would read one refuse it where they are called: `morph_from_model` always (its only
//! input is another model file), `morph_from_pose` when given a `vpd`; a script gives the pose
//! inline instead (`morphs` and `bones` by name). The built-in tools and edit scripts, which
//! the user points at a file themselves, read files.

use super::lent::{ScriptResult, fail, thousands};
use super::queue::{RunState, slot};
use super::values::dynamic_to_json;
use pmx_core::edit::EditOp;
use pmx_core::model::ElementKind;
use rhai::{Dynamic, Engine, NativeCallContext};
use std::sync::Arc;

/// The op `name` of `parts` (and `morph`, for the calls on one morph), with the bytes its
/// values take.
fn morph_op(
    name: &str,
    morph: Option<&Dynamic>,
    parts: &rhai::Map,
    hint: &str,
) -> Result<(EditOp, usize), String> {
    let mut bytes = 0;
    let mut object = serde_json::Map::new();
    object.insert("op".into(), name.into());
    if let Some(morph) = morph {
        object.insert("morph".into(), dynamic_to_json(morph, &mut bytes)?);
    }
    for (key, value) in parts {
        if key.as_str() == "op" || (morph.is_some() && key.as_str() == "morph") {
            return Err(format!("{name}: \"{key}\" is not an option here"));
        }
        object.insert(key.to_string(), dynamic_to_json(value, &mut bytes)?);
    }
    let op = serde_json::from_value(serde_json::Value::Object(object))
        .map_err(|e| format!("{name}: {e} ({hint})"))?;
    Ok((op, bytes))
}

/// How many morphs a queued op adds (for the index checks of the calls after it); a mirror
/// copy may replace an existing morph instead, which only the build knows: it counts one.
fn morphs_added(op: &EditOp) -> usize {
    match op {
        EditOp::SplitMorph(_) => 2,
        EditOp::MirrorMorph(mirror) => {
            usize::from(mirror.mode == pmx_core::edit::MirrorMode::MirrorCopy)
        }
        EditOp::MorphFromPose(_) | EditOp::MorphFromModel(_) => 1,
        EditOp::GroupMorphFromSelection(_) => 1,
        _ => 0,
    }
}

/// Queues `op` (whose summary is `summary`), first checking the morph it names.
fn queue_morph_op(
    run: &RunState,
    context: &NativeCallContext<'_>,
    (op, bytes): (EditOp, usize),
    summary: String,
) -> ScriptResult<()> {
    let named = match &op {
        EditOp::SplitMorph(split) => Some(&split.morph),
        EditOp::MirrorMorph(mirror) => Some(&mirror.morph),
        _ => None,
    };
    if let Some(pmx_core::edit::MorphRef::Index(index)) = named {
        run.check_indices(ElementKind::Morph, &[*index])
            .map_err(fail)?;
    }
    let added = morphs_added(&op);
    run.push(context, op, bytes, summary)?;
    run.queue().counts[slot(ElementKind::Morph)] += added;
    Ok(())
}

const SPLIT_HINT: &str = "give suffix_left, suffix_right, blend_width";
const MIRROR_HINT: &str =
    "give mode (\"mirror_copy\" or \"symmetrize\"), tolerance, from (\"left\" or \"right\")";
const POSE_HINT: &str = "give name, and optionally morphs (#{name: value}), bones (#{name: #{rotate: [x, y, z], move: [x, y, z]}}), panel, threshold";
const GROUP_HINT: &str =
    "give name, morphs ([#{morph: index or name, ratio: 1.0}, ...]), and optionally panel";

/// Registers the morph calls.
pub(super) fn register(engine: &mut Engine, state: &Arc<RunState>) {
    let run = Arc::clone(state);
    engine.register_fn(
        "split_morph",
        move |context: NativeCallContext<'_>, morph: Dynamic, parts: rhai::Map| {
            let op = morph_op("split_morph", Some(&morph), &parts, SPLIT_HINT).map_err(fail)?;
            queue_morph_op(&run, &context, op, format!("split morph {morph}"))
        },
    );
    let run = Arc::clone(state);
    engine.register_fn(
        "mirror_morph",
        move |context: NativeCallContext<'_>, morph: Dynamic, parts: rhai::Map| {
            let op = morph_op("mirror_morph", Some(&morph), &parts, MIRROR_HINT).map_err(fail)?;
            queue_morph_op(&run, &context, op, format!("mirror morph {morph}"))
        },
    );
    let run = Arc::clone(state);
    engine.register_fn(
        "morph_from_pose",
        move |context: NativeCallContext<'_>, parts: rhai::Map| -> ScriptResult<()> {
            if parts.contains_key("vpd") {
                return Err(fail(
                    "morph_from_pose: scripts cannot read files, so a vpd cannot be given; \
                     give the pose inline (morphs: #{name: value}, bones: #{name: #{rotate: \
                     [x, y, z], move: [x, y, z]}}), or use ツール > モーフ or an edit script"
                        .to_owned(),
                ));
            }
            let op = morph_op("morph_from_pose", None, &parts, POSE_HINT).map_err(fail)?;
            let summary = match &op.0 {
                EditOp::MorphFromPose(pose) => format!("morph \"{}\" from a pose", pose.name),
                _ => String::new(),
            };
            queue_morph_op(&run, &context, op, summary)
        },
    );
    engine.register_fn("morph_from_model", |_: rhai::Map| -> ScriptResult<()> {
        Err(fail(
            "morph_from_model: scripts cannot read files, and this call reads another \
                 model file; use ツール > モーフ > モデルからモーフ, `pmx-studio run \
                 morph_from_model`, or an edit script's morph_from_model op"
                .to_owned(),
        ))
    });
    let run = Arc::clone(state);
    engine.register_fn(
        "group_morph",
        move |context: NativeCallContext<'_>, parts: rhai::Map| -> ScriptResult<()> {
            let op =
                morph_op("group_morph_from_selection", None, &parts, GROUP_HINT).map_err(fail)?;
            let summary = match &op.0 {
                EditOp::GroupMorphFromSelection(group) => format!(
                    "group morph \"{}\" of {} morphs",
                    group.name,
                    thousands(group.morphs.len())
                ),
                _ => String::new(),
            };
            queue_morph_op(&run, &context, op, summary)
        },
    );
}
