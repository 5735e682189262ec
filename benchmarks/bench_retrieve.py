"""Retrieve latency with 10k and 100k memories (one user), English and Chinese questions.

    python benchmarks/bench_retrieve.py --data ../shared/data/locomo/locomo10.json \
        --sizes 10000,100000 --workdir /tmp/memtracks-bench

Memories are LoCoMo turns (English) interleaved with templated Chinese turns, repeated with
shifted dates until the store holds the wanted number of turns; the stores are kept in
``--workdir`` and reused on the next run. Questions are LoCoMo questions and Chinese ones.
Reports the median and p95 of warm ``retrieve()`` calls, the first (cold) call that builds
the indexes, and a baseline measured in the same run: the query embedding plus a bare FAISS
search over the same event vectors.

Then, on the same store: the first question of a new ``Memory`` (a new process, language tools
already loaded) with its indexes rebuilt from the store, and with them loaded from the
snapshots the previous one saved at ``close()``; and the cost of seeing another connection's
writes — a second ``Memory`` on the file writes 1 or 50 turns, and the first question after
it (which reads them in) is timed against the warm questions, as is the first question after
the other connection erased them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from memtracks import Memory, Turn
from memtracks.interfaces.io import read_locomo
from memtracks.retrieval.embedders import USEEmbedder
from memtracks.toolkit import Toolkit

ZH_TEMPLATES = [
    "我今天去{place}吃了{food}，味道不错。",
    "下周三我要去{place}出差。",
    "我最近在学{hobby}。",
    "昨天和朋友在{place}看了电影。",
    "我的猫豆豆最近不爱吃{food}。",
    "这个项目老板说月底必须交。",
    "周末打算去{place}爬山。",
    "我上个月搬到了{place}。",
    "我对{food}过敏。",
    "明天下午三点有面试。",
]
ZH_FILL = {
    "place": ["北京", "上海", "深圳", "杭州", "成都", "西湖", "公司附近", "商场"],
    "food": ["火锅", "面条", "花生", "寿司", "饺子", "烤鸭"],
    "hobby": ["吉他", "游泳", "画画", "日语"],
}
ZH_QUESTIONS = [
    "我住在哪里？",
    "我对什么过敏？",
    "我下周三有什么安排？",
    "豆豆最近怎么样？",
    "项目什么时候交？",
    "我最近在学什么？",
    "我上个月做了什么？",
    "我周末去哪里爬山？",
]


def synthetic_turns(locomo: list[Turn], count: int, seed: int = 7) -> list[Turn]:
    rng = random.Random(seed)
    out: list[Turn] = []
    start = datetime(2022, 1, 1, 9, tzinfo=timezone.utc)
    step = timedelta(days=730) / count
    while len(out) < count:
        i = len(out)
        when = start + step * i
        if i % 5 == 4:
            template = rng.choice(ZH_TEMPLATES)
            text = template.format(**{k: rng.choice(v) for k, v in ZH_FILL.items()})
            speaker = "user"
        else:
            base = locomo[i % len(locomo)]
            text, speaker = base.text, base.speaker
        out.append(
            Turn(text=text, speaker=speaker, timestamp=when, user_id="bench", session_id=f"s{i // 20}", turn_id=f"b{i}")
        )
    return out


def build(path: Path, turns: list[Turn], toolkit: Toolkit, embedder: USEEmbedder) -> Memory:
    mem = Memory(path, toolkit=toolkit, embedder=embedder)
    have = mem.stats("bench")["turns"]
    if have < len(turns):
        print(f"  writing {len(turns) - have} turns into {path} ...", flush=True)
        mem.write_many(turns[have:], progress=True, batch_size=256)
    return mem


def measure(mem: Memory, questions: list[str], now: datetime, embedder: USEEmbedder) -> dict:
    start = time.perf_counter()
    mem.retrieve(questions[0], user_id="bench", now=now)
    cold = (time.perf_counter() - start) * 1000
    for q in questions[:5]:  # warm caches
        mem.retrieve(q, user_id="bench", now=now)
    samples, baseline = [], []
    index = mem.index("bench", "event")
    for q in questions:
        t = time.perf_counter()
        mem.retrieve(q, user_id="bench", now=now)
        samples.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        index.search(embedder.embed_batch([q])[0], 45)
        baseline.append((time.perf_counter() - t) * 1000)
    samples.sort()
    return {
        "memories": sum(v for k, v in mem.stats("bench").items() if k in ("facts", "events", "inferences")),
        "turns": mem.stats("bench")["turns"],
        "queries": len(samples),
        "cold_first_query_ms": cold,
        "p50_ms": statistics.median(samples),
        "p95_ms": samples[int(0.95 * (len(samples) - 1))],
        "baseline_embed_plus_faiss_p50_ms": statistics.median(baseline),
    }


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def measure_start_and_refresh(
    path: Path, questions: list[str], now: datetime, toolkit: Toolkit, embedder: USEEmbedder
) -> dict:
    """Cold start with and without snapshots; refresh after another connection's writes."""
    out: dict = {}
    reader = Memory(path, toolkit=toolkit, embedder=embedder)
    writer = Memory(path, toolkit=toolkit, embedder=embedder)
    for q in questions[:5]:
        reader.retrieve(q, user_id="bench", now=now)
    warm = sorted(_timed(lambda q=q: reader.retrieve(q, user_id="bench", now=now)) for q in questions[:40])
    out["warm_p50_ms"] = statistics.median(warm)
    out["unchanged_check_us"] = statistics.median(_timed(reader.store.data_version) * 1000 for _ in range(200))
    added: list[str] = []
    for batch in (1, 50):
        turns = [
            Turn(
                text=f"Note {len(added) + i}: I picked up a new hobby, pottery class number {i}.",
                user_id="bench",
                session_id="refresh",
                turn_id=f"refresh-{len(added) + i}",
                timestamp=now - timedelta(hours=1),
            )
            for i in range(batch)
        ]
        writer.write_many(turns)
        added += [t.turn_id for t in turns]  # type: ignore[misc]
        out[f"first_query_after_{batch}_foreign_writes_ms"] = _timed(
            lambda: reader.retrieve("What hobby did I pick up?", user_id="bench", now=now)
        )
    writer.forget("bench", turn_ids=added)
    out["first_query_after_foreign_erasure_ms"] = _timed(
        lambda: reader.retrieve(questions[0], user_id="bench", now=now)
    )
    writer.close()
    if reader.indexes.snapshots is not None:
        reader.indexes.snapshots.drop("bench")
    reader.store.close()  # without saving snapshots: the next one rebuilds
    fresh = Memory(path, toolkit=toolkit, embedder=embedder)
    out["cold_first_query_rebuild_ms"] = _timed(lambda: fresh.retrieve(questions[0], user_id="bench", now=now))
    out["snapshot_save_ms"] = _timed(fresh.close)
    starts = []
    for q in questions[1:4]:
        again = Memory(path, toolkit=toolkit, embedder=embedder)
        starts.append(_timed(lambda q=q, m=again: m.retrieve(q, user_id="bench", now=now)))
        loads = again.indexes.snapshot_loads
        again.store.close()
    out["cold_first_query_snapshot_ms"] = statistics.median(starts)
    out["snapshot_files_loaded"] = loads
    return out


def bench_questions(path: str | Path) -> list[str]:
    """240 questions: LoCoMo's first 200, interleaved with the Chinese ones."""
    data = json.loads(Path(path).read_text())
    en_questions = [qa["question"] for sample in data for qa in sample["qa"]][:200]
    questions = [q for pair in zip(en_questions, ZH_QUESTIONS * 25, strict=False) for q in pair] + en_questions[
        len(ZH_QUESTIONS) * 25 :
    ]
    return questions[:240]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=os.environ.get("MEMTRACKS_LOCOMO", "../shared/data/locomo/locomo10.json"))
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--workdir", default="/tmp/memtracks-bench")
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args(argv)
    if not Path(args.data).exists():
        print(f"LoCoMo data not found at {args.data}; pass --data", file=sys.stderr)
        return 2
    locomo = list(read_locomo(args.data, timezone.utc))
    questions = bench_questions(args.data)
    toolkit, embedder = Toolkit.load(), USEEmbedder()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    results = {}
    for size in (int(s) for s in args.sizes.split(",")):
        print(f"{size} turns:", flush=True)
        turns = synthetic_turns(locomo, size)
        mem = build(workdir / f"bench-{size}.db", turns, toolkit, embedder)
        now = turns[-1].timestamp + timedelta(days=1)  # type: ignore[operator]
        results[str(size)] = figures = measure(mem, questions, now, embedder)
        mem.close()
        figures.update(measure_start_and_refresh(workdir / f"bench-{size}.db", questions, now, toolkit, embedder))
        print(
            f"  {figures['memories']} memories: retrieve p50 {figures['p50_ms']:.1f} ms, p95 {figures['p95_ms']:.1f} ms "
            f"(cold first query {figures['cold_first_query_ms']:.0f} ms; baseline embed+FAISS "
            f"{figures['baseline_embed_plus_faiss_p50_ms']:.1f} ms)\n"
            f"  new process, first query: {figures['cold_first_query_rebuild_ms']:.0f} ms rebuilding the indexes, "
            f"{figures['cold_first_query_snapshot_ms']:.0f} ms from snapshots; after another connection wrote "
            f"1 / 50 turns: {figures['first_query_after_1_foreign_writes_ms']:.1f} / "
            f"{figures['first_query_after_50_foreign_writes_ms']:.1f} ms (warm p50 {figures['warm_p50_ms']:.1f} ms); "
            f"after it erased them: {figures['first_query_after_foreign_erasure_ms']:.0f} ms",
            flush=True,
        )
    print(json.dumps(results, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
