"""Turning a run's answers into the figures of ``results.json``."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence

from memtracks.cards import clip_tokens

from . import metrics
from .datasets import LOCOMO_CATEGORIES
from .runner import SYSTEMS, Answer, Run, latency

CURVE_K = tuple(range(1, 11))


def _mean(values: Sequence[float | None]) -> float:
    present = [v for v in values if v is not None]
    return statistics.fmean(present) if present else 0.0


def _context_figures(answers: Sequence[Answer]) -> dict[str, float]:
    tokens = _mean([a.context_tokens for a in answers])
    raw = _mean([a.cited_raw_tokens for a in answers])
    return {
        "tokens_per_question": tokens,
        "cited_raw_tokens_per_question": raw,
        "tokens_vs_cited_raw": tokens / raw if raw else 0.0,
    }


def _answer_in_context(answers: Sequence[Answer]) -> float:
    return _mean([float(metrics.answer_in_context(a.question.answer, a.context)) for a in answers])


def _answer_in_context_same_tokens(answers: Sequence[Answer], budgets: dict[tuple[str, str], int]) -> float:
    """Answer-in-context with each context cut to the tokens memtracks used for that question,
    so that systems are compared at an equal prompt budget."""
    return _mean(
        [
            float(
                metrics.answer_in_context(
                    a.question.answer, clip_tokens(a.context, budgets.get((a.unit, a.question.id), a.context_tokens))
                )
            )
            for a in answers
        ]
    )


def _budgets(run: Run) -> dict[tuple[str, str], int]:
    return {(a.unit, a.question.id): a.context_tokens for a in run.answers if a.system == "memtracks"}


def score_locomo(run: Run, ks: Sequence[int]) -> dict:
    """LoCoMo: evidence recall (``recall_acc``) over categories 1-4, and per category."""
    systems, budgets = {}, _budgets(run)
    for system in SYSTEMS:
        answers = [a for a in run.answers if a.system == system]
        main = [a for a in answers if a.question.category in ("1", "2", "3", "4")]

        def recall(group: Sequence[Answer], k: int) -> float:
            return _mean([metrics.recall_acc(a.items, a.question.evidence_turns, k) for a in group])

        figures: dict = {f"recall@{k}": recall(main, k) for k in ks}
        figures["recall_curve"] = {str(k): recall(main, k) for k in CURVE_K}
        figures["by_category"] = {
            str(cat): {
                "name": names[0],
                "mem0_name": names[1],
                "n": len(group),
                **{f"recall@{k}": recall(group, k) for k in ks},
            }
            for cat, names in LOCOMO_CATEGORIES.items()
            if (group := [a for a in answers if a.question.category == str(cat)])
        }
        figures["answer_in_context"] = _answer_in_context(main)
        figures["answer_in_context_same_tokens"] = _answer_in_context_same_tokens(main, budgets)
        figures.update(_context_figures(main))
        figures.update(latency(answers))
        figures["questions"] = len(main)
        systems[system] = figures
    return _wrap(run, systems)


def score_longmemeval(run: Run, ks: Sequence[int], session_of: Callable[[str], str]) -> dict:
    """LongMemEval: session-level recall_all@k / ndcg_any@k (headline), turn level too."""
    systems, budgets = {}, _budgets(run)
    for system in SYSTEMS:
        answers = [a for a in run.answers if a.system == system and not a.question.abstention]

        def session(metric, group, k):
            return _mean([metric(a.items, a.question.evidence_sessions, k, session_of) for a in group])

        def turn(metric, group, k):
            return _mean(
                [metric(a.items, a.question.evidence_turns, k, str) for a in group if a.question.evidence_turns]
            )

        figures: dict = {}
        for k in ks:
            figures[f"recall@{k}"] = session(metrics.recall_all, answers, k)
            figures[f"ndcg@{k}"] = session(metrics.ndcg_any, answers, k)
            figures[f"recall_any@{k}"] = session(metrics.recall_any, answers, k)
            figures[f"turn_recall@{k}"] = turn(metrics.recall_all, answers, k)
            figures[f"turn_ndcg@{k}"] = turn(metrics.ndcg_any, answers, k)
        figures["recall_curve"] = {str(k): session(metrics.recall_all, answers, k) for k in CURVE_K}
        types = sorted({a.question.category for a in answers})
        figures["by_category"] = {
            t: {
                "n": len(group),
                **{f"recall@{k}": session(metrics.recall_all, group, k) for k in ks},
                **{f"ndcg@{k}": session(metrics.ndcg_any, group, k) for k in ks},
            }
            for t in types
            if (group := [a for a in answers if a.question.category == t])
        }
        figures["answer_in_context"] = _answer_in_context(answers)
        figures["answer_in_context_same_tokens"] = _answer_in_context_same_tokens(answers, budgets)
        figures.update(_context_figures(answers))
        figures.update(latency(answers))
        figures["questions"] = len(answers)
        systems[system] = figures
    return _wrap(run, systems)


def _wrap(run: Run, systems: dict) -> dict:
    return {
        "dataset": run.dataset,
        "systems": systems,
        "ingest_turns_per_s": run.turns / run.ingest_seconds if run.ingest_seconds else 0.0,
        "turns": run.turns,
        "peak_rss_mb": run.peak_rss_mb,
    }
