"""Subagents (issue 41): the model hands a task to a child conversation on the same
assembly (`spawn_agent`); several run at once, their events relayed on the parent's bus."""
