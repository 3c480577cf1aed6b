//! PMX 2.0 / 2.1 (`specs/pmx-2.1.ja.txt`).

mod read;
mod sizes;
mod write;

pub use read::{
    MAGIC, PmxSummary, SummarySource, read, read_file, read_on_one_thread, read_summary,
    read_with_progress,
};
pub use write::{
    IndexSizeMode, Pmx21Feature, Pmx21Use, PmxSaveOptions, choose_index_sizes, pmx21_features,
    write, write_file, write_to,
};
