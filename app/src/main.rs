//! `pmx-studio`: the editor window, or a command-line tool when given a subcommand.

mod cli;
mod huge_pages;
#[cfg(feature = "gui")]
mod window;

use clap::Parser;
use std::process::ExitCode;

/// The system allocator, with a model's big lists on huge pages where Linux gives them.
#[global_allocator]
static ALLOCATOR: huge_pages::HugePageAllocator = huge_pages::HugePageAllocator;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    cli::set_lang(args.lang.as_deref());
    match args.command {
        Some(command) => cli::run(command),
        None => open_window(args.file, args.window),
    }
}

#[cfg(feature = "gui")]
fn open_window(file: Option<std::path::PathBuf>, options: cli::WindowArgs) -> ExitCode {
    match window::run(file, options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", cli::describe(&error));
            ExitCode::from(1)
        }
    }
}

#[cfg(not(feature = "gui"))]
fn open_window(_file: Option<std::path::PathBuf>, _options: cli::WindowArgs) -> ExitCode {
    eprintln!(
        "error: this pmx-studio was built without the editor window (feature \"gui\"); use a subcommand"
    );
    ExitCode::from(2)
}
