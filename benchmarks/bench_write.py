"""Write throughput and latency on LoCoMo.

    python benchmarks/bench_write.py --data ../shared/data/locomo/locomo10.json [--repeat 3] [--time-only]

Measures, in one run on the same machine:
- ``write_many`` over every LoCoMo turn (5,882), each conversation its own user: turns/s;
- single English ``write()`` latency (p50 / p95) on an in-memory and on a file database;
- baselines in the same run: spaCy as the writer uses it (NER on every turn, the tagger and
  parser on the sentences that may state a fact), spaCy NER alone, the full spaCy pipeline on
  every turn (what parsing everything would cost), and the embedder alone, so a slow, noisy
  machine shows up in them too;
- time normalisation alone (``normalize_time`` on each turn, with the language the writer
  detects): median and p95 microseconds per turn, and its share of a ``write_many`` turn.
Reports medians over ``--repeat`` runs. ``--time-only`` measures time normalisation alone (no
writes, no share of a write), e.g. to compare two versions of the normalizer in one sitting.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from datetime import timezone
from pathlib import Path

from memtracks import Memory
from memtracks.embedders import USEEmbedder
from memtracks.io import read_locomo
from memtracks.pipeline.timenorm import normalize_time
from memtracks.toolkit import Toolkit


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=os.environ.get("MEMTRACKS_LOCOMO", "../shared/data/locomo/locomo10.json"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--single", type=int, default=300, help="turns written one by one for latency")
    parser.add_argument("--out", help="write the figures as JSON here")
    parser.add_argument("--time-only", action="store_true", help="measure time normalisation alone")
    args = parser.parse_args(argv)
    if not Path(args.data).exists():
        print(f"LoCoMo data not found at {args.data}; pass --data", file=sys.stderr)
        return 2

    turns = list(read_locomo(args.data, timezone.utc))
    texts = [t.text for t in turns]
    toolkit = Toolkit.load()
    print(f"{len(turns)} LoCoMo turns, {os.cpu_count()} cores", flush=True)
    langs = [a.lang for a in toolkit.nlp.analyze(texts)]  # also loads the models before timing
    if args.time_only:
        timenorm = time_normalisation(turns, langs, args.repeat)
        print(f"time normalisation: median {timenorm['median_us']:.0f} us/turn, p95 {timenorm['p95_us']:.0f} us")
        print(json.dumps(timenorm, indent=2))
        if args.out:
            Path(args.out).write_text(json.dumps({"time_normalisation": timenorm}, indent=2))
        return 0
    embedder = USEEmbedder()
    embedder.embed_batch(texts[:64])

    ner, used, full, embed, many = [], [], [], [], []
    for run in range(args.repeat):
        ner.append(timed(lambda: toolkit.nlp.analyze(texts)))
        used.append(timed(lambda: toolkit.nlp.analyze(texts, parse_if=toolkit.may_state)))
        full.append(timed(lambda: toolkit.nlp.analyze(texts, parse_if=lambda _: True)))
        embed.append(timed(lambda: embedder.embed_batch(texts)))
        mem = Memory(toolkit=toolkit, embedder=embedder)
        many.append(timed(lambda: mem.write_many(turns)))  # noqa: B023 - called at once
        mem.close()
        print(
            f"run {run + 1}: write_many {len(turns) / many[-1]:.0f} turns/s "
            f"(spaCy as used {len(turns) / used[-1]:.0f}/s, NER alone {len(turns) / ner[-1]:.0f}/s, "
            f"parse everything {len(turns) / full[-1]:.0f}/s, embedder alone {len(turns) / embed[-1]:.0f}/s)",
            flush=True,
        )

    timenorm = time_normalisation(turns, langs, args.repeat)
    per_turn_us = statistics.median(many) / len(turns) * 1e6
    timenorm["share_of_write_many_turn"] = timenorm["median_us"] / per_turn_us
    print(
        f"time normalisation: median {timenorm['median_us']:.0f} us/turn, p95 {timenorm['p95_us']:.0f} us, "
        f"{100 * timenorm['share_of_write_many_turn']:.1f}% of a write_many turn ({per_turn_us:.0f} us)",
        flush=True,
    )

    latencies = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, path in (("memory", ":memory:"), ("file", str(Path(tmp) / "bench.db"))):
            mem = Memory(path, toolkit=toolkit, embedder=embedder)
            samples = []
            for turn in turns[: args.single]:
                samples.append(timed(lambda: mem.write(turn)) * 1000)  # noqa: B023 - called at once
            mem.close()
            samples.sort()
            latencies[name] = {"p50_ms": statistics.median(samples), "p95_ms": samples[int(0.95 * (len(samples) - 1))]}
            print(
                f"single write ({name} db): p50 {latencies[name]['p50_ms']:.1f} ms, "
                f"p95 {latencies[name]['p95_ms']:.1f} ms",
                flush=True,
            )

    figures = {
        "turns": len(turns),
        "cores": os.cpu_count(),
        "write_many_turns_per_s": len(turns) / statistics.median(many),
        "baseline_spacy_as_used_turns_per_s": len(turns) / statistics.median(used),
        "baseline_ner_only_turns_per_s": len(turns) / statistics.median(ner),
        "baseline_parse_everything_turns_per_s": len(turns) / statistics.median(full),
        "baseline_embedder_only_turns_per_s": len(turns) / statistics.median(embed),
        "single_write": latencies,
        "time_normalisation": timenorm,
        "repeat": args.repeat,
    }
    print(json.dumps(figures, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2))
    return 0


def time_normalisation(turns, langs, repeat: int) -> dict[str, float]:
    """Per-turn cost of ``normalize_time`` alone: for each turn the fastest of ``repeat`` calls
    (the machine is shared), then the median and p95 over turns."""
    for turn, lang in zip(turns[:64], langs[:64], strict=True):  # warm the grammars before timing
        normalize_time(turn.text, turn.timestamp, lang=lang)
    samples = []
    for turn, lang in zip(turns, langs, strict=True):
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter_ns()
            normalize_time(turn.text, turn.timestamp, lang=lang)
            best = min(best, time.perf_counter_ns() - start)
        samples.append(best / 1000)
    samples.sort()
    return {
        "median_us": statistics.median(samples),
        "mean_us": statistics.fmean(samples),
        "p95_us": samples[int(0.95 * (len(samples) - 1))],
        "total_s": sum(samples) / 1e6,
    }


if __name__ == "__main__":
    sys.exit(main())
