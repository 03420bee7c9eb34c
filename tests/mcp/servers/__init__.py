"""MCP servers the tests start: written with the SDK's server side, run as scripts."""
