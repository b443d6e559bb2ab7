"""core"""

import sys

# httpx's __init__ imports its command-line tool (click, rich, pygments: a third of httpx's
# import time, ~50 ms) whenever those happen to be installed; rivulet never runs it. A None
# entry makes that one import fail, which httpx handles (its `main` then says the CLI's
# dependencies are missing). Only if httpx is not imported yet: then nothing has used it.
if "httpx" not in sys.modules:
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
