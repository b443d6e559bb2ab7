"""Mask known secret values in a stream of text, even when one is split across chunks.

Replacing the key in each chunk on its own misses a key printed in two pieces. The
masker holds back the longest end of what it has seen that could still be the start
of a secret, and lets it go only once the next chunk shows it is not one.
"""

from __future__ import annotations

MASK = "[redacted]"


class SecretMasker:
    def __init__(self, secrets: tuple[str, ...] | list[str]) -> None:
        self.secrets = tuple(s for s in secrets if s)
        self._held = ""

    def mask(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def feed(self, text: str) -> str:
        """The part of `text` (after what was held) that is safe to show now."""
        if not self.secrets:
            return text
        buffer = self.mask(self._held + text)
        hold = 0
        for secret in self.secrets:
            for k in range(min(len(secret) - 1, len(buffer)), hold, -1):
                if buffer.endswith(secret[:k]):
                    hold = k
                    break
        self._held = buffer[len(buffer) - hold:] if hold else ""
        return buffer[: len(buffer) - hold]

    def flush(self) -> str:
        """The end of the stream: what was held is not a secret after all."""
        held, self._held = self._held, ""
        return held
