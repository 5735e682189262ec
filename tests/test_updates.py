"""The update suite: what changed, as people say it (tests/data/updates_en.yaml, updates_zh.yaml)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

from benchmarks.updates_probe import has_fact as _has
from benchmarks.updates_probe import parse_item as _parse
from benchmarks.updates_probe import show_facts as _show
from memtracks import Turn

T0 = datetime(2024, 9, 2, 9, tzinfo=timezone.utc)
DATA = Path(__file__).parent / "data"
SCENARIOS = [
    (lang, s)
    for lang in ("en", "zh")
    for s in yaml.safe_load((DATA / f"updates_{lang}.yaml").read_text(encoding="utf-8"))["scenarios"]
]
pytestmark = pytest.mark.backends  # every test here runs on SQLite and on Postgres


def test_update_suite_has_sixty_scenarios_per_language():
    assert sum(lang == "en" for lang, _ in SCENARIOS) >= 60
    assert sum(lang == "zh" for lang, _ in SCENARIOS) >= 60
    traditional = [s for lang, s in SCENARIOS if lang == "zh" and s["name"].startswith("tw_")]
    assert len(traditional) >= 15


@pytest.mark.parametrize("lang,scenario", SCENARIOS, ids=[f"{lang}:{s['name']}" for lang, s in SCENARIOS])
def test_update_scenario(memory, lang, scenario):
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
    for item in scenario.get("current", []):
        assert _has(current, item), f"{item!r} should hold; current: {_show(current)}; all: {_show(everything)}"
    for item in scenario.get("ended", []):
        assert _has(everything, item, with_reason=True), f"{item!r} should have ended; all: {_show(everything)}"
        assert not _has(current, item.rsplit(" (", 1)[0]), f"{item!r} still holds: {_show(current)}"
    for item in scenario.get("planned", []):
        assert _has(planned, item), f"{item!r} should be planned; all: {_show(everything)}"
        assert not _has(current, item), f"the plan {item!r} must not hold yet: {_show(current)}"
    for item in scenario.get("absent", []):
        subject, slot, value, negated, _ = _parse(item)
        bad = [
            f
            for f in everything
            if f.subject == subject
            and f.slot == slot
            and f.value.startswith(value)
            and (f.negated or not item.split(": ", 1)[1].startswith("NOT"))
        ]
        assert not bad, f"{item!r} must not be stored: {_show(everything)}"
    retracted = [i.text for i in memory.inferences("u1", include_retracted=True) if not i.is_active]
    active = [i.text for i in memory.inferences("u1")]
    for part in scenario.get("retracted", []):
        assert any(part in t for t in retracted), f"{part!r} should be retracted: {retracted}; active: {active}"
        assert not any(part in t for t in active), f"{part!r} still active: {active}"
    for part in scenario.get("inferred", []):
        assert any(part in t for t in active), f"{part!r} should be inferred: {active}"
    ask = scenario.get("ask")
    if ask:
        now = T0 + timedelta(days=ask.get("day", last + 1), hours=1)
        cards = [c.text for c in memory.retrieve(ask["q"], user_id="u1", now=now).cards]
        assert cards, "no cards"
        for part in ask.get("top", []):
            assert part in cards[0], f"{part!r} not in the top card; cards: {cards}"
        for part in ask.get("within", []):
            assert any(part in c for c in cards[:3]), f"{part!r} not in the top 3 cards; cards: {cards}"
        for part in ask.get("not", []):
            assert not any(part in c for c in cards), f"{part!r} should not be shown: {cards}"
