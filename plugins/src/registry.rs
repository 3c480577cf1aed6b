//! Every plugin the host knows: the built-in tools, then the user's scripts.

use crate::api::{Plugin, PluginGroup, PluginInfo};
use std::sync::Arc;

/// The plugins, in menu order within each group.
#[derive(Clone, Default)]
pub struct Registry {
    plugins: Vec<Arc<dyn Plugin>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.plugins.iter().map(|plugin| plugin.info().id))
            .finish()
    }
}

impl Registry {
    /// The built-in tools.
    #[must_use]
    pub fn builtin() -> Self {
        Self {
            plugins: crate::builtin::all(),
        }
    }

    /// The built-in tools, then the scripts of `folder` (`None` or a missing folder: none);
    /// the scripts that do not load come back apart, each with its error.
    #[must_use]
    pub fn with_scripts(
        folder: Option<&std::path::Path>,
    ) -> (Self, Vec<(std::path::PathBuf, pmx_core::i18n::Message)>) {
        let mut registry = Self::builtin();
        let mut failed = Vec::new();
        if let Some(folder) = folder {
            for script in crate::script::find_scripts(folder) {
                match script {
                    Ok(script) => registry.add(Arc::new(script)),
                    Err((path, error)) => failed.push((path, error.to_message())),
                }
            }
        }
        (registry, failed)
    }

    /// Adds a plugin; one with the same id replaces the earlier one (a script named like a
    /// built-in is refused by the script loader before it gets here).
    pub fn add(&mut self, plugin: Arc<dyn Plugin>) {
        let id = plugin.info().id;
        self.plugins.retain(|other| other.info().id != id);
        self.plugins.push(plugin);
    }

    #[must_use]
    pub fn find(&self, id: &str) -> Option<Arc<dyn Plugin>> {
        self.plugins
            .iter()
            .find(|plugin| plugin.info().id == id)
            .cloned()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Arc<dyn Plugin>> {
        self.plugins.iter()
    }

    #[must_use]
    pub fn infos(&self) -> Vec<PluginInfo> {
        self.plugins.iter().map(|plugin| plugin.info()).collect()
    }

    /// The plugins of `group`, in the order they were added.
    pub fn in_group(&self, group: PluginGroup) -> impl Iterator<Item = &Arc<dyn Plugin>> {
        self.plugins
            .iter()
            .filter(move |plugin| plugin.info().group == group)
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.plugins.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.plugins.is_empty()
    }
}
