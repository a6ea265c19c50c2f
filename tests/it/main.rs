//! The one integration-test binary (one link step on 2-core machines): every module runs the
//! real `folio` binary or the library against trees in fresh temporary directories.

mod bench_corpus;
mod bundle;
mod cli_browse;
mod cli_golden;
mod compile;
mod embedding;
mod forged_catalog;
mod guide_shell;
mod hardening_content;
mod hosts;
mod import_circles;
mod incremental;
mod install_lines;
mod lenient;
mod licences;
mod links;
mod live;
mod live_root;
mod live_serve;
mod llms;
mod manual;
mod mapped;
mod mcp;
mod mcp_http;
mod mcp_http_limits;
mod mcp_http_rules;
mod mcp_params;
mod mcp_prompts;
mod mcp_stdio;
mod mdx;
mod query;
mod real_trees;
mod search_eval;
#[cfg(feature = "semantic")]
mod semantic;
#[cfg(not(feature = "semantic"))]
mod semantic_off;
mod shelf;
mod skill_files;
mod skill_routing;
mod skills_spec;
mod support;
#[cfg(target_os = "linux")]
mod swap_race;
mod translations;
mod versions;
mod web;
