"""Make untrusted (model / tool / server) text safe for a terminal.

What never reaches the screen raw is taken from the Unicode data (the `regex` library's
tables), not from a list kept here:
- the controls (Cc) but newline and tab: C0, DEL and C1 (U+0080-U+009F, which some
  terminals act on as ESC sequences of their own);
- the format characters (Cf): the bidi controls ("Trojan Source"), zero-width spaces and
  joiners, the tag characters (U+E0000-U+E007F, "ASCII smuggling": text a model reads
  and a human does not see), the interlinear annotation marks;
- every Default_Ignorable_Code_Point: what Unicode tells a renderer to show as nothing,
  among them the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), the combining grapheme
  joiner (U+034F), the Khmer inherent vowels (U+17B4-5) and the variation selectors;
- the surrogates (no terminal can draw one) and the line and paragraph separators (a
  line break that one terminal takes and another does not);
- the braille blank (U+2800), which its data calls a visible symbol (So, not
  default-ignorable), yet it is drawn as an empty cell that passes for a space.
Each is replaced by a visible code: a control picture for C0 (␛ for ESC), ␡, \\x9b for C1,
\\u3164 for the rest. The work is per character, so a sequence split across two deltas is
neutralised just the same: the ESC that would start it is gone whichever delta it is in.

One exception keeps emoji whole in the transcript: a zero-width joiner (U+200D) between
two emoji (👨‍👩‍👧) and a text or emoji selector (U+FE0E, U+FE0F) right after an emoji
(❤️). Anywhere else the joiner shows as its code: between letters it joins or splits
words unseen. A stream's delta is sanitised on its own, so a joiner at a delta's edge has
no emoji on one side and shows as its code in the live pane; the committed entry,
sanitised whole, shows the emoji.

`reveal` is the stricter view for what the user is asked to approve: every hidden
character is a code (the joiners and selectors of emoji too, tabs and CRs), and it says
which kinds it found. `mixed_script_words` finds the words that mix Latin letters with
look-alike letters of another script (`сurl` with a Cyrillic с).

Speed: this is on the path of every streamed delta. ASCII text (most of it) takes one
`re` scan for C0 and DEL at most and never loads `regex`. A short delta made only of
characters already seen to be safe needs no scan. Other text takes the scans, which find
nothing in ordinary text: Python's isprintable() (text it passes, newlines aside, can
hide only the printable ignorables), `re` for the fixed ranges, then `regex` for each
property on its own (one property scans several times faster than a class of several).
Only text that holds something hidden is rebuilt.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import regex

# C0 but newline and tab, and DEL: all ASCII can hold (the one pattern compiled at import).
_ASCII = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
# The fixed ranges, no table needed: C0, DEL and C1 (the Cc category, which Unicode's
# stability policy freezes), the surrogates (Cs, fixed by definition), the line and
# paragraph separators (Zl, Zp: one character each) and the braille blank (see above).
_FIXED = "\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u2800"
_JOINER, _SELECTORS = "\u200d", "\ufe0e\ufe0f"


class _Tables(NamedTuple):
    fixed: re.Pattern[str]
    fixed_and_tab: re.Pattern[str]  # reveal shows tabs too
    joiners: re.Pattern[str]  # the joiner and the selectors, emoji's or not
    format: regex.Pattern[str]
    ignorable: regex.Pattern[str]
    bidi: regex.Pattern[str]
    pictograph: regex.Pattern[str]  # what an emoji joiner may join
    emoji: regex.Pattern[str]  # what a selector may follow
    mixed: regex.Pattern[str]  # a word of Latin and look-alike letters
    lookalike: regex.Pattern[str]


# Scripts whose letters pass for Latin ones (а е о р с у х, ο ν, օ ս, Ꭺ Ꮯ).
LOOKALIKE_SCRIPTS = ("Cyrillic", "Greek", "Armenian", "Cherokee")


def load_tables() -> None:
    """Load the Unicode tables now (the chat's boot thread does), not with the first text
    that is not all ASCII, in the middle of a stream."""
    _tables()


@cache
def _tables() -> _Tables:
    """Compiled on first need: text that is all ASCII never loads `regex` (~7-15 ms)."""
    import regex

    lookalike = "[" + "".join(rf"\p{{Script={s}}}" for s in LOOKALIKE_SCRIPTS) + "]"
    # The joiner and the selectors are left to _hidden_at, which knows when they are an emoji's.
    return _Tables(re.compile(f"[{_FIXED}]"), re.compile(f"[\t{_FIXED}]"), re.compile(f"[{_JOINER}{_SELECTORS}]"),
                   regex.compile(r"(?!\u200d)\p{Cf}"),
                   regex.compile(r"(?![\u200d\ufe0e\ufe0f])\p{Default_Ignorable_Code_Point}"),
                   regex.compile(r"\p{Bidi_Control}"), regex.compile(r"[\p{Extended_Pictographic}\p{Emoji_Modifier}]"),
                   regex.compile(r"\p{Emoji}"),
                   regex.compile(rf"(?<!\w)(?=\w*\p{{Script=Latin}})(?=\w*{lookalike})\w+"), regex.compile(lookalike))


def _code(c: str) -> str:
    o = ord(c)
    if o < 0x20:
        return chr(0x2400 + o)  # the Control Pictures block: ␛ for ESC
    if o == 0x7F:
        return "\u2421"  # ␡
    if o < 0xA0:
        return f"\\x{o:02x}"
    return f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}"


_ASCII_TABLE = str.maketrans({c: _code(chr(c)) for c in (*range(0x20), 0x7F) if c not in (0x09, 0x0A)})


def _hidden_at(text: str, keep_emoji: bool) -> list[int]:
    """Where `text` holds a hidden character, in order: for the transcript (`keep_emoji`:
    not the joiners and selectors that are part of an emoji), or for an approval (every
    one, and tabs)."""
    t = _tables()
    fixed = t.fixed if keep_emoji else t.fixed_and_tab
    # Python's isprintable() is False for every Cc, Cf, Cs, Zl and Zp character: text it
    # passes, newlines aside (most text), can hide only printable ones.
    scans: list[re.Pattern[str] | regex.Pattern[str]] = [fixed, t.format, t.ignorable]
    if (text.replace("\n", "") if "\n" in text else text).isprintable():
        scans = [t.ignorable, fixed] if "\u2800" in text else [t.ignorable]
    found: list[int] = []
    for scan in scans:  # (a plain loop, and a search first: the common miss costs least)
        if scan.search(text) is not None:
            found.extend(m.start() for m in scan.finditer(text))
    if _has_joiners(text):
        found.extend(m.start() for m in t.joiners.finditer(text) if not (keep_emoji and _in_emoji(text, m.start())))
    return sorted(set(found)) if found else found


def _has_joiners(text: str) -> bool:
    return _JOINER in text or _SELECTORS[0] in text or _SELECTORS[1] in text


@cache
def _pictograph(c: str) -> bool:
    return _tables().pictograph.match(c) is not None


@cache
def _emoji(c: str) -> bool:
    return _tables().emoji.match(c) is not None


def _in_emoji(text: str, i: int) -> bool:
    """Whether the joiner or selector at `i` is part of an emoji sequence."""
    if text[i] in _SELECTORS:
        return i > 0 and _emoji(text[i - 1])
    if text[i] != _JOINER or i + 1 >= len(text) or not _pictograph(text[i + 1]):
        return False
    before = i - 2 if i >= 2 and text[i - 1] == "\ufe0f" else i - 1  # 🏳️‍🌈: flag, selector, joiner
    return before >= 0 and _pictograph(text[before])


def _shown(text: str, at: list[int]) -> str:
    out: list[str] = []
    last = 0
    for i in at:
        out += (text[last:i], _code(text[i]))
        last = i + 1
    out.append(text[last:])
    return "".join(out)


# Characters seen to be safe on their own, whatever their neighbours (so never the joiner or
# a selector): a stream's short deltas made of them need no scan. Bounded.
_SAFE = {chr(c) for c in range(0x20, 0x7F)} | {"\n", "\t"}
_SAFE_MAX, _SHORT = 16_384, 32


def sanitize(text: str) -> str:
    """Untrusted text with every terminal control and hidden character made visible
    (\\r\\n becomes \\n)."""
    if text.isascii():
        if text.isprintable() or _ASCII.search(text) is None:
            return text
        return text.replace("\r\n", "\n").translate(_ASCII_TABLE)
    short = len(text) <= _SHORT
    if short and _SAFE.issuperset(text):
        return text
    at = _hidden_at(text, keep_emoji=True)
    if not at:
        if short and len(_SAFE) < _SAFE_MAX and not _has_joiners(text):
            _SAFE.update(text)  # all safe, and none of them safe only beside an emoji
        return text
    if "\r\n" in text:
        text = text.replace("\r\n", "\n")
        at = _hidden_at(text, keep_emoji=True)
    return _shown(text, at)


_ROW = str.maketrans({0x0A: "\u240a", 0x09: "\u2409"})


def one_row(text: str) -> str:
    """Untrusted text for a single row (a file name in a list): sanitised, and a newline
    or tab shown as ␊ / ␉, so one name can never look like two rows."""
    return sanitize(text).translate(_ROW)


def short_row(text: str, limit: int) -> str:
    """Untrusted text as one short row (a name, a task, a first line): sanitised, its
    whitespace runs one space, cut at `limit` characters with "…" as the last."""
    row = " ".join(sanitize(text).split())
    return row if len(row) <= limit else row[:limit - 1] + "…"


def reveal(text: str) -> tuple[str, list[str]]:
    """(text with every control and hidden character shown, what kinds were found).
    Newlines stay newlines; a lone or paired CR shows as ␍ (it can hide a line's start)."""
    if text.isascii() and "\t" not in text and _ASCII.search(text) is None:
        return text, []
    at = _hidden_at(text, keep_emoji=False)
    kinds: set[str] = set()
    for i in at:
        c = text[i]
        if c == "\t":
            continue
        if ord(c) < 0xA0:
            kinds.add("control characters")
        elif _tables().bidi.match(c):
            kinds.add("bidirectional-text controls")
        else:
            kinds.add("invisible characters")
    order = ("control characters", "bidirectional-text controls", "invisible characters")
    return _shown(text, at), [k for k in order if k in kinds]


def mixed_script_words(text: str) -> list[str]:
    """The words (each once, in order) that mix Latin letters with letters of a script
    whose letters look like Latin ones (LOOKALIKE_SCRIPTS): `сurl` is not curl."""
    if text.isascii():
        return []
    return list(dict.fromkeys(_tables().mixed.findall(text)))


def lookalike_letters(word: str) -> list[str]:
    """The letters of `word` from a look-alike script, each once, in order."""
    return list(dict.fromkeys(_tables().lookalike.findall(word)))


def script_of(letter: str) -> str:
    """Which of LOOKALIKE_SCRIPTS a letter is of ("" for none)."""
    import regex

    return next((s for s in LOOKALIKE_SCRIPTS if regex.match(rf"\p{{Script={s}}}", letter)), "")


def without_bidi(text: str) -> str:
    """`text` without its bidi controls (Unicode's Bidi_Control): for a copy, where a
    code would paste as text."""
    return text if text.isascii() else _tables().bidi.sub("", text)
