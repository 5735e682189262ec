"""``memtracks`` on the command line: a thin layer over :class:`~memtracks.Memory`.

    memtracks ingest conversation.jsonl --db memory.db
    memtracks ingest locomo10.json --db locomo.db          # LoCoMo format is detected
    memtracks show --db memory.db --user u1 [--json]
    memtracks recall "Where do I live now?" --db memory.db --user u1 [--now ISO] [--json]

The database comes from ``--db`` or the ``MEMTRACKS_DB`` environment variable.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from datetime import datetime, timezone, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import MemtracksError
from .io import is_locomo, read_jsonl, read_locomo
from .memory import Memory
from .records import Event, Fact, Inference
from .storage.codec import dt_text
from .tracks.facts import FactState, fact_state, supersede_chain

DEFAULT_DB = "memtracks.db"


def _zone(name: str) -> tzinfo:
    if name.upper() == "UTC":
        return timezone.utc
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise argparse.ArgumentTypeError(f"unknown time zone {name!r} (e.g. UTC, Asia/Shanghai)") from None


def cmd_ingest(args: argparse.Namespace) -> int:
    with Memory(args.db) as mem:
        if is_locomo(args.file):
            turns: list[Any] = list(read_locomo(args.file, args.tz, args.user))
        else:
            turns = list(read_jsonl(args.file, args.user))
        results = mem.write_many(turns, progress=not args.quiet)
        new = [r for r in results if not r.duplicate]
        facts = sum(len(r.facts) for r in new)
        inferences = sum(len(r.inferences) for r in new)
        warned = [r for r in new if r.warnings]
        print(
            f"ingested {len(new)} turn(s) ({len(results) - len(new)} already stored) into {args.db}: "
            f"{facts} fact update(s), {inferences} inference(s)"
        )
        for r in warned:
            print(f"  warning, turn {r.turn.turn_id}: {'; '.join(r.warnings)}", file=sys.stderr)
    return 0


def _fact_line(f: Fact, at: datetime) -> str:
    state = fact_state(f, at).value
    if f.reason:
        state += f" ({f.reason}{f' by #{f.superseded_by}' if f.superseded_by else ''})"
    until = f" until {f.valid_to.date().isoformat()}" if f.valid_to else ""
    neg = "NOT " if f.negated else ""
    return (
        f"  #{f.id} {f.subject} · {f.slot}: {neg}{f.value or '—'}  "
        f"[{f.valid_from.date().isoformat()}{until}; {state}; {f.source}, conf {f.confidence:.2f}, "
        f"x{f.mention_count}; turns {','.join(f.source_turn_ids)}]"
    )


def _event_line(e: Event) -> str:
    about = ""
    if e.start is not None:
        about = f" -> about {e.start.date().isoformat()}"
        if e.granularity and e.granularity != "day":
            about += f" ({e.granularity})"
    kinds = f" <{', '.join(e.kinds)}>" if e.kinds else ""
    text = e.text if len(e.text) <= 100 else e.text[:97] + "..."
    return f"  #{e.id} {e.mentioned_at.date().isoformat()}{about}{kinds} {e.speaker}: {text}"


def _inference_line(i: Inference) -> str:
    state = "active" if i.is_active else f"retracted: {i.retracted_because}"
    premises = ", ".join(f"{p.track}#{p.id}" for p in i.premises)
    return f"  #{i.id} {i.text}  [conf {i.confidence:.2f}; {i.rule_id}; from {premises}; {state}]"


def _show_text(mem: Memory, user: str, limit: int, as_of: datetime | None = None) -> None:
    facts = mem.facts(user, include_superseded=True, as_of=as_of)
    at = as_of or mem.clock()
    print(f"== {user}: facts (current first, with supersede chains)")
    shown: set[int] = set()
    for f in sorted(facts, key=lambda f: (fact_state(f, at) is not FactState.CURRENT, f.subject, f.slot, f.id or 0)):
        if f.id in shown:
            continue
        chain = supersede_chain(f, facts)
        shown.update(x.id for x in chain if x.id is not None)
        print("\n".join(_fact_line(x, at) for x in chain) if len(chain) > 1 else _fact_line(f, at))
        if len(chain) > 1:
            print("    " + " -> ".join(f"#{x.id} {x.value or '—'}" for x in chain))
    events = mem.events(user)
    print(
        f"== {user}: events ({len(events)}; showing {min(limit, len(events))} with resolved dates or happenings first)"
    )
    notable = [e for e in events if e.start is not None or e.happenings] or events
    for e in notable[:limit]:
        print(_event_line(e))
    print(f"== {user}: inferences")
    for i in mem.inferences(user, include_retracted=True):
        print(_inference_line(i))


def _show_json(mem: Memory, user: str, as_of: datetime | None = None) -> dict[str, Any]:
    at = as_of or mem.clock()

    def fact(f: Fact) -> dict[str, Any]:
        return {
            "id": f.id,
            "subject": f.subject,
            "slot": f.slot,
            "value": f.value,
            "negated": f.negated,
            "state": fact_state(f, at).value,
            "reason": f.reason,
            "planned": f.planned,
            "valid_from": dt_text(f.valid_from),
            "valid_to": dt_text(f.valid_to),
            "superseded_by": f.superseded_by,
            "source": f.source,
            "confidence": f.confidence,
            "mention_count": f.mention_count,
            "source_turn_ids": list(f.source_turn_ids),
        }

    def event(e: Event) -> dict[str, Any]:
        return {
            "id": e.id,
            "turn_id": e.turn_id,
            "session_id": e.session_id,
            "speaker": e.speaker,
            "text": e.text,
            "mentioned_at": dt_text(e.mentioned_at),
            "start": dt_text(e.start),
            "end": dt_text(e.end),
            "granularity": e.granularity,
            "kinds": list(e.kinds),
            "times": [
                {"text": t.text, "start": dt_text(t.start), "end": dt_text(t.end), "granularity": t.granularity}
                for t in e.times
            ],
        }

    def inference(i: Inference) -> dict[str, Any]:
        return {
            "id": i.id,
            "rule": i.rule_id,
            "text": i.text,
            "confidence": i.confidence,
            "status": i.status,
            "retracted_because": i.retracted_because,
            "premises": [[p.track, p.id] for p in i.premises],
            "valid_from": dt_text(i.valid_from),
            "valid_to": dt_text(i.valid_to),
        }

    return {
        "user_id": user,
        "facts": [fact(f) for f in mem.facts(user, include_superseded=True, as_of=as_of)],
        "events": [event(e) for e in mem.events(user)],
        "inferences": [inference(i) for i in mem.inferences(user, include_retracted=True)],
    }


def cmd_show(args: argparse.Namespace) -> int:
    if not os.path.exists(args.db):
        print(f"memtracks: no database at {args.db} (ingest something first, or pass --db)", file=sys.stderr)
        return 1
    with Memory(args.db) as mem:
        users = [args.user] if args.user else mem.users()
        if args.json:
            print(json.dumps([_show_json(mem, u, args.as_of) for u in users], ensure_ascii=False, indent=2))
        else:
            for user in users:
                _show_text(mem, user, args.limit, args.as_of)
    return 0


def _when(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--now must be ISO 8601, e.g. 2024-06-10T10:00:00+08:00; found {text!r}"
        ) from None
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError(f"--now needs a timezone offset, e.g. {text}+00:00")
    return value


def cmd_recall(args: argparse.Namespace) -> int:
    if not os.path.exists(args.db):
        print(f"memtracks: no database at {args.db} (ingest something first, or pass --db)", file=sys.stderr)
        return 1
    with Memory(args.db) as mem:
        users = mem.users()
        user = args.user or (users[0] if len(users) == 1 else None)
        if user is None:
            print(f"memtracks: pass --user (this database has {len(users)} users: {', '.join(users)})", file=sys.stderr)
            return 2
        recall = mem.retrieve(args.question, user_id=user, now=args.now, top_n=args.top, as_of=args.as_of)
        if args.json:
            print(
                json.dumps(
                    {
                        "question": args.question,
                        "user_id": user,
                        "now": dt_text(recall.now),
                        "suppressed": recall.suppressed,
                        "cards": [
                            {
                                "track": c.track,
                                "text": c.text,
                                "score": c.score,
                                "confidence": c.confidence,
                                "source_turn_ids": list(c.source_turn_ids),
                                "explain": c.explain,
                            }
                            for c in recall.cards
                        ],
                    },
                    ensure_ascii=False,
                    indent=2,
                )
            )
        else:
            rendered = recall.render(max_tokens=args.max_tokens)
            print(rendered.text or "(no relevant memories)")
            print(
                f"-- {len(rendered.cards)} card(s), ~{rendered.tokens} tokens; "
                f"{recall.suppressed} superseded/expired candidate(s) held back",
                file=sys.stderr,
            )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="memtracks", description="Long-term memory for LLM agents.")
    parser.add_argument(
        "--db",
        default=os.environ.get("MEMTRACKS_DB", DEFAULT_DB),
        help="SQLite database (default: $MEMTRACKS_DB or memtracks.db)",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    ingest = sub.add_parser("ingest", help="write the turns of a JSONL or LoCoMo file")
    ingest.add_argument("file", help="JSONL (one turn per line) or LoCoMo JSON")
    ingest.add_argument("--user", help="user_id for turns that have none (LoCoMo: default sample_id)")
    ingest.add_argument(
        "--tz", type=_zone, default=timezone.utc, help="time zone of LoCoMo session dates (default UTC)"
    )
    ingest.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    ingest.set_defaults(func=cmd_ingest)
    show = sub.add_parser("show", help="print facts, events and inferences")
    show.add_argument("--user", help="only this user (default: every user)")
    show.add_argument("--json", action="store_true", help="JSON instead of text")
    show.add_argument("--limit", type=int, default=30, help="events to print per user (text mode)")
    show.add_argument(
        "--as-of", type=_when, default=None, help="facts as they stood then (state by the same as-of rule as recall)"
    )
    show.set_defaults(func=cmd_show)
    recall = sub.add_parser("recall", help="ask a question; print the memory cards that answer it")
    recall.add_argument("question")
    recall.add_argument("--user", help="whose memories (default: the only user in the database)")
    recall.add_argument("--now", type=_when, default=None, help="when the question is asked (ISO 8601 with offset)")
    recall.add_argument(
        "--as-of",
        type=_when,
        default=None,
        help="answer as things stood then: later memories unseen, facts as they were",
    )
    recall.add_argument("--top", type=int, default=5, help="cards to return (default 5)")
    recall.add_argument("--max-tokens", type=int, default=300, help="token budget of the rendered cards")
    recall.add_argument("--json", action="store_true", help="JSON with scores and breakdowns")
    recall.set_defaults(func=cmd_recall)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except MemtracksError as exc:
        print(f"memtracks: {exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"memtracks: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
