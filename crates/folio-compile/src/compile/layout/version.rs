//! The versions of the docs a site keeps side by side, as the layout hands them on: what each is
//! called and where its pages are (the generators' presets find them), and the check of the one
//! the command line names.
//!
//! Data and a check only: reads nothing.

use crate::compile::diagnostic::{Code, Diagnostic};

/// A version of the docs a site keeps side by side (Docusaurus's `versions.json` and
/// `versioned_docs/`), as its generator names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteVersion {
    /// The version's name: `current` for the docs folder, else its name in `versions.json`.
    pub name: String,
    /// What the site calls it (`Next` for the current docs unless the config says otherwise).
    pub label: String,
    /// The folder holding its pages, content-relative (`versioned_docs/version-2.0`).
    pub dir: String,
}

/// The `invalid-config` error for `--version NAME` naming none of the site's `versions`.
pub(super) fn unknown(requested: Option<&str>, versions: &[SiteVersion]) -> Option<Diagnostic> {
    let name = requested?;
    if versions.iter().any(|v| v.name == name) {
        return None;
    }
    let known: Vec<String> = versions.iter().map(|v| format!("`{}`", v.name)).collect();
    let help = if known.is_empty() {
        "the site keeps no versions (no `versions.json` beside a Docusaurus config)".to_owned()
    } else {
        format!("its versions are {}", known.join(", "))
    };
    Some(
        Diagnostic::error(
            Code::InvalidConfig,
            ".",
            1,
            1,
            format!("--version `{name}`: the site keeps no such version"),
        )
        .with_help(help),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_the_site_does_not_keep_is_an_error_listing_those_it_does() {
        let v =
            |name: &str| SiteVersion { name: name.to_owned(), label: name.to_owned(), dir: String::new() };
        let versions = [v("current"), v("2.0")];
        assert!(unknown(None, &versions).is_none());
        assert!(unknown(Some("2.0"), &versions).is_none());
        let d = unknown(Some("3.0"), &versions).unwrap();
        assert_eq!(
            (d.code, d.path.as_str(), d.message.as_str()),
            (Code::InvalidConfig, ".", "--version `3.0`: the site keeps no such version")
        );
        assert_eq!(d.help.as_deref(), Some("its versions are `current`, `2.0`"));
        assert!(unknown(Some("1.0"), &[]).unwrap().help.unwrap().contains("keeps no versions"));
    }
}
