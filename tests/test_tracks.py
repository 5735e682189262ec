"""Each track keeps the as-of rule of its records and renders their card lines."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from memtracks.data.catalogue import default_catalogue
from memtracks.records import Event, Fact, Inference, Premise
from memtracks.retrieval.cards import CardContext
from memtracks.tracks import FACTS, INFERENCES, TEMPORAL, track_of

T0 = datetime(2024, 1, 10, 9, tzinfo=timezone.utc)


def _fact(**kw) -> Fact:
    base = dict(
        subject="user", slot="lives_in", value="Shanghai", value_key="shanghai", user_id="u", id=1,
        valid_from=T0, recorded_at=T0, last_seen=T0,
    )  # fmt: skip
    return Fact(**{**base, **kw})


def _event(text: str = "I flew to Tokyo.", lang: str = "en", **kw) -> Event:
    base = dict(user_id="u", session_id="s", turn_id="t1", speaker="user", subject="user", text=text, lang=lang, id=7)
    return Event(**{**base, "mentioned_at": T0, **kw})


def _inference(**kw) -> Inference:
    base = dict(
        user_id="u", rule_id="away", subject="user", kind="away", text="user away from home", lang="en",
        created_at=T0, premises=(Premise("event", 7), Premise("fact", 1)), id=3,
    )  # fmt: skip
    return Inference(**{**base, **kw})


def test_each_record_has_its_track() -> None:
    assert (track_of(_fact()), track_of(_event()), track_of(_inference())) == (FACTS, TEMPORAL, INFERENCES)
    with pytest.raises(TypeError):
        track_of("a string")


def test_the_as_of_rule_of_each_track() -> None:
    before, after = T0 - timedelta(days=1), T0 + timedelta(days=1)
    moved = _fact(valid_to=after, superseded_by=2, reason="replaced", superseded_at=after)
    assert FACTS.visible_at(moved, before) is None  # recorded later: unknown
    assert FACTS.visible_at(moved, T0).valid_to is None  # its end was learned later
    assert FACTS.visible_at(moved, after + timedelta(days=1)) == moved
    assert TEMPORAL.visible_at(_event(), before) is None
    assert TEMPORAL.visible_at(_event(), T0) == _event() == TEMPORAL.visible_at(_event(), None)
    retracted = _inference(status="retracted", retracted_at=after, retracted_because="fact ended")
    assert INFERENCES.visible_at(retracted, before) is None
    assert INFERENCES.visible_at(retracted, T0).is_active  # retracted later: still active then
    assert INFERENCES.visible_at(retracted, after) == retracted


def test_each_track_renders_its_card_line_in_english_and_chinese() -> None:
    records = {("event", 7): _event(), ("fact", 1): _fact()}
    ctx = CardContext(default_catalogue(), 0.8, lambda p: records.get((p.track, p.id)), at=T0)
    assert FACTS.card_text(_fact(), ctx) == "[fact] user lives in: Shanghai (since 2024-01-10)"
    assert FACTS.card_text(_fact(lang="zh", value="上海"), ctx) == "[事实] user 居住地：上海（自 2024-01-10）"
    unsure = _fact(confidence=0.6, source="inferred")  # below SURE: the card says how sure
    assert FACTS.card_text(unsure, ctx) == "[fact] user lives in: Shanghai (conf 0.60, since 2024-01-10, inferred)"
    assert FACTS.card_text(replace(unsure, lang="zh", value="上海"), ctx) == (
        "[事实] user 居住地：上海（置信度 0.60，自 2024-01-10，推断）"
    )
    assert TEMPORAL.card_text(_event(), ctx) == '[event] 2024-01-10 user: "I flew to Tokyo."'
    zh = _event("我去东京了。", "zh", id=8)
    assert TEMPORAL.card_text(zh, ctx) == '[时序] 2024-01-10 user："我去东京了。"'
    assert TEMPORAL.part_text(zh, ctx, 20) == '2024-01-10："我去东京了。"'
    line = "[inference] user away from home (conf 0.60, from: event event 2024-01-10, lives_in fact)"
    assert INFERENCES.card_text(_inference(), ctx) == line
    assert INFERENCES.card_text(_inference(lang="zh", text="用户不在家"), ctx) == (
        "[推理] 用户不在家（置信度 0.60，来源：event事件 2024-01-10, lives_in事实）"
    )
    assert INFERENCES.card_text(_inference(premises=()), ctx).endswith("from: away)")  # no premise left: the rule
    with pytest.raises(TypeError):
        FACTS.part_text(_fact(), ctx, 20)
