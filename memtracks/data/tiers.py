"""The tiers' data: ``rules/tiers.yaml`` read into :class:`TierRules` (what makes an event
important, what points far back); how they are used: :mod:`memtracks.retrieval.tiers`."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Literal

from memtracks.data.files import Strict, bundled, pattern_problems, read_yaml, validate_entries
from memtracks.errors import DataFileError


class ImportantRule(Strict):
    id: str
    signal: Literal["happening", "dated", "substance"]
    min: float | None = None
    note: str = ""


class FarBackRule(Strict):
    id: str
    lang: Literal["en", "zh"]
    pattern: str
    note: str = ""


def _check_important(rule: ImportantRule) -> Iterable[str]:
    if rule.signal == "substance" and (rule.min is None or rule.min <= 0):
        yield "field 'min': a substance signal needs the content words it takes (a number > 0)"


def _check_far_back(rule: FarBackRule) -> Iterable[str]:
    return pattern_problems(rule.pattern)


@dataclass(frozen=True)
class TierRules:
    """The data of ``rules/tiers.yaml``: what makes an event important, what points far back."""

    important: tuple[ImportantRule, ...]
    far_back: tuple[FarBackRule, ...]
    undated_past: tuple[FarBackRule, ...] = ()

    @cached_property
    def _patterns(self) -> dict[str, tuple[tuple[str, re.Pattern[str]], ...]]:
        return {
            section: tuple((r.lang, re.compile(r.pattern, re.IGNORECASE)) for r in getattr(self, section))
            for section in ("far_back", "undated_past")
        }

    def matches(self, section: str, question: str, simplified: str) -> bool:
        """Whether a rule of ``section`` ("far_back", "undated_past") matches the question;
        Chinese rules see it in Simplified characters."""
        return any(p.search(simplified if lang == "zh" else question) for lang, p in self._patterns[section])


def load_tier_rules(path: Path | None = None) -> TierRules:
    path = path or bundled("rules", "tiers.yaml")
    doc = read_yaml(path)
    names = ("important", "far_back", "undated_past")
    if not isinstance(doc, dict) or not set(names) <= set(doc):
        raise DataFileError(str(path), [f"needs the top-level sections {', '.join(names)}"])
    problems: list[str] = []
    sections = (
        ("important", ImportantRule, _check_important),
        ("far_back", FarBackRule, _check_far_back),
        ("undated_past", FarBackRule, _check_far_back),
    )
    parsed: dict[str, tuple] = {}
    for name, model, check in sections:  # every problem of both sections is reported at once
        try:
            parsed[name] = tuple(validate_entries(path, doc[name], model, section=name, check=check))  # type: ignore[arg-type]
        except DataFileError as exc:
            problems += exc.problems
    if problems:
        raise DataFileError(str(path), problems)
    return TierRules(parsed["important"], parsed["far_back"], parsed["undated_past"])


@lru_cache(maxsize=1)
def default_tier_rules() -> TierRules:
    return load_tier_rules()
