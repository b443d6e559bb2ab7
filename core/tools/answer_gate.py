"""Which keys may answer an approval question: the chat's dialog (widgets/dialogs.py) and
the terminal's prompt (app/tty_answer.py) ask the same gate.

Someone typing a message when a question opens goes on typing for a moment: their next
"a" would answer "yes for the session" (issue 35, item 5). So a key answers only after a
pause: `quiet` seconds with no key since the question opened or since the key before.
Every key, answering or not, starts that wait again, so a burst that began before the
question opened answers nothing however long it goes on. "Always" (and "always for this
tool") takes a second step: the first pick only selects it, the same pick again (after
the same pause) confirms it, and any other key drops the selection.

Times are the caller's monotonic seconds, passed in: a test gives its own, never sleeps.
"""

from __future__ import annotations

from rivulet.core.tools.approval import Decision

QUIET = 0.6  # seconds with no key before a key may answer
# The answers that take a second step: every "always" (for this call, for this tool).
CONFIRMED = frozenset(d for d in Decision if d.value.startswith("always"))


class AnswerGate:
    def __init__(self, opened_at: float, quiet: float = QUIET) -> None:
        self.quiet = quiet
        self._last = opened_at  # the question's opening, then the latest key
        self.selected: Decision | None = None  # an "always" picked once, waiting to be confirmed

    def left(self, now: float) -> float:
        """Seconds until a key may answer (0: one may now). With no wait at all (`quiet` 0, as
        tests that answer at once set it) every key counts, even one stamped before the opening."""
        return max(0.0, self._last + self.quiet - now) if self.quiet > 0 else 0.0

    def key(self, at: float, answer: Decision | None = None) -> Decision | None:
        """A key pressed at `at`, naming `answer` (None: a key that answers nothing, such as a
        letter of a message or an arrow). Returns the decision it gives, or None."""
        after_pause = self.left(at) == 0
        self._last = max(self._last, at)
        if answer is not self.selected:
            self.selected = None
        if answer is None or not after_pause:
            return None
        return self._pick(answer)

    def click(self, at: float, answer: Decision) -> Decision | None:
        """A pick that is not a key (a mouse click on a button): deliberate, so it does not
        start the wait again, but it counts only once the keyboard has paused."""
        return self._pick(answer) if self.left(at) == 0 else None

    def _pick(self, answer: Decision) -> Decision | None:
        """An answer after a pause: an "always" is selected first, given on its second pick."""
        if answer not in CONFIRMED:
            self.selected = None
            return answer
        if self.selected is answer:
            return answer
        self.selected = answer
        return None
