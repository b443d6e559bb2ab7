"""The composer: multi-line input. Enter sends, ctrl+j (or shift+enter) adds a newline,
Up on the first line recalls earlier prompts. Bindings have ids, so users can remap them.

Keys are acted on here, in the order they arrived. Textual runs an App-level or
priority binding as soon as the App sees the key, ahead of the keys still queued for
this widget: an Enter that arrives with the text before it ("hello⏎" in one write, a
text expander, a fast typist over SSH) would send a half-typed draft. So every key this
widget binds is run from its own key handler instead.

A terminal that does not mark a paste sends its newlines as Enter. An Enter followed,
within the same input burst, by more keys is such a newline: the Enter waits until the
keys behind it have been seen, and sends only if none came with it.

Completion (widgets/completion.py): providers added with `add_completion_provider`
are asked on every edit whether they have choices at the cursor; while the popup shows
them, Up/Down/Tab/Enter act on it (see that module for the provider interface).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widget import Widget
from textual.widgets import TextArea
from textual.widgets.text_area import Document, Edit, EditResult

from rivulet.core.sanitize import sanitize
from rivulet.widgets.compat import textual as compat
from rivulet.widgets.completion import Completion, CompletionPopup, CompletionProvider, Trigger
from rivulet.widgets.paste_chips import PasteChips, is_large

if TYPE_CHECKING:
    from rivulet.core.store.prompt_history import PromptHistory


# Keys parsed from one terminal read are stamped microseconds apart (a busy machine
# may stretch that to milliseconds); a person cannot press another key this soon
# after Enter.
BURST = 0.025
# How long an Enter waits for keys of its burst that are still on their way.
SETTLE = 0.03
# An Enter deep inside machine-speed input (this many keys in a row, each within BURST of
# the one before) is most likely an unmarked paste's newline. The terminal hands such a
# paste over in reads of a few KiB, which a loaded machine may deliver tens of
# milliseconds apart: that Enter waits this long for the rest before it sends.
PASTE_RUN = 16
PASTE_SETTLE = 0.4
# The cursor blinks this long after the last key (or focus), then stays lit: a blink is
# two screen updates a second, which would be all an idle chat costs.
BLINK_FOR = 10.0
# The steer key with no turn to steer into (it used to send the draft).
IDLE_STEER_NOTE = "No turn is running to steer into: Enter sends"


def _shown_text(text: str) -> str:
    """Text as the composer holds it: controls as visible codes; a terminal pastes line
    ends as CR, and they stay line ends (not ␍)."""
    return sanitize(text.replace("\r\n", "\n").replace("\r", "\n"))


class Composer(TextArea):
    BINDINGS = [
        Binding("enter", "submit", "Send", id="composer.submit"),
        Binding("ctrl+j,shift+enter", "newline", "Newline", id="composer.newline"),
        Binding("up", "recall(-1)", "Previous prompt", id="composer.previous", show=False),
        Binding("down", "recall(1)", "Next prompt", id="composer.next", show=False),
        Binding("ctrl+g", "edit_externally", "Editor", id="composer.editor", show=False),
        # The last attachment chip above the composer goes (ctrl+x is TextArea's cut).
        Binding("ctrl+l", "app.detach_last", "Detach", id="composer.detach", show=False),
        # A large paste is a chip ("[Pasted 125 lines]"): this puts its text in its place.
        Binding("ctrl+b", "expand_paste", "Expand paste", id="composer.expand_paste", show=False),
        # While a turn runs: the draft into the turn's next request (app/handlers/queue.py);
        # idle it never sends (Enter does). alt+up: the queued messages.
        Binding("tab", "steer", "Steer", id="composer.steer", show=False),
        Binding("alt+up", "open_queue", "Edit queued", id="composer.queue", show=False),
        # The transcript's lines from the keyboard (widgets/line_select.py).
        Binding("alt+v", "app.select_lines", "Select lines", id="transcript.select_lines", show=False),
        # The transcript scrolls from here: typing never leaves the composer. The shift
        # variants are for terminals that keep plain PageUp for their own scrollback.
        Binding("pageup,shift+pageup", "app.scroll_transcript('page_up')", "Scroll", id="transcript.page_up"),
        Binding("pagedown,shift+pagedown", "app.scroll_transcript('page_down')", "Page down",
                id="transcript.page_down", show=False),
        Binding("ctrl+home,ctrl+shift+home", "app.scroll_transcript('top')", "Top", id="transcript.top", show=False),
        Binding("ctrl+end,ctrl+shift+end", "app.scroll_transcript('bottom')", "Bottom", id="transcript.bottom",
                show=False),
        Binding("ctrl+up", "app.scroll_transcript('line_up')", "Line up", id="transcript.line_up", show=False),
        Binding("ctrl+down", "app.scroll_transcript('line_down')", "Line down", id="transcript.line_down",
                show=False),
    ]

    @dataclass
    class Submitted(Message):
        composer: Composer
        text: str

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **kwargs)
        self.prompts: list[str] = []
        self._recall: int | None = None
        self._draft = ""
        self._pending_enter: float | None = None  # the time of an Enter not yet acted on
        self._pending_window = BURST  # how soon after it a key makes that Enter a newline
        self._run, self._last_key_at = 0, 0.0  # keys in a row at machine speed, and the last one's time
        self._keys: tuple[object, dict[str, Binding]] | None = None  # (keymap, key -> binding)
        self._typed: list[str] = []  # characters typed, not yet inserted (see _on_key)
        self._flush_queued = False
        # A PromptHistory: sent prompts kept across sessions (TextArea's `history` is its undo).
        self.prompt_store: PromptHistory | None = None
        # Called with each paste; True when it took the paste (an image path attached).
        self.paste_filter: Callable[[str], bool] | None = None
        self._blink_since = time.monotonic()
        self.completion_providers: list[CompletionProvider] = []
        self.popup = CompletionPopup(classes="completion")
        self.popup.on_pick = self._picked
        self._trigger: Trigger | None = None  # the one the popup shows
        self._closed_for: str | None = None  # Esc closed the popup for this text
        self.chips = PasteChips()  # large pastes, shown as "[Pasted N lines]" (widgets/paste_chips.py)
        # Set by the app (app/handlers/queue.py): True when a turn is running; True when the
        # running turn took the text; True when there is a queue to move into.
        self.turn_running: Callable[[], bool] = lambda: False
        self.steer_to: Callable[[str], bool] | None = None
        self.open_queue: Callable[[], bool] | None = None

    def on_mount(self) -> None:
        if isinstance(self.parent, Widget):  # the popup sits right above the composer
            self.parent.mount(self.popup, before=self)

    def _restart_blink(self) -> None:
        self._blink_since = time.monotonic()
        super()._restart_blink()

    def _toggle_cursor_blink_visible(self) -> None:
        if compat.cursor_visible(self) and time.monotonic() - self._blink_since > BLINK_FOR:
            self._pause_blink(visible=True)  # TextArea's own: the timer stops, the cursor shows
            return
        super()._toggle_cursor_blink_visible()

    def load_history(self, store: PromptHistory) -> None:
        self.prompt_store = store
        self.prompts = [*store.load(), *self.prompts]  # a draft cleared while the chat started stays

    # ---- keys, in order ---------------------------------------------------------------

    def yield_keys(self, keys: set[str]) -> None:
        """Keys the user's [keymap] gives to a binding elsewhere (app/keymap.py): the
        composer's own, such as TextArea's redo on ctrl+y, would take them first."""
        for key in keys:
            compat.bindings(self).key_to_bindings.pop(key, None)
        self._keys = None

    def _binding_for(self, key: str) -> Binding | None:
        keymap = compat.keymap(self.app)
        if self._keys is None or self._keys[0] is not keymap:  # once per keymap, not per key
            bindings = compat.bindings(self).copy()
            if keymap:
                bindings.apply_keymap(keymap)
            self._keys = (keymap, {k: b[0] for k, b in bindings.key_to_bindings.items() if b})
        return self._keys[1].get(key)

    def _settle(self, at: float) -> None:
        """A key arrived after a waiting Enter: part of its burst, the Enter was a newline."""
        if self._pending_enter is None:
            return
        pending, self._pending_enter = self._pending_enter, None
        if at - pending <= self._pending_window:
            self.insert("\n")
        else:
            self.action_submit()

    async def _on_key(self, event: events.Key) -> None:
        self._run = self._run + 1 if event.time - self._last_key_at <= BURST else 1
        self._last_key_at = event.time
        binding = self._binding_for(event.key)
        if binding is None and event.is_printable and event.character and not self.read_only:
            self._settle(event.time)  # (an Enter flushed the typed text before it waited)
            # Characters are gathered and inserted together once the keys already queued
            # are handled: one edit per burst instead of one per key (an unmarked paste of
            # 10,000 characters is 10,000 keys).
            self._typed.append(event.character)
            if not self._flush_queued:
                self._flush_queued = True
                self.call_later(self._flush_typed)
            event.stop()
            event.prevent_default()
            return
        self._flush_typed()
        self._settle(event.time)
        if event.key in ("up", "down", "tab") and self._completion_open():
            event.stop()
            event.prevent_default()
            if event.key == "tab":
                self._accept_completion()
            else:
                self.popup.move(-1 if event.key == "up" else 1)
            return
        if binding is None:
            return  # Textual goes on to TextArea's own handler
        event.stop()
        event.prevent_default()
        if binding.action == "submit":
            stamp = self._pending_enter = event.time
            in_paste = self._run >= PASTE_RUN
            self._pending_window = PASTE_SETTLE if in_paste else BURST
            # Through the App's queue and back through ours: every key of this burst that
            # the App has already received is handled before the Enter is resolved.
            self.set_timer(PASTE_SETTLE if in_paste else SETTLE,
                           lambda: self.app.call_later(self.call_later, self._resolve_enter, stamp))
            return
        await self.run_action(binding.action)

    async def _on_paste(self, event: events.Paste) -> None:
        self._flush_typed()
        self._settle(event.time)  # then TextArea's own handler inserts the text
        if self.paste_filter is not None and self.paste_filter(event.text):
            event.prevent_default()
            event.stop()
            return
        text = _shown_text(event.text)
        if is_large(text) and not self.read_only:  # a chip in its place; the text is sent
            event.prevent_default()
            event.stop()
            self.chips.prune(self.text)
            result = compat.replace_via_keyboard(self, self.chips.add(text), *self.selection)
            if result is not None:
                self.move_cursor(result.end_location)

    def _flush_typed(self) -> None:
        self._flush_queued = False
        if self._typed:
            text = "".join(self._typed)
            self._typed.clear()
            self._restart_blink()
            compat.replace_via_keyboard(self, text, *self.selection)

    def _resolve_enter(self, stamp: float) -> None:
        if self._pending_enter == stamp:
            self._pending_enter = None
            self.action_submit()

    # ---- completion ---------------------------------------------------------------------

    def add_completion_provider(self, provider: CompletionProvider) -> None:
        self.completion_providers.append(provider)

    def on_text_area_changed(self) -> None:
        self.refresh_completion()

    def on_text_area_selection_changed(self) -> None:
        self.refresh_completion()

    def refresh_completion(self) -> None:
        """Ask the providers what fits the text at the cursor, and show it."""
        text = self.text
        trigger = None
        if text != self._closed_for:
            self._closed_for = None
            cursor = self.cursor_location
            for provider in self.completion_providers:
                trigger = provider.find(text, cursor)
                if trigger is not None:
                    break
        self._trigger = trigger
        if trigger is not None and trigger.entries:
            self.popup.show(trigger.entries)
        elif self.popup.display:
            self.popup.hide()

    def _completion_open(self) -> bool:
        if not self.completion_providers:
            return False
        self.refresh_completion()  # keys of a burst may have changed the text since the last edit event
        return self.popup.is_open

    def close_completion(self) -> bool:
        """Esc: close the popup (until the text changes). False if it was not open."""
        if not self.popup.is_open:
            return False
        self._closed_for = self.text
        self.popup.hide()
        return True

    def _accept_completion(self, index: int | None = None) -> Completion | None:
        """Put the highlighted (or the `index`th) entry in place of the trigger's span."""
        trigger = self._trigger
        entry = self.popup.current if index is None else self.popup.entries[index]
        if trigger is None or entry is None:
            return None
        result = self.replace(entry.value, trigger.start, trigger.end)
        self.move_cursor(result.end_location)
        self._closed_for = self.text  # picked: no popup for the same text again
        self.popup.hide()
        return entry

    def _picked(self, index: int) -> None:
        """A click on an entry: inserted, as Tab does."""
        if 0 <= index < len(self.popup.entries):
            self._accept_completion(index)
            self.focus()

    # ---- actions ------------------------------------------------------------------------

    def action_submit(self) -> None:
        self._flush_typed()
        if self._completion_open():
            entry = self._accept_completion()
            if entry is None or not entry.submit:
                return
        text = self.chips.expand(self.text)
        if not text.strip():
            return
        self._sent(text)
        self.post_message(self.Submitted(self, text))

    def _sent(self, text: str) -> None:
        """`text` left the composer: it joins the prompts Up recalls."""
        self.chips.clear()
        if not self.prompts or self.prompts[-1] != text:
            self.prompts.append(text)
            if self.prompt_store is not None:
                self.prompt_store.append(text)
        self._recall = None
        self.clear()

    def action_steer(self) -> None:
        """Tab while a turn runs: the draft goes into it (see steer_to), or is queued as
        Enter queues it when the turn cannot take it now (a Tab pressed as the turn ends
        loses nothing: Codex learnt this, its #10035). With no turn it sends nothing: a Tab
        meant for a completion or the focus sent half-typed drafts (issue 38). The draft
        stays, and a short note says what sends. On an empty composer the focus moves."""
        text = self.chips.expand(self.text)
        if not text.strip() or self.steer_to is None:
            self.screen.focus_next()
        elif not self.turn_running():
            self.app.notify(IDLE_STEER_NOTE, timeout=3)
        elif self.steer_to(text):
            self._sent(text)
        else:
            self.action_submit()

    def action_open_queue(self) -> None:
        if self.open_queue is not None:
            self.open_queue()

    def clear_keeping_draft(self) -> None:
        """Ctrl+C on a draft: gone from the composer, not lost (Up brings it back); kept
        for this run only, as it was never sent."""
        self._flush_typed()
        text = self.chips.expand(self.text)
        if text.strip() and (not self.prompts or self.prompts[-1] != text):
            self.prompts.append(text)
        self._recall = None
        self.chips.clear()
        self.clear()

    @property
    def _text(self) -> Document:
        """The composer's document: a plain `Document` (no language is set, so TextArea never
        makes the syntax-aware kind; that one is a `Document` too)."""
        document = self.document
        assert isinstance(document, Document), type(document)
        return document

    def _offset(self) -> int:
        return self._text.get_index_from_location(self.cursor_location)

    def action_delete_left(self) -> None:
        """Backspace right after a paste chip takes the whole chip (and its text) away."""
        label = self.chips.ending_at(self.text, self._offset()) if self.chips and not self.selected_text else None
        if label is None:
            super().action_delete_left()
            return
        end = self._offset()
        self.replace("", self._text.get_location_from_index(end - len(label)), self.cursor_location)

    def action_expand_paste(self) -> None:
        """The chip at or before the cursor (else the last one) becomes its text."""
        text = self.text
        label = self.chips.last_in(text, self._offset()) or self.chips.last_in(text)
        if label is None:
            return
        start = text.rfind(label, 0, self._offset() + len(label))
        start = start if start >= 0 else text.rfind(label)
        loc = self._text.get_location_from_index
        result = self.replace(self.chips.text_of(label), loc(start), loc(start + len(label)))
        self.move_cursor(result.end_location)

    def action_newline(self) -> None:
        self.insert("\n")

    def action_recall(self, step: int) -> None:
        row, _ = self.cursor_location
        at_edge = row == 0 if step < 0 else row == self.document.line_count - 1
        if not at_edge or not self.prompts or (step > 0 and self._recall is None):
            # Ordinary cursor movement.
            self.action_cursor_up() if step < 0 else self.action_cursor_down()
            return
        if self._recall is None:
            self._draft = self.text
            self._recall = len(self.prompts)
        self._recall = max(0, min(len(self.prompts), self._recall + step))
        text = self._draft if self._recall == len(self.prompts) else self.prompts[self._recall]
        if self._recall == len(self.prompts):
            self._recall = None
        self._closed_for = text  # a recalled `/command` opens no popup: Up goes on through history
        self.load_text(text)
        self.move_cursor(self.document.end)

    def action_edit_externally(self) -> None:
        """The draft in $VISUAL / $EDITOR (as shells' ctrl+x ctrl+e); what is saved comes back."""
        import os
        import shlex
        import subprocess
        import tempfile

        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        with tempfile.NamedTemporaryFile("w", suffix=".md", prefix="rivulet-draft-", delete=False,
                                         encoding="utf-8") as f:
            f.write(self.text)
            path = f.name
        try:
            with self.app.suspend():
                code = subprocess.run([*shlex.split(editor), path]).returncode
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, ValueError) as exc:
            self.app.notify(f"Cannot run the editor {editor!r}: {exc}", severity="error", markup=False)
            return
        finally:
            try:
                os.unlink(path)
            except OSError:
                pass
        if code != 0:
            self.app.notify(f"The editor exited with status {code}: the draft is unchanged", severity="warning")
            return
        self.restore(text.removesuffix("\n"))

    def edit(self, edit: Edit) -> EditResult:
        """Every insertion (typed, pasted, completed, recalled) is shown and sent as
        sanitised text: an escape sequence pasted from elsewhere would otherwise reach
        the terminal raw when the composer draws it. What the user sees is what is sent."""
        if edit.text and not edit.text.isprintable():
            edit.text = _shown_text(edit.text)
        return super().edit(edit)

    def load_text(self, text: str) -> None:
        super().load_text(_shown_text(text))

    def restore(self, text: str) -> None:
        """Put unsent text back (an interrupted turn that sent nothing)."""
        self.load_text(text)
        self.move_cursor(self.document.end)
