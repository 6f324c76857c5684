//! What the examples share: their logging.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// Logs to stderr at `RUST_LOG`'s levels, or `default` without it. Colours only on a terminal:
/// escape codes would litter a file or a pipe (`2>&1 | tee log`), and `NO_COLOR` turns them off
/// as anywhere else.
pub fn init_logging(default: &str) {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| default.into()))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal() && !no_color)
        .init();
}
