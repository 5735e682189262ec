"""``Memory.export_markdown()`` / ``memtracks export-md``: memory as files a person can read.

The layout agents such as OpenClaw keep their memory in::

    DIR/MEMORY.md              current facts and active plans, most important first, at most
                               200 lines, ending with a note of what was left out
    DIR/memory/2024-06-10.md   one note per day: that day's turns, dates resolved

Every line is rebuilt from the store; writing them again replaces MEMORY.md and the notes of
the days that have turns, and leaves other files in the folder alone. Each file is written to
a temporary file first, then moved into place. Each fact's line ends with an HTML comment
naming it (``<!-- fact:12 -->``, invisible when rendered), and the as-of line with one naming
the moment and the facts written, so that an edited MEMORY.md can be read back
(:mod:`memtracks.upkeep.markdown_import`).
"""

from __future__ import annotations

import math
import os
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from memtracks.config import FusionConfig
from memtracks.data.catalogue import Catalogue
from memtracks.errors import InvalidTurnError
from memtracks.records import Event, Fact, TimeMention
from memtracks.retrieval.cards import resolved, with_dates
from memtracks.tracks.facts import FactState, fact_state, value_at
from memtracks.tracks.temporal import status_marker
from memtracks.upkeep.audit import noise_turns

if TYPE_CHECKING:
    from memtracks.parts import Parts

MARKER = re.compile(r"\s*<!--\s*fact:(\S*?)\s*-->\s*$")
MANIFEST = "memtracks-md"  # the as-of line's comment: when the file was written, which facts it holds
MAX_LINES = 200  # MEMORY.md stays short enough for an agent to load whole
MAX_NOTE_CHARS = 300  # a turn longer than this is cut in the daily note

TEXT = {
    "en": {
        "title": "# Memory of {who}",
        "as_of": "_As of {day}: what holds now and what is planned, most important first._",
        "facts": "## Facts",
        "plans": "## Plans",
        "none": "_Nothing yet._",
        "left_out": "_Left out to stay within {cap} lines: {what} (least important first out)._",
        "facts_n": "{n} fact(s)",
        "plans_n": "{n} plan(s)",
        "since": "since {day}",
        "planned": "planned {day}",
        "day": "# {day}",
        "noise": "_{n} turn(s) of tool output, greetings or recalled memories not shown._",
    },
    "zh": {
        "title": "# {who} 的记忆",
        "as_of": "_截至 {day}：现在成立的事实和计划中的事，重要的在前。_",
        "facts": "## 事实",
        "plans": "## 计划",
        "none": "_暂无。_",
        "left_out": "_为不超过 {cap} 行，略去：{what}（先略去最不重要的）。_",
        "facts_n": "{n} 条事实",
        "plans_n": "{n} 项计划",
        "since": "自 {day}",
        "planned": "计划于 {day}",
        "day": "# {day}",
        "noise": "_另有 {n} 条工具输出、问候或召回的记忆未列出。_",
    },
}


@dataclass
class MarkdownReport:
    """What :func:`export_markdown` wrote."""

    memory_file: Path
    daily_files: list[Path] = field(default_factory=list)
    facts: int = 0
    plans: int = 0
    left_out: int = 0
    lines: int = 0


def importance(fact: Fact, weights: FusionConfig, catalogue: Catalogue) -> float:
    """How much a fact matters in MEMORY.md: confidence x source weight (stated over inferred
    over imported), raised by how often it was said (log); the user's own facts, and one-value
    slots (where someone lives, works, who their partner is) a little above the rest."""
    mentions = 1.0 + 0.25 * math.log2(max(1, fact.mention_count))
    own = 1.1 if fact.subject == "user" else 1.0
    single = 1.1 if fact.slot in catalogue and catalogue.is_single(fact.slot) else 1.0
    return fact.confidence * weights.source_weight(fact.source) * mentions * own * single


def export_markdown(
    parts: Parts,
    folder: Path,
    scope: str,
    who: str,
    *,
    now: datetime,
    lang: str | None = None,
    max_lines: int = MAX_LINES,
    tz: tzinfo | None = None,
) -> MarkdownReport:
    """Write MEMORY.md and the daily notes of ``scope`` into ``folder`` (see the module doc)."""
    if max_lines < 10:
        raise InvalidTurnError(f"max_lines must be at least 10, found {max_lines}")
    store, catalogue = parts.store, parts.toolkit.catalogue
    facts = store.facts(scope)
    events = store.events(scope)
    lang = lang or _main_language(facts, events)
    words = TEXT[lang]
    current = sorted(
        facts_in(facts, now, FactState.CURRENT),
        key=lambda f: (-importance(f, parts.config.fusion, catalogue), -f.last_seen.timestamp()),
    )
    plans = _plans(facts, events, now, catalogue)
    body, report = _memory_lines(current, plans, catalogue, now, words, max_lines, who)
    folder.mkdir(parents=True, exist_ok=True)
    report.memory_file = folder / "MEMORY.md"
    _write(report.memory_file, body)
    noise = noise_turns(parts, scope, events)
    for day, lines in _daily(events, noise, words, tz).items():
        path = folder / "memory" / f"{day.isoformat()}.md"
        path.parent.mkdir(exist_ok=True)
        _write(path, lines)
        report.daily_files.append(path)
    return report


def facts_in(facts: Sequence[Fact], at: datetime, state: FactState) -> list[Fact]:
    """The facts in ``state`` at ``at`` that say what is so: a negated one ("I don't live in
    Boston") is left out, as ``Memory.facts()`` leaves it out."""
    return [f for f in facts if fact_state(f, at) is state and not f.negated]


def _main_language(facts: Sequence[Fact], events: Sequence[Event]) -> str:
    zh = sum(e.lang == "zh" for e in events) + sum(f.lang == "zh" for f in facts)
    return "zh" if zh * 2 > len(events) + len(facts) else "en"


def fact_line(fact: Fact, catalogue: Catalogue, at: datetime) -> str:
    """One fact as a MEMORY.md bullet, in its own language: "- lives in: Shanghai (since
    2024-05-01)", "- 居住地：上海（自 2024-05-01）"."""
    zh = fact.lang == "zh"
    words = TEXT["zh" if zh else "en"]
    label = catalogue.label(fact.slot, fact.lang)
    value = value_at(fact, at)
    if fact.negated:
        value = f"不再是{value}" if zh else f"not {value}"
    who = "" if fact.subject == "user" else f"{fact.subject} · "
    planned = fact.valid_from > at
    when = (words["planned"] if planned else words["since"]).format(day=fact.valid_from.date().isoformat())
    extra = f"; {fact.source}" if fact.source != "stated" else ""
    if zh:
        return f"- {who}{label}：{value}（{when}{extra}）"
    return f"- {who}{label}: {value} ({when}{extra})"


def marker(fact: Fact) -> str:
    """The comment that names a fact's line, for reading an edited MEMORY.md back."""
    return f" <!-- fact:{fact.id} -->"


def _plans(
    facts: Sequence[Fact], events: Sequence[Event], now: datetime, catalogue: Catalogue
) -> list[tuple[datetime, str]]:
    """Planned facts and active happenings still ahead, soonest first (a happening that gave
    a planned fact is shown once, as the fact)."""
    planned = facts_in(facts, now, FactState.PLANNED)
    out = [(f.valid_from, fact_line(f, catalogue, now) + marker(f)) for f in planned]
    covered = {t for f in planned for t in f.source_turn_ids}
    for e in events:
        if e.turn_id in covered:
            continue
        for h in e.happenings:
            if h.status != "active" or h.start is None or h.start <= now:
                continue
            said = e.mentioned_at.date().isoformat()
            text = _clip(with_dates(e.text, e.times))
            said = f"（{said} 说）" if e.lang == "zh" else f" (said {said})"
            out.append((h.start, f"- {_day_of(h.start, h.end, h.granularity)} · {text}{said}"))
    out.sort(key=lambda p: p[0])
    seen: set[str] = set()
    return [(when, line) for when, line in out if not (line in seen or seen.add(line))]  # type: ignore[func-returns-value]


def _day_of(start: datetime, end: datetime | None, granularity: str | None) -> str:

    mention = TimeMention("", start, end or start, granularity or "day", (0, 0), "en")
    return resolved(mention) or start.date().isoformat()


def _memory_lines(
    facts: list[Fact],
    plans: list[tuple[datetime, str]],
    catalogue: Catalogue,
    now: datetime,
    words: dict[str, str],
    max_lines: int,
    who: str,
) -> tuple[list[str], MarkdownReport]:
    head = [words["title"].format(who=who), "", words["as_of"].format(day=now.date().isoformat()), ""]
    fact_lines = [fact_line(f, catalogue, now) + marker(f) for f in facts] or [words["none"]]
    plan_lines = [line for _, line in plans] or [words["none"]]
    fixed = len(head) + 2 + 1 + 2  # headings and the blank lines between sections
    room = max_lines - fixed
    if len(fact_lines) + len(plan_lines) > room:
        room -= 2  # the note of what was left out, and its blank line
    keep_plans = min(len(plan_lines), max(room // 4, room - len(fact_lines)))
    keep_facts = min(len(fact_lines), room - keep_plans)
    keep_plans = min(len(plan_lines), room - keep_facts)
    dropped_facts = len(fact_lines) - keep_facts if facts else 0
    dropped_plans = len(plan_lines) - keep_plans if plans else 0
    lines = [*head, words["facts"], *fact_lines[:keep_facts], "", words["plans"], *plan_lines[:keep_plans]]
    if dropped_facts or dropped_plans:
        parts = [words["facts_n"].format(n=dropped_facts)] if dropped_facts else []
        parts += [words["plans_n"].format(n=dropped_plans)] if dropped_plans else []
        sep = "，" if words is TEXT["zh"] else ", "
        lines += ["", words["left_out"].format(cap=max_lines, what=sep.join(parts))]
    written = ",".join(m.group(1) for line in lines for m in [MARKER.search(line)] if m)
    lines[2] += f" <!-- {MANIFEST} at={now.isoformat()} facts={written} -->"
    report = MarkdownReport(
        Path(),
        facts=keep_facts if facts else 0,
        plans=keep_plans if plans else 0,
        left_out=dropped_facts + dropped_plans,
        lines=len(lines),
    )
    return lines, report


def _daily(events: Sequence[Event], noise: set[str], words: dict[str, str], tz: tzinfo | None) -> dict[date, list[str]]:
    """Each day's note: its turns in the order they were said, dates resolved."""
    by_day: dict[date, list[Event]] = defaultdict(list)
    for e in events:
        by_day[e.mentioned_at.astimezone(tz).date() if tz else e.mentioned_at.date()].append(e)
    notes = {}
    for day, items in sorted(by_day.items()):
        items.sort(key=lambda e: (e.mentioned_at, e.seq))
        lines = [words["day"].format(day=day.isoformat()), ""]
        hidden = 0
        for e in items:
            if e.turn_id in noise:
                hidden += 1
                continue
            clock = (e.mentioned_at.astimezone(tz) if tz else e.mentioned_at).strftime("%H:%M")
            lines.append(f"- {clock} {e.speaker}: {_clip(with_dates(e.text, e.times))}{_status(e)}")
        if hidden:
            lines += ["", words["noise"].format(n=hidden)]
        notes[day] = lines
    return notes


def _status(event: Event) -> str:
    notes = [status_marker(h, event.lang) for h in event.happenings if h.status != "active"]
    return f" ({'; '.join(notes)})" if notes else ""


def _clip(text: str, limit: int = MAX_NOTE_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _write(path: Path, lines: list[str]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, path)
