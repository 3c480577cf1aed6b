//! Click selection: a primary click picks the element of the pick mode's kind drawn under the
//! pointer (vertices, bone heads and joints nearest within a few pixels, rigid bodies and
//! material faces under the ray, posed where the pose puts them). No modifier selects only it,
//! Shift adds it, Ctrl takes it out; a click on nothing clears the selection (with a modifier
//! it changes nothing).

use super::tool::{SelectHow, Taken, ToolCx, ViewInput, ViewTool};

/// The click-to-select tool (no state: a click is complete in itself).
#[derive(Debug, Default)]
pub struct ClickSelect;

impl ViewTool for ClickSelect {
    fn input(&mut self, cx: &mut ToolCx<'_>, input: ViewInput) -> Taken {
        let ViewInput::Click { at } = input else {
            return Taken::No;
        };
        let kind = cx.pick_mode.kind();
        match cx.scene.pick(&cx.document.model, cx.pick_mode, at) {
            Some(index) => cx.select(kind, vec![index]),
            None if SelectHow::from_modifiers(cx.modifiers) == SelectHow::Replace => {
                cx.select(kind, Vec::new());
            }
            None => {}
        }
        Taken::Yes
    }
}
