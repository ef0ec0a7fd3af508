//! Progress on standard error, in one style for every command: a bar for work that
//! counts its steps (`bench`, `ct-check`, `selftest`, `report`) and a spinner for work
//! that takes seconds and has no count to show (generating an RSA key, about ten seconds
//! at 8192 bits, or DSA parameters). Both are drawn only where standard error is a
//! terminal, so scripts and pipes see nothing; the commands clear them when done, so
//! that a result, an `error:` line or the shell's prompt starts on a clean line.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// A bar of `len` steps: the elapsed time, the steps done, an estimate of the time left
/// and a message, `message` until the command sets another (what it is doing now).
/// Drawn at once; hidden where standard error is not a terminal. The caller clears it
/// (`finish_and_clear`).
pub fn bar(len: u64, message: &'static str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed}] {bar:30} {human_pos}/{human_len} (eta {eta}) {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    // Setting the message draws the first frame.
    bar.set_message(message);
    bar
}

/// A running spinner; dropping it clears its line.
pub struct Spinner(ProgressBar);

impl Spinner {
    /// Shows `message`, a spinner and the elapsed time until dropped: drawn at once,
    /// then ten times a second from a thread of its own. Hidden where standard error is
    /// not a terminal.
    pub fn start(message: String) -> Self {
        if !std::io::stderr().is_terminal() {
            return Spinner(ProgressBar::hidden());
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message(message);
        bar.tick();
        bar.enable_steady_tick(Duration::from_millis(100));
        Spinner(bar)
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
