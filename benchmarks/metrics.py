"""LLM-free metrics: evidence recall, LongMemEval's recall_all / ndcg_any, answer-in-context.

A system's answer to a question is a ranked list of *items* (memtracks cards, or raw turns
for the baselines); each item cites one or more turn ids. For LoCoMo, ``@k`` means the first
k items — what would go into the prompt. For LongMemEval, as in its own evaluation, the
cited turns become a ranked list of distinct sessions (or turns) and ``@k`` counts those.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Callable, Sequence
from datetime import date

Items = Sequence[Sequence[str]]  # per rank: the turn ids an item cites


def cited(items: Items, k: int) -> list[str]:
    """Turn ids cited by the first ``k`` items, in rank order, without repeats."""
    return list(dict.fromkeys(t for item in items[:k] for t in item))


def recall_acc(items: Items, evidence: set[str] | frozenset[str], k: int) -> float | None:
    """LoCoMo's ``recall_acc``: the share of the evidence turns cited in the first ``k`` items."""
    if not evidence:
        return None
    found = set(cited(items, k))
    return sum(1 for e in evidence if e in found) / len(evidence)


def unit_ranking(items: Items, to_unit: Callable[[str], str]) -> list[str]:
    """The units (sessions, or turns) the items cite, in order of first citation, each once.

    This is LongMemEval's turn-to-session evaluation: a ranked list of turns becomes a ranked
    list of distinct sessions, and ``@k`` counts sessions.
    """
    return list(dict.fromkeys(to_unit(t) for item in items for t in item))


def recall_all(
    items: Items, evidence: set[str] | frozenset[str], k: int, to_unit: Callable[[str], str]
) -> float | None:
    """1.0 when every evidence unit is among the first ``k`` units cited (LongMemEval)."""
    if not evidence:
        return None
    return float(set(evidence) <= set(unit_ranking(items, to_unit)[:k]))


def recall_any(
    items: Items, evidence: set[str] | frozenset[str], k: int, to_unit: Callable[[str], str]
) -> float | None:
    if not evidence:
        return None
    return float(bool(set(evidence) & set(unit_ranking(items, to_unit)[:k])))


def ndcg_any(items: Items, evidence: set[str] | frozenset[str], k: int, to_unit: Callable[[str], str]) -> float | None:
    """NDCG@k over the first ``k`` units cited, with binary gain (LongMemEval's ``ndcg_any``).

    The ideal ranking puts min(k, |evidence|) evidence units first.
    """
    if not evidence:
        return None
    ranked = unit_ranking(items, to_unit)[:k]
    dcg = sum(1 / math.log2(rank + 2) for rank, unit in enumerate(ranked) if unit in evidence)
    ideal = sum(1 / math.log2(rank + 2) for rank in range(min(k, len(evidence))))
    return dcg / ideal if ideal else 0.0


# ------------------------------------------------------------------------ answers

_MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
_MONTH_RE = "|".join(m[:3] + f"(?:{m[3:]})?" for m in _MONTHS)
_DMY = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH_RE})\.?,?\s+(\d{{4}})\b", re.IGNORECASE)
_MDY = re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_SLASH = re.compile(r"\b(\d{4})/(\d{1,2})/(\d{1,2})\b")


def _month(name: str) -> int:
    return next(i for i, m in enumerate(_MONTHS, start=1) if m.startswith(name.lower()[:3]))


def dates_in(text: str) -> set[date]:
    """Calendar dates written in any common format: 7 May 2023, May 7, 2023, 2023-05-07, 2023/5/7."""
    found = set()
    for m in _DMY.finditer(text):
        found.add(_safe(int(m.group(3)), _month(m.group(2)), int(m.group(1))))
    for m in _MDY.finditer(text):
        found.add(_safe(int(m.group(3)), _month(m.group(1)), int(m.group(2))))
    for regex in (_ISO, _SLASH):
        for m in regex.finditer(text):
            found.add(_safe(int(m.group(1)), int(m.group(2)), int(m.group(3))))
    return {d for d in found if d is not None}


def _safe(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def normalize(text: str) -> str:
    """Lower case, punctuation to spaces, articles dropped, single spaces (also for Chinese)."""
    text = text.lower()
    text = "".join(" " if ch in string.punctuation or ch in "，。！？；：、（）【】“”‘’" else ch for ch in text)
    text = re.sub(r"\b(?:a|an|the)\b", " ", text)
    return " ".join(text.split())


def answer_in_context(answer: str, context: str) -> bool:
    """Does the gold ``answer`` appear in ``context`` — as text after normalisation, or, for a
    date answer, as the same calendar date in any common format?"""
    gold = normalize(str(answer))
    if not gold:
        return False
    if f" {gold} " in f" {normalize(context)} ":
        return True
    wanted = dates_in(str(answer))
    return bool(wanted) and wanted <= dates_in(context)
