//! Progress of the runs that can take long (embedding every section with a model, compiling a
//! large tree, bundling), drawn on stderr by `indicatif`: a bar with the count and the time
//! left when the total is known, a counter when it is not, cleared when the run ends.
//!
//! Drawn only when stderr is a terminal (and `TERM` is not `dumb`): a log or a pipe gets no bar
//! and no carriage returns, only the one summary line each command prints when it is done
//! (`wrote …`, `folio: embedded …`).
//!
//! Must not: write to stdout (it is the command's output), or print anything of its own when
//! stderr is not a terminal.

use std::io::IsTerminal as _;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar or counter on stderr, or nothing when stderr is not a terminal.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
}

/// Whether progress is drawn: stderr is a terminal that draws.
fn drawn() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
}

fn target() -> ProgressDrawTarget {
    // At most 10 redraws a second: a fast run costs the terminal nothing.
    ProgressDrawTarget::stderr_with_hz(10)
}

impl Progress {
    /// A bar counting `total` `unit`s (`embedding [####    ] 120/400 units, 12s left`).
    #[cfg_attr(not(feature = "semantic"), expect(dead_code, reason = "only embedding knows its total"))]
    pub(crate) fn bar(what: &str, total: u64, unit: &str) -> Progress {
        if !drawn() {
            return Progress { bar: None };
        }
        let template = format!("{{prefix}} [{{bar:30}}] {{pos}}/{{len}} {unit}, {{eta}} left");
        let style = ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("#>-");
        let bar = ProgressBar::with_draw_target(Some(total), target()).with_style(style);
        bar.set_prefix(format!("folio: {what}"));
        Progress { bar: Some(bar) }
    }

    /// A counter without a known total (`compiling ⠋ 1,200 files read`), ticking on its own so
    /// a long step shows it is alive.
    pub(crate) fn counter(what: &str, unit: &str) -> Progress {
        if !drawn() {
            return Progress { bar: None };
        }
        let template = format!("{{prefix}} {{spinner}} {{human_pos}} {unit} ({{elapsed}})");
        let style =
            ProgressStyle::with_template(&template).unwrap_or_else(|_| ProgressStyle::default_spinner());
        let bar = ProgressBar::with_draw_target(None, target()).with_style(style);
        bar.set_prefix(format!("folio: {what}"));
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress { bar: Some(bar) }
    }

    /// A spinner for a step of unknown length (`bundling: compiling ⠋ (3s)`).
    pub(crate) fn spinner(what: &str) -> Progress {
        if !drawn() {
            return Progress { bar: None };
        }
        let style = ProgressStyle::with_template("{prefix} {spinner} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        let bar = ProgressBar::with_draw_target(None, target()).with_style(style);
        bar.set_prefix(format!("folio: {what}"));
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress { bar: Some(bar) }
    }

    /// `n` more done.
    pub(crate) fn inc(&self, n: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(n);
        }
    }

    /// `done` done in all.
    #[cfg_attr(not(feature = "semantic"), expect(dead_code, reason = "only embedding knows its total"))]
    pub(crate) fn set(&self, done: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
        }
    }

    /// Removes the bar; the command prints its summary line next.
    pub(crate) fn finish(mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        // An error path drops the bar unfinished: clear it so the error starts a clean line.
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
