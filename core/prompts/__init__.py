"""Commands of the user's own: saved prompts that become `/NAME` (files.py finds them,
expand.py fills in their arguments), `/init`'s request for an AGENTS.md, and what a
`!cmd` typed in the composer adds to the next message (shell_context.py)."""
