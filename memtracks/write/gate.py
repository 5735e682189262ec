"""The write-quality gate (``rules/gate.yaml``): one-off noise stays out of the fact track.

Tool output, file paths, command logs, pure greetings and the agent's own recalled memories
fed back as a turn (a "recall loop") are no statements about anyone. The writer still stores
such a turn and its event; it analyses the turn with the noise blanked out, so the user's own
words beside a pasted log still give their facts, and a turn that is nothing but noise gives
none.

>>> gate = default_gate()
>>> gate.screen("[fact] user lives in: Shanghai (conf 0.90, since 2024-05-01)").blocked
True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from memtracks.data.gate import GateRule, load_gate_rules

KINDS = ("tool_output", "path", "command_log", "greeting", "recall_loop")
_LINE = re.compile(r"[^\n]*")
_WORD = re.compile(r"[^\W_]", re.UNICODE)


@dataclass(frozen=True)
class Noise:
    """One stretch of a turn the gate recognised: ``[start, end)`` in the turn's text."""

    rule_id: str
    kind: str
    start: int
    end: int


@dataclass(frozen=True)
class Screen:
    """What the gate made of one text: the noise found, and the text to analyse instead."""

    text: str
    noise: tuple[Noise, ...]

    @property
    def masked(self) -> str:
        """``text`` with every noise stretch blanked (newlines kept, so offsets still hold)."""
        if not self.noise:
            return self.text
        chars = list(self.text)
        for n in self.noise:
            for i in range(n.start, n.end):
                if chars[i] != "\n":
                    chars[i] = " "
        return "".join(chars)

    @property
    def blocked(self) -> bool:
        """Nothing but noise (and punctuation) is left: the turn gives no facts."""
        return bool(self.noise) and not _WORD.search(self.masked)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(n.kind for n in self.noise))

    def warning(self) -> str | None:
        """The note a write result carries, or None when the text is clean."""
        if not self.noise:
            return None
        rules = ", ".join(dict.fromkeys(n.rule_id for n in self.noise))
        what = "the turn is" if self.blocked else "parts of the turn are"
        return f"write gate: {what} {' / '.join(k.replace('_', ' ') for k in self.kinds)} ({rules}); kept out of facts"


@dataclass(frozen=True)
class Gate:
    """The gate's rules, compiled; :meth:`screen` finds the noise in a text."""

    rules: tuple[GateRule, ...]

    @cached_property
    def _compiled(self) -> tuple[tuple[GateRule, re.Pattern[str]], ...]:
        return tuple((r, re.compile(r.pattern, re.IGNORECASE)) for r in self.rules)

    def screen(self, text: str, simplify: Callable[[str], str] | None = None) -> Screen:
        """The noise in ``text``. ``simplify`` maps Traditional to Simplified Chinese character
        for character (same length), for the Chinese rules."""
        simple = simplify(text) if simplify is not None else text
        noise: list[Noise] = []
        for rule, regex in self._compiled:
            seen = text if rule.lang == "en" else simple
            noise.extend(_matches(rule, regex, seen))
        return Screen(text, tuple(_merge(noise)))


def _matches(rule: GateRule, regex: re.Pattern[str], text: str) -> Iterator[Noise]:
    limit = rule.max_chars
    if rule.scope == "text":
        stripped = text.strip()
        if stripped and (limit is None or len(stripped) <= limit) and regex.fullmatch(stripped):
            start = text.index(stripped)
            yield Noise(rule.id, rule.kind, start, start + len(stripped))
        return
    for line in _LINE.finditer(text):
        body = line.group()
        if not body.strip() or (limit is not None and len(body) > limit) or not regex.search(body):
            continue
        end = line.end()
        if rule.scope == "block":  # to the first blank line (a stack trace has none)
            blank = re.compile(r"\n[ \t]*(?:\n|$)").search(text, end)
            end = blank.start() if blank else len(text)
        yield Noise(rule.id, rule.kind, line.start(), end)


def _merge(noise: list[Noise]) -> list[Noise]:
    """Noise in text order; a stretch inside an earlier one is dropped."""
    out: list[Noise] = []
    for n in sorted(noise, key=lambda n: (n.start, -n.end)):
        if out and n.end <= out[-1].end:
            continue
        out.append(n)
    return out


def load_gate(path: Path | None = None) -> Gate:
    """The gate of ``path`` (default: the bundled ``rules/gate.yaml``), validated."""
    return Gate(load_gate_rules(path))


@lru_cache(maxsize=1)
def default_gate() -> Gate:
    return load_gate()
