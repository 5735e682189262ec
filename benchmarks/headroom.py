"""How far ranking alone could go: the ceilings beside memtracks' recall@5, per category.

- *rerank top 20*: the recall@5 a perfect reranker would reach over memtracks' own first 20
  cards (the best 5 of them), with its default candidate counts (at most 5 + 15 + 2 hits).
- *rerank top 50*: the same over its top 50 when every track retriever is asked for 50
  candidates (a deeper pool, fused as usual).
- *rerank union*: the same over that top 50 together with the top 50 raw turns of every
  first-stage baseline (BM25 and each dense one) — what a deeper, wider pool could give.
- *in pool*: the evidence share anywhere in the deep top 50 / in the union (no cut-off).
- *candidates*: how many hits reach memtracks' fusion per question (before dedup and the
  score floor) by default and in the deep pool, how many cards come out, and how many
  distinct items the union holds.
- *answer-in-context ceilings*: the share of questions whose gold answer appears in the whole
  conversation (LongMemEval: the whole haystack) or in exactly its evidence turns, as raw
  turns led by the date each was said (and without the dates).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence

from . import metrics
from .baselines import FIRST_STAGE
from .datasets import Question
from .runner import CONTEXT_K, POOL_DEPTH, Answer, Run

Best = Callable[[metrics.Items, Question, int], float | None]  # perfect-reranker recall at k


def _mean(values: Sequence[float | None]) -> float:
    present = [v for v in values if v is not None]
    return statistics.fmean(present) if present else 0.0


def by_question(run: Run) -> dict[tuple[str, str], dict[str, Answer]]:
    grouped: dict[tuple[str, str], dict[str, Answer]] = defaultdict(dict)
    for a in run.answers:
        grouped[(a.unit, a.question.id)][a.system] = a
    return grouped


def headroom(
    run: Run,
    groups: dict[str, list[tuple[str, str]]],
    best: Best,
    actual: Callable[[Answer], float | None],
    k: int = CONTEXT_K,
) -> dict:
    """Ceiling figures for each named group of questions ((unit, question id) keys), beside
    memtracks' ``actual`` recall@k."""
    answers = by_question(run)
    first_stage = [s for s in FIRST_STAGE if s in run.systems]
    out = {}
    for name, keys in groups.items():
        rows = [answers[key] for key in keys]
        mt = [row["memtracks"] for row in rows]
        deep = [a.items if a.pool is None else a.pool for a in mt]
        union = [
            metrics.pool(d, *(row[s].items for s in first_stage), depth=POOL_DEPTH)
            for d, row in zip(deep, rows, strict=True)
        ]
        ceilings = [run.ceilings[key] for key in keys if key in run.ceilings]
        scored = [a for a in mt if best(a.items, a.question, k) is not None]
        figures = {
            "n": len(rows),
            "n_scored": len(scored),
            f"recall@{k}": _mean([actual(a) for a in mt]),
            "rerank_top20": _mean([best(a.items[:20], a.question, k) for a in mt]),
            "rerank_top50": _mean([best(d[:POOL_DEPTH], a.question, k) for d, a in zip(deep, mt, strict=True)]),
            "rerank_union": _mean([best(items, a.question, k) for items, a in zip(union, mt, strict=True)]),
            "in_pool_top50": _mean([best(d, a.question, len(d) or 1) for d, a in zip(deep, mt, strict=True)]),
            "in_pool_union": _mean(
                [best(items, a.question, len(items) or 1) for items, a in zip(union, mt, strict=True)]
            ),
            "candidates_mean": _mean([a.candidates for a in mt]),
            "candidates_median": statistics.median([a.candidates for a in mt]) if mt else 0,
            "cards_mean": _mean([len(a.items) for a in mt]),
            "deep_candidates_mean": _mean([a.pool_candidates for a in mt if a.pool is not None]),
            "deep_cards_mean": _mean([len(d) for d in deep]),
            "union_items_mean": _mean([len(items) for items in union]),
            "answer_in_context": _mean([float(metrics.answer_in_context(a.question.answer, a.context)) for a in mt]),
            **{
                f"ceiling_{field}": _mean([float(getattr(c, field)) for c in ceilings])
                for field in ("whole", "evidence", "evidence_undated", "whole_undated")
            },
        }
        out[name] = figures
    out["union_of"] = ["memtracks", *first_stage]
    return out


def locomo_best(items: metrics.Items, q: Question, k: int) -> float | None:
    return metrics.best_recall_acc(items, q.evidence_turns, k)


def longmemeval_best(session_of: Callable[[str], str]) -> Best:
    def best(items: metrics.Items, q: Question, k: int) -> float | None:
        return metrics.best_recall_all(items, q.evidence_sessions, k, session_of)

    return best
