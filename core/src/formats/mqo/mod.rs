//! Metasequoia MQO (`.mqo`, zipped `.mqoz`) and its MQX bone/morph side file.
//!
//! Units and axes (one convention for import and export):
//! - **Scale**: [`DEFAULT_MQO_UNITS_PER_PMX_UNIT`] MQO units make one PMX unit. Models made for
//!   MMD in Metasequoia are customarily built at ten times MMD's size (a 1.6 m figure is about
//!   200 MQO units tall and 20 PMX units tall); `--scale` overrides it.
//! - **Axes**: both are Y-up; Metasequoia is right-handed with the model's front towards +Z,
//!   PMX (DirectX) left-handed with the front towards −Z. Import maps (x, y, z) to
//!   (x, y, −z) / scale and reverses each face's winding; export does the inverse.

/// MQO units per PMX unit when the user gives no `--scale`.
pub const DEFAULT_MQO_UNITS_PER_PMX_UNIT: f32 = 10.0;
