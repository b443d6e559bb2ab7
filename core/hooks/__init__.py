"""The user's own commands run at set points of a session (`[[hooks]]` in the config):
spec.py reads them, runner.py runs one, dispatch.py fires an event's hooks and says
what they did. No Textual here: every front end shows `HookNote`s its own way."""
