//! The subcommands' printing: `outln!` for the report on standard output and `errln!` for
//! notes, warnings and errors on standard error, in place of `println!` and `eprintln!`,
//! which panic when the stream is gone (`pmx-studio check M.pmx | head -3` closes standard
//! output after three lines). A command whose report nobody reads any more still does its
//! job, writes its files and ends with its own exit code; it only stops printing.

use std::fmt;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a line could not be written to standard output: the rest of the report goes
/// nowhere (a reader that stopped reading does not come back).
static STDOUT_GONE: AtomicBool = AtomicBool::new(false);
/// The same for standard error.
static STDERR_GONE: AtomicBool = AtomicBool::new(false);

/// One line of the report on standard output. The first failure other than a closed pipe
/// (a full disk under a redirection, say) is said once on standard error, so that a report
/// cut short is not taken for a whole one.
pub(crate) fn stdout_line(line: fmt::Arguments<'_>) {
    if STDOUT_GONE.load(Ordering::Relaxed) {
        return;
    }
    // Standard output is line-buffered: the line goes out (or fails) here.
    if let Err(error) = writeln!(std::io::stdout().lock(), "{line}") {
        STDOUT_GONE.store(true, Ordering::Relaxed);
        if error.kind() != std::io::ErrorKind::BrokenPipe {
            stderr_line(format_args!(
                "warning: standard output: {error}; the rest of the report is not printed"
            ));
        }
    }
}

/// One line on standard error; nothing once it is gone (there is nowhere left to say so).
pub(crate) fn stderr_line(line: fmt::Arguments<'_>) {
    if STDERR_GONE.load(Ordering::Relaxed) {
        return;
    }
    if writeln!(std::io::stderr().lock(), "{line}").is_err() {
        STDERR_GONE.store(true, Ordering::Relaxed);
    }
}

/// `println!` that never panics: see the module documentation.
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::output::stdout_line(::std::format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics: see the module documentation.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::cli::output::stderr_line(::std::format_args!($($arg)*))
    };
}
