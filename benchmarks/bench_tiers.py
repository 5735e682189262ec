"""Retrieve latency and recall at 100k memories with and without tiered storage.

    cp -r /tmp/mt-cold/bench-100000.db* /tmp/tiers-bench/    # a copy: opening migrates it
    python benchmarks/bench_tiers.py --db /tmp/tiers-bench/bench-100000.db \\
        --data ../shared/data/locomo/locomo10.json --out benchmarks/results/tiers.json

The store is the one ``bench_retrieve.py`` builds (one user, "bench": LoCoMo turns and
templated Chinese turns repeated over two years). Two ``Memory`` objects open it, one with
tiers off and one with tiers on (``TierConfig(enabled=True)``); each question is asked of
both in turn, so both see the same machine load. Reports for each: the first question of
the process (tiers on: the live index is built from the store; off: the whole indexes come
from their snapshots), the median and p95 of the warm questions, the memory the indexes take,
what the tiered questions searched (the live tiers, or the archive and why), and how much of
the untiered top 5 the tiered top 5 keeps (there are no gold answers at this scale; LoCoMo's
own recall with and without tiers is measured by ``python -m benchmarks locomo [--tiers]``).

Each question is also asked of both with the event chain read as it was before its links were
read in sets (``PerEventChain``: two queries per event, and the plan SQLite chose before the
reverse index covered ``src`` — a scan of the user's links for each look-up back), and the
cards are compared with the set-based answer; and the floor every retrieve pays is timed
beside them: embedding the question and a bare FAISS search of the event vectors.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

from memtracks import Memory
from memtracks.config import MemoryConfig, TierConfig
from memtracks.retrieval.embedders import USEEmbedder
from memtracks.retrieval.hits import search_both
from memtracks.storage.chain import StoredChain
from memtracks.toolkit import Toolkit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_retrieve import bench_questions

USER = "bench"
TOP = 5


def _timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return (time.perf_counter() - start) * 1000, out


def _said(recall) -> set[str]:
    """What the top cards say (the store repeats its turns, so a turn id is not the measure)."""
    return {_content(c.text) for c in recall.cards[:TOP]}


def _cards(recall) -> list[tuple[str, str, float]]:
    return [(c.ref, c.text, round(c.score, 9)) for c in recall.cards]


def _content(card: str) -> str:
    """A card without its date and confidence: the quoted turn, or the fact or conclusion."""
    if card.count('"') >= 2:
        return card[card.index('"') : card.rindex('"')]
    return card.split(" (conf", 1)[0]


class PerEventChain(StoredChain):
    """The chain as retrieval read it before: the links of one event per query, looking back
    with the plan SQLite picked when the reverse index held only ``dst`` (the primary key,
    which covers ``src``, scanned over all of the user's links)."""

    def load(self, nodes) -> None:
        for node in nodes:
            if node in self._out:
                continue
            self._out[node] = [
                (r[0], r[1], r[2])
                for r in self.store._rows(
                    "SELECT dst, kind, key FROM event_links WHERE user_id = ? AND src = ?", (self.scope, node)
                )
            ]
            self._in[node] = [
                r[0]
                for r in self.store._rows(
                    "SELECT src FROM event_links INDEXED BY sqlite_autoindex_event_links_1 WHERE user_id = ? AND dst = ?",
                    (self.scope, node),
                )
            ]


CHAINS = {"": StoredChain, "per_event_": PerEventChain}  # set-based (now), per event (before)


def _search_stage(mem: Memory, questions: list[str], now) -> dict[str, float]:
    """The part of a retrieve that tiers shrink: the semantic and BM25 search of the events
    (the temporal track's pool of 45), over the whole indexes and over the live index."""
    reader = mem.reader
    times: dict[str, list[float]] = {"whole": [], "live": []}
    for q in questions:
        query = reader.analyze(q, user_id=USER, now=now)
        reach = reader.tiers.reach_at(now)
        for name, ctx in (("whole", reader.context(USER)), ("live", reader.context(USER, reach))):
            times[name].append(_timed(lambda c=ctx, q=query: search_both(c, "event", q.vector, q.terms, 45))[0])
    return {name: statistics.median(ms) for name, ms in times.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True, help="a COPY of the 100k store built by bench_retrieve.py")
    parser.add_argument("--data", default="../shared/data/locomo/locomo10.json")
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args(argv)
    questions = bench_questions(args.data)
    toolkit, embedder = Toolkit.load(), USEEmbedder()
    toolkit.nlp.analyze(["Load the English model.", "加载中文分词。"])
    embedder.embed_batch(["warm up"])
    modes = {"off": MemoryConfig(), "on": MemoryConfig(tiers=TierConfig(enabled=True))}
    mems = {name: Memory(args.db, toolkit=toolkit, embedder=embedder, config=cfg) for name, cfg in modes.items()}
    last = mems["off"].store.events(USER, limit=1)[0].mentioned_at
    now = last + timedelta(days=1)
    out: dict = {
        "memories": sum(v for k, v in mems["off"].stats(USER).items() if k in ("facts", "events", "inferences"))
    }
    out["now"] = now.isoformat()
    for name, mem in mems.items():
        out[f"{name}_first_query_ms"] = _timed(lambda m=mem: m.retrieve(questions[0], user_id=USER, now=now))[0]
    for q in questions[1:6]:
        for mem in mems.values():
            mem.retrieve(q, user_id=USER, now=now)
    samples: dict[str, list[float]] = {f"{chain}{name}": [] for name in mems for chain in CHAINS}
    samples["floor_embed_faiss"] = []
    by_reach: dict[str, dict[str, list[float]]] = {}  # what the tiered question searched -> mode -> ms
    reached: Counter[str] = Counter()
    kept, candidates = [], {name: [] for name in mems}
    differ: Counter[str] = Counter()  # questions whose cards the per-event chain changes
    event_index = mems["off"].index(USER, "event")
    for q in questions:
        got = {}
        for name, mem in mems.items():
            for chain, chain_class in CHAINS.items():
                mem.reader.chain = lambda scope, m=mem, c=chain_class: c(m.store, scope)
                ms, recall = _timed(lambda m=mem, q=q: m.retrieve(q, user_id=USER, now=now))
                samples[f"{chain}{name}"].append(ms)
                if chain:
                    differ[name] += _cards(recall) != _cards(got[name])
                else:
                    candidates[name].append(recall.candidates)  # type: ignore[attr-defined]
                    got[name] = recall
        samples["floor_embed_faiss"].append(_timed(lambda q=q: event_index.search(embedder.embed_batch([q])[0], 45))[0])
        why = got["on"].reached  # type: ignore[attr-defined]
        reached[why] += 1
        for name in mems:
            by_reach.setdefault(why, {}).setdefault(name, []).append(samples[name][-1])
        base = _said(got["off"])
        if base:
            kept.append(len(base & _said(got["on"])) / len(base))
    out["event_search_stage_p50_ms"] = _search_stage(mems["on"], questions, now)
    for name, values in samples.items():
        values.sort()
        out[f"{name}_p50_ms"] = statistics.median(values)
        out[f"{name}_p95_ms"] = values[int(0.95 * (len(values) - 1))]
    for name, mem in mems.items():
        mem.reader.chain = lambda scope, m=mem: StoredChain(m.store, scope)
        out[f"{name}_candidates_median"] = statistics.median(candidates[name])
        out[f"{name}_index_mb"] = mem.indexes.nbytes() / 1e6
        out[f"{name}_questions_whose_cards_the_per_event_chain_changes"] = differ[name]
    live = mems["on"].indexes.live_since().get(USER)
    out["live_index_since"] = live.isoformat() if live else None
    out["live_events"] = len(mems["on"].store.ids_said_since(USER, "event", live)) if live else 0
    out["on_reached"] = dict(reached)
    out["p50_ms_by_what_the_tiered_question_searched"] = {
        why: {name: statistics.median(ms) for name, ms in modes_ms.items()} for why, modes_ms in by_reach.items()
    }
    out["on_keeps_of_off_top5"] = statistics.mean(kept) if kept else None
    out["questions"] = len(questions)
    for mem in mems.values():
        mem.store.close()  # no snapshots written: the copy stays as it was opened
    print(json.dumps(out, indent=2, ensure_ascii=False))
    if args.out:
        Path(args.out).write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
