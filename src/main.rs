//! The `ranklens` binary: a subcommand runs the CLI; no subcommand opens the desktop app.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    tune_malloc();
    let cli = ranklens::cli::Cli::parse();
    match cli.command {
        Some(command) => ranklens::cli::run(command),
        None => open_app(&cli),
    }
}

#[cfg(feature = "gui")]
fn open_app(cli: &ranklens::cli::Cli) -> ExitCode {
    let split = if cli.paragraphs { ranklens::corpus::Split::Paragraph } else { ranklens::corpus::Split::File };
    let open = cli.open.clone().map(|p| ranklens::gui::CorpusChoice::Path(p, split));
    // Vectors given with --vectors open like a dropped file (their question vectors found beside them).
    let runs = cli.runs.run.iter().chain(&cli.runs.vectors).map(|r| ranklens::cli::split_run_arg(r)).collect();
    let mut engines = Vec::new();
    for path in &cli.runs.engine {
        match ranklens::external::LiveEngine::load(path) {
            Ok(e) => engines.push(e),
            Err(e) => {
                eprintln!("error: {}", e.report());
                return ExitCode::from(2);
            }
        }
    }
    match ranklens::gui::run(open, cli.question.clone(), runs, engines) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", ranklens::error::report(e.as_ref()));
            ExitCode::from(2)
        }
    }
}

#[cfg(not(feature = "gui"))]
fn open_app(_cli: &ranklens::cli::Cli) -> ExitCode {
    eprintln!("this build has no desktop app (built without the `gui` feature); see `ranklens --help`");
    ExitCode::from(2)
}

/// The neural encoders allocate and free tensors of several megabytes in every batch. glibc's
/// defaults serve those with fresh `mmap`s and hand them back at `free`, so every batch pays for
/// page faults again (a third of the encoding time was spent in the kernel). Keeping such blocks in
/// the heap and not trimming it makes the next batch reuse the same pages.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn tune_malloc() {
    // SAFETY: mallopt only changes allocator parameters; it is called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
        libc::mallopt(libc::M_TOP_PAD, 64 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn tune_malloc() {}
