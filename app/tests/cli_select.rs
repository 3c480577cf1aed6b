//! `pmx-studio select`: every query of the selection grammar on the generated sample model
//! (and on Gene when the corpus is there), against sets worked out here independently (by
//! breadth-first search, face ranges, brute-force mirror search), one line per query as
//! ranges or JSON arrays; errors exit 2 naming the part.

// Test code: a failed expectation is the test failing.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::generate::sample_model;
use pmx_core::model::{Model, Weight};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn pmx_studio(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pmx-studio"))
        .args(args)
        .output()
        .expect("pmx-studio runs")
}

fn write_model(dir: &Path, name: &str, model: &Model) -> PathBuf {
    let path = dir.join(name);
    let bytes = pmx::write(model, &PmxSaveOptions::default()).unwrap().0;
    std::fs::write(&path, bytes).unwrap();
    path
}

/// The indices of one output line of ranges (`0-3,7`).
fn parse_ranges(line: &str) -> Vec<usize> {
    let mut indices = Vec::new();
    for part in line.split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => indices.extend(a.parse::<usize>().unwrap()..=b.parse().unwrap()),
            None => indices.push(part.parse().unwrap()),
        }
    }
    indices
}

/// Runs `select` with `queries` and returns each line's indices, checking the JSON form too.
fn select(file: &Path, queries: &[&str]) -> Vec<Vec<usize>> {
    let mut args = vec!["select", file.to_str().unwrap()];
    args.extend_from_slice(queries);
    let output = pmx_studio(&args);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<Vec<usize>> = text.lines().map(parse_ranges).collect();
    assert_eq!(lines.len(), queries.len(), "{text}");
    args.push("--json");
    let output = pmx_studio(&args);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let json: Vec<Vec<usize>> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(json, lines, "ranges and JSON agree");
    lines
}

fn sorted(set: impl IntoIterator<Item = usize>) -> Vec<usize> {
    set.into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Each vertex's neighbours through faces, as plain lists.
fn neighbours(model: &Model) -> Vec<Vec<usize>> {
    let mut lists = vec![Vec::new(); model.vertices.len()];
    for face in &model.faces {
        let corners = face.map(|v| v.get());
        for &a in &corners {
            for &b in &corners {
                if a != b {
                    lists[a].push(b);
                }
            }
        }
    }
    lists
}

/// Breadth-first search from `seeds`; with `by_position`, vertices at the same position join.
fn bfs(model: &Model, seeds: &[usize], by_position: bool) -> Vec<usize> {
    let lists = neighbours(model);
    let mut same_place: HashMap<[u32; 3], Vec<usize>> = HashMap::new();
    if by_position {
        for (i, vertex) in model.vertices.iter().enumerate() {
            let key = vertex.position.to_array().map(f32::to_bits);
            same_place.entry(key).or_default().push(i);
        }
    }
    let mut seen = vec![false; model.vertices.len()];
    let mut queue = std::collections::VecDeque::new();
    for &seed in seeds {
        seen[seed] = true;
        queue.push_back(seed);
    }
    while let Some(v) = queue.pop_front() {
        let key = model.vertices[v].position.to_array().map(f32::to_bits);
        let twins = same_place.get(&key).cloned().unwrap_or_default();
        for &next in lists[v].iter().chain(&twins) {
            if !seen[next] {
                seen[next] = true;
                queue.push_back(next);
            }
        }
    }
    (0..seen.len()).filter(|&v| seen[v]).collect()
}

/// The face range of `material`, summed from the face index counts here.
fn face_range(model: &Model, material: usize) -> std::ops::Range<usize> {
    let start: usize = model.materials[..material]
        .iter()
        .map(|m| m.face_index_count as usize / 3)
        .sum();
    start..start + model.materials[material].face_index_count as usize / 3
}

fn bone_weight(weight: &Weight, bone: usize) -> f32 {
    let is = |b: &Option<pmx_core::model::BoneIdx>| b.is_some_and(|b| b.get() == bone);
    match weight {
        Weight::Bdef1 { bone: b } => f32::from(u8::from(is(b))),
        Weight::Bdef2 { bones, weight } | Weight::Sdef { bones, weight, .. } => {
            let mut sum = 0.0;
            if is(&bones[0]) {
                sum += weight;
            }
            if is(&bones[1]) {
                sum += 1.0 - weight;
            }
            sum
        }
        Weight::Bdef4 { bones, weights } | Weight::Qdef { bones, weights } => {
            (0..4).filter(|&i| is(&bones[i])).map(|i| weights[i]).sum()
        }
    }
}

/// The vertex nearest `vertex`'s mirror image within the lookup's tolerance (1e-4 of the
/// bounding box diagonal), by trying every vertex.
fn brute_mirror(model: &Model, vertex: usize) -> Option<usize> {
    let positions: Vec<[f32; 3]> = model
        .vertices
        .iter()
        .map(|v| v.position.to_array())
        .collect();
    let mut low = [f32::INFINITY; 3];
    let mut high = [f32::NEG_INFINITY; 3];
    for p in &positions {
        for axis in 0..3 {
            low[axis] = low[axis].min(p[axis]);
            high[axis] = high[axis].max(p[axis]);
        }
    }
    let distance = |a: [f32; 3], b: [f32; 3]| {
        ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
    };
    let tolerance = (distance(high, low) * 1e-4).max(1e-6);
    let p = positions[vertex];
    if p[0].abs() <= tolerance {
        return Some(vertex);
    }
    let image = [-p[0], p[1], p[2]];
    positions
        .iter()
        .enumerate()
        .map(|(i, &q)| (distance(q, image), i))
        .filter(|(d, _)| *d <= tolerance)
        .min_by(|a, b| a.partial_cmp(b).unwrap())
        .map(|(_, i)| i)
}

fn grow(model: &Model, selected: &[usize]) -> Vec<usize> {
    let mut set: BTreeSet<usize> = selected.iter().copied().collect();
    for face in &model.faces {
        let corners = face.map(|v| v.get());
        if corners.iter().any(|v| selected.contains(v)) {
            set.extend(corners);
        }
    }
    sorted(set)
}

fn shrink(model: &Model, selected: &[usize]) -> Vec<usize> {
    let mut set: BTreeSet<usize> = selected.iter().copied().collect();
    for face in &model.faces {
        let corners = face.map(|v| v.get());
        if corners.iter().any(|v| !selected.contains(v)) {
            for v in corners {
                set.remove(&v);
            }
        }
    }
    sorted(set)
}

fn bone_named(model: &Model, name: &str) -> usize {
    model
        .bones
        .iter()
        .position(|bone| bone.name_ja.as_str() == name)
        .unwrap()
}

/// Every query of the grammar on `model` (written to `file`) against the sets worked out here.
fn check_every_query(model: &Model, file: &Path, seed: usize, bone: &str, material: usize) {
    let bone_index = bone_named(model, bone);
    let range: Vec<usize> = (0..model.vertices.len().min(100)).collect();
    let last = range.len() - 1;
    let material_name = model.materials[material].name_ja.as_str().into_owned();
    let queries = [
        format!("vertices:linked:{seed}"),
        format!("vertices:linked_by_position:{seed}"),
        format!("vertices:material:{material}"),
        format!("vertices:material:{material_name}"),
        format!("faces:material:{material}"),
        format!("vertices:weighted:{bone}>0.5"),
        format!("vertices:weighted:{bone}"),
        format!("vertices:mirror:0-{last}"),
        format!("vertices:grow:0-{last}"),
        format!("vertices:shrink:0-{last}"),
        format!("bones:children:{bone}"),
        format!("bones:descendants:{bone}"),
        format!("bones:0-2,{bone}"),
        "vertices:".to_owned(),
    ];
    let texts: Vec<&str> = queries.iter().map(String::as_str).collect();
    let answers = select(file, &texts);
    let material_vertices =
        sorted(face_range(model, material).flat_map(|face| model.faces[face].map(|v| v.get())));
    let weighted = |threshold: f32| {
        sorted(
            (0..model.vertices.len())
                .filter(|&v| bone_weight(&model.vertices[v].weight, bone_index) > threshold),
        )
    };
    let children: Vec<usize> = (0..model.bones.len())
        .filter(|&b| model.bones[b].parent.map(|p| p.get()) == Some(bone_index))
        .collect();
    let descendants: Vec<usize> = (0..model.bones.len())
        .filter(|&b| {
            let mut at = model.bones[b].parent;
            for _ in 0..model.bones.len() {
                match at {
                    Some(p) if p.get() == bone_index => return true,
                    Some(p) => at = model.bones[p.get()].parent,
                    None => return false,
                }
            }
            false
        })
        .collect();
    let expected = [
        bfs(model, &[seed], false),
        bfs(model, &[seed], true),
        material_vertices.clone(),
        material_vertices,
        face_range(model, material).collect(),
        weighted(0.5),
        weighted(0.0),
        sorted(range.iter().filter_map(|&v| brute_mirror(model, v))),
        grow(model, &range),
        shrink(model, &range),
        children,
        descendants,
        sorted([0, 1, 2, bone_index]),
        Vec::new(),
    ];
    for ((query, answer), expected) in queries.iter().zip(&answers).zip(&expected) {
        assert_eq!(answer, expected, "{query}");
    }
    // The sets are not trivially empty where the model has something to find.
    assert!(answers[0].contains(&seed));
    assert!(!answers[2].is_empty());
}

#[test]
fn every_query_on_the_sample_model_matches_sets_worked_out_independently() {
    let dir = tempfile::tempdir().unwrap();
    let model = sample_model();
    let file = write_model(dir.path(), "sample.pmx", &model);
    let bone = model
        .bones
        .iter()
        .find(|b| {
            let name = b.name_ja.as_str();
            model.bones.iter().any(|c| {
                c.parent
                    .is_some_and(|p| model.bones[p.get()].name_ja.as_str() == name)
            }) && model
                .vertices
                .iter()
                .any(|v| bone_weight(&v.weight, bone_named(&model, &name)) > 0.5)
        })
        .expect("a bone with children and vertices")
        .name_ja
        .as_str()
        .into_owned();
    check_every_query(&model, &file, 0, &bone, 0);
    // The JSON form reads too (any format the registry opens).
    let json = dir.path().join("sample.json");
    std::fs::write(&json, pmx_core::formats::json::write(&model).unwrap()).unwrap();
    let answers = select(&json, &["vertices:linked:0"]);
    assert_eq!(answers[0], bfs(&model, &[0], false));
}

#[test]
fn queries_that_name_nothing_are_errors_naming_the_part() {
    let dir = tempfile::tempdir().unwrap();
    let model = sample_model();
    let file = write_model(dir.path(), "sample.pmx", &model);
    let materials = model.materials.len();
    let cases = [
        (
            "vertices:material:99".to_owned(),
            format!("vertices:material:99: the model has {materials} materials (0..{materials})"),
        ),
        (
            "bones:children:ない".to_owned(),
            "bones:children:ない: no bone named \"ない\"".to_owned(),
        ),
        (
            "vertices:linky:1".to_owned(),
            "\"linky\" is not an operation on vertices".to_owned(),
        ),
        (
            "vertices:weighted:0>half".to_owned(),
            "\"half\" is not a weight threshold".to_owned(),
        ),
        (
            format!("vertices:{}", model.vertices.len()),
            "the model has".to_owned(),
        ),
        (
            "bonez:1".to_owned(),
            "bonez: not an element kind".to_owned(),
        ),
    ];
    for (query, message) in cases {
        // A good query beside it prints nothing either: the lines always match the queries.
        let output = pmx_studio(&["select", file.to_str().unwrap(), "bones:0", &query]);
        assert_eq!(output.status.code(), Some(2), "{query}: {output:?}");
        assert!(output.stdout.is_empty(), "{query}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(&message), "{query}: {stderr}");
    }
    let missing = pmx_studio(&["select", "/nonexistent/model.pmx", "bones:0"]);
    assert_eq!(missing.status.code(), Some(1));
}

fn gene() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/corpus/pmx/pmxeditor_gene_cc_by.pmx");
    if path.is_file() {
        Some(path)
    } else {
        println!("skipped: corpus file {} is absent", path.display());
        None
    }
}

#[test]
fn on_gene_the_linked_part_of_an_eye_vertex_is_that_eye() {
    let Some(file) = gene() else {
        return;
    };
    let model = pmx_core::formats::load_path(&file, &Default::default())
        .unwrap()
        .model;
    // A vertex the left eye bone alone moves: a vertex of the eyeball.
    let eye = bone_named(&model, "左目");
    let seed = (0..model.vertices.len())
        .find(|&v| bone_weight(&model.vertices[v].weight, eye) >= 1.0)
        .expect("an eye vertex");
    let part = bfs(&model, &[seed], false);
    assert!(
        part.len() > 3 && part.len() < model.vertices.len() / 10,
        "{}",
        part.len()
    );
    let material = (0..model.materials.len())
        .find(|&m| face_range(&model, m).any(|f| model.faces[f].iter().any(|v| v.get() == seed)))
        .unwrap();
    check_every_query(&model, &file, seed, "左腕", material);
}

#[test]
fn render_and_run_take_the_same_grammar() {
    let dir = tempfile::tempdir().unwrap();
    let model = sample_model();
    let file = write_model(dir.path(), "sample.pmx", &model);
    let out = dir.path().join("out.png");
    let file_text = file.to_str().unwrap();
    // A query naming nothing fails before anything is drawn (no OpenGL needed to see it).
    let render = pmx_studio(&[
        "render",
        file_text,
        out.to_str().unwrap(),
        "--select",
        "vertices:material:99",
    ]);
    assert_ne!(render.status.code(), Some(0));
    let stderr = String::from_utf8(render.stderr).unwrap();
    assert!(
        stderr.contains("vertices:material:99: the model has"),
        "{stderr}"
    );
    // `run` selects by a query: flip_normals on the linked part of vertex 0 writes a file.
    let flipped = dir.path().join("flipped.pmx");
    let run = pmx_studio(&[
        "run",
        "flip_normals",
        file_text,
        flipped.to_str().unwrap(),
        "--select",
        "vertices:linked:0",
    ]);
    assert_eq!(run.status.code(), Some(0), "{run:?}");
    let bad = pmx_studio(&[
        "run",
        "flip_normals",
        file_text,
        flipped.to_str().unwrap(),
        "--select",
        "vertices:grow:999999",
    ]);
    assert_ne!(bad.status.code(), Some(0));
    let stderr = String::from_utf8(bad.stderr).unwrap();
    assert!(
        stderr.contains("vertices:grow:999999: the model has"),
        "{stderr}"
    );
}
