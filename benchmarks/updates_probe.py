"""Probe suite: everyday-phrased updates, and how well memtracks follows the change.

    python -m benchmarks.updates_probe                       # both probe files
    python -m benchmarks.updates_probe --file benchmarks/data/updates_everyday_dev.yaml --verbose
    python -m benchmarks.updates_probe --only job_ --verbose # scenarios whose name contains "job_"

The scenario files use the format of tests/data/updates_en.yaml (turns, current, ended,
planned, absent, retracted, inferred, ask) plus two labels, ``lang`` (en | zh | zh-Hant) and
``kind`` (move, job, relationship, ...). Each scenario is written to a fresh SQLite memory in a
temporary folder (the real toolkit and the USE embedder that tests/conftest.py uses, loaded
once), then checked the way tests/test_updates.py checks it; the checking code is copied here,
but every listed item (and every part of ``ask``) is counted as one *check* instead of
stopping at the first failed assert. A scenario passes when all its checks pass; one that raises
is counted as failed, with all its checks failed.

Prints a table of scenarios passed/total and checks passed/total per kind and per lang;
``--verbose`` also prints every failing check and why (the facts as found).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
import time
import traceback
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import yaml

T0 = datetime(2024, 9, 2, 9, tzinfo=timezone.utc)  # a Monday, as in tests/test_updates.py
DATA = Path(__file__).parent / "data"
FILES = [DATA / "updates_everyday_dev.yaml", DATA / "updates_everyday_heldout.yaml"]
LANGS = ("en", "zh", "zh-Hant")

# ------------------------------------------ how a scenario's items read (tests/test_updates.py reads them too)
ITEM = re.compile(
    r"^(?:(?P<subject>.+?) · )?(?P<slot>\w+): (?P<value>.*?)"
    r"(?: from (?P<since>\d{4}-\d{2}(?:-\d{2})?))?"
    r"(?: \((?P<reason>replaced|ended|corrected|retracted|cancelled)\))?$"
)


def parse_item(item: str) -> tuple[str, str, str, bool, str | None]:
    m = ITEM.match(item)
    if not m:
        raise ValueError(f"bad item {item!r}")
    value, negated = m.group("value"), m.group("value").startswith("NOT")
    return m.group("subject") or "user", m.group("slot"), value.removeprefix("NOT").strip(), negated, m.group("reason")


def has_fact(facts, item: str, with_reason: bool = False) -> bool:
    """Is ``item`` among ``facts``? "slot: value from 2025-01-06" also checks when it holds from."""
    subject, slot, value, negated, reason = parse_item(item)
    since = ITEM.match(item).group("since")  # type: ignore[union-attr]
    return any(
        f.subject == subject
        and f.slot == slot
        and (f.value == value or (not value and negated))
        and f.negated == negated
        and (not with_reason or f.reason == reason)
        and (since is None or f.valid_from.date().isoformat().startswith(since))
        for f in facts
    )


def show_facts(facts) -> str:
    return (
        "; ".join(
            f"{f.subject}·{f.slot}={'NOT ' if f.negated else ''}{f.value} [{f.reason or 'open'}"
            f"{', planned' if f.planned else ''}]"
            for f in facts
        )
        or "(none)"
    )


# ----------------------------------------------------------------- running one scenario


@dataclass
class Check:
    field: str  # current | ended | planned | absent | retracted | inferred | ask.top | ask.within | ask.not
    item: str
    ok: bool
    why: str = ""


@dataclass
class Outcome:
    name: str
    lang: str
    kind: str
    file: str
    checks: list[Check] = field(default_factory=list)
    error: str = ""

    @property
    def passed(self) -> bool:
        return not self.error and bool(self.checks) and all(c.ok for c in self.checks)


def planned_checks(scenario: dict) -> list[tuple[str, str]]:
    """Every check a scenario asks for, as (field, item): the count used when a scenario raises."""
    out = []
    for name in ("current", "ended", "planned", "absent", "retracted", "inferred"):
        out += [(name, item) for item in scenario.get(name, []) or []]
    ask = scenario.get("ask") or {}
    for name in ("top", "within", "not"):
        out += [(f"ask.{name}", part) for part in ask.get(name, []) or []]
    return out


def run_scenario(memory, scenario: dict) -> list[Check]:
    from memtracks import Turn

    checks: list[Check] = []
    for i, (day, text, *who) in enumerate(scenario["turns"]):  # [day, text] or [day, text, speaker]
        memory.write(
            Turn(
                text=text,
                speaker=who[0] if who else "user",
                user_id="u1",
                session_id=f"s{day}",
                turn_id=f"t{i}",
                timestamp=T0 + timedelta(days=day, minutes=i),
            )
        )
    last = max(turn[0] for turn in scenario["turns"])
    asked = T0 + timedelta(days=scenario.get("day", last + 1), hours=1)
    everything = memory.facts("u1", include_superseded=True)
    current = memory.facts("u1", as_of=asked, include_negated=True)  # "NOT vegetarian" holds too
    planned = [
        f for f in memory.facts("u1", include_planned=True, include_negated=True, as_of=asked) if f not in current
    ]
    for item in scenario.get("current", []) or []:
        ok = has_fact(current, item)
        checks.append(
            Check(
                "current",
                item,
                ok,
                "" if ok else f"should hold; current: {show_facts(current)}; all: {show_facts(everything)}",
            )
        )
    for item in scenario.get("ended", []) or []:
        if not has_fact(everything, item, with_reason=True):
            checks.append(Check("ended", item, False, f"should have ended; all: {show_facts(everything)}"))
        elif has_fact(current, item.rsplit(" (", 1)[0]):
            checks.append(Check("ended", item, False, f"still holds: {show_facts(current)}"))
        else:
            checks.append(Check("ended", item, True))
    for item in scenario.get("planned", []) or []:
        if not has_fact(planned, item):
            checks.append(
                Check(
                    "planned",
                    item,
                    False,
                    f"should be planned; all: {show_facts(everything)}; planned: {show_facts(planned)}",
                )
            )
        elif has_fact(current, item):
            checks.append(Check("planned", item, False, f"the plan must not hold yet: {show_facts(current)}"))
        else:
            checks.append(Check("planned", item, True))
    for item in scenario.get("absent", []) or []:
        subject, slot, value, negated, _ = parse_item(item)
        bad = [
            f
            for f in everything
            if f.subject == subject
            and f.slot == slot
            and f.value.startswith(value)
            and (f.negated or not item.split(": ", 1)[1].startswith("NOT"))
        ]
        checks.append(
            Check(
                "absent",
                item,
                not bad,
                f"must not be stored: {show_facts(bad)}; all: {show_facts(everything)}" if bad else "",
            )
        )
    retracted = [i.text for i in memory.inferences("u1", include_retracted=True) if not i.is_active]
    active = [i.text for i in memory.inferences("u1")]
    for part in scenario.get("retracted", []) or []:
        if not any(part in t for t in retracted):
            checks.append(Check("retracted", part, False, f"should be retracted: {retracted}; active: {active}"))
        elif any(part in t for t in active):
            checks.append(Check("retracted", part, False, f"still active: {active}"))
        else:
            checks.append(Check("retracted", part, True))
    for part in scenario.get("inferred", []) or []:
        ok = any(part in t for t in active)
        checks.append(Check("inferred", part, ok, "" if ok else f"should be inferred: {active}"))
    ask = scenario.get("ask")
    if ask:
        now = T0 + timedelta(days=ask.get("day", last + 1), hours=1)
        cards = [c.text for c in memory.retrieve(ask["q"], user_id="u1", now=now).cards]
        shown = " || ".join(cards[:5]) or "(no cards)"
        for part in ask.get("top", []) or []:
            ok = bool(cards) and part in cards[0]
            checks.append(
                Check(
                    "ask.top",
                    part,
                    ok,
                    "" if ok else f"not in the top card for {ask['q']!r}; cards: {shown}; facts: {show_facts(current)}",
                )
            )
        for part in ask.get("within", []) or []:
            ok = any(part in c for c in cards[:3])
            checks.append(
                Check("ask.within", part, ok, "" if ok else f"not in the top 3 cards for {ask['q']!r}; cards: {shown}")
            )
        for part in ask.get("not", []) or []:
            ok = bool(cards) and not any(part in c for c in cards)
            checks.append(Check("ask.not", part, ok, "" if ok else f"shown for {ask['q']!r}: {shown}"))
    return checks


# ----------------------------------------------------------------- the suite


def load(files: list[Path]) -> list[tuple[str, dict]]:
    out = []
    for path in files:
        for s in yaml.safe_load(path.read_text(encoding="utf-8"))["scenarios"]:
            out.append((path.name, s))
    return out


class Builder:
    """Fresh SQLite memories in a temporary folder, sharing one toolkit and one embedder."""

    def __init__(self):
        from memtracks.retrieval.embedders import USEEmbedder
        from memtracks.toolkit import Toolkit

        self.toolkit = Toolkit.load()
        self.embedder = USEEmbedder()
        self.folder = Path(tempfile.mkdtemp(prefix="memtracks-probe-"))
        self.count = 0

    def make(self):
        from memtracks import Memory

        self.count += 1
        return Memory(self.folder / f"m{self.count}.db", toolkit=self.toolkit, embedder=self.embedder)

    def cleanup(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def run(scenarios: list[tuple[str, dict]], builder: Builder) -> list[Outcome]:
    outcomes = []
    for file, s in scenarios:
        out = Outcome(s.get("name", "?"), s.get("lang", "?"), s.get("kind", "?"), file)
        memory = None
        try:
            memory = builder.make()
            out.checks = run_scenario(memory, s)
        except Exception as exc:  # one scenario never stops the run
            out.error = f"{type(exc).__name__}: {exc}"
            out.checks = [Check(f, i, False, "scenario raised") for f, i in planned_checks(s)]
            out.error += "\n" + traceback.format_exc(limit=3)
        finally:
            if memory is not None:
                try:
                    memory.close()
                except Exception:
                    pass
        outcomes.append(out)
    return outcomes


def _row(label: str, outs: list[Outcome]) -> str:
    sp = sum(o.passed for o in outs)
    cp = sum(c.ok for o in outs for c in o.checks)
    ct = sum(len(o.checks) for o in outs)
    spct = f"{100 * sp / len(outs):5.1f}%" if outs else "   - "
    cpct = f"{100 * cp / ct:5.1f}%" if ct else "   - "
    return f"  {label:<14} {sp:>4}/{len(outs):<4} {spct}   {cp:>4}/{ct:<4} {cpct}"


def table(title: str, outcomes: list[Outcome]) -> str:
    lines = [f"== {title}", f"  {'':<14} {'scenarios':<16} {'checks'}"]
    kinds = sorted({o.kind for o in outcomes})
    lines.append("  by kind")
    for k in kinds:
        lines.append(_row(k, [o for o in outcomes if o.kind == k]))
    lines.append("  by lang")
    for lang in [*LANGS, *sorted({o.lang for o in outcomes} - set(LANGS))]:
        outs = [o for o in outcomes if o.lang == lang]
        if outs:
            lines.append(_row(lang, outs))
    lines.append(_row("TOTAL", outcomes))
    return "\n".join(lines)


def failures(outcomes: list[Outcome], verbose: bool) -> str:
    lines = []
    for o in outcomes:
        if o.passed:
            continue
        lines.append(f"  FAIL {o.file}:{o.name} [{o.lang}/{o.kind}]")
        if not verbose:
            continue
        if o.error:
            lines.append("    raised: " + o.error.replace("\n", "\n      "))
        for c in o.checks:
            if not c.ok:
                lines.append(f"    {c.field} {c.item!r}: {c.why}")
    return "\n".join(lines)


def validate(files: list[Path]) -> list[str]:
    """Warnings about the scenario files: a missing lang or kind, a bad item, a repeated name,
    a phrasing family found in more than one file (the split must keep families apart)."""
    warnings, families, names = [], defaultdict(set), defaultdict(int)
    for file, s in load(files):
        name = s.get("name", "?")
        names[name] += 1
        if s.get("lang") not in LANGS:
            warnings.append(f"{file}:{name}: lang must be one of {LANGS}")
        if not s.get("kind"):
            warnings.append(f"{file}:{name}: no kind")
        if s.get("family"):
            families[s["family"]].add(file)
        for fld in ("current", "ended", "planned", "absent"):
            for item in s.get(fld, []) or []:
                try:
                    parse_item(item)
                except ValueError as exc:
                    warnings.append(f"{file}:{name}: {exc}")
    warnings += [f"scenario name {n!r} used {c} times" for n, c in names.items() if c > 1]
    warnings += [f"family {f!r} in several files: {sorted(v)}" for f, v in families.items() if len(v) > 1]
    return warnings


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.updates_probe", description=__doc__.split("\n\n")[0])
    ap.add_argument("--file", action="append", type=Path, help="a scenario file (repeatable); default: dev and heldout")
    ap.add_argument("--verbose", "-v", action="store_true", help="print each failing check and why")
    ap.add_argument("--only", help="run only scenarios whose name contains this")
    args = ap.parse_args(argv)

    files = args.file or FILES
    for warning in validate(files):
        print("warning:", warning, file=sys.stderr)
    started = time.perf_counter()
    builder = Builder()
    try:
        for path in files:
            scenarios = load([path])
            if args.only:
                scenarios = [(f, s) for f, s in scenarios if args.only in s.get("name", "")]
            outcomes = run(scenarios, builder)
            print(table(path.name, outcomes))
            bad = failures(outcomes, args.verbose)
            if bad:
                print("  failing scenarios:")
                print(bad)
            print()
    finally:
        builder.cleanup()
    print(f"({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
