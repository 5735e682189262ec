"""Where a new process's first question spends its time (cProfile), language tools loaded.

    python benchmarks/profile_cold_start.py --db /tmp/memtracks-bench/bench-100000.db [--user bench]

A first ``Memory`` answers once and is dropped (so the time grammars and caches of the
process are warm, as in ``bench_cold_start.py``'s later runs); a second one's first
``retrieve()`` is profiled. Nothing is saved: the snapshots stay as they were.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from datetime import datetime, timezone

from memtracks import Memory
from memtracks.retrieval.embedders import USEEmbedder
from memtracks.toolkit import Toolkit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True)
    parser.add_argument("--user", default="bench")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args(argv)
    toolkit, embedder = Toolkit.load(), USEEmbedder()
    now = datetime(2024, 1, 2, tzinfo=timezone.utc)
    warm = Memory(args.db, toolkit=toolkit, embedder=embedder)
    warm.retrieve("What did Caroline research?", user_id=args.user, now=now)
    warm.store.close()
    mem = Memory(args.db, toolkit=toolkit, embedder=embedder)
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    mem.retrieve("Where did I go hiking?", user_id=args.user, now=now)
    profile.disable()
    print(f"first query: {time.perf_counter() - start:.2f} s")
    pstats.Stats(profile).sort_stats("cumulative").print_stats(args.top)
    mem.store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
