//! `folio serve`: load a catalog and serve it over stdio or Streamable HTTP.

use std::process::ExitCode;

use super::ServeArgs;

pub(crate) fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let _ = args;
    Ok(ExitCode::SUCCESS)
}
