//! Importing a 1,000,000-triangle MQO: a 500 × 1000 grid of quads (501,501 vertices, smooth
//! shading, UVs) generated in memory as Metasequoia writes it, parsed, triangulated, given
//! normals and converted to a PMX model. Also the same grid as 1,000,000 explicit triangles.
//!
//! Then the imported model exported back to MQO (welding, text, cp932).
//!
//! `cargo bench -p pmx_core --bench mqo_import`

// A benchmark on generated data: a failure here is a bug to see at once, not input to handle.
#![allow(clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use pmx_core::formats::mqo::{MqoExportOptions, MqoImportOptions, read_mqo, write_mqo};
use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

const COLUMNS: usize = 1000;
const ROWS: usize = 500;

/// A wavy grid of `COLUMNS × ROWS` quads, or of twice as many triangles.
fn grid_mqo(triangles: bool) -> String {
    let mut text = String::from(
        "Metasequoia Document\r\nFormat Text Ver 1.1\r\n\r\nMaterial 1 {\r\n\t\"mat\" \
         shader(3) col(1.000 1.000 1.000 1.000) dif(0.800) amb(0.600) emi(0.000) \
         spc(0.000) power(5.00)\r\n}\r\nObject \"grid\" {\r\n\tshading 1\r\n\tfacet 59.5\r\n",
    );
    let width = COLUMNS + 1;
    let _ = write!(text, "\tvertex {} {{\r\n", width * (ROWS + 1));
    for row in 0..=ROWS {
        for column in 0..=COLUMNS {
            let (x, z) = (column as f32, row as f32);
            let y = (x * 0.05).sin() * (z * 0.07).cos() * 4.0;
            let _ = write!(text, "\t\t{x:.4} {y:.4} {z:.4}\r\n");
        }
    }
    text.push_str("\t}\r\n");
    let faces = COLUMNS * ROWS * if triangles { 2 } else { 1 };
    let _ = write!(text, "\tface {faces} {{\r\n");
    for row in 0..ROWS {
        for column in 0..COLUMNS {
            let a = row * width + column;
            let (b, c, d) = (a + 1, a + width + 1, a + width);
            let (u0, v0) = (column as f32 / COLUMNS as f32, row as f32 / ROWS as f32);
            let (u1, v1) = (
                (column + 1) as f32 / COLUMNS as f32,
                (row + 1) as f32 / ROWS as f32,
            );
            if triangles {
                let _ = write!(
                    text,
                    "\t\t3 V({a} {b} {c}) M(0) UV({u0:.5} {v0:.5} {u1:.5} {v0:.5} {u1:.5} {v1:.5})\r\n\
                     \t\t3 V({a} {c} {d}) M(0) UV({u0:.5} {v0:.5} {u1:.5} {v1:.5} {u0:.5} {v1:.5})\r\n"
                );
            } else {
                let _ = write!(
                    text,
                    "\t\t4 V({a} {b} {c} {d}) M(0) UV({u0:.5} {v0:.5} {u1:.5} {v0:.5} {u1:.5} \
                     {v1:.5} {u0:.5} {v1:.5})\r\n"
                );
            }
        }
    }
    text.push_str("\t}\r\n}\r\nEof\r\n");
    text
}

fn bench(c: &mut Criterion) {
    let options = MqoImportOptions::default();
    let quads = grid_mqo(false);
    let triangles = grid_mqo(true);
    let imported = read_mqo(quads.as_bytes(), &options).expect("the generated grid imports");
    println!(
        "grid: {} bytes, {} PMX vertices, {} triangles",
        quads.len(),
        imported.model.vertices.len(),
        imported.model.faces.len()
    );
    assert_eq!(imported.model.faces.len(), 1_000_000);

    let mut group = c.benchmark_group("mqo_import");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    group.bench_function("500k quads (1M triangles)", |b| {
        b.iter(|| black_box(read_mqo(black_box(quads.as_bytes()), &options)));
    });
    group.bench_function("1M triangles", |b| {
        b.iter(|| black_box(read_mqo(black_box(triangles.as_bytes()), &options)));
    });
    let export = MqoExportOptions::default();
    group.bench_function("export 1M triangles", |b| {
        b.iter(|| black_box(write_mqo(black_box(&imported.model), &export)));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
