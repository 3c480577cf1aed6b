//! The element tables (vertices, faces, textures, materials): one generic table on
//! `egui_extras::TableBuilder` with only the visible rows built, sorting by a column, filtering
//! by text or index range, go to index, multi-selection (click, Shift, Ctrl, select all), editing
//! in place and a context menu, plus a property panel beside it. Each kind supplies its columns
//! and cells through [`ElementTable`].

pub mod fields;

use crate::command::Command;
use crate::selection::KindSelection;
use crate::widgets::properties::{MixedCache, PropertyGrid};
use crate::widgets::{EditCx, PaneCx, PaneParts};
use egui_extras::{Column, TableBuilder};
use pmx_core::edit::{EditOp, Elements};
use pmx_core::model::{ElementKind, Model};
use std::cmp::Ordering;

/// A column of a table.
#[derive(Debug, Clone, Copy)]
pub struct ColumnSpec {
    /// i18n key of the header.
    pub title: &'static str,
    pub width: f32,
    pub sortable: bool,
}

impl ColumnSpec {
    /// The specs of a table's `(column, i18n key, width)` list, all sortable.
    #[must_use]
    pub fn of_list<C>(columns: &[(C, &'static str, f32)]) -> Vec<Self> {
        columns
            .iter()
            .map(|&(_, title, width)| Self::new(title, width))
            .collect()
    }

    /// The specs of a table's `(column, i18n key, width)` list, the columns `unsortable` names
    /// not sortable (values such as vectors and flags have no one order).
    #[must_use]
    pub fn of_list_except<C: Copy>(
        columns: &[(C, &'static str, f32)],
        unsortable: impl Fn(C) -> bool,
    ) -> Vec<Self> {
        columns
            .iter()
            .map(|&(column, title, width)| {
                let spec = Self::new(title, width);
                if unsortable(column) {
                    spec.unsortable()
                } else {
                    spec
                }
            })
            .collect()
    }

    #[must_use]
    pub const fn new(title: &'static str, width: f32) -> Self {
        Self {
            title,
            width,
            sortable: true,
        }
    }

    #[must_use]
    pub const fn unsortable(mut self) -> Self {
        self.sortable = false;
        self
    }
}

/// A value to sort rows by.
#[derive(Debug, Clone, PartialEq)]
pub enum SortValue {
    Number(f64),
    Text(String),
}

/// What a kind of element contributes to the generic table.
pub trait ElementTable {
    fn kind(&self) -> ElementKind;
    /// The columns after the index column.
    fn columns(&self, model: &Model) -> Vec<ColumnSpec>;
    /// One cell: shows the value and pushes edits.
    fn cell_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, index: usize, column: usize);
    fn sort_value(&self, model: &Model, index: usize, column: usize) -> SortValue;
    /// The row's text for the text filter (names, paths, numbers as the cells show them).
    fn row_text(&self, model: &Model, index: usize, out: &mut String);
    /// The op that inserts a new element at `at`, if this kind can be made from nothing.
    fn new_element(&self, model: &Model, at: usize) -> Option<Elements>;
    /// The property panel rows for the selected elements (`grid.indices` ascending, at least one).
    fn properties_ui(&self, cx: &mut EditCx<'_>, ui: &mut egui::Ui, grid: &mut PropertyGrid<'_>);
    /// How many columns after the index must stay visible beside the property panel (the
    /// names, and what comes before them).
    fn key_columns(&self) -> usize {
        2
    }
    /// Extra context menu entries.
    fn extra_context_menu_ui(&self, _cx: &mut EditCx<'_>, _ui: &mut egui::Ui, _indices: &[usize]) {}
}

/// A table's UI state: sort, filters, the view they give, scrolling.
#[derive(Debug, Default)]
pub struct TableState {
    pub filter_text: String,
    pub range_text: String,
    pub goto_text: String,
    /// Column (0 is the index column) and whether ascending.
    pub sort: Option<(usize, bool)>,
    view: View,
    /// The element to scroll to on the next frame (a data index, found in the view when the
    /// table is drawn), and how: centred for "go to", just into view when following a selection
    /// made elsewhere.
    scroll_to: Option<(usize, Option<egui::Align>)>,
    /// The selection's current element as the table last saw it: when it changes from outside
    /// the table (a pick in the 3D view, the tree, a link), the table scrolls to it.
    last_current: Option<usize>,
    mixed: MixedCache,
    rects: Option<TableRects>,
}

/// Where a table pane put its parts on the last frame it was drawn (for layout checks).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TableRects {
    /// The area the table's rows are shown in.
    pub table: egui::Rect,
    /// The property panel beside it.
    pub properties: egui::Rect,
}

/// What the view was built from: it is rebuilt when any of this changes.
#[derive(Debug, Clone, PartialEq)]
struct ViewKey {
    document: u64,
    structure: u64,
    filter_text: String,
    range_text: String,
    sort: Option<(usize, bool)>,
}

/// The rows shown, as data indices in view order (`None`: all, in index order, which needs no
/// memory on a 1,000,000-vertex model). Edits of values do not rebuild it (rows do not jump
/// while the user edits them); structural edits and changes of sort or filter do.
#[derive(Debug, Default)]
struct View {
    key: Option<ViewKey>,
    rows: Option<Vec<u32>>,
    len: usize,
}

impl View {
    fn index(&self, row: usize) -> usize {
        match &self.rows {
            Some(rows) => rows.get(row).map_or(usize::MAX, |&i| i as usize),
            None => row,
        }
    }

    fn row_of(&self, index: usize) -> Option<usize> {
        match &self.rows {
            Some(rows) => rows.iter().position(|&i| i as usize == index),
            None => (index < self.len).then_some(index),
        }
    }
}

/// Parses "0-99, 120, 200-" into inclusive ranges (an open end runs to the last element).
#[must_use]
pub fn parse_ranges(text: &str, len: usize) -> Option<Vec<(usize, usize)>> {
    let last = len.checked_sub(1)?;
    let mut ranges = Vec::new();
    for part in text.split([',', ' ']).filter(|p| !p.trim().is_empty()) {
        let part = part.trim();
        let range = match part.split_once('-') {
            Some((a, b)) => {
                let start = if a.trim().is_empty() {
                    0
                } else {
                    a.trim().parse().ok()?
                };
                let end = if b.trim().is_empty() {
                    last
                } else {
                    b.trim().parse().ok()?
                };
                (start, end)
            }
            None => {
                let i = part.parse().ok()?;
                (i, i)
            }
        };
        ranges.push(range);
    }
    Some(ranges)
}

impl TableState {
    /// The data indices the table shows, in view order (as of the last frame).
    #[must_use]
    pub fn shown_indices(&self) -> Vec<usize> {
        (0..self.view.len).map(|row| self.view.index(row)).collect()
    }

    /// Where the table and its property panel were on the last frame the table was drawn.
    #[must_use]
    pub fn rects(&self) -> Option<TableRects> {
        self.rects
    }

    /// Shows element `index` centred on the next frame the table is drawn (if the view shows it).
    pub fn scroll_to_index(&mut self, index: usize) {
        self.scroll_to = Some((index, Some(egui::Align::Center)));
    }

    /// Scrolls to the selection's current element when it changed since the table last saw
    /// it (the table's own clicks update what it saw, so they never scroll).
    fn follow_selection(&mut self, selection: &KindSelection) {
        if selection.current != self.last_current {
            self.last_current = selection.current;
            if let Some(current) = selection.current
                && self.scroll_to.is_none()
            {
                self.scroll_to = Some((current, None));
            }
        }
    }

    fn refresh_view(&mut self, table: &dyn ElementTable, model: &Model, key: ViewKey) {
        if self.view.key.as_ref() == Some(&key) {
            return;
        }
        let len = model.count(table.kind());
        let ranges = if key.range_text.trim().is_empty() {
            None
        } else {
            Some(parse_ranges(&key.range_text, len).unwrap_or_default())
        };
        let needle = key.filter_text.trim().to_lowercase();
        let filtered = ranges.is_some() || !needle.is_empty();
        let mut rows: Option<Vec<u32>> = None;
        if filtered {
            let mut kept = Vec::new();
            let mut text = String::new();
            for index in 0..len {
                if let Some(ranges) = &ranges
                    && !ranges.iter().any(|&(a, b)| (a..=b).contains(&index))
                {
                    continue;
                }
                if !needle.is_empty() {
                    text.clear();
                    table.row_text(model, index, &mut text);
                    if !text.to_lowercase().contains(&needle) {
                        continue;
                    }
                }
                kept.push(index as u32);
            }
            rows = Some(kept);
        }
        if let Some((column, ascending)) = key.sort
            && (column != 0 || !ascending)
        {
            let mut order = rows.unwrap_or_else(|| (0..len as u32).collect());
            if column == 0 {
                order.reverse();
            } else {
                let values: Vec<SortValue> = order
                    .iter()
                    .map(|&i| table.sort_value(model, i as usize, column - 1))
                    .collect();
                let mut pairs: Vec<(SortValue, u32)> = values.into_iter().zip(order).collect();
                pairs.sort_by(|(a, ai), (b, bi)| {
                    let ordering = compare(a, b).then(ai.cmp(bi));
                    if ascending {
                        ordering
                    } else {
                        ordering.reverse()
                    }
                });
                order = pairs.into_iter().map(|(_, i)| i).collect();
            }
            rows = Some(order);
        }
        self.view.len = rows.as_ref().map_or(len, Vec::len);
        self.view.rows = rows;
        self.view.key = Some(key);
    }
}

fn compare(a: &SortValue, b: &SortValue) -> Ordering {
    match (a, b) {
        (SortValue::Number(a), SortValue::Number(b)) => a.total_cmp(b),
        (SortValue::Text(a), SortValue::Text(b)) => a.cmp(b),
        (SortValue::Number(_), SortValue::Text(_)) => Ordering::Less,
        (SortValue::Text(_), SortValue::Number(_)) => Ordering::Greater,
    }
}

/// The widest the property panel gets by default (wider only when the user drags it).
pub const PROPERTY_PANEL_WIDTH: f32 = 340.0;

/// The width a table keeps beside its property panel (and a tree): its index column and its
/// key columns ([`ElementTable::key_columns`], the names), plus room for the scroll bar, so
/// that the panel never covers them.
#[must_use]
pub fn table_min_width(table: &dyn ElementTable, model: &Model) -> f32 {
    let columns: f32 = table
        .columns(model)
        .iter()
        .take(table.key_columns())
        .map(|c| c.width)
        .sum();
    index_column_width(model.count(table.kind()))
        + columns
        + 8.0 * table.key_columns() as f32
        + 24.0
}

/// The property panel's default width and its range in a table pane `width` wide whose table
/// needs `table_min`: as wide as [`PROPERTY_PANEL_WIDTH`] where there is room, never so wide
/// that the table loses its index and name columns.
#[must_use]
pub fn property_panel_size(width: f32, table_min: f32) -> (f32, egui::Rangef) {
    let max = (width - table_min).clamp(160.0, 700.0);
    let min = 200.0_f32.min(max);
    let default = (width - table_min).clamp(min, max.min(PROPERTY_PANEL_WIDTH));
    (default, egui::Rangef::new(min, max))
}

/// The width of the index column for `count` rows (its numbers in monospace, plus padding).
fn index_column_width(count: usize) -> f32 {
    let digits = count.max(1).ilog10() as f32 + 1.0;
    (digits * 8.5 + 22.0).max(40.0)
}

/// A table pane: toolbar, table and property panel.
pub fn table_pane_ui(
    ui: &mut egui::Ui,
    table: &dyn ElementTable,
    state: &mut TableState,
    cx: &mut PaneCx<'_>,
) {
    let kind = table.kind();
    let structure_revision = cx.document.structure_revision(kind);
    let PaneParts {
        model,
        selection,
        commands,
        lang,
        names,
        base_dir,
        document_id,
        revision,
    } = cx.parts();
    let selection = selection.get_mut(kind);
    state.refresh_view(
        table,
        model,
        ViewKey {
            document: document_id,
            structure: structure_revision,
            filter_text: state.filter_text.clone(),
            range_text: state.range_text.clone(),
            sort: state.sort,
        },
    );
    state.follow_selection(selection);
    let mut edit = EditCx {
        model,
        commands,
        lang,
        names,
        base_dir,
    };
    toolbar_ui(ui, table, state, selection, &mut edit);
    let (panel_width, panel_range) =
        property_panel_size(ui.available_width(), table_min_width(table, model));
    let properties_rect = egui::Panel::right(("properties", kind.name()))
        .resizable(true)
        .default_size(panel_width)
        .size_range(panel_range)
        .show(ui, |ui| {
            let selection_key = if selection.indices.is_empty() {
                selection.current.map_or(u64::MAX, |c| c as u64)
            } else {
                selection.indices.fingerprint()
            };
            state.mixed.validate((document_id, revision, selection_key));
            properties_panel_ui(ui, table, selection, &mut state.mixed, &mut edit);
        })
        .response
        .rect;
    let table_rect = egui::CentralPanel::default()
        .show(ui, |ui| {
            table_ui(ui, table, state, selection, &mut edit);
        })
        .response
        .rect;
    state.rects = Some(TableRects {
        table: table_rect,
        properties: properties_rect,
    });
}

fn toolbar_ui(
    ui: &mut egui::Ui,
    table: &dyn ElementTable,
    state: &mut TableState,
    selection: &mut KindSelection,
    cx: &mut EditCx<'_>,
) {
    let kind = table.kind();
    let len = cx.model.count(kind);
    ui.horizontal_wrapped(|ui| {
        ui.label(cx.tr("table.filter"));
        ui.add(
            egui::TextEdit::singleline(&mut state.filter_text)
                .hint_text(cx.tr("table.filter_hint"))
                .desired_width(140.0),
        )
        .accessible_name(cx.tr("table.filter"));
        ui.label(cx.tr("table.range"));
        let range = ui
            .add(
                egui::TextEdit::singleline(&mut state.range_text)
                    .hint_text("0-99, 120")
                    .desired_width(90.0),
            )
            .accessible_name(cx.tr("table.range"));
        if !state.range_text.trim().is_empty() && parse_ranges(&state.range_text, len).is_none() {
            range.on_hover_text(cx.tr("table.range_invalid"));
        }
        ui.separator();
        ui.label(cx.tr("table.goto"));
        let goto = ui
            .add(
                egui::TextEdit::singleline(&mut state.goto_text)
                    .hint_text("#")
                    .desired_width(70.0),
            )
            .accessible_name(cx.tr("table.goto"));
        let entered = goto.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if (ui.button(cx.tr("table.go")).clicked() || entered)
            && let Ok(index) = state.goto_text.trim().parse::<usize>()
            && index < len
        {
            selection.select_only(index);
            state.scroll_to_index(index);
        }
        ui.separator();
        ui.label(
            cx.lang
                .format("table.rows", &[("shown", &state.view.len), ("total", &len)]),
        );
        if !selection.indices.is_empty() {
            ui.label(
                cx.lang
                    .format("table.selected", &[("count", &selection.indices.len())]),
            );
        }
    });
    ui.separator();
}

fn properties_panel_ui(
    ui: &mut egui::Ui,
    table: &dyn ElementTable,
    selection: &KindSelection,
    cache: &mut MixedCache,
    cx: &mut EditCx<'_>,
) {
    let len = cx.model.count(table.kind());
    let mut targets = selection.targets();
    targets.retain(|&i| i < len);
    ui.add_space(4.0);
    ui.heading(cx.tr("properties.title"));
    match targets.as_slice() {
        [] => {
            ui.label(cx.tr("properties.nothing_selected"));
        }
        [only] => {
            ui.label(format!("#{only}"));
        }
        many => {
            ui.label(
                cx.lang
                    .format("properties.editing_many", &[("count", &many.len())]),
            );
        }
    }
    ui.separator();
    if targets.is_empty() {
        return;
    }
    let mut grid = PropertyGrid::new(table.kind().into(), &targets, cache);
    // Vertical only: the rows get the panel's width and wrap in it (a vector's last component,
    // a row of flag check boxes), so nothing of a row hides past a horizontal scroll bar at
    // 1280 × 800; the scroll area also keeps wide content from widening the panel over the
    // table.
    egui::ScrollArea::vertical()
        .id_salt("properties_scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| table.properties_ui(cx, ui, &mut grid));
}

fn table_ui(
    ui: &mut egui::Ui,
    table: &dyn ElementTable,
    state: &mut TableState,
    selection: &mut KindSelection,
    cx: &mut EditCx<'_>,
) {
    let kind = table.kind();
    let columns = table.columns(cx.model);
    let row_height = ui.spacing().interact_size.y + 4.0;
    let view_len = state.view.len;
    let scroll_to = state
        .scroll_to
        .take()
        .and_then(|(index, align)| Some((state.view.row_of(index)?, align)));
    let mut clicked: Option<(usize, egui::Modifiers)> = None;
    let mut menu_action: Option<ContextAction> = None;
    egui::ScrollArea::horizontal()
        .id_salt(("table_h", kind.name()))
        .show(ui, |ui| {
            let mut builder = TableBuilder::new(ui)
                .id_salt(("table", kind.name()))
                .striped(true)
                .resizable(true)
                .sense(egui::Sense::click())
                .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
                .column(
                    Column::initial(index_column_width(cx.model.count(kind)))
                        .at_least(40.0)
                        .clip(true),
                );
            for column in &columns {
                builder = builder.column(Column::initial(column.width).at_least(30.0).clip(true));
            }
            if let Some((row, align)) = scroll_to {
                builder = builder.scroll_to_row(row, align);
            }
            let table_widget = builder.header(row_height, |mut header| {
                let all: Vec<(usize, &'static str, bool)> =
                    std::iter::once((0, "table.index", true))
                        .chain(
                            columns
                                .iter()
                                .enumerate()
                                .map(|(i, c)| (i + 1, c.title, c.sortable)),
                        )
                        .collect();
                for (column, title, sortable) in all {
                    header.col(|ui| {
                        let arrow = match state.sort {
                            Some((c, true)) if c == column => " ▲",
                            Some((c, false)) if c == column => " ▼",
                            _ => "",
                        };
                        let text = format!("{}{arrow}", cx.tr(title));
                        if sortable {
                            let response = ui
                                .add(
                                    egui::Button::new(egui::RichText::new(text).strong())
                                        .frame(false),
                                )
                                .on_hover_text(cx.tr("table.sort_hint"));
                            if response.clicked() {
                                state.sort = match state.sort {
                                    Some((c, true)) if c == column => Some((column, false)),
                                    Some((c, false)) if c == column => None,
                                    _ => Some((column, true)),
                                };
                            }
                        } else {
                            ui.strong(text);
                        }
                    });
                }
            });
            table_widget.body(|body| {
                body.rows(row_height, view_len, |mut row| {
                    let view_row = row.index();
                    let index = state.view.index(view_row);
                    let selected = selection.indices.contains(index);
                    row.set_selected(selected);
                    // The index cell is a button named "vertex 12": the handle to click,
                    // Shift/Ctrl-click and right-click a row by (also for screen readers).
                    let mut index_response = None;
                    row.col(|ui| {
                        index_response = Some(
                            ui.add(
                                egui::Button::selectable(
                                    selected,
                                    egui::RichText::new(index.to_string()).monospace(),
                                )
                                .frame_when_inactive(false),
                            )
                            .accessible_name(format!("{} {index}", kind.name())),
                        );
                    });
                    for column in 0..columns.len() {
                        row.col(|ui| table.cell_ui(cx, ui, index, column));
                    }
                    let mut response = row.response();
                    if let Some(index_response) = index_response {
                        response = response.union(index_response);
                    }
                    if response.clicked() {
                        clicked = Some((index, ui_modifiers(&response)));
                    }
                    if response.secondary_clicked() && !selection.indices.contains(index) {
                        selection.select_only(index);
                    }
                    response.context_menu(|ui| {
                        if let Some(action) = context_menu_ui(ui, table, selection, cx) {
                            menu_action = Some(action);
                        }
                    });
                });
            });
        });
    if let Some((index, modifiers)) = clicked {
        click_row(state, selection, index, modifiers);
        // The row is where the user clicked it: no scrolling.
        state.last_current = selection.current;
    }
    if let Some(action) = menu_action {
        run_context_action(table, state, selection, cx, action);
    }
}

fn ui_modifiers(response: &egui::Response) -> egui::Modifiers {
    response.ctx.input(|i| i.modifiers)
}

/// Click: only this row. Ctrl/Cmd-click: toggle it. Shift-click: the rows from the current
/// one to this one, in view order.
fn click_row(
    state: &TableState,
    selection: &mut KindSelection,
    index: usize,
    modifiers: egui::Modifiers,
) {
    if modifiers.shift
        && let Some(anchor) = selection.current
        && let (Some(from), Some(to)) = (state.view.row_of(anchor), state.view.row_of(index))
    {
        if !modifiers.command {
            selection.indices.clear();
        }
        let (a, b) = if from <= to { (from, to) } else { (to, from) };
        for row in a..=b {
            selection.indices.insert(state.view.index(row));
        }
        // The anchor stays, so that the next Shift-click extends from the same row.
        return;
    }
    if modifiers.command {
        selection.indices.toggle(index);
        selection.current = Some(index);
    } else {
        selection.select_only(index);
    }
}

/// Selects every row the view shows.
pub fn select_all(state: &TableState, selection: &mut KindSelection) {
    selection.indices.clear();
    match &state.view.rows {
        Some(rows) => {
            for &i in rows {
                selection.indices.insert(i as usize);
            }
        }
        None => selection.indices.insert_range(0, state.view.len),
    }
    if selection.current.is_none() {
        selection.current = selection.indices.first();
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ContextAction {
    Insert,
    Duplicate,
    Delete,
    MoveUp,
    MoveDown,
    SelectAll,
}

fn context_menu_ui(
    ui: &mut egui::Ui,
    table: &dyn ElementTable,
    selection: &KindSelection,
    cx: &mut EditCx<'_>,
) -> Option<ContextAction> {
    let mut action = None;
    let count = selection.targets().len();
    ui.label(egui::RichText::new(cx.lang.format("table.selected", &[("count", &count)])).weak());
    ui.separator();
    if ui.button(cx.tr("context.insert")).clicked() {
        action = Some(ContextAction::Insert);
    }
    if ui.button(cx.tr("context.duplicate")).clicked() {
        action = Some(ContextAction::Duplicate);
    }
    // Special display frames cannot be deleted: the entry deletes the others and is off when
    // only special ones are selected.
    let targets = selection.targets();
    let deletable = !deletable_targets(cx.model, table.kind(), &targets).is_empty();
    if ui
        .add_enabled(deletable, egui::Button::new(cx.tr("context.delete")))
        .on_disabled_hover_text(cx.tr("frame.special_hint"))
        .clicked()
    {
        action = Some(ContextAction::Delete);
    }
    table.extra_context_menu_ui(cx, ui, &selection.targets());
    ui.separator();
    if ui.button(cx.tr("context.move_up")).clicked() {
        action = Some(ContextAction::MoveUp);
    }
    if ui.button(cx.tr("context.move_down")).clicked() {
        action = Some(ContextAction::MoveDown);
    }
    ui.separator();
    if ui.button(cx.tr("context.select_all")).clicked() {
        action = Some(ContextAction::SelectAll);
    }
    action
}

fn run_context_action(
    table: &dyn ElementTable,
    state: &TableState,
    selection: &mut KindSelection,
    cx: &mut EditCx<'_>,
    action: ContextAction,
) {
    let kind = table.kind();
    let targets = selection.targets();
    let op = match action {
        ContextAction::Insert => {
            let at = targets
                .last()
                .map_or(cx.model.count(kind), |&last| last + 1);
            if let Some(elements) = table.new_element(cx.model, at) {
                cx.commands.push(Command::Edit(crate::command::EditCommand {
                    request: crate::command::EditRequest::Insert { at, elements },
                    gesture: None,
                    select_created: true,
                }));
            }
            None
        }
        ContextAction::Duplicate if !targets.is_empty() => Some(EditOp::Duplicate {
            kind,
            indices: targets,
        }),
        ContextAction::Delete => {
            let indices = deletable_targets(cx.model, kind, &targets);
            (!indices.is_empty()).then_some(EditOp::Delete {
                kind,
                indices,
                remove_unused_vertices: false,
            })
        }
        ContextAction::MoveUp | ContextAction::MoveDown if !targets.is_empty() => {
            Some(EditOp::Move {
                kind,
                indices: targets,
                to: None,
                by: Some(if action == ContextAction::MoveUp {
                    -1
                } else {
                    1
                }),
            })
        }
        ContextAction::SelectAll => {
            select_all(state, selection);
            None
        }
        _ => None,
    };
    if let Some(op) = op {
        // The rows the user inserted or duplicated become the selection.
        let command = Command::ops(vec![op]);
        cx.commands.push(if action == ContextAction::Duplicate {
            command.selecting_created()
        } else {
            command
        });
    }
}

/// Whether the user may delete element `index` of `kind`: everything except the special display
/// frames (Root, 表情), which PMX editors expect to exist (the edit refuses them too, so the
/// GUI never offers it).
#[must_use]
pub fn deletable(model: &Model, kind: ElementKind, index: usize) -> bool {
    match kind {
        ElementKind::DisplayFrame => model
            .display_frames
            .get(index)
            .is_some_and(|frame| !frame.special),
        _ => index < model.count(kind),
    }
}

/// The elements of `targets` the user may delete ([`deletable`]).
#[must_use]
pub fn deletable_targets(model: &Model, kind: ElementKind, targets: &[usize]) -> Vec<usize> {
    targets
        .iter()
        .copied()
        .filter(|&i| deletable(model, kind, i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_with_open_ends() {
        assert_eq!(parse_ranges("0-9, 12", 100), Some(vec![(0, 9), (12, 12)]));
        assert_eq!(parse_ranges("90-", 100), Some(vec![(90, 99)]));
        assert_eq!(parse_ranges("-3", 100), Some(vec![(0, 3)]));
        assert_eq!(parse_ranges("a-b", 100), None);
        assert_eq!(parse_ranges("1", 0), None);
    }
}
