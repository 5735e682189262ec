"""The upkeep commands of the ``memtracks`` CLI: ``audit`` (and the markdown export)."""

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


def add_commands(sub: Any, open_memory: Opener) -> None:
    """Register the upkeep commands on the CLI's subparsers."""
    audit = sub.add_parser("audit", help="count duplicate, near-duplicate, junk, stale and orphan memories per user")
    audit.add_argument("--user", help="only this user (default: every user)")
    audit.add_argument("--agent", help="the agent's own memories of the user")
    audit.add_argument("--near", type=float, default=0.9, help="cosine for near-duplicates (default 0.9)")
    audit.add_argument("--json", action="store_true", help="JSON instead of a table")
    audit.add_argument("--strict", action="store_true", help="exit 1 when anything is found (for CI checks)")
    audit.set_defaults(func=lambda args: cmd_audit(args, open_memory))
