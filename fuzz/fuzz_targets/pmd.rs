//! The PMD reader on arbitrary bytes: it never panics; a file it reads writes back and reads
//! again to the same bytes; its model converts back to PMD and reads again.

#![no_main]

use libfuzzer_sys::fuzz_target;
use pmx_core::LoadOptions;
use pmx_core::formats::pmd;

fuzz_target!(|data: &[u8]| {
    let options = LoadOptions::default();
    let recovering = LoadOptions {
        recover: true,
        ..LoadOptions::default()
    };
    // Recovery mode reads as much as it can; it must not panic either.
    if let Ok((file, _)) = pmd::read_file(data, &recovering) {
        let _ = pmd::to_model(&file);
    }
    let Ok((file, _)) = pmd::read_file(data, &options) else {
        return;
    };
    let written = pmd::write_file(&file).expect("a file that was read can be written");
    let (again, _) = pmd::read_file(&written, &options).expect("what was written reads");
    assert_eq!(
        pmd::write_file(&again).expect("it writes again"),
        written,
        "PMD → PMD is stable"
    );
    let (model, _) = pmd::to_model(&file);
    let losses = pmd::pmd_losses(&model);
    if let Ok((bytes, report)) = pmd::write(&model) {
        assert_eq!(report.losses, losses, "write reports what pmd_losses lists");
        let (back, _) = pmd::read(&bytes, &options).expect("a written model reads");
        assert_eq!(back.vertices.len(), model.vertices.len());
        assert_eq!(back.bones.len(), model.bones.len());
        assert_eq!(back.materials.len(), model.materials.len());
    }
});
