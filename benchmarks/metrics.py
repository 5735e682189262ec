"""LLM-free metrics: evidence recall, LongMemEval's recall_all / ndcg_any, the ceilings a perfect
reranker would reach, and answer-in-context (``answers.py``).

A system's answer to a question is a ranked list of *items* (memtracks cards, or raw turns
for the baselines); each item cites one or more turn ids. For LoCoMo, ``@k`` means the first
k items — what would go into the prompt. For LongMemEval, as in its own evaluation, the
cited turns become a ranked list of distinct sessions (or turns) and ``@k`` counts those.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from itertools import combinations

from .answers import answer_in_context, dates_in, normalize, periods_in

__all__ = [
    "answer_in_context",
    "best_recall_acc",
    "best_recall_all",
    "cited",
    "dates_in",
    "ndcg_any",
    "normalize",
    "periods_in",
    "pool",
    "recall_acc",
    "recall_all",
    "recall_any",
    "unit_ranking",
    "within_tokens",
]

Items = Sequence[Sequence[str]]  # per rank: the turn ids an item cites


def cited(items: Items, k: int) -> list[str]:
    """Turn ids cited by the first ``k`` items, in rank order, without repeats."""
    return list(dict.fromkeys(t for item in items[:k] for t in item))


def within_tokens(items: Items, costs: Sequence[int], budget: int) -> list[Sequence[str]]:
    """The first ``items`` whose prompt lines (``costs``: each item's tokens) fit in ``budget``
    tokens together, one line each with the line breaks counted: what a system puts in a prompt
    of that size, whatever each item holds."""
    fit: list[Sequence[str]] = []
    used = 0
    for item, cost in zip(items, costs, strict=False):
        used += cost + (1 if fit else 0)
        if used > budget:
            break
        fit.append(item)
    return fit


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


# ------------------------------------------------------------------------ ceilings

_EXACT_LIMIT = 16  # distinct evidence subsets up to which the best choice is searched exhaustively


def pool(*rankings: Items, depth: int) -> list[list[str]]:
    """The first ``depth`` items of each ranking, together (an item cited by several counts once)."""
    seen: dict[tuple[str, ...], None] = {}
    for ranking in rankings:
        for item in ranking[:depth]:
            seen.setdefault(tuple(item), None)
    return [list(item) for item in seen]


def best_recall_acc(items: Items, evidence: set[str] | frozenset[str], k: int) -> float | None:
    """The ``recall_acc`` at ``k`` of a perfect reranker over ``items``: the most evidence turns
    that ``k`` of them can cite together, as a share of the evidence.

    Exact (exhaustive over the distinct evidence subsets the items cite, dominated ones left
    out) up to 16 such subsets; greedy above that, which can only under-state the ceiling.
    """
    if not evidence:
        return None
    subsets = _undominated({frozenset(item) & evidence for item in items} - {frozenset()})
    if len(subsets) <= k:
        best = frozenset().union(*subsets)
    elif len(subsets) <= _EXACT_LIMIT:
        best = max((frozenset().union(*combo) for combo in combinations(subsets, k)), key=len)
    else:
        best = _greedy_cover(subsets, k)
    return len(best) / len(evidence)


def _undominated(subsets: Iterable[frozenset[str]]) -> list[frozenset[str]]:
    ordered = sorted(subsets, key=lambda s: (-len(s), sorted(s)))
    kept: list[frozenset[str]] = []
    for s in ordered:
        if not any(s <= other for other in kept):
            kept.append(s)
    return kept


def _greedy_cover(subsets: Sequence[frozenset[str]], k: int) -> frozenset[str]:
    covered: frozenset[str] = frozenset()
    for _ in range(k):
        gain = max(subsets, key=lambda s: len(s - covered))
        if not gain - covered:
            break
        covered |= gain
    return covered


def best_recall_all(
    items: Items, evidence: set[str] | frozenset[str], k: int, to_unit: Callable[[str], str]
) -> float | None:
    """LongMemEval's ``recall_all`` at ``k`` after a perfect reranking of the units (sessions)
    ``items`` cite: 1.0 when they cite every evidence unit and there are at most ``k``."""
    if not evidence:
        return None
    units = set(unit_ranking(items, to_unit))
    return float(set(evidence) <= units and len(evidence) <= k)
