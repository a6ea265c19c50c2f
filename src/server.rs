//! The MCP server: an rmcp `ServerHandler` over `Arc<Catalog>` answering resources, templates,
//! the Skills extension, completion and the fallback tools. It never reads the content tree.
