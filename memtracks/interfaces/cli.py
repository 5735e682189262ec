"""``memtracks`` on the command line: a thin layer over :class:`~memtracks.Memory`.

    memtracks --db memory.db ingest conversation.jsonl     # JSONL turns, chat messages or LoCoMo
    memtracks --db memory.db show --user u1 [--json]
    memtracks --db memory.db recall "Where do I live now?" --user u1 [--now ISO] [--json]
    memtracks --db memory.db get fact:12 --user u1
    memtracks --db memory.db correct 12 "Cambridge" --user u1    |  retract 12 --user u1
    memtracks --db memory.db forget --user u1 (--turn ID ... | --session S | --before ISO | --everything)
    memtracks --db memory.db export u1.jsonl [--user u1]   |  import u1.jsonl  |  export-schema
    memtracks --db memory.db rebuild --user u1 [--rules DIR] [--lexicons DIR]
    memtracks --db memory.db consolidate --user u1 [--dry-run] [--json]  |  consolidate --undo OPERATION_ID
    memtracks --db memory.db mcp --user u1                 # MCP server over stdio, bound to u1
    memtracks --db memory.db status
    memtracks --db memory.db check [--quick] [--repair] [--json]   # exit status 1 if a problem is found
    memtracks --db memory.db backup copy.db [--force]      # online backup, consistent with the log
    memtracks --db memory.db --read-only recall ...        # never writes (also a read-only folder)
    memtracks --db memory.db audit [--user u1] [--json]      # duplicates, junk, stale, orphans
    memtracks --db memory.db export-md DIR --user u1        # DIR/MEMORY.md, DIR/memory/YYYY-MM-DD.md
    memtracks --db memory.db import-md DIR --user u1 --dry-run   # an edited MEMORY.md read back (diff)

The database comes from ``--db`` or the ``MEMTRACKS_DB`` environment variable. Errors are
one line on stderr and exit status 2, never a traceback.
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

from memtracks._version import __version__
from memtracks.errors import InvalidTurnError, MemtracksError, ReadOnlyError
from memtracks.interfaces import upkeep_cli
from memtracks.interfaces.io import detect_format, read_jsonl, read_locomo, read_messages
from memtracks.interfaces.views import event_json, fact_json, inference_json, record_json
from memtracks.memory import Memory
from memtracks.records import Event, Fact, Inference
from memtracks.retrieval.presets import PRESETS
from memtracks.storage import is_postgres
from memtracks.storage.codec import dt_text
from memtracks.tracks.facts import FactState, fact_state, supersede_chain
from memtracks.tracks.quoting import inline as _inline

DEFAULT_DB = "memtracks.db"


def inline(text: str) -> str:
    """One line on the terminal, whatever a memory holds (no line breaks or control characters)."""
    return _inline(text, markup=False)


def _zone(name: str) -> tzinfo:
    if name.upper() == "UTC":
        return timezone.utc
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise argparse.ArgumentTypeError(f"unknown time zone {name!r} (e.g. UTC, Asia/Shanghai)") from None


def _exists(location: str) -> bool:
    """Is there a memory at ``--db`` (a Postgres URI is checked when it is opened)?"""
    return is_postgres(location) or os.path.exists(location)


def _open(args: argparse.Namespace, must_exist: bool = True, reads_only: bool = False) -> Memory:
    """The memory at ``--db``. A command that only reads opens a file it may not write
    (a read-only file or folder) read-only, as ``--read-only`` asks for explicitly."""
    if must_exist and not _exists(args.db):
        raise MemtracksError(f"no database at {args.db} (ingest something first, or pass --db)")
    rules, lexicons = getattr(args, "rules", None), getattr(args, "lexicons", None)
    folders: dict[str, Any] = {"rules_dir": rules, "lexicons_dir": lexicons} if rules or lexicons else {}
    if args.read_only and not reads_only:
        raise ReadOnlyError(f"--read-only: the {args.command} command writes")
    if args.read_only:
        return Memory(args.db, read_only=True, **folders)
    try:
        return Memory(args.db, **folders)
    except ReadOnlyError:
        if not reads_only:
            raise
        return Memory(args.db, read_only=True, **folders)


def _read(args: argparse.Namespace) -> list[Any]:
    kind = detect_format(args.file)
    if kind == "locomo":
        return list(read_locomo(args.file, args.tz, args.user))
    if kind == "messages":
        if not args.user:
            raise MemtracksError(f"{args.file} holds chat messages, which carry no user: pass --user")
        return read_messages(
            args.file, user_id=args.user, session_id=args.session, timestamp=args.at or datetime.now(timezone.utc)
        )
    return list(read_jsonl(args.file, args.user, args.at))  # every line is checked before anything is written


def _with_explain(card: Any) -> dict[str, Any]:
    """A card as JSON with its score breakdown (a thread card's parts with theirs)."""
    out = {**card.to_dict(), "explain": card.explain}
    for part, shown in zip(card.parts, out.get("parts", []), strict=True):
        shown["explain"] = part.explain
    return out


def cmd_ingest(args: argparse.Namespace) -> int:
    turns = _read(args)
    with _open(args, must_exist=False) as mem:
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
            print(inline(f"  warning, turn {r.turn.turn_id}: {'; '.join(r.warnings)}"), file=sys.stderr)
    return 0


def _fact_line(f: Fact, at: datetime) -> str:
    state = fact_state(f, at).value
    if f.superseded_by:
        state += f", superseded by #{f.superseded_by}"
    if f.reason:
        state += f" ({f.reason})"
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


def _stored_facts(mem: Memory, user: str, agent: str | None, as_of: datetime | None, negated: bool) -> list[Fact]:
    """Every fact stored (recorded by ``as_of``), what was said not to hold only with ``negated``."""
    facts = mem.facts(user, agent_id=agent, include_superseded=True, as_of=as_of)
    return [f for f in facts if negated or not f.negated]


def _show_text(mem: Memory, user: str, limit: int, as_of: datetime | None = None, negated: bool = False) -> None:
    facts = _stored_facts(mem, user, None, as_of, negated)
    at = as_of or mem.clock()
    print(f"== {inline(user)}: facts (current first, with supersede chains)")
    shown: set[int] = set()
    for f in sorted(facts, key=lambda f: (fact_state(f, at) is not FactState.CURRENT, f.subject, f.slot, f.id or 0)):
        if f.id in shown:
            continue
        chain = supersede_chain(f, facts)
        shown.update(x.id for x in chain if x.id is not None)
        print("\n".join(inline(_fact_line(x, at)) for x in chain) if len(chain) > 1 else inline(_fact_line(f, at)))
        if len(chain) > 1:
            print(inline("    " + " -> ".join(f"#{x.id} {x.value or '—'}" for x in chain)))
    events = mem.events(user)
    print(
        f"== {inline(user)}: events ({len(events)}; showing {min(limit, len(events))} with resolved dates or happenings first)"
    )
    notable = [e for e in events if e.start is not None or e.happenings] or events
    for e in notable[:limit]:
        print(inline(_event_line(e)))
    print(f"== {inline(user)}: inferences")
    for i in mem.inferences(user, include_retracted=True):
        print(inline(_inference_line(i)))


def _show_json(
    mem: Memory, user: str, agent: str | None = None, as_of: datetime | None = None, negated: bool = False
) -> dict[str, Any]:
    at = as_of or mem.clock()
    return {
        "user_id": user,
        "agent_id": agent,
        "facts": [
            {**fact_json(f), "state": fact_state(f, at).value, "planned": f.planned}
            for f in _stored_facts(mem, user, agent, as_of, negated)
        ],
        "events": [event_json(e) for e in mem.events(user, agent_id=agent)],
        "inferences": [inference_json(i) for i in mem.inferences(user, agent_id=agent, include_retracted=True)],
    }


def cmd_show(args: argparse.Namespace) -> int:
    if not _exists(args.db):
        print(f"memtracks: no database at {args.db} (ingest something first, or pass --db)", file=sys.stderr)
        return 1
    with _open(args, reads_only=True) as mem:
        users = [args.user] if args.user else mem.users()
        if args.json:
            shown = [_show_json(mem, u, as_of=args.as_of, negated=args.include_negated) for u in users]
            print(json.dumps(shown, ensure_ascii=False, indent=2))
        else:
            for user in users:
                _show_text(mem, user, args.limit, args.as_of, args.include_negated)
    return 0


def _when(text: str) -> datetime:
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a time must be ISO 8601 with an offset, e.g. 2024-06-10T10:00:00+08:00; found {text!r}"
        ) from None
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError(f"a time needs a timezone offset, e.g. {text}+00:00")
    return value


def _when_or_now(text: str) -> datetime:
    """A time as :func:`_when` reads it, or "now": the moment the command runs."""
    return datetime.now(timezone.utc) if text.strip().lower() == "now" else _when(text)


def cmd_recall(args: argparse.Namespace) -> int:
    if not _exists(args.db):
        print(f"memtracks: no database at {args.db} (ingest something first, or pass --db)", file=sys.stderr)
        return 1
    with _open(args, reads_only=True) as mem:
        users = mem.users()
        user = args.user or (users[0] if len(users) == 1 else None)
        if user is None:
            print(f"memtracks: pass --user (this database has {len(users)} users: {', '.join(users)})", file=sys.stderr)
            return 2
        recall = mem.retrieve(
            args.question,
            user_id=user,
            agent_id=args.agent,
            now=args.now,
            top_n=args.top,
            as_of=args.as_of,
            session_id=args.session,
            tracks=args.track,
            preset=args.preset,
        )
        if args.json:
            print(
                json.dumps(
                    {
                        "question": args.question,
                        "user_id": user,
                        "now": dt_text(recall.now),
                        "suppressed": recall.suppressed,
                        "cards": [_with_explain(c) for c in recall.cards],
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


def _print(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2))


def cmd_get(args: argparse.Namespace) -> int:
    with _open(args, reads_only=True) as mem:
        found = mem.get(args.user, args.ref, agent_id=args.agent)
        if found is None:
            raise MemtracksError(f"no memory {args.ref!r} for user {args.user!r}")
        _print(record_json(found))
    return 0


def cmd_correct(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        _print(fact_json(mem.correct(args.user, args.fact_id, value=args.value, agent_id=args.agent)))
    return 0


def cmd_retract(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        _print(fact_json(mem.retract(args.user, args.fact_id, agent_id=args.agent)))
    return 0


def cmd_forget(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        report = mem.forget(
            args.user,
            agent_id=args.agent,
            turn_ids=args.turn,
            session_id=args.session,
            before=args.before,
            everything=args.everything,
            vacuum=args.vacuum,
        )
        _print({**report.counts(), "reopened_facts": list(report.reopened)})
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    with _open(args, reads_only=True) as mem:
        count = mem.export(args.file, user_id=args.user, agent_id=args.agent, vectors=not args.no_vectors)
    print(f"exported {count} record(s) to {args.file}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    with _open(args, must_exist=False) as mem:
        report = mem.import_(args.file, user_id=args.user)
    _print(
        {
            "counts": report.counts,
            "scopes": report.scopes,
            "reembedded": report.reembedded,
            "renumbered": report.renumbered,
        }
    )
    return 0


def cmd_export_schema(args: argparse.Namespace) -> int:
    from memtracks.upkeep.transfer import json_schema

    _print(json_schema())
    return 0


def cmd_rebuild(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        report = mem.rebuild(args.user, agent_id=args.agent, progress=not args.quiet)
    _print(
        {
            "turns": report.turns,
            "before": report.before,
            "after": report.after,
            "replayed": report.replayed,
            "unmatched": report.unmatched,
        }
    )
    return 0


def cmd_consolidate(args: argparse.Namespace) -> int:
    with _open(args) as mem:
        if args.undo:
            mem.undo(args.undo)
            print(f"undid {args.undo}")
            return 0
        if not args.user:
            raise MemtracksError("pass --user (whose memories to consolidate), or --undo OPERATION_ID")
        llm = None
        if args.llm_url or args.llm_model or os.environ.get("MEMTRACKS_LLM_BASE_URL"):
            from memtracks.llm import OpenAIClient

            llm = OpenAIClient(base_url=args.llm_url, model=args.llm_model, api_key=args.llm_key)
        report = mem.consolidate(
            args.user,
            agent_id=args.agent,
            dry_run=args.dry_run,
            find_threshold=args.find,
            replace_threshold=args.replace,
            llm=llm,
        )
    if args.json:
        _print(report.to_dict())
    else:
        if report.llm is not None:
            print(f"LLM {report.llm.model}: {report.llm.totals()}")
        print(report.diff())
        print(f"live memories {report.before} -> {report.after}")
        if report.operation_id:
            print(f"operation {report.operation_id} (undo: memtracks consolidate --undo {report.operation_id})")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    with _open(args, reads_only=True) as mem:
        _print(status(mem))
    return 0


def status(mem: Memory) -> dict[str, Any]:
    """What a memory file holds, per user and agent."""
    return {
        "db": mem.store.path,
        "embedder": f"{mem.embedder.name}:{mem.embedder.dim}",
        "scopes": [{"user_id": u, "agent_id": a, **mem.stats(u, agent_id=a)} for u, a in mem.scopes()],
    }


def cmd_check(args: argparse.Namespace) -> int:
    from memtracks.upkeep.integrity import describe

    with _open(args, reads_only=not args.repair) as mem:
        report = mem.check(quick=args.quick, repair=args.repair)
    if args.json:
        _print(report.to_dict())
    else:
        for line in describe(report).splitlines():
            print(inline(line))
    return 0 if report.ok else 1


def cmd_backup(args: argparse.Namespace) -> int:
    with _open(args, reads_only=True) as mem:
        target = mem.backup(args.file, overwrite=args.force)
    print(f"backed up {args.db} to {target} ({target.stat().st_size:,} bytes)")
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    if args.all_users and (args.user or args.agent):
        raise InvalidTurnError("mcp: --all-users serves every user; it takes no --user or --agent")
    if not args.all_users and not args.user:
        raise InvalidTurnError("mcp: pass --user (the one user this server serves), or --all-users for every user")
    from memtracks.integrations.mcp_server import serve

    serve(
        args.db,
        user_id=args.user,
        agent_id=args.agent,
        all_users=args.all_users,
        rules_dir=args.rules,
        lexicons_dir=args.lexicons,
    )
    return 0


def _scoped(parser: argparse.ArgumentParser, required: bool = True) -> argparse.ArgumentParser:
    parser.add_argument("--user", required=required, help="whose memories")
    parser.add_argument("--agent", help="the agent's own memories of the user (default: the shared ones)")
    return parser


def _data_folders(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", help="folder with your own rule files (added to the bundled ones)")
    parser.add_argument("--lexicons", help="folder with your own lexicon files")


class _Parser(argparse.ArgumentParser):
    """argparse, whose usage errors quote what was typed: an argument that is not valid text
    (a lone surrogate, from bytes that are not UTF-8) is shown escaped, not a crash."""

    def _print_message(self, message: str, file: Any = None) -> None:
        super()._print_message(message.encode("utf-8", "backslashreplace").decode("utf-8"), file)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="memtracks", description="Long-term memory for LLM agents.")
    parser.add_argument("--version", action="version", version=f"memtracks {__version__}")
    parser.add_argument(
        "--db",
        default=os.environ.get("MEMTRACKS_DB", DEFAULT_DB),
        help="SQLite database file, or a postgresql:// URI (default: $MEMTRACKS_DB or memtracks.db)",
    )
    parser.add_argument("--read-only", action="store_true", help="open the database only to read it")
    sub = parser.add_subparsers(dest="command", required=True)
    ingest = sub.add_parser("ingest", help="write the turns of a JSONL, chat-messages or LoCoMo file")
    ingest.add_argument("file", help="JSONL turns, a JSON list of chat messages, or LoCoMo JSON (detected)")
    ingest.add_argument("--user", help="user_id for turns that have none (LoCoMo: default sample_id)")
    ingest.add_argument("--session", help="session id for chat messages (default: the file name)")
    ingest.add_argument(
        "--at",
        type=_when_or_now,
        default=None,
        help="when chat messages, and JSONL lines without a timestamp, were said: ISO 8601 with an offset, or 'now' "
        "(chat messages default to now; a JSONL line without a timestamp is an error without it)",
    )
    ingest.add_argument(
        "--tz", type=_zone, default=timezone.utc, help="time zone of LoCoMo session dates (default UTC)"
    )
    ingest.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    _data_folders(ingest)
    ingest.set_defaults(func=cmd_ingest)
    show = sub.add_parser("show", help="print facts, events and inferences")
    show.add_argument("--user", help="only this user (default: every user)")
    show.add_argument("--json", action="store_true", help="JSON instead of text")
    show.add_argument("--limit", type=int, default=30, help="events to print per user (text mode)")
    show.add_argument(
        "--as-of", type=_when, default=None, help="facts as they stood then (state by the same as-of rule as recall)"
    )
    show.add_argument(
        "--include-negated",
        action="store_true",
        help='also the facts the user said do not hold ("I don\'t live in Boston"), marked NOT',
    )
    show.set_defaults(func=cmd_show)
    recall = sub.add_parser("recall", help="ask a question; print the memory cards that answer it")
    recall.add_argument("question")
    recall.add_argument("--user", help="whose memories (default: the only user in the database)")
    recall.add_argument("--agent", help="the agent's own memories of the user")
    recall.add_argument("--now", type=_when, default=None, help="when the question is asked (ISO 8601 with offset)")
    recall.add_argument(
        "--as-of",
        type=_when,
        default=None,
        help="answer as things stood then: later memories unseen, facts as they were",
    )
    recall.add_argument("--session", help="only memories from this session")
    recall.add_argument(
        "--track", action="append", choices=["fact", "temporal", "inference"], help="only this track (repeatable)"
    )
    recall.add_argument("--top", type=int, default=None, help="cards to return (default 5, or the preset's)")
    recall.add_argument(
        "--preset",
        choices=list(PRESETS),
        default=None,
        help="named search settings (memtracks/retrieval/presets.py); default: the memory's own",
    )
    recall.add_argument("--max-tokens", type=int, default=300, help="token budget of the rendered cards")
    recall.add_argument("--json", action="store_true", help="JSON with scores and breakdowns")
    recall.set_defaults(func=cmd_recall)
    get = _scoped(sub.add_parser("get", help="print one memory: fact:12, event:3, inference:7 or a turn id"))
    get.add_argument("ref")
    get.set_defaults(func=cmd_get)
    correct = _scoped(sub.add_parser("correct", help="replace a wrong fact's value (the old one is kept as history)"))
    correct.add_argument("fact_id", type=int)
    correct.add_argument("value")
    correct.set_defaults(func=cmd_correct)
    retract = _scoped(sub.add_parser("retract", help="mark a fact as never true (kept as history)"))
    retract.add_argument("fact_id", type=int)
    retract.set_defaults(func=cmd_retract)
    forget = _scoped(sub.add_parser("forget", help="erase turns for good, with what rests on them"))
    forget.add_argument("--turn", action="append", help="a turn id (repeatable)")
    forget.add_argument("--session", help="every turn of this session")
    forget.add_argument("--before", type=_when, help="every turn said before this time (ISO 8601 with offset)")
    forget.add_argument("--everything", action="store_true", help="all of the user's memories")
    forget.add_argument("--vacuum", action="store_true", help="also rewrite the file (slower; frees space)")
    forget.set_defaults(func=cmd_forget)
    export = _scoped(sub.add_parser("export", help="write memories to a JSONL file (versioned format)"), required=False)
    export.add_argument("file")
    export.add_argument("--no-vectors", action="store_true", help="leave vectors out (the importer embeds again)")
    export.set_defaults(func=cmd_export)
    import_ = sub.add_parser("import", help="read an export file into this database")
    import_.add_argument("file")
    import_.add_argument("--user", help="file everything under this user instead")
    import_.set_defaults(func=cmd_import)
    schema = sub.add_parser("export-schema", help="print the JSON Schema of the export format")
    schema.set_defaults(func=cmd_export_schema)
    rebuild = _scoped(sub.add_parser("rebuild", help="re-derive facts, events and inferences from stored turns"))
    rebuild.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    _data_folders(rebuild)
    rebuild.set_defaults(func=cmd_rebuild)
    mcp = _scoped(sub.add_parser("mcp", help="serve one user's memory to an agent over MCP (stdio)"), required=False)
    mcp.add_argument(
        "--all-users",
        action="store_true",
        help="serve every user of the file: each tool then requires user_id (for a trusted gateway only)",
    )
    _data_folders(mcp)
    mcp.set_defaults(func=cmd_mcp)
    cons = _scoped(sub.add_parser("consolidate", help="fold near-duplicates (nothing deleted; undoable)"), False)
    cons.add_argument("--dry-run", action="store_true", help="show the diff, change nothing")
    cons.add_argument("--find", type=float, default=None, help="cosine to compare two memories at all (default 0.7)")
    cons.add_argument("--replace", type=float, default=None, help="cosine to fold or supersede (default 0.9)")
    cons.add_argument("--undo", metavar="OPERATION_ID", help="take a consolidation run back exactly")
    cons.add_argument("--json", action="store_true", help="JSON instead of a diff")
    cons.add_argument(
        "--llm-url", help="OpenAI-compatible base URL: extract with an LLM first (or MEMTRACKS_LLM_BASE_URL)"
    )
    cons.add_argument("--llm-model", help="the LLM's model name (or MEMTRACKS_LLM_MODEL)")
    cons.add_argument("--llm-key", help="API key (or MEMTRACKS_LLM_API_KEY / OPENAI_API_KEY)")
    cons.set_defaults(func=cmd_consolidate)
    stat = sub.add_parser("status", help="users, agents and how many memories each has")
    stat.set_defaults(func=cmd_status)
    check = sub.add_parser("check", help="check the file: SQLite integrity, checksums, memtracks' invariants")
    check.add_argument("--quick", action="store_true", help="SQLite's quick_check instead of the full integrity_check")
    check.add_argument("--repair", action="store_true", help="embed damaged or missing vectors again")
    check.add_argument("--json", action="store_true", help="the report as JSON")
    check.set_defaults(func=cmd_check)
    backup = sub.add_parser("backup", help="copy the memory to a file while it stays in use (online backup)")
    backup.add_argument("file")
    backup.add_argument("--force", action="store_true", help="replace the file if it exists")
    backup.set_defaults(func=cmd_backup)
    upkeep_cli.add_commands(sub, _open, _when)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if any("\x00" in arg for arg in argv):  # no shell can pass one; no file name can hold one
        print("memtracks: an argument contains a NUL character", file=sys.stderr)
        return 2
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (MemtracksError, OSError, UnicodeError, json.JSONDecodeError) as exc:
        print(f"memtracks: {inline(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("memtracks: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: one line, not a traceback, and a status that says so
        print(f"memtracks: internal error, please report it: {type(exc).__name__}: {inline(str(exc))}", file=sys.stderr)
        return 70


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
