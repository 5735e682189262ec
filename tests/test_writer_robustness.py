"""A stage that fails leaves no half-stored turn: the turn and its event stay, nothing else."""

from __future__ import annotations

from datetime import datetime, timezone

import yaml

from memtracks import Memory, Turn
from memtracks.data.catalogue import load_catalogue
from memtracks.data.files import bundled
from memtracks.toolkit import Toolkit

T0 = datetime(2024, 5, 6, 9, tzinfo=timezone.utc)


def _catalogue_without(tmp_path, slot):
    doc = yaml.safe_load(bundled("rules", "slots.yaml").read_text(encoding="utf-8"))
    doc["slots"] = [s for s in doc["slots"] if s["name"] != slot]
    for s in doc["slots"]:  # and what other slots say of it
        for field in ("ends", "ends_values"):
            s.get(field, {}).pop(slot, None)
    path = tmp_path / "slots.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
    return load_catalogue(path)


def test_writer_failing_inference_stage_keeps_the_turns_other_facts(toolkit, embedder, tmp_path):
    # a slot catalogue that lacks the slot an inference rule concludes: the rule stage fails
    # on the marriage; the move stated beside it keeps its fact, and nothing is half-stored
    broken = Toolkit(
        nlp=toolkit.nlp, lexicons=toolkit.lexicons, catalogue=_catalogue_without(tmp_path, "relationship_status")
    )
    mem = Memory(toolkit=broken, embedder=embedder)
    result = mem.write(
        Turn(text="I live in Boston. I finally married Anna last weekend.", user_id="u", timestamp=T0, turn_id="t1")
    )
    assert any("stages failed" in w and "on its happenings; kept the rest" in w for w in result.warnings)
    assert [(f.slot, f.value) for f in mem.facts("u", include_superseded=True)] == [("lives_in", "Boston")]
    assert [f.value for f in result.facts] == ["Boston"]
    assert mem.inferences("u", include_retracted=True) == []
    assert len(mem.store.vectors("u", "fact")[0]) == 1
    assert [e.turn_id for e in mem.events("u")] == ["t1"]
    assert mem.check().ok
    # the store is consistent: the next turn writes normally
    mem.write(Turn(text="I work at Google.", user_id="u", timestamp=T0, turn_id="t2"))
    assert sorted(f.value for f in mem.facts("u", as_of=T0)) == ["Boston", "Google"]
    mem.close()


def test_writer_same_turn_with_the_full_catalogue_stores_everything(memory):
    memory.write(
        Turn(text="I live in Boston. I finally married Anna last weekend.", user_id="u", timestamp=T0, turn_id="t1")
    )
    slots = {f.slot for f in memory.facts("u", as_of=T0)}
    assert {"lives_in", "relationship_status"} <= slots
