//! Dependency rules from ARCHITECTURE.md: `core` never depends on GUI crates.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

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

#[test]
fn core_depends_on_no_gui_crate() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let workspace = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let output = Command::new(cargo)
        .current_dir(workspace)
        .args([
            "tree",
            "-p",
            "pmx_core",
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
    let crates: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert!(
        crates.contains(&"pmx_core") && crates.contains(&"serde"),
        "unexpected cargo tree output:\n{tree}"
    );
    for gui in GUI_CRATES {
        assert!(!crates.contains(&gui), "pmx_core depends on {gui}:\n{tree}");
    }
}
