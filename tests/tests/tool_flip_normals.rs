//! 法線反転 on a real model: exactly the selected normals turn round, one step, undone exactly.

use pmx_core::model::ElementKind;
use pmx_plugins::PluginSelection;
use pmx_tests::{corpus_model, run_tool};

#[test]
fn flipping_the_normals_of_gene_turns_exactly_the_selected_ones() {
    let Some(model) = corpus_model("pmx/pmxeditor_gene_cc_by.pmx") else {
        return;
    };
    let selection = PluginSelection::new().with(ElementKind::Vertex, vec![0, 10, 100]);
    let outcome = run_tool("flip_normals", &model, &selection, &serde_json::json!({}));
    assert_eq!(outcome.label_en, "Flip normals");
    assert_eq!(outcome.label_ja, "法線反転");
    assert_eq!(outcome.notes[0], "3 normals flipped");
    for (index, (before, after)) in model
        .vertices
        .iter()
        .zip(&outcome.after.vertices)
        .enumerate()
    {
        if [0, 10, 100].contains(&index) {
            assert_eq!(after.normal.x, -before.normal.x);
            assert_eq!(after.normal.y, -before.normal.y);
            assert_eq!(after.normal.z, -before.normal.z);
        } else {
            assert_eq!(after, before, "vertex {index}");
        }
    }
    // With nothing selected, every vertex.
    let all = run_tool(
        "flip_normals",
        &model,
        &PluginSelection::new(),
        &serde_json::json!({}),
    );
    assert_eq!(
        all.notes[0],
        format!("{} normals flipped", model.vertices.len())
    );
}
