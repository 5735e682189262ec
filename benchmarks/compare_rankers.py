"""Retrieve latency of the defaults beside a "before" configuration on one store, alternating
question by question so both see the same load, beside the floor any semantic search pays (the
question's embedding plus a FAISS search). "Before" is the defaults with the ``--before``
changes; without any, the temporal track's hand order (``retrieval.ranker=hand``).

    python -m benchmarks.compare_rankers --db /tmp/memtracks-bench/bench-10000.db \\
        --data ../shared/data/locomo/locomo10.json [--grow 100000 --work /tmp/rankers] \\
        [--before retrieval.ranker=hand --before fusion.threads=off --before retrieval.expansion_weight=0]

``--db`` is a store ``benchmarks/bench_retrieve.py`` wrote (user "bench"); it is read, never
changed. ``--grow N`` first copies it into ``--work`` and grows the copy to N events by bulk
load (the events copied with new ids and noisy vectors, as ``bench_backends.py`` does), so the
100k figure needs no two-hour write.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from memtracks import Memory
from memtracks.retrieval.embedders import USEEmbedder

from .bench_backends import inflate
from .bench_retrieve import bench_questions
from .sweep import configured

USER = "bench"
VARIANTS = ("before", "defaults")
HAND = ["retrieval.ranker=hand"]  # "before" without --before: the hand order


def grown(db: Path, work: Path, target: int) -> Path:
    """A copy of ``db`` in ``work`` holding ``target`` events (reused when it already does)."""
    work.mkdir(parents=True, exist_ok=True)
    copy = work / f"grown-{target}.db"
    if copy.exists():
        with Memory(copy, embedder=USEEmbedder(threads=1)) as mem:
            if mem.stats(USER)["events"] >= target:
                return copy
        for path in work.glob(f"grown-{target}.db*"):
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    with Memory(db, embedder=USEEmbedder(threads=1), read_only=True) as mem:
        mem.backup(copy)
    with Memory(copy, embedder=USEEmbedder(threads=1)) as mem:
        seconds = inflate(mem.store, USER, target, np.random.default_rng(7))
        print(f"  grown to {mem.stats(USER)['events']:,} events in {seconds:.0f} s", flush=True)
    return copy


def compare(path: Path, questions: list[str], now: datetime, before: Sequence[str] = HAND) -> dict:
    mem = Memory(path, embedder=USEEmbedder(threads=1))
    base = mem.reader.config
    configs = {"before": configured(before, base), "defaults": base}
    for order in VARIANTS:  # the first question builds the indexes; then warm caches
        mem.reader.config = configs[order]
        for q in questions[:5]:
            mem.retrieve(q, user_id=USER, now=now)
    times: dict[str, list[float]] = {o: [] for o in (*VARIANTS, "floor")}
    index = mem.index(USER, "event")
    for n, q in enumerate(questions):
        for order in VARIANTS if n % 2 == 0 else VARIANTS[::-1]:
            mem.reader.config = configs[order]
            start = time.perf_counter()
            mem.retrieve(q, user_id=USER, now=now)
            times[order].append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        index.search(mem.embedder.embed_batch([q])[0], 50)
        times["floor"].append((time.perf_counter() - start) * 1000)
    events = mem.stats(USER)["events"]
    mem.close()
    out: dict = {"events": events, "questions": len(questions), "before_changes": list(before)}
    for name, values in times.items():
        values.sort()
        out[name] = {"p50_ms": statistics.median(values), "p95_ms": values[int(0.95 * (len(values) - 1))]}
    out["defaults_over_before_p50"] = out["defaults"]["p50_ms"] / out["before"]["p50_ms"]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare_rankers", description=__doc__)
    parser.add_argument("--db", required=True, help="a store bench_retrieve.py wrote (user 'bench'); read only")
    parser.add_argument("--data", required=True, help="LoCoMo JSON (the questions)")
    parser.add_argument("--grow", type=int, help="grow a copy of the store to this many events first")
    parser.add_argument("--work", default="/tmp/memtracks-rankers", help="folder for the grown copy")
    parser.add_argument("--out", help="write the figures as JSON here")
    parser.add_argument(
        "--before",
        action="append",
        default=[],
        help="section.field=value for the configuration timed beside the defaults (repeatable;"
        " default: retrieval.ranker=hand)",
    )
    args = parser.parse_args(argv)
    if not Path(args.db).exists():
        parser.error(f"--db {args.db} does not exist (write it with benchmarks/bench_retrieve.py)")
    with Memory(args.db, embedder=USEEmbedder(threads=1), read_only=True) as mem:
        now = max(e.mentioned_at for e in mem.store.events(USER)) + timedelta(days=1)  # as bench_retrieve.py asks
    path = grown(Path(args.db), Path(args.work), args.grow) if args.grow else Path(args.db)
    try:
        configured(args.before or HAND)  # a bad change fails before any work
    except (AttributeError, TypeError, ValueError) as exc:
        parser.error(f"--before: {exc}")
    figures = compare(path, bench_questions(args.data), now, args.before or HAND)
    print(f"  before = defaults with {', '.join(figures['before_changes'])}")
    for name in (*VARIANTS, "floor"):
        f = figures[name]
        print(f"  {name:8} p50 {f['p50_ms']:7.1f} ms   p95 {f['p95_ms']:7.1f} ms")
    print(f"  {figures['events']:,} events, defaults / before p50: {figures['defaults_over_before_p50']:.2f}x")
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
