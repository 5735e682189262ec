"""Turning a run's answers into the figures of ``results.json``.

Recall figures average over the questions that have evidence (``n_scored``); answer-in-context
figures over every question of the group (``n``). Both counts are reported.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence

from memtracks.retrieval.cards import clip_tokens

from . import metrics
from .datasets import LOCOMO_CATEGORIES
from .headroom import headroom, locomo_best, longmemeval_best
from .runner import CONTEXT_K, Answer, Run, card_tokens, latency

CURVE_K = tuple(range(1, 11))
FIXED_BUDGET = 300  # tokens: every system's recall also for the items that fit in this many
LOCOMO_MAIN = ("1", "2", "3", "4")


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


def filled(a: Answer, budget: int) -> str:
    """The prompt of ``budget`` tokens an answer fills: its lines in rank order while they fit,
    then the start of the next one in what is left (an answer without lines: its top-5
    context, cut to the budget)."""
    if not a.lines:
        return clip_tokens(a.context, budget)
    fit = metrics.within_tokens(a.lines, a.item_tokens, budget)  # a line stands for its own item here
    text = "\n".join(a.lines[: len(fit)])
    room = budget - card_tokens(text, len(fit)) - (1 if fit else 0)
    if len(fit) < len(a.lines) and room > 0:
        text = "\n".join([*a.lines[: len(fit)], clip_tokens(a.lines[len(fit)], room)])
    return text


def _answer_figures(answers: Sequence[Answer], budgets: dict[tuple[str, str], int]) -> dict[str, float]:
    """Answer-in-context of the top-5 context; of the prompt of memtracks' tokens on the same
    question (an equal prompt budget: as many of a system's items as fit, :func:`filled`); and,
    for a baseline, of its raw turns without their dates."""
    figures = {
        "answer_in_context": _mean([float(metrics.answer_in_context(a.question.answer, a.context)) for a in answers]),
        "answer_in_context_same_tokens": _mean(
            [
                float(
                    metrics.answer_in_context(
                        a.question.answer, filled(a, budgets.get((a.unit, a.question.id), a.context_tokens))
                    )
                )
                for a in answers
            ]
        ),
    }
    if answers and answers[0].undated_context is not None:
        figures["answer_in_context_undated"] = _mean(
            [float(metrics.answer_in_context(a.question.answer, a.undated_context or "")) for a in answers]
        )
    return figures


Recall = Callable[[Answer, Sequence[Sequence[str]], int], float | None]  # an answer's items, cut at k


def _token_figures(answers: Sequence[Answer], budgets: dict[tuple[str, str], int], recall: Recall) -> dict:
    """Recall at an equal prompt size: of the items that fit in memtracks' top-5 tokens on the
    same question (``recall_same_tokens``; on LoCoMo memtracks' own is its recall@5), and in
    ``FIXED_BUDGET`` tokens (``recall@300tok``). An item is a prompt line: a card, or a raw
    turn led by the day it was said."""

    def fitted(a: Answer, budget: int) -> float | None:
        fit = metrics.within_tokens(a.items, a.item_tokens, budget)
        return recall(a, fit, len(fit))

    return {
        "recall_same_tokens": _mean(
            [fitted(a, budgets.get((a.unit, a.question.id), a.context_tokens)) for a in answers]
        ),
        f"recall@{FIXED_BUDGET}tok": _mean([fitted(a, FIXED_BUDGET) for a in answers]),
    }


def _budgets(run: Run) -> dict[tuple[str, str], int]:
    return {(a.unit, a.question.id): a.context_tokens for a in run.answers if a.system == "memtracks"}


def _scored(values: Sequence[float | None]) -> int:
    return sum(v is not None for v in values)


def _locomo_figures(answers: Sequence[Answer], ks: Sequence[int], budgets: dict[tuple[str, str], int]) -> dict:
    """One system's LoCoMo figures over ``answers``: recall over categories 1-4 and per category."""

    def recall(group: Sequence[Answer], k: int) -> list[float | None]:
        return [metrics.recall_acc(a.items, a.question.evidence_turns, k) for a in group]

    def cut(a: Answer, items: Sequence[Sequence[str]], k: int) -> float | None:
        return metrics.recall_acc(items, a.question.evidence_turns, k)

    main = [a for a in answers if a.question.category in LOCOMO_MAIN]
    figures: dict = {f"recall@{k}": _mean(recall(main, k)) for k in ks}
    figures["recall_curve"] = {str(k): _mean(recall(main, k)) for k in CURVE_K}
    figures["by_category"] = {
        str(cat): {
            "name": names[0],
            "mem0_name": names[1],
            "n": len(group),
            "n_scored": _scored(recall(group, 1)),
            **{f"recall@{k}": _mean(recall(group, k)) for k in ks},
            **_token_figures(group, budgets, cut),
            **_answer_figures(group, budgets),
        }
        for cat, names in LOCOMO_CATEGORIES.items()
        if (group := [a for a in answers if a.question.category == str(cat)])
    }
    figures.update(_token_figures(main, budgets, cut))
    figures.update(_answer_figures(main, budgets))
    figures.update(_context_figures(main))
    figures.update(latency(answers))
    figures["questions"] = len(main)
    figures["questions_scored"] = _scored(recall(main, 1))
    return figures


def score_locomo(run: Run, ks: Sequence[int], splits: dict[str, Sequence[str]] | None = None) -> dict:
    """LoCoMo: evidence recall (``recall_acc``) over categories 1-4, and per category; with
    ``splits`` (name -> unit ids, e.g. the tuning and held-out conversations) also per split."""
    systems, budgets = {}, _budgets(run)
    for system in run.systems:
        answers = [a for a in run.answers if a.system == system]
        systems[system] = {"label": run.labels.get(system, system), **_locomo_figures(answers, ks, budgets)}
    by_split = {
        name: {
            "units": list(units),
            "systems": {
                system: _locomo_figures(
                    [a for a in run.answers if a.system == system and a.unit in set(units)], ks, budgets
                )
                for system in run.systems
            },
        }
        for name, units in (splits or {}).items()
        if units
    }
    mt = [a for a in run.answers if a.system == "memtracks"]
    groups = {"1-4": [(a.unit, a.question.id) for a in mt if a.question.category in LOCOMO_MAIN]}
    groups.update(
        {cat: [(a.unit, a.question.id) for a in mt if a.question.category == cat] for cat in (*LOCOMO_MAIN, "5")}
    )
    groups = {name: keys for name, keys in groups.items() if keys}
    ceiling = headroom(
        run, groups, locomo_best, lambda a: metrics.recall_acc(a.items, a.question.evidence_turns, CONTEXT_K)
    )
    results = _wrap(run, systems, ceiling)
    if by_split:
        results["splits"] = by_split
    return results


def score_longmemeval(run: Run, ks: Sequence[int], session_of: Callable[[str], str]) -> dict:
    """LongMemEval: session-level recall_all@k / ndcg_any@k (headline), turn level too."""
    systems, budgets = {}, _budgets(run)

    def session(metric, group, k):
        return _mean([metric(a.items, a.question.evidence_sessions, k, session_of) for a in group])

    def turn(metric, group, k):
        return _mean([metric(a.items, a.question.evidence_turns, k, str) for a in group if a.question.evidence_turns])

    def cut(a: Answer, items: Sequence[Sequence[str]], k: int) -> float | None:
        if not a.question.evidence_sessions:
            return None
        return metrics.recall_all(items, a.question.evidence_sessions, k, session_of)

    for system in run.systems:
        answers = [a for a in run.answers if a.system == system and not a.question.abstention]
        figures: dict = {"label": run.labels.get(system, system)}
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
                "n_scored": sum(bool(a.question.evidence_sessions) for a in group),
                **{f"recall@{k}": session(metrics.recall_all, group, k) for k in ks},
                **{f"ndcg@{k}": session(metrics.ndcg_any, group, k) for k in ks},
                **_token_figures(group, budgets, cut),
                **_answer_figures(group, budgets),
            }
            for t in types
            if (group := [a for a in answers if a.question.category == t])
        }
        figures.update(_token_figures(answers, budgets, cut))
        figures.update(_answer_figures(answers, budgets))
        figures.update(_context_figures(answers))
        figures.update(latency(answers))
        figures["questions"] = len(answers)
        figures["questions_scored"] = sum(bool(a.question.evidence_sessions) for a in answers)
        systems[system] = figures
    mt = [a for a in run.answers if a.system == "memtracks" and not a.question.abstention]
    groups = {"all": [(a.unit, a.question.id) for a in mt]}
    groups.update(
        {
            t: [(a.unit, a.question.id) for a in mt if a.question.category == t]
            for t in sorted({a.question.category for a in mt})
        }
    )
    ceiling = headroom(
        run,
        groups,
        longmemeval_best(session_of),
        lambda a: metrics.recall_all(a.items, a.question.evidence_sessions, CONTEXT_K, session_of),
    )
    return _wrap(run, systems, ceiling)


def strongest_baseline(results: dict, key: str = "recall@5") -> str:
    """The baseline with the highest headline ``key`` (ties: the first listed)."""
    baselines = [s for s in results["systems"] if s != "memtracks"]
    return max(baselines, key=lambda s: results["systems"][s].get(key, 0.0))


def _wrap(run: Run, systems: dict, ceiling: dict) -> dict:
    results = {
        "dataset": run.dataset,
        "systems": systems,
        "headroom": ceiling,
        "notes": list(run.notes),
        "ingest_turns_per_s": run.turns / run.ingest_seconds if run.ingest_seconds else 0.0,
        "turns": run.turns,
        "peak_rss_mb": run.peak_rss_mb,
    }
    if len(systems) > 1:
        results["strongest_baseline"] = strongest_baseline(results)
    return results
