"""`rivulet --plain`: the chat as lines on the terminal's normal output (its own
scrollback, search and selection; screen readers; SSH at 80 columns). No full screen, no
cursor movement over earlier lines: what is printed stays printed.

choose.py decides when it runs; blocks.py cuts streamed Markdown into finished blocks;
printer.py prints the bus's events; reader.py reads the user's lines (prompt-toolkit on a
terminal); commands.py holds its slash commands and `!cmd`; chat.py runs it all on the
same core as exec and the full-screen chat."""
