"""The upkeep commands of the ``memtracks`` CLI: ``audit``, ``export-md`` and ``import-md``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

Opener = Callable[[argparse.Namespace], Any]


def cmd_audit(args: argparse.Namespace, open_memory: Opener) -> int:
    with open_memory(args) as mem:
        report = mem.audit(args.user, agent_id=args.agent, near=args.near)
    if args.json:
        print(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(report.to_text())
    return 1 if args.strict and any(report.totals.values()) else 0


def cmd_export_md(args: argparse.Namespace, open_memory: Opener) -> int:
    with open_memory(args) as mem:
        report = mem.export_markdown(
            args.folder, args.user, agent_id=args.agent, now=args.now, lang=args.lang, max_lines=args.max_lines
        )
    left = f", {report.left_out} left out (see its last line)" if report.left_out else ""
    print(
        f"wrote {report.memory_file} ({report.lines} lines: {report.facts} fact(s), {report.plans} plan(s){left}) "
        f"and {len(report.daily_files)} daily note(s) in {report.memory_file.parent / 'memory'}"
    )
    return 0


def cmd_import_md(args: argparse.Namespace, open_memory: Opener) -> int:
    with open_memory(args) as mem:
        report = mem.import_markdown(args.path, args.user, agent_id=args.agent, now=args.now, dry_run=args.dry_run)
    print(report.diff())
    return 0


def add_commands(sub: Any, open_memory: Opener, when: Callable[[str], Any]) -> None:
    """Register the upkeep commands on the CLI's subparsers."""
    audit = sub.add_parser("audit", help="count duplicate, near-duplicate, junk, stale and orphan memories per user")
    audit.add_argument("--user", help="only this user (default: every user)")
    audit.add_argument("--agent", help="the agent's own memories of the user")
    audit.add_argument("--near", type=float, default=0.9, help="cosine for near-duplicates (default 0.9)")
    audit.add_argument("--json", action="store_true", help="JSON instead of a table")
    audit.add_argument("--strict", action="store_true", help="exit 1 when anything is found (for CI checks)")
    audit.set_defaults(func=lambda args: cmd_audit(args, open_memory))
    md = sub.add_parser("export-md", help="write MEMORY.md and memory/YYYY-MM-DD.md daily notes")
    md.add_argument("folder", help="where MEMORY.md and memory/ go")
    md.add_argument("--user", required=True, help="whose memories")
    md.add_argument("--agent", help="the agent's own memories of the user")
    md.add_argument("--now", type=when, default=None, help="what 'current' is measured at (ISO 8601 with offset)")
    md.add_argument("--lang", choices=["en", "zh"], help="language of the headings (default: the memories')")
    md.add_argument("--max-lines", type=int, default=200, help="cap on MEMORY.md (default 200)")
    md.set_defaults(func=lambda args: cmd_export_md(args, open_memory))
    back = sub.add_parser("import-md", help="read an edited MEMORY.md back (deleted lines retract, edits correct)")
    back.add_argument("path", help="MEMORY.md, or the folder export-md wrote it in")
    back.add_argument("--user", required=True, help="whose memories")
    back.add_argument("--agent", help="the agent's own memories of the user")
    back.add_argument("--now", type=when, default=None, help="when new lines were said (ISO 8601 with offset)")
    back.add_argument("--dry-run", action="store_true", help="show what would change, change nothing")
    back.set_defaults(func=lambda args: cmd_import_md(args, open_memory))
