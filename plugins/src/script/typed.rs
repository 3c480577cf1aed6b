//! Script API version 2 on the engine: `model.bones` and the other lists, elements as objects
//! ([`super::objects`]) whose fields read in their own types and whose assignments queue
//! edits (`bone.flags.visible = false` queues exactly that one field of that one bone), and the
//! script's reads seeing its own assignments ([`super::written`]).
//!
//! Rhai reaches every field through the places' indexers: a property that has no getter of its
//! own is read with the indexer and its name (`bone.name` is `bone["name"]`), so one getter and
//! one setter serve every field of every kind. After assigning inside a field
//! (`v.position.y += 0.5`), Rhai hands the field's value back to the element it came from
//! (`v.position = <that place>`): a place assigned to itself is that hand-back and queues
//! nothing, so each assignment queues one edit.

use super::lent::{ModelView, ScriptResult, fail, find_named, to_int};
use super::objects::{ElementList, Located, Place, Read, Step, element_index};
use super::queue::RunState;
use super::values::{dynamic_to_json, json_to_dynamic};
use super::written::{ENTRY_BYTES, WRITTEN};
use pmx_core::edit::EditTarget;
use pmx_core::model::ElementKind;
use rhai::{Dynamic, Engine, INT, ImmutableString, NativeCallContext};
use serde_json::Value;
use std::sync::Arc;

fn to_dynamic(read: Read) -> Dynamic {
    match read {
        Read::Value(value) => value,
        Read::Place(place) => Dynamic::from(place),
        Read::Json(json) => json_to_dynamic(&json),
    }
}

fn get(place: &Place, step: Step<'_>) -> ScriptResult<Dynamic> {
    place.get(step).map(to_dynamic).map_err(fail)
}

/// `value` for a field that refers to another element: -1 or `()` is none, an element is its
/// index; `None` for any other value (converted as usual).
fn reference_json(value: &Dynamic) -> Option<Value> {
    if value.as_int() == Ok(-1) {
        return Some(Value::Null);
    }
    let place = value.read_lock::<Place>()?;
    element_index(&place).map(Value::from)
}

/// What assigning `value` to the field at `place` writes, and the bytes it holds; `None` when
/// it is Rhai handing a field back to its element after an assignment inside it.
fn field_value(
    place: &Place,
    refers: bool,
    value: &Dynamic,
) -> ScriptResult<Option<(Value, usize)>> {
    if value
        .read_lock::<Place>()
        .is_some_and(|given| *given == *place)
    {
        return Ok(None);
    }
    let mut bytes = 0;
    let json = match refers.then(|| reference_json(value)).flatten() {
        Some(json) => json,
        None => dynamic_to_json(value, &mut bytes).map_err(fail)?,
    };
    Ok(Some((place.canonical(json), bytes)))
}

/// Queues `place` = `json` and keeps it for the script's later reads.
fn write(
    run: &RunState,
    context: &NativeCallContext<'_>,
    place: &Place,
    json: Value,
    bytes: usize,
) -> ScriptResult<()> {
    // The value is held twice: by the queued edit and by what later reads see.
    let bytes = 2 * bytes + ENTRY_BYTES;
    run.push_assignment(
        context,
        place.target,
        place.index,
        &place.path,
        json.clone(),
        bytes,
    )?;
    if WRITTEN.is_set() {
        WRITTEN.with(|written| {
            written
                .borrow_mut()
                .record(place.target, place.index, &place.path, json);
        });
    }
    Ok(())
}

/// Assigns `value` to what `step` names from `place`.
fn assign(
    run: &RunState,
    context: &NativeCallContext<'_>,
    place: &Place,
    step: Step<'_>,
    value: &Dynamic,
) -> ScriptResult<()> {
    match place.locate(step).map_err(fail)? {
        Located::Fixed { why, .. } => Err(fail(format!("this value cannot be assigned: {why}"))),
        Located::Flag { flags, flag } => {
            let on = value
                .as_bool()
                .map_err(|type_name| fail(format!("a flag is true or false, not {type_name}")))?;
            let bits = flags.flag_bits(flag.set).map_err(fail)?;
            let bits = if on {
                bits | flag.bit
            } else {
                bits & !flag.bit
            };
            write(run, context, &flags, flag.set.to_json(bits), 0)
        }
        Located::Field { place, refers } => match field_value(&place, refers, value)? {
            Some((json, bytes)) => write(run, context, &place, json, bytes),
            None => Ok(()),
        },
    }
}

/// `list[i] = value`: the whole element.
fn assign_element(
    run: &RunState,
    context: &NativeCallContext<'_>,
    list: &mut ElementList,
    index: INT,
    value: &Dynamic,
) -> ScriptResult<()> {
    let element = list.at(index).map_err(fail)?;
    match field_value(&element, false, value)? {
        Some((json, bytes)) => write(run, context, &element, json, bytes),
        None => Ok(()),
    }
}

/// An indexer's index as a step: a name (`place.name` comes as `place["name"]`) or a position.
trait AsStep {
    fn step(&self) -> Step<'_>;
}

impl AsStep for ImmutableString {
    fn step(&self) -> Step<'_> {
        Step::Name(self)
    }
}

impl AsStep for INT {
    fn step(&self) -> Step<'_> {
        Step::Index(*self)
    }
}

/// `place.name = value` or `place[i] = value`.
fn assign_at(
    run: &RunState,
    context: &NativeCallContext<'_>,
    place: &mut Place,
    index: impl AsStep,
    value: &Dynamic,
) -> ScriptResult<()> {
    assign(run, context, place, index.step(), value)
}

/// Registers `target[index] = value` (and `target.name = value`, which Rhai turns into it
/// where no setter of that name exists) as `assign(run, context, target, index, value)`.
macro_rules! register_setter {
    ($engine:expr, $state:expr, $target:ty, $index:ty, $assign:expr) => {{
        let run = Arc::clone($state);
        $engine.register_indexer_set(
            move |context: NativeCallContext<'_>,
                  target: &mut $target,
                  index: $index,
                  value: Dynamic|
                  -> ScriptResult<()> {
                $assign(&run, &context, target, index, &value)
            },
        );
    }};
}

/// Registers version 2 of the script API: the lists on `model`, `model.header` and
/// `model.info` as places, and what elements and places do.
pub(crate) fn register(engine: &mut Engine, state: &Arc<RunState>) {
    engine.register_type_with_name::<ElementList>("ElementList");
    engine.register_type_with_name::<Place>("Place");
    for kind in ElementKind::ALL {
        engine.register_get(kind.list_name(), move |_: &mut ModelView| ElementList {
            kind,
        });
    }
    engine.register_get("header", |_: &mut ModelView| {
        Place::element(EditTarget::Header, 0)
    });
    engine.register_get("info", |_: &mut ModelView| {
        Place::element(EditTarget::Info, 0)
    });
    register_lists(engine, state);
    register_places(engine, state);
}

fn register_lists(engine: &mut Engine, state: &Arc<RunState>) {
    engine.register_iterator::<ElementList>();
    engine.register_fn("len", |list: &mut ElementList| -> ScriptResult<INT> {
        list.len().map(to_int).map_err(fail)
    });
    engine.register_indexer_get(
        |list: &mut ElementList, index: INT| -> ScriptResult<Place> {
            list.at(index).map_err(fail)
        },
    );
    register_setter!(engine, state, ElementList, INT, assign_element);
    engine.register_fn(
        "find",
        |list: &mut ElementList, name: &str| -> ScriptResult<Dynamic> {
            let kind = list.kind;
            if matches!(
                kind,
                ElementKind::Vertex | ElementKind::Face | ElementKind::Texture
            ) {
                return Err(fail(format!("{} have no names", kind.list_name())));
            }
            let found = super::lent::with_model(|model| Ok(find_named(model, kind, name)))?;
            Ok(if found < 0 {
                Dynamic::UNIT
            } else {
                Dynamic::from(list.at(found).map_err(fail)?)
            })
        },
    );
    engine.register_fn("to_string", |list: &mut ElementList| -> String {
        format!("{} ({})", list.kind.list_name(), list.len().unwrap_or(0))
    });
    engine.register_fn("to_debug", |list: &mut ElementList| -> String {
        format!("model.{}", list.kind.list_name())
    });
}

fn register_places(engine: &mut Engine, state: &Arc<RunState>) {
    engine.register_iterator_result::<Place, Place>();
    engine.register_indexer_get(
        |place: &mut Place, name: ImmutableString| -> ScriptResult<Dynamic> {
            get(place, name.step())
        },
    );
    engine.register_indexer_get(|place: &mut Place, index: INT| -> ScriptResult<Dynamic> {
        get(place, index.step())
    });
    register_setter!(engine, state, Place, ImmutableString, assign_at);
    register_setter!(engine, state, Place, INT, assign_at);
    engine.register_fn("len", |place: &mut Place| -> ScriptResult<INT> {
        place.len().map(to_int).map_err(fail)
    });
    engine.register_fn("value", |place: &mut Place| -> ScriptResult<Dynamic> {
        place
            .to_json()
            .map(|json| json_to_dynamic(&json))
            .map_err(fail)
    });
    engine.register_fn("to_string", |place: &mut Place| -> ScriptResult<String> {
        place
            .to_json()
            .map(|json| match json {
                Value::String(text) => text,
                other => json_to_dynamic(&other).to_string(),
            })
            .map_err(fail)
    });
    engine.register_fn("to_debug", |place: &mut Place| -> ScriptResult<String> {
        let json = place.to_json().map_err(fail)?;
        Ok(format!("{} = {json}", place.describe()))
    });
}
