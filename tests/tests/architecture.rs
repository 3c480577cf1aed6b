//! Dependency rules from ARCHITECTURE.md: `core` never depends on GUI crates; the editor
//! (`pmx_ui`) and the view's GPU-free side (`pmx_scene`) never depend on the GL side.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
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

/// The workspace's root folder.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read_source(path: &str) -> String {
    let file = workspace().join(path);
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// The `use` statements of a source file of the workspace (`use`, `pub use`, `pub(crate) use`),
/// each on one line however rustfmt wrapped it.
fn uses(path: &str) -> Vec<String> {
    use_statements(&read_source(path))
}

fn use_statements(text: &str) -> Vec<String> {
    let mut statements = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        match &mut current {
            Some(statement) => {
                statement.push(' ');
                statement.push_str(line);
            }
            None if is_use(line) => current = Some(line.to_owned()),
            None => {}
        }
        if current.as_ref().is_some_and(|s| s.ends_with(';')) {
            statements.extend(current.take());
        }
    }
    statements
}

fn is_use(line: &str) -> bool {
    let rest = match line.strip_prefix("pub") {
        // `pub(crate) use`, `pub(super) use`
        Some(rest) if rest.starts_with('(') => rest.split_once(')').map_or("", |(_, r)| r),
        Some(rest) => rest,
        None => line,
    };
    rest.trim_start().starts_with("use ")
}

/// The source text without the items under `#[cfg(test)]` (unit tests may use any layer).
fn without_tests(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            code.push_str(line);
            code.push('\n');
            continue;
        }
        // Skip the item: through its `;`, or through its braces.
        let mut depth = 0;
        let mut opened = false;
        for line in lines.by_ref() {
            depth += line.matches('{').count();
            opened |= depth > 0;
            depth = depth.saturating_sub(line.matches('}').count());
            if if opened {
                depth == 0
            } else {
                line.trim_end().ends_with(';')
            } {
                break;
            }
        }
    }
    code
}

/// Calls `visit` with every Rust file under `dir` (a folder or one file) and its text.
fn for_each_rust_file(dir: &Path, visit: &mut dyn FnMut(&Path, &str)) {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(path) = stack.pop() {
        if path.is_dir() {
            stack.extend(
                std::fs::read_dir(&path)
                    .unwrap()
                    .flatten()
                    .map(|e| e.path()),
            );
        } else if path.extension().is_some_and(|e| e == "rs") {
            visit(&path, &std::fs::read_to_string(&path).unwrap());
        }
    }
}

/// What a `use` statement of the module `module` (`["model", "refs"]`) imports, as absolute
/// paths of the crate (`crate::edit::EditTarget`); paths into other crates as they are.
fn imported_paths(statement: &str, module: &[String]) -> Vec<String> {
    let tree = statement
        .split_once("use ")
        .map_or("", |(_, tree)| tree)
        .trim_end_matches(';');
    expand(tree)
        .into_iter()
        .map(|path| {
            let segments: Vec<&str> = path.split("::").map(str::trim).collect();
            let ups = segments.iter().take_while(|s| **s == "super").count();
            let (base, rest) = match segments.first().copied() {
                Some("crate") => (&module[..0], &segments[1..]),
                Some("self") => (module, &segments[1..]),
                Some("super") => (
                    &module[..module.len().saturating_sub(ups)],
                    &segments[ups..],
                ),
                _ => return path,
            };
            std::iter::once("crate")
                .chain(base.iter().map(String::as_str))
                .chain(rest.iter().copied())
                .collect::<Vec<_>>()
                .join("::")
        })
        .collect()
}

/// `a::{b, c::{d, e}}` as `a::b`, `a::c::d`, `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let (Some(open), Some(close)) = (tree.find('{'), tree.rfind('}')) else {
        return vec![tree.to_owned()];
    };
    let prefix = &tree[..open];
    let mut items = Vec::new();
    let mut depth = 0;
    let mut start = open + 1;
    for (at, c) in tree[..close].char_indices().skip(open + 1) {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&tree[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(&tree[start..close]);
    items
        .into_iter()
        .filter(|item| !item.trim().is_empty())
        .flat_map(expand)
        .map(|rest| format!("{prefix}{rest}"))
        .collect()
}

/// The module path of a file of `core/src` (`model/refs.rs` → `["model", "refs"]`).
fn core_module(relative: &Path) -> Vec<String> {
    let mut module: Vec<String> = relative
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if module
        .last()
        .is_some_and(|last| last == "mod" || last == "lib")
    {
        module.pop();
    }
    module
}

/// The core's layers, lowest first ("Dependencies point down only"): a module imports nothing
/// of a later layer. Modules not listed (`generate`) are not checked.
const CORE_LAYERS: &[&[&str]] = &[
    &["i18n", "serde_f32", "texture", "path"],
    &["model"],
    &["uv"],
    &["pose"],
    &["physics"],
    &["formats"],
    &["edit"],
    &["validate", "select"],
];

fn core_layer(module: &str) -> Option<usize> {
    CORE_LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The core module an absolute path names and its layer (`crate::edit::Edit` → `edit`).
fn layer_named(path: &str) -> Option<(&str, usize)> {
    let top = path
        .strip_prefix("crate::")?
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()?;
    Some((top, core_layer(top)?))
}

/// Every import of `core/src` under `root` that runs up [`CORE_LAYERS`], as
/// `file: statement (names crate::layer)`. Unit tests are left out; imports through `super::`
/// count like `crate::` ones, and so do paths written in the code.
fn core_layer_violations(root: &Path) -> Vec<String> {
    let src = root.join("core/src");
    let mut test_only = Vec::new();
    let mut files = Vec::new();
    for_each_rust_file(&src, &mut |path, text| {
        test_only.extend(test_modules_of(path, text));
        files.push((path.to_path_buf(), text.to_owned()));
    });
    let mut violations = Vec::new();
    for (path, text) in files {
        if test_only.iter().any(|test| path.starts_with(test)) {
            continue;
        }
        let relative = path.strip_prefix(&src).unwrap();
        let module = core_module(relative);
        let Some(own) = module.first().and_then(|top| core_layer(top)) else {
            continue;
        };
        let code = without_tests(&text);
        let mut named: Vec<(String, String)> = Vec::new();
        for statement in use_statements(&code) {
            for imported in imported_paths(&statement, &module) {
                named.push((statement.clone(), imported));
            }
        }
        for line in code.lines() {
            let line = line.split("//").next().unwrap_or_default();
            for (at, _) in line.match_indices("crate::") {
                named.push((line.trim().to_owned(), line[at..].to_owned()));
            }
        }
        for (statement, imported) in named {
            if let Some((top, layer)) = layer_named(&imported)
                && layer > own
            {
                violations.push(format!(
                    "core/src/{}: {statement} (names crate::{top})",
                    relative.display()
                ));
            }
        }
    }
    violations.sort();
    violations.dedup();
    violations
}

/// The files and folders of the modules `file` declares only under `#[cfg(test)]`.
fn test_modules_of(file: &Path, text: &str) -> Vec<PathBuf> {
    let folder = match file.file_stem().and_then(|s| s.to_str()) {
        Some("mod" | "lib" | "main") => file.parent().map(Path::to_path_buf),
        Some(stem) => file.parent().map(|parent| parent.join(stem)),
        None => None,
    };
    let Some(folder) = folder else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut under_test = false;
    for line in text.lines().map(str::trim) {
        if line == "#[cfg(test)]" {
            under_test = true;
            continue;
        }
        if under_test && line.starts_with("#[") {
            continue;
        }
        if under_test
            && let Some(name) = line
                .strip_prefix("mod ")
                .and_then(|rest| rest.strip_suffix(';'))
        {
            found.push(folder.join(format!("{name}.rs")));
            found.push(folder.join(name));
        }
        under_test = false;
    }
    found
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
    for_each_rust_file(&workspace().join("ui/src/widgets"), &mut |path, text| {
        for line in use_statements(text) {
            assert!(
                !line.contains("crate::panes") && !line.contains("crate::editor"),
                "{}: a widget imports a pane or the shell: {line}",
                path.display()
            );
        }
    });
    for_each_rust_file(&workspace().join("ui/src/panes"), &mut |path, text| {
        for line in use_statements(text) {
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
    let ui = workspace().join("ui/src");
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

/// The core's modules import only what is below them (ARCHITECTURE.md): the model and the path
/// grammar nothing of the formats, edits or validators; the formats nothing of edits or
/// validators.
#[test]
fn core_layers_import_only_what_is_below_them() {
    let violations = core_layer_violations(&workspace());
    assert!(
        violations.is_empty(),
        "imports that run up the core's layers:\n{}",
        violations.join("\n")
    );
}

/// The layer check sees the ways an import can run up: `crate::`, `super::` chains, groups,
/// `pub use`, wrapped statements and paths in the code; unit tests and comments do not count.
#[test]
fn the_core_layer_check_finds_imports_that_run_up() {
    let root = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| {
        let file = root.path().join("core/src").join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    };
    write(
        "model/mod.rs",
        "mod refs;\npub use crate::path::ElementKind;\n#[cfg(test)]\nmod tests;\n",
    );
    write(
        "model/refs.rs",
        "use super::super::edit::EditTarget;\nuse crate::{\n    formats::FileError,\n    path::ModelPath,\n};\n\
         /// [`crate::validate::check`]\nfn f() { crate::validate::check(); }\n\
         #[cfg(test)]\nmod tests {\n    use crate::validate::check;\n}\n",
    );
    write("model/tests.rs", "use crate::edit::Edit;\n");
    write("path.rs", "pub(crate) use super::edit::EditTarget;\n");
    write(
        "formats/pmx/write.rs",
        "use crate::validate::Issue;\nuse super::super::error::WriteError;\n",
    );
    write(
        "validate/mod.rs",
        "use crate::edit::Edit;\nuse crate::formats::LoadReport;\n",
    );
    let violations = core_layer_violations(root.path());
    let mut named: Vec<(&str, &str)> = violations
        .iter()
        .map(|v| {
            let (file, rest) = v.split_once(':').unwrap();
            (
                file,
                rest.rsplit_once("names ").unwrap().1.trim_end_matches(')'),
            )
        })
        .collect();
    named.sort_unstable();
    assert_eq!(
        named,
        [
            ("core/src/formats/pmx/write.rs", "crate::validate"),
            ("core/src/model/refs.rs", "crate::edit"),
            ("core/src/model/refs.rs", "crate::formats"),
            ("core/src/model/refs.rs", "crate::validate"),
            ("core/src/path.rs", "crate::edit"),
        ],
        "{violations:#?}"
    );
}
