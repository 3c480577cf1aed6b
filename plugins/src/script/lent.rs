//! What a run lends its script, and the small readers every part of the script API shares.
//!
//! The model and the selection are lent to the script's functions for one run through scoped
//! thread-locals (Rhai's functions must be `'static`; the model is borrowed): nothing is copied
//! up front, and each read converts one element or one field.

use crate::selection::{PluginSelection, kind_from_name};
use pmx_core::Model;
use pmx_core::edit::EditTarget;
use pmx_core::model::ElementKind;
use rhai::{Dynamic, EvalAltResult, INT, Position};

scoped_tls::scoped_thread_local!(pub(crate) static MODEL: Model);
scoped_tls::scoped_thread_local!(pub(crate) static SELECTION: PluginSelection);

/// `model` in a script: reads go to the model lent for the run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ModelView;

pub(crate) type ScriptResult<T> = Result<T, Box<EvalAltResult>>;

pub(crate) fn fail(message: impl Into<String>) -> Box<EvalAltResult> {
    EvalAltResult::ErrorRuntime(Dynamic::from(message.into()), Position::NONE).into()
}

pub(crate) fn with_model<T>(read: impl FnOnce(&Model) -> Result<T, String>) -> ScriptResult<T> {
    if !MODEL.is_set() {
        return Err(fail("the model can only be read while the script runs"));
    }
    MODEL.with(read).map_err(fail)
}

pub(crate) fn with_selection<T>(read: impl FnOnce(&PluginSelection) -> T) -> ScriptResult<T> {
    if !SELECTION.is_set() {
        return Err(fail("the selection can only be read while the script runs"));
    }
    Ok(SELECTION.with(read))
}

/// An element kind by name: `bone` or `bones`, `rigid_body`, ...
pub(crate) fn list_kind(name: &str) -> Result<ElementKind, String> {
    kind_from_name(name).ok_or_else(|| {
        format!(
            "\"{name}\" is not an element kind (vertex, face, texture, material, bone, morph, \
             display_frame, rigid_body, joint, soft_body)"
        )
    })
}

/// What `set` and `get` take: an element kind, or `header` / `info`.
pub(crate) fn edit_target(name: &str) -> Result<EditTarget, String> {
    match name.trim() {
        "header" => Ok(EditTarget::Header),
        "info" => Ok(EditTarget::Info),
        other => list_kind(other)
            .map(EditTarget::from)
            .map_err(|message| format!("{message}, or header / info")),
    }
}

pub(crate) fn plural(kind: ElementKind) -> &'static str {
    kind.list_name()
}

pub(crate) fn check_index(model: &Model, kind: ElementKind, index: usize) -> Result<(), String> {
    let count = model.count(kind);
    if index < count {
        Ok(())
    } else {
        Err(format!(
            "{} {index} does not exist (the model has {count} {})",
            kind.name(),
            plural(kind)
        ))
    }
}
/// The index of the first element named `name` (Japanese names first, then English; a texture
/// by its path), or -1: the selection grammar's lookup ([`pmx_core::select::element_by_name`]).
pub(crate) fn find_named(model: &Model, kind: ElementKind, name: &str) -> INT {
    pmx_core::select::element_by_name(model, kind, name).map_or(-1, to_int)
}

pub(crate) fn to_int(index: usize) -> INT {
    INT::try_from(index).unwrap_or(INT::MAX)
}
pub(crate) fn thousands(count: usize) -> String {
    pmx_core::edit::thousands(count)
}
pub(crate) fn noun(kind: ElementKind, count: usize) -> &'static str {
    if count == 1 {
        kind.name()
    } else {
        plural(kind)
    }
}
