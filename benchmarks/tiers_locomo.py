"""LoCoMo recall@5 by the age of each question's evidence, from the answer dumps of runs
with tiers off and on: where tiered storage changes what is found, and why.

    python -m benchmarks locomo --data ../shared/data/locomo/locomo10.json --out OFF --quiet --threads 1 \\
        --no-minilm --dump OFF/answers.jsonl
    python -m benchmarks locomo --data ../shared/data/locomo/locomo10.json --out ON --quiet --threads 1 \\
        --no-minilm --tiers --dump ON/answers.jsonl
    python benchmarks/tiers_locomo.py --data ../shared/data/locomo/locomo10.json OFF/answers.jsonl ON/answers.jsonl

A question's evidence is *hot* when every evidence turn was said within 7 days of the
question, *warm* within 90, *cold* when one is older (the default tier limits).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.datasets import load_locomo
from benchmarks.metrics import recall_acc

TIERS = ((7, "hot"), (90, "warm"))


def _age_tier(days: float) -> str:
    return next((name for limit, name in TIERS if days <= limit), "cold")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("dumps", nargs="+", help="answer dumps (--dump) of the runs to compare")
    args = parser.parse_args(argv)
    said, asked = {}, {}
    for unit in load_locomo(args.data):
        for turn in unit.turns:
            said[unit.id, turn.turn_id] = turn.timestamp
        for q in unit.questions:
            asked[unit.id, q.id] = q.asked_at
    table: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for dump in args.dumps:
        for line in Path(dump).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["system"] != "memtracks" or not row["evidence"] or str(row["category"]) == "5":
                continue
            unit, moment = row["unit"], asked[row["unit"], row["id"]]
            ages = [(moment - said[unit, e]).total_seconds() / 86400 for e in row["evidence"] if (unit, e) in said]
            tier = _age_tier(max(ages)) if ages else "unknown"
            table[tier][dump].append(recall_acc(row["items"], set(row["evidence"]), 5) or 0.0)
    print("| evidence | questions | " + " | ".join(f"recall@5 {Path(d).parent.name}" for d in args.dumps) + " |")
    print("|---|---|" + "---|" * len(args.dumps))
    for tier in ("hot", "warm", "cold", "unknown"):
        if tier in table:
            cells = [f"{sum(v) / len(v):.3f}" for v in (table[tier][d] for d in args.dumps)]
            print(f"| {tier} | {len(table[tier][args.dumps[0]])} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
