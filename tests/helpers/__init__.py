"""Helpers shared by tests across the tree (tests/ is on sys.path; see pyproject)."""
