"""Candidate recall per path: which first-stage path of the temporal and fact retrievers
brings a question's evidence turns into the pool at all, before any ranking.

    python -m benchmarks.candidates --data ../shared/data/locomo/locomo10.json --cache /tmp/mt-locomo \\
        --units 0-4 --depth 50,100

Per question, the evidence share (LoCoMo's ``recall_acc``) among each path's first N
candidates: *dense* (cosine over event vectors), *lexical* (BM25 over events, with the members of the categories the question names), *window* (events
inside the time the question names, up to the retriever's limit), *kind* (events of a
happening kind an aggregate question names), *chain* (one link along the event chain from the
first ``3 x k_temporal`` mixed candidates, and the answers to question turns among them),
*facts* (turns cited by the fact track's hits) and their *union*. Conversations are stored
once in ``--cache`` (as for ``benchmarks.sweep``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from memtracks.retrieval.embedders import USEEmbedder
from memtracks.retrieval.facts import retrieve_facts
from memtracks.retrieval.hits import expansion, search_both
from memtracks.retrieval.temporal import KIND_LIMIT, WINDOW_LIMIT
from memtracks.toolkit import Toolkit
from memtracks.tracks.temporal import answers, neighbours

from . import metrics
from .__main__ import _units
from .datasets import load_locomo
from .evaluate import LOCOMO_MAIN
from .sweep import stored

PATHS = ("dense", "lexical", "window", "kind", "chain", "facts", "union")


def paths(mem, user: str, question, depth: int) -> dict[str, list[str]]:
    """Each path's first ``depth`` candidates as turn ids, best first."""
    reader = mem.reader
    query = reader.analyze(question.question, user_id=user, now=question.asked_at)
    ctx = reader.context(user)
    store = ctx.store
    turn_of = {e.id: e.turn_id for e in store.events(user)}
    out: dict[str, list[int]] = {
        "dense": [i for i, _ in ctx.vectors("event").search(query.vector, depth)],
        "lexical": [
            i
            for i, _ in ctx.lexical("event").search(
                list(query.terms),
                depth,
                extra=expansion(ctx.config, query),
                extra_weight=ctx.config.expansion_weight,
                extra_max_share=ctx.config.expansion_max_share,
            )
        ],
        "window": [],
        "kind": [],
    }
    if query.window is not None:
        out["window"] = list(store.event_ids_between(user, *query.window, limit=WINDOW_LIMIT))[:depth]
    if query.kinds:
        out["kind"] = [e.id for e in store.events(user, kinds=list(query.kinds), limit=KIND_LIMIT) if e.id][:depth]
    mixed = search_both(
        ctx, "event", query.vector, query.terms, 3 * ctx.config.k_temporal, expansion(ctx.config, query)
    )
    graph = ctx.chain()
    linked: list[int] = []
    for origin in sorted(mixed, key=lambda i: -mixed[i]["relevance"]):
        linked += [i for i in sorted(neighbours(graph, origin, 1) | answers(graph, origin)) if i not in linked]
    out["chain"] = linked[:depth]
    turns = {name: [turn_of[i] for i in ids if i in turn_of] for name, ids in out.items()}
    hits, _ = retrieve_facts(query, ctx, depth)
    turns["facts"] = [t for h in hits for t in h.record.source_turn_ids][:depth]  # type: ignore[union-attr]
    union = dict.fromkeys(t for name in PATHS[:-1] for t in turns[name])
    turns["union"] = list(union)
    return turns


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.candidates", description=__doc__)
    parser.add_argument("--data", required=True)
    parser.add_argument("--cache", required=True, help="folder for the conversations' SQLite files")
    parser.add_argument("--units", type=_units, help="conversation indexes, e.g. 0-4 (default: all)")
    parser.add_argument("--depth", default="50,100", help="cut-offs, e.g. 50,100")
    args = parser.parse_args(argv)
    depths = [int(d) for d in args.depth.split(",")]
    every = load_locomo(args.data)
    units = [every[i] for i in sorted(args.units or range(len(every)))]
    toolkit, embedder = Toolkit.load(), USEEmbedder(threads=1)
    found: dict[tuple[int, str, str], list[float]] = defaultdict(list)
    sizes: dict[tuple[int, str], list[int]] = defaultdict(list)
    for unit in units:
        mem = stored(unit, Path(args.cache), toolkit, embedder)
        for q in unit.questions:
            if q.category not in LOCOMO_MAIN or not q.evidence_turns:
                continue
            for depth in depths:
                for name, turns in paths(mem, unit.id, q, depth).items():
                    r = metrics.recall_acc([[t] for t in turns], q.evidence_turns, len(turns) or 1)
                    for group in ("1-4", q.category):
                        found[(depth, name, group)].append(r or 0.0)
                    sizes[(depth, name)].append(len(turns))
        mem.close()
    groups = ["1-4", *sorted({g for _, _, g in found} - {"1-4"})]
    print("| depth | path | " + " | ".join(groups) + " | candidates |")
    print("|---|---|" + "---|" * (len(groups) + 1))
    for depth in depths:
        for name in PATHS:
            cells = [f"{statistics.fmean(found[(depth, name, g)]):.3f}" for g in groups]
            print(f"| {depth} | {name} | " + " | ".join(cells) + f" | {statistics.fmean(sizes[(depth, name)]):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
