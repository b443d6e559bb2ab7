"""The embedded demo's scripted words (app/demo_server.py streams them): its answers,
reasoning summaries, the patch it writes and its subagents' tasks."""

ANSWER = """Here is how rivulet follows a **Responses** stream:

1. `response.created` opens the response.
2. Each output item streams its deltas into a *live pane*.
3. Only `response.output_item.done` commits the item to history.

```python
async for event in transport.stream(request):
    match event:
        case Delta(kind, text):
            live_pane.append(text)      # transient
        case OutputItemDone(item):
            history.append(item)        # committed
```

You asked: "{prompt}". Ask me *what time is it?* to see a tool call, or to
*make a file* to see a patch stream as a live diff, ask for approval and apply.
"""

DEMO_PATCH = """*** Begin Patch
*** Add File: rivulet-demo.txt
+This file was written by rivulet's demo, through the apply_patch tool:
+the patch streamed as a live diff, you approved it, and it was applied.
+Delete it whenever you like.
*** End Patch
"""
PATCH_REASONING = "**Writing a patch**\n\nI will add a small file with `apply_patch`; the user approves it first."

REASONING = ("**Planning the answer**\n\nThe user wants to see the client at work. "
             "I will explain the stream lifecycle with a short code example.")
TOOL_REASONING = "**Checking the clock**\n\nI should call the `current_time` tool rather than guess."
DELEGATE_REASONING = ("**Splitting the work**\n\nTwo questions that do not depend on each other: "
                      "each goes to a subagent of its own, and both run at once.")
# The demo's subagents: each task (a subagent's first message) and its scripted answer.
DEMO_TASKS = {
    "Demo task: say which event commits an item.":
        "`response.output_item.done` commits an item to history; its deltas before it only drew a live pane.",
    "Demo task: say what /undo puts back.":
        "`/undo` puts back every file the last turn changed, subagents' changes included, and takes the turn "
        "out of the conversation.",
}
