//! Every question about a catalog (list, detail, read, resolve, search), answered once for the
//! CLI, the MCP resources and the MCP tools, so they can never disagree.
//!
//! Performs no IO and knows nothing of clap, rmcp or tokio.
