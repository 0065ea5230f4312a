//! The `ranklens` binary: a subcommand runs the CLI; no subcommand opens the desktop app.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
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
    match ranklens::gui::run(open) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

#[cfg(not(feature = "gui"))]
fn open_app(_cli: &ranklens::cli::Cli) -> ExitCode {
    eprintln!("this build has no desktop app (built without the `gui` feature); see `ranklens --help`");
    ExitCode::from(2)
}
