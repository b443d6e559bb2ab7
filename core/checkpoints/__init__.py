"""Checkpoints of the workspace per turn, and restores that put files back (/undo, /redo,
rewinds, `rivulet undo`).

The design (measured against a shadow git repository in benchmarks/checkpoint_bench.py):
a stat walk of the workspace (`walk.py`, `.gitignore` honoured, links never followed)
and a content-addressed copy of every file whose stat changed since the last walk
(`objects.py`). A turn's checkpoint (`store.py`) is the list of paths its walk before and
its walk after disagree on, with both sides' entries, so patches, shell commands and MCP
servers are covered alike. A restore (`restore.py`) is all or nothing through a journal.
No git runs, so a hostile repository's hooks, config, attributes and filters never do.
"""
