//! Metasequoia MQO (`.mqo`, zipped `.mqoz`) and its MQX bone/morph side file.
//!
//! Units and axes (one convention for import and export):
//! - **Scale**: [`DEFAULT_MQO_UNITS_PER_PMX_UNIT`] MQO units make one PMX unit. Models made for
//!   MMD in Metasequoia are customarily built at ten times MMD's size (a 1.6 m figure is about
//!   200 MQO units tall and 20 PMX units tall); `--scale` overrides it.
//! - **Axes**: both are Y-up; Metasequoia is right-handed with the model's front towards +Z,
//!   PMX (DirectX) left-handed with the front towards −Z. Import maps (x, y, z) to
//!   (x, y, −z) / scale (normals (x, y, −z)); export does the inverse.
//! - **Winding is kept as it is.** Metasequoia's front faces wind clockwise seen from outside
//!   (the corpus cube's `+Z` face is `V(0 2 3 1)`: top-left, top-right, bottom-right,
//!   bottom-left seen from +Z), and so do PMX's. Negating Z is a mirror, but so is reading right-handed coordinates as left-handed:
//!   the two cancel, and the face is still clockwise seen from outside. Reversing the winding
//!   would turn every face inside out.

pub mod document;
mod mesh;
pub mod mqx;
mod parse;
pub mod read;
pub mod report;
mod to_model;
pub mod write;

pub use read::{
    MqoImport, MqoImportOptions, is_archive, load_mqo_path, parse_mqo, read_mqo, read_mqo_with_mqx,
};
pub use report::{MqoError, MqoNote, MqoReport, MqxUnavailable};
pub use write::{
    MqoExport, MqoExportOptions, MqoExportReport, MqoLoss, MqoObjectGrouping, mqo_export_report,
    write_mqo,
};

/// MQO units per PMX unit when the user gives no `--scale`.
pub const DEFAULT_MQO_UNITS_PER_PMX_UNIT: f32 = 10.0;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod write_tests;
