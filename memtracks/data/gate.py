"""``rules/gate.yaml``: what the write gate keeps out of facts (tool output, paths, command
logs, greetings, an agent's own recall read back), each rule validated: a bad one fails
naming the file, the rule and the field. How it screens a turn: :mod:`memtracks.write.gate`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from pydantic import Field

from memtracks.data.files import Strict, bundled, load_section, pattern_problems


class GateRule(Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_.-]*$")
    kind: Literal["tool_output", "path", "command_log", "greeting", "recall_loop"]
    scope: Literal["line", "text", "block"]
    pattern: str = Field(min_length=1)
    lang: Literal["en", "zh", "any"] = "any"
    max_chars: int | None = Field(default=None, gt=0)
    note: str = ""


def _check(rule: GateRule) -> Iterator[str]:
    return pattern_problems(rule.pattern)


def load_gate_rules(path: Path | None = None) -> tuple[GateRule, ...]:
    """The rules of ``path`` (default: the bundled ``rules/gate.yaml``)."""
    return tuple(load_section(path or bundled("rules", "gate.yaml"), "gate", GateRule, check=_check))
