//! Writes generated PMX files as seeds for the PMX fuzz target (`fuzz/fuzz_targets/pmx.rs`):
//! every feature in both versions and encodings, at index-size edges, plus the sample model.
//!
//! `cargo run -p pmx_core --example pmx_fuzz_seeds -- fuzz/corpus/pmx`

use pmx_core::formats::pmx::{self, PmxSaveOptions};
use pmx_core::generate::{feature_model, sample_model};
use pmx_core::model::{PmxVersion, TextEncoding};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "fuzz/corpus/pmx".into()),
    );
    std::fs::create_dir_all(&dir)?;
    let mut written = 0;
    let mut save =
        |name: String, model: &pmx_core::Model| -> Result<(), Box<dyn std::error::Error>> {
            let (bytes, _) = pmx::write(model, &PmxSaveOptions::default())?;
            std::fs::write(dir.join(name), bytes)?;
            written += 1;
            Ok(())
        };
    for version in [PmxVersion::V2_0, PmxVersion::V2_1] {
        for encoding in [TextEncoding::Utf8, TextEncoding::Utf16] {
            // Small sizes keep the fuzzer fast; 130 crosses the 1-byte signed index size.
            for (vertices, others) in [(4, 2), (12, 8), (40, 130)] {
                let model = feature_model(version, encoding, vertices, others);
                save(
                    format!(
                        "feature_{}_{}_{vertices}_{others}.pmx",
                        version.name(),
                        encoding.name()
                    ),
                    &model,
                )?;
            }
        }
    }
    save("sample.pmx".into(), &sample_model())?;
    println!("{written} seeds in {}", dir.display());
    Ok(())
}
