//! Dependency rules from ARCHITECTURE.md: `core` never depends on GUI crates; the editor
//! (`pmx_ui`) and the view's GPU-free side (`pmx_scene`) never depend on the GL side.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

const GUI_CRATES: [&str; 7] = [
    "egui",
    "eframe",
    "egui_glow",
    "three-d",
    "rfd",
    "winit",
    "glow",
];

/// The crates `package` depends on (normal and build dependencies, every version).
fn dependencies(package: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let workspace = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let output = Command::new(cargo)
        .current_dir(workspace)
        .args([
            "tree",
            "-p",
            package,
            "-e",
            "normal,build",
            "--prefix",
            "none",
            "--offline",
        ])
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8_lossy(&output.stdout);
    let crates: Vec<String> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    assert!(
        crates.iter().any(|c| c == package) && crates.iter().any(|c| c == "serde"),
        "unexpected cargo tree output:\n{tree}"
    );
    crates
}

#[test]
fn core_depends_on_no_gui_crate() {
    let crates = dependencies("pmx_core");
    for gui in GUI_CRATES {
        assert!(
            !crates.iter().any(|c| c == gui),
            "pmx_core depends on {gui}"
        );
    }
}

/// Editing a panel must not rebuild the GL code, and panel tests must not link it.
#[test]
fn the_editor_does_not_depend_on_the_gl_side() {
    for package in ["pmx_ui", "pmx_scene"] {
        let crates = dependencies(package);
        for gl in ["pmx_view", "three-d", "egui_glow", "glow", "glutin"] {
            assert!(!crates.iter().any(|c| c == gl), "{package} depends on {gl}");
        }
    }
}

/// The `use` lines of a source file of the workspace.
fn uses(path: &str) -> Vec<String> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
        .lines()
        .filter(|line| line.trim_start().starts_with("use "))
        .map(str::to_owned)
        .collect()
}

/// Calls `visit` with every Rust file under `dir` (relative to the workspace) and its `use` lines.
fn for_each_rust_file(dir: &str, visit: &mut dyn FnMut(&Path, Vec<String>)) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut stack = vec![root.join(dir)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                visit(&path, uses(&relative));
            }
        }
    }
}

#[test]
fn layers_do_not_import_each_other() {
    // The generic property rows are the lower layer; the structure editors' shared rows
    // (pickers of bones, bodies, morphs, materials) build on them.
    assert!(
        !uses("ui/src/widgets/properties.rs")
            .iter()
            .any(|line| line.contains("table")),
        "properties.rs imports the tables"
    );
    assert!(
        uses("ui/src/widgets/table/fields.rs")
            .iter()
            .any(|line| line.contains("widgets::properties")),
        "table/fields.rs builds on properties.rs"
    );
    // The UI's layers: widgets (generic) below panes (one per tab) below the editor shell.
    for_each_rust_file("ui/src/widgets", &mut |path, uses| {
        for line in uses {
            assert!(
                !line.contains("crate::panes") && !line.contains("crate::editor"),
                "{}: a widget imports a pane or the shell: {line}",
                path.display()
            );
        }
    });
    for_each_rust_file("ui/src/panes", &mut |path, uses| {
        for line in uses {
            // The pane list (`Pane`) is the shell's; nothing else of it is used by a pane.
            assert!(
                !line.contains("crate::editor") || line.contains("crate::editor::workspace::Pane"),
                "{}: a pane imports the editor shell: {line}",
                path.display()
            );
        }
    });
    // The edit layer's field access: reflect.rs (navigation and typed values) is below field.rs
    // (field edits); the handles (handle.rs) are below both.
    assert!(
        !uses("core/src/edit/reflect.rs")
            .iter()
            .any(|line| line.contains("field::"))
    );
    assert!(
        uses("core/src/edit/field.rs")
            .iter()
            .any(|line| line.contains("reflect::"))
    );
    assert!(
        !uses("core/src/edit/handle.rs")
            .iter()
            .any(|line| line.contains("super::") || line.contains("crate::edit")),
        "handle.rs imports the edit layer"
    );
    // No JSON values in the editor outside the files that read and write JSON on purpose.
    let ui = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src");
    let mut stack = vec![ui];
    let allowed = ["settings.rs", "i18n.rs"];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if allowed.contains(&name.as_str()) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // Code before the unit tests (tests build JSON fixtures freely).
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for needle in ["serde_json::Value", "json!", "serde_json::to_value"] {
                assert!(!code.contains(needle), "{}: uses {needle}", path.display());
            }
        }
    }
}
