"""Talking to the user's terminal and desktop, without Textual: the clipboard
(system tool or OSC 52) and notifications (bell, OSC 9, OSC 777)."""
