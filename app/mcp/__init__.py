"""MCP servers in the app: the `rivulet mcp` command line and the wiring of servers into a conversation."""
