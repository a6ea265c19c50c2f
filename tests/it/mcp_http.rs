//! Streamable HTTP at `/mcp` on a real socket (127.0.0.1:0) with a raw HTTP/1.1 client.
