"""The write gate against a recall loop: an agent that feeds its own memory block back.

    python benchmarks/bench_gate.py --data ../shared/data/locomo/locomo10.json --turns 200 --questions 40

A LoCoMo conversation's first ``--turns`` turns are written; then, for each of ``--questions``
of its questions, the agent retrieves, renders the cards (``Recall.render()``, as a prompt
would hold them) and — the mistake the gate exists for — writes that block back as a turn.
Also written back: the same blocks with a line of the user's own words after them, so the
gate must keep the block out and the words in. Run once with the gate off and once with it on
(same turns, same run), reported: facts created and facts superseded by the fed-back turns,
facts the user's added words gave, and ``audit()`` counts at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import timedelta, timezone
from pathlib import Path

from memtracks import Memory
from memtracks.config import MemoryConfig, WriterConfig
from memtracks.retrieval.embedders import USEEmbedder
from memtracks.toolkit import Toolkit

ADDED = ["By the way, I moved to Denver last month.", "顺便说一下，我上个月搬到杭州了。"]


def run(turns, questions, gate: bool, toolkit, embedder) -> dict[str, int | str]:
    mem = Memory(toolkit=toolkit, embedder=embedder, config=MemoryConfig(writer=WriterConfig(gate=gate)))
    mem.write_many(turns)
    user, when = turns[-1].user_id, turns[-1].timestamp
    created = superseded = added = asked = 0
    for n, question in enumerate(questions):
        when = when + timedelta(minutes=1)
        block = mem.retrieve(question, user_id=user, now=when).render().text
        if not block:
            continue
        extra = ADDED[(n // 4) % 2] if n % 4 == 0 else ""
        text = f"{block}\n{extra}" if extra else block
        result = mem.write(text, user_id=user, timestamp=when)
        own = [f for f in result.facts if extra and f.value in ("Denver", "杭州")]
        created += len([f for f in result.facts if f.mention_count == 1 and f not in own])
        asked += bool(extra)
        added += bool(own)
        superseded += len([f for f in result.superseded if f.value not in ("Denver", "杭州")])
    counts = mem.audit(user).totals
    mem.close()
    return {
        "facts_created_by_loop": created,
        "facts_superseded_by_loop": superseded,
        "own_words_kept": f"{added}/{asked}",
        **counts,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="../shared/data/locomo/locomo10.json")
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    if not Path(args.data).exists():
        print(f"LoCoMo data not found at {args.data}; pass --data", file=sys.stderr)
        return 2
    from memtracks.interfaces.io import read_locomo

    sample = json.loads(Path(args.data).read_text(encoding="utf-8"))[0]
    turns = [t for t in read_locomo(args.data, timezone.utc) if t.user_id == sample["sample_id"]][: args.turns]
    questions = [q["question"] for q in sample["qa"]][: args.questions]
    toolkit, embedder = Toolkit.load(), USEEmbedder()
    figures = {
        name: run(turns, questions, gate, toolkit, embedder) for name, gate in (("gate off", False), ("gate on", True))
    }
    keys = list(figures["gate on"])
    print(f"{len(turns)} turns, {len(questions)} recall blocks fed back")
    print(f"{'':10}" + "".join(f"{k:>26}" for k in keys))
    for name, f in figures.items():
        print(f"{name:10}" + "".join(f"{f[k]:>26}" for k in keys))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
