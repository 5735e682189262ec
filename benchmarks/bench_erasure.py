"""Another process erases: what the next question costs the process that holds the indexes.

    python benchmarks/bench_erasure.py --db /tmp/memtracks-bench/bench-100000.db [--user bench] [--turns 3]

Opens the store twice (two connections, as two processes would), answers a question on the
first (indexes loaded), erases ``--turns`` of the user's turns through the second, then times
the first connection's next question (it takes in the erasure) against a warm question
before it. The store is changed: run it on a copy.
"""

from __future__ import annotations

import argparse
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
    parser.add_argument("--turns", type=int, default=3)
    args = parser.parse_args(argv)
    toolkit, embedder = Toolkit.load(), USEEmbedder()
    now = datetime(2024, 1, 2, tzinfo=timezone.utc)
    reader = Memory(args.db, toolkit=toolkit, embedder=embedder)
    eraser = Memory(args.db, toolkit=toolkit, embedder=embedder)
    reader.retrieve("What did Caroline research?", user_id=args.user, now=now)
    start = time.perf_counter()
    reader.retrieve("Where did I go hiking?", user_id=args.user, now=now)
    warm = time.perf_counter() - start
    victims = [e.turn_id for e in eraser.events(args.user)[-args.turns :]]
    start = time.perf_counter()
    eraser.forget(args.user, turn_ids=victims)
    forget = time.perf_counter() - start
    start = time.perf_counter()
    reader.retrieve("Where did I go hiking?", user_id=args.user, now=now)
    after = time.perf_counter() - start
    print(
        f"erased {len(victims)} turns in {forget:.2f} s; the other connection's next question {after:.2f} s "
        f"(a warm question just before: {warm:.2f} s)"
    )
    reader.store.close()
    eraser.store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
