"""The embedder's thread count on an idle machine and beside a job that keeps cores busy.

    python benchmarks/bench_threads.py --data ../shared/data/locomo/locomo10.json [--busy 1] [--rounds 3]

Embeds the first ``--texts`` LoCoMo turns in batches of 64 (as ``write_many`` does) with the
default embedder (its thread count chosen per batch by measured speed), with one thread fixed
and with two fixed, in turn, ``--rounds`` times; reports the median texts/s of each. ``--busy N``
starts N processes that each keep a core busy for the whole run. Run it once idle and once with
``--busy 1`` to see how each choice degrades when another job holds a core.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from datetime import timezone
from pathlib import Path

from memtracks.interfaces.io import read_locomo
from memtracks.retrieval.embedders import USEEmbedder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=os.environ.get("MEMTRACKS_LOCOMO", "../shared/data/locomo/locomo10.json"))
    parser.add_argument("--texts", type=int, default=3072)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--busy", type=int, default=0, help="processes keeping a core busy meanwhile")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    if args.busy < 0 or args.rounds < 1 or args.texts < 64:
        parser.error("--busy must be 0 or more, --rounds at least 1, --texts at least 64")
    if not Path(args.data).exists():
        print(f"LoCoMo data not found at {args.data}; pass --data", file=sys.stderr)
        return 2
    texts = [t.text for t in read_locomo(args.data, timezone.utc)][: args.texts]
    embedders = {"chosen": USEEmbedder(), "1 thread": USEEmbedder(threads=1), "2 threads": USEEmbedder(threads=2)}
    for embedder in embedders.values():
        embedder.embed_batch(texts[:64])  # the model loaded before the clock starts
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    speeds: dict[str, list[float]] = {name: [] for name in embedders}
    try:
        for round_ in range(args.rounds):
            for name, embedder in embedders.items():
                start = time.perf_counter()
                for at in range(0, len(texts), 64):
                    embedder.embed_batch(texts[at : at + 64])
                speeds[name].append(len(texts) / (time.perf_counter() - start))
            print(f"round {round_ + 1}: " + ", ".join(f"{n} {s[-1]:.0f}" for n, s in speeds.items()), flush=True)
    finally:
        for job in busy:
            job.kill()
            job.wait()
    choice = embedders["chosen"].choice
    figures = {
        "busy_processes": args.busy,
        "cores": os.cpu_count(),
        "texts": len(texts),
        "texts_per_s": {name: statistics.median(s) for name, s in speeds.items()},
        "rounds": speeds,
        "chosen_now": choice.best(64) if choice else embedders["chosen"].threads,
    }
    print(json.dumps(figures, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
