//! `folio list`, `folio show` and `folio search`: offline browsing of a catalog.

use std::process::ExitCode;

use super::{ListArgs, SearchArgs, ShowArgs};

pub(crate) fn list(args: &ListArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn show(args: &ShowArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn search(args: &SearchArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    Ok(ExitCode::SUCCESS)
}
