//! `folio build` and `folio check`.

use std::process::ExitCode;

use super::{BuildArgs, CheckArgs};

pub(crate) fn build(args: &BuildArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn check(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    Ok(ExitCode::SUCCESS)
}
