"""How much of exact BM25's top k Postgres' lexical search finds (issue 31).

    nice -n 10 python benchmarks/lexical_recall.py --data ../shared/data/locomo/locomo10.json \\
        [--copies 1] [--k 50] [--batch 64] [--questions N] [--depth N] [--postgres URI]

The turns of a LoCoMo-format file (LoCoMo; ``benchmarks/data/zh_chat.json``, Chinese) are
tokenized as memories are and written into a Postgres store's lexical index in batches of
``--batch`` (so the average length, and with it the weight each posting is stored with, moves
as they come, as it does for a memory written turn by turn), ``--copies`` times over (copies
get new ids: a larger index with the same words; ``--distractors``: the distinct turns of a
LongMemEval file are indexed too, a larger index of other words). Every question of the file is then searched
there (:meth:`PostgresStore.lexical_search`: the heaviest postings of each term, scored
exactly) and in the in-memory index (:class:`LexicalIndex`: every posting, exact BM25).

Recall is the share of the exact top k that the search returns. Copies score alike, so when
the k-th exact score is shared by more items than fit, any of them is as right as another:
an item returned counts when it is in the exact top k or scores the k-th exact score.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import timezone
from pathlib import Path

import numpy as np

from memtracks.interfaces.io import read_locomo
from memtracks.retrieval.lexical import LexicalIndex, tokenize
from memtracks.storage import postgres
from memtracks.storage.postgres import PostgresStore


def recall(exact: list[tuple[int, float]], found: list[tuple[int, float]]) -> float:
    """The share of ``exact`` that ``found`` holds (ties at the last exact score interchangeable)."""
    if not exact:
        return 1.0
    wanted = {i for i, _ in exact}
    last = exact[-1][1]
    hits = sum(1 for i, s in found if i in wanted or abs(s - last) <= 1e-4 * max(1.0, last))
    return min(1.0, hits / len(exact))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--copies", type=int, default=1)
    parser.add_argument("--k", type=int, default=50)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--distractors", help="a LongMemEval file: its distinct haystack turns are indexed too")
    parser.add_argument("--questions", type=int, help="only the first N questions (default: all)")
    parser.add_argument("--depth", type=int, help="postings read per term (default: the store's LEXICAL_DEPTH)")
    parser.add_argument("--postgres", help="a Postgres URI (default: start the embedded server)")
    args = parser.parse_args(argv)
    from benchmarks.bench_backends import fresh_postgres, start_postgres

    if args.depth:
        postgres.LEXICAL_DEPTH, postgres.LEXICAL_DEPTH_PER_HIT = args.depth, 0

    texts = [t.text for t in read_locomo(args.data, timezone.utc)]
    questions = [qa["question"] for c in json.loads(Path(args.data).read_text()) for qa in c["qa"]]
    questions = questions[: args.questions] if args.questions else questions
    if args.distractors:
        lme = json.loads(Path(args.distractors).read_text())
        said = {t["content"] for q in lme for session in q["haystack_sessions"] for t in session}
        texts += sorted(said - set(texts))
    documents = [tokenize(t) for t in texts] * args.copies
    base = args.postgres or start_postgres(Path(tempfile.mkdtemp(prefix="lexical-recall-")))
    store = PostgresStore(fresh_postgres(base, "lexical_recall"))
    reference = LexicalIndex()
    count, total = 0, 0.0
    with store.transaction():
        for start in range(0, len(documents), args.batch):
            batch = list(enumerate(documents[start : start + args.batch], start + 1))
            for item_id, terms in batch:
                reference.add(item_id, terms)
            count += len(batch)
            total += sum(len(terms) for _, terms in batch)
            store.lexical_add("u", "event", batch, total / count)
        store.execute("ANALYZE lexical_postings")
    shares, seconds = [], []
    for question in questions:
        terms = tokenize(question)
        exact = reference.search(terms, args.k)
        started = time.perf_counter()
        found = store.lexical_search("u", "event", terms, args.k, count, total)
        seconds.append(time.perf_counter() - started)
        shares.append(recall(exact, found))
    store.close()
    report = {
        "data": args.data,
        "documents": count,
        "questions": len(questions),
        "k": args.k,
        "depth": max(postgres.LEXICAL_DEPTH, postgres.LEXICAL_DEPTH_PER_HIT * args.k),
        "recall_mean": float(np.mean(shares)),
        "recall_min": float(np.min(shares)),
        "questions_below_1": int(sum(s < 1 for s in shares)),
        "search_p50_ms": float(np.percentile(seconds, 50) * 1000),
        "search_p95_ms": float(np.percentile(seconds, 95) * 1000),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
