"""How a compaction summary is wrapped in the user message that carries it, so the
export and the screen can tell it from a prompt the user typed."""

SUMMARY_OPEN = "<conversation_summary>\nThe earlier part of this conversation was compacted into this summary:\n\n"
SUMMARY_CLOSE = "\n</conversation_summary>"
