//! The one integration-test binary (one link step on 2-core machines).

mod mcp;
mod mcp_http;
