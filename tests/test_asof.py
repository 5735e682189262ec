"""One as-of rule: facts(), retrieve(), the cards and the CLI agree on what held when."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtracks import Turn
from memtracks.interfaces.cli import main
from memtracks.tracks.facts import FactState, fact_state

T0 = datetime(2024, 3, 4, 9, tzinfo=timezone.utc)
CITIES = ["Boston", "Denver", "Austin", "Chicago"]
SAYINGS = {
    "live": "I live in {city}.",
    "plan": "We're moving to {city} next month.",
    "moved": "I moved to {city} last week.",
    "not": "I don't live in {city} anymore.",
    "correct": "Sorry, I meant {city}, I live in {city}.",
    "meant": "Sorry, I meant {city}.",
}
statements = st.lists(
    st.tuples(st.sampled_from(sorted(SAYINGS)), st.sampled_from(CITIES), st.integers(min_value=1, max_value=40)),
    min_size=1,
    max_size=4,
)


def _write(mem, script):
    day = 0
    for i, (kind, city, gap) in enumerate(script):
        day += gap
        mem.write(
            Turn(
                text=SAYINGS[kind].format(city=city),
                user_id="u",
                session_id=f"s{i}",
                turn_id=f"t{i}",
                timestamp=T0 + timedelta(days=day),
            )
        )
    return day


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=statements, probe=st.integers(min_value=0, max_value=200))
def test_asof_facts_retrieve_and_cards_agree(make_memory, script, probe):
    mem = make_memory()
    _write(mem, script)
    at = T0 + timedelta(days=probe, hours=12)
    held = {f.value for f in mem.facts("u", slot="lives_in", as_of=at) if not f.negated}
    stored = mem.store.facts("u", slots=["lives_in"])
    assert held == {f.value for f in stored if fact_state(f, at, at) is FactState.CURRENT and not f.negated}
    recall = mem.retrieve("Where do I live?", user_id="u", now=at, as_of=at)
    shown = {
        c.text.split(": ", 1)[1].split(" (")[0]
        for c in recall.cards
        if c.track == "fact" and "lives in:" in c.text and "since 20" in c.text and "not " not in c.text
    }
    assert shown == held, f"cards {[c.text for c in recall.cards]} vs facts {held}"


def test_asof_cli_show_uses_the_same_rule(make_memory, tmp_path, capsys):
    db = str(tmp_path / "m.db")
    mem = make_memory(db)
    _write(mem, [("live", "Chicago", 1), ("plan", "Denver", 10)])
    mem.close()
    for day, expected in (
        (15, {"Chicago": "current", "Denver": "planned"}),
        (60, {"Chicago": "past", "Denver": "current"}),
    ):
        at = (T0 + timedelta(days=day)).isoformat()
        assert main(["--db", db, "show", "--json", "--as-of", at]) == 0
        [user] = json.loads(capsys.readouterr().out)
        states = {f["value"]: f["state"] for f in user["facts"] if f["slot"] == "lives_in"}
        assert states == expected


def test_asof_plan_is_never_current_before_it_starts(memory):
    memory.write(Turn(text="I live in Chicago.", user_id="u", timestamp=T0))
    memory.write(Turn(text="We're moving to Denver next month.", user_id="u", timestamp=T0 + timedelta(days=16)))
    before, after = T0 + timedelta(days=20), T0 + timedelta(days=60)
    assert [f.value for f in memory.facts("u", as_of=before)] == ["Chicago"]
    assert [f.value for f in memory.facts("u", as_of=after)] == ["Denver"]
    card = memory.retrieve("Where will I live?", user_id="u", now=before).cards
    assert any("Denver" in c.text and "planned from" in c.text for c in card)


def test_asof_sees_manual_corrections_and_retractions_only_once_made(make_memory):
    """A correction or retraction by hand is knowledge of its own time: asked as known before
    it, the facts read as they were known then (the ending they had then, if any)."""
    clock = [T0]
    mem = make_memory(clock=lambda: clock[0])
    _write(mem, [("live", "Boston", 1), ("moved", "Denver", 9)])
    facts = {f.value: f for f in mem.facts("u", include_superseded=True)}
    clock[0] = T0 + timedelta(days=20)
    mem.correct("u", facts["Boston"].id, value="Cambridge")  # Boston was wrong: it was Cambridge
    clock[0] = T0 + timedelta(days=30)
    mem.retract("u", facts["Denver"].id)  # and the move never happened

    def held(day: int) -> set[str]:
        known = T0 + timedelta(days=day, hours=12)
        return {f.value for f in mem.facts("u", slot="lives_in", as_of=known)}

    assert held(5) == {"Boston"}  # before the move was said
    assert held(15) == {"Denver"}  # the move said, nothing corrected yet
    assert held(25) == {"Denver"}  # corrected: Cambridge, but it was replaced by the move then
    assert held(35) == {"Cambridge"}  # the move retracted: what it replaced holds again
    everything = {f.value: f for f in mem.facts("u", include_superseded=True, as_of=T0 + timedelta(days=15))}
    assert "Cambridge" not in everything  # the correction is not known before it was made
    assert everything["Boston"].reason == "replaced" and everything["Denver"].reason is None
    for day in (5, 15, 25, 35):
        at = T0 + timedelta(days=day, hours=12)
        stored = mem.store.facts("u", slots=["lives_in"])
        assert {f.value for f in stored if fact_state(f, at, at) is FactState.CURRENT} == held(day)
        recall = mem.retrieve("Where do I live?", user_id="u", now=at, as_of=at)
        shown = [c.text for c in recall.cards if c.track == "fact" and "lives in:" in c.text and "since 20" in c.text]
        assert [s.split(": ", 1)[1].split(" (")[0] for s in shown] == sorted(held(day)), shown


def test_revisions_survive_export_and_import(make_memory, tmp_path):
    clock = [T0 + timedelta(days=5)]
    mem = make_memory(clock=lambda: clock[0])
    _write(mem, [("live", "Boston", 1), ("moved", "Denver", 2)])
    denver = next(f for f in mem.facts("u") if f.value == "Denver")
    clock[0] = T0 + timedelta(days=10)
    mem.retract("u", denver.id)
    path = tmp_path / "u.jsonl"
    mem.export(path, user_id="u")
    other = make_memory()
    other.import_(path)
    for mem_ in (mem, other):
        assert [f.value for f in mem_.facts("u", as_of=T0 + timedelta(days=6))] == ["Denver"]
        assert [f.value for f in mem_.facts("u", as_of=T0 + timedelta(days=11))] == ["Boston"]
