"""What the async write queue does to the caller's write latency, on LoCoMo turns.

    python benchmarks/bench_queue.py --data ../shared/data/locomo/locomo10.json --turns 300 --repeat 3

For each repeat, in the same run and on the same machine, the same LoCoMo turns (English; and
the bundled Chinese fixture's turns, if given with ``--zh``) are written one by one to a fresh
SQLite file:

- synchronously (``Memory(path)``, the baseline): each ``write()`` returns after the writer ran;
- with ``Memory(path, async_writes=True)``: each ``write()`` returns once the turn is
  validated, journalled and in the hot cache; the worker writes in the background.

Reported: the caller's p50 / p99 per ``write()`` (median over repeats), the time until every
turn is written (``flush()`` included), and whether a question asked right after the last
write finds it (read-your-writes).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import yaml

from memtracks import Memory, Turn
from memtracks.interfaces.io import read_locomo
from memtracks.retrieval.embedders import USEEmbedder
from memtracks.toolkit import Toolkit


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run(turns, toolkit, embedder, async_writes: bool, folder: Path) -> dict[str, float]:
    path = folder / f"{'async' if async_writes else 'sync'}-{time.monotonic_ns()}.db"
    mem = Memory(path, toolkit=toolkit, embedder=embedder, async_writes=async_writes)
    latencies = []
    start = time.perf_counter()
    for turn in turns:
        t0 = time.perf_counter()
        mem.write(turn)
        latencies.append((time.perf_counter() - t0) * 1000)
    last = turns[-1]
    found = mem.retrieve(last.text, user_id=last.user_id, now=last.timestamp, top_n=5)
    seen = any(last.turn_id in c.source_turn_ids for c in found.cards)
    mem.flush()
    total = time.perf_counter() - start
    mem.close()
    return {
        "p50_ms": percentile(latencies, 0.5),
        "p99_ms": percentile(latencies, 0.99),
        "max_ms": max(latencies),
        "all_written_s": total,
        "read_your_write": float(seen),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=os.environ.get("MEMTRACKS_LOCOMO", "../shared/data/locomo/locomo10.json"))
    parser.add_argument("--zh", default="tests/data/updates_zh.yaml", help="Chinese turns to add (the update suite)")
    parser.add_argument("--turns", type=int, default=300, help="turns written one by one")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args(argv)
    if not Path(args.data).exists():
        print(f"LoCoMo data not found at {args.data}; pass --data", file=sys.stderr)
        return 2
    turns = list(read_locomo(args.data, timezone.utc))[: args.turns]
    if args.zh and Path(args.zh).exists():
        turns += _chinese_turns(Path(args.zh))[: args.turns // 3]
    toolkit, embedder = Toolkit.load(), USEEmbedder()
    toolkit.nlp.analyze([t.text for t in turns[:64]])  # load the models before timing
    embedder.embed_batch([t.text for t in turns[:64]])
    print(f"{len(turns)} turns written one by one, {args.repeat} repeats, {os.cpu_count()} cores", flush=True)
    figures: dict[str, list[dict[str, float]]] = {"sync": [], "async": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeat):
            for mode in ("sync", "async") if r % 2 == 0 else ("async", "sync"):  # alternate: fair to drift
                figures[mode].append(run(turns, toolkit, embedder, mode == "async", Path(tmp)))
                print(f"  repeat {r + 1} {mode}: {figures[mode][-1]}", flush=True)
    summary = {
        mode: {key: statistics.median(f[key] for f in runs) for key in runs[0]} for mode, runs in figures.items()
    }
    print(f"{'':8}{'p50 ms':>10}{'p99 ms':>10}{'max ms':>10}{'all written s':>15}{'read-your-write':>17}")
    for mode, s in summary.items():
        print(
            f"{mode:8}{s['p50_ms']:>10.2f}{s['p99_ms']:>10.2f}{s['max_ms']:>10.1f}{s['all_written_s']:>15.2f}"
            f"{s['read_your_write']:>17.0%}"
        )
    if args.out:
        Path(args.out).write_text(json.dumps({"turns": len(turns), "summary": summary, "runs": figures}, indent=2))
    return 0


def _chinese_turns(path: Path) -> list[Turn]:
    """The update suite's Chinese turns, one user per scenario, a minute apart."""
    start = datetime(2024, 6, 1, tzinfo=timezone.utc)
    scenarios = yaml.safe_load(path.read_text(encoding="utf-8"))["scenarios"]
    return [
        Turn(
            text,
            user_id=f"zh-{s['name']}",
            session_id="s1",
            turn_id=f"{s['name']}:{n}",
            timestamp=start + timedelta(days=day, minutes=n),
        )
        for s in scenarios
        for n, (day, text) in enumerate(s["turns"])
    ]


if __name__ == "__main__":
    sys.exit(main())
