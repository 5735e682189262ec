"""Where each evidence turn of a question ends up, and why the ones that are never candidates
are missed.

    python -m benchmarks.misses --data ../shared/data/locomo/locomo10.json --cache /tmp/mt-locomo \\
        --units 0-4 --categories 1,3 --depth 100

Per question of the chosen categories, every evidence turn is put in one place:

- *top 5* / *6-20* / *21-50*: its rank among memtracks' cards (default candidate counts,
  ``top_n`` 50);
- *deep pool*: not among those cards, but among the cards when every track is asked for 50
  candidates;
- *path only*: in the first ``--depth`` candidates of some first-stage path
  (``benchmarks.candidates``), but not among the cards of the deep pool;
- *never*: in no path's first ``--depth`` candidates.

For the evidence turns that are never candidates, the reasons that apply (a turn may have
several): *no shared term* (none of the question's search terms is among the turn's: a
vocabulary gap), *dense rank > depth* (the whole ordering by cosine puts it below the depth),
*other session* (no card of the top 5 comes from its session), *answer to a question* (the
turn before it in its session is a question: the topic is named there), *other speaker*
(the question names whom it is about, and the turn is said by someone else), *short* (fewer
than five content words in its statements, ``retrieval/substance.py``).

Then, for the questions with two or more evidence turns, how many of them the top 5 holds
(all, some, none), and for the "some" ones how many of the missing turns share a session
with one that was found.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

from memtracks.retrieval.embedders import USEEmbedder
from memtracks.retrieval.lexical import tokenize
from memtracks.retrieval.substance import substance
from memtracks.toolkit import Toolkit

from .__main__ import _units
from .candidates import paths
from .datasets import Question, load_locomo
from .sweep import stored

PLACES = ("top 5", "6-20", "21-50", "deep pool", "path only", "never")
REASONS = ("no shared term", "dense rank > depth", "other session", "answer to a question", "other speaker", "short")
SHORT = 5  # content words
POOL = 50


def _session(turn_id: str) -> str:
    return turn_id.split(":", 1)[0]


def _rank(cards: list[list[str]], turn: str) -> int | None:
    return next((n for n, turns in enumerate(cards) if turn in turns), None)


def place(rank: int | None, deep: bool, in_path: bool) -> str:
    """Where an evidence turn ends up: its card rank (0-based), else the deeper pools."""
    if rank is not None:
        return "top 5" if rank < 5 else "6-20" if rank < 20 else "21-50"
    return "deep pool" if deep else "path only" if in_path else "never"


def examine(mem, user: str, q: Question, depth: int) -> tuple[dict[str, str], dict[str, set[str]], list[list[str]]]:
    """Each evidence turn's place, the reasons behind each one never a candidate, and the
    default cards' turns."""
    reader = mem.reader
    query = reader.analyze(q.question, user_id=user, now=q.asked_at)
    ctx = reader.context(user)
    events = {e.turn_id: e for e in ctx.store.events(user)}
    by_seq = {(e.session_id, e.seq): e for e in events.values()}
    cards = [list(c.source_turn_ids) for c in mem.retrieve(q.question, user_id=user, now=q.asked_at, top_n=POOL).cards]
    deep_cards = mem.retrieve(
        q.question, user_id=user, now=q.asked_at, top_n=POOL, k={t: POOL for t in ("fact", "temporal", "inference")}
    ).cards
    deep = {t for c in deep_cards for t in c.source_turn_ids}
    pooled = set(paths(mem, user, q, depth)["union"])
    dense_top = {i for i, _ in ctx.vectors("event").search(query.vector, depth)}
    top_sessions = {_session(t) for turns in cards[:5] for t in turns}
    terms = set(query.terms)
    places: dict[str, str] = {}
    reasons: dict[str, set[str]] = {}
    for turn in sorted(q.evidence_turns):
        places[turn] = place(_rank(cards, turn), turn in deep, turn in pooled)
        if places[turn] != "never" or turn not in events:
            continue
        event = events[turn]
        why = set()
        if not terms & set(tokenize(event.text, event.entity_keys)):
            why.add("no shared term")
        if event.id not in dense_top:
            why.add("dense rank > depth")
        if _session(turn) not in top_sessions:
            why.add("other session")
        before = by_seq.get((event.session_id, event.seq - 1))
        if before is not None and before.text.rstrip().endswith(("?", "？")):
            why.add("answer to a question")
        if query.subjects and event.speaker not in query.subjects:
            why.add("other speaker")
        if substance(event.text) < SHORT:
            why.add("short")
        reasons[turn] = why
    return places, reasons, cards


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.misses", description=__doc__)
    parser.add_argument("--data", required=True)
    parser.add_argument("--cache", required=True, help="folder for the conversations' SQLite files")
    parser.add_argument("--units", type=_units, help="conversation indexes, e.g. 0-4 (default: all)")
    parser.add_argument("--categories", default="1,3", help="LoCoMo categories, e.g. 1,3")
    parser.add_argument("--depth", type=int, default=100, help="a path's first N candidates count as candidates")
    parser.add_argument("--show", type=int, default=0, help="print this many never-candidate turns per category")
    args = parser.parse_args(argv)
    wanted = set(args.categories.split(","))
    every = load_locomo(args.data)
    units = [every[i] for i in sorted(args.units or range(len(every)))]
    toolkit, embedder = Toolkit.load(), USEEmbedder(threads=1)
    placed: dict[str, Counter[str]] = defaultdict(Counter)
    why: dict[str, Counter[str]] = defaultdict(Counter)
    coverage: dict[str, Counter[str]] = defaultdict(Counter)
    shown: dict[str, int] = defaultdict(int)
    for unit in units:
        mem = stored(unit, Path(args.cache), toolkit, embedder)
        texts = {t.turn_id: f"{t.speaker}: {t.text}" for t in unit.turns}
        for q in unit.questions:
            if q.category not in wanted or not q.evidence_turns:
                continue
            places, reasons, cards = examine(mem, unit.id, q, args.depth)
            placed[q.category].update(places.values())
            for turn, found in reasons.items():
                why[q.category].update(found or {"none of these"})
                if shown[q.category] < args.show:
                    shown[q.category] += 1
                    print(f"[{q.category}] {q.question}\n    {turn} {texts.get(turn, '')[:160]}\n    {sorted(found)}")
            if len(places) >= 2:
                found = [t for t, p in places.items() if p == "top 5"]
                coverage[q.category]["questions"] += 1
                coverage[q.category]["all" if len(found) == len(places) else "some" if found else "none"] += 1
                if found and len(found) < len(places):
                    missing = [t for t in places if t not in found]
                    sessions = {_session(t) for t in found}
                    for t in missing:
                        coverage[q.category]["missing turns"] += 1
                        coverage[q.category]["same session as a found one"] += _session(t) in sessions
        mem.close()
    categories = sorted(placed)
    print(f"\nEvidence turns by place (cards: default counts; paths read {args.depth} deep)\n")
    print("| place | " + " | ".join(f"category {c}" for c in categories) + " |")
    print("|---|" + "---|" * len(categories))
    for name in PLACES:
        cells = [f"{placed[c][name]} ({placed[c][name] / max(1, sum(placed[c].values())):.0%})" for c in categories]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\nWhy the never-candidate turns are missed (a turn may have several reasons)\n")
    print("| reason | " + " | ".join(f"category {c}" for c in categories) + " |")
    print("|---|" + "---|" * len(categories))
    for name in (*REASONS, "none of these"):
        cells = [f"{why[c][name]} ({why[c][name] / max(1, placed[c]['never']):.0%})" for c in categories]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("\nQuestions with two or more evidence turns: how many the top 5 holds\n")
    rows = ("questions", "all", "some", "none", "missing turns", "same session as a found one")
    print("| | " + " | ".join(f"category {c}" for c in categories) + " |")
    print("|---|" + "---|" * len(categories))
    for name in rows:
        print(f"| {name} | " + " | ".join(str(coverage[c][name]) for c in categories) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
