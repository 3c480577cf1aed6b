//! Plugins, user scripts and PmxEditor's everyday tools.
//!
//! A plugin ([`Plugin`]) describes itself ([`PluginInfo`]: id, ja/en name and description,
//! version, what it needs selected, typed options with defaults) and turns a read-only
//! [`PluginContext`] (model, selection, options) into an [`EditBatch`]. The host
//! ([`host::run_plugin`]) builds the batch into one [`pmx_core::edit::Edit`] labelled with the
//! plugin's name, which the editor commits as one undo step and the command line applies
//! before saving. The built-in tools live in [`builtin`]; user scripts (Rhai, [`script`]) go
//! through the same trait.

pub mod api;
pub mod builtin;
pub mod error;
pub mod host;
pub mod nouns;
pub mod options;
pub mod registry;
pub mod script;
pub mod selection;

pub use api::{
    API_VERSION, BatchStep, EditBatch, Needs, Note, Plugin, PluginContext, PluginGroup, PluginInfo,
    PluginOutput,
};
pub use error::PluginError;
pub use host::{PluginRun, build_edit, check_needs, run_plugin, run_plugin_posed};
pub use nouns::counted;
pub use options::{OptionKind, OptionSpec, OptionValue, Options};
pub use registry::Registry;
pub use script::{ScriptLimits, ScriptPlugin, default_scripts_folder, find_scripts};
pub use selection::{PluginSelection, kind_from_name};
