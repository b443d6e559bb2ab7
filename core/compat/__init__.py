"""The only core modules that reach into a library's private API (one per library:
httpx, asyncio, mcp). Canaries: tests/core/test_compat_*.py; the list: ARCHITECTURE.md."""
