"""Quick memtracks-only LoCoMo runs for tuning: conversations ingested once into SQLite files,
then every question retrieved under one or more settings; recall@5 per category and split.

    python -m benchmarks.sweep --data ../shared/data/locomo/locomo10.json --cache /tmp/mt-locomo \\
        --units 0-4 --set retrieval.k_temporal=30 --set fusion.session_free=2

Each ``--set`` group (separated by ``--vs``) is one variant, scored beside the defaults. Only
memtracks runs (no baselines); the full harness (``python -m benchmarks locomo``) gives the
figures to report. A stored file is reused when it holds all of its conversation's turns;
delete the cache after a change to what the writer stores.

``--embedder usem3+minilm`` (or ``usem3+minilm@0.25``) runs memtracks with the English-leaning
embedder of the minilm extra. A store remembers its embedder and refuses another: give each
embedder its own ``--cache`` folder (e.g. /tmp/mt-locomo-usem3, /tmp/mt-locomo-usem3+minilm@0.5).

``--longmemeval`` reads a LongMemEval file instead (one unit per question's haystack) and
scores session recall_all@5 per question type and answer-in-context of the top 5 cards, as
the full harness does (each question asks for 50 cards, ranked turns become ranked sessions;
abstention questions are skipped).

``--dump FILE`` also writes every question's cards under the defaults (text and cited turns)
as JSON lines: two runs whose dumps compare equal retrieved the same thing.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memtracks import Memory
from memtracks.config import MemoryConfig
from memtracks.retrieval.cards import count_tokens
from memtracks.retrieval.embedders import Embedder
from memtracks.toolkit import Toolkit

from . import metrics
from .__main__ import _units, add_embedder_option, memory_embedder
from .datasets import Unit, load_locomo, load_longmemeval
from .evaluate import LOCOMO_MAIN
from .runner import DEPTH, card_tokens

CONTEXT_K = 5
BUDGET_DEPTH = 20  # cards read for recall at a token budget (--budget)


def configured(changes: Sequence[str], base: MemoryConfig | None = None) -> MemoryConfig:
    """``base`` with ``section.field=value`` changes ("retrieval.k_temporal=30")."""
    config = base or MemoryConfig()
    for change in changes:
        path, _, text = change.partition("=")
        section, _, name = path.partition(".")
        part = getattr(config, section)
        current = getattr(part, name)
        value: Any = type(current)(json.loads(text)) if not isinstance(current, str) else text
        config = dataclasses.replace(config, **{section: dataclasses.replace(part, **{name: value})})
    return config


def stored(unit: Unit, cache: Path, toolkit: Toolkit, embedder: Embedder) -> Memory:
    """The conversation's memory from ``cache``, written there first if missing or incomplete."""
    path = cache / f"{unit.id}.db"
    mem = Memory(path, toolkit=toolkit, embedder=embedder, create_dirs=True)
    if mem.store.counts(unit.id).get("turns", 0) < len(unit.turns):
        mem.close()
        path.unlink()
        mem = Memory(path, toolkit=toolkit, embedder=embedder)
        mem.write_many(unit.turns, batch_size=128)
    return mem


def within(cards: Sequence[Any], budget: int) -> list[list[str]]:
    """The turns of the first cards whose text fits in ``budget`` tokens together (one per
    line, as in a prompt): recall at an equal budget, whatever each card holds."""
    fit = metrics.within_tokens([c.source_turn_ids for c in cards], [card_tokens(c.text, 1) for c in cards], budget)
    return [list(turns) for turns in fit]


def dumped(unit: Unit, question: str, cards: Sequence[Any]) -> dict[str, Any]:
    """One line of ``--dump``: the question and its cards as they were ranked."""
    return {
        "unit": unit.id,
        "question": question,
        "cards": [{"text": c.text, "turns": list(c.source_turn_ids)} for c in cards],
    }


def score(
    mems: dict[str, Memory],
    units: Sequence[Unit],
    config: MemoryConfig,
    tune: int,
    budgets: Sequence[int] = (),
    dump: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """recall@5 per category and split, answer-in-context, tokens and timing under ``config``.

    Tokens as the full harness counts them (``runner.py``): the top 5 cards' text per question
    (``tokens``), and that against the raw turns those cards cite (``tokens_vs_cited_raw``).
    Each of ``budgets`` adds recall of categories 1-4 for as many cards as fit in that many
    tokens (``<split>:1-4@<budget>tok``), read from the first ``BUDGET_DEPTH`` cards."""
    per: dict[str, list[float]] = defaultdict(list)
    found: list[float] = []
    latencies: list[float] = []
    tokens: list[int] = []
    raw_tokens: list[int] = []
    for n, unit in enumerate(units):
        mem = mems[unit.id]
        mem.reader.config = config
        split = "tune" if n < tune else "held"
        raw = {t.turn_id: t.text for t in unit.turns}
        for q in unit.questions:
            start = time.perf_counter()
            recall = mem.retrieve(
                q.question, user_id=unit.id, now=q.asked_at, top_n=BUDGET_DEPTH if budgets else CONTEXT_K
            )
            latencies.append((time.perf_counter() - start) * 1000)
            if dump is not None:
                dump.append(dumped(unit, q.question, recall.cards))
            for budget in budgets if q.category in LOCOMO_MAIN and q.evidence_turns else ():
                r = metrics.recall_acc(within(recall.cards, budget), q.evidence_turns, BUDGET_DEPTH)
                per[f"{split}:1-4@{budget}tok"].append(r or 0.0)
            recall.cards = recall.cards[:CONTEXT_K]
            items = [list(c.source_turn_ids) for c in recall.cards]
            tokens.append(card_tokens("\n".join(c.text for c in recall.cards), len(recall.cards)))
            raw_tokens.append(sum(count_tokens(raw[t]) for t in metrics.cited(items, CONTEXT_K) if t in raw))
            r = metrics.recall_acc(items, q.evidence_turns, CONTEXT_K)
            if q.category in LOCOMO_MAIN:
                found.append(float(metrics.answer_in_context(q.answer, "\n".join(c.text for c in recall.cards))))
            if r is None:
                continue
            per[f"{split}:{q.category}"].append(r)
            if q.category in LOCOMO_MAIN:
                per[f"{split}:1-4"].append(r)
                per["all:1-4"].append(r)
            per[f"all:{q.category}"].append(r)
    out = {key: statistics.fmean(values) for key, values in sorted(per.items())}
    out["answer_in_context"] = statistics.fmean(found) if found else 0.0
    out["tokens"] = statistics.fmean(tokens) if tokens else 0.0
    out["tokens_vs_cited_raw"] = sum(tokens) / sum(raw_tokens) if sum(raw_tokens) else 0.0
    out["p50_ms"] = statistics.median(latencies) if latencies else 0.0
    return out


def score_longmemeval(
    mems: dict[str, Memory], units: Sequence[Unit], config: MemoryConfig, dump: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Session recall_all@5 per question type and overall, answer-in-context and timing, under
    ``config``. Answer-in-context as the full harness computes it (``evaluate.py``): is the gold
    answer in the top 5 cards' text, over every question that is not an abstention."""
    per: dict[str, list[float]] = defaultdict(list)
    found: list[float] = []
    latencies: list[float] = []
    for unit in units:
        mem = mems[unit.id]
        mem.reader.config = config
        for q in unit.questions:
            if q.abstention:
                continue
            start = time.perf_counter()
            recall = mem.retrieve(q.question, user_id=unit.id, now=q.asked_at, top_n=DEPTH["longmemeval"])
            latencies.append((time.perf_counter() - start) * 1000)
            if dump is not None:
                dump.append(dumped(unit, q.question, recall.cards))
            items = [list(c.source_turn_ids) for c in recall.cards]
            context = "\n".join(c.text for c in recall.cards[:CONTEXT_K])
            found.append(float(metrics.answer_in_context(q.answer, context)))
            r = metrics.recall_all(items, q.evidence_sessions, CONTEXT_K, unit.session_of)
            if r is not None:
                per[q.category].append(r)
                per["all"].append(r)
    out = {key: statistics.fmean(values) for key, values in sorted(per.items())}
    out["answer_in_context"] = statistics.fmean(found) if found else 0.0
    out["p50_ms"] = statistics.median(latencies) if latencies else 0.0
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.sweep", description=__doc__)
    parser.add_argument("--data", required=True)
    parser.add_argument("--cache", required=True, help="folder for the conversations' SQLite files")
    parser.add_argument("--units", type=_units, help="conversation indexes, e.g. 0-4 (default: all)")
    parser.add_argument("--tune", type=int, default=5, help="conversations 0..N-1 are the tuning split")
    parser.add_argument("--set", action="append", default=[], help="section.field=value; --vs starts a new variant")
    parser.add_argument("--vs", action="append_const", const="--vs", dest="set")
    parser.add_argument("--longmemeval", action="store_true", help="the data is a LongMemEval file")
    parser.add_argument(
        "--budget",
        type=int,
        action="append",
        default=[],
        help="also score recall of categories 1-4 for the cards that fit in this many tokens (repeatable)",
    )
    parser.add_argument("--dump", type=Path, help="also write every question's cards under the defaults here (JSONL)")
    add_embedder_option(parser)
    args = parser.parse_args(argv)
    every = load_longmemeval(args.data) if args.longmemeval else load_locomo(args.data)
    indexes = sorted(args.units or range(len(every)))
    units = [every[i] for i in indexes]
    toolkit, embedder = Toolkit.load(), memory_embedder(args.embedder, threads=1)
    mems = {u.id: stored(u, Path(args.cache), toolkit, embedder) for u in units}
    variants: list[list[str]] = [[]]
    for change in args.set:
        if change == "--vs":
            variants.append([])
        else:
            variants[-1].append(change)
    if len(variants) > 1 or variants[0]:
        variants.insert(0, [])  # the defaults beside every variant
    tune = sum(1 for i in indexes if i < args.tune)
    for changes in dict.fromkeys(tuple(v) for v in variants):
        config = configured(changes)
        dump: list[dict[str, Any]] | None = [] if args.dump and not changes else None
        figures = (
            score_longmemeval(mems, units, config, dump)
            if args.longmemeval
            else score(mems, units, config, tune, args.budget, dump)
        )
        if dump is not None:
            lines = (json.dumps(row, ensure_ascii=False) + "\n" for row in dump)
            args.dump.write_text("".join(lines), encoding="utf-8")
        print(" ".join(changes) or "defaults", json.dumps({k: round(v, 4) for k, v in figures.items()}))
        sys.stdout.flush()
    for mem in mems.values():
        mem.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
