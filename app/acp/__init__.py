"""`rivulet acp`: rivulet as an Agent Client Protocol agent (JSON-RPC over stdio) for
editors (Zed, JetBrains, Neovim, Emacs, Toad), on the one assembly (core/assembly.py).

run.py starts it (stdout kept for the protocol alone), stdio.py frames the messages,
agent.py answers the protocol's methods, session.py is one editor session (its engine
and its turn), relay.py turns the bus's events into session updates (tool_calls.py: a
call's title, kind and content), permission.py asks the approval questions, prompt_blocks.py
reads a prompt's content blocks, replay.py replays a saved session. The SDK
(`agent-client-protocol`, package `acp`) is imported on this path only."""
