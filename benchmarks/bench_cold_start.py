"""A new process's first question on an existing store, language tools already loaded.

    python benchmarks/bench_cold_start.py --db /tmp/memtracks-bench/bench-100000.db [--runs 5]

Each run opens a new ``Memory`` on the file and times its first ``retrieve()`` (which loads the
index snapshots saved beside the file, or builds the indexes from the store when there are
none), then a second, warm one; the time to embed the question alone is the baseline.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import datetime, timezone

from memtracks import Memory
from memtracks.retrieval.embedders import USEEmbedder
from memtracks.toolkit import Toolkit

QUESTIONS = [
    "What did Caroline research?",
    "我住在哪里？",
    "When did Melanie paint a sunrise?",
    "What is my cat's name?",
    "Where did I go hiking?",
    "我下周三有什么安排？",
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True)
    parser.add_argument("--user", default="bench")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    toolkit, embedder = Toolkit.load(), USEEmbedder()
    embedder.embed_batch(["warm up"])
    toolkit.nlp.analyze(["warm up", "你好"])
    now = datetime(2024, 1, 2, tzinfo=timezone.utc)
    first, warm, embed = [], [], []
    for question in (QUESTIONS * args.runs)[: args.runs]:
        start = time.perf_counter()
        embedder.embed_batch([question])
        embed.append((time.perf_counter() - start) * 1000)
        mem = Memory(args.db, toolkit=toolkit, embedder=embedder)
        start = time.perf_counter()
        mem.retrieve(question, user_id=args.user, now=now)
        first.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        mem.retrieve(QUESTIONS[0], user_id=args.user, now=now)
        warm.append((time.perf_counter() - start) * 1000)
        mem.store.close()  # not close(): leave the snapshots as they were
        print(f"first {first[-1]:.0f} ms, warm {warm[-1]:.0f} ms, embedding alone {embed[-1]:.0f} ms", flush=True)
    print(
        f"median: first query {statistics.median(first):.0f} ms, warm {statistics.median(warm):.0f} ms, "
        f"embedding alone {statistics.median(embed):.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
