"""Consolidation, measured: memories before and after, recall before and after, and wrong
merges on hand-written look-alikes that must stay apart.

    python -m benchmarks.bench_consolidate --pairs tests/data/consolidation_pairs.yaml
    python -m benchmarks.bench_consolidate --locomo ../shared/data/locomo/locomo10.json --limit 3
    python -m benchmarks.bench_consolidate --longmemeval ../shared/data/longmemeval/longmemeval_oracle.json --limit 40

Each unit (a LoCoMo conversation, a LongMemEval question's haystack) is ingested into a fresh
memory; its questions are asked (top 10 cards), the memory is consolidated with the default
thresholds, and the questions are asked again. LoCoMo recall is the share of evidence turns
cited in the first k cards; LongMemEval's is recall_any@k over sessions. Every merge is
written to ``--out`` for inspection.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import yaml

from memtracks import Memory
from memtracks.retrieval.embedders import USEEmbedder
from memtracks.storage import consolidations
from memtracks.toolkit import Toolkit

from . import metrics
from .datasets import Unit, load_locomo, load_longmemeval

KS = (5, 10)


def _recalls(mem: Memory, unit: Unit, lme: bool) -> list[dict[int, float]]:
    out = []
    for q in unit.questions:
        if q.abstention or not (q.evidence_sessions if lme else q.evidence_turns):
            continue
        cards = mem.retrieve(q.question, user_id=unit.id, now=q.asked_at, top_n=max(KS)).cards
        items = [list(c.source_turn_ids) for c in cards]
        if lme:
            scores = {k: metrics.recall_any(items, q.evidence_sessions, k, unit.session_of) for k in KS}
        else:
            scores = {k: metrics.recall_acc(items, q.evidence_turns, k) for k in KS}
        out.append({k: float(v or 0.0) for k, v in scores.items()})
    return out


def run_dataset(units: list[Unit], lme: bool, toolkit: Toolkit, embedder: USEEmbedder) -> dict[str, Any]:
    before_r: list[dict[int, float]] = []
    after_r: list[dict[int, float]] = []
    totals = {"before": {"facts": 0, "events": 0, "inferences": 0}, "after": {"facts": 0, "events": 0, "inferences": 0}}
    actions: dict[str, int] = {"merge": 0, "update": 0, "replace": 0, "keep_separate": 0}
    merges: list[dict[str, Any]] = []
    seconds = []
    for n, unit in enumerate(units, 1):
        with Memory(toolkit=toolkit, embedder=embedder) as mem:
            mem.write_many(unit.turns)
            before_r += _recalls(mem, unit, lme)
            start = time.perf_counter()
            report = mem.consolidate(unit.id)
            seconds.append(time.perf_counter() - start)
            after_r += _recalls(mem, unit, lme)
        for side in ("before", "after"):
            for key, value in getattr(report, side).items():
                totals[side][key] += value
        for key, value in report.counts().items():
            actions[key] += value
        merges += [{"unit": unit.id, **a.to_dict()} for a in report.actions if a.kind != "keep_separate"]
        print(f"  [{n}/{len(units)}] {unit.id}: {report.before} -> {report.after} {report.counts()}", flush=True)

    def mean(rows: list[dict[int, float]], k: int) -> float:
        return round(statistics.fmean(r[k] for r in rows), 4) if rows else 0.0

    return {
        "units": len(units),
        "questions": len(before_r),
        "memories": totals,
        "actions": actions,
        "recall_before": {f"@{k}": mean(before_r, k) for k in KS},
        "recall_after": {f"@{k}": mean(after_r, k) for k in KS},
        "questions_recall_fell_at_5": sum(1 for b, a in zip(before_r, after_r, strict=True) if a[5] < b[5]),
        "consolidate_seconds_median": round(statistics.median(seconds), 3) if seconds else 0.0,
        "merges": merges,
    }


def run_pairs(path: Path, toolkit: Toolkit, embedder: USEEmbedder) -> dict[str, Any]:
    pairs = yaml.safe_load(path.read_text(encoding="utf-8"))["pairs"]
    wrong, found, rows = [], [], []
    for case in pairs:
        tz = timezone(timedelta(hours=8)) if case["lang"] == "zh" else timezone.utc
        start = datetime(2024, 3, 4, 10, tzinfo=tz)
        gap = timedelta(hours=case.get("gap_hours", 2))
        with Memory(toolkit=toolkit, embedder=embedder) as mem:
            for i, text in enumerate((case["first"], case["second"])):
                mem.write(text, user_id="u", session_id="s", turn_id=f"t{i}", timestamp=start + i * gap)
            events = [e.id for e in mem.events("u") if e.id is not None]
            vectors = consolidations.matrix(mem.store, "u", "event", events)
            cosine = float(vectors[events[0]] @ vectors[events[1]])
            report = mem.consolidate("u")
        folded = [a for a in report.actions if a.kind in ("merge", "update")]
        rows.append({"id": case["id"], "expect": case["expect"], "folded": bool(folded), "cosine": round(cosine, 4)})
        if folded and case["expect"] == "separate":
            wrong.append(case["id"])
        if folded and case["expect"] == "merge":
            found.append(case["id"])
    separate = sum(1 for c in pairs if c["expect"] == "separate")
    return {
        "must_not_merge": separate,
        "wrong_merges": len(wrong),
        "wrong": wrong,
        "should_merge": len(pairs) - separate,
        "merged": len(found),
        "missed": [c["id"] for c in pairs if c["expect"] == "merge" and c["id"] not in found],
        "by_language": {lang: sum(1 for c in pairs if c["lang"] == lang and c["id"] in wrong) for lang in ("en", "zh")},
        # what a rule on the turns' cosine alone would have merged (the thresholds, no text check)
        "cosine_only_wrong_merges": {
            str(t): sum(1 for r in rows if r["expect"] == "separate" and r["cosine"] >= t) for t in (0.7, 0.9)
        },
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=Path, help="hand-written look-alike pairs (YAML)")
    parser.add_argument("--locomo", type=Path, help="LoCoMo JSON")
    parser.add_argument("--longmemeval", type=Path, help="LongMemEval JSON")
    parser.add_argument("--limit", type=int, default=None, help="first N units only")
    parser.add_argument("--threads", type=int, default=1, help="embedder threads (default 1)")
    parser.add_argument("--out", type=Path, default=None, help="write the full result (with every merge) as JSON")
    args = parser.parse_args(argv)
    toolkit, embedder = Toolkit.load(), USEEmbedder(threads=args.threads)
    result: dict[str, Any] = {}
    if args.pairs:
        result["pairs"] = run_pairs(args.pairs, toolkit, embedder)
    if args.locomo:
        result["locomo"] = run_dataset(load_locomo(args.locomo, limit=args.limit), False, toolkit, embedder)
    if args.longmemeval:
        result["longmemeval"] = run_dataset(
            load_longmemeval(args.longmemeval, limit=args.limit), True, toolkit, embedder
        )
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    summary = {name: {k: v for k, v in part.items() if k not in ("merges", "rows")} for name, part in result.items()}
    print(json.dumps(summary, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
