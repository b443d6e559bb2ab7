"""app"""

# The version `rivulet --version` prints, without reading package metadata (which costs
# more than the interpreter's start). tests/app/test_cli_startup.py keeps it equal to
# pyproject.toml's.
VERSION = "0.1.0"
# The embedded demo's model name (app/demo_server.py): the chat's first frame shows it
# before the demo server is started.
DEMO_MODEL = "rivulet-demo"
