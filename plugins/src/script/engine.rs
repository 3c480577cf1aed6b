//! The Rhai engine a script runs in: what a script can do (read the model, the selection and
//! its options; queue edits and notes), what it cannot (read or write files, run programs,
//! `import`, `eval`, `sleep`), and the limits that stop it (time, the Stop button, operations,
//! sizes, queued edits).
//!
//! The model is lent to the script's functions for one run ([`super::lent`]): nothing is
//! copied up front, and each read converts one element or one field. This file holds version
//! 1's calls, which version 2 keeps; version 2's objects are registered by [`super::typed`]
//! for scripts that declare it.

use super::lent::{
    MODEL, ModelView, SELECTION, ScriptResult, check_index, edit_target, fail, find_named,
    list_kind, noun, plural, thousands, to_int, with_model, with_selection,
};
use super::queue::{
    Origin, QueuedEdit, RunState, SetValues, Setter, check_item, queue_insert, queue_set, slot,
};
use super::typed;
use super::values::{dynamic_to_json, index_of, indices_of, json_to_dynamic};
use super::written::{WRITTEN, Written};
use super::{ScriptLimits, file_name};
use crate::api::{Note, PluginContext, PluginError};
use pmx_core::Model;
use pmx_core::edit::{EditOp, FieldPath, get_field, get_path};
use pmx_core::model::ElementKind;
use pmx_core::path::ModelPath;
use rhai::{
    AST, Array, Dynamic, Engine, EvalAltResult, FLOAT, INT, ImmutableString, Module,
    NativeCallContext,
};
use std::cell::RefCell;
use std::sync::Arc;

/// How deep script functions may call each other (a recursion without an end stops here).
pub const MAX_CALL_LEVELS: usize = 64;
/// How deeply expressions may nest (at the top level, and inside functions).
pub const MAX_EXPR_DEPTH: usize = 64;
pub const MAX_FUNCTION_EXPR_DEPTH: usize = 32;
/// The longest string a script may build, in bytes.
pub const MAX_STRING_BYTES: usize = 1 << 20;
/// The most items one array may hold: enough for every vertex of a large model.
pub const MAX_ARRAY_ITEMS: usize = 10_000_000;
/// The most entries one map may hold.
pub const MAX_MAP_ENTRIES: usize = 100_000;
/// The time limit and the Stop flag are looked at every this many operations (about 20 µs of
/// script work), so a stop takes effect at once without a clock read per operation.
const CHECK_EVERY_OPERATIONS: u64 = 256;

fn element(kind: &str, index: INT) -> ScriptResult<Dynamic> {
    let kind = list_kind(kind).map_err(fail)?;
    let index = index_of(index).map_err(fail)?;
    with_model(|model| {
        check_index(model, kind, index)?;
        get_field(model, kind.into(), index, "")
            .map(|value| json_to_dynamic(&value))
            .map_err(|error| error.to_string())
    })
}

fn field_of(kind: &str, index: INT, field: &str) -> ScriptResult<Dynamic> {
    let target = edit_target(kind).map_err(fail)?;
    let index = index_of(index).map_err(fail)?;
    with_model(|model| {
        if let Some(kind) = target.element_kind() {
            check_index(model, kind, index)?;
            if field == "position"
                && let Some(position) = finite_position(model, kind, index)
            {
                return Ok(position);
            }
        }
        get_field(model, target, index, field)
            .map(|value| json_to_dynamic(&value))
            .map_err(|error| error.to_string())
    })
}

/// The `position` of a vertex, bone, rigid body or joint read straight from the model: what a
/// loop over every vertex reads, and the same value as its JSON form gives (non-finite values,
/// which the JSON form writes as strings, take the JSON path).
fn finite_position(model: &Model, kind: ElementKind, index: usize) -> Option<Dynamic> {
    let position = match kind {
        ElementKind::Vertex => model.vertices.get(index)?.position,
        ElementKind::Bone => model.bones.get(index)?.position,
        ElementKind::RigidBody => model.rigid_bodies.get(index)?.position,
        ElementKind::Joint => model.joints.get(index)?.position,
        _ => return None,
    };
    let axes = [position.x, position.y, position.z];
    axes.iter().all(|value| value.is_finite()).then(|| {
        Dynamic::from_array(
            axes.iter()
                .map(|&value| Dynamic::from_float(FLOAT::from(value)))
                .collect(),
        )
    })
}

fn at_path(path: &str) -> ScriptResult<Dynamic> {
    let path = ModelPath::parse(path).map_err(|error| fail(error.to_string()))?;
    with_model(|model| {
        get_path(model, &path)
            .map(|value| json_to_dynamic(&value))
            .map_err(|error| error.to_string())
    })
}

/// The engine that compiles scripts: the language without the ways out (files, `eval`).
pub(crate) fn compile_engine() -> Engine {
    let mut engine = Engine::new();
    // `import` reads a file: refused when the script is compiled, and a resolver that finds
    // nothing behind it.
    engine.set_module_resolver(rhai::module_resolvers::DummyModuleResolver::new());
    engine.disable_symbol("import");
    engine.disable_symbol("eval");
    engine.set_max_expr_depths(MAX_EXPR_DEPTH, MAX_FUNCTION_EXPR_DEPTH);
    engine.set_max_call_levels(MAX_CALL_LEVELS);
    engine.set_max_string_size(MAX_STRING_BYTES);
    engine.set_max_array_size(MAX_ARRAY_ITEMS);
    engine.set_max_map_size(MAX_MAP_ENTRIES);
    engine.set_max_modules(0);
    // `bone.nmae` is an error, not ().
    engine.set_fail_on_invalid_map_property(true);
    engine.on_print(|_| {});
    engine.on_debug(|_, _, _| {});
    engine
}

/// The engine of one run: the compile engine plus the script API, the limits and the stop.
fn run_engine(state: &Arc<RunState>, options: Dynamic, api_version: u32) -> Engine {
    let mut engine = compile_engine();
    engine.set_max_operations(state.limits.max_operations);
    {
        let state = Arc::clone(state);
        engine.on_progress(move |operations| {
            if operations % CHECK_EVERY_OPERATIONS != 0 {
                return None;
            }
            state.stop_reason().map(Dynamic::from)
        });
    }
    {
        let state = Arc::clone(state);
        engine.on_print(move |text| {
            // A note that cannot be added is dropped: print has no way to fail.
            let _ = state.note(text, text);
        });
    }
    {
        let state = Arc::clone(state);
        engine.on_debug(move |text, _, _| {
            let _ = state.note(text, text);
        });
    }
    // `sleep` would hold the thread where neither the time limit nor Stop can reach it.
    engine.register_fn("sleep", |_: INT| -> ScriptResult<()> {
        Err(fail("sleep is not available in scripts"))
    });
    engine.register_fn("sleep", |_: FLOAT| -> ScriptResult<()> {
        Err(fail("sleep is not available in scripts"))
    });

    register_model(&mut engine, api_version);
    register_selection(&mut engine);
    register_edits(&mut engine, state);
    super::morphs::register(&mut engine, state);
    if api_version >= 2 {
        typed::register(&mut engine, state);
    }

    let mut globals = Module::new();
    globals.set_var("model", ModelView);
    globals.set_var("options", options);
    engine.register_global_module(globals.into());
    engine
}

/// `model` in a script: version 1's calls, and in version 2 its lists of elements and the header
/// and info as places.
fn register_model(engine: &mut Engine, api_version: u32) {
    engine.register_type_with_name::<ModelView>("Model");
    engine.register_fn("to_string", |_: &mut ModelView| -> ScriptResult<String> {
        with_model(|model| {
            Ok(format!(
                "Model({} vertices, {} bones, {} morphs)",
                model.vertices.len(),
                model.bones.len(),
                model.morphs.len()
            ))
        })
    });
    engine.register_fn(
        "count",
        |_: &mut ModelView, kind: &str| -> ScriptResult<INT> {
            let kind = list_kind(kind).map_err(fail)?;
            with_model(|model| Ok(to_int(model.count(kind))))
        },
    );
    engine.register_fn(
        "element",
        |_: &mut ModelView, kind: &str, index: INT| -> ScriptResult<Dynamic> {
            element(kind, index)
        },
    );
    macro_rules! element_reader {
        ($($name:literal),*) => {$(
            engine.register_fn($name, |_: &mut ModelView, index: INT| -> ScriptResult<Dynamic> {
                element($name, index)
            });
        )*};
    }
    element_reader!(
        "vertex",
        "face",
        "texture",
        "material",
        "bone",
        "morph",
        "display_frame",
        "rigid_body",
        "joint",
        "soft_body"
    );
    engine.register_fn(
        "get",
        |_: &mut ModelView, kind: &str, index: INT, field: &str| -> ScriptResult<Dynamic> {
            field_of(kind, index, field)
        },
    );
    engine.register_fn(
        "get",
        |_: &mut ModelView, path: &str| -> ScriptResult<Dynamic> { at_path(path) },
    );
    if api_version < 2 {
        engine.register_get("header", |_: &mut ModelView| -> ScriptResult<Dynamic> {
            field_of("header", 0, "")
        });
        engine.register_get("info", |_: &mut ModelView| -> ScriptResult<Dynamic> {
            field_of("info", 0, "")
        });
    }
    macro_rules! finder {
        ($($name:literal => $kind:expr),*) => {$(
            engine.register_fn($name, |_: &mut ModelView, name: &str| -> ScriptResult<INT> {
                with_model(|model| Ok(find_named(model, $kind, name)))
            });
        )*};
    }
    finder!(
        "find_bone" => ElementKind::Bone,
        "find_morph" => ElementKind::Morph,
        "find_material" => ElementKind::Material,
        "find_rigid_body" => ElementKind::RigidBody,
        "find_joint" => ElementKind::Joint,
        "find_display_frame" => ElementKind::DisplayFrame,
        "find_soft_body" => ElementKind::SoftBody
    );
}

fn register_selection(engine: &mut Engine) {
    fn as_array(indices: &[usize]) -> ScriptResult<Array> {
        if indices.len() > MAX_ARRAY_ITEMS {
            return Err(fail(format!(
                "{} elements are selected; a script's arrays hold at most {}",
                thousands(indices.len()),
                thousands(MAX_ARRAY_ITEMS)
            )));
        }
        Ok(indices
            .iter()
            .map(|&index| Dynamic::from_int(to_int(index)))
            .collect())
    }
    // The one selection grammar (`vertices:linked:12`, `bones:children:左腕`), answered on
    // the model as the run was given it (not the script's own queued edits).
    engine.register_fn("select", |query: &str| -> ScriptResult<Array> {
        with_model(|model| {
            pmx_core::select::parse_query(model, query)
                .map(|(_, indices)| indices)
                .map_err(|error| error.to_string())
        })
        .and_then(|indices| as_array(&indices))
    });
    engine.register_fn("selected", |kind: &str| -> ScriptResult<Array> {
        let kind = list_kind(kind).map_err(fail)?;
        with_selection(|selection| as_array(selection.get(kind)))?
    });
    engine.register_fn("selected_or_all", |kind: &str| -> ScriptResult<Array> {
        let kind = list_kind(kind).map_err(fail)?;
        let selected = with_selection(|selection| selection.get(kind).to_vec())?;
        with_model(|model| {
            let count = model.count(kind);
            Ok(if selected.is_empty() {
                (0..count).collect::<Vec<_>>()
            } else {
                selected
                    .into_iter()
                    .filter(|&index| index < count)
                    .collect()
            })
        })
        .and_then(|indices| as_array(&indices))
    });
    engine.register_fn(
        "is_selected",
        |kind: &str, index: INT| -> ScriptResult<bool> {
            let kind = list_kind(kind).map_err(fail)?;
            let Ok(index) = usize::try_from(index) else {
                return Ok(false);
            };
            with_selection(|selection| selection.get(kind).binary_search(&index).is_ok())
        },
    );
}

/// The JSON form of a new element of `kind` with nothing set, which an inserted map is laid
fn register_edits(engine: &mut Engine, state: &Arc<RunState>) {
    engine.register_type_with_name::<Setter>("Setter");
    let run = Arc::clone(state);
    engine.register_fn(
        "setter",
        move |context: NativeCallContext<'_>, kind: &str, field: &str| -> ScriptResult<Setter> {
            let kind = list_kind(kind).map_err(fail)?;
            let path = FieldPath::parse(field)
                .map_err(|error| fail(format!("field \"{field}\": {error}")))?;
            let field = path.to_string();
            run.push(
                &context,
                EditOp::Set {
                    kind: kind.into(),
                    indices: Vec::new(),
                    field: field.clone(),
                    value: None,
                    values: Some(Vec::new()),
                },
                0,
                format!("set {field} of 0 {}", plural(kind)),
            )?;
            let mut queue = run.queue();
            let slot = queue.edits.len() - 1;
            if let Some(edit) = queue.edits.last_mut() {
                edit.origin = Origin::Setter;
            }
            Ok(Setter { slot, kind, field })
        },
    );
    let run = Arc::clone(state);
    engine.register_fn(
        "set",
        move |setter: &mut Setter, index: INT, value: Dynamic| -> ScriptResult<()> {
            run.setter_add(setter, index, &value)
        },
    );
    let run = Arc::clone(state);
    engine.register_get("len", move |setter: &mut Setter| -> INT {
        match run.queue().edits.get(setter.slot).map(|edit| &edit.op) {
            Some(EditOp::Set { indices, .. }) => to_int(indices.len()),
            _ => 0,
        }
    });

    // set(kind, index or indices, field, value)
    let run = Arc::clone(state);
    engine.register_fn(
        "set",
        move |context: NativeCallContext<'_>,
              kind: &str,
              indices: Dynamic,
              field: &str,
              value: Dynamic|
              -> ScriptResult<()> {
            let target = edit_target(kind).map_err(fail)?;
            let indices = match target.element_kind() {
                None => Vec::new(),
                Some(kind) => {
                    let indices = indices_of(&indices).map_err(fail)?;
                    run.check_indices(kind, &indices).map_err(fail)?;
                    indices
                }
            };
            queue_set(
                &run,
                &context,
                target,
                indices,
                field,
                SetValues::Same(&value),
            )
        },
    );
    // set(kind, field, value) for header and info.
    let run = Arc::clone(state);
    engine.register_fn(
        "set",
        move |context: NativeCallContext<'_>,
              kind: &str,
              field: &str,
              value: Dynamic|
              -> ScriptResult<()> {
            let target = edit_target(kind).map_err(fail)?;
            if !target.is_single() {
                return Err(fail(format!(
                    "set(\"{kind}\", ...) needs the indices: set(\"{kind}\", index, field, value)"
                )));
            }
            queue_set(
                &run,
                &context,
                target,
                Vec::new(),
                field,
                SetValues::Same(&value),
            )
        },
    );
    // set_each(kind, indices, field, values): one value per index, one edit.
    let run = Arc::clone(state);
    engine.register_fn(
        "set_each",
        move |context: NativeCallContext<'_>,
              kind: &str,
              indices: Array,
              field: &str,
              values: Array|
              -> ScriptResult<()> {
            let kind = list_kind(kind).map_err(fail)?;
            let indices = indices_of(&Dynamic::from_array(indices)).map_err(fail)?;
            if indices.len() != values.len() {
                return Err(fail(format!(
                    "set_each: {} indices but {} values (one value per index)",
                    indices.len(),
                    values.len()
                )));
            }
            run.check_indices(kind, &indices).map_err(fail)?;
            queue_set(
                &run,
                &context,
                kind.into(),
                indices,
                field,
                SetValues::Each(&values),
            )
        },
    );
    let run = Arc::clone(state);
    engine.register_fn(
        "insert",
        move |context: NativeCallContext<'_>, kind: &str, element: Dynamic| -> ScriptResult<INT> {
            let kind = list_kind(kind).map_err(fail)?;
            queue_insert(&run, &context, kind, None, &element)
        },
    );
    let run = Arc::clone(state);
    engine.register_fn(
        "insert_at",
        move |context: NativeCallContext<'_>,
              kind: &str,
              at: INT,
              element: Dynamic|
              -> ScriptResult<INT> {
            let kind = list_kind(kind).map_err(fail)?;
            let at = index_of(at).map_err(fail)?;
            queue_insert(&run, &context, kind, Some(at), &element)
        },
    );
    let run = Arc::clone(state);
    engine.register_fn(
        "insert_faces",
        move |context: NativeCallContext<'_>, material: INT, faces: Array| -> ScriptResult<INT> {
            let material = index_of(material).map_err(fail)?;
            run.check_indices(ElementKind::Material, &[material])
                .map_err(fail)?;
            let mut bytes = 0;
            let items = faces
                .iter()
                .map(|face| {
                    let item = dynamic_to_json(face, &mut bytes)?;
                    check_item(ElementKind::Face, &item)?;
                    Ok(item)
                })
                .collect::<Result<Vec<_>, String>>()
                .map_err(fail)?;
            let count = items.len();
            let summary = format!("insert {} faces into material {material}", thousands(count));
            run.push(
                &context,
                EditOp::Insert {
                    kind: ElementKind::Face,
                    at: None,
                    items,
                    material: Some(material),
                    faces: None,
                },
                bytes,
                summary,
            )?;
            run.queue().counts[slot(ElementKind::Face)] += count;
            Ok(to_int(count))
        },
    );
    let run = Arc::clone(state);
    engine.register_fn(
        "delete",
        move |context: NativeCallContext<'_>, kind: &str, indices: Dynamic| -> ScriptResult<()> {
            let kind = list_kind(kind).map_err(fail)?;
            let mut indices = indices_of(&indices).map_err(fail)?;
            run.check_indices(kind, &indices).map_err(fail)?;
            indices.sort_unstable();
            indices.dedup();
            if indices.is_empty() {
                return Ok(());
            }
            let count = indices.len();
            let summary = format!("delete {} {}", thousands(count), noun(kind, count));
            let bytes = count * std::mem::size_of::<usize>();
            run.push(
                &context,
                EditOp::Delete {
                    kind,
                    indices,
                    remove_unused_vertices: false,
                },
                bytes,
                summary,
            )?;
            let mut queue = run.queue();
            let left = queue.counts[slot(kind)].saturating_sub(count);
            queue.counts[slot(kind)] = left;
            Ok(())
        },
    );
    let run = Arc::clone(state);
    engine.register_fn(
        "transform",
        move |context: NativeCallContext<'_>,
              kind: &str,
              indices: Dynamic,
              parts: rhai::Map|
              -> ScriptResult<()> {
            let kind = list_kind(kind).map_err(fail)?;
            let mut indices = indices_of(&indices).map_err(fail)?;
            run.check_indices(kind, &indices).map_err(fail)?;
            indices.sort_unstable();
            indices.dedup();
            if indices.is_empty() {
                return Ok(());
            }
            let op = transform_op(kind, indices, &parts).map_err(fail)?;
            let count = match &op {
                EditOp::Transform { indices, .. } => indices.len(),
                _ => 0,
            };
            let summary = format!("transform {} {}", thousands(count), noun(kind, count));
            run.push(&context, op, count * std::mem::size_of::<usize>(), summary)
        },
    );
    let run = Arc::clone(state);
    engine.register_fn(
        "paint_weights",
        move |context: NativeCallContext<'_>, stroke: rhai::Map| -> ScriptResult<()> {
            let (op, bytes) = paint_weights_op(&stroke).map_err(fail)?;
            let EditOp::PaintWeights(paint) = &op else {
                return Ok(());
            };
            run.check_indices(ElementKind::Vertex, &paint.vertices)
                .map_err(fail)?;
            let count = paint.vertices.len();
            let summary = format!(
                "paint the weights of {} {}",
                thousands(count),
                noun(ElementKind::Vertex, count)
            );
            run.push(&context, op, bytes, summary)
        },
    );
    let run = Arc::clone(state);
    engine.register_fn("note", move |text: ImmutableString| -> ScriptResult<()> {
        run.note(&text, &text)
    });
    let run = Arc::clone(state);
    engine.register_fn(
        "note",
        move |en: ImmutableString, ja: ImmutableString| -> ScriptResult<()> { run.note(&en, &ja) },
    );
}

/// The `transform` op of `transform(kind, indices, #{move: [x, y, z], rotate: [x, y, z],
/// scale: [x, y, z] or a number, pivot: [x, y, z]})` (every part optional, rotation in degrees),
/// read through the op's own JSON form so that scripts and edit scripts agree.
fn transform_op(
    kind: ElementKind,
    indices: Vec<usize>,
    parts: &rhai::Map,
) -> Result<EditOp, String> {
    let mut bytes = 0;
    let mut object = serde_json::Map::new();
    object.insert("op".into(), "transform".into());
    object.insert("kind".into(), kind.name().into());
    object.insert("indices".into(), indices.into());
    for (key, value) in parts {
        if !matches!(key.as_str(), "move" | "rotate" | "scale" | "pivot") {
            return Err(format!(
                "transform has no part \"{key}\" (parts: move, rotate, scale, pivot)"
            ));
        }
        object.insert(
            key.to_string(),
            super::values::dynamic_to_json(value, &mut bytes)?,
        );
    }
    serde_json::from_value(serde_json::Value::Object(object))
        .map_err(|e| format!("transform: {e} (give [x, y, z] numbers; scale may be one number)"))
}

/// The `paint_weights` op of `paint_weights(#{bone: "左腕", mode: "add", vertices: [...],
/// amounts: [...], mirror: false, max_bones: 4, locked: []})`, read through the op's own JSON
/// form so that scripts and edit scripts agree.
fn paint_weights_op(stroke: &rhai::Map) -> Result<(EditOp, usize), String> {
    let mut bytes = 0;
    let mut object = serde_json::Map::new();
    object.insert("op".into(), "paint_weights".into());
    for (key, value) in stroke {
        object.insert(
            key.to_string(),
            super::values::dynamic_to_json(value, &mut bytes)?,
        );
    }
    let op = serde_json::from_value(serde_json::Value::Object(object)).map_err(|e| {
        format!(
            "paint_weights: {e} (give bone (index or name), mode (add, subtract, set, smooth), \
             vertices, amounts (one per vertex), and optionally mirror, max_bones, locked)"
        )
    })?;
    Ok((op, bytes))
}

/// What a finished run left: the edits and notes in the order the script queued them.
#[derive(Debug)]
pub(crate) struct RunResult {
    pub edits: Vec<QueuedEdit>,
    pub notes: Vec<Note>,
}

/// Runs `ast` on the context's model, selection and options.
pub(crate) fn run(
    ast: &AST,
    file: &str,
    api_version: u32,
    cx: &PluginContext<'_>,
    limits: &ScriptLimits,
) -> Result<RunResult, PluginError> {
    let state = Arc::new(RunState::new(limits, cx.model));
    let options = json_to_dynamic(&cx.options.to_json());
    let engine = run_engine(&state, options, api_version);
    let written = RefCell::new(Written::default());
    let result = MODEL.set(cx.model, || {
        SELECTION.set(cx.selection, || {
            WRITTEN.set(&written, || engine.run_ast(ast))
        })
    });
    drop(engine);
    match result {
        Ok(()) => {}
        // `exit()` ends the script early; what it queued stands.
        Err(error) if matches!(*error, EvalAltResult::Exit(..)) => {}
        Err(error) => return Err(runtime_error(file, &error, limits)),
    }
    let queue = std::mem::take(&mut *state.queue());
    let edits = queue
        .edits
        .into_iter()
        .filter(|edit| {
            !(edit.origin == Origin::Setter
                && matches!(&edit.op, EditOp::Set { indices, .. } if indices.is_empty()))
        })
        .collect();
    Ok(RunResult {
        edits,
        notes: queue.notes,
    })
}

/// A runtime error as `PluginError::Script`: where it happened (the innermost place Rhai
/// knows) and why, in words a script's author can act on.
pub(crate) fn runtime_error(
    file: &str,
    error: &EvalAltResult,
    limits: &ScriptLimits,
) -> PluginError {
    let inner = error.unwrap_inner();
    // The innermost place Rhai knows: the error's own, else the call it happened in.
    let mut position = error.position();
    let mut step = error;
    while let EvalAltResult::ErrorInFunctionCall(_, _, deeper, _) = step {
        if !deeper.position().is_none() {
            position = deeper.position();
        }
        step = deeper;
    }
    let mut message = match inner {
        EvalAltResult::ErrorTerminated(reason, _) => reason.to_string(),
        EvalAltResult::ErrorTooManyOperations(_) => format!(
            "stopped: the script ran more than {} operations",
            thousands(usize::try_from(limits.max_operations).unwrap_or(usize::MAX))
        ),
        EvalAltResult::ErrorStackOverflow(_) => format!(
            "stopped: functions called each other more than {MAX_CALL_LEVELS} levels deep (a \
             recursion without an end?)"
        ),
        EvalAltResult::ErrorDataTooLarge(what, _) => match what.as_str() {
            "Length of string" => {
                format!(
                    "a string grew past the limit of {} bytes",
                    thousands(MAX_STRING_BYTES)
                )
            }
            "Size of array/BLOB" => {
                format!(
                    "an array grew past the limit of {} items",
                    thousands(MAX_ARRAY_ITEMS)
                )
            }
            "Size of object map" => {
                format!(
                    "a map grew past the limit of {} entries",
                    thousands(MAX_MAP_ENTRIES)
                )
            }
            other => format!("{other} is over the script limit"),
        },
        EvalAltResult::ErrorModuleNotFound(name, _) => {
            format!("import \"{name}\" is not allowed: scripts cannot load files")
        }
        EvalAltResult::ErrorRuntime(reason, _) => reason.to_string(),
        other => {
            let text = other.to_string();
            let at = format!(" ({})", other.position());
            text.strip_suffix(&at).map_or(text.clone(), str::to_owned)
        }
    };
    let mut calls = Vec::new();
    let mut outer = error;
    while let EvalAltResult::ErrorInFunctionCall(name, _, inner, at) = outer {
        if let (Some(line), false) = (at.line(), name.is_empty()) {
            calls.push(format!("in {name}() called at line {line}"));
        }
        outer = inner;
    }
    if !calls.is_empty() {
        calls.reverse();
        message.push_str(&format!(" ({})", calls.join(", ")));
    }
    PluginError::Script {
        file: file.to_owned(),
        line: position.line().unwrap_or(0),
        column: position.position().unwrap_or(0),
        message,
    }
}

/// A compile error as `PluginError::Script`.
pub(crate) fn parse_error(file: &str, error: &rhai::ParseError) -> PluginError {
    let position = error.position();
    let text = error.err_type().to_string();
    // A disabled keyword reads as "'import' is a reserved keyword" or "... is disabled".
    let message = if text.contains("'import'") {
        "import is not allowed: scripts cannot load files".to_owned()
    } else if text.contains("'eval'") {
        "eval is not allowed in scripts".to_owned()
    } else if matches!(error.err_type(), rhai::ParseErrorType::ExprTooDeep) {
        format!(
            "expressions are nested too deeply (at most {MAX_EXPR_DEPTH} levels, \
             {MAX_FUNCTION_EXPR_DEPTH} inside functions)"
        )
    } else {
        text
    };
    PluginError::Script {
        file: file.to_owned(),
        line: position.line().unwrap_or(0),
        column: position.position().unwrap_or(0),
        message,
    }
}

/// The steps' names name the script's line: "set name_en of 2 bones (rename.rhai:12:5)".
pub(crate) fn step_name(path: &std::path::Path, edit: &QueuedEdit) -> String {
    // A setter's or a loop's summary was written before its values came: count them now.
    let summary = match &edit.op {
        EditOp::Set {
            kind,
            indices,
            field,
            ..
        } if edit.origin.grows() => match kind.element_kind() {
            Some(kind) => {
                let elements = crate::nouns::counted(indices.len(), kind.name()).0;
                if field.is_empty() && edit.origin == Origin::Assignment {
                    format!("set {elements}")
                } else {
                    format!("set {field} of {elements}")
                }
            }
            None => edit.summary.clone(),
        },
        _ => edit.summary.clone(),
    };
    format!(
        "{} ({}:{}:{})",
        summary,
        file_name(path),
        edit.line,
        edit.column
    )
}
