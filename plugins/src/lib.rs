//! Plugin API, built-in plugins and user scripts.
